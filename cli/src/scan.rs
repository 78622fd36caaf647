//! `xla-layout scan FILE.hlo` (or a dump directory): every instruction of an HLO dump, as JSON
//! lines or as a summary of its buffers by size.

use std::io::{Read, Write};
use std::path::PathBuf;

use serde_json::json;
use xla_layout_core::text::{LineCursor, ParseEvent, parse_shape_events};
use xla_layout_core::{Shape, validate};
use xla_layout_hlo::dataflow::CallContext;
use xla_layout_hlo::infer::Shapes;
use xla_layout_hlo::memory::SIZE_LIMIT;
use xla_layout_hlo::memory::{Backend, Options, Report, Row};
use xla_layout_hlo::names::Names;
use xla_layout_hlo::{Event, Module, Reader};

use crate::common::{Failure, MAX_UNREAD_TOLD, group, percent, read_text, unread};

/// Read an HLO module dump: every instruction as JSON, or its values by size.
///
/// Without --summary, one JSON object per instruction: {"computation",
/// "name", "shape" (canonical text), "bytes" (exact; a tuple's elements
/// summed; null where undefined), "inferred" (true when the text leaves
/// the shape out and it was inferred from the operands, as XLA does),
/// "invalid" (XLA's validator's message when it rejects the layout, else
/// null)}; an instruction that does not read is {"error", "line",
/// "column"}. Names XLA's parser refuses (a name repeated in a
/// computation, an operand that names nothing) are told on stderr after
/// the list, and the command fails. With --summary, the module's values
/// (the arrays its dataflow defines) by size with the bytes lost to
/// padding. FILE.hlo may be a dump
/// directory (--xla_dump_to), as for `memory`: its optimized module, or
/// with --module TEXT the one whose file name contains TEXT.
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// The dump (`-` for stdin): a module's text, or a dump directory
    #[arg(value_name = "FILE.hlo")]
    pub file: PathBuf,
    /// In a dump directory, the module whose file name contains TEXT (or
    /// is TEXT, with or without `.hlo`)
    #[arg(long, value_name = "TEXT")]
    pub module: Option<String>,
    /// Summarise the values by size instead
    #[arg(long)]
    pub summary: bool,
    /// With --summary, list the N largest values (0: all)
    #[arg(long, value_name = "N", default_value_t = 20, requires = "summary")]
    pub top: usize,
}

/// Runs `scan` with `args`.
pub fn main(
    args: &Args,
    stdin: impl Read,
    out: impl Write,
    mut errors: impl Write,
) -> Result<(), Failure> {
    let file = if args.file.is_dir() {
        crate::common::module_in_dir(&args.file, args.module.as_deref(), "scan")?
    } else if args.module.is_some() {
        return Err(Failure::Usage {
            command: "scan",
            message: format!(
                "--module picks among the modules of a dump directory, and {} is not one",
                args.file.display()
            ),
        });
    } else {
        args.file.clone()
    };
    let path = file.to_string_lossy();
    let read = read_text(&file, stdin)?;
    let text = &read.text;
    read.report_repaired(&mut errors)?;
    crate::common::not_a_module(&path, text)?;
    if args.summary {
        write_summary(text, &path, args.top, out, errors)?;
    } else {
        write_json_lines(text, &path, out, errors)?;
    }
    read.repaired_failure()
}

/// The exact bytes of a non-tuple shape (every tile level, `L` and `E`
/// counted); `None` where undefined (a layout XLA's validator rejects,
/// an unbounded dimension, sizes over 64 bits).
fn array_bytes(shape: &Shape) -> Option<u64> {
    let Shape::Array(a) = shape else {
        // A token holds nothing, an opaque value a pointer: XLA's
        // `ByteSizeOf` with 64-bit pointers, as the memory report counts.
        return shape
            .xla_byte_size_of(xla_layout_hlo::memory::POINTER_BYTES)
            .ok();
    };
    validate(shape).ok()?;
    Some(a.tiled().ok()?.exact_bytes())
}

/// A shape's canonical text and its non-tuple parts, by a streamed parse
/// (a tuple is never built: memory stays proportional to its text). `f`
/// gets each part with its XLA shape index (`[1, 0]`; empty for a shape
/// that is not a tuple), to format only when needed (a deep shape's every
/// part named was quadratic).
fn walk_leaves(text: &str, mut f: impl FnMut(&[usize], &Shape)) -> Option<String> {
    let mut canonical = String::new();
    let mut path: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    parse_shape_events(text.as_bytes(), Default::default(), |event| {
        use std::fmt::Write as _;
        let _ = write!(canonical, "{event}");
        match event {
            ParseEvent::TupleStart { index } => {
                if depth > 0 {
                    path.push(index);
                }
                depth += 1;
            }
            ParseEvent::TupleEnd => {
                depth -= 1;
                if depth > 0 {
                    path.pop();
                }
            }
            ParseEvent::Leaf { index, shape } => {
                if depth == 0 {
                    f(&[], shape);
                } else {
                    path.push(index);
                    f(&path, shape);
                    path.pop();
                }
            }
        }
    })
    .ok()?;
    Some(canonical)
}

/// A shape's canonical text and bytes (a tuple's are its elements' sum,
/// exact in 128 bits; `None` where some element's size is undefined).
fn shape_text_and_bytes(text: &str) -> Option<(String, Option<u128>)> {
    let mut total = Some(0u128);
    let canonical = walk_leaves(text, |_, leaf| {
        total = total.and_then(|t| t.checked_add(u128::from(array_bytes(leaf)?)));
    })?;
    Some((canonical, total))
}

/// One JSON object per instruction, streamed. An instruction that does
/// not read is an error record in the stream (`{"error", "line",
/// "column"}`) and a message on `errors`; reading goes on at the next
/// line, and the command fails at the end.
fn write_json_lines(
    text: &str,
    path: &str,
    out: impl Write,
    mut errors: impl Write,
) -> Result<(), Failure> {
    let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
    let mut computation = "";
    let (mut failed, mut computations, mut invalid) = (0usize, 0usize, 0usize);
    let (mut closed, mut unshaped, mut past_int64) = (false, 0usize, 0usize);
    let mut shapes = Shapes::new();
    let mut names = Names::new();
    // Errors come in text order: their lines are counted once overall
    // (from the start each time, an error on every line is quadratic).
    let mut lines = LineCursor::new(text);
    for event in Reader::lenient(text) {
        let line = match event {
            Err(e) => {
                failed += 1;
                if failed <= MAX_UNREAD_TOLD {
                    writeln!(errors, "{}", e.render_with(&mut lines, path))?;
                }
                let (line, column) = lines.line_column(e.span.start);
                json!({ "error": e.message(text).to_string(), "line": line, "column": column })
            }
            Ok(Event::Computation(c)) => {
                computations += 1;
                computation = c.name();
                shapes.computation(&c);
                names.computation(c.name());
                continue;
            }
            Ok(Event::EndComputation { .. }) => {
                shapes.end_computation();
                names.end_computation();
                continue;
            }
            Ok(Event::Instruction(i)) => {
                names.instruction(i);
                // Written or inferred. The reader checked a written shape;
                // its text is read again as a stream, so that no tuple is
                // ever built.
                let found = shapes.instruction(&i);
                let inferred = found.as_ref().is_some_and(|s| s.is_inferred());
                if found.is_none() {
                    unshaped += 1;
                }
                if found.is_none() && unshaped <= crate::common::MAX_UNSHAPED_TOLD {
                    crate::common::tell_unshaped(&mut errors, &mut lines, path, &i)?;
                }
                let (shape, sum) = match found.as_ref().and_then(|s| shape_text_and_bytes(s.text()))
                {
                    Some((text, sum)) => (Some(text), sum),
                    None => (None, None),
                };
                // A tuple whose arrays add up past int64, XLA's size type:
                // no size, told, and the command fails, as `scan
                // --summary` and `memory` do. (An array's own size is
                // XLA's `ByteSizeOf`, as `check` gives it.)
                let tuple = shape.as_ref().is_some_and(|s| s.starts_with('('));
                let bytes =
                    sum.and_then(|b| u64::try_from(b).ok().filter(|&b| !tuple || b <= SIZE_LIMIT));
                if sum.is_some() && bytes.is_none() {
                    past_int64 += 1;
                    if past_int64 <= crate::common::MAX_UNSHAPED_TOLD {
                        let message = format!(
                            "the arrays of {}'s shape add up to {} bytes, past int64 (XLA's size \
                             type): its \"bytes\" are null",
                            i.name(),
                            sum.unwrap_or_default()
                        );
                        writeln!(
                            errors,
                            "{}",
                            i.span().render_with(&mut lines, path, message)
                        )?;
                    }
                }
                // A shape XLA's validator rejects, written or inferred
                // (`f32[2^32,1]` dot `f32[1,2^32]`): XLA refuses the
                // module. Listed, told, and the command fails.
                let rejected = match &found {
                    Some(s) if sum.is_none() => first_invalid(s.text()),
                    _ => None,
                };
                if let Some(why) = &rejected {
                    invalid += 1;
                    let span = i.span();
                    writeln!(
                        errors,
                        "{}",
                        span.render_with(
                            &mut lines,
                            path,
                            format_args!(
                                "the shape of {} is one XLA's validator rejects: {why}",
                                i.name()
                            )
                        )
                    )?;
                }
                json!({
                    "computation": computation,
                    "name": i.name(),
                    "shape": shape,
                    "bytes": bytes,
                    "inferred": inferred,
                    "invalid": rejected,
                })
            }
            Ok(_) => continue,
        };
        let written = serde_json::to_writer(&mut out, &line)
            .map_err(std::io::Error::from)
            .and_then(|()| out.write_all(b"\n"));
        // Stdout closed early (`| head`): what was read so far decides.
        if crate::common::closed_early(written.map_err(Failure::Io))? {
            closed = true;
            break;
        }
    }
    closed = closed || crate::common::closed_early(out.flush().map_err(Failure::Io))?;
    if computations == 0 && failed == 0 && !closed {
        return Err(empty(path));
    }
    // Found once every operand of a computation could be looked up; told
    // after the stream, in text order (from the top again).
    let misnamed = if closed {
        Vec::new()
    } else {
        names.finish(failed)
    };
    let found = misnamed.iter().map(|m| (m.instruction, m.why));
    crate::common::tell_misnamed(&mut errors, &mut LineCursor::new(text), path, found, false)?;
    unread(failed, "the module")?;
    crate::common::invalid_layouts(invalid, path)?;
    crate::common::unshaped(unshaped, path)?;
    crate::common::misnamed(misnamed.len(), path, false)?;
    crate::common::sizes_past_int64(past_int64 > 0, path)
}

/// The failure for a file with no computation in it (empty, or a header
/// alone): nothing to list is not a module.
fn empty(path: &str) -> Failure {
    let name = if path == "-" { "stdin" } else { path };
    Failure::Input(format!("{name} holds no HLO computation"))
}

/// The buffers of a module by size, with the bytes padding costs: the
/// values of the library's dataflow (xla-layout-hlo's `memory` report, as
/// `xla-layout memory` prints it), less tuple index tables.
fn write_summary(
    text: &str,
    path: &str,
    top: usize,
    out: impl Write,
    mut errors: impl Write,
) -> Result<(), Failure> {
    let (module, unread_parts) = Module::parse_lenient(text);
    if module.computations().is_empty() && unread_parts.is_empty() {
        return Err(empty(path));
    }
    let mut lines = LineCursor::new(text);
    for e in unread_parts.iter().take(MAX_UNREAD_TOLD) {
        writeln!(errors, "{}", e.render_with(&mut lines, path))?;
    }
    let report = Report::new(&module, &Options::default());
    let d = report.dataflow();
    let inlined = (0..module.computations().len())
        .filter(|&k| matches!(d.context(k), CallContext::Fusion | CallContext::Embedded))
        .count();
    // Tuple index tables are left out: this lists the arrays.
    let row_numbers: Vec<usize> = (0..report.rows.len())
        .filter(|&k| !report.rows[k].tuple_table && report.rows[k].sized)
        .collect();
    let rows: Vec<&Row> = row_numbers.iter().map(|&k| &report.rows[k]).collect();
    let undefined = report
        .rows
        .iter()
        .filter(|r| !r.tuple_table && !r.sized)
        .count();
    let buffers = Report::buffers_of(rows.iter().copied());
    let mut order: Vec<usize> = (0..rows.len()).collect();
    let names: Vec<String> = rows
        .iter()
        .map(|r| {
            let c = d
                .computation_of(r.value.instruction)
                .and_then(|k| module.computations().get(k))
                .map_or("", |c| c.name());
            format!("{c}/{}", d.value_name(r.value))
        })
        .collect();
    order.sort_by(|&a, &b| {
        rows[b]
            .bytes
            .cmp(&rows[a].bytes)
            .then(names[a].cmp(&names[b]))
    });
    let mut out = std::io::BufWriter::new(out);
    let written = (|| -> std::io::Result<()> {
        let instructions = module.instructions().count();
        writeln!(
            out,
            "{}: {} computations ({} fusion bodies or reducers), {instructions} instructions, {} values",
            module.name().unwrap_or(path),
            module.computations().len(),
            inlined,
            rows.len()
        )?;
        writeln!(
            out,
            "values: the arrays XLA's dataflow defines outside fusion bodies and reducers, and\n\
             reducers' constants (a buffer each, as XLA gives them); results that forward\n\
             another value (bitcast, get-tuple-element, tuple, while, call, conditional,\n\
             copy-done, async-done, parameters of called computations, ...) define none; tuple\n\
             results count per element; values that share a buffer are listed each\n\
             (xla-layout memory has the full report, buffers included)"
        )?;
        // Why a value's bytes here may not be its layout's (as in the
        // JSON lines without --summary).
        match report.backend {
            Backend::Tpu => writeln!(
                out,
                "bytes: as a TPU allocates them (the backend read off the module): tiles, an\n\
                 untiled array rounded up to whole {} KiB pages, an SMEM array's elements; the\n\
                 JSON lines of scan without --summary give each layout's own bytes\n",
                xla_layout_core::tpu::UNTILED_PAGE >> 10
            )?,
            b => writeln!(
                out,
                "bytes: as the {} backend (read off the module) allocates them\n",
                b.name().to_uppercase()
            )?,
        }
        writeln!(
            out,
            "{:>15} {:>13} {:>6}  {:<5} value and shape",
            "bytes", "padding", "pad%", "space"
        )?;
        // `--top 0` lists every value, as `memory --top 0` does.
        let top = if top == 0 { rows.len() } else { top };
        let shown = &order[..top.min(order.len())];
        // Each instruction's shape text read once for all the rows shown
        // (one row at a time, a wide tuple's was read per element).
        let numbers: Vec<usize> = shown.iter().map(|&k| row_numbers[k]).collect();
        for (&k, d) in shown.iter().zip(report.details_of(&numbers)) {
            let (r, padding) = (rows[k], rows[k].padding_bytes());
            writeln!(
                out,
                "{:>15} {:>13} {:>5.1}%  S({})  {}  {}",
                group(r.bytes),
                group(padding),
                percent(padding, r.bytes),
                r.space,
                names[k],
                d.shape
            )?;
        }
        if rows.len() > top {
            writeln!(out, "{:>15} ({} more)", "...", rows.len() - top)?;
        }
        // Summed in 128 bits: values near int64's limit add up past 64
        // bits, and a capped sum would be a wrong number.
        let total: u128 = rows.iter().map(|r| u128::from(r.bytes)).sum();
        let padding: u128 = rows.iter().map(|r| u128::from(r.padding_bytes())).sum();
        writeln!(
            out,
            "\ntotal {} bytes in {} values, {} of them ({:.1}%) padding{}",
            group(total),
            rows.len(),
            group(padding),
            percent(padding, total),
            // Not a footprint: say so where a reader would take it for one.
            if buffers < rows.len() {
                format!(
                    "\n(a sum over values: they share {buffers} buffers, so this is more than \
                     the memory they take; xla-layout memory gives that)"
                )
            } else {
                String::new()
            }
        )?;
        if undefined > 0 {
            let values = if undefined == 1 {
                "value has"
            } else {
                "values have"
            };
            writeln!(
                out,
                "{undefined} {values} no defined size (a layout XLA's validator rejects, or an \
                 unbounded dimension)"
            )?;
        }
        out.flush()
    })();
    // Stdout closed early (`| head`): the failures below still count.
    crate::common::closed_early(written.map_err(Failure::Io))?;
    // Every failure is told before the exit status says the first.
    let invalid = report.invalid_rows();
    let numbers: Vec<usize> = invalid.iter().map(|(k, _)| *k).collect();
    for ((_, e), d) in invalid.iter().zip(report.details_of(&numbers)) {
        writeln!(errors, "{path}: {} {}: {e}", d.name, d.shape)?;
    }
    let d = report.dataflow();
    crate::common::tell_unshaped_of(&mut errors, &mut lines, path, d)?;
    crate::common::tell_misnamed_of(&mut errors, &mut lines, path, d)?;
    if report.sizes_past_int64 {
        // As `memory` fails for it; the total above is exact all the same.
        writeln!(
            errors,
            "{path}: the module's sizes add up past int64 (XLA's size type): XLA cannot account \
             for them (the total here is summed exactly)"
        )?;
    }
    unread(unread_parts.len(), "the module")?;
    crate::common::invalid_layouts(invalid.len(), path)?;
    crate::common::unshaped(d.unshaped().len(), path)?;
    crate::common::misnamed(report.misnamed_instructions, path, true)?;
    crate::common::sizes_past_int64(report.sizes_past_int64, path)
}

/// The first part of a written shape (its text) that XLA's validator
/// rejects, with the rule: `{1}: …` for a tuple's element.
fn first_invalid(text: &str) -> Option<String> {
    let mut first = None;
    walk_leaves(text, |index, leaf| {
        if first.is_none()
            && let Err(e) = validate(leaf)
        {
            first = Some(if index.is_empty() {
                e.to_string()
            } else {
                let all: Vec<String> = index.iter().map(usize::to_string).collect();
                format!("{{{}}}: {e}", all.join(","))
            });
        }
    });
    first
}
