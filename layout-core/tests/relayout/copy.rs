//! Relayout against the definition: after a copy, every logical index's
//! slot in the destination holds what its slot in the source held, and
//! every destination padding slot holds the pad value. Layouts are random
//! (permutations, 0–3 tile levels, oversized tiles, `*`, tail padding), so
//! both the block path and the element-by-element fallback are exercised.
#![cfg(feature = "std")]

use proptest::prelude::*;
use xla_layout_core::{ArrayShape, COMBINE, Comparison, ElementType, Layout, Relayout, TiledShape};

/// A layout: minor-to-major, tiles, tail padding.
type LayoutSpec = (Vec<i64>, Vec<Vec<i64>>, i64);
/// Dimensions and two layouts of them.
type Case = (Vec<i64>, LayoutSpec, LayoutSpec);

fn layout_strategy(rank: usize) -> impl Strategy<Value = LayoutSpec> {
    let m2m = Just((0..rank as i64).collect::<Vec<_>>()).prop_shuffle();
    let tile = (1..=rank.max(1) + 1).prop_flat_map(|len| {
        prop::collection::vec(prop_oneof![8 => 1i64..=8, 1 => Just(COMBINE)], len).prop_map(
            |mut t| {
                // `*` may not be a tile's last entry.
                if *t.last().unwrap() == COMBINE {
                    *t.last_mut().unwrap() = 2;
                }
                t
            },
        )
    });
    let tiles = prop::collection::vec(tile, 0..=3);
    let tail = prop_oneof![4 => Just(1i64), 1 => Just(3i64), 1 => Just(64i64)];
    (m2m, tiles, tail)
}

fn tiled(dims: &[i64], (m2m, tiles, tail): &LayoutSpec) -> Option<TiledShape> {
    let tiles: Vec<&[i64]> = tiles.iter().map(Vec::as_slice).collect();
    let layout = Layout::new(m2m)
        .with_tiles(&tiles)
        .with_tail_padding_alignment(*tail);
    let t = ArrayShape::new(ElementType::U32, dims)
        .with_layout(layout)
        .tiled()
        .ok()?;
    (t.physical_slots() <= 1 << 16).then_some(t)
}

fn case() -> impl Strategy<Value = Case> {
    (1usize..=4).prop_flat_map(|rank| {
        (
            // Now and then a dimension of 0: an array with no elements.
            prop::collection::vec(prop_oneof![1 => Just(0i64), 15 => 1i64..=12], rank),
            layout_strategy(rank),
            layout_strategy(rank),
        )
    })
}

/// Every logical index, row-major.
fn indices(dims: &[u64]) -> Vec<Vec<u64>> {
    let mut out = vec![vec![]];
    for &d in dims {
        out = out
            .into_iter()
            .flat_map(|p| (0..d).map(move |i| [p.clone(), vec![i]].concat()))
            .collect();
    }
    out
}

/// Fewer, larger arrays: long digits get blocked, ragged ones clipped.
fn large_case() -> impl Strategy<Value = Case> {
    (1usize..=2).prop_flat_map(|rank| {
        (
            prop::collection::vec(40i64..=200, rank),
            layout_strategy(rank),
            layout_strategy(rank),
        )
    })
}

fn check_copy(dims: &[i64], a: &LayoutSpec, b: &LayoutSpec) -> Result<(), TestCaseError> {
    let (Some(src), Some(dst)) = (tiled(dims, a), tiled(dims, b)) else {
        return Ok(());
    };
    let plan = Relayout::new(&src, &dst).unwrap();
    let input: Vec<u32> = (0..src.physical_slots() as u32).collect();
    let mut output = vec![7u32; dst.physical_slots() as usize];
    plan.copy(&input, &mut output, u32::MAX).unwrap();
    let mut used = vec![false; output.len()];
    for i in indices(src.logical_dims()) {
        let (s, d) = (src.offset(&i).unwrap(), dst.offset(&i).unwrap());
        prop_assert_eq!(output[d as usize], s as u32, "index {:?}", i);
        used[d as usize] = true;
    }
    prop_assert!(
        output.iter().zip(&used).all(|(&v, &u)| u || v == u32::MAX),
        "padding"
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: if cfg!(debug_assertions) { 40 } else { 400 }, ..ProptestConfig::default() })]

    #[test]
    #[cfg_attr(miri, ignore = "too large for Miri (about 2 minutes a case)")]
    fn large_copies_put_every_element_in_its_slot((dims, a, b) in large_case()) {
        check_copy(&dims, &a, &b)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: if cfg!(miri) { 8 } else if cfg!(debug_assertions) { 400 } else { 4000 }, ..ProptestConfig::default() })]

    #[test]
    fn copy_puts_every_element_in_its_slot((dims, a, b) in case()) {
        check_copy(&dims, &a, &b)?;
        let (Some(src), Some(dst)) = (tiled(&dims, &a), tiled(&dims, &b)) else { return Ok(()) };
        let plan = Relayout::new(&src, &dst).unwrap();
        // The pair walk visits the same pairs once each.
        let mut pairs = Vec::new();
        plan.for_each_pair(|s, d| pairs.push((s, d)));
        pairs.sort();
        let mut expected: Vec<(u64, u64)> = indices(src.logical_dims())
            .iter()
            .map(|i| (src.offset(i).unwrap(), dst.offset(i).unwrap()))
            .collect();
        expected.sort();
        prop_assert_eq!(pairs, expected);
    }

    #[test]
    fn same_offsets_agrees_with_every_index((dims, a, b) in case()) {
        let (Some(x), Some(y)) = (tiled(&dims, &a), tiled(&dims, &b)) else { return Ok(()) };
        let all_equal = indices(x.logical_dims()).iter().all(|i| x.offset(i) == y.offset(i));
        let expected = if all_equal { Comparison::Yes } else { Comparison::No };
        prop_assert_eq!(x.same_offsets(&y), expected);
    }

    #[test]
    fn bitcast_compatible_agrees_with_every_index((dims, a, b) in case()) {
        // The same dimensions: row-major order is the same indices.
        let (Some(x), Some(y)) = (tiled(&dims, &a), tiled(&dims, &b)) else { return Ok(()) };
        let all_equal = indices(x.logical_dims()).iter().all(|i| x.offset(i) == y.offset(i));
        let expected = if all_equal && x.physical_slots() == y.physical_slots() {
            Comparison::Yes
        } else {
            Comparison::No
        };
        prop_assert_eq!(x.bitcast_compatible(&y), expected);
    }
}

/// Arrays with no elements: every comparison holds (there is nothing to
/// place), no plan walks anything, and there are no slabs to stream.
#[test]
fn arrays_without_elements_compare_plan_and_slab_as_nothing() {
    let t = |s: &str| ArrayShape::parse_validated(s).unwrap().tiled().unwrap();
    for (a, b) in [
        ("u8[3,0]{1,0}", "u8[3,0]{1,0}"),
        ("f32[4,0]{1,0}", "f32[4,0]{0,1}"),
        ("f32[4,0]{1,0}", "f32[4,0]{1,0:T(2,2)}"),
        ("s4[2,0]{1,0:E(4)}", "s4[2,0]{0,1:E(4)}"),
        ("u8[1,3,0]{0,1,2:E(44)}", "u8[1,3,0]{2,1,0:E(44)}"),
        ("f32[0]{0}", "f32[0]{0:T(2)}"),
    ] {
        let (x, y) = (t(a), t(b));
        assert_eq!(x.same_offsets(&y), Comparison::Yes, "{a} {b}");
        assert_eq!(x.bitcast_compatible(&x), Comparison::Yes, "{a}");
        let plan = Relayout::new(&x, &y).unwrap();
        assert_eq!(plan.loops().count(), 0, "{a} {b}");
        let mut pairs = 0;
        plan.for_each_pair(|_, _| pairs += 1);
        assert_eq!(pairs, 0, "{a} {b}");
        let shape = |s: &str| ArrayShape::parse_validated(s).unwrap();
        assert!(
            xla_layout_core::Slabs::find(&shape(a), &shape(b), 1).is_none(),
            "{a} {b}"
        );
    }
    // A huge dimension beside the empty one: no loop count wraps.
    let x = t("u8[0,4611686018427387904,6]{1,2,0}");
    let plan = Relayout::new(&x, &x).unwrap();
    assert_eq!(plan.loops().count(), 0);
}

#[test]
fn layouts_without_combine_whose_tiles_nest_take_the_block_path() {
    let t = |s: &str| ArrayShape::parse_validated(s).unwrap().tiled().unwrap();
    let fast = |a: &str, b: &str| Relayout::new(&t(a), &t(b)).unwrap().is_fast();
    assert!(fast("bf16[64,256]{1,0}", "bf16[64,256]{1,0:T(8,128)(2,1)}"));
    assert!(fast("s8[64,256]{1,0}", "s8[64,256]{0,1:T(8,128)(4,1)}"));
    assert!(fast("f32[3,5]{1,0}", "f32[3,5]{1,0:T(2,2)}"));
    assert!(fast("f32[100,300]{0,1}", "f32[100,300]{1,0}"));
    // `*` and tiles that do not nest (3 then 2) fall back.
    assert!(!fast("f32[4,6]{1,0}", "f32[4,6]{1,0:T(*,4)}"));
    assert!(!fast("f32[12]{0}", "f32[12]{0:T(3)(2)}"));
}

#[test]
fn mismatched_shapes_are_refused() {
    let t = |s: &str| ArrayShape::parse_validated(s).unwrap().tiled().unwrap();
    assert!(Relayout::new(&t("f32[2,3]"), &t("f32[3,2]")).is_err());
    let plan = Relayout::new(&t("f32[2,3]"), &t("f32[2,3]{0,1}")).unwrap();
    let mut out = [0.0f32; 6];
    assert_eq!(
        plan.copy(&[0.0f32; 5], &mut out, 0.0)
            .unwrap_err()
            .to_string(),
        "the source has 5 slots but its layout needs 6"
    );
}

/// Larger arrays reach the blocked transpose and the zip/unzip kernels;
/// every element is checked against the two layouts' own offsets.
#[test]
#[cfg_attr(
    miri,
    ignore = "too large for Miri: the `miri` module runs these kernels on small shapes"
)]
fn large_copies_match_the_definition() {
    let pairs = [
        ("f32[100,300]{1,0}", "f32[100,300]{0,1}"),
        ("f32[257,129]{0,1}", "f32[257,129]{1,0}"),
        ("bf16[64,512]{1,0}", "bf16[64,512]{1,0:T(8,128)(2,1)}"),
        ("bf16[64,512]{1,0:T(8,128)(2,1)}", "bf16[64,512]{1,0}"),
        ("s8[64,384]{1,0}", "s8[64,384]{1,0:T(8,128)(4,1)}"),
        ("s8[40,300]{1,0:T(8,128)(4,1)}", "s8[40,300]{0,1}"),
        ("pred[64,256]{1,0}", "pred[64,256]{1,0:T(32,128)(32,1)}"),
        (
            "bf16[3,20,300]{2,1,0}",
            "bf16[3,20,300]{1,2,0:T(8,128)(2,1)}",
        ),
        ("f32[10,20,30]{1,2,0}", "f32[10,20,30]{0,1,2:T(4,8)}"),
        ("bf16[9,130]{1,0}", "bf16[9,130]{1,0:T(8,128)(2,1)}"),
    ];
    for (a, b) in pairs {
        let src = ArrayShape::parse_validated(a).unwrap().tiled().unwrap();
        let dst = ArrayShape::parse_validated(b).unwrap().tiled().unwrap();
        let plan = Relayout::new(&src, &dst).unwrap();
        assert!(plan.is_fast(), "{a} -> {b}");
        let input: Vec<u32> = (0..src.physical_slots() as u32).collect();
        let mut output = vec![0u32; dst.physical_slots() as usize];
        plan.copy(&input, &mut output, u32::MAX).unwrap();
        let mut used = vec![false; output.len()];
        for i in indices(src.logical_dims()) {
            let (s, d) = (src.offset(&i).unwrap(), dst.offset(&i).unwrap());
            assert_eq!(output[d as usize], s as u32, "{a} -> {b} at {i:?}");
            used[d as usize] = true;
        }
        assert!(
            output.iter().zip(&used).all(|(&v, &u)| u || v == u32::MAX),
            "{a} -> {b}: padding"
        );
    }
}

/// Destinations of 8 MiB and more are written with streaming stores (on
/// x86_64); those kernels are checked here, element by element.
#[test]
#[cfg_attr(
    miri,
    ignore = "too large for Miri: the `miri` module runs these kernels on small shapes"
)]
fn streaming_copies_match_the_definition() {
    fn check<T: Copy + PartialEq + core::fmt::Debug>(
        a: &str,
        b: &str,
        value: impl Fn(u64) -> T,
        zero: T,
    ) {
        let src = ArrayShape::parse_validated(a).unwrap().tiled().unwrap();
        let dst = ArrayShape::parse_validated(b).unwrap().tiled().unwrap();
        assert!(dst.exact_bytes() >= 8 << 20, "{b} is too small to stream");
        let plan = Relayout::new(&src, &dst).unwrap();
        let input: Vec<T> = (0..src.physical_slots()).map(&value).collect();
        let mut output = vec![zero; dst.physical_slots() as usize];
        plan.copy(&input, &mut output, zero).unwrap();
        // Walk the indices with an odometer; compare each element.
        let dims = src.logical_dims().to_vec();
        let mut i = vec![0u64; dims.len()];
        for _ in 0..src.element_count() {
            let (s, d) = (src.offset_unchecked(&i), dst.offset_unchecked(&i));
            assert_eq!(output[d as usize], value(s), "{a} -> {b} at {i:?}");
            for k in (0..dims.len()).rev() {
                i[k] += 1;
                if i[k] < dims[k] {
                    break;
                }
                i[k] = 0;
            }
        }
    }
    // A hash keeps neighbouring slots' values apart in 8 and 16 bits.
    let h = |s: u64| s.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
    check(
        "bf16[2048,2048]{1,0}",
        "bf16[2048,2048]{1,0:T(8,128)(2,1)}",
        |s| h(s) as u16,
        0,
    );
    check(
        "bf16[2048,2048]{1,0:T(8,128)(2,1)}",
        "bf16[2048,2048]{1,0}",
        |s| h(s) as u16,
        0,
    );
    check(
        "s8[4096,2048]{1,0}",
        "s8[4096,2048]{1,0:T(8,128)(4,1)}",
        |s| h(s) as u8,
        0,
    );
    check(
        "f32[1024,2048]{1,0}",
        "f32[1024,2048]{1,0:T(8,128)}",
        |s| s as u32,
        0,
    );
    check(
        "f32[1024,2048]{1,0}",
        "f32[1024,2048]{0,1}",
        |s| s as u32,
        0,
    );
}

#[test]
#[cfg_attr(
    miri,
    ignore = "too large for Miri: the `miri` module runs these kernels on small shapes"
)]
fn streaming_unzip_quads_match_the_definition() {
    let src = ArrayShape::parse_validated("s8[4096,2048]{1,0:T(8,128)(4,1)}")
        .unwrap()
        .tiled()
        .unwrap();
    let dst = ArrayShape::parse_validated("s8[4096,2048]{1,0}")
        .unwrap()
        .tiled()
        .unwrap();
    let input: Vec<u8> = (0..src.physical_slots())
        .map(|s| (s.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as u8)
        .collect();
    let mut output = vec![0u8; dst.physical_slots() as usize];
    Relayout::new(&src, &dst)
        .unwrap()
        .copy(&input, &mut output, 0)
        .unwrap();
    for r in 0..4096u64 {
        for c in 0..2048u64 {
            let s = src.offset_unchecked(&[r, c]);
            assert_eq!(
                output[(r * 2048 + c) as usize],
                input[s as usize],
                "({r},{c})"
            );
        }
    }
}

/// The streaming unzips hold back the part of a destination line a tile
/// shares with its neighbour (see `streaming::Carry`): the result must not
/// depend on where in a 64-byte line the destination starts, every held
/// part must be written out, and nothing outside the destination may be
/// touched. Covered: each 16-byte line offset; ragged last tiles, whose
/// rows start at varying line offsets; more rows per tile than the carry
/// has slots; the packed-byte quads.
#[test]
#[cfg_attr(
    miri,
    ignore = "too large for Miri: the `miri` module runs these kernels on small shapes"
)]
fn streaming_unzips_do_not_depend_on_line_offset() {
    fn check<T: Copy + PartialEq + core::fmt::Debug>(
        a: &str,
        b: &str,
        value: fn(u64) -> T,
        guard: T,
    ) {
        let src = ArrayShape::parse_validated(a).unwrap().tiled().unwrap();
        let dst = ArrayShape::parse_validated(b).unwrap().tiled().unwrap();
        assert!(dst.exact_bytes() >= 8 << 20, "{b} is too small to stream");
        let plan = Relayout::new(&src, &dst).unwrap();
        let input: Vec<T> = (0..src.physical_slots()).map(value).collect();
        // The expected destination, by the definition.
        let n = dst.physical_slots() as usize;
        let mut want = vec![guard; n];
        let dims = src.logical_dims().to_vec();
        let mut i = vec![0u64; dims.len()];
        for _ in 0..src.element_count() {
            want[dst.offset_unchecked(&i) as usize] = value(src.offset_unchecked(&i));
            for k in (0..dims.len()).rev() {
                i[k] += 1;
                if i[k] < dims[k] {
                    break;
                }
                i[k] = 0;
            }
        }
        let size = size_of::<T>();
        let spare = 128 / size;
        let mut buf = vec![guard; n + 2 * spare];
        for line_offset in [0, 16, 32, 48] {
            buf.fill(guard);
            let base = buf.as_ptr() as usize;
            let off = (0..spare)
                .find(|k| (base + (spare + k) * size) % 64 == line_offset)
                .unwrap()
                + spare;
            plan.copy(&input, &mut buf[off..off + n], guard).unwrap();
            assert!(
                buf[..off]
                    .iter()
                    .chain(&buf[off + n..])
                    .all(|&v| v == guard),
                "{a} -> {b} at line offset {line_offset}: wrote outside the destination"
            );
            if let Some(k) = (0..n).find(|&k| buf[off + k] != want[k]) {
                panic!(
                    "{a} -> {b} at line offset {line_offset}: slot {k} is {:?}, not {:?}",
                    buf[off + k],
                    want[k]
                );
            }
        }
    }
    // Hashed values keep neighbouring slots apart; they are odd and the
    // guard is zero, so a slot left unwritten or a write outside the
    // destination shows.
    fn h(s: u64) -> u64 {
        s.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40
    }
    for (a, b) in [
        ("bf16[2048,2048]{1,0:T(8,128)(2,1)}", "bf16[2048,2048]{1,0}"),
        // Rows of 1960 elements (3920 bytes): each row starts at a
        // different line offset, and the last tile of each row is 40
        // columns wide.
        ("bf16[2312,1960]{1,0:T(8,128)(2,1)}", "bf16[2312,1960]{1,0}"),
        // 32 rows per tile: twice the carry's slots.
        (
            "bf16[2048,2048]{1,0:T(32,128)(2,1)}",
            "bf16[2048,2048]{1,0}",
        ),
    ] {
        check(a, b, |s| (h(s) as u16) | 1, 0);
    }
    check(
        "s8[4096,2048]{1,0:T(8,128)(4,1)}",
        "s8[4096,2048]{1,0}",
        |s| (h(s) as u8) | 1,
        0,
    );
}

/// Into slots narrower than the source's values, a copy moves the values
/// only when every one survives (reads back the same), and otherwise
/// writes nothing: the first value that does not fit is named.
#[test]
fn narrower_slots_take_only_values_that_fit() {
    let t = |s: &str| ArrayShape::parse_validated(s).unwrap().tiled().unwrap();
    // f32 into 16-bit slots: 1.5's bits need all 32.
    let plan = Relayout::new(&t("f32[4]{0}"), &t("f32[4]{0:E(16)}")).unwrap();
    let src: Vec<u8> = [1.5f32, -2.0, 3.0, 1e30]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let mut out = [0xA5u8; 8];
    assert_eq!(
        plan.copy_bytes(&src, &mut out, 0),
        Err(xla_layout_core::RelayoutError::ValueDoesNotFit {
            slot: 0,
            element_bits: 16
        })
    );
    assert_eq!(out, [0xA5; 8]);
    // s4 from 4-bit into 2-bit slots: every pair of values, against the
    // definition (a 2-bit two's-complement number is -2..=1).
    let plan = Relayout::new(&t("s4[2]{0:E(4)}"), &t("s4[2]{0:E(2)}")).unwrap();
    for a in -8i8..8 {
        for b in -8i8..8 {
            let src = [(a as u8 & 0xF) | ((b as u8 & 0xF) << 4)];
            let mut out = [0x5Au8];
            let fits = |v: i8| (-2..=1).contains(&v);
            match plan.copy_bytes(&src, &mut out, 0) {
                Ok(()) => {
                    assert!(fits(a) && fits(b), "{a} {b}");
                    let back = |k: u32| (((out[0] >> (2 * k)) & 3) as i8) << 6 >> 6;
                    assert_eq!((back(0), back(1)), (a, b));
                    assert_eq!(out[0] >> 4, 0, "padding bits");
                }
                Err(e) => {
                    assert!(!(fits(a) && fits(b)), "{a} {b}: {e}");
                    let slot = if fits(a) { 1 } else { 0 };
                    assert_eq!(
                        e,
                        xla_layout_core::RelayoutError::ValueDoesNotFit {
                            slot,
                            element_bits: 2
                        }
                    );
                    assert_eq!(out, [0x5A], "nothing written");
                }
            }
        }
    }
    // Wider slots, or the same width, never refuse.
    let plan = Relayout::new(&t("s4[2]{0:E(4)}"), &t("s4[2]{0}")).unwrap();
    let mut out = [0u8; 2];
    plan.copy_bytes(&[0x87], &mut out, 0).unwrap();
    assert_eq!(out, [7, 8]);
}
