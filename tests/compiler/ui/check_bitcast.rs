use xla_layout::{assert_bitcast, layout};

layout! {
    type ColumnMajor = f32[2,3]{0,1};
    type Flat = f32[6]{0};
    type Halves = bf16[6]{0};
}

assert_bitcast!(ColumnMajor, Flat);
assert_bitcast!(Flat, Halves);

fn main() {}
