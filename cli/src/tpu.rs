//! `xla-layout tpu`: the layout a TPU gives a shape by default, and what
//! its padding costs (the rule is layout-core's `tpu` module).

use std::io::{BufRead, Write};

use serde_json::{Value, json};
use xla_layout_core::ArrayShape;
use xla_layout_core::tpu::{Generation, default_layout_for};

use crate::common::{Failure, Line, bytes};

/// The default TPU layout of a shape given without a layout.
///
/// With SHAPE: the layout, the tiled shape, the bytes, the padding and the
/// expansion over the data alone, for people. Without: one shape per stdin
/// line, one JSON object per line for scripts:
/// {"input", "shape", "bytes", "data_bytes", "padding_bytes", "expansion",
/// "metadata_bytes" (a dynamic array's sizes, which a TPU keeps in 1 KiB
/// in front of its data: part of "bytes", not of the padding)},
/// or {"input", "error" (XLA's words), "hint" (the mistake in words)} for a
/// line that is not a shape without a layout
/// (the other lines go on; with --strict the exit status is then 1).
/// Blank lines are skipped.
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// The shape, without a layout: 'bf16[3,1000]'
    pub shape: Option<String>,
    /// The TPU generation (v4, v5e, v5p and v6e give the same layouts)
    #[arg(long, value_name = "GEN", default_value = "v5e", value_parser = crate::common::generation)]
    pub generation: Generation,
    /// Reading lines: exit with status 1 when any line got an error
    /// object (the output is the same)
    #[arg(long)]
    pub strict: bool,
}

/// Runs `tpu`.
pub fn main(args: &Args, input: impl BufRead, mut output: impl Write) -> Result<(), Failure> {
    match &args.shape {
        Some(text) => {
            let sized = sized(text, args.generation).map_err(|e| Failure::Input(e.people))?;
            write_human(&mut output, &sized)?;
            Ok(output.flush()?)
        }
        None => {
            let mut counts = (0, 0);
            // Stdout closed early (`| head`): the lines read so far decide.
            let closed = crate::common::closed_early(json_lines(
                input,
                output,
                args.generation,
                &mut counts,
            ))?;
            let (errors, lines) = counts;
            if args.strict && errors > 0 {
                return Err(Failure::Input(format!(
                    "tpu --strict: {} have no default layout",
                    crate::common::of_lines(errors, lines, closed)
                )));
            }
            Ok(())
        }
    }
}

/// A shape with its default layout and sizes.
struct Sized {
    shape: ArrayShape,
    tiled_dims: Vec<u64>,
    bytes: u64,
    data_bytes: u64,
    metadata_bytes: u64,
}

impl Sized {
    fn padding(&self) -> u64 {
        (self.bytes.saturating_sub(self.data_bytes)).saturating_sub(self.metadata_bytes)
    }

    /// Bytes over the data's bytes (1 without padding; `None` for no data).
    fn expansion(&self) -> Option<f64> {
        (self.data_bytes > 0).then(|| self.bytes as f64 / self.data_bytes as f64)
    }
}

/// Why a shape has no default layout: in XLA's words (as `check`'s JSON
/// has them) and in people's (the mistake in words, then XLA's, as the
/// other commands that take a shape say it).
struct Refusal {
    xla: String,
    people: String,
}

/// `text`'s default layout and sizes, or why there are none.
fn sized(text: &str, generation: Generation) -> Result<Sized, Refusal> {
    // `tpu(SHAPE)` as other commands take it: the same question asked
    // twice, answered once (its generation, if given, instead).
    let shape = match xla_layout_core::tpu::parse_request(text) {
        Some(request) => request,
        None => default_layout_for(text, generation),
    }
    .map_err(|e| {
        let shown = crate::common::shown(text);
        Refusal {
            xla: format!("'{shown}': {}", e.with_source(text)),
            people: format!("'{shown}': {}", e.explain(text)),
        }
    })?;
    let tiled = shape.tiled().map_err(|e| {
        let m = format!("'{shape}': {e}");
        Refusal {
            xla: m.clone(),
            people: m,
        }
    })?;
    // Past int64 (its sizes in front can take a buffer there), XLA's
    // size type, `buffer_bytes` has no size.
    let bytes = xla_layout_core::tpu::buffer_bytes(&shape)
        .ok()
        .ok_or_else(|| {
            let m = format!("'{shape}': {}", xla_layout_core::tpu::TpuError::TooLarge);
            Refusal {
                xla: m.clone(),
                people: m,
            }
        })?;
    Ok(Sized {
        tiled_dims: tiled.dims().to_vec(),
        bytes,
        data_bytes: tiled.data_bytes(),
        metadata_bytes: xla_layout_core::tpu::metadata_bytes(&shape),
        shape,
    })
}

fn write_human(out: &mut impl Write, s: &Sized) -> std::io::Result<()> {
    writeln!(out, "default layout    {}", s.shape)?;
    writeln!(out, "tiled shape       {:?}", s.tiled_dims)?;
    writeln!(out, "bytes             {}", s.bytes)?;
    if s.metadata_bytes > 0 {
        writeln!(
            out,
            "metadata bytes    {} (the dynamic dimensions' sizes, in front of the data)",
            s.metadata_bytes
        )?;
    }
    writeln!(out, "data bytes        {}", s.data_bytes)?;
    match s.expansion() {
        Some(x) => writeln!(
            out,
            "padding           {} ({:.2}% of the buffer; the buffer is {x:.2}x the data{})",
            bytes(s.padding()),
            100.0 * s.padding() as f64 / s.bytes as f64,
            // The expansion is the buffer's: say what else it holds.
            if s.metadata_bytes > 0 {
                ", metadata included"
            } else {
                ""
            }
        ),
        None => writeln!(out, "padding           {} (no data)", bytes(s.padding())),
    }
}

/// One JSON object per input line; a bad line gets an error object and
/// the rest go on. Counts (error lines, lines) into the last argument,
/// which holds those read so far when it fails.
fn json_lines(
    mut input: impl BufRead,
    output: impl Write,
    generation: Generation,
    (errors, lines): &mut (u64, u64),
) -> Result<(), Failure> {
    let mut out = std::io::BufWriter::new(output);
    let mut line = Vec::new();
    loop {
        let read = crate::common::read_line(&mut input, &mut line, crate::common::MAX_LINE_BYTES)
            .map_err(crate::common::stdin_failed)?;
        if read == Line::End {
            break;
        }
        if *lines == 0 {
            crate::common::strip_byte_order_mark(&mut line);
        }
        // A line that is not UTF-8 is an error line; the rest go on.
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\n', '\r']);
        // A blank line holds no shape: skipped, as `check` skips it.
        if read == Line::Read && crate::common::is_blank(text.as_bytes()) {
            continue;
        }
        let value: Value = match std::str::from_utf8(&line) {
            // A line too long to hold: an error line quoting its start.
            _ if let Line::TooLong {
                bytes,
                out_of_memory,
            } = read =>
            {
                json!({
                    "input": format!("{text}…"),
                    "error": crate::common::too_long(bytes, out_of_memory),
                    "hint": null,
                })
            }
            // No shape holds such a byte: the parser, which reads bytes,
            // says where and why, in both voices, as `check` does.
            Err(e) => {
                let bytes = line.strip_suffix(b"\n").unwrap_or(&line);
                let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
                let shown = crate::common::shown(text);
                match xla_layout_core::text::parse_shape(bytes) {
                    Err(p) => json!({
                        "input": text,
                        "error": format!("'{shown}': {}", p.with_source(bytes)),
                        "hint": format!("'{shown}': {}", p.explain(bytes)),
                    }),
                    Ok(_) => json!({
                        "input": text,
                        "error": format!("not UTF-8 text (invalid byte at offset {})", e.valid_up_to()),
                        "hint": "the line holds bytes that are not UTF-8 text",
                    }),
                }
            }
            Ok(_) => match sized(text, generation) {
                Ok(s) => json!({
                    "input": text,
                    "shape": s.shape.to_string(),
                    "bytes": s.bytes,
                    "data_bytes": s.data_bytes,
                    "padding_bytes": s.padding(),
                    "expansion": s.expansion(),
                    "metadata_bytes": s.metadata_bytes,
                }),
                // A request XLA has no words for (a shape with a layout, a
                // tuple) is told once: no hint repeating the error.
                Err(e) => {
                    let hint = (e.people != e.xla).then_some(e.people);
                    json!({ "input": text, "error": e.xla, "hint": hint })
                }
            },
        };
        *lines += 1;
        *errors += u64::from(value.get("error").is_some());
        serde_json::to_writer(&mut out, &value).map_err(std::io::Error::from)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}
