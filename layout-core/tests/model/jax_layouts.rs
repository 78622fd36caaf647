//! JAX's layout text against JAX itself: for layouts libtpu chose, the
//! `repr` of JAX's `Layout` and XLA's shape text (recorded by
//! tools/jax_layouts/generate.py) must convert into each other exactly.
#![cfg(feature = "std")]

use xla_layout_core::text::{JaxLayoutError, parse_array_with_jax_layout, parse_jax_layout};
use xla_layout_core::{ArrayShape, Layout};

#[test]
fn both_forms_agree_with_jax() {
    let rows: Vec<serde_json::Value> = include_str!("../../../tests/data/jax_layouts.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(rows.len() >= 15);
    for row in rows {
        let (xla, jax) = (row["shape"].as_str().unwrap(), row["jax"].as_str().unwrap());
        let shape = ArrayShape::parse_validated(xla).unwrap();
        let layout = shape.layout_or_default();
        assert_eq!(layout.jax().unwrap().to_string(), jax, "{xla}");
        assert_eq!(parse_jax_layout(jax).unwrap(), layout, "{jax}");
        let bare = shape.without_layout().to_string();
        let both = format!("{bare} {jax}");
        assert_eq!(
            parse_array_with_jax_layout(&both).unwrap().unwrap(),
            shape,
            "{both}"
        );
    }
}

/// `text::parse_array_any` reads each row in all three forms to the same
/// shape: XLA's text, the bare shape with JAX's layout, and (where the
/// row is the TPU default, as `tpu::default_layout` computes it)
/// `tpu(SHAPE)`; each is validated, so a JAX order that names a
/// dimension twice is refused where `parse_array_with_jax_layout` reads it.
#[test]
fn the_three_forms_read_alike() {
    use xla_layout_core::text::{Form, parse_array_any};
    use xla_layout_core::tpu::{Generation, default_layout};
    let rows: Vec<serde_json::Value> = include_str!("../../../tests/data/jax_layouts.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut defaults = 0;
    for row in rows {
        let (xla, jax) = (row["shape"].as_str().unwrap(), row["jax"].as_str().unwrap());
        let shape = ArrayShape::parse_validated(xla).unwrap();
        let bare = shape.without_layout().to_string();
        assert_eq!(parse_array_any(xla), Ok((shape, Form::Xla)), "{xla}");
        let both = format!("{bare} {jax}");
        assert_eq!(parse_array_any(&both), Ok((shape, Form::Jax)), "{both}");
        let tpu = default_layout(shape.element_type(), shape.dims(), Generation::DEFAULT);
        if tpu.is_ok_and(|t| t == shape) {
            let request = format!("tpu({bare})");
            assert_eq!(
                parse_array_any(&request),
                Ok((shape, Form::Tpu)),
                "{request}"
            );
            defaults += 1;
        }
    }
    assert!(defaults >= 10, "{defaults} rows are TPU defaults");
    // Read, then validated: a dimension named twice.
    let twice = "f32[3,5] Layout(major_to_minor=(0, 0))";
    assert!(parse_array_with_jax_layout(twice).unwrap().is_ok());
    let e = parse_array_any(twice).unwrap_err();
    assert!(
        e.explain(twice).to_string().starts_with("validate error: "),
        "{e}"
    );
}

#[test]
fn older_and_hand_written_forms_read() {
    let read = |t: &str| parse_jax_layout(t).map(|l| l.to_string());
    assert_eq!(
        read("DeviceLocalLayout(major_to_minor=(0, 1), _tiling=((8, 128), (2, 1)))"),
        Ok("{1,0:T(8,128)(2,1)}".into())
    );
    assert_eq!(
        read("Layout(major_to_minor=(1,0),tiling=None)"),
        Ok("{0,1}".into())
    );
    assert_eq!(
        read(" Layout( tiling = ((2,),), major_to_minor = (0,) ) "),
        Ok("{0:T(2)}".into())
    );
    assert!(read("Layout(major_to_minor=(0,), major_to_minor=(0,))").is_err());
    assert!(read("Layout(tiling=((2,),))").is_err());
    assert!(read("Layout(major_to_minor=(0,)) x").is_err());
    assert!(read("Layout(major_to_minor=(99999999999999999999,))").is_err());
    // Python's one-element tuples need their comma: `(2)` is the number 2,
    // which JAX would not take for a tile (a call's lone argument needs none).
    assert_eq!(
        read("Layout(major_to_minor=(0), tiling=None)"),
        Err(xla_layout_core::text::JaxLayoutError::LoneItem(24)) // at the `)` that needs a comma before it
    );
    assert!(read("Layout(major_to_minor=(1, 0), tiling=((8, 128), (2)))").is_err());
    assert!(read("Layout(major_to_minor=(0,), tiling=((128,)))").is_err());
    assert_eq!(
        read("Layout(major_to_minor=(0, 1), tiling=((8, 128), (2,)))"),
        Ok("{1,0:T(8,128)(2)}".into())
    );
    assert_eq!(read("Layout(major_to_minor=(0,))"), Ok("{0}".into()));
    // What JAX's form cannot say is refused, by name: every attribute the
    // table marks so, and only those.
    let l: Layout = "{0:T(8)L(1024)}".parse().unwrap();
    assert_eq!(
        l.jax().unwrap_err().to_string(),
        "JAX's Layout has no field for XLA's L (tail_padding_alignment_in_elements)"
    );
    let examples = [
        ("D", "{0:D(D)}"),
        ("T", "{0:T(8)}"),
        ("L", "{0:L(4)}"),
        ("#", "{0:#(s32)}"),
        ("*", "{0:*(s32)}"),
        ("E", "{0:E(4)}"),
        ("S", "{0:S(1)}"),
        ("SC", "{0:SC(0:1)}"),
        ("P", "{0:P(s32[2]{0})}"),
        ("M", "{0:M(8)}"),
    ];
    for a in &xla_layout_core::text::ATTRIBUTES {
        let (_, text) = examples
            .iter()
            .find(|(name, _)| *name == a.name)
            .unwrap_or_else(|| panic!("no example of {} here", a.name));
        let l: Layout = text.parse().unwrap();
        // Every attribute prints back as written (`D` is read and thrown
        // away, as XLA does).
        let printed = if a.name == "D" { "{0}" } else { text };
        assert_eq!(l.to_string(), printed, "{}", a.name);
        match l.jax() {
            Ok(_) => assert!(a.in_jax, "{text}"),
            Err(e) => {
                assert!(!a.in_jax, "{text}: {e}");
                assert_eq!(
                    e,
                    xla_layout_core::text::JaxLayoutError::Unrepresentable(a.name)
                );
                assert!(e.to_string().contains(a.field), "{e}");
            }
        }
    }
    let combine: Layout = "{1,0:T(*,2)}".parse().unwrap();
    assert_eq!(
        combine.jax().unwrap_err(),
        xla_layout_core::text::JaxLayoutError::CombineTileEntry
    );
}

#[test]
fn compiled_input_formats_read_for_their_layout() {
    use xla_layout_core::text::JaxShapeError;
    // As jax 0.10.2 prints `compiled.input_formats` on the CPU.
    let format = "f32[3,5] Format(layout=Layout(major_to_minor=(0, 1), tiling=(), sub_byte_element_size_in_bits=0), sharding=SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device))";
    let s = parse_array_with_jax_layout(format).unwrap().unwrap();
    assert_eq!(s.to_string(), "f32[3,5]{1,0}");
    let tiled = "bf16[16,256] Format(layout=Layout(major_to_minor=(0, 1), tiling=((8, 128), (2, 1)), sub_byte_element_size_in_bits=0))";
    assert_eq!(
        parse_array_with_jax_layout(tiled)
            .unwrap()
            .unwrap()
            .to_string(),
        "bf16[16,256]{1,0:T(8,128)(2,1)}"
    );
    // Unclosed, or text after the Format: refused.
    for bad in [
        "f32[3] Format(layout=Layout(major_to_minor=(0,))",
        "f32[3] Format(layout=Layout(major_to_minor=(0,))) x",
        "f32[3] Format(layout=Layout(major_to_minor=(0,)) x)",
    ] {
        assert!(parse_array_with_jax_layout(bad).unwrap().is_err(), "{bad}");
    }
    // A JAX layout alone says neither the element type nor the dims.
    let e = parse_array_with_jax_layout("Layout(major_to_minor=(0, 1))")
        .unwrap()
        .unwrap_err();
    assert_eq!(e, JaxShapeError::NoShape);
    assert!(
        e.to_string()
            .starts_with("write the shape before JAX's layout")
    );
}

/// Errors in the forms that wrap a shape count bytes from the start of
/// the whole input, so that they point at the offending text.
#[test]
fn errors_point_into_the_whole_input() {
    use xla_layout_core::text::{JaxLayoutError, JaxShapeError};
    use xla_layout_core::tpu::{RequestError, parse_request};
    let text = "f32[2,3] Layout(major_to_minor=(0, 1), foo=1)";
    match parse_array_with_jax_layout(text).unwrap() {
        Err(JaxShapeError::Layout(JaxLayoutError::Field(at))) => {
            assert_eq!(&text[at..at + 3], "foo")
        }
        other => panic!("{other:?}"),
    }
    let text = "  f32[2,x] Layout(major_to_minor=(0, 1))";
    match parse_array_with_jax_layout(text).unwrap() {
        Err(JaxShapeError::Shape(e)) => assert_eq!(&text[e.span()], "x"),
        other => panic!("{other:?}"),
    }
    // A typo after the shape's last comma is the shape's, not a
    // generation's; a tuple is no array; `)` missing is said.
    assert!(matches!(
        parse_request("tpu((f32[2], f32[3]))").unwrap(),
        Err(RequestError::NotAnArray)
    ));
    assert!(matches!(
        parse_request("tpu(f32[3,5], v9)").unwrap(),
        Err(RequestError::UnknownGeneration)
    ));
    assert!(matches!(
        parse_request("tpu(f32[3,5]").unwrap(),
        Err(RequestError::Unclosed)
    ));
    for (text, at) in [
        ("tpu(f32[3],)", ","),
        (" tpu( f32[x])", "x"),
        ("tpu(f32[3,x])", "x"),
    ] {
        match parse_request(text).unwrap() {
            Err(RequestError::Parse(e)) => assert_eq!(&text[e.span()], at, "{text}"),
            other => panic!("{text}: {other:?}"),
        }
    }
}

/// A negative tile entry is refused where it is written (it was read,
/// and printed as `T(Invalid value -1,128)`, a text nothing reads back);
/// whatever JAX's form reads prints as XLA text that reads back the same.
#[test]
fn negative_tile_entries_are_refused() {
    let text = "Layout(major_to_minor=(0, 1), tiling=((-1, 128),))";
    let e = parse_jax_layout(text).unwrap_err();
    assert_eq!(
        e,
        JaxLayoutError::NegativeTileEntry {
            value: -1,
            at: text.find("-1").unwrap()
        }
    );
    assert!(
        e.to_string().contains("tile dimension -1 is negative"),
        "{e}"
    );
    for ok in [
        "Layout(major_to_minor=(0, 1), tiling=((8, 128), (2, 1)))",
        "Layout(major_to_minor=(1, 0), tiling=((0, 1),), sub_byte_element_size_in_bits=4)",
        "Layout(major_to_minor=(0,), tiling=((1024,),))",
    ] {
        let l = parse_jax_layout(ok).unwrap();
        assert_eq!(Layout::parse(&l.to_string()).unwrap(), l, "{ok}");
    }
}
