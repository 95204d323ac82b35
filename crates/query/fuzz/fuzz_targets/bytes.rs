//! The fuzz input read as values, shared by the targets (each adds its own decoders).

/// The input, read front to back; zeros once it runs out.
pub struct Bytes<'a>(pub &'a [u8]);

impl Bytes<'_> {
    pub fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }

    #[allow(dead_code)]
    pub fn f32(&mut self) -> f32 {
        f32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    /// A coordinate on the grid of halves in [-2, 2].
    #[allow(dead_code)]
    pub fn half(&mut self) -> f32 {
        f32::from(self.u8() % 9) * 0.5 - 2.0
    }
}
