//! HLO text: whole modules as XLA dumps them (`--xla_dump_to`,
//! `compiled.as_text()`), read with `xla-layout-core`'s lexer and shape
//! parser — one grammar for shapes wherever they appear.
//!
//! ```
//! use xla_layout_hlo::Module;
//!
//! let text = "HloModule m\n\nENTRY %main {\n  ROOT %p = bf16[8,128]{1,0:T(8,128)(2,1)} parameter(0)\n}\n";
//! let module = Module::parse(text).unwrap();
//! let (computation, p) = module.instruction("p").unwrap();
//! assert_eq!((computation.name(), p.opcode()), ("main", "parameter"));
//! assert_eq!(p.shape().unwrap().unwrap().to_string(), "bf16[8,128]{1,0:T(8,128)(2,1)}");
//! ```
//!
//! [`Reader`] streams [`Event`]s without allocating per instruction (what
//! `xla-layout scan` uses); [`Module`] collects them, borrowing the text.
//! The reader checks the module's structure and parses every instruction's
//! shape; operand lists and attribute values are checked for balanced
//! brackets and kept as text, so attributes XLA adds later are never an
//! error. It does not check what XLA's verifier checks (that operands
//! exist, that opcodes are known, that shapes are valid for their layouts).
//!
//! On top of the model: [`dataflow`] finds the values and buffers XLA's
//! dataflow and alias analyses define (which opcode defines a value,
//! which forwards one: a table), and the flattened schedule; [`memory`]
//! sizes them as each backend allocates, reproduces jax's
//! `compiled.memory_analysis()` and estimates the peak (what `xla-layout
//! memory` prints); [`BufferAssignment`] reads XLA's own allocations from
//! its dump; [`Metadata`] and [`StackIndex::frames`] say where an
//! instruction came from in the user's code.
//!
//! The crate consumes the core's public grammar-embedding API
//! ([`xla_layout_core::text::parse_shape_into`] and its siblings), as a
//! decoder consumes a format's parser crate. Its modules depend one way:
//! `items` (the data: [`Module`], [`Computation`], [`Instruction`], …) ←
//! `reader` (text → events) ← `assemble` (events → [`Module`]). It is
//! `no_std` and needs `alloc`.
#![cfg_attr(not(test), no_std)]
#![deny(missing_docs)]

extern crate alloc;

mod assemble;
mod assignment;
pub mod calls;
pub mod dataflow;
pub mod dump;
mod error;
pub mod infer;
mod items;
mod memo;
pub mod memory;
mod metadata;
pub mod names;
pub mod opcodes;
mod reader;

pub use assignment::{
    Allocation, AssignedValue, BufferAssignment, OTHER_DUMP_FILES, memory_space_labels,
    other_dump_file, topology_generation,
};
pub use error::{HloError, HloErrorKind, LookupError};
pub use items::{
    Attribute, Computation, FileLocation, Instruction, Module, Operand, StackFrame, StackIndex,
};
pub use metadata::{Metadata, SourceLocation, unescape};
pub use reader::{Event, LARGE_SHAPE_TEXT, Reader, defined_name};
