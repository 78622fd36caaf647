//! `xla-layout relayout 'SRC' 'DST' [--pad BYTE]`: raw little-endian bytes
//! in the source layout on stdin, the same array in the destination layout
//! on stdout. Where both layouts cut into the same contiguous slabs (the
//! host ↔ TPU formats do, by rows of tiles) it streams slab by slab, so
//! memory stays at two slabs whatever the array's size.

use std::io::{Read, Write};

use xla_layout_core::{ArrayShape, Relayout, RelayoutError, Slabs, TiledShape, bits};

use crate::common::{Failure, array_argument, bytes, stdin_failed};

/// Copy a raw array from one layout to another: stdin to stdout.
///
/// The input is the array's exact bytes in layout SRC (little-endian,
/// packed elements from the least significant bit); the output is the
/// same array in layout DST, its padding bytes set to BYTE. A wrong input
/// size is an error; when the copy streams slab by slab, output already
/// written before it was seen is reported.
///
/// A sub-byte type or pred stored wider than its bits (s4[...]{...} without
/// E(4), pred one per byte) is its low bits, as XLA reads it: a byte 0x7f
/// is the s4 value -1, a pred byte 2 is false. Slots of the same width are
/// copied as they are (high bits included); slots of another width get
/// each value's bits, zero above them. A value that DST's narrower slots
/// (E(n)) cannot hold is an error. M(n) layouts are refused: the n bytes
/// of sizes before the data are not modelled.
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// The layout of the bytes on stdin, e.g. 'bf16[64,256]{1,0}' (also tpu(SHAPE) or SHAPE Layout(major_to_minor=...))
    #[arg(value_name = "SRC")]
    pub src: String,
    /// The layout to write on stdout, e.g. 'bf16[64,256]{1,0:T(8,128)(2,1)}' or 'tpu(bf16[64,256])'
    #[arg(value_name = "DST")]
    pub dst: String,
    /// The byte written to DST's padding: 0-255 or 0x00-0xff
    #[arg(long, value_name = "BYTE", default_value = "0", value_parser = parse_byte)]
    pub pad: u8,
}

/// Runs `relayout` with `args`.
pub fn main(
    args: &Args,
    input: impl Read,
    output: impl Write,
    input_len: Option<u64>,
) -> Result<(), Failure> {
    run(
        &array_argument(&args.src)?,
        &array_argument(&args.dst)?,
        args.pad,
        input,
        output,
        input_len,
    )
}

/// `--pad`'s value.
fn parse_byte(text: &str) -> Result<u8, String> {
    let byte = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u8::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    };
    byte.ok_or_else(|| "--pad takes a byte (0-255 or 0x00-0xff)".to_string())
}

/// Slabs of at least this many bytes are streamed one at a time.
const SLAB_BYTES: u64 = 4 << 20;

/// Relayouts one array from `input` to `output`: slab by slab when the
/// array splits into slabs that are contiguous in both layouts (see
/// [`Slabs`]), else as a whole. `input_len`, when known (stdin is a
/// file), is checked before anything is read or written.
pub fn run(
    src: &ArrayShape,
    dst: &ArrayShape,
    pad: u8,
    input: impl Read,
    output: impl Write,
    input_len: Option<u64>,
) -> Result<(), Failure> {
    run_in_slabs_of(src, dst, pad, input, output, input_len, SLAB_BYTES)
}

/// [`run`] with slabs of at least `slab_bytes` (tests use small ones).
///
/// What is written when the input has the wrong size: nothing, when the
/// size is known beforehand or the array is copied whole (the input is
/// read to its end before the first byte goes out); when it streams in
/// slabs, the slabs before the one the input ended in (or, for a long
/// input, every slab but the last), and the error says how many bytes.
pub fn run_in_slabs_of(
    src: &ArrayShape,
    dst: &ArrayShape,
    pad: u8,
    mut input: impl Read,
    mut output: impl Write,
    input_len: Option<u64>,
    slab_bytes: u64,
) -> Result<(), Failure> {
    // The stream is the array's bytes; `M(n)` puts n bytes of sizes
    // before them, which nothing here reads or writes.
    for (which, s) in [("SRC", src), ("DST", dst)] {
        let m = s
            .layout()
            .map_or(0, |l| l.dynamic_shape_metadata_prefix_bytes());
        if m > 0 {
            return Err(Failure::Input(format!(
                "{which} '{s}' has M({m}): relayout reads and writes the array's bytes only, \
                 not the {m} bytes of dynamic-shape sizes before them; give the layout without M"
            )));
        }
    }
    if !src.same_logical_shape(dst) {
        return Err(Failure::Input(format!(
            "'{src}' and '{dst}' are not the same array: element type and dimensions must match"
        )));
    }
    let tiled = |s: &ArrayShape| s.tiled().map_err(|e| Failure::Input(format!("'{s}': {e}")));
    let (from, to) = (tiled(src)?, tiled(dst)?);
    let need = from.exact_bytes();
    // `got` past `need` is read as "more than": a stream is read one byte
    // past the array, no further; a file's length is known exactly.
    let wrong_size_of = |got: u64, exact: bool, written: u64| {
        let had = if got > need && !exact {
            format!("more than {need}")
        } else {
            got.to_string()
        };
        let mut m = format!("'{src}' takes {} but the input has {had}", bytes(need));
        if written > 0 {
            m.push_str(&format!(
                "; the first {} of the output were written before that was seen",
                bytes(written)
            ));
        }
        Failure::Input(m)
    };
    let wrong_size = |got: u64, written: u64| wrong_size_of(got, false, written);
    if let Some(len) = input_len
        && len != need
    {
        return Err(wrong_size_of(len, true, 0));
    }
    let slabs = Slabs::find(src, dst, slab_bytes).filter(|s| s.count > 1);
    let Some(slabs) = slabs else {
        // One piece: the whole input is read (and its size checked)
        // before anything is allocated for the output or written.
        let plan = plan(&from, &to)?;
        let bytes = read_exactly(&mut input, need, |got| wrong_size(got, 0))?;
        let out = relayout(&plan, (to.exact_bytes(), &from), &bytes, pad)?;
        output.write_all(&out)?;
        return Ok(output.flush()?);
    };
    // Every slab has the same layouts: one plan serves them all.
    let plan = plan(&slabs.from, &slabs.to)?;
    let (slab_in, slab_out) = (slabs.from.exact_bytes(), slabs.to.exact_bytes());
    // One input and one output buffer for every slab: a slab is small
    // enough to stay in the cache between the read, the relayout and the
    // write (a new allocation per slab would fault its pages in again).
    // The first slab's input grows as it arrives, and the output is
    // allocated once it is all there: a slab can be large (one row of
    // tiles of a wide array), and a short input must cost no more memory
    // than it holds.
    let mut bytes = read_up_to(&mut input, slab_in)?;
    let mut out = Vec::new();
    let mut written = 0u64;
    for k in 0..slabs.count {
        let got = match k {
            0 => bytes.len(),
            _ => fill(&mut input, &mut bytes).map_err(stdin_failed)?,
        };
        if got as u64 != slab_in {
            return Err(wrong_size(k * slab_in + got as u64, written));
        }
        if k == 0 {
            reserve(&mut out, slab_out, "the output")?;
            // Reserved: it fits.
            out.resize(slab_out as usize, 0);
        }
        // A long input is refused before the last slab goes out.
        if k + 1 == slabs.count && fill(&mut input, &mut [0]).map_err(stdin_failed)? != 0 {
            return Err(wrong_size(need + 1, written));
        }
        plan.copy_bytes(&bytes, &mut out, pad).map_err(|e| {
            let mut m = copy_failure(e, (&bytes, &slabs.from), k * slab_in);
            if written > 0 {
                m.push_str(&format!(
                    "; the first {} of the output were written before that was seen",
                    crate::common::bytes(written)
                ));
            }
            Failure::Input(m)
        })?;
        output.write_all(&out)?;
        written += slab_out;
    }
    Ok(output.flush()?)
}

/// Reads into `buf` until it is full or the input ends: how many bytes.
fn fill(input: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
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

/// Reads exactly `need` bytes, growing the buffer as they arrive (so a
/// short input costs no allocation of the full size), and checks that
/// the input ends there; `wrong_size(got)` words the failure, `got` being
/// `need + 1` for a longer input.
fn read_exactly(
    input: &mut impl Read,
    need: u64,
    wrong_size: impl Fn(u64) -> Failure,
) -> Result<Vec<u8>, Failure> {
    let bytes = read_up_to(input, need.saturating_add(1))?;
    if bytes.len() as u64 != need {
        return Err(wrong_size(bytes.len() as u64));
    }
    Ok(bytes)
}

/// Reads up to `limit` bytes (fewer if the input ends first), growing the
/// buffer as they arrive: memory follows what was read, not `limit`.
fn read_up_to(input: &mut impl Read, limit: u64) -> Result<Vec<u8>, Failure> {
    let mut bytes = Vec::new();
    let mut got = 0u64;
    loop {
        if bytes.len() == bytes.capacity() {
            let more = (bytes.len() as u64)
                .clamp(1 << 16, 1 << 30)
                .min(limit - got);
            reserve(&mut bytes, more, "the input")?;
        }
        let spare = bytes.capacity() - bytes.len();
        let room = spare.min(usize::try_from(limit - got).unwrap_or(usize::MAX));
        let start = bytes.len();
        bytes.resize(start + room, 0);
        let n = loop {
            match input.read(&mut bytes[start..]) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                other => break other.map_err(stdin_failed)?,
            }
        };
        bytes.truncate(start + n);
        got += n as u64;
        if n == 0 || got == limit {
            break;
        }
    }
    Ok(bytes)
}

/// Grows `v` by `more` bytes or says what could not be allocated.
fn reserve(v: &mut Vec<u8>, more: u64, what: &str) -> Result<(), Failure> {
    usize::try_from(more)
        .ok()
        .and_then(|m| v.try_reserve_exact(m).ok())
        .ok_or_else(|| {
            Failure::Input(format!(
                "cannot allocate {} bytes for {what}",
                v.len() as u64 + more
            ))
        })
}

/// The plan from `from` to `to`.
fn plan(from: &TiledShape, to: &TiledShape) -> Result<Relayout, Failure> {
    Relayout::new(from, to).map_err(|e| Failure::Input(e.to_string()))
}

/// The destination bytes (`size` of them) for `bytes` in the source
/// layout `from`.
fn relayout(
    plan: &Relayout,
    (size, from): (u64, &TiledShape),
    bytes: &[u8],
    pad: u8,
) -> Result<Vec<u8>, Failure> {
    let mut out = Vec::new();
    reserve(&mut out, size, "the output")?;
    out.resize(size as usize, 0); // reserved: it fits
    plan.copy_bytes(bytes, &mut out, pad)
        .map_err(|e| Failure::Input(copy_failure(e, (bytes, from), 0)))?;
    Ok(out)
}

/// Why a copy failed, for people: a value that does not fit is placed in
/// the whole input (the piece copied, `bytes`, starts at input byte
/// `base`; `from` is its layout), not in the piece, and named with what
/// it would read back as.
fn copy_failure(e: RelayoutError, (bytes, from): (&[u8], &TiledShape), base: u64) -> String {
    match e {
        RelayoutError::ValueDoesNotFit { slot, element_bits } => {
            let (src_bits, ty) = (from.element_bits(), from.element_type());
            // The piece is in memory: its bit positions fit.
            let bit = slot.saturating_mul(src_bits);
            let byte = base.saturating_add(bit / 8);
            let within = match src_bits % 8 {
                0 => String::new(),
                _ => format!(" (from its bit {})", bit % 8),
            };
            let value = bits::read_value(bytes, bit, src_bits, ty);
            let back = bits::read_value(&value.to_le_bytes(), 0, element_bits, ty);
            let show = |v: u128| match (ty.is_signed_integral(), ty.is_integral()) {
                (true, _) => (v as i128).to_string(),
                (false, true) => v.to_string(),
                // Floats by their bits: a slot narrower than the type
                // keeps the low ones.
                _ => format!("bits {v:#x}"),
            };
            format!(
                "the value at byte {byte}{within} of the input, {}, does not fit the destination's \
                 {element_bits}-bit slots: it would read back as {}",
                show(value),
                show(back)
            )
        }
        e => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn array(text: &str) -> ArrayShape {
        crate::common::array_argument(text).unwrap()
    }

    /// Bytes that differ from slot to slot (a hash, so neighbouring
    /// elements of every width differ).
    fn input_for(shape: &ArrayShape) -> Vec<u8> {
        let n = shape.tiled().unwrap().exact_bytes();
        (0..n)
            .map(|k| (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as u8)
            .collect()
    }

    fn find(src: &ArrayShape, dst: &ArrayShape, min_bytes: u64) -> Option<Slabs> {
        Slabs::find(src, dst, min_bytes)
    }

    fn relayout(src: &str, dst: &str, input: &[u8], slab_bytes: u64) -> Result<Vec<u8>, Failure> {
        let mut out = Vec::new();
        run_in_slabs_of(
            &array(src),
            &array(dst),
            0xAB,
            input,
            &mut out,
            None,
            slab_bytes,
        )?;
        Ok(out)
    }

    /// The input error of a copy from `src` to `dst` of `input` (its size
    /// `known` or not, slabs of at least `slab_bytes`), and how many bytes
    /// of output were written before it.
    fn refused(
        src: &str,
        dst: &str,
        input: &[u8],
        known: Option<u64>,
        slab_bytes: u64,
    ) -> (String, usize) {
        let mut out = Vec::new();
        let r = run_in_slabs_of(
            &array(src),
            &array(dst),
            0,
            input,
            &mut out,
            known,
            slab_bytes,
        );
        match r {
            Err(Failure::Input(m)) => (m, out.len()),
            other => panic!("expected an input error, got {other:?}"),
        }
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
            // Packed elements stream too, where slabs are whole bytes.
            ("s4[16,16]{1,0:E(4)}", "s4[16,16]{1,0}", true),
            ("s4[15,15]{1,0:E(4)}", "s4[15,15]{1,0}", false),
        ];
        for (src, dst, cuts) in cases {
            assert_eq!(
                find(&array(src), &array(dst), 1).is_some(),
                cuts,
                "{src} -> {dst}"
            );
            let input = input_for(&array(src));
            let whole = relayout(src, dst, &input, u64::MAX).unwrap();
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
    /// also when it ends partway through a later slab, with what was
    /// written before; copied whole, nothing is written.
    #[test]
    fn inputs_of_the_wrong_size_are_refused() {
        let run = |src, dst, input: &[u8], known| refused(src, dst, input, known, 1);
        let (src, dst) = ("bf16[64,256]{1,0}", "bf16[64,256]{1,0:T(8,128)(2,1)}");
        let input = input_for(&array(src));
        let mut long = input.clone();
        long.push(0);
        // Slabs of 8 rows, 4096 bytes each.
        assert_eq!(
            run(src, dst, &input[..10_000], None),
            (
                format!(
                    "'{src}' takes 32768 bytes but the input has 10000; the first 8192 bytes of the output were written before that was seen"
                ),
                8192
            )
        );
        assert_eq!(
            run(src, dst, &long, None),
            (
                format!(
                    "'{src}' takes 32768 bytes but the input has more than 32768; the first 28672 bytes of the output were written before that was seen"
                ),
                28672
            )
        );
        // A known input size is checked first: nothing is written.
        assert_eq!(
            run(src, dst, &input[..10_000], Some(10_000)),
            (
                format!("'{src}' takes 32768 bytes but the input has 10000"),
                0
            )
        );
        // Longer, and known: its exact length.
        assert_eq!(
            run(src, dst, &long, Some(32_769)),
            (
                format!("'{src}' takes 32768 bytes but the input has 32769"),
                0
            )
        );
        // Copied whole (a transpose): nothing is written either way.
        let (src, dst) = ("f32[32,32]{1,0}", "f32[32,32]{0,1}");
        let input = input_for(&array(src));
        let mut long = input.clone();
        long.push(0);
        assert_eq!(
            run(src, dst, &input[..4095], None),
            (
                format!("'{src}' takes 4096 bytes but the input has 4095"),
                0
            )
        );
        assert_eq!(
            run(src, dst, &long, None),
            (
                format!("'{src}' takes 4096 bytes but the input has more than 4096"),
                0
            )
        );
    }

    /// A value the destination's narrower slots cannot hold is refused,
    /// with where it is in the input and what was already written.
    #[test]
    fn a_value_that_does_not_fit_is_refused_where_it_is() {
        let (src, dst) = ("s4[64,128]{1,0:E(4)}", "s4[64,128]{1,0:E(2)}");
        // 1 and -1 fit 2 bits; one 7 in the second half does not.
        let mut input = vec![0xF1u8; 4096];
        input[3000] = 0x71;
        // Byte 3000's high nibble, placed in the whole input.
        let at = "the value at byte 3000 (from its bit 4) of the input, 7, does not fit the \
                  destination's 2-bit slots: it would read back as -1";
        let (m, written) = refused(src, dst, &input, None, 1024);
        assert!(written > 0 && written < 2048, "{written}");
        assert!(m.starts_with(at), "{m}");
        assert!(
            m.ends_with(&format!(
                "the first {written} bytes of the output were written before that was seen"
            )),
            "{m}"
        );
        // Copied whole (no slabs): placed the same way, nothing written.
        let (m, written) = refused(src, dst, &input, None, 1 << 20);
        assert_eq!(written, 0);
        assert!(m.starts_with(at), "{m}");
        // Whole bytes, signed and not: the value and what its low bits
        // would read back as.
        for (ty, byte, value, back) in [
            ("s8", 0x64, "100", "4"),
            ("s8", 0x9C, "-100", "-4"),
            ("u8", 0x9C, "156", "12"),
        ] {
            let src = format!("{ty}[4]{{0}}");
            let dst = format!("{ty}[4]{{0:E(4)}}");
            let (m, _) = refused(&src, &dst, &[1, 2, byte, 3], None, 1 << 20);
            assert_eq!(
                m,
                format!(
                    "the value at byte 2 of the input, {value}, does not fit the destination's \
                     4-bit slots: it would read back as {back}"
                )
            );
        }
        // All fitting: every value through, as 2-bit fields.
        input[3000] = 0xF1;
        let whole = relayout(src, dst, &input, 1024).unwrap();
        assert_eq!(whole, vec![0xDDu8; 2048]);
    }

    /// A huge array on an empty input fails on the size, before any
    /// allocation of the array's size.
    #[test]
    fn a_huge_array_on_a_short_input_allocates_nothing_large() {
        let (src, dst) = ("u8[1048576,1048576]{1,0}", "u8[1048576,1048576]{0,1}");
        let mut out = Vec::new();
        let r = run_in_slabs_of(
            &array(src),
            &array(dst),
            0,
            &[][..],
            &mut out,
            None,
            SLAB_BYTES,
        );
        match r {
            Err(Failure::Input(m)) => assert_eq!(
                m,
                format!("'{src}' takes 1099511627776 bytes but the input has 0")
            ),
            other => panic!("expected an input error, got {other:?}"),
        }
        assert!(out.is_empty());
    }

    /// A wide array in slabs (rows of tiles) on a short input: the size
    /// is refused before a slab's buffers are allocated. Each slab here
    /// is 2^50 bytes, which no allocation gets: allocating first fails on
    /// that ("cannot allocate"), not on the input's size.
    #[test]
    fn a_wide_array_on_a_short_input_allocates_no_slab() {
        let (src, dst) = (
            "bf16[16,70368744177664]{1,0}",
            "bf16[16,70368744177664]{1,0:T(8,128)(2,1)}",
        );
        let slabs = Slabs::find(&array(src), &array(dst), SLAB_BYTES).unwrap();
        assert_eq!((slabs.count, slabs.from.exact_bytes()), (2, 1 << 50));
        for input in [&[][..], &[0u8; 1000][..]] {
            let (m, written) = refused(src, dst, input, None, SLAB_BYTES);
            let n = input.len();
            assert_eq!(
                m,
                format!("'{src}' takes 2251799813685248 bytes but the input has {n}")
            );
            assert_eq!(written, 0);
        }
    }
}
