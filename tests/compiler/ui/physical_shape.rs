use xla_layout::layout;

layout! {
    pub type X = f32[8]{0:P(f32[8])};
}

fn main() {}
