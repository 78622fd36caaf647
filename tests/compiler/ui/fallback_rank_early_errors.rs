// Shapes that fail before layout-core reads them (a token that is not
// shape text, an unknown TPU generation, a JAX layout that does not read)
// still fall back to the rank they were written with: only the macro's
// errors are reported, not one more per use of the type.
use xla_layout::layout;

layout! {
    type Generation = tpu(bf16[8,128], v9);
    type Unclosed = f32[8,4]<1,0;
    type InAString = "tpu(f32[8,4], v9)";
    type Jax = f32[8,4] Layout(colour=1);
    type EmptyJax = f32[2,3] Layout(major_to_minor=());
    type NotANumber = f32[8,x];
}

fn main() {
    let _: usize = Generation.offset([1, 2])
        + Unclosed.offset([1, 2])
        + InAString.offset([1, 2])
        + Jax.offset([1, 2])
        + EmptyJax.offset([1, 2])
        + NotANumber.offset([1, 2]);
}
