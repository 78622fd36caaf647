// trybuild compiles this in target/tests/trybuild/xla-layout-compiler-tests, so the dump
// is four directories up from that crate's manifest directory.
use xla_layout::layout;

layout! {
    type Missing = hlo("dumps/no_such_dump.hlo", "fusion");
    type Misspelt = hlo("../../../../examples/dumps/train_step.tpu.hlo", "fusion.2");
    type WholeTuple = hlo("../../../../examples/dumps/train_step.tpu.hlo", "while.9");
    type PastTheEnd = hlo("../../../../examples/dumps/train_step.tpu.hlo", "while.9", 2);
    type IntoAnArray = hlo("../../../../examples/dumps/train_step.tpu.hlo", "fusion", 0);
    type Negative = hlo("../../../../examples/dumps/train_step.tpu.hlo", "while.9", -1);
    type OneLevelShort = hlo("../../../../examples/dumps/train_step.tpu.hlo", "async-start", 0);
}

fn main() {}
