//! Layouts known at compile time: the trait that `layout!` implements.

use core::fmt::{Debug, Display};
use core::hash::Hash;
use core::marker::PhantomData;

use crate::{ArrayShape, ElementType};

/// A layout fixed at compile time, with its address arithmetic folded into
/// constants. The `layout!` macro of the `xla-layout` crate implements it
/// for a zero-sized type per layout:
///
/// `xla_layout::layout! { pub type Act = bf16[8,128]{1,0:T(8,128)(2,1)}; }`
/// makes `Act` one. Generic code takes any layout:
///
/// ```
/// use xla_layout_core::StaticLayout;
///
/// /// The 32-bit word holding `index`'s element.
/// fn word_of<L: StaticLayout>(layout: L, index: L::Index) -> usize {
///     layout.bit_offset(index) / 32
/// }
/// ```
///
/// # Safety
///
/// Unsafe code (typed views, relayout) trusts an implementation to be the
/// layout it claims: for every `index` with `index[d] < DIMS[d]` for all
/// `d`, `offset(index)` is below `PHYSICAL_ELEMENTS`, distinct indices give
/// distinct offsets, and `offset_checked` returns `Some(offset(index))` for
/// exactly those indices. `BYTES` is at least
/// `⌈PHYSICAL_ELEMENTS · ELEMENT_BITS / 8⌉`, and `PHYSICAL_ELEMENTS ·
/// ELEMENT_BITS` fits in `usize` (so every bit offset does). `SHAPE` is a
/// valid shape whose [`crate::TiledShape`] has `PHYSICAL_ELEMENTS` slots
/// of `ELEMENT_BITS` bits and the dimensions `DIMS` (views plan copies
/// from it), and `TILED` is that `TiledShape` (leave its default). Leave
/// `VALID` at its default too: `false` turns the compile-time checks off.
/// Implement it with `layout!`.
pub unsafe trait StaticLayout:
    Copy + Default + Debug + Display + Eq + Hash + 'static
{
    /// A logical index: `[usize; RANK]`.
    type Index: Copy + Eq + Debug + Default + AsRef<[usize]> + AsMut<[usize]> + 'static;
    /// The memory space as a type, [`MemorySpace<N>`], so that an API can
    /// require (say) `S(1)` at compile time.
    type Space: Copy + Default + Debug + 'static;
    /// The logical shape as a type ([`Logical`]): layouts of the same
    /// element type and dimensions have the same `Logical`, whatever their
    /// layouts.
    type Logical: 'static;

    /// The number of logical dimensions.
    const RANK: usize;
    /// The logical dimension sizes (bounds for bounded dimensions).
    const DIMS: Self::Index;
    /// The slot count: slots allocated, padding included (every tile
    /// level and `L`), as [`TiledShape::physical_slots`](crate::TiledShape::physical_slots)
    /// gives it at run time. (The name is older; the quantity is slots.)
    const PHYSICAL_ELEMENTS: usize;
    /// The exact size in bytes (`⌈PHYSICAL_ELEMENTS · ELEMENT_BITS / 8⌉`).
    const BYTES: usize;
    /// Storage bits per slot (`E(n)`, else 8 × the byte width): XLA's
    /// `element_size_in_bits` where set, and what `xla-layout explain
    /// --json` calls `slot_bits` (its `element_bits` is the type's own
    /// width: 1 for `pred`, 4 for `s4`, whatever the slot).
    const ELEMENT_BITS: u64;
    /// The element type.
    const ELEMENT_TYPE: ElementType;
    /// `S(n)`.
    const MEMORY_SPACE: i8;
    /// The canonical XLA text.
    const TEXT: &'static str;
    /// The whole shape, for generic code that wants every field.
    const SHAPE: ArrayShape;
    /// The tiled form of [`StaticLayout::SHAPE`], computed at compile
    /// time: what the runtime API ([`crate::DynView`],
    /// [`crate::Relayout`], [`crate::TiledShape::offset`]) takes.
    ///
    /// ```
    /// use xla_layout::{layout, StaticLayout};
    /// layout! { type Act = bf16[8,128]{1,0:T(8,128)(2,1)}; }
    /// assert_eq!(Act::TILED.offset(&[2, 0]), Ok(256));
    /// assert_eq!(Act::TILED.offset(&[2, 0]), Ok(Act.offset([2, 0]) as u64));
    /// ```
    const TILED: crate::TiledShape = match Self::SHAPE.tiled() {
        Ok(t) => t,
        Err(_) => panic!("a StaticLayout's SHAPE must be valid"),
    };

    /// `false` only for the stand-in type `layout!` emits next to the
    /// compile error of an invalid layout (so that the rest of the crate
    /// still type-checks): the compile-time checks
    /// (`assert_same_shape!`, `assert_bytes!`, …) pass over it, so that one
    /// mistake is one error. A crate holding such a type never builds.
    ///
    /// ```
    /// use xla_layout::{layout, StaticLayout};
    /// layout! { type Act = bf16[8,128]{1,0:T(8,128)(2,1)}; }
    /// assert!(Act::VALID);
    /// ```
    const VALID: bool = true;

    /// The slot of `index` (straight-line arithmetic). Indices out of
    /// bounds are caught by a debug assertion only.
    fn offset(self, index: Self::Index) -> usize;
    /// The slot of `index`, or `None` if it is out of bounds.
    fn offset_checked(self, index: Self::Index) -> Option<usize>;
    /// The bit offset of `index`'s element: `offset · ELEMENT_BITS`
    /// (packed elements fill bytes from the least significant bit).
    fn bit_offset(self, index: Self::Index) -> usize {
        // Cannot overflow: the contract bounds the storage's bit count.
        self.offset(index) * (Self::ELEMENT_BITS as usize)
    }
}

/// A memory space `S(N)` as a type.
///
/// ```
/// use xla_layout_core::MemorySpace;
/// fn needs_vmem(_: MemorySpace<1>) {}
/// needs_vmem(MemorySpace::<1>);
/// assert_eq!(MemorySpace::<1>::N, 1);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MemorySpace<const N: i8>;

impl<const N: i8> MemorySpace<N> {
    /// The memory space number.
    pub const N: i8 = N;
}

/// A logical shape as a type: element type (by proto number) and
/// dimensions, a tuple of [`Extent`] / [`Bound`].
///
/// ```
/// use xla_layout_core::{Extent, Logical};
/// type Bf16x8x128 = Logical<16, (Extent<8>, Extent<128>)>;
/// ```
pub struct Logical<const ELEMENT_TYPE: u8, Dims>(PhantomData<Dims>);

/// A static dimension of size `N`, in a [`Logical`] shape.
pub struct Extent<const N: usize>;

/// A bounded dynamic dimension `<=N`, in a [`Logical`] shape.
pub struct Bound<const N: usize>;
