"""Namaste numeral dice: the number and the die's colour, abstentions, the CLI, the bench."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import cv2
import numpy as np
import pytest

from controller.cli import main
from vision.bench_kinds import KindResult, score
from vision.errors import BadImage, VisionError
from vision.numerals import (
    FACE_AREA_MIN,
    LABELS,
    LOOPS,
    TEMPLATE_FACES,
    TEMPLATE_FONTS,
    NumeralProfile,
    calibrate_numerals,
    default_profile,
    load_numeral_profile,
    loops,
    read_numerals,
)
from vision.scenes_numerals import FACE_LABELS, make_numeral_scene, namaste_dice, render_text


def _die_image(text: str, body=(235, 235, 235), ink=(40, 40, 40), ground=(60, 110, 150),
               side=120, turn=17.0, quarter=0, font=cv2.FONT_HERSHEY_SIMPLEX, slant=0.0,
               frame=(480, 640)) -> np.ndarray:
    """A flat numeral die face seen from above, with a darker rim; the print slanted
    (sheared: an italic font) by slant."""
    img = np.zeros((*frame, 3), np.uint8)
    img[:] = ground
    tex = np.zeros((side, side, 3), np.uint8)
    tex[:] = body
    mask = render_text(text, font, side * (0.3 if text == "1/7" else 0.48), 0.12)
    if slant:
        mh, mw = mask.shape
        pad = int(slant * mh) + 2
        mask = cv2.warpAffine(mask, np.float32([[1, -slant, slant * mh + 1], [0, 1, 0]]),
                              (mw + pad, mh))
    mh, mw = mask.shape
    y0, x0 = (side - mh) // 2, (side - mw) // 2
    region = tex[y0:y0 + mh, x0:x0 + mw].astype(np.float32)
    tex[y0:y0 + mh, x0:x0 + mw] = (region * (1 - mask[:, :, None])
                                   + np.array(ink, np.float32) * mask[:, :, None]).astype(np.uint8)
    tex = np.ascontiguousarray(np.rot90(tex, quarter))
    m = cv2.getRotationMatrix2D((side / 2, side / 2), turn, 1.0)
    m[:, 2] += (frame[1] / 2 - side / 2, frame[0] / 2 - side / 2)
    shape = np.full((side, side), 255, np.uint8)
    face = cv2.warpAffine(tex, m, frame[::-1])
    alpha = cv2.warpAffine(shape, m, frame[::-1])
    img[alpha > 127] = face[alpha > 127]
    cs, _ = cv2.findContours((alpha > 127).astype(np.uint8), cv2.RETR_EXTERNAL,
                             cv2.CHAIN_APPROX_NONE)
    cv2.drawContours(img, cs, -1, tuple(int(c * 0.55) for c in body), max(2, side // 25))
    return cv2.GaussianBlur(img, (0, 0), 1.0)


@pytest.mark.parametrize("text", LABELS)
def test_every_face_of_a_white_die(text):
    out = read_numerals(_die_image(text, quarter=LABELS.index(text) % 4))
    assert [(o.label, o.colour) for o in out] == [(text, "white")], [o.to_json() for o in out]
    assert out[0].confidence >= 0.5
    assert math.hypot(out[0].center[0] - 320, out[0].center[1] - 240) < 8


@pytest.mark.parametrize("text", LABELS)
def test_a_slanted_print_in_a_font_no_template_has_is_read(text):
    # Hershey "plain" is not among the templates' fonts, nor is any slant drawn like this
    out = read_numerals(_die_image(text, font=cv2.FONT_HERSHEY_PLAIN, slant=0.25, turn=-31.0,
                                   quarter=(LABELS.index(text) + 1) % 4))
    assert [o.label for o in out] == [text], [o.to_json() for o in out]


@pytest.mark.parametrize("side", [40, 150, 360])
def test_small_and_large_dice_are_read(side):
    # a large die is found on a coarse level and read on a finer one; a small one at full size
    img = _die_image("6", side=side, turn=44.0, frame=(720, 960))
    out = read_numerals(img)
    assert [o.label for o in out] == ["6"], [o.to_json() for o in out]
    assert math.hypot(out[0].center[0] - 480, out[0].center[1] - 360) < 0.1 * side


def _small_die_on_felt(text: str, side: int, depth: int, seed: int, quarter: int) -> np.ndarray:
    """A small die whose print is depth grey levels under its body, on a green felt whose
    fibres run 6 grey levels (sigma) and a sensor's noise of 2."""
    ground = (70, 120, 60)
    img = _die_image(text, body=(200, 200, 200), ink=(200 - depth,) * 3, ground=ground,
                     side=side, turn=20.0, quarter=quarter, frame=(200, 260)).astype(np.float32)
    rng = np.random.default_rng(seed)
    fibre = cv2.GaussianBlur(rng.normal(0, 1, img.shape[:2]).astype(np.float32), (0, 0), 0.8)
    felt = np.all(np.abs(img - ground) < 30, axis=2)
    img[felt] += (6 * fibre / fibre.std())[felt, None]
    img += rng.normal(0, 2, img.shape)
    return np.clip(img + 0.5, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("side", [34, 40])
def test_a_small_die_with_a_shallow_print_on_felt_is_read(side):
    # the print 70 grey levels deep, blurred on strokes 1-2 px wide to under 4 times the felt's
    # texture and 0.3 of the body: found against the die's own smooth body (`local_texture`)
    for i, text in enumerate(LABELS):
        out = read_numerals(_small_die_on_felt(text, side, 70, i, i % 4))
        assert all(o.label in (text, None) for o in out), [o.to_json() for o in out]
        if text in ("2", "6"):
            assert [o.label for o in out] == [text], [o.to_json() for o in out]


@pytest.mark.parametrize("squash", [1 / 1.35, 1.3])
def test_a_face_foreshortened_by_a_tilted_camera_is_read(squash):
    # a square face turned on the table, seen at a slant: a parallelogram, made square again
    img = _die_image("5", turn=25.0, frame=(480, 640))
    img = cv2.resize(img, (640, round(480 * squash)), interpolation=cv2.INTER_AREA)
    out = read_numerals(img)
    assert [o.label for o in out] == ["5"], [o.to_json() for o in out]


def test_a_face_squashed_as_a_side_face_is_not_read():
    # twice as long one way as the other: a side face's slant, no top face's
    img = _die_image("5", turn=25.0, frame=(480, 640))
    out = read_numerals(cv2.resize(img, (640, 240), interpolation=cv2.INTER_AREA))
    assert [o.label for o in out if o.label is not None] == [], [o.to_json() for o in out]


def test_each_label_has_its_loops_and_a_6_is_no_3():
    # the topology of the prints in the template fonts, and in a font no template has
    for font, weight in TEMPLATE_FONTS + TEMPLATE_FACES + ((cv2.FONT_HERSHEY_PLAIN, 0.1),):
        for lab in LABELS:
            assert loops(render_text(lab, font, 40, weight)) in LOOPS[lab], (lab, font)
    six = render_text("6", "dejavusans", 40, 0.0)
    assert loops(six) == 1 and 1 not in LOOPS["3"] and 1 not in LOOPS["5"]
    assert loops(np.zeros((10, 10), np.float32)) == 0


def test_a_top_face_filled_over_its_rounded_edge_into_a_side_face_is_cut_at_the_edge():
    # no dark rim: the lamp lights the rounded edge and the side face nearly as the top face
    # (a tilted camera shows the side face large), so the first fill takes both, a squat
    # rectangle that still passes as a square; tighter, it stops at the edge: the top face
    img = np.zeros((480, 640, 3), np.uint8)
    img[:] = (60, 110, 150)
    top, side = 235, 212
    img[180:300, 260:380] = top
    img[300:330, 260:380] = side
    img[296:304, 260:380] = np.linspace(top, side, 8).astype(np.uint8)[:, None, None]
    for text, cy, h, squash, body in (("2", 240, 58, 1.0, top), ("4", 316, 40, 0.3, side)):
        t = render_text(text, cv2.FONT_HERSHEY_SIMPLEX, h, 0.12)
        t = cv2.resize(t, (t.shape[1], max(2, int(t.shape[0] * squash))),
                       interpolation=cv2.INTER_AREA)
        y0, x0 = cy - t.shape[0] // 2, 320 - t.shape[1] // 2
        img[y0:y0 + t.shape[0], x0:x0 + t.shape[1]] = (body * (1 - t[..., None])
                                                       + 40 * t[..., None]).astype(np.uint8)
    out = [o for o in read_numerals(cv2.GaussianBlur(img, (0, 0), 1.0)) if o.label]
    assert [o.label for o in out] == ["2"], [o.to_json() for o in out]
    assert math.hypot(out[0].center[0] - 320, out[0].center[1] - 240) < 6, out[0].to_json()
    assert out[0].size_px < 1.1 * 120 / 0.88, out[0].to_json()  # the top face's, not both's


def _print_on_turquoise(m: np.ndarray, blur: float, noise: float = 0.0, jpeg: int | None = None,
                       face_side: int = 110) -> np.ndarray:
    """The ink mask (float, 1 = ink) printed on the turquoise die's face on green felt,
    blurred, with a sensor's noise and JPEG."""
    img = np.zeros((360, 360, 3), np.float32)
    img[:] = (60, 110, 40)
    lo = 180 - face_side // 2
    img[lo:lo + face_side, lo:lo + face_side] = (200, 190, 60)
    y0, x0 = 180 - m.shape[0] // 2, 180 - m.shape[1] // 2
    region = img[y0:y0 + m.shape[0], x0:x0 + m.shape[1]]
    region[:] = region * (1 - m[..., None]) + 40 * m[..., None]
    img = cv2.GaussianBlur(img, (0, 0), blur)
    img += np.random.default_rng(3).normal(0, noise, img.shape)
    img = np.clip(img, 0, 255).astype(np.uint8)
    if jpeg:
        img = cv2.imdecode(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, jpeg])[1], 1)
    return img


@pytest.mark.parametrize("face, fade, blur, noise, jpeg", [
    ("noto_sans", 0.85, 0.8, 0, None), ("dejavusans_bold", 0.7, 0.8, 0, None),
    ("liberationsans_regular", 0.85, 0.8, 0, None), ("dejavusans_bold", 0.85, 0.8, 0, 70),
    ("liberationserif_regular", 0.75, 1.2, 5, 70), ("dejavusans", 0.6, 1.2, 5, None)])
def test_a_6_whose_loop_is_faded_in_the_ink_is_no_5(face, fade, blur, noise, jpeg):
    # the loop's left side and the stem's join faded by a highlight (the judge's turquoise
    # "6" read as a 3, and these as a 5 at 0.69-0.76 before `faint_ink`): cut at mid-grey
    # the loop is open, a faint stroke that blur does not explain closes it; a 6 or
    # nothing, never a 3 or a 5
    m = np.pad(render_text("6", face, 30, 0.0), 6)
    cs, hier = cv2.findContours((m > 0.5).astype(np.uint8), cv2.RETR_CCOMP,
                                cv2.CHAIN_APPROX_NONE)
    hole = max((c for c, h in zip(cs, hier[0], strict=True) if h[3] >= 0),
               key=cv2.contourArea).reshape(-1, 2).mean(0)
    cut = np.zeros_like(m)
    cv2.line(cut, tuple(int(v) for v in hole), (0, int(hole[1])), 1.0, 7)
    out = read_numerals(_print_on_turquoise(m * (1 - fade * cut), blur, noise, jpeg))
    assert out and all(o.label in (None, "6") for o in out), [o.to_json() for o in out]


@pytest.mark.parametrize("text, face, height, blur, noise, jpeg", [
    ("5", "dejavusans_bold", 22, 0.8, 6, None), ("5", "dejavusans_bold", 30, 0.8, 0, None),
    ("5", "liberationserif_bold", 16, 0.8, 0, None), ("5", cv2.FONT_HERSHEY_DUPLEX, 24, 1.0, 0, None),
    ("3", "dejavusans_bold", 30, 0.8, 0, None), ("3", "liberationserif_bold", 22, 1.3, 6, 60),
    ("5", "noto_sans", 22, 1.3, 6, 60)])
def test_a_bold_blurred_5_or_3_whose_mouth_blur_nearly_closes_is_read(text, face, height, blur,
                                                                      noise, jpeg):
    # the blur's grey halo in a bold 5's or 3's narrow mouth is no faint stroke: the test
    # that catches a faded 6 explains it by the print's own blur. The face is 2.5 times the
    # print as drawn (the scenes print 0.4-0.55 of the side), and the reading is of that
    # face, not of a patch inside the print's strokes (a Hershey duplex 5 drawn 13 px tall
    # on a face 4.5 times that, under the 0.25 a print must be of its face, was read on a
    # 16 px patch; under a blur of 1.3 px its mouth closes: a 6 for all the print shows)
    weight = 0.13 if isinstance(face, int) else 0.03
    m = np.pad(render_text(text, face, height, weight), 6)
    side = int((m.shape[0] - 12) * 2.5)
    out = read_numerals(_print_on_turquoise(m, blur, noise, jpeg, face_side=side))
    assert [o.label for o in out] == [text], [o.to_json() for o in out]
    assert 0.8 * side <= out[0].size_px <= 1.4 * side, [o.to_json() for o in out]


@pytest.mark.parametrize("text, face, height, blur", [
    ("5", "dejavusans_bold", 12, 0.8), ("3", "dejavusans_bold", 12, 0.8),
    ("3", "noto_sans", 11, 0.8), ("5", "dejavusans", 11, 0.9)])
def test_a_3_or_5_too_small_for_its_blur_to_show_a_6s_loop_is_not_read(text, face, height,
                                                                       blur):
    # the judge's turquoise 6, its numeral about 10 px tall, read as a 3: at such a size and
    # blur a 6's loop closes (drawn in Hershey duplex it has none under the mid-grey cut),
    # so a print with no loop is no 3 or 5 for sure (these read as such at 0.67-0.76 before
    # the rule); twice as large, under the same blur, it is read
    six = cv2.GaussianBlur(200 - 160 * np.pad(render_text("6", cv2.FONT_HERSHEY_DUPLEX, 12,
                                                          0.13), 6), (0, 0), 0.8)
    assert loops((six < (np.percentile(six, 75) + np.percentile(six, 3)) / 2).astype(
        np.float32)) == 0
    for h, read in ((height, None), (2 * height, text)):
        m = np.pad(render_text(text, face, h, 0.0), 6)
        out = read_numerals(_print_on_turquoise(m, blur, 3, 85, face_side=int(h * 2.3)))
        assert [o.label for o in out] == [read], [o.to_json() for o in out]
        if read is None:  # read enlarged (`READ_MIN_PX`), the 6 may be near enough first
            assert ("too small for its blur" in out[0].why or "like no numeral" in out[0].why
                    ), out[0].why


def test_no_region_smaller_than_face_area_min_is_taken_for_a_face():
    # grow_face passes over fills whose box is under FACE_AREA_MIN print heights squared
    # unoutlined: that must be a bound of what _square_face takes, squares as seen and
    # parallelograms seen at a slant alike, at the largest print a face may hold
    from vision.numerals import _square_face

    rng = np.random.default_rng(7)
    taken = 0
    for _ in range(400):
        side, squash, turn, shear = (rng.uniform(10, 80), rng.uniform(0.7, 1.0),
                                     rng.uniform(0, 90), rng.uniform(-0.3, 0.3))
        sq = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64) * side / 2
        a = math.radians(turn)
        m = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]) @ np.array(
            [[1, shear], [0, squash]])
        hull = (sq @ m.T + 200).astype(np.float32).reshape(-1, 1, 2)
        gh = side * rng.uniform(0.6, 0.85)
        if _square_face(hull, gh, (200.0, 200.0)) is None:
            continue
        taken += 1
        x, y, w, h = cv2.boundingRect(hull)
        assert w * h >= FACE_AREA_MIN * gh * gh, (side, squash, shear, gh)
    assert taken >= 20


def test_a_face_run_into_a_surround_of_its_colour_is_never_misplaced():
    # a sheet of the die's own colour touching it: wherever a label is given, it is on the die
    img = _die_image("5", turn=0.0)
    img[120:420, 380:600] = (235, 235, 235)
    out = read_numerals(img)
    for o in out:
        if o.label is not None:
            assert o.label == "5" and math.hypot(o.center[0] - 320, o.center[1] - 240) < 15, \
                o.to_json()


def test_a_side_face_beside_its_top_face_cut_by_the_frame_is_not_read():
    # a die at the frame's right edge: its bright top face mostly out of the picture, its
    # darker side face (showing "4") towards the middle
    side = 110
    img = _die_image("4", body=(140, 140, 140), side=side, turn=0.0, frame=(480, 640))
    img = np.ascontiguousarray(img[:, 320 - side // 2 - 200:320 + side // 2 + 75])
    h, w = img.shape[:2]
    img[240 - side // 2:240 + side // 2, w - 72:] = (235, 235, 235)  # the top face, cut
    assert all(o.label is None for o in read_numerals(img))
    # the same face with no brighter face beside it is a die's top face and read
    lone = _die_image("4", body=(140, 140, 140), side=side, turn=0.0)
    assert [o.label for o in read_numerals(lone)] == ["4"]


def _face_print(text: str, w: int, h: int, body: tuple, blur: float = 0.0) -> np.ndarray:
    """A face w x h (foreshortened when h < w) of body colour with text printed, blurred."""
    tex = np.zeros((60, 60, 3), np.uint8)
    tex[:] = body
    m = render_text(text, cv2.FONT_HERSHEY_SIMPLEX, 60 * 0.48, 0.12)
    mh, mw = m.shape
    y0, x0 = (60 - mh) // 2, (60 - mw) // 2
    r = tex[y0:y0 + mh, x0:x0 + mw].astype(np.float32)
    tex[y0:y0 + mh, x0:x0 + mw] = (r * (1 - m[:, :, None]) + 40 * m[:, :, None]).astype(np.uint8)
    if blur:
        tex = cv2.GaussianBlur(tex, (0, 0), blur)
    return cv2.resize(tex, (w, h), interpolation=cv2.INTER_AREA)


def _die_and_side_face(top_face: np.ndarray | None, top: int = 40) -> np.ndarray:
    """A turquoise die's top face (60 px, `top_face` or a blank patch of its colour) from row
    `top`, and below it its side face showing a 3 (squashed, darker), on a blue table."""
    img = np.zeros((480, 640, 3), np.uint8)
    img[:] = (60, 110, 150)
    img[top:top + 60, 60:120] = (215, 205, 60) if top_face is None else top_face
    img[top + 60:top + 105, 60:120] = _face_print("3", 60, 45, (185, 178, 52))
    cv2.rectangle(img, (59, top - 1), (120, top + 105), (30, 50, 70), 2)
    return cv2.GaussianBlur(img, (0, 0), 0.8)


@pytest.mark.parametrize("top_blur", [2.0, 3.0, 5.0])
def test_a_side_face_beside_its_top_face_not_read_is_not_read(top_blur):
    # the judge's turquoise 6 (session 14): a die near the frame's corner, its top face's 6
    # too blurred to be found (3, 5 px) or found round its print only (2 px: 32 px against
    # the side face's 55, and read), its side face's 3 (squashed, darker) towards the middle
    # read as the die's number at 0.82 before; a side face beside a top face of its colour
    # with a print on it is not read
    seen = read_numerals(_die_and_side_face(_face_print("6", 60, 60, (215, 205, 60), top_blur)))
    assert all(o.label in (None, "6") for o in seen), [o.to_json() for o in seen]
    # beside a blank patch of its colour (no print: no face) the same face is read
    assert [o.label for o in read_numerals(_die_and_side_face(None))] == ["3"]


@pytest.mark.parametrize("top_blur", [2.0, 3.0, 5.0])
def test_with_the_nadir_a_side_face_away_from_the_middle_is_not_read(top_blur):
    # a camera tilted towards the frame's top: its nadir below the frame, side faces showing
    # on the dice's sides towards it, here away from the picture's middle, where the rules
    # without a nadir do not look for a side face (they read its 3); given the nadir, the
    # side face beside its top face (the 6, too blurred to be found or found round its print)
    # is not read; beside a blank patch of its colour it is read either way
    from vision.nadir import Nadir

    nadir = Nadir((320.0, 900.0), 50.0)
    img = _die_and_side_face(_face_print("6", 60, 60, (215, 205, 60), top_blur), top=330)
    assert [o.label for o in read_numerals(img)] == ["3"]  # what the picture alone tells
    seen = read_numerals(img, nadir=nadir)
    assert all(o.label in (None, "6") for o in seen), [o.to_json() for o in seen]
    assert [o.label for o in read_numerals(_die_and_side_face(None, top=330), nadir=nadir)] == ["3"]


def test_the_turquoise_die_is_told_by_its_colour():
    turquoise = next(d for d in namaste_dice() if d.colour == "turquoise")
    out = read_numerals(_die_image("4", body=turquoise.body_bgr, ground=(200, 200, 205),
                                   turn=-25.0))
    assert [(o.label, o.colour) for o in out] == [("4", "turquoise")]


@pytest.mark.parametrize(("colour", "gain", "read_as"), [
    ("turquoise", 2.2, {None, "turquoise"}),  # blue and green clipped, red not (the judge's)
    ("turquoise", 4.0, {None, "turquoise"}),  # blue and green clipped, red nearly
    ("turquoise", 4.6, {None, "turquoise"}),  # clipped in all three (read white before)
    ("white", 1.2, {"white"}),                # clipped in all three, its print dark: white
    ("white", 2.0, {"white"}),                # so, twice too bright (its print's floor 80)
    ("white", 1.07, {"white"}),               # blue clipped under a cold lamp, not red
])
def test_a_die_whose_body_is_clipped_is_not_read_as_a_colour_it_cannot_be(colour, gain, read_as):
    """A clipped channel is paler than the die: the turquoise die with blue and green at 255
    reads nearer white (the judge's, at 0.87): it is read only as a colour that can have made
    what the clipped channels show; a body clipped in all three is only read where its
    print's floor shows too little light for the other colour to clip (else no colour: the
    engine abstains on the die). The die is drawn, then brightened and clipped as a sensor
    does."""
    die = next(d for d in namaste_dice() if d.colour == colour)
    body = die.body_bgr if colour == "turquoise" else (235, 228, 215)
    img = _die_image("4", body=body, ground=(90, 100, 95), turn=-25.0).astype(np.float32)
    if colour == "white" and gain < 1.1:
        img *= np.float32([1.1, 1.0, 0.95])
    img = np.clip(img * gain, 0, 255).astype(np.uint8)
    out = read_numerals(img)
    assert [o.label for o in out] == ["4"]
    assert out[0].colour in read_as


@pytest.mark.parametrize("gain", [4.3, 4.6])
def test_a_turquoise_die_clipped_in_all_three_channels_is_told_by_its_prints_rim(gain):
    """The body is (255, 255, 255), but the lens blurred the print into it before the sensor
    clipped: the rim's pixels clipped in no channel blend the ink into the true turquoise
    (`rim_colour`). Under JPEG, whose halved chroma mixes the rim with the clipped grey body
    after the sensor, it may be told or not, never white; a white die so bright (its print
    lifted as far), with a cold lamp's tint, or printed in dark red, is never told
    turquoise."""
    die = next(d for d in namaste_dice() if d.colour == "turquoise")
    img = _die_image("4", body=die.body_bgr, ground=(90, 100, 95), turn=-25.0).astype(np.float32)
    clipped = np.clip(img * gain, 0, 255).astype(np.uint8)
    face = clipped[200:280, 280:360].reshape(-1, 3)
    assert (np.percentile(face, 60, 0) == 255).all()  # the body clipped in all three
    out = read_numerals(clipped)
    assert [(o.label, o.colour) for o in out] == [("4", "turquoise")], [o.to_json() for o in out]
    for q in (60, 80):
        jpeg = cv2.imdecode(cv2.imencode(".jpg", clipped, [cv2.IMWRITE_JPEG_QUALITY, q])[1], 1)
        out = read_numerals(jpeg)
        assert [o.label for o in out] == ["4"] and out[0].colour in (None, "turquoise")
    white = _die_image("4", body=(235, 228, 215), ink=(100, 100, 100), ground=(90, 100, 95),
                       turn=-25.0).astype(np.float32) * np.float32([1.0, 1.0, 0.8])
    for g in (1.6, 2.2):
        out = read_numerals(np.clip(white * g, 0, 255).astype(np.uint8))
        assert [o.label for o in out] == ["4"] and out[0].colour in (None, "white")
    # a print of dark red (away from turquoise) pulls the rim towards turquoise: no proof
    red = _die_image("4", body=(235, 235, 235), ink=(60, 60, 150), ground=(90, 100, 95),
                     turn=-25.0).astype(np.float32) * np.float32([1.0, 1.0, 0.85])
    for g in (1.8, 2.2):
        out = read_numerals(np.clip(red * g, 0, 255).astype(np.uint8))
        assert [o.label for o in out] == ["4"] and out[0].colour in (None, "white")


def _two_dice(white_gain: float, turquoise: bool, apart: int = 300) -> np.ndarray:
    """A white die printed faded (grey ink) brightened by white_gain and clipped, and, where
    turquoise, the turquoise die in ordinary light apart px to its right."""
    img = np.zeros((480, 640, 3), np.uint8)
    img[:] = (90, 100, 95)
    white = _die_image("4", body=(235, 228, 215), ink=(140, 140, 140), ground=(90, 100, 95),
                       turn=-25.0, frame=(160, 160)).astype(np.float32)
    img[160:320, 80:240] = np.clip(white * white_gain, 0, 255).astype(np.uint8)
    if turquoise:
        die = next(d for d in namaste_dice() if d.colour == "turquoise")
        img[160:320, 80 + apart:240 + apart] = _die_image(
            "3", body=die.body_bgr, ground=(90, 100, 95), turn=10.0, frame=(160, 160))
    return img


def test_a_clipped_white_die_beside_the_turquoise_die_read_is_white():
    # a white die's body clipped in all three channels over a faded print (its floor 150: a
    # turquoise die under a tinted lamp and a veil could clip over it too) has no colour
    # alone; the set has one turquoise die, and where it is read (unclipped) elsewhere in
    # the frame, the clipped die is the other colour it can be (dev 23261155, 23261169, ...)
    alone = read_numerals(_two_dice(1.2, False))
    assert [(o.label, o.colour) for o in alone] == [("4", None)], [o.to_json() for o in alone]
    out = sorted(read_numerals(_two_dice(1.2, True)), key=lambda o: o.center[0])
    assert [(o.label, o.colour) for o in out] == [("4", "white"), ("3", "turquoise")], [
        o.to_json() for o in out]


def test_a_blank_face_and_a_bare_table_are_not_read():
    plain = np.full((480, 640, 3), (60, 110, 150), np.uint8)
    assert read_numerals(plain) == []
    # a die showing a symbol that is no numeral: abstained on, never guessed
    out = read_numerals(_die_image("#"))
    assert all(o.label is None for o in out), [o.to_json() for o in out]


def test_bad_input_is_refused_with_what_is_expected():
    with pytest.raises(BadImage, match="BGR colour image"):
        read_numerals(np.zeros((10, 10), np.uint8))


def test_profiles_round_trip_and_bad_ones_are_refused(tmp_path):
    prof = default_profile()
    assert set(prof.colours) == {"turquoise", "white"}
    path = tmp_path / "numerals.json"
    path.write_text(json.dumps(prof.to_json()))
    assert load_numeral_profile(path).colours.keys() == prof.colours.keys()
    path.write_text(json.dumps({"kind": "numerals", "colours": {"white": [1, 1, 1]}}))
    with pytest.raises(VisionError, match="two colours or more"):
        load_numeral_profile(path)
    with pytest.raises(VisionError, match="cannot read"):
        load_numeral_profile(tmp_path / "missing.json")
    # a calibrated profile decides the colour: one that says the white die is turquoise-ish
    swapped = NumeralProfile({"white": prof.colours["turquoise"],
                              "turquoise": prof.colours["white"]})
    out = read_numerals(_die_image("3"), swapped)
    assert [o.colour for o in out] == ["turquoise"]


def test_generated_scenes_no_confident_error_most_read():
    res = KindResult("test")
    for seed in range(600, 614):
        scene = make_numeral_scene(seed, held_out=seed % 2 == 1)
        score(res, scene.dice, read_numerals(scene.image), scene.hard, seed)
    assert res.dice >= 20
    assert res.confident_errors == 0, res.errors
    assert res.right >= 0.7 * res.dice, res.summary()


def test_development_scenes_lay_dice_on_rough_textiles_too():
    # felt of loose fibres and woven cloth whose threads show, in development frames only
    from vision.scenes_common import ROUGH_SURFACES, surface

    dev = {make_numeral_scene(s, hard=False, n_dice=1).surface for s in range(6)}
    assert set(ROUGH_SURFACES) <= dev
    assert not {make_numeral_scene(s, held_out=True, n_dice=1).surface
                for s in range(12)} & set(ROUGH_SURFACES)
    for kind in ROUGH_SURFACES:
        a = surface(np.random.default_rng(5), kind, (200, 240), 60.0)
        b = surface(np.random.default_rng(5), kind, (200, 240), 60.0)
        assert a.shape == (200, 240, 3) and a.dtype == np.float32 and np.array_equal(a, b)
        assert 0 <= a.min() and a.max() <= 1
        # texture at the scale of a fibre or a thread, not a flat colour
        grey = a.mean(2)
        fine = grey - cv2.GaussianBlur(grey, (0, 0), 4.0)
        assert float(fine.std()) > 0.01 * float(grey.mean()), kind


def test_scenes_use_the_set_from_equipment_and_are_deterministic():
    a, b = make_numeral_scene(11), make_numeral_scene(11)
    assert np.array_equal(a.image, b.image) and a.dice == b.dice
    assert {d.colour for d in namaste_dice()} == {"turquoise", "white"}
    assert set(FACE_LABELS.values()) == set(LABELS)
    assert all(t.colour in ("turquoise", "white") and t.label in LABELS for t in a.dice)


def test_recognize_kind_numerals_json(tmp_path, capsys):
    path = tmp_path / "die.png"
    cv2.imwrite(str(path), _die_image("1/7"))
    assert main(["recognize", "--kind", "numerals", str(path), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out.strip())
    assert obj["image"] == str(path)
    assert [(o["kind"], o["label"], o["colour"]) for o in obj["objects"]] == [
        ("numerals", "1/7", "white")]
    assert set(obj["objects"][0]) >= {"kind", "label", "confidence", "center"}


@pytest.mark.slow
def test_bench_vision_kind_numerals_quick(capsys):
    assert main(["bench", "vision", "--kind", "numerals", "--dice", "10", "--json"]) == 0
    out = json.loads(capsys.readouterr().out.strip())
    assert set(out) == {"dev", "heldout"}
    for s in out.values():
        assert s["dice"] >= 10 and s["kind"] == "numerals" and s["latency_ms_median"] > 0


def test_calibrate_kind_numerals_learns_the_colours_and_recognize_uses_them(tmp_path, capsys):
    turquoise = next(d for d in namaste_dice() if d.colour == "turquoise")
    caps = tmp_path / "caps"
    for colour, body in (("turquoise", turquoise.body_bgr), ("white", (235, 235, 235))):
        (caps / colour).mkdir(parents=True)
        for i, text in enumerate(("2", "5")):
            cv2.imwrite(str(caps / colour / f"{i}.png"), _die_image(text, body=body))
    out = tmp_path / "numerals.json"
    assert main(["calibrate", "--kind", "numerals", "--captures", str(caps), "--out", str(out),
                 "--json"]) == 0
    rep = json.loads(capsys.readouterr().out.strip())
    assert rep["faces"] == {"turquoise": 2, "white": 2}
    prof = load_numeral_profile(out)
    assert prof.colours["turquoise"][2] < prof.colours["white"][2]  # less red
    img = tmp_path / "t.png"
    cv2.imwrite(str(img), _die_image("6", body=turquoise.body_bgr))
    assert main(["recognize", "--kind", "numerals", "--profile", str(out), str(img),
                 "--json"]) == 0
    obj = json.loads(capsys.readouterr().out.strip())
    assert [(o["label"], o["colour"]) for o in obj["objects"]] == [("6", "turquoise")]


def test_calibration_refuses_a_capture_of_another_colours_die_naming_it():
    turquoise = next(d for d in namaste_dice() if d.colour == "turquoise").body_bgr
    white = (235, 235, 235)
    caps = {"turquoise": [(f"turquoise/{t}.png", _die_image(t, body=turquoise))
                          for t in ("2", "5", "6")],
            "white": [(f"white/{t}.png", _die_image(t, body=white)) for t in ("3", "4")]}
    profile, report = calibrate_numerals(caps)
    assert report["faces"] == {"turquoise": 3, "white": 2}
    caps["turquoise"].append(("turquoise/oops.png", _die_image("4", body=white)))
    with pytest.raises(VisionError, match="turquoise/oops.png: this capture of the turquoise "
                                          "die shows the white die"):
        calibrate_numerals(caps)


def test_two_touching_top_faces_lit_apart_near_the_middle_are_both_read():
    # two white dice side by side in the picture's middle, one 15% darker (a worn die, an
    # uneven lamp): too near the middle for either to be the other's side face
    img = np.zeros((480, 640, 3), np.uint8)
    img[:] = (60, 110, 150)
    for x0, body, text in ((210, (235, 235, 235), "3"), (322, (200, 200, 200), "5")):
        die = _die_image(text, body=body, side=110, turn=0.0, frame=(110, 110), ground=body)
        img[185:295, x0:x0 + 110] = die
        cv2.rectangle(img, (x0, 185), (x0 + 109, 294), tuple(int(c * 0.55) for c in body), 3)
    out = read_numerals(cv2.GaussianBlur(img, (0, 0), 1.0))
    assert sorted(o.label for o in out) == ["3", "5"], [o.to_json() for o in out]


def test_a_turquoise_die_touching_a_white_one_near_the_frame_s_edge_is_read():
    # the turquoise die's top face beside a white die's, towards the picture's middle and as
    # near it as a side face would be (a tilted camera draws touching dice closer than a
    # side apart): a die's side face is its top face's colour, so the two are two dice
    # (dev 23261143, 23261157: the turquoise top face was dropped as the white die's side)
    img = np.zeros((480, 640, 3), np.uint8)
    img[:] = (60, 110, 150)
    for k, (body, text) in enumerate((((190, 200, 60), "3"), ((235, 235, 235), "4"))):
        x = 470 + k * 64
        die = _die_image(text, body=body, side=72, turn=0.0, frame=(72, 72), ground=body)
        img[330:402, x:x + 72] = die
        cv2.rectangle(img, (x, 330), (x + 71, 401), tuple(int(c * 0.55) for c in body), 3)
    out = read_numerals(cv2.GaussianBlur(img, (0, 0), 1.0))
    assert sorted((o.label, o.colour) for o in out) == [("3", "turquoise"), ("4", "white")], [
        o.to_json() for o in out]


def test_a_top_face_beside_a_table_of_its_colour_square_to_the_middle_is_read():
    # dev 23261146: a white die's 6 on white paper near the frame's corner, its side faces
    # towards the middle; its upper side lies square to the way from the middle (a pixel
    # farther from it than the face's centre), so no side face shows there and beyond it is
    # the paper (with the side face's print and the die's shadow at its edge): it was taken
    # for the die's unread top face and the 6 dropped as a side face
    scene = make_numeral_scene(23261146, hard=False)
    die = next(t for t in scene.dice if t.label == "6" and t.center[0] > 1000)
    out = read_numerals(scene.image)
    near = [o for o in out if math.hypot(o.center[0] - die.center[0],
                                         o.center[1] - die.center[1]) < 0.35 * die.side_px]
    assert [(o.label, o.colour) for o in near] == [("6", "white")], [o.to_json() for o in out]


def test_calibrate_kind_numerals_refuses_unknown_colours(tmp_path, capsys):
    for colour in ("white", "purple"):
        (tmp_path / colour).mkdir()
        cv2.imwrite(str(tmp_path / colour / "a.png"), _die_image("3"))
    assert main(["calibrate", "--kind", "numerals", "--captures", str(tmp_path), "--out",
                 str(tmp_path / "p.json")]) == 1
    assert "unknown die colour 'purple'" in capsys.readouterr().err
    assert not (tmp_path / "p.json").exists()


def test_a_face_abstained_on_does_not_hide_the_print_alone_on_it(monkeypatch):
    # three dice seen small (a dev scene at half size, noise and JPEG again), their side
    # faces lit nearly as their top faces: the "1/7"s' ink joined with a side face's numeral
    # grows a face over the die's edge, abstained on; the print's own pieces, tried alone,
    # find the top face (the scene as drawn before session 17 overexposed it)
    import vision.scenes_numerals as sn

    monkeypatch.setattr(sn, "OVEREXPOSED_SHARE", 0.0)
    scene = make_numeral_scene(23261243, hard=bool(np.random.default_rng(23261243).random() < 0.3))
    rng = np.random.default_rng(23261243)
    img = cv2.resize(scene.image, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA).astype(
        np.float32)
    img = np.clip(img + rng.normal(0, rng.uniform(1, 4), img.shape), 0, 255).astype(np.uint8)
    img = cv2.imdecode(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY,
                                                  int(rng.integers(75, 92))])[1], 1)
    res = KindResult("test")
    score(res, [replace(t, center=(t.center[0] / 2, t.center[1] / 2), side_px=t.side_px / 2)
                for t in scene.dice], read_numerals(img), scene.hard, 23261243)
    assert (res.dice, res.right, res.confident_errors) == (3, 3, 0), res.summary()


def test_some_hard_development_frames_are_under_a_veil_of_glare(monkeypatch):
    # `_veiled`: in a pool of light the print's black is lifted with its body (the judge's
    # glare); drawn apart, on hard development frames only (held-out ones stay as they were)
    import vision.scenes_numerals as sn

    veiled = [s for s in range(40) if np.random.default_rng([s, 5]).random() < sn.VEIL_SHARE]
    assert 0 < len(veiled) < 40
    seed = veiled[0]
    a = sn.make_numeral_scene(seed, hard=True, n_dice=1)
    b = sn.make_numeral_scene(seed, hard=False, n_dice=1)
    monkeypatch.setattr(sn, "VEIL_SHARE", 0.0)
    clear = sn.make_numeral_scene(seed, hard=True, n_dice=1)
    assert np.array_equal(b.image, sn.make_numeral_scene(seed, hard=False, n_dice=1).image)
    grey = [cv2.cvtColor(x.image, cv2.COLOR_BGR2GRAY).astype(np.float32) for x in (a, clear)]
    lifted = grey[0] - grey[1]
    assert lifted.max() > 40 and np.percentile(grey[0], 5) > np.percentile(grey[1], 5)
    assert a.dice == clear.dice


def test_some_development_frames_are_seen_from_farther():
    # `_farther`: the frame smaller (the dice with it), noise and JPEG again; held-out frames
    # never (their split stays as it was)
    from vision.scenes_common import FRAME_SIZES
    from vision.scenes_numerals import FAR_SHARE, _farther

    far = [s for s in range(40) if np.random.default_rng([s, 4]).random() < FAR_SHARE]
    assert 0 < len(far) < 40
    near = make_numeral_scene(far[0], held_out=True, n_dice=2)
    assert near.image.shape[1::-1] in FRAME_SIZES
    small = _farther(near, np.random.default_rng(1))
    f = small.image.shape[1] / near.image.shape[1]
    assert 0.45 <= f <= 0.8 and small.image.dtype == np.uint8
    for a, b in zip(near.dice, small.dice, strict=True):
        assert b.side_px == pytest.approx(a.side_px * f, rel=0.02)
        assert b.center[0] == pytest.approx((a.center[0] + 0.5) * f - 0.5, abs=1.0)
        assert (b.label, b.colour) == (a.label, a.colour)
    assert make_numeral_scene(far[0], n_dice=1).image.shape[1::-1] not in FRAME_SIZES
    # the camera's nadir and the table's homography (image px -> mm) in the smaller pixels
    assert small.nadir[0] == pytest.approx((near.nadir[0] + 0.5) * f - 0.5, abs=1.0)
    fy = small.image.shape[0] / near.image.shape[0]
    for (x, y) in ((0.0, 0.0), (near.image.shape[1] - 1.0, near.image.shape[0] / 2)):
        a = near.table_h @ [x, y, 1.0]
        b = small.table_h @ [(x + 0.5) * f - 0.5, (y + 0.5) * fy - 0.5, 1.0]
        assert a[:2] / a[2] == pytest.approx(b[:2] / b[2], abs=0.01)


def test_some_development_dice_are_printed_faded(monkeypatch):
    # `_faded`: worn or grey ink, its contrast with the body a share of the dark ink's (the
    # judge's prints 25-33 grey levels deep); drawn apart, on development dice only
    import vision.scenes_numerals as sn

    seed = 3
    monkeypatch.setattr(sn, "FADED_SHARE", 0.0)
    dark = sn.make_numeral_scene(seed, hard=False, n_dice=1)
    held = sn.make_numeral_scene(seed, held_out=True, hard=False, n_dice=1)
    monkeypatch.setattr(sn, "FADED_SHARE", 1.0)
    faded = sn.make_numeral_scene(seed, hard=False, n_dice=1)
    assert np.array_equal(held.image, sn.make_numeral_scene(seed, held_out=True, hard=False,
                                                            n_dice=1).image)
    assert faded.dice == dark.dice
    t = dark.dice[0]
    x, y, r = int(t.center[0]), int(t.center[1]), int(0.3 * t.side_px)
    grey = [cv2.cvtColor(s.image[y - r:y + r, x - r:x + r], cv2.COLOR_BGR2GRAY).astype(float)
            for s in (dark, faded)]
    depth = [np.percentile(g, 90) - np.percentile(g, 2) for g in grey]
    assert depth[1] < 0.75 * depth[0], depth


def test_some_development_frames_are_overexposed(monkeypatch):
    # `_overexposed`: a lamp too bright for the exposure, the sensor clipped (a white die's
    # body at 255 in every channel); drawn apart, on development frames only
    import vision.scenes_numerals as sn

    bright = [s for s in range(60) if np.random.default_rng([s, 7]).random() < sn.OVEREXPOSED_SHARE]
    assert 0 < len(bright) < 45
    seed = bright[0]
    a = sn.make_numeral_scene(seed, hard=True, n_dice=2)
    held = sn.make_numeral_scene(seed, held_out=True, hard=True, n_dice=2)
    ordinary = sn.make_numeral_scene(seed, hard=False, n_dice=2)  # a capture's light: never
    monkeypatch.setattr(sn, "OVEREXPOSED_SHARE", 0.0)
    plain = sn.make_numeral_scene(seed, hard=True, n_dice=2)
    assert np.array_equal(held.image, sn.make_numeral_scene(seed, held_out=True, hard=True,
                                                            n_dice=2).image)
    assert np.array_equal(ordinary.image, sn.make_numeral_scene(seed, hard=False, n_dice=2).image)
    assert a.dice == plain.dice
    grey = [cv2.cvtColor(x.image, cv2.COLOR_BGR2GRAY).astype(np.float32) for x in (a, plain)]
    assert grey[0].mean() > 1.3 * grey[1].mean()
    assert (a.image == 255).all(2).mean() > (plain.image == 255).all(2).mean()
