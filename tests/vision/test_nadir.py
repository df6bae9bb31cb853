"""The camera's nadir from one picture's dice (vision.nadir), on geometry built here: a
pinhole camera at a known tilt over dice at known places; the nadir is where it images the
point of the table straight below it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision.nadir import Line, locate, segment, toward

W, H = 1640, 1232


def _camera(tilt_deg: float, towards_deg: float, f: float, height: float = 600.0,
            pp: tuple[float, float] = (W * 0.53, H * 0.47)):
    """project(points (N, 3) mm) -> image px, and the true nadir: a camera height mm above
    the table's origin, tipped tilt_deg towards towards_deg, principal point at pp."""
    t, a = math.radians(tilt_deg), math.radians(towards_deg)
    axis = np.array([math.cos(a), math.sin(a), 0.0])
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    turn = np.eye(3) + math.sin(t) * k + (1 - math.cos(t)) * (k @ k)
    pp = np.asarray(pp, float)

    def project(pts):
        q = np.stack([pts[:, 0], pts[:, 1], height - pts[:, 2]], 1) @ turn.T
        return pp + f * q[:, :2] / q[:, 2:3]

    return project, project(np.zeros((1, 3)))[0]


def _in_view(project, rng, n, size=16.0):
    """n places on the table seen inside the frame, 100 px from its edges."""
    out = []
    while len(out) < n:
        xy = rng.uniform(-900, 900, 2)
        u = project(np.array([[xy[0], xy[1], size]]))[0]
        if 100 < u[0] < W - 100 and 100 < u[1] < H - 100:
            out.append(xy)
    return out


CAMERAS = [(0.0, 0.0, 0.9), (8.0, 40.0, 1.2), (17.0, 200.0, 0.6), (25.0, 120.0, 1.0),
           (30.0, 300.0, 1.5), (30.0, 75.0, 0.55)]


@pytest.mark.parametrize("tilt, towards, f_share", CAMERAS)
def test_upright_edges_of_three_cubes_meet_at_the_nadir(tilt, towards, f_share):
    """Three 16 mm cubes' four upright edges (10-40 px long), their ends 0.5 px off: the
    nadir within three of its stated spreads (its standard error), which is at most a fifth
    of its distance from the dice."""
    rng = np.random.default_rng(int(tilt * 10 + towards))
    project, truth = _camera(tilt, towards, f_share * W)
    lines = []
    for g, (x, y) in enumerate(_in_view(project, rng, 3)):
        yaw = rng.uniform(0, math.pi / 2)
        for c in range(4):
            a = yaw + c * math.pi / 2
            foot = np.array([x + 8 * math.sqrt(2) * math.cos(a),
                             y + 8 * math.sqrt(2) * math.sin(a), 0.0])
            p0, p1 = project(np.array([foot, foot + [0, 0, 16.0]]))
            lines.append(segment(p0 + rng.normal(0, 0.5, 2), p1 + rng.normal(0, 0.5, 2), g))
    got = locate(lines)
    assert got is not None and got.dice == 3
    err = float(np.hypot(*(np.array(got.point) - truth)))
    dist = float(np.mean([np.hypot(*(np.array(ln.point) - truth)) for ln in lines]))
    assert err <= 3 * got.spread + 5, (err, dist, got)
    assert got.spread <= 0.2 * dist


@pytest.mark.parametrize("tilt, towards, f_share", CAMERAS[1:])
def test_resting_dice_top_to_middle_lines_meet_at_the_nadir(tilt, towards, f_share):
    """Five 20 mm d20s resting on the table: from the top face's centre (20 mm up) to the
    body's middle (10 mm up), both 1 px off; and a sixth die's line drawn wrong (a side face
    taken for its top): the nadir within three of its stated spreads, at most 0.4 of its
    distance (the lines are 3-20 px long), the wrong line left out."""
    rng = np.random.default_rng(int(tilt * 10 + towards) + 1)
    project, truth = _camera(tilt, towards, f_share * W)
    lines = []
    places = _in_view(project, rng, 6)
    for g, (x, y) in enumerate(places[:5]):
        top, mid = project(np.array([[x, y, 20.0], [x, y, 10.0]]))
        lines.append(toward(top + rng.normal(0, 1, 2), mid + rng.normal(0, 1, 2), g))
    x, y = places[5]
    top, mid = project(np.array([[x, y, 20.0], [x, y, 10.0]]))
    d = mid - top
    wrong = top + np.array([-d[1], d[0]])  # a quarter turn off
    lines.append(toward(top, wrong, 5))
    got = locate(lines)
    assert got is not None and got.dice == 5 and 5 not in got.lines
    err = float(np.hypot(*(np.array(got.point) - truth)))
    dist = float(np.mean([np.hypot(*(np.array(ln.point) - truth)) for ln in lines]))
    assert err <= 3 * got.spread + 5, (err, dist, got)
    assert got.spread <= 0.4 * dist


def test_one_die_is_not_enough():
    project, _ = _camera(20.0, 10.0, W)
    lines = []
    for c in range(4):
        foot = np.array([30.0 + 8 * (c % 2), -20.0 + 8 * (c // 2), 0.0])
        p0, p1 = project(np.array([foot, foot + [0, 0, 16.0]]))
        lines.append(segment(p0, p1, 0))
    assert locate(lines) is None


def test_parallel_lines_meet_nowhere():
    lines = [segment((100.0 + 200 * g, 100.0), (100.0 + 200 * g, 160.0), g) for g in range(3)]
    assert locate(lines) is None


def test_a_camera_straight_down_shows_short_lines_and_still_its_nadir():
    """Straight down the nadir is the principal point; dice near it show short lines whose
    directions count for little, dice far out fix it."""
    rng = np.random.default_rng(3)
    project, truth = _camera(0.0, 0.0, 0.9 * W)
    lines = []
    for g, (x, y) in enumerate(_in_view(project, rng, 4)):
        top, mid = project(np.array([[x, y, 20.0], [x, y, 10.0]]))
        lines.append(toward(top + rng.normal(0, 0.5, 2), mid + rng.normal(0, 0.5, 2), g))
    got = locate(lines)
    assert got is not None
    assert np.hypot(*(np.array(got.point) - truth)) < 0.15 * W


def test_signed_lines_meeting_behind_are_refused():
    """Two dice whose lines point away from each other's meeting point (a top face taken on
    the wrong side): no nadir."""
    a = toward((100.0, 100.0), (90.0, 100.0), 0)  # pointing left
    b = toward((300.0, 100.0), (310.0, 110.0), 1)  # pointing right and down
    assert locate([a, b]) is None


def test_bad_lines_are_refused():
    with pytest.raises(ValueError, match="same"):
        segment((1.0, 2.0), (1.0, 2.0), 0)
    with pytest.raises(ValueError, match="same"):
        toward((1.0, 2.0), (1.0, 2.0), 0)
    assert locate([]) is None
    assert locate([Line((0.0, 0.0), (1.0, 0.0), False, 0.01, 0)]) is None


# -- a calibrated table's nadir, from its markers' homography ------------------------------

FELT_MM = (900.0, 600.0)


def _table_geometry(project, rng, noise_px=0.5):
    """The TableGeometry a calibration would find: the felt's corners (centred below the
    camera's view) seen through `project`, each found noise_px off."""
    from vision.geometry import TableGeometry

    w, h = FELT_MM
    corners = np.array([[-w / 2, -h / 2, 0], [w / 2, -h / 2, 0], [w / 2, h / 2, 0],
                        [-w / 2, h / 2, 0]])
    seen = project(corners) + rng.normal(0, noise_px, (4, 2))
    return TableGeometry.from_corners(seen, FELT_MM)


TILTS = [(tilt, towards, f_share) for tilt in (0.0, 3.0, 10.0, 20.0, 35.0)
         for towards, f_share in ((0.0, 0.55), (110.0, 1.0), (250.0, 1.5))]


@pytest.mark.parametrize("tilt, towards, f_share", TILTS)
def test_a_calibrated_tables_nadir_from_its_homography(tilt, towards, f_share):
    """A pinhole camera (principal point at the frame's centre, and known there) tilted 0-35
    degrees any way, its felt's corners found 0.5 px off: the nadir within its stated spread;
    from 10 degrees on the focal length within 5% and the nadir within 70 px (at most 1.5
    frame widths out); straight down, or 3 degrees, the focal length unknown and the nadir
    known within 200 px (straight down it is the principal point)."""
    from vision.nadir import from_homography

    rng = np.random.default_rng(int(tilt * 7 + towards))
    f = f_share * W
    project, truth = _camera(tilt, towards, f, height=700.0 * f / W / 0.8, pp=(W / 2, H / 2))
    got = from_homography(_table_geometry(project, rng), (W, H), pp_share=0.0)
    assert got is not None
    err = float(np.hypot(*(np.array(got.point) - truth)))
    assert err <= got.spread, (err, got)
    if tilt >= 10.0:
        assert got.focal == pytest.approx(f, rel=0.05)
        assert got.spread <= 70.0
    elif tilt <= 3.0:
        assert got.focal is None
        assert got.spread <= 200.0


@pytest.mark.parametrize("tilt, towards, f_share", TILTS)
def test_the_principal_point_unknown_widens_the_spread_only(tilt, towards, f_share):
    """The principal point off the frame's centre (3% and -3% of its sides), not known to
    be anywhere but within PP_SHARE of it: the nadir still within its spread, which is at
    most 0.3 of the frame's longer side and the principal point's box."""
    from vision.nadir import PP_SHARE, from_homography

    rng = np.random.default_rng(int(tilt * 7 + towards) + 1)
    f = f_share * W
    project, truth = _camera(tilt, towards, f, height=700.0 * f / W / 0.8,
                             pp=(W * 0.53, H * 0.47))
    got = from_homography(_table_geometry(project, rng), (W, H))
    assert got is not None
    err = float(np.hypot(*(np.array(got.point) - truth)))
    assert err <= got.spread, (err, got)
    assert got.spread <= 0.3 * W + np.hypot(W, H) * PP_SHARE


def test_a_bare_homography_gives_the_same_nadir():
    """H alone (no felt size): the table seen at the frame's corners stands for the markers."""
    from vision.nadir import from_homography

    project, truth = _camera(20.0, 45.0, W, pp=(W / 2, H / 2))
    geometry = _table_geometry(project, np.random.default_rng(0), noise_px=0.0)
    got = from_homography(geometry.H, (W, H), pp_share=0.0)
    assert got is not None and got.focal == pytest.approx(W, rel=0.02)
    assert np.hypot(*(np.array(got.point) - truth)) <= min(got.spread, 20.0)


def test_a_homography_of_no_camera_is_refused():
    """Not a 3x3 finite matrix, singular, a bad frame: ValueError; a felt seen as a sheared
    parallelogram (no pinhole camera over a flat table shows that): None."""
    from vision.geometry import TableGeometry
    from vision.nadir import from_homography

    with pytest.raises(ValueError, match="3x3"):
        from_homography(np.eye(2), (W, H))
    with pytest.raises(ValueError, match="3x3"):
        from_homography(np.full((3, 3), np.nan), (W, H))
    with pytest.raises(ValueError, match="singular"):
        from_homography(np.ones((3, 3)), (W, H))
    with pytest.raises(ValueError, match="frame size"):
        from_homography(np.eye(3), (0, H))
    sheared = np.array([[300.0, 200.0], [1200.0, 200.0], [1500.0, 900.0], [600.0, 900.0]])
    assert from_homography(TableGeometry.from_corners(sheared, FELT_MM), (W, H)) is None


def test_the_shortest_focal_length_allowed_is_no_longer_than_the_cameras():
    """Tilted 20 degrees, the principal point unknown: the focal length not fixed, but the
    shortest one allowed is at most the camera's own (a reader bounding the line of sight's
    angle from the vertical takes it)."""
    from vision.nadir import from_homography

    for f_share in (0.55, 1.0, 1.5):
        project, _ = _camera(20.0, 60.0, f_share * W, pp=(W / 2, H / 2))
        got = from_homography(_table_geometry(project, np.random.default_rng(2)), (W, H))
        assert got is not None and got.focal_min <= f_share * W * 1.01


@pytest.mark.parametrize("tilt, towards, f_share", TILTS)
def test_the_cameras_a_table_allows_bound_the_line_of_sight(tilt, towards, f_share):
    """The cameras a calibrated table allows (`Nadir.cameras`: each principal point with its
    own focal lengths and nadir) bound how far the line of sight to a point may be from the
    vertical: never below the true angle, and tighter than the nadir's point, spread and
    shortest focal length taken apart (the principal point 3% off and unknown)."""
    import dataclasses

    from vision.d20 import _sight_from_vertical
    from vision.nadir import from_homography

    rng = np.random.default_rng(int(tilt * 7 + towards) + 1)
    f = f_share * W
    pp = np.array([W * 0.53, H * 0.47])
    project, truth = _camera(tilt, towards, f, height=700.0 * f / W / 0.8, pp=tuple(pp))
    got = from_homography(_table_geometry(project, rng), (W, H), pp_share=0.03)
    assert got.cameras
    apart = dataclasses.replace(got, cameras=())
    for p in ((100.0, 100.0), (W / 2, H / 2), (W - 150.0, 300.0), (800.0, H - 100.0)):
        ray_p = np.array([p[0] - pp[0], p[1] - pp[1], f])
        ray_n = np.array([truth[0] - pp[0], truth[1] - pp[1], f])
        true = math.degrees(math.acos(ray_p @ ray_n / np.linalg.norm(ray_p)
                                      / np.linalg.norm(ray_n)))
        bound = _sight_from_vertical(p, got, (W, H))
        assert true <= bound + 1e-6 <= _sight_from_vertical(p, apart, (W, H)) + 1e-6
    middle = (W / 2, H / 2)
    assert _sight_from_vertical(middle, got, (W, H)) < _sight_from_vertical(middle, apart, (W, H))
