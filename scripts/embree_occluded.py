#!/usr/bin/env python3
"""Embree's any-hit (occlusion) throughput on raypick's benchmark exchange files.

../shared/peers/embree_ref.py times Embree's closest hit only (rtcIntersect1). This script
times its occlusion query on the same files, the same way, so that raypick's any hit has a
reference too: the same loaders (imported from embree_ref.py), the same scene construction
(EmbreeScene(robust=True/False), one TriangleMesh), the same pinning to one CPU with
--threads 1, the same 1,000-ray warm-up and best of --passes timed passes. The query timed is
embreex's scene.run(origins, dirs, dists, query="OCCLUDED"): a serial loop of rtcOccluded1
calls in compiled code, which stops each ray at the first hit found.

Prints one JSON line per mode, like embree_ref.py, with "query": "occluded" and "hits" the
number of occluded rays (raypick's any-hit count; for a watertight engine also its closest-hit
count).

  ~/.cache/raypick-embree/bin/python scripts/embree_occluded.py MESH RAYS [--threads 1]
"""
import argparse, json, os, sys, time

import numpy as np

PEERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "peers")
sys.path.insert(0, os.environ.get("RAYPICK_PEERS", PEERS))
from embree_ref import load_mesh, load_rays  # noqa: E402  (the reference's own loaders)


def run(mode, v, t, rays, passes):
    from embreex import rtcore_scene as rtcs
    from embreex.mesh_construction import TriangleMesh
    t0 = time.perf_counter()
    scene = rtcs.EmbreeScene(robust=(mode == "robust"))
    TriangleMesh(scene, v, t.astype(np.int32))
    scene.run(np.zeros((1, 3), np.float32), np.ones((1, 3), np.float32), query="OCCLUDED")  # commit
    build_ms = (time.perf_counter() - t0) * 1e3
    o = np.ascontiguousarray(rays[:, 0:3]); d = np.ascontiguousarray(rays[:, 3:6])
    far = rays[:, 6]
    dists = None if np.all(np.isinf(far)) else np.ascontiguousarray(np.minimum(far, 1e37))

    def query(n=None):
        s = slice(None) if n is None else slice(0, n)
        return scene.run(o[s], d[s], dists=None if dists is None else dists[s].copy(), query="OCCLUDED")

    query(1000)  # warm-up
    best, res = float("inf"), None
    for _ in range(passes):
        w = time.perf_counter()
        res = query()
        best = min(best, time.perf_counter() - w)
    # embreex marks an occluded ray 0 and a free one -1.
    return {"peer": f"embree-{mode}", "query": "occluded", "build_ms": round(build_ms, 3),
            "query_ms": round(best * 1e3, 3), "mrays_s": round(len(rays) / best / 1e6, 4),
            "rays": len(rays), "hits": int((np.asarray(res) >= 0).sum())}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mesh"); ap.add_argument("rays")
    ap.add_argument("--threads", type=int, default=1, help="1 pins the process to one CPU (default)")
    ap.add_argument("--passes", type=int, default=5, help="timed passes; the best is reported")
    ap.add_argument("--modes", default="robust,fast")
    a = ap.parse_args()
    if a.threads == 1:
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    v, t = load_mesh(a.mesh); rays = load_rays(a.rays)
    for mode in a.modes.split(","):
        rec = run(mode, v, t, rays, a.passes)
        rec.update({"mesh": os.path.basename(a.mesh), "ray_set": os.path.basename(a.rays),
                    "triangles": int(len(t)), "threads": a.threads})
        print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main()
