use xla_layout::layout;

layout! {
    pub type X = "f32[8]{0} extra";
}

fn main() {}

// Two strings are not one shape: said at the second.
layout! { type Split = "f32[3,5]" "{1,0}"; }
