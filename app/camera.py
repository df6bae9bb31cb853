"""The camera of a running table: source, recognizer, geometry, settle, the loop, the demo.

This is where the vision side and the table meet (the composition root, `app.root`, builds
it): the controller's camera loop gets the vision objects through small interfaces only.
"""

from __future__ import annotations

import logging
import os
import random
import threading
from dataclasses import dataclass
from pathlib import Path

from controller.camera_loop import CameraLoop
from controller.config import Config
from controller.errors import ConfigError, IllegalCommand
from controller.live import LiveTable
from controller.table import Table

log = logging.getLogger(__name__)

#: The shipped calibration profiles: calibration/EQUIPMENT/ for a mode's dice or deck.
CALIBRATION = Path(__file__).resolve().parents[1] / "calibration"


def shipped_profile(mode: str) -> Path:
    """The shipped profile for `mode`'s dice (calibration/EQUIPMENT); for a mode whose dice
    the camera does not read, the first shipped profile (the camera still watches the felt)."""
    from controller.modes import find_mode, modes

    wanted = [find_mode(mode).equipment] + [m.equipment for m in modes().values()]
    for name in wanted:
        if name and (CALIBRATION / name).is_dir():
            return CALIBRATION / name
    return CALIBRATION / (wanted[0] or "none")


def reading_confidence(config: Config) -> float:
    """The confidence a die or card the camera reads needs to count without the banker (the
    live table's `min_confidence`): live.min_confidence, lowered to the line of the mode's
    reader when it abstains by itself below its own (`app.readers.KindReader`: pips,
    numerals, the d20, cards; a label it gives is its confident reading)."""
    from app.readers import KindReader, reader_kind
    from controller.modes import find_mode

    line = config["live.min_confidence"]
    try:
        kind = reader_kind(find_mode(config["table.mode"]).equipment)
    except ConfigError:
        return line  # the camera reads nothing of this mode
    return line if kind == "labels" else min(line, KindReader.min_confidence)


def choose_source(spec: str) -> str:
    """The camera to open for camera.source = `spec` ("auto": what this machine has)."""
    if spec != "auto":
        return spec
    from hardware.pins import on_a_pi

    if on_a_pi():
        try:
            import picamera2  # noqa: F401

            return "picamera"
        except ImportError:
            pass
    if os.path.exists("/dev/video0"):
        return "usb:0"
    return "demo"


def profile_store(config: Config) -> Path:
    """Where the dashboard's calibrations go: profiles/ in the data folder."""
    return config.data_dir / "profiles"


def profile_path(config: Config) -> Path:
    """The profile to read dice with: camera.profile, else the table's own calibration (the
    active version in the data folder's profiles/), else the one shipped for the table's mode."""
    from vision.profile import read_active

    if config["camera.profile"]:
        return Path(config["camera.profile"])
    store = profile_store(config)
    if store.is_dir() and read_active(store).get("active"):
        return store
    return shipped_profile(config["table.mode"])


@dataclass
class CameraRig:
    """The running camera: its loop, the source, and the demo table when there is one."""

    loop: CameraLoop
    source: object
    place: dict  # "recognizer", "profile", "profile_path", "geometry": swapped on activation
    demo: object | None = None

    @property
    def profile(self):
        return self.place["profile"]

    def use_profile(self, path) -> None:
        """Read with the (active version of the) profile at `path` from the next frame on:
        a labelled-dice profile, or a deck's or numeral die set's (`app.readers`)."""
        if self.place["kind"] != "labels":
            from app.readers import kind_reader

            reader = kind_reader(self.place["kind"], self.place["equipment"], str(path),
                                 **self.place.get("deals", {}))
            self.place.update(recognizer=reader, profile_path=reader.profile_path)
            log.info("camera: now reading with %s", reader.profile_path)
            return
        from vision.profile import load_profile, resolve
        from vision.recognizer import Recognizer

        resolved = resolve(path)
        profile = load_profile(resolved)
        self.place.update(recognizer=Recognizer(profile), profile=profile,
                          profile_path=str(resolved))
        self.loop.settle.felt = profile.felt
        if profile.camera_controls and hasattr(self.source, "lock"):
            self.source.lock(profile.camera_controls)  # the exposure it was calibrated under
        log.info("camera: now reading with %s", resolved)

    @property
    def reads(self) -> str:
        """What the camera reads, in words (the dashboard's camera panel)."""
        from app.readers import KINDS

        return KINDS[self.place["kind"]]

    def set_corners(self, corners: list) -> None:
        """Read the felt from these four corners (image px) from the next frame on; [] goes
        back to the corner markers. ValueError when they are not a felt's corners."""
        from vision.errors import VisionError
        from vision.geometry import TableGeometry

        if self.demo is not None:
            raise ValueError("the demo table knows where its felt is")
        if not corners:
            use_geometry(self.place, self.loop.settle, None)  # the markers will tell, once seen
            return
        try:
            geometry = TableGeometry.from_corners(corners, self.place["felt_mm"],
                                                  self.place["zones"])
        except VisionError as exc:
            raise ValueError(str(exc)) from None
        use_geometry(self.place, self.loop.settle, geometry)

    def show(self, label: str, seconds: float = 60.0) -> None:
        """The demo table lays one die with `label` up (or one card, face up, for a deck)
        and waits until it rests; ValueError when the demo has no such die or card."""
        import time

        from vision.errors import VisionError

        before = self.demo.rested_at
        try:
            self.demo.throw([label], [], tumble=False)
        except VisionError as exc:
            raise ValueError(str(exc)) from None
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            frame = self.loop.last_frame
            if self.demo.rested_at != before and frame is not None and (
                    frame.t >= self.demo.rested_at):
                return
            time.sleep(0.05)
        raise ValueError("the demo table did not settle")

    def health(self) -> dict:
        status = self.loop.status.to_json()
        age = status["last_frame_age_s"]
        ok = status["camera"] == "ok" and age is not None and age < 5.0
        return {"ok": ok, **status, "source": getattr(self.source, "name", "camera")}

    def recognizer_health(self) -> dict:
        if self.profile is None:
            return {"ok": True, "reads": self.place["kind"],
                    "profile": self.place["profile_path"],
                    "labels": len(self.place["recognizer"].labels)}
        return {"ok": True, "reads": "labels", "profile": self.place["profile_path"],
                "die_set": self.profile.die_set, "labels": len(self.profile.labels)}

    def stop(self) -> None:
        self.loop.stop()
        close = getattr(self.source, "close", None)
        if close:
            close()


def start_camera(config: Config, table: Table, live: LiveTable, heartbeat=None, *,
                 start: bool = True, clock=None) -> CameraRig | None:
    """Open the configured camera and start reading what the table's mode plays with (its
    equipment's reader, `app.readers`); None for camera.source = "none". Not `start`: the
    loop is stepped by the caller (tests: `rig.loop.step()`, the demo on `clock`). `live` is
    made with `min_confidence=reading_confidence(config)`: the camera changes nothing of it."""
    spec = choose_source(config["camera.source"])
    if spec == "none":
        return None
    from app.readers import kind_reader, reader_kind
    from controller.modes import find_mode
    from vision.camera import open_camera
    from vision.errors import VisionError
    from vision.screen import reading_pictures
    from vision.settle import SettleDetector

    zones = {"rolling": [tuple(p) for p in config["zones.rolling"]],
             "tray": [tuple(p) for p in config["zones.tray"]]}
    mode = find_mode(config["table.mode"])
    equipment_name = mode.equipment
    kind = reader_kind(equipment_name)
    profile = resolved = None
    deals: dict = {}
    try:
        if kind == "labels":
            from vision.profile import load_profile, resolve
            from vision.recognizer import Recognizer

            resolved = resolve(profile_path(config))
            profile = load_profile(resolved)
            recognizer, where = Recognizer(profile), str(resolved)
        else:
            # which deck the table deals now, and (the demo) how to learn one: kept for
            # the readers made when the banker activates a calibration (use_profile)
            deals = {"deck": lambda: table_deck(table, mode),
                     "learn": ((lambda deck: demo_deck(mode.deck_file(deck)))
                               if spec == "demo" else None)}
            recognizer = kind_reader(kind, equipment_name, config["camera.profile"],
                                     profile_store(config), **deals)
            where = recognizer.profile_path
        demo = None
        if spec == "demo":
            demo = source = demo_camera(kind, profile, config, zones, clock)
            geometry = source.geometry
        else:
            geometry = table_geometry(config, zones)
            from vision.labels import DIE_SETS

            source = open_camera(spec, controls=profile.camera_controls if profile else None,
                                 mains_hz=config["camera.mains_hz"],
                                 die_set=DIE_SETS.get(profile.die_set) if profile else None)
    except VisionError as exc:
        raise ConfigError(f"camera: {exc}") from None
    felt_mm = tuple(config["camera.felt_mm"])
    place = {"geometry": geometry, "recognizer": recognizer, "profile": profile,
             "profile_path": where, "felt_mm": felt_mm, "zones": zones, "kind": kind,
             "equipment": equipment_name, "store": profile_store(config),
             "deals": deals}

    def read(img):
        if place["geometry"] is None:
            # A real camera: the felt's corners from the four printed markers, once seen.
            from vision.geometry import TableGeometry

            try:
                use_geometry(place, settle, TableGeometry.from_markers(img, felt_mm, zones))
            except VisionError:
                pass  # no markers (yet): dice are read, every one in the rolling area
        if place["kind"] != "labels":
            return place["recognizer"].read(img, place["geometry"])
        return [r.to_json() for r in place["recognizer"].read(img, place["geometry"])]

    settle = SettleDetector(still_s=config["camera.settle_seconds"],
                            felt=profile.felt if profile else None,
                            side_px=profile.geometry.side_px if profile else 50.0)
    loop = CameraLoop(source, settle, read, live, heartbeat=heartbeat, extra=reading_pictures,
                      idle_seconds=min(0.05, 1.0 / config["camera.fps"] / 2))
    if start:
        loop.start()
    log.info("camera: %s reading %s, profile %s", spec, kind, where)
    return CameraRig(loop, source, place, demo)


def table_deck(table: Table, mode) -> str:
    """The deck the table deals now (`Mode.deck_dealt` under the table's settings)."""
    state = table.snapshot().state
    return mode.deck_dealt(state.settings if state is not None else {})


def demo_deck(deck_file: str):
    """The demo table's deck (`equipment/DECK_FILE.json`) learned as a table learns its own
    (`feltbank calibrate`): one capture of each card alone on the felt."""
    import equipment
    from vision.cards import learn
    from vision.demo_kinds import KindScene

    labels = [c["label"] for c in equipment.load(deck_file)["cards"]]
    log.info("camera: the demo table learns its %s deck (%d cards)", deck_file, len(labels))
    return learn(KindScene("cards").captures(labels))


def demo_camera(kind: str, profile, config: Config, zones: dict, clock=None):
    """The demo table for a reader of `kind`: labelled dice of the profile's die set, or the
    felt of pip dice, numeral dice, the d20 or cards (`vision.demo_kinds`)."""
    import time

    from vision.demo import DemoCamera

    timing = {"fps": config["camera.fps"], "zones": zones, "clock": clock or time.monotonic}
    if kind == "labels":
        from vision.labels import DIE_SETS

        if profile.die_set not in DIE_SETS:
            raise ConfigError(f"camera: the demo table has no {profile.die_set!r} dice; "
                              f"it throws {', '.join(DIE_SETS)}")
        return DemoCamera(DIE_SETS[profile.die_set], **timing)
    from vision.demo_kinds import KindScene

    return DemoCamera(scene=KindScene(kind), **timing)


def use_geometry(place: dict, settle, geometry) -> None:
    """Read the felt with this geometry (None: not known yet); what it says belongs on the
    felt (the corner markers' papers) is no object for the settle detector either."""
    place["geometry"] = geometry
    settle.ignore = geometry.ignore if geometry is not None else []


def table_geometry(config: Config, zones: dict):
    """The felt's geometry from the corners set by hand (camera.corners), or None: the corner
    markers will tell, once seen."""
    from vision.geometry import TableGeometry

    if not config["camera.corners"]:
        return None
    return TableGeometry.from_corners(config["camera.corners"], tuple(config["camera.felt_mm"]),
                                      zones)


def calibrator_for(config: Config, rig: CameraRig):
    """The dashboard's guided calibration on this table's camera (the demo lays the dice or
    cards asked for): a deck card by card for a card mode, a numeral die set face by face
    (vision.calibrator_kinds), else the labelled dice (vision.calibrator). A learned deck or
    die set is activated into profiles/EQUIPMENT/, where the running table reads it."""
    import equipment
    from controller.modes import find_mode

    def frame():
        last = rig.loop.last_frame
        return None if last is None else last.image

    show = rig.show if rig.demo is not None else None
    name = find_mode(config["table.mode"]).equipment
    data = equipment.load(name) if name else {}
    store = config.data_dir / "calibrations" / (name or "none")
    kinds = {"active_dir": profile_store(config) / name,
             "on_activate": rig.use_profile}
    if data.get("kind") == "deck":
        from vision.calibrator_kinds import DeckCalibrator

        return DeckCalibrator(store, config.data_dir / "captures-cards", frame, show=show,
                              **kinds)
    from vision.numerals import EQUIPMENT as NUMERAL_DICE

    if name == NUMERAL_DICE.stem:  # the dice the numeral reader reads (Namaste)
        from vision.calibrator_kinds import NumeralCalibrator

        def show_die(label: str) -> None:  # "white 1/7": the demo's WHITE-1-7
            colour, face = label.split(" ", 1)
            show(f"{colour.upper()}-{face.replace('/', '-')}")

        return NumeralCalibrator(store, config.data_dir / "captures-numerals", frame,
                                 show=show_die if show else None, **kinds)
    from vision.calibrator import Calibrator

    return Calibrator(profile_store(config), config.data_dir / "captures", frame,
                      show=show, on_activate=rig.use_profile,
                      controls=lambda: getattr(rig.source, "controls", None),
                      on_corners=rig.set_corners)


class DemoThrower:
    """Throws the demo table's dice as the shooter would: what must be rolled, at random."""

    def __init__(self, table: Table, demo, seed: int | None = None):
        self.table = table
        self.demo = demo
        self.rng = random.Random(seed)
        self._lock = threading.Lock()

    def __call__(self) -> dict:
        """Throw; what the dice will show (before the camera reads them)."""
        with self._lock:
            now = self.table.snapshot()
            engine, state = now.engine, now.state
            if engine is None:
                raise IllegalCommand("the table is not open")
            throw = engine.demo_throw(state, self.rng)
            if throw is None:
                raise IllegalCommand(f"the demo table has nothing of {engine.title} to throw or "
                                     "deal now; enter it by hand")
            rolled, kept = throw
            self.demo.throw(rolled, kept)
            return {"rolled": rolled, "kept": kept}
