"""Namaste: score sheets of 25 circles filled with dice totals (seeds/namaste.md).

Each turn the active player rolls the turquoise die and one to three white dice (faces 2 to 6
and 1/7, the 1/7 face counting 1 or 7 as each player chooses). The active player enters the
total of all the dice in a circle of his sheet, or takes bad karma (the turquoise die's value
as minus points); every other player may enter the total of the white dice alone, or skip.
Rows increase left to right and columns top to bottom. A completed row or column scores its
middle (pink) circle: in full for the first to complete it (and everyone completing it in the
same turn), half rounded up later. The four single circles are the truth spaces: top and left
in full, bottom and right half. The game ends after the round in which a player filled all 25
circles or all four bad karma spaces; most points wins, then fewest bad karma spaces.

The sheet, its lines and the dice live here, once: `CIRCLES`, `LINES`, `FACES`, `Sheet`,
`legal_circles`. Rulings beyond the seed and RULINGS.md: docs/rules/namaste.md. Messages are
plain English; the dashboard translates the words it shows (web/i18n.py).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import equipment
from controller.errors import IllegalCommand
from controller.games.base import Arg, Command, Engine, Event, State, command
from controller.games.observation import Observation, Reading
from controller.modes import Mode
from controller.settings import Setting

# -- the sheet -----------------------------------------------------------------------------

#: The 25 circles: (row, column) in a 7x7 grid, |row-3| + |column-3| <= 3, in reading order.
#: Circle n (1 to 25) is CIRCLES[n - 1].
CIRCLES: tuple[tuple[int, int], ...] = tuple(
    (r, c) for r in range(7) for c in range(7) if abs(r - 3) + abs(c - 3) <= 3)
NUMBER: Mapping[tuple[int, int], int] = {rc: i + 1 for i, rc in enumerate(CIRCLES)}


@dataclass(frozen=True)
class Line:
    """A row or a column of the sheet: its circles in increasing order, its middle circle."""

    name: str
    circles: tuple[int, ...]
    middle: int
    #: "symbol" (3 or more circles), or the truth space's side: top, left (full), bottom, right.
    space: str

    @property
    def full_points(self) -> bool:
        return self.space in ("symbol", "top", "left")


def _lines() -> tuple[Line, ...]:
    out = []
    for kind in ("row", "column"):
        for k in range(7):
            cells = [rc for rc in CIRCLES if (rc[0] if kind == "row" else rc[1]) == k]
            cells.sort(key=lambda rc: rc[1] if kind == "row" else rc[0])
            circles = tuple(NUMBER[rc] for rc in cells)
            middle = NUMBER[(k, 3) if kind == "row" else (3, k)]
            if len(circles) > 1:
                space = "symbol"
            else:
                space = {("row", 0): "top", ("row", 6): "bottom",
                         ("column", 0): "left", ("column", 6): "right"}[(kind, k)]
            out.append(Line(f"{kind}-{k + 1}", circles, middle, space))
    return tuple(out)


LINES: tuple[Line, ...] = _lines()
LINE: Mapping[str, Line] = {line.name: line for line in LINES}
#: The two lines (its row, its column) through each circle.
LINES_OF: Mapping[int, tuple[Line, Line]] = {
    n: tuple(line for line in LINES if n in line.circles) for n in range(1, 26)}  # type: ignore
KARMA_SPACES = 4

# -- the dice ------------------------------------------------------------------------------

#: The dice as equipment/namaste.json has them (the recognizer and the dashboard read it too):
#: each label's die colour and the face printed on it.
EQUIPMENT = "namaste"
_DICE = equipment.load(EQUIPMENT)
#: Camera labels -> (colour, face): the turquoise die is told by its colour.
LABELS: Mapping[str, tuple[str, str]] = MappingProxyType({
    label: (die["colour"], _DICE["glyphs"][label]) for die in _DICE["dice"]
    for label in die["faces"]})
LABEL_OF: Mapping[tuple[str, str], str] = MappingProxyType({v: k for k, v in LABELS.items()})
#: The faces of every die, turquoise and white alike; "1/7" counts 1 or 7 as its reader chooses.
FACES = tuple(dict.fromkeys(face for _, face in LABELS.values()))
ONE_SEVEN = "1/7"


def face_of(value: Any) -> str | None:
    """The face a die shows, from its text ("1/7", "2".."6") or its number (2 to 6); None if
    it is not one."""
    if type(value) is int and 2 <= value <= 6:
        return str(value)
    return value if isinstance(value, str) and value in FACES else None


def face_values(face: str) -> tuple[int, ...]:
    """What a face may count: (1, 7) for the 1/7 face, else its number."""
    return (1, 7) if face == ONE_SEVEN else (int(face),)


def totals(faces: Iterable[str]) -> tuple[int, ...]:
    """Every total the faces can make, each 1/7 face counted 1 or 7 independently."""
    return tuple(sorted({sum(p) for p in itertools.product(*(face_values(f) for f in faces))}))


def karma_points(turquoise: str) -> int:
    """The minus points of bad karma: the turquoise die's number; 1 when it shows 1/7."""
    return 1 if turquoise == ONE_SEVEN else int(turquoise)


def half_up(points: int) -> int:
    """Half, rounded up (7 -> 4)."""
    return -(-points // 2)


@dataclass(frozen=True)
class Sheet:
    """One player's score sheet."""

    #: Circle n holds circles[n - 1], or None while empty.
    circles: tuple[int | None, ...] = (None,) * 25
    #: Points in the symbol and truth spaces: (line name, points), in the order scored.
    spaces: tuple[tuple[str, int], ...] = ()
    #: Minus points in the bad karma spaces, in the order taken.
    karma: tuple[int, ...] = ()
    first: bool = False

    def value(self, n: int) -> int | None:
        return self.circles[n - 1]

    @property
    def filled(self) -> int:
        return sum(v is not None for v in self.circles)

    @property
    def full(self) -> bool:
        return self.filled == 25

    @property
    def karma_full(self) -> bool:
        return len(self.karma) >= KARMA_SPACES

    @property
    def points(self) -> int:
        """Symbol and truth spaces less bad karma."""
        return sum(p for _, p in self.spaces) - sum(self.karma)

    def why_not(self, n: int, total: int) -> str | None:
        """Why `total` may not go in circle `n`, or None when it may."""
        blocked = self.blocked_by(n, total)
        if blocked is None:
            return None
        why, m, line = blocked
        if why == "filled":
            return f"circle {n} is already filled with {self.value(n)}"
        return f"{self.value(m)} in circle {m} comes {why} it in {line}"

    def blocked_by(self, n: int, total: int) -> tuple[str, int, str] | None:
        """What keeps `total` out of circle `n`: ("filled", n, ""), or ("before" / "after",
        the circle in the way, its line's name); None when it may go there."""
        if self.value(n) is not None:
            return "filled", n, ""
        for line in LINES_OF[n]:
            at = line.circles.index(n)
            for i, m in enumerate(line.circles):
                v = self.value(m)
                if v is None or m == n:
                    continue
                if i < at and v >= total:
                    return "before", m, line.name
                if i > at and v <= total:
                    return "after", m, line.name
        return None

    def legal(self, total: int) -> tuple[int, ...]:
        """Every circle `total` may go in."""
        return tuple(n for n in range(1, 26) if self.why_not(n, total) is None)

    def with_value(self, n: int, total: int) -> Sheet:
        circles = list(self.circles)
        circles[n - 1] = total
        return Sheet(tuple(circles), self.spaces, self.karma, self.first)

    def completed_by(self, n: int) -> tuple[Line, ...]:
        """The lines through circle `n` that are full (after `n` was filled)."""
        return tuple(line for line in LINES_OF[n]
                     if all(self.value(m) is not None for m in line.circles))

    def to_json(self) -> dict:
        return {"circles": list(self.circles), "spaces": dict(self.spaces),
                "karma": list(self.karma), "first": self.first, "points": self.points,
                "filled": self.filled}


def legal_circles(sheet: Sheet, total: int) -> tuple[int, ...]:
    """The dashboard's query: for a sheet and a total, every circle it may be entered in."""
    return sheet.legal(total)


# -- the game ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Roll:
    turquoise: str
    white: tuple[str, ...]

    def active_totals(self) -> tuple[int, ...]:
        return totals((self.turquoise, *self.white))

    def white_totals(self) -> tuple[int, ...]:
        return totals(self.white)

    def to_json(self) -> dict:
        return {"turquoise": self.turquoise, "white": list(self.white)}


@dataclass(frozen=True, kw_only=True)
class NamasteState(State):
    #: "idle" (no game yet), "playing", "over".
    phase: str = "idle"
    #: The players of this game, the first player first, then clockwise (to the left).
    players: tuple[str, ...] = ()
    sheets: tuple[tuple[str, Sheet], ...] = ()
    #: Index into `players` of the one whose turn it is.
    active: int = 0
    #: Turns begun in this game (turn 1 is the first player's first roll).
    turn: int = 0
    roll: Roll | None = None
    #: Players who have entered or passed in this turn.
    decided: tuple[str, ...] = ()
    #: Symbol lines someone has completed: (line name, the turn it was first completed).
    claimed: tuple[tuple[str, int], ...] = ()
    #: A sheet is full (25 circles or 4 bad karma): the game ends with this round.
    ending: bool = False
    #: The final standings once the game is over.
    result: tuple[tuple[str, int, int], ...] = ()
    winners: tuple[str, ...] = ()

    def sheet(self, player: str) -> Sheet:
        return dict(self.sheets)[player]

    @property
    def active_player(self) -> str | None:
        return self.players[self.active] if self.players else None


def standings(sheets: Mapping[str, Sheet]) -> tuple[list[tuple[str, int, int]], list[str]]:
    """(player, points, bad karma spaces) best first, and the winners: most points, then the
    fewest bad karma spaces; a tie after both is shared."""
    rows = sorted(((p, s.points, len(s.karma)) for p, s in sheets.items()),
                  key=lambda r: (-r[1], r[2]))
    best = (rows[0][1], rows[0][2]) if rows else None
    return rows, [p for p, pts, k in rows if (pts, k) == best]


class Namaste(Engine):
    name = "namaste"
    title = "Namaste"
    state_type = NamasteState
    chance_kinds = frozenset({"roll"})
    # A turn has one roll; the next roll closes a turn still open (2 in the count).
    round_bound = 2
    settings = (
        Setting("max_seats", 4, "seats at the table (Namaste is 2 to 4 players)",
                minimum=2, maximum=4),
    )

    def in_round(self, state: NamasteState) -> bool:
        return state.phase == "playing"

    # -- commands ------------------------------------------------------------------------------

    @command("start", first=Arg(str, optional=True))
    def start(self, state: NamasteState, cmd: Command):
        if state.phase == "playing":
            raise IllegalCommand("a game is under way; it ends after the round in which a "
                                 "sheet is full (25 circles or 4 bad karma spaces)")
        if not 2 <= len(state.seats) <= 4:
            raise IllegalCommand("a game of Namaste is 2 to 4 players; %(n)d are seated",
                                 n=len(state.seats))
        first = self.seated(state, cmd.args.get("first", state.seats[0]))
        i = state.seats.index(first)
        players = state.seats[i:] + state.seats[:i]
        sheets = tuple((p, Sheet(first=p == first)) for p in players)
        new = state.replace(phase="playing", players=players, sheets=sheets, active=0, turn=0,
                            roll=None, decided=(), claimed=(), ending=False, result=(),
                            winners=())
        return new, [Event("game-started", {"players": list(players), "first": first})]

    @command("roll", turquoise=str, white=list)
    def roll(self, state: NamasteState, cmd: Command):
        turquoise, white = face_of(cmd.args["turquoise"]), [face_of(f) for f in cmd.args["white"]]
        if turquoise is None or not 1 <= len(white) <= 3 or None in white:
            raise IllegalCommand("a roll is the turquoise die and one to three white dice, "
                                 "each face one of %(faces)s; not %(turquoise)s and %(white)s",
                                 faces=FACES, turquoise=repr(cmd.args["turquoise"]),
                                 white=repr(cmd.args["white"]))
        self._playing(state)
        events: list[Event] = []
        if state.roll is not None:
            # The next roll closes the turn still open: who has not entered passes.
            state, events = self._close_turn(state)
            if state.phase == "over":
                # The final round is over: the game ends and these dice count for nobody.
                events.append(Event("roll-ignored", {"turquoise": turquoise, "white": white,
                                                     "reason": "the game is over"}))
                return state, events
        roll = Roll(turquoise, tuple(white))
        state = state.replace(roll=roll, decided=(), turn=state.turn + 1)
        events.append(Event("rolled", {"player": state.active_player, "turn": state.turn,
                                       **roll.to_json(),
                                       "totals": list(roll.active_totals()),
                                       "white_totals": list(roll.white_totals())}))
        return state, events

    @command("enter", player=str, circle=Arg(int, minimum=1), total=Arg(int, minimum=1))
    def enter(self, state: NamasteState, cmd: Command):
        player, n, total = cmd.args["player"], cmd.args["circle"], cmd.args["total"]
        self._deciding(state, player)
        if n > 25:
            raise IllegalCommand("circle %(n)d: the sheet has circles 1 to 25", n=n)
        allowed = self.totals_for(state, player)
        if total not in allowed:
            raise IllegalCommand("%(player)s may enter one of these totals from this roll: "
                                 "%(allowed)s; not %(total)d", player=player,
                                 allowed=[str(a) for a in allowed], total=total)
        sheet = state.sheet(player)
        blocked = sheet.blocked_by(n, total)
        if blocked is not None:
            legal = [str(c) for c in sheet.legal(total)] or ["none"]
            why, m, line = blocked
            if why == "filled":
                raise IllegalCommand("%(total)d cannot go in circle %(n)d: circle %(n)d is "
                                     "already filled with %(value)d; legal circles for "
                                     "%(total)d: %(legal)s",
                                     total=total, n=n, value=sheet.value(n), legal=legal)
            if why == "before":
                raise IllegalCommand("%(total)d cannot go in circle %(n)d: %(value)d in circle "
                                     "%(m)d comes before it in %(line)s; legal circles for "
                                     "%(total)d: %(legal)s", total=total, n=n,
                                     value=sheet.value(m), m=m, line=line, legal=legal)
            raise IllegalCommand("%(total)d cannot go in circle %(n)d: %(value)d in circle "
                                 "%(m)d comes after it in %(line)s; legal circles for "
                                 "%(total)d: %(legal)s", total=total, n=n,
                                 value=sheet.value(m), m=m, line=line, legal=legal)
        sheet = sheet.with_value(n, total)
        claimed = dict(state.claimed)
        scored = []
        for line in sheet.completed_by(n):
            middle = sheet.value(line.middle)
            if line.space == "symbol":
                first = claimed.get(line.name, state.turn) == state.turn
                claimed.setdefault(line.name, state.turn)
                points = middle if first else half_up(middle)
                why_pts = "first" if first else "later"
            else:
                points = middle if line.full_points else half_up(middle)
                why_pts = line.space
            sheet = Sheet(sheet.circles, sheet.spaces + ((line.name, points),), sheet.karma,
                          sheet.first)
            scored.append({"line": line.name, "space": line.space, "middle": middle,
                           "points": points, "as": why_pts})
        state = self._set_sheet(state, player, sheet).replace(
            claimed=tuple(sorted(claimed.items())), decided=state.decided + (player,))
        events = [Event("entered", {"player": player, "circle": n, "total": total,
                                    "scored": scored})]
        return self._after_decision(state, events)

    @command("pass", player=str)
    def pass_(self, state: NamasteState, cmd: Command):
        player = cmd.args["player"]
        self._deciding(state, player)
        state, events = self._pass(state, player)
        return self._after_decision(state, events)

    # -- the turn ------------------------------------------------------------------------------

    def _playing(self, state: NamasteState) -> None:
        if state.phase != "playing":
            raise IllegalCommand("no game is under way; start one")

    def _deciding(self, state: NamasteState, player: str) -> None:
        self._playing(state)
        if player not in state.players:
            raise IllegalCommand("%(player)s is not in this game; players: %(players)s",
                                 player=player, players=state.players)
        if state.roll is None:
            raise IllegalCommand("the dice are not rolled yet: %(player)s rolls",
                                 player=state.active_player)
        if player in state.decided:
            raise IllegalCommand("%(player)s has already entered or passed this turn",
                                 player=player)

    def totals_for(self, state: NamasteState, player: str) -> tuple[int, ...]:
        """What `player` may enter from this roll: all the dice for the active player, the
        white dice alone for the others."""
        if state.roll is None:
            return ()
        if player == state.active_player:
            return state.roll.active_totals()
        return state.roll.white_totals()

    def _set_sheet(self, state: NamasteState, player: str, sheet: Sheet) -> NamasteState:
        return state.replace(sheets=tuple((p, sheet if p == player else s)
                                          for p, s in state.sheets))

    def _pass(self, state: NamasteState, player: str) -> tuple[NamasteState, list[Event]]:
        """`player` enters nothing: bad karma for the active player, nothing for the others."""
        data: dict[str, Any] = {"player": player}
        if player == state.active_player:
            sheet = state.sheet(player)
            points = karma_points(state.roll.turquoise)
            if not sheet.karma_full:
                sheet = Sheet(sheet.circles, sheet.spaces, sheet.karma + (points,), sheet.first)
                state = self._set_sheet(state, player, sheet)
                data["karma"] = points
        return state.replace(decided=state.decided + (player,)), [Event("passed", data)]

    def _after_decision(self, state: NamasteState, events: list[Event]):
        if set(state.decided) >= set(state.players):
            state, more = self._close_turn(state)
            events += more
        return state, events

    def _close_turn(self, state: NamasteState) -> tuple[NamasteState, list[Event]]:
        """End the turn: anyone undecided passes, the dice go left; the game may end."""
        events: list[Event] = []
        for player in state.players:
            if player not in state.decided:
                state, evs = self._pass(state, player)
                events += [Event(e.kind, {**e.data, "by": "next roll"}) for e in evs]
        sheets = dict(state.sheets)
        ending = state.ending or any(s.full or s.karma_full for s in sheets.values())
        active = (state.active + 1) % len(state.players)
        # A turn is a round: one round-ended event (the shape every mode's end of round has:
        # result, holder, details), "turn", or "game-over" with the standings once the round
        # in which a sheet filled has come back to the first player.
        result, holder = "turn", state.active_player
        details: dict[str, Any] = {"turn": state.turn, "next": state.players[active]}
        state = state.replace(roll=None, decided=(), active=active, ending=ending,
                              rounds=state.rounds + 1)
        if ending and active == 0:
            rows, winners = standings(sheets)
            state = state.replace(phase="over", result=tuple(rows), winners=tuple(winners))
            result = "game-over"
            details.update(next=None, winners=winners,
                           standings=[{"player": p, "points": pts, "karma_spaces": k}
                                      for p, pts, k in rows])
        events.append(Event("round-ended", {"result": result, "holder": holder,
                                            "details": details}))
        return state, events

    # -- views and play ------------------------------------------------------------------------

    def light(self, state: NamasteState, events: tuple[Event, ...]) -> str:
        if any(e.kind == "round-ended" and e.data["result"] == "game-over" for e in events):
            return "win"
        if state.phase == "playing":
            return "rolling" if state.roll is None else "bets_open"
        return super().light(state, events)

    def view(self, state: NamasteState) -> dict:
        out = super().view(state)
        sheets = {}
        for player, sheet in state.sheets:
            entry = sheet.to_json()
            options = self.totals_for(state, player) if player not in state.decided else ()
            entry["may_enter"] = {str(t): list(sheet.legal(t)) for t in options}
            sheets[player] = entry
        claimed = dict(state.claimed)
        out.update(
            phase=state.phase, players=list(state.players), active=state.active_player,
            turn=state.turn, roll=state.roll.to_json() if state.roll else None,
            undecided=[p for p in state.players if p not in state.decided]
            if state.roll else [],
            sheets=sheets, ending=state.ending,
            lines=[{"name": ln.name, "circles": list(ln.circles), "middle": ln.middle,
                    "space": ln.space, "claimed_turn": claimed.get(ln.name)} for ln in LINES],
            circles=[list(rc) for rc in CIRCLES],
            result=[{"player": p, "points": pts, "karma_spaces": k}
                    for p, pts, k in state.result],
            winners=list(state.winners),
        )
        return out

    def chance_step(self, state: NamasteState, rng: random.Random) -> Command:
        """The turquoise die and one to three white dice, thrown."""
        return Command("roll", {"turquoise": rng.choice(FACES),
                                "white": [rng.choice(FACES) for _ in range(rng.randint(1, 3))]})

    def demo_throw(self, state: NamasteState, rng: random.Random
                   ) -> tuple[list[str], list[str]]:
        roll = self.chance_step(state, rng).args
        return ([LABEL_OF[("turquoise", roll["turquoise"])]]
                + [LABEL_OF[("white", f)] for f in roll["white"]], [])

    def random_command(self, state: NamasteState, rng: random.Random) -> Command:
        if state.phase != "playing":
            if len(state.seats) < 2:
                return Command("join", {"player": f"P{rng.randint(1, 9)}"})
            return Command("start", {"first": rng.choice(state.seats)})
        if state.roll is None or rng.random() < 0.03:
            return self.chance_step(state, rng)
        undecided = [p for p in state.players if p not in state.decided]
        player = rng.choice(undecided)
        sheet = state.sheet(player)
        options = [(t, n) for t in self.totals_for(state, player) for n in sheet.legal(t)]
        if options and rng.random() < 0.85:
            total, n = rng.choice(options)
            return Command("enter", {"player": player, "circle": n, "total": total})
        return Command("pass", {"player": player})

    def read(self, state: NamasteState, observation: Observation,
             min_confidence: float = 0.9) -> Reading:
        """A settled throw: one turquoise die and one to three white dice in the rolling area,
        their 1/7 faces left to each player's choice."""
        if state.phase != "playing":
            return Reading(problems=("no game is under way; start one",))
        problems: list[str] = []
        uncertain: list[int] = []
        turquoise: list[str] = []
        white: list[str] = []
        for index, seen in enumerate(observation.objects):
            if seen.kind != "die":
                problems.append("something that is not a die is on the felt (a hand?)")
                continue
            if seen.zone != "rolling":
                problems.append(f"a die ({seen.label or 'unread'}) lies outside the rolling "
                                "area")
                continue
            if seen.cocked:
                problems.append(f"a die ({seen.label or 'unread'}) is cocked: it is thrown again")
            if seen.label is None or seen.confidence < min_confidence:
                uncertain.append(index)
                continue
            if seen.label not in LABELS:
                problems.append(f"{seen.label} is not a face of the Namaste dice")
                continue
            colour, face = LABELS[seen.label]
            (turquoise if colour == "turquoise" else white).append(face)
        faces = {"turquoise": turquoise[0] if len(turquoise) == 1 else None,
                 **{f"white-{i + 1}": f for i, f in enumerate(white)}}
        if not uncertain:
            if len(turquoise) != 1:
                problems.append(f"a roll has one turquoise die; {len(turquoise)} are read")
            if not 1 <= len(white) <= 3:
                problems.append(f"a roll has one to three white dice; {len(white)} are read")
        if problems or uncertain:
            return Reading(problems=tuple(dict.fromkeys(problems)), uncertain=tuple(uncertain),
                           faces=faces)
        if state.roll is not None:
            waiting = [p for p in state.players if p not in state.decided]
            problems.append(f"the turn is still open ({', '.join(waiting)} to enter or pass); "
                            "confirm the new roll to close it")
            return Reading(problems=tuple(problems), faces=faces)
        return Reading((Command("roll", {"turquoise": turquoise[0], "white": white}),),
                       faces=faces)


MODE = Mode(
    engine=Namaste(),
    equipment=EQUIPMENT,
    odds_ref="controller.odds.namaste:odds",
    odds_text_ref="controller.odds.namaste:odds_text",
    page_ref="web.modes.namaste:PAGE",
    printables={"namaste-sheet": "controller.printables.namaste_sheet:print_sheet"},
    result_words={"turn": "the turn is over", "game-over": "the game is over"},
    receipts=("round-slip",),
    slip_results=("game-over",),
)

__all__ = ["CIRCLES", "FACES", "LINES", "Namaste", "NamasteState", "Sheet",
           "legal_circles", "totals"]
