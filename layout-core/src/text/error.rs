//! Parse errors: what went wrong, where, and XLA's own words for it.

use core::fmt::{self, Display, Formatter, Write};

use super::TokenKind;
#[cfg(feature = "alloc")]
use super::span::ByteSpan;
use crate::{CapacityError, ElementType};

/// What a parse diagnostic says.
///
/// Most variants are messages XLA's parser records, word for word. The
/// rest cover inputs on which XLA fails without a message, or aborts the
/// process; for those this crate says what is wrong in its own words, and
/// [`ParseErrorKind::is_xla_abort`] / [`ParseErrorKind::is_silent_in_xla`]
/// tell them apart.
///
/// ```
/// use xla_layout_core::text::{ParseErrorKind, parse_shape};
/// assert_eq!(parse_shape(b"f32[2,]").unwrap_err().kind(), &ParseErrorKind::ExpectedInteger);
/// assert_eq!(parse_shape(b"f32[2]{0:S(1)T(2)}").unwrap_err().kind(), &ParseErrorKind::LayoutNotClosed);
/// assert_eq!(parse_shape(b"f32[2]{0:E}x").unwrap_err().kind().to_string(), "Extra content after shape");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// A fixed XLA message, e.g. `expects layout to start with kLbrace`.
    Syntax(&'static str),
    /// `expects integer`: a number was due (also what a `*` tile entry
    /// leaves behind, since XLA tries an integer first).
    ExpectedInteger,
    /// `expects layout to end with kRbrace`: the layout goes on after its
    /// last attribute, e.g. with an attribute out of order or repeated.
    LayoutNotClosed,
    /// `expects a list starting with kX`.
    ExpectedListStart(TokenKind),
    /// `expects a list to end with kX`.
    ExpectedListEnd(TokenKind),
    /// `expects <attribute> to start with kLparen`.
    ExpectedAttributeStart(&'static str),
    /// `expects <attribute> to end with kRparen`.
    ExpectedAttributeEnd(&'static str),
    /// `expected primitive type, saw kX`.
    ExpectedPrimitiveType(TokenKind),
    /// `Dimensions size is R, but minor to major size is M.`
    MinorToMajorCount {
        /// The number of dimensions.
        rank: usize,
        /// The number of minor-to-major entries.
        minor_to_major: usize,
    },
    /// `Layout has physical shape, but is not for a sparse array: <layout>`.
    ///
    /// The error keeps where the layout is in the input, not its text, so
    /// that a `ParseError` stays small enough for a firmware stack (it is
    /// rare: XLA refuses every `P`). Messages that have the input
    /// ([`ParseError::xla_message`], [`ParseError::explain`],
    /// [`Diagnostic::message`]) print the layout as XLA does; this kind's
    /// own `Display` can only name the bytes.
    ///
    /// ```
    /// use xla_layout_core::text::{parse_shape, ParseErrorKind};
    /// let text = "f32[4]{0:P(f32[4])}";
    /// let e = parse_shape(text.as_bytes()).unwrap_err();
    /// let ParseErrorKind::PhysicalShapeOnDenseArray { layout_start, layout_end } = *e.kind() else {
    ///     panic!()
    /// };
    /// assert_eq!(&text[layout_start..layout_end], "{0:P(f32[4])}");
    /// assert_eq!(
    ///     e.primary().message(text).to_string(),
    ///     "Layout has physical shape, but is not for a sparse array: {0:P(f32[4]{0})}"
    /// );
    /// ```
    PhysicalShapeOnDenseArray {
        /// Where the layout's `{` is in the input.
        layout_start: usize,
        /// One past its `}`.
        layout_end: usize,
    },
    /// `Extra content after shape` (or `after layout`): text after a
    /// complete shape.
    ExtraContent(&'static str),
    /// A dimension size XLA does not allow (negative). XLA fails with an
    /// empty message.
    InvalidDimensionSize {
        /// Which dimension.
        index: usize,
        /// Its size as written (after XLA's u64 → i64 reinterpretation).
        size: i64,
    },
    /// `b(...)` around something other than an array. XLA fails with an
    /// empty message.
    BufferOfNonArray,
    /// A tuple element that fails validation; XLA validates tuples while
    /// parsing them and fails with an empty message.
    #[cfg(feature = "alloc")]
    InvalidTupleElement(alloc::boxed::Box<crate::ValidationError>),
    /// A negative tile entry other than `*`: XLA aborts the process
    /// (`LayoutUtil::MakeLayout`).
    NegativeTileDimension(i64),
    /// `L(n)` with n < 1: XLA aborts the process (a CHECK).
    TailPaddingBelowOne(i64),
    /// Dimensions or a layout on `token[]` / `opaque[]`: XLA aborts the
    /// process (a CHECK).
    TokenOrOpaqueWithDimensionsOrLayout(ElementType),
    /// A fixed capacity of this crate was exceeded.
    Capacity(CapacityError),
    /// `P(...)` nested deeper than [`MAX_PHYSICAL_DEPTH`](crate::MAX_PHYSICAL_DEPTH) (a limit of this crate; XLA
    /// rejects every `P` anyway).
    PhysicalShapeTooDeep,
    /// A tuple, without the `alloc` feature.
    TupleNeedsAlloc,
    /// An array was asked for but the text is another kind of shape.
    NotAnArray(&'static str),
    /// `S(n)` with n outside XLA's 8 bits, which XLA wraps silently;
    /// reported only by strict parsing ([`super::ParseOptions::strict`]),
    /// and XLA has no message for it.
    ///
    /// ```
    /// use xla_layout_core::text::{parse_shape_with, ParseOptions};
    /// let text = "f32[2]{0:S(300)}";
    /// let strict = ParseOptions::default().with_strict(true);
    /// let e = parse_shape_with(text.as_bytes(), strict).unwrap_err();
    /// assert_eq!(
    ///     e.xla_message(text).to_string(),
    ///     "XLA accepts this text; strict parsing refuses it: memory space S(300) does not fit the 8 bits XLA keeps it in (XLA would read it as S(44))"
    /// );
    /// ```
    MemorySpaceOutOfRange(i64),
}

impl ParseErrorKind {
    /// Whether XLA aborts the process on this input instead of returning
    /// an error.
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let e = ArrayShape::parse("f32[2]{0:T(-1)}").unwrap_err();
    /// assert!(e.kind().is_xla_abort());
    /// ```
    pub const fn is_xla_abort(&self) -> bool {
        matches!(
            self,
            Self::NegativeTileDimension(_)
                | Self::TailPaddingBelowOne(_)
                | Self::TokenOrOpaqueWithDimensionsOrLayout(_)
        )
    }

    /// Whether XLA fails on this input with an empty message.
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let e = ArrayShape::parse("f32[-1]").unwrap_err();
    /// assert!(e.kind().is_silent_in_xla());
    /// ```
    pub const fn is_silent_in_xla(&self) -> bool {
        match self {
            Self::InvalidDimensionSize { .. } | Self::BufferOfNonArray => true,
            #[cfg(feature = "alloc")]
            Self::InvalidTupleElement(_) => true,
            _ => false,
        }
    }

    /// Whether this comes from a limit or feature of this crate rather
    /// than from XLA.
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let text = format!("f32[{}]", ["1"; 40].join(","));
    /// assert!(ArrayShape::parse(&text).unwrap_err().kind().is_crate_limit());
    /// ```
    pub const fn is_crate_limit(&self) -> bool {
        matches!(
            self,
            Self::Capacity(_)
                | Self::PhysicalShapeTooDeep
                | Self::TupleNeedsAlloc
                | Self::NotAnArray(_)
        )
    }
}

impl Display for ParseErrorKind {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Self::Syntax(m) => f.write_str(m),
            Self::ExpectedInteger => f.write_str("expects integer"),
            Self::LayoutNotClosed => f.write_str("expects layout to end with kRbrace"),
            Self::ExpectedListStart(k) => {
                write!(f, "expects a list starting with {}", k.xla_name())
            }
            Self::ExpectedListEnd(k) => write!(f, "expects a list to end with {}", k.xla_name()),
            Self::ExpectedAttributeStart(a) => write!(f, "expects {a} to start with kLparen"),
            Self::ExpectedAttributeEnd(a) => write!(f, "expects {a} to end with kRparen"),
            Self::ExpectedPrimitiveType(k) => {
                write!(f, "expected primitive type, saw {}", k.xla_name())
            }
            Self::MinorToMajorCount {
                rank,
                minor_to_major,
            } => {
                write!(
                    f,
                    "Dimensions size is {rank}, but minor to major size is {minor_to_major}."
                )
            }
            Self::PhysicalShapeOnDenseArray {
                layout_start,
                layout_end,
            } => {
                write!(
                    f,
                    "Layout has physical shape, but is not for a sparse array: the layout at bytes {layout_start}..{layout_end}"
                )
            }
            Self::ExtraContent(what) => write!(f, "Extra content after {what}"),
            Self::InvalidDimensionSize { index, size } => write!(
                f,
                "dimension {index} has size {size}; sizes must be >= 0 (XLA rejects this with an empty message)"
            ),
            Self::BufferOfNonArray => f.write_str(
                "b(...) must wrap an array shape (XLA rejects this with an empty message)",
            ),
            #[cfg(feature = "alloc")]
            Self::InvalidTupleElement(e) => {
                write!(
                    f,
                    "invalid tuple element (XLA validates tuples while parsing): {e}"
                )
            }
            Self::NegativeTileDimension(d) => write!(
                f,
                "tile dimension {d} is negative; only `*` may stand for a negative entry (XLA aborts on this)"
            ),
            Self::TailPaddingBelowOne(n) => write!(
                f,
                "tail padding alignment L({n}) must be at least 1 (XLA aborts on this)"
            ),
            Self::TokenOrOpaqueWithDimensionsOrLayout(t) => write!(
                f,
                "{} shapes take no dimensions and no layout (XLA aborts on this)",
                t.name()
            ),
            Self::Capacity(c) => write!(f, "{c}"),
            Self::PhysicalShapeTooDeep => {
                write!(
                    f,
                    "P(...) physical shapes nested more than {} deep (an xla-layout limit)",
                    crate::limits::MAX_PHYSICAL_DEPTH
                )
            }
            Self::TupleNeedsAlloc => {
                f.write_str("tuple shapes need xla-layout-core's `alloc` feature")
            }
            Self::NotAnArray(kind) => write!(f, "expected an array shape, found {kind}"),
            Self::MemorySpaceOutOfRange(n) => write!(
                f,
                "memory space S({n}) does not fit the 8 bits XLA keeps it in (XLA would read it as S({}))",
                *n as i8
            ),
        }
    }
}

/// One diagnostic: a message and the byte range it points at.
///
/// ```
/// use xla_layout_core::text::{Diagnostic, ParseErrorKind, parse_shape};
/// let e = parse_shape(b"f32[2]{0:S(x)}").unwrap_err();
/// let first = e.diagnostics().next().unwrap();
/// assert_eq!(first, &Diagnostic { start: 11, end: 12, kind: ParseErrorKind::ExpectedInteger }); // the `x`
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Byte offset where the offending token starts.
    pub start: usize,
    /// Byte offset one past its end (equal to `start` at end of input).
    pub end: usize,
    /// The message.
    pub kind: ParseErrorKind,
}

impl Diagnostic {
    /// The same diagnostic `by` bytes further into a larger input.
    fn shifted(&mut self, by: usize) {
        self.start = self.start.saturating_add(by);
        self.end = self.end.saturating_add(by);
        if let ParseErrorKind::PhysicalShapeOnDenseArray {
            layout_start,
            layout_end,
        } = &mut self.kind
        {
            *layout_start = layout_start.saturating_add(by);
            *layout_end = layout_end.saturating_add(by);
        }
    }
}

const MAX_DIAGNOSTICS: usize = 4;

/// A failed parse.
///
/// XLA's parser records every sub-error it meets, including some it then
/// recovers from; this keeps them in order (up to 4, the last always
/// kept). [`ParseError::kind`] and [`ParseError::span`] describe the error
/// that made the parse fail; [`ParseError::diagnostics`] lists all of
/// them; [`ParseError::xla_message`] renders XLA's complete status text.
///
/// ```
/// use xla_layout_core::ArrayShape;
///
/// let text = "f32[2,3]{1,0:S(1)T(8,128)}";
/// let err = ArrayShape::parse(text).unwrap_err();
/// assert_eq!(err.kind().to_string(), "expects layout to end with kRbrace");
/// assert_eq!(&text[err.span()], "T");
/// assert_eq!(
///     err.xla_message(text).to_string(),
///     "Syntax error:\nwas parsing 1:17: error: expects layout to end with kRbrace\n\
///      f32[2,3]{1,0:S(1)T(8,128)}\n                ^"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    diagnostics: [Option<Diagnostic>; MAX_DIAGNOSTICS],
    len: usize,
}

impl ParseError {
    pub(crate) const fn new() -> ParseError {
        ParseError {
            diagnostics: [const { None }; MAX_DIAGNOSTICS],
            len: 0,
        }
    }

    pub(crate) fn push(&mut self, d: Diagnostic) {
        // Keep the earliest ones and always the latest.
        let slot = self.len.min(MAX_DIAGNOSTICS - 1);
        self.diagnostics[slot] = Some(d);
        self.len = (self.len + 1).min(MAX_DIAGNOSTICS);
    }

    /// The same error for text that starts `by` bytes into a larger
    /// input (a shape inside `tpu(...)` or before a JAX layout): every
    /// span moved by `by`, so that offsets count from the input's start.
    pub(crate) fn shifted(mut self, by: usize) -> ParseError {
        for d in self.diagnostics.iter_mut().flatten() {
            d.shifted(by);
        }
        self
    }

    pub(crate) fn single(d: Diagnostic) -> ParseError {
        let mut e = ParseError::new();
        e.push(d);
        e
    }

    /// Removes the diagnostic recorded last.
    pub(crate) fn pop(&mut self) {
        if self.len > 0 {
            self.len -= 1;
            self.diagnostics[self.len] = None;
        }
    }

    /// Whether no diagnostic is held.
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// All diagnostics, in the order they were recorded.
    ///
    /// ```
    /// use xla_layout_core::text::parse_shape;
    /// // The `*` records `expects integer` first; it shows because the parse then fails.
    /// let e = parse_shape(b"f32[2,3]{1,0:T(*,128)").unwrap_err();
    /// let said: Vec<String> = e.diagnostics().map(|d| d.kind.to_string()).collect();
    /// assert_eq!(said, ["expects integer", "expects layout to end with kRbrace"]);
    /// ```
    pub fn diagnostics(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics[..self.len].iter().flatten()
    }

    /// The diagnostic that made the parse fail (the last one).
    ///
    /// ```
    /// use xla_layout_core::text::{ParseErrorKind, parse_shape};
    /// let e = parse_shape(b"f32[2,3]{1,0:T(*,128)").unwrap_err();
    /// let p = e.primary();
    /// assert_eq!(p.kind, ParseErrorKind::LayoutNotClosed);
    /// assert_eq!((p.start, p.end), (21, 21)); // the end of the input
    /// ```
    pub fn primary(&self) -> &Diagnostic {
        self.diagnostics[..self.len]
            .iter()
            .rev()
            .flatten()
            .next()
            .expect("a ParseError always holds a diagnostic")
    }

    /// The failure in words a person can act on, for `src` (the text it
    /// came from, as `&str` or bytes): [`Diagnostic::explain`] of the cause
    /// (the first diagnostic at the token where the parse failed: a later
    /// one there is its consequence, so this can explain another
    /// diagnostic than [`ParseError::kind`]'s), then its byte offset.
    ///
    /// ```
    /// use xla_layout_core::text::parse_shape;
    /// let e = parse_shape(b"f32[2]{0:t(2)}").unwrap_err();
    /// assert_eq!(
    ///     e.explain("f32[2]{0:t(2)}").to_string(),
    ///     "unexpected `t` in the layout: after `:` come the attributes D, T, L, #, *, E, S, SC, P, M, \
    ///      each at most once and in that order, then `}` (XLA: expects layout to end with kRbrace) (at byte 9)"
    /// );
    /// let e = parse_shape(b"f32[2]{0:T(2)").unwrap_err();
    /// assert!(e.explain("f32[2]{0:T(2)").to_string().starts_with("the shape ends inside the layout: "));
    /// ```
    pub fn explain<'a>(&'a self, src: &'a (impl AsRef<[u8]> + ?Sized)) -> impl Display + 'a {
        fmt::from_fn(move |f| {
            let src = src.as_ref();
            let p = self.cause(src);
            write!(f, "{} (at byte {})", p.explain(src), p.start)
        })
    }

    /// The diagnostic [`ParseError::explain`] explains, for `src` (the
    /// text the error came from): the first at the token where the parse
    /// failed, since a later message there is a consequence of it (`S(x)`:
    /// "expects integer", then the layout cannot go on). Tools that show
    /// the place otherwise (a span) word it with [`Diagnostic::explain`].
    ///
    /// ```
    /// use xla_layout_core::text::parse_shape;
    /// let text = "f32[2]{0:S(x)}";
    /// let e = parse_shape(text.as_bytes()).unwrap_err();
    /// let cause = e.cause(text);
    /// assert_eq!(&text[cause.start..cause.end], "x");
    /// assert_eq!(cause.explain(text.as_bytes()).to_string(), "expected an integer, found `x` (XLA: expects integer)");
    /// ```
    pub fn cause(&self, src: &(impl AsRef<[u8]> + ?Sized)) -> &Diagnostic {
        let src = src.as_ref();
        let last = self.primary();
        self.diagnostics()
            .find(|d| d.start == last.start && !d.is_noise(src))
            .unwrap_or(last)
    }

    /// `Display`'s text, with what the message quotes from `src` (the text
    /// it came from): the failing message and its byte offset.
    ///
    /// ```
    /// use xla_layout_core::text::parse_shape;
    /// let text = "f32[4]{0:P(f32[4])}";
    /// let e = parse_shape(text.as_bytes()).unwrap_err();
    /// assert_eq!(
    ///     e.with_source(text).to_string(),
    ///     "Layout has physical shape, but is not for a sparse array: {0:P(f32[4]{0})} (at byte 19)"
    /// );
    /// assert_eq!(
    ///     e.to_string(),
    ///     "Layout has physical shape, but is not for a sparse array: the layout at bytes 6..19 (at byte 19)"
    /// );
    /// ```
    pub fn with_source<'a>(&'a self, src: &'a (impl AsRef<[u8]> + ?Sized)) -> impl Display + 'a {
        fmt::from_fn(move |f| {
            let p = self.primary();
            write!(f, "{} (at byte {})", p.message(src), p.start)
        })
    }

    /// What made the parse fail: the [`ParseError::primary`] diagnostic's
    /// kind.
    ///
    /// ```
    /// use xla_layout_core::text::{ParseErrorKind, parse_shape};
    /// let e = parse_shape(b"f32[2,3]{1,0:T(*,128)").unwrap_err();
    /// assert_eq!(e.kind(), &ParseErrorKind::LayoutNotClosed);
    /// ```
    pub fn kind(&self) -> &ParseErrorKind {
        &self.primary().kind
    }

    /// The byte range of the offending token (of the
    /// [`ParseError::primary`] diagnostic).
    ///
    /// ```
    /// use xla_layout_core::text::parse_shape;
    /// let text = "f32[2,]";
    /// let e = parse_shape(text.as_bytes()).unwrap_err();
    /// assert_eq!((e.span(), &text[e.span()]), (6..7, "]"));
    /// ```
    pub fn span(&self) -> core::ops::Range<usize> {
        let p = self.primary();
        p.start..p.end
    }

    /// The failure as a compiler reports one: `path:line:column:
    /// message`, the line (cut around the place when long) and carets
    /// under the offending token ([`ByteSpan::render`], as for HLO
    /// errors).
    ///
    /// ```
    /// use xla_layout_core::text::parse_shape;
    /// let text = "f32[2,3]{1,0:S(1)T(8,128)}";
    /// let e = parse_shape(text.as_bytes()).unwrap_err();
    /// assert_eq!(
    ///     e.render(text, "shape"),
    ///     "shape:1:18: expects layout to end with kRbrace\nf32[2,3]{1,0:S(1)T(8,128)}\n                 ^"
    /// );
    /// ```
    #[cfg(feature = "alloc")]
    pub fn render(&self, src: &str, path: &str) -> alloc::string::String {
        let p = self.primary();
        ByteSpan {
            start: p.start,
            end: p.end,
        }
        .render(src, path, p.message(src))
    }

    /// XLA's complete status message for this failure, as
    /// `xla::ParseShape(input)` would return it: `Syntax error:` followed
    /// by each recorded error with its line, column, source line and caret
    /// (XLA's column is 0-based on the first line and 1-based after).
    /// Where XLA aborts instead, the text says so, and so it does where
    /// the text passes a limit of this crate's, which XLA's parser does
    /// not have.
    ///
    /// ```
    /// use xla_layout_core::text::parse_shape;
    /// let text = format!("f32[{}]", ["1"; 17].join(","));
    /// let e = parse_shape(text.as_bytes()).unwrap_err();
    /// assert_eq!(
    ///     e.xla_message(&text).to_string(),
    ///     "XLA's parser has no such limit; xla-layout refuses this text: \
    ///      more than 16 dimensions (an xla-layout limit, not an XLA rule)"
    /// );
    /// ```
    pub fn xla_message<'a>(&'a self, input: &'a str) -> XlaMessage<'a> {
        XlaMessage {
            error: self,
            input: input.as_bytes(),
        }
    }
}

/// See [`ParseError::xla_message`].
///
/// ```
/// use xla_layout_core::text::parse_shape;
/// let text = "f32[2,]";
/// let e = parse_shape(text.as_bytes()).unwrap_err();
/// assert_eq!(
///     e.xla_message(text).to_string(),
///     "Syntax error:\nwas parsing 1:6: error: expects integer\nf32[2,]\n     ^"
/// );
/// ```
#[derive(Clone, Copy, Debug)]
pub struct XlaMessage<'a> {
    error: &'a ParseError,
    input: &'a [u8],
}

impl Display for XlaMessage<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let primary = self.error.kind();
        if let ParseErrorKind::MemorySpaceOutOfRange(_) = primary {
            // Only strict parsing says this; XLA wraps the value.
            return write!(
                f,
                "XLA accepts this text; strict parsing refuses it: {primary}"
            );
        }
        if primary.is_xla_abort() {
            return write!(f, "XLA aborts the process: {primary}");
        }
        if primary.is_crate_limit() {
            // XLA would say something else (or accept the text): not its words.
            return write!(
                f,
                "XLA's parser has no such limit; xla-layout refuses this text: {primary}"
            );
        }
        f.write_str("Syntax error:\n")?;
        if let ParseErrorKind::ExtraContent(_) = primary {
            return write!(f, "{primary}");
        }
        let mut first = true;
        for d in self.error.diagnostics() {
            if d.kind.is_silent_in_xla() || d.kind.is_crate_limit() {
                continue;
            }
            if !first {
                f.write_char('\n')?;
            }
            first = false;
            write_located(f, self.input, d.start, &d.message(self.input))?;
        }
        Ok(())
    }
}

/// `HloParserImpl::Error`'s three lines.
fn write_located(
    f: &mut Formatter<'_>,
    input: &[u8],
    loc: usize,
    msg: &dyn Display,
) -> fmt::Result {
    let loc = loc.min(input.len());
    let before = &input[..loc];
    let line = 1 + before.iter().filter(|&&c| c == b'\n').count();
    let col = loc - before.iter().rposition(|&c| c == b'\n').unwrap_or(0);
    writeln!(f, "was parsing {line}:{col}: error: {msg}")?;
    if loc < input.len() {
        let start = before
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |p| p + 1);
        let end = input[loc..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(input.len(), |p| loc + p);
        f.write_str(alloc_free_lossy(&input[start..end]))?;
    } else {
        f.write_str("LINE OUT OF RANGE")?;
    }
    f.write_char('\n')?;
    if col > 0 {
        for _ in 1..col {
            f.write_char(' ')?;
        }
        f.write_char('^')?;
    }
    Ok(())
}

/// The line as text; invalid UTF-8 is cut at the first bad byte.
fn alloc_free_lossy(bytes: &[u8]) -> &str {
    match core::str::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => core::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default(),
    }
}

impl Display for ParseError {
    /// The failing message and its byte offset, e.g.
    /// `expects integer (at byte 9)`.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let p = self.primary();
        write!(f, "{} (at byte {})", p.kind, p.start)
    }
}

impl core::error::Error for ParseError {}
