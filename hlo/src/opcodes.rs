//! XLA's opcodes as its text format spells them: which opcode names XLA
//! knows. The reader takes any opcode (a dump from a newer XLA may have
//! one this table lacks); the memory report says which it met that are
//! not here, since it takes each to define a buffer of its own.
//!
//! The names are those of XLA's opcode list (`xla/hlo/ir/hlo_opcode.h`,
//! as of November 2026), sorted.

/// Every opcode XLA's text format knows, sorted.
///
/// ```
/// use xla_layout_hlo::opcodes::OPCODES;
/// assert!(OPCODES.windows(2).all(|w| w[0] < w[1]));
/// assert!(OPCODES.contains(&"get-tuple-element"));
/// ```
pub const OPCODES: [&str; 136] = [
    "abs",
    "acos",
    "acosh",
    "add",
    "add-dependency",
    "after-all",
    "all-gather",
    "all-gather-done",
    "all-gather-start",
    "all-reduce",
    "all-reduce-done",
    "all-reduce-start",
    "all-to-all",
    "and",
    "asin",
    "asinh",
    "async-done",
    "async-start",
    "async-update",
    "atan",
    "atan2",
    "atanh",
    "batch-norm-grad",
    "batch-norm-inference",
    "batch-norm-training",
    "bitcast",
    "bitcast-convert",
    "broadcast",
    "call",
    "cbrt",
    "ceil",
    "cholesky",
    "clamp",
    "collective-broadcast",
    "collective-permute",
    "collective-permute-done",
    "collective-permute-start",
    "collective-reduce",
    "compare",
    "complex",
    "concatenate",
    "conditional",
    "constant",
    "convert",
    "convolution",
    "copy",
    "copy-done",
    "copy-start",
    "cosh",
    "cosine",
    "count-leading-zeros",
    "custom-call",
    "divide",
    "domain",
    "dot",
    "dynamic-reshape",
    "dynamic-slice",
    "dynamic-update-slice",
    "erf",
    "exponential",
    "exponential-minus-one",
    "fft",
    "floor",
    "fusion",
    "gather",
    "get-dimension-size",
    "get-tuple-element",
    "imag",
    "infeed",
    "iota",
    "is-finite",
    "log",
    "log-plus-one",
    "logistic",
    "map",
    "maximum",
    "minimum",
    "mulhi",
    "multiply",
    "negate",
    "not",
    "opt-barrier",
    "or",
    "outfeed",
    "pad",
    "parameter",
    "partition-id",
    "popcnt",
    "power",
    "ragged-all-to-all",
    "ragged-dot",
    "real",
    "recv",
    "recv-done",
    "reduce",
    "reduce-precision",
    "reduce-scatter",
    "reduce-window",
    "remainder",
    "replica-id",
    "reshape",
    "reverse",
    "rng",
    "rng-bit-generator",
    "rng-get-and-update-state",
    "round-nearest-afz",
    "round-nearest-even",
    "rsqrt",
    "scaled-dot",
    "scan",
    "scatter",
    "select",
    "select-and-scatter",
    "send",
    "send-done",
    "set-dimension-size",
    "shift-left",
    "shift-right-arithmetic",
    "shift-right-logical",
    "shuffle",
    "sign",
    "sine",
    "sinh",
    "slice",
    "sort",
    "sqrt",
    "stochastic-convert",
    "subtract",
    "tan",
    "tanh",
    "topk",
    "transpose",
    "triangular-solve",
    "tuple",
    "while",
    "xor",
];

/// Whether XLA knows `opcode`: it is in [`OPCODES`], or it is the text
/// form of an asynchronously wrapped operation, `X-start`, `X-update` or
/// `X-done` for an opcode `X` (`slice-start`, `fusion-done`).
///
/// ```
/// use xla_layout_hlo::opcodes::is_known;
/// assert!(is_known("add") && is_known("copy-start") && is_known("slice-start"));
/// assert!(!is_known("quantum-transpose") && !is_known("quantum-transpose-done"));
/// ```
pub fn is_known(opcode: &str) -> bool {
    listed(opcode) || wrapped(opcode).is_some_and(|(x, _)| listed(x))
}

/// Whether [`OPCODES`] lists `opcode`.
fn listed(opcode: &str) -> bool {
    OPCODES.binary_search(&opcode).is_ok()
}

/// Which part of an asynchronously wrapped operation an opcode names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AsyncPart {
    /// `X-start`.
    Start,
    /// `X-update`.
    Update,
    /// `X-done`.
    Done,
}

/// The operation `opcode` wraps asynchronously in XLA's short text form,
/// and which part of the async op it is: `slice-start` is the start of an
/// async `slice`, `fusion-done` the end of an async `fusion`. `None` for
/// an opcode of its own, whatever its suffix (`all-reduce-start`,
/// `copy-done`, `async-start`), and for the rest. The wrapped name is not
/// looked up: a newer XLA's opcode wraps as well ([`is_known`] tells).
///
/// ```
/// use xla_layout_hlo::opcodes::{AsyncPart, wrapped};
/// assert_eq!(wrapped("dynamic-update-slice-start"), Some(("dynamic-update-slice", AsyncPart::Start)));
/// assert_eq!(wrapped("fusion-done"), Some(("fusion", AsyncPart::Done)));
/// assert_eq!(wrapped("all-reduce-start"), None); // an opcode of its own
/// assert_eq!(wrapped("async-start"), None);
/// assert_eq!(wrapped("add"), None);
/// ```
pub fn wrapped(opcode: &str) -> Option<(&str, AsyncPart)> {
    if listed(opcode) {
        return None;
    }
    [
        ("-start", AsyncPart::Start),
        ("-update", AsyncPart::Update),
        ("-done", AsyncPart::Done),
    ]
    .into_iter()
    .find_map(|(suffix, part)| {
        (opcode.strip_suffix(suffix))
            .filter(|x| !x.is_empty())
            .map(|x| (x, part))
    })
}
