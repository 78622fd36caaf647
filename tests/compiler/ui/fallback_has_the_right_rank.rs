use xla_layout::layout;

layout! {
    pub type Broken = f32[8,128]{1,0:S(1)T(8,128)};
}

fn main() {
    // Only the layout error is reported: the fallback type has rank 2.
    let _: usize = Broken.offset([1, 2]);
}
