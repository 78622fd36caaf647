use xla_layout::{assert_bytes, layout};

layout! {
    type Figure1 = f32[3,5]{1,0:T(2,2)};
}

// ByteSizeOf would say 60; the tiles take 24 slots.
assert_bytes!(Figure1, 60);

fn main() {}
