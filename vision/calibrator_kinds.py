"""Guided calibration of a deck and of a numeral die set: one capture per card or face,
each checked as it is taken, then learned into a versioned profile.

The dashboard's Calibration page drives these as it drives the labelled dice' `Calibrator`
(web/calibration.py lists the interface); what is added here:

- each capture is checked before it is kept: the card (the die face) asked for must be
  found alone, lit enough, without glare, sharp; the wrong card laid is refused, naming the
  card seen when a reader can tell (the printed Roche deck's art, the cards captured so far,
  the table's active model). A refused capture keeps nothing; its result says what to do.
- `results()`: the last result of every label (read / not found / too dark / glare /
  blurred / wrong / several / unsure); a retake is a capture again (it replaces the card's
  capture once kept); `restart()` (a session left halfway resumes from the captures on
  disk, or starts again).
- the profile store keeps the dice's rules (vision.profile): each Learn writes the next
  version (vNNN/) into a temporary folder, synced, then renamed; ACTIVE.json names the active
  one and its history; activation loads the version first, so a corrupt one changes nothing.

    decks: a card model (vision.cards.learn) in vNNN/cards-model.npz (+ kind.json)
    numerals: the set's die colours (vision.numerals.calibrate_numerals) in vNNN/numerals.json
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from vision import profile as profiles
from vision.calibrator import learned, learning_failed
from vision.cards import (
    BadDeck,
    CardModel,
    CardReader,
    face_of,
    find_cards,
    learn,
    roche_model,
    suit_colour,
)
from vision.deck_art import POKER_LABELS, RANKS, SUITS, roche_deck, roche_labels
from vision.errors import BadProfile, VisionError
from vision.images import read_image
from vision.numerals import (
    LABELS as NUMERAL_FACES,
)
from vision.numerals import (
    NumeralProfile,
    calibrate_numerals,
    default_profile,
    die_colour,
    load_numeral_profile,
    read_numerals,
)

KIND_FILE = "kind.json"
NUMERALS_FILE = "numerals.json"
#: the decks a card table learns: the poker ranks Roche's four decks use, a whole poker deck,
#: the printed Roche deck (read from its own art without calibration; may be re-learned)
DECKS = {
    "poker-2-7": tuple(r + s for s in SUITS for r in "234567"),
    "poker": POKER_LABELS,
    "roche": None,  # roche_labels(), read when asked
}
#: checks of a capture (the card squared up at its own size in the frame)
DARK_PAPER = 70  # the card's paper (90th percentile grey) at least this bright
GLARE_SHARE = 0.03  # at most this share of the card burnt white (all channels >= 250) ...
GLARE_PAPER = 235  # ... unless the whole card is that bright (an exposure, not a reflection)
DUPLICATE_MARGIN = 0.01  # a card captured already: this much more alike than any two cards
DUPLICATE_FLOOR = 0.975  # ... and at least this alike (grey faces, zero-mean unit-norm)
DUPLICATE_INK = 0.015  # ... with inks of the same colour (see DeckCalibrator.seen)
#: mean |Laplacian| over the grey's spread: ink edges, not a smear (generated captures of
#: seven tables: 0.13 at least; blurred by 2 px, mostly below 0.15: only a smear is refused)
SHARP_MIN = 0.09
DARK_FRAME = 45  # a frame whose 99th percentile grey is below this shows nothing


class CaptureRefused(VisionError):
    """A capture that is not kept; `.result` says why and what to do (see `results()`)."""

    def __init__(self, message: str, result: dict):
        super().__init__(message)
        self.result = result


# -- the versioned store ----------------------------------------------------------------------


def save_version(store: Path, kind: str, write: Callable[[Path], None],
                 report: dict | None = None) -> Path:
    """Write the store's next version of a `kind` model (`write(folder)` writes the model,
    then the kind record with its report): the labelled dice' store rules
    (vision.profile.write_version); nothing is activated."""

    def write_all(folder: Path) -> None:
        write(folder)
        record = {"kind": kind, "report": report or {},
                  "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        profiles._write_file(folder / KIND_FILE, json.dumps(record, indent=1).encode())

    return profiles.write_version(store, write_all)


def load_version(folder: Path, kind: str):  # noqa: ANN201 (a CardModel or NumeralProfile)
    """The model a version folder (or a store's active version) holds; BadProfile naming the
    file when it is missing, corrupt or of another kind."""
    folder = Path(folder)
    if not (folder / KIND_FILE).exists():
        folder = profiles.resolve(folder)  # a store: its active (else newest) version
    try:
        record = json.loads((folder / KIND_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise BadProfile(f"{folder / KIND_FILE}: unreadable ({e}); not a version written by "
                         "the Calibration page") from e
    if not isinstance(record, dict) or record.get("kind") != kind:
        got = record.get("kind") if isinstance(record, dict) else None
        raise BadProfile(f"{folder}: a {got!r} profile, not a {kind!r} one")
    try:
        if kind == "cards":
            return CardModel.load(folder)
        return load_numeral_profile(folder / NUMERALS_FILE)
    except VisionError as e:
        raise BadProfile(f"{folder}: corrupt profile ({e})") from e


def publish(version: Path, active_dir: Path) -> Path:
    """Copy a version's files into `active_dir`, where the running table's reader reads the
    table's own model (app.readers: DIR/cards-model.npz, DIR/numerals.json), file by file
    through a temporary file and a rename: the folder always holds a whole model."""
    active_dir = Path(active_dir)
    active_dir.mkdir(parents=True, exist_ok=True)
    for f in sorted(Path(version).iterdir()):
        if not f.is_file():
            continue
        fd, tmp = tempfile.mkstemp(prefix=".publish-", dir=active_dir)
        os.close(fd)
        profiles._write_file(Path(tmp), f.read_bytes())
        os.chmod(tmp, 0o644)
        os.replace(tmp, active_dir / f.name)
    profiles._fsync_dir(active_dir)
    return active_dir


# -- checks of one capture --------------------------------------------------------------------


def _unit(a: np.ndarray) -> np.ndarray:
    a = a.astype(np.float32) - float(a.mean())
    return a / (float(np.linalg.norm(a)) + 1e-6)


def _card_face(img: np.ndarray, outline) -> tuple[np.ndarray, np.ndarray]:  # noqa: ANN001
    """A card's grey face (zero-mean, unit-norm) and its ink's mean colour (red-green,
    blue-yellow: red suits from black), from vision.cards' face."""
    grey, chroma = face_of(img, outline)
    ink = (chroma[..., :2] * chroma[..., 2:3]).sum((0, 1)) / (float(chroma[..., 2].sum()) + 1e-3)
    return _unit(grey), ink.astype(np.float32)


def card_seen(img: np.ndarray, quad: np.ndarray, width: float) -> np.ndarray:
    """The card inside `quad`, squared up at its own size in the frame (BGR)."""
    w = int(max(24.0, width))
    h = int(round(w * 88 / 63))
    dst = np.float32([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]])
    return cv2.warpPerspective(img, cv2.getPerspectiveTransform(np.float32(quad), dst), (w, h))


def card_quality(card: np.ndarray) -> str:
    """What is wrong with a card seen (BGR, see `card_seen`): "too dark", "glare", "blurred"
    or ""."""
    grey = cv2.cvtColor(card, cv2.COLOR_BGR2GRAY).astype(np.float32)
    paper = float(np.percentile(grey, 90))
    if paper < DARK_PAPER:
        return "too dark"
    burnt = float((card.min(2) >= 250).mean())
    if burnt > GLARE_SHARE and float(np.median(grey)) < GLARE_PAPER:
        return "glare"
    sharp = float(np.abs(cv2.Laplacian(grey, cv2.CV_32F)).mean()) / (float(grey.std()) + 1e-3)
    if sharp < SHARP_MIN:
        return "blurred"
    return ""


def frame_quality(img: np.ndarray) -> str:
    """Why nothing may be found in a frame: "too dark", "glare", "blurred" or ""."""
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    if float(np.percentile(grey, 99)) < DARK_FRAME:
        return "too dark"
    if float((img.min(2) >= 250).mean()) > 0.02:
        return "glare"
    small = cv2.resize(grey, (320, int(320 * grey.shape[0] / grey.shape[1])),
                       interpolation=cv2.INTER_AREA).astype(np.float32)
    sharp = float(np.abs(cv2.Laplacian(small, cv2.CV_32F)).mean()) / (float(small.std()) + 1e-3)
    return "blurred" if sharp < 0.05 else ""


#: what to do after each result
ADVICE = {
    "read": "kept",
    "not found": "lay the card face up, alone and wholly in view, on the cloth",
    "too dark": "light the table more (or open the camera's exposure), then retake",
    "glare": "move the lamp or tilt the card a little so that no light reflects off it",
    "blurred": "hold the camera still and let the card rest (check the focus), then retake",
    "wrong": "lay the card asked for (or keep this capture if it is that card)",
    "several": "take the other cards off the cloth: one card a capture",
    "unsure": "let it rest flat in even light, then retake",
}


def _result(label: str, state: str, seen: str | None = None, n: int = 0) -> dict:
    return {"label": label, "state": state, "seen": seen, "captures": n,
            "advice": ADVICE.get(state, "")}


def _write_png(folder: Path, image: np.ndarray, n: int) -> Path:
    ok, png = cv2.imencode(".png", image)
    if not ok:
        raise ValueError("the frame could not be saved")
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".capture-", suffix=".tmp")
    with os.fdopen(fd, "wb") as f:
        f.write(png.tobytes())
    path = folder / f"{n:03d}-{int(time.time())}.png"
    os.replace(tmp, path)
    return path


# -- the guided calibrators -------------------------------------------------------------------


class GuidedCalibrator:
    """What the deck's and the die set's calibrators share: captures on disk (one folder per
    label), the results, learning in the background, the versioned store."""

    kind = ""
    target = 1

    def __init__(self, store: str | os.PathLike, captures: str | os.PathLike,
                 frame: Callable[[], np.ndarray | None], *,
                 show: Callable[[str], None] | None = None,
                 on_activate: Callable[[Path], None] | None = None,
                 active_dir: str | os.PathLike | None = None):
        self.store = Path(store)
        #: Where the active version's files are copied for the running table to read (it
        #: reads them again when it restarts); None: the store's version folder is handed on.
        self.active_dir = None if active_dir is None else Path(active_dir)
        self.captures = Path(captures)
        self.frame = frame
        #: The demo table lays the card or die asked for; a real table has the banker do it.
        self.show = show
        self.on_activate = on_activate
        self._lock = threading.Lock()
        self._progress: dict = {"state": "idle", "fraction": 0.0, "message": "", "report": None}
        self._results: dict[str, dict] = {}
        self._finished = threading.Event()

    # the labels and their folders
    def labels(self) -> list[str]:
        raise NotImplementedError

    def folder(self, label: str) -> Path:
        return self.captures / label.replace("/", "-").replace(" ", "_")

    def _files(self, label: str) -> list[Path]:
        folder = self.folder(label)
        return sorted(folder.glob("*.png")) if folder.is_dir() else []

    def counts(self) -> dict[str, int]:
        return {label: n for label in self.labels() if (n := len(self._files(label)))}

    def results(self) -> dict[str, dict]:
        """The last result of each label: this session's checks, else "read" for a capture
        on disk (a session resumed)."""
        with self._lock:
            out = dict(self._results)
        for label, n in self.counts().items():
            out.setdefault(label, _result(label, "read", label, n))
        return out

    def _check(self, label: str) -> None:
        if label not in self.labels():
            raise ValueError(f"{label!r} is not to be captured here: one of "
                             + ", ".join(self.labels()))

    def _frame(self, label: str) -> np.ndarray:
        if self.show is not None:
            self.show(label)
        image = self.frame()
        if image is None:
            raise ValueError("the camera has no frame yet: check it on the table page")
        if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
            raise ValueError(f"the camera's frame is not a colour picture (8-bit BGR), but "
                             f"{image.dtype} {image.shape}: check the camera")
        return image

    def capture(self, label: str, insist: bool = False) -> int:
        """Check the camera's frame as a capture of `label` and keep it; the captures of it
        now. CaptureRefused (nothing kept) when the check fails; `insist` keeps a capture
        refused only as "wrong" (the banker knows it is the card asked for). A retake is a
        capture again: the earlier one is dropped only once the new one is kept."""
        self._check(label)
        image = self._frame(label)
        try:
            seen = self.inspect(label, image, insist)
        except CaptureRefused as exc:
            with self._lock:
                self._results[label] = exc.result
            raise
        before = self._files(label)
        path = _write_png(self.folder(label), image, len(before) + 1)
        if self.target == 1:  # one capture a card: a retake replaces it once it is kept
            for old in before:
                if old != path:
                    old.unlink()
        self.kept(label, image)
        with self._lock:
            self._results[label] = _result(label, "read", seen, len(self._files(label)))
        return len(self._files(label))

    def restart(self) -> None:
        """Start again: every capture of this session and its results dropped."""
        with self._lock:
            if self._progress["state"] == "learning":
                raise ValueError("learning: wait for it to finish before starting again")
            self._results.clear()
        for label in self.labels():
            folder = self.folder(label)
            if folder.is_dir():
                shutil.rmtree(folder)
        self.forget()

    def inspect(self, label: str, image: np.ndarray, insist: bool = False) -> str | None:
        """What `image` shows when it is a good capture of `label`; else CaptureRefused."""
        raise NotImplementedError

    def kept(self, label: str, image: np.ndarray) -> None:
        """A capture was kept (the deck remembers its face to tell the next cards)."""

    def forget(self) -> None:
        """The captures were dropped."""

    # learning
    def learn(self) -> None:
        """Learn from the captures in the background (see `progress()`)."""
        missing = [label for label in self.labels() if not self._files(label)]
        if missing:
            raise ValueError(f"{len(missing)} still to capture: " + ", ".join(missing[:8])
                             + (" ..." if len(missing) > 8 else ""))
        with self._lock:
            if self._progress["state"] == "learning":
                raise ValueError("already learning: wait for it to finish")
            self._progress = {"state": "learning", "fraction": 0.05,
                              "message": "reading the captures", "report": None}
            self._finished.clear()
        threading.Thread(target=self._learn, name=f"calibrate-{self.kind}", daemon=True).start()

    def _step(self, fraction: float, message: str) -> None:
        with self._lock:
            self._progress.update(fraction=fraction, message=message)

    def _learn(self) -> None:
        try:
            self._learn_now()
        finally:
            self._finished.set()

    def wait(self, timeout: float) -> dict:
        """The progress once learning has finished (or `timeout` seconds passed)."""
        if self.progress()["state"] == "learning":
            self._finished.wait(timeout)
        return self.progress()

    def _learn_now(self) -> None:
        try:
            captures = {label: [(str(p), read_image(p)) for p in self._files(label)]
                        for label in self.labels()}
            self._step(0.3, "learning")
            write, report = self.build(captures)
            self._step(0.9, "writing the profile")
            path = save_version(self.store, self.kind, write, report)
        except (VisionError, OSError) as exc:
            with self._lock:
                self._progress = learning_failed(exc)
            return
        with self._lock:
            self._progress = learned(path, report=None, summary=report)

    def build(self, captures: dict) -> tuple[Callable[[Path], None], dict]:
        raise NotImplementedError

    def progress(self) -> dict:
        with self._lock:
            return dict(self._progress)

    # the store
    def versions(self) -> dict:
        return profiles.store_versions(self.store)

    def _load(self, folder: Path):  # noqa: ANN202 (a CardModel or NumeralProfile)
        return load_version(folder, self.kind)

    def activate(self, version: str) -> None:
        """Make `version` the active one; the running table reads with it from the next
        frame on. ValueError (nothing changed) when it does not load."""
        try:
            profiles.activate_version(self.store, version, self._load)
        except VisionError as exc:
            raise ValueError(str(exc)) from None
        self._hand_on(version)

    def rollback(self) -> str:
        try:
            name = profiles.rollback(self.store, self._load)
        except VisionError as exc:
            raise ValueError(str(exc)) from None
        self._hand_on(name)
        return name

    def _hand_on(self, version: str) -> None:
        folder = self.store / version
        if self.active_dir is not None:
            folder = publish(folder, self.active_dir)
        if self.on_activate is not None:
            self.on_activate(folder)

    def active_model(self):  # noqa: ANN201
        """The active version's model, or None (none yet, or it does not load)."""
        try:
            if profiles.read_active(self.store).get("active"):
                return load_version(self.store, self.kind)
        except VisionError:
            pass
        return None


def card_words(label: str) -> tuple[str, str] | None:
    """A poker card's (rank, suit) words in English ("5", "hearts"), None for another card."""
    if len(label) == 2 and label[0] in RANKS and label[1] in SUITS:
        rank = {"T": "10", "J": "jack", "Q": "queen", "K": "king", "A": "ace"}.get(
            label[0], label[0])
        return rank, {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}[label[1]]
    return None


def roche_name(label: str) -> str:
    """The printed Roche card's name (on its face), or ""."""
    return next((c.name for c in roche_deck() if c.label == label), "")


class DeckCalibrator(GuidedCalibrator):
    """A deck learned one capture per card (vision.cards.learn)."""

    kind = "cards"

    def __init__(self, store, captures, frame, *, deck: str = "poker-2-7", **kw):
        super().__init__(store, captures, frame, **kw)
        self._root = Path(captures)
        self._faces: dict[str, tuple[np.ndarray, np.ndarray]] | None = None
        self._pending: tuple[str, tuple[np.ndarray, np.ndarray]] | None = None
        self.choose(deck)

    def decks(self) -> list[str]:
        return list(DECKS)

    def choose(self, deck: str) -> None:
        """Learn this deck (DECKS); its captures are kept apart from the other decks'."""
        if deck not in DECKS:
            raise ValueError(f"unknown deck {deck!r}: one of {', '.join(DECKS)}")
        if self._progress["state"] == "learning":
            raise ValueError("learning: wait for it to finish before choosing another deck")
        self.deck = deck
        self.captures = self._root / deck
        self._faces = None
        with self._lock:
            self._results.clear()

    def labels(self) -> list[str]:
        labels = DECKS[self.deck]
        return list(roche_labels() if labels is None else labels)

    def inspect(self, label: str, image: np.ndarray, insist: bool = False) -> str | None:
        found = find_cards(image)
        n = len(self._files(label))
        if not found:
            why = frame_quality(image) or "not found"
            raise CaptureRefused(f"{label}: {why}: {ADVICE[why]}", _result(label, why, None, n))
        if len(found) > 1:
            raise CaptureRefused(f"{label}: {len(found)} cards found: {ADVICE['several']}",
                                 _result(label, "several", None, n))
        outline = found[0]
        why = card_quality(card_seen(image, outline.quad, outline.width))
        if why:
            raise CaptureRefused(f"{label}: {why}: {ADVICE[why]}", _result(label, why, None, n))
        face = _card_face(image, outline)
        self._pending = (label, face)
        seen = None if insist else self.seen(image, label, face)
        if seen is not None and seen != label:
            raise CaptureRefused(f"{label}: this card is {seen}, not {label}: lay {label}",
                                 _result(label, "wrong", seen, n))
        return seen or label

    def _known_faces(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """The grey faces of the cards captured so far (read from disk on a resumed session)."""
        if self._faces is None:
            self._faces = {}
            for label in self.labels():
                for p in self._files(label)[-1:]:
                    try:
                        img = read_image(p)
                    except VisionError:
                        continue  # an unreadable capture: learn says which
                    found = find_cards(img)
                    if len(found) == 1:
                        self._faces[label] = _card_face(img, found[0])
        return self._faces

    def kept(self, label: str, image: np.ndarray) -> None:
        pending, self._pending = self._pending, None
        if self._faces is not None and pending is not None and pending[0] == label:
            self._faces[label] = pending[1]

    def forget(self) -> None:
        self._faces = None

    def seen(self, image: np.ndarray, asked: str, face: tuple[np.ndarray, np.ndarray]
             ) -> str | None:
        """The card in `image` when a reader can tell: the printed deck's art, the table's
        active model of this deck, else a card captured already laid again (its face more
        like that capture than any two different cards captured are alike, by a margin, and
        its ink of the same colour: on four generated tables of 52 cards this told one wrong
        card in four and refused no right one; the banker may keep a capture refused so).
        None when none is sure."""
        models = []
        if self.deck == "roche":
            models.append(roche_model())
        active = self.active_model()
        if active is not None and set(self.labels()) <= set(active.labels):
            models.append(active)
        for model in models:
            for reading in CardReader(model).read(image):
                if reading.label is not None and reading.label in self.labels():
                    return reading.label
        known = {lab: f for lab, f in self._known_faces().items() if lab != asked}
        if len(known) < 3:
            return None
        labels = list(known)
        greys = np.stack([known[lab][0].ravel() for lab in labels])
        cross = greys @ greys.T
        np.fill_diagonal(cross, -1.0)
        grey, ink = face
        sims = np.maximum(greys @ grey.ravel(), greys @ np.rot90(grey, 2).ravel())
        best = int(np.argmax(sims))
        if sims[best] <= max(float(cross.max()) + DUPLICATE_MARGIN, DUPLICATE_FLOOR):
            return None
        # the same ink too: closer than half the nearest red card's to the nearest black's
        red = [known[lab][1] for lab in labels if suit_colour(lab) == "red"]
        black = [known[lab][1] for lab in labels if suit_colour(lab) == "black"]
        apart = min((float(np.abs(r - b).sum()) for r in red for b in black),
                    default=2 * DUPLICATE_INK)
        if float(np.abs(known[labels[best]][1] - ink).sum()) > min(apart / 2, DUPLICATE_INK):
            return None
        return labels[best]

    def build(self, captures: dict) -> tuple[Callable[[Path], None], dict]:
        model = learn(captures)
        report = dict(model.report, deck_choice=self.deck)
        return model.save, report


class NumeralCalibrator(GuidedCalibrator):
    """A numeral die set (Namaste): each face of each die colour, one capture each; the set's
    die colours learned (vision.numerals.calibrate_numerals)."""

    kind = "numerals"

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        #: the body colours (chromaticity) of this session's kept captures, by die colour
        self._chromas: dict[str, list] = {}
        self._pending: tuple[str, tuple | None] | None = None

    def colours(self) -> list[str]:
        return sorted(default_profile().colours)

    def labels(self) -> list[str]:
        return [f"{colour} {face}" for colour in self.colours() for face in NUMERAL_FACES]

    @staticmethod
    def split(label: str) -> tuple[str, str]:
        colour, face = label.split(" ", 1)
        return colour, face

    def inspect(self, label: str, image: np.ndarray, insist: bool = False) -> str | None:
        colour, face = self.split(label)
        n = len(self._files(label))
        profile = self.active_model() or default_profile()
        faces = read_numerals(image, profile)
        read = [o for o in faces if o.label is not None]
        if not faces:
            why = frame_quality(image) or "not found"
            raise CaptureRefused(f"{label}: {why}: {NUMERAL_ADVICE.get(why, ADVICE[why])}",
                                 _result(label, why, None, n))
        if len(faces) > 1:
            raise CaptureRefused(f"{label}: {len(faces)} dice found: one die a capture",
                                 _result(label, "several", None, n))
        if not read:
            why = frame_quality(image) or "unsure"
            raise CaptureRefused(f"{label}: the face is not read ({faces[0].why}): "
                                 f"{NUMERAL_ADVICE['unsure']}", _result(label, why, None, n))
        o = read[0]
        told = self.colour_of(o, profile)
        seen = f"{told} {o.label}" if told else o.label
        self._pending = (label, o.body_chroma)
        if insist:
            return seen
        if o.label != face:
            raise CaptureRefused(f"{label}: this die shows {o.label}, not {face}: turn it "
                                 f"{face} up", _result(label, "wrong", seen, n))
        if told is not None and told != colour:
            raise CaptureRefused(f"{label}: this is the {told} die, not the {colour} one: lay "
                                 f"the {colour} die, {face} up",
                                 _result(label, "wrong", seen, n))
        return seen

    def colour_of(self, reading, profile: NumeralProfile) -> str | None:  # noqa: ANN001
        """The die colour of a face read: nearest the colours of this session's captures
        (each colour's median), else the profile's; None when two are about as near."""
        if reading.body_chroma is None:
            return reading.colour
        refs = dict(profile.colours)
        for colour, seen in self._chromas.items():
            if seen:
                refs[colour] = tuple(float(v) for v in np.median(np.array(seen), 0))
        return die_colour(np.asarray(reading.body_chroma), NumeralProfile(refs))[0]

    def kept(self, label: str, image: np.ndarray) -> None:
        pending, self._pending = self._pending, None
        if pending is not None and pending[0] == label and pending[1] is not None:
            self._chromas.setdefault(self.split(label)[0], []).append(pending[1])

    def forget(self) -> None:
        self._chromas = {}

    def build(self, captures: dict) -> tuple[Callable[[Path], None], dict]:
        by_colour: dict[str, list] = {}
        for label, shots in captures.items():
            by_colour.setdefault(self.split(label)[0], []).extend(shots)
        profile, report = calibrate_numerals(by_colour)
        if report["unread"]:
            raise VisionError("captures to retake (no face read): "
                              + ", ".join(report["unread"][:8]))

        def write(folder: Path, profile: NumeralProfile = profile) -> None:
            profiles._write_file(folder / NUMERALS_FILE,
                                 (json.dumps(profile.to_json(), indent=1) + "\n").encode())

        return write, {**report, "colours": profile.to_json()["colours"]}


NUMERAL_ADVICE = {
    "not found": "lay the die on the cloth, the face asked for up, wholly in view",
    "unsure": "let the die rest flat, the face asked for up, in even light, then retake",
}


__all__ = ["DECKS", "BadDeck", "CaptureRefused", "DeckCalibrator", "GuidedCalibrator",
           "NumeralCalibrator", "card_words", "load_version",
           "publish", "roche_name", "save_version"]
