//! JAX's way of writing a layout: `Layout(major_to_minor=(0, 1),
//! tiling=((8, 128), (2, 1)), sub_byte_element_size_in_bits=0)`, as
//! `jax.experimental.layout.Layout` prints it (older JAX: `_tiling`,
//! `DeviceLocalLayout`). The dimension order is major to minor, the
//! reverse of XLA's text; tiles and `E(n)` are as in XLA. JAX's form has
//! nothing for XLA's other attributes (`L`, `S`, `SC`, `M`: the memory
//! space, for one, is on JAX's sharding, not its layout).
//!
//! `tiling=None`, which JAX also prints for a layout written without
//! `tiling`, means "the compiler chooses". It is read here as no tiles,
//! which is what XLA's CPU and GPU compilers choose; a TPU compiler
//! chooses its own tiles (the `tpu` module gives them). An XLA layout
//! without tiles prints as `tiling=()`, as JAX prints a compiled one, so
//! `tiling=None` does not come back as written. `Format(layout=Layout(…),
//! sharding=…)`, as `compiled.input_formats` prints it, is read for its
//! layout ([`parse_array_with_jax_layout`]).
//!
//! ```
//! use xla_layout_core::Layout;
//! use xla_layout_core::text::parse_jax_layout;
//!
//! let l = parse_jax_layout("Layout(major_to_minor=(0, 1), _tiling=((8, 128), (2, 1)))").unwrap();
//! assert_eq!(l.to_string(), "{1,0:T(8,128)(2,1)}");
//! assert_eq!(
//!     l.jax().unwrap().to_string(),
//!     "Layout(major_to_minor=(0, 1), tiling=((8, 128), (2, 1)), sub_byte_element_size_in_bits=0)"
//! );
//! ```

use core::fmt::{self, Display, Formatter, Write};

use crate::limits::{MAX_RANK, MAX_TILE_ENTRIES, MAX_TILES};
use crate::{ArrayShape, CapacityError, Layout};

/// Why text is not a JAX layout, or a layout has no JAX form.
///
/// ```
/// use xla_layout_core::Layout;
/// use xla_layout_core::text::{JaxLayoutError, parse_jax_layout};
/// assert_eq!(parse_jax_layout("Layout(tiling=())").unwrap_err(), JaxLayoutError::NoMajorToMinor);
/// // Python's tuple of one: `(0,)`; and integers of 64 bits at most.
/// assert_eq!(parse_jax_layout("Layout(major_to_minor=(0))").unwrap_err(), JaxLayoutError::LoneItem(24));
/// assert_eq!(parse_jax_layout("Layout(major_to_minor=(0,), tiling=((99999999999999999999,),))").unwrap_err(), JaxLayoutError::IntegerTooLarge(37));
/// assert_eq!(parse_jax_layout("Layout(major_to_minor=(0,), major_to_minor=(0,))").unwrap_err(), JaxLayoutError::Field(28));
/// let combined: Layout = "{1,0:T(*,128)}".parse().unwrap();
/// assert_eq!(combined.jax().unwrap_err(), JaxLayoutError::CombineTileEntry);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum JaxLayoutError {
    /// Not `Layout(...)` with JAX's fields; the byte offset where reading
    /// stopped.
    Syntax(usize),
    /// A field named twice, or one JAX's layout does not have.
    Field(usize),
    /// `major_to_minor` is missing.
    NoMajorToMinor,
    /// A list is longer than this crate holds.
    Capacity(CapacityError),
    /// The layout sets an attribute JAX's form cannot say: the name of a
    /// row of [`super::ATTRIBUTES`] with `in_jax: false`.
    Unrepresentable(&'static str),
    /// A tile has a `*` entry: JAX's tiling holds numbers only.
    CombineTileEntry,
    /// An integer past 64 bits, at this byte offset.
    IntegerTooLarge(usize),
    /// A tuple of one item without the comma Python writes after it
    /// (`(0)` for `(0,)`): the byte offset of its `)`.
    LoneItem(usize),
    /// A tile entry below 0 (XLA's text parser refuses it, and XLA
    /// aborts on one): the value and the byte offset where it is written.
    NegativeTileEntry {
        /// The entry.
        value: i64,
        /// Where it starts in the text.
        at: usize,
    },
}

impl Display for JaxLayoutError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        self.message().fmt(f)?;
        match self.offset() {
            Some(at) => write!(f, " (at byte {at})"),
            None => Ok(()),
        }
    }
}

impl JaxLayoutError {
    /// Where in the text reading stopped, for the errors about text.
    ///
    /// ```
    /// use xla_layout_core::text::parse_jax_layout;
    /// let e = parse_jax_layout("Layout(major_to_minor=(0,1), tilng=())").unwrap_err();
    /// assert_eq!(e.offset(), Some(29));
    /// ```
    pub const fn offset(&self) -> Option<usize> {
        match self {
            JaxLayoutError::Syntax(at)
            | JaxLayoutError::Field(at)
            | JaxLayoutError::IntegerTooLarge(at)
            | JaxLayoutError::LoneItem(at)
            | JaxLayoutError::NegativeTileEntry { at, .. } => Some(*at),
            _ => None,
        }
    }

    /// The message without its byte offset, for callers that show where
    /// another way (a span over the text). `Display` is this followed by
    /// ` (at byte N)` when there is an offset.
    ///
    /// ```
    /// use xla_layout_core::text::parse_jax_layout;
    /// let e = parse_jax_layout("Layout(major_to_minor=(0,1), tilng=())").unwrap_err();
    /// assert_eq!(e.message().to_string(), "an unknown or repeated field of JAX's Layout");
    /// assert_eq!(e.to_string(), "an unknown or repeated field of JAX's Layout (at byte 29)");
    /// ```
    pub fn message(&self) -> impl Display + '_ {
        const SYNTAX: &str = "expected JAX's `Layout(major_to_minor=(…), tiling=((…), …), \
                              sub_byte_element_size_in_bits=N)`";
        fmt::from_fn(move |f| match self {
            JaxLayoutError::Syntax(_) => f.write_str(SYNTAX),
            JaxLayoutError::Field(_) => f.write_str("an unknown or repeated field of JAX's Layout"),
            JaxLayoutError::NoMajorToMinor => f.write_str("JAX's Layout needs major_to_minor"),
            JaxLayoutError::IntegerTooLarge(_) => {
                f.write_str("an integer past the largest XLA reads (64 bits)")
            }
            JaxLayoutError::LoneItem(_) => f.write_str(
                "a tuple of one item needs a comma after it, as Python prints it: `(0,)`, \
                 `tiling=((8, 128),)`",
            ),
            JaxLayoutError::Capacity(c) => write!(f, "{c}"),
            JaxLayoutError::Unrepresentable(name) => {
                let field = super::attribute_index(name).map_or("", |i| super::ATTRIBUTES[i].field);
                write!(f, "JAX's Layout has no field for XLA's {name} ({field})")
            }
            JaxLayoutError::CombineTileEntry => {
                f.write_str("JAX's Layout has no field for XLA's `*` tile entries")
            }
            JaxLayoutError::NegativeTileEntry { value, .. } => write!(
                f,
                "tile dimension {value} is negative (XLA's parser refuses it, and XLA aborts on it)"
            ),
        })
    }
}

impl JaxLayoutError {
    /// The same error for a layout that starts `by` bytes into a larger
    /// input.
    fn shifted(self, by: usize) -> JaxLayoutError {
        match self {
            JaxLayoutError::Syntax(at) => JaxLayoutError::Syntax(at.saturating_add(by)),
            JaxLayoutError::Field(at) => JaxLayoutError::Field(at.saturating_add(by)),
            JaxLayoutError::IntegerTooLarge(at) => {
                JaxLayoutError::IntegerTooLarge(at.saturating_add(by))
            }
            JaxLayoutError::LoneItem(at) => JaxLayoutError::LoneItem(at.saturating_add(by)),
            JaxLayoutError::NegativeTileEntry { value, at } => JaxLayoutError::NegativeTileEntry {
                value,
                at: at.saturating_add(by),
            },
            other => other,
        }
    }
}

impl core::error::Error for JaxLayoutError {}

/// A small cursor over the text: Python's tuple syntax and identifiers.
struct Cursor<'a> {
    s: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn space(&mut self) {
        while self.s.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.space();
        let here = self.s.get(self.at) == Some(&c);
        self.at += usize::from(here);
        here
    }

    fn expect(&mut self, c: u8) -> Result<(), JaxLayoutError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(JaxLayoutError::Syntax(self.at))
        }
    }

    fn word(&mut self) -> &'a [u8] {
        self.space();
        let start = self.at;
        while self
            .s
            .get(self.at)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        {
            self.at += 1;
        }
        &self.s[start..self.at]
    }

    fn int(&mut self) -> Result<i64, JaxLayoutError> {
        self.space();
        let start = self.at;
        let negative = self.eat(b'-');
        let digits_at = self.at;
        let mut v: i64 = 0;
        while let Some(&c) = self.s.get(self.at)
            && c.is_ascii_digit()
        {
            v = v
                .checked_mul(10)
                .and_then(|v| v.checked_add(i64::from(c - b'0')))
                .ok_or(JaxLayoutError::IntegerTooLarge(start))?;
            self.at += 1;
        }
        if self.at == digits_at {
            return Err(JaxLayoutError::Syntax(start));
        }
        Ok(if negative { -v } else { v })
    }

    /// A Python tuple `(a, b, …)`, each item read by `item`: a trailing
    /// comma allowed, and needed after a lone item, as Python prints `(0,)`
    /// (`(0)` is the number 0).
    fn tuple(
        &mut self,
        item: impl FnMut(&mut Self) -> Result<(), JaxLayoutError>,
    ) -> Result<(), JaxLayoutError> {
        self.items(true, item)
    }

    /// `(a, b, …)`: a tuple, or (`tuple` false) a call's arguments, where
    /// a lone one needs no comma.
    fn items(
        &mut self,
        tuple: bool,
        mut item: impl FnMut(&mut Self) -> Result<(), JaxLayoutError>,
    ) -> Result<(), JaxLayoutError> {
        self.expect(b'(')?;
        let mut count = 0usize;
        loop {
            if self.eat(b')') {
                return Ok(());
            }
            item(self)?;
            count += 1;
            if !self.eat(b',') {
                self.space();
                if tuple && count == 1 {
                    // `(8, 128))`: the item closed with no comma after it.
                    return Err(if self.s.get(self.at) == Some(&b')') {
                        JaxLayoutError::LoneItem(self.at)
                    } else {
                        JaxLayoutError::Syntax(self.at)
                    });
                }
                return self.expect(b')');
            }
        }
    }
}

/// Reads JAX's layout text into an XLA [`Layout`] (see the module docs).
///
/// ```
/// use xla_layout_core::text::parse_jax_layout;
/// let l = parse_jax_layout(
///     "Layout(major_to_minor=(0, 1), tiling=((8, 128), (8, 1)), sub_byte_element_size_in_bits=4)",
/// )
/// .unwrap();
/// assert_eq!(l.to_string(), "{1,0:T(8,128)(8,1)E(4)}");
/// assert_eq!(parse_jax_layout("Layout(major_to_minor=(0,), tiling=None)").unwrap().to_string(), "{0}");
/// ```
pub fn parse_jax_layout(text: &str) -> Result<Layout, JaxLayoutError> {
    let mut c = Cursor {
        s: text.as_bytes(),
        at: 0,
    };
    let name = c.word();
    if name != b"Layout" && name != b"DeviceLocalLayout" {
        return Err(JaxLayoutError::Syntax(0));
    }
    let mut major_to_minor: Option<([i64; MAX_RANK], usize)> = None;
    let mut tiles = [[0i64; MAX_TILE_ENTRIES]; MAX_TILES];
    let mut tile_lens = [0usize; MAX_TILES];
    let mut tile_count: Option<usize> = None;
    let mut sub_byte: Option<i64> = None;
    let capacity = |capacity| JaxLayoutError::Capacity(CapacityError { capacity });
    c.items(false, |c| {
        let at = c.at;
        let field = c.word();
        c.expect(b'=')?;
        match field {
            b"major_to_minor" if major_to_minor.is_none() => {
                let mut dims = ([0i64; MAX_RANK], 0usize);
                c.tuple(|c| {
                    let v = c.int()?;
                    let slot = dims
                        .0
                        .get_mut(dims.1)
                        .ok_or(capacity(crate::Capacity::Rank))?;
                    *slot = v;
                    dims.1 += 1;
                    Ok(())
                })?;
                major_to_minor = Some(dims);
            }
            b"tiling" | b"_tiling" if tile_count.is_none() => {
                let mut n = 0usize;
                if c.word() == b"None" {
                    tile_count = Some(0);
                    return Ok(());
                }
                c.tuple(|c| {
                    let (tile, len) = match (tiles.get_mut(n), tile_lens.get_mut(n)) {
                        (Some(t), Some(l)) => (t, l),
                        _ => return Err(capacity(crate::Capacity::Tiles)),
                    };
                    c.tuple(|c| {
                        c.space();
                        let at = c.at;
                        let v = c.int()?;
                        if v < 0 {
                            return Err(JaxLayoutError::NegativeTileEntry { value: v, at });
                        }
                        let slot = tile
                            .get_mut(*len)
                            .ok_or(capacity(crate::Capacity::TileEntries))?;
                        *slot = v;
                        *len += 1;
                        Ok(())
                    })?;
                    n += 1;
                    Ok(())
                })?;
                tile_count = Some(n);
            }
            b"sub_byte_element_size_in_bits" | b"_sub_byte_element_size_in_bits"
                if sub_byte.is_none() =>
            {
                sub_byte = Some(c.int()?);
            }
            _ => return Err(JaxLayoutError::Field(at)),
        }
        Ok(())
    })?;
    c.space();
    if c.at != c.s.len() {
        return Err(JaxLayoutError::Syntax(c.at));
    }
    let (mtm, rank) = major_to_minor.ok_or(JaxLayoutError::NoMajorToMinor)?;
    let mut m2m = [0i64; MAX_RANK];
    for k in 0..rank {
        m2m[k] = mtm[rank - 1 - k];
    }
    let mut refs: [&[i64]; MAX_TILES] = [&[]; MAX_TILES];
    let count = tile_count.unwrap_or(0);
    for (t, r) in refs.iter_mut().enumerate().take(count) {
        *r = &tiles[t][..tile_lens[t]];
    }
    let mut layout = Layout::try_new(&m2m[..rank]).map_err(JaxLayoutError::Capacity)?;
    if count > 0 {
        layout = layout.with_tiles(&refs[..count]);
    }
    if let Some(bits) = sub_byte.filter(|&b| b != 0) {
        layout = layout.with_element_size_in_bits(bits);
    }
    Ok(layout)
}

/// A layout in JAX's form; see [`Layout::jax`].
///
/// ```
/// use xla_layout_core::Layout;
/// let l: Layout = "{0,1:T(8,128)E(4)}".parse().unwrap();
/// // Major to minor: XLA's minor-to-major order reversed.
/// assert_eq!(
///     l.jax().unwrap().to_string(),
///     "Layout(major_to_minor=(1, 0), tiling=((8, 128),), sub_byte_element_size_in_bits=4)"
/// );
/// ```
#[derive(Clone, Copy, Debug)]
pub struct JaxLayout<'a>(&'a Layout);

impl Layout {
    /// This layout as JAX writes it, or which attribute JAX's form cannot
    /// say.
    ///
    /// ```
    /// use xla_layout_core::Layout;
    /// let l: Layout = "{0:T(1024)(128)(2,1)}".parse().unwrap();
    /// assert_eq!(
    ///     l.jax().unwrap().to_string(),
    ///     "Layout(major_to_minor=(0,), tiling=((1024,), (128,), (2, 1)), sub_byte_element_size_in_bits=0)"
    /// );
    /// let vmem: Layout = "{1,0:T(8,128)S(1)}".parse().unwrap();
    /// assert_eq!(vmem.jax().unwrap_err().to_string(), "JAX's Layout has no field for XLA's S (memory_space)");
    /// ```
    pub fn jax(&self) -> Result<JaxLayout<'_>, JaxLayoutError> {
        if let Some(a) = super::ATTRIBUTES
            .iter()
            .find(|a| !a.in_jax && (a.is_set)(self))
        {
            return Err(JaxLayoutError::Unrepresentable(a.name));
        }
        // JAX's tiling is numbers only.
        match self.tiles().any(|t| t.contains(&crate::COMBINE)) {
            true => Err(JaxLayoutError::CombineTileEntry),
            false => Ok(JaxLayout(self)),
        }
    }
}

/// Python's tuple text: `(a, b)`, `(a,)`, `()`.
fn write_tuple(f: &mut Formatter<'_>, values: impl ExactSizeIterator<Item = i64>) -> fmt::Result {
    let one = values.len() == 1;
    f.write_char('(')?;
    for (i, v) in values.enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{v}")?;
    }
    if one {
        f.write_char(',')?;
    }
    f.write_char(')')
}

impl Display for JaxLayout<'_> {
    /// As `jax.experimental.layout.Layout`'s `repr` (JAX 0.10).
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let l = self.0;
        f.write_str("Layout(major_to_minor=")?;
        write_tuple(f, l.minor_to_major().iter().rev().copied())?;
        f.write_str(", tiling=(")?;
        for (i, tile) in l.tiles().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write_tuple(f, tile.iter().copied())?;
        }
        if l.tile_count() == 1 {
            f.write_char(',')?;
        }
        write!(
            f,
            "), sub_byte_element_size_in_bits={})",
            l.element_size_in_bits()
        )
    }
}

/// Reads `SHAPE Layout(...)`: an array shape written without a layout,
/// then its layout in JAX's form (or JAX's `Format(layout=…)`; with
/// `layout=None` or `AUTO`, the shape alone: [`jax_format_without_layout`]).
/// `None` when `text` has no JAX layout or format.
/// It parses only: the layout may still be one XLA refuses (`(0, 0)`);
/// [`super::parse_array_any`] validates, and reads the other forms too.
///
/// ```
/// use xla_layout_core::text::parse_array_with_jax_layout;
/// let s = parse_array_with_jax_layout("bf16[16,256] Layout(major_to_minor=(0, 1), tiling=((8, 128), (2, 1)))")
///     .unwrap()
///     .unwrap();
/// assert_eq!(s.to_string(), "bf16[16,256]{1,0:T(8,128)(2,1)}");
/// assert!(parse_array_with_jax_layout("f32[2]{0}").is_none());
/// // As `compiled.input_formats` prints it; the sharding is not read.
/// let f = "f32[3,5] Format(layout=Layout(major_to_minor=(0, 1), tiling=(), sub_byte_element_size_in_bits=0), sharding=SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device))";
/// assert_eq!(parse_array_with_jax_layout(f).unwrap().unwrap().to_string(), "f32[3,5]{1,0}");
/// ```
pub fn parse_array_with_jax_layout(text: &str) -> Option<Result<ArrayShape, JaxShapeError>> {
    if let Some(shape) = jax_format_without_layout(text) {
        return Some(shape.and_then(shape_alone));
    }
    let at = text.find("Layout(")?;
    // `DeviceLocalLayout(` starts a little earlier.
    let at = text[..at]
        .strip_suffix("DeviceLocal")
        .map_or(at, |before| before.len());
    let (shape, layout) = text.split_at(at);
    // JAX's `Format(layout=Layout(...), sharding=...)` (what
    // `compiled.input_formats` prints): the layout is the part that says
    // where elements are; the sharding is not read.
    if let Some(shape) = shape.trim_end().strip_suffix("Format(layout=") {
        let Some(end) = balanced_end(layout) else {
            return Some(Err(JaxShapeError::Layout(JaxLayoutError::Syntax(
                text.len(),
            ))));
        };
        let tail = layout[end..].trim_start();
        if !(tail == ")" || tail.starts_with(',') && tail.ends_with(')')) {
            return Some(Err(JaxShapeError::Layout(JaxLayoutError::Syntax(at + end))));
        }
        return Some(array_with_jax_layout(shape, (&layout[..end], at)));
    }
    Some(array_with_jax_layout(shape, (layout, at)))
}

/// The shape text of `SHAPE Format(layout=None, …)` (or `layout=AUTO`):
/// JAX's format with no layout chosen, which is the shape alone (XLA's
/// default layout; on a TPU, its default, `tpu::default_layout_for`).
/// `None` when `text` is not that form; an error when the `Format(` does
/// not close at the end of the text.
///
/// ```
/// use xla_layout_core::text::{jax_format_without_layout, parse_array_with_jax_layout};
/// assert_eq!(jax_format_without_layout("f32[3,5] Format(layout=None, sharding=None)"), Some(Ok("f32[3,5] ")));
/// assert!(jax_format_without_layout("f32[3,5] Format(layout=AUTO, sharding=None) x").unwrap().is_err());
/// assert_eq!(jax_format_without_layout("f32[3,5]{1,0}"), None);
/// let s = parse_array_with_jax_layout("f32[3,5] Format(layout=None, sharding=None)").unwrap().unwrap();
/// assert_eq!(s.to_string(), "f32[3,5]{1,0}");
/// ```
pub fn jax_format_without_layout(text: &str) -> Option<Result<&str, JaxShapeError>> {
    let at = ["Format(layout=None", "Format(layout=AUTO"]
        .iter()
        .find_map(|f| text.find(f))?;
    let (shape, format) = text.split_at(at);
    Some(match balanced_end(format) {
        Some(end) if format[end..].trim().is_empty() => Ok(shape),
        Some(end) => Err(JaxShapeError::Layout(JaxLayoutError::Syntax(at + end))),
        None => Err(JaxShapeError::Layout(JaxLayoutError::Syntax(text.len()))),
    })
}

/// The end of the first parenthesised group of `text` (just past its `)`).
fn balanced_end(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, b) in text.bytes().enumerate() {
        match b {
            b'(' => depth += 1,
            b')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// `shape` (the input's first bytes) read alone, as XLA reads a shape
/// with no layout written.
fn shape_alone(shape: &str) -> Result<ArrayShape, JaxShapeError> {
    if super::shape_spans(shape.as_bytes()).layout.is_some() {
        return Err(JaxShapeError::LayoutWritten);
    }
    if shape.trim().is_empty() {
        return Err(JaxShapeError::NoShape);
    }
    let leading = shape.len() - shape.trim_start().len();
    super::parse_array(shape.trim().as_bytes())
        .map_err(|e| JaxShapeError::Shape(e.shifted(leading)))
}

/// `shape` (the input's first bytes) with the JAX layout `layout`, which
/// starts at byte `at`; errors count bytes from the input's start.
fn array_with_jax_layout(
    shape: &str,
    (layout, at): (&str, usize),
) -> Result<ArrayShape, JaxShapeError> {
    if super::shape_spans(shape.as_bytes()).layout.is_some() {
        return Err(JaxShapeError::LayoutWritten);
    }
    if shape.trim().is_empty() {
        return Err(JaxShapeError::NoShape);
    }
    let leading = |t: &str| t.len() - t.trim_start().len();
    let array = super::parse_array(shape.trim().as_bytes())
        .map_err(|e| JaxShapeError::Shape(e.shifted(leading(shape))))?;
    let layout = parse_jax_layout(layout.trim())
        .map_err(|e| JaxShapeError::Layout(e.shifted(at + leading(layout))))?;
    Ok(array.with_layout(layout))
}

/// Why `SHAPE Layout(...)` is not an array shape.
///
/// ```
/// use xla_layout_core::text::{JaxShapeError, parse_array_with_jax_layout};
/// let e = |t| parse_array_with_jax_layout(t).unwrap().unwrap_err();
/// assert_eq!(e("f32[2]{0} Layout(major_to_minor=(0,))"), JaxShapeError::LayoutWritten);
/// assert_eq!(e("Layout(major_to_minor=(0,))"), JaxShapeError::NoShape);
/// assert!(matches!(e("f32[2] Layout(tiling=())"), JaxShapeError::Layout(_)));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum JaxShapeError {
    /// The shape part does not parse.
    Shape(super::ParseError),
    /// The shape part has an XLA layout too.
    LayoutWritten,
    /// Nothing before the JAX layout: it says neither the element type nor
    /// the dimensions.
    NoShape,
    /// The JAX layout does not read.
    Layout(JaxLayoutError),
}

impl Display for JaxShapeError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            JaxShapeError::Shape(e) => write!(f, "{e}"),
            JaxShapeError::Layout(e) => write!(f, "{e}"),
            JaxShapeError::LayoutWritten | JaxShapeError::NoShape => self.message().fmt(f),
        }
    }
}

impl JaxShapeError {
    /// The failure in words a person can act on, for `src` (the text it
    /// came from): a parse error of the shape as
    /// [`super::ParseError::explain`] says it, the others as `Display` does.
    ///
    /// ```
    /// use xla_layout_core::text::parse_array_with_jax_layout;
    /// let text = "bf17[2] Layout(major_to_minor=(0,))";
    /// let e = parse_array_with_jax_layout(text).unwrap().unwrap_err();
    /// assert_eq!(e.explain(text).to_string(), "unknown element type `bf17`; did you mean `bf16`? (at byte 0)");
    /// ```
    pub fn explain<'a>(&'a self, src: &'a (impl AsRef<[u8]> + ?Sized)) -> impl Display + 'a {
        fmt::from_fn(move |f| match self {
            JaxShapeError::Shape(e) => write!(f, "{}", e.explain(src)),
            other => write!(f, "{other}"),
        })
    }

    /// The message without a byte offset (see [`JaxLayoutError::message`]).
    ///
    /// ```
    /// use xla_layout_core::text::parse_array_with_jax_layout;
    /// let e = parse_array_with_jax_layout("f32[2,] Layout(major_to_minor=(0,))").unwrap().unwrap_err();
    /// assert_eq!(e.message().to_string(), "expects integer");
    /// ```
    pub fn message(&self) -> impl Display + '_ {
        fmt::from_fn(move |f| match self {
            JaxShapeError::Shape(e) => write!(f, "{}", e.kind()),
            JaxShapeError::LayoutWritten => {
                f.write_str("the shape has an XLA layout and a JAX layout; give one")
            }
            JaxShapeError::NoShape => f.write_str(concat!(
                "write the shape before JAX's layout, as in ",
                "`f32[3,5] Layout(major_to_minor=(0, 1))`: ",
                "JAX's layout says neither the element type nor the dimensions",
            )),
            JaxShapeError::Layout(e) => write!(f, "{}", e.message()),
        })
    }
}

impl JaxShapeError {
    /// `Display`'s text, with what a parse error of the shape quotes from
    /// `src` (the whole input: XLA prints the layout a `P(...)` is refused
    /// in).
    ///
    /// ```
    /// use xla_layout_core::text::parse_array_with_jax_layout;
    /// let text = "(f32[4]{0:P(f32[4])}) Layout(major_to_minor=(0,))";
    /// let e = parse_array_with_jax_layout(text).unwrap().unwrap_err();
    /// assert_eq!(
    ///     e.with_source(text).to_string(),
    ///     "Layout has physical shape, but is not for a sparse array: {0:P(f32[4]{0})} (at byte 20)"
    /// );
    /// ```
    pub fn with_source<'a>(&'a self, src: &'a str) -> impl Display + 'a {
        fmt::from_fn(move |f| match self {
            JaxShapeError::Shape(e) => write!(f, "{}", e.with_source(src)),
            _ => write!(f, "{self}"),
        })
    }

    /// [`JaxShapeError::message`], with what a parse error of the shape
    /// quotes from `src` (see [`JaxShapeError::with_source`]).
    ///
    /// ```
    /// use xla_layout_core::text::parse_array_with_jax_layout;
    /// let text = "(f32[4]{0:P(f32[4])}) Layout(major_to_minor=(0,))";
    /// let e = parse_array_with_jax_layout(text).unwrap().unwrap_err();
    /// assert!(e.message_in(text).to_string().ends_with("array: {0:P(f32[4]{0})}"));
    /// ```
    pub fn message_in<'a>(&'a self, src: &'a str) -> impl Display + 'a {
        fmt::from_fn(move |f| match self {
            JaxShapeError::Shape(e) => write!(f, "{}", e.primary().message(src)),
            _ => write!(f, "{}", self.message()),
        })
    }
}

impl core::error::Error for JaxShapeError {}
