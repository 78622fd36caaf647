//! `layout!` end to end: the forms, the generated API, and the generated
//! arithmetic against values known independently (the spec's worked
//! examples) and against layout-core's runtime interpretation of the same
//! text, for every index of many layouts.

use static_assertions::{assert_impl_all, assert_type_eq_all, assert_type_ne_all, const_assert_eq};
use xla_layout::{ArrayShape, ElementType, Extent, Logical, MemorySpace, StaticLayout, layout};

layout! {
    /// Activations in the TPU bf16 format.
    #[allow(dead_code)]
    pub type Act = bf16[8,128]{1,0:T(8,128)(2,1)};
    pub(crate) type W = f32[128,256]<0,1>;
    type Scalar = f32[];
    type Figure1 = f32[3,5]{1,0:T(2,2)};
    type Figure1ColumnMajor = f32[3,5]{0,1:T(2,2)};
    type Figure2 = bf16[4,8]{1,0:T(2,4)(2,1)};
    type Alternative16Bit = bf16[8,8]{1,0:T(2,4)(2,1,1,1)};
    type ThreeLevels = bf16[2048]{0:T(1024)(128)(2,1)};
    type Combined = f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)};
    type CombinedFlat = f32[112,110]{1,0:T(2,3)};
    type Pasted = "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}";
    type Vmem = bf16[32,32,4096]{2,1,0:T(8,128)(2,1)S(1)};
    type Packed = s4[64,128]{1,0:T(8,128)(8,1)E(4)};
    type Bounded = f32[<=4,3]{1,0};
    type TailPadded = f32[5,128]{1,0:T(8)L(1024)};
    type EmptyRows = f32[4,0]{1,0};
    type EmptyColumns = f32[4,0]{0,1};
}

// No elements: every layout of them agrees (these failed to build, a
// remainder by zero inside the comparison).
xla_layout::assert_bitcast!(EmptyRows, EmptyColumns);
xla_layout::assert_layout_equivalent!(EmptyRows, EmptyColumns);

/// The spec's worked examples (§d.3), with the values they state or derive.
#[test]
fn worked_examples() {
    assert_eq!(Figure1.offset([2, 3]), 17); // tiled_layout.md figure 1
    assert_eq!(Figure1::PHYSICAL_ELEMENTS, 24);
    let rows: [[usize; 5]; 3] = [[0, 1, 4, 5, 8], [2, 3, 6, 7, 10], [12, 13, 16, 17, 20]];
    for (r, row) in rows.iter().enumerate() {
        for (c, &o) in row.iter().enumerate() {
            assert_eq!(Figure1.offset([r, c]), o, "({r},{c})");
        }
    }
    assert_eq!(Figure1ColumnMajor.offset([2, 4]), 20);
    assert_eq!(Figure1ColumnMajor.offset([0, 1]), 2);
    // Figure 2: 16·(r div 2) + 8·(c div 4) + 2·(c mod 4) + (r mod 2).
    for r in 0..4 {
        for c in 0..8 {
            assert_eq!(
                Figure2.offset([r, c]),
                16 * (r / 2) + 8 * (c / 4) + 2 * (c % 4) + r % 2
            );
        }
    }
    assert_eq!(Alternative16Bit.offset([6, 5]), 51); // the docs' 51
    for (i, o) in [(0, 0), (128, 1), (1, 2), (127, 254), (129, 3), (1024, 1024)] {
        assert_eq!(ThreeLevels.offset([i]), o, "{i}");
    }
    assert_eq!(Combined.offset([1, 2, 3, 4, 5]), 8307);
    assert_eq!(CombinedFlat.offset([75, 45]), 8307);
    assert_eq!(Combined::PHYSICAL_ELEMENTS, 12432);
    assert_eq!(Combined::BYTES, 49728);
}

#[test]
fn constants() {
    assert_eq!(
        (Act::RANK, Act::DIMS, Act::PHYSICAL_ELEMENTS, Act::BYTES),
        (2, [8, 128], 1024, 2048)
    );
    assert_eq!(
        (Act::ELEMENT_BITS, Act::ELEMENT_TYPE, Act::MEMORY_SPACE),
        (16, ElementType::BF16, 0)
    );
    assert_eq!(Act::TEXT, "bf16[8,128]{1,0:T(8,128)(2,1)}");
    assert_eq!(W::TEXT, "f32[128,256]{0,1}");
    assert_eq!((Scalar::RANK, Scalar::BYTES, Scalar.offset([])), (0, 4, 0));
    assert_eq!(Vmem::MEMORY_SPACE, 1);
    assert_eq!((Packed::ELEMENT_BITS, Packed::BYTES), (4, 4096));
    assert_eq!(Bounded::DIMS, [4, 3]);
    assert_eq!(Bounded::TEXT, "f32[<=4,3]{1,0}");
    assert_eq!(TailPadded::PHYSICAL_ELEMENTS, 1024); // 5·16·8 = 640, then L(1024)
    assert_eq!(Pasted::PHYSICAL_ELEMENTS, 8 * 1280 * 16384);
    assert_eq!(Act::SHAPE, ArrayShape::parse_validated(Act::TEXT).unwrap());
}

#[test]
fn display_and_debug() {
    assert_eq!(Act.to_string(), "bf16[8,128]{1,0:T(8,128)(2,1)}");
    assert_eq!(format!("{Act:?}"), "Act(bf16[8,128]{1,0:T(8,128)(2,1)})");
    assert_eq!(
        Pasted.to_string(),
        "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}"
    );
}

#[test]
fn expression_forms_are_values_of_unique_types() {
    let l = layout!(bf16[8,128]<1,0:T(8,128)(2,1)>);
    let p = layout!("bf16[8,128]{1,0:T(8,128)(2,1)}");
    for r in 0..8 {
        for c in 0..128 {
            assert_eq!(l.offset([r, c]), Act.offset([r, c]));
            assert_eq!(p.offset([r, c]), Act.offset([r, c]));
        }
    }
    assert_eq!(l.to_string(), Act::TEXT);
    fn text<L: StaticLayout>(_: L) -> &'static str {
        L::TEXT
    }
    assert_eq!(text(p), Act::TEXT);
}

#[test]
fn offsets_are_usable_in_const_context() {
    const O: usize = Figure1.offset([2, 3]);
    const C: Option<usize> = Figure1.offset_checked([3, 0]);
    const_assert_eq!(O, 17);
    const_assert_eq!(Act::BYTES, 2048);
    assert_eq!(C, None);
}

/// `E(n)` beyond 32 bits is kept whole: bits, bytes and bit offsets.
#[test]
fn element_bits_beyond_32_bits() {
    layout! {
        type Wide = u8[2]{0:E(4294967304)};
        type Wider = u8[3]{0:E(4294967296)};
    }
    assert_eq!(Wide::ELEMENT_BITS, 4_294_967_304);
    assert_eq!(Wide::BYTES, 2 * 4_294_967_304 / 8);
    assert_eq!(Wide.bit_offset([1]), 4_294_967_304);
    assert_eq!(Wider::ELEMENT_BITS, 1 << 32);
    assert_eq!(Wider.bit_offset([2]), 2 << 32);
    // The core agrees.
    let t = Wide::SHAPE.tiled().unwrap();
    assert_eq!(t.element_bits(), Wide::ELEMENT_BITS);
    assert_eq!(t.bit_offset(&[1]), Ok(Wide.bit_offset([1]) as u64));
}

/// Near the top of 64-bit arithmetic the generated offsets are exact
/// (each term is at most the last offset, which fits).
#[test]
#[cfg(target_pointer_width = "64")]
fn offsets_near_the_limits_match_the_core() {
    layout! {
        type Tall = u8[4611686018427387903,2]{0,1:T(2,1024)E(1)};
        type Long = pred[9223372036854775807]{0:E(1)};
    }
    let t = Tall::SHAPE.tiled().unwrap();
    for index in [
        [4611686018427387902, 1],
        [4611686018427387902, 0],
        [1023, 1],
        [1024, 0],
    ] {
        let core = t.offset(&[index[0] as u64, index[1] as u64]).unwrap();
        assert_eq!(Tall.offset(index) as u64, core, "{index:?}");
        assert_eq!(Tall.bit_offset(index) as u64, core);
    }
    assert_eq!(Tall::PHYSICAL_ELEMENTS as u64, t.physical_slots());
    assert_eq!(Long.offset([9223372036854775806]), 9223372036854775806);
    assert_eq!(Long::BYTES, 9223372036854775807usize.div_ceil(8));
}

#[test]
fn checked_offsets_and_bits() {
    assert_eq!(Act.offset_checked([7, 127]), Some(Act.offset([7, 127])));
    assert_eq!(Act.offset_checked([8, 0]), None);
    assert_eq!(Act.offset_checked([0, 128]), None);
    // s4 packed two per byte, low nibble first: element at slot 3 → bits 12..16.
    let slot = Packed.offset([0, 3]);
    assert_eq!(Packed.bit_offset([0, 3]), slot * 4);
}

// The trait, the memory-space marker and the logical-shape marker.
assert_impl_all!(Act: StaticLayout, Copy, Default, Send, Sync, std::fmt::Display, std::fmt::Debug);
const_assert_eq!(core::mem::size_of::<Act>(), 0);
assert_type_eq_all!(<Act as StaticLayout>::Index, [usize; 2]);
assert_type_eq_all!(<Vmem as StaticLayout>::Space, MemorySpace<1>);
assert_type_eq_all!(<Act as StaticLayout>::Space, MemorySpace<0>);
assert_type_eq_all!(<Act as StaticLayout>::Logical, Logical<16, (Extent<8>, Extent<128>)>);
assert_type_ne_all!(<Act as StaticLayout>::Logical, <W as StaticLayout>::Logical);
assert_type_eq_all!(
    <Figure1 as StaticLayout>::Logical,
    <Figure1ColumnMajor as StaticLayout>::Logical
);

#[test]
fn generic_code_sees_the_same_layout() {
    fn all_offsets<L: StaticLayout>(l: L) -> Vec<usize> {
        let mut out = Vec::new();
        let mut index = L::Index::default();
        loop {
            out.push(l.offset(index));
            let (dims, idx) = (L::DIMS, index.as_mut());
            let mut d = L::RANK;
            loop {
                if d == 0 {
                    return out;
                }
                d -= 1;
                idx[d] += 1;
                if idx[d] < dims.as_ref()[d] {
                    break;
                }
                idx[d] = 0;
            }
        }
    }
    let mut offsets = all_offsets(Figure1);
    offsets.sort();
    assert_eq!(offsets, [0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 13, 16, 17, 20]);
}

#[test]
fn paths_do_not_depend_on_the_import() {
    mod renamed {
        use xla_layout as xl;
        xl::layout! { pub type R = f32[2,3]{0,1}; }
    }
    mod unimported {
        ::xla_layout::layout! { pub type U = f32[2,3]{0,1}; }
    }
    assert_eq!(renamed::R.offset([1, 2]), 5);
    assert_eq!(unimported::U.offset([1, 2]), 5);
}

/// For each layout: the generated `offset` equals layout-core's runtime
/// interpretation of the same text at every logical index, and the
/// constants agree.
macro_rules! agree_with_core {
    ($($name:ident = $text:literal;)*) => {$(
        #[test]
        fn $name() {
            layout! { type L = $text; }
            let shape = ArrayShape::parse_validated($text).unwrap();
            let tiled = shape.tiled().unwrap();
            assert_eq!(L::PHYSICAL_ELEMENTS as u64, tiled.physical_slots());
            assert_eq!(L::BYTES as u64, tiled.exact_bytes());
            assert_eq!(L::TEXT, shape.to_string());
            // The generated SHAPE is built from the attribute table's
            // `value`s, separately from TEXT: it must be the same shape.
            assert_eq!(L::SHAPE, shape);
            let dims = tiled.logical_dims().to_vec();
            let mut index = vec![0u64; dims.len()];
            let count: u64 = dims.iter().product();
            for _ in 0..count {
                let generated = L.offset(core::array::from_fn(|d| index[d] as usize));
                assert_eq!(generated as u64, tiled.offset(&index).unwrap(), "{} at {index:?}", $text);
                for d in (0..dims.len()).rev() {
                    index[d] += 1;
                    if index[d] < dims[d] {
                        break;
                    }
                    index[d] = 0;
                }
            }
        }
    )*};
}

agree_with_core! {
    row_major_3d = "f32[3,4,5]{2,1,0}";
    column_major_3d = "f32[3,4,5]{0,1,2}";
    permuted_3d = "f32[10,20,30]{1,2,0}";
    tpu_tile_with_padding = "f32[3,5]{1,0:T(8,128)}";
    tpu_bf16_ragged = "bf16[9,130]{1,0:T(8,128)(2,1)}";
    tpu_int8 = "s8[16,256]{1,0:T(8,128)(4,1)}";
    tpu_pred = "pred[40,130]{1,0:T(32,128)(32,1)}";
    small_tile_format = "f32[2,300]{1,0:T(2,128)}";
    oversized_tile_rank1 = "f32[3]{0:T(8,128)}";
    oversized_tile_scalar = "u32[]{:T(128)}";
    rank1_two_by_two = "f32[8]{0:T(2,2)}";
    combine_first_two = "bf16[2,3,1004]{2,1,0:T(2,*,128)}";
    combine_runs = "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}";
    combine_then_subtile = "f32[4,6,10]{2,1,0:T(*,4,8)(2,1)}";
    into_cross_tile_dims = "bf16[16,8]{1,0:T(2,4)(2,1,1,1)}";
    tile_not_dividing = "f32[6,4]{1,0:T(3,4)(2,1)}";
    three_levels_ragged = "bf16[3000]{0:T(1024)(128)(2,1)}";
    tail_padding = "f32[7,3]{0,1:T(4)L(100)}";
    packed_s4 = "s4[9,33]{1,0:T(8,128)(8,1)E(4)}";
    packed_u2 = "u2[5,7]{1,0:E(2)}";
    memory_space = "f32[4,4]{0,1:T(2,2)S(5)}";
    bounded_dims = "f32[<=3,4,<=2]{0,2,1:T(2,2)}";
    zero_sized = "f32[0,4]{1,0:T(2,2)}";
    size_one_dims = "f32[1,1,5,1]{3,2,1,0:T(1,2)}";
    four_d_seed_like = "bf16[2,1,24,260]{3,2,0,1:T(8,128)(2,1)}";
    split_config = "f32[8,6]{1,0:SC(0:3)}";
    metadata_prefix = "f32[4]{0:M(8)}";
}

/// Every array element type is accepted, with its storage width.
#[test]
fn every_element_type() {
    layout! {
        type Pred = pred[2]; type S1 = s1[2]; type S2 = s2[2]; type S4 = s4[2];
        type S8 = s8[2]; type S16 = s16[2]; type S32 = s32[2]; type S64 = s64[2];
        type U1 = u1[2]; type U2 = u2[2]; type U4 = u4[2]; type U8 = u8[2];
        type U16 = u16[2]; type U32 = u32[2]; type U64 = u64[2];
        type F16 = f16[2]; type Bf16 = bf16[2]; type F32 = f32[2]; type F64 = f64[2];
        type F8a = f8e5m2[2]; type F8b = f8e4m3fn[2]; type F8c = f8e4m3b11fnuz[2];
        type F8d = f8e5m2fnuz[2]; type F8e = f8e4m3fnuz[2]; type F8f = f8e4m3[2];
        type F8g = f8e3m4[2]; type F4 = f4e2m1fn[2]; type F8h = f8e8m0fnu[2];
        type F6a = f6e3m2fn[2]; type F6b = f6e2m3fn[2]; type C64 = c64[2]; type C128 = c128[2];
        type PackedS4 = s4[2]{0:E(4)};
    }
    // Natural storage is whole bytes (docs/xla-layouts.md §b ByteWidth); E packs.
    let bits = [
        Pred::ELEMENT_BITS,
        S1::ELEMENT_BITS,
        S2::ELEMENT_BITS,
        S4::ELEMENT_BITS,
        S8::ELEMENT_BITS,
        S16::ELEMENT_BITS,
        S32::ELEMENT_BITS,
        S64::ELEMENT_BITS,
        U1::ELEMENT_BITS,
        U2::ELEMENT_BITS,
        U4::ELEMENT_BITS,
        U8::ELEMENT_BITS,
        U16::ELEMENT_BITS,
        U32::ELEMENT_BITS,
        U64::ELEMENT_BITS,
        F16::ELEMENT_BITS,
        Bf16::ELEMENT_BITS,
        F32::ELEMENT_BITS,
        F64::ELEMENT_BITS,
        F8a::ELEMENT_BITS,
        F8b::ELEMENT_BITS,
        F8c::ELEMENT_BITS,
        F8d::ELEMENT_BITS,
        F8e::ELEMENT_BITS,
        F8f::ELEMENT_BITS,
        F8g::ELEMENT_BITS,
        F4::ELEMENT_BITS,
        F8h::ELEMENT_BITS,
        F6a::ELEMENT_BITS,
        F6b::ELEMENT_BITS,
        C64::ELEMENT_BITS,
        C128::ELEMENT_BITS,
        PackedS4::ELEMENT_BITS,
    ];
    assert_eq!(
        bits,
        [
            8, 8, 8, 8, 8, 16, 32, 64, 8, 8, 8, 8, 16, 32, 64, 16, 16, 32, 64, 8, 8, 8, 8, 8, 8, 8,
            8, 8, 8, 8, 64, 128, 4
        ]
    );
    assert_eq!(
        (PackedS4::BYTES, C128::BYTES, F6a::ELEMENT_TYPE),
        (1, 32, ElementType::F6E3M2FN)
    );
    // Every element type an array can have is here: a new row in the
    // core's table must be added above too.
    let here = [
        Pred::ELEMENT_TYPE,
        S1::ELEMENT_TYPE,
        S2::ELEMENT_TYPE,
        S4::ELEMENT_TYPE,
        S8::ELEMENT_TYPE,
        S16::ELEMENT_TYPE,
        S32::ELEMENT_TYPE,
        S64::ELEMENT_TYPE,
        U1::ELEMENT_TYPE,
        U2::ELEMENT_TYPE,
        U4::ELEMENT_TYPE,
        U8::ELEMENT_TYPE,
        U16::ELEMENT_TYPE,
        U32::ELEMENT_TYPE,
        U64::ELEMENT_TYPE,
        F16::ELEMENT_TYPE,
        Bf16::ELEMENT_TYPE,
        F32::ELEMENT_TYPE,
        F64::ELEMENT_TYPE,
        F8a::ELEMENT_TYPE,
        F8b::ELEMENT_TYPE,
        F8c::ELEMENT_TYPE,
        F8d::ELEMENT_TYPE,
        F8e::ELEMENT_TYPE,
        F8f::ELEMENT_TYPE,
        F8g::ELEMENT_TYPE,
        F4::ELEMENT_TYPE,
        F8h::ELEMENT_TYPE,
        F6a::ELEMENT_TYPE,
        F6b::ELEMENT_TYPE,
        C64::ELEMENT_TYPE,
        C128::ELEMENT_TYPE,
    ];
    for t in ElementType::ALL.into_iter().filter(|t| t.is_array_type()) {
        assert!(here.contains(&t), "{t:?} is missing from this test");
    }
}

/// Shapes imported from `examples/dumps/train_step.tpu.hlo` (paths start
/// at this crate's manifest directory).
mod imported {
    use xla_layout::{MemorySpace, StaticLayout, layout};

    layout! {
        pub type Activations = hlo("examples/dumps/train_step.tpu.hlo", "fusion");
        pub type InVmem = hlo("examples/dumps/train_step.tpu.hlo", "activations.vmem");
        // A tuple's element, and a name qualified by its computation.
        pub type LoopWeights = hlo("examples/dumps/train_step.tpu.hlo", "while.9", 1);
        pub type Nested = hlo("examples/dumps/train_step.tpu.hlo", "main.30/async-start", 0, 0);
    }

    #[test]
    fn instructions_shapes_become_layout_types() {
        assert_eq!(
            Activations.to_string(),
            "bf16[8,128,1024]{2,1,0:T(8,128)(2,1)}"
        );
        // (2,1) pairs rows inside an (8,128) tile: element (0,1,0) is slot 1.
        assert_eq!(Activations.offset([0, 1, 0]), 1);
        assert_eq!(Activations::BYTES, 8 * 128 * 1024 * 2);
        assert_eq!(InVmem::MEMORY_SPACE, 1);
        fn vmem_only<L: StaticLayout<Space = MemorySpace<1>>>(_: L) {}
        vmem_only(InVmem);
        assert_eq!(LoopWeights.to_string(), "f32[1024,1024]{1,0:T(8,128)}");
        assert_eq!(Nested.to_string(), "u8[64,1024]{1,0:T(8,128)(4,1)}");
    }

    #[test]
    fn the_expression_form_imports_too() {
        let l = layout!(hlo("examples/dumps/train_step.tpu.hlo", "padded"));
        assert_eq!(l.to_string(), "f32[20,300]{1,0:T(8,128)}");
        // Row 8 starts the second tile row: 3 column tiles of 8·128 slots.
        assert_eq!(l.offset([8, 0]), 3 * 8 * 128);
    }
}

/// `tpu(SHAPE)`: the layout a TPU gives SHAPE by default, as a type.
#[test]
fn tpu_default_layouts_as_types() {
    layout! {
        type Act = tpu(bf16[3,1000]);
        type Col = tpu(bf16[1024,1], v4);
        type Scalar = tpu(f32[]);
    }
    assert_eq!(Act::TEXT, "bf16[3,1000]{1,0:T(4,128)(2,1)}");
    assert_eq!(Act::BYTES, 8192);
    assert_eq!(Col::TEXT, "bf16[1024,1]{0,1:T(2,128)(2,1)}");
    // d0 runs along the 128-wide minor side; (2,1) pairs it with a padding row.
    assert_eq!(Col.offset([1, 0]), 2);
    assert_eq!((Scalar::TEXT, Scalar::BYTES), ("f32[]{:T(128)}", 512));
}

/// The CLI's other forms, as a string or (JAX's) as tokens: `tpu(SHAPE)`
/// and `SHAPE Layout(...)`, which JAX prints major to minor.
#[test]
fn the_cli_forms_as_types() {
    layout! {
        type Tpu = "tpu(bf16[1024,1], v4)";
        type Jax = bf16[16,256] Layout(major_to_minor=(0, 1), _tiling=((8, 128), (2, 1)));
        type JaxText = "f32[3,5] Layout(major_to_minor=(1, 0))";
    }
    assert_eq!(Tpu::TEXT, "bf16[1024,1]{0,1:T(2,128)(2,1)}");
    assert_eq!(Jax::TEXT, "bf16[16,256]{1,0:T(8,128)(2,1)}");
    assert_eq!(JaxText::TEXT, "f32[3,5]{0,1}");
    // Major to minor (1, 0): d0 is the minor dimension.
    assert_eq!(JaxText.offset([1, 0]), 1);
}

// An item configured out takes its errors with it: a dump that is not
// there, a layout that is not valid (this file would not compile if they
// were reported).
layout! {
    #[cfg(any())]
    type ConfiguredOutDump = hlo("dumps/not_checked_in.hlo", "fusion");
    #[cfg(any())]
    type ConfiguredOutInvalid = f32[8]{5};
    type ConfiguredIn = f32[8]{0};
    #[cfg(all())]
    type ConfiguredInToo = f32[2,3]{0,1};
}

#[test]
fn items_configured_out_take_their_errors_with_them() {
    assert_eq!(ConfiguredIn::PHYSICAL_ELEMENTS, 8);
    // What is generated for an item with a `#[cfg]` goes with it.
    assert_eq!(ConfiguredInToo.offset([1, 2]), 5);
    assert_eq!(<ConfiguredInToo as StaticLayout>::RANK, 2);
}

/// An index out of bounds in a debug build: the generated `offset`'s
/// assertion names the dimension and its size, and (through
/// `#[track_caller]`) the caller's line rather than the `layout!` line.
#[test]
#[cfg(debug_assertions)]
fn out_of_bounds_names_the_dimension_and_the_caller() {
    use std::sync::{Arc, Mutex};
    let seen: Arc<Mutex<Option<(String, u32)>>> = Arc::default();
    // Other tests' panics go on to the default hook.
    let hook: Arc<dyn Fn(&std::panic::PanicHookInfo<'_>) + Send + Sync> =
        Arc::from(std::panic::take_hook());
    let (record, others) = (seen.clone(), hook.clone());
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| info.payload().downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        if message.contains("of layout `f32[3,5]{1,0:T(2,2)}`") {
            *record.lock().unwrap() = info.location().map(|l| (message, l.line()));
        } else {
            others(info);
        }
    }));
    let row = std::hint::black_box(9);
    let line = line!() + 1;
    let result = std::panic::catch_unwind(|| Figure1.offset([row, 0]));
    std::panic::set_hook(Box::new(move |info| hook(info))); // back as it was
    assert!(result.is_err());
    let (message, at) = seen.lock().unwrap().clone().expect("the assertion's panic");
    assert!(
        message.contains("dimension 0 of layout `f32[3,5]{1,0:T(2,2)}` has size 3"),
        "{message}"
    );
    assert_eq!(at, line);
}

/// The last item may leave out its `;`; a name given twice under
/// different `#[cfg]`s is one layout per configuration, not an error.
mod item_list_forms {
    xla_layout::layout! {
        #[cfg(target_pointer_width = "64")]
        pub type Wide = f32[8]{0};
        #[cfg(not(target_pointer_width = "64"))]
        pub type Wide = f32[4]{0};
        pub type Last = f32[2]{0}
    }

    #[test]
    fn forms() {
        assert_eq!(Last::DIMS, [2]);
        assert_eq!(
            Wide::DIMS[0],
            if cfg!(target_pointer_width = "64") {
                8
            } else {
                4
            }
        );
    }
}
