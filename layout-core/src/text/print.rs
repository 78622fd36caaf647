//! Model → text: XLA's canonical printing (docs/xla-layouts.md §a.4),
//! byte for byte, layouts through the attribute table. Printing without
//! layouts, which validation's messages need, is below in `human`.

use core::fmt::{self, Display, Formatter, Write};

use super::attributes::{write_joined, write_tile};
use super::human::{WithoutLayout, write_array_without_layout};

use crate::{ArrayShape, Layout, Shape, ShapeEvent};

impl Display for Layout {
    /// `Layout::ToString`: `{m2m:attributes}` with defaults omitted, the
    /// attributes in the table's order ([`super::ATTRIBUTES`]).
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_char('{')?;
        write_joined(f, self.minor_to_major(), ",")?;
        super::attributes::print_attributes(self, f)?;
        f.write_char('}')
    }
}

/// One tile as XLA prints it (`Tile::ToString`): `(8,128)`, `*` for a
/// [`COMBINE`](crate::COMBINE) entry. See [`Layout::tile_text`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TileText<'a>(&'a [i64]);

impl<'a> TileText<'a> {
    /// The text of `tile` (its entries most major first, as
    /// [`Layout::tile`] gives them).
    ///
    /// ```
    /// use xla_layout_core::{COMBINE, text::TileText};
    /// assert_eq!(TileText::new(&[8, 128]).to_string(), "(8,128)");
    /// assert_eq!(TileText::new(&[COMBINE, 2]).to_string(), "(*,2)");
    /// ```
    pub const fn new(tile: &'a [i64]) -> Self {
        TileText(tile)
    }
}

impl Display for TileText<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_tile(f, self.0)
    }
}

impl Layout {
    /// Tile `i` as XLA prints it: `(8,128)`, with `*` for a combine entry.
    ///
    /// # Panics
    /// If `i >= self.tile_count()`.
    ///
    /// ```
    /// # use xla_layout_core::Layout;
    /// let l: Layout = "{1,0:T(8,128)(*,2)}".parse().unwrap();
    /// assert_eq!(l.tile_text(0).to_string(), "(8,128)");
    /// assert_eq!(l.tile_text(1).to_string(), "(*,2)");
    /// ```
    pub const fn tile_text(&self, i: usize) -> TileText<'_> {
        TileText(self.tile(i))
    }
}

/// Whether a layout prints as exactly `{}` (then a scalar drops it).
fn prints_empty(l: &Layout) -> bool {
    let mut probe = crate::InlineStr::<2>::new();
    write!(probe, "{l}").is_ok() && probe.as_str() == "{}"
}

impl Display for ArrayShape {
    /// `ShapeUtil::HumanStringWithLayout`: the canonical XLA text.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_array_without_layout(f, self)?;
        match self.layout() {
            Some(l) if !(self.rank() == 0 && prints_empty(l)) => write!(f, "{l}"),
            _ => Ok(()),
        }
    }
}

impl Shape {
    /// Prints as XLA's `HumanString`: no layouts anywhere.
    ///
    /// ```
    /// # use xla_layout_core::Shape;
    /// let s = Shape::parse("b(f32[2]{0:T(2)})").unwrap();
    /// assert_eq!(s.without_layout().to_string(), "b(f32[2])");
    /// ```
    pub const fn without_layout(&self) -> WithoutLayout<'_, Shape> {
        WithoutLayout::new(self)
    }
}

impl Display for WithoutLayout<'_, Shape> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_shape(f, self.inner(), false)
    }
}

impl Display for Shape {
    /// The canonical XLA text, with layouts.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_shape(f, self, true)
    }
}

fn write_shape(f: &mut Formatter<'_>, s: &Shape, with_layout: bool) -> fmt::Result {
    for event in s.events() {
        let piece = match event {
            ShapeEvent::TupleStart { index, .. } => Piece::Open(index),
            ShapeEvent::Leaf { index, shape } => Piece::Leaf(index, shape),
            ShapeEvent::TupleEnd => Piece::Close,
        };
        write_piece(f, piece, with_layout)?;
    }
    Ok(())
}

/// One piece of a shape's text, in a walk: a tuple's `(`, a leaf, a `)`;
/// with the position in the enclosing tuple.
enum Piece<'s> {
    Open(usize),
    Leaf(usize, &'s Shape),
    Close,
}

/// A piece's text, with the separator before it.
fn write_piece(f: &mut Formatter<'_>, piece: Piece<'_>, with_layout: bool) -> fmt::Result {
    let index = match piece {
        Piece::Open(index) | Piece::Leaf(index, _) => index,
        Piece::Close => return f.write_char(')'),
    };
    if index > 0 {
        f.write_str(", ")?;
        // XLA marks every fifth element's index (docs/xla-layouts.md §a.4).
        if index % 5 == 0 {
            write!(f, "/*index={index}*/")?;
        }
    }
    match piece {
        Piece::Open(_) => f.write_char('('),
        Piece::Leaf(_, shape) => write_leaf(f, shape, with_layout),
        Piece::Close => Ok(()),
    }
}

#[cfg(feature = "alloc")]
impl Display for super::ParseEvent<'_> {
    /// The event's part of the canonical text, separator included: the
    /// events of a streamed parse, written in order, print the shape as
    /// its `Display` does.
    ///
    /// ```
    /// use xla_layout_core::text::parse_shape_events;
    /// let mut text = String::new();
    /// parse_shape_events(b"(f32[2], (s8[], token[]))", Default::default(), |e| {
    ///     text.push_str(&e.to_string())
    /// })
    /// .unwrap();
    /// assert_eq!(text, "(f32[2]{0}, (s8[], token[]))");
    /// ```
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let piece = match *self {
            super::ParseEvent::TupleStart { index } => Piece::Open(index),
            super::ParseEvent::Leaf { index, shape } => Piece::Leaf(index, shape),
            super::ParseEvent::TupleEnd => Piece::Close,
        };
        write_piece(f, piece, true)
    }
}

fn write_leaf(f: &mut Formatter<'_>, s: &Shape, with_layout: bool) -> fmt::Result {
    let array = |f: &mut Formatter<'_>, a: &ArrayShape| {
        if with_layout {
            write!(f, "{a}")
        } else {
            write_array_without_layout(f, a)
        }
    };
    match s {
        Shape::Array(a) => array(f, a),
        Shape::Buffer(a) => {
            f.write_str("b(")?;
            array(f, a)?;
            f.write_char(')')
        }
        Shape::Token => f.write_str("token[]"),
        Shape::Opaque => f.write_str("opaque[]"),
        #[cfg(feature = "alloc")]
        Shape::Tuple(_) => unreachable!("tuples arrive as events"),
    }
}

// Debug shows the canonical text: the fixed-capacity arrays inside are
// noise, and a deep tuple must not recurse.
impl fmt::Debug for Layout {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "Layout({self})")
    }
}

impl fmt::Debug for ArrayShape {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self.layout() {
            Some(_) => write!(f, "ArrayShape({self})"),
            None => write!(f, "ArrayShape({self}, no layout)"),
        }
    }
}

impl fmt::Debug for Shape {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "Shape({self})")
    }
}
