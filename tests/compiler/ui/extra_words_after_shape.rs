use xla_layout::layout;

// Words after the shape where no `;` could be missing: plain errors.
layout! {
    type A = "f32[8]{0} type";
}

fn main() {
    let _ = layout!(f32[8]{0} pub);
}
