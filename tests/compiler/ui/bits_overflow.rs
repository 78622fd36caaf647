use xla_layout::layout;

layout! {
    // 9 slots of 2^63 - 1 bits: the bytes fit in 64 bits, the bit offset of
    // the last element does not.
    pub type Huge = u8[9]{0:E(9223372036854775807)};
    // 2^61 + 1 bytes: the same, by the number of slots.
    pub type Long = u8[2305843009213693953]{0};
}

fn main() {}
