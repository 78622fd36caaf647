use xla_layout::{assert_layout_equivalent, layout};

layout! {
    type Host = bf16[8,128]{1,0};
    type Tpu = bf16[8,128]{1,0:T(8,128)(2,1)};
}

assert_layout_equivalent!(Host, Tpu);

fn main() {}
