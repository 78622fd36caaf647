//! Address math: the tiled linear index of docs/xla-layouts.md §d.1, as a small program.
//!
//! Applying the tiles of a layout to a shape is done once, on the shape
//! alone, and recorded as a list of *coordinates*: each is a logical index,
//! a padding dimension, the outer (`x / t`) or inner (`x % t`) part of a
//! tiled coordinate, or the combination (`a·|b| + b`) of two coordinates
//! under `*`. The last coordinates, major to minor, form the final tiled
//! shape `S`. Offsets run the program forward; the inverse runs it backward
//! and finds padding where a coordinate exceeds its extent. Code generation
//! (the `layout!` macro) walks the same program, so there is one algorithm.

use super::{AddressError, IndexError};
use crate::limits::{COMBINE, MAX_RANK, MAX_TILE_ENTRIES, UNBOUNDED};
use crate::{ArrayShape, ElementType, validate_array};

/// The most coordinates a program can hold: `MAX_RANK + 2·MAX_TILE_ENTRIES`.
///
/// Why (docs/xla-layouts.md §d.1's steps, counted): a tile of `m` entries,
/// `s` of them `*`, adds its padding dimensions `p`, `s` combinations and
/// an outer and an inner part for each of the `m − s` sizes, and turns the
/// `m` last dimensions of the shape into `2(m − s)`. So the coordinates
/// exceed the final dimensions by `Σ(m + s)`, and the final dimensions
/// are at most `max(rank, M) + M − 2S` (`M`, `S`: the entries and `*` of
/// all tiles; padding only brings the shape up to a tile's length).
/// Together: at most `max(rank, M) + 2M − S ≤ MAX_RANK + 2·MAX_TILE_ENTRIES`,
/// which a scalar with one tile of `MAX_TILE_ENTRIES` sizes reaches (a
/// test builds it; a search over every rank, tile count, length and number
/// of `*` finds no more).
///
/// ```
/// use xla_layout_core::{ArrayShape, MAX_COORDS, MAX_TILE_ENTRIES};
/// // The case that reaches it: a scalar with one tile of MAX_TILE_ENTRIES sizes.
/// let ones = vec!["1"; MAX_TILE_ENTRIES].join(",");
/// let s = ArrayShape::parse_validated(&format!("f32[]{{:T({ones})}}")).unwrap();
/// assert_eq!(s.tiled().unwrap().coords().len(), MAX_COORDS);
/// ```
pub const MAX_COORDS: usize = MAX_RANK + 2 * MAX_TILE_ENTRIES;

/// How one coordinate of the tiling program is computed.
///
/// ```
/// use xla_layout_core::{ArrayShape, CoordOp};
/// let t = ArrayShape::parse_validated("f32[3,5]{1,0:T(2,2)}").unwrap().tiled().unwrap();
/// let ops: Vec<CoordOp> = t.coords().iter().map(|c| c.op).collect();
/// assert_eq!(ops[..2], [CoordOp::Logical(0), CoordOp::Logical(1)]);
/// assert_eq!(ops[2], CoordOp::Outer { source: 0, tile: 2 }); // which pair of rows
/// assert_eq!(ops[4], CoordOp::Inner { source: 0, tile: 2 }); // which row of the pair
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CoordOp {
    /// The logical index of this dimension.
    Logical(usize),
    /// A size-1 dimension added in front of an oversized tile; always 0.
    Pad,
    /// `source / tile`: which tile.
    Outer {
        /// The coordinate being tiled.
        source: usize,
        /// The tile size.
        tile: u64,
    },
    /// `source % tile`: where in the tile.
    Inner {
        /// The coordinate being tiled.
        source: usize,
        /// The tile size.
        tile: u64,
    },
    /// `major · extent(minor) + minor`: a `*` merging two coordinates.
    Combine {
        /// The more-major coordinate.
        major: usize,
        /// The more-minor coordinate.
        minor: usize,
    },
}

/// One coordinate: how it is computed and its extent in the padded shape.
///
/// ```
/// # use xla_layout_core::ArrayShape;
/// let t = ArrayShape::parse_validated("f32[3,5]{1,0:T(2,2)}").unwrap().tiled().unwrap();
/// let extents: Vec<u64> = t.coords().iter().map(|c| c.extent).collect();
/// assert_eq!(extents, [3, 5, 2, 3, 2, 2]); // ⌈3/2⌉ = 2 and ⌈5/2⌉ = 3 tiles
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Coord {
    /// How it is computed.
    pub op: CoordOp,
    /// Its size as a dimension of the (padded) shape at its level.
    pub extent: u64,
}

const NO_COORD: Coord = Coord {
    op: CoordOp::Pad,
    extent: 1,
};

/// A validated array shape with its tiles applied: the final tiled shape,
/// its strides, its sizes, and the program that maps logical indices to
/// slots and back. All `const fn`.
///
/// ```
/// use xla_layout_core::ArrayShape;
///
/// // docs/xla-layouts.md §d.3 example 1: f32[3,5] tiled 2×2 (tiled_layout.md figure 1).
/// let t = ArrayShape::parse_validated("f32[3,5]{1,0:T(2,2)}").unwrap().tiled().unwrap();
/// assert_eq!(t.dims(), [2, 3, 2, 2]);
/// assert_eq!(t.offset(&[2, 3]), Ok(17));
/// assert_eq!(t.physical_slots(), 24);
/// assert_eq!(t.logical_index(9).unwrap(), None); // a padding slot
/// assert_eq!(t.logical_index(17).unwrap().unwrap().as_slice(), &[2, 3]);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TiledShape {
    rank: usize,
    dims: [u64; MAX_RANK],
    coords: [Coord; MAX_COORDS],
    coord_count: usize,
    /// Indices into `coords` of the final shape, major to minor.
    order: [u16; MAX_COORDS],
    order_len: usize,
    strides: [u64; MAX_COORDS],
    extents: [u64; MAX_COORDS],
    slots: u64,
    allocated_slots: u64,
    element_bits: u64,
    element_type: ElementType,
    /// Slots of one first-level tile, when tiles are whole runs of slots
    /// (see [`TiledShape::tile_slots`]); 0 otherwise.
    tile_size: u64,
}

/// The slots of one first-level tile, when every first-level tile is one
/// run of slots: no later tile longer than it (which would reach across
/// first-level tiles) or padding it; 0 otherwise.
const fn first_tile_size(layout: &crate::Layout) -> u64 {
    tile_size(layout, 0)
}

/// [`first_tile_size`] of the tiles of level `level` (0: the first).
const fn tile_size(layout: &crate::Layout, level: usize) -> u64 {
    if level >= layout.tile_count() {
        return 0;
    }
    let first = layout.tile(level);
    // A `*` fuses two dimensions before the tile applies and leaves the
    // tile without that entry (docs/xla-layouts.md §d.1 step 2.3): the
    // tile's dims are its other entries, its positions the last ones.
    const ROOM: usize = crate::limits::MAX_TILES * crate::limits::MAX_TILE_ENTRIES;
    let mut dims = [1u64; ROOM];
    let mut len = 0;
    let mut size: u64 = 1;
    let mut j = 0;
    while j < first.len() {
        if first[j] != COMBINE {
            // Unvalidated (`Layout::tile_run`): an entry below 1 is no run.
            if first[j] <= 0 {
                return 0;
            }
            size = match size.checked_mul(first[j] as u64) {
                Some(v) => v,
                None => return 0,
            };
            dims[len] = first[j] as u64;
            len += 1;
        }
        j += 1;
    }
    if len == 0 {
        return 0;
    }
    // One tile's dims, minor last, through the later tiles: its slots are
    // a run of `size` only when each later tile splits the dims it covers
    // exactly (no padding inside, e.g. `T(2,3)(2,2)` pads each 6-slot
    // tile to 8), with no `*` (which would fuse them with dims outside).
    let mut t = level + 1;
    while t < layout.tile_count() {
        let tile = layout.tile(t);
        if tile.len() > len || len + tile.len() > ROOM {
            return 0;
        }
        let base = len - tile.len();
        let mut i = 0;
        while i < tile.len() {
            let (d, e) = (dims[base + i], tile[i]);
            if e == COMBINE || e == 0 || d % e as u64 != 0 {
                return 0;
            }
            dims[base + i] = d / e as u64;
            dims[len + i] = e as u64;
            i += 1;
        }
        len += tile.len();
        t += 1;
    }
    size
}

impl crate::Layout {
    /// The slots of one tile of level `level` (0: the first `T`), when
    /// each such tile is one run of slots: its `n`-th tile is slots
    /// `n·size..(n+1)·size` of the tiled array (a `*` entry fuses two
    /// dimensions and adds none to the tile). `None` past the last level,
    /// or when tiles of that level are no runs: a later tile that pads it
    /// or reaches across it (`T(2,3)(2,2)` pads each 6-slot tile to 8), or
    /// has a `*`.
    ///
    /// ```
    /// use xla_layout_core::Layout;
    /// let bf16 = Layout::new(&[1, 0]).with_tiles(&[&[8, 128], &[2, 1]]);
    /// assert_eq!((bf16.tile_run(0), bf16.tile_run(1), bf16.tile_run(2)), (Some(1024), Some(2), None));
    /// let padded = Layout::new(&[1, 0]).with_tiles(&[&[2, 3], &[2, 2]]);
    /// assert_eq!((padded.tile_run(0), padded.tile_run(1)), (None, Some(4)));
    /// let fused = Layout::new(&[2, 1, 0]).with_tiles(&[&[xla_layout_core::COMBINE, 4, 8]]);
    /// assert_eq!(fused.tile_run(0), Some(32));
    /// assert_eq!(Layout::new(&[0]).with_tiles(&[&[-2]]).tile_run(0), None); // not validated
    /// ```
    pub const fn tile_run(&self, level: usize) -> Option<u64> {
        match tile_size(self, level) {
            0 => None,
            n => Some(n),
        }
    }
}

/// One value per logical dimension (it derefs to `[u64]`): a logical index
/// ([`TiledShape::logical_index`]) or strides
/// ([`ArrayShape::xla_byte_strides`]).
///
/// It prints as its values: `format!("{:?}", index)` is `[1, 2]`.
///
/// ```
/// # use xla_layout_core::ArrayShape;
/// let t = ArrayShape::parse_validated("f32[3,5]{1,0}").unwrap().tiled().unwrap();
/// assert_eq!(format!("{:?}", t.logical_index(7).unwrap().unwrap()), "[1, 2]");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PerDim {
    pub(crate) len: usize,
    pub(crate) values: [u64; MAX_RANK],
}

impl core::fmt::Debug for PerDim {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(&self.values[..self.len]).finish()
    }
}

impl PerDim {
    /// `len` zeros.
    pub(crate) const fn zeros(len: usize) -> PerDim {
        PerDim {
            len,
            values: [0; MAX_RANK],
        }
    }

    /// The values, in logical dimension order.
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let t = ArrayShape::parse_validated("f32[3,5]{1,0}").unwrap().tiled().unwrap();
    /// assert_eq!(t.logical_index(7).unwrap().unwrap().as_slice(), &[1, 2]); // 7 = 1·5 + 2
    /// ```
    pub const fn as_slice(&self) -> &[u64] {
        self.values.split_at(self.len).0
    }
}

impl core::ops::Deref for PerDim {
    type Target = [u64];

    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let t = ArrayShape::parse_validated("f32[3,5]{0,1}").unwrap().tiled().unwrap();
    /// let i = t.logical_index(4).unwrap().unwrap();
    /// assert_eq!((i[0], i[1], &i[..]), (1, 1, &[1, 1][..]));
    /// ```
    fn deref(&self) -> &[u64] {
        self.as_slice()
    }
}

impl AsRef<[u64]> for PerDim {
    fn as_ref(&self) -> &[u64] {
        self.as_slice()
    }
}

/// Adds one coordinate; the capacity bound `MAX_COORDS` holds by
/// construction (see its definition).
const fn push(t: &mut TiledShape, op: CoordOp, extent: u64) -> usize {
    t.coords[t.coord_count] = Coord { op, extent };
    t.coord_count += 1;
    t.coord_count - 1
}

/// `⌈a / b⌉` for `b > 0`, without the overflow of `(a + b - 1) / b`.
pub(crate) const fn ceil_div(a: u64, b: u64) -> u64 {
    a / b + !a.is_multiple_of(b) as u64
}

/// `⌈a / b⌉ · b`, or `None` on overflow.
pub(crate) const fn round_up(a: u64, b: u64) -> Option<u64> {
    ceil_div(a, b).checked_mul(b)
}

impl TiledShape {
    /// Applies every tile of `shape`'s layout (docs/xla-layouts.md §d.1). The shape must be
    /// valid, have no unbounded dimension, and every size must fit in 64
    /// bits. Bounded dimensions use their bound.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, TiledShape};
    /// const S: ArrayShape = ArrayShape::new(xla_layout_core::ElementType::F32, &[10, 20]);
    /// const T: TiledShape = match TiledShape::new(&S) { Ok(t) => t, Err(_) => panic!() };
    /// const OFFSET: u64 = match T.offset(&[3, 5]) { Ok(o) => o, Err(_) => panic!() };
    /// assert_eq!(OFFSET, 65); // docs/xla-layouts.md §d.3 example 10
    /// ```
    pub const fn new(shape: &ArrayShape) -> Result<TiledShape, AddressError> {
        Self::with_levels(shape, usize::MAX)
    }

    /// Like [`TiledShape::new`] but applying only the first `levels` tiles,
    /// to see the shape after each tiling level.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, TiledShape};
    /// let s = ArrayShape::parse_validated("bf16[2048]{0:T(1024)(128)(2,1)}").unwrap();
    /// let dims = |k| TiledShape::with_levels(&s, k).unwrap().dims().to_vec();
    /// assert_eq!(dims(0), [2048]);
    /// assert_eq!(dims(1), [2, 1024]);
    /// assert_eq!(dims(2), [2, 8, 128]);
    /// assert_eq!(dims(3), [2, 4, 128, 2, 1]); // docs/xla-layouts.md §d.3 example 6
    /// ```
    pub const fn with_levels(
        shape: &ArrayShape,
        levels: usize,
    ) -> Result<TiledShape, AddressError> {
        // Built where it is returned: a second 4 KiB copy in this frame
        // would cost a firmware stack what it cannot spare.
        let mut out = Ok(TiledShape::BLANK);
        if let Ok(t) = &mut out
            && let Err(e) = t.build(shape, levels)
        {
            out = Err(e);
        }
        out
    }

    /// No coordinates yet: what [`TiledShape::build`] starts from.
    const BLANK: TiledShape = TiledShape {
        rank: 0,
        dims: [0; MAX_RANK],
        coords: [NO_COORD; MAX_COORDS],
        coord_count: 0,
        order: [0; MAX_COORDS],
        order_len: 0,
        strides: [0; MAX_COORDS],
        extents: [0; MAX_COORDS],
        slots: 0,
        allocated_slots: 0,
        element_bits: 0,
        element_type: ElementType::INVALID,
        tile_size: 0,
    };

    /// [`TiledShape::with_levels`] into `self`, a [`TiledShape::BLANK`].
    const fn build(&mut self, shape: &ArrayShape, levels: usize) -> Result<(), AddressError> {
        if let Err(e) = validate_array(shape) {
            return Err(AddressError::Invalid(e.kind()));
        }
        let layout = match shape.layout() {
            Some(l) => l,
            None => unreachable!(), // validate_array requires it
        };
        let rank = shape.rank();
        let t = self;
        t.rank = rank;
        t.element_type = shape.element_type();
        t.tile_size = first_tile_size(layout);
        let mut d = 0;
        while d < rank {
            let size = shape.dims()[d];
            if size == UNBOUNDED {
                return Err(AddressError::UnboundedDimension { dim: d });
            }
            t.dims[d] = size as u64; // validated: size >= 0
            d += 1;
        }
        // Step 1: physical order, major to minor.
        let m2m = layout.minor_to_major();
        let mut p = 0;
        while p < rank {
            let logical = m2m[rank - 1 - p] as usize;
            let extent = t.dims[logical];
            t.order[p] = push(t, CoordOp::Logical(logical), extent) as u16;
            p += 1;
        }
        t.order_len = rank;
        // Step 2: each tile in turn.
        let mut level = 0;
        while level < layout.tile_count() && level < levels {
            if let Err(e) = t.apply_tile(layout.tile(level)) {
                return Err(e);
            }
            level += 1;
        }
        // Step 3: row-major strides over the final shape, then `L`.
        if let Err(e) =
            t.compute_strides_and_slots(layout.tail_padding_alignment_in_elements() as u64)
        {
            return Err(e);
        }
        t.element_bits = match layout.element_bits(shape.element_type()) {
            Some(b) => b,
            None => unreachable!(), // validated: an array type
        };
        if t.bytes_for(t.allocated_slots).is_none() {
            return Err(AddressError::Overflow);
        }
        Ok(())
    }

    /// Step 2 of docs/xla-layouts.md §d.1 for one tile.
    const fn apply_tile(&mut self, tile: &[i64]) -> Result<(), AddressError> {
        let m = tile.len();
        // 2.1: an oversized tile pads the shape with leading size-1 dims.
        if m > self.order_len {
            let pad = m - self.order_len;
            let mut i = self.order_len;
            while i > 0 {
                i -= 1;
                self.order[i + pad] = self.order[i];
            }
            let mut j = 0;
            while j < pad {
                self.order[j] = push(self, CoordOp::Pad, 1) as u16;
                j += 1;
            }
            self.order_len += pad;
        }
        // 2.2: the tile lines up with the most-minor suffix.
        let s = self.order_len - m;
        // 2.3: `*` merges a suffix coordinate into the next more-minor one.
        let mut tiled = [(0usize, 0u64); MAX_TILE_ENTRIES];
        let mut n = 0;
        let mut pending: Option<usize> = None;
        let mut j = 0;
        while j < m {
            let mut c = self.order[s + j] as usize;
            if let Some(major) = pending {
                let (a, b) = (self.coords[major].extent, self.coords[c].extent);
                let extent = match a.checked_mul(b) {
                    Some(e) => e,
                    // With no elements the sizes are 0 whatever the extents.
                    None if self.is_empty() => u64::MAX,
                    None => return Err(AddressError::Overflow),
                };
                c = push(self, CoordOp::Combine { major, minor: c }, extent);
                pending = None;
            }
            if tile[j] == COMBINE {
                pending = Some(c); // validated: never in the last position
            } else {
                tiled[n] = (c, tile[j] as u64); // validated: > 0
                n += 1;
            }
            j += 1;
        }
        // 2.4: the suffix becomes its outer parts, then its inner parts.
        let mut k = 0;
        while k < n {
            let (source, size) = tiled[k];
            let extent = ceil_div(self.coords[source].extent, size);
            self.order[s + k] = push(self, CoordOp::Outer { source, tile: size }, extent) as u16;
            k += 1;
        }
        k = 0;
        while k < n {
            let (source, size) = tiled[k];
            self.order[s + n + k] = push(self, CoordOp::Inner { source, tile: size }, size) as u16;
            k += 1;
        }
        self.order_len = s + 2 * n;
        Ok(())
    }

    const fn compute_strides_and_slots(&mut self, alignment: u64) -> Result<(), AddressError> {
        let mut slots: u64 = 1;
        let mut i = self.order_len;
        while i > 0 {
            i -= 1;
            self.strides[i] = slots;
            self.extents[i] = self.coords[self.order[i] as usize].extent;
            slots = match slots.checked_mul(self.extents[i]) {
                Some(v) => v,
                // No index is valid, so strides are never used: saturate.
                None if self.is_empty() => u64::MAX,
                None => return Err(AddressError::Overflow),
            };
        }
        // A zero-size dimension makes a zero extent, so no slot at all.
        self.slots = if self.is_empty() { 0 } else { slots };
        self.allocated_slots = match round_up(slots, alignment) {
            Some(v) => v,
            None => return Err(AddressError::Overflow),
        };
        Ok(())
    }

    /// `⌈slots · bits / 8⌉`, or `None` if it does not fit in 64 bits.
    const fn bytes_for(&self, slots: u64) -> Option<u64> {
        let bits = slots as u128 * self.element_bits as u128;
        let bytes = bits.div_ceil(8);
        if bytes > u64::MAX as u128 {
            None
        } else {
            Some(bytes as u64)
        }
    }

    /// Whether some logical dimension has size 0 (no elements at all).
    const fn is_empty(&self) -> bool {
        let mut d = 0;
        while d < self.rank {
            if self.dims[d] == 0 {
                return true;
            }
            d += 1;
        }
        false
    }

    /// The logical rank.
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let t = ArrayShape::parse_validated("f32[3,5]{1,0:T(2,2)}").unwrap().tiled().unwrap();
    /// assert_eq!((t.rank(), t.dims().len()), (2, 4)); // tiling adds dimensions, not rank
    /// ```
    pub const fn rank(&self) -> usize {
        self.rank
    }

    /// The logical dimension sizes (bounds for bounded dimensions).
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let t = ArrayShape::parse_validated("f32[<=3,5]{1,0:T(2,2)}").unwrap().tiled().unwrap();
    /// assert_eq!(t.logical_dims(), [3, 5]);
    /// ```
    pub const fn logical_dims(&self) -> &[u64] {
        self.dims.split_at(self.rank).0
    }

    /// The final tiled shape `S`, major to minor.
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// // Dimension 0 is minor: the 5 columns are major, tiled into 3 pairs.
    /// let t = ArrayShape::parse_validated("f32[3,5]{0,1:T(2,2)}").unwrap().tiled().unwrap();
    /// assert_eq!(t.dims(), [3, 2, 2, 2]);
    /// ```
    pub const fn dims(&self) -> &[u64] {
        self.extents.split_at(self.order_len).0
    }

    /// The row-major strides of the final tiled shape, in slots.
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let t = ArrayShape::parse_validated("f32[3,5]{1,0:T(2,2)}").unwrap().tiled().unwrap();
    /// assert_eq!(t.dims(), [2, 3, 2, 2]);
    /// assert_eq!(t.strides(), [12, 4, 2, 1]);
    /// ```
    pub const fn strides(&self) -> &[u64] {
        self.strides.split_at(self.order_len).0
    }

    /// The coordinate program, in evaluation order.
    ///
    /// ```
    /// # use xla_layout_core::{ArrayShape, CoordOp};
    /// let t = ArrayShape::parse_validated("f32[3,5]{1,0:T(2,2)}").unwrap().tiled().unwrap();
    /// assert_eq!(t.coords().len(), 6); // 2 logical, 2 outer, 2 inner
    /// assert_eq!(t.coords()[5].op, CoordOp::Inner { source: 1, tile: 2 });
    /// ```
    pub const fn coords(&self) -> &[Coord] {
        self.coords.split_at(self.coord_count).0
    }

    /// Which coordinates form the final shape, major to minor (indices
    /// into [`TiledShape::coords`]).
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let t = ArrayShape::parse_validated("f32[3,5]{1,0:T(2,2)}").unwrap().tiled().unwrap();
    /// let last: Vec<usize> = t.final_coords().collect();
    /// assert_eq!(last, [2, 3, 4, 5]); // the logical coordinates 0 and 1 were tiled away
    /// ```
    pub fn final_coords(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        self.order[..self.order_len].iter().map(|&c| c as usize)
    }

    /// The final coordinates, major to minor, as indices into `coords`.
    pub(crate) const fn final_order(&self) -> &[u16] {
        self.order.split_at(self.order_len).0
    }

    /// `Π S`: slots before tail padding.
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let t = ArrayShape::parse_validated("f32[3,5]{1,0:T(2,2)L(32)}").unwrap().tiled().unwrap();
    /// assert_eq!((t.tiled_slots(), t.physical_slots()), (24, 32)); // 2·3 tiles of 4
    /// ```
    pub const fn tiled_slots(&self) -> u64 {
        self.slots
    }

    /// Slots allocated: `Π S` rounded up to a multiple of `L`. Includes
    /// every padding slot.
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let t = |s| ArrayShape::parse_validated(s).unwrap().tiled().unwrap().physical_slots();
    /// assert_eq!(t("f32[3,5]{1,0:T(2,2)}"), 24);
    /// assert_eq!(t("f32[3,5]{1,0:T(2,2)L(32)}"), 32); // 24 rounded up to 32
    /// ```
    pub const fn physical_slots(&self) -> u64 {
        self.allocated_slots
    }

    /// Storage bits per slot: `E` if set, else 8 × the byte width.
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let bits = |s| ArrayShape::parse_validated(s).unwrap().tiled().unwrap().element_bits();
    /// assert_eq!(bits("f32[4]{0}"), 32);
    /// assert_eq!(bits("s4[4]{0:E(4)}"), 4);
    /// ```
    pub const fn element_bits(&self) -> u64 {
        self.element_bits
    }

    /// The element type.
    ///
    /// ```
    /// # use xla_layout_core::{ArrayShape, ElementType};
    /// let t = ArrayShape::parse_validated("bf16[8]{0}").unwrap().tiled().unwrap();
    /// assert_eq!(t.element_type(), ElementType::BF16);
    /// ```
    pub const fn element_type(&self) -> ElementType {
        self.element_type
    }

    /// The slots of first-level tile `k` (the `k`-th run of `S` slots, `S`
    /// the first tile's size); `None` without tiles, past the last tile,
    /// or when tiles are not runs of slots (a later tile longer than the
    /// first, one that pads it, or one with `*`). The tiles are the tiled slots
    /// ([`TiledShape::tiled_slots`]): `L(n)`'s tail padding after them is
    /// no tile.
    ///
    /// ```
    /// use xla_layout_core::ArrayShape;
    /// let t = ArrayShape::parse_validated("f32[3,5]{1,0:T(2,2)}").unwrap().tiled().unwrap();
    /// assert_eq!(t.tile_slots(1), Some(4..8));
    /// assert_eq!(t.tile_slots(6), None); // 24 slots: tiles 0..=5
    /// let l = ArrayShape::parse_validated("f32[3,5]{1,0:T(2,2)L(32)}").unwrap().tiled().unwrap();
    /// assert_eq!((l.tile_slots(5), l.tile_slots(6)), (Some(20..24), None)); // slots 24..32: tail
    /// ```
    pub const fn tile_slots(&self, k: u64) -> Option<core::ops::Range<u64>> {
        if self.tile_size == 0 {
            return None;
        }
        let start = match k.checked_mul(self.tile_size) {
            Some(s) if s < self.slots => s,
            _ => return None,
        };
        let end = match start.checked_add(self.tile_size) {
            Some(e) if e < self.slots => e,
            _ => self.slots,
        };
        Some(start..end)
    }

    /// The exact size in bytes: every tile level, `L` and `E` counted
    /// (`⌈slots · bits / 8⌉`).
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let t = ArrayShape::parse_validated("f32[200001,128]{1,0:T(8)L(1024)}").unwrap().tiled().unwrap();
    /// assert_eq!(t.physical_slots(), 25_601_024); // docs/xla-layouts.md §d.3 example 9
    /// assert_eq!(t.exact_bytes(), 102_404_096);
    /// ```
    pub const fn exact_bytes(&self) -> u64 {
        match self.bytes_for(self.allocated_slots) {
            Some(b) => b,
            None => unreachable!(), // checked in `with_levels`
        }
    }

    /// The bytes the elements themselves need at their storage width,
    /// `⌈elements · element_bits / 8⌉`: [`TiledShape::exact_bytes`] less
    /// the padding.
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let t = ArrayShape::parse_validated("f32[3,5]{1,0:T(2,2)}").unwrap().tiled().unwrap();
    /// assert_eq!((t.data_bytes(), t.exact_bytes()), (60, 96)); // 9 of 24 slots are padding
    /// ```
    pub const fn data_bytes(&self) -> u64 {
        // At most the exact size: every element has a slot.
        (self.element_count() as u128 * self.element_bits as u128).div_ceil(8) as u64
    }

    /// The number of logical elements (`Π dims`).
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let t = ArrayShape::parse_validated("f32[3,5]{1,0:T(2,2)}").unwrap().tiled().unwrap();
    /// assert_eq!((t.element_count(), t.physical_slots()), (15, 24)); // padding has no elements
    /// ```
    pub const fn element_count(&self) -> u64 {
        let mut n: u64 = 1;
        let mut d = 0;
        while d < self.rank {
            // Fits: validation bounds the product by i64::MAX.
            n *= self.dims[d];
            d += 1;
        }
        n
    }

    /// Whether `index` is a valid logical index.
    ///
    /// ```
    /// # use xla_layout_core::{ArrayShape, IndexError};
    /// let t = ArrayShape::parse_validated("f32[3,5]{1,0}").unwrap().tiled().unwrap();
    /// assert_eq!(t.check_index(&[2, 4]), Ok(()));
    /// let past = IndexError::OutOfBounds { dim: 1, index: 5, size: 5 };
    /// assert_eq!(t.check_index(&[2, 5]), Err(past));
    /// assert_eq!(t.check_index(&[2]), Err(IndexError::WrongRank { expected: 2, got: 1 }));
    /// ```
    pub const fn check_index(&self, index: &[u64]) -> Result<(), IndexError> {
        if index.len() != self.rank {
            return Err(IndexError::WrongRank {
                expected: self.rank,
                got: index.len(),
            });
        }
        let mut d = 0;
        while d < self.rank {
            if index[d] >= self.dims[d] {
                return Err(IndexError::OutOfBounds {
                    dim: d,
                    index: index[d],
                    size: self.dims[d],
                });
            }
            d += 1;
        }
        Ok(())
    }

    /// The slot of a logical index (docs/xla-layouts.md §d.1): its offset in elements
    /// from the start of the buffer.
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// // docs/xla-layouts.md §d.3 example 4: bf16[8,8]{1,0:T(2,4)(2,1,1,1)}; the docs compute 51.
    /// let t = ArrayShape::parse_validated("bf16[8,8]{1,0:T(2,4)(2,1,1,1)}").unwrap().tiled().unwrap();
    /// assert_eq!(t.offset(&[6, 5]), Ok(51));
    /// ```
    pub const fn offset(&self, index: &[u64]) -> Result<u64, IndexError> {
        match self.check_index(index) {
            Ok(()) => Ok(self.offset_unchecked(index)),
            Err(e) => Err(e),
        }
    }

    /// [`TiledShape::offset`] without the bounds check. For an index out of
    /// bounds the result is meaningless (but computing it is safe).
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let t = ArrayShape::parse_validated("f32[3,5]{1,0:T(2,2)}").unwrap().tiled().unwrap();
    /// assert_eq!(t.offset_unchecked(&[2, 3]), 17); // as `offset`
    /// let _ = t.offset_unchecked(&[9, 9]); // out of bounds: meaningless, but no panic
    /// ```
    ///
    /// # Panics
    /// If `index` has fewer entries than the rank.
    pub const fn offset_unchecked(&self, index: &[u64]) -> u64 {
        let mut values = [0u64; MAX_COORDS];
        let mut i = 0;
        while i < self.coord_count {
            values[i] = match self.coords[i].op {
                CoordOp::Logical(d) => index[d],
                CoordOp::Pad => 0,
                CoordOp::Outer { source, tile } => values[source] / tile,
                CoordOp::Inner { source, tile } => values[source] % tile,
                CoordOp::Combine { major, minor } => values[major]
                    .wrapping_mul(self.coords[minor].extent)
                    .wrapping_add(values[minor]),
            };
            i += 1;
        }
        let mut offset: u64 = 0;
        let mut k = 0;
        while k < self.order_len {
            offset =
                offset.wrapping_add(values[self.order[k] as usize].wrapping_mul(self.strides[k]));
            k += 1;
        }
        offset
    }

    /// The logical index stored at slot `offset`, or `None` if the slot is
    /// padding (tile padding or `L` tail padding). The inverse of
    /// [`TiledShape::offset`] (XLA's `DelinearizeIndexForNestedTiling`).
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let t = ArrayShape::parse_validated("f32[3,5]{1,0:T(2,2)}").unwrap().tiled().unwrap();
    /// let padding: Vec<u64> = (0..24).filter(|&o| t.logical_index(o).unwrap().is_none()).collect();
    /// assert_eq!(padding, [9, 11, 14, 15, 18, 19, 21, 22, 23]); // docs/xla-layouts.md §d.3 example 1
    /// ```
    pub const fn logical_index(&self, offset: u64) -> Result<Option<PerDim>, IndexError> {
        if offset >= self.allocated_slots {
            return Err(IndexError::OffsetOutOfRange {
                offset,
                slots: self.allocated_slots,
            });
        }
        let mut out = PerDim {
            len: self.rank,
            values: [0; MAX_RANK],
        };
        if offset >= self.slots {
            return Ok(None); // tail padding
        }
        // Decode row-major over S (no extent is 0: then slots would be 0).
        let mut values = [0u64; MAX_COORDS];
        let mut rest = offset;
        let mut k = self.order_len;
        while k > 0 {
            k -= 1;
            let c = self.order[k] as usize;
            values[c] = rest % self.coords[c].extent;
            rest /= self.coords[c].extent;
        }
        // Run the program backwards; every coordinate is consumed by later
        // ones only, so its value is complete when we reach it.
        let mut i = self.coord_count;
        while i > 0 {
            i -= 1;
            let v = values[i];
            if v >= self.coords[i].extent {
                return Ok(None); // beyond the real extent: padding
            }
            match self.coords[i].op {
                CoordOp::Logical(d) => out.values[d] = v,
                CoordOp::Pad => {}
                CoordOp::Outer { source, tile } => values[source] += v * tile,
                CoordOp::Inner { source, .. } => values[source] += v,
                CoordOp::Combine { major, minor } => {
                    let e = self.coords[minor].extent;
                    values[major] = v / e;
                    values[minor] = v % e;
                }
            }
        }
        Ok(Some(out))
    }

    /// The bit offset of a logical index's element from the start of the
    /// buffer: `slot · element_bits`. Packed elements (`E(n)` with n < 8)
    /// fill each byte from its least significant bit (docs/xla-layouts.md §b).
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let t = ArrayShape::parse_validated("s4[4]{0:E(4)}").unwrap().tiled().unwrap();
    /// assert_eq!(t.bit_offset(&[3]), Ok(12)); // byte 1, bits 4..8
    /// ```
    ///
    /// A slot's byte offset always fits in 64 bits, its bit offset not
    /// always (`u8[2305843009213693953]{0}` at 2⁶¹, or a huge `E(n)`):
    /// then the result is [`IndexError::BitOffsetOverflow`], never a wrapped
    /// value.
    ///
    /// ```
    /// # use xla_layout_core::{ArrayShape, IndexError};
    /// let t = ArrayShape::parse_validated("u8[9]{0:E(9223372036854775807)}").unwrap().tiled().unwrap();
    /// assert_eq!(t.bit_offset(&[1]), Ok(9223372036854775807));
    /// assert!(matches!(t.bit_offset(&[8]), Err(IndexError::BitOffsetOverflow { slot: 8, .. })));
    /// ```
    pub const fn bit_offset(&self, index: &[u64]) -> Result<u64, IndexError> {
        match self.offset(index) {
            Ok(slot) => match slot.checked_mul(self.element_bits) {
                Some(bit) => Ok(bit),
                None => Err(IndexError::BitOffsetOverflow {
                    slot,
                    element_bits: self.element_bits,
                }),
            },
            Err(e) => Err(e),
        }
    }

    /// The storage size in bits (`physical_slots · element_bits`), or
    /// `None` when it does not fit in 64 bits; when it does, every bit
    /// offset does.
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let t = |s| ArrayShape::parse_validated(s).unwrap().tiled().unwrap();
    /// assert_eq!(t("s4[3]{0:E(4)}").total_bits(), Some(12));
    /// assert_eq!(t("u8[2305843009213693953]{0}").total_bits(), None);
    /// ```
    pub const fn total_bits(&self) -> Option<u64> {
        self.allocated_slots.checked_mul(self.element_bits)
    }
}

impl core::fmt::Debug for TiledShape {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TiledShape")
            .field("logical_dims", &self.logical_dims())
            .field("dims", &self.dims())
            .field("strides", &self.strides())
            .field("physical_slots", &self.allocated_slots)
            .field("element_bits", &self.element_bits)
            .finish()
    }
}

impl ArrayShape {
    /// Applies this shape's tiles: see [`TiledShape`].
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let t = "bf16[2,8,128]{2,1,0:T(8,128)(2,1)}".parse::<ArrayShape>().unwrap().tiled().unwrap();
    /// assert_eq!(t.offset(&[0, 2, 0]), Ok(256)); // docs/xla-layouts.md §d.3 example 7
    /// ```
    pub const fn tiled(&self) -> Result<TiledShape, AddressError> {
        TiledShape::new(self)
    }
}
