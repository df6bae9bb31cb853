"""The engine protocol: commands in, a new state and events out. Pure: no clock, no I/O, no dice.

A game mode subclasses `Engine`, declares its state (a frozen dataclass extending `State`), its
settings and its commands (methods decorated with `@command`), and is named by its mode's
`Mode` record (`controller/modes.py`, docs/adding-a-mode.md). The table-level commands every
mode shares (join, leave, buy-in, cash-out, configure) live here, once.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar

from controller.errors import ConfigError, IllegalCommand, Words
from controller.games.limits import limits
from controller.games.observation import Reading
from controller.ledger import (
    BANK,
    CASHIER,
    Entry,
    Ledger,
    bet_account,
    check_player_name,
    player_account,
)
from controller.protocol import MAX_INT, MAX_STAKE, Command, Event, Pays, RoundEnded
from controller.settings import TYPE_WORDS, Name, Setting, resolve

__all__ = [
    "Arg",
    "Command",
    "Engine",
    "Event",
    "IllegalCommand",
    "Pays",
    "RoundEnded",
    "State",
    "command",
]


def pays_setting(key: str, default: str, help: str, words: tuple = ()) -> Setting:
    """A setting holding a pay rate ("3:2"), checked as one."""
    return Setting(key, default, help, check=Pays.parse, accepts="a pay rate X:Y", words=words)


@dataclass(frozen=True)
class Arg:
    """What a command argument accepts."""

    type: type
    optional: bool = False
    minimum: int | None = None
    choices: tuple | None = None

    def describe(self) -> str:
        """What the argument accepts, in words (`Words`: the English, translated apart)."""
        words = TYPE_WORDS.get(self.type, self.type.__name__)
        if self.choices:
            words = Words("one of %(choices)s", choices=tuple(repr(c) for c in self.choices))
        if self.minimum is not None:
            words = Words("%(what)s of at least %(low)s", what=words, low=self.minimum)
        return words


def command(kind: str, **args: Arg | type) -> Callable:
    """Mark an engine method as the handler of commands of `kind` taking `args`."""

    def mark(fn: Callable) -> Callable:
        fn._command = (kind, {k: a if isinstance(a, Arg) else Arg(a) for k, a in args.items()})
        return fn

    return mark


@dataclass(frozen=True, kw_only=True)
class State:
    """What every mode's state holds: the mode, its settings, the seats and the ledger."""

    mode: str
    settings: Mapping[str, Any]
    #: Players seated, in seat order; the dice pass to the left, i.e. to the next in this tuple.
    seats: tuple[str, ...] = ()
    ledger: Ledger = field(default_factory=Ledger)
    #: Rounds (turns, hands) completed since the table opened.
    rounds: int = 0

    def replace(self, **changes: Any) -> State:
        return dataclasses.replace(self, **changes)

    def seat_after(self, player: str) -> str:
        """The player to the left of `player` (the next seat, wrapping round)."""
        i = self.seats.index(player)
        return self.seats[(i + 1) % len(self.seats)]


BASE_SETTINGS = (
    Setting("max_seats", 8, "seats at the table", minimum=1, maximum=16),
    Setting("min_bet", 1, "smallest stake of any bet, in coins", minimum=1, maximum=MAX_STAKE),
    Setting("max_bet", 1000, "largest stake of any one bet, in coins", minimum=1,
            maximum=MAX_STAKE),
)


class Engine:
    """A game mode: a pure `apply(state, command) -> (state, events)` and its declarations."""

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    state_type: ClassVar[type[State]] = State
    settings: ClassVar[tuple[Setting, ...]] = ()
    #: Command kinds that are the chance steps (a roll, a throw, a deal) the camera fills in.
    chance_kinds: ClassVar[frozenset[str]] = frozenset()
    #: A round ends within this many chance steps (OpenSpiel's max game length).
    round_bound: ClassVar[int] = 0
    _commands: ClassVar[dict[str, tuple[Callable, dict[str, Arg]]]] = {}

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        found: dict[str, tuple[Callable, dict[str, Arg]]] = {}
        for klass in reversed(cls.__mro__):
            for attr in vars(klass).values():
                if hasattr(attr, "_command"):
                    kind, spec = attr._command
                    found[kind] = (attr, spec)
        cls._commands = found

    # -- declarations ----------------------------------------------------------------------

    @classmethod
    def setting_schema(cls) -> tuple[Setting, ...]:
        """Every setting of this mode: the shared ones, then the mode's own."""
        own = {s.key for s in cls.settings}
        return tuple(s for s in BASE_SETTINGS if s.key not in own) + cls.settings

    @classmethod
    def command_kinds(cls) -> dict[str, dict[str, Arg]]:
        """The commands this mode accepts, with their arguments."""
        return {kind: spec for kind, (_, spec) in cls._commands.items()}

    def new_state(
        self,
        settings: Mapping[str, Any] | None = None,
        seats: tuple[str, ...] = (),
        ledger: Ledger | None = None,
    ) -> State:
        """A fresh table of this mode; raises ConfigError on a bad setting."""
        values = resolve(self.setting_schema(), settings or {},
                         where=Words("the %(game)s settings", game=Name(self.name)))
        self.check_settings(values)
        return self.state_type(
            mode=self.name,
            settings=MappingProxyType(values),
            seats=tuple(seats),
            ledger=ledger or Ledger(),
        )

    def check_settings(self, values: Mapping[str, Any]) -> None:
        """Checks across settings (e.g. min <= max); raises ConfigError."""
        if values["min_bet"] > values["max_bet"]:
            raise ConfigError("min_bet (%(low)s) is above max_bet (%(high)s)",
                              low=values["min_bet"], high=values["max_bet"])

    # -- the protocol ------------------------------------------------------------------------

    def apply(self, state: State, cmd: Command) -> tuple[State, tuple[Event, ...]]:
        """Apply `cmd`: the new state and what happened, or IllegalCommand and no change."""
        entry = self._commands.get(cmd.kind)
        if entry is None:
            raise IllegalCommand("%(game)s has no command %(kind)s; it accepts: %(kinds)s",
                                 game=self.title, kind=repr(cmd.kind),
                                 kinds=tuple(sorted(self._commands)))
        handler, spec = entry
        self._check_args(cmd, spec)
        new_state, events = handler(self, state, cmd)
        return new_state, tuple(events)

    def verify(self, state: State, cmd: Command) -> None:
        """Raise IllegalCommand with the reason if `cmd` would be refused now."""
        self.apply(state, cmd)

    def can(self, state: State, cmd: Command) -> bool:
        """True when `cmd` would be accepted now."""
        try:
            self.apply(state, cmd)
        except IllegalCommand:
            return False
        return True

    def in_round(self, state: State) -> bool:
        """True while a round is under way (settings and seats then stay as they are)."""
        return False

    def read(self, state: State, observation, min_confidence: float = 0.9):
        """What a settled table means (an `observation.Reading`): the commands, or problems."""
        return Reading(problems=(f"{self.title} is not read by the camera; enter the throw "
                                 "by hand",))

    def light(self, state: State, events: tuple[Event, ...]) -> str:
        """The status light after `events`: ready, bets_open, rolling, win or loss.

        Modes say 'win' or 'loss' for the event that ends a round; the default covers the rest.
        """
        if not state.seats:
            return "ready"
        return "rolling" if self.in_round(state) else "bets_open"

    def view(self, state: State) -> dict:
        """The state as JSON for people and screens."""
        return {
            "mode": state.mode,
            "title": self.title,
            "seats": list(state.seats),
            "balances": state.ledger.players(),
            "rounds": state.rounds,
            "in_round": self.in_round(state),
        }

    def chance_step(self, state: State, rng: random.Random) -> Command:
        """The chance step real dice would give now, drawn from `rng` (simulation, demo)."""
        raise NotImplementedError

    def demo_throw(self, state: State, rng: random.Random
                   ) -> tuple[list[str], list[str]] | None:
        """For the demo table: the labels a random throw shows, and the labels of the dice
        kept aside in the tray; None when this mode's dice are not labelled dice."""
        return None

    def random_command(self, state: State, rng: random.Random) -> Command:
        """A command a player at this table might give now (chance steps drawn from `rng`)."""
        raise NotImplementedError

    def _check_args(self, cmd: Command, spec: Mapping[str, Arg]) -> None:
        extra = sorted(set(cmd.args) - set(spec))
        if extra:
            takes = tuple(Words("%(name)s (%(accepts)s)", name=k, accepts=a.describe())
                          for k, a in spec.items()) or Words("no arguments")
            raise IllegalCommand("%(kind)s does not take %(arg)s; it takes %(takes)s",
                                 kind=repr(cmd.kind), arg=repr(extra[0]), takes=takes)
        for name, arg in spec.items():
            if name not in cmd.args:
                if arg.optional:
                    continue
                raise IllegalCommand("%(kind)s needs %(name)s: %(accepts)s", kind=repr(cmd.kind),
                                     name=repr(name), accepts=arg.describe())
            value = cmd.args[name]
            ok = type(value) is arg.type if arg.type in (int, bool) else isinstance(value, arg.type)
            if ok and arg.type is int and abs(value) > MAX_INT:
                raise IllegalCommand("%(kind)s: %(name)s = %(value)s; expected at most %(most)s",
                                     kind=repr(cmd.kind), name=name, value=value, most=MAX_INT)
            if ok and arg.minimum is not None:
                ok = value >= arg.minimum
            if ok and arg.choices is not None:
                ok = value in arg.choices
            if not ok:
                raise IllegalCommand("%(kind)s: %(name)s = %(value)s; expected %(accepts)s",
                                     kind=repr(cmd.kind), name=name, value=repr(value),
                                     accepts=arg.describe())

    # -- shared helpers for modes -------------------------------------------------------------

    @staticmethod
    def seated(state: State, player: str) -> str:
        """`player` if seated, else IllegalCommand."""
        if player not in state.seats:
            raise IllegalCommand("%(player)s is not seated at this table", player=Name(player))
        return player

    def check_stake(self, state: State, player: str, amount: int, unit: int = 1,
                    what: str = "bet") -> None:
        """Refuse a stake outside the limits, not a multiple of `unit`, or over the balance."""
        lo, hi = state.settings["min_bet"], state.settings["max_bet"]
        if amount < lo or amount > hi:
            raise IllegalCommand("a %(what)s of %(amount)s is outside the table limits: "
                                 "%(low)s to %(high)s", what=what, amount=amount, low=lo,
                                 high=hi)
        if amount % unit:
            raise IllegalCommand("a %(what)s must be a multiple of %(unit)s coins, not "
                                 "%(amount)s", what=what, unit=unit, amount=amount)
        held = state.ledger.balance(player_account(player))
        if amount > held:
            raise IllegalCommand("%(player)s holds %(held)s coins; a %(what)s of %(amount)s is "
                                 "more", player=Name(player), held=held, what=what, amount=amount)

    @staticmethod
    def check_on_spot(state: State, player: str, spot: str, spot_id: str, kind: str,
                      amount: int, what: str) -> None:
        """Refuse `amount` more on `player`'s `spot` (shown as `spot_id`) when the spot would
        hold more or less than the limits of `kind` (`limits.limits`), or more than his coins."""
        lo, hi = limits(state.settings, kind)
        on_spot = state.ledger.balance(bet_account(player, spot))
        if not lo <= on_spot + amount <= hi:
            raise IllegalCommand("%(player)s would have %(total)s on %(spot)s (%(on_spot)s "
                                 "already on it); the table takes %(lo)s to %(hi)s on a %(bet)s",
                                 player=Name(player), total=on_spot + amount, spot=Name(spot_id),
                                 on_spot=on_spot, lo=lo, hi=hi, bet=what)
        held = state.ledger.balance(player_account(player))
        if amount > held:
            raise IllegalCommand("%(player)s holds %(held)s coins; a %(bet)s of %(amount)s is "
                                 "more", player=Name(player), held=held, bet=what, amount=amount)

    @staticmethod
    def stake(player: str, spot: str, amount: int) -> Entry:
        """The entry putting `amount` of `player`'s coins on `spot`."""
        return Entry.transfer("stake", player_account(player), bet_account(player, spot), amount)

    @staticmethod
    def settle(ledger: Ledger, player: str, spot: str, result: str, winnings: int = 0) -> Event:
        """The event settling `player`'s bet on `spot`: result "win", "lose" or "push"."""
        account = bet_account(player, spot)
        staked = ledger.balance(account)
        mine = player_account(player)
        if result == "win":
            entries = (Entry.transfer("return", account, mine, staked),)
            if winnings:
                entries += (Entry.transfer("win", BANK, mine, winnings),)
            paid = staked + winnings
        elif result == "push":
            entries, paid = (Entry.transfer("return", account, mine, staked),), staked
        elif result == "lose":
            entries, paid = (Entry.transfer("loss", account, BANK, staked),), 0
        else:
            raise ValueError(result)
        return Event(
            "bet-settled",
            {"player": player, "bet": spot, "stake": staked, "result": result, "paid": paid},
            entries,
        )

    def post(self, state: State, events: list[Event] | tuple[Event, ...]) -> State:
        """The state with every entry of `events` posted to its ledger."""
        return state.replace(ledger=state.ledger.post(*(e for ev in events for e in ev.entries)))

    # -- table-level commands every mode shares -----------------------------------------------

    @command("join", player=str, seat=Arg(int, optional=True, minimum=1))
    def _join(self, state: State, cmd: Command):
        player = check_player_name(cmd.args["player"])
        if player in state.seats:
            raise IllegalCommand("%(player)s is already seated", player=Name(player))
        if self.in_round(state):
            raise IllegalCommand("players join between rounds; wait for this round to end")
        if len(state.seats) >= state.settings["max_seats"]:
            raise IllegalCommand("the table is full (%(seats)s seats)",
                                 seats=state.settings["max_seats"])
        seat = cmd.args.get("seat", len(state.seats) + 1)
        if seat > len(state.seats) + 1:
            raise IllegalCommand("seat %(seat)s does not exist yet: seats 1 to %(last)s",
                                 seat=seat, last=len(state.seats) + 1)
        seats = state.seats[: seat - 1] + (player,) + state.seats[seat - 1 :]
        ledger = state.ledger
        if player_account(player) not in ledger.balances:
            ledger = Ledger(MappingProxyType({**ledger.balances, player_account(player): 0}))
        new = self.seats_changed(state.replace(seats=seats, ledger=ledger), state)
        return new, [Event("joined", {"player": player, "seat": seat})]

    @command("leave", player=str)
    def _leave(self, state: State, cmd: Command):
        player = self.seated(state, cmd.args["player"])
        if self.in_round(state):
            raise IllegalCommand("%(player)s leaves between rounds; wait for this round to end",
                                 player=Name(player))
        if state.ledger.on_table(player):
            raise IllegalCommand("%(player)s still has bets on the table", player=Name(player))
        seats = tuple(p for p in state.seats if p != player)
        new = self.seats_changed(state.replace(seats=seats), state)
        return new, [Event("left", {"player": player})]

    @command("buy-in", player=str, amount=Arg(int, minimum=1))
    def _buy_in(self, state: State, cmd: Command):
        player = self.seated(state, cmd.args["player"])
        amount = cmd.args["amount"]
        entry = Entry.transfer("buy-in", CASHIER, player_account(player), amount)
        event = Event("bought-in", {"player": player, "amount": amount}, (entry,))
        return self.post(state, [event]), [event]

    @command("cash-out", player=str, amount=Arg(int, optional=True, minimum=1))
    def _cash_out(self, state: State, cmd: Command):
        player = cmd.args["player"]
        held = state.ledger.balance(player_account(player))
        if player_account(player) not in state.ledger.balances:
            raise IllegalCommand("%(player)s has no money at this table", player=Name(player))
        amount = cmd.args.get("amount", held)
        if amount > held or amount == 0:
            raise IllegalCommand("%(player)s holds %(held)s coins; cannot cash out %(amount)s",
                                 player=Name(player), held=held, amount=amount)
        entry = Entry.transfer("cash-out", player_account(player), CASHIER, amount)
        event = Event("cashed-out", {"player": player, "amount": amount}, (entry,))
        return self.post(state, [event]), [event]

    @command("configure", settings=dict)
    def _configure(self, state: State, cmd: Command):
        if self.in_round(state):
            raise IllegalCommand("settings change between rounds; wait for this round to end")
        merged = {**state.settings, **cmd.args["settings"]}
        try:
            values = resolve(self.setting_schema(), merged,
                             where=Words("the %(game)s settings", game=Name(self.name)))
            self.check_settings(values)
        except ConfigError as exc:
            raise IllegalCommand.because(exc) from None
        if len(state.seats) > values["max_seats"]:
            raise IllegalCommand("%(seated)s players are seated; max_seats cannot be less",
                                 seated=len(state.seats))
        changed = {k: v for k, v in values.items() if state.settings.get(k) != v}
        new = state.replace(settings=MappingProxyType(values))
        return new, [Event("configured", {"settings": changed})]

    def seats_changed(self, new: State, old: State) -> State:
        """Hook: a mode fixes its own seat-dependent fields (the shooter) after join/leave."""
        return new
