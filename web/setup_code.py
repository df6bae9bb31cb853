"""The first-run setup code: until the banker's account exists, the wizard asks for a
one-time code that only someone at the table's computer can read (Jupyter's token pattern):
`feltbank run` prints it in its log and writes it to `setup-code` in the data folder (mode
600). Without it, anyone on the network could make themselves the banker."""

from __future__ import annotations

import hmac
import logging
import secrets
from pathlib import Path

from controller.storage import atomic_write

log = logging.getLogger("feltbank")

FILE_NAME = "setup-code"


class SetupCode:
    """The code in `DATA_DIR/setup-code`: issued while there is no banker, used up by the
    wizard."""

    def __init__(self, data_dir: str | Path):
        self.path = Path(data_dir) / FILE_NAME

    def current(self) -> str | None:
        try:
            code = self.path.read_text(encoding="utf-8").strip()
        except (FileNotFoundError, UnicodeDecodeError):
            return None
        return code or None

    def issue(self) -> str:
        """The code (the one on file, else a new one), announced in the log."""
        code = self.current()
        if code is None:
            code = "-".join(secrets.token_hex(3) for _ in range(3))
            atomic_write(self.path, code + "\n", mode=0o600)
        log.warning("first run: open the dashboard and create the banker's account with the "
                    "setup code %s (also in %s)", code, self.path)
        return code

    def check(self, given: object) -> bool:
        code = self.current()
        if code is None:
            self.issue()  # a fresh one for the next try, in the log and the file
            return False
        given = given.strip().lower() if isinstance(given, str) else ""
        return hmac.compare_digest(given.encode(), code.encode())

    def discard(self) -> None:
        self.path.unlink(missing_ok=True)
