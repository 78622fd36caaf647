//! Exhaustive sweeps of the relayouts people run by accident: plain 2-D
//! and 3-D transposes and the TPU tile formats, at sizes on and around
//! every boundary the planner cuts at (tiles, the 32-element blocks and
//! 256-element super-blocks of a blocked transpose). Each copy is checked
//! element by element against `TiledShape::offset` of both layouts, every
//! padding slot against the pad value, and a guard region after the
//! destination against any write; with the default streaming threshold
//! and with streaming forced on, with and without the AVX2 kernels (and
//! AVX-512's registers), for 1-, 2- and 4-byte elements.
//!
//! A planner that let a loop run past its dimension (3 super-blocks of
//! 256 for 544 columns) failed 268 of the 5,625 2-D transposes of
//! `u8[M,N]`, M, N = 8..600 by 8; the sizes here include those.
#![cfg(feature = "std")]

use super::common::{Unit, expected, tiled};
use xla_layout_core::Relayout;

const GUARD: usize = 64;

/// Copies with elements of type `T`, one pass per `T`-sized piece of the
/// slot numbers, and checks every slot, the padding and the guard.
fn check_as<T: Unit>(name: &str, plan: &Relayout, src_slots: usize, want: &[Option<u32>]) {
    let pad = T::from_bits(0xA5A5_A5A5);
    let guard = T::from_bits(0x5A5A_5A5A);
    let bits = 8 * T::BYTES;
    let passes = if src_slots <= 1 {
        1
    } else {
        (32 - (src_slots as u32 - 1).leading_zeros()).div_ceil(bits)
    };
    for pass in 0..passes {
        let piece = |s: u32| T::from_bits(s.checked_shr(pass * bits).unwrap_or(0));
        let input: Vec<T> = (0..src_slots as u32).map(piece).collect();
        let mut out = vec![guard; want.len() + GUARD];
        plan.copy(&input, &mut out, pad).unwrap();
        for (slot, (got, want)) in out.iter().zip(want).enumerate() {
            let want = want.map_or(pad, piece);
            assert!(
                *got == want,
                "{name} ({}-byte elements, pass {pass}): slot {slot} holds {got:?}, not {want:?}",
                T::BYTES
            );
        }
        assert!(
            out[want.len()..].iter().all(|&g| g == guard),
            "{name}: wrote past the destination"
        );
    }
}

/// Relayouts `a` to `b` every way the sweep covers.
fn check(a: &str, b: &str) {
    let (src, dst) = (tiled(a), tiled(b));
    let want = expected(&src, &dst);
    let plan = Relayout::new(&src, &dst).unwrap();
    let name = format!("{a} -> {b}");
    // The walk visits each element exactly once.
    let mut pairs = 0u64;
    plan.for_each_pair(|s, d| {
        assert_eq!(want[d as usize], Some(s as u32), "{name}: pair ({s}, {d})");
        pairs += 1;
    });
    assert_eq!(pairs, src.element_count(), "{name}: pairs walked");
    let slots = src.physical_slots() as usize;
    for plan in [
        plan,
        plan.streaming_from(0),
        plan.streaming_from(0).without_avx512(),
        plan.without_avx2(),
        plan.streaming_from(0).without_avx2(),
    ] {
        check_as::<u8>(&name, &plan, slots, &want);
        check_as::<u16>(&name, &plan, slots, &want);
        check_as::<u32>(&name, &plan, slots, &want);
    }
}

/// Around every cut: 32-element blocks, 256-element super-blocks, and the
/// sizes whose block counts are not multiples of 8 (520, 544).
const SIZES_2D: [u64; 10] = [1, 7, 33, 64, 65, 256, 257, 520, 544, 600];

#[test]
fn two_d_transposes() {
    for m in SIZES_2D {
        for n in SIZES_2D {
            if m * n > 1 << 17 && m != n {
                // The large, unequal pairs are covered by the 544 cases.
                continue;
            }
            check(
                &format!("u8[{m},{n}]{{0,1}}"),
                &format!("u8[{m},{n}]{{1,0}}"),
            );
            check(
                &format!("u8[{m},{n}]{{1,0}}"),
                &format!("u8[{m},{n}]{{0,1}}"),
            );
        }
    }
    // The sizes that first showed the overrun.
    check("f32[64,544]{0,1}", "f32[64,544]{1,0}");
    check("u8[72,576]{0,1}", "u8[72,576]{1,0}");
}

#[test]
fn three_d_transposes() {
    const PERMS: [&str; 6] = ["2,1,0", "2,0,1", "1,2,0", "1,0,2", "0,2,1", "0,1,2"];
    for dims in [
        [2, 33, 65],
        [65, 2, 33],
        [33, 65, 2],
        [64, 3, 520],
        [1, 64, 64],
    ] {
        let [x, y, z] = dims;
        for p in PERMS {
            for q in PERMS {
                if p != q {
                    check(
                        &format!("u8[{x},{y},{z}]{{{p}}}"),
                        &format!("u8[{x},{y},{z}]{{{q}}}"),
                    );
                }
            }
        }
    }
    check(
        "bf16[2,520,8128]{2,0,1:T(1,1)L(1)}",
        "bf16[2,520,8128]{1,2,0:L(1)}",
    );
}

#[test]
fn tpu_tile_formats_both_ways() {
    let formats = [
        ("f32", "T(8,128)"),
        ("f32", "T(4,128)"),
        ("f32", "T(2,128)"),
        ("bf16", "T(8,128)(2,1)"),
        ("bf16", "T(16,128)(2,1)"),
        ("s8", "T(8,128)(4,1)"),
        ("s8", "T(32,128)(4,1)"),
        ("pred", "T(32,128)(32,1)"),
    ];
    for (ty, tile) in formats {
        for rows in [1, 2, 7, 8, 9, 33, 64] {
            for cols in [1, 127, 128, 129, 300] {
                let tpu = format!("{ty}[{rows},{cols}]{{1,0:{tile}}}");
                for host in ["1,0", "0,1"] {
                    let host = format!("{ty}[{rows},{cols}]{{{host}}}");
                    check(&host, &tpu);
                    check(&tpu, &host);
                }
                // Transposed tiles, and a batch dimension outside.
                check(&tpu, &format!("{ty}[{rows},{cols}]{{0,1:{tile}}}"));
                check(
                    &format!("{ty}[3,{rows},{cols}]{{2,1,0}}"),
                    &format!("{ty}[3,{rows},{cols}]{{2,1,0:{tile}}}"),
                );
            }
        }
    }
    // One-dimensional TPU formats, and tail padding.
    for n in [1, 127, 128, 129, 1000, 1024, 1025] {
        check(&format!("f32[{n}]{{0}}"), &format!("f32[{n}]{{0:T(128)}}"));
        check(
            &format!("bf16[{n}]{{0:T(1024)(128)(2,1)}}"),
            &format!("bf16[{n}]{{0}}"),
        );
        check(
            &format!("f32[3,{n}]{{1,0}}"),
            &format!("f32[3,{n}]{{0,1:T(8,128)L(1024)}}"),
        );
    }
}
