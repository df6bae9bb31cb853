"""/healthz: is the table working? For the supervisor, monitoring and the banker. No login."""

from __future__ import annotations

from flask import Blueprint, current_app, g, jsonify

bp = Blueprint("health", __name__)


def table_health(table) -> dict:
    """The journal part of the health: the table answers and its journal reads."""
    if not table.responsive(timeout=2.0):
        return {"ok": False, "error": "the table service does not answer (its lock is held)"}
    try:
        view = table.view()
    except Exception as exc:  # the journal itself failing is what this reports
        return {"ok": False, "error": f"the journal does not read: {exc}"}
    return {"ok": True, "path": str(table.journal.path), "commands": view.get("seq", 0),
            "schema": table.journal.schema_version}


def table_parts(table) -> dict:
    """The table's own parts of the health report: its journal, and the disk it is on. The
    running table's report (`app.Feltbank.health`) adds the others; a dashboard handed no
    report of its own (tests, `feltbank bench`) reports these."""
    from controller.storage import storage_health

    return {"journal": table_health(table), "disk": storage_health(table.journal.path.parent)}


@bp.get("/healthz")
def healthz():
    """Each part's health; 200 when all are ok, 503 when any is not. Without a login only
    ok or fault per part: no paths, counts or error texts for the network to read."""
    report = current_app.extensions["feltbank.health"]()
    report["ok"] = all(part.get("ok", True) for part in report.values()
                       if isinstance(part, dict))
    if g.get("user") is None:
        report = {key: {"ok": bool(part.get("ok", True))} if isinstance(part, dict) else part
                  for key, part in report.items()}
    return jsonify(report), 200 if report["ok"] else 503
