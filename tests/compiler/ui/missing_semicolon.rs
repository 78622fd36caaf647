use xla_layout::layout;

// The last item may leave out its `;`; one between items may not.
layout! {
    pub type X = f32[8]{0}
    pub type Y = f32[8]{0}
}

fn main() {}
