"""`feltbank calibrate`, `recognize`, `print labels|markers|MODE'S OWN` and `bench vision`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from controller.cli.common import add_config_option, config_of, default_mode
from controller.cli.vision_kinds import KINDS, cmd_bench_kind, cmd_recognize_kind
from controller.modes import printables, resolve_ref
from vision.errors import VisionError

ARTWORK = Path(__file__).resolve().parents[2] / "vision" / "artwork"
FONT_FILE = ARTWORK / "NotoSansCJKjp-Bold-feltbank.otf"
MM_PER_PT = 25.4 / 72
ABSTAIN_WARN = 0.25  # held-out abstentions beyond this share: calibrate warns


def default_die_set() -> str:
    """The dice of the mode a table opens with by default (table.mode's default)."""
    from controller.modes import find_mode

    return find_mode(default_mode()).equipment


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the vision subcommands to the top-level parser."""
    from app.camera import CALIBRATION
    from vision.labels import DIE_SETS

    die_set = default_die_set()
    p = subparsers.add_parser(
        "calibrate", help="learn a profile from labelled captures: dice, numeral dice' colours "
        "or a deck of cards",
        description="Learn a recognition profile from DIR/<LABEL>/*.png captures (one die, "
        "that face up), report held-out accuracy, and write it as a new profile version.")
    p.add_argument("--captures", metavar="DIR", help="one sub-folder per label (+ _empty/)")
    p.add_argument("--out", metavar="PROFILE", required=True,
                   help="profile folder (a store of versions v001/, v002/…)")
    p.add_argument("--activate", action="store_true", help="make the new version active")
    p.add_argument("--rollback", action="store_true",
                   help="re-activate the previously active version of --out (no captures)")
    p.add_argument("--die-set", default=die_set,
                   help=f"die set name (default {die_set}); a name feltbank does not know "
                        "takes the folder names as labels (tables that print their own labels)")
    p.add_argument("--camera-controls", metavar="JSON",
                   help='the camera\'s locked controls to keep with the profile, e.g. '
                        '\'{"ExposureTime": 12000, "AnalogueGain": 1.5, '
                        '"ColourGains": [1.9, 1.6]}\'')
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--kind", choices=["dice", "numerals", "cards"], default="dice",
                   help="what the captures show: labelled dice (default), numerals (the "
                        "Namaste dice's colours from DIR/<colour>/ into the file --out, a JSON "
                        "profile) or cards (one folder per card: 2S .. AS, or the printed Roche "
                        "deck's labels)")
    p.set_defaults(func=cmd_calibrate)

    p = subparsers.add_parser("recognize", help="read the dice or cards in image files")
    p.add_argument("--profile", metavar="PROFILE", default=str(CALIBRATION / die_set),
                   help=f"profile folder or store (default: the shipped calibration/{die_set})")
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.add_argument("--kind", choices=["dice", *KINDS], default="dice",
                   help="what to read: labelled dice with a profile (default), pip dice, numeral "
                        "dice, the d20 or cards")
    p.add_argument("--die-set", help="refuse a profile made for another die set")
    p.add_argument("--json", action="store_true", help="one JSON object per image")
    p.add_argument("--table", action="store_true",
                   help="place the dice on the table as `feltbank run` does: camera.corners or "
                        "the corner markers in each image, camera.felt_mm and the zones of the "
                        "configuration")
    add_config_option(p)
    p.set_defaults(func=cmd_recognize)

    p = subparsers.add_parser("print", help="printables at true size (PDF)")
    own = printables()  # the modes' own (Mode.printables), e.g. a score sheet
    p.add_argument("what", choices=["labels", "markers", "deck", *own],
                   help="labels for the dice, the corner markers, the printed Roche deck, or "
                        "a mode's own: " + ", ".join(own))
    p.add_argument("--out", metavar="FILE.pdf")
    p.add_argument("--list", action="store_true",
                   help="deck: print the printed Roche deck's card labels (no PDF)")
    p.add_argument("--die-mm", type=float, default=16.0, help="die edge in mm (labels)")
    p.add_argument("--die-set", default=die_set, choices=sorted(DIE_SETS),
                   help=f"whose dice the labels are for (default {die_set})")
    p.add_argument("--marker-mm", type=float, default=36.0, help="marker side in mm (markers)")
    p.add_argument("--lang", default="en", help="language of a mode's printable: en or fr")
    p.add_argument("--pages", type=int, default=1, help="pages of a mode's printable")
    p.set_defaults(func=cmd_print)


def register_bench(bench_subparsers: argparse._SubParsersAction) -> None:
    """Add `bench vision` to the shared `bench` command group."""
    p = bench_subparsers.add_parser(
        "vision", help="dice recognition benchmark on generated scenes",
        description="Calibrate each generated table on its own 16 x 6 captures, read >= 1000 "
        "unseen dice per split and report the figures: the wide world's dev split, its "
        "held-out split (never looked at while tuning) and the hard tables of each (dim, "
        "noisy, tinted, off-centre lens).")
    p.add_argument("--quick", action="store_true", help="a small run (CI speed)")
    p.add_argument("--dice", type=int, default=None, help="how many dice a split (default 1000)")
    p.add_argument("--tables", type=int, default=None, help="tables a split (default 10)")
    p.add_argument("--seed", type=int, default=20261121)
    p.add_argument("--split", choices=["dev", "heldout", "both"], default="both")
    p.add_argument("--classic", action="store_true",
                   help="the first pass's four tables (one felt, dice about 50 px)")
    p.add_argument("--unseen-art", action="store_true",
                   help="with --classic: label art the recognizer was not developed on")
    p.add_argument("--json", action="store_true")
    p.add_argument("--kind", choices=["dice", *KINDS], default="dice",
                   help="what to read: labelled dice (default), pip dice, numeral dice, the d20 "
                        "or cards")
    p.add_argument("--world", choices=["generated", "photo"], default="generated",
                   help="photo: the independent judge's photo-like world (vision.scenes_photo)")
    p.set_defaults(func=cmd_bench_vision)


def _fail(msg: str) -> int:
    """Print an error for the user and return the failure exit code."""
    print(f"feltbank: error: {msg}", file=sys.stderr)
    return 1


class ProgressBar:
    """A one-line progress bar on a terminal stream: [#####.....]  45%  message.

    On a terminal the line is redrawn in place; on a pipe or file a line is written each
    time the whole percentage passes another tenth (so logs stay short).
    """

    WIDTH = 30

    def __init__(self, stream, quiet: bool = False) -> None:  # noqa: ANN001 (a text stream)
        self.stream, self.quiet = stream, quiet
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.shown = -1
        self.drawn = False

    def update(self, fraction: float, message: str) -> None:
        """Show the work `fraction` (0..1) done, doing `message`."""
        if self.quiet:
            return
        pct = int(round(100 * max(0.0, min(1.0, fraction))))
        if not self.tty and pct // 10 == self.shown // 10:
            return
        filled = int(self.WIDTH * pct / 100)
        line = f"[{'#' * filled}{'.' * (self.WIDTH - filled)}] {pct:3d}%  {message}"
        if self.tty:
            self.stream.write("\r" + line[:100].ljust(100))
            self.drawn = True
        else:
            self.stream.write(line + "\n")
        self.stream.flush()
        self.shown = pct

    def close(self) -> None:
        """End the bar's line (on a terminal)."""
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False


def cmd_calibrate(args: argparse.Namespace) -> int:
    """Run calibration (or roll back) and report."""
    if args.kind == "cards":
        from controller.cli.vision_kinds import cmd_calibrate_cards

        return cmd_calibrate_cards(args)
    if args.kind == "numerals":
        from controller.cli.vision_kinds import cmd_calibrate_numerals

        return cmd_calibrate_numerals(args)
    from vision import profile as profiles
    from vision.labels import DIE_SETS
    from vision.recognizer import calibrate_folder

    try:
        if args.rollback:
            name = profiles.rollback(args.out)
            print(f"active profile is now {Path(args.out) / name}")
            return 0
        if not args.captures:
            return _fail("--captures DIR is required (or --rollback)")
        controls = None
        if args.camera_controls:
            try:
                controls = json.loads(args.camera_controls)
            except ValueError as e:
                return _fail(f"--camera-controls: not JSON ({e}); expected an object such as "
                             '{"ExposureTime": 12000, "AnalogueGain": 1.5}')
            if not isinstance(controls, dict):
                return _fail("--camera-controls: expected a JSON object of control values")
        known = DIE_SETS.get(args.die_set)
        bar = ProgressBar(sys.stderr, quiet=args.json)
        try:
            profile, report = calibrate_folder(args.captures, args.die_set,
                                               known.labels if known else None, bar.update)
        finally:
            bar.close()
        profile.camera_controls = controls
        path = profiles.save_profile(profile, args.out, activate=args.activate)
    except VisionError as e:
        return _fail(str(e))
    rep = report.to_json()
    if args.json:
        print(json.dumps({"profile": str(path), "active": args.activate, **rep}))
        return 0
    print(f"profile written: {path}{' (active)' if args.activate else ''}")
    print(f"held-out accuracy {rep['accuracy']:.1%}, abstained {rep['abstained']:.1%}, "
          f"{rep['seconds']:.1f} s")
    if rep["abstained"] > ABSTAIN_WARN:
        print(f"warning: {rep['abstained']:.0%} of held-out captures were abstained on (told "
              "apart, but not surely): at play as many dice may wait for the banker; retake "
              "the captures named below")
    for lab, acc in rep["per_label"].items():
        print(f"  {lab:<12} {acc:6.1%}")
    if rep["confused"]:
        print("confused: " + ", ".join(f"{a} read as {b} ({n}x)" for a, b, n in rep["confused"]))
    print("closest faces: " + ", ".join(f"{a}/{b} {s:.2f}" for a, b, s in rep["closest"][:3]))
    if rep["flawed_captures"]:
        print("captures to look at (retake them if they are): " + "; ".join(
            f"{n} ({', '.join(r)})" for n, r in rep["flawed_captures"]))
    return 0


def cmd_recognize(args: argparse.Namespace) -> int:
    """Read each image and print what is on the felt."""
    from vision.profile import load_profile
    from vision.recognizer import Recognizer

    if args.kind != "dice":
        return cmd_recognize_kind(args)
    try:
        rec = Recognizer(load_profile(args.profile, die_set=args.die_set))
    except VisionError as e:
        return _fail(str(e))
    place = None
    if args.table:
        from app.camera import table_geometry
        from vision.geometry import TableGeometry

        config = config_of(args)
        felt_mm = tuple(config["camera.felt_mm"])
        zones = {name: [tuple(pt) for pt in config[f"zones.{name}"]] for name in ("rolling", "tray")}
        try:
            fixed = table_geometry(config, zones)
        except VisionError as e:
            return _fail(f"camera.corners: {e}")

        def place(img):
            return fixed or TableGeometry.from_markers(img, felt_mm, zones)

    def line(r) -> str:
        what = r.label or ("(obstruction)" if r.kind == "obstruction" else "(unsure)")
        flags = (" cocked" if r.cocked else "") + ("" if r.on_felt else " off-felt") + (
            f" {r.zone}" if r.zone else "")
        return f"{what:<14} {r.confidence:5.2f}  at ({r.center[0]:.0f}, {r.center[1]:.0f}){flags}"

    return read_each(args.images, lambda img: rec.read(img, place(img) if place else None),
                     args.json, line)


def read_each(images: list[str], read, as_json: bool, line) -> int:
    """`recognize`'s one loop, for every kind: read(frame) gives an image's objects; printed
    as one JSON object per image (`{"image", "objects"}`; an unreadable image gives
    `{"image", "error", "objects": []}` and exit status 1, the others are still read) or as
    the image's name and a line(object) per object."""
    from vision.images import read_image

    status = 0
    for image in images:
        try:
            objects = read(read_image(image))
        except VisionError as e:
            status = _fail(str(e))
            if as_json:
                print(json.dumps({"image": image, "error": str(e), "objects": []}))
            continue
        if as_json:
            print(json.dumps({"image": image, "objects": [o.to_json() for o in objects]}))
            continue
        print(f"{image}:")
        for o in objects:
            print(f"  {line(o)}")
    return status


def run_bench(cmd: list[str]) -> dict | int:
    """Run a benchmark child (`python -m ...`) on one core; the figures it prints last as
    JSON, or the exit status after saying why it failed."""
    import os
    import subprocess

    # one core for real: numpy's BLAS threads off, and the child pins itself to one CPU
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               MKL_NUM_THREADS="1")
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        return _fail(f"vision benchmark failed: {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def cmd_bench_vision(args: argparse.Namespace) -> int:
    """Run the vision benchmark on one core (a child process) and print its figures."""

    if args.kind != "dice":
        return cmd_bench_kind(args)
    if getattr(args, "world", "generated") == "photo":
        return _fail("--world photo reads pips, numerals, d20 and cards; the labelled dice "
                     "are not in the photo world yet (give --kind pips|numerals|d20|cards)")
    n = args.dice or (60 if args.quick else 1000)
    tables = args.tables or (1 if args.quick else (4 if args.classic else 10))
    per_label = 4 if args.quick else 6
    cmd = [sys.executable, "-m", "vision.bench", "--dice", str(n), "--tables", str(tables),
           "--per-label", str(per_label), "--seed", str(args.seed), "--split", args.split]
    if args.classic:
        cmd.append("--classic")
    if args.unseen_art:
        cmd.append("--unseen-art")
    out = run_bench(cmd)
    if isinstance(out, int):
        return out
    if args.json:
        print(json.dumps(out))
        return 0
    for split, s in out.items():
        print(f"== {split}: dice {s['dice']} in {s['frames']} frames on {len(s['tables'])} tables "
              f"({s['hard_dice']} on hard tables), label art {s['art']}")
        print(f"accuracy          {s['accuracy']:.2%}  (hard tables {s['hard_accuracy']:.2%})")
        print(f"abstained         {s['abstention_rate']:.2%}  (hard tables "
              f"{s['hard_abstention_rate']:.2%}; not found {s['missed']})")
        print(f"confident errors  {s['confident_errors']}  (hard tables "
              f"{s['hard_confident_errors']})")
        print(f"latency per frame median {s['latency_ms_median']:.1f} ms, "
              f"p95 {s['latency_ms_p95']:.1f} ms (wall, one core); CPU median "
              f"{s['cpu_ms_median']:.1f} ms, p95 {s['cpu_ms_p95']:.1f} ms")
        print(f"calibration       {s['calibration_s_median']:.2f} s median, "
              f"{s['calibration_s_max']:.2f} s max (16 labels x {per_label})")
        for e in s["error_examples"]:
            print(f"  {e}")
        for r in s["calibrations_refused"]:
            print(f"  calibration refused, {r}")
    return 0


# ---------------------------------------------------------------------------- printables


def _cut_marks(pdf: object, x: float, y: float, w: float, h: float, gap: float = 1.0,
               length: float = 2.5) -> None:
    """Short cut marks just outside each corner of a rectangle (mm)."""
    for cx, dx in ((x, -1), (x + w, 1)):
        for cy, dy in ((y, -1), (y + h, 1)):
            pdf.line(cx + dx * gap, cy, cx + dx * (gap + length), cy)  # type: ignore[attr-defined]
            pdf.line(cx, cy + dy * gap, cx, cy + dy * (gap + length))  # type: ignore[attr-defined]


def _new_pdf() -> object:
    """An A4 portrait PDF in millimetres with the committed CJK subset font."""
    try:
        from fpdf import FPDF
    except ImportError as e:  # pragma: no cover - dependency missing
        raise VisionError("printing needs the fpdf2 package (pip install fpdf2)") from e
    pdf = FPDF(unit="mm", format="A4")
    pdf.set_auto_page_break(False)
    pdf.add_font("noto", fname=str(FONT_FILE))
    pdf.set_creator("feltbank")
    pdf.add_page()
    return pdf


def _ruler(pdf: object, x: float, y: float) -> None:
    """A 50 mm scale bar to check the sheet was printed at 100%."""
    pdf.set_draw_color(0)  # type: ignore[attr-defined]
    pdf.set_line_width(0.3)  # type: ignore[attr-defined]
    pdf.line(x, y, x + 50, y)  # type: ignore[attr-defined]
    pdf.line(x, y - 1.5, x, y + 1.5)  # type: ignore[attr-defined]
    pdf.line(x + 50, y - 1.5, x + 50, y + 1.5)  # type: ignore[attr-defined]
    pdf.set_font("noto", size=7)  # type: ignore[attr-defined]
    pdf.text(x + 52, y + 1, "50 mm: print at 100% (no fit-to-page)")  # type: ignore


def _text_centered(pdf: object, text: str, cx: float, cy: float, height_mm: float,
                   max_w: float) -> None:
    """Text whose em box is height_mm tall, centred on (cx, cy), shrunk to fit max_w."""
    size = height_mm / MM_PER_PT
    pdf.set_font("noto", size=size)  # type: ignore[attr-defined]
    w = pdf.get_string_width(text)  # type: ignore[attr-defined]
    if w > max_w:
        size *= max_w / w
        pdf.set_font("noto", size=size)  # type: ignore[attr-defined]
        w = pdf.get_string_width(text)  # type: ignore[attr-defined]
    em = size * MM_PER_PT
    pdf.text(cx - w / 2, cy + 0.36 * em, text)  # type: ignore[attr-defined]


def write_labels_pdf(out: Path, die_mm: float = 16.0, die_set: str | None = None) -> int:
    """The dice labels (glyph and word) of `die_set` (equipment/NAME.json; default: the default
    mode's) at true size with cut marks; returns label count."""
    import equipment
    from vision.art import DEFAULT_STYLE
    from vision.labels import DIE_SETS

    dice = DIE_SETS[die_set or default_die_set()]

    if not 8.0 <= die_mm <= 40.0:
        raise VisionError(f"--die-mm {die_mm}: expected a die edge between 8 and 40 mm")
    pdf = _new_pdf()
    side = die_mm - 2.0 if die_mm >= 12 else die_mm * 0.86  # a margin round the sticker
    pitch = side + 8.0
    x0, y = 20.0, 22.0
    pdf.set_font("noto", size=11)
    pdf.text(x0, 14, f"{equipment.load(dice.name)['title']} labels: {die_mm:g} mm dice, "
                     f"{side:g} mm stickers")
    count = 0
    style = DEFAULT_STYLE
    for die in dice.dice:
        if y + pitch + 10 > 280:
            pdf.add_page()
            y = 20.0
        pdf.set_text_color(0)
        pdf.set_font("noto", size=8)
        pdf.text(x0, y + 2, f"{die.name} die")
        y += 5
        for i, label in enumerate(die.faces):
            x = x0 + i * pitch
            ink = tuple(reversed(die.ink_bgr)) if style.ink_from_die else (0, 0, 0)
            sticker = tuple(reversed(style.sticker_bgr or die.body_bgr))
            pdf.set_fill_color(*sticker)
            pdf.set_draw_color(*ink)
            pdf.rect(x, y, side, side, style="F")
            pdf.set_line_width(max(0.1, side / 60 * 0.8))
            m = side * 0.05
            pdf.rect(x + m, y + m, side - 2 * m, side - 2 * m)
            pdf.set_text_color(*ink)
            _text_centered(pdf, dice.glyphs[label], x + side / 2,
                           y + side * 0.42, side * style.glyph_scale, side * 0.8)
            _text_centered(pdf, label, x + side / 2, y + side * 0.80, side * 0.13 * 1.3,
                           side * 0.78)
            pdf.set_draw_color(0)
            pdf.set_line_width(0.15)
            _cut_marks(pdf, x, y, side, side)
            count += 1
        y += pitch
    pdf.set_text_color(0)
    _ruler(pdf, x0, min(y + 6, 285))
    pdf.output(str(out))
    return count


def write_markers_pdf(out: Path, marker_mm: float = 36.0) -> int:
    """Four ArUco markers (ids 0-3) for the felt's corners at true size; returns 4."""
    import cv2

    from vision.synthetic import ARUCO_DICT

    if not 15.0 <= marker_mm <= 80.0:
        raise VisionError(f"--marker-mm {marker_mm}: expected a side between 15 and 80 mm")
    d = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
    pdf = _new_pdf()
    pdf.set_font("noto", size=11)
    pdf.text(20, 14, f"Felt corner markers (ArUco 4x4, ids 0-3), {marker_mm:g} mm")
    names = ["0 top-left", "1 top-right", "2 bottom-right", "3 bottom-left"]
    cells = 6  # 4x4 bits + black border
    for i in range(4):
        if hasattr(cv2.aruco, "generateImageMarker"):
            bits = cv2.aruco.generateImageMarker(d, i, cells)
        else:  # OpenCV < 4.7
            bits = cv2.aruco.drawMarker(d, i, cells)
        x = 25.0 + (i % 2) * (marker_mm + 40)
        y = 30.0 + (i // 2) * (marker_mm + 40)
        cell = marker_mm / cells
        pdf.set_fill_color(0)
        for r in range(cells):
            for c in range(cells):
                if bits[r, c] < 128:
                    pdf.rect(x + c * cell, y + r * cell, cell, cell, style="F")
        q = cell  # white quiet zone of one cell round the marker
        pdf.set_draw_color(0)
        pdf.set_line_width(0.15)
        _cut_marks(pdf, x - q, y - q, marker_mm + 2 * q, marker_mm + 2 * q)
        pdf.set_font("noto", size=8)
        pdf.text(x, y + marker_mm + q + 6, f"corner {names[i]}")
    _ruler(pdf, 25, 30 + 2 * (marker_mm + 40) + 5)
    pdf.output(str(out))
    return 4


def cmd_print(args: argparse.Namespace) -> int:
    """Write the requested printable."""
    if args.what == "deck":
        from controller.cli.vision_kinds import cmd_print_deck

        return cmd_print_deck(args)
    if not args.out:
        return _fail(f"print {args.what}: --out FILE.pdf is required")
    out = Path(args.out)
    if out.suffix.lower() != ".pdf":
        return _fail(f"--out {out}: expected a .pdf file name")
    if not out.parent.is_dir():
        return _fail(f"--out {out}: folder {out.parent} does not exist")
    own = printables()
    if args.what in own:
        print(resolve_ref(own[args.what])(out, args.lang, args.pages))
        return 0
    try:
        if args.what == "labels":
            n = write_labels_pdf(out, args.die_mm, args.die_set)
            print(f"{out}: {n} labels for {args.die_mm:g} mm dice")
        else:
            write_markers_pdf(out, args.marker_mm)
            print(f"{out}: 4 corner markers, {args.marker_mm:g} mm")
    except VisionError as e:
        return _fail(str(e))
    return 0
