"""Journals written by older feltbank still replay: to the same events and the same balances."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from controller.history import replay
from controller.journal import Journal

HISTORIES = Path(__file__).resolve().parents[1] / "histories"


@pytest.mark.parametrize("dump", sorted(HISTORIES.glob("journal-*.sql")), ids=lambda p: p.stem)
def test_an_old_journal_verifies_and_replays_to_its_balances(dump, tmp_path):
    path = tmp_path / "journal.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(dump.read_text())
    db.close()
    with Journal(path) as journal:
        report = journal.verify()
        assert report.problems == [] and report.commands > 100
        stored = {a: s for a, s in journal.account_sums().items() if s}
        assert {a: s for a, s in report.balances.items() if s} == stored
        state = journal.rebuild()
        assert state.rounds > 10 and state.ledger.total() == 0
        ended = [e for r in journal.records() for e in r.events if e.kind.endswith("-ended")]
        assert len(ended) == state.rounds


@pytest.mark.parametrize("dump", sorted(HISTORIES.glob("journal-*.sql")), ids=lambda p: p.stem)
def test_an_old_hand_history_with_its_events_replays(dump, tmp_path):
    db = sqlite3.connect(":memory:")
    db.executescript(dump.read_text())
    rows = db.execute("SELECT id, kind, args, events FROM commands ORDER BY seq").fetchall()
    db.close()
    assert any('"turn-ended"' in events or '"caster"' in events for *_, events in rows)
    history = tmp_path / "old.jsonl"
    history.write_text("".join(
        json.dumps({"id": cid, "kind": kind, **json.loads(args), "events": json.loads(events)})
        + "\n" for cid, kind, args, events in rows))
    state = replay(history)  # HistoryError if an event differed
    path = tmp_path / "journal.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(dump.read_text())
    db.close()
    with Journal(path) as journal:
        assert state.ledger.balances == journal.rebuild().ledger.balances
