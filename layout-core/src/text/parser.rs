//! Tokens → model: XLA's shape and layout grammar (docs/xla-layouts.md §a.2, §a.3).
//!
//! The control flow follows `HloParserImpl::ParseShape` / `ParseLayout`
//! closely, because XLA's acceptance depends on it: sub-parsers inside a
//! layout record errors but the layout still succeeds when the tokens line
//! up with `}` again (`{0:#(s32)}` parses), tiles that were started are kept
//! (`{0:T(8}` is `{0:T(8)}`), and a `*` tile entry first records an
//! `expects integer` that only shows if the parse later fails.
//!
//! Tuples and buffers nest through an explicit stack rather than recursion,
//! so the 8192-level nesting limit cannot overflow the Rust stack.

#[cfg(feature = "alloc")]
use alloc::vec::Vec;
use core::fmt::Write;

use super::attributes::{self, ATTRIBUTES, Draft};
use super::error::{Diagnostic, ParseError, ParseErrorKind as E};
use super::lexer::{Lexer, Token, TokenKind as K};
use super::span::ByteSpan;
use super::spans::ShapeSpans;
use crate::limits::{DEFAULT_MAX_DEPTH, UNBOUNDED};
use crate::model::ScalarAttributes;
use crate::{ArrayShape, CapacityError, ElementType, Layout, PhysicalShapeText, Shape};

/// Options for parsing shape text, built from the default (XLA's
/// behaviour) with `with_*` methods.
///
/// ```
/// use xla_layout_core::text::{parse_shape_with, ParseOptions};
///
/// let opts = ParseOptions::default().with_max_depth(2);
/// assert!(parse_shape_with(b"b(f32[])", opts).is_ok());
/// assert!(parse_shape_with(b"b(b(f32[]))", opts).is_err());
///
/// // XLA's parser drops a malformed attribute and reads on; strict does not.
/// let strict = ParseOptions::default().with_strict(true);
/// assert!(parse_shape_with(b"f32[2]{0:E}", ParseOptions::default()).is_ok());
/// assert!(parse_shape_with(b"f32[2]{0:E}", strict).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParseOptions {
    /// How deep shapes may nest (tuples, `b(...)`, `P(...)`), counting the
    /// outermost shape as 1. XLA's default is 8192 ([`crate::DEFAULT_MAX_DEPTH`]).
    pub max_depth: usize,
    /// Refuse what XLA's parser reads past after recording an error it
    /// does not return: an attribute it drops because it is malformed
    /// (`E` without `(n)`), one it reads despite the error (`E(4` without
    /// `)`, `#(s32)` of a type that is not unsigned), and a memory space
    /// outside the 8 bits XLA keeps it in (`S(300)`, which XLA reads as
    /// `S(44)`). Off by default, which is XLA's behaviour; the `layout!`
    /// macro parses strictly, since a type must mean what was written.
    ///
    /// A strict failure on text XLA accepts shows, as its XLA message, the
    /// error XLA recorded and read past (for a wrapped memory space, that
    /// XLA accepts the text). Strict errors leave out the artefacts XLA's
    /// messages have (the "expects integer" of each `*` tile entry). With
    /// [`parse_shape_events`], the elements before the failure have been
    /// handed out already.
    pub strict: bool,
}

impl ParseOptions {
    /// These options with [`ParseOptions::max_depth`] set.
    ///
    /// ```
    /// use xla_layout_core::text::{parse_shape_with, ParseOptions};
    /// let flat = ParseOptions::default().with_max_depth(1);
    /// assert_eq!(flat.max_depth, 1);
    /// assert!(parse_shape_with(b"f32[]", flat).is_ok());
    /// assert!(parse_shape_with(b"(f32[])", flat).is_err()); // the element is at depth 2
    /// ```
    pub const fn with_max_depth(mut self, max_depth: usize) -> ParseOptions {
        self.max_depth = max_depth;
        self
    }

    /// These options with [`ParseOptions::strict`] set.
    ///
    /// ```
    /// use xla_layout_core::text::{parse_shape_with, ParseOptions};
    /// let text = b"f32[2]{0:S(300)}";
    /// // XLA keeps the memory space in 8 bits: 300 becomes 44.
    /// assert_eq!(parse_shape_with(text, ParseOptions::default()).unwrap().to_string(), "f32[2]{0:S(44)}");
    /// assert!(parse_shape_with(text, ParseOptions::default().with_strict(true)).is_err());
    /// ```
    pub const fn with_strict(mut self, strict: bool) -> ParseOptions {
        self.strict = strict;
        self
    }
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            max_depth: DEFAULT_MAX_DEPTH,
            strict: false,
        }
    }
}

/// The parse must stop now: XLA would abort, or a crate limit was hit.
/// Ordinary failures are `false`/`None`, as in XLA, so that the callers that
/// ignore them (inside layouts) can.
pub(crate) struct Stop;

pub(crate) type Step<T> = Result<T, Stop>;

pub(crate) struct Parser<'a> {
    src: &'a [u8],
    lexer: Lexer<'a>,
    tok: Token,
    /// Created on the first error: most parses have none, and a
    /// `ParseError` is large.
    pub(crate) errors: Option<ParseError>,
    depth: usize,
    max_depth: usize,
    /// [`ParseOptions::strict`].
    pub(crate) strict: bool,
    physical_depth: usize,
    /// Where the last consumed token ended.
    prev_end: usize,
    /// Kept only when asked for ([`Parser::with_spans`]).
    pub(crate) spans: Option<ShapeSpans>,
}

enum Frame {
    Buffer,
    /// An open tuple: its elements (only the one being parsed when
    /// streaming), how many came before them, and the first element
    /// found invalid (XLA reports it when the tuple closes).
    #[cfg(feature = "alloc")]
    Tuple {
        elems: Vec<Shape>,
        done: usize,
        invalid: Option<alloc::boxed::Box<crate::ValidationError>>,
    },
}

/// Where a streamed parse sends its events; `None` builds the tree.
#[cfg(feature = "alloc")]
type Sink<'s> = Option<&'s mut dyn FnMut(ParseEvent<'_>)>;
#[cfg(not(feature = "alloc"))]
type Sink<'s> = Option<&'s mut ()>;

/// One step of a streamed parse ([`parse_shape_events`]): tuples are not
/// built; each non-tuple element is handed over once, complete, and
/// forgotten.
///
/// ```
/// use xla_layout_core::text::{parse_shape_events, ParseEvent};
/// let mut seen = Vec::new();
/// parse_shape_events(b"(f32[2], (s8[]))", Default::default(), |e| {
///     seen.push(match e {
///         ParseEvent::TupleStart { index } => format!("{index}:("),
///         ParseEvent::Leaf { index, shape } => format!("{index}:{shape}"),
///         ParseEvent::TupleEnd => ")".to_string(),
///     })
/// })
/// .unwrap();
/// assert_eq!(seen, ["0:(", "0:f32[2]{0}", "1:(", "0:s8[]", ")", ")"]);
/// ```
#[cfg(feature = "alloc")]
#[derive(Clone, Copy, Debug)]
pub enum ParseEvent<'s> {
    /// A tuple starts (at position `index` of the enclosing tuple; 0 at
    /// the top).
    TupleStart {
        /// Position in the enclosing tuple.
        index: usize,
    },
    /// A shape that is not a tuple.
    Leaf {
        /// Position in the enclosing tuple (0 at the top).
        index: usize,
        /// The shape.
        shape: &'s Shape,
    },
    /// The innermost open tuple ends.
    TupleEnd,
}

/// The stack of open tuples and buffers. Without `alloc` only buffers can
/// be open, so a count is enough.
#[cfg(feature = "alloc")]
type Frames = Vec<Frame>;

#[cfg(not(feature = "alloc"))]
struct Frames {
    buffers: usize,
    top: Frame,
}

#[cfg(not(feature = "alloc"))]
impl Frames {
    fn new() -> Self {
        Frames {
            buffers: 0,
            top: Frame::Buffer,
        }
    }
    fn push(&mut self, _: Frame) {
        self.buffers += 1;
    }
    fn pop(&mut self) -> Option<Frame> {
        self.buffers = self.buffers.checked_sub(1)?;
        Some(Frame::Buffer)
    }
    fn last_mut(&mut self) -> Option<&mut Frame> {
        (self.buffers > 0).then_some(&mut self.top)
    }
}

/// The position in the innermost open tuple of the element about to be
/// parsed (0 outside tuples).
#[cfg(feature = "alloc")]
fn tuple_index(frames: &Frames) -> usize {
    for frame in frames.iter().rev() {
        if let Frame::Tuple { elems, done, .. } = frame {
            return done + elems.len() - 1;
        }
    }
    0
}

/// Where the value being parsed goes: the newest element of the innermost
/// open tuple, or `out`. (An open buffer shares its parent's slot.)
fn slot<'s>(frames: &'s mut Frames, out: &'s mut Shape) -> &'s mut Shape {
    #[cfg(feature = "alloc")]
    for frame in frames.iter_mut().rev() {
        // An open tuple always holds its pending element (pushed with the
        // `(` or `,` that opened it).
        if let Frame::Tuple { elems, .. } = frame
            && let Some(pending) = elems.last_mut()
        {
            return pending;
        }
    }
    #[cfg(not(feature = "alloc"))]
    let _ = frames;
    out
}

impl<'a> Parser<'a> {
    /// A parser whose current token is the first token at `pos`.
    pub(crate) fn new(src: &'a [u8], pos: usize, options: ParseOptions) -> Parser<'a> {
        // A start past the end is the end, so that errors stay inside `src`.
        let mut lexer = Lexer::at(src, pos.min(src.len()));
        let tok = lexer.next_token();
        Parser {
            src,
            lexer,
            tok,
            errors: None,
            depth: 0,
            max_depth: options.max_depth,
            strict: options.strict,
            physical_depth: 0,
            prev_end: 0,
            spans: None,
        }
    }

    /// The current token.
    pub(crate) fn tok(&self) -> Token {
        self.tok
    }

    /// The current token's text.
    pub(crate) fn tok_text(&self) -> &'a [u8] {
        self.tok.text(self.src)
    }

    /// Where the last consumed token ended.
    pub(crate) fn prev_end(&self) -> usize {
        self.prev_end
    }

    /// The spans, if any are being kept (callers check that they are
    /// recording this array).
    pub(crate) fn spans_mut_any(&mut self) -> Option<&mut ShapeSpans> {
        self.spans.as_mut()
    }

    /// This parser, also recording where the parts of the outermost array
    /// are.
    pub(crate) fn with_spans(mut self) -> Self {
        self.spans = Some(ShapeSpans::EMPTY);
        self
    }

    /// The recorded errors of a failed parse.
    fn take_error(&mut self) -> ParseError {
        self.errors.take().unwrap_or_else(|| {
            // Every failing path records a diagnostic; this is a backstop.
            ParseError::single(Diagnostic {
                start: self.tok.start,
                end: self.tok.end,
                kind: E::Syntax("parse failed"),
            })
        })
    }

    /// Where the shape just parsed ends, and the token after it.
    fn shape_end(&self) -> ShapeEnd {
        ShapeEnd {
            end: self.prev_end,
            next: self.tok,
        }
    }

    pub(crate) fn lex(&mut self) {
        self.prev_end = self.tok.end;
        self.tok = self.lexer.next_token();
    }

    /// Spans are kept for the outermost array only.
    fn recording(&self) -> bool {
        self.spans.is_some() && self.depth == 1 && self.physical_depth == 0
    }

    /// The spans, while recording.
    fn spans_mut(&mut self) -> Option<&mut ShapeSpans> {
        if self.recording() {
            self.spans.as_mut()
        } else {
            None
        }
    }

    /// The span from `start` to the end of the last consumed token.
    pub(crate) fn since(&self, start: Token) -> ByteSpan {
        ByteSpan {
            start: start.start,
            end: self.prev_end.max(start.start),
        }
    }

    fn look_ahead(&self) -> K {
        self.lexer.look_ahead().kind
    }

    pub(crate) fn is_ident(&self, text: &[u8]) -> bool {
        self.tok.kind == K::Ident && self.tok.text(self.src) == text
    }

    /// The first token of item `i` of the comma-separated list whose
    /// opening bracket is `open` (only used to point at an error).
    fn list_item(&self, open: Token, i: usize) -> Token {
        let mut lexer = Lexer::at(self.src, open.end);
        let mut commas = 0;
        loop {
            let t = lexer.next_token();
            if commas == i || matches!(t.kind, K::Eof | K::Error) {
                return t;
            }
            if t.kind == K::Comma {
                commas += 1;
            }
        }
    }

    /// Records `kind` at the current token; returns `false` like XLA's
    /// `TokenError`.
    pub(crate) fn error(&mut self, kind: E) -> bool {
        self.error_at(self.tok, kind)
    }

    pub(crate) fn error_at(&mut self, tok: Token, kind: E) -> bool {
        self.errors
            .get_or_insert_with(ParseError::new)
            .push(Diagnostic {
                start: tok.start,
                end: tok.end,
                kind,
            });
        false
    }

    /// Forgets the diagnostic just recorded, in a strict parse: the
    /// "expects integer" a `*` tile entry leaves behind, an artefact of
    /// XLA's parser, so that the few diagnostics a ParseError holds are
    /// ones that matter.
    #[cold]
    pub(crate) fn forget_artefact(&mut self) {
        if let (true, Some(e)) = (self.strict, self.errors.as_mut()) {
            e.pop();
            if e.is_empty() {
                self.errors = None;
            }
        }
    }

    /// Records a fatal diagnostic and stops.
    fn stop<T>(&mut self, tok: Token, kind: E) -> Step<T> {
        self.error_at(tok, kind);
        Err(Stop)
    }

    pub(crate) fn capacity<T>(&mut self, tok: Token, r: Result<T, CapacityError>) -> Step<T> {
        match r {
            Ok(v) => Ok(v),
            Err(e) => self.stop(tok, E::Capacity(e)),
        }
    }

    /// `ParseToken`.
    /// `msg` is built only on failure: a `ParseErrorKind` is a few hundred
    /// bytes, and this runs for every bracket of every shape.
    pub(crate) fn expect(&mut self, kind: K, msg: impl FnOnce() -> E) -> bool {
        if self.tok.kind != kind {
            return self.error(msg());
        }
        self.lex();
        true
    }

    /// `EatIfPresent`.
    pub(crate) fn eat(&mut self, kind: K) -> bool {
        let present = self.tok.kind == kind;
        if present {
            self.lex();
        }
        present
    }

    /// `ParseInt64`.
    pub(crate) fn int64(&mut self) -> Option<i64> {
        if self.tok.kind != K::Int {
            self.error(E::ExpectedInteger);
            return None;
        }
        let v = self.tok.int;
        self.lex();
        Some(v)
    }

    /// `ParseList(start, end, delim=',', item)`.
    pub(crate) fn list(
        &mut self,
        start: K,
        end: K,
        mut item: impl FnMut(&mut Self) -> Step<bool>,
    ) -> Step<bool> {
        if !self.expect(start, || E::ExpectedListStart(start)) {
            return Ok(false);
        }
        if self.tok.kind != end {
            loop {
                if !item(self)? {
                    return Ok(false);
                }
                if !self.eat(K::Comma) {
                    break;
                }
            }
        }
        Ok(self.expect(end, || E::ExpectedListEnd(end)))
    }

    /// `ParseShape`: one shape of any kind at the current token.
    pub(crate) fn shape(&mut self) -> Step<Option<Shape>> {
        let mut out = BLANK;
        Ok(self.shape_into(&mut out)?.then_some(out))
    }

    /// [`Parser::shape`] into `out`. Arrays are built where they end up (a
    /// tuple's element or `out`) because an `ArrayShape` is over a kilobyte
    /// and moving it through every return would dominate the parse.
    pub(crate) fn shape_into(&mut self, out: &mut Shape) -> Step<bool> {
        self.shape_streamed(out, None)
    }

    /// [`Parser::shape_into`], handing tuples' elements to `sink` as they
    /// complete instead of building the tuples (`out` then holds an empty
    /// tuple for a tuple, or the leaf).
    fn shape_streamed(&mut self, out: &mut Shape, sink: Sink<'_>) -> Step<bool> {
        let base_depth = self.depth;
        let result = self.shape_iterative(out, sink);
        self.depth = base_depth;
        result
    }

    fn shape_iterative(&mut self, out: &mut Shape, mut sink: Sink<'_>) -> Step<bool> {
        #[cfg(not(feature = "alloc"))]
        let _ = &mut sink;
        #[cfg(feature = "alloc")]
        let mut frames: Frames = Vec::new();
        #[cfg(not(feature = "alloc"))]
        let mut frames = Frames::new();
        'descend: loop {
            self.depth += 1;
            if self.depth > self.max_depth {
                self.error(E::Syntax("maximum recursion depth exceeded"));
                return Ok(false);
            }
            if starts_buffer(self.src, self.tok, || self.look_ahead()) {
                // The buffer's array is parsed into the buffer's own slot
                // and wrapped when its `)` closes.
                self.lex();
                self.lex();
                frames.push(Frame::Buffer);
                continue 'descend;
            } else if self.tok.kind == K::Lparen {
                #[cfg(not(feature = "alloc"))]
                return self.stop(self.tok, E::TupleNeedsAlloc);
                #[cfg(feature = "alloc")]
                {
                    self.lex();
                    if let Some(f) = sink.as_mut() {
                        f(ParseEvent::TupleStart {
                            index: tuple_index(&frames),
                        });
                    }
                    if self.tok.kind != K::Rparen {
                        // Room for a few elements: growing moves them all.
                        let mut elems = Vec::with_capacity(if sink.is_some() { 1 } else { 4 });
                        elems.push(BLANK);
                        frames.push(Frame::Tuple {
                            elems,
                            done: 0,
                            invalid: None,
                        });
                        continue 'descend;
                    }
                    if !self.expect(K::Rparen, || E::Syntax("expects ')' at the end of tuple.")) {
                        return Ok(false);
                    }
                    if let Some(f) = sink.as_mut() {
                        f(ParseEvent::TupleEnd);
                    }
                    *slot(&mut frames, out) = Shape::Tuple(Vec::new());
                }
            } else if !self.array_or_leaf(slot(&mut frames, out))? {
                return Ok(false);
            }
            // The slot's value is complete: pop finished frames around it.
            loop {
                self.depth -= 1;
                match frames.last_mut() {
                    None => return Ok(true),
                    #[cfg(feature = "alloc")]
                    Some(Frame::Tuple {
                        elems,
                        done,
                        invalid,
                    }) => {
                        // The element just completed (a nested tuple was
                        // checked, and streamed, when it closed).
                        let last = elems.len() - 1;
                        let element = &elems[last];
                        if !matches!(element, Shape::Tuple(_)) {
                            // XLA validates a tuple's elements
                            // (`MakeValidatedTupleShape`) when it closes;
                            // the first invalid one is reported then. By
                            // XLA's rules only: this crate's own (a
                            // trailing `*`, checked last) waits for
                            // validation, as outside a tuple.
                            if invalid.is_none()
                                && let Err(e) =
                                    crate::validate::validate_with_optional_layout(element)
                                && e.kind().is_xla_rule()
                            {
                                *invalid = Some(alloc::boxed::Box::new(e));
                            }
                            if let Some(f) = sink.as_mut() {
                                f(ParseEvent::Leaf {
                                    index: *done + last,
                                    shape: element,
                                });
                            }
                        }
                        if self.eat(K::Comma) {
                            match sink {
                                // Streaming keeps one element at a time.
                                Some(_) => {
                                    *done += 1;
                                    elems[0] = BLANK;
                                }
                                None => elems.push(BLANK),
                            }
                            continue 'descend;
                        }
                        let Some(Frame::Tuple {
                            mut elems, invalid, ..
                        }) = frames.pop()
                        else {
                            unreachable!()
                        };
                        // Room left for more elements is some 760 bytes
                        // a slot: a deep nest of small tuples kept it at
                        // every level. (Only nested tuples give it back:
                        // a dump's tuples are mostly outermost, and a
                        // reallocation each costs.)
                        if !frames.is_empty() {
                            elems.shrink_to_fit();
                        }
                        if let Some(e) = invalid {
                            self.error(E::InvalidTupleElement(e));
                            return Ok(false);
                        }
                        if !self.expect(K::Rparen, || E::Syntax("expects ')' at the end of tuple."))
                        {
                            return Ok(false);
                        }
                        let tuple = match sink.as_mut() {
                            Some(f) => {
                                f(ParseEvent::TupleEnd);
                                Shape::Tuple(Vec::new())
                            }
                            None => Shape::Tuple(elems),
                        };
                        *slot(&mut frames, out) = tuple;
                    }
                    Some(Frame::Buffer) => {
                        frames.pop();
                        let value = slot(&mut frames, out);
                        let Shape::Array(array) = value else {
                            self.error(E::BufferOfNonArray);
                            return Ok(false);
                        };
                        if !self.expect(K::Rparen, || {
                            E::Syntax("expects ')' at the end of buffer shape.")
                        }) {
                            return Ok(false);
                        }
                        *value = Shape::Buffer(*array);
                    }
                }
            }
        }
    }

    /// The array branch of `ParseShape`, which also reads `token[]` and
    /// `opaque[]`,
    /// into `out`.
    fn array_or_leaf(&mut self, out: &mut Shape) -> Step<bool> {
        if self.tok.kind != K::PrimitiveType {
            self.error(E::ExpectedPrimitiveType(self.tok.kind));
            return Ok(false);
        }
        let type_tok = self.tok;
        let element_type = type_tok.element_type;
        self.lex();
        // Reuse the array already in `out` (the HLO reader parses every
        // instruction's shape into one): rewriting a kilobyte-sized value
        // per shape would cost more than parsing it.
        if let Shape::Array(a) = out {
            a.reset(element_type);
        } else {
            *out = Shape::Array(ArrayShape::empty(element_type));
        }
        let Shape::Array(shape) = out else {
            unreachable!("just written")
        };
        let dims_tok = self.tok;
        let dims_ok = self.list(K::Lsquare, K::Rsquare, |p| {
            let start = p.tok;
            let (size, dynamic) = if p.tok.kind == K::QuestionMark {
                p.lex();
                (UNBOUNDED, true)
            } else {
                let dynamic = p.eat(K::Leq);
                match p.int64() {
                    Some(n) => (n, dynamic),
                    None => return Ok(false),
                }
            };
            let r = shape.push_dim(size, dynamic);
            p.capacity(start, r)?;
            let span = p.since(start);
            if let Some(spans) = p.spans_mut() {
                spans.dim[shape.rank() - 1] = span;
            }
            Ok(true)
        })?;
        if !dims_ok {
            return Ok(false);
        }
        let dims_span = self.since(dims_tok);
        if let Some(spans) = self.spans_mut() {
            spans.element_type = ByteSpan {
                start: type_tok.start,
                end: type_tok.end,
            };
            spans.dims = dims_span;
        }
        let is_leaf = matches!(element_type, ElementType::TOKEN | ElementType::OPAQUE);
        for i in 0..shape.rank() {
            let (size, dynamic) = (shape.dims()[i], shape.dynamic_dimensions()[i]);
            if !crate::Dim::from_raw(size, dynamic).is_valid() {
                let at = self.list_item(dims_tok, i);
                self.error_at(at, E::InvalidDimensionSize { index: i, size });
                return Ok(false);
            }
            if is_leaf {
                let at = self.list_item(dims_tok, i);
                return self.stop(at, E::TokenOrOpaqueWithDimensionsOrLayout(element_type));
            }
        }
        if starts_layout(self.tok.kind, || self.look_ahead()) {
            let layout_tok = self.tok;
            let Some(m2m_len) = self.layout_into(shape.empty_layout_mut())? else {
                return Ok(false);
            };
            if is_leaf {
                return self.stop(
                    layout_tok,
                    E::TokenOrOpaqueWithDimensionsOrLayout(element_type),
                );
            }
            if m2m_len != shape.rank() {
                self.error(E::MinorToMajorCount {
                    rank: shape.rank(),
                    minor_to_major: m2m_len,
                });
                return Ok(false);
            }
            if shape.layout().is_some_and(Layout::has_physical_shape) {
                // Where, not the text: messages print it from the input.
                self.error(E::PhysicalShapeOnDenseArray {
                    layout_start: layout_tok.start,
                    layout_end: self.prev_end,
                });
                return Ok(false);
            }
        } else {
            // fill_missing_layouts: an array without layout text gets the
            // default one.
            shape.set_default_layout();
        }
        match element_type {
            ElementType::TOKEN => *out = Shape::Token,
            ElementType::OPAQUE => *out = Shape::Opaque,
            _ => {}
        }
        Ok(true)
    }

    /// `ParseLayout`. Returns the layout and the number of minor-to-major
    /// entries written (which may exceed what a layout can hold).
    pub(crate) fn layout(&mut self) -> Step<Option<(Layout, usize)>> {
        let mut l = Layout::EMPTY;
        Ok(self.layout_into(&mut l)?.map(|n| (l, n)))
    }

    /// [`Parser::layout`] into `l`, which must be [`Layout::EMPTY`]: parsing
    /// in place saves copying a kilobyte-sized value per shape.
    fn layout_into(&mut self, l: &mut Layout) -> Step<Option<usize>> {
        let mut m2m_len = 0usize;
        let open = self.tok;
        if !self.expect(K::Lbrace, || {
            E::Syntax("expects layout to start with kLbrace")
        }) {
            return Ok(None);
        }
        let record = self.recording();
        if let Some(spans) = self.spans_mut() {
            spans.minor_to_major = ByteSpan {
                start: open.start,
                end: open.end,
            };
        }
        let mut draft = Draft {
            layout: l,
            scalars: ScalarAttributes::DEFAULT,
            negative_tile: None,
            tail_padding: None,
            record,
        };
        if self.tok.kind != K::Rbrace {
            if self.tok.kind == K::Int {
                let first = self.tok;
                loop {
                    let Some(v) = self.int64() else {
                        return Ok(None);
                    };
                    if m2m_len < crate::MAX_RANK {
                        let r = draft.layout.push_minor_to_major(v);
                        self.capacity(self.tok, r)?;
                    }
                    m2m_len += 1;
                    if !self.eat(K::Comma) {
                        break;
                    }
                }
                let span = self.since(first);
                if let Some(spans) = self.spans_mut() {
                    spans.minor_to_major = span;
                }
            }
            if self.eat(K::Colon) {
                // Each attribute at most once, in the table's order.
                for (i, a) in ATTRIBUTES.iter().enumerate() {
                    if !attributes::starts(self, a.name) {
                        continue;
                    }
                    let start = self.tok;
                    self.lex();
                    (a.parse)(self, &mut draft, start)?;
                    let span = self.since(start);
                    if let (true, Some(spans)) = (record, self.spans.as_mut()) {
                        spans.attributes[i] = Some(span);
                    }
                }
            }
        }
        if !self.expect(K::Rbrace, || E::LayoutNotClosed) {
            return Ok(None);
        }
        let span = self.since(open);
        if let Some(spans) = self.spans_mut() {
            spans.layout = Some(span);
        }
        // `LayoutUtil::MakeLayout`, whose checks abort the XLA process.
        if let Some((tok, v)) = draft.negative_tile {
            return self.stop(tok, E::NegativeTileDimension(v));
        }
        let tail_padding = draft.scalars.tail_padding_alignment;
        if tail_padding < 1 {
            let tok = draft.tail_padding.unwrap_or(open);
            return self.stop(tok, E::TailPaddingBelowOne(tail_padding));
        }
        draft.layout.set_scalar_attributes(&draft.scalars);
        Ok(Some(m2m_len))
    }

    /// `ParsePhysicalShape`: `(shape)`. The shape is kept as its canonical
    /// text; XLA ignores whether the inner shape parsed.
    pub(crate) fn physical_shape(&mut self) -> Step<PhysicalShapeText> {
        // XLA emplaces an empty (invalid-typed) shape before parsing.
        let mut text = PhysicalShapeText::new();
        let _ = text.write_str("primitive_type_invalid[]");
        if !self.expect(K::Lparen, || {
            E::Syntax("expects physical shape to start with kLparen")
        }) {
            return Ok(text);
        }
        if self.physical_depth >= crate::limits::MAX_PHYSICAL_DEPTH {
            let tok = self.tok;
            return self.stop(tok, E::PhysicalShapeTooDeep);
        }
        let tok = self.tok;
        self.physical_depth += 1;
        let inner = self.shape();
        self.physical_depth -= 1;
        if let Some(shape) = inner? {
            text = PhysicalShapeText::new();
            if write!(text, "{shape}").is_err() {
                return self.stop(
                    tok,
                    E::Capacity(CapacityError {
                        capacity: crate::Capacity::PhysicalShapeText,
                    }),
                );
            }
        }
        self.expect(K::Rparen, || {
            E::Syntax("expects physical shape to end with kRparen")
        });
        Ok(text)
    }
}

fn finish<T>(
    p: &mut Parser<'_>,
    value: Step<Option<T>>,
    what: &'static str,
) -> Result<T, ParseError> {
    match value {
        // Strict: what XLA recovered from fails the parse (not the
        // `expects integer` every `*` tile entry leaves behind).
        Ok(Some(_)) if p.tok.kind == K::Eof && p.strict && p.errors.is_some() => {
            Err(p.take_error())
        }
        Ok(Some(v)) if p.tok.kind == K::Eof => Ok(v),
        Ok(Some(_)) => {
            // XLA reports only this, dropping errors it recovered from.
            p.errors = None;
            let tok = p.tok;
            Err(ParseError::single(Diagnostic {
                start: tok.start,
                end: tok.end,
                kind: E::ExtraContent(what),
            }))
        }
        Ok(None) | Err(Stop) => Err(p.take_error()),
    }
}

/// What the parser builds shapes in: an array whose layout storage exists,
/// so that parsing reuses it in place instead of moving kilobyte-sized
/// values (see [`ArrayShape::reset`]).
const BLANK: Shape =
    Shape::Array(ArrayShape::empty(ElementType::INVALID).with_layout(Layout::EMPTY));

/// Whether `tok` (then the token `next` gives) opens a buffer shape, `b(`.
fn starts_buffer(src: &[u8], tok: Token, next: impl FnOnce() -> K) -> bool {
    tok.kind == K::Ident && tok.text(src) == b"b" && next() == K::Lparen
}

/// Whether a `{` after an array's dimensions starts its layout: only when
/// an integer or `:` follows (docs/xla-layouts.md §a.2), so that `f32[2] {` in HLO can
/// open a computation body instead.
fn starts_layout(tok: K, next: impl FnOnce() -> K) -> bool {
    tok == K::Lbrace && matches!(next(), K::Int | K::Colon)
}

/// Where a shape embedded in other text ends: what [`parse_shape_at`] and
/// its variants return besides the shape.
///
/// ```
/// use xla_layout_core::text::{parse_shape_at, TokenKind};
///
/// let src = b"x = f32[2]{0} /* c */ negate(y)";
/// let (_, end) = parse_shape_at(src, 3).unwrap();
/// assert_eq!(end.end, 13);                                  // after `}`
/// assert_eq!(end.next.kind, TokenKind::Ident);              // `negate`
/// assert_eq!(end.next.text(src), b"negate");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShapeEnd {
    /// One past the shape's last byte: the end of its last token, before
    /// any space or comment that follows.
    pub end: usize,
    /// The first token after the shape, already lexed: the enclosing
    /// grammar continues with it (and a [`Lexer::at`] its `end`).
    /// [`TokenKind::Eof`](K::Eof) at the end of the text.
    pub next: Token,
}

/// Parses the shape whose text starts at byte `pos` of `src` (spaces and
/// comments before it are skipped), for grammars that embed XLA's shapes,
/// as HLO text does. Unlike [`parse_shape`], text after the shape is not
/// an error: it is where the enclosing grammar resumes. The shape is not
/// validated, and the nesting limit is XLA's ([`ParseOptions::default`]).
///
/// Post-condition: on success, with `first` the first token at `pos`,
/// `src[first.start..end.end]` is exactly the shape's text — it parses
/// with [`parse_shape`] to the same shape, and [`shape_extent`] from
/// `first` returns `end.end` — and `end.next` is the first token at or
/// after `end.end`. Errors are placed by offsets into `src`. A `pos` past
/// the end of `src` reads as the end.
///
/// ```
/// use xla_layout_core::text::parse_shape_at;
///
/// let src = b"ROOT r = bf16[8,128]{1,0:T(8,128)(2,1)} add(a, b)";
/// let (shape, end) = parse_shape_at(src, 8).unwrap();
/// assert_eq!(shape.to_string(), "bf16[8,128]{1,0:T(8,128)(2,1)}");
/// assert_eq!(&src[9..end.end], b"bf16[8,128]{1,0:T(8,128)(2,1)}");
/// assert_eq!(end.next.text(src), b"add");
///
/// let err = parse_shape_at(b"p = f32[2} x", 3).unwrap_err();
/// assert_eq!(err.span(), 9..10);                            // `}`: offsets into the whole text
/// ```
pub fn parse_shape_at(src: &[u8], pos: usize) -> Result<(Shape, ShapeEnd), ParseError> {
    let mut out = BLANK;
    let end = parse_shape_into(src, pos, &mut out)?;
    Ok((out, end))
}

/// [`parse_shape_at`] into `out`, reusing the storage of the array already
/// there: an [`ArrayShape`] is over a kilobyte, and a reader that parses
/// shape after shape into one place (an HLO module has one per
/// instruction) saves writing and moving that much per shape.
///
/// Post-condition: on success, `out` is the shape [`parse_shape_at`]
/// returns and the [`ShapeEnd`] is the same; on failure, `out` holds some
/// shape that means nothing (parse into it again, or overwrite it).
///
/// ```
/// use xla_layout_core::Shape;
/// use xla_layout_core::text::parse_shape_into;
///
/// let src = b"a = f32[2]{0} p(), b = s8[4,4]{0,1} p()";
/// let mut slot = Shape::Token;
/// let first = parse_shape_into(src, 3, &mut slot).unwrap();
/// assert_eq!(slot.to_string(), "f32[2]{0}");
/// let second = parse_shape_into(src, 22, &mut slot).unwrap();
/// assert_eq!(slot.to_string(), "s8[4,4]{0,1}");
/// assert_eq!((first.end, second.end), (13, 35));
/// ```
pub fn parse_shape_into(src: &[u8], pos: usize, out: &mut Shape) -> Result<ShapeEnd, ParseError> {
    let mut p = Parser::new(src, pos, ParseOptions::default());
    match p.shape_into(out) {
        Ok(true) => Ok(p.shape_end()),
        Ok(false) | Err(Stop) => Err(p.take_error()),
    }
}

/// [`parse_shape_at`], streaming: the shape's events as
/// [`parse_shape_events`] gives them (each non-tuple element once,
/// complete, then forgotten), so that memory stays at one array per open
/// tuple however large the shape's text is.
///
/// Post-condition: it succeeds, fails (with the same error) and returns
/// the same [`ShapeEnd`] exactly when [`parse_shape_at`] does; on
/// success the events, printed in order, are the shape's canonical text.
/// Events before a failure describe elements that parsed.
///
/// ```
/// use xla_layout_core::text::{parse_shape_events_at, ParseEvent};
///
/// let src = b"t = (f32[2]{0}, (s8[], pred[])) tuple(a, b)";
/// let mut leaves = Vec::new();
/// let end = parse_shape_events_at(src, 3, |e| {
///     if let ParseEvent::Leaf { index, shape } = e {
///         leaves.push((index, shape.to_string()));
///     }
/// })
/// .unwrap();
/// assert_eq!(leaves, [(0, "f32[2]{0}".into()), (0, "s8[]".into()), (1, "pred[]".into())]);
/// assert_eq!(end.next.text(src), b"tuple");
/// ```
#[cfg(feature = "alloc")]
pub fn parse_shape_events_at(
    src: &[u8],
    pos: usize,
    mut f: impl FnMut(ParseEvent<'_>),
) -> Result<ShapeEnd, ParseError> {
    let mut p = Parser::new(src, pos, ParseOptions::default());
    let mut out = BLANK;
    match p.shape_streamed(&mut out, Some(&mut f)) {
        Ok(true) => {
            if !matches!(out, Shape::Tuple(_)) {
                f(ParseEvent::Leaf {
                    index: 0,
                    shape: &out,
                });
            }
            Ok(p.shape_end())
        }
        Ok(false) | Err(Stop) => Err(p.take_error()),
    }
}

/// Where the shape whose first token is `first` ends, found without
/// parsing it: the parser's decisions about which bracket groups belong
/// to the shape, with the groups skipped whole — about a tenth of the cost
/// of parsing. `first` is a token lexed from `src` (by a [`Lexer`] over
/// the whole of `src`). `None` where no shape can start at `first`, or
/// its brackets do not balance.
///
/// Post-condition: wherever [`parse_shape_at`] succeeds at `first.start`,
/// this is `Some` of its `end.end`. (Where the parse fails, the extent
/// may still be `Some`: the skim does not check what is inside the
/// brackets.) So a text's extent can identify a shape parsed before: the
/// same bytes parse to the same shape, as an HLO reader's memo uses it.
///
/// ```
/// use xla_layout_core::text::{shape_extent, Lexer};
///
/// let extent = |text: &str| shape_extent(text.as_bytes(), Lexer::new(text.as_bytes()).next_token());
/// assert_eq!(extent("f32[2] {0} %x"), Some(10));        // a layout, after a space
/// assert_eq!(extent("f32[2] {\n %x = …"), Some(6));     // a computation's `{`, not a layout
/// assert_eq!(extent("(f32[], b(s32[])) tuple()"), Some(17));
/// assert_eq!(extent("add(x)"), None);
/// ```
pub fn shape_extent(src: &[u8], first: Token) -> Option<usize> {
    let mut lx = Lexer::at(src, first.end);
    match first.kind {
        K::Lparen => lx.skip_group(first).ok(),
        K::PrimitiveType => {
            let open = lx.next_token();
            if open.kind != K::Lsquare {
                return None;
            }
            let end = lx.skip_group(open).ok()?;
            let mut ahead = lx;
            let brace = ahead.next_token();
            if starts_layout(brace.kind, || ahead.look_ahead().kind) {
                ahead.skip_group(brace).ok()
            } else {
                Some(end)
            }
        }
        _ => {
            let open = lx.next_token();
            if starts_buffer(src, first, || open.kind) {
                lx.skip_group(open).ok()
            } else {
                None
            }
        }
    }
}

/// Where the element at `index` (one number per tuple level, outermost
/// first) of the shape text `src` is, found as [`shape_extent`] finds a
/// shape's end: the text as written, which its canonical print need not
/// be (a layout attribute XLA's parser wraps or drops). `None` where a
/// level is not a tuple, an index is past its elements, or the brackets
/// do not balance. With no index, the whole shape.
///
/// Post-condition: where `Some`, the range is inside `src` and is one
/// shape's extent: [`shape_extent`] at its first token ends it.
///
/// ```
/// use xla_layout_core::text::tuple_element;
///
/// let text = "(f32[2]{0:S(300)}, (s32[], /*index=1*/pred[3]{0}))";
/// let at = |index: &[usize]| tuple_element(text.as_bytes(), index).map(|s| &text[s.range()]);
/// assert_eq!(at(&[0]), Some("f32[2]{0:S(300)}"));
/// assert_eq!(at(&[1, 1]), Some("pred[3]{0}"));
/// assert_eq!(at(&[2]), None);
/// assert_eq!(at(&[0, 0]), None);
/// ```
pub fn tuple_element(src: &[u8], index: &[usize]) -> Option<ByteSpan> {
    let mut first = Lexer::new(src).next_token();
    for &i in index {
        if first.kind != K::Lparen {
            return None;
        }
        let mut lx = Lexer::at(src, first.end);
        let mut k = 0;
        first = loop {
            let t = lx.next_token();
            // An empty tuple, or past its last element.
            if t.kind == K::Rparen || t.kind == K::Eof {
                return None;
            }
            if k == i {
                break t;
            }
            lx = Lexer::at(src, shape_extent(src, t)?);
            if lx.next_token().kind != K::Comma {
                return None;
            }
            k += 1;
        };
    }
    let end = shape_extent(src, first)?;
    Some(ByteSpan {
        start: first.start,
        end,
    })
}

/// Parses shape text of any kind, as `xla::ParseShape` (no validation).
///
/// ```
/// use xla_layout_core::text::parse_shape;
///
/// let s = parse_shape(b"f32[ 1, 2 ] /* c */ {0,1}").unwrap();
/// assert_eq!(s.to_string(), "f32[1,2]{0,1}");
/// ```
pub fn parse_shape(text: &[u8]) -> Result<Shape, ParseError> {
    parse_shape_with(text, ParseOptions::default())
}

/// [`parse_shape`] with options.
///
/// ```
/// use xla_layout_core::text::{parse_shape_with, ParseOptions};
/// assert!(parse_shape_with(b"f32[]", ParseOptions::default()).is_ok());
/// ```
pub fn parse_shape_with(text: &[u8], options: ParseOptions) -> Result<Shape, ParseError> {
    let mut p = Parser::new(text, 0, options);
    let mut out = BLANK;
    let v = p.shape_into(&mut out).map(|ok| ok.then_some(()));
    finish(&mut p, v, "shape").map(|()| out)
}

/// Parses shape text as [`parse_shape`] does (the same errors, in the same
/// order), but hands each element of a tuple to `f` as soon as it is
/// complete instead of building the tuple: memory stays at one array per
/// open tuple, whatever the tuple's size. Events come in pre-order: a
/// tuple's start, its elements, its end; a shape that is not a tuple is
/// one [`ParseEvent::Leaf`].
///
/// ```
/// use xla_layout_core::text::{parse_shape_events, ParseEvent};
/// let mut leaves = 0;
/// let text = format!("({})", vec!["f32[]"; 100_000].join(", "));
/// parse_shape_events(text.as_bytes(), Default::default(), |e| {
///     if let ParseEvent::Leaf { .. } = e { leaves += 1 }
/// })
/// .unwrap();
/// assert_eq!(leaves, 100_000);
/// ```
#[cfg(feature = "alloc")]
pub fn parse_shape_events(
    text: &[u8],
    options: ParseOptions,
    mut f: impl FnMut(ParseEvent<'_>),
) -> Result<(), ParseError> {
    let mut p = Parser::new(text, 0, options);
    let mut out = BLANK;
    let v = p
        .shape_streamed(&mut out, Some(&mut f))
        .map(|ok| ok.then_some(()));
    finish(&mut p, v, "shape")?;
    if !matches!(out, Shape::Tuple(_)) {
        f(ParseEvent::Leaf {
            index: 0,
            shape: &out,
        });
    }
    Ok(())
}

/// What XLA's parser reads past in shape `text`: the error a strict parse
/// ([`ParseOptions::with_strict`]) gives text that the default parse, as
/// XLA's, accepts (`S(300)`, which XLA keeps as `S(44)`; an `E` with no
/// `(n)`, which it drops). `None` when the text means what it says, and
/// when XLA refuses it too. Text that means what it says is parsed once.
///
/// ```
/// use xla_layout_core::text::read_past;
/// let e = read_past(b"f32[2]{0:S(300)}").unwrap();
/// assert!(e.to_string().starts_with("memory space S(300) does not fit the 8 bits"));
/// assert!(read_past(b"f32[2]{0:S(44)}").is_none());
/// assert!(read_past(b"f32[2]{0:T(0)").is_none()); // XLA refuses it too
/// ```
#[cfg(feature = "alloc")]
pub fn read_past(text: &[u8]) -> Option<ParseError> {
    let strict = ParseOptions::default().with_strict(true);
    let e = parse_shape_events(text, strict, |_| {}).err()?;
    parse_shape_events(text, ParseOptions::default(), |_| {})
        .is_ok()
        .then_some(e)
}

/// Parses an array shape; any other kind of shape is an error.
///
/// ```
/// use xla_layout_core::text::parse_array;
///
/// assert_eq!(parse_array(b"u4[16]{0:E(4)}").unwrap().rank(), 1);
/// assert_eq!(
///     parse_array(b"token[]").unwrap_err().kind().to_string(),
///     "expected an array shape, found a token"
/// );
/// ```
pub fn parse_array(text: &[u8]) -> Result<ArrayShape, ParseError> {
    let mut p = Parser::new(text, 0, ParseOptions::default());
    let mut out = BLANK;
    let v = p.shape_into(&mut out).map(|ok| ok.then_some(()));
    finish(&mut p, v, "shape")?;
    into_array(out, text)
}

/// The array of a parsed shape, or the error for another kind.
fn into_array(shape: Shape, text: &[u8]) -> Result<ArrayShape, ParseError> {
    let kind = match shape {
        Shape::Array(a) => return Ok(a),
        Shape::Buffer(_) => "a buffer",
        Shape::Token => "a token",
        Shape::Opaque => "an opaque shape",
        #[cfg(feature = "alloc")]
        Shape::Tuple(_) => "a tuple",
    };
    Err(ParseError::single(Diagnostic {
        start: 0,
        end: text.len(),
        kind: E::NotAnArray(kind),
    }))
}

/// [`parse_array`] with options, also returning where each part of the
/// text is, for error reporting (see [`ShapeSpans::locate`]).
///
/// ```
/// use xla_layout_core::text::{parse_array_with_spans, ParseOptions};
/// let text = "bf16[8,128]{1,0:T(8,128)(2,1)S(1)}";
/// let (_, spans) = parse_array_with_spans(text.as_bytes(), ParseOptions::default()).unwrap();
/// assert_eq!(&text[spans.dims.range()], "[8,128]");
/// assert_eq!(&text[spans.tiles[1].range()], "(2,1)");
/// assert_eq!(&text[spans.attribute("S").unwrap().range()], "S(1)");
/// assert_eq!(&text[spans.minor_to_major.range()], "1,0");
/// ```
pub fn parse_array_with_spans(
    text: &[u8],
    options: ParseOptions,
) -> Result<(ArrayShape, ShapeSpans), ParseError> {
    let mut p = Parser::new(text, 0, options).with_spans();
    let mut out = BLANK;
    let v = p.shape_into(&mut out).map(|ok| ok.then_some(()));
    finish(&mut p, v, "shape")?;
    let spans = p.spans.unwrap_or(ShapeSpans::EMPTY);
    into_array(out, text).map(|a| (a, spans))
}

/// The spans of whatever parts of an array shape's text parse, even when
/// the whole does not; for pointing at the layout in error messages.
///
/// ```
/// use xla_layout_core::text::shape_spans;
/// let text = "f32[2,3]{0,1,2}";
/// assert_eq!(&text[shape_spans(text.as_bytes()).minor_to_major.range()], "0,1,2");
/// ```
pub fn shape_spans(text: &[u8]) -> ShapeSpans {
    let mut p = Parser::new(text, 0, ParseOptions::default()).with_spans();
    let _ = p.shape();
    p.spans.unwrap_or(ShapeSpans::EMPTY)
}

/// Parses a bare layout, as `xla::ParseLayout`: `{1,0:T(8,128)}`, `{}`.
///
/// ```
/// use xla_layout_core::text::parse_layout;
///
/// assert_eq!(parse_layout(b"{1,0:T(8,128)L(1)}").unwrap().to_string(), "{1,0:T(8,128)}");
/// assert!(parse_layout(b"{1,0} x").is_err());
/// ```
pub fn parse_layout(text: &[u8]) -> Result<Layout, ParseError> {
    parse_layout_with(text, ParseOptions::default())
}

/// [`parse_layout`] with `options`: strictly
/// ([`ParseOptions::with_strict`]), text XLA's parser reads past (`S(300)`
/// kept in 8 bits, `E` without its size) is refused.
///
/// ```
/// use xla_layout_core::text::{ParseOptions, parse_layout, parse_layout_with};
/// let strict = ParseOptions::default().with_strict(true);
/// assert_eq!(parse_layout(b"{0:S(300)}").unwrap().to_string(), "{0:S(44)}");
/// assert!(parse_layout_with(b"{0:S(300)}", strict).is_err());
/// assert!(parse_layout_with(b"{1,0:T(8,128)}", strict).is_ok());
/// ```
pub fn parse_layout_with(text: &[u8], options: ParseOptions) -> Result<Layout, ParseError> {
    let mut p = Parser::new(text, 0, options);
    let v = match p.layout() {
        Ok(Some((_, n))) if n > crate::MAX_RANK => {
            let tok = p.tok;
            p.stop(
                tok,
                E::Capacity(CapacityError {
                    capacity: crate::Capacity::Rank,
                }),
            )
        }
        Ok(v) => Ok(v.map(|(l, _)| l)),
        Err(s) => Err(s),
    };
    finish(&mut p, v, "layout")
}

#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::{parse_shape_into, shape_extent};
    use crate::Shape;
    use crate::text::Lexer;
    use proptest::prelude::*;

    fn extent(text: &str) -> Option<usize> {
        let first = Lexer::new(text.as_bytes()).next_token();
        shape_extent(text.as_bytes(), first)
    }

    /// Shape text, mostly valid, with spaces and comments between tokens
    /// and layouts that may not match their dimensions.
    fn shape_text() -> impl Strategy<Value = String> {
        let ws = || prop::sample::select(vec!["", " ", "/*c*/", "\n "]);
        let dims = prop::collection::vec(
            prop::sample::select(vec!["2", "128", "<=4", "?", "0"]),
            0..3,
        );
        let layout = prop::option::of(prop::sample::select(vec![
            "{0}",
            "{1,0}",
            "{0,1:T(2,2)}",
            "{1,0:T(8,128)(2,1)S(1)}",
            "{:T(128)}",
            "{0:E(4)}",
            "{}",
            "{1,0:T(8,128)L(2)}",
            // Parse, then fail validation (inside a tuple: at its `)`).
            "{0,0}",
            "{0:T(0)}",
        ]));
        let array = (
            prop::sample::select(vec!["f32", "bf16", "s4", "pred", "token", "opaque"]),
            ws(),
            dims,
            ws(),
            layout,
        )
            .prop_map(|(t, w1, d, w2, l)| {
                format!("{t}{w1}[{}]{w2}{}", d.join(","), l.unwrap_or(""))
            });
        array.prop_recursive(3, 12, 3, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3)
                    .prop_map(|v| format!("({})", v.join(", "))),
                inner.prop_map(|s| format!("b({s})")),
            ]
        })
    }

    /// What may follow a shape in HLO text.
    fn context() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "",
            " %x",
            " {0}",
            " {",
            "{1,0}",
            ", y",
            " /*c*/ {:T(2)}",
            ")",
            " {\n  %a",
        ])
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        /// A streamed parse succeeds and fails exactly where the tree parse
        /// does, with the same errors, and its events print the same text
        /// (tuples of more than five elements too: `/*index=5*/`).
        #[test]
        fn streaming_parses_as_the_tree_does(shape in shape_text(), wide in 0usize..8) {
            let text = if wide > 4 { format!("({})", vec![shape.as_str(); wide].join(",")) } else { shape };
            let tree = super::parse_shape(text.as_bytes());
            let mut printed = alloc::string::String::new();
            let streamed = super::parse_shape_events(text.as_bytes(), Default::default(), |e| {
                printed.push_str(&alloc::format!("{e}"));
            });
            match (tree, streamed) {
                (Ok(t), Ok(())) => prop_assert_eq!(t.to_string(), printed),
                (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
                (a, b) => prop_assert!(false, "{}: tree {:?}, streamed {:?}", text, a.map(|t| t.to_string()), b),
            }
        }

        /// The skim agrees with the parser wherever the parser succeeds:
        /// what the HLO reader's shape memo relies on.
        #[test]
        fn extent_is_what_the_parser_consumes(shape in shape_text(), after in context()) {
            let text = format!("{shape}{after}");
            let mut out = Shape::Token;
            if let Ok(end) = parse_shape_into(text.as_bytes(), 0, &mut out) {
                prop_assert_eq!(extent(&text), Some(end.end), "{}", text);
            }
        }

        /// The embedding API's post-conditions: a shape found at an
        /// offset is its text parsed alone, the next token is the one
        /// after it, and the streamed variant agrees with it everywhere.
        #[test]
        fn embedded_shapes_are_their_text(
            // Text before the shape, and where the parse starts in it.
            (before, pos) in prop::sample::select(vec![("", 0), ("x = ", 3), (" /*c*/ ", 0), ("a=\n  ", 2)]),
            shape in shape_text(),
            after in context(),
        ) {
            let text = format!("{before}{shape}{after}");
            let src = text.as_bytes();
            let at = super::parse_shape_at(src, pos);
            let mut printed = alloc::string::String::new();
            let streamed = super::parse_shape_events_at(src, pos, |e| {
                printed.push_str(&alloc::format!("{e}"));
            });
            match (&at, &streamed) {
                (Ok((shape, end)), Ok(streamed_end)) => {
                    prop_assert_eq!(end, streamed_end);
                    prop_assert_eq!(shape.to_string(), printed);
                    let first = Lexer::at(src, pos).next_token();
                    let alone = super::parse_shape(&src[first.start..end.end]);
                    prop_assert_eq!(alone.map(|s| s.to_string()), Ok(shape.to_string()));
                    prop_assert_eq!(end.next, Lexer::at(src, end.end).next_token());
                    prop_assert_eq!(shape_extent(src, first), Some(end.end));
                }
                (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
                (a, b) => prop_assert!(false, "{}: {:?} / {:?}", text, a.as_ref().map(|r| r.1), b),
            }
        }
    }

    #[test]
    fn extents_of_known_shapes() {
        let cases = [
            ("f32[2]{0} %x", 9),
            ("f32[2] {0}", 10),
            ("f32[2] {\n %x", 6),
            ("(f32[2]{0}, s4[4]{0:E(4)}) t", 26),
            ("b(s32[]) x", 8),
            ("token[] after-all", 7),
            ("bf16[8,128]{1,0:T(8,128)(2,1)S(1)}, x", 34),
        ];
        for (text, end) in cases {
            assert_eq!(extent(text), Some(end), "{text}");
            let mut out = Shape::Token;
            assert_eq!(
                parse_shape_into(text.as_bytes(), 0, &mut out).map(|r| r.end),
                Ok(end),
                "{text}"
            );
        }
        assert_eq!(extent("add("), None);
    }

    #[test]
    fn starts_past_the_end_read_as_the_end() {
        let err = super::parse_shape_at(b"f32[]", 99).unwrap_err();
        assert_eq!(err.span(), 5..5);
        let err = super::parse_shape_events_at(b"f32[]", usize::MAX, |_| {}).unwrap_err();
        assert_eq!(err.span(), 5..5);
        let elsewhere = crate::text::Token {
            kind: crate::text::TokenKind::Lparen,
            start: usize::MAX - 1,
            end: usize::MAX,
            int: 0,
            element_type: crate::ElementType::INVALID,
        };
        assert_eq!(shape_extent(b"(f32[])", elsewhere), None);
    }
}
