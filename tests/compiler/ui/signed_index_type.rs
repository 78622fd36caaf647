use xla_layout::layout;

layout! {
    pub type X = f32[8]{0:#(s32)};
}

fn main() {}
