/**

XLA layout `s4[3,129]{1,0:T(8,128)(8,1)L(1024)E(4)S(1)SC(0:1,2)M(8)}`: 387 logical elements in 2048 slots, 1024 bytes; slot of `[i0, i1]` = `(i1 / 128) * 1024 + (i1 % 128) * 8 + i0`.*/
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Attrs;
#[allow(clippy::all, clippy::pedantic, clippy::nursery, deprecated)]
impl Attrs {
    /// The number of logical dimensions.
    pub const RANK: usize = 2usize;
    /// The logical dimension sizes (bounds for `<=N` dimensions).
    pub const DIMS: [usize; 2usize] = [3, 129];
    /// Slots allocated, padding included (every tile level and `L`).
    pub const PHYSICAL_ELEMENTS: usize = 2048;
    /// The exact size in bytes.
    pub const BYTES: usize = 1024;
    /// Storage bits per slot.
    pub const ELEMENT_BITS: u64 = 4u64;
    /// The element type.
    pub const ELEMENT_TYPE: ::xla_layout::ElementType = ::xla_layout::ElementType::S4;
    /// The memory space, `S(n)`.
    pub const MEMORY_SPACE: i8 = 1i8;
    /// The canonical XLA text.
    pub const TEXT: &'static str = "s4[3,129]{1,0:T(8,128)(8,1)L(1024)E(4)S(1)SC(0:1,2)M(8)}";
    /// The whole shape as a layout-core value.
    pub const SHAPE: ::xla_layout::ArrayShape = ::xla_layout::ArrayShape::from_dims(
            ::xla_layout::ElementType::S4,
            &[::xla_layout::Dim::Static(3), ::xla_layout::Dim::Static(129)],
        )
        .with_layout(
            ::xla_layout::Layout::new(&[1, 0])
                .with_tiles(&[&[8, 128], &[8, 1]])
                .with_tail_padding_alignment(1024)
                .with_element_size_in_bits(4)
                .with_memory_space(1)
                .with_split_configs(&[(0, &[1, 2])])
                .with_dynamic_shape_metadata_prefix_bytes(8),
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
            "index out of bounds: dimension 0 of layout `s4[3,129]{{1,0:T(8,128)(8,1)L(1024)E(4)S(1)SC(0:1,2)M(8)}}` has size 3 (`offset_checked` returns None instead)"
        );
        debug_assert!(
            i1 < 129,
            "index out of bounds: dimension 1 of layout `s4[3,129]{{1,0:T(8,128)(8,1)L(1024)E(4)S(1)SC(0:1,2)M(8)}}` has size 129 (`offset_checked` returns None instead)"
        );
        (i1 / 128) * 1024 + (i1 % 128) * 8 + i0
    }
    /// The slot of `index`, or `None` if it is out of bounds.
    #[inline(always)]
    #[allow(unused_variables)]
    pub const fn offset_checked(
        self,
        index: [usize; 2usize],
    ) -> ::core::option::Option<usize> {
        let [i0, i1] = index;
        if i0 < 3 && i1 < 129 {
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
        ::xla_layout::__private::fits_usize(2048u64) &&
        ::xla_layout::__private::fits_usize(1024u64) &&
        ::xla_layout::__private::fits_usize(8192u64),
        "layout `s4[3,129]{{1,0:T(8,128)(8,1)L(1024)E(4)S(1)SC(0:1,2)M(8)}}` needs more slots, bytes or bits than this target's usize can count"
    );
    match ::xla_layout::TiledShape::new(&Attrs::SHAPE) {
        ::core::result::Result::Ok(t) => {
            ::core::assert!(
                t.physical_slots() == 2048u64 && t.exact_bytes() == 1024u64,
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
unsafe impl ::xla_layout::StaticLayout for Attrs {
    type Index = [usize; 2usize];
    type Space = ::xla_layout::MemorySpace<1i8>;
    type Logical = ::xla_layout::Logical<
        21,
        (::xla_layout::Extent<{ 3 }>, ::xla_layout::Extent<{ 129 }>),
    >;
    const RANK: usize = Attrs::RANK;
    const DIMS: [usize; 2usize] = Attrs::DIMS;
    const PHYSICAL_ELEMENTS: usize = Attrs::PHYSICAL_ELEMENTS;
    const BYTES: usize = Attrs::BYTES;
    const ELEMENT_BITS: u64 = Attrs::ELEMENT_BITS;
    const ELEMENT_TYPE: ::xla_layout::ElementType = Attrs::ELEMENT_TYPE;
    const MEMORY_SPACE: i8 = Attrs::MEMORY_SPACE;
    const TEXT: &'static str = Attrs::TEXT;
    const SHAPE: ::xla_layout::ArrayShape = Attrs::SHAPE;
    #[inline(always)]
    #[track_caller]
    fn offset(self, index: [usize; 2usize]) -> usize {
        Attrs::offset(self, index)
    }
    #[inline(always)]
    fn offset_checked(self, index: [usize; 2usize]) -> ::core::option::Option<usize> {
        Attrs::offset_checked(self, index)
    }
}
#[allow(deprecated)]
impl ::core::fmt::Display for Attrs {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        f.write_str(Attrs::TEXT)
    }
}
#[allow(deprecated)]
impl ::core::fmt::Debug for Attrs {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        ::core::write!(f, "{}({})", "Attrs", Attrs::TEXT)
    }
}
