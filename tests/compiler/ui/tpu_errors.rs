use xla_layout::layout;

layout! {
    type Written = tpu(f32[2]{0});
    type Generation = tpu(f32[2], v9);
    type Unsupported = tpu(f6e2m3fn[2]);
    type Typo = tpu(f33[2]);
    type TooLarge = tpu(pred[9223372036854775807]);
    type Trailing = "tpu(f32[2]) junk";
}

fn main() {}
