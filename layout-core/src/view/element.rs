//! Rust types that hold XLA elements.

use crate::ElementType as T;
use crate::{ElementType, ElementTypes};

/// A Rust type that can hold elements of some XLA element types.
///
/// Slices of it can be viewed through a layout whose slots are exactly
/// `BITS` wide ([`crate::View`]); any element, packed or not, can be read
/// from and written to bytes through it ([`crate::BitsView`]).
///
/// Implemented for the integer and float primitives (each for its own XLA
/// type, the unsigned ones also as raw bits of any type of their width),
/// `i8`/`u8` for the sub-byte integer types (in the bit views: XLA leaves
/// the upper bits of their bytes unspecified), `bool` for `pred`, and with
/// features: `half::bf16`, `half::f16` (`half`); `float8::F8E4M3` for
/// `f8e4m3fn`, `float8::F8E5M2` (`float8`); `num_complex::Complex<f32>`
/// for `c64`, `Complex<f64>` for `c128` (`num-complex`).
///
/// Views move bits unchanged: a value means to XLA what its bits mean in
/// XLA's type. float8 0.7's own constants and conversions differ from
/// XLA's types at the edges (its `F8E5M2::INFINITY` is bits `0x7B`, XLA's
/// 57344; its `F8E4M3::INFINITY` is `0x7E`, `f8e4m3fn`'s 448, a type with
/// no infinity): build such values from bits or from finite numbers.
///
/// ```
/// use xla_layout_core::{Element, ElementType};
/// assert!(f32::HOLDS.contains(ElementType::F32));
/// assert!(u16::HOLDS.contains(ElementType::BF16)); // raw bits
/// assert!(i8::HOLDS.contains(ElementType::S4));
/// assert!(!i32::HOLDS.contains(ElementType::F32));
/// assert_eq!(i8::decode(0b1110, ElementType::S4), -2); // sign-extended from 4 bits
/// ```
pub trait Element: Copy + 'static {
    /// Bits of the Rust type's storage.
    ///
    /// ```
    /// use xla_layout_core::Element;
    /// assert_eq!(<f32 as Element>::BITS, 32);
    /// assert_eq!(<bool as Element>::BITS, 8); // pred's byte
    /// ```
    const BITS: u32;
    /// The element types values of this type stand for. A constant, so
    /// that a view of a `layout!` type with a Rust type that does not
    /// hold its elements fails to compile; the one answer every view asks.
    ///
    /// ```
    /// use xla_layout_core::{Element, ElementType};
    /// assert!(u8::HOLDS.contains(ElementType::F8E4M3FN)); // raw bits of a one-byte type
    /// assert!(i8::HOLDS.contains(ElementType::S4) && !i8::HOLDS.contains(ElementType::U4));
    /// assert!(!f64::HOLDS.contains(ElementType::S64));
    /// ```
    const HOLDS: ElementTypes;
    /// The value from the element's bits: the low `bit_width(ty)` bits
    /// (bit views pass them sign-extended from narrower storage, such as
    /// `E(4)` on `s8`).
    ///
    /// ```
    /// use xla_layout_core::{Element, ElementType};
    /// assert_eq!(i8::decode(0b1111, ElementType::S4), -1);
    /// assert_eq!(u8::decode(0b1111, ElementType::U4), 15);
    /// assert_eq!(f32::decode(0x3F80_0000, ElementType::F32), 1.0);
    /// ```
    fn decode(bits: u128, ty: ElementType) -> Self;
    /// The element's bits.
    ///
    /// ```
    /// use xla_layout_core::{Element, ElementType};
    /// assert_eq!((-1i8).encode(ElementType::S4), 0b1111); // the type's 4 bits
    /// assert_eq!((-1i8).encode(ElementType::S8), 0xFF);
    /// assert_eq!(true.encode(ElementType::PRED), 1);
    /// ```
    fn encode(self, ty: ElementType) -> u128;
    /// Whether the value is one of `ty`'s ([`Element::encode`] keeps the
    /// type's width: a byte holding 8 for `s4` would come back as -8).
    /// Types whose bits are the element's bits hold only its values.
    ///
    /// ```
    /// use xla_layout_core::{Element, ElementType};
    /// assert!(7i8.fits(ElementType::S4) && (-8i8).fits(ElementType::S4));
    /// assert!(!8i8.fits(ElementType::S4));
    /// assert!(f32::NAN.fits(ElementType::F32));
    /// ```
    fn fits(self, ty: ElementType) -> bool {
        let _ = ty;
        true
    }
}

/// `value`'s bits for a slot of `slot_bits` bits of `ty`, or the error
/// when written there it would read back as another value (it is not one
/// of `ty`'s, or the slot's `E(n)` cuts bits that matter): what a bit
/// view's writes check before writing.
pub(crate) fn encode_into_slot<T: Element>(
    value: T,
    ty: ElementType,
    slot_bits: u64,
) -> Result<u128, crate::IndexError> {
    let encoded = value.encode(ty);
    match value.fits(ty) && crate::bits::holds_value(encoded, slot_bits, ty) {
        true => Ok(encoded),
        false => Err(crate::IndexError::ValueDoesNotFit {
            element_bits: slot_bits,
        }),
    }
}

/// Sign-extends the low `width` bits.
const fn sign_extend(bits: u128, width: u32) -> i128 {
    crate::bits::sign_extend(bits, width) as i128
}

const fn logical_bits(ty: ElementType) -> u32 {
    match ty.bit_width() {
        Some(b) => b,
        None => 128,
    }
}

/// What an integer primitive of `bits` bits holds: its own type `own`;
/// unsigned, the raw bits of any type of its width (bf16 as u16, f8 as
/// u8, …); a byte, the sub-byte integers of its signedness.
const fn native_holds(own: ElementType, bits: u32, signed: bool) -> ElementTypes {
    let mut set = ElementTypes::NONE.with(own);
    let mut i = 0;
    while i < ElementType::ALL.len() {
        let ty = ElementType::ALL[i];
        let raw =
            !signed && ty.is_array_type() && matches!(ty.byte_width(), Some(w) if w == bits / 8);
        let sub_byte =
            bits == 8 && ty.is_packable() && ty.is_signed_integral() == signed && ty.is_integral();
        if raw || sub_byte {
            set = set.with(ty);
        }
        i += 1;
    }
    set
}

macro_rules! native {
    ($($rust:ty => $xla:ident, signed: $signed:expr;)*) => {$(
        impl Element for $rust {
            const BITS: u32 = <$rust>::BITS;
            const HOLDS: ElementTypes = native_holds(T::$xla, <$rust>::BITS, $signed);
            fn decode(bits: u128, ty: ElementType) -> Self {
                let w = logical_bits(ty).min(Self::BITS);
                if $signed { sign_extend(bits, w) as $rust } else { (bits & (u128::MAX >> (128 - w))) as $rust }
            }
            fn encode(self, ty: ElementType) -> u128 {
                let w = logical_bits(ty).min(Self::BITS);
                (self as u128) & (u128::MAX >> (128 - w))
            }
            fn fits(self, ty: ElementType) -> bool {
                // The bits `encode` keeps give the value back.
                Self::decode(self.encode(ty), ty) == self
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

/// Types whose bits are the element's bits, each for one XLA type:
/// `rust type => XLA type, its bits as (unsigned integer, to, from)`.
/// Adding a type is one row.
macro_rules! same_bits {
    ($($(#[$cfg:meta])* $rust:ty => $xla:ident, $raw:ty, $to:expr, $from:expr;)*) => {$(
        $(#[$cfg])*
        impl Element for $rust {
            const BITS: u32 = <$raw>::BITS;
            const HOLDS: ElementTypes = ElementTypes::NONE.with(T::$xla);
            fn decode(bits: u128, _: ElementType) -> Self {
                let from: fn($raw) -> Self = $from;
                from(bits as $raw)
            }
            fn encode(self, _: ElementType) -> u128 {
                let to: fn(Self) -> $raw = $to;
                u128::from(to(self))
            }
        }
    )*};
}

same_bits! {
    f32 => F32, u32, f32::to_bits, f32::from_bits;
    f64 => F64, u64, f64::to_bits, f64::from_bits;
    bool => PRED, u8, u8::from, |b| b & 1 != 0;
    #[cfg(feature = "half")]
    half::bf16 => BF16, u16, half::bf16::to_bits, half::bf16::from_bits;
    #[cfg(feature = "half")]
    half::f16 => F16, u16, half::f16::to_bits, half::f16::from_bits;
    // float8's `F8E4M3` saturates to 448 and has no infinity: OCP's
    // E4M3FN, XLA's `f8e4m3fn` (the test in tests/model/interop.rs reads 448).
    #[cfg(feature = "float8")]
    float8::F8E4M3 => F8E4M3FN, u8, |x| x.to_bits(), float8::F8E4M3::from_bits;
    #[cfg(feature = "float8")]
    float8::F8E5M2 => F8E5M2, u8, |x| x.to_bits(), float8::F8E5M2::from_bits;
    // XLA stores a complex number as its real part, then its imaginary
    // part: the low half of the little-endian bits is the real part.
    #[cfg(feature = "num-complex")]
    num_complex::Complex<f32> => C64, u64,
        |c| u64::from(c.re.to_bits()) | (u64::from(c.im.to_bits()) << 32),
        |b| num_complex::Complex::new(f32::from_bits(b as u32), f32::from_bits((b >> 32) as u32));
    #[cfg(feature = "num-complex")]
    num_complex::Complex<f64> => C128, u128,
        |c| u128::from(c.re.to_bits()) | (u128::from(c.im.to_bits()) << 64),
        |b| num_complex::Complex::new(f64::from_bits(b as u64), f64::from_bits((b >> 64) as u64));
}
