"""Namaste's page: every player's diamond sheet, the circles the current total may go in lit
(a button per total on each), pass (bad karma for the active player), the roll entered by hand
or read by the camera, the standings at the end."""

from __future__ import annotations

from controller.games.namaste import CIRCLES, FACES, LABEL_OF, LABELS, NUMBER, karma_points
from web.i18n import language
from web.modes import ModePage, PageInput, reason

#: The page's words, English and French (one place for this mode; the dashboard's catalogs
#: take them over).
WORDS = {
    "en": {"turn": "Turn", "rolls": "rolls", "roll": "Roll", "turquoise": "Turquoise die",
           "white": "White dice", "start": "Start a game", "first": "first",
           "pass": "Pass", "karma": "Bad karma", "points": "Points", "spaces": "Spaces",
           "may_enter": "may enter", "decided": "has entered or passed", "winners": "Winners",
           "over": "The game is over", "ending": "Last round: a sheet is full",
           "total": "Total", "enter_roll": "Enter the roll"},
    "fr": {"turn": "Tour", "rolls": "lance", "roll": "Lancer", "turquoise": "Dé turquoise",
           "white": "Dés blancs", "start": "Commencer une partie", "first": "commence",
           "pass": "Passer", "karma": "Mauvais karma", "points": "Points", "spaces": "Cases",
           "may_enter": "peut inscrire", "decided": "a inscrit ou passé",
           "winners": "Gagnants", "over": "La partie est finie",
           "ending": "Dernier tour de table : une feuille est pleine", "total": "Total",
           "enter_roll": "Saisir le lancer"},
}


def words() -> dict[str, str]:
    return WORDS.get(language(), WORDS["en"])


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
    engine, state, view = page.engine, page.state, page.view
    w = words()
    sheets = []
    for player in state.players:
        sheet = state.sheet(player)
        active = player == state.active_player
        deciding = state.roll is not None and player not in state.decided
        sheets.append({
            "player": player, "active": active, "first": sheet.first,
            "grid": sheet_grid(engine, state, player, page.banker),
            "totals": list(engine.totals_for(state, player)) if deciding else [],
            # For each total this player may enter, the circles it may go in (the buttons).
            "choices": [{"total": t, "circles": list(sheet.legal(t))}
                        for t in engine.totals_for(state, player)] if deciding else [],
            "deciding": deciding, "points": sheet.points, "karma": list(sheet.karma),
            "spaces": [{"line": name, "points": pts} for name, pts in sheet.spaces],
            "pass_words": (f"{w['pass']} (−{karma_points(state.roll.turquoise)})"
                           if active and deciding else w["pass"]),
            "pass_reason": reason(engine, state, "pass", player=player)})
    starts = [{"first": p, "reason": reason(engine, state, "start", first=p)}
              for p in state.seats]
    return {"w": w, "phase": state.phase, "turn": state.turn, "active": state.active_player,
            "roll": view["roll"], "ending": state.ending, "sheets": sheets, "starts": starts,
            "faces": list(FACES), "result": view["result"], "winners": view["winners"],
            "roll_reason": reason(engine, state, "roll", turquoise="2", white=["2"])}


def faces_for(label: str | None) -> list[str]:
    """The labels of the die `label` is on (turquoise or white); all of them when unread."""
    if label in LABELS:
        colour = LABELS[label][0]
        return [LABEL_OF[(colour, f)] for f in FACES]
    return list(LABELS)


PAGE = ModePage("namaste", "modes/namaste.html", context,
                holder=lambda page: page.state.active_player, holder_word="Roll",
                faces_for=faces_for)
