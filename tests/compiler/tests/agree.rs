//! Each generated offset agrees with its hand-written twin at every index
//! of its layout (the assembly check compares their code; this compares
//! their values, so a twin that is wrong by hand cannot hide a bug).

use xla_layout_compiler_tests::*;

#[test]
fn generated_and_hand_written_offsets_agree_at_every_index() {
    // Four 64×256 layouts, 8·8·64 and 4096 indices.
    assert_eq!(compare_everywhere(), Ok(4 * 64 * 256 + 8 * 8 * 64 + 4096));
}

/// Each hand-written offset is a permutation of its layout's slots (none
/// of these layouts pads): the twins are not two wrong formulas that agree.
#[test]
fn hand_written_offsets_fill_each_layout_exactly_once() {
    fn permutation(slots: usize, offsets: impl Iterator<Item = usize>) -> bool {
        let mut seen = vec![false; slots];
        for o in offsets {
            if o >= slots || seen[o] {
                return false;
            }
            seen[o] = true;
        }
        seen.iter().all(|&s| s)
    }
    let grid = || (0..64).flat_map(|i| (0..256).map(move |j| (i, j)));
    for f in [
        hand_row_major,
        hand_column_major,
        hand_tile_8x128,
        hand_tpu_bf16,
    ] {
        assert!(permutation(64 * 256, grid().map(|(i, j)| f(i, j))));
    }
    let cube = (0..8).flat_map(|i| (0..8).flat_map(move |j| (0..64).map(move |k| (i, j, k))));
    assert!(permutation(
        4096,
        cube.map(|(i, j, k)| hand_combine(i, j, k))
    ));
    assert!(permutation(4096, (0..4096).map(|i| hand_three_levels(i))));
}
