"""`recognize --kind pips|numerals|d20` and `bench vision --kind ...`: the readers that need
no profile (the numeral dice's colours default to equipment/namaste.json).

Reached from the `--kind` switch of `feltbank recognize` and `feltbank bench vision`
(controller/cli/vision.py); the labelled dice (`--kind dice`, the default) stay there.
"""

from __future__ import annotations

import argparse
import json
import sys

from vision.errors import VisionError

#: kinds read without calibration, besides the profile-based labelled dice ("dice")
KINDS = ("pips", "numerals", "d20")


def _fail(msg: str) -> int:
    """The vision commands' one error printer (imported late: vision.py imports this module)."""
    from controller.cli.vision import _fail as fail

    return fail(msg)


def cmd_recognize_kind(args: argparse.Namespace) -> int:
    """Read each image with the reader of args.kind; one JSON object per image with --json."""
    from vision.d20 import read_d20
    from vision.images import read_image
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
    status = 0
    for image in args.images:
        try:
            objects = readers[args.kind](read_image(image))
        except VisionError as e:
            status = _fail(str(e))
            if args.json:
                print(json.dumps({"image": image, "error": str(e), "objects": []}))
            continue
        if args.json:
            print(json.dumps({"image": image, "objects": [o.to_json() for o in objects]}))
            continue
        print(f"{image}:")
        for o in objects:
            what = o.label or f"(unsure: {o.why})"
            if getattr(o, "colour", None):
                what = f"{what} {o.colour}"
            print(f"  {args.kind} {what:<10} {o.confidence:5.2f}  at ({o.center[0]:.0f}, "
                  f"{o.center[1]:.0f})")
    return status


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
        print(f"== {args.kind}, {name}: dice {s['dice']} in {s['frames']} frames "
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
