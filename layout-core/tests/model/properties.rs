//! Property-based tests of layout-core against the semantics in
//! docs/xla-layouts.md (sections §a, §c, §d, §e).
//!
//! Run with
//! `cargo test -p xla-layout-core --features std --release --test model -- properties::`.
//!
//! The address properties compare `TiledShape` against `reference`, a naive
//! transcription of docs/xla-layouts.md §d.1 written for this file (it does not share code
//! or structure with `src/address/tiled.rs`).

#![cfg(feature = "std")]

use proptest::prelude::*;
use proptest::sample::{Index, select};
use proptest::test_runner::Config;
use xla_layout_core::text::{
    ParseOptions, parse_array, parse_array_with_spans, parse_layout, parse_shape,
};
use xla_layout_core::{
    AddressError, ArrayShape, COMBINE, Dim, ElementType, IndexError, Layout, Shape,
    ValidationErrorKind, validate, validate_with_optional_layout,
};

/// Generated arrays with more logical elements than this are skipped.
const MAX_ELEMENTS: u64 = 4096;
/// Generated arrays with more physical slots than this are skipped.
const MAX_SLOTS: u64 = 65536;

/// `cases` in release builds (the intended way to run this file); a tenth
/// of them in unoptimised builds, so that `cargo test --workspace` (CI)
/// stays quick.
fn config(cases: u32) -> Config {
    let cases = if cfg!(debug_assertions) {
        (cases / 10).max(16)
    } else {
        cases
    };
    Config {
        cases,
        // Do not write `*.proptest-regressions` files next to this test.
        failure_persistence: None,
        ..Config::default()
    }
}

// ---------------------------------------------------------------------------
// The generator (property 1)
// ---------------------------------------------------------------------------

/// A generated array shape, in plain vectors, from which both the crate's
/// `ArrayShape` (through its const builders) and the reference are computed.
#[derive(Clone, Debug)]
struct Spec {
    ty: ElementType,
    /// Sizes (the bound for bounded dimensions).
    dims: Vec<u64>,
    /// Which dimensions are bounded dynamic (`<=N`).
    bounded: Vec<bool>,
    m2m: Vec<usize>,
    /// `None` is the `*` entry.
    tiles: Vec<Vec<Option<u64>>>,
    /// `L(n)`.
    tail: u64,
    /// `E(n)`.
    e_bits: i64,
    /// `S(n)`.
    mem: i8,
    /// `M(n)`.
    meta: i64,
    /// `SC(d:i,...)`: physical dimension and split indices.
    splits: Vec<(usize, Vec<u64>)>,
    /// `#(t)` (only used by the print/parse property; validation rejects it).
    index_type: Option<ElementType>,
    /// `*(t)` (likewise).
    pointer_type: Option<ElementType>,
}

impl Spec {
    fn rank(&self) -> usize {
        self.dims.len()
    }

    fn has_combine(&self) -> bool {
        self.tiles.iter().flatten().any(Option::is_none)
    }

    fn layout(&self) -> Layout {
        let m2m: Vec<i64> = self.m2m.iter().map(|&d| d as i64).collect();
        let tiles: Vec<Vec<i64>> = self
            .tiles
            .iter()
            .map(|t| t.iter().map(|e| e.map_or(COMBINE, |v| v as i64)).collect())
            .collect();
        let tile_refs: Vec<&[i64]> = tiles.iter().map(Vec::as_slice).collect();
        let splits: Vec<(i64, Vec<i64>)> = self
            .splits
            .iter()
            .map(|(d, ix)| (*d as i64, ix.iter().map(|&i| i as i64).collect()))
            .collect();
        let split_refs: Vec<(i64, &[i64])> =
            splits.iter().map(|(d, ix)| (*d, ix.as_slice())).collect();
        let mut l = Layout::new(&m2m)
            .with_tiles(&tile_refs)
            .with_tail_padding_alignment(self.tail as i64)
            .with_element_size_in_bits(self.e_bits)
            .with_memory_space(self.mem)
            .with_dynamic_shape_metadata_prefix_bytes(self.meta)
            .with_split_configs(&split_refs);
        if let Some(t) = self.index_type {
            l = l.with_index_primitive_type(t);
        }
        if let Some(t) = self.pointer_type {
            l = l.with_pointer_primitive_type(t);
        }
        l
    }

    fn shape(&self) -> ArrayShape {
        let base = if self.bounded.iter().any(|&b| b) {
            let dims: Vec<Dim> = self
                .dims
                .iter()
                .zip(&self.bounded)
                .map(|(&n, &b)| {
                    if b {
                        Dim::Bounded(n as i64)
                    } else {
                        Dim::Static(n as i64)
                    }
                })
                .collect();
            ArrayShape::from_dims(self.ty, &dims)
        } else {
            let dims: Vec<i64> = self.dims.iter().map(|&n| n as i64).collect();
            ArrayShape::new(self.ty, &dims)
        };
        base.with_layout(self.layout())
    }

    /// Storage bits per element (docs/xla-layouts.md §e `bytes(n)`): E, or 8·ByteWidth.
    fn element_bits(&self) -> u64 {
        if self.e_bits != 0 {
            self.e_bits as u64
        } else {
            8 * u64::from(self.ty.byte_width().unwrap())
        }
    }

    /// docs/xla-layouts.md §e `bytes(n)`: `⌈n·E/8⌉` with E, else `n·ByteWidth`
    /// (`None` on `u128` overflow).
    fn bytes128(&self, n: u128) -> Option<u128> {
        if self.e_bits != 0 {
            Some(n.checked_mul(self.e_bits as u128)?.div_ceil(8))
        } else {
            n.checked_mul(u128::from(self.ty.byte_width().unwrap()))
        }
    }

    /// `bytes128` as XLA's size functions compute it, in int64: with `E`,
    /// `n·E` is one before it is divided (docs/xla-layouts.md §e).
    fn xla_bytes128(&self, n: u128) -> Option<u128> {
        if self.e_bits != 0 && n.checked_mul(self.e_bits as u128)? > i64::MAX as u128 {
            return None;
        }
        self.bytes128(n).filter(|&b| b <= i64::MAX as u128)
    }

    /// docs/xla-layouts.md §e `bytes(n)`, for small shapes.
    fn bytes(&self, n: u64) -> u64 {
        u64::try_from(self.bytes128(u128::from(n)).unwrap()).unwrap()
    }

    /// `Elems` (`None` on `u128` overflow).
    fn element_count128(&self) -> Option<u128> {
        if self.dims.contains(&0) {
            return Some(0);
        }
        self.dims
            .iter()
            .try_fold(1u128, |acc, &d| acc.checked_mul(u128::from(d)))
    }

    /// `Elems`, for small shapes.
    fn element_count(&self) -> u64 {
        u64::try_from(self.element_count128().unwrap()).unwrap()
    }

    /// The size gate: few enough logical elements and allocated slots to
    /// enumerate them all.
    fn small_enough(&self) -> bool {
        let elems = self
            .dims
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(d));
        let zeros = vec![0; self.rank()];
        let slots = reference(&self.dims, &self.m2m, &self.tiles, &zeros)
            .and_then(|(s, _)| allocated(&s, self.tail));
        matches!(elems, Some(e) if e <= MAX_ELEMENTS)
            && matches!(slots, Some(n) if n <= u128::from(MAX_SLOTS))
    }
}

/// Knobs of the generator.
#[derive(Clone, Copy, Debug)]
struct Gen {
    min_rank: usize,
    max_rank: usize,
    min_tiles: usize,
    max_tiles: usize,
    /// Allow `*` entries (never in the most-minor position of a tile).
    combine: bool,
    /// Tiles have 1..=rank+oversize entries.
    oversize: usize,
    /// Allow split configs.
    splits: bool,
    /// Draw dimension sizes, tile entries and `E` from wide ranges (up to
    /// 2^63 − 1) to reach overflow.
    huge: bool,
}

const GENERAL: Gen = Gen {
    min_rank: 0,
    max_rank: 6,
    min_tiles: 0,
    max_tiles: 4,
    combine: true,
    oversize: 2,
    splits: true,
    huge: false,
};

fn array_types() -> Vec<ElementType> {
    ElementType::ALL
        .iter()
        .copied()
        .filter(|t| t.is_array_type())
        .collect()
}

fn dim_size(huge: bool) -> BoxedStrategy<u64> {
    let small = prop_oneof![
        1 => Just(0u64),
        8 => 1u64..=4,
        4 => 5u64..=9,
        1 => 10u64..=100,
    ];
    if huge {
        prop_oneof![
            3 => small,
            1 => (10u32..=62).prop_map(|k| 1u64 << k),
            1 => (1u64 << 20)..=(i64::MAX as u64),
            1 => select(vec![i64::MAX as u64, 3_037_000_499, 3_037_000_500, 4_294_967_296]),
        ]
        .boxed()
    } else {
        small.boxed()
    }
}

/// A positive tile entry.
fn tile_size(huge: bool) -> BoxedStrategy<u64> {
    if huge {
        prop_oneof![
            3 => 1u64..=8,
            1 => select(vec![128u64, 1024, 1 << 20, 1 << 31, (1 << 40) + 3, i64::MAX as u64]),
        ]
        .boxed()
    } else {
        (1u64..=8).boxed()
    }
}

fn tile_entry(combine: bool, huge: bool) -> BoxedStrategy<Option<u64>> {
    if combine {
        prop_oneof![3 => tile_size(huge).prop_map(Some), 1 => Just(None)].boxed()
    } else {
        tile_size(huge).prop_map(Some).boxed()
    }
}

/// One tile of `1..=max_len` entries; the most-minor entry is never `*`.
fn tile(max_len: usize, combine: bool, huge: bool) -> impl Strategy<Value = Vec<Option<u64>>> {
    (1..=max_len.max(1)).prop_flat_map(move |len| {
        (
            prop::collection::vec(tile_entry(combine, huge), len - 1),
            tile_size(huge),
        )
            .prop_map(|(mut t, last)| {
                t.push(Some(last));
                t
            })
    })
}

fn element_size(huge: bool) -> BoxedStrategy<i64> {
    let small = prop_oneof![
        3 => Just(0i64),
        1 => select(vec![1i64, 2, 4, 8, 16, 32]),
        1 => 1i64..=64,
    ];
    if huge {
        prop_oneof![4 => small, 1 => 1i64..=i64::MAX].boxed()
    } else {
        small.boxed()
    }
}

/// Raw material for one split config: which physical dimension, and
/// candidate indices (made valid in `fix_splits`).
type RawSplit = (Index, Vec<Index>);

/// Turns raw split material into valid split configs (docs/xla-layouts.md §c, §f 19-22):
/// distinct physical dimensions in [0, R); indices strictly increasing, > 0
/// and < the size of logical dimension `Major(layout, d) = m2m[R-1-d]`.
fn fix_splits(dims: &[u64], m2m: &[usize], raw: Vec<RawSplit>) -> Vec<(usize, Vec<u64>)> {
    let r = dims.len();
    let mut out: Vec<(usize, Vec<u64>)> = Vec::new();
    if r == 0 {
        return out;
    }
    for (d, ix) in raw {
        let d = d.index(r);
        if out.iter().any(|(e, _)| *e == d) {
            continue;
        }
        let n = dims[m2m[r - 1 - d]];
        let mut indices: Vec<u64> = if n >= 2 {
            ix.iter()
                .map(|i| 1 + i.index(n as usize - 1) as u64)
                .collect()
        } else {
            Vec::new()
        };
        indices.sort_unstable();
        indices.dedup();
        out.push((d, indices));
    }
    out
}

fn spec_strategy(g: Gen) -> impl Strategy<Value = Spec> {
    (g.min_rank..=g.max_rank).prop_flat_map(move |rank| {
        let max_splits = if g.splits { 2 } else { 0 };
        (
            select(array_types()),
            prop::collection::vec(dim_size(g.huge), rank),
            prop::collection::vec(prop::bool::weighted(0.15), rank),
            Just((0..rank).collect::<Vec<usize>>()).prop_shuffle(),
            prop::collection::vec(
                tile(rank + g.oversize, g.combine, g.huge),
                g.min_tiles..=g.max_tiles,
            ),
            prop_oneof![3 => Just(1u64), 1 => select(vec![1u64, 2, 3, 8, 1024])],
            element_size(g.huge),
            prop_oneof![4 => Just(0i8), 1 => any::<i8>()],
            prop_oneof![4 => Just(0i64), 1 => 0i64..=4096],
            prop_oneof![
                3 => prop::collection::vec(
                    (any::<Index>(), prop::collection::vec(any::<Index>(), 0..=3)),
                    0..=0,
                ),
                1 => prop::collection::vec(
                    (any::<Index>(), prop::collection::vec(any::<Index>(), 0..=3)),
                    0..=max_splits,
                ),
            ],
        )
            .prop_map(
                |(ty, dims, bounded, m2m, mut tiles, tail, e_bits, mem, meta, raw_splits)| {
                    let splits = fix_splits(&dims, &m2m, raw_splits);
                    // Within the crate's capacity for tile entries.
                    while tiles.iter().map(Vec::len).sum::<usize>()
                        > xla_layout_core::MAX_TILE_ENTRIES
                    {
                        tiles.pop();
                    }
                    Spec {
                        ty,
                        dims,
                        bounded,
                        m2m,
                        tiles,
                        tail,
                        e_bits,
                        mem,
                        meta,
                        splits,
                        index_type: None,
                        pointer_type: None,
                    }
                },
            )
    })
}

// ---------------------------------------------------------------------------
// The reference (docs/xla-layouts.md §d.1), written from the docs' text
// ---------------------------------------------------------------------------

/// docs/xla-layouts.md §d.1 steps 1 and 2: the final shape `S` and the index `x` in it,
/// in `u128` with checked arithmetic (`None` if a size overflows `u128`).
fn reference(
    dims: &[u64],
    m2m: &[usize],
    tiles: &[Vec<Option<u64>>],
    e: &[u64],
) -> Option<(Vec<u128>, Vec<u128>)> {
    let r = dims.len();
    // Step 1: physical order, major to minor.
    let mut s: Vec<u128> = (0..r).map(|p| u128::from(dims[m2m[r - 1 - p]])).collect();
    let mut x: Vec<u128> = (0..r).map(|p| u128::from(e[m2m[r - 1 - p]])).collect();
    // Step 2: each tile in order.
    for t in tiles {
        // 2.1 Oversized tile: leading size-1 dimensions with index 0.
        while s.len() < t.len() {
            s.insert(0, 1);
            x.insert(0, 0);
        }
        // 2.2 Align: the suffix of |T| positions lines up with T.
        let split = s.len() - t.len();
        let prefix_s = s[..split].to_vec();
        let prefix_x = x[..split].to_vec();
        let mut suf_s = s[split..].to_vec();
        let mut suf_x = x[split..].to_vec();
        let mut suf_t = t.clone();
        // 2.3 Combine: major to minor, a `*` at j merges j into j+1.
        let mut j = 0;
        while j < suf_t.len() {
            if suf_t[j].is_none() {
                assert!(j + 1 < suf_t.len(), "`*` in the most-minor tile position");
                let size = suf_s[j].checked_mul(suf_s[j + 1])?;
                let index = suf_x[j]
                    .checked_mul(suf_s[j + 1])?
                    .checked_add(suf_x[j + 1])?;
                suf_s[j + 1] = size;
                suf_x[j + 1] = index;
                suf_s.remove(j);
                suf_x.remove(j);
                suf_t.remove(j);
            } else {
                j += 1;
            }
        }
        // 2.4 Tile: prefix ++ outer ++ inner.
        let t: Vec<u128> = suf_t.iter().map(|v| u128::from(v.unwrap())).collect();
        let mut new_s = prefix_s;
        let mut new_x = prefix_x;
        for i in 0..t.len() {
            new_s.push(suf_s[i].div_ceil(t[i]));
            new_x.push(suf_x[i] / t[i]);
        }
        for i in 0..t.len() {
            new_s.push(t[i]);
            new_x.push(suf_x[i] % t[i]);
        }
        s = new_s;
        x = new_x;
    }
    Some((s, x))
}

/// docs/xla-layouts.md §d.1 step 3: `Σ x[j]·Π_{l>j} S[l]` (`None` on `u128` overflow).
fn linearise(s: &[u128], x: &[u128]) -> Option<u128> {
    let mut linear: u128 = 0;
    for j in 0..s.len() {
        let mut stride: u128 = 1;
        for &size in &s[j + 1..] {
            stride = stride.checked_mul(size)?;
        }
        linear = linear.checked_add(x[j].checked_mul(stride)?)?;
    }
    Some(linear)
}

/// `N = Π S`.
fn slot_count(s: &[u128]) -> Option<u128> {
    if s.contains(&0) {
        return Some(0);
    }
    s.iter().try_fold(1u128, |acc, &d| acc.checked_mul(d))
}

/// `N_alloc = ⌈N/L⌉·L`.
fn allocated(s: &[u128], tail: u64) -> Option<u128> {
    slot_count(s)?
        .div_ceil(u128::from(tail))
        .checked_mul(u128::from(tail))
}

/// The reference offset of a logical index, for a small shape.
fn ref_offset(dims: &[u64], m2m: &[usize], tiles: &[Vec<Option<u64>>], e: &[u64]) -> u64 {
    let (s, x) = reference(dims, m2m, tiles, e).unwrap();
    u64::try_from(linearise(&s, &x).unwrap()).unwrap()
}

/// The reference final shape, for a small shape.
fn ref_dims(spec: &Spec) -> Vec<u64> {
    let zeros = vec![0; spec.rank()];
    let (s, _) = reference(&spec.dims, &spec.m2m, &spec.tiles, &zeros).unwrap();
    s.into_iter().map(|d| u64::try_from(d).unwrap()).collect()
}

/// Every logical index of `dims`, in row-major order.
fn all_indices(dims: &[u64]) -> Vec<Vec<u64>> {
    let mut out = Vec::new();
    if dims.contains(&0) {
        return out;
    }
    let mut idx = vec![0u64; dims.len()];
    loop {
        out.push(idx.clone());
        let mut d = dims.len();
        loop {
            if d == 0 {
                return out;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < dims[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

// ---------------------------------------------------------------------------
// Sanity checks of the reference against the worked examples of docs/xla-layouts.md §d.3
// ---------------------------------------------------------------------------

#[test]
fn reference_reproduces_spec_examples() {
    let t = |v: &[i64]| -> Vec<Option<u64>> {
        v.iter()
            .map(|&e| if e < 0 { None } else { Some(e as u64) })
            .collect()
    };
    // Example 1.
    assert_eq!(ref_offset(&[3, 5], &[1, 0], &[t(&[2, 2])], &[2, 3]), 17);
    assert_eq!(
        reference(&[3, 5], &[1, 0], &[t(&[2, 2])], &[0, 0])
            .unwrap()
            .0,
        [2, 3, 2, 2]
    );
    // Example 2.
    assert_eq!(ref_offset(&[3, 5], &[0, 1], &[t(&[2, 2])], &[2, 4]), 20);
    // Example 3.
    assert_eq!(
        ref_offset(&[4, 8], &[1, 0], &[t(&[2, 4]), t(&[2, 1])], &[3, 7]),
        31
    );
    // Example 4.
    assert_eq!(
        ref_offset(&[8, 8], &[1, 0], &[t(&[2, 4]), t(&[2, 1, 1, 1])], &[6, 5]),
        51
    );
    // Example 5.
    assert_eq!(ref_offset(&[8], &[0], &[t(&[2, 2])], &[5]), 9);
    assert_eq!(
        reference(&[], &[], &[t(&[128])], &[])
            .unwrap()
            .0
            .iter()
            .product::<u128>(),
        128
    );
    // Example 6.
    let ex6 = [t(&[1024]), t(&[128]), t(&[2, 1])];
    assert_eq!(
        reference(&[2048], &[0], &ex6, &[0]).unwrap().0,
        [2, 4, 128, 2, 1]
    );
    for (i, o) in [(0, 0), (128, 1), (1, 2), (127, 254), (129, 3), (1024, 1024)] {
        assert_eq!(ref_offset(&[2048], &[0], &ex6, &[i]), o);
    }
    // Example 8.
    assert_eq!(
        ref_offset(
            &[2, 7, 8, 11, 10],
            &[4, 3, 2, 1, 0],
            &[t(&[-1, -1, 2, -1, 3])],
            &[1, 2, 3, 4, 5]
        ),
        8307
    );
    assert_eq!(
        ref_offset(
            &[2, 3, 1004],
            &[2, 1, 0],
            &[t(&[2, -1, 128])],
            &[1, 2, 1003]
        ),
        6083
    );
    // Example 10.
    assert_eq!(ref_offset(&[10, 20, 30], &[1, 2, 0], &[], &[3, 5, 7]), 1945);
}

// ---------------------------------------------------------------------------
// Properties 1-3: generated shapes are valid; offsets match the reference;
// the slot map is a bijection onto the non-padding slots
// ---------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(10000))]

    /// Property 1 + 2: generated shapes validate; `TiledShape` agrees with
    /// the docs/xla-layouts.md §d.1 reference on the final shape, the slot counts and the
    /// offset of every logical index.
    #[test]
    fn offsets_match_reference(spec in spec_strategy(GENERAL)) {
        let shape = spec.shape();
        prop_assert_eq!(shape.validate(), Ok(()), "{}", shape);
        if !spec.small_enough() {
            return Ok(());
        }
        let t = shape.tiled().expect("a valid, small shape tiles");
        let ref_s = ref_dims(&spec);
        prop_assert_eq!(t.dims(), &ref_s[..], "{}", shape);
        prop_assert_eq!(t.logical_dims(), &spec.dims[..]);
        prop_assert_eq!(t.rank(), spec.rank());
        let wide: Vec<u128> = ref_s.iter().map(|&d| u128::from(d)).collect();
        prop_assert_eq!(u128::from(t.tiled_slots()), slot_count(&wide).unwrap());
        prop_assert_eq!(u128::from(t.physical_slots()), allocated(&wide, spec.tail).unwrap());
        prop_assert_eq!(t.element_count(), spec.element_count());
        prop_assert_eq!(t.element_bits(), spec.element_bits());
        for idx in all_indices(&spec.dims) {
            let want = ref_offset(&spec.dims, &spec.m2m, &spec.tiles, &idx);
            prop_assert_eq!(t.offset(&idx), Ok(want), "{} at {:?}", shape, idx);
            prop_assert_eq!(t.bit_offset(&idx), Ok(want * spec.element_bits()));
        }
        // Bad indices are refused, not mis-addressed.
        if spec.rank() > 0 {
            let mut bad = vec![0; spec.rank()];
            bad[0] = spec.dims[0];
            let refused = matches!(t.offset(&bad), Err(IndexError::OutOfBounds { dim: 0, .. }));
            prop_assert!(refused);
        }
        let wrong_rank = vec![0; spec.rank() + 1];
        let refused = matches!(t.offset(&wrong_rank), Err(IndexError::WrongRank { .. }));
        prop_assert!(refused);
    }

    /// Property 3: offsets are distinct and inside the allocation;
    /// `logical_index` inverts `offset`; exactly `element_count` slots are
    /// not padding; slots past `tiled_slots()` (L tail padding) are padding.
    #[test]
    fn slot_map_is_a_bijection(spec in spec_strategy(GENERAL)) {
        if !spec.small_enough() {
            return Ok(());
        }
        let shape = spec.shape();
        let t = shape.tiled().expect("a valid, small shape tiles");
        let slots = t.physical_slots();
        prop_assert!(t.tiled_slots() <= slots);
        let mut owner: Vec<Option<Vec<u64>>> = vec![None; slots as usize];
        for idx in all_indices(&spec.dims) {
            let o = t.offset(&idx).unwrap();
            prop_assert!(o < slots, "{}: offset {} of {:?} >= {}", shape, o, idx, slots);
            prop_assert!(owner[o as usize].is_none(), "{}: slot {} used twice", shape, o);
            let back = t.logical_index(o).unwrap();
            prop_assert_eq!(back.as_ref().map(|p| p.as_slice()), Some(&idx[..]));
            owner[o as usize] = Some(idx);
        }
        let mut real = 0u64;
        for o in 0..slots {
            match t.logical_index(o) {
                Ok(Some(idx)) => {
                    real += 1;
                    prop_assert_eq!(
                        owner[o as usize].as_deref(),
                        Some(idx.as_slice()),
                        "{}: slot {}", shape, o
                    );
                    prop_assert!(o < t.tiled_slots(), "{}: tail slot {} is not padding", shape, o);
                }
                Ok(None) => prop_assert!(owner[o as usize].is_none(), "{}: slot {}", shape, o),
                Err(e) => prop_assert!(false, "{}: logical_index({}) failed: {}", shape, o, e),
            }
        }
        prop_assert_eq!(real, t.element_count());
        prop_assert_eq!(real, spec.element_count());
        let out_of_range = matches!(
            t.logical_index(slots),
            Err(IndexError::OffsetOutOfRange { .. })
        );
        prop_assert!(out_of_range);
    }

    /// Property 1 (the error case): a `*` in the most-minor position of a
    /// tile is reported by the validator (docs/xla-layouts.md §d.1 step 2.3), and such a
    /// shape does not tile.
    #[test]
    fn combine_in_most_minor_position_is_rejected(
        spec in spec_strategy(Gen { min_tiles: 1, ..GENERAL }),
        which in any::<Index>(),
    ) {
        let mut spec = spec;
        let k = which.index(spec.tiles.len());
        let last = spec.tiles[k].len() - 1;
        spec.tiles[k][last] = None;
        let first_bad = spec.tiles.iter().position(|t| t.last() == Some(&None)).unwrap();
        let shape = spec.shape();
        let err = shape.validate().expect_err("`*` in the most minor position");
        prop_assert_eq!(
            err.kind(),
            ValidationErrorKind::CombineInMostMinorPosition { tile: first_bad },
            "{}", shape
        );
        prop_assert!(!err.kind().is_xla_rule());
        let invalid = matches!(shape.tiled(), Err(AddressError::Invalid(_)));
        prop_assert!(invalid);
    }
}

// ---------------------------------------------------------------------------
// Property 4: print → parse → print
// ---------------------------------------------------------------------------

/// The generator of property 1, sometimes with `#(t)`, `*(t)` of integral
/// types (printable and parseable, though validation rejects them) and a
/// negative `M(n)`.
fn roundtrip_spec() -> impl Strategy<Value = Spec> {
    let integral: Vec<ElementType> = array_types()
        .into_iter()
        .filter(|t| t.is_integral())
        .collect();
    (
        spec_strategy(GENERAL),
        prop_oneof![4 => Just(None), 1 => select(integral.clone()).prop_map(Some)],
        prop_oneof![4 => Just(None), 1 => select(integral).prop_map(Some)],
        prop_oneof![6 => Just(None), 1 => (i64::MIN..0).prop_map(Some)],
    )
        .prop_map(|(mut s, index_type, pointer_type, negative_meta)| {
            s.index_type = index_type;
            s.pointer_type = pointer_type;
            if let Some(m) = negative_meta {
                s.meta = m;
            }
            s
        })
}

/// docs/xla-layouts.md §a.4 tuple printing: `", "` separators, `/*index=i*/` before every
/// fifth element.
fn tuple_text(elems: &[String]) -> String {
    let mut out = String::from("(");
    for (i, e) in elems.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
            if i % 5 == 0 {
                out.push_str(&format!("/*index={i}*/"));
            }
        }
        out.push_str(e);
    }
    out.push(')');
    out
}

proptest! {
    #![proptest_config(config(8000))]

    /// Property 4: printing is stable under parsing, and parsing the printed
    /// text of a builder-made shape gives back the same `ArrayShape`.
    #[test]
    fn print_parse_print(spec in roundtrip_spec()) {
        let shape = spec.shape();
        // A negative `M(n)` is not printed (docs/xla-layouts.md §a.4, §a.5: "M(<0)" is a
        // default that is omitted), so it reads back as 0: compare with the
        // shape whose M is 0. Every other field is printed.
        let expected = if spec.meta < 0 {
            Spec { meta: 0, ..spec.clone() }.shape()
        } else {
            shape
        };
        let text = shape.to_string();
        let parsed = ArrayShape::parse(&text);
        prop_assert!(parsed.is_ok(), "{:?} does not parse: {:?}", text, parsed);
        let parsed = parsed.unwrap();
        prop_assert_eq!(parsed.to_string(), text.clone());
        prop_assert_eq!(parsed, expected, "{}", text);
        prop_assert_eq!(Shape::parse(&text), Ok(Shape::Array(expected)));
        prop_assert_eq!(parse_array(text.as_bytes()), Ok(expected));
        // Strict parsing refuses only what XLA reads past; what the
        // printer writes is never that, except a `#`/`*` type that is
        // not unsigned (XLA's parser complains and keeps it).
        let strict = ParseOptions::default().with_strict(true);
        let signed = |t: Option<ElementType>| t.is_some_and(|t| !t.is_unsigned_integral());
        let refused = signed(spec.index_type) || signed(spec.pointer_type);
        let strictly = parse_array_with_spans(text.as_bytes(), strict).map(|(a, _)| a);
        if refused {
            prop_assert!(strictly.is_err(), "{}", text);
        } else {
            prop_assert_eq!(strictly, Ok(expected), "{}", text);
        }

        // The layout alone (docs/xla-layouts.md §a.2 bare layouts, `{}` included).
        let layout_text = shape.layout().unwrap().to_string();
        let layout = parse_layout(layout_text.as_bytes());
        prop_assert_eq!(layout, Ok(*expected.layout().unwrap()), "{}", layout_text);
        prop_assert_eq!(Layout::parse(&layout_text).unwrap().to_string(), layout_text);

        // Without a layout the parser fills in the default one (docs/xla-layouts.md §a.3.3).
        let bare = shape.without_layout().to_string();
        prop_assert!(text.starts_with(&bare));
        let defaulted = ArrayShape::parse(&bare).unwrap();
        prop_assert_eq!(
            defaulted,
            expected.with_layout(Layout::default_for_rank(spec.rank()))
        );

        // Inside a buffer.
        let buffer = format!("b({text})");
        let parsed = Shape::parse(&buffer);
        prop_assert_eq!(parsed.as_ref().map(ToString::to_string), Ok(buffer.clone()));
        prop_assert_eq!(parsed, Ok(Shape::Buffer(expected)));
    }

    /// Property 4 for tuples: the printed form follows docs/xla-layouts.md §a.4 and
    /// parses back to the same shapes.
    ///
    /// The elements carry no `#(t)` / `*(t)`: XLA's parser builds tuples
    /// with `ShapeUtil::MakeValidatedTupleShape` (hlo_parser.cc,
    /// `ParseShape`), so a tuple element that fails validation fails the
    /// parse, and the crate does the same (`InvalidTupleElement`). docs/xla-layouts.md §a.3
    /// does not list this check; XLA's source and the crate agree on it.
    #[test]
    fn tuple_print_parse_print(specs in prop::collection::vec(roundtrip_spec(), 0..=11)) {
        let specs: Vec<Spec> = specs
            .into_iter()
            .map(|s| Spec { index_type: None, pointer_type: None, ..s })
            .collect();
        let shapes: Vec<Shape> = specs.iter().map(|s| Shape::Array(s.shape())).collect();
        let expected: Vec<Shape> = specs
            .iter()
            .map(|s| Shape::Array(Spec { meta: s.meta.max(0), ..s.clone() }.shape()))
            .collect();
        let tuple = Shape::Tuple(shapes.clone());
        let texts: Vec<String> = shapes.iter().map(ToString::to_string).collect();
        let text = tuple.to_string();
        prop_assert_eq!(&text, &tuple_text(&texts));
        let parsed = Shape::parse(&text);
        prop_assert_eq!(parsed.as_ref().map(ToString::to_string), Ok(text.clone()));
        prop_assert_eq!(parsed, Ok(Shape::Tuple(expected)));
    }
}

/// Nested tuples of arrays, buffers, tokens and opaques, built as values.
fn nested_shape() -> impl Strategy<Value = Shape> {
    let array = prop_oneof![
        Just("f32[2,3]{0,1}"),
        Just("bf16[8,128]{1,0:T(8,128)(2,1)}"),
        Just("s4[16]{0:E(4)}"),
        Just("pred[]"),
        Just("u8[64,1024]{1,0:T(8,128)(4,1)S(1)}"),
    ]
    .prop_map(|t| parse_array(t.as_bytes()).unwrap());
    let leaf = prop_oneof![
        array.clone().prop_map(Shape::Array),
        array.prop_map(Shape::Buffer),
        Just(Shape::Token),
        Just(Shape::Opaque),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop::collection::vec(inner, 0..=4).prop_map(Shape::Tuple)
    })
}

proptest! {
    #![proptest_config(config(256))]

    /// Every element of a nested shape lands in its own place: the parser
    /// builds elements in place inside the open tuples (a bookkeeping the
    /// flat tuple property above does not exercise).
    #[test]
    fn nested_print_parse(shape in nested_shape()) {
        let text = shape.to_string();
        prop_assert_eq!(Shape::parse(&text), Ok(shape));
    }
}

// ---------------------------------------------------------------------------
// Property 5: arbitrary bytes never panic
// ---------------------------------------------------------------------------

const TOKENS: &[&[u8]] = &[
    b"f32",
    b"s4",
    b"u1",
    b"pred",
    b"bf16",
    b"c128",
    b"f8e4m3fn",
    b"u32",
    b"s32",
    b"token",
    b"opaque",
    b"opaque_type",
    b"tuple",
    b"buffer",
    b"F32",
    b"b",
    b"[",
    b"]",
    b"{",
    b"}",
    b"(",
    b")",
    b",",
    b":",
    b"T",
    b"L",
    b"E",
    b"S",
    b"SC",
    b"P",
    b"M",
    b"D",
    b"C",
    b"H",
    b"#",
    b"*",
    b"<=",
    b"<",
    b"=",
    b"?",
    b"+",
    b"~",
    b"0",
    b"1",
    b"2",
    b"3",
    b"8",
    b"128",
    b"123",
    b"-5",
    b"-1",
    b"-0",
    b"255",
    b"256",
    b"18446744073709551616",
    b"18446744073709551615",
    b"9223372036854775807",
    b"9223372036854775808",
    b"-9223372036854775808",
    b"-9223372036854775809",
    b"99999999999999999999999999",
    b"1.5",
    b"1e3",
    b"2x3",
    b"1_2",
    b"b01f_0o",
    b" ",
    b"\t",
    b"\n",
    b"/*",
    b"*/",
    b"//",
    b"/*index=5*/",
    b"\0",
    b"\xff",
    b"\xc3",
    b"\xe2\x89\xa4",
    b"{0}",
    b"{1,0",
    b"{1,0:",
    b"T(8,128)(2,1)",
    b"T(*,2)",
    b"L(1024)",
    b"E(4)",
    b"S(1)",
    b"SC(0:1,2)",
    b"M(8)",
    b"D(D+~,C)",
    b"#(u32)",
    b"*(s32)",
    b"P(f32[2]{0})",
    b"f32[2,3]",
    b"f32[]",
    b"b(",
    b"((",
];

/// A byte string: random tokens, random bytes, or a mix.
fn fuzz_input() -> impl Strategy<Value = Vec<u8>> {
    let token = select(TOKENS).prop_map(<[u8]>::to_vec);
    let byte = any::<u8>().prop_map(|b| vec![b]);
    prop_oneof![
        4 => prop::collection::vec(token.clone(), 0..48).prop_map(|v| v.concat()),
        1 => prop::collection::vec(any::<u8>(), 0..64),
        2 => prop::collection::vec(prop_oneof![4 => token, 1 => byte], 0..48)
            .prop_map(|v| v.concat()),
    ]
}

/// Deep nesting: `n` openers, something, maybe `n` closers, maybe junk.
fn deep_input() -> impl Strategy<Value = Vec<u8>> {
    (
        select(vec![
            (&b"("[..], &b")"[..]),
            (b"b(", b")"),
            (b"((", b"))"),
            (b"(f32[], ", b")"),
            (b"f32[1]{0:P(", b")}"),
            (b"b((", b"))"),
            (b"{", b"}"),
            (b"[", b"]"),
        ]),
        0usize..=20_000,
        select(vec![
            &b""[..],
            b"f32[]",
            b"f32[2]{0}",
            b"token[]",
            b")",
            b"s4[3]{0:T(2)E(4)}",
        ]),
        any::<bool>(),
        prop::collection::vec(select(TOKENS), 0..4),
    )
        .prop_map(|((open, close), n, middle, closed, junk)| {
            let mut v = open.repeat(n);
            v.extend_from_slice(middle);
            if closed {
                v.extend(close.repeat(n));
            }
            for j in junk {
                v.extend_from_slice(j);
            }
            v
        })
}

/// Exercises everything that takes an array; none of it may panic.
fn exercise_array(a: &ArrayShape) {
    let _ = a.to_string();
    let _ = a.without_layout().to_string();
    let _ = a.validate();
    let _ = a.element_count();
    let _ = a.xla_array_size();
    let _ = a.xla_array_data_size();
    let _ = a.xla_byte_size_of();
    let _ = a.xla_byte_strides();
    let _ = a.xla_unpacked_byte_strides();
    if let Some(l) = a.layout() {
        let _ = l.to_string();
    }
    let zeros = vec![0u64; a.rank()];
    let _ = a.xla_linear_index(&zeros);
    if let Ok(t) = a.tiled() {
        let _ = t.dims();
        let _ = t.exact_bytes();
        if t.element_count() > 0 {
            let _ = t.offset(&zeros);
            let last: Vec<u64> = t.logical_dims().iter().map(|d| d - 1).collect();
            let _ = t.offset(&last);
            let _ = a.xla_linear_index(&last);
        }
        let _ = t.logical_index(0);
        let _ = t.logical_index(t.physical_slots().saturating_sub(1));
        let _ = t.logical_index(t.physical_slots());
    }
}

fn exercise_shape(s: &Shape) {
    let text = s.to_string();
    let _ = s.without_layout().to_string();
    let _ = validate(s);
    let _ = validate_with_optional_layout(s);
    let _ = s.xla_byte_size_of(8);
    // Walk the tree with an explicit stack (it may be 8192 levels deep).
    let mut stack = vec![s];
    let mut arrays = 0;
    while let Some(s) = stack.pop() {
        match s {
            Shape::Array(a) | Shape::Buffer(a) => {
                if arrays < 64 {
                    exercise_array(a);
                    arrays += 1;
                }
            }
            Shape::Tuple(elems) => {
                let _ = s.xla_byte_size_of(8);
                stack.extend(elems.iter());
            }
            Shape::Token | Shape::Opaque => {}
        }
    }
    // One print → parse round makes the text canonical, except where the
    // printed form cannot be read back (docs/xla-layouts.md §a.5: `#(invalid)`).
    match Shape::parse(&text) {
        Ok(again) => assert_eq!(again.to_string(), text, "reprint of {text:?}"),
        Err(e) => assert!(
            text.contains("invalid"),
            "printed text {text:?} does not parse: {e}"
        ),
    }
}

fn exercise_bytes(input: &[u8]) {
    if let Ok(s) = parse_shape(input) {
        exercise_shape(&s);
    }
    if let Ok(a) = parse_array(input) {
        exercise_array(&a);
    }
    if let Ok(l) = parse_layout(input) {
        let text = l.to_string();
        if !text.contains("invalid") {
            let again = parse_layout(text.as_bytes());
            assert_eq!(
                again.map(|l| l.to_string()),
                Ok(text.clone()),
                "reprint of {text:?}"
            );
        }
    }
    if let Ok(text) = core::str::from_utf8(input) {
        let _ = ArrayShape::parse_validated(text);
        let _ = Shape::parse_validated(text);
        let _ = Layout::parse(text);
    }
}

proptest! {
    #![proptest_config(config(100000))]

    /// Property 5: parsing arbitrary bytes, and everything one can do with
    /// what parses, never panics.
    #[test]
    fn arbitrary_bytes_never_panic(input in fuzz_input()) {
        exercise_bytes(&input);
    }
}

proptest! {
    #![proptest_config(config(256))]

    /// Property 5 with deep nesting (docs/xla-layouts.md §a.2: at most 8192 levels).
    #[test]
    fn deep_nesting_never_panics(input in deep_input()) {
        exercise_bytes(&input);
    }
}

/// docs/xla-layouts.md §a.2 nesting limit: 8192 levels parse, 8193 do not (the outermost
/// shape is level 1). Also docs/xla-layouts.md §a.3.12: a buffer wraps only an array.
#[test]
fn nesting_limit() {
    let ok = format!("{}f32[]{}", "(".repeat(8191), ")".repeat(8191));
    let parsed = Shape::parse(&ok).expect("8192 levels");
    assert_eq!(parsed.to_string(), ok);
    let too_deep = format!("{}f32[]{}", "(".repeat(8192), ")".repeat(8192));
    let err = Shape::parse(&too_deep).unwrap_err();
    assert!(
        err.to_string().contains("maximum recursion depth exceeded"),
        "{err}"
    );
    assert!(Shape::parse("b(b(f32[]))").is_err());
    assert!(Shape::parse("b((f32[]))").is_err());
}

// ---------------------------------------------------------------------------
// Property 6: XLA's LinearIndex (docs/xla-layouts.md §d.2)
// ---------------------------------------------------------------------------

const NO_COMBINE: Gen = Gen {
    combine: false,
    max_tiles: 3,
    ..GENERAL
};

proptest! {
    #![proptest_config(config(10000))]

    /// Property 6: `xla_linear_index` is 0 on scalars, `e[0]` on rank 1
    /// (tiles ignored), the plain stride formula without tiles, and on
    /// rank ≥ 2 uses only the first tile: it agrees with the §d.1 reference
    /// restricted to the first tile when that tile has ≤ R entries, and so
    /// with `TiledShape::offset` when that is the only tile.
    #[test]
    fn xla_linear_index_agrees(spec in spec_strategy(NO_COMBINE)) {
        if !spec.small_enough() {
            return Ok(());
        }
        let shape = spec.shape();
        let t = shape.tiled().unwrap();
        let r = spec.rank();
        let first_tile_fits = spec.tiles.first().is_none_or(|t| t.len() <= r);
        for idx in all_indices(&spec.dims) {
            let xla = shape.xla_linear_index(&idx);
            let offset = t.offset(&idx).unwrap();
            if r == 0 {
                prop_assert_eq!(xla, Ok(0));
            } else if r == 1 {
                prop_assert_eq!(xla, Ok(idx[0]), "{}", shape);
            } else if first_tile_fits {
                let first = &spec.tiles[..spec.tiles.len().min(1)];
                let want = ref_offset(&spec.dims, &spec.m2m, first, &idx);
                prop_assert_eq!(xla, Ok(want), "{} at {:?}", shape, idx);
                if spec.tiles.len() <= 1 {
                    prop_assert_eq!(xla, Ok(offset), "{} at {:?}", shape, idx);
                }
            }
            if spec.tiles.is_empty() {
                prop_assert_eq!(xla, Ok(offset), "{} at {:?}", shape, idx);
            }
        }
    }

    /// Property 6, the exact case asked for: rank ≥ 2, one tile of at most
    /// R entries, no `*`.
    #[test]
    fn xla_linear_index_single_tile(
        spec in spec_strategy(Gen {
            min_rank: 2,
            min_tiles: 1,
            max_tiles: 1,
            oversize: 0,
            ..NO_COMBINE
        })
    ) {
        if !spec.small_enough() {
            return Ok(());
        }
        let shape = spec.shape();
        let t = shape.tiled().unwrap();
        for idx in all_indices(&spec.dims) {
            prop_assert_eq!(
                shape.xla_linear_index(&idx),
                Ok(t.offset(&idx).unwrap()),
                "{} at {:?}", shape, idx
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Property 7: byte sizes (docs/xla-layouts.md §e)
// ---------------------------------------------------------------------------

/// docs/xla-layouts.md §e `ArraySize`, transcribed: first tile only, `MaxSplitSize`, `L`
/// only with tiles (`None` on `u128` overflow).
fn spec_array_size(spec: &Spec) -> Option<u128> {
    spec.xla_bytes128(spec_array_slots(spec)?)
}

/// The element count `N` inside docs/xla-layouts.md §e `ArraySize` (before `bytes`).
fn spec_array_slots(spec: &Spec) -> Option<u128> {
    let r = spec.rank();
    if spec.tiles.is_empty() {
        return spec.element_count128();
    }
    // A zero-size dimension is a zero factor of the product, whatever the
    // other factors (XLA's product is 0 too).
    if spec.dims.contains(&0) {
        return Some(0);
    }
    let t: Vec<u128> = spec.tiles[0]
        .iter()
        .map(|e| u128::from(e.unwrap()))
        .collect();
    let k = t.len();
    // p_j: the j-th most-minor logical dimension's MaxSplitSize.
    let p = |j: usize| -> u128 {
        let logical = spec.m2m[j];
        let size = spec.dims[logical];
        let piece = match spec
            .splits
            .iter()
            .find(|(d, _)| spec.m2m[r - 1 - d] == logical)
        {
            None => size,
            Some((_, indices)) => {
                let mut bounds = vec![0];
                bounds.extend(indices);
                bounds.push(size);
                bounds.windows(2).map(|w| w[1] - w[0]).max().unwrap()
            }
        };
        u128::from(piece)
    };
    let mut n: u128 = 1;
    for j in 0..k {
        let pj = if j < r { p(j) } else { 1 };
        n = n.checked_mul(pj.div_ceil(t[k - 1 - j]).checked_mul(t[k - 1 - j])?)?;
    }
    for j in k..r {
        n = n.checked_mul(p(j))?;
    }
    if spec.tail != 1 {
        let l = u128::from(spec.tail);
        n = n.div_ceil(l).checked_mul(l)?;
    }
    Some(n)
}

/// Whether every tile after the first divides the dimensions it covers
/// (after the oversized-tile padding of §d.1 step 2.1).
fn later_tiles_divide(spec: &Spec) -> bool {
    let zeros = vec![0; spec.rank()];
    (1..spec.tiles.len()).all(|level| {
        let (mut s, _) = reference(&spec.dims, &spec.m2m, &spec.tiles[..level], &zeros).unwrap();
        let t = &spec.tiles[level];
        while s.len() < t.len() {
            s.insert(0, 1);
        }
        let suffix = &s[s.len() - t.len()..];
        suffix
            .iter()
            .zip(t)
            .all(|(&d, e)| d % u128::from(e.unwrap()) == 0)
    })
}

proptest! {
    #![proptest_config(config(20000))]

    /// Property 7: `ByteSizeOf`, `ArraySize`, `ArrayDataSize`, the exact
    /// size and the byte strides as docs/xla-layouts.md §e defines them.
    #[test]
    fn byte_sizes(spec in spec_strategy(GENERAL)) {
        if !spec.small_enough() {
            return Ok(());
        }
        let shape = spec.shape();
        let t = shape.tiled().unwrap();
        let exact = t.exact_bytes();
        // Exact size: bytes(roundup(Π S_final, L)).
        prop_assert_eq!(exact, spec.bytes(t.physical_slots()));
        // ByteSizeOf = bytes(Elems): no tiles, L, splits.
        prop_assert_eq!(shape.xla_byte_size_of(), Ok(spec.bytes(spec.element_count())));
        prop_assert_eq!(shape.element_count(), Ok(spec.element_count()));

        // UnpackedByteStrides: m2m order, from ByteWidth, ignoring tiles/E.
        let mut strides = vec![0u64; spec.rank()];
        let mut stride = u64::from(spec.ty.byte_width().unwrap());
        for &d in &spec.m2m {
            strides[d] = stride;
            stride *= spec.dims[d];
        }
        let unpacked = shape.xla_unpacked_byte_strides().unwrap();
        prop_assert_eq!(unpacked.as_slice(), &strides[..]);
        let packed = shape.xla_byte_strides().unwrap();
        if spec.e_bits % 8 == 0 {
            prop_assert_eq!(packed.as_ref().map(|p| p.as_slice()), Some(&strides[..]));
        } else {
            prop_assert!(packed.is_none());
        }

        // With `*`, ArraySize/ArrayDataSize are meaningless (docs/xla-layouts.md §e): only
        // "does not panic" is checked.
        if spec.has_combine() {
            let _ = shape.xla_array_size();
            let _ = shape.xla_array_data_size();
            return Ok(());
        }
        let array_size = shape.xla_array_size();
        let want = u64::try_from(spec_array_size(&spec).unwrap()).unwrap();
        prop_assert_eq!(array_size, Ok(want), "{}", shape);
        let array_size = array_size.unwrap();
        // (derived) ArraySize pads for the first tile only (and only the
        // largest split piece), the exact size for every level, and
        // `roundup(·, L)` and `bytes` are monotone: never more than exact.
        prop_assert!(array_size <= exact, "{}: ArraySize {} > exact {}", shape, array_size, exact);
        // docs/xla-layouts.md §e: equal when every later tile divides what it covers and
        // there are no split configs (and no `*`). With no tiles at all,
        // ArraySize ignores L (docs/xla-layouts.md §e), so L must be 1 there.
        if spec.splits.is_empty()
            && later_tiles_divide(&spec)
            && (!spec.tiles.is_empty() || spec.tail == 1)
        {
            prop_assert_eq!(array_size, exact, "{}", shape);
        }
        // ArrayDataSize = bytes(LinearIndex(dims − 1) + 1); 0 with no elements.
        let data = shape.xla_array_data_size();
        if spec.element_count() == 0 {
            prop_assert_eq!(data, Ok(0));
        } else {
            let last: Vec<u64> = spec.dims.iter().map(|d| d - 1).collect();
            let li = shape.xla_linear_index(&last).unwrap();
            prop_assert_eq!(data, Ok(spec.bytes(li + 1)), "{}", shape);
        }
    }

    /// Property 7, the exact case asked for: one tile level, no `*`, no
    /// split configs ⇒ `ArraySize` = exact size.
    #[test]
    fn array_size_is_exact_for_one_tile(
        spec in spec_strategy(Gen {
            min_tiles: 1,
            max_tiles: 1,
            splits: false,
            ..NO_COMBINE
        })
    ) {
        if !spec.small_enough() {
            return Ok(());
        }
        let shape = spec.shape();
        let t = shape.tiled().unwrap();
        prop_assert_eq!(shape.xla_array_size(), Ok(t.exact_bytes()), "{}", shape);
    }
}

// ---------------------------------------------------------------------------
// Properties 2 and 7 at the edge of 64 bits: huge valid shapes give the
// exact values or an overflow error, never a wrapped number
// ---------------------------------------------------------------------------

const HUGE: Gen = Gen {
    huge: true,
    ..GENERAL
};

proptest! {
    #![proptest_config(config(40000))]

    /// For valid shapes with dimensions, tiles and `E` up to 2^63 − 1:
    /// `TiledShape` (final shape, slots, exact bytes, sampled offsets and
    /// their inverses) and `ByteSizeOf` / `ArraySize` agree with the
    /// reference computed in `u128`, or report `Overflow` exactly when the
    /// value does not fit in 64 bits.
    #[test]
    fn huge_shapes_are_exact_or_overflow(
        spec in spec_strategy(HUGE),
        picks in prop::collection::vec(prop::collection::vec(any::<Index>(), 6), 4),
    ) {
        let shape = spec.shape();
        if shape.validate().is_err() {
            let invalid = matches!(shape.tiled(), Err(AddressError::Invalid(_)));
            prop_assert!(invalid, "{}", shape);
            return Ok(());
        }
        let fits = |v: Option<u128>| v.and_then(|v| u64::try_from(v).ok());
        let elems = spec.element_count128();

        // ByteSizeOf = bytes(Elems), in XLA's int64.
        let int64 = |v: Option<u128>| v.filter(|&v| v <= i64::MAX as u128);
        match fits(int64(elems.and_then(|n| spec.xla_bytes128(n)))) {
            Some(v) => prop_assert_eq!(shape.xla_byte_size_of(), Ok(v), "{}", shape),
            None => prop_assert_eq!(shape.xla_byte_size_of(), Err(AddressError::Overflow), "{}", shape),
        }

        // ArraySize (no `*`). XLA computes it in int64: a result beyond
        // 2^63 − 1 is an overflow error; when only the element count N
        // inside it exceeds 2^63 − 1, either the value or an overflow error
        // is acceptable.
        if !spec.has_combine() {
            let got = shape.xla_array_size();
            let slots = spec_array_slots(&spec);
            match spec_array_size(&spec) {
                Some(v) if v <= i64::MAX as u128 && slots.is_some_and(|n| n <= i64::MAX as u128) => {
                    prop_assert_eq!(got, Ok(v as u64), "{}", shape);
                }
                Some(v) if v <= i64::MAX as u128 => {
                    prop_assert!(got == Ok(v as u64) || got == Err(AddressError::Overflow), "{}: {:?}", shape, got);
                }
                _ => prop_assert_eq!(got, Err(AddressError::Overflow), "{}", shape),
            }
        }

        // The tiled shape.
        let zeros = vec![0; spec.rank()];
        let reference_shape = reference(&spec.dims, &spec.m2m, &spec.tiles, &zeros).map(|(s, _)| s);
        let alloc = reference_shape.as_ref().and_then(|s| allocated(s, spec.tail));
        let exact = alloc.and_then(|n| spec.bytes128(n));
        let tiled = shape.tiled();
        if elems == Some(0) {
            // ArrayDataSize is 0 with no elements (docs/xla-layouts.md §e).
            if !spec.has_combine() {
                prop_assert_eq!(shape.xla_array_data_size(), Ok(0), "{}", shape);
            }
            // No element to address: only consistency if it tiles at all.
            if let Ok(t) = tiled {
                prop_assert_eq!(t.element_count(), 0);
                if alloc.is_some() {
                    prop_assert_eq!(Some(u128::from(t.physical_slots())), alloc, "{}", shape);
                }
            }
            return Ok(());
        }
        let (Some(alloc64), Some(exact64)) = (fits(alloc), fits(exact)) else {
            prop_assert_eq!(tiled.map(|t| t.physical_slots()), Err(AddressError::Overflow), "{}", shape);
            return Ok(());
        };
        prop_assert!(tiled.is_ok(), "{}: {:?}", shape, tiled);
        let t = tiled.unwrap();
        let ref_s: Vec<u64> = reference_shape.unwrap().iter().map(|&d| d as u64).collect();
        prop_assert_eq!(t.dims(), &ref_s[..], "{}", shape);
        prop_assert_eq!(t.physical_slots(), alloc64, "{}", shape);
        prop_assert_eq!(t.exact_bytes(), exact64, "{}", shape);
        let mut samples: Vec<Vec<u64>> = picks
            .iter()
            .map(|p| spec.dims.iter().zip(p).map(|(&d, i)| i.index(d as usize) as u64).collect())
            .collect();
        samples.push(spec.dims.iter().map(|d| d - 1).collect());
        samples.push(zeros);
        for idx in samples {
            let (s, x) = reference(&spec.dims, &spec.m2m, &spec.tiles, &idx).unwrap();
            let want = linearise(&s, &x).unwrap() as u64;
            prop_assert_eq!(t.offset(&idx), Ok(want), "{} at {:?}", shape, idx);
            let back = t.logical_index(want).unwrap();
            prop_assert_eq!(back.as_ref().map(|p| p.as_slice()), Some(&idx[..]), "{}", shape);
        }
    }
}

// ---------------------------------------------------------------------------
// Property 5, grammar-aware: near-valid shape text with odd values
// ---------------------------------------------------------------------------

fn int_text() -> BoxedStrategy<String> {
    prop_oneof![
        6 => (0i64..=10).prop_map(|v| v.to_string()),
        3 => select(vec![
            "128", "1024", "0", "-1", "-5", "255", "256", "-129", "65536", "4294967296",
            "3037000500", "9223372036854775807", "-9223372036854775808",
            "9223372036854775808", "18446744073709551615", "18446744073709551616",
        ])
        .prop_map(String::from),
        1 => any::<i64>().prop_map(|v| v.to_string()),
        1 => any::<u64>().prop_map(|v| v.to_string()),
    ]
    .boxed()
}

fn type_text() -> BoxedStrategy<String> {
    let mut names: Vec<String> = array_types().iter().map(|t| t.name().to_string()).collect();
    names.extend(["token", "opaque", "tuple", "buffer", "F32"].map(String::from));
    prop_oneof![8 => Just("f32".to_string()), 4 => Just("s4".to_string()), 8 => select(names)]
        .boxed()
}

fn joined(items: Vec<String>, sep: &str) -> String {
    items.join(sep)
}

/// `{m2m:attributes}` with every attribute optional, in order, sometimes
/// out of order.
fn layout_text(rank: usize) -> BoxedStrategy<String> {
    let m2m = prop_oneof![
        4 => Just((0..rank).map(|d| d.to_string()).collect::<Vec<_>>()).prop_shuffle(),
        1 => prop::collection::vec(int_text(), 0..=rank + 1),
    ];
    let tile_entry = prop_oneof![
        8 => (1u64..=8).prop_map(|v| v.to_string()),
        2 => int_text(),
        2 => Just("*".to_string()),
    ];
    let tiles = prop::collection::vec(
        prop::collection::vec(tile_entry, 0..=rank + 2)
            .prop_map(|t| format!("({})", joined(t, ","))),
        1..=3,
    )
    .prop_map(|t| format!("T{}", t.concat()));
    let int_attr = |name: &'static str| int_text().prop_map(move |n| format!("{name}({n})"));
    let type_attr = |name: &'static str| type_text().prop_map(move |t| format!("{name}({t})"));
    let splits = prop::collection::vec(
        (int_text(), prop::collection::vec(int_text(), 0..=3))
            .prop_map(|(d, ix)| format!("({d}:{})", joined(ix, ","))),
        1..=2,
    )
    .prop_map(|v| format!("SC{}", v.concat()));
    let attrs = (
        prop::option::weighted(0.1, Just("D(D,C+~)".to_string())),
        prop::option::weighted(0.6, tiles),
        prop::option::weighted(0.3, int_attr("L")),
        prop::option::weighted(0.1, type_attr("#")),
        prop::option::weighted(0.1, type_attr("*")),
        prop::option::weighted(0.3, int_attr("E")),
        prop::option::weighted(0.2, int_attr("S")),
        prop::option::weighted(0.2, splits),
        prop::option::weighted(0.05, Just("P(f32[2]{0})".to_string())),
        prop::option::weighted(0.2, int_attr("M")),
    );
    (m2m, attrs, any::<bool>(), prop::bool::weighted(0.1))
        .prop_map(|(m2m, (d, t, l, i, p, e, s, sc, ph, m), colon, shuffle)| {
            let mut parts: Vec<String> = [d, t, l, i, p, e, s, sc, ph, m]
                .into_iter()
                .flatten()
                .collect();
            if shuffle {
                parts.reverse();
            }
            let attrs = parts.concat();
            if attrs.is_empty() && !colon {
                format!("{{{}}}", joined(m2m, ","))
            } else {
                format!("{{{}:{attrs}}}", joined(m2m, ","))
            }
        })
        .boxed()
}

fn array_text() -> BoxedStrategy<String> {
    (0usize..=5)
        .prop_flat_map(|rank| {
            let dim = prop_oneof![
                8 => prop_oneof![4 => (0u64..=9).prop_map(|d| d.to_string()), 1 => int_text()],
                1 => Just("?".to_string()),
                2 => int_text().prop_map(|d| format!("<={d}")),
            ];
            (
                type_text(),
                prop::collection::vec(dim, rank),
                prop::option::weighted(0.8, layout_text(rank)),
            )
                .prop_map(|(ty, dims, layout)| {
                    format!("{ty}[{}]{}", joined(dims, ","), layout.unwrap_or_default())
                })
        })
        .boxed()
}

fn shape_text() -> BoxedStrategy<String> {
    let leaf = prop_oneof![
        10 => array_text(),
        1 => Just("token[]".to_string()),
        1 => Just("opaque[]".to_string()),
    ];
    let nested = leaf.prop_recursive(3, 12, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..=4).prop_map(|v| format!("({})", v.join(", "))),
            inner.prop_map(|s| format!("b({s})")),
        ]
    });
    prop_oneof![3 => array_text(), 1 => nested].boxed()
}

/// Shape text, sometimes with one byte deleted, replaced or inserted.
fn mutated_shape_text() -> impl Strategy<Value = Vec<u8>> {
    (
        shape_text(),
        prop::option::weighted(0.3, (any::<Index>(), 0u8..3, select(TOKENS))),
    )
        .prop_map(|(text, mutation)| {
            let mut v = text.into_bytes();
            if let Some((at, how, token)) = mutation {
                let i = at.index(v.len() + 1);
                match how {
                    0 if i < v.len() => {
                        v.remove(i);
                    }
                    1 if i < v.len() => {
                        v.splice(i..=i, token.iter().copied());
                    }
                    _ => {
                        v.splice(i..i, token.iter().copied());
                    }
                }
            }
            v
        })
}

proptest! {
    #![proptest_config(config(60000))]

    /// Property 5 on near-valid text: parsing, printing, validating and
    /// every size and address function never panic, whatever the values.
    #[test]
    fn shape_text_never_panics(input in mutated_shape_text()) {
        exercise_bytes(&input);
    }
}

/// `tile_slots` gives first-level tiles as runs of slots only where they
/// are: the runs cover the tiled slots end to end (`L(n)`'s tail is no
/// tile), and an element's run is a function of its first-level tile, one
/// run per tile. Where a later tile pads inside a first-level tile
/// (`T(2,3)(2,2)`), the tiles are not runs of the first tile's size, and
/// there are none.
#[test]
fn first_level_tiles_are_the_runs_of_their_elements() {
    use std::collections::HashMap;
    use xla_layout_core::ArrayShape;
    for (text, runs) in [
        ("f32[4,3]{1,0:T(2,3)(2,2)}", false),
        ("f32[5,7]{1,0:T(2,4)(2,2)}", true),
        ("pred[3000]{0:T(1024)(128)(4,1)}", true),
        ("bf16[13,300]{1,0:T(8,128)(2,1)}", true),
        ("f32[3,5]{1,0:T(2,2)L(32)}", true),
        ("f32[3,5]{0,1:T(2,2)}", true),
        ("s8[3,9,300]{2,0,1:T(8,128)(4,1)}", true),
    ] {
        let a = ArrayShape::parse_validated(text).unwrap();
        let t = a.tiled().unwrap();
        let ranges: Vec<_> = (0..).map_while(|k| t.tile_slots(k)).collect();
        assert_eq!(!ranges.is_empty(), runs, "{text}");
        if !runs {
            continue;
        }
        for (k, r) in ranges.iter().enumerate() {
            let start = if k == 0 { 0 } else { ranges[k - 1].end };
            assert_eq!(r.start, start, "{text}: tile {k}");
        }
        assert_eq!(ranges.last().unwrap().end, t.tiled_slots(), "{text}");
        // The first tile covers the last dims in physical order.
        let dims: Vec<u64> = a.dims().iter().map(|&d| d as u64).collect();
        let m2m: Vec<usize> = a
            .layout()
            .unwrap()
            .minor_to_major()
            .iter()
            .map(|&d| d as usize)
            .collect();
        let first: Vec<u64> = a
            .layout()
            .unwrap()
            .tile(0)
            .iter()
            .map(|&e| e as u64)
            .collect();
        let major_to_minor: Vec<usize> = m2m.iter().rev().copied().collect();
        let mut tile_of: HashMap<Vec<u64>, usize> = HashMap::new();
        let mut index = vec![0u64; dims.len()];
        let count: u64 = dims.iter().product();
        for mut n in 0..count {
            for d in (0..dims.len()).rev() {
                index[d] = n % dims[d];
                n /= dims[d];
            }
            let offset = t.offset(&index).unwrap();
            let k = ranges.iter().position(|r| r.contains(&offset)).unwrap();
            let tiled_from = major_to_minor.len().saturating_sub(first.len());
            let key: Vec<u64> = major_to_minor
                .iter()
                .enumerate()
                .map(|(p, &d)| match p.checked_sub(tiled_from) {
                    Some(j) => {
                        index[d] / first[j + first.len() - (major_to_minor.len() - tiled_from)]
                    }
                    None => index[d],
                })
                .collect();
            assert_eq!(*tile_of.entry(key).or_insert(k), k, "{text}: {index:?}");
        }
        let mut ks: Vec<usize> = tile_of.values().copied().collect();
        ks.sort();
        ks.dedup();
        assert_eq!(ks.len(), tile_of.len(), "{text}: one run per tile");
    }
}

proptest! {
    #![proptest_config(config(3000))]

    /// `Layout::tile_run` claims only what is so: where it says the tiles
    /// of a level are runs of `size` slots, an element's slot divided by
    /// `size` is its tile at that level, counted by the reference (§d.1
    /// through that level: the coordinates before the tile's own), `*`
    /// entries included.
    #[test]
    fn tile_runs_are_the_tiles_of_their_elements(spec in spec_strategy(GENERAL)) {
        if !spec.small_enough() || spec.dims.contains(&0) {
            return Ok(());
        }
        let shape = spec.shape();
        let layout = shape.layout().unwrap();
        let t = shape.tiled().unwrap();
        for level in 0..spec.tiles.len() {
            let Some(size) = layout.tile_run(level) else { continue };
            let own = spec.tiles[level].iter().filter(|e| e.is_some()).count();
            for e in all_indices(&spec.dims) {
                let (s, x) = reference(&spec.dims, &spec.m2m, &spec.tiles[..=level], &e).unwrap();
                let outer = s.len() - own;
                let tile = linearise(&s[..outer], &x[..outer]).unwrap();
                let slot = t.offset(&e).unwrap();
                prop_assert_eq!(u128::from(slot / size), tile, "level {} of {}", level, shape);
            }
        }
    }
}
