"""Receipt layouts drawn with python-escpos, compared byte for byte with golden receipts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from escpos.printer import Dummy

from hardware.errors import PrinterError
from hardware.printer import PrinterConfig, ReceiptPrinter
from hardware.receipts import COLUMNS, TEMPLATES, draw, kinds, render

GOLDEN = Path(__file__).with_name("golden")
#: FELTBANK_REGOLD=1 rewrites the golden files after a deliberate layout change.
REGOLD = os.environ.get("FELTBANK_REGOLD") == "1"

SAMPLES = {
    "bet-slip": {"table": "Fortune Smiles", "slip": "S42-1", "player": "Sanzo",
                 "bet": "standard", "stake": 2, "pays": "2:1", "time": "2026-11-21 21:04:05"},
    "payout-slip": {"table": "Fortune Smiles", "slip": "S57-3", "player": "Sanzo",
                    "bet": "standard", "stake": 2, "result": "win", "paid": 10,
                    "time": "2026-11-21 21:06:00"},
    "statement": {"table": "Fortune Smiles", "player": "Ujikeme", "buy_in": 20,
                  "cashed_out": 0, "staked": 5, "won": 3, "lost": 2, "net": 1, "balance": 21,
                  "time": "2026-11-21 23:00:00"},
    "house-report": {"table": "Fortune Smiles", "mode": "fortunes-winds", "commands": 31,
                     "rounds": 3, "players": [{"player": "Ginawa", "net": 0},
                                              {"player": "Sanzo", "net": 8},
                                              {"player": "Ujikeme", "net": 1}],
                     "house": -9, "time": "2026-11-21 23:59:00"},
    "test": {"table": "Fortune Smiles", "paper_mm": 80, "time": "2026-11-21 18:00:00"},
}


@pytest.mark.parametrize("paper", [58, 80])
@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_golden_receipts(kind, paper):
    data = render(kind, SAMPLES[kind], paper_mm=paper)
    golden = GOLDEN / f"{kind}-{paper}mm.bin"
    if REGOLD or not golden.exists():
        golden.write_bytes(data)
    assert data == golden.read_bytes()


def test_the_bet_slip_shows_the_lord_moon_money():
    text = render("bet-slip", {**SAMPLES["bet-slip"], "lord_moon": 2}, mode="fortunes-winds")
    assert b"For Lord Moon" in text and b"For Lord Moon" not in render(
        "bet-slip", SAMPLES["bet-slip"], mode="fortunes-winds")
    # Lord Moon is Fortunes and Winds' own: the shared layout does not know it.
    assert b"For Lord Moon" not in render("bet-slip", {**SAMPLES["bet-slip"], "lord_moon": 2})


def test_every_layout_has_a_sample():
    assert sorted(SAMPLES) == kinds()


def visible_lines(data: bytes) -> list[str]:
    """The printable text of ESC/POS bytes, line by line (escape sequences dropped)."""
    import re

    text = re.sub(rb"\x1b[Ea!td]\S|\x1d\(k.{2}[\s\S]*?(?=\x1b|\x1d|\n)|\x1dV.", b"", data)
    return [ln.decode("cp437", "replace") for ln in text.split(b"\n")]


def test_the_layout_fits_the_paper():
    for paper, width in COLUMNS.items():
        for kind, sample in SAMPLES.items():
            dummy = Dummy()
            draw(dummy, kind, sample, paper_mm=paper)
            text = dummy.output.decode("cp437", "replace")
            assert f"{'Player' if 'player' in sample else 'Time'}" in text
        rule = "-" * width
        assert rule in render("bet-slip", SAMPLES["bet-slip"], paper_mm=paper).decode("cp437")


def test_a_reprint_says_copy():
    original = render("bet-slip", SAMPLES["bet-slip"])
    copy = render("bet-slip", SAMPLES["bet-slip"], copy=True)
    assert b"COPY" in copy and b"COPY" not in original
    assert copy.endswith(original[original.index(b"Fortune"):])


def test_a_missing_field_or_layout_is_an_error():
    with pytest.raises(Exception, match="player"):
        render("bet-slip", {k: v for k, v in SAMPLES["bet-slip"].items() if k != "player"})
    with pytest.raises(ValueError, match="no receipt layout 'menu'"):
        render("menu", {})


def test_a_mode_may_bring_its_own_layout(tmp_path, monkeypatch):
    from hardware import receipts

    (tmp_path / "hazard").mkdir()
    (tmp_path / "bet-slip.txt").write_text("shared {{ player }}\n")
    (tmp_path / "hazard" / "bet-slip.txt").write_text("hazard {{ player }}\n")
    monkeypatch.setattr(receipts, "TEMPLATES", tmp_path)
    monkeypatch.setattr(receipts._env, "loader", __import__("jinja2").FileSystemLoader(
        str(tmp_path)))
    assert b"hazard Ann" in render("bet-slip", {"player": "Ann"}, mode="hazard")
    assert b"shared Ann" in render("bet-slip", {"player": "Ann"}, mode="fortunes-winds")


def test_file_printer_writes_one_file_per_receipt(tmp_path):
    printer = ReceiptPrinter(PrinterConfig(connection="file", folder=str(tmp_path / "out")))
    data = printer.render("test", SAMPLES["test"])
    printer.send(data, "receipt-000001-test")
    assert (tmp_path / "out" / "receipt-000001-test.bin").read_bytes() == data
    assert printer.paper() == "ok"


def test_file_printer_that_cannot_write(tmp_path):
    blocker = tmp_path / "out"
    blocker.write_text("a file where the folder should be")
    printer = ReceiptPrinter(PrinterConfig(connection="file", folder=str(blocker)))
    with pytest.raises(PrinterError, match="cannot write r1"):
        printer.send(b"x", "r1")


@pytest.mark.parametrize("config, match", [
    ({"connection": "usb"}, "needs usb_vendor"),
    ({"connection": "usb", "usb_vendor": 1, "usb_product": 2, "usb_timeout_ms": 0},
     "usb_timeout_ms must be above 0"),
    ({"connection": "network"}, "needs host"),
    ({"connection": "parallel"}, "one of file, usb, serial, network"),
    ({"connection": "file", "folder": "x", "paper_mm": 70}, "58 or 80"),
])
def test_bad_printer_config(config, match):
    with pytest.raises(ValueError, match=match):
        PrinterConfig(**config)


class Answering(Dummy):
    """escpos's Dummy printer that answers status queries like a real one (or stays silent)."""

    def __init__(self, answer: bytes):
        super().__init__()
        self.answer = answer

    def _read(self) -> bytes:
        return self.answer


@pytest.mark.parametrize("answer, paper", [
    (b"\x12", "ok"), (b"\x1e", "low"), (b"\x72", "out"), (b"", "unknown")])
def test_paper_status_is_believed_only_from_a_real_answer(answer, paper):
    printer = ReceiptPrinter(PrinterConfig(connection="network", host="printer"),
                             device=Answering(answer))
    assert printer.paper() == paper


# python-escpos's Network.open() drops the refused socket without closing it.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_network_printer_that_is_not_there():
    # A closed port on this machine: the connection is refused at once.
    printer = ReceiptPrinter(PrinterConfig(connection="network", host="127.0.0.1", port=9,
                                           timeout_s=1))
    with pytest.raises(PrinterError, match="did not take r1"):
        printer.send(b"x", "r1")
    assert printer.paper() == "unknown"


# -- the shared mode harness: each mode's own layouts ----------------------------------------


def test_each_modes_layouts_are_the_ones_its_record_lists():
    from controller.modes import modes

    folders = {p.name for p in TEMPLATES.iterdir() if p.is_dir()}
    assert folders <= set(modes()), f"layouts of no mode: {folders - set(modes())}"
    for name, mode in modes().items():
        assert set(mode.receipts) <= set(kinds()), f"{name} lays out an unknown receipt kind"
        own = {p.stem for p in (TEMPLATES / name).glob("*.txt")} if name in folders else set()
        assert own == set(mode.receipts), f"{name}: templates/{name}/ has {own}, the record " \
                                          f"lists {set(mode.receipts)}"


@pytest.mark.parametrize("paper", [58, 80])
def test_each_modes_layouts_draw_the_shared_sample(paper):
    from controller.modes import modes

    for name, mode in modes().items():
        for kind in mode.receipts:
            text = render(kind, SAMPLES[kind], paper_mm=paper, mode=name)
            assert SAMPLES[kind]["table"].encode() in text, (name, kind)
