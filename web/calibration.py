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


@bp.get("/")
@banker_required
def index():
    c = calibrator()
    context = {"camera": camera_status(camera()), "calibrator": c}
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
    label = _label(c, json_body())
    door = live()
    if door is not None:
        # The face shown to the camera is not a roll: readings wait until the banker is done.
        door.pause(CALIBRATING)
    return _do(lambda: c.capture(label))


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
    refusal = learn_refusal(c)
    if refusal:
        return jsonify({"error": refusal}), 422
    return _do(c.learn)


@bp.get("/status")
@banker_required
def status() -> Response:
    c = _need()
    return jsonify({"progress": c.progress(), "counts": c.counts(), "next": next_label(c),
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
