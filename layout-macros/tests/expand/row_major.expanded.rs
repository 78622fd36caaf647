/**

XLA layout `f32[64,256]{1,0}`: 16384 logical elements in 16384 slots, 65536 bytes; slot of `[i0, i1]` = `i0 * 256 + i1`.*/
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct RowMajor;
#[allow(clippy::all, clippy::pedantic, clippy::nursery, deprecated)]
impl RowMajor {
    /// The number of logical dimensions.
    pub const RANK: usize = 2usize;
    /// The logical dimension sizes (bounds for `<=N` dimensions).
    pub const DIMS: [usize; 2usize] = [64, 256];
    /// Slots allocated, padding included (every tile level and `L`).
    pub const PHYSICAL_ELEMENTS: usize = 16384;
    /// The exact size in bytes.
    pub const BYTES: usize = 65536;
    /// Storage bits per slot.
    pub const ELEMENT_BITS: u64 = 32u64;
    /// The element type.
    pub const ELEMENT_TYPE: ::xla_layout::ElementType = ::xla_layout::ElementType::F32;
    /// The memory space, `S(n)`.
    pub const MEMORY_SPACE: i8 = 0i8;
    /// The canonical XLA text.
    pub const TEXT: &'static str = "f32[64,256]{1,0}";
    /// The whole shape as a layout-core value.
    pub const SHAPE: ::xla_layout::ArrayShape = ::xla_layout::ArrayShape::from_dims(
            ::xla_layout::ElementType::F32,
            &[::xla_layout::Dim::Static(64), ::xla_layout::Dim::Static(256)],
        )
        .with_layout(::xla_layout::Layout::new(&[1, 0]));
    /// The slot of `index`: straight-line arithmetic on constants.
    /// Out-of-bounds indices are caught by a debug assertion only,
    /// which names the dimension and the caller's line.
    #[inline(always)]
    #[track_caller]
    #[allow(unused_variables)]
    pub const fn offset(self, index: [usize; 2usize]) -> usize {
        let [i0, i1] = index;
        debug_assert!(
            i0 < 64,
            "index out of bounds: dimension 0 of layout `f32[64,256]{{1,0}}` has size 64 (`offset_checked` returns None instead)"
        );
        debug_assert!(
            i1 < 256,
            "index out of bounds: dimension 1 of layout `f32[64,256]{{1,0}}` has size 256 (`offset_checked` returns None instead)"
        );
        i0 * 256 + i1
    }
    /// The slot of `index`, or `None` if it is out of bounds.
    #[inline(always)]
    #[allow(unused_variables)]
    pub const fn offset_checked(
        self,
        index: [usize; 2usize],
    ) -> ::core::option::Option<usize> {
        let [i0, i1] = index;
        if i0 < 64 && i1 < 256 {
            ::core::option::Option::Some(self.offset(index))
        } else {
            ::core::option::Option::None
        }
    }
    /// The bit offset of `index`'s element (packed elements fill
    /// bytes from the least significant bit).
    #[inline(always)]
    #[track_caller]
    pub const fn bit_offset(self, index: [usize; 2usize]) -> usize {
        self.offset(index) * (Self::ELEMENT_BITS as usize)
    }
}
#[allow(clippy::all, clippy::pedantic, clippy::nursery, deprecated)]
const _: () = {
    ::core::assert!(
        ::xla_layout::__private::fits_usize(16384u64) &&
        ::xla_layout::__private::fits_usize(65536u64) &&
        ::xla_layout::__private::fits_usize(524288u64),
        "layout `f32[64,256]{{1,0}}` needs more slots, bytes or bits than this target's usize can count"
    );
    match ::xla_layout::TiledShape::new(&RowMajor::SHAPE) {
        ::core::result::Result::Ok(t) => {
            ::core::assert!(
                t.physical_slots() == 16384u64 && t.exact_bytes() == 65536u64,
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
unsafe impl ::xla_layout::StaticLayout for RowMajor {
    type Index = [usize; 2usize];
    type Space = ::xla_layout::MemorySpace<0i8>;
    type Logical = ::xla_layout::Logical<
        11,
        (::xla_layout::Extent<{ 64 }>, ::xla_layout::Extent<{ 256 }>),
    >;
    const RANK: usize = RowMajor::RANK;
    const DIMS: [usize; 2usize] = RowMajor::DIMS;
    const PHYSICAL_ELEMENTS: usize = RowMajor::PHYSICAL_ELEMENTS;
    const BYTES: usize = RowMajor::BYTES;
    const ELEMENT_BITS: u64 = RowMajor::ELEMENT_BITS;
    const ELEMENT_TYPE: ::xla_layout::ElementType = RowMajor::ELEMENT_TYPE;
    const MEMORY_SPACE: i8 = RowMajor::MEMORY_SPACE;
    const TEXT: &'static str = RowMajor::TEXT;
    const SHAPE: ::xla_layout::ArrayShape = RowMajor::SHAPE;
    #[inline(always)]
    #[track_caller]
    fn offset(self, index: [usize; 2usize]) -> usize {
        RowMajor::offset(self, index)
    }
    #[inline(always)]
    fn offset_checked(self, index: [usize; 2usize]) -> ::core::option::Option<usize> {
        RowMajor::offset_checked(self, index)
    }
}
#[allow(deprecated)]
impl ::core::fmt::Display for RowMajor {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        f.write_str(RowMajor::TEXT)
    }
}
#[allow(deprecated)]
impl ::core::fmt::Debug for RowMajor {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        ::core::write!(f, "{}({})", "RowMajor", RowMajor::TEXT)
    }
}
