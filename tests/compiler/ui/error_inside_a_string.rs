use xla_layout::layout;

// Stable Rust cannot underline part of a string: the message says where.
layout! {
    type Z4 = "bf16[8,128]{1,0:T(8,12x)}";
}

fn main() {}
