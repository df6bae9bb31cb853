"""The vision benchmark: calibrate on one set of generated captures, read unseen scenes.

Scenes come from several simulated tables (camera height, lens, tilt and felt fixed per
table); each table is calibrated from its own captures (16 labels x 6), then read on scenes
drawn with other seeds, a share of them hard (low light, strong glare, touching dice, a
camera noticeably off vertical). Reports accuracy, abstentions, confident errors, latency.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.art import DEFAULT_STYLE, LabelStyle
from vision.errors import CalibrationRefused
from vision.labels import FORTUNES_AND_WINDS, DieSet
from vision.recognizer import Recognizer, calibrate
from vision.synthetic import make_capture, make_scene, sample_table

MATCH_PX = 12.0  # a reading belongs to a die when its centre is this close to the truth
# label art the recognizer was not developed on: serif kanji, Hershey words above, no
# frame, cream stickers, inks not tied to the dice
UNSEEN_ART = LabelStyle(glyph_font="serif", word_font="hershey", word="above", border=False,
                        sticker_bgr=(200, 228, 245), ink_from_die=False, ink_bgr=(30, 30, 90),
                        glyph_scale=0.58)


@dataclass
class BenchResult:
    """What the benchmark measured."""

    dice: int = 0
    right: int = 0
    abstained: int = 0
    confident_errors: int = 0
    missed: int = 0
    frames: int = 0
    latencies_ms: list[float] = field(default_factory=list)  # wall clock per frame
    cpu_ms: list[float] = field(default_factory=list)  # CPU time per frame (one thread)
    calibration_s: list[float] = field(default_factory=list)
    hard_dice: int = 0
    hard_right: int = 0
    errors: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # tables whose calibration was refused

    def summary(self) -> dict:
        """The figures as a JSON-able dict."""
        n = max(1, self.dice)
        lat = np.asarray(self.latencies_ms or [0.0])
        cpu = np.asarray(self.cpu_ms or [0.0])
        return {
            "dice": self.dice,
            "frames": self.frames,
            "accuracy": self.right / n,
            "abstention_rate": self.abstained / n,
            "confident_error_rate": self.confident_errors / n,
            "confident_errors": self.confident_errors,
            "missed": self.missed,
            "hard_dice": self.hard_dice,
            "hard_accuracy": self.hard_right / max(1, self.hard_dice),
            "latency_ms_median": float(np.median(lat)),
            "latency_ms_p95": float(np.percentile(lat, 95)),
            "cpu_ms_median": float(np.median(cpu)),
            "cpu_ms_p95": float(np.percentile(cpu, 95)),
            "calibration_s_max": max(self.calibration_s or [0.0]),
            "calibration_s_median": float(np.median(self.calibration_s or [0.0])),
            "error_examples": self.errors[:10],
            "calibrations_refused": self.refused,
        }


def capture_set(table: dict, seed: int, per_label: int = 6, die_set: DieSet = FORTUNES_AND_WINDS,
                style: LabelStyle = DEFAULT_STYLE) -> dict[str, list[tuple[str, np.ndarray]]]:
    """Generated calibration captures for a table: per_label frames of each label."""
    out: dict[str, list[tuple[str, np.ndarray]]] = {}
    for i, lab in enumerate(die_set.labels):
        out[lab] = [(f"{lab}/{j:02d}.png",
                     make_capture(seed + 1000 * i + j, lab, style, die_set, table=table).image)
                    for j in range(per_label)]
    return out


def run_bench(
    n_dice: int = 1000, tables: int = 4, seed: int = 20261121, hard_share: float = 0.35,
    die_set: DieSet = FORTUNES_AND_WINDS, style: LabelStyle = DEFAULT_STYLE,
    per_label: int = 6, progress: object = None,
) -> BenchResult:
    """Run the benchmark on about n_dice dice (five per frame) over `tables` tables."""
    cv2.setNumThreads(1)
    res = BenchResult()
    frames_per_table = max(1, int(np.ceil(n_dice / 5 / tables)))
    for t in range(tables):
        trng = np.random.default_rng(seed + 7 * t)
        table = sample_table(trng, tilted=(t % 4 == 3))
        caps = capture_set(table, seed + 100_000 * (t + 1), per_label, die_set, style)
        t0 = time.perf_counter()
        try:
            profile, _ = calibrate(caps, die_set.name)
        except CalibrationRefused as e:  # an honest outcome: that table's art is refused
            res.refused.append(f"table {t}: {e}")
            continue
        res.calibration_s.append(time.perf_counter() - t0)
        rec = Recognizer(profile)
        for f in range(frames_per_table):
            if res.dice >= n_dice:
                break
            fseed = seed + 5_000_000 + 10_000 * t + f  # never a calibration seed
            hard = bool(np.random.default_rng(fseed).random() < hard_share)
            scene = make_scene(fseed, n_dice=5, hard=hard, touching=0.4 if hard else 0.0,
                               style=style, die_set=die_set, table=table)
            t1, c1 = time.perf_counter(), time.process_time()
            readings = rec.read(scene.image)
            res.cpu_ms.append((time.process_time() - c1) * 1000)
            res.latencies_ms.append((time.perf_counter() - t1) * 1000)
            res.frames += 1
            _score(res, scene, readings, hard, fseed)
            if progress is not None:
                progress(res)  # type: ignore[operator]
    return res


def _score(res: BenchResult, scene: object, readings: list, hard: bool, fseed: int) -> None:
    """Match readings to the scene's dice and count right, abstained and wrong."""
    used: set[int] = set()
    for truth in scene.dice:  # type: ignore[attr-defined]
        res.dice += 1
        res.hard_dice += hard
        best, best_d = None, MATCH_PX
        for i, r in enumerate(readings):
            if i in used:
                continue
            d = float(np.hypot(r.center[0] - truth.top_center[0],
                               r.center[1] - truth.top_center[1]))
            if d < best_d:
                best, best_d = i, d
        if best is None:
            res.missed += 1
            res.abstained += 1
            continue
        used.add(best)
        label = readings[best].label
        if label is None:
            res.abstained += 1
        elif label == truth.label:
            res.right += 1
            res.hard_right += hard
        else:
            res.confident_errors += 1
            res.errors.append(f"scene {fseed}: {truth.label} read as {label}")
    for i, r in enumerate(readings):
        if i not in used and r.label is not None:  # a confident reading of no die at all
            res.confident_errors += 1
            res.errors.append(f"scene {fseed}: phantom {r.label} at {r.center}")


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark pinned to one core and print its summary as one JSON line.

    Meant to be started as ``python -m vision.bench`` with OPENBLAS_NUM_THREADS=1 (and
    OMP_NUM_THREADS=1) in the environment, so numpy's BLAS cannot use a second core either.
    """
    import argparse
    import json
    import os

    ap = argparse.ArgumentParser(prog="python -m vision.bench")
    ap.add_argument("--dice", type=int, default=1000)
    ap.add_argument("--tables", type=int, default=4)
    ap.add_argument("--per-label", type=int, default=6)
    ap.add_argument("--seed", type=int, default=20261121)
    ap.add_argument("--unseen-art", action="store_true", help="calibrate and read other art")
    args = ap.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    t0 = time.perf_counter()
    res = run_bench(n_dice=args.dice, tables=args.tables, seed=args.seed,
                    per_label=args.per_label,
                    style=UNSEEN_ART if args.unseen_art else DEFAULT_STYLE)
    summary = res.summary()
    summary["wall_s"] = round(time.perf_counter() - t0, 1)
    summary["per_label"] = args.per_label
    summary["art"] = "unseen" if args.unseen_art else "default"
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
