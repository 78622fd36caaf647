//! The ways an array shape is written for people and tools, and the order
//! they are told apart in: `tpu(SHAPE[, GENERATION])` (the layout a TPU
//! gives the shape), `SHAPE Layout(...)` (JAX's layout form), then XLA's
//! text. The CLI's shape arguments and `layout!` read them here.

use core::fmt::{self, Display};

use super::{Error, JaxShapeError, parse_array_with_jax_layout};
use crate::tpu::{RequestError, parse_request};
use crate::{ArrayShape, Shape};

/// How an array shape was written.
///
/// ```
/// use xla_layout_core::text::{Form, parse_array_any};
/// assert_eq!(parse_array_any("tpu(f32[8])").unwrap().1, Form::Tpu);
/// assert_eq!(parse_array_any("f32[8]{0}").unwrap().1, Form::Xla);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Form {
    /// XLA's text: `bf16[8,128]{1,0:T(8,128)(2,1)}`.
    Xla,
    /// `tpu(SHAPE[, GENERATION])`: the layout a TPU gives SHAPE
    /// ([`crate::tpu::parse_request`]).
    Tpu,
    /// `SHAPE Layout(major_to_minor=…)`: JAX's layout form
    /// ([`super::parse_array_with_jax_layout`]).
    Jax,
}

/// Why text in one of the [`Form`]s is not a valid array shape.
///
/// ```
/// use xla_layout_core::text::{FormError, parse_array_any};
/// assert!(matches!(parse_array_any("tpu(f32[8]"), Err(FormError::Tpu(_)))); // `)` missing
/// assert!(matches!(parse_array_any("f32[8]{1}"), Err(FormError::Shape(_))));
/// assert_eq!(parse_array_any("token[]"), Err(FormError::NotAnArray));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FormError {
    /// `tpu(...)` does not read, or the shape has no TPU default.
    Tpu(RequestError),
    /// `SHAPE Layout(...)` does not read.
    Jax(JaxShapeError),
    /// XLA's text does not parse or validate, or the layout JAX's form
    /// gives does not validate.
    Shape(Error),
    /// The text is a tuple, a buffer `b(...)`, `token[]` or `opaque[]`.
    NotAnArray,
}

impl Display for FormError {
    /// XLA's message where there is one (as each form's error says it).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormError::Tpu(e) => e.fmt(f),
            FormError::Jax(e) => e.fmt(f),
            FormError::Shape(e) => e.fmt(f),
            FormError::NotAnArray => {
                f.write_str("not an array shape (a tuple, a buffer, `token[]` or `opaque[]`)")
            }
        }
    }
}

impl core::error::Error for FormError {}

impl FormError {
    /// `Display`'s text, with what a parse error quotes from `src` (the
    /// text it came from: XLA prints the layout a `P(...)` is refused in).
    ///
    /// ```
    /// use xla_layout_core::text::parse_array_any;
    /// let text = "tpu((f32[4]{0:P(f32[4])}))";
    /// let e = parse_array_any(text).unwrap_err();
    /// assert!(e.with_source(text).to_string().contains("{0:P(f32[4]{0})}"));
    /// ```
    pub fn with_source<'a>(&'a self, src: &'a str) -> impl Display + 'a {
        fmt::from_fn(move |f| match self {
            FormError::Tpu(e) => e.with_source(src).fmt(f),
            FormError::Jax(e) => e.with_source(src).fmt(f),
            FormError::Shape(e) => e.with_source(src).fmt(f),
            FormError::NotAnArray => self.fmt(f),
        })
    }

    /// The failure in words a person can act on, for `src` (the text it
    /// came from): each form's own `explain`; a shape that does not parse
    /// or validate says which step refused it.
    ///
    /// ```
    /// use xla_layout_core::text::parse_array_any;
    /// let text = "f32[2,3] Layout(major_to_minor=(0, 0))";
    /// let e = parse_array_any(text).unwrap_err();
    /// assert!(e.explain(text).to_string().starts_with("validate error: "));
    /// ```
    pub fn explain<'a>(&'a self, src: &'a str) -> impl Display + 'a {
        fmt::from_fn(move |f| match self {
            FormError::Tpu(e) => e.explain(src).fmt(f),
            FormError::Jax(e) => e.explain(src).fmt(f),
            FormError::Shape(e) => write!(f, "{} error: {}", e.stage().as_str(), e.explain(src)),
            FormError::NotAnArray => self.fmt(f),
        })
    }
}

/// `text` in the `tpu(...)` or JAX form, read into XLA's array shape, or
/// `None` when it is in neither: then it is XLA's text. Read, not
/// validated (a TPU default is valid; JAX's layout may name a dimension
/// twice): the caller validates it as it does XLA's text, or calls
/// [`parse_array_any`], which does. The error is `FormError::Tpu` or
/// `FormError::Jax`.
///
/// ```
/// use xla_layout_core::text::{Form, parse_other_form};
/// let (form, s) = parse_other_form("tpu(bf16[3,1000])").unwrap();
/// // Three rows: a TPU tiles bf16 by 4 rows, not 8.
/// assert_eq!((form, s.unwrap().to_string()), (Form::Tpu, "bf16[3,1000]{1,0:T(4,128)(2,1)}".into()));
/// let (form, s) = parse_other_form("f32[3,5] Layout(major_to_minor=(0, 0))").unwrap();
/// assert_eq!(form, Form::Jax);
/// assert!(s.unwrap().validate().is_err());
/// assert!(parse_other_form("bf16[3,1000]{1,0}").is_none());
/// ```
pub fn parse_other_form(text: &str) -> Option<(Form, Result<ArrayShape, FormError>)> {
    if let Some(request) = parse_request(text) {
        return Some((Form::Tpu, request.map_err(FormError::Tpu)));
    }
    let shape = parse_array_with_jax_layout(text)?;
    Some((Form::Jax, shape.map_err(FormError::Jax)))
}

/// An array shape in any [`Form`], validated: what a program should call
/// on a shape a person typed.
///
/// ```
/// use xla_layout_core::text::{Form, parse_array_any};
/// let jax = "bf16[16,256] Layout(major_to_minor=(0, 1), tiling=((8, 128), (2, 1)))";
/// for (text, form) in [
///     ("bf16[16,256]{1,0:T(8,128)(2,1)}", Form::Xla),
///     ("tpu(bf16[16,256])", Form::Tpu),
///     (jax, Form::Jax),
/// ] {
///     let (shape, read) = parse_array_any(text).unwrap();
///     assert_eq!((shape.to_string(), read), ("bf16[16,256]{1,0:T(8,128)(2,1)}".into(), form));
/// }
/// // Each form is validated: JAX's order (0, 0) names a dimension twice.
/// assert!(parse_array_any("f32[3,5] Layout(major_to_minor=(0, 0))").is_err());
/// assert!(parse_array_any("f32[3,5]{0,0}").is_err());
/// assert!(parse_array_any("token[]").is_err());
/// ```
pub fn parse_array_any(text: &str) -> Result<(ArrayShape, Form), FormError> {
    if let Some((form, shape)) = parse_other_form(text) {
        let shape = shape?;
        shape
            .validate()
            .map_err(|e| FormError::Shape(Error::Validate(e)))?;
        return Ok((shape, form));
    }
    match Shape::parse_validated(text) {
        Ok(Shape::Array(a)) => Ok((a, Form::Xla)),
        Ok(_) => Err(FormError::NotAnArray),
        Err(e) => Err(FormError::Shape(e)),
    }
}
