use xla_layout::layout;

layout! {
    pub type X = s4[64]{0:E(4)L(128)};
}

fn main() {}
