//! Calls every generated offset function and its hand-written twin at every
//! index (`scripts/callgrind-offsets.sh` counts their instructions):
//!
//! ```text
//! cargo run --release -p xla-layout-compiler-tests --example zero_cost
//! ```

use xla_layout_compiler_tests::*;

fn main() {
    let mut checked = 0usize;
    for i in 0..64 {
        for j in 0..256 {
            assert_eq!(generated_row_major(i, j), hand_row_major(i, j));
            assert_eq!(generated_column_major(i, j), hand_column_major(i, j));
            assert_eq!(generated_tile_8x128(i, j), hand_tile_8x128(i, j));
            assert_eq!(generated_tpu_bf16(i, j), hand_tpu_bf16(i, j));
            checked += 4;
        }
    }
    for i in 0..8 {
        for j in 0..8 {
            for k in 0..64 {
                assert_eq!(generated_combine(i, j, k), hand_combine(i, j, k));
                checked += 1;
            }
        }
    }
    for i in 0..4096 {
        assert_eq!(generated_three_levels(i), hand_three_levels(i));
        checked += 1;
    }
    println!("generated and hand-written offsets agree at {checked} indices");
}
