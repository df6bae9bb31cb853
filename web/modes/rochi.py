"""The pages of Rochi and Captain's Rochi: the six stacks (count, cut, price, owner, pot,
ripe / dead / locked), each player's cards in hand and shields, and the cards the banker
enters by hand (dealt from the deck, or played by the player whose turn it is) until the card
recognizer reads them."""

from __future__ import annotations

from controller.errors import IllegalCommand
from controller.games.roche_deck import ROCHE
from controller.modes import find_mode
from controller.odds.rochi import from_table
from controller.settings import N_
from web.modes import ModePage, PageInput, reason


def _next_cut(view: dict, seen: list[str], deck: int) -> dict[str, float]:
    """Each open suit's chance to be the next the deck cuts (percent), for the odds column."""
    stacks = {s["suit"]: s["count"] for s in view["suits"]}
    locked = [s["suit"] for s in view["suits"] if s["locked"]]
    if not deck:
        return {}
    try:
        chances = from_table(stacks, locked, seen, deck)["next_cut"]
    except ValueError:
        return {}
    return {s: round(100 * float(p), 1) for s, p in chances.items()}


def _short(label: str) -> str:
    """A card's button text: D3 for Day 3, N3 for Night 3."""
    _, _, half, number = label.split("-")
    return f"{half[0]}{int(number)}"


def _cards(page: PageInput, turn: str | None) -> list:
    """Per suit, the cards the banker may enter: each with its deal and play commands and
    the reason either would be refused now."""
    engine, state = page.engine, page.state
    rows = []
    for suit in ROCHE.suits:
        cards = []
        for label in ROCHE.of_suit(suit.key):
            deal = {"kind": "deal", "card": label}
            play = {"kind": "play", "player": turn, "card": label} if turn else None
            cards.append({
                "label": label, "short": _short(label),
                "deal": deal, "deal_reason": reason(engine, state, "deal", card=label),
                "play": play, "play_reason": (reason(engine, state, "play", player=turn,
                                                     card=label) if turn else "no one's turn"),
            })
        rows.append({"suit": suit.key, "title": suit.title, "cards": cards})
    return rows


def _players(page: PageInput, game: dict | None) -> list:
    view = page.view
    out = []
    for p in (game or {}).get("players", []):
        out.append({"player": p, "held": game["held"][p], "shields": game["shields"][p],
                    "folded": p in game.get("folded", []),
                    "had_turn": p in game.get("had_turn", game.get("players", [])),
                    "turn": p == game.get("turn"), "balance": view["balances"].get(p, 0),
                    "owns": [s["title"] for s in view["suits"] if s["owner"] == p]})
    return out


def _actions(page: PageInput, kinds: list[tuple[str, str]], turn: str | None) -> list:
    out = []
    for kind, words in kinds:
        args = {"player": turn} if kind in ("end-turn", "fold", "pass") else {}
        if kind == "last-hand" and page.view["last_hand"]:
            # Agreed already: any player may still refuse, and the table takes it back.
            args, words = {"agreed": False}, "Take back the Last Hand"
        if kind in ("end-turn", "fold", "pass") and not turn:
            continue
        out.append({"command": {"kind": kind, **args}, "words": words,
                    "reason": reason(page.engine, page.state, kind, **args)})
    return out


def _per_player(page: PageInput, kind: str, players, **args) -> list:
    """One `kind` command per player (a button each), with the reason it is refused now."""
    return [{"command": {"kind": kind, "player": p, **args}, "player": p,
             "reason": reason(page.engine, page.state, kind, player=p, **args)}
            for p in players]


def _between_hands(page: PageInput) -> dict:
    """The table's business between hands (or Captain's games): who gets the leader button
    (who moves first); in Rochi a newcomer's joining fee into the pot she chooses and a
    leaver's marker (when the table grants them)."""
    state, view = page.state, page.view
    return {
        "buttons": _per_player(page, "button", state.seats),
        "entries": [{"player": p, "owed": owed,
                     "pots": [{"title": s.title, **_per_player(page, "pay-entry", [p],
                                                               pots={s.key: owed})[0]}
                              for s in ROCHE.suits]}
                    for p, owed in view.get("owed", {}).items()],
        "markers": (_per_player(page, "leave", state.seats, marker=True)
                    if state.settings.get("markers") else []),
    }


def _result(page: PageInput) -> dict | None:
    """The last settlement, with how it ended in the mode's words."""
    result = page.view["last_result"]
    if not result:
        return None
    words = find_mode(page.engine.name).result_words
    return {**result, "words": words.get(result.get("result"), result.get("result"))}


def rochi_context(page: PageInput) -> dict:
    view = page.view
    hand = view["hand"]
    turn = hand["turn"] if hand else None
    return {
        "captains": False, "suits": view["suits"], "game": hand, "turn": turn,
        "leader": view["leader"], "last_hand": view["last_hand"], "owed": view["owed"],
        "players": _players(page, hand), "cards": _cards(page, turn) if hand else [],
        "actions": _actions(page, [("start-hand", "Deal a hand"), ("last-hand", "Last Hand"),
                                   ("end-turn", "End the turn"), ("fold", "Fold")], turn),
        "result": _result(page),
        "next_cut": _next_cut(view, list(page.state.hand.seen), hand["deck"]) if hand else {},
        "between": None if hand else _between_hands(page),
    }


def captains_context(page: PageInput) -> dict:
    view = page.view
    game = view["game"]
    turn = game["turn"] if game else None
    return {
        "captains": True, "suits": view["suits"], "game": game, "turn": turn,
        "leader": view["leader"], "odd_pot": view["odd_pot"],
        "players": _players(page, game), "cards": _cards(page, turn) if game else [],
        "actions": _actions(page, [("start-game", "Start a game"), ("end-turn", "End the turn"),
                                   ("pass", "Pass"), ("stop", "Stop and divide the pots")],
                            turn),
        "odd": [{"player": p, "suits": [{"command": {"kind": "odd-coin", "player": p,
                                                     "pot": s.key}, "title": s.title}
                                        for s in ROCHE.suits]}
                for p in (game or {}).get("odd", {})],
        "next_cut": _next_cut(view, page.state.game.known(), game["deck"]) if game else {},
        "drop_outs": _per_player(page, "drop-out", (game or {}).get("players", [])),
        "between": None if game else _between_hands(page),
        "result": _result(page),
    }


def faces_for(label: str | None) -> list[str]:
    """The cards a card read as `label` may be, for the banker's correction: the cards of its
    suit; every card of the deck when it is unread (or no Roche card)."""
    try:
        suit = ROCHE.card(label).suit
    except IllegalCommand:
        return [c.label for c in ROCHE.cards]
    return list(ROCHE.of_suit(suit))


#: The journal's words for the mode's own commands, arguments and events.
JOURNAL = {
    "agreed": N_("agreed"),
    "button": N_("leader button"),
    "card": N_("card"),
    "cards": N_("cards"),
    "deal": N_("deal a card"),
    "dealt": N_("card dealt"),
    "discarded": N_("discarded"),
    "drawn": N_("drawn"),
    "drop-out": N_("drop out"),
    "end-turn": N_("end the turn"),
    "entry-paid": N_("entry paid"),
    "fold": N_("fold"),
    "folded": N_("folded"),
    "game-over": N_("game over"),
    "game-started": N_("game started"),
    "hand-started": N_("hand started"),
    "last-hand": N_("Last Hand"),
    "last-standing": N_("last player standing"),
    "locked": N_("suit locked"),
    "marker": N_("marker"),
    "odd-coin": N_("odd coin"),
    "passed": N_("passed"),
    "pay-entry": N_("pay the entry"),
    "penalties-paid": N_("penalties paid"),
    "play": N_("play a card"),
    "played": N_("card played"),
    "players": N_("players"),
    "pot": N_("pot"),
    "pot-won": N_("pot won"),
    "pots": N_("pots"),
    "pots-divided": N_("pots divided"),
    "reshuffled": N_("reshuffled"),
    "start-game": N_("start a game"),
    "start-hand": N_("start a hand"),
    "stop": N_("stop the game"),
    "turn": N_("turn"),
    "turn-over": N_("turn over"),
}


ROCHI_PAGE = ModePage("rochi", "modes/rochi.html", rochi_context,
                      holder=lambda page: page.state.leader, holder_word="Leader",
                      faces_for=faces_for,
                      journal_words=JOURNAL)
CAPTAINS_PAGE = ModePage("captains-rochi", "modes/rochi.html", captains_context,
                         holder=lambda page: page.state.game.turn if page.state.game else None,
                         holder_word="Turn", faces_for=faces_for,
                         journal_words=JOURNAL)
