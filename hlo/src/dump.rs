//! XLA's dump file names (`--xla_dump_to`): which file of a dump directory
//! is an optimized module, and the names of the files XLA writes beside
//! it. Names only; opening the files is the caller's.
//!
//! A module's files are `module_NNNN.NAME[.cl_BUILD].after_optimizations.txt`
//! with `…after_optimizations-buffer-assignment.txt` and
//! `…after_optimizations-memory-usage-report.txt` beside it, and a TPU
//! program's `topology.textproto` in the directory `module_NNNN.NAME…`
//! (the module's name without `.after_optimizations…`). A TPU's module
//! after codegen, `….after_codegen.txt`, has the optimized module's files;
//! XLA's CPU compiler writes `….cpu_after_optimizations.txt` (a CPU
//! program, or a TPU or GPU program's host computation). This project's
//! fixtures are `NAME.hlo`, `NAME.buffer-assignment.txt` and
//! `NAME.memory-usage-report.txt`.

use alloc::format;
use alloc::string::String;

/// A file XLA writes beside an optimized module ([`sibling`]).
///
/// ```
/// use xla_layout_hlo::dump::{Sibling, sibling};
/// let report = sibling("m.after_optimizations.txt", Sibling::MemoryUsageReport);
/// assert_eq!(report.as_deref(), Some("m.after_optimizations-memory-usage-report.txt"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Sibling {
    /// Its buffer assignment.
    BufferAssignment,
    /// Its memory-usage report (which names the memory spaces).
    MemoryUsageReport,
}

impl Sibling {
    /// The suffix after the module's stem.
    const fn suffix(self) -> &'static str {
        match self {
            Sibling::BufferAssignment => "buffer-assignment.txt",
            Sibling::MemoryUsageReport => "memory-usage-report.txt",
        }
    }
}

/// Whether a file named `name` holds an optimized module: XLA's
/// `…after_optimizations.txt` or a fixture's `NAME.hlo` (not the
/// fixtures' `NAME.before.hlo`).
///
/// ```
/// use xla_layout_hlo::dump::is_optimized_module;
/// assert!(is_optimized_module("module_0001.jit_f.cl_1.after_optimizations.txt"));
/// assert!(is_optimized_module("tpu_matmul_2d.hlo"));
/// assert!(!is_optimized_module("tpu_matmul_2d.before.hlo"));
/// assert!(!is_optimized_module("module_0001.jit_f.before_optimizations.txt"));
/// ```
pub fn is_optimized_module(name: &str) -> bool {
    (name.ends_with("after_optimizations.txt") || name.ends_with(".hlo"))
        && !name.ends_with(".before.hlo")
}

/// Whether the module file `name` is one XLA's CPU compiler wrote
/// (`…cpu_after_optimizations.txt`): a CPU program's, or a TPU or GPU
/// program's host computation, dumped beside it.
///
/// ```
/// use xla_layout_hlo::dump::is_cpu_module;
/// assert!(is_cpu_module("module_0003.called_computation.cl_1.cpu_after_optimizations.txt"));
/// assert!(!is_cpu_module("module_0000.jit_f.cl_1.after_optimizations.txt"));
/// ```
pub fn is_cpu_module(name: &str) -> bool {
    name.ends_with(".cpu_after_optimizations.txt")
}

/// Among the module files of one dump directory, the program's: the one
/// module that is not a CPU module ([`is_cpu_module`]) when all the others
/// are, as a TPU or GPU program's host computations are dumped beside it.
/// `None` when that does not pick one.
///
/// ```
/// use xla_layout_hlo::dump::program_among;
/// let names = [
///     "module_0000.jit_f.cl_1.after_optimizations.txt",
///     "module_0003.called_computation.cl_1.cpu_after_optimizations.txt",
/// ];
/// assert_eq!(program_among(&names), Some(0));
/// assert_eq!(program_among(&[names[1]]), None); // a CPU program alone is no device program
/// assert_eq!(program_among(&[names[0], names[0]]), None); // two device modules
/// ```
pub fn program_among<S: AsRef<str>>(names: &[S]) -> Option<usize> {
    let mut device = (0..names.len()).filter(|&k| !is_cpu_module(names[k].as_ref()));
    match (device.next(), device.next()) {
        (Some(k), None) if names.len() > 1 => Some(k),
        _ => None,
    }
}

/// Whether `query` is the whole name of the module in file `name` (with
/// or without its `.hlo` or `.after_optimizations.txt`), as a user picks
/// one among several whose names contain it.
///
/// ```
/// use xla_layout_hlo::dump::names_module;
/// assert!(names_module("f.hlo", "f"));
/// assert!(!names_module("jit_f.hlo", "f"));
/// assert!(names_module("module_0001.jit_f.after_optimizations.txt", "module_0001.jit_f"));
/// assert!(names_module("module_0003.called_computation.cpu_after_optimizations.txt", "module_0003.called_computation"));
/// ```
pub fn names_module(name: &str, query: &str) -> bool {
    name == query
        || [
            ".hlo",
            ".after_optimizations.txt",
            ".cpu_after_optimizations.txt",
        ]
        .iter()
        .any(|suffix| name.strip_suffix(suffix) == Some(query))
}

/// The path of `sibling` beside the module at `path` (a path, or a file
/// name), by XLA's naming: `None` for a name that ends in neither `.txt`
/// nor `.hlo`. XLA dumps the
/// module again just before and after buffer assignment
/// (`…after_optimizations_before_buffer_assignment.txt`); the files beside
/// those are the ones written for `…after_optimizations.txt`.
///
/// ```
/// use xla_layout_hlo::dump::{Sibling, sibling};
/// assert_eq!(
///     sibling("d/m.after_optimizations.txt", Sibling::BufferAssignment).as_deref(),
///     Some("d/m.after_optimizations-buffer-assignment.txt")
/// );
/// assert_eq!(
///     sibling("m.after_optimizations_after_buffer_assignment.txt", Sibling::MemoryUsageReport).as_deref(),
///     Some("m.after_optimizations-memory-usage-report.txt")
/// );
/// assert_eq!(sibling("tpu_odd_shapes.hlo", Sibling::BufferAssignment).as_deref(), Some("tpu_odd_shapes.buffer-assignment.txt"));
/// // The TPU's module after codegen takes the optimized module's files.
/// assert_eq!(
///     sibling("m.after_codegen.txt", Sibling::BufferAssignment).as_deref(),
///     Some("m.after_optimizations-buffer-assignment.txt")
/// );
/// assert_eq!(sibling("notes.md", Sibling::BufferAssignment), None);
/// ```
pub fn sibling(path: &str, sibling: Sibling) -> Option<String> {
    let base = [BEFORE, "_after_buffer_assignment.txt"]
        .iter()
        .find_map(|suffix| path.strip_suffix(suffix))
        .map(|stem| format!("{stem}.txt"))
        .or_else(|| {
            // A TPU's module after codegen: the same instructions, the
            // richer backend configs, and no files of its own.
            (path.strip_suffix(CODEGEN)).map(|stem| format!("{stem}.after_optimizations.txt"))
        });
    let path = base.as_deref().unwrap_or(path);
    if let Some(stem) = path.strip_suffix(".txt") {
        Some(format!("{stem}-{}", sibling.suffix()))
    } else {
        path.strip_suffix(".hlo")
            .map(|stem| format!("{stem}.{}", sibling.suffix()))
    }
}

/// Whether the module at `path` is the dump XLA writes just before buffer
/// assignment (`…after_optimizations_before_buffer_assignment.txt`):
/// memory-space assignment adds values (copies) after it, which its
/// buffer assignment holds.
///
/// ```
/// use xla_layout_hlo::dump::is_before_buffer_assignment;
/// assert!(is_before_buffer_assignment("m.after_optimizations_before_buffer_assignment.txt"));
/// assert!(!is_before_buffer_assignment("m.after_optimizations.txt"));
/// ```
pub fn is_before_buffer_assignment(path: &str) -> bool {
    path.ends_with(BEFORE)
}

/// The suffix of the module dumped just before buffer assignment.
const BEFORE: &str = "_before_buffer_assignment.txt";

/// The suffix of a TPU's module after codegen.
const CODEGEN: &str = ".after_codegen.txt";

/// The name of the directory beside module file `name` that holds a TPU
/// program's `topology.textproto`: the file's name up to
/// `.after_optimizations` (or `.after_codegen`); `None` for a name
/// without it.
///
/// ```
/// use xla_layout_hlo::dump::topology_dir;
/// assert_eq!(topology_dir("module_0001.jit_f.cl_7.after_optimizations.txt"), Some("module_0001.jit_f.cl_7"));
/// assert_eq!(topology_dir("module_0001.jit_f.cl_7.after_codegen.txt"), Some("module_0001.jit_f.cl_7"));
/// assert_eq!(topology_dir("tpu_odd_shapes.hlo"), None);
/// ```
pub fn topology_dir(name: &str) -> Option<&str> {
    (name.split_once(".after_optimizations"))
        .or_else(|| name.split_once(".after_codegen"))
        .map(|(stem, _)| stem)
}
