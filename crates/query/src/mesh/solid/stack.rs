//! A small stack of node indices that spills to the heap only for very deep trees.

/// Node indices, most recent first while they fit inline. Past the inline part, pushes go to
/// the heap and are popped once the inline part is empty: the users sum over every node
/// they pop, so the order does not change what they visit, only the order of the sums.
pub(crate) struct Stack {
    inline: [u32; 64],
    len: usize,
    spill: Vec<usize>,
}

impl Stack {
    pub(crate) fn new() -> Self {
        Stack {
            inline: [0; 64],
            len: 0,
            spill: Vec::new(),
        }
    }

    #[inline(always)]
    pub(crate) fn push(&mut self, v: usize) {
        match u32::try_from(v) {
            Ok(x) if self.len < self.inline.len() => {
                self.inline[self.len] = x;
                self.len += 1;
            }
            _ => self.spill.push(v),
        }
    }

    #[inline(always)]
    pub(crate) fn pop(&mut self) -> Option<usize> {
        if self.len > 0 {
            self.len -= 1;
            return Some(self.inline[self.len] as usize);
        }
        self.spill.pop()
    }
}
