"""The dashboard's accounts: a small SQLite file in the data folder, passwords hashed.

Read on every request, written rarely (a new user, a password, a logout): a rollback journal
keeps the reads working when the disk is full or read-only."""

from __future__ import annotations

import re
import secrets
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
    #: Changed whenever this user's sessions must end (logout, new password, new role): a
    #: session cookie carries the generation it was made in and is refused after a change.
    generation: str = ""

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
        new = not self.path.exists()
        if new:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, isolation_level=None, timeout=10)
        try:
            # Only a new or old file is written to here: every request opens the store, and
            # a full or read-only disk must still let the pages read it.
            # A rollback journal, not WAL: reading then needs no -shm file made beside it,
            # so the accounts still read (and people log in) on a full or read-only disk.
            if self.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal":
                self.db.execute("PRAGMA journal_mode=DELETE")
            columns = {r[1] for r in self.db.execute("PRAGMA table_info(users)")}
            if not columns:
                self.db.execute("CREATE TABLE IF NOT EXISTS users (name TEXT PRIMARY KEY "
                                "COLLATE NOCASE, role TEXT NOT NULL, hash TEXT NOT NULL, "
                                "created TEXT NOT NULL, generation TEXT NOT NULL DEFAULT '')")
            elif "generation" not in columns:
                self.db.execute("ALTER TABLE users ADD COLUMN generation TEXT NOT NULL "
                                "DEFAULT ''")
            self.db.execute("PRAGMA synchronous=FULL")
        except BaseException:
            self.db.close()
            raise
        if new:
            self.path.chmod(0o600)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> UserStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def count(self) -> int:
        return self.db.execute("SELECT count(*) FROM users").fetchone()[0]

    def get(self, name: str) -> User | None:
        row = self.db.execute("SELECT name, role, generation FROM users WHERE name = ?",
                              (name,)).fetchone()
        return User(*row) if row else None

    def all(self) -> list[User]:
        return [User(*r) for r in self.db.execute("SELECT name, role, generation FROM users "
                                                  "ORDER BY name")]

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
            self.db.execute("INSERT INTO users (name, role, hash, created, generation) "
                            "VALUES (?, ?, ?, ?, ?)",
                            (name, role, hashed, datetime.now(UTC).isoformat(timespec="seconds"),
                             secrets.token_hex(16)))
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        return self.get(name) or User(name, role)

    def revoke(self, name: str) -> None:
        """End every session of `name` (on every device): a new generation."""
        self.db.execute("UPDATE users SET generation = ? WHERE name = ?",
                        (secrets.token_hex(16), name))

    def set_password(self, name: str, password: object) -> User:
        """A new password for `name`; every session of theirs ends."""
        user = self.get(name)
        if user is None:
            raise UserError(f"there is no user called {name}")
        check_new_account(user.name, password, user.role)
        self.db.execute("UPDATE users SET hash = ?, generation = ? WHERE name = ?",
                        (generate_password_hash(password), secrets.token_hex(16), name))
        return self.get(name)  # type: ignore[return-value]

    def set_role(self, name: str, role: object) -> User:
        """A new role for `name` (the last banker stays one); every session of theirs ends."""
        user = self.get(name)
        if user is None:
            raise UserError(f"there is no user called {name}")
        check_new_account(user.name, "x" * MIN_PASSWORD, role)
        self.db.execute("BEGIN IMMEDIATE")
        try:
            bankers = self.db.execute("SELECT count(*) FROM users WHERE role = 'banker'"
                                      ).fetchone()[0]
            if user.is_banker and role != "banker" and bankers <= 1:
                raise UserError("the last banker cannot become a viewer")
            self.db.execute("UPDATE users SET role = ?, generation = ? WHERE name = ?",
                            (role, secrets.token_hex(16), name))
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        return self.get(name)  # type: ignore[return-value]

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
        row = self.db.execute("SELECT name, role, hash, generation FROM users WHERE name = ?",
                              (name,)).fetchone()
        if row is None:
            check_password_hash(_DUMMY_HASH, password)
            return None
        return User(row[0], row[1], row[3]) if check_password_hash(row[2], password) else None
