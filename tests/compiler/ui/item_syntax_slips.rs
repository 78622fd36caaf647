// Slips in the macro's own syntax, each said in its words at its token.
use xla_layout::layout;

layout! {
    #![allow(unused)]
    type Suffixed = "f32[8]{0}"x;
    type StringThenTokens = "f32[8]" f32[2];
    type AngleLayout = tpu(bf16[8,128]<1,0>);
    type NoParen = f32[8]{0:T(8)L};
    type Raw = f32[8];
    type r#Raw = f32[16];
    #[cfg_attr(all(), cfg_attr(all(), derive(Debug)))]
    type NestedDerive = f32[4];
    #[cfg_attr(true, derive(Hash))]
    type BoolDerive = f32[4];
}

fn main() {
    let _ = Raw::BYTES + NestedDerive::BYTES + BoolDerive::BYTES;
}
