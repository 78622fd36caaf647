use xla_layout::layout;

layout! {
    pub type X = f32[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1];
}

fn main() {}
