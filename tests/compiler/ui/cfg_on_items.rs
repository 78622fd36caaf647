// An item's `#[cfg]` goes on its errors too: the one configured in is
// reported, the one configured out is not.
use xla_layout::layout;

layout! {
    #[cfg(all())]
    type In = f32[8]{5};
    #[cfg(any())]
    type Out = f32[8]{7};
}

fn main() {}
