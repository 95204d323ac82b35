"""Winding numbers, inside tests and signed distances against float64 brute force."""

import numpy as np
import pytest

import raypick
from brute import bunny, f32, icosphere, point_triangle_distance, winding_number

MESHES = [("icosphere", icosphere(3)), ("bunny", bunny())]
IDS = [m[0] for m in MESHES]


def points(V, n, seed):
    rng = np.random.default_rng(seed)
    lo, hi = V.min(0), V.max(0)
    return rng.uniform(lo - 0.2 * (hi - lo), hi + 0.2 * (hi - lo), size=(n, 3))


@pytest.mark.parametrize("name,mesh", MESHES, ids=IDS)
def test_winding_number_equals_brute_force(name, mesh):
    V, F = mesh
    p = points(V, 400, 31)
    m = raypick.Mesh(V, F)
    w = m.winding_number(p)
    assert w.dtype == np.float32 and w.shape == (400,)
    want = winding_number(f32(p), f32(V), F)
    np.testing.assert_allclose(w, want, atol=2e-3)


@pytest.mark.parametrize("name,mesh", MESHES, ids=IDS)
def test_contains_and_signed_distance(name, mesh, edge_report):
    V, F = mesh
    p = points(V, 400, 32).reshape(20, 20, 3)
    m = raypick.Mesh(V, F)
    inside = m.contains(p)
    assert inside.shape == (20, 20) and inside.dtype == bool
    w = winding_number(f32(p.reshape(-1, 3)), f32(V), F)
    clear = np.abs(w - 0.5) > 0.05  # away from open boundaries' half-values
    np.testing.assert_array_equal(inside.ravel()[clear], (w >= 0.5)[clear])
    edge_report(int((~clear).sum()), len(w), "points with winding number near 0.5")
    if name == "icosphere":
        # Closed: the winding number is 0 or 1, and agrees with exact crossing parity.
        assert clear.all()
        direction = np.broadcast_to([0.43, 0.61, 0.65], p.shape)
        parity = m.all_hits(p, direction).counts % 2 == 1
        np.testing.assert_array_equal(inside, parity)
    s = m.signed_distance(p)
    assert s.distance.shape == (20, 20) and s.point.shape == (20, 20, 3)
    d = point_triangle_distance(f32(p.reshape(-1, 3)), f32(V), F).reshape(20, 20)
    np.testing.assert_allclose(np.abs(s.distance), d, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(s.distance < 0, inside & (d > 0))
    # The side decision's winding number: 3e-2 (a coarser sum decides within 0.35 of 0.5),
    # 0.105 farther out (the cheapest sum decides there).
    sw = s.winding_number.ravel()
    tol = np.where(np.abs(sw - 0.5) > 0.35, 0.105, 3e-2)
    assert (np.abs(sw - w) <= tol).all(), np.abs(sw - w).max()


def test_solid_errors_and_strict():
    m = raypick.Mesh(*icosphere(1))
    bad = np.array([[0, 0, 0], [np.nan, 0, 0]])
    with pytest.raises(raypick.RaypickError, match="point 1 is not finite"):
        m.contains(bad)
    np.testing.assert_array_equal(m.contains(bad, strict=False), [True, False])
    assert np.isnan(m.signed_distance(bad, strict=False).distance[1])
    assert m.signed_distance(bad, strict=False).distance[0] < 0


def _rotation(ax, ay, az):
    cx, sx, cy, sy, cz, sz = np.cos(ax), np.sin(ax), np.cos(ay), np.sin(ay), np.cos(az), np.sin(az)
    rx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    return rz @ ry @ rx


def test_scene_solid_queries_equal_brute_force_over_world_triangles(edge_report):
    # Three instances: the bunny (open: holes) as is, an icosphere under a similarity and one
    # under a mirroring non-uniform scale. The oracle sums float64 solid angles over the
    # world triangles (a mirrored instance's turned round: the scene places its solid), and
    # takes the world distance over all of them.
    (bv, bf), (iv, i_f) = bunny(), icosphere(2)
    sim = np.eye(4)
    sim[:3, :3] = 2.5 * _rotation(0.3, -0.7, 1.1)
    sim[:3, 3] = [8.0, 3.0, 1.0]
    mirror = np.eye(4)
    mirror[:3, :3] = np.diag([-1.5, 0.7, 1.2])
    mirror[:3, 3] = [-7.0, 4.0, -1.0]
    scene = raypick.Scene()
    scene.add_instance(scene.add_mesh(raypick.Mesh(bv, bf)))
    ico = scene.add_mesh(raypick.Mesh(iv, i_f))
    scene.add_instance(ico, sim)
    scene.add_instance(ico, mirror)

    def world(v, t):
        return f32(v) @ t[:3, :3].T + t[:3, 3]

    V = np.vstack([f32(bv), world(iv, sim), world(iv, mirror)])
    n0, n1 = len(bv), len(bv) + len(iv)
    F = np.vstack([bf, i_f + n0, i_f[:, ::-1] + n1])
    # Uniform in the world box, and 100 points inside and 100 outside each icosphere
    # instance (object points at radius 0.1-0.9 and 1.1-1.5, placed).
    rng = np.random.default_rng(34)
    shell = rng.normal(size=(400, 3))
    shell *= (np.r_[rng.uniform(0.1, 0.9, 200), rng.uniform(1.1, 1.5, 200)] / np.linalg.norm(shell, axis=1))[:, None]
    placed = np.vstack([shell[k::2] @ t[:3, :3].T + t[:3, 3] for k, t in enumerate((sim, mirror))])
    flat = np.vstack([points(V, 200, 33), placed])
    p = flat.reshape(30, 20, 3)

    w = scene.winding_number(p)
    assert w.shape == (30, 20) and w.dtype == np.float32
    want = winding_number(f32(flat), V, F)
    np.testing.assert_allclose(w.ravel(), want, atol=3e-3)
    # Each closed icosphere adds exactly 1 inside itself, the mirrored one too.
    inner = np.r_[200:300, 400:500]
    np.testing.assert_allclose(w.ravel()[inner], 1, atol=3e-3)
    assert scene.contains(placed[[0, 200]]).all()

    inside = scene.contains(p)
    assert inside.shape == (30, 20) and inside.dtype == bool
    clear = np.abs(want - 0.5) > 0.05
    np.testing.assert_array_equal(inside.ravel()[clear], (want >= 0.5)[clear])
    edge_report(int((~clear).sum()), len(want), "points with winding number near 0.5")

    s = scene.signed_distance(p)
    assert s.distance.shape == (30, 20) and s.instance.shape == (30, 20)
    d = point_triangle_distance(f32(flat), V, F)
    np.testing.assert_allclose(np.abs(s.distance.ravel()), d, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal((s.distance < 0).ravel(), inside.ravel() & (d > 0))
    # The nearest point lies on the instance it names, at the reported distance.
    owner = np.searchsorted([n0, n1], F[:, 0], side="right")
    assert set(np.unique(s.instance)) <= {0, 1, 2}
    for k in range(3):
        sel = s.instance.ravel() == k
        np.testing.assert_allclose(
            np.linalg.norm(s.point.reshape(-1, 3)[sel] - flat[sel], axis=1), d[sel], rtol=1e-4, atol=1e-5
        )
        own = point_triangle_distance(f32(flat[sel]), V, F[owner == k])
        np.testing.assert_allclose(own, d[sel], rtol=1e-4, atol=1e-5)
    bad = np.array([[0.0, 0.0, 0.0], [np.nan, 0.0, 0.0]])
    with pytest.raises(raypick.RaypickError, match="point 1 is not finite"):
        scene.contains(bad)
    assert np.isnan(scene.signed_distance(bad, strict=False).distance[1])
    empty = raypick.Scene()
    assert not empty.contains(flat[:3]).any() and (empty.winding_number(flat[:3]) == 0).all()
    assert np.isnan(empty.signed_distance(flat[:3]).distance).all()


def test_float64_points_on_a_far_scene_answer_as_at_the_origin():
    # The bunny (open) as is and an icosphere (closed) under a non-uniform scale, placed once
    # near the origin and once 5e6 away; float64 points take the scene's f64 path, so the far
    # scene answers as the near one does at the same points relative to it.
    (bv, bf), (iv, i_f) = bunny(), icosphere(2)
    stretch = np.eye(4)
    stretch[:3, :3] = np.diag([1.5, 0.7, 1.2])
    stretch[:3, 3] = [3.0, 0.0, 0.0]
    far = np.array([5.0e6 + 0.25, 4.0e6, 300.0])

    def scene_at(offset):
        s = raypick.Scene()
        move = np.eye(4)
        move[:3, 3] = offset
        s.add_instance(s.add_mesh(raypick.Mesh(bv, bf)), move)
        s.add_instance(s.add_mesh(raypick.Mesh(iv, i_f)), move @ stretch)
        return s

    near, away = scene_at(np.zeros(3)), scene_at(far)
    V = np.vstack([f32(bv), f32(iv) @ stretch[:3, :3].T + stretch[:3, 3]])
    x = points(V, 600, 35)
    p = x + far
    assert p.dtype == np.float64

    w0, w = near.winding_number(x), away.winding_number(p)
    assert w.dtype == np.float32
    np.testing.assert_allclose(w, w0, atol=1e-5)
    np.testing.assert_array_equal(away.contains(p), near.contains(x))

    n0, n = near.nearest_point(x), away.nearest_point(p)
    assert n.point.dtype == np.float64 and n.distance.dtype == np.float64
    np.testing.assert_allclose(n.distance, n0.distance, atol=1e-5)
    np.testing.assert_allclose(n.point - far, n0.point, atol=1e-5)
    np.testing.assert_array_equal(n.instance, n0.instance)

    s0, s = near.signed_distance(x), away.signed_distance(p)
    assert s.distance.dtype == np.float64 and s.point.dtype == np.float64
    np.testing.assert_allclose(s.distance, s0.distance, atol=1e-5)
    np.testing.assert_allclose(s.point - far, s0.point, atol=1e-5)

    # The same points in float32 world coordinates are off by up to a quarter of a unit.
    n32 = away.nearest_point(p.astype(np.float32))
    assert n32.distance.dtype == np.float32
    assert np.abs(n32.distance - n0.distance).max() > 0.05
    # Bad points name themselves, as on the float32 path.
    bad = p.copy()
    bad[7, 1] = np.nan
    with pytest.raises(raypick.RaypickError, match="point 7"):
        away.signed_distance(bad)
    assert np.isnan(away.signed_distance(bad, strict=False).distance[7])
