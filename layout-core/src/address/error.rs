//! Errors of address arithmetic.

use core::fmt::{self, Display, Formatter};

use crate::ValidationErrorKind;

/// Why a shape's addresses or sizes cannot be computed.
///
/// ```
/// use xla_layout_core::{AddressError, ArrayShape};
///
/// let s: ArrayShape = "f32[?,4]".parse().unwrap();
/// assert_eq!(s.tiled().unwrap_err(), AddressError::UnboundedDimension { dim: 0 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AddressError {
    /// The shape fails validation, so its layout has no meaning
    /// ([`crate::ArrayShape::validate`] gives XLA's full message).
    Invalid(ValidationErrorKind),
    /// Dimension `dim` is unbounded (`?`): its size is not known.
    UnboundedDimension {
        /// The logical dimension.
        dim: usize,
    },
    /// A size does not fit in 64 bits.
    Overflow,
    /// XLA's function gives no meaningful value for this shape (e.g.
    /// `ArraySize` with a `*` tile entry, docs/xla-layouts.md §e).
    UndefinedInXla(&'static str),
}

impl Display for AddressError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            AddressError::Invalid(kind) => {
                write!(f, "the shape fails validation: {}", kind.hint())
            }
            AddressError::UnboundedDimension { dim } => {
                write!(
                    f,
                    "dimension {dim} is unbounded (`?`), so the layout has no fixed size"
                )
            }
            AddressError::Overflow => f.write_str("the size overflows 64-bit arithmetic"),
            AddressError::UndefinedInXla(why) => write!(f, "XLA's value is undefined here: {why}"),
        }
    }
}

impl core::error::Error for AddressError {}

/// Why a logical index or an offset was refused.
///
/// ```
/// use xla_layout_core::{ArrayShape, IndexError};
///
/// let t = "f32[3,5]{1,0}".parse::<ArrayShape>().unwrap().tiled().unwrap();
/// assert_eq!(t.offset(&[3, 0]), Err(IndexError::OutOfBounds { dim: 0, index: 3, size: 3 }));
/// assert_eq!(t.offset(&[1]), Err(IndexError::WrongRank { expected: 2, got: 1 }));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IndexError {
    /// The index has the wrong number of entries.
    WrongRank {
        /// The rank of the shape.
        expected: usize,
        /// Entries given.
        got: usize,
    },
    /// An entry is outside its dimension.
    OutOfBounds {
        /// The dimension.
        dim: usize,
        /// The entry.
        index: u64,
        /// The dimension's size.
        size: u64,
    },
    /// An offset at or beyond the allocation.
    OffsetOutOfRange {
        /// The offset.
        offset: u64,
        /// The allocated slots.
        slots: u64,
    },
    /// The element's bit offset (`slot · element_bits`) does not fit in
    /// 64 bits, though its slot does.
    BitOffsetOverflow {
        /// The element's slot.
        slot: u64,
        /// Storage bits per slot.
        element_bits: u64,
    },
    /// A value to write does not fit the element (its type, or its slot's
    /// `E(n)` bits): written, it would read back as another value.
    ValueDoesNotFit {
        /// Storage bits per slot.
        element_bits: u64,
    },
}

impl Display for IndexError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            IndexError::WrongRank { expected, got } => {
                write!(
                    f,
                    "index has {} but the shape has {}",
                    crate::joined::Counted(*got as u64, "entry", "entries"),
                    crate::joined::Counted(*expected as u64, "dimension", "dimensions")
                )
            }
            IndexError::OutOfBounds { dim, index, size } => {
                write!(
                    f,
                    "index {index} is out of bounds for dimension {dim} of size {size}"
                )
            }
            IndexError::OffsetOutOfRange { offset, slots } => {
                write!(f, "offset {offset} is outside the {slots} allocated slots")
            }
            IndexError::BitOffsetOverflow { slot, element_bits } => write!(
                f,
                "the bit offset of slot {slot} ({slot} × {element_bits} bits) does not fit in 64 bits"
            ),
            IndexError::ValueDoesNotFit { element_bits } => write!(
                f,
                "the value does not fit the element (its type in {element_bits}-bit slots): it would read back as another"
            ),
        }
    }
}

impl core::error::Error for IndexError {}
