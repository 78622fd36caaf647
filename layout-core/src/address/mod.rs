//! Address math: logical index → slot and back (spec §d), sizes (spec §e).

mod digits;
mod error;
mod relayout;
mod tiled;
mod xla_sizes;

pub use digits::{Comparison, Digit, DigitPair, MAX_DIGITS};
pub use error::{AddressError, IndexError};
pub use relayout::{Relayout, RelayoutError};
pub use tiled::{Coord, CoordOp, MAX_COORDS, PerDim, TiledShape};
