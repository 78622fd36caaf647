//! The `layout!` expansion as a library call: arbitrary text → tokens
//! (`proc_macro2`) → the macro's parser, layout-core's parser and
//! validator, codegen. No panic; an input that does not expand to layout
//! types expands to `compile_error!` diagnostics.
//!
//! `hlo("dump.hlo", …)` reads dumps under `fuzz/dumps/` only: inputs whose
//! string literals could name another file (absolute paths, `..`, `\`)
//! are skipped, so that the fuzzer never reads the machine's files.
#![no_main]

use std::str::FromStr;

use libfuzzer_sys::fuzz_target;
use proc_macro2::{TokenStream, TokenTree};
use xla_layout_fuzz::expand_layout;

fuzz_target!(
    init: {
        // The macro reads `hlo(...)` dumps relative to the manifest
        // directory of the crate being compiled: here, fuzz/dumps.
        // SAFETY: set before any other thread of the fuzzer runs.
        unsafe {
            std::env::set_var(
                "CARGO_MANIFEST_DIR",
                concat!(env!("CARGO_MANIFEST_DIR"), "/dumps"),
            )
        };
    },
    |data: &[u8]| {
        let Ok(text) = std::str::from_utf8(data) else {
            return;
        };
        // Text that does not lex as Rust never reaches a macro.
        let Ok(tokens) = TokenStream::from_str(text) else {
            return;
        };
        if !literals_stay_inside(&tokens) {
            return;
        }
        // With the facade's crate path first (as `xla_layout::layout!`
        // calls it) or without (the macro crate used directly).
        let input = if data.len() % 2 == 1 {
            let mut with_path = TokenStream::from_str("[::xla_layout]").unwrap();
            with_path.extend(tokens);
            with_path
        } else {
            tokens
        };
        let expanded = expand_layout(input);
        let (mut generated, mut errors) = (false, false);
        scan(&expanded, &mut |name| {
            generated |= name == "StaticLayout";
            errors |= name == "compile_error";
        });
        assert!(generated || errors, "{text:?} expands to neither layouts nor errors: {expanded}");
    }
);

/// Calls `f` with every identifier in `tokens`.
fn scan(tokens: &TokenStream, f: &mut impl FnMut(&str)) {
    for tt in tokens.clone() {
        match tt {
            TokenTree::Group(g) => scan(&g.stream(), f),
            TokenTree::Ident(i) => f(&i.to_string()),
            _ => {}
        }
    }
}

/// Whether every string literal in `tokens` is a path that stays in the
/// dumps directory (and so is any other string: the check does not know
/// which literal is the path).
fn literals_stay_inside(tokens: &TokenStream) -> bool {
    tokens.clone().into_iter().all(|tt| match tt {
        TokenTree::Group(g) => literals_stay_inside(&g.stream()),
        TokenTree::Literal(lit) => match syn::parse_str::<syn::LitStr>(&lit.to_string()) {
            Ok(s) => {
                let v = s.value();
                !(v.starts_with('/') || v.contains("..") || v.contains('\\') || v.contains(':'))
            }
            // Not a string: not a path.
            Err(_) => true,
        },
        _ => true,
    })
}
