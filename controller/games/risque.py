"""Risque: an important action of an important character, resolved with a pool of six-sided
dice, Mises set aside in secret, and the Privilege of telling what happens (seeds/risque-fr.md).

A Risque gathers one or more characters (a duel: two; a Seppuku: one). Each builds a dice pool:
always the rank of the Virtue that fits, and when they fit Giri (+ rank), the Clan's name (+2),
the character's name (+1), one Aspect (+3), one Reputation (+ rank), one Equipment (+ rank);
besides, 1 Honour from the common Reserve (+4), opponents' known Handicaps (+2 each; a
Daimyo's Handicap costs 1 Honour) and opponents' Wounds (+ their rank; the Wounded's Honour
point goes to the Reserve). Each stakes Mises in secret; they are revealed together; each
rolls the rest. 10+ succeeds: the highest score has the Privilege and keeps every Mise, the
others who made 10+ keep half (rounded up), the rest none. Every success speaks one Truth
(Vérité), plus one per Mise kept, one at a time clockwise from the Privilege (or from whom it
names); 2 Mises may be sacrificed for 1 Glory. Glory goes into Reputations, 10 points a rank,
at most 1 + Giri rank Reputations. Seppuku: Courage + Giri; success adds 4 Honour to the
Reserve, +1 per Mise. A duel's winner gains 1 Glory per Mise the opponent staked.

Names are the rule text's (Mise, Privilège, Vérité, Honneur, Gloire, Réputation), written in
code without accents. Messages are plain English; the dashboard translates what it shows.
Rulings beyond the seed and RULINGS.md: docs/rules/risque.md.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from controller.errors import IllegalCommand
from controller.games.base import Arg, Command, Engine, Event, State, command
from controller.games.observation import pip_dice
from controller.modes import Mode
from controller.settings import Setting

#: What Risques there are: an ordinary Risque, a duel (two characters), a Seppuku (one).
KINDS = ("risque", "duel", "seppuku")
#: The total that succeeds.
TARGET = 10
#: A Risque gathers at most this many characters (a table's worth).
MAX_PARTICIPANTS = 8
#: What each fixed bonus is worth (the others are worth a rank).
CLAN_BONUS, NAME_BONUS, ASPECT_BONUS, HONOUR_BONUS, HANDICAP_BONUS = 2, 1, 3, 4, 2
#: Seppuku restores this much Honour to the Reserve, plus one per Mise.
SEPPUKU_HONOUR = 4
#: Glory points to a Reputation rank.
GLORY_PER_RANK = 10
#: What in a Risque adds Honour to the Reserve, 1 point each (seeds/risque-fr.md): in the
#: Clan's direct interest, affirming the Clan's dignity, a danger to fulfil an obligation,
#: true to the Clan's Bushido.
HONOUR_REASONS = ("clan-interest", "clan-dignity", "duty-in-danger", "bushido")
#: An Aspect's constraint kept gives this much Honour; broken, costs this much.
COMPEL_KEPT, COMPEL_BROKEN = 1, 3
#: The Virtue of a Seppuku.
COURAGE = "Courage"
#: A character sheet's free text: names, aspects, handicaps.
MAX_TEXT = 60


def half_up(n: int) -> int:
    return -(-n // 2)


def _text(value: Any, what: str) -> str:
    """A name or phrase: 1 to 60 characters, no ':' (it separates the parts of a bonus)."""
    if not isinstance(value, str) or not value.strip() or value != value.strip() \
            or len(value) > MAX_TEXT or ":" in value or not value.isprintable():
        raise IllegalCommand("%(what)s %(value)s: expected a name of 1 to %(most)d characters, "
                             "without ':' or surrounding spaces", what=what, value=repr(value),
                             most=MAX_TEXT)
    return value


def _rank(value: Any, what: str, maximum: int = 99) -> int:
    if type(value) is not int or not 0 <= value <= maximum:
        raise IllegalCommand("%(what)s = %(value)s: expected a whole number from 0 to "
                             "%(most)d", what=what, value=repr(value), most=maximum)
    return value


def _ranked(value: Any, what: str, maximum: int = 99) -> tuple[tuple[str, int], ...]:
    """{name: rank} as a tuple of pairs, checked."""
    if not isinstance(value, Mapping):
        raise IllegalCommand('%(what)s: expected an object of name: rank, e.g. {"Courage": 3}',
                             what=what)
    return tuple((_text(k, what), _rank(v, f"{what} {k}", maximum)) for k, v in value.items())


def _names(value: Any, what: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise IllegalCommand("%(what)s: expected a list of names", what=what)
    names = tuple(_text(v, what) for v in value)
    if len(set(names)) != len(names):
        raise IllegalCommand("%(what)s: a name is listed twice", what=what)
    return names


@dataclass(frozen=True)
class Character:
    """A character's sheet (Personnage)."""

    name: str
    clan: str
    virtues: tuple[tuple[str, int], ...] = ()
    giri: str = ""
    giri_rank: int = 0
    aspects: tuple[str, ...] = ()
    #: Reputations and their Glory points (a rank every 10).
    reputations: tuple[tuple[str, int], ...] = ()
    equipment: tuple[tuple[str, int], ...] = ()
    handicaps: tuple[str, ...] = ()
    #: Daimyo's Handicaps: anyone may invoke them against the character for 1 Honour.
    daimyo: tuple[str, ...] = ()
    wounds: tuple[tuple[str, int], ...] = ()
    #: Glory won and not yet added to a Reputation.
    glory: int = 0
    player: str = ""
    alive: bool = True

    def virtue(self, name: str) -> int | None:
        return dict(self.virtues).get(name)

    @property
    def max_reputations(self) -> int:
        return 1 + self.giri_rank

    def reputation_rank(self, name: str) -> int:
        return dict(self.reputations).get(name, 0) // GLORY_PER_RANK

    def to_json(self) -> dict:
        return {"name": self.name, "clan": self.clan, "virtues": dict(self.virtues),
                "giri": self.giri, "giri_rank": self.giri_rank, "aspects": list(self.aspects),
                "reputations": {n: {"points": p, "rank": p // GLORY_PER_RANK}
                                for n, p in self.reputations},
                "equipment": dict(self.equipment), "handicaps": list(self.handicaps),
                "daimyo": list(self.daimyo), "wounds": dict(self.wounds), "glory": self.glory,
                "player": self.player, "alive": self.alive}


@dataclass(frozen=True)
class Bonus:
    """One bonus of a pool, as short text ("aspect:Loyal", "wound:Bayushi Kachiko:Cut") and
    what it is worth in dice, what it costs the Honour Reserve, whom it gives Honour."""

    key: str
    worth: int
    honour_cost: int = 0
    honours: str = ""

    def to_json(self) -> dict:
        out: dict[str, Any] = {"bonus": self.key, "worth": self.worth}
        if self.honour_cost:
            out["honour_cost"] = self.honour_cost
        if self.honours:
            out["gives_honour"] = self.honours
        return out


def bonuses(characters: Mapping[str, Character], who: str) -> list[Bonus]:
    """Every bonus the seed offers `who` now, with its worth: the pool builder's list."""
    me = characters[who]
    out = [Bonus(f"virtue:{v}", r) for v, r in me.virtues]
    out += [Bonus("giri", me.giri_rank), Bonus("clan", CLAN_BONUS), Bonus("name", NAME_BONUS)]
    out += [Bonus(f"aspect:{a}", ASPECT_BONUS) for a in me.aspects]
    out += [Bonus(f"reputation:{r}", p // GLORY_PER_RANK) for r, p in me.reputations]
    out += [Bonus(f"equipment:{e}", r) for e, r in me.equipment]
    out.append(Bonus("honour", HONOUR_BONUS, honour_cost=1))
    for other in characters.values():
        if other.name == who or not other.alive:
            continue
        out += [Bonus(f"handicap:{other.name}:{h}", HANDICAP_BONUS) for h in other.handicaps]
        out += [Bonus(f"daimyo:{other.name}:{h}", HANDICAP_BONUS, honour_cost=1)
                for h in other.daimyo]
        out += [Bonus(f"wound:{other.name}:{w}", r, honours=other.name)
                for w, r in other.wounds]
    return out


@dataclass(frozen=True)
class Pool:
    """A built dice pool: its Virtue, its bonuses, its dice."""

    virtue: str
    parts: tuple[Bonus, ...]

    @property
    def dice(self) -> int:
        return sum(b.worth for b in self.parts)

    @property
    def honour_cost(self) -> int:
        return sum(b.honour_cost for b in self.parts)

    @property
    def honours(self) -> tuple[str, ...]:
        return tuple(b.honours for b in self.parts if b.honours)

    def to_json(self) -> dict:
        return {"virtue": self.virtue, "dice": self.dice,
                "bonuses": [b.to_json() for b in self.parts]}


def build_pool(characters: Mapping[str, Character], who: str, virtue: str,
               chosen: list[str]) -> Pool:
    """The pool of `who` with `virtue` and the `chosen` bonuses (short text), or
    IllegalCommand saying which bonus is not on offer and what is."""
    offer = {b.key: b for b in bonuses(characters, who)}
    if characters[who].virtue(virtue) is None:
        raise IllegalCommand("%(character)s has no Virtue %(virtue)s; Virtues: %(virtues)s",
                             character=who, virtue=repr(virtue),
                             virtues=[v for v, _ in characters[who].virtues] or ["none"])
    parts = [offer[f"virtue:{virtue}"]]
    seen: set[str] = set()
    for key in chosen:
        if not isinstance(key, str) or key not in offer or key.startswith("virtue:"):
            others = [k for k in offer if not k.startswith("virtue:")] or ["none"]
            raise IllegalCommand("%(bonus)s is not a bonus %(character)s can take now; "
                                 "bonuses: %(bonuses)s", bonus=repr(key), character=who,
                                 bonuses=others)
        if key in seen:
            raise IllegalCommand("%(bonus)s is taken twice; each bonus counts once",
                                 bonus=repr(key))
        seen.add(key)
        parts.append(offer[key])
    for kind, words in (("aspect", "Aspect"), ("reputation", "Reputation"),
                        ("equipment", "Equipment")):
        several = [k for k in seen if k.startswith(kind + ":")]
        if len(several) > 1:
            raise IllegalCommand("one %(kind)s at most in a pool; %(chosen)s are chosen",
                                 kind=words, chosen=sorted(several))
    return Pool(virtue, tuple(parts))


@dataclass(frozen=True)
class Participant:
    """A character in the Risque under way."""

    character: str
    pool: Pool | None = None
    #: Mises staked (secret until revealed).
    mises: int | None = None
    rolled: tuple[int, ...] = ()
    #: After the roll: Mises kept, and Truths left to speak (one free + one per Mise).
    kept: int = 0
    free_truth: bool = False
    done: bool = False

    @property
    def to_roll(self) -> int:
        return (self.pool.dice - (self.mises or 0)) if self.pool else 0

    @property
    def score(self) -> int:
        return sum(self.rolled)

    @property
    def rolled_all(self) -> bool:
        return self.pool is not None and len(self.rolled) == self.to_roll

    @property
    def success(self) -> bool:
        return self.rolled_all and self.score >= TARGET

    @property
    def has_more(self) -> bool:
        return not self.done and (self.free_truth or self.kept > 0)


@dataclass(frozen=True)
class Risk:
    kind: str
    about: str
    participants: tuple[Participant, ...]
    #: "building" (pools and Mises), "rolling", "privilege" (the Narrator breaks a tie),
    #: "truths".
    phase: str = "building"
    privilege: str | None = None
    #: Whose turn it is to speak a Truth (index into participants).
    speaker: int = 0
    truths_spoken: int = 0

    def get(self, who: str) -> Participant:
        for p in self.participants:
            if p.character == who:
                return p
        raise IllegalCommand("%(character)s is not in this Risque; its characters: "
                             "%(characters)s", character=who,
                             characters=[p.character for p in self.participants])

    def put(self, part: Participant) -> Risk:
        return _replace(self, participants=tuple(part if p.character == part.character else p
                                                 for p in self.participants))


def _replace(obj, **changes):
    return dataclasses.replace(obj, **changes)


@dataclass(frozen=True, kw_only=True)
class RisqueState(State):
    characters: tuple[Character, ...] = ()
    #: The common Honour Reserve (Réserve d'Honneur).
    honour: int = 0
    risk: Risk | None = None
    #: The last Risque's outcome, for the screens.
    last: Mapping[str, Any] = field(default_factory=dict)

    @property
    def by_name(self) -> dict[str, Character]:
        return {c.name: c for c in self.characters}

    def character(self, name: Any) -> Character:
        if not isinstance(name, str) or name not in self.by_name:
            raise IllegalCommand("%(name)s is not a character here; characters: "
                                 "%(characters)s", name=repr(name),
                                 characters=list(self.by_name) or ["none yet"])
        return self.by_name[name]

    def with_character(self, char: Character) -> RisqueState:
        if char.name in self.by_name:
            chars = tuple(char if c.name == char.name else c for c in self.characters)
        else:
            chars = self.characters + (char,)
        return self.replace(characters=chars)


class Risque(Engine):
    name = "risque"
    title = "Risque"
    state_type = RisqueState
    chance_kinds = frozenset({"roll"})
    settings = (
        Setting("max_pool", 40, "the most dice a pool may hold", minimum=1, maximum=60),
        Setting("honour", 0, "Honour in the common Reserve when the table opens", minimum=0,
                maximum=999),
    )
    #: Arguments the screens do not show (the journal's tail): the Mises are staked in secret.
    secret_args = {"mise": ("mises",)}
    # Every roll is at least one die, of at most MAX_PARTICIPANTS pools of at most 60 dice.
    round_bound = MAX_PARTICIPANTS * 60

    def new_state(self, settings=None, seats=(), ledger=None) -> State:
        state = super().new_state(settings, seats, ledger)
        return state.replace(honour=state.settings["honour"])

    def in_round(self, state: RisqueState) -> bool:
        """The dice are on their way: Mises revealed, rolls not all in."""
        return state.risk is not None and state.risk.phase == "rolling"

    def _open_risk(self, state: RisqueState) -> Risk:
        if state.risk is None:
            raise IllegalCommand("no Risque is under way; open one with 'risque'")
        return state.risk

    def _phase(self, state: RisqueState, phase: str, doing: str) -> Risk:
        risk = self._open_risk(state)
        if risk.phase != phase:
            raise IllegalCommand("not now: %(doing)s comes when the Risque is %(phase)s; it is "
                                 "%(now)s (%(next)s)", doing=doing, phase=_PHASE_WORDS[phase],
                                 now=_PHASE_WORDS[risk.phase], next=_NEXT[risk.phase])
        return risk

    # -- the characters -------------------------------------------------------------------------

    @command("character", name=str, clan=str, virtues=dict, giri=Arg(str, optional=True),
             giri_rank=Arg(int, optional=True), aspects=Arg(list, optional=True),
             reputations=Arg(dict, optional=True), equipment=Arg(dict, optional=True),
             handicaps=Arg(list, optional=True), daimyo=Arg(list, optional=True),
             wounds=Arg(dict, optional=True), glory=Arg(int, optional=True),
             player=Arg(str, optional=True))
    def character(self, state: RisqueState, cmd: Command):
        a = cmd.args
        name = _text(a["name"], "the character's name")
        if state.risk is not None and any(p.character == name
                                          for p in state.risk.participants):
            raise IllegalCommand("%(character)s is in the Risque under way; change the sheet "
                                 "after it", character=name)
        if name in state.by_name and not state.by_name[name].alive:
            raise IllegalCommand("%(character)s is dead (Seppuku); choose another name",
                                 character=name)
        virtues = _ranked(a["virtues"], "virtue")
        if not virtues:
            raise IllegalCommand("a character has at least one Virtue with its rank, e.g. "
                                 '{"Courage": 2}')
        giri_rank = _rank(a.get("giri_rank", 0), "giri_rank")
        reputations = _ranked(a.get("reputations", {}), "reputation", 9999)
        if len(reputations) > 1 + giri_rank:
            raise IllegalCommand("%(character)s may have at most %(most)d Reputations (1 + Giri "
                                 "rank %(giri)d); %(n)d are given", character=name,
                                 most=1 + giri_rank, giri=giri_rank, n=len(reputations))
        player = a.get("player", "")
        char = Character(
            name=name, clan=_text(a["clan"], "clan"), virtues=virtues,
            giri=_text(a["giri"], "giri") if a.get("giri") else "", giri_rank=giri_rank,
            aspects=_names(a.get("aspects", []), "aspect"), reputations=reputations,
            equipment=_ranked(a.get("equipment", {}), "equipment"),
            handicaps=_names(a.get("handicaps", []), "handicap"),
            daimyo=_names(a.get("daimyo", []), "daimyo handicap"),
            wounds=_ranked(a.get("wounds", {}), "wound"),
            glory=_rank(a.get("glory", 0), "glory", 9999),
            player=self.seated(state, player) if player else "")
        new = name not in state.by_name
        return state.with_character(char), [Event("character-added" if new
                                                   else "character-changed",
                                                   {"character": name})]

    @command("award-glory", character=str, points=Arg(int, minimum=1))
    def award_glory(self, state: RisqueState, cmd: Command):
        """The Narrator gives Glory for a remarkable deed."""
        char = self._alive(state, cmd.args["character"])
        points = _rank(cmd.args["points"], "points", 99)
        state = state.with_character(_replace(char, glory=char.glory + points))
        return state, [Event("glory-won", {"character": char.name, "points": points,
                                           "why": "the Narrator"})]

    @command("reputation", character=str, reputation=str, points=Arg(int, optional=True,
                                                                      minimum=1))
    def reputation(self, state: RisqueState, cmd: Command):
        """Add Glory won to a Reputation (a new one while there is room: 1 + Giri rank)."""
        char = self._alive(state, cmd.args["character"])
        name = _text(cmd.args["reputation"], "reputation")
        points = cmd.args.get("points", char.glory)
        if char.glory == 0 or points > char.glory:
            raise IllegalCommand("%(character)s has %(glory)d Glory to add to a Reputation; "
                                 "not %(points)s", character=char.name, glory=char.glory,
                                 points=points)
        reps = dict(char.reputations)
        if name not in reps and len(reps) >= char.max_reputations:
            raise IllegalCommand("%(character)s has %(n)d Reputations, the most for Giri rank "
                                 "%(giri)d; add the Glory to one of: %(reputations)s",
                                 character=char.name, n=len(reps), giri=char.giri_rank,
                                 reputations=list(reps))
        before = reps.get(name, 0)
        reps[name] = before + points
        char = _replace(char, glory=char.glory - points, reputations=tuple(reps.items()))
        return state.with_character(char), [Event("reputation-grown", {
            "character": char.name, "reputation": name, "points": reps[name],
            "rank": reps[name] // GLORY_PER_RANK,
            "ranks_gained": reps[name] // GLORY_PER_RANK - before // GLORY_PER_RANK})]

    @command("honour", points=int, why=str)
    def honour(self, state: RisqueState, cmd: Command):
        """Honour added to the Reserve (+), or lost (-): a loss takes what is there."""
        points, why = cmd.args["points"], cmd.args["why"]
        if points == 0 or abs(points) > 99:
            raise IllegalCommand("points = %(points)s: expected a gain (1 to 99) or a loss "
                                 "(-1 to -99)", points=points)
        if not why.strip():
            raise IllegalCommand("say why the Honour changes (why: the deed)")
        return self._honour(state, points, why)

    @command("compel", character=str, aspect=str, kept=bool)
    def compel(self, state: RisqueState, cmd: Command):
        """An Aspect's constraint: kept, +1 Honour to the Reserve; broken, -3."""
        char = self._alive(state, cmd.args["character"])
        aspect = cmd.args["aspect"]
        if aspect not in char.aspects:
            raise IllegalCommand("%(character)s has no Aspect %(aspect)s; Aspects: "
                                 "%(aspects)s", character=char.name, aspect=repr(aspect),
                                 aspects=list(char.aspects) or ["none"])
        points = COMPEL_KEPT if cmd.args["kept"] else -COMPEL_BROKEN
        return self._honour(state, points, f"{char.name}: {aspect} "
                            f"{'kept' if cmd.args['kept'] else 'broken'}")

    @command("honour-truth", text=str)
    def honour_truth(self, state: RisqueState, cmd: Command):
        """1 Honour from the Reserve for a Truth about a person, a place, a bond, anything."""
        if state.honour < 1:
            raise IllegalCommand("the Honour Reserve is empty: a Truth for Honour costs 1")
        text = cmd.args["text"].strip()
        if not text:
            raise IllegalCommand("say the Truth (text)")
        return state.replace(honour=state.honour - 1), [
            Event("truth", {"text": text, "paid": "honour", "reserve": state.honour - 1})]

    def _honour(self, state: RisqueState, points: int, why: str):
        taken = max(points, -state.honour)
        data: dict[str, Any] = {"points": taken, "why": why, "reserve": state.honour + taken}
        if taken != points:
            data["shortfall"] = taken - points
        return state.replace(honour=state.honour + taken), [Event("honour-changed", data)]

    def _alive(self, state: RisqueState, name: Any) -> Character:
        char = state.character(name)
        if not char.alive:
            raise IllegalCommand("%(character)s is dead (Seppuku)", character=char.name)
        return char

    # -- a Risque -------------------------------------------------------------------------------

    @command("risque", characters=list, about=Arg(str, optional=True),
             honour_for=Arg(list, optional=True))
    def risque(self, state: RisqueState, cmd: Command):
        """A Risque of one or more characters, listed clockwise; `honour_for`: what in it adds
        Honour to the Reserve (HONOUR_REASONS, 1 point each)."""
        return self._open(state, "risque", cmd.args["characters"], cmd.args.get("about", ""),
                          cmd.args.get("honour_for", []))

    @command("duel", characters=list, about=Arg(str, optional=True),
             honour_for=Arg(list, optional=True))
    def duel(self, state: RisqueState, cmd: Command):
        """A duel: two characters; the winner gains 1 Glory per Mise the loser staked."""
        return self._open(state, "duel", cmd.args["characters"], cmd.args.get("about", ""),
                          cmd.args.get("honour_for", []))

    @command("seppuku", character=str, about=Arg(str, optional=True))
    def seppuku(self, state: RisqueState, cmd: Command):
        """A Seppuku: a Risque of Courage + Giri; success adds 4 Honour + 1 per Mise."""
        return self._open(state, "seppuku", [cmd.args["character"]], cmd.args.get("about", ""))

    def _open(self, state: RisqueState, kind: str, names: list, about: str,
              honour_for: list | None = None):
        if state.risk is not None:
            raise IllegalCommand("a Risque is under way; finish it first")
        reasons = honour_for or []
        if not all(isinstance(r, str) and r in HONOUR_REASONS for r in reasons) \
                or len(set(reasons)) != len(reasons):
            raise IllegalCommand("honour_for %(given)s: each of %(reasons)s at most once (1 "
                                 "Honour to the Reserve each)", given=repr(reasons),
                                 reasons=HONOUR_REASONS)
        need = {"duel": (2, 2), "seppuku": (1, 1)}.get(kind, (1, MAX_PARTICIPANTS))
        if not need[0] <= len(names) <= need[1]:
            if kind == "duel":
                raise IllegalCommand("a duel has 2 characters; %(n)d are given", n=len(names))
            if kind == "seppuku":
                raise IllegalCommand("a seppuku has 1 character; %(n)d are given", n=len(names))
            raise IllegalCommand("a %(kind)s has %(least)d to %(most)d characters, in clockwise "
                                 "order; %(n)d are given", kind=kind, least=need[0],
                                 most=need[1], n=len(names))
        chars = [self._alive(state, n) for n in names]
        if len(set(names)) != len(names):
            raise IllegalCommand("a character is listed twice in the Risque")
        parts = tuple(Participant(c.name) for c in chars)
        risk = Risk(kind, about, parts)
        events = [Event("risque-opened", {"risque_kind": kind, "characters": list(names),
                                          "about": risk.about})]
        if reasons:
            state = state.replace(honour=state.honour + len(reasons))
            events.append(Event("honour-changed", {"points": len(reasons),
                                                   "why": ", ".join(reasons),
                                                   "reserve": state.honour}))
        if kind == "seppuku":
            char = chars[0]
            courage = Bonus(f"virtue:{COURAGE}", char.virtue(COURAGE) or 0)
            pool = Pool(COURAGE, (courage, Bonus("giri", char.giri_rank)))
            if pool.dice == 0:
                raise IllegalCommand("%(character)s has no Courage and no Giri rank: a "
                                     "Seppuku (Courage + Giri) has no dice", character=char.name)
            risk = risk.put(_replace(parts[0], pool=pool))
            events.append(Event("pool-built", {"character": char.name, **pool.to_json()}))
        return state.replace(risk=risk), events

    @command("pool", character=str, virtue=str, bonuses=Arg(list, optional=True))
    def pool(self, state: RisqueState, cmd: Command):
        risk = self._phase(state, "building", "building a pool")
        who = cmd.args["character"]
        part = risk.get(who)
        if risk.kind == "seppuku":
            raise IllegalCommand("a Seppuku's pool is Courage + Giri, built when it opens")
        chosen = cmd.args.get("bonuses", [])
        pool = build_pool(state.by_name, who, cmd.args["virtue"], chosen)
        limit = state.settings["max_pool"]
        if not 1 <= pool.dice <= limit:
            raise IllegalCommand("a pool of %(dice)d dice: a pool holds 1 to %(most)d dice",
                                 dice=pool.dice, most=limit)
        # The Reserve pays this pool's Honour; a pool built again gives the first one's back.
        old = part.pool
        reserve = state.honour
        if old is not None:
            reserve += old.honour_cost - len(old.honours)
        after = reserve + len(pool.honours) - pool.honour_cost
        if after < 0:
            # (Honour the first pool gave may be spent already by another character's pool.)
            raise IllegalCommand("the Reserve holds %(reserve)d Honour for this pool; it spends "
                                 "%(cost)d and gives %(gives)d", reserve=max(reserve, 0),
                                 cost=pool.honour_cost, gives=len(pool.honours))
        reserve = after
        mises = part.mises if part.mises is not None and part.mises < pool.dice else None
        risk = risk.put(_replace(part, pool=pool, mises=mises))
        return state.replace(risk=risk, honour=reserve), [
            Event("pool-built", {"character": who, **pool.to_json(), "reserve": reserve})]

    @command("mise", character=str, mises=Arg(int, minimum=0))
    def mise(self, state: RisqueState, cmd: Command):
        """Mises staked in secret; changed freely until they are revealed."""
        risk = self._phase(state, "building", "staking Mises")
        who, mises = cmd.args["character"], cmd.args["mises"]
        part = risk.get(who)
        if part.pool is None:
            raise IllegalCommand("%(character)s builds a pool before staking Mises",
                                 character=who)
        if mises >= part.pool.dice:
            raise IllegalCommand("%(character)s's pool has %(dice)d dice: stake 0 to %(most)d "
                                 "Mises, leaving one die at least to roll", character=who,
                                 dice=part.pool.dice, most=part.pool.dice - 1)
        # The event says who staked, not how many: the Mises stay secret until revealed.
        return state.replace(risk=risk.put(_replace(part, mises=mises))), [
            Event("mises-staked", {"character": who})]

    @command("reveal")
    def reveal(self, state: RisqueState, cmd: Command):
        """Every Mise revealed together; the dice are rolled next."""
        risk = self._phase(state, "building", "revealing the Mises")
        waiting = [p.character for p in risk.participants if p.pool is None or p.mises is None]
        if waiting:
            raise IllegalCommand("Mises are revealed together once every character has a pool "
                                 "and Mises staked; waiting for %(waiting)s", waiting=waiting)
        return state.replace(risk=_replace(risk, phase="rolling")), [Event("mises-revealed", {
            "mises": {p.character: p.mises for p in risk.participants},
            "to_roll": {p.character: p.to_roll for p in risk.participants}})]

    @command("roll", character=str, dice=list)
    def roll(self, state: RisqueState, cmd: Command):
        """A character's dice (all, or some at a time when there are more than the tray
        holds)."""
        risk = self._phase(state, "rolling", "rolling")
        who, dice = cmd.args["character"], cmd.args["dice"]
        part = risk.get(who)
        left = part.to_roll - len(part.rolled)
        if left == 0:
            raise IllegalCommand("%(character)s has rolled all %(dice)d dice; waiting for "
                                 "%(waiting)s", character=who, dice=part.to_roll,
                                 waiting=[p.character for p in risk.participants
                                          if not p.rolled_all])
        if not 1 <= len(dice) <= left or not all(type(d) is int and 1 <= d <= 6 for d in dice):
            raise IllegalCommand("%(character)s has %(left)d dice still to roll (from 1 to "
                                 "%(left)d at once), each 1 to 6; not %(dice)s", character=who,
                                 left=left, dice=repr(dice))
        part = _replace(part, rolled=part.rolled + tuple(dice))
        risk = risk.put(part)
        events = [Event("rolled", {"character": who, "dice": list(dice),
                                   "score": part.score, "left": left - len(dice)})]
        if all(p.rolled_all for p in risk.participants):
            state, more = self._outcome(state.replace(risk=risk))
            return state, events + more
        return state.replace(risk=risk), events

    def _outcome(self, state: RisqueState) -> tuple[RisqueState, list[Event]]:
        """Every die is in: who has the Privilege, who keeps which Mises."""
        risk = state.risk
        winners = [p for p in risk.participants if p.success]
        best = max((p.score for p in winners), default=0)
        top = [p for p in winners if p.score == best]
        parts = []
        for p in risk.participants:
            if not p.success:
                kept = 0
            elif p.score == best:
                kept = p.mises  # the highest score, and every tie for it (RULINGS.md)
            else:
                kept = half_up(p.mises)
            parts.append(_replace(p, kept=kept, free_truth=p.success))
        risk = _replace(risk, participants=tuple(parts))
        events = [Event("risque-rolled", {
            "scores": {p.character: p.score for p in parts},
            "succeeded": [p.character for p in parts if p.success],
            "kept": {p.character: p.kept for p in parts}})]
        if not top:
            return self._end(state.replace(risk=risk), events, privilege=None)
        most = max(p.mises for p in top)
        tied = [p.character for p in top if p.mises == most]
        if len(tied) > 1:
            events.append(Event("privilege-tied", {"characters": tied, "score": best,
                                                   "mises": most}))
            return state.replace(risk=_replace(risk, phase="privilege")), events
        return self._grant(state.replace(risk=risk), tied[0], events)

    @command("privilege", character=str)
    def privilege(self, state: RisqueState, cmd: Command):
        """The Narrator gives the Privilege to one of the characters still tied."""
        risk = self._phase(state, "privilege", "choosing the Privilege")
        who = cmd.args["character"]
        part = risk.get(who)
        best = max(p.score for p in risk.participants)
        most = max(p.mises for p in risk.participants if p.score == best)
        if part.score != best or part.mises != most:
            tied = [p.character for p in risk.participants
                    if p.score == best and p.mises == most]
            raise IllegalCommand("the Privilege goes to one of %(tied)s (tied at %(best)d with "
                                 "%(mises)d Mises), not %(character)s", tied=tied, best=best,
                                 mises=most, character=who)
        return self._grant(state, who, [])

    def _grant(self, state: RisqueState, who: str, events: list[Event]):
        risk = state.risk
        events = events + [Event("privilege", {"character": who,
                                               "score": risk.get(who).score})]
        if risk.kind == "seppuku":
            return self._end(state, events, privilege=who)
        if risk.kind == "duel":
            other = next(p for p in risk.participants if p.character != who)
            if other.mises:
                char = state.by_name[who]
                state = state.with_character(_replace(char, glory=char.glory + other.mises))
                events.append(Event("glory-won", {"character": who, "points": other.mises,
                                                  "why": f"the duel: {other.character}'s "
                                                         "Mises"}))
        names = [p.character for p in risk.participants]
        risk = _replace(risk, phase="truths", privilege=who, speaker=names.index(who))
        return state.replace(risk=risk), events

    # -- the Truths ----------------------------------------------------------------------------

    def _speaker(self, state: RisqueState, who: str, doing: str) -> tuple[Risk, Participant]:
        risk = self._phase(state, "truths", doing)
        part = risk.get(who)
        current = risk.participants[risk.speaker].character
        if who != current:
            raise IllegalCommand("it is %(speaker)s's turn to speak a Truth, not "
                                 "%(character)s's", speaker=current, character=who)
        return risk, part

    @command("truths-from", character=str)
    def truths_from(self, state: RisqueState, cmd: Command):
        """The Privilege names who speaks first; then one each, clockwise."""
        risk = self._phase(state, "truths", "naming who speaks first")
        if risk.truths_spoken:
            raise IllegalCommand("the first Truth is spoken; the order goes on clockwise")
        who = cmd.args["character"]
        part = risk.get(who)
        if not part.has_more:
            raise IllegalCommand("%(character)s has no Truth to speak (under 10)",
                                 character=who)
        names = [p.character for p in risk.participants]
        return state.replace(risk=_replace(risk, speaker=names.index(who))), [
            Event("truths-from", {"character": who, "by": risk.privilege})]

    @command("truth", character=str, text=Arg(str, optional=True))
    def truth(self, state: RisqueState, cmd: Command):
        """A Truth (Vérité): the free one first, then one per Mise kept."""
        who = cmd.args["character"]
        risk, part = self._speaker(state, who, "speaking a Truth")
        if part.free_truth:
            part, paid = _replace(part, free_truth=False), "free"
        else:
            part, paid = _replace(part, kept=part.kept - 1), "mise"
        text = cmd.args.get("text", "")
        risk = _replace(risk.put(part), truths_spoken=risk.truths_spoken + 1)
        event = Event("truth", {"character": who, "text": text, "paid": paid,
                                "mises_left": part.kept})
        return self._next_speaker(state.replace(risk=risk), [event])

    @command("glory", character=str)
    def glory(self, state: RisqueState, cmd: Command):
        """2 Mises sacrificed for 1 Glory point."""
        who = cmd.args["character"]
        risk, part = self._speaker(state, who, "sacrificing Mises for Glory")
        if part.kept < 2:
            raise IllegalCommand("%(character)s has %(kept)d Mise(s) left; 1 Glory costs 2",
                                 character=who, kept=part.kept)
        risk = _replace(risk.put(_replace(part, kept=part.kept - 2)),
                        truths_spoken=risk.truths_spoken + 1)
        char = state.by_name[who]
        state = state.with_character(_replace(char, glory=char.glory + 1))
        event = Event("glory-won", {"character": who, "points": 1, "why": "2 Mises",
                                    "mises_left": part.kept - 2})
        return self._next_speaker(state.replace(risk=risk), [event])

    @command("pass", character=str)
    def pass_(self, state: RisqueState, cmd: Command):
        """The speaker gives up the Truths and Mises left."""
        who = cmd.args["character"]
        risk, part = self._speaker(state, who, "passing")
        risk = risk.put(_replace(part, done=True))
        return self._next_speaker(state.replace(risk=risk), [
            Event("passed", {"character": who, "mises_left": part.kept})])

    def _next_speaker(self, state: RisqueState, events: list[Event]):
        risk = state.risk
        n = len(risk.participants)
        for step in range(1, n + 1):
            i = (risk.speaker + step) % n
            if risk.participants[i].has_more:
                return state.replace(risk=_replace(risk, speaker=i)), events
        return self._end(state, events, privilege=risk.privilege)

    def _end(self, state: RisqueState, events: list[Event], privilege: str | None):
        risk = state.risk
        data: dict[str, Any] = {
            "risque_kind": risk.kind, "about": risk.about, "privilege": privilege,
            "result": "privilege" if privilege else "narrator",
            "scores": {p.character: p.score for p in risk.participants},
            "mises": {p.character: p.mises for p in risk.participants},
            "truths": risk.truths_spoken}
        if risk.kind == "seppuku":
            part = risk.participants[0]
            char = state.by_name[part.character]
            restored = SEPPUKU_HONOUR + part.kept if privilege else 0
            state = state.with_character(_replace(char, alive=False))
            state = state.replace(honour=state.honour + restored)
            data["honour"] = restored
            data["reserve"] = state.honour
        # The end of round every mode gives (result, holder, details); nobody holds dice here.
        details = {k: v for k, v in data.items() if k != "result"}
        events = events + [Event("round-ended", {"result": data["result"], "holder": None,
                                                 "details": details})]
        return state.replace(risk=None, last=data, rounds=state.rounds + 1), events

    @command("configure", settings=dict)
    def _configure(self, state: RisqueState, cmd: Command):
        if state.risk is not None:
            raise IllegalCommand("settings change between Risques; finish this one first")
        return super()._configure(state, cmd)

    # -- views and play ------------------------------------------------------------------------

    def light(self, state: RisqueState, events: tuple[Event, ...]) -> str:
        for event in events:
            if event.kind == "round-ended":
                return "win" if event.data["result"] == "privilege" else "loss"
        if state.risk is not None:
            return "rolling" if state.risk.phase == "rolling" else "bets_open"
        return "ready"

    def view(self, state: RisqueState) -> dict:
        from controller.odds.risque import best_mises, expected_truths, fraction_json, reach

        out = super().view(state)
        chars = state.by_name
        risk = None
        if state.risk is not None:
            r = state.risk
            revealed = r.phase != "building"
            parts = []
            for p in r.participants:
                entry: dict[str, Any] = {
                    "character": p.character, "pool": p.pool.to_json() if p.pool else None,
                    "staked": p.mises is not None,
                    "mises": p.mises if revealed else None,
                    "rolled": list(p.rolled), "score": p.score, "to_roll": p.to_roll,
                    "rolled_all": p.rolled_all, "success": p.success,
                    "kept": p.kept, "free_truth": p.free_truth, "done": p.done}
                if p.pool is not None:
                    # The chance of 10+ for every number of Mises: shown before the roll,
                    # and it gives nothing away.
                    k = p.pool.dice
                    entry["reach"] = [{"mises": m, **fraction_json(reach(k, m)),
                                       "truths": float(expected_truths(k, m))}
                                      for m in range(k)]
                    entry["best_mises"] = best_mises(k)
                if r.phase == "building" and chars[p.character].alive:
                    entry["bonuses"] = [b.to_json() for b in bonuses(chars, p.character)]
                parts.append(entry)
            risk = {"kind": r.kind, "about": r.about, "phase": r.phase,
                    "privilege": r.privilege, "participants": parts,
                    "speaker": r.participants[r.speaker].character if r.phase == "truths"
                    else None}
        out.update(characters=[c.to_json() for c in state.characters], honour=state.honour,
                   risque=risk, last=dict(state.last))
        return out

    def chance_step(self, state: RisqueState, rng: random.Random) -> Command:
        """The next character's dice, thrown (ten at most at once)."""
        parts = state.risk.participants if state.risk else ()
        for p in parts:
            if p.pool is not None and not p.rolled_all:
                n = min(10, p.to_roll - len(p.rolled))
                return Command("roll", {"character": p.character,
                                        "dice": [rng.randint(1, 6) for _ in range(n)]})
        return Command("roll", {"character": parts[0].character if parts else "",
                                "dice": [rng.randint(1, 6)]})

    def demo_throw(self, state: RisqueState, rng: random.Random
                   ) -> tuple[list[str], list[str]]:
        """The next character's pip dice (ten at most at once), thrown; nothing kept aside."""
        return [f"PIP-{d}" for d in self.chance_step(state, rng).args["dice"]], []

    def read(self, state: RisqueState, observation, min_confidence: float = 0.9):
        """A settled throw of pip dice (up to ten) for the next character still rolling."""
        from controller.games.observation import Reading

        risk = state.risk
        if risk is None or risk.phase != "rolling":
            return Reading(problems=("no dice are due: the Mises are revealed before the roll",))
        who = next(p for p in risk.participants if not p.rolled_all)
        left = who.to_roll - len(who.rolled)
        dice, faces, problems, uncertain = pip_dice(observation, min_confidence)
        if not uncertain and not problems and not 1 <= len(dice) <= min(left, 10):
            problems.append(f"{who.character} rolls {left} more {'die' if left == 1 else 'dice'} "
                            "(ten at most at once); "
                            f"{len(dice)} are read")
        if problems or uncertain:
            return Reading(problems=tuple(dict.fromkeys(problems)), uncertain=tuple(uncertain),
                           faces=faces)
        return Reading((Command("roll", {"character": who.character, "dice": dice}),),
                       faces=faces)

    def random_command(self, state: RisqueState, rng: random.Random) -> Command:
        alive = [c for c in state.characters if c.alive]
        risk = state.risk
        if risk is None:
            if len(alive) < 3 or rng.random() < 0.03:
                return self._random_character(state, rng)
            roll = rng.random()
            if roll < 0.03:
                return Command("honour", {"points": rng.choice([-3, -1, 1, 2]),
                                          "why": "the Narrator"})
            if roll < 0.05:
                who = rng.choice(alive)
                if who.aspects and rng.random() < 0.6:
                    return Command("compel", {"character": who.name,
                                              "aspect": rng.choice(who.aspects),
                                              "kept": rng.random() < 0.5})
                return Command("honour-truth", {"text": "the bridge is rotten"})
            if roll < 0.1:
                who = rng.choice(alive)
                if who.glory:
                    reps = [n for n, _ in who.reputations] or ["Brave"]
                    return Command("reputation", {"character": who.name,
                                                  "reputation": rng.choice(reps)})
                return Command("award-glory", {"character": who.name, "points": 1})
            kind = rng.choices(KINDS, (10, 3, 1))[0]
            if kind == "seppuku":
                return Command("seppuku", {"character": rng.choice(alive).name})
            n = 2 if kind == "duel" else rng.randint(1, min(3, len(alive)))
            return Command(kind, {"characters": [c.name for c in rng.sample(alive, n)],
                                  "honour_for": rng.sample(HONOUR_REASONS, rng.choice(
                                      [0, 0, 0, 1, 2]))})
        if risk.phase == "building":
            for p in risk.participants:
                if p.pool is None:
                    char = state.by_name[p.character]
                    offer = [b.key for b in bonuses(state.by_name, p.character)
                             if not b.key.startswith("virtue:") and b.worth]
                    picked = [k for k in offer if rng.random() < 0.3]
                    if rng.random() < 0.8:  # mostly what the builder would allow
                        seen: set[str] = set()
                        picked = [k for k in picked
                                  if not (k.split(":")[0] in ("aspect", "reputation",
                                                              "equipment")
                                          and (k.split(":")[0] in seen
                                               or seen.add(k.split(":")[0])))]
                    return Command("pool", {"character": p.character,
                                            "virtue": rng.choice(char.virtues)[0],
                                            "bonuses": picked})
                if p.mises is None:
                    return Command("mise", {"character": p.character,
                                            "mises": rng.randint(0, p.pool.dice - 1)})
            return Command("reveal", {})
        if risk.phase == "rolling":
            return self.chance_step(state, rng)
        if risk.phase == "privilege":
            return Command("privilege", {"character": rng.choice(risk.participants).character})
        who = risk.participants[risk.speaker]
        choice = rng.random()
        if choice < 0.1:
            return Command("pass", {"character": who.character})
        if choice < 0.3 and who.kept >= 2:
            return Command("glory", {"character": who.character})
        return Command("truth", {"character": who.character, "text": "so it is"})

    def _random_character(self, state: RisqueState, rng: random.Random) -> Command:
        n = len(state.characters) + 1
        giri = rng.randint(0, 3)
        return Command("character", {
            "name": f"Samurai {n}", "clan": rng.choice(["Crane", "Lion", "Scorpion"]),
            "virtues": {COURAGE: rng.randint(0, 4), "Compassion": rng.randint(1, 4)},
            "giri": "Protect the lord", "giri_rank": giri,
            "aspects": rng.sample(["Proud", "Loyal", "Cunning"], rng.randint(0, 2)),
            "reputations": {"Brave": rng.randint(0, 25)} if rng.random() < 0.5 else {},
            "equipment": {"Katana": rng.randint(1, 3)} if rng.random() < 0.5 else {},
            "handicaps": ["Tired"] if rng.random() < 0.4 else [],
            "daimyo": ["Debt"] if rng.random() < 0.2 else [],
            "wounds": {"Cut": rng.randint(1, 3)} if rng.random() < 0.3 else {}})



_PHASE_WORDS = {"building": "building pools and staking Mises", "rolling": "rolling",
                "privilege": "waiting for the Narrator to give the Privilege",
                "truths": "speaking Truths"}
_NEXT = {"building": "'pool', 'mise', then 'reveal'", "rolling": "'roll' each character's dice",
         "privilege": "the Narrator's 'privilege'",
         "truths": "'truth', 'glory' or 'pass' by the speaker"}

MODE = Mode(
    engine=Risque(),
    equipment="pip-dice",
    odds_ref="controller.odds.risque:odds",
    odds_text_ref="controller.odds.risque:odds_text",
    page_ref="web.modes.risque:PAGE",
    result_words={"privilege": "the Privilege tells the result",
                  "narrator": "the Narrator tells the result"},
    receipts=("round-slip",),
)

__all__ = ["KINDS", "Character", "Pool", "Risque", "RisqueState", "bonuses", "build_pool"]
