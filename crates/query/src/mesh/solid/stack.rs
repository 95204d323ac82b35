//! A small stack of node indices that spills to the heap only for very deep trees.

pub(crate) struct Stack {
    inline: [usize; 64],
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
        if self.len < self.inline.len() {
            self.inline[self.len] = v;
            self.len += 1;
        } else {
            self.spill.push(v);
        }
    }

    #[inline(always)]
    pub(crate) fn pop(&mut self) -> Option<usize> {
        if let Some(v) = self.spill.pop() {
            return Some(v);
        }
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        Some(self.inline[self.len])
    }
}
