//! Text: the lexer, the shape/layout parser and the canonical printer.
//!
//! The pipeline is text → [`Lexer`] tokens → [`parse_shape`] model →
//! [`crate::validate`] → addressing; `Display` prints the model back.

mod api;
mod error;
mod grid;
mod lexer;
mod parser;
pub(crate) mod print;
mod spans;

pub use api::{Error, Stage};
pub use error::{Diagnostic, ParseError, ParseErrorKind, XlaMessage};
pub use grid::{GridError, OffsetGrid};
pub use lexer::{GroupError, Lexer, MAX_GROUP_DEPTH, Token, TokenKind};
#[cfg(feature = "alloc")]
pub use parser::{ParseEvent, parse_shape_events};
pub use parser::{
    ParseOptions, parse_array, parse_array_with_spans, parse_layout, parse_shape, parse_shape_with,
    shape_spans,
};
#[cfg(feature = "alloc")]
pub(crate) use parser::{shape_at, shape_events_at, shape_extent};
pub use print::WithoutLayout;
pub use spans::{ByteSpan, MAX_SHOWN, ShapeSpans};
