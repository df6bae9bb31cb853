"""Crash safety: a table SIGKILLed at random moments loses no accepted command, doubles none."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from controller.errors import JournalError
from controller.journal import Journal
from controller.modes import modes

CHILD = Path(__file__).with_name("crash_child.py")
KILLS = 50


def kill_at_random(path: Path, run: int, retry: str, delay: float,
                   mode: str = "hazard", in_loop: bool = False) -> list[str]:
    """Start the child, SIGKILL it `delay` seconds after it started (start-up and replay) or,
    `in_loop`, after it tried its first command of the loop; return what it printed."""
    env = {**os.environ, "PYTHONPATH": str(CHILD.parents[2])}
    child = subprocess.Popen([sys.executable, str(CHILD), str(path), str(run), retry, mode],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    lines: list[str] = []
    looping = threading.Event()

    def read():
        for line in child.stdout:
            lines.append(line)
            if line.startswith("try "):
                looping.set()
        looping.set()  # the child ended: nothing more to wait for

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    if in_loop:
        looping.wait()  # however slowly a busy machine starts it
    time.sleep(delay)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    reader.join(timeout=5)
    err = child.stderr.read()
    child.stdout.close()
    child.stderr.close()
    assert "Traceback" not in err, err
    return lines


def sigkill_runs(path: Path, kills: int, mode: str = "hazard") -> tuple[list[str], int]:
    """Kill a table of `mode` `kills` times at random moments, checking the journal after
    each: the command ids reported committed, and how many retries were repeats."""
    rng = random.Random(2024)
    reported: list[str] = []
    retry = ""
    repeats = 0
    for run in range(1, kills + 1):
        # Kill during start-up and replay as well as in the middle of the command loop: every
        # other run counts its moment from the loop's first command, so a busy machine's slow
        # start cannot leave every kill in start-up.
        lines = kill_at_random(path, run, retry, rng.uniform(0.05, 0.6), mode,
                               in_loop=run % 2 == 0)
        oks = [line.split()[1] for line in lines if line.startswith("ok ")]
        repeats += sum(1 for line in lines if line.startswith("ok ") and "repeated" in line)
        reported += oks
        tries = [line for line in lines if line.startswith("try ")]
        # The client retries the last command it sent, whatever became of it.
        retry = tries[-1].split(" ", 2)[2].strip() if tries else retry
        if not path.exists() or not path.stat().st_size:
            # Killed in start-up before the journal was made (a busy machine): nothing to lose.
            assert not oks
            continue

        try:
            journal = Journal(path, readonly=True)
        except JournalError:
            # Killed while it made the journal (a busy machine starts slowly): nothing was
            # accepted yet, and the next run makes it again.
            assert not reported, f"run {run}: commands were accepted, the journal is unusable"
            continue
        with journal:
            report = journal.verify()
            assert report.ok, (run, report.problems)
            counts = dict(journal.db.execute("SELECT id, count(*) FROM commands GROUP BY id"))
        missing = [cid for cid in reported if cid not in counts]
        assert not missing, f"run {run}: accepted but not in the journal: {missing[:5]}"
        assert all(n == 1 for n in counts.values())
        assert report.balances.get("cashier", 0) + sum(
            v for k, v in report.balances.items() if k != "cashier") == 0
    return reported, repeats


@pytest.mark.slow
def test_sigkill_at_random_moments(tmp_path):
    reported, repeats = sigkill_runs(tmp_path / "journal.sqlite3", KILLS)
    assert len(reported) > KILLS, "the child should commit commands between kills"
    assert repeats > 0, "some retried command should have been committed before the kill"


@pytest.mark.slow
@pytest.mark.parametrize("mode", [m for m in sorted(modes()) if m != "hazard"])
def test_sigkill_every_other_mode(tmp_path, mode):
    reported, _ = sigkill_runs(tmp_path / "journal.sqlite3", 12, mode)
    assert len(reported) > 12, "the child should commit commands between kills"
