"""The house ledger in a real PostgreSQL: entries kept by (table, seq), the chain checked on
arrival; a gap, a fork, an edited entry, a wrong token refused, each named."""

from __future__ import annotations

import csv
import io
import sqlite3

import pytest

from controller import chain
from controller.ledger import statements
from house.db import Refused
from tests.house.conftest import played_journal


def shipped(house, table_id, token, journal, after=0, limit=None):
    return house.ingest(table_id, token, list(journal.chained(after=after, limit=limit)))


def test_a_journal_arrives_whole_and_a_resend_is_kept_once(house, tmp_path):
    token = house.add_table("t1", "Table 1")
    with played_journal(tmp_path / "j.sqlite3", 120) as journal:
        first = shipped(house, "t1", token, journal, limit=50)
        assert (first.head_seq, first.added) == (50, 50)
        again = shipped(house, "t1", token, journal, limit=80)  # 1..80: 1..50 held already
        assert (again.head_seq, again.added) == (80, 30)
        rest = shipped(house, "t1", token, journal, after=80)
        assert (rest.head_seq, rest.head_hash) == journal.head()
        with house.connect() as db:
            assert db.execute("SELECT count(*), count(DISTINCT seq) FROM entries").fetchone() \
                == (120, 120)
        assert house.chained("t1", 0, 500) == list(journal.chained())
        # The house's book is the journal's: the bank's balance is the house result.
        [row] = house.tables()
        balances = journal.verify().balances
        assert row["house_result"] == balances.get("bank", 0)
        assert row["seq"] == 120 and row["head"] == chain.short(journal.head()[1])
        assert row["mode"] == "hazard"
        assert {f"player:{p}": b for p, b in row["players"].items()} == {
            a: b for a, b in balances.items() if a.startswith("player:")}


def test_a_gap_is_refused_and_said(house, tmp_path):
    token = house.add_table("t1")
    with played_journal(tmp_path / "j.sqlite3", 30) as journal:
        shipped(house, "t1", token, journal, limit=10)
        with pytest.raises(Refused, match=r"seq 15 .* holds up to seq 10: seq 11 to 14 are "
                                          r"missing \(a gap\)") as caught:
            shipped(house, "t1", token, journal, after=14)
        assert caught.value.status == 409
    assert house.tables()[0]["seq"] == 10
    assert "a gap" in house.refusals()[0]["reason"]


def test_a_fork_is_refused(house, tmp_path):
    token = house.add_table("t1")
    with played_journal(tmp_path / "a.sqlite3", 20) as a, \
            played_journal(tmp_path / "b.sqlite3", 20, mode="fortunes-winds") as b:
        shipped(house, "t1", token, a, limit=10)
        with pytest.raises(Refused, match="seq 1 .* differs from the entry the house holds .* "
                                          "the chain forks there"):
            shipped(house, "t1", token, b)
        with pytest.raises(Refused, match="seq 11 .* follows .* the chain forks there"):
            shipped(house, "t1", token, b, after=10)
    assert house.tables()[0]["seq"] == 10


def test_an_entry_edited_by_hand_is_refused_with_the_entry_named(house, tmp_path):
    token = house.add_table("t1")
    path = tmp_path / "j.sqlite3"
    played_journal(path, 40).close()
    db = sqlite3.connect(path)
    seq, cid = db.execute("SELECT seq, id FROM legs JOIN commands USING (seq) "
                          "WHERE seq > 20 ORDER BY seq LIMIT 1").fetchone()
    db.execute("UPDATE legs SET amount = amount * 2 WHERE seq = ? AND amount > 0", (seq,))
    db.execute("UPDATE legs SET amount = amount * 2 WHERE seq = ? AND amount < 0", (seq,))
    db.commit()
    db.close()
    from controller.journal import Journal

    with Journal(path) as journal:
        with pytest.raises(Refused, match=rf"seq {seq} \({cid}\) does not match its hash: "
                                          "the entry was edited") as caught:
            shipped(house, "t1", token, journal)
    assert caught.value.status == 422 and caught.value.seq == seq
    # What came before the edit is kept; nothing from it on.
    assert house.tables()[0]["seq"] == seq - 1
    assert house.tables()[0]["refusal"].startswith(f"table t1: seq {seq}")


def test_tokens_belong_to_one_table(house, tmp_path):
    token1 = house.add_table("t1")
    house.add_table("t2")
    with played_journal(tmp_path / "j.sqlite3", 5) as journal:
        with pytest.raises(Refused, match="the token sent is table t1's, not t2's") as caught:
            shipped(house, "t2", token1, journal)
        assert caught.value.status == 403
        with pytest.raises(Refused, match="not one the house gave out") as caught:
            shipped(house, "t1", "guessed", journal)
        assert caught.value.status == 401
        replaced = house.new_token("t1")
        with pytest.raises(Refused, match="not one the house gave out"):
            shipped(house, "t1", token1, journal)
        assert shipped(house, "t1", replaced, journal).head_seq == 5
    assert [r["table"] for r in house.refusals()] == ["t1", "t1", "t2"]


def test_a_token_never_begins_with_a_dash(house, monkeypatch):
    """A token beginning with "-" is read by a command line as an option (`feltbank journal
    restore --token -_iw...` failed: 'expected one argument'): the house draws again."""
    import secrets

    drawn = iter(["-_iwHeIQ3ZwQnw0syCx8JzL5e", "-x", "a-b_c"])
    monkeypatch.setattr(secrets, "token_urlsafe", lambda n: next(drawn))
    assert house.add_table("t1") == "a-b_c"
    drawn = iter(["-q", "Zz"])
    assert house.new_token("t1") == "Zz"


def test_a_malformed_shipment_is_refused_and_changes_nothing(house):
    token = house.add_table("t1")
    with pytest.raises(Refused, match="is not shaped as a journal entry"):
        house.ingest("t1", token, [{"seq": 1, "prev": "x", "hash": "y", "body": {}}])
    with pytest.raises(Refused, match="at most 500 entries"):
        house.ingest("t1", token, [{}] * 501)
    assert house.tables()[0]["seq"] == 0


def test_statements_results_and_csv_across_tables(house, tmp_path):
    journals = {}
    for n, mode in enumerate(("hazard", "fortunes-winds", "hazard"), 1):
        token = house.add_table(f"t{n}")
        journal = played_journal(tmp_path / f"t{n}.sqlite3", 150, mode=mode, seed=n)
        shipped(house, f"t{n}", token, journal)
        journals[f"t{n}"] = journal
    # Per player across tables: the sum of each table's own statement.
    found = house.statements()
    for player in ("P1", "P2"):
        want = [statements(j.entries())[player] for j in journals.values()]
        assert found[player]["total"].net == sum(s.net for s in want)
        assert found[player]["total"].buy_in == sum(s.buy_in for s in want)
        assert found[player]["tables"]["t2"] == want[1]
    bank = {t: j.verify().balances.get("bank", 0) for t, j in journals.items()}
    assert house.results("table") == sorted(bank.items())
    assert dict(house.results("mode")) == {"fortunes-winds": bank["t2"],
                                            "hazard": bank["t1"] + bank["t3"]}
    assert dict(house.results("day")) == {"2026-11-23": sum(bank.values())}
    shifts = dict(house.results("shift"))
    assert list(shifts) == ["night", "day", "evening"] and shifts["night"] == 0
    assert sum(shifts.values()) == sum(bank.values())
    with pytest.raises(Exception, match="by one of table, mode, day, shift"):
        house.results("week")
    rows = list(csv.DictReader(io.StringIO("".join(house.export_csv()))))
    legs = sum(len(list(j.entries())) for j in journals.values())
    assert len({(r["table"], r["seq"], r["entry"]) for r in rows}) == legs
    assert sum(int(r["amount"]) for r in rows) == 0
    assert sum(int(r["amount"]) for r in rows if r["account"] == "bank") == sum(bank.values())
    for journal in journals.values():
        journal.close()
