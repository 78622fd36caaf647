use xla_layout::layout;

layout! {
    pub type X = f32[4,8]{1,0:SC(0:3,1)};
}

fn main() {}
