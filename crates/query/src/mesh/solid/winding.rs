//! The generalized winding number of a point with respect to a [`Mesh`] (Jacobson et al.
//! 2013): the sum of the triangles' signed solid angles, divided by 4π.

use raypick_primitives::{Point3, Real, Vector3};

use super::rim::{Rim, RIM_COARSE_TOL};
use super::tree::{COARSE_RATIO, FAR_RATIO, FIRST_RATIO};
use super::WindingTree;
use crate::Mesh;

/// How far `p` must be from the surface of a mesh with bounds `b` for the ray count: 1e-5
/// of the largest coordinate magnitude of the box and `p`, some 80 f32 steps, where the
/// kernel's `t` is off by a few (its shear and products round relative to the coordinates).
pub(super) fn ray_margin(b: &raypick_primitives::Aabb, p: &Point3<Real>) -> Real {
    crate::mesh::nearest::coordinate_scale(b, p) * 1e-5
}

/// How far from 0.5 the coarse sum of [`Mesh::winding_side`] must be to decide the side.
const SIDE_MARGIN: f64 = 0.1;

/// How far from 0.5 a side decision's value, within `tolerance` of the exact winding
/// number, must be to be kept: [`SIDE_MARGIN`] per [`COARSE_TOL`] of stated error. The
/// rule of a mesh's rim stage (1/30 for [`RIM_COARSE_TOL`]) and of a scene's sums.
pub(crate) const fn side_margin(tolerance: f64) -> f64 {
    tolerance * (SIDE_MARGIN / COARSE_TOL)
}

/// Where a side decision may take the first, cheapest pass ([`FIRST_RATIO`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FirstPass {
    /// Nowhere: a sum with other open meshes' side windings, whose stated errors add up
    /// (two first passes would leave most points short of the margin).
    Never,
    /// On open meshes other than sheets with a short rim (a terrain, where a fifth of the
    /// points lie under or over it, near 0.5, and would pay for both passes: 5% slower).
    UnlessSheet,
    /// On the pieces of a sliver mesh too: their rim runs between faces tessellated apart
    /// all over the model, not around a sheet.
    Always,
}

/// The winding number with its on-surface flag.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Winding {
    pub(crate) value: f64,
    /// True when the point lies exactly on a triangle (see `angle::solid_angle`).
    pub(crate) on_surface: bool,
    /// How far `value` may be from the exact sum (as stated and tested): 0 for a ray
    /// count, [`FINE_TOL`] or [`COARSE_TOL`] for the expansions.
    pub(crate) tolerance: f64,
    /// True when the point is known to be off the surface (a ray count: farther than its
    /// margin); false when unknown.
    pub(crate) off_surface: bool,
    /// True when no triangle is at distance 0 from the point as
    /// [`Mesh::nearest_point`] computes it (`off_surface`, or vouched for by the sum of a
    /// side decision given no distance: see `WindingTree::winding`); false when unknown.
    pub(crate) untouched: bool,
}

/// The stated accuracy of the expansions at [`FAR_RATIO`].
pub(crate) const FINE_TOL: f64 = 1e-3;

/// The stated accuracy of the expansions at [`COARSE_RATIO`] on meshes of ordinary shape
/// (see there: folded ones can reach 4.6e-2; the side decisions keep a 0.1 margin).
const COARSE_TOL: f64 = 3e-2;

/// The stated accuracy of the expansions at [`FIRST_RATIO`] on meshes of ordinary shape
/// (see there: measured worst 9.9e-2), so that a side decision keeps a first pass's value
/// only more than 0.35 ([`side_margin`]) from 0.5.
const FIRST_TOL: f64 = 0.105;

impl Mesh {
    /// The generalized winding number of `p` (Jacobson et al. 2013): the signed solid angle
    /// of the whole surface seen from `p`, divided by 4π.
    ///
    /// On a closed mesh whose triangles wind counter-clockwise seen from outside, it is 1
    /// inside, 0 outside (k inside k nested shells, negative for inverted ones); on a mesh
    /// with holes, flipped patches or overlaps it varies smoothly in between, so
    /// `>= 0.5` stays a good inside test. A point on the surface gets about 0.5 (exactly
    /// 0.5 in exact arithmetic inside a face of a closed mesh). 0 for an empty mesh;
    /// NaN for a non-finite `p`.
    ///
    /// Closed meshes (every edge used once in each direction, by index or with corners at
    /// the same position welded): off the surface the winding number is an integer, the
    /// signed number of times a ray from `p` crosses the surface, and it is counted exactly
    /// along one axis ray with the watertight kernel (each crossing through an edge or a
    /// vertex counted once, by simulation of simplicity). Points within 1e-5 of the largest
    /// coordinate magnitude of the surface, where the sign of a hit's `t` is in doubt, take
    /// the sum below.
    ///
    /// Other meshes, accuracy: within 1e-3 of the exact sum (absolute; measured at most
    /// 3.0e-4 on spheres, a torus, a cube, planes and a half sphere). Triangles near `p`
    /// are summed term by term (their solid angles in f32 where `p` is clear of the triangle,
    /// within a few 1e-7 of a radian, and in f64 near it); a cluster of triangles whose
    /// bounding ball is more than 4 of its radii away is replaced by a second-order
    /// multipole expansion of its winding number (Barill et al. 2018, "Fast winding
    /// numbers for soups and clouds"), kept per slot of the mesh's tree. The expansions
    /// are built at the first sum (a pass over the triangles and nodes: on a closed mesh,
    /// the first point that near its surface) and rebuilt after [`Mesh::update_positions`].
    ///
    /// Open meshes that hold closed shells (an assembly's bolts and shafts beside open
    /// faces: groups of triangles whose rim cancels, corners welded by position, at least
    /// 2% of the triangles) split them off at the first solid query: the winding number is
    /// the shells', counted by ray as on closed meshes, plus the rest's, as below.
    ///
    /// Open meshes of long slivers (at least 5% of the triangles with an edge longer than 4
    /// typical triangle sizes: CAD tessellations) sum over compact pieces of their
    /// triangles instead, built at the first solid query (edges longer than 3 typical
    /// sizes cut at their midpoints, or 4 where that makes more than 16 pieces per
    /// triangle over all): a leaf holding a sliver is otherwise as large as the sliver, and
    /// near every point. The pieces tile the triangles up to the f32 rounding of the
    /// midpoints.
    ///
    /// Open meshes with a short rim (at most one boundary edge per 4 triangles: terrains,
    /// scans with holes) take it from the rim instead: near the surface the triangles' sum
    /// needs its finest expansions, while the rim is far. The rim's edges swept to infinity
    /// along its thinnest axis span a surface whose winding number is exact up to the same
    /// kind of expansion of the rim's runs (measured within 5e-5); the mesh's is that plus
    /// the signed crossings of the ray from `p` down that axis, counted as on closed meshes
    /// (the ray never meets the swept surface). Where the count is in doubt (`p` within the
    /// closed meshes' margin of the surface, or its ray as near a rim edge) or a far run's
    /// expansion stands for its edges only modulo 1 (`p` above or below it), the rim gives
    /// the value modulo 1 and the cheap sum at 1.3 radii the integer part (it is within
    /// 3e-2). Points within about 1e-6 radian of the rim, or of the line through one of its
    /// corners along the sweep axis, take the sum above.
    ///
    /// ```
    /// use raypick_query::Mesh;
    /// use raypick_primitives::Point3;
    ///
    /// // A tetrahedron, counter-clockwise seen from outside.
    /// let mesh = Mesh::new(
    ///     vec![
    ///         Point3::new(0.0, 0.0, 0.0),
    ///         Point3::new(1.0, 0.0, 0.0),
    ///         Point3::new(0.0, 1.0, 0.0),
    ///         Point3::new(0.0, 0.0, 1.0),
    ///     ],
    ///     vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
    /// )
    /// .unwrap();
    /// assert!((mesh.winding_number(Point3::new(0.1, 0.1, 0.1)) - 1.0).abs() < 1e-5);
    /// assert!(mesh.winding_number(Point3::new(1.0, 1.0, 1.0)).abs() < 1e-5);
    /// ```
    #[must_use]
    pub fn winding_number(&self, p: Point3<Real>) -> Real {
        self.winding(p).value as Real
    }

    /// The winding number of `p` and whether `p` lies exactly on a triangle.
    pub(crate) fn winding(&self, p: Point3<Real>) -> Winding {
        self.winding_at(p, None, None)
    }

    /// The winding number of `p` for deciding its side (`>= 0.5`), given its distance to the
    /// surface when the caller knows it: as [`Mesh::winding`], except that off closed meshes
    /// the sum first runs with the cheapest expansions, of `FIRST_RATIO` (within
    /// [`FIRST_TOL`] of the exact sum), kept when more than 0.35 from 0.5 (not on a sheet
    /// with a short rim); then with those of `COARSE_RATIO` (within 3e-2: measured worst
    /// 2.1e-2), kept when more than [`SIDE_MARGIN`] from 0.5; each margin about three
    /// times the pass's measured worst error on ordinary meshes. Nearer 0.5, the value is
    /// [`Mesh::winding`]'s; on a mesh with a rim, from the second sum and the rim, whose
    /// coarse fraction ([`Rim::swept_coarse`]) is kept when the value is beyond
    /// [`side_margin`] of it from 0.5, and the fine one otherwise. Before all that, given
    /// no distance (`contains`), a sheet with a short rim asks its side table
    /// ([`RimCells`](super::rim_cells::RimCells)) once built, whose answer is within its
    /// stated bound of the exact one and farther than that from 0.5.
    pub(crate) fn winding_side(&self, p: Point3<Real>, distance: Option<Real>) -> Winding {
        self.winding_at(p, distance, Some(FirstPass::UnlessSheet))
    }

    /// [`Mesh::winding_side`], with the first pass where `first` allows it.
    pub(crate) fn winding_side_with(
        &self,
        p: Point3<Real>,
        distance: Option<Real>,
        first: FirstPass,
    ) -> Winding {
        self.winding_at(p, distance, Some(first))
    }

    /// [`Mesh::winding`] or, with `side`, [`Mesh::winding_side`] with its first pass where
    /// `side` allows it.
    ///
    /// On a closed mesh (every edge used once each way, corners welded by position) the
    /// winding number is an integer off the surface, and one ray counts it exactly
    /// ([`Mesh::crossings`]): the sign of the ray's `t` is only in doubt for a triangle
    /// within the kernel's rounding of `p`, so points farther than [`ray_margin`] from the
    /// surface take the ray. Nearer points, and open meshes, sum the solid angles; open
    /// meshes with a short rim ([`WindingTree::rim`]) take the fine value from the rim and
    /// one ray ([`Rim::swept`]).
    pub(super) fn winding_at(
        &self,
        p: Point3<Real>,
        distance: Option<Real>,
        side: Option<FirstPass>,
    ) -> Winding {
        self.winding_in(p, distance, side, None)
    }

    /// [`Mesh::winding_at`] on a mesh of pieces cut from `parent` (when given): its
    /// distance-0 vouching (`untouched`) is then for the parent's triangles.
    fn winding_in(
        &self,
        p: Point3<Real>,
        distance: Option<Real>,
        side: Option<FirstPass>,
        parent: Option<&Mesh>,
    ) -> Winding {
        if !p.iter().all(|c| c.is_finite()) {
            return Winding {
                value: f64::NAN,
                on_surface: false,
                tolerance: 0.0,
                off_surface: false,
                untouched: false,
            };
        }
        let tree = self.winding_tree();
        if tree.closed(self) {
            if let Some(count) = self.winding_by_ray(p, distance) {
                return Winding {
                    value: count as f64,
                    on_surface: false,
                    tolerance: 0.0,
                    off_surface: true,
                    untouched: true,
                };
            }
        }
        // Closed shells beside open parts: each part's, the shells' by ray.
        if let Some(shells) = tree.shells(self) {
            return shells.winding_at(p, distance, side);
        }
        let first = side.unwrap_or(FirstPass::Never);
        let side = side.is_some();
        // Long slivers: the sum over their pieces, whose distance-0 vouching checks this
        // mesh's triangles (see `WindingTree::winding`).
        if let Some(pieces) = tree.pieces(self) {
            let pieces_first = match first {
                FirstPass::Never => FirstPass::Never,
                _ => FirstPass::Always,
            };
            return pieces.winding_in(p, distance, side.then_some(pieces_first), Some(self));
        }
        // Whether the caller may want the distance-0 check answered: side decisions whose
        // distance is not known (`Mesh::contains`, the scene's).
        let touch = side && distance.is_none();
        let rim = tree.rim(self);
        // A sheet's side from its table: a lookup, and one ray where the sheet passes
        // (`contains`: a signed distance keeps the sums' value, which it reports).
        if first == FirstPass::UnlessSheet && distance.is_none() && rim.is_some() {
            if let Some(w) = tree.rim_cells(self).and_then(|(r, c)| c.side(self, r, p)) {
                return w;
            }
        }
        // The rim's value, whole from the rim and one ray where it can be: cheaper than the
        // fine sum, but not than the coarse one, which decides most sides alone (a side
        // decision takes the rim's value after it, and its integer part from it).
        let margin = || ray_margin(&self.bounds(), &p);
        let mut rim_value = None;
        if let Some(r) = rim.filter(|_| !side) {
            let margin = margin();
            rim_value = r.swept(p, f64::from(margin));
            if let Some(w) = self.whole_by_rim(r, rim_value, p, distance, margin) {
                return w;
            }
        }
        let first = match first {
            FirstPass::Never => false,
            FirstPass::UnlessSheet => rim.is_none(),
            FirstPass::Always => true,
        };
        if first {
            // The cheapest pass first: most points of an open mesh lie well away from 0.5.
            let (value, on_surface, untouched) = tree.winding(self, p, FIRST_RATIO, touch, parent);
            if !on_surface && (value - 0.5).abs() > side_margin(FIRST_TOL) {
                return Winding {
                    value,
                    on_surface,
                    tolerance: FIRST_TOL,
                    off_surface: false,
                    untouched,
                };
            }
        }
        if side || rim.is_some() {
            let (value, on_surface, untouched) = tree.winding(self, p, COARSE_RATIO, touch, parent);
            if side && !on_surface && (value - 0.5).abs() > SIDE_MARGIN {
                return Winding {
                    value,
                    on_surface,
                    tolerance: COARSE_TOL,
                    off_surface: false,
                    untouched,
                };
            }
            if let Some(r) = rim.filter(|_| side && !on_surface) {
                // The rim's coarse fraction first: most points that reach it are decided
                // by it, at a fraction of the fine one's cost.
                let margin = f64::from(margin());
                if let Some((f, _)) = r.swept_coarse(p, margin) {
                    let w = f + (value - f).round();
                    if (w - 0.5).abs() > side_margin(RIM_COARSE_TOL) {
                        return Winding {
                            value: w,
                            on_surface,
                            tolerance: RIM_COARSE_TOL,
                            off_surface: false,
                            untouched,
                        };
                    }
                }
                rim_value = r.swept(p, margin);
            }
            // The fraction from the rim, the integer part from this sum (within 3e-2 of the
            // exact one, so the nearest value of the fraction's is the one). Where the ray
            // gives the same integer, the value is bit for bit the rim's and the ray's.
            if let Some((f, _)) = rim_value.filter(|_| !on_surface) {
                return Winding {
                    value: f + (value - f).round(),
                    on_surface,
                    tolerance: FINE_TOL,
                    off_surface: false,
                    untouched,
                };
            }
        }
        let (value, on_surface, untouched) = tree.winding(self, p, FAR_RATIO, touch, parent);
        Winding {
            value,
            on_surface,
            tolerance: FINE_TOL,
            off_surface: false,
            untouched,
        }
    }

    /// The crossings of the axis ray from `p` out of the mesh's box by its nearest face, if
    /// `p` is off the surface by more than [`ray_margin`].
    fn winding_by_ray(&self, p: Point3<Real>, distance: Option<Real>) -> Option<i64> {
        let b = self.bounds();
        let margin = ray_margin(&b, &p);
        if (0..3).any(|a| p[a] < b.min[a] - margin || p[a] > b.max[a] + margin) {
            // Outside the box of a closed surface: no crossing on the way out.
            return Some(0);
        }
        if !self.off_surface(p, distance, margin) {
            return None;
        }
        let mut dir = Vector3::zeros();
        let mut best = Real::INFINITY;
        for a in 0..3 {
            for (gap, sign) in [(p[a] - b.min[a], -1.0), (b.max[a] - p[a], 1.0)] {
                if gap < best {
                    best = gap;
                    dir = Vector3::zeros();
                    dir[a] = sign;
                }
            }
        }
        self.crossings(p, dir)
    }

    /// The winding number from the rim's swept surface (`swept`, [`Rim::swept`] at `p`)
    /// and the crossings of the ray from `p` down its axis, if the first is whole and `p` is
    /// off the surface by more than `margin`.
    fn whole_by_rim(
        &self,
        rim: &Rim,
        swept: Option<(f64, bool)>,
        p: Point3<Real>,
        distance: Option<Real>,
        margin: Real,
    ) -> Option<Winding> {
        let Some((swept, true)) = swept else {
            return None;
        };
        if !self.off_surface(p, distance, margin) {
            return None;
        }
        let mut dir = Vector3::zeros();
        dir[rim.axis()] = -1.0;
        let count = self.crossings(p, dir)?;
        Some(Winding {
            value: swept + count as f64,
            on_surface: false,
            tolerance: FINE_TOL,
            off_surface: true,
            untouched: true,
        })
    }

    /// True when `p` is farther than `margin` from the surface: its `distance` if known, else
    /// a search bounded by `margin`.
    fn off_surface(&self, p: Point3<Real>, distance: Option<Real>, margin: Real) -> bool {
        match distance {
            Some(d) => d > margin,
            None => self.nearest_point(&p, margin).is_none(),
        }
    }

    /// The far-field expansions, built on first use (outside the cell's lock: the build runs
    /// on rayon, whose waiting threads may run a job that asks for it too).
    #[inline]
    pub(crate) fn winding_tree(&self) -> &WindingTree {
        super::tree::outside_lock(&self.winding, || WindingTree::build(self))
    }

    /// [`Mesh::winding_tree`] with everything the solid queries build on first use built
    /// (see [`WindingTree::prepare`]): what a batch calls before going parallel.
    pub(crate) fn solid_tree(&self) -> &WindingTree {
        let tree = self.winding_tree();
        tree.prepare(self);
        tree
    }

    /// [`Mesh::winding_number`] for every point, in parallel with rayon; each answer is
    /// exactly the single-point one.
    #[must_use]
    pub fn winding_numbers(&self, points: &[Point3<Real>]) -> Vec<Real> {
        let open = !self.solid_tree().closed(self);
        super::par_map(points, open, |p| self.winding_number(*p))
    }
}
