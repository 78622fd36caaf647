//! The relayout tests, one binary: each module was a test file of its own,
//! and each built the copy's generic kernels again at the tests'
//! opt-level; as one binary they are built once (the test command's build
//! is the largest part of its time).
//!
//! - `copy`: `Relayout::copy` and `copy_bytes` against `TiledShape::offset`.
//! - `sweep`: every 2-D and 3-D transpose and TPU tile pair over sizes on
//!   and off every tile boundary.
//! - `tiles`: the tile-by-tile path against the definition.
//! - `parallel`: `copy_parallel` against `copy` (feature `rayon`).
//! - `streaming_stores`: the real non-temporal stores, natively.
//! - `miri`: the unsafe paths on shapes small enough for Miri
//!   (`cargo +nightly miri test -p xla-layout-core --all-features --test
//!   relayout -- miri::`).

mod common;
mod copy;
mod miri;
mod parallel;
mod streaming_stores;
mod sweep;
mod tiles;
