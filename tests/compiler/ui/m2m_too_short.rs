use xla_layout::layout;

layout! {
    pub type X = f32[2,3]{1};
}

fn main() {}
