"""`recognize --kind pips|numerals|d20|cards`, `bench vision --kind ...`, `calibrate --kind
numerals|cards` and `print deck`: the readers besides the labelled dice (the numeral dice's
colours default to equipment/namaste.json).

Reached from the `--kind` switch of `feltbank recognize` and `feltbank bench vision`
(controller/cli/vision.py); the labelled dice (`--kind dice`, the default) stay there.
"""

from __future__ import annotations

import argparse
import json
import sys

from vision.errors import VisionError

#: kinds read without calibration, besides the profile-based labelled dice ("dice")
KINDS = ("pips", "numerals", "d20", "cards")


def _fail(msg: str) -> int:
    """The vision commands' one error printer (imported late: vision.py imports this module)."""
    from controller.cli.vision import _fail as fail

    return fail(msg)


def cmd_recognize_kind(args: argparse.Namespace) -> int:
    """Read each image with the reader of args.kind; one JSON object per image with --json."""
    from vision.d20 import read_d20
    from vision.numerals import read_numerals
    from vision.pips import read_pips

    if args.table:
        return _fail(f"--table places labelled dice only; --kind {args.kind} reads image "
                     "positions (leave out --table)")
    readers = {"pips": read_pips, "numerals": read_numerals, "d20": read_d20}
    if args.kind == "numerals" and str(args.profile).endswith(".json"):
        # a numeral dice profile (calibrate --kind numerals): the table's own die colours
        from vision.numerals import load_numeral_profile

        try:
            prof = load_numeral_profile(args.profile)
        except VisionError as e:
            return _fail(str(e))
        readers["numerals"] = lambda img: read_numerals(img, prof)
    if args.kind == "cards":
        try:
            readers["cards"] = _card_reader(args.profile).read
        except VisionError as e:
            return _fail(str(e))

    def line(o) -> str:
        what = o.label or f"(unsure: {o.why})"
        if getattr(o, "colour", None):
            what = f"{what} {o.colour}"
        return (f"{args.kind} {what:<18} {o.confidence:5.2f}  at ({o.center[0]:.0f}, "
                f"{o.center[1]:.0f})")

    from controller.cli.vision import read_each

    return read_each(args.images, readers[args.kind], args.json, line)


def cmd_calibrate_numerals(args: argparse.Namespace) -> int:
    """`calibrate --kind numerals --captures DIR --out FILE.json`: the set's die colours."""
    from pathlib import Path

    from vision.images import load_captures
    from vision.numerals import calibrate_numerals

    if args.rollback or not args.captures:
        return _fail("--kind numerals needs --captures DIR (one folder per die colour: "
                     "turquoise/, white/) and --out FILE.json; it keeps no versions to roll back")
    if not str(args.out).endswith(".json"):
        return _fail(f"--out {args.out}: a numeral dice profile is one file; give a name "
                     "ending in .json")
    try:
        captures, _ = load_captures(args.captures, None)
        profile, report = calibrate_numerals(captures)
    except VisionError as e:
        return _fail(str(e))
    Path(args.out).write_text(json.dumps(profile.to_json(), indent=1) + "\n")
    if args.json:
        print(json.dumps({"profile": str(args.out), **report, **profile.to_json()}))
        return 0
    print(f"numeral dice profile written: {args.out}")
    for colour, n in report["faces"].items():
        print(f"  {colour:<10} {n} faces, chromaticity (b, g, r) "
              f"{', '.join(f'{v:.3f}' for v in profile.colours[colour])}")
    if report["unread"]:
        print("captures with no face read (retake them): " + ", ".join(report["unread"]))
    return 0


def cmd_bench_kind(args: argparse.Namespace) -> int:
    """Run vision.bench_kinds on one core (a child process) and print its figures."""
    n = args.dice or (60 if args.quick else 1000)
    from controller.cli.vision import run_bench

    if getattr(args, "world", "generated") == "photo":  # the independent judge's world
        from vision.bench_photo import print_summary

        out = run_bench([sys.executable, "-m", "vision.bench_photo", "--kind", args.kind,
                         "--n", str(args.dice or (20 if args.quick else 200)),
                         "--seed", str(args.seed), "--json"])
        if isinstance(out, int):
            return out
        if args.json:
            print(json.dumps(out))
        else:
            print_summary(out)
        return 0
    split = getattr(args, "split", "both") or "both"
    cmd = [sys.executable, "-m", "vision.bench_kinds", "--kind", args.kind, "--dice", str(n),
           "--seed", str(args.seed), "--split", split]
    out = run_bench(cmd)
    if isinstance(out, int):
        return out
    if args.json:
        print(json.dumps(out))
        return 0
    for name, s in out.items():
        things = "cards" if args.kind == "cards" else "dice"
        print(f"== {args.kind}, {name}: {things} {s['dice']} in {s['frames']} frames "
              f"({s['hard_dice']} in hard frames)")
        print(f"accuracy          {s['accuracy']:.2%}  (hard frames {s['hard_accuracy']:.2%})")
        print(f"abstained         {s['abstention_rate']:.2%}  (not found {s['missed']})")
        print(f"confident errors  {s['confident_errors']}  ({s['confident_error_rate']:.2%})")
        print(f"latency per frame median {s['latency_ms_median']:.1f} ms, "
              f"p95 {s['latency_ms_p95']:.1f} ms (wall, one core); CPU median "
              f"{s['cpu_ms_median']:.1f} ms, p95 {s['cpu_ms_p95']:.1f} ms")
        for e in s["error_examples"]:
            print(f"  {e}")
    return 0


def _card_reader(profile: str | None):  # noqa: ANN202 (a vision.cards.CardReader)
    """The card reader of `--profile`: a folder `feltbank calibrate --kind cards` wrote, or
    (when the profile given is not a card model, as the dice profile by default is not) the
    printed Roche deck read from its own art."""
    from pathlib import Path

    from vision.cards import MODEL_FILE, CardModel, CardReader

    if profile and (Path(profile) / MODEL_FILE).is_file() or str(profile).endswith(".npz"):
        return CardReader(CardModel.load(Path(profile)))
    return CardReader()


def cmd_calibrate_cards(args: argparse.Namespace) -> int:
    """Learn a deck from DIR/<CARD>/*.png (one card a capture) and write it into --out."""
    from pathlib import Path

    from vision.cards import learn, load_captures

    if args.rollback or not args.captures:
        return _fail("calibrate --kind cards: --captures DIR is required (one folder per card, "
                     "named 2S .. AS or after the printed Roche deck's cards)")
    try:
        model = learn(load_captures(Path(args.captures)))
        path = model.save(Path(args.out))
    except VisionError as e:
        return _fail(str(e))
    rep = model.report
    if args.json:
        print(json.dumps({"model": str(path), **rep}))
        return 0
    print(f"card model written: {path} ({rep['deck']} deck: {rep['cards']} cards from "
          f"{rep['captures']} captures)")
    if rep["missing"]:
        print(f"not learned ({len(rep['missing'])}): {', '.join(rep['missing'])}")
    print("closest faces: " + ", ".join(f"{a}/{b} {s:.2f}" for a, b, s in rep["closest"][:3]))
    return 0


def cmd_print_deck(args: argparse.Namespace) -> int:
    """`feltbank print deck`: the printed Roche deck as a PDF at poker size, or --list."""
    from pathlib import Path

    from vision.deck_art import roche_deck

    if args.list:
        for card in roche_deck():
            print(f"{card.label}\t{card.name}")
        return 0
    if not args.out:
        return _fail("print deck: --out FILE.pdf is required (or --list for the card labels)")
    out = Path(args.out)
    if out.suffix.lower() != ".pdf":
        return _fail(f"--out {out}: expected a .pdf file name")
    if not out.parent.is_dir():
        return _fail(f"--out {out}: folder {out.parent} does not exist")
    n = write_deck_pdf(out)
    print(f"{out}: the printed Roche deck, {n} cards and a back, 63 x 88 mm")
    return 0


def write_deck_pdf(out, px_mm: float = 12.0) -> int:  # noqa: ANN001 (a Path)
    """The 54 cards and a page of backs on A4, nine a page at true size (300 dpi art), with
    cut lines; returns the number of faces."""
    import io

    import cv2
    from fpdf import FPDF

    from vision.deck_art import CARD_MM, render_back, render_roche, roche_deck

    cw, ch = CARD_MM
    pdf = FPDF(orientation="P", unit="mm", format="A4")
    pdf.set_auto_page_break(False)
    pdf.set_title("The printed Roche deck")
    x0, y0 = (210 - 3 * cw) / 2, (297 - 3 * ch) / 2
    faces = [c.label for c in roche_deck()]
    pages = [faces[i:i + 9] for i in range(0, len(faces), 9)] + [["back"] * 9]
    for page in pages:
        pdf.add_page()
        pdf.set_draw_color(150)
        pdf.set_line_width(0.1)
        for k, label in enumerate(page):
            art = render_back(px_mm) if label == "back" else render_roche(label, px_mm)
            ok, png = cv2.imencode(".png", art)
            x, y = x0 + (k % 3) * cw, y0 + (k // 3) * ch
            pdf.image(io.BytesIO(png.tobytes()), x=x, y=y, w=cw, h=ch)
            pdf.rect(x, y, cw, ch)
        pdf.set_font("helvetica", size=7)
        pdf.text(x0, y0 - 3, "The printed Roche deck: print at 100% (no fit-to-page), cut on "
                 "the grey lines; backs on the last page")
    pdf.output(str(out))
    return len(faces)
