//! `xla-layout check`: a line-oriented JSON interface for scripts.
//!
//! Each input line is one shape; each output line is one JSON object, in
//! the same order. Lines are handled one at a time, so any number of them
//! streams through in constant memory; output is flushed whenever the
//! input has nothing more buffered, so the tool also works as a
//! co-process answering line by line.

use std::io::{BufRead, Write};

use serde_json::{Value, json};
use xla_layout_core::text::{ParseError, ParseEvent, ParseOptions, parse_shape_events};
use xla_layout_core::{ArrayShape, validate};

use crate::common::{Failure, Line, MAX_LINE_BYTES};

/// Check shapes: one per line on stdin, one JSON object per line on stdout.
///
/// Each object is {"input", "ok", "canonical", "error" (XLA's message),
/// "hint" (the same as `explain` words it), "stage" ("parse",
/// "validate", "read" for a line too long to hold, or null), "bytes", "xla_array_size", "xla_byte_size_of",
/// "physical_elements" (the slot count), "size_error", "warning" (what
/// XLA's parser reads past in a line it accepts: `S(300)` it keeps as
/// `S(44)`, an `E` with no `(n)` it drops)}, in input order;
/// blank lines are skipped.
/// The sizes are an array's: null for a tuple, token[] and opaque[]
/// (scan, sizing a dump's values, sums a tuple's arrays).
/// A malformed line gets its object and the rest go on. A line may also
/// be tpu(SHAPE) or SHAPE Layout(major_to_minor=...).
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// Exit with status 1 when any line is not a valid shape (the output
    /// is the same)
    #[arg(long)]
    pub strict: bool,
}

/// Runs `check` with `args`.
pub fn main(args: &Args, input: impl BufRead, output: impl Write) -> Result<(), Failure> {
    let mut counts = Counts::default();
    // Stdout closed early (`| head`): the lines read so far decide.
    let closed = crate::common::closed_early(run(input, output, &mut counts))?;
    if args.strict && counts.invalid > 0 {
        return Err(Failure::Input(format!(
            "check --strict: {} are not valid shapes",
            crate::common::of_lines(counts.invalid, counts.lines, closed)
        )));
    }
    Ok(())
}

/// Lines read and how many of them were not valid shapes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Lines read.
    pub lines: u64,
    /// Lines whose object says `"ok": false`.
    pub invalid: u64,
}

/// Runs `check` from `input` to `output`, counting into `counts` (which
/// hold the lines read so far when it fails).
fn run(mut input: impl BufRead, output: impl Write, counts: &mut Counts) -> Result<(), Failure> {
    let mut out = std::io::BufWriter::with_capacity(1 << 16, output);
    let mut line = Vec::new();
    loop {
        if input
            .fill_buf()
            .map_err(crate::common::stdin_failed)?
            .is_empty()
        {
            break;
        }
        let read = crate::common::read_line(&mut input, &mut line, MAX_LINE_BYTES)
            .map_err(crate::common::stdin_failed)?;
        if counts.lines == 0 {
            crate::common::strip_byte_order_mark(&mut line);
        }
        let text = strip_newline(&line);
        // A blank line holds no shape: skipped, not an invalid one (a
        // stray empty line failed `--strict` pipelines).
        if read == Line::Read && crate::common::is_blank(text) {
            continue;
        }
        let report = match read {
            Line::TooLong {
                bytes,
                out_of_memory,
            } => unread_line(text, bytes, out_of_memory),
            _ => check_line(text),
        };
        counts.lines += 1;
        if report["ok"] != true {
            counts.invalid += 1;
        }
        serde_json::to_writer(&mut out, &report).map_err(std::io::Error::from)?;
        out.write_all(b"\n")?;
        if input
            .fill_buf()
            .map_err(crate::common::stdin_failed)?
            .is_empty()
        {
            out.flush()?;
        }
    }
    out.flush()?;
    Ok(())
}

/// The object for a line too long to hold (`bytes` of them), quoting its
/// start (`start`): an error at the "read" stage, and the lines after it
/// go on.
fn unread_line(start: &[u8], bytes: u64, out_of_memory: bool) -> Value {
    let quoted = format!("{}…", String::from_utf8_lossy(start));
    let why = crate::common::too_long(bytes, out_of_memory);
    let error = Error::new(why.clone(), why, "read");
    report(&quoted, None, Some(error), Sizes::default())
}

fn strip_newline(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// The JSON object for one shape text. The shape is parsed as a stream
/// of elements, so that a tuple is never built: memory stays
/// proportional to the line, whatever the tuple's size.
pub fn check_line(text: &[u8]) -> Value {
    let input = String::from_utf8_lossy(text);
    // `tpu(SHAPE)`: SHAPE with a TPU's default layout, and `SHAPE
    // Layout(major_to_minor=…)`: the layout in JAX's form.
    if let Some((_, parsed)) = xla_layout_core::text::parse_other_form(&input) {
        return match parsed {
            Err(e) => {
                let error = Error::new(e.with_source(&input), e.explain(&input), "parse");
                report(&input, None, Some(error), Sizes::default())
            }
            Ok(shape) => match shape.validate() {
                Err(e) => report(
                    &input,
                    Some(shape.to_string()),
                    Some(Error::new(e.to_string(), e.explain(), "validate")),
                    Sizes::default(),
                ),
                Ok(()) => report(&input, Some(shape.to_string()), None, Sizes::of(&shape)),
            },
        };
    }
    // Strictly first: a line that means what it says (nearly every one) is
    // read once; one XLA's parser reads past is read again as XLA reads
    // it, with a warning saying what was read past (`text::read_past`'s
    // rule, run here with the line's events kept).
    let strict = ParseOptions::default().with_strict(true);
    let mut read = Read::default();
    let mut parsed = read.parse(text, strict);
    let mut warning = None;
    if let Err(e) = &parsed {
        let mut lenient = Read::default();
        let again = lenient.parse(text, ParseOptions::default());
        if again.is_ok() {
            warning = Some(crate::common::read_past_warning(e, text));
        }
        (read, parsed) = (lenient, again);
    }
    if let Err(e) = parsed {
        let error = Error::new(e.with_source(text), e.explain(text), "parse");
        return report(&input, None, Some(error), Sizes::default());
    }
    let mut object = match (read.invalid, read.array) {
        (Some(e), _) => report(&input, Some(read.canonical), Some(e), Sizes::default()),
        // Sizes are for arrays only.
        (None, Some(a)) if !read.tuple => report(&input, Some(read.canonical), None, Sizes::of(&a)),
        (None, _) => report(&input, Some(read.canonical), None, Sizes::default()),
    };
    object["warning"] = json!(warning);
    object
}

/// What one parse of a line found: its canonical text, the first element
/// that is not valid, the last array, and whether it is a tuple.
#[derive(Default)]
struct Read {
    canonical: String,
    invalid: Option<Error>,
    array: Option<ArrayShape>,
    tuple: bool,
}

impl Read {
    /// Parses `text` with `options` as a stream of elements, so that a
    /// tuple is never built: memory stays proportional to the line.
    fn parse(&mut self, text: &[u8], options: ParseOptions) -> Result<(), Box<ParseError>> {
        parse_shape_events(text, options, |event| {
            use std::fmt::Write as _;
            let _ = write!(self.canonical, "{event}");
            if let ParseEvent::Leaf { shape, .. } = event {
                // A tuple is valid when its elements are, checked in order.
                if self.invalid.is_none()
                    && let Err(e) = validate(shape)
                {
                    self.invalid = Some(Error::new(e.to_string(), e.explain(), "validate"));
                }
                self.array = shape.as_array().copied();
            }
            self.tuple |= matches!(event, ParseEvent::TupleStart { .. });
        })
        .map_err(Box::new)
    }
}

/// The size fields; `None` where undefined, and why the exact size is
/// (an overflow of 64 bits, an unbounded dimension).
#[derive(Default)]
struct Sizes {
    bytes: Option<u64>,
    xla_array_size: Option<u64>,
    xla_byte_size_of: Option<u64>,
    physical_elements: Option<u64>,
    size_error: Option<String>,
}

impl Sizes {
    fn of(a: &ArrayShape) -> Sizes {
        let tiled = a.tiled();
        Sizes {
            bytes: tiled.as_ref().ok().map(|t| t.exact_bytes()),
            xla_array_size: a.xla_array_size().ok(),
            xla_byte_size_of: a.xla_byte_size_of().ok(),
            physical_elements: tiled.as_ref().ok().map(|t| t.physical_slots()),
            size_error: tiled.err().map(|e| e.to_string()),
        }
    }
}

/// Why a line is not a valid shape: XLA's message, the same in words a
/// person can act on (as `explain` says it), and the step.
struct Error {
    xla: String,
    hint: String,
    stage: &'static str,
}

impl Error {
    fn new(
        xla: impl std::fmt::Display,
        hint: impl std::fmt::Display,
        stage: &'static str,
    ) -> Error {
        Error {
            xla: xla.to_string(),
            hint: hint.to_string(),
            stage,
        }
    }
}

fn report(input: &str, canonical: Option<String>, error: Option<Error>, s: Sizes) -> Value {
    json!({
        "input": input,
        "ok": error.is_none(),
        "canonical": canonical,
        "error": error.as_ref().map(|e| &e.xla),
        "hint": error.as_ref().map(|e| &e.hint),
        "stage": error.as_ref().map(|e| e.stage),
        "bytes": s.bytes,
        "xla_array_size": s.xla_array_size,
        "xla_byte_size_of": s.xla_byte_size_of,
        "physical_elements": s.physical_elements,
        "size_error": s.size_error,
        "warning": null,
    })
}
