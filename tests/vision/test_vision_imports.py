"""vision/ imports only the stdlib, numpy, cv2 and threadpoolctl (never controller, Pillow,
fonttools…)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

VISION = Path(__file__).resolve().parents[2] / "vision"
# threadpoolctl holds numpy's BLAS to one thread while dice are read (vision/threads.py)
ALLOWED = {"numpy", "cv2", "threadpoolctl", "vision"}
LAZY_ONLY = {"picamera2"}  # the Pi camera, imported inside the source that uses it


def _imports(tree: ast.AST, top_level_only: bool) -> list[str]:
    """Module names imported in a parsed file."""
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    out = []
    for node in nodes:
        if isinstance(node, ast.Import):
            out += [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.append(node.module.split(".")[0])
    return out


def test_vision_modules_import_only_stdlib_numpy_cv2():
    bad = []
    for path in VISION.rglob("*.py"):
        # dev-time tools under artwork/ may import fontTools lazily, inside main()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = set(_imports(tree, True))
        nested = set() if "artwork" in path.parts else set(_imports(tree, False)) - top
        for name in top | nested:
            ok = name in ALLOWED or name in sys.stdlib_module_names
            if not ok and not (name in LAZY_ONLY and name in nested):
                bad.append(f"{path.relative_to(VISION.parent)}: {name}")
    assert not bad, bad
