// Each invalid layout is one error: code that uses the stand-in type the
// macro emits (views, copies, compile-time checks, offsets) raises none.
use xla_layout::{
    View, ViewMut, assert_bitcast, assert_bytes, assert_layout_eq, assert_layout_equivalent,
    assert_same_shape, layout,
};

layout! {
    type Good = f32[8,128]{1,0};
    type BadTile = f32[8,128]{1,0:T(0)};
    type BadType = bf61[8,4]{1,0};
    type BadFile = hlo("no_such_dump.hlo", "fusion");
}

assert_same_shape!(Good, BadTile);
assert_bytes!(BadTile, 4096);
assert_layout_equivalent!(Good, BadTile);
assert_same_shape!(BadType, BadFile);
assert_layout_eq!(Good, BadTile);
assert_bitcast!(Good, BadType);

fn main() {
    let src = vec![0f32; 1024];
    let mut dst = vec![0f32; 1024];
    let src = View::<Good, f32>::new(&src).unwrap();
    let mut dst = ViewMut::<BadTile, f32>::new(&mut dst).unwrap();
    dst.copy_from(&src);
    let _: usize = BadType.offset([1, 2]);
}
