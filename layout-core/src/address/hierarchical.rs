//! A tiled layout as CuTe writes layouts: each logical dimension a mode of
//! nested `(shape):(stride)` pairs over the padded domain, so that the
//! slot of an index is a sum of digit × stride. Tiling splits a dimension
//! into digits (which tile, where in the tile, …); when the tile sizes
//! along a dimension nest, each digit has one stride and the layout is
//! exactly such a form.
//!
//! What stops it, worked out: a `*` tile entry merges two dimensions into
//! one coordinate before tiling it, so a slot is no longer a sum over each
//! dimension's digits (unless the merged major dimension has size 1); tile
//! sizes that do not nest (`T(3)(2)`) cut a dimension at places that are
//! not digits of one mixed radix. `L(n)` only adds slots after the last
//! element, `E(n)` only changes the bits per slot and split configs only
//! change XLA's `ArraySize`: none of them moves an element, so none stops
//! the form.

use core::fmt::{self, Display, Formatter};

use super::digits::{UNBOUNDED_MOD, terms_of};
use super::error::IndexError;
use super::tiled::{PerDim, TiledShape};
use crate::limits::{MAX_RANK, MAX_TILES};

/// The most digits a dimension can be split into: one per tiling level,
/// and the rest.
pub const MAX_MODE_DEPTH: usize = MAX_TILES + 1;

/// One logical dimension as nested digits: `shape[0]` is the least
/// significant digit (CuTe's order), each with its slot stride.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mode {
    shape: [u64; MAX_MODE_DEPTH],
    stride: [u64; MAX_MODE_DEPTH],
    len: usize,
}

impl Mode {
    /// The digits' sizes, least significant first; their product is the
    /// dimension's padded size.
    pub fn shape(&self) -> &[u64] {
        &self.shape[..self.len]
    }

    /// The digits' slot strides, in the same order.
    pub fn stride(&self) -> &[u64] {
        &self.stride[..self.len]
    }

    /// The one stride that steps indices `0..extent` of this mode, if
    /// there is one: the digits those indices reach join into one (CuTe's
    /// coalescing: a digit whose stride is the stride of all the digits
    /// below it times their span continues them). Digits only index 0
    /// reaches do not matter; with no digit reached (`extent` ≤ 1), the
    /// first digit's stride.
    ///
    /// Post-condition: if `Some(s)`, the slot of index `i < extent` is
    /// `i · s` (plus the other modes' share).
    fn single_stride(&self, extent: u64) -> Option<u64> {
        let mut span: u64 = 1; // indices the digits so far step through
        let mut base = None; // the stride of the first digit reached
        for (&n, &s) in self.shape().iter().zip(self.stride()) {
            if span >= extent {
                break;
            }
            if n > 1 {
                let first = *base.get_or_insert(s);
                if span.checked_mul(first) != Some(s) {
                    return None;
                }
            }
            span = span.saturating_mul(n);
        }
        Some(base.unwrap_or(self.stride[0]))
    }

    /// The product of the digits' sizes: the dimension's size padded to
    /// what its digits reach. At least the size; at most XLA's tile
    /// padding, and less when a tile is larger than the whole dimension
    /// (its digit is then the index itself, and padding beyond the last
    /// element is not part of the form); 0 for a dimension of size 0.
    pub fn size(&self) -> u64 {
        // A padded size fits in 64 bits (XLA's sizes are int64, tiles
        // add less than a tile); saturating keeps a wrap impossible.
        self.shape()
            .iter()
            .fold(1, |p: u64, &n| p.saturating_mul(n))
    }
}

/// A layout as nested `(shape):(stride)` modes, one per logical
/// dimension; see [`TiledShape::hierarchical`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Hierarchical {
    modes: [Mode; MAX_RANK],
    rank: usize,
    /// The layout's slots ([`TiledShape::physical_slots`]), for errors.
    slots: u64,
}

/// Why a layout has no hierarchical form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NotHierarchical {
    /// A `*` tile entry merges two dimensions before tiling them.
    Combine,
    /// Tile sizes along a dimension do not divide one another.
    TilesDoNotNest,
}

impl Display for NotHierarchical {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NotHierarchical::Combine => {
                "a `*` tile entry merges two dimensions before tiling, so slots are not sums over each dimension's digits"
            }
            NotHierarchical::TilesDoNotNest => {
                "tile sizes along a dimension do not divide one another, so its cuts are not digits of one mixed radix"
            }
        })
    }
}

impl core::error::Error for NotHierarchical {}

/// Why a layout has no plain per-dimension strides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NotStrided {
    /// A dimension is split by a tile into digits that do not join back
    /// into one stride (its hierarchical form has nested modes that do not
    /// coalesce).
    Tiled {
        /// The first such dimension.
        dim: usize,
    },
    /// The layout has no hierarchical form either.
    NotHierarchical(NotHierarchical),
}

impl Display for NotStrided {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            NotStrided::Tiled { dim } => write!(
                f,
                "dimension {dim} is split by a tile into pieces that do not join back, so one stride cannot step it (see the hierarchical form)"
            ),
            NotStrided::NotHierarchical(e) => write!(f, "{e}"),
        }
    }
}

impl core::error::Error for NotStrided {}

/// One digit of a hierarchical layout as an array axis: see
/// [`Hierarchical::axes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Axis {
    /// The logical dimension the digit belongs to.
    pub dim: usize,
    /// The digit's size.
    pub size: u64,
    /// The digit's slot stride.
    pub stride: u64,
}

impl Hierarchical {
    /// Every digit as an axis, dimension by dimension and, within one,
    /// most significant first: walking the axes row-major walks the padded
    /// domain in logical row-major order, so a row-major array of the
    /// padded shape reshaped to these sizes lines up axis for axis.
    ///
    /// ```
    /// use xla_layout_core::ArrayShape;
    /// let t = ArrayShape::parse_validated("bf16[16,256]{1,0:T(8,128)(2,1)}").unwrap().tiled().unwrap();
    /// let h = t.hierarchical().unwrap();
    /// let (sizes, strides): (Vec<u64>, Vec<u64>) = h.axes().map(|a| (a.size, a.stride)).unzip();
    /// assert_eq!(sizes, [2, 4, 2, 2, 128]);            // rows: r/8, (r/2)%4, r%2; columns: c/128, c%128
    /// assert_eq!(strides, [2048, 256, 1, 1024, 2]);   // pairs of rows interleave (the (2,1) tile)
    /// ```
    pub fn axes(&self) -> impl Iterator<Item = Axis> + '_ {
        self.modes().iter().enumerate().flat_map(|(dim, m)| {
            m.shape()
                .iter()
                .zip(m.stride())
                .rev()
                .map(move |(&size, &stride)| Axis { dim, size, stride })
        })
    }

    /// The modes, one per logical dimension.
    pub fn modes(&self) -> &[Mode] {
        &self.modes[..self.rank]
    }

    /// The slot of a logical index (any index of the padded domain: a
    /// padding index gives its padding slot).
    ///
    /// Post-condition: for every index of the logical domain, equal to
    /// [`TiledShape::offset`]; an index with the wrong number of entries
    /// or outside its mode's [`Mode::size`] is an error, never another
    /// element's slot.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, IndexError};
    /// let t = ArrayShape::parse_validated("f32[3,5]{1,0:T(2,2)}").unwrap().tiled().unwrap();
    /// let h = t.hierarchical().unwrap();
    /// assert_eq!(h.offset(&[2, 3]), t.offset(&[2, 3]));
    /// assert_eq!(h.offset(&[3, 0]), Ok(14)); // the padding row of the last row pair
    /// assert_eq!(
    ///     h.offset(&[4, 0]),
    ///     Err(IndexError::OutOfBounds { dim: 0, index: 4, size: 4 })
    /// );
    /// assert_eq!(h.offset(&[2]), Err(IndexError::WrongRank { expected: 2, got: 1 }));
    /// ```
    pub fn offset(&self, index: &[u64]) -> Result<u64, IndexError> {
        if index.len() != self.rank {
            return Err(IndexError::WrongRank {
                expected: self.rank,
                got: index.len(),
            });
        }
        let mut slot: u64 = 0;
        for (dim, (mode, &i)) in self.modes().iter().zip(index).enumerate() {
            let size = mode.size();
            if i >= size {
                return Err(IndexError::OutOfBounds {
                    dim,
                    index: i,
                    size,
                });
            }
            let mut rest = i;
            for (&n, &s) in mode.shape().iter().zip(mode.stride()) {
                // In bounds, every term is below the layout's slot count,
                // which fits; checked all the same, as an error.
                slot = (rest % n)
                    .checked_mul(s)
                    .and_then(|term| slot.checked_add(term))
                    .ok_or(IndexError::OffsetOutOfRange {
                        offset: u64::MAX,
                        slots: self.slots,
                    })?;
                rest /= n;
            }
        }
        Ok(slot)
    }
}

impl TiledShape {
    /// The layout as nested `(shape):(stride)` modes over its padded
    /// domain (CuTe's hierarchical layouts), or why it has none (see the
    /// module docs: only `*` and tile sizes that do not nest stop it).
    ///
    /// ```
    /// use xla_layout_core::ArrayShape;
    /// let t = |s| ArrayShape::parse_validated(s).unwrap().tiled().unwrap();
    /// // tiled_layout.md figure 1: rows in pairs (stride 2), pairs 12 apart.
    /// assert_eq!(t("f32[3,5]{1,0:T(2,2)}").hierarchical().unwrap().to_string(), "((2,2),(2,3)):((2,12),(1,4))");
    /// assert_eq!(t("f32[3,5]{0,1}").hierarchical().unwrap().to_string(), "(3,5):(1,3)");
    /// assert!(t("f32[8,8,64]{2,1,0:T(*,16,64)}").hierarchical().is_err());
    /// ```
    pub fn hierarchical(&self) -> Result<Hierarchical, NotHierarchical> {
        let Some(terms) = terms_of(self) else {
            return Err(self.why_not_hierarchical());
        };
        let rank = self.rank();
        let empty = Mode {
            shape: [1; MAX_MODE_DEPTH],
            stride: [0; MAX_MODE_DEPTH],
            len: 1,
        };
        let mut out = Hierarchical {
            modes: [empty; MAX_RANK],
            rank,
            slots: self.physical_slots(),
        };
        for (d, mode) in out.modes.iter_mut().enumerate().take(rank) {
            let size = self.logical_dims()[d];
            // This dimension's digits, least significant first.
            let mut digits = [(0u64, 0u64, 0u64); MAX_MODE_DEPTH];
            let mut n = 0;
            for t in &terms.terms[..terms.len] {
                if t.dim == d && t.modulus != 1 {
                    let slot = digits.get_mut(n).ok_or(NotHierarchical::TilesDoNotNest)?;
                    *slot = (t.div, t.modulus, t.stride);
                    n += 1;
                }
            }
            digits[..n].sort_unstable_by_key(|&(div, _, _)| div);
            let mut place = 1u64;
            mode.len = 0;
            for &(div, modulus, stride) in &digits[..n] {
                if div != place {
                    return Err(NotHierarchical::TilesDoNotNest);
                }
                // A dimension of size 0 has no index: its top digit
                // counts 0, so the mode's size is 0 and every index is
                // out of bounds, as `TiledShape::offset` has it.
                let count = if modulus == UNBOUNDED_MOD {
                    size.div_ceil(div)
                } else {
                    modulus
                };
                mode.shape[mode.len] = count;
                mode.stride[mode.len] = stride;
                mode.len += 1;
                place = match div.checked_mul(count) {
                    Some(p) => p,
                    None => return Err(NotHierarchical::TilesDoNotNest),
                };
            }
            if mode.len == 0 {
                *mode = empty;
            }
            if size == 0 && mode.size() != 0 {
                // No digit counts the dimension (a size-0 dimension with
                // no tile of its own): one digit of 0.
                *mode = Mode {
                    shape: [0; MAX_MODE_DEPTH],
                    stride: [0; MAX_MODE_DEPTH],
                    len: 1,
                };
            }
        }
        Ok(out)
    }

    /// One slot stride per logical dimension, for layouts that have them:
    /// no dimension split by a tile into pieces that do not join back
    /// (tiles that pad, like `T(8,128)` on `f32[3,5]`, leave one digit per
    /// dimension; `T(2,128)(2,1)` on bf16 `[1024,1]{0,1}` splits dimension
    /// 0 into digits `(128,8):(2,256)`, 128 steps of 2 slots then steps of
    /// 256 = 128·2, which join into one stride of 2). A layout with `*`, or
    /// with tiles that do not nest, has strides when one step along each
    /// dimension gives every index's slot, checked element by element for
    /// arrays of up to 65,536 elements.
    /// Unlike XLA's
    /// `ByteStrides` ([`crate::ArrayShape::xla_byte_strides`]), which ignores
    /// tiles, a tiled layout is refused rather than given wrong strides.
    ///
    /// ```
    /// use xla_layout_core::ArrayShape;
    /// let t = |s| ArrayShape::parse_validated(s).unwrap().tiled().unwrap();
    /// assert_eq!(t("f32[3,5]{0,1}").logical_strides().unwrap().as_slice(), [1, 3]);
    /// assert_eq!(t("f32[3,5]{1,0:T(8,128)}").logical_strides().unwrap().as_slice(), [128, 1]);
    /// assert!(t("bf16[16,256]{1,0:T(8,128)(2,1)}").logical_strides().is_err());
    /// // TPU v5e's default for a column vector: the tiles join back.
    /// assert_eq!(t("bf16[1024,1]{0,1:T(2,128)(2,1)}").logical_strides().unwrap().as_slice(), [2, 0]);
    /// // A `*` that changes nothing: row-major.
    /// assert_eq!(t("f32[8,8,64]{2,1,0:T(*,16,64)}").logical_strides().unwrap().as_slice(), [512, 64, 1]);
    /// assert!(t("f32[8,8,64]{2,1,0:T(*,2,32)}").logical_strides().is_err());
    /// // Tiles that do not nest, but split only a digit of one value.
    /// assert_eq!(t("u2[5,3,4]{0,1,2:T(1,1)(3)(2)}").logical_strides().unwrap().as_slice(), [4, 20, 60]);
    /// // No element: any strides step it.
    /// assert!(t("f32[0,5]{1,0:T(2,2)}").logical_strides().is_ok());
    /// ```
    pub fn logical_strides(&self) -> Result<PerDim, NotStrided> {
        // An array with no element: any strides step it (none is reached),
        // so it always has some: its digits' lowest strides (zeros where it
        // has no hierarchical form).
        let empty = self.logical_dims().contains(&0);
        let h = match self.hierarchical() {
            Ok(h) => h,
            Err(_) if empty => {
                return Ok(PerDim {
                    len: self.rank(),
                    values: [0; MAX_RANK],
                });
            }
            // No digits to read them from, yet strides may hold: a `*`
            // may change nothing (`T(*,16,64)` on `[8,8,64]`), and tiles
            // that do not nest may cut only digits of one value
            // (`T(1,1)(3)(2)` on `[5,3,4]{0,1,2}`).
            Err(e) => {
                return self
                    .strides_checked_elementwise()
                    .ok_or(NotStrided::NotHierarchical(e));
            }
        };
        let mut out = PerDim {
            len: self.rank(),
            values: [0; MAX_RANK],
        };
        for (d, (mode, &extent)) in h.modes().iter().zip(self.logical_dims()).enumerate() {
            out.values[d] = match mode.single_stride(extent) {
                Some(s) => s,
                None if empty => mode.stride()[0],
                None => return Err(NotStrided::Tiled { dim: d }),
            };
        }
        Ok(out)
    }

    /// The strides one step along each dimension gives, if they give every
    /// index's slot, checked element by element: only for arrays of at
    /// most [`ELEMENTWISE`] elements (as [`TiledShape::same_offsets`]
    /// decides layouts with `*`).
    ///
    /// Post-condition: if `Some(s)`, the slot of every index `i` is
    /// `Σ i[d]·s[d]`.
    fn strides_checked_elementwise(&self) -> Option<PerDim> {
        let dims = self.logical_dims();
        let rank = dims.len();
        let count = dims.iter().try_fold(1u64, |n, &d| n.checked_mul(d))?;
        if count == 0 || count > ELEMENTWISE {
            return None;
        }
        let mut out = PerDim {
            len: rank,
            values: [0; MAX_RANK],
        };
        for d in 0..rank {
            if dims[d] > 1 {
                let mut step = [0u64; MAX_RANK];
                step[d] = 1;
                out.values[d] = self.offset(&step[..rank]).ok()?;
            }
        }
        let mut index = [0u64; MAX_RANK];
        loop {
            let mut slot = 0u64;
            for (&i, &stride) in index[..rank].iter().zip(&out.values[..rank]) {
                slot = slot.checked_add(i.checked_mul(stride)?)?;
            }
            if self.offset(&index[..rank]) != Ok(slot) {
                return None;
            }
            // The next index, row-major; past the last, every one held.
            let mut d = rank;
            loop {
                if d == 0 {
                    return Some(out);
                }
                d -= 1;
                index[d] += 1;
                if index[d] < dims[d] {
                    break;
                }
                index[d] = 0;
            }
        }
    }

    fn why_not_hierarchical(&self) -> NotHierarchical {
        // Only a tile entry `*` or tiles that do not nest make the
        // coordinate program non-affine (see `terms_of`).
        if self
            .coords()
            .iter()
            .any(|c| matches!(c.op, super::tiled::CoordOp::Combine { .. }))
        {
            NotHierarchical::Combine
        } else {
            NotHierarchical::TilesDoNotNest
        }
    }
}

/// Arrays with `*` tiles of at most this many elements have their strides
/// checked element by element.
const ELEMENTWISE: u64 = 1 << 16;

/// One level of CuTe's tuple text: `a` alone, `(a,b,…)` for several.
fn write_tuple(f: &mut Formatter<'_>, items: &[u64]) -> fmt::Result {
    if let [one] = items {
        return write!(f, "{one}");
    }
    f.write_str("(")?;
    for (i, v) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(",")?;
        }
        write!(f, "{v}")?;
    }
    f.write_str(")")
}

impl Display for Hierarchical {
    /// CuTe's notation: `(shape):(stride)`, each mode a number or a
    /// parenthesised list of digits (least significant first).
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let modes = self.modes();
        let part = |f: &mut Formatter<'_>, pick: fn(&Mode) -> &[u64]| -> fmt::Result {
            if modes.len() == 1 {
                return write_tuple(f, pick(&modes[0]));
            }
            f.write_str("(")?;
            for (i, m) in modes.iter().enumerate() {
                if i > 0 {
                    f.write_str(",")?;
                }
                write_tuple(f, pick(m))?;
            }
            f.write_str(")")
        };
        if modes.is_empty() {
            return f.write_str("1:0");
        }
        part(f, Mode::shape)?;
        f.write_str(":")?;
        part(f, Mode::stride)
    }
}
