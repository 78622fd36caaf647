use xla_layout::layout;

layout! {
    pub type X<T> = f32[8];
}

fn main() {}
