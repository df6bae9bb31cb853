"""Every test runs with its own data folder and no override file from the machine."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def isolated_feltbank(tmp_path_factory, monkeypatch):
    """Point FELTBANK_DATA and the config search path at fresh temporary folders."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("FELTBANK_DATA", str(home / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "share"))
    monkeypatch.delenv("FELTBANK_CONFIG", raising=False)
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    from controller import config

    monkeypatch.setattr(config, "SYSTEM_CONFIG", home / "etc" / "feltbank.toml")
    return home
