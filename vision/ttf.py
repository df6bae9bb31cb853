"""Text drawn from the system's TrueType fonts with the stdlib only (the photo-like judge's
lettering: numbers on the d20 and numeral dice, card indices).

vision/ may import only numpy and cv2 (tests/vision/test_vision_imports.py), so Pillow's
ImageFont is not available here; this reads a .ttf's `glyf` outlines itself (cmap format 4,
simple and composite glyphs, quadratic curves flattened) and fills them with cv2.fillPoly.
Fonts are looked for where Debian puts them (fonts-dejavu, fonts-liberation); nothing is
downloaded.
"""

from __future__ import annotations

import struct
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from vision.errors import VisionError

FONT_DIRS = (Path("/usr/share/fonts/truetype"), Path("/usr/local/share/fonts"))


class NoFont(VisionError):
    """No TrueType font of the name asked for is installed."""


@cache
def installed_fonts() -> tuple[Path, ...]:
    """Every .ttf under the system font folders, sorted by path."""
    out: list[Path] = []
    for d in FONT_DIRS:
        if d.is_dir():
            out += sorted(d.rglob("*.ttf"))
    return tuple(out)


def find_font(name: str) -> Path:
    """The installed font whose file name is `name` (e.g. "DejaVuSans-Bold.ttf")."""
    for p in installed_fonts():
        if p.name == name:
            return p
    raise NoFont(f"font {name} is not installed (looked under "
                 f"{', '.join(map(str, FONT_DIRS))}); install fonts-dejavu / fonts-liberation")


class Font:
    """One TrueType font's outlines."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.data = data = self.path.read_bytes()
        n = struct.unpack(">H", data[4:6])[0]
        self.tables = {}
        for i in range(n):
            tag, _, off, ln = struct.unpack(">4sIII", data[12 + 16 * i: 28 + 16 * i])
            self.tables[tag.decode("latin-1")] = (off, ln)
        for need in ("head", "loca", "glyf", "cmap", "hhea", "hmtx", "maxp"):
            if need not in self.tables:
                raise NoFont(f"{path}: not a TrueType outline font (no {need} table)")
        head = self.tables["head"][0]
        self.units = struct.unpack(">H", data[head + 18: head + 20])[0]
        long_loca = struct.unpack(">h", data[head + 50: head + 52])[0] == 1
        self.n_glyphs = struct.unpack(">H", data[self.tables["maxp"][0] + 4:][:2])[0]
        lo = self.tables["loca"][0]
        if long_loca:
            self.loca = np.frombuffer(data, ">u4", self.n_glyphs + 1, lo).astype(np.int64)
        else:
            self.loca = np.frombuffer(data, ">u2", self.n_glyphs + 1, lo).astype(np.int64) * 2
        n_hm = struct.unpack(">H", data[self.tables["hhea"][0] + 34:][:2])[0]
        self.advances = np.frombuffer(data, ">u2", n_hm * 2, self.tables["hmtx"][0])[0::2]
        self.cmap = self._cmap()

    def _cmap(self) -> dict[int, int]:
        data = self.data
        base = self.tables["cmap"][0]
        n = struct.unpack(">H", data[base + 2: base + 4])[0]
        for i in range(n):
            plat, enc, off = struct.unpack(">HHI", data[base + 4 + 8 * i: base + 12 + 8 * i])
            sub = base + off
            if (plat, enc) in ((3, 1), (0, 3)) and struct.unpack(">H", data[sub:sub + 2])[0] == 4:
                return self._format4(sub)
        raise NoFont(f"{self.path}: no Unicode (format 4) character map")

    def _format4(self, sub: int) -> dict[int, int]:
        data = self.data
        seg = struct.unpack(">H", data[sub + 6: sub + 8])[0] // 2
        end = np.frombuffer(data, ">u2", seg, sub + 14)
        start = np.frombuffer(data, ">u2", seg, sub + 16 + 2 * seg)
        delta = np.frombuffer(data, ">i2", seg, sub + 16 + 4 * seg)
        ro_at = sub + 16 + 6 * seg
        ro = np.frombuffer(data, ">u2", seg, ro_at)
        out = {}
        for i in range(seg):
            for c in range(int(start[i]), min(int(end[i]), 0xFFFE) + 1):
                if ro[i] == 0:
                    g = (c + int(delta[i])) & 0xFFFF
                else:
                    at = ro_at + 2 * i + int(ro[i]) + 2 * (c - int(start[i]))
                    g = struct.unpack(">H", data[at: at + 2])[0]
                    g = (g + int(delta[i])) & 0xFFFF if g else 0
                if g:
                    out[c] = g
        return out

    def advance(self, gid: int) -> int:
        """A glyph's advance width in font units."""
        return int(self.advances[min(gid, len(self.advances) - 1)])

    @cache  # noqa: B019 (fonts are few and live as long as the process)
    def contours(self, gid: int) -> tuple[np.ndarray, ...]:
        """A glyph's closed outlines as polylines in font units (y up)."""
        data = self.data
        start = self.tables["glyf"][0] + int(self.loca[gid])
        if self.loca[gid + 1] == self.loca[gid]:
            return ()
        nc = struct.unpack(">h", data[start: start + 2])[0]
        p = start + 10
        if nc < 0:
            return self._composite(p)
        ends = np.frombuffer(data, ">u2", nc, p)
        p += 2 * nc
        n_pts = int(ends[-1]) + 1
        p += 2 + struct.unpack(">H", data[p: p + 2])[0]
        flags = []
        while len(flags) < n_pts:
            f = data[p]
            p += 1
            flags.append(f)
            if f & 8:
                flags += [f] * data[p]
                p += 1
        xs, p = self._coords(flags, p, 2, 16)
        ys, p = self._coords(flags, p, 4, 32)
        on = np.array([f & 1 for f in flags], bool)
        pts = np.stack([xs, ys], 1).astype(np.float64)
        out, s = [], 0
        for e in ends:
            out.append(_flatten(pts[s: int(e) + 1], on[s: int(e) + 1]))
            s = int(e) + 1
        return tuple(out)

    def _coords(self, flags: list[int], p: int, short: int, same: int) -> tuple[np.ndarray, int]:
        data = self.data
        v, out = 0, []
        for f in flags:
            if f & short:
                d = data[p]
                p += 1
                v += d if f & same else -d
            elif not f & same:
                v += struct.unpack(">h", data[p: p + 2])[0]
                p += 2
            out.append(v)
        return np.array(out), p

    def _composite(self, p: int) -> tuple[np.ndarray, ...]:
        data = self.data
        out: list[np.ndarray] = []
        while True:
            flags, gid = struct.unpack(">HH", data[p: p + 4])
            p += 4
            if flags & 1:
                dx, dy = struct.unpack(">hh", data[p: p + 4])
                p += 4
            else:
                dx, dy = struct.unpack(">bb", data[p: p + 2])
                p += 2
            m = np.eye(2)
            if flags & 8:
                m *= struct.unpack(">h", data[p: p + 2])[0] / 16384
                p += 2
            elif flags & 0x40:
                sx, sy = struct.unpack(">hh", data[p: p + 4])
                m = np.diag([sx / 16384, sy / 16384])
                p += 4
            elif flags & 0x80:
                a, b, c, d = struct.unpack(">hhhh", data[p: p + 8])
                m = np.array([[a, c], [b, d]]) / 16384
                p += 8
            off = np.array([dx, dy], float) if flags & 2 else np.zeros(2)
            out += [c @ m.T + off for c in self.contours(gid)]
            if not flags & 0x20:
                return tuple(out)


def _flatten(pts: np.ndarray, on: np.ndarray, steps: int = 6) -> np.ndarray:
    """A closed TrueType contour (quadratic B-spline) as a polyline."""
    n = len(pts)
    if not on.any():  # all off-curve: start at the midpoint of the first two
        pts = np.vstack([(pts[0] + pts[1]) / 2, pts])
        on = np.concatenate([[True], on])
        n += 1
    k = int(np.argmax(on))
    pts, on = np.roll(pts, -k, 0), np.roll(on, -k)
    out = [pts[0]]
    i = 0
    t = np.linspace(0, 1, steps + 1)[1:, None]
    while i < n:
        a = pts[i]
        b, c = pts[(i + 1) % n], (i + 1) % n
        if on[c]:
            out.append(b)
            i += 1
            continue
        nxt = pts[(i + 2) % n]
        end = nxt if on[(i + 2) % n] else (b + nxt) / 2
        out += list((1 - t) ** 2 * a + 2 * (1 - t) * t * b + t ** 2 * end)
        if on[(i + 2) % n]:
            i += 2
        else:  # an implied on-curve point between two off-curve points
            pts = pts.copy()
            pts[(i + 1) % n] = end
            on = on.copy()
            on[(i + 1) % n] = True
            i += 1
    return np.array(out)


@cache
def font(name: str) -> Font:
    """An installed font by file name, loaded once."""
    return Font(find_font(name))


def text_mask(text: str, font_name: str, height_px: int) -> np.ndarray:
    """`text` in one line, cap height about height_px: a float32 mask 0..1 cropped to the ink
    (anti-aliased by 4x supersampling)."""
    f = font(font_name)
    ss = 4
    scale = height_px * ss / (0.72 * f.units)
    polys, x = [], 0.0
    for ch in text:
        gid = f.cmap.get(ord(ch))
        if gid is None:
            raise NoFont(f"{font_name} has no glyph for {ch!r}")
        for c in f.contours(gid):
            polys.append(np.stack([(c[:, 0] + x) * scale, -c[:, 1] * scale], 1))
        x += f.advance(gid)
    if not polys:
        raise NoFont(f"nothing to draw for {text!r}")
    allp = np.vstack(polys)
    lo = np.floor(allp.min(0)) - 2 * ss
    hi = np.ceil(allp.max(0)) + 2 * ss
    w, h = (hi - lo).astype(int)
    canvas = np.zeros((h, w), np.uint8)
    cv2.fillPoly(canvas, [np.round((p - lo) * 16).astype(np.int32) for p in polys], 255,
                 cv2.LINE_8, shift=4)
    small = cv2.resize(canvas, (max(1, w // ss), max(1, h // ss)), interpolation=cv2.INTER_AREA)
    ys, xs = np.nonzero(small > 8)
    small = small[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1]
    return small.astype(np.float32) / 255.0
