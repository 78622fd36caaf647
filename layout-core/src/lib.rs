//! XLA's shapes, layouts and tiled layouts, exactly, in `no_std` Rust.
//!
//! ```
//! use xla_layout_core::ArrayShape;
//!
//! let s = ArrayShape::parse_validated("bf16[8,128]{1,0:T(8,128)(2,1)}").unwrap();
//! assert_eq!(s.to_string(), "bf16[8,128]{1,0:T(8,128)(2,1)}");
//! ```
//!
//! The crate follows XLA's pipeline, one module a step:
//!
//! * [`text`]: text → tokens ([`text::Lexer`]) → model ([`text::parse_shape`]),
//!   and the canonical printer (`Display`); readers of formats that embed
//!   shapes (HLO modules: `xla-layout-hlo`) parse them in place with
//!   [`text::parse_shape_at`] and its siblings.
//! * [`ArrayShape`], [`Layout`], [`Shape`]: the model, every field of XLA's.
//! * [`validate`]: XLA's validation rules, in order, with XLA's messages.
//!
//! * [`TiledShape`]: addresses and sizes; [`Relayout`]: copies between
//!   layouts; [`View`] and [`DynView`] (and their siblings): buffers read
//!   and written through a layout known at compile time or at run time.
//!
//! Without features the crate is `#![no_std]` and allocates nothing.
//! Features: `alloc` (tuple shapes, owned error text), `std`, `half`,
//! `float8`, `num-complex` (their types as elements), `ndarray` (views as
//! `ndarray` views; needs `alloc`), `serde` (shapes as XLA text), `bytemuck`
//! (views over raw bytes), `dlpack` (DLPack descriptors of strided views;
//! needs `std`), `rayon` (`Relayout::copy_parallel`; needs `std`). All but
//! `alloc`, `std`, `ndarray`, `dlpack` and `rayon` stay `no_std` without
//! allocation.
#![cfg_attr(not(test), no_std)]
// docs.rs (all features, `--cfg docsrs`): say which feature each item needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
// Without an allocator, errors carry their data inline (a copy of the
// offending array, XLA's recorded parse messages) so that they print XLA's
// exact text. They are cold; their size is the price of `no_std`.
#![allow(clippy::result_large_err, clippy::large_enum_variant)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

mod address;
mod const_eq;
mod const_message;
mod element_type;
mod inline_str;
mod interop;
mod joined;
mod limits;
mod model;
mod similar;
mod static_layout;
pub mod text;
pub mod tpu;
mod validate;
mod view;

pub use address::relayout::bits;
pub use address::{
    AddressError, Axis, Comparison, Coord, CoordName, CoordOp, Digit, DigitPair, Hierarchical,
    IndexError, MAX_COORDS, MAX_DIGITS, MAX_MODE_DEPTH, Mode, NotHierarchical, NotStrided, Padding,
    PerDim, Relayout, RelayoutError, Rounding, Slabs, TiledShape,
};
pub use element_type::{ElementType, ElementTypes, UnknownElementType};
pub use inline_str::InlineStr;
#[cfg(feature = "ndarray")]
pub use interop::NdarrayError;
#[cfg(feature = "dlpack")]
pub use interop::{Dlpack, DlpackError};
// The crates whose types appear in this one's API, at the versions it uses.
#[cfg(feature = "bytemuck")]
pub use bytemuck;
#[cfg(feature = "dlpack")]
pub use dlpark;
#[cfg(feature = "float8")]
pub use float8;
#[cfg(feature = "half")]
pub use half;
pub use limits::{
    COMBINE, Capacity, CapacityError, DEFAULT_MAX_DEPTH, MAX_PHYSICAL_DEPTH,
    MAX_PHYSICAL_SHAPE_TEXT, MAX_RANK, MAX_SPLIT_CONFIGS, MAX_SPLIT_INDICES, MAX_TILE_ENTRIES,
    MAX_TILES, UNBOUNDED,
};
pub use model::{
    ArrayShape, Dim, Layout, PhysicalShapeText, Shape, ShapeEvent, ShapeEvents, SpaceInfo,
    SpaceUse, SplitConfig, memory_space_name, space_info,
};
#[cfg(feature = "ndarray")]
pub use ndarray;
#[cfg(feature = "num-complex")]
pub use num_complex;
pub use static_layout::{Bound, Extent, Logical, MemorySpace, StaticLayout};
pub use text::{Error, GridError, OffsetGrid, Stage};
pub use validate::{
    Rule, ValidationError, ValidationErrorKind, ValidationErrors, validate, validate_array,
    validate_array_with_optional_layout, validate_with_optional_layout, validation_errors,
};
pub use view::{
    BitsView, BitsViewMut, DynBitsView, DynBitsViewMut, DynView, DynViewMut, Element, Indices,
    Lane, Physical, View, ViewError, ViewMut,
};

/// For the `xla-layout` facade's compile-time checks; not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use crate::const_eq::same_bytes;
    pub use crate::const_message::{MESSAGE, Part, append, fail, message};
}
