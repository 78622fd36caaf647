// An item written without `type` is said at its name, not left to
// rustc's "macro expansion ignores" (the expression form's block in an
// item's place).
use xla_layout::layout;

layout! { Act = bf16[8,128]{1,0:T(8,128)(2,1)}; }
layout! { struct A = f32[8]; }
layout! { pub struct B = f32[8]; }
layout! { pub(crate) const C = f32[8]; }
layout! { pub typ D = f32[8]; }
layout! { typ E = f32[8]; }
layout! { pub }
layout! { ; }

fn main() {}
