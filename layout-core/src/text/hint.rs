//! Parse errors in words a person can act on: what XLA says, plus what it
//! means here (the attribute order, the closest element type name, a float
//! where an integer belongs). Tools show these; XLA's own text stays in
//! [`super::ParseErrorKind`]'s `Display`.

use core::fmt::{self, Display, Formatter};

use super::attributes::{ATTRIBUTES, Attribute, AttributeOrder, attribute_index};
use super::error::{Diagnostic, ParseErrorKind};
use super::lexer::{Lexer, Token, TokenKind};

/// A diagnostic explained against its source; see [`Diagnostic::explain`].
#[derive(Clone, Copy, Debug)]
pub struct Explained<'a> {
    diagnostic: &'a Diagnostic,
    src: &'a [u8],
}

impl Diagnostic {
    /// The diagnostic for people: XLA's message with what it means here.
    ///
    /// ```
    /// use xla_layout_core::text::parse_shape;
    /// let text = "f32[2,3]{1,0:S(1)T(8,128)}";
    /// let e = parse_shape(text.as_bytes()).unwrap_err();
    /// assert_eq!(
    ///     e.primary().explain(text.as_bytes()).to_string(),
    ///     "layout attribute `T` is out of order or repeated: attributes come at most once each, \
    ///      in the order D, T, L, #, *, E, S, SC, P, M (XLA: expects layout to end with kRbrace)"
    /// );
    /// let e = parse_shape(b"F32[2]").unwrap_err();
    /// assert_eq!(e.primary().explain(b"F32[2]").to_string(), "unknown element type `F32`; did you mean `f32`?");
    /// ```
    pub fn explain<'a>(&'a self, src: &'a [u8]) -> Explained<'a> {
        Explained {
            diagnostic: self,
            src,
        }
    }

    /// XLA's message for this diagnostic, with what it quotes from `src`
    /// (the text it came from, as `&str` or bytes): the kind's `Display`,
    /// except that a layout XLA prints is printed.
    ///
    /// ```
    /// use xla_layout_core::text::parse_shape;
    /// let text = "f32[4,4]{1,0:T(2,2)P(f32[16])}";
    /// let e = parse_shape(text.as_bytes()).unwrap_err();
    /// assert_eq!(
    ///     e.primary().message(text).to_string(),
    ///     "Layout has physical shape, but is not for a sparse array: {1,0:T(2,2)P(f32[16]{0})}"
    /// );
    /// ```
    pub fn message<'a>(&'a self, src: &'a (impl AsRef<[u8]> + ?Sized)) -> impl Display + 'a {
        fmt::from_fn(move |f| match self.kind {
            ParseErrorKind::PhysicalShapeOnDenseArray {
                layout_start,
                layout_end,
            } => {
                let text = src
                    .as_ref()
                    .get(layout_start..layout_end)
                    .unwrap_or_default();
                match super::parse_layout(text) {
                    Ok(layout) => write!(
                        f,
                        "Layout has physical shape, but is not for a sparse array: {layout}"
                    ),
                    // Not the text the error came from: name the bytes.
                    Err(_) => write!(f, "{}", self.kind),
                }
            }
            _ => write!(f, "{}", self.kind),
        })
    }

    /// Whether this diagnostic is an artefact of XLA's parser that means
    /// nothing to a person: the `expects integer` a `*` tile entry leaves
    /// behind (XLA tries an integer first).
    ///
    /// ```
    /// use xla_layout_core::text::parse_shape;
    /// let text = b"f32[2]{0:T(*,(}";
    /// let e = parse_shape(text).unwrap_err();
    /// assert!(e.diagnostics().next().unwrap().is_noise(text));
    /// // A `*` where no tile entry can be is a real mistake.
    /// let text = b"f32[2]{0:E(*)}";
    /// let e = parse_shape(text).unwrap_err();
    /// assert!(!e.diagnostics().next().unwrap().is_noise(text));
    /// ```
    pub fn is_noise(&self, src: &[u8]) -> bool {
        self.kind == ParseErrorKind::ExpectedInteger && star_in_tile_list(src, self.start, self.end)
    }
}

/// The token for a message: `` `x` ``, "the end of the shape", a
/// character that is not ASCII said to be one, or a byte that is not UTF-8.
enum Described<'a> {
    Text(&'a str),
    End,
    Byte(u8),
}

impl<'a> Described<'a> {
    /// The token at byte `start` whose text (whole characters) is `token`.
    fn at(src: &'a [u8], start: usize, token: &'a str) -> Described<'a> {
        match (token.is_empty(), src.get(start)) {
            (false, _) => Described::Text(token),
            (true, None) => Described::End,
            (true, Some(&b)) => Described::Byte(b),
        }
    }
}

impl Display for Described<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Described::End => f.write_str("the end of the shape"),
            Described::Byte(b) => write!(f, "the byte 0x{b:02X}, which is not UTF-8"),
            Described::Text(t) if !t.is_ascii() => write!(f, "`{t}` (shape text is ASCII)"),
            // A control character shown as itself would be invisible.
            Described::Text(t) if t.chars().any(char::is_control) => {
                write!(f, "`{}`", t.escape_debug())
            }
            Described::Text(t) => write!(f, "`{t}`"),
        }
    }
}

/// Whether `start..end` is a `*` tile entry: where XLA's parser, trying an
/// integer first, leaves an `expects integer` behind.
pub(crate) fn star_in_tile_list(src: &[u8], start: usize, end: usize) -> bool {
    src.get(start..end) == Some(&b"*"[..]) && in_tile_list(src, start)
}

/// Whether byte `at` is inside a tile's list: the innermost `(` open
/// before it follows `T`, or closed groups that follow `T`
/// (`T(8,128)(2,1)`; not `SC(0:1)(1:*)`, a split config's).
fn in_tile_list(src: &[u8], at: usize) -> bool {
    let Some(open) = open_before(src, at.min(src.len())) else {
        return false;
    };
    // Back over the groups before this one to the attribute's name.
    let mut end = open;
    loop {
        let Some(j) = src[..end].iter().rposition(|b| !b.is_ascii_whitespace()) else {
            return false;
        };
        match src[j] {
            b')' => match open_before(src, j) {
                Some(k) => end = k,
                None => return false,
            },
            b => return b == b'T',
        }
    }
}

/// The `(` that is open at byte `at` (the innermost), if any.
fn open_before(src: &[u8], at: usize) -> Option<usize> {
    let mut depth = 0usize;
    for i in (0..at).rev() {
        match src[i] {
            b')' => depth += 1,
            b'(' if depth > 0 => depth -= 1,
            b'(' => return Some(i),
            _ => {}
        }
    }
    None
}

/// For a diagnostic about an attribute's parentheses: `true` when its
/// `(` is missing, `false` when its `)` is.
fn paren_of(kind: &ParseErrorKind) -> Option<bool> {
    match kind {
        ParseErrorKind::ExpectedAttributeStart(_) => Some(true),
        ParseErrorKind::ExpectedAttributeEnd(_) => Some(false),
        ParseErrorKind::ExpectedListStart(TokenKind::Lparen) => Some(true),
        ParseErrorKind::ExpectedListEnd(TokenKind::Rparen) => Some(false),
        // The attributes XLA reads with words of their own.
        ParseErrorKind::Syntax(s) if s.ends_with("kLparen") => Some(true),
        ParseErrorKind::Syntax(s) if s.ends_with("kRparen") => Some(false),
        _ => None,
    }
}

/// The layout attribute a parenthesis diagnostic at byte `at` is about:
/// with `opening`, the one named by the token just before `at` (`L}`: its
/// `(` is missing); else the one named before the `(` open at `at`
/// (`E(8}`). Tokens, not bytes: XLA's lexer skips comments, which may
/// hold anything (`L // S`).
fn attribute_around(src: &[u8], at: usize, opening: bool) -> Option<&'static Attribute> {
    // The token before each open `(`, as deep as layouts nest in practice.
    const DEPTH: usize = 16;
    let mut before_open = [None; DEPTH];
    let (mut depth, mut prev) = (0usize, None);
    let mut lexer = Lexer::new(src);
    loop {
        // Every token but the end takes a byte at least: this ends.
        let t = lexer.next_token();
        if t.kind == TokenKind::Eof || t.start >= at {
            break;
        }
        match t.kind {
            TokenKind::Lparen => {
                if let Some(slot) = before_open.get_mut(depth) {
                    *slot = prev;
                }
                depth += 1;
            }
            TokenKind::Rparen => depth = depth.saturating_sub(1),
            _ => {}
        }
        prev = Some(t);
    }
    let name: Token = match opening {
        true => prev?,
        false => (*before_open.get(depth.checked_sub(1)?)?)?,
    };
    let name = core::str::from_utf8(src.get(name.start..name.end)?).ok()?;
    attribute_index(name).map(|i| &ATTRIBUTES[i])
}

/// Whether the layout around byte `at` has its `:` before `at` (the text
/// from the layout's `{` to `at`, brackets inside attributes aside, holds
/// one).
fn past_colon(src: &[u8], at: usize) -> bool {
    let before = &src[..at.min(src.len())];
    match before.iter().rposition(|&b| b == b'{') {
        Some(open) => before[open..].contains(&b':'),
        None => true,
    }
}

/// The text of the token at `start..end` for a message. The lexer's
/// tokens are bytes, so one may cut a character that is not ASCII: then
/// the whole character (`é`, not half of it), or "" only at the end.
fn token_text(src: &[u8], start: usize, end: usize) -> &str {
    let start = start.min(src.len());
    // Back to the character's first byte (UTF-8 continuations are 0b10xxxxxx).
    let first = (0..=start)
        .rev()
        .find(|&i| src.get(i).is_none_or(|&b| b & 0xC0 != 0x80))
        .unwrap_or(start);
    let rest = &src[first..];
    let valid = match core::str::from_utf8(rest) {
        Ok(s) => s,
        Err(e) => core::str::from_utf8(&rest[..e.valid_up_to()]).unwrap_or_default(),
    };
    let want = end.max(start) - first;
    // The token's bytes, widened to whole characters.
    let mut cut = want.min(valid.len());
    while !valid.is_char_boundary(cut) {
        cut += 1;
    }
    match &valid[..cut] {
        "" => valid.chars().next().map_or("", |c| &valid[..c.len_utf8()]),
        t => t,
    }
}

/// "unknown element type `name`", then the type meant, or what the
/// types are: the words of the parser's hint and of serde's error.
pub(crate) fn unknown_element_type(f: &mut Formatter<'_>, name: &str) -> fmt::Result {
    write!(f, "unknown element type `{name}`")?;
    let unknown = crate::UnknownElementType::of(name);
    match unknown.meant() {
        Some(_) => unknown.suggest(f),
        None => f.write_str(
            "; element types are pred, s1..s64, u1..u64, f16, bf16, f32, f64, the f8/f6/f4 types, c64, c128",
        ),
    }
}

impl Display for Explained<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let d = self.diagnostic;
        let token = token_text(self.src, d.start, d.end);
        let xla = d.message(self.src);
        let lexed = Lexer::at(self.src, d.start).next_token();
        match &d.kind {
            ParseErrorKind::ExpectedPrimitiveType(TokenKind::Ident) => {
                unknown_element_type(f, token)
            }
            ParseErrorKind::ExpectedPrimitiveType(_) if d.start < self.src.len() => {
                write!(
                    f,
                    "expected an element type such as `f32` or `bf16`, found {} (XLA: {xla})",
                    Described::at(self.src, d.start, token)
                )
            }
            ParseErrorKind::ExpectedPrimitiveType(_) => {
                write!(
                    f,
                    "expected an element type such as `f32` or `bf16` (XLA: {xla})"
                )
            }
            ParseErrorKind::ExpectedInteger if lexed.kind == TokenKind::Decimal => write!(
                f,
                "`{token}` is a float literal; XLA expects an integer here (XLA: {xla})"
            ),
            // Digits the lexer could not take: past 64 bits.
            ParseErrorKind::ExpectedInteger
                if !token.is_empty() && token.bytes().all(|b| b.is_ascii_digit()) =>
            {
                write!(
                    f,
                    "`{token}` is past the largest integer XLA reads (64 bits) (XLA: {xla})"
                )
            }
            ParseErrorKind::ExpectedInteger => write!(
                f,
                "expected an integer, found {} (XLA: {xla})",
                Described::at(self.src, d.start, token)
            ),
            // A size past int64's largest, written positive: XLA reads its
            // 64 bits as a signed number, and that is negative.
            ParseErrorKind::InvalidDimensionSize { index, size }
                if !token.is_empty() && token.bytes().all(|b| b.is_ascii_digit()) =>
            {
                write!(
                    f,
                    "dimension {index} is `{token}`, past the largest size XLA keeps \
                     (2^63 − 1): XLA reads it as {size} and refuses it with an empty message"
                )
            }
            // Still in minor_to_major: `{1,0 T(…)}` or `{1,0;T(…)}` lack the `:`.
            ParseErrorKind::LayoutNotClosed if !past_colon(self.src, d.start) => write!(
                f,
                "expected `:` between minor_to_major and the attributes (or `}}`), found {} (XLA: {xla})",
                Described::at(self.src, d.start, token)
            ),
            ParseErrorKind::LayoutNotClosed if attribute_index(token).is_some() => write!(
                f,
                "layout attribute `{token}` is out of order or repeated: attributes come at most once each, in the order {AttributeOrder} (XLA: {xla})"
            ),
            ParseErrorKind::LayoutNotClosed => match Described::at(self.src, d.start, token) {
                Described::End => write!(
                    f,
                    "the shape ends inside the layout: after `:` come the attributes {AttributeOrder}, each at most once and in that order, then `}}` (XLA: {xla})"
                ),
                found => write!(
                    f,
                    "unexpected {found} in the layout: after `:` come the attributes {AttributeOrder}, each at most once and in that order, then `}}` (XLA: {xla})"
                ),
            },
            ParseErrorKind::ExtraContent(_) => match Described::at(self.src, d.start, token) {
                Described::Byte(b) => write!(
                    f,
                    "unexpected byte 0x{b:02X} after the shape, which is not UTF-8 (XLA: {xla})"
                ),
                // JAX's format, with a layout it does not say in its own
                // form (`Format(layout=AUTO)` reads as the shape alone).
                Described::Text("Format") => write!(
                    f,
                    "unexpected `Format` after the shape: JAX's format is read with \
                     `layout=Layout(...)`, `layout=None` or `layout=AUTO`, and nothing after \
                     its `)` (XLA: {xla})"
                ),
                found => write!(f, "unexpected {found} after the shape (XLA: {xla})"),
            },
            ParseErrorKind::MinorToMajorCount {
                rank,
                minor_to_major,
            } => write!(
                f,
                "minor_to_major must have one entry per dimension: the shape has {} but the layout lists {minor_to_major} (XLA: {xla})",
                crate::joined::Counted(*rank as u64, "dimension", "dimensions")
            ),
            kind if let Some(a) =
                paren_of(kind).and_then(|o| attribute_around(self.src, d.start, o)) =>
            {
                let paren = if paren_of(kind) == Some(true) {
                    '('
                } else {
                    ')'
                };
                write!(
                    f,
                    "layout attribute `{}` ({}) is written `{}`: expected `{paren}`, found {} (XLA: {xla})",
                    a.name,
                    a.about,
                    a.written,
                    Described::at(self.src, d.start, token)
                )
            }
            ParseErrorKind::ExpectedListStart(kind) | ParseErrorKind::ExpectedListEnd(kind) => {
                write!(
                    f,
                    "expected `{}`, found {} (XLA: {xla})",
                    kind.text(),
                    Described::at(self.src, d.start, token)
                )
            }
            ParseErrorKind::PhysicalShapeOnDenseArray { .. } => write!(
                f,
                "P(shape) physical shapes belong to sparse arrays, which XLA no longer has (XLA: {xla})"
            ),
            _ => write!(f, "{xla}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{ParseOptions, parse_shape_with};

    /// An attribute written without its `(` or its `)` is named, with how
    /// it is written, whatever words XLA's parser has for it: every row
    /// of the table but `P`, whose every use fails first as a physical
    /// shape on a dense array (what XLA says of it).
    #[test]
    fn a_missing_parenthesis_names_its_attribute() {
        let strict = ParseOptions::default().with_strict(true);
        for a in ATTRIBUTES.iter().filter(|a| a.name != "P") {
            let open = format!("{}(", a.name);
            for text in [
                format!("f32[8]{{0:{}}}", a.name),
                format!("f32[8]{{0:{} }}", a.name),
                format!("f32[8]{{0:{} 7}}", a.name),
            ] {
                let e = parse_shape_with(text.as_bytes(), strict).unwrap_err();
                let said = e.explain(&text).to_string();
                let want = format!(
                    "layout attribute `{}` ({}) is written `{}`: expected `(`",
                    a.name, a.about, a.written
                );
                assert!(said.starts_with(&want), "{text}: {said}");
                assert!(a.written.starts_with(&open), "{}", a.written);
            }
        }
        // Its `)`: the attributes whose value is one number or type.
        for (text, name) in [
            ("f32[8]{0:L(2}", "L"),
            ("f32[8]{0:E(8 }", "E"),
            ("f32[8]{0:S(1,}", "S"),
            ("f32[8]{0:M(4}", "M"),
            ("f32[8]{0:#(u32}", "#"),
            ("f32[8]{0:*(u32}", "*"),
            ("f32[8]{0:T(8}", "T"),
        ] {
            let e = parse_shape_with(text.as_bytes(), strict).unwrap_err();
            let said = e.explain(text).to_string();
            let want = format!("layout attribute `{name}` (");
            assert!(
                said.starts_with(&want) && said.contains("expected `)`"),
                "{text}: {said}"
            );
        }
        // Comments are skipped, as XLA's lexer skips them.
        for (text, name) in [
            ("f32[8]{0:L // S\n}", "L"),
            ("f32[8]{0:E(8 /* S( */ }", "E"),
            ("f32[8]{0:M /* ) */ }", "M"),
        ] {
            let e = parse_shape_with(text.as_bytes(), strict).unwrap_err();
            let said = e.explain(text).to_string();
            let want = format!("layout attribute `{name}` (");
            assert!(said.starts_with(&want), "{text}: {said}");
        }
        // Not an attribute's own: XLA's words, explained as before.
        for text in ["f32[8]{0:Q}", "f32[8]{0:T(8)(2}", "(f32[8]{0}"] {
            let e = parse_shape_with(text.as_bytes(), strict).unwrap_err();
            assert!(
                !e.explain(text).to_string().contains("layout attribute `"),
                "{text}"
            );
        }
    }
}
