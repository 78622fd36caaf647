//! The expansion's error context (serde_derive's `Ctxt` is the model):
//! every error of an expansion is collected here, so that all of them are
//! reported, and `expand` asks it whether an item's layout recorded any
//! before emitting the item, which is then the fallback type.

use proc_macro2::TokenStream;

/// Errors of one expansion, and the promise that an item with errors
/// becomes the fallback.
#[derive(Default)]
pub struct Ctxt {
    errors: Vec<syn::Error>,
}

impl Ctxt {
    /// Records an error.
    pub fn error(&mut self, e: syn::Error) {
        self.errors.push(e);
    }

    /// How many errors were recorded so far.
    pub fn error_count(&self) -> usize {
        self.errors.len()
    }

    /// The errors recorded since there were `count`, taken out as
    /// `compile_error!` invocations each under `attrs` (an item's
    /// `#[cfg]`s: a configured-out item's errors are configured out too).
    pub fn take_since(&mut self, count: usize, attrs: &[&syn::Attribute]) -> TokenStream {
        self.errors
            .split_off(count.min(self.errors.len()))
            .iter()
            .map(|e| {
                let error = e.to_compile_error();
                quote::quote!(#(#attrs)* #error)
            })
            .collect()
    }

    /// The recorded errors as `compile_error!` invocations.
    pub fn into_errors(self) -> TokenStream {
        self.errors
            .iter()
            .map(syn::Error::to_compile_error)
            .collect()
    }
}
