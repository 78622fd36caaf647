//! The kernels of the 2-D tile copies (`tiles`): one row group at a time,
//! `g` rows of `C` elements interleaved into (packing) or out of
//! (unpacking) `g·C` consecutive slots. SSE2 on x86_64 for the element
//! sizes and groups of the TPU formats; a scalar loop for the others and
//! on other targets, which the differential tests compare them with.

#[cfg(target_arch = "x86_64")]
use core::mem::size_of;

/// The largest row group (`g·C` slots) in bytes: an edge group is
/// gathered in a buffer of this size on the stack.
pub(super) const MAX_GROUP_BYTES: usize = 4096;

/// Which kernel moves a row group; chosen once per copy by [`Kernel::new`]
/// and `Tiles::choose`.
///
/// The wide kernels ([`Kernel::Bytes32Wide`], [`Kernel::Bytes32Lines`],
/// [`Kernel::Quads8Wide`], [`Kernel::Pairs16Wide`]) need more than their
/// callers' contracts below say of `AVX` (AVX2, rows of whole 32-byte
/// vectors, 16-byte alignment for `NT`): the CPU runs AVX-512F and BW,
/// rows of whole 64-byte vectors (but `Bytes32Wide`'s packing), and
/// 64-byte aligned stores with `NT`; `Bytes32Lines`, packing, groups of
/// 32 rows of whole 64-byte vectors; and `Quads8Wide`'s packing and
/// `Pairs16Wide`, VBMI too. Only `Tiles::choose` makes them, under those
/// conditions and with [`Isa::Avx512Wide`], whose entry point enables
/// AVX-512F, VL and BW (the kernels that need VBMI enable it themselves:
/// `Tiles::choose` asks [`vbmi`] first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kernel {
    /// Element by element (any size and group).
    Scalar,
    /// One row (`g = 1`): a copy, 16 bytes at a time.
    Copy,
    /// Two 16-bit rows (bf16 `(2,1)`).
    Pairs16,
    /// [`Kernel::Pairs16`] packing with 512-bit vectors and VBMI's byte
    /// permutes (`avx512::pack_pairs16`), where `Tiles::choose` finds them
    /// faster.
    Pairs16Wide,
    /// Two 8-bit rows.
    Pairs8,
    /// Four 8-bit rows (s8 `(4,1)`).
    Quads8,
    /// [`Kernel::Quads8`] with 512-bit vectors (AVX-512BW; packing with
    /// VBMI's byte permutes too, `avx512::pack_quads`), where
    /// `Tiles::choose` finds them faster; edge groups run the SSE2
    /// `Quads8` when unpacking.
    Quads8Wide,
    /// Sixteen 8-bit rows: 16×16 byte transposes.
    Bytes16,
    /// Thirty-two 8-bit rows (pred `(32,1)`): 16×16 byte transposes.
    Bytes32,
    /// [`Kernel::Bytes32`] with 512-bit vectors (AVX-512BW), where
    /// `Tiles::choose` finds them faster; edge groups run the SSE2
    /// `Bytes32` when unpacking, and this kernel when packing (through
    /// a stage of whole rows, see [`pack_edge`]).
    Bytes32Wide,
    /// [`Kernel::Bytes32Wide`] packing whole row groups with the source
    /// read 64 bytes at a time: straight from source rows of whole
    /// 64-byte lines, each line loaded once, with no stage
    /// (`avx512::pack_lines`); rows off the line grid gathered into the
    /// stage 64 bytes at a time (`avx512::gather_lines`). Edge groups,
    /// and groups whose rows are one tile (nothing to gather), as
    /// `Bytes32Wide`. `Tiles::choose` takes it on Intel's cores, and on
    /// Zen 5 with ordinary stores (near the core), where it measured
    /// faster.
    Bytes32Lines,
}

impl Kernel {
    /// The kernel for slots of `size` bytes, groups of `g` rows and rows
    /// of `c` elements: a vector kernel where one fits (every row a whole
    /// number of 16-byte vectors), else [`Kernel::Scalar`].
    pub(super) const fn new(size: usize, g: u64, c: u64) -> Kernel {
        if !cfg!(target_arch = "x86_64") {
            return Kernel::Scalar;
        }
        let Some(row_bytes) = (size as u64).checked_mul(c) else {
            return Kernel::Scalar;
        };
        if row_bytes == 0 || !row_bytes.is_multiple_of(16) {
            return Kernel::Scalar;
        }
        match (size, g) {
            (_, 1) => Kernel::Copy,
            (2, 2) => Kernel::Pairs16,
            (1, 2) => Kernel::Pairs8,
            (1, 4) => Kernel::Quads8,
            (1, 16) => Kernel::Bytes16,
            (1, 32) => Kernel::Bytes32,
            _ => Kernel::Scalar,
        }
    }

    /// Whether the kernel transposes 16×16 bytes (groups of 16 or 32
    /// rows): packing gathers their rows first (x86_64 only).
    #[cfg(target_arch = "x86_64")]
    pub(super) const fn transposes(self) -> bool {
        matches!(
            self,
            Kernel::Bytes16 | Kernel::Bytes32 | Kernel::Bytes32Wide | Kernel::Bytes32Lines
        )
    }

    /// Whether unpacking writes 16 bytes of each of 16 or 32 rows in turn
    /// (the 16×16 byte transposes), leaving their lines part-written
    /// meanwhile; [`Kernel::Bytes32Wide`] writes each line whole, in one
    /// store (see `crowds_l1_sets`).
    #[cfg(target_arch = "x86_64")]
    pub(super) const fn fills_rows_piecewise(self) -> bool {
        matches!(self, Kernel::Bytes16 | Kernel::Bytes32)
    }

    /// Whether the AVX2 kernels take rows of `row` bytes: whole 32-byte
    /// vectors (where the SSE2 kernel has no AVX2 version, it runs
    /// instead).
    pub(super) const fn avx2(self, row: u64) -> bool {
        !matches!(self, Kernel::Scalar) && row.is_multiple_of(32)
    }

    /// Whether packing can write with streaming stores: every row group
    /// is a whole number of 16-byte vectors, written as such.
    pub(super) const fn streams(self) -> bool {
        !matches!(self, Kernel::Scalar)
    }
}

/// A row group's worth of slots, aligned for any slot type: where edge
/// groups are gathered (packing) or spread (unpacking).
#[repr(C, align(64))]
pub(super) struct Stage(pub(super) [u8; MAX_GROUP_BYTES]);

/// Packs one row group: `out[c·g + l] = from[l·pitch + c]` for `c <
/// cols`, `l < g`.
///
/// # Safety
/// `from` must be readable at those slots and `out` writable for `g·cols`
/// slots; with `NT`, `out` must be 16-byte aligned and `kernel` must
/// [stream](Kernel::streams).
///
/// With `AVX`, the caller runs with AVX2 enabled and the rows are whole
/// 32-byte vectors ([`Kernel::avx2`]); a wide kernel needs more (see
/// [`Kernel`]).
#[inline(always)]
pub(super) unsafe fn pack<T: Copy, const NT: bool, const AVX: bool>(
    kernel: Kernel,
    from: *const T,
    pitch: usize,
    out: *mut T,
    cols: usize,
    g: usize,
) {
    #[cfg(target_arch = "x86_64")]
    if !matches!(kernel, Kernel::Scalar) {
        let (from, out) = (from.cast::<u8>(), out.cast::<u8>());
        let (pitch, row) = (pitch * size_of::<T>(), cols * size_of::<T>());
        // SAFETY: the caller's contract; the kernel was chosen for this
        // slot size, group and row length (and a wide one only where its
        // conditions hold: see `Kernel`).
        unsafe {
            if kernel.transposes() && pitch != row {
                // `Bytes32Lines` reads the source 64 bytes at a time (the
                // same way for every whole group of a copy: the source's
                // first byte and its rows' length decide): rows of whole
                // lines straight into the transposes, no stage.
                let lines = kernel == Kernel::Bytes32Lines;
                debug_assert!(!lines || row.is_multiple_of(64) && g == 32);
                if lines && (from as usize | pitch).is_multiple_of(64) {
                    avx512::pack_lines::<NT>(from, pitch, out, row);
                    return;
                }
                // Sixteen or more rows of a large array are as many lines
                // in one cache set (rows a multiple of 4 KiB apart) while
                // the transposes take 16 bytes of each: gather the rows
                // first, reading each line once.
                let mut stage = core::mem::MaybeUninit::<Stage>::uninit();
                let s = stage.as_mut_ptr().cast::<u8>();
                if lines {
                    avx512::gather_lines(from, pitch, s, row);
                } else {
                    gather(from, pitch, s, (row, g));
                }
                if AVX {
                    avx2::pack::<NT>(kernel, s, row, out, row)
                } else {
                    x86::pack::<NT>(kernel, s, row, out, row)
                }
                return;
            }
            if AVX {
                avx2::pack::<NT>(kernel, from, pitch, out, row)
            } else {
                x86::pack::<NT>(kernel, from, pitch, out, row)
            }
        };
        return;
    }
    let _ = kernel;
    for c in 0..cols {
        for l in 0..g {
            // SAFETY: the caller's contract.
            unsafe { *out.add(c * g + l) = *from.add(l * pitch + c) };
        }
    }
}

/// Copies `row` bytes (a multiple of 16) from `from` to `to`, 16 at a
/// time, inline (a call to `memcpy` per row costs more than the copy).
///
/// # Safety
/// `from` readable and `to` writable for `row` bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn copy_row(from: *const u8, to: *mut u8, row: usize) {
    use core::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_storeu_si128};
    for k in (0..row).step_by(16) {
        // SAFETY: the caller's.
        unsafe {
            _mm_storeu_si128(
                to.add(k).cast(),
                _mm_loadu_si128(from.add(k).cast::<__m128i>()),
            )
        };
    }
}

/// Gathers `g` rows of `row` bytes from `from` (`pitch` apart) into
/// `stage`, one after another.
///
/// # Safety
/// `row` is a multiple of 16; the rows readable, `stage` writable for
/// `g·row` bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) unsafe fn gather(
    from: *const u8,
    pitch: usize,
    stage: *mut u8,
    (row, g): (usize, usize),
) {
    for l in 0..g {
        // SAFETY: the caller's.
        unsafe { copy_row(from.add(l * pitch), stage.add(l * row), row) };
    }
}

/// [`Kernel::Bytes32`]'s pack (AVX2, streaming stores) of a gathered
/// tile at `now` (32 rows of `row` bytes, `row` apart) to `out`,
/// gathering the next tile's rows (`next`: from, pitch, stage) a share
/// with each 16 columns transposed, and asking for `ahead` (first byte,
/// bytes a row) a row's share at a time: so that the next tile's reads
/// go out while this one's stores do (`Tiles::pack_band_pipelined`).
///
/// # Safety
/// The CPU runs AVX2; `row` is a multiple of 16; `now` readable and
/// `out` (16-byte aligned) writable for `32·row` bytes; `next`'s 32 rows
/// of `row` bytes, `pitch` apart, readable, its stage writable for
/// `32·row` bytes and apart from `now` and `out`.
///
/// With `wide` ([`Kernel::Bytes32Wide`]), the 512-bit transposes and
/// 64-byte streaming stores: then the CPU runs AVX-512F and BW, and
/// `out` is 64-byte aligned.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn pack_bytes32_gathering(
    now: *const u8,
    out: *mut u8,
    row: usize,
    (next, ahead): (Gather, Ask),
    wide: bool,
) {
    // SAFETY: the caller's.
    unsafe {
        if wide {
            avx512::pack_gathering(now, out, row, (next, ahead))
        } else {
            avx2::pack_bytes32::<true>((now, row), out, row, next, ahead)
        }
    }
}

/// The unpacking of a band's whole tiles of s8's quads (`G = 4`) or
/// bf16's pairs (`G = 2`) into rows off the line grid, realigned in
/// registers: see `avx512::unpack_realigned`, whose arguments these are.
///
/// # Safety
/// As `avx512::unpack_realigned`: `G` 2 or 4, dividing `R`; the tiles
/// readable, the rows writable; the CPU runs AVX-512F, BW and VBMI.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) unsafe fn unpack_realigned<const R: usize, const G: usize>(
    from: *const u8,
    run: (usize, usize),
    row: usize,
    to: [*mut u8; R],
    ahead: bool,
) {
    // SAFETY: the caller's.
    unsafe { avx512::unpack_realigned::<R, G>(from, run, row, to, ahead) }
}

#[cfg(target_arch = "x86_64")]
pub(super) use avx512::Realign;

/// The pipeline's next tile to gather: its first row, the rows' pitch,
/// and its stage (see [`pack_bytes32_gathering`]).
#[cfg(target_arch = "x86_64")]
pub(super) type Gather = Option<(*const u8, usize, *mut u8)>;

/// What the pipeline asks for ahead: the first byte, and the bytes a row
/// (see [`pack_bytes32_gathering`]).
#[cfg(target_arch = "x86_64")]
pub(super) type Ask = Option<(*const u8, usize)>;

/// Rows `rows` of the pipeline's next tile (see
/// [`pack_bytes32_gathering`]): each asked for `ahead` (first byte,
/// bytes a row: a row's share of what comes next) and copied from
/// `next` (from, pitch, stage) into its stage with `copy` (from, to).
///
/// The lines ahead are asked for into L1 (`T0`), though they are read a
/// band later: measured on Zen 5 interleaved against `T1` (into L2),
/// pred's packing from memory gained 0.13–0.19× of the NT copy at 8192²
/// and 0.16–0.19× at 8191×8190 (medians of five runs, BENCHMARKS.md).
/// On any core: the pipeline runs by default only on Zen 5 (elsewhere
/// only where forced, to test it).
///
/// # Safety
/// As [`pack_bytes32_gathering`] for those rows; `copy` copies `row`
/// bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn next_share(
    rows: core::ops::Range<usize>,
    row: usize,
    (next, ahead): (Gather, Ask),
    copy: impl Fn(*const u8, *mut u8),
) {
    for l in rows {
        if let Some((p, bytes)) = ahead {
            super::streaming::prefetch_near(p.wrapping_add(l * bytes), bytes);
        }
        if let Some((from, pitch, stage)) = next {
            // SAFETY: the caller's: row `l < 32` of the next tile, and of
            // its stage.
            unsafe { copy(from.add(l * pitch), stage.add(l * row)) };
        }
    }
}

/// Packs an edge row group: only `valid.0` rows of `valid.1` elements are
/// in the array; every other slot of the group's `g·cols` is `pad`. The
/// stage's rows are whole, so the group goes through the plan's kernel
/// as the whole groups do (with `AVX`, AVX2's or the wide one
/// `Tiles::choose` took): near the core on Zen 5, pred's packing at
/// 1023×4094 ran 0.03–0.04× of the NT copy faster than with the SSE2
/// kernel it had before, the others even (BENCHMARKS.md); unmeasured on
/// other cores.
///
/// # Safety
/// As [`pack`], for the valid rows and columns only (with `valid.0 == 0`
/// nothing is read, and `from` may be any address); with `AVX`, the
/// caller runs with AVX2.
#[inline(always)]
pub(super) unsafe fn pack_edge<T: Copy, const NT: bool, const AVX: bool>(
    kernel: Kernel,
    from: *const T,
    pitch: usize,
    valid: (usize, usize),
    out: *mut T,
    (cols, g): (usize, usize),
    pad: T,
) {
    let mut stage = core::mem::MaybeUninit::<Stage>::uninit();
    let s = stage.as_mut_ptr().cast::<T>();
    // SAFETY: `fill_edge` writes the stage's `g·cols` slots (the
    // caller's contract for the source); with `AVX`, the caller runs
    // AVX2 and the stage's rows are `cols` slots, as a whole group's are
    // (what the kernel was chosen for).
    unsafe {
        fill_edge(from, pitch, valid, s, (cols, g), pad);
        pack::<T, NT, AVX>(kernel, s, cols, out, cols, g);
    }
}

/// Fills `stage` with an edge row group: its `valid.0` rows of
/// `valid.1` elements from the source, every other slot of its `g·cols`
/// `pad` (see [`pack_edge`]).
///
/// # Safety
/// As [`pack_edge`] for the source; `stage` is a [`Stage`]'s first
/// slot, and `Tiles::new` made `g·cols` slots fit it.
#[inline(always)]
unsafe fn fill_edge<T: Copy>(
    from: *const T,
    pitch: usize,
    valid: (usize, usize),
    stage: *mut T,
    (cols, g): (usize, usize),
    pad: T,
) {
    // SAFETY: the caller's; each slot of the stage written once.
    unsafe {
        for l in 0..g {
            let row = stage.add(l * cols);
            let copied = if l < valid.0 { valid.1 } else { 0 };
            if copied > 0 {
                // Only rows in the array: `from` may be past the source
                // for the others.
                core::ptr::copy_nonoverlapping(from.add(l * pitch), row, copied);
            }
            for c in copied..cols {
                row.add(c).write(pad);
            }
        }
    }
}

/// Packs one row group as [`pack`] (an edge group as [`pack_edge`], when
/// `valid` is short of `(g, cols)`) with [`Kernel::Quads8Wide`] or
/// [`Kernel::Pairs16Wide`], its output realigned to the line grid in
/// `o` (see `avx512::Realign`).
///
/// # Safety
/// As [`pack_edge`]; the kernel one of those two, `cols` slots a whole
/// number of 64 bytes; `out` right after the last group `o` wrote (or
/// the first of the run), `skew` bytes into a line; the CPU runs
/// AVX-512F, BW and VBMI.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) unsafe fn pack_realigned<T: Copy>(
    kernel: Kernel,
    (from, pitch, valid): (*const T, usize, (usize, usize)),
    out: *mut T,
    (cols, g): (usize, usize),
    pad: T,
    o: &mut avx512::Realign,
) {
    debug_assert!(matches!(kernel, Kernel::Quads8Wide | Kernel::Pairs16Wide));
    let mut stage = core::mem::MaybeUninit::<Stage>::uninit();
    // SAFETY: the caller's; an edge group is gathered as `pack_edge`
    // gathers it, whole groups are read in place.
    unsafe {
        let (from, pitch) = if valid != (g, cols) {
            let s = stage.as_mut_ptr().cast::<T>();
            fill_edge(from, pitch, valid, s, (cols, g), pad);
            (s.cast_const(), cols)
        } else {
            (from, pitch)
        };
        let size = size_of::<T>();
        let (from, out) = (from.cast::<u8>(), out.cast::<u8>());
        if kernel == Kernel::Quads8Wide {
            avx512::pack_quads(from, pitch * size, out, cols * size, o)
        } else {
            avx512::pack_pairs16(from, pitch * size, out, cols * size, o)
        }
    }
}

/// Unpacks one row group: `to[l·pitch + c] = from[c·g + l]` for the
/// `valid.0` rows and `valid.1` columns in the array (the rest of the
/// group is padding in the source and not copied).
///
/// # Safety
/// `from` must be readable for `g·cols` slots, `to` writable at the valid
/// slots; with `AVX`, as [`pack`]; with `NT` (streaming stores, for a
/// whole group), `to` and `pitch` bytes 16-byte aligned.
#[inline(always)]
pub(super) unsafe fn unpack<T: Copy, const AVX: bool, const NT: bool>(
    kernel: Kernel,
    from: *const T,
    to: *mut T,
    pitch: usize,
    valid: (usize, usize),
    (cols, g): (usize, usize),
) {
    // SAFETY: the caller's contract.
    unsafe {
        if valid != (g, cols) {
            unpack_edge(kernel, from, to, pitch, valid, (cols, g))
        } else {
            unpack_group::<T, AVX, NT>(kernel, from, to, pitch, cols, g)
        }
    }
}

/// Whether `rows` destination rows `pitch` bytes apart crowd an L1 set:
/// more than [`SET_SHARE`] of them start in one set (sets repeat every
/// 4 KiB), as rows a multiple of 2048 bytes apart do, and rows a byte or
/// a few short of or past one (2047, 4095, 4097: a few bytes' drift a
/// row). Byte transposes with ordinary stores then go through a stage a
/// span of tiles at a time ([`unpack_span_staged`]).
///
/// Post-condition: `true` exactly when some set holds more than
/// [`SET_SHARE`] of the rows' first bytes, counted from a first row at
/// the start of a set (the destination's own offset moves each row into
/// the next set alike, and a row's bytes may reach into one more set).
#[cfg(target_arch = "x86_64")]
pub(super) const fn crowds_l1_sets(pitch: usize, rows: usize) -> bool {
    let mut counts = [0usize; 64];
    let mut r = 0;
    while r < rows {
        // Modulo 4 KiB, which divides 2^64: the wrapped product is exact.
        let set = (r.wrapping_mul(pitch) % 4096) / 64;
        counts[set] += 1;
        if counts[set] > SET_SHARE {
            return true;
        }
        r += 1;
    }
    false
}

/// The most rows of a byte transpose's destination one L1 set may take
/// with the transpose writing them directly: L1s have 8 to 12 ways.
/// Measured on Zen 5 (BENCHMARKS.md), pred near the core: 8 rows to a
/// set (rows of 1025, 3073, 1024 bytes) ran directly at 27, 35, 38 GiB/s
/// and a span at a time at 25, 29, 33; 16 rows to a set (2047) at 7.5
/// directly, 28 a span at a time. Unmeasured on 8-way L1s (Zen 4).
#[cfg(target_arch = "x86_64")]
const SET_SHARE: usize = 8;

/// [`unpack`] of an edge group, kept out of the loop: through the stage.
///
/// # Safety
/// As [`unpack`], without `AVX` and `NT`.
#[inline(never)]
unsafe fn unpack_edge<T: Copy>(
    kernel: Kernel,
    from: *const T,
    to: *mut T,
    pitch: usize,
    valid: (usize, usize),
    shape: (usize, usize),
) {
    // SAFETY: the caller's contract.
    unsafe { unpack_staged::<T, false>(kernel, from, to, pitch, valid, shape) }
}

/// [`unpack`] through a stage: the group spread there whole, then the
/// `valid` part of each row copied out, a row at a time: for edge groups
/// (the stage holds the rows and columns past the array).
///
/// # Safety
/// As [`unpack`], without `NT`.
#[inline(always)]
unsafe fn unpack_staged<T: Copy, const AVX: bool>(
    kernel: Kernel,
    from: *const T,
    to: *mut T,
    pitch: usize,
    valid: (usize, usize),
    (cols, g): (usize, usize),
) {
    let mut stage = core::mem::MaybeUninit::<Stage>::uninit();
    let s = stage.as_mut_ptr().cast::<T>();
    // SAFETY: `Tiles::new` made `g·cols` slots fit the stage, which the
    // kernel writes whole (`g` rows of `cols`) before any of it is read;
    // the valid rows and columns of the destination are the caller's.
    unsafe {
        unpack_group::<T, AVX, false>(kernel, from, s, cols, cols, g);
        for l in 0..valid.0 {
            let (from, to) = (s.add(l * cols), to.add(l * pitch));
            #[cfg(target_arch = "x86_64")]
            if valid.1 == cols && !matches!(kernel, Kernel::Scalar) {
                // Whole rows of whole 16-byte vectors (`Kernel::new`).
                copy_row(from.cast(), to.cast(), cols * size_of::<T>());
                continue;
            }
            core::ptr::copy_nonoverlapping(from, to, valid.1);
        }
    }
}

/// Bytes of the stage [`unpack_span_staged`] spreads a span of tiles'
/// row groups into: each row's part then goes out [`SPAN_STAGE_BYTES`]
/// / `g` bytes at a time, several lines in a row.
#[cfg(target_arch = "x86_64")]
pub(super) const SPAN_STAGE_BYTES: usize = 16384;

/// A span of row groups' worth of slots (see [`unpack_span_staged`]).
#[cfg(target_arch = "x86_64")]
#[repr(C, align(64))]
struct SpanStage([u8; SPAN_STAGE_BYTES]);

/// A row group is at most [`MAX_GROUP_BYTES`] (`Tiles::new`): the span
/// stage holds one or more.
#[cfg(target_arch = "x86_64")]
const _: () = assert!(MAX_GROUP_BYTES <= SPAN_STAGE_BYTES);

/// How many tiles' row groups of `group` bytes (`1..=MAX_GROUP_BYTES`)
/// [`unpack_span_staged`] takes at once: as many as its stage holds.
///
/// Post-condition: at least one, and `span · group ≤ SPAN_STAGE_BYTES`.
#[cfg(target_arch = "x86_64")]
pub(super) const fn span_of_groups(group: usize) -> usize {
    SPAN_STAGE_BYTES / group
}

/// [`unpack`] of the same whole row group of `n` tiles side by side
/// (`tile` slots apart in the source; `n ≤ span_of_groups(g·cols·size)`)
/// through one stage, then each of its `g` rows out whole, `n·cols`
/// slots in a row. For byte transposes with ordinary stores into rows
/// that crowd an L1 set ([`crowds_l1_sets`]): a row group at a time
/// through the stage, each row's two lines went out after the other
/// rows' lines in the same sets, 64 lines to two sets in flight at
/// once (pred into rows 4 KiB apart, near the core on Zen 5, at 0.45×
/// of the NT copy); a span at a time, each row's lines are consecutive
/// sets, and few of any set are in flight (BENCHMARKS.md).
///
/// # Safety
/// As [`unpack`] for each of the `n` whole groups (the destination's
/// `g` rows writable for `n·cols` slots), without `NT`; slots of
/// `g·cols·n` fit the stage; `cols·size_of::<T>()` a multiple of 16
/// (`Kernel::new`'s byte transposes).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) unsafe fn unpack_span_staged<T: Copy, const AVX: bool>(
    kernel: Kernel,
    (from, tile, n): (*const T, usize, usize),
    to: *mut T,
    pitch: usize,
    (cols, g): (usize, usize),
) {
    let mut stage = core::mem::MaybeUninit::<SpanStage>::uninit();
    let s = stage.as_mut_ptr().cast::<T>();
    let wide = n * cols;
    // SAFETY: the caller's: each group's `g` rows of `cols` slots land in
    // the stage's rows of `wide` slots, which they fill whole before any
    // is read; each destination row takes `wide` slots.
    unsafe {
        for j in 0..n {
            unpack_group::<T, AVX, false>(
                kernel,
                from.add(j * tile),
                s.add(j * cols),
                wide,
                cols,
                g,
            );
        }
        for l in 0..g {
            let (from, to) = (s.add(l * wide), to.add(l * pitch));
            copy_row(from.cast(), to.cast(), wide * size_of::<T>());
        }
    }
}

/// A whole row group out: `to[l·pitch + c] = from[c·g + l]`.
///
/// # Safety
/// `from` readable for `g·cols` slots, `to` writable at those rows; with
/// `AVX`, as [`pack`]; with `NT`, as [`unpack`].
#[inline(always)]
pub(super) unsafe fn unpack_group<T: Copy, const AVX: bool, const NT: bool>(
    kernel: Kernel,
    from: *const T,
    to: *mut T,
    pitch: usize,
    cols: usize,
    g: usize,
) {
    #[cfg(target_arch = "x86_64")]
    if !matches!(kernel, Kernel::Scalar) {
        let (from, to) = (from.cast::<u8>(), to.cast::<u8>());
        let (pitch, row) = (pitch * size_of::<T>(), cols * size_of::<T>());
        // SAFETY: the caller's contract; the kernel fits the slot size
        // (and AVX2 is on with `AVX`).
        unsafe {
            if AVX {
                avx2::unpack::<NT>(kernel, from, to, pitch, row)
            } else {
                x86::unpack::<NT>(kernel, from, to, pitch, row)
            }
        };
        return;
    }
    let _ = kernel;
    for l in 0..g {
        for c in 0..cols {
            // SAFETY: the caller's contract.
            unsafe { *to.add(l * pitch + c) = *from.add(c * g + l) };
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_loadu_si128, _mm_packs_epi32, _mm_packus_epi16, _mm_set1_epi16,
        _mm_set1_epi32, _mm_setzero_si128, _mm_slli_epi32, _mm_srai_epi32, _mm_srli_epi16,
        _mm_srli_epi32, _mm_storeu_si128, _mm_unpackhi_epi8, _mm_unpackhi_epi16, _mm_unpacklo_epi8,
        _mm_unpacklo_epi16,
    };

    use super::Kernel;
    // An ordinary aligned store under Miri, which cannot run the real one.
    use super::super::streaming::nt::_mm_stream_si128;

    /// One vector at `p` (any alignment).
    ///
    /// # Safety
    /// `p` readable for 16 bytes.
    #[inline(always)]
    unsafe fn load(p: *const u8) -> __m128i {
        // SAFETY: the caller's: 16 readable bytes.
        unsafe { _mm_loadu_si128(p.cast()) }
    }

    /// One vector to `p`: a streaming store (`p` 16-byte aligned) with
    /// `NT`, else an ordinary one (any alignment).
    ///
    /// # Safety
    /// `p` writable for 16 bytes, and 16-byte aligned with `NT`.
    #[inline(always)]
    unsafe fn put<const NT: bool>(p: *mut u8, v: __m128i) {
        // SAFETY: the caller's: 16 writable bytes, aligned with NT.
        unsafe {
            if NT {
                _mm_stream_si128(p.cast(), v)
            } else {
                _mm_storeu_si128(p.cast(), v)
            }
        }
    }

    /// A 16×16 byte transpose: rows in, columns out. Four rounds of
    /// interleaving row `i` with row `i + 8` (a perfect shuffle of the
    /// rows each time) move byte `(r, c)` to `(c, r)`.
    /// Plain loops, not `core::array::from_fn`: outside a
    /// `target_feature` function its closures were not inlined, and every
    /// array went through `memmove` (the SSE2 pack of `pred` ran 8× slower
    /// than the AVX2 one).
    #[inline(always)]
    pub(super) fn transpose16(mut x: [__m128i; 16]) -> [__m128i; 16] {
        for _ in 0..4 {
            let mut y = x;
            for k in 0..8 {
                // SAFETY: SSE2 is part of x86_64.
                unsafe {
                    y[2 * k] = _mm_unpacklo_epi8(x[k], x[k + 8]);
                    y[2 * k + 1] = _mm_unpackhi_epi8(x[k], x[k + 8]);
                }
            }
            x = y;
        }
        x
    }

    /// Rows `first..first + 16` (`at(l)` loads row `l`) transposed.
    #[inline(always)]
    fn transpose_rows(first: usize, at: impl Fn(usize) -> __m128i) -> [__m128i; 16] {
        // SAFETY: SSE2 is part of x86_64.
        let mut x = [unsafe { _mm_setzero_si128() }; 16];
        for (l, x) in x.iter_mut().enumerate() {
            *x = at(first + l);
        }
        transpose16(x)
    }

    /// [`super::pack`] in bytes with SSE2: `pitch` between source rows,
    /// `row` bytes per row (a multiple of 16).
    ///
    /// # Safety
    /// As [`super::pack`].
    #[inline(always)]
    pub(super) unsafe fn pack<const NT: bool>(
        kernel: Kernel,
        from: *const u8,
        pitch: usize,
        out: *mut u8,
        row: usize,
    ) {
        // SAFETY: every load is inside a source row of the group,
        // every store inside the group's output; SSE2 is part of x86_64.
        unsafe {
            let at = |l: usize, k: usize| load(from.add(l * pitch + k));
            match kernel {
                Kernel::Scalar => unreachable!(),
                Kernel::Copy => {
                    for k in (0..row).step_by(16) {
                        put::<NT>(out.add(k), at(0, k));
                    }
                }
                Kernel::Pairs16 | Kernel::Pairs16Wide | Kernel::Pairs8 => {
                    let pairs16 = kernel != Kernel::Pairs8;
                    for k in (0..row).step_by(16) {
                        let (a, b) = (at(0, k), at(1, k));
                        let (lo, hi) = if pairs16 {
                            (_mm_unpacklo_epi16(a, b), _mm_unpackhi_epi16(a, b))
                        } else {
                            (_mm_unpacklo_epi8(a, b), _mm_unpackhi_epi8(a, b))
                        };
                        put::<NT>(out.add(2 * k), lo);
                        put::<NT>(out.add(2 * k + 16), hi);
                    }
                }
                Kernel::Quads8 | Kernel::Quads8Wide => {
                    for k in (0..row).step_by(16) {
                        let (r0, r1, r2, r3) = (at(0, k), at(1, k), at(2, k), at(3, k));
                        let (x, y) = (_mm_unpacklo_epi8(r0, r1), _mm_unpackhi_epi8(r0, r1));
                        let (z, w) = (_mm_unpacklo_epi8(r2, r3), _mm_unpackhi_epi8(r2, r3));
                        let o = out.add(4 * k);
                        put::<NT>(o, _mm_unpacklo_epi16(x, z));
                        put::<NT>(o.add(16), _mm_unpackhi_epi16(x, z));
                        put::<NT>(o.add(32), _mm_unpacklo_epi16(y, w));
                        put::<NT>(o.add(48), _mm_unpackhi_epi16(y, w));
                    }
                }
                Kernel::Bytes16 | Kernel::Bytes32 | Kernel::Bytes32Wide | Kernel::Bytes32Lines => {
                    let blocks = if kernel == Kernel::Bytes16 { 1 } else { 2 };
                    for k in (0..row).step_by(16) {
                        // Columns k..k+16 of each block of 16 rows, then
                        // written in order: each column's rows.
                        let mut t = [[_mm_setzero_si128(); 16]; 2];
                        for (h, t) in t.iter_mut().enumerate().take(blocks) {
                            *t = transpose_rows(16 * h, |l| at(l, k));
                        }
                        for c in 0..16 {
                            for (h, t) in t.iter().enumerate().take(blocks) {
                                put::<NT>(out.add((k + c) * 16 * blocks + 16 * h), t[c]);
                            }
                        }
                    }
                }
            }
        }
    }

    /// [`super::unpack_group`] in bytes: `pitch` between destination
    /// rows, `row` bytes per row (a multiple of 16).
    ///
    /// # Safety
    /// As [`super::unpack_group`].
    #[inline(always)]
    pub(super) unsafe fn unpack<const NT: bool>(
        kernel: Kernel,
        from: *const u8,
        to: *mut u8,
        pitch: usize,
        row: usize,
    ) {
        // SAFETY: every load is inside the group's input, every
        // store inside a destination row; SSE2 is part of x86_64.
        unsafe {
            let input = |k: usize| load(from.add(k));
            let out = |l: usize, k: usize, v| put::<NT>(to.add(l * pitch + k), v);
            match kernel {
                Kernel::Scalar => unreachable!(),
                Kernel::Copy => {
                    for k in (0..row).step_by(16) {
                        out(0, k, input(k));
                    }
                }
                Kernel::Pairs16 | Kernel::Pairs16Wide => {
                    // Each 32-bit lane holds one pair [e o]; sign-extending
                    // either half into the lane makes the signed pack exact.
                    let even = |v| _mm_srai_epi32::<16>(_mm_slli_epi32::<16>(v));
                    let odd = |v| _mm_srai_epi32::<16>(v);
                    for k in (0..row).step_by(16) {
                        let (a, b) = (input(2 * k), input(2 * k + 16));
                        out(0, k, _mm_packs_epi32(even(a), even(b)));
                        out(1, k, _mm_packs_epi32(odd(a), odd(b)));
                    }
                }
                Kernel::Pairs8 => {
                    let mask = _mm_set1_epi16(0xFF);
                    for k in (0..row).step_by(16) {
                        let (a, b) = (input(2 * k), input(2 * k + 16));
                        let even = _mm_packus_epi16(_mm_and_si128(a, mask), _mm_and_si128(b, mask));
                        let odd = _mm_packus_epi16(_mm_srli_epi16::<8>(a), _mm_srli_epi16::<8>(b));
                        out(0, k, even);
                        out(1, k, odd);
                    }
                }
                Kernel::Quads8 | Kernel::Quads8Wide => {
                    let mask = _mm_set1_epi32(0xFF);
                    for k in (0..row).step_by(16) {
                        let v = [0, 1, 2, 3].map(|j| input(4 * k + 16 * j));
                        let byte = |x, r| match r {
                            0 => _mm_and_si128(x, mask),
                            1 => _mm_and_si128(_mm_srli_epi32::<8>(x), mask),
                            2 => _mm_and_si128(_mm_srli_epi32::<16>(x), mask),
                            _ => _mm_srli_epi32::<24>(x),
                        };
                        for r in 0..4 {
                            let lo = _mm_packs_epi32(byte(v[0], r), byte(v[1], r));
                            let hi = _mm_packs_epi32(byte(v[2], r), byte(v[3], r));
                            out(r, k, _mm_packus_epi16(lo, hi));
                        }
                    }
                }
                Kernel::Bytes16 | Kernel::Bytes32 | Kernel::Bytes32Wide | Kernel::Bytes32Lines => {
                    let g = if kernel == Kernel::Bytes16 { 16 } else { 32 };
                    for k in (0..row).step_by(16) {
                        for h in 0..g / 16 {
                            // Rows 16h.. of columns k..k+16.
                            let t = transpose_rows(0, |c| input((k + c) * g + 16 * h));
                            for (l, v) in t.into_iter().enumerate() {
                                out(16 * h + l, k, v);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The x86 vector extensions a tile copy runs with, each including the
/// ones before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Isa {
    /// The x86_64 baseline (and what other targets are counted as).
    Sse2,
    /// The AVX2 kernels.
    Avx2,
    /// The AVX2 kernels compiled with AVX-512F/VL/BW: the same
    /// operations, with 32 vector registers instead of 16.
    Avx512,
    /// [`Isa::Avx512`], and 512-bit vectors where they pay
    /// ([`Kernel::Bytes32Wide`], [`Kernel::Bytes32Lines`],
    /// [`Kernel::Quads8Wide`], [`Kernel::Pairs16Wide`]): on Intel's
    /// cores, which run 512-bit shuffles at the rate of 256-bit ones
    /// (AMD's Zen 4 at half of it), and on Zen 5, whose 512-bit units
    /// are full width. Which copies take them is chosen per family of
    /// cores (`Tiles::choose`): on Zen 5 most ran even with the narrow
    /// ones or up to 0.1× of the NT copy behind, and only pred's
    /// streamed copies into whole lines take them (BENCHMARKS.md). That
    /// was measured on a server EPYC; other parts of family 0x1A (some
    /// mobile ones are said to have narrower vector units) and later
    /// families take the same choices unmeasured ([`Core::Zen5`]).
    Avx512Wide,
}

/// The extensions the CPU runs (and the OS saves the registers of),
/// asked once with `cpuid` (no `std` needed); [`Isa::Sse2`] under Miri,
/// which cannot run the others, and off x86_64.
pub(super) fn isa() -> Isa {
    cpu().0
}

/// The cores whose measurements choose between ways of copying
/// (BENCHMARKS.md): a choice measured on one family of cores is taken
/// on that family only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Core {
    /// Intel's (measured on a Xeon, family 6 model 207).
    Intel,
    /// AMD's Zen 5 and later (family 0x1A and up; measured on an EPYC
    /// of family 0x1A).
    Zen5,
    /// Any other, and every core under Miri and off x86_64.
    Other,
}

/// The family of cores the copies run on, asked of `cpuid` once.
pub(super) fn family() -> Core {
    cpu().1
}

/// Whether the CPU runs AVX-512VBMI's byte permutes (with
/// [`Isa::Avx512Wide`]: never without it), asked of `cpuid` once.
pub(super) fn vbmi() -> bool {
    cpu().2
}

/// [`isa`], [`family`] and [`vbmi`], asked of `cpuid` once.
fn cpu() -> (Isa, Core, bool) {
    const _: () = assert!((Isa::Avx512Wide as u8) < 15, "1 + an Isa fits in 4 bits");
    const _: () = assert!((Core::Other as u8) < 4, "a Core fits in 2 bits");
    use core::sync::atomic::{AtomicU8, Ordering};
    // 0: not asked yet, else 1 + the `Isa`'s position, plus 16 times
    // the `Core`'s, plus 64 with VBMI.
    static KNOWN: AtomicU8 = AtomicU8::new(0);
    let known = match KNOWN.load(Ordering::Relaxed) {
        0 => {
            let (isa, core, vbmi) = if cfg!(miri) {
                (Isa::Sse2, Core::Other, false)
            } else {
                detect()
            };
            let vbmi = vbmi && isa == Isa::Avx512Wide;
            let known = (isa as u8 + 1) | (core as u8) << 4 | (vbmi as u8) << 6;
            KNOWN.store(known, Ordering::Relaxed);
            known
        }
        known => known,
    };
    // Only the values above are stored; anything else would be a bug
    // here, and the least set of extensions (and no family's choices) is
    // the answer that cannot be wrong.
    let isa = match known & 15 {
        2 => Isa::Avx2,
        3 => Isa::Avx512,
        4 => Isa::Avx512Wide,
        _ => Isa::Sse2,
    };
    let core = match known >> 4 & 3 {
        0 => Core::Intel,
        1 => Core::Zen5,
        _ => Core::Other,
    };
    (isa, core, isa == Isa::Avx512Wide && known & 64 != 0)
}

/// `cpuid` leaf 1 (AVX, and XSAVE enabled by the OS; the family),
/// `xgetbv` (the OS saves the SSE and AVX state, and for AVX-512 the mask
/// and upper vector registers), leaf 7 (AVX2; AVX-512F, BW, VL), leaf
/// 0's vendor (Intel's cores and Zen 5 get [`Isa::Avx512Wide`]); the family of
/// cores; and leaf 7's AVX-512VBMI.
#[cfg(all(target_arch = "x86_64", not(miri)))]
fn detect() -> (Isa, Core, bool) {
    use core::arch::x86_64::{__cpuid, __cpuid_count};
    /// XCR0, the register-state bits the OS saves.
    ///
    /// # Safety
    /// The CPU must run `xgetbv` (CPUID.1:ECX.OSXSAVE).
    #[target_feature(enable = "xsave")]
    unsafe fn xcr0() -> u64 {
        // SAFETY: the caller checked OSXSAVE.
        unsafe { core::arch::x86_64::_xgetbv(0) }
    }
    /// XCR0's SSE and AVX state; AVX-512's opmask, ZMM_Hi256, Hi16_ZMM.
    const AVX_STATE: u64 = 0b110;
    const AVX512_STATE: u64 = 0b1110_0000;
    /// CPUID.7.0:EBX's AVX-512F, BW and VL bits.
    const AVX512_BITS: u32 = 1 << 16 | 1 << 30 | 1 << 31;
    /// CPUID.7.0:ECX's AVX-512VBMI bit.
    const VBMI_BIT: u32 = 1 << 1;
    // SAFETY: `cpuid` runs on every x86_64 CPU; leaf 7 is asked only
    // when the highest leaf reaches it; `xgetbv` only with OSXSAVE.
    unsafe {
        let leaf0 = __cpuid(0);
        let vendor = (leaf0.ebx, leaf0.edx, leaf0.ecx);
        let leaf1 = __cpuid(1);
        let core = core_of(vendor, leaf1.eax);
        if leaf0.eax < 7 {
            return (Isa::Sse2, core, false);
        }
        let ecx = leaf1.ecx;
        let (osxsave, avx) = (ecx & (1 << 27) != 0, ecx & (1 << 28) != 0);
        if !(osxsave && avx) {
            return (Isa::Sse2, core, false);
        }
        let leaf7 = __cpuid_count(7, 0);
        let (state, ebx) = (xcr0(), leaf7.ebx);
        let isa = if state & AVX_STATE != AVX_STATE || ebx & (1 << 5) == 0 {
            Isa::Sse2
        } else if state & AVX512_STATE == AVX512_STATE && ebx & AVX512_BITS == AVX512_BITS {
            if matches!(core, Core::Intel | Core::Zen5) {
                Isa::Avx512Wide
            } else {
                Isa::Avx512
            }
        } else {
            Isa::Avx2
        };
        (isa, core, leaf7.ecx & VBMI_BIT != 0)
    }
}

/// `cpuid` leaf 0's vendor words (EBX, EDX, ECX): "GenuineIntel".
const INTEL: (u32, u32, u32) = (0x756e_6547, 0x4965_6e69, 0x6c65_746e);
/// "AuthenticAMD".
const AMD: (u32, u32, u32) = (0x6874_7541, 0x6974_6e65, 0x444d_4163);

/// The family of cores from `cpuid` leaf 0's vendor (EBX, EDX, ECX) and
/// leaf 1's EAX: its family is the base family (bits 8–11), plus the
/// extended family (bits 20–27) when the base is 0xF.
#[cfg_attr(not(all(target_arch = "x86_64", not(miri))), allow(dead_code))]
const fn core_of(vendor: (u32, u32, u32), eax: u32) -> Core {
    let base = (eax >> 8) & 0xF;
    let family = if base == 0xF {
        base + ((eax >> 20) & 0xFF)
    } else {
        base
    };
    if vendor.0 == INTEL.0 && vendor.1 == INTEL.1 && vendor.2 == INTEL.2 {
        Core::Intel
    } else if vendor.0 == AMD.0 && vendor.1 == AMD.1 && vendor.2 == AMD.2 && family >= 0x1A {
        Core::Zen5
    } else {
        Core::Other
    }
}

#[cfg(not(all(target_arch = "x86_64", not(miri))))]
fn detect() -> (Isa, Core, bool) {
    (Isa::Sse2, Core::Other, false)
}

/// The AVX2 kernels: the SSE2 ones on 32-byte vectors (two tiles' worth
/// of columns per transpose for the byte groups), with byte shuffles
/// where SSE2 needs shifts and masks. Only called with AVX2 enabled (and
/// AVX-512F/BW for the wide kernels they hand on to `avx512`).
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use core::arch::x86_64::{
        __m256i, _mm_storeu_si128, _mm256_castsi256_si128, _mm256_extracti128_si256,
        _mm256_loadu_si256, _mm256_loadu2_m128i, _mm256_permute2x128_si256,
        _mm256_permute4x64_epi64, _mm256_permutevar8x32_epi32, _mm256_setr_epi8, _mm256_setr_epi32,
        _mm256_shuffle_epi8, _mm256_storeu_si256, _mm256_stream_si256, _mm256_unpackhi_epi8,
        _mm256_unpackhi_epi16, _mm256_unpackhi_epi32, _mm256_unpackhi_epi64, _mm256_unpacklo_epi8,
        _mm256_unpacklo_epi16, _mm256_unpacklo_epi32, _mm256_unpacklo_epi64,
    };

    use super::super::streaming::nt::_mm_stream_si128;
    use super::Kernel;

    /// 32 bytes at `p` (any alignment).
    ///
    /// # Safety
    /// `p` readable for 32 bytes; the CPU runs AVX2.
    #[inline(always)]
    unsafe fn load(p: *const u8) -> __m256i {
        // SAFETY: the caller's: 32 readable bytes; AVX2 is on.
        unsafe { _mm256_loadu_si256(p.cast()) }
    }

    /// 32 bytes to `p`: with `NT`, one streaming store if `p` is 32-byte
    /// aligned, else two (`p` 16-byte aligned); else one ordinary store
    /// (any alignment).
    ///
    /// # Safety
    /// `p` writable for 32 bytes, and 16-byte aligned with `NT`; the CPU
    /// runs AVX2.
    #[inline(always)]
    unsafe fn put<const NT: bool>(p: *mut u8, v: __m256i) {
        // SAFETY: the caller's: 32 writable bytes, 16-byte aligned with
        // NT; AVX2 is on.
        unsafe {
            if NT && (p as usize).is_multiple_of(32) {
                // Half as many stores (the store port limits the byte
                // transposes); measured 0.03–0.06× the NT copy better.
                _mm256_stream_si256(p.cast(), v);
            } else if NT {
                _mm_stream_si128(p.cast(), _mm256_castsi256_si128(v));
                _mm_stream_si128(p.add(16).cast(), _mm256_extracti128_si256::<1>(v));
            } else {
                _mm256_storeu_si256(p.cast(), v)
            }
        }
    }

    /// Copies `row` bytes (a multiple of 16) from `from` to `to`, 32 at a
    /// time (and 16 at the end): half the stores of [`super::copy_row`],
    /// where the bytes are not read back at once (the pipeline's next
    /// tile, whose copy was the most of its time near the core).
    ///
    /// # Safety
    /// `from` readable and `to` writable for `row` bytes; AVX2 is on.
    #[inline(always)]
    unsafe fn copy_row(from: *const u8, to: *mut u8, row: usize) {
        let whole = row / 32 * 32;
        // SAFETY: the caller's: inside the `row` bytes.
        unsafe {
            for k in (0..whole).step_by(32) {
                _mm256_storeu_si256(to.add(k).cast(), load(from.add(k)));
            }
            super::copy_row(from.add(whole), to.add(whole), row - whole);
        }
    }

    /// [`super::x86::transpose16`] in both 128-bit lanes at once.
    #[inline(always)]
    fn transpose16(mut x: [__m256i; 16]) -> [__m256i; 16] {
        for _ in 0..4 {
            // SAFETY: AVX2 is on (the caller's).
            x = core::array::from_fn(|k| unsafe {
                let (a, b) = (x[k / 2], x[k / 2 + 8]);
                if k % 2 == 0 {
                    _mm256_unpacklo_epi8(a, b)
                } else {
                    _mm256_unpackhi_epi8(a, b)
                }
            });
        }
        x
    }

    /// [`super::x86::pack`] with AVX2: `row` a multiple of 32.
    ///
    /// # Safety
    /// As [`super::pack`]; AVX2 is on.
    #[inline(always)]
    pub(super) unsafe fn pack<const NT: bool>(
        kernel: Kernel,
        from: *const u8,
        pitch: usize,
        out: *mut u8,
        row: usize,
    ) {
        // SAFETY: every load is inside a source row of the group,
        // every store inside the group's output; AVX2 is on.
        unsafe {
            let at = |l: usize, k: usize| load(from.add(l * pitch + k));
            match kernel {
                Kernel::Copy => {
                    for k in (0..row).step_by(32) {
                        put::<NT>(out.add(k), at(0, k));
                    }
                }
                Kernel::Pairs16Wide => {
                    let o = &mut super::avx512::Plain::<NT>;
                    super::avx512::pack_pairs16(from, pitch, out, row, o)
                }
                Kernel::Quads8Wide => {
                    let o = &mut super::avx512::Plain::<NT>;
                    super::avx512::pack_quads(from, pitch, out, row, o)
                }
                Kernel::Pairs16 | Kernel::Pairs8 => {
                    let pairs16 = kernel == Kernel::Pairs16;
                    for k in (0..row).step_by(32) {
                        // Quarters 0 2 1 3: each lane's unpack then takes
                        // consecutive elements.
                        let a = _mm256_permute4x64_epi64::<0xD8>(at(0, k));
                        let b = _mm256_permute4x64_epi64::<0xD8>(at(1, k));
                        let (lo, hi) = if pairs16 {
                            (_mm256_unpacklo_epi16(a, b), _mm256_unpackhi_epi16(a, b))
                        } else {
                            (_mm256_unpacklo_epi8(a, b), _mm256_unpackhi_epi8(a, b))
                        };
                        put::<NT>(out.add(2 * k), lo);
                        put::<NT>(out.add(2 * k + 32), hi);
                    }
                }
                Kernel::Quads8 => {
                    for k in (0..row).step_by(32) {
                        let (r0, r1, r2, r3) = (at(0, k), at(1, k), at(2, k), at(3, k));
                        let (x, y) = (_mm256_unpacklo_epi8(r0, r1), _mm256_unpackhi_epi8(r0, r1));
                        let (z, w) = (_mm256_unpacklo_epi8(r2, r3), _mm256_unpackhi_epi8(r2, r3));
                        // Per lane, quads 0-3, 4-7, 8-11, 12-15 of its 16
                        // columns; the low lanes first.
                        let (o0, o1) = (_mm256_unpacklo_epi16(x, z), _mm256_unpackhi_epi16(x, z));
                        let (o2, o3) = (_mm256_unpacklo_epi16(y, w), _mm256_unpackhi_epi16(y, w));
                        let o = out.add(4 * k);
                        put::<NT>(o, _mm256_permute2x128_si256::<0x20>(o0, o1));
                        put::<NT>(o.add(32), _mm256_permute2x128_si256::<0x20>(o2, o3));
                        put::<NT>(o.add(64), _mm256_permute2x128_si256::<0x31>(o0, o1));
                        put::<NT>(o.add(96), _mm256_permute2x128_si256::<0x31>(o2, o3));
                    }
                }
                // `Bytes32Lines` here from a stage (an edge group's, or
                // rows off the line grid gathered 64 bytes at a time), or
                // from rows one tile wide (`pitch == row`).
                Kernel::Bytes32Wide | Kernel::Bytes32Lines => {
                    super::avx512::pack::<NT>(from, pitch, out, row)
                }
                Kernel::Bytes32 => pack_bytes32::<NT>((from, pitch), out, row, None, None),
                Kernel::Bytes16 => super::x86::pack::<NT>(kernel, from, pitch, out, row),
                Kernel::Scalar => unreachable!(),
            }
        }
    }

    /// [`Kernel::Bytes32`]'s pack: 32 rows of `row` bytes (a multiple
    /// of 16) from `from`, `pitch` apart, to `out`; with `next` (from,
    /// pitch, stage), gathering the next group's rows into its stage a
    /// share with each 16 columns transposed, and with `ahead` (first
    /// byte, bytes a row) asking for a row's share with each row that
    /// share covers (see [`super::pack_bytes32_gathering`]).
    ///
    /// # Safety
    /// As [`super::pack`] for these rows; `next`'s 32 rows of `row` bytes
    /// readable and its stage writable for `32·row` bytes, apart from the
    /// rest; AVX2 is on.
    #[inline(always)]
    pub(super) unsafe fn pack_bytes32<const NT: bool>(
        (from, pitch): (*const u8, usize),
        out: *mut u8,
        row: usize,
        next: Option<(*const u8, usize, *mut u8)>,
        ahead: Option<(*const u8, usize)>,
    ) {
        let per = 32usize.div_ceil(row / 16);
        // SAFETY: the caller's contract.
        unsafe {
            for (b, k) in (0..row).step_by(16).enumerate() {
                // Rows l and l + 16 of columns k..k+16: the transpose
                // gives each column's 32 rows.
                let t = transpose16(core::array::from_fn(|l| {
                    let lo = from.add(l * pitch + k);
                    _mm256_loadu2_m128i(lo.add(16 * pitch).cast(), lo.cast())
                }));
                for (c, v) in t.into_iter().enumerate() {
                    put::<NT>(out.add((k + c) * 32), v);
                }
                super::next_share(
                    b * per..((b + 1) * per).min(32),
                    row,
                    (next, ahead),
                    |f, t| copy_row(f, t, row),
                );
            }
        }
    }

    /// [`super::x86::unpack`] with AVX2: `row` a multiple of 32.
    ///
    /// # Safety
    /// As [`super::unpack_group`]; AVX2 is on (and what a wide kernel
    /// needs, see [`Kernel`]).
    #[inline(always)]
    pub(super) unsafe fn unpack<const NT: bool>(
        kernel: Kernel,
        from: *const u8,
        to: *mut u8,
        pitch: usize,
        row: usize,
    ) {
        // SAFETY: every load is inside the group's input, every
        // store inside a destination row; AVX2 is on (and a wide kernel's
        // conditions hold, the caller's contract).
        unsafe {
            let input = |k: usize| load(from.add(k));
            let out = |l: usize, k: usize, v| put::<NT>(to.add(l * pitch + k), v);
            match kernel {
                Kernel::Copy => {
                    for k in (0..row).step_by(32) {
                        out(0, k, input(k));
                    }
                }
                Kernel::Pairs16 | Kernel::Pairs16Wide | Kernel::Pairs8 => {
                    // Per lane: the even elements to the low half, the odd
                    // ones to the high half.
                    let split = if kernel != Kernel::Pairs8 {
                        _mm256_setr_epi8(
                            0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15, 0, 1, 4, 5, 8, 9,
                            12, 13, 2, 3, 6, 7, 10, 11, 14, 15,
                        )
                    } else {
                        _mm256_setr_epi8(
                            0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15, 0, 2, 4, 6, 8,
                            10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15,
                        )
                    };
                    for k in (0..row).step_by(32) {
                        let a = _mm256_shuffle_epi8(input(2 * k), split);
                        let b = _mm256_shuffle_epi8(input(2 * k + 32), split);
                        let even = _mm256_unpacklo_epi64(a, b);
                        let odd = _mm256_unpackhi_epi64(a, b);
                        out(0, k, _mm256_permute4x64_epi64::<0xD8>(even));
                        out(1, k, _mm256_permute4x64_epi64::<0xD8>(odd));
                    }
                }
                Kernel::Quads8Wide => super::avx512::unpack_quads::<NT>(from, to, pitch, row),
                Kernel::Quads8 => {
                    // Per lane: byte r of each quad to 32-bit lane r.
                    let split = _mm256_setr_epi8(
                        0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 0, 4, 8, 12, 1, 5, 9,
                        13, 2, 6, 10, 14, 3, 7, 11, 15,
                    );
                    let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
                    for k in (0..row).step_by(32) {
                        let v: [__m256i; 4] = core::array::from_fn(|j| {
                            _mm256_shuffle_epi8(input(4 * k + 32 * j), split)
                        });
                        // A 4×4 transpose of 32-bit lanes in each half.
                        let (t0, t1) = (
                            _mm256_unpacklo_epi32(v[0], v[1]),
                            _mm256_unpacklo_epi32(v[2], v[3]),
                        );
                        let (t2, t3) = (
                            _mm256_unpackhi_epi32(v[0], v[1]),
                            _mm256_unpackhi_epi32(v[2], v[3]),
                        );
                        let rows = [
                            _mm256_unpacklo_epi64(t0, t1),
                            _mm256_unpackhi_epi64(t0, t1),
                            _mm256_unpacklo_epi64(t2, t3),
                            _mm256_unpackhi_epi64(t2, t3),
                        ];
                        for (r, v) in rows.into_iter().enumerate() {
                            out(r, k, _mm256_permutevar8x32_epi32(v, order));
                        }
                    }
                }
                // `Tiles::choose` never unpacks with `Bytes32Lines`.
                Kernel::Bytes32Wide | Kernel::Bytes32Lines => {
                    super::avx512::unpack::<NT>(from, to, pitch, row)
                }
                Kernel::Bytes32 => {
                    for k in (0..row).step_by(16) {
                        // Columns k..k+16, rows 0-15 and 16-31 in the two
                        // lanes: the transpose gives rows l and l + 16.
                        let t = transpose16(core::array::from_fn(|c| input((k + c) * 32)));
                        for (l, v) in t.into_iter().enumerate() {
                            let p = to.add(l * pitch + k);
                            _mm_storeu_si128(p.cast(), _mm256_castsi256_si128(v));
                            _mm_storeu_si128(
                                p.add(16 * pitch).cast(),
                                _mm256_extracti128_si256::<1>(v),
                            );
                        }
                    }
                }
                Kernel::Bytes16 => super::x86::unpack::<NT>(kernel, from, to, pitch, row),
                Kernel::Scalar => unreachable!(),
            }
        }
    }
}

/// The wide kernels: 512-bit byte transposes of pred's 32 rows; s8's
/// quads and bf16's pairs, packed and unpacked, and realigned to the line
/// grid in registers ([`Realign`], [`unpack_realigned`]) with VBMI.
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use core::arch::x86_64::{
        __m512i, _mm_loadu_si128, _mm_setr_epi8, _mm512_add_epi8, _mm512_add_epi16,
        _mm512_broadcast_i32x4, _mm512_castsi128_si512, _mm512_inserti32x4, _mm512_loadu_si512,
        _mm512_mask_storeu_epi8, _mm512_permutex2var_epi8, _mm512_permutex2var_epi16,
        _mm512_permutex2var_epi32, _mm512_permutexvar_epi64, _mm512_set1_epi8, _mm512_set1_epi16,
        _mm512_setr_epi32, _mm512_setr_epi64, _mm512_setzero_si512, _mm512_shuffle_epi8,
        _mm512_shuffle_i64x2, _mm512_storeu_si512, _mm512_stream_si512, _mm512_unpackhi_epi8,
        _mm512_unpacklo_epi8,
    };

    use super::{Ask, Gather};

    /// `rounds` perfect shuffles of `x`'s bytes: vector `i` interleaved
    /// with vector `i + N/2`, the low halves of each 128-bit lane to
    /// vector `2i`, the high ones to `2i + 1`. Each round rotates a byte's
    /// address (vector bits, then the bits within the lane) one bit left.
    ///
    /// # Safety
    /// The CPU runs AVX-512BW (the caller enables it).
    #[inline(always)]
    unsafe fn interleave<const N: usize>(mut x: [__m512i; N], rounds: usize) -> [__m512i; N] {
        for _ in 0..rounds {
            // SAFETY: the caller's: AVX-512BW is on.
            x = core::array::from_fn(|i| unsafe {
                let (a, b) = (x[i / 2], x[i / 2 + N / 2]);
                if i % 2 == 0 {
                    _mm512_unpacklo_epi8(a, b)
                } else {
                    _mm512_unpackhi_epi8(a, b)
                }
            });
        }
        x
    }

    /// 64 bytes to `p`: a streaming store with `NT` (`p` 64-byte
    /// aligned), else an ordinary one.
    ///
    /// # Safety
    /// `p` writable for 64 bytes, aligned with `NT`; the CPU runs
    /// AVX-512F.
    #[inline(always)]
    unsafe fn put<const NT: bool>(p: *mut u8, v: __m512i) {
        // SAFETY: the caller's.
        unsafe {
            if NT {
                _mm512_stream_si512(p.cast(), v)
            } else {
                _mm512_storeu_si512(p.cast(), v)
            }
        }
    }

    /// [`super::pack`] of 32 rows of bytes with AVX-512BW, 16 columns at
    /// a time: row `l + 8j` in 128-bit lane `j` of vector `l` (`l < 8`),
    /// three rounds of interleaving turn each lane's 8×16 bytes into 2
    /// columns × 8 rows, and one qword permute puts each column's 32 rows
    /// together. 32 shuffles per 512 bytes where the AVX2 kernel needs 64
    /// (and 16 more to load): on the Xeon it packs pred 0.03–0.17× of the
    /// NT copy faster (BENCHMARKS.md).
    ///
    /// Its rows come gathered in [`super::pack`]'s stage where they are
    /// apart in memory, written 16 bytes at a time; so they are read 16
    /// bytes at a time: a load that spans several stores still in the
    /// store buffer cannot take its bytes from them and waits (64-byte
    /// loads of a stage laid out for them ran no faster than the AVX2
    /// kernel).
    ///
    /// # Safety
    /// As [`super::pack`] (`row` a multiple of 16); the CPU runs AVX-512F
    /// and BW; with `NT`, `out` 64-byte aligned.
    #[target_feature(enable = "avx2,avx512f,avx512bw")]
    pub(super) unsafe fn pack<const NT: bool>(
        from: *const u8,
        pitch: usize,
        out: *mut u8,
        row: usize,
    ) {
        // SAFETY: reads inside the group's 32 rows, writes inside its
        // output; the CPU runs the extensions.
        unsafe {
            // Each lane: column 2i's 8 rows, then column 2i + 1's; lanes
            // hold rows 0-7, 8-15, 16-23, 24-31.
            let order = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
            for k in (0..row).step_by(16) {
                let at = |l: usize| _mm_loadu_si128(from.add(l * pitch + k).cast());
                let x: [__m512i; 8] = core::array::from_fn(|l| {
                    let v = _mm512_castsi128_si512(at(l));
                    let v = _mm512_inserti32x4::<1>(v, at(l + 8));
                    let v = _mm512_inserti32x4::<2>(v, at(l + 16));
                    _mm512_inserti32x4::<3>(v, at(l + 24))
                });
                for (i, v) in interleave(x, 3).into_iter().enumerate() {
                    put::<NT>(
                        out.add((k + 2 * i) * 32),
                        _mm512_permutexvar_epi64(order, v),
                    );
                }
            }
        }
    }

    /// [`super::gather`] of 32 rows 64 bytes at a time: a quarter of the
    /// stores, which queue in order behind the streaming stores of the
    /// tile before (see [`pack_lines`]), and each 16-byte read of the
    /// stage inside one of them, so that the store forwards to it. For
    /// rows off the line grid, measured against the 16-byte gathering in
    /// the same process (BENCHMARKS.md, "pred without the stage"): near
    /// the core and from memory at 8191×8190 0.03–0.05× of the NT copy
    /// faster.
    ///
    /// # Safety
    /// As [`super::gather`] with `g = 32`, `row` a multiple of 64; the
    /// CPU runs AVX-512F.
    #[target_feature(enable = "avx2,avx512f,avx512bw")]
    pub(super) unsafe fn gather_lines(from: *const u8, pitch: usize, stage: *mut u8, row: usize) {
        for l in 0..32 {
            for k in (0..row).step_by(64) {
                // SAFETY: bytes `k..k + 64` of row `l < 32` (`row` a
                // multiple of 64), and of its place in the stage.
                unsafe {
                    let v = _mm512_loadu_si512(from.add(l * pitch + k).cast());
                    _mm512_storeu_si512(stage.add(l * row + k).cast(), v);
                }
            }
        }
    }

    /// [`super::pack`] of 32 rows of bytes with AVX-512BW, 64 columns at
    /// a time, straight from the rows: each row's line loaded once,
    /// whole (so rows in one cache set need no stage), vector `r` row
    /// `r`. Five rounds of interleaving (the 32×16 byte transpose in
    /// each 128-bit lane) leave lane `j` of vector `2c + h` column
    /// `16j + c`'s rows `16h..16h + 16`; a 4×4 transpose of the 128-bit
    /// lanes of each four vectors then gives each output line (two
    /// columns' 32 rows). 224 shuffles per 2 KiB (160 interleaves and
    /// 64 lane shuffles; [`pack`]'s 128 shuffles and 96 inserts, as
    /// many), no stores but the output's (and a few spills).
    ///
    /// Why: with [`pack`]'s stage, each tile's 256 16-byte stores queue
    /// in order behind the streaming stores of the tile before, so the
    /// gathering and the transposes took turns. Measured on a Xeon
    /// against the stage in the same process (BENCHMARKS.md, "pred
    /// without the stage"): up to 0.07× of the NT copy faster, streamed
    /// near the core and from memory (in one run of eight 0.01× behind);
    /// with ordinary stores near the core 20–21 → 22–26 GiB/s. Only
    /// [`super::Kernel::Bytes32Lines`] runs it.
    ///
    /// # Safety
    /// As [`super::pack`] (32 rows), `row` a multiple of 64; the CPU runs
    /// AVX-512F and BW; with `NT`, `out` 64-byte aligned.
    #[target_feature(enable = "avx2,avx512f,avx512bw")]
    pub(super) unsafe fn pack_lines<const NT: bool>(
        from: *const u8,
        pitch: usize,
        out: *mut u8,
        row: usize,
    ) {
        // SAFETY: row `r < 32`'s bytes `k..k + 64`, `k + 64 <= row` (a
        // multiple of 64), are inside the group's rows; the 32 stores of
        // each `k` write `out`'s bytes `32k..32k + 2048`, inside its
        // `32·row`; the CPU runs the extensions.
        unsafe {
            for k in (0..row).step_by(64) {
                // Spelled out (macros): `array::from_fn` and loops over
                // 32 vectors were not inlined or unrolled, and passed the
                // vectors through memory.
                macro_rules! rows {
                    ($($r:literal)*) => {
                        [$(_mm512_loadu_si512(from.add($r * pitch + k).cast())),*]
                    };
                }
                let mut x: [__m512i; 32] = rows!(
                    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15
                    16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
                );
                // Round `s` interleaves vector `i` with `i + s`, in place:
                // bit `s` of the row moves into the byte's place in the
                // lane and the lane's top bit takes its place. After the
                // rounds 16, 8, 4, 2, 1, lane `j` of vector `2c + h` is
                // column `16j + c`'s rows `16h..16h + 16`.
                macro_rules! round {
                    ($s:literal; $($i:literal)*) => {$(
                        let (a, b) = (x[$i], x[$i + $s]);
                        x[$i] = _mm512_unpacklo_epi8(a, b);
                        x[$i + $s] = _mm512_unpackhi_epi8(a, b);
                    )*};
                }
                round!(16; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
                round!(8; 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23);
                round!(4; 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27);
                round!(2; 0 1 4 5 8 9 12 13 16 17 20 21 24 25 28 29);
                round!(1; 0 2 4 6 8 10 12 14 16 18 20 22 24 26 28 30);
                // Output line `8·j' + j` (`j' < 4`): lane `j'` of vectors
                // `4j..4j + 4`, columns `16j' + 2j` and `16j' + 2j + 1`.
                let mut lines = x;
                for j in 0..8 {
                    let [a, b, c, d] = [x[4 * j], x[4 * j + 1], x[4 * j + 2], x[4 * j + 3]];
                    // Lanes a0 a1 b0 b1, a2 a3 b2 b3, and so for c, d.
                    let ab = _mm512_shuffle_i64x2::<0b01_00_01_00>(a, b);
                    let ab2 = _mm512_shuffle_i64x2::<0b11_10_11_10>(a, b);
                    let cd = _mm512_shuffle_i64x2::<0b01_00_01_00>(c, d);
                    let cd2 = _mm512_shuffle_i64x2::<0b11_10_11_10>(c, d);
                    lines[j] = _mm512_shuffle_i64x2::<0b10_00_10_00>(ab, cd);
                    lines[8 + j] = _mm512_shuffle_i64x2::<0b11_01_11_01>(ab, cd);
                    lines[16 + j] = _mm512_shuffle_i64x2::<0b10_00_10_00>(ab2, cd2);
                    lines[24 + j] = _mm512_shuffle_i64x2::<0b11_01_11_01>(ab2, cd2);
                }
                // In the output's order (interleaved four ways, stores
                // into a destination off the line grid ran 0.14–0.22× of
                // the NT copy slower).
                for (i, v) in lines.into_iter().enumerate() {
                    put::<NT>(out.add((k + 2 * i) * 32), v);
                }
            }
        }
    }

    /// [`pack`] with streaming stores of a gathered tile at `now` (32
    /// rows of `row` bytes, `row` apart) to `out`, gathering the next
    /// tile a share with each 16 columns transposed (as
    /// [`super::avx2::pack_bytes32`] does, see
    /// [`super::pack_bytes32_gathering`]), its rows copied 64 bytes at a
    /// time: its stage was written a tile earlier, so its lines are
    /// whole in L1 by the time they are read 16 bytes at a time.
    /// Measured on Zen 5 (BENCHMARKS.md): near the core 25 → 31 GiB/s
    /// (the AVX2 pipeline's 32-byte streaming stores and its 256-bit
    /// shuffles were the limit there).
    ///
    /// # Safety
    /// As [`super::pack_bytes32_gathering`] with `wide`.
    #[target_feature(enable = "avx2,avx512f,avx512bw")]
    pub(super) unsafe fn pack_gathering(
        now: *const u8,
        out: *mut u8,
        row: usize,
        (next, ahead): (Gather, Ask),
    ) {
        let per = 32usize.div_ceil(row / 16);
        let copy = |from: *const u8, to: *mut u8| {
            let whole = row / 64 * 64;
            // SAFETY: inside the `row` bytes of a row of the next tile
            // and of its stage (`next_share`'s contract).
            unsafe {
                for k in (0..whole).step_by(64) {
                    _mm512_storeu_si512(to.add(k).cast(), _mm512_loadu_si512(from.add(k).cast()));
                }
                super::copy_row(from.add(whole), to.add(whole), row - whole);
            }
        };
        // SAFETY: the caller's contract.
        unsafe {
            for (b, k) in (0..row).step_by(16).enumerate() {
                pack::<true>(now.add(k), row, out.add(k * 32), 16);
                super::next_share(b * per..((b + 1) * per).min(32), row, (next, ahead), copy);
            }
        }
    }

    /// [`super::unpack_group`] of 32 rows of bytes with AVX-512BW, 64
    /// columns and 16 rows at a time: 128-bit lane `j` of vector `k`
    /// (`k < 16`) holds 16 rows of column `16j + k`, and four rounds of
    /// interleaving (the 16×16 byte transpose in each lane) make vector
    /// `l` row `l`'s 64 columns, one store each: 32 shuffles and 24
    /// inserts per 512 bytes where the AVX2 kernel needs 64 shuffles and
    /// 16 extracts. `Tiles::choose` takes it with ordinary stores into
    /// rows of whole lines, where each store writes one whole line (so
    /// rows 2048 bytes apart need no stage): on the Xeon in cache,
    /// 0.2–0.5× of the NT copy faster. Streaming, it lost 0.05–0.1×
    /// from memory, straight from the registers or through the lines
    /// (BENCHMARKS.md).
    ///
    /// # Safety
    /// As [`super::unpack_group`], `row` a multiple of 64; the CPU runs
    /// AVX-512F and BW; with `NT`, each row's part 64-byte aligned.
    #[target_feature(enable = "avx2,avx512f,avx512bw")]
    pub(super) unsafe fn unpack<const NT: bool>(
        from: *const u8,
        to: *mut u8,
        pitch: usize,
        row: usize,
    ) {
        // SAFETY: reads inside the group's `32·row` input bytes, writes
        // inside its rows' `row` bytes; the CPU runs the extensions.
        unsafe {
            for h in (0..row).step_by(64) {
                for half in 0..2 {
                    // 16 bytes: column `c`'s rows `16·half..`.
                    let at = |c: usize| _mm_loadu_si128(from.add(c * 32 + 16 * half).cast());
                    let x: [__m512i; 16] = core::array::from_fn(|k| {
                        let v = _mm512_castsi128_si512(at(h + k));
                        let v = _mm512_inserti32x4::<1>(v, at(h + 16 + k));
                        let v = _mm512_inserti32x4::<2>(v, at(h + 32 + k));
                        _mm512_inserti32x4::<3>(v, at(h + 48 + k))
                    });
                    for (l, v) in interleave(x, 4).into_iter().enumerate() {
                        put::<NT>(to.add((16 * half + l) * pitch + h), v);
                    }
                }
            }
        }
    }

    /// [`super::unpack_group`] of 4 rows of bytes with AVX-512BW, 64
    /// columns at a time: a byte shuffle gathers each 128-bit lane's 4
    /// quads by row (row `r` in 32-bit lane `r`), two-table 32-bit
    /// permutes join two vectors' rows 0-1 and 2-3, and 128-bit lane
    /// shuffles give each row's 64 columns in order: 12 shuffles per 256
    /// bytes where the AVX2 kernel needs 32.
    ///
    /// # Safety
    /// As [`super::unpack_group`], `row` a multiple of 64; the CPU runs
    /// AVX-512F and BW; with `NT`, each row's part 64-byte aligned.
    #[target_feature(enable = "avx2,avx512f,avx512bw")]
    pub(super) unsafe fn unpack_quads<const NT: bool>(
        from: *const u8,
        to: *mut u8,
        pitch: usize,
        row: usize,
    ) {
        // SAFETY: reads inside the group's `4·row` input bytes, writes
        // inside its rows' `row` bytes; the CPU runs the extensions.
        unsafe {
            for k in (0..row).step_by(64) {
                let rows = quads(from.add(4 * k));
                for (r, v) in rows.into_iter().enumerate() {
                    put::<NT>(to.add(r * pitch + k), v);
                }
            }
        }
    }

    /// The 4 rows of 64 columns whose quads are the 256 bytes at `from`
    /// (see [`unpack_quads`]), row `r` in vector `r`.
    ///
    /// # Safety
    /// `from` readable for 256 bytes; the CPU runs AVX-512F and BW.
    #[inline(always)]
    unsafe fn quads(from: *const u8) -> [__m512i; 4] {
        // SAFETY: the caller's.
        unsafe {
            let split = _mm512_broadcast_i32x4(_mm_setr_epi8(
                0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15,
            ));
            // After the split, 32-bit lane `4j + r` of vector `m` holds row
            // `r` of columns `16m + 4j..`: rows 0 and 1 (2 and 3) of two
            // vectors, in column order.
            let low = _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 1, 5, 9, 13, 17, 21, 25, 29);
            let high =
                _mm512_setr_epi32(2, 6, 10, 14, 18, 22, 26, 30, 3, 7, 11, 15, 19, 23, 27, 31);
            let z: [__m512i; 4] = core::array::from_fn(|m| {
                _mm512_shuffle_epi8(_mm512_loadu_si512(from.add(64 * m).cast()), split)
            });
            let (p, q) = (
                _mm512_permutex2var_epi32(z[0], low, z[1]),
                _mm512_permutex2var_epi32(z[0], high, z[1]),
            );
            let (p2, q2) = (
                _mm512_permutex2var_epi32(z[2], low, z[3]),
                _mm512_permutex2var_epi32(z[2], high, z[3]),
            );
            [
                _mm512_shuffle_i64x2::<0b01_00_01_00>(p, p2),
                _mm512_shuffle_i64x2::<0b11_10_11_10>(p, p2),
                _mm512_shuffle_i64x2::<0b01_00_01_00>(q, q2),
                _mm512_shuffle_i64x2::<0b11_10_11_10>(q, q2),
            ]
        }
    }

    /// Where a packing kernel's 64-byte pieces go, in the output's order.
    pub(in super::super) trait Out {
        /// Writes the 64 bytes `v` meant for `at`.
        ///
        /// # Safety
        /// `at` writable for 64 bytes; the implementation's own contract;
        /// the CPU runs AVX-512F, BW and VBMI.
        unsafe fn put(&mut self, at: *mut u8, v: __m512i);
    }

    /// Each piece where it is meant to go: a streaming store with `NT`
    /// (the piece 64-byte aligned), else an ordinary one.
    pub(in super::super) struct Plain<const NT: bool>;

    impl<const NT: bool> Out for Plain<NT> {
        #[inline(always)]
        unsafe fn put(&mut self, at: *mut u8, v: __m512i) {
            // SAFETY: the caller's.
            unsafe { put::<NT>(at, v) }
        }
    }

    /// Pieces that all start `skew` bytes into a line, each right after
    /// the one before, written as whole lines: each line joins the last
    /// `skew` bytes of the piece before to the first `64 − skew` of this
    /// one in one two-table byte permute (VBMI) and streams out. The
    /// first line of the run (its bytes before the first piece are not
    /// the run's) is a masked ordinary store, and so is the last,
    /// [`Realign::finish`].
    pub(in super::super) struct Realign {
        held: __m512i,
        join: __m512i,
        skew: usize,
        /// The piece last written, null before the first.
        last: *mut u8,
    }

    impl Realign {
        /// A run of pieces that start `skew` (below 64) bytes into a line.
        ///
        /// # Safety
        /// The CPU runs AVX-512F and BW.
        #[target_feature(enable = "avx512f,avx512bw")]
        pub(in super::super) unsafe fn new(skew: usize) -> Realign {
            // SAFETY: 64 bytes of a constant.
            let iota = unsafe { _mm512_loadu_si512(IOTA.as_ptr().cast()) };
            Realign {
                held: _mm512_setzero_si512(),
                join: _mm512_add_epi8(iota, _mm512_set1_epi8((64 - skew) as i8)),
                skew,
                last: core::ptr::null_mut(),
            }
        }

        /// Writes the run's bytes still held: the last line's first
        /// `skew`, with a masked ordinary store.
        ///
        /// # Safety
        /// As [`Out::put`] for the last piece's next line.
        #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vbmi")]
        pub(in super::super) unsafe fn finish(&mut self) {
            if self.last.is_null() || self.skew == 0 {
                return;
            }
            let out = _mm512_permutex2var_epi8(self.held, self.join, _mm512_setzero_si512());
            let at = self.last.wrapping_add(64 - self.skew);
            // SAFETY: the bytes after the last piece up to the next line
            // are the run's (the caller's); the mask writes only them.
            unsafe { _mm512_mask_storeu_epi8(at.cast(), (1 << self.skew) - 1, out) };
        }
    }

    impl Out for Realign {
        /// # Safety
        /// As [`Out::put`]; `at` is `skew` bytes into a line, right after
        /// the piece before (if any), the bytes from `at`'s line start
        /// writable (they are the run's) unless it is the first piece.
        #[inline(always)]
        unsafe fn put(&mut self, at: *mut u8, v: __m512i) {
            debug_assert!(at as usize % 64 == self.skew);
            debug_assert!(self.last.is_null() || at == self.last.wrapping_add(64));
            // SAFETY: the caller's: the line before `at`'s first byte is
            // the run's but for the first piece, whose line is written
            // with the mask of its own bytes.
            unsafe {
                let out = _mm512_permutex2var_epi8(self.held, self.join, v);
                let line = at.wrapping_sub(self.skew);
                if self.last.is_null() {
                    _mm512_mask_storeu_epi8(line.cast(), !0 << self.skew, out);
                } else {
                    _mm512_stream_si512(line.cast(), out);
                }
            }
            self.held = v;
            self.last = at;
        }
    }

    /// Byte `i` is `i`.
    const IOTA: [u8; 64] = {
        let mut iota = [0; 64];
        let mut i = 0;
        while i < 64 {
            iota[i] = i as u8;
            i += 1;
        }
        iota
    };

    /// Byte `i` of a two-table permute's index that interleaves `n`-byte
    /// pieces of its two tables from piece `first` of each: piece `p` of
    /// the result is piece `first + p/2` of table `p % 2`.
    const fn zip(n: usize, first: usize) -> [u8; 64] {
        let mut idx = [0; 64];
        let mut i = 0;
        while i < 64 {
            let (p, b) = (i / n, i % n);
            idx[i] = (64 * (p % 2) + (first + p / 2) * n + b) as u8;
            i += 1;
        }
        idx
    }

    /// [`super::pack`] of 4 rows of bytes (s8's quads) with VBMI's
    /// two-table byte permutes, 64 columns at a time: rows 0 and 1 (2
    /// and 3) interleaved by byte, then the two pairs by 16 bits, 8
    /// permutes for 256 bytes where the AVX2 kernel needs 12 shuffles
    /// for 128.
    ///
    /// # Safety
    /// As [`super::pack`], `row` a multiple of 64; the CPU runs
    /// AVX-512F, BW and VBMI; `o`'s contract for the output's lines.
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vbmi")]
    pub(super) unsafe fn pack_quads<O: Out>(
        from: *const u8,
        pitch: usize,
        out: *mut u8,
        row: usize,
        o: &mut O,
    ) {
        const BYTES: [[u8; 64]; 2] = [zip(1, 0), zip(1, 32)];
        const PAIRS: [[u8; 64]; 2] = [zip(2, 0), zip(2, 16)];
        // SAFETY: loads inside the group's rows, stores inside its
        // `4·row` output bytes (in order); the CPU runs the extensions.
        unsafe {
            let idx = |t: &[u8; 64]| _mm512_loadu_si512(t.as_ptr().cast());
            let (b, p) = (BYTES.map(|t| idx(&t)), PAIRS.map(|t| idx(&t)));
            for k in (0..row).step_by(64) {
                let r: [__m512i; 4] =
                    core::array::from_fn(|l| _mm512_loadu_si512(from.add(l * pitch + k).cast()));
                for (h, &b) in b.iter().enumerate() {
                    let (x, y) = (
                        _mm512_permutex2var_epi8(r[0], b, r[1]),
                        _mm512_permutex2var_epi8(r[2], b, r[3]),
                    );
                    for (j, p) in p.iter().enumerate() {
                        let at = out.add(4 * k + 128 * h + 64 * j);
                        o.put(at, _mm512_permutex2var_epi8(x, *p, y));
                    }
                }
            }
        }
    }

    /// [`super::pack`] of 2 rows of 16-bit slots (bf16's pairs) with
    /// VBMI's two-table byte permutes, 32 columns at a time: two permutes
    /// for 128 bytes.
    ///
    /// # Safety
    /// As [`pack_quads`].
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vbmi")]
    pub(super) unsafe fn pack_pairs16<O: Out>(
        from: *const u8,
        pitch: usize,
        out: *mut u8,
        row: usize,
        o: &mut O,
    ) {
        const PAIRS: [[u8; 64]; 2] = [zip(2, 0), zip(2, 16)];
        // SAFETY: loads inside the group's rows, stores inside its
        // `2·row` output bytes (in order); the CPU runs the extensions.
        unsafe {
            let idx = |t: &[u8; 64]| _mm512_loadu_si512(t.as_ptr().cast());
            let p = PAIRS.map(|t| idx(&t));
            for k in (0..row).step_by(64) {
                let (a, b) = (
                    _mm512_loadu_si512(from.add(k).cast()),
                    _mm512_loadu_si512(from.add(pitch + k).cast()),
                );
                for (j, p) in p.iter().enumerate() {
                    o.put(out.add(2 * k + 64 * j), _mm512_permutex2var_epi8(a, *p, b));
                }
            }
        }
    }

    /// Two rows of 32 bf16 columns whose pairs are the 128 bytes at
    /// `from` (rows interleaved by 16-bit slot), row `r` in vector `r`.
    ///
    /// # Safety
    /// `from` readable for 128 bytes; the CPU runs AVX-512F and BW.
    #[inline(always)]
    unsafe fn pairs16(from: *const u8) -> [__m512i; 2] {
        // SAFETY: the caller's.
        unsafe {
            let (x, y) = (
                _mm512_loadu_si512(from.cast()),
                _mm512_loadu_si512(from.add(64).cast()),
            );
            // Slot `i` of row `r` is slot `2i + r` of `x` and `y` back to
            // back.
            let even = _mm512_loadu_si512(EVEN16.as_ptr().cast());
            let odd = _mm512_add_epi16(even, _mm512_set1_epi16(1));
            [
                _mm512_permutex2var_epi16(x, even, y),
                _mm512_permutex2var_epi16(x, odd, y),
            ]
        }
    }

    /// `2i` for each 16-bit slot `i` of a 512-bit vector.
    const EVEN16: [u16; 32] = {
        let mut even = [0; 32];
        let mut i = 0;
        while i < 32 {
            even[i] = 2 * i as u16;
            i += 1;
        }
        even
    };

    /// Unpacks `tiles` whole tiles of one band (`R` rows of `row` bytes
    /// in groups of `G`: s8's quads, `G = 4`, as [`quads`] reads them, or
    /// bf16's pairs, `G = 2`, as [`pairs16`]; each tile `tile` bytes
    /// after the one before, from `from`) into `R` destination rows
    /// starting at `to`, at any byte alignment, with streaming stores of
    /// whole lines only: each row's next 64 bytes join the bytes its
    /// previous 64 left over in one two-table byte permute (VBMI), and
    /// the line they complete goes out. The row's first line (shared
    /// with the row before) and its last are written with masked
    /// ordinary stores of the row's bytes alone. This is [`Realign`]'s
    /// joining, once per row, spelled out so that the held bytes stay in
    /// registers: through an array of `Realign`s (held in memory), s8's
    /// rows off the line grid ran 0.80–0.85× of the NT copy against
    /// 0.88–0.96× (BENCHMARKS.md). Nothing is staged: with
    /// no ordinary stores queued behind the streaming ones, the shuffles
    /// run while the lines go out, as they do where rows start on lines
    /// (`Stores::Direct`); joined into lines through the stage instead,
    /// s8's rows off the line grid ran 0.1–0.17× of the NT copy slower
    /// (BENCHMARKS.md). With `ahead`, asks for each group of the next
    /// tile as the direct unpacking does.
    ///
    /// # Safety
    /// `G` is 2 or 4 and divides `R`; `from` readable for `tiles·tile`
    /// bytes, each tile's `R·row` bytes its first; `row` a multiple of 64;
    /// each `to[r]` writable for `tiles·row` bytes, the rows apart; the
    /// CPU runs AVX-512F, BW and VBMI.
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vbmi")]
    pub(super) unsafe fn unpack_realigned<const R: usize, const G: usize>(
        from: *const u8,
        (tile, tiles): (usize, usize),
        row: usize,
        to: [*mut u8; R],
        ahead: bool,
    ) {
        if tiles == 0 {
            return;
        }
        // SAFETY: reads inside the tiles, writes inside the rows' bytes
        // (masked stores write only the bits set; every streamed line is
        // inside its row: see below); the CPU runs the extensions.
        unsafe {
            let iota = _mm512_loadu_si512(IOTA.as_ptr().cast());
            // Row `r`'s 64 columns from `k` start `skew[r]` bytes into
            // the line at `line[r] + k`; that line's bytes are the
            // previous 64's last `skew` and these 64's first `64 − skew`:
            // byte `i` is byte `i + 64 − skew` of the two, back to back.
            let skew: [usize; R] = core::array::from_fn(|r| to[r] as usize % 64);
            let line: [*mut u8; R] = core::array::from_fn(|r| to[r].wrapping_sub(skew[r]));
            let join: [__m512i; R] = core::array::from_fn(|r| {
                _mm512_add_epi8(iota, _mm512_set1_epi8((64 - skew[r]) as i8))
            });
            let mut held = [_mm512_setzero_si512(); R];
            for t in 0..tiles {
                for q in 0..R / G {
                    let group = from.add(t * tile + q * G * row);
                    if ahead {
                        super::super::streaming::prefetch(group.wrapping_add(tile), G * row);
                    }
                    for k in (0..row).step_by(64) {
                        let rows = match G {
                            4 => quads(group.add(4 * k)),
                            _ => {
                                let [a, b] = pairs16(group.add(2 * k));
                                [a, b, a, b]
                            }
                        };
                        for (i, &v) in rows.iter().take(G).enumerate() {
                            let r = G * q + i;
                            let out = _mm512_permutex2var_epi8(held[r], join[r], v);
                            let at = line[r].wrapping_add(t * row + k);
                            if t == 0 && k == 0 {
                                // The row's first line: its bytes from
                                // `skew` on (before, the row above's).
                                _mm512_mask_storeu_epi8(at.cast(), !0 << skew[r], out);
                            } else {
                                // Bytes `at − to[r]` ≥ 64 − skew ≥ 0 to
                                // 64 more: inside the row.
                                _mm512_stream_si512(at.cast(), out);
                            }
                            held[r] = v;
                        }
                    }
                }
            }
            for r in 0..R {
                if skew[r] != 0 {
                    let out = _mm512_permutex2var_epi8(held[r], join[r], _mm512_setzero_si512());
                    let at = line[r].wrapping_add(tiles * row);
                    _mm512_mask_storeu_epi8(at.cast(), (1 << skew[r]) - 1, out);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{AMD, Core, INTEL, core_of};

    /// Rows per L1 set, counted here another way: each row's first byte's
    /// set, grouped, largest group.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn crowded_sets_are_the_ones_with_more_than_eight_rows() {
        use super::crowds_l1_sets;
        let most = |pitch: usize, rows: usize| {
            let mut sets: Vec<usize> = (0..rows).map(|r| (r * pitch / 64) % 64).collect();
            sets.sort_unstable();
            sets.chunk_by(|a, b| a == b)
                .map(<[usize]>::len)
                .max()
                .unwrap_or(0)
        };
        for pitch in [
            1, 64, 128, 1000, 1024, 1025, 1920, 2000, 2040, 2047, 2048, 2049, 4095, 4096, 4097,
            8191, 8192, 12_288,
        ] {
            for rows in [1, 8, 9, 16, 32] {
                assert_eq!(
                    crowds_l1_sets(pitch, rows),
                    most(pitch, rows) > 8,
                    "{pitch}, {rows}"
                );
            }
        }
        // The cases measured (BENCHMARKS.md): through the stage, directly.
        assert!(crowds_l1_sets(2047, 32) && crowds_l1_sets(4095, 32) && crowds_l1_sets(2048, 32));
        assert!(!crowds_l1_sets(1025, 32) && !crowds_l1_sets(2000, 32) && !crowds_l1_sets(4096, 8));
    }

    #[test]
    fn the_vendor_words_spell_the_vendors() {
        let text = |(b, d, c): (u32, u32, u32)| {
            let mut t = [0u8; 12];
            t[..4].copy_from_slice(&b.to_le_bytes());
            t[4..8].copy_from_slice(&d.to_le_bytes());
            t[8..].copy_from_slice(&c.to_le_bytes());
            t
        };
        assert_eq!(&text(INTEL), b"GenuineIntel");
        assert_eq!(&text(AMD), b"AuthenticAMD");
    }

    #[test]
    fn families_of_cores() {
        // Leaf 1's EAX as the CPUs report it: base family 0xF with an
        // extended family of 0xB (Zen 5, family 0x1A, model 2), 0xA
        // (Zen 4, 0x19) and 0x8 (Zen 2, 0x17); Intel's family 6.
        let zen5 = 0x00B0_0F20;
        let zen4 = 0x00A0_0F11;
        let zen2 = 0x0083_0F10;
        let emerald_rapids = 0x000C_06F2;
        assert_eq!(core_of(AMD, zen5), Core::Zen5);
        assert_eq!(core_of(AMD, zen4), Core::Other);
        assert_eq!(core_of(AMD, zen2), Core::Other);
        assert_eq!(core_of(INTEL, emerald_rapids), Core::Intel);
        // A later AMD family counts as Zen 5's; another vendor as none.
        assert_eq!(core_of(AMD, 0x00C0_0F00), Core::Zen5);
        assert_eq!(core_of((0, 0, 0), zen5), Core::Other);
    }

    #[cfg(all(target_arch = "x86_64", not(miri)))]
    #[test]
    fn this_cpu_is_classified_as_its_leaves_say() {
        use core::arch::x86_64::__cpuid;
        let (l0, l1) = (__cpuid(0), __cpuid(1));
        let core = core_of((l0.ebx, l0.edx, l0.ecx), l1.eax);
        assert_eq!(super::family(), core);
        // VBMI as std finds it, counted only with the 512-bit kernels.
        let vbmi = std::is_x86_feature_detected!("avx512vbmi");
        assert_eq!(
            super::vbmi(),
            vbmi && super::isa() == super::Isa::Avx512Wide
        );
    }
}
