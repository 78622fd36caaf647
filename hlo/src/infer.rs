//! Shapes of instructions written without one. Hand-written HLO (XLA's
//! own parser tests, most of all) may leave an instruction's shape out, and
//! XLA's parser then infers it from the operands, as its shape inference
//! does for that opcode. This does the same for the opcodes such text uses
//! (a table, [`RULES`]); an instruction of any other opcode keeps no shape.
//!
//! It works as a stream beside the [`crate::Reader`]: instructions only
//! name earlier instructions of their computation, and computations only
//! call computations written before them. Shapes that are written are kept
//! as slices of the text; only inferred ones are stored.

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::cell::Cell;
use core::fmt::Write as _;

use xla_layout_core::text::{
    ByteSpan, Lexer, ParseOptions, TokenKind as K, parse_shape, parse_shape_at, parse_shape_events,
};
use xla_layout_core::{ArrayShape, ElementType, Shape};

use crate::items::{Computation, Instruction, split_top_level};

/// An instruction's shape: as written, or inferred.
///
/// ```
/// use xla_layout_hlo::{Module, infer::{ShapeText, Shapes}};
/// let m = Module::parse("ENTRY e {\n  a = f32[2]{0} parameter(0)\n  ROOT n = negate(a)\n}").unwrap();
/// let c = m.entry().unwrap();
/// let mut shapes = Shapes::new();
/// shapes.computation(c);
/// assert_eq!(shapes.instruction(&c.instructions()[0]), Some(ShapeText::Written("f32[2]{0}")));
/// assert_eq!(shapes.instruction(&c.instructions()[1]), Some(ShapeText::Inferred("f32[2]{0}".to_string())));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShapeText<'a> {
    /// Written in the text.
    Written(&'a str),
    /// Inferred from the operands: the canonical text.
    Inferred(String),
}

impl ShapeText<'_> {
    /// The shape's text.
    ///
    /// ```
    /// use xla_layout_hlo::infer::ShapeText;
    /// assert_eq!(ShapeText::Written("f32[2]{0}").text(), "f32[2]{0}");
    /// assert_eq!(ShapeText::Inferred("pred[]".to_string()).text(), "pred[]");
    /// ```
    pub fn text(&self) -> &str {
        match self {
            ShapeText::Written(t) => t,
            ShapeText::Inferred(t) => t,
        }
    }

    /// Whether the shape was inferred rather than written.
    ///
    /// ```
    /// use xla_layout_hlo::infer::ShapeText;
    /// assert!(!ShapeText::Written("f32[2]{0}").is_inferred());
    /// assert!(ShapeText::Inferred("f32[2]{0}".to_string()).is_inferred());
    /// ```
    pub fn is_inferred(&self) -> bool {
        matches!(self, ShapeText::Inferred(_))
    }

    fn parse(&self) -> Option<Shape> {
        parse_shape(self.text().as_bytes()).ok()
    }
}

/// How an opcode's result shape follows from its operands.
///
/// ```
/// use xla_layout_hlo::{Module, infer::{Rule, Shapes, rule}};
/// assert_eq!(rule("add"), Some(Rule::Binary));
/// assert_eq!(rule("compare"), Some(Rule::Predicate));
/// let m = Module::parse(
///     "ENTRY e {\n  a = f32[2]{0} parameter(0)\n  b = bf16[2]{0} parameter(1)\n  s = add(a, b)\n  ROOT p = compare(a, a), direction=LT\n}",
/// )
/// .unwrap();
/// let c = m.entry().unwrap();
/// let mut shapes = Shapes::new();
/// shapes.computation(c);
/// let all: Vec<String> = c.instructions().iter().map(|i| shapes.instruction(i).unwrap().text().to_string()).collect();
/// assert_eq!(all[2..], ["f32[2]{0}", "pred[2]{0}"]); // f32 is the higher precision
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Rule {
    /// The shape of operand `n`, whatever it is (`copy`, `opt-barrier`,
    /// `while`'s state: tuples too).
    Operand(usize),
    /// The shape of operand `n`, which must be an array (unary
    /// elementwise operations): XLA refuses a tuple, token or opaque
    /// operand there, so nothing is inferred.
    Array(usize),
    /// Operand 0's shape with the higher-precision element type of
    /// operands 0 and 1 (`ElementType::higher_precision`): binary
    /// elementwise operations, whose operands XLA wants with the same
    /// dimensions and element type, floating-point precisions free to
    /// mix (shapes that differ otherwise get nothing inferred).
    Binary,
    /// Operand 0's dimensions, `pred` elements (`compare`), its operands
    /// as [`Rule::Binary`] takes them.
    Predicate,
    /// `select(pred, on_true, on_false)`: `on_true`'s shape, where
    /// `on_false` has its dimensions and element type and `pred` is a
    /// `pred` scalar or has them too.
    Select,
    /// `clamp(min, operand, max)`: `operand`'s shape, where `min` and
    /// `max` are scalars or have its dimensions, and its element type
    /// (floating-point precisions may differ).
    Clamp,
    /// A tuple of the operands' shapes.
    Tuple,
    /// Element `index` of operand 0's tuple.
    TupleElement,
    /// `dot` with its dimension numbers.
    Dot,
    /// The result of the first computation named by the attribute:
    /// `conditional`'s first branch, `call`'s body.
    Called(&'static [&'static str]),
}

/// The opcodes whose shapes are inferred, and how.
///
/// ```
/// use xla_layout_hlo::infer::{RULES, Rule};
/// assert!(RULES.contains(&("negate", Rule::Array(0))));
/// assert!(RULES.contains(&("copy", Rule::Operand(0)))); // tuples too
/// let calling: Vec<&str> = RULES.iter().filter(|(_, r)| matches!(r, Rule::Called(_))).map(|(o, _)| *o).collect();
/// assert_eq!(calling, ["conditional", "call"]);
/// ```
pub const RULES: &[(&str, Rule)] = &[
    // Unary elementwise.
    ("abs", Rule::Array(0)),
    ("negate", Rule::Array(0)),
    ("sqrt", Rule::Array(0)),
    ("rsqrt", Rule::Array(0)),
    ("cbrt", Rule::Array(0)),
    ("exponential", Rule::Array(0)),
    ("exponential-minus-one", Rule::Array(0)),
    ("log", Rule::Array(0)),
    ("log-plus-one", Rule::Array(0)),
    ("logistic", Rule::Array(0)),
    ("tanh", Rule::Array(0)),
    ("tan", Rule::Array(0)),
    ("sine", Rule::Array(0)),
    ("cosine", Rule::Array(0)),
    ("floor", Rule::Array(0)),
    ("ceil", Rule::Array(0)),
    ("round-nearest-afz", Rule::Array(0)),
    ("round-nearest-even", Rule::Array(0)),
    ("sign", Rule::Array(0)),
    ("not", Rule::Array(0)),
    ("copy", Rule::Operand(0)),
    ("erf", Rule::Array(0)),
    ("popcnt", Rule::Array(0)),
    ("count-leading-zeros", Rule::Array(0)),
    ("opt-barrier", Rule::Operand(0)),
    // Binary elementwise.
    ("add", Rule::Binary),
    ("subtract", Rule::Binary),
    ("multiply", Rule::Binary),
    ("divide", Rule::Binary),
    ("remainder", Rule::Binary),
    ("maximum", Rule::Binary),
    ("minimum", Rule::Binary),
    ("power", Rule::Binary),
    ("atan2", Rule::Binary),
    ("and", Rule::Binary),
    ("or", Rule::Binary),
    ("xor", Rule::Binary),
    ("shift-left", Rule::Binary),
    ("shift-right-arithmetic", Rule::Binary),
    ("shift-right-logical", Rule::Binary),
    ("compare", Rule::Predicate),
    // Ternary.
    ("select", Rule::Select),
    ("clamp", Rule::Clamp),
    // Structure and control.
    ("tuple", Rule::Tuple),
    ("get-tuple-element", Rule::TupleElement),
    ("while", Rule::Operand(0)),
    ("dot", Rule::Dot),
    (
        "conditional",
        Rule::Called(&["branch_computations", "true_computation"]),
    ),
    ("call", Rule::Called(&["to_apply"])),
];

/// `shape` if it is an array of an array type: XLA's elementwise
/// operations refuse a tuple, token or opaque operand ("Expected array
/// argument"), so such an operand gives no inferred shape.
fn array(shape: Shape) -> Option<ArrayShape> {
    match shape {
        Shape::Array(a) if a.element_type().is_array_type() => Some(a),
        _ => None,
    }
}

/// Whether `a` and `b` have one element type, or two floating-point
/// ones (XLA's `SameElementTypeIgnoringFpPrecision`).
fn same_type_but_precision(a: &ArrayShape, b: &ArrayShape) -> bool {
    let (x, y) = (a.element_type(), b.element_type());
    x == y || x.is_floating_point() && y.is_floating_point()
}

/// `Some` where an elementwise operation takes `a` and `b` together:
/// the same dimensions, and element types as
/// [`same_type_but_precision`]. (XLA also broadcasts a dimension of 1
/// against another size; such operands get nothing inferred here.)
fn elementwise_pair(a: &ArrayShape, b: &ArrayShape) -> Option<()> {
    (a.dims() == b.dims() && same_type_but_precision(a, b)).then_some(())
}

/// The rule for `opcode`, if its shape is inferred.
///
/// ```
/// use xla_layout_hlo::infer::{Rule, rule};
/// assert_eq!(rule("select"), Some(Rule::Select));
/// assert_eq!(rule("custom-call"), None);
/// ```
pub fn rule(opcode: &str) -> Option<Rule> {
    RULES.iter().find(|(o, _)| *o == opcode).map(|&(_, r)| r)
}

/// Shapes of a module's instructions, written or inferred, fed in text
/// order.
///
/// ```
/// use xla_layout_hlo::{Event, Reader, infer::Shapes};
///
/// let text = "ENTRY e {\n  a = f32[2,10]{1,0} parameter(0)\n  ROOT v = abs(a)\n}\n";
/// let mut shapes = Shapes::new();
/// let mut found = Vec::new();
/// for event in Reader::new(text) {
///     match event.unwrap() {
///         Event::Computation(c) => shapes.computation(&c),
///         Event::Instruction(i) => {
///             let s = shapes.instruction(&i).unwrap();
///             found.push((i.name(), s.text().to_string(), s.is_inferred()));
///         }
///         Event::EndComputation { .. } => shapes.end_computation(),
///         _ => {}
///     }
/// }
/// assert_eq!(found[1], ("v", "f32[2,10]{1,0}".to_string(), true));
/// ```
#[derive(Debug, Default)]
pub struct Shapes<'a> {
    /// Each computation's result, by name.
    results: BTreeMap<&'a str, ShapeText<'a>>,
    /// The current computation's name, its instructions' shapes, and its
    /// root's (or last instruction's) shape, once seen (`Some(None)`: seen,
    /// without a shape).
    current: Option<&'a str>,
    instructions: BTreeMap<&'a str, ShapeText<'a>>,
    root: Option<Option<ShapeText<'a>>>,
    last: Option<Option<ShapeText<'a>>>,
    /// The work budget: see [`INFER_WORK_PER_BYTE`].
    work: Work,
}

/// Inference reads and builds shape text: bytes of it (parsed, copied or
/// written) it may spend per byte of the instructions it is given, on top
/// of [`INFER_WORK_BASE`]. Past the budget an instruction gets no inferred
/// shape, as one of an opcode without a rule.
///
/// Without a bound, text of linear size has inferred shapes of exponential
/// size (`t1 = tuple(t0, t0)`, `t2 = tuple(t1, t1)`, …: each line doubles
/// the shape), or quadratic work (every one of many `copy(t)` of a large
/// `t` copies its shape). Modules XLA writes give every shape, and the
/// hand-written ones inference is for stay far below the budget.
///
/// ```
/// use xla_layout_hlo::{Module, infer::Shapes};
/// let mut text = String::from("ENTRY e {\n  t0 = f32[] parameter(0)\n");
/// for k in 1..=40 {
///     text.push_str(&format!("  t{k} = tuple(t{}, t{})\n", k - 1, k - 1));
/// }
/// text.push('}');
/// let m = Module::parse(&text).unwrap();
/// let mut shapes = Shapes::new();
/// let c = m.entry().unwrap();
/// shapes.computation(c);
/// let sizes: Vec<usize> = c.instructions().iter()
///     .map(|i| shapes.instruction(i).map_or(0, |s| s.text().len()))
///     .collect();
/// assert_eq!(&sizes[..3], [5, 14, 32]);         // f32[], (f32[], f32[]), …
/// assert_eq!(sizes[40], 0);                      // 2⁴⁰ leaves: not inferred
/// ```
pub const INFER_WORK_PER_BYTE: usize = 64;

/// The bytes of work inference may spend whatever the text's size: see
/// [`INFER_WORK_PER_BYTE`].
///
/// ```
/// use xla_layout_hlo::infer::{INFER_WORK_BASE, INFER_WORK_PER_BYTE};
/// assert_eq!(INFER_WORK_BASE, 1 << 20); // 1 MiB
/// // What inference may spend on 1 KiB of instructions: the base and 64 bytes a byte.
/// assert_eq!(INFER_WORK_BASE + 1024 * INFER_WORK_PER_BYTE, 1_114_112);
/// ```
pub const INFER_WORK_BASE: usize = 1 << 20;

/// Bytes of work allowed and spent; a `Cell` so that [`Shapes::inferred`]
/// (which takes `&self`) is bounded too.
#[derive(Debug, Default)]
struct Work {
    allowed: Cell<usize>,
    spent: Cell<usize>,
}

impl Work {
    /// Allows the work `text` pays for.
    fn earn(&self, text: &str) {
        let more = text.len().saturating_mul(INFER_WORK_PER_BYTE);
        self.allowed.set(self.allowed.get().saturating_add(more));
    }

    /// Spends `bytes`, if the budget has them.
    fn spend(&self, bytes: usize) -> Option<()> {
        let spent = self.spent.get().saturating_add(bytes);
        let budget = self.allowed.get().saturating_add(INFER_WORK_BASE);
        (spent <= budget).then(|| self.spent.set(spent))
    }
}

impl<'a> Shapes<'a> {
    /// No shapes yet.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, infer::Shapes};
    /// let m = Module::parse("ENTRY e {\n  ROOT a = f32[2]{0} parameter(0)\n}").unwrap();
    /// let mut shapes = Shapes::new();
    /// let c = m.entry().unwrap();
    /// shapes.computation(c);
    /// assert_eq!(shapes.instruction(&c.instructions()[0]).unwrap().text(), "f32[2]{0}");
    /// ```
    pub fn new() -> Shapes<'a> {
        Shapes::default()
    }

    /// A computation starts (and the one before it, if any, ends: see
    /// [`Shapes::end_computation`]). Computations are fed in text order, so
    /// that a `call` finds the result of the computation it names.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, infer::Shapes};
    /// let text = "f {\n  ROOT p = s32[4]{0} parameter(0)\n}\n\nENTRY e {\n  a = s32[4]{0} parameter(0)\n  ROOT c = call(a), to_apply=f\n}";
    /// let m = Module::parse(text).unwrap();
    /// let (f, e) = (&m.computations()[0], &m.computations()[1]);
    /// let mut shapes = Shapes::new();
    /// shapes.computation(e); // `f` not fed: the call has no shape
    /// assert!(shapes.instruction(&e.instructions()[1]).is_none());
    /// let mut shapes = Shapes::new();
    /// for c in [f, e] {
    ///     shapes.computation(c);
    ///     c.instructions().iter().for_each(|i| { shapes.instruction(i); });
    /// }
    /// assert_eq!(shapes.inferred(&e.instructions()[1]).unwrap().text(), "s32[4]{0}");
    /// ```
    pub fn computation(&mut self, c: &Computation<'a>) {
        self.end_computation();
        self.current = Some(c.name());
    }

    /// The current computation ends: its result is its root's shape (its
    /// last instruction's, without a root).
    ///
    /// ```
    /// use xla_layout_hlo::{Module, infer::Shapes};
    /// let text = "f {\n  p = s32[4]{0} parameter(0)\n  ROOT t = tuple(p)\n  x = f32[] constant(0)\n}\n\n\
    ///             ENTRY e {\n  a = s32[4]{0} parameter(0)\n  ROOT c = call(a), to_apply=f\n}";
    /// let m = Module::parse(text).unwrap();
    /// let (f, e) = (&m.computations()[0], &m.computations()[1]);
    /// let mut shapes = Shapes::new();
    /// shapes.computation(f);
    /// f.instructions().iter().for_each(|i| { shapes.instruction(i); });
    /// shapes.end_computation();
    /// shapes.computation(e);
    /// shapes.instruction(&e.instructions()[0]);
    /// // The call's shape is `f`'s root's, not its last instruction's.
    /// assert_eq!(shapes.instruction(&e.instructions()[1]).unwrap().text(), "(s32[4]{0})");
    /// ```
    pub fn end_computation(&mut self) {
        if let Some(name) = self.current.take() {
            let result = self.root.take().or(self.last.take()).flatten();
            if let Some(result) = result {
                self.results.insert(name, result);
            }
        }
        self.instructions.clear();
        self.root = None;
        self.last = None;
    }

    /// The shape of the next instruction: as written, else inferred;
    /// `None` when neither.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, infer::Shapes};
    /// let m = Module::parse(
    ///     "ENTRY e {\n  a = f32[2,3]{1,0} parameter(0)\n  t = tuple(a)\n  ROOT x = custom-call(a), custom_call_target=\"x\"\n}",
    /// )
    /// .unwrap();
    /// let c = m.entry().unwrap();
    /// let mut shapes = Shapes::new();
    /// shapes.computation(c);
    /// let found: Vec<_> = c.instructions().iter().map(|i| shapes.instruction(i)).collect();
    /// assert_eq!(found[1].as_ref().unwrap().text(), "(f32[2,3]{1,0})"); // inferred
    /// assert!(found[2].is_none()); // custom-call has no rule, and no shape written
    /// ```
    pub fn instruction(&mut self, i: &Instruction<'a>) -> Option<ShapeText<'a>> {
        let shape = match i.shape_text() {
            Some(text) => Some(ShapeText::Written(text)),
            None => self.inferred(i),
        };
        if let Some(s) = &shape {
            self.instructions.insert(i.name(), s.clone());
        }
        // A root (or last instruction) without a shape leaves the
        // computation without a result: not the shape of one before it.
        if i.is_root() {
            self.root = Some(shape.clone());
        }
        self.last = Some(shape.clone());
        shape
    }

    /// What inference gives for `i` from its operands, whether or not its
    /// shape is written (to check one against the other); `i` is not
    /// recorded.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, infer::Shapes};
    /// let m = Module::parse("ENTRY e {\n  a = f32[3]{0} parameter(0)\n  ROOT t = (f32[3]{0}, f32[3]{0}) tuple(a, a)\n}").unwrap();
    /// let mut shapes = Shapes::new();
    /// let c = m.entry().unwrap();
    /// shapes.computation(c);
    /// shapes.instruction(&c.instructions()[0]);
    /// assert_eq!(shapes.inferred(&c.instructions()[1]).unwrap().text(), "(f32[3]{0}, f32[3]{0})");
    /// ```
    pub fn inferred(&self, i: &Instruction<'a>) -> Option<ShapeText<'a>> {
        self.work.earn(i.text());
        self.infer(i.opcode(), i.operands_text(), |name| i.attribute(name))
    }

    /// The shape of the result of `opcode` on the operand list `operands`
    /// (its text), with attributes found by `attribute`.
    fn infer(
        &self,
        opcode: &str,
        operands: &'a str,
        attribute: impl Fn(&str) -> Option<&'a str>,
    ) -> Option<ShapeText<'a>> {
        // Every byte read, parsed, copied or written below is paid for
        // first (reading the operand list, then each shape).
        self.work.spend(operands.len())?;
        let pieces: Vec<&str> = split_top_level(
            operands,
            ByteSpan {
                start: 0,
                end: operands.len(),
            },
        )
        .map(|p| operands.get(p.start..p.end).unwrap_or("").trim())
        .filter(|p| !p.is_empty())
        .collect();
        let operand = |k: usize| pieces.get(k).and_then(|p| self.operand(p));
        // Parsing a shape costs its text.
        let parse = |s: ShapeText<'a>| {
            self.work.spend(s.text().len())?;
            s.parse()
        };
        // A shape taken whole from elsewhere is still this instruction's
        // inferred shape: a copy.
        let inferred = |s: ShapeText<'a>| {
            self.work.spend(s.text().len())?;
            Some(ShapeText::Inferred(s.text().to_string()))
        };
        let shape = match rule(opcode)? {
            Rule::Operand(k) => return inferred(operand(k)?),
            Rule::Array(k) => {
                let s = operand(k)?;
                array(parse(s.clone())?)?;
                return inferred(s);
            }
            Rule::Binary => {
                let lhs = operand(0)?;
                let rhs = operand(1)?;
                let a = array(parse(lhs.clone())?)?;
                if lhs.text() == rhs.text() {
                    return inferred(lhs);
                }
                let b = array(parse(rhs)?)?;
                elementwise_pair(&a, &b)?;
                if a.element_type() == b.element_type() {
                    // Operand 0's shape, as written.
                    return inferred(lhs);
                }
                let ty = a.element_type().higher_precision(b.element_type())?;
                Shape::Array(with_type(&a, ty))
            }
            Rule::Predicate => {
                let a = array(parse(operand(0)?)?)?;
                elementwise_pair(&a, &array(parse(operand(1)?)?)?)?;
                Shape::Array(with_type(&a, ElementType::PRED))
            }
            Rule::Select => {
                let pred = array(parse(operand(0)?)?)?;
                let on_true = operand(1)?;
                let t = array(parse(on_true.clone())?)?;
                let f = array(parse(operand(2)?)?)?;
                // XLA's `InferSelectShape`: the branches alike (types
                // too), `pred` of `pred`s, a scalar or as they are.
                let alike = t.dims() == f.dims() && t.element_type() == f.element_type();
                let pred_fits = pred.element_type() == ElementType::PRED
                    && (pred.rank() == 0 || pred.dims() == t.dims());
                if !(alike && pred_fits) {
                    return None;
                }
                return inferred(on_true);
            }
            Rule::Clamp => {
                let x = operand(1)?;
                let a = array(parse(x.clone())?)?;
                for k in [0, 2] {
                    let bound = array(parse(operand(k)?)?)?;
                    // A scalar bound, or one shaped as the operand.
                    let scalar = bound.rank() == 0 && same_type_but_precision(&bound, &a);
                    if !scalar {
                        elementwise_pair(&bound, &a)?;
                    }
                }
                return inferred(x);
            }
            Rule::Tuple => {
                let mut elements = Vec::with_capacity(pieces.len());
                for k in 0..pieces.len() {
                    elements.push(operand(k)?);
                }
                let len = elements.iter().map(|e| e.text().len() + 2).sum::<usize>();
                // Written, then printed canonically from a streamed parse:
                // a tuple is never built, so a wide one (its text past
                // what the reader builds) costs its text, not a kilobyte
                // per element.
                self.work.spend(len.saturating_mul(2))?;
                let mut text = String::from("(");
                for (k, e) in elements.iter().enumerate() {
                    if k > 0 {
                        text.push_str(", ");
                    }
                    text.push_str(e.text());
                }
                text.push(')');
                let mut canonical = String::with_capacity(text.len());
                parse_shape_events(text.as_bytes(), ParseOptions::default(), |event| {
                    let _ = write!(canonical, "{event}");
                })
                .ok()?;
                return Some(ShapeText::Inferred(canonical));
            }
            Rule::TupleElement => {
                let index: usize = attribute("index")?.trim().parse().ok()?;
                let mut elements = parse(operand(0)?)?.into_tuple_elements().ok()?;
                if index >= elements.len() {
                    return None;
                }
                elements.swap_remove(index)
            }
            Rule::Dot => dot(&parse(operand(0)?)?, &parse(operand(1)?)?, &attribute)?,
            Rule::Called(attributes) => {
                let called = attributes.iter().find_map(|a| attribute(a))?;
                let first = called
                    .trim_start_matches('{')
                    .split([',', '}'])
                    .next()?
                    .trim()
                    .trim_start_matches('%');
                return inferred(self.results.get(first).cloned()?);
            }
        };
        // Printing costs at most what parsing did.
        Some(ShapeText::Inferred(shape.to_string()))
    }

    /// An operand's shape: written before it, the shape of the
    /// instruction it names, or inferred for a nested instruction
    /// (`multiply(f32[10] parameter(1), …)`).
    fn operand(&self, text: &'a str) -> Option<ShapeText<'a>> {
        self.work.spend(text.len())?;
        let bytes = text.as_bytes();
        let first = Lexer::new(bytes).next_token();
        match first.kind {
            K::PrimitiveType | K::Lparen => {
                let (_, end) = parse_shape_at(bytes, 0).ok()?;
                return Some(ShapeText::Written(text.get(..end.end)?));
            }
            K::Name | K::Ident if first.end == bytes.len() => {
                let name = text.trim_start_matches('%');
                return self.instructions.get(name).cloned();
            }
            _ => {}
        }
        // `opcode(operands)`: a nested instruction without a shape.
        let mut lexer = Lexer::new(bytes);
        let opcode = lexer.next_token();
        let open = lexer.next_token();
        if opcode.kind != K::Ident || open.kind != K::Lparen {
            return None;
        }
        let end = lexer.skip_group(open).ok()?;
        let inner = text.get(open.end..end - 1)?;
        self.infer(text.get(opcode.start..opcode.end)?, inner, |_| None)
    }
}

/// `a` with elements of type `ty`: same dimensions and layout, but for
/// the element size XLA drops ([`ArrayShape::with_element_type`]).
fn with_type(a: &ArrayShape, ty: ElementType) -> ArrayShape {
    a.with_layout(a.layout_or_default()).with_element_type(ty)
}

/// `dot`: the batch dimensions, then the left operand's free dimensions,
/// then the right's, in order; the operands' higher-precision element type
/// (XLA's `HigherPrecisionElementType`); default layout.
fn dot<'a>(
    lhs: &Shape,
    rhs: &Shape,
    attribute: &impl Fn(&str) -> Option<&'a str>,
) -> Option<Shape> {
    let (Shape::Array(lhs), Shape::Array(rhs)) = (lhs, rhs) else {
        return None;
    };
    let list = |name: &str| -> Option<Vec<usize>> {
        let Some(text) = attribute(name) else {
            return Some(Vec::new());
        };
        text.trim()
            .trim_start_matches('{')
            .trim_end_matches('}')
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(|t| t.parse().ok())
            .collect()
    };
    let (lb, lc) = (list("lhs_batch_dims")?, list("lhs_contracting_dims")?);
    let (rb, rc) = (list("rhs_batch_dims")?, list("rhs_contracting_dims")?);
    // XLA's dimension numbers checks: as many batch and contracting
    // dimensions on each side, each inside its operand and named once,
    // paired ones of one size.
    let named_once = |batch: &[usize], contracting: &[usize], rank: usize| {
        let all = || batch.iter().chain(contracting);
        all().all(|&d| d < rank)
            && all()
                .enumerate()
                .all(|(k, d)| !all().take(k).any(|e| e == d))
    };
    let paired = |l: &[usize], r: &[usize]| {
        l.len() == r.len() && l.iter().zip(r).all(|(&a, &b)| lhs.dim(a) == rhs.dim(b))
    };
    // (In this order: `paired` reads the dimensions `named_once` checked.)
    let valid = named_once(&lb, &lc, lhs.rank())
        && named_once(&rb, &rc, rhs.rank())
        && paired(&lb, &rb)
        && paired(&lc, &rc);
    if !valid {
        return None;
    }
    // Each dimension as the operand has it, bounded (`<=n`) or not, as
    // XLA's `InferDotOpShape` keeps it.
    let mut dims = Vec::new();
    for &d in &lb {
        dims.push((d < lhs.rank()).then(|| lhs.dim(d))?);
    }
    for d in 0..lhs.rank() {
        if !lb.contains(&d) && !lc.contains(&d) {
            dims.push(lhs.dim(d));
        }
    }
    for d in 0..rhs.rank() {
        if !rb.contains(&d) && !rc.contains(&d) {
            dims.push(rhs.dim(d));
        }
    }
    ArrayShape::try_from_dims(
        lhs.element_type().higher_precision(rhs.element_type())?,
        &dims,
    )
    .ok()
    .map(Shape::Array)
}
