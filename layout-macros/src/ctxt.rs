//! The expansion's error context (serde_derive's `Ctxt` is the model):
//! every error of an expansion is collected here, so that all of them are
//! reported, and `expand` asks it whether an item recorded any before
//! emitting the item, which is then the fallback type.

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

    /// The recorded errors as `compile_error!` invocations.
    pub fn into_errors(self) -> TokenStream {
        self.errors
            .iter()
            .map(syn::Error::to_compile_error)
            .collect()
    }
}
