//! HLO text: whole modules as XLA dumps them (`--xla_dump_to`,
//! `compiled.as_text()`), read with the crate's own lexer and shape parser —
//! one grammar for shapes wherever they appear.
//!
//! [`Reader`] streams [`Event`]s without allocating per instruction (what
//! `xla-layout scan` uses); [`Module`] collects them, borrowing the text.
//! The reader checks the module's structure and parses every instruction's
//! shape; operand lists and attribute values are checked for balanced
//! brackets and kept as text, so attributes XLA adds later are never an
//! error. It does not check what XLA's verifier checks (that operands
//! exist, that opcodes are known, that shapes are valid for their layouts).

mod error;
mod memo;
mod module;
mod reader;

pub use error::{HloError, HloErrorKind};
pub use module::{
    Attribute, Computation, FileLocation, Instruction, LookupError, Module, Operand, StackFrame,
    StackIndex,
};
pub use reader::{Event, LARGE_SHAPE_TEXT, Reader};
