//! The layout libtpu gives an array by default on TPU v4, v5e, v5p and
//! v6e: what an entry parameter of a compiled program gets, and what the
//! PJRT client's `get_default_layout` answers. The rule was measured with
//! libtpu, offline, on 186,000 (element type, dimensions, generation)
//! cases and is written down in `docs/tpu-default-layouts.md`; the four
//! generations agree on every case.
//!
//! ```
//! use xla_layout_core::{ElementType, tpu};
//!
//! let t = tpu::default_layout(ElementType::BF16, &[1024, 1], tpu::Generation::V5e).unwrap();
//! assert_eq!(t.to_string(), "bf16[1024,1]{0,1:T(2,128)(2,1)}"); // the dimension order changes too
//! assert_eq!(t.tiled().unwrap().exact_bytes(), 4096);
//! ```
//!
//! It also holds what a TPU's buffer assignment allocates, measured in
//! real dumps: [`buffer_bytes`] for an array, and
//! [`Generation::tuple_table_bytes`] for a tuple's index table.

use crate::limits::MAX_RANK;
use crate::{AddressError, ArrayShape, ElementType, Layout};

/// What a TPU rounds an array without tiles outside SMEM up to a multiple
/// of: every such value in the fixtures takes 4 KiB (`s32[2]{0:S(4)}`,
/// `s32[]` written without a layout). All of them hold less, so that a
/// larger one takes a multiple is assumed.
///
/// ```
/// use xla_layout_core::{ArrayShape, tpu::{UNTILED_PAGE, buffer_bytes}};
/// let bytes = |t| buffer_bytes(&ArrayShape::parse_validated(t).unwrap()).unwrap();
/// assert_eq!(bytes("s32[2]{0:S(4)}"), UNTILED_PAGE); // 8 bytes of data
/// assert_eq!(bytes("s32[1025]{0}"), 2 * UNTILED_PAGE); // 4100 bytes
/// ```
pub const UNTILED_PAGE: u64 = 4 << 10;

/// The alignment of temporaries in a TPU's HBM heap: every offset there
/// in the fixtures' buffer assignments is a multiple of it, so small
/// temporaries leave most of the heap empty
/// ([`crate::SpaceUse::paged_heap`]).
///
/// ```
/// use xla_layout_core::{space_info, tpu::{HEAP_PAGE, UNTILED_PAGE}};
/// assert!(space_info(0).tpu.paged_heap); // HBM
/// assert!(!space_info(1).tpu.paged_heap);
/// assert_eq!(HEAP_PAGE, 4 * UNTILED_PAGE);
/// ```
pub const HEAP_PAGE: u64 = 16 << 10;

/// The host (`S(5)`) temporary heap of a TPU program as jax reports it
/// (`host_temp_size_in_bytes`): XLA's allocation rounded up to whole
/// 4 KiB pages. Measured on 48 of 48 randomized TPU programs with host
/// temporaries, on all four generations (512 bytes allocated, 4,096
/// reported; 8,704 and 12,288), and on the fixtures.
///
/// ```
/// use xla_layout_core::tpu::host_heap_bytes;
/// assert_eq!(host_heap_bytes(512), 4096);
/// assert_eq!(host_heap_bytes(8704), 12288);
/// assert_eq!(host_heap_bytes(65536), 65536);
/// assert_eq!(host_heap_bytes(0), 0);
/// assert_eq!(host_heap_bytes(u64::MAX), u64::MAX); // saturates
/// ```
pub const fn host_heap_bytes(allocated: u64) -> u64 {
    allocated.div_ceil(HOST_PAGE).saturating_mul(HOST_PAGE)
}

/// The page [`host_heap_bytes`] rounds to.
const HOST_PAGE: u64 = 4 << 10;

/// How a TPU's buffer assignment sizes an array (see [`buffer_bytes`]).
///
/// ```
/// use xla_layout_core::{ArrayShape, tpu::{Sizing, sizing}};
/// // 12 bytes of data in one 512-byte tile.
/// let s = ArrayShape::parse_validated("f32[3]{0:T(128)}").unwrap();
/// let (tiled, elements) = (s.tiled().unwrap().exact_bytes(), s.xla_byte_size_of().unwrap());
/// assert_eq!(sizing(&s), Sizing::Tiles);
/// assert_eq!(Sizing::Tiles.bytes(tiled, elements), Ok(512));
/// assert_eq!(Sizing::Elements.bytes(tiled, elements), Ok(12)); // were it in SMEM
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sizing {
    /// In SMEM (`S(2)`): its elements' bytes, whatever its tiles (SMEM
    /// holds words, not tiles: `u32[]{:T(128)S(2)}` takes 4).
    Elements,
    /// Without tiles elsewhere: its bytes rounded up to [`UNTILED_PAGE`].
    Page,
    /// Every tile level, `L` and `E` counted
    /// ([`crate::TiledShape::exact_bytes`]).
    Tiles,
}

/// How a TPU sizes an array of `shape` (laid out as written; without a
/// layout, the default one, which has no tiles).
///
/// ```
/// use xla_layout_core::{ArrayShape, tpu::{Sizing, sizing}};
/// let of = |t| sizing(&ArrayShape::parse(t).unwrap());
/// assert_eq!(of("u32[]{:T(128)S(2)}"), Sizing::Elements);
/// assert_eq!(of("s32[2]{0:S(4)}"), Sizing::Page);
/// assert_eq!(of("f32[8]{0:T(128)}"), Sizing::Tiles);
/// ```
pub const fn sizing(shape: &ArrayShape) -> Sizing {
    if crate::space_info(shape.memory_space() as i64)
        .tpu
        .sized_by_elements
    {
        return Sizing::Elements;
    }
    match shape.layout() {
        Some(l) if l.tile_count() > 0 => Sizing::Tiles,
        _ => Sizing::Page,
    }
}

/// The bytes a TPU's buffer assignment gives an array of `shape`, by its
/// [`sizing`]; measured in the fixtures' buffer assignments
/// (docs/memory-report.md §2).
///
/// ```
/// use xla_layout_core::{ArrayShape, tpu::buffer_bytes};
/// let bytes = |t| buffer_bytes(&ArrayShape::parse_validated(t).unwrap()).unwrap();
/// assert_eq!(bytes("f32[3,129]{1,0:T(4,128)}"), 4096);
/// assert_eq!(bytes("u32[]{:T(128)S(2)}"), 4);
/// assert_eq!(bytes("s32[2]{0:S(4)}"), 4096);
/// assert_eq!(bytes("f32[]{:T(128)}"), 512);
/// // Past int64 once rounded to a page: no size, as XLA's sizes are int64s.
/// let huge = ArrayShape::parse_validated("u8[9223372036854775807]{0}").unwrap();
/// assert!(buffer_bytes(&huge).is_err());
/// ```
pub const fn buffer_bytes(shape: &ArrayShape) -> Result<u64, AddressError> {
    // Only what the sizing needs is computed.
    let sizing = sizing(shape);
    let (tiled, elements) = match sizing {
        Sizing::Elements => match shape.xla_byte_size_of() {
            Ok(b) => (0, b),
            Err(e) => return Err(e),
        },
        _ => match shape.tiled() {
            Ok(t) => (t.exact_bytes(), 0),
            Err(e) => return Err(e),
        },
    };
    buffer_bytes_from(shape, tiled, elements)
}

/// [`buffer_bytes`] from the sizes a caller has already: `tiled`
/// ([`crate::TiledShape::exact_bytes`]) and `elements`
/// ([`ArrayShape::xla_byte_size_of`]), of which the shape's [`sizing`]
/// reads one (the other may be 0).
///
/// ```
/// use xla_layout_core::{ArrayShape, tpu::{buffer_bytes, buffer_bytes_from}};
/// let s = ArrayShape::parse_validated("f32[<=8,4]{0,1:T(4,128)}").unwrap();
/// let tiled = s.tiled().unwrap().exact_bytes();
/// assert_eq!(buffer_bytes_from(&s, tiled, 0), Ok(2048 + 1024)); // its tiles, then its sizes
/// assert_eq!(buffer_bytes_from(&s, tiled, 0), buffer_bytes(&s));
/// ```
pub const fn buffer_bytes_from(
    shape: &ArrayShape,
    tiled: u64,
    elements: u64,
) -> Result<u64, AddressError> {
    match sizing(shape).bytes(tiled, elements) {
        // XLA's sizes are int64s: a buffer past that has none.
        Ok(b) => match b.checked_add(metadata_bytes(shape)) {
            Some(b) => crate::address::within_int64(Ok(b)),
            None => Err(AddressError::Overflow),
        },
        Err(e) => Err(e),
    }
}

/// The bytes a TPU puts in front of the data of an array with a dynamic
/// dimension, for its sizes: 1 KiB, measured on v4, v5e, v5p and v6e for
/// ranks 1 to 6 and element types of every width, parameters, outputs
/// and temporaries alike, whether the layout prints it (`M(1024)`) or not
/// (entry parameters do not). See [`metadata_bytes`].
///
/// ```
/// use xla_layout_core::{ArrayShape, tpu::{DYNAMIC_METADATA_BYTES, metadata_bytes}};
/// let of = |t| metadata_bytes(&ArrayShape::parse_validated(t).unwrap());
/// assert_eq!(of("f32[<=8]{0:T(128)}"), DYNAMIC_METADATA_BYTES); // no `M(n)` written
/// assert_eq!(of("f32[<=8]{0:T(128)M(2048)}"), 2048);
/// ```
pub const DYNAMIC_METADATA_BYTES: u64 = 1 << 10;

/// The bytes in front of the data of `shape` in a TPU's buffer (part of
/// [`buffer_bytes`]): none for a static array; for a dynamic one the
/// layout's `M(n)` where it says one, else [`DYNAMIC_METADATA_BYTES`]
/// (every `M` in the dumps measured says 1024; another `n` is taken at its
/// word, unmeasured).
///
/// ```
/// use xla_layout_core::{ArrayShape, tpu::{buffer_bytes, metadata_bytes}};
/// let s = ArrayShape::parse_validated("s8[<=33,<=130]{1,0:T(8,128)(4,1)}").unwrap();
/// assert_eq!(metadata_bytes(&s), 1024);
/// assert_eq!(buffer_bytes(&s), Ok(40 * 256 + 1024)); // as libtpu's buffer assignment
/// let s = ArrayShape::parse_validated("s8[33,130]{1,0:T(8,128)(4,1)}").unwrap();
/// assert_eq!(metadata_bytes(&s), 0);
/// ```
pub const fn metadata_bytes(shape: &ArrayShape) -> u64 {
    if shape.is_static() {
        return 0;
    }
    match shape.layout() {
        Some(l) if l.dynamic_shape_metadata_prefix_bytes() > 0 => {
            l.dynamic_shape_metadata_prefix_bytes() as u64
        }
        _ => DYNAMIC_METADATA_BYTES,
    }
}

impl Sizing {
    /// The bytes this sizing gives an array whose tiled size is `tiled`
    /// ([`crate::TiledShape::exact_bytes`]) and whose elements take
    /// `elements` ([`ArrayShape::xla_byte_size_of`]): for callers that have
    /// both already ([`buffer_bytes`] computes them).
    ///
    /// ```
    /// use xla_layout_core::tpu::Sizing;
    /// assert_eq!(Sizing::Elements.bytes(512, 4), Ok(4));
    /// assert_eq!(Sizing::Page.bytes(8, 8), Ok(4096));
    /// assert_eq!(Sizing::Tiles.bytes(512, 4), Ok(512));
    /// ```
    pub const fn bytes(self, tiled: u64, elements: u64) -> Result<u64, AddressError> {
        match self {
            Sizing::Elements => Ok(elements),
            Sizing::Tiles => Ok(tiled),
            Sizing::Page => match tiled.div_ceil(UNTILED_PAGE).checked_mul(UNTILED_PAGE) {
                Some(b) => Ok(b),
                None => Err(AddressError::Overflow),
            },
        }
    }
}

/// A TPU generation whose default layouts were measured.
///
/// ```
/// use xla_layout_core::{ElementType, tpu::{Generation, default_layout}};
/// let on = |g| default_layout(ElementType::F32, &[3, 5], g).unwrap();
/// // The measured generations agree on every default layout
/// // (docs/tpu-default-layouts.md)...
/// assert!(Generation::ALL.iter().all(|&g| on(g) == on(Generation::V4)));
/// // ...but not on how they round tuple tables.
/// assert_ne!(Generation::V4.tuple_table_unit(), Generation::V6e.tuple_table_unit());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Generation {
    /// TPU v4.
    V4,
    /// TPU v5e (v5 lite).
    V5e,
    /// TPU v5p.
    V5p,
    /// TPU v6e (Trillium).
    V6e,
}

impl Generation {
    /// Every measured generation.
    ///
    /// ```
    /// # use xla_layout_core::tpu::Generation;
    /// let names: Vec<&str> = Generation::ALL.iter().map(|g| g.name()).collect();
    /// assert_eq!(names, ["v4", "v5e", "v5p", "v6e"]);
    /// ```
    pub const ALL: &'static [Generation] = &[
        Generation::V4,
        Generation::V5e,
        Generation::V5p,
        Generation::V6e,
    ];

    /// The generation `tpu(SHAPE)` means when it names none.
    ///
    /// ```
    /// # use xla_layout_core::tpu::{Generation, parse_request, default_layout_for};
    /// let s = parse_request("tpu(f32[3])").unwrap().unwrap();
    /// assert_eq!(s, default_layout_for("f32[3]", Generation::DEFAULT).unwrap());
    /// ```
    pub const DEFAULT: Generation = Generation::V5e;

    /// Their names, for messages: `"v4, v5e, v5p or v6e"`.
    ///
    /// ```
    /// # use xla_layout_core::tpu::Generation;
    /// let names: Vec<&str> = Generation::ALL.iter().map(|g| g.name()).collect();
    /// let (last, rest) = names.split_last().unwrap();
    /// assert_eq!(Generation::NAMES, format!("{} or {last}", rest.join(", ")));
    /// ```
    pub const NAMES: &'static str = "v4, v5e, v5p or v6e";

    /// `"v4"`, `"v5e"`, `"v5p"`, `"v6e"`.
    ///
    /// ```
    /// # use xla_layout_core::tpu::Generation;
    /// assert_eq!(Generation::V5e.name(), "v5e");
    /// assert_eq!(Generation::from_name("v6e"), Some(Generation::V6e));
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Generation::V4 => "v4",
            Generation::V5e => "v5e",
            Generation::V5p => "v5p",
            Generation::V6e => "v6e",
        }
    }

    /// The bytes of the index table of a tuple of `arity` elements (the
    /// array of its elements' addresses): 4 bytes an element, rounded up
    /// to [`Generation::tuple_table_unit`] (none for an empty tuple).
    /// Measured in XLA's buffer assignments at 44 or 45 arities from 0 to
    /// 302 on each generation, both sides of 8, 16, 32, 128 and 256
    /// elements among them (`tools/tpu_defaults/tuple_tables.py`; jax makes no
    /// 1-tuple, so arity 1 is the rule's, not a measurement).
    ///
    /// ```
    /// # use xla_layout_core::tpu::Generation;
    /// assert_eq!(Generation::V5e.tuple_table_bytes(3), 512);
    /// assert_eq!(Generation::V5e.tuple_table_bytes(129), 1024);
    /// assert_eq!(Generation::V6e.tuple_table_bytes(3), 32);
    /// assert_eq!(Generation::V6e.tuple_table_bytes(9), 64);
    /// assert_eq!(Generation::V6e.tuple_table_bytes(0), 0);
    /// ```
    pub const fn tuple_table_bytes(self, arity: u64) -> u64 {
        let unit = self.tuple_table_unit();
        // Saturates: an arity near 2^62 is not a real tuple, but no wrap.
        arity.saturating_mul(4).div_ceil(unit).saturating_mul(unit)
    }

    /// The unit tuple index tables are rounded up to: 512 bytes on v4 and
    /// v5e, 32 on v5p and v6e (see [`Generation::tuple_table_bytes`]).
    ///
    /// ```
    /// # use xla_layout_core::tpu::Generation;
    /// assert_eq!(Generation::V4.tuple_table_unit(), 512);
    /// assert_eq!(Generation::V5p.tuple_table_unit(), 32);
    /// ```
    pub const fn tuple_table_unit(self) -> u64 {
        match self {
            Generation::V4 | Generation::V5e => 512,
            Generation::V5p | Generation::V6e => 32,
        }
    }

    /// The generation a TPU's `platform_version` names, as a jax dump's
    /// `topology.textproto` writes it (`TFRT TPU v6 lite`, then the
    /// build): v4, v5 lite (v5e), v5 (v5p), v6 lite (v6e). `None` for
    /// any other text.
    ///
    /// ```
    /// # use xla_layout_core::tpu::Generation;
    /// let v = |t| Generation::from_platform_version(t);
    /// assert_eq!(v("TFRT TPU v5 lite\nBuilt on Nov 5 2026"), Some(Generation::V5e));
    /// assert_eq!(v("TFRT TPU v5\nBuilt on Nov 5 2026"), Some(Generation::V5p));
    /// assert_eq!(v("TFRT TPU v6 lite"), Some(Generation::V6e));
    /// assert_eq!(v("TFRT TPU v4"), Some(Generation::V4));
    /// assert_eq!(v(r"TFRT TPU v6 lite\nBuilt on Nov 5 2026"), Some(Generation::V6e)); // escaped
    /// assert_eq!(v("TFRT TPU v7"), None);
    /// ```
    pub fn from_platform_version(text: &str) -> Option<Generation> {
        // The first line, whether the newline is one or, as a textproto
        // string writes it, escaped (`\n`).
        let first = text.lines().next()?.split("\\n").next()?.trim();
        let chip = first.strip_prefix("TFRT TPU ")?.trim();
        // Read from dumps of each generation jax 0.10.2 compiles for.
        match chip {
            "v4" => Some(Generation::V4),
            "v5 lite" => Some(Generation::V5e),
            "v5" => Some(Generation::V5p),
            "v6 lite" => Some(Generation::V6e),
            _ => None,
        }
    }

    /// The generation named `name`, as [`Generation::name`] writes it or
    /// in capitals: Google writes `v5e`, people often `V5E`.
    ///
    /// ```
    /// # use xla_layout_core::tpu::Generation;
    /// assert_eq!(Generation::from_name("V5E"), Some(Generation::V5e));
    /// assert_eq!(Generation::from_name("v5"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Generation> {
        Generation::ALL
            .iter()
            .copied()
            .find(|g| g.name().eq_ignore_ascii_case(name))
    }
}

/// Why there is no default TPU layout to give.
///
/// ```
/// use xla_layout_core::{ElementType, tpu::{Generation, TpuError, default_layout}};
/// let e = default_layout(ElementType::F6E2M3FN, &[4], Generation::V5e).unwrap_err();
/// assert_eq!(e, TpuError::UnsupportedType(ElementType::F6E2M3FN));
/// assert_eq!(e.to_string(), "TPUs have no layout for `f6e2m3fn` elements");
/// let e = default_layout(ElementType::F32, &[2, -1], Generation::V5e).unwrap_err();
/// assert_eq!(e, TpuError::BadDimension { dim: 1 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TpuError {
    /// The element type has no TPU layout (libtpu refuses it, or it is
    /// not an array type).
    UnsupportedType(ElementType),
    /// A dimension is negative or unbounded.
    BadDimension {
        /// The dimension.
        dim: usize,
    },
    /// More dimensions than this crate holds.
    TooManyDimensions,
    /// The array, padded to its tiles, needs more bytes than int64 (XLA's
    /// size type) can count, or fails XLA's own size check: XLA cannot
    /// hold it, whatever its layout.
    TooLarge,
    /// The element's byte width times the dimensions, in order, passes
    /// int64 before a 0 dimension makes the array empty: XLA refuses to
    /// make such a shape ("overflow in static extent product"), and libtpu
    /// aborts asked for its layout (`f32[2^61,0]`; `f32[0,2^61]` is
    /// fine). An array with elements that large is [`TpuError::TooLarge`].
    ExtentOverflow,
    /// The array, padded to its tiles, passes [`MEASURED_BYTES`]: there
    /// libtpu's own choice departs from its rule (its size arithmetic
    /// overflows), so no layout is given. No TPU holds such an array.
    PastMeasured,
}

/// The padded size up to which [`default_layout`] is measured to be
/// libtpu's choice: 2^47 bytes (128 TiB). A differential run of 541,846
/// shapes against libtpu 0.0.52 found every disagreement at 2^48 bytes
/// or more (1-bit types from 2^48, 8-bit and wider from 2^53: libtpu
/// puts size-1 dimensions minor-most, the most padded order there is),
/// none below (docs/tpu-default-layouts.md, "Limits").
pub const MEASURED_BYTES: u64 = 1 << 47;

impl core::fmt::Display for TpuError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            TpuError::UnsupportedType(t) => {
                write!(f, "TPUs have no layout for `{}` elements", t.name())
            }
            TpuError::BadDimension { dim } => write!(
                f,
                "dimension {dim} must have a size (>= 0; a bounded `<=N` counts as N)"
            ),
            TpuError::TooManyDimensions => write!(f, "more than {MAX_RANK} dimensions"),
            TpuError::TooLarge => f.write_str(
                "the array, padded to its tiles, needs more bytes than int64 (XLA's size type) can count",
            ),
            TpuError::ExtentOverflow => f.write_str(
                "the element's byte width times the dimensions, in order, passes int64 before the 0 \
                 dimension: XLA refuses to make this shape (\"overflow in static extent product\"), \
                 and libtpu aborts asked for its layout",
            ),
            TpuError::PastMeasured => f.write_str(
                "the array, padded to its tiles, passes 2^47 bytes (128 TiB), where libtpu's own choice \
                 departs from its rule (its size arithmetic overflows): no layout is given",
            ),
        }
    }
}

impl core::error::Error for TpuError {}

/// Element types by the width their tiles are chosen for: 64-bit and
/// complex types tile as 32-bit ones, `pred` as a byte (it is stored in
/// one). The f6 types are missing: libtpu refuses them.
const TILING_BITS: [(ElementType, u32); 30] = {
    use ElementType as T;
    [
        (T::S32, 32),
        (T::U32, 32),
        (T::F32, 32),
        (T::S64, 32),
        (T::U64, 32),
        (T::F64, 32),
        (T::C64, 32),
        (T::C128, 32),
        (T::S16, 16),
        (T::U16, 16),
        (T::F16, 16),
        (T::BF16, 16),
        (T::PRED, 8),
        (T::S8, 8),
        (T::U8, 8),
        (T::F8E5M2, 8),
        (T::F8E4M3FN, 8),
        (T::F8E4M3B11FNUZ, 8),
        (T::F8E5M2FNUZ, 8),
        (T::F8E4M3FNUZ, 8),
        (T::F8E4M3, 8),
        (T::F8E3M4, 8),
        (T::F8E8M0FNU, 8),
        (T::S4, 4),
        (T::U4, 4),
        (T::F4E2M1FN, 4),
        (T::S2, 2),
        (T::U2, 2),
        (T::S1, 1),
        (T::U1, 1),
    ]
};

// The rule below packs `32 / bits` elements to a word and picks tiles by
// the widths 32, 16, 8, 4, 2 and 1: a width outside them (a 6-bit type
// added here) would get another width's tiles in silence.
const _: () = {
    let mut i = 0;
    while i < TILING_BITS.len() {
        let bits = TILING_BITS[i].1;
        assert!(
            bits.is_power_of_two() && bits <= 32,
            "TILING_BITS: a width must be 1, 2, 4, 8, 16 or 32"
        );
        i += 1;
    }
};

/// The width `ty` is tiled for, or `None` if TPUs have no layout for it.
///
/// ```
/// # use xla_layout_core::{ElementType, tpu};
/// assert_eq!(tpu::tiling_bits(ElementType::F64), Some(32));
/// assert_eq!(tpu::tiling_bits(ElementType::PRED), Some(8));
/// assert_eq!(tpu::tiling_bits(ElementType::F6E2M3FN), None);
/// ```
pub const fn tiling_bits(ty: ElementType) -> Option<u32> {
    let mut i = 0;
    while i < TILING_BITS.len() {
        if TILING_BITS[i].0 as u8 == ty as u8 {
            return Some(TILING_BITS[i].1);
        }
        i += 1;
    }
    None
}

/// The default TPU layout of an array of `ty` with `dims` (all sizes; a
/// bounded dimension by its bound) on `generation`, as a shape with that
/// layout. Its [`ArrayShape::tiled`] size is the padded size libtpu
/// allocates.
///
/// ```
/// use xla_layout_core::{ElementType as T, tpu::{default_layout, Generation::V4}};
/// let text = |ty, dims: &[i64]| default_layout(ty, dims, V4).unwrap().to_string();
/// assert_eq!(text(T::F32, &[3, 5]), "f32[3,5]{1,0:T(4,128)}");
/// assert_eq!(text(T::F32, &[]), "f32[]{:T(128)}");
/// assert_eq!(text(T::PRED, &[1, 5]), "pred[1,5]{1,0:T(4,128)(4,1)}");
/// assert_eq!(text(T::S4, &[1, 129]), "s4[1,129]{1,0:T(8,128)(8,1)E(4)}");
/// assert_eq!(text(T::BF16, &[5000]), "bf16[5000]{0:T(1024)(128)(2,1)}");
/// // 2^63 - 1 bytes of data, 2^63 once padded to whole tiles.
/// let big = default_layout(T::PRED, &[i64::MAX], V4);
/// assert_eq!(big.unwrap_err(), xla_layout_core::tpu::TpuError::TooLarge);
/// // Past 2^47 bytes libtpu departs from its rule: no answer.
/// let huge = default_layout(T::S8, &[1, 1, 8388608, 1073741825], V4);
/// assert_eq!(huge.unwrap_err(), xla_layout_core::tpu::TpuError::PastMeasured);
/// // Empty, but 4 × 2^61 bytes before its 0: XLA makes no such shape.
/// let e = default_layout(T::F32, &[1 << 61, 0], V4);
/// assert_eq!(e.unwrap_err(), xla_layout_core::tpu::TpuError::ExtentOverflow);
/// assert_eq!(text(T::F32, &[(1 << 61) - 1, 0]), "f32[2305843009213693951,0]{1,0}");
/// assert_eq!(text(T::F32, &[0, 1 << 61]), "f32[0,2305843009213693952]{1,0}");
/// ```
pub const fn default_layout(
    ty: ElementType,
    dims: &[i64],
    generation: Generation,
) -> Result<ArrayShape, TpuError> {
    // Every generation was measured identical (docs/tpu-default-layouts.md).
    let _ = generation;
    let Some(bits) = tiling_bits(ty) else {
        return Err(TpuError::UnsupportedType(ty));
    };
    let rank = dims.len();
    if rank > MAX_RANK {
        return Err(TpuError::TooManyDimensions);
    }
    let mut d = 0;
    let mut empty = false;
    while d < rank {
        if dims[d] < 0 {
            return Err(TpuError::BadDimension { dim: d });
        }
        empty |= dims[d] == 0;
        d += 1;
    }
    if empty && extent_overflows(ty, dims) {
        return Err(TpuError::ExtentOverflow);
    }
    let pack = if bits < 32 { 32 / bits as i64 } else { 1 };
    let packed = bits < 8;
    let mut m2m = [0i64; MAX_RANK];
    let mut k = 0;
    while k < rank {
        m2m[k] = (rank - 1 - k) as i64;
        k += 1;
    }
    let m2m = m2m.split_at(rank).0;
    let mut layout = Layout::new(m2m);
    if rank == 0 {
        // One tile of 128 32-bit words.
        layout = layout.with_tiles(&[&[128 * pack]]);
    } else if empty {
        // No elements: no tiles.
    } else if rank == 1 {
        let cap = if 128 * pack > 1024 { 128 * pack } else { 1024 };
        let mut k = next_power_of_two(dims[0]);
        if k < 128 * pack {
            k = 128 * pack;
        }
        if k > cap {
            k = cap;
        }
        layout = if pack == 1 {
            layout.with_tiles(&[&[k]])
        } else {
            layout.with_tiles(&[&[k], &[128], &[pack, 1]])
        };
    } else {
        let (m, s) = minor_pair(bits, dims);
        let mut order = [0i64; MAX_RANK];
        order[0] = m as i64;
        order[1] = s as i64;
        let mut n = 2;
        let mut i = rank;
        while i > 0 {
            i -= 1;
            if i != m && i != s {
                order[n] = i as i64;
                n += 1;
            }
        }
        let rows = tile_rows(bits, dims[s] as u64) as i64;
        layout = Layout::new(order.split_at(rank).0);
        layout = if pack == 1 {
            layout.with_tiles(&[&[rows, 128]])
        } else {
            layout.with_tiles(&[&[rows, 128], &[pack, 1]])
        };
    }
    if packed {
        layout = layout.with_element_size_in_bits(bits as i64);
    }
    let out = ArrayShape::new(ty, dims).with_layout(layout);
    // XLA counts an allocation's bytes in int64; the padding can push an
    // array that passes validation (`pred[2^63-1]`) past it.
    match out.tiled() {
        Ok(t) if t.exact_bytes() <= MEASURED_BYTES => Ok(out),
        Ok(t) if t.exact_bytes() <= i64::MAX as u64 => Err(TpuError::PastMeasured),
        _ => Err(TpuError::TooLarge),
    }
}

/// `ShapeUtil::MakeValidatedShape`'s size check, which JAX's arrays pass
/// through: the element's byte width times each dimension in turn must
/// stay in int64 at every step, a later 0 notwithstanding (measured
/// against libtpu 0.0.52: `f32[2^61-1,0]` has a layout, `f32[2^61,0]` and
/// `c128[2^59,0]` abort it; docs/tpu-default-layouts.md).
const fn extent_overflows(ty: ElementType, dims: &[i64]) -> bool {
    let mut product: i64 = match ty.byte_width() {
        Some(w) => w as i64,
        None => return false,
    };
    let mut d = 0;
    while d < dims.len() {
        product = match product.checked_mul(dims[d]) {
            Some(p) => p,
            None => return true,
        };
        d += 1;
    }
    false
}

/// [`default_layout`] for a shape given without (or regardless of) its
/// layout: its element type and dimensions (bounds for bounded ones).
///
/// ```
/// use xla_layout_core::{ArrayShape, tpu};
/// let s = ArrayShape::parse("bf16[3,1000]").unwrap();
/// let t = tpu::default_layout_of(&s, tpu::Generation::V6e).unwrap();
/// assert_eq!(t.to_string(), "bf16[3,1000]{1,0:T(4,128)(2,1)}");
/// ```
pub const fn default_layout_of(
    shape: &ArrayShape,
    generation: Generation,
) -> Result<ArrayShape, TpuError> {
    let dims = shape.dims();
    let mut d = 0;
    while d < dims.len() {
        if dims[d] == crate::UNBOUNDED {
            return Err(TpuError::BadDimension { dim: d });
        }
        d += 1;
    }
    match default_layout(shape.element_type(), dims, generation) {
        // Keep bounded dimensions bounded.
        Ok(out) => {
            let mut written = [crate::Dim::Static(0); MAX_RANK];
            let mut d = 0;
            while d < dims.len() {
                written[d] = shape.dim(d);
                d += 1;
            }
            let layout = out.layout_or_default();
            Ok(
                ArrayShape::from_dims(shape.element_type(), written.split_at(dims.len()).0)
                    .with_layout(layout),
            )
        }
        Err(e) => Err(e),
    }
}

/// Why a `tpu(SHAPE)` request gives no layout.
///
/// ```
/// use xla_layout_core::tpu::{RequestError, parse_request};
/// let err = |t| parse_request(t).unwrap().unwrap_err();
/// assert_eq!(err("tpu(f32[4], v9)"), RequestError::UnknownGeneration);
/// assert_eq!(err("tpu((f32[4], s32[]))"), RequestError::NotAnArray);
/// assert_eq!(err("tpu(f32[4]"), RequestError::Unclosed);
/// assert_eq!(err("tpu(f32[4]) junk"), RequestError::Trailing);
/// assert_eq!(
///     err("tpu(f32[4], v9)").to_string(),
///     "after the shape comes a TPU generation: v4, v5e, v5p or v6e"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RequestError {
    /// The shape inside does not parse.
    Parse(crate::text::ParseError),
    /// The shape inside has a layout: `tpu(...)` chooses it.
    LayoutWritten,
    /// The shape is not an array.
    NotAnArray,
    /// No default layout (see [`TpuError`]).
    Tpu(TpuError),
    /// After the shape, something other than a generation name.
    UnknownGeneration,
    /// `tpu(` without its closing `)`.
    Unclosed,
    /// Text after the `)` that closes `tpu(`.
    Trailing,
}

impl core::fmt::Display for RequestError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            RequestError::Parse(e) => write!(f, "{e}"),
            _ => self.message().fmt(f),
        }
    }
}

impl RequestError {
    /// The failure in words a person can act on, for `src` (the request's
    /// text): a parse error as [`crate::text::ParseError::explain`] says
    /// it, the others as `Display` does.
    ///
    /// ```
    /// use xla_layout_core::tpu::parse_request;
    /// let e = parse_request("tpu(f33[2])").unwrap().unwrap_err();
    /// assert_eq!(e.explain("tpu(f33[2])").to_string(), "unknown element type `f33`; did you mean `f32`? (at byte 4)");
    /// ```
    pub fn explain<'a>(
        &'a self,
        src: &'a (impl AsRef<[u8]> + ?Sized),
    ) -> impl core::fmt::Display + 'a {
        core::fmt::from_fn(move |f| match self {
            RequestError::Parse(e) => write!(f, "{}", e.explain(src)),
            other => write!(f, "{other}"),
        })
    }

    /// The message without a byte offset, for callers that show where
    /// another way (a span over the text); `Display` adds ` (at byte N)`
    /// to a parse error's.
    ///
    /// ```
    /// use xla_layout_core::tpu::parse_request;
    /// let e = parse_request("tpu(f32[2,])").unwrap().unwrap_err();
    /// assert_eq!(e.message().to_string(), "expects integer");
    /// assert_eq!(e.to_string(), "expects integer (at byte 10)");
    /// ```
    pub fn message(&self) -> impl core::fmt::Display + '_ {
        core::fmt::from_fn(move |f| match self {
            RequestError::Parse(e) => write!(f, "{}", e.kind()),
            RequestError::LayoutWritten => f.write_str(
                "the shape has a layout; the TPU default is asked for a shape written without one",
            ),
            RequestError::NotAnArray => f.write_str("TPU default layouts are for array shapes"),
            RequestError::Tpu(e) => write!(f, "{e}"),
            RequestError::UnknownGeneration => {
                write!(
                    f,
                    "after the shape comes a TPU generation: {}",
                    Generation::NAMES
                )
            }
            RequestError::Unclosed => f.write_str("`tpu(` is not closed: expected `)` at the end"),
            RequestError::Trailing => {
                f.write_str("text follows the `)` that closes `tpu(`: nothing may come after it")
            }
        })
    }
}

impl RequestError {
    /// `Display`'s text, with what a parse error quotes from `src` (the
    /// request's text: XLA prints the layout a `P(...)` is refused in).
    ///
    /// ```
    /// use xla_layout_core::tpu::parse_request;
    /// let text = "tpu((f32[4]{0:P(f32[4])}))";
    /// let e = parse_request(text).unwrap().unwrap_err();
    /// assert_eq!(
    ///     e.with_source(text).to_string(),
    ///     "Layout has physical shape, but is not for a sparse array: {0:P(f32[4]{0})} (at byte 24)"
    /// );
    /// ```
    pub fn with_source<'a>(&'a self, src: &'a str) -> impl core::fmt::Display + 'a {
        core::fmt::from_fn(move |f| match self {
            RequestError::Parse(e) => write!(f, "{}", e.with_source(src)),
            _ => write!(f, "{self}"),
        })
    }

    /// [`RequestError::message`], with what a parse error quotes from
    /// `src` (see [`RequestError::with_source`]).
    ///
    /// ```
    /// use xla_layout_core::tpu::parse_request;
    /// let text = "tpu((f32[4]{0:P(f32[4])}))";
    /// let e = parse_request(text).unwrap().unwrap_err();
    /// assert!(e.message_in(text).to_string().ends_with("array: {0:P(f32[4]{0})}"));
    /// ```
    pub fn message_in<'a>(&'a self, src: &'a str) -> impl core::fmt::Display + 'a {
        core::fmt::from_fn(move |f| match self {
            RequestError::Parse(e) => write!(f, "{}", e.primary().message(src)),
            _ => write!(f, "{}", self.message()),
        })
    }
}

impl core::error::Error for RequestError {}

/// Reads `tpu(SHAPE)` or `tpu(SHAPE, GENERATION)` (default v5e), the form
/// `explain` and `layout!` take for "the layout a TPU gives SHAPE":
/// `None` when `text` is not of that form, else the shape with its
/// default layout.
///
/// ```
/// use xla_layout_core::tpu;
/// let s = tpu::parse_request("tpu(bf16[3,1000])").unwrap().unwrap();
/// assert_eq!(s.to_string(), "bf16[3,1000]{1,0:T(4,128)(2,1)}");
/// assert!(tpu::parse_request("tpu(f32[4], v4)").unwrap().is_ok());
/// assert!(tpu::parse_request("tpu(f32[4]{0})").unwrap().is_err()); // the layout is the answer
/// assert!(tpu::parse_request("f32[4]").is_none());
/// assert!(tpu::parse_request("tpu(f32[4]").unwrap().is_err()); // `)` missing
/// ```
pub fn parse_request(text: &str) -> Option<Result<ArrayShape, RequestError>> {
    let inner = text.trim().strip_prefix("tpu")?.trim_start();
    let inner = inner.strip_prefix('(')?;
    let Some(inner) = inner.strip_suffix(')') else {
        // Closed before the end (`tpu(f32[3]) junk`), or not at all.
        return Some(Err(if closes_before_end(inner) {
            RequestError::Trailing
        } else {
            RequestError::Unclosed
        }));
    };
    // Parse errors count bytes from the start of `text`, not of `inner`.
    let at = inner.as_ptr() as usize - text.as_ptr() as usize;
    Some(request(inner).map_err(|e| match e {
        RequestError::Parse(e) => RequestError::Parse(e.shifted(at)),
        other => other,
    }))
}

/// Whether a `)` outside every bracket of `inner` (the text after
/// `tpu(`) closes it before the text ends.
fn closes_before_end(inner: &str) -> bool {
    let mut depth = 0usize;
    for b in inner.bytes() {
        match b {
            b'(' | b'[' | b'{' => depth += 1,
            b')' if depth == 0 => return true,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

fn request(inner: &str) -> Result<ArrayShape, RequestError> {
    // A generation, if any, follows the shape's last comma; a shape never
    // ends in a name.
    // A generation is a bare name (`v5e`); anything else after the last
    // comma (`x]` of `f32[3,x]`) belongs to the shape, whose parse says
    // what is wrong with it.
    let name = |t: &str| {
        t.starts_with(|c: char| c.is_ascii_alphabetic())
            && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let (shape_text, generation) = match inner.rsplit_once(',') {
        Some((shape, last)) if name(last.trim()) => (
            shape,
            Generation::from_name(last.trim()).ok_or(RequestError::UnknownGeneration)?,
        ),
        _ => (inner, Generation::DEFAULT),
    };
    default_layout_for(shape_text, generation)
}

/// The default layout for shape text written without a layout
/// (`bf16[3,1000]`), on `generation`.
///
/// ```
/// use xla_layout_core::tpu::{Generation, RequestError, default_layout_for};
/// let s = default_layout_for("pred[1,5]", Generation::V4).unwrap();
/// assert_eq!(s.to_string(), "pred[1,5]{1,0:T(4,128)(4,1)}");
/// assert_eq!(default_layout_for("f32[2]{0}", Generation::V4), Err(RequestError::LayoutWritten));
/// ```
pub fn default_layout_for(
    shape_text: &str,
    generation: Generation,
) -> Result<ArrayShape, RequestError> {
    // JAX's `Format(layout=None)` chooses no layout: the shape alone.
    // Its `Layout(...)` is a layout written, as `{...}` is.
    let shape_text = match crate::text::jax_format_without_layout(shape_text) {
        Some(Ok(shape)) => shape,
        // Not closed at the end: the parse below says where.
        Some(Err(_)) => shape_text,
        None if crate::text::parse_array_with_jax_layout(shape_text).is_some() => {
            return Err(RequestError::LayoutWritten);
        }
        None => shape_text,
    };
    let bytes = shape_text.as_bytes();
    if crate::text::shape_spans(bytes).layout.is_some() {
        return Err(RequestError::LayoutWritten);
    }
    let shape = match crate::text::parse_shape(bytes) {
        Ok(crate::Shape::Array(a)) => a,
        Ok(_) => return Err(RequestError::NotAnArray),
        Err(e) => return Err(RequestError::Parse(e)),
    };
    default_layout_of(&shape, generation).map_err(RequestError::Tpu)
}

/// The smallest power of two at or above `n` (`n ≥ 1`), saturating.
const fn next_power_of_two(n: i64) -> i64 {
    let mut p: i64 = 1;
    while p < n {
        p = match p.checked_mul(2) {
            Some(v) => v,
            None => return i64::MAX,
        };
    }
    p
}

/// Rows of the ordinary tile for a second-minor dimension of size `s`.
const fn base_rows(bits: u32, s: u64) -> u64 {
    match bits {
        32.. => match s {
            0..=1 => 1,
            2 => 2,
            3..=4 => 4,
            _ => 8,
        },
        16 => match s {
            0..=2 => 2,
            3..=4 => 4,
            _ => 8,
        },
        8 => {
            if s <= 4 {
                4
            } else {
                8
            }
        }
        4 => 8,
        2 => 16,
        _ => 32,
    }
}

/// Rows of the tile actually used: a packed type whose second-minor size
/// is a whole number of 32-bit `(8,128)` tiles' worth takes that.
const fn tile_rows(bits: u32, s: u64) -> u64 {
    let whole = match bits {
        8 => 32,
        4 => 64,
        2 => 128,
        1 => 256,
        _ => 0,
    };
    if whole != 0 && s > 4 && s.is_multiple_of(whole) {
        whole
    } else {
        base_rows(bits, s)
    }
}

/// `⌈x / m⌉ · m` in 128 bits (no overflow for any dimension).
const fn round_up(x: u64, m: u64) -> u128 {
    (x as u128).div_ceil(m as u128) * m as u128
}

/// `a · b` as 256 bits, `(high, low)`.
const fn mul_wide(a: u128, b: u128) -> (u128, u128) {
    let mask = u64::MAX as u128;
    let (a1, a0) = (a >> 64, a & mask);
    let (b1, b0) = (b >> 64, b & mask);
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    let mid = (p00 >> 64) + (p01 & mask) + (p10 & mask);
    let low = (p00 & mask) | (mid << 64);
    let high = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
    (high, low)
}

/// How much a (minor, second-minor) pair wastes, as a comparable key:
/// the fraction of the padded `m × s` block that is data (second-minor
/// padding counted in steps of at most 8 rows), then whether the pair
/// needs no padding at all under its real tile (this only decides for
/// 1- and 2-bit types, whose tiles are taller than 8 rows).
#[derive(Clone, Copy)]
struct Score {
    data: u128,
    padded: u128,
    exact: bool,
}

impl Score {
    const fn of(bits: u32, dm: u64, ds: u64) -> Score {
        let rows = base_rows(bits, ds);
        let step = if rows < 8 { rows } else { 8 };
        Score {
            data: dm as u128 * ds as u128,
            padded: round_up(dm, 128) * round_up(ds, step),
            exact: dm.is_multiple_of(128) && ds.is_multiple_of(rows),
        }
    }

    /// Strictly better than `other`.
    const fn beats(&self, other: &Score) -> bool {
        // data/padded vs other.data/other.padded, exactly.
        let (lh, ll) = mul_wide(self.data, other.padded);
        let (rh, rl) = mul_wide(other.data, self.padded);
        if lh != rh {
            return lh > rh;
        }
        if ll != rl {
            return ll > rl;
        }
        self.exact && !other.exact
    }
}

/// The dimensions that become minor-most and second-minor: the best
/// score, ties going to the most-minor candidates (so an unpadded shape
/// keeps its row-major order).
const fn minor_pair(bits: u32, dims: &[i64]) -> (usize, usize) {
    let n = dims.len();
    let mut best = (n - 1, n - 2);
    let mut best_score = Score::of(bits, dims[n - 1] as u64, dims[n - 2] as u64);
    let mut m = n;
    while m > 0 {
        m -= 1;
        let mut s = n;
        while s > 0 {
            s -= 1;
            if s != m {
                let score = Score::of(bits, dims[m] as u64, dims[s] as u64);
                if score.beats(&best_score) {
                    best = (m, s);
                    best_score = score;
                }
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_products_are_exact() {
        let big = u128::MAX;
        assert_eq!(mul_wide(big, big), (big - 1, 1));
        assert_eq!(mul_wide(1 << 64, 1 << 64), (1, 0));
        assert_eq!(mul_wide(3, 5), (0, 15));
    }
}
