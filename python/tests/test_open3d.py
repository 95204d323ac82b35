"""raypick.open3d.RaycastingScene: open3d's keys, shapes and dtypes, answers against brute force."""

import numpy as np
import pytest

from brute import bunny, closest_from_all, f32, point_triangle_distance, random_rays, ray_triangle_all
from raypick.open3d import RaycastingScene

INVALID = 4294967295


def box():
    v = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], dtype=np.float32)
    f = np.array(
        [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
         [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]],
        dtype=np.uint32,
    )
    return v, f


@pytest.fixture
def scene():
    s = RaycastingScene()
    V, F = bunny()
    assert s.add_triangles(V.astype(np.float32), F.astype(np.uint32)) == 0
    return s


def test_cast_rays_keys_shapes_dtypes(scene):
    V, _ = bunny()
    o, d = random_rays(np.random.default_rng(21), V, 24)
    rays = np.hstack([o, d]).astype(np.float32).reshape(2, 3, 4, 6)
    ans = scene.cast_rays(rays)
    assert set(ans) == {"t_hit", "geometry_ids", "primitive_ids", "primitive_uvs", "primitive_normals"}
    assert ans["t_hit"].shape == (2, 3, 4) and ans["t_hit"].dtype == np.float32
    assert ans["geometry_ids"].dtype == np.uint32 and ans["primitive_ids"].dtype == np.uint32
    assert ans["primitive_uvs"].shape == (2, 3, 4, 2) and ans["primitive_uvs"].dtype == np.float32
    assert ans["primitive_normals"].shape == (2, 3, 4, 3) and ans["primitive_normals"].dtype == np.float32
    miss = np.isinf(ans["t_hit"])
    assert (ans["geometry_ids"][miss] == INVALID).all() and (ans["primitive_ids"][miss] == INVALID).all()
    assert (ans["primitive_normals"][miss] == 0).all() and (ans["primitive_uvs"][miss] == 0).all()
    assert (ans["geometry_ids"][~miss] == 0).all()
    assert RaycastingScene.INVALID_ID == INVALID


def test_cast_rays_equals_brute_force(scene):
    V, F = bunny()
    o, d = random_rays(np.random.default_rng(22), V, 500)
    rays = np.hstack([o, d]).astype(np.float32)
    ans = scene.cast_rays(rays, nthreads=1)
    t, tri, edge = closest_from_all(ray_triangle_all(f32(o), f32(d), f32(V), F), len(o))
    clean = edge > 1e-4
    np.testing.assert_array_equal(np.isfinite(ans["t_hit"])[clean], np.isfinite(t)[clean])
    hit = clean & np.isfinite(t)
    np.testing.assert_allclose(ans["t_hit"][hit], t[hit], rtol=1e-4)
    assert (ans["primitive_ids"][hit] == tri[hit]).all()


def test_occlusions_counts_and_lists(scene):
    V, F = bunny()
    o, d = random_rays(np.random.default_rng(23), V, 300)
    rays = np.hstack([o, d]).astype(np.float32).reshape(30, 10, 6)
    occ = scene.test_occlusions(rays)
    assert occ.shape == (30, 10) and occ.dtype == bool
    np.testing.assert_array_equal(occ, np.isfinite(scene.cast_rays(rays)["t_hit"]))
    assert not scene.test_occlusions(rays, tfar=1e-6).any()
    counts = scene.count_intersections(rays)
    assert counts.shape == (30, 10) and counts.dtype == np.int32
    allh = ray_triangle_all(f32(o), f32(d), f32(V), F)
    brute = np.bincount(allh["ray"], minlength=len(o))
    edge_rays = np.unique(allh["ray"][allh["edge"] < 1e-4])
    clean = ~np.isin(np.arange(len(o)), edge_rays)
    np.testing.assert_array_equal(counts.ravel()[clean], brute[clean])
    li = scene.list_intersections(rays)
    assert set(li) == {"ray_splits", "ray_ids", "geometry_ids", "primitive_ids", "primitive_uvs", "t_hit"}
    n = counts.sum()
    assert li["ray_splits"].shape == (301,) and li["ray_splits"].dtype == np.uint32
    assert li["ray_splits"][-1] == n and (np.diff(li["ray_splits"].astype(np.int64)) == counts.ravel()).all()
    for k in ("ray_ids", "geometry_ids", "primitive_ids"):
        assert li[k].shape == (n,) and li[k].dtype == np.uint32
    assert li["primitive_uvs"].shape == (n, 2) and li["t_hit"].dtype == np.float32


def test_closest_points_and_distances(scene):
    V, F = bunny()
    rng = np.random.default_rng(24)
    q = rng.uniform(V.min(0) - 1, V.max(0) + 1, size=(5, 40, 3)).astype(np.float32)
    cp = scene.compute_closest_points(q)
    assert set(cp) == {"points", "geometry_ids", "primitive_ids", "primitive_uvs", "primitive_normals"}
    assert cp["points"].shape == (5, 40, 3) and cp["points"].dtype == np.float32
    assert cp["primitive_ids"].shape == (5, 40) and cp["primitive_ids"].dtype == np.uint32
    assert cp["primitive_normals"].shape == (5, 40, 3)
    np.testing.assert_allclose(np.linalg.norm(cp["primitive_normals"], axis=-1), 1, atol=1e-5)
    dist = scene.compute_distance(q)
    assert dist.shape == (5, 40) and dist.dtype == np.float32
    want = point_triangle_distance(f32(q.reshape(-1, 3)), f32(V), F)
    np.testing.assert_allclose(dist.ravel(), want, rtol=1e-5, atol=1e-6)


def test_signed_distance_and_occupancy_on_a_box():
    s = RaycastingScene()
    v, f = box()
    s.add_triangles(v, f)
    rng = np.random.default_rng(25)
    q = rng.uniform(-0.5, 1.5, size=(2000, 3)).astype(np.float32)
    inside = (q > 0).all(1) & (q < 1).all(1)
    margin = np.minimum(np.abs(q), np.abs(q - 1)).min(1) > 1e-4
    sd = s.compute_signed_distance(q)
    assert sd.dtype == np.float32 and sd.shape == (2000,)
    assert (sd[inside & margin] < 0).all() and (sd[~inside & margin] > 0).all()
    np.testing.assert_allclose(np.abs(sd), s.compute_distance(q), rtol=1e-6)
    occ = s.compute_occupancy(q)
    assert occ.dtype == np.float32
    np.testing.assert_array_equal(occ[margin], inside[margin].astype(np.float32))
    with pytest.raises(ValueError, match="nsamples"):
        s.compute_occupancy(q, nsamples=2)


def test_two_geometries_have_their_ids():
    s = RaycastingScene()
    v, f = box()
    assert s.add_triangles(v, f) == 0
    assert s.add_triangles(v + np.float32(5), f) == 1
    rays = np.array([[0.5, 0.5, 10, 0, 0, -1], [5.5, 5.5, 10, 0, 0, -1], [9, 9, 10, 0, 0, -1]], np.float32)
    ans = s.cast_rays(rays)
    np.testing.assert_array_equal(ans["geometry_ids"], [0, 1, INVALID])
    np.testing.assert_allclose(ans["t_hit"][:2], [9, 4])
    np.testing.assert_allclose(ans["primitive_normals"][0], [0, 0, 1], atol=1e-6)


def test_create_rays_pinhole():
    rays = RaycastingScene.create_rays_pinhole(
        fov_deg=90, center=[0, 0, 0], eye=[0, 0, 5], up=[0, 1, 0], width_px=64, height_px=48
    )
    assert rays.shape == (48, 64, 6) and rays.dtype == np.float32
    np.testing.assert_allclose(rays[..., :3], np.broadcast_to([0, 0, 5], (48, 64, 3)), atol=1e-6)
    # Pixel centers straddle the optical axis; the direction's depth component is 1.
    mid = (rays[23, 31, 3:] + rays[24, 32, 3:]) / 2
    np.testing.assert_allclose(mid / np.linalg.norm(mid), [0, 0, -1], atol=1e-6)
    np.testing.assert_allclose(np.abs(rays[0, 0, 3:5]), [31.5 / 32, 23.5 / 32], rtol=1e-5)
    K = np.array([[32.0, 0, 32], [0, 32, 24], [0, 0, 1]])
    T = np.eye(4)
    T[:3, :3] = np.diag([-1.0, 1, -1])  # open3d's look-at from (0, 0, 5) to the origin, y up
    T[:3, 3] = [0, 0, 5]
    again = RaycastingScene.create_rays_pinhole(K, T, 64, 48)
    np.testing.assert_allclose(again, rays, atol=1e-5)
    s = RaycastingScene()
    v, f = box()
    s.add_triangles(v - np.float32(0.5), f)
    depth = s.cast_rays(rays)["t_hit"]
    assert np.isfinite(depth[20:28, 28:36]).all() and np.isinf(depth[0, 0])
    np.testing.assert_allclose(depth[24, 32], 4.5, rtol=1e-5)


def test_accepts_float64_and_legacy_meshes():
    class Legacy:
        vertices, triangles = box()

    s = RaycastingScene()
    s.add_triangles(Legacy())
    rays = np.array([[0.5, 0.5, 10, 0, 0, -1]], np.float64)
    assert s.cast_rays(rays)["t_hit"][0] == 9
    with pytest.raises(ValueError, match="rays"):
        s.cast_rays(np.zeros((3, 5)))
    # Bad rays miss rather than raise, as in open3d.
    bad = np.array([[0.5, 0.5, 10, 0, 0, 0], [np.nan, 0, 0, 0, 0, 1]], np.float32)
    assert np.isinf(s.cast_rays(bad)["t_hit"]).all()


@pytest.mark.parametrize("two", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cast_rays_equals_closest_hit(two, dtype):
    # cast_rays builds only open3d's columns ("cast"); they must be closest_hit's, row for
    # row, on one mesh and on a scene (float64 rays on its float64 path), flat and
    # image-shaped (tiles), bad rays included.
    from raypick import Mesh, Scene

    V, F = bunny()
    s = RaycastingScene()
    s.add_triangles(V.astype(np.float32), F.astype(np.uint32))
    target = Mesh(V, F)
    if two:
        s.add_triangles((V + 3).astype(np.float32), F.astype(np.uint32))
        target = Scene()
        target.add_instance(target.add_mesh(Mesh(V, F)))
        target.add_instance(target.add_mesh(Mesh(V + 3, F)))
    o, d = random_rays(np.random.default_rng(24), V, 16 * 36)
    rays = np.hstack([o, d]).astype(dtype)
    rays[5, 3:] = 0
    rays[7, 0] = np.nan
    for shaped in (rays, rays.reshape(16, 36, 6)):
        ans = s.cast_rays(shaped, nthreads=1)
        ref = target.closest_hit(shaped, strict=False, threads=1)
        assert ans["t_hit"].dtype == np.float32 and ans["t_hit"].shape == shaped.shape[:-1]
        np.testing.assert_array_equal(ans["t_hit"], ref.t.astype(np.float32))
        np.testing.assert_array_equal(ans["geometry_ids"], ref.instance)
        np.testing.assert_array_equal(ans["primitive_ids"], ref.triangle)
        np.testing.assert_array_equal(ans["primitive_uvs"], ref.uv)
        np.testing.assert_array_equal(ans["primitive_normals"], ref.normal)
        assert np.isinf(ans["t_hit"].reshape(-1)[[5, 7]]).all()
        assert np.isfinite(ans["t_hit"]).sum() > 100
        if two:
            assert set(np.unique(ans["geometry_ids"])) == {0, 1, INVALID}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_point_queries_keep_open3d_dtypes_on_several_geometries(dtype):
    # Two geometries go through a scene, whose float64 points take its float64 path; open3d's
    # answers stay float32 whatever the points' dtype, and equal the float32 points' answers
    # to float32 rounding.
    V, F = bunny()
    s = RaycastingScene()
    s.add_triangles(V.astype(np.float32), F.astype(np.uint32))
    s.add_triangles((V + 3).astype(np.float32), F.astype(np.uint32))
    rng = np.random.default_rng(25)
    q = rng.uniform(V.min(0) - 1, V.max(0) + 4, size=(4, 50, 3)).astype(dtype)
    q32 = q.astype(np.float32)
    cp, cp32 = s.compute_closest_points(q), s.compute_closest_points(q32)
    assert cp["points"].dtype == np.float32 and cp["points"].shape == (4, 50, 3)
    np.testing.assert_allclose(cp["points"], cp32["points"], atol=1e-5)
    d = s.compute_distance(q)
    assert d.dtype == np.float32 and d.shape == (4, 50)
    np.testing.assert_allclose(d, s.compute_distance(q32), atol=1e-5)
    sd = s.compute_signed_distance(q)
    assert sd.dtype == np.float32 and sd.shape == (4, 50)
    np.testing.assert_allclose(sd, s.compute_signed_distance(q32), atol=1e-5)
    occ = s.compute_occupancy(q)
    assert occ.dtype == np.float32
    np.testing.assert_array_equal(occ, s.compute_occupancy(q32))
