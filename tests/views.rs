//! Typed views and relayout through `layout!` types, against values
//! derived by hand from the spec's worked examples.

use xla_layout::{BitsView, BitsViewMut, Indices, StaticLayout, View, ViewError, ViewMut, layout};

layout! {
    type Figure1 = f32[3,5]{1,0:T(2,2)};
    type Figure1RowMajor = f32[3,5]{1,0};
    type Figure2 = bf16[4,8]{1,0:T(2,4)(2,1)};
    type Figure2RowMajor = bf16[4,8]{1,0};
    type Nibbles = s4[2,4]{1,0:E(4)};
    type NibblesColumnMajor = s4[2,4]{0,1:E(4)};
    type TwoBit = u2[5]{0:E(2)};
    type Flags = pred[10]{0:E(1)};
    type ByteFlags = pred[3]{0};
    type Padded = f32[3]{0:T(4)L(8)};
}

/// Slot numbers of docs/xla-layouts.md §d.3 example 1, row by row.
const FIGURE1: [[usize; 5]; 3] = [[0, 1, 4, 5, 8], [2, 3, 6, 7, 10], [12, 13, 16, 17, 20]];

#[test]
fn get_reads_through_the_layout() {
    let slots: Vec<f32> = (0..24).map(|s| s as f32).collect();
    let v = View::<Figure1, f32>::new(&slots).unwrap();
    for (r, row) in FIGURE1.iter().enumerate() {
        for (c, &slot) in row.iter().enumerate() {
            assert_eq!(v.get([r, c]), Some(slot as f32));
        }
    }
    assert_eq!(v.get([3, 0]), None);
    assert_eq!(v.get([0, 5]), None);
    // SAFETY: in bounds.
    assert_eq!(unsafe { v.get_unchecked([2, 3]) }, 17.0);
}

#[test]
fn construction_checks_length_and_element_type() {
    let short = vec![0.0f32; 23];
    assert_eq!(
        View::<Figure1, f32>::new(&short).unwrap_err(),
        ViewError::TooShort {
            needed: 24,
            got: 23
        }
    );
    let ints = vec![0u32; 24];
    // u32 holds any 32-bit type as raw bits. i32 is not f32, nor is u64
    // 32 bits wide: those fail to build (tests/compiler/ui/view_element_type.rs),
    // and the runtime view, which generic code uses, refuses them.
    assert!(View::<Figure1, u32>::new(&ints).is_ok());
    let tiled = <Figure1 as xla_layout::StaticLayout>::TILED;
    assert!(matches!(
        xla_layout::DynView::new(&tiled, &[0i32; 24]),
        Err(ViewError::ElementType { .. })
    ));
    assert!(xla_layout::DynView::new(&tiled, &[0u64; 24]).is_err());
}

#[test]
fn iteration_orders() {
    let slots: Vec<f32> = (0..24).map(|s| s as f32).collect();
    let v = View::<Figure1, f32>::new(&slots).unwrap();
    // Logical order: row-major indices.
    let logical: Vec<f32> = v.iter().map(|(_, x)| x).collect();
    let expected: Vec<f32> = FIGURE1.iter().flatten().map(|&s| s as f32).collect();
    assert_eq!(logical, expected);
    // Physical order: slots ascending, padding (9, 11, 14, 15, 18, 19, 21, 22, 23) skipped.
    let physical: Vec<usize> = v.iter_physical().map(|(slot, _, _)| slot).collect();
    assert_eq!(
        physical,
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 13, 16, 17, 20]
    );
    for (slot, index, value) in v.iter_physical() {
        assert_eq!(FIGURE1[index[0]][index[1]], slot);
        assert_eq!(value, slot as f32);
    }
    // A row and a column.
    assert_eq!(
        v.lane([1, 0], 1).collect::<Vec<_>>(),
        [2.0, 3.0, 6.0, 7.0, 10.0]
    );
    assert_eq!(v.lane([0, 3], 0).collect::<Vec<_>>(), [5.0, 7.0, 17.0]);
    assert_eq!(v.lane([3, 0], 1).count(), 0);
    // First-level tile 1 holds slots 4..8: elements (0,2) (0,3) (1,2) (1,3).
    let tile: Vec<[usize; 2]> = v.tile(1).unwrap().map(|(i, _)| i).collect();
    assert_eq!(tile, [[0, 2], [0, 3], [1, 2], [1, 3]]);
    // Tile 2 holds (0,4), (1,4) and padding.
    assert_eq!(v.tile(2).unwrap().count(), 2);
    assert!(v.tile(6).is_none());
    assert_eq!(Indices::<Figure1>::new().count(), 15);
}

#[test]
fn set_and_fill_padding() {
    let mut buf = vec![0.0f32; 24];
    let mut v = ViewMut::<Figure1, f32>::new(&mut buf).unwrap();
    v.set([2, 3], 1.5).unwrap();
    assert!(v.set([3, 3], 1.0).is_err());
    *v.get_mut([0, 0]).unwrap() = 2.5;
    v.fill_padding(-1.0);
    assert_eq!(buf[17], 1.5);
    assert_eq!(buf[0], 2.5);
    for s in [9, 11, 14, 15, 18, 19, 21, 22, 23] {
        assert_eq!(buf[s], -1.0, "padding slot {s}");
    }
    assert_eq!(buf.iter().filter(|&&x| x == -1.0).count(), 9);
    // L padding too: T(4) makes 4 slots, L(8) rounds to 8.
    let mut p = vec![0.0f32; 8];
    ViewMut::<Padded, f32>::new(&mut p)
        .unwrap()
        .fill_padding(9.0);
    assert_eq!(p, [0.0, 0.0, 0.0, 9.0, 9.0, 9.0, 9.0, 9.0]);
}

#[test]
fn copy_between_layouts() {
    // Row-major → figure 1 tiles, padding set to the chosen value.
    let row_major: Vec<f32> = (0..15).map(|k| k as f32).collect();
    let mut tiled = vec![0.0f32; 24];
    ViewMut::<Figure1, f32>::new(&mut tiled)
        .unwrap()
        .copy_from_with_padding(
            &View::<Figure1RowMajor, f32>::new(&row_major).unwrap(),
            f32::NAN,
        );
    for (r, row) in FIGURE1.iter().enumerate() {
        for (c, &slot) in row.iter().enumerate() {
            assert_eq!(tiled[slot], (r * 5 + c) as f32);
        }
    }
    assert!(tiled[9].is_nan() && tiled[23].is_nan());
    // Figure 2 (bf16 as raw u16): element (r,c) = 8r + c lands at
    // 16·(r div 2) + 8·(c div 4) + 2·(c mod 4) + (r mod 2).
    let src: Vec<u16> = (0..32).collect();
    let mut dst = vec![0u16; 32];
    ViewMut::<Figure2, u16>::new(&mut dst)
        .unwrap()
        .copy_from(&View::<Figure2RowMajor, u16>::new(&src).unwrap());
    for r in 0..4 {
        for c in 0..8 {
            assert_eq!(
                dst[16 * (r / 2) + 8 * (c / 4) + 2 * (c % 4) + r % 2],
                (8 * r + c) as u16
            );
        }
    }
    // And back.
    let mut back = vec![0u16; 32];
    ViewMut::<Figure2RowMajor, u16>::new(&mut back)
        .unwrap()
        .copy_from(&View::<Figure2, u16>::new(&dst).unwrap());
    assert_eq!(back, src);
}

#[test]
fn packed_nibbles_are_lsb_first_and_sign_extended() {
    // Row-major s4[2,4] packed two per byte, low nibble first:
    // bytes 0x21 0x43 0xF7 0x8E hold 1 2 3 4 / 7 -1 -2 -8.
    let bytes = [0x21u8, 0x43, 0xF7, 0x8E];
    let v = BitsView::<Nibbles, i8>::new(&bytes).unwrap();
    let values: Vec<i8> = v.iter().map(|(_, x)| x).collect();
    assert_eq!(values, [1, 2, 3, 4, 7, -1, -2, -8]);
    assert_eq!(v.get([1, 1]), Some(-1));
    assert!(BitsView::<Nibbles, i8>::new(&bytes[..3]).is_err());
    // Unsigned types read any type of their width as raw bits.
    let raw = BitsView::<Nibbles, u8>::new(&bytes).unwrap();
    assert_eq!(
        raw.iter().map(|(_, x)| x).collect::<Vec<_>>(),
        [1, 2, 3, 4, 7, 15, 14, 8]
    );
    // A signed type does not hold an unsigned one: that fails to build
    // (tests/compiler/ui/bits_view_element_type.rs); the runtime view refuses it.
    let two_bit = <TwoBit as xla_layout::StaticLayout>::SHAPE.tiled().unwrap();
    assert!(xla_layout::DynBitsView::<i8>::new(&two_bit, &bytes).is_err());
    // Relayout bit by bit into column-major nibbles: (r, c) at slot 2c + r.
    let mut out = [0u8; 4];
    BitsViewMut::<NibblesColumnMajor, i8>::new(&mut out)
        .unwrap()
        .copy_from(&v);
    let col = BitsView::<NibblesColumnMajor, i8>::new(&out).unwrap();
    assert_eq!(col.iter().map(|(_, x)| x).collect::<Vec<_>>(), values);
    // Slot 0 = (0,0) = 1, slot 1 = (1,0) = 7: byte 0 = 0x71.
    assert_eq!(out[0], 0x71);
}

#[test]
fn set_changes_only_its_bits() {
    let mut bytes = [0xFFu8, 0xFF];
    let mut v = BitsViewMut::<TwoBit, u8>::new(&mut bytes).unwrap();
    v.set([1], 0b01).unwrap(); // bits 2..4 of byte 0
    v.set([4], 0b00).unwrap(); // bits 0..2 of byte 1
    assert!(v.set([5], 1).is_err());
    assert_eq!(v.get([1]), Some(1));
    assert_eq!(bytes, [0b1111_0111, 0b1111_1100]);
    let mut flags = [0u8; 2];
    let mut f = BitsViewMut::<Flags, bool>::new(&mut flags).unwrap();
    for i in [0, 3, 9] {
        f.set([i], true).unwrap();
    }
    assert_eq!(flags, [0b0000_1001, 0b0000_0010]);
    // Unpacked pred: one byte per element.
    let b = [1u8, 0, 1];
    let v = View::<ByteFlags, bool>::new(&[true, false, true]).unwrap();
    assert_eq!(v.get([2]), Some(true));
    assert_eq!(
        BitsView::<ByteFlags, bool>::new(&b).unwrap().get([1]),
        Some(false)
    );
}

#[cfg(feature = "half")]
#[test]
fn half_types_hold_bf16() {
    use half::bf16;
    let src: Vec<bf16> = (0..32).map(|k| bf16::from_f32(k as f32)).collect();
    let mut dst = vec![bf16::ZERO; 32];
    ViewMut::<Figure2, bf16>::new(&mut dst)
        .unwrap()
        .copy_from(&View::<Figure2RowMajor, bf16>::new(&src).unwrap());
    let v = View::<Figure2, bf16>::new(&dst).unwrap();
    assert_eq!(v.get([3, 7]).map(bf16::to_f32), Some(31.0));
    assert_eq!(dst[1].to_f32(), 8.0); // (1, 0) sits next to (0, 0)
    // f16 is as wide as bf16 but another type: the error says which.
    let e = xla_layout::DynView::new(&Figure2::TILED, &[half::f16::ZERO; 32]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "`half::binary16::f16` does not stand for `bf16` elements: it holds f16 \
         (see `Element::HOLDS`)"
    );
}

#[test]
fn generic_code_over_views() {
    fn sum<L: StaticLayout>(v: &View<'_, L, f32>) -> f32 {
        v.iter().map(|(_, x)| x).sum()
    }
    let slots: Vec<f32> = (0..24).map(|s| s as f32).collect();
    let expected: usize = FIGURE1.iter().flatten().sum();
    assert_eq!(
        sum(&View::<Figure1, f32>::new(&slots).unwrap()),
        expected as f32
    );
}

/// The bit views have the typed views' lanes, tiles and padding fill,
/// and they agree with the runtime bit views' over the same bytes.
#[test]
fn bit_views_have_lanes_tiles_and_padding() {
    use xla_layout::DynBitsView;
    layout! { type Packed = s4[3,5]{1,0:T(2,4)E(4)}; }
    let shape = &<Packed as xla_layout::StaticLayout>::SHAPE;
    let tiled = shape.tiled().unwrap();
    let mut bytes = vec![0u8; Packed::BYTES];
    let mut v = BitsViewMut::<Packed, i8>::new(&mut bytes).unwrap();
    for r in 0..3 {
        for c in 0..5 {
            v.set([r, c], (r * 5 + c) as i8 - 7).unwrap();
        }
    }
    assert_eq!(
        v.fill_padding(8),
        Err(xla_layout::IndexError::ValueDoesNotFit { element_bits: 4 })
    );
    v.fill_padding(-8).unwrap();
    let view = v.as_view();
    assert_eq!(view.lane([1, 0], 1).collect::<Vec<_>>(), [-2, -1, 0, 1, 2]);
    assert_eq!(view.lane([0, 4], 0).collect::<Vec<_>>(), [-3, 2, 7]);
    let dynamic = DynBitsView::<i8>::new(&tiled, &bytes).unwrap();
    let view = BitsView::<Packed, i8>::new(&bytes).unwrap();
    let mut k = 0;
    while let Some(tile) = view.tile(k) {
        let ours: Vec<_> = tile
            .map(|(i, x)| (i.map(|e| e as u64).to_vec(), x))
            .collect();
        let theirs: Vec<_> = dynamic
            .tile(k)
            .unwrap()
            .map(|(i, x)| (i.to_vec(), x))
            .collect();
        assert_eq!(ours, theirs, "tile {k}");
        k += 1;
    }
    assert_eq!(k, 4); // 2×2 tiles of 2×4 over 3×5 (padded to 4×8)
    // Every padding slot reads -8; every element its value.
    for slot in 0..tiled.physical_slots() {
        let x =
            xla_layout::bits::read_value(&bytes, slot * 4, 4, xla_layout::ElementType::S4) as i8;
        match tiled.logical_index(slot).unwrap() {
            Some(i) => assert_eq!(i64::from(x), (i[0] * 5 + i[1]) as i64 - 7),
            None => assert_eq!(x, -8, "slot {slot}"),
        }
    }
}

layout! {
    type S8Natural = s8[7]{0};
    type S8Wide = s8[7]{0:E(12)};
    type S4Natural = s4[3,3]{1,0:E(4)};
    type S4Wide = s4[3,3]{1,0:E(7)};
}

/// Bits `i*bits .. (i+1)*bits` of `bytes`, by the definition (LSB first).
fn slot_bits(bytes: &[u8], i: usize, bits: usize) -> u32 {
    (0..bits).fold(0, |acc, b| {
        let at = i * bits + b;
        acc | (u32::from((bytes[at / 8] >> (at % 8)) & 1) << b)
    })
}

#[test]
fn wide_storage_holds_a_value_in_its_own_bits_whoever_writes_it() {
    // Storage wider than the type: the value's own bits (two's
    // complement in the type's width), zeros above, as XLA's UnpackIntN
    // leaves an s4 in a byte. The bit view's `set` and `copy_bytes` from
    // the natural width write the same bytes.
    let values: [i8; 7] = [-128, -2, -1, 0, 1, 95, 127];
    let mut by_view = vec![0u8; S8Wide::BYTES];
    let mut v = BitsViewMut::<S8Wide, i8>::new(&mut by_view).unwrap();
    for (i, &x) in values.iter().enumerate() {
        v.set([i], x).unwrap();
    }
    let natural: Vec<u8> = values.iter().map(|&x| x as u8).collect();
    let mut by_copy = vec![0u8; S8Wide::BYTES];
    xla_layout::Relayout::new(&S8Natural::TILED, &S8Wide::TILED)
        .unwrap()
        .copy_bytes(&natural, &mut by_copy, 0)
        .unwrap();
    assert_eq!(by_view, by_copy);
    for (i, &x) in values.iter().enumerate() {
        assert_eq!(slot_bits(&by_view, i, 12), u32::from(x as u8), "slot {i}");
    }

    let nibbles: [i8; 9] = [-8, -7, -2, -1, 0, 1, 2, 6, 7];
    let mut packed = vec![0u8; S4Natural::BYTES];
    let mut p = BitsViewMut::<S4Natural, i8>::new(&mut packed).unwrap();
    let mut by_view = vec![0u8; S4Wide::BYTES];
    let mut w = BitsViewMut::<S4Wide, i8>::new(&mut by_view).unwrap();
    for (n, &x) in nibbles.iter().enumerate() {
        p.set([n / 3, n % 3], x).unwrap();
        w.set([n / 3, n % 3], x).unwrap();
    }
    let mut by_copy = vec![0u8; S4Wide::BYTES];
    xla_layout::Relayout::new(&S4Natural::TILED, &S4Wide::TILED)
        .unwrap()
        .copy_bytes(&packed, &mut by_copy, 0)
        .unwrap();
    assert_eq!(by_view, by_copy);
    for (n, &x) in nibbles.iter().enumerate() {
        assert_eq!(
            slot_bits(&by_view, n, 7),
            u32::from(x as u8 & 0xF),
            "slot {n}"
        );
    }
}
