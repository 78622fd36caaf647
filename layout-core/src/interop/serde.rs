//! Shapes, layouts and element types as their XLA text in any `serde`
//! format: a shape is the string XLA prints (`"bf16[8,128]{1,0:T(8,128)(2,1)}"`),
//! so that files stay readable and grep-able, and a shape read back is
//! validated as XLA would validate it, and parsed strictly: text XLA's
//! parser reads past (`S(300)`, which it keeps in 8 bits as `S(44)`) is
//! refused rather than read as another shape. A bare layout is parsed as
//! strictly, but not validated: most of XLA's rules need the shape it
//! belongs to.

use core::fmt;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

use crate::{ArrayShape, ElementType, Layout, Shape};

/// Reads a string and hands it to `parse`; the error is the parser's text.
struct TextVisitor<T> {
    expecting: &'static str,
    parse: fn(&str) -> Result<T, ParseFailure>,
}

/// A parse or validation failure, as its message: what failed and why,
/// or (`true`) that the text names no element type.
struct ParseFailure(&'static str, Option<crate::text::Error>, bool);

impl<'de, T> Visitor<'de> for TextVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<T, E> {
        (self.parse)(text).map_err(|ParseFailure(what, cause, unknown_type)| {
            match (cause, unknown_type) {
                (Some(e), _) => E::custom(format_args!("{what} `{text}`: {}", e.with_source(text))),
                // As the shape parser says it.
                (None, true) => {
                    E::custom(fmt::from_fn(|f| crate::text::unknown_element_type(f, text)))
                }
                (None, false) => E::custom(format_args!("{what} `{text}`")),
            }
        })
    }
}

fn deserialize_text<'de, D: Deserializer<'de>, T>(
    deserializer: D,
    expecting: &'static str,
    parse: fn(&str) -> Result<T, ParseFailure>,
) -> Result<T, D::Error> {
    deserializer.deserialize_str(TextVisitor { expecting, parse })
}

macro_rules! as_text {
    ($($ty:ty, $expecting:literal, $parse:expr;)*) => {$(
        /// Serialized as its XLA text. A shape XLA would refuse (built with
        /// [`ArrayShape::parse`] or by hand) is written as it is, and then
        /// refused when read back.
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }

        /// Deserialized from its XLA text; see the module docs for what is
        /// checked.
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                deserialize_text(deserializer, $expecting, $parse)
            }
        }
    )*};
}

/// The text parsed strictly ([`crate::text::ParseOptions::with_strict`])
/// and validated: what XLA's parser records and reads past (`S(300)` kept
/// in 8 bits as `S(44)`, `{0:E}`) would come back as another shape than
/// the text says, so it is refused, as `layout!` refuses it.
fn strictly(text: &str, what: &'static str) -> Result<Shape, ParseFailure> {
    let strict = crate::text::ParseOptions::default().with_strict(true);
    let fail = |e: crate::text::Error| ParseFailure(what, Some(e), false);
    let shape =
        crate::text::parse_shape_with(text.as_bytes(), strict).map_err(|e| fail(e.into()))?;
    crate::validate(&shape).map_err(|e| fail(e.into()))?;
    Ok(shape)
}

as_text! {
    ArrayShape, "an XLA array shape such as \"f32[8,128]{1,0}\"",
        |t| {
            let what = "invalid array shape";
            match strictly(t, what)? {
                Shape::Array(a) => Ok(a),
                // Not an array: the array parser says why.
                _ => Err(ParseFailure(what, ArrayShape::parse(t).err().map(Into::into), false)),
            }
        };
    Shape, "an XLA shape such as \"(f32[2]{0}, s32[])\"",
        |t| strictly(t, "invalid shape");
    Layout, "an XLA layout such as \"{1,0:T(8,128)}\"",
        // Strictly, as shapes: not validated (most rules need the shape).
        |t| crate::text::parse_layout_with(t.as_bytes(), crate::text::ParseOptions::default().with_strict(true))
            .map_err(|e| ParseFailure("invalid layout", Some(e.into()), false));
    ElementType, "an XLA element type name such as \"bf16\"",
        // Every type by its name, `tuple` and the like included (those are
        // not element-type tokens of shape text, but are still types).
        |t| ElementType::ALL.into_iter().find(|ty| ty.name() == t)
            .ok_or(ParseFailure("unknown element type", None, true));
}
