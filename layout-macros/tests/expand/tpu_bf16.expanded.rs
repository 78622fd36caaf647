/**

XLA layout `bf16[8,128]{1,0:T(8,128)(2,1)}`: 1024 logical elements in 1024 slots, 2048 bytes; slot of `[i0, i1]` = `(i0 / 2) * 256 + i1 * 2 + (i0 % 2)`.*/
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Act;
#[allow(clippy::all, clippy::pedantic, clippy::nursery, deprecated)]
impl Act {
    /// The number of logical dimensions.
    pub const RANK: usize = 2usize;
    /// The logical dimension sizes (bounds for `<=N` dimensions).
    pub const DIMS: [usize; 2usize] = [8, 128];
    /// Slots allocated, padding included (every tile level and `L`).
    pub const PHYSICAL_ELEMENTS: usize = 1024;
    /// The exact size in bytes.
    pub const BYTES: usize = 2048;
    /// Storage bits per slot.
    pub const ELEMENT_BITS: u64 = 16u64;
    /// The element type.
    pub const ELEMENT_TYPE: ::xla_layout::ElementType = ::xla_layout::ElementType::BF16;
    /// The memory space, `S(n)`.
    pub const MEMORY_SPACE: i8 = 0i8;
    /// The canonical XLA text.
    pub const TEXT: &'static str = "bf16[8,128]{1,0:T(8,128)(2,1)}";
    /// The whole shape as a layout-core value.
    pub const SHAPE: ::xla_layout::ArrayShape = ::xla_layout::ArrayShape::from_dims(
            ::xla_layout::ElementType::BF16,
            &[::xla_layout::Dim::Static(8), ::xla_layout::Dim::Static(128)],
        )
        .with_layout(
            ::xla_layout::Layout::new(&[1, 0]).with_tiles(&[&[8, 128], &[2, 1]]),
        );
    /// The slot of `index`: straight-line arithmetic on constants.
    /// Out-of-bounds indices are caught by a debug assertion only,
    /// which names the dimension and the caller's line.
    #[inline(always)]
    #[track_caller]
    #[allow(unused_variables)]
    pub const fn offset(self, index: [usize; 2usize]) -> usize {
        let [i0, i1] = index;
        debug_assert!(
            i0 < 8,
            "index out of bounds: dimension 0 of layout `bf16[8,128]{{1,0:T(8,128)(2,1)}}` has size 8 (`offset_checked` returns None instead)"
        );
        debug_assert!(
            i1 < 128,
            "index out of bounds: dimension 1 of layout `bf16[8,128]{{1,0:T(8,128)(2,1)}}` has size 128 (`offset_checked` returns None instead)"
        );
        (i0 / 2) * 256 + i1 * 2 + (i0 % 2)
    }
    /// The slot of `index`, or `None` if it is out of bounds.
    #[inline(always)]
    #[allow(unused_variables)]
    pub const fn offset_checked(
        self,
        index: [usize; 2usize],
    ) -> ::core::option::Option<usize> {
        let [i0, i1] = index;
        if i0 < 8 && i1 < 128 {
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
        ::xla_layout::__private::fits_usize(1024u64) &&
        ::xla_layout::__private::fits_usize(2048u64) &&
        ::xla_layout::__private::fits_usize(16384u64),
        "layout `bf16[8,128]{{1,0:T(8,128)(2,1)}}` needs more slots, bytes or bits than this target's usize can count"
    );
    match ::xla_layout::TiledShape::new(&Act::SHAPE) {
        ::core::result::Result::Ok(t) => {
            ::core::assert!(
                t.physical_slots() == 1024u64 && t.exact_bytes() == 2048u64,
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
unsafe impl ::xla_layout::StaticLayout for Act {
    type Index = [usize; 2usize];
    type Space = ::xla_layout::MemorySpace<0i8>;
    type Logical = ::xla_layout::Logical<
        16,
        (::xla_layout::Extent<{ 8 }>, ::xla_layout::Extent<{ 128 }>),
    >;
    const RANK: usize = Act::RANK;
    const DIMS: [usize; 2usize] = Act::DIMS;
    const PHYSICAL_ELEMENTS: usize = Act::PHYSICAL_ELEMENTS;
    const BYTES: usize = Act::BYTES;
    const ELEMENT_BITS: u64 = Act::ELEMENT_BITS;
    const ELEMENT_TYPE: ::xla_layout::ElementType = Act::ELEMENT_TYPE;
    const MEMORY_SPACE: i8 = Act::MEMORY_SPACE;
    const TEXT: &'static str = Act::TEXT;
    const SHAPE: ::xla_layout::ArrayShape = Act::SHAPE;
    #[inline(always)]
    #[track_caller]
    fn offset(self, index: [usize; 2usize]) -> usize {
        Act::offset(self, index)
    }
    #[inline(always)]
    fn offset_checked(self, index: [usize; 2usize]) -> ::core::option::Option<usize> {
        Act::offset_checked(self, index)
    }
}
#[allow(deprecated)]
impl ::core::fmt::Display for Act {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        f.write_str(Act::TEXT)
    }
}
#[allow(deprecated)]
impl ::core::fmt::Debug for Act {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        ::core::write!(f, "{}({})", "Act", Act::TEXT)
    }
}
