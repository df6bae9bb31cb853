"""Rochi's chances: the deck's next cut, checked against enumerating every deal."""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import permutations

import pytest

from controller.odds.rochi import from_table, next_cut, odds, odds_text


def enumerate_next_cut(need, unseen, blanks, deck):
    """By brute force: every ordered deal of `deck` of the labelled unseen cards."""
    cards = [i for i, n in enumerate(unseen) for _ in range(n)] + [None] * blanks
    wins = [0] * len(need)
    total = 0
    for deal in permutations(range(len(cards)), deck):
        total += 1
        counts = [0] * len(need)
        for k in deal:
            suit = cards[k]
            if suit is None:
                continue
            counts[suit] += 1
            if counts[suit] == need[suit]:
                wins[suit] += 1
                break
    return tuple(Fraction(w, total) for w in wins)


@pytest.mark.parametrize(("need", "unseen", "blanks", "deck"), [
    ((1, 2), (2, 3), 1, 4), ((2, 2, 1), (2, 3, 1), 2, 5), ((3,), (4,), 2, 6), ((1, 1), (1, 1), 3, 2)])
def test_next_cut_matches_every_deal(need, unseen, blanks, deck):
    chances, none = next_cut(need, unseen, blanks, deck)
    assert chances == enumerate_next_cut(need, unseen, blanks, deck)
    assert none == 1 - sum(chances)


def test_a_fresh_deck_with_no_hands_cuts_some_suit():
    chances, none = next_cut((2, 3, 4, 5, 6, 7), (4, 6, 8, 10, 12, 14), 0, 54)
    assert none == 0 and sum(chances) == 1
    # The small suits cut most often: Mages first, Commons last.
    assert list(chances) == sorted(chances, reverse=True)


def test_the_report_and_a_table_position():
    report = odds({})
    assert [r["suit"] for r in report["suits"]][0] == "mages"
    assert abs(sum(r["cut_first"] for r in report["suits"]) - 1) < 1e-12
    assert len(odds_text(report)) == 3 + 6 + 1
    # Mages and Realm locked, Kin needing one card: among 30 unseen with a deck of 4 left.
    seen = ["MAGES-2-DAY-01", "MAGES-2-DAY-02", "REALM-3-DAY-01", "REALM-3-DAY-02",
            "REALM-3-DAY-03", *[f"KIN-6-DAY-0{i}" for i in range(1, 6)]]
    here = from_table({"kin": 5, "mages": 2, "realm": 3}, ["mages", "realm"], seen, 4)
    assert set(here["next_cut"]) == {"world", "valor", "kin", "commons"}
    assert here["next_cut"]["kin"] > here["next_cut"]["commons"]
    assert sum(here["next_cut"].values()) + here["no_cut"] == 1


def test_bad_positions_are_refused():
    with pytest.raises(ValueError, match="impossible"):
        next_cut((1,), (1,), 0, 2)
    with pytest.raises(ValueError, match="at least 1"):
        next_cut((0,), (1,), 0, 1)


def test_captains_rochi_has_its_own_report_with_rochis_chances():
    from controller.odds.captains_rochi import odds as captains_odds

    report = captains_odds({})
    assert report["game"] == "captains-rochi" and report["title"] == "Captain's Rochi"
    # Nothing is seen at the start of either game: the same first-cut chances.
    assert report["suits"] == odds({})["suits"]
    assert all(b["house_edge"] == 0 for b in report["bets"])


@pytest.mark.parametrize("mode", ["rochi", "captains-rochi"])
def test_dealing_only_the_deck_cuts_each_suit_first_as_often_as_the_exact_chance(mode):
    """`feltbank simulate MODE --strategy deal-only` through the real engine agrees with the
    exact first-cut chances within 3 standard errors."""
    from controller.simulate import simulate

    report = simulate(mode, 1200, seed=7, strategy="deal-only")
    assert {b["id"] for b in report["bets"]} == {f"first-cut-{s}" for s in
                                                 ("mages", "realm", "world", "valor", "kin",
                                                  "commons")}
    for bet in report["bets"]:
        assert bet["n"] == 1200
        assert abs(bet["edge"] - bet["exact_edge"]) <= 3 * bet["se"], bet


def test_feltbank_odds_simulate_and_bench_games_list_both_modes(capsys):
    from controller.cli import main

    for mode in ("rochi", "captains-rochi"):
        assert main(["odds", mode]) == 0
        assert "cuts first" in capsys.readouterr().out
        assert main(["simulate", mode, "--turns", "20", "--seed", "1", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["turns"] == 20
    assert main(["bench", "games", "--turns", "20", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["rochi"]["turns_per_s"] > 0 and figures["captains-rochi"]["turns_per_s"] > 0
