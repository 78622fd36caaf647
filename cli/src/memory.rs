//! `xla-layout memory DUMP`: where a compiled program's bytes go, and why
//! they are padded — jax's `memory_analysis()`, per-space totals and the
//! largest buffers, as text (like XLA's out-of-memory report), JSON or an
//! HTML page. The report itself is xla-layout-hlo's `memory` module; this
//! file finds the dump's files, parses arguments and prints.

use std::fmt::Write as _;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use xla_layout_core::tpu::{self, Generation};
use xla_layout_hlo::memory::{
    AssignmentDamage, Backend, Details, Field, ListedBuffer, Options, Order, Report, Role,
    RoleKind, Row, SIZE_LIMIT, ShapePadding, Source, Space, add_bytes,
};
use xla_layout_hlo::{BufferAssignment, Module, dump, memory_space_labels, unescape};

use crate::common::{Failure, MAX_UNREAD_TOLD, counted, group, read_text, unread};

/// Where a compiled program's bytes go, and why they are padded.
///
/// DUMP is an optimized HLO module as XLA dumps it
/// (`…after_optimizations.txt`, or a fixture's `NAME.hlo`), a dump
/// directory holding one (choose with --module when it holds several), or
/// `-` for stdin. XLA's buffer assignment next to it
/// (`…after_optimizations-buffer-assignment.txt`, `NAME.buffer-assignment.txt`)
/// is read when present, and so is its memory-usage report (for XLA's names
/// of memory spaces).
///
/// Prints jax's `compiled.memory_analysis()` fields with where each number
/// comes from (exact, XLA's buffer assignment, or estimated), the bytes of
/// each memory space, the padding, the peak by the schedule, and the
/// largest buffers with why each is padded, its op_name and source line.
/// --json writes one object (docs/memory-report.md describes it); --html a
/// self-contained page.
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// The dump: a module's text, a dump directory, or `-` for stdin
    #[arg(value_name = "DUMP")]
    pub dump: PathBuf,
    /// In a dump directory, the module whose file name contains TEXT (or
    /// is TEXT, with or without `.hlo`)
    #[arg(long, value_name = "TEXT")]
    pub module: Option<String>,
    /// XLA's buffer assignment for the module (default: the one next to it;
    /// `-`: stdin, when the dump is a file)
    #[arg(long, value_name = "FILE", conflicts_with = "no_buffer_assignment")]
    pub buffer_assignment: Option<PathBuf>,
    /// Do not read XLA's buffer assignment: estimate from the module alone
    #[arg(long)]
    pub no_buffer_assignment: bool,
    /// The backend (default: detected from the module)
    #[arg(long, value_name = "NAME", value_parser = parse_backend)]
    pub backend: Option<Backend>,
    /// The TPU generation, for the size of tuple tables (4 bytes an
    /// element, in units of 512 bytes on v4 and v5e, 32 on v5p and v6e)
    #[arg(long, value_name = "GEN", value_parser = crate::common::generation)]
    pub tpu: Option<Generation>,
    /// Order the buffers by their bytes or by their padding
    #[arg(long, value_name = "KEY", default_value = "bytes", value_parser = parse_order)]
    pub sort: Order,
    /// List the N largest buffers (0: all)
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub top: usize,
    /// Write one JSON object instead of text
    #[arg(long)]
    pub json: bool,
    /// Also write a self-contained HTML page to FILE (`-`: stdout, instead of text)
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

fn parse_backend(text: &str) -> Result<Backend, String> {
    Backend::from_name(text).ok_or_else(|| {
        format!(
            "expected {}, not '{}'",
            Backend::NAMES,
            crate::common::shown(text)
        )
    })
}

fn parse_order(text: &str) -> Result<Order, String> {
    match text {
        "bytes" => Ok(Order::Bytes),
        "padding" => Ok(Order::Padding),
        _ => Err(format!(
            "expected bytes or padding, not '{}'",
            crate::common::shown(text)
        )),
    }
}

/// The files of one dumped module.
struct Files {
    module: PathBuf,
    assignment: Option<PathBuf>,
    report: Option<PathBuf>,
    /// jax's `topology.textproto` for the module (a directory named as
    /// the module's files are, up to `.after_optimizations`).
    topology: Option<PathBuf>,
}

/// Runs `memory`.
pub fn main(
    args: &Args,
    stdin: impl Read,
    mut out: impl Write,
    mut error_out: impl Write,
) -> Result<(), Failure> {
    let to_stdout = args.html.as_deref() == Some(Path::new("-"));
    if to_stdout && args.json {
        return Err(Failure::Usage {
            command: "memory",
            message: "--json and --html - both write to stdout; give --html a file".into(),
        });
    }
    let files = locate(args)?;
    // The page must not replace what it reports on.
    if let Some(html) = args.html.as_deref().filter(|_| !to_stdout) {
        let inputs = [
            Some(&files.module),
            files.assignment.as_ref(),
            files.report.as_ref(),
        ];
        if let Some(input) = inputs.into_iter().flatten().find(|p| same_file(p, html)) {
            return Err(Failure::Usage {
                command: "memory",
                message: format!(
                    "--html {} would overwrite the input {}; give another file",
                    html.display(),
                    input.display()
                ),
            });
        }
    }
    // `-` is stdin for the module or for the buffer assignment: one.
    let dash = |p: &Path| p == Path::new("-");
    let assignment_dash = files.assignment.as_deref().is_some_and(dash);
    if dash(&files.module) && assignment_dash {
        return Err(Failure::Usage {
            command: "memory",
            message: "the dump and --buffer-assignment cannot both be - (stdin)".into(),
        });
    }
    let (module_in, assignment_in): (Box<dyn Read>, Box<dyn Read>) = if assignment_dash {
        (Box::new(std::io::empty()), Box::new(stdin))
    } else {
        (Box::new(stdin), Box::new(std::io::empty()))
    };
    let read = read_text(&files.module, module_in)?;
    let text = &read.text;
    read.report_repaired(&mut error_out)?;
    crate::common::not_a_module(&files.module.display().to_string(), text)?;
    let assignment_read = match &files.assignment {
        Some(p) => Some(read_text(p, assignment_in)?),
        None => None,
    };
    let report_read = match &files.report {
        Some(p) => Some(read_text(p, std::io::empty())?),
        None => None,
    };
    for r in [assignment_read.as_ref(), report_read.as_ref()]
        .into_iter()
        .flatten()
    {
        r.report_repaired(&mut error_out)?;
    }
    let assignment_text = assignment_read.as_ref().map(|r| r.text.as_str());
    let report_text = report_read.as_ref().map(|r| r.text.as_str());
    let (module, errors) = Module::parse_lenient(text);
    let name = files.module.display().to_string();
    if module.computations().is_empty() {
        return Err(Failure::Input(match errors.first() {
            Some(e) => e.render(text, &name),
            None => format!("{} holds no HLO computation", read.name),
        }));
    }
    // A file cut short loses its ENTRY computation, which comes last: a
    // report of the rest would be all zeros. Unless ENTRY is written
    // nowhere and nothing after the last computation's header failed: a
    // module with no ENTRY, whose last computation XLA takes (below).
    // A line that starts a computation marked ENTRY (`ENTRY %main …`).
    let entry_written = text.lines().any(|l| {
        (l.trim_start().strip_prefix("ENTRY"))
            .is_some_and(|rest| rest.starts_with([' ', '\t', '%']))
    });
    let entry_lost = || {
        let last_header = module.computations().last().map_or(0, |c| c.span().start);
        errors.iter().any(|e| e.span.start >= last_header) || entry_written
    };
    if let Some(e) = errors.first()
        && !module.entry_is_marked()
        && entry_lost()
    {
        // Where no line says ENTRY, the entry is the last computation.
        let what = if entry_written {
            "the ENTRY computation did not read"
        } else {
            "no computation is marked ENTRY, and the last one, the entry as XLA takes it, \
             did not read"
        };
        return Err(Failure::Input(format!(
            "{}\n{name}: {what}, so there is nothing to size (is the file cut short?)",
            e.render(text, &name)
        )));
    }
    let assignment = assignment_text.map(BufferAssignment::parse);
    // The generation the dump's topology names (--tpu, when given, is
    // used, and checked against it).
    let dump_generation = (files.topology.as_ref())
        .and_then(|p| std::fs::read_to_string(p).ok())
        .and_then(|t| xla_layout_hlo::topology_generation(&t));
    let labels = report_text.map(memory_space_labels).unwrap_or_default();
    let report = Report::new(
        &module,
        &Options {
            backend: args.backend,
            generation: args.tpu,
            topology: dump_generation,
            buffer_assignment: assignment.as_ref(),
            space_labels: &labels,
        },
    );
    if report.assignment_fits() == Some(false)
        && let Some(path) = &files.assignment
    {
        return Err(Failure::Input(format!(
            "{} is not the buffer assignment of {name}: {}{}{}",
            path.display(),
            match (
                report.matched_assigned_values,
                report.unmatched_assigned_values,
                report.shape_mismatched_assigned_values,
            ) {
                (0, 0, 0) => "it holds no allocation".to_string(),
                (m, u, s) if u > m => {
                    format!("{u} of its {} values name nothing in the module", m + u + s)
                }
                (_, _, s) => format!(
                    "{s} of its values have other shapes than the module's values of their names \
                     (another compile of the same function?)"
                ),
            },
            // The module may be what is short of values: said before the hint.
            match errors.first() {
                None => String::new(),
                Some(e) => {
                    let (line, column) = e.line_column(text);
                    format!(
                        "; but {} of the module did not read, and what {} holds is missing \
                         from it (the first at {name}:{line}:{column}: {e})",
                        counted(errors.len() as u64, "part", "parts"),
                        if errors.len() == 1 { "it" } else { "they" }
                    )
                }
            },
            match (
                &args.buffer_assignment,
                dump::is_before_buffer_assignment(&name)
            ) {
                // XLA adds values (copies for memory spaces) between this
                // dump and its buffer assignment.
                (None, true) => "; this module was dumped before XLA added values the buffer \
                                 assignment holds: read `…after_optimizations.txt` beside it, or \
                                 pass --no-buffer-assignment"
                    .to_string(),
                (None, false) => "; it was found beside the module: --no-buffer-assignment reads \
                                  the module alone"
                    .to_string(),
                (Some(_), _) => String::new(),
            }
        )));
    }
    let context = Context {
        args,
        files: &files,
        module_name: module.name().unwrap_or("(unnamed module)"),
        unread: errors.len(),
        invalid: report.invalid_rows(),
    };
    let mut out = std::io::BufWriter::new(&mut out);
    let page = args.html.as_ref().map(|_| html(&report, &context));
    if let (Some(path), Some(page), false) = (&args.html, &page, to_stdout) {
        std::fs::write(path, page)
            .map_err(|e| Failure::Input(format!("cannot write {}: {e}", path.display())))?;
    }
    let written = match &page {
        Some(page) if to_stdout => out.write_all(page.as_bytes()),
        _ if args.json => write_json(&report, &context, &mut out),
        _ => text_report(&report, &context, &mut out),
    }
    .and_then(|()| out.flush());
    // Stdout closed early (`| head`), or the page went to it: the
    // failures below are told and decide the exit status all the same.
    crate::common::closed_early(written.map_err(Failure::Io))?;
    let damaged = match (&report.assignment_unused, &assignment, &files.assignment) {
        (Some(damage), Some(ba), Some(path)) => {
            report_damage(*damage, ba, assignment_text, path, &mut error_out)?;
            true
        }
        _ => false,
    };
    // Every failure is told before the exit status says the first.
    let unread = report_unread(&errors, text, &name, &mut error_out);
    let d = report.dataflow();
    let mut lines = xla_layout_core::text::LineCursor::new(text);
    // Each at its instruction's line and column, as `scan` tells them.
    for (k, e) in &context.invalid {
        let row = &report.rows[*k];
        let message = format!(
            "the shape of {} is one XLA's validator rejects: {e}",
            d.value_name(row.value)
        );
        tell_at(
            &mut error_out,
            &mut lines,
            &name,
            d,
            row.value.instruction,
            &message,
        )?;
    }
    crate::common::tell_unshaped_of(&mut error_out, &mut lines, &name, d)?;
    crate::common::tell_misnamed_of(&mut error_out, &mut lines, &name, d)?;
    // A buffer in two memory spaces, at the value that disagrees.
    let disagree = report.spaces_disagree.len();
    if disagree > MAX_UNREAD_TOLD {
        writeln!(
            error_out,
            "{name}: {disagree} buffers are written in different memory spaces (the first \
             {MAX_UNREAD_TOLD} are named below)"
        )?;
    }
    for &(counted, other) in report.spaces_disagree.iter().take(MAX_UNREAD_TOLD) {
        let a = &report.rows[counted];
        let space =
            d.nodes(other.instruction)
                .get(other.node as usize)
                .map_or(a.space, |n| match n.kind {
                    xla_layout_hlo::dataflow::NodeKind::Array(x) => i64::from(x.space),
                    _ => a.space,
                });
        let message = format!(
            "{} (S({space})) is one buffer with {} (S({})): XLA keeps a buffer in one memory \
             space, so the module's shapes disagree; it is counted in S({})",
            d.value_name(other),
            d.value_name(a.value),
            a.space,
            a.space
        );
        tell_at(
            &mut error_out,
            &mut lines,
            &name,
            d,
            other.instruction,
            &message,
        )?;
    }
    if report.sizes_past_int64 {
        writeln!(error_out, "{name}: {PAST_INT64}")?;
    }
    if report.values_truncated {
        writeln!(error_out, "{name}: {TRUNCATED}")?;
    }
    unread?;
    crate::common::invalid_layouts(context.invalid.len(), &name)?;
    crate::common::unshaped(d.unshaped().len(), &name)?;
    crate::common::misnamed(report.misnamed_instructions, &name, true)?;
    crate::common::sizes_past_int64(report.sizes_past_int64, &name)?;
    // The report says the dump is cut short or edited: its figures are
    // not the program's.
    if report.entry_incomplete {
        return Err(Failure::Input(format!(
            "{name}: the entry computation is not all there (no ROOT, or fewer parameters \
             than its entry_computation_layout lists): the dump is cut short or edited"
        )));
    }
    // Instructions were left out, as unshaped ones are: a failure too.
    if report.values_truncated {
        return Err(Failure::Input(format!(
            "{name}: the analysis was cut short"
        )));
    }
    for r in [Some(&read), assignment_read.as_ref(), report_read.as_ref()]
        .into_iter()
        .flatten()
    {
        r.repaired_failure()?;
    }
    match (damaged, &files.assignment) {
        (true, Some(path)) => Err(Failure::Input(format!(
            "{} is not all of XLA's buffer assignment: it was not used",
            path.display()
        ))),
        _ => Ok(()),
    }
}

/// Where the buffer assignment falls short ([`Report::assignment_unused`]),
/// to `to`: each line that does not read, as `path:line:`.
fn report_damage(
    damage: AssignmentDamage,
    ba: &BufferAssignment,
    text: Option<&str>,
    path: &Path,
    mut to: impl Write,
) -> Result<(), Failure> {
    let path = path.display();
    let lines: Vec<&str> = text.map(|t| t.lines().collect()).unwrap_or_default();
    for &n in &ba.unread_lines {
        let line = lines.get(n - 1).map_or("", |l| l.trim());
        writeln!(
            to,
            "{path}:{n}: not an allocation or value as XLA writes them: {}",
            crate::common::shown(line)
        )?;
    }
    if ba.cut_short {
        writeln!(to, "{path}: ends inside a line (cut short?)")?;
    }
    match damage {
        AssignmentDamage::MissingArguments(n) => writeln!(
            to,
            "{path}: no allocation for {n} of the entry's argument arrays, which XLA allocates \
             each (cut short?)"
        )?,
        AssignmentDamage::ValuePastAllocation(n) => writeln!(
            to,
            "{path}: a value of allocation {n} runs past the allocation's size, where XLA \
             places each value inside (an edited line?)"
        )?,
        AssignmentDamage::MissingOutputs(n) => writeln!(
            to,
            "{path}: no allocation for {n} of the entry's output arrays, which XLA allocates \
             each (an allocation deleted?)"
        )?,
        _ => {}
    }
    Ok(())
}

/// Each part of the module that did not read, with its line and column,
/// to `to`; then the failure that makes the exit status 1, if there was
/// any (the report of the rest is already out).
fn report_unread(
    errors: &[xla_layout_hlo::HloError],
    text: &str,
    name: &str,
    mut to: impl Write,
) -> Result<(), Failure> {
    // In text order, lines counted once overall (quadratic from the start
    // each time, with an error on every line).
    let mut lines = xla_layout_core::text::LineCursor::new(text);
    for e in errors.iter().take(MAX_UNREAD_TOLD) {
        writeln!(to, "{}", e.render_with(&mut lines, name))?;
    }
    unread(errors.len(), name)
}

/// A space's bar: arguments, outputs not donated, constants, and the
/// temporary heap — XLA's where its buffer assignment was read, else the
/// report's estimate — so that the bar agrees with the text report.
fn bar_parts(s: &Space) -> [u64; 4] {
    [
        s.arguments,
        s.outputs.saturating_sub(s.aliased),
        s.constants,
        s.assigned.map_or(s.temp_heap, |a| a.temp),
    ]
}

/// A space's temporary heap for the table: XLA's, or marked as the
/// report's estimate.
fn heap_cell(s: &Space) -> String {
    match s.assigned {
        Some(a) => format!("XLA's heap {}", human(a.temp)),
        None => format!("heap ≈ {}, estimated", human(s.temp_heap)),
    }
}

/// What the printers need besides the report.
struct Context<'a> {
    args: &'a Args,
    files: &'a Files,
    module_name: &'a str,
    /// Parts of the module that did not read (skipped).
    unread: usize,
    /// Rows whose layout XLA's validator rejects, with the rule.
    invalid: Vec<(usize, xla_layout_core::ValidationError)>,
}

/// The module's file and the files XLA wrote beside it.
fn locate(args: &Args) -> Result<Files, Failure> {
    let dump = &args.dump;
    let module = if dump.is_dir() {
        crate::common::module_in_dir(dump, args.module.as_deref(), "memory")?
    } else if args.module.is_some() {
        return Err(Failure::Usage {
            command: "memory",
            message: format!(
                "--module picks among the modules of a dump directory, and {} is not one",
                dump.display()
            ),
        });
    } else {
        dump.clone()
    };
    let sibling = |kind: dump::Sibling| -> Option<PathBuf> {
        let p = PathBuf::from(dump::sibling(module.to_str()?, kind)?);
        // Not only a file: a directory of that name is an error to read,
        // not silence.
        p.exists().then_some(p)
    };
    let stdin = module.as_os_str() == "-";
    let assignment = match (&args.buffer_assignment, args.no_buffer_assignment || stdin) {
        (Some(p), _) => Some(p.clone()),
        (None, true) => None,
        (None, false) => sibling(dump::Sibling::BufferAssignment),
    };
    let report = if stdin {
        None
    } else {
        sibling(dump::Sibling::MemoryUsageReport)
    };
    let topology = (|| {
        let stem = dump::topology_dir(module.file_name()?.to_str()?)?;
        let p = module.with_file_name(stem).join("topology.textproto");
        p.is_file().then_some(p)
    })();
    Ok(Files {
        module,
        assignment,
        report,
        topology,
    })
}

/// XLA's `HumanReadableNumBytes`: `512B`, `4.00K`, `1.36M` (powers of 1024).
pub fn human(bytes: u64) -> String {
    if bytes < 1024 {
        return format!("{bytes}B");
    }
    let mut value = bytes as f64;
    let mut unit = 'B';
    for u in ['K', 'M', 'G', 'T', 'P', 'E'] {
        if value < 1024.0 {
            break;
        }
        value /= 1024.0;
        unit = u;
    }
    format!("{value:.2}{unit}")
}

/// `bytes / data`, or nothing without data.
fn expansion(data: u64, bytes: u64) -> Option<f64> {
    (data > 0).then(|| bytes as f64 / data as f64)
}

/// ` (4.0× expansion)` as XLA writes it, with a second decimal where one
/// would read 1.0 for an expansion that is not none.
fn expansion_text(data: u64, bytes: u64) -> String {
    match expansion(data, bytes) {
        Some(x) if x < 1.05 && bytes > data => format!(" ({x:.2}× expansion)"),
        Some(x) => format!(" ({x:.1}× expansion)"),
        None => String::new(),
    }
}

/// How a field's figure was come by, in words. Past int64, only a
/// figure at the limit was cut there ("capped"); the others are not the
/// compiler's either (a sum may have been cut before a subtraction).
fn source_text(f: &Field) -> &'static str {
    match f.source {
        Source::Exact => "exact",
        Source::BufferAssignment => "XLA's buffer assignment",
        Source::Estimated => "estimated",
        Source::PastInt64 if f.bytes == SIZE_LIMIT => "past int64: capped",
        Source::PastInt64 => "past int64: not the compiler's",
        s => s.name(),
    }
}

fn space_title(s: &Space) -> String {
    let mut t = format!("S({}) {}", s.space, s.name);
    if let Some(l) = &s.label {
        let _ = write!(t, " (XLA: {l})");
    }
    t
}

/// The buffers to show, each once with the values that share it: sorted,
/// the first `top` (all for 0).
fn shown(report: &Report, args: &Args) -> Vec<ListedBuffer> {
    let mut listed = report.by_buffer(args.sort);
    if args.top > 0 {
        listed.truncate(args.top);
    }
    listed
}

/// How many of a buffer's other values the text and HTML name: a loop
/// carries one buffer through every computation it passes, and the JSON
/// lists them all.
const MAX_SHARED_TOLD: usize = 8;

/// A value that shares a listed buffer, as the text and HTML name it:
/// `name = opcode (computation c)`, and its space where its text says
/// another than the buffer's (stderr says why that disagrees).
fn shared_text(report: &Report, listed: &ListedBuffer, k: usize) -> String {
    let row = &report.rows[k];
    let n = naming(report, row);
    let mut t = format!("{} = {}  (computation {})", n.name, n.opcode, n.computation);
    if row.space != report.rows[listed.row].space
        && let Some(s) = report.space(row.space)
    {
        let _ = write!(t, ", written in {}", space_title(s));
    }
    t
}

/// What names a value: read off the module, where [`Report::details`]
/// reads its shape's text too.
struct Naming<'a> {
    name: String,
    opcode: &'a str,
    computation: &'a str,
    instruction: &'a str,
}

fn naming<'a>(report: &Report<'_, 'a>, row: &Row) -> Naming<'a> {
    let d = report.dataflow();
    let (computation, instruction, opcode) = match d.instruction(row.value.instruction) {
        Some((k, i)) => (d.module().computations()[k].name(), i.name(), i.opcode()),
        None => ("", "", ""),
    };
    Naming {
        name: d.value_name(row.value),
        opcode,
        computation,
        instruction,
    }
}

/// `f` of each of `listed` (its number from 0, the buffer, its row's
/// details), every row's shape text read first, each instruction's once
/// ([`Report::details_of`]).
fn with_details<'a>(
    report: &Report<'_, 'a>,
    listed: &[ListedBuffer],
    mut f: impl FnMut(usize, &ListedBuffer, Details<'a>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let rows: Vec<usize> = listed.iter().map(|l| l.row).collect();
    for (n, (l, d)) in listed.iter().zip(report.details_of(&rows)).enumerate() {
        f(n, l, d)?;
    }
    Ok(())
}

/// The values sharing `listed`'s buffer, the first [`MAX_SHARED_TOLD`]
/// named, then how many more.
fn shared_lines(report: &Report, listed: &ListedBuffer) -> Vec<String> {
    let mut lines: Vec<String> = (listed.shared.iter().take(MAX_SHARED_TOLD))
        .map(|&k| shared_text(report, listed, k))
        .collect();
    if listed.shared.len() > MAX_SHARED_TOLD {
        lines.push(format!(
            "… and {} more",
            listed.shared.len() - MAX_SHARED_TOLD
        ));
    }
    lines
}

/// How many shapes the text and HTML list under padding (the JSON has
/// them all).
const SHAPES_TOLD: usize = 5;

/// Which of `n` shapes that pad are listed, text and HTML alike.
fn shapes_told(n: usize) -> String {
    match n {
        n if n > SHAPES_TOLD => format!("the {SHAPES_TOLD} of {n} shapes that pad most"),
        1 => "the 1 shape that pads".to_string(),
        n => format!("the {n} shapes that pad"),
    }
}

/// One shape's padding, text and HTML alike: `7.94K in 2 buffers of
/// SHAPE: 8.00K for 64B of elements (128.0× expansion); the largest: NAME
/// (computation C)`.
fn shape_padding_text(report: &Report, p: &ShapePadding) -> String {
    let largest = naming(report, &report.rows[p.largest_row]);
    format!(
        "{} in {} of {}: {} for {} of elements{}; {} {} (computation {})",
        human(p.padding_bytes),
        counted(p.buffers as u64, "buffer", "buffers"),
        p.shape,
        human(p.buffer_bytes),
        human(p.data_bytes),
        expansion_text(p.data_bytes, p.buffer_bytes),
        if p.buffers == 1 {
            "it is"
        } else {
            "the largest:"
        },
        largest.name,
        largest.computation
    )
}

/// The header of the list, text and HTML alike.
fn listing_title(report: &Report, args: &Args, shown: usize) -> String {
    format!(
        "Largest buffers (by {}, {shown} of {}; each once, with the values that share it)",
        match args.sort {
            Order::Bytes => "bytes",
            Order::Padding => "padding",
        },
        report.buffer_count()
    )
}

fn role_text(role: Role) -> String {
    match role {
        Role::Argument(n) => format!("argument {n}"),
        Role::Donated(n) => format!("argument {n}, donated: also output"),
        Role::PassedThrough(n) => format!(
            "argument {n}, also output with no input_output_alias (copy insertion would copy it)"
        ),
        Role::Output => "output".into(),
        Role::Constant => "constant".into(),
        Role::Temporary => "temporary".into(),
        _ => role.name().into(),
    }
}

fn backend_text(report: &Report, args: &Args) -> String {
    // "(detected)" goes with the backend, the one thing read off the dump;
    // a generation is only ever given.
    let mut t = report.backend.name().to_uppercase();
    if args.backend.is_none() {
        t.push_str(" (detected)");
    }
    if let Some(g) = report.generation {
        let _ = write!(t, ", {}", g.name());
        // Given, it may be contradicted below (by the buffer assignment's
        // tuple tables, or the dump's topology).
        if args.tpu.is_some() {
            t.push_str(" (--tpu)");
        }
    }
    t
}

/// `message` on `errors`, at instruction `id`'s line and column (with
/// the file's name alone where the id names none).
fn tell_at(
    errors: &mut impl Write,
    lines: &mut xla_layout_core::text::LineCursor<'_>,
    name: &str,
    d: &xla_layout_hlo::dataflow::Dataflow<'_, '_>,
    id: xla_layout_hlo::dataflow::InstructionId,
    message: &str,
) -> std::io::Result<()> {
    match d.instruction(id) {
        Some((_, i)) => writeln!(errors, "{}", i.span().render_with(lines, name, message)),
        None => writeln!(errors, "{name}: {message}"),
    }
}

/// What the report and stderr say of sizes past int64.
const PAST_INT64: &str = "the module's sizes add up past int64 (XLA's size type): the totals \
                          stop at int64's largest value and are not the compiler's numbers";

/// Why a report whose analysis was cut short is not the whole module.
const TRUNCATED: &str = "the module has more shape nodes or positions than this analysis \
                         numbers (2^32 - 1 of each): the instructions past them define no \
                         value, are left out, and the figures are estimates";

/// Where the text report says a warning's details are.
const TOLD_BELOW: &str = "below, on stderr";

/// What the reader should know before trusting the figures, in the order
/// the text report prints them (each after "warning: "); `told_at`: where
/// the details of one told on stderr are, as the format reads.
fn warnings(report: &Report, cx: &Context, told_at: &str) -> Vec<String> {
    let mut out = Vec::new();
    // A module dumped before memory-space assignment.
    let unplaced: Vec<String> = (report.spaces_without_values())
        .map(|s| {
            let total = s.assigned.map_or(0, |a| a.total);
            format!("{} in {}", human(total), s.name)
        })
        .collect();
    if !unplaced.is_empty() {
        out.push(format!(
            "XLA's buffer assignment allocates {} where no value of this module is: its memory \
             spaces were assigned after it was dumped (as in `…_before_buffer_assignment.txt`: \
             read the `…after_optimizations.txt` module): its values there count as HBM, and \
             what memory-space assignment adds (prefetches, copies) is missing, so the peak and \
             the temporaries are rough estimates",
            unplaced.join(", ")
        ));
    }
    // --tpu for a module sized as no TPU's: not used.
    if let Some(g) = cx.args.tpu
        && report.generation.is_none()
    {
        let backend = report.backend.name().to_uppercase();
        out.push(match cx.args.backend {
            Some(_) => format!(
                "--tpu {} is not used: --backend {} sizes the module as a {backend}'s",
                g.name(),
                report.backend.name()
            ),
            None => format!(
                "--tpu {} is not used: the module writes arrays with no tiles, which no TPU \
                 does, so it is sized as a {backend}'s (--backend tpu sizes it as a TPU's anyway)",
                g.name()
            ),
        });
    }
    // The buffer assignment knows the generation better than --tpu.
    if let Some((arity, bytes)) = report.tuples_fit_no_generation() {
        out.push(format!(
            "XLA's buffer assignment gives a {arity}-element tuple's index table {bytes} bytes, \
             which no known TPU generation does (4 bytes an element, in units of 512 on v4 and \
             v5e, 32 on v5p and v6e): tuple tables are estimated"
        ));
    }
    if let Some((given, topology)) = report.topology_contradicted() {
        let shown = report
            .tuple_tables
            .is_some_and(|t| t.source == Source::BufferAssignment);
        let tables = if given.tuple_table_unit() == topology.tuple_table_unit() {
            format!("{} was used (both size tuple tables alike)", given.name())
        } else if shown {
            "they size tuple tables differently, and XLA's buffer assignment shows how".into()
        } else {
            format!(
                "{} was used, and as the two size tuple tables differently, the figures those \
                 enter are estimates",
                given.name()
            )
        };
        out.push(format!(
            "--tpu {} contradicts the dump's topology.textproto, which names {}: {tables}",
            given.name(),
            topology.name(),
        ));
    }
    if let Some((g, arity, bytes)) = report.generation_contradicted() {
        out.push(format!(
            "XLA's buffer assignment gives a {arity}-element tuple's index table {bytes} bytes, \
             {} gives it {}: is the dump from another TPU generation?",
            g.name(),
            g.tuple_table_bytes(arity),
        ));
    }
    if let Some(why) = report.assignment_unused {
        out.push(format!(
            "XLA's buffer assignment is not used: {why} ({told_at}), and a part would \
             pass for the whole; the figures come from the module alone"
        ));
    }
    if let Some((k, e)) = cx.invalid.first() {
        let d = report.details(&report.rows[*k]);
        let count = counted(
            cx.invalid.len() as u64,
            "array has a shape",
            "arrays have shapes",
        );
        out.push(format!(
            "{count} that XLA's validator rejects, counted as 0 bytes ({told_at}; the \
             first: {} {}: {e}): XLA would refuse the module, and the figures are estimates",
            d.name, d.shape
        ));
    }
    // Values XLA's buffer assignment sizes otherwise: the module's text
    // does not write what XLA allocated (`compiled.as_text()` prints a
    // TPU's SMEM flags as bare `u32[]`, which then count as 4 KiB of HBM).
    let mut resized =
        (report.rows.iter()).filter(|r| r.assigned_bytes.is_some_and(|b| b != r.bytes));
    if let Some(first) = resized.next() {
        let d = report.details(first);
        let count = counted(1 + resized.count() as u64, "value is", "values are");
        let why = match cx.args.backend {
            Some(b) => format!(
                "--backend {} sizes the values as that backend allocates them, not as the \
                 dump's did",
                b.name()
            ),
            None => "the module's text does not write what XLA allocated (as \
                     `compiled.as_text()` leaves out the layouts of some scalars: the dump's \
                     `…after_optimizations.txt` writes them)"
                .to_string(),
        };
        out.push(format!(
            "{count} sized otherwise in XLA's buffer assignment (the first: {} {}, {} here, {} \
             there): {why}, so the figures from the module are estimates",
            d.name,
            d.shape,
            group(first.bytes),
            group(first.assigned_bytes.unwrap_or_default()),
        ));
    }
    // Arrays with no size (past the validator's rejections): unbounded.
    let invalid: std::collections::HashSet<usize> = cx.invalid.iter().map(|&(k, _)| k).collect();
    let mut unsized_rows =
        (report.rows.iter().enumerate()).filter(|(k, r)| !r.sized && !invalid.contains(k));
    if let Some((_, first)) = unsized_rows.next() {
        let d = report.details(first);
        let count = counted(
            1 + unsized_rows.count() as u64,
            "array has no defined size",
            "arrays have no defined size",
        );
        out.push(format!(
            "{count} (the first: {} {}; an unbounded dimension, `?`, which no compiled program \
             holds, or a tiled size past 64 bits), counted as 0 bytes or the bytes of its \
             dimension sizes: the figures are estimates",
            d.name, d.shape
        ));
    }
    // What was left out of the figures or read as written, each also
    // told on stderr: (how many, one, several, then before and after
    // where it is told).
    let told = [
        (
            cx.unread,
            "part of the module did not read and is",
            "parts of the module did not read and are",
            "left out ",
            ": the figures are estimates",
        ),
        (
            report.unshaped_instructions,
            "instruction has",
            "instructions have",
            "no shape written and none inferred ",
            ": left out, and the figures are estimates",
        ),
        (
            report.misnamed_instructions,
            "instruction names an operand or computation that does not exist or repeats a name",
            "instructions name operands or computations that do not exist or repeat names",
            "",
            ": XLA's parser refuses such a module, and the figures are estimates",
        ),
    ];
    for (n, one, many, before, after) in told {
        if n > 0 {
            out.push(format!(
                "{} {before}({told_at}){after}",
                counted(n as u64, one, many)
            ));
        }
    }
    if !report.spaces_disagree.is_empty() {
        out.push(format!(
            "{} written in different memory spaces ({told_at}): XLA keeps a buffer in \
             one, so the module's shapes disagree; each is counted in the space of the value \
             that stands for it",
            counted(
                report.spaces_disagree.len() as u64,
                "buffer is",
                "buffers are"
            )
        ));
    }
    if report.sizes_past_int64 {
        out.push(PAST_INT64.into());
    }
    if report.values_truncated {
        out.push(TRUNCATED.into());
    }
    let unknown = report.dataflow().module().unknown_opcodes();
    if !unknown.is_empty() {
        let list: Vec<String> = unknown
            .iter()
            .map(|(op, n)| format!("{op} ({n})"))
            .collect();
        out.push(format!(
            "opcodes XLA does not know: {}; each is taken to define a buffer of its own \
             (a dump from a newer XLA?)",
            list.join(", ")
        ));
    }
    if !report.entry_marked {
        out.push(
            "no computation is marked ENTRY, as XLA marks one: the last is taken as the entry, \
             as XLA does, and the figures are estimates (is the dump cut short?)"
                .into(),
        );
    }
    if report.before_partitioning {
        out.push(
            "the module is to run on several devices (num_partitions) and is not scheduled, as a \
             dump from before SPMD partitioning: its arrays are the whole program's, not one \
             device's, and the figures are estimates (the after_optimizations dump has one \
             device's)"
                .into(),
        );
    }
    if report.entry_incomplete {
        out.push(
            "the entry computation has no ROOT, or fewer parameters than its \
             entry_computation_layout lists, where XLA writes them all: the dump is cut short \
             or edited, and the figures are estimates"
                .into(),
        );
    } else if !report.layouts_assigned {
        out.push(
            "the entry's parameters or result do not have the shapes of the module's \
             entry_computation_layout, as in a dump from before optimisation: its arrays are \
             sized with XLA's default layouts, not the device's, and the figures are estimates \
             (the after_optimizations dump has the device's layouts)"
                .into(),
        );
    }
    out
}

/// The report for people, in the manner of XLA's out-of-memory report.
fn text_report(report: &Report, cx: &Context, out: &mut impl Write) -> std::io::Result<()> {
    let args = cx.args;
    let mut o = String::new();
    let d = report.dataflow();
    let _ = writeln!(
        o,
        "{}: {}, {}; {} in {}",
        cx.module_name,
        backend_text(report, args),
        if report.scheduled {
            "scheduled"
        } else {
            "not scheduled (text order taken as the schedule)"
        },
        counted(report.rows.len() as u64, "value", "values"),
        counted(report.buffer_count() as u64, "buffer", "buffers")
    );
    // After SPMD partitioning every shape is one device's shard: a
    // padded dimension is the global one divided (vocab 32000 over 4
    // devices pads 8000, not 32000).
    if let Some(n) = report.sharded_over() {
        let _ = writeln!(
            o,
            "Partitioned for {n} devices: every shape and size here is one device's"
        );
    }
    if let Some(t) = report.tuple_tables {
        let _ = writeln!(
            o,
            "Tuple index tables: 4 bytes an element, in units of {} bytes ({})",
            t.generation.tuple_table_unit(),
            match t.source {
                Source::Estimated if report.tuples_fit_no_generation().is_some() => {
                    "assumed: XLA's buffer assignment fits no known generation"
                }
                Source::Estimated if report.topology_contradicted().is_some() => {
                    "--tpu's, which the dump's topology.textproto contradicts: estimated"
                }
                Source::Estimated => "assumed; give --tpu GEN",
                Source::BufferAssignment => "as XLA's buffer assignment sizes them",
                _ if cx.args.tpu.is_none() && cx.files.topology.is_some() => {
                    "the generation's, from the dump's topology.textproto"
                }
                _ => "the generation's",
            }
        );
    }
    match &cx.files.assignment {
        Some(p) if report.assignment_unused.is_some() => {
            let _ = writeln!(o, "XLA's buffer assignment: {} (not used)", p.display());
        }
        Some(p) => {
            let _ = writeln!(o, "XLA's buffer assignment: {}", p.display());
        }
        None => {
            let _ = writeln!(
                o,
                "No buffer assignment read: sizes and roles from the module alone."
            );
        }
    }
    for w in warnings(report, cx, TOLD_BELOW) {
        let _ = writeln!(o, "warning: {w}");
    }
    let _ = writeln!(
        o,
        "\nmemory_analysis() (as jax's compiled.memory_analysis() reports it):"
    );
    for (name, f) in fields(report) {
        let _ = writeln!(
            o,
            "  {name:<29} {:>15} {:>9}  {}",
            group(f.bytes),
            human(f.bytes),
            source_text(&f)
        );
    }
    let _ = writeln!(o, "\nMemory spaces:");
    for s in &report.spaces {
        let _ = writeln!(
            o,
            "  {}{}: {}, {} ({}) of which {} padding",
            space_title(s),
            if s.host { ", host memory" } else { "" },
            counted(s.buffers as u64, "buffer", "buffers"),
            human(s.buffer_bytes),
            group(s.buffer_bytes),
            human(s.padding_bytes)
        );
        let _ = writeln!(
            o,
            "      arguments {}, outputs {}{}, constants {}, temporaries {}, at most {} at once{}",
            human(s.arguments),
            human(s.outputs),
            if s.aliased > 0 {
                format!(" ({} of them donated arguments)", human(s.aliased))
            } else {
                String::new()
            },
            human(s.constants),
            human(s.temporaries),
            human(s.temp_peak),
            // XLA's own heap follows on the next line when its buffer
            // assignment was read; ours is only an estimate of it.
            if s.temp_heap != s.temp_peak && s.assigned.is_none() {
                format!(
                    " (estimated: a {} heap in {} KiB pages)",
                    human(s.temp_heap),
                    tpu::HEAP_PAGE >> 10
                )
            } else {
                String::new()
            }
        );
        if let Some(a) = s.assigned.filter(|a| a.count == 0 && a.thread_local > 0) {
            let _ = writeln!(
                o,
                "      XLA's allocations: only reducers' thread-local scratch, {}",
                human(a.thread_local)
            );
        } else if let Some(a) = &s.assigned {
            let _ = writeln!(
                o,
                "      XLA's allocations: {} in {}: parameters {}, outputs {}, constants {}, temporary heap {}{}{}",
                human(a.total),
                a.count,
                human(a.parameters),
                human(a.outputs),
                human(a.constants),
                human(a.temp),
                if report.heap_is_mostly_rounding(s.space) {
                    format!(
                        " (each temporary starts at a multiple of {} KiB: most of the heap is \
                         that rounding, beside the temporaries' own bytes)",
                        tpu::HEAP_PAGE >> 10
                    )
                } else {
                    String::new()
                },
                if a.thread_local > 0 {
                    format!(
                        "; besides, reducers' thread-local scratch {}",
                        human(a.thread_local)
                    )
                } else {
                    String::new()
                }
            );
        }
    }
    let (data, bytes) = report.padding();
    let _ = writeln!(
        o,
        "\nExtra memory due to padding: {}{} — {} of elements in {} of device buffers (all of them, live at once or not)",
        human(report.padding_bytes()),
        expansion_text(data, bytes),
        human(data),
        human(bytes)
    );
    let by_shape = report.padding_by_shape();
    if !by_shape.is_empty() {
        let _ = writeln!(
            o,
            "  by shape ({}; each buffer once, most padding first):",
            shapes_told(by_shape.len())
        );
        for p in by_shape.iter().take(SHAPES_TOLD) {
            let _ = writeln!(o, "    {}", shape_padding_text(report, p));
            for r in &p.reasons {
                let _ = writeln!(o, "      {r}");
            }
        }
    }
    if let Some(p) = &report.peak {
        let instruction = d.instruction(p.instruction).map_or("?", |(_, i)| i.name());
        let spaces: Vec<String> = p
            .spaces
            .iter()
            .filter_map(|&s| report.space(s))
            .map(|s| s.name.clone())
            .collect();
        let _ = writeln!(
            o,
            "Most bytes live at once, by the schedule (estimate): {} ({}) in {} at {} (step {} of {}), {} live",
            human(p.bytes),
            group(p.bytes),
            spaces.join(" + "),
            instruction,
            p.at + 1,
            d.schedule().len(),
            counted(p.live.len() as u64, "buffer", "buffers")
        );
        if let Some((data, bytes)) = report.padding_at_peak() {
            let _ = writeln!(
                o,
                "  of which padding: {}{}",
                human(report.padding_bytes_at_peak().unwrap_or(0)),
                expansion_text(data, bytes)
            );
        }
        // The peak adds spaces at one step; each has its own, and on a TPU
        // jax's figure is not always their sum (docs/memory-report.md §4).
        if p.spaces.len() > 1 {
            let own: Vec<String> = (p.spaces.iter())
                .filter_map(|&s| report.space(s))
                .map(|s| match s.live_peak_at {
                    Some(at) => format!("{} {} (step {})", s.name, human(s.live_peak), at + 1),
                    None => format!("{} {}", s.name, human(s.live_peak)),
                })
                .collect();
            let _ = writeln!(o, "  each space at its own most: {}", own.join(", "));
        }
    }
    let listed = shown(report, args);
    let _ = writeln!(o, "\n{}:", listing_title(report, args, listed.len()));
    out.write_all(o.as_bytes())?;
    // Buffer by buffer: with --top 0 a large module has hundreds of
    // thousands.
    with_details(report, &listed, |n, l, d| {
        let mut text = String::new();
        write_row(&mut text, report, &report.rows[l.row], &d, n + 1);
        // A parameter, its in-place update and its prefetch are one
        // buffer: named here, not listed as three arrays.
        if !l.shared.is_empty() {
            let _ = writeln!(
                text,
                "     Same buffer, no more memory: {}",
                counted(l.shared.len() as u64, "other value", "other values")
            );
            for line in shared_lines(report, l) {
                let _ = writeln!(text, "       {line}");
            }
        }
        out.write_all(text.as_bytes())
    })
}

fn write_row(o: &mut String, report: &Report, row: &Row, d: &Details, n: usize) {
    let space = report.space(row.space);
    let _ = writeln!(
        o,
        "\n  {n}. Size: {} ({} bytes)",
        human(row.bytes),
        group(row.bytes)
    );
    if !d.shape.is_empty() {
        // Not written in the module: this reader's inference gave it.
        let written = (report.dataflow().instruction(row.value.instruction))
            .is_some_and(|(_, i)| i.shape_text().is_some());
        let how = if written { "" } else { " (inferred)" };
        let _ = writeln!(o, "     Shape: {}{how}", d.shape);
    } else if row.tuple_table {
        let _ = writeln!(o, "     Shape: a tuple's index table");
    }
    let _ = writeln!(o, "     Unpadded size: {}", human(row.data_bytes));
    if row.padding_bytes() > 0 {
        let _ = writeln!(
            o,
            "     Extra memory due to padding: {}{}",
            human(row.padding_bytes()),
            expansion_text(row.data_bytes, row.bytes)
        );
        for r in &d.reasons {
            let _ = writeln!(o, "       {r}");
        }
    } else {
        // Why none, where its text's tiles would pad it (SMEM's words).
        for r in &d.reasons {
            let _ = writeln!(o, "     No padding: {r}");
        }
    }
    let _ = writeln!(
        o,
        "     XLA label: {} = {}  (computation {})",
        d.name, d.opcode, d.computation
    );
    let mut kind = role_text(row.role);
    if let Some((index, offset)) = row.allocation {
        let _ = write!(kind, "; XLA's allocation {index}, offset {offset}");
    }
    let _ = writeln!(o, "     Allocation type: {kind}");
    if let Some(s) = space {
        let _ = write!(o, "     Memory space: {}", space_title(s));
        match row.live {
            Some((a, b)) => {
                let _ = writeln!(o, "; live from step {} to {}", a + 1, b + 1);
            }
            None => o.push('\n'),
        }
    }
    if d.metadata.op_name.is_some() || d.metadata.op_type.is_some() {
        let mut op = String::new();
        if let Some(t) = d.metadata.op_type {
            let _ = write!(op, "op_type=\"{}\" ", unescape(t));
        }
        if let Some(n) = d.metadata.op_name {
            let _ = write!(op, "op_name=\"{}\"", unescape(n));
        }
        let _ = writeln!(o, "     Operator: {}", op.trim_end());
    }
    if let Some(l) = d.location {
        let _ = writeln!(o, "     Source: {l}");
    }
    if let Some(from) = d.metadata_from {
        let how = if d.opcode == "fusion" {
            "which computes it in the fusion's body"
        } else {
            "which it is taken from: it has no metadata of its own"
        };
        let _ = writeln!(
            o,
            "     (the operator and source are those of {from}, {how})"
        );
    }
}

/// `memory_analysis()`'s fields as the report shows them, with the
/// library's sources (which call none exact where parts of the module did
/// not read or a layout XLA's validator rejects is counted).
fn fields(report: &Report) -> impl Iterator<Item = (&'static str, Field)> {
    report.memory_analysis.fields().into_iter()
}

fn field_json(f: Field) -> (Value, Value) {
    (json!(f.bytes), json!(f.source.name()))
}

/// The report as one JSON object (docs/memory-report.md describes it):
/// the summary indented, then `buffers` one compact object per line,
/// written as they are made (a large module has hundreds of thousands).
fn write_json(report: &Report, cx: &Context, out: &mut impl Write) -> std::io::Result<()> {
    let head =
        serde_json::to_string_pretty(&json_head(report, cx)).map_err(std::io::Error::from)?;
    // `head` ends with "\n}": the buffers go before the brace.
    let head = head.strip_suffix("\n}").unwrap_or(&head);
    // The spaces, one compact object a line, where the placeholder is.
    // The last occurrence: no key after `spaces` holds text from the input.
    let marker = serde_json::to_string(SPACES_GO_HERE).map_err(std::io::Error::from)?;
    let (before, after) = head.rsplit_once(&marker).unwrap_or((head, ""));
    out.write_all(before.as_bytes())?;
    out.write_all(b"[")?;
    for (n, s) in report.spaces.iter().enumerate() {
        out.write_all(if n == 0 { b"\n    " } else { b",\n    " })?;
        serde_json::to_writer(&mut *out, &space_json(s)).map_err(std::io::Error::from)?;
    }
    out.write_all(if report.spaces.is_empty() {
        b"]"
    } else {
        b"\n  ]"
    })?;
    out.write_all(after.as_bytes())?;
    out.write_all(b",\n  \"buffers\": [")?;
    with_details(report, &shown(report, cx.args), |n, l, d| {
        out.write_all(if n == 0 { b"\n    " } else { b",\n    " })?;
        let mut v = row_json(report, &report.rows[l.row], &d);
        v["shared_with"] = (l.shared.iter())
            .map(|&k| shared_json(report, &report.rows[k]))
            .collect();
        serde_json::to_writer(&mut *out, &v).map_err(std::io::Error::from)
    })?;
    out.write_all(b"\n  ]\n}\n")
}

/// Where `json_head` leaves the spaces to `write_json`.
const SPACES_GO_HERE: &str = "\u{1}spaces\u{1}";

/// Every key of the JSON object but `buffers`.
fn json_head(report: &Report, cx: &Context) -> Value {
    let args = cx.args;
    let d = report.dataflow();
    let mut ma = serde_json::Map::new();
    let mut src = serde_json::Map::new();
    for (name, f) in fields(report) {
        let (b, s) = field_json(f);
        ma.insert(name.into(), b);
        src.insert(name.into(), s);
    }
    let (data, bytes) = report.padding();
    let peak = report.peak.as_ref().map(|p| {
        let at = d.instruction(p.instruction);
        json!({
            "bytes": p.bytes,
            "spaces": p.spaces,
            "step": p.at,
            "steps": d.schedule().len(),
            "instruction": at.map(|(_, i)| i.name()),
            "computation": at.and_then(|(k, _)| d.module().computations().get(k)).map(|c| c.name()),
            "live_buffers": p.live.len(),
            "padding_bytes": report.padding_bytes_at_peak(),
        })
    });
    json!({
        "module": cx.module_name,
        "file": cx.files.module.display().to_string(),
        "buffer_assignment": cx.files.assignment.as_ref().map(|p| p.display().to_string()),
        "buffer_assignment_used": cx.files.assignment.is_some() && report.assignment_unused.is_none(),
        "memory_usage_report": cx.files.report.as_ref().map(|p| p.display().to_string()),
        "backend": report.backend.name(),
        "backend_detected": args.backend.is_none(),
        "tpu_generation": report.generation.map(|g| g.name()),
        "tuple_table_unit": report.tuple_tables.map(|t| t.generation.tuple_table_unit()),
        "tuple_table_source": report.tuple_tables.map(|t| t.source.name()),
        "scheduled": report.scheduled,
        "partitions": report.partitions(),
        "entry_marked": report.entry_marked,
        "layouts_assigned": report.layouts_assigned,
        "entry_incomplete": report.entry_incomplete,
        "unknown_opcodes": report
            .dataflow()
            .module()
            .unknown_opcodes()
            .iter()
            .map(|(op, n)| json!({"opcode": op, "instructions": n}))
            .collect::<Vec<_>>(),
        "unread_parts": cx.unread,
        "unshaped_instructions": report.unshaped_instructions,
        "misnamed_instructions": report.misnamed_instructions,
        "spaces_disagree": report
            .spaces_disagree
            .iter()
            .map(|&(a, b)| [d.value_name(report.rows[a].value), d.value_name(b)])
            .collect::<Vec<_>>(),
        "sizes_past_int64": report.sizes_past_int64,
        // Below the text report; beside the JSON.
        "warnings": warnings(report, cx, "on stderr"),
        "memory_analysis": ma,
        "memory_analysis_source": src,
        "padding": {
            "data_bytes": data,
            "buffer_bytes": bytes,
            "padding_bytes": report.padding_bytes(),
            "expansion": expansion(data, bytes),
        },
        "padding_by_shape": (report.padding_by_shape().iter())
            .map(|p| {
                let largest = naming(report, &report.rows[p.largest_row]);
                json!({
                    "shape": p.shape,
                    "buffers": p.buffers,
                    "buffer_bytes": p.buffer_bytes,
                    "data_bytes": p.data_bytes,
                    "padding_bytes": p.padding_bytes,
                    "expansion": expansion(p.data_bytes, p.buffer_bytes),
                    "reasons": p.reasons,
                    "largest": {"name": largest.name, "computation": largest.computation},
                })
            })
            .collect::<Vec<_>>(),
        "peak": peak,
        // Streamed by `write_json`, one space at a time: a buffer
        // assignment can have tens of thousands of colors.
        "spaces": SPACES_GO_HERE,
        "values": report.rows.len(),
        "buffer_count": report.buffer_count(),
        "sort": match args.sort { Order::Bytes => "bytes", Order::Padding => "padding" },
        "top": args.top,
    })
}

/// One memory space's object in the JSON report.
fn space_json(s: &Space) -> Value {
    json!({
        "space": s.space,
        "name": s.name,
        "xla_label": s.label,
        "host": s.host,
        "buffers": s.buffers,
        "buffer_bytes": s.buffer_bytes,
        "data_bytes": s.data_bytes,
        "padding_bytes": s.padding_bytes,
        "arguments": s.arguments,
        "outputs": s.outputs,
        "aliased": s.aliased,
        "constants": s.constants,
        "temporaries": s.temporaries,
        "temp_peak": s.temp_peak,
        "temp_heap": s.temp_heap,
        "live_peak": s.live_peak,
        "live_peak_step": s.live_peak_at,
        "xla_allocations": s.assigned.map(|a| json!({
            "count": a.count,
            "total": a.total,
            "parameters": a.parameters,
            "outputs": a.outputs,
            "aliased": a.aliased,
            "constants": a.constants,
            "temp": a.temp,
            "thread_local": a.thread_local,
        })),
    })
}

fn row_json(report: &Report, row: &Row, d: &Details) -> Value {
    let node = value_index(report, row);
    json!({
        "name": d.name,
        "computation": d.computation,
        "instruction": d.instruction,
        "opcode": d.opcode,
        "index": node,
        "shape": if d.shape.is_empty() { Value::Null } else { json!(d.shape) },
        "tuple_table": row.tuple_table,
        "space": row.space,
        "bytes": row.bytes,
        "data_bytes": row.data_bytes,
        "padding_bytes": row.padding_bytes(),
        "expansion": expansion(row.data_bytes, row.bytes),
        "reasons": d.reasons,
        "role": row.role.name(),
        "parameter": row.role.parameter(),
        "buffer": row.buffer_id(),
        "live": row.live.map(|(a, b)| [a, b]),
        "xla_allocation": row.allocation.map(|(index, offset)| json!({"index": index, "offset": offset})),
        "op_name": d.metadata.op_name.map(|n| unescape(n).into_owned()),
        "op_type": d.metadata.op_type.map(|n| unescape(n).into_owned()),
        "metadata_from": d.metadata_from,
        "source": d.location.map(|l| json!({
            "file": unescape(l.file),
            "line": l.line,
            "function": l.function.map(|f| unescape(f).into_owned()),
        })),
    })
}

/// A value that shares a listed buffer, in the JSON: what names it and
/// where its text puts it.
fn shared_json(report: &Report, row: &Row) -> Value {
    let n = naming(report, row);
    json!({
        "name": n.name,
        "computation": n.computation,
        "instruction": n.instruction,
        "opcode": n.opcode,
        "index": value_index(report, row),
        "space": row.space,
        "bytes": row.bytes,
    })
}

/// The index of `row`'s value in its instruction's shape (`[]` for an
/// array-shaped instruction).
fn value_index(report: &Report, row: &Row) -> Vec<u32> {
    report
        .dataflow()
        .nodes(row.value.instruction)
        .get(row.value.node as usize)
        .map(|n| report.dataflow().index_of(n).to_vec())
        .unwrap_or_default()
}

/// The values sharing a listed buffer, under its name in the HTML table.
fn shared_html(report: &Report, listed: &ListedBuffer) -> String {
    let lines = shared_lines(report, listed);
    if lines.is_empty() {
        return String::new();
    }
    let items: Vec<String> = lines.iter().map(|t| escape(t)).collect();
    format!(
        "<div class=\"shared\">same buffer: {}</div>",
        items.join("<br/>")
    )
}

/// `text` with `&`, `<`, `>`, `"` escaped for HTML.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Colors of the roles, in the page and its legend, in `RoleKind`'s order.
const COLORS: [(&str, &str); 4] = [
    ("arguments", "#4e79a7"),
    ("outputs", "#59a14f"),
    ("constants", "#b07aa1"),
    ("temporaries", "#f28e2b"),
];

fn role_color(role: Role) -> &'static str {
    // A match, not an index: a new kind fails to build here.
    match role.kind() {
        RoleKind::Argument => COLORS[0].1,
        RoleKind::Output => COLORS[1].1,
        RoleKind::Constant => COLORS[2].1,
        RoleKind::Temporary => COLORS[3].1,
    }
}

const STYLE: &str = r#"
body { font: 14px/1.45 -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; margin: 24px 32px; color: #1d2330; background: #fff; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 28px 0 10px; border-bottom: 1px solid #dde1e8; padding-bottom: 4px; }
.sub { color: #5b6478; margin: 0 0 16px; }
.warn { color: #7a4b00; background: #fff6e0; border-left: 3px solid #e0a000; padding: 6px 10px; margin: 0 0 10px; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; }
.card { border: 1px solid #dde1e8; border-radius: 8px; padding: 10px 14px; min-width: 170px; }
.card .k { color: #5b6478; font-size: 12px; }
.card .v { font-size: 20px; font-weight: 600; }
.card .s { font-size: 11px; }
.exact, .buffer-assignment { color: #2a7a2a; }
.estimated { color: #a35a00; }
table { border-collapse: collapse; }
td, th { padding: 3px 10px; text-align: left; vertical-align: top; }
th { color: #5b6478; font-weight: 600; font-size: 12px; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
tr:nth-child(even) td { background: #f6f7f9; }
.legend span { display: inline-block; margin-right: 16px; font-size: 12px; }
.legend i { display: inline-block; width: 12px; height: 12px; border-radius: 2px; margin-right: 5px; vertical-align: -2px; }
.pad { background: repeating-linear-gradient(45deg, #c9ced8, #c9ced8 3px, #eef0f4 3px, #eef0f4 6px); }
.reason { color: #5b6478; font-size: 12px; }
.shared { color: #5b6478; font-size: 12px; }
code { font-size: 12px; }
svg { max-width: 100%; height: auto; }
.wide { overflow-x: auto; }
td.reason { min-width: 14em; }
/* op_name paths and source lines run long: wrapped, not past the page. */
td.src { max-width: 36em; overflow-wrap: anywhere; }
svg text { font: 12px -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; fill: #1d2330; }
"#;

/// Whether `a` and `b` name one existing file (`-`, stdin, is no file).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Per space, the share of padding in each role's bytes (arguments,
/// outputs, constants, temporaries) and that padding, one buffer counted
/// once. Keyed by space (a search per row and per space was quadratic),
/// the sums saturate (sizes past u64 are refused elsewhere, but must not
/// wrap).
fn padding_shares(report: &Report) -> std::collections::BTreeMap<i64, [(f64, u64); 4]> {
    let mut sums: std::collections::BTreeMap<i64, [(u64, u64); 4]> = Default::default();
    let mut seen = std::collections::HashSet::new();
    for row in &report.rows {
        if row.buffer_id().is_some_and(|b| !seen.insert(b)) {
            continue;
        }
        let k = row.role.kind() as usize;
        let cell = &mut sums.entry(row.space).or_default()[k];
        cell.0 = add_bytes(cell.0, row.bytes);
        cell.1 = add_bytes(cell.1, row.padding_bytes());
    }
    sums.into_iter()
        .map(|(s, parts)| {
            (
                s,
                parts.map(|(b, p)| (if b == 0 { 0.0 } else { p as f64 / b as f64 }, p)),
            )
        })
        .collect()
}

/// The bytes live over the schedule as an SVG area chart, the peak marked.
fn timeline(o: &mut String, report: &Report) {
    let Some(peak) = &report.peak else { return };
    let series = report.live_bytes(&peak.spaces);
    if series.is_empty() {
        return;
    }
    // The peak's label goes in the band above the plot, clear of the area.
    let (w, h, left, top) = (1000.0, 160.0, 60.0, 26.0);
    let max = series.iter().copied().max().unwrap_or(1).max(1) as f64;
    // At most one point per pixel: the largest of the steps it covers.
    let points = series.len().min(w as usize);
    let mut path = format!("M{left:.1},{:.1}", top + h);
    for p in 0..points {
        let from = p * series.len() / points;
        let to = ((p + 1) * series.len() / points).max(from + 1);
        let v = series[from..to].iter().copied().max().unwrap_or(0) as f64;
        let x = left + w * p as f64 / points as f64;
        let x2 = left + w * (p + 1) as f64 / points as f64;
        let y = top + h - h * v / max;
        let _ = write!(path, " L{x:.1},{y:.1} L{x2:.1},{y:.1}");
    }
    let _ = write!(path, " L{:.1},{:.1} Z", left + w, top + h);
    let px = left + w * (peak.at as f64 + 0.5) / series.len() as f64;
    let svg_h = top + h + 30.0;
    let _ = writeln!(
        o,
        "<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1240 {svg_h:.0}\" width=\"1240\" height=\"{svg_h:.0}\" role=\"img\">\n<path d=\"{path}\" fill=\"#9ab6d3\" stroke=\"#4e79a7\" stroke-width=\"1\"/>\n<line x1=\"{left}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#5b6478\"/>\n<text x=\"0\" y=\"{:.1}\">{}</text><text x=\"0\" y=\"{:.1}\">0</text>\n<line x1=\"{px:.1}\" y1=\"{top}\" x2=\"{px:.1}\" y2=\"{:.1}\" stroke=\"#c0392b\" stroke-dasharray=\"4 3\"/>\n<text x=\"{:.1}\" y=\"{:.1}\" fill=\"#c0392b\" text-anchor=\"{}\">peak {} at step {}</text>\n<text x=\"{left}\" y=\"{:.1}\">step 1</text><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">step {}</text>\n</svg>",
        top + h,
        left + w,
        top + h,
        top + 12.0,
        human(max as u64),
        top + h,
        top + h,
        // The label on the side of the line with more room.
        if px > left + w / 2.0 {
            px - 6.0
        } else {
            px + 6.0
        },
        top - 10.0,
        if px > left + w / 2.0 { "end" } else { "start" },
        human(peak.bytes),
        peak.at + 1,
        top + h + 18.0,
        left + w,
        top + h + 18.0,
        series.len()
    );
}

/// One self-contained page: totals per space, and the buffers as bars
/// whose padding is hatched.
fn html(report: &Report, cx: &Context) -> String {
    let args = cx.args;
    let d = report.dataflow();
    let mut o = String::new();
    let title = format!("Memory of {}", cx.module_name);
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        escape(&title)
    );
    let _ = writeln!(o, "<h1>{}</h1>", escape(&title));
    let _ = writeln!(
        o,
        "<p class=\"sub\">{} · {}{} · {} in {} · {}</p>",
        escape(&backend_text(report, args)),
        if report.scheduled {
            "scheduled"
        } else {
            "not scheduled"
        },
        report
            .sharded_over()
            .map(|n| format!(" · partitioned for {n} devices: shapes and sizes are one device's"))
            .unwrap_or_default(),
        counted(report.rows.len() as u64, "value", "values"),
        counted(report.buffer_count() as u64, "buffer", "buffers"),
        escape(&match &cx.files.assignment {
            Some(p) if report.assignment_unused.is_some() => {
                format!("XLA's buffer assignment: {} (not used)", p.display())
            }
            Some(p) => format!("XLA's buffer assignment: {}", p.display()),
            None => "no buffer assignment: sizes from the module alone".into(),
        })
    );
    // The page has no stderr below it: the details went to the command's.
    for w in warnings(report, cx, "on the command's stderr") {
        let _ = writeln!(o, "<p class=\"warn\">warning: {}</p>", escape(&w));
    }

    // memory_analysis() as cards.
    let _ = writeln!(
        o,
        "<h2>memory_analysis()</h2>\n<div class=\"cards\" id=\"memory-analysis\">"
    );
    for (name, f) in fields(report) {
        let _ = writeln!(
            o,
            "<div class=\"card\" data-field=\"{name}\" data-bytes=\"{}\"><div class=\"k\">{name}</div><div class=\"v\">{}</div><div class=\"s {}\">{} · {}</div></div>",
            f.bytes,
            human(f.bytes),
            f.source.name(),
            group(f.bytes),
            source_text(&f)
        );
    }
    o.push_str("</div>\n");

    // Padding headline.
    let (data, bytes) = report.padding();
    let _ = writeln!(
        o,
        "<h2>Padding</h2>\n<p id=\"padding\" data-padding-bytes=\"{}\"><b>Extra memory due to padding: {}{}</b> — {} of elements in {} of device buffers (all of them, live at once or not).</p>",
        report.padding_bytes(),
        human(report.padding_bytes()),
        expansion_text(data, bytes),
        human(data),
        human(bytes)
    );
    // The shapes that pad most, with why.
    let by_shape = report.padding_by_shape();
    if !by_shape.is_empty() {
        let _ = writeln!(
            o,
            "<p>By shape ({}; each buffer once, most padding first):</p>\n<table id=\"padding-by-shape\"><tr><th>padding</th><th>buffers</th><th>shape and why</th><th>bytes</th><th>elements</th><th>expansion</th><th>the largest</th></tr>",
            shapes_told(by_shape.len())
        );
        for p in by_shape.iter().take(SHAPES_TOLD) {
            let largest = naming(report, &report.rows[p.largest_row]);
            let _ = writeln!(
                o,
                "<tr class=\"shape-padding\" data-padding=\"{}\"><td class=\"n\">{}</td><td class=\"n\">{}</td><td><code>{}</code><div class=\"reason\">{}</div></td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td><code>{}</code> <span class=\"reason\">(computation {})</span></td></tr>",
                p.padding_bytes,
                human(p.padding_bytes),
                p.buffers,
                escape(&p.shape),
                escape(&p.reasons.join("; ")),
                human(p.buffer_bytes),
                human(p.data_bytes),
                expansion(p.data_bytes, p.buffer_bytes)
                    .map_or(String::new(), |x| format!("{x:.1}×")),
                escape(&largest.name),
                escape(largest.computation)
            );
        }
        o.push_str("</table>\n");
    }

    // Spaces: one stacked bar each.
    let _ = writeln!(o, "<h2>Memory spaces</h2>");
    o.push_str("<div class=\"legend\">");
    for (name, color) in COLORS {
        let _ = write!(o, "<span><i style=\"background:{color}\"></i>{name}</span>");
    }
    o.push_str("<span><i class=\"pad\"></i>padding (hatched)</span></div>\n");
    let widest = report
        .spaces
        .iter()
        .map(|s| bar_parts(s).iter().copied().fold(0, add_bytes))
        .max()
        .unwrap_or(1)
        .max(1);
    let bar_w = 760.0;
    let row_h = 46.0;
    let height = row_h * report.spaces.len() as f64 + 10.0;
    let _ = writeln!(
        o,
        "<svg id=\"spaces\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1240 {height}\" width=\"1240\" height=\"{height}\" role=\"img\">\n<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect width=\"3\" height=\"6\" fill=\"#ffffff\" fill-opacity=\"0.75\"/></pattern></defs>"
    );
    let shares = padding_shares(report);
    for (k, s) in report.spaces.iter().enumerate() {
        let y = 8.0 + k as f64 * row_h;
        let parts = bar_parts(s);
        let total: u64 = parts.iter().copied().fold(0, add_bytes);
        let shares = shares.get(&s.space).copied().unwrap_or([(0.0, 0); 4]);
        // The padding the bar hatches: each part's share of its bytes. A
        // temporary heap holds buffers in turn, so its share is of the
        // buffers', and the figure an estimate (the buffers' own padding,
        // in the table, can exceed the heap), never more than the
        // buffers' own padding (a heap can be larger than its buffers:
        // XLA's, rounded to pages or holding index tables).
        let padded: Vec<f64> = parts
            .iter()
            .zip(shares)
            .map(|(&b, (share, own))| (b as f64 * share).min(own as f64))
            .collect();
        let share: Vec<f64> = parts
            .iter()
            .zip(&padded)
            .map(|(&b, &p)| if b == 0 { 0.0 } else { p / b as f64 })
            .collect();
        let drawn: f64 = padded.iter().sum();
        let about = if shares[3].0 > 0.0 && parts[3] != s.temporaries {
            "≈ "
        } else {
            ""
        };
        let _ = writeln!(
            o,
            "<g class=\"space\" data-space=\"{}\" data-total=\"{total}\" data-padding=\"{}\"><text x=\"0\" y=\"{:.1}\">{}</text>",
            s.space,
            drawn.round() as u64,
            y + 16.0,
            escape(&space_title(s))
        );
        let mut x = 250.0;
        for ((part, (name, color)), &pad) in parts.iter().zip(COLORS).zip(&share) {
            if *part == 0 {
                continue;
            }
            let w = (*part as f64 / widest as f64 * bar_w).max(1.5);
            let _ = writeln!(
                o,
                "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"22\" fill=\"{color}\"><title>{name}: {} ({} bytes), {:.0}% padding</title></rect>",
                human(*part),
                group(*part),
                pad * 100.0
            );
            // This part's padding, hatched at its right end.
            let pw = w * pad;
            if pw >= 0.5 {
                let _ = writeln!(
                    o,
                    "<rect x=\"{:.1}\" y=\"{y:.1}\" width=\"{pw:.1}\" height=\"22\" fill=\"url(#hatch)\"/>",
                    x + w - pw
                );
            }
            x += w;
        }
        let _ = writeln!(
            o,
            "<text x=\"{:.1}\" y=\"{:.1}\">{} · padding {about}{}{}</text></g>",
            x + 8.0,
            y + 16.0,
            human(total),
            human(drawn.round() as u64),
            if s.host { " · host" } else { "" }
        );
    }
    o.push_str("</svg>\n");

    // The table of spaces.
    o.push_str("<table id=\"space-table\"><tr><th>space</th><th>arguments</th><th>outputs</th><th>donated</th><th>constants</th><th>temporaries (at most at once; heap)</th><th>peak live</th><th>padding in its buffers</th><th>XLA's allocations</th></tr>\n");
    for s in &report.spaces {
        let _ = writeln!(
            o,
            "<tr data-space=\"{}\"><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{} ({}; {})</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            s.space,
            escape(&space_title(s)),
            human(s.arguments),
            human(s.outputs),
            human(s.aliased),
            human(s.constants),
            human(s.temporaries),
            human(s.temp_peak),
            heap_cell(s),
            human(s.live_peak),
            human(s.padding_bytes),
            s.assigned
                .map(|a| human(a.total))
                .unwrap_or_else(|| "—".into())
        );
    }
    o.push_str("</table>\n");

    if let Some(p) = &report.peak {
        let instruction = d.instruction(p.instruction).map_or("?", |(_, i)| i.name());
        let names: Vec<String> = p
            .spaces
            .iter()
            .filter_map(|&s| report.space(s))
            .map(|s| s.name.clone())
            .collect();
        let _ = writeln!(
            o,
            "<h2>Live bytes over the schedule ({})</h2>",
            escape(&names.join(" + "))
        );
        timeline(&mut o, report);
        let _ = writeln!(
            o,
            "<p id=\"peak\" data-bytes=\"{}\">Most bytes live at once, by the schedule (estimate): <b>{}</b> at <code>{}</code>, step {} of {}, {} live{}.{}</p>",
            p.bytes,
            human(p.bytes),
            escape(instruction),
            p.at + 1,
            d.schedule().len(),
            counted(p.live.len() as u64, "buffer", "buffers"),
            report
                .padding_bytes_at_peak()
                .map(|padding| format!(", {} of them padding", human(padding)))
                .unwrap_or_default(),
            if report.backend == Backend::Cpu {
                " (jax's CPU peak_memory_in_bytes leaves temporaries out.)"
            } else {
                ""
            }
        );
    }

    // The buffers: bars of bytes, padding hatched.
    let listed = shown(report, args);
    let _ = writeln!(
        o,
        "<h2>{}</h2>",
        escape(&listing_title(report, args, listed.len()))
    );
    let largest = listed
        .iter()
        .map(|l| report.rows[l.row].bytes)
        .max()
        .unwrap_or(1)
        .max(1);
    let line = 34.0;
    let height = line * listed.len() as f64 + 8.0;
    let _ = writeln!(
        o,
        "<svg id=\"buffers\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1240 {height}\" width=\"1240\" height=\"{height}\" role=\"img\">\n<defs><pattern id=\"hatch2\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#eef0f4\"/><rect width=\"3\" height=\"6\" fill=\"#b4bac6\"/></pattern></defs>"
    );
    // Every row's details at once: the page is made in memory anyway.
    let rows: Vec<usize> = listed.iter().map(|l| l.row).collect();
    let details: Vec<Details> = report.details_of(&rows).collect();
    for (n, (l, det)) in listed.iter().zip(&details).enumerate() {
        let row = &report.rows[l.row];
        let y = 4.0 + n as f64 * line;
        let w = (row.bytes as f64 / largest as f64 * 520.0).max(1.5);
        let dw = if row.bytes > 0 {
            w * row.data_bytes as f64 / row.bytes as f64
        } else {
            w
        };
        // Long names keep both ends: fusions share their start and differ
        // by their number (`…_fusion.6`, `…_fusion.7`).
        let label = if det.name.len() > 34 {
            let tail = det.name.ceil_char_boundary(det.name.len() - 14);
            format!(
                "{}…{}",
                &det.name[..det.name.floor_char_boundary(19)],
                &det.name[tail..]
            )
        } else {
            det.name.clone()
        };
        let _ = writeln!(
            o,
            "<g class=\"buffer\" data-bytes=\"{}\" data-padding=\"{}\"><text x=\"0\" y=\"{:.1}\">{}<title>{}</title></text>\
<rect x=\"250\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"18\" fill=\"url(#hatch2)\"/>\
<rect x=\"250\" y=\"{y:.1}\" width=\"{dw:.1}\" height=\"18\" fill=\"{}\"><title>{}: {} of elements, {} allocated</title></rect>\
<text x=\"{:.1}\" y=\"{:.1}\">{} · {}{}</text></g>",
            row.bytes,
            row.padding_bytes(),
            y + 13.0,
            escape(&label),
            escape(&det.name),
            role_color(row.role),
            escape(&det.name),
            human(row.data_bytes),
            human(row.bytes),
            250.0 + w + 8.0,
            y + 13.0,
            human(row.bytes),
            escape(if det.shape.is_empty() {
                "tuple table"
            } else {
                &det.shape
            }),
            match row.padding_bytes() {
                0 => String::new(),
                p => format!(" · {} padding", human(p)),
            } + &match l.shared.len() {
                0 => String::new(),
                1 => " · 1 other value shares it".to_string(),
                k => format!(" · {k} other values share it"),
            }
        );
    }
    o.push_str("</svg>\n");

    // And the same rows as a table, with reasons and origins.
    o.push_str("<div class=\"wide\"><table id=\"buffer-table\"><tr><th>#</th><th>value</th><th>shape</th><th>bytes</th><th>padding</th><th>why</th><th>role</th><th>op_name / source</th></tr>\n");
    for (n, (l, det)) in listed.iter().zip(&details).enumerate() {
        let row = &report.rows[l.row];
        let origin = {
            let mut t = det
                .metadata
                .op_name
                .map(|n| unescape(n).into_owned())
                .unwrap_or_default();
            if let Some(l) = det.location {
                if !t.is_empty() {
                    t.push_str(" · ");
                }
                t.push_str(&l.to_string());
            }
            // XLA writes no metadata for some instructions (async copies'
            // starts, its own slices): said, not left blank.
            if t.is_empty() {
                t.push_str("none in the dump");
            }
            t
        };
        let _ = writeln!(
            o,
            "<tr class=\"buffer-row\"><td class=\"n\">{}</td><td><code>{}</code>{}</td><td><code>{}</code></td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"reason\">{}</td><td>{}</td><td class=\"reason src\">{}</td></tr>",
            n + 1,
            escape(&det.name),
            shared_html(report, l),
            escape(&det.shape),
            human(row.bytes),
            human(row.padding_bytes()),
            escape(&det.reasons.join("; ")),
            escape(&role_text(row.role)),
            escape(&origin)
        );
    }
    o.push_str("</table></div>\n</body>\n</html>\n");
    o
}
