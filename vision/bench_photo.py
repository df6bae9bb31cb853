"""The independent judge's bench: each kind read on the photo-like world (vision/scenes_photo.py)
through its public reader, as `feltbank recognize --kind K` reads a file.

`python -m vision.bench_photo --kind pips --n 200` (or `feltbank bench vision --kind pips
--world photo`). Kinds that need calibration are calibrated first from captures of the
photo world: a poker deck from one capture per card (`vision.cards.learn`), the Namaste dice
from captures of each die colour showing each face (`vision.numerals.calibrate_numerals`).
A reading is matched to the object under its centre (the scene's id image), else to the
nearest object within 0.35 of its size. Objects cut by the frame or partly covered (cards
under others, a die behind another) are not scored; a wrong label read on them is counted
apart ("unscored wrong"). Failures (abstained, missed, confidently wrong) are written as
crops to /tmp/s7-judge/KIND/ with the full frames of confident errors.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import cv2
import numpy as np

from vision.bench_kinds import KindResult, _label
from vision.scenes_photo import KINDS, NUMERAL_GLYPHS, RANKS, SUITS, make_photo_scene

MATCH = 0.35
DUMP = Path("/tmp/s7-judge")


def reader_of(kind: str, seed: int, per_face: int = 6, log=print):  # noqa: ANN001, ANN201
    """The kind's public reader (calibrated on the photo world where it needs it) and what
    the scenes must share with its calibration (cards: the deck's design)."""
    if kind == "pips":
        from vision.pips import read_pips

        return read_pips, {}
    if kind == "d20":
        from vision.d20 import read_d20

        return read_d20, {}
    if kind == "cards":
        from vision.cards import CardReader, find_cards, learn
        from vision.scenes_photo import card_capture, deck_style

        deck = deck_style(np.random.default_rng([seed, 99]))
        labels = [r + s for r in RANKS for s in SUITS]
        t0 = time.perf_counter()
        caps, retakes = {}, []
        for i, lab in enumerate(labels):
            for k in range(4):  # as a banker would: retake a capture the learner cannot use
                img = card_capture(lab, seed, seed * 1000 + 10 * i + k, deck)
                if len(find_cards(img)) == 1 or k == 3:
                    break
                retakes.append(lab)
            caps[lab] = [(f"{lab}-{seed}", img)]
        log(f"cards: 52 captures rendered in {time.perf_counter() - t0:.0f} s (retaken: "
            f"{', '.join(retakes) or 'none'}); learning")
        return CardReader(learn(caps)).read, {"deck": deck}
    from vision.numerals import calibrate_numerals, read_numerals
    from vision.scenes_photo import numeral_capture

    caps: dict[str, list] = {}
    for colour in ("turquoise", "white"):
        caps[colour] = [(f"{colour}-{g}-{k}", numeral_capture(colour, g, seed * 100 + 10 * i + k))
                        for i, g in enumerate(NUMERAL_GLYPHS) for k in range(per_face)]
    profile, report = calibrate_numerals(caps)
    log(f"numerals: calibrated ({report})")
    return (lambda img: read_numerals(img, profile)), {}


def _dump(kind: str, scene, truth, reading, what: str, n: list[int]) -> None:  # noqa: ANN001
    if n[0] >= 60:
        return
    n[0] += 1
    out = DUMP / kind
    out.mkdir(parents=True, exist_ok=True)
    img = scene.image
    x, y = truth.center if truth is not None else reading.center
    r = int(max(24, 1.6 * (truth.side_px if truth is not None else reading.size_px or 40)))
    x0, y0 = max(0, int(x) - r), max(0, int(y) - r)
    crop = img[y0: int(y) + r, x0: int(x) + r].copy()
    if reading is not None:
        cv2.circle(crop, (int(reading.center[0]) - x0, int(reading.center[1]) - y0), 3,
                   (0, 0, 255), -1)
    got = "none" if reading is None else (_label(reading) or "abstained")
    want = "none" if truth is None else _label(truth)
    seed = scene.info["seed"]
    oid = truth.oid if truth is not None else "x"
    name = f"{what}_s{seed}_o{oid}_{want}_as_{got}".replace("/", "-").replace(" ", "-")
    cv2.imwrite(str(out / f"{name}.png"), crop)
    if what == "ce":
        cv2.imwrite(str(out / f"{name}_frame.jpg"), img)
    with (out / "failures.txt").open("a") as f:
        why = getattr(reading, "why", "") if reading is not None else "not found"
        f.write(f"{name}: {why} | {json.dumps(scene.info)}\n")


def score(kind: str, res: KindResult, scene, readings: list, extra: dict, dumped: list[int]
          ) -> None:  # noqa: ANN001
    """Count one frame's readings against its truth."""
    hard = bool(scene.info["hard"])
    h, w = scene.ids.shape
    per_obj: dict[int, list] = {}
    for r in readings:
        x, y = int(round(r.center[0])), int(round(r.center[1]))
        oid = int(scene.ids[y, x]) if 0 <= x < w and 0 <= y < h else -1
        if oid < 0:
            best = None
            for t in scene.objects:
                d = math.hypot(r.center[0] - t.center[0], r.center[1] - t.center[1])
                if d < MATCH * t.side_px and (best is None or d < best[0]):
                    best = (d, t.oid)
            oid = best[1] if best else -1
        if oid < 0:
            if _label(r) is not None:
                res.confident_errors += 1
                extra["phantoms"] += 1
                res.errors.append(f"scene {scene.info['seed']}: {_label(r)} where there is "
                                  f"nothing, at ({r.center[0]:.0f}, {r.center[1]:.0f})")
                _dump(kind, scene, None, r, "ce", dumped)
            continue
        per_obj.setdefault(oid, []).append(r)
    for t in scene.objects:
        rs = per_obj.get(t.oid, [])
        labels = {_label(r) for r in rs} - {None}
        if not t.in_frame:
            extra["unscored"] += 1
            if labels - {_label(t)}:
                extra["unscored_wrong"] += 1
            continue
        res.dice += 1
        res.hard_dice += hard
        tally = extra.setdefault("by_surface", {}).setdefault(scene.info["surface"], [0, 0])
        tally[0] += 1
        tally[1] += bool(rs) and labels == {_label(t)}
        if not rs:
            res.missed += 1
            res.abstained += 1
            _dump(kind, scene, t, None, "missed", dumped)
        elif labels - {_label(t)}:
            res.confident_errors += 1
            bad = next(r for r in rs if _label(r) not in (None, _label(t)))
            res.errors.append(f"scene {scene.info['seed']}: {_label(t)} read as {_label(bad)} "
                              f"({bad.confidence:.2f})")
            _dump(kind, scene, t, bad, "ce", dumped)
        elif labels:
            res.right += 1
            res.hard_right += hard
        else:
            res.abstained += 1
            _dump(kind, scene, t, rs[0], "abstained", dumped)


def run(kind: str, n: int, seed: int, per_face: int = 6, log=print,  # noqa: ANN001
        same_table: bool = False) -> dict:
    """Read about n scored objects of a kind on photo-like frames; the figures. Cards are
    dealt on any table, or with same_table on the card table the deck was learned on."""
    cv2.setNumThreads(1)
    import shutil

    shutil.rmtree(DUMP / kind, ignore_errors=True)
    read, shared = reader_of(kind, seed, per_face, log)
    if same_table and kind == "cards":
        shared["table"] = seed
    read(np.zeros((64, 64, 3), np.uint8))  # a reader's one-time set-up is not a frame's time
    res = KindResult("photo")
    extra = {"phantoms": 0, "unscored": 0, "unscored_wrong": 0}
    dumped = [0]
    f = 0
    t0 = time.perf_counter()
    render_s = 0.0
    while res.dice < n:
        fseed = seed + 11_000_000 + f
        f += 1
        r0 = time.perf_counter()
        scene = make_photo_scene(kind, fseed, **shared)
        render_s += time.perf_counter() - r0
        t1, c1 = time.perf_counter(), time.process_time()
        readings = read(scene.image)
        res.cpu_ms.append((time.process_time() - c1) * 1000)
        res.latencies_ms.append((time.perf_counter() - t1) * 1000)
        res.frames += 1
        score(kind, res, scene, readings, extra, dumped)
        if f % 20 == 0:
            log(f"{kind}: {res.frames} frames, {res.dice} scored, {res.right} right")
    s = res.summary()
    s.update(extra, kind=kind, world="photo", same_table=bool(shared.get("table")),
             wall_s=round(time.perf_counter() - t0, 1), render_s=round(render_s, 1), dumps=str(DUMP / kind))
    return s


def print_summary(s: dict) -> None:
    """The figures as people read them."""
    things = "cards" if s["kind"] == "cards" else "dice"
    where = ", on the calibration table" if s.get("same_table") else ""
    print(f"== {s['kind']}, photo world{where}: {things} {s['dice']} in {s['frames']} frames "
          f"({s['hard_dice']} in hard frames; {s['unscored']} cut or covered, not scored)")
    print(f"accuracy          {s['accuracy']:.2%}  (hard frames {s['hard_accuracy']:.2%})")
    print(f"abstained         {s['abstention_rate']:.2%}  (not found {s['missed']})")
    print(f"confident errors  {s['confident_errors']}  ({s['confident_error_rate']:.2%}; "
          f"{s['phantoms']} where there is nothing; {s['unscored_wrong']} more on cut or "
          "covered objects, not counted)")
    print(f"latency per frame median {s['latency_ms_median']:.1f} ms, p95 "
          f"{s['latency_ms_p95']:.1f} ms (wall, one core); CPU median {s['cpu_ms_median']:.1f} ms")
    print("right by surface: " + ", ".join(
        f"{k} {r}/{n}" for k, (n, r) in sorted(s.get("by_surface", {}).items())))
    for e in s["error_examples"]:
        print(f"  {e}")
    print(f"failures dumped to {s['dumps']}")


def main(argv: list[str] | None = None) -> int:
    """Run one kind on one core; print the figures, the last line as JSON."""
    import argparse
    import os
    import sys

    ap = argparse.ArgumentParser(prog="python -m vision.bench_photo")
    ap.add_argument("--kind", choices=KINDS, required=True)
    ap.add_argument("--n", type=int, default=200, help="objects scored (default 200)")
    ap.add_argument("--seed", type=int, default=20261123)
    ap.add_argument("--per-face", type=int, default=6,
                    help="numeral dice: calibration captures per face and colour")
    ap.add_argument("--same-table", action="store_true",
                    help="cards: deal on the table the deck was learned on (default: any)")
    ap.add_argument("--json", action="store_true", help="only the JSON line")
    args = ap.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    s = run(args.kind, args.n, args.seed, args.per_face, log, args.same_table)
    if not args.json:
        print_summary(s)
    print(json.dumps(s))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
