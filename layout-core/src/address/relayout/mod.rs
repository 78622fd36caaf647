//! Relayout: copy every element of an array from one layout to another.
//!
//! The plan reads both layouts with common digits ([`DigitPair`]) and
//! orders them as a loop nest: destination-major first (writes are
//! sequential), with the source's unit-stride digit moved next to the
//! innermost one so that the inner block reads and writes short contiguous
//! runs, and a large transposition split into cache-sized blocks. The inner
//! one or two loops are run by small kernels with constant strides: a
//! `copy_from_slice` where both sides are contiguous, zip/unzip loops for
//! the TPU's packed-row formats, a blocked transpose otherwise. No offset
//! function runs per element. Layouts that are not affine in digits (`*`,
//! tile sizes that do not nest) fall back to an element-by-element copy
//! through the coordinate program.
//!
//! Everything that moves elements between layouts is here, from the
//! bottom: `block` (the blocks and lines the walk hands on; a leaf),
//! `plan` (the loop nest and how the walk runs it, both decided when the
//! plan is made), `kernels` and `streaming` (the innermost loops, with
//! ordinary and non-temporal stores), [`bits`] (elements that are not
//! whole bytes) and `slabs` (cutting a copy into common contiguous slabs).

use core::fmt;
use core::mem::{size_of, size_of_val};

pub mod bits;
mod block;
mod kernels;
mod lines;
mod plan;
mod slabs;
mod streaming;
mod tile_kernels;
mod tiles;

pub use slabs::Slabs;

use super::digits::{DigitPair, MAX_DIGITS};
use super::next_row_major;
use super::tiled::TiledShape;
use crate::const_eq::same_u64s;
use crate::limits::MAX_RANK;
use block::{Block, Line};
use kernels::run_block;
use plan::{Leaf, Level, NO_LEVEL, Nest, Walk};
use streaming::STREAM_THRESHOLD;
use tile_kernels::{Isa, Kernel, isa};
use tiles::{Buffers, Stores, Tiles};

/// Why a relayout cannot be planned ([`Relayout::new`]) or a copy cannot
/// run: the layouts, the buffers' sizes, or (for
/// [`Relayout::copy_bytes`] into narrower slots) a value in the data.
///
/// ```
/// use xla_layout_core::{ArrayShape, Relayout, RelayoutError};
/// let t = |s| ArrayShape::parse_validated(s).unwrap().tiled().unwrap();
/// assert_eq!(Relayout::new(&t("f32[2,3]{1,0}"), &t("f32[3,2]{1,0}")).unwrap_err(), RelayoutError::ShapeMismatch);
/// let plan = Relayout::new(&t("f32[2,3]{1,0}"), &t("f32[2,3]{0,1}")).unwrap();
/// let short = plan.copy(&[0.0f32; 5], &mut [0.0; 6], 0.0);
/// assert_eq!(short, Err(RelayoutError::SourceTooShort { needed: 6, got: 5 }));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RelayoutError {
    /// The two layouts do not have the same logical dimensions.
    ShapeMismatch,
    /// The two layouts have the same dimensions but not the same element
    /// type (a relayout moves elements; it does not convert them).
    ElementTypeMismatch {
        /// The source's element type.
        src: crate::ElementType,
        /// The destination's element type.
        dst: crate::ElementType,
    },
    /// The source buffer has fewer slots (buffer elements) than its
    /// layout.
    SourceTooShort {
        /// Slots the layout needs.
        needed: u64,
        /// Slots given: the buffer's length.
        got: u64,
    },
    /// The destination buffer has fewer slots (buffer elements) than its
    /// layout.
    DestinationTooShort {
        /// Slots the layout needs.
        needed: u64,
        /// Slots given: the buffer's length.
        got: u64,
    },
    /// The source bytes are fewer than its layout's size.
    SourceBytesTooShort {
        /// Bytes the layout needs.
        needed: u64,
        /// Bytes given.
        got: u64,
    },
    /// The destination bytes are fewer than its layout's size.
    DestinationBytesTooShort {
        /// Bytes the layout needs.
        needed: u64,
        /// Bytes given.
        got: u64,
    },
    /// A layout's size in bits does not fit in 64 bits (no buffer of that
    /// size can exist).
    TooLarge,
    /// The destination's slots are narrower than the source's values
    /// (`E(n)` below them) and this source value would not survive: it
    /// would read back as another. Nothing was written.
    ValueDoesNotFit {
        /// The value's slot in the source.
        slot: u64,
        /// The destination's bits a slot.
        element_bits: u64,
    },
}

impl fmt::Display for RelayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ShapeMismatch => {
                f.write_str("the layouts are not of the same logical shape (dimensions)")
            }
            Self::ElementTypeMismatch { src, dst } => write!(
                f,
                "the layouts' element types differ ({} and {}): a relayout moves elements, it does not convert them",
                src.name(),
                dst.name()
            ),
            Self::SourceTooShort { needed, got } => {
                write!(
                    f,
                    "the source has {got} slots but its layout needs {needed}"
                )
            }
            Self::DestinationTooShort { needed, got } => {
                write!(
                    f,
                    "the destination has {got} slots but its layout needs {needed}"
                )
            }
            Self::SourceBytesTooShort { needed, got } => {
                write!(
                    f,
                    "the source has {got} bytes but its layout needs {needed}"
                )
            }
            Self::DestinationBytesTooShort { needed, got } => {
                write!(
                    f,
                    "the destination has {got} bytes but its layout needs {needed}"
                )
            }
            Self::TooLarge => f.write_str("the array's size in bits does not fit in 64 bits"),
            Self::ValueDoesNotFit { slot, element_bits } => write!(
                f,
                "the value in source slot {slot} does not fit the destination's {element_bits}-bit slots: it would read back as another"
            ),
        }
    }
}

impl core::error::Error for RelayoutError {}

/// A plan to copy an array from one layout to another; see the module docs.
///
/// ```
/// use xla_layout_core::{ArrayShape, Relayout};
///
/// let host = ArrayShape::parse_validated("bf16[16,256]{1,0}").unwrap().tiled().unwrap();
/// let tpu = ArrayShape::parse_validated("bf16[16,256]{1,0:T(8,128)(2,1)}").unwrap().tiled().unwrap();
/// let plan = Relayout::new(&host, &tpu).unwrap();
/// let src: Vec<u16> = (0..4096).collect();       // element (r, c) holds r·256 + c
/// let mut dst = vec![0u16; 4096];
/// plan.copy(&src, &mut dst, 0).unwrap();
/// assert_eq!(&dst[..4], &[0, 256, 1, 257]);       // rows 0 and 1 interleaved
/// assert!(plan.is_fast());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Relayout {
    nest: Nest,
    dims: [u64; MAX_RANK],
    rank: usize,
    src_slots: u64,
    dst_slots: u64,
    dst_has_padding: bool,
    fast: bool,
    /// The most the tile kernels may use (where the CPU has it).
    isa: Isa,
    /// The copy is between row-major and a 2-D tile format: it runs tile
    /// by tile (see `tiles`).
    tiles: Option<Tiles>,
    stream_threshold: usize,
    src: TiledShape,
    dst: TiledShape,
}

impl Relayout {
    /// Plans a copy from `src` to `dst`: the same element type and logical
    /// dimensions, any layouts.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, ElementType, Relayout, RelayoutError};
    /// let t = |s| ArrayShape::parse_validated(s).unwrap().tiled().unwrap();
    /// assert!(Relayout::new(&t("bf16[8,128]{1,0}"), &t("bf16[8,128]{1,0:T(8,128)(2,1)}")).is_ok());
    /// assert_eq!(
    ///     Relayout::new(&t("bf16[8,128]{1,0}"), &t("f16[8,128]{1,0}")).unwrap_err(),
    ///     RelayoutError::ElementTypeMismatch { src: ElementType::BF16, dst: ElementType::F16 }
    /// );
    /// assert_eq!(
    ///     Relayout::new(&t("f32[8,128]{1,0}"), &t("f32[128,8]{1,0}")).unwrap_err(),
    ///     RelayoutError::ShapeMismatch
    /// );
    /// ```
    pub const fn new(src: &TiledShape, dst: &TiledShape) -> Result<Relayout, RelayoutError> {
        let dims = src.logical_dims();
        if !same_u64s(dims, dst.logical_dims()) {
            return Err(RelayoutError::ShapeMismatch);
        }
        if src.element_type() as u8 != dst.element_type() as u8 {
            return Err(RelayoutError::ElementTypeMismatch {
                src: src.element_type(),
                dst: dst.element_type(),
            });
        }
        let mut plan = Relayout {
            nest: Nest::EMPTY,
            dims: [0; MAX_RANK],
            rank: dims.len(),
            src_slots: src.physical_slots(),
            dst_slots: dst.physical_slots(),
            dst_has_padding: dst.physical_slots() != dst.element_count(),
            fast: false,
            isa: Isa::Avx512Wide,
            tiles: None,
            stream_threshold: STREAM_THRESHOLD,
            src: *src,
            dst: *dst,
        };
        let mut d = 0;
        while d < dims.len() {
            plan.dims[d] = dims[d];
            d += 1;
        }
        if let Some(pair) = DigitPair::new(src, dst) {
            plan.fast = true;
            plan.nest = Nest::new(&pair);
            plan.tiles = Tiles::new(src, dst, &pair);
        }
        Ok(plan)
    }

    /// The loop nest, outermost first, as `(count, source stride,
    /// destination stride)`: what the copy will do, for inspection.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, Relayout};
    /// let t = |s| ArrayShape::parse_validated(s).unwrap().tiled().unwrap();
    /// let plan = Relayout::new(&t("f32[64,32]{1,0}"), &t("f32[64,32]{1,0}")).unwrap();
    /// assert_eq!(plan.loops().collect::<Vec<_>>(), [(2048, 1, 1)]); // one contiguous run
    /// ```
    pub fn loops(&self) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        self.nest.levels[..self.nest.len]
            .iter()
            .map(|l| (l.count, l.src, l.dst))
    }

    /// The same plan, writing destinations of at least `bytes` bytes with
    /// streaming (non-temporal) stores where a streaming kernel fits; the
    /// default is 8 MiB. Streaming pays when the destination is larger
    /// than the caches and is not read again soon; `usize::MAX` turns it
    /// off, 0 streams whatever the size (tests use that to run the
    /// streaming kernels on small arrays).
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, Relayout};
    /// let t = |s| ArrayShape::parse_validated(s).unwrap().tiled().unwrap();
    /// let plan = Relayout::new(&t("bf16[16,256]{1,0}"), &t("bf16[16,256]{1,0:T(8,128)(2,1)}"))
    ///     .unwrap()
    ///     .streaming_from(0);
    /// let src: Vec<u16> = (0..4096).collect();
    /// let mut dst = vec![0u16; 4096];
    /// plan.copy(&src, &mut dst, 0).unwrap();
    /// assert_eq!(&dst[..4], &[0, 256, 1, 257]);
    /// ```
    pub const fn streaming_from(self, bytes: usize) -> Relayout {
        Relayout {
            stream_threshold: bytes,
            ..self
        }
    }

    /// The same plan without the AVX2 kernels: SSE2 (or scalar) only,
    /// whatever the CPU. For tests and benchmarks that compare the two.
    #[doc(hidden)]
    pub const fn without_avx2(self) -> Relayout {
        Relayout {
            isa: Isa::Sse2,
            ..self
        }
    }

    /// The same plan without AVX-512: the AVX2 kernels on 16 vector
    /// registers (or less, as [`Relayout::without_avx2`] says). For tests
    /// and benchmarks that compare the two.
    #[doc(hidden)]
    pub const fn without_avx512(self) -> Relayout {
        Relayout {
            isa: if matches!(self.isa, Isa::Avx512 | Isa::Avx512Wide) {
                Isa::Avx2
            } else {
                self.isa
            },
            ..self
        }
    }

    /// The same plan with AVX-512's registers but not its 512-bit
    /// vectors (as on AMD's Zen 4; or less, as
    /// [`Relayout::without_avx512`] says). For tests and benchmarks that
    /// compare the two.
    #[doc(hidden)]
    pub const fn without_avx512_vectors(self) -> Relayout {
        Relayout {
            isa: if matches!(self.isa, Isa::Avx512Wide) {
                Isa::Avx512
            } else {
                self.isa
            },
            ..self
        }
    }

    /// The same plan without asking for source lines ahead of the tile
    /// copies' reads (software prefetch; packing still touches the next
    /// band's pages, a read). For benchmarks that measure what the hints
    /// gain.
    #[doc(hidden)]
    pub const fn without_read_ahead(self) -> Relayout {
        Relayout {
            tiles: match self.tiles {
                Some(t) => Some(Tiles {
                    read_ahead: false,
                    ..t
                }),
                None => None,
            },
            ..self
        }
    }

    /// The same plan packing with streaming stores in the source's order
    /// (`true`) or the destination's (`false`) wherever either can run,
    /// instead of the order measured faster on this family of cores. For
    /// tests and benchmarks that compare the two.
    #[doc(hidden)]
    pub const fn packing_in_source_order(self, yes: bool) -> Relayout {
        Relayout {
            tiles: match self.tiles {
                Some(t) => Some(Tiles {
                    source_order: Some(yes),
                    ..t
                }),
                None => None,
            },
            ..self
        }
    }

    /// The same plan packing pred's tiles a software pipeline deep
    /// (`true`: each tile's rows gathered while the one before is
    /// transposed) or a tile at a time (`false`) wherever either can run,
    /// instead of the way measured faster on this family of cores. For
    /// tests and benchmarks that compare the two.
    #[doc(hidden)]
    pub const fn packing_pipelined(self, yes: bool) -> Relayout {
        Relayout {
            tiles: match self.tiles {
                Some(t) => Some(Tiles {
                    pipeline: Some(yes),
                    ..t
                }),
                None => None,
            },
            ..self
        }
    }

    /// The same plan packing pred's tiles reading the source 64 bytes at
    /// a time (`true`: straight from rows of whole lines, else into the
    /// stage; where the CPU runs AVX-512) or 16 bytes at a time into the
    /// stage (`false`), instead of the way measured faster on this family
    /// of cores. For tests and benchmarks that compare the two.
    #[doc(hidden)]
    pub const fn packing_from_lines(self, yes: bool) -> Relayout {
        Relayout {
            tiles: match self.tiles {
                Some(t) => Some(Tiles {
                    from_lines: Some(yes),
                    ..t
                }),
                None => None,
            },
            ..self
        }
    }

    /// The same plan moving s8's quads and bf16's pairs with 512-bit
    /// kernels realigned to the line grid in registers where it can
    /// (`true`, where the CPU runs AVX-512VBMI with 512-bit vectors,
    /// Intel's cores and Zen 5: unpacking bf16 into any rows and s8 into
    /// rows off the line grid, packing both with 512-bit kernels, into a
    /// destination off the line grid too, every line streamed whole; on
    /// Zen 5 it also takes those 512-bit kernels wherever Intel's cores
    /// do, as in aligned packing and s8's unpacking into whole lines), or the
    /// other ways (`false`: unpacking joined into lines in a stage or
    /// streamed from the AVX2 kernels, packing with the AVX2 kernels'
    /// stores there), instead of the way measured faster on this family
    /// of cores. For tests and benchmarks that compare the two.
    #[doc(hidden)]
    pub const fn realigned(self, yes: bool) -> Relayout {
        Relayout {
            tiles: match self.tiles {
                Some(t) => Some(Tiles {
                    realign: Some(yes),
                    ..t
                }),
                None => None,
            },
            ..self
        }
    }

    /// The same plan without the tile-by-tile path: the general walk (for
    /// tests and benchmarks that compare the two).
    #[doc(hidden)]
    pub const fn without_tiles(self) -> Relayout {
        Relayout {
            tiles: None,
            ..self
        }
    }

    /// Whether the copy runs by blocks (affine layouts) rather than element
    /// by element.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, Relayout};
    /// let t = |s| ArrayShape::parse_validated(s).unwrap().tiled().unwrap();
    /// assert!(Relayout::new(&t("f32[10]{0}"), &t("f32[10]{0:T(4)}")).unwrap().is_fast());
    /// // Tiles that do not nest (tiles of 3 inside tiles of 4): element by element.
    /// assert!(!Relayout::new(&t("f32[10]{0}"), &t("f32[10]{0:T(4)(3)}")).unwrap().is_fast());
    /// ```
    pub const fn is_fast(&self) -> bool {
        self.fast
    }

    /// Copies every element of `src` (in the source layout) to its slot in
    /// `dst` (in the destination layout). Padding slots of `dst` are set to
    /// `pad` (only written when the destination layout has any).
    ///
    /// **`T` is one slot, whatever the element type**: `copy` moves slots,
    /// and does not check `T` against the layouts' element width. That is
    /// what makes it a permutation any `T` can trace (`u32` slot numbers
    /// over a `bf16` layout show where each slot goes), and what makes
    /// `u8` over an `f32` layout move single bytes as if each were an
    /// element. For an array's bytes use [`Relayout::copy_bytes`]; for
    /// elements checked against their type, the views
    /// ([`crate::DynViewMut::copy_from`]). A buffer longer than its layout
    /// is used as its first slots (the rest is neither read nor written),
    /// as the views use theirs: a buffer larger than the array is how
    /// allocators hand them out.
    ///
    /// Destinations larger than the caches (see
    /// [`Relayout::streaming_from`]) are written with streaming stores.
    /// Out of a TPU tile format into row-major rows that are whole
    /// 64-byte lines, a destination that starts on a line (as XLA's host
    /// allocator places buffers) is written straight from the vector
    /// kernels; one elsewhere (`malloc` puts large blocks 16 bytes into a
    /// line) goes through a stage that joins each row's parts into lines,
    /// about 0.1× of the copy limit slower (BENCHMARKS.md) — except bf16
    /// and s8 on CPUs with AVX-512VBMI (Intel's cores), whose rows are
    /// realigned to the lines in registers, in either direction, and
    /// written straight from the kernels.
    ///
    /// # Stack
    /// On x86_64 the vector kernels' frames hold about 33 KiB of buffers
    /// (the streaming lines and stages): a host ↔ TPU copy took 58,304
    /// bytes of stack in a release build, so run it on a thread of at
    /// least 128 KiB (Rust's threads get 2 MiB unless asked otherwise).
    /// Generic code is compiled with the caller's profile: a `dev` build
    /// took 742 KB with the core at `opt-level = 2`, 856 KB without.
    /// Other targets have no vector kernels (about 10 KB on a Cortex-M4F).
    /// docs/firmware.md has the measurements.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, Relayout};
    /// let t = |s| ArrayShape::parse_validated(s).unwrap().tiled().unwrap();
    /// // TPU → host: bf16 rows interleaved in pairs inside 8×128 tiles.
    /// let plan = Relayout::new(&t("bf16[3,5]{1,0:T(8,128)(2,1)}"), &t("bf16[3,5]{1,0}")).unwrap();
    /// let mut tiled = vec![0u16; 1024];
    /// tiled[2 * 4 + 1] = 7; // row 1, column 4: the odd half of pair 4
    /// let mut rows = [0u16; 15];
    /// plan.copy(&tiled, &mut rows, 0).unwrap();
    /// assert_eq!(rows[5 + 4], 7);
    /// ```
    pub fn copy<T: Copy>(&self, src: &[T], dst: &mut [T], pad: T) -> Result<(), RelayoutError> {
        let (src, dst) = self.buffers(src, dst)?;
        // A zero-sized element has no bytes: every slot already holds
        // every value (and the kernels measure slots in bytes).
        if size_of::<T>() == 0 {
            return Ok(());
        }
        if self.dims[..self.rank].contains(&0) {
            if self.dst_has_padding {
                dst.fill(pad);
            }
            return Ok(());
        }
        if let Some(t) = self.tiles.filter(|t| t.fits(size_of::<T>())) {
            self.copy_tiles(&t, src, dst, pad);
            return Ok(());
        }
        if self.dst_has_padding {
            dst.fill(pad);
        }
        if self.fast {
            let stream = self.streamer::<T>(dst);
            // One pointer for every block of the copy (see `run_block`).
            let (dp, len) = (dst.as_mut_ptr(), dst.len());
            match stream {
                // One closure per kernel, so that each inlines its own.
                Some(which) => {
                    let mut carry = streaming::Carry::new();
                    // SAFETY: `dp` is `dst`'s, writable for `len` elements,
                    // and `dst` is not touched otherwise until `finish`.
                    self.walk(&mut |b| unsafe {
                        run_block(b, src, dp, len, Some((which, &mut carry)))
                    });
                    carry.finish();
                    streaming::fence();
                }
                // SAFETY: as above (no carry).
                None => self.walk(&mut |b| unsafe { run_block(b, src, dp, len, None) }),
            }
        } else {
            self.for_each_element(|s, d| dst[d as usize] = src[s as usize]);
        }
        Ok(())
    }

    /// [`Relayout::copy`] split across the threads of the current rayon
    /// pool: the copies between row-major and a 2-D TPU tile format run
    /// as one contiguous range of tile rows per thread (disjoint slabs of
    /// both buffers); every other relayout runs on the calling thread, as
    /// [`Relayout::copy`]. The result is the same as [`Relayout::copy`]'s.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, Relayout};
    /// let t = |s| ArrayShape::parse_validated(s).unwrap().tiled().unwrap();
    /// let plan = Relayout::new(&t("bf16[16,256]{1,0}"), &t("bf16[16,256]{1,0:T(8,128)(2,1)}")).unwrap();
    /// let src: Vec<u16> = (0..4096).collect();       // element (r, c) holds r·256 + c
    /// let (mut one, mut many) = (vec![0u16; 4096], vec![0u16; 4096]);
    /// plan.copy(&src, &mut one, 0).unwrap();
    /// plan.copy_parallel(&src, &mut many, 0).unwrap();
    /// assert_eq!(&many[..4], &[0, 256, 1, 257]);      // rows 0 and 1 interleaved
    /// assert_eq!(many, one);
    /// ```
    #[cfg(feature = "rayon")]
    pub fn copy_parallel<T: Copy + Send + Sync>(
        &self,
        src: &[T],
        dst: &mut [T],
        pad: T,
    ) -> Result<(), RelayoutError> {
        self.copy_in_pieces(src, dst, pad, rayon::current_num_threads())
    }

    /// [`Relayout::copy_parallel`] in `pieces` tasks whatever the number
    /// of threads (for tests: the split is the same on any machine).
    #[cfg(feature = "rayon")]
    #[doc(hidden)]
    pub fn copy_in_pieces<T: Copy + Send + Sync>(
        &self,
        src: &[T],
        dst: &mut [T],
        pad: T,
        pieces: usize,
    ) -> Result<(), RelayoutError> {
        match self.tiles.filter(|t| t.fits(size_of::<T>())) {
            Some(t) if !self.dims[..self.rank].contains(&0) => {
                let (src, dst) = self.buffers(src, dst)?;
                self.copy_tiles_parallel(&t, src, dst, pad, pieces);
                Ok(())
            }
            _ => self.copy(src, dst, pad),
        }
    }

    /// `src` and `dst` cut to the layouts' slots, or why they are too
    /// short.
    #[allow(clippy::type_complexity)]
    fn buffers<'a, 'b, T>(
        &self,
        src: &'a [T],
        dst: &'b mut [T],
    ) -> Result<(&'a [T], &'b mut [T]), RelayoutError> {
        if (src.len() as u64) < self.src_slots {
            return Err(RelayoutError::SourceTooShort {
                needed: self.src_slots,
                got: src.len() as u64,
            });
        }
        if (dst.len() as u64) < self.dst_slots {
            return Err(RelayoutError::DestinationTooShort {
                needed: self.dst_slots,
                got: dst.len() as u64,
            });
        }
        Ok((
            &src[..self.src_slots as usize],
            &mut dst[..self.dst_slots as usize],
        ))
    }

    /// Copies the array from `src`, raw little-endian bytes in the source
    /// layout, to `dst` in the destination layout: any element type,
    /// packed `E(n)` storage included. Bytes of `dst` that hold no element
    /// bit are set to `pad`.
    ///
    /// Elements of one whole-byte width on both sides move as units of
    /// that width through the block kernels of [`Relayout::copy`]; others
    /// bit by bit ([`bits::Mover`]: when the storage widths differ, a
    /// value takes its type's own width and the rest of a wider slot is
    /// zero, as XLA's unpacking and the bit views leave it). Only the first
    /// `exact_bytes` of each buffer are read or written.
    ///
    /// A sub-byte type stored wider is its low bits, as XLA reads it (the
    /// upper bits of `s4[…]{…}` without `E(4)` are unspecified): a source
    /// byte 100 (`0x64`) there is the `s4` value 4, and is copied as 4.
    /// Into slots narrower than the values (an `E(n)` below the type's
    /// width, or below the source's), each value must survive, as a bit
    /// view's `set` asks: one that would read back as another is
    /// [`RelayoutError::ValueDoesNotFit`], and nothing is written.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, Relayout, RelayoutError};
    /// let t = |s| ArrayShape::parse_validated(s).unwrap().tiled().unwrap();
    /// let plan = Relayout::new(&t("s4[2]{0:E(4)}"), &t("s4[2]{0:E(2)}")).unwrap();
    /// let mut out = [0xAAu8];
    /// plan.copy_bytes(&[0xF1], &mut out, 0).unwrap();       // 1 and -1 fit 2 bits
    /// assert_eq!(out, [0x0D]);
    /// let refused = plan.copy_bytes(&[0x71], &mut out, 0);   // 7 does not
    /// assert_eq!(refused, Err(RelayoutError::ValueDoesNotFit { slot: 1, element_bits: 2 }));
    /// assert_eq!(out, [0x0D]);
    /// ```
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, Relayout};
    /// let t = |s| ArrayShape::parse_validated(s).unwrap().tiled().unwrap();
    /// // s4 packed two to a byte, column-major → one per byte, row-major.
    /// let plan = Relayout::new(&t("s4[2,2]{0,1:E(4)}"), &t("s4[2,2]{1,0}")).unwrap();
    /// let mut out = [0xEEu8; 5];
    /// plan.copy_bytes(&[0x31, 0xE2], &mut out, 0).unwrap(); // columns (1, 3) and (2, -2)
    /// assert_eq!(out, [1, 2, 3, 0x0E, 0xEE]);                 // -2 in its 4 bits; the 5th byte is not the array's
    /// ```
    pub fn copy_bytes(&self, src: &[u8], dst: &mut [u8], pad: u8) -> Result<(), RelayoutError> {
        let (sb, db) = (self.src.element_bits(), self.dst.element_bits());
        if self.src.total_bits().is_none() || self.dst.total_bits().is_none() {
            return Err(RelayoutError::TooLarge);
        }
        let (need_src, need_dst) = (self.src.exact_bytes(), self.dst.exact_bytes());
        if (src.len() as u64) < need_src {
            return Err(RelayoutError::SourceBytesTooShort {
                needed: need_src,
                got: src.len() as u64,
            });
        }
        if (dst.len() as u64) < need_dst {
            return Err(RelayoutError::DestinationBytesTooShort {
                needed: need_dst,
                got: dst.len() as u64,
            });
        }
        // Both fit: the buffers are at least this long.
        let (src, dst) = (&src[..need_src as usize], &mut dst[..need_dst as usize]);
        match (sb == db, sb) {
            (true, 8) => self.copy(src, dst, pad),
            (true, 16) => self.copy(src.as_chunks::<2>().0, dst.as_chunks_mut::<2>().0, [pad; 2]),
            (true, 32) => self.copy(src.as_chunks::<4>().0, dst.as_chunks_mut::<4>().0, [pad; 4]),
            (true, 64) => self.copy(src.as_chunks::<8>().0, dst.as_chunks_mut::<8>().0, [pad; 8]),
            (true, 128) => self.copy(
                src.as_chunks::<16>().0,
                dst.as_chunks_mut::<16>().0,
                [pad; 16],
            ),
            _ => {
                let mover = bits::Mover::new(self.src.element_type(), sb, db);
                // Narrower slots: every value checked before a byte is
                // written, so that a refusal loses nothing.
                if mover.cuts() {
                    let mut first = None;
                    self.for_each_pair(|s, _| {
                        if first.is_none() && !mover.fits(src, s) {
                            first = Some(s);
                        }
                    });
                    if let Some(slot) = first {
                        return Err(RelayoutError::ValueDoesNotFit {
                            slot,
                            element_bits: db,
                        });
                    }
                }
                dst.fill(pad);
                self.for_each_pair(|s, d| mover.move_element(src, s, dst, d));
                Ok(())
            }
        }
    }

    /// [`Relayout::copy`] by tiles: `src` and `dst` hold exactly the
    /// layouts' slots; no dimension is 0.
    fn copy_tiles<T: Copy>(&self, t: &Tiles, src: &[T], dst: &mut [T], pad: T) {
        let (b, kernel, how) = self.tile_setup(t, src, dst, pad);
        // SAFETY: `src` and `dst` hold the layouts' slots (checked by
        // `copy`), at least the formula's on each side (`Tiles::new`);
        // they are distinct borrows; one thread; stores and extensions
        // from `Tiles::choose`.
        unsafe { t.copy_bands(b, 0..t.bands(), kernel, how) };
    }

    /// Fills the tail padding of `dst` and chooses how the tiles move:
    /// the buffers, the kernel, and the stores and extensions
    /// ([`Tiles::choose`], with at most the extensions this plan allows
    /// and the CPU runs).
    fn tile_setup<T: Copy>(
        &self,
        t: &Tiles,
        src: &[T],
        dst: &mut [T],
        pad: T,
    ) -> (Buffers<T>, Kernel, (Stores, Isa)) {
        let kernel = Kernel::new(size_of::<T>(), t.group, t.tile_cols);
        // The tiles write the destination's slots before tail padding
        // (the formula's, `Tiles::new` checked); the tail is padding.
        dst[self.dst.tiled_slots() as usize..].fill(pad);
        let big = size_of_val(dst) >= self.stream_threshold && cfg!(target_arch = "x86_64");
        let at = dst.as_ptr().cast::<u8>();
        let (kernel, how) = t.choose(kernel, at, (size_of::<T>(), big), self.isa.min(isa()));
        let b = Buffers {
            src: src.as_ptr(),
            dst: dst.as_mut_ptr(),
            pad,
        };
        (b, kernel, how)
    }

    /// [`Relayout::copy_tiles`] in `pieces` rayon tasks, each a
    /// contiguous range of tile rows.
    #[cfg(feature = "rayon")]
    fn copy_tiles_parallel<T: Copy + Send + Sync>(
        &self,
        t: &Tiles,
        src: &[T],
        dst: &mut [T],
        pad: T,
        pieces: usize,
    ) {
        use rayon::iter::{IntoParallelIterator, ParallelIterator};
        let bands = t.bands();
        let pieces = u64::try_from(pieces).unwrap_or(u64::MAX).clamp(1, bands);
        if pieces == 1 {
            return self.copy_tiles(t, src, dst, pad);
        }
        let (b, kernel, how) = self.tile_setup(t, src, dst, pad);
        /// The buffers, shared by the tasks: each writes only the
        /// destination slots of its own bands.
        struct Shared<T>(Buffers<T>);
        // SAFETY: the tasks read the source (borrowed shared, of `T:
        // Sync` elements) and write disjoint parts of the destination
        // (borrowed exclusively until every task is done) with `T: Send`
        // values.
        unsafe impl<T: Send + Sync> Sync for Shared<T> {}
        impl<T: Copy> Shared<T> {
            fn get(&self) -> Buffers<T> {
                self.0
            }
        }
        /// Where piece `k` of `n` starts (`k <= n`: no overflow in 128
        /// bits, and the quotient is at most `bands`).
        fn cut(bands: u64, k: u64, n: u64) -> u64 {
            (u128::from(bands) * u128::from(k) / u128::from(n)) as u64
        }
        let shared = Shared(b);
        (0..pieces).into_par_iter().for_each(|k| {
            let range = cut(bands, k, pieces)..cut(bands, k + 1, pieces);
            // (`copy_bands` fences this task's streaming stores before
            // the join.)
            // SAFETY: as in `copy_tiles`, each task with its own bands,
            // whose destination slots no other task writes (bands are
            // disjoint tile rows: disjoint slot ranges in both layouts);
            // `for_each` returns only when every task is done, within
            // the borrows of `src` and `dst`.
            unsafe { t.copy_bands(shared.get(), range, kernel, how) };
        });
    }

    /// The streaming kernel for copying into `dst`, if it is large enough
    /// for streaming to pay and the plan has one.
    fn streamer<T>(&self, dst: &[T]) -> Option<streaming::Streamer> {
        if size_of_val(dst) < self.stream_threshold || self.nest.len == 0 {
            return None;
        }
        let size = size_of::<T>();
        let i = self.nest.levels[self.nest.len - 1];
        let o = if self.nest.len >= 2 {
            self.nest.levels[self.nest.len - 2]
        } else {
            NO_LEVEL
        };
        // Every block start and every row the kernels write must be
        // 16-byte aligned: all destination steps are multiples of 16 bytes.
        let aligned_steps = self.nest.levels[..self.nest.len.saturating_sub(2)]
            .iter()
            .all(|l| (l.dst as usize * size).is_multiple_of(16));
        let base = (dst.as_ptr() as usize).is_multiple_of(16);
        let line = |l: Level| Line {
            count: l.count,
            src: l.src,
            dst: l.dst,
        };
        streaming::choose(line(o), line(i), size, aligned_steps, base)
    }

    /// Every `(source slot, destination slot)` pair, for element types
    /// that are not whole bytes (packed `E(n)` data): the caller moves the
    /// bits. Blocks are walked as in [`Relayout::copy`].
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, Relayout};
    /// let t = |s| ArrayShape::parse_validated(s).unwrap().tiled().unwrap();
    /// let plan = Relayout::new(&t("s4[2,3]{1,0:E(4)}"), &t("s4[2,3]{0,1:E(4)}")).unwrap();
    /// let mut pairs = Vec::new();
    /// plan.for_each_pair(|s, d| pairs.push((s, d)));
    /// pairs.sort();
    /// // (r, c) is slot 3r + c in the source, r + 2c in the destination.
    /// assert_eq!(pairs, [(0, 0), (1, 2), (2, 4), (3, 1), (4, 3), (5, 5)]);
    /// ```
    pub fn for_each_pair(&self, mut f: impl FnMut(u64, u64)) {
        if self.dims[..self.rank].contains(&0) {
            return;
        }
        if self.fast {
            self.walk(&mut |b| b.for_each(&mut f));
        } else {
            self.for_each_element(f);
        }
    }

    /// Runs the loops outside the innermost block (an odometer, no
    /// recursion) and hands each block to `f`, as the plan's [`Walk`]
    /// says: the walk only executes, every choice was made with the plan.
    fn walk(&self, f: &mut impl FnMut(Block)) {
        let Walk {
            odometer: outer,
            leaf,
            leaf_kind,
            direct,
            folded,
        } = self.nest.walk;
        let mut base = [0u64; MAX_RANK];
        // Both loops have fixed counts: their lines do not depend on `base`.
        let fixed_line = |is: bool, level: usize| match is {
            true => self.line(level, &base),
            false => Line::ONE,
        };
        let run = fixed_line(direct, outer);
        let repeat = fixed_line(folded, self.nest.len.saturating_sub(3));
        let mut step = [0u64; MAX_DIGITS];
        let mut limit = [0u64; MAX_DIGITS];
        for (level, limit) in limit.iter_mut().enumerate().take(outer) {
            *limit = self.count_at(level, &base);
        }
        let (mut s, mut d) = (0u64, 0u64);
        loop {
            self.leaf(leaf, leaf_kind, s, d, &mut base, &mut |b| {
                for j in 0..run.count {
                    f(Block {
                        src: b.src + j * run.src,
                        dst: b.dst + j * run.dst,
                        repeat,
                        ..b
                    })
                }
            });
            // Advance the innermost outer loop that has values left.
            let mut level = outer;
            loop {
                if level == 0 {
                    return;
                }
                level -= 1;
                let l = self.nest.levels[level];
                step[level] += 1;
                s += l.src;
                d += l.dst;
                base[l.dim] += l.place;
                if step[level] < limit[level] {
                    break;
                }
                s -= l.src * step[level];
                d -= l.dst * step[level];
                base[l.dim] -= l.place * step[level];
                step[level] = 0;
            }
            // Inner ranges of ragged dimensions follow the new digits.
            for (inner, limit) in limit.iter_mut().enumerate().take(outer).skip(level + 1) {
                if self.nest.levels[inner].ragged {
                    *limit = self.count_at(inner, &base);
                }
            }
        }
    }

    /// The leaf, the innermost one or two loops, as blocks.
    #[inline(always)]
    fn leaf(
        &self,
        level: usize,
        kind: Leaf,
        s: u64,
        d: u64,
        base: &mut [u64; MAX_RANK],
        f: &mut impl FnMut(Block),
    ) {
        let block = |outer, inner| Block {
            src: s,
            dst: d,
            repeat: Line::ONE,
            outer,
            inner,
        };
        match kind {
            Leaf::Point => f(block(Line::ONE, Line::ONE)),
            Leaf::Line => f(block(Line::ONE, self.line(level, base))),
            Leaf::Block => f(block(self.line(level, base), self.line(level + 1, base))),
            Leaf::Split => {
                // The inner count depends on the outer digit.
                let o = self.nest.levels[level];
                for k in 0..self.count_at(level, base) {
                    base[o.dim] += k * o.place;
                    let inner = self.line(level + 1, base);
                    base[o.dim] -= k * o.place;
                    f(Block {
                        src: s + k * o.src,
                        dst: d + k * o.dst,
                        ..block(Line::ONE, inner)
                    });
                }
            }
        }
    }

    fn line(&self, level: usize, base: &[u64; MAX_RANK]) -> Line {
        let l = self.nest.levels[level];
        Line {
            count: self.count_at(level, base),
            src: l.src,
            dst: l.dst,
        }
    }

    /// How many values loop `level` takes, given the digits of its
    /// dimension chosen outside it.
    fn count_at(&self, level: usize, base: &[u64; MAX_RANK]) -> u64 {
        let l = self.nest.levels[level];
        if !l.ragged {
            return l.count;
        }
        let left = self.dims[l.dim] - base[l.dim];
        l.count.min(left.div_ceil(l.place))
    }

    /// The slow path: every logical index through both coordinate programs.
    fn for_each_element(&self, mut f: impl FnMut(u64, u64)) {
        let mut index = [0u64; MAX_RANK];
        let dims = &self.dims[..self.rank];
        let index = &mut index[..self.rank];
        loop {
            f(
                self.src.offset_unchecked(index),
                self.dst.offset_unchecked(index),
            );
            if !next_row_major(index, dims) {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::plan::{Leaf, Walk};
    use super::*;
    use crate::ArrayShape;

    /// The tiled shape of a layout's text.
    fn t(s: &str) -> crate::TiledShape {
        ArrayShape::parse_validated(s).unwrap().tiled().unwrap()
    }

    /// A line-aligned address and one 16 bytes into that line.
    fn line_starts() -> (*const u8, *const u8) {
        #[repr(align(64))]
        struct Line([u8; 128]);
        static LINE: Line = Line([0; 128]);
        (LINE.0.as_ptr(), LINE.0[16..].as_ptr())
    }

    fn walk(from: &str, to: &str) -> Walk {
        Relayout::new(&t(from), &t(to)).unwrap().nest.walk
    }

    const fn w(odometer: usize, leaf: usize, leaf_kind: Leaf, direct: bool, folded: bool) -> Walk {
        Walk {
            odometer,
            leaf,
            leaf_kind,
            direct,
            folded,
        }
    }

    /// Forcing a choice made per family of cores takes its path, so that
    /// the sweep of `tests/relayout/tiles.rs`, which forces each, runs
    /// them on every machine.
    #[test]
    fn forced_choices_are_taken() {
        use super::tiles::Stores;
        let (aligned, off) = line_starts();
        for (ty, size, tile) in [
            ("bf16", 2, "T(8,128)(2,1)"),
            ("s8", 1, "T(8,128)(4,1)"),
            ("f32", 4, "T(8,128)"),
        ] {
            let (host, tpu) = (
                format!("{ty}[64,512]{{1,0}}"),
                format!("{ty}[64,512]{{1,0:{tile}}}"),
            );
            let plan = Relayout::new(&t(&host), &t(&tpu)).unwrap();
            for (yes, want) in [(true, Stores::SourceOrder), (false, Stores::Streaming)] {
                let tiles = plan.packing_in_source_order(yes).tiles.unwrap();
                let kernel = Kernel::new(size, tiles.group, tiles.tile_cols);
                let stores = |at| tiles.choose(kernel, at, (size, true), Isa::Sse2).1.0;
                assert_eq!(stores(aligned), want, "{tpu}, source order {yes}");
                // Off the line grid, parts would leave lines half written.
                assert_eq!(stores(off), Stores::Streaming, "{tpu} at +16 B");
            }
        }
        #[cfg(target_arch = "x86_64")]
        {
            let pred = |dims: &str| {
                let (host, tpu) = (
                    format!("pred[{dims}]{{1,0}}"),
                    format!("pred[{dims}]{{1,0:T(32,128)(32,1)}}"),
                );
                Relayout::new(&t(&host), &t(&tpu)).unwrap()
            };
            let two_wide = pred("64,256");
            let yes = two_wide.packing_pipelined(true).tiles.unwrap();
            assert!(yes.pipelines(Kernel::Bytes32, 1, 32));
            assert!(!yes.pipelines(Kernel::Bytes32, 1, 31), "a band cut short");
            let no = two_wide.packing_pipelined(false).tiles.unwrap();
            assert!(!no.pipelines(Kernel::Bytes32, 1, 32));
            let one_wide = pred("64,200").packing_pipelined(true).tiles.unwrap();
            assert!(!one_wide.pipelines(Kernel::Bytes32, 1, 32), "one tile wide");
            // pred's 512-bit kernels, on a CPU that has them, where each
            // family measured them faster: Zen 5 packs with them
            // pipelined where it streams, from the source's lines with
            // ordinary stores, and unpacks with them into rows of whole
            // lines and into rows off the line grid joined in the stage;
            // Intel's cores pack with them either way (a tile at a time
            // reading the source 64 bytes at a time, unless told not
            // to), and unpack with them as Zen 5 does.
            use tile_kernels::Core;
            let kernel = |tiles: &Tiles, at| {
                let (size, big) = (1, true);
                tiles
                    .choose(Kernel::Bytes32, at, (size, big), Isa::Avx512Wide)
                    .0
            };
            let host = "pred[64,256]{1,0}";
            let tpu = "pred[64,256]{1,0:T(32,128)(32,1)}";
            let unpack = Relayout::new(&t(tpu), &t(host)).unwrap().tiles.unwrap();
            let wide = |yes: bool| match yes {
                true => Kernel::Bytes32Wide,
                false => Kernel::Bytes32,
            };
            let family = tile_kernels::family();
            let (zen5, intel) = (family == Core::Zen5, family == Core::Intel);
            let staged = two_wide
                .packing_pipelined(false)
                .packing_from_lines(false)
                .tiles
                .unwrap();
            let lines = |yes: bool| match (yes, intel) {
                (true, true) => Kernel::Bytes32Lines,
                (_, true) => Kernel::Bytes32Wide,
                (_, false) => Kernel::Bytes32,
            };
            if zen5 || intel {
                assert_eq!(kernel(&yes, aligned), wide(true), "packing pipelined");
                assert_eq!(kernel(&no, aligned), lines(true), "a tile at a time");
                assert_eq!(kernel(&staged, aligned), lines(false), "through the stage");
                // Forced, on either family.
                let forced = two_wide
                    .packing_pipelined(false)
                    .packing_from_lines(true)
                    .tiles
                    .unwrap();
                assert_eq!(kernel(&forced, aligned), Kernel::Bytes32Lines, "forced");
                // With ordinary stores (an array near the core), both
                // families read the source 64 bytes at a time, unless
                // told not to.
                let ordinary = |tiles: &Tiles, at| {
                    tiles
                        .choose(Kernel::Bytes32, at, (1, false), Isa::Avx512Wide)
                        .0
                };
                assert_eq!(ordinary(&no, aligned), Kernel::Bytes32Lines, "ordinary");
                assert_eq!(ordinary(&no, off), Kernel::Bytes32Lines, "ordinary, +16 B");
                assert_ne!(
                    ordinary(&staged, aligned),
                    Kernel::Bytes32Lines,
                    "ordinary, told"
                );
                assert_eq!(kernel(&unpack, aligned), wide(true), "unpacking into lines");
                assert_eq!(
                    kernel(&unpack, off),
                    wide(true),
                    "unpacking off the line grid"
                );
            }
        }
    }

    /// Unpacking realigns rows in registers where the CPU has VBMI and
    /// the family measured it faster (Intel's), or where forced (Zen 5
    /// too): s8 into rows off the line grid only (into whole
    /// lines its direct 512-bit stores stay), bf16 into any rows; never
    /// f32, pred, or without the 512-bit vectors, and never when told
    /// not to.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn unpacking_realigns_where_it_can() {
        use super::tiles::Stores;
        let (aligned, off) = line_starts();
        let vbmi = tile_kernels::vbmi();
        let intel = tile_kernels::family() == tile_kernels::Core::Intel;
        for (ty, size, tile, on_lines) in [
            ("bf16", 2, "T(8,128)(2,1)", true),
            ("s8", 1, "T(8,128)(4,1)", false),
            ("f32", 4, "T(8,128)", false),
            ("pred", 1, "T(32,128)(32,1)", false),
        ] {
            let (host, tpu) = (
                format!("{ty}[64,512]{{1,0}}"),
                format!("{ty}[64,512]{{1,0:{tile}}}"),
            );
            let plan = Relayout::new(&t(&tpu), &t(&host)).unwrap();
            let takes = |plan: Relayout, at, isa| {
                let tiles = plan.tiles.unwrap();
                let kernel = Kernel::new(size, tiles.group, tiles.tile_cols);
                let (_, (stores, _)) = tiles.choose(kernel, at, (size, true), isa);
                stores == Stores::Realigned
            };
            let can = vbmi && (ty == "bf16" || ty == "s8");
            for (at, whole) in [(aligned, true), (off, false)] {
                let can = can && (on_lines || !whole);
                let name = format!("{tpu} -> {host}, whole lines {whole}");
                assert_eq!(takes(plan, at, Isa::Avx512Wide), can && intel, "{name}");
                let forced = plan.realigned(true);
                assert_eq!(takes(forced, at, Isa::Avx512Wide), can, "{name}, forced");
                assert!(
                    !takes(forced, at, Isa::Avx512),
                    "{name}, no 512-bit vectors"
                );
                let not = plan.realigned(false);
                assert!(!takes(not, at, Isa::Avx512Wide), "{name}, told not to");
            }
        }
    }

    /// Packing takes the 512-bit kernels of s8's quads and bf16's pairs
    /// where the CPU has VBMI and the family is Intel's (or realigning is
    /// forced), streamed off the line grid realigned in registers (unless
    /// told not to); never without the 512-bit vectors.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn packing_takes_wide_quads_and_pairs() {
        use super::tiles::Stores;
        let (aligned, off) = line_starts();
        let on = tile_kernels::vbmi() && tile_kernels::family() == tile_kernels::Core::Intel;
        for (ty, size, tile, narrow, wide) in [
            (
                "bf16",
                2,
                "T(8,128)(2,1)",
                Kernel::Pairs16,
                Kernel::Pairs16Wide,
            ),
            ("s8", 1, "T(8,128)(4,1)", Kernel::Quads8, Kernel::Quads8Wide),
        ] {
            let (host, tpu) = (
                format!("{ty}[64,512]{{1,0}}"),
                format!("{ty}[64,512]{{1,0:{tile}}}"),
            );
            let plan = Relayout::new(&t(&host), &t(&tpu)).unwrap();
            let how = |plan: Relayout, at, big, isa| {
                plan.tiles.unwrap().choose(narrow, at, (size, big), isa)
            };
            let streaming = (Stores::Streaming, Isa::Avx2);
            let (want, realigned) = match on {
                true => (wide, (Stores::Realigned, Isa::Avx512Wide)),
                false => (narrow, streaming),
            };
            let wide_isa = Isa::Avx512Wide;
            assert_eq!(how(plan, aligned, true, wide_isa).0, want, "{tpu}");
            assert_eq!(how(plan, off, false, wide_isa).0, want, "{tpu}, ordinary");
            // Streamed off the line grid, realigned in registers unless
            // told not to.
            assert_eq!(
                how(plan, off, true, wide_isa),
                (want, realigned),
                "{tpu} at +16 B"
            );
            // Forced, wherever `vbmi` holds (Intel's cores and Zen 5).
            let forced = match tile_kernels::vbmi() {
                true => (wide, (Stores::Realigned, Isa::Avx512Wide)),
                false => (narrow, streaming),
            };
            let yes = plan.realigned(true);
            assert_eq!(how(yes, off, true, wide_isa), forced, "{tpu}, forced");
            let not = plan.realigned(false);
            assert_eq!(
                how(not, off, true, wide_isa),
                (narrow, streaming),
                "{tpu}, not"
            );
            assert_eq!(
                how(not, aligned, true, wide_isa).0,
                want,
                "{tpu} aligned, not"
            );
            assert_eq!(
                how(plan, aligned, true, Isa::Avx512).0,
                narrow,
                "{tpu}, no 512-bit"
            );
        }
    }

    /// How unpacking with streaming stores stages its tiles: rows off the
    /// line grid join in the stage where a span's row parts are whole
    /// lines (pred, bf16, s8), not f32's rows, which go out straight from
    /// the source a tile at a time; rows of whole lines stream straight
    /// from the stage; tiles larger than the stage go a row group at a
    /// time.
    #[test]
    fn unpacking_stages_by_the_destination() {
        use super::tiles::Staging;
        let (aligned, off) = line_starts();
        let staging = |ty: &str, size: usize, tile: &str, at: *const u8| {
            let (tpu, host) = (
                format!("{ty}[64,4096]{{1,0:{tile}}}"),
                format!("{ty}[64,4096]{{1,0}}"),
            );
            let tiles = Relayout::new(&t(&tpu), &t(&host)).unwrap().tiles.unwrap();
            let kernel = Kernel::new(size, tiles.group, tiles.tile_cols);
            tiles.staging(at, size, kernel)
        };
        for (ty, size, tile) in [
            ("pred", 1, "T(32,128)(32,1)"),
            ("bf16", 2, "T(8,128)(2,1)"),
            ("s8", 1, "T(8,128)(4,1)"),
        ] {
            let Staging::Windows(span) = staging(ty, size, tile, off) else {
                panic!("{ty} off the line grid: {:?}", staging(ty, size, tile, off));
            };
            // Each row's part of a span is whole lines: 512 bytes, or 256
            // for pred's 4 KiB tiles in the 8 KiB stage off Zen 5.
            assert_eq!(span * 128 * size % 64, 0, "{ty}");
            assert!(span * 128 * size >= 256, "{ty}: span {span}");
            assert!(
                matches!(staging(ty, size, tile, aligned), Staging::Tiles(_)),
                "{ty}"
            );
        }
        assert_eq!(staging("f32", 4, "T(8,128)", off), Staging::Tiles(1));
        assert_eq!(staging("f32", 4, "T(8,1024)", off), Staging::Groups);
    }

    /// `(pack, batch, rows, cols, tile rows, tile cols, group)` of the
    /// tile copy `Relayout::new` finds, if any.
    fn tiles(from: &str, to: &str) -> Option<(bool, u64, u64, u64, u64, u64, u64)> {
        let plan = Relayout::new(&t(from), &t(to)).unwrap();
        plan.tiles.map(|t| {
            (
                t.pack,
                t.batch,
                t.rows,
                t.cols,
                t.tile_rows,
                t.tile_cols,
                t.group,
            )
        })
    }

    #[test]
    fn the_tpu_formats_copy_by_tiles() {
        let host = "bf16[16,256]{1,0}";
        let tpu = "bf16[16,256]{1,0:T(8,128)(2,1)}";
        assert_eq!(tiles(host, tpu), Some((true, 1, 16, 256, 8, 128, 2)));
        assert_eq!(tiles(tpu, host), Some((false, 1, 16, 256, 8, 128, 2)));
        let ragged = tiles("pred[33,129]{1,0}", "pred[33,129]{1,0:T(32,128)(32,1)}");
        assert_eq!(ragged, Some((true, 1, 33, 129, 32, 128, 32)));
        assert_eq!(
            tiles("f32[3,5,7]{2,1,0}", "f32[3,5,7]{2,1,0:T(8,128)}"),
            Some((true, 3, 5, 7, 8, 128, 1))
        );
        // Batch dimensions in another order than the host's, a
        // transposed host, three tile levels, a tiled host, `*`: the
        // general walk.
        assert_eq!(
            tiles("f32[3,5,7]{2,1,0}", "f32[3,5,7]{2,0,1:T(8,128)}"),
            None
        );
        assert_eq!(tiles("f32[64,256]{0,1}", "f32[64,256]{1,0:T(8,128)}"), None);
        assert_eq!(
            tiles("bf16[4096]{0}", "bf16[4096]{0:T(1024)(128)(2,1)}"),
            None
        );
        assert_eq!(
            tiles("f32[64,256]{1,0:T(1,128)}", "f32[64,256]{1,0:T(8,128)}"),
            None
        );
        assert_eq!(tiles("f32[64,256]{1,0}", "f32[64,256]{1,0:T(*,128)}"), None);
        // Tail padding after the tiles is fine (filled apart).
        assert!(tiles("f32[3,5]{1,0}", "f32[3,5]{1,0:T(8,128)L(2048)}").is_some());
    }

    #[test]
    fn the_plan_decides_how_the_walk_runs() {
        // Five loops: (128)(8)(4)(128)(2). The (4) is folded into every
        // block, the (8) runs directly, the odometer steps the (128).
        let tpu = walk("bf16[1024,1024]{1,0}", "bf16[1024,1024]{1,0:T(8,128)(2,1)}");
        assert_eq!(tpu, w(1, 3, Leaf::Block, true, true));
        // A ragged dimension outside the leaf: nothing fixed to fold.
        let ragged = walk("f32[1001,999]{1,0}", "f32[1001,999]{1,0:T(8,128)}");
        assert_eq!(ragged, w(2, 2, Leaf::Block, false, false));
        // Both leaf loops are digits of one ragged dimension: it splits.
        let split = walk("f32[1000]{0}", "f32[1000]{0:T(128)}");
        assert_eq!(split, w(0, 0, Leaf::Split, false, false));
        let split = walk("f32[1000]{0:T(256)}", "f32[1000]{0:T(128)}");
        assert_eq!(split, w(1, 1, Leaf::Split, false, false));
        // One loop, none.
        assert_eq!(
            walk("f32[64]{0}", "f32[64]{0}"),
            w(0, 0, Leaf::Line, false, false)
        );
        assert_eq!(walk("f32[]", "f32[]"), w(0, 0, Leaf::Point, false, false));
    }
}
