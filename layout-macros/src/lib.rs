//! The `layout!` macro of xla-layout: XLA layout text → zero-sized types
//! whose address arithmetic is folded into constants.
//!
//! Use it through the `xla-layout` crate, which passes its own path in so
//! that the generated code does not depend on how it was imported. The
//! pipeline is `input` (the macro's syntax) → `hlo` (a shape imported from
//! a dump, with `xla-layout-hlo`'s reader) or `to_text` (tokens back to XLA
//! text) → `check` (layout-core parses, validates and tiles) → `codegen`
//! (literals and straight-line arithmetic).

mod check;
mod codegen;
mod hlo;
mod input;
mod to_text;

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::quote;

use codegen::Krate;
use input::{Input, Source};
use to_text::SourceText;

/// Turns XLA layout text into zero-sized layout types; see the `xla-layout`
/// crate for the documentation.
#[proc_macro]
pub fn layout(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    let input = TokenStream::from(input);
    // A panic here is a bug; still, answer with an error, not a crash.
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| expand(input))) {
        Ok(out) => out.into(),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            let message = format!("xla-layout internal error, please report: {what}");
            quote!(::core::compile_error!(#message);).into()
        }
    }
}

fn expand(input: TokenStream) -> TokenStream {
    let (krate, input) = split_crate_path(input);
    let parsed: Input = match syn::parse2(input) {
        Ok(p) => p,
        Err(e) => return e.to_compile_error(),
    };
    let mut errors = Vec::new();
    let items = match parsed {
        Input::Items(items) => {
            let mut out = TokenStream::new();
            for item in items {
                let attrs = input::attrs_tokens(&item.attrs);
                let vis = quote::ToTokens::to_token_stream(&item.vis);
                out.extend(expand_one(
                    &krate,
                    &item.source,
                    &attrs,
                    &vis,
                    &item.name,
                    &mut errors,
                ));
            }
            out
        }
        Input::Expr(source) => {
            let name = proc_macro2::Ident::new("XlaLayout", source.span());
            let items = expand_one(
                &krate,
                &source,
                &TokenStream::new(),
                &TokenStream::new(),
                &name,
                &mut errors,
            );
            // An expression: the errors go inside the block.
            let errors = errors.iter().map(syn::Error::to_compile_error);
            return quote!({ #(#errors)* #items #name });
        }
    };
    let errors = errors.iter().map(syn::Error::to_compile_error);
    quote!(#(#errors)* #items)
}

/// The struct and its impls for one shape; errors go to `errors` and a
/// fallback is emitted in their place.
fn expand_one(
    krate: &Krate,
    source: &Source,
    attrs: &TokenStream,
    vis: &TokenStream,
    name: &proc_macro2::Ident,
    errors: &mut Vec<syn::Error>,
) -> TokenStream {
    let mut track = TokenStream::new();
    let text = match source {
        Source::Tokens(tokens) => SourceText::from_tokens(tokens),
        Source::Literal(lit) => Ok(SourceText::from_literal(lit)),
        Source::Hlo(r) => hlo::import(r).map(|imported| {
            track = imported.track;
            imported.text
        }),
    };
    let checked = match text {
        Ok(text) => check::check(&text, errors),
        Err(e) => {
            errors.push(e);
            Err(check::Partial::default())
        }
    };
    let mut out = track;
    match checked {
        Ok(c) => {
            let mut doc = codegen::doc_line(&c);
            if let Source::Hlo(r) = source {
                doc.push_str(&format!(
                    " Imported from instruction `{}` of `{}`.",
                    r.name.value(),
                    r.path.value()
                ));
            }
            out.extend(codegen::struct_item(attrs, vis, name, &doc));
            out.extend(codegen::layout_items(krate, name, &c));
            out
        }
        Err(partial) => {
            out.extend(codegen::struct_item(
                attrs,
                vis,
                name,
                "\n\nAn invalid XLA layout (see the errors).",
            ));
            out.extend(codegen::fallback_items(krate, name, partial.rank));
            out
        }
    }
}

/// The facade passes `[$crate]` first; used directly, the macro assumes
/// the `xla_layout` crate.
fn split_crate_path(input: TokenStream) -> (Krate, TokenStream) {
    let mut iter = input.clone().into_iter();
    if let Some(TokenTree::Group(g)) = iter.next()
        && g.delimiter() == Delimiter::Bracket
        && is_crate_marker(&g.stream())
    {
        return (Krate(g.stream()), iter.collect());
    }
    (Krate(quote!(::xla_layout)), input)
}

/// `$crate`, possibly as a path like `::xla_layout`.
fn is_crate_marker(stream: &TokenStream) -> bool {
    let s = stream.to_string();
    s == "$crate" || s.starts_with(":: ") || s.starts_with("::")
}
