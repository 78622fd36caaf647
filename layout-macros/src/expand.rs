//! The expansion: input → each item's text → checked shape → code, with
//! every error collected in a [`Ctxt`] (module `ctxt`).
//!
//! The context's one guarantee: an item whose layout records any error is
//! emitted as the fallback type (right rank, no valid index), never
//! half-built, so the errors are all reported and the rest of the crate
//! still type-checks. serde_derive's `Ctxt` is the model. Errors about the
//! item's attributes (a derive the type has already) leave its layout
//! whole: the attribute is corrected, the layout built.

use proc_macro2::{Delimiter, Ident, TokenStream, TokenTree};
use quote::quote;

use crate::check::{self, Partial};
use crate::codegen::{self, Krate};
use crate::ctxt::Ctxt;
use crate::hlo;
use crate::input::{Input, Source, TpuRef};
use crate::to_text::SourceText;

/// The code for one item. `build` gives the item's code and what is
/// known of it; if it recorded any error in `cx`, the item is the
/// fallback instead, whatever `build` returned: the context's promise.
fn emit_item(
    cx: &mut Ctxt,
    krate: &Krate,
    name: &Ident,
    header: &Header<'_>,
    build: impl FnOnce(&mut Ctxt) -> Result<Built, Partial>,
) -> TokenStream {
    let before = cx.error_count();
    let built = build(cx);
    let (item, rest) = match built {
        Ok(built) if cx.error_count() == before => {
            let mut rest = built.track;
            rest.extend(built.items);
            let item = codegen::struct_item(header.attrs, header.vis, name, &built.doc);
            (item, rest)
        }
        result => {
            let partial = result.err().unwrap_or_default();
            let item = codegen::struct_item(
                header.attrs,
                header.vis,
                name,
                "\n\nAn invalid XLA layout (see the errors).",
            );
            (item, codegen::fallback_items(krate, name, &partial))
        }
    };
    // The struct carries the item's attributes; what is generated for it
    // (impls and anonymous consts only) goes with its `#[cfg]`s, in one
    // anonymous const where there are any.
    let cfgs = header.cfgs;
    match cfgs.is_empty() {
        true => quote!(#item #rest),
        false => quote!(#item #cfgs const _: () = { #rest };),
    }
}

/// A valid item's code.
struct Built {
    /// Tracking of files read (`include_bytes!`), first.
    track: TokenStream,
    /// The struct's doc line.
    doc: String,
    /// The impls.
    items: TokenStream,
}

/// What goes on the struct itself, and the `#[cfg]`s among its
/// attributes (which go on what is generated for it too).
struct Header<'a> {
    attrs: &'a TokenStream,
    vis: &'a TokenStream,
    cfgs: &'a TokenStream,
}

/// Expands `layout!`'s input (after the facade's crate path).
pub fn layout(input: TokenStream) -> TokenStream {
    let (krate, input) = split_crate_path(input);
    let parsed: Input = match syn::parse2(input) {
        Ok(p) => p,
        Err(e) => return e.to_compile_error(),
    };
    let mut cx = Ctxt::default();
    match parsed {
        Input::Items(items, unread) => {
            let texts = hlo::Texts::read(items.iter().filter_map(|i| i.source.hlo()));
            let dumps = hlo::Dumps::parse(&texts);
            let (mut out, mut errors) = (TokenStream::new(), TokenStream::new());
            // Items that do not read, each told; the others still expand.
            for e in unread {
                errors.extend(e.to_compile_error());
            }
            // Each name so far, and whether it was under a `#[cfg]`.
            let mut names: Vec<(String, bool)> = Vec::new();
            for item in items {
                let before = cx.error_count();
                // An item configured out takes its code and its errors with
                // it (its text is still read here: a macro cannot see `cfg`).
                let configs = config_attrs(&item.attrs);
                let cfg_attrs: Vec<&syn::Attribute> = configs.iter().collect();
                // A name given twice is one error at the second, not
                // rustc's cascade of conflicts, unless both are under
                // `#[cfg]`s (one layout per configuration).
                // `r#A` is `A`.
                let name = syn::ext::IdentExt::unraw(&item.name).to_string();
                let configured = !configs.is_empty();
                if names.iter().any(|(n, c)| *n == name && !(*c && configured)) {
                    cx.error(syn::Error::new(
                        item.name.span(),
                        format!("`{name}` is named twice in this `layout!`: each layout needs its own name"),
                    ));
                    errors.extend(cx.take_since(before, &cfg_attrs));
                    continue;
                }
                names.push((name, configured));
                let kept = without_derived(&mut cx, &item.attrs);
                let attrs = crate::input::attrs_tokens(&kept);
                let vis = quote::ToTokens::to_token_stream(&item.vis);
                let cfgs = quote!(#(#cfg_attrs)*);
                let header = Header {
                    attrs: &attrs,
                    vis: &vis,
                    cfgs: &cfgs,
                };
                out.extend(emit_item(&mut cx, &krate, &item.name, &header, |cx| {
                    build(cx, &krate, &dumps, &item.name, &item.source, true)
                }));
                errors.extend(cx.take_since(before, &cfg_attrs));
            }
            quote!(#errors #out)
        }
        Input::Expr(source) => {
            let texts = hlo::Texts::read(source.hlo());
            let dumps = hlo::Dumps::parse(&texts);
            let name = Ident::new("XlaLayout", source.span());
            let none = TokenStream::new();
            let header = Header {
                attrs: &none,
                vis: &none,
                cfgs: &none,
            };
            let items = emit_item(&mut cx, &krate, &name, &header, |cx| {
                build(cx, &krate, &dumps, &name, &source, false)
            });
            // An expression: the errors go inside the block.
            let errors = cx.into_errors();
            quote!({ #errors #items #name })
        }
    }
}

/// One item (`in_item`) or the expression form: its text (written,
/// pasted or imported from one of `dumps`), checked by layout-core, then
/// generated.
fn build(
    cx: &mut Ctxt,
    krate: &Krate,
    dumps: &hlo::Dumps<'_>,
    name: &Ident,
    source: &Source,
    in_item: bool,
) -> Result<Built, Partial> {
    let mut track = TokenStream::new();
    let text = match source {
        Source::Tokens(tokens) => SourceText::from_tokens(tokens).and_then(|mut t| {
            t.to_next_semicolon = in_item;
            other_forms(t, Written::Tokens)
        }),
        Source::Literal(lit) => other_forms(SourceText::from_literal(lit), Written::String),
        Source::Hlo(r) => hlo::import(r, dumps).map(|imported| {
            track = imported.track;
            imported.text
        }),
        Source::Tpu(t) => tpu_default(t),
    };
    let text = text.map_err(|e| {
        cx.error(e);
        Partial {
            rank: written_rank(source),
            logical: None,
        }
    })?;
    let checked = check::check(&text, cx)?;
    let mut doc = codegen::doc_line(&checked);
    if let Source::Hlo(r) = source {
        doc.push_str(&format!(
            " Imported from instruction `{}` of `{}`.",
            r.name.value(),
            r.path.value()
        ));
    }
    Ok(Built {
        track,
        doc,
        items: codegen::layout_items(krate, name, &checked),
    })
}

/// The rank a shape was written with, for the fallback of one that
/// failed before layout-core could read it (a token that is not shape
/// text, `tpu(...)`'s generation, a JAX layout): the entries of its first
/// `[...]`, so that code indexing the type as written still type-checks
/// and the one mistake stays one error. 0 for an import (no shape was
/// read).
fn written_rank(source: &Source) -> usize {
    let text = match source {
        Source::Tokens(t) => t.iter().cloned().collect::<TokenStream>().to_string(),
        Source::Tpu(t) => t.shape.iter().cloned().collect::<TokenStream>().to_string(),
        Source::Literal(l) => l.value(),
        Source::Hlo(_) => String::new(),
    };
    check::written_rank(&text).unwrap_or(0)
}

/// `tpu(SHAPE)`: SHAPE with its default TPU layout, from layout-core. A
/// shape that does not parse is handed on as written, so that `check`
/// points at the offending token.
fn tpu_default(t: &TpuRef) -> syn::Result<SourceText> {
    use xla_layout_core::tpu::{Generation, RequestError, default_layout_for};
    let inner = SourceText::from_tokens(&t.shape)?;
    let generation = match &t.generation {
        None => Generation::DEFAULT,
        Some(g) => Generation::from_name(&g.to_string()).ok_or_else(|| {
            syn::Error::new(g.span(), RequestError::UnknownGeneration.to_string())
        })?,
    };
    match default_layout_for(&inner.text, generation) {
        Ok(shape) => Ok(SourceText::from_text_at(shape.to_string(), t.span)),
        Err(RequestError::Parse(_)) => Ok(inner),
        Err(e) => Err(syn::Error::new(t.span, format!("tpu(...): {e}"))),
    }
}

/// `attrs` without the derives of traits every layout type has already
/// ([`crate::codegen::DERIVED`], `Debug`): each is an error here instead of
/// rustc's conflicting implementations, and the attribute keeps its other
/// derives. Looks inside `#[cfg_attr(…, derive(…))]` too.
fn without_derived(cx: &mut Ctxt, attrs: &[syn::Attribute]) -> Vec<syn::Attribute> {
    let mut kept = Vec::with_capacity(attrs.len());
    for a in attrs {
        match without_derived_meta(cx, &a.meta) {
            None => kept.push(a.clone()),
            Some(None) => {}
            Some(Some(meta)) => {
                let mut a = a.clone();
                a.meta = meta;
                kept.push(a);
            }
        }
    }
    kept
}

/// `meta` without the derives a layout type has already: `None` when it
/// has none of them (keep it as written), `Some(None)` when nothing is
/// left of it, else what is left. Into `cfg_attr`s, nested or not.
fn without_derived_meta(cx: &mut Ctxt, meta: &syn::Meta) -> Option<Option<syn::Meta>> {
    let syn::Meta::List(list) = meta else {
        return None;
    };
    if list.path.is_ident("derive") {
        let paths = list.parse_args_with(Paths::parse_terminated).ok()?;
        let keep = kept_derive(cx, &paths)?;
        return Some((!keep.is_empty()).then(|| syn::parse_quote!(derive(#keep))));
    }
    let (condition, metas) = cfg_attr_parts(list)?;
    let mut changed = false;
    let mut out = Vec::new();
    for m in metas {
        match without_derived_meta(cx, &m) {
            None => out.push(m),
            Some(rest) => {
                changed = true;
                out.extend(rest);
            }
        }
    }
    // Only the condition left: nothing to keep.
    changed.then(|| (!out.is_empty()).then(|| syn::parse_quote!(cfg_attr(#condition, #(#out),*))))
}

type Paths = syn::punctuated::Punctuated<syn::Path, syn::Token![,]>;

/// The attributes that may configure an item out: `#[cfg(…)]`, and each
/// `#[cfg_attr(…)]` cut down to the `cfg`s it may add (its other
/// attributes, a derive or a doc, belong to the struct only). What is
/// generated for the item goes under these, so that it goes when the
/// item goes.
fn config_attrs(attrs: &[syn::Attribute]) -> Vec<syn::Attribute> {
    /// `meta` if it is a `cfg`, or a `cfg_attr` holding one (cut down).
    fn config(meta: &syn::Meta) -> Option<syn::Meta> {
        if meta.path().is_ident("cfg") {
            return Some(meta.clone());
        }
        let syn::Meta::List(list) = meta else {
            return None;
        };
        let (condition, metas) = cfg_attr_parts(list)?;
        let configs: Vec<syn::Meta> = metas.iter().filter_map(config).collect();
        (!configs.is_empty()).then(|| syn::parse_quote!(cfg_attr(#condition, #(#configs),*)))
    }
    attrs
        .iter()
        .filter(|a| matches!(a.style, syn::AttrStyle::Outer))
        .filter_map(|a| config(&a.meta).map(|meta| syn::parse_quote!(#[#meta])))
        .collect()
}

/// `cfg_attr(CONDITION, ATTR, …)` taken apart: the condition as tokens
/// (it may be `true` or `false`, which are not a `Meta`), then the
/// attributes; `None` for any other list, or one that does not read.
fn cfg_attr_parts(list: &syn::MetaList) -> Option<(TokenStream, Vec<syn::Meta>)> {
    type Metas = syn::punctuated::Punctuated<syn::Meta, syn::Token![,]>;
    if !list.path.is_ident("cfg_attr") {
        return None;
    }
    let mut tokens = list.tokens.clone().into_iter();
    let condition: TokenStream = tokens
        .by_ref()
        .take_while(|t| !matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
        .collect();
    let rest: TokenStream = tokens.collect();
    let metas = syn::parse::Parser::parse2(Metas::parse_terminated, rest).ok()?;
    (!condition.is_empty()).then(|| (condition, metas.into_iter().collect()))
}

/// The paths of a derive list that a layout type does not have already,
/// with an error for each it has; `None` when none clashes (keep the
/// attribute as written).
fn kept_derive(cx: &mut Ctxt, paths: &Paths) -> Option<Paths> {
    let mut keep = Paths::new();
    let mut clashed = false;
    for p in paths {
        match clash(p) {
            Some(name) => {
                clashed = true;
                cx.error(syn::Error::new_spanned(
                    p,
                    format!(
                        "layout types already have `{name}`: every one derives {} and \
                         implements Debug and Display",
                        crate::codegen::DERIVED.join(", ")
                    ),
                ));
            }
            None => keep.push(p.clone()),
        }
    }
    clashed.then_some(keep)
}

/// The trait `path` derives, if a layout type has it already: the
/// standard library's (`Hash`, `core::hash::Hash`), not another crate's
/// macro of the same name (`my::Hash`).
fn clash(path: &syn::Path) -> Option<String> {
    let last = path.segments.last()?.ident.to_string();
    let ours = crate::codegen::DERIVED.contains(&last.as_str()) || last == "Debug";
    let first = path.segments.first()?.ident.to_string();
    let std = path.segments.len() == 1 && path.leading_colon.is_none()
        || matches!(first.as_str(), "core" | "std" | "alloc");
    (ours && std).then_some(last)
}

/// How a shape was written in the macro.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Written {
    /// As tokens: an error's span points into them, and byte offsets of
    /// the text rebuilt from them (spaces dropped) would only mislead.
    Tokens,
    /// In a string literal: an error covers the whole literal, and the
    /// message's byte offset says where inside it.
    String,
}

/// The other forms the CLI takes, read by layout-core into XLA's text:
/// `tpu(SHAPE)` written in a string, and `SHAPE Layout(...)` (JAX's form,
/// in a string or as tokens). Anything else is returned as it is.
fn other_forms(src: SourceText, written: Written) -> syn::Result<SourceText> {
    // Tokens: the span points at the place, so the message goes without
    // its byte offset into text the user never wrote.
    let message =
        |what: &str, e: &dyn std::fmt::Display, bare: &dyn std::fmt::Display| match written {
            Written::Tokens => format!("{what}: {bare}"),
            Written::String => format!("{what}: {e}"),
        };
    // A parse error of the shape inside, explained as one of a shape
    // written alone is.
    let explained = |what: &str, p: &xla_layout_core::text::ParseError| {
        message(
            what,
            &p.explain(&src.text),
            &p.cause(&src.text).explain(src.text.as_bytes()),
        )
    };
    use xla_layout_core::text::{Form, FormError, JaxLayoutError, JaxShapeError, parse_other_form};
    use xla_layout_core::tpu::RequestError;
    let Some((form, shape)) = parse_other_form(&src.text) else {
        return Ok(src);
    };
    let whole = (0, src.text.len());
    match shape {
        Ok(shape) => {
            let printed = shape.to_string();
            // JAX's form holds a layout XLA's text cannot: an empty
            // `major_to_minor` for an array prints as `{}`, which does
            // not parse back; it is told from the shape itself.
            let empty = shape
                .layout()
                .is_some_and(|l| l.minor_to_major().is_empty());
            if empty
                && shape.rank() > 0
                && let Some(e) = xla_layout_core::validation_errors(&shape).next()
            {
                let what = check::in_jax_terms(form == Form::Jax, e.explain().to_string());
                return Err(src.error(whole.0, whole.1, format!("JAX layout: {what}")));
            }
            let mut text = src.replaced(printed);
            text.from_jax = form == Form::Jax;
            Ok(text)
        }
        Err(FormError::Tpu(e)) => {
            let (start, end) = match &e {
                RequestError::Parse(e) => (e.span().start, e.span().end),
                _ => whole,
            };
            let what = match &e {
                RequestError::Parse(p) => explained("tpu(...)", p),
                _ => message(
                    "tpu(...)",
                    &e.with_source(&src.text),
                    &e.message_in(&src.text),
                ),
            };
            Err(src.error(start, end, what))
        }
        Err(FormError::Jax(e)) => {
            let (start, end) = match &e {
                JaxShapeError::Shape(e) => (e.span().start, e.span().end),
                JaxShapeError::Layout(JaxLayoutError::NegativeTileEntry { value, at }) => {
                    (*at, at + value.to_string().len())
                }
                JaxShapeError::Layout(l) => l.offset().map_or(whole, |at| (at, at + 1)),
                _ => whole,
            };
            let what = match &e {
                JaxShapeError::Shape(p) => explained("JAX layout", p),
                _ => message(
                    "JAX layout",
                    &e.with_source(&src.text),
                    &e.message_in(&src.text),
                ),
            };
            Err(src.error(start, end, what))
        }
        // `parse_other_form` reads only: the others come from validating.
        Err(e) => Err(src.error(whole.0, whole.1, e.explain(&src.text).to_string())),
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

#[cfg(test)]
mod tests {
    //! Golden expansions: the whole output for a handful of layouts,
    //! pinned in `tests/expand/*.expanded.rs` (as zerocopy keeps them).
    //! `XLA_LAYOUT_BLESS=1 cargo test -p xla-layout-macros` rewrites them.

    use super::*;
    use std::path::PathBuf;

    const CASES: &[(&str, &str)] = &[
        ("row_major", "type RowMajor = f32[64,256]{1,0};"),
        ("tpu_bf16", "pub type Act = bf16[8,128]{1,0:T(8,128)(2,1)};"),
        ("combine", "type Combine = f32[8,8,64]{2,1,0:T(*,16,64)};"),
        (
            "attributes",
            "type Attrs = s4[3,129]{1,0:T(8,128)(8,1)L(1024)E(4)S(1)SC(0:1,2)M(8)};",
        ),
        ("scalar", "type Scalar = f32[];"),
        ("bounded", "type Bounded = f32[<=16,3]{0,1};"),
        ("invalid", "type Invalid = f32[2,3]{0,0};"),
        ("expression", "bf16[4,8]<1,0:T(2,4)(2,1)>"),
        ("tpu_default", "type Tpu = tpu(bf16[3,1000], v6e);"),
    ];

    fn pretty(tokens: TokenStream) -> String {
        // An expression expands to a block: wrap it to print it as a file.
        let file = match syn::parse2::<syn::File>(tokens.clone()) {
            Ok(f) => f,
            Err(_) => syn::parse2(quote!(const _: () = #tokens;)).expect("expansion parses"),
        };
        prettyplease::unparse(&file)
    }

    #[test]
    fn expansions_match_the_golden_files() {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/expand");
        let bless = std::env::var_os("XLA_LAYOUT_BLESS").is_some();
        let mut stale = Vec::new();
        for (name, input) in CASES {
            let input: TokenStream = input.parse().unwrap();
            let got = pretty(layout(quote!([::xla_layout] #input)));
            let path = dir.join(format!("{name}.expanded.rs"));
            if bless {
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(&path, &got).unwrap();
                continue;
            }
            let want = std::fs::read_to_string(&path).unwrap_or_default();
            if got != want {
                stale.push(format!("{}\n--- got ---\n{got}", path.display()));
            }
        }
        assert!(
            stale.is_empty(),
            "expansions differ from the golden files (rerun with XLA_LAYOUT_BLESS=1 if intended):\n{}",
            stale.join("\n")
        );
    }

    /// Whatever goes wrong, an item with an error is the fallback type and
    /// the errors are all emitted.
    #[test]
    fn any_error_gives_the_fallback() {
        for input in [
            "type A = f32[2,3]{0,0};",
            "type A = f33[2];",
            "type A = f32[2]{0:T(0)E(-1)};",
            "type A = hlo(\"missing.hlo\", \"x\");",
            "type A = f32[?];",
            "type A = tpu(f32[2]{0});",
            "type A = tpu(f32[2], v9);",
            "type A = tpu(f6e2m3fn[2]);",
        ] {
            let input: TokenStream = input.parse().unwrap();
            let out = layout(quote!([::xla_layout] #input)).to_string();
            assert!(out.contains("compile_error"), "{input}: {out}");
            assert!(out.contains("An invalid XLA layout"), "{input}: {out}");
            assert!(!out.contains("offset_expression"), "{input}");
        }
    }

    /// A derive of a trait every layout has is an error; the attribute
    /// keeps its other derives; another crate's macro of the same name,
    /// and attributes of other kinds, pass untouched.
    #[test]
    fn derives_a_layout_has_are_taken_out() {
        let attrs = |text: &str| -> Vec<syn::Attribute> {
            syn::parse::Parser::parse_str(syn::Attribute::parse_outer, text).unwrap()
        };
        let kept = |text: &str| {
            let mut cx = Ctxt::default();
            let kept = without_derived(&mut cx, &attrs(text));
            let kept: Vec<String> = kept
                .iter()
                .map(|a| quote::ToTokens::to_token_stream(a).to_string())
                .collect();
            (kept, cx.error_count())
        };
        assert_eq!(
            kept("#[derive(Hash, serde::Serialize)]"),
            (vec!["# [derive (serde :: Serialize)]".to_string()], 1)
        );
        assert_eq!(kept("#[derive(core::hash::Hash, Debug)]"), (vec![], 2));
        assert_eq!(
            kept("#[cfg_attr(feature = \"x\", derive(Hash), doc = \"d\")]"),
            (
                vec!["# [cfg_attr (feature = \"x\" , doc = \"d\")]".to_string()],
                1
            )
        );
        for untouched in ["#[derive(my::Hash)]", "#[doc = \"x\"]", "#[cfg(test)]"] {
            let (out, errors) = kept(untouched);
            assert_eq!((out.len(), errors), (1, 0), "{untouched}");
        }
    }
}
