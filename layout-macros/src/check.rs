//! Text → checked model, with errors a user can act on.
//!
//! Parsing, validation and address math are layout-core's; this module
//! only words the failures for Rust users and points them at tokens.

use xla_layout_core::text::{
    Diagnostic, ParseErrorKind, TokenKind, parse_array_with_spans, shape_spans,
};
use xla_layout_core::{AddressError, ArrayShape, ElementType, TiledShape, validation_errors};

use crate::to_text::SourceText;

/// A shape that parsed, validated and has addresses.
pub struct Checked {
    pub shape: ArrayShape,
    pub tiled: TiledShape,
}

/// What is known of a shape that failed, for a fallback type.
#[derive(Default)]
pub struct Partial {
    pub rank: usize,
}

/// Parses, validates and tiles `src`; on failure pushes every independent
/// error onto `errors`.
pub fn check(src: &SourceText, errors: &mut Vec<syn::Error>) -> Result<Checked, Partial> {
    let text = src.text.as_bytes();
    let (shape, spans) = match parse_array_with_spans(text) {
        Ok(ok) => ok,
        Err(e) => {
            // A second message at the same token is a consequence of the
            // first (XLA gives up on the layout there too): show one.
            let mut reported = Vec::new();
            for d in e.diagnostics().filter(|d| !is_noise(src, d)) {
                if reported.contains(&d.start) {
                    continue;
                }
                reported.push(d.start);
                let (start, end) = where_to_point(src, d);
                errors.push(src.error(start, end, explain_parse(src, d)));
            }
            // The dimensions that did parse give the fallback its rank.
            let spans = shape_spans(text);
            let rank = spans.dim.iter().take_while(|s| s.end > 0).count();
            return Err(Partial { rank });
        }
    };
    let partial = Partial { rank: shape.rank() };
    let before = errors.len();
    for e in validation_errors(&shape) {
        let at = spans.locate(e.kind());
        errors.push(src.error(at.start, at.end, format!("{}: {e}", e.kind().rule())));
    }
    if errors.len() > before {
        return Err(partial);
    }
    match shape.tiled() {
        // Every generated `bit_offset` must be exact: the storage's bit
        // count must fit in 64 bits (the target's usize is checked in the
        // generated code).
        Ok(tiled) if tiled.total_bits().is_none() => {
            let at = spans.element_size.unwrap_or(spans.dims);
            errors.push(src.error(
                at.start,
                at.end,
                format!(
                    "the layout's storage, {} slots of {} bits, has bit offsets beyond 64 bits: layout! types must address every element's bits",
                    tiled.physical_slots(),
                    tiled.element_bits()
                ),
            ));
            Err(partial)
        }
        Ok(tiled) => Ok(Checked { shape, tiled }),
        Err(e) => {
            let (at, message) = match e {
                AddressError::UnboundedDimension { dim } => (
                    spans.dim[dim],
                    format!(
                        "dimension {dim} is unbounded (`?`): layout! needs every size; write a bound such as `<=1024`"
                    ),
                ),
                AddressError::Overflow => (
                    spans.dims,
                    format!("the layout's size overflows 64 bits: {}", src.text),
                ),
                other => (spans.dims, other.to_string()),
            };
            errors.push(src.error(at.start, at.end, message));
            Err(partial)
        }
    }
}

/// XLA's parser tries an integer before `*` in a tile, leaving an
/// "expects integer" behind that means nothing to a user.
fn is_noise(src: &SourceText, d: &Diagnostic) -> bool {
    d.kind == ParseErrorKind::Syntax("expects integer") && src.slice(d.start, d.end) == "*"
}

/// Most diagnostics point at their token; a few are better shown on the
/// part of the layout they are about.
fn where_to_point(src: &SourceText, d: &Diagnostic) -> (usize, usize) {
    let spans = shape_spans(src.text.as_bytes());
    match d.kind {
        ParseErrorKind::MinorToMajorCount { .. } => {
            (spans.minor_to_major.start, spans.minor_to_major.end)
        }
        ParseErrorKind::PhysicalShapeOnDenseArray(_) => spans
            .physical_shape
            .map_or((d.start, d.end), |s| (s.start, s.end)),
        ParseErrorKind::NotAnArray(_) => (0, src.text.len()),
        _ => (d.start, d.end),
    }
}

/// Attributes in the order XLA reads them.
const ATTRIBUTE_ORDER: &str = "D, T, L, #, *, E, S, SC, P, M";

fn explain_parse(src: &SourceText, d: &Diagnostic) -> String {
    let token = src.slice(d.start, d.end);
    let xla = d.kind.to_string();
    let lexed = xla_layout_core::text::Lexer::at(src.text.as_bytes(), d.start).next_token();
    match &d.kind {
        ParseErrorKind::ExpectedPrimitiveType(TokenKind::Ident) => {
            let hint = match ElementType::closest_name(token) {
                Some(t) => format!("; did you mean `{t}`?"),
                None => "; element types are pred, s1..s64, u1..u64, f16, bf16, f32, f64, the f8/f6/f4 types, c64, c128".into(),
            };
            format!("unknown element type `{token}`{hint}")
        }
        ParseErrorKind::ExpectedPrimitiveType(_) => {
            format!("expected an element type such as `f32` or `bf16` (XLA: {xla})")
        }
        ParseErrorKind::Syntax("expects integer") if lexed.kind == TokenKind::Decimal => {
            format!("`{token}` is a float literal; XLA expects an integer here (XLA: {xla})")
        }
        ParseErrorKind::Syntax("expects layout to end with kRbrace") if is_attribute(token) => {
            format!(
                "layout attribute `{token}` is out of order or repeated: attributes come at most once each, in the order {ATTRIBUTE_ORDER} (XLA: {xla})"
            )
        }
        ParseErrorKind::ExtraContent(_) => {
            format!("unexpected `{token}` after the shape (XLA: {xla})")
        }
        ParseErrorKind::MinorToMajorCount {
            rank,
            minor_to_major,
        } => format!(
            "minor_to_major must have one entry per dimension: the shape has {rank} dimensions but the layout lists {minor_to_major} (XLA: {xla})"
        ),
        ParseErrorKind::Syntax("expects layout to end with kRbrace") => format!(
            "unexpected {} in the layout: after `:` come the attributes {ATTRIBUTE_ORDER}, each at most once and in that order, then `}}` (XLA: {xla})",
            describe(token)
        ),
        ParseErrorKind::Syntax("expects integer") => {
            format!(
                "expected an integer, found {} (XLA: {xla})",
                describe(token)
            )
        }
        ParseErrorKind::ExpectedListStart(kind) | ParseErrorKind::ExpectedListEnd(kind) => {
            format!(
                "expected `{}`, found {} (XLA: {xla})",
                punctuation(*kind),
                describe(token)
            )
        }
        ParseErrorKind::NotAnArray(kind) => format!(
            "layout! needs an array shape; this is {kind} (tuples, tokens, opaque and buffer shapes have no addressing)"
        ),
        ParseErrorKind::PhysicalShapeOnDenseArray(_) => format!(
            "P(shape) physical shapes belong to sparse arrays, which XLA no longer has (XLA: {xla})"
        ),
        _ => xla,
    }
}

/// A token for a message: `` `x` `` or "the end of the shape".
fn describe(token: &str) -> String {
    if token.is_empty() {
        "the end of the shape".into()
    } else {
        format!("`{token}`")
    }
}

/// The text of a punctuation token kind.
fn punctuation(kind: TokenKind) -> &'static str {
    match kind {
        TokenKind::Lsquare => "[",
        TokenKind::Rsquare => "]",
        TokenKind::Lparen => "(",
        TokenKind::Rparen => ")",
        TokenKind::Lbrace => "{",
        TokenKind::Rbrace => "}",
        TokenKind::Colon => ":",
        _ => kind.xla_name(),
    }
}

fn is_attribute(token: &str) -> bool {
    matches!(
        token,
        "D" | "T" | "L" | "#" | "*" | "E" | "S" | "SC" | "P" | "M"
    )
}
