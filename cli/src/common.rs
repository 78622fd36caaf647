//! What every subcommand shares: how a command fails, and how shape
//! arguments are read.

use std::io;

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

/// Parses and validates a shape argument, or says why not. `tpu(SHAPE)`
/// stands for SHAPE with the layout a TPU gives it by default; `SHAPE
/// Layout(major_to_minor=…)` gives the layout in JAX's form.
/// Errors are said for people (the core's `explain`: the closest element
/// type, the attribute order, the rule's hint), with XLA's words kept.
pub fn array_argument(text: &str) -> Result<xla_layout_core::ArrayShape, Failure> {
    if let Some(request) = xla_layout_core::tpu::parse_request(text) {
        return request.map_err(|e| Failure::Input(format!("'{text}': {}", e.explain(text))));
    }
    // `SHAPE Layout(major_to_minor=…)`: the layout in JAX's form.
    if let Some(shape) = xla_layout_core::text::parse_array_with_jax_layout(text) {
        let shape = shape.map_err(|e| Failure::Input(format!("'{text}': {}", e.explain(text))))?;
        return shape
            .validate()
            .map(|()| shape)
            .map_err(|e| Failure::Input(format!("'{text}': validate error: {}", e.explain())));
    }
    match xla_layout_core::Shape::parse_validated(text) {
        Ok(xla_layout_core::Shape::Array(a)) => Ok(a),
        Ok(other) => Err(Failure::Input(format!("'{other}' is not an array shape"))),
        Err(e) => Err(Failure::Input(format!(
            "'{text}': {} error: {}",
            e.stage().as_str(),
            e.explain(text)
        ))),
    }
}

/// The failure for a file given as a module that is another of XLA's dump
/// files (its buffer assignment, its memory-usage report), if it is one.
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
        format!("expected {names}, not '{text}'")
    })
}

/// Comma-separated numbers, for `--at` and `--dims`.
pub fn numbers(text: &str) -> Result<Vec<u64>, String> {
    text.split(',')
        .map(|n| n.trim().parse::<u64>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("expected comma-separated numbers, not '{text}'"))
}

/// A text file's contents (`-` is `stdin`), as UTF-8, without the byte
/// order mark some editors put first (text tools read past it; the
/// module reader would take it for a token). A file that is not UTF-8 is
/// an error that says where the first bad byte is.
pub fn read_text(path: &std::path::Path, mut stdin: impl io::Read) -> Result<String, Failure> {
    let (bytes, name) = if path.as_os_str() == "-" {
        let mut bytes = Vec::new();
        stdin.read_to_end(&mut bytes)?;
        (bytes, "stdin".to_string())
    } else {
        let bytes = std::fs::read(path)
            .map_err(|e| Failure::Input(format!("cannot read {}: {e}", path.display())))?;
        (bytes, path.display().to_string())
    };
    let mut text = String::from_utf8(bytes).map_err(|e| {
        Failure::Input(format!(
            "{name} is not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    Ok(text)
}

/// `1 byte`, `n bytes`: a count of bytes as a sentence says it.
pub fn bytes(n: u64) -> String {
    match n {
        1 => "1 byte".to_string(),
        n => format!("{n} bytes"),
    }
}

/// The failure for `n` parts of `what` that did not read, if any (the
/// rest was read and written: the exit status says it is incomplete).
pub fn unread(n: usize, what: &str) -> Result<(), Failure> {
    match n {
        0 => Ok(()),
        1 => Err(Failure::Input(format!(
            "1 part of {what} could not be read"
        ))),
        n => Err(Failure::Input(format!(
            "{n} parts of {what} could not be read"
        ))),
    }
}

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
