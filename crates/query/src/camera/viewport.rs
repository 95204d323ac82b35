//! The window rectangle a camera renders into, and rectangles of pixels in it.

use raypick_primitives::Real;

/// The window rectangle the camera renders into, in window pixels (origin top left, y down).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    /// Left edge in window pixels.
    pub x: Real,
    /// Top edge in window pixels.
    pub y: Real,
    /// Width in pixels; must be positive and finite for the viewport to be usable.
    pub width: Real,
    /// Height in pixels; must be positive and finite for the viewport to be usable.
    pub height: Real,
}

impl Viewport {
    /// A viewport at the window's top left corner.
    #[must_use]
    pub const fn new(width: Real, height: Real) -> Self {
        Self {
            x: 0.0,
            y: 0.0,
            width,
            height,
        }
    }

    /// True when the origin is finite and the size positive and finite.
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.x.is_finite()
            && self.y.is_finite()
            && self.width.is_finite()
            && self.height.is_finite()
            && self.width > 0.0
            && self.height > 0.0
    }

    /// Window pixel `(x, y)` to NDC `(x, y)` for the given y direction.
    pub(crate) fn window_to_ndc(self, x: f64, y: f64, y_down: bool) -> (f64, f64) {
        let nx = 2.0 * (x - f64::from(self.x)) / f64::from(self.width) - 1.0;
        let ny = 1.0 - 2.0 * (y - f64::from(self.y)) / f64::from(self.height);
        (nx, if y_down { -ny } else { ny })
    }

    /// NDC `(x, y)` to window pixel `(x, y)`.
    pub(super) fn ndc_to_window(self, nx: f64, ny: f64, y_down: bool) -> (f64, f64) {
        let ny = if y_down { -ny } else { ny };
        (
            f64::from(self.x) + (nx + 1.0) * 0.5 * f64::from(self.width),
            f64::from(self.y) + (1.0 - ny) * 0.5 * f64::from(self.height),
        )
    }
}

/// A rectangle on the window, in window pixels (origin top left, y down).
///
/// The corners may be given in any order; [`ScreenRect::new`] sorts them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScreenRect {
    /// Top left corner `(x, y)`.
    pub min: [Real; 2],
    /// Bottom right corner `(x, y)`.
    pub max: [Real; 2],
}

impl ScreenRect {
    /// The rectangle spanned by two opposite corners, in any order (a mouse drag).
    #[must_use]
    pub fn new(a: [Real; 2], b: [Real; 2]) -> Self {
        Self {
            min: [a[0].min(b[0]), a[1].min(b[1])],
            max: [a[0].max(b[0]), a[1].max(b[1])],
        }
    }

    /// The square of half-size `radius` around `(x, y)`.
    #[must_use]
    pub fn around(x: Real, y: Real, radius: Real) -> Self {
        Self::new([x - radius, y - radius], [x + radius, y + radius])
    }

    /// True when the corners are finite and the rectangle has a positive area.
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.min.iter().chain(&self.max).all(|c| c.is_finite())
            && self.max[0] > self.min[0]
            && self.max[1] > self.min[1]
    }
}
