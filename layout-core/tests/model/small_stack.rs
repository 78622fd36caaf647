//! The firmware path — parse, validate, tile, offset — for layouts of rank
//! up to 8 runs on a small stack without an allocator's help (the types
//! are fixed-size values; docs/firmware.md has their sizes). A thread asked
//! for 16 KiB gets at least glibc's minimum plus room for its thread-local
//! storage, so this is the weaker check; `examples/firmware` measures the
//! chain on a painted stack of its own in a release build and holds it to
//! 16 KiB (docs/firmware.md, "Stack").

use xla_layout_core::{ArrayShape, DynView, DynViewMut, TiledShape};

const LAYOUTS: [&str; 6] = [
    "bf16[2,3,4,5,6,7,8,256]{7,6,5,4,3,2,1,0:T(8,128)(2,1)}",
    "f32[3,5]{1,0:T(2,2)}",
    "s4[8,1,1280,16384]{3,2,0,1:T(8,128)(8,1)E(4)S(1)}",
    "f32[8,8,64]{2,1,0:T(*,16,64)}",
    "pred[33,129,2,2,2,2,2,2]{0,1,2,3,4,5,6,7:T(32,128)(32,1)L(1024)}",
    "bf16[4096]{0:T(1024)(128)(2,1)}",
];

/// The slot of the last element, parsed, validated and tiled from text;
/// nothing on the heap (the first allocation of a thread sets up the
/// allocator's arena, which takes stack of its own).
fn last_slot(text: &str) -> Option<u64> {
    let shape = ArrayShape::parse_validated(text).ok()?;
    let tiled = TiledShape::new(&shape).ok()?;
    let mut last = [0u64; 8];
    for (l, &d) in last.iter_mut().zip(tiled.logical_dims()) {
        *l = d - 1;
    }
    tiled.offset(&last[..tiled.rank()]).ok()
}

fn all() -> [Option<u64>; LAYOUTS.len()] {
    let mut out = [None; LAYOUTS.len()];
    for (o, text) in out.iter_mut().zip(LAYOUTS) {
        *o = last_slot(text);
    }
    out
}

/// A runtime view's reads and writes over `f32[3,5]{1,0:T(2,2)}` (24
/// slots): the sum of every element after setting each to its slot, the
/// count of elements in memory order, and the padding slots (filled with
/// -1) as a bit mask.
fn through_runtime_views(tiled: &TiledShape) -> Option<(f32, usize, u32)> {
    let mut data = [0.0f32; 24];
    let mut v = DynViewMut::new(tiled, &mut data).ok()?;
    for r in 0..3 {
        for c in 0..5 {
            let slot = tiled.offset(&[r, c]).ok()?;
            v.set(&[r, c], slot as f32).ok()?;
        }
    }
    v.fill_padding(-1.0);
    let v = DynView::new(tiled, &data).ok()?;
    let mut padding = 0u32;
    for (s, &x) in data.iter().enumerate() {
        padding |= u32::from(x == -1.0) << s;
    }
    Some((
        v.iter().map(|(_, x)| x).sum(),
        v.iter_physical().count(),
        padding,
    ))
}

/// Firmware builds a layout's tiled form once (the path the test below
/// runs on a 16 KiB stack) and keeps it; views then borrow it.
#[test]
fn runtime_views_fit_in_16_kib() {
    let tiled = ArrayShape::parse_validated(LAYOUTS[1])
        .unwrap()
        .tiled()
        .unwrap();
    let on_small_stack = std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(16 << 10)
            .spawn_scoped(s, || through_runtime_views(&tiled))
            .unwrap()
            .join()
            .unwrap()
    });
    let (sum, count, mask) = on_small_stack.unwrap();
    // The slots of the 15 elements (tiled_layout.md figure 1) sum to 124;
    // the other 9 of the 24 slots are padding.
    assert_eq!((sum, count), (124.0, 15));
    let padding: Vec<u32> = (0..24).filter(|&s| mask >> s & 1 == 1).collect();
    assert_eq!(padding, [9, 11, 14, 15, 18, 19, 21, 22, 23]);
}

#[test]
fn parse_validate_tile_offset_fit_in_16_kib() {
    let expected = all();
    let on_small_stack = std::thread::Builder::new()
        .stack_size(16 << 10)
        .spawn(all)
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(on_small_stack, expected);
    assert!(expected.iter().all(Option::is_some), "{expected:?}");
    // tiled_layout.md figure 1: the last element of f32[3,5] in 2x2 tiles.
    assert_eq!(expected[1], Some(20));
}

/// The sizes docs/firmware.md states (64-bit), as budgets: growing a type
/// past them is a decision to make in the docs too.
#[test]
#[cfg(target_pointer_width = "64")]
fn sizes_stay_within_budget() {
    use xla_layout_core::{Layout, Relayout, ValidationError, text::ParseError};
    assert!(size_of::<ArrayShape>() <= 752);
    assert!(size_of::<Layout>() <= 600);
    assert!(size_of::<TiledShape>() <= 2592);
    assert!(size_of::<Relayout>() <= 11648);
    assert!(size_of::<ParseError>() <= 168);
    assert!(size_of::<ValidationError>() <= 792);
    assert_eq!(size_of::<DynView<'_, f32>>(), 24);
}

/// docs/firmware.md's advice for text from outside: parsing with
/// `max_depth` 1 refuses a `P`'s inner shape (and tuples, `b(...)`)
/// before reading into it, whose recursion costs a small stack about
/// 3.7 KiB a level; ordinary arrays parse as before.
#[test]
fn shallow_parsing_refuses_nested_shapes_and_reads_arrays() {
    use xla_layout_core::text::{ParseOptions, parse_shape_with};
    let shallow = ParseOptions::default().with_max_depth(1);
    for text in [
        "f32[4]{0:P(f32[4]{0:P(f32[4])})}",
        "(f32[2], s32[])",
        "b(f32[2]{0})",
    ] {
        assert!(
            parse_shape_with(text.as_bytes(), shallow).is_err(),
            "{text}"
        );
    }
    for text in LAYOUTS {
        let shape = parse_shape_with(text.as_bytes(), shallow).unwrap();
        assert_eq!(
            shape.as_array(),
            Some(&ArrayShape::parse(text).unwrap()),
            "{text}"
        );
    }
}
