use xla_layout::layout;

layout! {
    type A = f32[8]{0};
    type A = f32[16]{0};
    #[derive(Hash, Debug)]
    type B = bf16[8,128]{1,0:T(8,128)(2,1)};
    #[cfg_attr(all(), derive(core::hash::Hash))]
    type D = f32[8]{0};
    #[cfg(all())]
    type D = f32[4]{0};
    // A comma runs the shape on to the next `;`, or the end.
    type C = f32[8]{0},
}

layout! {
    type E = f32[8]{0}, type F = f32[4]{0};
}

fn main() {}
