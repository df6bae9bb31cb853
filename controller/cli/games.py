"""`feltbank odds|advise|simulate` and `feltbank bench games`: the dice games' figures."""

from __future__ import annotations

import argparse
import time
from typing import Any

from controller.cli.common import add_config_option, config_of, print_json
from controller.modes import find_mode, modes, with_part
from controller.odds import pct


def register(subparsers: argparse._SubParsersAction) -> None:
    odds = subparsers.add_parser(
        "odds", help="exact probabilities, pays and house edge of every bet of a game",
        description="Exact odds by exhaustive enumeration over the dice, with the pays of the "
                    "table's settings (the mode's defaults, overridden by the config file).")
    odds.add_argument("game", choices=with_part("odds"))
    odds.add_argument("--json", action="store_true", help="print the report as JSON")
    add_config_option(odds)
    odds.set_defaults(func=cmd_odds)

    advise = subparsers.add_parser(
        "advise", help="the shooter's choices after a roll (modes with an advisor: "
                       f"{', '.join(with_part('advisor'))})",
        description="After a roll, what the mode's advisor says the shooter should do (e.g. "
                    "the set-aside that maximises the expected return and the one that "
                    "maximises the chance to win the turn), with the figures. A mode has an "
                    "advisor when its record names one (Mode.advise_ref).")
    advise.add_argument("game", choices=list(modes()), metavar="GAME",
                        help=f"the game mode: {', '.join(modes())}")
    advise.add_argument("--roll", required=True, metavar="FACES",
                        help='the faces just rolled, e.g. "NORTH EAST FIRE BIRD VOID"')
    advise.add_argument("--roll-number", type=int, required=True, metavar="N",
                        help="which roll of the turn it was (the mode's advisor checks it)")
    advise.add_argument("--set-aside", default="", metavar="FACES",
                        help='the faces of the dice set aside on earlier rolls, e.g. "NORTH EAST"')
    advise.add_argument("--json", action="store_true", help="print the advice as JSON")
    add_config_option(advise)
    advise.set_defaults(func=cmd_advise)

    simulate = subparsers.add_parser(
        "simulate", help="play seeded virtual dice through the engine; empirical edges",
        description="Play TURNS turns with seeded dice through the real engine and print "
                    "each bet's empirical edge with its standard error beside the exact edge.")
    simulate.add_argument("game", choices=with_part("simulation"))
    simulate.add_argument("--turns", "--rounds", type=int, default=10_000, metavar="N",
                          help="turns (rounds) to play (default 10000)")
    simulate.add_argument("--seed", type=int, default=1, metavar="S", help="dice seed")
    strategies = sorted({s for m in modes().values() for s in m.strategies})
    simulate.add_argument("--strategy", choices=strategies, default=None,
                          help="the players' strategy, for modes that have several "
                               "(default: the mode's first)")
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


# -- odds -----------------------------------------------------------------------------------------


def cmd_odds(args: argparse.Namespace) -> int:
    from controller.odds import odds

    start = time.perf_counter()
    report = odds(args.game, _settings(args, args.game))
    if args.json:
        print_json(report)
        return 0
    print(f"{report['title']}: exact odds (computed in {time.perf_counter() - start:.2f} s)")
    for line in find_mode(args.game).odds_text(report):
        print(line)
    return 0


# -- advise -----------------------------------------------------------------------------------------


def cmd_advise(args: argparse.Namespace) -> int:
    advice = find_mode(args.game).advise(args.roll, args.roll_number,
                                         args.set_aside.replace(",", " ").split(),
                                         _settings(args, args.game))
    if args.json:
        print_json(advice)
        return 0
    for line in find_mode(args.game).advice_text(advice):
        print(line)
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
    for line in report.get("notes", ()):
        print(line)
    print(f"{'bet':<16}{'n':>8}{'edge':>10}{'± se':>10}{'exact':>10}{'z':>7}")
    for bet in report["bets"]:
        print(f"{bet['id']:<16}{bet['n']:>8}{pct(bet['edge']):>10}{pct(bet['se']):>10}"
              f"{pct(bet['exact_edge']):>10}"
              f"{'—' if bet['z'] is None else format(bet['z'], '.2f'):>7}")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from controller.simulate import simulate

    figures = {}
    for game in with_part("simulation"):
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
