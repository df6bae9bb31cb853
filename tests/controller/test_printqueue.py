"""The print queue in the journal and the spooler: faults wait, nothing lost, nothing twice."""

from __future__ import annotations

import re
import sqlite3

import pytest
from escpos.printer import Dummy

from controller.games.base import Command
from controller.games.play import seated_table
from controller.journal import Journal
from controller.printqueue import PrintQueue, Spooler, house_report_data, statement_data
from controller.table import Table
from hardware.printer import PrinterConfig, ReceiptPrinter
from tests.waiting import wait_for


class Flaky(Dummy):
    """escpos's Dummy printer that can be offline, time out, fail mid-receipt or lack paper."""

    def __init__(self):
        super().__init__()
        self.fault: str | None = None
        self.paper = b"\x12"  # the answer of a printer with paper

    def _raw(self, msg: bytes) -> None:
        if self.fault == "offline":
            raise OSError("[Errno 19] No such device")
        if self.fault == "timeout":
            raise TimeoutError("USB write timed out")
        if self.fault == "mid-receipt":
            super()._raw(msg[: len(msg) // 2])
            raise OSError("[Errno 5] Input/output error")
        super()._raw(msg)

    def _read(self) -> bytes:
        return self.paper


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "journal.sqlite3"
    table = Table(Journal(path))
    queue = PrintQueue(path, "Fortune Smiles", mode_of=lambda: "hazard")
    queue.attach(table)
    for cmd in seated_table("hazard", players=2, coins=100):
        table.submit(cmd)
    table.queue = queue
    return table


def bet(table, player="P1", amount=5, bet="caster-wins"):
    return table.submit(Command("bet", {"player": player, "bet": bet, "amount": amount}))


def spooler_for(table, device):
    printer = ReceiptPrinter(PrinterConfig(connection="network", host="printer"), device=device)
    statuses = []
    return Spooler(table.queue, printer, on_status=statuses.append), statuses


def slip_ids(output: bytes) -> list[str]:
    """Slip ids of the complete receipts on the paper, in order (a receipt ends with a cut)."""
    complete = [part for part in output.split(b"\x1dV\x00") if b"Time" in part]
    return [re.search(rb"Slip *(S\d+-\d+)", part).group(1).decode() for part in complete]


def test_a_bet_queues_its_slip_in_the_same_transaction(table):
    table.submit(Command("call-main", {"main": 7}))
    outcome = bet(table)
    waiting = table.queue.waiting()
    assert [(r.seq, r.kind, r.data["slip"]) for r in waiting] == [
        (outcome.seq, "bet-slip", f"S{outcome.seq}-1")]
    assert waiting[0].data["player"] == "P1" and waiting[0].data["stake"] == 5
    with pytest.raises(Exception, match="5005"):
        bet(table, amount=5000)
    assert len(table.queue.waiting()) == 1


def test_payouts_print_after_the_bet_slips_in_order(table):
    table.submit(Command("call-main", {"main": 7}))
    bet(table, "P1")
    bet(table, "P2", bet="caster-loses", amount=10)
    table.submit(Command("throw", {"dice": [3, 4]}))  # nick: caster-wins pays
    spooler, statuses = spooler_for(table, device := Flaky())
    while spooler.print_next():
        pass
    kinds = [r.kind for r in table.queue.list()]
    assert kinds == ["bet-slip", "bet-slip", "payout-slip", "round-slip"]
    assert len(slip_ids(device.output)) == 4
    assert table.queue.waiting() == [] and spooler.status.ok
    # The end slip: the round's result in the mode's words, who cast, the main.
    assert b"the caster wins" in device.output and re.search(rb"Held by +P1", device.output)
    assert re.search(rb"main +7", device.output)


def test_the_end_slips_follow_the_setting_and_the_mode(tmp_path):
    from controller.printqueue import slips_for

    path = tmp_path / "journal.sqlite3"
    table = Table(Journal(path))
    queue = PrintQueue(path, "Fortune Smiles", slips=["bet", "payout"], mode_of=lambda: "hazard")
    queue.attach(table)
    for cmd in seated_table("hazard", players=2, coins=100):
        table.submit(cmd)
    table.submit(Command("call-main", {"main": 7}))
    outcome = table.submit(Command("throw", {"dice": [3, 4]}))
    assert queue.list() == []  # no bets, and the table prints no end slips
    assert [k for k, _ in slips_for(outcome.events, outcome.seq, ["round"], "hazard")] == [
        "round-slip"]
    assert slips_for(outcome.events, outcome.seq, ["round"], "") == []  # no mode: none


@pytest.mark.parametrize("fault", ["offline", "timeout", "mid-receipt"])
def test_a_fault_holds_the_queue_and_every_receipt_prints_once_after(table, fault):
    device = Flaky()
    spooler, statuses = spooler_for(table, device)
    table.submit(Command("call-main", {"main": 7}))
    bet(table, "P1", amount=1)
    assert spooler.print_next()
    device.fault = fault
    bet(table, "P1", amount=2)
    bet(table, "P2", amount=3)
    assert not spooler.print_next()
    assert not spooler.status.ok and spooler.status.waiting == 2
    assert statuses[-1].error
    # The game goes on while the printer is away.
    table.submit(Command("throw", {"dice": [6, 1]}))
    assert not spooler.print_next()
    device.fault = None
    while spooler.print_next():
        pass
    assert spooler.status.ok and spooler.status.waiting == 0
    expected = [r.data["slip"] for r in table.queue.list()]
    assert slip_ids(device.output) == expected  # each once, in queue order
    assert table.queue.list(where="attempts > 0")[0].attempts == 2


def test_paper_out_is_believed_only_when_the_printer_answers(table):
    device = Flaky()
    spooler, _ = spooler_for(table, device)
    table.submit(Command("call-main", {"main": 7}))
    bet(table)
    device.paper = b"\x72"  # the printer answers: no paper
    assert not spooler.print_next()
    assert spooler.status.error == "out of paper" and spooler.status.paper == "out"
    device.paper = b""  # no answer at all: not believed; it prints
    assert spooler.print_next()
    assert len(slip_ids(device.output)) == 1


def test_a_receipt_caught_printing_by_a_crash_prints_again_as_a_copy(table):
    table.submit(Command("call-main", {"main": 7}))
    bet(table)
    db = sqlite3.connect(table.queue.path)
    db.execute("UPDATE receipts SET state = 'printing'")
    db.commit()
    db.close()
    device = Flaky()
    spooler, _ = spooler_for(table, device)
    spooler.recover()
    assert spooler.print_next()
    assert b"*** COPY ***" in device.output


def test_reprint_says_copy_and_statements_queue_on_their_own(table):
    table.submit(Command("call-main", {"main": 7}))
    bet(table)
    first = table.queue.list()[0]
    copy_id = table.queue.reprint(first.id)
    table.queue.enqueue("statement", statement_data(table, "P1"))
    table.queue.enqueue("house-report", house_report_data(table))
    device = Flaky()
    spooler, _ = spooler_for(table, device)
    while spooler.print_next():
        pass
    assert table.queue.get(copy_id).copy
    assert device.output.count(b"*** COPY ***") == 1
    assert b"STATEMENT" in device.output and b"SESSION REPORT" in device.output
    assert re.search(rb"Balance +95\n", device.output)
    with pytest.raises(KeyError):
        table.queue.reprint(999)
    with pytest.raises(KeyError, match="Nobody has no statement"):
        statement_data(table, "Nobody")


def test_the_spooler_thread_wakes_on_a_new_receipt_and_retries_after_a_fault(table):
    device = Flaky()
    printer = ReceiptPrinter(PrinterConfig(connection="network", host="printer"), device=device)
    spooler = Spooler(table.queue, printer, retry_seconds=(0.05, 0.2))
    spooler.start()
    try:
        table.submit(Command("call-main", {"main": 7}))
        device.fault = "offline"
        bet(table)
        assert wait_for(lambda: not spooler.status.ok)
        device.fault = None
        bet(table, "P2")
        assert wait_for(lambda: table.queue.waiting() == [])
        assert len(slip_ids(device.output)) == 2
    finally:
        spooler.stop()
