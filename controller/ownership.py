"""One process owns a table's journal: an exclusive lock on `journal.lock` beside it, held
for the process's life.

The lock is taken on a file of its own, never on the SQLite file (closing any descriptor of
that would drop SQLite's own locks). flock() is released by the kernel when the process
ends, however it ends (SIGKILL, power cut: a stale file is simply taken again), and is
inherited across fork(), so a server's worker processes share their parent's hold."""

from __future__ import annotations

import fcntl
import os
import sys
from datetime import UTC, datetime
from pathlib import Path

from controller.errors import JournalError


def lock_path(journal: str | os.PathLike) -> Path:
    """`journal.lock` beside the journal `journal.sqlite3`."""
    journal = Path(journal)
    return journal.with_name(journal.stem + ".lock")


class JournalOwner:
    """Hold the journal's lock: `JournalOwner(path).acquire()`, kept until release() or the
    process's end. A second owner is refused with the holder's pid."""

    def __init__(self, journal: str | os.PathLike):
        self.journal = Path(journal)
        self.path = lock_path(journal)
        self._fd: int | None = None

    def acquire(self) -> JournalOwner:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 512, 0).decode("utf-8", "replace").strip()
            os.close(fd)
            raise JournalError(
                f"{self.journal} is in use by another feltbank ({holder or 'pid unknown'}): "
                "one process runs a table; stop that one first (read-only tools such as "
                "feltbank journal verify or export work beside it)") from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, (f"pid {os.getpid()}, since {datetime.now(UTC):%Y-%m-%d %H:%M:%S} UTC, "
                       f"{' '.join(sys.argv[:3])}\n").encode(), 0)
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> JournalOwner:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()
