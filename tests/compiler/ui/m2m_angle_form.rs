use xla_layout::layout;

layout! {
    pub type X = f32[2,3,4]<0,1>;
}

fn main() {}
