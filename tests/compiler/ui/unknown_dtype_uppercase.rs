use xla_layout::layout;

layout! {
    pub type X = F32[8,128];
}

fn main() {}
