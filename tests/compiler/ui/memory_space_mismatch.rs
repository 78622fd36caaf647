use xla_layout::{MemorySpace, StaticLayout, layout};

layout! {
    type InHbm = bf16[8,128]{1,0:T(8,128)(2,1)};
    type InVmem = bf16[8,128]{1,0:T(8,128)(2,1)S(1)};
}

/// Only buffers in TPU VMEM, `S(1)`.
fn vector_unit_kernel<L: StaticLayout<Space = MemorySpace<1>>>(_: L) {}

fn main() {
    vector_unit_kernel(InVmem);
    vector_unit_kernel(InHbm);
}
