//! Relayout: two random layouts of one random shape. Every element lands
//! at `TiledShape::offset` of the destination, every padding slot (or bit)
//! holds the pad value, nothing past the destination's size is written;
//! through `Relayout::copy` (slots of 1 to 16 bytes) and `copy_bytes`
//! (any storage width), with streaming stores at the default threshold,
//! from 0 bytes, and from a drawn one.
//!
//! Layouts are built with `Layout`'s builders from drawn parts, or parsed
//! from drawn text; only pairs that validate are copied. The arrays are
//! small (`MAX_SLOTS`, `MAX_BITS`), so the work per input is bounded.
#![no_main]

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use xla_layout_core::{
    ArrayShape, COMBINE, ElementType, Layout, Relayout, RelayoutError, TiledShape, validate_array,
};
use xla_layout_fuzz::Sampler;

/// The most slots a layout may have (padding included).
const MAX_SLOTS: u64 = 1 << 14;
/// The most elements an array may have.
const MAX_ELEMENTS: u64 = 1 << 11;
/// The most bits a layout's storage may have (for `copy_bytes`).
const MAX_BITS: u64 = 1 << 16;
/// Slots (or bytes) after each destination that must stay untouched.
const GUARD: usize = 24;

fuzz_target!(|data: &[u8]| {
    let _ = run(data);
});

fn run(data: &[u8]) -> Result<()> {
    let mut u = Unstructured::new(data);
    let types: Vec<ElementType> = ElementType::ALL
        .into_iter()
        .filter(|t| t.is_array_type())
        .collect();
    let ty = *u.choose(&types)?;
    let rank = u.int_in_range(0..=5usize)?;
    let mut dims = Vec::with_capacity(rank);
    for _ in 0..rank {
        dims.push(match u.int_in_range(0..=7u8)? {
            0 => u.int_in_range(0..=300)?,
            1 => *u.choose(&[127, 128, 129, 256, 257])?,
            _ => u.int_in_range(1..=9)?,
        });
    }
    let shape = ArrayShape::try_new(ty, &dims).map_err(|_| arbitrary_stop())?;
    let src = layout(&mut u, &shape)?;
    let dst = layout(&mut u, &shape)?;
    let (Some(src), Some(dst)) = (src, dst) else {
        return Ok(());
    };
    let plan = Relayout::new(&src, &dst).expect("one logical shape");
    let reverse = Relayout::new(&dst, &src).expect("one logical shape");
    // The default threshold (8 MiB: no streaming at these sizes), streaming
    // whatever the size, and a drawn threshold (streaming or not, by size).
    let mut plans = vec![plan, plan.streaming_from(0)];
    let threshold = u.int_in_range(1..=1usize << 15)?;
    if u.ratio(1, 2)? {
        plans.push(plan.streaming_from(threshold));
    }
    let width = *u.choose(&[1usize, 2, 4, 8, 16])?;
    let misalign = u.int_in_range(0..=3usize)?;
    let pad: u8 = u.arbitrary()?;
    // Every element's slot on each side, once: the reference the plans'
    // outputs are compared with is computed from these, slowly, once.
    let slots_of =
        |t: &TiledShape| -> Vec<u64> { indices(t).iter().map(|i| t.offset(i).unwrap()).collect() };
    let (src_slots, dst_slots) = (slots_of(&src), slots_of(&dst));
    let ctx = Pair {
        src: &src,
        dst: &dst,
        src_slots: &src_slots,
        dst_slots: &dst_slots,
    };
    match width {
        1 => slots::<u8>(&plans, &ctx, misalign),
        2 => slots::<u16>(&plans, &ctx, misalign),
        4 => slots::<u32>(&plans, &ctx, misalign),
        8 => slots::<u64>(&plans, &ctx, misalign),
        _ => slots::<u128>(&plans, &ctx, misalign),
    }
    bytes(&plans, &ctx, data, pad);
    // And back.
    let back = Pair {
        src: &dst,
        dst: &src,
        src_slots: &dst_slots,
        dst_slots: &src_slots,
    };
    bytes(&[reverse, reverse.streaming_from(0)], &back, data, pad);
    Ok(())
}

/// A source and destination layout, and each element's slot in them
/// (row-major order of the elements).
struct Pair<'a> {
    src: &'a TiledShape,
    dst: &'a TiledShape,
    src_slots: &'a [u64],
    dst_slots: &'a [u64],
}

fn arbitrary_stop() -> libfuzzer_sys::arbitrary::Error {
    libfuzzer_sys::arbitrary::Error::IncorrectFormat
}

/// A drawn layout of `shape` that validates and is small enough, tiled.
fn layout(u: &mut Unstructured<'_>, shape: &ArrayShape) -> Result<Option<TiledShape>> {
    let rank = shape.rank();
    let layout = if u.ratio(1, 8)? {
        // From text.
        let text: &str = u.arbitrary()?;
        match Layout::parse(text) {
            Ok(l) => l,
            Err(_) => return Ok(None),
        }
    } else {
        let mut m2m: Vec<i64> = (0..rank as i64).collect();
        // Fisher–Yates, drawn.
        for i in (1..m2m.len()).rev() {
            let j = u.int_in_range(0..=i)?;
            m2m.swap(i, j);
        }
        let mut layout = Layout::try_new(&m2m).map_err(|_| arbitrary_stop())?;
        let levels = u.int_in_range(0..=3usize)?;
        let mut tiles: Vec<Vec<i64>> = Vec::new();
        for _ in 0..levels {
            let len = u.int_in_range(1..=rank.max(1) + 1)?;
            let mut tile = Vec::new();
            for _ in 0..len {
                tile.push(match u.int_in_range(0..=9u8)? {
                    0 => COMBINE,
                    1 => u.int_in_range(1..=300)?,
                    2 => 128,
                    3 => 8,
                    _ => *u.choose(&[1, 2, 3, 4, 16, 32])?,
                });
            }
            tiles.push(tile);
        }
        let refs: Vec<&[i64]> = tiles.iter().map(Vec::as_slice).collect();
        layout = layout.try_with_tiles(&refs).map_err(|_| arbitrary_stop())?;
        if u.ratio(1, 4)? {
            let bits = match u.int_in_range(0..=3u8)? {
                0 => u.int_in_range(1..=200)?,
                1 => 2,
                2 => 4,
                _ => 8 * u.int_in_range(1..=16)?,
            };
            layout = layout.with_element_size_in_bits(bits);
        }
        if u.ratio(1, 6)? {
            layout = layout.with_tail_padding_alignment(u.int_in_range(1..=1024)?);
        }
        layout
    };
    let shape = shape.with_layout(layout);
    if validate_array(&shape).is_err() {
        return Ok(None);
    }
    let Ok(tiled) = shape.tiled() else {
        return Ok(None);
    };
    let small = tiled.physical_slots() <= MAX_SLOTS
        && tiled.element_count() <= MAX_ELEMENTS
        && tiled.total_bits().is_some_and(|b| b <= MAX_BITS);
    Ok(small.then_some(tiled))
}

/// Every logical index, row-major, with its slot in `t`.
fn indices(t: &TiledShape) -> Vec<Vec<u64>> {
    let dims = t.logical_dims();
    if dims.contains(&0) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut index = vec![0u64; dims.len()];
    loop {
        out.push(index.clone());
        let mut d = dims.len();
        loop {
            if d == 0 {
                return out;
            }
            d -= 1;
            index[d] += 1;
            if index[d] < dims[d] {
                break;
            }
            index[d] = 0;
        }
    }
}

/// A slot value: `k` in as many bytes as fit.
trait Slot: Copy + PartialEq + std::fmt::Debug {
    fn of(k: u64) -> Self;
}

macro_rules! slot {
    ($($t:ty),*) => {$(
        impl Slot for $t {
            fn of(k: u64) -> $t {
                k as $t
            }
        }
    )*};
}
slot!(u8, u16, u32, u64, u128);

/// `Relayout::copy` with slots of `T`: element `k` (row-major) is
/// `k + 1`, source padding 0, the pad value all ones, the destination's
/// guard `0x5A…`. Every plan writes the same slots: the reference.
fn slots<T: Slot>(plans: &[Relayout], p: &Pair<'_>, misalign: usize) {
    let (src, dst) = (p.src, p.dst);
    let value = |k: usize| T::of(k as u64 + 1);
    let pad = T::of(u64::MAX);
    let guard = T::of(0x5A5A_5A5A_5A5A_5A5A);
    let mut from = vec![T::of(0); src.physical_slots() as usize];
    for (k, &s) in p.src_slots.iter().enumerate() {
        from[s as usize] = value(k);
    }
    let n = dst.physical_slots() as usize;
    // The reference: the pad value, then each element at its offset.
    let mut want = vec![guard; misalign + n + GUARD];
    want[misalign..misalign + n].fill(pad);
    let mut held = vec![false; n];
    for (k, &d) in p.dst_slots.iter().enumerate() {
        assert!(!held[d as usize], "{dst:?}: two elements at slot {d}");
        held[d as usize] = true;
        want[misalign + d as usize] = value(k);
    }
    if let Some(s) = held.iter().position(|&h| !h) {
        // A slot that holds no element: the layout says so too.
        assert!(
            dst.logical_index(s as u64).unwrap().is_none(),
            "{dst:?}: slot {s}"
        );
    }
    for plan in plans {
        let mut buffer = vec![guard; misalign + n + GUARD];
        plan.copy(&from, &mut buffer[misalign..], pad).unwrap();
        if buffer != want {
            let at = buffer.iter().zip(&want).position(|(a, b)| a != b).unwrap();
            panic!(
                "{src:?} → {dst:?} ({plan:?}): slot {} is {:?}, not {:?}",
                at as isize - misalign as isize,
                buffer[at],
                want[at]
            );
        }
    }
    // Too short: an error, nothing written.
    if n > 0 {
        let mut short = vec![guard; n - 1];
        assert!(plans[0].copy(&from, &mut short, pad).is_err());
        assert!(short.iter().all(|&g| g == guard));
    }
}

fn bit(bytes: &[u8], b: u64) -> bool {
    (bytes[(b / 8) as usize] >> (b % 8)) & 1 == 1
}

fn set_bit(bytes: &mut [u8], b: u64, v: bool) {
    let (i, m) = ((b / 8) as usize, 1u8 << (b % 8));
    if v {
        bytes[i] |= m;
    } else {
        bytes[i] &= !m;
    }
}

/// `Relayout::copy_bytes`, random source bytes. The reference: each
/// destination slot holds the source slot's bits (equal widths) or its
/// value, sign- or zero-extended (different widths); every other bit is
/// the pad byte's; nothing past the layout's bytes is written.
fn bytes(plans: &[Relayout], p: &Pair<'_>, data: &[u8], pad: u8) {
    let (src, dst) = (p.src, p.dst);
    let mut rng = Sampler::new(data);
    let from: Vec<u8> = (0..src.exact_bytes())
        .map(|_| rng.next_u64() as u8)
        .collect();
    let n = dst.exact_bytes() as usize;
    let guard = 0xA5u8;
    let (sb, db) = (src.element_bits(), dst.element_bits());
    let ty = src.element_type();
    let natural = u64::from(ty.bit_width().unwrap_or(128));
    let width = sb.min(natural);
    let signed = ty.is_signed_integral();
    let mut want = vec![pad; n];
    want.resize(n + GUARD, guard);
    // Source slots whose value the destination's narrower slots cannot
    // hold (bits at and above `db` that a value needs: for a signed type,
    // any that differs from bit `db - 1`; otherwise any that is set).
    let mut cut = Vec::new();
    for (&s, &d) in p.src_slots.iter().zip(p.dst_slots) {
        if sb != db && db < width {
            let at = s * sb;
            // A slot has at least one bit (`E(n)` is positive).
            let lost = match signed {
                true => (db..width).any(|k| bit(&from, at + k) != bit(&from, at + db - 1)),
                false => (db..width).any(|k| bit(&from, at + k)),
            };
            if lost {
                cut.push(s);
            }
        }
        if sb == db && sb % 8 == 0 {
            // Whole bytes: the slot's bytes.
            let (s, d, w) = (
                (s * sb / 8) as usize,
                (d * db / 8) as usize,
                (sb / 8) as usize,
            );
            want[d..d + w].copy_from_slice(&from[s..s + w]);
            continue;
        }
        let (s, d) = (s * sb, d * db);
        // The value's own bits: the slot's low `width`, sign-extended to
        // the type's width for a signed type; zeros above the type's width.
        let sign = signed && width > 0 && bit(&from, s + width - 1);
        for k in 0..db {
            let v = if sb == db || k < width {
                bit(&from, s + k)
            } else if k < natural {
                sign
            } else {
                false
            };
            set_bit(&mut want, d + k, v);
        }
    }
    for plan in plans {
        let mut buffer = vec![guard; n + GUARD];
        let result = plan.copy_bytes(&from, &mut buffer, pad);
        if !cut.is_empty() {
            // Refused, naming one of them, and nothing written.
            match result {
                Err(RelayoutError::ValueDoesNotFit { slot, element_bits }) => {
                    assert!(cut.contains(&slot), "{src:?} → {dst:?}: slot {slot} fits");
                    assert_eq!(element_bits, db);
                }
                other => panic!("{src:?} → {dst:?}: {other:?}, though slots {cut:?} do not fit"),
            }
            assert!(buffer.iter().all(|&b| b == guard), "written though refused");
            continue;
        }
        result.unwrap();
        if buffer != want {
            let at = buffer.iter().zip(&want).position(|(a, b)| a != b).unwrap();
            panic!(
                "{src:?} → {dst:?} ({plan:?}, {ty:?}, {sb} → {db} bits): byte {at} of {n} is {:#04x}, not {:#04x}",
                buffer[at], want[at]
            );
        }
    }
}
