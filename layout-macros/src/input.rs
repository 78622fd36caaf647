//! The macro's own syntax: items (`pub type Name = SHAPE;`) or one
//! expression (`SHAPE`, `"SHAPE"` or `hlo("dump.hlo", "name")`). The shape
//! itself is left as tokens.

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::parse::discouraged::Speculative;
use syn::parse::{Parse, ParseStream};
use syn::{Attribute, Ident, LitStr, Token, Visibility};

/// Where a shape comes from.
pub enum Source {
    /// Tokens written in the macro: `bf16[8,128]{1,0}` or `bf16[8,128]<1,0>`.
    Tokens(Vec<TokenTree>),
    /// A string literal pasted from an HLO dump.
    Literal(LitStr),
    /// `hlo("dump.hlo", "name", index...)`: an instruction's shape in a
    /// dump file.
    Hlo(HloRef),
    /// `tpu(SHAPE)` or `tpu(SHAPE, v6e)`: SHAPE (written without a layout)
    /// with the layout a TPU gives it by default.
    Tpu(TpuRef),
}

/// `tpu(bf16[3,1000], v5e)`.
pub struct TpuRef {
    /// The shape's tokens.
    pub shape: Vec<TokenTree>,
    /// The generation, if written.
    pub generation: Option<Ident>,
    /// The whole `tpu(...)`, for errors.
    pub span: Span,
}

impl Parse for TpuRef {
    fn parse(input: ParseStream) -> syn::Result<TpuRef> {
        let content;
        let paren = syn::parenthesized!(content in input);
        let span = paren.span.join();
        let mut shape: Vec<TokenTree> = content.parse::<TokenStream>()?.into_iter().collect();
        // After the first top-level `,` comes the generation (a shape's own
        // commas are inside its brackets, or its `<…>` layout): one name.
        let mut generation = None;
        let mut angles = 0usize;
        let comma = shape.iter().position(|t| match t {
            TokenTree::Punct(p) => match p.as_char() {
                '<' => {
                    angles += 1;
                    false
                }
                '>' => {
                    angles = angles.saturating_sub(1);
                    false
                }
                c => c == ',' && angles == 0,
            },
            _ => false,
        });
        if let Some(at) = comma {
            let after: Vec<TokenTree> = shape.split_off(at);
            match &after[1..] {
                [TokenTree::Ident(g)] => generation = Some(g.clone()),
                rest => {
                    let at = rest.first().unwrap_or(&after[0]);
                    let found = match rest {
                        [] => "nothing".to_string(),
                        [one] => format!("`{one}`"),
                        _ => format!(
                            "`{}`",
                            rest.iter()
                                .map(ToString::to_string)
                                .collect::<Vec<_>>()
                                .join(" ")
                        ),
                    };
                    return Err(syn::Error::new(
                        at.span(),
                        format!(
                            "after the shape's `,` comes one TPU generation, written as a name: {} (found {found})",
                            xla_layout_core::tpu::Generation::NAMES
                        ),
                    ));
                }
            }
        }
        if shape.is_empty() {
            return Err(syn::Error::new(
                span,
                "expected `tpu(SHAPE)`, e.g. `tpu(bf16[3,1000])`, or `tpu(SHAPE, v6e)`",
            ));
        }
        Ok(TpuRef {
            shape,
            generation,
            span,
        })
    }
}

/// `hlo("path", "name", 1, 0)`.
pub struct HloRef {
    /// The dump, relative to the crate's manifest directory.
    pub path: LitStr,
    /// The instruction: `name` or `computation/name`.
    pub name: LitStr,
    /// The element of a tuple shape, one index per level.
    pub index: Vec<syn::LitInt>,
}

impl Parse for HloRef {
    fn parse(input: ParseStream) -> syn::Result<HloRef> {
        let hint = "expected `hlo(\"path/to/dump.hlo\", \"instruction\")`, with tuple indices after the name if the shape is a tuple";
        let content;
        syn::parenthesized!(content in input);
        let path: LitStr = content
            .parse()
            .map_err(|e| syn::Error::new(e.span(), hint))?;
        content
            .parse::<Token![,]>()
            .map_err(|e| syn::Error::new(e.span(), hint))?;
        let name: LitStr = content
            .parse()
            .map_err(|e| syn::Error::new(e.span(), hint))?;
        no_suffix(&path)?;
        no_suffix(&name)?;
        let mut index = Vec::new();
        while !content.is_empty() {
            content.parse::<Token![,]>()?;
            if content.is_empty() {
                break;
            }
            let i: syn::LitInt = content
                .parse()
                .map_err(|e| syn::Error::new(e.span(), "a tuple index is a number, such as `0`"))?;
            if !i.suffix().is_empty() {
                return Err(syn::Error::new(
                    i.span(),
                    format!(
                        "a tuple index takes no suffix: write `{}`",
                        i.base10_digits()
                    ),
                ));
            }
            index.push(i);
        }
        Ok(HloRef { path, name, index })
    }
}

impl Source {
    /// The dump reference, for `hlo(...)`.
    pub fn hlo(&self) -> Option<&HloRef> {
        match self {
            Source::Hlo(r) => Some(r),
            _ => None,
        }
    }

    /// A span for errors about the whole shape.
    pub fn span(&self) -> Span {
        match self {
            Source::Tokens(t) => t.first().map_or_else(Span::call_site, TokenTree::span),
            Source::Literal(l) => l.span(),
            Source::Hlo(h) => h.name.span(),
            Source::Tpu(t) => t.span,
        }
    }
}

/// `#[attrs] vis type Name = SHAPE;`
pub struct Item {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub name: Ident,
    pub source: Source,
}

/// Everything inside `layout!(...)`.
pub enum Input {
    /// Type items, and the errors of those that do not read (each skipped
    /// to its `;`, so that the others are still read and checked).
    Items(Vec<Item>, Vec<syn::Error>),
    /// One shape as an expression.
    Expr(Source),
}

impl Parse for Input {
    fn parse(input: ParseStream) -> syn::Result<Input> {
        if input.is_empty() {
            return Err(input.error(
                "expected an XLA shape such as `bf16[8,128]{1,0:T(8,128)(2,1)}`, or `pub type Name = <shape>;`",
            ));
        }
        let fork = input.fork();
        let _ = fork.call(Attribute::parse_outer);
        let _ = fork.parse::<Visibility>();
        if input.peek(Token![#]) || fork.peek(Token![type]) {
            let (mut items, mut errors) = (Vec::new(), Vec::new());
            while !input.is_empty() {
                // An inner attribute is told and skipped alone: the item
                // after it still reads.
                if input.peek(Token![#]) && input.peek2(Token![!]) {
                    let at = input.span();
                    input.parse::<Token![#]>()?;
                    input.parse::<Token![!]>()?;
                    if input.peek(syn::token::Bracket) {
                        input.parse::<proc_macro2::Group>()?;
                    }
                    errors.push(syn::Error::new(
                        at,
                        "an inner attribute `#![…]` applies to the module around `layout!`, \
                         not inside it: put it there, or write `#[…]` on an item",
                    ));
                    continue;
                }
                let fork = input.fork();
                match fork.parse::<Item>() {
                    Ok(item) => {
                        input.advance_to(&fork);
                        items.push(item);
                    }
                    Err(e) => {
                        errors.push(e);
                        skip_item(input)?;
                    }
                }
            }
            return Ok(Input::Items(items, errors));
        }
        // `Name = shape;`, `pub struct Name = …`, `typ Name = …`: an item
        // without `type`. Said here, at the word: expanded as an expression
        // in an item's place, it would only meet rustc's "macro expansion
        // ignores".
        let item = input.fork();
        let has_vis = !matches!(item.parse::<Visibility>(), Ok(Visibility::Inherited));
        if let Ok(first) = item.call(<Ident as syn::ext::IdentExt>::parse_any) {
            let named = item.peek(syn::Ident) && item.peek2(Token![=]);
            if ["struct", "enum", "const", "static", "let", "fn"]
                .iter()
                .any(|k| first == k)
                || named
            {
                return Err(syn::Error::new(
                    first.span(),
                    format!("layout! names a layout with `type Name = <shape>;`, not `{first}`"),
                ));
            }
            if item.peek(Token![=]) && !item.peek(Token![==]) {
                return Err(syn::Error::new(
                    first.span(),
                    "to name a layout, write `type Name = <shape>;`",
                ));
            }
        }
        // No shape starts with a visibility or a `;`.
        if has_vis {
            return Err(item.error("expected `type Name = <shape>;` after the visibility"));
        }
        if input.peek(Token![;]) {
            return Err(input.error(
                "expected an XLA shape such as `bf16[8,128]{1,0:T(8,128)(2,1)}`, or `pub type Name = <shape>;`",
            ));
        }
        let source = parse_source(input, false)?;
        if !input.is_empty() {
            return Err(input.error("unexpected tokens after the shape"));
        }
        Ok(Input::Expr(source))
    }
}

impl Parse for Item {
    fn parse(input: ParseStream) -> syn::Result<Item> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis: Visibility = input.parse()?;
        input.parse::<Token![type]>()?;
        let name: Ident = input.parse()?;
        if input.peek(Token![<]) {
            return Err(input.error("layout types take no generic parameters"));
        }
        input.parse::<Token![=]>()?;
        let source = parse_source(input, true)?;
        // The last item may leave out its `;`, as a last statement may.
        if !input.is_empty() {
            input.parse::<Token![;]>()?;
        }
        Ok(Item {
            attrs,
            vis,
            name,
            source,
        })
    }
}

/// Skips an item that does not read: its tokens up to and with the next
/// top-level `;` (a `;` inside brackets is another item's only in text
/// that does not read anyway).
fn skip_item(input: ParseStream) -> syn::Result<()> {
    input.step(|cursor| {
        let mut rest = *cursor;
        while let Some((tt, next)) = rest.token_tree() {
            rest = next;
            if matches!(&tt, proc_macro2::TokenTree::Punct(p) if p.as_char() == ';') {
                break;
            }
        }
        Ok(((), rest))
    })
}

/// A string literal, or every token up to a top-level `;` (items) or the
/// end (expressions).
fn parse_source(input: ParseStream, in_item: bool) -> syn::Result<Source> {
    if input.peek(Ident) && input.peek2(syn::token::Paren) {
        let fork = input.fork();
        let ident: Ident = fork.parse()?;
        if ident == "hlo" {
            input.parse::<Ident>()?;
            return Ok(Source::Hlo(input.parse()?));
        }
        if ident == "tpu" {
            input.parse::<Ident>()?;
            return Ok(Source::Tpu(input.parse()?));
        }
    }
    // `b"…"` and `c"…"` are one token each: lexed as shape text they
    // read as an element type `b` or `c`.
    if input.peek(syn::LitByteStr) || input.peek(syn::LitCStr) {
        let lit: syn::Lit = input.parse()?;
        let (kind, value) = match &lit {
            syn::Lit::ByteStr(b) => (
                "a byte string",
                String::from_utf8_lossy(&b.value()).into_owned(),
            ),
            syn::Lit::CStr(c) => ("a C string", c.value().to_string_lossy().into_owned()),
            _ => ("a literal", String::new()),
        };
        return Err(syn::Error::new(
            lit.span(),
            format!("the shape is text, not {kind}: write \"{value}\""),
        ));
    }
    if input.peek(LitStr) {
        let fork = input.fork();
        let lit: LitStr = fork.parse()?;
        if fork.is_empty() || (in_item && fork.peek(Token![;])) {
            input.parse::<LitStr>()?;
            no_suffix(&lit)?;
            return Ok(Source::Literal(lit));
        }
        // Strings are not joined: say so at the second one.
        if let Ok(second) = fork.parse::<LitStr>() {
            return Err(syn::Error::new(
                second.span(),
                format!(
                    "one string holds the whole shape: write \"{}{}\"",
                    lit.value(),
                    second.value()
                ),
            ));
        }
        // A string, then more: the shape is one or the other.
        let next = fork.cursor().token_tree().map(|(t, _)| t);
        return Err(syn::Error::new(
            next.as_ref().map_or_else(|| fork.span(), TokenTree::span),
            format!(
                "unexpected `{}` after the string: the string holds the whole shape{}",
                next.map(|t| t.to_string()).unwrap_or_default(),
                if in_item { ", then `;`" } else { "" }
            ),
        ));
    }
    let tokens = input.step(|cursor| {
        let mut rest = *cursor;
        let mut tokens = Vec::new();
        while let Some((tt, next)) = rest.token_tree() {
            if in_item && matches!(&tt, TokenTree::Punct(p) if p.as_char() == ';') {
                break;
            }
            tokens.push(tt);
            rest = next;
        }
        Ok((tokens, rest))
    })?;
    if tokens.is_empty() {
        return Err(input.error("expected an XLA shape such as `f32[128,256]{1,0}`"));
    }
    Ok(Source::Tokens(tokens))
}

/// Refuses a string literal with a suffix (`"f32[8]"x`), which Rust
/// refuses everywhere else and which would otherwise be dropped unseen.
fn no_suffix(lit: &LitStr) -> syn::Result<()> {
    match lit.suffix() {
        "" => Ok(()),
        suffix => Err(syn::Error::new(
            lit.span(),
            format!("a string here takes no suffix: remove `{suffix}`"),
        )),
    }
}

/// Re-emits attributes.
pub fn attrs_tokens(attrs: &[Attribute]) -> TokenStream {
    let mut ts = TokenStream::new();
    for a in attrs {
        quote::ToTokens::to_tokens(a, &mut ts);
    }
    ts
}
