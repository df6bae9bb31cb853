"""Calibration: guided capture, learning with a progress bar, accuracy per label and the
confused pairs, activate and roll back a profile.

The vision side is reached through an injected calibrator (`web.Services.calibrator`), an
object with these methods; without one the page says how to calibrate from the command line.

    labels() -> list[str]                 every label of the die set, in order
    counts() -> dict[str, int]            captures taken per label
    target: int                           captures wanted per label
    capture(label) -> int                 take the camera's frame as a capture of `label`
    learn() -> None                       start learning in the background
    progress() -> dict                    {"state": "idle"|"learning"|"done"|"failed",
                                           "fraction": 0..1, "message": str,
                                           "report": {"accuracy": float,
                                                      "per_label": {label: float},
                                                      "confused": [[a, b, n], ...]} | None}
    versions() -> dict                    {"active": str | None, "versions": [str, ...]}
    activate(version) -> None; rollback() -> str
    set_corners(corners) -> None          (optional) the felt's four corners in the picture,
                                          image px clockwise from the top-left; [] for the
                                          corner markers

A deck or a numeral die set (vision.calibrator_kinds: one capture per card or face, guided
card by card) has besides, and gets the guided page (calibration/guided.html):

    kind: "cards" | "numerals"
    results() -> {label: {"state", "seen", "advice", ...}}  the last check of each label
    capture(label, insist=False)          refused captures (CaptureRefused, a ValueError)
                                          carry their result; `insist` keeps a card the
                                          checks took for another
    restart() -> None                     drop the captures: start again
    decks() -> list[str]; deck; choose(deck)   (cards) which deck is learned
    progress()["summary"]                 what was learned (cards, colours)

Each raises ValueError with a plain reason when it cannot do what is asked.
"""

from __future__ import annotations

from flask import Blueprint, Response, abort, current_app, jsonify, render_template

from controller import config as cfg
from controller.errors import ConfigError
from web.auth import banker_required
from web.camera import camera_status
from web.data import camera, json_body, live
from web.i18n import N_, t
from web.settings_page import current, save_settings

bp = Blueprint("calibration", __name__, url_prefix="/calibration")


def calibrator():
    return current_app.extensions.get("feltbank.calibrator")


def _need():
    c = calibrator()
    if c is None:
        abort(404, description="no calibration service runs here: use feltbank calibrate")
    return c


def missing_captures(c) -> list[tuple[str, int]]:
    """The faces that still want captures before learning, with the captures they have."""
    counts = c.counts()
    return [(label, counts.get(label, 0)) for label in c.labels()
            if counts.get(label, 0) < c.target]


def learn_refusal(c) -> str:
    """Why Learn cannot start yet (empty when it can)."""
    missing = missing_captures(c)
    if not missing:
        return ""
    return t("Learning needs %(target)s captures of every face; still to capture: %(faces)s") % {
        "target": c.target,
        "faces": ", ".join(f"{label} ({n}/{c.target})" for label, n in missing)}


PROGRESS_WORDS = {"idle": N_("Not learning"), "learning": N_("Learning"),
                  "done": N_("Learned"), "failed": N_("Learning failed")}

CALIBRATING = "the banker is showing faces to the camera to calibrate it"


def next_label(c) -> str | None:
    """The label to show the camera next: the first with the fewest captures under target."""
    counts = c.counts()
    short = [label for label in c.labels() if counts.get(label, 0) < c.target]
    return min(short, key=lambda label: counts.get(label, 0)) if short else None


def guided(c) -> bool:
    """A deck or numeral die set, calibrated card by card (vision.calibrator_kinds)."""
    return c is not None and hasattr(c, "results")


#: what a capture's check found, and what to do (a card; a die where they differ)
RESULT_WORDS = {"read": N_("read"), "not found": N_("not found"), "too dark": N_("too dark"),
                "glare": N_("glare"), "blurred": N_("blurred"), "several": N_("more than one"),
                "unsure": N_("not read")}
ADVICE = {
    "cards": {
        "not found": N_("Lay the card face up, alone and wholly in view, on the cloth."),
        "too dark": N_("Light the table more, then retake."),
        "glare": N_("Move the lamp or tilt the card a little so that no light reflects off "
                    "it, then retake."),
        "blurred": N_("Let the card rest and check the camera's focus, then retake."),
        "wrong": N_("Lay the card asked for, or keep this capture if it is that card."),
        "several": N_("Take the other cards off the cloth: one card a capture."),
        "unsure": N_("Let it rest flat in even light, then retake."),
    },
    "numerals": {
        "not found": N_("Lay the die on the cloth, the face asked for up, wholly in view."),
        "too dark": N_("Light the table more, then retake."),
        "glare": N_("Move the lamp so that no light reflects off the die, then retake."),
        "blurred": N_("Let the die rest and check the camera's focus, then retake."),
        "wrong": N_("Turn the die so that the face asked for is up, or keep this capture if "
                    "it is that face."),
        "several": N_("Take the other dice off the cloth: one die a capture."),
        "unsure": N_("Let the die rest flat, the face asked for up, in even light, then "
                     "retake."),
    },
}
RANKS = {"J": N_("jack"), "Q": N_("queen"), "K": N_("king"), "A": N_("ace"), "T": "10"}
SUITS = {"S": N_("spades"), "H": N_("hearts"), "D": N_("diamonds"), "C": N_("clubs")}
COLOURS = {"turquoise": N_("turquoise"), "white": N_("white")}
DECK_WORDS = {"poker-2-7": N_("poker decks, ranks 2 to 7 (24 cards)"),
              "poker": N_("a whole poker deck (52 cards)"),
              "roche": N_("the printed Roche deck (54 cards; read without calibration)")}


def _die(label: str) -> tuple[str, str]:
    colour, face = label.split(" ", 1)
    return t(COLOURS.get(colour, colour)), face


def label_words(c, label: str) -> str:
    """A card or face in the page's words: "5 of hearts", "white die, 4"."""
    if c.kind == "numerals":
        colour, face = _die(label)
        return t("%(colour)s die, %(face)s") % {"colour": colour, "face": face}
    if len(label) == 2 and label[1] in SUITS:
        rank = RANKS.get(label[0], label[0])
        return t("%(rank)s of %(suit)s") % {"rank": t(rank), "suit": t(SUITS[label[1]])}
    from vision.calibrator_kinds import roche_name

    name = roche_name(label)
    return f"{name} ({label})" if name else label


def prompt(c, label: str) -> str:
    """What the banker is asked to lay: "Lay the 5 of hearts ..."."""
    if c.kind == "numerals":
        colour, face = _die(label)
        return t("Lay the %(colour)s die with %(face)s up, alone on the cloth, then capture") % {
            "colour": colour, "face": face}
    return t("Lay the %(card)s face up, alone and wholly in view, then capture") % {
        "card": label_words(c, label)}


def result_text(c, result: dict) -> str:
    """A capture's result in words, with what to do."""
    state = result.get("state", "")
    if state == "read":
        return t("read")
    if state == "wrong":
        seen = result.get("seen")
        if c.kind == "numerals":
            colour, face = result["label"].split(" ", 1)
            seen_colour, _, seen_face = (seen or "").rpartition(" ")
            if seen_face == face and seen_colour and seen_colour != colour:
                # The face asked for, on the other die: "the white die, not the turquoise one".
                return t("wrong die: this is the %(seen)s die, not the %(asked)s one. Lay the "
                         "%(asked)s die, %(face)s up, or keep this capture if it is that die."
                         ) % {"seen": t(COLOURS.get(seen_colour, seen_colour)),
                              "asked": t(COLOURS.get(colour, colour)), "face": face}
            words = (t("wrong face: the die shows %(seen)s") % {"seen": seen_face}
                     if seen else t("wrong face"))
        else:
            words = (t("wrong card: this is the %(seen)s, not the %(asked)s") % {
                "seen": label_words(c, seen), "asked": label_words(c, result["label"])}
                if seen else t("wrong card"))
    else:
        words = t(RESULT_WORDS.get(state, state))
    return f"{words}. {t(ADVICE[c.kind].get(state, ''))}".strip()


def guided_next(c) -> str | None:
    """The card or face to lay next: the first in order with no capture yet."""
    counts = c.counts()
    return next((label for label in c.labels() if not counts.get(label)), None)


def guided_context(c) -> dict:
    counts = c.counts()
    labels = c.labels()
    results = c.results()
    nxt = guided_next(c)
    done = sum(1 for label in labels if counts.get(label))
    missing = len(labels) - done
    door = live()
    return {
        "labels": labels, "counts": counts, "next": nxt, "results": results,
        "words": {label: label_words(c, label) for label in labels},
        "texts": {label: result_text(c, r) for label, r in results.items()},
        "prompt": prompt(c, nxt) if nxt else "", "done": done, "total": len(labels),
        "learn_refusal": (t("%(n)s still to capture") % {"n": missing}) if missing else "",
        "progress_words": PROGRESS_WORDS, "progress": c.progress(), "versions": c.versions(),
        "paused": door is not None and bool(door.paused),
        "decks": [(d, DECK_WORDS.get(d, d)) for d in c.decks()] if hasattr(c, "decks") else [],
        "deck": getattr(c, "deck", None),
    }


@bp.get("/")
@banker_required
def index():
    c = calibrator()
    context = {"camera": camera_status(camera()), "calibrator": c}
    if guided(c):
        context.update(guided_context(c))
        return render_template("calibration/guided.html", **context)
    if c is not None:
        counts = c.counts()
        labels = c.labels()
        done = sum(min(counts.get(label, 0), c.target) for label in labels)
        door = live()
        context.update(labels=labels, counts=counts, target=c.target, next=next_label(c),
                       learn_refusal=learn_refusal(c), progress_words=PROGRESS_WORDS,
                       paused=door is not None and bool(door.paused),
                       captured=round(100 * done / max(1, c.target * len(labels))),
                       progress=c.progress(), versions=c.versions(),
                       corners=current()["camera.corners"] if hasattr(c, "set_corners") else None)
    return render_template("calibration/index.html", **context)


def _label(c, data: dict) -> str:
    label = data.get("label")
    if not isinstance(label, str) or label not in c.labels():
        abort(400, description="capture needs 'label': one of " + ", ".join(c.labels()))
    return label


def _do(action) -> Response:
    try:
        result = action()
    except ValueError as exc:
        return jsonify({"error": str(exc)}), 422
    return jsonify({"ok": True, "result": result})


@bp.post("/capture")
@banker_required
def capture() -> Response:
    c = _need()
    data = json_body()
    label = _label(c, data)
    door = live()
    if door is not None:
        # The face shown to the camera is not a roll: readings wait until the banker is done.
        door.pause(CALIBRATING)
    if guided(c):
        insist = data.get("insist", False)
        if not isinstance(insist, bool):
            abort(400, description="'insist' is true or false")
        return _guided_capture(c, label, insist)
    return _do(lambda: c.capture(label))


def _guided_capture(c, label: str, insist: bool) -> Response:
    from vision.calibrator_kinds import CaptureRefused

    try:
        n = c.capture(label, insist=insist)
    except CaptureRefused as exc:
        return jsonify({"error": f"{label_words(c, label)}: {result_text(c, exc.result)}",
                        "result": exc.result}), 422
    except ValueError as exc:
        return jsonify({"error": str(exc)}), 422
    return jsonify({"ok": True, "result": n})


@bp.post("/session")
@banker_required
def session() -> Response:
    """A deck or die set's session: {"deck": NAME} learns another deck (its own captures),
    {"restart": true} drops the captures to start again."""
    c = _need()
    if not guided(c):
        abort(404, description="the labelled dice are captured face by face: no session")
    data = json_body()
    if data.get("restart") is True and "deck" not in data:
        return _do(c.restart)
    deck = data.get("deck")
    decks = c.decks() if hasattr(c, "decks") else []
    if not isinstance(deck, str) or deck not in decks:
        abort(400, description="session needs 'restart': true, or 'deck': one of "
              + (", ".join(decks) or "(no decks: this is a die set)"))
    return _do(lambda: c.choose(deck))


@bp.post("/done")
@banker_required
def done() -> Response:
    """The banker has finished showing faces: the camera reads rolls again."""
    door = live()
    if door is not None:
        door.resume()
    return jsonify({"ok": True, "message": t("The camera reads the rolls again.")})


@bp.post("/learn")
@banker_required
def learn() -> Response:
    c = _need()
    refusal = guided_context(c)["learn_refusal"] if guided(c) else learn_refusal(c)
    if refusal:
        return jsonify({"error": refusal}), 422
    return _do(c.learn)


@bp.get("/status")
@banker_required
def status() -> Response:
    c = _need()
    nxt = guided_next(c) if guided(c) else next_label(c)
    return jsonify({"progress": c.progress(), "counts": c.counts(), "next": nxt,
                    "versions": c.versions()})


@bp.post("/activate")
@banker_required
def activate() -> Response:
    c = _need()
    version = json_body().get("version")
    if not isinstance(version, str) or version not in c.versions().get("versions", []):
        abort(400, description="activate needs 'version': one of the profile's versions")
    return _do(lambda: c.activate(version))


@bp.post("/corners")
@banker_required
def corners() -> Response:
    """The felt's four corners tapped on the camera's picture ([] : the corner markers): used
    by the running camera at once and kept in the settings (camera.corners)."""
    c = _need()
    points = json_body().get("corners")
    try:
        cfg.schema()["camera.corners"].validate(points)
    except ConfigError as exc:
        return jsonify({"error": str(exc)}), 422
    if not hasattr(c, "set_corners"):
        abort(404, description="this table's camera does not take corners set by hand")
    before = current()["camera.corners"]
    try:
        c.set_corners(points)
    except ValueError as exc:
        return jsonify({"error": str(exc)}), 422
    try:
        save_settings({"camera.corners": points})
    except ConfigError as exc:  # not kept: the camera goes back to what is kept
        c.set_corners(before)
        return jsonify({"error": str(exc)}), 422
    return jsonify({"ok": True, "result": points})


@bp.post("/rollback")
@banker_required
def rollback() -> Response:
    c = _need()
    return _do(c.rollback)
