/**

XLA layout `f32[]`: 1 logical elements in 1 slots, 4 bytes; slot of `[]` = `0`.*/
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Scalar;
#[allow(clippy::all, clippy::pedantic, clippy::nursery, deprecated)]
impl Scalar {
    /// The number of logical dimensions.
    pub const RANK: usize = 0usize;
    /// The logical dimension sizes (bounds for `<=N` dimensions).
    pub const DIMS: [usize; 0usize] = [];
    /// Slots allocated, padding included (every tile level and `L`).
    pub const PHYSICAL_ELEMENTS: usize = 1;
    /// The exact size in bytes.
    pub const BYTES: usize = 4;
    /// Storage bits per slot.
    pub const ELEMENT_BITS: u64 = 32u64;
    /// The element type.
    pub const ELEMENT_TYPE: ::xla_layout::ElementType = ::xla_layout::ElementType::F32;
    /// The memory space, `S(n)`.
    pub const MEMORY_SPACE: i8 = 0i8;
    /// The canonical XLA text.
    pub const TEXT: &'static str = "f32[]";
    /// The whole shape as a layout-core value.
    pub const SHAPE: ::xla_layout::ArrayShape = ::xla_layout::ArrayShape::from_dims(
            ::xla_layout::ElementType::F32,
            &[],
        )
        .with_layout(::xla_layout::Layout::new(&[]));
    /// The slot of `index`: straight-line arithmetic on constants.
    /// Out-of-bounds indices are caught by a debug assertion only,
    /// which names the dimension and the caller's line.
    #[inline(always)]
    #[track_caller]
    #[allow(unused_variables)]
    pub const fn offset(self, index: [usize; 0usize]) -> usize {
        let [] = index;
        0
    }
    /// The slot of `index`, or `None` if it is out of bounds.
    #[inline(always)]
    #[allow(unused_variables)]
    pub const fn offset_checked(
        self,
        index: [usize; 0usize],
    ) -> ::core::option::Option<usize> {
        let [] = index;
        if true {
            ::core::option::Option::Some(self.offset(index))
        } else {
            ::core::option::Option::None
        }
    }
    /// The bit offset of `index`'s element (packed elements fill
    /// bytes from the least significant bit).
    #[inline(always)]
    #[track_caller]
    pub const fn bit_offset(self, index: [usize; 0usize]) -> usize {
        self.offset(index) * (Self::ELEMENT_BITS as usize)
    }
}
#[allow(clippy::all, clippy::pedantic, clippy::nursery, deprecated)]
const _: () = {
    ::core::assert!(
        ::xla_layout::__private::fits_usize(1u64) &&
        ::xla_layout::__private::fits_usize(4u64) &&
        ::xla_layout::__private::fits_usize(32u64),
        "layout `f32[]` needs more slots, bytes or bits than this target's usize can count"
    );
    match ::xla_layout::TiledShape::new(&Scalar::SHAPE) {
        ::core::result::Result::Ok(t) => {
            ::core::assert!(
                t.physical_slots() == 1u64 && t.exact_bytes() == 4u64,
                "xla-layout internal error: generated constants disagree with layout-core"
            )
        }
        ::core::result::Result::Err(_) => {
            ::core::panic!("xla-layout internal error: generated shape is invalid")
        }
    }
};
/// SAFETY: `offset` is layout-core's coordinate program for
/// `SHAPE` folded into constants at expansion time, so in-bounds
/// indices map to distinct slots below `PHYSICAL_ELEMENTS`;
/// `offset_checked` tests exactly the bounds in `DIMS`; the const
/// block above checks the size constants against layout-core and
/// this target's usize.
#[allow(clippy::all, clippy::pedantic, clippy::nursery, deprecated)]
unsafe impl ::xla_layout::StaticLayout for Scalar {
    type Index = [usize; 0usize];
    type Space = ::xla_layout::MemorySpace<0i8>;
    type Logical = ::xla_layout::Logical<11, ()>;
    const RANK: usize = Scalar::RANK;
    const DIMS: [usize; 0usize] = Scalar::DIMS;
    const PHYSICAL_ELEMENTS: usize = Scalar::PHYSICAL_ELEMENTS;
    const BYTES: usize = Scalar::BYTES;
    const ELEMENT_BITS: u64 = Scalar::ELEMENT_BITS;
    const ELEMENT_TYPE: ::xla_layout::ElementType = Scalar::ELEMENT_TYPE;
    const MEMORY_SPACE: i8 = Scalar::MEMORY_SPACE;
    const TEXT: &'static str = Scalar::TEXT;
    const SHAPE: ::xla_layout::ArrayShape = Scalar::SHAPE;
    #[inline(always)]
    #[track_caller]
    fn offset(self, index: [usize; 0usize]) -> usize {
        Scalar::offset(self, index)
    }
    #[inline(always)]
    fn offset_checked(self, index: [usize; 0usize]) -> ::core::option::Option<usize> {
        Scalar::offset_checked(self, index)
    }
}
#[allow(deprecated)]
impl ::core::fmt::Display for Scalar {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        f.write_str(Scalar::TEXT)
    }
}
#[allow(deprecated)]
impl ::core::fmt::Debug for Scalar {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        ::core::write!(f, "{}({})", "Scalar", Scalar::TEXT)
    }
}
