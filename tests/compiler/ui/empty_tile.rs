use xla_layout::layout;

layout! {
    pub type X = f32[8,128]{1,0:T()};
}

fn main() {}
