//! Values and buffers as XLA's dataflow analysis defines them
//! (`HloDataflowAnalysis`, `HloAliasAnalysis`; docs/memory-report.md says
//! how, in this project's words).
//!
//! A *position* is a node of an instruction's shape: the shape itself
//! (index `{}`) or a part of a tuple (`{1}`, `{0,2}`). At each position an
//! instruction either **defines** a value — new data, which needs memory —
//! or **forwards** the values of another position: `tuple`,
//! `get-tuple-element`, `bitcast`, the results of `while`, `call` and
//! `conditional`, the halves of asynchronous pairs. [`RULES`] is the table
//! of which opcode does which; [`Rule::defines_at`] answers it for one
//! position.
//!
//! [`Dataflow`] applies the table to a module: it finds how each
//! computation is called (a fusion body or a reducer runs inside its
//! caller and has no buffers of its own), creates one [`Value`] per
//! defining position, and joins positions that must share memory into
//! *buffers* — a forwarded position and its source, a loop's state across
//! `while`, a `conditional`'s branches, an in-place operation and the
//! operand it overwrites, a donated parameter and the output it becomes
//! (XLA's `HloBuffer`s, which become its allocations). It also flattens the
//! schedule of a scheduled module, called computations before their
//! caller, as XLA's `HloLiveRange` does, for liveness.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use hashbrown::HashMap;
use xla_layout_core::text::{ParseEvent, ParseOptions, parse_shape_events};
use xla_layout_core::{Shape, tpu, validate};

use crate::infer::Shapes;
use crate::items::{Instruction, Module};
use crate::names::{Misnaming, Names, operands_are_names};
use crate::opcodes::{AsyncPart, wrapped};

/// What an opcode's result holds at each position: values it defines, or
/// values that flow in from elsewhere. "Tuple nodes" are positions whose
/// shape is a tuple (their value is the tuple's table of element
/// pointers); "array nodes" are the rest.
///
/// ```
/// use xla_layout_hlo::dataflow::{Rule, rule};
/// assert_eq!(rule("tuple"), Rule::Tuple);
/// assert!(Rule::Tuple.defines_at(&[], true, Default::default()));
/// assert!(!Rule::Tuple.defines_at(&[0], false, Default::default()));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Rule {
    /// Defines a value at every position (every opcode not in [`RULES`]).
    Defines,
    /// Defines nothing; each position holds what operand 0 holds at the
    /// same index (`bitcast`, `add-dependency`, `domain`, `opt-barrier`,
    /// `all-reduce-done`).
    Forward,
    /// Defines nothing; position `q` holds operand 0's `{n, q…}` for the
    /// `index=n` attribute (`get-tuple-element`).
    Element,
    /// Defines its own table at `{}`; `{j, q…}` holds operand `j`'s `q`
    /// (`tuple`).
    Tuple,
    /// Defines `{}`; the rest holds operand 0's (`copy`: a shallow copy).
    Copy,
    /// Defines nothing; each position holds operand 0's and the body
    /// root's, which share memory with the body's and the condition's
    /// parameter (`while`).
    While,
    /// Defines nothing; holds the callee root's (`call`).
    Call,
    /// Defines nothing; holds every branch root's (`conditional`).
    Conditional,
    /// Defines everything in the entry computation and in computations
    /// that run inside an instruction (fusion bodies, reducers); in a
    /// computation called by `while`, `call`, `conditional` or an async
    /// op, holds the caller's operand (`parameter`).
    Parameter,
    /// Defines every tuple node and `{k≥2, …}` (contexts); `{0, j, q…}`
    /// holds operand `j`'s `q`; `{1, q…}` holds the wrapped computation
    /// root's `q` (`async-start`, and `X-start` for an async-wrapped `X`).
    /// When the wrapped computation runs on another execution thread (not
    /// in [`ANALYZED_THREADS`]), `{1, …}` is defined here too.
    AsyncStart,
    /// Defines every tuple node; each array node holds operand 0's
    /// (`async-update`).
    AsyncUpdate,
    /// Defines every tuple node; array node `q` holds operand 0's
    /// `{1, q…}` (`async-done`).
    AsyncDone,
    /// Defines `{}`, `{0}` (the destination) and `{2}` (the context);
    /// `{1}` holds operand 0 (`copy-start`).
    CopyStart,
    /// Defines nothing; holds operand 0's `{0}` (`copy-done`).
    CopyDone,
    /// Defines every tuple node and everything under `{1}` (the
    /// destinations); `{0}` (or `{0, j}` with several operands) holds the
    /// operands (`all-gather-start`).
    AllGatherStart,
    /// Defines `{}` when it is a tuple; array node `q` holds operand 0's
    /// `{1, q…}` (`all-gather-done`, `collective-permute-done`).
    CollectiveDone,
    /// Defines `{}`, everything under `{1}` and `{k≥2}` (contexts); `{0}`
    /// (or `{0, j}` with several operands) holds the operands
    /// (`collective-permute-start`).
    CollectivePermuteStart,
    /// Defines `{}` and `{1}` (the token); `{0, q…}` holds operand 0's
    /// `{0, q…}` (`recv-done`).
    RecvDone,
    /// Defines `{}`, `{1}` and `{2}`; `{0, q…}` holds operand 0's `q`
    /// (`send`).
    Send,
}

/// The table below, written once: [`RULES`] for readers, and a `match`
/// for [`rule`], which runs once per instruction (a search of the table
/// would not).
macro_rules! rules {
    ($(#[$doc:meta])* $($($opcode:literal)|+ => $rule:ident,)*) => {
        $(#[$doc])*
        pub const RULES: &[(&str, Rule)] = &[$($(($opcode, Rule::$rule),)+)*];

        /// The rule [`RULES`] gives `opcode`, if it lists it.
        fn listed_rule(opcode: &str) -> Option<Rule> {
            match opcode {
                $($($opcode)|+ => Some(Rule::$rule),)*
                _ => None,
            }
        }
    };
}

rules! {
    /// Every opcode that does not simply define a value at each position,
    /// with its [`Rule`] (XLA: `HloDataflowAnalysis::InitializeInstructionValueSets`
    /// and the `Update…ValueSet` functions).
    ///
    /// ```
    /// use xla_layout_hlo::dataflow::{RULES, Rule};
    /// assert!(RULES.contains(&("copy-done", Rule::CopyDone)));
    /// assert!(RULES.iter().all(|(_, r)| *r != Rule::Defines)); // the rest define everything
    /// ```
    "bitcast" | "add-dependency" | "domain" | "opt-barrier" | "all-reduce-done" => Forward,
    "get-tuple-element" => Element,
    "tuple" => Tuple,
    "copy" => Copy,
    "while" => While,
    "call" => Call,
    "conditional" => Conditional,
    "parameter" => Parameter,
    "async-start" => AsyncStart,
    "async-update" => AsyncUpdate,
    "async-done" => AsyncDone,
    "copy-start" => CopyStart,
    "copy-done" => CopyDone,
    "all-gather-start" => AllGatherStart,
    "all-gather-done" | "collective-permute-done" => CollectiveDone,
    "collective-permute-start" => CollectivePermuteStart,
    "recv-done" => RecvDone,
    "send" => Send,
}

/// The [`Rule`] of `opcode`. An opcode ending in `-start`, `-update` or
/// `-done` that is not an opcode of its own is the text form of an
/// asynchronously wrapped operation (`slice-start`, `fusion-done`), with
/// the rule of `async-start`, `async-update` or `async-done`.
///
/// ```
/// use xla_layout_hlo::dataflow::{Rule, rule};
///
/// assert_eq!(rule("add"), Rule::Defines);
/// assert_eq!(rule("get-tuple-element"), Rule::Element);
/// assert_eq!(rule("all-reduce-start"), Rule::Defines); // an opcode of its own
/// assert_eq!(rule("all-reduce-done"), Rule::Forward);
/// assert_eq!(rule("reduce-scatter-start"), Rule::AsyncStart); // an async wrapper
/// assert_eq!(rule("reduce-scatter-done"), Rule::AsyncDone);
/// ```
pub fn rule(opcode: &str) -> Rule {
    if let Some(r) = listed_rule(opcode) {
        return r;
    }
    // An opcode of its own (`all-reduce-start`, `send-done`) is no async
    // wrapper, whatever its suffix (`wrapped` tells).
    match wrapped(opcode) {
        Some((_, AsyncPart::Start)) => Rule::AsyncStart,
        Some((_, AsyncPart::Update)) => Rule::AsyncUpdate,
        Some((_, AsyncPart::Done)) => Rule::AsyncDone,
        None => Rule::Defines,
    }
}

/// Whether `opcode` is a fusion, run synchronously (`fusion`) or in the
/// short form of an async one (`fusion-start`, `fusion-update`,
/// `fusion-done`): its `calls=` is a fusion body either way.
fn is_fusion(opcode: &str) -> bool {
    opcode == "fusion" || wrapped(opcode).is_some_and(|(x, _)| x == "fusion")
}

/// What [`Rule::defines_at`] needs to know beyond the position.
///
/// ```
/// use xla_layout_hlo::dataflow::{Site, rule};
/// let in_a_loop_body = Site { called_for_control_flow: true, wrapped_here: false };
/// assert!(!rule("parameter").defines_at(&[], false, in_a_loop_body));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Site {
    /// Whether the instruction's computation gets its parameters from a
    /// caller (`while`, `call`, `conditional`, async); only `parameter`
    /// looks at it.
    pub called_for_control_flow: bool,
    /// Whether an async op's wrapped computation runs on this execution
    /// thread (and so defines `{1, …}` itself).
    pub wrapped_here: bool,
}

impl Rule {
    /// Whether an instruction with this rule defines a value at the
    /// position `index`, whose shape is a tuple when `is_tuple`.
    ///
    /// ```
    /// use xla_layout_hlo::dataflow::{Rule, Site, rule};
    ///
    /// let site = Site { wrapped_here: true, ..Site::default() };
    /// // copy-start: (destination, source, context)
    /// let cs = rule("copy-start");
    /// let defined: Vec<bool> = [&[][..], &[0], &[1], &[2]]
    ///     .iter()
    ///     .map(|i| cs.defines_at(i, i.is_empty(), site))
    ///     .collect();
    /// assert_eq!(defined, [true, true, false, true]);
    /// // An async slice: `{0, 0}` is its operand's buffer, `{1}` the wrapped root's.
    /// let start = rule("async-start");
    /// assert!(!start.defines_at(&[0, 0], false, site));
    /// assert!(!start.defines_at(&[1], false, site));
    /// assert!(start.defines_at(&[2], false, site)); // the context
    /// assert!(!rule("copy-done").defines_at(&[], false, site));
    /// // Parameters: defined in the entry, forwarded in a loop body.
    /// assert!(rule("parameter").defines_at(&[], false, site));
    /// let body = Site { called_for_control_flow: true, ..site };
    /// assert!(!rule("parameter").defines_at(&[], false, body));
    /// ```
    pub fn defines_at(self, index: &[u32], is_tuple: bool, site: Site) -> bool {
        let front = index.first().copied();
        match self {
            Rule::Defines => true,
            Rule::Forward
            | Rule::Element
            | Rule::While
            | Rule::Call
            | Rule::Conditional
            | Rule::CopyDone => false,
            Rule::Tuple | Rule::Copy => index.is_empty(),
            Rule::Parameter => !site.called_for_control_flow,
            Rule::AsyncStart => match front {
                _ if is_tuple => true,
                None | Some(0) => false,
                Some(1) => !site.wrapped_here,
                Some(_) => true,
            },
            Rule::AsyncUpdate | Rule::AsyncDone => is_tuple,
            Rule::CopyStart => front != Some(1),
            Rule::AllGatherStart => is_tuple || front == Some(1),
            Rule::CollectiveDone => index.is_empty() && is_tuple,
            Rule::CollectivePermuteStart => front != Some(0),
            Rule::RecvDone => index.is_empty() || front == Some(1),
            Rule::Send => front != Some(0),
        }
    }
}

/// How a computation runs: what its values are.
///
/// ```
/// use xla_layout_hlo::{Module, dataflow::Dataflow};
/// let m = Module::parse("ENTRY e {\n p = (f32[2]{0}, s32[]) parameter(0)\n g = f32[2]{0} get-tuple-element(p), index=0\n ROOT n = f32[2]{0} negate(g)\n}").unwrap();
/// let d = Dataflow::new(&m);
/// assert_eq!(d.context(0), xla_layout_hlo::dataflow::CallContext::Entry);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CallContext {
    /// The entry computation: its parameters are the program's arguments.
    Entry,
    /// Called by `while`, `call`, `conditional` or an async op: its values
    /// are buffers; its parameters are the caller's operands.
    ControlFlow,
    /// A fusion body (`calls=` of a `fusion`): it runs inside the fusion
    /// and has no buffers of its own.
    Fusion,
    /// Run by an instruction element by element (a reducer, a comparator,
    /// anything called from a fusion body): its values are per-thread
    /// scratch (XLA's "thread-local" allocations), not buffers; its
    /// constants are allocated.
    Embedded,
    /// Not called from the entry computation.
    Uncalled,
    /// Runs on another execution thread (`execution_thread="…"`, one not
    /// in [`ANALYZED_THREADS`]), outside the main thread's buffers.
    OtherThread,
}

/// The execution threads whose values XLA's buffer assignment holds
/// with the main thread's: a computation on any other thread
/// ([`CallContext::OtherThread`]) has none here. `host`: TPU dumps of
/// host computation (`async_execution_thread="host"`, a `HostExecute`
/// custom call) list the wrapped root as the async op's output and the
/// host computation's values as thread-local allocations.
///
/// ```
/// use xla_layout_hlo::{Module, dataflow::{CallContext, Dataflow}};
/// let text = |thread: &str| format!("w {{\n p = f32[4]{{0}} parameter(0)\n ROOT n = f32[4]{{0}} negate(p)\n}}, execution_thread=\"{thread}\"\nENTRY e {{\n x = f32[4]{{0}} parameter(0)\n s = ((f32[4]{{0}}), f32[4]{{0}}, u32[]) async-start(x), async_execution_thread=\"{thread}\", calls=w\n ROOT d = f32[4]{{0}} async-done(s)\n}}");
/// let (host, sparsecore) = (text("host"), text("sparsecore"));
/// let host = Module::parse(&host).unwrap();
/// assert_eq!(Dataflow::new(&host).context(0), CallContext::ControlFlow); // its values are here
/// let other = Module::parse(&sparsecore).unwrap();
/// assert_eq!(Dataflow::new(&other).context(0), CallContext::OtherThread);
/// ```
pub const ANALYZED_THREADS: &[&str] = &["main", "host"];

/// Which instruction: its position in [`Module::instructions`] order.
///
/// ```
/// use xla_layout_hlo::{Module, dataflow::Dataflow};
/// let m = Module::parse("ENTRY e {\n p = (f32[2]{0}, s32[]) parameter(0)\n g = f32[2]{0} get-tuple-element(p), index=0\n ROOT n = f32[2]{0} negate(g)\n}").unwrap();
/// let d = Dataflow::new(&m);
/// let id: xla_layout_hlo::dataflow::InstructionId = d.find("n").unwrap();
/// assert_eq!(id, 2); // the third instruction of the module
/// ```
pub type InstructionId = u32;

/// "None" for the `u32` indices of this module.
const NONE: u32 = u32::MAX;

/// How many nodes the shapes of one module may have, together: node
/// indices are `u32`s below [`NONE`] ([`build_nodes`] refuses a shape
/// past this, and the analysis is [`Dataflow::truncated`]).
const MAX_NODES: usize = u32::MAX as usize;

/// How many positions [`Dataflow::new`] numbers: position, value and
/// buffer numbers are `u32`s below [`NONE`]. Past this it defines no more
/// values ([`Dataflow::truncated`]). One below `u32::MAX`, so that even an
/// instruction without nodes never starts at [`NONE`].
const MAX_POSITIONS: u32 = u32::MAX - 1;

/// How much [`Dataflow::with_limits`] numbers: at most [`LIMITS`], the
/// capacity of its `u32`s ([`Dataflow::new`]'s); less in tests, which
/// cannot build a module that large.
#[derive(Clone, Copy)]
pub(crate) struct Limits {
    /// Shape nodes, at most [`MAX_NODES`].
    pub(crate) nodes: usize,
    /// Positions, at most [`MAX_POSITIONS`].
    pub(crate) positions: u32,
}

/// [`Dataflow::new`]'s limits: all that its `u32`s number.
pub(crate) const LIMITS: Limits = Limits {
    nodes: MAX_NODES,
    positions: MAX_POSITIONS,
};

/// A computation's index or an instruction's id, a count of either, or a
/// step of [`Dataflow::schedule`] (which lists each instruction once at
/// most), as a `u32`: it fits, below [`NONE`], because a [`Module`] has at
/// most `u32::MAX - 1` computations and instructions together (the reader
/// refuses more: `HloErrorKind::ModuleTooLarge`).
pub(crate) fn item_index(n: usize) -> u32 {
    debug_assert!(n < NONE as usize, "more items than a module holds");
    n as u32
}

/// A node's index or a count of nodes (in one shape, or in the nodes of
/// all of a module's shapes), as a `u32`: it fits, because
/// [`build_nodes`] keeps at most [`MAX_NODES`].
fn node_index(n: usize) -> u32 {
    debug_assert!(n <= MAX_NODES, "more nodes than build_nodes keeps");
    n as u32
}

/// A position's, value's or buffer's number, or a count of them, as a
/// `u32`: it fits, because [`Dataflow::new`] numbers at most
/// [`MAX_POSITIONS`] positions, and there is at most one value and one
/// buffer per position.
pub(crate) fn position_number(n: usize) -> u32 {
    debug_assert!(n <= MAX_POSITIONS as usize, "more positions than numbered");
    n as u32
}

/// An index within one instruction's text, as a `u32`: of an operand, or
/// of a name in an attribute's list. It fits, below [`NONE`]: an
/// instruction is under 4 GiB (the reader refuses longer:
/// `HloErrorKind::InstructionTooLong`), and each item of such a list but
/// the last ends at a comma of it.
fn index_in_instruction(n: usize) -> u32 {
    debug_assert!(n < NONE as usize, "an index past an instruction's text");
    n as u32
}

/// One node of a shape: the shape itself or a part of a tuple.
///
/// ```
/// use xla_layout_hlo::{Module, dataflow::Dataflow};
/// let m = Module::parse("ENTRY e {\n p = (f32[2]{0}, s32[]) parameter(0)\n g = f32[2]{0} get-tuple-element(p), index=0\n ROOT n = f32[2]{0} negate(g)\n}").unwrap();
/// let d = Dataflow::new(&m);
/// let nodes = d.nodes(0); // p: the tuple, then its two elements
/// assert_eq!(nodes.len(), 3);
/// assert_eq!(d.index_of(&nodes[2]), [1]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Node {
    /// What it is.
    pub kind: NodeKind,
    /// Nodes in its subtree, itself included (preorder: its first child
    /// follows it).
    subtree: u32,
    /// Its parent tuple's place in [`Dataflow`]'s node arena (`NONE` for
    /// the shape itself), its own place among the parent's elements, and
    /// its depth: an index is found by walking up, so that the nodes of a
    /// deeply nested shape cost memory in proportion to their number, not
    /// to the sum of their depths (which is quadratic in the text).
    parent: u32,
    at: u32,
    depth: u32,
    /// A tuple's children: where their offsets from it start in
    /// [`Dataflow`]'s children arena (`arity` of them), so that finding
    /// child `k` takes one step, not `k` (a wide tuple's every element
    /// looked up would be quadratic).
    kids: u32,
}

/// What a shape node is.
///
/// ```
/// use xla_layout_hlo::{Module, dataflow::Dataflow};
/// let m = Module::parse("ENTRY e {\n p = (f32[2]{0}, s32[]) parameter(0)\n g = f32[2]{0} get-tuple-element(p), index=0\n ROOT n = f32[2]{0} negate(g)\n}").unwrap();
/// let d = Dataflow::new(&m);
/// use xla_layout_hlo::dataflow::NodeKind;
/// assert!(matches!(d.nodes(0)[0].kind, NodeKind::Tuple { arity: 2 }));
/// assert!(matches!(d.nodes(0)[1].kind, NodeKind::Array(_)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum NodeKind {
    /// A tuple of `arity` elements.
    Tuple {
        /// Its element count.
        arity: u32,
    },
    /// An array.
    Array(ArrayNode),
    /// `token[]`: no data.
    Token,
    /// An opaque value (a pointer).
    Opaque,
}

/// The sizes of an array node, each `None` where undefined (a layout
/// XLA's validator rejects, an unbounded dimension, over 64 bits).
///
/// ```
/// use xla_layout_hlo::{Module, dataflow::{Dataflow, NodeKind}};
/// let m = Module::parse("ENTRY e {\n ROOT p = f32[3]{0:T(128)S(1)} parameter(0)\n}").unwrap();
/// let d = Dataflow::new(&m);
/// let NodeKind::Array(a) = d.nodes(0)[0].kind else { panic!() };
/// assert_eq!((a.space, a.tiled_bytes, a.data_bytes, a.xla_bytes), (1, Some(512), Some(12), Some(12)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArrayNode {
    /// Its memory space (`S(n)`).
    pub space: i8,
    /// Every tile level, `L` and `E` counted
    /// ([`xla_layout_core::TiledShape::exact_bytes`]).
    pub tiled_bytes: Option<u64>,
    /// What a TPU allocates ([`xla_layout_core::tpu::buffer_bytes`]).
    pub tpu_bytes: Option<u64>,
    /// The elements at their storage width
    /// ([`xla_layout_core::TiledShape::data_bytes`]).
    pub data_bytes: Option<u64>,
    /// `ShapeUtil::ByteSizeOf`: elements × width, tiles ignored; what the
    /// CPU and GPU allocate (plus [`ArrayNode::dynamic_size_bytes`]).
    pub xla_bytes: Option<u64>,
    /// Whether a dimension is dynamic (`<=N`).
    pub dynamic: bool,
    /// The sizes a dynamic array carries on the CPU and GPU
    /// ([`xla_layout_core::ArrayShape::xla_dynamic_size_bytes`]).
    pub dynamic_size_bytes: u64,
    /// Whether its layout has tiles (`T(…)`).
    pub tiled: bool,
    /// Whether XLA's validator accepts it (the sizes above are `None`
    /// when not).
    pub valid: bool,
}

/// A value: the data one instruction defines at one position.
///
/// ```
/// use xla_layout_hlo::{Module, dataflow::Dataflow};
/// let m = Module::parse("ENTRY e {\n p = (f32[2]{0}, s32[]) parameter(0)\n g = f32[2]{0} get-tuple-element(p), index=0\n ROOT n = f32[2]{0} negate(g)\n}").unwrap();
/// let d = Dataflow::new(&m);
/// use xla_layout_hlo::dataflow::Value;
/// assert_eq!(d.values()[0], Value { instruction: 0, node: 0 }); // p's table
/// assert_eq!(d.value_name(d.values()[2]), "p{1}");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Value {
    /// The defining instruction.
    pub instruction: InstructionId,
    /// The position: a node of its shape, in preorder (0 is `{}`).
    pub node: u32,
}

/// A computation an instruction calls, and in which role.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Callee {
    computation: u32,
    role: Role,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Body,
    Condition,
    Branch(u32),
    ToApply,
    Calls,
    Other,
}

/// A module's values and buffers (see the [module](self) docs).
///
/// ```
/// use xla_layout_hlo::Module;
/// use xla_layout_hlo::dataflow::Dataflow;
///
/// let m = Module::parse(r#"HloModule m, is_scheduled=true
/// ENTRY e {
///   p = f32[8]{0} parameter(0)
///   n = f32[8]{0} negate(p)
///   b = f32[2,4]{1,0} bitcast(n)
///   ROOT t = (f32[8]{0}, f32[2,4]{1,0}) tuple(p, b)
/// }"#).unwrap();
/// let d = Dataflow::new(&m);
/// let names: Vec<String> = d.values().iter().map(|v| d.value_name(*v)).collect();
/// assert_eq!(names, ["p", "n", "t{}"]); // bitcast and tuple elements forward
/// // `b` is `n`'s buffer; `t{1}` too.
/// let (b, t) = (d.find("b").unwrap(), d.find("t").unwrap());
/// assert_eq!(d.buffer_at(b, 0), d.buffer_at(d.find("n").unwrap(), 0));
/// assert_eq!(d.buffer_at(t, 2), d.buffer_at(b, 0));
/// ```
pub struct Dataflow<'m, 'a> {
    module: &'m Module<'a>,
    /// Per computation.
    contexts: Vec<CallContext>,
    /// Per computation: its first instruction's id (and one past the last).
    comp_start: Vec<u32>,
    /// Per instruction: its shape's nodes, a range of `nodes`.
    shapes: Vec<(u32, u32)>,
    nodes: Vec<Node>,
    /// Tuples' children, as offsets from the tuple ([`Node::kids`]).
    kids: Vec<u32>,
    /// Per instruction: its operands (ids, `NONE` for text that names none),
    /// as a range of `operand_ids`.
    /// (`usize`: the module's operands together are not bounded by its
    /// instructions.)
    operand_start: Vec<usize>,
    operand_ids: Vec<u32>,
    /// Per instruction with callees: its callees, sorted by instruction.
    callees: Vec<(u32, Callee)>,
    /// Per instruction: its first position (`NONE` outside the entry and
    /// control-flow computations).
    positions: Vec<u32>,
    /// Per position: union-find parent, then (after `finish`) its buffer.
    buffer: Vec<u32>,
    values: Vec<Value>,
    /// Per buffer: its values, as a range of `buffer_values`.
    buffer_start: Vec<u32>,
    buffer_values: Vec<u32>,
    /// Constants of reducers and other embedded computations (XLA
    /// allocates them although their computation has no buffers).
    embedded_constants: Vec<InstructionId>,
    schedule: Vec<InstructionId>,
    /// Per computation: where its own flattened instructions start and
    /// end in `schedule` (`NONE` when it is not in it).
    comp_span: Vec<(u32, u32)>,
    /// Instructions whose shape is neither written nor inferred.
    unshaped: Vec<InstructionId>,
    /// Instructions XLA's parser refuses for their names, with why
    /// (`true`: an operand names nothing), as [`Names::finish`] gives them.
    misnamed: Vec<(InstructionId, Misnaming<'a>)>,
    /// Per computation: its root (`NONE` when it has no instructions).
    roots: Vec<u32>,
    /// `(computation, n)` → its first `parameter(n)`: found by a scan
    /// per call operand, calls of wide computations were quadratic.
    parameters: HashMap<(u32, u64), u32>,
    /// The distinct inferred shape texts, and which is each inferred
    /// instruction's ([`Dataflow::shape_text`]).
    inferred_texts: Vec<String>,
    inferred_text: HashMap<u32, usize>,
    /// Whether the shapes' nodes or the positions ran past their limit:
    /// some instructions have no shape or no position, and define no
    /// value ([`Dataflow::truncated`]).
    truncated: bool,
}

/// The shapes of a module's instructions, parsed once per distinct text.
struct ShapeNodes<'a> {
    written: HashMap<&'a str, (u32, u32)>,
    /// Each inferred text: its nodes, and its place in `texts`.
    inferred: HashMap<String, ((u32, u32), usize)>,
    texts: Vec<String>,
    nodes: Vec<Node>,
    kids: Vec<u32>,
    /// How many `nodes` may be, and whether a shape did not fit.
    limit: usize,
    full: bool,
}

impl<'a> ShapeNodes<'a> {
    fn get(&mut self, text: &str) -> (u32, u32) {
        match build_nodes(text, &mut self.nodes, &mut self.kids, self.limit) {
            Ok(range) => range,
            Err(why) => {
                self.full |= why == NotBuilt::Full;
                (0, 0)
            }
        }
    }

    fn written(&mut self, text: &'a str) -> (u32, u32) {
        if let Some(&r) = self.written.get(text) {
            return r;
        }
        let r = self.get(text);
        self.written.insert(text, r);
        r
    }

    /// The nodes of an inferred `text`, and its place in `texts`.
    fn inferred(&mut self, text: String) -> ((u32, u32), usize) {
        if let Some(&r) = self.inferred.get(&text) {
            return r;
        }
        let r = (self.get(&text), self.texts.len());
        self.texts.push(text.clone());
        self.inferred.insert(text, r);
        r
    }
}

/// Why [`build_nodes`] built nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NotBuilt {
    /// The shape does not parse (or has no node).
    Unread,
    /// Its nodes would pass the limit.
    Full,
}

/// Appends the nodes of the shape `text` in preorder, and each tuple's
/// children to `kids`, keeping `nodes` at most `limit` long (at most
/// [`MAX_NODES`]); nothing appended when it does not parse or fit.
fn build_nodes(
    text: &str,
    nodes: &mut Vec<Node>,
    kids: &mut Vec<u32>,
    limit: usize,
) -> Result<(u32, u32), NotBuilt> {
    let start = nodes.len();
    let kids_start = kids.len();
    let mut open: Vec<usize> = Vec::new();
    // The open tuples' children so far, innermost last: a tuple's are
    // contiguous once its nested tuples have closed.
    let mut children: Vec<u32> = Vec::new();
    let mut first_child: Vec<usize> = Vec::new();
    // Set once the nodes would pass `limit`: the rest of the shape is
    // not built, and what was is dropped below. Until then every index
    // and count here is at most `nodes.len()`, which fits.
    let mut full = false;
    let push = |kind: NodeKind, index: usize, open: &[usize], nodes: &mut Vec<Node>| {
        nodes.push(Node {
            kind,
            subtree: 1,
            parent: open.last().map_or(NONE, |&p| node_index(p)),
            at: if open.is_empty() {
                0
            } else {
                node_index(index)
            },
            depth: node_index(open.len()),
            kids: 0,
        });
    };
    let parsed = parse_shape_events(text.as_bytes(), ParseOptions::default(), |event| {
        // Only a start or a leaf adds a node.
        let adds = !matches!(event, ParseEvent::TupleEnd);
        full = full || (adds && nodes.len() >= limit.min(MAX_NODES));
        if full {
            return;
        }
        match event {
            ParseEvent::TupleStart { index } => {
                if !open.is_empty() {
                    children.push(node_index(nodes.len()));
                }
                push(NodeKind::Tuple { arity: 0 }, index, &open, nodes);
                open.push(nodes.len() - 1);
                first_child.push(children.len());
            }
            ParseEvent::Leaf { index, shape } => {
                if !open.is_empty() {
                    children.push(node_index(nodes.len()));
                }
                push(leaf(shape), index, &open, nodes);
                if let Some(&t) = open.last()
                    && let NodeKind::Tuple { arity } = &mut nodes[t].kind
                {
                    *arity += 1;
                }
            }
            ParseEvent::TupleEnd => {
                if let Some(t) = open.pop() {
                    nodes[t].subtree = node_index(nodes.len() - t);
                    let from = first_child.pop().unwrap_or(children.len());
                    // Each kid is a node but a shape's first: fewer than
                    // the nodes.
                    nodes[t].kids = node_index(kids.len());
                    kids.extend(children.drain(from..).map(|c| c - node_index(t)));
                    if let Some(&p) = open.last()
                        && let NodeKind::Tuple { arity } = &mut nodes[p].kind
                    {
                        *arity += 1;
                    }
                }
            }
        }
    });
    let end = nodes.len();
    if parsed.is_err() || end == start || full {
        nodes.truncate(start);
        kids.truncate(kids_start);
        return Err(if full {
            NotBuilt::Full
        } else {
            NotBuilt::Unread
        });
    }
    Ok((node_index(start), node_index(end)))
}

/// The node of a non-tuple shape. An array without a layout gets the
/// default one, as XLA gives it.
fn leaf(shape: &Shape) -> NodeKind {
    let a = match shape {
        Shape::Array(a) => a,
        Shape::Opaque => return NodeKind::Opaque,
        _ => return NodeKind::Token,
    };
    let with_layout;
    let a = if a.layout().is_some() {
        a
    } else {
        with_layout = a.with_layout(a.layout_or_default());
        &with_layout
    };
    let valid = validate(&Shape::Array(*a)).is_ok();
    let tiled = if valid { a.tiled().ok() } else { None };
    let xla_bytes = if valid {
        a.xla_byte_size_of().ok()
    } else {
        None
    };
    // `tpu::buffer_bytes` from the sizes already at hand, rather than
    // tiling each node's shape a second time.
    let tpu_bytes = match tpu::sizing(a) {
        tpu::Sizing::Elements => xla_bytes.map(|x| (0, x)),
        _ => tiled.map(|t| (t.exact_bytes(), 0)),
    }
    .and_then(|(t, e)| tpu::buffer_bytes_from(a, t, e).ok());
    NodeKind::Array(ArrayNode {
        space: a.memory_space(),
        tiled_bytes: tiled.map(|t| t.exact_bytes()),
        tpu_bytes,
        data_bytes: tiled.map(|t| t.data_bytes()),
        xla_bytes,
        dynamic: !a.is_static(),
        dynamic_size_bytes: a.xla_dynamic_size_bytes(),
        tiled: a.layout().is_some_and(|l| l.tile_count() > 0),
        valid,
    })
}

impl<'m, 'a> Dataflow<'m, 'a> {
    /// Analyses `module`: call contexts, shapes (inferring those left out),
    /// values, buffers and, for every module, the flattened instruction
    /// order (meaningful as a schedule when `is_scheduled=true`).
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::Dataflow};
    /// let m = Module::parse("ENTRY e {\n p = (f32[2]{0}, s32[]) parameter(0)\n g = f32[2]{0} get-tuple-element(p), index=0\n ROOT n = f32[2]{0} negate(g)\n}").unwrap();
    /// let d = Dataflow::new(&m);
    /// assert_eq!(d.values().len(), 4); // p{}, p{0}, p{1}, n
    /// ```
    pub fn new(module: &'m Module<'a>) -> Dataflow<'m, 'a> {
        Dataflow::with_limits(module, LIMITS)
    }

    /// [`Dataflow::new`], numbering at most `limits`.
    pub(crate) fn with_limits(module: &'m Module<'a>, limits: Limits) -> Dataflow<'m, 'a> {
        let computations = module.computations();
        let mut comp_start = Vec::with_capacity(computations.len() + 1);
        let mut total = 0usize;
        for c in computations {
            comp_start.push(item_index(total));
            total += c.instructions().len();
        }
        comp_start.push(item_index(total));
        let n = total;

        // Names: of computations, and of instructions per computation.
        let mut comp_names: HashMap<&'a str, u32> = HashMap::with_capacity(computations.len());
        for (k, c) in computations.iter().enumerate() {
            comp_names.entry(c.name()).or_insert(item_index(k));
        }
        let mut names: HashMap<(u32, &'a str), u32> = HashMap::with_capacity(n);
        let mut parameters: HashMap<(u32, u64), u32> = HashMap::new();
        let mut roots = Vec::with_capacity(computations.len());
        let mut id = 0u32;
        let mut check = Names::new();
        for (k, c) in computations.iter().enumerate() {
            let k = item_index(k);
            check.computation(c.name());
            // XLA's rule (`Computation::root`): the one marked, else the last.
            let root = c.instructions().iter().position(|i| i.is_root());
            let last = c.instructions().len().checked_sub(1);
            roots.push(root.or(last).map_or(NONE, |at| id + item_index(at)));
            for i in c.instructions() {
                // The first of a name stands for it (XLA refuses the rest).
                names.entry((k, i.name())).or_insert(id);
                check.instruction(*i);
                if i.opcode() == "parameter"
                    && let Ok(n) = i.operands_text().trim().parse::<u64>()
                {
                    parameters.entry((k, n)).or_insert(id);
                }
                id += 1;
            }
        }
        let misnamed = (check.finish(module.unread_parts()).iter())
            .map(|m| (m.id, m.why))
            .collect();

        // Shapes, operands, callees.
        let any_omitted = module.instructions().any(|(_, i)| i.shape_text().is_none());
        let mut infer = any_omitted.then(Shapes::new);
        let mut memo = ShapeNodes {
            written: HashMap::new(),
            inferred: HashMap::new(),
            texts: Vec::new(),
            nodes: Vec::new(),
            kids: Vec::new(),
            limit: limits.nodes,
            full: false,
        };
        let mut shapes = Vec::with_capacity(n);
        let mut operand_start = Vec::with_capacity(n + 1);
        let mut operand_ids = Vec::with_capacity(n * 2);
        let mut unshaped = Vec::new();
        let mut inferred_text = HashMap::new();
        let mut callees = Vec::new();
        let mut id = 0u32;
        for (k, c) in computations.iter().enumerate() {
            let k = item_index(k);
            if let Some(s) = infer.as_mut() {
                s.computation(c);
            }
            for i in c.instructions() {
                let range = match (i.shape_text(), infer.as_mut()) {
                    (Some(text), inf) => {
                        if let Some(s) = inf {
                            s.instruction(i);
                        }
                        memo.written(text)
                    }
                    (None, Some(s)) => match s.instruction(i) {
                        Some(t) => {
                            let (range, text) = memo.inferred(String::from(t.text()));
                            inferred_text.insert(id, text);
                            range
                        }
                        None => {
                            unshaped.push(id);
                            (0, 0)
                        }
                    },
                    (None, None) => {
                        unshaped.push(id);
                        (0, 0)
                    }
                };
                shapes.push(range);
                operand_start.push(operand_ids.len());
                if operands_are_names(i.opcode()) {
                    for o in i.operands() {
                        let target = o.name().and_then(|name| names.get(&(k, name))).copied();
                        operand_ids.push(target.unwrap_or(NONE));
                    }
                }
                collect_callees(i, id, &comp_names, &mut callees);
                id += 1;
            }
            if let Some(s) = infer.as_mut() {
                s.end_computation();
            }
        }
        operand_start.push(operand_ids.len());

        let mut d = Dataflow {
            module,
            contexts: Vec::new(),
            comp_start,
            shapes,
            nodes: memo.nodes,
            kids: memo.kids,
            operand_start,
            operand_ids,
            callees,
            positions: vec![NONE; n],
            buffer: Vec::new(),
            values: Vec::new(),
            buffer_start: Vec::new(),
            buffer_values: Vec::new(),
            embedded_constants: Vec::new(),
            schedule: Vec::new(),
            comp_span: vec![(NONE, NONE); computations.len()],
            unshaped,
            misnamed,
            roots,
            parameters,
            truncated: memo.full,
            inferred_texts: memo.texts,
            inferred_text,
        };
        d.contexts = d.call_contexts();
        d.define_and_join(limits.positions);
        d.finish();
        d.flatten();
        d
    }

    /// Instruction `id`'s shape as text: as written, else as inferred
    /// ([`crate::infer`]); `None` when neither (or no such instruction).
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::Dataflow};
    /// let m = Module::parse("ENTRY e {\n p = f32[8,128]{1,0} parameter(0)\n ROOT n = negate(p)\n}").unwrap();
    /// let d = Dataflow::new(&m);
    /// assert_eq!(d.shape_text(d.find("p").unwrap()), Some("f32[8,128]{1,0}"));
    /// assert_eq!(d.shape_text(d.find("n").unwrap()), Some("f32[8,128]{1,0}")); // inferred
    /// ```
    pub fn shape_text(&self, id: InstructionId) -> Option<&str> {
        let (_, i) = self.instruction(id)?;
        match i.shape_text() {
            Some(text) => Some(text),
            None => Some(self.inferred_texts.get(*self.inferred_text.get(&id)?)?),
        }
    }

    /// The instructions whose shape is neither written nor inferred (an
    /// opcode whose shape rule is not among [`crate::infer`]'s, or operands
    /// whose shapes are unknown): they define no value, so their bytes are
    /// in no sum.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::Dataflow};
    /// let m = Module::parse("ENTRY e {\n p = f32[8,128]{1,0} parameter(0)\n t = transpose(p), dimensions={1,0}\n ROOT n = negate(t)\n}").unwrap();
    /// let d = Dataflow::new(&m);
    /// assert_eq!(d.unshaped(), [d.find("t").unwrap(), d.find("n").unwrap()]);
    /// ```
    pub fn unshaped(&self) -> &[InstructionId] {
        &self.unshaped
    }

    /// Whether the module is larger than the analysis numbers with its
    /// `u32`s, so that its values and buffers are only a part of the
    /// module's: more distinct shapes' nodes than `u32::MAX` (the shapes
    /// past them are not built: their instructions have no node), or more
    /// positions (nodes of the entry's and control-flow computations'
    /// instructions) than `u32::MAX` (the instructions from the first that
    /// did not fit on have no position). Either way those define no value
    /// and are in no buffer.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::Dataflow};
    /// let m = Module::parse("ENTRY e {\n ROOT p = (f32[2]{0}, s32[]) parameter(0)\n}").unwrap();
    /// let d = Dataflow::new(&m);
    /// assert!(!d.truncated()); // 3 positions
    /// assert_eq!(d.values().len(), 3);
    /// ```
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// The instructions XLA's parser would refuse for their names: an
    /// operand that names no instruction of the computation, a called
    /// computation the module does not have, or a name an earlier
    /// instruction of the computation has (whose first holder stands for
    /// it), in module order. Their computations are read as
    /// written, the figures from them estimates. In a module with parts
    /// that did not read ([`Module::unread_parts`]) an operand or a callee
    /// may name one of those: only repeated names are listed then.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::Dataflow};
    /// let m = Module::parse("ENTRY e {\n p = f32[4]{0} parameter(0)\n p = f32[4]{0} parameter(1)\n ROOT a = f32[4]{0} add(p, missing)\n}").unwrap();
    /// let d = Dataflow::new(&m);
    /// assert_eq!(d.misnamed(), [1, 2]); // the second p; a, for `missing`
    /// ```
    pub fn misnamed(&self) -> Vec<InstructionId> {
        self.misnamed_by_why().map(|(id, _)| id).collect()
    }

    /// [`Dataflow::misnamed`], each with why (an instruction with several
    /// reasons is listed once, for the first in [`Misnaming`]'s order).
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::Dataflow, names::Misnaming};
    /// let m = Module::parse("ENTRY e {\n p = f32[4]{0} parameter(0)\n p = f32[4]{0} parameter(1)\n a = f32[4]{0} add(p, missing)\n ROOT c = f32[4]{0} call(a), to_apply=gone\n}").unwrap();
    /// let why: Vec<_> = Dataflow::new(&m).misnamed_by_why().collect();
    /// assert_eq!(why, [(1, Misnaming::Repeated), (2, Misnaming::Operand("missing")), (3, Misnaming::Computation("gone"))]);
    /// ```
    pub fn misnamed_by_why(&self) -> impl Iterator<Item = (InstructionId, Misnaming<'a>)> + '_ {
        self.misnamed.iter().copied()
    }

    /// The module analysed.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::Dataflow};
    /// let m = Module::parse("ENTRY e {\n p = (f32[2]{0}, s32[]) parameter(0)\n g = f32[2]{0} get-tuple-element(p), index=0\n ROOT n = f32[2]{0} negate(g)\n}").unwrap();
    /// let d = Dataflow::new(&m);
    /// assert_eq!(d.module().computations().len(), 1);
    /// ```
    pub fn module(&self) -> &'m Module<'a> {
        self.module
    }

    /// How computation `k` (an index into [`Module::computations`]) runs.
    ///
    /// ```
    /// use xla_layout_hlo::Module;
    /// use xla_layout_hlo::dataflow::{CallContext, Dataflow};
    ///
    /// let m = Module::parse(r#"
    /// add { x = f32[] parameter(0)  y = f32[] parameter(1)  ROOT s = f32[] add(x, y) }
    /// fused { a = f32[8]{0} parameter(0)  ROOT n = f32[8]{0} negate(a) }
    /// body { s = (f32[8]{0}) parameter(0)  ROOT t = (f32[8]{0}) tuple(s) }
    /// cond { s = (f32[8]{0}) parameter(0)  ROOT c = pred[] constant(false) }
    /// ENTRY e {
    ///   p = f32[8]{0} parameter(0)
    ///   f = f32[8]{0} fusion(p), kind=kLoop, calls=fused
    ///   z = f32[] constant(0)
    ///   r = f32[] reduce(f, z), dimensions={0}, to_apply=add
    ///   t = (f32[8]{0}) tuple(f)
    ///   ROOT w = (f32[8]{0}) while(t), condition=cond, body=body
    /// }"#).unwrap();
    /// let d = Dataflow::new(&m);
    /// let contexts: Vec<CallContext> = (0..5).map(|k| d.context(k)).collect();
    /// assert_eq!(contexts, [CallContext::Embedded, CallContext::Fusion,
    ///     CallContext::ControlFlow, CallContext::ControlFlow, CallContext::Entry]);
    /// ```
    pub fn context(&self, computation: usize) -> CallContext {
        self.contexts
            .get(computation)
            .copied()
            .unwrap_or(CallContext::Uncalled)
    }

    /// Every value, in instruction order, then position order.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::Dataflow};
    /// let m = Module::parse("ENTRY e {\n p = (f32[2]{0}, s32[]) parameter(0)\n g = f32[2]{0} get-tuple-element(p), index=0\n ROOT n = f32[2]{0} negate(g)\n}").unwrap();
    /// let d = Dataflow::new(&m);
    /// let names: Vec<String> = d.values().iter().map(|v| d.value_name(*v)).collect();
    /// assert_eq!(names, ["p{}", "p{0}", "p{1}", "n"]);
    /// ```
    pub fn values(&self) -> &[Value] {
        &self.values
    }

    /// The buffer holding `value`: values that must share memory share
    /// a buffer. Buffers are numbered from 0 to [`Dataflow::buffer_count`].
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::Dataflow};
    /// let m = Module::parse("ENTRY e {\n p = (f32[2]{0}, s32[]) parameter(0)\n g = f32[2]{0} get-tuple-element(p), index=0\n ROOT n = f32[2]{0} negate(g)\n}").unwrap();
    /// let d = Dataflow::new(&m);
    /// let g = d.find("g").unwrap();
    /// assert_eq!(d.buffer_of(d.values()[1]), d.buffer_at(g, 0).unwrap()); // g is p{0}
    /// ```
    pub fn buffer_of(&self, value: Value) -> u32 {
        self.buffer_at(value.instruction, value.node)
            .unwrap_or(NONE)
    }

    /// The buffer at position `node` of `instruction`; `None` outside the
    /// entry and control-flow computations, past its shape's nodes, or
    /// where the position holds no value (it forwards an operand that
    /// names nothing).
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::Dataflow};
    /// let m = Module::parse("ENTRY e {\n p = (f32[2]{0}, s32[]) parameter(0)\n g = f32[2]{0} get-tuple-element(p), index=0\n ROOT n = f32[2]{0} negate(g)\n}").unwrap();
    /// let d = Dataflow::new(&m);
    /// assert_eq!(d.buffer_at(d.find("g").unwrap(), 0), d.buffer_at(0, 1));
    /// assert_eq!(d.buffer_at(0, 9), None);
    /// ```
    pub fn buffer_at(&self, instruction: InstructionId, node: u32) -> Option<u32> {
        let base = *self.positions.get(instruction as usize)?;
        if base == NONE || node >= self.node_count(instruction) {
            return None;
        }
        self.buffer
            .get((base + node) as usize)
            .copied()
            .filter(|&b| b != NONE)
    }

    /// How many buffers there are. A reducer's constant, which the
    /// dataflow gives none, is not among them: the memory report counts
    /// it as a buffer of its own (`memory::Report::buffer_count`).
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::Dataflow};
    /// let m = Module::parse("ENTRY e {\n p = (f32[2]{0}, s32[]) parameter(0)\n g = f32[2]{0} get-tuple-element(p), index=0\n ROOT n = f32[2]{0} negate(g)\n}").unwrap();
    /// let d = Dataflow::new(&m);
    /// assert_eq!(d.buffer_count(), 4); // g joins p{0}
    /// ```
    pub fn buffer_count(&self) -> u32 {
        position_number(self.buffer_start.len().saturating_sub(1))
    }

    /// The values of buffer `b` (indices into [`Dataflow::values`]).
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::Dataflow};
    /// let m = Module::parse("ENTRY e {\n p = (f32[2]{0}, s32[]) parameter(0)\n g = f32[2]{0} get-tuple-element(p), index=0\n ROOT n = f32[2]{0} negate(g)\n}").unwrap();
    /// let d = Dataflow::new(&m);
    /// let b = d.buffer_at(d.find("g").unwrap(), 0).unwrap();
    /// assert_eq!(d.buffer_values(b), [1]); // p{0}, values()[1]
    /// ```
    pub fn buffer_values(&self, b: u32) -> &[u32] {
        let (s, e) = (
            self.buffer_start.get(b as usize).copied().unwrap_or(0),
            self.buffer_start.get(b as usize + 1).copied().unwrap_or(0),
        );
        self.buffer_values
            .get(s as usize..e as usize)
            .unwrap_or(&[])
    }

    /// The instruction with id `id`, and its computation's index.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::Dataflow};
    /// let m = Module::parse("ENTRY e {\n p = (f32[2]{0}, s32[]) parameter(0)\n g = f32[2]{0} get-tuple-element(p), index=0\n ROOT n = f32[2]{0} negate(g)\n}").unwrap();
    /// let d = Dataflow::new(&m);
    /// let (k, i) = d.instruction(2).unwrap();
    /// assert_eq!((k, i.name()), (0, "n"));
    /// ```
    pub fn instruction(&self, id: InstructionId) -> Option<(usize, &'m Instruction<'a>)> {
        let k = self.computation_of(id)?;
        let c = self.module.computations().get(k)?;
        let i = c.instructions().get((id - self.comp_start[k]) as usize)?;
        Some((k, i))
    }

    /// The computation instruction `id` belongs to (an index).
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::Dataflow};
    /// let m = Module::parse("ENTRY e {\n p = (f32[2]{0}, s32[]) parameter(0)\n g = f32[2]{0} get-tuple-element(p), index=0\n ROOT n = f32[2]{0} negate(g)\n}").unwrap();
    /// let d = Dataflow::new(&m);
    /// assert_eq!(d.computation_of(1), Some(0));
    /// assert_eq!(d.computation_of(3), None);
    /// ```
    pub fn computation_of(&self, id: InstructionId) -> Option<usize> {
        if id >= *self.comp_start.last()? {
            return None;
        }
        Some(self.comp_start.partition_point(|&s| s <= id) - 1)
    }

    /// The instructions of computation `k`, as ids.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::Dataflow};
    /// let m = Module::parse("ENTRY e {\n p = (f32[2]{0}, s32[]) parameter(0)\n g = f32[2]{0} get-tuple-element(p), index=0\n ROOT n = f32[2]{0} negate(g)\n}").unwrap();
    /// let d = Dataflow::new(&m);
    /// assert_eq!(d.ids_of(0), 0..3);
    /// ```
    pub fn ids_of(&self, k: usize) -> core::ops::Range<InstructionId> {
        let s = self.comp_start.get(k).copied().unwrap_or(0);
        let e = self.comp_start.get(k + 1).copied().unwrap_or(s);
        s..e
    }

    /// The instruction called `name` (`computation/name` where names
    /// repeat), as an id: a pass over the module's instructions, with no
    /// suggestions for a name not found ([`Module::instruction`] gives
    /// them). To follow operands, [`Dataflow::operands`] has their ids.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::Dataflow};
    /// let m = Module::parse("ENTRY e {\n p = (f32[2]{0}, s32[]) parameter(0)\n g = f32[2]{0} get-tuple-element(p), index=0\n ROOT n = f32[2]{0} negate(g)\n}").unwrap();
    /// let d = Dataflow::new(&m);
    /// assert_eq!(d.find("g"), Some(1));
    /// assert_eq!(d.find("nothing"), None);
    /// ```
    pub fn find(&self, name: &str) -> Option<InstructionId> {
        let (computation, name) = match name.split_once('/') {
            Some((c, n)) => (Some(c.strip_prefix('%').unwrap_or(c)), n),
            None => (None, name),
        };
        let name = name.strip_prefix('%').unwrap_or(name);
        let mut found = None;
        for (k, c) in self.module.computations().iter().enumerate() {
            if computation.is_some_and(|n| c.name() != n) {
                continue;
            }
            for (at, i) in c.instructions().iter().enumerate() {
                if i.name() == name {
                    if found.is_some() {
                        return None; // in two computations: ambiguous
                    }
                    found = Some(self.comp_start[k] + item_index(at));
                }
            }
        }
        found
    }

    /// The nodes of instruction `id`'s shape, in preorder (empty when it
    /// has no shape that reads).
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::Dataflow};
    /// let m = Module::parse("ENTRY e {\n p = (f32[2]{0}, s32[]) parameter(0)\n g = f32[2]{0} get-tuple-element(p), index=0\n ROOT n = f32[2]{0} negate(g)\n}").unwrap();
    /// let d = Dataflow::new(&m);
    /// assert_eq!(d.nodes(2).len(), 1); // n: one array
    /// ```
    pub fn nodes(&self, id: InstructionId) -> &[Node] {
        let (s, e) = self.shapes.get(id as usize).copied().unwrap_or((0, 0));
        self.nodes.get(s as usize..e as usize).unwrap_or(&[])
    }

    /// How many nodes instruction `id`'s shape has ([`Dataflow::nodes`]'
    /// length).
    pub(crate) fn node_count(&self, id: InstructionId) -> u32 {
        let (s, e) = self.shapes.get(id as usize).copied().unwrap_or((0, 0));
        e - s
    }

    /// A node's index (`[]` for the shape itself).
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::Dataflow};
    /// let m = Module::parse("ENTRY e {\n p = (f32[2]{0}, s32[]) parameter(0)\n g = f32[2]{0} get-tuple-element(p), index=0\n ROOT n = f32[2]{0} negate(g)\n}").unwrap();
    /// let d = Dataflow::new(&m);
    /// let p = d.nodes(0);
    /// assert_eq!((d.index_of(&p[0]), d.index_of(&p[1])), (vec![], vec![0]));
    /// ```
    pub fn index_of(&self, node: &Node) -> Vec<u32> {
        let mut index = vec![0; node.depth as usize];
        let mut n = node;
        for slot in index.iter_mut().rev() {
            *slot = n.at;
            match self.nodes.get(n.parent as usize) {
                Some(p) => n = p,
                None => break,
            }
        }
        index
    }

    /// The node of instruction `id`'s shape at `index` (`{}` is 0), as a
    /// position in [`Dataflow::nodes`]; `None` where the shape has none.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::Dataflow};
    /// let m = Module::parse("ENTRY e {\n ROOT p = ((f32[2]{0}), s32[]) parameter(0)\n}").unwrap();
    /// let d = Dataflow::new(&m);
    /// assert_eq!(d.node_at_index(0, &[1]), Some(3));
    /// assert_eq!(d.node_at_index(0, &[0, 0]), Some(2));
    /// assert_eq!(d.node_at_index(0, &[2]), None);
    /// ```
    pub fn node_at_index(&self, id: InstructionId, index: &[u32]) -> Option<u32> {
        self.node_at(id, 0, index)
    }

    /// A node's depth: how many tuples hold it (`index_of(node).len()`).
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::Dataflow};
    /// let m = Module::parse("ENTRY e {\n ROOT p = ((f32[2]{0}), s32[]) parameter(0)\n}").unwrap();
    /// let d = Dataflow::new(&m);
    /// let depths: Vec<usize> = d.nodes(0).iter().map(|n| d.depth_of(n)).collect();
    /// assert_eq!(depths, [0, 1, 2, 1]);
    /// ```
    pub fn depth_of(&self, node: &Node) -> usize {
        node.depth as usize
    }

    /// The operands of instruction `id`, as ids (`u32::MAX` for operand
    /// text that names no instruction of its computation).
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::Dataflow};
    /// let m = Module::parse("ENTRY e {\n p = (f32[2]{0}, s32[]) parameter(0)\n g = f32[2]{0} get-tuple-element(p), index=0\n ROOT n = f32[2]{0} negate(g)\n}").unwrap();
    /// let d = Dataflow::new(&m);
    /// assert_eq!(d.operands(2), [1]); // n reads g
    /// ```
    pub fn operands(&self, id: InstructionId) -> &[u32] {
        let s = self.operand_start.get(id as usize).copied().unwrap_or(0);
        let e = self
            .operand_start
            .get(id as usize + 1)
            .copied()
            .unwrap_or(s);
        self.operand_ids.get(s..e).unwrap_or(&[])
    }

    /// A value's name as XLA's buffer assignment writes it: the
    /// instruction's name, then `{index}` when its shape is a tuple.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::Dataflow};
    /// let m = Module::parse("ENTRY e {\n p = (f32[2]{0}, s32[]) parameter(0)\n g = f32[2]{0} get-tuple-element(p), index=0\n ROOT n = f32[2]{0} negate(g)\n}").unwrap();
    /// let d = Dataflow::new(&m);
    /// assert_eq!(d.value_name(d.values()[0]), "p{}");
    /// assert_eq!(d.value_name(d.values()[3]), "n");
    /// ```
    pub fn value_name(&self, v: Value) -> String {
        let mut out = String::new();
        if let Some((_, i)) = self.instruction(v.instruction) {
            out.push_str(i.name());
        }
        let nodes = self.nodes(v.instruction);
        if matches!(nodes.first().map(|n| n.kind), Some(NodeKind::Tuple { .. }))
            && let Some(node) = nodes.get(v.node as usize)
        {
            out.push('{');
            for (k, x) in self.index_of(node).iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                out.push_str(&alloc::format!("{x}"));
            }
            out.push('}');
        }
        out
    }

    /// The instruction of a fusion's body that computes value `v`, output
    /// `k` of a multi-output fusion (the body's tuple root's operand `k`):
    /// XLA gives each output there its own metadata, the fusion one for
    /// all. `None` for any other value.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::{Dataflow, Value}};
    /// let m = Module::parse("f {\n p = f32[2]{0} parameter(0)\n n = f32[2]{0} negate(p)\n e = f32[2]{0} exponential(p)\n ROOT t = (f32[2]{0}, f32[2]{0}) tuple(n, e)\n}\n\nENTRY e {\n x = f32[2]{0} parameter(0)\n ROOT y = (f32[2]{0}, f32[2]{0}) fusion(x), kind=kLoop, calls=f\n}").unwrap();
    /// let d = Dataflow::new(&m);
    /// let y = d.find("e/y").unwrap();
    /// let second = Value { instruction: y, node: 2 }; // y{1}
    /// assert_eq!(d.fusion_output(second), d.find("f/e"));
    /// assert_eq!(d.fusion_output(Value { instruction: y, node: 0 }), None); // the tuple
    /// ```
    pub fn fusion_output(&self, v: Value) -> Option<InstructionId> {
        let (_, i) = self.instruction(v.instruction)?;
        if i.opcode() != "fusion" {
            return None;
        }
        let n = self.nodes(v.instruction).get(v.node as usize)?;
        if n.depth != 1 {
            return None;
        }
        let k = n.at;
        let root = self.fusion_root(v.instruction)?;
        let (_, r) = self.instruction(root)?;
        if r.opcode() != "tuple" {
            return None;
        }
        self.operands(root)
            .get(k as usize)
            .copied()
            .filter(|&o| o != NONE)
    }

    /// The root of the body that fusion `id` calls; `None` when `id` is
    /// not a fusion or its body is not in the module.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::Dataflow};
    /// let m = Module::parse("f {\n p = f32[2]{0} parameter(0)\n ROOT n = f32[2]{0} negate(p)\n}\n\nENTRY e {\n x = f32[2]{0} parameter(0)\n ROOT y = f32[2]{0} fusion(x), kind=kLoop, calls=f\n}").unwrap();
    /// let d = Dataflow::new(&m);
    /// assert_eq!(d.fusion_root(d.find("e/y").unwrap()), d.find("f/n"));
    /// assert_eq!(d.fusion_root(d.find("e/x").unwrap()), None);
    /// ```
    pub fn fusion_root(&self, id: InstructionId) -> Option<InstructionId> {
        let (_, i) = self.instruction(id)?;
        if i.opcode() != "fusion" {
            return None;
        }
        let body = self
            .callees_of(id)
            .iter()
            .find(|(_, c)| c.role == Role::Calls)?
            .1
            .computation as usize;
        self.root(body)
    }

    /// Constants of embedded computations (reducers, comparators), which
    /// XLA allocates although their computations have no buffers.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::Dataflow};
    /// let m = Module::parse("add {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n z = f32[] constant(0)\n ROOT s = f32[] add(a, b)\n}\nENTRY e {\n p = f32[4]{0} parameter(0)\n c = f32[] constant(0)\n ROOT r = f32[] reduce(p, c), dimensions={0}, to_apply=add\n}").unwrap();
    /// let d = Dataflow::new(&m);
    /// assert_eq!(d.embedded_constants(), [2]); // z, in the reducer
    /// ```
    pub fn embedded_constants(&self) -> &[InstructionId] {
        &self.embedded_constants
    }

    /// The instructions of the entry computation and of the computations
    /// it calls for control flow, flattened into one sequence: each
    /// called computation (a loop's condition then body, a conditional's
    /// branches, a call's or async op's computation) just before the
    /// instruction that calls it, each computation once, in text order
    /// (which is the schedule when the module is scheduled).
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::Dataflow};
    /// let m = Module::parse("f {\n q = f32[] parameter(0)\n ROOT x = f32[] negate(q)\n}\nENTRY e {\n p = f32[] parameter(0)\n ROOT c = f32[] call(p), to_apply=f\n}").unwrap();
    /// let d = Dataflow::new(&m);
    /// let order: Vec<&str> = d.schedule().iter().map(|&i| d.instruction(i).unwrap().1.name()).collect();
    /// assert_eq!(order, ["p", "q", "x", "c"]); // the callee just before its call
    /// ```
    pub fn schedule(&self) -> &[InstructionId] {
        &self.schedule
    }

    /// Where computation `k`'s own instructions start and end in
    /// [`Dataflow::schedule`] (`None` when it is not in it).
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::Dataflow};
    /// let m = Module::parse("f {\n q = f32[] parameter(0)\n ROOT x = f32[] negate(q)\n}\nENTRY e {\n p = f32[] parameter(0)\n ROOT c = f32[] call(p), to_apply=f\n}").unwrap();
    /// let d = Dataflow::new(&m);
    /// assert_eq!(d.schedule_span(0), Some((1, 3))); // f: q and x
    /// assert_eq!(d.schedule_span(1), Some((0, 4)));
    /// ```
    pub fn schedule_span(&self, k: usize) -> Option<(u32, u32)> {
        self.comp_span.get(k).copied().filter(|s| s.0 != NONE)
    }

    /// The callees of instruction `id`.
    fn callees_of(&self, id: InstructionId) -> &[(u32, Callee)] {
        let s = self.callees.partition_point(|(i, _)| *i < id);
        let e = self.callees.partition_point(|(i, _)| *i <= id);
        &self.callees[s..e]
    }

    /// Every computation instruction `id` calls, by any attribute (`calls`,
    /// `to_apply`, `body`, `condition`, branches, comparators, …), as
    /// indices into [`Module::computations`], in the order they are written.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::Dataflow};
    /// let m = Module::parse("add {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b)\n}\nENTRY e {\n p = f32[8]{0} parameter(0)\n z = f32[] constant(0)\n ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add\n}").unwrap();
    /// let d = Dataflow::new(&m);
    /// assert_eq!(d.callees(d.find("r").unwrap()).collect::<Vec<_>>(), [0]);
    /// assert_eq!(d.callers(0).collect::<Vec<_>>(), [d.find("r").unwrap()]);
    /// ```
    pub fn callees(&self, id: InstructionId) -> impl Iterator<Item = usize> + '_ {
        self.callees_of(id)
            .iter()
            .map(|(_, c)| c.computation as usize)
    }

    /// Every instruction that calls computation `k` (the inverse of
    /// [`Dataflow::callees`]), as ids, in id order: a pass over the
    /// module's calls.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::Dataflow};
    /// let m = Module::parse("add {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b)\n}\nENTRY e {\n p = f32[8]{0} parameter(0)\n z = f32[] constant(0)\n r1 = f32[] reduce(p, z), dimensions={0}, to_apply=add\n ROOT r2 = f32[] reduce(p, z), dimensions={0}, to_apply=add\n}").unwrap();
    /// let d = Dataflow::new(&m);
    /// assert_eq!(d.callers(0).collect::<Vec<_>>(), [d.find("r1").unwrap(), d.find("r2").unwrap()]);
    /// ```
    pub fn callers(&self, k: usize) -> impl Iterator<Item = InstructionId> + '_ {
        // One id once, though it calls `k` twice (a `conditional`'s
        // branches): calls are in id order.
        let mut last = None;
        self.callees
            .iter()
            .filter(move |&&(id, c)| {
                let new = c.computation as usize == k && last != Some(id);
                if new {
                    last = Some(id);
                }
                new
            })
            .map(|&(id, _)| id)
    }

    /// The computations instruction `id` calls for control flow, as
    /// indices, in the order they run (a loop's condition, then its body).
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::Dataflow};
    /// let m = Module::parse("b {\n s = f32[] parameter(0)\n ROOT n = f32[] negate(s)\n}\nc {\n s = f32[] parameter(0)\n ROOT t = pred[] constant(true)\n}\nENTRY e {\n p = f32[] parameter(0)\n ROOT w = f32[] while(p), body=b, condition=c\n}").unwrap();
    /// let d = Dataflow::new(&m);
    /// let w = d.find("w").unwrap();
    /// assert_eq!(d.control_flow_callees(w).collect::<Vec<_>>(), [1, 0]); // condition, then body
    /// ```
    pub fn control_flow_callees(&self, id: InstructionId) -> impl Iterator<Item = usize> + '_ {
        let callees = self.callees_of(id);
        // Most instructions call nothing: no rule to look up.
        let opcode = if callees.is_empty() {
            ""
        } else {
            self.instruction(id).map_or("", |(_, i)| i.opcode())
        };
        let (r, wraps_fusion) = (rule(opcode), is_fusion(opcode));
        let mut list: Vec<(u8, usize)> = callees
            .iter()
            .filter_map(move |(_, c)| {
                let order = match (r, c.role) {
                    (Rule::While, Role::Condition) => 0,
                    (Rule::While, Role::Body) => 1,
                    (Rule::Conditional, Role::Branch(j)) => 2 + j.min(250) as u8,
                    (Rule::Call, Role::ToApply) => 0,
                    // The short form of an async fusion (`fusion-start`,
                    // `calls=`) calls its fusion body, which runs inside.
                    (Rule::AsyncStart | Rule::AsyncUpdate | Rule::AsyncDone, Role::Calls)
                        if !wraps_fusion =>
                    {
                        0
                    }
                    _ => return None,
                };
                Some((order, c.computation as usize))
            })
            .collect();
        list.sort();
        list.into_iter().map(|(_, c)| c)
    }

    /// Each computation's [`CallContext`]: from the entry down the calls.
    fn call_contexts(&self) -> Vec<CallContext> {
        let computations = self.module.computations();
        let mut contexts = vec![CallContext::Uncalled; computations.len()];
        let Some(entry) = self.module.entry_index() else {
            return contexts;
        };
        contexts[entry] = CallContext::Entry;
        let mut work = vec![entry];
        while let Some(k) = work.pop() {
            let here = contexts[k];
            for id in self.ids_of(k) {
                let opcode = self.instruction(id).map_or("", |(_, i)| i.opcode());
                let control: Vec<usize> = self.control_flow_callees(id).collect();
                for &(_, callee) in self.callees_of(id) {
                    let c = callee.computation as usize;
                    let Some(target) = computations.get(c) else {
                        continue;
                    };
                    let context = if target
                        .execution_thread()
                        .is_some_and(|t| !ANALYZED_THREADS.contains(&t.trim_matches('"')))
                    {
                        CallContext::OtherThread
                    } else if is_fusion(opcode) && callee.role == Role::Calls {
                        // A fusion body is one wherever the fusion is
                        // (fusions nest inside fusions).
                        CallContext::Fusion
                    } else if matches!(here, CallContext::Fusion | CallContext::Embedded) {
                        CallContext::Embedded
                    } else if control.contains(&c) {
                        CallContext::ControlFlow
                    } else {
                        CallContext::Embedded
                    };
                    // The first context found stays, except that control
                    // flow wins (its values are buffers; XLA refuses a
                    // computation called both ways).
                    let now = contexts[c];
                    if now == CallContext::Uncalled
                        || (context == CallContext::ControlFlow
                            && !matches!(now, CallContext::ControlFlow | CallContext::Entry))
                    {
                        contexts[c] = context;
                        work.push(c);
                    }
                }
            }
        }
        contexts
    }

    /// The first instruction of computation `k` that is `parameter(n)`.
    fn parameter(&self, k: usize, n: u64) -> Option<InstructionId> {
        self.parameters.get(&(u32::try_from(k).ok()?, n)).copied()
    }

    /// The root instruction of computation `k`.
    fn root(&self, k: usize) -> Option<InstructionId> {
        self.roots.get(k).copied().filter(|&r| r != NONE)
    }

    /// The node at `index` under node `from` of `id`'s shape.
    fn node_at(&self, id: InstructionId, from: u32, index: &[u32]) -> Option<u32> {
        let nodes = self.nodes(id);
        let mut n = from as usize;
        for &step in index {
            let NodeKind::Tuple { arity } = nodes.get(n)?.kind else {
                return None;
            };
            if step >= arity {
                return None;
            }
            let first = nodes.get(n)?.kids as usize;
            n += *self.kids.get(first + step as usize)? as usize;
        }
        // Lazily: `node_index` checks its argument.
        (n < nodes.len()).then(|| node_index(n))
    }

    fn position(&self, id: InstructionId, node: u32) -> Option<u32> {
        let base = *self.positions.get(id as usize)?;
        // Not `then_some`: its argument is computed first, and `base`
        // may be NONE.
        if base != NONE && node < self.node_count(id) {
            Some(base + node)
        } else {
            None
        }
    }

    /// Union-find: the representative of position `p`.
    fn root_of(&mut self, mut p: u32) -> u32 {
        while self.buffer[p as usize] != p {
            let parent = self.buffer[p as usize];
            self.buffer[p as usize] = self.buffer[parent as usize];
            p = parent;
        }
        p
    }

    fn join(&mut self, a: Option<u32>, b: Option<u32>) {
        if let (Some(a), Some(b)) = (a, b) {
            let (ra, rb) = (self.root_of(a), self.root_of(b));
            if ra != rb {
                // The smaller representative stays, so that a buffer's
                // number follows its first position.
                let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
                self.buffer[hi as usize] = lo;
            }
        }
    }

    /// Joins every node of `id` under `from_node` with the node of
    /// `other` at `prefix` + the same index.
    fn join_subtree(&mut self, id: InstructionId, from_node: u32, other: u32, prefix: &[u32]) {
        if other == NONE {
            return;
        }
        let Some(other_root) = self.node_at(other, 0, prefix) else {
            return;
        };
        let count = self
            .nodes(id)
            .get(from_node as usize)
            .map_or(0, |n| n.subtree);
        let other_count = self
            .nodes(other)
            .get(other_root as usize)
            .map_or(0, |n| n.subtree);
        if count == other_count && self.same_structure(id, from_node, other, other_root, count) {
            for k in 0..count {
                let (a, b) = (
                    self.position(id, from_node + k),
                    self.position(other, other_root + k),
                );
                self.join(a, b);
            }
        } else {
            // Shapes that differ (a bitcast between tuple structures,
            // malformed text): join the nodes whose index exists in both.
            let matched = self.matching(id, from_node, other, other_root);
            for (k, &o) in matched.iter().enumerate() {
                if o != NONE {
                    // `k` is below the subtree's count of nodes.
                    let node = from_node + node_index(k);
                    let (a, b) = (self.position(id, node), self.position(other, o));
                    self.join(a, b);
                }
            }
        }
    }

    /// For each node of the subtree of `id`'s shape at `from_node`, in
    /// preorder from 0: `root` for that node, and for every other node
    /// `step` of its parent's value and itself (`orphan` where the parent
    /// is not in the subtree, which a shape built here never has). One
    /// pass, each node from its parent (a deep shape's whole indices,
    /// looked up from the top, are quadratic in its text).
    fn down_from<T: Copy>(
        &self,
        id: InstructionId,
        from_node: u32,
        (root, orphan): (T, T),
        step: impl Fn(T, &Node) -> T,
    ) -> Vec<T> {
        let nodes = self.nodes(id);
        let count = nodes.get(from_node as usize).map_or(0, |n| n.subtree);
        let base = self.shapes.get(id as usize).map_or(0, |r| r.0) + from_node;
        let mut out: Vec<T> = Vec::with_capacity(count as usize);
        for k in 0..count {
            let v = match nodes.get((from_node + k) as usize) {
                Some(n) if k > 0 => (n.parent.checked_sub(base))
                    .and_then(|p| out.get(p as usize).copied())
                    .map_or(orphan, |parent| step(parent, n)),
                _ => root,
            };
            out.push(v);
        }
        out
    }

    /// For each node of the subtree of `id`'s shape at `from_node` (in
    /// preorder, from 0), the node of `other`'s shape at the same index
    /// below `other_root`, or `NONE` where it has none: its parent's
    /// match's element of the same place.
    fn matching(&self, id: InstructionId, from_node: u32, other: u32, other_root: u32) -> Vec<u32> {
        self.down_from(
            id,
            from_node,
            (other_root, NONE),
            |parent, n| match parent {
                NONE => NONE,
                p => self.node_at(other, p, &[n.at]).unwrap_or(NONE),
            },
        )
    }

    /// Joins each array node of the subtree of `id`'s shape at
    /// `from_node` with the node of `other`'s at the same index below
    /// `other_root` (`None`, or `other` `NONE`: nothing to join).
    fn join_arrays(
        &mut self,
        id: InstructionId,
        from_node: u32,
        other: u32,
        other_root: Option<u32>,
    ) {
        let Some(root) = other_root.filter(|_| other != NONE) else {
            return;
        };
        let matched = self.matching(id, from_node, other, root);
        for (k, &o) in matched.iter().enumerate() {
            // `k` is below the subtree's count of nodes.
            let node = from_node + node_index(k);
            let array = (self.nodes(id).get(node as usize))
                .is_some_and(|n| !matches!(n.kind, NodeKind::Tuple { .. }));
            if o != NONE && array {
                let (a, b) = (self.position(id, node), self.position(other, o));
                self.join(a, b);
            }
        }
    }

    fn same_structure(&self, a: InstructionId, an: u32, b: InstructionId, bn: u32, n: u32) -> bool {
        let (na, nb) = (self.nodes(a), self.nodes(b));
        (0..n).all(|k| {
            match (
                na.get((an + k) as usize).map(|x| (x.subtree, x.kind)),
                nb.get((bn + k) as usize).map(|x| (x.subtree, x.kind)),
            ) {
                (Some((sa, ka)), Some((sb, kb))) => {
                    sa == sb
                        && matches!(
                            (ka, kb),
                            (NodeKind::Tuple { .. }, NodeKind::Tuple { .. })
                                | (NodeKind::Array(_), NodeKind::Array(_))
                                | (NodeKind::Token, NodeKind::Token)
                                | (NodeKind::Opaque, NodeKind::Opaque)
                        )
                }
                _ => false,
            }
        })
    }

    /// Creates positions (at most `limit`) and values, and joins what
    /// must share memory.
    fn define_and_join(&mut self, limit: u32) {
        let module = self.module;
        let computations = module.computations();
        // Positions, for the computations whose values are buffers. Past
        // the limit, the instructions left have none (and so no value):
        // numbers that wrapped would give them others' buffers.
        let mut count = 0u32;
        'numbering: for (k, _) in computations.iter().enumerate() {
            if !matches!(
                self.contexts[k],
                CallContext::Entry | CallContext::ControlFlow
            ) {
                continue;
            }
            for id in self.ids_of(k) {
                let nodes = self.node_count(id);
                if nodes > limit - count {
                    self.truncated = true;
                    break 'numbering;
                }
                self.positions[id as usize] = count;
                count += nodes;
            }
        }
        self.buffer = (0..count).collect();

        for (k, c) in computations.iter().enumerate() {
            match self.contexts[k] {
                CallContext::Entry | CallContext::ControlFlow => {}
                CallContext::Embedded => {
                    for (id, i) in self.ids_of(k).zip(c.instructions()) {
                        if i.opcode() == "constant" {
                            self.embedded_constants.push(id);
                        }
                    }
                    continue;
                }
                _ => continue,
            }
            let called = self.contexts[k] == CallContext::ControlFlow;
            for (id, i) in self.ids_of(k).zip(c.instructions()) {
                if self.positions[id as usize] != NONE {
                    self.instruction_values(id, i, called);
                }
            }
        }

        // The entry's donated parameters become outputs: one buffer.
        if let Some(entry) = module.entry_index() {
            let root = self.root(entry);
            for (output, param, param_index) in
                input_output_aliases(module.attribute("input_output_alias").unwrap_or(""))
            {
                let (Some(root), Some(p)) = (root, self.parameter(entry, param)) else {
                    continue;
                };
                let (Some(o), Some(q)) = (
                    self.node_at(root, 0, &output),
                    self.node_at(p, 0, &param_index),
                ) else {
                    continue;
                };
                let (a, b) = (self.position(root, o), self.position(p, q));
                self.join(a, b);
            }
        }
    }

    /// The values `i` defines and the positions it joins.
    fn instruction_values(&mut self, id: InstructionId, i: &Instruction<'a>, called: bool) {
        // Only callees on this thread carry values here.
        let control: Vec<usize> = self
            .control_flow_callees(id)
            .filter(|&c| self.contexts.get(c) == Some(&CallContext::ControlFlow))
            .collect();
        // A call or conditional with no callee whose values it holds
        // (none in the module: XLA refuses it, `misnamed` lists it; or
        // each on another execution thread, or the entry, which runs in
        // no control-flow context) holds no root's values: it is taken
        // to define its own, so that its output is counted.
        let r = match rule(i.opcode()) {
            Rule::Call | Rule::Conditional if control.is_empty() => Rule::Defines,
            r => r,
        };
        let wrapped_here = !control.is_empty();
        let site = Site {
            called_for_control_flow: called,
            wrapped_here,
        };
        // Define. A rule looks at an index's first entry only: each node's
        // is its parent's, or its own at depth 1 (one pass in preorder;
        // whole indices of a deep shape would be quadratic).
        let fronts = self.down_from(id, 0, (None, None), |parent, n| match n.depth {
            1 => Some(n.at),
            _ => parent,
        });
        for (node, front) in (0u32..).zip(fronts) {
            let n = &self.nodes(id)[node as usize];
            let is_tuple = matches!(n.kind, NodeKind::Tuple { .. });
            if r.defines_at(front.as_slice(), is_tuple, site) {
                self.values.push(Value {
                    instruction: id,
                    node,
                });
            }
        }
        let ops: Vec<u32> = self.operands(id).to_vec();
        let op = |j: usize| ops.get(j).copied().unwrap_or(NONE);
        match r {
            Rule::Defines | Rule::Parameter => {}
            Rule::Forward => self.join_subtree(id, 0, op(0), &[]),
            Rule::Element => {
                let n = i
                    .attribute("index")
                    .and_then(|t| t.trim().parse::<u32>().ok());
                if let Some(n) = n {
                    self.join_subtree(id, 0, op(0), &[n]);
                }
            }
            Rule::Tuple => {
                for j in 0..ops.len() {
                    if let Some(node) = self.node_at(id, 0, &[index_in_instruction(j)]) {
                        self.join_subtree(id, node, op(j), &[]);
                    }
                }
            }
            Rule::Copy => {
                if let Some(NodeKind::Tuple { arity }) = self.nodes(id).first().map(|n| n.kind) {
                    for j in 0..arity {
                        if let Some(node) = self.node_at(id, 0, &[j]) {
                            self.join_subtree(id, node, op(0), &[j]);
                        }
                    }
                }
            }
            Rule::While => {
                self.join_subtree(id, 0, op(0), &[]);
                for &callee in &control {
                    if let Some(p) = self.parameter(callee, 0) {
                        self.join_subtree(p, 0, id, &[]);
                    }
                }
                for &(_, c) in self.callees_of(id).to_vec().iter() {
                    if c.role == Role::Body
                        && let Some(root) = self.root(c.computation as usize)
                    {
                        self.join_subtree(root, 0, id, &[]);
                    }
                }
            }
            Rule::Call | Rule::Conditional => {
                for &callee in &control {
                    if let Some(root) = self.root(callee) {
                        self.join_subtree(id, 0, root, &[]);
                    }
                    if r == Rule::Call {
                        for (n, &o) in ops.iter().enumerate() {
                            if let Some(p) = self.parameter(callee, n as u64) {
                                self.join_subtree(p, 0, o, &[]);
                            }
                        }
                    }
                }
                if r == Rule::Conditional {
                    for &(_, c) in self.callees_of(id).to_vec().iter() {
                        if let Role::Branch(j) = c.role
                            && let Some(p) = self.parameter(c.computation as usize, 0)
                        {
                            self.join_subtree(p, 0, op(j as usize + 1), &[]);
                        }
                    }
                }
            }
            Rule::AsyncStart => {
                // `{0, j, …}` is operand j's; `{1, …}` the wrapped root's.
                let mut j = 0u32;
                while let Some(from) = self.node_at(id, 0, &[0, j]) {
                    self.join_arrays(id, from, op(j as usize), Some(0));
                    j += 1;
                }
                if wrapped_here
                    && let Some(from) = self.node_at(id, 0, &[1])
                    && let Some(root) = control.first().and_then(|&c| self.root(c))
                {
                    self.join_arrays(id, from, root, Some(0));
                }
                if let Some(&callee) = control.first() {
                    for (n, &o) in ops.iter().enumerate() {
                        if let Some(p) = self.parameter(callee, n as u64) {
                            self.join_subtree(p, 0, o, &[]);
                        }
                    }
                }
            }
            Rule::AsyncUpdate => self.join_arrays(id, 0, op(0), Some(0)),
            Rule::AsyncDone | Rule::CollectiveDone | Rule::CopyDone => {
                let prefix: u32 = if r == Rule::CopyDone { 0 } else { 1 };
                let root = self.node_at(op(0), 0, &[prefix]);
                self.join_arrays(id, 0, op(0), root);
            }
            Rule::CopyStart => {
                if let Some(node) = self.node_at(id, 0, &[1]) {
                    self.join_subtree(id, node, op(0), &[]);
                }
            }
            Rule::AllGatherStart | Rule::CollectivePermuteStart => {
                let several = ops.len() > 1
                    && !(r == Rule::CollectivePermuteStart && i.attribute("slice_sizes").is_some());
                if several {
                    for j in 0..ops.len() {
                        if let Some(node) = self.node_at(id, 0, &[0, index_in_instruction(j)]) {
                            self.join_subtree(id, node, op(j), &[]);
                        }
                    }
                } else if let Some(node) = self.node_at(id, 0, &[0]) {
                    self.join_subtree(id, node, op(0), &[]);
                }
            }
            Rule::RecvDone => {
                if let Some(node) = self.node_at(id, 0, &[0]) {
                    self.join_subtree(id, node, op(0), &[0]);
                }
            }
            Rule::Send => {
                if let Some(node) = self.node_at(id, 0, &[0]) {
                    self.join_subtree(id, node, op(0), &[]);
                }
            }
        }
        // In place: an output that overwrites an operand is its buffer.
        for (output, operand, operand_index) in self.in_place_pairs(id, i, (r, wrapped_here)) {
            let o = op(operand);
            if o == NONE {
                continue;
            }
            // Alike only: a tuple's index table is never an array's
            // buffer (a module that pairs them, which XLA refuses, keeps
            // them apart).
            let array = |x: InstructionId, n: u32| {
                (self.nodes(x).get(n as usize))
                    .is_some_and(|n| !matches!(n.kind, NodeKind::Tuple { .. }))
            };
            if let (Some(a), Some(b)) = (
                self.node_at(id, 0, &output),
                self.node_at(o, 0, &operand_index),
            ) && array(id, a) == array(o, b)
            {
                let (pa, pb) = (self.position(id, a), self.position(o, b));
                self.join(pa, pb);
            }
        }
    }

    /// Outputs of `i` that overwrite one of its operands (XLA's in-place
    /// pairs, `HloDataflowAnalysis::GetInPlaceInputOutputPairs`): the
    /// operand 0 of `dynamic-update-slice`, the operands of `scatter`,
    /// `output_to_operand_aliasing`, a fusion whose root updates one of
    /// its parameters in place, and the short form of an async
    /// `dynamic-update-slice`, `scatter` or `fusion` (`X-start`, at
    /// `{1}`). `(output index, operand, operand index)`. `(r, wrapped_here)`:
    /// `i`'s rule and whether it calls a wrapped computation analysed
    /// here, as [`Dataflow::instruction_values`] found them.
    fn in_place_pairs(
        &self,
        id: InstructionId,
        i: &Instruction<'a>,
        (r, wrapped_here): (Rule, bool),
    ) -> Vec<(Vec<u32>, usize, Vec<u32>)> {
        let mut pairs = Vec::new();
        // Reading every attribute is slow; the name is looked for first.
        if i.attributes_text().contains("output_to_operand_aliasing")
            && let Some(text) = i.attribute("output_to_operand_aliasing")
        {
            for (output, operand, index) in input_output_aliases(text) {
                pairs.push((output, operand as usize, index));
            }
            return pairs;
        }
        // XLA's printer writes the long form of an async op
        // (`async-start(…), calls=%wrapped`) in the short form
        // (`dynamic-update-slice-start(…)`, no wrapped computation). The
        // short form updates in place as the op it wraps, at `{1}`, as the
        // long form's wrapped root does through its parameters: when the
        // op runs on a thread whose values are analysed (else the long
        // form's wrapped computation is left out, and its output is the
        // start's own).
        let analysed = || {
            i.attribute("async_execution_thread")
                .is_none_or(|t| ANALYZED_THREADS.contains(&t.trim().trim_matches('"')))
        };
        // Only an async start is looked up again, and only when it wraps
        // no computation analysed here.
        let short = (r == Rule::AsyncStart && !wrapped_here)
            .then(|| wrapped(i.opcode()))
            .flatten();
        let (opcode, at) = match short {
            Some((x, AsyncPart::Start)) if analysed() => (x, &[1][..]),
            _ => (i.opcode(), &[][..]),
        };
        let output = |index: &[u32]| [at, index].concat();
        match opcode {
            "dynamic-update-slice" => pairs.push((output(&[]), 0, Vec::new())),
            "scatter" => {
                let n = self.operand_count(i);
                let inputs = n.saturating_sub(1) / 2;
                if inputs <= 1 {
                    pairs.push((output(&[]), 0, Vec::new()));
                } else {
                    for j in 0..inputs {
                        pairs.push((output(&[index_in_instruction(j)]), j, Vec::new()));
                    }
                }
            }
            "fusion" => {
                // The body, as the call graph found it (a name lookup
                // per fusion would cost a scan of every computation).
                let Some(body) = self
                    .callees_of(id)
                    .iter()
                    .find(|(_, c)| c.role == Role::Calls)
                    .map(|(_, c)| c.computation as usize)
                else {
                    return pairs;
                };
                let Some(root) = self.root(body) else {
                    return pairs;
                };
                // Through the operands' ids: a lookup by name per operand
                // cost a scan of the body per fusion call.
                let updated = |x: InstructionId| -> Option<usize> {
                    let x = self.through_bitcasts(x);
                    let (_, xi) = self.instruction(x)?;
                    if !matches!(xi.opcode(), "dynamic-update-slice" | "scatter") {
                        return None;
                    }
                    let first = *self.operands(x).first().filter(|&&o| o != NONE)?;
                    let (_, p) = self.instruction(self.through_bitcasts(first))?;
                    (p.opcode() == "parameter")
                        .then(|| p.operands_text().trim().parse::<usize>().ok())
                        .flatten()
                };
                let is_tuple = self
                    .instruction(root)
                    .is_some_and(|(_, r)| r.opcode() == "tuple");
                if is_tuple {
                    for (j, &o) in self.operands(root).iter().enumerate() {
                        if o == NONE {
                            continue;
                        }
                        if let Some(p) = updated(o) {
                            pairs.push((output(&[index_in_instruction(j)]), p, Vec::new()));
                        }
                    }
                } else if let Some(p) = updated(root) {
                    pairs.push((output(&[]), p, Vec::new()));
                }
            }
            _ => {}
        }
        pairs
    }

    fn operand_count(&self, i: &Instruction<'a>) -> usize {
        i.operands().count()
    }

    /// `x`, or what it bitcasts (at most a few steps: bitcasts of
    /// bitcasts are rare and a cycle must end).
    fn through_bitcasts(&self, mut x: InstructionId) -> InstructionId {
        for _ in 0..8 {
            match self.instruction(x) {
                Some((_, i)) if i.opcode() == "bitcast" => {}
                _ => break,
            }
            match self.operands(x).first() {
                Some(&y) if y != NONE => x = y,
                _ => break,
            }
        }
        x
    }

    /// Numbers the buffers densely and lists their values.
    fn finish(&mut self) {
        let n = self.buffer.len();
        for p in 0..position_number(n) {
            let r = self.root_of(p);
            self.buffer[p as usize] = r;
        }
        // Dense numbers, in order of first position, for the classes that
        // hold a value: positions that forward nothing (an operand that
        // did not read) are in no buffer.
        let mut holds = vec![false; n];
        for v in &self.values {
            let at = (self.positions.get(v.instruction as usize))
                .filter(|&&base| base != NONE)
                .map(|&base| (base + v.node) as usize);
            if let Some(&r) = at.and_then(|p| self.buffer.get(p)) {
                holds[r as usize] = true;
            }
        }
        let mut number = vec![NONE; n];
        let mut next = 0u32;
        for p in 0..n {
            let r = self.buffer[p] as usize;
            if number[r] == NONE && holds[r] {
                number[r] = next;
                next += 1;
            }
            self.buffer[p] = number[r];
        }
        let mut counts = vec![0u32; next as usize + 1];
        let values = core::mem::take(&mut self.values);
        for v in &values {
            let b = self.buffer_of(*v);
            if let Some(c) = counts.get_mut(b as usize) {
                *c += 1;
            }
        }
        let mut start = Vec::with_capacity(counts.len());
        let mut total = 0u32;
        for c in &counts {
            start.push(total);
            total += c;
        }
        let mut fill = start.clone();
        let mut list = vec![0u32; total as usize];
        self.values = values;
        for (k, v) in self.values.iter().enumerate() {
            let b = self.buffer_of(*v) as usize;
            if let Some(f) = fill.get_mut(b) {
                list[*f as usize] = position_number(k);
                *f += 1;
            }
        }
        self.buffer_start = start;
        self.buffer_values = list;
    }

    /// The flattened schedule (see [`Dataflow::schedule`]), with an
    /// explicit stack so that any nesting depth is safe.
    fn flatten(&mut self) {
        let computations = self.module.computations().len();
        let Some(entry) = self.contexts.iter().position(|c| *c == CallContext::Entry) else {
            return;
        };
        let mut visited = vec![false; computations];
        visited[entry] = true;
        // (computation, next instruction, whether its callees are pushed)
        let mut stack: Vec<(usize, u32, bool)> = vec![(entry, self.comp_start[entry], false)];
        while let Some(&(k, id, expanded)) = stack.last() {
            if self.comp_span[k].0 == NONE {
                self.comp_span[k].0 = item_index(self.schedule.len());
            }
            if id >= self.comp_start[k + 1] {
                self.comp_span[k].1 = item_index(self.schedule.len());
                stack.pop();
                continue;
            }
            if !expanded {
                if let Some(top) = stack.last_mut() {
                    top.2 = true;
                }
                let callees: Vec<usize> = self
                    .control_flow_callees(id)
                    .filter(|&c| self.contexts.get(c) == Some(&CallContext::ControlFlow))
                    .collect();
                // Pushed in reverse, so that they run in order.
                for &c in callees.iter().rev() {
                    if !visited[c] {
                        visited[c] = true;
                        stack.push((c, self.comp_start[c], false));
                    }
                }
                continue;
            }
            self.schedule.push(id);
            if let Some(top) = stack.last_mut() {
                *top = (k, id + 1, false);
            }
        }
    }
}

/// The called computations of `i` (id `id`), appended to `out`; names of
/// no computation are skipped ([`names`](crate::names) reports them).
fn collect_callees(
    i: &Instruction<'_>,
    id: u32,
    comp_names: &HashMap<&str, u32>,
    out: &mut Vec<(u32, Callee)>,
) {
    for called in crate::calls::called_names(i) {
        let Some(&c) = comp_names.get(called.name) else {
            continue;
        };
        let role = match called.attribute {
            "body" => Role::Body,
            "condition" => Role::Condition,
            "branch_computations" => Role::Branch(index_in_instruction(called.place)),
            "true_computation" => Role::Branch(0),
            "false_computation" => Role::Branch(1),
            "to_apply" => Role::ToApply,
            "calls" => Role::Calls,
            _ => Role::Other,
        };
        out.push((
            id,
            Callee {
                computation: c,
                role,
            },
        ));
    }
}

/// The entries of `input_output_alias={ {0}: (0, {}, may-alias), … }` (and
/// of `output_to_operand_aliasing={{0}: (0, {})}`): (output index,
/// parameter or operand number, its index). Entries that do not read are
/// skipped.
///
/// ```
/// use xla_layout_hlo::dataflow::input_output_aliases;
///
/// let a = input_output_aliases("{ {0}: (0, {}, may-alias), {1,2}: (4, {1}, must-alias) }");
/// assert_eq!(a, [(vec![0], 0, vec![]), (vec![1, 2], 4, vec![1])]);
/// assert_eq!(input_output_aliases("{ {}: (0, {}, may-alias) }"), [(vec![], 0, vec![])]);
/// assert!(input_output_aliases("nonsense").is_empty());
/// ```
pub fn input_output_aliases(text: &str) -> Vec<(Vec<u32>, u64, Vec<u32>)> {
    let mut out = Vec::new();
    let mut rest = text.trim();
    rest = rest.strip_prefix('{').unwrap_or(rest);
    loop {
        rest = rest.trim_start().trim_start_matches(',').trim_start();
        let Some(after) = rest.strip_prefix('{') else {
            break;
        };
        let Some(close) = after.find('}') else { break };
        let output = numbers(&after[..close]);
        let after = after[close + 1..].trim_start();
        let Some(after) = after.strip_prefix(':') else {
            break;
        };
        let after = after.trim_start();
        let Some(after) = after.strip_prefix('(') else {
            break;
        };
        let Some(end) = after.find(')') else { break };
        let inside = &after[..end];
        rest = &after[end + 1..];
        let mut parts = inside.splitn(2, ',');
        let Some(number) = parts.next().and_then(|n| n.trim().parse::<u64>().ok()) else {
            continue;
        };
        let index = match parts.next() {
            None => Some(Vec::new()),
            Some(t) => t
                .trim_start()
                .strip_prefix('{')
                .and_then(|t| t.find('}').map(|e| &t[..e]))
                .and_then(numbers),
        };
        if let (Some(output), Some(index)) = (output, index) {
            out.push((output, number, index));
        }
    }
    out
}

/// `1,2` → `[1, 2]`; `None` when it is not a list of numbers.
fn numbers(text: &str) -> Option<Vec<u32>> {
    let text = text.trim();
    if text.is_empty() {
        return Some(Vec::new());
    }
    text.split(',')
        .map(|n| n.trim().parse::<u32>().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use alloc::vec::Vec;

    use super::{Dataflow, LIMITS, Limits, NotBuilt, build_nodes};
    use crate::items::Module;

    /// [`LIMITS`] with at most `positions`.
    fn positions(positions: u32) -> Limits {
        Limits {
            positions,
            ..LIMITS
        }
    }

    /// Three instructions: 3, 1 and 1 nodes (the last two of one shape).
    const TEXT: &str = "ENTRY e {\n p = (f32[2]{0}, s32[]) parameter(0)\n g = f32[2]{0} get-tuple-element(p), index=0\n ROOT n = f32[2]{0} negate(g)\n}";

    #[test]
    fn a_shape_past_the_node_limit_is_not_built() {
        let (mut nodes, mut kids) = (Vec::new(), Vec::new());
        let pair = "(f32[2]{0}, s32[])"; // 3 nodes
        assert_eq!(build_nodes(pair, &mut nodes, &mut kids, 3), Ok((0, 3)));
        assert_eq!((nodes.len(), kids.len()), (3, 2));
        // Another 1 fits in 4, 3 more do not: nothing of them is kept.
        let full = Err(NotBuilt::Full);
        assert_eq!(build_nodes(pair, &mut nodes, &mut kids, 4), full);
        assert_eq!((nodes.len(), kids.len()), (3, 2));
        assert_eq!(build_nodes("f32[]", &mut nodes, &mut kids, 4), Ok((3, 4)));
        assert_eq!(build_nodes("f32[]", &mut nodes, &mut kids, 4), full);
        let unread = Err(NotBuilt::Unread);
        assert_eq!(build_nodes("f32[", &mut nodes, &mut kids, 9), unread);
    }

    #[test]
    fn nodes_past_the_limit_define_no_values() {
        let m = Module::parse(TEXT).unwrap();
        let nodes = |nodes| Limits { nodes, ..LIMITS };
        let whole = Dataflow::with_limits(&m, nodes(4));
        assert!(!whole.truncated());
        assert_eq!(whole.values().len(), 4);
        // `g`'s shape, `n`'s too, does not fit.
        let d = Dataflow::with_limits(&m, nodes(3));
        assert!(d.truncated());
        assert_eq!((d.nodes(1).len(), d.nodes(2).len()), (0, 0));
        assert_eq!((d.values().len(), d.buffer_count()), (3, 3));
    }

    #[test]
    fn positions_past_the_limit_define_no_values() {
        let m = Module::parse(TEXT).unwrap();
        let (p, g, n) = (0, 1, 2);
        let whole = Dataflow::with_limits(&m, positions(5));
        assert!(!whole.truncated());
        assert_eq!((whole.values().len(), whole.buffer_count()), (4, 4));
        // `n` does not fit: it has no value, and no buffer of another's.
        let d = Dataflow::with_limits(&m, positions(4));
        assert!(d.truncated());
        assert_eq!((d.values().len(), d.buffer_count()), (3, 3));
        assert!(d.values().iter().all(|v| v.instruction == p));
        assert_eq!(d.buffer_at(g, 0), d.buffer_at(p, 1));
        assert_eq!(d.buffer_at(n, 0), None);
        // Not even the first fits.
        let d = Dataflow::with_limits(&m, positions(2));
        assert!(d.truncated());
        assert_eq!(
            (d.values().len(), d.buffer_count(), d.buffer_at(p, 0)),
            (0, 0, None)
        );
    }
}
