use xla_layout::layout;

layout! {
    pub type X = bf16[8,128]{1,0:T(8,128)T(2,1)};
}

fn main() {}
