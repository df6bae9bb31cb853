"""Calibration profiles on disk: versioned folders with a manifest, activation and roll-back.

A profile store is a folder of versions (``v001/``, ``v002/``…), each holding
``manifest.json``, ``patches.npz`` and ``classifier.npz`` (the face classifier learned at
calibration, vision.classifier; a version-1 profile has none and learns it from its patches
when loaded), plus ``ACTIVE.json`` naming the active version and
the activation history. Versions are written to a temporary folder, synced, then renamed,
so a crash never leaves a half-written profile; nothing is written when validation fails.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import io
import json
import os
import re
import shutil
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from vision.classifier import FaceClassifier
from vision.descriptors import GRID, STORE
from vision.dice import PATCH, FeltModel
from vision.errors import BadProfile
from vision.model import Geometry, Profile, Thresholds

FORMAT = "feltbank-vision-profile"
FORMAT_VERSION = 2  # 2: the learned face classifier (classifier.npz); 1 still reads
READS_VERSIONS = (1, 2)
ACTIVE = "ACTIVE.json"
VERSION_RE = re.compile(r"^v(\d{3,})$")


def _fsync_dir(path: Path) -> None:
    """Flush a directory entry to disk (rename durability)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_file(path: Path, data: bytes) -> None:
    """Write and fsync one file."""
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _manifest(profile: Profile, patches_sha: str, classifier_sha: str) -> dict:
    """The manifest of a profile."""
    g = profile.geometry
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "die_set": profile.die_set,
        "labels": profile.labels,
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "felt": profile.felt.to_json(),
        "geometry": {"side_px": g.side_px, "k_side": g.k_side, "nadir": list(g.nadir),
                     "frame": None if g.frame is None else list(g.frame),
                     "lens_k": g.lens_k,
                     "lens_centre": None if g.lens_centre is None else list(g.lens_centre),
                     "side_slope": list(g.side_slope), "rim_px": g.rim_px},
        "thresholds": profile.thresholds.to_json(),
        "descriptor": {"patch": PATCH, "store": STORE, "grid": GRID},
        "camera_controls": profile.camera_controls,
        "report": {k: v for k, v in profile.report.items() if not k.startswith("_")},
        "files": {"patches.npz": patches_sha, "classifier.npz": classifier_sha},
    }


def _versions(store: Path) -> list[str]:
    """Version folder names in a store, oldest first."""
    if not store.is_dir():
        return []
    return sorted((p.name for p in store.iterdir() if p.is_dir() and VERSION_RE.match(p.name)),
                  key=lambda n: int(n[1:]))


def read_active(store: Path) -> dict:
    """The store's activation record: {"active": name|None, "history": [names]}."""
    path = store / ACTIVE
    if not path.exists():
        return {"active": None, "history": []}
    try:
        rec = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(rec, dict) or not isinstance(rec.get("history"), list):
            raise ValueError("not an activation record")
        return rec
    except (ValueError, OSError) as e:
        raise BadProfile(f"{path}: unreadable activation record ({e}); expected JSON "
                         '{"active": "v001", "history": [...]}') from e


def _write_active(store: Path, rec: dict) -> None:
    """Atomically replace the activation record."""
    fd, tmp = tempfile.mkstemp(prefix=".active-", dir=store)
    os.close(fd)
    os.chmod(tmp, 0o644)
    _write_file(Path(tmp), json.dumps(rec, indent=2).encode())
    os.replace(tmp, store / ACTIVE)
    _fsync_dir(store)


def write_version(store: str | os.PathLike, write: Callable[[Path], None]) -> Path:
    """Write the store's next version: `write(folder)` fills a temporary folder, whose files
    are synced before it is renamed vNNN (never a half-written version); nothing is
    activated. BadProfile when `store` is not a folder or its activation record is corrupt."""
    store = Path(store)
    if store.exists() and not store.is_dir():
        raise BadProfile(f"{store}: exists and is not a folder; a profile store is a folder")
    store.mkdir(parents=True, exist_ok=True)
    read_active(store)  # refuse to extend a store whose record is corrupt
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=store))
    try:
        tmp.chmod(0o755)  # mkdtemp makes it private; a profile is ordinary data
        write(tmp)
        for f in tmp.iterdir():
            if f.is_file():
                with open(f, "rb") as fh:
                    os.fsync(fh.fileno())
        _fsync_dir(tmp)
        versions = _versions(store)
        n = int(versions[-1][1:]) + 1 if versions else 1
        final = store / f"v{n:03d}"
        os.rename(tmp, final)
        _fsync_dir(store)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final


def save_profile(profile: Profile, store: str | os.PathLike, activate: bool = False) -> Path:
    """Write a profile as the store's next version (atomically); optionally activate it."""
    buf = io.BytesIO()
    np.savez_compressed(buf, patches=profile.patches, labels=profile.patch_labels)
    data = buf.getvalue()
    buf = io.BytesIO()
    np.savez_compressed(buf, **profile.classifier().to_arrays())
    cdata = buf.getvalue()
    manifest = _manifest(profile, hashlib.sha256(data).hexdigest(),
                         hashlib.sha256(cdata).hexdigest())

    def write(folder: Path) -> None:
        _write_file(folder / "patches.npz", data)
        _write_file(folder / "classifier.npz", cdata)
        _write_file(folder / "manifest.json", json.dumps(manifest, indent=2).encode())

    final = write_version(store, write)
    if activate:
        activate_version(store, final.name)
    return final


def store_versions(store: str | os.PathLike) -> dict:
    """{"active": name|None, "versions": [names, oldest first]} of a store (none yet: empty)."""
    store = Path(store)
    if not store.is_dir():
        return {"active": None, "versions": []}
    return {"active": read_active(store).get("active"), "versions": _versions(store)}


def activate_version(store: str | os.PathLike, name: str,
                     load: Callable[[Path], object] | None = None) -> None:
    """Make a version the active one; it must load cleanly first (`load`, a labelled-dice
    profile by default), else nothing changes."""
    store = Path(store)
    if name not in _versions(store):
        raise BadProfile(f"{store}: no version {name!r}; the versions are "
                         + (", ".join(_versions(store)) or "none yet"))
    (load or load_profile)(store / name)
    rec = read_active(store)
    hist = [h for h in rec["history"] if h != name] + [name]
    _write_active(store, {"active": name, "history": hist})


def rollback(store: str | os.PathLike, load: Callable[[Path], object] | None = None) -> str:
    """Re-activate the version active before the current one (it must load: `load`, a
    labelled-dice profile by default); returns its name."""
    store = Path(store)
    rec = read_active(store)
    hist = [h for h in rec["history"] if (store / h).is_dir()]
    if len(hist) < 2:
        raise BadProfile(f"{store / ACTIVE}: no earlier active profile to roll back to")
    prev = hist[-2]
    (load or load_profile)(store / prev)
    _write_active(store, {"active": prev, "history": hist[:-1]})
    return prev


def resolve(path: str | os.PathLike) -> Path:
    """The version folder a path means: itself, or the store's active (else newest) version."""
    path = Path(path)
    if (path / "manifest.json").exists():
        return path
    if not path.is_dir():
        raise BadProfile(f"{path}: no such profile; give a profile folder (with manifest.json) "
                         "or a profile store made by `feltbank calibrate --out`")
    rec = read_active(path)
    if rec.get("active"):
        return path / rec["active"]
    versions = _versions(path)
    if not versions:
        raise BadProfile(f"{path}: holds no profile versions (v001/…) and no manifest.json")
    return path / versions[-1]


def _checked_file(path: Path, manifest: dict) -> bytes:
    """The bytes of a profile's file, checked against the manifest's checksum of it."""
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise BadProfile(f"{path}: missing ({e})") from e
    if hashlib.sha256(raw).hexdigest() != manifest.get("files", {}).get(path.name):
        raise BadProfile(f"{path}: checksum does not match the manifest (corrupt or edited)")
    return raw


def load_profile(path: str | os.PathLike, die_set: str | None = None) -> Profile:
    """Load and validate a profile (a version folder or a store); BadProfile names the file."""
    folder = resolve(path)
    mpath = folder / "manifest.json"
    try:
        m = json.loads(mpath.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise BadProfile(f"{mpath}: unreadable manifest ({e})") from e
    if not isinstance(m, dict) or m.get("format") != FORMAT:
        raise BadProfile(f"{mpath}: not a feltbank vision profile (format {FORMAT!r} expected)")
    version = m.get("format_version")
    if version not in READS_VERSIONS:
        raise BadProfile(f"{mpath}: profile format version {version!r}; this feltbank reads "
                         f"versions {', '.join(map(str, READS_VERSIONS))}; recalibrate")
    if die_set is not None and m.get("die_set") != die_set:
        raise BadProfile(f"{mpath}: profile is for die set {m.get('die_set')!r}, not {die_set!r}")
    desc = m.get("descriptor", {})
    if desc != {"patch": PATCH, "store": STORE, "grid": GRID}:
        raise BadProfile(f"{mpath}: made for another recognizer (descriptor {desc}); "
                         "recalibrate with this version")
    ppath = folder / "patches.npz"
    raw = _checked_file(ppath, m)
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as z:
            patches, labels = z["patches"], z["labels"]
        labs = list(m["labels"])
        felt = FeltModel.from_json(m["felt"])
        g = m["geometry"]
        frame = g.get("frame")
        lens_c = g.get("lens_centre")  # profiles before the lens was measured: none
        slope = g.get("side_slope") or (0.0, 0.0)
        geometry = Geometry(float(g["side_px"]), float(g["k_side"]),
                            (float(g["nadir"][0]), float(g["nadir"][1])),
                            None if frame is None else (int(frame[0]), int(frame[1])),
                            float(g.get("lens_k", 0.0)),
                            None if lens_c is None else (float(lens_c[0]), float(lens_c[1])),
                            (float(slope[0]), float(slope[1])),
                            None if g.get("rim_px") is None else float(g["rim_px"]))
        if geometry.rim_px is not None and not 0.0 <= geometry.rim_px < geometry.side_px:
            raise ValueError(f"geometry.rim_px {geometry.rim_px!r} is not a px count under "
                             "the face's side")
        th = m["thresholds"]
        if "min_margin" not in th or "min_score" not in th:
            raise KeyError("thresholds.min_margin and thresholds.min_score")
        thresholds = Thresholds.from_json(th)
    except (KeyError, TypeError, ValueError, IndexError, zipfile.BadZipFile, OSError) as e:
        raise BadProfile(f"{folder}: incomplete or corrupt profile ({e!r})") from e
    if (patches.ndim != 4 or patches.shape[1:] != (STORE, STORE, 3) or patches.dtype != np.uint8
            or labels.shape != (len(patches),) or len(labs) < 2
            or labels.min(initial=0) < 0 or labels.max(initial=0) >= len(labs)):
        raise BadProfile(f"{ppath}: patches do not match the manifest's labels")
    classifier = None
    if version >= 2:
        cpath = folder / "classifier.npz"
        craw = _checked_file(cpath, m)
        try:
            with np.load(io.BytesIO(craw), allow_pickle=False) as z:
                classifier = FaceClassifier.from_arrays(dict(z), len(labs))
        except (KeyError, ValueError, zipfile.BadZipFile, OSError) as e:
            raise BadProfile(f"{cpath}: not a face classifier for this profile ({e})") from e
    return Profile(m["die_set"], labs, felt, geometry, patches, labels.astype(np.int32),
                   thresholds, m.get("report", {}), m.get("camera_controls"),
                   face_classifier=classifier)
