//! What the fuzz targets share: the `layout!` macro's expansion as a
//! library function, and a small deterministic sampler.
//!
//! A proc-macro crate exports only its macros, so the expansion's modules
//! are compiled here a second time, from the macro crate's own files
//! (`#[path]`): the target runs exactly the code the macro runs, minus the
//! `proc_macro` ↔ `proc_macro2` conversion and the macro's last-resort
//! `catch_unwind` (a panic must reach libFuzzer). The module list mirrors
//! `layout-macros/src/lib.rs`.

// The modules are the macro crate's; only `expand::layout` is used here.
#![allow(dead_code, unused_imports)]

#[path = "../../layout-macros/src/check.rs"]
mod check;
#[path = "../../layout-macros/src/codegen/mod.rs"]
mod codegen;
#[path = "../../layout-macros/src/ctxt.rs"]
mod ctxt;
#[path = "../../layout-macros/src/expand.rs"]
mod expand;
#[path = "../../layout-macros/src/hlo.rs"]
mod hlo;
#[path = "../../layout-macros/src/input.rs"]
mod input;
#[path = "../../layout-macros/src/to_text.rs"]
mod to_text;

/// `layout!`'s expansion of `input` (the tokens after the facade's
/// `[$crate]` marker, or without it).
pub fn expand_layout(input: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    expand::layout(input)
}

/// A xorshift generator seeded from the input: samples that are the same
/// on every run of one input.
pub struct Sampler(u64);

impl Sampler {
    /// Seeded with an FNV-1a hash of `data`.
    pub fn new(data: &[u8]) -> Sampler {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for &b in data {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        Sampler(h | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next_u64() % n }
    }
}
