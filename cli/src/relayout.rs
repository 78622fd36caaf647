//! `xla-layout relayout 'SRC' 'DST' [--pad BYTE]`: raw little-endian bytes
//! in the source layout on stdin, the same array in the destination layout
//! on stdout.

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

/// Relayouts one array from `input` to `output`.
pub fn run(
    src: &ArrayShape,
    dst: &ArrayShape,
    pad: u8,
    mut input: impl Read,
    mut output: impl Write,
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
    let mut bytes = Vec::with_capacity(need);
    input
        .by_ref()
        .take(need as u64 + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() != need {
        let got = if bytes.len() > need {
            format!("more than {need}")
        } else {
            bytes.len().to_string()
        };
        return Err(Failure::Input(format!(
            "'{src}' takes {need} bytes but the input has {got}"
        )));
    }
    let out = relayout_bytes(&from, &to, src.element_type(), &bytes, pad)?;
    output.write_all(&out)?;
    output.flush()?;
    Ok(())
}

/// The destination bytes for `bytes` in the source layout.
pub fn relayout_bytes(
    from: &TiledShape,
    to: &TiledShape,
    ty: ElementType,
    bytes: &[u8],
    pad: u8,
) -> Result<Vec<u8>, Failure> {
    let plan = Relayout::new(from, to).map_err(|e| Failure::Input(e.to_string()))?;
    let size = usize::try_from(to.exact_bytes())
        .map_err(|_| Failure::Input("the destination is too large".into()))?;
    let mut out = vec![pad; size];
    let (sb, db) = (from.element_bits(), to.element_bits());
    let fail = |e: xla_layout_core::RelayoutError| Failure::Input(e.to_string());
    // Whole-byte elements of one width move as units of that width.
    match (sb == db, sb) {
        (true, 8) => plan.copy(bytes, &mut out, pad).map_err(fail)?,
        (true, 16) => copy_units::<2>(&plan, bytes, &mut out, pad)?,
        (true, 32) => copy_units::<4>(&plan, bytes, &mut out, pad)?,
        (true, 64) => copy_units::<8>(&plan, bytes, &mut out, pad)?,
        (true, 128) => copy_units::<16>(&plan, bytes, &mut out, pad)?,
        // Packed or differently stored elements: bit by bit.
        _ => copy_bits(&plan, from, to, ty, bytes, &mut out),
    }
    Ok(out)
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
