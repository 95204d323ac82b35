#!/usr/bin/env python3
"""Per-ray comparison of raypick's peers with Embree, to explain checksum differences.

    cargo run --release -p raypick-benches --bin compare -- --dump /tmp/dump [--workloads ...]
    ~/.cache/raypick-embree/bin/python benches/tools/embree_diff.py /tmp/dump [WORKLOAD_SET ...]

For every `<workload>_<set>_<peer>.t` in the dump directory (f32 LE closest t per ray, NaN for
a miss), reruns Embree (robust and fast) on the same exchange files in bench-data/ and lists
the rays where a row differs from raypick. When Embree reports a hit that raypick does not
(or a closer one), the Embree triangle is checked in exact rational arithmetic: "exact: miss"
means Embree's hit is a false positive.
"""
import glob, os, sys
from fractions import Fraction as F

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
sys.path.insert(0, os.path.join(root, "..", "shared", "peers"))
from embree_ref import load_mesh, load_rays  # noqa: E402


def exact_hit(o, d, a, b, c):
    """(ray line crosses the triangle, t) with every input taken as an exact rational."""
    o, d, a, b, c = ([F(float(x)) for x in p] for p in (o, d, a, b, c))
    sub = lambda p, q: [p[k] - q[k] for k in range(3)]
    cross = lambda p, q: [p[1] * q[2] - p[2] * q[1], p[2] * q[0] - p[0] * q[2], p[0] * q[1] - p[1] * q[0]]
    dot = lambda p, q: sum(p[k] * q[k] for k in range(3))
    oa, ob, oc = sub(a, o), sub(b, o), sub(c, o)
    e = [dot(d, cross(ob, oc)), dot(d, cross(oc, oa)), dot(d, cross(oa, ob))]
    inside = all(x >= 0 for x in e) or all(x <= 0 for x in e)
    n = cross(sub(b, a), sub(c, a))
    den = dot(n, d)
    t = dot(n, sub(a, o)) / den if den != 0 else None
    return inside and t is not None and t >= 0, None if t is None else float(t)


def main():
    dump = sys.argv[1]
    only = set(sys.argv[2:])
    data = os.path.join(root, "bench-data")
    from embreex import rtcore_scene as rtcs
    from embreex.mesh_construction import TriangleMesh
    groups = {}
    for f in sorted(glob.glob(os.path.join(dump, "*.t"))):
        stem = os.path.basename(f)[:-2]
        ws, peer = stem.rsplit("_", 1)
        if not only or ws in only:
            groups.setdefault(ws, {})[peer] = np.fromfile(f, dtype="<f4")
    for ws, peers in groups.items():
        w = ws.rsplit("_", 1)[0]
        v, t = load_mesh(os.path.join(data, w + ".mesh"))
        rays = load_rays(os.path.join(data, ws + ".rays"))
        o = np.ascontiguousarray(rays[:, 0:3]); d = np.ascontiguousarray(rays[:, 3:6])
        prims = {}
        for mode in ("robust", "fast"):
            s = rtcs.EmbreeScene(robust=(mode == "robust"))
            TriangleMesh(s, v, t.astype(np.int32))
            r = s.run(o, d, output=1)
            n = len(next(iter(peers.values())))
            peers["embree-" + mode] = np.where(r["primID"] >= 0, r["tfar"], np.nan)[:n]
            prims["embree-" + mode] = r["primID"]
        ref = peers.get("raypick")
        if ref is None:
            continue
        for peer, tt in peers.items():
            if peer == "raypick":
                continue
            same = (np.isnan(tt) & np.isnan(ref)) | (np.abs(tt - ref) <= 1e-4 * np.abs(ref))
            idx = np.nonzero(~same)[0]
            print(f"{ws} {peer}: {len(idx)} rays differ from raypick")
            for i in idx[:10]:
                line = f"  ray {i}: raypick {ref[i]:.7g}, {peer} {tt[i]:.7g}"
                if peer in prims and not np.isnan(tt[i]) and (np.isnan(ref[i]) or tt[i] < ref[i]):
                    p = int(prims[peer][i])
                    hit, te = exact_hit(o[i], d[i], *(v[j] for j in t[p]))
                    line += f" on triangle {p}; exact: {'hit at %.7g' % te if hit else 'miss'}"
                print(line)


if __name__ == "__main__":
    main()
