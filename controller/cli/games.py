"""`feltbank odds|advise|simulate` and `feltbank bench games`: the dice games' figures."""

from __future__ import annotations

import argparse
import time
from typing import Any

from controller.cli.common import add_config_option, config_of, print_json
from controller.odds import MODES

STRATEGIES = ("max-return", "max-win")


def register(subparsers: argparse._SubParsersAction) -> None:
    odds = subparsers.add_parser(
        "odds", help="exact probabilities, pays and house edge of every bet of a game",
        description="Exact odds by exhaustive enumeration over the dice, with the pays of the "
                    "table's settings (the mode's defaults, overridden by the config file).")
    odds.add_argument("game", choices=MODES)
    odds.add_argument("--json", action="store_true", help="print the report as JSON")
    add_config_option(odds)
    odds.set_defaults(func=cmd_odds)

    advise = subparsers.add_parser(
        "advise", help="the shooter's set-aside choices after a roll (Fortunes and Winds)",
        description="After a roll, the set-aside that maximises the shooter's expected return "
                    "and the one that maximises his chance to win the turn, with both figures.")
    advise.add_argument("game", choices=["fortunes-winds"])
    advise.add_argument("--roll", required=True, metavar="FACES",
                        help='the faces just rolled, e.g. "NORTH EAST FIRE BIRD VOID"')
    advise.add_argument("--roll-number", type=int, required=True, choices=(1, 2, 3),
                        help="which roll of the turn it was")
    advise.add_argument("--set-aside", default="", metavar="FACES",
                        help='the faces of the dice set aside on earlier rolls, e.g. "NORTH EAST"')
    advise.add_argument("--json", action="store_true", help="print the advice as JSON")
    add_config_option(advise)
    advise.set_defaults(func=cmd_advise)

    simulate = subparsers.add_parser(
        "simulate", help="play seeded virtual dice through the engine; empirical edges",
        description="Play TURNS turns with seeded dice through the real engine and print "
                    "each bet's empirical edge with its standard error beside the exact edge.")
    simulate.add_argument("game", choices=MODES)
    simulate.add_argument("--turns", type=int, default=10_000, metavar="N",
                          help="turns (rounds) to play (default 10000)")
    simulate.add_argument("--seed", type=int, default=1, metavar="S", help="dice seed")
    simulate.add_argument("--strategy", choices=STRATEGIES, default="max-return",
                          help="the shooter's set-aside strategy (Fortunes and Winds)")
    simulate.add_argument("--json", action="store_true", help="print the figures as JSON")
    add_config_option(simulate)
    simulate.set_defaults(func=cmd_simulate)


def register_bench(bench: argparse._SubParsersAction) -> None:
    parser = bench.add_parser(
        "games", help="simulated turns per second through the dice engines",
        description="Turns per second of `feltbank simulate` for each dice game.")
    parser.add_argument("--turns", type=int, default=2000, metavar="N",
                        help="turns per game (default 2000)")
    parser.add_argument("--seed", type=int, default=1, metavar="S")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.set_defaults(func=cmd_bench)


def _settings(args: argparse.Namespace, game: str) -> dict[str, Any]:
    return config_of(args).game_settings(game)


def _pct(x: float) -> str:
    return f"{100 * x:7.3f}%"


# -- odds -----------------------------------------------------------------------------------------


def cmd_odds(args: argparse.Namespace) -> int:
    from controller.odds import odds

    start = time.perf_counter()
    report = odds(args.game, _settings(args, args.game))
    if args.json:
        print_json(report)
        return 0
    print(f"{report['title']}: exact odds (computed in {time.perf_counter() - start:.2f} s)")
    if args.game == "fortunes-winds":
        _print_fw_odds(report)
    else:
        _print_hazard_odds(report)
    return 0


def _print_fw_odds(report: dict) -> None:
    print(f"shooter wins a turn, setting aside to win:      "
          f"{_pct(report['shooter_win_probability'])}")
    print(f"standard bet's return, setting aside for it:    "
          f"{_pct(report['standard_expected_return'])} per coin of standard bet "
          "(Lord Moon money included)")
    print()
    print("combinations: " + ", ".join(f"{c['name']} {c['pays']} ({c['first_roll_pays']} on "
                                       "roll 1)" for c in report["combinations"]))
    print()
    head = (f"{'bet':<16}{'pays':>9}{'P(win)':>10}{'edge':>10}{'edge':>10}{'worst':>10}"
            f"{'colluding':>11}")
    print(head)
    print(f"{'':<16}{'':>9}{'':>10}{'max-ret':>10}{'max-win':>10}{'':>10}{'shooter':>11}")
    for bet in report["bets"]:
        coll = bet.get("house_edge_colluding")
        pays = "combos" if bet["id"] == "standard" else bet["pays"]
        print(f"{bet['id']:<16}{pays:>9}{_pct(bet['probability']):>10}"
              f"{_pct(bet['by_strategy']['max-return']['house_edge']):>10}"
              f"{_pct(bet['by_strategy']['max-win']['house_edge']):>10}"
              f"{_pct(bet['house_edge_worst']):>10}"
              f"{_pct(coll) if coll is not None else '':>11}")
    print()
    print("edge: the bettor's expected loss per coin staked (negative: the bettor's edge).")
    print("worst: the lower edge of the two strategies; colluding: if the shooter set dice "
          "aside to make that bet win.")


def _print_hazard_odds(report: dict) -> None:
    print(f"{'main':>4}{'nick':>10}{'out':>10}{'chance':>10}{'caster wins':>13}")
    for m in report["mains"]:
        print(f"{m['main']:>4}{_pct(m['nick']):>10}{_pct(m['out']):>10}{_pct(m['chance']):>10}"
              f"{_pct(m['caster_wins']):>13}")
    print()
    print(f"{'bet':<16}{'pays':>6}{'P(win)':>10}{'edge':>10}{'worst':>10}")
    for bet in report["bets"]:
        worst = bet.get("house_edge_worst")
        print(f"{bet['id']:<16}{bet['pays']:>6}{_pct(bet['probability']):>10}"
              f"{_pct(bet['house_edge']):>10}{_pct(worst) if worst is not None else '':>10}")
    print()
    print("caster-loses worst: at a stake whose commission, rounded down, is nothing.")


# -- advise -----------------------------------------------------------------------------------------


def cmd_advise(args: argparse.Namespace) -> int:
    from controller.advisor import advise

    advice = advise(args.roll, args.roll_number, args.set_aside.replace(",", " ").split(),
                    _settings(args, args.game))
    if args.json:
        print_json(advice)
        return 0
    kept = f" (set aside before: {' '.join(advice['set_aside'])})" if advice["set_aside"] else ""
    print(f"roll {advice['roll']}: {' '.join(advice['showing'])}{kept}")
    if advice["turn_over"]:
        what = {"win": f"a win: {advice['combination']}", "lord-moon": "Lord Moon: a loss",
                "no-combination": "no combination after the third roll: a loss"}
        print(f"the turn is over: {what[advice['result']]}")
        return 0
    for objective, title in (("max-return", "best return"), ("max-win", "best chance to win")):
        a = advice[objective]
        aside = " ".join(a["set_aside"]) or "nothing"
        print(f"{title + ':':<20} set aside {aside}, roll {' '.join(a['roll_next'])}: "
              f"wins the turn {_pct(a['win_probability']).strip()}, expected return "
              f"{a['expected_return']:+.4f} per coin of standard bet")
    return 0


# -- simulate ---------------------------------------------------------------------------------------


def cmd_simulate(args: argparse.Namespace) -> int:
    from controller.simulate import simulate

    report = simulate(args.game, args.turns, args.seed, _settings(args, args.game),
                      args.strategy)
    if args.json:
        print_json(report)
        return 0
    print(f"{args.game}: {report['turns']} turns, seed {report['seed']}, "
          f"{report['turns_per_s']:.0f} turns/s")
    if "shooter_win_rate" in report:
        print(f"shooter won {_pct(report['shooter_win_rate']).strip()} "
              f"± {_pct(report['shooter_win_se']).strip()} of turns "
              f"(exact {_pct(report['shooter_win_exact']).strip()}, {report['strategy']})")
    print(f"{'bet':<16}{'n':>8}{'edge':>10}{'± se':>10}{'exact':>10}{'z':>7}")
    for bet in report["bets"]:
        print(f"{bet['id']:<16}{bet['n']:>8}{_pct(bet['edge']):>10}{_pct(bet['se']):>10}"
              f"{_pct(bet['exact_edge']):>10}{bet['z']:>7.2f}")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from controller.simulate import simulate

    figures = {}
    for game in MODES:
        report = simulate(game, args.turns, args.seed)
        figures[game] = {"turns": args.turns, "seconds": round(report["seconds"], 3),
                         "turns_per_s": round(report["turns_per_s"])}
    if args.json:
        print_json(figures)
    else:
        for game, f in figures.items():
            print(f"{game}: {f['turns']} turns in {f['seconds']:.2f} s = "
                  f"{f['turns_per_s']} turns/s")
    return 0
