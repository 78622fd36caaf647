use xla_layout::layout;

layout! {
    pub type X = s8[3074457345618258602,3]{1,0:T(8,8)};
}

fn main() {}
