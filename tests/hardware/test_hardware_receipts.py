"""Receipt layouts drawn with python-escpos, compared byte for byte with golden receipts."""

from __future__ import annotations

import gettext
import itertools
import os
from functools import cache
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from escpos.printer import Dummy

from app.devices import receipt_catalogs
from controller.games.play import random_play
from controller.modes import find_mode, modes
from controller.printqueue import slips_for, words_json
from hardware import receipts
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
    "round-slip": {"table": "Fortune Smiles", "slip": "S61-4", "game": "Hazard",
                   "result": "caster-wins", "words": "the caster wins", "holder": "Sanzo",
                   "details": {"main": 7, "chance": 10, "throws": [[3, 4]]},
                   "time": "2026-11-21 21:07:00"},
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
    (tmp_path / "hazard").mkdir()
    (tmp_path / "bet-slip.txt").write_text("shared {{ player }}\n")
    (tmp_path / "hazard" / "bet-slip.txt").write_text("hazard {{ player }}\n")
    monkeypatch.setattr(receipts, "TEMPLATES", tmp_path)
    receipts.environment.cache_clear()
    try:
        assert b"hazard Ann" in render("bet-slip", {"player": "Ann"}, mode="hazard")
        assert b"shared Ann" in render("bet-slip", {"player": "Ann"}, mode="fortunes-winds")
    finally:
        receipts.environment.cache_clear()


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
    ({"connection": "file", "folder": "x", "language": "de"}, "in en, fr, not 'de'"),
    ({"connection": "file", "folder": "x", "language": "fr"}, "no fr receipts catalog"),
    ({"connection": "file", "folder": "x", "language": "fr", "catalogs": "/nowhere"},
     "expected /nowhere/fr/LC_MESSAGES/receipts.mo"),
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
        for kind in set(mode.receipts) - {"round-slip"}:  # drawn from real play below
            text = render(kind, SAMPLES[kind], paper_mm=paper, mode=name)
            assert SAMPLES[kind]["table"].encode() in text, (name, kind)


# -- the end slip of every mode, from its own seeded play ----------------------------------------

STEPS = 2500


def each_mode():
    return list(modes())


@cache
def end_slips(name: str) -> dict[str, dict]:
    """One end slip for each way seeded play of mode `name` ends a round, by result, with the
    data the print queue gives it."""
    found: dict[str, dict] = {}
    for seq, step in enumerate(itertools.islice(random_play(name, seed=5), STEPS), start=1):
        for kind, data in slips_for(step.events or (), seq, ["round"], name):
            assert kind == "round-slip"
            found.setdefault(data["result"], {"table": "Fortune Smiles",
                                              "time": "2026-11-23 12:00:00", **data})
    return found


@pytest.mark.parametrize("name", each_mode())
def test_every_mode_prints_an_end_slip(name):
    mode = find_mode(name)
    slips = end_slips(name)
    assert slips, f"{STEPS} steps of {name} printed no end slip"
    assert set(slips) <= set(mode.result_words)
    if mode.slip_results is not None:
        assert set(slips) <= set(mode.slip_results)
    for result, data in slips.items():
        for paper, width in COLUMNS.items():
            lines = visible_lines(render("round-slip", data, paper_mm=paper, mode=name))
            text = "\n".join(lines)
            assert data["slip"] in text and data["game"] in text
            # Result words are wrapped, never cut at the paper's edge.
            assert " ".join(text.split()).count(" ".join(mode.result_words[result].split()))
            assert max(len(line) for line in lines if "\x1b" not in line) <= width


def plain(data: bytes) -> str:
    """The words of a receipt on one line (wrapping and the gaps of @pair lines dropped)."""
    return " ".join(" ".join(visible_lines(data)).split())


def test_the_end_slips_say_what_each_mode_ended_with():
    # Rochi: the winner, the suit's pot, the penalties.
    cut = end_slips("rochi")["cut-owner-wins"]
    text = plain(render("round-slip", cut, mode="rochi"))
    assert f"Winner {cut['details']['winner']}" in text
    assert f"Pot taken {cut['details']['pot']}" in text
    for row in cut["details"]["penalties"]:
        assert f"{row['player']} ({row['shields']} shields) {row['paid']}" in text
    # Namaste: one final score slip with every player's points, not one a turn.
    assert set(end_slips("namaste")) == {"game-over"}
    over = end_slips("namaste")["game-over"]
    text = plain(render("round-slip", over, mode="namaste"))
    assert "FINAL SCORES" in text
    for n, row in enumerate(over["details"]["standings"], start=1):
        assert f"{n}. {row['player']} {row['points']} points" in text
    # Risque: who has the Privilege (or the Narrator), each character's score and Mises.
    for result, ended in end_slips("risque").items():
        text = plain(render("round-slip", ended, mode="risque"))
        assert find_mode("risque").result_words[result] in text
        for character, score in ended["details"]["scores"].items():
            assert f"{character} {score} Mises {ended['details']['mises'][character]}" in text


# -- receipts in French ----------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
PO = Path(receipt_catalogs()) / "fr" / "LC_MESSAGES" / "receipts.po"


def layout_words() -> set[str]:
    """Every word the layouts and hardware/ mark for the receipts catalog."""
    words = set()
    for _f, _l, message, _c, _x in extract_from_dir(
            str(ROOT), [("hardware/**.py", "python"), ("hardware/templates/**.txt", "jinja2")],
            keywords={"_": None, "N_": None}, comment_tags=(),
            options_map={"hardware/templates/**.txt": {"extensions": "jinja2.ext.i18n"}}):
        words.add(message)
    return words


def test_every_receipt_word_has_french():
    with PO.open("rb") as f:
        catalog = read_po(f)
    words = layout_words()
    assert {"BET SLIP", "Stake", "FINAL SCORES", "*** COPY ***"} <= words  # found
    words |= {w for mode in modes().values() for w in mode.result_words.values()}
    words |= {w for mode in modes().values() for words in mode.bet_words.values()
              for w in bet_words_to_translate(words)}
    missing = sorted(w for w in words if not (catalog.get(w) and catalog.get(w).string))
    assert missing == [], f"{len(missing)} receipt words have no French in {PO}"
    with PO.with_suffix(".mo").open("rb") as f:
        compiled = {m.id: m.string for m in read_mo(f) if m.id}
    assert compiled == {m.id: m.string for m in catalog if m.id}, \
        "receipts.mo is not receipts.po compiled: pybabel compile -D receipts -d web/translations"


def bet_words_to_translate(words) -> list[str]:
    """A mode's bet in words: its template, and its values that are words (not names)."""
    data = words_json(words)
    return [data["template"], *(v for k, v in data["values"].items()
                                if isinstance(v, str) and k not in data["names"])]


class Missing(gettext.NullTranslations):
    """The catalog's fallback: notes each word the French catalog did not have."""

    def __init__(self):
        super().__init__()
        self.words: set[str] = set()

    def gettext(self, message):
        self.words.add(message)
        return message


@pytest.fixture
def french(monkeypatch):
    """Receipts drawn in French, noting every word printed without its French."""
    with (PO.with_suffix(".mo")).open("rb") as f:
        words = gettext.GNUTranslations(f)
    missing = Missing()
    words.add_fallback(missing)
    monkeypatch.setattr(receipts, "translations", lambda language="en", catalogs="": words)
    receipts.environment.cache_clear()
    yield missing
    receipts.environment.cache_clear()


@pytest.mark.parametrize("name", each_mode())
def test_every_end_slip_prints_in_french(name, french):
    for data in end_slips(name).values():
        text = plain(render("round-slip", data, mode=name, language="fr"))
        assert "Ticket" in text and "Heure" in text
    assert french.words == set(), f"{name}'s end slips print these words in English"


def test_every_layout_prints_in_french(french):
    for name, mode in {"": None, **modes()}.items():
        for kind, sample in SAMPLES.items():
            if mode is not None and kind not in mode.receipts or kind == "round-slip" and name:
                continue
            for copy in (False, True):
                render(kind, {**sample, "lord_moon": 2, "multiplier": 3, "corrections": 1,
                              "overrides": OVERRIDES, "chain": "ab12"},
                       mode=name or None, language="fr", copy=copy)
    assert french.words == set()


#: The banker's overrides of the camera, as house_report_data gives them.
OVERRIDES = [{"seq": 15, "die": 2, "read": "WATER", "banker": "EAST", "who": "boss"}]


def test_the_house_report_lists_each_override_of_the_camera():
    """Issue 13: what the camera read, what the banker changed and who, on the house report."""
    data = {**SAMPLES["house-report"], "corrections": 1, "overrides": OVERRIDES}
    text = plain(render("house-report", data))
    assert "Dice corrected by banker 1" in text and "#15 die 2: WATER -> EAST boss" in text
    assert "#15 dé 2: WATER -> EAST boss" in plain(render("house-report", data, language="fr",
                                                          catalogs=receipt_catalogs()))


def test_a_french_printer_prints_french():
    printer = ReceiptPrinter(PrinterConfig(connection="network", host="printer", language="fr",
                                           catalogs=receipt_catalogs()), device=Dummy())
    text = plain(printer.render("payout-slip", SAMPLES["payout-slip"], copy=True))
    assert "*** COPIE *** Fortune Smiles PAIEMENT" in text
    assert "Joueur Sanzo" in text and "Résultat gagné" in text and "Payé 10" in text
    english = plain(render("payout-slip", SAMPLES["payout-slip"]))
    assert "PAYOUT" in english and "Result won" in english and "PAIEMENT" not in english


# -- the bets in words ---------------------------------------------------------------------------


@cache
def bet_slips(name: str) -> list[tuple[str, dict]]:
    """The bet and payout slips of seeded play of mode `name`, with the print queue's data."""
    out = []
    for seq, step in enumerate(itertools.islice(random_play(name, seed=5), 600), start=1):
        out += [(kind, {"table": "Fortune Smiles", "time": "2026-11-26 12:00:00", **data})
                for kind, data in slips_for(step.events or (), seq, ["bet", "payout"], name)]
    return out


WORDED = [name for name, mode in modes().items() if mode.bet_words]


def test_the_modes_with_bets_in_words():
    assert {"fortunes-winds", "hazard", "roche", "grand-roche", "house-rugen", "street-rugen",
            "capital-rugen"} <= set(WORDED)


@pytest.mark.parametrize("name", WORDED)
def test_every_slip_says_the_bet_in_the_modes_words(name):
    mode = find_mode(name)
    slips = bet_slips(name)
    if name in ("rochi", "captains-rochi"):  # words for their odds report's rows; no bets
        assert slips == []
        return
    assert {kind for kind, _ in slips} == {"bet-slip", "payout-slip"}
    for kind, data in slips:
        words = mode.words_of_bet(data["bet"])
        assert words is not None, f"{name}: {data['bet']} has no words"
        template, values = (words, {}) if isinstance(words, str) else words
        text = plain(render(kind, data, mode=name))
        said = template % values
        assert f"Bet {said}" in text, text
        if not said.startswith(data["bet"]):  # "standard" says "standard bet"
            assert f"Bet {data['bet']}" not in text


@pytest.mark.parametrize("name", WORDED)
def test_every_slip_says_the_bet_in_french(name, french):
    for kind, data in bet_slips(name):
        render(kind, data, mode=name, language="fr")
    assert french.words == set(), f"{name}'s bets print these words in English"


def test_a_roche_slip_in_french():
    grand = find_mode("grand-roche")
    bet = dict(SAMPLES["bet-slip"], bet="cut:6", bet_words=words_json(grand.words_of_bet("cut:6")))
    paid = dict(SAMPLES["payout-slip"], bet="single.kin-6-day-03",
                bet_words=words_json(grand.words_of_bet("single.kin-6-day-03")))
    printer = ReceiptPrinter(PrinterConfig(connection="network", host="printer", language="fr",
                                           catalogs=receipt_catalogs()), device=Dummy())
    assert "Mise Kin (6s) coupe" in plain(printer.render("bet-slip", bet))
    assert "Mise pari sur une carte : KIN-6-DAY-03" in plain(printer.render("payout-slip", paid))
    assert "Bet Kin (6s) to cut" in plain(render("bet-slip", bet))
    assert "Bet Single Card bet: KIN-6-DAY-03" in plain(render("payout-slip", paid))


#: The suits of the Roche deck in words, in English and in French.
SUIT_WORDS = {"mages": ("Mages", "Mages"), "realm": ("Realm", "Royaume"),
              "world": ("World", "Monde"), "valor": ("Valor", "Vaillance"),
              "kin": ("Kin", "Parentèle"), "commons": ("Commons", "Communs")}


@cache
def every_end_slip(name: str) -> list[dict]:
    """Every end slip of STEPS steps of seeded play of mode `name`, in order."""
    return [{"table": "Fortune Smiles", "time": "2026-11-26 12:00:00", **data}
            for seq, step in enumerate(itertools.islice(random_play(name, seed=5), STEPS), 1)
            for _, data in slips_for(step.events or (), seq, ["round"], name)]


@pytest.mark.parametrize("name", ["rochi", "captains-rochi"])
def test_the_rochi_end_slips_name_the_suit_and_every_coin_paid_from_the_pots(name):
    """Issue 16: the card games settle with no bet, from pots and penalties. Their end slips
    print the suit in words (not its key), what the winner took in all, and the pots divided
    (Rochi's Last Hand, Captain's Rochi's stop)."""
    slips = every_end_slip(name)
    cuts = [d for d in slips if d["details"].get("suit")]
    assert {d["details"]["suit"] for d in cuts} == set(SUIT_WORDS)
    for data in cuts:
        text = plain(render("round-slip", data, mode=name))
        assert f"Suit {SUIT_WORDS[data['details']['suit']][0]}" in text, text
        assert f"Suit {data['details']['suit']} " not in text
        if name == "rochi":
            won = data["details"]["pot"] + sum(r["paid"] for r in data["details"]["penalties"])
            assert f"Won {won}" in text
    divided = [d for d in slips if d["details"].get("shares")]
    assert divided, f"{STEPS} steps of {name} divided no pots"
    for data in divided:
        text = plain(render("round-slip", data, mode=name))
        assert " ".join(f"{p} {n}" for p, n in data["details"]["shares"].items()) in text


@pytest.mark.parametrize("name", ["rochi", "captains-rochi"])
def test_the_rochi_end_slips_name_the_suit_in_french(name, french):
    for data in every_end_slip(name):
        text = plain(render("round-slip", data, mode=name, language="fr"))
        if data["details"].get("suit"):
            assert f"Couleur {SUIT_WORDS[data['details']['suit']][1]}" in text
    assert french.words == set()
