//! `xla-layout check`: a line-oriented JSON interface for scripts.
//!
//! Each input line is one shape; each output line is one JSON object, in
//! the same order. Lines are handled one at a time, so any number of them
//! streams through in constant memory; output is flushed whenever the
//! input has nothing more buffered, so the tool also works as a
//! co-process answering line by line.

use std::io::{BufRead, Write};

use serde_json::{Value, json};
use xla_layout_core::text::parse_shape;
use xla_layout_core::{ArrayShape, Shape, validate};

use crate::Failure;

/// Runs `check` from `input` to `output`.
pub fn run(mut input: impl BufRead, output: impl Write) -> Result<(), Failure> {
    let mut out = std::io::BufWriter::with_capacity(1 << 16, output);
    let mut line = Vec::new();
    loop {
        if input.fill_buf()?.is_empty() {
            break;
        }
        line.clear();
        input.read_until(b'\n', &mut line)?;
        let text = strip_newline(&line);
        serde_json::to_writer(&mut out, &check_line(text)).map_err(std::io::Error::from)?;
        out.write_all(b"\n")?;
        if input.fill_buf()?.is_empty() {
            out.flush()?;
        }
    }
    out.flush()?;
    Ok(())
}

fn strip_newline(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// The JSON object for one shape text.
pub fn check_line(text: &[u8]) -> Value {
    let input = String::from_utf8_lossy(text);
    let shape = match parse_shape(text) {
        Ok(s) => s,
        Err(e) => {
            return report(
                &input,
                None,
                Some((e.to_string(), "parse")),
                Sizes::default(),
            );
        }
    };
    let canonical = shape.to_string();
    if let Err(e) = validate(&shape) {
        return report(
            &input,
            Some(canonical),
            Some((e.to_string(), "validate")),
            Sizes::default(),
        );
    }
    let sizes = match &shape {
        Shape::Array(a) => Sizes::of(a),
        _ => Sizes::default(),
    };
    report(&input, Some(canonical), None, sizes)
}

/// The size fields; `None` where undefined.
#[derive(Default)]
struct Sizes {
    bytes: Option<u64>,
    xla_array_size: Option<u64>,
    xla_byte_size_of: Option<u64>,
    physical_elements: Option<u64>,
}

impl Sizes {
    fn of(a: &ArrayShape) -> Sizes {
        let tiled = a.tiled().ok();
        Sizes {
            bytes: tiled.as_ref().map(|t| t.exact_bytes()),
            xla_array_size: a.xla_array_size().ok(),
            xla_byte_size_of: a.xla_byte_size_of().ok(),
            physical_elements: tiled.as_ref().map(|t| t.physical_slots()),
        }
    }
}

fn report(
    input: &str,
    canonical: Option<String>,
    error: Option<(String, &str)>,
    s: Sizes,
) -> Value {
    let (error, stage) = match error {
        Some((m, stage)) => (Some(m), Some(stage)),
        None => (None, None),
    };
    json!({
        "input": input,
        "ok": error.is_none(),
        "canonical": canonical,
        "error": error,
        "stage": stage,
        "bytes": s.bytes,
        "xla_array_size": s.xla_array_size,
        "xla_byte_size_of": s.xla_byte_size_of,
        "physical_elements": s.physical_elements,
    })
}
