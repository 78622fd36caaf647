use xla_layout::layout;

layout! {
    type Unclosed = "tpu(f32[2]";
    type Typo = "tpu(f33[2])";
    type Both = "f32[2]{0} Layout(major_to_minor=(0,))";
    type Field = bf16[4] Layout(major_to_minor=(0,), colour=1);
    type Rank = f32[2,3] Layout(major_to_minor=(0,));
    type Negative = f32[4,256] Layout(major_to_minor=(0, 1), tiling=((-1, 128),));
}

fn main() {}
