//! Kernels that write with streaming (non-temporal) stores, for large
//! destinations: like `memcpy` for large copies, they do not read each
//! destination line into the cache before overwriting it. x86_64 only
//! (SSE2 is part of its baseline); elsewhere nothing streams.

use super::kernels::{Block, Line};

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

/// Runs `which` on a block; `false` (a block whose length does not
/// fill whole vectors, at a ragged edge) leaves it to the ordinary
/// kernels.
///
/// # Safety
/// As `super::kernel`; `which` must come from [`choose`] for this plan
/// and these buffers.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) unsafe fn run<T: Copy>(which: Streamer, b: Block, sp: *const T, dp: *mut T) -> bool {
    use core::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_loadu_si128, _mm_packs_epi32, _mm_packus_epi16, _mm_set1_epi32,
        _mm_shuffle_epi32, _mm_shufflehi_epi16, _mm_shufflelo_epi16, _mm_srli_epi32,
        _mm_stream_si128, _mm_unpackhi_epi8, _mm_unpackhi_epi16, _mm_unpackhi_epi64,
        _mm_unpacklo_epi8, _mm_unpacklo_epi16, _mm_unpacklo_epi64,
    };
    use core::mem::size_of;
    let (o, i) = (b.outer, b.inner);
    let (s, d) = (b.src as usize, b.dst as usize);
    // SAFETY (below): every access is an element of the block, in
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
                if !n.is_multiple_of(16 / size_of::<T>()) {
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
                if !n.is_multiple_of(16 / size_of::<T>()) {
                    return false;
                }
                let rows = o.dst as usize;
                let input = |k: usize| _mm_loadu_si128(sp.add(s).cast::<__m128i>().add(k));
                let out = |r: usize, c: usize| dp.add(d + r * rows + c).cast::<__m128i>();
                if which == Streamer::Unzip2x16 {
                    // [e0 o0 e1 o1 e2 o2 e3 o3] → [e0 e1 e2 e3 o0 o1 o2 o3]
                    let split = |v: __m128i| {
                        let v = _mm_shufflehi_epi16::<0b11_01_10_00>(_mm_shufflelo_epi16::<
                            0b11_01_10_00,
                        >(v));
                        _mm_shuffle_epi32::<0b11_01_10_00>(v)
                    };
                    // One row at a time (the source block stays in L1):
                    // long runs of streaming stores to one row measured
                    // faster than alternating between rows.
                    for r in 0..2 {
                        for c in (0..n).step_by(8) {
                            let (a, b) = (split(input(c / 4)), split(input(c / 4 + 1)));
                            let v = if r == 0 {
                                _mm_unpacklo_epi64(a, b)
                            } else {
                                _mm_unpackhi_epi64(a, b)
                            };
                            _mm_stream_si128(out(r, c), v);
                        }
                    }
                } else {
                    let mask = _mm_set1_epi32(0xFF);
                    for r in 0..4 {
                        for c in (0..n).step_by(16) {
                            let v: [__m128i; 4] = core::array::from_fn(|k| input(c / 4 + k));
                            let byte = |x: __m128i| match r {
                                0 => _mm_and_si128(x, mask),
                                1 => _mm_and_si128(_mm_srli_epi32::<8>(x), mask),
                                2 => _mm_and_si128(_mm_srli_epi32::<16>(x), mask),
                                _ => _mm_srli_epi32::<24>(x),
                            };
                            let lo = _mm_packs_epi32(byte(v[0]), byte(v[1]));
                            let hi = _mm_packs_epi32(byte(v[2]), byte(v[3]));
                            _mm_stream_si128(out(r, c), _mm_packus_epi16(lo, hi));
                        }
                    }
                }
            }
        }
    }
    true
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(super) unsafe fn run<T: Copy>(_: Streamer, _: Block, _: *const T, _: *mut T) -> bool {
    false
}

/// Copies `n` bytes with streaming stores for the 16-byte aligned part.
///
/// # Safety
/// `from` must be readable and `to` writable for `n` bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn stream_bytes(from: *const u8, to: *mut u8, n: usize) {
    use core::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
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

/// Orders the streaming stores before whatever follows the copy.
#[inline]
pub(super) fn fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE is part of x86_64.
    unsafe {
        core::arch::x86_64::_mm_sfence()
    };
}

/// Destinations at least this large are written with streaming stores.
pub(super) const STREAM_THRESHOLD: usize = 8 << 20;
