"""Slow float64 oracles for the tests: every ray against every triangle, in numpy."""

from __future__ import annotations

from pathlib import Path

import numpy as np

ASSETS = Path(__file__).resolve().parents[2] / "assets"


def read_obj(path) -> tuple[np.ndarray, np.ndarray]:
    """Positions and fan-triangulated faces of an OBJ file (v and f lines only)."""
    verts, faces = [], []
    for line in Path(path).read_text().splitlines():
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "v":
            verts.append([float(x) for x in parts[1:4]])
        elif parts[0] == "f":
            idx = [int(p.split("/")[0]) for p in parts[1:]]
            idx = [i - 1 if i > 0 else len(verts) + i for i in idx]
            for k in range(1, len(idx) - 1):
                faces.append([idx[0], idx[k], idx[k + 1]])
    return np.array(verts, dtype=np.float64), np.array(faces, dtype=np.int64)


def bunny() -> tuple[np.ndarray, np.ndarray]:
    return read_obj(ASSETS / "bunny.obj")


def random_soup(rng, n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    """`n` random triangles in the unit cube, each with its own vertices."""
    v = rng.uniform(-1, 1, size=(n * 3, 3))
    return v, np.arange(n * 3).reshape(n, 3)


def random_rays(rng, vertices, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Rays from a sphere around the mesh towards points inside its box."""
    lo, hi = vertices.min(0), vertices.max(0)
    c, r = (lo + hi) / 2, np.linalg.norm(hi - lo)
    o = rng.normal(size=(n, 3))
    o = c + r * o / np.linalg.norm(o, axis=1, keepdims=True)
    target = rng.uniform(lo, hi, size=(n, 3))
    return o, target - o


def f32(a):
    """What raypick sees: the float32 rounding, back in float64."""
    return np.asarray(a, dtype=np.float32).astype(np.float64)


def ray_triangle_all(o, d, vertices, faces, chunk: int = 64):
    """Every (ray, triangle) hit with t >= 0 in float64 (Moller-Trumbore, two-sided).

    Returns ray, triangle, t, u, v and `edge`: the smallest barycentric coordinate of the hit
    in units of the triangle's scale, so that hits within rounding of an edge can be told
    apart (raypick's watertight answer there may pick another triangle).
    """
    a = vertices[faces[:, 0]]
    e1 = vertices[faces[:, 1]] - a
    e2 = vertices[faces[:, 2]] - a
    out = {k: [] for k in ("ray", "triangle", "t", "u", "v", "edge")}
    for s in range(0, len(o), chunk):
        oo, dd = o[s : s + chunk, None, :], d[s : s + chunk, None, :]
        p = np.cross(dd, e2[None])
        det = np.einsum("rtk,tk->rt", p, e1)
        with np.errstate(divide="ignore", invalid="ignore"):
            inv = 1.0 / det
            tv = oo - a[None]
            u = np.einsum("rtk,rtk->rt", tv, p) * inv
            q = np.cross(tv, e1[None])
            v = np.einsum("rtk,rtk->rt", dd, q) * inv
            t = np.einsum("tk,rtk->rt", e2, q) * inv
        ok = (det != 0) & (u >= 0) & (v >= 0) & (u + v <= 1) & (t >= 0) & np.isfinite(t)
        r, tri = np.nonzero(ok)
        out["ray"].append(r + s)
        out["triangle"].append(tri)
        out["t"].append(t[r, tri])
        out["u"].append(u[r, tri])
        out["v"].append(v[r, tri])
        out["edge"].append(np.minimum(np.minimum(u[r, tri], v[r, tri]), 1 - u[r, tri] - v[r, tri]))
    res = {k: np.concatenate(x) for k, x in out.items()}
    order = np.lexsort((res["triangle"], res["t"], res["ray"]))
    return {k: x[order] for k, x in res.items()}


def closest_from_all(allh, n_rays):
    """The nearest hit per ray (lowest triangle among equal t) from `ray_triangle_all`."""
    t = np.full(n_rays, np.inf)
    tri = np.full(n_rays, -1, dtype=np.int64)
    edge = np.full(n_rays, np.inf)
    first = np.ones(len(allh["ray"]), dtype=bool)
    first[1:] = allh["ray"][1:] != allh["ray"][:-1]
    r = allh["ray"][first]
    t[r] = allh["t"][first]
    tri[r] = allh["triangle"][first]
    edge[r] = allh["edge"][first]
    return t, tri, edge


def point_triangle_distance(p, vertices, faces, chunk: int = 64):
    """The exact distance from each point to the nearest triangle (float64)."""
    a = vertices[faces[:, 0]]
    b = vertices[faces[:, 1]]
    c = vertices[faces[:, 2]]
    best = np.full(len(p), np.inf)
    for s in range(0, len(p), chunk):
        q = p[s : s + chunk, None, :]
        d2 = np.minimum(
            np.minimum(_seg2(q, a, b), _seg2(q, b, c)), _seg2(q, c, a)
        )
        n = np.cross(b - a, c - a)
        nn = np.einsum("tk,tk->t", n, n)
        with np.errstate(divide="ignore", invalid="ignore"):
            h = np.einsum("rtk,tk->rt", q - a[None], n) / nn
            proj = q - h[..., None] * n[None]
            inside = (
                (np.einsum("rtk,tk->rt", np.cross(b - a, proj - a[None]), n) >= 0)
                & (np.einsum("rtk,tk->rt", np.cross(c - b, proj - b[None]), n) >= 0)
                & (np.einsum("rtk,tk->rt", np.cross(a - c, proj - c[None]), n) >= 0)
                & (nn > 0)
            )
            plane2 = h * h * nn
        d2 = np.where(inside, np.minimum(d2, plane2), d2)
        best[s : s + chunk] = np.sqrt(d2.min(axis=1))
    return best


def _seg2(q, a, b):
    ab = b - a
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.einsum("rtk,tk->rt", q - a[None], ab) / np.einsum("tk,tk->t", ab, ab)
    s = np.clip(np.nan_to_num(s), 0, 1)
    x = a[None] + s[..., None] * ab[None] - q
    return np.einsum("rtk,rtk->rt", x, x)


def winding_number(p, vertices, faces, chunk: int = 64):
    """The generalized winding number of each point: the sum of the triangles' signed solid
    angles over 4 pi (Van Oosterom and Strackee), in float64."""
    out = np.zeros(len(p))
    A, B, C = (vertices[faces[:, k]] for k in range(3))
    for s in range(0, len(p), chunk):
        q = p[s : s + chunk, None, :]
        a, b, c = A[None] - q, B[None] - q, C[None] - q
        la, lb, lc = (np.linalg.norm(x, axis=-1) for x in (a, b, c))
        det = np.einsum("rtk,rtk->rt", a, np.cross(b, c))
        den = (
            la * lb * lc
            + np.einsum("rtk,rtk->rt", a, b) * lc
            + np.einsum("rtk,rtk->rt", b, c) * la
            + np.einsum("rtk,rtk->rt", c, a) * lb
        )
        out[s : s + chunk] = (2 * np.arctan2(det, den)).sum(axis=1) / (4 * np.pi)
    return out


def icosphere(subdivisions: int = 2):
    """A closed unit sphere, counter-clockwise seen from outside."""
    t = (1 + 5**0.5) / 2
    v = [[-1, t, 0], [1, t, 0], [-1, -t, 0], [1, -t, 0], [0, -1, t], [0, 1, t],
         [0, -1, -t], [0, 1, -t], [t, 0, -1], [t, 0, 1], [-t, 0, -1], [-t, 0, 1]]
    f = [[0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11], [1, 5, 9], [5, 11, 4],
         [11, 10, 2], [10, 7, 6], [7, 1, 8], [3, 9, 4], [3, 4, 2], [3, 2, 6], [3, 6, 8],
         [3, 8, 9], [4, 9, 5], [2, 4, 11], [6, 2, 10], [8, 6, 7], [9, 8, 1]]
    v = [np.array(x, dtype=np.float64) / np.linalg.norm(x) for x in v]
    for _ in range(subdivisions):
        cache, nf = {}, []

        def mid(i, j):
            key = (min(i, j), max(i, j))
            if key not in cache:
                m = (v[i] + v[j]) / 2
                v.append(m / np.linalg.norm(m))
                cache[key] = len(v) - 1
            return cache[key]

        for a, b, c in f:
            ab, bc, ca = mid(a, b), mid(b, c), mid(c, a)
            nf += [[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]
        f = nf
    return np.array(v), np.array(f, dtype=np.int64)
