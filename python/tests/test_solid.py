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
