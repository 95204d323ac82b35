"""Camera rays, pick and select_rect on the bunny."""

import numpy as np
import pytest

import raypick
from brute import bunny


@pytest.fixture(scope="module")
def scene():
    s = raypick.Scene()
    s.add_instance(s.add_mesh(raypick.Mesh(*bunny())))
    return s


CAM = dict(eye=[0, 5, 25], target=[0, 5, 0], fov_y_deg=40, aspect=640 / 480)


def test_pixel_rays_start_on_the_near_plane_with_unit_directions():
    cam = raypick.Camera.look_at(**CAM)
    r = cam.pixel_rays(640, 480)
    assert r.shape == (480, 640, 6) and r.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(r[..., 3:], axis=-1), 1, atol=1e-5)
    np.testing.assert_allclose(r[..., 2], 25 - 0.1, atol=1e-4)  # near plane 0.1 in front of the eye
    # The centre of the image looks straight ahead; the top row looks up (y down in pixels).
    centre = (r[239, 319, 3:] + r[240, 320, 3:]) / 2
    np.testing.assert_allclose(centre / np.linalg.norm(centre), [0, 0, -1], atol=1e-6)
    assert r[0, 320, 4] > 0 and r[479, 320, 4] < 0
    np.testing.assert_array_equal(cam.rays_from_pixels([[10.5, 20.5]], 640, 480)[0], r[20, 10])
    assert cam.view_matrix.shape == (4, 4) and cam.projection_matrix.shape == (4, 4)
    again = raypick.Camera.from_matrices(cam.view_matrix, cam.projection_matrix)
    np.testing.assert_allclose(again.pixel_rays(64, 48), cam.pixel_rays(64, 48), atol=1e-6)


def test_pick_agrees_with_closest_hit_and_snaps(scene):
    cam = raypick.Camera.look_at(**CAM)
    rays = cam.pixel_rays(640, 480)
    hits = scene.closest_hit(rays)
    for x, y in ((320, 240), (300, 150), (10, 10), (400, 300)):
        p = scene.pick(cam, 640, 480, x + 0.5, y + 0.5)
        if not hits.hit[y, x]:
            assert p is None or p["hit"] is None
            continue
        assert p["hit"]["triangle"] == hits.triangle[y, x]
        assert p["hit"]["t"] == pytest.approx(float(hits.t[y, x]))
    snapped = scene.pick(cam, 640, 480, 320, 240, snap_radius=8)
    assert snapped["vertex"] is not None and snapped["vertex"]["distance_px"] <= 8
    V, F = bunny()
    assert np.linalg.norm(V[snapped["vertex"]["vertex"]] - snapped["vertex"]["point"]) < 1e-4
    assert scene.pick(cam, 640, 480, 2, 2) is None
    # Outside the viewport is bad input, not "nothing there".
    with pytest.raises(raypick.RaypickError):
        scene.pick(cam, 640, 480, 700, 240)


def test_select_rect(scene):
    cam = raypick.Camera.look_at(**CAM)
    everything = scene.select_rect(cam, 640, 480, 0, 0, 640, 480, triangles=True)
    assert everything["instances"] == [0]
    assert len(everything["triangles"][0]) == len(bunny()[1])
    part = scene.select_rect(cam, 640, 480, 300, 200, 340, 280, mode="intersecting", triangles=True)
    visible = scene.select_rect(cam, 640, 480, 300, 200, 340, 280, mode="intersecting", triangles=True, visible_only=True)
    assert part["instances"] == [0] and 0 < len(visible["triangles"][0]) < len(part["triangles"][0])
    assert set(visible["triangles"][0].tolist()) <= set(part["triangles"][0].tolist())
    assert scene.select_rect(cam, 640, 480, 300, 200, 340, 280)["instances"] == []  # not inside


def test_camera_errors():
    with pytest.raises(raypick.RaypickError, match="eye equals target"):
        raypick.Camera.look_at([0, 0, 0], [0, 0, 0])
    with pytest.raises(raypick.RaypickError, match="convention"):
        raypick.Camera.look_at([0, 0, 1], [0, 0, 0], convention="directx9")
    cam = raypick.Camera.look_at([0, 0, 1], [0, 0, 0])
    with pytest.raises(raypick.RaypickError, match="viewport"):
        cam.pixel_rays(0, 10)
    with pytest.raises(raypick.RaypickError, match="pixel 1"):
        cam.rays_from_pixels([[1.0, 1.0], [np.nan, 2.0]], 10, 10)
