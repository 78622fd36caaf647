//! The streaming kernels' real non-temporal stores (`movntdq`), which Miri
//! cannot run (under Miri they are ordinary stores, see `miri.rs` beside this file):
//! natively, each streaming kernel against the ordinary kernels of the same
//! plan, with the destination starting at every offset in a 64-byte line
//! (in steps of one element) and guard regions before and after it.
//!
//! For each offset, both copies must give the same buffer, guards included;
//! every destination slot must hold what the two layouts' offset functions
//! put there (the pad value for padding); and the guards must be untouched.
//! A store one element off fails all three.
#![cfg(all(feature = "std", not(miri)))]

use core::fmt::Debug;

use super::common::Pair;

/// Guard bytes on each side of a destination: two lines.
const GUARD_BYTES: usize = 128;

/// An element of one width, with a distinct-looking value per source slot
/// that is never the guard.
trait Unit: Copy + PartialEq + Debug {
    const GUARD: Self;
    const PAD: Self;
    fn value(slot: u64) -> Self;
}

/// A well-mixed 64-bit value of `slot` (splitmix64's finaliser).
fn mix(slot: u64) -> u64 {
    let mut z = slot.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

macro_rules! unit {
    ($($t:ty),*) => {$(
        impl Unit for $t {
            const GUARD: Self = <$t>::MAX;
            const PAD: Self = <$t>::MAX / 3 * 2;
            fn value(slot: u64) -> Self {
                let v = (u128::from(mix(slot)) << 64 | u128::from(mix(!slot))) as $t;
                if v == Self::GUARD { v - 1 } else { v }
            }
        }
    )*};
}
unit!(u8, u16, u32, u64, u128);

/// The checks of one relayout (the type is shared; these methods are
/// this module's).
impl Pair {
    /// Every element width the kernels tell apart.
    fn check_all_widths(&self) {
        self.check::<u8>();
        self.check::<u16>();
        self.check::<u32>();
        self.check::<u64>();
        self.check::<u128>();
    }

    /// The streaming copy against the ordinary one and the offsets, at
    /// every element offset in a 64-byte line.
    fn check<T: Unit>(&self) {
        let (name, want, n) = (&self.name, &self.want, self.want.len());
        let size = size_of::<T>();
        let (guard_len, per_line) = (GUARD_BYTES / size, 64 / size);
        let mut buf = vec![T::GUARD; n + 2 * guard_len + 2 * per_line];
        // The first element at a line start (`T`s are aligned to their size).
        let line = (0..per_line)
            .find(|&j| buf[j..].as_ptr().addr().is_multiple_of(64))
            .unwrap();
        let input: Vec<T> = (0..self.src_slots).map(T::value).collect();
        let (ordinary, streaming) = (
            self.plan.streaming_from(usize::MAX),
            self.plan.streaming_from(0),
        );
        for k in 0..per_line {
            let (at, offset) = (line + guard_len + k, k * size);
            let whole = at - guard_len..at + n + guard_len;
            let mut outputs = vec![];
            for (how, plan) in [("ordinary", &ordinary), ("streaming", &streaming)] {
                buf.fill(T::GUARD);
                plan.copy(&input, &mut buf[at..at + n], T::PAD).unwrap();
                let at_offset = format!("{name}, {size}-byte elements at line offset {offset}");
                for (slot, w) in want.iter().enumerate() {
                    let w = w.map_or(T::PAD, T::value);
                    assert!(
                        buf[at + slot] == w,
                        "{at_offset}, {how}: slot {slot} holds {:?}, not {w:?}",
                        buf[at + slot]
                    );
                }
                let guards = buf[whole.start..at].iter().chain(&buf[at + n..whole.end]);
                assert!(
                    guards.copied().all(|g| g == T::GUARD),
                    "{at_offset}, {how}: wrote outside the destination"
                );
                outputs.push(buf[whole.clone()].to_vec());
            }
            assert!(
                outputs[0] == outputs[1],
                "{name}, {size}-byte elements at line offset {offset}: the copies differ"
            );
        }
    }
}

/// Contiguous runs: a head and a tail of ordinary stores around 16-byte
/// streaming ones, at every alignment of each run.
#[test]
fn runs_against_the_ordinary_kernels() {
    for (a, b) in [
        ("f32[4,8]{1,0}", "f32[4,8]{1,0:T(2,4)}"),
        ("f32[100]{0}", "f32[100]{0:T(16)}"),
        ("f32[1000]{0}", "f32[1000]{0:T(256)}"),
        ("f32[6,20]{0,1}", "f32[6,20]{0,1:T(4,8)}"),
        ("f32[33,200]{1,0}", "f32[33,200]{1,0:T(8,128)}"),
        ("f32[33,200]{1,0:T(8,128)}", "f32[33,200]{1,0}"),
    ] {
        Pair::new(a, b).check_all_widths();
    }
}

/// Rows zipped into pairs (16-bit elements) and quads (8-bit), whole tiles
/// streamed and ragged ones left to the ordinary kernels, and back into
/// rows through the carry (part lines held, completed, clashing in the
/// carry's slots, written out at the end).
#[test]
fn zips_and_unzips_against_the_ordinary_kernels() {
    for (a, b) in [
        ("bf16[4,16]{1,0}", "bf16[4,16]{1,0:T(4,8)(2,1)}"),
        ("bf16[5,36]{1,0}", "bf16[5,36]{1,0:T(4,8)(2,1)}"),
        ("bf16[24,300]{1,0}", "bf16[24,300]{1,0:T(8,128)(2,1)}"),
        ("bf16[6,40]{1,0:T(4,16)(2,1)}", "bf16[6,40]{1,0}"),
        ("bf16[5,32]{1,0:T(4,16)(2,1)}", "bf16[5,32]{1,0}"),
        ("bf16[4,8]{1,0:T(4,8)(2,1)}", "bf16[4,8]{1,0}"),
        ("bf16[4,24]{1,0:T(2,8)(2,1)}", "bf16[4,24]{1,0}"),
        ("bf16[64,16]{1,0:T(32,16)(2,1)}", "bf16[64,16]{1,0}"),
        ("bf16[20,300]{1,0:T(8,128)(2,1)}", "bf16[20,300]{1,0}"),
    ] {
        Pair::new(a, b).check::<u16>();
    }
    for (a, b) in [
        ("s8[8,32]{1,0}", "s8[8,32]{1,0:T(4,16)(4,1)}"),
        ("s8[6,40]{1,0}", "s8[6,40]{1,0:T(4,16)(4,1)}"),
        ("s8[40,300]{1,0}", "s8[40,300]{1,0:T(8,128)(4,1)}"),
        ("s8[8,48]{1,0:T(4,16)(4,1)}", "s8[8,48]{1,0}"),
        ("s8[7,32]{1,0:T(4,16)(4,1)}", "s8[7,32]{1,0}"),
        ("s8[70,300]{1,0:T(32,128)(4,1)}", "s8[70,300]{1,0}"),
    ] {
        Pair::new(a, b).check::<u8>();
    }
}
