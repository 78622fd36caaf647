//! Elements as bits: reading and writing a value of any width at any bit
//! position, and moving one element between two storage widths. XLA packs
//! sub-byte elements from the least significant bit of each byte, so bit
//! `b` of a buffer is bit `b % 8` of byte `b / 8`. Views, relayout and the
//! command-line tool all move packed data through this module.

use crate::ElementType;

/// The widest value an element holds: `c128`.
pub const MAX_VALUE_BITS: u32 = 128;

/// Up to 64 bits at bit `bit` of `bytes`.
///
/// Post-condition: bits above `width` are 0.
///
/// # Panics
/// If the bits are not all inside `bytes` (callers bound them by the
/// layout's size).
#[inline]
fn read_u64(bytes: &[u8], bit: u64, width: u32) -> u64 {
    debug_assert!(width <= 64);
    if width == 0 {
        return 0;
    }
    let (first, shift) = ((bit / 8) as usize, (bit % 8) as u32);
    let n = (shift + width).div_ceil(8) as usize;
    let mut window: u128 = 0;
    for (k, &b) in bytes[first..first + n].iter().enumerate() {
        window |= u128::from(b) << (8 * k);
    }
    ((window >> shift) & (u128::MAX >> (128 - width))) as u64
}

/// Writes the low `width` (at most 64) bits of `value` at bit `bit`,
/// keeping every other bit of `bytes`.
///
/// # Panics
/// As [`read_u64`].
#[inline]
fn write_u64(bytes: &mut [u8], bit: u64, width: u32, value: u64) {
    debug_assert!(width <= 64);
    if width == 0 {
        return;
    }
    let (first, shift) = ((bit / 8) as usize, (bit % 8) as u32);
    let n = (shift + width).div_ceil(8) as usize;
    let mask = (u128::MAX >> (128 - width)) << shift;
    let v = (u128::from(value) << shift) & mask;
    for (k, b) in bytes[first..first + n].iter_mut().enumerate() {
        let m = (mask >> (8 * k)) as u8;
        *b = (*b & !m) | ((v >> (8 * k)) as u8 & m);
    }
}

/// `width` bits (at most 128) at bit `bit` of `bytes`, least significant
/// first.
///
/// Post-condition: bits above `width` are 0.
///
/// ```
/// use xla_layout_core::bits::read_bits;
/// let bytes = [0x21u8, 0xF3];                       // s4 values 1, 2, 3, -1
/// assert_eq!(read_bits(&bytes, 4, 4), 2);
/// assert_eq!(read_bits(&bytes, 12, 4), 0xF);
/// assert_eq!(read_bits(&bytes, 0, 16), 0xF321);
/// ```
///
/// # Panics
/// If `width > 128` or the bits are not all inside `bytes`.
pub fn read_bits(bytes: &[u8], bit: u64, width: u32) -> u128 {
    assert!(width <= MAX_VALUE_BITS, "at most 128 bits at a time");
    let low = read_u64(bytes, bit, width.min(64));
    let high = read_u64(bytes, bit + 64, width.saturating_sub(64));
    u128::from(low) | (u128::from(high) << 64)
}

/// Writes the low `width` bits (at most 128) of `value` at bit `bit`,
/// keeping every other bit of `bytes`.
///
/// ```
/// use xla_layout_core::bits::write_bits;
/// let mut bytes = [0u8; 2];
/// write_bits(&mut bytes, 4, 4, 0xF);                // element 1 of an s4 array := -1
/// assert_eq!(bytes, [0xF0, 0]);
/// ```
///
/// # Panics
/// As [`read_bits`].
pub fn write_bits(bytes: &mut [u8], bit: u64, width: u32, value: u128) {
    assert!(width <= MAX_VALUE_BITS, "at most 128 bits at a time");
    write_u64(bytes, bit, width.min(64), value as u64);
    write_u64(
        bytes,
        bit + 64,
        width.saturating_sub(64),
        (value >> 64) as u64,
    );
}

/// `value`'s low `width` bits as a two's-complement number, extended to
/// 128 bits (bit `width − 1` copied upwards); `width` 0 gives 0.
///
/// ```
/// use xla_layout_core::bits::sign_extend;
/// assert_eq!(sign_extend(0b1110, 4) as i128, -2);
/// assert_eq!(sign_extend(0b0110, 4) as i128, 6);
/// assert_eq!(sign_extend(0xFFFF_0001, 16) as i128, 1);
/// ```
pub const fn sign_extend(value: u128, width: u32) -> u128 {
    if width == 0 {
        return 0;
    }
    if width >= 128 {
        return value;
    }
    let shift = 128 - width;
    (((value << shift) as i128) >> shift) as u128
}

/// The value in a slot of `slot_bits` bits at bit `bit` of `bytes`, for an
/// element of type `ty`: the low `min(slot_bits, bit width of ty)` bits,
/// sign-extended to 128 bits for signed integer types, zero-extended
/// otherwise.
///
/// ```
/// use xla_layout_core::ElementType;
/// use xla_layout_core::bits::read_value;
/// // s8 stored in 4-bit slots (`E(4)`): the nibble is the value.
/// assert_eq!(read_value(&[0xE0], 4, 4, ElementType::S8) as i128, -2);
/// assert_eq!(read_value(&[0xE0], 4, 4, ElementType::U8), 14);
/// ```
///
/// # Panics
/// As [`read_bits`].
pub fn read_value(bytes: &[u8], bit: u64, slot_bits: u64, ty: ElementType) -> u128 {
    let width = value_bits(ty, slot_bits);
    let raw = read_bits(bytes, bit, width);
    if ty.is_signed_integral() {
        sign_extend(raw, width)
    } else {
        raw
    }
}

/// Whether an element's bits `bits` (as [`crate::Element::encode`] gives
/// them) come back from a slot of `slot_bits` as [`read_value`] reads it:
/// no bit that matters is cut off (a signed value keeps its sign from the
/// slot's top bit).
///
/// ```
/// use xla_layout_core::{ElementType, bits::holds_value};
/// assert!(holds_value(0b1111, 4, ElementType::S8) == false); // 15 is not -1
/// assert!(holds_value(0xFF, 4, ElementType::S8));           // -1 is
/// assert!(!holds_value(0x3FC0_0000, 7, ElementType::F32));  // 1.5 in 7 bits
/// ```
pub const fn holds_value(bits: u128, slot_bits: u64, ty: ElementType) -> bool {
    let width = value_bits(ty, slot_bits);
    let natural = value_bits(ty, MAX_VALUE_BITS as u64);
    if ty.is_signed_integral() {
        sign_extend(bits, width) == sign_extend(bits, natural)
    } else {
        width >= 128 || bits >> width == 0
    }
}

/// The low `width` bits set (`width` ≤ 128).
const fn low_mask(width: u32) -> u128 {
    if width >= 128 {
        u128::MAX
    } else {
        (1 << width) - 1
    }
}

/// Bits of a slot that carry the value: the type's width, or fewer when
/// the slot is narrower.
const fn value_bits(ty: ElementType, slot_bits: u64) -> u32 {
    let natural = match ty.bit_width() {
        Some(w) => w,
        None => MAX_VALUE_BITS,
    };
    if slot_bits < natural as u64 {
        slot_bits as u32
    } else {
        natural
    }
}

/// How one element's bits move from a slot of one storage width to a slot
/// of another, for one element type.
///
/// Equal widths copy every bit of the slot as it is (lossless, whatever
/// the storage holds beyond the value). Different widths carry the value:
/// its bits in the type's own width (two's complement for signed types;
/// cut to the slot when the slot is narrower, which callers refuse where
/// it changes a value: [`Mover::fits`]), and zeros in the rest of
/// the destination slot — as XLA's own unpacking of `s4`/`u4`/`s2`/`u2`
/// to one per byte leaves them (`UnpackIntN`), as ml_dtypes stores them,
/// and as the bit views write them.
///
/// ```
/// use xla_layout_core::ElementType;
/// use xla_layout_core::bits::{read_value, Mover};
/// // s4 packed two to a byte → one per byte: 3 and -2 (0xE) in the low nibble.
/// let m = Mover::new(ElementType::S4, 4, 8);
/// let mut out = [0xFFu8; 2];
/// m.move_element(&[0xE3], 0, &mut out, 0);
/// m.move_element(&[0xE3], 1, &mut out, 1);
/// assert_eq!(out, [0x03, 0x0E]);
/// assert_eq!(read_value(&out, 8, 8, ElementType::S4) as i128, -2);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mover {
    ty: ElementType,
    src_bits: u64,
    dst_bits: u64,
}

impl Mover {
    /// A mover for `ty` from slots of `src_bits` to slots of `dst_bits`.
    pub const fn new(ty: ElementType, src_bits: u64, dst_bits: u64) -> Mover {
        Mover {
            ty,
            src_bits,
            dst_bits,
        }
    }

    /// Whether the destination slot is narrower than the bits a source
    /// slot's value can have (the type's width, or the source slot's when
    /// narrower): then a value may not survive the move, and
    /// [`Mover::fits`] tells which do. Equal widths never cut (they copy
    /// the slot as it is).
    ///
    /// ```
    /// use xla_layout_core::{ElementType, bits::Mover};
    /// assert!(Mover::new(ElementType::F32, 32, 16).cuts());
    /// assert!(Mover::new(ElementType::S4, 4, 2).cuts());
    /// assert!(!Mover::new(ElementType::S4, 8, 4).cuts()); // s4 needs 4 bits of its byte
    /// assert!(!Mover::new(ElementType::S4, 4, 8).cuts());
    /// ```
    pub const fn cuts(&self) -> bool {
        self.src_bits != self.dst_bits && self.dst_bits < value_bits(self.ty, self.src_bits) as u64
    }

    /// Whether the element in slot `s` of `src` reads back as the same
    /// value once moved ([`holds_value`] in the destination's width):
    /// always, unless the mover [cuts](Mover::cuts).
    ///
    /// ```
    /// use xla_layout_core::{ElementType, bits::Mover};
    /// let m = Mover::new(ElementType::S4, 4, 2);       // s4 into 2-bit slots
    /// assert!(m.fits(&[0xF1], 0) && m.fits(&[0xF1], 1)); // 1 and -1
    /// assert!(!m.fits(&[0x07], 0));                      // 7 needs 4 bits
    /// ```
    ///
    /// # Panics
    /// As [`Mover::move_element`].
    pub fn fits(&self, src: &[u8], s: u64) -> bool {
        if !self.cuts() {
            return true;
        }
        let from = s
            .checked_mul(self.src_bits)
            .expect("bit positions fit in 64 bits for buffers that fit in memory");
        let value = read_value(src, from, self.src_bits, self.ty);
        holds_value(value, self.dst_bits, self.ty)
    }

    /// Moves the element in slot `s` of `src` to slot `d` of `dst`,
    /// leaving every other bit of `dst` as it was.
    ///
    /// # Panics
    /// If either slot's bits are not inside its buffer, or a bit position
    /// does not fit in 64 bits (callers check the layouts' sizes).
    pub fn move_element(&self, src: &[u8], s: u64, dst: &mut [u8], d: u64) {
        let at = |slot: u64, bits: u64| {
            slot.checked_mul(bits)
                .expect("bit positions fit in 64 bits for buffers that fit in memory")
        };
        let (from, to) = (at(s, self.src_bits), at(d, self.dst_bits));
        if self.src_bits == self.dst_bits {
            let mut k = 0;
            while k < self.src_bits {
                let width = (self.src_bits - k).min(64) as u32;
                write_u64(dst, to + k, width, read_u64(src, from + k, width));
                k += 64;
            }
            return;
        }
        // The value in the type's own width; above it, zeros.
        let natural = value_bits(self.ty, MAX_VALUE_BITS as u64);
        let value = read_value(src, from, self.src_bits, self.ty) & low_mask(natural);
        let mut k = 0;
        while k < self.dst_bits {
            let width = (self.dst_bits - k).min(64) as u32;
            let chunk = match k {
                0 => value as u64,
                64 => (value >> 64) as u64,
                _ => 0,
            };
            write_u64(dst, to + k, width, chunk);
            k += 64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bit `b` of a buffer, by the definition.
    fn bit(bytes: &[u8], b: u64) -> u8 {
        (bytes[(b / 8) as usize] >> (b % 8)) & 1
    }

    proptest::proptest! {
        /// Writing then reading any width at any position gives the value
        /// back and changes no other bit.
        #[test]
        fn write_then_read(
            start in proptest::collection::vec(proptest::prelude::any::<u8>(), 20),
            at in 0u64..24,
            width in 0u32..=128,
            value in proptest::prelude::any::<u128>(),
        ) {
            let mut bytes = start.clone();
            write_bits(&mut bytes, at, width, value);
            let mask = if width == 128 { u128::MAX } else { (1u128 << width) - 1 };
            proptest::prop_assert_eq!(read_bits(&bytes, at, width), value & mask);
            for b in 0..8 * start.len() as u64 {
                if b < at || b >= at + u64::from(width) {
                    proptest::prop_assert_eq!(bit(&bytes, b), bit(&start, b));
                } else {
                    proptest::prop_assert_eq!(u128::from(bit(&bytes, b)), (value >> (b - at)) & 1);
                }
            }
        }

        /// A moved value reads back as the same number, for every width
        /// pair of a signed and an unsigned type, beyond 128 bits too.
        #[test]
        fn moved_values_keep_their_number(
            value in -8i128..8,
            src_bits in 4u64..=200,
            dst_bits in 4u64..=200,
        ) {
            for (ty, v) in [(ElementType::S4, value), (ElementType::U4, value & 0xF)] {
                let m = Mover::new(ty, src_bits, dst_bits);
                let mut src = vec![0u8; 52];
                write_bits(&mut src, src_bits, 4, v as u128);
                if ty == ElementType::S4 {
                    // Wider slots hold the value sign-extended.
                    for k in 4..src_bits {
                        let b = if k < 128 { (v as u128 >> k) & 1 } else { u128::from(v < 0) };
                        write_bits(&mut src, src_bits + k, 1, b);
                    }
                }
                let mut dst = vec![0x55u8; 52];
                m.move_element(&src, 1, &mut dst, 1);
                // Equal widths: the slot's bits as they were. Otherwise the
                // value's 4 bits, zeros above them (XLA's UnpackIntN).
                let got = read_bits(&dst, dst_bits, dst_bits.min(128) as u32);
                let want = if src_bits == dst_bits {
                    read_bits(&src, src_bits, src_bits.min(128) as u32)
                } else {
                    v as u128 & 0xF
                };
                proptest::prop_assert_eq!(got, want, "{:?} {} -> {}", ty, src_bits, dst_bits);
                proptest::prop_assert_eq!(read_value(&dst, dst_bits, dst_bits, ty) as i128, v);
                // Slot 0 and everything after slot 1 are untouched.
                for b in (0..dst_bits).chain(2 * dst_bits..8 * 52) {
                    proptest::prop_assert_eq!(bit(&dst, b), bit(&[0x55], b % 8));
                }
                // Beyond 128 bits: the source's bits, or zeros.
                for b in 128..dst_bits {
                    let want = if src_bits == dst_bits { bit(&src, src_bits + b) } else { 0 };
                    proptest::prop_assert_eq!(bit(&dst, dst_bits + b), want);
                }
            }
        }
    }
}
