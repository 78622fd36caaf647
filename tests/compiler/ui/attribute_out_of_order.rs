use xla_layout::layout;

layout! {
    pub type X = f32[8,128]{1,0:S(1)T(8,128)};
}

fn main() {}
