use xla_layout::layout;

layout! {
    pub type X = f32[2.5,3];
}

fn main() {}
