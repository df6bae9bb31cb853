"""Profile stores: versions, activation, roll-back, and refusing corrupt or foreign profiles."""

from __future__ import annotations

import hashlib
import io
import json

import numpy as np
import pytest

from vision.errors import BadProfile
from vision.profile import load_profile, read_active, rollback, save_profile


def test_versions_activate_and_roll_back(tmp_path, seasons_profile):
    profile, _ = seasons_profile
    store = tmp_path / "store"
    v1 = save_profile(profile, store, activate=True)
    v2 = save_profile(profile, store, activate=True)
    assert (v1.name, v2.name) == ("v001", "v002")
    assert read_active(store)["active"] == "v002"
    assert load_profile(store).labels == profile.labels
    assert rollback(store) == "v001"
    assert read_active(store)["active"] == "v001"
    with pytest.raises(BadProfile, match="no earlier"):
        rollback(store)
    assert not [p for p in store.iterdir() if p.name.startswith(".")]  # no temp leftovers
    manifest = json.loads((v1 / "manifest.json").read_text())
    assert manifest["die_set"] == "test-seasons" and manifest["labels"] == profile.labels


def test_unactivated_version_is_not_used(tmp_path, seasons_profile):
    profile, _ = seasons_profile
    store = tmp_path / "store"
    save_profile(profile, store, activate=True)
    save_profile(profile, store)
    assert read_active(store)["active"] == "v001"


@pytest.mark.parametrize("damage", ["npz", "manifest", "format", "missing"])
def test_corrupt_profile_is_refused_naming_the_file(tmp_path, seasons_profile, damage):
    profile, _ = seasons_profile
    v = save_profile(profile, tmp_path / "store")
    if damage == "npz":
        raw = bytearray((v / "patches.npz").read_bytes())
        raw[len(raw) // 2] ^= 0xFF
        (v / "patches.npz").write_bytes(bytes(raw))
        match = "patches.npz"
    elif damage == "manifest":
        (v / "manifest.json").write_text("{not json")
        match = "manifest.json"
    elif damage == "format":
        m = json.loads((v / "manifest.json").read_text())
        m["format_version"] = 99
        (v / "manifest.json").write_text(json.dumps(m))
        match = "manifest.json"
    else:
        (v / "patches.npz").unlink()
        match = "patches.npz"
    with pytest.raises(BadProfile, match=match):
        load_profile(v)


def test_profile_for_another_die_set_is_refused(tmp_path, seasons_profile):
    profile, _ = seasons_profile
    v = save_profile(profile, tmp_path / "store")
    with pytest.raises(BadProfile, match="test-seasons.*fortunes-and-winds"):
        load_profile(v, die_set="fortunes-and-winds")


def test_missing_profile_is_a_clear_error(tmp_path):
    with pytest.raises(BadProfile, match="no such profile"):
        load_profile(tmp_path / "nowhere")


def test_thresholds_live_in_the_profile(tmp_path, seasons_profile):
    """A profile reads with the thresholds it was saved with; older manifests that carry only
    the calibrated two load with defaults for the rest; unknown or non-numeric ones refuse."""
    profile, _ = seasons_profile
    v = save_profile(profile, tmp_path / "store")
    m = json.loads((v / "manifest.json").read_text())
    assert m["thresholds"] == profile.thresholds.to_json()
    m["thresholds"]["sure_at_first_look"] = 0.7
    (v / "manifest.json").write_text(json.dumps(m))
    assert load_profile(v).thresholds.sure_at_first_look == 0.7
    m["thresholds"] = {"min_margin": 0.3, "min_score": 0.4}  # a session-1 manifest
    (v / "manifest.json").write_text(json.dumps(m))
    th = load_profile(v).thresholds
    assert (th.min_margin, th.min_score, th.sure_at_first_look) == (0.3, 0.4, 0.6)
    for bad, match in (({"min_margin": 0.3, "min_score": 0.4, "guess": 1}, "unknown thresholds"),
                       ({"min_margin": "high", "min_score": 0.4}, "not a finite number"),
                       ({"min_score": 0.4}, "min_margin")):
        m["thresholds"] = bad
        (v / "manifest.json").write_text(json.dumps(m))
        with pytest.raises(BadProfile, match=match):
            load_profile(v)


def test_the_die_rim_is_stored_in_the_profile(tmp_path, seasons_profile):
    """Calibration measures how far a die's edge lies inside its blob (geometry.rim_px); a
    profile from before has none and fits faces as before; a rim that is no px count under
    the face's side is refused."""
    profile, _ = seasons_profile
    rim = profile.geometry.rim_px
    assert rim is not None and 0.0 <= rim < 0.12 * profile.geometry.side_px
    v = save_profile(profile, tmp_path / "store")
    m = json.loads((v / "manifest.json").read_text())
    assert m["geometry"]["rim_px"] == rim and load_profile(v).geometry.rim_px == rim
    del m["geometry"]["rim_px"]
    (v / "manifest.json").write_text(json.dumps(m))
    assert load_profile(v).geometry.rim_px is None
    for bad in (-1.0, "wide", 1e9):
        m["geometry"]["rim_px"] = bad
        (v / "manifest.json").write_text(json.dumps(m))
        with pytest.raises(BadProfile, match="corrupt profile"):
            load_profile(v)


def test_the_learned_classifier_is_stored_in_the_profile(tmp_path, seasons_profile):
    profile, _ = seasons_profile
    v = save_profile(profile, tmp_path / "store")
    m = json.loads((v / "manifest.json").read_text())
    assert m["format_version"] == 2 and "classifier.npz" in m["files"]
    back = load_profile(v)
    stored, loaded = profile.classifier(), back.classifier()
    assert back.face_classifier is not None  # read from the profile, not learnt again
    for k, a in stored.to_arrays().items():
        assert np.array_equal(a, loaded.to_arrays()[k]), k
    assert back.thresholds.class_margin == profile.thresholds.class_margin


@pytest.mark.parametrize("damage", ["bytes", "missing", "shape"])
def test_a_damaged_classifier_is_refused_naming_the_file(tmp_path, seasons_profile, damage):
    profile, _ = seasons_profile
    v = save_profile(profile, tmp_path / "store")
    c = v / "classifier.npz"
    if damage == "bytes":
        raw = bytearray(c.read_bytes())
        raw[len(raw) // 2] ^= 0xFF
        c.write_bytes(bytes(raw))
    elif damage == "missing":
        c.unlink()
    else:  # well-formed arrays that do not fit the profile's labels, checksum updated
        arrays = profile.classifier().to_arrays()
        arrays["B"] = arrays["B"][:, :3]
        buf = io.BytesIO()
        np.savez_compressed(buf, **arrays)
        c.write_bytes(buf.getvalue())
        m = json.loads((v / "manifest.json").read_text())
        m["files"]["classifier.npz"] = hashlib.sha256(buf.getvalue()).hexdigest()
        (v / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(BadProfile, match="classifier.npz"):
        load_profile(v)


def test_a_version_1_profile_still_reads_learning_its_classifier(tmp_path, seasons_profile):
    # written before the classifier existed: no classifier.npz; it is learnt from the
    # stored patches when first needed, and reads with the default class margin
    profile, _ = seasons_profile
    v = save_profile(profile, tmp_path / "store")
    (v / "classifier.npz").unlink()
    m = json.loads((v / "manifest.json").read_text())
    m["format_version"] = 1
    del m["files"]["classifier.npz"]
    m["thresholds"] = {"min_margin": 0.25, "min_score": 0.45}
    (v / "manifest.json").write_text(json.dumps(m))
    old = load_profile(v)
    assert old.face_classifier is None
    assert old.classifier().B.shape == (old.classifier().W.shape[1] + 1, len(old.labels) + 1)
