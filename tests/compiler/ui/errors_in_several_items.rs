use xla_layout::layout;

layout! {
    pub type Good = f32[8,128]{1,0:T(8,128)};
    pub type Bad1 = f32[8]{0:T(0)};
    pub type Bad2 = bf61[8];
}

fn main() {
    // The good type and the fallbacks still type-check: no cascade.
    let _ = Good.offset([1, 2]) + Bad1.offset([0]) + Good::BYTES + Bad1::BYTES;
}
