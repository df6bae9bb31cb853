"""One reading shape for every kind of object the new readers report (pips, cards, ...).

`feltbank recognize --json` prints `{"image", "objects": [...]}` with one object per thing
found; every object has "kind", "label" (null when the reader abstains), "confidence" and
"center", plus the corners of the face or card it read.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ObjectReading:
    """One object as a reader saw it; label None is an abstention (confidence < 0.5)."""

    kind: str
    label: str | None
    confidence: float
    center: tuple[float, float]
    corners: list[list[float]] = field(default_factory=list)
    angle_deg: float = 0.0
    size_px: float = 0.0
    why: str = ""  # why the reader abstained, for people reading the JSON

    def to_json(self) -> dict:
        """The JSON object `feltbank recognize` prints for this object."""
        out = {
            "kind": self.kind,
            "label": self.label,
            "confidence": round(self.confidence, 4),
            "center": [round(self.center[0], 1), round(self.center[1], 1)],
            "corners": [[round(x, 1), round(y, 1)] for x, y in self.corners],
            "angle": round(self.angle_deg, 1),
            "size_px": round(self.size_px, 1),
        }
        if self.label is None and self.why:
            out["why"] = self.why
        return out
