"""Bad input raises an exception that names the bad element; nothing crashes."""

import numpy as np
import pytest

import raypick

V = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], dtype=np.float64)
F = np.array([[0, 1, 2]])


@pytest.fixture
def mesh():
    return raypick.Mesh(V, F)


def test_face_index_out_of_range_names_the_face():
    with pytest.raises(raypick.RaypickError, match="triangle 1: vertex index 7"):
        raypick.Mesh(V, [[0, 1, 2], [0, 7, 1]])
    with pytest.raises(raypick.RaypickError, match="face 0: vertex index -1"):
        raypick.Mesh(V, [[0, -1, 2]])


def test_nan_vertex_names_the_vertex():
    bad = V.copy()
    bad[2, 1] = np.nan
    with pytest.raises(raypick.RaypickError, match="vertex 2 is not finite"):
        raypick.Mesh(bad, F)


def test_wrong_shapes_and_dtypes():
    with pytest.raises(raypick.RaypickError, match=r"\(\.\.\., 3\)"):
        raypick.Mesh(np.zeros((3, 2)), F)
    with pytest.raises(raypick.RaypickError, match=r"\(M, 3\)"):
        raypick.Mesh(V, [0, 1, 2])
    with pytest.raises(raypick.RaypickError, match="integers"):
        raypick.Mesh(V, F.astype(np.float64))
    with pytest.raises(raypick.RaypickError, match="dtype"):
        raypick.Mesh(np.array([["a", "b", "c"]] * 3), F)


def test_bad_rays_name_the_ray(mesh):
    o = np.zeros((5, 3))
    d = np.tile([0.0, 0, 1], (5, 1))
    d[3] = 0
    with pytest.raises(raypick.RaypickError, match="ray 3: direction is zero"):
        mesh.closest_hit(o, d)
    d[3] = [0, 0, 1]
    o[4, 0] = np.nan
    with pytest.raises(raypick.RaypickError, match="ray 4: origin"):
        mesh.any_hit(o, d)
    o[4, 0] = 0
    d[1, 2] = np.inf
    with pytest.raises(raypick.RaypickError, match="ray 1: direction"):
        mesh.all_hits(o, d)
    d[1, 2] = 1e300  # beyond float32
    with pytest.raises(raypick.RaypickError, match="ray 1"):
        mesh.closest_hit(o, d)
    with pytest.raises(raypick.RaypickError, match=r"\(\.\.\., 6\)"):
        mesh.closest_hit(np.zeros((4, 5)))
    with pytest.raises(raypick.RaypickError, match="same shape"):
        mesh.closest_hit(np.zeros((4, 3)), np.ones((5, 3)))


def test_the_first_bad_ray_of_a_large_batch_is_named(mesh):
    # The batch runs in parallel tasks of a thousand rays or so: whichever task fails first,
    # the error names the lowest bad ray.
    o = np.zeros((5000, 3))
    d = np.tile([0.0, 0, 1], (5000, 1))
    d[4100] = 0
    d[1500, 0] = np.nan
    for query in (mesh.closest_hit, mesh.any_hit, mesh.all_hits):
        with pytest.raises(raypick.RaypickError, match="ray 1500: direction"):
            query(o, d, threads=2)


def test_bad_points_name_the_point(mesh):
    p = np.zeros((4, 3))
    p[2, 2] = np.nan
    with pytest.raises(raypick.RaypickError, match="point 2 is not finite"):
        mesh.nearest_point(p)


def test_missing_and_bad_files(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.obj"):
        raypick.load(tmp_path / "nope.obj")
    bad = tmp_path / "bad.obj"
    bad.write_text("v 0 0 0\nf 1 2 3\n")
    with pytest.raises(raypick.RaypickError, match="line 2"):
        raypick.load(bad)
    other = tmp_path / "x.xyz"
    other.write_text("")
    with pytest.raises(raypick.RaypickError, match="xyz"):
        raypick.load(other)


def test_bad_transforms_and_ids():
    s = raypick.Scene()
    mid = s.add_mesh(raypick.Mesh(V, F))
    with pytest.raises(raypick.RaypickError, match="not finite"):
        s.add_instance(mid, np.full((4, 4), np.nan))
    with pytest.raises(raypick.RaypickError, match=r"\(4, 4\)"):
        s.add_instance(mid, np.eye(3))
    with pytest.raises(raypick.RaypickError, match="mesh 5 does not exist"):
        s.add_instance(5)
    with pytest.raises(raypick.RaypickError, match="instance 9"):
        s.remove(9)
    with pytest.raises(raypick.RaypickError):
        s.add_instance(mid, np.zeros((4, 4)))  # singular


def test_exceptions_are_value_errors():
    assert issubclass(raypick.RaypickError, ValueError)


def test_strict_false_turns_bad_rays_and_points_into_misses(mesh):
    o = np.array([[0.2, 0.2, 1.0], [0.2, 0.2, 1.0], [np.nan, 0, 1]])
    d = np.array([[0, 0, -1.0], [0, 0, 0], [0, 0, -1]])
    h = mesh.closest_hit(o, d, strict=False)
    np.testing.assert_array_equal(h.hit, [True, False, False])
    np.testing.assert_array_equal(mesh.any_hit(o, d, strict=False), [True, False, False])
    np.testing.assert_array_equal(mesh.all_hits(o, d, strict=False).counts, [1, 0, 0])
    n = mesh.nearest_point(np.array([[0, 0, 1.0], [np.inf, 0, 0]]), strict=False)
    np.testing.assert_array_equal(n.found, [True, False])
