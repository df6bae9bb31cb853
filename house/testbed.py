"""A house to try things on: a throwaway certificate, the real service in its own process,
tables that play. Used by the tests and by `feltbank bench house`.
"""

from __future__ import annotations

import os
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from controller.errors import FeltbankError

SERVE = "import sys; from controller.cli import main; sys.exit(main())"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def throwaway_certificate(folder: Path) -> tuple[Path, Path, Path]:
    """A CA and a certificate for 127.0.0.1 and localhost it signed: (ca, cert, key) PEMs."""
    import trustme

    ca = trustme.CA()
    issued = ca.issue_cert("127.0.0.1", "localhost")
    folder.mkdir(parents=True, exist_ok=True)
    paths = folder / "ca.pem", folder / "cert.pem", folder / "key.pem"
    ca.cert_pem.write_to_path(str(paths[0]))
    issued.cert_chain_pems[0].write_to_path(str(paths[1]))
    issued.private_key_pem.write_to_path(str(paths[2]))
    return paths


class HouseProcess:
    """`feltbank house serve` in its own process group, on HTTPS with the throwaway cert."""

    def __init__(self, db_url: str, folder: Path, port: int | None = None):
        self.db_url = db_url
        self.folder = Path(folder)
        self.ca, self.cert, self.key = throwaway_certificate(self.folder / "tls")
        self.port = port or free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> None:
        log = open(self.folder / "house.log", "ab")  # noqa: SIM115 (the process keeps it)
        self.proc = subprocess.Popen(
            [sys.executable, "-c", SERVE, "house", "serve", "--db", self.db_url,
             "--data", str(self.folder / "data"), "--host", "127.0.0.1",
             "--port", str(self.port), "--cert", str(self.cert), "--key", str(self.key),
             "--threads", "8"],
            stdout=log, stderr=log, start_new_session=True)
        log.close()
        context = ssl.create_default_context(cafile=str(self.ca))
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise FeltbankError(f"the house exited ({self.proc.returncode}): "
                                    f"{(self.folder / 'house.log').read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/healthz", timeout=5,
                                            context=context) as answer:
                    if answer.status == 200:
                        return
            except (OSError, urllib.error.URLError):
                pass
            if time.monotonic() > deadline:
                self.kill()
                raise FeltbankError(f"the house did not answer within {timeout} s")
            time.sleep(0.1)  # polling a process that is starting: no event to wait on

    def kill(self) -> None:
        """The house dies at once (SIGKILL to its whole process group)."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(30)
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(30)
        self.proc = None
