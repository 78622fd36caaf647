use xla_layout::layout;

layout! {
    pub type X = f32[8]{0:T(8)L(-4)};
}

fn main() {}
