//! Fixed capacities of the no-alloc model, and XLA's sentinel values.
//!
//! Shapes and layouts are plain `Copy` values so that they live in `const`
//! items and on firmware without an allocator. Each list therefore has a
//! fixed capacity; going past one is a clear [`CapacityError`], never a
//! panic or a silent truncation.

/// The most dimensions an array may have.
pub const MAX_RANK: usize = 16;
/// The most tiling levels a layout may have (`T(..)(..)…`).
pub const MAX_TILES: usize = 4;
/// The most tile entries a layout may have, summed over all its tiles.
pub const MAX_TILE_ENTRIES: usize = 16;
/// The most split configs (`SC(..)(..)`) a layout may have.
pub const MAX_SPLIT_CONFIGS: usize = 4;
/// The most split indices a layout may have, summed over its split configs.
pub const MAX_SPLIT_INDICES: usize = 16;
/// The longest canonical text of a `P(...)` physical shape that a layout
/// keeps. (`P` is a leftover of sparse arrays that XLA always rejects.)
pub const MAX_PHYSICAL_SHAPE_TEXT: usize = 128;
/// The deepest `P(...)` nesting parsed. Each level recurses on the stack
/// (about 3.7 KiB on x86_64, more at `opt-level = "z"`), and XLA refuses
/// every `P` anyway (its own tests nest none): two levels keep even
/// hostile text within about 20 KiB before it is refused (docs/firmware.md).
pub const MAX_PHYSICAL_DEPTH: usize = 2;
/// XLA's default nesting limit for shapes (docs/xla-layouts.md §a.2): tuples, buffers and
/// physical shapes inside each other.
pub const DEFAULT_MAX_DEPTH: usize = 8192;

/// The tile entry written `*` (`Tile::kCombineDimension`): combine this
/// dimension with the next more-minor one.
pub const COMBINE: i64 = i64::MIN;
/// The size of a dimension written `?` (`Shape::kUnboundedSize`).
pub const UNBOUNDED: i64 = i64::MIN;

/// Which fixed capacity was exceeded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Capacity {
    /// [`MAX_RANK`].
    Rank,
    /// [`MAX_TILES`].
    Tiles,
    /// [`MAX_TILE_ENTRIES`].
    TileEntries,
    /// [`MAX_SPLIT_CONFIGS`].
    SplitConfigs,
    /// [`MAX_SPLIT_INDICES`].
    SplitIndices,
    /// [`MAX_PHYSICAL_SHAPE_TEXT`].
    PhysicalShapeText,
}

impl Capacity {
    /// The limit itself.
    ///
    /// ```
    /// # use xla_layout_core::{Capacity, MAX_RANK};
    /// assert_eq!(Capacity::Rank.limit(), MAX_RANK);
    /// ```
    pub const fn limit(self) -> usize {
        match self {
            Capacity::Rank => MAX_RANK,
            Capacity::Tiles => MAX_TILES,
            Capacity::TileEntries => MAX_TILE_ENTRIES,
            Capacity::SplitConfigs => MAX_SPLIT_CONFIGS,
            Capacity::SplitIndices => MAX_SPLIT_INDICES,
            Capacity::PhysicalShapeText => MAX_PHYSICAL_SHAPE_TEXT,
        }
    }

    const fn what(self) -> &'static str {
        match self {
            Capacity::Rank => "dimensions",
            Capacity::Tiles => "tiling levels",
            Capacity::TileEntries => "tile entries in one layout",
            Capacity::SplitConfigs => "split configs",
            Capacity::SplitIndices => "split indices in one layout",
            Capacity::PhysicalShapeText => "bytes of physical-shape text",
        }
    }
}

/// A value does not fit one of the fixed capacities of this crate.
///
/// ```
/// # use xla_layout_core::{ArrayShape, ElementType};
/// let err = ArrayShape::try_new(ElementType::F32, &[1; 40]).unwrap_err();
/// assert_eq!(err.to_string(), "more than 16 dimensions (an xla-layout limit, not an XLA rule)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CapacityError {
    /// Which capacity.
    pub capacity: Capacity,
}

impl core::fmt::Display for CapacityError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "more than {} {} (an xla-layout limit, not an XLA rule)",
            self.capacity.limit(),
            self.capacity.what()
        )
    }
}

impl core::error::Error for CapacityError {}
