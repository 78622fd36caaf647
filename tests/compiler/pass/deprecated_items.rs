// A deprecated layout type warns where it is used, not where it is made:
// the generated impls allow `deprecated` (this file denies warnings).
#![deny(warnings)]

use xla_layout::layout;

layout! {
    /// The old activation layout.
    #[deprecated(note = "use Act")]
    pub type OldAct = bf16[8,128]{1,0:T(8,128)(2,1)};
    #[deprecated]
    pub type Older = bf16[8,128]{1,0:T(8,128)(2,1)};
}

fn main() {}
