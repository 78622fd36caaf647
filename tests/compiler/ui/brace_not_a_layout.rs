use xla_layout::layout;

layout! {
    pub type X = f32[8]{x};
}

fn main() {}
