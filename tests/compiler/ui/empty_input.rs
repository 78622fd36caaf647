use xla_layout::layout;

fn main() {
    let _ = layout!();
}
