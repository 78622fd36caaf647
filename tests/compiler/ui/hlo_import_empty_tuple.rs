// An instruction whose shape is the empty tuple `()` holds no array: said
// at the name (or the index that leads into it), and the other items of
// the same `layout!` still expand.
use xla_layout::layout;

layout! {
    type Empty = hlo("../../../../tests/compiler/dumps/empty_tuples.hlo", "empty");
    type IntoEmpty = hlo("../../../../tests/compiler/dumps/empty_tuples.hlo", "nested", 0);
    type Kept = hlo("../../../../tests/compiler/dumps/empty_tuples.hlo", "nested", 1);
    type Suffixed = hlo("../../../../tests/compiler/dumps/empty_tuples.hlo", "nested", 1usize);
}

fn main() {
    let _: usize = Kept.offset([3]) + Kept::BYTES;
}
