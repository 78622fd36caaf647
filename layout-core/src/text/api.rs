//! The convenience entry points: `parse`, `parse_validated`, `FromStr`.

use core::fmt::{self, Display, Formatter};
use core::str::FromStr;

use super::{ParseError, parse_array, parse_layout, parse_shape};
use crate::{ArrayShape, Layout, Shape, ValidationError, validate};

/// Why text is not a valid shape: it did not parse, or it parsed but broke
/// a validation rule. XLA keeps the two steps apart too.
///
/// ```
/// use xla_layout_core::{ArrayShape, Stage};
///
/// let e = ArrayShape::parse_validated("f32[2]{0:T(0)}").unwrap_err();
/// assert_eq!(e.stage(), Stage::Validate);
/// let e = ArrayShape::parse_validated("f32[2]{0:T(2)").unwrap_err();
/// assert_eq!(e.stage(), Stage::Parse);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The text does not parse.
    Parse(ParseError),
    /// The shape parses but is invalid.
    Validate(ValidationError),
}

/// Which step rejected a shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Parsing.
    Parse,
    /// Validation.
    Validate,
}

impl Stage {
    /// `"parse"` or `"validate"`.
    ///
    /// ```
    /// # use xla_layout_core::Stage;
    /// assert_eq!(Stage::Validate.as_str(), "validate");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            Stage::Parse => "parse",
            Stage::Validate => "validate",
        }
    }
}

impl Error {
    /// The failure as a compiler reports one, pointing at the offending
    /// part of `src` (the text it came from): the token a parse failed
    /// at, or the part of the shape a validation rule is about
    /// ([`super::ShapeSpans::locate`]).
    ///
    /// ```
    /// use xla_layout_core::ArrayShape;
    /// let text = "f32[2,3]{1,0:T(8,128)(0,1)}";
    /// let e = ArrayShape::parse_validated(text).unwrap_err();
    /// assert_eq!(
    ///     e.render(text, "shape"),
    ///     "shape:1:22: layout has invalid tiles: tile dimension 0 must be positive or kCombineDimension: f32[2,3]\n\
    ///      f32[2,3]{1,0:T(8,128)(0,1)}\n                     ^^^^^"
    /// );
    /// ```
    #[cfg(feature = "alloc")]
    pub fn render(&self, src: &str, path: &str) -> alloc::string::String {
        match self {
            Error::Parse(e) => e.render(src, path),
            Error::Validate(e) => super::shape_spans(src.as_bytes())
                .locate(e.kind())
                .render(src, path, e),
        }
    }

    /// The failure in words a person can act on, for `src` (the text it
    /// came from): a parse error as [`super::Diagnostic::explain`] says it,
    /// with its byte offset; a validation error as its rule's hint, then
    /// XLA's message. `Display` gives XLA's message alone.
    ///
    /// ```
    /// use xla_layout_core::ArrayShape;
    /// let e = ArrayShape::parse_validated("bf17[3]").unwrap_err();
    /// assert_eq!(e.to_string(), "expected primitive type, saw kIdent (at byte 0)");
    /// assert_eq!(
    ///     e.explain("bf17[3]").to_string(),
    ///     "unknown element type `bf17`; did you mean `bf16`? (at byte 0)"
    /// );
    /// let e = ArrayShape::parse_validated("f32[2]{0:T(0)}").unwrap_err();
    /// assert_eq!(
    ///     e.explain("f32[2]{0:T(0)}").to_string(),
    ///     "tile entries must be positive integers or `*`: \
    ///      layout has invalid tiles: tile dimension 0 must be positive or kCombineDimension: f32[2]"
    /// );
    /// ```
    pub fn explain<'a>(&'a self, src: &'a (impl AsRef<[u8]> + ?Sized)) -> impl Display + 'a {
        fmt::from_fn(move |f| match self {
            Error::Parse(e) => e.explain(src).fmt(f),
            Error::Validate(e) => e.explain().fmt(f),
        })
    }

    /// `Display`'s text, with what a parse error quotes from `src` (the
    /// text it came from: XLA prints the layout a `P(...)` is refused in).
    ///
    /// ```
    /// use xla_layout_core::ArrayShape;
    /// let text = "f32[4]{0:P(f32[4])}";
    /// let e = ArrayShape::parse_validated(text).unwrap_err();
    /// assert_eq!(
    ///     e.with_source(text).to_string(),
    ///     "Layout has physical shape, but is not for a sparse array: {0:P(f32[4]{0})} (at byte 19)"
    /// );
    /// ```
    pub fn with_source<'a>(&'a self, src: &'a (impl AsRef<[u8]> + ?Sized)) -> impl Display + 'a {
        fmt::from_fn(move |f| match self {
            Error::Parse(e) => e.with_source(src).fmt(f),
            Error::Validate(e) => e.fmt(f),
        })
    }

    /// Which step failed.
    pub const fn stage(&self) -> Stage {
        match self {
            Error::Parse(_) => Stage::Parse,
            Error::Validate(_) => Stage::Validate,
        }
    }
}

impl Display for Error {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Error::Parse(e) => Display::fmt(e, f),
            Error::Validate(e) => Display::fmt(e, f),
        }
    }
}

impl core::error::Error for Error {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Error::Parse(e) => Some(e),
            Error::Validate(e) => Some(e),
        }
    }
}

impl From<ParseError> for Error {
    fn from(e: ParseError) -> Self {
        Error::Parse(e)
    }
}

impl From<ValidationError> for Error {
    fn from(e: ValidationError) -> Self {
        Error::Validate(e)
    }
}

impl ArrayShape {
    /// Parses array shape text (no validation; see [`ArrayShape::parse_validated`]).
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let s = ArrayShape::parse("f32[2,3]{0,0}").unwrap(); // XLA's parser accepts this
    /// assert!(s.validate().is_err());                       // its validator does not
    /// ```
    pub fn parse(text: &str) -> Result<ArrayShape, ParseError> {
        parse_array(text.as_bytes())
    }

    /// Parses and validates array shape text: what most callers want.
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let s = ArrayShape::parse_validated("s4[64,128]{1,0:E(4)}").unwrap();
    /// assert_eq!(s.rank(), 2);
    /// ```
    pub fn parse_validated(text: &str) -> Result<ArrayShape, Error> {
        let s = Self::parse(text)?;
        s.validate()?;
        Ok(s)
    }
}

/// Parses and validates, as [`ArrayShape::parse_validated`]: text that
/// reaches the program from outside should not become a shape XLA would
/// refuse. [`ArrayShape::parse`] parses only.
///
/// ```
/// # use xla_layout_core::ArrayShape;
/// assert!("bf16[16,256]{1,0}".parse::<ArrayShape>().is_ok());
/// assert!("bf16[16,256]{1,1}".parse::<ArrayShape>().is_err()); // parses; XLA refuses it
/// assert!(ArrayShape::parse("bf16[16,256]{1,1}").is_ok());
/// ```
impl FromStr for ArrayShape {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        Self::parse_validated(s)
    }
}

impl Shape {
    /// Parses shape text of any kind (no validation).
    ///
    /// ```
    /// # use xla_layout_core::Shape;
    /// assert_eq!(Shape::parse("token[]").unwrap(), Shape::Token);
    /// ```
    pub fn parse(text: &str) -> Result<Shape, ParseError> {
        parse_shape(text.as_bytes())
    }

    /// Parses and validates shape text.
    ///
    /// ```
    /// # use xla_layout_core::Shape;
    /// assert!(Shape::parse_validated("opaque[]").is_ok());
    /// assert!(Shape::parse_validated("b(f32[2]{0:E(-1)})").is_err());
    /// ```
    pub fn parse_validated(text: &str) -> Result<Shape, Error> {
        let s = Self::parse(text)?;
        validate(&s)?;
        Ok(s)
    }
}

/// Parses and validates, as [`Shape::parse_validated`]; [`Shape::parse`]
/// parses only.
impl FromStr for Shape {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        Self::parse_validated(s)
    }
}

impl Layout {
    /// Parses a bare layout as `xla::ParseLayout` does.
    ///
    /// ```
    /// # use xla_layout_core::Layout;
    /// assert_eq!(Layout::parse("{0:T(128)S(1)}").unwrap().memory_space(), 1);
    /// ```
    pub fn parse(text: &str) -> Result<Layout, ParseError> {
        parse_layout(text.as_bytes())
    }
}

impl FromStr for Layout {
    type Err = ParseError;
    /// [`Layout::parse`].
    fn from_str(s: &str) -> Result<Self, ParseError> {
        Self::parse(s)
    }
}
