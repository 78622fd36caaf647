//! Bridges to the crates people already hold arrays in, each behind its
//! own feature: `ndarray` (views as `ArrayView`s), `serde` (shapes and
//! layouts as XLA text), `bytemuck` (views over raw bytes).

#[cfg(feature = "bytemuck")]
mod bytes;
#[cfg(feature = "ndarray")]
mod ndarray;
#[cfg(feature = "serde")]
mod serde;

#[cfg(feature = "ndarray")]
pub use self::ndarray::NdarrayError;
