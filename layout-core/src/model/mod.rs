//! The model: shapes and layouts as XLA stores them.

mod array;
mod layout;
mod shape;
mod spaces;

pub use array::{ArrayShape, Dim};
pub(crate) use layout::ScalarAttributes;
pub use layout::{Layout, PhysicalShapeText, SplitConfig};
pub use shape::{Shape, ShapeEvent, ShapeEvents};
pub use spaces::{SpaceInfo, SpaceUse, memory_space_name, space_info};
