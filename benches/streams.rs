//! How this machine reads the rows of a band: the memory traffic of a
//! packing copy without its shuffles, interleaved round by round with
//! the NT copy of the same bytes (`common::nt_copy`), so that the ratios
//! say what the reading order alone costs. Each pattern copies a
//! row-major array of `ROWS` byte rows of `PITCH` bytes into tiles of
//! `R` rows × `W` bytes (one band of `R` rows at a time), with 16-byte
//! streaming stores:
//!
//! - `tile order`: a tile at a time, its `R` row pieces in turn (the
//!   destination written from start to end, `R` source streams): the
//!   destination's order of `Tiles::pack_bands`.
//! - `tile order, band ahead`: the same, asking for the next band in
//!   memory order, a share with each piece (prefetch `T1`).
//! - `via stage`: each tile gathered into a 4 KiB stage first
//!   (ordinary stores), then streamed out at once, as the byte
//!   transposes (pred) do; `overlapped`: the previous tile streamed out a
//!   piece with each piece gathered.
//! - `band staged in row order`: the next band copied into a stage (rows
//!   a line longer than the source's, so that a tile's rows are in
//!   different L1 sets) in the source's order, a share with each tile of
//!   this band, which streams out of the other stage in tile order: the
//!   source read as in `row order`, the tiles gathered from L2.
//! - `row order`: a row at a time, each piece to its tile (the source
//!   read from start to end, one stream; the writes `R·W` bytes apart):
//!   the source's order with single rows.
//! - `pairs`/`quads`, `next group ahead`: rows two (four) at a time,
//!   each group across the band, asking for the next group ahead: the
//!   source's order of row pairs (quads).
//! - `unpacking, …`: the other way (a copy from tiles into rows):
//!   the tiles read in order, each row's piece of a span of 1, 2, 4 or 8
//!   tiles written in turn (`R` destination streams, runs of the span's
//!   width): what a stage of that many tiles buys an unpacking copy.
//!
//! ```console
//! cargo bench -p xla-layout-benches --bench streams [-- ROUNDS [PITCH [R [W]]]]
//! ```
//!
//! Defaults: 9 rounds, 256 MiB, 32 KiB rows (f32's 8192 columns), `R =
//! 8`, `W = 512` (an `(8,128)` f32 tile). Prints one Markdown row per
//! pattern: the best round's bandwidth and the ratios of the best and
//! (median) times to the NT copy's.

use std::hint::black_box;
use std::time::{Duration, Instant};

mod common;
use common::{Buffer, nt_copy};

/// `bytes` (a multiple of 16) from `s` to the 16-byte aligned `d` with
/// streaming stores, no fence.
///
/// # Safety
/// `s` readable and `d` writable for `bytes` bytes; `d` 16-byte aligned.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn piece(s: *const u8, d: *mut u8, bytes: usize) {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
    for k in (0..bytes).step_by(16) {
        // SAFETY: the caller's.
        unsafe { _mm_stream_si128(d.add(k).cast(), _mm_loadu_si128(s.add(k).cast::<__m128i>())) };
    }
}

/// Asks for `bytes` bytes from `p` (a hint; any address).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn ask(p: *const u8, bytes: usize) {
    use std::arch::x86_64::{_MM_HINT_T1, _mm_prefetch};
    for k in (0..bytes).step_by(64) {
        // SAFETY: a prefetch reads nothing.
        unsafe { _mm_prefetch::<_MM_HINT_T1>(p.wrapping_add(k).cast()) };
    }
}

/// The geometry: rows of `pitch` bytes, bands of `r` rows, tiles `w`
/// bytes wide (`pitch` a multiple of `w`, `w` of 16).
#[derive(Clone, Copy)]
struct Geometry {
    pitch: usize,
    r: usize,
    w: usize,
}

/// The patterns, by name.
const PATTERNS: [(&str, Pattern); 12] = [
    ("tile order", Pattern::Tiles { ahead: false }),
    ("tile order, band ahead", Pattern::Tiles { ahead: true }),
    (
        "tile order, band ahead, via stage",
        Pattern::Staged { overlap: false },
    ),
    (
        "tile order, band ahead, via stage, overlapped",
        Pattern::Staged { overlap: true },
    ),
    ("row order", Pattern::Groups(1)),
    (
        "band staged in row order, a share a tile",
        Pattern::BandStage,
    ),
    ("pairs, next group ahead", Pattern::Groups(2)),
    ("quads, next group ahead", Pattern::Groups(4)),
    ("unpacking, a tile at a time", Pattern::Unpack(1)),
    ("unpacking, 2 tiles a row", Pattern::Unpack(2)),
    ("unpacking, 4 tiles a row", Pattern::Unpack(4)),
    ("unpacking, 8 tiles a row", Pattern::Unpack(8)),
];

#[derive(Clone, Copy)]
enum Pattern {
    /// A tile at a time; with `ahead`, asking for the next band.
    Tiles { ahead: bool },
    /// As `Tiles { ahead: true }`, each tile gathered into a stage first
    /// (ordinary stores), then streamed out at once; with `overlap`, the
    /// previous tile streamed out a piece with each piece gathered.
    Staged { overlap: bool },
    /// Groups of this many rows, each across the band, asking for the
    /// next group (when more than one row).
    Groups(usize),
    /// The next band copied into a stage in row order (ordinary stores),
    /// a share with each tile of this band streamed out of the other
    /// stage in tile order.
    BandStage,
    /// The other way: tiles read in order, each row's piece of this many
    /// tiles written in turn (the destination's rows `R` streams).
    Unpack(usize),
}

/// Copies `src` into `dst` (the same length, a whole number of bands)
/// in `pattern` (for `Unpack`, `src` as tiles and `dst` as rows).
#[cfg(target_arch = "x86_64")]
fn run(pattern: Pattern, g: Geometry, src: &[u8], dst: &mut [u8]) {
    let Geometry { pitch, r, w } = g;
    let (band, tile, tiles) = (r * pitch, r * w, pitch / w);
    assert!(src.len() == dst.len() && src.len().is_multiple_of(band));
    assert!(pitch.is_multiple_of(w) && w.is_multiple_of(16));
    let (s, d) = (src.as_ptr(), dst.as_mut_ptr());
    assert!((d as usize).is_multiple_of(16));
    // Two stages of a band, rows a line longer than the source's.
    let mut bands = vec![0u8; 2 * r * (pitch + 64)];
    // `Staged`'s two stages of a tile (tiles of any width).
    let mut tile_stages = [vec![0u8; tile], vec![0u8; tile]];
    let stage = bands.as_mut_ptr();
    if let Pattern::BandStage = pattern {
        for i in 0..r {
            // SAFETY: row `i` of the first band, into the first stage.
            unsafe {
                std::ptr::copy_nonoverlapping(s.add(i * pitch), stage.add(i * (pitch + 64)), pitch)
            };
        }
    }
    // SAFETY: every piece is inside its band of both buffers (the band
    // a whole number of rows and tiles) or of its stage; the stores
    // 16-byte aligned.
    unsafe {
        for b in (0..src.len()).step_by(band) {
            match pattern {
                Pattern::BandStage => {
                    let k = b / band;
                    let sb = r * (pitch + 64);
                    let (now, next) = (stage.add((k % 2) * sb), stage.add(((k + 1) % 2) * sb));
                    // Stage rows a line longer than the source's: a
                    // tile's rows in different L1 sets.
                    let sp = pitch + 64;
                    let share = band / tiles;
                    let more = b + band < src.len();
                    for j in 0..tiles {
                        if more {
                            let (at, i) = ((j * share) % pitch, j * share / pitch);
                            std::ptr::copy_nonoverlapping(
                                s.add(b + band + i * pitch + at),
                                next.add(i * sp + at),
                                share.min(pitch - at),
                            );
                        }
                        for i in 0..r {
                            piece(now.add(i * sp + j * w), d.add(b + j * tile + i * w), w);
                        }
                    }
                }
                Pattern::Tiles { ahead } => {
                    let share = (band / (tiles * r)).next_multiple_of(64);
                    for j in 0..tiles {
                        for i in 0..r {
                            if ahead {
                                ask(s.wrapping_add(b + band + (j * r + i) * share), share);
                            }
                            piece(s.add(b + i * pitch + j * w), d.add(b + j * tile + i * w), w);
                        }
                    }
                }
                Pattern::Staged { overlap } => {
                    let share = (band / (tiles * r)).next_multiple_of(64);
                    let stages = &mut tile_stages;
                    let mut last: Option<usize> = None;
                    for j in 0..tiles {
                        let (a, z) = stages.split_at_mut(1);
                        let (cur, prev) = if j % 2 == 0 {
                            (&mut a[0], &z[0])
                        } else {
                            (&mut z[0], &a[0])
                        };
                        for i in 0..r {
                            ask(s.wrapping_add(b + band + (j * r + i) * share), share);
                            std::ptr::copy_nonoverlapping(
                                s.add(b + i * pitch + j * w),
                                cur.as_mut_ptr().add(i * w),
                                w,
                            );
                            if let (true, Some(pj)) = (overlap, last) {
                                piece(prev.as_ptr().add(i * w), d.add(b + pj * tile + i * w), w);
                            }
                        }
                        if !overlap {
                            piece(cur.as_ptr(), d.add(b + j * tile), tile);
                        }
                        last = Some(j);
                    }
                    if let (true, Some(pj)) = (overlap, last) {
                        let prev = &stages[pj % 2];
                        piece(prev.as_ptr(), d.add(b + pj * tile), tile);
                    }
                }
                Pattern::Unpack(span) => {
                    for j0 in (0..tiles).step_by(span) {
                        let k = span.min(tiles - j0);
                        for i in 0..r {
                            for j in j0..j0 + k {
                                piece(s.add(b + j * tile + i * w), d.add(b + i * pitch + j * w), w);
                            }
                        }
                    }
                }
                Pattern::Groups(gr) => {
                    let share = (gr * pitch / tiles).next_multiple_of(64);
                    for q in (0..r).step_by(gr) {
                        for j in 0..tiles {
                            if gr > 1 {
                                let next = b + (q + gr) * pitch;
                                ask(s.wrapping_add(next + j * share), share);
                            }
                            for i in q..q + gr {
                                piece(s.add(b + i * pitch + j * w), d.add(b + j * tile + i * w), w);
                            }
                        }
                    }
                }
            }
        }
        std::arch::x86_64::_mm_sfence();
    }
}

fn main() {
    // `cargo bench` passes `--bench`; the rest are ours.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let arg = |i: usize, default: usize| {
        args.get(i)
            .map_or(default, |a| a.parse().expect("a number"))
    };
    let rounds = arg(0, 9);
    let g = Geometry {
        pitch: arg(1, 32 << 10),
        r: arg(2, 8),
        w: arg(3, 512),
    };
    assert!(rounds > 0, "at least one round");
    // Every pattern's groups divide the band (quads: four rows).
    assert!(g.r.is_multiple_of(4), "R must be a multiple of 4");
    let band = g.r * g.pitch;
    let n = (256 << 20) / band * band;
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (rounds, n);
        println!("x86_64 only");
    }
    #[cfg(target_arch = "x86_64")]
    {
        let src = Buffer::new(n, 0, |k| (k * 7) as u8);
        let mut dst = Buffer::new(n, 0, |_| 0u8);
        let mut times = vec![Vec::new(); PATTERNS.len() + 1];
        let time = |f: &mut dyn FnMut()| {
            let t = Instant::now();
            f();
            t.elapsed()
        };
        for _ in 0..rounds {
            times[0].push(time(&mut || nt_copy(src.get(), dst.get_mut())));
            for (k, &(_, p)) in PATTERNS.iter().enumerate() {
                times[k + 1].push(time(&mut || run(p, g, src.get(), dst.get_mut())));
            }
            black_box(dst.get()[n / 2]);
        }
        for t in &mut times {
            t.sort();
        }
        let gib = |t: Duration| n as f64 / t.as_secs_f64() / (1u64 << 30) as f64;
        let (nt_best, nt_median) = (times[0][0], times[0][rounds / 2]);
        println!(
            "{rounds} rounds, {} MiB, rows of {} bytes, bands of {} rows, tiles {} bytes wide.",
            n >> 20,
            g.pitch,
            g.r,
            g.w
        );
        println!();
        println!("| pattern | GiB/s | ÷ NT copy |");
        println!("|---|---:|---:|");
        println!("| NT copy | {:.1} | 1.00× |", gib(nt_best));
        for (k, (name, _)) in PATTERNS.iter().enumerate() {
            let t = &times[k + 1];
            println!(
                "| {name} | {:.1} | {:.2}× ({:.2}×) |",
                gib(t[0]),
                nt_best.as_secs_f64() / t[0].as_secs_f64(),
                nt_median.as_secs_f64() / t[rounds / 2].as_secs_f64()
            );
        }
    }
}
