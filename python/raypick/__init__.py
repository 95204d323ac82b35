"""raypick: watertight, BVH-accelerated ray queries on triangle meshes, from numpy.

The names mirror the Rust library's: :class:`Mesh` and :class:`Scene` answer
``closest_hit``, ``any_hit``, ``all_hits`` and ``nearest_point`` for whole batches of rays
or points at once.

Arrays
------
Inputs are numpy arrays (or anything ``numpy.asarray`` accepts) of float32 or float64, C or
Fortran order, of any leading shape: points ``(..., 3)``, rays either as ``origins`` and
``directions`` of the same shape ``(..., 3)`` or as one ``(..., 6)`` array (origin then
direction). Integer inputs are taken as float64. Results keep the leading shape.

float64 input is read in place and rounded to the nearest float32 as it is read, inside the
native module; queries run in float32 and return float32 (``t``, ``point``, ``normal``,
``uv``, ``distance``). Rays and points are not copied on the Python side. A value beyond
float32's range becomes infinite and is refused as not finite.

One exception, for large coordinates (map, survey, planet): ``Scene.closest_hit``,
``Scene.any_hit`` and ``Scene.all_hits`` given float64 rays take the f64 path, and so do
``Scene.nearest_point``, ``Scene.winding_number``, ``Scene.contains`` and
``Scene.signed_distance`` given float64 points. Instances are placed by their float64
matrices, each ray or point goes into an instance's frame in float64 and is rounded to
float32 only there, and ``t``, ``point`` and ``distance`` come back float64: a scene placed
at ``5e6`` is picked and measured as exactly as at the origin. (Meshes keep float32 vertices in their own frame: build a mesh far
from the origin around its own centre and place it with a float64 translation.)

Directions are never normalized: ``t`` is in units of the direction given.

Threads
-------
Each batch releases the GIL and runs on rayon's threads. ``threads=None`` (the default)
uses :func:`get_threads` (0: all cores, changed by :func:`set_threads`); ``threads=1`` runs
on a dedicated pool of one thread, so the query is exactly single-threaded.

Errors
------
Bad input raises :class:`RaypickError` (a ``ValueError``) naming the bad element: ``ray 12:
direction is zero``, ``triangle 3: vertex index 9 (corner 1) is out of range (8
vertices)``; a missing file raises ``FileNotFoundError``.
"""

from __future__ import annotations

from typing import Optional, Tuple, Union

import numpy as np

from . import _raypick
from ._raypick import RaypickError, get_threads, set_threads

__all__ = [
    "AllHits",
    "Camera",
    "Hits",
    "Mesh",
    "Nearest",
    "PointSet",
    "RaypickError",
    "Scene",
    "SegmentSet",
    "SignedDistance",
    "get_threads",
    "load",
    "load_scene",
    "set_threads",
]

__version__ = "0.1.0"

#: The id reported for "no triangle" or "no instance" (open3d's invalid id).
INVALID_ID = 4294967295

ArrayLike = Union[np.ndarray, list, tuple]


def _floats(a: ArrayLike, name: str) -> np.ndarray:
    """``a`` as a float32 or float64 array in native byte order, without a copy when it is one."""
    a = np.asarray(a)
    if a.dtype == np.float32 or a.dtype == np.float64:
        if not a.dtype.isnative:
            a = a.astype(a.dtype.newbyteorder("="))
        return a
    if a.dtype.kind in "iub":
        return a.astype(np.float64)
    raise RaypickError(f"{name} must hold numbers (float32 or float64), got dtype {a.dtype}")


def _rays(origins: ArrayLike, directions: Optional[ArrayLike]) -> Tuple[np.ndarray, Optional[np.ndarray], tuple]:
    o = _floats(origins, "rays" if directions is None else "origins")
    if directions is None:
        if o.ndim == 0 or o.shape[-1] != 6:
            raise RaypickError(f"rays must have shape (..., 6), got {o.shape}")
        return o, None, o.shape[:-1]
    d = _floats(directions, "directions")
    if o.ndim == 0 or o.shape[-1] != 3:
        raise RaypickError(f"origins must have shape (..., 3), got {o.shape}")
    if d.shape != o.shape:
        # One origin for many directions (or the reverse) broadcasts, as a camera's rays do.
        try:
            o, d = np.broadcast_arrays(o, d)
        except ValueError:
            raise RaypickError(
                f"origins {o.shape} and directions {d.shape} must have the same shape"
            ) from None
    return o, d, o.shape[:-1]


def _points(points: ArrayLike) -> Tuple[np.ndarray, tuple]:
    p = _floats(points, "points")
    if p.ndim == 0 or p.shape[-1] != 3:
        raise RaypickError(f"points must have shape (..., 3), got {p.shape}")
    return p, p.shape[:-1]


def _shaped(d: dict, lead: tuple) -> dict:
    return {k: v.reshape(lead + v.shape[1:]) for k, v in d.items()}


class Hits:
    """Closest hits, one per ray, in the rays' leading shape ``S``.

    Attributes:
        t: float32 ``S`` (float64 for float64 rays on a :class:`Scene`); ray parameter in units
            of the direction; ``inf`` on a miss.
        hit: bool ``S``.
        instance: uint32 ``S``; the scene instance (0 for a :class:`Mesh`);
            4294967295 on a miss.
        triangle: uint32 ``S``; the triangle's index in its mesh; 4294967295 on a miss.
        uv: float32 ``S + (2,)``; barycentric weights of the second and third corners
            (0 on a miss).
        point: float32 ``S + (3,)`` (float64 for float64 rays on a :class:`Scene`); world hit
            point (NaN on a miss).
        normal: float32 ``S + (3,)``; unit geometric normal ``(b - a) x (c - a)``,
            whichever side was hit (0 on a miss).
        front_face: bool ``S``; the ray hit the counter-clockwise side.
    """

    __slots__ = ("t", "hit", "instance", "triangle", "uv", "point", "normal", "front_face")

    def __init__(self, d: dict, lead: tuple):
        for k, v in _shaped(d, lead).items():
            setattr(self, k, v)

    def __len__(self) -> int:
        return len(self.t)

    def __repr__(self) -> str:
        return f"Hits(shape={self.t.shape}, hits={int(self.hit.sum())})"


class AllHits:
    """Every crossing of every ray, flat: sorted by ray, then by ``t``.

    One hit per surface crossing: a ray through a shared edge or vertex crosses once.
    Attributes as in :class:`Hits` (all 1-D, one row per hit, ``hit`` all true), plus
    ``ray``: int64, the flat index of each hit's ray (``numpy.ravel_multi_index`` of the
    rays' leading shape), and ``counts``: int64 in the rays' leading shape, the number of
    hits of each ray.
    """

    __slots__ = ("t", "hit", "instance", "triangle", "uv", "point", "normal", "front_face", "ray", "counts")

    def __init__(self, d: dict, lead: tuple):
        for k, v in d.items():
            setattr(self, k, v)
        self.ray = self.ray.astype(np.int64, copy=False)
        n = int(np.prod(lead, dtype=np.int64))
        self.counts = np.bincount(self.ray, minlength=n).astype(np.int64).reshape(lead)

    def __len__(self) -> int:
        return len(self.t)

    def __repr__(self) -> str:
        return f"AllHits(rays={self.counts.size}, hits={len(self.t)})"


class Nearest:
    """Nearest surface points, one per query point, in the points' leading shape ``S``.

    Attributes:
        point: float32 ``S + (3,)`` (float64 for float64 points on a :class:`Scene`; NaN
            where nothing is within ``max_distance``).
        distance: float32 ``S`` (float64 likewise; ``inf`` where nothing is found).
        instance: uint32 ``S`` (0 for a :class:`Mesh`; 4294967295 where nothing is found).
        triangle: uint32 ``S`` (4294967295 where nothing is found).
        uv: float32 ``S + (2,)``; barycentrics of the point on its triangle.
        found: bool ``S``.
    """

    __slots__ = ("point", "distance", "instance", "triangle", "uv", "found")

    def __init__(self, d: dict, lead: tuple):
        for k, v in _shaped(d, lead).items():
            setattr(self, k, v)

    def __repr__(self) -> str:
        return f"Nearest(shape={self.distance.shape}, found={int(self.found.sum())})"


class SignedDistance:
    """Signed distances of query points to a :class:`Mesh` or a :class:`Scene`, in the points'
    leading shape ``S``.

    Attributes:
        distance: float32 ``S`` (float64 for float64 points on a :class:`Scene`); the
            distance to the nearest surface point, negative inside (winding number >= 0.5),
            0 on the surface (NaN for a non-finite point with ``strict=False``, or an empty
            mesh).
        point: float32 ``S + (3,)`` (float64 likewise); the nearest surface point.
        instance: uint32 ``S``; its instance (0 on a :class:`Mesh`; 4294967295 where
            there is none).
        triangle: uint32 ``S``; its triangle (4294967295 on a scene's shape, or none).
        uv: float32 ``S + (2,)``; its barycentrics.
        winding_number: float32 ``S``; the generalized winding number that decided the side:
            exact on a closed mesh off the surface; on an open mesh that of
            :meth:`Mesh.winding_number` within 1/30 of 0.5 (0.1 on a mesh without a
            short rim), within 3e-2 of it up to 0.35 from 0.5, and within about 0.1
            farther out.
    """

    __slots__ = ("distance", "point", "instance", "triangle", "uv", "winding_number")

    def __init__(self, d: dict, lead: tuple):
        for k, v in _shaped(d, lead).items():
            setattr(self, k, v)

    def __repr__(self) -> str:
        return f"SignedDistance(shape={self.distance.shape}, inside={int((self.distance <= 0).sum())})"


class _Queries:
    """The ray and point queries shared by :class:`Mesh` and :class:`Scene`."""

    _native: object

    def _kw(self, t_min, t_max, cull, threads, strict=True, mask=0xFFFFFFFF):
        # The native ray queries take their options as this one dict.
        return dict(t_min=float(t_min), t_max=float(t_max), cull=str(cull), mask=int(mask),
                    strict=bool(strict), threads=None if threads is None else int(threads))

    def closest_hit(self, origins: ArrayLike, directions: Optional[ArrayLike] = None, *,
                    t_min: float = 0.0, t_max: float = float("inf"), cull: str = "none",
                    threads: Optional[int] = None, **kw) -> Hits:
        """The nearest hit of each ray with ``t_min <= t <= t_max``.

        Watertight: a ray through an edge or vertex shared by several triangles hits one of
        them; among hits at exactly the same ``t`` the lowest triangle index wins.
        ``cull`` is ``"none"``, ``"back"`` or ``"front"``. A ray with a NaN or infinite
        component or a zero direction raises :class:`RaypickError` naming it (by its index
        in the flattened batch); with ``strict=False`` it is a miss instead (every query
        takes ``strict``).

        Rays shaped as an image, ``(H, W, 6)`` (or origins and directions of ``(H, W, 3)``,
        or a stack of images ``(..., H, W, 6)``), such as a camera's rays through every
        pixel, are cast in 4 x 4 tiles of neighbouring pixels, each tile as one packet:
        the same answers as one ray at a time, faster when the rays of a tile run side by
        side. A flat ``(n, 6)`` batch that holds an image's rays row after row (trimesh's
        ``camera_rays``, a reshaped frame) is recognised from its rays and tiled the same
        way. (A :class:`Scene` given float64 rays answers them on its float64 path, ray by
        ray.)
        """
        o, d, lead = _rays(origins, directions)
        r = self._native.rays("closest", o, d, self._kw(t_min, t_max, cull, threads, **kw))
        return Hits(r, lead)

    def any_hit(self, origins: ArrayLike, directions: Optional[ArrayLike] = None, *,
                t_min: float = 0.0, t_max: float = float("inf"), cull: str = "none",
                threads: Optional[int] = None, **kw) -> np.ndarray:
        """A bool per ray: whether anything is hit with ``t_min <= t <= t_max`` (occlusion).

        Rays shaped as an image are cast in 4 x 4 tiles as packets, as :meth:`closest_hit`
        casts them.
        """
        o, d, lead = _rays(origins, directions)
        return self._native.rays("any", o, d, self._kw(t_min, t_max, cull, threads, **kw)).reshape(lead)

    def all_hits(self, origins: ArrayLike, directions: Optional[ArrayLike] = None, *,
                 t_min: float = 0.0, t_max: float = float("inf"), cull: str = "none",
                 threads: Optional[int] = None, **kw) -> AllHits:
        """Every surface crossing of every ray, sorted by ray then ``t`` (see :class:`AllHits`).

        Exactly one hit per crossing, decided exactly (not by a ``t`` tolerance): a ray
        through a shared edge crosses once, and a ray grazing a silhouette edge of a closed
        mesh reports an entry and an exit, so closed meshes give even counts.
        """
        o, d, lead = _rays(origins, directions)
        return AllHits(self._native.rays("all", o, d, self._kw(t_min, t_max, cull, threads, **kw)), lead)

    def nearest_point(self, points: ArrayLike, max_distance: float = float("inf"), *,
                      strict: bool = True, threads: Optional[int] = None) -> Nearest:
        """The nearest surface point to each point within ``max_distance`` (inclusive).

        Exact: the minimum over all triangles of the point-triangle distance (computed in
        float64 from the float32 vertices, rounded to float32); ties go to the lowest index.
        A NaN or infinite point raises, or with ``strict=False`` finds nothing.
        """
        p, lead = _points(points)
        return Nearest(self._native.nearest_point(p, float(max_distance), strict=bool(strict), threads=threads), lead)

    def winding_number(self, points: ArrayLike, *, strict: bool = True,
                       threads: Optional[int] = None) -> np.ndarray:
        """The generalized winding number of each point: float32 in the points' leading shape,
        1 inside a closed, outward-facing mesh, 0 outside, fractional near holes.

        On a closed mesh (corners welded by position) it is counted exactly off the surface:
        the signed crossings of one ray, each crossing through an edge or a vertex counted
        once. On an open mesh: exact float64 solid angles near the point and a second-order
        far-field expansion for distant clusters (Barill et al. 2018), within 1e-3 of the
        exact sum. On a :class:`Scene`: the sum over every instance at the point taken to
        its object space (a closed mesh gives 1 inside under any invertible transform,
        mirrors included), plus 1 inside each shape; every object counts, whatever its mask.
        """
        p, lead = _points(points)
        return self._native.solid("winding_number", p, strict=bool(strict), threads=threads).reshape(lead)

    def contains(self, points: ArrayLike, *, strict: bool = True,
                 threads: Optional[int] = None) -> np.ndarray:
        """Whether each point is inside: winding number >= 0.5, or exactly on the surface.

        Robust on meshes with small holes or self-intersections, where ray parity is not.
        On a :class:`Scene`, inside the union of its solids (the winding numbers summed, see
        :meth:`winding_number`).
        """
        p, lead = _points(points)
        return self._native.solid("contains", p, strict=bool(strict), threads=threads).reshape(lead)

    def signed_distance(self, points: ArrayLike, *, strict: bool = True,
                        threads: Optional[int] = None) -> "SignedDistance":
        """The exact distance to the surface, negative where :meth:`contains` is true, with
        the nearest point (see :class:`SignedDistance`). On a :class:`Scene`, the world
        distance to the nearest object."""
        p, lead = _points(points)
        return SignedDistance(self._native.solid("signed_distance", p, strict=bool(strict), threads=threads), lead)


class Mesh(_Queries):
    """A triangle mesh with its BVH.

    Args:
        vertices: ``(N, 3)`` (or any ``(..., 3)``, flattened) float32 or float64 positions;
            float64 is rounded to float32.
        faces: ``(M, 3)`` vertex indices of any integer dtype.
        threads: threads for the BVH build (see the module docs).

    Raises:
        RaypickError: a face index out of range (naming the face and corner), a NaN or
            infinite vertex (naming the vertex), wrong shapes.

    Degenerate (zero-area) triangles are kept: they never hit a ray but count for nearest
    points. An empty mesh is valid and finds nothing.
    """

    __slots__ = ("_native",)

    def __init__(self, vertices: ArrayLike, faces: ArrayLike, *, threads: Optional[int] = None):
        v = _floats(vertices, "vertices")
        f = np.asarray(faces)
        if f.size == 0:
            f = f.reshape(0, 3)
        if f.dtype.kind not in "iu":
            raise RaypickError(f"faces must hold integers, got dtype {f.dtype}")
        if f.dtype.kind == "u" and f.dtype.itemsize == 8 and f.size and f.max() > np.iinfo(np.int64).max:
            raise RaypickError("faces hold an index beyond int64")
        if f.ndim != 2 or f.shape[1] != 3:
            raise RaypickError(f"faces must have shape (M, 3), got {f.shape}")
        self._native = _raypick.Mesh(v, f.astype(np.int64, copy=False), threads=threads)

    @classmethod
    def _wrap(cls, native) -> "Mesh":
        m = cls.__new__(cls)
        m._native = native
        return m

    @property
    def triangle_count(self) -> int:
        """The number of triangles."""
        return self._native.triangle_count

    @property
    def vertex_count(self) -> int:
        """The number of vertices."""
        return self._native.vertex_count

    @property
    def bounds(self) -> np.ndarray:
        """``(2, 3)`` float32: the bounding box's min and max corners."""
        return np.array(self._native.bounds, dtype=np.float32)

    def __len__(self) -> int:
        return self._native.triangle_count

    def __repr__(self) -> str:
        return repr(self._native)


class Scene(_Queries):
    """Meshes instanced under 4x4 object-to-world transforms, with a top-level BVH.

    Hits report the ``instance`` id returned by :meth:`add_instance` and the ``triangle``
    index within that instance's mesh. Queries also take ``mask`` (an instance is tested
    when its layer mask, all ones here, ANDs non-zero with it).

    A scene may be queried from several Python threads at once; an edit while a query runs
    on another thread raises :class:`RaypickError`.
    """

    __slots__ = ("_native",)

    def __init__(self):
        self._native = _raypick.Scene()

    @classmethod
    def _wrap(cls, native) -> "Scene":
        s = cls.__new__(cls)
        s._native = native
        return s

    def save(self, path) -> None:
        """Saves the scene with its BVHs (raypick's ``.rpk`` format): ``load_scene`` loads it
        back without rebuilding, with the same instance ids and the same answers."""
        self._native.save(str(path))

    def add_mesh(self, mesh: Mesh) -> int:
        """Adds ``mesh`` (shared, not copied; one BVH for all its instances); returns its mesh id."""
        return self._native.add_mesh(mesh._native)

    def add_instance(self, mesh_id: int, transform: Optional[ArrayLike] = None) -> int:
        """Adds an instance of mesh ``mesh_id`` placed by the ``(4, 4)`` affine ``transform``
        (identity when omitted); returns its instance id.

        Any invertible affine matrix works (rotation, translation, non-uniform scale,
        mirroring); a NaN, projective or singular matrix raises :class:`RaypickError`.
        """
        t = None if transform is None else np.asarray(transform, dtype=np.float64)
        return self._native.add_instance(int(mesh_id), t)

    def set_transform(self, instance: int, transform: ArrayLike) -> None:
        """Moves an instance."""
        self._native.set_transform(int(instance), np.asarray(transform, dtype=np.float64))

    def transform(self, instance: int) -> np.ndarray:
        """The ``(4, 4)`` float64 transform of an instance (as given)."""
        return np.array(self._native.transform(int(instance)), dtype=np.float64)

    def remove(self, instance: int) -> None:
        """Removes an instance (its id may be reused later)."""
        self._native.remove(int(instance))

    @property
    def instances(self) -> list:
        """The live instance ids, ascending."""
        return self._native.instances()

    def closest_hit(self, origins, directions=None, *, mask: int = 0xFFFFFFFF, **kw) -> Hits:
        return super().closest_hit(origins, directions, mask=mask, **kw)

    def any_hit(self, origins, directions=None, *, mask: int = 0xFFFFFFFF, **kw) -> np.ndarray:
        return super().any_hit(origins, directions, mask=mask, **kw)

    def all_hits(self, origins, directions=None, *, mask: int = 0xFFFFFFFF, **kw) -> AllHits:
        return super().all_hits(origins, directions, mask=mask, **kw)

    def pick(self, camera: Camera, width: float, height: float, x: float, y: float, *,
             snap_radius: Optional[float] = None, snap_occluded: bool = False,
             mask: int = 0xFFFFFFFF, radius_px: float = 5.0, xray: bool = False) -> Optional[dict]:
        """What the cursor at window position ``(x, y)`` of a ``width`` x ``height`` viewport
        picks: ``None`` when nothing, else a dict with ``ray`` (6 floats), ``hit`` (``None`` or
        a dict of ``t``, ``instance``, ``triangle``, ``uv``, ``point``, ``normal``,
        ``front_face``), with ``snap_radius`` (pixels) the nearest visible ``vertex`` and
        ``edge`` within it (``None`` when there is none), and ``prim``: the point or segment
        of a :class:`PointSet` or :class:`SegmentSet` whose projection lies within
        ``radius_px`` of the cursor, nearest the camera and hidden by no surface (``xray``
        ignores surfaces), as a dict of ``kind`` (``"point"`` or ``"segment"``), ``set``,
        ``index``, ``u`` (along a segment), ``point`` (float64), ``distance_px`` and
        ``depth``; it wins over the surface ``hit`` behind it, as in CAD tools. A cursor
        outside the viewport, a viewport without area or a camera that cannot make a ray
        raises ``RaypickError``."""
        return self._native.pick(camera._native, float(width), float(height), float(x), float(y),
                                 snap_radius, bool(snap_occluded), int(mask), float(radius_px), bool(xray))

    def add_points(self, points: "PointSet", transform: Optional[ArrayLike] = None) -> int:
        """Places a :class:`PointSet` (shared, not copied) under a ``(4, 4)`` affine
        ``transform`` (identity when omitted); returns its set id, which ``pick``,
        ``prims_within_ray``, ``nearest_prim`` and ``select_rect`` report (set ids are apart
        from instance ids). Ray queries do not see points: they have no area."""
        t = None if transform is None else np.asarray(transform, dtype=np.float64)
        return self._native.add_points(points._native, t)

    def add_segments(self, segments: "SegmentSet", transform: Optional[ArrayLike] = None) -> int:
        """:meth:`add_points` for a :class:`SegmentSet`."""
        t = None if transform is None else np.asarray(transform, dtype=np.float64)
        return self._native.add_segments(segments._native, t)

    def set_prims_mask(self, set_id: int, mask: int) -> None:
        """Sets the layer mask of a point or segment set."""
        self._native.set_prims_mask(int(set_id), int(mask))

    def remove_prims(self, set_id: int) -> None:
        """Removes a point or segment set (its id may be reused later)."""
        self._native.remove_prims(int(set_id))

    def prims_within_ray(self, origin: ArrayLike, direction: ArrayLike, radius: float, *,
                         mask: int = 0xFFFFFFFF) -> dict:
        """Every point and segment within ``radius`` (world units) of the ray ``origin + t *
        direction``, ``t >= 0``, measured in world space in float64: a dict of arrays
        ``set``, ``kind`` (0 point, 1 segment), ``index``, ``t``, ``u`` and ``distance``,
        sorted by ``t``."""
        o = [float(c) for c in np.asarray(origin, dtype=np.float64).reshape(3)]
        d = [float(c) for c in np.asarray(direction, dtype=np.float64).reshape(3)]
        return self._native.prims_within_ray(o, d, float(radius), int(mask))

    def nearest_prim(self, points: ArrayLike, max_distance: float = float("inf"), *,
                     mask: int = 0xFFFFFFFF, threads: Optional[int] = None) -> dict:
        """For each point ``(..., 3)``, the nearest point or segment within ``max_distance``:
        a dict of ``found``, ``set``, ``kind``, ``index``, ``u``, ``point`` (float64) and
        ``distance`` (``inf`` when none), with the points' leading shape."""
        p, lead = _points(points)
        return _shaped(self._native.nearest_prim(p, float(max_distance), int(mask), threads), lead)

    def select_rect(self, camera: Camera, width: float, height: float, x0: float, y0: float,
                    x1: float, y1: float, *, mode: str = "inside", triangles: bool = False,
                    visible_only: bool = False, mask: int = 0xFFFFFFFF) -> dict:
        """Marquee selection: the instances ``"inside"`` (or ``"intersecting"``) the window
        rectangle with corners ``(x0, y0)`` and ``(x1, y1)``. Returns ``{"instances": [ids],
        "triangles": {id: uint32 array}, "prims": {set id: uint32 array}}`` (triangles filled
        when ``triangles=True``; ``prims`` lists the points, and the segments by ``mode``, of
        each point or segment set); ``visible_only`` keeps only what sample rays through the
        rectangle reach first (points and segments: what no surface hides)."""
        return self._native.select_rect(camera._native, float(width), float(height), float(x0), float(y0),
                                        float(x1), float(y1), mode, bool(triangles), bool(visible_only), int(mask))

    closest_hit.__doc__ = _Queries.closest_hit.__doc__
    any_hit.__doc__ = _Queries.any_hit.__doc__
    all_hits.__doc__ = _Queries.all_hits.__doc__

    def __len__(self) -> int:
        return len(self._native)

    def __repr__(self) -> str:
        return repr(self._native)


class PointSet:
    """A point cloud with its BVH, for :meth:`Scene.add_points`: picked under the cursor with
    a tolerance in pixels and found around rays and points. ``points`` is ``(N, 3)``; a NaN
    or infinite point raises :class:`RaypickError` naming it."""

    __slots__ = ("_native",)

    def __init__(self, points: ArrayLike):
        self._native = _raypick.PointSet(_floats(points, "points"))

    def __len__(self) -> int:
        return len(self._native)

    def __repr__(self) -> str:
        return f"PointSet({len(self)} points)"


class SegmentSet:
    """Line segments between indexed points, with their BVH, for :meth:`Scene.add_segments`.
    ``segments`` is ``(M, 2)`` point indices; without it, the polyline through ``points`` in
    order (``closed`` joins the last point to the first). A segment with both ends equal is
    a point."""

    __slots__ = ("_native",)

    def __init__(self, points: ArrayLike, segments: Optional[ArrayLike] = None, *, closed: bool = False):
        p = _floats(points, "points")
        s = None if segments is None else np.asarray(segments).astype(np.int64, copy=False)
        self._native = _raypick.SegmentSet(p, s, bool(closed))

    def __len__(self) -> int:
        return len(self._native)

    def __repr__(self) -> str:
        return f"SegmentSet({len(self)} segments)"


class Camera:
    """A camera for picking: right-handed, looking from ``eye`` at ``target``.

    Build it with :meth:`look_at` or :meth:`from_matrices`. Matrices are kept in float64.
    ``convention`` is the clip-space convention of the projection: ``"opengl"`` (NDC depth
    -1..1), ``"zero_to_one"`` (``"d3d"``, ``"wgpu"``) or ``"vulkan"`` (0..1, y down).
    """

    __slots__ = ("_native",)

    def __init__(self, native):
        self._native = native

    @classmethod
    def look_at(cls, eye, target, up=(0.0, 1.0, 0.0), *, fov_y_deg: float = 60.0, aspect: float = 1.0,
                near: float = 0.1, far: float = 1000.0, ortho_height: Optional[float] = None,
                convention: str = "opengl") -> "Camera":
        """A perspective camera (vertical field of view ``fov_y_deg``, ``aspect`` = width /
        height), or an orthographic one ``ortho_height`` world units high."""
        f = lambda v: [float(x) for x in np.asarray(v, dtype=np.float64).reshape(3)]  # noqa: E731
        return cls(_raypick.Camera.look_at(f(eye), f(target), f(up), float(fov_y_deg), float(aspect),
                                           float(near), float(far), ortho_height, convention))

    @classmethod
    def from_matrices(cls, view: ArrayLike, projection: ArrayLike, convention: str = "opengl") -> "Camera":
        """A camera from 4x4 view (world to view) and projection (view to clip) matrices."""
        return cls(_raypick.Camera.from_matrices(np.asarray(view, dtype=np.float64),
                                                 np.asarray(projection, dtype=np.float64), convention))

    def rays_from_pixels(self, pixels: ArrayLike, width: float, height: float, *,
                         threads: Optional[int] = None) -> np.ndarray:
        """Rays ``(..., 6)`` float32 through window positions ``(..., 2)`` (pixels, origin top
        left, y down; pixel ``(i, j)``'s centre is ``(i + 0.5, j + 0.5)``) of a ``width`` x
        ``height`` viewport: origins on the near plane, unit directions, so ``t`` is the
        distance from the near plane."""
        p = _floats(pixels, "pixels")
        if p.ndim == 0 or p.shape[-1] != 2:
            raise RaypickError(f"pixels must have shape (..., 2), got {p.shape}")
        r = self._native.rays_from_pixels(p, float(width), float(height), threads=threads)
        return r.reshape(p.shape[:-1] + (6,))

    def pixel_rays(self, width: int, height: int, *, threads: Optional[int] = None) -> np.ndarray:
        """The rays through every pixel centre: ``(height, width, 6)`` float32, exactly the
        rays ``rays_from_pixels`` gives for the centres ``(i + 0.5, j + 0.5)``, made a row
        at a time in parallel (a row's share of the unprojection is computed once)."""
        width, height = int(width), int(height)
        if width <= 0 or height <= 0:
            raise RaypickError(f"the viewport must have a positive size, got {width} x {height}")
        r = self._native.pixel_rays(width, height, threads=threads)
        return r.reshape(height, width, 6)

    @property
    def view_matrix(self) -> np.ndarray:
        """The 4x4 view matrix, float64."""
        return np.array(self._native.view_matrix())

    @property
    def projection_matrix(self) -> np.ndarray:
        """The 4x4 projection matrix, float64."""
        return np.array(self._native.projection_matrix())


def load(path) -> Mesh:
    """Loads an OBJ, glTF (.gltf/.glb), PLY (ASCII or binary) or STL (ASCII or binary) file
    as one :class:`Mesh`, every instance's triangles flattened into world space in load
    order. A missing file raises ``FileNotFoundError``; a bad one :class:`RaypickError`
    naming the file, the line where there is one, and the problem."""
    return Mesh._wrap(_raypick.load(str(path)))


def load_scene(path) -> Scene:
    """Loads a file as a :class:`Scene`: one mesh per file mesh, one instance per file
    object (instance ids in load order), under the file's transforms."""
    return Scene._wrap(_raypick.load_scene(str(path)))
