use xla_layout::{assert_same_shape, layout};

layout! {
    type Rows = f32[2,3]{1,0};
    type Columns = f32[3,2]{1,0};
}

assert_same_shape!(Rows, Columns);

fn main() {}
