"""Benchmarks of the readers that need no calibration (`feltbank bench vision --kind pips`).

Reads generated scenes (`vision.scenes_pips`) in two splits: "dev" (the surfaces and die
colours the reader was developed on) and "heldout" (surfaces and die colours development
never drew); a share of each is hard (dim and noisy, or glare; blur, low JPEG quality, more
touching dice). Per split: dice read right, abstained (including dice not found at all),
confident errors (a wrong label, or a label where there is no die), latency per frame on
one core (wall clock and process CPU time).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.nadir import Nadir, from_homography

KINDS = ("pips", "numerals", "d20", "cards")
MATCH = 0.35  # a reading belongs to a die when its centre is this many sides from the truth


@dataclass
class KindResult:
    """The figures of one split."""

    split: str
    dice: int = 0
    right: int = 0
    abstained: int = 0
    missed: int = 0
    confident_errors: int = 0
    frames: int = 0
    hard_dice: int = 0
    hard_right: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def summary(self) -> dict:
        """The figures as a JSON-able dict."""
        n = max(1, self.dice)
        lat = np.asarray(self.latencies_ms or [0.0])
        cpu = np.asarray(self.cpu_ms or [0.0])
        return {
            "split": self.split, "dice": self.dice, "frames": self.frames,
            "accuracy": self.right / n, "abstention_rate": self.abstained / n,
            "missed": self.missed, "confident_errors": self.confident_errors,
            "confident_error_rate": self.confident_errors / n,
            "hard_dice": self.hard_dice,
            "hard_accuracy": self.hard_right / max(1, self.hard_dice),
            "latency_ms_median": float(np.median(lat)),
            "latency_ms_p95": float(np.percentile(lat, 95)),
            "cpu_ms_median": float(np.median(cpu)),
            "cpu_ms_p95": float(np.percentile(cpu, 95)),
            "error_examples": self.errors[:12],
        }


def _label(o) -> str | None:
    """What is scored of a die or a reading: its label, and its colour where it has one
    (a numeral die read right is the right number on the right die)."""
    colour = getattr(o, "colour", "")
    if o.label is None or colour is None:
        return None
    return f"{o.label} {colour}" if colour else o.label


def score(res: KindResult, truths: list, readings: list, hard: bool, seed: int) -> None:
    """Match readings to true dice (nearest centre within MATCH sides) and count; dice cut
    by the frame's edge are left out."""
    used: set[int] = set()
    for t in sorted(truths, key=lambda t: not t.in_frame):
        best, best_d = None, MATCH * t.side_px
        for i, r in enumerate(readings):
            d = math.hypot(r.center[0] - t.center[0], r.center[1] - t.center[1])
            if i not in used and d < best_d:
                best, best_d = i, d
        if not t.in_frame:  # a die cut by the frame: whatever is read of it is not scored
            if best is not None:
                used.add(best)
            continue
        res.dice += 1
        res.hard_dice += hard
        if best is None:
            res.missed += 1
            res.abstained += 1
            continue
        used.add(best)
        label = _label(readings[best])
        if label is None:
            res.abstained += 1
        elif label == _label(t):
            res.right += 1
            res.hard_right += hard
        else:
            res.confident_errors += 1
            res.errors.append(f"scene {seed}: {_label(t)} read as {label} "
                              f"({readings[best].confidence:.2f})")
    for i, r in enumerate(readings):
        if i not in used and _label(r) is not None:
            res.confident_errors += 1
            res.errors.append(f"scene {seed}: {_label(r)} where there is no die, at "
                              f"({r.center[0]:.0f}, {r.center[1]:.0f})")


def _kind(kind: str) -> tuple:
    """(scene maker, reader) of a kind."""
    if kind == "d20":
        from vision.d20 import read_d20
        from vision.scenes_d20 import make_d20_scene

        return make_d20_scene, read_d20
    if kind == "numerals":
        from vision.numerals import read_numerals
        from vision.scenes_numerals import make_numeral_scene

        return make_numeral_scene, read_numerals
    from vision.pips import read_pips
    from vision.scenes_pips import make_pip_scene

    return make_pip_scene, read_pips


def run_kind(kind: str, n_dice: int, seed: int, held_out: bool, hard_share: float = 0.3,
             nadir: str | None = None) -> KindResult:
    """Read about n_dice dice of a kind in generated scenes of one split; nadir (d20, pips, numerals):
    each frame read with its camera's nadir given: "scene" its true one, "table" the one a table
    calibrated by four markers knows (`vision.nadir.from_homography` of the scene's
    `table_h`, computed once per table: not in the frame's time)."""
    make_scene, read = _kind(kind)
    cv2.setNumThreads(1)
    read(np.zeros((64, 64, 3), np.uint8))  # a reader's one-time set-up is not a frame's time
    res = KindResult("heldout" if held_out else "dev")
    f = 0
    while res.dice < n_dice:
        fseed = seed + (7_000_000 if held_out else 3_000_000) + f
        f += 1
        hard = bool(np.random.default_rng(fseed).random() < hard_share)
        scene = make_scene(fseed, held_out=held_out, hard=hard)
        if nadir == "table":
            h, w = scene.image.shape[:2]
            # the scenes draw the principal point up to 10% of the frame off its centre
            # (`vision.scenes_common.sample_view`), farther than a camera module's
            known = from_homography(scene.table_h, (w, h), pp_share=0.1)
        t1, c1 = time.perf_counter(), time.process_time()
        if nadir == "scene":
            readings = read(scene.image, nadir=Nadir(scene.nadir))
        elif nadir == "table":
            readings = read(scene.image, nadir=known)
        else:
            readings = read(scene.image)
        res.cpu_ms.append((time.process_time() - c1) * 1000)
        res.latencies_ms.append((time.perf_counter() - t1) * 1000)
        res.frames += 1
        score(res, scene.dice, readings, hard, fseed)
    return res


def main(argv: list[str] | None = None) -> int:
    """Run one kind's benchmark pinned to one core; print {split: figures} as one JSON line."""
    import argparse
    import json
    import os

    ap = argparse.ArgumentParser(prog="python -m vision.bench_kinds")
    ap.add_argument("--kind", choices=KINDS, required=True)
    ap.add_argument("--dice", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=20261121)
    ap.add_argument("--split", choices=["dev", "heldout", "both"], default="both")
    ap.add_argument("--elsewhere", action="store_true",
                    help="cards: each deck learned on one table, read on another")
    ap.add_argument("--nadir", nargs="?", const="scene", choices=["scene", "table"],
                    help="d20, pips, numerals: each frame read with its camera's nadir given, not told from "
                         "the picture: the scene's own (scene, the default), or what a table "
                         "calibrated by its markers knows (table)")
    args = ap.parse_args(argv)
    if args.nadir and args.kind not in ("d20", "pips", "numerals"):
        ap.error("--nadir is for --kind d20, pips and numerals")
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    out = {}
    for split in (("dev", "heldout") if args.split == "both" else (args.split,)):
        t0 = time.perf_counter()
        if args.kind == "cards":
            from vision.scenes_cards import run_cards

            s = run_cards(args.dice, args.seed, split == "heldout",
                          elsewhere=args.elsewhere).summary()
        else:
            s = run_kind(args.kind, args.dice, args.seed, split == "heldout",
                         nadir=args.nadir).summary()
            s["nadir_given"] = args.nadir
        s["wall_s"] = round(time.perf_counter() - t0, 1)
        s["kind"] = args.kind
        out[split] = s
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
