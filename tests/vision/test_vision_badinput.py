"""Bad input: unreadable images and mislabelled capture folders give errors naming the file."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.vision.conftest import SEASONS, SEASONS_STYLE, SEASONS_TABLE
from vision.errors import BadCaptureFolder, BadImage, VisionError
from vision.images import load_captures, read_image
from vision.recognizer import calibrate
from vision.synthetic import make_empty, make_scene


@pytest.fixture(scope="module")
def frame_jpg() -> bytes:
    """One encoded camera frame."""
    return cv2.imencode(".jpg", make_scene(1, n_dice=1).image)[1].tobytes()


def test_errors_share_one_root_that_is_a_value_error():
    assert issubclass(BadImage, VisionError) and issubclass(VisionError, ValueError)


@pytest.mark.parametrize("content,match", [
    (None, "cannot read"), (b"", "empty file"), (b"hello, not an image", "not a readable"),
])
def test_unreadable_image(tmp_path, content, match):
    path = tmp_path / "frame.png"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(BadImage, match=match) as exc:
        read_image(path)
    assert "frame.png" in str(exc.value)


def test_truncated_jpeg_and_png(tmp_path, frame_jpg):
    jpg = tmp_path / "cut.jpg"
    jpg.write_bytes(frame_jpg[: len(frame_jpg) // 2])
    with pytest.raises(BadImage, match="cut.jpg: truncated JPEG"):
        read_image(jpg)
    png_bytes = cv2.imencode(".png", np.zeros((100, 100, 3), np.uint8))[1].tobytes()
    png = tmp_path / "cut.png"
    png.write_bytes(png_bytes[:-20])
    with pytest.raises(BadImage, match="cut.png: truncated PNG"):
        read_image(png)


def _folder(tmp_path, labels, per=1, seed=0):
    """A capture folder with `per` generated captures of each label."""
    for i, lab in enumerate(labels):
        (tmp_path / lab).mkdir(parents=True, exist_ok=True)
        for j in range(per):
            img = make_scene(seed + 10 * i + j, n_dice=1, labels=[lab], style=SEASONS_STYLE,
                             die_set=SEASONS, table=SEASONS_TABLE).image
            cv2.imwrite(str(tmp_path / lab / f"{j}.png"), img)
    return tmp_path


def test_capture_folder_errors(tmp_path):
    with pytest.raises(BadCaptureFolder, match="no such folder"):
        load_captures(tmp_path / "nope", SEASONS.labels)
    with pytest.raises(BadCaptureFolder, match="no label folders"):
        load_captures(tmp_path, SEASONS.labels)
    (tmp_path / "SPRNG").mkdir()
    with pytest.raises(BadCaptureFolder, match="SPRNG.*unknown label"):
        load_captures(tmp_path, SEASONS.labels)
    (tmp_path / "SPRNG").rmdir()
    (tmp_path / "SPRING").mkdir()
    with pytest.raises(BadCaptureFolder, match="no captures for SUMMER"):
        load_captures(tmp_path, SEASONS.labels)
    for lab in SEASONS.labels[1:]:
        (tmp_path / lab).mkdir()
    with pytest.raises(BadCaptureFolder, match="SPRING: holds no images"):
        load_captures(tmp_path, SEASONS.labels)


def test_reading_a_capture_folder_reports_each_file(tmp_path):
    for lab in ("A", "B", "_empty"):
        (tmp_path / lab).mkdir()
        cv2.imwrite(str(tmp_path / lab / "0.png"), np.zeros((64, 64, 3), np.uint8))
    cv2.imwrite(str(tmp_path / "A" / "1.png"), np.zeros((64, 64, 3), np.uint8))
    seen: list[tuple[float, str]] = []
    captures, empty = load_captures(tmp_path, None, lambda f, m: seen.append((f, m)))
    assert [len(v) for v in captures.values()] == [2, 1] and len(empty) == 1
    assert seen == [(0.0, "reading A/0.png"), (0.25, "reading A/1.png"),
                    (0.5, "reading B/0.png"), (0.75, "reading _empty/0.png")]


def test_capture_with_no_die_or_two_dice_is_named(tmp_path, seasons_captures):
    caps = {k: list(v) for k, v in seasons_captures.items()}
    caps["RAIN"][1] = ("RAIN/empty.png", make_empty(3, table=SEASONS_TABLE).image)
    _, report = calibrate(caps, SEASONS.name)  # left out and named; the others suffice
    assert ("RAIN/empty.png", ["die not found"]) in report.flawed
    for j in range(1, 5):  # one capture of RAIN left: too few to learn from
        caps["RAIN"][j] = (f"RAIN/empty{j}.png", make_empty(3 + j, table=SEASONS_TABLE).image)
    with pytest.raises(BadCaptureFolder, match="RAIN/empty1.png: die not found; .*RAIN"):
        calibrate(caps, SEASONS.name)
    caps = {k: list(v) for k, v in seasons_captures.items()}
    two = make_scene(4, n_dice=2, style=SEASONS_STYLE, die_set=SEASONS, table=SEASONS_TABLE)
    caps["STAR"][0] = ("STAR/two.png", two.image)
    _, report = calibrate(caps, SEASONS.name)
    assert ("STAR/two.png", ["2 objects found on the felt"]) in report.flawed
    for j in range(1, 5):
        caps["STAR"][j] = (f"STAR/two{j}.png", make_scene(
            4 + j, n_dice=2, style=SEASONS_STYLE, die_set=SEASONS, table=SEASONS_TABLE).image)
    with pytest.raises(BadCaptureFolder, match="STAR/two.png: 2 objects.*exactly one die"):
        calibrate(caps, SEASONS.name)


def test_unreadable_capture_is_named(tmp_path):
    folder = _folder(tmp_path, SEASONS.labels)
    (folder / "CLOUD" / "bad.png").write_bytes(b"\x89PNG\r\n\x1a\n garbage")
    with pytest.raises(BadImage, match="CLOUD/bad.png"):
        load_captures(folder, SEASONS.labels)


def test_frame_of_another_size_than_calibrated_is_refused(shipped_profile):
    from vision.recognizer import Recognizer

    with pytest.raises(VisionError, match="640x480.*1640x1232"):
        Recognizer(shipped_profile).read(np.zeros((480, 640, 3), np.uint8))
