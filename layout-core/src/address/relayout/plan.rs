//! The loop nest of a relayout: which digits, in which order.

use super::super::digits::{DigitPair, MAX_DIGITS};

/// One loop of the nest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Level {
    pub(super) dim: usize,
    pub(super) place: u64,
    pub(super) count: u64,
    pub(super) src: u64,
    pub(super) dst: u64,
    /// The dimension's size is not a multiple of its top place value, so
    /// this loop's range depends on the outer digits of its dimension.
    pub(super) ragged: bool,
    /// Blocking tier: 0 for ordinary loops and the outermost blocks of a
    /// transposition, 1 for its super-block digits, 2 for its block
    /// digits. Loops are ordered by tier first.
    pub(super) tier: u8,
}

pub(super) const NO_LEVEL: Level = Level {
    dim: 0,
    place: 1,
    count: 1,
    src: 0,
    dst: 0,
    ragged: false,
    tier: 0,
};

/// Inner blocks of a transposition are `BLOCK × BLOCK` elements, inside
/// super-blocks of `SUPER × SUPER` (so that the pages a super-block
/// touches on both sides fit the TLB).
const BLOCK: u64 = 32;
const SUPER: u64 = 256;

/// The loops of a copy, outermost first, and how the walk runs them.
#[derive(Clone, Copy, Debug)]
pub(super) struct Nest {
    pub(super) levels: [Level; MAX_DIGITS],
    pub(super) len: usize,
    pub(super) walk: Walk,
}

/// The innermost one or two loops of the nest, run as blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Leaf {
    /// No loop: a single element.
    Point,
    /// One loop: a block of one line.
    Line,
    /// Two loops: one block.
    Block,
    /// Two loops whose inner count depends on the outer digit (both are
    /// digits of one ragged dimension): one block per outer value.
    Split,
}

/// How the walk runs the nest, decided once with the plan: which loops an
/// odometer steps, which loop (if any) runs directly over each leaf block,
/// which one (if any) is folded into every block as its repeat, and
/// whether the leaf splits.
///
/// From the inside out: the leaf, the loops `leaf..len`; the folded loop
/// `len - 3` just outside it, when its count is fixed and the inner counts
/// do not depend on its digit (fewer, larger blocks); the direct loop
/// `odometer` next out, under the same condition and when the leaf is a
/// single block: no odometer step and no fresh leaf per block (callgrind,
/// s8 `(4,1)` host → TPU of 8 MiB: 9.7M → 8.8M instructions); and the
/// odometer, the loops `..odometer`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Walk {
    /// How many outer loops the odometer steps.
    pub(super) odometer: usize,
    /// The first loop of the leaf.
    pub(super) leaf: usize,
    pub(super) leaf_kind: Leaf,
    /// Loop `odometer` runs directly over each leaf block (its count is
    /// fixed).
    pub(super) direct: bool,
    /// Loop `len - 3` is folded into each block as its repeat (its count
    /// is fixed).
    pub(super) folded: bool,
}

impl Walk {
    /// No loops.
    const NONE: Walk = Walk {
        odometer: 0,
        leaf: 0,
        leaf_kind: Leaf::Point,
        direct: false,
        folded: false,
    };
}

impl Nest {
    /// No loops: a single element (or nothing).
    pub(super) const EMPTY: Nest = Nest {
        levels: [NO_LEVEL; MAX_DIGITS],
        len: 0,
        walk: Walk::NONE,
    };

    /// The loop nest: destination-major order, each dimension's digits
    /// from most to least significant (so that a ragged dimension can clip
    /// its lower digits), then the source's unit-stride digit next to the
    /// innermost one, blocked if both are long.
    pub(super) const fn new(pair: &DigitPair) -> Nest {
        let mut nest = Nest::EMPTY;
        let digits = pair.digits();
        let mut raw = [NO_LEVEL; MAX_DIGITS];
        let mut n = 0;
        while n < digits.len() {
            let g = digits[n];
            raw[n] = Level {
                dim: g.dim,
                place: g.place,
                count: g.count,
                src: g.stride_a,
                dst: g.stride_b,
                ragged: g.ragged,
                tier: 0,
            };
            n += 1;
        }
        n = split_for_blocking(&mut raw, n);
        nest.len = merge_by_stride(&raw, n, &mut nest.levels, false);
        nest.move_source_unit_stride_inward();
        nest.coalesce();
        nest.prefer_sequential_reads();
        nest.walk = nest.plan_walk();
        nest
    }

    /// How the walk runs this nest; see [`Walk`].
    const fn plan_walk(&self) -> Walk {
        let len = self.len;
        let leaf = len.saturating_sub(2);
        let leaf_kind = match len - leaf {
            0 => Leaf::Point,
            1 => Leaf::Line,
            _ if self.leaf_splits(leaf) => Leaf::Split,
            _ => Leaf::Block,
        };
        let folded = len >= 3 && self.fixed_for_inner_loops(len - 3);
        let mut odometer = if folded { len - 3 } else { leaf };
        let direct = odometer >= 1
            && self.fixed_for_inner_loops(odometer - 1)
            && !matches!(leaf_kind, Leaf::Split);
        if direct {
            odometer -= 1;
        }
        Walk {
            odometer,
            leaf,
            leaf_kind,
            direct,
            folded,
        }
    }

    /// Whether loop `level` always takes the same count and no loop inside
    /// it takes a count that depends on its digit: its iterations are the
    /// same blocks, shifted.
    const fn fixed_for_inner_loops(&self, level: usize) -> bool {
        let l = self.levels[level];
        if l.ragged {
            return false;
        }
        let mut i = level + 1;
        while i < self.len {
            if self.levels[i].ragged && self.levels[i].dim == l.dim {
                return false;
            }
            i += 1;
        }
        true
    }

    /// Whether the two-loop leaf at `level` runs as one block per outer
    /// value (the inner count depends on the outer digit).
    const fn leaf_splits(&self, level: usize) -> bool {
        let (o, i) = (self.levels[level], self.levels[level + 1]);
        o.dim == i.dim && o.ragged
    }

    /// When the innermost block reads one contiguous run but writes
    /// several (splitting pairs back into rows), the outer loops follow the
    /// source instead: measured faster, as the writes then go to a few
    /// rows in order and the reads stream.
    const fn prefer_sequential_reads(&mut self) {
        if self.len < 3 {
            return;
        }
        let (o, i) = (self.levels[self.len - 2], self.levels[self.len - 1]);
        let reads_dense = i.src == 1 || (o.src == 1 && i.src == o.count);
        let writes_dense = i.dst == 1 && o.dst == i.count;
        if !reads_dense || writes_dense {
            return;
        }
        let outer = self.len - 2;
        let mut raw = [NO_LEVEL; MAX_DIGITS];
        let mut k = 0;
        while k < outer {
            raw[k] = self.levels[k];
            k += 1;
        }
        let mut sorted = [NO_LEVEL; MAX_DIGITS];
        merge_by_stride(&raw, outer, &mut sorted, true);
        k = 0;
        while k < outer {
            self.levels[k] = sorted[k];
            k += 1;
        }
    }

    /// Puts the digit with source stride 1 second-innermost, when it is the
    /// lowest digit of its dimension (so no clipping depends on it).
    const fn move_source_unit_stride_inward(&mut self) {
        if self.len < 2 {
            return;
        }
        let mut i = 0;
        while i + 2 < self.len {
            let l = self.levels[i];
            if l.src == 1 && l.place == 1 {
                let mut j = i;
                while j + 2 < self.len {
                    self.levels[j] = self.levels[j + 1];
                    j += 1;
                }
                self.levels[self.len - 2] = l;
                return;
            }
            i += 1;
        }
    }

    /// Merges adjacent loops that walk both buffers contiguously together.
    const fn coalesce(&mut self) {
        let mut i = self.len;
        while i > 1 {
            i -= 1;
            let (outer, inner) = (self.levels[i - 1], self.levels[i]);
            // (Every count product is at most the element count, which
            // fits; checked all the same, since a wrapped count would walk
            // past the buffers.)
            let count = outer.count.checked_mul(inner.count);
            let mergeable = !outer.ragged
                && !inner.ragged
                && inner.src.checked_mul(inner.count).is_some()
                && outer.src == inner.src * inner.count
                && outer.dst == inner.dst.wrapping_mul(inner.count);
            if let (true, Some(count)) = (mergeable, count) {
                self.levels[i - 1] = Level { count, ..inner };
                let mut j = i;
                while j + 1 < self.len {
                    self.levels[j] = self.levels[j + 1];
                    j += 1;
                }
                self.len -= 1;
            }
        }
    }
}

/// Orders `raw[..n]` into `out` by descending stride (source or
/// destination), keeping each dimension's digits from most to least
/// significant; returns `n`.
const fn merge_by_stride(
    raw: &[Level; MAX_DIGITS],
    n: usize,
    out: &mut [Level; MAX_DIGITS],
    by_source: bool,
) -> usize {
    let mut taken = [false; MAX_DIGITS];
    let mut len = 0;
    while len < n {
        let mut best = usize::MAX;
        let mut i = 0;
        while i < n {
            let key = if by_source { raw[i].src } else { raw[i].dst };
            let better = best == usize::MAX
                || raw[i].tier < raw[best].tier
                || (raw[i].tier == raw[best].tier
                    && key
                        > if by_source {
                            raw[best].src
                        } else {
                            raw[best].dst
                        });
            if !taken[i] && is_highest_left(raw, &taken, n, i) && better {
                best = i;
            }
            i += 1;
        }
        taken[best] = true;
        out[len] = raw[best];
        len += 1;
    }
    n
}

/// Whether `raw[i]` is the most significant digit of its dimension not yet
/// taken.
const fn is_highest_left(
    raw: &[Level; MAX_DIGITS],
    taken: &[bool; MAX_DIGITS],
    n: usize,
    i: usize,
) -> bool {
    let mut j = 0;
    while j < n {
        if j != i && !taken[j] && raw[j].dim == raw[i].dim && raw[j].place > raw[i].place {
            return false;
        }
        j += 1;
    }
    true
}

/// A transposition (the destination's unit-stride digit is not the
/// source's) of two long digits walks the source with a large stride; split
/// both into `BLOCK`-sized inner digits so that one block stays in cache.
const fn split_for_blocking(raw: &mut [Level; MAX_DIGITS], mut n: usize) -> usize {
    let (mut s1, mut d1) = (usize::MAX, usize::MAX);
    let mut i = 0;
    while i < n {
        if raw[i].src == 1 && raw[i].place == 1 {
            s1 = i;
        }
        if raw[i].dst == 1 && raw[i].place == 1 {
            d1 = i;
        }
        i += 1;
    }
    if s1 == usize::MAX || d1 == usize::MAX || s1 == d1 {
        return n;
    }
    // Short digits (the 2-row pairs of the TPU formats) need no blocking.
    if raw[s1].count < 2 * BLOCK || raw[d1].count < 2 * BLOCK {
        return n;
    }
    let mut k = 0;
    while k < 2 {
        let i = if k == 0 { s1 } else { d1 };
        let l = raw[i];
        // Only digits that split evenly (or top digits, which clip).
        let top = top_of(raw, n, i);
        if l.count >= 2 * BLOCK && (l.count.is_multiple_of(BLOCK) || top) && n + 2 <= MAX_DIGITS {
            let blocks = l.count.div_ceil(BLOCK);
            let per_super = SUPER / BLOCK;
            let supers = blocks >= 2 * per_super && (blocks.is_multiple_of(per_super) || top);
            // The new top digit's place is the block or the super-block: a
            // top digit whose count is not a multiple of it makes the
            // dimension end inside one, and every loop of the dimension
            // then clips to what is left (only a top digit gets here
            // unevenly, so the dimension has no other digits to mark).
            let top_place = if supers { SUPER } else { BLOCK };
            let ragged = l.ragged || !l.count.is_multiple_of(top_place);
            raw[i] = Level {
                count: BLOCK,
                ragged,
                tier: 2,
                ..l
            };
            if supers {
                raw[n] = scaled(l, BLOCK, per_super, ragged, 1);
                raw[n + 1] = scaled(l, SUPER, blocks.div_ceil(per_super), ragged, 0);
                n += 2;
            } else {
                raw[n] = scaled(l, BLOCK, blocks, ragged, 1);
                n += 1;
            }
        }
        k += 1;
    }
    n
}

/// The digit of `l`'s dimension at `place` times its place value.
const fn scaled(l: Level, place: u64, count: u64, ragged: bool, tier: u8) -> Level {
    Level {
        place: l.place * place,
        count,
        src: l.src * place,
        dst: l.dst * place,
        ragged,
        tier,
        ..l
    }
}

/// Whether `raw[i]` is the top digit of its dimension.
const fn top_of(raw: &[Level; MAX_DIGITS], n: usize, i: usize) -> bool {
    let mut j = 0;
    while j < n {
        if raw[j].dim == raw[i].dim && raw[j].place > raw[i].place {
            return false;
        }
        j += 1;
    }
    true
}
