"""Camera sources, table geometry from markers, and settle detection."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.waiting import wait_for
from vision.camera import (
    Backoff,
    CameraState,
    OpenCVSource,
    ReplaySource,
    SyntheticSource,
    open_camera,
    roll_frames,
)
from vision.dice import find_blobs
from vision.errors import VisionError
from vision.geometry import TableGeometry, detect_markers
from vision.settle import SettleDetector, TableState
from vision.synthetic import make_scene


def test_replay_folder_in_order_then_done(tmp_path):
    for i in range(3):
        img = np.full((120, 160, 3), 40 * i, np.uint8)
        cv2.imwrite(str(tmp_path / f"{i:02d}.png"), img)
    src = ReplaySource(tmp_path)
    values = [int(src.read().image[0, 0, 0]) for _ in range(3)]
    assert values == [0, 40, 80]
    assert src.read() is None
    assert src.state is CameraState.OK


def test_missing_replay_is_a_state_not_a_crash(tmp_path):
    src = ReplaySource(tmp_path / "gone")
    assert src.read() is None
    assert src.state is CameraState.UNAVAILABLE and "gone" in src.reason


class _DeadCapture:
    """A VideoCapture stand-in for an unplugged webcam."""

    def isOpened(self):  # noqa: N802 - OpenCV's name
        return False


def test_unplugged_webcam_is_reported_and_retried():
    opened = []

    def opener(device):
        opened.append(device)
        return _DeadCapture()

    src = OpenCVSource(3, backoff=Backoff(first=0.01, most=0.02), opener=opener)
    try:
        assert wait_for(lambda: len(opened) >= 3)
        assert src.read() is None
        assert src.state is CameraState.UNAVAILABLE and "cannot open" in src.reason
        assert len(opened) >= 3  # retried
    finally:
        src.close()


def test_backoff_doubles_to_a_cap():
    b = Backoff(first=0.5, most=3.0)
    assert [b.delay() for _ in range(5)] == [0.5, 1.0, 2.0, 3.0, 3.0]
    b.reset()
    assert b.delay() == 0.5


def test_open_camera_specs():
    assert isinstance(open_camera("synthetic:3"), SyntheticSource)
    with pytest.raises(VisionError, match="expected picamera"):
        open_camera("firewire")


def test_geometry_from_markers_maps_to_table_mm():
    scene = make_scene(11, markers=True, felt_mm=(440.0, 330.0))
    found = detect_markers(scene.image)
    assert set(found) >= {0, 1, 2, 3}
    for i in range(4):
        assert np.abs(found[i].mean(0) - scene.marker_corners[i].mean(0)).max() < 2.0
    centres = np.array([scene.marker_corners[i].mean(0) for i in range(4)])
    geo = TableGeometry.from_markers(scene.image, (400.0, 300.0),
                                     zones={"roll": [(0, 0), (200, 0), (200, 300), (0, 300)]})
    corners_mm = geo.to_table(centres)
    assert np.abs(corners_mm - [[0, 0], [400, 0], [400, 300], [0, 300]]).max() < 2.0
    assert geo.zone_of(np.array([100.0, 150.0])) == "roll"
    assert geo.zone_of(np.array([300.0, 150.0])) is None
    assert geo.on_felt(np.array([10.0, 10.0])) and not geo.on_felt(np.array([-40.0, 10.0]))
    assert geo.on_felt(np.array([-5.0, 10.0]))  # the felt runs on under the marker papers


def test_geometry_without_markers_names_what_is_missing():
    with pytest.raises(VisionError, match=r"markers \[0, 1, 2, 3\] not seen"):
        TableGeometry.from_markers(make_scene(12).image, (400.0, 300.0))


def test_settle_moving_then_settled_after_still_time():
    src = SyntheticSource(roll_frames(5, moving=4, still=25), fps=10)
    det = SettleDetector(still_s=2.0)
    states = []
    while (f := src.read()) is not None:
        states.append(det.update(f.image, f.t))
    assert all(s is TableState.MOVING for s in states[:5])  # tumbling dice, no read
    first_settled = states.index(TableState.SETTLED)
    assert 4 + 19 <= first_settled <= 4 + 23  # ~2 s of stillness at 10 fps
    assert all(s is TableState.SETTLED for s in states[first_settled:])


def test_hand_over_the_table_is_motion():
    frames = list(roll_frames(6, moving=0, still=3, hand=2))
    det = SettleDetector(still_s=0.0)
    states = [det.update(img, 0.1 * i) for i, img in enumerate(frames)]
    assert states[1] is TableState.MOVING  # hand moved between frames
    assert states[2] is TableState.MOVING  # hand gone: a change as well


def test_empty_table(shipped_profile):
    det = SettleDetector(still_s=0.0, felt=shipped_profile.felt)
    img = make_scene(13, n_dice=0).image
    det.update(img, 0.0)
    assert det.update(img, 0.1) is TableState.EMPTY


def test_a_still_table_is_searched_once_per_still_spell(shipped_profile, monkeypatch):
    import vision.settle

    searched = []

    def counting(*args, **kwargs):
        searched.append(1)
        return find_blobs(*args, **kwargs)

    monkeypatch.setattr(vision.settle, "find_blobs", counting)
    det = SettleDetector(still_s=0.0, felt=shipped_profile.felt)
    empty, dice = make_scene(13, n_dice=0).image, make_scene(13, n_dice=2).image
    states = [det.update(empty, 0.1 * i) for i in range(6)]
    assert states[1:] == [TableState.EMPTY] * 5 and len(searched) == 1
    # dice thrown: motion, then a still spell of its own, looked at afresh
    states = [det.update(dice, 1.0 + 0.1 * i) for i in range(6)]
    assert states[0] is TableState.MOVING and states[1:] == [TableState.SETTLED] * 5
    assert len(searched) == 2


def test_readings_carry_table_position_and_zone(shipped_profile):
    from vision.recognizer import Recognizer
    from vision.synthetic import DieSpec, SceneParams, render_scene

    p = SceneParams(felt_mm=(440.0, 330.0), markers=True)
    scene = render_scene(p, [DieSpec("SUN", -100.0, 40.0, 15.0),
                             DieSpec("EAST", 120.0, -60.0, 40.0)], seed=3)
    # marker centres sit 4 mm + half a 48 mm marker image in from the felt's corners
    inset = 4.0 + 48.0 / 2
    w, h = 440.0 - 2 * inset, 330.0 - 2 * inset
    geo = TableGeometry.from_markers(scene.image, (w, h),
                                     zones={"left": [(0, 0), (w / 2, 0), (w / 2, h), (0, h)]})
    readings = {r.label: r for r in Recognizer(shipped_profile).read(scene.image, geo)
                if r.kind == "die"}
    # world (x, y) mm from the felt centre, y up -> table mm from marker 0, y down
    for label, (x, y) in {"SUN": (-100.0, 40.0), "EAST": (120.0, -60.0)}.items():
        tx, ty = readings[label].table_mm
        assert abs(tx - (x + w / 2)) < 4 and abs(ty - (h / 2 - y)) < 4
    assert readings["SUN"].zone == "left" and readings["EAST"].zone is None
