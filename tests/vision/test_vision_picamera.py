"""The Pi camera source against a stand-in for picamera2 (there is no Pi here).

The stand-in keeps picamera2's names and shapes: `Picamera2()`, `create_video_configuration`
(main stream size and format), `configure`, `start`, `capture_metadata` (ExposureTime,
AnalogueGain, ColourGains), `set_controls`, `capture_array("main")`, `stop`, `close`; its
"RGB888" frames are laid out B, G, R as picamera2's are.
"""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

from vision.camera import Backoff, CameraState, PiCameraSource, flicker_free, open_camera


class FakePicamera2:
    """Records what the source asks of the camera; fails on demand."""

    instances: list[FakePicamera2] = []
    fail_open = 0  # how many next Picamera2() calls raise (no camera connected)

    def __init__(self):
        if FakePicamera2.fail_open:
            FakePicamera2.fail_open -= 1
            raise RuntimeError("Camera __init__ sequence did not complete.")
        self.config = None
        self.controls: list[dict] = []
        self.started = self.closed = False
        self.fail_capture = False
        FakePicamera2.instances.append(self)

    def create_video_configuration(self, main=None, **kwargs):
        return {"use_case": "video", "main": dict(main or {}), **kwargs}

    def create_still_configuration(self, main=None, **kwargs):
        return {"use_case": "still", "main": dict(main or {}), **kwargs}

    def configure(self, config):
        self.config = config

    def start(self):
        self.started = True

    def capture_metadata(self):
        return {"ExposureTime": 12000, "AnalogueGain": 1.75, "ColourGains": (1.9, 1.6),
                "Lux": 310.0}

    def set_controls(self, controls):
        self.controls.append(dict(controls))

    def capture_array(self, name="main"):
        if self.fail_capture:
            raise RuntimeError("Device timeout")
        w, h = self.config["main"]["size"]
        img = np.zeros((h, w, 3), np.uint8)
        img[:, :, 0] = 200  # blue, as picamera2's RGB888 lays it out
        return img

    def stop(self):
        self.started = False

    def close(self):
        self.closed = True


@pytest.fixture
def picamera2(monkeypatch):
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2
    monkeypatch.setitem(sys.modules, "picamera2", module)
    FakePicamera2.instances = []
    FakePicamera2.fail_open = 0
    return FakePicamera2


def test_auto_exposure_settles_then_exposure_gain_and_white_balance_are_locked(picamera2):
    src = PiCameraSource(size=(320, 240), settle_s=0.0)
    cam = picamera2.instances[0]
    assert cam.config["use_case"] == "video"
    assert cam.config["main"] == {"size": (320, 240), "format": "RGB888"}
    # AE settled on 12 ms at gain 1.75; 50 Hz lamps flicker every 10 ms: one whole period,
    # the gain making up the light
    assert cam.controls == [{"AeEnable": False, "AwbEnable": False, "ExposureTime": 10000,
                             "AnalogueGain": pytest.approx(2.1), "ColourGains": (1.9, 1.6)}]
    assert src.controls == {"ExposureTime": 10000, "AnalogueGain": pytest.approx(2.1),
                            "ColourGains": (1.9, 1.6)}  # what a profile keeps
    frame = src.read()
    assert src.state is CameraState.OK
    assert frame.image.shape == (240, 320, 3) and frame.image.flags["C_CONTIGUOUS"]
    assert frame.image[0, 0].tolist() == [200, 0, 0]  # B, G, R: OpenCV's order
    src.close()
    assert cam.closed


def test_a_profiles_controls_are_applied_at_start_and_on_activation(picamera2):
    saved = {"ExposureTime": 9000, "AnalogueGain": 2.0, "ColourGains": [1.8, 1.5],
             "Lux": 1.0}  # from a profile's JSON: gains as a list, a stray key
    src = open_camera("picamera", controls=saved)
    cam = picamera2.instances[0]
    assert cam.controls == [{"AeEnable": False, "AwbEnable": False, "ExposureTime": 9000,
                             "AnalogueGain": 2.0, "ColourGains": (1.8, 1.5)}]
    src.lock({"ExposureTime": 15000, "AnalogueGain": 1.0, "ColourGains": [2.0, 1.4]})
    assert cam.controls[-1]["ExposureTime"] == 15000
    assert src.controls["ColourGains"] == (2.0, 1.4)


def test_no_camera_is_a_state_retried_with_backoff(picamera2):
    picamera2.fail_open = 1
    src = PiCameraSource(size=(64, 48), settle_s=0.0, backoff=Backoff(first=0.0))
    assert src.state is CameraState.UNAVAILABLE and "did not complete" in src.reason
    assert src.read() is None  # the retry opens it
    assert src.state is CameraState.OK and src.read() is not None
    # unplugged while running: a state, then the camera is opened afresh
    picamera2.instances[-1].fail_capture = True
    assert src.read() is None and src.state is CameraState.UNAVAILABLE
    assert "Device timeout" in src.reason and picamera2.instances[-1].closed
    assert src.read() is None and src.state is CameraState.OK and len(picamera2.instances) == 2
    assert src.read() is not None


def test_without_picamera2_the_reason_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import fails
    src = PiCameraSource(size=(64, 48), settle_s=0.0)
    assert src.state is CameraState.UNAVAILABLE and "python3-picamera2" in src.reason
    assert src.read() is None


@pytest.mark.parametrize("exposure, gain, hz, want", [
    (12000, 1.75, 50, (10000, 2.1)),   # rounded to one 10 ms period, gain up
    (26000, 2.0, 50, (30000, 2.0 * 26 / 30)),  # three periods, gain down
    (26000, 1.05, 50, (20000, 1.05 * 26 / 20)),  # gain would fall below 1: two periods
    (20000, 3.0, 60, (16667, 3.0 * 20000 / 16667)),  # 60 Hz mains: 8.33 ms periods
    (4000, 1.0, 50, (4000, 1.0)),      # shorter than a period: left alone
    (12000, 1.75, 0, (12000, 1.75)),   # not asked to
])
def test_locked_exposure_is_a_whole_number_of_flicker_periods(exposure, gain, hz, want):
    got = flicker_free({"ExposureTime": exposure, "AnalogueGain": gain,
                        "ColourGains": (1.9, 1.6)}, hz)
    assert (got["ExposureTime"], got["AnalogueGain"]) == (want[0], pytest.approx(want[1], rel=1e-3))
    assert got["ColourGains"] == (1.9, 1.6) and got["AnalogueGain"] >= 1.0
