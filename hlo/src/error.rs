//! Errors of the HLO reader, with their place in the text, and of looking
//! an instruction up by name.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use xla_layout_core::text::{ByteSpan, LineCursor, ParseError, TokenKind};

/// What is wrong with HLO text.
///
/// ```
/// use xla_layout_hlo::{HloErrorKind, Module};
/// use xla_layout_core::text::TokenKind;
///
/// let kind = |text| Module::parse(text).unwrap_err().kind;
/// assert_eq!(
///     kind("ENTRY e {\n  x f32[] parameter(0)\n}"),
///     HloErrorKind::Expected { what: "'=' after the instruction name", saw: TokenKind::PrimitiveType }
/// );
/// assert!(matches!(kind("ENTRY e {\n  x = f32[2}] parameter(0)\n}"), HloErrorKind::Shape(_)));
/// assert_eq!(kind("ENTRY e {\n  x = f32[] parameter(0\n}"), HloErrorKind::Unbalanced);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HloErrorKind {
    /// A token other than the grammar allows here.
    Expected {
        /// What the grammar wanted, in words.
        what: &'static str,
        /// What the text has.
        saw: TokenKind,
    },
    /// A shape does not parse (the shape grammar's own error).
    Shape(Box<ParseError>),
    /// A bracket with no matching closer, a closer of the wrong kind, an
    /// unterminated string or comment.
    Unbalanced,
    /// Brackets nested deeper than the reader follows.
    NestedTooDeep {
        /// The deepest nesting followed.
        limit: usize,
    },
    /// A second `ENTRY` computation.
    SecondEntry,
    /// An instruction over 4 GiB long (instructions keep 32-bit offsets).
    InstructionTooLong,
    /// A computation or instruction past the first `limit` of them in one
    /// module (`u32::MAX - 1`: the analyses number them with 32 bits).
    /// Reading ends there, leniently too; the module has what came
    /// before.
    ModuleTooLarge {
        /// How many computations and instructions, together, a module
        /// may have.
        limit: u32,
    },
    /// An instruction's line where a computation's header belongs:
    /// between computations, or before the first. Its header line is
    /// lost, or a stray `}` closed its computation early; read leniently,
    /// it goes on in the computation before when that one had no `ROOT`
    /// yet, else in a computation of its own with no name.
    InstructionOutsideComputation,
    /// A name followed by `[` where a shape or an opcode goes: a shape
    /// whose element type XLA does not know (`bf61[8]`), with the type it
    /// likely means.
    UnknownElementType(xla_layout_core::UnknownElementType),
}

/// An error of the HLO reader: what, and where (byte offsets into the
/// module text; [`HloError::line_column`] turns them into a position).
///
/// ```
/// use xla_layout_hlo::Module;
///
/// let text = "HloModule m\nENTRY e {\n  ROOT x = f32[2]{0} negate(y\n}\n";
/// let err = Module::parse(text).unwrap_err();
/// assert_eq!(err.line_column(text), (3, 28)); // the `(` left open (`}` on line 4 cannot close it)
/// assert_eq!(err.to_string(), "a bracket, string or comment is not closed, or closed by the wrong bracket");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HloError {
    /// Where.
    pub span: ByteSpan,
    /// What.
    pub kind: HloErrorKind,
}

impl HloError {
    /// The 1-based line and column (in bytes) where the error starts.
    ///
    /// ```
    /// # use xla_layout_hlo::{HloError, HloErrorKind};
    /// # use xla_layout_core::text::ByteSpan;
    /// let e = HloError { span: ByteSpan { start: 4, end: 5 }, kind: HloErrorKind::SecondEntry };
    /// assert_eq!(e.line_column("ab\ncdef"), (2, 2));
    /// ```
    pub fn line_column(&self, src: &str) -> (usize, usize) {
        self.span.line_column(src)
    }

    /// The error as a compiler prints one: `path:line:column: message`,
    /// the line of text (cut around the place when it is long), and a
    /// caret under the offending bytes ([`ByteSpan::render`]).
    ///
    /// ```
    /// use xla_layout_hlo::Module;
    /// let text = "HloModule m\nENTRY e {\n  ROOT x = f32[2]{0} 7\n}\n";
    /// let err = Module::parse(text).unwrap_err();
    /// assert_eq!(
    ///     err.render(text, "m.hlo"),
    ///     "m.hlo:3:22: expected an opcode, saw kInt\n  ROOT x = f32[2]{0} 7\n                     ^"
    /// );
    /// ```
    pub fn render(&self, src: &str, path: &str) -> String {
        self.span.render(src, path, self.message(src))
    }

    /// [`HloError::render`], the position found by `lines`: for the
    /// errors of [`Module::parse_lenient`](crate::Module::parse_lenient)
    /// or [`Reader::lenient`](crate::Reader::lenient), in order, in time
    /// linear in the text overall ([`HloError::render`] counts lines from
    /// the start each time: quadratic over an error on every line).
    ///
    /// ```
    /// use xla_layout_core::text::LineCursor;
    /// use xla_layout_hlo::Module;
    /// let text = "ENTRY e {\n  a = f32[2]{0 negate(x)\n  b = f32[2]{0 negate(x)\n}\n";
    /// let (_, errors) = Module::parse_lenient(text);
    /// let mut lines = LineCursor::new(text);
    /// for e in &errors {
    ///     assert_eq!(e.render_with(&mut lines, "m.hlo"), e.render(text, "m.hlo"));
    /// }
    /// assert_eq!(errors.len(), 2);
    /// ```
    pub fn render_with(&self, lines: &mut LineCursor<'_>, path: &str) -> String {
        // The text outlives the cursor's borrow: the message can quote it.
        let src = lines.source();
        self.span.render_with(lines, path, self.message(src))
    }

    /// `Display`'s text, with what a shape error quotes from `src` (the
    /// module's text): XLA prints the layout a `P(...)` is refused in.
    ///
    /// ```
    /// use xla_layout_hlo::Module;
    /// let text = "ENTRY e {\n  ROOT p = f32[4]{0:P(f32[4])} parameter(0)\n}\n";
    /// let e = Module::parse(text).unwrap_err();
    /// assert_eq!(
    ///     e.message(text).to_string(),
    ///     "bad shape: Layout has physical shape, but is not for a sparse array: {0:P(f32[4]{0})}"
    /// );
    /// // A type XLA does not know reads as a shape, not as an opcode.
    /// let text = "ENTRY e {\n  ROOT p = bf61[8]{0} parameter(0)\n}\n";
    /// let e = Module::parse(text).unwrap_err();
    /// assert_eq!(
    ///     e.message(text).to_string(),
    ///     "unknown element type `bf61`: not an XLA element type name; did you mean `bf16`?"
    /// );
    /// ```
    pub fn message<'a>(&'a self, src: &'a str) -> impl fmt::Display + 'a {
        fmt::from_fn(move |f| match &self.kind {
            HloErrorKind::Shape(e) => write!(f, "bad shape: {}", e.primary().message(src)),
            HloErrorKind::UnknownElementType(e) => {
                let name = src.get(self.span.start..self.span.end).unwrap_or("");
                write!(f, "unknown element type `{name}`: {e}")
            }
            _ => fmt::Display::fmt(self, f),
        })
    }
}

impl fmt::Display for HloError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            HloErrorKind::Expected { what, saw } => {
                // The lexer's names where they say something to a reader
                // (`kIdent`, `kLbrace`, as XLA's messages name them); the
                // end and an unreadable token in words.
                match saw {
                    TokenKind::Eof => write!(
                        f,
                        "expected {what}, saw the end of the text (is it cut short?)"
                    ),
                    TokenKind::Error => write!(
                        f,
                        "expected {what}, saw text the lexer does not read (a stray character, an \
                         unclosed string, a number past 64 bits)"
                    ),
                    _ => write!(f, "expected {what}, saw {}", saw.xla_name()),
                }
            }
            HloErrorKind::Shape(e) => write!(f, "bad shape: {}", e.kind()),
            HloErrorKind::UnknownElementType(e) => {
                write!(f, "a shape with an unknown element type: {e}")
            }
            HloErrorKind::Unbalanced => f.write_str(
                "a bracket, string or comment is not closed, or closed by the wrong bracket",
            ),
            HloErrorKind::NestedTooDeep { limit } => write!(
                f,
                "brackets are nested deeper than {limit} levels, more than this reader follows"
            ),
            HloErrorKind::SecondEntry => f.write_str("a module has at most one ENTRY computation"),
            HloErrorKind::InstructionTooLong => {
                f.write_str("an instruction is over 4 GiB long, more than this reader keeps")
            }
            HloErrorKind::ModuleTooLarge { limit } => write!(
                f,
                "the module has more than {limit} computations and instructions, more than \
                 this reader numbers; the rest is not read"
            ),
            HloErrorKind::InstructionOutsideComputation => f.write_str(
                "an instruction outside any computation (its computation's header line lost, \
                 or a stray '}' before it?)",
            ),
        }
    }
}

impl core::error::Error for HloError {}

/// Why [`Module::instruction`](crate::Module::instruction) found no single
/// instruction.
///
/// ```
/// use xla_layout_hlo::Module;
///
/// let m = Module::parse("a {\n ROOT x = f32[] parameter(0)\n}\nENTRY b {\n ROOT x = f32[] parameter(0)\n}").unwrap();
/// assert_eq!(
///     m.instruction("x").unwrap_err().to_string(),
///     "instructions of this name are in computations \"a\", \"b\"; write \"computation/name\""
/// );
/// assert_eq!(
///     m.instruction("y").unwrap_err().to_string(),
///     "no instruction has this name; the closest are \"x\""
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LookupError<'a> {
    /// No instruction has the name; the closest names, best first.
    NotFound {
        /// Up to five names within a few edits.
        closest: Vec<&'a str>,
    },
    /// Several computations have an instruction of that name; write
    /// `computation/name`.
    Ambiguous {
        /// The computations.
        computations: Vec<&'a str>,
    },
}

impl core::fmt::Display for LookupError<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::NotFound { closest } if closest.is_empty() => {
                f.write_str("no instruction has this name")
            }
            Self::NotFound { closest } => {
                f.write_str("no instruction has this name; the closest are ")?;
                write_list(f, closest)
            }
            Self::Ambiguous { computations } => {
                f.write_str("instructions of this name are in computations ")?;
                write_list(f, computations)?;
                f.write_str("; write \"computation/name\"")
            }
        }
    }
}

/// `"a", "b"`.
fn write_list(f: &mut core::fmt::Formatter<'_>, names: &[&str]) -> core::fmt::Result {
    for (k, n) in names.iter().enumerate() {
        if k > 0 {
            f.write_str(", ")?;
        }
        write!(f, "\"{n}\"")?;
    }
    Ok(())
}
