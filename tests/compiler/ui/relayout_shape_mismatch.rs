use xla_layout::{View, ViewMut, layout};

layout! {
    type Source = f32[8,128]{1,0};
    type Transposed = f32[128,8]{0,1};
}

fn main() {
    let src = vec![0.0f32; 1024];
    let mut dst = vec![0.0f32; 1024];
    let src = View::<Source, f32>::new(&src).unwrap();
    let mut dst = ViewMut::<Transposed, f32>::new(&mut dst).unwrap();
    dst.copy_from(&src);
}
