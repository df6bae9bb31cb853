"""Fortunes and Winds: labelled dice, a shooter, riders, side bets (seeds/fortunes-and-winds.md).

A turn: bets are laid (the shooter's standard bet and as much again "for Lord Moon", riders'
standard + Lord Moon bets, side bets by the others), then up to three rolls. After a roll with
neither Lord Moon nor a combination the shooter may set aside white dice just rolled (at most
three in the turn) and rolls the rest; the black Moon die is rolled every time. A combination
wins (double the listed pay on roll 1), Lord Moon loses the bet and the Lord Moon money, no
combination after roll 3 loses the bet and returns the Lord Moon money. After a loss the dice
pass to the left; after a win the shooter throws a new turn or passes the dice.

The dice and their labels live here, once: `DICE`, `DIE_OF`, `LABELS`, `COMBINATIONS`.
Rulings beyond the seed and RULINGS.md: docs/rules/fortunes-and-winds.md.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from math import lcm
from types import MappingProxyType
from typing import Any

import equipment
from controller.errors import ConfigError, IllegalCommand, Words
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
from controller.settings import N_, Name, Setting

# -- the dice ---------------------------------------------------------------------------------


#: A combination's pay setting, in words.
PAY_OF = N_("pay of %(combination)s (doubled on the first roll)")


@dataclass(frozen=True)
class Die:
    """One die of the set: its name, colour and six faces (labels, uppercase English)."""

    name: str
    colour: str
    faces: tuple[str, str, str, str, str, str]

    @property
    def title(self) -> str:
        return f"{self.name.title()} die"


#: The printed dice, as equipment/fortunes-and-winds.json has them (the recognizer and the
#: dashboard read the same file).
EQUIPMENT = "fortunes-and-winds"
DICE: tuple[Die, ...] = tuple(Die(d["name"], d["colour"], tuple(d["faces"]))
                              for d in equipment.load(EQUIPMENT)["dice"])
DIE_NAMES: tuple[str, ...] = tuple(d.name for d in DICE)
DIE: Mapping[str, Die] = MappingProxyType({d.name: d for d in DICE})
WHITE_DICE: tuple[str, ...] = tuple(d.name for d in DICE if d.colour == "white")
#: The black die, rolled on every roll.
MOON_DIE = "MOON"
#: Every label, each belonging to exactly one die, in die order.
LABELS: tuple[str, ...] = tuple(dict.fromkeys(f for d in DICE for f in d.faces))
#: The die that carries each label.
DIE_OF: Mapping[str, str] = MappingProxyType({f: d.name for d in DICE for f in d.faces})
ELEMENTS = ("EARTH", "WATER", "FIRE", "AIR")
WINDS = ("NORTH", "EAST", "WEST", "SOUTH")
#: Lord Moon: this face of the black die loses the bet and the Lord Moon money.
LORD_MOON = "MOON"


@dataclass(frozen=True)
class Combination:
    """A scoring combination: four white faces of one kind and one face of the black die."""

    id: str
    name: str
    white: tuple[str, ...]
    black: str
    pays: str

    @property
    def setting(self) -> str:
        return self.id.replace("-", "_") + "_pays"


COMBINATIONS: tuple[Combination, ...] = (
    Combination("fortunes-and-winds", "Fortunes and Winds", WINDS, "FORTUNES", "4:1"),
    Combination("ladys-breath", "The Lady's Breath", WINDS, "SUN", "4:1"),
    Combination("empty-winds", "Empty Winds", WINDS, "VOID", "2:1"),
    Combination("shinseis-blessing", "Shinsei's Blessing", ELEMENTS, "VOID", "2:1"),
    Combination("ladys-tears", "The Lady's Tears", ELEMENTS, "SUN", "2:1"),
    Combination("seven-thunders", "Seven Thunders", ELEMENTS, "FORTUNES", "1:1"),
)
COMBINATION: Mapping[str, Combination] = MappingProxyType({c.id: c for c in COMBINATIONS})


def combination_of(showing: Mapping[str, str]) -> Combination | None:
    """The combination the five dice show (die name -> label), or None."""
    white = tuple(showing.get(d) for d in WHITE_DICE)
    black = showing.get(MOON_DIE)
    for combo in COMBINATIONS:
        if white == combo.white and black == combo.black:
            return combo
    return None


def parse_faces(faces: object) -> dict[str, str]:
    """Labels (a list, or a string of words) as die name -> label; raise with what is accepted."""
    if isinstance(faces, str):
        faces = faces.replace(",", " ").split()
    if not isinstance(faces, list | tuple):
        raise IllegalCommand("faces are a list of labels such as [\"NORTH\", \"VOID\"], "
                             "not %(faces)s", faces=repr(faces))
    out: dict[str, str] = {}
    for face in faces:
        label = face.strip().upper() if isinstance(face, str) else face
        if label not in DIE_OF:
            raise IllegalCommand("%(face)s is not a face of the Fortunes and Winds dice; the "
                                 "faces are %(faces)s", face=repr(face), faces=LABELS)
        die = DIE_OF[label]
        if die in out:
            raise IllegalCommand("%(face)s and %(other)s are both faces of the %(die)s; a die "
                                 "shows one face", face=out[die], other=label,
                                 die=DIE[die].title)
        out[die] = label
    return out


def dice_words(dice: Iterable[str]) -> Words:
    """'the Earth, Fire and Moon dice' for people (`str()` of it; the dashboard translates)."""
    names = [DIE[d].name.title() for d in dice]
    if not names:
        return Words("no dice")
    if len(names) == 1:
        return Words("the %(die)s die", die=names[0])
    return Words("the %(dice)s dice", dice=Words("%(first)s and %(last)s", first=names[:-1],
                                                 last=names[-1]))


# -- bets -------------------------------------------------------------------------------------

STANDARD = "standard"
#: The Lord Moon money: a spot of its own, always equal to the standard bet beside it.
LORD_MOON_SPOT = "lord-moon"
SIDE_BETS = ("daikoku-for", "daikoku-against", "lady-sun-tea", "hungry-moon")
BET_KINDS = (STANDARD, *SIDE_BETS)
BET_NAMES = {
    STANDARD: N_("standard bet"),
    "daikoku-for": N_("Daikoku's Belly (for the shooter)"),
    "daikoku-against": N_("Daikoku's Belly (against the shooter)"),
    "lady-sun-tea": N_("Lady Sun's Tea"),
    "hungry-moon": N_("Hungry Moon"),
}
#: How a turn ended.
WIN, LORD_MOON_LOSS, NO_COMBINATION = "win", "lord-moon", "no-combination"
MAX_ROLLS = 3
MAX_SET_ASIDE = 3


def _key(kind: str) -> str:
    return kind.replace("-", "_")


@dataclass(frozen=True)
class TurnOutcome:
    """How a turn ended: result, the combination (on a win), rolls made, the dice showing."""

    result: str
    combination: str | None
    rolls: int
    showing: tuple[str, ...]

    def to_json(self) -> dict:
        return {"result": self.result, "combination": self.combination, "rolls": self.rolls,
                "showing": list(self.showing)}


def bet_result(kind: str, outcome: TurnOutcome) -> str:
    """'win', 'lose' or 'push' for a bet of `kind` (or the Lord Moon money) after `outcome`."""
    won = outcome.result == WIN
    if kind == STANDARD:
        return "win" if won else "lose"
    if kind == LORD_MOON_SPOT:
        return "lose" if outcome.result == LORD_MOON_LOSS else "push"
    if kind == "daikoku-for":
        return "win" if won else "lose"
    if kind == "daikoku-against":
        return "lose" if won else "win"
    if kind == "lady-sun-tea":
        return "win" if outcome.rolls == MAX_ROLLS else "lose"
    if kind == "hungry-moon":
        if outcome.rolls == MAX_ROLLS:
            return "lose"
        return "push" if outcome.combination == "fortunes-and-winds" else "win"
    raise ValueError(kind)


def pays_of(settings: Mapping[str, Any], kind: str, outcome: TurnOutcome | None = None) -> Pays:
    """The pay rate of a winning bet of `kind` (the standard bet's needs the outcome)."""
    if kind == STANDARD:
        assert outcome is not None and outcome.combination is not None
        pays = Pays.parse(settings[COMBINATION[outcome.combination].setting])
        return pays.times(settings["first_roll_multiplier"]) if outcome.rolls == 1 else pays
    return Pays.parse(settings[f"{_key(kind)}_pays"])


def stake_unit(settings: Mapping[str, Any], kind: str) -> int:
    """Stakes of `kind` are a multiple of this, so that every possible win is whole coins."""
    if kind != STANDARD:
        return pays_of(settings, kind).unit
    k = settings["first_roll_multiplier"]
    units = [Pays.parse(settings[c.setting]).unit for c in COMBINATIONS]
    units += [Pays.parse(settings[c.setting]).times(k).unit for c in COMBINATIONS]
    return lcm(*units)


def smallest_stake(settings: Mapping[str, Any], kind: str) -> int | None:
    """The smallest stake of `kind` the table takes, or None when the limits admit none."""
    return limits.smallest_stake(settings, kind, stake_unit(settings, kind))


#: What a command handler returns: the new state and the events.
Handled = tuple[State, list[Event]]

# -- the state --------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class FortunesWindsState(State):
    """The table: the shooter, the turn's rolls so far and the dice set aside."""

    shooter: str | None = None
    #: Rolls made in the turn under way (0: no turn under way, bets are being laid).
    roll: int = 0
    #: The face each die shows (in DIE_NAMES order) once the turn has had a roll, else ().
    showing: tuple[str, ...] = ()
    #: Dice set aside in this turn, in the order they were set aside.
    set_aside: tuple[str, ...] = ()
    #: The shooter won his last turn, so he may pass the dice before the next one's first roll.
    won_last: bool = False
    #: How the last turn ended, for the screens.
    last_turn: TurnOutcome | None = None

    def showing_map(self) -> dict[str, str]:
        return dict(zip(DIE_NAMES, self.showing, strict=False))

    def to_roll(self) -> tuple[str, ...]:
        """The dice the next roll must show: every die not set aside, the black one included."""
        return tuple(d for d in DIE_NAMES if d not in self.set_aside)


class FortunesWinds(Engine):
    name = "fortunes-winds"
    title = "Fortunes and Winds"
    state_type = FortunesWindsState
    chance_kinds = frozenset({"roll"})
    round_bound = MAX_ROLLS
    settings = (
        *(pays_setting(c.setting, c.pays, PAY_OF % {"combination": c.name},
                       words=(PAY_OF, {"combination": c.name}))
          for c in COMBINATIONS),
        Setting("first_roll_multiplier", 2, "a combination on the turn's first roll pays this "
                "many times its listed pay", minimum=1, maximum=10),
        pays_setting("daikoku_for_pays", "3:2", "pay of Daikoku's Belly for the shooter"),
        Setting("daikoku_against", True, "the house has a space for Daikoku's Belly against "
                "the shooter"),
        pays_setting("daikoku_against_pays", "2:3", "pay of Daikoku's Belly against the shooter"),
        pays_setting("lady_sun_tea_pays", "1:1", "pay of Lady Sun's Tea (the turn has three rolls)"),
        pays_setting("hungry_moon_pays", "1:1", "pay of Hungry Moon (one or two rolls)"),
        *limits.limit_settings(BET_NAMES),
    )

    def check_settings(self, values: Mapping[str, Any]) -> None:
        super().check_settings(values)
        for kind in BET_KINDS:
            if kind == "daikoku-against" and not values["daikoku_against"]:
                continue
            if smallest_stake(values, kind) is None:
                lo, hi = limits.limits(values, kind)
                raise ConfigError(
                    "the limits %(low)s to %(high)s leave no %(bet)s the table can take: its "
                    "stakes are multiples of %(unit)s", low=lo, high=hi, bet=BET_NAMES[kind],
                    unit=stake_unit(values, kind))

    def in_round(self, state: FortunesWindsState) -> bool:
        return state.roll > 0

    def seats_changed(self, new: FortunesWindsState, old: State) -> FortunesWindsState:
        if new.shooter in new.seats:
            return new
        if not new.seats:
            return new.replace(shooter=None, won_last=False)
        if new.shooter is not None and new.shooter in old.seats:
            # The shooter left: the dice go to the player on his left.
            after = [p for p in old.seats[old.seats.index(new.shooter) + 1:] if p in new.seats]
            return new.replace(shooter=(after or list(new.seats))[0], won_last=False)
        return new.replace(shooter=new.seats[0], won_last=False)

    # -- checks the dashboard can ask for ---------------------------------------------------------

    def _check_shooter(self, state: FortunesWindsState, cmd: Command, action: str) -> str:
        if state.shooter is None:
            raise IllegalCommand("nobody is seated to shoot")
        player = cmd.args.get("player", state.shooter)
        if player != state.shooter:
            raise IllegalCommand("only the shooter (%(shooter)s) may %(action)s; %(player)s is "
                                 "not the shooter", shooter=Name(state.shooter), action=action,
                                 player=Name(player))
        return player

    def may_decline(self, state: FortunesWindsState) -> bool:
        """True when the shooter cannot cover the smallest standard bet and Lord Moon money."""
        least = smallest_stake(state.settings, STANDARD)
        held = state.ledger.balance(player_account(state.shooter)) if state.shooter else 0
        return (state.shooter is not None and not state.ledger.balance(
            bet_account(state.shooter, STANDARD)) and (least is None or 2 * least > held))

    # -- commands ---------------------------------------------------------------------------------

    @command("bet", player=str, bet=Arg(str, choices=BET_KINDS), amount=Arg(int, minimum=1))
    def bet(self, state: FortunesWindsState, cmd: Command) -> Handled:
        player, kind, amount = cmd.args["player"], cmd.args["bet"], cmd.args["amount"]
        self.seated(state, player)
        name = BET_NAMES[kind]
        if state.roll == 1:
            raise IllegalCommand("bets are laid before the turn's first roll; this turn has had "
                                 "1 roll, wait for the next")
        if state.roll:
            raise IllegalCommand("bets are laid before the turn's first roll; this turn has had "
                                 "%(rolls)s rolls, wait for the next", rolls=state.roll)
        if kind != STANDARD and player == state.shooter:
            raise IllegalCommand("%(player)s is the shooter; the shooter may not make side bets "
                                 "(he lays the standard bet and the same for Lord Moon)",
                                 player=Name(player))
        if kind == "daikoku-against" and not state.settings["daikoku_against"]:
            raise IllegalCommand("this house has no space for betting against the shooter; "
                                 "Daikoku's Belly is taken only for the shooter")
        unit = stake_unit(state.settings, kind)
        if amount % unit and kind == STANDARD:
            raise IllegalCommand("a %(bet)s must be a multiple of %(unit)s coins, not "
                                 "%(amount)s", bet=name, unit=unit, amount=amount)
        if amount % unit:
            raise IllegalCommand("a %(bet)s must be a multiple of %(unit)s coins (it pays "
                                 "%(pays)s), not %(amount)s", bet=name, unit=unit,
                                 pays=pays_of(state.settings, kind), amount=amount)
        lo, hi = limits.limits(state.settings, kind)
        on_spot = state.ledger.balance(bet_account(player, kind))
        total = on_spot + amount
        if (total < lo or total > hi) and on_spot:
            raise IllegalCommand("%(player)s would have %(total)s on the %(bet)s (%(on_spot)s "
                                 "already on it); the table takes %(low)s to %(high)s",
                                 player=Name(player), total=total, bet=name, on_spot=on_spot,
                                 low=lo, high=hi)
        if total < lo or total > hi:
            raise IllegalCommand("%(player)s would have %(total)s on the %(bet)s; the table "
                                 "takes %(low)s to %(high)s", player=Name(player), total=total,
                                 bet=name, low=lo, high=hi)
        cost = 2 * amount if kind == STANDARD else amount
        held = state.ledger.balance(player_account(player))
        if cost > held:
            values = {"player": Name(player), "held": held, "bet": name, "amount": amount,
                      "cost": cost}
            if kind == STANDARD and held == 1:
                raise IllegalCommand("%(player)s holds 1 coin; a %(bet)s of %(amount)s needs "
                                     "%(cost)s (%(amount)s more for Lord Moon)", **values)
            if kind == STANDARD:
                raise IllegalCommand("%(player)s holds %(held)s coins; a %(bet)s of %(amount)s "
                                     "needs %(cost)s (%(amount)s more for Lord Moon)", **values)
            if held == 1:
                raise IllegalCommand("%(player)s holds 1 coin; a %(bet)s of %(amount)s needs "
                                     "%(cost)s", **values)
            raise IllegalCommand("%(player)s holds %(held)s coins; a %(bet)s of %(amount)s "
                                 "needs %(cost)s", **values)
        entries = (self.stake(player, kind, amount),)
        data: dict[str, Any] = {"player": player, "bet": kind, "amount": amount}
        if kind == STANDARD:
            entries += (self.stake(player, LORD_MOON_SPOT, amount),)
            data["lord_moon"] = amount
        event = Event("bet-placed", data, entries)
        return self.post(state, [event]), [event]

    @command("roll", faces=Arg(list), player=Arg(str, optional=True))
    def roll(self, state: FortunesWindsState, cmd: Command) -> Handled:
        shooter = self._check_shooter(state, cmd, N_("roll the dice"))
        if not state.roll and not state.ledger.balance(bet_account(shooter, STANDARD)):
            raise IllegalCommand("%(shooter)s (the shooter) lays a standard bet, and as much "
                                 "again for Lord Moon, before the first roll", shooter=Name(shooter))
        faces = parse_faces(cmd.args["faces"])
        must = state.to_roll()
        kept = [d for d in faces if d in state.set_aside]
        if kept:
            d = kept[0]
            raise IllegalCommand("the %(die)s is set aside (%(face)s) and is not rolled again "
                                 "this turn; the roll shows %(dice)s", die=DIE[d].title,
                                 face=state.showing_map()[d], dice=dice_words(must))
        missing = [d for d in must if d not in faces]
        if missing:
            raise IllegalCommand("the roll must show %(dice)s, one face each; missing: "
                                 "%(missing)s", dice=dice_words(must),
                                 missing=dice_words(missing))
        showing = {**state.showing_map(), **faces}
        rolls = state.roll + 1
        combo = combination_of(showing)
        if showing[MOON_DIE] == LORD_MOON:
            result = LORD_MOON_LOSS
        elif combo is not None:
            result = WIN
        elif rolls == MAX_ROLLS:
            result = NO_COMBINATION
        else:
            result = "again"
        row = tuple(showing[d] for d in DIE_NAMES)
        rolled = Event("rolled", {
            "shooter": shooter, "roll": rolls, "faces": [faces[d] for d in must],
            "showing": list(row), "set_aside": [showing[d] for d in state.set_aside],
            "result": result,
            "combination": combo.id if combo else None,
        })
        state = state.replace(roll=rolls, showing=row, won_last=False)
        if result == "again":
            return state, [rolled]
        outcome = TurnOutcome(result, combo.id if combo else None, rolls, row)
        return self._end_turn(state, outcome, [rolled])

    @command("set-aside", dice=Arg(list), player=Arg(str, optional=True))
    def set_aside(self, state: FortunesWindsState, cmd: Command) -> Handled:
        self._check_shooter(state, cmd, N_("set dice aside"))
        if not state.roll:
            raise IllegalCommand("dice are set aside after a roll of the turn; roll first")
        labels = cmd.args["dice"]
        if not labels:
            raise IllegalCommand("name the dice to set aside by the faces they show, "
                                 "e.g. [\"NORTH\", \"EAST\"]")
        showing = state.showing_map()
        chosen: list[str] = []
        for face in labels:
            label = face.strip().upper() if isinstance(face, str) else face
            if label not in DIE_OF:
                raise IllegalCommand("%(face)s is not a face of the Fortunes and Winds dice; "
                                     "name a white die by the face it shows", face=repr(face))
            die = DIE_OF[label]
            if die == MOON_DIE:
                raise IllegalCommand("the black Moon die is rolled on every roll; only white "
                                     "dice are set aside")
            if showing[die] != label:
                raise IllegalCommand("the %(die)s shows %(face)s, not %(label)s",
                                     die=DIE[die].title, face=showing[die], label=label)
            if die in state.set_aside or die in chosen:
                raise IllegalCommand("the %(die)s (%(label)s) is already set aside; only dice "
                                     "just rolled can be set aside", die=DIE[die].title,
                                     label=label)
            chosen.append(die)
        if len(state.set_aside) + len(chosen) > MAX_SET_ASIDE:
            left = MAX_SET_ASIDE - len(state.set_aside)
            raise IllegalCommand("at most %(most)s white dice are set aside in a turn; "
                                 "%(already)s already are, so %(left)s more at most",
                                 most=MAX_SET_ASIDE, already=len(state.set_aside), left=left)
        new = state.replace(set_aside=state.set_aside + tuple(chosen))
        return new, [Event("set-aside", {"shooter": state.shooter,
                                         "dice": [showing[d] for d in chosen],
                                         "set_aside": [showing[d] for d in new.set_aside],
                                         "to_roll": list(new.to_roll())})]

    @command("pass", player=Arg(str, optional=True))
    def pass_dice(self, state: FortunesWindsState, cmd: Command) -> Handled:
        shooter = self._check_shooter(state, cmd, N_("pass the dice"))
        if state.roll:
            raise IllegalCommand("the turn is under way; the dice pass when it ends")
        if not state.won_last and not self.may_decline(state):
            raise IllegalCommand("%(shooter)s passes the dice after a winning turn; he has not "
                                 "won one yet (a loss passes them to the left)", shooter=Name(shooter))
        # Bets laid for a turn that will not be thrown go back to their owners.
        events = [self.settle(state.ledger, *account.split(":")[1:], "push")
                  for account in sorted(state.ledger.accounts("bet"))]
        to = state.seat_after(shooter)
        events.append(Event("dice-passed", {"from": shooter, "to": to,
                                            "reason": "passed" if state.won_last
                                            else "cannot cover the smallest bet"}))
        state = self.post(state, events)
        return state.replace(shooter=to, won_last=False), events

    @command("leave", player=str)
    def leave(self, state: FortunesWindsState, cmd: Command) -> Handled:
        player = cmd.args["player"]
        if player == state.shooter and state.ledger.accounts("bet"):
            raise IllegalCommand("%(player)s is the shooter and bets are laid on his turn; he "
                                 "throws it (or passes the dice) before leaving", player=Name(player))
        return Engine._leave(self, state, cmd)

    @command("configure", settings=dict)
    def configure(self, state: FortunesWindsState, cmd: Command) -> Handled:
        if state.ledger.accounts("bet"):
            raise IllegalCommand("settings change when no bets lie on the table; wait for the "
                                 "turn to end")
        return Engine._configure(self, state, cmd)

    def _end_turn(self, state: FortunesWindsState, outcome: TurnOutcome,
                  first: list[Event]) -> Handled:
        events = list(first)
        for account in sorted(state.ledger.accounts("bet")):
            _, player, kind = account.split(":")
            result = bet_result(kind, outcome)
            winnings = 0
            if result == "win":
                winnings = pays_of(state.settings, kind, outcome).winnings(
                    state.ledger.balance(account))
            events.append(self.settle(state.ledger, player, kind, result, winnings))
        state = self.post(state, events[len(first):])
        shooter = state.shooter
        combo = COMBINATION[outcome.combination].name if outcome.combination else None
        details = {k: v for k, v in outcome.to_json().items() if k != "result"}
        events.append(RoundEnded(outcome.result, shooter,
                                 {**details, "combination_name": combo}).event())
        won = outcome.result == WIN
        if not won:
            to = state.seat_after(shooter)
            events.append(Event("dice-passed", {"from": shooter, "to": to,
                                                "reason": outcome.result}))
            shooter = to
        return state.replace(roll=0, showing=(), set_aside=(), shooter=shooter, won_last=won,
                             last_turn=outcome, rounds=state.rounds + 1), events

    # -- views and play ---------------------------------------------------------------------------

    def read(self, state: FortunesWindsState, observation: Observation,
             min_confidence: float = 0.9) -> Reading:
        """The settled table as commands: dice newly moved to the tray are set aside, the
        dice in the rolling area are the roll. Anything that does not fit is a problem for
        the banker; a die read without enough confidence is uncertain."""
        shooter = state.shooter
        if shooter is None:
            return Reading(problems=(Words("nobody is seated to shoot"),))
        if not state.roll and not state.ledger.balance(bet_account(shooter, STANDARD)):
            return Reading(problems=(Words("no roll is expected yet: %(shooter)s (the shooter) "
                                           "lays a standard bet first", shooter=Name(shooter)),))
        problems: list[Words] = []
        uncertain: list[int] = []
        showing = state.showing_map()

        def sure(index: int, seen) -> str | None:
            """The die a confidently read object is, else None (marked uncertain or a problem)."""
            if seen.label is None or seen.confidence < min_confidence:
                uncertain.append(index)
                return None
            if seen.label not in DIE_OF:
                problems.append(Words("%(label)s is not a face of the Fortunes and Winds dice",
                                      label=seen.label))
                return None
            return DIE_OF[seen.label]

        tray: dict[str, str] = {}
        rolled: dict[str, str] = {}
        counted = {"tray": 0, "rolling": 0}
        for index, seen in enumerate(observation.objects):
            if seen.kind != "die":
                problems.append(Words("something that is not a die is on the felt (a hand?)"))
                continue
            if seen.zone == "outside":
                problems.append(Words("a die (%(label)s) lies outside the felt",
                                      label=seen.label or N_("unread")))
                continue
            if seen.cocked:
                problems.append(Words("a die (%(label)s) is cocked, not flat: it is thrown again",
                                      label=seen.label or N_("unread")))
            counted[seen.zone] += 1
            die = sure(index, seen)
            if die is None:
                continue
            place = tray if seen.zone == "tray" else rolled
            if die in tray or die in rolled:
                problems.append(Words("two faces of the %(die)s are read (%(face)s and "
                                      "%(other)s)", die=DIE[die].title,
                                      face=(tray | rolled)[die], other=seen.label))
                continue
            place[die] = seen.label

        # Dice set aside earlier rest in the tray as they were.
        for die in state.set_aside:
            if die in rolled:
                problems.append(Words("the %(die)s is set aside; it lies in the rolling area",
                                      die=DIE[die].title))
            elif die in tray and tray[die] != showing[die]:
                problems.append(Words("the set-aside %(die)s moved: it showed %(face)s, it "
                                      "shows %(now)s", die=DIE[die].title, face=showing[die],
                                      now=tray[die]))
        # Dice newly in the tray are set aside now, showing what they showed on the last roll.
        newly = [die for die in tray if die not in state.set_aside]
        for die in newly:
            if not state.roll:
                problems.append(Words("dice are set aside after a roll of the turn; the tray "
                                      "should be empty (the %(die)s is in it)",
                                      die=DIE[die].title))
            elif die == MOON_DIE:
                problems.append(Words("the black Moon die is rolled every roll; it is in the "
                                      "tray"))
            elif tray[die] != showing[die]:
                problems.append(Words("the %(die)s in the tray shows %(face)s; it showed "
                                      "%(before)s on the last roll", die=DIE[die].title,
                                      face=tray[die], before=showing[die]))
        must = [d for d in state.to_roll() if d not in newly]
        if counted["tray"] < len(state.set_aside):
            problems.append(Words("%(aside)s set-aside dice belong in the tray; %(there)s are "
                                  "there", aside=len(state.set_aside), there=counted["tray"]))
        if counted["rolling"] != len(must):
            problems.append(Words("the roll shows %(shown)s dice in the rolling area; it must "
                                  "show %(must)s: %(dice)s", shown=counted["rolling"],
                                  must=len(must), dice=dice_words(must)))
        elif MOON_DIE not in rolled and not uncertain:
            problems.append(Words("the black Moon die is not in the rolling area"))
        faces = {d: showing.get(d) for d in state.set_aside}
        faces.update({d: tray[d] for d in newly})
        faces.update(rolled)
        if problems or uncertain:
            return Reading(problems=tuple(dict.fromkeys(problems)), uncertain=tuple(uncertain),
                           faces=faces)
        commands = []
        if newly:
            commands.append(Command("set-aside", {"dice": [tray[d] for d in newly]}))
        commands.append(Command("roll", {"faces": [rolled[d] for d in must]}))
        # The commands must be legal in turn (e.g. no more than three dice set aside).
        trial: State = state
        for cmd in commands:
            try:
                trial, _ = self.apply(trial, cmd)
            except IllegalCommand as exc:
                return Reading(problems=(Words.of(exc),), faces=faces)
        return Reading(tuple(commands), faces=faces)

    def light(self, state: FortunesWindsState, events: tuple[Event, ...]) -> str:
        ended = RoundEnded.among(events)
        if ended is not None:
            return "win" if ended.result == WIN else "loss"
        return super().light(state, events)

    def view(self, state: FortunesWindsState) -> dict:
        out = super().view(state)
        bets: dict[str, dict[str, int]] = {}
        for account, stake in sorted(state.ledger.accounts("bet").items()):
            _, player, kind = account.split(":")
            bets.setdefault(player, {})[kind] = stake
        if state.roll:
            phase = "rolling"
        else:
            phase = "betting"
        out.update(
            shooter=state.shooter,
            phase=phase,
            roll=state.roll,
            showing=state.showing_map(),
            set_aside=[state.showing_map()[d] for d in state.set_aside],
            to_roll=list(state.to_roll()),
            may_set_aside=(MAX_SET_ASIDE - len(state.set_aside)) if state.roll else 0,
            may_pass=not state.roll and (state.won_last or self.may_decline(state)),
            bets=bets,
            bet_kinds=[k for k in BET_KINDS
                       if k != "daikoku-against" or state.settings["daikoku_against"]],
            last_turn=state.last_turn.to_json() if state.last_turn else None,
        )
        return out

    def chance_step(self, state: FortunesWindsState, rng: random.Random) -> Command:
        """A roll of every die not set aside, each showing one of its faces at random."""
        return Command("roll", {"faces": [rng.choice(DIE[d].faces) for d in state.to_roll()]})

    def demo_throw(self, state: FortunesWindsState, rng: random.Random
                   ) -> tuple[list[str], list[str]]:
        showing = state.showing_map()
        return (list(self.chance_step(state, rng).args["faces"]),
                [showing[d] for d in state.set_aside])

    def random_command(self, state: FortunesWindsState, rng: random.Random) -> Command:
        shooter = state.shooter
        if shooter is None:
            return Command("join", {"player": f"P{rng.randint(1, 9)}"})
        if state.roll:
            free = [d for d in WHITE_DICE if d not in state.set_aside]
            room = MAX_SET_ASIDE - len(state.set_aside)
            if room and free and rng.random() < 0.5:
                pick = rng.sample(free, rng.randint(1, min(room, len(free))))
                return Command("set-aside", {"dice": [state.showing_map()[d] for d in pick]})
            return self.chance_step(state, rng)
        settings = state.settings
        r = rng.random()
        if r < 0.03:
            return Command("buy-in", {"player": rng.choice(state.seats),
                                      "amount": rng.randint(1, 50)})
        if r < 0.05:
            return Command("cash-out", {"player": rng.choice(state.seats),
                                        "amount": rng.randint(1, 5)})
        if self.may_decline(state):
            if rng.random() < 0.5:
                return Command("buy-in", {"player": shooter, "amount": rng.randint(10, 50)})
            return Command("pass", {"player": shooter})
        if state.won_last and rng.random() < 0.2:
            return Command("pass", {"player": shooter})
        if not state.ledger.balance(bet_account(shooter, STANDARD)):
            return Command("bet", self._random_bet(state, rng, shooter, STANDARD))
        if len(state.seats) > 1 and rng.random() < 0.5:
            player = rng.choice([p for p in state.seats if p != shooter])
            kinds = [k for k in BET_KINDS
                     if k != "daikoku-against" or settings["daikoku_against"]]
            return Command("bet", self._random_bet(state, rng, player, rng.choice(kinds)))
        return self.chance_step(state, rng)

    def _random_bet(self, state: FortunesWindsState, rng: random.Random, player: str,
                    kind: str) -> dict:
        unit = stake_unit(state.settings, kind)
        least = smallest_stake(state.settings, kind) or unit
        held = state.ledger.balance(player_account(player))
        most = max(least, min(held // (2 if kind == STANDARD else 1), least + 10 * unit))
        amount = least + unit * rng.randint(0, (most - least) // unit)
        return {"player": player, "bet": kind, "amount": amount}


MODE = Mode(
    engine=FortunesWinds(),
    equipment=EQUIPMENT,
    odds_ref="controller.odds.fortunes_winds:odds",
    odds_text_ref="controller.odds.fortunes_winds:odds_text",
    simulate_ref="controller.odds.fortunes_winds:simulate",
    strategies=("max-return", "max-win"),
    advise_ref="controller.odds.fortunes_winds_advisor:advise",
    advice_text_ref="controller.odds.fortunes_winds_advisor:advice_text",
    page_ref="web.modes.fortunes_winds:PAGE",
    result_words={WIN: "won", LORD_MOON_LOSS: "Lord Moon: bets lost",
                  NO_COMBINATION: "no combination"},
    receipts=("bet-slip",),
    bet_words={**BET_NAMES, LORD_MOON_SPOT: "Lord Moon money"},
)
