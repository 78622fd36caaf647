//! `xla-layout`: scripting and inspection tools over xla-layout-core.
//!
//! ```text
//! xla-layout check                 one shape per stdin line -> one JSON object per line
//! xla-layout offsets 'SHAPE'       every logical index with its slot, as JSON
//! xla-layout relayout 'S' 'D'     raw bytes from layout S to layout D
//! xla-layout explain ['SHAPE']     what a layout means, for people (--svg: a picture)
//! xla-layout scan FILE.hlo          every instruction of an HLO dump, or its buffers by size
//! ```

mod check;
mod explain;
mod offsets;
mod relayout;
mod scan;
mod svg;

use std::io::{self, Write};
use std::process::ExitCode;

const USAGE: &str = "\
usage:
  xla-layout check              read one shape per line on stdin, write one JSON object per line
  xla-layout offsets 'SHAPE'    JSON: every logical index (row-major) with its slot offset
  xla-layout relayout 'SRC' 'DST' [--pad BYTE]
                                copy a raw little-endian array (stdin) from layout SRC to DST (stdout);
                                padding bytes of DST are BYTE (default 0). A wrong input size is an
                                error; output already streamed before it was seen is reported
  xla-layout explain ['SHAPE'] [--dims ROW,COL] [--at I0,I1,...] [--max N] [--svg FILE]
                                explain a shape (default: the XLA docs' bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}):
                                sizes, tiling, padding, memory space, and a grid of slot offsets over
                                dimensions ROW and COL (default: the last two; other dimensions at
                                --at, default 0; at most N rows and columns, default 16);
                                --svg also draws the layout as an SVG picture
  xla-layout scan FILE.hlo [--summary [--top N]]
                                every instruction of an HLO dump (FILE or - for stdin) as one JSON
                                object per line: {computation, name, shape, bytes}; with
                                --summary, its buffers by size with the bytes lost to padding
  xla-layout help               this text
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("check") if args.len() == 1 => check::run(io::stdin().lock(), io::stdout().lock()),
        Some("offsets") if args.len() == 2 => offsets::run(&args[1], io::stdout().lock()),
        Some("relayout") => relayout::main(
            &args[1..],
            io::stdin().lock(),
            io::stdout().lock(),
            stdin_file_len(),
        ),
        Some("explain") => explain::main(&args[1..], io::stdout().lock()),
        Some("scan") => scan::main(&args[1..], io::stdin().lock(), io::stdout().lock()),
        Some("help" | "--help" | "-h") => {
            print!("{USAGE}");
            Ok(())
        }
        _ => {
            eprint!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(io::stderr(), "xla-layout: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The bytes left in stdin when it is a regular file (so a size can be
/// checked before anything is read), else `None`.
fn stdin_file_len() -> Option<u64> {
    #[cfg(unix)]
    {
        use std::io::Seek;
        use std::os::fd::AsFd;
        let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
        let mut file = std::fs::File::from(fd);
        let meta = file.metadata().ok()?;
        let at = file.stream_position().ok()?;
        meta.is_file().then(|| meta.len().saturating_sub(at))
    }
    #[cfg(not(unix))]
    None
}

/// Why a command failed.
#[derive(Debug)]
pub enum Failure {
    /// Reading or writing failed.
    Io(io::Error),
    /// The input is wrong; the message says how.
    Input(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Io(e) => write!(f, "{e}"),
            Failure::Input(m) => f.write_str(m),
        }
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Io(e)
    }
}

/// Parses and validates a shape argument, or says why not.
pub fn array_argument(text: &str) -> Result<xla_layout_core::ArrayShape, Failure> {
    match xla_layout_core::Shape::parse_validated(text) {
        Ok(xla_layout_core::Shape::Array(a)) => Ok(a),
        Ok(other) => Err(Failure::Input(format!("'{other}' is not an array shape"))),
        Err(e) => Err(Failure::Input(format!(
            "'{text}': {} error: {e}",
            e.stage().as_str()
        ))),
    }
}
