//! The HLO reader: module text → events, one pass, no allocation per
//! instruction. Shapes go through the core's shape parser (its
//! grammar-embedding API); operand lists and attribute values are checked
//! for balance and kept as text.

use alloc::boxed::Box;
use alloc::vec::Vec;

use xla_layout_core::Shape;
use xla_layout_core::text::{
    ByteSpan, GroupError, Lexer, MAX_GROUP_DEPTH, ParseError, ShapeEnd, Token, TokenKind as K,
    parse_shape_events_at, parse_shape_into, shape_extent,
};

use crate::error::{HloError, HloErrorKind};
use crate::items::{Computation, FileLocation, Instruction, StackFrame, StackIndex};
use crate::memo::{self, NO_SHAPE, ShapeMemo};

/// One step of a module, in text order.
///
/// ```
/// use xla_layout_hlo::{Event, Reader};
///
/// let text = "HloModule m, num_partitions=2\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n";
/// let events: Vec<Event> = Reader::new(text).map(Result::unwrap).collect();
/// assert_eq!(events[0], Event::Module { name: "m", attributes: "num_partitions=2" });
/// assert!(matches!(&events[1], Event::Computation(c) if c.name() == "e"));
/// assert!(matches!(&events[2], Event::Instruction(i) if i.opcode() == "parameter"));
/// assert_eq!(events[3], Event::EndComputation { execution_thread: None });
/// assert_eq!(events.len(), 4);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event<'a> {
    /// The `HloModule name, attr=value, …` header.
    Module {
        /// The module's name.
        name: &'a str,
        /// The header's attributes, as text (`attr=value, …`; empty if none).
        attributes: &'a str,
    },
    /// The `FileNames` … `StackFrames` tables.
    StackIndex(StackIndex<'a>),
    /// A computation's header; its instructions follow.
    Computation(Computation<'a>),
    /// An instruction of the computation last started;
    /// [`Reader::shape`] holds its parsed shape.
    Instruction(Instruction<'a>),
    /// The `}` of the computation last started.
    EndComputation {
        /// Its `execution_thread="…"`, without quotes (escapes kept).
        execution_thread: Option<&'a str>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Start,
    Sections,
    Computations,
    Instructions,
    Done,
}

/// A pull reader over HLO module text: an iterator of [`Event`]s that
/// stops after the first error. It reads what XLA prints — `HloModule`
/// headers, `FileNames`/`FunctionNames`/`FileLocations`/`StackFrames`
/// (and skips other such tables), computations with or without signatures and `ENTRY`, `ROOT`,
/// instructions with or without `%`, operands with or without shapes,
/// attributes of any name (kept as text), `/*index=N*/` and `//` comments.
///
/// ```
/// use xla_layout_hlo::{Event, Reader};
///
/// let text = "HloModule m\n\nENTRY %main {\n  %p = bf16[8,128]{1,0:T(8,128)(2,1)} parameter(0)\n  ROOT %n = bf16[8,128]{1,0:T(8,128)(2,1)} negate(%p), metadata={op_name=\"n\"}\n}\n";
/// let mut reader = Reader::new(text);
/// let mut seen = Vec::new();
/// while let Some(event) = reader.next() {
///     if let Event::Instruction(i) = event.unwrap() {
///         seen.push((i.name(), i.opcode(), reader.shape().unwrap().to_string()));
///     }
/// }
/// assert_eq!(seen[1], ("n", "negate", "bf16[8,128]{1,0:T(8,128)(2,1)}".to_string()));
/// ```
pub struct Reader<'a> {
    src: &'a str,
    lexer: Lexer<'a>,
    tok: Token,
    state: State,
    /// Whether an error skips to the next line instead of ending the read.
    lenient: bool,
    /// Where the item being read (header, computation, instruction)
    /// starts: after an error, reading resumes on the line after it.
    item_start: usize,
    seen_entry: bool,
    /// While a computation's header is read: whether it is the entry, and
    /// its name once read. After an error there, reading resumes in its
    /// body under its name, or before the next header (see `next`).
    header: Option<(bool, Option<&'a str>)>,
    /// An event to give before reading on: a computation whose header did
    /// not read but whose body follows.
    pending: Option<Event<'a>>,
    /// Whether the computation being read has had its `ROOT`.
    root_seen: bool,
    /// Whether instructions met between computations begin one whose
    /// header is lost (the last one closed had its `ROOT`, or none has
    /// opened yet) rather than go on with the last one (closed early by
    /// a stray `}`): see [`Reader::resume_after_header`].
    between_whole: bool,
    /// While the stack-frame tables are read (after an error there,
    /// reading resumes at the first computation).
    in_tables: bool,
    shapes: ShapeMemo<'a>,
    /// The slot of `shapes` holding the last instruction's shape.
    current: usize,
    /// Computations and instructions given so far, and how many may be
    /// ([`MODULE_ITEMS`]; smaller in tests).
    items: u32,
    item_limit: u32,
}

type Step<T> = Result<T, HloError>;

/// Shapes with more text than this are checked as a stream of elements
/// and not built: a tuple element costs over a kilobyte as an
/// `ArrayShape` but a few bytes of text.
///
/// ```
/// use xla_layout_hlo::{Event, Reader, LARGE_SHAPE_TEXT};
///
/// let wide = format!("({})", vec!["f32[]"; LARGE_SHAPE_TEXT / 5].join(","));
/// let text = format!("ENTRY e {{\n  ROOT t = {wide} tuple()\n}}");
/// let mut reader = Reader::new(&text);
/// reader.next(); // the computation
/// assert!(matches!(reader.next(), Some(Ok(Event::Instruction(_)))));
/// assert!(reader.shape().is_none()); // checked, not built
/// ```
pub const LARGE_SHAPE_TEXT: usize = 64 << 10;

/// `current` for a large shape that was not built.
const NOT_KEPT: usize = usize::MAX;

/// How many computations and instructions, together, one module may have:
/// the analyses number both with `u32`s and keep `u32::MAX` for "none",
/// so a [`Module`](crate::Module) never has more (the reader refuses the
/// next one: [`HloErrorKind::ModuleTooLarge`]).
pub(crate) const MODULE_ITEMS: u32 = u32::MAX - 1;

impl<'a> Reader<'a> {
    /// A reader at the start of `src`.
    ///
    /// ```
    /// # use xla_layout_hlo::Reader;
    /// assert_eq!(Reader::new("").count(), 0); // no module text, no events
    /// // A byte order mark first is read past.
    /// assert!(xla_layout_hlo::Module::parse("\u{feff}ENTRY e {\n ROOT p = f32[] parameter(0)\n}").is_ok());
    /// ```
    pub fn new(src: &'a str) -> Reader<'a> {
        // Past a byte order mark, as text tools read (places stay the
        // text's own).
        let start = if src.starts_with('\u{feff}') {
            '\u{feff}'.len_utf8()
        } else {
            0
        };
        let mut lexer = Lexer::at(src.as_bytes(), start);
        let tok = lexer.next_token();
        Reader {
            src,
            lexer,
            tok,
            state: State::Start,
            lenient: false,
            item_start: 0,
            seen_entry: false,
            header: None,
            pending: None,
            root_seen: false,
            between_whole: true,
            in_tables: false,
            shapes: ShapeMemo::new(),
            current: NO_SHAPE,
            items: 0,
            item_limit: MODULE_ITEMS,
        }
    }

    /// This reader, refusing any computation or instruction past `limit`
    /// of them (tests cannot build a module of [`MODULE_ITEMS`]).
    #[cfg(test)]
    pub(crate) fn with_item_limit(self, limit: u32) -> Reader<'a> {
        Reader {
            item_limit: limit,
            ..self
        }
    }

    /// `event`, counted when it is a computation or an instruction; past
    /// the limit, an error that ends the read, leniently too (the module
    /// keeps what came before, and the error says it is cut short).
    fn counted(&mut self, event: Event<'a>) -> Step<Event<'a>> {
        let span = match &event {
            Event::Computation(c) => c.span(),
            Event::Instruction(i) => i.span(),
            _ => return Ok(event),
        };
        if self.items >= self.item_limit {
            self.state = State::Done;
            self.pending = None;
            return Err(HloError {
                span,
                kind: HloErrorKind::ModuleTooLarge {
                    limit: self.item_limit,
                },
            });
        }
        self.items += 1;
        Ok(event)
    }

    /// A reader that goes on after an error: the error is an item of the
    /// iteration, then reading resumes on the next line (the next
    /// instruction, or the `}` that ends the computation). A module of
    /// which one instruction does not read loses that instruction only.
    /// Between computations, a line that does not read is one error up to
    /// the next line that opens a computation; a computation header that
    /// does not read but opens its body still gives its instructions under
    /// its name (an [`Event::Computation`] with no signature follows the
    /// error).
    ///
    /// ```
    /// use xla_layout_hlo::{Event, Reader};
    /// let text = "ENTRY e {\n  a = f32[2]{0} parameter(0)\n  b = f32[2]{0} 7 oops\n  ROOT c = f32[2]{0} negate(a)\n}\n";
    /// let (mut names, mut errors) = (Vec::new(), Vec::new());
    /// for event in Reader::lenient(text) {
    ///     match event {
    ///         Ok(Event::Instruction(i)) => names.push(i.name()),
    ///         Ok(_) => {}
    ///         Err(e) => errors.push(e.line_column(text)),
    ///     }
    /// }
    /// assert_eq!(names, ["a", "c"]);
    /// assert_eq!(errors, [(3, 17)]);
    /// ```
    pub fn lenient(src: &'a str) -> Reader<'a> {
        Reader {
            lenient: true,
            ..Reader::new(src)
        }
    }

    /// After an error at `at`: on to the start of the next line, where the
    /// next instruction (or the computation's `}`) begins; `false` at the
    /// end of the text.
    fn resume_after(&mut self, at: usize) -> bool {
        let bytes = self.src.as_bytes();
        let Some(newline) = bytes
            .get(at..)
            .and_then(|rest| rest.iter().position(|&b| b == b'\n'))
        else {
            return false;
        };
        self.lexer = Lexer::at(bytes, at + newline + 1);
        self.tok = self.lexer.next_token();
        self.current = NO_SHAPE;
        self.tok.kind != K::Eof
    }

    /// After a computation's header (`(is_entry, name)`, the name if it
    /// was read) did not read, with the reader on the next line:
    ///
    /// * a line that is an instruction's (`name = …`, `ROOT name = …`),
    ///   after a `}` that ended the computation early (a stray `}` line, or
    ///   one inside a damaged line): it is read as one, and instructions
    ///   follow, as before the `}`, when that computation had no `ROOT`
    ///   yet; after one that had (its header line lost, so its name too),
    ///   or before any, they follow in a computation named `""`;
    /// * a header that opens a body (ends with `{`), or whose name was read
    ///   and whose next line is an instruction's: its instructions follow,
    ///   under its name (with no name read, under a computation named
    ///   `""`, as when the header line is lost, when instructions follow;
    ///   else the body is skipped to its closing `}` or the next header);
    /// * any other line (a stray line between computations): skipped,
    ///   with the lines after it, to the next header.
    fn resume_after_header(&mut self, (is_entry, name): (bool, Option<&'a str>)) {
        // In bytes: a token may start inside a character (the lexer reads
        // bytes), where a `str` cannot be cut.
        let bytes = self.src.as_bytes();
        let (line_start, line_end) = line_around(bytes, self.item_start);
        if is_instruction_line(&bytes[line_start..line_end]) {
            // Read again as the instruction it is, when the failed header
            // began the line (after a `}` inside it, the line was read
            // once already: on at the next).
            if bytes[line_start..self.item_start].trim_ascii().is_empty() {
                self.lexer = Lexer::at(bytes, line_start);
                self.tok = self.lexer.next_token();
            }
            // After a computation that had its `ROOT` (or before any), and
            // with a `ROOT` of their own before their block ends, these are
            // another computation's, whose header is lost: they go under
            // one with no name, not the one before. (Without a `ROOT` of
            // their own, a stray `}` cut the one before after its `ROOT`.)
            if self.between_whole && block_has_root(bytes, line_start) {
                let at = ByteSpan {
                    start: line_start,
                    end: line_start,
                };
                self.pending = Some(Event::Computation(Computation::new("", false, "", at)));
            }
            return;
        }
        let (_, next_end) = line_around(bytes, self.tok.start);
        let next_is_instruction = self.tok.kind != K::Eof
            && is_instruction_line(&bytes[self.tok.start.min(next_end)..next_end]);
        let opens = opens_body(&bytes[self.item_start..line_end]);
        if !(opens || name.is_some() && next_is_instruction) {
            // Between computations only headers belong: the lines up to
            // the next one are this one error's.
            self.state = State::Computations;
            self.resume_at_computation();
            return;
        }
        let span = ByteSpan {
            start: self.item_start,
            end: line_end,
        };
        match name {
            Some(name) => {
                self.pending = Some(Event::Computation(Computation::new(
                    name, is_entry, "", span,
                )));
            }
            // Its name lost (`ENTRY 123 (…)`, `ROOT ENTRY %main …`) and
            // instructions next: they follow in a computation with no
            // name, as those of a header line lost whole do.
            None if next_is_instruction => {
                self.pending = Some(Event::Computation(Computation::new("", is_entry, "", span)));
            }
            None => loop {
                // Anything else (a stray `{` line before a header): on
                // after the first line that starts with `}`, or to a line
                // that opens another computation.
                let (_, end) = line_around(bytes, self.tok.start);
                if opens_body(&bytes[self.tok.start.min(end)..end]) {
                    self.state = State::Computations;
                    return;
                }
                let close = self.tok.kind == K::Rbrace && self.at_line_start();
                if !self.resume_after(self.tok.start) {
                    self.state = State::Done;
                    return;
                }
                if close {
                    self.state = State::Computations;
                    return;
                }
            },
        }
    }

    /// After an instruction did not read: when its line is a computation's
    /// header (the `}` before it lost), the line is read again as one, so
    /// that the computation's instructions are its own, not the unclosed
    /// one's. (A header is not an instruction's line, so this does not
    /// turn back: see [`Reader::resume_after_header`].)
    fn reread_header(&mut self) {
        let bytes = self.src.as_bytes();
        let (line_start, line_end) = line_around(bytes, self.item_start);
        let line = &bytes[line_start..line_end];
        if bytes[line_start..self.item_start].trim_ascii().is_empty()
            && opens_body(line)
            && !is_instruction_line(line)
        {
            self.lexer = Lexer::at(bytes, line_start);
            self.tok = self.lexer.next_token();
            self.state = State::Computations;
        }
    }

    /// After the stack-frame tables or a line between computations did
    /// not read: on to the first line that opens a computation (ends with
    /// `{`), not through every later line as would-be headers, an error
    /// each.
    fn resume_at_computation(&mut self) {
        loop {
            let at = self.tok.start;
            let (_, line_end) = line_around(self.src.as_bytes(), at);
            if opens_body(&self.src.as_bytes()[at..line_end]) {
                return;
            }
            if !self.resume_after(at) {
                self.state = State::Done;
                return;
            }
        }
    }

    /// The parsed shape of the last [`Event::Instruction`] (`token[]`
    /// before any, or when that instruction's shape was omitted); `None`
    /// for a shape whose text is longer than [`LARGE_SHAPE_TEXT`] bytes,
    /// which is checked but not built, so that memory stays proportional
    /// to the text (read its text with
    /// [`xla_layout_core::text::parse_shape_events`]).
    ///
    /// ```
    /// # use xla_layout_hlo::Reader;
    /// let mut reader = Reader::new("ENTRY e {\n  a = f32[2]{0} parameter(0)\n  ROOT b = copy(a)\n}");
    /// reader.next(); // the computation
    /// reader.next(); // a
    /// assert_eq!(reader.shape().unwrap().to_string(), "f32[2]{0}");
    /// reader.next(); // b, whose shape is left out
    /// assert_eq!(reader.shape().unwrap().to_string(), "token[]");
    /// ```
    pub fn shape(&self) -> Option<&Shape> {
        (self.current != NOT_KEPT).then(|| self.shapes.shape(self.current))
    }

    fn lex(&mut self) -> Token {
        let t = self.tok;
        self.tok = self.lexer.next_token();
        t
    }

    fn text(&self, start: usize, end: usize) -> &'a str {
        // Token boundaries fall on ASCII bytes, so slicing cannot split a
        // character; `get` keeps that a non-panicking promise.
        self.src.get(start..end).unwrap_or("")
    }

    fn token_text(&self, t: Token) -> &'a str {
        let bytes = t.text(self.src.as_bytes());
        let start = bytes.as_ptr() as usize - self.src.as_ptr() as usize;
        self.text(start, start + bytes.len())
    }

    fn expected<T>(&self, what: &'static str) -> Step<T> {
        Err(HloError {
            span: span(self.tok),
            kind: HloErrorKind::Expected {
                what,
                saw: self.tok.kind,
            },
        })
    }

    fn expect(&mut self, kind: K, what: &'static str) -> Step<Token> {
        if self.tok.kind == kind {
            Ok(self.lex())
        } else {
            self.expected(what)
        }
    }

    /// Skips the group opening at the current token; returns its span.
    fn group(&mut self) -> Step<ByteSpan> {
        let open = self.tok;
        match self.lexer.skip_group(open) {
            Ok(end) => {
                self.tok = self.lexer.next_token();
                Ok(ByteSpan {
                    start: open.start,
                    end,
                })
            }
            Err(e) => Err(HloError {
                // A bracket left open shows only lines later, at a closer
                // of another kind: point at the opener instead.
                span: match self.src.as_bytes().get(open.start..e.at().start) {
                    Some(between) if between.contains(&b'\n') => span(open),
                    _ => span(e.at()),
                },
                kind: match e {
                    GroupError::TooDeep(_) => HloErrorKind::NestedTooDeep {
                        limit: MAX_GROUP_DEPTH,
                    },
                    _ => HloErrorKind::Unbalanced,
                },
            }),
        }
    }

    /// A name: `%x`, or a bare identifier.
    fn name(&mut self, what: &'static str) -> Step<&'a str> {
        match self.tok.kind {
            K::Name | K::Ident => {
                let t = self.lex();
                Ok(self.token_text(t))
            }
            _ => self.expected(what),
        }
    }

    /// Parses the shape at the current token (or recognises it as one
    /// parsed before); returns its text.
    fn shape_here(&mut self) -> Step<&'a str> {
        let bytes = self.src.as_bytes();
        let start = self.tok.start;
        if let Some(text) = self.known_shape_before_space(start) {
            return Ok(text);
        }
        let extent = shape_extent(bytes, self.tok);
        if extent.is_some_and(|end| end - start > LARGE_SHAPE_TEXT) {
            return self.large_shape_here(start);
        }
        let text = extent.map(|end| self.text(start, end));
        let slot = match self.shapes.find(text) {
            Ok(hit) => return Ok(self.resume_after_shape(hit, start, extent.unwrap_or(start))),
            Err(slot) => slot,
        };
        match parse_shape_into(bytes, start, self.shapes.shape_mut(slot)) {
            Ok(ShapeEnd { end, next }) => {
                if extent == Some(end)
                    && let Some(text) = text
                {
                    self.shapes.remember(slot, text);
                }
                self.current = slot;
                self.lexer = Lexer::at(bytes, next.end);
                self.tok = next;
                Ok(self.text(start, end))
            }
            Err(e) => {
                self.current = NO_SHAPE;
                Err(shape_error(e))
            }
        }
    }

    /// [`Reader::shape_here`] for a large shape: checked, not built.
    fn large_shape_here(&mut self, start: usize) -> Step<&'a str> {
        let bytes = self.src.as_bytes();
        match parse_shape_events_at(bytes, start, |_| {}) {
            Ok(ShapeEnd { end, next }) => {
                self.current = NOT_KEPT;
                self.lexer = Lexer::at(bytes, next.end);
                self.tok = next;
                Ok(self.text(start, end))
            }
            Err(e) => {
                self.current = NO_SHAPE;
                Err(shape_error(e))
            }
        }
    }

    /// The quick way to recognise a shape parsed before: the text up to the
    /// next whitespace, when it is a remembered shape and what follows
    /// cannot extend it. A remembered text is a whole shape the parser
    /// consumed exactly, so the same bytes parse the same way; the only
    /// way text after a shape joins it is a layout (`{`), and a comment
    /// could hide one, so a `{` or `/` next sends the shape the slow way.
    /// Remembered texts are at most [`memo::MAX_TEXT`] bytes, so the look
    /// stops there: text with no space that far cannot be one (and many
    /// instructions on one line cost no more than on lines of their own).
    fn known_shape_before_space(&mut self, start: usize) -> Option<&'a str> {
        let bytes = self.src.as_bytes();
        let is_space = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
        let rest = bytes.get(start..)?;
        let window = &rest[..rest.len().min(memo::MAX_TEXT + 1)];
        let end = start
            + match window.iter().position(is_space) {
                Some(len) => len,
                None if rest.len() <= memo::MAX_TEXT => rest.len(),
                None => return None,
            };
        let next = bytes[end..].iter().find(|b| !is_space(b));
        if end == start || matches!(next, Some(b'{' | b'/')) {
            return None;
        }
        let slot = self.shapes.find(Some(self.text(start, end))).ok()?;
        Some(self.resume_after_shape(slot, start, end))
    }

    /// Makes remembered `slot` the current shape, which spans `start..end`,
    /// and moves past it.
    fn resume_after_shape(&mut self, slot: usize, start: usize, end: usize) -> &'a str {
        self.current = slot;
        self.lexer = Lexer::at(self.src.as_bytes(), end);
        self.tok = self.lexer.next_token();
        self.text(start, end)
    }

    /// `(, attr=value)*`; returns the span from the first name to the end
    /// of the last value, `None` when there are none.
    fn attributes(&mut self) -> Step<Option<ByteSpan>> {
        let mut span: Option<ByteSpan> = None;
        while self.tok.kind == K::Comma {
            self.lex();
            if self.tok.kind != K::AttributeName {
                return self.expected("an attribute name followed by '='");
            }
            let name = self.lex();
            // A value missing at a line's end: the next line's
            // instruction (or the computation's `}`) is not taken for it.
            if self.next_line_starts_item(name.end) {
                return self.expected("an attribute value");
            }
            let value = self.value()?;
            span = Some(ByteSpan {
                start: span.map_or(name.start, |s| s.start),
                end: value.end,
            });
        }
        Ok(span)
    }

    /// Whether the current token starts an instruction: `ROOT`, `name=`,
    /// or a name followed by `=` (on the same line or the next).
    fn starts_instruction(&self) -> bool {
        match self.tok.kind {
            K::KwRoot | K::AttributeName => true,
            K::Name | K::Ident => self.lexer.look_ahead().kind == K::Equal,
            _ => false,
        }
    }

    /// Whether the current token is on a later line than `end` and starts
    /// an instruction: an item of its own, not the rest of what ends at
    /// `end`.
    fn next_line_starts_item(&self, end: usize) -> bool {
        let gap = self.src.as_bytes().get(end..self.tok.start).unwrap_or(&[]);
        gap.contains(&b'\n') && self.starts_instruction()
    }

    /// Whether the instruction just read, from `start` to `end` over more
    /// than one line, took its computation's `}` for a block of its own:
    /// what follows it is neither an instruction's start nor a `}` (another
    /// computation's header, or the text's end), as after a stray `{` at a
    /// line's end, whose block then closed at the computation's `}`. The
    /// instructions it took are read again (it fails, and a lenient read
    /// resumes on its next line). A valid instruction over several lines
    /// (a literal, an inline block) is followed by one of those two.
    fn took_the_closing_brace(&self, start: usize, end: usize) -> bool {
        let bytes = self.src.as_bytes();
        if !bytes[start..end].contains(&b'\n') {
            return false;
        }
        // By tokens, not lines: `ROOT` may stand alone on its line, and an
        // instruction's `=` on the next.
        self.tok.kind != K::Rbrace && !self.starts_instruction()
    }

    /// Whether the current token (after a value's part ending at `end`)
    /// continues the value: anything on the same line but a comma, a
    /// closer, and what starts an instruction (`%x` after a blank, `x =`,
    /// `x=`, `ROOT`). So
    /// `mesh['axis_0'=2] {'axis_0'}` and `literal=f32[] 0.1` are one value
    /// each, spaces and all.
    fn value_goes_on(&self, end: usize) -> bool {
        // A value ends with its line (outside brackets, which the groups
        // took whole): what follows on the next line is the next item.
        let gap = self.src.as_bytes().get(end..self.tok.start).unwrap_or(&[]);
        if gap.contains(&b'\n') {
            return false;
        }
        // What starts an instruction ends the value even with no blank
        // before it (`sharding={replicated}%b = …`, `index=1n = …`, which
        // XLA's parser reads as two items): `ROOT`, `name =`, `name=`.
        if self.starts_instruction() {
            return false;
        }
        match self.tok.kind {
            K::Eof | K::Comma | K::Rbrace | K::Rparen | K::Rsquare | K::KwEntry => false,
            K::Name => self.tok.start == end,
            K::PrimitiveType => self.lexer.look_ahead().kind != K::Equal,
            _ => true,
        }
    }

    /// An attribute value, kept as text whatever its form: tokens and
    /// bracketed groups up to the next attribute or instruction (see
    /// [`Reader::value_goes_on`]).
    fn value(&mut self) -> Step<ByteSpan> {
        let start = self.tok.start;
        let mut end;
        match self.tok.kind {
            K::Eof | K::Error | K::Comma | K::Rbrace | K::Rparen | K::Rsquare => {
                return self.expected("an attribute value");
            }
            _ => {}
        }
        loop {
            end = match self.tok.kind {
                K::Lbrace | K::Lparen | K::Lsquare => self.group()?.end,
                K::Error => return self.expected("an attribute value"),
                _ => self.lex().end,
            };
            if !self.value_goes_on(end) {
                return Ok(ByteSpan { start, end });
            }
        }
    }

    /// `HloModule name (, attr=value)*`.
    fn module_header(&mut self) -> Step<Event<'a>> {
        self.lex();
        let name = self.name("the module's name")?;
        let attributes = self.attributes()?.map_or("", |a| self.text(a.start, a.end));
        Ok(Event::Module { name, attributes })
    }

    /// `INT "text"` entries (FileNames, FunctionNames).
    fn string_table(&mut self) -> Step<Vec<&'a str>> {
        let mut out = Vec::new();
        while self.tok.kind == K::Int {
            self.lex();
            let t = self.expect(K::String, "a quoted string")?;
            let text = self.token_text(t);
            // One entry a line, as XLA writes them: a string that runs
            // over lines was left open (and would take the module after
            // it for its text).
            if text.contains('\n') {
                return Err(HloError {
                    span: span(t),
                    kind: HloErrorKind::Unbalanced,
                });
            }
            out.push(text);
        }
        Ok(out)
    }

    /// `INT {key=INT …}` entries, each handed to `set` as (key, value).
    fn record_table<T: Default>(&mut self, mut set: impl FnMut(&mut T, &str, i64)) -> Step<Vec<T>> {
        let mut out = Vec::new();
        while self.tok.kind == K::Int {
            self.lex();
            self.expect(K::Lbrace, "'{'")?;
            let mut record = T::default();
            while self.tok.kind != K::Rbrace {
                if self.tok.kind == K::Comma {
                    self.lex();
                }
                let key = self.expect(K::AttributeName, "a field name followed by '='")?;
                let key = self.token_text(key);
                let value = self.expect(K::Int, "an integer")?;
                set(&mut record, key, value.int);
            }
            self.lex();
            out.push(record);
        }
        Ok(out)
    }

    /// The stack-frame tables, each optional, and any table this reader
    /// does not model (skipped: a newer XLA may add one).
    fn stack_index(&mut self) -> Step<Event<'a>> {
        let mut index = StackIndex::default();
        loop {
            match self.tok.kind {
                K::KwFileNames => {
                    self.lex();
                    index.file_names = self.string_table()?;
                }
                K::KwFunctionNames => {
                    self.lex();
                    index.function_names = self.string_table()?;
                }
                K::KwFileLocations => {
                    self.lex();
                    index.file_locations = self.record_table(FileLocation::set)?;
                }
                K::KwStackFrames => {
                    self.lex();
                    index.stack_frames = self.record_table(StackFrame::set)?;
                }
                _ if self.unknown_table_here() => self.skip_table()?,
                _ => return Ok(Event::StackIndex(index)),
            }
        }
    }

    /// Whether a table this reader does not model starts here: a
    /// capitalised word, then lines that start with an integer, as XLA
    /// writes `FileNames` … `StackFrames`. (A computation's name is
    /// followed by `(` or `{`, never by an integer.)
    fn unknown_table_here(&self) -> bool {
        let mut ahead = self.lexer;
        self.tok.kind == K::Ident
            && self
                .token_text(self.tok)
                .starts_with(|c: char| c.is_ascii_uppercase())
            && ahead.next_token().kind == K::Int
    }

    /// Skips the table [`Reader::unknown_table_here`] found: its name,
    /// then each line that starts with an integer, whole (a `{…}` record
    /// may span lines).
    fn skip_table(&mut self) -> Step<()> {
        self.lex();
        while self.tok.kind == K::Int && self.at_line_start() {
            self.lex();
            while !self.at_line_start() && self.tok.kind != K::Eof {
                match self.tok.kind {
                    K::Lbrace | K::Lparen | K::Lsquare => {
                        self.group()?;
                    }
                    _ => {
                        self.lex();
                    }
                }
            }
        }
        Ok(())
    }

    /// Whether the current token is the first of its line.
    fn at_line_start(&self) -> bool {
        let before = self.src.as_bytes().get(..self.tok.start).unwrap_or(&[]);
        before
            .iter()
            .rev()
            .find(|&&c| c != b' ' && c != b'\t' && c != b'\r')
            .is_none_or(|&c| c == b'\n')
    }

    /// `ENTRY? name (params) -> shape {`.
    fn computation(&mut self) -> Step<Event<'a>> {
        let start = self.tok.start;
        let is_entry = self.tok.kind == K::KwEntry;
        self.header = Some((false, None));
        // An instruction's line where a header belongs: said as such (the
        // header before it lost, or its computation closed early). Only a
        // header that begins its line is looked at, found by looking back
        // over blanks alone: many headers on one line cost no more.
        let bytes = self.src.as_bytes();
        let blanks = bytes[..start]
            .iter()
            .rev()
            .take_while(|&&b| matches!(b, b' ' | b'\t' | b'\r'))
            .count();
        let line_start = start - blanks;
        if !is_entry && (line_start == 0 || bytes[line_start - 1] == b'\n') {
            let (_, line_end) = line_around(bytes, start);
            if is_instruction_line(&bytes[line_start..line_end]) {
                return Err(HloError {
                    span: ByteSpan {
                        start,
                        end: line_end,
                    },
                    kind: HloErrorKind::InstructionOutsideComputation,
                });
            }
        }
        if is_entry {
            if self.seen_entry {
                let at = span(self.lex());
                // Its name, when there is one, keeps its body together
                // under it (as any other computation's whose header does
                // not read: `resume_after_header`).
                if matches!(self.tok.kind, K::Name | K::Ident) {
                    let t = self.lex();
                    self.header = Some((false, Some(self.token_text(t))));
                }
                return Err(HloError {
                    span: at,
                    kind: HloErrorKind::SecondEntry,
                });
            }
            self.seen_entry = true;
            self.lex();
            // Marked ENTRY even when its name does not read.
            self.header = Some((true, None));
        }
        let name = self.name("a computation name")?;
        self.header = Some((is_entry, Some(name)));
        let mut signature = "";
        if self.tok.kind == K::Lparen {
            let params = self.group()?;
            self.expect(K::Arrow, "'->' after the parameters")?;
            let result = self.shape_here()?;
            let end = result.as_ptr() as usize - self.src.as_ptr() as usize + result.len();
            signature = self.text(params.start, end);
        }
        self.expect(K::Lbrace, "'{' to open the computation")?;
        self.header = None;
        Ok(Event::Computation(Computation::new(
            name,
            is_entry,
            signature,
            ByteSpan {
                start,
                end: self.tok.start,
            },
        )))
    }

    /// `ROOT? name = shape? opcode(operands) (, attr=value)*`.
    fn instruction(&mut self) -> Step<Event<'a>> {
        let start = self.tok.start;
        let is_root = self.tok.kind == K::KwRoot;
        if is_root {
            self.root_seen = true;
            self.lex();
        }
        let name = match self.tok.kind {
            // `name=` with no space lexes as one token.
            K::AttributeName => {
                let t = self.lex();
                self.token_text(t)
            }
            _ => {
                let n = self.name("an instruction name")?;
                self.expect(K::Equal, "'=' after the instruction name")?;
                n
            }
        };
        let starts_shape = match self.tok.kind {
            K::PrimitiveType | K::Lparen => true,
            K::Ident => {
                self.token_text(self.tok) == "b" && self.lexer.look_ahead().kind == K::Lparen
            }
            _ => false,
        };
        let shape = if starts_shape {
            Some(self.shape_here()?)
        } else {
            self.current = NO_SHAPE;
            None
        };
        if self.tok.kind != K::Ident {
            return self.expected("an opcode");
        }
        let opcode_token = self.lex();
        let opcode = self.token_text(opcode_token);
        if self.tok.kind != K::Lparen {
            // `bf61[8]`: a shape whose type is no type, not an opcode.
            if self.tok.kind == K::Lsquare
                && let Err(e) = opcode.parse::<xla_layout_core::ElementType>()
            {
                return Err(HloError {
                    span: span(opcode_token),
                    kind: HloErrorKind::UnknownElementType(e),
                });
            }
            return self.expected("'(' after the opcode");
        }
        let operands = self.group()?;
        let attributes = self.attributes()?;
        let end = attributes.map_or(operands.end, |a| a.end);
        // A bracket left open that closes on a later line took the
        // instructions between for its text (XLA fails there too). They
        // are not lost in silence: this one fails, and a lenient read
        // resumes on its next line.
        if runs_into_next_line(self.src.as_bytes(), start, end)
            || self.took_the_closing_brace(start, end)
        {
            let (_, line_end) = line_around(self.src.as_bytes(), start);
            return Err(HloError {
                span: ByteSpan {
                    start,
                    end: line_end,
                },
                kind: HloErrorKind::Unbalanced,
            });
        }
        let attributes = attributes.unwrap_or(ByteSpan { start: end, end });
        let span = ByteSpan { start, end };
        let operands = ByteSpan {
            start: operands.start + 1,
            end: operands.end - 1,
        };
        match Instruction::new(
            self.src, name, is_root, shape, opcode, operands, attributes, span,
        ) {
            Some(i) => Ok(Event::Instruction(i)),
            None => Err(HloError {
                span,
                kind: HloErrorKind::InstructionTooLong,
            }),
        }
    }

    /// `}` and an optional `, execution_thread="…"`.
    fn end_computation(&mut self) -> Step<Event<'a>> {
        self.lex();
        let mut execution_thread = None;
        if self.tok.kind == K::Comma && self.lexer.look_ahead().kind == K::AttributeName {
            self.lex();
            let key = self.lex();
            if self.token_text(key) != "execution_thread" {
                return Err(HloError {
                    span: span(key),
                    kind: HloErrorKind::Expected {
                        what: "execution_thread=",
                        saw: key.kind,
                    },
                });
            }
            let t = self.expect(K::String, "a quoted thread name")?;
            execution_thread = Some(self.token_text(t));
        }
        Ok(Event::EndComputation { execution_thread })
    }

    /// Keeps [`Reader::root_seen`] and [`Reader::between_whole`] with the
    /// events given.
    fn note(&mut self, event: &Event<'a>) {
        match event {
            Event::Computation(_) => (self.root_seen, self.between_whole) = (false, false),
            Event::EndComputation { .. } => self.between_whole = self.root_seen,
            _ => {}
        }
    }

    fn step(&mut self) -> Step<Option<Event<'a>>> {
        loop {
            self.item_start = self.tok.start;
            match self.state {
                State::Start => {
                    self.state = State::Sections;
                    if self.tok.kind == K::KwHloModule {
                        return self.module_header().map(Some);
                    }
                }
                State::Sections => {
                    self.state = State::Computations;
                    if matches!(
                        self.tok.kind,
                        K::KwFileNames | K::KwFunctionNames | K::KwFileLocations | K::KwStackFrames
                    ) || self.unknown_table_here()
                    {
                        // Cleared when they read; an error leaves it for
                        // `next` to resume after them.
                        self.in_tables = true;
                        let index = self.stack_index();
                        if index.is_ok() {
                            self.in_tables = false;
                        }
                        return index.map(Some);
                    }
                }
                State::Computations => {
                    if self.tok.kind == K::Eof {
                        self.state = State::Done;
                        return Ok(None);
                    }
                    self.state = State::Instructions;
                    return self.computation().map(Some);
                }
                State::Instructions => {
                    if self.tok.kind == K::Rbrace {
                        self.state = State::Computations;
                        return self.end_computation().map(Some);
                    }
                    return self.instruction().map(Some);
                }
                State::Done => return Ok(None),
            }
        }
    }
}

impl<'a> Iterator for Reader<'a> {
    type Item = Result<Event<'a>, HloError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(event) = self.pending.take() {
            self.note(&event);
            return Some(self.counted(event));
        }
        if self.state == State::Done {
            return None;
        }
        match self.step() {
            Ok(event) => {
                if let Some(event) = &event {
                    self.note(event);
                }
                event.map(|e| self.counted(e))
            }
            Err(e) => {
                // Resume on the line after the item that failed (not
                // after the error: an unclosed bracket can reach far
                // ahead). Every resumption is on a later line, so reading
                // ends.
                let header = self.header.take();
                let in_tables = core::mem::take(&mut self.in_tables);
                if !(self.lenient && self.resume_after(self.item_start)) {
                    self.state = State::Done;
                } else if let Some(header) = header {
                    self.resume_after_header(header);
                } else if in_tables {
                    self.resume_at_computation();
                } else if self.state == State::Instructions {
                    self.reread_header();
                }
                Some(Err(e))
            }
        }
    }
}

/// The line around byte `at`: where it starts and where it ends (its
/// `\n`, or the text's end).
fn line_around(bytes: &[u8], at: usize) -> (usize, usize) {
    let at = at.min(bytes.len());
    let start = bytes[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let end = bytes[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |i| at + i);
    (start, end)
}

/// Whether a line is an instruction's: `name =` (or `ROOT name =`) first,
/// which no header is (`ENTRY? name (…) -> … {`).
fn is_instruction_line(line: &[u8]) -> bool {
    defined_name(line).is_some()
}

/// The name an instruction's line defines, as written (`%name` keeps its
/// `%`): `name =` (or `ROOT name =`) first, which no header is (`ENTRY?
/// name (…) -> … {`); `None` for any other line. It reads the line's start
/// only, so it works on a line that does not read as a whole.
///
/// ```
/// use xla_layout_hlo::defined_name;
/// assert_eq!(defined_name(b"  ROOT %copy.1 = f32[2]{0} copy(p)"), Some(&b"%copy.1"[..]));
/// assert_eq!(defined_name(b"x = f32[2]{0} nonsense((("), Some(&b"x"[..]));
/// assert_eq!(defined_name(b"ENTRY main (p: f32[2]) -> f32[2] {"), None);
/// assert_eq!(defined_name(b"    %add,dimensions={0}"), None); // a value's rest
/// ```
pub fn defined_name(line: &[u8]) -> Option<&[u8]> {
    let mut rest = line.trim_ascii_start();
    if let Some(after) = rest.strip_prefix(b"ROOT")
        && after.first().is_some_and(u8::is_ascii_whitespace)
    {
        rest = after.trim_ascii_start();
    }
    // A name's characters (XLA's `[%]?[A-Za-z0-9_.-]+`): `%add,dimensions=`
    // is a value and an attribute, not a name defined.
    let name = rest
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'%' | b'_' | b'.' | b'-')))
        .unwrap_or(rest.len());
    (name > 0 && rest[name..].trim_ascii_start().starts_with(b"=")).then(|| &rest[..name])
}

/// Whether the text from `start` to `end` (an instruction, read) goes on,
/// inside a string or a bracket left open, past a line that a dump writes
/// as an instruction of its own (`%name =`, `ROOT name =`) or as a
/// computation's end (`}`). A `{` that ends its line opens a block whose
/// lines may look so (an inline computation's, a literal's) and belong.
fn runs_into_next_line(bytes: &[u8], start: usize, end: usize) -> bool {
    let text = &bytes[start..end];
    // Nearly every instruction is one line: nothing to walk (this runs
    // on every instruction read).
    if !text.contains(&b'\n') {
        return false;
    }
    // Open brackets: the bracket, and for `{` whether it ends its line.
    let mut open: Vec<(u8, bool)> = Vec::new();
    let (mut in_string, mut escaped) = (false, false);
    for (k, &b) in text.iter().enumerate() {
        if in_string && b != b'\n' {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'(' | b'[' => open.push((b, false)),
            b'{' => {
                // Whether only blanks follow on its line: looking past the
                // blanks alone keeps the whole walk linear (each run of
                // blanks is looked at once, after the `{` before it).
                let next = text[k + 1..]
                    .iter()
                    .find(|&&c| !matches!(c, b' ' | b'\t' | b'\r' | b'\x0C'));
                open.push((b, matches!(next, None | Some(b'\n'))));
            }
            b')' | b']' | b'}' => {
                open.pop();
            }
            b'\n' if in_string || !matches!(open.last(), None | Some((b'{', true))) => {
                let line_start = start + k + 1;
                let (_, line_end) = line_around(bytes, line_start);
                let line = bytes[line_start..line_end].trim_ascii();
                // A `}` alone closes the computation, unless an
                // instruction follows it: then it closed a value written
                // over lines (`sharding={replicated⏎}`), as XLA reads it.
                let closes = line == b"}" && {
                    let (_, after) = line_around(bytes, (line_end + 1).min(bytes.len()));
                    let next = bytes[(line_end + 1).min(after)..after].trim_ascii();
                    !is_instruction_line(next)
                };
                if closes
                    || (line.starts_with(b"%") || line.starts_with(b"ROOT "))
                        && is_instruction_line(line)
                {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

/// Whether the lines from `from` hold a `ROOT` instruction before their
/// block ends (at a line that starts with `}`, a header's line, or the
/// text's end): the body of a computation whose header line is lost has
/// one, as XLA writes every body with its `ROOT`.
fn block_has_root(bytes: &[u8], from: usize) -> bool {
    let mut at = from;
    while at < bytes.len() {
        let end = bytes[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |i| at + i);
        let line = bytes[at..end].trim_ascii();
        let instruction = is_instruction_line(line);
        if line.starts_with(b"}") || opens_body(line) && !instruction {
            return false;
        }
        if instruction && line.starts_with(b"ROOT") {
            return true;
        }
        at = end + 1;
    }
    false
}

/// Whether a line (or its rest) opens a computation's body: it ends with
/// `{`, as XLA prints every header.
fn opens_body(line: &[u8]) -> bool {
    line.trim_ascii_end().ends_with(b"{")
}

fn span(t: Token) -> ByteSpan {
    ByteSpan {
        start: t.start,
        end: t.end,
    }
}

/// A shape's parse error, at its place in the module.
fn shape_error(e: ParseError) -> HloError {
    let at = e.span();
    HloError {
        span: ByteSpan {
            start: at.start,
            end: at.end,
        },
        kind: HloErrorKind::Shape(Box::new(e)),
    }
}
