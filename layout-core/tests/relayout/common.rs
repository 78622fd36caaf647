//! What the relayout modules share: a layout from its text, the expected
//! destination of a copy by the offset functions, and the element types
//! that carry source slot numbers.
#![cfg(feature = "std")]

use xla_layout_core::{ArrayShape, TiledShape};

/// The tiled form of a valid shape's text (panics with the text if not).
pub fn tiled(text: &str) -> TiledShape {
    ArrayShape::parse_validated(text)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
        .tiled()
        .unwrap()
}

/// For each destination slot, the source slot whose element belongs
/// there (`None` for padding), by the two layouts' offset functions.
pub fn expected(src: &TiledShape, dst: &TiledShape) -> Vec<Option<u32>> {
    let mut want = vec![None; dst.physical_slots() as usize];
    let dims = src.logical_dims();
    if dims.contains(&0) {
        return want;
    }
    let mut i = vec![0u64; dims.len()];
    loop {
        let d = dst.offset(&i).unwrap() as usize;
        assert!(want[d].is_none(), "two indices at destination slot {d}");
        want[d] = Some(u32::try_from(src.offset(&i).unwrap()).unwrap());
        let Some(k) = (0..dims.len()).rev().find(|&k| i[k] + 1 < dims[k]) else {
            return want;
        };
        i[k] += 1;
        i[k + 1..].fill(0);
    }
}

/// Element types of every width the kernels specialise on; each carries
/// `BYTES` bytes of a source slot number per copy, so that a few copies
/// together identify every slot exactly.
pub trait Unit: Copy + PartialEq + core::fmt::Debug {
    const BYTES: u32;
    fn from_bits(v: u32) -> Self;
}
impl Unit for u8 {
    const BYTES: u32 = 1;
    fn from_bits(v: u32) -> Self {
        v as u8
    }
}
impl Unit for u16 {
    const BYTES: u32 = 2;
    fn from_bits(v: u32) -> Self {
        v as u16
    }
}
impl Unit for u32 {
    const BYTES: u32 = 4;
    fn from_bits(v: u32) -> Self {
        v
    }
}
