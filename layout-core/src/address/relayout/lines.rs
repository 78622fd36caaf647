//! Destination line assembly for row streams: several destination rows
//! written a part at a time (unpacking tiles writes each tile's rows to
//! `R` rows of the destination), each part continuing its row, at any
//! byte alignment.
//!
//! A streaming store that fills only part of a 64-byte line is written to
//! memory as a slow partial write; so is a line whose parts are streamed
//! far apart in time. Here every line a part completes is written whole
//! with streaming stores: a part's bytes up to its first line boundary
//! join the bytes its row's previous part left in the row's held line,
//! the whole lines that follow go straight out, and the bytes after the
//! last boundary are held until the row's next part. Rows whose parts
//! start on line boundaries go straight out with nothing held.
//!
//! Where the parts come from a stage whose rows can each keep a line
//! before them, [`write_window`] does the same joining in the stage:
//! each row's last line stays in front of its next part, and every line
//! written is one unaligned load away, with nothing to shuffle or track.

/// Rows that can be written at once: the rows of one band of tiles.
pub(super) const MAX_ROWS: usize = 32;

/// The held line of one row and the space to assemble it: the line's
/// bytes are `bytes[64..64 + len]`, bound for `at`; `bytes[..64]` and
/// `bytes[128..]` take the overhang of whole-vector copies.
#[repr(C, align(64))]
struct Held {
    bytes: [u8; 192],
}

/// Bytes of the stage: a span of tiles (or a row group), joined into
/// lines. Rows of pred's 4 KiB tiles that start off the line grid got
/// their 512-byte parts from 16 KiB, not 256-byte ones from 8 KiB: on
/// Zen 5 from memory 0.66–0.72× → 0.81–0.86× of the NT copy
/// (BENCHMARKS.md), through [`Lines`], whose joining per part was their
/// limit; joined in the stage ([`write_window`], with the 512-bit
/// transposes), 16 KiB and 8 KiB ran even from memory, 16 KiB ahead near
/// the core (28.4 against 26.8 GiB/s).
const STAGE_BYTES: usize = 16384;
/// Room past a span's bytes for [`write_window`]: a line before each
/// row's part (see [`windows`]).
#[cfg(target_arch = "x86_64")]
const WINDOW_ROOM: usize = 64 * MAX_ROWS;
/// Bytes of the stage a span takes when its rows go out straight
/// ([`stream_lines`]), and on cores other than Zen 5 (for rows joined
/// into lines either way, and for pred's too on Zen 5 where its rows
/// are whole lines): there 16 KiB
/// stages ran slower from memory (pred on Zen 5 by about 0.08× of the NT
/// copy; with 1 KiB parts, before Zen 5, bf16 and s8 by up to 0.15× and
/// pred by up to 0.34×, BENCHMARKS.md): what the stage takes from L1 is
/// what the source's lines in flight need.
const STRAIGHT_BYTES: usize = 8192;
const _: () = assert!(STRAIGHT_BYTES <= STAGE_BYTES);
const _: () = assert!(STRAIGHT_BYTES >= super::tile_kernels::MAX_GROUP_BYTES);

/// Parts shorter than this cost more to join into lines than to move:
/// spans of tiles make them at least this long where the stage allows.
const PART_BYTES: usize = 512;

/// Where the row groups being written are spread first: room for
/// [`Lines::span`] tiles and a line before each of their rows
/// ([`windows`]), 64-byte aligned. A value apart from [`Lines`],
/// so that the pointers into it stay valid while `Lines::write` borrows
/// the lines.
#[cfg(target_arch = "x86_64")]
#[repr(C, align(64))]
pub(super) struct Stage(pub(super) [u8; STAGE_BYTES + WINDOW_ROOM]);

#[cfg(target_arch = "x86_64")]
impl Stage {
    pub(super) const fn new() -> Stage {
        Stage([0; STAGE_BYTES + WINDOW_ROOM])
    }
}

/// Per-row held lines.
pub(in super::super) struct Lines {
    held: [Held; MAX_ROWS],
    len: [usize; MAX_ROWS],
    at: [*mut u8; MAX_ROWS],
}

impl Lines {
    /// Streaming runs on x86_64 only (elsewhere `Lines` is only named).
    #[cfg(target_arch = "x86_64")]
    pub(super) fn new() -> Lines {
        Lines {
            held: core::array::from_fn(|_| Held { bytes: [0; 192] }),
            len: [0; MAX_ROWS],
            at: [core::ptr::null_mut(); MAX_ROWS],
        }
    }

    /// How many tiles of `tile` bytes (rows of `row` bytes) to spread
    /// into the stage at once: enough that each row's part is
    /// [`PART_BYTES`] long, as many as the stage holds: all of it
    /// ([`STAGE_BYTES`]) with `big` (parts joined into lines, through
    /// [`Lines`] or [`write_window`], where that was measured: pred on
    /// Zen 5), else [`STRAIGHT_BYTES`]; `None` if
    /// not one does (the stage then holds a row group, at most
    /// [`super::tile_kernels::MAX_GROUP_BYTES`]).
    pub(super) const fn span(tile: usize, row: usize, big: bool) -> Option<usize> {
        let stage = if big { STAGE_BYTES } else { STRAIGHT_BYTES };
        let by_stage = stage / tile;
        let by_part = PART_BYTES.div_ceil(row);
        match (by_stage, by_part) {
            (0, _) => None,
            (s, p) if s < p => Some(s),
            (_, p) => Some(p),
        }
    }

    /// Writes out the held bytes of every row with ordinary stores (the
    /// rest of each line was written some other way, or is not the
    /// destination's) and holds nothing.
    ///
    /// # Safety
    /// Every held destination must still be writable (see
    /// [`Lines::write`]).
    pub(super) unsafe fn flush(&mut self) {
        for row in 0..MAX_ROWS {
            // SAFETY: the caller's contract.
            unsafe { self.flush_row(row) };
        }
    }

    /// # Safety
    /// As [`Lines::flush`].
    #[inline(always)]
    unsafe fn flush_row(&mut self, row: usize) {
        let len = self.len[row];
        if len > 0 {
            // SAFETY: the held bytes' destination is writable (the
            // caller's contract), the held bytes are `len` of 192.
            unsafe {
                core::ptr::copy_nonoverlapping(
                    self.held[row].bytes.as_ptr().add(64),
                    self.at[row],
                    len,
                )
            };
            self.len[row] = 0;
        }
    }

    /// Writes the `n` bytes at `from` to `to` as part of row `row`'s
    /// stream (see the module docs), asking for the source lines from
    /// `ahead` on, one for each line written. With `AVX`, the caller runs
    /// with AVX2 (SSSE3's byte shuffle joins a line's held and new bytes).
    ///
    /// `ahead` is where the caller reads next (see [`Hint`]). With
    /// streaming stores going out, the hardware's prefetchers did not
    /// keep the source coming, and each span's reads waited for memory;
    /// one hint per line written keeps the reads going during the
    /// writes. Measured
    /// interleaved from memory (BENCHMARKS.md), through this stage: bf16
    /// and s8 gained about 0.2× the NT copy, f32 (whose rows go out
    /// straight from the source) 0.25×, pred 0.1–0.2×; asked for in one
    /// burst per span, or a row's share before each row, they gained
    /// less.
    ///
    /// # Safety
    /// `from` must be readable and `to` writable for `n` bytes, and stay
    /// writable until the next [`Lines::flush`]; `row < MAX_ROWS`; the
    /// destinations of different rows' writes must not overlap. `ahead`
    /// is never accessed (only hinted at), so it has no requirement.
    #[inline(always)]
    pub(super) unsafe fn write<const AVX: bool>(
        &mut self,
        row: usize,
        (from, ahead): (*const u8, Hint),
        to: *mut u8,
        n: usize,
    ) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the caller's contract.
        unsafe {
            self.write_x86::<AVX>(row, (from, ahead), to, n)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (row, ahead);
        #[cfg(not(target_arch = "x86_64"))]
        // SAFETY: the caller's contract.
        unsafe {
            core::ptr::copy_nonoverlapping(from, to, n)
        };
    }

    /// [`Lines::write`] with SSE2 streaming stores. Bytes just stored
    /// are never loaded back at another size or offset (such a load
    /// waits for the store to reach the cache): a line the part
    /// completes is streamed from the held units and from the part
    /// itself, and only the unit that straddles the two (rows that do
    /// not start on 16 bytes) is joined in registers (SSSE3) or, with
    /// SSE2 alone, through memory.
    ///
    /// # Safety
    /// As [`Lines::write`].
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn write_x86<const AVX: bool>(
        &mut self,
        row: usize,
        (from, ahead): (*const u8, Hint),
        to: *mut u8,
        n: usize,
    ) {
        use super::streaming::nt::_mm_stream_si128;
        use core::arch::x86_64::{
            __m128i, _mm_and_si128, _mm_load_si128, _mm_loadu_si128, _mm_or_si128, _mm_storeu_si128,
        };
        let mut held = self.held[row].bytes.as_mut_ptr();
        let len = self.len[row];
        // One line of `ahead` asked for per line streamed, in order.
        let mut hint = ahead;
        // SAFETY: reads stay in `from[..n]` and in the tables,
        // writes in `to[..n]`, in the held line's destination (writable
        // by the contract of the write that held it) and in `held` (192
        // bytes: a 64-byte copy lands at most at 64 + 63 + 64); the
        // streamed lines are 64-byte aligned.
        unsafe {
            let load = |p: *const u8| _mm_loadu_si128(p.cast::<__m128i>());
            let stream = |p: *mut u8, v| _mm_stream_si128(p.cast::<__m128i>(), v);
            let mut k;
            if len > 0 && self.at[row].add(len) == to && n >= 64 - len {
                // This part completes the held line.
                ask_next(&mut hint);
                let at = self.at[row];
                let need = 64 - len;
                let (whole, part) = (len / 16, len % 16);
                for u in 0..whole {
                    stream(at.add(16 * u), _mm_load_si128(held.add(64 + 16 * u).cast()));
                }
                let mut u = whole;
                if part > 0 {
                    // Held bytes 0..part of unit `whole`, then the part's.
                    let unit = if AVX && n >= 16 {
                        #[cfg(target_feature = "ssse3")]
                        let shift = core::arch::x86_64::_mm_shuffle_epi8;
                        #[cfg(not(target_feature = "ssse3"))]
                        let shift = ssse3_shuffle;
                        let h = _mm_load_si128(held.add(64 + 16 * u).cast());
                        let keep = load(KEEP.0.as_ptr().add(16 - part));
                        let moved = shift(load(from), load(SHIFT.0.as_ptr().add(16 - part)));
                        _mm_or_si128(_mm_and_si128(h, keep), moved)
                    } else {
                        // `16 - part <= need <= n` bytes.
                        core::ptr::copy_nonoverlapping(from, held.add(64 + len), 16 - part);
                        _mm_load_si128(held.add(64 + 16 * u).cast())
                    };
                    stream(at.add(16 * u), unit);
                    u += 1;
                }
                for u in u..4 {
                    stream(at.add(16 * u), load(from.add(16 * u - len)));
                }
                self.len[row] = 0;
                k = need;
            } else if len > 0 && self.at[row].add(len) == to {
                // Too short to complete it: held on.
                core::ptr::copy_nonoverlapping(from, held.add(64 + len), n);
                self.len[row] += n;
                return;
            } else {
                self.flush_row(row);
                // Again: `flush_row` borrowed all of `self`.
                held = self.held[row].bytes.as_mut_ptr();
                // Up to the first line boundary: shared with bytes that
                // are not this row's, written with ordinary stores.
                let head = ((to as usize).wrapping_neg() % 64).min(n);
                if head > 0 {
                    // (A call to `memcpy` for no bytes, per part, cost
                    // pred's unpacking 0.1× of the copy limit.)
                    core::ptr::copy_nonoverlapping(from, to, head);
                }
                k = head;
            }
            let whole = (n - k) / 64 * 64;
            stream_lines::<AVX>((from.add(k), &mut hint), to.add(k), whole);
            k += whole;
            let tail = n - k;
            if tail > 0 {
                // Held: bytes[64..64 + tail] = from[k..n].
                if n >= 64 {
                    for j in 0..4 {
                        _mm_storeu_si128(
                            held.add(tail + 16 * j).cast(),
                            load(from.add(n - 64 + 16 * j)),
                        );
                    }
                } else {
                    core::ptr::copy_nonoverlapping(from.add(k), held.add(64), tail);
                }
                self.len[row] = tail;
                self.at[row] = to.add(k);
            }
        }
    }
}

/// Streams `n` bytes (a multiple of 64) from `from` to the 64-byte
/// aligned `to`, whole lines, asking for the line at `hint` with each
/// line (see [`Lines::write`] and [`Hint`]). Rows whose
/// parts are all whole lines take this straight, without [`Lines`]: its
/// bookkeeping per part cost pred's unpacking about 0.1× of the copy
/// limit (BENCHMARKS.md).
///
/// # Safety
/// `n` is a multiple of 64; `from` readable and `to` writable for `n`
/// bytes; `to` 64-byte aligned when `n > 0`; with `AVX`, the caller runs
/// with AVX2.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(super) unsafe fn stream_lines<const AVX: bool>(
    (from, _): (*const u8, &mut Hint),
    to: *mut u8,
    n: usize,
) {
    // Streaming runs on x86_64 only; elsewhere a plain copy.
    // SAFETY: the caller's contract.
    unsafe { core::ptr::copy_nonoverlapping(from, to, n) };
}

/// As above, on x86_64.
///
/// # Safety
/// As above.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) unsafe fn stream_lines<const AVX: bool>(
    (from, hint): (*const u8, &mut Hint),
    to: *mut u8,
    n: usize,
) {
    use super::streaming::nt::_mm_stream_si128;
    use core::arch::x86_64::{__m128i, _mm_loadu_si128};
    debug_assert!(n.is_multiple_of(64) && (n == 0 || (to as usize).is_multiple_of(64)));
    for k in (0..n).step_by(64) {
        ask_next(hint);
        // SAFETY: inside the caller's `n` bytes; `to + k` starts a line.
        unsafe {
            if AVX {
                // 32-byte loads, as the AVX2 kernels stored the stage,
                // and 32-byte streaming stores: half as many stores.
                use core::arch::x86_64::{_mm256_loadu_si256, _mm256_stream_si256};
                for j in 0..2 {
                    let v = _mm256_loadu_si256(from.add(k + 32 * j).cast());
                    _mm256_stream_si256(to.add(k + 32 * j).cast(), v);
                }
            } else {
                for j in 0..4 {
                    let v = _mm_loadu_si128(from.add(k + 16 * j).cast::<__m128i>());
                    _mm_stream_si128(to.add(k + 16 * j).cast::<__m128i>(), v);
                }
            }
        }
    }
}

/// How [`write_window`] lays out a stage at `stage` for parts of `part`
/// bytes, `part` a multiple of 64: where row 0's part starts, and the
/// rows' pitch. Each row's part starts a line, with the line before it
/// the row's own (the held line, see [`write_window`]). Post-condition:
/// `rows` rows fit in the first `rows·(part + 64)` bytes, inside a
/// [`Stage`] when `rows·part` bytes fit its span ([`Lines::span`]) and
/// `rows <= MAX_ROWS`.
pub(super) const fn windows(stage: *mut u8, part: usize) -> (*mut u8, usize) {
    (stage.wrapping_add(64), part + 64)
}

/// Writes a row's part of `n` bytes, staged at `from` (laid out by
/// [`windows`]), to `to`, in whole lines with streaming stores, asking
/// for the line at `hint` with each (as [`Lines::write`]). The bytes up
/// to `to`'s first line boundary go with ordinary stores when the part
/// is the row's `first`; otherwise the row's previous part, which ended
/// at `to`, left its last line in the line before `from`, so the line
/// `to`'s bytes start is whole and goes out with the rest. Each line is
/// read unaligned from the stage (two 32-byte loads with AVX2), `to % 64`
/// bytes before a line of it.
/// A part that is not the row's `last` leaves its own last line before
/// `from` for the next; the `last` one writes what is left with
/// ordinary stores.
///
/// Measured on Zen 5 against [`Lines::write`], interleaved, with the
/// same AVX2 transposes (BENCHMARKS.md): near the core, unpacking rows
/// off the line grid, bf16 27 → 31 GiB/s, s8 24 → 28, pred 23 → 28; from
/// memory, per run of five, 16 bytes into a line bf16 +0.07…+0.15× of
/// the NT copy, s8 +0.03…+0.09×, pred +0.01…+0.10×, and at 8191×8190 s8
/// +0.05…+0.10×, pred +0.02…+0.06×, bf16 −0.06…+0.04×. Unmeasured on
/// other cores, where it writes the same lines in the same order (but a
/// row's last bytes at once, not when the band ends).
///
/// # Safety
/// `from` is readable for `n` bytes, and the 64 bytes before it, which
/// are the row's alone, readable and writable (a 64-byte aligned `from`
/// keeps every load within two lines of the stage: for speed only);
/// `to` is writable for `n` bytes. Unless `last`, `n` is a multiple of 64 (at
/// least 64) and the row's next part goes to `to + n` with the same
/// `from`. Unless `first`, this row's previous part ended at `to`, was
/// not `last`, and was staged at this `from`. With `AVX`, the caller runs
/// with AVX2.
#[inline(always)]
pub(super) unsafe fn write_window<const AVX: bool>(
    (from, hint): (*mut u8, &mut Hint),
    to: *mut u8,
    n: usize,
    (first, last): (bool, bool),
) {
    let a = to as usize % 64;
    // SAFETY: the stage's reads stay in `from - 64 .. from + n`, the
    // writes in the held line and in `to - a .. to + n`, whose first `a`
    // bytes are this row's when not `first` (the contract); the lines
    // streamed start at `to - a + start`, on the grid.
    unsafe {
        // Where whole lines start, counted from `a` bytes before the part:
        // at the held line, or past the part's head.
        let start = if first && a > 0 {
            core::ptr::copy_nonoverlapping(from, to, (64 - a).min(n));
            64
        } else {
            0
        };
        let whole = (n + a).saturating_sub(start) / 64 * 64;
        let (s, d) = match start {
            // The held line, in the stage and (not `first`, or `a == 0`)
            // in the row.
            0 => (from.sub(a), to.sub(a)),
            // Past the head: past the part too when the part is shorter
            // than the head, and then neither is read or written.
            _ => (from.wrapping_add(64 - a), to.wrapping_add(64 - a)),
        };
        stream_lines::<AVX>((s, hint), d, whole);
        let done = start + whole;
        if last {
            if n + a > done {
                core::ptr::copy_nonoverlapping(s.add(whole), d.add(whole), n + a - done);
            }
        } else if a > 0 {
            // Its last `a` bytes are the next part's head.
            core::ptr::copy_nonoverlapping(from.add(n - 64), from.sub(64), 64);
        }
    }
}

/// Where a copy through [`Lines`] reads next: the line it asks for with
/// each line it writes, and into which cache.
#[derive(Clone, Copy)]
// Only x86_64 asks; elsewhere a hint is carried and dropped.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(super) struct Hint {
    /// The next line to ask for (any address: a hint never faults), or
    /// null for no hints.
    pub(super) at: *const u8,
    /// Into L1 (`T0`), else into L2 (`T1`). Zen 5 asks into L1: measured
    /// there interleaved from memory 16 bytes into a line (BENCHMARKS.md),
    /// unpacking bf16 gained 0.03–0.09× of the NT copy, s8, pred and f32
    /// ran even; the other cores keep L2, where their asks were measured.
    pub(super) near: bool,
}

impl Hint {
    /// No hints.
    pub(super) const NONE: Hint = Hint {
        at: core::ptr::null(),
        near: false,
    };

    /// With `ask`, asking for the lines from `at` on (into L1 when
    /// `near`); else no hints.
    pub(super) const fn new(ask: bool, at: *const u8, near: bool) -> Hint {
        match ask {
            true => Hint { at, near },
            false => Hint::NONE,
        }
    }
}

/// Asks for the line at `hint` and moves it on by a line; nothing if it
/// is null (no hints wanted).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn ask_next(hint: &mut Hint) {
    if !hint.at.is_null() {
        match hint.near {
            true => super::streaming::prefetch_near(hint.at, 1),
            false => super::streaming::prefetch(hint.at, 1),
        }
        hint.at = hint.at.wrapping_add(64);
    }
}

/// `_mm_shuffle_epi8` where the build does not enable SSSE3: only reached
/// from code compiled with AVX2 (which includes it).
///
/// # Safety
/// The CPU must run SSSE3.
#[cfg(all(target_arch = "x86_64", not(target_feature = "ssse3")))]
#[inline(always)]
unsafe fn ssse3_shuffle(
    v: core::arch::x86_64::__m128i,
    m: core::arch::x86_64::__m128i,
) -> core::arch::x86_64::__m128i {
    // SAFETY: the caller's.
    unsafe { core::arch::x86_64::_mm_shuffle_epi8(v, m) }
}

/// 16 bytes at `16 - part` keep bytes `0..part` of a vector.
#[cfg(target_arch = "x86_64")]
#[repr(C, align(16))]
struct Table([u8; 32]);
#[cfg(target_arch = "x86_64")]
static KEEP: Table = Table([
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
]);
/// 16 bytes at `16 - part`, as a byte shuffle, move a vector's bytes up
/// by `part` (zeros below).
#[cfg(target_arch = "x86_64")]
static SHIFT: Table = Table([
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
]);
