"""Tables ship to a real house (its own process, HTTPS, a real PostgreSQL): at once, through
a house killed mid-stream, through a network cut; an edited journal refused on both sides;
a lost table written back from the house."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from controller.cli import main
from controller.journal import Journal
from controller.outbox import HouseClient, HouseRefused, Shipper
from house.testbed import HouseProcess
from tests.house.conftest import PlayingTable, played_journal
from tests.house.proxy import Proxy

pytestmark = pytest.mark.slow


@pytest.fixture
def house_proc(house_url, tmp_path):
    proc = HouseProcess(house_url, tmp_path / "house")
    proc.start()
    yield proc
    proc.stop()


def shipper(path, url, table_id, token, proc) -> Shipper:
    return Shipper(path, HouseClient(url, table_id, token, str(proc.ca), timeout=5), batch=25,
                   poll=0.5, backoff=(0.05, 0.4))


def until(s: Shipper, state: str, timeout: float = 30) -> bool:
    with s.progress:
        return s.progress.wait_for(lambda: s.status["state"] == state, timeout)


def held(house, table_id) -> tuple[int, int]:
    with house.connect() as db:
        return db.execute("SELECT count(*), count(DISTINCT seq) FROM entries WHERE table_id = %s",
                          (table_id,)).fetchone()


def test_three_tables_at_once_through_a_house_killed_midstream(house, house_proc, tmp_path):
    ids = ("t1", "t2", "t3")
    tables = {t: PlayingTable(tmp_path / f"{t}.sqlite3", seed=n, count=300)
              for n, t in enumerate(ids, 1)}
    shippers = {t: shipper(tables[t].table.journal.path, house_proc.url, t,
                           house.add_table(t), house_proc) for t in ids}
    for t in ids:
        tables[t].table.subscribe(shippers[t].wake)
        shippers[t].start()
    try:
        def play(t: str, n: int) -> None:
            for _ in range(n // 10):
                tables[t].play(10)

        threads = [threading.Thread(target=play, args=(t, 200)) for t in ids]
        for th in threads:
            th.start()
        assert shippers["t1"].wait_for(30, timeout=60)
        house_proc.kill()  # mid-stream: the tables are still playing and shipping
        assert until(shippers["t1"], "unreachable")
        for th in threads:
            th.join()
        # The house is down: the tables play on.
        for t in ids:
            tables[t].play(100)
        assert all(held(house, t)[0] < tables[t].table.journal.last_seq() for t in ids)
        house_proc.start()
        for t in ids:
            last = tables[t].table.journal.last_seq()
            assert last == 300
            assert shippers[t].wait_for(last, timeout=60), shippers[t].status
            assert held(house, t) == (last, last)  # every entry, exactly once
            assert house.chained(t, 0, 500) == list(tables[t].table.journal.chained())
    finally:
        for s in shippers.values():
            s.stop()
        for pt in tables.values():
            pt.table.journal.close()


def test_a_table_cut_off_catches_up(house, house_proc, tmp_path):
    proxy = Proxy(house_proc.port)
    cut_off = PlayingTable(tmp_path / "t1.sqlite3", seed=1, count=200)
    other = PlayingTable(tmp_path / "t2.sqlite3", seed=2, count=200)
    s1 = shipper(cut_off.table.journal.path, proxy.url, "t1", house.add_table("t1"), house_proc)
    s2 = shipper(other.table.journal.path, house_proc.url, "t2", house.add_table("t2"),
                 house_proc)
    for pt, s in ((cut_off, s1), (other, s2)):
        pt.table.subscribe(s.wake)
        s.start()
    try:
        assert s1.wait_for(cut_off.play(20), timeout=30)
        proxy.set_cut(True)
        cut_off.play(80)
        assert until(s1, "unreachable")
        assert "cannot be reached" in s1.status["error"] and s1.status["ok"]
        assert s2.wait_for(other.play(100), timeout=30)  # the other table is not held up
        assert held(house, "t1")[0] < 100
        proxy.set_cut(False)
        assert s1.wait_for(100, timeout=60), s1.status
        assert held(house, "t1") == (100, 100) and held(house, "t2") == (100, 100)
        assert proxy.dropped > 0
    finally:
        s1.stop()
        s2.stop()
        proxy.close()
        cut_off.table.journal.close()
        other.table.journal.close()


def test_an_edited_journal_is_refused_on_both_sides(house, house_proc, tmp_path):
    path = tmp_path / "t1.sqlite3"
    played_journal(path, 60).close()
    db = sqlite3.connect(path)
    seq, cid = db.execute("SELECT seq, id FROM commands WHERE seq = 33").fetchone()
    db.execute("UPDATE commands SET source = 'edited' WHERE seq = 33")
    db.commit()
    db.close()
    s = shipper(path, house_proc.url, "t1", house.add_table("t1"), house_proc)
    s.start()
    try:
        assert until(s, "refused")
        want = f"seq {seq} ({cid}) does not match its hash: the entry was edited"
        assert want in s.status["error"] and not s.status["ok"]  # the table's side
        assert want in house.tables()[0]["refusal"]  # the house's side
        assert house.tables()[0]["seq"] == seq - 1
    finally:
        s.stop()
    # And the table's own check names the same entry.
    assert main(["journal", "verify", "--journal", str(path)]) == 1


def test_a_lost_table_is_written_back_from_the_house_and_goes_on(house, house_proc, tmp_path,
                                                                   capsys):
    token = house.add_table("t1")
    lost = tmp_path / "lost.sqlite3"
    pt = PlayingTable(lost, seed=3, count=150)
    pt.play(120)
    s = shipper(lost, house_proc.url, "t1", token, house_proc)
    s.start()
    assert s.wait_for(120, timeout=60)
    s.stop()
    original = list(pt.table.journal.chained())
    pt.table.journal.close()

    new = tmp_path / "rebuilt" / "journal.sqlite3"
    args = ["journal", "restore", "--from-house", house_proc.url, "--table", "t1", "--token",
            token, "--ca", str(house_proc.ca), "--journal", str(new)]
    assert main(args) == 0
    assert "120 commands written back from the house; journal verify ok" in \
        capsys.readouterr().out
    assert main(["journal", "verify", "--journal", str(new)]) == 0
    with Journal(new, readonly=True) as journal:
        assert list(journal.chained()) == original
    # A second restore over it is refused and changes nothing.
    assert main(args) == 1
    assert "already holds 120 commands" in capsys.readouterr().err
    # With a wrong token: refused, said, no journal written.
    with pytest.raises(HouseRefused, match="not one the house gave out"):
        HouseClient(house_proc.url, "t1", "wrong", str(house_proc.ca)).head()

    # The rebuilt table goes on from where it stopped, and the house takes what follows.
    again = PlayingTable(new, seed=3, count=150)
    again.next = 120
    again.play(30)
    s = shipper(new, house_proc.url, "t1", token, house_proc)
    s.start()
    try:
        assert s.wait_for(150, timeout=60), s.status
    finally:
        s.stop()
        again.table.journal.close()
    assert held(house, "t1") == (150, 150)


def test_the_running_table_ships_when_pointed_at_the_house(house, house_proc, tmp_path):
    from app import Feltbank
    from controller.config import load_config
    from controller.games.base import Command

    token = house.add_table("t1")
    config_file = tmp_path / "feltbank.toml"
    config_file.write_text(
        f'[table]\nmode = "hazard"\n[journal]\npath = "{tmp_path / "j.sqlite3"}"\n'
        '[camera]\nsource = "none"\n[printer]\nconnection = "none"\n'
        f'[house]\nurl = "{house_proc.url}"\ntable = "t1"\ntoken = "{token}"\n'
        f'ca = "{house_proc.ca}"\n')
    with Feltbank(load_config(config_file), camera=False) as root:
        root.table.submit(Command("join", {"player": "Ann"}, "j1"))
        seq = root.table.submit(Command("buy-in", {"player": "Ann", "amount": 30}, "b1")).seq
        assert root.shipper.wait_for(seq, timeout=30)
        health = root.health()["house"]
        assert health["ok"] and health["house_seq"] == seq
        assert health["house"] == f"{house_proc.url}/api/tables/t1"
        head = root.table.journal.head()
    # Stopped with the rest of the running table.
    assert root.shipper._thread is None
    [row] = house.tables()
    assert (row["seq"], row["players"]) == (seq, {"Ann": 30})
    assert row["head"] == head[1][:12]


def test_a_bad_house_setting_is_refused_with_what_is_accepted(tmp_path):
    from controller.config import load_config
    from controller.errors import ConfigError

    config_file = tmp_path / "feltbank.toml"
    config_file.write_text('[house]\nurl = "house.local:8443"\n')
    with pytest.raises(ConfigError, match="house.url.*an https:// URL"):
        load_config(config_file)
