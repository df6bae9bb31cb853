"""Rugen: Street, House and Capital, played with the Rugen die (seeds/rochi-roche-rugen.md).

The die is a d20 marked 1 to 4, each number N on 2N sides, N Day and N Night
(`equipment/rugen-die.json`, faces labelled 1d .. 4n in the order of a standard d20's numbers:
the seed's transposing table). A number
N "breaks the chain" when it has been rolled N times in the chain before any other number broke.

  street-rugen   the shooter throws his point and bets base x k on it (bases 8, 5, 4, 3 for 1..4);
                 up to three joiners take the free numbers at base x the same k; in the chain the
                 first taken number to break takes all the money (rolls of untaken numbers are
                 ignored). Side-bet groups play the same chain with their own stakes.
  house-rugen    bets against the house: Center and one-roll Day/Night bets on the next roll;
                 chain bets (normal, Day chain, Night chain) on the number that breaks the chain.
  capital-rugen  players take numbers at the player price (x one k); the house covers every
                 unclaimed number at the house price; the number that breaks takes all.

Rulings beyond the seed and RULINGS.md: docs/rules/rugen.md.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from math import lcm
from types import MappingProxyType
from typing import Any

import equipment
from controller.errors import ConfigError, IllegalCommand
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
from controller.games.observation import Observation, Reading
from controller.ledger import bet_account, player_account
from controller.modes import Mode
from controller.settings import N_, Setting, phrase

EQUIPMENT = "rugen-die"
NUMBERS = (1, 2, 3, 4)
HALVES = ("day", "night")
DIES = ("rugen", "d20")

# -- the die ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Face:
    """One face of the Rugen die: its label (1d .. 4n), number, Day or Night, and its sides."""

    label: str
    number: int
    half: str
    sides: int


@cache
def load_die() -> tuple[Mapping[str, Face], Mapping[int, str]]:
    """The Rugen die's faces by label, and the transposing table of a d20 (number -> label),
    from `equipment/rugen-die.json` (its faces in the order of the d20's numbers)."""
    (die,) = equipment.load(EQUIPMENT)["dice"]
    d20 = dict(enumerate(die["faces"], start=1))
    assert len(d20) == 20, "the Rugen die has 20 sides"
    faces = {}
    for label in dict.fromkeys(die["faces"]):
        number, half = int(label[:-1]), {"d": "day", "n": "night"}[label[-1]]
        faces[label] = Face(label, number, half, die["faces"].count(label))
        assert faces[label].sides == number, f"{label} is on {number} sides of the Rugen die"
    return MappingProxyType(faces), MappingProxyType(d20)


FACES, D20 = load_die()
FACE_LABELS = tuple(FACES)


def face_of(face: object = None, d20: object = None) -> Face:
    """The face a roll names: a Rugen die's face ("3d") or a standard d20's number (14)."""
    if (face is None) == (d20 is None):
        raise IllegalCommand("a roll names the face of a Rugen die (face: 1d, 1n, 2d .. 4n) or "
                             "the number a standard d20 shows (d20: 1 to 20), one of them")
    if d20 is not None:
        if type(d20) is not int or not 1 <= d20 <= 20:
            raise IllegalCommand("d20 = %(d20)s: a standard d20 shows 1 to 20", d20=repr(d20))
        return FACES[D20[d20]]
    text = face.strip().lower() if isinstance(face, str) else face
    if text not in FACES:
        raise IllegalCommand("%(face)s is not a face of the Rugen die: one of %(faces)s",
                             face=repr(face), faces=FACE_LABELS)
    return FACES[text]  # type: ignore[index]


def counts(chain: tuple[str, ...]) -> dict[int, int]:
    """How often each number was rolled in `chain` (the markers on the layout)."""
    out = dict.fromkeys(NUMBERS, 0)
    for label in chain:
        out[FACES[label].number] += 1
    return out


def broke(chain: tuple[str, ...]) -> bool:
    """True when the last roll of `chain` made its number reach N rolls."""
    number = FACES[chain[-1]].number
    return counts(chain)[number] == number


# -- what every Rugen mode shares ---------------------------------------------------------------

Handled = tuple[State, list[Event]]


class RugenEngine(Engine):
    """The die, the roll command, the camera reading and the chance step of the Rugen modes."""

    chance_kinds = frozenset({"roll"})
    die_setting = Setting("die", "rugen", "the die thrown: a printed Rugen die (faces 1d .. 4n) "
                          "or a standard d20 read through the seed's transposing table",
                          choices=DIES)

    def rolled(self, cmd: Command) -> tuple[Face, Event]:
        """The face a roll command names, and the event saying what was rolled."""
        face = face_of(cmd.args.get("face"), cmd.args.get("d20"))
        data: dict[str, Any] = {"face": face.label, "number": face.number, "half": face.half}
        if "d20" in cmd.args:
            data["d20"] = cmd.args["d20"]
        return face, Event("rolled", data)

    def roll_command(self, state: State, rng: random.Random) -> Command:
        n = rng.randint(1, 20)
        if state.settings["die"] == "d20":
            return Command("roll", {"d20": n})
        return Command("roll", {"face": D20[n]})

    def chance_step(self, state: State, rng: random.Random) -> Command:
        """One throw of the die: each of its 20 sides alike."""
        return self.roll_command(state, rng)

    def demo_throw(self, state: State, rng: random.Random
                   ) -> tuple[list[str], list[str]]:
        """The die thrown: the face it shows (a d20's number read as its Rugen face)."""
        args = self.roll_command(state, rng).args
        return [args["face"] if "face" in args else D20[args["d20"]]], []

    def expects_roll(self, state: State) -> IllegalCommand | None:
        """Why no roll is expected now (the refusal), or None when one is."""
        return None

    def read(self, state: State, observation: Observation,
             min_confidence: float = 0.9) -> Reading:
        """The one die in the rolling area as a roll (its face, or a d20's number)."""
        why = self.expects_roll(state)
        if why:
            return Reading(problems=(str(why),))
        dice = [(i, o) for i, o in enumerate(observation.objects) if o.zone == "rolling"]
        if any(o.kind != "die" for _, o in dice):
            return Reading(problems=("something that is not a die is on the felt (a hand?)",))
        if len(dice) != 1:
            return Reading(problems=(f"{len(dice)} dice in the rolling area; Rugen throws one",))
        index, seen = dice[0]
        if seen.label is None or seen.confidence < min_confidence or seen.cocked:
            return Reading(uncertain=(index,), faces={"die": seen.label})
        # a d20's number when the reader gives one; the camera reads a die to its Rugen face
        if state.settings["die"] == "d20" and seen.label.isdigit():
            args: dict[str, Any] = {"d20": int(seen.label)}
        else:
            args = {"face": seen.label}
        cmd = Command("roll", args)
        try:
            self.verify(state, cmd)
        except IllegalCommand as exc:
            return Reading(problems=(str(exc),), faces={"die": seen.label})
        return Reading((cmd,), faces={"die": seen.label})

    @command("configure", settings=dict)
    def configure(self, state: State, cmd: Command) -> Handled:
        if state.ledger.accounts("bet"):
            raise IllegalCommand("settings change when no bets lie on the layout; wait for them "
                                 "to be settled")
        return Engine._configure(self, state, cmd)

    def light(self, state: State, events: tuple[Event, ...]) -> str:
        for event in events:
            if event.kind == "round-ended":
                won = any(e.kind == "bet-settled" and e.data["result"] == "win" for e in events)
                return "win" if won else "loss"
        return super().light(state, events)

    def bets_view(self, state: State) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for account, stake in sorted(state.ledger.accounts("bet").items()):
            _, player, spot = account.split(":")
            out.setdefault(player, {})[spot_id(spot)] = stake
        return out

    def check_money(self, state: State, player: str, kind: str, amount: int, what: str) -> None:
        """Refuse a stake outside the limits of `kind` or above the player's coins."""
        lo, hi = limits.limits(state.settings, kind)
        if not lo <= amount <= hi:
            raise IllegalCommand("a %(bet)s of %(amount)s is outside the table limits: %(lo)s to "
                                 "%(hi)s", bet=what, amount=amount, lo=lo, hi=hi)
        held = state.ledger.balance(player_account(player))
        if amount > held:
            raise IllegalCommand("%(player)s holds %(held)s coins; a %(bet)s of %(amount)s is "
                                 "more", player=player, held=held, bet=what, amount=amount)


def spot_id(spot: str) -> str:
    """A bet's id from its ledger spot: "chain-day.3" -> "chain-day:3"."""
    head, _, tail = spot.rpartition(".")
    return f"{head}:{tail}"


def pot_settlement(engine: Engine, state: State, pool: Mapping[int, str], spot: str,
                   winner: int | None, extra: int = 0) -> list[Event]:
    """Winner takes all: every stake in `pool` (number -> player, at `spot`.N) goes to the
    player of `winner` (None: to the house), with `extra` coins from the house (its stakes)."""
    events = []
    stakes = {n: state.ledger.balance(bet_account(p, f"{spot}.{n}")) for n, p in pool.items()}
    for n, player in sorted(pool.items()):
        if n == winner:
            won = sum(stakes.values()) - stakes[n] + extra
            events.append(engine.settle(state.ledger, player, f"{spot}.{n}", "win", won))
        else:
            events.append(engine.settle(state.ledger, player, f"{spot}.{n}", "lose"))
    return events


# -- House Rugen ------------------------------------------------------------------------------

HOUSE_KINDS = ("center", "day", "night", "chain", "chain-day", "chain-night")
ONE_ROLL = ("center", "day", "night")
HOUSE_NAMES = {"center": "Center bet", "day": "Day bet", "night": "Night bet",
               "chain": "chain bet", "chain-day": "Day chain bet",
               "chain-night": "Night chain bet"}
#: The seed's pays. Center: (Day, Night), for every N staked.
CENTER_PAYS = {1: ("9:1", "8:1"), 2: ("8:2", "7:2"), 3: ("7:3", "6:3"), 4: ("6:4", "5:4")}
DAY_NIGHT_PAYS = {1: "18:1", 2: "17:2", 3: "16:3", 4: "15:4"}
#: Chain bets: X:1, X the Day or Night figure by the breaking roll (RULINGS.md).
CHAIN_PAYS = {1: ("1:1", "1:1"), 2: ("3:1", "2:1"), 3: ("4:1", "3:1"), 4: ("5:1", "4:1")}
CHAIN_HALF_PAYS = {1: "3:1", 2: "12:1", 3: "35:1", 4: "90:1"}
#: No chain is longer than seven rolls: 1, 2, 3 and 4 can show 0, 1, 2, 3 times without a break.
LONGEST_CHAIN = sum(n - 1 for n in NUMBERS) + 1


@dataclass(frozen=True)
class HouseBet:
    """A House Rugen bet: "center:3", "day:1", "chain-night:4"."""

    kind: str
    number: int

    @property
    def id(self) -> str:
        return f"{self.kind}:{self.number}"

    @property
    def spot(self) -> str:
        return f"{self.kind}.{self.number}"

    @classmethod
    def parse(cls, text: object) -> HouseBet:
        kind, _, number = (text.strip().lower().replace(".", ":").rpartition(":")
                           if isinstance(text, str) else ("", "", ""))
        if kind not in HOUSE_KINDS or number not in ("1", "2", "3", "4"):
            raise IllegalCommand("%(text)s is not a bet: a bet is KIND:N, KIND one of %(kinds)s "
                                 "and N 1 to 4, e.g. center:3 or chain-day:2", text=repr(text),
                                 kinds=HOUSE_KINDS)
        return cls(kind, int(number))


def house_pays(settings: Mapping[str, Any], bet: HouseBet, half: str) -> Pays:
    """The pay of `bet` when it wins on a roll of `half` (Day or Night)."""
    n = bet.number
    key = {"center": f"center_{n}_{half}_pays", "day": f"day_{n}_pays",
           "night": f"night_{n}_pays", "chain": f"chain_{n}_{half}_pays",
           "chain-day": f"chain_day_{n}_pays", "chain-night": f"chain_night_{n}_pays"}[bet.kind]
    return Pays.parse(settings[key])


def house_unit(settings: Mapping[str, Any], bet: HouseBet) -> int:
    """Stakes on `bet` are multiples of this: N on the one-roll bets (RULINGS.md), and what
    makes every pay of the bet whole."""
    units = [house_pays(settings, bet, h).unit for h in HALVES]
    return lcm(bet.number if bet.kind in ONE_ROLL else 1, *units)


def house_wins(bet: HouseBet, chain: tuple[str, ...]) -> bool:
    """True when `bet` wins on the last roll of `chain` (chain bets: `chain` just broke)."""
    face = FACES[chain[-1]]
    if bet.number != face.number:
        return False
    if bet.kind == "center" or bet.kind == "chain":
        return True
    if bet.kind in ("day", "night"):
        return face.half == bet.kind
    half = bet.kind.removeprefix("chain-")
    return all(FACES[c].half == half for c in chain if FACES[c].number == bet.number)


@dataclass(frozen=True, kw_only=True)
class HouseRugenState(State):
    #: The rolls of the chain under way (its markers); empty at the start of a chain.
    chain: tuple[str, ...] = ()
    #: The last roll, for the screens.
    last: str | None = None


class HouseRugen(RugenEngine):
    name = "house-rugen"
    title = "House Rugen"
    state_type = HouseRugenState
    round_bound = LONGEST_CHAIN
    settings = (
        RugenEngine.die_setting,
        Setting("chain_bets_unmarked", False, "take chain bets mid-chain on numbers with no "
                "marker (the seed's 'unscrupulous houses'); otherwise only at a chain's start"),
        *(pays_setting(f"center_{n}_{h}_pays", CENTER_PAYS[n][i],
                       *phrase(N_("pay of a Center bet on %(number)s when a %(half)s "
                                  "%(number)s is rolled"), number=n, half=h.title()))
          for n in NUMBERS for i, h in enumerate(HALVES)),
        *(pays_setting(f"{h}_{n}_pays", DAY_NIGHT_PAYS[n],
                       *phrase(N_("pay of a %(bet)s on %(number)s"), bet=HOUSE_NAMES[h],
                               number=n))
          for h in HALVES for n in NUMBERS),
        *(pays_setting(f"chain_{n}_{h}_pays", CHAIN_PAYS[n][i],
                       *phrase(N_("pay of a chain bet on %(number)s when a %(half)s %(number)s "
                                  "breaks the chain"), number=n, half=h.title()))
          for n in NUMBERS for i, h in enumerate(HALVES)),
        *(pays_setting(f"chain_{h}_{n}_pays", CHAIN_HALF_PAYS[n],
                       *phrase(N_("pay of a %(bet)s on %(number)s"),
                               bet=HOUSE_NAMES[f"chain-{h}"], number=n))
          for h in HALVES for n in NUMBERS),
        *limits.limit_settings(HOUSE_NAMES),
    )

    def in_round(self, state: HouseRugenState) -> bool:
        return bool(state.chain)

    @command("bet", player=str, bet=str, amount=Arg(int, minimum=1))
    def bet(self, state: HouseRugenState, cmd: Command) -> Handled:
        player, amount = self.seated(state, cmd.args["player"]), cmd.args["amount"]
        bet = HouseBet.parse(cmd.args["bet"])
        name = HOUSE_NAMES[bet.kind]
        if bet.kind not in ONE_ROLL and state.chain:
            marked = counts(state.chain)
            if not state.settings["chain_bets_unmarked"]:
                raise IllegalCommand("a %(bet)s is taken at the start of a chain; this chain "
                                     "has begun (rolls so far: %(rolls)s). Bet when it breaks",
                                     bet=name, rolls=len(state.chain))
            if marked[bet.number]:
                free = [str(n) for n in NUMBERS if not marked[n]]
                if not free:
                    raise IllegalCommand("%(number)s has a marker in this chain; mid-chain, a "
                                         "%(bet)s is taken on a number with none, and every "
                                         "number has one now", number=bet.number, bet=name)
                raise IllegalCommand("%(number)s has a marker in this chain; mid-chain, a "
                                     "%(bet)s is taken on a number with none: %(free)s",
                                     number=bet.number, bet=name, free=free)
        unit = house_unit(state.settings, bet)
        if amount % unit:
            raise IllegalCommand("a %(bet)s on %(number)s is a multiple of %(unit)s coins, not "
                                 "%(amount)s", bet=name, number=bet.number, unit=unit,
                                 amount=amount)
        self.check_on_spot(state, player, bet.spot, bet.id, bet.kind, amount, name)
        day, night = (str(house_pays(state.settings, bet, h)) for h in HALVES)
        event = Event("bet-placed", {"player": player, "bet": bet.id, "amount": amount,
                                     "pays": day if day == night else f"{day} Day, {night} Night"},
                      (self.stake(player, bet.spot, amount),))
        return self.post(state, [event]), [event]

    @command("roll", face=Arg(str, optional=True), d20=Arg(int, optional=True))
    def roll(self, state: HouseRugenState, cmd: Command) -> Handled:
        face, rolled = self.rolled(cmd)
        chain = state.chain + (face.label,)
        breaks = broke(chain)
        events = [Event(rolled.kind, {**rolled.data, "count": counts(chain)[face.number],
                                      "breaks": breaks})]
        for account in sorted(state.ledger.accounts("bet")):
            _, player, spot = account.split(":")
            bet = HouseBet.parse(spot)
            if bet.kind not in ONE_ROLL and not breaks:
                continue
            if house_wins(bet, chain):
                stake = state.ledger.balance(account)
                won = house_pays(state.settings, bet, face.half).winnings(stake)
                events.append(self.settle(state.ledger, player, spot, "win", won))
            else:
                events.append(self.settle(state.ledger, player, spot, "lose"))
        state = self.post(state, events[1:])
        if not breaks:
            return state.replace(chain=chain, last=face.label), events
        events.append(RoundEnded("broken", None, {"number": face.number, "half": face.half,
                                                   "rolls": list(chain)}).event())
        return state.replace(chain=(), last=face.label, rounds=state.rounds + 1), events

    def view(self, state: HouseRugenState) -> dict:
        out = super().view(state)
        out.update(die=state.settings["die"], chain=list(state.chain),
                   markers=counts(state.chain), last=state.last, bets=self.bets_view(state),
                   chain_bets_open=not state.chain or state.settings["chain_bets_unmarked"],
                   pays={k: v for k, v in state.settings.items() if k.endswith("_pays")})
        return out

    def random_command(self, state: HouseRugenState, rng: random.Random) -> Command:
        if not state.seats:
            return Command("join", {"player": f"P{rng.randint(1, 9)}"})
        r = rng.random()
        if r < 0.03:
            return Command("buy-in", {"player": rng.choice(state.seats),
                                      "amount": rng.randint(1, 50)})
        if r < 0.05:
            return Command("cash-out", {"player": rng.choice(state.seats),
                                        "amount": rng.randint(1, 5)})
        if r < 0.45:
            bet = HouseBet(rng.choice(HOUSE_KINDS), rng.choice(NUMBERS))
            unit = house_unit(state.settings, bet)
            least = limits.smallest_stake(state.settings, bet.kind, unit) or unit
            return Command("bet", {"player": rng.choice(state.seats), "bet": bet.id,
                                   "amount": least + unit * rng.randint(0, 3)})
        return self.roll_command(state, rng)


# -- Street Rugen -----------------------------------------------------------------------------

#: The shooter's bet multiple by point; every bet on N is BASE[N] x one multiplier k.
BASE = {1: 8, 2: 5, 3: 4, 4: 3}
POINT, BETTING, CHAIN = "point", "betting", "chain"
CORE = "core"
_GROUP = re.compile(r"^[a-z0-9][a-z0-9-]{0,15}$")
#: Rolls of untaken numbers are ignored, so a chain has no fixed end; far past any real one.
STREET_BOUND = 1 + 400


def street_spot(pool: str) -> str:
    return "street" if pool == CORE else f"side.{pool}"


@dataclass(frozen=True, kw_only=True)
class StreetRugenState(State):
    shooter: str | None = None
    phase: str = POINT
    point: int | None = None
    #: The core game and each side-bet group: number -> the player who took it.
    pools: Mapping[str, Mapping[int, str]] = field(default_factory=lambda: MappingProxyType({}))
    #: Each pool's multiplier k (every bet on N in it is BASE[N] x k).
    multipliers: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    #: Pools already settled in this chain.
    settled: tuple[str, ...] = ()
    chain: tuple[str, ...] = ()


def _with(mapping: Mapping, key: Any, value: Any) -> Mapping:
    return MappingProxyType({**mapping, key: value})


class StreetRugen(RugenEngine):
    name = "street-rugen"
    title = "Street Rugen"
    state_type = StreetRugenState
    round_bound = STREET_BOUND
    settings = (
        RugenEngine.die_setting,
        *limits.limit_settings({"street": "bet on a number", "side": "side bet"}, 10**6),
    )

    def in_round(self, state: StreetRugenState) -> bool:
        # Between the point and the chain players may still sit down to join the shooter.
        return state.phase == CHAIN

    def seats_changed(self, new: StreetRugenState, old: State) -> StreetRugenState:
        if new.shooter in new.seats:
            return new
        # A new shooter throws his own point (a shooter who bet cannot leave: his bet is down).
        new = new.replace(phase=POINT, point=None)
        if not new.seats:
            return new.replace(shooter=None)
        if new.shooter is not None and new.shooter in old.seats:
            after = [p for p in old.seats[old.seats.index(new.shooter) + 1:] if p in new.seats]
            return new.replace(shooter=(after or list(new.seats))[0])
        return new.replace(shooter=new.seats[0])

    def least_stake(self, state: State, kind: str, number: int) -> int | None:
        return limits.smallest_stake(state.settings, kind, BASE[number])

    def can_cover(self, state: StreetRugenState, number: int) -> bool:
        """The shooter holds the least bet on `number`."""
        least = self.least_stake(state, "street", number)
        held = state.ledger.balance(player_account(state.shooter)) if state.shooter else 0
        return least is not None and least <= held

    def expects_roll(self, state: StreetRugenState) -> IllegalCommand | None:
        if state.shooter is None:
            return IllegalCommand("nobody is seated to shoot")
        if state.phase == BETTING and CORE not in state.pools:
            return IllegalCommand("%(shooter)s (the shooter) bets on his point, %(point)s, first",
                                  shooter=state.shooter, point=state.point)
        return None

    # -- commands ---------------------------------------------------------------------------------

    def _place(self, state: StreetRugenState, pool: str, player: str, number: int,
               amount: int, what: str) -> Handled:
        takers = state.pools.get(pool, {})
        k = state.multipliers.get(pool)
        if k is None:
            if amount % BASE[number]:
                raise IllegalCommand("a %(bet)s on %(number)s is a multiple of %(base)s coins "
                                     "(%(base)s x the multiplier), not %(amount)s", bet=what,
                                     number=number, base=BASE[number], amount=amount)
            k = amount // BASE[number]
        else:
            if number in takers:
                free = [str(n) for n in NUMBERS if n not in takers]
                if not free:
                    raise IllegalCommand("%(number)s is taken by %(taker)s; each number is bet "
                                         "once, and every number is taken",
                                         number=number, taker=takers[number])
                raise IllegalCommand("%(number)s is taken by %(taker)s; each number is bet once: "
                                     "free numbers %(free)s", number=number,
                                     taker=takers[number], free=free)
            if player in takers.values():
                mine = next(n for n, p in takers.items() if p == player)
                raise IllegalCommand("%(player)s has taken %(number)s already; one number each",
                                     player=player, number=mine)
            if amount != BASE[number] * k:
                raise IllegalCommand("a %(bet)s on %(number)s is in proportion to the others: "
                                     "%(base)s x %(k)s = %(stake)s coins, not %(amount)s",
                                     bet=what, number=number, base=BASE[number], k=k,
                                     stake=BASE[number] * k, amount=amount)
        kind = "street" if pool == CORE else "side"
        self.check_money(state, player, kind, amount, what)
        spot = f"{street_spot(pool)}.{number}"
        event = Event("bet-placed", {"player": player, "bet": spot_id(spot), "amount": amount,
                                     "multiplier": k},
                      (self.stake(player, spot, amount),))
        state = state.replace(pools=_with(state.pools, pool, _with(takers, number, player)),
                              multipliers=_with(state.multipliers, pool, k))
        return self.post(state, [event]), [event]

    @command("bet", player=str, number=Arg(int, choices=NUMBERS), amount=Arg(int, minimum=1))
    def bet(self, state: StreetRugenState, cmd: Command) -> Handled:
        player, number = self.seated(state, cmd.args["player"]), cmd.args["number"]
        if state.phase == POINT:
            raise IllegalCommand("the shooter (%(shooter)s) throws his point first; the bets "
                                 "follow", shooter=state.shooter)
        if state.phase == CHAIN:
            raise IllegalCommand("no more bets: the chain is under way")
        if CORE not in state.pools:
            if player != state.shooter:
                raise IllegalCommand("%(shooter)s (the shooter) bets on his point first; the "
                                     "others then join in proportion", shooter=state.shooter)
            if number != state.point:
                raise IllegalCommand("the shooter bets on his point, %(point)s, not %(number)s",
                                     point=state.point, number=number)
        elif player == state.shooter:
            raise IllegalCommand("%(player)s (the shooter) has bet on his point already",
                                 player=player)
        return self._place(state, CORE, player, number, cmd.args["amount"], "bet")

    @command("side-bet", player=str, group=str, number=Arg(int, choices=NUMBERS),
             amount=Arg(int, minimum=1))
    def side_bet(self, state: StreetRugenState, cmd: Command) -> Handled:
        player, group = self.seated(state, cmd.args["player"]), cmd.args["group"]
        if state.phase == CHAIN:
            raise IllegalCommand("no more bets: the chain is under way")
        if not isinstance(group, str) or not _GROUP.match(group) or group == CORE:
            raise IllegalCommand("group %(group)s: name a side-bet group with 1 to 16 lower-case "
                                 "letters, digits or dashes (not 'core')", group=repr(group))
        return self._place(state, group, player, cmd.args["number"], cmd.args["amount"],
                           "side bet")

    @command("pass-die")
    def pass_die(self, state: StreetRugenState, cmd: Command) -> Handled:
        shooter = state.shooter
        if shooter is None:
            raise IllegalCommand("nobody is seated to shoot")
        if state.phase == CHAIN or CORE in state.pools:
            raise IllegalCommand("%(shooter)s has bet on his point and cannot withdraw; the die "
                                 "passes when the chain breaks", shooter=shooter)
        if state.phase == BETTING and self.can_cover(state, state.point):
            raise IllegalCommand("%(shooter)s threw the point and must bet on it (at least "
                                 "%(least)s coins)", shooter=shooter,
                                 least=self.least_stake(state, "street", state.point))
        to = state.seat_after(shooter)
        events = [Event("die-passed", {"from": shooter, "to": to, "reason": "passed"})]
        # Side bets already made wait for the next shooter's chain.
        return state.replace(shooter=to, phase=POINT, point=None), events

    @command("roll", face=Arg(str, optional=True), d20=Arg(int, optional=True))
    def roll(self, state: StreetRugenState, cmd: Command) -> Handled:
        face, rolled = self.rolled(cmd)
        why = self.expects_roll(state)
        if why:
            raise why
        if state.phase == POINT:
            if not all(self.can_cover(state, n) for n in NUMBERS):
                stakes = {n: self.least_stake(state, "street", n) for n in NUMBERS}
                if None in stakes.values():
                    lo, hi = limits.limits(state.settings, "street")
                    n = next(n for n, v in stakes.items() if v is None)
                    raise IllegalCommand("the table's limits (%(lo)s to %(hi)s) admit no bet on "
                                         "%(number)s, a multiple of %(base)s: widen them to "
                                         "play", lo=lo, hi=hi, number=n, base=BASE[n])
                least = max(stakes.values())
                raise IllegalCommand("the shooter must be able to bet on any point: %(shooter)s "
                                     "needs at least %(least)s coins", shooter=state.shooter,
                                     least=least)
            event = Event("point", {**rolled.data, "shooter": state.shooter})
            return state.replace(phase=BETTING, point=face.number), [event]
        events: list[Event] = []
        if state.phase == BETTING:
            # The chain begins: a side group of one has nobody to bet against.
            pools = dict(state.pools)
            for pool, takers in state.pools.items():
                if pool != CORE and len(takers) < 2:
                    (number, player), = takers.items()
                    events.append(self.settle(state.ledger, player,
                                              f"{street_spot(pool)}.{number}", "push"))
                    del pools[pool]
            state = self.post(state, events)
            state = state.replace(phase=CHAIN, pools=MappingProxyType(pools))
        chain = state.chain + (face.label,)
        number, seen = face.number, counts(chain)[face.number]
        events.append(Event("rolled", {**rolled.data, "count": seen}))
        settled, first = list(state.settled), len(events)
        core_winner = None
        for pool, takers in sorted(state.pools.items()):
            if pool in settled or number not in takers or seen != number:
                continue
            settled.append(pool)
            events += pot_settlement(self, state, takers, street_spot(pool), number)
            events.append(Event("chain-broken", {"group": pool, "number": number,
                                                 "winner": takers[number]}))
            if pool == CORE:
                core_winner = takers[number]
        state = self.post(state, events[first:])
        if set(settled) != set(state.pools):
            return state.replace(chain=chain, settled=tuple(settled)), events
        shooter = state.shooter
        winner = core_winner or shooter
        events.append(RoundEnded("broken", shooter, {"number": number, "winner": winner,
                                                      "rolls": list(chain)}).event())
        if winner != shooter:
            events.append(Event("die-passed", {"from": shooter, "to": winner,
                                               "reason": "the winner takes the die"}))
        return state.replace(shooter=winner, phase=POINT, point=None,
                             pools=MappingProxyType({}), multipliers=MappingProxyType({}),
                             settled=(), chain=(), rounds=state.rounds + 1), events

    def view(self, state: StreetRugenState) -> dict:
        out = super().view(state)
        out.update(die=state.settings["die"], shooter=state.shooter, phase=state.phase,
                   point=state.point, chain=list(state.chain), markers=counts(state.chain),
                   pools={p: {str(n): who for n, who in t.items()} for p, t in state.pools.items()},
                   multipliers=dict(state.multipliers), settled=list(state.settled),
                   bases={str(n): b for n, b in BASE.items()}, bets=self.bets_view(state))
        return out

    def random_command(self, state: StreetRugenState, rng: random.Random) -> Command:
        if not state.seats:
            return Command("join", {"player": f"P{rng.randint(1, 9)}"})
        shooter = state.shooter
        r = rng.random()
        if state.phase == POINT:
            if r < 0.05:
                return Command("buy-in", {"player": rng.choice(state.seats),
                                          "amount": rng.randint(1, 50)})
            if r < 0.07:
                return Command("cash-out", {"player": rng.choice(state.seats),
                                            "amount": rng.randint(1, 5)})
            if r < 0.15:
                return self._random_side(state, rng)
            if r < 0.18:
                return Command("pass-die")
            if not all(self.can_cover(state, n) for n in NUMBERS):
                return Command("buy-in", {"player": shooter, "amount": rng.randint(10, 50)})
            return self.roll_command(state, rng)
        if state.phase == BETTING:
            if CORE not in state.pools:
                k = rng.randint(1, 3)
                return Command("bet", {"player": shooter, "number": state.point,
                                       "amount": BASE[state.point] * k})
            if r < 0.5:
                k = state.multipliers[CORE]
                n = rng.choice(NUMBERS)
                return Command("bet", {"player": rng.choice(state.seats), "number": n,
                                       "amount": BASE[n] * k})
            if r < 0.6:
                return self._random_side(state, rng)
        return self.roll_command(state, rng)

    def _random_side(self, state: StreetRugenState, rng: random.Random) -> Command:
        group = rng.choice(("a", "b"))
        n = rng.choice(NUMBERS)
        k = state.multipliers.get(group, rng.randint(1, 2))
        return Command("side-bet", {"player": rng.choice(state.seats), "group": group,
                                    "number": n, "amount": BASE[n] * k})


# -- Capital Rugen ----------------------------------------------------------------------------

#: The seed's two schedules (player price, house price by number 1..4).
SCHEDULES = {
    "low": {"player": (8, 5, 4, 3), "house": (7, 4, 3, 2)},
    "high": {"player": (80, 50, 40, 30), "house": (75, 45, 35, 25)},
}


def prices(settings: Mapping[str, Any]) -> tuple[dict[int, int], dict[int, int]]:
    """The player and house prices by number at a table with `settings`."""
    if settings["schedule"] == "custom":
        player, house = settings["player_prices"], settings["house_prices"]
    else:
        player, house = SCHEDULES[settings["schedule"]].values()
    return dict(zip(NUMBERS, player, strict=True)), dict(zip(NUMBERS, house, strict=True))


@dataclass(frozen=True, kw_only=True)
class CapitalRugenState(State):
    phase: str = BETTING
    #: number -> the player who took it
    takers: Mapping[int, str] = field(default_factory=lambda: MappingProxyType({}))
    multiplier: int | None = None
    #: number -> the house's stake on it, once the chain begins
    house: Mapping[int, int] = field(default_factory=lambda: MappingProxyType({}))
    chain: tuple[str, ...] = ()


class CapitalRugen(RugenEngine):
    name = "capital-rugen"
    title = "Capital Rugen"
    state_type = CapitalRugenState
    round_bound = LONGEST_CHAIN
    settings = (
        RugenEngine.die_setting,
        Setting("schedule", "low", "the price schedule: the seed's 'low' (players 8 5 4 3, "
                "house 7 4 3 2), 'high' (80 50 40 30 against 75 45 35 25) or 'custom'",
                choices=("low", "high", "custom")),
        Setting("player_prices", [8, 5, 4, 3], "custom schedule: the player's price on 1, 2, "
                "3, 4"),
        Setting("house_prices", [7, 4, 3, 2], "custom schedule: the house's price on 1, 2, 3, 4"),
        *limits.limit_settings({"capital": "Capital bet"}, 10**6),
    )

    def check_settings(self, values: Mapping[str, Any]) -> None:
        super().check_settings(values)
        for key in ("player_prices", "house_prices"):
            v = values[key]
            if len(v) != 4 or not all(type(x) is int and x >= 1 for x in v):
                raise ConfigError("%(key)s = %(value)s: four whole prices of at least 1, for "
                                  "the numbers 1, 2, 3 and 4", key=key, value=repr(v))

    def in_round(self, state: CapitalRugenState) -> bool:
        return state.phase == CHAIN

    def expects_roll(self, state: CapitalRugenState) -> IllegalCommand | None:
        if state.phase == BETTING and not state.takers:
            return IllegalCommand("the chain begins once a player has taken a number")
        return None

    @command("bet", player=str, number=Arg(int, choices=NUMBERS), amount=Arg(int, minimum=1))
    def bet(self, state: CapitalRugenState, cmd: Command) -> Handled:
        player, number = self.seated(state, cmd.args["player"]), cmd.args["number"]
        amount = cmd.args["amount"]
        if state.phase == CHAIN:
            raise IllegalCommand("no more bets: the chain is under way")
        price = prices(state.settings)[0][number]
        k = state.multiplier
        if k is None:
            if amount % price:
                raise IllegalCommand("a Capital bet on %(number)s is a multiple of the player "
                                     "price, %(price)s coins, not %(amount)s", number=number,
                                     price=price, amount=amount)
            k = amount // price
        else:
            if number in state.takers:
                free = [str(n) for n in NUMBERS if n not in state.takers]
                if not free:
                    raise IllegalCommand("%(number)s is taken by %(taker)s; each number is bet "
                                         "once, and every number is taken",
                                         number=number, taker=state.takers[number])
                raise IllegalCommand("%(number)s is taken by %(taker)s; each number is bet once: "
                                     "free numbers %(free)s", number=number,
                                     taker=state.takers[number], free=free)
            if player in state.takers.values():
                mine = next(n for n, p in state.takers.items() if p == player)
                raise IllegalCommand("%(player)s has taken %(number)s already; one number each",
                                     player=player, number=mine)
            if amount != price * k:
                raise IllegalCommand("a Capital bet on %(number)s is %(price)s x %(k)s = "
                                     "%(stake)s coins at this game's multiplier, not %(amount)s",
                                     number=number, price=price, k=k, stake=price * k,
                                     amount=amount)
        self.check_money(state, player, "capital", amount, "Capital bet")
        spot = f"capital.{number}"
        event = Event("bet-placed", {"player": player, "bet": spot_id(spot), "amount": amount,
                                     "multiplier": k}, (self.stake(player, spot, amount),))
        state = state.replace(takers=_with(state.takers, number, player), multiplier=k)
        return self.post(state, [event]), [event]

    @command("roll", face=Arg(str, optional=True), d20=Arg(int, optional=True))
    def roll(self, state: CapitalRugenState, cmd: Command) -> Handled:
        face, rolled = self.rolled(cmd)
        why = self.expects_roll(state)
        if why:
            raise why
        events: list[Event] = []
        if state.phase == BETTING:
            house_price = prices(state.settings)[1]
            house = {n: house_price[n] * state.multiplier for n in NUMBERS
                     if n not in state.takers}
            events.append(Event("house-covers", {"stakes": {str(n): s for n, s in house.items()}}))
            state = state.replace(phase=CHAIN, house=MappingProxyType(house))
        chain = state.chain + (face.label,)
        breaks = broke(chain)
        events.append(Event("rolled", {**rolled.data, "count": counts(chain)[face.number],
                                       "breaks": breaks}))
        if not breaks:
            return state.replace(chain=chain), events
        number = face.number
        winner = state.takers.get(number)
        house_total = sum(state.house.values())
        first = len(events)
        events += pot_settlement(self, state, state.takers, "capital",
                                 number if winner else None,
                                 extra=house_total)
        state = self.post(state, events[first:])
        events.append(RoundEnded("broken", None, {"number": number, "winner": winner or "house",
                                                   "rolls": list(chain)}).event())
        return state.replace(phase=BETTING, takers=MappingProxyType({}), multiplier=None,
                             house=MappingProxyType({}), chain=(),
                             rounds=state.rounds + 1), events

    def view(self, state: CapitalRugenState) -> dict:
        out = super().view(state)
        player, house = prices(state.settings)
        out.update(die=state.settings["die"], phase=state.phase, chain=list(state.chain),
                   markers=counts(state.chain),
                   takers={str(n): p for n, p in state.takers.items()},
                   multiplier=state.multiplier,
                   house={str(n): s for n, s in state.house.items()},
                   prices={"player": player, "house": house}, bets=self.bets_view(state))
        return out

    def random_command(self, state: CapitalRugenState, rng: random.Random) -> Command:
        if not state.seats:
            return Command("join", {"player": f"P{rng.randint(1, 9)}"})
        r = rng.random()
        if state.phase == BETTING:
            if r < 0.03:
                return Command("buy-in", {"player": rng.choice(state.seats),
                                          "amount": rng.randint(1, 50)})
            if r < 0.05:
                return Command("cash-out", {"player": rng.choice(state.seats),
                                            "amount": rng.randint(1, 5)})
            if r < 0.5 or not state.takers:
                n = rng.choice(NUMBERS)
                price = prices(state.settings)[0][n]
                return Command("bet", {"player": rng.choice(state.seats), "number": n,
                                       "amount": price * (state.multiplier or rng.randint(1, 3))})
        return self.roll_command(state, rng)


RESULT_WORDS = {"broken": "the chain is broken"}


def _breaks_the_chain(number: int) -> tuple:
    """A Street or Capital Rugen spot in words: the number the player takes."""
    return phrase(N_("%(number)s to break the chain"), number=number)[1]


#: Each mode's bet spots (the ledger's names, "chain-day.3") in words.
HOUSE_WORDS = {HouseBet(k, n).spot: phrase(N_("%(bet)s on %(number)s"), bet=HOUSE_NAMES[k],
                                           number=n)[1]
               for k in HOUSE_KINDS for n in NUMBERS}
STREET_WORDS = {**{f"street.{n}": _breaks_the_chain(n) for n in NUMBERS},
                **{f"side.{n}": phrase(N_("%(number)s to break the chain (side bet)"),
                                       number=n)[1] for n in NUMBERS}}
CAPITAL_WORDS = {f"capital.{n}": _breaks_the_chain(n) for n in NUMBERS}


def _mode(engine: RugenEngine, part: str, **extra: Any) -> Mode:
    """A Rugen mode's record: its odds, simulation and page are the `part` ones of the
    family's modules (controller.odds.rugen, web.modes.rugen); one die, one result."""
    return Mode(engine=engine, odds_ref=f"controller.odds.rugen:{part}_report",
                odds_text_ref="controller.odds.rugen:odds_text",
                simulate_ref=f"controller.odds.rugen:simulate_{part}",
                page_ref=f"web.modes.rugen:{part.upper()}_PAGE", equipment=EQUIPMENT,
                result_words=RESULT_WORDS, **extra)


HOUSE_MODE = _mode(HouseRugen(), "house", bet_words=HOUSE_WORDS)
STREET_MODE = _mode(StreetRugen(), "street", receipts=("bet-slip",), bet_words=STREET_WORDS)
CAPITAL_MODE = _mode(CapitalRugen(), "capital", receipts=("bet-slip",),
                     bet_words=CAPITAL_WORDS)
