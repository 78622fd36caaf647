use xla_layout::layout;

layout! {
    pub type X = f32[2,3]{0,0:T(0)E(-1)};
}

fn main() {}
