use xla_layout::layout;

layout! {
    type NoName = hlo("examples/dumps/train_step.tpu.hlo");
}

fn main() {}
