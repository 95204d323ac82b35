//! [`WindingTree`]: the far-field expansion of every slot of a mesh's 8-wide tree, and the
//! traversal that sums the winding number with it.

use std::ops::Range;

use raypick_bvh::wide::{WideChild, WideLayout};
use raypick_primitives::{point_triangle, Aabb, Point3, Real, Triangle};

use super::angle::{solid_angle, v64, V64};
#[cfg(test)]
use super::boundary::rim_edges;
use super::boundary::{mesh_rim, welded_rim};
use super::lanes::{ExpansionLanes, Frame};
use super::pieces::pieces_mesh;
use super::rim::Rim;
use super::rim_cells::RimCells;
use super::shells::{shell_slots, Shells};
use super::stack::Stack;
use super::tree_build::{box_center, build_lanes};
use crate::mesh::{with_tree, Mesh};

/// How far a cluster must be for its expansion to stand in for its triangles: the query
/// point farther from the cluster's center than `FAR_RATIO` times its radius (the radius
/// bounds the distance from the area-weighted center to every vertex of the cluster).
/// Measured maximum errors on the test meshes: 1.0e-2 at 2 (Barill et al.'s choice), 1.1e-3
/// at 3, 3.0e-4 at 4, which tests/solid_points.rs holds to 1e-3; on the bunny 4 costs
/// about 1.6 times the time of 3.
pub(crate) const FAR_RATIO: f64 = 4.0;

/// The ratio of the first pass of a side decision ([`Mesh::winding_side`]): on a
/// 1M-triangle terrain about 6 times cheaper than [`FAR_RATIO`], on a 100k-triangle soup
/// about 13 times. Measured worst errors against the brute-force sum: 2.1e-2 on the test
/// meshes (`RAYPICK_LONG=1`), 1.3e-2 on `terrain_1m`, 1.8e-2 on `noisy_250k`, 8.6e-3 on
/// `soup_100k` (300 to 2,000 points uniform in their boxes grown by 20%); at 1.5, 1.3e-2
/// on the test meshes (a quarter more work on `soup_100k`), at 2, 3.4e-3. Not a bound: the
/// `solid` fuzz target's folded cubes reach 4.6e-2 (a cluster of large triangles just past
/// 1.3 radii), which the side decisions' 0.1 margin from 0.5 still covers.
///
/// [`Mesh::winding_side`]: crate::Mesh
pub(crate) const COARSE_RATIO: f64 = 1.3;

/// The ratio of a side decision's cheapest pass, before [`COARSE_RATIO`]'s, on open
/// meshes other than sheets with a short rim: on `soup_100k` a third less work than that
/// one. Its errors are about three times [`COARSE_RATIO`]'s. Measured worst against the
/// f64 brute-force sum, on 50,000 to 100,000 points uniform in the box grown by 20% and as
/// many within 1e-5 to 1e-1 of the diagonal off random triangles: `terrain_1m` 9.9e-2,
/// `noisy_250k` 6.9e-2, the bunny 6.8e-2, `soup_100k` 6.5e-2; `cad`'s sliver pieces 0.28
/// (1.0e-1 at [`COARSE_RATIO`]). Not a bound: the side decisions keep its value only more
/// than 0.35 from 0.5.
pub(crate) const FIRST_RATIO: f64 = 1.1;

/// Slots per node.
pub(super) const W: usize = 8;

/// A rim is used when it has at most one edge per this many triangles.
const RIM_SHARE: usize = 4;

/// What the solid queries keep for a mesh: whether it is closed and its rim, the far-field
/// expansions of its tree's slots (one node's 8 per entry), and its sliver pieces, each
/// built on first use.
#[derive(Clone, Debug, Default)]
pub(crate) struct WindingTree {
    /// One node's slots per entry, in f32 lanes, in `frame`; built on first use.
    lanes: std::sync::OnceLock<Vec<ExpansionLanes>>,
    /// The lanes' frame: the middle of the mesh's box, lengths over its size.
    frame: Frame,
    /// Whether the surface is closed (its rim is empty, corners welded by position), the rim
    /// of an open one with a short rim, and the slots of an open one's closed shells
    /// ([`shell_slots`]); found on first use.
    boundary: std::sync::OnceLock<Boundary>,
    /// An open mesh's closed shells and the rest, each a mesh of its own, built on first
    /// use when the shells are enough ([`shell_slots`]).
    shells: std::sync::OnceLock<Option<Box<Shells>>>,
    /// An open mesh of long slivers cut into compact pieces ([`pieces_mesh`]), built on
    /// first use; always `None` on such a mesh of pieces.
    pieces: std::sync::OnceLock<Option<Box<Mesh>>>,
    /// On a mesh of pieces: each piece's triangle in the mesh it was cut from (its position
    /// there in leaf order, by the pieces' original indices), for the distance-0 check.
    parents: std::sync::OnceLock<Vec<u32>>,
    /// The side table of a sheet with a short rim, built once the mesh has decided
    /// [`TABLE_AFTER`] points' sides (see [`WindingTree::note_sides`]).
    cells: std::sync::OnceLock<Option<RimCells>>,
    sides: SideCount,
}

/// What the rim of a mesh says of it ([`WindingTree::boundary`]).
#[derive(Clone, Debug, Default)]
struct Boundary {
    /// True when the rim is empty.
    closed: bool,
    /// The rim, when it is short enough ([`RIM_SHARE`]).
    rim: Option<Rim>,
    /// The leaf slots of the closed shells of an open mesh, when worth a split.
    shells: Option<Vec<u32>>,
}

/// Side decisions asked for so far, and whether the table's build has started (a clone
/// keeps the count; its build, if the table is not there yet, is its own).
#[derive(Debug, Default)]
struct SideCount {
    sides: std::sync::atomic::AtomicUsize,
    building: std::sync::atomic::AtomicBool,
}

impl Clone for SideCount {
    fn clone(&self) -> Self {
        let sides = self.sides.load(std::sync::atomic::Ordering::Relaxed);
        SideCount {
            sides: std::sync::atomic::AtomicUsize::new(sides),
            building: std::sync::atomic::AtomicBool::new(false),
        }
    }
}

/// How many side decisions a mesh makes before the next ones build its side table, so that
/// a single batch of up to that size, or a few scattered queries, never pay for it: the
/// build (50-110 ms on one thread for sheets of 250,000 to 1,000,000 triangles, with the
/// nearest-point structure its distance-0 checks then need) is repaid after a few hundred
/// thousand to a million further points (it saves 0.1-0.2 us each on those sheets).
pub(super) const TABLE_AFTER: usize = 100_000;

/// True when every edge is used as often in one direction as in the other, by the vertex
/// indices: the triangles then bound a solid (their boundary cancels), and the winding
/// number is an integer everywhere off the surface, changing only across it. Meshes whose
/// copies of a vertex are not welded into one index count as open.
#[cfg(test)]
pub(crate) fn is_closed(indices: &[[u32; 3]]) -> bool {
    rim_edges(
        indices
            .iter()
            .flat_map(|t| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])]),
    )
    .is_empty()
}

/// The value of `cell`, computed by `make` outside the cell's lock when unset: building a
/// rim or a mesh of pieces runs on rayon, whose waiting workers run other jobs, and a job
/// that needs the same cell then builds its own (racing builds agree; the first set is
/// kept) where waiting on the lock would wait on itself.
///
/// The set cell's read is inlined into its callers (the solid queries ask several cells per
/// point); the build is kept out of line.
#[inline]
pub(crate) fn outside_lock<T>(cell: &std::sync::OnceLock<T>, make: impl FnOnce() -> T) -> &T {
    match cell.get() {
        Some(v) => v,
        None => fill_outside_lock(cell, make),
    }
}

/// [`outside_lock`]'s build, when the cell is unset.
#[cold]
#[inline(never)]
fn fill_outside_lock<T>(cell: &std::sync::OnceLock<T>, make: impl FnOnce() -> T) -> &T {
    let v = make();
    let _ = cell.set(v);
    cell.get().expect("set just above")
}

/// The frame of the lanes of a mesh with bounds `b`.
pub(super) fn frame_of(b: &Aabb) -> Frame {
    let (lo, hi) = (v64(&b.min), v64(&b.max));
    let half = (0..3).map(|a| 0.5 * (hi[a] - lo[a])).fold(0.0, f64::max);
    Frame::new(box_center(b), half)
}

impl WindingTree {
    /// The structure for `mesh`, nothing built yet but the expansions' frame.
    pub(crate) fn build(mesh: &Mesh) -> Self {
        WindingTree {
            lanes: std::sync::OnceLock::new(),
            frame: frame_of(&mesh.bounds()),
            boundary: std::sync::OnceLock::new(),
            shells: std::sync::OnceLock::new(),
            pieces: std::sync::OnceLock::new(),
            parents: std::sync::OnceLock::new(),
            cells: std::sync::OnceLock::new(),
            sides: SideCount::default(),
        }
    }

    /// The expansions of `mesh` (the mesh this tree was built for), built on first use: a
    /// closed mesh needs them only for points within a hair of its surface.
    #[inline]
    fn lanes(&self, mesh: &Mesh) -> &[ExpansionLanes] {
        outside_lock(
            &self.lanes,
            || with_tree!(&mesh.wide, t => build_lanes(mesh, t.nodes(), self.frame)),
        )
        .as_slice()
    }

    /// `mesh` (the mesh this tree was built for) cut into compact pieces, when it is open
    /// and of long slivers: its winding number is summed over them ([`pieces_mesh`]).
    #[inline]
    pub(crate) fn pieces(&self, mesh: &Mesh) -> Option<&Mesh> {
        outside_lock(&self.pieces, || {
            // A mesh split into shells sums over the rest's pieces.
            if self.closed(mesh) || self.shells(mesh).is_some() {
                return None;
            }
            let (pieces, parents) = pieces_mesh(mesh)?;
            let tree = pieces.winding_tree();
            // The pieces are compact: they sum as they are.
            let _ = tree.pieces.set(None);
            let _ = tree.parents.set(parents);
            // Their rim is the mesh's, its long edges cut at midpoints: the same polyline up
            // to the midpoints' rounding, as the pieces are the same surface. Taken from the
            // mesh, whose corners are shared, rather than welded from the pieces' 3 corners
            // each (on `cad`, about 1 s of a 1.7 s first query).
            let (edges, positions) = mesh_rim(mesh);
            let max = pieces.triangle_count / RIM_SHARE;
            let _ = tree.boundary.set(Boundary {
                closed: false,
                rim: Rim::build(edges, &positions, &pieces.bounds(), max),
                shells: None,
            });
            Some(Box::new(pieces))
        })
        .as_deref()
    }

    /// Builds what the solid queries on `mesh` (the mesh this tree was built for) build on
    /// first use: batches call it before going parallel, so that their workers find it
    /// built. A closed mesh's expansions are left to the first point within its ray
    /// count's margin of the surface (most batches have none; a worker that finds one
    /// builds them, and racing workers each build their own once, the first kept).
    pub(crate) fn prepare(&self, mesh: &Mesh) {
        if self.closed(mesh) {
            // Rays count; the expansions wait for a point within a hair of the surface.
            return;
        }
        if let Some(shells) = self.shells(mesh) {
            shells.closed().winding_tree().prepare(shells.closed());
            shells.open().winding_tree().prepare(shells.open());
            return;
        }
        match self.pieces(mesh) {
            Some(pieces) => pieces.winding_tree().prepare(pieces),
            None => {
                self.lanes(mesh);
            }
        }
    }

    /// The side table of `mesh` when it is a sheet with a short rim and the table has been
    /// built (see [`WindingTree::note_sides`]).
    pub(crate) fn rim_cells(&self, mesh: &Mesh) -> Option<(&Rim, &RimCells)> {
        let cells = self.cells.get()?.as_ref()?;
        Some((self.rim(mesh)?, cells))
    }

    /// Counts `n` side decisions about to be made on `mesh`; once [`TABLE_AFTER`] have
    /// been counted before, the next call builds the side table of a sheet with a short
    /// rim ([`RimCells`]), on this thread (its cells in parallel), before those decisions.
    /// Other threads meanwhile decide without it.
    pub(crate) fn note_sides(&self, mesh: &Mesh, n: usize) {
        use std::sync::atomic::Ordering::Relaxed;
        if let Some(shells) = self.shells(mesh) {
            // The rest's table, if it is a sheet: the shells count by ray.
            shells.open().winding_tree().note_sides(shells.open(), n);
            return;
        }
        if self.cells.get().is_some() || self.closed(mesh) || self.pieces(mesh).is_some() {
            return;
        }
        let Some(rim) = self.rim(mesh) else {
            return;
        };
        let before = self.sides.sides.fetch_add(n, Relaxed);
        if before >= TABLE_AFTER && !self.sides.building.swap(true, Relaxed) {
            let _ = self.cells.set(RimCells::build(mesh, rim));
        }
    }

    /// Whether `mesh` (the mesh this tree was built for) is closed: every edge used as
    /// often in one direction as in the other, by its vertex indices or with the corners at
    /// the same position welded into one vertex (an STL file's triangles share no index).
    /// The triangles then bound a solid, and the winding number is an integer everywhere
    /// off the surface, changing only across it.
    #[inline]
    pub(crate) fn closed(&self, mesh: &Mesh) -> bool {
        self.boundary(mesh).closed
    }

    /// `mesh` (the mesh this tree was built for) split into its closed shells and the rest
    /// ([`Shells`]), when it is open and the shells hold enough of its triangles.
    #[inline]
    pub(crate) fn shells(&self, mesh: &Mesh) -> Option<&Shells> {
        outside_lock(&self.shells, || {
            let slots = self.boundary(mesh).shells.as_ref()?;
            Shells::build(mesh, slots).map(Box::new)
        })
        .as_deref()
    }

    /// The rim of `mesh` (the mesh this tree was built for) when it is open and its rim has
    /// at most one edge per [`RIM_SHARE`] triangles (a triangle soup's rim is every edge: its
    /// tree would cost what the triangles' does).
    #[inline]
    pub(crate) fn rim(&self, mesh: &Mesh) -> Option<&Rim> {
        self.boundary(mesh).rim.as_ref()
    }

    #[inline]
    fn boundary(&self, mesh: &Mesh) -> &Boundary {
        outside_lock(&self.boundary, || {
            let rim = welded_rim(mesh);
            if rim.edges.is_empty() {
                return Boundary {
                    closed: true,
                    ..Boundary::default()
                };
            }
            let shells = shell_slots(mesh, &rim);
            let max = mesh.triangle_count / RIM_SHARE;
            Boundary {
                closed: false,
                // A mesh split into shells sums with the rest's rim.
                rim: shells
                    .is_none()
                    .then(|| Rim::build(rim.edges, &rim.positions, &mesh.bounds(), max))
                    .flatten(),
                shells,
            }
        })
    }

    /// The winding number of `p` (finite) on `mesh`: slots farther than `ratio` times their
    /// radius by their expansion ([`FAR_RATIO`], [`COARSE_RATIO`] or [`FIRST_RATIO`]), near
    /// leaves triangle by triangle.
    ///
    /// Returns the value, whether `p` lies exactly on a triangle, and whether `p` is known
    /// to be at a distance other than 0 from every triangle as
    /// [`point_triangle()`](raypick_primitives::point_triangle()) computes it (so that
    /// `Mesh::nearest_point(p, 0.0)` finds nothing). That holds when no near triangle's box,
    /// grown by [`touch_margin`], holds `p` (or those that do are at a distance other than
    /// 0), and every slot taken whole is at least that margin in radius: a slot called far
    /// in f32 is then farther from `p` than a fifth of its radius, by the rounding bound
    /// of the far test (`ratio` is at least 1.1; its centers, `p` and their offsets are
    /// within 2 `s` of the origin, each rounded to f32), and the f64 closest point of
    /// `point_triangle` lies within its own rounding of the triangle.
    ///
    /// Without `touch` that check is skipped (its cost is a few percent of a sum) and the
    /// third value is false.
    ///
    /// On a mesh of pieces, given the `parent` mesh they were cut from, the check is of
    /// the parent's triangles: a point at distance 0 from one lies within the midpoints'
    /// rounding (a few f32 steps) of one of its pieces, so that piece's box grown by the
    /// margin holds it (or the piece is in a slot taken whole, which the far test keeps
    /// farther than that), and the parent triangle is checked exactly. Without `parent`,
    /// the pieces themselves are checked.
    pub(crate) fn winding(
        &self,
        mesh: &Mesh,
        p: Point3<Real>,
        ratio: f64,
        touch: bool,
        parent: Option<&Mesh>,
    ) -> (f64, bool, bool) {
        let r2 = ratio * ratio;
        if touch {
            with_tree!(&mesh.wide, t => self.winding_on::<_, true>(mesh, t.nodes(), p, r2, parent))
        } else {
            with_tree!(&mesh.wide, t => self.winding_on::<_, false>(mesh, t.nodes(), p, r2, None))
        }
    }

    fn winding_on<L: WideLayout<W>, const TOUCH: bool>(
        &self,
        mesh: &Mesh,
        nodes: &[L],
        p: Point3<Real>,
        ratio2: f64,
        parent: Option<&Mesh>,
    ) -> (f64, bool, bool) {
        let q = v64(&p);
        let pa = [p.x, p.y, p.z];
        // The triangles the distance-0 check is of: the pieces', or their parents'.
        let touched = Touched {
            parent: parent.map(|m| (m, self.parents.get().map_or(&[][..], Vec::as_slice))),
        };
        let rel = self.frame.offset(q);
        let ratio2 = ratio2 as f32;
        let (mut value, mut on_surface, mut untouched) = (0.0, false, TOUCH);
        if nodes.is_empty() {
            return (value, on_surface, untouched);
        }
        let lanes = self.lanes(mesh);
        let margin = if TOUCH {
            touch_margin(&mesh.bounds(), &p)
        } else {
            0.0
        };
        // The margin in frame units, for the lanes' squared radii.
        let tiny = self.frame.length(f64::from(margin)) as f32;
        let tiny2 = tiny * tiny;
        #[cfg(target_arch = "x86_64")]
        let cpu = raypick_primitives::simd::CpuPath::best();
        #[cfg(not(target_arch = "x86_64"))]
        let cpu = ();
        let split = mesh.has_split_triangles();
        // The rows of a leaf group shorter than 8 (see `leaf_angles`).
        let mut buf = [[0.0f32; crate::mesh::leaf_tris::GROUP]; 9];
        let mut stack: Stack = Stack::new();
        stack.push(0);
        while let Some(n) = stack.pop() {
            let node = &nodes[n];
            #[cfg(target_arch = "x86_64")]
            let (far, sum) =
                crate::mesh::triangle_kernel_x86::eval_far8(cpu, &lanes[n], rel, ratio2);
            #[cfg(not(target_arch = "x86_64"))]
            let (far, sum) = lanes[n].eval_far(rel, ratio2);
            value += f64::from(sum);
            // A node with a slot below the margin in radius vouches for nothing once any of
            // its slots is taken whole (rare: such slots are a few f32 steps across).
            if TOUCH {
                untouched &= (far == 0) | (lanes[n].min_r2 >= tiny2);
            }
            // The slots within reach, in slot order.
            let mut near = lanes[n].used & !far;
            while near != 0 {
                let s = near.trailing_zeros() as usize;
                near &= near - 1;
                match node.child(s) {
                    WideChild::Node(c) => stack.push(c),
                    WideChild::Leaf(r) => {
                        // Its triangles' boxes lie in the slot's (unless a pre-split slot
                        // stands for part of a triangle): none holds `p` when the slot's box
                        // grown by the margin does not.
                        let check =
                            TOUCH && (split || grown_holds(&node.child_aabb(s), pa, margin));
                        let (w, on, clear) = self.leaf_angles::<TOUCH>(
                            mesh, r, p, q, margin, split, check, &mut buf, &touched, cpu,
                        );
                        value += w;
                        on_surface |= on;
                        untouched &= clear;
                    }
                    WideChild::Empty => {}
                }
            }
        }
        (value, on_surface, untouched)
    }

    /// The solid angles of the leaf `r`'s triangles seen from `p` (`q` in f64), divided by
    /// 4π, whether `p` lies on one of them, and whether every one is at a distance other
    /// than 0 from `p` (checked exactly where its box grown by `margin` holds `p`): 8 at a
    /// time in f32 lanes ([`solid_angles8`](super::solid_angles8)), the lanes near their
    /// triangle in f64 ([`solid_angle`]). A pre-split triangle counts in its first slot only
    /// (`split`).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn leaf_angles<const TOUCH: bool>(
        &self,
        mesh: &Mesh,
        r: Range<usize>,
        p: Point3<Real>,
        q: V64,
        margin: f32,
        split: bool,
        check: bool,
        buf: &mut [[f32; crate::mesh::leaf_tris::GROUP]; 9],
        touched: &Touched<'_>,
        #[cfg(target_arch = "x86_64")] cpu: Option<raypick_primitives::simd::CpuPath>,
        #[cfg(not(target_arch = "x86_64"))] _cpu: (),
    ) -> (f64, bool, bool) {
        use crate::mesh::leaf_tris::GROUP;
        let (mut value, mut on_surface, mut untouched) = (0.0, false, TOUCH);
        // The leaf's groups of up to `GROUP` (as `leaf_tris::groups`, without its adapters).
        let mut start = r.start;
        while start < r.end {
            let n = (r.end - start).min(GROUP);
            let g = mesh.tris.group_rows(start);
            // A full group's rows are the 9 rows of 8 in place; a shorter one's are copied
            // to `buf`, its lanes past the group reading the next rows or the array's zero
            // tail (`g` holds at least `9 * GROUP` floats), masked out below.
            let rows: &[[f32; GROUP]; 9] = match g[..9 * GROUP].as_chunks::<GROUP>().0.try_into() {
                Ok(full) if n == GROUP => full,
                _ => {
                    for (row, r) in buf.iter_mut().enumerate() {
                        r.copy_from_slice(&g[row * n..row * n + GROUP]);
                    }
                    &*buf
                }
            };
            #[cfg(target_arch = "x86_64")]
            let (w, doubt) =
                crate::mesh::triangle_kernel_x86::solid_angles8(cpu, [p.x, p.y, p.z], rows);
            #[cfg(not(target_arch = "x86_64"))]
            let (w, doubt) = super::solid_angles8([p.x, p.y, p.z], rows);
            let mut used = (1u32 << n) - 1;
            if split {
                for l in 0..n {
                    if mesh.is_secondary(start + l) {
                        used &= !(1 << l);
                    }
                }
            }
            // The clear lanes summed in lane order, without a branch per lane.
            let clear = used & !doubt;
            let mut sum = 0.0f32;
            for (l, &w) in w.iter().enumerate() {
                sum += if clear >> l & 1 != 0 { w } else { 0.0 };
            }
            let mut odd = used & doubt;
            while odd != 0 {
                let l = odd.trailing_zeros() as usize;
                odd &= odd - 1;
                let corner = |k: usize| std::array::from_fn(|a| f64::from(rows[3 * k + a][l]));
                let (w, on) = solid_angle(q, corner(0), corner(1), corner(2));
                value += w;
                on_surface |= on;
            }
            value += f64::from(sum);
            if TOUCH && check {
                // The triangles whose box, grown by `margin`, holds `p`: rare, checked exactly.
                #[cfg(target_arch = "x86_64")]
                let hold =
                    crate::mesh::triangle_kernel_x86::held8(cpu, rows, [p.x, p.y, p.z], margin);
                #[cfg(not(target_arch = "x86_64"))]
                let hold = held(rows, [p.x, p.y, p.z], margin);
                let mut hold = hold & ((1u32 << n) - 1);
                while hold != 0 {
                    let l = hold.trailing_zeros() as usize;
                    hold &= hold - 1;
                    match touched.triangle(mesh, start + l) {
                        Some([a, b, c]) => {
                            let t = Triangle::new(a, b, c);
                            if point_triangle(&p, &t).is_some_and(|x| x.distance_squared == 0.0) {
                                untouched = false;
                            }
                        }
                        None => untouched = false,
                    }
                }
            }
            start += GROUP;
        }
        (value, on_surface, untouched)
    }
}

/// The lanes of a group whose triangle's box, grown by `margin`, holds `p`, as a bit mask
/// (the scalar form of `triangle_kernel_x86::held8`, and its reference).
#[allow(clippy::needless_range_loop)] // lanes across the rows
#[inline(always)]
pub(crate) fn held<const G: usize>(rows: &[[f32; G]; 9], p: [f32; 3], margin: f32) -> u32 {
    let mut mask = 0u32;
    for l in 0..G {
        let mut inside = true;
        for a in 0..3 {
            let (x, y, z) = (rows[a][l], rows[3 + a][l], rows[6 + a][l]);
            let lo = if x < y { x } else { y };
            let lo = if lo < z { lo } else { z };
            let hi = if x > y { x } else { y };
            let hi = if hi > z { hi } else { z };
            inside &= p[a] >= lo - margin && p[a] <= hi + margin;
        }
        mask |= u32::from(inside) << l;
    }
    mask
}

/// Whether box `b` grown by `margin` holds `p`, with [`held`]'s comparisons.
#[inline]
fn grown_holds(b: &Aabb, p: [f32; 3], margin: f32) -> bool {
    (0..3).all(|a| (p[a] >= b.min[a] - margin) & (p[a] <= b.max[a] + margin))
}

/// Whose triangles the winding pass's distance-0 check is of (see [`WindingTree::winding`]).
struct Touched<'a> {
    /// The mesh the pieces were cut from, and each piece's triangle there.
    parent: Option<(&'a Mesh, &'a [u32])>,
}

impl Touched<'_> {
    /// The corners of the triangle to check for the slot `pos` (leaf order) of `mesh`;
    /// `None` where a piece's parent is not known.
    #[inline]
    fn triangle(&self, mesh: &Mesh, pos: usize) -> Option<[Point3<Real>; 3]> {
        match self.parent {
            None => Some(mesh.tris.get(pos)),
            Some((m, parents)) => {
                let at = *parents.get(mesh.tris.prim(pos) as usize)? as usize;
                (at < m.tris.len()).then(|| m.tris.get(at))
            }
        }
    }
}

/// How near `p` a triangle may be before the winding pass cannot vouch that
/// [`point_triangle()`] puts it at a distance other than 0: 2^-17 of the largest coordinate
/// magnitude `s` of the mesh and `p` (128 f32 rounding units, against the far test's 14
/// and the grown box's 1), plus 1e-18 so that the squared distances it bounds stay normal
/// f32 numbers where coordinates are tiny. Infinite squares (huge coordinates) make every
/// slot small, so nothing is vouched for.
fn touch_margin(b: &Aabb, p: &Point3<Real>) -> f32 {
    crate::mesh::nearest::coordinate_scale(b, p) * (1.0 / 131_072.0) + 1e-18
}

#[cfg(test)]
mod tests {
    use super::super::probes::{check_vouching, soup, specks};
    use super::is_closed;
    use crate::Mesh;
    use rand::SeedableRng;

    /// A sum that vouches for a point being off every triangle is right: the distance-0
    /// check `contains` then skips finds nothing. On open soups at ordinary, offset, huge
    /// and tiny coordinates (where a few f32 steps square to 0) and on specks of triangles
    /// smaller than the far test's rounding, with points on, within f32 steps of, and off
    /// their triangles. Each of the two guards (small slots, grown boxes) is needed here.
    #[test]
    fn vouched_points_are_at_no_distance_0() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(0x0070_00c4);
        let (mut vouched, mut touching) = (0usize, 0usize);
        let scales = [
            (1.0, 0.0),
            (1.0, 1.0e4),
            (1e-20, 3e-20),
            (1e-16, 2e-16),
            (1e6, -2e6),
        ];
        let mut meshes: Vec<Mesh> = scales
            .iter()
            .map(|&(size, offset)| soup(300, size, offset, &mut rng))
            .collect();
        meshes.push(specks(&mut rng));
        for mesh in meshes {
            let (v, t) = check_vouching(&mesh, &mut rng);
            vouched += v;
            touching += t;
        }
        // Both kinds of point occur, so the assertions above could fail.
        assert!(vouched > 10_000 && touching > 1_000, "{vouched} {touching}");
    }

    /// The AVX2 form of `held` gives the scalar one's mask, on boxes holding, touching and
    /// missing the point, with NaN and infinite corners among them.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn held8_matches_held() {
        use rand::Rng;
        let mut rng = rand_pcg::Pcg64::seed_from_u64(0x4e1d);
        let special = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.5, 0.0];
        let cpu = raypick_primitives::simd::CpuPath::best();
        let mut seen = [0usize; 2];
        for _ in 0..20_000 {
            let p: [f32; 3] = std::array::from_fn(|_| rng.gen_range(-1.0..1.0));
            let rows: [[f32; 8]; 9] = std::array::from_fn(|r| {
                std::array::from_fn(|_| {
                    if rng.gen_range(0..50) == 0 {
                        special[rng.gen_range(0..special.len())]
                    } else if rng.gen::<bool>() {
                        p[r % 3] + rng.gen_range(-0.01..0.01)
                    } else {
                        rng.gen_range(-1.0..1.0)
                    }
                })
            });
            let margin = [0.0, 1e-3, 0.02][rng.gen_range(0..3)];
            let want = super::held(&rows, p, margin);
            assert_eq!(
                crate::mesh::triangle_kernel_x86::held8(cpu, &rows, p, margin),
                want
            );
            seen[0] += want.count_ones() as usize;
            seen[1] += 8 - want.count_ones() as usize;
        }
        assert!(seen[0] > 10_000 && seen[1] > 10_000, "{seen:?}");
    }

    #[test]
    fn closed_surfaces_are_told_from_open_ones() {
        // A tetrahedron, outward.
        let tet = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
        assert!(is_closed(&tet));
        // Flipped as a whole: still closed (inside out).
        assert!(is_closed(&tet.map(|[a, b, c]| [a, c, b])));
        // One face missing, one face flipped, a face doubled: open.
        assert!(!is_closed(&tet[..3]));
        assert!(!is_closed(&[[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 3, 2]]));
        assert!(!is_closed(&[tet[0], tet[1], tet[2], tet[3], tet[3]]));
        // Two tetrahedra sharing an edge (a non-manifold edge used twice each way): closed.
        let two: Vec<[u32; 3]> = tet
            .iter()
            .copied()
            .chain([[0, 4, 1], [0, 1, 5], [0, 5, 4], [1, 4, 5]])
            .collect();
        assert!(is_closed(&two));
        // A degenerate triangle adds nothing; an empty mesh is closed.
        assert!(is_closed(&[tet[0], tet[1], tet[2], tet[3], [7, 7, 8]]));
        assert!(is_closed(&[]));
    }
}
