//! `ViewMut::copy_from` and `BitsViewMut::copy_from` over the layouts that
//! showed a relayout overrun (plain transposes whose block counts are not
//! multiples of 8, the TPU formats on ragged sizes, packed `s4`), checked
//! element by element against layout-core's offsets of both layouts, with
//! every padding slot and a guard region after the layout's bytes.

use xla_layout::{
    ArrayShape, BitsView, BitsViewMut, Element, StaticLayout, TiledShape, View, ViewMut, layout,
};

const GUARD: usize = 64;

fn tiled<L: StaticLayout>() -> TiledShape {
    L::SHAPE.tiled().unwrap()
}

/// For each destination slot, the source slot whose element goes there.
fn expected(src: &TiledShape, dst: &TiledShape) -> Vec<Option<u64>> {
    let mut want = vec![None; dst.physical_slots() as usize];
    let dims = src.logical_dims().to_vec();
    let mut i = vec![0u64; dims.len()];
    for _ in 0..src.element_count() {
        want[dst.offset(&i).unwrap() as usize] = Some(src.offset(&i).unwrap());
        if let Some(k) = (0..dims.len()).rev().find(|&k| i[k] + 1 < dims[k]) {
            i[k] += 1;
            i[k + 1..].fill(0);
        }
    }
    want
}

/// Whole-element views: each pass carries one element-sized piece of the
/// source slot numbers, so that the passes together identify every slot.
fn check_view<S, D, T>(to: fn(u64) -> T)
where
    S: StaticLayout,
    D: StaticLayout<Logical = S::Logical>,
    T: Element + PartialEq + core::fmt::Debug,
{
    let (src, dst) = (tiled::<S>(), tiled::<D>());
    let want = expected(&src, &dst);
    let name = format!("{} -> {}", S::TEXT, D::TEXT);
    let pad = to(0xA5A5_A5A5_A5A5_A5A5);
    let guard = to(0x5A5A_5A5A_5A5A_5A5A);
    let width = 8 * size_of::<T>() as u32;
    for pass in 0..32u32.div_ceil(width) {
        let piece = |s: u64| to(s >> (pass * width));
        let input: Vec<T> = (0..S::PHYSICAL_ELEMENTS as u64).map(piece).collect();
        let mut out = vec![guard; D::PHYSICAL_ELEMENTS + GUARD];
        ViewMut::<D, T>::new(&mut out)
            .unwrap()
            .copy_from_with_padding(&View::<S, T>::new(&input).unwrap(), pad);
        for (slot, w) in want.iter().enumerate() {
            assert_eq!(out[slot], w.map_or(pad, piece), "{name}: slot {slot}");
        }
        assert!(
            out[want.len()..].iter().all(|&g| g == guard),
            "{name}: wrote past the layout"
        );
    }
}

/// Bit views: element `s` of the source holds bits of `s`, `E` bits a
/// pass; bytes past `BYTES` must stay as they were.
fn check_bits<S, D, T>()
where
    S: StaticLayout,
    D: StaticLayout<Logical = S::Logical>,
    T: Element,
{
    let (src, dst) = (tiled::<S>(), tiled::<D>());
    let want = expected(&src, &dst);
    let name = format!("{} -> {}", S::TEXT, D::TEXT);
    let (sb, db) = (S::ELEMENT_BITS, D::ELEMENT_BITS);
    let width = sb.min(db).min(8) as u32;
    let mask = (1u64 << width) - 1;
    for pass in 0..32u32.div_ceil(width) {
        let piece = |s: u64| (s >> (pass * width)) & mask;
        let mut input = vec![0u8; S::BYTES];
        for s in 0..S::PHYSICAL_ELEMENTS as u64 {
            xla_layout::bits::write_bits(&mut input, s * sb, width, u128::from(piece(s)));
        }
        let mut out = vec![0xC3u8; D::BYTES + GUARD];
        BitsViewMut::<D, T>::new(&mut out)
            .unwrap()
            .copy_from(&BitsView::<S, T>::new(&input).unwrap());
        for (slot, w) in want.iter().enumerate() {
            let got = xla_layout::bits::read_bits(&out, slot as u64 * db, width) as u64;
            assert_eq!(got, w.map_or(0, piece), "{name}: slot {slot}");
        }
        assert!(
            out[D::BYTES..].iter().all(|&g| g == 0xC3),
            "{name}: wrote past BYTES"
        );
    }
}

layout! {
    type T64x544 = u8[64,544]{0,1};
    type T64x544Rows = u8[64,544]{1,0};
    type T72x576 = u8[72,576]{0,1};
    type T72x576Rows = u8[72,576]{1,0};
    type T600x33 = u8[600,33]{0,1};
    type T600x33Rows = u8[600,33]{1,0};
    type B3 = bf16[2,520,8128]{2,0,1:T(1,1)L(1)};
    type B3Dst = bf16[2,520,8128]{1,2,0:L(1)};
    type Bf7 = bf16[7,300]{1,0};
    type Bf7Tpu = bf16[7,300]{1,0:T(8,128)(2,1)};
    type S9 = s8[9,129]{0,1};
    type S9Tpu = s8[9,129]{1,0:T(8,128)(4,1)};
    type F9 = f32[9,129]{1,0};
    type F9Tpu = f32[9,129]{1,0:T(8,128)};
    type P33 = pred[33,129]{1,0};
    type P33Tpu = pred[33,129]{1,0:T(32,128)(32,1)};
    type N64x544 = s4[64,544]{0,1:E(4)};
    type N64x544Rows = s4[64,544]{1,0:E(4)};
    type N64x544Bytes = s4[64,544]{1,0};
    type N1x129 = s4[3,129]{1,0};
    type N1x129Tpu = s4[3,129]{1,0:T(8,128)(8,1)E(4)};
}

#[test]
fn transposes_through_views() {
    check_view::<T64x544, T64x544Rows, u8>(|v| v as u8);
    check_view::<T64x544Rows, T64x544, u8>(|v| v as u8);
    check_view::<T72x576, T72x576Rows, u8>(|v| v as u8);
    check_view::<T600x33, T600x33Rows, u8>(|v| v as u8);
    check_view::<T600x33Rows, T600x33, u8>(|v| v as u8);
    check_view::<B3, B3Dst, u16>(|v| v as u16);
}

#[test]
fn tpu_formats_through_views() {
    check_view::<Bf7, Bf7Tpu, u16>(|v| v as u16);
    check_view::<Bf7Tpu, Bf7, u16>(|v| v as u16);
    check_view::<S9, S9Tpu, u8>(|v| v as u8);
    check_view::<S9Tpu, S9, u8>(|v| v as u8);
    check_view::<F9, F9Tpu, u32>(|v| v as u32);
    check_view::<F9Tpu, F9, u32>(|v| v as u32);
}

#[test]
fn bit_views_leave_spare_bytes_alone() {
    check_bits::<T64x544, T64x544Rows, u8>();
    check_bits::<T72x576, T72x576Rows, u8>();
    check_bits::<Bf7, Bf7Tpu, u16>();
    check_bits::<P33, P33Tpu, bool>();
    check_bits::<P33Tpu, P33, bool>();
    check_bits::<N64x544, N64x544Rows, i8>();
    check_bits::<N64x544Rows, N64x544, i8>();
    check_bits::<N64x544, N64x544Bytes, i8>();
    check_bits::<N64x544Bytes, N64x544, i8>();
    check_bits::<N1x129, N1x129Tpu, i8>();
    check_bits::<N1x129Tpu, N1x129, i8>();
    // A packed copy keeps each value across storage widths; in a byte, an
    // s4 is its low nibble, the high one zero (XLA's UnpackIntN).
    let shape: ArrayShape = N64x544::SHAPE;
    assert_eq!(shape.element_type(), xla_layout::ElementType::S4);
    let mut packed = vec![0u8; N64x544::BYTES];
    let mut v = BitsViewMut::<N64x544, i8>::new(&mut packed).unwrap();
    v.set([3, 500], -3).unwrap();
    v.set([63, 543], 7).unwrap();
    let mut bytes = vec![0u8; N64x544Bytes::BYTES];
    BitsViewMut::<N64x544Bytes, i8>::new(&mut bytes)
        .unwrap()
        .copy_from(&BitsView::<N64x544, i8>::new(&packed).unwrap());
    let b = BitsView::<N64x544Bytes, i8>::new(&bytes).unwrap();
    assert_eq!((b.get([3, 500]), b.get([63, 543])), (Some(-3), Some(7)));
    assert_eq!(bytes[3 * 544 + 500], 0x0D);
}
