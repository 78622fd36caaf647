//! `layout!` offsets next to the expressions a person would write by hand,
//! for the zero-cost check: `tests/compiler.rs` compiles this crate to
//! assembly and requires each `generated_*`
//! function to be instruction for instruction the same as its `hand_*`
//! twin. `tests/agree.rs` checks that the twins agree on every index, and
//! `scripts/callgrind-offsets.sh` counts their instructions with the
//! `zero_cost` example.
//!
//! ```
//! use xla_layout_compiler_tests::{generated_tpu_bf16, hand_tpu_bf16};
//! assert_eq!(generated_tpu_bf16(9, 130), hand_tpu_bf16(9, 130));
//! ```
#![no_std]

use xla_layout::layout;

layout! {
    pub type RowMajor = f32[64,256]{1,0};
    pub type ColumnMajor = f32[64,256]{0,1};
    pub type Tile8x128 = f32[64,256]{1,0:T(8,128)};
    pub type TpuBf16 = bf16[64,256]{1,0:T(8,128)(2,1)};
    pub type Combine = f32[8,8,64]{2,1,0:T(*,16,64)};
    pub type ThreeLevels = bf16[4096]{0:T(1024)(128)(2,1)};
}

/// A pair of functions for one layout: the generated one and the one
/// written by hand, both taking `(i, j)` or `(i, j, k)`.
macro_rules! pair {
    ($generated:ident, $hand:ident, ($($arg:ident),*), $layout:expr, $by_hand:expr) => {
        #[unsafe(no_mangle)]
        #[inline(never)]
        pub extern "C" fn $generated($($arg: usize),*) -> usize {
            $layout.offset([$($arg),*])
        }
        #[unsafe(no_mangle)]
        #[inline(never)]
        pub extern "C" fn $hand($($arg: usize),*) -> usize {
            $by_hand
        }
    };
}

pair!(
    generated_row_major,
    hand_row_major,
    (i, j),
    RowMajor,
    i * 256 + j
);
pair!(
    generated_column_major,
    hand_column_major,
    (i, j),
    ColumnMajor,
    j * 64 + i
);
pair!(
    generated_tile_8x128,
    hand_tile_8x128,
    (i, j),
    Tile8x128,
    (i / 8) * 2048 + (j / 128) * 1024 + (i % 8) * 128 + j % 128
);
// Rows 2r and 2r+1 of a column share a 32-bit word.
pair!(
    generated_tpu_bf16,
    hand_tpu_bf16,
    (i, j),
    TpuBf16,
    ((i >> 3) << 11) + ((j >> 7) << 10) + (((i & 7) >> 1) << 8) + ((j & 127) << 1) + (i & 1)
);
// `*` merges dims 0 and 1 into 64 rows, tiled 16×64.
pair!(generated_combine, hand_combine, (i, j, k), Combine, {
    let row = i * 8 + j;
    (row / 16) * 1024 + (row % 16) * 64 + k
});
pair!(
    generated_three_levels,
    hand_three_levels,
    (i),
    ThreeLevels,
    (i / 1024) * 1024 + ((i % 1024) / 256) * 256 + (i % 128) * 2 + (i / 128) % 2
);

/// A pair that disagreed: its name and the index (unused trailing
/// coordinates are 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The pair's name, as in `generated_NAME` / `hand_NAME`.
    pub pair: &'static str,
    /// The index where the two functions gave different offsets.
    pub index: [usize; 3],
}

/// Calls every generated offset function and its hand-written twin at
/// every index of its layout: the number of indices compared, or the
/// first that disagreed.
///
/// ```
/// assert_eq!(xla_layout_compiler_tests::compare_everywhere(), Ok(4 * 64 * 256 + 4096 + 4096));
/// ```
pub fn compare_everywhere() -> Result<usize, Mismatch> {
    type Pair2 = (
        &'static str,
        extern "C" fn(usize, usize) -> usize,
        extern "C" fn(usize, usize) -> usize,
    );
    let pairs2: [Pair2; 4] = [
        ("row_major", generated_row_major, hand_row_major),
        ("column_major", generated_column_major, hand_column_major),
        ("tile_8x128", generated_tile_8x128, hand_tile_8x128),
        ("tpu_bf16", generated_tpu_bf16, hand_tpu_bf16),
    ];
    let mut compared = 0;
    for (pair, generated, hand) in pairs2 {
        for i in 0..64 {
            for j in 0..256 {
                if generated(i, j) != hand(i, j) {
                    return Err(Mismatch {
                        pair,
                        index: [i, j, 0],
                    });
                }
                compared += 1;
            }
        }
    }
    for i in 0..8 {
        for j in 0..8 {
            for k in 0..64 {
                if generated_combine(i, j, k) != hand_combine(i, j, k) {
                    return Err(Mismatch {
                        pair: "combine",
                        index: [i, j, k],
                    });
                }
                compared += 1;
            }
        }
    }
    for i in 0..4096 {
        if generated_three_levels(i) != hand_three_levels(i) {
            return Err(Mismatch {
                pair: "three_levels",
                index: [i, 0, 0],
            });
        }
        compared += 1;
    }
    Ok(compared)
}
