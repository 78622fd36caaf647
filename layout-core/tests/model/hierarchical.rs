//! The hierarchical (CuTe) form against the tiled-address algorithm: for
//! random layouts, every index's slot through the nested modes is its
//! `TiledShape::offset`; the modes cover exactly the padded domain; a
//! layout without the form has a `*` or tiles that do not nest; plain
//! strides exist exactly when no dimension has more than one digit.
#![cfg(feature = "std")]

use proptest::prelude::*;
use xla_layout_core::{ArrayShape, COMBINE, ElementType, Layout, NotHierarchical, TiledShape};

fn layout_case() -> impl Strategy<Value = (Vec<i64>, Vec<i64>, Vec<Vec<i64>>, i64, i64)> {
    (1usize..=4).prop_flat_map(|rank| {
        let tile = (1..=rank + 1).prop_flat_map(|len| {
            prop::collection::vec(prop_oneof![8 => 1i64..=8, 1 => Just(COMBINE)], len).prop_map(
                |mut t| {
                    if *t.last().unwrap() == COMBINE {
                        *t.last_mut().unwrap() = 2;
                    }
                    t
                },
            )
        });
        (
            prop::collection::vec(1i64..=12, rank),
            Just((0..rank as i64).collect::<Vec<_>>()).prop_shuffle(),
            prop::collection::vec(tile, 0..=3),
            prop_oneof![3 => Just(1i64), 1 => Just(7i64)],
            prop_oneof![3 => Just(0i64), 1 => Just(4i64)],
        )
    })
}

fn tiled(
    dims: &[i64],
    m2m: &[i64],
    tiles: &[Vec<i64>],
    tail: i64,
    bits: i64,
) -> Option<TiledShape> {
    let tiles: Vec<&[i64]> = tiles.iter().map(Vec::as_slice).collect();
    let layout = Layout::new(m2m)
        .with_tiles(&tiles)
        .with_tail_padding_alignment(tail)
        .with_element_size_in_bits(bits);
    let t = ArrayShape::new(ElementType::U32, dims)
        .with_layout(layout)
        .tiled()
        .ok()?;
    (t.physical_slots() <= 1 << 16).then_some(t)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn nested_modes_give_every_offset((dims, m2m, tiles, tail, bits) in layout_case()) {
        let Some(t) = tiled(&dims, &m2m, &tiles, tail, bits) else { return Ok(()) };
        match t.hierarchical() {
            Ok(h) => {
                // Every in-bounds index: the same slot.
                let d: Vec<u64> = t.logical_dims().to_vec();
                let mut i = vec![0u64; d.len()];
                loop {
                    prop_assert_eq!(h.offset(&i), t.offset(&i), "{:?} at {:?}: {}", t, i, h);
                    let Some(k) = (0..d.len()).rev().find(|&k| i[k] + 1 < d[k]) else { break };
                    i[k] += 1;
                    i[k + 1..].fill(0);
                }
                // The modes cover each dimension, padded, and no slot of
                // the padded domain is used twice.
                let mut seen = std::collections::HashSet::new();
                let sizes: Vec<u64> = h.modes().iter().map(|m| m.size()).collect();
                for (s, &n) in sizes.iter().zip(&d) {
                    prop_assert!(*s >= n);
                }
                let mut j = vec![0u64; sizes.len()];
                loop {
                    prop_assert!(seen.insert(h.offset(&j).unwrap()), "{}", h);
                    let Some(k) = (0..sizes.len()).rev().find(|&k| j[k] + 1 < sizes[k]) else { break };
                    j[k] += 1;
                    j[k + 1..].fill(0);
                }
                // Beyond the padded domain, or with the wrong rank: an error.
                for (dim, &size) in sizes.iter().enumerate() {
                    let mut k = vec![0u64; sizes.len()];
                    k[dim] = size;
                    prop_assert!(h.offset(&k).is_err(), "{} at {:?}", h, k);
                }
                prop_assert!(h.offset(&vec![0; sizes.len() + 1]).is_err());
                strides_exactly_when_steps_predict(&t)?;
            }
            Err(NotHierarchical::Combine) => {
                prop_assert!(tiles.iter().flatten().any(|&e| e == COMBINE));
                // A `*` may change nothing: the same rule (small arrays,
                // which the library checks element by element).
                if t.logical_dims().iter().product::<u64>() <= 4096 {
                    strides_exactly_when_steps_predict(&t)?;
                }
            }
            Err(NotHierarchical::TilesDoNotNest) => {
                prop_assert!(tiles.len() >= 2, "one tile always nests: {:?}", tiles);
            }
            Err(e) => prop_assert!(false, "{:?}", e),
        }
    }
}

/// Strides exist exactly when one unit step per dimension predicts every
/// offset, and then they are those steps (the definition, element by
/// element).
fn strides_exactly_when_steps_predict(t: &TiledShape) -> Result<(), TestCaseError> {
    let d: Vec<u64> = t.logical_dims().to_vec();
    if d.contains(&0) {
        return Ok(());
    }
    let origin = t.offset(&vec![0; d.len()]).unwrap();
    let steps: Vec<Option<u64>> = (0..d.len())
        .map(|k| {
            (d[k] >= 2).then(|| {
                let mut e = vec![0u64; d.len()];
                e[k] = 1;
                t.offset(&e).unwrap() - origin
            })
        })
        .collect();
    let mut predicted = true;
    let mut i = vec![0u64; d.len()];
    loop {
        let sum: u64 = i.iter().zip(&steps).map(|(&x, s)| x * s.unwrap_or(0)).sum();
        if t.offset(&i).unwrap() != origin + sum {
            predicted = false;
            break;
        }
        let Some(k) = (0..d.len()).rev().find(|&k| i[k] + 1 < d[k]) else {
            break;
        };
        i[k] += 1;
        i[k + 1..].fill(0);
    }
    match t.logical_strides() {
        Ok(strides) => {
            prop_assert!(predicted, "{:?}: strides {:?}", t, strides.as_slice());
            for (k, s) in steps.iter().enumerate() {
                if let Some(s) = s {
                    prop_assert_eq!(strides.as_slice()[k], *s, "{:?}", t);
                }
            }
        }
        Err(e) => prop_assert!(!predicted, "{:?}: {}", t, e),
    }
    Ok(())
}

#[test]
fn tpu_formats_in_cute_notation() {
    let t = |s: &str| ArrayShape::parse_validated(s).unwrap().tiled().unwrap();
    // Rows 2r and 2r+1 share a 32-bit word: the row digit of stride 1.
    assert_eq!(
        t("bf16[16,256]{1,0:T(8,128)(2,1)}")
            .hierarchical()
            .unwrap()
            .to_string(),
        "((2,4,2),(128,2)):((1,256,2048),(2,1024))"
    );
    // L, E and split configs move no element: the form stays.
    assert!(
        t("s4[16,256]{1,0:T(8,128)(8,1)L(4096)E(4)}")
            .hierarchical()
            .is_ok()
    );
    assert_eq!(t("f32[7]{0}").hierarchical().unwrap().to_string(), "7:1");
    assert_eq!(t("f32[]").hierarchical().unwrap().to_string(), "1:0");
    // Tiles that do not nest: 3 then 2 along one dimension.
    assert_eq!(
        t("f32[12]{0:T(3)(2)}").hierarchical().unwrap_err(),
        NotHierarchical::TilesDoNotNest
    );
}

/// A dimension of size 0 has no index: its mode's size is 0, so every
/// index is out of bounds through the form as through
/// `TiledShape::offset` (the form counted it as 1 and gave slots in a
/// layout of 0 slots); such layouts still have strides (no element is
/// reached, so any stride steps it).
#[test]
fn empty_dimensions_have_no_index() {
    for text in [
        "f32[0]{0}",
        "f32[0,5]{1,0}",
        "f32[0,5]{1,0:T(2,2)}",
        "f32[5,0]{1,0:T(2,2)}",
        "bf16[0,256]{1,0:T(8,128)(2,1)}",
    ] {
        let t = ArrayShape::parse_validated(text).unwrap().tiled().unwrap();
        let h = t.hierarchical().unwrap();
        for (d, m) in h.modes().iter().enumerate() {
            let size = t.logical_dims()[d];
            assert_eq!(m.size() == 0, size == 0, "{text}: dim {d}: {h}");
        }
        let rank = t.rank();
        for index in [vec![0; rank], vec![1; rank], vec![4; rank]] {
            assert!(t.offset(&index).is_err(), "{text}");
            assert!(h.offset(&index).is_err(), "{text}: {index:?} through {h}");
        }
        assert!(
            t.logical_strides().is_ok(),
            "{text}: {:?}",
            t.logical_strides()
        );
    }
}
