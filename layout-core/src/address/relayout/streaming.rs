//! Kernels that write with streaming (non-temporal) stores, for large
//! destinations: like `memcpy` for large copies, they do not read each
//! destination line into the cache before overwriting it. x86_64 only
//! (SSE2 is part of its baseline); elsewhere nothing streams.

use super::block::{Block, Line};

/// A streaming kernel, chosen once per copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Streamer {
    /// Contiguous runs.
    Runs,
    /// Two 16-bit rows into pairs (the TPU `(…)(2,1)` formats).
    Zip2x16,
    /// Four 8-bit rows into quads (the `(…)(4,1)` formats).
    Zip4x8,
    /// Pairs back into two 16-bit rows.
    Unzip2x16,
    /// Quads back into four 8-bit rows.
    Unzip4x8,
}

/// The streaming kernel for a plan whose innermost loops are `o` and
/// `i`, if there is one: the shape must match and every block must
/// write 16-byte aligned vectors (`aligned_steps`: all destination
/// steps of the plan are multiples of 16 bytes; `base`: the buffer
/// start is 16-byte aligned).
pub(super) fn choose(
    o: Line,
    i: Line,
    size: usize,
    aligned_steps: bool,
    base: bool,
) -> Option<Streamer> {
    if !cfg!(target_arch = "x86_64") {
        return None;
    }
    if i.src == 1 && i.dst == 1 {
        return Some(Streamer::Runs);
    }
    if !(aligned_steps && base) || o.src != 1 || i.dst != 1 {
        return None;
    }
    if o.dst == i.count {
        return match (i.count, size) {
            (2, 2) => Some(Streamer::Zip2x16),
            (4, 1) => Some(Streamer::Zip4x8),
            _ => None,
        };
    }
    // Unzipped rows start `o.dst` apart: those must be aligned too.
    if i.src == o.count && (o.dst as usize * size).is_multiple_of(16) {
        return match (o.count, size) {
            (2, 2) => Some(Streamer::Unzip2x16),
            (4, 1) => Some(Streamer::Unzip4x8),
            _ => None,
        };
    }
    None
}

/// The non-temporal store `_mm_stream_si128`, except under Miri, which
/// cannot run it (it is inline assembly): there, an ordinary store of the
/// same 16 bytes with the same alignment requirement, so that Miri runs
/// every other line of the streaming kernels (the carry, partial lines,
/// heads and tails) and checks the bounds, alignment and provenance of
/// every store. The non-temporal stores themselves are checked natively
/// against the ordinary kernels, with guards around the destination at
/// every line offset (`layout-core/tests/relayout/streaming_stores.rs`).
#[cfg(target_arch = "x86_64")]
pub(super) mod nt {
    #[cfg(not(miri))]
    pub(in super::super) use core::arch::x86_64::_mm_stream_si128;

    /// As `_mm_stream_si128`, with an ordinary store.
    ///
    /// # Safety
    /// `p` must be 16-byte aligned and writable for 16 bytes.
    #[cfg(miri)]
    #[inline(always)]
    pub(in super::super) unsafe fn _mm_stream_si128(
        p: *mut core::arch::x86_64::__m128i,
        v: core::arch::x86_64::__m128i,
    ) {
        // SAFETY: the caller's contract, which is `_mm_store_si128`'s.
        unsafe { core::arch::x86_64::_mm_store_si128(p, v) }
    }
}

/// Rows zipped into (or unzipped from) one group by `which`.
#[cfg(target_arch = "x86_64")]
const fn group(which: Streamer) -> u64 {
    match which {
        Streamer::Runs => 1,
        Streamer::Zip2x16 | Streamer::Unzip2x16 => 2,
        Streamer::Zip4x8 | Streamer::Unzip4x8 => 4,
    }
}

/// Runs `which` on a block, the `nth` of its repeats; `false` (a block
/// clipped at a ragged edge: fewer rows than a group, or a length that
/// does not fill whole vectors) leaves it to the ordinary kernels.
///
/// # Safety
/// As `super::kernel`; `which` must come from [`choose`] for this plan
/// and these buffers, and `carry` must be finished before the buffers'
/// borrow ends.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) unsafe fn run<T: Copy>(
    which: Streamer,
    b: Block,
    sp: *const T,
    dp: *mut T,
    nth: usize,
    carry: &mut Carry,
) -> bool {
    use core::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_loadu_si128, _mm_packs_epi32, _mm_packus_epi16, _mm_set1_epi32,
        _mm_slli_epi32, _mm_srai_epi32, _mm_srli_epi32, _mm_unpackhi_epi8, _mm_unpackhi_epi16,
        _mm_unpacklo_epi8, _mm_unpacklo_epi16,
    };
    use core::mem::size_of;
    use nt::_mm_stream_si128;
    let (o, i) = (b.outer, b.inner);
    let (s, d) = (b.src as usize, b.dst as usize);
    // SAFETY: every access below is an element of the block, in
    // bounds by the contract; `choose` made every 16-byte store
    // aligned.
    unsafe {
        match which {
            Streamer::Runs => {
                for k in 0..o.count as usize {
                    let from = sp.add(s + k * o.src as usize).cast::<u8>();
                    let to = dp.add(d + k * o.dst as usize).cast::<u8>();
                    stream_bytes(from, to, i.count as usize * size_of::<T>());
                }
            }
            Streamer::Zip2x16 | Streamer::Zip4x8 => {
                let n = o.count as usize;
                // A ragged edge clips the block: the kernel was chosen for
                // whole groups of rows and whole vectors only.
                if i.count != group(which) || !n.is_multiple_of(16 / size_of::<T>()) {
                    return false;
                }
                let rows = i.src as usize;
                let row = |r: usize, c: usize| {
                    _mm_loadu_si128(sp.add(s + r * rows + c).cast::<__m128i>())
                };
                let out = |k: usize| dp.add(d).cast::<__m128i>().add(k);
                if which == Streamer::Zip2x16 {
                    for c in (0..n).step_by(8) {
                        let (a, b) = (row(0, c), row(1, c));
                        _mm_stream_si128(out(c / 4), _mm_unpacklo_epi16(a, b));
                        _mm_stream_si128(out(c / 4 + 1), _mm_unpackhi_epi16(a, b));
                    }
                } else {
                    for c in (0..n).step_by(16) {
                        let (r0, r1) = (row(0, c), row(1, c));
                        let (x, y) = (_mm_unpacklo_epi8(r0, r1), _mm_unpackhi_epi8(r0, r1));
                        let (r2, r3) = (row(2, c), row(3, c));
                        let (z, w) = (_mm_unpacklo_epi8(r2, r3), _mm_unpackhi_epi8(r2, r3));
                        _mm_stream_si128(out(c / 4), _mm_unpacklo_epi16(x, z));
                        _mm_stream_si128(out(c / 4 + 1), _mm_unpackhi_epi16(x, z));
                        _mm_stream_si128(out(c / 4 + 2), _mm_unpacklo_epi16(y, w));
                        _mm_stream_si128(out(c / 4 + 3), _mm_unpackhi_epi16(y, w));
                    }
                }
            }
            Streamer::Unzip2x16 | Streamer::Unzip4x8 => {
                let n = i.count as usize;
                if o.count != group(which) || !n.is_multiple_of(16 / size_of::<T>()) {
                    return false;
                }
                let rows = o.dst as usize;
                let units = n * size_of::<T>() / 16;
                let input = |k: usize| _mm_loadu_si128(sp.add(s).cast::<__m128i>().add(k));
                let to = |r: usize| dp.add(d + r * rows).cast::<__m128i>();
                // The rows of one repeated block get consecutive carry
                // slots; the same rows of the next block along reuse them.
                let slot = |r: usize| nth * o.count as usize + r;
                if which == Streamer::Unzip2x16 {
                    // Each 32-bit lane holds one pair [e o]. Sign-extending
                    // e (shift left, then arithmetic right) or o (arithmetic
                    // right) into the lane makes the signed pack exact: one
                    // shuffle per vector written, where a shuffle-based
                    // split takes five and bounds the copy (measured).
                    let even = |v: __m128i| _mm_srai_epi32::<16>(_mm_slli_epi32::<16>(v));
                    let odd = |v: __m128i| _mm_srai_epi32::<16>(v);
                    // One row at a time (the source block stays in L1):
                    // long runs of streaming stores to one row measured
                    // faster than alternating between rows.
                    carry.write_row(slot(0), to(0), units, |k| {
                        _mm_packs_epi32(even(input(2 * k)), even(input(2 * k + 1)))
                    });
                    carry.write_row(slot(1), to(1), units, |k| {
                        _mm_packs_epi32(odd(input(2 * k)), odd(input(2 * k + 1)))
                    });
                } else {
                    let mask = _mm_set1_epi32(0xFF);
                    for r in 0..4 {
                        carry.write_row(slot(r), to(r), units, |k| {
                            let v: [__m128i; 4] = core::array::from_fn(|j| input(4 * k + j));
                            let byte = |x: __m128i| match r {
                                0 => _mm_and_si128(x, mask),
                                1 => _mm_and_si128(_mm_srli_epi32::<8>(x), mask),
                                2 => _mm_and_si128(_mm_srli_epi32::<16>(x), mask),
                                _ => _mm_srli_epi32::<24>(x),
                            };
                            let lo = _mm_packs_epi32(byte(v[0]), byte(v[1]));
                            let hi = _mm_packs_epi32(byte(v[2]), byte(v[3]));
                            _mm_packus_epi16(lo, hi)
                        });
                    }
                }
            }
        }
    }
    true
}

/// Nothing streams here: every block goes to the ordinary kernels.
///
/// # Safety
/// As the x86_64 `run` (this one touches no memory).
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(super) unsafe fn run<T: Copy>(
    _: Streamer,
    _: Block,
    _: *const T,
    _: *mut T,
    _: usize,
    _: &mut Carry,
) -> bool {
    false
}

pub(super) use carry::Carry;

#[cfg(target_arch = "x86_64")]
mod carry {
    use super::nt::_mm_stream_si128;
    use core::arch::x86_64::{__m128i, _mm_setzero_si128, _mm_store_si128};

    /// How many destination rows can each hold back one part line.
    const ROWS: usize = 16;

    /// The part of a destination line that one block writes, held back
    /// until the next block of the same row writes the rest.
    ///
    /// Why: a streaming store that fills only part of a line is written
    /// to memory as a partial write, much slower than a whole line. When
    /// the destination does not start on a 64-byte line (a `Vec` from
    /// the system allocator starts 16 bytes into one), every row a block
    /// writes begins and ends inside a line whose other part belongs to
    /// the neighbouring tile, written a block later. Holding that part
    /// back makes every streaming store part of a whole line, written in
    /// address order. Measured on the `bf16[8192,8192]` TPU → host unzip
    /// kernel with the destination 16 bytes into a line: 14 ms without,
    /// 9 ms with, as fast as into a line-aligned destination.
    #[derive(Clone, Copy)]
    struct Part {
        /// Where the held units go (the start of a line).
        at: *mut __m128i,
        /// How many 16-byte units are held (0 to 3).
        len: usize,
        units: [__m128i; 3],
    }

    /// Part lines held back, one per destination row (by row number
    /// modulo [`ROWS`]; a clash writes the older part out at once).
    pub(in super::super) struct Carry {
        rows: [Part; ROWS],
    }

    impl Carry {
        pub(in super::super) fn new() -> Carry {
            // SAFETY: SSE2 is part of x86_64.
            let zero = unsafe { _mm_setzero_si128() };
            Carry {
                rows: [Part {
                    at: core::ptr::null_mut(),
                    len: 0,
                    units: [zero; 3],
                }; ROWS],
            }
        }

        /// Writes `count` 16-byte units to `to` (16-byte aligned), the
        /// `k`-th being `unit(k)`: whole lines with streaming stores, the
        /// head completing the part line the row's previous block held
        /// back, the tail held back in turn.
        ///
        /// # Safety
        /// `to` must be writable for `count` units, and stay so until
        /// [`Carry::finish`].
        #[inline(always)]
        pub(in super::super) unsafe fn write_row(
            &mut self,
            row: usize,
            to: *mut __m128i,
            count: usize,
            unit: impl Fn(usize) -> __m128i,
        ) {
            let start = to as usize;
            // Units before the first line boundary, and after the last.
            let head = (start.wrapping_neg() % 64) / 16;
            let tail = ((start + 16 * count) % 64) / 16;
            // SAFETY: every unit written below is one of the `count`
            // at `to`, or one held from an earlier call, whose
            // destination the caller keeps writable.
            unsafe {
                if head + tail > count {
                    // Inside one line: nothing whole to stream.
                    for k in 0..count {
                        _mm_store_si128(to.add(k), unit(k));
                    }
                    return;
                }
                let part = &mut self.rows[row % ROWS];
                if head > 0 {
                    if part.len > 0 && part.at.add(part.len) == to {
                        for k in 0..part.len {
                            _mm_stream_si128(part.at.add(k), part.units[k]);
                        }
                        part.len = 0;
                        for k in 0..head {
                            _mm_stream_si128(to.add(k), unit(k));
                        }
                    } else {
                        for k in 0..head {
                            _mm_store_si128(to.add(k), unit(k));
                        }
                    }
                }
                for k in head..count - tail {
                    _mm_stream_si128(to.add(k), unit(k));
                }
                if tail > 0 {
                    part.write_out();
                    part.at = to.add(count - tail);
                    part.len = tail;
                    for k in 0..tail {
                        part.units[k] = unit(count - tail + k);
                    }
                }
            }
        }

        /// Writes out every part still held.
        pub(in super::super) fn finish(&mut self) {
            for part in &mut self.rows {
                // SAFETY: `write_row`'s contract keeps each held
                // destination writable until here.
                unsafe { part.write_out() };
            }
        }
    }

    impl Part {
        /// Stores the held units (ordinary stores: the line's other part
        /// was written some other way) and holds nothing.
        ///
        /// # Safety
        /// The held units' destination must still be writable (as
        /// [`Carry::write_row`] requires until [`Carry::finish`]).
        unsafe fn write_out(&mut self) {
            for k in 0..self.len {
                // SAFETY: the caller's.
                unsafe { _mm_store_si128(self.at.add(k), self.units[k]) };
            }
            self.len = 0;
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod carry {
    /// Nothing streams here, so nothing is held back.
    pub(in super::super) struct Carry;

    impl Carry {
        pub(in super::super) fn new() -> Carry {
            Carry
        }

        pub(in super::super) fn finish(&mut self) {}
    }
}

/// Copies `n` bytes with streaming stores for the 16-byte aligned part.
///
/// # Safety
/// `from` must be readable and `to` writable for `n` bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn stream_bytes(from: *const u8, to: *mut u8, n: usize) {
    use core::arch::x86_64::{__m128i, _mm_loadu_si128};
    use nt::_mm_stream_si128;
    let head = ((to as usize).wrapping_neg() % 16).min(n);
    // SAFETY: all within the n bytes of the caller's contract.
    unsafe {
        core::ptr::copy_nonoverlapping(from, to, head);
        let mut k = head;
        while k + 16 <= n {
            let v = _mm_loadu_si128(from.add(k).cast::<__m128i>());
            _mm_stream_si128(to.add(k).cast::<__m128i>(), v);
            k += 16;
        }
        core::ptr::copy_nonoverlapping(from.add(k), to.add(k), n - k);
    }
}

/// Orders the streaming stores before whatever follows the copy (under
/// Miri, whose stores here are ordinary ones, nothing: it cannot run
/// `sfence`).
#[inline]
pub(super) fn fence() {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: SSE is part of x86_64.
    unsafe {
        core::arch::x86_64::_mm_sfence()
    };
}

/// Asks for the lines of `bytes` bytes from `p` to be loaded into L2
/// (`T1`; a hint: no access is made, and `p` may be any address).
#[inline(always)]
pub(super) fn prefetch(p: *const u8, bytes: usize) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    ask::<{ core::arch::x86_64::_MM_HINT_T1 }>(p, bytes);
    let _ = (p, bytes);
}

/// As [`prefetch`], into the first-level cache (`T0`): for lines read
/// within a few hundred nanoseconds, as packing's next row group in the
/// source's order (on Zen 5 0.02–0.1× of the NT copy ahead of `T1`,
/// BENCHMARKS.md), and on Zen 5 where it measured ahead although the
/// lines are read later: pred's pipeline (`tile_kernels::next_share`),
/// packing in the destination's order (`Tiles::prefetch_band_share`)
/// and unpacking through the lines (`lines::Hint`).
#[inline(always)]
pub(super) fn prefetch_near(p: *const u8, bytes: usize) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    ask::<{ core::arch::x86_64::_MM_HINT_T0 }>(p, bytes);
    let _ = (p, bytes);
}

/// A prefetch with `HINT` of every line of `bytes` bytes from `p`. Not
/// under Miri: a hint changes nothing it could check.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[inline(always)]
fn ask<const HINT: i32>(p: *const u8, bytes: usize) {
    for k in (0..bytes).step_by(64) {
        // SAFETY: a prefetch reads nothing; `wrapping_add` makes no claim
        // about the address.
        unsafe { core::arch::x86_64::_mm_prefetch::<HINT>(p.wrapping_add(k).cast()) };
    }
}

/// Destinations at least this large are written with streaming stores.
pub(super) const STREAM_THRESHOLD: usize = 8 << 20;
