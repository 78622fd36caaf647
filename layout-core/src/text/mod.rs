//! Text: the lexer, the shape/layout parser and the canonical printer.
//!
//! The pipeline is text → [`Lexer`] tokens → [`parse_shape`] model →
//! [`crate::validate`] → addressing; `Display` prints the model back.
//!
//! Grammars that embed shapes (HLO text, as the `xla-layout-hlo` crate
//! reads it) use the same lexer and parser through [`parse_shape_at`] (a
//! shape at an offset, and where it ends), [`parse_shape_into`] (into a
//! reused value), [`parse_shape_events_at`] (streamed, for huge tuples)
//! and [`shape_extent`] (where a shape ends, without parsing it).

mod api;
mod attributes;
mod error;
mod forms;
mod grid;
mod hint;
#[cfg(feature = "serde")]
pub(crate) use hint::unknown_element_type;
mod human;
mod jax;
mod lexer;
mod parser;
pub(crate) mod print;
mod span;
mod spans;

pub use crate::similar::edit_distance;
pub use api::{Error, Stage};
pub use attributes::{
    ATTRIBUTES, Attribute, AttributeOrder, AttributeValue, attribute_index, attribute_of,
};
pub use error::{Diagnostic, ParseError, ParseErrorKind, XlaMessage};
pub use forms::{Form, FormError, parse_array_any, parse_other_form};
pub use grid::{GridError, OffsetGrid};
pub use hint::Explained;
pub use human::WithoutLayout;
pub use jax::{
    JaxLayout, JaxLayoutError, JaxShapeError, jax_format_without_layout,
    parse_array_with_jax_layout, parse_jax_layout,
};
pub use lexer::{GroupError, Lexer, MAX_GROUP_DEPTH, Token, TokenKind};
#[cfg(feature = "alloc")]
pub use parser::{ParseEvent, parse_shape_events, parse_shape_events_at, read_past};
pub use parser::{
    ParseOptions, ShapeEnd, parse_array, parse_array_with_spans, parse_layout, parse_layout_with,
    parse_shape, parse_shape_at, parse_shape_into, parse_shape_with, shape_extent, shape_spans,
    tuple_element,
};
pub use print::TileText;
pub use span::{ByteSpan, LineCursor, MAX_SHOWN};
pub use spans::ShapeSpans;
