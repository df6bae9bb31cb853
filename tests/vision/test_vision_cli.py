"""The CLI glue: calibrate, recognize --json, print labels|markers, bench vision --quick."""

from __future__ import annotations

import argparse
import json

import cv2
import pytest

from controller.cli import main
from controller.cli.vision import register_bench
from tests.vision.conftest import SEASONS, SEASONS_TABLE
from vision.default_profile import NOMINAL_TABLE
from vision.synthetic import make_scene


def _write_captures(folder, captures):
    """Write captures as DIR/<LABEL>/<n>.png."""
    for lab, items in captures.items():
        (folder / lab).mkdir(parents=True)
        for j, (_, img) in enumerate(items):
            cv2.imwrite(str(folder / lab / f"{j}.png"), img)


def test_recognize_json_one_object_per_image(tmp_path, capsys):
    paths = []
    for s in range(2):
        path = tmp_path / f"frame{s}.jpg"
        cv2.imwrite(str(path), make_scene(7300 + s, table=NOMINAL_TABLE).image)
        paths.append(str(path))
    assert main(["recognize", *paths, "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2
    for line, path in zip(lines, paths, strict=True):
        obj = json.loads(line)
        assert obj["image"] == path
        assert len(obj["objects"]) == 5
        for o in obj["objects"]:
            assert o["label"] is None or isinstance(o["label"], str)
            assert 0.0 <= o["confidence"] <= 1.0
            assert len(o["center"]) == 2


@pytest.mark.parametrize("kind", ["dice", "pips"])
def test_recognize_reads_the_other_images_past_an_unreadable_one(tmp_path, capsys, kind):
    good = tmp_path / "frame.png"
    cv2.imwrite(str(good), make_scene(7300, table=NOMINAL_TABLE).image)
    bad = tmp_path / "torn.png"
    bad.write_bytes(b"\x89PNG not really")
    paths = [str(bad), str(good)]
    assert main(["recognize", "--kind", kind, *paths, "--json"]) == 1
    out = capsys.readouterr()
    first, second = (json.loads(line) for line in out.out.strip().splitlines())
    assert first["image"] == str(bad) and first["objects"] == [] and first["error"]
    assert second["image"] == str(good) and "error" not in second and second["objects"]
    assert str(bad) in out.err
    assert main(["recognize", "--kind", kind, *paths]) == 1
    text = capsys.readouterr().out.splitlines()
    assert text[0] == f"{good}:" and len(text) == 1 + len(second["objects"])
    assert all(line.startswith("  ") and " at (" in line for line in text[1:])


def test_recognize_on_the_table_places_dice_in_zones(tmp_path, capsys):
    from vision.synthetic import DieSpec, SceneParams, render_scene

    # felt 440 x 330 mm; the marker centres sit 28 mm in from its corners
    w, h = 440.0 - 56.0, 330.0 - 56.0
    config = tmp_path / "feltbank.toml"
    config.write_text(f"[camera]\nfelt_mm = [{w}, {h}]\n[zones]\n"
                      f"rolling = [[0, 0], [{w / 2}, 0], [{w / 2}, {h}], [0, {h}]]\n"
                      f"tray = [[{w / 2}, 0], [{w}, 0], [{w}, {h}], [{w / 2}, {h}]]\n")
    scene = render_scene(SceneParams(felt_mm=(440.0, 330.0), markers=True),
                         [DieSpec("SUN", -100.0, 40.0, 15.0), DieSpec("EAST", 120.0, -60.0, 40.0)],
                         seed=3)
    frame = tmp_path / "frame.png"
    cv2.imwrite(str(frame), scene.image)
    assert main(["recognize", "--table", "--config", str(config), str(frame), "--json"]) == 0
    objects = json.loads(capsys.readouterr().out)["objects"]
    assert sorted((o["label"], o["zone"]) for o in objects) == [("EAST", "tray"), ("SUN", "rolling")]
    # without the corner markers in the picture the dice cannot be placed: said, per image
    plain = tmp_path / "plain.png"
    cv2.imwrite(str(plain), make_scene(7400, table=NOMINAL_TABLE).image)
    assert main(["recognize", "--table", "--config", str(config), str(plain)]) == 1
    assert "corner markers [0, 1, 2, 3] not seen" in capsys.readouterr().err


def test_recognize_bad_image_and_bad_profile(tmp_path, capsys):
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"nope")
    assert main(["recognize", str(bad), "--json"]) == 1
    assert "bad.png" in capsys.readouterr().err
    assert main(["recognize", "--profile", str(tmp_path / "none"), str(bad)]) == 1
    assert "no such profile" in capsys.readouterr().err
    assert main(["recognize", "--die-set", "kin-deck", str(bad)]) == 1
    assert "not 'kin-deck'" in capsys.readouterr().err


def test_calibrate_writes_activates_and_rolls_back(tmp_path, capsys, seasons_captures):
    caps = tmp_path / "caps"
    _write_captures(caps, seasons_captures)
    out = tmp_path / "profiles"
    args = ["calibrate", "--captures", str(caps), "--out", str(out), "--die-set", SEASONS.name,
            "--activate"]
    assert main(args + ["--camera-controls", '{"ExposureTime": 12000}']) == 0
    err = capsys.readouterr().err  # the progress bar, a line a tenth on a pipe
    assert err.splitlines()[-1].startswith("[" + "#" * 30 + "] 100%"), err
    assert "checking the faces on held-out captures" in err
    assert json.loads((out / "v001" / "manifest.json").read_text())["camera_controls"] == {
        "ExposureTime": 12000}
    assert main(args + ["--json"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["profile"].endswith("v002") and report["accuracy"] >= 0.9
    assert main(["calibrate", "--out", str(out), "--rollback"]) == 0
    assert json.loads((out / "ACTIVE.json").read_text())["active"] == "v001"
    frame = tmp_path / "f.png"
    cv2.imwrite(str(frame), make_scene(7400, n_dice=2, die_set=SEASONS, table=SEASONS_TABLE,
                                       labels=SEASONS.labels).image)
    capsys.readouterr()
    assert main(["recognize", "--profile", str(out), str(frame), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["objects"]) == 2


def test_calibrate_unknown_label_writes_nothing(tmp_path, capsys, seasons_captures):
    caps = tmp_path / "caps"
    _write_captures(caps, {k: v[:1] for k, v in seasons_captures.items()})
    out = tmp_path / "profiles"
    # the default die set is Fortunes and Winds: the seasons' folders are unknown labels
    assert main(["calibrate", "--captures", str(caps), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "AUTUMN: unknown label 'AUTUMN'" in err and "EARTH, NORTH" in err
    assert not out.exists()


@pytest.mark.parametrize("what", ["labels", "markers"])
def test_print_pdfs(tmp_path, capsys, what):
    out = tmp_path / f"{what}.pdf"
    assert main(["print", what, "--out", str(out)]) == 0
    data = out.read_bytes()
    assert data.startswith(b"%PDF") and b"/MediaBox [0 0 595.28 841.89]" in data
    if what == "labels":
        assert b"NotoSansCJKJPBold" in data  # the committed subset font is embedded
    assert main(["print", what, "--out", str(tmp_path / "x.txt")]) == 1


def test_print_labels_rejects_silly_die_size(tmp_path, capsys):
    assert main(["print", "labels", "--out", str(tmp_path / "l.pdf"), "--die-mm", "2"]) == 1
    assert "--die-mm" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.bench
def test_bench_vision_quick(capsys):
    parser = argparse.ArgumentParser()
    register_bench(parser.add_subparsers())
    args = parser.parse_args(["vision", "--quick", "--json", "--dice", "30", "--split",
                              "heldout"])
    assert args.func(args) == 0
    s = json.loads(capsys.readouterr().out)["heldout"]
    assert s["dice"] == 30 and len(s["tables"]) == 1
    assert s["confident_errors"] == 0
    assert s["accuracy"] >= 0.85
