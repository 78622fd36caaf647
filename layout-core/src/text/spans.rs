//! Where each part of an array shape's text is, so that tools (the
//! `layout!` macro, editors) can point at the part a rule is about.

use super::ATTRIBUTES;
use super::span::ByteSpan;
use crate::ValidationErrorKind;
use crate::limits::{MAX_RANK, MAX_SPLIT_CONFIGS, MAX_TILES};

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
    /// use xla_layout_core::text::{parse_array_with_spans, ParseOptions};
    /// let text = "bf16[8,128]{1,0:T(8,128)(2,1)S(1)}";
    /// let (_, spans) = parse_array_with_spans(text.as_bytes(), ParseOptions::default()).unwrap();
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
    /// use xla_layout_core::text::{parse_array_with_spans, ParseOptions};
    ///
    /// let text = "f32[2,3]{1,0:T(8,128)(0,1)}";
    /// let (shape, spans) = parse_array_with_spans(text.as_bytes(), ParseOptions::default()).unwrap();
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
