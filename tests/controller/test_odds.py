"""Exact odds: checked against an independent brute force over the dice's labels, closed forms
and published Hazard figures; the JSON shape; the advisor."""

from __future__ import annotations

import json
import time
from fractions import Fraction
from functools import cache
from itertools import combinations, product

import pytest

from controller.cli import main
from controller.errors import IllegalCommand
from controller.games import apply
from controller.games.base import Command, RoundEnded
from controller.games.fortunes_winds import DICE, combination_of
from controller.odds import fortunes_winds as fw
from controller.odds import hazard as hz
from controller.odds import odds
from controller.odds.fortunes_winds_advisor import advise, advise_state, choose

NAMES = [d.name for d in DICE]
LISTED = {"fortunes-and-winds": 4, "ladys-breath": 4, "empty-winds": 2,
          "shinseis-blessing": 2, "ladys-tears": 2, "seven-thunders": 1}


def faces_with_chances(die) -> list[tuple[str, Fraction]]:
    return [(f, Fraction(die.faces.count(f), 6)) for f in dict.fromkeys(die.faces)]


@cache
def brute(objective: str, roll: int, kept: frozenset) -> Fraction:
    """The optimum, face by face on every die (no categories): P(win) or E[return]."""
    free = [d for d in DICE if d.name not in dict(kept)]
    total = Fraction(0)
    for row in product(*(faces_with_chances(d) for d in free)):
        p = Fraction(1)
        showing = dict(kept)
        for d, (face, q) in zip(free, row, strict=True):
            showing[d.name] = face
            p *= q
        combo = combination_of(showing)
        if showing["MOON"] == "MOON":
            value = Fraction(0) if objective == "win" else Fraction(-2)
        elif combo is not None:
            value = Fraction(1) if objective == "win" else LISTED[combo.id] * (2 if roll == 1
                                                                               else 1)
        elif roll == 3:
            value = Fraction(0) if objective == "win" else Fraction(-1)
        else:
            rolled = [d.name for d in free if d.name != "MOON"]
            room = 3 - len(kept)
            value = max(brute(objective, roll + 1,
                              kept | frozenset((n, showing[n]) for n in pick))
                        for k in range(min(room, len(rolled)) + 1)
                        for pick in combinations(rolled, k))
        total += p * value
    return total


def test_fortunes_winds_matches_a_brute_force_over_every_face():
    pays = fw.PayTable.of(odds_settings())
    win = fw.bet_figures("standard", fw.strategy("max-win", pays).distribution(), pays)
    ret = fw.bet_figures("standard", fw.strategy("max-return", pays).distribution(), pays)
    assert win["probability"] == brute("win", 1, frozenset())
    assert ret["expected"] == brute("return", 1, frozenset())
    assert win["probability"] >= ret["probability"] and ret["expected"] >= win["expected"]


def odds_settings():
    from controller.games import find_game

    return find_game("fortunes-winds").new_state().settings


def test_never_setting_aside_matches_the_closed_form():
    pays = fw.PayTable.of(odds_settings())
    never = fw.Strategy(lambda o: (Fraction(0),))  # all equal: the fewest dice, none
    dist = never.distribution()
    c = (Fraction(1, 16) + Fraction(1, 81)) * Fraction(5, 6)
    go_on = 1 - c - Fraction(1, 6)
    assert fw.bet_figures("standard", dist, pays)["probability"] == c * (1 + go_on + go_on**2)
    assert fw.bet_figures("lady-sun-tea", dist, pays)["probability"] == go_on**2
    assert sum(dist.values()) == 1


def test_distributions_sum_to_one_and_report_is_consistent():
    report = odds("fortunes-winds")
    assert [b["id"] for b in report["bets"]] == ["standard", "daikoku-for", "daikoku-against",
                                                 "lady-sun-tea", "hungry-moon"]
    for rows in report["outcomes"].values():
        assert sum(Fraction(r["probability"]).limit_denominator(10**15) for r in rows) \
            == pytest.approx(1)
    bets = {b["id"]: b for b in report["bets"]}
    assert bets["daikoku-for"]["pays"] == "3:2" and bets["daikoku-against"]["pays"] == "2:3"
    p = Fraction(bets["standard"]["probability_exact"])
    assert Fraction(bets["daikoku-for"]["house_edge_exact"]) == -(p * Fraction(3, 2) - (1 - p))
    assert Fraction(bets["daikoku-against"]["probability_exact"]) == 1 - p
    assert report["shooter_win_probability"] == \
        bets["standard"]["by_strategy"]["max-win"]["probability"]
    assert report["standard_expected_return"] == -bets["standard"]["house_edge"]
    for b in report["bets"]:
        assert b["house_edge_worst"] == min(s["house_edge"] for s in b["by_strategy"].values())
        if "house_edge_colluding" in b:
            assert b["house_edge_colluding"] <= b["house_edge_worst"] + 1e-12


def test_figures_of_the_default_table():
    report = odds("fortunes-winds")
    assert report["shooter_win_probability_exact"] == "7047907855/17414258688"
    assert report["standard_expected_return_exact"] == "-210581033/1934917632"


def test_house_pays_change_the_odds():
    base = odds("fortunes-winds")
    richer = odds("fortunes-winds", {"seven_thunders_pays": "2:1"})
    assert richer["standard_expected_return"] > base["standard_expected_return"]
    assert odds("fortunes-winds", {"daikoku_for_pays": "1:1"})["bets"][1]["house_edge"] > 0.2
    with pytest.raises(IllegalCommand, match="no odds"):
        odds("craps")


def test_odds_are_computed_in_under_two_seconds_cold():
    fw.strategy.cache_clear()
    fw._report.cache_clear()
    fw._net.cache_clear()
    hz._report.cache_clear()
    start = time.perf_counter()
    odds("fortunes-winds")
    odds("hazard")
    assert time.perf_counter() - start < 2


# -- Hazard -------------------------------------------------------------------------------------


def test_hazard_caster_chances_are_the_published_ones():
    # Caster's chance by main: 7 -> 244/495 = .4929, 6 and 8 -> .4883, 5 and 9 -> .4924.
    assert hz.caster_wins(7) == Fraction(244, 495)
    assert hz.caster_wins(6) == hz.caster_wins(8) == Fraction(6961, 14256)
    assert hz.caster_wins(5) == hz.caster_wins(9) == Fraction(1396, 2835)


def test_hazard_against_a_markov_fold():
    """Throw by throw to a depth where the rest is below 1e-30: the same chances."""
    for called in range(5, 10):
        p_win = Fraction(0)
        live: dict[int, Fraction] = {}
        for total in range(2, 13):
            p = Fraction(6 - abs(total - 7), 36)
            r = hz.first_throw(called, total)
            if r == "nick":
                p_win += p
            elif r == "chance":
                live[total] = p
        for _ in range(400):
            nxt = {}
            for chance, p in live.items():
                p_win += p * hz.p_total(chance)
                nxt[chance] = p * (1 - hz.p_total(chance) - hz.p_total(called))
            live = nxt
        assert abs(float(p_win - hz.caster_wins(called))) < 1e-30


def test_hazard_report():
    report = odds("hazard")
    ids = [b["id"] for b in report["bets"]]
    assert ids[:10] == [f"caster-wins:{m}" for m in range(5, 10)] + \
        [f"caster-loses:{m}" for m in range(5, 10)]
    assert "odds:7:4" in ids and "odds:7:11" not in ids and "odds:6:12" not in ids
    bets = {b["id"]: b for b in report["bets"]}
    assert bets["odds:7:4"]["pays"] == "2:1" and bets["odds:7:4"]["house_edge"] == 0
    q = 1 - Fraction(244, 495)
    assert Fraction(bets["caster-loses:7"]["house_edge_exact"]) == \
        -(q * Fraction(95, 100) - (1 - q))
    assert Fraction(bets["caster-loses:7"]["house_edge_worst_exact"]) == -(q - (1 - q))
    assert report["best_main"] == 7
    assert odds("hazard", {"commission_percent": 0})["bets"][7]["house_edge"] < 0


# -- the advisor --------------------------------------------------------------------------------


def test_advice_after_the_examples_first_roll():
    advice = advise("NORTH EAST FIRE BIRD VOID", 1)
    best = advice["max-return"]
    assert best["set_aside"] == ["NORTH", "EAST"]  # Ginawa's own choice
    assert best["expected_return_exact"] == "-79/243"
    assert advice["max-win"]["set_aside"] == ["FIRE"]
    assert advice["max-win"]["win_probability"] > best["win_probability"]
    second = advise("WEST AIR SUN", 2, ["NORTH", "EAST"])
    assert second["max-win"]["set_aside"] == ["WEST"]
    assert second["max-win"]["win_probability_exact"] == "5/18"


def test_advice_agrees_with_the_strategy_everywhere():
    """For every roll 1: the advised set-aside's figures are the best of all set-asides."""
    pays = fw.PayTable.of(odds_settings())
    plan = fw.strategy("max-return", pays)
    white = [sorted(set(d.faces)) for d in DICE[:4]]
    for row in product(*white):
        showing = dict(zip(NAMES, [*row, "VOID"], strict=True))
        if combination_of(showing):
            continue
        picked = choose(showing, (), 1)
        options = [plan.value(2, fw.counts_of([showing[n] for n in pick]))[0]
                   for k in range(4) for pick in combinations(NAMES[:4], k)]
        assert plan.value(2, fw.counts_of(picked))[0] == max(options)


def test_advice_when_the_turn_is_over_and_bad_input():
    assert advise("EARTH WATER FIRE AIR SUN", 1)["turn_over"] is True
    assert advise("NORTH EAST FIRE BIRD MOON", 2, [])["result"] == "lord-moon"
    with pytest.raises(IllegalCommand, match="missing: Moon die"):
        advise("NORTH EAST FIRE BIRD", 1)
    # After roll 1 with North and East already set aside: what more to set aside.
    more = advise("FIRE BIRD VOID", 1, ["NORTH", "EAST"])
    assert more["set_aside"] == ["NORTH", "EAST"] and not more["turn_over"]
    with pytest.raises(IllegalCommand, match="shows NORTH, not RICE"):
        advise("NORTH EAST FIRE BIRD VOID", 2, ["RICE"])


def test_advice_for_a_table():
    state = None
    for cmd in (Command("open", {"mode": "fortunes-winds"}), Command("join", {"player": "A"}),
                Command("buy-in", {"player": "A", "amount": 5}),
                Command("bet", {"player": "A", "bet": "standard", "amount": 1})):
        state, _ = apply(state, cmd)
    assert advise_state(state) is None
    state, _ = apply(state, Command("roll", {"faces": ["NORTH", "EAST", "FIRE", "BIRD", "VOID"]}))
    assert advise_state(state)["max-return"]["set_aside"] == ["NORTH", "EAST"]


# -- the command line ---------------------------------------------------------------------------


def test_cli_odds_json(capsys):
    assert main(["odds", "fortunes-winds", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["game"] == "fortunes-winds" and 0.40 < report["shooter_win_probability"] < 0.41
    for bet in report["bets"]:
        assert {"id", "probability", "pays", "house_edge"} <= set(bet)
    assert main(["odds", "hazard", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["bets"][0]["id"] == "caster-wins:5"


def test_cli_odds_of_modes_without_bets(capsys):
    # Risque: no bets; the chance of reaching 10 by pool and Mises, exact.
    assert main(["odds", "risque", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["bets"] == [] and "no bets and no house" in report["summary"]
    (tab,) = report["tables"]
    three = tab["rows"][2]
    assert three["label"] == 3 and three["cells"][:4] == [
        {"exact": "5/8", "p": 0.625}, {"exact": "1/6", "p": 1 / 6}, {"exact": "0/1", "p": 0.0},
        None]
    assert three["cells"][-1] == 0 and tab["rows"][5]["cells"][-1] == 2  # best Mises
    # Namaste: the distribution of totals one roll lets a player enter.
    assert main(["odds", "namaste", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    (tab,) = report["tables"]
    seven = next(r for r in tab["rows"] if r["label"] == "7")
    assert seven["cells"][1] == {"exact": "1/6", "p": 1 / 6}  # the others, one white die
    assert [r["label"] for r in tab["rows"]][-1] == "28"  # 3 white + turquoise, all 7s
    assert main(["odds", "namaste"]) == 0
    assert "1 white, active" in capsys.readouterr().out


def test_cli_odds_reads_the_house_pays(tmp_path, capsys):
    config = tmp_path / "feltbank.toml"
    config.write_text('[games.fortunes-winds]\ndaikoku_for_pays = "1:1"\n', encoding="utf-8")
    assert main(["odds", "fortunes-winds", "--json", "--config", str(config)]) == 0
    bets = {b["id"]: b for b in json.loads(capsys.readouterr().out)["bets"]}
    assert bets["daikoku-for"]["pays"] == "1:1"


def test_cli_advice_of_a_mode_without_an_advisor(capsys):
    # Any mode may be asked; one without an advisor says so and names the modes with one.
    assert main(["advise", "hazard", "--roll", "3 4", "--roll-number", "1"]) == 1
    assert "Hazard has no advisor; modes with one: fortunes-winds" in capsys.readouterr().err
    assert main(["advise", "fortunes-winds", "--roll", "NORTH EAST FIRE BIRD VOID",
                 "--roll-number", "4"]) == 1
    assert "the roll number is 1, 2 or 3, not 4" in capsys.readouterr().err


def test_cli_tables_and_advice(capsys):
    assert main(["odds", "fortunes-winds"]) == 0
    out = capsys.readouterr().out
    assert "daikoku-against" in out and "shooter wins a turn" in out
    assert main(["odds", "hazard"]) == 0
    assert "caster-loses:7" in capsys.readouterr().out
    assert main(["advise", "fortunes-winds", "--roll", "NORTH EAST FIRE BIRD VOID",
                 "--roll-number", "1"]) == 0
    out = capsys.readouterr().out
    assert "set aside NORTH EAST" in out and "set aside FIRE" in out
    assert main(["advise", "fortunes-winds", "--roll", "NORTH EAST FIRE BIRD VOID",
                 "--roll-number", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["max-win"]["set_aside"] == ["FIRE"]
    assert main(["advise", "fortunes-winds", "--roll", "NORTH DRAGON", "--roll-number", "1"]) == 1
    assert "not a face" in capsys.readouterr().err


def test_advice_for_a_table_after_a_set_aside():
    state = None
    for cmd in (Command("open", {"mode": "fortunes-winds"}), Command("join", {"player": "A"}),
                Command("buy-in", {"player": "A", "amount": 5}),
                Command("bet", {"player": "A", "bet": "standard", "amount": 1}),
                Command("roll", {"faces": ["NORTH", "EAST", "FIRE", "BIRD", "VOID"]}),
                Command("set-aside", {"dice": ["NORTH", "EAST"]}),
                Command("roll", {"faces": ["WEST", "AIR", "SUN"]})):
        state, _ = apply(state, cmd)
    advice = advise_state(state)
    assert advice["set_aside"] == ["NORTH", "EAST"] and advice["roll"] == 2
    assert advice["max-return"]["set_aside"] == ["WEST"]
    assert json.loads(json.dumps(advice)) == advice


@pytest.mark.parametrize("house", [{}, {"seven_thunders_pays": "3:2", "daikoku_for_pays": "5:2",
                                        "lady_sun_tea_pays": "4:5", "first_roll_multiplier": 3}])
def test_the_odds_price_every_outcome_as_the_engine_settles_it(house):
    """Each of the 22 ways a turn ends, played through the engine: the same net per coin."""
    from controller.games import find_game
    from controller.games.fortunes_winds import COMBINATIONS as COMBOS

    engine = find_game("fortunes-winds")
    pays = fw.PayTable.of(engine.new_state(house).settings)
    miss = ["RICE", "FISH", "TREE", "BIRD", "VOID"]
    endings = {("no-combination", None, 3): [miss] * 2 + [miss]}
    for r in (1, 2, 3):
        endings[("lord-moon", None, r)] = [miss] * (r - 1) + [[*miss[:4], "MOON"]]
        for c in COMBOS:
            endings[("win", c.id, r)] = [miss] * (r - 1) + [[*c.white, c.black]]
    assert len(endings) == 22
    for outcome, rolls in endings.items():
        state = None
        cmds = [Command("open", {"mode": "fortunes-winds", "settings": house})]
        for p in ("S", "R"):
            cmds += [Command("join", {"player": p}),
                     Command("buy-in", {"player": p, "amount": 1000})]
        cmds.append(Command("bet", {"player": "S", "bet": "standard", "amount": 30}))
        for kind in ("daikoku-for", "daikoku-against", "lady-sun-tea", "hungry-moon"):
            cmds.append(Command("bet", {"player": "R", "bet": kind, "amount": 30}))
        cmds += [Command("roll", {"faces": faces}) for faces in rolls]
        events = []
        for cmd in cmds:
            state, evs = apply(state, cmd)
            events += evs
        ended = RoundEnded.among(events)
        assert (ended.result, ended.details["combination"], ended.details["rolls"]) == outcome
        net: dict[str, int] = {}
        for e in events:
            if e.kind == "bet-settled":
                bet = "standard" if e.data["bet"] == "lord-moon" else e.data["bet"]
                net[bet] = net.get(bet, 0) + e.data["paid"] - e.data["stake"]
        for bet, coins in net.items():
            assert Fraction(coins, 30) == pays.net(bet, outcome), (outcome, bet)


def test_the_advice_at_the_table_after_a_set_aside_on_the_first_roll():
    """advise_state after the seed's first roll and its set-aside (a dashboard hint)."""
    from controller.games import apply
    from controller.games.base import Command
    from controller.odds.fortunes_winds_advisor import advise_state

    state = None
    for cmd in [Command("open", {"mode": "fortunes-winds"}), Command("join", {"player": "G"}),
                Command("buy-in", {"player": "G", "amount": 10}),
                Command("bet", {"player": "G", "bet": "standard", "amount": 1}),
                Command("roll", {"faces": ["NORTH", "EAST", "FIRE", "BIRD", "VOID"]}),
                Command("set-aside", {"dice": ["NORTH", "EAST"]})]:
        state, _ = apply(state, cmd)
    hint = advise_state(state)
    assert hint["roll"] == 1 and hint["set_aside"] == ["NORTH", "EAST"]
    assert not hint["turn_over"]
    for objective in ("max-return", "max-win"):
        assert not {"NORTH", "EAST"} & set(hint[objective]["set_aside"])
