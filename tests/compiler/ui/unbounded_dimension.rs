use xla_layout::layout;

layout! {
    pub type X = f32[?,128];
}

fn main() {}
