//! The tile copies (row-major ↔ the TPU's 2-D formats) against the
//! definition, at every position of the destination within a 64-byte
//! line: streaming stores (forced on for these small arrays), the lines
//! they join per destination row, the AVX2 kernels (with and without
//! AVX-512's registers), the 512-bit ones, and the SSE2 ones, packing in
//! the source's and the destination's order, pred's a pipeline deep and
//! not, ordinary stores, and the
//! scalar kernel of formats no vector kernel takes. Each
//! copy writes into a buffer with guard regions before and after the
//! destination and poison in it; the whole buffer must then be the
//! expected one: every element from its source slot, every padding slot
//! the pad value, the guards untouched.
#![cfg(feature = "std")]

use super::common::{Unit, both_directions, expected, tiled};
use xla_layout_core::Relayout;

/// Bytes of guard before and after the destination.
const GUARD: usize = 64;

/// Every byte offset in a line (those a `T` can start at are used).
const ALL_OFFSETS: [usize; 64] = {
    let mut o = [0; 64];
    let mut k = 0;
    while k < 64 {
        o[k] = k;
        k += 1;
    }
    o
};

/// Every way `plan` can run, at the destination's byte offsets `offsets`
/// in a 64-byte line (those that are not multiples of `T`'s size are
/// skipped), one pass per `T`-sized piece of the slot numbers.
fn check_at<T: Unit>(
    name: &str,
    plan: Relayout,
    src_slots: usize,
    want: &[Option<u32>],
    offsets: &[usize],
) {
    let (pad, guard, poison) = (
        T::from_bits(0xA5A5_A5A5),
        T::from_bits(0x5A5A_5A5A),
        T::from_bits(0x3C3C_3C3C),
    );
    let bits = 8 * T::BYTES;
    let passes = (32 - (src_slots as u32).leading_zeros()).div_ceil(bits);
    let size = T::BYTES as usize;
    let (spare, n) = (GUARD / size, want.len());
    let mut buf = vec![guard; n + 3 * spare];
    for pass in 0..passes {
        let piece = |s: u32| T::from_bits(s.checked_shr(pass * bits).unwrap_or(0));
        // The source on a line (as XLA's host allocator places buffers:
        // the kernels that read whole lines of it run) and 16 bytes into
        // one (as glibc's `malloc` places large blocks; `size` bytes into
        // it for wider slots).
        let sources = [0, 16usize.max(size)].map(|line_offset| {
            let mut held = vec![guard; src_slots + 64 / size];
            let first = (0..64 / size)
                .find(|k| (held.as_ptr() as usize + k * size) % 64 == line_offset)
                .unwrap();
            for (i, x) in held[first..first + src_slots].iter_mut().enumerate() {
                *x = piece(i as u32);
            }
            (held, first, line_offset)
        });
        let mut whole = vec![guard; n + 2 * spare];
        for (w, s) in whole[spare..spare + n].iter_mut().zip(want) {
            *w = s.map_or(pad, piece);
        }
        for (mode, how) in [
            (plan.streaming_from(0), "streaming"),
            (
                plan.streaming_from(0).without_avx512_vectors(),
                "streaming, no 512-bit vectors",
            ),
            (
                plan.streaming_from(0).without_avx512(),
                "streaming, no AVX-512",
            ),
            (plan.streaming_from(0).without_avx2(), "streaming, no AVX2"),
            // Packing in either order whatever the CPU (each runs on the
            // family of cores it was measured faster on).
            (
                plan.streaming_from(0).packing_in_source_order(true),
                "streaming, in the source's order",
            ),
            (
                plan.streaming_from(0)
                    .packing_in_source_order(true)
                    .without_avx2(),
                "streaming, in the source's order, no AVX2",
            ),
            (
                plan.streaming_from(0).packing_in_source_order(false),
                "streaming, in the destination's order",
            ),
            // pred's packing a pipeline deep or a tile at a time (each
            // runs on the family of cores it was measured faster on).
            (
                plan.streaming_from(0).packing_pipelined(true),
                "streaming, pipelined",
            ),
            (
                plan.streaming_from(0).packing_pipelined(false),
                "streaming, not pipelined",
            ),
            // pred's packing from whole lines (each runs on the family
            // of cores it was measured faster on) or through the stage.
            (
                plan.streaming_from(0).packing_from_lines(true),
                "streaming, from whole lines",
            ),
            (
                plan.streaming_from(0).packing_from_lines(false),
                "streaming, through the stage",
            ),
            // s8's and bf16's rows realigned in registers (on a CPU with
            // VBMI) or not.
            (
                plan.streaming_from(0).realigned(true),
                "streaming, realigned",
            ),
            (
                plan.streaming_from(0).realigned(false),
                "streaming, not realigned",
            ),
            (
                plan.streaming_from(usize::MAX).packing_from_lines(false),
                "ordinary stores, through the stage",
            ),
            (plan.streaming_from(usize::MAX), "ordinary stores"),
            (
                plan.streaming_from(usize::MAX).without_avx512_vectors(),
                "ordinary stores, no 512-bit vectors",
            ),
            (
                plan.streaming_from(usize::MAX).without_avx512(),
                "ordinary stores, no AVX-512",
            ),
            (
                plan.streaming_from(usize::MAX).without_avx2(),
                "ordinary stores, no AVX2",
            ),
        ] {
            let base = buf.as_ptr() as usize;
            let dst_offsets = offsets.iter().filter(|&&o| o % size == 0);
            for (&line_offset, (held, first, src_offset)) in
                dst_offsets.flat_map(|o| sources.iter().map(move |s| (o, s)))
            {
                let input = &held[*first..first + src_slots];
                // The destination starts `line_offset` bytes into a line.
                let at = (0..spare)
                    .find(|k| (base + (spare + k) * size) % 64 == line_offset)
                    .unwrap();
                let region = &mut buf[at..at + n + 2 * spare];
                region.fill(guard);
                region[spare..spare + n].fill(poison);
                mode.copy(input, &mut region[spare..spare + n], pad)
                    .unwrap();
                if region != &whole[..] {
                    let k = (0..region.len()).find(|&k| region[k] != whole[k]).unwrap();
                    panic!(
                        "{name} ({size}-byte slots, pass {pass}, {how}): at line offset \
                         {line_offset} (the source at {src_offset}), slot {} holds {:?}, \
                         not {:?}",
                        k as isize - spare as isize,
                        region[k],
                        whole[k]
                    );
                }
            }
        }
    }
}

/// Both directions between `ty[dims]` row-major and with `tile`.
fn both_ways(ty: &str, dims: &str, tile: &str) {
    both_ways_at(ty, dims, tile, &ALL_OFFSETS);
}

/// [`both_ways`] at the destination's line offsets `offsets`.
fn both_ways_at(ty: &str, dims: &str, tile: &str, offsets: &[usize]) {
    for (a, b) in &both_directions(ty, dims, tile) {
        let (src, dst) = (tiled(a), tiled(b));
        let plan = Relayout::new(&src, &dst).unwrap();
        let want = expected(&src, &dst);
        let name = format!("{a} -> {b}");
        let slots = src.physical_slots() as usize;
        match ty {
            "bf16" => check_at::<u16>(&name, plan, slots, &want, offsets),
            "f32" => check_at::<u32>(&name, plan, slots, &want, offsets),
            _ => check_at::<u8>(&name, plan, slots, &want, offsets),
        }
    }
}

/// Whole tiles, ragged rows and columns (the last tile column narrower
/// than a line, rows that start at every byte offset), batches (the
/// second with whole bands of 8-row tiles after the first matrix's).
const SHAPES: [&str; 5] = ["16,512", "9,300", "71,389", "2,3,130", "2,9,300"];

#[test]
fn the_tpu_formats() {
    for (ty, tile) in [
        ("bf16", "T(8,128)(2,1)"),
        ("s8", "T(8,128)(4,1)"),
        ("f32", "T(8,128)"),
        ("pred", "T(32,128)(32,1)"),
    ] {
        for dims in SHAPES {
            both_ways(ty, dims, tile);
        }
    }
}

#[test]
fn other_groups_and_widths() {
    for (ty, tile) in [
        // Pairs of bytes; 16 rows of bytes; taller tiles.
        ("u8", "T(8,128)(2,1)"),
        ("u8", "T(16,128)(16,1)"),
        ("bf16", "T(16,128)(2,1)"),
        ("s8", "T(32,128)(4,1)"),
        // Shorter and wider tiles (realigned in registers: 4 or 8 rows).
        ("s8", "T(4,128)(4,1)"),
        ("s8", "T(8,256)(4,1)"),
        ("bf16", "T(4,128)(2,1)"),
        ("bf16", "T(2,128)(2,1)"),
        ("bf16", "T(8,64)(2,1)"),
        // No vector kernel: quads of 16 bits; rows of 24 bytes. Rows of
        // 48 bytes: SSE2, not AVX2.
        ("bf16", "T(8,128)(4,1)"),
        ("f32", "T(8,6)"),
        ("f32", "T(8,12)"),
        // Tail padding after the tiles.
        ("f32", "T(8,128)L(4096)"),
    ] {
        for dims in ["16,512", "9,300"] {
            both_ways(ty, dims, tile);
        }
    }
}

/// Byte transposes into rows that crowd L1 sets (more than 8 rows' starts
/// in one set: 32 rows 2048 bytes apart or a multiple, and a few bytes
/// short of or past one: 2047, 4095, 4097; 16 rows of 4095), which
/// ordinary stores reach through a stage a span of tiles at a time, a
/// ragged last row group too; and distances that do not (1920, 1025; 16
/// rows of 2048: 8 to a set), written directly.
#[test]
fn byte_transposes_into_aliased_rows() {
    for (ty, dims, tile) in [
        ("pred", "32,2048", "T(32,128)(32,1)"),
        ("pred", "40,4096", "T(32,128)(32,1)"),
        ("pred", "2,33,2048", "T(32,128)(32,1)"),
        ("pred", "32,1920", "T(32,128)(32,1)"),
        ("pred", "32,2047", "T(32,128)(32,1)"),
        ("pred", "33,4095", "T(32,128)(32,1)"),
        ("pred", "32,4097", "T(32,128)(32,1)"),
        ("pred", "32,1025", "T(32,128)(32,1)"),
        ("u8", "16,2048", "T(16,128)(16,1)"),
        ("u8", "16,4095", "T(16,128)(16,1)"),
    ] {
        both_ways_at(ty, dims, tile, &[0, 16, 1, 63]);
    }
}

/// The TPU formats at sizes on and around every boundary the tile path
/// cuts at: row groups (`g ± 1`), tiles (`R ± 1`, `C ± 1`, two of them),
/// 16-byte vectors, 32-byte AVX2 rows and 64-byte lines (columns 15-17,
/// 31-33, 63-65 of every width), with a batch dimension; the destination
/// line-aligned, 16-byte aligned, one slot into a line and one slot short
/// of the next line.
#[test]
fn sizes_around_every_boundary() {
    const COLS: [u64; 16] = [
        1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257,
    ];
    for (ty, tile, size, rows) in [
        ("bf16", "T(8,128)(2,1)", 2, &[1, 2, 3, 7, 8, 9, 16, 17][..]),
        ("s8", "T(8,128)(4,1)", 1, &[1, 3, 4, 5, 7, 8, 9, 16, 17][..]),
        ("f32", "T(8,128)", 4, &[1, 7, 8, 9, 16, 17][..]),
        (
            "pred",
            "T(32,128)(32,1)",
            1,
            &[1, 15, 16, 17, 31, 32, 33, 64, 65][..],
        ),
    ] {
        let offsets = [0, 16, size, 64 - size];
        for &r in rows {
            for c in COLS {
                both_ways_at(ty, &format!("{r},{c}"), tile, &offsets);
            }
        }
        for dims in ["3,9,129", "2,17,256", "2,1,33,65"] {
            both_ways_at(ty, dims, tile, &offsets);
        }
    }
}

/// Zero-sized elements have no bytes to move: every path returns `Ok`
/// (the tile kernels measure slots in bytes and are not taken), and too
/// short a buffer is still an error.
#[test]
fn zero_sized_elements_move_nothing() {
    let (tiles, rows) = (
        tiled("f32[13,300]{1,0:T(8,128)}"),
        tiled("f32[13,300]{1,0}"),
    );
    for (src, dst) in [(&tiles, &rows), (&rows, &tiles)] {
        let plan = Relayout::new(src, dst).unwrap();
        let (s, d) = (src.physical_slots() as usize, dst.physical_slots() as usize);
        for plan in [plan, plan.streaming_from(0)] {
            assert_eq!(plan.copy(&vec![(); s], &mut vec![(); d], ()), Ok(()));
            #[cfg(feature = "rayon")]
            assert_eq!(
                plan.copy_parallel(&vec![(); s], &mut vec![(); d], ()),
                Ok(())
            );
            assert!(plan.copy(&vec![(); s - 1], &mut vec![(); d], ()).is_err());
        }
    }
}
