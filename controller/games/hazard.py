"""Hazard: the caster calls a main from 5 to 9 and throws two dice (seeds/hazard.md).

First throw: the main nicks (caster wins), 2 and 3 throw out, 11 and 12 nick or throw out
by the main; any other total is the chance. Then the caster throws until the chance (wins)
or the main (loses). He keeps the dice until three losses in succession.

Bets (RULINGS.md): caster-wins (even money), caster-loses (even money less a commission of
5% of the win, rounded down), and once a chance is set, odds on the chance against the main
at true odds.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from math import gcd

from controller.errors import IllegalCommand
from controller.games import limits
from controller.games.base import (
    Arg,
    Command,
    Engine,
    Event,
    Pays,
    RoundEnded,
    State,
    command,
    pays_setting,
)
from controller.games.observation import Observation, Reading, pip_dice
from controller.ledger import BANK, Entry, bet_account, player_account
from controller.modes import Mode
from controller.settings import N_, Name, Setting

MAINS = (5, 6, 7, 8, 9)
BETS = ("caster-wins", "caster-loses", "odds")
#: Ways to throw each total with two dice.
WAYS = {t: 6 - abs(t - 7) for t in range(2, 13)}


def first_throw(main: int, total: int) -> str:
    """'nick', 'out' or 'chance': the seed's table for the first throw after calling `main`."""
    if total == main:
        return "nick"
    if total in (2, 3):
        return "out"
    if total == 11:
        return "nick" if main == 7 else "out"
    if total == 12:
        return "nick" if main in (6, 8) else "out"
    return "chance"


def commission(win: int, percent: int) -> int:
    """The commission on a caster-loses win of `win` coins: `percent`% of it, rounded down."""
    return win * percent // 100


def odds_pays(main: int, chance: int) -> Pays:
    """True odds of the chance coming before the main: ways(main) to ways(chance)."""
    m, c = WAYS[main], WAYS[chance]
    g = gcd(m, c)
    return Pays(m // g, c // g)


@dataclass(frozen=True, kw_only=True)
class HazardState(State):
    caster: str | None = None
    main: int | None = None
    chance: int | None = None
    #: Throws in the current round.
    throws: int = 0
    #: The caster's losses in succession.
    losses: int = 0


class Hazard(Engine):
    name = "hazard"
    title = "Hazard"
    state_type = HazardState
    chance_kinds = frozenset({"throw"})
    # P(neither chance nor main) <= 27/36 per throw: 200 throws is beyond any real round.
    round_bound = 200
    settings = (
        pays_setting("caster_wins_pays", "1:1", "pay of a bet that the caster wins"),
        pays_setting("caster_loses_pays", "1:1", "pay of a bet that the caster loses, before commission"),
        Setting("commission_percent", 5, "commission on a caster-loses win, rounded down",
                minimum=0, maximum=50),
        Setting("losses_to_pass", 3, "losses in succession after which the dice pass left",
                minimum=1, maximum=10),
        *limits.limit_settings({"caster-wins": "caster-wins bet",
                                "caster-loses": "caster-loses bet", "odds": "odds bet"}),
    )

    def in_round(self, state: HazardState) -> bool:
        return state.main is not None

    def seats_changed(self, new: HazardState, old: State) -> HazardState:
        if new.caster in new.seats:
            return new
        if not new.seats:
            return new.replace(caster=None, losses=0)
        # The caster left: the dice go to the player on his left.
        if new.caster is not None and new.caster in old.seats:
            after = [p for p in old.seats[old.seats.index(new.caster) + 1 :] if p in new.seats]
            return new.replace(caster=(after or list(new.seats))[0], losses=0)
        return new.replace(caster=new.seats[0], losses=0)

    # -- commands ------------------------------------------------------------------------------

    def _check_caster(self, state: HazardState, cmd: Command, action: str) -> None:
        if state.caster is None:
            raise IllegalCommand("nobody is seated to cast")
        player = cmd.args.get("player", state.caster)
        if player != state.caster:
            raise IllegalCommand("only the caster (%(caster)s) may %(action)s; %(player)s is "
                                 "not the caster", caster=Name(state.caster), action=action,
                                 player=Name(player))

    @command("call-main", main=Arg(int, choices=MAINS), player=Arg(str, optional=True))
    def call_main(self, state: HazardState, cmd: Command) -> tuple[State, list[Event]]:
        self._check_caster(state, cmd, N_("call the main"))
        if self.in_round(state):
            raise IllegalCommand("the main is already %(main)s; throw the dice", main=state.main)
        main = cmd.args["main"]
        return state.replace(main=main), [Event("main-called", {"caster": state.caster,
                                                                "main": main})]

    @command("bet", player=str, bet=Arg(str, choices=BETS), amount=Arg(int, minimum=1))
    def bet(self, state: HazardState, cmd: Command) -> tuple[State, list[Event]]:
        player, kind, amount = cmd.args["player"], cmd.args["bet"], cmd.args["amount"]
        self.seated(state, player)
        if not self.in_round(state):
            raise IllegalCommand("bets open once the caster has called a main")
        if kind == "odds":
            if state.chance is None:
                raise IllegalCommand("odds are laid once a chance is set")
            unit = odds_pays(state.main, state.chance).unit
        else:
            if state.throws:
                raise IllegalCommand("%(bet)s bets are taken before the first throw", bet=kind)
            if kind == "caster-loses" and player == state.caster:
                raise IllegalCommand("the caster may not bet that he loses")
            unit = self._pays(state, kind).unit
        if amount % unit:
            raise IllegalCommand("a %(bet)s bet must be a multiple of %(unit)s coins, not "
                                 "%(amount)s", bet=kind, unit=unit, amount=amount)
        lo, hi = limits.limits(state.settings, kind)
        on_spot = state.ledger.balance(bet_account(player, kind))
        held = state.ledger.balance(player_account(player))
        values = {"player": Name(player), "total": on_spot + amount, "bet": kind, "on_spot": on_spot,
                  "low": lo, "high": hi, "held": held, "amount": amount}
        if not lo <= on_spot + amount <= hi and on_spot:
            raise IllegalCommand("%(player)s would have %(total)s on %(bet)s (%(on_spot)s "
                                 "already on it); the table takes %(low)s to %(high)s", **values)
        if not lo <= on_spot + amount <= hi:
            raise IllegalCommand("%(player)s would have %(total)s on %(bet)s; the table takes "
                                 "%(low)s to %(high)s", **values)
        if amount > held == 1:
            raise IllegalCommand("%(player)s holds 1 coin; a %(bet)s bet of %(amount)s is more",
                                 **values)
        if amount > held:
            raise IllegalCommand("%(player)s holds %(held)s coins; a %(bet)s bet of %(amount)s "
                                 "is more", **values)
        event = Event("bet-placed", {"player": player, "bet": kind, "amount": amount},
                      (self.stake(player, kind, amount),))
        return self.post(state, [event]), [event]

    @command("throw", dice=list, player=Arg(str, optional=True))
    def throw(self, state: HazardState, cmd: Command) -> tuple[State, list[Event]]:
        self._check_caster(state, cmd, N_("throw the dice"))
        dice = cmd.args["dice"]
        if len(dice) != 2 or not all(type(d) is int and 1 <= d <= 6 for d in dice):
            raise IllegalCommand("a throw is two dice from 1 to 6, not %(dice)s", dice=repr(dice))
        if not self.in_round(state):
            raise IllegalCommand("the caster calls a main before throwing")
        total = sum(dice)
        if state.chance is None:
            result = first_throw(state.main, total)
        elif total == state.chance:
            result = "nick"
        elif total == state.main:
            result = "out"
        else:
            result = "again"
        thrown = Event("thrown", {"caster": state.caster, "dice": list(dice), "total": total,
                                  "result": result})
        state = state.replace(throws=state.throws + 1)
        if result == "chance":
            return state.replace(chance=total), [thrown]
        if result == "again":
            return state, [thrown]
        return self._end_round(state, caster_won=result == "nick", first=[thrown])

    def _pays(self, state: HazardState, kind: str) -> Pays:
        if kind == "odds":
            return odds_pays(state.main, state.chance)
        return Pays.parse(state.settings[f"{kind.replace('-', '_')}_pays"])

    def _end_round(self, state: HazardState, caster_won: bool,
                   first: list[Event]) -> tuple[State, list[Event]]:
        events = list(first)
        for account, stake in sorted(state.ledger.accounts("bet").items()):
            _, player, kind = account.split(":")
            wins = caster_won == (kind != "caster-loses")
            winnings = self._pays(state, kind).winnings(stake) if wins else 0
            event = self.settle(state.ledger, player, kind, "win" if wins else "lose", winnings)
            fee = commission(winnings, state.settings["commission_percent"]) \
                if kind == "caster-loses" else 0
            if fee:
                # The commission is its own entry, so the statement shows it as a fee.
                event = Event(event.kind, {**event.data, "paid": event.data["paid"] - fee,
                                           "commission": fee},
                              event.entries + (Entry.transfer("fee", player_account(player),
                                                              BANK, fee, "commission"),))
            events.append(event)
        state = self.post(state, events[len(first):])
        caster = state.caster
        losses = 0 if caster_won else state.losses + 1
        events.append(RoundEnded("caster-wins" if caster_won else "caster-loses", caster,
                                 {"main": state.main, "chance": state.chance}).event())
        if losses >= state.settings["losses_to_pass"]:
            to = state.seat_after(caster)
            events.append(Event("dice-passed", {"from": caster, "to": to,
                                                "reason": f"{losses} losses in succession"}))
            caster, losses = to, 0
        return state.replace(main=None, chance=None, throws=0, losses=losses, caster=caster,
                             rounds=state.rounds + 1), events

    # -- views and play --------------------------------------------------------------------------

    def light(self, state: HazardState, events: tuple[Event, ...]) -> str:
        ended = RoundEnded.among(events)
        if ended is not None:
            return "win" if ended.result == "caster-wins" else "loss"
        return super().light(state, events)

    def view(self, state: HazardState) -> dict:
        out = super().view(state)
        out.update(caster=state.caster, main=state.main, chance=state.chance,
                   throws=state.throws, losses=state.losses,
                   bets=state.ledger.accounts("bet"))
        if state.chance is not None:
            out["odds_pays"] = str(odds_pays(state.main, state.chance))
        return out

    def random_command(self, state: HazardState, rng: random.Random) -> Command:
        if not self.in_round(state):
            if rng.random() < 0.05 and state.seats:
                p = rng.choice(state.seats)
                return Command("buy-in", {"player": p, "amount": rng.randint(1, 50)})
            if rng.random() < 0.03 and state.seats:
                return Command("cash-out", {"player": rng.choice(state.seats),
                                            "amount": rng.randint(1, 5)})
            return Command("call-main", {"main": rng.choice(MAINS)})
        if state.seats and rng.random() < (0.5 if state.throws == 0 else 0.15):
            player = rng.choice(state.seats)
            if state.chance is not None:
                kind = "odds"
                unit = odds_pays(state.main, state.chance).unit
            else:
                kind = rng.choice(BETS[:2])
                unit = 1
            held = state.ledger.balance(player_account(player))
            amount = unit * rng.randint(1, max(1, min(held, 20) // unit))
            return Command("bet", {"player": player, "bet": kind, "amount": amount})
        return self.chance_step(state, rng)

    def chance_step(self, state: HazardState, rng: random.Random) -> Command:
        """Two dice thrown at random."""
        return Command("throw", {"dice": [rng.randint(1, 6), rng.randint(1, 6)]})

    def demo_throw(self, state: HazardState, rng: random.Random
                   ) -> tuple[list[str], list[str]]:
        """The caster's two pip dice, thrown."""
        return [f"PIP-{d}" for d in self.chance_step(state, rng).args["dice"]], []

    def read(self, state: HazardState, observation: Observation,
             min_confidence: float = 0.9) -> Reading:
        """A settled throw: the two pip dice in the rolling area, as the caster's throw."""
        dice, faces, problems, uncertain = pip_dice(observation, min_confidence)
        if not uncertain and not problems and len(dice) != 2:
            problems.append(f"Hazard throws two dice; {len(dice)} are read")
        if problems or uncertain:
            return Reading(problems=tuple(dict.fromkeys(problems)), uncertain=tuple(uncertain),
                           faces=faces)
        cmd = Command("throw", {"dice": dice})
        try:
            self.verify(state, cmd)
        except IllegalCommand as exc:
            return Reading(problems=(str(exc),), faces=faces)
        return Reading((cmd,), faces=faces)


#: Each bet in words (the page's spots, the settlement, the slips).
BET_WORDS = {"caster-wins": N_("caster wins"), "caster-loses": N_("caster loses"),
             "odds": N_("odds on the chance")}

MODE = Mode(
    engine=Hazard(),
    equipment="pip-dice",
    odds_ref="controller.odds.hazard:odds",
    odds_text_ref="controller.odds.hazard:odds_text",
    simulate_ref="controller.odds.hazard:simulate",
    page_ref="web.modes.hazard:PAGE",
    result_words={"caster-wins": "the caster wins", "caster-loses": "the caster loses"},
    bet_words=BET_WORDS,
)
