"""The house's tests run against a real PostgreSQL server started here, in a temporary
folder, with Debian's own tools (apt-get install postgresql; .ci/run installs it)."""

from __future__ import annotations

import itertools
import shutil
import tempfile
import uuid
from pathlib import Path

import pytest

from controller.games.base import Command
from controller.games.play import accepted
from controller.journal import Journal
from controller.table import Table
from house.localpg import postgres_bin

_databases = itertools.count(1)


@pytest.fixture(scope="session")
def postgres():
    """One PostgreSQL server for the session (fsync off: a test bench)."""
    if postgres_bin() is None:
        pytest.skip("PostgreSQL's programs (initdb, pg_ctl) are not installed: "
                    "apt-get install postgresql")
    from house.localpg import LocalPostgres

    # Not under pytest's tmp folder: as root the server runs as `nobody`, who must reach it.
    folder = tempfile.mkdtemp(prefix="feltbank-pg-")
    server = LocalPostgres(folder, fsync=False)
    server.start()
    yield server
    server.stop()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def house_url(postgres):
    """A new, migrated database of its own for each test."""
    import psycopg

    from house.db import migrate

    name = f"t{next(_databases)}_{uuid.uuid4().hex[:6]}"
    with psycopg.connect(postgres.url, autocommit=True) as db:
        db.execute(f"CREATE DATABASE {name}")
    url = postgres.url.replace("/house?", f"/{name}?")
    migrate(url)
    return url


@pytest.fixture
def house(house_url):
    from house.db import House

    return House(house_url)


def played_journal(path: Path, n: int, mode: str = "hazard", seed: int = 1) -> Journal:
    """A journal holding the first `n` accepted commands of seeded play of `mode`."""
    journal = Journal(path)
    played, _ = accepted(mode, n, seed=seed)
    journal.append_many((c, e, "test", f"2026-11-23T{(9 + i // 3600) % 24:02d}:"
                         f"{i // 60 % 60:02d}:{i % 60:02d}.000+00:00")
                        for i, (c, e) in enumerate(played))
    return journal


class PlayingTable:
    """A table that goes on playing seeded commands through Table.submit()."""

    def __init__(self, path: Path, mode: str = "hazard", seed: int = 1, count: int = 400):
        self.table = Table(Journal(path))
        self.played, _ = accepted(mode, count, seed=seed)
        self.next = 0

    def play(self, n: int) -> int:
        """Submit the next `n` commands; the last seq."""
        for cmd, _ in self.played[self.next:self.next + n]:
            self.table.submit(Command(cmd.kind, cmd.args, f"{cmd.id}-{uuid.uuid4().hex[:8]}"))
        self.next += n
        return self.table.journal.last_seq()
