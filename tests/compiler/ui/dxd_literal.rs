use xla_layout::layout;

layout! {
    pub type X = "f32[2x3]";
}

fn main() {}
