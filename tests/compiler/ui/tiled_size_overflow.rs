use xla_layout::layout;

layout! {
    // The tiles' padding is what overflows: the error points at them.
    pub type X = s8[3074457345618258602,3]{1,0:T(8,8)};
    pub type BigTile = f32[3]{0:T(4611686018427387904)};
    // Tail padding alone overflows: the error points at `L`.
    pub type BigPadding = f32[8,128]{1,0:T(8,128)L(9223372036854775807)};
}

fn main() {}
