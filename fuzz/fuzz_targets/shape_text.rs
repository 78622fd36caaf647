//! Shape text: parse → validate → print → reparse (byte-identical) → tile
//! → offsets in bounds, distinct, and inverted by `logical_index`.
//!
//! The work per input is bounded: at most `SAMPLES` sampled indices and
//! slots, or every one of them when the array is small.
#![no_main]

use std::collections::HashSet;

use libfuzzer_sys::fuzz_target;
use xla_layout_core::text::{ParseOptions, parse_array_with_spans};
use xla_layout_core::{ArrayShape, Layout, Shape, TiledShape, validate_array};
use xla_layout_fuzz::Sampler;

/// Indices and slots checked per shape when not all of them.
const SAMPLES: u64 = 64;
/// Arrays of at most this many elements (or slots) are checked whole.
const WHOLE: u64 = 4096;

fuzz_target!(|data: &[u8]| {
    // Bytes that are not UTF-8 go through the byte-level parser.
    let _ = xla_layout_core::text::parse_shape(data);
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    array(text, data);
    shape(text);
    layout(text);
});

fn array(text: &str, data: &[u8]) {
    let parsed = ArrayShape::parse(text);
    let validated = ArrayShape::parse_validated(text);
    // FromStr is parse_validated.
    assert_eq!(
        text.parse::<ArrayShape>().is_ok(),
        validated.is_ok(),
        "FromStr and parse_validated disagree on {text:?}"
    );
    let a = match parsed {
        Ok(a) => a,
        Err(e) => {
            let _ = e.to_string();
            let _ = e.with_source(data).to_string();
            let _ = e.xla_message(text).to_string();
            for d in e.diagnostics() {
                let _ = d.explain(data).to_string();
                // A refused `P(...)` reparses its layout from the input.
                let _ = d.message(data).to_string();
            }
            assert!(validated.is_err(), "{text:?} validates but does not parse");
            return;
        }
    };
    // Validation: the same verdict as the validating parser.
    let valid = validate_array(&a).is_ok();
    assert_eq!(
        valid,
        validated.is_ok(),
        "{text:?}: validate and parse_validated disagree"
    );
    let printed = a.to_string();
    if let Err(e) = &validated {
        let _ = e.to_string();
        // Printing an invalid shape is canonical too, where it reparses
        // (some never do, in XLA as here: `{0:#(f32)}` prints as
        // `{0:#(invalid)}`).
        if let Ok(again) = ArrayShape::parse(&printed) {
            assert_eq!(
                again.to_string(),
                printed,
                "{text:?}: printing is not stable"
            );
        }
        return;
    }
    // A valid shape: print → reparse → print gives the same bytes, the
    // same logical shape, and a valid shape again. (Not always the same
    // model: as XLA's, the printer leaves out values it treats as unset,
    // such as `M(-4)`.)
    let again = ArrayShape::parse(&printed)
        .unwrap_or_else(|e| panic!("{text:?} printed as {printed:?}, which does not parse: {e}"));
    assert!(
        again.same_logical_shape(&a),
        "{text:?} → {printed:?} reparses differently"
    );
    // The layout too, by XLA's equality (which ignores `M`, the one value
    // the printer may leave out of a valid layout).
    assert!(
        again.layout_or_default().xla_equal(&a.layout_or_default()),
        "{text:?} → {printed:?} reparses to another layout"
    );
    assert_eq!(
        again.to_string(),
        printed,
        "{text:?}: printing is not stable"
    );
    assert!(
        ArrayShape::parse_validated(&printed).is_ok(),
        "{text:?} is valid, its printed form {printed:?} is not"
    );
    // Strict parsing refuses only what XLA's parser reads past: never the
    // printer's own text of a valid shape.
    let strict = ParseOptions::default().with_strict(true);
    assert!(
        parse_array_with_spans(printed.as_bytes(), strict).is_ok(),
        "{printed:?} is canonical and valid, and strict parsing refuses it"
    );
    // Whatever strict parsing accepts, the default parse reads the same.
    if let Ok((s, _)) = parse_array_with_spans(data, strict) {
        assert_eq!(Some(s), ArrayShape::parse(text).ok(), "{text:?}");
    }
    // The printed shape is addressed as the original.
    let tiled = a.tiled();
    assert_eq!(
        format!("{tiled:?}"),
        format!("{:?}", again.tiled()),
        "{text:?} and {printed:?} tile differently"
    );
    if let Ok(t) = tiled {
        addresses(&t, text, data);
    }
}

fn addresses(t: &TiledShape, text: &str, data: &[u8]) {
    let slots = t.physical_slots();
    let elements = t.element_count();
    assert!(t.tiled_slots() <= slots, "{text:?}: {t:?}");
    assert!(
        elements <= slots || elements == 0,
        "{text:?}: {elements} elements, {slots} slots"
    );
    assert!(t.data_bytes() <= t.exact_bytes(), "{text:?}: {t:?}");
    assert!(
        t.logical_index(slots).is_err(),
        "{text:?}: slot {slots} is past the end"
    );
    if let Some(bits) = t.total_bits() {
        assert_eq!(Some(bits), slots.checked_mul(t.element_bits()));
    }
    let dims = t.logical_dims().to_vec();
    if dims.contains(&0) {
        return;
    }
    // Out of bounds in each dimension, and of the wrong rank: errors.
    for d in 0..dims.len() {
        let mut index = vec![0; dims.len()];
        index[d] = dims[d];
        assert!(
            t.offset(&index).is_err(),
            "{text:?}: {index:?} is out of bounds"
        );
    }
    assert!(t.offset(&vec![0; dims.len() + 1]).is_err());
    let mut rng = Sampler::new(data);
    let hierarchical = t.hierarchical().ok();
    let check = |index: &[u64]| -> u64 {
        let offset = t
            .offset(index)
            .unwrap_or_else(|e| panic!("{text:?}: offset of {index:?}: {e}"));
        if let Some(h) = &hierarchical {
            assert_eq!(h.offset(index), Ok(offset), "{text:?}: {h} at {index:?}");
        }
        assert!(
            offset < slots,
            "{text:?}: {index:?} at {offset} of {slots} slots"
        );
        let back = t
            .logical_index(offset)
            .unwrap_or_else(|e| panic!("{text:?}: logical_index({offset}): {e}"));
        assert_eq!(
            back.as_deref(),
            Some(index),
            "{text:?}: {index:?} is at {offset}, which holds {back:?}"
        );
        if let Some(bits) = t.total_bits() {
            let bit = t
                .bit_offset(index)
                .expect("bit offsets fit when the total does");
            assert!(bit < bits);
        }
        offset
    };
    let mut seen = HashSet::new();
    if elements <= WHOLE {
        // Every index, in row-major order.
        let mut index = vec![0u64; dims.len()];
        'all: loop {
            let offset = check(&index);
            assert!(
                seen.insert(offset),
                "{text:?}: two indices at slot {offset}"
            );
            // The next index, row-major; past the last, done.
            let mut d = dims.len();
            loop {
                if d == 0 {
                    break 'all;
                }
                d -= 1;
                index[d] += 1;
                if index[d] < dims[d] {
                    break;
                }
                index[d] = 0;
            }
        }
        assert_eq!(seen.len() as u64, elements);
    } else {
        // The corners, then random indices; distinct indices, distinct slots.
        let mut indices: Vec<Vec<u64>> =
            vec![vec![0; dims.len()], dims.iter().map(|&d| d - 1).collect()];
        for _ in 0..SAMPLES {
            indices.push(dims.iter().map(|&d| rng.below(d)).collect());
        }
        let mut distinct = HashSet::new();
        for index in &indices {
            let offset = check(index);
            if distinct.insert(index.clone()) {
                assert!(
                    seen.insert(offset),
                    "{text:?}: two indices at slot {offset}"
                );
            }
        }
    }
    // Slots: each one that holds an element holds the index that maps to it.
    let slot_check = |slot: u64| -> bool {
        match t.logical_index(slot) {
            Ok(Some(index)) => {
                assert_eq!(
                    t.offset(&index),
                    Ok(slot),
                    "{text:?}: slot {slot} holds {index:?}"
                );
                true
            }
            Ok(None) => false,
            Err(e) => panic!("{text:?}: logical_index({slot}) of {slots}: {e}"),
        }
    };
    if slots <= WHOLE {
        let held = (0..slots).filter(|&s| slot_check(s)).count() as u64;
        assert_eq!(
            held, elements,
            "{text:?}: {held} slots hold elements, not {elements}"
        );
    } else {
        for _ in 0..SAMPLES {
            slot_check(rng.below(slots));
        }
        slot_check(0);
        slot_check(slots - 1);
    }
}

fn shape(text: &str) {
    let validated = Shape::parse_validated(text);
    let Ok(s) = Shape::parse(text) else {
        assert!(validated.is_err(), "{text:?} validates but does not parse");
        return;
    };
    let printed = s.to_string();
    let Ok(again) = Shape::parse(&printed) else {
        assert!(
            validated.is_err(),
            "{text:?} is valid, its printed form {printed:?} does not parse"
        );
        return;
    };
    assert_eq!(
        again.to_string(),
        printed,
        "{text:?}: printing is not stable"
    );
    if validated.is_ok() {
        assert!(
            Shape::parse_validated(&printed).is_ok(),
            "{text:?} is valid, its printed form {printed:?} is not"
        );
    }
}

fn layout(text: &str) {
    let Ok(l) = Layout::parse(text) else {
        return;
    };
    // Some layouts that parse do not print back to text that parses (see
    // `array`); those that do print the same text again.
    let printed = l.to_string();
    if let Ok(again) = Layout::parse(&printed) {
        assert_eq!(
            again.to_string(),
            printed,
            "{text:?}: printing is not stable"
        );
    }
}
