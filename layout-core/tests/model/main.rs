//! The core's tests of the model, one binary (each module was a test file
//! of its own; as one binary the core's generic code is built and linked
//! once, which is most of the test command's time).
//!
//! - `parse_print`, `spec_examples`, `validation_rules`: the text, the
//!   worked examples of `docs/xla-layouts.md`, each rule and its message.
//! - `properties`, `limits`, `hierarchical`, `padding`: properties of the
//!   address arithmetic against reference models.
//! - `tpu_defaults`, `jax_layouts`: agreement with tables measured from
//!   libtpu and jax.
//! - `interop`: the optional crates' views, one module a feature.
//! - `small_stack`: parse → tile → offset on a 16 KiB stack.

mod hierarchical;
mod interop;
mod jax_layouts;
mod limits;
mod padding;
mod parse_print;
mod properties;
mod small_stack;
mod spec_examples;
mod tpu_defaults;
mod validation_rules;
