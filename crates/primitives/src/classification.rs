//! The answer of the classification kernels (`plane_*`, `frustum_*`).

/// Where a volume lies relative to a half-space or a frustum.
///
/// For a plane, the side the normal points to is *outside*. For a frustum, *inside* means
/// inside all six planes. Kernels that cannot decide (NaN input) answer
/// [`Classification::Intersecting`], the conservative choice for culling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Classification {
    /// Entirely, strictly on the outer side. A volume that touches the boundary is
    /// [`Classification::Intersecting`].
    Outside,
    /// Straddles the boundary, or touches it.
    Intersecting,
    /// Entirely on the inner side.
    Inside,
}

impl Classification {
    /// True for [`Classification::Outside`]: the volume can be culled.
    #[must_use]
    pub fn is_outside(self) -> bool {
        self == Self::Outside
    }

    /// True unless [`Classification::Outside`]: the volume may be (partly) visible.
    #[must_use]
    pub fn may_intersect(self) -> bool {
        self != Self::Outside
    }
}
