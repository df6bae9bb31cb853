"""The dashboard's accounts: a small SQLite file in the data folder, passwords hashed."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from werkzeug.security import check_password_hash, generate_password_hash

ROLES = ("banker", "viewer")
MIN_PASSWORD = 8
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$")

#: A hash to check against when the user does not exist, so both cases take as long.
_DUMMY_HASH = generate_password_hash("feltbank-no-such-user")


class UserError(ValueError):
    """An account that cannot be made or changed; the message says what is accepted."""


@dataclass(frozen=True)
class User:
    name: str
    role: str

    @property
    def is_banker(self) -> bool:
        return self.role == "banker"


def check_new_account(name: object, password: object, role: object) -> tuple[str, str, str]:
    """The account's fields if acceptable, else UserError with what would be accepted."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise UserError("a user name is 1 to 32 letters, digits, dots, dashes or underscores, "
                        "starting with a letter or digit")
    if not isinstance(password, str) or len(password) < MIN_PASSWORD or len(password) > 256:
        raise UserError(f"a password is {MIN_PASSWORD} to 256 characters")
    if role not in ROLES:
        raise UserError(f"a role is one of {', '.join(ROLES)}")
    return name, password, role  # type: ignore[return-value]


class UserStore:
    """The accounts file. One connection per request; every write is one transaction."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, isolation_level=None, timeout=10)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("CREATE TABLE IF NOT EXISTS users (name TEXT PRIMARY KEY COLLATE NOCASE, "
                        "role TEXT NOT NULL, hash TEXT NOT NULL, created TEXT NOT NULL)")
        self.path.chmod(0o600)

    def close(self) -> None:
        self.db.close()

    def count(self) -> int:
        return self.db.execute("SELECT count(*) FROM users").fetchone()[0]

    def get(self, name: str) -> User | None:
        row = self.db.execute("SELECT name, role FROM users WHERE name = ?", (name,)).fetchone()
        return User(*row) if row else None

    def all(self) -> list[User]:
        return [User(*r) for r in self.db.execute("SELECT name, role FROM users ORDER BY name")]

    def add(self, name: object, password: object, role: object, *, first: bool = False) -> User:
        """Create an account; `first`: only while there is none (the first-run wizard)."""
        name, password, role = check_new_account(name, password, role)
        hashed = generate_password_hash(password)
        self.db.execute("BEGIN IMMEDIATE")
        try:
            if first and self.count():
                raise UserError("the banker's account already exists; log in")
            if self.get(name):
                raise UserError(f"there is already a user called {name}")
            self.db.execute("INSERT INTO users VALUES (?, ?, ?, ?)",
                            (name, role, hashed, datetime.now(UTC).isoformat(timespec="seconds")))
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        return User(name, role)

    def remove(self, name: str) -> None:
        """Delete an account; the last banker cannot be removed."""
        user = self.get(name)
        if user is None:
            raise UserError(f"there is no user called {name}")
        self.db.execute("BEGIN IMMEDIATE")
        try:
            bankers = self.db.execute("SELECT count(*) FROM users WHERE role = 'banker'"
                                      ).fetchone()[0]
            if user.is_banker and bankers <= 1:
                raise UserError("the last banker's account cannot be removed")
            self.db.execute("DELETE FROM users WHERE name = ?", (name,))
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def check(self, name: object, password: object) -> User | None:
        """The user if `password` is theirs, else None."""
        if not isinstance(name, str) or not isinstance(password, str) or len(password) > 256:
            check_password_hash(_DUMMY_HASH, "x")
            return None
        row = self.db.execute("SELECT name, role, hash FROM users WHERE name = ?",
                              (name,)).fetchone()
        if row is None:
            check_password_hash(_DUMMY_HASH, password)
            return None
        return User(row[0], row[1]) if check_password_hash(row[2], password) else None
