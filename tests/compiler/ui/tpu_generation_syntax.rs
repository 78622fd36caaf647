// After `tpu(SHAPE` and a `,` comes one generation, written as a name.
use xla_layout::layout;

layout! { type Number = tpu(bf16[3,1000], 4); }
layout! { type Quoted = tpu(bf16[3,1000], "v4"); }
layout! { type Two = tpu(bf16[3,1000], v4, v5e); }
layout! { type Trailing = tpu(bf16[3,1000],); }
layout! { type Fine = tpu(bf16[3,1000], v4); }

fn main() {}
