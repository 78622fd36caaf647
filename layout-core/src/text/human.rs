//! Shapes printed without their layouts (XLA's `HumanString`), which
//! validation's messages use: below validation, and needing nothing of
//! the layout grammar.

use core::fmt::{self, Display, Formatter, Write};

use crate::{ArrayShape, Dim};

/// `ShapeUtil::HumanString` of an array: `f32[<=2,?,3]`.
pub(crate) fn write_array_without_layout(f: &mut Formatter<'_>, s: &ArrayShape) -> fmt::Result {
    write!(f, "{}[", s.element_type().name())?;
    for i in 0..s.rank() {
        if i > 0 {
            f.write_char(',')?;
        }
        // XLA prints `?` for the unbounded size whatever the dynamic flag.
        match (s.dims()[i], s.dim(i)) {
            (crate::UNBOUNDED, _) | (_, Dim::Unbounded) => f.write_char('?')?,
            (_, Dim::Static(n)) => write!(f, "{n}")?,
            (_, Dim::Bounded(n)) => write!(f, "<={n}")?,
        }
    }
    f.write_char(']')
}

/// Display adapter printing a shape without its layouts
/// (`ShapeUtil::HumanString`); see [`ArrayShape::without_layout`] and
/// [`Shape::without_layout`](crate::Shape::without_layout).
#[derive(Clone, Copy, Debug)]
pub struct WithoutLayout<'a, S: ?Sized>(&'a S);

impl<'a, S: ?Sized> WithoutLayout<'a, S> {
    pub(crate) const fn new(s: &'a S) -> Self {
        WithoutLayout(s)
    }

    pub(crate) const fn inner(&self) -> &'a S {
        self.0
    }
}

impl ArrayShape {
    /// Prints as XLA's `HumanString`: no layout.
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let s: ArrayShape = "f32[<=23,44,<=55]{2,1,0:T(8)}".parse().unwrap();
    /// assert_eq!(s.without_layout().to_string(), "f32[<=23,44,<=55]");
    /// ```
    pub const fn without_layout(&self) -> WithoutLayout<'_, ArrayShape> {
        WithoutLayout(self)
    }
}

impl Display for WithoutLayout<'_, ArrayShape> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_array_without_layout(f, self.0)
    }
}
