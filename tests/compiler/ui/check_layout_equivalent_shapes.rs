use xla_layout::{assert_layout_equivalent, layout};

// Equal dimensions, different element types: the message says both count.
layout! {
    type Floats = f32[8,128]{1,0};
    type Ints = s32[8,128]{1,0};
}

assert_layout_equivalent!(Floats, Ints);

fn main() {}
