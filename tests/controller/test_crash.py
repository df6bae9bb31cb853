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

CHILD = Path(__file__).with_name("crash_child.py")
KILLS = 50


def kill_at_random(path: Path, run: int, retry: str, delay: float) -> list[str]:
    """Start the child, SIGKILL it after `delay` seconds, return what it printed."""
    env = {**os.environ, "PYTHONPATH": str(CHILD.parents[2])}
    child = subprocess.Popen([sys.executable, str(CHILD), str(path), str(run), retry],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(child.stdout), daemon=True)
    reader.start()
    time.sleep(delay)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    reader.join(timeout=5)
    err = child.stderr.read()
    child.stdout.close()
    child.stderr.close()
    assert "Traceback" not in err, err
    return lines


@pytest.mark.slow
def test_sigkill_at_random_moments(tmp_path):
    path = tmp_path / "journal.sqlite3"
    rng = random.Random(2024)
    reported: list[str] = []
    retry = ""
    repeats = 0
    for run in range(1, KILLS + 1):
        # Kill during start-up and replay as well as in the middle of the command loop.
        lines = kill_at_random(path, run, retry, rng.uniform(0.05, 0.6))
        oks = [line.split()[1] for line in lines if line.startswith("ok ")]
        repeats += sum(1 for line in lines if line.startswith("ok ") and "repeated" in line)
        reported += oks
        tries = [line for line in lines if line.startswith("try ")]
        # The client retries the last command it sent, whatever became of it.
        retry = tries[-1].split(" ", 2)[2].strip() if tries else retry

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
    assert len(reported) > KILLS, "the child should commit commands between kills"
    assert repeats > 0, "some retried command should have been committed before the kill"
