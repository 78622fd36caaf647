//! The layout model (docs/xla-layouts.md §0, §c): every field of XLA's `Layout`.

use crate::limits::{
    COMBINE, Capacity, CapacityError, MAX_PHYSICAL_SHAPE_TEXT, MAX_RANK, MAX_SPLIT_CONFIGS,
    MAX_SPLIT_INDICES, MAX_TILE_ENTRIES, MAX_TILES,
};
use crate::{ElementType, InlineStr};

/// The canonical text of a `P(...)` physical shape, as a layout keeps it.
///
/// ```
/// use core::fmt::Write;
/// use xla_layout_core::{MAX_PHYSICAL_SHAPE_TEXT, PhysicalShapeText};
/// let mut p = PhysicalShapeText::new();
/// write!(p, "f32[4]{{0}}").unwrap();
/// assert_eq!(p.as_str(), "f32[4]{0}");
/// // A fixed capacity: longer text does not fit.
/// assert!(write!(p, "{}", "x".repeat(MAX_PHYSICAL_SHAPE_TEXT)).is_err());
/// ```
pub type PhysicalShapeText = InlineStr<MAX_PHYSICAL_SHAPE_TEXT>;

/// How an array is laid out in memory: XLA's `Layout`, every field.
///
/// A `Layout` is a plain `Copy` value with fixed capacities (see
/// [`crate::MAX_RANK`] and friends), so it can be built in `const` items:
///
/// ```
/// use xla_layout_core::Layout;
///
/// const TPU_BF16: Layout = Layout::new(&[1, 0]).with_tiles(&[&[8, 128], &[2, 1]]);
/// assert_eq!(TPU_BF16.to_string(), "{1,0:T(8,128)(2,1)}");
/// assert_eq!(TPU_BF16.tile(1), &[2, 1]);
/// ```
///
/// Values are stored as XLA stores them, unvalidated: `minor_to_major` may
/// hold anything until [`crate::validate`] runs; a tile entry of
/// [`crate::COMBINE`] is the `*` entry; `memory_space` is an `i8` as in XLA's
/// C++ class (so `S(256)` is 0).
#[derive(Clone, Copy)]
pub struct Layout {
    minor_to_major: [i64; MAX_RANK],
    minor_to_major_len: u8,
    tile_entries: [i64; MAX_TILE_ENTRIES],
    /// `tile_ends[i]` is one past the last entry of tile `i`.
    tile_ends: [u8; MAX_TILES],
    tile_count: u8,
    tail_padding_alignment_in_elements: i64,
    index_primitive_type: ElementType,
    pointer_primitive_type: ElementType,
    element_size_in_bits: i64,
    memory_space: i8,
    split_dimensions: [i64; MAX_SPLIT_CONFIGS],
    split_ends: [u8; MAX_SPLIT_CONFIGS],
    split_count: u8,
    split_indices: [i64; MAX_SPLIT_INDICES],
    physical_shape: Option<PhysicalShapeText>,
    dynamic_shape_metadata_prefix_bytes: i64,
}

/// One split config (`SC(d:i,j,…)`): physical dimension `dimension` (0 is
/// the most major) is split before each of `indices`.
///
/// ```
/// use xla_layout_core::{Layout, SplitConfig};
/// let l: Layout = "{1,0:SC(0:64,128)}".parse().unwrap();
/// assert_eq!(l.split_config(0), SplitConfig { dimension: 0, indices: &[64, 128] });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SplitConfig<'a> {
    /// The physical dimension, counted from the most major.
    pub dimension: i64,
    /// Where the pieces start (excluding 0).
    pub indices: &'a [i64],
}

/// A layout's scalar attributes as the parser collects them before writing
/// them into the layout in one go.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ScalarAttributes {
    pub(crate) tail_padding_alignment: i64,
    pub(crate) index_type: ElementType,
    pub(crate) pointer_type: ElementType,
    pub(crate) element_size_in_bits: i64,
    pub(crate) memory_space: i8,
    pub(crate) metadata_prefix_bytes: i64,
}

impl ScalarAttributes {
    /// Every attribute at its default.
    pub(crate) const DEFAULT: ScalarAttributes = ScalarAttributes {
        tail_padding_alignment: 1,
        index_type: ElementType::INVALID,
        pointer_type: ElementType::INVALID,
        element_size_in_bits: 0,
        memory_space: 0,
        metadata_prefix_bytes: 0,
    };
}

/// A layout's meaningful contents: every list cut at its length. Entries
/// past a length may hold stale values (the parser reuses layouts in
/// place), so equality and hashing look at this only.
type LayoutKey<'a> = (
    &'a [i64],
    &'a [u8],
    &'a [i64],
    (i64, ElementType, ElementType, i64, i8, i64),
    &'a [i64],
    &'a [u8],
    &'a [i64],
    &'a Option<PhysicalShapeText>,
);

impl Layout {
    fn key(&self) -> LayoutKey<'_> {
        // Every field by name, no `..`: a field added to `Layout` and not
        // named here is a compile error; named but left out of the key, an
        // unused-variable warning (an error under clippy's -D warnings).
        let Layout {
            minor_to_major,
            minor_to_major_len,
            tile_entries,
            tile_ends,
            tile_count,
            tail_padding_alignment_in_elements,
            index_primitive_type,
            pointer_primitive_type,
            element_size_in_bits,
            memory_space,
            split_dimensions,
            split_ends,
            split_count,
            split_indices,
            physical_shape,
            dynamic_shape_metadata_prefix_bytes,
        } = self;
        let tiles = *tile_count as usize;
        let splits = *split_count as usize;
        let entries = if tiles == 0 {
            0
        } else {
            tile_ends[tiles - 1] as usize
        };
        let indices = if splits == 0 {
            0
        } else {
            split_ends[splits - 1] as usize
        };
        (
            &minor_to_major[..*minor_to_major_len as usize],
            &tile_ends[..tiles],
            &tile_entries[..entries],
            (
                *tail_padding_alignment_in_elements,
                *index_primitive_type,
                *pointer_primitive_type,
                *element_size_in_bits,
                *memory_space,
                *dynamic_shape_metadata_prefix_bytes,
            ),
            &split_dimensions[..splits],
            &split_ends[..splits],
            &split_indices[..indices],
            physical_shape,
        )
    }

    /// Makes this [`Layout::EMPTY`] without rewriting its lists (parser
    /// use: a layout is a kilobyte, most of it unused capacity).
    pub(crate) fn clear(&mut self) {
        self.minor_to_major_len = 0;
        self.tile_count = 0;
        self.split_count = 0;
        self.physical_shape = None;
        self.set_scalar_attributes(&ScalarAttributes::DEFAULT);
        // An attribute added to the model but not reset above would leak
        // from one parse into the next: the tests (debug builds) say so.
        debug_assert!(
            *self == Layout::EMPTY,
            "Layout::clear left an attribute set"
        );
    }
}

impl PartialEq for Layout {
    fn eq(&self, other: &Layout) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Layout {}

impl core::hash::Hash for Layout {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.key().hash(state);
    }
}

impl Layout {
    /// The empty layout `{}`: no dimensions, every attribute at its default.
    ///
    /// ```
    /// # use xla_layout_core::Layout;
    /// assert_eq!(Layout::EMPTY.to_string(), "{}");
    /// assert_eq!(Layout::EMPTY, Layout::default_for_rank(0));
    /// ```
    pub const EMPTY: Layout = Layout {
        minor_to_major: [0; MAX_RANK],
        minor_to_major_len: 0,
        tile_entries: [0; MAX_TILE_ENTRIES],
        tile_ends: [0; MAX_TILES],
        tile_count: 0,
        tail_padding_alignment_in_elements: 1,
        index_primitive_type: ElementType::INVALID,
        pointer_primitive_type: ElementType::INVALID,
        element_size_in_bits: 0,
        memory_space: 0,
        split_dimensions: [0; MAX_SPLIT_CONFIGS],
        split_ends: [0; MAX_SPLIT_CONFIGS],
        split_count: 0,
        split_indices: [0; MAX_SPLIT_INDICES],
        physical_shape: None,
        dynamic_shape_metadata_prefix_bytes: 0,
    };

    /// A layout with this minor-to-major order and default attributes.
    ///
    /// # Panics
    /// If `minor_to_major` has more than [`crate::MAX_RANK`] entries (a
    /// compile error in `const` context); see [`Layout::try_new`].
    ///
    /// ```
    /// # use xla_layout_core::Layout;
    /// assert_eq!(Layout::new(&[0, 1]).minor_to_major(), &[0, 1]);
    /// ```
    pub const fn new(minor_to_major: &[i64]) -> Layout {
        match Self::try_new(minor_to_major) {
            Ok(l) => l,
            Err(_) => panic!("minor_to_major has more entries than xla_layout_core::MAX_RANK"),
        }
    }

    /// [`Layout::new`] without the panic.
    ///
    /// ```
    /// # use xla_layout_core::Layout;
    /// assert!(Layout::try_new(&[0; 33]).is_err());
    /// ```
    pub const fn try_new(minor_to_major: &[i64]) -> Result<Layout, CapacityError> {
        let mut l = Layout::EMPTY;
        let mut i = 0;
        while i < minor_to_major.len() {
            if let Err(e) = l.push_minor_to_major(minor_to_major[i]) {
                return Err(e);
            }
            i += 1;
        }
        Ok(l)
    }

    /// XLA's default layout for `rank` dimensions (docs/xla-layouts.md §h): `{R-1,…,1,0}`,
    /// row-major, no attributes.
    ///
    /// # Panics
    /// If `rank` exceeds [`crate::MAX_RANK`].
    ///
    /// ```
    /// # use xla_layout_core::Layout;
    /// assert_eq!(Layout::default_for_rank(3).to_string(), "{2,1,0}");
    /// assert_eq!(Layout::default_for_rank(0).to_string(), "{}");
    /// ```
    pub const fn default_for_rank(rank: usize) -> Layout {
        assert!(rank <= MAX_RANK, "rank exceeds xla_layout_core::MAX_RANK");
        let mut l = Layout::EMPTY;
        l.push_descending_minor_to_major(rank);
        l
    }

    /// Appends `rank-1, …, 1, 0` to an empty minor-to-major list; `rank` is
    /// at most [`MAX_RANK`].
    pub(crate) const fn push_descending_minor_to_major(&mut self, rank: usize) {
        while (self.minor_to_major_len as usize) < rank {
            self.minor_to_major[self.minor_to_major_len as usize] =
                (rank - 1 - self.minor_to_major_len as usize) as i64;
            self.minor_to_major_len += 1;
        }
    }

    /// `MakeAscendingLayout`: `{0,1,…,R-1}`, column-major.
    ///
    /// # Panics
    /// If `rank` exceeds [`crate::MAX_RANK`].
    ///
    /// ```
    /// # use xla_layout_core::Layout;
    /// assert_eq!(Layout::ascending(3).to_string(), "{0,1,2}");
    /// ```
    pub const fn ascending(rank: usize) -> Layout {
        assert!(rank <= MAX_RANK, "rank exceeds xla_layout_core::MAX_RANK");
        let mut l = Layout::EMPTY;
        while (l.minor_to_major_len as usize) < rank {
            l.minor_to_major[l.minor_to_major_len as usize] = l.minor_to_major_len as i64;
            l.minor_to_major_len += 1;
        }
        l
    }

    /// Writes the scalar attributes (`L`, `#`, `*`, `E`, `S`, `M`) in place
    /// (parser use: a `Layout` is too big to rebuild through the `with_*`
    /// chain on every shape).
    pub(crate) const fn set_scalar_attributes(&mut self, a: &ScalarAttributes) {
        self.tail_padding_alignment_in_elements = a.tail_padding_alignment;
        self.index_primitive_type = a.index_type;
        self.pointer_primitive_type = a.pointer_type;
        self.element_size_in_bits = a.element_size_in_bits;
        self.memory_space = a.memory_space;
        self.dynamic_shape_metadata_prefix_bytes = a.metadata_prefix_bytes;
    }

    /// Sets the `P(...)` text in place (parser use).
    pub(crate) const fn set_physical_shape(&mut self, text: PhysicalShapeText) {
        self.physical_shape = Some(text);
    }

    /// Appends one minor-to-major entry.
    pub(crate) const fn push_minor_to_major(&mut self, v: i64) -> Result<(), CapacityError> {
        let n = self.minor_to_major_len as usize;
        if n >= MAX_RANK {
            return Err(CapacityError {
                capacity: Capacity::Rank,
            });
        }
        self.minor_to_major[n] = v;
        self.minor_to_major_len += 1;
        Ok(())
    }

    /// Starts a new, empty tile.
    pub(crate) const fn push_tile(&mut self) -> Result<(), CapacityError> {
        let n = self.tile_count as usize;
        if n >= MAX_TILES {
            return Err(CapacityError {
                capacity: Capacity::Tiles,
            });
        }
        self.tile_ends[n] = if n == 0 { 0 } else { self.tile_ends[n - 1] };
        self.tile_count += 1;
        Ok(())
    }

    /// Appends an entry to the last tile.
    pub(crate) const fn push_tile_entry(&mut self, v: i64) -> Result<(), CapacityError> {
        let last = self.tile_count as usize - 1;
        let end = self.tile_ends[last] as usize;
        if end >= MAX_TILE_ENTRIES {
            return Err(CapacityError {
                capacity: Capacity::TileEntries,
            });
        }
        self.tile_entries[end] = v;
        self.tile_ends[last] += 1;
        Ok(())
    }

    /// Starts a new split config for physical dimension `dimension`.
    pub(crate) const fn push_split_config(&mut self, dimension: i64) -> Result<(), CapacityError> {
        let n = self.split_count as usize;
        if n >= MAX_SPLIT_CONFIGS {
            return Err(CapacityError {
                capacity: Capacity::SplitConfigs,
            });
        }
        self.split_dimensions[n] = dimension;
        self.split_ends[n] = if n == 0 { 0 } else { self.split_ends[n - 1] };
        self.split_count += 1;
        Ok(())
    }

    /// Appends a split index to the last split config.
    pub(crate) const fn push_split_index(&mut self, v: i64) -> Result<(), CapacityError> {
        let last = self.split_count as usize - 1;
        let end = self.split_ends[last] as usize;
        if end >= MAX_SPLIT_INDICES {
            return Err(CapacityError {
                capacity: Capacity::SplitIndices,
            });
        }
        self.split_indices[end] = v;
        self.split_ends[last] += 1;
        Ok(())
    }

    /// This layout with `tiles` replacing its tiles.
    ///
    /// # Panics
    /// If the tiles exceed [`crate::MAX_TILES`] or
    /// [`crate::MAX_TILE_ENTRIES`]; see [`Layout::try_with_tiles`].
    ///
    /// ```
    /// # use xla_layout_core::{Layout, COMBINE};
    /// let l = Layout::new(&[2, 1, 0]).with_tiles(&[&[2, COMBINE, 128]]);
    /// assert_eq!(l.to_string(), "{2,1,0:T(2,*,128)}");
    /// ```
    pub const fn with_tiles(self, tiles: &[&[i64]]) -> Layout {
        match self.try_with_tiles(tiles) {
            Ok(l) => l,
            Err(_) => panic!("too many tiles or tile entries for xla_layout_core's capacities"),
        }
    }

    /// [`Layout::with_tiles`] without the panic.
    ///
    /// ```
    /// # use xla_layout_core::Layout;
    /// let nine: [&[i64]; 9] = [&[1]; 9];
    /// assert!(Layout::new(&[0]).try_with_tiles(&nine).is_err());
    /// ```
    pub const fn try_with_tiles(mut self, tiles: &[&[i64]]) -> Result<Layout, CapacityError> {
        self.tile_entries = [0; MAX_TILE_ENTRIES];
        self.tile_ends = [0; MAX_TILES];
        self.tile_count = 0;
        let mut t = 0;
        while t < tiles.len() {
            if let Err(e) = self.push_tile() {
                return Err(e);
            }
            let mut i = 0;
            while i < tiles[t].len() {
                if let Err(e) = self.push_tile_entry(tiles[t][i]) {
                    return Err(e);
                }
                i += 1;
            }
            t += 1;
        }
        Ok(self)
    }

    /// This layout with `L(n)`, tail padding to a multiple of `n` elements.
    ///
    /// ```
    /// # use xla_layout_core::Layout;
    /// assert_eq!(Layout::new(&[0]).with_tail_padding_alignment(1024).to_string(), "{0:L(1024)}");
    /// ```
    pub const fn with_tail_padding_alignment(mut self, n: i64) -> Layout {
        self.tail_padding_alignment_in_elements = n;
        self
    }

    /// This layout with `#(t)`, a sparse index type (always rejected by
    /// validation today). `INVALID` clears it.
    ///
    /// ```
    /// # use xla_layout_core::{ElementType, Layout};
    /// assert_eq!(Layout::new(&[0]).with_index_primitive_type(ElementType::U32).to_string(), "{0:#(u32)}");
    /// ```
    pub const fn with_index_primitive_type(mut self, t: ElementType) -> Layout {
        self.index_primitive_type = t;
        self
    }

    /// This layout with `*(t)`, a sparse pointer type (always rejected by
    /// validation today). `INVALID` clears it.
    ///
    /// ```
    /// # use xla_layout_core::{ElementType, Layout};
    /// assert_eq!(Layout::new(&[0]).with_pointer_primitive_type(ElementType::F32).to_string(), "{0:*(invalid)}");
    /// ```
    pub const fn with_pointer_primitive_type(mut self, t: ElementType) -> Layout {
        self.pointer_primitive_type = t;
        self
    }

    /// This layout with `E(n)`, `n` storage bits per element (0 = natural).
    ///
    /// ```
    /// # use xla_layout_core::Layout;
    /// assert_eq!(Layout::new(&[1, 0]).with_element_size_in_bits(4).to_string(), "{1,0:E(4)}");
    /// ```
    pub const fn with_element_size_in_bits(mut self, n: i64) -> Layout {
        self.element_size_in_bits = n;
        self
    }

    /// This layout with `S(n)`. Like XLA, the value is kept in an `i8`.
    ///
    /// ```
    /// # use xla_layout_core::Layout;
    /// assert_eq!(Layout::new(&[0]).with_memory_space(1).to_string(), "{0:S(1)}");
    /// ```
    pub const fn with_memory_space(mut self, n: i8) -> Layout {
        self.memory_space = n;
        self
    }

    /// This layout with `split_configs` (pairs of physical dimension and
    /// split indices) replacing its split configs.
    ///
    /// # Panics
    /// If they exceed [`crate::MAX_SPLIT_CONFIGS`] or
    /// [`crate::MAX_SPLIT_INDICES`]; see [`Layout::try_with_split_configs`].
    ///
    /// ```
    /// # use xla_layout_core::Layout;
    /// let l = Layout::new(&[1, 0]).with_split_configs(&[(0, &[4, 8])]);
    /// assert_eq!(l.to_string(), "{1,0:SC(0:4,8)}");
    /// ```
    pub const fn with_split_configs(self, split_configs: &[(i64, &[i64])]) -> Layout {
        match self.try_with_split_configs(split_configs) {
            Ok(l) => l,
            Err(_) => panic!("too many split configs for xla_layout_core's capacities"),
        }
    }

    /// [`Layout::with_split_configs`] without the panic.
    ///
    /// ```
    /// # use xla_layout_core::Layout;
    /// assert!(Layout::new(&[0]).try_with_split_configs(&[(0, &[1; 33])]).is_err());
    /// ```
    pub const fn try_with_split_configs(
        mut self,
        split_configs: &[(i64, &[i64])],
    ) -> Result<Layout, CapacityError> {
        self.split_dimensions = [0; MAX_SPLIT_CONFIGS];
        self.split_ends = [0; MAX_SPLIT_CONFIGS];
        self.split_indices = [0; MAX_SPLIT_INDICES];
        self.split_count = 0;
        let mut c = 0;
        while c < split_configs.len() {
            if let Err(e) = self.push_split_config(split_configs[c].0) {
                return Err(e);
            }
            let mut i = 0;
            while i < split_configs[c].1.len() {
                if let Err(e) = self.push_split_index(split_configs[c].1[i]) {
                    return Err(e);
                }
                i += 1;
            }
            c += 1;
        }
        Ok(self)
    }

    /// This layout with `M(n)`, bytes of dynamic-shape metadata in front
    /// of the data.
    ///
    /// ```
    /// # use xla_layout_core::Layout;
    /// assert_eq!(Layout::new(&[0]).with_dynamic_shape_metadata_prefix_bytes(8).to_string(), "{0:M(8)}");
    /// ```
    pub const fn with_dynamic_shape_metadata_prefix_bytes(mut self, n: i64) -> Layout {
        self.dynamic_shape_metadata_prefix_bytes = n;
        self
    }

    /// This layout with a `P(...)` physical shape, given as its canonical
    /// text; `None` clears it. (Always rejected by validation today.)
    ///
    /// ```
    /// # use xla_layout_core::{Layout, PhysicalShapeText};
    /// use core::fmt::Write;
    /// let mut p = PhysicalShapeText::new();
    /// write!(p, "f32[4]{{0}}").unwrap();
    /// assert_eq!(Layout::new(&[0]).with_physical_shape(Some(p)).to_string(), "{0:P(f32[4]{0})}");
    /// ```
    pub const fn with_physical_shape(mut self, text: Option<PhysicalShapeText>) -> Layout {
        self.physical_shape = text;
        self
    }

    /// The minor-to-major dimension order: entry 0 is the most minor
    /// (fastest-varying) logical dimension.
    ///
    /// ```
    /// # use xla_layout_core::Layout;
    /// assert_eq!(Layout::new(&[3, 2, 0, 1]).minor_to_major(), &[3, 2, 0, 1]);
    /// ```
    pub const fn minor_to_major(&self) -> &[i64] {
        self.minor_to_major
            .split_at(self.minor_to_major_len as usize)
            .0
    }

    /// The number of tiling levels.
    ///
    /// ```
    /// # use xla_layout_core::Layout;
    /// assert_eq!(Layout::new(&[0]).with_tiles(&[&[1024], &[128], &[2, 1]]).tile_count(), 3);
    /// ```
    pub const fn tile_count(&self) -> usize {
        self.tile_count as usize
    }

    /// Tile `i`, most major entry first; [`crate::COMBINE`] is `*`.
    ///
    /// # Panics
    /// If `i >= self.tile_count()`.
    ///
    /// ```
    /// # use xla_layout_core::Layout;
    /// assert_eq!(Layout::new(&[1, 0]).with_tiles(&[&[8, 128]]).tile(0), &[8, 128]);
    /// ```
    pub const fn tile(&self, i: usize) -> &[i64] {
        assert!(i < self.tile_count as usize, "tile index out of range");
        let start = if i == 0 {
            0
        } else {
            self.tile_ends[i - 1] as usize
        };
        let end = self.tile_ends[i] as usize;
        self.tile_entries.split_at(end).0.split_at(start).1
    }

    /// The tiles, in application order.
    ///
    /// ```
    /// # use xla_layout_core::Layout;
    /// let l = Layout::new(&[1, 0]).with_tiles(&[&[8, 128], &[2, 1]]);
    /// assert_eq!(l.tiles().collect::<Vec<_>>(), [&[8, 128][..], &[2, 1]]);
    /// ```
    pub fn tiles(&self) -> impl ExactSizeIterator<Item = &[i64]> + '_ {
        (0..self.tile_count()).map(|i| self.tile(i))
    }

    /// `L(n)`: the slot count is rounded up to a multiple of this. Default 1.
    ///
    /// ```
    /// # use xla_layout_core::Layout;
    /// assert_eq!(Layout::new(&[0]).tail_padding_alignment_in_elements(), 1);
    /// ```
    pub const fn tail_padding_alignment_in_elements(&self) -> i64 {
        self.tail_padding_alignment_in_elements
    }

    /// `#(t)`, if set.
    ///
    /// ```
    /// # use xla_layout_core::Layout;
    /// assert_eq!(Layout::new(&[0]).index_primitive_type(), None);
    /// ```
    pub const fn index_primitive_type(&self) -> Option<ElementType> {
        match self.index_primitive_type {
            ElementType::INVALID => None,
            t => Some(t),
        }
    }

    /// `*(t)`, if set.
    ///
    /// ```
    /// # use xla_layout_core::Layout;
    /// assert_eq!(Layout::new(&[0]).pointer_primitive_type(), None);
    /// ```
    pub const fn pointer_primitive_type(&self) -> Option<ElementType> {
        match self.pointer_primitive_type {
            ElementType::INVALID => None,
            t => Some(t),
        }
    }

    /// `E(n)`: storage bits per element; 0 means the type's natural width.
    ///
    /// ```
    /// # use xla_layout_core::Layout;
    /// assert_eq!(Layout::new(&[0]).element_size_in_bits(), 0);
    /// ```
    pub const fn element_size_in_bits(&self) -> i64 {
        self.element_size_in_bits
    }

    /// `S(n)`: the memory space (0 = device memory, 1 = fast memory / TPU
    /// VMEM, 5 = pinned host; see [`crate::memory_space_name`]).
    ///
    /// ```
    /// # use xla_layout_core::Layout;
    /// assert_eq!(Layout::new(&[0]).with_memory_space(5).memory_space(), 5);
    /// ```
    pub const fn memory_space(&self) -> i8 {
        self.memory_space
    }

    /// The number of split configs.
    ///
    /// ```
    /// # use xla_layout_core::Layout;
    /// assert_eq!(Layout::new(&[0]).split_config_count(), 0);
    /// ```
    pub const fn split_config_count(&self) -> usize {
        self.split_count as usize
    }

    /// Split config `i`.
    ///
    /// # Panics
    /// If `i >= self.split_config_count()`.
    ///
    /// ```
    /// # use xla_layout_core::Layout;
    /// let l = Layout::new(&[1, 0]).with_split_configs(&[(1, &[64])]);
    /// assert_eq!(l.split_config(0).dimension, 1);
    /// assert_eq!(l.split_config(0).indices, &[64]);
    /// ```
    pub const fn split_config(&self, i: usize) -> SplitConfig<'_> {
        assert!(
            i < self.split_count as usize,
            "split config index out of range"
        );
        let start = if i == 0 {
            0
        } else {
            self.split_ends[i - 1] as usize
        };
        let end = self.split_ends[i] as usize;
        SplitConfig {
            dimension: self.split_dimensions[i],
            indices: self.split_indices.split_at(end).0.split_at(start).1,
        }
    }

    /// The split configs, in order.
    ///
    /// ```
    /// # use xla_layout_core::Layout;
    /// assert_eq!(Layout::new(&[0]).split_configs().count(), 0);
    /// ```
    pub fn split_configs(&self) -> impl ExactSizeIterator<Item = SplitConfig<'_>> + '_ {
        (0..self.split_config_count()).map(|i| self.split_config(i))
    }

    /// The canonical text of `P(...)`, if set.
    ///
    /// ```
    /// # use xla_layout_core::Layout;
    /// assert!(Layout::new(&[0]).physical_shape().is_none());
    /// ```
    pub fn physical_shape(&self) -> Option<&str> {
        self.physical_shape.as_ref().map(InlineStr::as_str)
    }

    /// Whether `P(...)` is set.
    pub(crate) const fn has_physical_shape(&self) -> bool {
        self.physical_shape.is_some()
    }

    /// `M(n)`: bytes of dynamic-shape metadata in front of the data.
    ///
    /// ```
    /// # use xla_layout_core::Layout;
    /// assert_eq!(Layout::new(&[0]).dynamic_shape_metadata_prefix_bytes(), 0);
    /// ```
    pub const fn dynamic_shape_metadata_prefix_bytes(&self) -> i64 {
        self.dynamic_shape_metadata_prefix_bytes
    }

    /// Whether any tile has a `*` entry.
    ///
    /// ```
    /// # use xla_layout_core::{Layout, COMBINE};
    /// assert!(Layout::new(&[1, 0]).with_tiles(&[&[COMBINE, 4]]).has_combine());
    /// ```
    pub const fn has_combine(&self) -> bool {
        let end = if self.tile_count == 0 {
            0
        } else {
            self.tile_ends[self.tile_count as usize - 1]
        };
        let mut i = 0;
        while i < end as usize {
            if self.tile_entries[i] == COMBINE {
                return true;
            }
            i += 1;
        }
        false
    }

    /// XLA's `Layout::Equal`: every field but `M` (docs/xla-layouts.md §0).
    ///
    /// ```
    /// # use xla_layout_core::Layout;
    /// let a = Layout::new(&[1, 0]);
    /// let b = a.with_dynamic_shape_metadata_prefix_bytes(16);
    /// assert!(a.xla_equal(&b));
    /// assert_ne!(a, b);
    /// ```
    pub fn xla_equal(&self, other: &Layout) -> bool {
        let mut other = *other;
        other.dynamic_shape_metadata_prefix_bytes = self.dynamic_shape_metadata_prefix_bytes;
        *self == other
    }

    /// The storage bits of one `element_type` element under this layout:
    /// `E` if set, else 8 × the byte width. `None` for non-array types.
    ///
    /// ```
    /// # use xla_layout_core::{ElementType, Layout};
    /// assert_eq!(Layout::new(&[0]).element_bits(ElementType::S4), Some(8));
    /// assert_eq!(Layout::new(&[0]).with_element_size_in_bits(4).element_bits(ElementType::S4), Some(4));
    /// ```
    pub const fn element_bits(&self, element_type: ElementType) -> Option<u64> {
        if self.element_size_in_bits > 0 {
            return Some(self.element_size_in_bits as u64);
        }
        match element_type.byte_width() {
            Some(b) => Some(b as u64 * 8),
            None => None,
        }
    }
}

impl Default for Layout {
    /// The empty layout `{}`.
    fn default() -> Self {
        Layout::EMPTY
    }
}
