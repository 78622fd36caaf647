//! Where each part of an array shape's text is, so that tools (the
//! `layout!` macro, editors) can point at the part a rule is about.

use super::ATTRIBUTES;
use crate::ValidationErrorKind;
use crate::limits::{MAX_RANK, MAX_SPLIT_CONFIGS, MAX_TILES};

/// A byte range of the input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ByteSpan {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl ByteSpan {
    pub(crate) const EMPTY: ByteSpan = ByteSpan { start: 0, end: 0 };

    /// As a range.
    pub const fn range(self) -> core::ops::Range<usize> {
        self.start..self.end
    }

    /// The 1-based line and column (in bytes) where the span starts in
    /// `src`.
    ///
    /// ```
    /// use xla_layout_core::text::ByteSpan;
    /// assert_eq!(ByteSpan { start: 4, end: 5 }.line_column("ab\ncdef"), (2, 2));
    /// ```
    pub fn line_column(self, src: &str) -> (usize, usize) {
        let before = &src.as_bytes()[..self.start.min(src.len())];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        (line, before.len() - line_start + 1)
    }

    /// The span as a compiler reports a place: `path:line:column:
    /// message`, the line of text, and carets under the span. A line
    /// longer than [`MAX_SHOWN`] bytes is cut around the span (`…` marks
    /// a cut), so an error in a line of hundreds of megabytes prints a
    /// few hundred bytes.
    ///
    /// ```
    /// use xla_layout_core::text::ByteSpan;
    /// let src = "a = f32[2]{0} 7\n";
    /// assert_eq!(
    ///     ByteSpan { start: 14, end: 15 }.render(src, "m.hlo", "expected an opcode"),
    ///     "m.hlo:1:15: expected an opcode\na = f32[2]{0} 7\n              ^"
    /// );
    /// let long = format!("{}x{}", "a".repeat(10_000), "b".repeat(10_000));
    /// let shown = ByteSpan { start: 10_000, end: 10_001 }.render(&long, "f", "here");
    /// assert!(shown.len() < 600);                   // not 20 000
    /// assert!(shown.starts_with("f:1:10001: here\n…aaa"));
    /// ```
    #[cfg(feature = "alloc")]
    pub fn render(
        self,
        src: &str,
        path: &str,
        message: impl core::fmt::Display,
    ) -> alloc::string::String {
        use core::fmt::Write;
        let (line, column) = self.line_column(src);
        let start = self.start.min(src.len());
        let line_start = src[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = src[start..].find('\n').map_or(src.len(), |i| start + i);
        // Cut to at most MAX_SHOWN bytes, the span's start a third in.
        let from = floor_char(src, start.saturating_sub(MAX_SHOWN / 3).max(line_start));
        let to = ceil_char(src, (from + MAX_SHOWN).min(line_end));
        let (head, tail) = (
            if from > line_start { "…" } else { "" },
            if to < line_end { "…" } else { "" },
        );
        let text = &src[from..to];
        let pad = src[from..start].chars().count() + usize::from(!head.is_empty());
        let carets = src[start..self.end.clamp(start, to)].chars().count().max(1);
        let mut out = alloc::string::String::new();
        let _ = write!(
            out,
            "{path}:{line}:{column}: {message}\n{head}{text}{tail}\n{}{}",
            " ".repeat(pad),
            "^".repeat(carets)
        );
        out
    }
}

/// Lines longer than this are cut around an error's place when shown.
pub const MAX_SHOWN: usize = 240;

/// The char boundary at or before `i`.
#[cfg(feature = "alloc")]
fn floor_char(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The char boundary at or after `i`.
#[cfg(feature = "alloc")]
fn ceil_char(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// The byte ranges of the parts of a parsed array shape; see
/// [`super::parse_array_with_spans`]. Absent parts are `None` or empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ShapeSpans {
    /// The element type.
    pub element_type: ByteSpan,
    /// `[...]`.
    pub dims: ByteSpan,
    /// Each dimension.
    pub dim: [ByteSpan; MAX_RANK],
    /// `{...}`, if written.
    pub layout: Option<ByteSpan>,
    /// The minor-to-major list (the `{` when it is empty).
    pub minor_to_major: ByteSpan,
    /// Each attribute, name and value (`T(8,128)(2,1)`, `S(1)`), by its
    /// position in [`super::ATTRIBUTES`]; see [`ShapeSpans::attribute`].
    pub attributes: [Option<ByteSpan>; ATTRIBUTES.len()],
    /// Each tile, `(…)`.
    pub tiles: [ByteSpan; MAX_TILES],
    /// Each split config, `(d:…)`.
    pub split_configs: [ByteSpan; MAX_SPLIT_CONFIGS],
}

impl ShapeSpans {
    pub(crate) const EMPTY: ShapeSpans = ShapeSpans {
        element_type: ByteSpan::EMPTY,
        dims: ByteSpan::EMPTY,
        dim: [ByteSpan::EMPTY; MAX_RANK],
        layout: None,
        minor_to_major: ByteSpan::EMPTY,
        attributes: [None; ATTRIBUTES.len()],
        tiles: [ByteSpan::EMPTY; MAX_TILES],
        split_configs: [ByteSpan::EMPTY; MAX_SPLIT_CONFIGS],
    };

    /// The attribute written `name` (`"E"`, `"S"`, …), if the text has it.
    ///
    /// ```
    /// use xla_layout_core::text::parse_array_with_spans;
    /// let text = "bf16[8,128]{1,0:T(8,128)(2,1)S(1)}";
    /// let (_, spans) = parse_array_with_spans(text.as_bytes()).unwrap();
    /// assert_eq!(&text[spans.attribute("S").unwrap().range()], "S(1)");
    /// assert_eq!(&text[spans.attribute("T").unwrap().range()], "T(8,128)(2,1)");
    /// assert_eq!(spans.attribute("E"), None);
    /// ```
    pub fn attribute(&self, name: &str) -> Option<ByteSpan> {
        self.attributes[super::attribute_index(name)?]
    }

    /// The part of the text a validation rule is about: the dimensions for
    /// dimension rules, the minor-to-major list, the offending tile or
    /// attribute, else the whole layout.
    ///
    /// ```
    /// use xla_layout_core::text::parse_array_with_spans;
    ///
    /// let text = "f32[2,3]{1,0:T(8,128)(0,1)}";
    /// let (shape, spans) = parse_array_with_spans(text.as_bytes()).unwrap();
    /// let err = shape.validate().unwrap_err();
    /// assert_eq!(&text[spans.locate(err.kind()).range()], "(0,1)");
    /// ```
    pub fn locate(&self, kind: ValidationErrorKind) -> ByteSpan {
        use ValidationErrorKind as K;
        let whole = self.layout.unwrap_or(self.dims);
        match kind {
            K::InvalidElementType | K::WrongKindForElementType => self.element_type,
            K::NegativeDimension { index, .. } => self.dim.get(index).copied().unwrap_or(self.dims),
            K::DimensionsOverflow | K::SizeMayOverflow => self.dims,
            K::MissingLayout => ByteSpan {
                start: self.element_type.start,
                end: self.dims.end,
            },
            K::MinorToMajorLength | K::MinorToMajorOutOfBounds | K::MinorToMajorDuplicate => {
                self.minor_to_major
            }
            // The attribute the rule is about: the failing tile or split
            // config, else the whole attribute.
            _ => {
                let Some(a) = super::attribute_of(kind.rule()) else {
                    return whole;
                };
                let items: &[ByteSpan] = match a.name {
                    "T" => &self.tiles,
                    "SC" => &self.split_configs,
                    _ => &[],
                };
                kind.item()
                    .and_then(|k| items.get(k).copied())
                    .filter(|s| s.end > 0)
                    .or_else(|| self.attribute(a.name))
                    .unwrap_or(whole)
            }
        }
    }
}
