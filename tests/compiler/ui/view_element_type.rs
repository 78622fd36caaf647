use xla_layout::{layout, View};

layout! { type Act = bf16[8,128]{1,0:T(8,128)(2,1)}; }

fn main() {
    // A bf16 layout read as f32: known wrong at compile time.
    let data = [0f32; 1024];
    let _ = View::<Act, f32>::new(&data);
}
