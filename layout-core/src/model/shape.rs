//! Every kind of shape (spec §0): arrays, buffers, tokens, opaques, tuples.

#[cfg(feature = "alloc")]
use alloc::vec::Vec;

use crate::ArrayShape;

/// A shape of any kind.
///
/// Without the `alloc` feature there are no tuples; everything else works
/// the same.
///
/// ```
/// # #[cfg(feature = "alloc")] {
/// use xla_layout_core::Shape;
///
/// let s: Shape = "(f32[2], token[], b(s32[]), opaque[])".parse().unwrap();
/// let Shape::Tuple(elems) = &s else { unreachable!() };
/// assert!(matches!(elems[..], [Shape::Array(_), Shape::Token, Shape::Buffer(_), Shape::Opaque]));
/// assert_eq!(s.to_string(), "(f32[2]{0}, token[], b(s32[]), opaque[])");
/// # }
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// An array, e.g. `f32[2,3]{1,0}`.
    Array(ArrayShape),
    /// A buffer wrapping one array, `b(...)`.
    Buffer(ArrayShape),
    /// `token[]`.
    Token,
    /// `opaque[]`.
    Opaque,
    /// A tuple of shapes, `(a, b, ...)`; possibly empty.
    #[cfg(feature = "alloc")]
    Tuple(Vec<Shape>),
}

impl Shape {
    /// The array of an array shape.
    ///
    /// ```
    /// # use xla_layout_core::Shape;
    /// let s = Shape::parse("f32[3]").unwrap();
    /// assert_eq!(s.as_array().unwrap().dims(), &[3]);
    /// ```
    pub const fn as_array(&self) -> Option<&ArrayShape> {
        match self {
            Shape::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The element type this kind of shape reports (`element_type()` in
    /// XLA; a buffer reports its array's type).
    ///
    /// ```
    /// # use xla_layout_core::{ElementType, Shape};
    /// assert_eq!(Shape::parse("b(u8[4])").unwrap().element_type(), ElementType::U8);
    /// assert_eq!(Shape::Token.element_type(), ElementType::TOKEN);
    /// ```
    pub const fn element_type(&self) -> crate::ElementType {
        match self {
            Shape::Array(a) | Shape::Buffer(a) => a.element_type(),
            Shape::Token => crate::ElementType::TOKEN,
            Shape::Opaque => crate::ElementType::OPAQUE,
            #[cfg(feature = "alloc")]
            Shape::Tuple(_) => crate::ElementType::TUPLE,
        }
    }
}

impl From<ArrayShape> for Shape {
    fn from(a: ArrayShape) -> Shape {
        Shape::Array(a)
    }
}
