//! Padding explanations against hand-computed values, and the invariant
//! that makes them complete: the element count times every rounding's
//! `padded / size` is the tiled slot count, and `L` takes it to the
//! allocation, for every shape libtpu measured (tests/data).
#![cfg(feature = "std")]

use serde_json::Value;
use xla_layout_core::{ArrayShape, Padding};

fn padding(text: &str) -> (Vec<String>, u64, u64) {
    let s = ArrayShape::parse_validated(text).unwrap();
    let p = Padding::new(&s).unwrap();
    let why = p
        .roundings()
        .filter(|r| r.pads())
        .map(|r| r.to_string())
        .collect();
    (why, p.data_bytes(), p.exact_bytes())
}

#[test]
fn reasons_match_hand_computed_values() {
    // The example: 3 columns in 128-wide tiles.
    let (why, data, exact) = padding("f32[8,3]{1,0:T(8,128)}");
    assert_eq!(why, ["d1: 3 → 128 by T(8,128): 42.7×"]);
    assert_eq!((data, exact), (8 * 3 * 4, 8 * 128 * 4));

    // tpu_odd_shapes: bf16[129,500] in (8,128)(2,1): 129 → 136 rows,
    // 500 → 512 columns; the (2,1) level rounds 8 → 8 and 128 → 128.
    let (why, data, exact) = padding("bf16[129,500]{1,0:T(8,128)(2,1)}");
    assert_eq!(
        why,
        [
            "d0: 129 → 136 by T(8,128): 1.05×",
            "d1: 500 → 512 by T(8,128): 1.02×"
        ]
    );
    assert_eq!((data, exact), (129 * 500 * 2, 136 * 512 * 2));

    // A scalar in a (128) tile: the added size-1 dimension becomes 128.
    let (why, data, exact) = padding("s32[]{:T(128)}");
    assert_eq!(why, ["added dim: 1 → 128 by T(128): 128×"]);
    assert_eq!((data, exact), (4, 512));

    // s8[500] in (512)(128)(4,1): only the first level pads.
    let (why, _, exact) = padding("s8[500]{0:T(512)(128)(4,1)}");
    assert_eq!(why, ["d0: 500 → 512 by T(512): 1.02×"]);
    assert_eq!(exact, 512);

    // pred[3,500] in (4,128)(4,1): rows 3 → 4, columns 500 → 512.
    let (why, _, exact) = padding("pred[3,500]{1,0:T(4,128)(4,1)}");
    assert_eq!(
        why,
        [
            "d0: 3 → 4 by T(4,128): 1.33×",
            "d1: 500 → 512 by T(4,128): 1.02×"
        ]
    );
    assert_eq!(exact, 4 * 512);

    // Column-major: the tile lines up with the physical order, so d0 is
    // the minor (128-wide) dimension.
    let (why, _, _) = padding("f32[3,129]{0,1:T(8,128)}");
    assert_eq!(
        why,
        [
            "d1: 129 → 136 by T(8,128): 1.05×",
            "d0: 3 → 128 by T(8,128): 42.7×"
        ]
    );

    // A second level that pads: (1,128) rows then (2,1) pairs of them.
    let (why, _, exact) = padding("bf16[3,128]{1,0:T(1,128)(2,1)}");
    assert_eq!(why, ["d0%1: 1 → 2 by T(2,1): 2×"]);
    assert_eq!(exact, 3 * 2 * 128 * 2);

    // No tiles, no padding.
    let (why, data, exact) = padding("f32[3,129]{1,0}");
    assert!(why.is_empty());
    assert_eq!(data, exact);

    // Tail padding is reported after the tiles. T(8) tiles the minor
    // dimension (128: no padding); L(1024) rounds 200001·128 slots up.
    let s = ArrayShape::parse_validated("f32[200001,128]{1,0:T(8)L(1024)}").unwrap();
    let p = s.padding().unwrap();
    assert_eq!(
        p.to_string(),
        "slots: 25600128 → 25601024 by L(1024): 1.00×"
    );
    assert_eq!(p.tail(), Some((25_600_128, 25_601_024, 1024)));
    let s = ArrayShape::parse_validated("f32[1000]{0:L(1024)}").unwrap();
    assert_eq!(
        s.padding().unwrap().to_string(),
        "slots: 1000 → 1024 by L(1024): 1.02×"
    );
}

/// `elements · Π padded == tiled_slots · Π size`, exactly (in 128 bits).
fn check_invariant(text: &str) {
    let s = ArrayShape::parse_validated(text).unwrap();
    let p = s.padding().unwrap();
    let t = p.tiled();
    let (mut num, mut den) = (t.element_count() as u128, 1u128);
    for r in p.roundings() {
        assert!(r.padded >= r.size, "{text}: {r}");
        assert_eq!(r.padded % r.entry(), 0, "{text}: {r}");
        num *= r.padded as u128;
        den *= r.size.max(1) as u128;
        // Keep the numbers small: both sides stay integers.
        let g = gcd(num, den);
        num /= g;
        den /= g;
    }
    if t.element_count() > 0 {
        assert_eq!(num, t.tiled_slots() as u128 * den, "{text}");
    }
    match p.tail() {
        Some((slots, allocated, alignment)) => {
            assert_eq!(slots, t.tiled_slots());
            assert_eq!(allocated, t.physical_slots());
            assert_eq!(allocated % alignment, 0);
        }
        None => assert_eq!(t.tiled_slots(), t.physical_slots()),
    }
    assert_eq!(p.padding_bytes(), p.exact_bytes() - p.data_bytes());
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 { a.max(1) } else { gcd(b, a % b) }
}

#[test]
fn roundings_account_for_every_padding_slot() {
    let table = include_str!("../data/tpu_defaults.jsonl");
    let mut n = 0;
    for line in table.lines() {
        let row: Value = serde_json::from_str(line).unwrap();
        let shape = row["shape"].as_str().unwrap();
        check_invariant(shape);
        let s = ArrayShape::parse_validated(shape).unwrap();
        assert_eq!(
            s.padding().unwrap().exact_bytes(),
            row["bytes"].as_u64().unwrap()
        );
        n += 1;
    }
    assert!(n > 1000);
    for text in [
        "f32[3,5]{1,0:T(2,2)}",
        "f32[2,3,5]{2,1,0:T(*,4)}",
        "bf16[2048]{0:T(1024)(128)(2,1)}",
        "bf16[8,8]{1,0:T(2,4)(2,1,1,1)}",
        "f32[0,3]{1,0:T(8,128)}",
        "s4[3,5]{1,0:T(8,128)(2,1)E(4)}",
    ] {
        check_invariant(text);
    }
}
