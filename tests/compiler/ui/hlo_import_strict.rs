// What XLA's parser reads past in a dump (a memory space it wraps, an
// attribute it drops) is refused through `hlo(...)` as it is written
// inline: the macro reads the shape as the dump writes it, not as XLA
// prints it back. A clean element of the same tuple still imports.
use xla_layout::{StaticLayout, layout};

layout! {
    type Dropped = hlo("../../../../tests/compiler/dumps/wrapped_attributes.hlo", "p");
    type Wrapped = hlo("../../../../tests/compiler/dumps/wrapped_attributes.hlo", "q");
    type InTuple = hlo("../../../../tests/compiler/dumps/wrapped_attributes.hlo", "t", 1);
    type Clean = hlo("../../../../tests/compiler/dumps/wrapped_attributes.hlo", "t", 0);
}

const _: () = assert!(<Clean as StaticLayout>::MEMORY_SPACE == 1);

fn main() {}
