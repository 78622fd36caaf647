// A `cfg` an item gets through `cfg_attr` takes what is generated for it
// too, as a plain `#[cfg]` does: one of the two `G`s is configured out,
// and the other is the only `G`.
use xla_layout::layout;

layout! {
    #[cfg_attr(all(), cfg(any()))]
    type G = f32[8];
    #[cfg_attr(any(), cfg(any()))]
    type G = f32[16];
    #[cfg_attr(all(), cfg_attr(all(), cfg(any())), doc = "configured out")]
    type H = f32[2];
    #[cfg_attr(any(), cfg(any()), doc = "never")]
    #[doc = "kept"]
    type H = f32[3];
    // Conditions written as `true` and `false` (stable since Rust 1.88).
    #[cfg_attr(true, cfg(false))]
    type B = f32[8];
    #[cfg_attr(false, cfg(false))]
    type B = f32[5];
}

fn main() {
    assert_eq!(G::DIMS, [16]);
    assert_eq!(H::DIMS, [3]);
    assert_eq!(B::DIMS, [5]);
    assert_eq!(format!("{:?}", G), "G(f32[16]{0})");
}
