//! Text → tokens: XLA's HLO lexer (spec §a.1), on bytes.
//!
//! This is the single lexer of the project: shapes, layouts and whole HLO
//! modules are all tokenised here. It mirrors `HloLexer` token for token,
//! including the patterns tried before an integer (floats, `2x3`, `1_2`,
//! convolution dim labels), because those decide which inputs XLA rejects
//! and what its messages say (`saw kDxD`). It never panics and always makes
//! progress: every token but [`TokenKind::Eof`] spans at least one byte.

use crate::ElementType;

/// The kind of a token; [`TokenKind::xla_name`] gives XLA's spelling
/// (`kLbrace`, `kw_ENTRY`, …) used in parse messages.
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
    pub const fn source(&self) -> &'a [u8] {
        self.src
    }

    /// The byte offset where the next token starts its search.
    pub const fn position(&self) -> usize {
        self.pos
    }

    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    /// Lexes the next token.
    pub fn next_token(&mut self) -> Token {
        loop {
            let start = self.pos;
            let Some(c) = self.peek() else {
                return Token::new(TokenKind::Eof, start, start);
            };
            self.pos += 1;
            let kind = match c {
                b' ' | b'\t' | b'\n' | b'\r' => continue,
                b'/' => match self.peek() {
                    Some(b'*') => match find(self.src, self.pos + 1, b"*/") {
                        Some(end) => {
                            self.pos = end + 2;
                            continue;
                        }
                        // An unterminated comment is an error at its start.
                        None => TokenKind::Error,
                    },
                    Some(b'/') => {
                        while !matches!(self.peek(), None | Some(b'\n' | b'\r')) {
                            self.pos += 1;
                        }
                        continue;
                    }
                    _ => TokenKind::Error,
                },
                b'0'..=b'9' | b'-' | b'?' => {
                    if c == b'-' && self.peek() == Some(b'>') {
                        self.pos += 1;
                        TokenKind::Arrow
                    } else {
                        return self.lex_number_or_pattern(start);
                    }
                }
                b'=' => TokenKind::Equal,
                b'<' if self.peek() == Some(b'=') => {
                    self.pos += 1;
                    TokenKind::Leq
                }
                b',' => TokenKind::Comma,
                b':' => TokenKind::Colon,
                b'*' => TokenKind::Asterisk,
                b'#' => TokenKind::Octothorp,
                b'+' => TokenKind::Plus,
                b'~' => TokenKind::Tilde,
                b'[' => TokenKind::Lsquare,
                b']' => TokenKind::Rsquare,
                b'{' => TokenKind::Lbrace,
                b'}' => TokenKind::Rbrace,
                b'(' => TokenKind::Lparen,
                b')' => TokenKind::Rparen,
                b'%' => self.lex_percent(),
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
                c if c.is_ascii_alphabetic() || c == b'_' => return self.lex_identifier(start),
                _ => TokenKind::Error,
            };
            return Token::new(kind, start, self.pos);
        }
    }

    /// Numbers and number-like patterns, tried in XLA's order.
    fn lex_number_or_pattern(&mut self, start: usize) -> Token {
        let s = self.src;
        // Fast path for the common plain integer: after a run of digits,
        // every longer pattern needs one of these bytes next.
        let n = digits(s, start);
        if n > 0
            && !matches!(
                s.get(start + n),
                Some(b'.' | b'e' | b'E' | b'_' | b'x' | b'b' | b'f' | b'?')
            )
            && let Some((len, value)) = match_int64(s, start)
        {
            self.pos = start + len;
            let mut t = Token::new(TokenKind::Int, start, self.pos);
            t.int = value;
            return t;
        }
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
            TokenKind::Error
        };
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
        while self.peek().is_some_and(is_identifier_char) {
            self.pos += 1;
        }
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
        if let Some(t) = ElementType::from_name_bytes(ident) {
            let mut tok = Token::new(TokenKind::PrimitiveType, start, self.pos);
            tok.element_type = t;
            return tok;
        }
        let kind = match ident {
            b"nan" => self.lex_nan_payload(),
            b"true" => TokenKind::KwTrue,
            b"false" => TokenKind::KwFalse,
            b"inf" => TokenKind::KwInf,
            b"HloModule" => TokenKind::KwHloModule,
            b"ENTRY" => TokenKind::KwEntry,
            b"ROOT" => TokenKind::KwRoot,
            b"FileLocations" => TokenKind::KwFileLocations,
            b"FileNames" => TokenKind::KwFileNames,
            b"FunctionNames" => TokenKind::KwFunctionNames,
            b"StackFrames" => TokenKind::KwStackFrames,
            b"maximal" => TokenKind::KwMaximal,
            b"replicated" => TokenKind::KwReplicated,
            b"manual" => TokenKind::KwManual,
            b"last_tile_dim_replicate" => TokenKind::KwLastTileDimReplicate,
            b"shard_as" => TokenKind::KwShardAs,
            b"shard_like" => TokenKind::KwShardLike,
            b"unknown" => TokenKind::KwUnknown,
            b"unreduced" => TokenKind::KwUnreduced,
            _ => match match_dim_labels(self.src, start) {
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
        while self.peek().is_some_and(is_identifier_char) {
            self.pos += 1;
        }
        TokenKind::Name
    }

    /// A quoted string, `"([^"\\]|\\.)*"` (`.` excludes a newline), whose
    /// escapes must then unescape as in `absl::CUnescape`.
    fn lex_string(&mut self, start: usize, quote: u8) -> TokenKind {
        let s = self.src;
        let mut i = start + 1;
        loop {
            match s.get(i) {
                None => return TokenKind::Error,
                Some(&c) if c == quote => break,
                Some(b'\\') => match s.get(i + 1) {
                    None | Some(b'\n') => return TokenKind::Error,
                    Some(_) => i += 2,
                },
                Some(_) => i += 1,
            }
        }
        if !unescapes(&s[start + 1..i]) {
            return TokenKind::Error;
        }
        self.pos = i + 1;
        TokenKind::String
    }

    /// XLA's `LexJsonDict`: from the `{` just lexed (`lbrace`), takes the
    /// whole balanced `{…}` (skipping `"`-strings) as one
    /// [`TokenKind::String`] token whose text is the dict with its braces.
    /// Used for `backend_config={...}`.
    ///
    /// ```
    /// # use xla_layout_core::text::{Lexer, TokenKind};
    /// let src = br#"{"a":{"b":"}"}} x"#;
    /// let mut lx = Lexer::new(src);
    /// let lbrace = lx.next_token();
    /// let dict = lx.lex_json_dict(lbrace);
    /// assert_eq!(dict.kind, TokenKind::String);
    /// assert_eq!(&src[dict.start..dict.end], &br#"{"a":{"b":"}"}}"#[..]);
    /// ```
    pub fn lex_json_dict(&mut self, lbrace: Token) -> Token {
        let s = self.src;
        let error = Token::new(TokenKind::Error, lbrace.start, lbrace.end);
        if lbrace.kind != TokenKind::Lbrace {
            return error;
        }
        let mut depth = 1usize;
        let mut i = lbrace.start + 1;
        while depth > 0 {
            match s.get(i) {
                None => return error,
                Some(b'"') => {
                    i += 1;
                    loop {
                        match s.get(i) {
                            None => return error,
                            Some(b'"') => break,
                            Some(b'\\') if s.get(i + 1).is_some_and(|&c| c != b'\n') => i += 2,
                            Some(b'\\') => return error,
                            Some(_) => i += 1,
                        }
                    }
                }
                Some(b'{') => depth += 1,
                Some(b'}') => depth -= 1,
                Some(_) => {}
            }
            i += 1;
        }
        self.pos = i;
        Token::new(TokenKind::String, lbrace.start, i)
    }

    /// The token after the next one would be, without moving.
    pub fn look_ahead(&self) -> Token {
        let mut copy = *self;
        copy.next_token()
    }
}

/// `[a-zA-Z0-9_.-]`.
pub(crate) const fn is_identifier_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-' || c == b'.' || c == b'_'
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
        v as i64 // XLA bit-casts; spec §a.1
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
