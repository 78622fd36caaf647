use xla_layout::layout;

layout! {
    pub type X = matrix[8,128];
}

fn main() {}
