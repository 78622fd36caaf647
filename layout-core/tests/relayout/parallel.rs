//! `Relayout::copy_parallel` (the `rayon` feature) against the
//! single-thread `Relayout::copy`: the same bytes in the whole
//! destination (padding included) and nothing written past it, for the
//! tile copies cut into 1 to 7 pieces (more pieces than tile rows
//! included), streaming forced on and off, and for the relayouts that do
//! not split (run on the calling thread).
#![cfg(feature = "rayon")]

use super::common::{both_directions, tiled};
use xla_layout_core::{Relayout, RelayoutError};

/// Copies `a` → `b` with `T` elements both ways and compares.
fn same<T: Copy + PartialEq + core::fmt::Debug + Send + Sync>(
    a: &str,
    b: &str,
    value: fn(usize) -> T,
    pad: T,
    guard: T,
) {
    let (src, dst) = (tiled(a), tiled(b));
    let plan = Relayout::new(&src, &dst).unwrap();
    // The source on a 64-byte line, as XLA's host allocator places it
    // (pred's packing then reads whole lines of it, on the cores that do).
    let slots = src.physical_slots() as usize;
    let mut held: Vec<T> = (0..slots + 64).map(value).collect();
    let first = (0..64)
        .find(|&k| (held.as_ptr() as usize + k * size_of::<T>()).is_multiple_of(64))
        .unwrap();
    for (k, x) in held[first..first + slots].iter_mut().enumerate() {
        *x = value(k);
    }
    let input = &held[first..first + slots];
    let n = dst.physical_slots() as usize;
    // The destination on a line and 16 bytes into one (where the pieces'
    // first and last lines are shared with their neighbours').
    let lines = 64 / size_of::<T>();
    let mut buffers = [vec![guard; n + 16 + lines], vec![guard; n + 16 + lines]];
    let at = |buf: &Vec<T>, offset: usize| {
        (0..lines)
            .find(|&k| (buf.as_ptr() as usize + k * size_of::<T>()) % 64 == offset)
            .unwrap()
    };
    for plan in [
        plan,
        plan.streaming_from(0),
        plan.streaming_from(0).without_avx2(),
    ] {
        for offset in [0, 16] {
            let [want, got] = &mut buffers;
            let (w, g) = (at(want, offset), at(got, offset));
            let (want, got) = (&mut want[w..w + n + 16], &mut got[g..g + n + 16]);
            want.fill(guard);
            plan.copy(input, want, pad).unwrap();
            for pieces in 1..=7 {
                got.fill(guard);
                plan.copy_in_pieces(input, got, pad, pieces).unwrap();
                assert!(
                    got == want,
                    "{a} -> {b} at +{offset}: {pieces} pieces differ"
                );
            }
            got.fill(guard);
            plan.copy_parallel(input, got, pad).unwrap();
            assert!(
                got == want,
                "{a} -> {b} at +{offset}: copy_parallel differs"
            );
        }
    }
}

fn both_ways(ty: &str, dims: &str, tile: &str) {
    for (a, b) in &both_directions(ty, dims, tile) {
        match ty {
            "bf16" => same::<u16>(a, b, |k| k as u16, 0xA5A5, 0x5A5A),
            "f32" => same::<u32>(a, b, |k| k as u32, 0xA5A5_A5A5, 0x5A5A_5A5A),
            _ => same::<u8>(a, b, |k| k as u8, 0xA5, 0x5A),
        }
    }
}

#[test]
fn tile_copies_split_into_pieces() {
    for (ty, tile) in [
        ("bf16", "T(8,128)(2,1)"),
        ("s8", "T(8,128)(4,1)"),
        ("f32", "T(8,128)"),
        ("pred", "T(32,128)(32,1)"),
        ("f32", "T(8,6)"),
    ] {
        for dims in ["1,1", "9,300", "64,256", "71,389", "3,17,130"] {
            both_ways(ty, dims, tile);
        }
    }
}

#[test]
fn other_relayouts_run_on_the_calling_thread() {
    same::<u32>("f32[33,65]{1,0}", "f32[33,65]{0,1}", |k| k as u32, 1, 2);
    same::<u16>(
        "bf16[1000]{0:T(1024)(128)(2,1)}",
        "bf16[1000]{0}",
        |k| k as u16,
        1,
        2,
    );
    same::<u8>("u8[0,5]{1,0}", "u8[0,5]{1,0:T(8,128)}", |k| k as u8, 1, 2);
}

#[test]
fn short_buffers_are_refused() {
    let plan = Relayout::new(
        &tiled("bf16[16,256]{1,0}"),
        &tiled("bf16[16,256]{1,0:T(8,128)(2,1)}"),
    )
    .unwrap();
    let mut out = vec![0u16; 16 * 256];
    assert!(matches!(
        plan.copy_parallel(&[0u16; 10], &mut out, 0),
        Err(RelayoutError::SourceTooShort { .. })
    ));
    assert!(matches!(
        plan.copy_parallel(&vec![0u16; 16 * 256], &mut out[..10], 0),
        Err(RelayoutError::DestinationTooShort { .. })
    ));
}
