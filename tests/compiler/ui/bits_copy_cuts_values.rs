// A bit view's copy_from into slots narrower than the source's values
// (E(16) on f32) could cut a value and has no error to return: refused at
// compile time (Relayout::copy_bytes checks each value instead).
use xla_layout::{layout, BitsView, BitsViewMut};

layout! {
    type Wide = f32[4]{0};
    type Narrow = f32[4]{0:E(16)};
}

fn main() {
    let (src, mut dst) = ([0u8; 16], [0u8; 8]);
    let from = BitsView::<Wide, f32>::new(&src).unwrap();
    BitsViewMut::<Narrow, f32>::new(&mut dst).unwrap().copy_from(&from);
}
