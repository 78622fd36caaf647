//! Address math: logical index → slot and back (spec §d), sizes (spec §e).

mod error;
mod tiled;
mod xla_sizes;

pub use error::{AddressError, IndexError};
pub use tiled::{Coord, CoordOp, MAX_COORDS, PerDim, TiledShape};
