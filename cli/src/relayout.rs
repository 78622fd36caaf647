//! `xla-layout relayout 'SRC' 'DST' [--pad BYTE]`: raw little-endian bytes
//! in the source layout on stdin, the same array in the destination layout
//! on stdout. Where both layouts cut into the same contiguous slabs (the
//! host ↔ TPU formats do, by rows of tiles) it streams slab by slab, so
//! memory stays at two slabs whatever the array's size.

use std::io::{Read, Write};

use xla_layout_core::{ArrayShape, ElementType, Relayout, TiledShape};

use crate::{Failure, array_argument};

/// Parses `args` (after `relayout`) and runs.
pub fn main(args: &[String], input: impl Read, output: impl Write) -> Result<(), Failure> {
    let usage =
        || Failure::Input("usage: xla-layout relayout 'SRC_SHAPE' 'DST_SHAPE' [--pad BYTE]".into());
    let (src, dst, pad) = match args {
        [src, dst] => (src, dst, 0u8),
        [src, dst, flag, byte] if flag == "--pad" => {
            let pad = parse_byte(byte).ok_or_else(|| {
                Failure::Input(format!(
                    "--pad takes a byte (0-255 or 0x00-0xff), not '{byte}'"
                ))
            })?;
            (src, dst, pad)
        }
        _ => return Err(usage()),
    };
    run(
        &array_argument(src)?,
        &array_argument(dst)?,
        pad,
        input,
        output,
    )
}

fn parse_byte(text: &str) -> Option<u8> {
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u8::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

/// Slabs of at least this many bytes are streamed one at a time.
const SLAB_BYTES: usize = 4 << 20;

/// Relayouts one array from `input` to `output`: slab by slab when the
/// array splits into slabs that are contiguous in both layouts (see
/// [`Slabs`]), else as a whole.
pub fn run(
    src: &ArrayShape,
    dst: &ArrayShape,
    pad: u8,
    input: impl Read,
    output: impl Write,
) -> Result<(), Failure> {
    run_in_slabs_of(src, dst, pad, input, output, SLAB_BYTES)
}

/// [`run`] with slabs of at least `slab_bytes` (tests use small ones).
pub fn run_in_slabs_of(
    src: &ArrayShape,
    dst: &ArrayShape,
    pad: u8,
    mut input: impl Read,
    mut output: impl Write,
    slab_bytes: usize,
) -> Result<(), Failure> {
    if !src.same_logical_shape(dst) {
        return Err(Failure::Input(format!(
            "'{src}' and '{dst}' are not the same array: element type and dimensions must match"
        )));
    }
    let tiled = |s: &ArrayShape| s.tiled().map_err(|e| Failure::Input(format!("'{s}': {e}")));
    let (from, to) = (tiled(src)?, tiled(dst)?);
    let need = usize::try_from(from.exact_bytes())
        .map_err(|_| Failure::Input(format!("'{src}' is too large")))?;
    let ty = src.element_type();
    let short = |got: usize| {
        Failure::Input(format!(
            "'{src}' takes {need} bytes but the input has {got}"
        ))
    };
    let slabs =
        Slabs::find(src, dst, &from, &to, slab_bytes).unwrap_or(Slabs { count: 1, from, to });
    // Every slab has the same layouts: one plan serves them all.
    let plan = Relayout::new(&slabs.from, &slabs.to).map_err(|e| Failure::Input(e.to_string()))?;
    let src_bytes = slabs.from.exact_bytes() as usize;
    let mut bytes = vec![0; src_bytes];
    let mut out = Vec::new();
    for k in 0..slabs.count {
        let got = read_full(&mut input, &mut bytes)?;
        if got < src_bytes {
            return Err(short(k * src_bytes + got));
        }
        relayout_into(&plan, &slabs.from, &slabs.to, ty, &bytes, pad, &mut out)?;
        output.write_all(&out)?;
    }
    if input.read(&mut [0])? != 0 {
        return Err(Failure::Input(format!(
            "'{src}' takes {need} bytes but the input has more than {need}"
        )));
    }
    output.flush()?;
    Ok(())
}

/// Reads until `buf` is full or the input ends; how many bytes came.
fn read_full(input: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match input.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// The array cut along its most-major dimension into `count` equal
/// slabs, each a contiguous run of bytes in both layouts, in order: slab
/// `k` of the source becomes slab `k` of the destination, so the copy can
/// stream with one slab in memory. `from` and `to` are one slab's layouts.
struct Slabs {
    count: usize,
    from: TiledShape,
    to: TiledShape,
}

impl Slabs {
    /// The thinnest slabs of at least `min_bytes` (on either side), if the
    /// layouts allow any: the same most-major dimension, whole-byte
    /// elements of one width, and slab boundaries that fall on tile
    /// boundaries of every level — checked by asking both layouts where
    /// the second slab starts and where it ends.
    fn find(
        src: &ArrayShape,
        dst: &ArrayShape,
        from: &TiledShape,
        to: &TiledShape,
        min_bytes: usize,
    ) -> Option<Slabs> {
        let major = |s: &ArrayShape| s.layout_or_default().minor_to_major().last().copied();
        let d0 = usize::try_from(major(src)?).ok()?;
        if major(dst)? != d0 as i64 {
            return None;
        }
        let bits = from.element_bits();
        if bits != to.element_bits() || !bits.is_multiple_of(8) {
            return None;
        }
        let dims = src.dims();
        let n = u64::try_from(dims[d0]).ok()?;
        let row_bytes = (from.exact_bytes().max(to.exact_bytes()) / n.max(1)).max(1);
        let first = (min_bytes as u64).div_ceil(row_bytes).max(1);
        // A bounded search: past it the array is copied whole.
        (first..n.min(first.saturating_mul(64)))
            .filter(|m| n.is_multiple_of(*m))
            .find_map(|m| Self::of_height(src, dst, from, to, d0, m))
    }

    /// Slabs `m` high along `d0`, if they are contiguous in both layouts.
    fn of_height(
        src: &ArrayShape,
        dst: &ArrayShape,
        from: &TiledShape,
        to: &TiledShape,
        d0: usize,
        m: u64,
    ) -> Option<Slabs> {
        let n = src.dims()[d0] as u64;
        let slab = |s: &ArrayShape| {
            let mut dims = s.dims().to_vec();
            dims[d0] = m as i64;
            ArrayShape::try_new(s.element_type(), &dims)
                .ok()?
                .with_layout(s.layout_or_default())
                .tiled()
                .ok()
        };
        let (slab_from, slab_to) = (slab(src)?, slab(dst)?);
        let last: Vec<u64> = from.logical_dims().iter().map(|&d| d - 1).collect();
        let fits = |full: &TiledShape, part: &TiledShape| {
            let slots = part.physical_slots();
            // Slab 1 starts right after slab 0 and ends where its copy
            // of slab 0's last element does, and the slabs fill the array.
            let mut start = vec![0; last.len()];
            start[d0] = m;
            let mut end = last.clone();
            end[d0] = 2 * m - 1;
            let mut end_in_slab = last.clone();
            end_in_slab[d0] = m - 1;
            full.offset(&start) == Ok(slots)
                && full.offset(&end).ok() == part.offset(&end_in_slab).ok().map(|o| o + slots)
                && slots.checked_mul(n / m) == Some(full.physical_slots())
                && part.exact_bytes().checked_mul(n / m) == Some(full.exact_bytes())
        };
        if !(fits(from, &slab_from) && fits(to, &slab_to)) {
            return None;
        }
        Some(Slabs {
            count: usize::try_from(n / m).ok()?,
            from: slab_from,
            to: slab_to,
        })
    }
}

/// Writes into `out` (resized) the destination bytes for `bytes` in the
/// source layout, by `plan` (from `from` to `to`).
pub fn relayout_into(
    plan: &Relayout,
    from: &TiledShape,
    to: &TiledShape,
    ty: ElementType,
    bytes: &[u8],
    pad: u8,
    out: &mut Vec<u8>,
) -> Result<(), Failure> {
    let size = usize::try_from(to.exact_bytes())
        .map_err(|_| Failure::Input("the destination is too large".into()))?;
    out.clear();
    out.resize(size, pad);
    let (sb, db) = (from.element_bits(), to.element_bits());
    let fail = |e: xla_layout_core::RelayoutError| Failure::Input(e.to_string());
    // Whole-byte elements of one width move as units of that width.
    match (sb == db, sb) {
        (true, 8) => plan.copy(bytes, out, pad).map_err(fail)?,
        (true, 16) => copy_units::<2>(plan, bytes, out, pad)?,
        (true, 32) => copy_units::<4>(plan, bytes, out, pad)?,
        (true, 64) => copy_units::<8>(plan, bytes, out, pad)?,
        (true, 128) => copy_units::<16>(plan, bytes, out, pad)?,
        // Packed or differently stored elements: bit by bit.
        _ => copy_bits(plan, from, to, ty, bytes, out),
    }
    Ok(())
}

fn copy_units<const W: usize>(
    plan: &Relayout,
    bytes: &[u8],
    out: &mut [u8],
    pad: u8,
) -> Result<(), Failure> {
    let (src, _) = bytes.as_chunks::<W>();
    let (dst, _) = out.as_chunks_mut::<W>();
    plan.copy(src, dst, [pad; W])
        .map_err(|e| Failure::Input(e.to_string()))
}

/// Moves each element's value between storage widths: sign-extended for
/// signed types, LSB-first packing on both sides; padding keeps the pad
/// byte.
fn copy_bits(
    plan: &Relayout,
    from: &TiledShape,
    to: &TiledShape,
    ty: ElementType,
    bytes: &[u8],
    out: &mut [u8],
) {
    let (sb, db) = (from.element_bits() as usize, to.element_bits() as usize);
    // The bit that carries the sign when a signed value is widened.
    let sign = ty
        .is_signed_integral()
        .then(|| ty.bit_width().map_or(sb, |w| (w as usize).min(sb)));
    plan.for_each_pair(|s, d| {
        let mut value = read_bits(bytes, s as usize * sb, sb);
        if let Some(bits) = sign
            && bits > 0
            && (value >> (bits - 1)) & 1 == 1
        {
            value |= u128::MAX << bits;
        }
        write_bits(out, d as usize * db, db, value);
    });
}

fn read_bits(bytes: &[u8], bit: usize, width: usize) -> u128 {
    (0..width).fold(0u128, |v, k| {
        v | (u128::from((bytes[(bit + k) / 8] >> ((bit + k) % 8)) & 1) << k)
    })
}

fn write_bits(bytes: &mut [u8], bit: usize, width: usize, value: u128) {
    for k in 0..width {
        let (byte, shift) = ((bit + k) / 8, (bit + k) % 8);
        let b = ((value >> k) & 1) as u8;
        bytes[byte] = (bytes[byte] & !(1 << shift)) | (b << shift);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn array(text: &str) -> ArrayShape {
        crate::array_argument(text).unwrap()
    }

    /// Bytes that differ from slot to slot (a hash, so neighbouring
    /// elements of every width differ).
    fn input_for(shape: &ArrayShape) -> Vec<u8> {
        let n = shape.tiled().unwrap().exact_bytes();
        (0..n)
            .map(|k| (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as u8)
            .collect()
    }

    fn find(src: &ArrayShape, dst: &ArrayShape, min_bytes: usize) -> Option<Slabs> {
        let (from, to) = (src.tiled().unwrap(), dst.tiled().unwrap());
        Slabs::find(src, dst, &from, &to, min_bytes)
    }

    fn relayout(src: &str, dst: &str, input: &[u8], slab_bytes: usize) -> Result<Vec<u8>, Failure> {
        let mut out = Vec::new();
        run_in_slabs_of(&array(src), &array(dst), 0xAB, input, &mut out, slab_bytes)?;
        Ok(out)
    }

    /// Streaming slab by slab writes exactly what the whole-array copy
    /// writes, for slabs from one tile row up; and the layouts that should
    /// cut into slabs do (so the comparison is not vacuous).
    #[test]
    fn slabs_write_what_the_whole_copy_writes() {
        let cases = [
            ("bf16[64,256]{1,0}", "bf16[64,256]{1,0:T(8,128)(2,1)}", true),
            ("bf16[64,256]{1,0:T(8,128)(2,1)}", "bf16[64,256]{1,0}", true),
            ("s8[64,200]{1,0}", "s8[64,200]{1,0:T(8,128)(4,1)}", true),
            ("f32[4,24,40]{2,1,0}", "f32[4,24,40]{2,1,0:T(8,128)}", true),
            ("f32[24,4,40]{2,1,0}", "f32[24,4,40]{1,2,0:T(2,8)}", true),
            ("u8[96,4]{1,0:T(32,4)}", "u8[96,4]{1,0:T(4,4)}", true),
            // A transpose has no common slabs; a dimension that tiles
            // unevenly has none that fall on tile boundaries.
            ("f32[32,32]{1,0}", "f32[32,32]{0,1}", false),
            (
                "bf16[20,256]{1,0}",
                "bf16[20,256]{1,0:T(8,128)(2,1)}",
                false,
            ),
            // Packed elements go bit by bit, as a whole.
            ("s4[16,16]{1,0:E(4)}", "s4[16,16]{1,0}", false),
        ];
        for (src, dst, cuts) in cases {
            assert_eq!(
                find(&array(src), &array(dst), 1).is_some(),
                cuts,
                "{src} -> {dst}"
            );
            let input = input_for(&array(src));
            let whole = relayout(src, dst, &input, usize::MAX).unwrap();
            for slab_bytes in [1, 100, 1000, 5000] {
                let slabbed = relayout(src, dst, &input, slab_bytes).unwrap();
                assert!(
                    slabbed == whole,
                    "{src} -> {dst} in slabs of {slab_bytes}+ bytes"
                );
            }
        }
    }

    /// The slabs found are as thin as allowed: one tile row here.
    #[test]
    fn slabs_are_the_thinnest_that_hold_enough_bytes() {
        let (src, dst) = (
            array("bf16[64,256]{1,0}"),
            array("bf16[64,256]{1,0:T(8,128)(2,1)}"),
        );
        let slabs = find(&src, &dst, 1).unwrap();
        assert_eq!((slabs.count, slabs.from.exact_bytes()), (8, 8 * 256 * 2));
        // At least 5000 bytes: 10 rows is not a multiple of 8, 16 is.
        let slabs = find(&src, &dst, 5000).unwrap();
        assert_eq!((slabs.count, slabs.to.exact_bytes()), (4, 16 * 256 * 2));
    }

    /// A short or long input is reported with the array's byte count,
    /// also when it ends partway through a later slab.
    #[test]
    fn slabbed_inputs_of_the_wrong_size_are_refused() {
        let (src, dst) = ("bf16[64,256]{1,0}", "bf16[64,256]{1,0:T(8,128)(2,1)}");
        let input = input_for(&array(src));
        let message = |r: Result<Vec<u8>, Failure>| match r {
            Err(Failure::Input(m)) => m,
            other => panic!("expected an input error, got {:?}", other.map(|v| v.len())),
        };
        assert_eq!(
            message(relayout(src, dst, &input[..10_000], 1)),
            format!("'{src}' takes 32768 bytes but the input has 10000")
        );
        let mut long = input.clone();
        long.push(0);
        assert_eq!(
            message(relayout(src, dst, &long, 1)),
            format!("'{src}' takes 32768 bytes but the input has more than 32768")
        );
    }
}
