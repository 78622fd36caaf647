//! Runtime views (`DynView` and friends) against the static views of the
//! same layout text: every method gives the same answer, element for
//! element, on layouts that cover tiles, `*`, padding, `L(n)`, transposes
//! and packed elements; and round trips through layouts known only at run
//! time (the TPU defaults of random shapes) give every element back.

use xla_layout::{
    ArrayShape, BitsView, BitsViewMut, DynBitsView, DynBitsViewMut, DynView, DynViewMut, Element,
    IndexError, StaticLayout, TiledShape, View, ViewError, ViewMut, layout,
};

layout! {
    type Figure1 = f32[3,5]{1,0:T(2,2)};
    type Figure1Rows = f32[3,5]{1,0};
    type Figure2 = bf16[4,8]{1,0:T(2,4)(2,1)};
    type Figure2Rows = bf16[4,8]{1,0};
    type Combined = f32[2,3,5]{2,1,0:T(*,2,4)};
    type CombinedRows = f32[2,3,5]{2,1,0};
    type Tail = f32[3,7]{0,1:T(2)L(16)};
    type TailRows = f32[3,7]{1,0};
    type Tpu = s8[9,129]{1,0:T(8,128)(4,1)};
    type TpuCols = s8[9,129]{0,1};
    type Nibbles = s4[5,7]{1,0:E(4)};
    type NibblesTpu = s4[5,7]{0,1:T(8,128)(8,1)E(4)};
    type Flags = pred[3,11]{0,1:E(1)};
    type FlagsRows = pred[3,11]{1,0:E(1)};
}

fn tiled<L: StaticLayout>() -> TiledShape {
    L::SHAPE.tiled().unwrap()
}

fn wide(index: &[usize]) -> Vec<u64> {
    index.iter().map(|&i| i as u64).collect()
}

/// Every read of a typed view, static and runtime, over slot numbers.
fn reads_agree<L: StaticLayout, T: Element + PartialEq + core::fmt::Debug>(to: fn(u64) -> T) {
    let t = tiled::<L>();
    let data: Vec<T> = (0..L::PHYSICAL_ELEMENTS as u64).map(to).collect();
    let (s, d) = (
        View::<L, T>::new(&data).unwrap(),
        DynView::new(&t, &data).unwrap(),
    );
    let name = L::TEXT;
    let (si, di): (Vec<_>, Vec<_>) = (s.iter().collect(), d.iter().collect());
    assert_eq!(si.len(), di.len(), "{name}");
    for ((sx, sv), (dx, dv)) in si.iter().zip(&di) {
        assert_eq!(wide(sx.as_ref()), &dx[..], "{name}");
        assert_eq!(sv, dv, "{name} at {dx:?}");
        assert_eq!(d.get(dx), Ok(*sv), "{name}");
    }
    let (sp, dp): (Vec<_>, Vec<_>) = (s.iter_physical().collect(), d.iter_physical().collect());
    assert_eq!(sp.len(), dp.len(), "{name}");
    // Memory order, checked against the forward map (not the inverse both
    // iterators use): each slot holds the index whose offset it is, slots
    // rise, and every element appears once.
    assert_eq!(dp.len() as u64, t.element_count(), "{name}");
    assert!(dp.windows(2).all(|w| w[0].0 < w[1].0), "{name}");
    for (slot, index, _) in &dp {
        assert_eq!(t.offset(index), Ok(*slot as u64), "{name}");
    }
    for ((ss, sx, sv), (ds, dx, dv)) in sp.iter().zip(&dp) {
        assert_eq!((*ss, wide(sx.as_ref()), sv), (*ds, dx.to_vec(), dv));
    }
    let middle: Vec<usize> = L::DIMS.as_ref().iter().map(|&n| n / 2).collect();
    for dim in 0..=L::RANK {
        let mut at = L::Index::default();
        at.as_mut().copy_from_slice(&middle);
        let sl: Vec<T> = s.lane(at, dim).collect();
        let dl: Vec<T> = d.lane(&wide(&middle), dim).collect();
        assert_eq!(sl, dl, "{name}: lane {dim}");
    }
    assert_eq!(d.lane(&[0], 0).count(), 0, "{name}: wrong rank");
    for k in 0.. {
        match (s.tile(k), d.tile(k)) {
            (None, None) => break,
            (Some(st), Some(dt)) => {
                let st: Vec<_> = st.map(|(i, v)| (wide(i.as_ref()), v)).collect();
                let dt: Vec<_> = dt.map(|(i, v)| (i.to_vec(), v)).collect();
                assert_eq!(st, dt, "{name}: tile {k}");
            }
            _ => panic!("{name}: tile {k} exists in one view only"),
        }
    }
    for dim in 0..L::RANK {
        let mut out = wide(&middle);
        out[dim] = L::DIMS.as_ref()[dim] as u64;
        assert_eq!(
            d.get(&out),
            Err(IndexError::OutOfBounds {
                dim,
                index: out[dim],
                size: out[dim]
            })
        );
    }
    assert!(matches!(
        d.get(&[]),
        Err(IndexError::WrongRank { got: 0, .. })
    ));
}

/// Writes, padding fill and copies: the runtime view leaves the buffer
/// exactly as the static view does.
fn writes_agree<S, D, T>(to: fn(u64) -> T)
where
    S: StaticLayout,
    D: StaticLayout<Logical = S::Logical>,
    T: Element + PartialEq + core::fmt::Debug,
{
    let (ts, td) = (tiled::<S>(), tiled::<D>());
    let name = format!("{} -> {}", S::TEXT, D::TEXT);
    let input: Vec<T> = (0..S::PHYSICAL_ELEMENTS as u64).map(to).collect();
    let guard = to(0x5A5A_5A5A);
    let pad = to(0xA5A5_A5A5);
    let (mut a, mut b) = (
        vec![guard; D::PHYSICAL_ELEMENTS + 8],
        vec![guard; D::PHYSICAL_ELEMENTS + 8],
    );
    ViewMut::<D, T>::new(&mut a)
        .unwrap()
        .copy_from_with_padding(&View::<S, T>::new(&input).unwrap(), pad);
    DynViewMut::new(&td, &mut b)
        .unwrap()
        .copy_from_with_padding(&DynView::new(&ts, &input).unwrap(), pad)
        .unwrap();
    assert_eq!(a, b, "{name}: copy");

    // Set every element, then fill the padding.
    let mut sv = ViewMut::<D, T>::new(&mut a).unwrap();
    let indices: Vec<_> = sv.iter().map(|(i, _)| i).collect();
    for (n, &i) in indices.iter().enumerate() {
        sv.set(i, to(n as u64 + 7)).unwrap();
    }
    sv.fill_padding(guard);
    let mut dv = DynViewMut::new(&td, &mut b).unwrap();
    for (n, i) in indices.iter().enumerate() {
        dv.set(&wide(i.as_ref()), to(n as u64 + 7)).unwrap();
    }
    dv.fill_padding(guard);
    assert_eq!(a, b, "{name}: set + fill_padding");
    let before = b.clone();
    let mut dv = DynViewMut::new(&td, &mut b).unwrap();
    let past = wide(D::DIMS.as_ref());
    assert!(dv.set(&past, pad).is_err());
    assert!(dv.get_mut(&past).is_err());
    assert_eq!(b, before, "{name}: a refused write changed the buffer");
}

#[test]
fn typed_runtime_views_read_as_static_views() {
    reads_agree::<Figure1, f32>(|s| s as f32);
    reads_agree::<Figure1Rows, f32>(|s| s as f32);
    reads_agree::<Figure2, u16>(|s| s as u16);
    reads_agree::<Combined, u32>(|s| s as u32);
    reads_agree::<Tail, f32>(|s| s as f32);
    reads_agree::<Tpu, i8>(|s| s as i8);
    reads_agree::<TpuCols, u8>(|s| s as u8);
}

#[test]
fn typed_runtime_views_write_as_static_views() {
    writes_agree::<Figure1Rows, Figure1, f32>(|s| s as f32);
    writes_agree::<Figure1, Figure1Rows, u32>(|s| s as u32);
    writes_agree::<Figure2Rows, Figure2, u16>(|s| s as u16);
    writes_agree::<CombinedRows, Combined, f32>(|s| s as f32);
    writes_agree::<TailRows, Tail, f32>(|s| s as f32);
    writes_agree::<TpuCols, Tpu, i8>(|s| s as i8);
}

/// Bit views: every read, then `set` and `copy_from`, leave the same bytes.
fn bits_agree<S, D, T>(to: fn(u64) -> T)
where
    S: StaticLayout,
    D: StaticLayout<Logical = S::Logical>,
    T: Element + PartialEq + core::fmt::Debug,
{
    let (ts, td) = (tiled::<S>(), tiled::<D>());
    let name = format!("{} -> {}", S::TEXT, D::TEXT);
    let input: Vec<u8> = (0..S::BYTES as u64).map(|b| (b * 37 + 11) as u8).collect();
    let (s, d) = (
        BitsView::<S, T>::new(&input).unwrap(),
        DynBitsView::<T>::new(&ts, &input).unwrap(),
    );
    let (si, di): (Vec<_>, Vec<_>) = (
        s.iter().map(|(i, v)| (wide(i.as_ref()), v)).collect(),
        d.iter().map(|(i, v)| (i.to_vec(), v)).collect(),
    );
    assert_eq!(si, di, "{name}: iter");
    let (sp, dp): (Vec<_>, Vec<_>) = (
        s.iter_physical()
            .map(|(slot, _, v)| (slot as u64, v))
            .collect(),
        d.iter_physical()
            .map(|(slot, _, v)| (slot as u64, v))
            .collect(),
    );
    assert_eq!(sp, dp, "{name}: iter_physical");

    let (mut a, mut b) = (vec![0xEEu8; D::BYTES + 4], vec![0xEEu8; D::BYTES + 4]);
    BitsViewMut::<D, T>::new(&mut a).unwrap().copy_from(&s);
    DynBitsViewMut::<T>::new(&td, &mut b)
        .unwrap()
        .copy_from(&d)
        .unwrap();
    assert_eq!(a, b, "{name}: copy_from");
    let mut sv = BitsViewMut::<D, T>::new(&mut a).unwrap();
    let mut dv = DynBitsViewMut::<T>::new(&td, &mut b).unwrap();
    let indices: Vec<_> = sv.iter().map(|(i, _)| i).collect();
    for (n, &i) in indices.iter().enumerate() {
        sv.set(i, to(n as u64)).unwrap();
        dv.set(&wide(i.as_ref()), to(n as u64)).unwrap();
        assert_eq!(dv.get(&wide(i.as_ref())), Ok(to(n as u64)), "{name}");
    }
    assert_eq!(a, b, "{name}: set");
}

#[test]
fn bit_runtime_views_agree_with_static_ones() {
    bits_agree::<Nibbles, NibblesTpu, i8>(|v| (v % 16) as i8 - 8);
    bits_agree::<NibblesTpu, Nibbles, i8>(|v| (v % 16) as i8 - 8);
    bits_agree::<Flags, FlagsRows, bool>(|v| v % 3 == 0);
    bits_agree::<Figure2Rows, Figure2, u16>(|v| v as u16);
}

#[test]
fn construction_checks_once() {
    let t = tiled::<Figure1>();
    assert_eq!(
        DynView::new(&t, &[0.0f32; 23]).unwrap_err(),
        ViewError::TooShort {
            needed: 24,
            got: 23
        }
    );
    assert!(matches!(
        DynView::new(&t, &[0i32; 24]),
        Err(ViewError::ElementType { rust_bits: 32, .. })
    ));
    assert!(DynView::new(&t, &[0u64; 24]).is_err());
    assert!(DynView::new(&t, &[0u32; 24]).is_ok()); // raw bits
    // s4 stored one per byte: XLA leaves the upper bits of each byte
    // unspecified, so only bit views (which read the low four) hold it;
    // packed, likewise.
    let bytes = ArrayShape::parse_validated("s4[4]{0}")
        .unwrap()
        .tiled()
        .unwrap();
    let packed = ArrayShape::parse_validated("s4[4]{0:E(4)}")
        .unwrap()
        .tiled()
        .unwrap();
    // Refused, and told where to go: the value and its slot differ in width.
    for t in [&bytes, &packed] {
        let e = DynView::new(t, &[0i8; 4]).unwrap_err();
        assert!(
            e.to_string().ends_with("read them with the bit views)"),
            "{e}"
        );
    }
    // f32 in an i32 view: the widths agree, so no such advice; the
    // message names the Rust type and what it stands for instead.
    let e = DynView::new(&t, &[0i32; 24]).unwrap_err();
    assert!(!e.to_string().contains("bit views"), "{e}");
    assert_eq!(
        e.to_string(),
        "`i32` does not stand for `f32` elements: it holds s32 (see `Element::HOLDS`)"
    );
    // A type of another kind and width says what it stands for.
    let e = DynView::new(&t, &[0u8; 24]).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("`u8` does not stand for `f32` elements: it holds "),
        "{e}"
    );
    // The right kind and the wrong width says so.
    let wide = ArrayShape::parse_validated("u8[4]{0:E(16)}")
        .unwrap()
        .tiled()
        .unwrap();
    let e = DynView::new(&wide, &[0u8; 4]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "`u8` is 8 bits wide, and the layout stores `u8` elements in 16-bit slots \
         (packed, or narrower than its slot: read them with the bit views)"
    );
    // s4 one per byte in an i8: the right type and width, a narrower value.
    let e = DynView::new(&bytes, &[0i8; 4]).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("`i8` holds `s4` values, but each fills only part of its 8-bit slot"),
        "{e}"
    );
    // -1 with the upper bits set or clear reads -1 either way.
    let b = DynBitsView::<i8>::new(&bytes, &[0x0F, 0xFF, 0x01, 0xF1]).unwrap();
    assert_eq!(b.iter().map(|(_, x)| x).collect::<Vec<_>>(), [-1, -1, 1, 1]);
    assert_eq!(
        DynBitsView::<i8>::new(&packed, &[0u8; 1]).unwrap_err(),
        ViewError::TooFewBytes { needed: 2, got: 1 }
    );
    // Each says what it counts.
    assert_eq!(
        DynView::new(&t, &[0.0f32; 23]).unwrap_err().to_string(),
        "the buffer is too short: the layout has 24 slots and the buffer 23 elements"
    );
    assert_eq!(
        DynBitsView::<i8>::new(&packed, &[0u8; 1])
            .unwrap_err()
            .to_string(),
        "the buffer is too short: the layout needs 2 bytes and it has 1"
    );
    // A layout whose bits do not have 64-bit offsets is refused, not wrapped.
    let huge = ArrayShape::parse_validated("u8[2305843009213693953]{0}")
        .unwrap()
        .tiled()
        .unwrap();
    assert!(DynBitsView::<u8>::new(&huge, &[0u8; 16]).is_err());
}

fn tpu(dims: &[u64], ty: &str) -> TiledShape {
    let dims: Vec<String> = dims.iter().map(u64::to_string).collect();
    let text = format!("tpu({ty}[{}])", dims.join(","));
    xla_layout::tpu::parse_request(&text)
        .unwrap()
        .unwrap()
        .tiled()
        .unwrap()
}

/// Row-major data copied into the TPU's default layout of a shape chosen
/// at run time reads back element for element, and every slot the layout
/// does not use is padding: every shape of rank 1 to 3 over sizes around
/// the TPU tile edges.
#[test]
fn round_trip_through_runtime_tpu_layouts() {
    const SIZES: [u64; 6] = [1, 3, 8, 9, 128, 130];
    let mut shapes: Vec<Vec<u64>> = SIZES.iter().map(|&a| vec![a]).collect();
    for &a in &SIZES {
        for &b in &SIZES {
            shapes.push(vec![a, b]);
            shapes.extend(SIZES[..4].iter().map(|&c| vec![c, a, b]));
        }
    }
    for dims in &shapes {
        for ty in ["f32", "bf16", "s8", "pred"] {
            let d: Vec<String> = dims.iter().map(u64::to_string).collect();
            let host = ArrayShape::parse_validated(&format!("{ty}[{}]", d.join(",")))
                .unwrap()
                .tiled()
                .unwrap();
            let dev = tpu(dims, ty);
            macro_rules! round_trip {
                ($t:ty) => {{
                    let src: Vec<$t> = (0..host.physical_slots()).map(|v| v as $t).collect();
                    let mut out = vec![<$t>::MAX; dev.physical_slots() as usize];
                    let host_view = DynView::new(&host, &src).unwrap();
                    DynViewMut::new(&dev, &mut out)
                        .unwrap()
                        .copy_from(&host_view)
                        .unwrap();
                    let back = DynView::new(&dev, &out).unwrap();
                    for (i, v) in host_view.iter() {
                        assert_eq!(back.get(&i), Ok(v), "{dims:?} {ty}");
                    }
                    let used = back.iter_physical().count() as u64;
                    assert_eq!(used, host.element_count());
                    // Padding is zeroed: the zeros are the padding and the
                    // elements that are zero.
                    let zeros = |v: &[$t]| v.iter().filter(|&&v| v == 0).count() as u64;
                    assert_eq!(zeros(&out), dev.physical_slots() - used + zeros(&src));
                }};
            }
            match ty {
                "f32" => round_trip!(u32),
                "bf16" => round_trip!(u16),
                _ => round_trip!(u8),
            }
        }
    }
}

/// Iterators of a shared runtime view borrow its buffer, not the view: a
/// function can return them.
fn elements<'a>(v: DynView<'a, f32>) -> impl Iterator<Item = f32> + 'a {
    v.iter().map(|(_, x)| x)
}

#[test]
fn iterators_live_as_long_as_the_buffer() {
    let t = tiled::<Figure1>();
    let data: Vec<f32> = (0..24).map(|s| s as f32).collect();
    let sum: f32 = elements(DynView::new(&t, &data).unwrap()).sum();
    assert_eq!(sum, 124.0); // the slots of tiled_layout.md figure 1's elements
}

/// A value the element cannot hold is refused, not written cut short
/// (8 in an `s4` would read back as -8; 1.5 in a 7-bit `f32` slot as 0).
#[test]
fn bit_views_refuse_values_that_do_not_fit() {
    use xla_layout::{DynBitsViewMut, IndexError};
    let t = |s: &str| ArrayShape::parse_validated(s).unwrap().tiled().unwrap();
    let s4 = t("s4[3,5]{1,0:E(4)}");
    let mut bytes = vec![0u8; s4.exact_bytes() as usize];
    let mut v = DynBitsViewMut::<i8>::new(&s4, &mut bytes).unwrap();
    for x in [-8, -1, 0, 7] {
        assert_eq!(v.set(&[1, 2], x), Ok(()));
        assert_eq!(v.get(&[1, 2]), Ok(x));
    }
    for x in [8, -9, 127, -128] {
        assert_eq!(
            v.set(&[1, 2], x),
            Err(IndexError::ValueDoesNotFit { element_bits: 4 })
        );
    }
    assert_eq!(v.get(&[1, 2]), Ok(7), "a refused value writes nothing");
    // Unsigned nibbles in bytes, and a signed byte type in 4-bit slots.
    let u4 = t("u4[4]{0:E(4)}");
    let mut bytes = vec![0u8; 2];
    let mut v = DynBitsViewMut::<u8>::new(&u4, &mut bytes).unwrap();
    assert_eq!(v.set(&[0], 15), Ok(()));
    assert!(v.set(&[0], 16).is_err());
    let s8 = t("s8[4]{0:E(4)}");
    let mut bytes = vec![0u8; 2];
    let mut v = DynBitsViewMut::<i8>::new(&s8, &mut bytes).unwrap();
    assert_eq!((v.set(&[0], -8), v.set(&[1], 7)), (Ok(()), Ok(())));
    assert!(v.set(&[2], 8).is_err());
    // A float in a slot narrower than its bits: only values whose cut
    // bits are zero come back.
    let f = t("f32[2,3]{1,0:E(7)}");
    let mut bytes = vec![0u8; f.exact_bytes() as usize];
    let mut v = DynBitsViewMut::<f32>::new(&f, &mut bytes).unwrap();
    assert!(v.set(&[0, 0], 1.5).is_err());
    assert_eq!(v.set(&[0, 0], 0.0), Ok(()));
}
