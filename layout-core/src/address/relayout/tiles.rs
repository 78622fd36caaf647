//! The TPU's 2-D tile formats: row-major ↔ `T(R,C)` or `T(R,C)(g,1)` on
//! the two most minor dimensions, any dimensions outside them (a batch).
//!
//! The general walk copies these by loop nests over digits, fills the
//! padding beforehand with a pass of its own, and leaves the edge tiles of
//! a ragged array to its scalar kernels. Here the copy goes tile by tile
//! instead, in the order that keeps memory streaming: into tiles
//! ("packing") the destination is written strictly in order, one row
//! group (`g` source rows interleaved, `g·C` elements) after another; out
//! of tiles ("unpacking") the source is read in order and each tile's
//! rows go to `R` destination rows, each a sequential stream of its own
//! (`lines` joins their parts into whole cache lines). Padding is written
//! with the tiles it belongs to: an edge row group is first gathered into
//! a small buffer filled with the pad value.
//!
//! The plan is proposed from the tiled side's coordinate program and then
//! checked against the common digits of both layouts ([`DigitPair`]):
//! every digit's stride on both sides must be the one this module's
//! address formula gives, and both layouts must have exactly the formula's
//! size before tail padding. Since both layouts are affine in those
//! digits, the formula is then exact for every element, and every other
//! slot below the formula's size is padding.

use core::mem::size_of;
use core::ops::Range;

use super::super::digits::DigitPair;
use super::super::tiled::{CoordOp, TiledShape};
#[cfg(target_arch = "x86_64")]
use super::lines::Stage;
use super::lines::{Hint, Lines};
use super::streaming;
use super::tile_kernels::{self, Isa, Kernel, MAX_GROUP_BYTES};

/// How a tile copy writes its destination: chosen once per copy, with
/// the extensions it runs, by [`Tiles::choose`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stores {
    /// Ordinary stores: the destination is small enough to stay in
    /// cache, or streaming cannot take it.
    Ordinary,
    /// Streaming stores: packing in the destination's order; unpacking
    /// through [`Lines`], whole lines per destination row.
    Streaming,
    /// Packing with streaming stores in the source's order
    /// ([`Tiles::in_source_order`]): each row group across the band, its
    /// part of every tile in turn.
    SourceOrder,
    /// Unpacking with streaming stores straight from the kernels'
    /// registers ([`Tiles::direct`]).
    Direct,
    /// Streaming stores straight from the kernels' registers, realigned
    /// there to the line grid: unpacking each row's bytes
    /// ([`Tiles::realigns`]), packing the whole destination
    /// ([`Tiles::pack_realigned`]).
    Realigned,
}

/// A copy between a row-major array and its 2-D tiled form: `batch`
/// matrices of `rows × cols`, tiles of `tile_rows × tile_cols`, rows
/// interleaved in groups of `group` inside a tile. In the tiled form,
/// matrix `b`'s tile `(i, j)` starts at slot `(b·grid_rows + i)·grid_cols
/// + j` times the tile size, and element `(r, c)` of a tile sits at
/// `(r / g)·g·C + c·g + r % g`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Tiles {
    /// Row-major → tiled (else tiled → row-major).
    pub(super) pack: bool,
    pub(super) batch: u64,
    pub(super) rows: u64,
    pub(super) cols: u64,
    pub(super) tile_rows: u64,
    pub(super) tile_cols: u64,
    pub(super) group: u64,
    pub(super) grid_rows: u64,
    pub(super) grid_cols: u64,
    /// Whether the copy asks for source lines ahead of its reads
    /// (software prefetch); off only to measure what they gain.
    pub(super) read_ahead: bool,
    /// Whether packing with streaming stores runs in the source's order
    /// where it can ([`Tiles::in_source_order`]): `None` where the
    /// measurements of the core say so; set only to measure either
    /// order on any core.
    pub(super) source_order: Option<bool>,
    /// Whether pred's packing runs a software pipeline deep
    /// ([`Tiles::pipelines`]): `None` where the measurements of the core
    /// say so; set only to measure or test either way on any core.
    pub(super) pipeline: Option<bool>,
    /// Whether pred's packing reads the source 64 bytes at a time
    /// ([`Kernel::Bytes32Lines`]): `None` where the measurements of the
    /// core say so (Intel's cores; Zen 5 with ordinary stores); set only
    /// to measure or test either way.
    pub(super) from_lines: Option<bool>,
    /// Whether s8's and bf16's rows are realigned to the line grid in
    /// registers where they can be ([`Tiles::realigns`] when unpacking;
    /// packing into a destination off the line grid, see
    /// [`Tiles::choose`]): `None` where the measurements of the core say
    /// so (Intel's cores); set only to measure or test either way.
    pub(super) realign: Option<bool>,
}

impl Tiles {
    /// The tile copy from `src` to `dst`, if one side is row-major, the
    /// other a 2-D tiled form, and the digits confirm the formula (see the
    /// module docs).
    pub(super) const fn new(src: &TiledShape, dst: &TiledShape, pair: &DigitPair) -> Option<Tiles> {
        let src_tiled = src.coords().len() > src.rank();
        let dst_tiled = dst.coords().len() > dst.rank();
        let (host, tiled, pack) = match (src_tiled, dst_tiled) {
            (false, true) => (src, dst, true),
            (true, false) => (dst, src, false),
            _ => return None,
        };
        let Some((r, c, tile_rows, tile_cols, group)) = propose(tiled) else {
            return None;
        };
        if tile_rows == 0 || tile_cols == 0 || group == 0 || !tile_rows.is_multiple_of(group) {
            return None;
        }
        let dims = host.logical_dims();
        let (rows, cols) = (dims[r], dims[c]);
        let mut batch: u64 = 1;
        let mut d = 0;
        while d < dims.len() {
            if d != r && d != c {
                batch = match batch.checked_mul(dims[d]) {
                    Some(b) => b,
                    None => return None,
                };
            }
            d += 1;
        }
        let t = Tiles {
            pack,
            batch,
            rows,
            cols,
            tile_rows,
            tile_cols,
            group,
            grid_rows: rows.div_ceil(tile_rows),
            grid_cols: cols.div_ceil(tile_cols),
            read_ahead: true,
            source_order: None,
            pipeline: None,
            from_lines: None,
            realign: None,
        };
        // Row groups of slots of a byte must fit the edge buffer.
        match group.checked_mul(tile_cols) {
            Some(g) if g <= MAX_GROUP_BYTES as u64 => {}
            _ => return None,
        }
        let (Some(host_matrix), Some(tiled_matrix)) = (t.host_matrix(), t.tiled_matrix()) else {
            return None;
        };
        let (Some(host_slots), Some(tiled_slots)) = (
            batch.checked_mul(host_matrix),
            batch.checked_mul(tiled_matrix),
        ) else {
            return None;
        };
        if host.tiled_slots() != host_slots || tiled.tiled_slots() != tiled_slots {
            return None;
        }
        let digits = pair.digits();
        let mut k = 0;
        while k < digits.len() {
            let g = digits[k];
            let (h, s) = if pack {
                (g.stride_a, g.stride_b)
            } else {
                (g.stride_b, g.stride_a)
            };
            let want = if g.dim == c {
                t.col_strides(g.place, g.count)
            } else if g.dim == r {
                t.row_strides(g.place, g.count)
            } else if host_matrix != 0 && h.is_multiple_of(host_matrix) {
                match (h / host_matrix).checked_mul(tiled_matrix) {
                    Some(s) => Some((h, s)),
                    None => None,
                }
            } else {
                None
            };
            match want {
                Some((wh, ws)) if wh == h && ws == s => {}
                _ => return None,
            }
            k += 1;
        }
        Some(t)
    }

    /// Slots of one matrix in the row-major layout.
    pub(super) const fn host_matrix(&self) -> Option<u64> {
        self.rows.checked_mul(self.cols)
    }

    /// Slots of one matrix in the tiled layout.
    pub(super) const fn tiled_matrix(&self) -> Option<u64> {
        match self.grid_rows.checked_mul(self.grid_cols) {
            Some(n) => match n.checked_mul(self.tile_rows) {
                Some(n) => n.checked_mul(self.tile_cols),
                None => None,
            },
            None => None,
        }
    }

    /// The (row-major, tiled) strides of the column digit at `place`
    /// taking `count` values, if the formula has such a digit.
    const fn col_strides(&self, place: u64, count: u64) -> Option<(u64, u64)> {
        let Some(end) = place.checked_mul(count) else {
            return None;
        };
        let Some(tile) = self.tile_rows.checked_mul(self.tile_cols) else {
            return None;
        };
        let tiled = if end <= self.tile_cols {
            place.checked_mul(self.group)
        } else if place.is_multiple_of(self.tile_cols) {
            (place / self.tile_cols).checked_mul(tile)
        } else {
            None
        };
        match tiled {
            Some(s) => Some((place, s)),
            None => None,
        }
    }

    /// As [`Tiles::col_strides`] for the row digit.
    const fn row_strides(&self, place: u64, count: u64) -> Option<(u64, u64)> {
        let (Some(end), Some(host)) = (place.checked_mul(count), place.checked_mul(self.cols))
        else {
            return None;
        };
        let (g, tr, tc) = (self.group, self.tile_rows, self.tile_cols);
        let (Some(group), Some(tile)) = (g.checked_mul(tc), tr.checked_mul(tc)) else {
            return None;
        };
        let tiled = if end <= g {
            Some(place)
        } else if place.is_multiple_of(g) && end <= tr {
            (place / g).checked_mul(group)
        } else if place.is_multiple_of(tr) {
            match (place / tr).checked_mul(self.grid_cols) {
                Some(n) => n.checked_mul(tile),
                None => None,
            }
        } else {
            None
        };
        match tiled {
            Some(s) => Some((host, s)),
            None => None,
        }
    }

    /// Whether a row group of slots of `size` bytes fits the edge buffer.
    pub(super) const fn fits(&self, size: usize) -> bool {
        // `new` bounded the group to MAX_GROUP_BYTES slots. Zero-sized
        // slots have no bytes to move: the copies never take them here.
        if size == 0 {
            return false;
        }
        match (self.group * self.tile_cols).checked_mul(size as u64) {
            Some(bytes) => bytes <= MAX_GROUP_BYTES as u64,
            None => false,
        }
    }

    /// How many tile rows there are in all: the unit of work (and of a
    /// split between threads).
    pub(super) const fn bands(&self) -> u64 {
        // Asked only when no dimension is 0: then at most `batch · rows
        // · cols`, which `new` checked (saturating only for the others).
        self.batch.saturating_mul(self.grid_rows)
    }
}

/// The row and column dimensions, tile rows and columns and the row
/// group of a tiled layout whose program is `T(R,C)` or `T(R,C)(g,1)` on
/// two logical dimensions; `None` for any other program.
const fn propose(t: &TiledShape) -> Option<(usize, usize, u64, u64, u64)> {
    let coords = t.coords();
    let (mut r, mut c, mut tr, mut tc, mut g) = (usize::MAX, usize::MAX, 0, 0, 1);
    let mut outer = 0;
    let mut k = 0;
    while k < coords.len() {
        match coords[k].op {
            CoordOp::Logical(_) | CoordOp::Inner { .. } => {}
            CoordOp::Pad | CoordOp::Combine { .. } => return None,
            CoordOp::Outer { source, tile } => match coords[source].op {
                CoordOp::Logical(d) => {
                    match outer {
                        0 => (r, tr) = (d, tile),
                        1 => (c, tc) = (d, tile),
                        _ => return None,
                    }
                    outer += 1;
                }
                CoordOp::Inner { source: s, .. } => match coords[s].op {
                    CoordOp::Logical(d) if d == r && outer == 2 => g = tile,
                    CoordOp::Logical(d) if d == c && outer == 2 && tile == 1 => {}
                    _ => return None,
                },
                _ => return None,
            },
        }
        k += 1;
    }
    if outer != 2 || r == c {
        return None;
    }
    Some((r, c, tr, tc, g))
}

/// An entry point of [`Tiles::copy_with`] compiled with a set of x86
/// extensions (the kernels inline into it and take them on).
macro_rules! entry {
    ($(#[$doc:meta])* $name:ident, $features:literal) => {
        impl Tiles {
            $(#[$doc])*
            ///
            /// # Safety
            /// As [`Tiles::copy_bands`]; the CPU runs these extensions.
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = $features)]
            unsafe fn $name<T: Copy>(
                &self,
                b: Buffers<T>,
                bands: Range<u64>,
                how: (Kernel, Stores),
            ) {
                // SAFETY: the caller's contract.
                unsafe { self.copy_with::<T, true>(b, bands, how) }
            }
        }
    };
}

entry!(
    /// The AVX2 kernels.
    copy_avx2,
    "avx2"
);
entry!(
    /// The AVX2 kernels on AVX-512VL's 32 vector registers: the byte
    /// transposes (pred's 32 rows) keep their 16-row blocks in registers
    /// instead of spilling them; and the wide kernels, with 512-bit
    /// vectors.
    copy_avx512,
    "avx2,avx512f,avx512vl,avx512bw"
);

/// Reads one slot in every 4 KiB of `slots` below `end`, so that the
/// TLB holds those pages' translations before they are prefetched.
/// Packing touches the next band's pages this way at the start of each
/// band: with 4 KiB pages its prefetches of that band did little until
/// then (as if a prefetch to a page the TLB misses were dropped; with
/// huge pages packing ran at the NT copy's speed without it). Measured
/// interleaved in both orders (BENCHMARKS.md): row pairs and quads (bf16,
/// s8) gained 0.08–0.18× of the NT copy on average, pred (32 rows a
/// group, limited by its transposes) and f32 (which prefetches the next
/// tile, not the next band) lost up to 0.09×, so they go without; a plain
/// copy gains nothing from it either. pred's pipeline reads one slot a
/// tile instead, of the share it asks for next (see
/// [`Tiles::pack_band_pipelined`]), which gained.
///
/// # Safety
/// `from` must be valid for reads of `end` initialized slots.
#[inline(always)]
unsafe fn touch_pages<T: Copy>(from: *const T, slots: Range<usize>, end: usize) {
    let step = (4096 / size_of::<T>().max(1)).max(1);
    let mut k = slots.start;
    while k < slots.end.min(end) {
        // SAFETY: `k < end`: a slot the caller says is readable. Volatile,
        // so that the unused load is made.
        unsafe { core::ptr::read_volatile(from.add(k)) };
        k += step;
    }
}

/// Whether the copies run on Zen 5, whose measurements choose several
/// of their ways (`tile_kernels::Core`).
fn on_zen5() -> bool {
    tile_kernels::family() == tile_kernels::Core::Zen5
}

/// One of `parts` equal shares of `bytes` bytes, in whole 64-byte lines:
/// what a copy asks for ahead with each piece it copies.
const fn share(bytes: usize, parts: usize) -> usize {
    bytes.div_ceil(parts).next_multiple_of(64)
}

/// How unpacking with streaming stores stages the tiles
/// ([`Tiles::staging`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Staging {
    /// Spans of this many whole tiles, rows off the line grid joined in
    /// the stage itself ([`Tiles::unpack_windows`]).
    Windows(usize),
    /// Spans of this many whole tiles, each row's part streamed straight
    /// (rows of whole lines) or joined through `Lines` (parts that are
    /// not whole lines, slots whose size does not divide 64, and single
    /// rows a tile at a time, which go out straight from the source).
    Tiles(usize),
    /// A row group at a time: a tile does not fit the stage.
    Groups,
}

/// The destination and source of one copy, as raw parts: the unit a
/// thread works on is a range of bands, each writing its own slots.
#[derive(Clone, Copy)]
pub(super) struct Buffers<T> {
    pub(super) src: *const T,
    pub(super) dst: *mut T,
    pub(super) pad: T,
}

/// A tile copy's sizes in slots, as `usize` (`Tiles::new` checked that
/// every slot offset fits): the row-major side's rows and columns, the
/// tile's rows `tr` and columns `tc`, its row group `g`, its slots
/// `tile`, and the tiles across a band.
#[derive(Clone, Copy)]
struct Geometry {
    rows: usize,
    cols: usize,
    tr: usize,
    tc: usize,
    g: usize,
    tile: usize,
    grid_cols: usize,
}

/// Where one band (a row of tiles, counted over all matrices) is: its
/// first row in its matrix, the slot of that row's first element on the
/// row-major side, and the slot of its first tile on the tiled side.
#[derive(Clone, Copy)]
struct Band {
    row0: usize,
    rows_at: usize,
    tiles_at: usize,
}

impl Tiles {
    /// This copy's [`Geometry`].
    fn geometry(&self) -> Geometry {
        let (tr, tc) = (self.tile_rows as usize, self.tile_cols as usize);
        Geometry {
            rows: self.rows as usize,
            cols: self.cols as usize,
            tr,
            tc,
            g: self.group as usize,
            tile: tr * tc,
            grid_cols: self.grid_cols as usize,
        }
    }

    /// Where band `band` is (see [`Band`]).
    fn band(&self, band: u64) -> Band {
        let Geometry {
            rows,
            cols,
            tr,
            tile,
            grid_cols,
            ..
        } = self.geometry();
        let (m, i) = (
            (band / self.grid_rows) as usize,
            (band % self.grid_rows) as usize,
        );
        Band {
            row0: i * tr,
            rows_at: m * rows * cols + i * tr * cols,
            tiles_at: band as usize * grid_cols * tile,
        }
    }

    /// Copies bands `bands` (tile rows, counted over all matrices) from
    /// `b.src` to `b.dst`, padding included, with `stores` and the
    /// vector extensions `isa`, streaming stores fenced before it
    /// returns. The tail padding after the formula's size is not written.
    ///
    /// # Safety
    /// `b.src` and `b.dst` must be valid for the layouts' slots (at least
    /// the formula's size on each side, `Relayout::copy` checks), the
    /// destination not overlapping the source; no other thread may touch
    /// the slots of these bands meanwhile. `kernel`, `stores` and `isa`
    /// are what [`Tiles::choose`] returned for this destination, with at
    /// most the extensions the CPU runs (`isa()`): a wide kernel it
    /// returns runs only with the extensions and on the rows it was
    /// chosen for.
    pub(super) unsafe fn copy_bands<T: Copy>(
        &self,
        b: Buffers<T>,
        bands: Range<u64>,
        kernel: Kernel,
        (stores, isa): (Stores, Isa),
    ) {
        let how = (kernel, stores);
        // SAFETY: the caller's contract, passed on; each entry point
        // runs only on a CPU with its extensions.
        unsafe {
            #[cfg(target_arch = "x86_64")]
            match isa {
                Isa::Avx512 | Isa::Avx512Wide => return self.copy_avx512(b, bands, how),
                Isa::Avx2 => return self.copy_avx2(b, bands, how),
                Isa::Sse2 => {}
            }
            let _ = isa;
            self.copy_with::<T, false>(b, bands, how)
        }
    }

    /// How to write the destination at `dst` (slots of `size` bytes;
    /// `big`: at least the streaming threshold) with `kernel`, and with
    /// which extensions, at most `limit`: streaming stores where the
    /// destination is big and the copy can stream (packing: a streaming
    /// kernel and a 16-byte aligned destination; unpacking: tiles of at
    /// most [`super::lines::MAX_ROWS`] rows), straight from the kernels
    /// where [`Tiles::direct`] allows, realigned to the line grid in
    /// registers where [`Tiles::realigns`] (unpacking) or
    /// [`Tiles::packs_realigned`] (packing off the line grid) do
    /// ([`Stores::Realigned`]); and the kernel, widened to
    /// [`Kernel::Bytes32Wide`], [`Kernel::Bytes32Lines`],
    /// [`Kernel::Quads8Wide`] or [`Kernel::Pairs16Wide`] where that pays
    /// (only with [`Isa::Avx512Wide`]).
    pub(super) fn choose(
        &self,
        kernel: Kernel,
        dst: *const u8,
        (size, big): (usize, bool),
        limit: Isa,
    ) -> (Kernel, (Stores, Isa)) {
        let stream = big
            && if self.pack {
                kernel.streams() && (dst as usize).is_multiple_of(16)
            } else {
                self.tile_rows as usize <= super::lines::MAX_ROWS
            };
        let isa = if kernel.avx2(self.tile_cols * size as u64) {
            limit
        } else {
            Isa::Sse2
        };
        // The 512-bit kernels, where the core runs them at full rate and
        // they measured faster (BENCHMARKS.md). On Intel's: pred packing,
        // streamed only to whole lines (64-byte streaming stores need
        // them aligned); pred unpacking with ordinary stores into rows of
        // whole lines (across lines it lost), and streamed through the
        // stage, as on Zen 5 (against AVX2's in the same process, near
        // the core 0.69–0.72× → 0.73–0.75× of the NT copy, from memory
        // within ±0.03×; straight from its registers it lost); s8
        // unpacking streamed (straight from the registers, realigned
        // there with VBMI, or through the lines) or into rows of whole
        // lines; bf16 unpacking realigned with VBMI (its `Pairs16` run
        // with 512-bit vectors: `Tiles::realigns`). On Zen 5, pred
        // streamed,
        // where the narrow transposes were the limit: unpacking through
        // the stage into rows of whole lines (near the core 29 → 35 GiB/s, from
        // memory 0.79–0.88× → 0.87–0.89× of the NT copy; into rows off
        // the line grid, joined in the stage, 0.06–0.11× ahead in each of
        // four runs, with the 8 KiB stage: through `Lines` they had run
        // up to 0.06× behind) and
        // packing into whole lines (pipelined: near the core 25 → 31
        // GiB/s, from memory 0.64–0.81× → 0.71–0.83× at 8192² and
        // 0.55–0.58× → 0.65–0.73× at 8191×8190, with huge pages
        // 0.81–0.90× → 0.92–1.00×); the others ran even or behind there.
        // s8's and bf16's packing on Intel's cores with VBMI's byte
        // permutes (64-byte streaming stores need whole lines): against
        // the AVX2 kernels in the same process, from memory 0.01–0.08×
        // of the NT copy ahead in most of five runs (once 0.01× behind),
        // near the core streamed 0.03–0.07× ahead, with ordinary stores
        // bf16 0.1× ahead and s8 0.03× behind. Streamed into a
        // destination off the line grid too, realigned in registers
        // (`Tiles::pack_realigned`): 16 bytes into a line, two runs, bf16
        // 0.82–0.85× → 0.94–0.98× of the NT copy, s8 0.70–0.78× →
        // 0.78–0.84×.
        let whole_rows = self.lines(dst, size);
        let zen5 = on_zen5();
        #[cfg(target_arch = "x86_64")]
        let pipelined = stream && self.pipelines(kernel, size, self.tile_rows as usize);
        #[cfg(not(target_arch = "x86_64"))]
        let pipelined = false;
        let wide = match kernel {
            _ if isa != Isa::Avx512Wide => None,
            // pred's packing reading the source 64 bytes at a time: on
            // Intel's cores; on Zen 5 with ordinary stores (the array
            // near the core), where against the AVX2 kernel through the
            // stage it had, in the same process, it ran 1.2–2.0× as fast
            // (31 → 56 GiB/s at 32×4096, 32 → 65 at 256×1024, 30 → 47 at
            // 512×2048, 27 → 33 at 1023×2047; BENCHMARKS.md); and
            // anywhere it is forced (to test it).
            Kernel::Bytes32
                if self.pack
                    && !pipelined
                    && self.packs_from_lines(size)
                    && (!zen5 || !stream || self.from_lines == Some(true)) =>
            {
                (!stream || (dst as usize).is_multiple_of(64)).then_some(Kernel::Bytes32Lines)
            }
            Kernel::Bytes32 if zen5 => {
                let fits = match self.pack {
                    // Only pipelined, as measured (a band cut short
                    // goes a tile at a time, without the pipeline).
                    true => (dst as usize).is_multiple_of(64) && pipelined,
                    // Rows of whole lines, or joined in the stage, where
                    // each tile's row is whole lines (the wide kernel's
                    // rows).
                    false => {
                        let in_stage =
                            matches!(self.staging(dst, size, kernel), Staging::Windows(_));
                        whole_rows || in_stage && (self.tile_cols * size as u64).is_multiple_of(64)
                    }
                };
                (stream && fits).then_some(Kernel::Bytes32Wide)
            }
            // On Zen 5, s8's and bf16's 512-bit kernels only where
            // realigning is forced (to measure them): unforced, they ran
            // even or behind there (`Tiles::realigns`).
            Kernel::Quads8 | Kernel::Pairs16 if zen5 && self.realign != Some(true) => None,
            Kernel::Bytes32 if self.pack => {
                (!stream || (dst as usize).is_multiple_of(64)).then_some(Kernel::Bytes32Wide)
            }
            Kernel::Bytes32 => {
                // Zen 5's rule, but for ordinary stores into rows of
                // whole lines too.
                let in_stage = stream
                    && matches!(self.staging(dst, size, kernel), Staging::Windows(_))
                    && (self.tile_cols * size as u64).is_multiple_of(64);
                (whole_rows || in_stage).then_some(Kernel::Bytes32Wide)
            }
            Kernel::Quads8 if !self.pack => ((self.tile_cols * size as u64).is_multiple_of(64)
                && (stream || whole_rows))
                .then_some(Kernel::Quads8Wide),
            Kernel::Quads8 | Kernel::Pairs16 if self.pack => ((self.tile_cols * size as u64)
                .is_multiple_of(64)
                && tile_kernels::vbmi()
                && (!stream || (dst as usize).is_multiple_of(64) || self.packs_realigned()))
            .then_some(match kernel {
                Kernel::Quads8 => Kernel::Quads8Wide,
                _ => Kernel::Pairs16Wide,
            }),
            _ => None,
        };
        // Otherwise AVX-512's registers pay where the kernels are the
        // limit: with the data near the core (ordinary stores), the byte
        // transposes ran 1.1–1.3× as fast with them; streaming from
        // memory, even or up to 0.08× of the NT copy slower, so streaming
        // runs the AVX2 build.
        // Rows realigned in registers take the 512-bit vectors they need.
        let realigned = stream
            && if self.pack {
                matches!(wide, Some(Kernel::Quads8Wide | Kernel::Pairs16Wide))
                    && !(dst as usize).is_multiple_of(64)
            } else {
                self.realigns(dst, size, wide.unwrap_or(kernel), isa)
            };
        let (kernel, isa) = match wide {
            Some(wide) => (wide, isa),
            None if stream && !realigned => (kernel, isa.min(Isa::Avx2)),
            None => (kernel, isa),
        };
        let stores = if !stream {
            Stores::Ordinary
        } else if self.pack && self.in_source_order(dst, size) {
            Stores::SourceOrder
        } else if realigned {
            Stores::Realigned
        } else if !self.pack && self.direct(dst, size, kernel, isa) {
            Stores::Direct
        } else {
            Stores::Streaming
        };
        (kernel, (stores, isa))
    }

    /// [`Tiles::copy_bands`] for one set of extensions: with `AVX`, the
    /// AVX2 kernels (the caller runs with AVX2); streaming stores are
    /// fenced before it returns.
    ///
    /// # Safety
    /// As [`Tiles::copy_bands`]; with `AVX`, the CPU runs AVX2.
    #[inline(always)]
    unsafe fn copy_with<T: Copy, const AVX: bool>(
        &self,
        b: Buffers<T>,
        bands: Range<u64>,
        (kernel, stores): (Kernel, Stores),
    ) {
        // SAFETY: the caller's contract, passed on.
        unsafe {
            match (self.pack, stores) {
                (true, Stores::Ordinary) => {
                    self.pack_bands::<T, false, AVX>(b, bands, kernel, false)
                }
                #[cfg(target_arch = "x86_64")]
                (true, Stores::Realigned) => {
                    self.pack_realigned(b, bands, kernel);
                    streaming::fence();
                }
                (true, stores) => {
                    let rows_first = stores == Stores::SourceOrder;
                    self.pack_bands::<T, true, AVX>(b, bands, kernel, rows_first);
                    streaming::fence();
                }
                (false, Stores::Direct) => {
                    self.unpack_bands::<T, AVX, true>(b, bands, kernel, None);
                    streaming::fence();
                }
                #[cfg(target_arch = "x86_64")]
                (false, Stores::Realigned) => {
                    self.unpack_realigned::<T, AVX>(b, bands, kernel);
                    streaming::fence();
                }
                // Streaming needs x86_64 (`Tiles::choose` never asks for
                // it elsewhere): other targets do without the lines'
                // 25 KiB in this frame.
                #[cfg(target_arch = "x86_64")]
                (false, Stores::Streaming) => {
                    let (mut lines, mut stage) = (Lines::new(), Stage::new());
                    let stage = stage.0.as_mut_ptr();
                    // The lines hold only parts of these bands' rows,
                    // written out before returning.
                    self.unpack_bands::<T, AVX, false>(b, bands, kernel, Some((&mut lines, stage)));
                    lines.flush();
                    streaming::fence();
                }
                (false, _) => self.unpack_bands::<T, AVX, false>(b, bands, kernel, None),
            }
        }
    }

    /// Whether pred's packing on Intel's cores, and on Zen 5 with ordinary
    /// stores (the wide kernel's caller
    /// checks the rest) reads the source 64 bytes at a time
    /// ([`Kernel::Bytes32Lines`]: straight from source rows of whole
    /// lines, else gathered into the stage): a tile's width (slots of
    /// `size` bytes) is whole lines. With the stage filled 16 bytes at
    /// a time, each tile's 256 stores queued behind the streaming stores
    /// of the tile before; measured on a Xeon against that in the same
    /// process (BENCHMARKS.md, "pred without the stage"): up to 0.07× of
    /// the NT copy faster from whole lines (in one run of eight 0.01×
    /// behind), and 0.03–0.05× faster gathered from rows off the line
    /// grid. Not while pipelined (`Tiles::pipelines`), which gathers the
    /// next tile meanwhile.
    fn packs_from_lines(&self, size: usize) -> bool {
        let size = size as u64;
        self.from_lines.unwrap_or(true) && (self.tile_cols * size).is_multiple_of(64)
    }

    /// Whether unpacking can stream straight from the kernel's registers
    /// to a destination at `dst` with slots of `size` bytes, without
    /// [`Lines`]: every part of a destination row a row group writes
    /// (`C` elements from a column that is a multiple of `C`) is whole
    /// 64-byte lines, and the kernel fills few rows' lines at once, each
    /// quickly (a streaming store that leaves a line partly written for
    /// long costs a slow partial write, so the byte transposes, which
    /// fill 16 or 32 rows at once, keep the stage). Measured
    /// (BENCHMARKS.md): pairs of rows (bf16 `(2,1)`) gain about 0.16× the
    /// NT copy over joining lines; quads (s8 `(4,1)`) 0–0.14× with AVX2's
    /// 32-byte stores but lose 0.2–0.25× with SSE2's 16-byte ones (each line
    /// then waits four rounds of four rows), and with AVX-512's 64-byte
    /// ones ([`Kernel::Quads8Wide`], a whole line a store) 0.2–0.4× ahead
    /// of AVX2's; single rows (f32) were even (their lines already stream
    /// straight from the source). Where [`Tiles::realigns`], that comes
    /// first.
    fn direct(&self, dst: *const u8, size: usize, kernel: Kernel, isa: Isa) -> bool {
        (matches!(
            kernel,
            Kernel::Pairs16 | Kernel::Pairs8 | Kernel::Quads8Wide
        ) || kernel == Kernel::Quads8 && isa >= Isa::Avx2)
            && self.lines(dst, size)
    }

    /// Whether unpacking with streaming stores into `dst` (slots of
    /// `size` bytes) streams straight from 512-bit kernels' registers
    /// with each row realigned there ([`Stores::Realigned`]): s8's quads
    /// ([`Kernel::Quads8Wide`]) into rows off the line grid, bf16's pairs
    /// ([`Kernel::Pairs16`]) into any rows, with VBMI's byte permutes,
    /// tiles of 4 or 8 rows whose rows are whole lines. Measured on a
    /// Xeon in the same process against the ways they replace
    /// (BENCHMARKS.md): off the line grid s8 0.74–0.80× → 0.88–0.96× of
    /// the NT copy and bf16 0.86–0.88× → 1.04–1.07×; into rows of whole
    /// lines bf16 0.94–0.96× → 1.07–1.09× (the AVX2 kernel's 32-byte
    /// stores before), s8 even with its direct 512-bit stores (kept). On
    /// Intel's cores, and where it is forced (to measure it: Zen 5 too,
    /// the other family whose `vbmi` holds). Not on Zen 5 unforced: there
    /// s8 off the line grid lost 0.08–0.10× to the stage, and bf16 ran
    /// even (BENCHMARKS.md, "The realigning kernels on Zen 5").
    fn realigns(&self, dst: *const u8, size: usize, kernel: Kernel, isa: Isa) -> bool {
        let measured = tile_kernels::family() == tile_kernels::Core::Intel;
        self.realign.unwrap_or(measured)
            && matches!(
                (kernel, size),
                (Kernel::Quads8Wide, 1) | (Kernel::Pairs16, 2)
            )
            && isa == Isa::Avx512Wide
            && tile_kernels::vbmi()
            && matches!(self.tile_rows, 4 | 8)
            && (self.tile_cols * size as u64).is_multiple_of(64)
            && (kernel == Kernel::Pairs16 || !self.lines(dst, size))
    }

    /// Whether packing with streaming stores into a destination off the
    /// line grid realigns the 512-bit kernels' output in registers
    /// ([`Tiles::pack_realigned`]; the kernels' own conditions are
    /// [`Tiles::choose`]'s, which takes the 512-bit packing kernels on
    /// Intel's cores only unless forced): with VBMI, on Intel's cores,
    /// where it was measured faster (BENCHMARKS.md), or forced. Not on
    /// Zen 5, where 16 bytes into a line it lost to the AVX2 kernels'
    /// stores (bf16 by 0.05–0.1× of the NT copy, s8 even or behind,
    /// with Zen 5's asking ahead). Not pred's
    /// byte transposes: their 32 vectors fill the registers, and with the
    /// held bytes beside them they ran slower than the AVX2 kernels' stores
    /// off the line grid (16 bytes into a line 0.58–0.62× of the NT copy
    /// against 0.67–0.70×, BENCHMARKS.md).
    fn packs_realigned(&self) -> bool {
        let measured = tile_kernels::family() == tile_kernels::Core::Intel;
        tile_kernels::vbmi() && self.realign.unwrap_or(measured)
    }

    /// Whether packing with streaming stores into `dst` (slots of `size`
    /// bytes) runs in the source's order: a band's row groups in turn,
    /// each across the band, its part of each tile written where that
    /// tile goes. The source is then read as one stream (`g` rows at
    /// once, each to its end, the next group asked for ahead: see
    /// [`Tiles::prefetch_next_group`]) instead of a band's `R` rows a
    /// tile's width at a time, `R` streams that Zen 5's prefetchers
    /// follow poorly. Measured there against the destination's order
    /// with its own asking ahead (BENCHMARKS.md, "On Zen 5"): f32
    /// 0.83–0.88× → 0.89–0.98× of the NT copy, bf16 ahead by 0.03–0.1×
    /// in most runs, s8 about even. Only where
    /// every part is whole lines (a 64-byte aligned destination, `g·C`
    /// slots a multiple of 64 bytes: a line left half written until the
    /// next row group comes costs a slow partial write), and with more
    /// than one row group a tile (else the orders are one). Not on
    /// Intel's cores, where the destination's order was measured (and met
    /// the NT copy), nor on others, unmeasured.
    fn in_source_order(&self, dst: *const u8, size: usize) -> bool {
        let part = self.group * self.tile_cols * size as u64;
        let measured = on_zen5();
        self.source_order.unwrap_or(measured)
            && self.group < self.tile_rows
            && part.is_multiple_of(64)
            && (dst as usize).is_multiple_of(64)
    }

    /// Whether unpacking with streaming stores asks for its source ahead
    /// of its reads: through the lines (`direct` false; see
    /// [`Lines::write`]) on Intel's cores and Zen 5, straight from the
    /// kernels' registers on Intel's only. Measured (BENCHMARKS.md): on a
    /// Xeon 0.05–0.25× of the NT copy gained from memory, 0.02–0.06× lost
    /// with the source in L2; on Zen 5 through the lines 0.03–0.2×
    /// gained, straight from the registers 0.03–0.1× lost. Not on AMD's
    /// Zen 4: there an earlier form (a span or a band ahead at once) lost,
    /// and the EPYC that measured it was not at hand for this one.
    fn unpacking_reads_ahead(&self, direct: bool) -> bool {
        use tile_kernels::Core;
        self.read_ahead
            && match tile_kernels::family() {
                Core::Intel => true,
                Core::Zen5 => !direct,
                Core::Other => false,
            }
    }

    /// Whether every part of a destination row that a row group writes
    /// (`C` elements of `size` bytes from a column that is a multiple of
    /// `C`, into a destination at `dst`) is whole 64-byte lines.
    fn lines(&self, dst: *const u8, size: usize) -> bool {
        let lines = |n: u64| {
            n.checked_mul(size as u64)
                .is_some_and(|b| b.is_multiple_of(64))
        };
        (dst as usize).is_multiple_of(64) && lines(self.cols) && lines(self.tile_cols)
    }

    /// Asks for share `j` of the `g` rows from slot `next` (the row
    /// group after the one being packed, in the source's order), the rows
    /// split into one share per tile, in memory order: so that they
    /// arrive as one stream while this group's rows are read, `g` of them
    /// at once, which the hardware prefetchers follow poorly. Measured on
    /// Zen 5 (BENCHMARKS.md, "On Zen 5"): about 0.1× of the NT copy more
    /// than asking for a share of the next band, for row pairs and quads;
    /// two groups ahead a little less, four less again. Single rows need
    /// none: theirs is one stream already. Harmless past the source's
    /// end, as below.
    #[inline(always)]
    fn prefetch_next_group<T>(&self, from: *const T, next: usize, j: usize) {
        let (g, cols) = (self.group as usize, self.cols as usize);
        if !self.read_ahead || g == 1 {
            return;
        }
        let share = share(g * cols * size_of::<T>(), self.grid_cols as usize);
        let next = from.wrapping_add(next).cast::<u8>();
        // Into L1: the group is read a band's width later (`T0` measured
        // ahead of `T1` here, see `streaming::prefetch_near`).
        streaming::prefetch_near(next.wrapping_add(j * share), share);
    }

    /// Asks for the source ahead before row group `q` of tile `j` of the
    /// band at `band` (its first slot and rows), packing in the
    /// destination's order: with `spread` (Zen 5) a share of the next band
    /// with each group ([`Tiles::prefetch_band_share`]), else a tile's
    /// worth with each tile's first group ([`Tiles::prefetch_ahead`]).
    #[inline(always)]
    fn ask_ahead_in_dst_order<T>(
        &self,
        from: *const T,
        band: (usize, usize),
        (j, q): (usize, usize),
        spread: bool,
    ) {
        let (tr, tc, g) = (self.tile_rows, self.tile_cols, self.group);
        let (tr, tc, g) = (tr as usize, tc as usize, g as usize);
        if spread {
            self.prefetch_band_share(from, band, j * (tr / g) + q);
        } else if q == 0 {
            self.prefetch_ahead(from, band, (j, j * tc));
        }
    }

    /// Asks for share `k` of the band after the one whose `rows` rows
    /// start at slot `src`, packing in the destination's order on Zen 5:
    /// the band split into one share per row group and tile, in memory
    /// order, a share asked for with each group (not a tile's worth at
    /// once, as [`Tiles::prefetch_ahead`] does). Measured there
    /// interleaved against that, 16 bytes into a line (BENCHMARKS.md):
    /// f32 0.55–0.59× → 0.75–0.87× of the NT copy, bf16 0.61–0.69× →
    /// 0.73–0.82×, s8 and pred even (a throwaway switch; no flag selects
    /// the other form on Zen 5). (`benches/streams.rs` shows the same
    /// of the reads alone.) Into L1 (`T0`), though read a band later:
    /// against L2 (`T1`) bf16 gained 0.03–0.09× and f32 0.04–0.11× there,
    /// s8 and pred even. Harmless past the source's end, as below.
    #[inline(always)]
    fn prefetch_band_share<T>(&self, from: *const T, band: (usize, usize), k: usize) {
        if !self.read_ahead {
            return;
        }
        let shares = (self.grid_cols * (self.tile_rows / self.group)) as usize;
        let (p, bytes) = self.next_band_share(from, band, (k, shares));
        streaming::prefetch_near(p, bytes);
    }

    /// Share `k` of `shares` equal shares, in whole 64-byte lines and in
    /// memory order, of the band after the one whose `rows` rows start at
    /// slot `src`: its first byte (any address: it is only asked for)
    /// and its bytes.
    #[inline(always)]
    fn next_band_share<T>(
        &self,
        from: *const T,
        band: (usize, usize),
        part: (usize, usize),
    ) -> (*const u8, usize) {
        let (at, bytes) = self.next_band_offset::<T>(band, part);
        (from.cast::<u8>().wrapping_add(at), bytes)
    }

    /// [`Tiles::next_band_share`] as the byte offset of its first byte
    /// from the source's start (past the source's end for the last band),
    /// and its bytes.
    #[inline(always)]
    fn next_band_offset<T>(
        &self,
        (src, rows): (usize, usize),
        (k, shares): (usize, usize),
    ) -> (usize, usize) {
        let (cols, size) = (self.cols as usize, size_of::<T>());
        let share = share(rows * cols * size, shares);
        ((src + rows * cols) * size + k * share, share)
    }

    /// Asks for source lines ahead of packing tile `j` (column `col0`) of
    /// the band whose `rows` rows start at slot `src`. Interleaved rows
    /// (`g > 1`): a share of the *next* band, in memory order, so that
    /// the band arrives in L2 as one sequential stream (read in the tile
    /// order, its `R` rows are as many streams for the hardware
    /// prefetchers); single rows (`g = 1`): the next tile's part of each
    /// row. Chosen by measurement: the band ahead gave bf16 0.06–0.2×, s8
    /// 0.17–0.34× and pred 0.01–0.09× of the NT copy more than the tile
    /// ahead, f32 up to 0.15× less (BENCHMARKS.md; on the EPYCs and the
    /// Xeon: Zen 5 asks with each group instead, see
    /// [`Tiles::prefetch_band_share`]). Past the source's end the hints
    /// are harmless: a prefetch never faults, and no memory is accessed.
    #[inline(always)]
    fn prefetch_ahead<T>(
        &self,
        from: *const T,
        (src, rows): (usize, usize),
        (j, col0): (usize, usize),
    ) {
        let (cols, tc) = (self.cols as usize, self.tile_cols as usize);
        let size = size_of::<T>();
        if !self.read_ahead {
            return;
        }
        if self.group > 1 {
            let (p, bytes) = self.next_band_share(from, (src, rows), (j, self.grid_cols as usize));
            streaming::prefetch(p, bytes);
        } else {
            let ahead = col0 + tc;
            if ahead < cols {
                for l in 0..rows {
                    let p = from.wrapping_add(src + l * cols + ahead).cast::<u8>();
                    streaming::prefetch(p, tc.min(cols - ahead) * size);
                }
            }
        }
    }

    /// Packing: each band's tiles in order, each tile's row groups in
    /// order: the destination is written from start to end. With
    /// `rows_first`, each band's row groups in order, each across the
    /// band (the source read from start to end: see
    /// [`Tiles::in_source_order`]).
    ///
    /// # Safety
    /// As [`Tiles::copy_bands`]; with `NT`, the destination of every row
    /// group is 16-byte aligned and the kernel streams; with `AVX`, the
    /// caller runs with AVX2.
    #[inline(always)]
    unsafe fn pack_bands<T: Copy, const NT: bool, const AVX: bool>(
        &self,
        b: Buffers<T>,
        bands: Range<u64>,
        kernel: Kernel,
        rows_first: bool,
    ) {
        let Geometry {
            rows,
            cols,
            tr,
            g,
            grid_cols,
            ..
        } = self.geometry();
        // Zen 5 asks for the next band a share with each group (see
        // `prefetch_band_share`), others a tile's worth at a time.
        let spread = on_zen5();
        // Whether whole bands of pred's tiles run pipelined (asked once).
        #[cfg(target_arch = "x86_64")]
        let pipelined = NT && AVX && self.pipelines(kernel, size_of::<T>(), tr);
        for band in bands {
            // The band's first source row and first destination slot.
            let Band {
                row0,
                rows_at: src,
                tiles_at: out,
            } = self.band(band);
            let at = (src, out, row0);
            if rows_first {
                // No pages touched ahead: the source's order reads one
                // stream, whose pages come in turn.
                for q in 0..tr / g {
                    for j in 0..grid_cols {
                        self.prefetch_next_group(b.src, src + (q + 1) * g * cols, j);
                        // SAFETY: the caller's contract, for this band;
                        // `q < R/g`, `j` below the grid's columns.
                        unsafe { self.pack_group::<T, NT, AVX>(b, kernel, at, (q, j)) };
                    }
                }
                continue;
            }
            let band_rows = tr.min(rows - row0);
            if NT {
                // SAFETY: the caller's contract.
                unsafe { self.touch_next_band(b.src, src, band_rows) };
            }
            // The whole tiles of a whole band of pred's 32 rows
            // pipelined (see `Tiles::pipelines`), the rest as below.
            #[cfg(target_arch = "x86_64")]
            let first = match pipelined && band_rows == tr {
                // SAFETY: the caller's contract, for this band (with
                // `AVX`, it runs with AVX2); the conditions of `pipelines`.
                true => unsafe { self.pack_band_pipelined(b, (src, out), kernel) },
                false => 0,
            };
            #[cfg(not(target_arch = "x86_64"))]
            let first = 0;
            for j in first..grid_cols {
                for q in 0..tr / g {
                    if NT {
                        self.ask_ahead_in_dst_order(b.src, (src, band_rows), (j, q), spread);
                    }
                    // SAFETY: as above.
                    unsafe { self.pack_group::<T, NT, AVX>(b, kernel, at, (q, j)) };
                }
            }
        }
    }

    /// [`Tiles::pack_bands`] with [`Stores::Realigned`]: the destination
    /// (off the line grid) written from start to end as one run of
    /// 64-byte pieces realigned to the line grid in registers
    /// (`tile_kernels::Realign`), every line streamed whole but the
    /// run's first and last; asking ahead as `pack_bands` does on these
    /// cores.
    ///
    /// # Safety
    /// As [`Tiles::pack_bands`]; [`Tiles::choose`] chose this (the CPU
    /// runs AVX-512F, BW and VBMI; the kernel is [`Kernel::Quads8Wide`]
    /// or [`Kernel::Pairs16Wide`], a tile's rows whole lines).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn pack_realigned<T: Copy>(&self, b: Buffers<T>, bands: Range<u64>, kernel: Kernel) {
        let Geometry {
            rows,
            cols,
            tr,
            tc,
            g,
            grid_cols,
            ..
        } = self.geometry();
        // SAFETY: the CPU runs AVX-512F and BW (the caller's contract).
        let mut o = unsafe { tile_kernels::Realign::new(b.dst as usize % 64) };
        let spread = on_zen5();
        for band in bands {
            let Band {
                row0,
                rows_at: src,
                tiles_at: out,
            } = self.band(band);
            let band_rows = tr.min(rows - row0);
            // SAFETY: the caller's contract.
            unsafe { self.touch_next_band(b.src, src, band_rows) };
            for j in 0..grid_cols {
                for q in 0..tr / g {
                    self.ask_ahead_in_dst_order(b.src, (src, band_rows), (j, q), spread);
                    let (from, to, valid) = self.group_at((src, out, row0), (q, j));
                    // Past the source when the whole group is padding
                    // (`valid.0 == 0`: nothing is read).
                    let from = b.src.wrapping_add(from);
                    // SAFETY: the group's source rows are below `rows`
                    // (the valid ones), its `g·C` destination slots
                    // inside the band, right after the group before: the
                    // bands are in order, their tiles and groups too; the
                    // caller's contract.
                    unsafe {
                        tile_kernels::pack_realigned(
                            kernel,
                            (from, cols, valid),
                            b.dst.add(to),
                            (tc, g),
                            b.pad,
                            &mut o,
                        )
                    };
                }
            }
        }
        // SAFETY: the bytes after the last group's up to the next line
        // are the last band's (the destination's); the CPU runs VBMI
        // (the caller's contract).
        unsafe { o.finish() };
    }

    /// Packs row group `q` of tile `j` of the band whose first source
    /// row `row0` starts at slot `src` and whose first tile at slot
    /// `out`: its `g·C` destination slots, padding included.
    ///
    /// # Safety
    /// As [`Tiles::pack_bands`], for that band; `q < R/g`, `j` below the
    /// grid's columns.
    #[inline(always)]
    unsafe fn pack_group<T: Copy, const NT: bool, const AVX: bool>(
        &self,
        b: Buffers<T>,
        kernel: Kernel,
        (src, out, row0): (usize, usize, usize),
        (q, j): (usize, usize),
    ) {
        let cols = self.cols as usize;
        let (tc, g) = (self.tile_cols as usize, self.group as usize);
        let (from, to, valid) = self.group_at((src, out, row0), (q, j));
        // SAFETY: the group's source rows are below `rows` (or gathered
        // with padding), its `g·C` destination slots inside the band;
        // the caller's contract.
        unsafe {
            if valid == (g, tc) {
                let from = b.src.add(from);
                tile_kernels::pack::<T, NT, AVX>(kernel, from, cols, b.dst.add(to), tc, g);
            } else {
                // Past the source when the whole group is padding
                // (`valid.0 == 0`): `pack_edge` then reads nothing, and
                // the address is not claimed to be in bounds.
                let from = b.src.wrapping_add(from);
                tile_kernels::pack_edge::<T, NT, AVX>(
                    kernel,
                    from,
                    cols,
                    valid,
                    b.dst.add(to),
                    (tc, g),
                    b.pad,
                );
            }
        }
    }

    /// Where row group `q` of tile `j` of a band (its first source row
    /// `row0` at slot `src`, its first tile at slot `out`) is: its first
    /// source slot, its first destination slot, and how many of its rows
    /// and columns are in the array.
    #[inline(always)]
    fn group_at(
        &self,
        (src, out, row0): (usize, usize, usize),
        (q, j): (usize, usize),
    ) -> (usize, usize, (usize, usize)) {
        let (rows, cols) = (self.rows as usize, self.cols as usize);
        let (tc, g) = (self.tile_cols as usize, self.group as usize);
        let (r, col0) = (row0 + q * g, j * tc);
        let valid = (rows.saturating_sub(r).min(g), tc.min(cols - col0));
        let to = out + (j * self.tile_rows as usize + q * g) * tc;
        (src + q * g * cols + col0, to, valid)
    }

    /// Reads one slot a page of the band after the one whose `band_rows`
    /// rows start at slot `src`, for row pairs and quads (see
    /// [`touch_pages`] for why, and why only those).
    ///
    /// # Safety
    /// `from` valid for reads of the source's slots.
    #[inline(always)]
    unsafe fn touch_next_band<T: Copy>(&self, from: *const T, src: usize, band_rows: usize) {
        let (rows, cols) = (self.rows as usize, self.cols as usize);
        if 1 < self.group && self.group < self.tile_rows {
            let next = src + band_rows * cols;
            let end = self.batch as usize * rows * cols;
            // SAFETY: `touch_pages` reads below `end`, the source's slots
            // (the caller's contract).
            unsafe { touch_pages(from, next..next + band_rows * cols, end) };
        }
    }

    /// Whether packing a band of `band_rows` rows (slots of `size`
    /// bytes, with `kernel`, streaming stores and AVX2) runs its whole
    /// tiles through [`Tiles::pack_band_pipelined`]: pred's 32-row byte
    /// transposes, narrow or wide, on Zen 5 (or where asked for, to
    /// measure and test),
    /// for whole bands at least two tiles wide (one tile has nothing to
    /// overlap) whose rows are whole vectors.
    #[cfg(target_arch = "x86_64")]
    pub(super) fn pipelines(&self, kernel: Kernel, size: usize, band_rows: usize) -> bool {
        let measured = on_zen5();
        self.pipeline.unwrap_or(measured)
            && matches!(
                kernel,
                Kernel::Bytes32 | Kernel::Bytes32Wide | Kernel::Bytes32Lines
            )
            && size == 1
            && self.group == self.tile_rows
            && self.tile_cols.is_multiple_of(16)
            && band_rows == self.tile_rows as usize
            && self.cols / self.tile_cols >= 2
    }

    /// Packs the whole tiles of a band of pred's 32 rows (row `src` of the
    /// source, slot `out` of the destination) a software pipeline deep:
    /// each tile's rows gathered while the one before is transposed and
    /// streamed out (`tile_kernels::pack_bytes32_gathering`), the next
    /// band asked for a row at a time. Returns how many tiles it packed
    /// (those of whole width).
    ///
    /// Why: packing gathers a tile's 32 rows (reads, no stores), then
    /// transposes them (streaming stores, no reads from memory), so the
    /// reads and the writes of one core took turns; measured on Zen 5
    /// (BENCHMARKS.md), against packing a tile at a time with the next
    /// band asked for a share a tile: 0.50–0.56× → 0.81–0.82× of the NT
    /// copy at 8192², 0.44–0.46× → 0.66–0.72× at 8191×8190.
    ///
    /// With each tile, the first slot of the next tile's share of the
    /// band ahead is read (`touch_pages`), so that the TLB holds its
    /// page when that share is asked for: measured on Zen 5 interleaved
    /// (BENCHMARKS.md), the medians of four runs gained 0.00–0.09× of
    /// the NT copy at 8192² and 0.03–0.11× at 8191×8190, the best rounds
    /// −0.01–0.05×.
    ///
    /// # Safety
    /// As [`Tiles::pack_bands`] with `NT` and `AVX` (the CPU runs AVX2),
    /// for this band; [`Tiles::pipelines`] holds; with
    /// [`Kernel::Bytes32Wide`] (which only [`Tiles::choose`] gives; it
    /// never gives [`Kernel::Bytes32Lines`] to a pipeline), the CPU runs
    /// AVX-512F and BW and the destination is 64-byte aligned.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn pack_band_pipelined<T: Copy>(
        &self,
        b: Buffers<T>,
        (src, out): (usize, usize),
        kernel: Kernel,
    ) -> usize {
        let wide = matches!(kernel, Kernel::Bytes32Wide | Kernel::Bytes32Lines);
        let (cols, tc, tr) = (
            self.cols as usize,
            self.tile_cols as usize,
            self.tile_rows as usize,
        );
        // Slots are bytes (`pipelines`), so slot offsets are byte offsets.
        debug_assert_eq!(size_of::<T>(), 1);
        let (from, to) = (b.src.cast::<u8>(), b.dst.cast::<u8>());
        let whole = cols / tc;
        // The band's last row ends inside the source: what the gathers
        // read (`whole·C ≤ cols` bytes of each of its rows) is in it.
        debug_assert!(src + tr * cols <= (self.batch * self.rows * self.cols) as usize);
        let mut stages = [const { core::mem::MaybeUninit::<tile_kernels::Stage>::uninit() }; 2];
        let [first, second] = &mut stages;
        let (mut now, mut next) = (
            first.as_mut_ptr().cast::<u8>(),
            second.as_mut_ptr().cast::<u8>(),
        );
        // The next band, a share a tile in memory order, a share of that
        // a row.
        let grid_cols = self.grid_cols as usize;
        let per_row = |j| {
            let (p, bytes) = self.next_band_share(b.src, (src, tr), (j, grid_cols));
            (p, (bytes / tr).next_multiple_of(64))
        };
        // The source's end, in bytes (slots are bytes).
        let end = (self.batch * self.rows * self.cols) as usize;
        // SAFETY: tile `j < whole` of this band is `tr` rows of `tc` bytes
        // inside the source, its `tr·tc` slots inside the destination (the
        // caller's contract); each stage holds a tile (`Tiles::new` made
        // `g·C` fit) and is written (gathered) before it is read; `tc` is a
        // multiple of 16 (`pipelines`); `touch_pages` reads below `end`,
        // the source's slots; the destination is 16-byte aligned
        // where packing streams (64-byte with the wide kernel, which
        // `Tiles::choose` gives only to 64-byte aligned destinations and
        // CPUs that run AVX-512F and BW); the caller runs with AVX2 (`AVX`).
        unsafe {
            tile_kernels::gather(from.add(src), cols, now, (tc, tr));
            for j in 0..whole {
                let gather = (j + 1 < whole).then(|| (from.add(src + (j + 1) * tc), cols, next));
                let ask = self.read_ahead.then(|| per_row(j));
                if self.read_ahead && j + 1 < grid_cols {
                    let (at, _) = self.next_band_offset::<u8>((src, tr), (j + 1, grid_cols));
                    touch_pages(from, at..at + 1, end);
                }
                tile_kernels::pack_bytes32_gathering(
                    now,
                    to.add(out + j * tr * tc),
                    tc,
                    (gather, ask),
                    wide,
                );
                core::mem::swap(&mut now, &mut next);
            }
        }
        whole
    }

    /// Unpacking: each band's tiles in order (the source read from start
    /// to end), each tile's row groups to their rows: with `lines`, by
    /// streaming stores joined into whole lines per destination row
    /// (through `Lines`, or in the stage itself: [`Tiles::staging`]) or,
    /// where every part is whole lines, straight from the stage, a span
    /// of tiles at a time (see [`Lines::span`]).
    ///
    /// # Safety
    /// As [`Tiles::copy_bands`]; with `AVX`, the caller runs with AVX2;
    /// the stage with `lines` points to a [`Stage`] that nothing else
    /// uses meanwhile.
    #[inline(always)]
    unsafe fn unpack_bands<T: Copy, const AVX: bool, const NT: bool>(
        &self,
        b: Buffers<T>,
        bands: Range<u64>,
        kernel: Kernel,
        lines: Option<(&mut Lines, *mut u8)>,
    ) {
        if let Some((lines, stage)) = lines {
            // SAFETY: the caller's contract.
            unsafe { self.unpack_spans::<T, AVX>(b, bands, kernel, lines, stage) };
            return;
        }
        let Geometry {
            rows,
            cols,
            tr,
            tc,
            g,
            tile,
            grid_cols,
        } = self.geometry();
        let ahead = self.unpacking_reads_ahead(true);
        // Rows that crowd an L1 set take whole tiles a span at a time
        // (`tile_kernels::unpack_span_staged`), with ordinary stores.
        // Byte transposes run on x86_64 only: elsewhere the span stage's
        // 16 KiB stay out of this frame.
        #[cfg(target_arch = "x86_64")]
        let spans = (!NT
            && kernel.fills_rows_piecewise()
            && tile_kernels::crowds_l1_sets(cols * size_of::<T>(), g))
        .then(|| tile_kernels::span_of_groups(g * tc * size_of::<T>()));
        for band in bands {
            let Band {
                row0,
                rows_at: dst,
                tiles_at: mut from,
            } = self.band(band);
            // SAFETY: the caller's contract, for this band.
            #[cfg(target_arch = "x86_64")]
            let first = spans.map_or(0, |span| unsafe {
                self.unpack_spans_staged::<T, AVX>(b, (row0, dst, from), kernel, span)
            });
            #[cfg(not(target_arch = "x86_64"))]
            let first = 0;
            from += first * tile;
            for j in first..grid_cols {
                let col0 = j * tc;
                let width = tc.min(cols - col0);
                for q in 0..tr / g {
                    if NT && ahead {
                        // The same group of the next tile (from memory
                        // bf16 gained 0.07–0.1× the NT copy, s8 0.05×).
                        streaming::prefetch(
                            b.src.wrapping_add(from + tile).cast(),
                            g * tc * size_of::<T>(),
                        );
                    }
                    let r = row0 + q * g;
                    let valid = rows.saturating_sub(r).min(g);
                    if valid == 0 {
                        // All padding: nothing goes out (and its rows
                        // would be past the destination).
                        from += g * tc;
                        continue;
                    }
                    // SAFETY: the group's `g·C` source slots are inside
                    // the band, its destination rows below `rows` and
                    // columns below `cols`; the caller's contract.
                    unsafe {
                        let (from, to) = (b.src.add(from), b.dst.add(dst + q * g * cols + col0));
                        tile_kernels::unpack::<T, AVX, NT>(
                            kernel,
                            from,
                            to,
                            cols,
                            (valid, width),
                            (tc, g),
                        );
                    }
                    from += g * tc;
                }
            }
        }
    }

    /// A band's whole tiles for [`Tiles::unpack_bands`] with ordinary
    /// stores into rows that crowd an L1 set: `span` tiles' row group at
    /// a time through one stage (`tile_kernels::unpack_span_staged`); a
    /// band cut short, its edge groups a tile at a time. `at`: the band's
    /// first row, the slot of its first destination element, the slot of
    /// its first tile. Returns how many tiles it took (the band's whole
    /// ones).
    ///
    /// # Safety
    /// As [`Tiles::unpack_bands`] for the band at `at`, without `NT`;
    /// `span` is `tile_kernels::span_of_groups` of a group's bytes.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn unpack_spans_staged<T: Copy, const AVX: bool>(
        &self,
        b: Buffers<T>,
        (row0, dst, from): (usize, usize, usize),
        kernel: Kernel,
        span: usize,
    ) -> usize {
        let Geometry {
            rows,
            cols,
            tr,
            tc,
            g,
            tile,
            ..
        } = self.geometry();
        let whole = cols / tc;
        for first in (0..whole).step_by(span) {
            let n = span.min(whole - first);
            for q in 0..tr / g {
                let valid = rows.saturating_sub(row0 + q * g).min(g);
                let at = from + first * tile + q * g * tc;
                let to = dst + q * g * cols + first * tc;
                // SAFETY: the `n` tiles' group `q` is inside the band, its
                // `valid` rows below `rows` and its `n·tc` columns below
                // `cols` (whole tiles); the stage holds `span` groups; the
                // caller's contract.
                unsafe {
                    if valid == g {
                        let tiles = (b.src.add(at), tile, n);
                        tile_kernels::unpack_span_staged::<T, AVX>(
                            kernel,
                            tiles,
                            b.dst.add(to),
                            cols,
                            (tc, g),
                        );
                    } else if valid > 0 {
                        for t in 0..n {
                            tile_kernels::unpack::<T, AVX, false>(
                                kernel,
                                b.src.add(at + t * tile),
                                b.dst.add(to + t * tc),
                                cols,
                                (valid, tc),
                                (tc, g),
                            );
                        }
                    }
                }
            }
        }
        whole
    }

    /// [`Tiles::unpack_bands`] with [`Stores::Realigned`]: each whole
    /// band's whole tiles streamed straight from the kernel, realigned
    /// in registers (`tile_kernels::unpack_realigned`); a band's last
    /// tile, where it is cut short, with ordinary stores; bands cut
    /// short through the lines, as [`Stores::Streaming`] writes them.
    ///
    /// # Safety
    /// As [`Tiles::unpack_bands`]; [`Tiles::realigns`] chose this (the
    /// CPU runs AVX-512F, BW and VBMI; slots are bytes; 4 or 8 rows a
    /// tile); with `AVX`, the caller runs with AVX2.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn unpack_realigned<T: Copy, const AVX: bool>(
        &self,
        b: Buffers<T>,
        bands: Range<u64>,
        kernel: Kernel,
    ) {
        let Geometry {
            rows,
            cols,
            tr,
            tc,
            g,
            tile,
            grid_cols,
        } = self.geometry();
        let size = size_of::<T>();
        /// The band's `R` rows from `to`, `cols` slots apart, realigned
        /// (the source's run of tiles and the rest as
        /// `tile_kernels::unpack_realigned` takes them).
        ///
        /// # Safety
        /// As `tile_kernels::unpack_realigned`.
        #[inline(always)]
        unsafe fn realigned<T, const R: usize, const G: usize>(
            (src, run, row, ahead): (*const u8, (usize, usize), usize, bool),
            to: *mut T,
            cols: usize,
        ) {
            // SAFETY: the caller's; the rows are in the destination.
            unsafe {
                let to = core::array::from_fn(|r| to.add(r * cols).cast::<u8>());
                tile_kernels::unpack_realigned::<R, G>(src, run, row, to, ahead)
            }
        }
        // Tiles whose columns are all in the array.
        let whole = cols / tc;
        let ahead = self.unpacking_reads_ahead(true);
        for band in bands {
            let Band {
                row0,
                rows_at: dst,
                tiles_at: first,
            } = self.band(band);
            // (`realigns` takes 4 or 8 rows a tile only: others, were
            // they ever asked for, go the way streaming goes.)
            if rows - row0 < tr || !matches!(tr, 4 | 8) || !matches!(g, 2 | 4) {
                let (mut lines, mut stage) = (Lines::new(), Stage::new());
                let stage = stage.0.as_mut_ptr();
                // SAFETY: the caller's contract, for this band; the lines
                // hold only its rows' parts, written out before the next.
                unsafe {
                    self.unpack_spans::<T, AVX>(b, band..band + 1, kernel, &mut lines, stage);
                    lines.flush();
                }
                continue;
            }
            // SAFETY: the band's `tr` rows are in the array (checked
            // above), each `cols ≥ whole·tc` slots; its tiles inside the
            // source; the kernel's conditions are `realigns`'; the last
            // tile's groups as `unpack_bands` writes them.
            unsafe {
                let (src, to) = (b.src.add(first).cast::<u8>(), b.dst.add(dst));
                let (run, row) = ((tile * size, whole), tc * size);
                let ahead = (src, run, row, ahead);
                match (tr, g) {
                    (4, 4) => realigned::<T, 4, 4>(ahead, to, cols),
                    (8, 4) => realigned::<T, 8, 4>(ahead, to, cols),
                    (4, _) => realigned::<T, 4, 2>(ahead, to, cols),
                    _ => realigned::<T, 8, 2>(ahead, to, cols),
                }
                if whole < grid_cols {
                    let col0 = whole * tc;
                    for q in 0..tr / g {
                        tile_kernels::unpack::<T, AVX, false>(
                            kernel,
                            b.src.add(first + whole * tile + q * g * tc),
                            b.dst.add(dst + q * g * cols + col0),
                            cols,
                            (g, cols - col0),
                            (tc, g),
                        );
                    }
                }
            }
        }
    }

    /// How [`Tiles::unpack_spans`] stages the tiles for a destination at
    /// `dst` (slots of `size` bytes) with `kernel`: see [`Staging`].
    /// Whole tiles where the stage holds them ([`Lines::span`]): the
    /// larger stage for pred's tiles on Zen 5 off the line grid, where it
    /// was measured (the only TPU format whose span the smaller stage cut
    /// short). Joined in the stage where the rows are off the line grid,
    /// each row's part of a span is whole lines, the slots' size divides
    /// 64, the tile has at most [`super::lines::MAX_ROWS`] rows (the
    /// stage's room), and the span is not one tile of single rows
    /// (f32's `T(8,128)`: those go out straight from the source).
    pub(super) fn staging(&self, dst: *const u8, size: usize, kernel: Kernel) -> Staging {
        let (tr, tc) = (self.tile_rows as usize, self.tile_cols as usize);
        let whole_lines = self.lines(dst, size);
        let pred = matches!(
            kernel,
            Kernel::Bytes32 | Kernel::Bytes32Wide | Kernel::Bytes32Lines
        );
        let big = !whole_lines && on_zen5() && pred;
        match Lines::span(tr * tc * size, tc * size, big) {
            None => Staging::Groups,
            Some(span)
                if !whole_lines
                    && tr <= super::lines::MAX_ROWS
                    && (span * tc * size).is_multiple_of(64)
                    && 64 % size == 0
                    && !(self.group == 1 && span == 1) =>
            {
                Staging::Windows(span)
            }
            Some(span) => Staging::Tiles(span),
        }
    }

    /// [`Tiles::unpack_bands`] through `lines`: a span of tiles spread
    /// into `stage` (read in order), then each of its rows
    /// written as one part of the row's stream; the span makes the parts
    /// long enough that joining lines costs little per byte. Rows off the
    /// line grid whose parts are whole lines of a staged span go through
    /// [`Tiles::unpack_windows`] instead. Tiles larger than the stage go a
    /// row group at a time.
    ///
    /// # Safety
    /// As [`Tiles::unpack_bands`]; `stage` points to a [`Stage`] that
    /// nothing else uses meanwhile.
    #[inline(always)]
    unsafe fn unpack_spans<T: Copy, const AVX: bool>(
        &self,
        b: Buffers<T>,
        bands: Range<u64>,
        kernel: Kernel,
        lines: &mut Lines,
        stage: *mut u8,
    ) {
        let size = size_of::<T>();
        let Geometry {
            rows,
            cols,
            tr,
            tc,
            g,
            tile,
            grid_cols,
        } = self.geometry();
        // Every part whole lines: they go straight out, with nothing held.
        let whole_lines = self.lines(b.dst.cast(), size);
        let zen5 = on_zen5();
        let (span, rows_at_once) = match self.staging(b.dst.cast(), size, kernel) {
            Staging::Windows(span) => {
                // SAFETY: as this function's; `staging`'s conditions are
                // `unpack_windows`' own.
                unsafe { self.unpack_windows::<T, AVX>(b, bands, kernel, stage, span) };
                return;
            }
            Staging::Tiles(span) => (span, tr),
            Staging::Groups => (1, g),
        };
        let reads_ahead = self.unpacking_reads_ahead(false);
        for band in bands {
            let Band {
                row0,
                rows_at: dst,
                tiles_at: first,
            } = self.band(band);
            for j in (0..grid_cols).step_by(span) {
                let tiles = span.min(grid_cols - j);
                let col0 = j * tc;
                let width = (tiles * tc).min(cols - col0);
                for h in (0..tr).step_by(rows_at_once) {
                    let valid = rows.saturating_sub(row0 + h).min(rows_at_once);
                    // SAFETY: each tile's groups are inside the band; the
                    // stage holds `tiles` tiles, or one row group
                    // (`Lines::span`, `Tiles::new`); the rows written are
                    // below `rows`, their columns below `cols`; with
                    // `whole_lines`, `Tiles::lines` made the destination,
                    // `cols·size` and `C·size` multiples of 64, so each
                    // part starts a line and is whole lines
                    // (`stream_lines`' contract); the caller's contract.
                    unsafe {
                        let at = first + j * tile;
                        let (part, pitch) = if g == 1 && tiles == 1 {
                            // One row per group: the source itself.
                            (b.src.add(at + h * tc), tc)
                        } else {
                            let s = stage.cast::<T>();
                            let pitch = tiles * tc;
                            let rows = h..h + rows_at_once;
                            self.stage_span::<T, AVX>((b.src, at, tiles), kernel, rows, (s, pitch));
                            (s.cast_const(), pitch)
                        };
                        // The next span's source (the next band's first
                        // tiles after the last span), in one share for
                        // each row written.
                        let next = b.src.wrapping_add(first + (j + tiles) * tile + h * tc);
                        let share = (tiles * rows_at_once * tc * size).div_ceil(valid.max(1));
                        for l in 0..valid {
                            let to = b.dst.add(dst + (h + l) * cols + col0);
                            let from = part.add(l * pitch).cast::<u8>();
                            let at = next.cast::<u8>().wrapping_add(l * share);
                            let mut ahead = Hint::new(reads_ahead, at, zen5);
                            if whole_lines {
                                let (to, n) = (to.cast(), width * size);
                                super::lines::stream_lines::<AVX>((from, &mut ahead), to, n);
                            } else {
                                lines.write::<AVX>(h + l, (from, ahead), to.cast(), width * size);
                            }
                        }
                    }
                }
            }
            // SAFETY: the parts held are in this band's rows.
            unsafe { lines.flush() };
        }
    }

    /// Spreads rows `rows` (whole row groups) of `tiles` tiles, the
    /// first at slot `at` of the source `src`, into `stage`, rows `pitch`
    /// slots apart: row `h + r` of tile `t` at `stage[r·pitch + t·C..]`.
    ///
    /// # Safety
    /// The tiles are inside the source; `stage` is writable for
    /// `rows.len()` rows of `pitch ≥ tiles·C` slots; with `AVX`, the
    /// caller runs with AVX2.
    #[inline(always)]
    unsafe fn stage_span<T: Copy, const AVX: bool>(
        &self,
        (src, at, tiles): (*const T, usize, usize),
        kernel: Kernel,
        rows: Range<usize>,
        (stage, pitch): (*mut T, usize),
    ) {
        let Geometry { tc, g, tile, .. } = self.geometry();
        for t in 0..tiles {
            for q in rows.start / g..rows.end / g {
                // SAFETY: group `q` of tile `t` is inside the source, its
                // rows inside the stage (the caller's contract).
                unsafe {
                    tile_kernels::unpack_group::<T, AVX, false>(
                        kernel,
                        src.add(at + t * tile + q * g * tc),
                        stage.add((q * g - rows.start) * pitch + t * tc),
                        pitch,
                        tc,
                        g,
                    )
                };
            }
        }
    }

    /// [`Tiles::unpack_spans`] for rows off the line grid, joined into
    /// lines in the stage itself ([`super::lines::write_window`]): each
    /// span of `span` tiles spread into the stage as
    /// [`super::lines::windows`] lays it out, then each row's part
    /// written whole lines at a time, its last line kept before the part
    /// for the next span. In a function of its own: inside
    /// `unpack_spans`' loops, beside `Lines`' path, pred's ran about
    /// 3 GiB/s slower near the core.
    ///
    /// # Safety
    /// As [`Tiles::unpack_spans`]; `span` is [`Tiles::staging`]'s
    /// [`Staging::Windows`] span for this destination and slot size.
    #[inline(always)]
    unsafe fn unpack_windows<T: Copy, const AVX: bool>(
        &self,
        b: Buffers<T>,
        bands: Range<u64>,
        kernel: Kernel,
        stage: *mut u8,
        span: usize,
    ) {
        let size = size_of::<T>();
        let Geometry {
            rows,
            cols,
            tr,
            tc,
            tile,
            grid_cols,
            ..
        } = self.geometry();
        let (stage, pitch) = super::lines::windows(stage, span * tc * size);
        let (stage, pitch) = (stage.cast::<T>(), pitch / size);
        let zen5 = on_zen5();
        let reads_ahead = self.unpacking_reads_ahead(false);
        for band in bands {
            let Band {
                row0,
                rows_at: dst,
                tiles_at: first,
            } = self.band(band);
            let valid = rows.saturating_sub(row0).min(tr);
            for j in (0..grid_cols).step_by(span) {
                let tiles = span.min(grid_cols - j);
                let col0 = j * tc;
                let n = (tiles * tc).min(cols - col0) * size;
                let ends = (j == 0, j + tiles == grid_cols);
                // SAFETY: each tile's groups are inside the band; the
                // stage, laid out by `lines::windows`, holds the span's
                // `tr` rows (`Stage` has the room: `Lines::span`); the
                // rows written are below `rows`, their columns below
                // `cols`; every part before a row's last is `span·C`
                // slots, a multiple of 64 bytes, staged at the same place,
                // each continuing its row (`write_window`'s contract); the
                // caller's contract.
                unsafe {
                    let at = first + j * tile;
                    self.stage_span::<T, AVX>((b.src, at, tiles), kernel, 0..tr, (stage, pitch));
                    // The next span's source (the next band's first tiles
                    // after the last span), in one share for each row.
                    let next = b.src.wrapping_add(first + (j + tiles) * tile).cast::<u8>();
                    let share = (tiles * tile * size).div_ceil(valid.max(1));
                    for l in 0..valid {
                        let mut ahead = Hint::new(reads_ahead, next.wrapping_add(l * share), zen5);
                        let (from, to) = (stage.add(l * pitch), b.dst.add(dst + l * cols + col0));
                        super::lines::write_window::<AVX>(
                            (from.cast(), &mut ahead),
                            to.cast(),
                            n,
                            ends,
                        );
                    }
                }
            }
        }
    }
}
