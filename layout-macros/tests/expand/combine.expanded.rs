/**

XLA layout `f32[8,8,64]{2,1,0:T(*,16,64)}`: 4096 logical elements in 4096 slots, 16384 bytes; slot of `[i0, i1, i2]` = `((i0 * 8 + i1) / 16) * 1024 + ((i0 * 8 + i1) % 16) * 64 + i2`.*/
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Combine;
#[allow(clippy::all, clippy::pedantic, clippy::nursery, deprecated)]
impl Combine {
    /// The number of logical dimensions.
    pub const RANK: usize = 3usize;
    /// The logical dimension sizes (bounds for `<=N` dimensions).
    pub const DIMS: [usize; 3usize] = [8, 8, 64];
    /// Slots allocated, padding included (every tile level and `L`).
    pub const PHYSICAL_ELEMENTS: usize = 4096;
    /// The exact size in bytes.
    pub const BYTES: usize = 16384;
    /// Storage bits per slot.
    pub const ELEMENT_BITS: u64 = 32u64;
    /// The element type.
    pub const ELEMENT_TYPE: ::xla_layout::ElementType = ::xla_layout::ElementType::F32;
    /// The memory space, `S(n)`.
    pub const MEMORY_SPACE: i8 = 0i8;
    /// The canonical XLA text.
    pub const TEXT: &'static str = "f32[8,8,64]{2,1,0:T(*,16,64)}";
    /// The whole shape as a layout-core value.
    pub const SHAPE: ::xla_layout::ArrayShape = ::xla_layout::ArrayShape::from_dims(
            ::xla_layout::ElementType::F32,
            &[
                ::xla_layout::Dim::Static(8),
                ::xla_layout::Dim::Static(8),
                ::xla_layout::Dim::Static(64),
            ],
        )
        .with_layout(
            ::xla_layout::Layout::new(&[2, 1, 0])
                .with_tiles(&[&[::xla_layout::COMBINE, 16, 64]]),
        );
    /// The slot of `index`: straight-line arithmetic on constants.
    /// Out-of-bounds indices are caught by a debug assertion only,
    /// which names the dimension and the caller's line.
    #[inline(always)]
    #[track_caller]
    #[allow(unused_variables)]
    pub const fn offset(self, index: [usize; 3usize]) -> usize {
        let [i0, i1, i2] = index;
        debug_assert!(
            i0 < 8,
            "index out of bounds: dimension 0 of layout `f32[8,8,64]{{2,1,0:T(*,16,64)}}` has size 8 (`offset_checked` returns None instead)"
        );
        debug_assert!(
            i1 < 8,
            "index out of bounds: dimension 1 of layout `f32[8,8,64]{{2,1,0:T(*,16,64)}}` has size 8 (`offset_checked` returns None instead)"
        );
        debug_assert!(
            i2 < 64,
            "index out of bounds: dimension 2 of layout `f32[8,8,64]{{2,1,0:T(*,16,64)}}` has size 64 (`offset_checked` returns None instead)"
        );
        ((i0 * 8 + i1) / 16) * 1024 + ((i0 * 8 + i1) % 16) * 64 + i2
    }
    /// The slot of `index`, or `None` if it is out of bounds.
    #[inline(always)]
    #[allow(unused_variables)]
    pub const fn offset_checked(
        self,
        index: [usize; 3usize],
    ) -> ::core::option::Option<usize> {
        let [i0, i1, i2] = index;
        if i0 < 8 && i1 < 8 && i2 < 64 {
            ::core::option::Option::Some(self.offset(index))
        } else {
            ::core::option::Option::None
        }
    }
    /// The bit offset of `index`'s element (packed elements fill
    /// bytes from the least significant bit).
    #[inline(always)]
    #[track_caller]
    pub const fn bit_offset(self, index: [usize; 3usize]) -> usize {
        self.offset(index) * (Self::ELEMENT_BITS as usize)
    }
}
#[allow(clippy::all, clippy::pedantic, clippy::nursery, deprecated)]
const _: () = {
    ::core::assert!(
        ::xla_layout::__private::fits_usize(4096u64) &&
        ::xla_layout::__private::fits_usize(16384u64) &&
        ::xla_layout::__private::fits_usize(131072u64),
        "layout `f32[8,8,64]{{2,1,0:T(*,16,64)}}` needs more slots, bytes or bits than this target's usize can count"
    );
    match ::xla_layout::TiledShape::new(&Combine::SHAPE) {
        ::core::result::Result::Ok(t) => {
            ::core::assert!(
                t.physical_slots() == 4096u64 && t.exact_bytes() == 16384u64,
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
unsafe impl ::xla_layout::StaticLayout for Combine {
    type Index = [usize; 3usize];
    type Space = ::xla_layout::MemorySpace<0i8>;
    type Logical = ::xla_layout::Logical<
        11,
        (
            ::xla_layout::Extent<{ 8 }>,
            ::xla_layout::Extent<{ 8 }>,
            ::xla_layout::Extent<{ 64 }>,
        ),
    >;
    const RANK: usize = Combine::RANK;
    const DIMS: [usize; 3usize] = Combine::DIMS;
    const PHYSICAL_ELEMENTS: usize = Combine::PHYSICAL_ELEMENTS;
    const BYTES: usize = Combine::BYTES;
    const ELEMENT_BITS: u64 = Combine::ELEMENT_BITS;
    const ELEMENT_TYPE: ::xla_layout::ElementType = Combine::ELEMENT_TYPE;
    const MEMORY_SPACE: i8 = Combine::MEMORY_SPACE;
    const TEXT: &'static str = Combine::TEXT;
    const SHAPE: ::xla_layout::ArrayShape = Combine::SHAPE;
    #[inline(always)]
    #[track_caller]
    fn offset(self, index: [usize; 3usize]) -> usize {
        Combine::offset(self, index)
    }
    #[inline(always)]
    fn offset_checked(self, index: [usize; 3usize]) -> ::core::option::Option<usize> {
        Combine::offset_checked(self, index)
    }
}
#[allow(deprecated)]
impl ::core::fmt::Display for Combine {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        f.write_str(Combine::TEXT)
    }
}
#[allow(deprecated)]
impl ::core::fmt::Debug for Combine {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        ::core::write!(f, "{}({})", "Combine", Combine::TEXT)
    }
}
