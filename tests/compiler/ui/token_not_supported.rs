use xla_layout::layout;

layout! {
    pub type X = token[];
}

fn main() {}
