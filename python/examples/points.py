"""Point clouds and polylines in a Scene: pick the point under the cursor (a point within
5 px wins over the wall behind it), the points near a ray, and the nearest point or segment.

    python python/examples/points.py
"""

import numpy as np

import raypick

# A wall at z = -1, a 20 x 20 grid of points 0.05 apart, and a polyline in front.
wall = raypick.Mesh(np.array([[-3, -3, -1], [3, -3, -1], [3, 3, -1], [-3, 3, -1]], np.float32),
                    np.array([[0, 1, 2], [0, 2, 3]]))
i = np.arange(400)
grid = np.c_[(i % 20) * 0.05, (i // 20) * 0.05, np.zeros(400)].astype(np.float32)
path = raypick.SegmentSet(np.array([[-2, -1.5, 0.2], [0, -1.2, 0.2], [2, -1.6, 0.2]], np.float32))

scene = raypick.Scene()
scene.add_instance(scene.add_mesh(wall))
cloud = scene.add_points(raypick.PointSet(grid), np.diag([2.0, 1.0, 1.0, 1.0]))  # stretched 2x along x
line = scene.add_segments(path)

camera = raypick.Camera.look_at(eye=[0, 0, 5], target=[0, 0, 0], fov_y_deg=45, aspect=800 / 600)
p = scene.pick(camera, 800, 600, 545.0, 229.0)
prim = p["prim"]
print(f"pick: {prim['kind']} {prim['index']} of set {prim['set']} at {np.round(prim['point'], 3).tolist()}, "
      f"{prim['distance_px']:.2f} px away; the wall behind at t = {p['hit']['t']:.3f}")

near = scene.prims_within_ray([-3, 0.05, 0], [1, 0, 0], 0.03)
print(f"within 0.03 of the ray: {len(near['index'])} points, the first at t = {near['t'][0]:.2f}")

n = scene.nearest_prim(np.array([[0.3, -1.0, 0.2], [1.0, 0.5, 0.3]]))
print(f"nearest: sets {n['set'].tolist()}, indices {n['index'].tolist()}, distances {np.round(n['distance'], 4).tolist()}")
