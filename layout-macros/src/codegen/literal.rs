//! Literals in generated code.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// A `usize` literal; one past `u32::MAX` is a `u64` cast, so that it is
/// no out-of-range literal on narrow targets (the generated code asserts
/// that it fits).
pub(super) fn usize_lit(v: u64) -> TokenStream {
    if v <= u32::MAX as u64 {
        let l = Literal::usize_unsuffixed(v as usize);
        quote!(#l)
    } else {
        let l = Literal::u64_suffixed(v);
        quote!((#l as usize))
    }
}
