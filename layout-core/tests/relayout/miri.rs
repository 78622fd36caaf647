//! Every unsafe path of the core on shapes small enough for Miri:
//!
//! ```text
//! cargo +nightly miri test -p xla-layout-core --all-features --test relayout -- miri::
//! ```
//!
//! (`.ci/run` runs it when Miri is installed). Covered: each block kernel
//! of a relayout (contiguous runs, the zips and unzips of every word
//! width, the SSE 4×4 and the 8×8 transposes, the general block, the
//! element-by-element fallback) for 1- to 16-byte elements; each streaming
//! kernel, with the threshold lowered to 0 (`Relayout::streaming_from`),
//! at several offsets of the destination in a 64-byte line, so that the
//! carry's part lines (held, completed, clashing, written out at the end)
//! and the heads and tails of the runs all run; each kernel of the tile
//! path (`tiles.rs`; SSE2, as AVX2 is off under Miri), packing and
//! unpacking, streaming and not; `copy_bytes` at every
//! whole-byte width and bit by bit; the views' unchecked accessors; the
//! `bytemuck` and DLPack views; and the lexer's SSE2 scan.
//!
//! Every copy goes to a destination with guard regions before and after
//! it, and is checked slot by slot against the two layouts' offsets.
//! Under Miri the non-temporal store is an ordinary store of the same 16
//! aligned bytes (Miri cannot run the `movntdq` inline assembly); run
//! natively, this file checks the real one, at every line offset, and
//! `streaming_stores.rs` beside this file compares it with the ordinary kernels.
#![cfg(feature = "std")]

use core::fmt::Debug;

use super::common::{Pair, both_directions, tiled};
use xla_layout_core::bits::{read_bits, write_bits};
use xla_layout_core::text::Lexer;
use xla_layout_core::{
    BitsView, BitsViewMut, DynBitsView, DynBitsViewMut, DynView, DynViewMut, Relayout, View,
    ViewMut,
};

/// Every logical index of `dims`, row-major.
fn indices(dims: &[u64]) -> Vec<Vec<u64>> {
    let mut out = vec![vec![]];
    for &n in dims {
        out = out
            .into_iter()
            .flat_map(|i| {
                (0..n).map(move |k| {
                    let mut j = i.clone();
                    j.push(k);
                    j
                })
            })
            .collect();
    }
    out
}

/// A relayout to check, and which plans copy it.
struct Case {
    pair: Pair,
    /// Also copy through the general walk (`Relayout::without_tiles`).
    walk_too: bool,
}

impl Case {
    fn new(a: &str, b: &str) -> Case {
        Case {
            pair: Pair::new(a, b),
            walk_too: true,
        }
    }

    /// Copies with elements of type `T`, with ordinary and with streaming
    /// stores, into destinations at the given line offsets (those a `T`
    /// can start at; anywhere if none can).
    fn check<T: Unit>(&self, offsets: &[usize]) {
        // The host ↔ TPU tile formats take the tile path (`tiles.rs`);
        // `without_tiles` keeps the block kernels of the general walk
        // covered for them too (for other layouts the two plans are one).
        let plan = self.pair.plan;
        let mut plans = vec![plan.streaming_from(usize::MAX), plan.streaming_from(0)];
        if self.walk_too {
            plans.push(plan.without_tiles().streaming_from(usize::MAX));
            plans.push(plan.without_tiles().streaming_from(0));
        } else {
            // The tile kernels' cases (`every_tile_kernel`) also pack in
            // the source's order (Zen 5's: Miri counts as no family of
            // cores, so it is asked for here).
            plans.push(plan.streaming_from(0).packing_in_source_order(true));
        }
        for plan in &plans {
            let ran = offsets
                .iter()
                .filter(|&&offset| self.check_at::<T>(plan, Some(offset)))
                .count();
            if ran == 0 {
                self.check_at::<T>(plan, None);
            }
        }
    }

    /// [`Case::check`] for every element width the kernels tell apart.
    fn check_all_widths(&self, offsets: &[usize]) {
        self.check::<u8>(offsets);
        self.check::<u16>(offsets);
        self.check::<u32>(offsets);
        self.check::<u64>(offsets);
        self.check::<[u32; 4]>(offsets);
    }

    /// Copies with `plan` (streaming or not) into a destination starting
    /// `offset` bytes into a line, between guards; checks every slot
    /// (the pad value for padding) and that the guards are untouched.
    /// Returns false if no destination of `T`s can start at that offset;
    /// `None` takes the first one that can.
    fn check_at<T: Unit>(&self, plan: &Relayout, offset: Option<usize>) -> bool {
        let (name, want) = (&self.pair.name, &self.pair.want);
        let size = size_of::<T>();
        let (pad, guard) = (T::from_bits(0xA5A5_A5A5_A5A5_A5A5), T::from_bits(!0));
        let slots = want.iter().flatten().max().map_or(0, |&s| s + 1);
        let passes = (64 - slots.leading_zeros()).div_ceil(T::BITS).max(1);
        let guard_len = GUARD_BYTES.div_ceil(size);
        let n = want.len();
        let mut buf = vec![guard; n + 2 * guard_len + 64];
        let base = buf.as_ptr().addr();
        let line_offset = |k: usize| (base + (guard_len + k) * size) % 64;
        let Some(k) = (0..64).find(|&k| offset.is_none_or(|o| line_offset(k) == o)) else {
            return false;
        };
        let (at, offset) = (guard_len + k, line_offset(k));
        for pass in 0..passes {
            let piece = |s: u64| T::from_bits(s.checked_shr(pass * T::BITS).unwrap_or(0));
            let input: Vec<T> = (0..self.pair.src_slots).map(piece).collect();
            buf.fill(guard);
            plan.copy(&input, &mut buf[at..at + n], pad).unwrap();
            for (slot, w) in want.iter().enumerate() {
                let w = w.map_or(pad, piece);
                assert!(
                    buf[at + slot] == w,
                    "{name} ({size}-byte elements at line offset {offset}, pass {pass}): \
                 slot {slot} holds {:?}, not {w:?}",
                    buf[at + slot]
                );
            }
            assert!(
                buf[..at].iter().chain(&buf[at + n..]).all(|&g| g == guard),
                "{name} ({size}-byte elements at line offset {offset}): wrote outside the destination"
            );
        }
        true
    }
}

/// An element type of a given width, holding `BITS` bits of a slot
/// number per copy.
trait Unit: Copy + PartialEq + Debug {
    const BITS: u32;
    fn from_bits(v: u64) -> Self;
}

macro_rules! unit {
    ($($t:ty),*) => {$(
        impl Unit for $t {
            const BITS: u32 = <$t>::BITS;
            fn from_bits(v: u64) -> Self {
                v as $t
            }
        }
    )*};
}
unit!(u8, u16, u32, u64);

/// 16 bytes, as `c128`: the generic (not word-packed) zips and unzips.
impl Unit for [u32; 4] {
    const BITS: u32 = 64;
    fn from_bits(v: u64) -> Self {
        [v as u32, (v >> 32) as u32, !(v as u32), 0x600D]
    }
}

/// Guard bytes on each side of a destination.
const GUARD_BYTES: usize = 64;

/// Where in a 64-byte line destinations start: every offset natively;
/// under Miri the four 16-byte ones the streaming kernels align to (the
/// carry's heads and tails differ at each) and two others.
fn line_offsets() -> Vec<usize> {
    if cfg!(miri) {
        vec![0, 16, 32, 48, 1, 40]
    } else {
        (0..64).collect()
    }
}

/// Each block kernel, at each element width it specialises on (the
/// kernel is chosen by the strides and `size_of::<T>()`, not by the
/// layout's element type, so one layout pair runs several kernels).
#[test]
fn every_block_kernel() {
    // The line offset matters to the streaming kernels only (below).
    let offsets = [0];
    for (a, b) in [
        // Contiguous runs.
        ("f32[4,8]{1,0}", "f32[4,8]{1,0:T(2,4)}"),
        // Two rows zipped into pairs and back: 16-bit words for 1-byte
        // elements, then the generic zip.
        ("bf16[4,16]{1,0}", "bf16[4,16]{1,0:T(4,8)(2,1)}"),
        ("bf16[4,16]{1,0:T(4,8)(2,1)}", "bf16[4,16]{1,0}"),
        // Four rows: 32-bit words (1 byte), 64-bit words (2 bytes).
        ("s8[8,16]{1,0}", "s8[8,16]{1,0:T(4,8)(4,1)}"),
        ("s8[8,16]{1,0:T(4,8)(4,1)}", "s8[8,16]{1,0}"),
        // Eight rows: 64-bit words (1 byte).
        ("u8[8,16]{1,0}", "u8[8,16]{1,0:T(8,8)(8,1)}"),
        ("u8[8,16]{1,0:T(8,8)(8,1)}", "u8[8,16]{1,0}"),
        // Transposes: 4×4 SSE tiles (4 bytes), 8×8 tiles otherwise, with
        // edges on both sides.
        ("f32[9,13]{1,0}", "f32[9,13]{0,1}"),
        ("f32[3,7]{0,1:T(2)L(16)}", "f32[3,7]{1,0}"),
        // The general block: neither side contiguous.
        ("f32[11,2,1]{1,2,0}", "f32[11,2,1]{0,2,1:T(4,1)}"),
        // Element by element (`*` is not affine in digits).
        ("f32[2,3,5]{2,1,0}", "f32[2,3,5]{2,1,0:T(*,2,4)}"),
        // A ragged dimension split into both leaf loops.
        ("f32[100]{0}", "f32[100]{0:T(16)}"),
        // Nothing to copy but padding.
        ("f32[0,5]{1,0}", "f32[0,5]{1,0:T(2,2)}"),
    ] {
        Case::new(a, b).check_all_widths(&offsets);
    }
    // Long enough to be blocked (32-element blocks), ragged at both ends:
    // the same kernels, too slow under Miri.
    if !cfg!(miri) {
        Case::new("u8[65,70]{1,0}", "u8[65,70]{0,1}").check::<u8>(&[0]);
    }
}

/// Each streaming kernel with streaming forced on, at line offsets where
/// its stores are aligned and where they are not (then the ordinary
/// kernels run): whole lines, part lines held back and completed by the
/// next tile of the row, clashes in the carry, heads and tails.
#[test]
fn every_streaming_kernel() {
    let offsets = line_offsets();
    // Runs: 16-byte stores between a head and a tail of ordinary ones.
    for (a, b) in [
        ("f32[4,8]{1,0}", "f32[4,8]{1,0:T(2,4)}"),
        ("f32[100]{0}", "f32[100]{0:T(16)}"),
        ("f32[6,20]{0,1}", "f32[6,20]{0,1:T(4,8)}"),
    ] {
        let case = Case::new(a, b);
        case.check::<u8>(&offsets);
        case.check::<u32>(&offsets);
    }
    // Pairs and quads: whole tiles stream, ragged ones (a last tile with
    // fewer rows than a group, or columns that do not fill a vector) go
    // to the ordinary kernels.
    for (a, b) in [
        ("bf16[4,16]{1,0}", "bf16[4,16]{1,0:T(4,8)(2,1)}"),
        ("bf16[5,36]{1,0}", "bf16[5,36]{1,0:T(4,8)(2,1)}"),
    ] {
        Case::new(a, b).check::<u16>(&offsets);
    }
    for (a, b) in [
        ("s8[8,32]{1,0}", "s8[8,32]{1,0:T(4,16)(4,1)}"),
        ("s8[6,40]{1,0}", "s8[6,40]{1,0:T(4,16)(4,1)}"),
    ] {
        Case::new(a, b).check::<u8>(&offsets);
    }
    // Back into rows, through the carry: rows of 40 columns (80 bytes)
    // start at every 16-byte line offset; a one-row last tile; a tile
    // row of one 16-byte unit, inside a line; 32 rows a tile, twice the
    // carry's slots.
    for (a, b) in [
        ("bf16[6,40]{1,0:T(4,16)(2,1)}", "bf16[6,40]{1,0}"),
        ("bf16[5,32]{1,0:T(4,16)(2,1)}", "bf16[5,32]{1,0}"),
        ("bf16[4,8]{1,0:T(4,8)(2,1)}", "bf16[4,8]{1,0}"),
        ("bf16[4,24]{1,0:T(2,8)(2,1)}", "bf16[4,24]{1,0}"),
        ("bf16[64,16]{1,0:T(32,16)(2,1)}", "bf16[64,16]{1,0}"),
    ] {
        Case::new(a, b).check::<u16>(&offsets);
    }
    for (a, b) in [
        ("s8[8,48]{1,0:T(4,16)(4,1)}", "s8[8,48]{1,0}"),
        ("s8[7,32]{1,0:T(4,16)(4,1)}", "s8[7,32]{1,0}"),
    ] {
        Case::new(a, b).check::<u8>(&offsets);
    }
}

/// The tile path (row-major ↔ `T(R,C)` / `T(R,C)(g,1)`, `tiles.rs`):
/// each of its SSE2 kernels (AVX2 is off under Miri) and the scalar one,
/// packing and unpacking, whole and ragged tiles (edge row groups padded
/// in a stage), a batch dimension, ordinary and streaming stores; the
/// unpacking streams through `lines.rs` (part lines held per row, joined,
/// flushed) at every line offset of `line_offsets`, or straight from the
/// kernel into a line-aligned destination.
#[test]
fn every_tile_kernel() {
    // Under Miri: aligned (streaming), 16 bytes in, and two that are not
    // 16-byte aligned (rows start at odd bytes of a line).
    let offsets = if cfg!(miri) {
        vec![0, 16, 1, 40]
    } else {
        line_offsets()
    };
    for (ty, dims, tile) in [
        // One row a group (16-byte copies), 64-byte rows.
        ("f32", "9,19", "T(8,16)"),
        // Pairs of 16 bits and of bytes; quads of bytes.
        ("bf16", "5,35", "T(4,16)(2,1)"),
        // Rows and tile rows of whole lines: unpacking into a line-aligned
        // destination streams straight from the kernel (`Tiles::direct`),
        // a ragged last tile column too.
        ("bf16", "5,96", "T(4,32)(2,1)"),
        ("bf16", "3,32", "T(2,64)(2,1)"),
        ("u8", "5,33", "T(4,16)(2,1)"),
        ("s8", "2,7,17", "T(4,16)(4,1)"),
        // Rows off the line grid in parts of 512 bytes (spans of eight
        // tiles), each row's last line kept in the stage for its next part
        // (`lines::write_window`), then a short last span: 76 bytes, and
        // 6 (with the held line, less than one line), and 96 bytes of
        // 8-byte slots.
        ("u8", "3,1100", "T(2,64)(2,1)"),
        ("u8", "3,1030", "T(2,64)(2,1)"),
        ("f64", "3,140", "T(2,8)"),
        // Parts of 528 bytes (eleven tiles 48 bytes wide), not whole
        // lines: joined through `Lines`' held lines, completed by the
        // row's next part.
        ("u8", "3,1100", "T(4,48)(4,1)"),
        // 16 and 32 rows of bytes: the byte transposes.
        ("u8", "17,16", "T(16,16)(16,1)"),
        ("pred", "33,18", "T(32,16)(32,1)"),
        // No vector kernel (rows of 24 bytes): the scalar one.
        ("f32", "9,7", "T(8,6)"),
    ] {
        for (a, b) in &both_directions(ty, dims, tile) {
            // The walk's kernels are the other tests' (and twice the time).
            let case = Case {
                walk_too: false,
                ..Case::new(a, b)
            };
            match ty {
                "bf16" => case.check::<u16>(&offsets),
                "f32" => case.check::<u32>(&offsets),
                "f64" => case.check::<u64>(&offsets),
                _ => case.check::<u8>(&offsets),
            }
        }
    }
}

/// Byte transposes unpacked with ordinary stores into rows that crowd
/// an L1 set go through a stage a span of tiles at a time
/// (`tile_kernels::unpack_span_staged`): the smallest such array (16
/// rows of 4096 bytes: more than 8 rows to a set), from tiles, into a
/// destination one byte into a line (the stores are unaligned ones
/// anyway). Only that path, once (minutes under Miri): the rest of it
/// is `every_tile_kernel`'s.
#[test]
fn byte_transposes_into_aliased_rows() {
    let case = Case::new("u8[16,4096]{1,0:T(16,16)(16,1)}", "u8[16,4096]{1,0}");
    assert!(case.check_at::<u8>(&case.pair.plan.streaming_from(usize::MAX), Some(1)));
}

/// `copy_bytes`: whole-byte elements of each width through the block
/// kernels, sub-byte and mixed widths bit by bit; nothing past the
/// layout's bytes is written.
#[test]
fn copy_bytes_at_every_width() {
    for ty in ["s8", "bf16", "f32", "f64", "c128"] {
        check_bytes(&format!("{ty}[3,5]{{1,0}}"), &format!("{ty}[3,5]{{0,1}}"));
    }
    check_bytes("s4[3,5]{1,0:E(4)}", "s4[3,5]{0,1:E(4)}");
    check_bytes("s4[3,5]{1,0:E(4)}", "s4[3,5]{0,1}");
    check_bytes("s4[3,5]{0,1}", "s4[3,5]{1,0:T(2,4)(2,1)E(4)}");
    check_bytes("pred[3,11]{0,1:E(1)}", "pred[3,11]{1,0}");
    check_bytes("u2[5,3]{1,0:E(2)}", "u2[5,3]{0,1:E(2)}");
}

fn check_bytes(a: &str, b: &str) {
    let (src, dst) = (tiled(a), tiled(b));
    let plan = Relayout::new(&src, &dst).unwrap();
    let (sb, db) = (src.element_bits(), dst.element_bits());
    let width = sb.min(db).min(8) as u32;
    let input: Vec<u8> = (0..src.exact_bytes())
        .map(|b| (b * 37 + 11) as u8)
        .collect();
    let n = dst.exact_bytes() as usize;
    let mut out = vec![0xC3u8; n + GUARD_BYTES];
    plan.copy_bytes(&input, &mut out, 0x5A).unwrap();
    for i in indices(src.logical_dims()) {
        let (s, d) = (src.offset(&i).unwrap(), dst.offset(&i).unwrap());
        assert_eq!(
            read_bits(&out, d * db, width),
            read_bits(&input, s * sb, width),
            "{a} -> {b} at {i:?}"
        );
    }
    assert!(
        out[n..].iter().all(|&g| g == 0xC3),
        "{a} -> {b}: wrote past the layout's bytes"
    );
}

xla_layout::layout! {
    type Tiles = f32[3,5]{1,0:T(2,2)};
    type Rows = f32[3,5]{1,0};
    type Pairs = bf16[4,8]{1,0:T(2,4)(2,1)};
    type PairRows = bf16[4,8]{1,0};
    type Nibbles = s4[3,5]{0,1:T(2,4)(2,1)E(4)};
    type NibbleRows = s4[3,5]{1,0:E(4)};
}

/// The static views' reads and writes without bounds checks (`get`,
/// `iter`, `lane`, `set`, `get_mut`, the `_unchecked` ones), over
/// buffers exactly as long as the layout, so that a slot past the end
/// would be a read out of bounds.
#[test]
fn static_views_stay_inside_their_buffers() {
    let t = Tiles::SHAPE.tiled().unwrap();
    let data: Vec<f32> = (0..Tiles::PHYSICAL_ELEMENTS).map(|s| s as f32).collect();
    let v = View::<Tiles, f32>::new(&data).unwrap();
    for (index, x) in v.iter() {
        let wide = index.map(|k| k as u64);
        assert_eq!(x as u64, t.offset(&wide).unwrap());
        assert_eq!(v.get(index), Some(x));
        // SAFETY: `iter` yields in-bounds indices.
        assert_eq!(unsafe { v.get_unchecked(index) }, x);
    }
    assert_eq!(v.get([3, 0]), None);
    for r in 0..3 {
        let row: Vec<f32> = v.lane([r, 0], 1).collect();
        assert_eq!(row.len(), 5);
    }
    assert_eq!(v.lane([0, 0], 0).count(), 3);
    assert_eq!(v.iter_physical().count(), 15);
    assert_eq!(v.tile(0).unwrap().count(), 4);
    assert_eq!(v.as_dyn().get(&[2, 3]), Ok(17.0));

    let mut out = vec![0.0f32; Tiles::PHYSICAL_ELEMENTS];
    let mut m = ViewMut::<Tiles, f32>::new(&mut out).unwrap();
    for r in 0..3 {
        for c in 0..5 {
            m.set([r, c], 1.0).unwrap();
            *m.get_mut([r, c]).unwrap() += 1.0;
            // SAFETY: in bounds.
            unsafe { m.set_unchecked([r, c], m.get_unchecked([r, c]) + 1.0) };
        }
    }
    assert!(m.set([0, 5], 0.0).is_err());
    m.fill_padding(-1.0);
    assert_eq!(m.into_dyn().iter().filter(|&(_, x)| x == 3.0).count(), 15);
    assert_eq!(out.iter().filter(|&&x| x == -1.0).count(), 9);

    // Relayout through the views' compile-time plans.
    let rows: Vec<u16> = (0..32).collect();
    let mut pairs = vec![0u16; PairRows::PHYSICAL_ELEMENTS];
    ViewMut::<Pairs, u16>::new(&mut pairs)
        .unwrap()
        .copy_from(&View::<PairRows, u16>::new(&rows).unwrap());
    assert_eq!(&pairs[..8], &[0, 8, 1, 9, 2, 10, 3, 11]);

    // Bit views: packed nibbles, set one at a time, copied between
    // layouts, read back.
    let mut nibbles = vec![0u8; NibbleRows::BYTES];
    let mut b = BitsViewMut::<NibbleRows, i8>::new(&mut nibbles).unwrap();
    for r in 0..3 {
        for c in 0..5 {
            b.set([r, c], (r * 5 + c) as i8 - 8).unwrap();
        }
    }
    let mut tiled_nibbles = vec![0xFFu8; Nibbles::BYTES];
    BitsViewMut::<Nibbles, i8>::new(&mut tiled_nibbles)
        .unwrap()
        .copy_from(&BitsView::<NibbleRows, i8>::new(&nibbles).unwrap());
    let back = BitsView::<Nibbles, i8>::new(&tiled_nibbles).unwrap();
    for (index, x) in back.iter() {
        assert_eq!(x, (index[0] * 5 + index[1]) as i8 - 8);
    }
}

/// The runtime views, which check every index, over the same buffers.
#[test]
fn runtime_views_stay_inside_their_buffers() {
    let (tiles, rows) = (tiled("f32[3,5]{1,0:T(2,2)}"), tiled("f32[3,5]{1,0}"));
    let data: Vec<f32> = (0..24).map(|s| s as f32).collect();
    let v = DynView::new(&tiles, &data).unwrap();
    assert_eq!(v.iter().count(), 15);
    assert_eq!(v.lane(&[2, 0], 1).count(), 5);
    assert_eq!(v.tile(5).unwrap().count(), 1); // the corner: (2, 4)
    let mut out = vec![0.0f32; 15];
    let mut m = DynViewMut::new(&rows, &mut out).unwrap();
    m.copy_from(&v).unwrap();
    *m.get_mut(&[2, 4]).unwrap() = -1.0;
    assert_eq!(out[14], -1.0);
    assert_eq!(out[13], 17.0);

    let (packed, bytes) = (tiled("s4[3,5]{0,1:E(4)}"), tiled("s4[3,5]{1,0}"));
    let input: Vec<u8> = (0..8).map(|b| b * 0x11 + 1).collect();
    let mut out = vec![0xEEu8; 15 + 4];
    DynBitsViewMut::<i8>::new(&bytes, &mut out)
        .unwrap()
        .copy_from(&DynBitsView::new(&packed, &input).unwrap())
        .unwrap();
    assert!(out[15..].iter().all(|&g| g == 0xEE));
}

/// `from_bytes` reinterprets bytes in place (bytemuck); DLPack
/// descriptors read back through dlpark's validating reader.
#[cfg(all(feature = "bytemuck", feature = "dlpack"))]
#[test]
fn byte_and_dlpack_views() {
    let t = tiled("f32[3,5]{1,0:T(2,2)}");
    // 4-byte aligned bytes inside a byte buffer, and the same one byte on.
    let mut bytes = [0u8; 100];
    let k = (0..4)
        .find(|k| (bytes.as_ptr().addr() + k).is_multiple_of(4))
        .unwrap();
    let raw = &mut bytes[k..k + 97];
    for (s, chunk) in raw[..96].chunks_mut(4).enumerate() {
        chunk.copy_from_slice(&(s as f32).to_le_bytes());
    }
    let v = DynView::<f32>::from_bytes(&t, &raw[..96]).unwrap();
    assert_eq!(v.get(&[2, 3]), Ok(17.0));
    assert!(DynView::<f32>::from_bytes(&t, &raw[1..]).is_err());
    let mut m = DynViewMut::<f32>::from_bytes_mut(&t, &mut raw[..96]).unwrap();
    m.set(&[2, 4], 0.5).unwrap();
    assert_eq!(raw[20 * 4..21 * 4], 0.5f32.to_le_bytes());

    let plain = tiled("f32[3,5]{0,1}");
    let data: Vec<f32> = (0..15).map(|s| s as f32).collect();
    let d = DynView::new(&plain, &data).unwrap().dlpack().unwrap();
    let tensor = d.tensor();
    // SAFETY: `d` outlives `tensor`'s use and is not moved.
    let r = unsafe { dlpark::tensor::TensorRef::from_raw(&tensor) }.unwrap();
    let (strides, base) = (r.strides().unwrap().to_vec(), r.data_ptr().cast::<f32>());
    for i in indices(plain.logical_dims()) {
        let at: i64 = i.iter().zip(&strides).map(|(&k, &s)| k as i64 * s).sum();
        // SAFETY: `at` is the slot of index `i`, inside `data`.
        let x = unsafe { *base.offset(at as isize) };
        assert_eq!(x as u64, plain.offset(&i).unwrap());
    }
    let mut out = vec![0.0f32; 15];
    {
        let d = DynViewMut::new(&plain, &mut out)
            .unwrap()
            .into_dlpack()
            .unwrap();
        let tensor = d.tensor();
        // SAFETY: `d` keeps `out` borrowed mutably; slot 14 is in it.
        unsafe { *tensor.data.cast::<f32>().add(14) = 2.0 };
    }
    assert_eq!(out[14], 2.0);
}

/// The lexer skips groups 16 bytes at a time with SSE2 loads: specials at
/// every position of a vector, and the last full vector before the end.
#[test]
fn group_skipping_reads_inside_the_text() {
    for len in [0usize, 7, 15, 16, 17, 31, 40] {
        for at in 0..=len {
            let mut text = vec![b'a'; len + 2];
            text[0] = b'(';
            text[len + 1] = b')';
            if at < len {
                text[1 + at] = b'"';
                text.insert(2 + at, b'"');
            }
            let mut lx = Lexer::new(&text);
            let open = lx.next_token();
            assert_eq!(lx.skip_group(open), Ok(text.len()), "{len} {at}");
            // Unclosed: the scan runs to the very end.
            let mut lx = Lexer::new(&text[..text.len() - 1]);
            let open = lx.next_token();
            assert!(lx.skip_group(open).is_err());
        }
    }
    let mut bits = [0u8; 3];
    write_bits(&mut bits, 5, 13, 0x1ABC);
    assert_eq!(read_bits(&bits, 5, 13), 0x1ABC);
}
