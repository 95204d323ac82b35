"""A drop-in for ``open3d.t.geometry.RaycastingScene`` that does not need open3d.

The methods, keywords, result keys, shapes and dtypes are open3d's; the arrays are numpy
arrays rather than open3d tensors (an open3d tensor passed in is read through its
``.numpy()``). ``t_hit`` is in units of the ray direction's length, ``inf`` on a miss;
invalid ids are ``INVALID_ID`` (4294967295), as in open3d.

Where the answers differ, and why:

- ``count_intersections`` and ``list_intersections`` count surface crossings exactly: a ray
  through an edge or vertex shared by several triangles crosses once (open3d's filter,
  which skips a repeated primitive at the same ``t``, can count such a crossing twice or
  not at all). Intersections of one ray are listed sorted by ``t``.
- ``compute_signed_distance`` and ``compute_occupancy`` decide inside from the generalized
  winding number (at least 0.5 inside), not from a vote of ray parities: a ray through an
  edge cannot flip the answer, and small holes do not either (``nsamples`` is accepted and
  ignored). Negative inside, as in open3d; 0 on the surface.
- Rays with a NaN, an infinity or a zero direction miss (``t_hit`` inf), as in open3d,
  rather than raise as raypick's own API does.
"""

from __future__ import annotations

from typing import Dict, List, Optional

import numpy as np

from . import Mesh, RaypickError, Scene, _rays

__all__ = ["RaycastingScene"]

INVALID_ID = 4294967295

def _numpy(a, dtype=None) -> np.ndarray:
    if hasattr(a, "numpy") and not isinstance(a, np.ndarray):
        a = a.numpy()
    a = np.asarray(a)
    if dtype is not None and a.dtype != dtype:
        a = a.astype(dtype)
    return a


def _threads(nthreads: int) -> Optional[int]:
    return None if int(nthreads) <= 0 else int(nthreads)


class RaycastingScene:
    """open3d's ``RaycastingScene`` on raypick: triangle meshes, ray casts and closest points.

    Args:
        nthreads: threads per query when a call gives 0 (0: all cores).
    """

    INVALID_ID = INVALID_ID

    def __init__(self, nthreads: int = 0):
        self._scene = Scene()
        self._meshes: List[Mesh] = []
        self._threads = _threads(nthreads)
        self._geometries: List[tuple] = []

    # -- building -----------------------------------------------------------------------

    def add_triangles(self, vertex_positions, triangle_indices=None) -> int:
        """Adds a triangle mesh; returns its geometry id (0, 1, 2, ... in order).

        Takes ``(vertex_positions (n, 3) float32, triangle_indices (m, 3) uint32)`` or one
        mesh: an open3d ``t.geometry.TriangleMesh``, a legacy ``geometry.TriangleMesh``
        (``vertices``, ``triangles``) or a trimesh (``vertices``, ``faces``).
        """
        if triangle_indices is None:
            mesh = vertex_positions
            if hasattr(mesh, "vertex") and hasattr(mesh, "triangle"):
                v, f = mesh.vertex.positions, mesh.triangle.indices
            elif hasattr(mesh, "triangles"):
                v, f = mesh.vertices, mesh.triangles
            elif hasattr(mesh, "faces"):
                v, f = mesh.vertices, mesh.faces
            else:
                raise RaypickError("add_triangles takes (vertex_positions, triangle_indices) or a triangle mesh")
        else:
            v, f = vertex_positions, triangle_indices
        v = _numpy(v)
        f = _numpy(f)
        if v.ndim != 2 or v.shape[1] != 3:
            raise RaypickError(f"vertex_positions must be (n, 3), got {v.shape}")
        mesh = Mesh(v, f, threads=self._threads)
        gid = self._scene.add_instance(self._scene.add_mesh(mesh))
        self._meshes.append(mesh)
        self._geometries.append((v.astype(np.float32, copy=False), f.astype(np.int64, copy=False)))
        return gid

    # -- rays ---------------------------------------------------------------------------

    @property
    def _target(self):
        """The one mesh when there is one (its hits report instance 0, the geometry id), else
        the scene of all geometries."""
        return self._meshes[0] if len(self._meshes) == 1 else self._scene

    def _rays(self, rays) -> np.ndarray:
        r = _numpy(rays)
        if r.ndim == 0 or r.shape[-1] != 6:
            raise RaypickError(f"rays must have shape (..., 6), got {r.shape}")
        if r.dtype not in (np.float32, np.float64):
            r = r.astype(np.float32)
        return r

    def _nt(self, nthreads):
        return _threads(nthreads) if int(nthreads) > 0 else self._threads

    def cast_rays(self, rays, nthreads: int = 0) -> Dict[str, np.ndarray]:
        """The first hit of each ray: ``t_hit`` float32 ``S`` (inf on a miss),
        ``geometry_ids`` and ``primitive_ids`` uint32 ``S``, ``primitive_uvs`` float32
        ``S + (2,)``, ``primitive_normals`` float32 ``S + (3,)`` (unit geometric normal),
        for rays of shape ``S + (6,)``. Rays of an image, such as ``create_rays_pinhole``'s
        ``(H, W, 6)``, are cast in 4 x 4 tiles as packets, and so are flat rays that hold an
        image's row after row."""
        r, _, lead = _rays(self._rays(rays), None)
        target = self._target
        # The closest hits without the columns open3d does not return (see "cast").
        kw = target._kw(0.0, float("inf"), "none", self._nt(nthreads), strict=False)
        c = target._native.rays("cast", r, None, kw)
        return {
            # float64 rays on several geometries take the scene's float64 path.
            "t_hit": c["t"].astype(np.float32, copy=False).reshape(lead),
            "geometry_ids": c["instance"].reshape(lead),
            "primitive_ids": c["triangle"].reshape(lead),
            "primitive_uvs": c["uv"].reshape(lead + (2,)),
            "primitive_normals": c["normal"].reshape(lead + (3,)),
        }

    def test_occlusions(self, rays, tnear: float = 0.0, tfar: float = float("inf"), nthreads: int = 0) -> np.ndarray:
        """Whether each ray hits anything with ``tnear <= t <= tfar``: bool ``S``. Image-shaped
        rays are cast in 4 x 4 tiles, as in ``cast_rays``."""
        return self._target.any_hit(self._rays(rays), t_min=tnear, t_max=tfar, strict=False, threads=self._nt(nthreads))

    def count_intersections(self, rays, nthreads: int = 0) -> np.ndarray:
        """The number of surface crossings of each ray: int32 ``S``."""
        a = self._target.all_hits(self._rays(rays), strict=False, threads=self._nt(nthreads))
        return a.counts.astype(np.int32)

    def list_intersections(self, rays, nthreads: int = 0) -> Dict[str, np.ndarray]:
        """Every crossing of every ray, flat: ``ray_splits`` uint32 (n + 1,) (hits of ray
        ``i`` are ``ray_splits[i]:ray_splits[i + 1]``), ``ray_ids``, ``geometry_ids``,
        ``primitive_ids`` uint32 (h,), ``primitive_uvs`` float32 (h, 2), ``t_hit`` float32
        (h,); sorted by ray, then ``t``."""
        a = self._target.all_hits(self._rays(rays), strict=False, threads=self._nt(nthreads))
        splits = np.zeros(a.counts.size + 1, dtype=np.uint32)
        splits[1:] = np.cumsum(a.counts.ravel())
        return {
            "ray_splits": splits,
            "ray_ids": a.ray.astype(np.uint32),
            "geometry_ids": a.instance,
            "primitive_ids": a.triangle,
            "primitive_uvs": a.uv,
            "t_hit": a.t,
        }

    # -- points -------------------------------------------------------------------------

    def _points(self, query_points):
        p = _numpy(query_points)
        if p.ndim == 0 or p.shape[-1] != 3:
            raise RaypickError(f"query_points must have shape (..., 3), got {p.shape}")
        if p.dtype not in (np.float32, np.float64):
            p = p.astype(np.float32)
        return p

    def compute_closest_points(self, query_points, nthreads: int = 0) -> Dict[str, np.ndarray]:
        """The closest surface point to each query point: ``points`` float32 ``S + (3,)``,
        ``geometry_ids``, ``primitive_ids`` uint32 ``S``, ``primitive_uvs`` float32
        ``S + (2,)``, ``primitive_normals`` float32 ``S + (3,)`` (the triangle's unit
        normal)."""
        p = self._points(query_points)
        n = self._target.nearest_point(p, strict=False, threads=self._nt(nthreads))
        normals = np.zeros(n.point.shape, dtype=np.float32)
        for g, (v, f) in enumerate(self._geometries):
            sel = n.instance == g
            if not sel.any():
                continue
            tri = f[n.triangle[sel]]
            a, b, c = v[tri[:, 0]], v[tri[:, 1]], v[tri[:, 2]]
            nrm = np.cross(b - a, c - a)
            length = np.linalg.norm(nrm, axis=-1, keepdims=True)
            normals[sel] = np.divide(nrm, length, out=np.zeros_like(nrm), where=length > 0)
        return {
            # float64 points on several geometries take the scene's float64 path.
            "points": n.point.astype(np.float32, copy=False),
            "geometry_ids": n.instance,
            "primitive_ids": n.triangle,
            "primitive_uvs": n.uv,
            "primitive_normals": normals,
        }

    def compute_distance(self, query_points, nthreads: int = 0) -> np.ndarray:
        """The distance from each query point to the surface: float32 ``S``."""
        p = self._points(query_points)
        d = self._target.nearest_point(p, strict=False, threads=self._nt(nthreads)).distance
        return d.astype(np.float32, copy=False)

    def _inside(self, p: np.ndarray, nthreads) -> np.ndarray:
        inside = np.zeros(p.shape[:-1], dtype=bool)
        for m in self._meshes:
            inside |= m.contains(p, strict=False, threads=self._nt(nthreads))
        return inside

    def compute_signed_distance(self, query_points, nthreads: int = 0, nsamples: int = 1) -> np.ndarray:
        """The distance to the surface, negative inside (a point is inside when some
        geometry's winding number there is at least 0.5): float32 ``S``."""
        _check_nsamples(nsamples)
        p = self._points(query_points)
        if len(self._meshes) == 1:
            return self._meshes[0].signed_distance(p, strict=False, threads=self._nt(nthreads)).distance
        d = self._target.nearest_point(p, strict=False, threads=self._nt(nthreads)).distance
        return np.where(self._inside(p, nthreads), -d, d).astype(np.float32)

    def compute_occupancy(self, query_points, nthreads: int = 0, nsamples: int = 1) -> np.ndarray:
        """1.0 inside, 0.0 outside (winding number >= 0.5 for some geometry): float32 ``S``."""
        _check_nsamples(nsamples)
        p = self._points(query_points)
        return self._inside(p, nthreads).astype(np.float32)

    # -- cameras ------------------------------------------------------------------------

    @staticmethod
    def create_rays_pinhole(*args, **kwargs) -> np.ndarray:
        """Rays of a pinhole camera, float32 ``(height_px, width_px, 6)``, through pixel
        centers, directions not normalized (``t_hit`` is then depth along the optical axis).

        Either ``(intrinsic_matrix (3, 3), extrinsic_matrix (4, 4), width_px, height_px)``
        (extrinsic: world to camera) or ``(fov_deg, center, eye, up, width_px, height_px)``.
        """
        names6 = ("fov_deg", "center", "eye", "up", "width_px", "height_px")
        names4 = ("intrinsic_matrix", "extrinsic_matrix", "width_px", "height_px")
        if "fov_deg" in kwargs:
            look_at = True
        elif "intrinsic_matrix" in kwargs:
            look_at = False
        else:
            look_at = len(args) > 0 and np.ndim(_numpy(args[0])) == 0
        if look_at:
            a = dict(zip(names6, args), **kwargs)
            K, T = _look_at(float(a["fov_deg"]), a["center"], a["eye"], a["up"], int(a["width_px"]), int(a["height_px"]))
            w, h = int(a["width_px"]), int(a["height_px"])
        else:
            a = dict(zip(names4, args), **kwargs)
            K = _numpy(a["intrinsic_matrix"], np.float64)
            T = _numpy(a["extrinsic_matrix"], np.float64)
            w, h = int(a["width_px"]), int(a["height_px"])
        if K.shape != (3, 3) or T.shape != (4, 4):
            raise RaypickError(f"intrinsic_matrix must be (3, 3) and extrinsic_matrix (4, 4), got {K.shape} and {T.shape}")
        R = T[:3, :3]
        C = -R.T @ T[:3, 3]
        M = (R.T @ np.linalg.inv(K)).astype(np.float32)
        xs = np.arange(w, dtype=np.float32) + 0.5
        ys = np.arange(h, dtype=np.float32) + 0.5
        px = np.stack(np.meshgrid(xs, ys), axis=-1)
        pix = np.concatenate([px, np.ones((h, w, 1), np.float32)], axis=-1)
        rays = np.empty((h, w, 6), dtype=np.float32)
        rays[..., :3] = C.astype(np.float32)
        rays[..., 3:] = pix @ M.T
        return rays


def _check_nsamples(nsamples: int) -> None:
    if nsamples < 1 or nsamples % 2 != 1:
        raise RaypickError(f"nsamples must be odd and >= 1 but is {nsamples}")


def _look_at(fov_deg, center, eye, up, width_px, height_px):
    f = 0.5 * width_px / np.tan(0.5 * np.radians(fov_deg))
    K = np.array([[f, 0, 0.5 * width_px], [0, f, 0.5 * height_px], [0, 0, 1]], dtype=np.float64)
    center, eye, up = (_numpy(x, np.float64).reshape(3) for x in (center, eye, up))
    r1 = up / np.linalg.norm(up)
    r2 = (center - eye) / np.linalg.norm(center - eye)
    r0 = np.cross(r1, r2)
    r0 /= np.linalg.norm(r0)
    r1 = np.cross(r2, r0)
    R = np.stack([r0, r1, r2])
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = -R @ eye
    return K, T
