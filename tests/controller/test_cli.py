"""The command line: every subcommand has --help; journal, replay, config and bench work."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import build_parser, main
from controller.cli.common import default_mode
from controller.games.base import Command
from controller.games.play import seated_table
from controller.journal import Journal
from controller.table import Table

ROOT = Path(__file__).resolve().parents[2]
HISTORIES = ROOT / "tests" / "histories"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def subcommand_paths(parser, prefix=()):
    """Every path of subcommands: ('journal', 'verify'), ..."""
    for action in parser._actions:
        if action.__class__.__name__ == "_SubParsersAction":
            for name, sub in action.choices.items():
                yield (*prefix, name)
                yield from subcommand_paths(sub, (*prefix, name))


def test_help_lists_the_subcommands_and_each_has_help(capsys):
    code, out, _ = run(capsys)
    assert code == 2 and "run" in out and "journal" in out
    paths = list(subcommand_paths(build_parser()))
    assert ("journal", "verify") in paths and ("bench", "ledger") in paths
    for path in paths:
        with pytest.raises(SystemExit) as exit_:
            main([*path, "--help"])
        assert exit_.value.code == 0
        assert "usage: feltbank " + " ".join(path) in capsys.readouterr().out


def test_config_show(capsys):
    code, out, _ = run(capsys, "config", "show")
    assert code == 0 and 'mode = "fortunes-winds"  # default' in out
    code, out, _ = run(capsys, "config", "show", "--json")
    assert json.loads(out)["values"]["table.mode"] == "fortunes-winds"


def test_config_show_with_a_bad_file(capsys, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[table]\nseats = 3\n")
    code, _, err = run(capsys, "config", "show", "--config", str(bad))
    assert code == 1 and "feltbank: error: unknown key 'table.seats'" in err


@pytest.fixture
def journal_file(tmp_path):
    path = tmp_path / "j.sqlite3"
    table = Table(Journal(path))
    for cmd in seated_table("hazard", players=2, coins=100):
        table.submit(cmd)
    for i, cmd in enumerate([Command("call-main", {"main": 5}),
                             Command("bet", {"player": "P1", "bet": "caster-wins", "amount": 8}),
                             Command("throw", {"dice": [2, 3]})]):
        table.submit(Command(cmd.kind, cmd.args, f"c{i}"))
    table.journal.close()
    return path


def test_journal_verify_export_and_replay_agree(capsys, journal_file, tmp_path):
    code, out, _ = run(capsys, "journal", "verify", "--journal", str(journal_file))
    assert code == 0 and "8 commands replayed" in out and ": ok" in out
    out_file = tmp_path / "session.jsonl"
    code, _, err = run(capsys, "journal", "export", "--format", "jsonl", "--journal",
                       str(journal_file), "--out", str(out_file))
    assert code == 0 and "wrote 8 commands" in err
    lines = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert lines[-1]["kind"] == "throw" and lines[-1]["events"][0]["result"] == "nick"
    code, out, _ = run(capsys, "replay", str(out_file))
    assert code == 0
    assert json.loads(out)["players"] == {"P1": 108, "P2": 100}
    code, out, _ = run(capsys, "journal", "verify", "--journal", str(journal_file), "--json")
    assert json.loads(out)["balances"]["player:P1"] == 108
    code, out, _ = run(capsys, "journal", "statements", "--journal", str(journal_file))
    head, p1, p2 = out.splitlines()
    assert head.split() == ["player", "bought", "in", "cashed", "out", "staked", "won", "lost",
                            "pots", "paid", "pots", "won", "fees", "net"]
    assert p1.split() == ["P1", "100", "0", "8", "8", "0", "0", "0", "0", "8"]
    code, out, _ = run(capsys, "journal", "statements", "P1", "--journal", str(journal_file),
                       "--json")
    assert json.loads(out) == [{"player": "P1", "buy_in": 100, "cashed_out": 0, "staked": 8,
                                "won": 8, "lost": 0, "pots_paid": 0, "pots_won": 0, "fees": 0,
                                "net": 8}]


def test_replay_of_the_shipped_hazard_history(capsys):
    code, out, _ = run(capsys, "replay", str(HISTORIES / "hazard-session.jsonl"))
    assert code == 0
    assert json.loads(out) == {"players": {"Ann": 36, "Bob": 54}, "bank": -10, "cashier": -80,
                               "on_table": {}}


@pytest.mark.parametrize("lines, match", [
    (['{"id": "a", "kind": "open", "mode": "hazard"}', '{"kind": "juggle"}'],
     r"h.jsonl:2: 'juggle' refused: Hazard has no command 'juggle'"),
    (['{"id": "a", "kind": "open", "mode": "hazard"', ], r"h.jsonl:1: not a JSON object"),
    (['["open"]'], r"h.jsonl:1: a command is a JSON object"),
    (['{"id": "a", "kind": "open", "mode": "hazard"}', '{"id": "a", "kind": "join", '
      '"player": "X"}'], r"h.jsonl:2: id 'a' was used on line 1"),
    (['{"kind": "open", "mode": "hazard"}', '{"kind": "join", "player": "X", '
      '"events": [{"kind": "left", "player": "X"}]}'], r"h.jsonl:2: the engines give other"),
    (['{"kind": "join", "player": "X"}'], r"h.jsonl:1: 'join' refused: the table is not open"),
])
def test_replay_names_the_line_of_a_bad_history(capsys, tmp_path, lines, match):
    path = tmp_path / "h.jsonl"
    path.write_text("\n".join(lines) + "\n")
    code, out, err = run(capsys, "replay", str(path))
    assert code == 1 and out == ""
    assert re.search(match, err), err


def test_journal_commands_on_bad_files(capsys, tmp_path):
    bad = tmp_path / "bad.sqlite3"
    bad.write_bytes(b"garbage" * 50)
    code, _, err = run(capsys, "journal", "verify", "--journal", str(bad))
    assert code == 1 and f"{bad} is not a feltbank journal" in err
    code, _, err = run(capsys, "journal", "export", "--journal", str(tmp_path / "none.sqlite3"))
    assert code == 1 and "no journal there" in err
    assert not (tmp_path / "none.sqlite3").exists()


def test_run_takes_commands_and_rebuilds_on_the_next_start(capsys, tmp_path):
    commands = tmp_path / "cmds.jsonl"
    commands.write_text("\n".join([
        '{"id": "1", "kind": "join", "player": "Ann"}',
        '{"id": "2", "kind": "buy-in", "player": "Ann", "amount": 30}',
        '{"id": "3", "kind": "buy-in", "player": "Ann", "amount": -3}',
        "not json",
        '{"id": "2", "kind": "buy-in", "player": "Ann", "amount": 30}',
    ]) + "\n")
    code, out, _ = run(capsys, "run", "--commands", str(commands))
    results = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(results) == 5
    assert results[1]["events"][0]["kind"] == "bought-in"
    assert "amount = -3" in results[2]["error"]
    assert "not a JSON object" in results[3]["error"]
    assert results[4]["repeated"] is True and results[4]["seq"] == results[1]["seq"]
    code, out, _ = run(capsys, "run", "--commands", str(commands))
    assert all(r.get("repeated") or "error" in r for r in map(json.loads, out.splitlines()))
    code, out, _ = run(capsys, "journal", "verify", "--json")
    assert json.loads(out)["balances"]["player:Ann"] == 30


@pytest.mark.bench
@pytest.mark.parametrize("mode", [[], ["--mode", "hazard"]], ids=["default", "hazard"])
def test_bench_ledger(capsys, mode):
    code, out, _ = run(capsys, "bench", "ledger", "--commits", "50", "--replay", "2000", "--json",
                       *mode)
    figures = json.loads(out)
    assert code == 0 and figures["commits_per_s"] > 0 and figures["replay_commands_per_s"] > 0
    assert figures["mode"] == (mode[-1] if mode else default_mode())


def test_the_console_script_and_the_readme_run_command(tmp_path):
    feltbank = Path(sys.executable).with_name("feltbank")
    done = subprocess.run([str(feltbank), "--help"], capture_output=True, text=True, check=True)
    assert "journal" in done.stdout
    commands = tmp_path / "c.jsonl"
    commands.write_text('{"id": "j", "kind": "join", "player": "Ann"}\n')
    # The README's run command: the bootstrap finds the venv ready and starts feltbank run.
    python3 = shutil.which("python3") or sys.executable
    done = subprocess.run([python3, str(ROOT / "bootstrap.py"), "run", "--commands",
                           str(commands)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "FELTBANK_VENV": str(Path(sys.executable).parents[1])})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1])["events"][0]["kind"] == "joined"


@pytest.mark.bench
def test_bench_web(capsys):
    """`feltbank bench web`: every stream gets every outcome (issue 14)."""
    code, out, _ = run(capsys, "bench", "web", "--writers", "2", "--commands", "10",
                       "--streams", "5", "--money", "500", "--json")
    figures = json.loads(out)
    assert code == 0 and figures["all_received"] and figures["events_min"] == 20
    assert figures["commands_per_s"] > 0 and figures["money_page_ms"] > 0
