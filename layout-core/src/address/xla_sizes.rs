//! XLA's own size and index functions (docs/xla-layouts.md §d.2, §e), reproduced with
//! their quirks. Where they differ from the exact tiled size
//! ([`crate::TiledShape::exact_bytes`]) each function says how.

use super::AddressError;
use super::tiled::{PerDim, round_up};
use crate::limits::{COMBINE, MAX_RANK, UNBOUNDED};
use crate::{ArrayShape, Layout, Shape, validate_array};

/// The validated layout of `shape`, or why there is none.
const fn checked_layout(shape: &ArrayShape) -> Result<&Layout, AddressError> {
    if let Err(e) = validate_array(shape) {
        return Err(AddressError::Invalid(e.kind()));
    }
    match shape.layout() {
        Some(l) => Ok(l),
        None => unreachable!(), // validate_array requires a layout
    }
}

/// Dimension `d`'s size, or an error if it is unbounded.
const fn bounded(shape: &ArrayShape, d: usize) -> Result<u64, AddressError> {
    match shape.dims()[d] {
        UNBOUNDED => Err(AddressError::UnboundedDimension { dim: d }),
        n => Ok(n as u64), // validated: n >= 0
    }
}

/// `size`, if XLA's int64 holds it: XLA computes its sizes in int64, so a
/// value past it is an overflow there, not a size. The one test of that
/// rule: every XLA size function here goes through [`bytes_of`], which
/// applies it, and `tpu::buffer_bytes` through this.
pub(crate) const fn within_int64(size: Result<u64, AddressError>) -> Result<u64, AddressError> {
    match size {
        Ok(bytes) if bytes > i64::MAX as u64 => Err(AddressError::Overflow),
        other => other,
    }
}

/// `bytes(n)` of docs/xla-layouts.md §e: `⌈n·E/8⌉` with `E`, else `n·ByteWidth`.
/// XLA computes `n·E` in int64 before it divides: past int64 there
/// (`s4[2^61]{0:E(4)}`, whose bytes fit) it has no value either.
const fn bytes_of(shape: &ArrayShape, layout: &Layout, n: u64) -> Result<u64, AddressError> {
    let bits = match layout.element_bits(shape.element_type()) {
        Some(b) => b,
        None => unreachable!(), // validated: an array type
    };
    let product = n as u128 * bits as u128;
    if layout.element_size_in_bits() != 0 && product > i64::MAX as u128 {
        return Err(AddressError::Overflow);
    }
    let bytes = product.div_ceil(8);
    if bytes > u64::MAX as u128 {
        Err(AddressError::Overflow)
    } else {
        within_int64(Ok(bytes as u64))
    }
}

/// `MaxSplitSize`: the size of logical dimension `dim`, or its largest
/// piece if a split config splits it.
const fn max_split_size(
    shape: &ArrayShape,
    layout: &Layout,
    dim: usize,
) -> Result<u64, AddressError> {
    let size = match bounded(shape, dim) {
        Ok(s) => s,
        Err(e) => return Err(e),
    };
    let m2m = layout.minor_to_major();
    let rank = m2m.len();
    let mut c = 0;
    while c < layout.split_config_count() {
        let sc = layout.split_config(c);
        if m2m[rank - 1 - sc.dimension as usize] as usize == dim {
            let (mut largest, mut start) = (0u64, 0u64);
            let mut i = 0;
            while i < sc.indices.len() {
                let at = sc.indices[i] as u64;
                if at - start > largest {
                    largest = at - start;
                }
                start = at;
                i += 1;
            }
            return Ok(if size - start > largest {
                size - start
            } else {
                largest
            });
        }
        c += 1;
    }
    Ok(size)
}

impl ArrayShape {
    /// `ShapeUtil::ElementsIn`: `Π dims`, bounds for bounded dimensions.
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// assert_eq!("f32[<=3,4]".parse::<ArrayShape>().unwrap().element_count(), Ok(12));
    /// assert!("f32[?,4]".parse::<ArrayShape>().unwrap().element_count().is_err());
    /// ```
    pub const fn element_count(&self) -> Result<u64, AddressError> {
        let mut n: u64 = 1;
        let mut d = 0;
        while d < self.rank() {
            let size = match bounded(self, d) {
                Ok(s) => s,
                Err(e) => return Err(e),
            };
            n = match n.checked_mul(size) {
                Some(v) => v,
                None => return Err(AddressError::Overflow),
            };
            d += 1;
        }
        Ok(n)
    }

    /// `ShapeUtil::ByteSizeOfElements` (= `ByteSizeOf` for arrays):
    /// `bytes(Π dims)`. Ignores tiles, `L`, split configs, `S` and `M`, so
    /// it is smaller than the allocation whenever tiles pad.
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let s = ArrayShape::parse_validated("f32[3,5]{1,0:T(2,2)}").unwrap();
    /// assert_eq!(s.xla_byte_size_of(), Ok(60)); // docs/xla-layouts.md §d.3 example 1
    /// // Past int64, XLA's size type: no size (XLA would overflow).
    /// let huge = ArrayShape::parse_validated("u8[9]{0:E(9223372036854775807)}").unwrap();
    /// assert!(huge.xla_byte_size_of().is_err());
    /// // XLA multiplies the count by `E` in int64 first: 2^63 bits has no
    /// // value there, although its 2^60 bytes would fit.
    /// let wide = ArrayShape::parse_validated("s4[2305843009213693952]{0:E(4)}").unwrap();
    /// assert!(wide.xla_byte_size_of().is_err());
    /// let fits = ArrayShape::parse_validated("s4[2305843009213693951]{0:E(4)}").unwrap();
    /// assert_eq!(fits.xla_byte_size_of(), Ok(1152921504606846976));
    /// ```
    pub const fn xla_byte_size_of(&self) -> Result<u64, AddressError> {
        let layout = match checked_layout(self) {
            Ok(l) => l,
            Err(e) => return Err(e),
        };
        // In int64, as XLA computes it: past it (`u8[9]{0:E(2^63-1)}`, or
        // `s4[2^61]{0:E(4)}`, whose bits do not fit) XLA would overflow,
        // so there is no size to give.
        match self.element_count() {
            Ok(n) => bytes_of(self, layout, n),
            Err(e) => Err(e),
        }
    }

    /// The sizes a dynamic array carries after its data on XLA's CPU and
    /// GPU: an int32 per dimension (what the CPU's `ShapeSizeBytes` and the
    /// transfer manager add to `ByteSizeOf`); 0 for a static array. A TPU
    /// puts its sizes in front instead: `tpu::metadata_bytes`.
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let a = |t| ArrayShape::parse_validated(t).unwrap().xla_dynamic_size_bytes();
    /// assert_eq!(a("f32[<=8,4]{1,0}"), 8);
    /// assert_eq!(a("f32[8,4]{1,0}"), 0);
    /// ```
    pub const fn xla_dynamic_size_bytes(&self) -> u64 {
        if self.is_static() {
            0
        } else {
            4 * self.rank() as u64
        }
    }

    /// `ShapeUtil::ArraySize`: the allocation size as XLA computes it.
    /// Only the **first** tile pads (later tiles are assumed not to); a
    /// split dimension counts as its largest piece; `L` applies only when
    /// there are tiles. Undefined (an error) with a `*` entry in the first
    /// tile (the only one it reads) of an array with elements, or with
    /// unbounded dimensions.
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let a = |t| ArrayShape::parse_validated(t).unwrap().xla_array_size();
    /// assert_eq!(a("s4[9216,6144]{1,0:T(64,128)(8,1)E(4)}"), Ok(28_311_552)); // docs/xla-layouts.md §e
    /// assert_eq!(a("f32[6,4]{1,0:T(3,4)(2,1)}"), Ok(96)); // the exact size is 128
    /// // Padded to 2^63 bytes: past int64, so XLA has no value for it.
    /// assert!(a("u8[9223372036854775807]{0:T(2)}").is_err());
    /// assert!(a("f32[2,4]{1,0:T(*,2)}").is_err());
    /// assert_eq!(a("f32[2,4]{1,0:T(2,2)(*,1)}"), Ok(32)); // `*` in a later tile: not read
    /// assert_eq!(a("f32[0,4]{1,0:T(*,2)}"), Ok(0)); // no elements
    /// ```
    pub const fn xla_array_size(&self) -> Result<u64, AddressError> {
        let layout = match checked_layout(self) {
            Ok(l) => l,
            Err(e) => return Err(e),
        };
        if layout.tile_count() == 0 {
            return self.xla_byte_size_of();
        }
        if self.is_unbounded_dynamic() {
            return Err(AddressError::UndefinedInXla(
                "ArraySize of an unbounded dynamic shape",
            ));
        }
        // No elements: every product has a zero factor (XLA's int64 product
        // is 0 too, whatever the other factors).
        if matches!(self.element_count(), Ok(0)) {
            return Ok(0);
        }
        let tile = layout.tile(0);
        let m2m = layout.minor_to_major();
        let rank = self.rank();
        let mut num: u64 = 1;
        let mut j = 0;
        while j < tile.len() || j < rank {
            let size = if j < rank {
                match max_split_size(self, layout, m2m[j] as usize) {
                    Ok(s) => s,
                    Err(e) => return Err(e),
                }
            } else {
                1
            };
            let factor = if j < tile.len() {
                let t = tile[tile.len() - 1 - j];
                if t == COMBINE {
                    return Err(AddressError::UndefinedInXla(
                        "ArraySize with a `*` tile entry",
                    ));
                }
                match round_up(size, t as u64) {
                    Some(v) => v,
                    None => return Err(AddressError::Overflow),
                }
            } else {
                size
            };
            num = match num.checked_mul(factor) {
                Some(v) => v,
                None => return Err(AddressError::Overflow),
            };
            j += 1;
        }
        let alignment = layout.tail_padding_alignment_in_elements() as u64;
        num = match round_up(num, alignment) {
            Some(v) => v,
            None => return Err(AddressError::Overflow),
        };
        bytes_of(self, layout, num)
    }

    /// `LayoutUtil::LinearIndex`: XLA's slot of a logical index, which
    /// honours **only the first tile**, and **no tile at all on rank 1**
    /// (docs/xla-layouts.md §d.2). It agrees with [`crate::TiledShape::offset`] for one
    /// tiling level on rank ≥ 2 and disagrees elsewhere
    /// (`f32[8]{0:T(2,2)}` index 5: XLA 5, exact 9).
    ///
    /// An index past a dimension's size is refused, as one of the wrong
    /// rank is (XLA's function only debug-checks them: what it gives is
    /// some other element's slot).
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let s = ArrayShape::parse_validated("f32[8]{0:T(2,2)}").unwrap();
    /// assert_eq!(s.xla_linear_index(&[5]), Ok(5));
    /// assert_eq!(s.tiled().unwrap().offset(&[5]), Ok(9));
    /// assert!(s.xla_linear_index(&[8]).is_err());
    /// ```
    pub const fn xla_linear_index(&self, index: &[u64]) -> Result<u64, AddressError> {
        let layout = match checked_layout(self) {
            Ok(l) => l,
            Err(e) => return Err(e),
        };
        let rank = self.rank();
        if index.len() != rank {
            return Err(AddressError::UndefinedInXla(
                "LinearIndex with an index of the wrong rank",
            ));
        }
        let dims = self.dims();
        let mut d = 0;
        while d < rank {
            // Sizes are never negative in a shape that validates.
            if index[d] >= dims[d] as u64 {
                return Err(AddressError::UndefinedInXla(
                    "LinearIndex with an index past its dimension's size",
                ));
            }
            d += 1;
        }
        if rank == 0 {
            return Ok(0);
        }
        if rank == 1 {
            return Ok(index[0]);
        }
        let empty: &[i64] = &[];
        let tile = if layout.tile_count() > 0 {
            layout.tile(0)
        } else {
            empty
        };
        // Exact in i128, checked at every step.
        let mut tile_multiplier: i128 = 1;
        let mut k = 0;
        while k < tile.len() {
            if tile[k] == COMBINE {
                return Err(AddressError::UndefinedInXla(
                    "LinearIndex with a `*` tile entry",
                ));
            }
            tile_multiplier = match tile_multiplier.checked_mul(tile[k] as i128) {
                Some(v) => v,
                None => return Err(AddressError::Overflow),
            };
            k += 1;
        }
        let mut within: i128 = 1;
        let mut linear: i128 = 0;
        let m2m = layout.minor_to_major();
        let mut minor = 0;
        while minor < rank {
            let d = m2m[minor] as usize;
            let size = match bounded(self, d) {
                Ok(s) => s as i128,
                Err(e) => return Err(e),
            };
            let i = index[d] as i128;
            let (term, factor) = if minor < tile.len() {
                let t = tile[tile.len() - 1 - minor] as i128;
                let term = match (
                    tile_multiplier.checked_mul(i / t),
                    within.checked_mul(i % t),
                ) {
                    (Some(a), Some(b)) => a + b,
                    _ => return Err(AddressError::Overflow),
                };
                within = match within.checked_mul(t) {
                    Some(v) => v,
                    None => return Err(AddressError::Overflow),
                };
                (term, (size + t - 1) / t)
            } else {
                match i.checked_mul(tile_multiplier) {
                    Some(term) => (term, size),
                    None => return Err(AddressError::Overflow),
                }
            };
            linear = match linear.checked_add(term) {
                Some(v) if v <= u64::MAX as i128 => v,
                _ => return Err(AddressError::Overflow),
            };
            tile_multiplier = match tile_multiplier.checked_mul(factor) {
                Some(v) => v,
                None => return Err(AddressError::Overflow),
            };
            minor += 1;
        }
        Ok(linear as u64)
    }

    /// `ShapeUtil::ArrayDataSize`: the bytes up to and including the last
    /// element by [`ArrayShape::xla_linear_index`], so no trailing padding
    /// and the same first-tile and rank-1 limits; 0 with no elements.
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let s = ArrayShape::parse_validated("f32[3,5]{1,0:T(2,2)}").unwrap();
    /// assert_eq!(s.xla_array_data_size(), Ok(84)); // docs/xla-layouts.md §d.3 example 1
    /// // The last element's index passes int64 bytes: XLA has no size.
    /// let far = ArrayShape::parse_validated("u8[2,4611686018427387903]{1,0:T(1,9223372036854775807)}").unwrap();
    /// assert!(far.xla_array_data_size().is_err());
    /// ```
    pub const fn xla_array_data_size(&self) -> Result<u64, AddressError> {
        let layout = match checked_layout(self) {
            Ok(l) => l,
            Err(e) => return Err(e),
        };
        match self.element_count() {
            Ok(0) => return Ok(0),
            Ok(_) => {}
            Err(e) => return Err(e),
        }
        let mut last = [0u64; MAX_RANK];
        let mut d = 0;
        while d < self.rank() {
            last[d] = self.dims()[d] as u64 - 1;
            d += 1;
        }
        match self.xla_linear_index(last.split_at(self.rank()).0) {
            Ok(i) => match i.checked_add(1) {
                Some(n) => bytes_of(self, layout, n),
                None => Err(AddressError::Overflow),
            },
            Err(e) => Err(e),
        }
    }

    /// `ShapeUtil::UnpackedByteStrides`: bytes between neighbours along
    /// each logical dimension of the **untiled** layout, at the natural
    /// byte width (tiles and `E` are ignored).
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let s = ArrayShape::parse_validated("f32[3,5,7]").unwrap();
    /// assert_eq!(s.xla_unpacked_byte_strides().unwrap().as_slice(), &[140, 28, 4]);
    /// ```
    pub const fn xla_unpacked_byte_strides(&self) -> Result<PerDim, AddressError> {
        let layout = match checked_layout(self) {
            Ok(l) => l,
            Err(e) => return Err(e),
        };
        let mut stride = match self.element_type().byte_width() {
            Some(w) => w as u64,
            None => unreachable!(), // validated: an array type
        };
        let mut out = PerDim {
            len: self.rank(),
            values: [0; MAX_RANK],
        };
        let m2m = layout.minor_to_major();
        let mut k = 0;
        while k < m2m.len() {
            let d = m2m[k] as usize;
            out.values[d] = stride;
            let size = match bounded(self, d) {
                Ok(s) => s,
                Err(e) => return Err(e),
            };
            stride = match stride.checked_mul(size) {
                Some(v) => v,
                None => return Err(AddressError::Overflow),
            };
            k += 1;
        }
        Ok(out)
    }

    /// `ShapeUtil::ByteStrides`: as [`ArrayShape::xla_unpacked_byte_strides`],
    /// but `None` when `E` is not a whole number of bytes.
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let s = ArrayShape::parse_validated("s4[10,20]{1,0:E(4)}").unwrap();
    /// assert_eq!(s.xla_byte_strides(), Ok(None));
    /// let s = ArrayShape::parse_validated("f16[5,7,9]").unwrap();
    /// assert_eq!(s.xla_byte_strides().unwrap().unwrap().as_slice(), &[126, 18, 2]);
    /// ```
    pub const fn xla_byte_strides(&self) -> Result<Option<PerDim>, AddressError> {
        let layout = match checked_layout(self) {
            Ok(l) => l,
            Err(e) => return Err(e),
        };
        if layout.element_size_in_bits() % 8 != 0 {
            return Ok(None);
        }
        match self.xla_unpacked_byte_strides() {
            Ok(s) => Ok(Some(s)),
            Err(e) => Err(e),
        }
    }
}

impl Shape {
    /// `ShapeUtil::ByteSizeOf(shape, pointer_size)`: an array's
    /// [`ArrayShape::xla_byte_size_of`]; a buffer's array's; a tuple's
    /// top-level pointer table; 0 for a token; one pointer for an opaque.
    ///
    /// ```
    /// # use xla_layout_core::Shape;
    /// assert_eq!(Shape::parse("(f32[2], s8[4], token[])").unwrap().xla_byte_size_of(8), Ok(24));
    /// assert_eq!(Shape::parse("b(f64[10,20])").unwrap().xla_byte_size_of(8), Ok(1600));
    /// ```
    pub fn xla_byte_size_of(&self, pointer_size: u64) -> Result<u64, AddressError> {
        match self {
            Shape::Array(a) | Shape::Buffer(a) => a.xla_byte_size_of(),
            Shape::Token => Ok(0),
            Shape::Opaque => Ok(pointer_size),
            #[cfg(feature = "alloc")]
            Shape::Tuple(elems) => pointer_size
                .checked_mul(elems.len() as u64)
                .ok_or(AddressError::Overflow),
        }
    }
}
