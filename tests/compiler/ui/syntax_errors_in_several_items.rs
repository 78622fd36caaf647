use xla_layout::layout;

// An item that does not read is told and skipped to its `;`: the items
// after it are still read and checked, their errors told together.
layout! {
    pub type NoShape = tpu();
    type Generic<T> = f32[8];
    pub type Good = f32[8,128]{1,0:T(8,128)};
    pub type Bad = f32[8]{0:T(0)};
}

fn main() {
    let _ = Good.offset([1, 2]) + Good::BYTES + Bad::BYTES;
}
