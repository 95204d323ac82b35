"""raypick's Python package against trimesh+embreex and open3d, numpy arrays in and out.

Not a test: run it by hand in a virtual environment that has raypick (pip install ./python)
and, for the peers, trimesh, embreex and open3d (never installed in CI):

    python3 -m venv ~/.cache/raypick-bench
    ~/.cache/raypick-bench/bin/pip install ./python trimesh embreex open3d
    # open3d's wheel links libusb: on a minimal Debian, `apt-get install libusb-1.0-0` first
    # (without it `import open3d` fails and the open3d rows are skipped as "absent").
    target/release/export --out ~/.cache/raypick-bench-data --rays 250000
    ~/.cache/raypick-bench/bin/python python/bench/bench.py --data ~/.cache/raypick-bench-data

The workloads are the benchmark exchange files written by raypick-benches' `export` binary
(`.mesh`: vertex and triangle counts, float32 positions, uint32 indices; `.rays`: count, then
origin, direction, t_max as float32; t_max is ignored here, every engine casts to infinity).

Every figure is end to end, from numpy arrays to numpy arrays, best of --passes, in million
rays (or points) per second, on one thread and on all threads. trimesh+embreex runs on one
thread whatever the setting (embreex's loop is serial). "overhead" is the time raypick spends
outside its query: the same call on an empty mesh, which rejects every ray before preparing it
(so the time is the conversion of the rays, validation and the output arrays), as a share of
the call on the real mesh.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

import raypick
import raypick.open3d as rp_o3d
import raypick.trimesh as rp_trimesh

try:
    import open3d as o3d
except ImportError:  # the peer is optional
    o3d = None
try:
    import trimesh
    from trimesh.ray import ray_pyembree
except ImportError:
    trimesh = None


def load_mesh(path):
    with open(path, "rb") as f:
        nv, nt = np.frombuffer(f.read(8), dtype="<u4")
        v = np.frombuffer(f.read(int(nv) * 12), dtype="<f4").reshape(-1, 3).copy()
        t = np.frombuffer(f.read(int(nt) * 12), dtype="<u4").reshape(-1, 3).copy()
    return v, t


def load_rays(path):
    with open(path, "rb") as f:
        (n,) = np.frombuffer(f.read(4), dtype="<u4")
        return np.frombuffer(f.read(int(n) * 28), dtype="<f4").reshape(-1, 7)


def best(fn, passes):
    fn()  # warm-up (and lazy builds)
    times = []
    for _ in range(passes):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def row(*cells):
    print("| " + " | ".join(str(c) for c in cells) + " |", flush=True)


def mrays(n, s):
    return f"{n / s / 1e6:.3f}"


def image_rays(pick6, width=960, height=540):
    """The `pick` set's camera (benches/src/rays.rs: 50 degrees vertical, 16:9, looking
    along -(1, -1.6, 0.9) at the box centre from the `pick` rays' origin) through the centre
    of every pixel of a `width` x `height` frame: `(height, width, 6)` float32, as open3d's
    `create_rays_pinhole` shapes a camera's rays."""
    back = np.array([1.0, -1.6, 0.9])
    back /= np.linalg.norm(back)
    forward = -back
    right = np.cross(forward, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    up = np.cross(right, forward)
    tan_y = np.tan(np.radians(25.0))
    tan_x = tan_y * 16 / 9
    y, x = np.mgrid[0:height, 0:width]
    sx = (2 * (x + 0.5) / width - 1) * tan_x
    sy = (1 - 2 * (y + 0.5) / height) * tan_y
    d = forward + sx[..., None] * right + sy[..., None] * up
    eye = np.broadcast_to(pick6[0, :3].astype(np.float64), d.shape)
    return np.ascontiguousarray(np.concatenate([eye, d], axis=-1), dtype=np.float32)


def closest(workload, v, t, rays6, passes, all_threads):
    flat = rays6.reshape(-1, 6)
    n = len(flat)
    o, d = np.ascontiguousarray(flat[:, :3]), np.ascontiguousarray(flat[:, 3:])
    engines = []

    mesh, b = timed(lambda: raypick.Mesh(v, t))
    empty = raypick.Mesh(np.zeros((0, 3), np.float32), np.zeros((0, 3), np.int64))
    hits = int(mesh.closest_hit(rays6).hit.sum())
    for th, label in ((1, "1T"), (None, "nT")):
        s = best(lambda: mesh.closest_hit(rays6, threads=th), passes)
        e = best(lambda: empty.closest_hit(rays6, threads=th), passes)
        engines.append(("raypick Mesh.closest_hit", label, s, b, hits, f"overhead {100 * e / s:.1f}%"))

    scene = rp_o3d.RaycastingScene()
    _, b = timed(lambda: scene.add_triangles(v, t))
    hits = int(np.isfinite(scene.cast_rays(rays6)["t_hit"]).sum())
    for th, label in ((1, "1T"), (0, "nT")):
        s = best(lambda: scene.cast_rays(rays6, nthreads=th), passes)
        engines.append(("raypick.open3d cast_rays", label, s, b, hits, ""))

    if o3d is not None:
        oscene = o3d.t.geometry.RaycastingScene()
        _, b = timed(lambda: (oscene.add_triangles(o3d.core.Tensor.from_numpy(v), o3d.core.Tensor.from_numpy(t)),
                              oscene.cast_rays(o3d.core.Tensor.from_numpy(rays6[:1]))))
        hits = int(np.isfinite(oscene.cast_rays(o3d.core.Tensor.from_numpy(rays6))["t_hit"].numpy()).sum())
        for th, label in ((1, "1T"), (0, "nT")):
            s = best(lambda: {k: x.numpy() for k, x in oscene.cast_rays(o3d.core.Tensor.from_numpy(rays6), nthreads=th).items()}, passes)
            engines.append(("open3d cast_rays", label, s, b, hits, ""))

    if trimesh is not None:
        tm = trimesh.Trimesh(v.astype(np.float64), t.astype(np.int64), process=False)
        ours = rp_trimesh.RayMeshIntersector(tm)
        _, b = timed(lambda: ours.intersects_first(o[:1], d[:1]))
        hits = int((ours.intersects_first(o, d) >= 0).sum())
        for th, label in ((1, "1T"), (None, "nT")):
            ours.threads = th
            s = best(lambda: ours.intersects_first(o, d), passes)
            engines.append(("raypick.trimesh intersects_first", label, s, b, hits, ""))
        emb = ray_pyembree.RayMeshIntersector(tm)
        _, b = timed(lambda: emb.intersects_first(o[:1], d[:1]))
        hits = int((emb.intersects_first(o, d) >= 0).sum())
        s = best(lambda: emb.intersects_first(o, d), passes)
        engines.append(("trimesh+embreex intersects_first", "1T", s, b, hits, "serial"))

    for name, label, s, b, hits, note in engines:
        row(workload, name, label, n, mrays(n, s), f"{b * 1e3:.0f}", hits, note)


def all_hits(v, t, rays6, passes):
    n = len(rays6)
    mesh = raypick.Mesh(v, t)
    count = len(mesh.all_hits(rays6).t)
    for th, label in ((1, "1T"), (None, "nT")):
        s = best(lambda: mesh.all_hits(rays6, threads=th), passes)
        row("raypick Mesh.all_hits", label, n, count, f"{s:.3f}")
    scene = rp_o3d.RaycastingScene()
    scene.add_triangles(v, t)
    s = best(lambda: scene.list_intersections(rays6, nthreads=0), passes)
    row("raypick.open3d list_intersections", "nT", n, int(scene.list_intersections(rays6)["ray_splits"][-1]), f"{s:.3f}")
    if o3d is not None:
        oscene = o3d.t.geometry.RaycastingScene()
        oscene.add_triangles(o3d.core.Tensor.from_numpy(v), o3d.core.Tensor.from_numpy(t))
        r = o3d.core.Tensor.from_numpy(rays6)
        for th, label in ((1, "1T"), (0, "nT")):
            res, s = timed(lambda: {k: x.numpy() for k, x in oscene.list_intersections(r, nthreads=th).items()})
            row("open3d list_intersections", label, n, int(res["ray_splits"][-1]), f"{s:.3f}")


def solid(workload, v, t, n_points, passes):
    """compute_signed_distance and compute_occupancy on points uniform in the box grown by 30%
    on every side. raypick's side is the winding number, exact off the surface on a closed
    mesh; "sign errors" counts the points farther than 1e-6 of the diagonal from the surface
    where a peer's side differs from it (on open meshes there is no true side: the column
    then counts disagreements)."""
    rng = np.random.default_rng(1)
    lo, hi = v.min(0), v.max(0)
    c, half = (lo + hi) / 2, (hi - lo) / 2
    q = (c + rng.uniform(-1.3, 1.3, size=(n_points, 3)) * half).astype(np.float32)
    diag = float(np.linalg.norm(hi - lo))
    scene = rp_o3d.RaycastingScene()
    scene.add_triangles(v, t)
    ours = scene.compute_signed_distance(q)
    ours_occ = scene.compute_occupancy(q)
    clear = np.abs(ours) > 1e-6 * diag
    assert np.array_equal(ours_occ[clear] == 1, ours[clear] < 0)
    for th, label in ((1, "1T"), (0, "nT")):
        s = best(lambda: scene.compute_signed_distance(q, nthreads=th), passes)
        row(workload, "raypick.open3d compute_signed_distance", label, n_points, mrays(n_points, s), "-")
    for th, label in ((1, "1T"), (0, "nT")):
        s = best(lambda: scene.compute_occupancy(q, nthreads=th), passes)
        row(workload, "raypick.open3d compute_occupancy", label, n_points, mrays(n_points, s), "-")
    if o3d is not None:
        oscene = o3d.t.geometry.RaycastingScene()
        oscene.add_triangles(o3d.core.Tensor.from_numpy(v), o3d.core.Tensor.from_numpy(t))
        tq = o3d.core.Tensor.from_numpy(q)
        theirs = oscene.compute_signed_distance(tq).numpy()
        errors = int(((theirs < 0) != (ours < 0))[clear].sum())
        for th, label in ((1, "1T"), (0, "nT")):
            s = best(lambda: oscene.compute_signed_distance(tq, nthreads=th).numpy(), passes)
            row(workload, "open3d compute_signed_distance", label, n_points, mrays(n_points, s), errors)
        theirs = oscene.compute_occupancy(tq).numpy()
        errors = int(((theirs == 1) != (ours < 0))[clear].sum())
        for th, label in ((1, "1T"), (0, "nT")):
            s = best(lambda: oscene.compute_occupancy(tq, nthreads=th).numpy(), passes)
            row(workload, "open3d compute_occupancy", label, n_points, mrays(n_points, s), errors)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.expanduser("~/.cache/raypick-bench-data"))
    ap.add_argument("--workloads", default="bunny,soup_100k,sphere_1m,terrain_1m")
    ap.add_argument("--sets", default="pick,random,image",
                    help="ray sets: pick, random (the exchange files), image (the pick camera's "
                         "960 x 540 frame as an (H, W, 6) array)")
    ap.add_argument("--rays", type=int, default=100_000, help="rays per set for closest hits")
    ap.add_argument("--all-rays", type=int, default=250_000, help="rays for the all-hits run on sphere_1m")
    ap.add_argument("--points", type=int, default=100_000, help="points for signed distance")
    ap.add_argument("--sdf-workloads", default="bunny,sphere_1m,terrain_1m,soup_100k")
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--skip", default="", help="comma list of sections to skip: closest,all,sdf")
    a = ap.parse_args()
    data = Path(a.data)
    skip = set(a.skip.split(",")) - {""}
    print(f"raypick {raypick.__version__}, open3d {getattr(o3d, '__version__', 'absent')}, "
          f"trimesh {getattr(trimesh, '__version__', 'absent')}, {os.cpu_count()} cores", flush=True)
    if "closest" not in skip:
        print("\n| workload/rays | engine | threads | rays | Mrays/s | build ms | hits | notes |")
        print("|---|---|---|---|---|---|---|---|")
        for w in a.workloads.split(","):
            v, t = load_mesh(data / f"{w}.mesh")
            for s in a.sets.split(","):
                if s == "image":
                    rays6 = image_rays(load_rays(data / f"{w}_pick.rays")[:1, :6])
                else:
                    rays6 = np.ascontiguousarray(load_rays(data / f"{w}_{s}.rays")[: a.rays, :6])
                closest(f"{w}/{s}", v, t, rays6, a.passes, None)
    if "all" not in skip:
        v, t = load_mesh(data / "sphere_1m.mesh")
        rays6 = np.ascontiguousarray(load_rays(data / "sphere_1m_random.rays")[: a.all_rays, :6])
        print(f"\nall hits, sphere_1m ({len(t)} triangles), random rays\n")
        print("| engine | threads | rays | hits | seconds |")
        print("|---|---|---|---|---|")
        all_hits(v, t, rays6, 1)
    if "sdf" not in skip:
        print("\nsigned distance and occupancy, points uniform in the box grown by 30%\n")
        print("| workload | engine | threads | points | Mpoints/s | sign errors |")
        print("|---|---|---|---|---|---|")
        for w in a.sdf_workloads.split(","):
            v, t = load_mesh(data / f"{w}.mesh")
            solid(w, v, t, a.points, a.passes)


if __name__ == "__main__":
    main()
