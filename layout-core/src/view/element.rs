//! Rust types that hold XLA elements.

use crate::ElementType;
use crate::ElementType as T;

/// A Rust type that can hold elements of some XLA element types.
///
/// Slices of it can be viewed through a layout whose slots are exactly
/// `BITS` wide ([`crate::View`]); any element, packed or not, can be read
/// from and written to bytes through it ([`crate::BitsView`]).
///
/// Implemented for the integer and float primitives (each for its own XLA
/// type, the unsigned ones also as raw bits of any type of their width),
/// `i8`/`u8` for the sub-byte integer types, `bool` for `pred`, and — with
/// the `half` feature — `half::bf16` and `half::f16`.
///
/// ```
/// use xla_layout_core::{Element, ElementType};
/// assert!(f32::holds(ElementType::F32));
/// assert!(u16::holds(ElementType::BF16)); // raw bits
/// assert!(i8::holds(ElementType::S4));
/// assert_eq!(i8::decode(0b1110, ElementType::S4), -2); // sign-extended from 4 bits
/// ```
pub trait Element: Copy + 'static {
    /// Bits of the Rust type's storage.
    const BITS: u32;
    /// Whether values of this type stand for elements of `ty`.
    fn holds(ty: ElementType) -> bool;
    /// The value from the element's bits: the low `bit_width(ty)` bits
    /// (bit views pass them sign-extended from narrower storage, such as
    /// `E(4)` on `s8`).
    fn decode(bits: u64, ty: ElementType) -> Self;
    /// The element's bits.
    fn encode(self, ty: ElementType) -> u64;
}

/// Sign-extends the low `width` bits.
const fn sign_extend(bits: u64, width: u32) -> i64 {
    crate::bits::sign_extend(bits as u128, width) as i64
}

const fn logical_bits(ty: ElementType) -> u32 {
    match ty.bit_width() {
        Some(b) => b,
        None => 64,
    }
}

macro_rules! native {
    ($($rust:ty => $xla:ident, signed: $signed:expr;)*) => {$(
        impl Element for $rust {
            const BITS: u32 = <$rust>::BITS;
            fn holds(ty: ElementType) -> bool {
                ty == T::$xla
                    // Unsigned integers also carry raw bits of any type of
                    // their width (bf16 as u16, f8 as u8, …).
                    || (!$signed && ty.is_array_type() && ty.byte_width() == Some(Self::BITS / 8))
                    // Bytes hold the sub-byte integers of their signedness.
                    || (Self::BITS == 8 && ty.is_packable() && ty.is_signed_integral() == $signed && ty.is_integral())
            }
            fn decode(bits: u64, ty: ElementType) -> Self {
                let w = logical_bits(ty).min(Self::BITS);
                if $signed { sign_extend(bits, w) as $rust } else { (bits & (u64::MAX >> (64 - w))) as $rust }
            }
            fn encode(self, ty: ElementType) -> u64 {
                let w = logical_bits(ty).min(Self::BITS);
                (self as u64) & (u64::MAX >> (64 - w))
            }
        }
    )*};
}

native! {
    u8 => U8, signed: false;
    u16 => U16, signed: false;
    u32 => U32, signed: false;
    u64 => U64, signed: false;
    i8 => S8, signed: true;
    i16 => S16, signed: true;
    i32 => S32, signed: true;
    i64 => S64, signed: true;
}

impl Element for f32 {
    const BITS: u32 = 32;
    fn holds(ty: ElementType) -> bool {
        ty == T::F32
    }
    fn decode(bits: u64, _: ElementType) -> Self {
        f32::from_bits(bits as u32)
    }
    fn encode(self, _: ElementType) -> u64 {
        u64::from(self.to_bits())
    }
}

impl Element for f64 {
    const BITS: u32 = 64;
    fn holds(ty: ElementType) -> bool {
        ty == T::F64
    }
    fn decode(bits: u64, _: ElementType) -> Self {
        f64::from_bits(bits)
    }
    fn encode(self, _: ElementType) -> u64 {
        self.to_bits()
    }
}

impl Element for bool {
    const BITS: u32 = 8;
    fn holds(ty: ElementType) -> bool {
        ty == T::PRED
    }
    fn decode(bits: u64, _: ElementType) -> Self {
        bits & 1 != 0
    }
    fn encode(self, _: ElementType) -> u64 {
        u64::from(self)
    }
}

#[cfg(feature = "half")]
impl Element for half::bf16 {
    const BITS: u32 = 16;
    fn holds(ty: ElementType) -> bool {
        ty == T::BF16
    }
    fn decode(bits: u64, _: ElementType) -> Self {
        half::bf16::from_bits(bits as u16)
    }
    fn encode(self, _: ElementType) -> u64 {
        u64::from(self.to_bits())
    }
}

#[cfg(feature = "half")]
impl Element for half::f16 {
    const BITS: u32 = 16;
    fn holds(ty: ElementType) -> bool {
        ty == T::F16
    }
    fn decode(bits: u64, _: ElementType) -> Self {
        half::f16::from_bits(bits as u16)
    }
    fn encode(self, _: ElementType) -> u64 {
        u64::from(self.to_bits())
    }
}
