//! Bridges to the crates people already hold arrays in, each behind its
//! own feature: `ndarray` (views as `ArrayView`s), `serde` (shapes and
//! layouts as XLA text), `bytemuck` (views over raw bytes), `dlpack` (DLPack
//! descriptors of strided views).

#[cfg(feature = "bytemuck")]
mod bytes;
#[cfg(feature = "dlpack")]
mod dlpack;
#[cfg(feature = "ndarray")]
mod ndarray;
#[cfg(feature = "serde")]
mod serde;

#[cfg(feature = "dlpack")]
pub use self::dlpack::{Dlpack, DlpackError};
#[cfg(feature = "ndarray")]
pub use self::ndarray::NdarrayError;
