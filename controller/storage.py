"""Crash-safe file writes: temp file in the same folder, fsync, rename, fsync the folder."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path


def fsync_dir(path: Path) -> None:
    """Make a rename inside `path` durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: str | os.PathLike, data: bytes | str, mode: int = 0o644) -> None:
    """Replace `path` with `data` so that a crash leaves the old file or the new, never half."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


#: What a failed write says when the disk is the cause, by errno and by SQLite's words.
_FAULTS = ((errno.ENOSPC, "database or disk is full", "the disk is full"),
           (errno.EDQUOT, "disk quota", "the disk is full"),
           (errno.EROFS, "readonly database", "the disk is read-only"),
           (errno.EIO, "disk i/o error", "the disk fails to read or write (I/O error)"))


def disk_fault(exc: BaseException | None, folder: str | os.PathLike | None = None
               ) -> str | None:
    """"the disk is full" / "the disk is read-only" / ... when `exc` (or what caused it) is
    the disk's doing, else None. SQLite reports some of a full disk's failures as a plain
    I/O error: the disk of `folder` then tells which."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        code = getattr(exc, "errno", None)
        text = str(exc).lower()
        for number, words, fault in _FAULTS:
            if code == number or words in text:
                if number == errno.EIO and folder is not None:
                    return storage_health(folder).get("fault", fault)
                return fault
        exc = exc.__cause__ or exc.__context__
    return None


def storage_health(folder: str | os.PathLike) -> dict:
    """The data folder's disk: ok, or the fault (full, read-only) named."""
    try:
        st = os.statvfs(folder)
    except OSError as exc:
        return {"ok": False, "fault": f"the data folder cannot be read: {exc.strerror}",
                "path": str(folder)}
    free = st.f_bavail * st.f_frsize
    out = {"ok": True, "path": str(folder), "free_bytes": free}
    if st.f_flag & os.ST_RDONLY:
        out.update(ok=False, fault="the disk is read-only")
    elif free < MIN_FREE_BYTES:
        out.update(ok=False, fault="the disk is full")
    return out


#: Below this much free space the table's disk counts as full (a command and its WAL pages
#: need a few pages; SQLite also needs room to checkpoint).
MIN_FREE_BYTES = 256 * 1024
