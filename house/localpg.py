"""A PostgreSQL server of the house's own, in one folder, run with Debian's own tools.

    pg = LocalPostgres("/var/lib/feltbank-house/pg")   # initdb on first use
    pg.start()            # pg_ctl start; listens on a Unix socket in the folder only
    pg.url                # postgresql://feltbank@/house?host=...&port=...
    pg.stop()             # or pg.kill(): the server dies as a crash would

`feltbank house serve --local DIR` runs the house on one; the tests and `feltbank bench house`
start one in a temporary folder. As root, the server runs as an unprivileged user (`nobody`,
or $FELTBANK_PG_USER): PostgreSQL refuses to run as root.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import subprocess
from pathlib import Path

from controller.errors import ConfigError

DATABASE = "house"
SUPERUSER = "feltbank"


def postgres_bin() -> Path | None:
    """Debian's PostgreSQL programs (the newest version installed), or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


class LocalPostgres:
    """A PostgreSQL cluster in `directory` (made with initdb when absent), socket-only."""

    def __init__(self, directory: str | Path, port: int = 5432, *, fsync: bool = True):
        self.directory = Path(directory).resolve()
        self.data = self.directory / "data"
        self.port = port
        self.fsync = fsync
        self.bin = postgres_bin()
        if self.bin is None:
            raise ConfigError("PostgreSQL's programs are not installed (initdb, pg_ctl): "
                              "apt-get install postgresql")
        self.user = None
        if os.geteuid() == 0:
            self.user = os.environ.get("FELTBANK_PG_USER", "nobody")

    @property
    def url(self) -> str:
        return f"postgresql://{SUPERUSER}@/{DATABASE}?host={self.directory}&port={self.port}"

    def _run(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess:
        cmd = [str(self.bin / argv[0]), *argv[1:]]
        if self.user:
            cmd = ["runuser", "-u", self.user, "--", *cmd]
        done = subprocess.run(cmd, capture_output=True, text=True, cwd="/")
        if check and done.returncode:
            raise ConfigError(f"{argv[0]} failed ({done.returncode}): "
                              f"{(done.stderr or done.stdout).strip()[-800:]}")
        return done

    def _own(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        self.directory.chmod(0o700)
        if self.user:
            entry = pwd.getpwnam(self.user)
            os.chown(self.directory, entry.pw_uid, entry.pw_gid)

    def init(self) -> bool:
        """Make the cluster and its database when the folder has none; True when made."""
        if (self.data / "PG_VERSION").exists():
            return False
        self._own()
        self._run("initdb", "-D", str(self.data), "-U", SUPERUSER, "--auth=trust",
                  "--encoding=UTF8", "--no-locale", "--no-instructions")
        self.start()
        self._run("createdb", "-h", str(self.directory), "-p", str(self.port), "-U", SUPERUSER,
                  DATABASE)
        return True

    def start(self) -> None:
        """Start the server (initdb first when needed); returns when it accepts connections."""
        if not (self.data / "PG_VERSION").exists():
            self.init()
            return
        if self.running():
            return
        options = (f"-p {self.port} -k {self.directory} -c listen_addresses='' "
                   f"-c fsync={'on' if self.fsync else 'off'}")
        self._run("pg_ctl", "start", "-w", "-t", "60", "-D", str(self.data), "-o", options,
                  "-l", str(self.directory / "server.log"))

    def running(self) -> bool:
        return self._run("pg_ctl", "status", "-D", str(self.data), check=False).returncode == 0

    def stop(self) -> None:
        if (self.data / "PG_VERSION").exists() and self.running():
            self._run("pg_ctl", "stop", "-w", "-m", "fast", "-D", str(self.data))

    def kill(self) -> None:
        """The server dies at once, as in a crash (the next start recovers from its WAL)."""
        pid_file = self.data / "postmaster.pid"
        if pid_file.exists():
            pid = int(pid_file.read_text().split()[0])
            os.kill(pid, signal.SIGKILL)
