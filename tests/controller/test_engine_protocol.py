"""The engine protocol, the registry and the table-level commands every mode shares."""

from __future__ import annotations

import pytest
import tables

from controller.errors import IllegalCommand
from controller.games import apply, find_game, games
from controller.games.base import Command, Event, Pays, RoundEnded


def open_with(*players, coins=50, mode="hazard"):
    return tables.table(mode, *players, coins=coins)


def test_find_game_and_registry():
    assert find_game("hazard").title == "Hazard"
    assert "hazard" in games()
    with pytest.raises(IllegalCommand, match="'craps' is not a game mode here; modes: .*hazard"):
        find_game("craps")


def test_commands_round_trip_through_json():
    cmd = Command.from_json({"id": "c7", "kind": "bet", "player": "Sanzo", "bet": "odds",
                             "amount": 4, "at": "ignored"})
    assert cmd == Command("bet", {"player": "Sanzo", "bet": "odds", "amount": 4}, "c7")
    assert Command.from_json(cmd.to_json()) == cmd
    ev = Event("joined", {"player": "A", "seat": 1})
    assert Event.from_json(ev.to_json()) == ev


@pytest.mark.parametrize("data, match", [
    ([], "JSON object"),
    ({"player": "A"}, "needs 'kind'"),
    ({"kind": "join", "id": 5}, "'id' is a string"),
])
def test_malformed_commands(data, match):
    with pytest.raises(IllegalCommand, match=match):
        Command.from_json(data)


def test_pays_parse_print_and_units():
    assert str(Pays.parse("3:2")) == "3:2"
    assert Pays.parse("4 to 1") == Pays(4, 1)
    assert Pays.parse("2:3").unit == 3
    assert Pays(6, 4).unit == 2
    assert Pays(3, 2).winnings(4) == 6
    assert Pays(2, 1).times(2) == Pays(4, 1)
    with pytest.raises(IllegalCommand, match="whole coins"):
        Pays(3, 2).winnings(3)
    for bad in ("3", "a:b", "3:0", "-1:2"):
        with pytest.raises(ValueError, match="pay rate"):
            Pays.parse(bad)


def test_the_table_must_open_first():
    with pytest.raises(IllegalCommand, match="not open"):
        apply(None, Command("join", {"player": "A"}))
    with pytest.raises(IllegalCommand, match="'open' takes mode"):
        apply(None, Command("open", {"game": "hazard"}))
    with pytest.raises(IllegalCommand, match="max_bet = 'lots'"):
        apply(None, Command("open", {"mode": "hazard", "settings": {"max_bet": "lots"}}))
    with pytest.raises(IllegalCommand, match="min_bet .* is above max_bet"):
        apply(None, Command("open", {"mode": "hazard", "settings": {"min_bet": 9, "max_bet": 2}}))


def test_join_buy_in_cash_out_leave():
    state = open_with("Ginawa", "Sanzo")
    assert state.seats == ("Ginawa", "Sanzo")
    state, events = apply(state, Command("join", {"player": "Ujikeme", "seat": 1}))
    assert state.seats == ("Ujikeme", "Ginawa", "Sanzo")
    assert events == (Event("joined", {"player": "Ujikeme", "seat": 1}),)
    state, _ = apply(state, Command("cash-out", {"player": "Sanzo", "amount": 20}))
    assert state.ledger.players() == {"Ginawa": 50, "Sanzo": 30, "Ujikeme": 0}
    state, _ = apply(state, Command("leave", {"player": "Sanzo"}))
    state, _ = apply(state, Command("cash-out", {"player": "Sanzo"}))
    assert state.ledger.players()["Sanzo"] == 0
    assert state.ledger.balance("cashier") == -50
    assert state.ledger.total() == 0


@pytest.mark.parametrize("cmd, match", [
    (Command("join", {"player": "Ginawa"}), "already seated"),
    (Command("join", {"player": "bad:name"}), "not a valid player name"),
    (Command("join", {"player": "Ann", "seat": 9}), "seat 9 does not exist"),
    (Command("join", {"player": "Ann", "seat": 0}), "seat = 0; expected a whole number of at least 1"),
    (Command("buy-in", {"player": "Nobody", "amount": 5}), "Nobody is not seated"),
    (Command("buy-in", {"player": "Ginawa", "amount": -5}), "amount = -5"),
    (Command("buy-in", {"player": "Ginawa", "amount": 5.5}), "amount = 5.5"),
    (Command("buy-in", {"player": "Ginawa", "amount": True}), "amount = True"),
    (Command("buy-in", {"player": "Ginawa", "amount": 2**70}), "expected at most 1000000000000"),
    (Command("buy-in", {"player": "Ginawa"}), "needs 'amount'"),
    (Command("buy-in", {"player": "Ginawa", "amount": 5, "tip": 1}), "does not take 'tip'"),
    (Command("cash-out", {"player": "Ginawa", "amount": 51}), "holds 50 coins; cannot cash out 51"),
    (Command("cash-out", {"player": "Nobody"}), "no money at this table"),
    (Command("leave", {"player": "Nobody"}), "not seated"),
    (Command("dance", {}), "Hazard has no command 'dance'; it accepts: .*buy-in"),
    (Command("configure", {"settings": {"max_seats": 1}}), "max_seats cannot be less"),
    (Command("configure", {"settings": {"colour": "red"}}), "unknown setting 'colour'"),
])
def test_illegal_table_commands_are_refused_and_change_nothing(cmd, match):
    state = open_with("Ginawa", "Sanzo")
    engine = find_game("hazard")
    with pytest.raises(IllegalCommand, match=match):
        apply(state, cmd)
    assert not engine.can(state, cmd)
    assert state == open_with("Ginawa", "Sanzo")


def test_the_table_has_a_seat_limit_and_configure_changes_settings():
    state = open_with("A", "B")
    state, events = apply(state, Command("configure", {"settings": {"max_seats": 2}}))
    assert events[0].data == {"settings": {"max_seats": 2}}
    with pytest.raises(IllegalCommand, match=r"the table is full \(2 seats\)"):
        apply(state, Command("join", {"player": "C"}))


def test_reopening_keeps_seats_and_money_between_rounds():
    state = open_with("A", "B")
    state, events = apply(state, Command("open", {"mode": "hazard",
                                                  "settings": {"max_bet": 10}}))
    assert state.seats == ("A", "B") and state.ledger.players() == {"A": 50, "B": 50}
    assert events[0].data["settings"]["max_bet"] == 10
    state, _ = apply(state, Command("call-main", {"main": 7}))
    with pytest.raises(IllegalCommand, match="between rounds"):
        apply(state, Command("open", {"mode": "hazard"}))


def test_every_mode_declares_what_the_harness_needs():
    for name, engine in games().items():
        assert engine.name == name and engine.title
        assert engine.round_bound > 0 and engine.chance_kinds
        assert engine.chance_kinds <= set(engine.command_kinds())
        state = engine.new_state()
        assert engine.view(state)["mode"] == name


def test_a_round_ends_with_one_typed_event():
    from controller.protocol import ROUND_ENDED

    ended = RoundEnded("caster-wins", "Ann", {"main": 7, "chance": None})
    event = ended.event()
    assert event.kind == ROUND_ENDED and RoundEnded.of(event) == ended
    assert Event.from_json(event.to_json()) == event
    assert RoundEnded.among([Event("thrown", {}), event]) == ended
    assert RoundEnded.of(Event("thrown", {"result": "nick"})) is None
    with pytest.raises(ValueError, match="a round's result is a word"):
        RoundEnded("", "Ann")


def test_older_end_of_round_events_are_read_in_todays_shape():
    old_fw = {"kind": "turn-ended", "shooter": "A", "result": "win", "rolls": 1,
              "combination": "fortunes-and-winds", "showing": {}, "combination_name": "F&W"}
    old_hazard = {"kind": "round-ended", "caster": "B", "main": 7, "chance": 4,
                  "result": "caster-loses"}
    assert Event.from_json(old_fw) == RoundEnded(
        "win", "A", {"rolls": 1, "combination": "fortunes-and-winds", "showing": {},
                     "combination_name": "F&W"}).event()
    assert Event.from_json(old_hazard) == RoundEnded("caster-loses", "B",
                                                     {"main": 7, "chance": 4}).event()
