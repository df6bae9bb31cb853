"""`feltbank hardware check` on a machine without the hardware: it says so and uses mocks."""

from __future__ import annotations

from controller.cli import main


def test_hardware_check_with_mock_pins(capsys, tmp_path, monkeypatch):
    config = tmp_path / "feltbank.toml"
    config.write_text(f'[gpio]\nhold_seconds = 0.2\n[printer]\nfolder = "{tmp_path / "r"}"\n')
    code = main(["hardware", "check", "--config", str(config), "--led-seconds", "0.05"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "No GPIO here" in out
    assert out.count("... ok") == 8 + 8  # 4 buttons pressed and held, 8 lights
    assert "test receipt written to" in out
    printed = list((tmp_path / "r").iterdir())
    assert len(printed) == 1 and b"PRINTER TEST" in printed[0].read_bytes()


def test_hardware_check_with_one_rgb_led_and_no_printer(capsys, tmp_path):
    config = tmp_path / "feltbank.toml"
    config.write_text('[gpio]\nhold_seconds = 0.2\n[pins]\nled_mode = "rgb"\n'
                      '[printer]\nconnection = "none"\n')
    code = main(["hardware", "check", "--config", str(config), "--led-seconds", "0.05"])
    out = capsys.readouterr().out
    assert code == 0 and "the RGB LED" in out and "none configured" in out


def test_a_bad_pin_map_names_the_file(capsys, tmp_path):
    config = tmp_path / "feltbank.toml"
    config.write_text("[pins]\nreject = 17\n")
    assert main(["hardware", "check", "--config", str(config)]) == 1
    err = capsys.readouterr().err
    assert f"[pins] of {config}: GPIO17 is used twice" in err


def test_a_printer_that_fails_is_reported(capsys, tmp_path):
    config = tmp_path / "feltbank.toml"
    blocker = tmp_path / "blocker"
    blocker.write_text("not a folder")
    config.write_text(f'[gpio]\nhold_seconds = 0.2\n[printer]\nfolder = "{blocker}"\n')
    code = main(["hardware", "check", "--config", str(config), "--led-seconds", "0.05"])
    out = capsys.readouterr().out
    assert code == 1 and "not working: printer" in out
