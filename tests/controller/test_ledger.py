"""The double-entry ledger: whole coins, legs that sum to zero, no balance below zero."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.errors import IllegalCommand
from controller.ledger import (
    BANK,
    CASHIER,
    Entry,
    InsufficientFunds,
    Ledger,
    LedgerError,
    account_kind,
    bet_account,
    player_account,
    statements,
)

PLAYERS = ["Ginawa", "Sanzo", "Ujikeme"]
#: Accounts inside the table: their sum stays the coins bought in.
ACCOUNTS = [player_account(p) for p in PLAYERS] + [bet_account("Sanzo", "standard"),
                                                    "pot:moon", BANK]


def test_transfer_moves_coins_and_keeps_the_sum():
    ledger = Ledger().post(Entry.transfer("buy-in", CASHIER, "player:Ginawa", 20))
    ledger = ledger.post(Entry.transfer("stake", "player:Ginawa", "bet:Ginawa:standard", 5))
    assert ledger.balance("player:Ginawa") == 15
    assert ledger.on_table("Ginawa") == 5
    assert ledger.balance(CASHIER) == -20
    assert ledger.total() == 0


def test_a_transfer_beyond_the_balance_is_refused_and_changes_nothing():
    ledger = Ledger().post(Entry.transfer("buy-in", CASHIER, "player:Sanzo", 3))
    with pytest.raises(InsufficientFunds, match="Sanzo holds 3 coins; this needs 5"):
        ledger.post(Entry.transfer("stake", "player:Sanzo", "bet:Sanzo:standard", 5))
    assert ledger.balance("player:Sanzo") == 3
    assert isinstance(InsufficientFunds("x"), IllegalCommand)
    assert isinstance(InsufficientFunds("x"), ValueError)


def test_post_is_all_or_nothing_across_entries():
    ledger = Ledger().post(Entry.transfer("buy-in", CASHIER, "player:Sanzo", 3))
    ok = Entry.transfer("stake", "player:Sanzo", "bet:Sanzo:a", 2)
    too_much = Entry.transfer("stake", "player:Sanzo", "bet:Sanzo:b", 2)
    with pytest.raises(InsufficientFunds):
        ledger.post(ok, too_much)
    assert ledger.to_json() == {CASHIER: -3, "player:Sanzo": 3}


def test_bank_and_cashier_may_go_negative_bets_and_pots_may_not():
    ledger = Ledger().post(Entry.transfer("win", BANK, "player:Ginawa", 8))
    assert ledger.balance(BANK) == -8
    with pytest.raises(InsufficientFunds):
        ledger.post(Entry.transfer("pot", "pot:moon", "player:Ginawa", 1))


@pytest.mark.parametrize("legs, match", [
    ((("player:A", 5), ("bank", -4)), "sum to 1"),
    ((("player:A", 5),), "two legs"),
    ((("player:A", 0), ("bank", 0)), "non-zero"),
    ((("player:A", 2.0), ("bank", -2)), "whole number"),
    ((("player:A", True), ("bank", -1)), "whole number"),
    ((("player:A", 1), ("player:A", -1)), "twice"),
    ((("wallet:A", 1), ("bank", -1)), "not an account"),
])
def test_malformed_entries_are_refused(legs, match):
    with pytest.raises(LedgerError, match=match):
        Entry("stake", legs)


def test_unknown_entry_kind_and_bad_names():
    with pytest.raises(LedgerError, match="not an entry kind"):
        Entry.transfer("gift", BANK, "player:A", 1)
    with pytest.raises(IllegalCommand, match="not a valid player name"):
        player_account("bad:name")
    with pytest.raises(IllegalCommand, match="not a valid player name"):
        player_account(" padded")
    with pytest.raises(LedgerError, match="positive"):
        Entry.transfer("stake", "player:A", "bet:A:x", -1)


def test_accounts_round_trip_through_text():
    for account in [*ACCOUNTS, CASHIER]:
        assert account_kind(account) in ("player", "bet", "pot", "bank", "cashier")
    entry = Entry.transfer("stake", "player:Sanzo", "bet:Sanzo:standard", 2, memo="turn 2")
    assert Entry.from_json(entry.to_json()) == entry


def test_session_statement():
    entries = [
        Entry.transfer("buy-in", CASHIER, "player:Sanzo", 20),
        Entry.transfer("stake", "player:Sanzo", "bet:Sanzo:standard", 2),
        Entry.transfer("stake", "player:Sanzo", "bet:Sanzo:lord-moon", 2),
        Entry.transfer("return", "bet:Sanzo:standard", "player:Sanzo", 2),
        Entry.transfer("win", BANK, "player:Sanzo", 8),
        Entry.transfer("return", "bet:Sanzo:lord-moon", "player:Sanzo", 2),
        Entry.transfer("stake", "player:Sanzo", "bet:Sanzo:standard", 1),
        Entry.transfer("loss", "bet:Sanzo:standard", BANK, 1),
        Entry.transfer("cash-out", "player:Sanzo", CASHIER, 10),
    ]
    s = statements(entries)["Sanzo"]
    assert s.to_json() == {"player": "Sanzo", "buy_in": 20, "cashed_out": 10, "staked": 5,
                           "won": 8, "lost": 1, "pots_paid": 0, "pots_won": 0, "fees": 0,
                           "net": 7}
    balance = Ledger().post(*entries).balance("player:Sanzo")
    assert balance == s.buy_in - s.cashed_out + s.net


# -- property tests -----------------------------------------------------------------------------

transfers = st.tuples(
    st.sampled_from(["stake", "return", "win", "loss", "pot", "fee"]),
    st.sampled_from(ACCOUNTS),
    st.sampled_from(ACCOUNTS),
    st.integers(min_value=1, max_value=60),
)


@settings(max_examples=300, deadline=None)
@given(buy_ins=st.lists(st.integers(1, 100), min_size=3, max_size=3),
       moves=st.lists(transfers, max_size=60))
def test_random_transfers_conserve_money_and_refusals_change_nothing(buy_ins, moves):
    ledger = Ledger()
    for player, amount in zip(PLAYERS, buy_ins, strict=True):
        ledger = ledger.post(Entry.transfer("buy-in", CASHIER, player_account(player), amount))
    for kind, src, dst, amount in moves:
        if src == dst:
            continue
        before = ledger
        try:
            ledger = ledger.post(Entry.transfer(kind, src, dst, amount))
        except InsufficientFunds:
            assert ledger is before
            assert ledger.balances == before.balances
            continue
        assert ledger.total() == 0
        for account, balance in ledger.balances.items():
            assert balance >= 0 or account in (BANK, CASHIER)
        assert (ledger.balance(src), ledger.balance(dst)) == (
            before.balance(src) - amount, before.balance(dst) + amount)
    assert ledger.total() == 0
    assert sum(ledger.balance(player_account(p)) for p in PLAYERS) + sum(
        b for a, b in ledger.balances.items() if a.startswith(("bet:", "pot:"))
    ) + ledger.balance(BANK) == sum(buy_ins)
