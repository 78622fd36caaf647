use xla_layout::layout;

// XLA's parser reads past these; a layout! type must mean what was written.
layout! {
    type NoBits = f32[8,128]{1,0:T(8,128)E};
    type NoSpace = f32[8,128]{1,0:S};
    type NoPadding = f32[8,128]{1,0:L};
    type NoPrefix = f32[8,128]{1,0:M};
    type Wraps = f32[8,128]{1,0:S(300)};
    type Negative = f32[8]{0:S(-129)};
    type Fits = f32[8]{0:S(-128)};
}

fn main() {}
