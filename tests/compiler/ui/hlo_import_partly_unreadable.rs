// A dump with an unreadable line elsewhere: the instructions that read
// still import; a name that is not found says the unreadable lines may
// hold it; a shape that does not parse says its line in the dump.
use xla_layout::{StaticLayout, layout};

const _: usize = <Y as StaticLayout>::BYTES;

layout! {
    type Y = hlo("../../../../tests/compiler/dumps/partly_unreadable.hlo", "y");
    type Broken = hlo("../../../../tests/compiler/dumps/partly_unreadable.hlo", "broken");
    type Bad = hlo("../../../../tests/compiler/dumps/partly_unreadable.hlo", "bad");
    type Nowhere = hlo("../../../../tests/compiler/dumps/partly_unreadable.hlo", "z");
    // The name as lookups take it: `%name`, `computation/name`.
    type Percent = hlo("../../../../tests/compiler/dumps/partly_unreadable.hlo", "%broken");
    type Qualified = hlo("../../../../tests/compiler/dumps/partly_unreadable.hlo", "other/broken");
}

const _: () = assert!(Y::BYTES == 16 * 256 * 2);

fn main() {}
