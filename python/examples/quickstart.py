"""raypick from numpy: load the bunny, cast a camera's rays, list crossings, find nearest points.

Run from the repository root after `pip install ./python`:

    python python/examples/quickstart.py
"""

from pathlib import Path

import numpy as np

import raypick
from raypick.open3d import RaycastingScene

bunny_path = Path(__file__).resolve().parents[2] / "assets" / "bunny.obj"
mesh = raypick.load(bunny_path)

def r(a, digits=4):
    """Rounded plain floats, for printing."""
    return np.round(np.asarray(a, dtype=np.float64), digits).tolist()


print(f"loaded {mesh.triangle_count} triangles, bounds {r(mesh.bounds, 3)}")

# 640x480 rays of a pinhole camera looking at the bunny, as an (H, W, 6) array.
rays = RaycastingScene.create_rays_pinhole(
    fov_deg=40, center=[0, 4.8, 0], eye=[0, 6, 28], up=[0, 1, 0], width_px=640, height_px=480
)
hits = mesh.closest_hit(rays)
print(f"closest_hit: {hits.t.shape} rays, {int(hits.hit.sum())} hit the bunny")
c = (240, 320)
print(
    f"  centre pixel: triangle {hits.triangle[c]}, t = {hits.t[c]:.4f}, "
    f"point {r(hits.point[c])}, front face {bool(hits.front_face[c])}"
)

# Every crossing along rays through the middle row: a closed mesh is entered and left.
row = mesh.all_hits(rays[240])
print(f"all_hits on the middle row: {len(row.t)} crossings, counts per ray {np.unique(row.counts).tolist()}")

# Occlusion between two points: is the segment blocked?
a, b = np.array([[0.0, 4.8, 20.0]]), np.array([[0.0, 4.8, -20.0]])
print(f"any_hit on a segment through the bunny: {bool(mesh.any_hit(a, b - a, t_max=1.0)[0])}")

# Nearest surface points of a few query points.
q = np.array([[0.0, 12.0, 0.0], [6.0, 2.0, 0.0]])
near = mesh.nearest_point(q)
print(f"nearest_point distances: {r(near.distance)} on triangles {near.triangle.tolist()}")

# Two instances in a scene, the second moved 12 units along x.
scene = raypick.Scene()
m = scene.add_mesh(mesh)
scene.add_instance(m)
moved = np.eye(4)
moved[0, 3] = 12.0
scene.add_instance(m, moved)
shots = np.array([[0.0, 4.8, 20.0, 0, 0, -1], [12.0, 4.8, 20.0, 0, 0, -1]])
print(f"scene instances hit: {scene.closest_hit(shots).instance.tolist()}")

# Inside or outside the scene's solids, and how far, at a point in each bunny and one between.
probe = np.array([[0.0, 4.8, 0.0], [12.0, 4.8, 0.0], [6.0, 4.8, 0.0]])
sd = scene.signed_distance(probe)
print(f"scene contains: {scene.contains(probe).tolist()}, signed distances {r(sd.distance)} "
      f"to instances {sd.instance.tolist()}")
