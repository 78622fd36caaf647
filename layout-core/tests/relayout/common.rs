//! What the relayout modules share: a layout from its text, the host and
//! TPU texts of a tile format, the expected destination of a copy by the
//! offset functions, and the element types that carry source slot numbers.
#![cfg(feature = "std")]

use xla_layout_core::{ArrayShape, Relayout, TiledShape};

/// The tiled form of a valid shape's text (panics with the text if not).
pub fn tiled(text: &str) -> TiledShape {
    ArrayShape::parse_validated(text)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
        .tiled()
        .unwrap()
}

/// `ty[dims]` row-major and the same with `tile` after its layout, as
/// (source, destination) texts both ways: host → TPU, then TPU → host.
pub fn both_directions(ty: &str, dims: &str, tile: &str) -> [(String, String); 2] {
    let rank = dims.split(',').count();
    let order: Vec<String> = (0..rank).rev().map(|d| d.to_string()).collect();
    let order = order.join(",");
    let host = format!("{ty}[{dims}]{{{order}}}");
    let tpu = format!("{ty}[{dims}]{{{order}:{tile}}}");
    [(host.clone(), tpu.clone()), (tpu, host)]
}

/// One relayout to check: its plan and, for each destination slot, the
/// source slot whose element goes there (`None` for padding).
pub struct Pair {
    pub name: String,
    pub plan: Relayout,
    pub src_slots: u64,
    pub want: Vec<Option<u64>>,
}

impl Pair {
    pub fn new(a: &str, b: &str) -> Pair {
        let (src, dst) = (tiled(a), tiled(b));
        // Widened: these cases index slots as u64.
        let want = expected(&src, &dst)
            .into_iter()
            .map(|s| s.map(u64::from))
            .collect();
        Pair {
            name: format!("{a} -> {b}"),
            plan: Relayout::new(&src, &dst).unwrap(),
            src_slots: src.physical_slots(),
            want,
        }
    }
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
