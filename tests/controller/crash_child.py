"""A table that applies random commands in a loop until killed (for test_crash.py).

Prints `try ID JSON` before submitting a command and `ok ID` once it is committed. Its first
act is to resubmit the command given on the command line, as a client retries after a crash.
"""

from __future__ import annotations

import json
import random
import sys

from controller.errors import IllegalCommand
from controller.games import find_game
from controller.games.base import Command
from controller.games.play import seated_table
from controller.journal import Journal
from controller.table import Table


def main(path: str, run: int, retry: str, mode: str = "hazard") -> None:
    table = Table(Journal(path))
    for cmd in seated_table(mode, players=3, coins=1000):
        table.submit(cmd)  # the same ids every run: applied once, answered as repeats after
    out = sys.stdout
    if retry:
        cmd = Command.from_json(json.loads(retry))
        try:
            outcome = table.submit(cmd)
            print(f"ok {cmd.id} {'repeated' if outcome.repeated else 'new'}", file=out, flush=True)
        except IllegalCommand:
            # Never applied before (a repeat would have been answered from the journal).
            print(f"refused {cmd.id}", file=out, flush=True)
    rng = random.Random(run)
    engine = find_game(mode)
    n = 0
    while True:
        n += 1
        proposed = engine.random_command(table.state, rng)
        cmd = Command(proposed.kind, proposed.args, f"run{run}-{n}")
        print(f"try {cmd.id} {json.dumps(cmd.to_json())}", file=out, flush=True)
        try:
            table.submit(cmd)
        except IllegalCommand:
            print(f"refused {cmd.id}", file=out, flush=True)
            continue
        print(f"ok {cmd.id}", file=out, flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else "",
         sys.argv[4] if len(sys.argv) > 4 else "hazard")
