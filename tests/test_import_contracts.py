"""The import rules of DESIGN.md, checked by import-linter (`lint-imports`, contracts in
pyproject.toml): engines import no storage, vision or web; vision and hardware know no rules;
the controller imports no web, hardware or composition root (only the CLI on top does); the
dashboard imports no composition root (it is handed its services); nothing imports the CLI."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def contracts() -> list[dict]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return config["tool"]["importlinter"]["contracts"]


def test_the_import_contracts_are_kept():
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert lint, "import-linter is in the dev extra: python3 bootstrap.py test installs it"
    done = subprocess.run([lint, "--no-cache"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert f"Contracts: {len(contracts())} kept, 0 broken." in done.stdout


def test_the_cli_contract_names_every_part_of_the_controller_but_the_cli():
    """A new controller module must be listed as one that may not import the CLI."""
    cli = next(c for c in contracts() if c["forbidden_modules"] == ["controller.cli"])
    parts = {f"controller.{p.stem}" for p in (ROOT / "controller").iterdir()
             if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").exists()}
    assert parts - {"controller.cli"} <= set(cli["source_modules"]), \
        sorted(parts - {"controller.cli"} - set(cli["source_modules"]))
