"""Reading dice in a frame: find each die's top face, describe it, match it, decide.

A face is read from its rectified top face, in all four orientations, against templates
learned from captures (see vision.matcher). The margin between the best label and the
runner-up decides: below the threshold calibrated on held-out captures (the profile's
`Thresholds`) the recognizer abstains (label None). An uncertain face gets a second, slower
look; a die that leans on something (cocked) is flagged and not read (vision.leaning).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from vision.classifier import face_rows
from vision.classifier import margin as class_margin
from vision.descriptors import (
    MARGIN,
    SEARCH_SHIFTS,
    STORE,
    ink_colour,
    ink_contrast,
)
from vision.dice import (
    PATCH,
    Blob,
    TopFace,
    blob_angle,
    find_blobs,
    fit_top_face,
    rectify,
    touching_faces,
)
from vision.errors import VisionError
from vision.geometry import TableGeometry
from vision.leaning import face_template, is_cocked, lean_evidence
from vision.model import Profile, Thresholds
from vision.threads import on_one_blas_thread

# (turn in degrees, scale): the fitted face's angle can be off, or its size (a washed-out or
# dim, blurred outline); one at a time
SECOND_LOOK_POSES = ((0.0, 1.0), (-4.0, 1.0), (4.0, 1.0), (0.0, 0.94), (0.0, 1.06))
SECOND_LOOK_SHIFTS = (-6, -4, -2, 0, 2, 4, 6)  # px, wider than SEARCH_SHIFTS
# a face whose blob a flat die explains worse than the first look's search reach (in face
# sides) may be placed off by more than that search: it gets the second look too
POSE_UNSURE = max(SEARCH_SHIFTS) / PATCH


@dataclass
class DieReading:
    """One object on the felt as the recognizer saw it."""

    label: str | None
    confidence: float
    center: tuple[float, float]
    corners: list[list[float]]
    angle_deg: float
    cocked: bool = False
    on_felt: bool = True
    kind: str = "die"  # "die" or "obstruction" (a hand, an unknown thing)
    candidates: list[tuple[str, float]] = field(default_factory=list)
    base: tuple[float, float] | None = None  # image point under the die's centre, on the felt
    table_mm: tuple[float, float] | None = None  # that point in table mm (with a geometry)
    zone: str | None = None  # the table zone it lies in (with a geometry)

    def to_json(self) -> dict:
        """The JSON object `feltbank recognize` prints for this die."""
        return {
            "label": self.label,
            "confidence": round(self.confidence, 4),
            "center": [round(self.center[0], 1), round(self.center[1], 1)],
            "corners": [[round(x, 1), round(y, 1)] for x, y in self.corners],
            "angle": round(self.angle_deg, 1),
            "cocked": self.cocked,
            "on_felt": self.on_felt,
            "kind": self.kind,
            "candidates": [[lab, round(s, 4)] for lab, s in self.candidates],
            "base": None if self.base is None else [round(self.base[0], 1),
                                                    round(self.base[1], 1)],
            "table_mm": None if self.table_mm is None else [round(self.table_mm[0], 1),
                                                            round(self.table_mm[1], 1)],
            "zone": self.zone,
        }


def decide(scores: np.ndarray, labels: list[str], min_margin: float, min_score: float
           ) -> tuple[str | None, float, list[tuple[str, float]]]:
    """Label (or None to abstain), confidence and the top candidates from label scores.

    The margin is taken relative to what the runner-up left unexplained, (s1 - s2) / (1 - s2):
    a blurred or washed-out face lifts every label's score and shrinks raw margins alike.
    """
    order = np.argsort(-scores)
    s1 = float(scores[order[0]])
    s2 = float(scores[order[1]]) if len(order) > 1 else -1.0
    margin = (s1 - s2) / max(1e-6, 1.0 - s2)
    # confidence 0.5 sits exactly at the calibrated threshold; 1.0 at twice the margin
    conf_m = margin / (2 * min_margin)
    conf_s = 0.5 + (s1 - min_score) / (2 * (1 - min_score))
    conf = float(np.clip(min(conf_m, conf_s), 0.0, 1.0))
    cands = [(labels[int(i)], float(scores[int(i)])) for i in order[:3]]
    if margin < min_margin or s1 < min_score:
        return None, min(conf, 0.49), cands
    return labels[int(order[0])], max(conf, 0.5), cands


def decide_both(scores: np.ndarray, class_scores: np.ndarray, labels: list[str],
                thresholds: Thresholds) -> tuple[str | None, float, list[tuple[str, float]]]:
    """Label (None: abstain), confidence and candidates from the matcher's label scores and
    the learned classifier's (vision.classifier log-probabilities).

    Two models that learned differently (nearest whitened templates; a discriminant
    classifier trained on augmented copies) agree on the best label and each is sure of it
    by its own calibrated margin (the matcher's min_margin and min_score, the classifier's
    class_margin): read, with the less sure one's confidence (0.5 at the thresholds, 1.0 at
    twice them). Or the matcher alone clears alone_margin, the margin no held-out capture
    (nor, up to MAX_MARGIN, an augmented copy) was misread with, whatever the classifier
    says: read with the matcher's confidence at that margin (the classifier, learnt from six
    captures a face, is the less sure of the two on held-out captures, so it does not veto
    a reading the matcher is that sure of). Otherwise the face is abstained on.
    """
    th = thresholds
    label, conf, cands = decide(scores, labels, th.min_margin, th.min_score)
    cm = class_margin(class_scores)
    conf_c = float(np.clip(cm / (2 * th.class_margin), 0.0, 1.0))
    agree = int(np.argmax(class_scores)) == int(np.argmax(scores))
    if label is not None and agree and cm >= th.class_margin:
        return label, max(min(conf, conf_c), 0.5), cands
    alone, conf_a, _ = decide(scores, labels, th.alone_margin, th.min_score)
    if alone is not None:
        return alone, conf_a, cands
    return None, min(conf, conf_a, 0.49) if agree else min(conf, conf_c, 0.25), cands


class Recognizer:
    """Reads every die in a frame with a calibrated profile."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.matcher = profile.matcher()
        self.classifier = profile.classifier()
        self.ink = profile.ink()

    def find_faces(self, img: np.ndarray, ignore: Sequence[np.ndarray] = ()
                   ) -> list[tuple[TopFace | None, Blob, bool]]:
        """Every die's top face (None for obstructions) with its blob and a cocked flag.

        Cocked: a blob a flat die explains badly (residual above the profile's cocked_residual), or a lone
        die on the felt whose outline and top face say it leans (see lean_evidence).
        `ignore`: image-px polygons of what belongs on the felt (the corner markers' papers).
        """
        g = self.profile.geometry
        lens = g.lens()
        blobs, _, _ = find_blobs(img, self.profile.felt, g.side_px, ignore)
        out: list[tuple[TopFace | None, Blob, bool]] = []
        for blob in blobs:
            ys, xs = np.nonzero(blob.mask)
            cx, cy = xs.mean() + blob.origin[0], ys.mean() + blob.origin[1]
            ratio = blob.area / g.die_area(cx, cy)
            if ratio > 5.5:
                out.append((None, blob, False))
                continue
            if ratio >= 1.25:
                theta = blob_angle(img, blob.mask, blob.origin)
                faces = touching_faces(blob.mask, blob.origin, g.side_px, g.k_side, g.nadir,
                                       theta, lens, g.side_slope)
                if len(faces) >= 2:
                    out.extend((f, blob, False) for f in faces)
                    continue
            theta = blob_angle(img, blob.mask, blob.origin)
            face = fit_top_face(blob.mask, blob.origin, g.side_px, g.k_side, g.nadir, theta,
                                lens, g.side_slope, g.rim_px or 0.0)
            if face is not None:
                out.append((face, blob, is_cocked(img, face, blob, self.profile.felt,
                                                  g, self.face_template,
                                                  self.profile.thresholds)))
        return out

    @functools.cached_property
    def face_template(self) -> np.ndarray:
        """The profile's average top face (see face_template), built once."""
        return face_template(self.profile.patches)

    def lean_evidence(self, img: np.ndarray, face: TopFace, blob: Blob
                      ) -> tuple[float, float, float, float] | None:
        """How a lone die's outline and top face differ from flat (vision.leaning.
        lean_evidence, with the profile's felt, geometry and average top face)."""
        return lean_evidence(img, face, blob, self.profile.felt, self.profile.geometry,
                             self.face_template)

    def scores(self, stored: np.ndarray, shifts: tuple[int, ...] = SEARCH_SHIFTS
               ) -> tuple[np.ndarray, np.ndarray]:
        """The matcher's label scores (ink colours counted) and the classifier's of a face."""
        rows = face_rows(stored, shifts)
        d = self.matcher.W.shape[0]
        s = self.matcher.scores(rows[:, :d]) - self.ink.penalty(ink_colour(stored),
                                                                 ink_contrast(stored))
        return s, self.classifier.scores(rows)

    def second_look(self, img: np.ndarray, face: TopFace) -> tuple[np.ndarray, np.ndarray]:
        """Label scores (matcher's, classifier's) of an uncertain face under a wider, slower
        pose search.

        The first look trusts the fitted face's angle and size and searches +/-4 px. A face
        in glare or dim light is fitted less precisely (a washed-out or noisy outline), so
        the few faces the first look is unsure of are re-rectified at a few turns and scales
        (SECOND_LOOK_POSES) and searched over wider shifts; each label keeps its best score.
        """
        best, best_c = None, None
        for turn, scale in SECOND_LOOK_POSES:
            big = face.grown(MARGIN * scale, turn)
            s, c = self.scores(rectify(img, big, STORE), SECOND_LOOK_SHIFTS)
            best = s if best is None else np.maximum(best, s)
            best_c = c if best_c is None else np.maximum(best_c, c)
        assert best is not None and best_c is not None
        return best, best_c

    def read_face(self, img: np.ndarray, face: TopFace
                  ) -> tuple[str | None, float, list[tuple[str, float]]]:
        """Label (None: abstain), confidence and candidates of one top face.

        Each look is decided by decide_both (the matcher and the learned classifier). A
        face the first look abstains on gets a second look (see second_look) under the
        same calibrated thresholds, and so does a face whose blob a flat die explains worse
        than the first look's search reaches (residual > POSE_UNSURE face sides: a badly cut
        pair of touching dice), however sure the first look was, and a face the first look
        reads barely over the threshold (confidence under sure_at_first_look: in dim light
        RICE loses the two dots that tell it from TREE). When the second look's
        winner is not the first look's, the two looks disagree about the face's pose or
        content, so the second look must clear disagree_factor times the margin it read with
        (min_margin with the classifier agreeing, alone_margin without; full confidence) to
        overrule the first; short of that, the face is abstained on. When it agrees with a
        barely sure first reading, that reading stands (searching more poses lifts the
        runners-up too).
        """
        p, th = self.profile, self.profile.thresholds
        scores, cscores = self.scores(rectify(img, face.grown(MARGIN), STORE))
        label, conf, cands = decide_both(scores, cscores, p.labels, th)
        barely = label is not None and face.residual <= POSE_UNSURE
        if barely and conf >= th.sure_at_first_look:
            return label, conf, cands
        first_reading = label, conf, cands
        first = cands[0][0]
        s2, c2 = self.second_look(img, face)
        cscores = np.maximum(cscores, c2)
        label, conf, cands = decide_both(np.maximum(scores, s2), cscores, p.labels, th)
        if barely and cands[0][0] == first:
            return first_reading
        if label is not None and label != first:
            # the margin the reading was made with: both models agreeing, or the matcher alone
            sure = (p.labels[int(np.argmax(cscores))] == label
                    and class_margin(cscores) >= th.class_margin)
            need = th.min_margin if sure else th.alone_margin
            s1, s2 = cands[0][1], cands[1][1] if len(cands) > 1 else -1.0
            if (s1 - s2) / max(1e-6, 1.0 - s2) < th.disagree_factor * need:
                label, conf = None, min(conf, 0.49)
        return label, conf, cands

    @on_one_blas_thread
    def read(self, img: np.ndarray, geometry: TableGeometry | None = None
             ) -> list[DieReading]:
        """Read every object on the felt of a BGR frame (placed on the table if geometry),
        numpy's BLAS on one thread (vision.threads)."""
        p = self.profile
        frame = p.geometry.frame
        if frame is not None and (img.shape[1], img.shape[0]) != tuple(frame):
            raise VisionError(f"frame is {img.shape[1]}x{img.shape[0]}, but the profile was "
                              f"calibrated on {frame[0]}x{frame[1]} frames; set the camera "
                              "to that size or recalibrate")
        readings: list[DieReading] = []
        for face, blob, cocked in self.find_faces(img, geometry.ignore if geometry else ()):
            if face is None:
                ys, xs = np.nonzero(blob.mask)
                c = (float(xs.mean() + blob.origin[0]), float(ys.mean() + blob.origin[1]))
                readings.append(DieReading(None, 0.0, c, [], 0.0, False, not blob.touches_edge,
                                           "obstruction"))
                continue
            label, conf, cands = self.read_face(img, face)
            if blob.outside and label is None:
                # off the felt, a die-sized thing that shows no face we know (a player's
                # arm on the rail, a chip): not the game's business
                continue
            if cocked:
                label, conf = None, min(conf, 0.2)
            # the top face sits one die higher than the felt: pull it back towards the nadir
            n, lens = p.geometry.nadir, p.geometry.lens()
            f = 1.0 / (1.0 + p.geometry.k_side)
            c = lens.to_ideal(np.array([face.center]))[0]
            b = lens.to_image(np.array([[n[0] + (c[0] - n[0]) * f, n[1] + (c[1] - n[1]) * f]]))
            base = (float(b[0, 0]), float(b[0, 1]))
            reading = DieReading(label, conf, face.center, face.corners.tolist(),
                                 face.angle_deg, cocked, not blob.touches_edge, "die", cands,
                                 base)
            if geometry is not None:
                mm = geometry.to_table(np.array([base]))[0]
                reading.table_mm = (float(mm[0]), float(mm[1]))
                reading.zone = geometry.zone_of(mm)
                reading.on_felt = reading.on_felt and geometry.on_felt(mm)
            readings.append(reading)
        return readings
