//! How a projection maps depth and which way NDC y points.

use raypick_primitives::DepthRange;

/// The depth range of normalized device coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NdcDepth {
    /// `-1..1`, as in OpenGL by default.
    NegOneToOne,
    /// `0..1`, as in Vulkan, wgpu, Metal and Direct3D.
    ZeroToOne,
}

/// How a projection matrix maps view space to normalized device coordinates (NDC).
///
/// NDC x always points right. The presets cover the common APIs; [`ClipConvention::reversed_z`]
/// turns any of them into its reversed-Z form (near plane at the far end of the depth range,
/// which is what a reversed-Z renderer with a `GREATER` depth test uses).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClipConvention {
    /// The NDC depth range.
    pub depth: NdcDepth,
    /// True when the near plane maps to the far end of the range (1 instead of -1 or 0).
    pub reversed_z: bool,
    /// True when NDC y points down (Vulkan); false when it points up (OpenGL, D3D, wgpu, Metal).
    pub y_down: bool,
}

impl ClipConvention {
    /// OpenGL: depth `-1..1`, y up.
    pub const OPENGL: Self = Self {
        depth: NdcDepth::NegOneToOne,
        reversed_z: false,
        y_down: false,
    };
    /// Direct3D, wgpu and Metal: depth `0..1`, y up.
    pub const ZERO_TO_ONE: Self = Self {
        depth: NdcDepth::ZeroToOne,
        reversed_z: false,
        y_down: false,
    };
    /// Same as [`ClipConvention::ZERO_TO_ONE`].
    pub const D3D: Self = Self::ZERO_TO_ONE;
    /// Same as [`ClipConvention::ZERO_TO_ONE`].
    pub const WGPU: Self = Self::ZERO_TO_ONE;
    /// Vulkan: depth `0..1`, y down.
    pub const VULKAN: Self = Self {
        depth: NdcDepth::ZeroToOne,
        reversed_z: false,
        y_down: true,
    };

    /// This convention with the near plane at the far end of the depth range.
    #[must_use]
    pub const fn reversed_z(self) -> Self {
        Self {
            reversed_z: true,
            ..self
        }
    }

    /// The matching [`DepthRange`] of [`Frustum::from_view_projection`](raypick_primitives::Frustum::from_view_projection). A reversed
    /// `-1..1` range maps to `NegOneToOne`: the same six half-spaces, with the near and far
    /// planes named the other way round.
    #[must_use]
    pub fn frustum_depth_range(&self) -> DepthRange {
        match (self.depth, self.reversed_z) {
            (NdcDepth::NegOneToOne, _) => DepthRange::NegOneToOne,
            (NdcDepth::ZeroToOne, false) => DepthRange::ZeroToOne,
            (NdcDepth::ZeroToOne, true) => DepthRange::OneToZero,
        }
    }

    /// NDC depth of the near plane.
    #[must_use]
    pub fn near_ndc(&self) -> f64 {
        match (self.depth, self.reversed_z) {
            (NdcDepth::NegOneToOne, false) => -1.0,
            (NdcDepth::ZeroToOne, false) => 0.0,
            (_, true) => 1.0,
        }
    }

    /// NDC depth of the far plane.
    #[must_use]
    pub fn far_ndc(&self) -> f64 {
        match (self.depth, self.reversed_z) {
            (_, false) => 1.0,
            (NdcDepth::NegOneToOne, true) => -1.0,
            (NdcDepth::ZeroToOne, true) => 0.0,
        }
    }
}
