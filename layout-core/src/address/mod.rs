//! Address math: logical index → slot and back (docs/xla-layouts.md §d), sizes (docs/xla-layouts.md §e).

mod digits;
mod error;
mod hierarchical;
mod padding;
pub(crate) mod relayout;
mod tiled;
mod xla_sizes;
pub(crate) use xla_sizes::within_int64;

pub use digits::{Comparison, Digit, DigitPair, MAX_DIGITS};
pub use error::{AddressError, IndexError};
pub use hierarchical::{Axis, Hierarchical, MAX_MODE_DEPTH, Mode, NotHierarchical, NotStrided};
pub use padding::{CoordName, Padding, Rounding};
pub use relayout::{Relayout, RelayoutError, Slabs};
pub use tiled::{Coord, CoordOp, MAX_COORDS, PerDim, TiledShape};

/// Steps `index` to the next index in row-major order within `dims`;
/// `false` (with `index` back at zeros) after the last one.
pub(crate) const fn next_row_major(index: &mut [u64], dims: &[u64]) -> bool {
    let mut d = dims.len();
    while d > 0 {
        d -= 1;
        index[d] += 1;
        if index[d] < dims[d] {
            return true;
        }
        index[d] = 0;
    }
    false
}
