//! Text → checked model, with errors a user can act on.
//!
//! Parsing, validation and address math are layout-core's; this module
//! only words the failures for Rust users and points them at tokens.

use xla_layout_core::text::{
    ByteSpan, Diagnostic, ParseError, ParseErrorKind, ParseOptions, ShapeSpans,
    parse_array_with_spans, shape_spans,
};
use xla_layout_core::{AddressError, ArrayShape, TiledShape, validation_errors};

use crate::ctxt::Ctxt;
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
    /// The element type and dimensions, when they were read (the layout
    /// failed): the fallback keeps them, so that code using the type
    /// type-checks as written and one mistake stays one error.
    pub logical: Option<Box<ArrayShape>>,
}

/// Parses, validates and tiles `src`; on failure pushes every independent
/// error onto `errors`.
pub fn check(src: &SourceText, cx: &mut Ctxt) -> Result<Checked, Partial> {
    let text = src.text.as_bytes();
    // A type must mean what was written: what XLA's parser reads past (a
    // malformed attribute it drops, a memory space it wraps) is an error
    // here, so the text is parsed strictly. Only when that fails is it
    // parsed as XLA does, to tell XLA's errors and validation's (whose
    // words are better for attributes it refuses anyway, `#(s32)`) from
    // the strict parse's own.
    let strict = parse_array_with_spans(text, ParseOptions::default().with_strict(true));
    let (shape, spans, strict_error) = match strict {
        Ok((shape, spans)) => (shape, spans, None),
        Err(strict_error) => match parse_array_with_spans(text, ParseOptions::default()) {
            Ok((shape, spans)) => (shape, spans, Some(strict_error)),
            Err(e) => {
                report_parse_errors(src, &e, "", cx);
                return Err(Partial {
                    rank: parsed_rank(text),
                    logical: None,
                });
            }
        },
    };
    let partial = Partial {
        rank: shape.rank(),
        logical: Some(Box::new(shape)),
    };
    let before = cx.error_count();
    for e in validation_errors(&shape) {
        let at = spans.locate(e.kind());
        let message = e.explain().to_string();
        cx.error(src.error(at.start, at.end, in_jax_terms(src.from_jax, message)));
    }
    if cx.error_count() > before {
        return Err(partial);
    }
    if let Some(e) = strict_error {
        let note = " (XLA's parser records this and reads on; layout! does not)";
        report_parse_errors(src, &e, note, cx);
        return Err(partial);
    }
    match shape.tiled() {
        // Every generated `bit_offset` must be exact: the storage's bit
        // count must fit in 64 bits (the target's usize is checked in the
        // generated code).
        Ok(tiled) if tiled.total_bits().is_none() => {
            let at = spans.attribute("E").unwrap_or(spans.dims);
            cx.error(src.error(
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
                    overflow_cause(&shape, &spans),
                    format!("the layout's size overflows 64 bits: {}", src.text),
                ),
                other => (spans.dims, other.to_string()),
            };
            cx.error(src.error(at.start, at.end, message));
            Err(partial)
        }
    }
}

/// What to point at when a shape's size overflows: `L(n)` if the size
/// fits without it, else the tiles if it fits without them, else the
/// dimensions.
fn overflow_cause(shape: &ArrayShape, spans: &ShapeSpans) -> ByteSpan {
    let Some(layout) = shape.layout() else {
        return spans.dims;
    };
    let fits = |l: xla_layout_core::Layout| shape.with_layout(l).tiled().is_ok();
    let untiled = |l: xla_layout_core::Layout| l.with_tiles(&[]);
    if layout.tail_padding_alignment_in_elements() != 1
        && fits(layout.with_tail_padding_alignment(1))
    {
        return spans.attribute("L").unwrap_or(spans.dims);
    }
    if layout.tile_count() > 0 && fits(untiled(layout.with_tail_padding_alignment(1))) {
        return spans.attribute("T").unwrap_or(spans.dims);
    }
    spans.dims
}

/// The entries of the first `[...]` in `text`, if there is one: the rank
/// a shape was written with (text, or tokens printed as text), counted
/// whatever the entries hold, up to `MAX_RANK`.
pub fn written_rank(text: &str) -> Option<usize> {
    let inside = &text[text.find('[')? + 1..];
    let (mut depth, mut commas, mut empty) = (0usize, 0, true);
    for c in inside.chars() {
        match c {
            '[' | '(' | '{' => depth += 1,
            ']' if depth == 0 => break,
            ']' | ')' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => commas += 1,
            _ => {}
        }
        empty &= c.is_whitespace();
    }
    // The fallback is built with layout-core, which holds at most
    // MAX_RANK dimensions (more is an error of its own).
    Some(if empty { 0 } else { commas + 1 }.min(xla_layout_core::MAX_RANK))
}

/// The rank of a shape that did not parse: the entries of its first
/// `[...]` (a dimension that does not read, `f32[8,x]`, still counts).
fn parsed_rank(text: &[u8]) -> usize {
    std::str::from_utf8(text)
        .ok()
        .and_then(written_rank)
        .unwrap_or(0)
}

/// Pushes one error for each independent diagnostic of `e`, each message
/// followed by `note` (XLA's own wrapped memory space says it itself).
fn report_parse_errors(src: &SourceText, e: &ParseError, note: &str, cx: &mut Ctxt) {
    let text = src.text.as_bytes();
    let before = cx.error_count();
    // A second message at the same token is a consequence of the first
    // (XLA gives up on the layout there too): show one.
    let mut reported = Vec::new();
    for d in e.diagnostics().filter(|d| !d.is_noise(text)) {
        if reported.contains(&d.start) {
            continue;
        }
        reported.push(d.start);
        let (start, end) = where_to_point(src, d);
        let mut message = in_jax_terms(src.from_jax, explain_parse(src, d));
        if !matches!(d.kind, ParseErrorKind::MemorySpaceOutOfRange(_)) {
            message.push_str(note);
        }
        cx.error(src.error(start, end, message));
    }
    // A failed parse always says why, even if its only words were noise.
    if cx.error_count() == before {
        let d = e.primary();
        cx.error(src.error(d.start, d.end, explain_parse(src, d)));
    }
}

/// Most diagnostics point at their token; a few are better shown on the
/// part of the layout they are about.
fn where_to_point(src: &SourceText, d: &Diagnostic) -> (usize, usize) {
    let spans = shape_spans(src.text.as_bytes());
    match d.kind {
        ParseErrorKind::MinorToMajorCount { .. } => {
            (spans.minor_to_major.start, spans.minor_to_major.end)
        }
        ParseErrorKind::PhysicalShapeOnDenseArray { .. } => spans
            .attribute("P")
            .map_or((d.start, d.end), |s| (s.start, s.end)),
        ParseErrorKind::NotAnArray(_) => (0, src.text.len()),
        _ => (d.start, d.end),
    }
}

/// The message for a parse diagnostic: the core's explanation, except
/// for what only `layout!` can say.
fn explain_parse(src: &SourceText, d: &Diagnostic) -> String {
    match &d.kind {
        ParseErrorKind::NotAnArray(kind) => format!(
            "layout! needs an array shape; this is {kind} (tuples, tokens, opaque and buffer shapes have no addressing)"
        ),
        // In an item list the shape runs to the next `;`: a forgotten one
        // shows up as the next item's first word.
        ParseErrorKind::ExtraContent(_)
            if src.to_next_semicolon
                && matches!(src.text.get(d.start..d.end), Some("pub" | "type" | "#")) =>
        {
            format!(
                "expected `;` after the shape, before the next layout (found `{}`)",
                &src.text[d.start..d.end]
            )
        }
        ParseErrorKind::ExtraContent(_)
            if src.to_next_semicolon && src.text.get(d.start..d.end) == Some(",") =>
        {
            "layout items end with `;`, not `,`".to_string()
        }
        _ => d.explain(src.text.as_bytes()).to_string(),
    }
}

/// `message` for a shape written in JAX's form: a message about XLA's
/// `minor_to_major` says how it relates to what the user wrote.
pub fn in_jax_terms(from_jax: bool, mut message: String) -> String {
    if from_jax && message.contains("minor_to_major") {
        message.push_str("; JAX's major_to_minor, as written here, is minor_to_major reversed");
    }
    message
}
