//! `xla-layout`: scripting and inspection tools over xla-layout-core.
//!
//! ```text
//! xla-layout check [--strict]      one shape per stdin line -> one JSON object per line
//! xla-layout offsets 'SHAPE'       every logical index with its slot, as JSON
//! xla-layout relayout 'S' 'D'      raw bytes from layout S to layout D
//! xla-layout explain ['SHAPE']     what a layout means, for people or as JSON (--svg: a picture)
//! xla-layout scan FILE.hlo         every instruction of an HLO dump, or its buffers by size
//! xla-layout memory DUMP           where a program's bytes go and why they are padded
//! xla-layout tpu ['SHAPE']         the layout a TPU gives a shape by default, and its padding
//! ```
//!
//! This crate parses arguments and prints; what a layout means is
//! layout-core's. Exit status: 0 on success (a closed stdout included), 1
//! when the input is wrong or reading or writing fails, 2 for a usage
//! error. Messages go to stderr.

mod check;
mod common;
mod explain;
mod memory;
mod offsets;
mod relayout;
mod scan;
mod svg;
mod tpu;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

use common::Failure;

/// Scripting and inspection tools for XLA shapes and layouts.
///
/// A shape is XLA's text, e.g. 'bf16[8,128]{1,0:T(8,128)(2,1)}' (quote it
/// in the shell). Wherever a file is taken, `-` means stdin or stdout.
#[derive(Debug, Parser)]
#[command(
    verbatim_doc_comment,
    name = "xla-layout",
    version,
    propagate_version = true,
    subcommand_required = true,
    arg_required_else_help = true,
    after_help = "Exit status: 0 success, 1 bad input or a failed read or write, 2 usage error."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Check(check::Args),
    Offsets(offsets::Args),
    Relayout(relayout::Args),
    Explain(explain::Args),
    Scan(scan::Args),
    Memory(memory::Args),
    Tpu(tpu::Args),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // Help and version go to stdout (exit 0) — and a failure to
            // write them is a failure, as for any command's output. One
            // program, one version line: clap would name a subcommand's
            // as `xla-layout-explain`.
            let text = if e.kind() == clap::error::ErrorKind::DisplayVersion {
                format!("xla-layout {}\n", env!("CARGO_PKG_VERSION"))
            } else {
                e.render().to_string()
            };
            let mut out = io::stdout().lock();
            return match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(e) => {
                    let _ = writeln!(io::stderr(), "xla-layout: {}", writing(e));
                    ExitCode::FAILURE
                }
            };
        }
        Err(e) => {
            // Usage errors: stderr, exit 2.
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    let result = match cli.command {
        Command::Check(args) => check::main(&args, io::stdin().lock(), Stdout(io::stdout().lock())),
        Command::Offsets(args) => offsets::run(&args.shape, Stdout(io::stdout().lock())),
        Command::Relayout(args) => relayout::main(
            &args,
            io::stdin().lock(),
            Stdout(io::stdout().lock()),
            stdin_file_len(),
        ),
        Command::Explain(args) => explain::main(&args, Stdout(io::stdout().lock())),
        Command::Scan(args) => scan::main(
            &args,
            io::stdin().lock(),
            Stdout(io::stdout().lock()),
            Stderr(io::stderr().lock()),
        ),
        Command::Memory(args) => memory::main(
            &args,
            io::stdin().lock(),
            Stdout(io::stdout().lock()),
            Stderr(io::stderr().lock()),
        ),
        Command::Tpu(args) => tpu::main(&args, io::stdin().lock(), Stdout(io::stdout().lock())),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(Failure::Usage { command, message }) => {
            let mut cli = Cli::command();
            cli.build();
            let e = match cli.find_subcommand_mut(command) {
                Some(sub) => sub.error(clap::error::ErrorKind::ArgumentConflict, message),
                None => cli.error(clap::error::ErrorKind::ArgumentConflict, message),
            };
            let _ = e.print();
            ExitCode::from(2)
        }
        Err(e) => {
            let _ = writeln!(io::stderr(), "xla-layout: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Standard output whose write errors say so ("writing stdout: No space
/// left on device"), their kind kept (a closed pipe still exits 0).
struct Stdout<W>(W);

impl<W: Write> Write for Stdout<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.write(bytes).map_err(writing)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().map_err(writing)
    }
}

/// Standard error for a command's messages: a write that fails (stderr
/// closed, as by `2>&1 | head`) is dropped, so that the command goes on to
/// its exit status (a message that cannot be shown must not turn a
/// failure into a closed pipe's exit 0).
struct Stderr<W>(W);

impl<W: Write> Write for Stderr<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let _ = self.0.write_all(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let _ = self.0.flush();
        Ok(())
    }
}

fn writing(e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("writing stdout: {e}"))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
