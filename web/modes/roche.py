"""Roche and Grand Roche's page: the six suits' piles, each seat's bets on the layout, the deal.

The camera reads each card dealt (the live table's card reader); the banker may also deal by
hand: a card from those left.
"""

from __future__ import annotations

from controller.games.roche import (
    BET_WORDS,
    CARD_BETS,
    RANKS,
    SUIT_NAMES,
    Bet,
    load_deck,
)
from controller.settings import N_
from web.i18n import say, t
from web.modes import ModePage, PageInput, reason

#: A spot of the layout in a word or two (its rank, or none, beside it).
SPOT_WORDS = {"cut": N_("Cut"), "day": N_("Day"), "night": N_("Night"),
              "starlight": N_("Starlight"), "cavalry": N_("Cavalry")}


def context(page: PageInput) -> dict:
    engine, state, view = page.engine, page.state, page.view
    kinds = view["bet_kinds"]
    row_kinds = [k for k in kinds if k not in (*CARD_BETS, "cavalry")]
    seats = []
    for player in state.seats:
        placed = view["bets"].get(player, {})
        rows = []
        for rank in RANKS:
            spots = []
            for kind in row_kinds:
                bet = Bet(kind, rank)
                unit = engine.stake_unit(state, bet)
                spots.append({"bet": bet.id, "words": SPOT_WORDS[kind], "number": rank,
                              "kind": kind, "amount": placed.get(bet.id, 0), "unit": unit,
                              "reason": reason(engine, state, "bet", player=player, bet=bet.id,
                                               amount=max(unit, state.settings["min_bet"])
                                               // unit * unit)})
            rows.append({"rank": rank, "suit": SUIT_NAMES[rank], "spots": spots})
        extra = []
        if "cavalry" in kinds:
            extra.append({"bet": "cavalry", "words": SPOT_WORDS["cavalry"], "kind": "cavalry",
                          "amount": placed.get("cavalry", 0),
                          "reason": reason(engine, state, "bet", player=player, bet="cavalry",
                                           amount=state.settings["min_bet"])})
        cards = {say(BET_WORDS.get(b.lower().replace(":", "."), b)): a
                 for b, a in placed.items() if b.split(":")[0] in CARD_BETS}
        seats.append({"player": player, "rows": rows, "extra": extra, "cards": cards})
    deck = engine.deck(state)
    left = engine.left_in_deck(state)
    card_bets = ([(f"{k}:{c.label}", say(BET_WORDS.get(Bet(k, c.rank, c.label).spot, f"{k}:{c.label}")))
                  for k in CARD_BETS for c in deck.cards]
                 if any(k in kinds for k in CARD_BETS) else [])
    return {
        "phase": state.phase, "deck": view["deck_title"], "dealt": view["dealt"],
        "burned": state.burned, "max_burns": state.settings["max_burns"],
        "suits": view["suits"], "seats": seats, "card_bets": card_bets,
        "players": list(state.seats),
        "left": sorted({(c.label, c.name) for c in left}),
        "last_cut": view["last_cut"],
        "no_more_bets_reason": reason(engine, state, "no-more-bets"),
        "burn_reason": reason(engine, state, "burn"),
        "deal_reason": (reason(engine, state, "deal", card=left[0].label) if left
                        else t("the deck is empty")),
    }


def faces_for(label: str | None) -> list[str]:
    """The cards the banker may tap for a card read as `label`: its deck's, its suit first."""
    decks = [load_deck(name) for name in ("roche", "poker")]
    deck = next((d for d in decks if label is not None and label.upper() in d.labels),
                decks[0])
    rank = deck.card(label).rank if label is not None and label.upper() in deck.labels else 0
    return sorted(deck.labels, key=lambda c: deck.card(c).rank != rank)

#: The journal's words for the mode's own commands, arguments and events.
JOURNAL = {
    "burn": N_("burn a card"),
    "burned": N_("card burned"),
    "card": N_("card"),
    "cards": N_("cards"),
    "deal": N_("deal a card"),
    "dealt": N_("card dealt"),
    "no-more-bets": N_("no more bets"),
}


PAGE = ModePage("roche", "modes/roche.html", context,
                faces_for=faces_for, journal_words=JOURNAL)
GRAND_PAGE = ModePage("grand-roche", "modes/roche.html", context,
                      faces_for=faces_for, journal_words=JOURNAL)
