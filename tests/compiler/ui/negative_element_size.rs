use xla_layout::layout;

layout! {
    pub type X = s4[8]{0:E(-4)};
}

fn main() {}
