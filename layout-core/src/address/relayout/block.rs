//! Blocks and lines: the unit of work the walk hands to the kernels.
//!
//! A leaf module: the plan, the walk, the kernels and the streaming
//! kernels all use these types, and this module uses none of them.

/// `count` steps of (source stride, destination stride).
#[derive(Clone, Copy, Debug)]
pub(super) struct Line {
    pub(super) count: u64,
    pub(super) src: u64,
    pub(super) dst: u64,
}

impl Line {
    pub(super) const ONE: Line = Line {
        count: 1,
        src: 0,
        dst: 0,
    };
}

/// The innermost two loops: `outer × inner` steps from a base.
#[derive(Clone, Copy, Debug)]
pub(super) struct Block {
    pub(super) src: u64,
    pub(super) dst: u64,
    /// The whole block again, this many times, this far apart.
    pub(super) repeat: Line,
    pub(super) outer: Line,
    pub(super) inner: Line,
}

impl Block {
    /// Every `(source, destination)` pair of the block, in order.
    pub(super) fn for_each(&self, f: &mut impl FnMut(u64, u64)) {
        for r in 0..self.repeat.count {
            let (s, d) = (
                self.src + r * self.repeat.src,
                self.dst + r * self.repeat.dst,
            );
            for o in 0..self.outer.count {
                let (s, d) = (s + o * self.outer.src, d + o * self.outer.dst);
                for i in 0..self.inner.count {
                    f(s + i * self.inner.src, d + i * self.inner.dst);
                }
            }
        }
    }
}
