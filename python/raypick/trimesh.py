"""A drop-in for trimesh's ray engines: ``mesh.ray = RayMeshIntersector(mesh)``.

``RayMeshIntersector`` has the methods of ``trimesh.ray.ray_triangle.RayMeshIntersector``
and ``trimesh.ray.ray_pyembree.RayMeshIntersector`` with their signatures, keywords, return
shapes and dtypes (indices int64, locations float64). Once it is ``mesh.ray``, trimesh's own
``mesh.contains``, ``trimesh.proximity.signed_distance`` and the rest use it.

trimesh is needed only to build the intersector from a ``trimesh.Trimesh`` (any object with
``vertices`` and ``faces`` arrays works); this module imports nothing from it.

Where the answers differ, and why:

- A ray through an edge or vertex shared by several triangles: trimesh's engines report
  every triangle there (the pure-Python engine: both triangles of a shared edge, within its
  tolerance; embree: either one, or none on a crack). raypick reports exactly one hit per
  surface crossing, decided exactly, so ``len(index_ray)`` counts crossings. Example: the
  ray from (0.5, 0.5, 2) down -z through the diagonal of a unit square made of two
  triangles gives ``index_tri == [0, 1]`` in ``ray_triangle`` and ``[0]`` here.
- Hits are those with ``t >= 0`` (trimesh's pure-Python engine also keeps hits up to 1e-6
  behind the origin).
- Locations are computed in float64 from the hit triangle's float64 vertices and the hit's
  barycentrics (the query itself runs in float32).
- Rays with a NaN, an infinity or a zero direction hit nothing (as in trimesh), rather than
  raise as raypick's own API does.
- ``contains_points`` and the sign of ``signed_distance`` come from the generalized winding
  number (inside when it is at least 0.5, or on the surface): no ray through an edge or a
  vertex can flip the answer, and small holes or self-intersections do not either (trimesh
  casts rays and falls back on a vote).
"""

from __future__ import annotations

from typing import Optional, Tuple

import numpy as np

from . import Mesh, RaypickError

__all__ = ["RayMeshIntersector"]

class RayMeshIntersector:
    """trimesh's ``RayMeshIntersector`` on raypick.

    Args:
        mesh: a ``trimesh.Trimesh`` (or anything with ``vertices`` (n, 3) and ``faces``
            (m, 3)). The BVH is built on first use and rebuilt when the mesh changes (its
            ``__hash__``, as trimesh's caches do).
        threads: threads per query (``None``: raypick's default, all cores).
    """

    def __init__(self, mesh, threads: Optional[int] = None):
        self.mesh = mesh
        self.threads = threads
        self._native: Optional[Mesh] = None
        self._key = None

    def _key_now(self):
        try:
            return self.mesh.__hash__()
        except TypeError:
            return id(self.mesh)

    @property
    def _mesh(self) -> Mesh:
        key = self._key_now()
        if self._native is None or key != self._key:
            self._native = Mesh(
                np.asarray(self.mesh.vertices, dtype=np.float64),
                np.asarray(self.mesh.faces),
                threads=self.threads,
            )
            self._key = key
        return self._native

    def _rays(self, ray_origins, ray_directions) -> Tuple[np.ndarray, np.ndarray]:
        o = np.asanyarray(ray_origins, dtype=np.float64)
        d = np.asanyarray(ray_directions, dtype=np.float64)
        if o.ndim != 2 or o.shape[1] != 3 or d.shape != o.shape:
            raise RaypickError(
                f"ray origins and directions must both be (n, 3), got {o.shape} and {d.shape}"
            )
        return o, d

    def _locations(self, tri: np.ndarray, uv: np.ndarray) -> np.ndarray:
        v = np.asarray(self.mesh.vertices, dtype=np.float64)
        f = np.asarray(self.mesh.faces)[tri]
        u = uv[:, 0:1].astype(np.float64)
        w = uv[:, 1:2].astype(np.float64)
        return (1.0 - u - w) * v[f[:, 0]] + u * v[f[:, 1]] + w * v[f[:, 2]]

    def intersects_id(
        self,
        ray_origins,
        ray_directions,
        return_locations: bool = False,
        multiple_hits: bool = True,
        max_hits: Optional[int] = None,
        **kwargs,
    ):
        """The triangles the rays hit.

        Returns ``index_tri`` (h,) int64, ``index_ray`` (h,) int64 and, with
        ``return_locations``, ``locations`` (h, 3) float64. With ``multiple_hits`` every
        crossing of each ray (one per crossing, sorted by ray then distance; at most
        ``max_hits`` per ray when given), otherwise only the first.
        """
        o, d = self._rays(ray_origins, ray_directions)
        m = self._mesh
        if multiple_hits:
            a = m.all_hits(o, d, strict=False, threads=self.threads)
            tri, ray, uv = a.triangle, a.ray, a.uv
            if max_hits is not None and len(ray):
                first = np.searchsorted(ray, ray, side="left")
                keep = (np.arange(len(ray)) - first) < int(max_hits)
                tri, ray, uv = tri[keep], ray[keep], uv[keep]
        else:
            h = m.closest_hit(o, d, strict=False, threads=self.threads)
            ray = np.nonzero(h.hit)[0]
            tri, uv = h.triangle[ray], h.uv[ray]
        index_tri = tri.astype(np.int64)
        index_ray = ray.astype(np.int64)
        if return_locations:
            return index_tri, index_ray, self._locations(index_tri, uv)
        return index_tri, index_ray

    def intersects_location(self, ray_origins, ray_directions, multiple_hits: bool = True, **kwargs):
        """``(locations (h, 3) float64, index_ray (h,) int64, index_tri (h,) int64)``."""
        index_tri, index_ray, locations = self.intersects_id(
            ray_origins, ray_directions, return_locations=True, multiple_hits=multiple_hits, **kwargs
        )
        return locations, index_ray, index_tri

    def intersects_first(self, ray_origins, ray_directions, **kwargs) -> np.ndarray:
        """The first triangle each ray hits: (n,) int64, -1 for a miss."""
        o, d = self._rays(ray_origins, ray_directions)
        # The closest hits' triangles alone (the other columns are not built).
        kw = self._mesh._kw(0.0, float("inf"), "none", self.threads, strict=False)
        return self._mesh._native.rays("first", o, d, kw)

    def intersects_any(self, ray_origins, ray_directions, **kwargs) -> np.ndarray:
        """Whether each ray hits the mesh: (n,) bool."""
        o, d = self._rays(ray_origins, ray_directions)
        return self._mesh.any_hit(o, d, strict=False, threads=self.threads)

    def contains_points(self, points, check_direction=None) -> np.ndarray:
        """Whether each point is inside the mesh: (n,) bool.

        raypick's winding-number test (winding number >= 0.5, or on the surface): exact on
        closed meshes and robust on small holes and self-intersections; no ray is cast, so
        ``check_direction`` is accepted and ignored.
        """
        p = np.asanyarray(points, dtype=np.float64)
        if p.ndim != 2 or p.shape[1] != 3:
            raise RaypickError(f"points must be (n, 3), got {p.shape}")
        return self._mesh.contains(p, threads=self.threads)

    def closest_point(self, points) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``trimesh.proximity.closest_point``'s answer: ``(closest (m, 3) float64,
        distance (m,) float64, triangle_id (m,) int64)``, exact (no candidate search)."""
        p = np.asanyarray(points, dtype=np.float64)
        if p.ndim != 2 or p.shape[1] != 3:
            raise RaypickError(f"points must be (n, 3), got {p.shape}")
        n = self._mesh.nearest_point(p, threads=self.threads)
        tri = n.triangle.astype(np.int64)
        closest = self._locations(tri, n.uv) if len(tri) else np.zeros((0, 3))
        distance = np.linalg.norm(p - closest, axis=1)
        return closest, distance, tri

    def signed_distance(self, points) -> np.ndarray:
        """``trimesh.proximity.signed_distance``'s answer: (m,) float64, positive inside
        (raypick's sign is the opposite: its own ``Mesh.signed_distance`` is negative inside).

        The distance is the float64 distance to the nearest point on the float64 triangle;
        the side comes from the winding number, so there are no sign errors from rays
        through edges or from small holes.
        """
        p = np.asanyarray(points, dtype=np.float64)
        if p.ndim != 2 or p.shape[1] != 3:
            raise RaypickError(f"points must be (n, 3), got {p.shape}")
        s = self._mesh.signed_distance(p, threads=self.threads)
        closest = self._locations(s.triangle.astype(np.int64), s.uv) if len(p) else np.zeros((0, 3))
        distance = np.linalg.norm(p - closest, axis=1)
        return np.where(s.distance <= 0, distance, -distance)

    def __getstate__(self):
        return {"mesh": self.mesh, "threads": self.threads}

    def __setstate__(self, state):
        self.__init__(state["mesh"], state["threads"])

    def __copy__(self):
        return RayMeshIntersector(self.mesh, self.threads)

    def __deepcopy__(self, memo):
        return self.__copy__()
