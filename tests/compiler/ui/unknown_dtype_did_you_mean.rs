use xla_layout::layout;

layout! {
    pub type X = bf61[8,128]{1,0};
}

fn main() {}
