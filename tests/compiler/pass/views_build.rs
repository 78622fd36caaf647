//! Builds (not only checks) the UI cases: a view of a `layout!` type with
//! a Rust type that does not hold its elements is refused by a constant
//! evaluated when the view's code is generated, which `cargo check` never
//! reaches (ui/view_element_type.rs). A test that must build makes
//! trybuild run `cargo build` for every case.
use xla_layout::{layout, View};

layout! { type Act = bf16[8,128]{1,0:T(8,128)(2,1)}; }

fn main() {
    let data = [0u16; 1024];
    assert!(View::<Act, u16>::new(&data).is_ok());
}
