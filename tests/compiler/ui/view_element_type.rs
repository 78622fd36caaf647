use xla_layout::{layout, View};

layout! {
    type Act = bf16[8,128]{1,0:T(8,128)(2,1)};
    type Figure1 = f32[3,5]{1,0:T(2,2)};
}

fn main() {
    // A bf16 layout read as f32: known wrong at compile time.
    let _ = View::<Act, f32>::new(&[0f32; 1024]);
    // i32 is not f32, though as wide; u64 is not 32 bits wide.
    let _ = View::<Figure1, i32>::new(&[0i32; 24]);
    let _ = View::<Figure1, u64>::new(&[0u64; 24]);
}
