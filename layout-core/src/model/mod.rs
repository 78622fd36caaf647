//! The model: shapes and layouts as XLA stores them.

mod array;
mod layout;
mod shape;

pub use array::{ArrayShape, Dim};
pub(crate) use layout::ScalarAttributes;
pub use layout::{Layout, PhysicalShapeText, SplitConfig, memory_space_name};
pub use shape::{Shape, ShapeEvent, ShapeEvents};
