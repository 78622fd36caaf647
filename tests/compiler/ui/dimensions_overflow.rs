use xla_layout::layout;

layout! {
    pub type X = f32[9223372036854775807,2];
}

fn main() {}
