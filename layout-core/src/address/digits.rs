//! Address math in mixed-radix digits: the structure relayout and the
//! layout-equality checks work on.
//!
//! For layouts without `*` whose tile sizes nest (each divides the next
//! along a dimension — every XLA TPU format does), the slot of an index is
//! affine in the mixed-radix *digits* of its entries: with boundaries
//! `1 = b₀ < b₁ < … < b_L` for dimension `d`, digit `j` is
//! `(e_d / b_j) mod (b_{j+1} / b_j)` and the top digit is `e_d / b_L`, and
//! `slot = Σ digit · stride`. Two layouts read with one common set of
//! boundaries can then be compared digit by digit, and copied from one to
//! the other by loops over digits with constant strides — no per-element
//! offset function.

use super::next_row_major;
use super::tiled::{CoordOp, MAX_COORDS, TiledShape};
use crate::const_eq::same_u64s;
use crate::limits::MAX_RANK;

/// At most this many digits in a decomposition, and boundaries of one
/// dimension: the boundary 1, then at most two for each final coordinate
/// of either layout, of which each has at most `MAX_RANK +
/// MAX_TILE_ENTRIES` (see [`MAX_COORDS`]: `max(rank, M) + M − 2S`).
pub const MAX_DIGITS: usize = 1 + 4 * (MAX_RANK + crate::limits::MAX_TILE_ENTRIES);

/// A final coordinate as `(e_dim / div) mod modulus` (no modulus: `u64::MAX`),
/// with its stride.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Term {
    pub(crate) dim: usize,
    pub(crate) div: u64,
    pub(crate) modulus: u64,
    pub(crate) stride: u64,
}

const NO_TERM: Term = Term {
    dim: 0,
    div: 1,
    modulus: 1,
    stride: 0,
};
pub(crate) const UNBOUNDED_MOD: u64 = u64::MAX;

/// The affine terms of a tiled shape, or `None` when the layout is not
/// affine in digits (`*`, or tile sizes that do not nest).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Terms {
    pub(crate) terms: [Term; MAX_COORDS],
    pub(crate) len: usize,
}

/// The value of each coordinate as a term (stride unset); `None` marks a
/// coordinate that is always 0.
pub(crate) const fn terms_of(t: &TiledShape) -> Option<Terms> {
    let coords = t.coords();
    let mut value: [Option<Term>; MAX_COORDS] = [None; MAX_COORDS];
    let mut i = 0;
    while i < coords.len() {
        value[i] = match coords[i].op {
            // A size-1 dimension's index is always 0.
            CoordOp::Logical(_) if coords[i].extent <= 1 => None,
            CoordOp::Logical(d) => Some(Term {
                dim: d,
                div: 1,
                modulus: UNBOUNDED_MOD,
                stride: 0,
            }),
            CoordOp::Pad => None,
            CoordOp::Outer { source, tile } => match value[source] {
                None => None,
                // A coordinate that never reaches `tile` divides to 0.
                Some(_) if coords[source].extent <= tile => None,
                Some(v) if v.modulus == UNBOUNDED_MOD => match v.div.checked_mul(tile) {
                    Some(div) => Some(Term { div, ..v }),
                    None => return None,
                },
                Some(v) if v.modulus % tile == 0 => match v.div.checked_mul(tile) {
                    Some(div) => Some(Term {
                        div,
                        modulus: v.modulus / tile,
                        ..v
                    }),
                    None => return None,
                },
                Some(_) => return None,
            },
            CoordOp::Inner { source, tile } => match value[source] {
                None => None,
                Some(v) if coords[source].extent <= tile => Some(v),
                Some(v) if v.modulus == UNBOUNDED_MOD || v.modulus % tile == 0 => {
                    Some(Term { modulus: tile, ..v })
                }
                Some(_) => return None,
            },
            CoordOp::Combine { major, minor } => match (value[major], value[minor]) {
                (None, v) => v,
                _ => return None,
            },
        };
        i += 1;
    }
    let mut out = Terms {
        terms: [NO_TERM; MAX_COORDS],
        len: 0,
    };
    let order = t.final_order();
    let strides = t.strides();
    let mut k = 0;
    while k < order.len() {
        if let Some(mut term) = value[order[k] as usize] {
            term.stride = strides[k];
            out.terms[out.len] = term;
            out.len += 1;
        }
        k += 1;
    }
    Some(out)
}

/// One digit: a place value along one logical dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Digit {
    /// The logical dimension.
    pub dim: usize,
    /// Its place value `b_j` in the dimension's index.
    pub place: u64,
    /// How many values it takes: `b_{j+1} / b_j`, or `⌈D / b_L⌉` for the
    /// top digit.
    pub count: u64,
    /// Whether it is the dimension's top digit.
    pub top: bool,
    /// Whether the dimension's size is not a multiple of its top place
    /// value, so that some digit combinations are past its end.
    pub ragged: bool,
    /// Slot stride of one step of this digit, in the first layout.
    pub stride_a: u64,
    /// Slot stride of one step of this digit, in the second layout.
    pub stride_b: u64,
}

const NO_DIGIT: Digit = Digit {
    dim: 0,
    place: 1,
    count: 1,
    top: true,
    ragged: false,
    stride_a: 0,
    stride_b: 0,
};

/// Two layouts of the same logical dimensions, read with common digits.
#[derive(Clone, Copy, Debug)]
pub struct DigitPair {
    digits: [Digit; MAX_DIGITS],
    len: usize,
}

impl DigitPair {
    /// The digits, dimension by dimension, least significant first within
    /// a dimension. Digits that take a single value are left out.
    pub const fn digits(&self) -> &[Digit] {
        self.digits.split_at(self.len).0
    }

    /// Common digits of `a` and `b`, which must have the same logical
    /// dimensions; `None` when either layout is not affine in digits (a
    /// `*`, tile sizes that do not nest) or their boundaries do not nest
    /// with each other. An array with no elements has no digits.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, DigitPair};
    /// let a = ArrayShape::parse_validated("bf16[16,256]{1,0}").unwrap().tiled().unwrap();
    /// let b = ArrayShape::parse_validated("bf16[16,256]{1,0:T(8,128)(2,1)}").unwrap().tiled().unwrap();
    /// let p = DigitPair::new(&a, &b).unwrap();
    /// // Rows split at 2 and 8, columns at 128.
    /// let places: Vec<(usize, u64, u64, u64)> =
    ///     p.digits().iter().map(|d| (d.dim, d.place, d.stride_a, d.stride_b)).collect();
    /// assert_eq!(places, [(0, 1, 256, 1), (0, 2, 512, 256), (0, 8, 2048, 2048), (1, 1, 1, 2), (1, 128, 128, 1024)]);
    /// ```
    pub const fn new(a: &TiledShape, b: &TiledShape) -> Option<DigitPair> {
        if !same_u64s(a.logical_dims(), b.logical_dims()) {
            return None;
        }
        match (terms_of(a), terms_of(b)) {
            (Some(ta), Some(tb)) => Self::from_terms(&ta, &tb, a.logical_dims()),
            _ => None,
        }
    }

    /// Common digits of two layouts read as functions of the row-major
    /// position of an element (`k = Σ e_d · Π_{j>d} D_j`), for comparing
    /// layouts of different shapes (bitcasts). `None` when either is not
    /// affine in digits of `k`.
    pub const fn flattened(a: &TiledShape, b: &TiledShape) -> Option<DigitPair> {
        let (ta, tb) = match (terms_of(a), terms_of(b)) {
            (Some(x), Some(y)) => (x, y),
            _ => return None,
        };
        let (fa, na) = match flatten(&ta, a.logical_dims()) {
            Some(v) => v,
            None => return None,
        };
        let (fb, nb) = match flatten(&tb, b.logical_dims()) {
            Some(v) => v,
            None => return None,
        };
        if na != nb {
            return None;
        }
        Self::from_terms(&fa, &fb, &[na])
    }

    const fn from_terms(ta: &Terms, tb: &Terms, dims: &[u64]) -> Option<DigitPair> {
        let mut out = DigitPair {
            digits: [NO_DIGIT; MAX_DIGITS],
            len: 0,
        };
        // No elements: no digit takes a value, and every two layouts put
        // all (none) of them at the same slots.
        let mut d = 0;
        while d < dims.len() {
            if dims[d] == 0 {
                return Some(out);
            }
            d += 1;
        }
        let mut d = 0;
        while d < dims.len() {
            // Boundaries of this dimension in either layout.
            let mut places = [0u64; MAX_DIGITS];
            let mut n = 0;
            places[n] = 1;
            n += 1;
            n = collect_places(ta, d, &mut places, n);
            n = collect_places(tb, d, &mut places, n);
            sort_unique(&mut places, &mut n);
            // They must nest: each divides the next.
            let mut j = 1;
            while j < n {
                if places[j] % places[j - 1] != 0 {
                    return None;
                }
                j += 1;
            }
            let size = dims[d];
            let ragged = !size.is_multiple_of(places[n - 1]);
            let mut k = 0;
            while k < n {
                let place = places[k];
                let top = k + 1 == n;
                // Values this digit takes for some index below `size`.
                let reachable = size.div_ceil(place);
                let count = if top || places[k + 1] / place > reachable {
                    reachable
                } else {
                    places[k + 1] / place
                };
                if count > 1 {
                    out.digits[out.len] = Digit {
                        dim: d,
                        place,
                        count,
                        top,
                        ragged,
                        stride_a: stride_of(ta, d, place),
                        stride_b: stride_of(tb, d, place),
                    };
                    out.len += 1;
                }
                k += 1;
            }
            d += 1;
        }
        Some(out)
    }

    /// Whether both layouts put every logical index at the same slot.
    pub const fn same_offsets(&self) -> bool {
        let mut i = 0;
        while i < self.len {
            if self.digits[i].stride_a != self.digits[i].stride_b {
                return false;
            }
            i += 1;
        }
        true
    }
}

/// The terms of a layout as functions of the row-major position `k`:
/// `e_d = (k / M_d) mod D_d` with `M_d = Π_{j>d} D_j`. A term
/// `(e_d / a) mod m` becomes `(k / (M_d·a)) mod m` when the cuts divide
/// `D_d` (else it is not affine in `k`). Returns the terms and `Π D`.
const fn flatten(terms: &Terms, dims: &[u64]) -> Option<(Terms, u64)> {
    let mut out = Terms {
        terms: [NO_TERM; MAX_COORDS],
        len: 0,
    };
    let mut total: u64 = 1;
    let mut d = 0;
    while d < dims.len() {
        total = match total.checked_mul(dims[d]) {
            Some(v) => v,
            None => return None,
        };
        d += 1;
    }
    // No elements: no terms (a weight would be 0, and so a digit's place).
    if total == 0 {
        return Some((out, 0));
    }
    let mut i = 0;
    while i < terms.len {
        let t = terms.terms[i];
        let size = dims[t.dim];
        // M_d, the row-major weight of dimension d.
        let mut weight: u64 = 1;
        let mut j = t.dim + 1;
        while j < dims.len() {
            weight = match weight.checked_mul(dims[j]) {
                Some(w) => w,
                None => return None,
            };
            j += 1;
        }
        let modulus = if t.modulus == UNBOUNDED_MOD {
            if !size.is_multiple_of(t.div) {
                return None;
            }
            size / t.div
        } else {
            match t.div.checked_mul(t.modulus) {
                Some(top) if size.is_multiple_of(top) => t.modulus,
                _ => return None,
            }
        };
        let div = match weight.checked_mul(t.div) {
            Some(v) => v,
            None => return None,
        };
        out.terms[out.len] = Term {
            dim: 0,
            div,
            modulus,
            stride: t.stride,
        };
        out.len += 1;
        i += 1;
    }
    Some((out, total))
}

/// How two layouts compare, for the compile-time checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Comparison {
    /// The property holds.
    Yes,
    /// It does not.
    No,
    /// It cannot be decided: a layout is not affine in digits (`*`, tiles
    /// that do not nest, or ragged tiles for a bitcast) and the array is
    /// too large to check every element.
    Undecided,
}

/// Arrays up to this many elements are compared element by element when
/// their layouts are not affine in digits.
const BRUTE_FORCE_LIMIT: u64 = 1 << 16;

impl TiledShape {
    /// Whether `self` and `other` (same logical dimensions) put every
    /// logical index at the same slot: functional equality, e.g. `{1,0}`
    /// and `{1,0:T(1,N)}`.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, Comparison};
    /// let t = |s| ArrayShape::parse_validated(s).unwrap().tiled().unwrap();
    /// assert_eq!(t("f32[8,128]{1,0}").same_offsets(&t("f32[8,128]{1,0:T(1,128)}")), Comparison::Yes);
    /// assert_eq!(t("f32[8,128]{1,0}").same_offsets(&t("f32[8,128]{0,1}")), Comparison::No);
    /// ```
    pub const fn same_offsets(&self, other: &TiledShape) -> Comparison {
        if !same_u64s(self.logical_dims(), other.logical_dims()) {
            return Comparison::No;
        }
        same_slots_in_order(self, other, DigitPair::new(self, other))
    }

    /// Whether a bitcast between `self` and `other` is legal: the same
    /// storage bits per slot, the same slots, and every element at the same
    /// slot when both arrays are read in row-major logical order (so the
    /// same bytes sit in the same places). The shapes may differ.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, Comparison};
    /// let t = |s| ArrayShape::parse_validated(s).unwrap().tiled().unwrap();
    /// assert_eq!(t("f32[2,3]{1,0}").bitcast_compatible(&t("f32[6]{0}")), Comparison::Yes);
    /// assert_eq!(t("f32[2,3]{0,1}").bitcast_compatible(&t("f32[6]{0}")), Comparison::No);
    /// assert_eq!(t("s32[16,128]{1,0:T(8,128)}").bitcast_compatible(&t("f32[2,8,128]{2,1,0}")), Comparison::Yes);
    /// ```
    pub const fn bitcast_compatible(&self, other: &TiledShape) -> Comparison {
        if self.element_bits() != other.element_bits()
            || self.physical_slots() != other.physical_slots()
            || self.element_count() != other.element_count()
        {
            return Comparison::No;
        }
        same_slots_in_order(self, other, DigitPair::flattened(self, other))
    }
}

/// Adds the place values where `terms` cut dimension `d` (a term covers
/// the digits from `div` up to `div · modulus`).
const fn collect_places(
    terms: &Terms,
    d: usize,
    places: &mut [u64; MAX_DIGITS],
    mut n: usize,
) -> usize {
    let mut i = 0;
    while i < terms.len {
        let t = terms.terms[i];
        if t.dim == d {
            places[n] = t.div;
            n += 1;
            if t.modulus != UNBOUNDED_MOD
                && let Some(top) = t.div.checked_mul(t.modulus)
            {
                places[n] = top;
                n += 1;
            }
        }
        i += 1;
    }
    n
}

const fn sort_unique(v: &mut [u64; MAX_DIGITS], n: &mut usize) {
    // Insertion sort: at most a few dozen values.
    let mut i = 1;
    while i < *n {
        let mut j = i;
        while j > 0 && v[j - 1] > v[j] {
            let t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
            j -= 1;
        }
        i += 1;
    }
    let mut w = 0;
    let mut r = 0;
    while r < *n {
        if w == 0 || v[w - 1] != v[r] {
            v[w] = v[r];
            w += 1;
        }
        r += 1;
    }
    *n = w;
}

/// The slot stride of one step of the digit at `place` of dimension `d`:
/// each term that covers the place contributes `stride · place / div`.
const fn stride_of(terms: &Terms, d: usize, place: u64) -> u64 {
    let mut s: u64 = 0;
    let mut i = 0;
    while i < terms.len {
        let t = terms.terms[i];
        let covers = t.dim == d
            && place >= t.div
            && (t.modulus == UNBOUNDED_MOD || place / t.div < t.modulus);
        if covers {
            // In bounds of the slot count, which fits in 64 bits.
            s = s.wrapping_add(t.stride.wrapping_mul(place / t.div));
        }
        i += 1;
    }
    s
}

/// Whether `a` and `b` (as many elements each) put their elements, taken
/// in row-major logical order, at the same slots: decided by `digits` when
/// both layouts are affine in them, element by element for small arrays,
/// and undecided otherwise.
const fn same_slots_in_order(
    a: &TiledShape,
    b: &TiledShape,
    digits: Option<DigitPair>,
) -> Comparison {
    if let Some(pair) = digits {
        return if pair.same_offsets() {
            Comparison::Yes
        } else {
            Comparison::No
        };
    }
    if a.element_count() > BRUTE_FORCE_LIMIT {
        return Comparison::Undecided;
    }
    let (mut ia, mut ib) = ([0u64; MAX_RANK], [0u64; MAX_RANK]);
    let (da, db) = (a.logical_dims(), b.logical_dims());
    let mut n = 0;
    while n < a.element_count() {
        let oa = a.offset_unchecked(ia.split_at(da.len()).0);
        let ob = b.offset_unchecked(ib.split_at(db.len()).0);
        if oa != ob {
            return Comparison::No;
        }
        next_row_major(ia.split_at_mut(da.len()).0, da);
        next_row_major(ib.split_at_mut(db.len()).0, db);
        n += 1;
    }
    Comparison::Yes
}
