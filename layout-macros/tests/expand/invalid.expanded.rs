::core::compile_error! {
    "minor_to_major must list each dimension exactly once: layout minor_to_major field has duplicate values: {0, 0}; shape: f32[2,3]"
}
/**

An invalid XLA layout (see the errors).*/
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Invalid;
#[allow(
    clippy::all,
    clippy::pedantic,
    clippy::nursery,
    deprecated,
    missing_docs,
    unused_variables
)]
impl Invalid {
    pub const RANK: usize = 2usize;
    pub const DIMS: [usize; 2usize] = [0; 2usize];
    pub const PHYSICAL_ELEMENTS: usize = 0;
    pub const BYTES: usize = 0;
    pub const ELEMENT_BITS: u64 = 32u64;
    pub const ELEMENT_TYPE: ::xla_layout::ElementType = ::xla_layout::ElementType::F32;
    pub const MEMORY_SPACE: i8 = 0;
    pub const TEXT: &'static str = "f32[0,0]{1,0}";
    pub const SHAPE: ::xla_layout::ArrayShape = ::xla_layout::ArrayShape::from_dims(
        ::xla_layout::ElementType::F32,
        &[::xla_layout::Dim::Static(0), ::xla_layout::Dim::Static(0)],
    );
    pub const fn offset(self, index: [usize; 2usize]) -> usize {
        0
    }
    pub const fn offset_checked(
        self,
        index: [usize; 2usize],
    ) -> ::core::option::Option<usize> {
        ::core::option::Option::None
    }
    pub const fn bit_offset(self, index: [usize; 2usize]) -> usize {
        0
    }
}
/// SAFETY: the empty array has no valid index, so `offset_checked`
/// is always `None` and no slot or byte is promised.
#[allow(clippy::all, clippy::pedantic, clippy::nursery, deprecated)]
unsafe impl ::xla_layout::StaticLayout for Invalid {
    type Index = [usize; 2usize];
    type Space = ::xla_layout::MemorySpace<0>;
    type Logical = ::xla_layout::Logical<
        11,
        (::xla_layout::Extent<{ 2 }>, ::xla_layout::Extent<{ 3 }>),
    >;
    const RANK: usize = 2usize;
    const DIMS: [usize; 2usize] = [0; 2usize];
    const PHYSICAL_ELEMENTS: usize = 0;
    const BYTES: usize = 0;
    const ELEMENT_BITS: u64 = 32u64;
    const ELEMENT_TYPE: ::xla_layout::ElementType = ::xla_layout::ElementType::F32;
    const MEMORY_SPACE: i8 = 0;
    const TEXT: &'static str = "f32[0,0]{1,0}";
    const SHAPE: ::xla_layout::ArrayShape = Invalid::SHAPE;
    const VALID: bool = false;
    fn offset(self, _: [usize; 2usize]) -> usize {
        0
    }
    fn offset_checked(self, _: [usize; 2usize]) -> ::core::option::Option<usize> {
        ::core::option::Option::None
    }
}
#[allow(deprecated)]
impl ::core::fmt::Display for Invalid {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        f.write_str("f32[0,0]{1,0}")
    }
}
#[allow(deprecated)]
impl ::core::fmt::Debug for Invalid {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        f.write_str("invalid layout")
    }
}
