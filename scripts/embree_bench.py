#!/usr/bin/env python3
"""Embree 4 timings on raypick's benchmark exchange files, for the side-by-side tables.

For each mode (robust: RTC_SCENE_FLAG_ROBUST, the fair match for a watertight engine; fast:
Embree's default) it builds one scene from the mesh, then times closest hit (rtcIntersect1)
and any hit (rtcOccluded1) over the ray set: embreex's scene.run is a compiled loop of single-
ray calls, so the query is single-threaded. With --threads 1 the process is pinned to one CPU,
so the build is too. Each query is warmed up on 1,000 rays and the best of --passes timed
passes is kept. One JSON line per mode and query:

  {"peer": "embree-robust", "query": "closest", "build_ms": .., "mrays_s": .., "hits": ..,
   "sum_t": .., "mesh": .., "ray_set": .., "rays": .., "triangles": .., "threads": 1}

"query": "occluded" lines carry the number of occluded rays as "hits". t is in units of the
direction as given (never normalized), as in raypick.

  scripts/embree_setup.sh          # once: a private venv with numpy and embreex
  $VENV/bin/python scripts/embree_bench.py MESH RAYS [--passes 5] [--modes robust,fast]

Exchange format, little-endian:
  mesh: u32 nverts, u32 ntris, f32 x,y,z * nverts, u32 i0,i1,i2 * ntris
  rays: u32 n, then per ray f32 ox,oy,oz,dx,dy,dz,tmax   (tmax may be +inf)
"""
import argparse
import json
import os
import time

import numpy as np


def read_mesh(path):
    data = np.fromfile(path, dtype="<u4")
    nverts, ntris = int(data[0]), int(data[1])
    verts = data[2 : 2 + 3 * nverts].view("<f4").reshape(nverts, 3)
    tris = data[2 + 3 * nverts : 2 + 3 * nverts + 3 * ntris].reshape(ntris, 3)
    if tris.size and int(tris.max()) >= nverts:
        raise SystemExit(f"{path}: a triangle index is out of range")
    return np.ascontiguousarray(verts, np.float32), np.ascontiguousarray(tris, np.int32)


def read_rays(path):
    data = np.fromfile(path, dtype="<u4")
    n = int(data[0])
    return data[1 : 1 + 7 * n].view("<f4").reshape(n, 7)


def best_time(passes, f):
    best, out = float("inf"), None
    for _ in range(passes):
        start = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - start)
    return best, out


def measure(mode, verts, tris, rays, passes):
    from embreex import rtcore_scene
    from embreex.mesh_construction import TriangleMesh

    start = time.perf_counter()
    scene = rtcore_scene.EmbreeScene(robust=(mode == "robust"))
    TriangleMesh(scene, verts, tris)
    # The first query commits the scene, which builds the BVH.
    scene.run(np.zeros((1, 3), np.float32), np.ones((1, 3), np.float32), output=1)
    build_ms = (time.perf_counter() - start) * 1e3

    origins = np.ascontiguousarray(rays[:, 0:3])
    dirs = np.ascontiguousarray(rays[:, 3:6])
    far = rays[:, 6]
    finite_far = not np.all(np.isinf(far))
    tmax = np.ascontiguousarray(np.minimum(far, 1e37)) if finite_far else None

    def run(query, n=None):
        s = slice(None) if n is None else slice(0, n)
        dists = None if tmax is None else tmax[s].copy()
        if query == "closest":
            return scene.run(origins[s], dirs[s], dists=dists, output=1)
        return scene.run(origins[s], dirs[s], dists=dists, query="OCCLUDED")

    out = []
    for query in ("closest", "occluded"):
        run(query, 1000)
        secs, res = best_time(passes, lambda: run(query))
        rec = {"peer": f"embree-{mode}", "query": query, "build_ms": round(build_ms, 3),
               "query_ms": round(secs * 1e3, 3), "mrays_s": round(len(rays) / secs / 1e6, 4),
               "rays": len(rays)}
        if query == "closest":
            hit = res["primID"] >= 0
            rec["hits"] = int(hit.sum())
            rec["sum_t"] = float(res["tfar"][hit].astype(np.float64).sum())
        else:
            # embreex marks an occluded ray 0 and a free one -1.
            rec["hits"] = int((np.asarray(res) >= 0).sum())
        out.append(rec)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mesh")
    ap.add_argument("rays")
    ap.add_argument("--threads", type=int, default=1, help="1 pins the process to one CPU")
    ap.add_argument("--passes", type=int, default=5, help="timed passes; the best is kept")
    ap.add_argument("--modes", default="robust,fast")
    a = ap.parse_args()
    if a.threads == 1:
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    verts, tris = read_mesh(a.mesh)
    rays = read_rays(a.rays)
    for mode in a.modes.split(","):
        for rec in measure(mode, verts, tris, rays, a.passes):
            rec.update({"mesh": os.path.basename(a.mesh), "ray_set": os.path.basename(a.rays),
                        "triangles": int(len(tris)), "threads": a.threads})
            print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main()
