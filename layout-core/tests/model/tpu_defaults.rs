//! The TPU default layouts against libtpu itself: every row of the table
//! measured offline with libtpu 0.0.52 (tools/tpu_defaults/generate.py;
//! docs/tpu-default-layouts.md) must come out exactly, layout and bytes.
//! Then properties of the rule over random shapes.
#![cfg(feature = "std")]

use proptest::prelude::*;
use serde_json::Value;
use xla_layout_core::tpu::{Generation, default_layout, tiling_bits};
use xla_layout_core::{ArrayShape, ElementType};

fn rows(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

fn case(row: &Value) -> (Generation, ElementType, Vec<i64>) {
    let generation = Generation::from_name(row["generation"].as_str().unwrap()).unwrap();
    let ty = ElementType::from_name(row["dtype"].as_str().unwrap()).unwrap();
    let dims = row["dims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_i64().unwrap())
        .collect();
    (generation, ty, dims)
}

#[test]
fn every_measured_case_matches_libtpu() {
    let table = rows(include_str!("../data/tpu_defaults.jsonl"));
    let layout_only = rows(include_str!("../data/tpu_defaults_s1u1.jsonl"));
    assert!(table.len() > 1000 && layout_only.len() > 40);
    let mut types = std::collections::BTreeSet::new();
    let mut generations = std::collections::BTreeSet::new();
    for row in table.iter().chain(&layout_only) {
        let (generation, ty, dims) = case(row);
        types.insert(ty.name());
        generations.insert(generation.name());
        let shape = default_layout(ty, &dims, generation).unwrap();
        assert_eq!(shape.to_string(), row["shape"].as_str().unwrap(), "{row}");
        // The layout is valid and its size is what libtpu allocates.
        let tiled = ArrayShape::parse_validated(&shape.to_string())
            .unwrap()
            .tiled()
            .unwrap();
        if let Some(bytes) = row["bytes"].as_u64() {
            assert_eq!(tiled.exact_bytes(), bytes, "{row}");
        }
    }
    // The types measured are the types the rule tiles (tpu::TILING_BITS),
    // on every generation.
    let tiled: std::collections::BTreeSet<&str> = ElementType::ALL
        .iter()
        .filter(|&&t| tiling_bits(t).is_some())
        .map(|t| t.name())
        .collect();
    assert_eq!(types, tiled);
    assert_eq!(generations.len(), Generation::ALL.len(), "{generations:?}");
}

fn tpu_type() -> impl Strategy<Value = ElementType> {
    prop::sample::select(
        ElementType::ALL
            .iter()
            .copied()
            .filter(|&t| tiling_bits(t).is_some())
            .collect::<Vec<_>>(),
    )
}

fn dim() -> impl Strategy<Value = i64> {
    prop_oneof![
        4 => 1i64..10,
        2 => prop::sample::select(vec![15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257]),
        1 => 0i64..3,
        1 => 1i64..5000,
    ]
}

/// The padded byte size as docs/tpu-default-layouts.md states it, from the
/// chosen layout's minor dimensions and tile.
fn documented_bytes(shape: &ArrayShape) -> u64 {
    let ty = shape.element_type();
    let bits = tiling_bits(ty).unwrap() as u64;
    let pack = if bits < 32 { 32 / bits } else { 1 };
    // Bits per stored element: sub-byte types packed, others at full width.
    let stored = if bits < 8 {
        bits
    } else {
        8 * ty.byte_width().unwrap() as u64
    };
    let dims: Vec<u64> = shape.dims().iter().map(|&d| d as u64).collect();
    let layout = shape.layout().unwrap();
    let elements = if dims.contains(&0) {
        0
    } else if dims.is_empty() {
        128 * pack
    } else if dims.len() == 1 {
        let k = layout.tile(0)[0] as u64;
        dims[0].div_ceil(k) * k
    } else {
        let m2m = layout.minor_to_major();
        let (m, s) = (m2m[0] as usize, m2m[1] as usize);
        let rows = layout.tile(0)[0] as u64;
        let others: u64 = (0..dims.len())
            .filter(|&d| d != m && d != s)
            .map(|d| dims[d])
            .product();
        dims[m].div_ceil(128) * 128 * dims[s].div_ceil(rows) * rows * others
    };
    (elements * stored).div_ceil(8)
}

/// Tuple index tables against libtpu's buffer assignments: every arity
/// measured (tools/tpu_defaults/tuple_tables.py), on every generation.
#[test]
fn tuple_tables_match_libtpu() {
    let table = rows(include_str!("../data/tpu_tuple_tables.jsonl"));
    let mut generations = std::collections::BTreeSet::new();
    for row in &table {
        let g = Generation::from_name(row["generation"].as_str().unwrap()).unwrap();
        let arity = row["arity"].as_u64().unwrap();
        generations.insert(g.name());
        assert_eq!(
            g.tuple_table_bytes(arity),
            row["bytes"].as_u64().unwrap(),
            "{row}"
        );
    }
    assert!(table.len() > 150, "{}", table.len());
    assert_eq!(generations.len(), Generation::ALL.len(), "{generations:?}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// The layout is valid, the same on every generation, keeps the shape,
    /// and its exact size is the documented padded size; no other
    /// (minor, second-minor) pair of the same kind pads less data (for
    /// types of 4 bits and more, the rule minimises the padded block).
    #[test]
    fn layouts_are_valid_and_sized_as_documented(ty in tpu_type(), dims in prop::collection::vec(dim(), 0..5)) {
        let shape = match default_layout(ty, &dims, Generation::V5e) {
            // Past the measured size (2^47 bytes) no layout is given; no
            // tile pads more than 4096-fold, so the data alone is past
            // 2^35 bytes.
            Err(xla_layout_core::tpu::TpuError::PastMeasured) => {
                let bits = u128::from(ty.bit_width().unwrap());
                let data: u128 = dims.iter().map(|&d| d as u128).product::<u128>() * bits / 8;
                prop_assert!(data * 4096 > u128::from(xla_layout_core::tpu::MEASURED_BYTES), "{dims:?}");
                return Ok(());
            }
            r => r.unwrap(),
        };
        for &g in Generation::ALL {
            prop_assert_eq!(default_layout(ty, &dims, g).unwrap(), shape);
        }
        prop_assert_eq!(shape.dims(), &dims[..]);
        prop_assert!(shape.validate().is_ok(), "{}", shape);
        let tiled = shape.tiled().unwrap();
        prop_assert_eq!(tiled.exact_bytes(), documented_bytes(&shape), "{}", shape);
        // Every non-empty buffer is a whole number of 512-byte tiles.
        prop_assert!(tiled.exact_bytes().is_multiple_of(512), "{}", shape);
    }
}

#[test]
fn refusals_are_clear() {
    use xla_layout_core::tpu::TpuError;
    assert_eq!(
        default_layout(ElementType::F6E2M3FN, &[2], Generation::V4),
        Err(TpuError::UnsupportedType(ElementType::F6E2M3FN))
    );
    assert_eq!(
        default_layout(ElementType::F32, &[2, -1], Generation::V4),
        Err(TpuError::BadDimension { dim: 1 })
    );
    assert_eq!(
        default_layout(ElementType::TUPLE, &[], Generation::V4)
            .unwrap_err()
            .to_string(),
        "TPUs have no layout for `tuple` elements"
    );
    // At the edge of int64: 2^63 - 1 pred elements pass validation, but
    // padded to whole 1024-element tiles they need 2^63 bytes; 2^63 - 1024
    // elements are their own padded size and just fit.
    let max = i64::MAX;
    assert_eq!(
        default_layout(ElementType::PRED, &[max], Generation::V4),
        Err(TpuError::TooLarge)
    );
    // 2^63 - 1024 elements are their own padded size and fit int64, but
    // pass 2^47 bytes, past which libtpu departs from its rule (a
    // differential run: its size arithmetic overflows); 2^47 bytes
    // exactly are answered, a tile more is not.
    assert_eq!(
        default_layout(ElementType::PRED, &[max - 1023], Generation::V4),
        Err(TpuError::PastMeasured)
    );
    let limit = xla_layout_core::tpu::MEASURED_BYTES as i64;
    let edge = default_layout(ElementType::PRED, &[limit], Generation::V4).unwrap();
    assert_eq!(edge.tiled().unwrap().exact_bytes(), limit as u64);
    assert_eq!(
        default_layout(ElementType::PRED, &[limit + 1], Generation::V4),
        Err(TpuError::PastMeasured)
    );
    // The shapes the run found libtpu departing at, each refused.
    for (ty, dims) in [
        (ElementType::S8, [1, 1, 8388608, 1073741825]),
        (ElementType::BF16, [1, 1, 4194304, 1073741825]),
        (ElementType::F32, [1, 1, 2097153, 1073741313]),
        (ElementType::S4, [1, 1, 2097152, 1073741825]),
    ] {
        assert_eq!(
            default_layout(ty, &dims, Generation::V4),
            Err(TpuError::PastMeasured),
            "{ty:?}"
        );
    }
    // The size validation refuses (2^62 f32s) is refused here too.
    assert_eq!(
        default_layout(ElementType::F32, &[1 << 62], Generation::V4),
        Err(TpuError::TooLarge)
    );
    // Empty arrays whose byte width times the dimensions before the 0
    // passes int64: libtpu 0.0.52 aborted on each marked `None` and
    // answered the others as the rule does (a differential run,
    // 2026-11-28, on v5e; the first also on v4).
    let text = |ty, dims: &[i64]| default_layout(ty, dims, Generation::V5e).map(|s| s.to_string());
    for (ty, dims, libtpu) in [
        (ElementType::F32, &[1 << 61, 0][..], None),
        (
            ElementType::F32,
            &[(1 << 61) - 1, 0],
            Some("f32[2305843009213693951,0]{1,0}"),
        ),
        (ElementType::F32, &[3, 768614336404564651, 0], None),
        (ElementType::BF16, &[1 << 62, 0], None),
        (ElementType::S64, &[1 << 60, 0], None),
        (ElementType::C64, &[1 << 60, 0], None),
        (ElementType::C128, &[1 << 59, 0], None),
        (
            ElementType::C128,
            &[1 << 58, 0],
            Some("c128[288230376151711744,0]{1,0}"),
        ),
        (
            ElementType::S4,
            &[1 << 62, 0],
            Some("s4[4611686018427387904,0]{1,0:E(4)}"),
        ),
        // Dimensions after the 0 do not count.
        (
            ElementType::S64,
            &[0, 1 << 60],
            Some("s64[0,1152921504606846976]{1,0}"),
        ),
    ] {
        match libtpu {
            Some(want) => assert_eq!(text(ty, dims).as_deref(), Ok(want), "{ty:?} {dims:?}"),
            None => assert_eq!(
                text(ty, dims),
                Err(TpuError::ExtentOverflow),
                "{ty:?} {dims:?}"
            ),
        }
    }
}
