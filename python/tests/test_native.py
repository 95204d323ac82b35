"""raypick's native API against float64 brute force, on random triangle soups and the bunny."""

import types

import numpy as np
import pytest

import raypick
from brute import (
    ASSETS,
    bunny,
    closest_from_all,
    f32,
    point_triangle_distance,
    random_rays,
    random_soup,
    ray_triangle_all,
)

EDGE = 1e-4  # barycentric distance to an edge below which a hit is an edge case


def meshes():
    rng = np.random.default_rng(7)
    yield "soup", random_soup(rng, 400)
    yield "bunny", bunny()


MESHES = list(meshes())


def check_closest(h, o, d, V, F):
    """Asserts `h` equals brute force away from edges; returns the number of edge rays."""
    allh = ray_triangle_all(f32(o), f32(d), f32(V), F)
    t, tri, edge = closest_from_all(allh, len(o))
    redge = np.minimum(np.minimum(h.uv[:, 0], h.uv[:, 1]), 1 - h.uv.sum(1))
    near = (edge < EDGE) | (h.hit & (redge < EDGE))
    clean = ~near
    assert (h.hit[clean] == np.isfinite(t)[clean]).all()
    both = clean & h.hit
    np.testing.assert_allclose(h.t[both], t[both], rtol=1e-4, atol=1e-6)
    # The triangle: the same, or one the oracle also hits at the same t (a tie).
    pairs = {(r, k): tt for r, k, tt in zip(allh["ray"], allh["triangle"], allh["t"])}
    for r in np.nonzero(both & (h.triangle != tri))[0]:
        tt = pairs.get((r, int(h.triangle[r])))
        assert tt is not None and abs(tt - t[r]) <= 1e-5 * max(1.0, abs(t[r])), r
    # Points and normals agree with the triangle reported.
    hv = h.hit
    fa = f32(V)[F[h.triangle[hv].astype(np.int64)]]
    w = h.uv[hv].astype(np.float64)
    p = (1 - w[:, :1] - w[:, 1:]) * fa[:, 0] + w[:, :1] * fa[:, 1] + w[:, 1:] * fa[:, 2]
    scale = np.abs(V).max()
    np.testing.assert_allclose(h.point[hv], p, atol=1e-4 * scale)
    n = np.cross(fa[:, 1] - fa[:, 0], fa[:, 2] - fa[:, 0])
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    np.testing.assert_allclose(h.normal[hv], n, atol=1e-4)
    front = np.einsum("ij,ij->i", n, f32(d)[hv]) < 0
    assert (h.front_face[hv] == front).mean() > 0.999
    return int(near.sum())


@pytest.mark.parametrize("name,mesh", MESHES, ids=[m[0] for m in MESHES])
def test_closest_hit_equals_brute_force(name, mesh, edge_report):
    V, F = mesh
    rng = np.random.default_rng(1)
    o, d = random_rays(rng, V, 600)
    m = raypick.Mesh(V, F)
    h = m.closest_hit(o, d)
    assert h.t.dtype == np.float32 and h.triangle.dtype == np.uint32
    assert h.point.shape == (600, 3) and h.uv.shape == (600, 2)
    assert h.hit.sum() > 100
    assert np.isinf(h.t[~h.hit]).all() and (h.triangle[~h.hit] == raypick.INVALID_ID).all()
    near = check_closest(h, o, d, V, F)
    edge_report(near, len(o))
    assert near < len(o) // 20


@pytest.mark.parametrize("name,mesh", MESHES, ids=[m[0] for m in MESHES])
def test_any_hit_and_all_hits_equal_brute_force(name, mesh, edge_report):
    V, F = mesh
    rng = np.random.default_rng(2)
    o, d = random_rays(rng, V, 400)
    m = raypick.Mesh(V, F)
    allh = ray_triangle_all(f32(o), f32(d), f32(V), F)
    brute_any = np.bincount(allh["ray"], minlength=len(o)) > 0
    near_rays = np.unique(allh["ray"][allh["edge"] < EDGE])
    a = m.all_hits(o, d)
    edge_rays = np.union1d(near_rays, a.ray[np.minimum(np.minimum(a.uv[:, 0], a.uv[:, 1]), 1 - a.uv.sum(1)) < EDGE])
    clean = np.ones(len(o), dtype=bool)
    clean[edge_rays] = False
    assert (m.any_hit(o, d)[clean] == brute_any[clean]).all()
    # Sorted by ray, then t; one row per hit.
    assert (np.diff(a.ray) >= 0).all()
    same = a.ray[1:] == a.ray[:-1]
    assert (np.diff(a.t)[same] >= 0).all()
    assert a.counts.sum() == len(a.t) and a.counts.dtype == np.int64
    mine = {(int(r), int(t)) for r, t in zip(a.ray, a.triangle) if clean[r]}
    theirs = {(int(r), int(t)) for r, t in zip(allh["ray"], allh["triangle"]) if clean[r]}
    assert mine == theirs
    edge_report(len(edge_rays), len(o))


@pytest.mark.parametrize("name,mesh", MESHES, ids=[m[0] for m in MESHES])
def test_nearest_point_equals_brute_force(name, mesh):
    V, F = mesh
    rng = np.random.default_rng(3)
    lo, hi = V.min(0), V.max(0)
    p = rng.uniform(lo - 0.2 * (hi - lo), hi + 0.2 * (hi - lo), size=(300, 3))
    m = raypick.Mesh(V, F)
    n = m.nearest_point(p)
    want = point_triangle_distance(f32(p), f32(V), F)
    np.testing.assert_allclose(n.distance, want, rtol=1e-5, atol=1e-6 * np.abs(V).max())
    np.testing.assert_allclose(np.linalg.norm(n.point - f32(p), axis=1), n.distance, rtol=1e-4, atol=1e-5)
    assert n.found.all() and n.triangle.dtype == np.uint32
    limited = m.nearest_point(p, max_distance=float(np.median(want)))
    assert (limited.found == (want <= np.median(want) * (1 + 1e-6))).mean() > 0.99
    assert np.isinf(limited.distance[~limited.found]).all()


def test_layouts_dtypes_and_shapes_give_the_same_answer():
    V, F = bunny()
    m = raypick.Mesh(V, F)
    rng = np.random.default_rng(4)
    o, d = random_rays(rng, V, 120)
    ref = m.closest_hit(o.astype(np.float32), d.astype(np.float32))
    rays6 = np.hstack([o, d])
    for h in (
        m.closest_hit(o, d),
        m.closest_hit(np.asfortranarray(o), np.asfortranarray(d)),
        m.closest_hit(rays6),
        m.closest_hit(np.asfortranarray(rays6.astype(np.float32))),
        m.closest_hit(o[::-1][::-1], d),
        m.closest_hit(o.astype(np.float32), d),
        m.closest_hit(o, d.astype(np.float32)),
    ):
        np.testing.assert_array_equal(h.t, ref.t)
        np.testing.assert_array_equal(h.triangle, ref.triangle)
    # A batch of several parallel tasks answers each ray as a batch of that ray alone would.
    ob, db = random_rays(rng, V, 2500)
    whole = m.closest_hit(np.asfortranarray(ob), db, threads=2)
    parts = [m.closest_hit(ob[i : i + 100], db[i : i + 100]) for i in range(0, 2500, 100)]
    np.testing.assert_array_equal(whole.t, np.concatenate([p.t for p in parts]))
    np.testing.assert_array_equal(whole.triangle, np.concatenate([p.triangle for p in parts]))
    np.testing.assert_array_equal(
        m.any_hit(ob, db, threads=2), np.concatenate([m.any_hit(ob[i : i + 100], db[i : i + 100]) for i in range(0, 2500, 100)])
    )
    shaped = m.closest_hit(rays6.reshape(3, 4, 10, 6))
    assert shaped.t.shape == (3, 4, 10) and shaped.point.shape == (3, 4, 10, 3)
    np.testing.assert_array_equal(shaped.t.ravel(), ref.t)
    # Strided views are read in place, in logical order.
    big = np.zeros((120, 9))
    big[:, 1:4], big[:, 5:8] = o, d
    h = m.closest_hit(big[:, 1:4], big[:, 5:8])
    np.testing.assert_array_equal(h.triangle, ref.triangle)
    assert m.any_hit(rays6.reshape(12, 10, 6)).shape == (12, 10)
    a = m.all_hits(rays6.reshape(12, 10, 6))
    assert a.counts.shape == (12, 10)


def test_threads_setting_gives_identical_results():
    V, F = bunny()
    m = raypick.Mesh(V, F)
    o, d = random_rays(np.random.default_rng(5), V, 3000)
    one = m.closest_hit(o, d, threads=1)
    two = m.closest_hit(o, d, threads=2)
    default = m.closest_hit(o, d)
    for h in (two, default):
        np.testing.assert_array_equal(h.t, one.t)
        np.testing.assert_array_equal(h.triangle, one.triangle)
    old = raypick.get_threads()
    try:
        raypick.set_threads(1)
        assert raypick.get_threads() == 1
        np.testing.assert_array_equal(m.all_hits(o, d).triangle, m.all_hits(o, d, threads=2).triangle)
    finally:
        raypick.set_threads(old)


def test_interval_and_culling():
    V = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], dtype=np.float64)
    m = raypick.Mesh(V, [[0, 1, 2]])
    o = np.array([[0.2, 0.2, 1.0]])
    d = np.array([[0, 0, -2.0]])
    h = m.closest_hit(o, d)
    assert h.t[0] == 0.5 and h.front_face[0]  # t in units of the direction given
    assert not m.closest_hit(o, d, t_max=0.4).hit[0]
    assert not m.closest_hit(o, d, cull="front").hit[0]
    assert m.closest_hit(o, d, cull="back").hit[0]
    with pytest.raises(raypick.RaypickError, match="cull"):
        m.closest_hit(o, d, cull="sideways")


def test_scene_instances_under_transforms():
    V, F = bunny()
    m = raypick.Mesh(V, F)
    s = raypick.Scene()
    mid = s.add_mesh(m)
    T = np.eye(4)
    T[:3, :3] = np.diag([2.0, 1.0, 0.5])
    T[:3, 3] = [30.0, 0, 0]
    i0 = s.add_instance(mid)
    i1 = s.add_instance(mid, T)
    assert s.instances == [i0, i1] and len(s) == 2
    np.testing.assert_allclose(s.transform(i1), T)
    # The world mesh: both instances' triangles.
    V1 = V @ T[:3, :3].T + T[:3, 3]
    WV = np.vstack([V, V1])
    WF = np.vstack([F, F + len(V)])
    rng = np.random.default_rng(6)
    o, d = random_rays(rng, WV, 500)
    h = s.closest_hit(o, d)
    allh = ray_triangle_all(f32(o), f32(d), WV, WF)
    t, tri, edge = closest_from_all(allh, len(o))
    clean = edge > EDGE
    assert (h.hit[clean] == np.isfinite(t)[clean]).all()
    hit = clean & h.hit
    np.testing.assert_allclose(h.t[hit], t[hit], rtol=1e-4)
    want_inst = np.where(tri >= len(F), i1, i0)
    assert (h.instance[hit] == want_inst[hit]).mean() > 0.99
    assert (h.triangle[hit] == (tri % len(F))[hit]).mean() > 0.99
    n = s.nearest_point(o[:50])
    np.testing.assert_allclose(n.distance, point_triangle_distance(f32(o[:50]), WV, WF), rtol=1e-4)
    s.remove(i0)
    assert s.instances == [i1]
    assert (s.closest_hit(o, d).instance[s.closest_hit(o, d).hit] == i1).all()


def test_load_every_format(tmp_path):
    V = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], dtype=np.float64)
    obj = tmp_path / "quad.obj"
    obj.write_text("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n")
    ply = tmp_path / "quad.ply"
    ply.write_text(
        "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\n"
        "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n"
        "0 0 0\n1 0 0\n1 1 0\n0 1 0\n4 0 1 2 3\n"
    )
    stl = tmp_path / "quad.stl"
    stl.write_text(
        "solid q\n"
        "facet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 1 1 0\nendloop\nendfacet\n"
        "facet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 1 0\nvertex 0 1 0\nendloop\nendfacet\n"
        "endsolid q\n"
    )
    import base64
    import json

    pos = V.astype(np.float32).tobytes()
    idx = np.array([0, 1, 2, 0, 2, 3], dtype=np.uint16).tobytes()
    buf = pos + idx
    gltf = tmp_path / "quad.gltf"
    gltf.write_text(json.dumps({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0, "translation": [0, 0, 5]}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "buffers": [{"byteLength": len(buf), "uri": "data:application/octet-stream;base64," + base64.b64encode(buf).decode()}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": len(pos)},
            {"buffer": 0, "byteOffset": len(pos), "byteLength": len(idx)},
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0]},
            {"bufferView": 1, "componentType": 5123, "count": 6, "type": "SCALAR"},
        ],
    }))
    ray = np.array([[0.25, 0.75, 10.0, 0, 0, -1]])
    for path, z in ((obj, 0.0), (ply, 0.0), (stl, 0.0), (gltf, 5.0)):
        m = raypick.load(path)
        assert m.triangle_count == 2, path
        h = m.closest_hit(ray)
        assert h.hit[0] and abs(h.point[0, 2] - z) < 1e-6, path
        s = raypick.load_scene(str(path))
        assert s.closest_hit(ray).hit[0], path
    bunny_mesh = raypick.load(ASSETS / "bunny.obj")
    assert bunny_mesh.triangle_count == len(bunny()[1])


def test_empty_mesh_finds_nothing():
    m = raypick.Mesh(np.zeros((0, 3)), np.zeros((0, 3), dtype=np.int64))
    h = m.closest_hit(np.array([[0, 0, 1.0, 0, 0, -1]]))
    assert not h.hit[0] and m.triangle_count == 0
    assert m.all_hits(np.zeros((0, 6))).counts.shape == (0,)


def test_the_gil_is_released_during_a_batch():
    import threading
    import time

    V, F = bunny()
    m = raypick.Mesh(V, F)
    o, d = random_rays(np.random.default_rng(8), V, 400_000)
    window = {}

    def work():
        window["start"] = time.perf_counter()
        m.closest_hit(o, d, threads=1)
        window["end"] = time.perf_counter()

    ticks = []
    t = threading.Thread(target=work)
    t.start()
    while t.is_alive():
        ticks.append(time.perf_counter())
    t.join()
    # Python ran on this thread while the batch ran on the other: impossible with the GIL held.
    # With the GIL held for the batch there would be one gap as long as the batch.
    inside = [x for x in ticks if window["start"] < x < window["end"]]
    marks = [window["start"]] + inside + [window["end"]]
    assert max(np.diff(marks)) < 0.5 * (window["end"] - window["start"])


def test_a_saved_scene_loads_with_the_same_answers(tmp_path):
    v, f = bunny()
    s = raypick.Scene()
    m = s.add_mesh(raypick.Mesh(v, f))
    s.add_instance(m)
    s.add_instance(m, np.diag([2.0, 1.0, -1.0, 1.0]) @ np.eye(4))
    path = tmp_path / "b.rpk"
    s.save(path)
    loaded = raypick.load_scene(path)
    rng = np.random.default_rng(5)
    o = rng.uniform(-10, 10, (500, 3))
    d = rng.uniform(-1, 1, (500, 3))
    rays = np.hstack([o, d])
    a, b = s.closest_hit(rays), loaded.closest_hit(rays)
    assert np.array_equal(a.hit, b.hit) and np.array_equal(a.t, b.t)
    assert np.array_equal(a.instance, b.instance) and np.array_equal(a.triangle, b.triangle)
    bad = tmp_path / "bad.rpk"
    bad.write_bytes(path.read_bytes()[:100])
    with pytest.raises(raypick.RaypickError, match="not a valid saved"):
        raypick.load_scene(bad)


def test_float64_rays_on_a_far_scene_are_exact():
    # A unit square around its own centre, placed at UTM-like coordinates in float64.
    v = np.array([[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0]], dtype=np.float64)
    f = np.array([[0, 1, 2], [0, 2, 3]])
    s = raypick.Scene()
    m = s.add_mesh(raypick.Mesh(v, f))
    far = np.array([5.0e6, 4.0e6, 300.0])
    t = np.eye(4)
    t[:3, 3] = far
    s.add_instance(m, t)
    assert s.transform(0)[0, 3] == 5.0e6 and s.transform(0).dtype == np.float64
    # Origins a few centimetres apart: float32 cannot tell them apart at 5e6.
    k = np.arange(16)
    o = np.stack([far[0] + 0.3 + 0.03 * k, np.full(16, far[1] - 0.2), np.full(16, 310.0)], axis=1)
    d = np.tile([0.0, 0.0, -1.0], (16, 1))
    h = s.closest_hit(o, d)
    assert h.hit.all() and h.point.dtype == np.float64 and h.t.dtype == np.float64
    np.testing.assert_allclose(h.point[:, 0], o[:, 0], rtol=0, atol=1e-6)
    np.testing.assert_allclose(h.point[:, 1], o[:, 1], rtol=0, atol=1e-6)
    np.testing.assert_allclose(h.t, 10.0, rtol=0, atol=1e-5)
    assert s.any_hit(o, d).all()
    a = s.all_hits(o, d)
    assert a.point.dtype == np.float64 and len(a.t) == 16
    np.testing.assert_allclose(a.point[:, 0], o[:, 0], rtol=0, atol=1e-6)
    # float32 rays round the origins to whole half-metres there.
    h32 = s.closest_hit(o.astype(np.float32), d.astype(np.float32))
    assert h32.point.dtype == np.float32
    assert np.abs(h32.point[:, 0].astype(np.float64) - o[:, 0]).max() > 0.01


def image_rays(V, height, width, dtype=np.float32):
    """A pinhole camera's rays through every pixel of a `height` x `width` image of the mesh."""
    lo, hi = V.min(0), V.max(0)
    c, r = (lo + hi) / 2, np.linalg.norm(hi - lo)
    eye = c + r * np.array([0.5, 0.4, 1.0])
    fwd = (c - eye) / np.linalg.norm(c - eye)
    right = np.cross(fwd, [0.0, 1.0, 0.0])
    right /= np.linalg.norm(right)
    up = np.cross(right, fwd)
    y, x = np.mgrid[0:height, 0:width]
    s = 0.5 / max(height, width)
    d = fwd + ((x - width / 2) * s)[..., None] * right + ((height / 2 - y) * s)[..., None] * up
    return np.concatenate([np.broadcast_to(eye, d.shape), d], axis=-1).astype(dtype)


COLUMNS = ("t", "hit", "instance", "triangle", "uv", "point", "normal", "front_face")


def shuffled(n):
    """A permutation of `n` rays and its inverse: a flat batch in this order holds no image
    rows for the native layer to find, so it is cast one ray at a time."""
    perm = np.random.default_rng(n).permutation(n)
    return perm, np.argsort(perm)


def one_at_a_time(target, rays6, **kw):
    """`target.closest_hit` of flat rays cast in a shuffled order, put back in order."""
    perm, inv = shuffled(len(rays6))
    h = target.closest_hit(rays6[perm], **kw)
    return types.SimpleNamespace(**{c: getattr(h, c)[inv] for c in COLUMNS})


def any_one_at_a_time(target, rays6, **kw):
    perm, inv = shuffled(len(rays6))
    return target.any_hit(rays6[perm], **kw)[inv]


@pytest.mark.parametrize("height,width", [(37, 53), (64, 48), (5, 3), (3, 200), (1, 7)])
def test_rays_shaped_as_an_image_give_the_flat_batch_answers(height, width):
    # Image-shaped rays are cast in 4 x 4 tiles (packets); sizes that are no multiple of 4
    # leave rays outside every tile. A flat batch of the same rays in row order is found to
    # be an image's and cast in tiles too. Each ray's answer is the one cast alone.
    V, F = bunny()
    m = raypick.Mesh(V, F)
    rays = image_rays(V, height, width)
    flat = one_at_a_time(m, rays.reshape(-1, 6))
    assert flat.hit.any() and not flat.hit.all()
    for threads in (1, 2):
        img = m.closest_hit(rays, threads=threads)
        rows = m.closest_hit(rays.reshape(-1, 6), threads=threads)
        assert img.t.shape == (height, width) and img.point.shape == (height, width, 3)
        for col in COLUMNS:
            want = getattr(flat, col)
            np.testing.assert_array_equal(getattr(img, col).reshape(want.shape), want, err_msg=col)
            np.testing.assert_array_equal(getattr(rows, col), want, err_msg=col)
        # Any hits, over the whole ray and over a stretch that ends inside the bunny.
        for t_max in (np.inf, float(np.median(flat.t[flat.hit]))):
            any_img = m.any_hit(rays, t_max=t_max, threads=threads)
            assert any_img.shape == (height, width)
            want = any_one_at_a_time(m, rays.reshape(-1, 6), t_max=t_max)
            np.testing.assert_array_equal(any_img.ravel(), want)
            np.testing.assert_array_equal(m.any_hit(rays.reshape(-1, 6), t_max=t_max, threads=threads), want)
    # Origins and directions as two image arrays, and a stack of two images.
    two = m.closest_hit(rays[..., :3], rays[..., 3:])
    np.testing.assert_array_equal(two.triangle.ravel(), flat.triangle)
    stack = m.closest_hit(np.stack([rays, rays[::-1]]))
    np.testing.assert_array_equal(stack.triangle[0].ravel(), flat.triangle)
    np.testing.assert_array_equal(stack.triangle[1], flat.triangle.reshape(height, width)[::-1])


@pytest.mark.parametrize("height,width", [(37, 53), (3, 200)])
def test_first_triangle_kind_is_the_closest_hits_triangle(height, width):
    # The trimesh drop-in's intersects_first asks the native query for the closest hits'
    # triangles alone ("first": int64, -1 for a miss), flat and shaped as an image (tiles).
    V, F = bunny()
    m = raypick.Mesh(V, F)
    rays = image_rays(V, height, width)
    flat = one_at_a_time(m, rays.reshape(-1, 6))
    want = np.where(flat.hit, flat.triangle.astype(np.int64), -1)
    assert (want >= 0).any() and (want == -1).any()
    kw = m._kw(0.0, float("inf"), "none", None, strict=False)
    for r in (rays.reshape(-1, 6), rays):
        got = m._native.rays("first", r, None, kw)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got.ravel(), want)
    o, d = rays.reshape(-1, 6)[:, :3].astype(np.float64), rays.reshape(-1, 6)[:, 3:].astype(np.float64)
    np.testing.assert_array_equal(m._native.rays("first", o, d, kw), want)


def test_image_rays_on_a_scene_give_the_flat_batch_answers():
    V, F = bunny()
    s = raypick.Scene()
    mid = s.add_mesh(raypick.Mesh(V, F))
    s.add_instance(mid)
    T = np.eye(4)
    T[:3, :3] = np.diag([-1.0, 1.0, 1.0])  # mirrored, beside the first
    T[:3, 3] = [0.08, 0.0, 0.0]
    s.add_instance(mid, T)
    for dtype in (np.float32, np.float64):
        rays = image_rays(V, 41, 66, dtype)
        flat = one_at_a_time(s, rays.reshape(-1, 6))
        img = s.closest_hit(rays, threads=2)
        rows = s.closest_hit(rays.reshape(-1, 6))
        assert set(np.unique(flat.instance[flat.hit])) == {0, 1}
        np.testing.assert_array_equal(s.any_hit(rays).ravel(), flat.hit)
        np.testing.assert_array_equal(s.any_hit(rays.reshape(-1, 6)), flat.hit)
        for col in COLUMNS:
            want = getattr(flat, col)
            np.testing.assert_array_equal(getattr(img, col).reshape(want.shape), want, err_msg=col)
            np.testing.assert_array_equal(getattr(rows, col), want, err_msg=col)


def test_a_bad_ray_of_an_image_is_named_by_its_flat_index():
    V, F = bunny()
    m = raypick.Mesh(V, F)
    rays = image_rays(V, 40, 50)
    rays[29, 7, 4] = np.nan
    rays[31, 2, 3:] = 0
    with pytest.raises(raypick.RaypickError, match=f"ray {29 * 50 + 7}: direction"):
        m.closest_hit(rays, threads=2)
    h = m.closest_hit(rays, strict=False)
    assert not h.hit[29, 7] and not h.hit[31, 2] and h.hit.any()
