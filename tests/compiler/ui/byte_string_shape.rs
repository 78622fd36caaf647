// A byte string or a C string is not the shape's text (lexed as shape text,
// `b"f32[3]"` read as an element type `b`).
use xla_layout::layout;

layout! {
    type A = b"f32[3]{0}";
}

layout! {
    type B = c"f32[3]{0}";
}

fn main() {}
