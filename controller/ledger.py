"""The double-entry ledger: whole coins moved between accounts, the sum never changes.

Accounts are plain strings that round-trip through text:

    player:Ginawa          a player's money at the table (never negative)
    bet:Sanzo:standard     a bet lying on the table (never negative)
    pot:hearts             a pot (never negative)
    bank                   the house; its balance is the house's result (may go negative)
    cashier                the world outside the table: buy-ins come from it, cash-outs go to it

Every entry's legs sum to zero, so the sum of all balances is always zero: a buy-in of 20
leaves `cashier` at -20 and the player at +20.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from controller.errors import IllegalCommand

BANK = "bank"
CASHIER = "cashier"

#: Entry kinds and what they mean for a player's session statement.
ENTRY_KINDS = (
    "buy-in",  # cashier -> player
    "cash-out",  # player -> cashier
    "stake",  # player -> bet account
    "return",  # bet account -> player: the stake comes back (a win or a push)
    "win",  # bank -> player: the winnings beyond the stake
    "loss",  # bet account -> bank: a lost stake
    "pot",  # player <-> pot (antes, penalties, pot wins in the card games)
    "fee",  # player -> bank: commissions and table fees
)

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._'-]{0,31}$")
_SPOT = re.compile(r"^[a-z0-9][a-z0-9._-]{0,47}$")


class LedgerError(IllegalCommand):
    """An entry the ledger refuses; nothing was posted."""


class InsufficientFunds(LedgerError):
    """A transfer would take an account below zero."""


def check_player_name(name: object) -> str:
    """Return `name` if it is a valid player name, else raise with what is accepted."""
    if not isinstance(name, str) or not _NAME.match(name) or name != name.strip():
        raise IllegalCommand(
            "%(name)s is not a valid player name: use 1 to 32 letters, digits, spaces, "
            "dots, dashes, underscores or apostrophes, starting with a letter or digit",
            name=repr(name))
    return name


def player_account(name: str) -> str:
    return f"player:{check_player_name(name)}"


def bet_account(player: str, spot: str) -> str:
    if not _SPOT.match(spot):
        raise LedgerError(f"{spot!r} is not a valid bet spot name")
    return f"bet:{check_player_name(player)}:{spot}"


def pot_account(name: str) -> str:
    if not _SPOT.match(name):
        raise LedgerError(f"{name!r} is not a valid pot name")
    return f"pot:{name}"


def account_kind(account: str) -> str:
    """The kind of an account: player, bet, pot, bank or cashier."""
    kind = account.split(":", 1)[0]
    if account in (BANK, CASHIER):
        return account
    if kind in ("player", "bet", "pot") and ":" in account:
        return kind
    raise LedgerError(f"{account!r} is not an account: expected player:NAME, bet:NAME:SPOT, "
                      "pot:NAME, bank or cashier")


def account_owner(account: str) -> str | None:
    """The player a player or bet account belongs to, else None."""
    kind = account_kind(account)
    if kind in ("player", "bet"):
        return account.split(":")[1]
    return None


def may_go_negative(account: str) -> bool:
    return account in (BANK, CASHIER)


@dataclass(frozen=True)
class Entry:
    """One double-entry posting: legs (account, amount) that sum to zero."""

    kind: str
    legs: tuple[tuple[str, int], ...]
    memo: str = ""

    def __post_init__(self) -> None:
        if self.kind not in ENTRY_KINDS:
            raise LedgerError(f"{self.kind!r} is not an entry kind: one of {', '.join(ENTRY_KINDS)}")
        if len(self.legs) < 2:
            raise LedgerError("an entry needs at least two legs")
        seen = set()
        for account, amount in self.legs:
            account_kind(account)
            if type(amount) is not int or amount == 0:
                raise LedgerError(f"leg {account}: {amount!r} is not a non-zero whole number of coins")
            if account in seen:
                raise LedgerError(f"entry names account {account} twice")
            seen.add(account)
        if sum(amount for _, amount in self.legs) != 0:
            raise LedgerError(f"entry legs sum to {sum(a for _, a in self.legs)}, not zero")

    @classmethod
    def transfer(cls, kind: str, source: str, destination: str, amount: int, memo: str = "") -> Entry:
        """A two-leg entry moving `amount` (> 0) coins from `source` to `destination`."""
        if type(amount) is not int or amount <= 0:
            raise LedgerError(f"a transfer moves a positive whole number of coins, not {amount!r}")
        return cls(kind, ((source, -amount), (destination, amount)), memo)

    def to_json(self) -> dict:
        data = {"kind": self.kind, "legs": dict(self.legs)}
        if self.memo:
            data["memo"] = self.memo
        return data

    @classmethod
    def from_json(cls, data: Mapping) -> Entry:
        legs = data.get("legs")
        if not isinstance(legs, Mapping):
            raise LedgerError("an entry needs 'legs': an object of account to coins")
        return cls(str(data.get("kind")), tuple(legs.items()), str(data.get("memo", "")))


@dataclass(frozen=True)
class Ledger:
    """Balances by account; `post()` returns a new ledger, or raises and changes nothing."""

    balances: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))

    def balance(self, account: str) -> int:
        return self.balances.get(account, 0)

    def post(self, *entries: Entry) -> Ledger:
        """Apply every entry, all or nothing; no account except bank and cashier may go negative."""
        new = dict(self.balances)
        for entry in entries:
            for account, amount in entry.legs:
                new[account] = new.get(account, 0) + amount
        for entry in entries:
            for account, amount in entry.legs:
                if amount < 0 and new[account] < 0 and not may_go_negative(account):
                    held = self.balances.get(account, 0)
                    who = account_owner(account) if account.startswith("player:") else account
                    raise InsufficientFunds(
                        f"{who} holds {held} coin{'s' * (held != 1)}; "
                        f"this needs {held - new[account]}"
                    )
        # Empty bets and pots leave the book; players stay (a zero balance is still shown).
        for entry in entries:
            for account, _ in entry.legs:
                if new.get(account) == 0 and not account.startswith("player:"):
                    del new[account]
        return Ledger(MappingProxyType(new))

    def total(self) -> int:
        """The sum of all balances: zero, always."""
        return sum(self.balances.values())

    def accounts(self, kind: str) -> dict[str, int]:
        """Balances of the accounts of one kind (player, bet, pot, bank, cashier)."""
        return {a: b for a, b in self.balances.items() if account_kind(a) == kind}

    def players(self) -> dict[str, int]:
        """Each player's money at the table (not counting bets lying on it)."""
        return {a.split(":", 1)[1]: b for a, b in self.balances.items() if a.startswith("player:")}

    def on_table(self, player: str) -> int:
        """The coins of `player` lying in bets on the table."""
        prefix = f"bet:{player}:"
        return sum(b for a, b in self.balances.items() if a.startswith(prefix))

    def to_json(self) -> dict[str, int]:
        return dict(sorted(self.balances.items()))


@dataclass
class Statement:
    """A player's session statement. `net` = won - lost - fees."""

    player: str
    buy_in: int = 0
    cashed_out: int = 0
    staked: int = 0
    won: int = 0
    lost: int = 0
    pots_paid: int = 0
    pots_won: int = 0
    fees: int = 0

    @property
    def net(self) -> int:
        return self.won - self.lost + self.pots_won - self.pots_paid - self.fees

    def to_json(self) -> dict:
        return {
            "player": self.player,
            "buy_in": self.buy_in,
            "cashed_out": self.cashed_out,
            "staked": self.staked,
            "won": self.won,
            "lost": self.lost,
            "pots_paid": self.pots_paid,
            "pots_won": self.pots_won,
            "fees": self.fees,
            "net": self.net,
        }


def statements(entries: Iterable[Entry]) -> dict[str, Statement]:
    """Every player's session statement, from the entries of the session in order."""
    out: dict[str, Statement] = {}
    for entry in entries:
        post_statement(out, entry)
    return out


def post_statement(out: dict[str, Statement], entry: Entry) -> None:
    """Add one entry to the players' statements in `out`."""

    def of(account: str) -> Statement:
        player = account_owner(account)
        assert player is not None
        return out.setdefault(player, Statement(player))

    for account, amount in entry.legs:
        kind = account_kind(account)
        if kind == "player":
            s = of(account)
            if entry.kind == "buy-in":
                s.buy_in += amount
            elif entry.kind == "cash-out":
                s.cashed_out -= amount
            elif entry.kind == "stake":
                s.staked -= amount
            elif entry.kind == "win":
                s.won += amount
            elif entry.kind == "pot":
                if amount < 0:
                    s.pots_paid -= amount
                else:
                    s.pots_won += amount
            elif entry.kind == "fee":
                s.fees -= amount
        elif kind == "bet" and entry.kind == "loss":
            of(account).lost -= amount


class Books:
    """The session's figures kept as commands are stored, so that no page has to read the
    whole journal: each player's statement, the command kinds seen, and the house's result
    over the session (thinned to at most `points` points, every extreme kept)."""

    def __init__(self, points: int = 600):
        self.statements: dict[str, Statement] = {}
        self.kinds: set[str] = set()
        self.bank = 0
        self._points = points
        self._stride = 1
        #: bucket number -> (lowest (seq, bank), highest (seq, bank)) in that stride of seqs.
        self._buckets: dict[int, tuple[tuple[int, int], tuple[int, int]]] = {}
        self._last: tuple[int, int] | None = None

    def add(self, seq: int, kind: str | None, entries: Iterable[Entry]) -> None:
        """One stored command (its seq, kind and ledger entries), in journal order."""
        if kind is not None:
            self.kinds.add(kind)
        moved = 0
        bank_moved = False
        for entry in entries:
            post_statement(self.statements, entry)
            for account, amount in entry.legs:
                if account == BANK:
                    moved += amount
                    bank_moved = True
        if bank_moved:
            self.bank += moved
            self._plot(seq, self.bank)

    def _plot(self, seq: int, bank: int) -> None:
        point = self._last = (seq, bank)
        key = seq // self._stride
        lo, hi = self._buckets.get(key, (point, point))
        self._buckets[key] = (min(lo, point, key=lambda p: p[1]),
                              max(hi, point, key=lambda p: p[1]))
        if 2 * len(self._buckets) > self._points:
            self._stride *= 2
            merged: dict[int, tuple[tuple[int, int], tuple[int, int]]] = {}
            for k, (lo, hi) in self._buckets.items():
                k2 = k // 2
                lo2, hi2 = merged.get(k2, (lo, hi))
                merged[k2] = (min(lo2, lo, key=lambda p: p[1]),
                              max(hi2, hi, key=lambda p: p[1]))
            self._buckets = merged

    def house_series(self) -> list[tuple[int, int]]:
        """(seq, the bank's balance after it), in seq order, thinned; extremes kept."""
        points = {p for pair in self._buckets.values() for p in pair}
        return sorted(points | {self._last} if self._last else points)
