//! # xla-layout
//!
//! XLA's shape, layout and tiled-layout model in Rust: parse the text XLA
//! prints (`bf16[8,128]{1,0:T(8,128)(2,1)}`), print it back byte for byte,
//! validate it as XLA does, and compute the addresses and sizes XLA's
//! tiled layouts give.
//!
//! This crate is the one dependency users add. It re-exports
//! [`xla_layout_core`], the `no_std` core.
//!
//! ```
//! use xla_layout::ArrayShape;
//!
//! let shape = ArrayShape::parse_validated("bf16[8,128]{1,0:T(8,128)(2,1)}").unwrap();
//! let tiled = shape.tiled().unwrap();
//! // The TPU bf16 format packs rows 2r and 2r+1 of a column into one 32-bit word.
//! assert_eq!(tiled.offset(&[0, 0]), Ok(0));
//! assert_eq!(tiled.offset(&[1, 0]), Ok(1));
//! assert_eq!(tiled.offset(&[0, 1]), Ok(2));
//! assert_eq!(tiled.offset(&[2, 0]), Ok(256));
//! ```
#![no_std]

pub use xla_layout_core::*;
