use xla_layout::{assert_layout_eq, layout};

layout! {
    type Plain = f32[8,128]{1,0};
    type OneRowTiles = f32[8,128]{1,0:T(1,128)};
}

// Same offsets, but not the same layout text.
assert_layout_eq!(Plain, OneRowTiles);

fn main() {}
