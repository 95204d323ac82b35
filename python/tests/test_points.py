"""Point and segment sets in a Scene: pick with a tolerance in pixels, points near a ray,
the nearest point or segment, the marquee, checked against a numpy brute force in world
space (float64)."""

import numpy as np
import pytest

import raypick

W, H = 640, 480
CAM = dict(eye=[0.5, 1.0, 14.0], target=[0, 0, 0], fov_y_deg=50, aspect=W / H)
# A mirrored non-uniform scale with a translation.
T = np.array([[-1.5, 0, 0, 0.5], [0, 0.75, 0, -0.5], [0, 0, 1, -1.0], [0, 0, 0, 1]], dtype=np.float64)


def world(points, t):
    return points.astype(np.float64) @ t[:3, :3].T + t[:3, 3]


def project(cam, p):
    """Window pixels (y down) and view depth of world points."""
    h = np.c_[p, np.ones(len(p))]
    clip = h @ (cam.projection_matrix @ cam.view_matrix).T
    ndc = clip[:, :3] / clip[:, 3:4]
    x = (ndc[:, 0] + 1) * 0.5 * W
    y = (1 - ndc[:, 1]) * 0.5 * H
    depth = -(h @ cam.view_matrix.T)[:, 2]
    return x, y, depth


@pytest.fixture(scope="module")
def setup():
    rng = np.random.default_rng(7)
    pts = rng.uniform([-3, -2.5, -2], [3, 2.5, 1], size=(400, 3)).astype(np.float32)
    a = rng.uniform([-3, -2.5, -2], [3, 2.5, 1], size=(150, 3)).astype(np.float32)
    b = (a + rng.uniform(-0.6, 0.6, size=a.shape)).astype(np.float32)
    seg_pts = np.stack([a, b], axis=1).reshape(-1, 3)
    segs = np.arange(300).reshape(-1, 2)
    scene = raypick.Scene()
    cloud = raypick.PointSet(pts)
    lines = raypick.SegmentSet(seg_pts, segs)
    ids = {
        "p0": scene.add_points(cloud),
        "p1": scene.add_points(cloud, T),
        "s0": scene.add_segments(lines, T),
    }
    return dict(scene=scene, pts=pts, seg_pts=seg_pts, ids=ids, cam=raypick.Camera.look_at(**CAM))


def test_pick_matches_a_projection_brute_force(setup):
    scene, cam, ids = setup["scene"], setup["cam"], setup["ids"]
    wp = {ids["p0"]: world(setup["pts"], np.eye(4)), ids["p1"]: world(setup["pts"], T)}
    rng = np.random.default_rng(8)
    found = 0
    for _ in range(200):
        # Cursors near a point's projection.
        sid = ids["p0"] if rng.random() < 0.5 else ids["p1"]
        x, y, _ = project(cam, wp[sid][rng.integers(len(setup["pts"]))][None])
        cx, cy = float(x[0] + rng.uniform(-3, 3)), float(y[0] + rng.uniform(-3, 3))
        if not (0 <= cx <= W and 0 <= cy <= H):
            continue
        got = scene.pick(cam, W, H, cx, cy, radius_px=5.0, xray=True)
        best = None
        for s, p in wp.items():
            px, py, depth = project(cam, p)
            d = np.hypot(px - cx, py - cy)
            for i in np.nonzero(d <= 5.0)[0]:
                key = (depth[i], d[i])
                if best is None or key < best[0]:
                    best = (key, s, i)
        # Segments too: sample each densely; skip cursors where a segment is within reach.
        sp = world(setup["seg_pts"], T).reshape(-1, 2, 3)
        u = np.linspace(0, 1, 200)[None, :, None]
        samples = (sp[:, :1] + (sp[:, 1:] - sp[:, :1]) * u).reshape(-1, 3)
        sx, sy, sd = project(cam, samples)
        near_seg = np.hypot(sx - cx, sy - cy) <= 5.2
        if near_seg.any() and (best is None or sd[near_seg].min() < best[0][0] + 1e-3):
            assert got is not None and got["prim"] is not None
            continue
        if best is None:
            assert got is None or got["prim"] is None
            continue
        prim = got["prim"]
        assert prim["kind"] == "point" and (prim["set"], prim["index"]) == (best[1], best[2])
        assert prim["distance_px"] == pytest.approx(best[0][1], abs=1e-4)
        np.testing.assert_allclose(prim["point"], wp[best[1]][best[2]], atol=1e-5)
        found += 1
    assert found > 50


def test_points_near_a_ray_and_nearest_match_brute_force(setup):
    scene, ids = setup["scene"], setup["ids"]
    all_pts = [(ids["p0"], 0, world(setup["pts"], np.eye(4))), (ids["p1"], 0, world(setup["pts"], T))]
    o, d = np.array([-5.0, 0.1, 0.2]), np.array([1.0, 0.05, -0.02])
    r = 0.4
    got = scene.prims_within_ray(o, d, r)
    want = set()
    for s, _, p in all_pts:
        t = np.maximum(((p - o) @ d) / (d @ d), 0)
        dist = np.linalg.norm(o + t[:, None] * d - p, axis=1)
        want |= {(s, i) for i in np.nonzero(dist <= r)[0]}
    got_pts = {(s, i) for s, k, i in zip(got["set"], got["kind"], got["index"]) if k == 0}
    assert got_pts == want and len(want) > 3
    assert np.all(np.diff(got["t"]) >= 0)
    # The nearest point or segment to random points: the brute force's distance over every
    # point and segment in world space.
    q = np.random.default_rng(9).uniform(-4, 4, size=(300, 3)).astype(np.float32)
    q64 = q.astype(np.float64)
    n = scene.nearest_prim(q)
    assert n["found"].all() and n["point"].dtype == np.float64
    dmin = np.full(len(q), np.inf)
    for _, _, p in all_pts:
        dmin = np.minimum(dmin, np.linalg.norm(q64[:, None, :] - p[None], axis=2).min(axis=1))
    ab = world(setup["seg_pts"], T).reshape(-1, 2, 3)
    a, e = ab[:, 0], ab[:, 1] - ab[:, 0]
    u = np.clip(((q64[:, None, :] - a[None]) * e[None]).sum(-1) / (e * e).sum(-1)[None], 0, 1)
    dseg = np.linalg.norm(a[None] + u[..., None] * e[None] - q64[:, None, :], axis=2).min(axis=1)
    np.testing.assert_allclose(n["distance"], np.minimum(dmin, dseg), rtol=1e-9, atol=1e-9)
    assert (n["kind"] == 1).any() and (n["kind"] == 0).any()
    np.testing.assert_allclose(np.linalg.norm(n["point"] - q, axis=1), n["distance"], atol=1e-9)
    far = scene.nearest_prim(np.array([[100.0, 0, 0]]), max_distance=1.0)
    assert not far["found"][0] and far["distance"][0] == np.inf


def test_marquee_lists_the_points_in_the_rectangle(setup):
    scene, cam, ids = setup["scene"], setup["cam"], setup["ids"]
    sel = scene.select_rect(cam, W, H, 100, 80, 400, 300)
    for key, t in (("p0", np.eye(4)), ("p1", T)):
        x, y, _ = project(cam, world(setup["pts"], t))
        inside = (x >= 100) & (x <= 400) & (y >= 80) & (y <= 300)
        edge = np.minimum.reduce([abs(x - 100), abs(x - 400), abs(y - 80), abs(y - 300)]) < 1e-3
        got = np.zeros(len(x), bool)
        got[sel["prims"].get(ids[key], np.array([], np.uint32))] = True
        assert np.array_equal(got[~edge], inside[~edge]) and inside.sum() > 10


def test_bad_input_and_removal(setup):
    with pytest.raises(raypick.RaypickError, match="point 1"):
        raypick.PointSet(np.array([[0, 0, 0], [np.nan, 0, 0]], dtype=np.float32))
    with pytest.raises(raypick.RaypickError, match="segment 0"):
        raypick.SegmentSet(np.zeros((2, 3), np.float32), np.array([[0, 5]]))
    poly = raypick.SegmentSet(np.eye(3, dtype=np.float32), closed=True)
    assert len(poly) == 3
    s = raypick.Scene()
    sid = s.add_segments(poly)
    s.remove_prims(sid)
    with pytest.raises(raypick.RaypickError):
        s.remove_prims(sid)
    assert not s.nearest_prim(np.zeros((1, 3)))["found"][0]
