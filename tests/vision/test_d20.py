"""The Rugen d20: the top face's number as a Rugen number, the transposing table, the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest

from controller.cli import main
from vision.bench_kinds import KindResult, score
from vision.d20 import read_d20
from vision.errors import BadImage
from vision.scenes_d20 import icosahedron, make_d20_scene, rugen_faces


def test_the_transposing_table_is_the_seeds():
    faces = rugen_faces()
    # Standard d20: 1 | 2 | 3-4 | 5-6 | 7-9 | 10-12 | 13-16 | 17-20
    want = {1: "1d", 2: "1n", 3: "2d", 4: "2d", 5: "2n", 6: "2n", 7: "3d", 9: "3d",
            10: "3n", 12: "3n", 13: "4d", 16: "4d", 17: "4n", 20: "4n"}
    assert all(faces[n - 1] == lab for n, lab in want.items())
    # each Rugen number N on 2N sides, half Day, half Night
    for n in (1, 2, 3, 4):
        assert faces.count(f"{n}d") == faces.count(f"{n}n") == n


def test_the_icosahedron_has_twenty_faces_opposites_summing_to_21():
    verts, faces, numbers = icosahedron()
    assert len(faces) == 20 and sorted(numbers) == list(range(1, 21))
    centres = np.array([verts[list(f)].mean(0) for f in faces])
    for i in range(20):
        j = int(np.argmin(np.linalg.norm(centres + centres[i], axis=1)))
        assert numbers[i] + numbers[j] == 21


def test_bad_input_is_refused_with_what_is_expected():
    with pytest.raises(BadImage, match="BGR colour image"):
        read_d20(np.zeros((10, 10), np.uint8))
    assert read_d20(np.full((480, 640, 3), (60, 110, 150), np.uint8)) == []


def test_generated_scenes_no_confident_error_some_read():
    res = KindResult("test")
    for seed in (0, 2, 4, 6):
        scene = make_d20_scene(seed)
        score(res, scene.dice, read_d20(scene.image), scene.hard, seed)
    assert res.dice >= 6
    assert res.confident_errors == 0, res.errors
    assert res.right >= 0.5 * res.dice, res.summary()


def test_a_printed_rugen_die_is_read_as_printed():
    right = 0
    for seed in (0, 1, 4, 6, 8, 9):
        scene = make_d20_scene(seed, n_dice=1, printed_rugen=True)
        labels = [o.label for o in read_d20(scene.image) if o.label is not None]
        assert labels in ([], [scene.dice[0].label]), (seed, labels)
        right += labels == [scene.dice[0].label]
    assert right >= 4


def test_recognize_kind_d20_json(tmp_path, capsys):
    import cv2

    scene = make_d20_scene(0, n_dice=1, printed_rugen=True)
    path = tmp_path / "d20.png"
    cv2.imwrite(str(path), scene.image)
    assert main(["recognize", "--kind", "d20", str(path), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out.strip())
    assert [(o["kind"], o["label"]) for o in obj["objects"]] == [("d20", scene.dice[0].label)]


@pytest.mark.slow
def test_bench_vision_kind_d20_quick(capsys):
    assert main(["bench", "vision", "--kind", "d20", "--dice", "4", "--split", "dev",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out.strip())
    assert set(out) == {"dev"} and out["dev"]["dice"] >= 4
