use xla_layout::layout;

layout! {
    pub type X = f32[8]{0:T(1.5)};
}

fn main() {}
