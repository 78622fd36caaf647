//! Every kind of shape (docs/xla-layouts.md §0): arrays, buffers, tokens, opaques, tuples.
//!
//! Tuples may nest as deep as the parser allows (8192 levels), so nothing
//! here recurses on the Rust stack: printing, comparing, hashing and
//! cloning walk the tree with [`Shape::events`], which keeps an explicit
//! stack.

#[cfg(feature = "alloc")]
use alloc::vec::Vec;
use core::hash::{Hash, Hasher};

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

/// Tuples nest as deep as the parser is allowed to read
/// ([`crate::text::ParseOptions::with_max_depth`]), and the compiler's drop
/// glue recurses once a level: hundreds of thousands of levels overflow
/// the stack. A nested tuple is taken apart level by level instead, on
/// a heap stack, as every other walk over a shape is.
#[cfg(feature = "alloc")]
impl Drop for Shape {
    fn drop(&mut self) {
        let Shape::Tuple(elements) = self else {
            return;
        };
        // Flat tuples, nearly all of them, are left to the drop glue.
        if !elements.iter().any(|e| matches!(e, Shape::Tuple(_))) {
            return;
        }
        let mut pending = alloc::vec![core::mem::take(elements)];
        while let Some(mut level) = pending.pop() {
            for e in &mut level {
                if let Shape::Tuple(inner) = e
                    && !inner.is_empty()
                {
                    pending.push(core::mem::take(inner));
                }
            }
            // `level` goes here, its tuples emptied: each drop is shallow.
        }
    }
}

/// One step of a pre-order walk over a [`Shape`]; see [`Shape::events`].
///
/// ```
/// # #[cfg(feature = "alloc")] {
/// use xla_layout_core::{Shape, ShapeEvent};
/// let s = Shape::parse("(f32[], token[])").unwrap();
/// let events: Vec<ShapeEvent> = s.events().collect();
/// assert_eq!(events[0], ShapeEvent::TupleStart { index: 0, len: 2 });
/// assert!(matches!(events[2], ShapeEvent::Leaf { index: 1, shape: Shape::Token }));
/// assert_eq!(events[3], ShapeEvent::TupleEnd);
/// # }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShapeEvent<'a> {
    /// A shape that is not a tuple.
    Leaf {
        /// Its position in the enclosing tuple (0 at the top).
        index: usize,
        /// The shape.
        shape: &'a Shape,
    },
    /// A tuple starts; its elements follow, then [`ShapeEvent::TupleEnd`].
    TupleStart {
        /// Its position in the enclosing tuple (0 at the top).
        index: usize,
        /// How many elements it has.
        len: usize,
    },
    /// The innermost open tuple ends.
    TupleEnd,
}

/// The iterator of [`Shape::events`].
///
/// ```
/// use xla_layout_core::{Shape, ShapeEvent};
/// // Not a tuple: one leaf.
/// let s = Shape::parse("f32[2]").unwrap();
/// let mut events = s.events();
/// assert!(matches!(events.next(), Some(ShapeEvent::Leaf { index: 0, shape: Shape::Array(_) })));
/// assert_eq!(events.next(), None);
/// ```
pub struct ShapeEvents<'a> {
    next: Option<&'a Shape>,
    #[cfg(feature = "alloc")]
    stack: Vec<(usize, core::slice::Iter<'a, Shape>)>,
}

impl<'a> Iterator for ShapeEvents<'a> {
    type Item = ShapeEvent<'a>;

    fn next(&mut self) -> Option<ShapeEvent<'a>> {
        #[cfg(feature = "alloc")]
        let (index, shape) = match self.next.take() {
            Some(s) => (0, s),
            None => {
                let (count, iter) = self.stack.last_mut()?;
                match iter.next() {
                    Some(s) => {
                        *count += 1;
                        (*count - 1, s)
                    }
                    None => {
                        self.stack.pop();
                        return Some(ShapeEvent::TupleEnd);
                    }
                }
            }
        };
        #[cfg(not(feature = "alloc"))]
        let (index, shape) = (0, self.next.take()?);
        #[cfg(feature = "alloc")]
        if let Shape::Tuple(elems) = shape {
            self.stack.push((0, elems.iter()));
            return Some(ShapeEvent::TupleStart {
                index,
                len: elems.len(),
            });
        }
        Some(ShapeEvent::Leaf { index, shape })
    }
}

impl Shape {
    /// A pre-order walk over the shape that uses no recursion, whatever the
    /// nesting depth.
    ///
    /// ```
    /// # #[cfg(feature = "alloc")] {
    /// use xla_layout_core::{Shape, ShapeEvent};
    /// let s = Shape::parse("((f32[]), token[])").unwrap();
    /// let kinds: Vec<&str> = s.events().map(|e| match e {
    ///     ShapeEvent::Leaf { .. } => "leaf",
    ///     ShapeEvent::TupleStart { .. } => "(",
    ///     ShapeEvent::TupleEnd => ")",
    /// }).collect();
    /// assert_eq!(kinds, ["(", "(", "leaf", ")", "leaf", ")"]);
    /// # }
    /// ```
    pub fn events(&self) -> ShapeEvents<'_> {
        ShapeEvents {
            next: Some(self),
            #[cfg(feature = "alloc")]
            stack: Vec::new(),
        }
    }

    /// The elements of a tuple shape, moved out; the shape itself back if
    /// it is not a tuple. (A pattern cannot move them out: `Shape`
    /// implements `Drop`, to take deep tuples apart without recursion.)
    ///
    /// ```
    /// use xla_layout_core::Shape;
    /// let s = Shape::parse("(f32[2], token[])").unwrap();
    /// let elements = s.into_tuple_elements().unwrap();
    /// assert_eq!(elements.len(), 2);
    /// assert!(Shape::parse("f32[2]").unwrap().into_tuple_elements().is_err());
    /// ```
    #[cfg(feature = "alloc")]
    pub fn into_tuple_elements(mut self) -> Result<Vec<Shape>, Shape> {
        match &mut self {
            Shape::Tuple(elements) => Ok(core::mem::take(elements)),
            _ => Err(self),
        }
    }

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

    /// A copy of a leaf (never a tuple).
    fn clone_leaf(&self) -> Shape {
        match self {
            Shape::Array(a) => Shape::Array(*a),
            Shape::Buffer(a) => Shape::Buffer(*a),
            Shape::Token => Shape::Token,
            Shape::Opaque => Shape::Opaque,
            #[cfg(feature = "alloc")]
            Shape::Tuple(_) => unreachable!("clone_leaf is only called on leaves"),
        }
    }
}

impl From<ArrayShape> for Shape {
    fn from(a: ArrayShape) -> Shape {
        Shape::Array(a)
    }
}

impl Clone for Shape {
    fn clone(&self) -> Shape {
        #[cfg(feature = "alloc")]
        {
            // Open tuples being rebuilt, innermost last.
            let mut open: Vec<Vec<Shape>> = Vec::new();
            for event in self.events() {
                let done = match event {
                    ShapeEvent::TupleStart { len, .. } => {
                        open.push(Vec::with_capacity(len));
                        continue;
                    }
                    ShapeEvent::Leaf { shape, .. } => shape.clone_leaf(),
                    ShapeEvent::TupleEnd => Shape::Tuple(open.pop().unwrap_or_default()),
                };
                match open.last_mut() {
                    Some(parent) => parent.push(done),
                    None => return done,
                }
            }
            unreachable!("a walk ends with the shape it started from")
        }
        #[cfg(not(feature = "alloc"))]
        self.clone_leaf()
    }
}

impl PartialEq for Shape {
    fn eq(&self, other: &Shape) -> bool {
        let mut a = self.events();
        let mut b = other.events();
        loop {
            match (a.next(), b.next()) {
                (None, None) => return true,
                (Some(x), Some(y)) if same_event(x, y) => {}
                _ => return false,
            }
        }
    }
}

fn same_event(x: ShapeEvent<'_>, y: ShapeEvent<'_>) -> bool {
    match (x, y) {
        (ShapeEvent::Leaf { shape: s, .. }, ShapeEvent::Leaf { shape: t, .. }) => match (s, t) {
            (Shape::Array(a), Shape::Array(b)) | (Shape::Buffer(a), Shape::Buffer(b)) => a == b,
            (Shape::Token, Shape::Token) | (Shape::Opaque, Shape::Opaque) => true,
            _ => false,
        },
        (x, y) => x == y,
    }
}

impl Eq for Shape {}

impl Hash for Shape {
    fn hash<H: Hasher>(&self, state: &mut H) {
        for event in self.events() {
            match event {
                ShapeEvent::Leaf { shape, .. } => {
                    core::mem::discriminant(shape).hash(state);
                    if let Shape::Array(a) | Shape::Buffer(a) = shape {
                        a.hash(state);
                    }
                }
                ShapeEvent::TupleStart { len, .. } => (1u8, len).hash(state),
                ShapeEvent::TupleEnd => 2u8.hash(state),
            }
        }
    }
}
