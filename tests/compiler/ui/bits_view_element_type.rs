use xla_layout::{layout, BitsView};

layout! { type TwoBit = u2[5]{0:E(2)}; }

fn main() {
    // u2 stands for unsigned values: the signed i8 does not hold them.
    let _ = BitsView::<TwoBit, i8>::new(&[0u8; 2]);
}
