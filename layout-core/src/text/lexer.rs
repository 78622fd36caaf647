//! Text → tokens: XLA's HLO lexer (docs/xla-layouts.md §a.1), on bytes.
//!
//! This is the single lexer of the project: shapes, layouts and whole HLO
//! modules are all tokenised here. It mirrors `HloLexer` token for token,
//! including the patterns tried before an integer (floats, `2x3`, `1_2`,
//! convolution dim labels), because those decide which inputs XLA rejects
//! and what its messages say (`saw kDxD`). It never panics and always makes
//! progress: every token but [`TokenKind::Eof`] spans at least one byte.

use crate::ElementType;
use crate::element_type::{NAME_SLOTS, name_slot};

/// The kind of a token; [`TokenKind::xla_name`] gives XLA's spelling
/// (`kLbrace`, `kw_ENTRY`, …) used in parse messages.
///
/// ```
/// use xla_layout_core::text::{Lexer, TokenKind};
/// let mut lx = Lexer::new(b"ROOT %x = f32[]");
/// assert_eq!(lx.next_token().kind, TokenKind::KwRoot);
/// assert_eq!(lx.next_token().kind, TokenKind::Name);
/// assert_eq!(lx.next_token().kind.xla_name(), "kEqual");
/// ```
#[allow(missing_docs)] // each variant is documented by its XLA name
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TokenKind {
    Eof,
    Error,
    Equal,
    Comma,
    Colon,
    Asterisk,
    QuestionMark,
    Octothorp,
    Plus,
    Tilde,
    Lsquare,
    Rsquare,
    Lbrace,
    Rbrace,
    Lparen,
    Rparen,
    Arrow,
    Leq,
    KwHloModule,
    KwEntry,
    KwRoot,
    KwFileNames,
    KwFunctionNames,
    KwFileLocations,
    KwStackFrames,
    KwTrue,
    KwFalse,
    KwMaximal,
    KwReplicated,
    KwManual,
    KwLastTileDimReplicate,
    KwShardAs,
    KwShardLike,
    KwUnknown,
    KwUnreduced,
    KwInf,
    NegInf,
    PrimitiveType,
    Name,
    AttributeName,
    DimLabels,
    DxD,
    Pad,
    Ident,
    String,
    Int,
    Decimal,
    Dots,
}

impl TokenKind {
    /// How a punctuation token is written (`(`, `}`, `:`…); XLA's name
    /// ([`TokenKind::xla_name`]) for any other kind.
    ///
    /// ```
    /// # use xla_layout_core::text::TokenKind;
    /// assert_eq!(TokenKind::Rbrace.text(), "}");
    /// assert_eq!(TokenKind::Int.text(), "kInt");
    /// ```
    pub const fn text(self) -> &'static str {
        use TokenKind as K;
        match self {
            K::Lsquare => "[",
            K::Rsquare => "]",
            K::Lparen => "(",
            K::Rparen => ")",
            K::Lbrace => "{",
            K::Rbrace => "}",
            K::Colon => ":",
            K::Comma => ",",
            K::Equal => "=",
            K::Asterisk => "*",
            K::QuestionMark => "?",
            K::Octothorp => "#",
            K::Plus => "+",
            K::Tilde => "~",
            K::Arrow => "->",
            K::Leq => "<=",
            _ => self.xla_name(),
        }
    }

    /// XLA's name for the kind (`TokKindToString`).
    ///
    /// ```
    /// # use xla_layout_core::text::TokenKind;
    /// assert_eq!(TokenKind::Rbrace.xla_name(), "kRbrace");
    /// assert_eq!(TokenKind::KwEntry.xla_name(), "kw_ENTRY");
    /// ```
    pub const fn xla_name(self) -> &'static str {
        use TokenKind as K;
        match self {
            K::Eof => "kEof",
            K::Error => "kError",
            K::Equal => "kEqual",
            K::Comma => "kComma",
            K::Colon => "kColon",
            K::Asterisk => "kAsterisk",
            K::QuestionMark => "kQuestionMark",
            K::Octothorp => "kOctothorp",
            K::Plus => "kPlus",
            K::Tilde => "kTilde",
            K::Lsquare => "kLsquare",
            K::Rsquare => "kRsquare",
            K::Lbrace => "kLbrace",
            K::Rbrace => "kRbrace",
            K::Lparen => "kLparen",
            K::Rparen => "kRparen",
            K::Arrow => "kArrow",
            K::Leq => "kLeq",
            K::KwHloModule => "kw_HloModule",
            K::KwEntry => "kw_ENTRY",
            K::KwRoot => "kw_ROOT",
            K::KwFileNames => "kw_FileNames",
            K::KwFunctionNames => "kw_FunctionNames",
            K::KwFileLocations => "kw_FileLocations",
            K::KwStackFrames => "kw_StackFrames",
            K::KwTrue => "kw_true",
            K::KwFalse => "kw_false",
            K::KwMaximal => "kw_maximal",
            K::KwReplicated => "kw_replicated",
            K::KwManual => "kw_manual",
            K::KwLastTileDimReplicate => "kw_last_tile_dim_replicate",
            K::KwShardAs => "kw_shard_as",
            K::KwShardLike => "kw_shard_like",
            K::KwUnknown => "kw_unknown",
            K::KwUnreduced => "kw_unreduced",
            K::KwInf => "kw_inf",
            K::NegInf => "kNegInf",
            K::PrimitiveType => "kPrimitiveType",
            K::Name => "kName",
            K::AttributeName => "kAttributeName",
            K::DimLabels => "kDimLabels",
            K::DxD => "kDxD",
            K::Pad => "kPad",
            K::Ident => "kIdent",
            K::String => "kString",
            K::Int => "kInt",
            K::Decimal => "kDecimal",
            K::Dots => "kDots",
        }
    }
}

/// One token: its kind, its byte range in the input, and its value where it
/// has one.
///
/// ```
/// use xla_layout_core::{ElementType, text::{Lexer, TokenKind}};
/// let mut lx = Lexer::new(b"bf16[128]");
/// let ty = lx.next_token();
/// assert_eq!((ty.kind, ty.element_type), (TokenKind::PrimitiveType, ElementType::BF16));
/// assert_eq!((ty.start, ty.end), (0, 4));
/// lx.next_token(); // `[`
/// let n = lx.next_token();
/// assert_eq!((n.kind, n.int, n.start..n.end), (TokenKind::Int, 128, 5..8));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    /// What the token is.
    pub kind: TokenKind,
    /// Byte offset of the first byte.
    pub start: usize,
    /// Byte offset one past the last byte.
    pub end: usize,
    /// The value of an [`TokenKind::Int`] (non-negative literals above
    /// `i64::MAX` wrap, as in XLA); 0 otherwise.
    pub int: i64,
    /// The type of a [`TokenKind::PrimitiveType`]; `INVALID` otherwise.
    pub element_type: ElementType,
}

impl Token {
    const fn new(kind: TokenKind, start: usize, end: usize) -> Token {
        Token {
            kind,
            start,
            end,
            int: 0,
            element_type: ElementType::INVALID,
        }
    }

    /// The text of the token: for a [`TokenKind::Name`] without its `%` or
    /// `:`, for an [`TokenKind::AttributeName`] without its `=`, for a
    /// [`TokenKind::String`] without its quotes (still escaped).
    ///
    /// ```
    /// # use xla_layout_core::text::{Lexer, TokenKind};
    /// let src = b"%add.1 = ";
    /// let t = Lexer::new(src).next_token();
    /// assert_eq!((t.kind, t.text(src)), (TokenKind::Name, &b"add.1"[..]));
    /// ```
    pub fn text<'a>(&self, src: &'a [u8]) -> &'a [u8] {
        let (mut s, mut e) = (self.start, self.end.min(src.len()));
        match self.kind {
            TokenKind::Name if src.get(s) == Some(&b'%') => s += 1,
            TokenKind::Name | TokenKind::AttributeName => e = e.saturating_sub(1),
            TokenKind::String => {
                s += 1;
                e = e.saturating_sub(1);
            }
            _ => {}
        }
        src.get(s..e.max(s)).unwrap_or(&[])
    }
}

/// XLA's HLO lexer over bytes. Cheap to copy, which is how look-ahead works.
///
/// ```
/// use xla_layout_core::text::{Lexer, TokenKind as K};
///
/// let mut lx = Lexer::new(b"bf16[8,<=2]{1,0:T(8,128)} /* c */ 2x3 1.5");
/// let kinds: Vec<K> = core::iter::from_fn(|| {
///     let t = lx.next_token();
///     (t.kind != K::Eof).then_some(t.kind)
/// })
/// .collect();
/// assert_eq!(
///     kinds,
///     [K::PrimitiveType, K::Lsquare, K::Int, K::Comma, K::Leq, K::Int, K::Rsquare,
///      K::Lbrace, K::Int, K::Comma, K::Int, K::Colon, K::Ident, K::Lparen, K::Int,
///      K::Comma, K::Int, K::Rparen, K::Rbrace, K::DxD, K::Decimal]
/// );
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Lexer<'a> {
    src: &'a [u8],
    pos: usize,
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `src`.
    ///
    /// ```
    /// # use xla_layout_core::text::{Lexer, TokenKind};
    /// let mut lx = Lexer::new(b"  {}");
    /// assert_eq!(lx.position(), 0);
    /// let t = lx.next_token();
    /// assert_eq!((t.kind, t.start), (TokenKind::Lbrace, 2)); // whitespace skipped
    /// ```
    pub const fn new(src: &'a [u8]) -> Lexer<'a> {
        Lexer { src, pos: 0 }
    }

    /// A lexer at byte `pos` of `src`.
    ///
    /// ```
    /// # use xla_layout_core::text::{Lexer, TokenKind};
    /// assert_eq!(Lexer::at(b"x 7", 1).next_token().kind, TokenKind::Int);
    /// ```
    pub const fn at(src: &'a [u8], pos: usize) -> Lexer<'a> {
        Lexer { src, pos }
    }

    /// The input.
    ///
    /// ```
    /// # use xla_layout_core::text::Lexer;
    /// let lx = Lexer::at(b"f32[2]", 3);
    /// assert_eq!(lx.source(), b"f32[2]"); // all of it, not from the position
    /// ```
    pub const fn source(&self) -> &'a [u8] {
        self.src
    }

    /// The byte offset where the next token starts its search.
    ///
    /// ```
    /// # use xla_layout_core::text::{Lexer, TokenKind};
    /// let mut lx = Lexer::new(b"[2] x");
    /// while lx.next_token().kind != TokenKind::Rsquare {}
    /// assert_eq!(lx.position(), 3); // just past `]`
    /// assert_eq!(lx.next_token().start, 4); // the space is skipped by the search
    /// ```
    pub const fn position(&self) -> usize {
        self.pos
    }

    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    /// Lexes the next token.
    ///
    /// ```
    /// # use xla_layout_core::text::{Lexer, TokenKind};
    /// let mut lx = Lexer::new(b"x=1 /* comment */");
    /// assert_eq!(lx.next_token().kind, TokenKind::AttributeName); // `x=`
    /// assert_eq!(lx.next_token().kind, TokenKind::Int);
    /// assert_eq!(lx.next_token().kind, TokenKind::Eof); // the comment is skipped
    /// assert_eq!(lx.next_token().kind, TokenKind::Eof); // and it stays at the end
    /// ```
    pub fn next_token(&mut self) -> Token {
        // The common tokens (punctuation, plain integers, identifiers) take
        // the short paths here; the rest is out of line, so that this stays
        // small: shapes are mostly one-byte tokens and small integers.
        let s = self.src;
        let mut start = self.pos;
        loop {
            let Some(&c) = s.get(start) else {
                self.pos = start;
                return Token::new(TokenKind::Eof, start, start);
            };
            let kind = PUNCTUATION[c as usize];
            if kind != TokenKind::Eof {
                self.pos = start + 1;
                return Token::new(kind, start, start + 1);
            }
            match c {
                b' ' | b'\t' | b'\n' | b'\r' => start += 1,
                b'0'..=b'9' => return self.lex_number(start),
                b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                    self.pos = start + 1;
                    return self.lex_identifier(start);
                }
                b'%' => {
                    self.pos = start + 1;
                    let kind = self.lex_percent();
                    return Token::new(kind, start, self.pos);
                }
                _ => match self.lex_other(start) {
                    Some(t) => return t,
                    None => start = self.pos, // a comment
                },
            }
        }
    }

    /// A token that is not punctuation, a number or an identifier, or
    /// `None` after skipping a comment.
    #[cold]
    #[inline(never)]
    fn lex_other(&mut self, start: usize) -> Option<Token> {
        let c = self.src[start];
        self.pos = start + 1;
        let kind = match c {
            b'/' => match self.peek() {
                Some(b'*') => match find(self.src, self.pos + 1, b"*/") {
                    Some(end) => {
                        self.pos = end + 2;
                        return None;
                    }
                    // An unterminated comment is an error at its start.
                    None => TokenKind::Error,
                },
                Some(b'/') => {
                    while !matches!(self.peek(), None | Some(b'\n' | b'\r')) {
                        self.pos += 1;
                    }
                    return None;
                }
                _ => TokenKind::Error,
            },
            b'-' if self.peek() == Some(b'>') => {
                self.pos += 1;
                TokenKind::Arrow
            }
            b'-' | b'?' => return Some(self.lex_number_or_pattern(start)),
            b'<' if self.peek() == Some(b'=') => {
                self.pos += 1;
                TokenKind::Leq
            }
            b'.' if self.peek() == Some(b'.') => {
                self.pos += 1;
                if self.peek() == Some(b'.') {
                    self.pos += 1;
                    TokenKind::Dots
                } else {
                    TokenKind::Error
                }
            }
            b'"' | b'\'' => self.lex_string(start, c),
            _ => TokenKind::Error,
        };
        Some(Token::new(kind, start, self.pos))
    }

    /// A plain integer in one pass; anything longer (a float, `2x3`, a
    /// pad, dim labels) or too large goes to the full matcher.
    fn lex_number(&mut self, start: usize) -> Token {
        let s = self.src;
        let mut i = start;
        let mut value: Option<u64> = Some(0);
        while let Some(&c) = s.get(i)
            && c.is_ascii_digit()
        {
            value = value
                .and_then(|v| v.checked_mul(10))
                .and_then(|v| v.checked_add(u64::from(c - b'0')));
            i += 1;
        }
        // Every longer pattern needs one of these bytes after the digits.
        let longer = matches!(
            s.get(i),
            Some(b'.' | b'e' | b'E' | b'_' | b'x' | b'b' | b'f' | b'?')
        );
        match value {
            Some(v) if !longer => {
                self.pos = i;
                let mut t = Token::new(TokenKind::Int, start, i);
                t.int = v as i64; // XLA bit-casts; docs/xla-layouts.md §a.1
                t
            }
            _ => self.lex_number_or_pattern(start),
        }
    }

    /// Numbers and number-like patterns, tried in XLA's order.
    #[cold]
    #[inline(never)]
    fn lex_number_or_pattern(&mut self, start: usize) -> Token {
        let s = self.src;
        let kind = if let Some(n) = match_float(s, start) {
            self.pos = start + n;
            TokenKind::Decimal
        } else if let Some(n) = match_dim_labels(s, start) {
            self.pos = start + n;
            TokenKind::DimLabels
        } else if let Some(n) = match_dxd(s, start) {
            self.pos = start + n;
            TokenKind::DxD
        } else if let Some(n) = match_pad(s, start) {
            self.pos = start + n;
            TokenKind::Pad
        } else if let Some((n, value)) = match_int64(s, start) {
            self.pos = start + n;
            let mut t = Token::new(TokenKind::Int, start, self.pos);
            t.int = value;
            return t;
        } else if s[start..].starts_with(b"-inf") {
            self.pos = start + 4;
            TokenKind::NegInf
        } else if s[start..].starts_with(b"-nan") {
            self.pos = start + 4;
            self.lex_nan_payload()
        } else if s[start] == b'?' {
            TokenKind::QuestionMark
        } else {
            // An integer too large for 64 bits (or a lone `-`): the error
            // token covers its digits, so that the next token starts
            // after them.
            let sign = usize::from(s[start] == b'-');
            self.pos = start + sign + digits(s, start + sign);
            TokenKind::Error
        };
        // Every token but `Eof` is at least one byte long: loops over
        // tokens always make progress.
        self.pos = self.pos.max(start + 1);
        Token::new(kind, start, self.pos)
    }

    /// After `nan`/`-nan`: an optional `(0x…)` payload. A `(` that does not
    /// start a valid payload makes the whole token an error, as in XLA.
    fn lex_nan_payload(&mut self) -> TokenKind {
        if self.peek() != Some(b'(') {
            return TokenKind::Decimal;
        }
        let s = self.src;
        let mut i = self.pos + 1;
        if !s[i..].starts_with(b"0x") {
            return TokenKind::Error;
        }
        i += 2;
        let digits = i;
        let mut value: u64 = 0;
        let mut overflow = false;
        while let Some(d) = s.get(i).and_then(|c| (*c as char).to_digit(16)) {
            overflow |= value > (u64::MAX >> 4);
            value = (value << 4) | u64::from(d);
            i += 1;
        }
        // The payload must fit a double's 52-bit significand and be nonzero.
        if i == digits || s.get(i) != Some(&b')') || overflow || value == 0 || value >= 1 << 52 {
            return TokenKind::Error;
        }
        self.pos = i + 1;
        TokenKind::Decimal
    }

    fn lex_identifier(&mut self, start: usize) -> Token {
        self.pos += count_identifier_chars(self.src, self.pos);
        match self.peek() {
            Some(b':') => {
                self.pos += 1;
                return Token::new(TokenKind::Name, start, self.pos);
            }
            Some(b'=') => {
                self.pos += 1;
                return Token::new(TokenKind::AttributeName, start, self.pos);
            }
            _ => {}
        }
        let ident = &self.src[start..self.pos];
        let kind = match lookup_identifier(ident) {
            Some(Word::Type(t)) => {
                let mut tok = Token::new(TokenKind::PrimitiveType, start, self.pos);
                tok.element_type = t;
                return tok;
            }
            Some(Word::Keyword(k)) => k,
            Some(Word::Nan) => self.lex_nan_payload(),
            None => match match_dim_labels(self.src, start) {
                Some(n) => {
                    self.pos = start + n;
                    TokenKind::DimLabels
                }
                None => TokenKind::Ident,
            },
        };
        Token::new(kind, start, self.pos)
    }

    fn lex_percent(&mut self) -> TokenKind {
        if !self
            .peek()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        {
            return TokenKind::Error;
        }
        self.pos += count_identifier_chars(self.src, self.pos);
        TokenKind::Name
    }

    /// A quoted string, `"([^"\\]|\\.)*"` (`.` excludes a newline), whose
    /// escapes must then unescape as in `absl::CUnescape`.
    fn lex_string(&mut self, start: usize, quote: u8) -> TokenKind {
        let s = self.src;
        let Some(end) = string_end(s, start, quote) else {
            return TokenKind::Error;
        };
        if !unescapes(&s[start + 1..end - 1]) {
            return TokenKind::Error;
        }
        self.pos = end;
        TokenKind::String
    }

    /// From an opening `(`, `[` or `{` just lexed (`open`), moves past its
    /// matching closer without lexing what is between, and returns the
    /// offset one past the closer. Strings (`"…"`, `'…'`, with backslash
    /// escapes) and comments are skipped whole, so brackets inside them do
    /// not count. Used for HLO attribute values and operand lists, which
    /// are kept as text.
    ///
    /// On a mismatched or missing closer, or an unterminated string or
    /// comment, returns [`GroupError::Unbalanced`] at the offending byte
    /// (the opener when input ends first); brackets nested deeper than
    /// [`MAX_GROUP_DEPTH`] give [`GroupError::TooDeep`].
    ///
    /// ```
    /// # use xla_layout_core::text::{Lexer, TokenKind};
    /// let src = br#"{a={b="}"}, c=[1,(2)]} rest"#;
    /// let mut lx = Lexer::new(src);
    /// let open = lx.next_token();
    /// assert_eq!(lx.skip_group(open), Ok(22));
    /// assert_eq!(lx.next_token().text(src), b"rest");
    /// let bad = b"(1, 2]";
    /// let mut lx = Lexer::new(bad);
    /// let open = lx.next_token();
    /// assert_eq!(lx.skip_group(open).unwrap_err().at().start, 5);
    /// ```
    pub fn skip_group(&mut self, open: Token) -> Result<usize, GroupError> {
        let s = self.src;
        // Offsets are kept inside the text: an `open` past its end (a
        // token from other text) is unbalanced, not an overflow.
        let at = |i: usize| {
            let i = i.min(s.len());
            Token::new(TokenKind::Error, i, (i + 1).min(s.len()))
        };
        let error = |i: usize| Err(GroupError::Unbalanced(at(i)));
        // The open closers, two bits each: 1 `)`, 2 `]`, 3 `}`.
        let mut closers = [0u64; MAX_GROUP_DEPTH / 32];
        let mut depth = 0usize;
        let mut i = open.start.min(s.len());
        loop {
            i = find_first_of(s, i, &GROUP_SPECIAL);
            let Some(&c) = s.get(i) else {
                return error(open.start);
            };
            match c {
                b'(' | b'[' | b'{' => {
                    if depth == MAX_GROUP_DEPTH {
                        return Err(GroupError::TooDeep(at(i)));
                    }
                    let code = match c {
                        b'(' => 1u64,
                        b'[' => 2,
                        _ => 3,
                    };
                    closers[depth / 32] |= code << (2 * (depth % 32));
                    depth += 1;
                }
                b')' | b']' | b'}' => {
                    let code = match c {
                        b')' => 1u64,
                        b']' => 2,
                        _ => 3,
                    };
                    if depth == 0 {
                        return error(i);
                    }
                    let (word, shift) = ((depth - 1) / 32, 2 * ((depth - 1) % 32));
                    if (closers[word] >> shift) & 3 != code {
                        return error(i);
                    }
                    closers[word] &= !(3 << shift);
                    depth -= 1;
                    if depth == 0 {
                        self.pos = i + 1;
                        return Ok(i + 1);
                    }
                }
                b'"' | b'\'' => match string_end(s, i, c) {
                    Some(end) => {
                        i = end;
                        continue;
                    }
                    None => return error(i),
                },
                _ => match s.get(i + 1) {
                    // `/`: a comment, or just a byte.
                    Some(b'*') => match find(s, i + 2, b"*/") {
                        Some(end) => {
                            i = end + 2;
                            continue;
                        }
                        None => return error(i),
                    },
                    Some(b'/') => {
                        while i < s.len() && !matches!(s[i], b'\n' | b'\r') {
                            i += 1;
                        }
                        continue;
                    }
                    _ => {}
                },
            }
            i += 1;
        }
    }

    /// The token [`Lexer::next_token`] would return next, without moving.
    ///
    /// ```
    /// # use xla_layout_core::text::{Lexer, TokenKind};
    /// let mut lx = Lexer::new(b"ENTRY e");
    /// let ahead = lx.look_ahead();
    /// assert_eq!((ahead.kind, lx.position()), (TokenKind::KwEntry, 0)); // not moved
    /// assert_eq!(lx.next_token(), ahead);
    /// ```
    pub fn look_ahead(&self) -> Token {
        let mut copy = *self;
        copy.next_token()
    }
}

/// `[a-zA-Z0-9_.-]`, as a table: identifiers are most of a module's bytes.
const IDENTIFIER_CHAR: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || b == b'-' || b == b'.' || b == b'_';
        c += 1;
    }
    t
};

/// How many identifier bytes start at `i`.
fn count_identifier_chars(s: &[u8], i: usize) -> usize {
    s.get(i..)
        .unwrap_or(&[])
        .iter()
        .position(|&c| !IDENTIFIER_CHAR[c as usize])
        .unwrap_or(s.len().saturating_sub(i))
}

/// What an identifier that is not a plain [`TokenKind::Ident`] lexes as.
#[derive(Clone, Copy)]
enum Word {
    Type(ElementType),
    Keyword(TokenKind),
    /// `nan`, a decimal with an optional payload after it.
    Nan,
}

/// XLA's keywords, and `nan` (marked `Eof`, which no keyword lexes as).
const KEYWORDS: [(&str, TokenKind); 19] = [
    ("nan", TokenKind::Eof),
    ("true", TokenKind::KwTrue),
    ("false", TokenKind::KwFalse),
    ("inf", TokenKind::KwInf),
    ("HloModule", TokenKind::KwHloModule),
    ("ENTRY", TokenKind::KwEntry),
    ("ROOT", TokenKind::KwRoot),
    ("FileLocations", TokenKind::KwFileLocations),
    ("FileNames", TokenKind::KwFileNames),
    ("FunctionNames", TokenKind::KwFunctionNames),
    ("StackFrames", TokenKind::KwStackFrames),
    ("maximal", TokenKind::KwMaximal),
    ("replicated", TokenKind::KwReplicated),
    ("manual", TokenKind::KwManual),
    ("last_tile_dim_replicate", TokenKind::KwLastTileDimReplicate),
    ("shard_as", TokenKind::KwShardAs),
    ("shard_like", TokenKind::KwShardLike),
    ("unknown", TokenKind::KwUnknown),
    ("unreduced", TokenKind::KwUnreduced),
];

/// Every keyword, in one open-addressing table built at compile time
/// (slots as [`ElementType`]'s table of type names, with the same hash):
/// entry `k + 1` is `KEYWORDS[k]`, 0 is empty.
const KEYWORD_SLOTS: [u8; NAME_SLOTS] = {
    let mut table = [0u8; NAME_SLOTS];
    let mut k = 0;
    while k < KEYWORDS.len() {
        let mut slot = name_slot(KEYWORDS[k].0.as_bytes());
        while table[slot] != 0 {
            slot = (slot + 1) % NAME_SLOTS;
        }
        table[slot] = (k + 1) as u8;
        k += 1;
    }
    table
};

/// Whether `ident` is a type name or a keyword, and which: one hash, one
/// probe in each table.
const fn lookup_identifier(ident: &[u8]) -> Option<Word> {
    let first = name_slot(ident);
    if let Some(t) = ElementType::from_name_at(ident, first) {
        return Some(Word::Type(t));
    }
    let mut slot = first;
    loop {
        let entry = KEYWORD_SLOTS[slot] as usize;
        if entry == 0 {
            return None;
        }
        let (name, kind) = KEYWORDS[entry - 1];
        if crate::const_eq::same_bytes(name.as_bytes(), ident) {
            return Some(match kind {
                TokenKind::Eof => Word::Nan,
                kind => Word::Keyword(kind),
            });
        }
        slot = (slot + 1) % NAME_SLOTS;
    }
}

/// The one-byte tokens that never start anything longer; `Eof` marks the
/// other bytes.
const PUNCTUATION: [TokenKind; 256] = {
    let mut t = [TokenKind::Eof; 256];
    t[b'=' as usize] = TokenKind::Equal;
    t[b',' as usize] = TokenKind::Comma;
    t[b':' as usize] = TokenKind::Colon;
    t[b'*' as usize] = TokenKind::Asterisk;
    t[b'#' as usize] = TokenKind::Octothorp;
    t[b'+' as usize] = TokenKind::Plus;
    t[b'~' as usize] = TokenKind::Tilde;
    t[b'[' as usize] = TokenKind::Lsquare;
    t[b']' as usize] = TokenKind::Rsquare;
    t[b'{' as usize] = TokenKind::Lbrace;
    t[b'}' as usize] = TokenKind::Rbrace;
    t[b'(' as usize] = TokenKind::Lparen;
    t[b')' as usize] = TokenKind::Rparen;
    t
};

/// How deep [`Lexer::skip_group`] follows brackets (XLA's dumps nest a
/// few dozen levels at most, in JSON configs).
///
/// ```
/// use xla_layout_core::text::{GroupError, Lexer, MAX_GROUP_DEPTH};
/// let skip = |depth: usize| {
///     let src = "(".repeat(depth) + &")".repeat(depth);
///     let mut lx = Lexer::new(src.as_bytes());
///     let open = lx.next_token();
///     lx.skip_group(open)
/// };
/// assert_eq!(skip(MAX_GROUP_DEPTH), Ok(2 * MAX_GROUP_DEPTH));
/// assert!(matches!(skip(MAX_GROUP_DEPTH + 1), Err(GroupError::TooDeep(_))));
/// ```
pub const MAX_GROUP_DEPTH: usize = 512;

/// Why [`Lexer::skip_group`] could not skip a group.
///
/// ```
/// use xla_layout_core::text::{GroupError, Lexer};
/// let src = b"[1, 2";
/// let mut lx = Lexer::new(src);
/// let open = lx.next_token();
/// let e = lx.skip_group(open).unwrap_err();
/// assert!(matches!(e, GroupError::Unbalanced(_)));
/// assert_eq!(e.at().start, 0); // input ended first: the opener
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum GroupError {
    /// A bracket, string or comment is not closed, or closed by the wrong
    /// bracket; the token is at the offending byte.
    Unbalanced(Token),
    /// Brackets nest deeper than [`MAX_GROUP_DEPTH`]; the token is at the
    /// bracket past the limit.
    TooDeep(Token),
}

impl core::fmt::Display for GroupError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            GroupError::Unbalanced(_) => f.write_str(
                "a bracket, string or comment is not closed, or closed by the wrong bracket",
            ),
            GroupError::TooDeep(_) => write!(
                f,
                "brackets are nested deeper than {MAX_GROUP_DEPTH} levels"
            ),
        }
    }
}

impl core::error::Error for GroupError {}

impl GroupError {
    /// Where the problem is.
    ///
    /// ```
    /// # use xla_layout_core::text::Lexer;
    /// let src = b"{a=(1]}";
    /// let mut lx = Lexer::new(src);
    /// let open = lx.next_token();
    /// let e = lx.skip_group(open).unwrap_err();
    /// assert_eq!(e.at().start, 5); // the `]` that would close `(`
    /// ```
    pub const fn at(&self) -> Token {
        match self {
            GroupError::Unbalanced(t) | GroupError::TooDeep(t) => *t,
        }
    }
}

/// A set of bytes, as a list (for SIMD compares) and a table (for single
/// bytes).
struct ByteSet {
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // SIMD only
    bytes: &'static [u8],
    table: [bool; 256],
}

impl ByteSet {
    const fn new(bytes: &'static [u8]) -> ByteSet {
        let mut table = [false; 256];
        let mut i = 0;
        while i < bytes.len() {
            table[bytes[i] as usize] = true;
            i += 1;
        }
        ByteSet { bytes, table }
    }
}

/// The bytes [`Lexer::skip_group`] must look at.
const GROUP_SPECIAL: ByteSet = ByteSet::new(b"()[]{}\"'/");
/// The bytes that end or escape within a `"` string.
const DOUBLE_QUOTED: ByteSet = ByteSet::new(b"\"\\");
/// The bytes that end or escape within a `'` string.
const SINGLE_QUOTED: ByteSet = ByteSet::new(b"'\\");

/// The index of the first byte at or after `i` that is in `set`, or
/// `s.len()`. Attribute values and operand lists are most of a module's
/// bytes and are only skipped: after a few bytes one at a time (specials
/// come close together in shapes), this looks at 16 bytes at a time where
/// SSE2 is there (always, on x86_64).
#[inline(always)]
fn find_first_of(s: &[u8], mut i: usize, set: &ByteSet) -> usize {
    let near = s.len().min(i + 8);
    while i < near {
        if set.table[s[i] as usize] {
            return i;
        }
        i += 1;
    }
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
            _mm_set1_epi8, _mm_setzero_si128,
        };
        while i + 16 <= s.len() {
            // SAFETY: SSE2 is part of the x86_64 baseline, and `i + 16 <=
            // s.len()`, so the unaligned 16-byte load reads inside `s`.
            let mask = unsafe {
                let v = _mm_loadu_si128(s.as_ptr().add(i).cast::<__m128i>());
                let mut hits = _mm_setzero_si128();
                for &b in set.bytes {
                    hits = _mm_or_si128(hits, _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8)));
                }
                _mm_movemask_epi8(hits) as u32
            };
            if mask != 0 {
                return i + mask.trailing_zeros() as usize;
            }
            i += 16;
        }
    }
    while i < s.len() && !set.table[s[i] as usize] {
        i += 1;
    }
    i
}

/// One past the closing quote of the string opening at `start`, with the
/// lexer's rule: a backslash escapes any byte but a newline.
fn string_end(s: &[u8], start: usize, quote: u8) -> Option<usize> {
    let mut i = start + 1;
    loop {
        i = find_first_of(
            s,
            i,
            if quote == b'"' {
                &DOUBLE_QUOTED
            } else {
                &SINGLE_QUOTED
            },
        );
        match *s.get(i)? {
            c if c == quote => return Some(i + 1),
            b'\\' if s.get(i + 1).is_some_and(|&c| c != b'\n') => i += 2,
            b'\\' => return None,
            _ => i += 1,
        }
    }
}

fn find(s: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    s.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

fn count_while(s: &[u8], mut i: usize, f: impl Fn(u8) -> bool) -> usize {
    let start = i;
    while s.get(i).is_some_and(|&c| f(c)) {
        i += 1;
    }
    i - start
}

fn digits(s: &[u8], i: usize) -> usize {
    count_while(s, i, |c| c.is_ascii_digit())
}

/// `[-]?((\d+|\d+[.]\d*|\d*[.]\d+)([eE][+-]?\d+))|[-]?(\d+[.]\d*|\d*[.]\d+)`
/// with RE2's leftmost-first preference; returns the match length.
fn match_float(s: &[u8], start: usize) -> Option<usize> {
    let mut i = start + usize::from(s.get(start) == Some(&b'-'));
    let int_digits = digits(s, i);
    i += int_digits;
    let mut frac_digits = 0;
    let has_dot = s.get(i) == Some(&b'.');
    if has_dot {
        i += 1;
        frac_digits = digits(s, i);
        i += frac_digits;
    }
    let mantissa_ok = int_digits > 0 || (has_dot && frac_digits > 0);
    if mantissa_ok && matches!(s.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(s.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let exp = digits(s, j);
        if exp > 0 {
            return Some(j + exp - start);
        }
    }
    (has_dot && mantissa_ok).then_some(i - start)
}

/// `[0-9bf?]{2,}_[0-9io?]{2,}->[0-9bf?]{2,}`.
fn match_dim_labels(s: &[u8], start: usize) -> Option<usize> {
    let lhs = |c: u8| c.is_ascii_digit() || matches!(c, b'b' | b'f' | b'?');
    let kernel = |c: u8| c.is_ascii_digit() || matches!(c, b'i' | b'o' | b'?');
    let mut i = start;
    let n = count_while(s, i, lhs);
    if n < 2 || s.get(i + n) != Some(&b'_') {
        return None;
    }
    i += n + 1;
    let n = count_while(s, i, kernel);
    if n < 2 || !s[i + n..].starts_with(b"->") {
        return None;
    }
    i += n + 2;
    let n = count_while(s, i, lhs);
    (n >= 2).then_some(i + n - start)
}

/// `[0-9]+(x[0-9]+)+`.
fn match_dxd(s: &[u8], start: usize) -> Option<usize> {
    let mut i = start + digits(s, start);
    if i == start {
        return None;
    }
    let mut groups = 0;
    while s.get(i) == Some(&b'x') && digits(s, i + 1) > 0 {
        i += 1 + digits(s, i + 1);
        groups += 1;
    }
    (groups > 0).then_some(i - start)
}

/// `[-]?[0-9]+_[-]?[0-9]+(_[0-9]+)?(x[-]?[0-9]+_[-]?[0-9]+(_[0-9]+)?)*`.
fn match_pad(s: &[u8], start: usize) -> Option<usize> {
    // One `low_high(_interior)?` group; returns its end.
    let group = |mut i: usize| -> Option<usize> {
        i += usize::from(s.get(i) == Some(&b'-'));
        let n = digits(s, i);
        if n == 0 || s.get(i + n) != Some(&b'_') {
            return None;
        }
        i += n + 1;
        i += usize::from(s.get(i) == Some(&b'-'));
        let n = digits(s, i);
        if n == 0 {
            return None;
        }
        i += n;
        if s.get(i) == Some(&b'_') && digits(s, i + 1) > 0 {
            i += 1 + digits(s, i + 1);
        }
        Some(i)
    };
    let mut end = group(start)?;
    while s.get(end) == Some(&b'x') {
        match group(end + 1) {
            Some(e) => end = e,
            None => break,
        }
    }
    Some(end - start)
}

/// `[-]?\d+` as XLA's `LexInt64Impl`: non-negative literals must fit in
/// u64 and are reinterpreted as i64; negative ones must fit in i64.
fn match_int64(s: &[u8], start: usize) -> Option<(usize, i64)> {
    let negative = s.get(start) == Some(&b'-');
    let first = start + usize::from(negative);
    let n = digits(s, first);
    if n == 0 {
        return None;
    }
    let text = &s[first..first + n];
    let value = if negative {
        let mut v: i64 = 0;
        for &c in text {
            v = v.checked_mul(10)?.checked_sub(i64::from(c - b'0'))?;
        }
        v
    } else {
        let mut v: u64 = 0;
        for &c in text {
            v = v.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
        }
        v as i64 // XLA bit-casts; docs/xla-layouts.md §a.1
    };
    Some((first + n - start, value))
}

/// Whether the body of a quoted string unescapes under `absl::CUnescape`.
fn unescapes(body: &[u8]) -> bool {
    let hex = |c: &u8| c.is_ascii_hexdigit();
    let mut i = 0;
    while i < body.len() {
        if body[i] != b'\\' {
            i += 1;
            continue;
        }
        let Some(&c) = body.get(i + 1) else {
            return false;
        };
        i += 2;
        match c {
            b'a' | b'b' | b'f' | b'n' | b'r' | b't' | b'v' | b'\\' | b'\'' | b'"' | b'?' => {}
            b'0'..=b'7' => {
                let mut v = u32::from(c - b'0');
                let mut k = 0;
                while k < 2 && body.get(i).is_some_and(|d| (b'0'..=b'7').contains(d)) {
                    v = v * 8 + u32::from(body[i] - b'0');
                    i += 1;
                    k += 1;
                }
                if v > 0xff {
                    return false;
                }
            }
            b'x' | b'X' => {
                let n = body[i..].iter().take_while(|c| hex(c)).count();
                let v = body[i..i + n].iter().try_fold(0u32, |v, d| {
                    v.checked_mul(16)?.checked_add((*d as char).to_digit(16)?)
                });
                if n == 0 || v.is_none_or(|v| v > 0xff) {
                    return false;
                }
                i += n;
            }
            b'u' | b'U' => {
                let n = if c == b'u' { 4 } else { 8 };
                let Some(ds) = body.get(i..i + n) else {
                    return false;
                };
                if !ds.iter().all(hex) {
                    return false;
                }
                let v = ds.iter().fold(0u32, |v, d| {
                    (v << 4) | (*d as char).to_digit(16).unwrap_or(0)
                });
                if v > 0x10_FFFF || (0xD800..=0xDFFF).contains(&v) {
                    return false;
                }
                i += n;
            }
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use TokenKind as K;

    fn kinds(src: &str) -> Vec<(K, &str)> {
        let mut lx = Lexer::new(src.as_bytes());
        let mut out = Vec::new();
        loop {
            let t = lx.next_token();
            if t.kind == K::Eof {
                return out;
            }
            out.push((t.kind, &src[t.start..t.end]));
            if t.kind == K::Error {
                return out;
            }
        }
    }

    /// A group token from other text, past this text's end: an error,
    /// placed at the end, never an overflow.
    #[test]
    fn groups_opened_past_the_end_are_unbalanced() {
        for start in [3, 100, usize::MAX - 1, usize::MAX] {
            let open = Token::new(K::Lparen, start, start.saturating_add(1));
            let err = Lexer::new(b"(1)").skip_group(open).unwrap_err();
            assert_eq!((err.at().start, err.at().end), (3, 3), "{start}");
        }
    }

    #[test]
    fn patterns_before_integers() {
        assert_eq!(kinds("1.5"), [(K::Decimal, "1.5")]);
        assert_eq!(kinds("1e3"), [(K::Decimal, "1e3")]);
        assert_eq!(kinds("1.e3"), [(K::Decimal, "1.e3")]);
        assert_eq!(kinds("12."), [(K::Decimal, "12.")]);
        assert_eq!(kinds("-.5"), [(K::Decimal, "-.5")]);
        assert_eq!(kinds("1e"), [(K::Int, "1"), (K::Ident, "e")]);
        assert_eq!(kinds("1.5e"), [(K::Decimal, "1.5"), (K::Ident, "e")]);
        assert_eq!(kinds("2x3x4"), [(K::DxD, "2x3x4")]);
        assert_eq!(kinds("2x"), [(K::Int, "2"), (K::Ident, "x")]);
        assert_eq!(kinds("1_2"), [(K::Pad, "1_2")]);
        assert_eq!(kinds("-1_-2_3x4_5"), [(K::Pad, "-1_-2_3x4_5")]);
        assert_eq!(
            kinds("b01f_01io->b01f"),
            [(K::DimLabels, "b01f_01io->b01f")]
        );
        assert_eq!(kinds("01_io->01"), [(K::DimLabels, "01_io->01")]);
        assert_eq!(kinds("-inf"), [(K::NegInf, "-inf")]);
        assert_eq!(kinds("-nan"), [(K::Decimal, "-nan")]);
        assert_eq!(kinds("nan(0x8)"), [(K::Decimal, "nan(0x8)")]);
        assert_eq!(kinds("nan(0x0)"), [(K::Error, "nan")]);
    }

    #[test]
    fn integers_follow_xla_ranges() {
        let lex = |s: &str| Lexer::new(s.as_bytes()).next_token();
        assert_eq!(lex("18446744073709551615").int, -1);
        assert_eq!(lex("18446744073709551616").kind, K::Error);
        assert_eq!(lex("-9223372036854775808").int, i64::MIN);
        assert_eq!(lex("-9223372036854775809").kind, K::Error);
        assert_eq!(lex("-").kind, K::Error);
        assert_eq!(lex("->").kind, K::Arrow);
    }

    /// All tokens of `src`, errors included, with a bound on the steps.
    fn all_tokens(src: &[u8]) -> Vec<Token> {
        let mut lx = Lexer::new(src);
        let mut out = Vec::new();
        for _ in 0..=src.len() {
            let t = lx.next_token();
            if t.kind == K::Eof {
                return out;
            }
            out.push(t);
        }
        panic!("the lexer did not reach the end of {src:?}");
    }

    #[test]
    fn an_integer_too_large_is_one_error_token_over_its_digits() {
        let src = "add(18446744073709551616, -92233720368547758090 x)";
        let tokens: Vec<(K, &str)> = all_tokens(src.as_bytes())
            .iter()
            .map(|t| (t.kind, &src[t.start..t.end]))
            .collect();
        assert_eq!(
            tokens,
            [
                (K::Ident, "add"),
                (K::Lparen, "("),
                (K::Error, "18446744073709551616"),
                (K::Comma, ","),
                (K::Error, "-92233720368547758090"),
                (K::Ident, "x"),
                (K::Rparen, ")"),
            ]
        );
    }

    proptest::proptest! {
        /// Every token but `Eof` is at least one byte long and starts where
        /// the previous one ended or later, whatever the input.
        #[test]
        fn every_token_makes_progress(src in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64),
                                      digits in "[0-9]{15,30}") {
            for src in [src, [digits.as_bytes(), b"x", digits.as_bytes()].concat()] {
                let mut end = 0;
                for t in all_tokens(&src) {
                    proptest::prop_assert!(t.start >= end && t.end > t.start, "{:?} in {:?}", t, src);
                    end = t.end;
                }
            }
        }
    }

    #[test]
    fn identifiers_names_and_types() {
        assert_eq!(kinds("f32"), [(K::PrimitiveType, "f32")]);
        assert_eq!(kinds("F32"), [(K::Ident, "F32")]);
        assert_eq!(kinds("f32:"), [(K::Name, "f32:")]);
        assert_eq!(kinds("x=1"), [(K::AttributeName, "x="), (K::Int, "1")]);
        assert_eq!(kinds("tuple"), [(K::Ident, "tuple")]);
        assert_eq!(kinds("ENTRY"), [(K::KwEntry, "ENTRY")]);
        assert_eq!(kinds("%a.b-c"), [(K::Name, "%a.b-c")]);
        assert_eq!(kinds("%1"), [(K::Error, "%")]);
        assert_eq!(
            kinds("T(8)"),
            [
                (K::Ident, "T"),
                (K::Lparen, "("),
                (K::Int, "8"),
                (K::Rparen, ")")
            ]
        );
    }

    #[test]
    fn comments_whitespace_and_errors() {
        assert_eq!(kinds(" /* a */ 1 // b\n 2"), [(K::Int, "1"), (K::Int, "2")]);
        assert_eq!(kinds("/* open"), [(K::Error, "/")]);
        assert_eq!(kinds("/x"), [(K::Error, "/")]);
        assert_eq!(kinds("\x0c"), [(K::Error, "\x0c")]);
        assert_eq!(kinds("\0"), [(K::Error, "\0")]);
        assert_eq!(kinds("?"), [(K::QuestionMark, "?")]);
        assert_eq!(kinds("<"), [(K::Error, "<")]);
        assert_eq!(kinds("..."), [(K::Dots, "...")]);
        assert_eq!(kinds(".."), [(K::Error, "..")]);
    }

    #[test]
    fn strings() {
        assert_eq!(kinds(r#""a\"b""#), [(K::String, r#""a\"b""#)]);
        assert_eq!(kinds(r#"'x'"#), [(K::String, "'x'")]);
        assert_eq!(kinds(r#""\q""#), [(K::Error, "\"")]);
        assert_eq!(
            kinds(r#""\x41\101\u00e9""#),
            [(K::String, r#""\x41\101\u00e9""#)]
        );
        assert_eq!(kinds("\"open"), [(K::Error, "\"")]);
    }

    #[test]
    fn never_stalls_on_any_byte() {
        for b in 0..=255u8 {
            let src = [b, b'x'];
            let mut lx = Lexer::new(&src);
            for _ in 0..4 {
                let before = lx.position();
                let t = lx.next_token();
                assert!(t.kind == K::Eof || lx.position() > before, "byte {b}");
            }
        }
    }
}
