//! Rust tokens → XLA text, remembering which token each byte came from.
//!
//! The macro does not parse XLA's grammar itself: it turns the tokens back
//! into text and hands that to layout-core's parser (one grammar for the
//! whole project). The span map then turns the parser's byte ranges into
//! compile errors pointing at the offending tokens.

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use syn::LitStr;

/// XLA text and where each piece of it came from.
pub struct SourceText {
    pub text: String,
    pieces: Vec<Piece>,
    /// Written in JAX's form: its `major_to_minor` is XLA's
    /// `minor_to_major` reversed, which errors about the latter say.
    pub from_jax: bool,
    /// Tokens of an item, which run to the item list's next `;`: what
    /// follows a forgotten one is then part of the text.
    pub to_next_semicolon: bool,
    /// A string literal's text, under one span: errors then say where in
    /// it they are (its value, escapes read). Not text from elsewhere (a
    /// dump's, or `tpu(...)`'s canonical form), which the user did not
    /// write.
    one_span: bool,
    /// Where text from elsewhere came from (a dump's line), said after
    /// each error's message: the span cannot point there.
    origin: Option<String>,
}

struct Piece {
    start: usize,
    end: usize,
    span: Span,
}

impl SourceText {
    /// The contents of a string literal: every error points at the literal.
    pub fn from_literal(lit: &LitStr) -> SourceText {
        let mut text = SourceText::from_text_at(lit.value(), lit.span());
        text.one_span = true;
        text
    }

    /// Text from elsewhere (an HLO dump): every error points at `span`.
    pub fn from_text_at(text: String, span: Span) -> SourceText {
        let pieces = vec![Piece {
            start: 0,
            end: text.len().max(1),
            span,
        }];
        SourceText {
            text,
            pieces,
            from_jax: false,
            to_next_semicolon: false,
            one_span: false,
            origin: None,
        }
    }

    /// The same text, its errors saying that it came from `origin`.
    pub fn with_origin(mut self, origin: String) -> SourceText {
        self.origin = Some(origin);
        self
    }

    /// `text` read from this source in another form (JAX's, say): every
    /// error covers the whole source.
    pub fn replaced(&self, text: String) -> SourceText {
        let span = |p: Option<&Piece>| p.map_or(Span::call_site(), |p| p.span);
        let (first, last) = (span(self.pieces.first()), span(self.pieces.last()));
        let end = text.len().max(1);
        // Two pieces over all of it: an error's first and last covering
        // pieces are then the source's first and last tokens.
        let pieces = [first, last].map(|span| Piece {
            start: 0,
            end,
            span,
        });
        SourceText {
            text,
            pieces: pieces.into(),
            from_jax: false,
            to_next_semicolon: false,
            one_span: false,
            origin: self.origin.clone(),
        }
    }

    /// Shape tokens written directly in the macro. An angle-bracket layout
    /// after the dimensions, `f32[2,3]<1,0>`, is read as `{1,0}`.
    pub fn from_tokens(tokens: &[TokenTree]) -> syn::Result<SourceText> {
        let mut out = SourceText {
            text: String::new(),
            pieces: Vec::new(),
            from_jax: false,
            to_next_semicolon: false,
            one_span: false,
            origin: None,
        };
        let mut writer = Writer {
            out: &mut out,
            last_word: false,
            glue_next: true,
        };
        let mut angle_open: Option<Span> = None;
        let mut after_dims = false;
        for (i, tt) in tokens.iter().enumerate() {
            let next = tokens.get(i + 1);
            match tt {
                TokenTree::Punct(p) if p.as_char() == '<' && after_dims && angle_open.is_none() => {
                    angle_open = Some(p.span());
                    writer.push("{", p.span(), false);
                }
                TokenTree::Punct(p) if p.as_char() == '>' && angle_open.is_some() => {
                    angle_open = None;
                    writer.push("}", p.span(), false);
                }
                tt => writer.token(tt, next),
            }
            after_dims = matches!(tt, TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket);
        }
        if let Some(span) = angle_open {
            return Err(syn::Error::new(
                span,
                "this `<` opens a layout that is never closed with `>`",
            ));
        }
        Ok(out)
    }

    /// A compile error at the tokens covering bytes `start..end`.
    pub fn error(&self, start: usize, end: usize, message: impl std::fmt::Display) -> syn::Error {
        let end = end.max(start + 1);
        let covering: Vec<&Piece> = self
            .pieces
            .iter()
            .filter(|p| p.start < end && start < p.end)
            .collect();
        let (first, last) = match (covering.first(), covering.last()) {
            (Some(f), Some(l)) => (f.span, l.span),
            // Past the end: point at the last token.
            _ => match self.pieces.last() {
                Some(p) => (p.span, p.span),
                None => (Span::call_site(), Span::call_site()),
            },
        };
        // A string literal wider than the error: stable Rust cannot point
        // inside a token, so the message says where, unless it already
        // does.
        let message = message.to_string();
        let message = match covering.as_slice() {
            [p] if self.one_span
                && (p.start < start || end < p.end)
                && !message.contains("(at byte") =>
            {
                let at = self.text.get(start..end.min(self.text.len())).unwrap_or("");
                // The message may quote the culprit already.
                match at.trim().is_empty() || message.contains(&format!("`{at}`")) {
                    true => format!("{message} (at byte {start} of `{}`)", self.text),
                    false => format!("{message} (at `{at}`, byte {start} of `{}`)", self.text),
                }
            }
            _ => message,
        };
        let message = match &self.origin {
            Some(origin) => format!("{message}; {origin}"),
            None => message,
        };
        // Two marker tokens make the error cover first..last on stable.
        let mut markers = TokenStream::new();
        for span in [first, last] {
            let mut p = proc_macro2::Punct::new('.', proc_macro2::Spacing::Alone);
            p.set_span(span);
            markers.extend([TokenTree::Punct(p)]);
        }
        syn::Error::new_spanned(markers, message)
    }
}

struct Writer<'a> {
    out: &'a mut SourceText,
    /// Whether the last token was a word (identifier or literal), which a
    /// following word must be separated from.
    last_word: bool,
    /// Whether the next punctuation may join the last one (`<` `=`).
    glue_next: bool,
}

impl Writer<'_> {
    fn push(&mut self, s: &str, span: Span, word: bool) {
        if (word && self.last_word) || (!word && !self.glue_next && !s.is_empty()) {
            self.out.text.push(' ');
        }
        let start = self.out.text.len();
        self.out.text.push_str(s);
        self.out.pieces.push(Piece {
            start,
            end: self.out.text.len(),
            span,
        });
        self.last_word = word;
        self.glue_next = true;
    }

    fn token(&mut self, tt: &TokenTree, next: Option<&TokenTree>) {
        match tt {
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::None => ("", ""),
                };
                self.push(open, g.span_open(), false);
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                for (i, t) in inner.iter().enumerate() {
                    self.token(t, inner.get(i + 1));
                }
                self.push(close, g.span_close(), false);
            }
            TokenTree::Ident(id) => self.push(&id.to_string(), id.span(), true),
            TokenTree::Literal(lit) => self.push(&lit.to_string(), lit.span(), true),
            TokenTree::Punct(p) => {
                let mut buf = [0u8; 4];
                self.push(p.as_char().encode_utf8(&mut buf), p.span(), false);
                // `<` `=` written apart stay apart: XLA wants `<=` adjacent.
                let next_is_punct = matches!(next, Some(TokenTree::Punct(_)));
                self.glue_next = !(p.spacing() == proc_macro2::Spacing::Alone && next_is_punct);
            }
        }
    }
}
