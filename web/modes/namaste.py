"""Namaste's page: every player's diamond sheet, the circles the current total may go in lit
(a button per total on each), pass (bad karma for the active player), the roll entered by hand
or read by the camera, the standings at the end."""

from __future__ import annotations

from flask import request, url_for

from controller.games.namaste import CIRCLES, FACES, LABEL_OF, LABELS, NUMBER, karma_points
from controller.settings import N_
from web.modes import ModePage, PageInput, reason

#: The page's own words in French (English -> French): the record's page gives them to the
#: dashboard's translations (`ModePage.french`).
FRENCH = {
    "Turn": "Tour", "rolls": "lance", "Roll": "Lancer", "Turquoise die": "Dé turquoise",
    "White dice": "Dés blancs", "Start a game": "Commencer une partie", "first": "commence",
    "Pass": "Passer", "the turn is over": "le tour est fini",
    "the game is over": "la partie est finie", "Bad karma": "Mauvais karma",
    "Points": "Points", "Spaces": "Cases",
    "may enter": "peut inscrire", "Winners": "Gagnants", "The game is over": "La partie est finie",
    "Last round: a sheet is full": "Dernier tour de table : une feuille est pleine",
    "Enter the roll": "Saisir le lancer", "Sheet link": "Lien de la feuille",
    "The sheet alone, read-only: the link to open on the player's phone":
        "La feuille seule, en lecture : le lien à ouvrir sur le téléphone du joueur",
}


def sheet_grid(engine, state, player: str, banker: bool) -> list[list[dict | None]]:
    """The 7x7 grid of a player's sheet: None off the diamond; each circle its number, value,
    pink or not, and the totals that may go in it now (each a command button)."""
    sheet = state.sheet(player)
    options = () if player in state.decided else engine.totals_for(state, player)
    legal = {t: set(sheet.legal(t)) for t in options}
    grid: list[list[dict | None]] = [[None] * 7 for _ in range(7)]
    for r, c in CIRCLES:
        n = NUMBER[(r, c)]
        grid[r][c] = {"n": n, "value": sheet.value(n), "pink": r == 3 or c == 3,
                      "totals": [t for t in options if n in legal[t]] if banker else []}
    return grid


def context(page: PageInput) -> dict:
    """Every sheet; with `?sheet=PLAYER` (the link a player opens on a phone), that player's
    sheet alone, read-only."""
    engine, state, view = page.engine, page.state, page.view
    only = request.args.get("sheet")
    banker = page.banker and not only
    sheets = []
    for player in state.players:
        if only and player != only:
            continue
        sheet = state.sheet(player)
        active = player == state.active_player
        deciding = state.roll is not None and player not in state.decided
        sheets.append({
            "player": player, "active": active, "first": sheet.first,
            "grid": sheet_grid(engine, state, player, banker),
            "link": url_for("table.page", sheet=player),
            "totals": list(engine.totals_for(state, player)) if deciding else [],
            # For each total this player may enter, the circles it may go in (the buttons).
            "choices": [{"total": t, "circles": list(sheet.legal(t))}
                        for t in engine.totals_for(state, player)] if deciding else [],
            "deciding": deciding, "points": sheet.points, "karma_taken": list(sheet.karma),
            "spaces": [{"line": name, "points": pts} for name, pts in sheet.spaces],
            "karma": karma_points(state.roll.turquoise) if active and deciding else 0,
            "pass_reason": reason(engine, state, "pass", player=player)})
    starts = [{"first": p, "reason": reason(engine, state, "start", first=p)}
              for p in state.seats]
    return {"phase": state.phase, "banker": banker, "only": only, "turn": state.turn,
            "active": state.active_player,
            "roll": view["roll"], "ending": state.ending, "sheets": sheets, "starts": starts,
            "faces": list(FACES), "result": view["result"], "winners": view["winners"],
            "roll_reason": reason(engine, state, "roll", turquoise="2", white=["2"])}


def faces_for(label: str | None) -> list[str]:
    """The labels of the die `label` is on (turquoise or white); all of them when unread."""
    if label in LABELS:
        colour = LABELS[label][0]
        return [LABEL_OF[(colour, f)] for f in FACES]
    return list(LABELS)


#: The journal's words for the mode's own commands, arguments and events.
JOURNAL = {
    "circle": N_("circle"),
    "enter": N_("enter a total"),
    "entered": N_("total entered"),
    "first": N_("first"),
    "game-started": N_("game started"),
    "passed": N_("passed"),
    "roll-ignored": N_("roll ignored"),
    "start": N_("start the game"),
    "total": N_("total"),
    "turquoise": N_("turquoise die"),
    "white": N_("white dice"),
}


PAGE = ModePage("namaste", "modes/namaste.html", context,
                holder=lambda page: page.state.active_player, holder_word="Roll",
                faces_for=faces_for, french=FRENCH, journal_words=JOURNAL)
