//! Shape inference against XLA: in every real dump, each instruction of an
//! opcode with an inference rule has its shape written by XLA; inferring
//! it from the operands must give the same element type and dimensions.
//! Then hand-written modules for each rule, nested instructions and calls.

use xla_layout_core::text::parse_shape;
use xla_layout_hlo::infer::{Shapes, rule};
use xla_layout_hlo::{Event, Module, Reader};

fn without_layout(text: &str) -> String {
    parse_shape(text.as_bytes())
        .unwrap()
        .without_layout()
        .to_string()
}

fn name_of(path: &std::path::Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

/// The shape's dimensions, leaf by leaf: `[[2, 3]]`, `[[2], []]`.
fn dims_only(text: &str) -> String {
    let shape = parse_shape(text.as_bytes()).unwrap();
    let dims: Vec<Vec<i64>> = shape
        .events()
        .filter_map(|e| match e {
            xla_layout_core::ShapeEvent::Leaf { shape, .. } => {
                Some(shape.as_array().map_or(Vec::new(), |a| a.dims().to_vec()))
            }
            _ => None,
        })
        .collect();
    format!("{dims:?}")
}

#[test]
fn inference_agrees_with_what_xla_wrote() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/dumps");
    let mut checked = std::collections::BTreeMap::<String, usize>::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "hlo") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let mut shapes = Shapes::new();
        for event in Reader::new(&text) {
            match event.unwrap() {
                Event::Computation(c) => shapes.computation(&c),
                Event::EndComputation { .. } => shapes.end_computation(),
                Event::Instruction(i) => {
                    if rule(i.opcode()).is_some()
                        && let (Some(written), Some(inferred)) =
                            (i.shape_text(), shapes.inferred(&i))
                    {
                        // TPU programs after optimisation may compute
                        // elementwise in mixed precision (`sine` of f32 to
                        // bf16): there, dimensions only.
                        let mixed = name_of(&path).starts_with("tpu_")
                            && !name_of(&path).ends_with(".before.hlo");
                        let (inferred, written) = if mixed {
                            (dims_only(inferred.text()), dims_only(written))
                        } else {
                            (without_layout(inferred.text()), without_layout(written))
                        };
                        assert_eq!(inferred, written, "{}: {}", path.display(), i.text());
                        *checked.entry(i.opcode().to_string()).or_default() += 1;
                    }
                    shapes.instruction(&i);
                }
                _ => {}
            }
        }
    }
    // The dumps exercise most rules, many times.
    for opcode in [
        "add",
        "multiply",
        "compare",
        "select",
        "tuple",
        "get-tuple-element",
        "while",
        "copy",
        "negate",
    ] {
        assert!(
            checked.get(opcode).copied().unwrap_or(0) > 0,
            "{opcode}: {checked:?}"
        );
    }
    assert!(checked.values().sum::<usize>() > 500, "{checked:?}");
}

/// The shapes of every instruction of `text`, as `(name, shape, inferred)`.
fn shapes_of(text: &str) -> Vec<(String, Option<String>, bool)> {
    let mut shapes = Shapes::new();
    let mut out = Vec::new();
    for event in Reader::new(text) {
        match event.unwrap() {
            Event::Computation(c) => shapes.computation(&c),
            Event::EndComputation { .. } => shapes.end_computation(),
            Event::Instruction(i) => {
                let s = shapes.instruction(&i);
                out.push((
                    i.name().to_string(),
                    s.as_ref().map(|s| s.text().to_string()),
                    s.is_some_and(|s| s.is_inferred()),
                ));
            }
            _ => {}
        }
    }
    out
}

/// The shape `shapes_of` found for the first instruction named `name`.
fn shape_named(got: &[(String, Option<String>, bool)], name: &str) -> Option<String> {
    got.iter()
        .find(|(n, _, _)| n == name)
        .and_then(|(_, s, _)| s.clone())
}

#[test]
fn every_rule_on_hand_written_modules() {
    let text = "HloModule m
Twice {
  x = f32[] parameter(0)
  ROOT y = add(x, x)
}
ENTRY e {
  a = f32[2,10]{1,0} parameter(0)
  b = f32[10,3]{1,0} parameter(1)
  p = pred[] parameter(2)
  s = f32[] parameter(3)
  v = abs(a)
  w = compare(a, v), direction=LT
  d = dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = tuple(v, d)
  g = get-tuple-element(t), index=1
  n = multiply(f32[2,10] parameter(4), negate(a))
  m = dot(bf16[2,10]{1,0} parameter(5), b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  h = add(bf16[2,10]{1,0} parameter(6), a)
  c = conditional(p, s, s), branch_computations={Twice, Twice}
  k = call(s), to_apply=Twice
  q = select(p, s, k)
  ROOT z = custom-call(a), custom_call_target=\"x\"
}
";
    let got = shapes_of(text);
    let shape = |name: &str| shape_named(&got, name);
    assert_eq!(shape("y").as_deref(), Some("f32[]"));
    assert_eq!(shape("v").as_deref(), Some("f32[2,10]{1,0}"));
    assert_eq!(shape("w").as_deref(), Some("pred[2,10]{1,0}"));
    assert_eq!(shape("d").as_deref(), Some("f32[2,3]{1,0}"));
    assert_eq!(
        shape("t").as_deref(),
        Some("(f32[2,10]{1,0}, f32[2,3]{1,0})")
    );
    assert_eq!(shape("g").as_deref(), Some("f32[2,3]{1,0}"));
    // A nested instruction's shape comes from its own operands.
    assert_eq!(shape("n").as_deref(), Some("f32[2,10]"));
    // Mixed precisions: the higher one, as XLA's HigherPrecisionElementType.
    assert_eq!(shape("m").as_deref(), Some("f32[2,3]{1,0}"));
    assert_eq!(shape("h").as_deref(), Some("f32[2,10]{1,0}"));
    assert_eq!(shape("c").as_deref(), Some("f32[]"));
    assert_eq!(shape("k").as_deref(), Some("f32[]"));
    assert_eq!(shape("q").as_deref(), Some("f32[]"));
    // No rule for custom-call: no shape, and nothing made up.
    assert_eq!(shape("z"), None);
    // Written shapes are marked as such.
    assert!(got.iter().any(|(n, _, inferred)| n == "a" && !inferred));
    assert!(got.iter().any(|(n, _, inferred)| n == "v" && *inferred));
    assert!(got.iter().any(|(n, _, inferred)| n == "g" && *inferred));
}

/// XLA's elementwise operations, `select` and `clamp` take arrays only
/// ("Expected array argument"): a tuple or token operand gives no
/// inferred shape there, while `copy`, `opt-barrier` and `while` pass
/// any shape on, as XLA's `InferUnaryOpShape` does for `copy`.
#[test]
fn elementwise_operations_infer_from_arrays_only() {
    let text = "HloModule m
ENTRY e {
  t = (f32[2]{0}, s32[]) parameter(0)
  k = token[] after-all()
  p = pred[] parameter(1)
  n = negate(t)
  a = add(t, t)
  c = compare(t, t), direction=EQ
  s = select(p, t, t)
  x = negate(k)
  y = copy(t)
  o = opt-barrier(t)
  ROOT z = add(f32[] parameter(2), f32[] parameter(3))
}
";
    let got = shapes_of(text);
    let shape = |name: &str| shape_named(&got, name);
    for refused in ["n", "a", "c", "s", "x"] {
        assert_eq!(shape(refused), None, "{refused}");
    }
    assert_eq!(shape("y").as_deref(), Some("(f32[2]{0}, s32[])"));
    assert_eq!(shape("o").as_deref(), Some("(f32[2]{0}, s32[])"));
    assert_eq!(shape("z").as_deref(), Some("f32[]"));
}

/// Operands XLA's shape inference refuses get nothing inferred: binary
/// operations of other dimensions or element types (floating-point
/// precisions may mix), `select`'s branches unlike or `pred` not fitting,
/// `clamp`'s bounds neither scalars nor shaped as the operand, `dot`'s
/// dimension numbers out of range, repeated, unpaired or of other sizes.
#[test]
fn operands_xla_refuses_infer_nothing() {
    let text = "HloModule m
ENTRY main {
  a = f32[4] parameter(0)
  b = f32[5] parameter(1)
  i = s32[4] parameter(2)
  pv = pred[4] parameter(3)
  x = f32[2,3,4] parameter(4)
  y = f32[2,4,5] parameter(5)
  h = bf16[4] parameter(6)
  s = f32[] parameter(7)
  ps = pred[] parameter(8)
  e1 = add(a, b)
  e3 = add(a, i)
  c1 = compare(a, b), direction=LT
  c3 = compare(a, i), direction=LT
  sel3 = select(pv, a, b)
  sel4 = select(pv, a, h)
  sel5 = select(a, a, a)
  sel6 = select(pred[5] parameter(9), a, a)
  k2 = clamp(a, a, b)
  k3 = clamp(i, a, a)
  d3 = dot(x, y), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_contracting_dims={1}
  d4 = dot(x, y), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={9}, rhs_contracting_dims={1}
  d8 = dot(x, y), lhs_batch_dims={0,0}, rhs_batch_dims={0,0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
  d9 = dot(x, y), lhs_batch_dims={0}, rhs_batch_dims={}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
  ok1 = add(a, h)
  ok2 = select(pv, a, a)
  ok3 = select(ps, a, a)
  ok4 = clamp(s, a, a)
  ok5 = clamp(a, h, a)
  ok6 = dot(x, y), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
  ok7 = compare(a, h), direction=LT
  ROOT r = tuple()
}
";
    let got = shapes_of(text);
    let shape = |name: &str| {
        assert!(got.iter().any(|(n, _, _)| n == name), "{name}");
        shape_named(&got, name)
    };
    for refused in [
        "e1", "e3", "c1", "c3", "sel3", "sel4", "sel5", "sel6", "k2", "k3", "d3", "d4", "d8", "d9",
    ] {
        assert_eq!(shape(refused), None, "{refused}");
    }
    assert_eq!(shape("ok1").as_deref(), Some("f32[4]{0}")); // with_type lays it out
    assert_eq!(shape("ok2").as_deref(), Some("f32[4]"));
    assert_eq!(shape("ok3").as_deref(), Some("f32[4]"));
    assert_eq!(shape("ok4").as_deref(), Some("f32[4]"));
    assert_eq!(shape("ok5").as_deref(), Some("bf16[4]"));
    assert_eq!(shape("ok6").as_deref(), Some("f32[2,3,5]{2,1,0}"));
    assert_eq!(shape("ok7").as_deref(), Some("pred[4]{0}"));
}

/// A computation whose root (or last instruction) has no shape has no
/// result: a `call` of it gets none, not the shape of an instruction
/// before its root.
#[test]
fn a_callee_without_a_result_gives_its_callers_none() {
    let text = "HloModule m
f {
  x = token[] parameter(0)
  y = f32[5] parameter(1)
  ROOT c = add(x, y)
}
g {
  p = s32[2] parameter(0)
  ROOT q = call(p), to_apply=g
}
h {
  p = s32[2] parameter(0)
  q = custom-call(p), custom_call_target=\"x\"
}
ENTRY main {
  q = token[] parameter(0)
  z = f32[5] parameter(1)
  w = f32[9] parameter(2)
  r = call(q, z), to_apply=f
  t = call(w), to_apply=g
  u = call(w), to_apply=h
  ROOT v = tuple()
}
";
    let got = shapes_of(text);
    let shapes: Vec<_> = got
        .iter()
        .map(|(n, s, _)| (n.as_str(), s.clone()))
        .collect();
    for name in ["r", "t", "u"] {
        let (_, s) = shapes.iter().rfind(|(n, _)| *n == name).unwrap();
        assert_eq!(*s, None, "{name}");
    }
}

#[test]
fn module_reads_with_inferred_shapes_agree() {
    let text = "ENTRY e {\n  a = f32[4]{0} parameter(0)\n  ROOT b = negate(a)\n}\n";
    let m = Module::parse(text).unwrap();
    assert_eq!(m.entry().unwrap().root().unwrap().shape_text(), None);
    assert_eq!(shapes_of(text)[1].1.as_deref(), Some("f32[4]{0}"));
}

/// The inferred shapes of `text` are within the work budget for the
/// text's size; their lengths.
fn assert_bounded(text: &str) -> Vec<usize> {
    use xla_layout_hlo::infer::{INFER_WORK_BASE, INFER_WORK_PER_BYTE};
    let shapes = shapes_of(text);
    let inferred: Vec<usize> = shapes
        .iter()
        .filter(|(_, _, inferred)| *inferred)
        .map(|(_, s, _)| s.as_ref().map_or(0, String::len))
        .collect();
    assert!(!inferred.is_empty());
    let total: usize = inferred.iter().sum();
    assert!(
        total <= INFER_WORK_BASE + INFER_WORK_PER_BYTE * text.len(),
        "{total} bytes of shapes inferred from {} bytes",
        text.len()
    );
    inferred
}

/// Found while writing the HLO fuzz target: each `tuple(t, t)` doubles
/// the inferred shape, so linear text had exponential shapes (30 lines:
/// gigabytes). Inference now stops within a work budget per byte; the
/// dataflow and memory report run on what remains.
#[test]
fn doubling_tuples_stay_bounded() {
    let mut text =
        String::from("HloModule m, is_scheduled=true\nENTRY e {\n  t0 = f32[] parameter(0)\n");
    for k in 1..=18 {
        text.push_str(&format!("  t{k} = tuple(t{}, t{})\n", k - 1, k - 1));
    }
    text.push_str("  ROOT r = tuple(t18)\n}\n");
    let inferred = assert_bounded(&text);
    // The doubling was cut: the last tuples have no shape.
    assert!(inferred.len() < 19, "{inferred:?}");
    let m = Module::parse(&text).unwrap();
    let report = xla_layout_hlo::memory::Report::new(&m, &Default::default());
    assert!(report.rows.len() < 1 << 16, "{}", report.rows.len());
}

/// A tuple of 9,500 operands (its shape's text past what the reader
/// builds, 64 KiB) is inferred as XLA prints it: the elements joined by
/// ", ", every fifth after the first marked `/*index=k*/`. It was left
/// unshaped, and the message blamed the work budget.
#[test]
fn a_wide_tuple_is_inferred() {
    let n = 9_500;
    let text = format!(
        "ENTRY e {{\n  p = f32[4] parameter(0)\n  ROOT t = tuple({})\n}}\n",
        vec!["p"; n].join(", ")
    );
    let mut expected = String::from("(");
    for k in 0..n {
        if k > 0 {
            expected.push_str(", ");
        }
        if k > 0 && k % 5 == 0 {
            expected.push_str(&format!("/*index={k}*/"));
        }
        expected.push_str("f32[4]{0}");
    }
    expected.push(')');
    assert!(expected.len() > xla_layout_hlo::LARGE_SHAPE_TEXT);
    let got = shapes_of(&text);
    assert_eq!(shape_named(&got, "t"), Some(expected));
    // The memory report counts it: the table and, copied in, each element.
    let m = Module::parse(&text).unwrap();
    let report = xla_layout_hlo::memory::Report::new(&m, &Default::default());
    assert_eq!(report.dataflow().unshaped(), []);
}

/// Many copies of one large shape: each copied it whole (quadratic in the
/// text); now within the budget.
#[test]
fn copies_of_a_large_shape_stay_bounded() {
    let tuple = format!("({})", vec!["f32[]"; 10_000].join(", "));
    let mut text = format!("ENTRY e {{\n  t = {tuple} parameter(0)\n");
    for k in 0..3000 {
        text.push_str(&format!("  y{k} = copy(t)\n"));
    }
    text.push_str("  ROOT r = copy(t)\n}\n");
    assert_bounded(&text);
}

/// A `compare` of packed operands: XLA's `ChangeElementType` drops the
/// element size (`E(4)`) for a type it does not pack, so the inferred
/// `pred` result is not packed (with `E(4)` kept, XLA's validator would
/// reject it, and the memory report would count it as 0 bytes).
#[test]
fn a_changed_element_type_drops_the_packed_size() {
    let text = "ENTRY e {
  a = s4[4]{0:E(4)} parameter(0)
  b = s4[4]{0:E(4)} parameter(1)
  c = compare(a, b), direction=LT
  ROOT n = negate(a)
}
";
    let got = shapes_of(text);
    let shape = |name: &str| shape_named(&got, name);
    assert_eq!(shape("c").as_deref(), Some("pred[4]{0}"));
    // The same type: kept.
    assert_eq!(shape("n").as_deref(), Some("s4[4]{0:E(4)}"));
}

/// A `dot` keeps a bounded dimension bounded (`<=4`), as XLA's
/// `InferDotOpShape` does: it took the bound as a static size.
#[test]
fn a_dot_keeps_bounded_dimensions() {
    let text = "ENTRY e {
  a = f32[<=4,8]{1,0} parameter(0)
  b = f32[8,<=3]{1,0} parameter(1)
  ROOT d = dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
";
    let got = shapes_of(text);
    let d = got.iter().find(|(n, _, _)| n == "d").unwrap();
    assert_eq!(d.1.as_deref(), Some("f32[<=4,<=3]{1,0}"));
}
