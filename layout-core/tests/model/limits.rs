//! Every size and offset function at the edges of 64-bit arithmetic:
//! dimensions near `i64::MAX`, tiles whose product passes `u64`, huge
//! `E(n)` and `L(n)`. A reference model computes each value exactly in
//! 128-bit arithmetic (checked); the library must give that value when it
//! fits in 64 bits, and a clear error — never a wrapped number — when it
//! does not. The model covers what it can state independently: any
//! minor-to-major order, at most one tile (no `*`), `L`, `E`.
#![cfg(feature = "std")]

use proptest::prelude::*;
use xla_layout_core::{AddressError, ArrayShape, ElementType, IndexError, Layout};

const SMALL_DIMS: &[i64] = &[0, 1, 2, 3, 7, 129];
const HUGE_DIMS: &[i64] = &[
    (1 << 31) - 1,
    (1 << 32) + 1,
    1 << 40,
    (1 << 61) + 1,
    (1 << 62) - 1,
    i64::MAX - 1,
    i64::MAX,
];
const TILES: &[i64] = &[1, 2, 3, 128, 1 << 32, (1 << 62) + 3, i64::MAX];
const TAILS: &[i64] = &[1, 3, 1024, 1 << 40, (1 << 62) + 1, i64::MAX];
const BITS: &[i64] = &[0, 1, 4, 9, 1 << 32, (1 << 32) + 8, 1 << 62, i64::MAX];

#[derive(Clone, Debug)]
struct Case {
    ty: ElementType,
    dims: Vec<i64>,
    m2m: Vec<i64>,
    tile: Option<Vec<i64>>,
    tail: i64,
    bits: i64,
}

fn case() -> impl Strategy<Value = Case> {
    let ty = prop::sample::select(vec![
        ElementType::PRED,
        ElementType::S4,
        ElementType::U8,
        ElementType::BF16,
        ElementType::F32,
        ElementType::F64,
        ElementType::C128,
    ]);
    (1usize..=3).prop_flat_map(move |rank| {
        (
            ty.clone(),
            prop::collection::vec(
                prop_oneof![
                    2 => prop::sample::select(SMALL_DIMS),
                    1 => prop::sample::select(HUGE_DIMS),
                ],
                rank,
            ),
            Just((0..rank as i64).collect::<Vec<_>>()).prop_shuffle(),
            prop::option::of(prop::collection::vec(prop::sample::select(TILES), 1..=rank)),
            prop::sample::select(TAILS),
            prop::sample::select(BITS),
        )
            .prop_map(|(ty, dims, m2m, tile, tail, bits)| Case {
                ty,
                dims,
                m2m,
                tile,
                tail,
                bits,
            })
    })
}

impl Case {
    fn shape(&self) -> ArrayShape {
        let mut layout = Layout::new(&self.m2m)
            .with_tail_padding_alignment(self.tail)
            .with_element_size_in_bits(self.bits);
        if let Some(t) = &self.tile {
            layout = layout.with_tiles(&[t.as_slice()]);
        }
        ArrayShape::new(self.ty, &self.dims).with_layout(layout)
    }

    fn natural_bits(&self) -> u128 {
        u128::from(self.ty.bit_width().unwrap())
            .max(8)
            .next_multiple_of(8)
    }

    fn slot_bits(&self) -> u128 {
        if self.bits != 0 {
            self.bits as u128
        } else {
            8 * u128::from(self.ty.byte_width().unwrap())
        }
    }

    /// Whether XLA's validation accepts the dimensions: their product and
    /// the product times the byte width fit in int64.
    fn valid(&self) -> bool {
        let mut n: u128 = 1;
        for &d in &self.dims {
            n *= d as u128;
            if n > i64::MAX as u128 {
                return false;
            }
        }
        n * self.natural_bits() / 8 <= i64::MAX as u128
    }

    /// Physical order, major to minor: (logical dim, size, tile or 1).
    fn physical(&self) -> Vec<(usize, u128, Option<u128>)> {
        let rank = self.dims.len();
        let tile = self.tile.clone().unwrap_or_default();
        (0..rank)
            .map(|p| {
                let d = self.m2m[rank - 1 - p] as usize;
                // The tile lines up with the most-minor dimensions.
                let t = (p + tile.len()).checked_sub(rank).map(|j| tile[j] as u128);
                (d, self.dims[d] as u128, t)
            })
            .collect()
    }

    /// Π S before `L`, exactly (the final dims: untiled sizes, then the
    /// tile counts, then the tile sizes).
    fn slots(&self) -> Option<u128> {
        if self.dims.contains(&0) {
            return Some(0);
        }
        self.physical().iter().try_fold(1u128, |n, &(_, size, t)| {
            n.checked_mul(t.map_or(Some(size), |t| size.div_ceil(t).checked_mul(t))?)
        })
    }

    /// The slot of the last element, by the same model.
    fn last_offset(&self) -> Option<u128> {
        let phys = self.physical();
        let mut outer = Vec::new();
        let mut inner = Vec::new();
        for &(_, size, t) in &phys {
            let e = size - 1;
            match t {
                None => outer.push((e, size)),
                Some(t) => {
                    outer.push((e / t, size.div_ceil(t)));
                    inner.push((e % t, t));
                }
            }
        }
        // Untiled dims and tile counts first (in physical order), then the
        // positions inside the tile.
        let mut offset: u128 = 0;
        for &(v, extent) in outer.iter().chain(&inner) {
            offset = offset.checked_mul(extent)?.checked_add(v)?;
        }
        Some(offset)
    }

    /// XLA's `ArraySize` with one tile (spec: the first tile's rounding of
    /// the most-minor dimensions, then `L`), exactly.
    fn xla_array_size(&self) -> Option<u128> {
        let Some(tile) = &self.tile else {
            return self.xla_bytes(self.elements()?);
        };
        if self.dims.contains(&0) {
            return Some(0);
        }
        let mut n: u128 = 1;
        for (j, &d) in self.m2m.iter().enumerate() {
            let size = self.dims[d as usize] as u128;
            let f = match tile.len().checked_sub(j + 1) {
                Some(k) => size
                    .div_ceil(tile[k] as u128)
                    .checked_mul(tile[k] as u128)?,
                None => size,
            };
            n = n.checked_mul(f)?;
        }
        let n = n
            .div_ceil(self.tail as u128)
            .checked_mul(self.tail as u128)?;
        // Slot counts are 64-bit quantities, whatever the bytes come to.
        self.xla_bytes(Some(n).filter(|&n| n <= u128::from(u64::MAX))?)
    }

    fn elements(&self) -> Option<u128> {
        self.dims
            .iter()
            .try_fold(1u128, |n, &d| n.checked_mul(d as u128))
    }

    fn bytes(&self, slots: u128) -> Option<u128> {
        Some(slots.checked_mul(self.slot_bits())?.div_ceil(8))
    }

    /// `bytes` as XLA's size functions compute it, in int64: with `E`,
    /// the count times `E` is one before it is divided.
    fn xla_bytes(&self, slots: u128) -> Option<u128> {
        let bits = slots.checked_mul(self.slot_bits())?;
        if self.bits != 0 && bits > i64::MAX as u128 {
            return None;
        }
        Some(bits.div_ceil(8)).filter(|&b| b <= i64::MAX as u128)
    }
}

/// `Ok(v)` when `want` fits in 64 bits, else some error.
fn agrees<E: std::fmt::Debug>(
    what: &str,
    got: Result<u64, E>,
    want: Option<u128>,
) -> Result<(), TestCaseError> {
    match (got, want.filter(|&w| w <= u128::from(u64::MAX))) {
        (Ok(g), Some(w)) => prop_assert_eq!(u128::from(g), w, "{}", what),
        (Err(_), None) => {}
        (g, w) => prop_assert!(false, "{}: got {:?}, want {:?}", what, g, w),
    }
    Ok(())
}

/// How many cases reached each outcome, to keep the generator honest.
static REACHED: [std::sync::atomic::AtomicUsize; 4] =
    [const { std::sync::atomic::AtomicUsize::new(0) }; 4];

fn reached(k: usize) {
    REACHED[k].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

#[test]
fn the_cases_reach_every_outcome() {
    // Runs the property on its own and counts: invalid, overflow, tiled,
    // bit offset overflow.
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 2000,
        ..ProptestConfig::default()
    });
    runner.run(&case(), check).unwrap();
    let counts: Vec<usize> = REACHED
        .iter()
        .map(|c| c.load(std::sync::atomic::Ordering::Relaxed))
        .collect();
    eprintln!("outcomes reached: {counts:?}");
    assert!(
        counts.iter().all(|&c| c >= 20),
        "outcomes reached: {counts:?}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn sizes_are_exact_or_overflow(c in case()) {
        check(c)?;
    }
}

fn check(c: Case) -> Result<(), TestCaseError> {
    let shape = c.shape();
    if !c.valid() {
        reached(0);
        // Validation refuses it; nothing is computed.
        prop_assert!(shape.validate().is_err());
        prop_assert!(matches!(shape.tiled(), Err(AddressError::Invalid(_))));
        return Ok(());
    }
    prop_assert!(shape.validate().is_ok(), "{}", shape);
    agrees("element_count", shape.element_count(), c.elements())?;
    // XLA's ByteSizeOf is an int64 too.
    agrees(
        "xla_byte_size_of",
        shape.xla_byte_size_of(),
        c.elements()
            .and_then(|n| c.xla_bytes(n))
            .filter(|&v| v <= i64::MAX as u128),
    )?;
    // XLA's ArraySize is an int64: past it, an overflow.
    agrees(
        "xla_array_size",
        shape.xla_array_size(),
        c.xla_array_size().filter(|&v| v <= i64::MAX as u128),
    )?;
    let strides = shape.xla_unpacked_byte_strides();
    let mut stride = u128::from(c.ty.byte_width().unwrap());
    let mut want = vec![0u128; c.dims.len()];
    let mut fits = true;
    for &d in &c.m2m {
        want[d as usize] = stride;
        stride = stride.saturating_mul(c.dims[d as usize] as u128);
        fits &= stride <= u128::from(u64::MAX);
    }
    match strides {
        Ok(s) => prop_assert_eq!(
            s.as_slice()
                .iter()
                .map(|&v| u128::from(v))
                .collect::<Vec<_>>(),
            want
        ),
        Err(_) => prop_assert!(!fits),
    }

    let slots = c.slots();
    let allocated = slots.and_then(|s| s.div_ceil(c.tail as u128).checked_mul(c.tail as u128));
    let bytes = allocated.and_then(|a| c.bytes(a));
    match shape.tiled() {
        Ok(t) => {
            reached(2);
            prop_assert_eq!(Some(u128::from(t.tiled_slots())), slots);
            prop_assert_eq!(Some(u128::from(t.physical_slots())), allocated);
            prop_assert_eq!(Some(u128::from(t.exact_bytes())), bytes);
            let total = allocated.and_then(|a| a.checked_mul(c.slot_bits()));
            prop_assert_eq!(
                t.total_bits().map(u128::from),
                total.filter(|&b| b <= u128::from(u64::MAX))
            );
            if t.element_count() > 0 {
                let last: Vec<u64> = c.dims.iter().map(|&d| d as u64 - 1).collect();
                let off = c.last_offset();
                agrees("offset", t.offset(&last), off)?;
                let bit = off.and_then(|o| o.checked_mul(c.slot_bits()));
                match t.bit_offset(&last) {
                    Ok(b) => prop_assert_eq!(Some(u128::from(b)), bit),
                    Err(IndexError::BitOffsetOverflow { .. }) => {
                        reached(3);
                        prop_assert!(bit.is_none_or(|b| b > u128::from(u64::MAX)))
                    }
                    Err(e) => prop_assert!(false, "bit_offset: {:?}", e),
                }
                let round_trip = t.logical_index(t.offset(&last).unwrap()).unwrap().unwrap();
                prop_assert_eq!(round_trip.as_slice(), &last[..]);
                // XLA's ArrayDataSize: LinearIndex of the last element
                // (rank 1 ignores tiles), plus one.
                let linear = if c.dims.len() == 1 {
                    Some(c.dims[0] as u128 - 1)
                } else {
                    off
                };
                agrees(
                    "xla_array_data_size",
                    shape.xla_array_data_size(),
                    linear.and_then(|l| c.xla_bytes(l + 1)),
                )?;
            }
        }
        Err(AddressError::Overflow) => {
            reached(1);
            let max = u128::from(u64::MAX);
            prop_assert!(
                allocated.is_none_or(|a| a > max) || bytes.is_none_or(|b| b > max),
                "{}: {:?}",
                shape,
                bytes
            );
        }
        Err(e) => prop_assert!(false, "{}: {:?}", shape, e),
    }
    Ok(())
}

/// `MAX_COORDS` bounds the tiling program (see its proof): a scalar whose
/// one tile has every entry reaches it — each entry pads the shape by one
/// dimension, then splits into an outer and an inner part — and tiles
/// with `*`, over several levels or on a rank of 16 stay within it.
/// `push` has no check of its own: this is the proof's test.
#[test]
fn tiling_programs_fit_max_coords() {
    use xla_layout_core::{MAX_COORDS, MAX_RANK, MAX_TILE_ENTRIES, TiledShape};
    let coords = |text: &str| {
        let shape = ArrayShape::parse_validated(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let tiled = TiledShape::new(&shape).unwrap_or_else(|e| panic!("{text}: {e}"));
        (tiled.coords().len(), tiled.dims().len())
    };
    let ones = |n: usize| vec!["1"; n].join(",");
    let full = MAX_TILE_ENTRIES;
    assert_eq!(
        coords(&format!("f32[]{{:T({})}}", ones(full))),
        (MAX_COORDS, 2 * full)
    );
    // The second tile finds 16 dimensions: it pads none.
    assert_eq!(
        coords(&format!(
            "f32[]{{:T({})({})}}",
            ones(full / 2),
            ones(full / 2)
        ))
        .0,
        3 * full / 2 + full
    );
    let dims = vec!["2"; MAX_RANK].join(",");
    let m2m = (0..MAX_RANK)
        .rev()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(",");
    assert_eq!(
        coords(&format!("f32[{dims}]{{{m2m}:T({})}}", ones(full))),
        (MAX_RANK + 2 * full, MAX_RANK + full)
    );
    let stars = format!("{},1", vec!["*"; full - 1].join(","));
    assert_eq!(
        coords(&format!("f32[]{{:T({stars})}}")).0,
        full + (full - 1) + 2
    );
    for text in [
        format!("f32[{dims}]{{{m2m}:T({stars})}}"),
        format!("f32[3]{{0:T({})(1,1,1,1)(1,1,1,1)(1,1,1,1)}}", ones(4)),
        format!("f32[{dims}]{{{m2m}:T({})({})}}", ones(8), ones(8)),
    ] {
        assert!(coords(&text).0 <= MAX_COORDS, "{text}");
    }
}

/// The digit decomposition holds two layouts of the most final
/// coordinates there can be (32 each: 16 dimensions, each tiled): its
/// capacity, `MAX_DIGITS`, is sized for that, not from `MAX_COORDS`
/// (sized from it once, it overflowed here).
#[test]
fn bitcasts_of_the_most_final_coordinates() {
    use xla_layout_core::{Comparison, MAX_RANK, TiledShape};
    let dims = vec!["4"; MAX_RANK].join(",");
    let m2m = (0..MAX_RANK)
        .rev()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let tile = vec!["2"; MAX_RANK].join(",");
    let text = format!("f32[{dims}]{{{m2m}:T({tile})}}");
    let t = TiledShape::new(&ArrayShape::parse_validated(&text).unwrap()).unwrap();
    assert_eq!(t.dims().len(), 2 * MAX_RANK);
    assert_eq!(t.bitcast_compatible(&t), Comparison::Yes);
    // The same bytes untiled are another order of them.
    let plain = format!("f32[{dims}]{{{m2m}}}");
    let u = TiledShape::new(&ArrayShape::parse_validated(&plain).unwrap()).unwrap();
    assert_ne!(t.bitcast_compatible(&u), Comparison::Yes);
}
