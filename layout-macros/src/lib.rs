//! The `layout!` macro of xla-layout: XLA layout text → zero-sized types
//! whose address arithmetic is folded into constants.
//!
//! Use it through the `xla-layout` crate, which passes its own path in so
//! that the generated code does not depend on how it was imported. This
//! file only dispatches; `expand` runs the pipeline — `input` (the macro's
//! syntax) → `hlo` (a shape imported from a dump with `xla-layout-hlo`'s reader) or `to_text` (tokens
//! back to XLA text) → `check` (layout-core parses, validates and tiles)
//! → `codegen` (literals and straight-line arithmetic) — with its errors
//! in a context that turns any item with an error into a fallback.

mod check;
mod codegen;
mod ctxt;
mod expand;
mod hlo;
mod input;
mod to_text;

use proc_macro2::TokenStream;
use quote::quote;

/// Turns XLA layout text into zero-sized layout types; see the `xla-layout`
/// crate for the documentation.
#[proc_macro]
pub fn layout(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    let input = TokenStream::from(input);
    // A panic here is a bug; still, answer with an error, not a crash.
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| expand::layout(input))) {
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
