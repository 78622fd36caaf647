/**

XLA layout `bf16[3,1000]{1,0:T(4,128)(2,1)}`: 3000 logical elements in 4096 slots, 8192 bytes; slot of `[i0, i1]` = `(i1 / 128) * 512 + (i0 / 2) * 256 + (i1 % 128) * 2 + (i0 % 2)`.*/
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Tpu;
#[allow(clippy::all, clippy::pedantic, clippy::nursery, deprecated)]
impl Tpu {
    /// The number of logical dimensions.
    pub const RANK: usize = 2usize;
    /// The logical dimension sizes (bounds for `<=N` dimensions).
    pub const DIMS: [usize; 2usize] = [3, 1000];
    /// Slots allocated, padding included (every tile level and `L`).
    pub const PHYSICAL_ELEMENTS: usize = 4096;
    /// The exact size in bytes.
    pub const BYTES: usize = 8192;
    /// Storage bits per slot.
    pub const ELEMENT_BITS: u64 = 16u64;
    /// The element type.
    pub const ELEMENT_TYPE: ::xla_layout::ElementType = ::xla_layout::ElementType::BF16;
    /// The memory space, `S(n)`.
    pub const MEMORY_SPACE: i8 = 0i8;
    /// The canonical XLA text.
    pub const TEXT: &'static str = "bf16[3,1000]{1,0:T(4,128)(2,1)}";
    /// The whole shape as a layout-core value.
    pub const SHAPE: ::xla_layout::ArrayShape = ::xla_layout::ArrayShape::from_dims(
            ::xla_layout::ElementType::BF16,
            &[::xla_layout::Dim::Static(3), ::xla_layout::Dim::Static(1000)],
        )
        .with_layout(
            ::xla_layout::Layout::new(&[1, 0]).with_tiles(&[&[4, 128], &[2, 1]]),
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
            i0 < 3,
            "index out of bounds: dimension 0 of layout `bf16[3,1000]{{1,0:T(4,128)(2,1)}}` has size 3 (`offset_checked` returns None instead)"
        );
        debug_assert!(
            i1 < 1000,
            "index out of bounds: dimension 1 of layout `bf16[3,1000]{{1,0:T(4,128)(2,1)}}` has size 1000 (`offset_checked` returns None instead)"
        );
        (i1 / 128) * 512 + (i0 / 2) * 256 + (i1 % 128) * 2 + (i0 % 2)
    }
    /// The slot of `index`, or `None` if it is out of bounds.
    #[inline(always)]
    #[allow(unused_variables)]
    pub const fn offset_checked(
        self,
        index: [usize; 2usize],
    ) -> ::core::option::Option<usize> {
        let [i0, i1] = index;
        if i0 < 3 && i1 < 1000 {
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
        ::xla_layout::__private::fits_usize(4096u64) &&
        ::xla_layout::__private::fits_usize(8192u64) &&
        ::xla_layout::__private::fits_usize(65536u64),
        "layout `bf16[3,1000]{{1,0:T(4,128)(2,1)}}` needs more slots, bytes or bits than this target's usize can count"
    );
    match ::xla_layout::TiledShape::new(&Tpu::SHAPE) {
        ::core::result::Result::Ok(t) => {
            ::core::assert!(
                t.physical_slots() == 4096u64 && t.exact_bytes() == 8192u64,
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
unsafe impl ::xla_layout::StaticLayout for Tpu {
    type Index = [usize; 2usize];
    type Space = ::xla_layout::MemorySpace<0i8>;
    type Logical = ::xla_layout::Logical<
        16,
        (::xla_layout::Extent<{ 3 }>, ::xla_layout::Extent<{ 1000 }>),
    >;
    const RANK: usize = Tpu::RANK;
    const DIMS: [usize; 2usize] = Tpu::DIMS;
    const PHYSICAL_ELEMENTS: usize = Tpu::PHYSICAL_ELEMENTS;
    const BYTES: usize = Tpu::BYTES;
    const ELEMENT_BITS: u64 = Tpu::ELEMENT_BITS;
    const ELEMENT_TYPE: ::xla_layout::ElementType = Tpu::ELEMENT_TYPE;
    const MEMORY_SPACE: i8 = Tpu::MEMORY_SPACE;
    const TEXT: &'static str = Tpu::TEXT;
    const SHAPE: ::xla_layout::ArrayShape = Tpu::SHAPE;
    #[inline(always)]
    #[track_caller]
    fn offset(self, index: [usize; 2usize]) -> usize {
        Tpu::offset(self, index)
    }
    #[inline(always)]
    fn offset_checked(self, index: [usize; 2usize]) -> ::core::option::Option<usize> {
        Tpu::offset_checked(self, index)
    }
}
#[allow(deprecated)]
impl ::core::fmt::Display for Tpu {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        f.write_str(Tpu::TEXT)
    }
}
#[allow(deprecated)]
impl ::core::fmt::Debug for Tpu {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        ::core::write!(f, "{}({})", "Tpu", Tpu::TEXT)
    }
}
