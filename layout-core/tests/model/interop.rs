//! The bridges to other crates, against the layout arithmetic they stand
//! on, one module per feature (each runs when its feature is on):
//! `ndarray` views give `TiledShape::offset`'s element for every index,
//! and assigning through them is a relayout; `serde` round-trips every
//! element type and canonical shape text and refuses what XLA refuses;
//! `bytemuck` views are the typed views of the same bytes; `float8` and
//! `num-complex` elements carry XLA's bits; a `dlpack` descriptor read by
//! dlpark's own validating reader gives every slot.
#![cfg(feature = "std")]
#![allow(dead_code, unused_imports)]

use proptest::prelude::*;
use xla_layout_core::{
    ArrayShape, COMBINE, DynBitsView, DynBitsViewMut, DynView, DynViewMut, Element, ElementType,
    Layout, Relayout, TiledShape, ViewError,
};

fn tiled(text: &str) -> TiledShape {
    ArrayShape::parse_validated(text).unwrap().tiled().unwrap()
}

/// Random layouts of u32 arrays: permutations, tiles (some with `*`),
/// tail padding.
fn layout_case() -> impl Strategy<Value = Option<TiledShape>> {
    (1usize..=4)
        .prop_flat_map(|rank| {
            let tile = (1..=rank + 1).prop_flat_map(|len| {
                prop::collection::vec(prop_oneof![8 => 1i64..=8, 1 => Just(COMBINE)], len)
            });
            (
                prop::collection::vec(0i64..=12, rank),
                Just((0..rank as i64).collect::<Vec<_>>()).prop_shuffle(),
                prop::collection::vec(tile, 0..=2),
                prop_oneof![3 => Just(1i64), 1 => Just(7i64)],
            )
        })
        .prop_map(|(dims, m2m, tiles, tail)| {
            let tiles: Vec<&[i64]> = tiles.iter().map(Vec::as_slice).collect();
            let layout = Layout::new(&m2m)
                .with_tiles(&tiles)
                .with_tail_padding_alignment(tail);
            let shape = ArrayShape::new(ElementType::U32, &dims).with_layout(layout);
            shape.validate().ok()?;
            let t = shape.tiled().ok()?;
            (t.physical_slots() <= 1 << 15).then_some(t)
        })
}

/// Every logical index of `dims`, row-major.
fn indices(dims: &[u64]) -> Vec<Vec<u64>> {
    let mut out = vec![vec![]];
    for &n in dims {
        out = out
            .into_iter()
            .flat_map(|i| {
                (0..n).map(move |k| {
                    let mut j = i.clone();
                    j.push(k);
                    j
                })
            })
            .collect();
    }
    out
}

#[cfg(feature = "ndarray")]
mod ndarray_views {
    use super::*;
    use ndarray::{Array, Dimension, IxDyn};
    use xla_layout_core::NdarrayError;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 1500, failure_persistence: None, ..ProptestConfig::default() })]

        /// The strided view exists exactly when `logical_strides` does, and
        /// reads each index's slot.
        #[test]
        fn strided_ndarray_reads_every_slot(t in layout_case()) {
            let Some(t) = t else { return Ok(()) };
            let data: Vec<u32> = (0..t.physical_slots() as u32).collect();
            let view = DynView::new(&t, &data).unwrap();
            match (view.ndarray(), t.logical_strides()) {
                (Ok(a), Ok(_)) => {
                    prop_assert_eq!(a.shape(), &t.logical_dims().iter().map(|&d| d as usize).collect::<Vec<_>>()[..]);
                    for i in indices(t.logical_dims()) {
                        let at: Vec<usize> = i.iter().map(|&v| v as usize).collect();
                        prop_assert_eq!(u64::from(a[IxDyn(&at)]), t.offset(&i).unwrap());
                    }
                }
                (Err(NdarrayError::NotStrided(e)), Err(f)) => prop_assert_eq!(e, f),
                (a, s) => prop_assert!(false, "ndarray {:?} vs strides {:?}", a.err(), s.err()),
            }
        }

        /// The tiled view exists exactly when the hierarchical form does; its
        /// padded domain, digits combined per dimension, reads each in-bounds
        /// index's slot, padding indices read padding slots, and no slot twice.
        #[test]
        fn tiled_ndarray_reads_every_slot(t in layout_case()) {
            let Some(t) = t else { return Ok(()) };
            let data: Vec<u32> = (0..t.physical_slots() as u32).collect();
            let view = DynView::new(&t, &data).unwrap();
            let h = t.hierarchical();
            let a = match (view.ndarray_tiled(), h) {
                (Ok(a), Ok(h)) => (a, h),
                (Err(NdarrayError::NotHierarchical(e)), Err(f)) => { prop_assert_eq!(e, f); return Ok(()) }
                (a, h) => { prop_assert!(false, "ndarray {:?} vs hierarchical {:?}", a.err(), h.err()); unreachable!() }
            };
            let (a, h) = a;
            let axes: Vec<_> = h.axes().collect();
            let mut seen = std::collections::HashSet::new();
            for (digits, &slot) in a.indexed_iter() {
                let digits = digits.slice();
                // Combine each dimension's digits, most significant first.
                let mut index = vec![0u64; t.rank()];
                for (axis, &v) in axes.iter().zip(digits) {
                    index[axis.dim] = index[axis.dim] * axis.size + v as u64;
                }
                prop_assert!(seen.insert(slot), "slot {} twice", slot);
                if t.check_index(&index).is_ok() {
                    prop_assert_eq!(u64::from(slot), t.offset(&index).unwrap());
                } else {
                    prop_assert_eq!(t.logical_index(u64::from(slot)).unwrap(), None, "padding index {:?} reads an element", index);
                }
            }
            let padded: u64 = h.modes().iter().map(|m| m.size()).product();
            if t.element_count() > 0 {
                prop_assert_eq!(seen.len() as u64, padded);
                prop_assert!(padded <= t.tiled_slots());
            }
        }
    }

    /// `src` (row-major) assigned into `dst`'s tiled ndarray view, against
    /// the relayout planner's copy.
    fn assign_is_relayout<T: Element + Default + PartialEq + core::fmt::Debug>(
        rows: &str,
        tpu: &str,
        value: fn(u64) -> T,
    ) {
        let (src, dst) = (tiled(rows), tiled(tpu));
        let input: Vec<T> = (0..src.physical_slots()).map(value).collect();
        let mut want = vec![T::default(); dst.physical_slots() as usize];
        Relayout::new(&src, &dst)
            .unwrap()
            .copy(&input, &mut want, T::default())
            .unwrap();
        let mut got = vec![T::default(); dst.physical_slots() as usize];
        let mut a = DynViewMut::new(&dst, &mut got)
            .unwrap()
            .into_ndarray_tiled()
            .unwrap();
        let logical: Vec<usize> = src.logical_dims().iter().map(|&d| d as usize).collect();
        let array = Array::from_shape_vec(IxDyn(&logical), input).unwrap();
        let shape = a.shape().to_vec();
        a.assign(&array.into_shape_with_order(IxDyn(&shape)).unwrap());
        assert_eq!(got, want, "{rows} -> {tpu}");
    }

    #[test]
    fn assigning_through_the_tiled_view_is_a_relayout() {
        let (b16, b32, b8) = (|v| v as u16, |v| v as u32, |v| v as u8);
        assign_is_relayout("bf16[16,256]{1,0}", "bf16[16,256]{1,0:T(8,128)(2,1)}", b16);
        assign_is_relayout("f32[3,5]{1,0}", "f32[3,5]{1,0:T(3,5)}", b32);
        assign_is_relayout("s8[32,256]{1,0}", "s8[32,256]{1,0:T(8,128)(4,1)}", b8);
        assign_is_relayout("f32[4,2,8]{2,1,0}", "f32[4,2,8]{0,2,1:T(2,4)}", b32);
    }

    #[test]
    fn ndarray_views_refuse_with_the_reason() {
        let t = tiled("bf16[16,256]{1,0:T(8,128)(2,1)}");
        let data = vec![0u16; 4096];
        let v = DynView::new(&t, &data).unwrap();
        let e = v.ndarray().unwrap_err();
        assert!(
            e.to_string().contains("dimension 0 is split by a tile"),
            "{e}"
        );
        let t = tiled("f32[8,8,64]{2,1,0:T(*,16,64)}");
        let data = vec![0.0f32; t.physical_slots() as usize];
        let e = DynView::new(&t, &data)
            .unwrap()
            .ndarray_tiled()
            .unwrap_err();
        assert!(matches!(e, NdarrayError::NotHierarchical(_)), "{e}");
        // An empty array whose other dimensions ndarray cannot count: an
        // error, not a panic.
        let t = tiled("f32[0,4611686018427387904,4]{2,1,0}");
        let e = DynView::<f32>::new(&t, &[]).unwrap().ndarray().unwrap_err();
        assert!(matches!(e, NdarrayError::Shape(_)), "{e}");
        // Empty arrays have empty views.
        let t = tiled("f32[0,5]{1,0:T(8,128)}");
        let a = DynView::<f32>::new(&t, &[])
            .unwrap()
            .ndarray_tiled()
            .unwrap();
        assert_eq!(a.len(), 0);
    }
}

#[cfg(feature = "serde")]
mod serde_text {
    use super::*;

    #[test]
    fn serde_round_trips_xla_text() {
        for text in [
            "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)S(1)}",
            "s4[64,128]{1,0:T(8,128)(2,1)E(4)}",
            "f32[<=4,?]{1,0}",
            "pred[]",
        ] {
            let s = ArrayShape::parse_validated(text).unwrap();
            let json = serde_json::to_string(&s).unwrap();
            assert_eq!(json, format!("\"{s}\""));
            assert_eq!(serde_json::from_str::<ArrayShape>(&json).unwrap(), s);
        }
        let shape: xla_layout_core::Shape =
            serde_json::from_str("\"(f32[2]{0}, (s32[], token[]))\"").unwrap();
        assert_eq!(
            serde_json::to_string(&shape).unwrap(),
            "\"(f32[2]{0}, (s32[], token[]))\""
        );
        for ty in ElementType::ALL {
            let json = serde_json::to_string(&ty).unwrap();
            assert_eq!(json, format!("\"{}\"", ty.name()));
            assert_eq!(serde_json::from_str::<ElementType>(&json).unwrap(), ty);
        }
        let layout: Layout = serde_json::from_str("\"{0:T(128)S(1)}\"").unwrap();
        assert_eq!(layout.memory_space(), 1);
    }

    #[test]
    fn serde_refuses_what_xla_refuses() {
        // Parses, but XLA's validator refuses a repeated dimension.
        let e = serde_json::from_str::<ArrayShape>("\"bf16[16,256]{1,1}\"").unwrap_err();
        let validation = ArrayShape::parse("bf16[16,256]{1,1}")
            .unwrap()
            .validate()
            .unwrap_err();
        assert!(e.to_string().contains(&validation.to_string()), "{e}");
        assert!(serde_json::from_str::<ArrayShape>("\"f32[2\"").is_err());
        assert!(serde_json::from_str::<ArrayShape>("17").is_err());
        let e = serde_json::from_str::<ElementType>("\"f33\"").unwrap_err();
        assert!(
            e.to_string()
                .contains("unknown element type `f33`; did you mean `f32`?"),
            "{e}"
        );
        // In the shape parser's words, whatever the name.
        for name in ["f33", "bfloat16", "F32"] {
            let e = serde_json::from_str::<ElementType>(&format!("\"{name}\"")).unwrap_err();
            let text = format!("{name}[2]");
            let parser = ArrayShape::parse(&text).unwrap_err();
            let said = parser.primary().explain(text.as_bytes()).to_string();
            assert!(e.to_string().starts_with(&said), "{e} / {said}");
        }
        // Text XLA's parser reads past, into another shape (`S(300)` kept
        // in 8 bits is `S(44)`): refused, not read as that other shape.
        for text in ["f32[3,5]{1,0:S(300)}", "(f32[2]{0:S(300)}, s32[])"] {
            let json = format!("\"{text}\"");
            assert!(
                serde_json::from_str::<xla_layout_core::Shape>(&json).is_err(),
                "{text}"
            );
        }
        let e = serde_json::from_str::<ArrayShape>("\"f32[3,5]{1,0:S(300)}\"").unwrap_err();
        assert!(e.to_string().contains("invalid array shape"), "{e}");
        // A bare layout as strictly (it read `{0:S(300)}` as `{0:S(44)}`,
        // and `{0:E}` as `{0}`).
        for text in ["{0:S(300)}", "{0:E}", "{0:E(4}"] {
            let e = serde_json::from_str::<Layout>(&format!("\"{text}\"")).unwrap_err();
            assert!(e.to_string().contains("invalid layout"), "{text}: {e}");
        }
        let l: Layout = serde_json::from_str("\"{1,0:T(8,128)(2,1)S(1)}\"").unwrap();
        assert_eq!(l.to_string(), "{1,0:T(8,128)(2,1)S(1)}");
    }
}

#[cfg(feature = "bytemuck")]
mod byte_views {
    use super::*;

    #[test]
    fn byte_views_are_the_typed_views_of_the_same_bytes() {
        let t = tiled("f32[3,5]{1,0:T(2,2)}");
        let slots: Vec<f32> = (0..24).map(|s| s as f32).collect();
        let bytes: &[u8] = bytemuck::cast_slice(&slots);
        let v = DynView::<f32>::from_bytes(&t, bytes).unwrap();
        assert_eq!(v.get(&[2, 3]), Ok(17.0));
        assert_eq!(v.as_slice(), &slots[..]);
        assert_eq!(
            DynView::<f32>::from_bytes(&t, &bytes[..95]).unwrap_err(),
            ViewError::TooFewBytes {
                needed: 96,
                got: 95
            }
        );
        // One byte in: misaligned for f32 (the buffer is 4-aligned).
        let mut spare = vec![0u32; 26];
        let shifted = &bytemuck::cast_slice_mut::<u32, u8>(&mut spare)[1..];
        assert_eq!(
            DynView::<f32>::from_bytes(&t, shifted).unwrap_err(),
            ViewError::Misaligned { align: 4 }
        );
        // An empty array needs no bytes, aligned or not.
        let empty = tiled("f32[0]{0}");
        assert_eq!(
            DynView::<f32>::from_bytes(&empty, &[]).unwrap().as_slice(),
            &[] as &[f32]
        );
        // However many spare bytes there are, at whatever alignment.
        for len in 0..9 {
            let bytes = &bytemuck::cast_slice::<u32, u8>(&spare)[1..1 + len];
            assert!(
                DynView::<f32>::from_bytes(&empty, bytes).is_ok(),
                "{len} bytes"
            );
        }
        // Bytes of a `u32` buffer: a `Vec<u8>` need not be 4-aligned (Miri's
        // allocator places them anywhere).
        let mut words = vec![0u32; 24];
        let raw: &mut [u8] = bytemuck::cast_slice_mut(&mut words);
        let mut m = DynViewMut::<f32>::from_bytes_mut(&t, raw).unwrap();
        m.set(&[2, 3], 2.5).unwrap();
        assert_eq!(&raw[17 * 4..18 * 4], &2.5f32.to_le_bytes());
    }
}

#[cfg(feature = "float8")]
mod float8_elements {
    use super::*;

    #[test]
    fn float8_types_are_xlas() {
        use float8::{F8E4M3, F8E5M2};
        // float8's F8E4M3 reads 0x7E as 448: no infinity, so OCP E4M3FN.
        assert_eq!(F8E4M3::from_bits(0x7E).to_f32(), 448.0);
        assert_eq!(F8E5M2::from_bits(0x7B).to_f32(), 57344.0);
        assert!(F8E4M3::HOLDS.contains(ElementType::F8E4M3FN));
        assert!(!F8E4M3::HOLDS.contains(ElementType::F8E4M3));
        assert!(F8E5M2::HOLDS.contains(ElementType::F8E5M2));
        let t = tiled("f8e4m3fn[4]{0}");
        let data = [1.0f32, -2.0, 448.0, 0.5].map(F8E4M3::from_f32);
        let v = DynView::new(&t, &data).unwrap();
        assert_eq!(v.get(&[2]).unwrap().to_f32(), 448.0);
        let bytes: Vec<u8> = data.iter().map(|x| x.to_bits()).collect();
        let b = DynBitsView::<F8E4M3>::new(&t, &bytes).unwrap();
        assert_eq!(b.get(&[1]).unwrap().to_f32(), -2.0);
    }
}

#[cfg(feature = "num-complex")]
mod complex_elements {
    use super::*;
    use num_complex::Complex;

    #[test]
    fn complex_numbers_are_real_then_imaginary() {
        let t = tiled("c64[2]{0}");
        let values = [Complex::new(1.0f32, -1.0), Complex::new(2.5, 4.0)];
        let v = DynView::new(&t, &values).unwrap();
        assert_eq!(v.get(&[1]), Ok(Complex::new(2.5, 4.0)));
        // The bytes: real part first, each little-endian.
        let bytes: Vec<u8> = [1.0f32, -1.0, 2.5, 4.0]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let b = DynBitsView::<Complex<f32>>::new(&t, &bytes).unwrap();
        assert_eq!(b.get(&[0]), Ok(Complex::new(1.0, -1.0)));
        let t = tiled("c128[1]{0}");
        let bytes: Vec<u8> = [3.0f64, -0.25]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let b = DynBitsView::<Complex<f64>>::new(&t, &bytes).unwrap();
        assert_eq!(b.get(&[0]), Ok(Complex::new(3.0, -0.25)));
        assert!(Complex::<f64>::HOLDS.contains(ElementType::C128));
        assert!(!Complex::<f32>::HOLDS.contains(ElementType::C128));
    }

    #[test]
    fn complex_numbers_are_written_real_then_imaginary() {
        let t = tiled("c64[2]{0}");
        let mut bytes = [0u8; 16];
        let mut v = DynBitsViewMut::<Complex<f32>>::new(&t, &mut bytes).unwrap();
        v.set(&[1], Complex::new(-0.5, 8.0)).unwrap();
        assert_eq!(v.get(&[1]), Ok(Complex::new(-0.5, 8.0)));
        let want: Vec<u8> = [0.0f32, 0.0, -0.5, 8.0]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        assert_eq!(bytes[..], want[..]);
        let t = tiled("c128[1]{0}");
        let mut bytes = [0u8; 16];
        DynBitsViewMut::<Complex<f64>>::new(&t, &mut bytes)
            .unwrap()
            .set(&[0], Complex::new(1.5, -2.0))
            .unwrap();
        assert_eq!(bytes[..8], 1.5f64.to_le_bytes());
        assert_eq!(bytes[8..], (-2.0f64).to_le_bytes());
    }
}

#[cfg(feature = "dlpack")]
mod dlpack_export {
    use super::*;
    use xla_layout_core::DlpackError;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 500, failure_persistence: None, ..ProptestConfig::default() })]

        /// A DLPack descriptor exists exactly when strides do; read as a DLPack
        /// consumer reads it (dlpark's validating reader, then pointer
        /// arithmetic with its shape and strides), every index gives its slot.
        #[test]
        fn dlpack_descriptors_read_every_slot(t in layout_case()) {
            let Some(t) = t else { return Ok(()) };
            let data: Vec<u32> = (0..t.physical_slots() as u32).collect();
            let view = DynView::new(&t, &data).unwrap();
            let d = match (view.dlpack(), t.logical_strides()) {
                (Ok(d), Ok(_)) => d,
                (Err(DlpackError::NotStrided(e)), Err(f)) => { prop_assert_eq!(e, f); return Ok(()) }
                (d, s) => { prop_assert!(false, "dlpack {:?} vs strides {:?}", d.err(), s.err()); unreachable!() }
            };
            let tensor = d.tensor();
            // SAFETY: `d` outlives `tensor`'s use and is not moved.
            let r = unsafe { dlpark::tensor::TensorRef::from_raw(&tensor) }.unwrap();
            prop_assert_eq!(r.dtype(), dlpark::ffi::DLDataType::U32);
            let (shape, strides) = (r.shape(), r.strides().unwrap());
            let base = r.data_ptr().cast::<u32>();
            for i in indices(t.logical_dims()) {
                prop_assert_eq!(shape.len(), i.len());
                let at: i64 = i.iter().zip(strides).map(|(&k, &s)| k as i64 * s).sum();
                // SAFETY: `at` is an element of `data` (its slot).
                let v = unsafe { *base.offset(at as isize) };
                prop_assert_eq!(u64::from(v), t.offset(&i).unwrap());
            }
        }
    }

    #[test]
    fn dlpack_types_and_refusals() {
        use dlpark::ffi::DLDataType;
        use xla_layout_core::Dlpack;
        // Raw elements of the slot width.
        let dtype = |text: &str| {
            let t = tiled(text);
            let n = t.physical_slots() as usize;
            match t.element_bits() {
                8 => Dlpack::new(&t, &vec![0u8; n]).map(|d| d.dtype()),
                16 => Dlpack::new(&t, &vec![0u16; n]).map(|d| d.dtype()),
                _ => unreachable!(),
            }
        };
        assert_eq!(dtype("bf16[2]{0}"), Ok(DLDataType::BF16));
        assert_eq!(dtype("f8e4m3fn[2]{0}"), Ok(DLDataType::F8E4M3FN));
        assert_eq!(dtype("pred[2]{0}"), Ok(DLDataType::BOOL));
        assert_eq!(dtype("s8[2]{0}"), Ok(DLDataType::I8));
        assert!(matches!(
            dtype("s4[2]{0}"),
            Err(DlpackError::ElementType {
                ty: ElementType::S4,
                slot_bits: 8
            })
        ));
        let t = tiled("bf16[16,256]{1,0:T(8,128)(2,1)}");
        let data = vec![0u16; 4096];
        let e = DynView::new(&t, &data).unwrap().dlpack().unwrap_err();
        assert!(matches!(e, DlpackError::NotStrided(_)), "{e}");
        // Tiles that only pad keep strides: DLPack can read them.
        let t = tiled("f32[3,5]{1,0:T(8,128)}");
        let data = vec![0.0f32; 1024];
        let mut data2 = data.clone();
        assert_eq!(
            DynView::new(&t, &data).unwrap().dlpack().unwrap().strides(),
            [128, 1]
        );
        {
            let d = DynViewMut::new(&t, &mut data2)
                .unwrap()
                .into_dlpack()
                .unwrap();
            let tensor = d.tensor();
            // A consumer writes element (2, 4) at 2·stride₀ + 4·stride₁.
            // SAFETY: `d` keeps the buffer borrowed; the element is in it.
            unsafe {
                let strides = std::slice::from_raw_parts(tensor.strides, 2);
                *tensor
                    .data
                    .cast::<f32>()
                    .offset((2 * strides[0] + 4 * strides[1]) as isize) = 7.0;
            }
        }
        assert_eq!(data2[2 * 128 + 4], 7.0);
        assert_eq!(data2.iter().filter(|&&x| x != 0.0).count(), 1);
    }

    /// An `Element` whose `BITS` is not its size: the descriptor would
    /// make a consumer read past the buffer, so there is none.
    #[derive(Clone, Copy)]
    struct Tiny(u8);

    impl Element for Tiny {
        const BITS: u32 = 32;
        const HOLDS: xla_layout_core::ElementTypes =
            xla_layout_core::ElementTypes::NONE.with(ElementType::F32);
        fn decode(bits: u128, _: ElementType) -> Self {
            Tiny(bits as u8)
        }
        fn encode(self, _: ElementType) -> u128 {
            u128::from(self.0)
        }
    }

    #[test]
    fn dlpack_refuses_what_a_consumer_would_misread() {
        use xla_layout_core::Dlpack;
        let t = tiled("f32[4]{0}");
        let data = [Tiny(0); 4];
        assert!(DynView::new(&t, &data).is_ok()); // the view itself reads slot by slot
        assert_eq!(
            Dlpack::new(&t, &data).unwrap_err(),
            DlpackError::RustType {
                rust_bytes: 1,
                dlpack_bits: 32
            }
        );
        // An empty tensor's data pointer is NULL, as DLPack asks.
        let t = tiled("f32[0,3]{1,0}");
        let d = Dlpack::new::<f32>(&t, &[]).unwrap();
        assert!(d.tensor().data.is_null());
        assert_eq!(d.shape(), [0, 3]);
    }

    /// The descriptor borrows the buffer only: the layout can be a local.
    fn descriptor(data: &[f32]) -> xla_layout_core::Dlpack<'_> {
        let t = tiled("f32[2,2]{0,1}");
        xla_layout_core::Dlpack::new(&t, data).unwrap()
    }

    #[test]
    fn dlpack_descriptors_outlive_the_layout() {
        let data = [1.0f32, 2.0, 3.0, 4.0];
        assert_eq!(descriptor(&data).strides(), [1, 2]);
    }
}
