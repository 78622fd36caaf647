//! What every subcommand shares: how a command fails, and how shape
//! arguments are read.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use xla_layout_hlo::names::Misnaming;

/// Why a command failed.
#[derive(Debug)]
pub enum Failure {
    /// Reading or writing failed (exit 1; a closed stdout exits 0).
    Io(io::Error),
    /// The input is wrong; the message says how (exit 1).
    Input(String),
    /// Arguments that parse but do not go together (exit 2).
    Usage {
        /// The subcommand.
        command: &'static str,
        /// What is wrong.
        message: String,
    },
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Io(e) => write!(f, "{e}"),
            Failure::Input(m) => f.write_str(m),
            Failure::Usage { message, .. } => f.write_str(message),
        }
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Io(e)
    }
}

/// Parses and validates a shape argument in any of its forms (XLA's
/// text, `tpu(SHAPE)`, `SHAPE Layout(major_to_minor=…)`: the core's
/// `text::parse_array_any`), or says why not, for people (the core's
/// `explain`: the closest element type, the attribute order, the rule's
/// hint), with XLA's words kept.
pub fn array_argument(text: &str) -> Result<xla_layout_core::ArrayShape, Failure> {
    xla_layout_core::text::parse_array_any(text)
        .map(|(shape, _)| shape)
        .map_err(|e| Failure::Input(format!("'{}': {}", shown(text), e.explain(text))))
}

/// What XLA's parser reads past in shape `text`, which parses: the error
/// a strict parse gives it (`S(300)`, which XLA keeps as `S(44)`; `E`
/// with no `(n)`, which XLA drops), worded for a warning; `None` when
/// the text means what it says (and for the `tpu(…)` and JAX forms, which
/// XLA's parser does not read at all).
pub fn read_past(text: &str) -> Option<String> {
    xla_layout_core::text::read_past(text.as_bytes())
        .map(|e| read_past_warning(&e, text.as_bytes()))
}

/// [`read_past`]'s words for `e`, the error a strict parse gave `text`,
/// which XLA's parser accepts.
pub fn read_past_warning(e: &xla_layout_core::text::ParseError, text: &[u8]) -> String {
    format!(
        "XLA's parser reads past part of this text (the canonical text is what it keeps): {}",
        e.explain(text)
    )
}

/// The failure for a file given as a module that is another of XLA's dump
/// files (its buffer assignment, memory-usage report, options and
/// configuration, live ranges…: `other_dump_file`), or StableHLO, if it is
/// one.
pub fn not_a_module(path: &str, text: &str) -> Result<(), Failure> {
    match xla_layout_hlo::other_dump_file(text) {
        Some(kind) => Err(Failure::Input(format!(
            "{path} is {kind}, not an HLO module: give the module's text \
             (`…after_optimizations.txt`; `memory` reads the files beside it)"
        ))),
        None => Ok(()),
    }
}

/// A `--generation` value: `v4`, `v5e`, `v5p` or `v6e`, in either case.
pub fn generation(text: &str) -> Result<xla_layout_core::tpu::Generation, String> {
    xla_layout_core::tpu::Generation::from_name(text).ok_or_else(|| {
        let names = xla_layout_core::tpu::Generation::NAMES;
        format!("expected {names}, not '{}'", shown(text))
    })
}

/// Comma-separated numbers, for `--at` and `--dims`.
pub fn numbers(text: &str) -> Result<Vec<u64>, String> {
    text.split(',')
        .map(|n| n.trim().parse::<u64>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("expected comma-separated numbers, not '{}'", shown(text)))
}

/// A text file's contents (`-` is `stdin`), as UTF-8, without the byte
/// order mark some editors put first (text tools read past it; the
/// module reader would take it for a token). Bytes that are not UTF-8 (a
/// Latin-1 `é` in a dump's `op_name`) are read as `�` rather than costing
/// the whole file: [`Text::repaired`] says where.
pub fn read_text(path: &std::path::Path, mut stdin: impl io::Read) -> Result<Text, Failure> {
    let (bytes, name) = if path.as_os_str() == "-" {
        let mut bytes = Vec::new();
        stdin.read_to_end(&mut bytes).map_err(stdin_failed)?;
        (bytes, "stdin".to_string())
    } else {
        let bytes = std::fs::read(path)
            .map_err(|e| Failure::Input(format!("cannot read {}: {e}", path.display())))?;
        (bytes, path.display().to_string())
    };
    let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&bytes);
    let mut text = String::with_capacity(bytes.len());
    let (mut repaired, mut line) = (Vec::new(), 1usize);
    for chunk in bytes.utf8_chunks() {
        text.push_str(chunk.valid());
        line += chunk.valid().bytes().filter(|&b| b == b'\n').count();
        if !chunk.invalid().is_empty() {
            text.push('\u{fffd}');
            if repaired.last() != Some(&line) {
                repaired.push(line);
            }
        }
    }
    Ok(Text {
        text,
        name,
        repaired,
    })
}

/// A text read by [`read_text`].
pub struct Text {
    /// The text (bytes that are not UTF-8 as `�`).
    pub text: String,
    /// The file's name as messages give it (`stdin` for `-`).
    pub name: String,
    /// The lines (from 1) that held bytes that are not UTF-8.
    pub repaired: Vec<usize>,
}

impl Text {
    /// The first [`MAX_UNSHAPED_TOLD`] lines that held bytes that are
    /// not UTF-8, to `to`, then how many more (a binary file has one on
    /// every line).
    pub fn report_repaired(&self, mut to: impl Write) -> io::Result<()> {
        for line in self.repaired.iter().take(MAX_UNSHAPED_TOLD) {
            writeln!(
                to,
                "{}:{line}: bytes that are not UTF-8, read as \u{fffd}",
                self.name
            )?;
        }
        if let Some(more) = self.repaired.len().checked_sub(MAX_UNSHAPED_TOLD)
            && more > 0
        {
            let lines = counted(more as u64, "more line", "more lines");
            writeln!(
                to,
                "{}: and {lines} with bytes that are not UTF-8",
                self.name
            )?;
        }
        Ok(())
    }

    /// The failure for bytes that are not UTF-8, if any (the rest was
    /// read and written: the exit status says the input was not clean).
    pub fn repaired_failure(&self) -> Result<(), Failure> {
        match self.repaired.len() {
            0 => Ok(()),
            1 => Err(Failure::Input(format!(
                "{}: 1 line is not UTF-8 text",
                self.name
            ))),
            n => Err(Failure::Input(format!(
                "{}: {n} lines are not UTF-8 text",
                self.name
            ))),
        }
    }
}

/// `n` and what it counts, in the singular for 1: "1 part is", "3 parts
/// are" (`one` and `many` follow the number).
pub fn counted(n: u64, one: &str, many: &str) -> String {
    match n {
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    }
}

/// `1 byte`, `n bytes`: a count of bytes as a sentence says it.
pub fn bytes(n: u64) -> String {
    counted(n, "byte", "bytes")
}

/// Whether `written` failed only because the reader of stdout closed it
/// early (`| head`): the command then stops writing, and its exit status
/// still says what it found in what it read (1 for a failure found
/// before the close; a closed pipe alone exits 0).
pub fn closed_early(written: Result<(), Failure>) -> Result<bool, Failure> {
    match written {
        Ok(()) => Ok(false),
        Err(Failure::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(true),
        Err(e) => Err(e),
    }
}

/// What the lines read say where stdout was closed before the end: "3
/// of 10 lines" and "3 of the 10 lines read before stdout was closed".
pub fn of_lines(n: u64, lines: u64, closed: bool) -> String {
    match closed {
        false => format!("{n} of {lines} lines"),
        true => format!("{n} of the {lines} lines read before stdout was closed"),
    }
}

/// `12345678` as `12,345,678` (any unsigned integer up to 128 bits: sums
/// of 64-bit sizes are taken in 128).
pub fn group(n: impl Into<u128>) -> String {
    let digits = n.into().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `part` as a percentage of `whole` (0 of nothing).
pub fn percent(part: impl Into<u128>, whole: impl Into<u128>) -> f64 {
    match whole.into() {
        0 => 0.0,
        whole => 100.0 * part.into() as f64 / whole as f64,
    }
}

/// A failure to read stdin, said as such (`cannot read stdin: Is a
/// directory`).
pub fn stdin_failed(e: std::io::Error) -> Failure {
    Failure::Input(format!("cannot read stdin: {e}"))
}

/// The failure for `n` parts of `what` that did not read, if any (the
/// rest was read and written: the exit status says it is incomplete).
pub fn unread(n: usize, what: &str) -> Result<(), Failure> {
    let more = if n > MAX_UNREAD_TOLD {
        format!(" (the first {MAX_UNREAD_TOLD} are shown above)")
    } else {
        String::new()
    };
    match n {
        0 => Ok(()),
        n => Err(Failure::Input(format!(
            "{} of {what} could not be read{more}",
            counted(n as u64, "part", "parts")
        ))),
    }
}

/// Whether a line of `check` or `tpu` input is blank (whitespace alone,
/// Unicode's included): it holds no shape, and is skipped.
pub fn is_blank(line: &[u8]) -> bool {
    String::from_utf8_lossy(line).trim().is_empty()
}

/// The longest line `check` and `tpu` hold: no shape comes near it
/// (XLA's tests' longest is under 2 KiB, a 10⁵-element tuple a few MiB),
/// and an endless line (`< /dev/zero`) must cost one error line, not the
/// machine's memory.
pub const MAX_LINE_BYTES: u64 = 1 << 30; // 1 GiB, as `too_long` says

/// What [`read_line`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Line {
    /// The input had ended: no line.
    End,
    /// A whole line, in the buffer.
    Read,
    /// A line of this many bytes (its newline included) that was not held
    /// (longer than the limit, or memory ran out first: `out_of_memory`);
    /// the buffer holds its first bytes, at most [`SHOWN_BYTES`].
    TooLong { bytes: u64, out_of_memory: bool },
}

/// How much of a line [`read_line`] could not hold it keeps, to quote.
pub const SHOWN_BYTES: usize = 256;

/// Reads one line (up to and with its `\n`) into `line`, cleared first.
/// Post-condition: the input is past the line's end whatever happened,
/// so the lines after it go on; a line past `max` bytes, or past what
/// memory holds (the buffer grows by `try_reserve`, never aborting), is
/// skipped to its end and told by its length ([`Line::TooLong`]).
pub fn read_line(input: &mut impl io::BufRead, line: &mut Vec<u8>, max: u64) -> io::Result<Line> {
    line.clear();
    let (mut bytes, mut held, mut out_of_memory) = (0u64, true, false);
    loop {
        let buf = match input.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            break;
        }
        let (n, ends) = match buf.iter().position(|&b| b == b'\n') {
            Some(at) => (at + 1, true),
            None => (buf.len(), false),
        };
        if held {
            let fits = bytes + n as u64 <= max;
            if fits && line.try_reserve(n).is_ok() {
                line.extend_from_slice(&buf[..n]);
            } else {
                // Keep the start to quote; give the rest back.
                out_of_memory = fits;
                held = false;
                line.truncate(SHOWN_BYTES);
                line.shrink_to_fit();
                let more = (SHOWN_BYTES - line.len()).min(n);
                if line.try_reserve(more).is_ok() {
                    line.extend_from_slice(&buf[..more]);
                }
            }
        }
        bytes += n as u64;
        input.consume(n);
        if ends {
            break;
        }
    }
    Ok(match (bytes, held) {
        (0, _) => Line::End,
        (_, true) => Line::Read,
        (bytes, false) => Line::TooLong {
            bytes,
            out_of_memory,
        },
    })
}

/// Why a line [`read_line`] could not hold is not read: the words of
/// `check`'s and `tpu`'s error lines.
pub fn too_long(bytes: u64, out_of_memory: bool) -> String {
    match out_of_memory {
        true => format!("a line of {bytes} bytes, more than memory could hold; skipped"),
        false => format!("a line of {bytes} bytes, longer than the 1 GiB a line may be; skipped"),
    }
}

/// How many parts that do not read are shown one by one on stderr (each
/// quotes its line; `scan` lists every one in its output): a damaged file
/// can have one on every line, and the failure gives the count.
pub const MAX_UNREAD_TOLD: usize = 20;

/// A line of input as a message quotes it: at most 120 characters (`…`
/// after a cut), control characters as `�` (they would act on the
/// terminal).
pub fn shown(line: &str) -> String {
    let mut out: String = line
        .chars()
        .take(120)
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .collect();
    if line.chars().nth(120).is_some() {
        out.push('…');
    }
    out
}

/// The first line of input without the byte order mark some editors put
/// first: line-by-line commands read it as the rest, as `scan` and
/// `memory` read a file. (On the line read, not the reader's buffer, which
/// a pipe may fill a byte at a time.)
pub fn strip_byte_order_mark(line: &mut Vec<u8>) {
    const BOM: &[u8] = "\u{feff}".as_bytes();
    if line.starts_with(BOM) {
        line.drain(..BOM.len());
    }
}

/// How many instructions with no shape are named one by one on stderr:
/// each message quotes its line, and thousands on one line would be
/// quadratic output; the failure gives the count.
pub const MAX_UNSHAPED_TOLD: usize = 20;

/// The failure for `n` instructions whose shape is neither written nor
/// inferred (the first [`MAX_UNSHAPED_TOLD`] told on stderr first): their
/// bytes are in no figure.
pub fn unshaped(n: usize, path: &str) -> Result<(), Failure> {
    instructions_failed(
        n,
        path,
        "has no shape written and none inferred: its bytes are not counted",
        "have no shape written and none inferred: their bytes are not counted",
    )
}

/// The failure for `n` instructions of one kind, the first
/// [`MAX_UNSHAPED_TOLD`] told on stderr first: what one `is`, what
/// several `are` (after "1 instruction " and "N instructions ").
fn instructions_failed(n: usize, path: &str, is: &str, are: &str) -> Result<(), Failure> {
    let more = if n > MAX_UNSHAPED_TOLD {
        format!(" (the first {MAX_UNSHAPED_TOLD} are named above)")
    } else {
        String::new()
    };
    match n {
        0 => Ok(()),
        n => Err(Failure::Input(format!(
            "{path}: {}{more}",
            counted(
                n as u64,
                &format!("instruction {is}"),
                &format!("instructions {are}")
            )
        ))),
    }
}

/// Names, at its line, one instruction whose shape is neither written
/// nor inferred.
pub fn tell_unshaped(
    errors: &mut impl Write,
    lines: &mut xla_layout_core::text::LineCursor<'_>,
    path: &str,
    i: &xla_layout_hlo::Instruction<'_>,
) -> io::Result<()> {
    let (name, opcode) = (i.name(), i.opcode());
    let message = match xla_layout_hlo::infer::rule(opcode) {
        None => format!(
            "{name} has no shape written, and xla-layout has no rule to infer one for {opcode}"
        ),
        // It takes its callee's result: one written before it, as XLA
        // looks callees up.
        Some(xla_layout_hlo::infer::Rule::Called(_)) => format!(
            "{name} has no shape written, and xla-layout cannot infer it: its callee is not \
             written before it, or has no shape at its root, or inference's work budget is spent"
        ),
        Some(_) => format!(
            "{name} has no shape written, and xla-layout cannot infer it: an operand's shape is \
             unknown or not one {opcode} takes, or inference's work budget is spent"
        ),
    };
    writeln!(errors, "{}", i.span().render_with(lines, path, message))
}

/// [`tell_unshaped`] for the first [`MAX_UNSHAPED_TOLD`] of a module's.
pub fn tell_unshaped_of(
    errors: &mut impl Write,
    lines: &mut xla_layout_core::text::LineCursor<'_>,
    path: &str,
    d: &xla_layout_hlo::dataflow::Dataflow<'_, '_>,
) -> io::Result<()> {
    for &id in d.unshaped().iter().take(MAX_UNSHAPED_TOLD) {
        if let Some((_, i)) = d.instruction(id) {
            tell_unshaped(errors, lines, path, i)?;
        }
    }
    Ok(())
}

/// Names, at their lines, the first [`MAX_UNSHAPED_TOLD`] instructions
/// XLA's parser would refuse for their names (`Dataflow::misnamed`).
pub fn tell_misnamed_of(
    errors: &mut impl Write,
    lines: &mut xla_layout_core::text::LineCursor<'_>,
    path: &str,
    d: &xla_layout_hlo::dataflow::Dataflow<'_, '_>,
) -> io::Result<()> {
    let found = d
        .misnamed_by_why()
        .filter_map(|(id, why)| Some((*d.instruction(id)?.1, why)));
    tell_misnamed(errors, lines, path, found, true)
}

/// Names, at their lines, the first [`MAX_UNSHAPED_TOLD`] of `found`
/// (instructions XLA's parser would refuse for their names, each with
/// why, as `names::Names` finds them); `dataflow`: the figures come from
/// a dataflow, which says how it reads them.
pub fn tell_misnamed<'a>(
    errors: &mut impl Write,
    lines: &mut xla_layout_core::text::LineCursor<'_>,
    path: &str,
    found: impl IntoIterator<Item = (xla_layout_hlo::Instruction<'a>, Misnaming<'a>)>,
    dataflow: bool,
) -> io::Result<()> {
    for (i, why) in found.into_iter().take(MAX_UNSHAPED_TOLD) {
        // What, XLA's own words for it where they name it, how the figures
        // read it.
        let (what, xla, read) = match why {
            Misnaming::Operand(name) => (
                format!(
                    "operand {name} of {} names no instruction of its computation",
                    i.name()
                ),
                "",
                ": it is left out of the dataflow",
            ),
            // XLA adds a computation once read whole: a callee written
            // later, or the caller's own computation, "does not exist".
            Misnaming::Computation(name) => (
                format!(
                    "{} calls {name}, which names no computation written before its own",
                    i.name()
                ),
                ": computation does not exist",
                ": a callee of that name later in the module is read, else it is left out",
            ),
            Misnaming::RepeatedComputation(name) => (
                format!("computation {name} has the name of an earlier computation"),
                ": computation already exists",
                ": calls to it go to the first",
            ),
            Misnaming::Repeated => (
                format!(
                    "{} is the name of an earlier instruction of its computation",
                    i.name()
                ),
                "",
                ": operands that name it read the first",
            ),
            // `Misnaming` may grow.
            _ => (
                format!("{} has a name XLA's parser refuses", i.name()),
                "",
                "",
            ),
        };
        let read = if dataflow { read } else { "" };
        let message = format!("{what} (XLA's parser refuses the module{xla}){read}");
        // At the name it is about, where there is one.
        let span = match why {
            Misnaming::Operand(name) | Misnaming::Computation(name) => span_within(&i, name),
            // The name in the computation's header, as XLA points there.
            Misnaming::RepeatedComputation(name) => {
                span_in(lines.source(), name).unwrap_or_else(|| i.span())
            }
            _ => i.span(),
        };
        writeln!(errors, "{}", span.render_with(lines, path, message))?;
    }
    Ok(())
}

/// Where `part` is in `source`, when it is a piece of it.
fn span_in(source: &str, part: &str) -> Option<xla_layout_core::text::ByteSpan> {
    // Both are slices of one text, or `part` is not a piece of it: the
    // offset between their starts says which (addresses compared,
    // nothing read through them).
    let start = (part.as_ptr() as usize).checked_sub(source.as_ptr() as usize)?;
    let end = start.checked_add(part.len())?;
    (end <= source.len()).then_some(xla_layout_core::text::ByteSpan { start, end })
}

/// Where `part` (a piece of `i`'s text: an operand's or a callee's name)
/// is in the module text; `i`'s span when it is not a piece of it.
fn span_within(i: &xla_layout_hlo::Instruction<'_>, part: &str) -> xla_layout_core::text::ByteSpan {
    // Both are slices of the module text: the offset between their
    // starts says where (addresses compared, nothing read through them).
    let at = (part.as_ptr() as usize).checked_sub(i.text().as_ptr() as usize);
    match at.filter(|&at| {
        at.checked_add(part.len())
            .is_some_and(|end| end <= i.text().len())
    }) {
        Some(at) => {
            let start = i.span().start + at;
            xla_layout_core::text::ByteSpan {
                start,
                end: start + part.len(),
            }
        }
        None => i.span(),
    }
}

/// The failure for `n` instructions XLA's parser would refuse for their
/// names, after the rest is out; `estimates`: figures were drawn from
/// the module as a whole, and say so.
pub fn misnamed(n: usize, path: &str, estimates: bool) -> Result<(), Failure> {
    let (is, are) = if estimates {
        (
            "names an operand or computation that does not exist or repeats a name: the figures are estimates",
            "name operands or computations that do not exist or repeat names: the figures are estimates",
        )
    } else {
        (
            "names an operand or computation that does not exist or repeats a name (XLA's parser refuses the module)",
            "name operands or computations that do not exist or repeat names (XLA's parser refuses the module)",
        )
    };
    instructions_failed(n, path, is, are)
}

/// The failure for a module whose sizes add up past int64, XLA's size
/// type (`Report::sizes_past_int64`), after the rest is out.
pub fn sizes_past_int64(past: bool, path: &str) -> Result<(), Failure> {
    if past {
        return Err(Failure::Input(format!("{path}: sizes past int64")));
    }
    Ok(())
}

/// The failure for shapes XLA's validator rejects (a layout, or dimensions
/// whose product overflows; XLA refuses such a module), after the rest is
/// out.
pub fn invalid_layouts(n: usize, path: &str) -> Result<(), Failure> {
    match n {
        0 => Ok(()),
        1 => Err(Failure::Input(format!(
            "{path}: 1 shape that XLA's validator rejects (XLA would refuse the module)"
        ))),
        n => Err(Failure::Input(format!(
            "{path}: {n} shapes that XLA's validator rejects (XLA would refuse the module)"
        ))),
    }
}

/// The optimized module of dump directory `dir` (`…after_optimizations.txt`,
/// or a fixture's `NAME.hlo`), the one whose file name contains `module`
/// when given: for `command`'s error. Several is a usage error (which is
/// the caller's to say), unless all but one are the program's host
/// computations (`dump::program_among`); none is a failure.
pub fn module_in_dir(
    dir: &Path,
    module: Option<&str>,
    command: &'static str,
) -> Result<PathBuf, Failure> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| Failure::Input(format!("cannot read {}: {e}", dir.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let n = p
                .file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default();
            xla_layout_hlo::dump::is_optimized_module(&n) && module.is_none_or(|m| n.contains(m))
        })
        .collect();
    found.sort();
    // A TEXT that is one module's whole name picks it, whatever else
    // contains it (`f.hlo` beside `jit_f.hlo`).
    if let Some(m) = module
        && found.len() > 1
    {
        let whole = |p: &PathBuf| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default();
            xla_layout_hlo::dump::names_module(&name, m)
        };
        if let [one] = found.iter().filter(|p| whole(p)).collect::<Vec<_>>()[..] {
            return Ok(one.clone());
        }
    }
    // A TPU or GPU program's host computations are CPU modules beside it:
    // the one device module is the program.
    if module.is_none() {
        let names: Vec<String> = found
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        if let Some(k) = xla_layout_hlo::dump::program_among(&names) {
            return Ok(found.swap_remove(k));
        }
    }
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => Err(Failure::Input(format!(
            "{} holds no optimized module (…after_optimizations.txt or .hlo){}",
            dir.display(),
            module
                .map(|m| format!(" whose name contains '{m}'"))
                .unwrap_or_default()
        ))),
        _ => {
            let names: Vec<String> = found
                .iter()
                .map(|p| {
                    p.file_name()
                        .unwrap_or_default()
                        .to_string_lossy()
                        .into_owned()
                })
                .collect();
            let message = match module {
                Some(m) => format!(
                    "--module '{m}' matches {} modules of {}; give more of one's name, or its file's path \
                     instead of the directory:\n  {}",
                    names.len(),
                    dir.display(),
                    names.join("\n  ")
                ),
                None => format!(
                    "{} holds {} modules; choose one with --module TEXT:\n  {}",
                    dir.display(),
                    names.len(),
                    names.join("\n  ")
                ),
            };
            Err(Failure::Usage { command, message })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each line of `input` as `read_line` reads it, through a reader
    /// whose buffer holds `capacity` bytes (lines cross its refills).
    fn lines(input: &[u8], capacity: usize, max: u64) -> Vec<(Line, Vec<u8>)> {
        let mut reader = io::BufReader::with_capacity(capacity, input);
        let (mut out, mut line) = (Vec::new(), Vec::new());
        loop {
            let read = read_line(&mut reader, &mut line, max).unwrap();
            out.push((read, line.clone()));
            if read == Line::End {
                return out;
            }
        }
    }

    /// A line past the limit is told by its length and skipped to its
    /// end, keeping its start to quote; the lines around it read whole,
    /// the last one without a newline too.
    #[test]
    fn a_long_line_costs_only_itself() {
        let long = vec![b'x'; 1000];
        let input = [&b"f32[8]\n"[..], &long, b"\ns8[2]\r\nbf16[3]"].concat();
        for capacity in [1, 3, 64, 4096] {
            let got = lines(&input, capacity, 500);
            let too_long = Line::TooLong {
                bytes: 1001,
                out_of_memory: false,
            };
            assert_eq!(
                got,
                [
                    (Line::Read, b"f32[8]\n".to_vec()),
                    (too_long, long[..SHOWN_BYTES].to_vec()),
                    (Line::Read, b"s8[2]\r\n".to_vec()),
                    (Line::Read, b"bf16[3]".to_vec()),
                    (Line::End, vec![]),
                ],
                "reader capacity {capacity}"
            );
        }
        // At the limit exactly, a line is held.
        assert_eq!(lines(b"abcd\n", 2, 5)[0], (Line::Read, b"abcd\n".to_vec()));
        assert_eq!(
            lines(b"abcde\n", 2, 5)[0].0,
            Line::TooLong {
                bytes: 6,
                out_of_memory: false
            }
        );
    }
}
