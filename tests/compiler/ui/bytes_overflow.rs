use xla_layout::layout;

layout! {
    pub type X = f64[4611686018427387904];
}

fn main() {}
