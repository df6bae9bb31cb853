"""Captain's Rochi's chances and simulation: which suit the deck cuts first.

Captain's Rochi has no house bets either. At the start of a game nothing is seen, so the deck
(the eight seed cards first) is a uniform random order of the 54 cards less the two hands, and
the first suit it cuts has the same chance as in Rochi (controller/odds/rochi.py): more than 21
cards always cut some suit, so the deck's length does not matter. A seed card's cut counts: it
is the deck's first cut, though the suit is only discarded (docs/rules/captains-rochi.md).

`odds(settings)` is `feltbank odds captains-rochi --json`; `simulate` plays whole games to their
first cut through the real engine (`feltbank simulate captains-rochi`).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from controller.odds.rochi import SUITS
from controller.odds.rochi import odds as rochi_odds

#: `feltbank simulate captains-rochi --strategy`: "deal-only" (the first player passes, then
#: both only deal, so the first cut is the deck's: checks `cut_first`), "random" (random legal
#: play of both players).
STRATEGIES = ("deal-only", "random")
#: A game's steps to its first cut are few; this bounds a simulated game that would not end.
MAX_STEPS = 2000


def odds(settings: Mapping[str, Any]) -> dict:
    """The report of `feltbank odds captains-rochi --json`."""
    report = rochi_odds(settings)
    report.update(
        game="captains-rochi", title="Captain's Rochi",
        about="no house bets: the chance each suit is the first the deck cuts (a seed card's "
              "cut included) when only the deck is dealt, and its penalty (the rank; a shield "
              "halves it, the odd coin into a pot)")
    report["notes"] = ["Captain's Rochi has no house: the two players pay each other and the "
                       "pots, so no row has a house edge. 'first-cut-SUIT' is the chance the "
                       "deck cuts SUIT first in a game."]
    return report


def simulate(turns: int, rng, settings: Mapping[str, Any] | None, strategy: str):
    """`turns` Captain's games, each played to its first cut through the real engine, then
    stopped by agreement: how often each suit is the first to cut, beside the exact chance."""
    from controller.errors import IllegalCommand
    from controller.games.base import Command
    from controller.games.captains_rochi import CaptainsRochi
    from controller.ledger import player_account
    from controller.simulate import COINS, Run, Tally

    engine = CaptainsRochi()
    state = engine.new_state(settings or {})
    for p in ("P1", "P2"):
        state, _ = engine.apply(state, Command("join", {"player": p}))
        state, _ = engine.apply(state, Command("buy-in", {"player": p, "amount": COINS}))
    first = {s: Tally() for s in SUITS}
    by_seed = Tally()
    for _ in range(turns):
        state, _ = engine.apply(state, Command("start-game", {}))
        cut = None
        for _step in range(MAX_STEPS):
            game = state.game
            if game.phase == "seeding":
                cmd = engine.chance_step(state, rng)
            elif strategy == "deal-only":
                if game.first_turn:
                    cmd = Command("pass", {"player": game.turn})
                elif game.dealt:
                    cmd = Command("end-turn", {"player": game.turn})
                else:
                    cmd = engine.chance_step(state, rng)
            else:
                cmd = engine.random_command(state, rng)
                if cmd.kind in ("stop", "start-game", "buy-in"):
                    cmd = engine.chance_step(state, rng)
            try:
                state, events = engine.apply(state, cmd)
            except IllegalCommand:
                continue
            dealt = next((e for e in events if e.kind == "dealt" and e.data.get("cut")), None)
            if dealt is not None:
                cut = dealt.data["suit"]
                by_seed.add(float(bool(dealt.data.get("seed"))))
                break
        for s in SUITS:
            first[s].add(float(cut == s))
        state, _ = engine.apply(state, Command("stop", {}))
        for p in ("P1", "P2"):
            if state.ledger.balance(player_account(p)) < COINS // 2:
                state, _ = engine.apply(state, Command("buy-in", {"player": p,
                                                                  "amount": COINS}))

    def extra(report: dict) -> dict:
        exact = {row["suit"]: row["cut_first"] for row in report["suits"]}
        return {"strategy": strategy, "first_cut_by_a_seed": by_seed.mean,
                "first_cut": {s: {"empirical": first[s].mean, "se": first[s].se,
                                  "exact": exact[s]} for s in SUITS}}

    # As in Rochi: a row's "edge" is minus its frequency, so the simulation's z-score compares
    # the frequency with the exact chance.
    def exact(report: dict) -> dict[str, Fraction]:
        return {f"first-cut-{row['suit']}": -Fraction(row["cut_first_exact"])
                for row in report["suits"]}

    return Run({f"first-cut-{s}": t for s, t in first.items()}, state, exact=exact,
               extra=extra)
