//! Where a compiled program's bytes go, and why they are padded: what
//! jax's `compiled.memory_analysis()`, XLA's out-of-memory report and
//! XProf's memory viewer tell, from a dump, offline
//! (docs/memory-report.md).
//!
//! [`Report::new`] sizes every value of the [`Dataflow`] as the backend
//! allocates it (a TPU its tiled bytes, the CPU and GPU the elements'
//! bytes), sums them per memory space and per role (argument, output,
//! constant, temporary), reproduces `memory_analysis()`'s fields, and
//! estimates the peak from the schedule. Given XLA's own buffer
//! assignment ([`BufferAssignment`]), it reports XLA's allocations instead
//! of the estimates wherever they say the same thing, and says for every
//! number where it comes from ([`Source`]).

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use hashbrown::{HashMap, HashSet};
use xla_layout_core::text::{ParseEvent, ParseOptions, parse_shape_events};
use xla_layout_core::tpu::{self, Generation};
use xla_layout_core::{ArrayShape, Shape, ShapeEvent, SpaceUse, ValidationError, validate_array};

use crate::assignment::BufferAssignment;
use crate::dataflow::{
    CallContext, Dataflow, InstructionId, NodeKind, Value, item_index, position_number,
};
use crate::items::Module;
use crate::metadata::{Metadata, SourceLocation};

/// "None" for `u32` indices.
const NONE: u32 = u32::MAX;

/// The bytes of a pointer on the hosts XLA's CPU and GPU runtimes run on
/// (64-bit): a tuple's index table holds one per element, and an opaque
/// value is one (XLA's `ShapeUtil::ByteSizeOf` with this pointer size).
///
/// ```
/// use xla_layout_core::Shape;
/// use xla_layout_hlo::memory::POINTER_BYTES;
/// let t = Shape::parse("(f32[2]{0}, opaque[])").unwrap();
/// assert_eq!(t.xla_byte_size_of(POINTER_BYTES), Ok(2 * POINTER_BYTES));
/// ```
pub const POINTER_BYTES: u64 = 8;

/// The alignment of values in a TPU's HBM temporary heap: every offset in
/// the fixtures' buffer assignments there is a multiple of it.
const PAGE: u64 = tpu::HEAP_PAGE;

/// The compiler a dump comes from: how it sizes buffers and names memory
/// spaces.
///
/// ```
/// use xla_layout_hlo::memory::Backend;
/// assert_eq!(Backend::from_name("tpu"), Some(Backend::Tpu));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Backend {
    /// A TPU: tiled layouts, tiled sizes.
    Tpu,
    /// The CPU: `ShapeUtil::ByteSizeOf`, 8-byte tuple tables.
    Cpu,
    /// A GPU: sized as the CPU (not checked against a GPU dump).
    Gpu,
}

impl Backend {
    /// `"tpu"`, `"cpu"`, `"gpu"`.
    ///
    /// ```
    /// # use xla_layout_hlo::memory::Backend;
    /// assert_eq!(Backend::Tpu.name(), "tpu");
    /// assert_eq!(Backend::from_name("gpu"), Some(Backend::Gpu));
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Backend::Tpu => "tpu",
            Backend::Cpu => "cpu",
            Backend::Gpu => "gpu",
        }
    }

    /// The backend named `name` (as [`Backend::name`] writes it).
    ///
    /// ```
    /// use xla_layout_hlo::memory::Backend;
    /// assert_eq!(Backend::from_name("cpu"), Some(Backend::Cpu));
    /// assert_eq!(Backend::from_name("npu"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Backend> {
        Backend::ALL.into_iter().find(|b| b.name() == name)
    }

    /// Every backend, in the order [`Backend::NAMES`] lists them.
    ///
    /// ```
    /// use xla_layout_hlo::memory::Backend;
    /// assert!(Backend::ALL.iter().all(|&b| Backend::from_name(b.name()) == Some(b)));
    /// ```
    pub const ALL: [Backend; 3] = [Backend::Tpu, Backend::Cpu, Backend::Gpu];

    /// The backends' names for messages: "tpu, cpu or gpu".
    ///
    /// ```
    /// use xla_layout_hlo::memory::Backend;
    /// let names: Vec<&str> = Backend::ALL.iter().map(|b| b.name()).collect();
    /// let (last, rest) = names.split_last().unwrap();
    /// assert_eq!(Backend::NAMES, format!("{} or {last}", rest.join(", ")));
    /// ```
    pub const NAMES: &'static str = "tpu, cpu or gpu";

    /// What this backend does with memory space `space` (the core's table,
    /// [`xla_layout_core::space_info`]).
    ///
    /// ```
    /// use xla_layout_hlo::memory::Backend;
    /// assert!(Backend::Gpu.space(5).host && !Backend::Cpu.space(5).host);
    /// assert_eq!(Backend::Tpu.space(1).name, Some("VMEM"));
    /// ```
    pub const fn space(self, space: i64) -> SpaceUse {
        let info = xla_layout_core::space_info(space);
        match self {
            Backend::Tpu => info.tpu,
            Backend::Cpu => info.cpu,
            Backend::Gpu => info.gpu,
        }
    }

    /// The backend a module was compiled for, from what only it writes: a
    /// TPU tiles its arrays (`:T(`); a GPU module names cuBLAS, cuDNN or
    /// Triton, or has GPU stream attributes; anything else is the CPU.
    ///
    /// ```
    /// # use xla_layout_hlo::{Module, memory::Backend};
    /// let tpu = Module::parse("ENTRY e {\n ROOT p = f32[8]{0:T(128)} parameter(0)\n}").unwrap();
    /// assert_eq!(Backend::detect(&tpu), Backend::Tpu);
    /// let cpu = Module::parse("ENTRY e {\n ROOT p = f32[8]{0} parameter(0)\n}").unwrap();
    /// assert_eq!(Backend::detect(&cpu), Backend::Cpu);
    /// ```
    pub fn detect(module: &Module<'_>) -> Backend {
        let text = module.source();
        if writes_tiles(text) {
            Backend::Tpu
        } else if ["__cublas", "__cudnn", "__triton", "operation_queue_id"]
            .iter()
            .any(|m| text.contains(m))
        {
            Backend::Gpu
        } else {
            Backend::Cpu
        }
    }

    /// [`Backend::detect`], where a module that names no backend is a
    /// TPU's when `options` name a TPU generation (given, or the dump's
    /// topology) or XLA's labels of its memory spaces are a TPU's (`vmem`,
    /// `smem`, `cmem`): a module whose arrays are all empty prints no tile
    /// (a randomized run against jax found such modules read as a CPU's).
    ///
    /// ```
    /// # use xla_layout_hlo::{Module, memory::{Backend, Options}};
    /// # use xla_layout_core::tpu::Generation;
    /// let empty = Module::parse("ENTRY e {\n ROOT p = u32[0,129]{1,0} parameter(0)\n}").unwrap();
    /// assert_eq!(Backend::detect_given(&empty, &Options::default()), Backend::Cpu);
    /// let on = Options { generation: Some(Generation::V5e), ..Options::default() };
    /// assert_eq!(Backend::detect_given(&empty, &on), Backend::Tpu);
    /// let labels = [(0, "default"), (1, "vmem")];
    /// let labelled = Options { space_labels: &labels, ..Options::default() };
    /// assert_eq!(Backend::detect_given(&empty, &labelled), Backend::Tpu);
    /// ```
    pub fn detect_given(module: &Module<'_>, options: &Options<'_, '_>) -> Backend {
        match Backend::detect(module) {
            Backend::Cpu
                if (options.generation.is_some()
                    || options.topology.is_some()
                    || (options.space_labels.iter())
                        .any(|(_, l)| TPU_SPACE_LABELS.contains(l)))
                    && !has_untiled_arrays(module) =>
            {
                Backend::Tpu
            }
            b => b,
        }
    }
}

/// Whether `text` writes a tile (`:T(`, or with blanks between, as XLA's
/// parser reads `{0: T(128)}` too): XLA's print first, the rest only when
/// that is not there.
///
/// ```
/// # use xla_layout_hlo::{Module, memory::Backend};
/// let spaced = Module::parse("ENTRY e {\n ROOT p = f32[8]{0: T (128)} parameter(0)\n}").unwrap();
/// assert_eq!(Backend::detect(&spaced), Backend::Tpu);
/// ```
fn writes_tiles(text: &str) -> bool {
    let b = text.as_bytes();
    text.contains(":T(")
        || (b.iter().enumerate()).any(|(k, &c)| {
            c == b':' && {
                let rest = b[k + 1..].trim_ascii_start();
                rest.first() == Some(&b'T') && rest[1..].trim_ascii_start().first() == Some(&b'(')
            }
        })
}

/// Whether `module` writes an array with elements and a layout that
/// has no tiles and no memory space: a layout no TPU gives such an array
/// (it tiles every one, scalars too: `f32[]{:T(128)}`), so not a TPU's
/// module, whatever options say (`--tpu` given for a CPU dump sized it as
/// a TPU's, each figure called exact; from a JAX user's trial).
///
/// ```
/// # use xla_layout_hlo::{Module, memory::{Backend, Options}};
/// # use xla_layout_core::tpu::Generation;
/// let cpu = Module::parse("ENTRY e {\n ROOT p = f32[8,3]{1,0} parameter(0)\n}").unwrap();
/// let on = Options { generation: Some(Generation::V5e), ..Options::default() };
/// assert_eq!(Backend::detect_given(&cpu, &on), Backend::Cpu);
/// ```
fn has_untiled_arrays(module: &Module<'_>) -> bool {
    module.computations().iter().any(|c| {
        c.instructions().iter().any(|i| {
            let Some(text) = i.shape_text() else {
                return false;
            };
            let mut found = false;
            let _ = parse_shape_events(text.as_bytes(), ParseOptions::default(), |e| {
                if let ParseEvent::Leaf {
                    shape: Shape::Array(a),
                    ..
                } = e
                    && let Some(layout) = a.layout()
                {
                    found |= !a.dims().is_empty()
                        && !a.dims().contains(&0)
                        && layout.tiles().len() == 0
                        && layout.memory_space() == 0;
                }
            });
            found
        })
    })
}

/// XLA's labels of a TPU's memory spaces other than HBM, in its
/// memory-usage report (`Memory Space: vmem (color=1)`).
const TPU_SPACE_LABELS: [&str; 3] = ["vmem", "smem", "cmem"];

/// Where a number comes from.
///
/// ```
/// use xla_layout_hlo::{Module, memory::{Options, Report, Source}};
/// let m = Module::parse("ENTRY e {\n ROOT p = f32[8]{0} parameter(0)\n}").unwrap();
/// let r = Report::new(&m, &Options::default());
/// assert_eq!(r.memory_analysis.argument_size_in_bytes.source, Source::Exact);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Source {
    /// Computed from the module text by the rule the compiler follows,
    /// and checked against every fixture of the project
    /// (tests/data/dumps): the compiler's own number.
    Exact,
    /// Read from XLA's buffer-assignment text: the compiler's own number.
    BufferAssignment,
    /// The module's sizes add up past int64, XLA's size type
    /// ([`Report::sizes_past_int64`]): the sum stops at [`SIZE_LIMIT`]
    /// instead of wrapping, and is no compiler's number.
    PastInt64,
    /// An estimate: the compiler's number is not determined by what the
    /// dump holds (docs/memory-report.md says how far off it is).
    Estimated,
}

impl Source {
    /// `"exact"`, `"buffer-assignment"`, `"estimated"`, `"past-int64"`.
    ///
    /// ```
    /// # use xla_layout_hlo::memory::Source;
    /// assert_eq!(Source::BufferAssignment.name(), "buffer-assignment");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Source::Exact => "exact",
            Source::BufferAssignment => "buffer-assignment",
            Source::Estimated => "estimated",
            Source::PastInt64 => "past-int64",
        }
    }
}

/// The most bytes a sum of the report reaches: XLA's size type is
/// int64, and a module whose sizes add up past it has no compiler's
/// numbers ([`Report::sizes_past_int64`]); every total stops here, so
/// that all of them stop at the same figure.
///
/// ```
/// use xla_layout_hlo::memory::SIZE_LIMIT;
/// assert_eq!(SIZE_LIMIT, i64::MAX as u64);
/// ```
pub const SIZE_LIMIT: u64 = i64::MAX as u64;

/// `a + b` bytes, stopping at [`SIZE_LIMIT`]: how every total of the
/// report adds.
///
/// ```
/// use xla_layout_hlo::memory::{SIZE_LIMIT, add_bytes};
/// assert_eq!(add_bytes(2, 3), 5);
/// assert_eq!(add_bytes(SIZE_LIMIT - 1, 5), SIZE_LIMIT);
/// assert_eq!(add_bytes(u64::MAX, u64::MAX), SIZE_LIMIT);
/// ```
pub fn add_bytes(a: u64, b: u64) -> u64 {
    a.saturating_add(b).min(SIZE_LIMIT)
}

/// A number of bytes and where it comes from.
///
/// ```
/// use xla_layout_hlo::{Module, memory::{Field, Options, Report, Source}};
/// let m = Module::parse("ENTRY e {\n ROOT p = f32[8]{0} parameter(0)\n}").unwrap();
/// let r = Report::new(&m, &Options::default());
/// assert_eq!(r.memory_analysis.output_size_in_bytes, Field { bytes: 32, source: Source::Exact });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Field {
    /// The bytes.
    pub bytes: u64,
    /// Where they come from.
    pub source: Source,
}

impl Field {
    const fn new(bytes: u64, source: Source) -> Field {
        Field { bytes, source }
    }
}

/// The fields of jax's `CompiledMemoryStats` (`compiled.memory_analysis()`),
/// under its names.
///
/// ```
/// use xla_layout_hlo::{Module, memory::{Options, Report}};
/// let m = Module::parse("ENTRY e {\n ROOT p = f32[8]{0} parameter(0)\n}").unwrap();
/// let ma = Report::new(&m, &Options::default()).memory_analysis;
/// assert_eq!((ma.argument_size_in_bytes.bytes, ma.output_size_in_bytes.bytes), (32, 32));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // jax's names; `MemoryAnalysis::FIELDS` describes them
pub struct MemoryAnalysis {
    pub argument_size_in_bytes: Field,
    pub output_size_in_bytes: Field,
    pub alias_size_in_bytes: Field,
    pub temp_size_in_bytes: Field,
    pub host_argument_size_in_bytes: Field,
    pub host_output_size_in_bytes: Field,
    pub host_alias_size_in_bytes: Field,
    pub host_temp_size_in_bytes: Field,
    pub peak_memory_in_bytes: Field,
}

impl MemoryAnalysis {
    /// The field names, in the order [`MemoryAnalysis::fields`] gives them.
    ///
    /// ```
    /// use xla_layout_hlo::memory::MemoryAnalysis;
    /// assert_eq!(MemoryAnalysis::FIELDS[8], "peak_memory_in_bytes");
    /// ```
    pub const FIELDS: [&'static str; 9] = [
        "argument_size_in_bytes",
        "output_size_in_bytes",
        "alias_size_in_bytes",
        "temp_size_in_bytes",
        "host_argument_size_in_bytes",
        "host_output_size_in_bytes",
        "host_alias_size_in_bytes",
        "host_temp_size_in_bytes",
        "peak_memory_in_bytes",
    ];

    /// Every field with its name.
    ///
    /// ```
    /// # use xla_layout_hlo::{Module, memory::{MemoryAnalysis, Options, Report}};
    /// let m = Module::parse("ENTRY e {\n ROOT p = f32[8]{0} parameter(0)\n}").unwrap();
    /// let r = Report::new(&m, &Options::default());
    /// let fields = r.memory_analysis.fields();
    /// assert_eq!(fields[0], ("argument_size_in_bytes", r.memory_analysis.argument_size_in_bytes));
    /// assert_eq!(fields.map(|f| f.0), MemoryAnalysis::FIELDS);
    /// ```
    pub fn fields(&self) -> [(&'static str, Field); 9] {
        let f = [
            self.argument_size_in_bytes,
            self.output_size_in_bytes,
            self.alias_size_in_bytes,
            self.temp_size_in_bytes,
            self.host_argument_size_in_bytes,
            self.host_output_size_in_bytes,
            self.host_alias_size_in_bytes,
            self.host_temp_size_in_bytes,
            self.peak_memory_in_bytes,
        ];
        let mut k = 0;
        f.map(|field| {
            k += 1;
            (Self::FIELDS[k - 1], field)
        })
    }
}

/// What a buffer is to the program.
///
/// ```
/// use xla_layout_hlo::{Module, memory::{Options, Report, Role}};
/// let m = Module::parse("ENTRY e {\n p = f32[8]{0} parameter(0)\n c = f32[8]{0} constant({1,2,3,4,5,6,7,8})\n t = f32[8]{0} add(p, c)\n ROOT r = f32[8]{0} negate(t)\n}").unwrap();
/// let r = Report::new(&m, &Options::default());
/// let roles: Vec<Role> = r.rows.iter().map(|x| x.role).collect();
/// assert_eq!(roles, [Role::Argument(0), Role::Constant, Role::Temporary, Role::Output]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Role {
    /// An entry parameter (the argument number).
    Argument(u64),
    /// An entry parameter that is also output: donated (`input_output_alias`).
    Donated(u64),
    /// An entry parameter that is also output with no `input_output_alias`
    /// naming it: a module as written before copy insertion, which in a
    /// compiled one gives the output a buffer of its own. Counted as an
    /// argument and as an output, not as aliased.
    PassedThrough(u64),
    /// Part of the output.
    Output,
    /// A constant.
    Constant,
    /// Neither: lives between its definition and its last use.
    Temporary,
}

/// The four kinds of bytes a report adds up by: [`Role::kind`].
///
/// ```
/// use xla_layout_hlo::{Module, memory::{Options, Report, RoleKind}};
/// let m = Module::parse("ENTRY e {\n p = f32[8]{0} parameter(0)\n ROOT n = f32[8]{0} negate(p)\n}").unwrap();
/// let r = Report::new(&m, &Options::default());
/// let kinds: Vec<RoleKind> = r.rows.iter().map(|row| row.role.kind()).collect();
/// assert_eq!(kinds, [RoleKind::Argument, RoleKind::Output]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RoleKind {
    /// Entry parameters, donated or not.
    Argument = 0,
    /// Parts of the output that are not parameters.
    Output = 1,
    /// Constants.
    Constant = 2,
    /// Everything else.
    Temporary = 3,
}

impl Role {
    /// The kind of bytes this role's buffer holds: a donated or
    /// passed-through parameter is an argument.
    ///
    /// ```
    /// use xla_layout_hlo::memory::{Role, RoleKind};
    /// assert_eq!(Role::Donated(2).kind(), RoleKind::Argument);
    /// assert_eq!(Role::Temporary.kind() as usize, 3);
    /// ```
    pub const fn kind(self) -> RoleKind {
        match self {
            Role::Argument(_) | Role::Donated(_) | Role::PassedThrough(_) => RoleKind::Argument,
            Role::Output => RoleKind::Output,
            Role::Constant => RoleKind::Constant,
            Role::Temporary => RoleKind::Temporary,
        }
    }

    /// The entry parameter's number, for the roles that are one.
    ///
    /// ```
    /// use xla_layout_hlo::memory::Role;
    /// assert_eq!(Role::PassedThrough(1).parameter(), Some(1));
    /// assert_eq!(Role::Output.parameter(), None);
    /// ```
    pub const fn parameter(self) -> Option<u64> {
        match self {
            Role::Argument(n) | Role::Donated(n) | Role::PassedThrough(n) => Some(n),
            _ => None,
        }
    }

    /// Which role a buffer takes from the values that share it: the
    /// highest rank (an argument's over an output's over a temporary's).
    const fn buffer_rank(self) -> u8 {
        match self {
            Role::Donated(_) | Role::PassedThrough(_) => 4,
            Role::Argument(_) => 3,
            Role::Output => 2,
            Role::Constant => 1,
            Role::Temporary => 0,
        }
    }

    /// `"argument"`, `"donated"`, `"passed-through"`, `"output"`,
    /// `"constant"`, `"temporary"`.
    ///
    /// ```
    /// # use xla_layout_hlo::memory::Role;
    /// assert_eq!(Role::Donated(0).name(), "donated");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Role::Argument(_) => "argument",
            Role::Donated(_) => "donated",
            Role::PassedThrough(_) => "passed-through",
            Role::Output => "output",
            Role::Constant => "constant",
            Role::Temporary => "temporary",
        }
    }
}

/// One value of the program, sized: a row of the report.
///
/// ```
/// use xla_layout_hlo::{Module, memory::{Options, Report}};
/// let m = Module::parse("HloModule m, is_scheduled=true\nENTRY e {\n p = f32[3]{0:T(128)} parameter(0)\n ROOT n = f32[3]{0:T(128)} negate(p)\n}").unwrap();
/// let r = Report::new(&m, &Options::default());
/// let row = &r.rows[0];
/// assert_eq!((row.bytes, row.data_bytes, row.space, row.live), (512, 12, 0, Some((0, 1))));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    /// The value (for a reducer's constant, node 0 of the constant).
    pub value: Value,
    /// Its buffer (values that share memory share it); `u32::MAX` for a
    /// reducer's constant, which has none in the dataflow.
    pub buffer: u32,
    /// Its memory space (`S(n)`; 0 for tuple tables).
    pub space: i64,
    /// The bytes the backend allocates for it.
    pub bytes: u64,
    /// The bytes its elements need (= `bytes` for tuple tables, tokens).
    pub data_bytes: u64,
    /// What it is to the program.
    pub role: Role,
    /// Whether it is a tuple's index table rather than an array.
    pub tuple_table: bool,
    /// Its live range, as positions in [`Dataflow::schedule`].
    pub live: Option<(u32, u32)>,
    /// XLA's allocation for it (number, offset), when a buffer assignment
    /// was given and names it.
    pub allocation: Option<(u64, u64)>,
    /// XLA's size for it, from the buffer assignment.
    pub assigned_bytes: Option<u64>,
    /// Whether its size is defined: false for an array whose layout XLA's
    /// validator rejects or whose dimension is unbounded (`bytes` is then
    /// 0 or its elements' bytes).
    pub sized: bool,
}

impl Row {
    /// The bytes padding costs.
    ///
    /// ```
    /// # use xla_layout_hlo::{Module, memory::{Options, Report}};
    /// let m = Module::parse("ENTRY e {\n ROOT p = f32[3]{0:T(128)} parameter(0)\n}").unwrap();
    /// let r = Report::new(&m, &Options::default());
    /// assert_eq!(r.rows[0].padding_bytes(), 512 - 12);
    /// ```
    pub fn padding_bytes(&self) -> u64 {
        self.bytes.saturating_sub(self.data_bytes)
    }

    /// Its buffer ([`Row::buffer`]), or `None` for a reducer's constant,
    /// which has none in the dataflow (a buffer of its own).
    ///
    /// ```
    /// # use xla_layout_hlo::{Module, memory::{Options, Report}};
    /// let m = Module::parse("ENTRY e {\n p = f32[8]{0} parameter(0)\n ROOT n = f32[8]{0} negate(p)\n}").unwrap();
    /// let r = Report::new(&m, &Options::default());
    /// assert_eq!(r.rows.len(), 2);
    /// assert!(r.rows[0].buffer_id().is_some() && r.rows[0].buffer_id() != r.rows[1].buffer_id());
    /// ```
    pub fn buffer_id(&self) -> Option<u32> {
        (self.buffer != NONE).then_some(self.buffer)
    }
}

impl Report<'_, '_> {
    /// How many buffers `rows` hold (a reducer's constant is one of its
    /// own).
    ///
    /// ```
    /// # use xla_layout_hlo::{Module, memory::{Options, Report}};
    /// // The output is written over the donated parameter: two values, one buffer.
    /// let m = Module::parse("HloModule m, input_output_alias={ {}: (0, {}, may-alias) }\nENTRY e {\n p = f32[8]{0} parameter(0)\n ROOT n = f32[8]{0} negate(p)\n}").unwrap();
    /// let r = Report::new(&m, &Options::default());
    /// assert_eq!((r.rows.len(), Report::buffers_of(r.rows.iter())), (2, 1));
    /// ```
    pub fn buffers_of<'r>(rows: impl IntoIterator<Item = &'r Row>) -> usize {
        let (mut own, mut ids) = (0usize, Vec::new());
        for row in rows {
            match row.buffer_id() {
                Some(b) => ids.push(b),
                None => own += 1,
            }
        }
        ids.sort_unstable();
        ids.dedup();
        ids.len() + own
    }
}

/// The bytes of one memory space.
///
/// ```
/// use xla_layout_hlo::{Module, memory::{Backend, Options, Report}};
/// let m = Module::parse("ENTRY e {\n p = f32[128]{0:T(128)} parameter(0)\n ROOT v = f32[128]{0:T(128)S(1)} copy(p)\n}").unwrap();
/// let r = Report::new(&m, &Options::default());
/// let names: Vec<&str> = r.spaces.iter().map(|s| s.name.as_str()).collect();
/// assert_eq!(names, ["HBM", "VMEM"]);
/// assert_eq!((r.spaces[0].arguments, r.spaces[1].outputs), (512, 512));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Space {
    /// The memory space (`S(n)`, XLA's buffer color).
    pub space: i64,
    /// Its name (`HBM`, `VMEM`, `SMEM`, `pinned host`, or `memory space
    /// N` where the project has not verified what it is).
    pub name: String,
    /// What XLA's memory-usage report calls it (`default`, `vmem`,
    /// `color_6`…), when one was given.
    pub label: Option<String>,
    /// Whether jax counts it as host memory (`host_*` fields).
    pub host: bool,
    /// Entry parameters' buffers (donated ones included).
    pub arguments: u64,
    /// Output buffers (donated ones included).
    pub outputs: u64,
    /// Buffers that are both (donated).
    pub aliased: u64,
    /// Constants.
    pub constants: u64,
    /// Every temporary buffer, summed (temporaries that never live at the
    /// same time share memory: see `temp_peak`).
    pub temporaries: u64,
    /// The most temporary bytes live at once (from the schedule).
    pub temp_peak: u64,
    /// The temporary heap by this report's estimate: `temp_peak`, except
    /// in a TPU's HBM, where every temporary is rounded up to 16 KiB (the
    /// offsets XLA gives them there are multiples of 16 KiB).
    pub temp_heap: u64,
    /// The most bytes live at once, and where in the schedule.
    pub live_peak: u64,
    /// Where `live_peak` is reached (a position in the schedule).
    pub live_peak_at: Option<u32>,
    /// The bytes of its buffers' elements, and of the buffers.
    pub data_bytes: u64,
    /// The buffers' bytes: `data_bytes` plus padding.
    pub buffer_bytes: u64,
    /// The buffers' padding, summed buffer by buffer (past int64 the two
    /// totals above stop at [`SIZE_LIMIT`] and their difference says
    /// nothing).
    pub padding_bytes: u64,
    /// How many buffers.
    pub buffers: usize,
    /// XLA's allocations of this color, when a buffer assignment was given.
    pub assigned: Option<Assigned>,
}

impl Space {
    /// `arguments + outputs − aliased + constants + temp_heap`: the bytes
    /// the space needs by this report's estimate.
    ///
    /// ```
    /// # use xla_layout_hlo::{Module, memory::{Options, Report}};
    /// let m = Module::parse("HloModule m, input_output_alias={ {}: (0, {}, may-alias) }\nENTRY e {\n p = f32[4]{0} parameter(0)\n c = f32[4]{0} constant({1,2,3,4})\n t = f32[4]{0} add(p, c)\n ROOT r = f32[4]{0} add(t, t)\n}").unwrap();
    /// let r = Report::new(&m, &Options::default());
    /// let s = &r.spaces[0];
    /// assert_eq!((s.arguments, s.outputs, s.aliased, s.constants, s.temp_heap), (16, 16, 16, 16, 16));
    /// assert_eq!(s.total(), 48);
    /// ```
    pub fn total(&self) -> u64 {
        [self.outputs, self.constants, self.temp_heap]
            .into_iter()
            .fold(self.arguments, add_bytes)
            .saturating_sub(self.aliased)
    }
}

/// Whether `row` counts toward the peak (and the live bytes it is the
/// most of): jax's TPU peak (`tpu`) leaves out the index tables of
/// temporary tuples. With them out it is met exactly on 9 of the 22 TPU
/// fixtures (3 of the first 18 with them in), and no estimate moves by more than 0.1% the
/// other way (docs/memory-report.md §4).
fn counts_toward_peak(tpu: bool, row: &Row) -> bool {
    !(tpu && row.tuple_table && row.role == Role::Temporary)
}

/// The allocations of one color in XLA's buffer assignment, by kind.
///
/// ```
/// use xla_layout_hlo::{BufferAssignment, Module, memory::{Options, Report}};
/// let m = Module::parse("ENTRY e {\n ROOT p = f32[8]{0} parameter(0)\n}").unwrap();
/// let ba = BufferAssignment::parse("allocation 0: size 32, parameter 0, shape |f32[8]| at ShapeIndex {}, maybe-live-out:\n value: <0 p @0> (size=32,offset=0): f32[8]{0}\n");
/// let r = Report::new(&m, &Options { buffer_assignment: Some(&ba), ..Options::default() });
/// let a = r.spaces[0].assigned.unwrap();
/// assert_eq!((a.parameters, a.outputs, a.aliased, a.total), (32, 32, 32, 32));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Assigned {
    /// `parameter` allocations (donated ones included).
    pub parameters: u64,
    /// `maybe-live-out` allocations (donated ones and the output tuple
    /// table included).
    pub outputs: u64,
    /// Allocations that are both.
    pub aliased: u64,
    /// `constant` allocations.
    pub constants: u64,
    /// `preallocated-temp`: the temporary heap.
    pub temp: u64,
    /// `thread-local`: reducers' scratch.
    pub thread_local: u64,
    /// Every allocation but the thread-local ones.
    pub total: u64,
    /// How many allocations `total` adds up (thread-local ones aside).
    pub count: usize,
}

/// The moment the most bytes are live, by the schedule. This is the
/// schedule's peak over every buffer (temporaries included); jax's
/// `peak_memory_in_bytes` ([`MemoryAnalysis::peak_memory_in_bytes`]) is
/// another count (on the CPU, arguments, outputs and constants alone; on
/// a TPU, this estimate without temporary tuples' index tables), so the two
/// can differ.
///
/// ```
/// use xla_layout_hlo::{Module, memory::{Options, Report}};
/// let m = Module::parse("HloModule m, is_scheduled=true\nENTRY e {\n p = f32[8]{0} parameter(0)\n t = f32[8]{0} negate(p)\n ROOT r = f32[8]{0} exponential(t)\n}").unwrap();
/// let r = Report::new(&m, &Options::default());
/// let peak = r.peak.unwrap();
/// assert_eq!((peak.bytes, peak.at, peak.live.len()), (96, 1, 3));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Peak {
    /// The bytes live then, in the spaces `spaces`.
    pub bytes: u64,
    /// The spaces counted.
    pub spaces: Vec<i64>,
    /// The position in [`Dataflow::schedule`].
    pub at: u32,
    /// The instruction running then.
    pub instruction: InstructionId,
    /// The rows of the buffers live then, largest first (one row per
    /// buffer).
    pub live: Vec<usize>,
}

/// What the report is made from besides the module.
///
/// ```
/// use xla_layout_core::tpu::Generation;
/// use xla_layout_hlo::{Module, memory::{Backend, Options, Report}};
/// let m = Module::parse("ENTRY e {\n a = f32[8]{0:T(128)} parameter(0)\n ROOT t = (f32[8]{0:T(128)}) tuple(a)\n}").unwrap();
/// let options = Options { backend: Some(Backend::Tpu), generation: Some(Generation::V6e), ..Options::default() };
/// let r = Report::new(&m, &options);
/// assert_eq!(r.memory_analysis.output_size_in_bytes.bytes, 32 + 512); // v6e's table, f32[8] in T(128)
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Options<'o, 'b> {
    /// The backend; detected when `None` ([`Backend::detect`]).
    pub backend: Option<Backend>,
    /// The TPU generation (for the size of tuple index tables).
    pub generation: Option<Generation>,
    /// The generation the dump's own topology names
    /// (`topology.textproto`: [`crate::topology_generation`]), used when
    /// `generation` is not given. When both are, `generation` is used,
    /// and where the two size tuple tables differently every figure the
    /// tables enter is an estimate ([`Report::topology_contradicted`]).
    pub topology: Option<Generation>,
    /// XLA's buffer assignment for the module. One that is not this
    /// module's ([`Report::assignment_fits`]) or not all there is left out
    /// ([`Report::assignment_unused`] says why).
    pub buffer_assignment: Option<&'o BufferAssignment<'b>>,
    /// XLA's labels of memory spaces (`(color, label)`, from
    /// [`crate::memory_space_labels`]).
    pub space_labels: &'o [(i64, &'b str)],
}

/// The memory report of a module (see the [module](self) docs).
///
/// ```
/// use xla_layout_hlo::Module;
/// use xla_layout_hlo::memory::{Options, Report, Role, Source};
///
/// let m = Module::parse(r#"HloModule m, is_scheduled=true
/// ENTRY e {
///   x = f32[3,3]{1,0:T(8,128)} parameter(0)
///   n = f32[3,3]{1,0:T(8,128)} negate(x)
///   ROOT a = f32[3,3]{1,0:T(8,128)} add(n, x)
/// }"#).unwrap();
/// let r = Report::new(&m, &Options::default());
/// let ma = r.memory_analysis;
/// assert_eq!(ma.argument_size_in_bytes.bytes, 4096); // 8 × 128 × 4
/// assert_eq!(ma.output_size_in_bytes.bytes, 4096);
/// assert_eq!(ma.argument_size_in_bytes.source, Source::Exact);
/// assert_eq!(ma.peak_memory_in_bytes.bytes, 3 * 4096); // x, n and a at `a`
/// let roles: Vec<Role> = r.rows.iter().map(|row| row.role).collect();
/// assert_eq!(roles, [Role::Argument(0), Role::Temporary, Role::Output]);
/// assert_eq!(r.rows[0].padding_bytes(), 4096 - 36);
/// let why = r.details(&r.rows[0]).reasons;
/// assert_eq!(why, ["d0: 3 → 8 by T(8,128): 2.67×", "d1: 3 → 128 by T(8,128): 42.7×"]);
/// ```
pub struct Report<'m, 'a> {
    dataflow: Dataflow<'m, 'a>,
    /// The backend sized for.
    pub backend: Backend,
    /// The TPU generation given, if any.
    pub generation: Option<Generation>,
    /// How a TPU sizes tuples' index tables, and where that comes from
    /// (`None` off a TPU: the CPU and GPU use 8 bytes per element).
    pub tuple_tables: Option<TupleTables>,
    /// A tuple of XLA's buffer assignment whose table is not the size the
    /// generation given (or, when none fits, the one used) gives it:
    /// which case, and (arity, bytes).
    tuple_conflict: Option<(TupleConflict, (u64, u64))>,
    /// The generation given and the one the dump's topology names, when
    /// they differ.
    topology_conflict: Option<(Generation, Generation)>,
    /// Whether the module is scheduled (`is_scheduled=true`): only then is
    /// its instruction order the order it runs in.
    pub scheduled: bool,
    /// Whether a computation is marked `ENTRY` ([`Module::entry_is_marked`]).
    /// When not, the last computation is taken as the entry, as XLA does,
    /// but in a dump that means it was cut short: every figure of
    /// the report's [`MemoryAnalysis`] is then an estimate.
    pub entry_marked: bool,
    /// Whether the module is past XLA's layout assignment: its entry's
    /// parameters and root have the shapes of its `entry_computation_layout`.
    /// When not (a dump from before optimisation) its arrays have XLA's
    /// default layouts, not the device's, and every figure of
    /// the report's [`MemoryAnalysis`] is an estimate.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, memory::{Options, Report, Source}};
    /// let before = "HloModule m, entry_computation_layout={(f32[3,5]{1,0:T(8,128)})->f32[3,5]{1,0:T(8,128)}}\n\
    ///               ENTRY e {\n ROOT p = f32[3,5]{1,0} parameter(0)\n}";
    /// let m = Module::parse(before).unwrap();
    /// let r = Report::new(&m, &Options::default());
    /// assert!(!r.layouts_assigned);
    /// assert_eq!(r.memory_analysis.argument_size_in_bytes.source, Source::Estimated);
    /// ```
    pub layouts_assigned: bool,
    /// Whether the entry lacks a part XLA always writes: its `ROOT`, or a
    /// parameter its `entry_computation_layout` lists. The dump was cut
    /// short or edited (not one from before optimisation, which
    /// [`Report::layouts_assigned`] tells), and every figure of the
    /// report's [`MemoryAnalysis`] is an estimate.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, memory::{Options, Report, Source}};
    /// let cut = "HloModule m, entry_computation_layout={(f32[8]{0}, f32[8]{0})->f32[8]{0}}\n\
    ///            ENTRY e {\n p = f32[8]{0} parameter(0)\n n = f32[8]{0} negate(p)\n}";
    /// let (m, _) = Module::parse_lenient(cut);
    /// let r = Report::new(&m, &Options::default());
    /// assert!(r.entry_incomplete);
    /// assert_eq!(r.memory_analysis.output_size_in_bytes.source, Source::Estimated);
    /// ```
    pub entry_incomplete: bool,
    /// Whether the module is from before SPMD partitioning: it is to run
    /// on more than one device (`num_partitions` over 1) and not yet
    /// scheduled, as XLA schedules every module it optimises. Its arrays
    /// are then the whole program's, not one device's, and every figure of
    /// the report's [`MemoryAnalysis`] is an estimate.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, memory::{Options, Report, Source}};
    /// let m = Module::parse("HloModule m, num_partitions=4\nENTRY e {\n ROOT p = f32[8,6]{1,0} parameter(0), sharding={devices=[4,1]<=[4]}\n}").unwrap();
    /// let r = Report::new(&m, &Options::default());
    /// assert!(r.before_partitioning);
    /// assert_eq!(r.memory_analysis.argument_size_in_bytes.source, Source::Estimated);
    /// ```
    pub before_partitioning: bool,
    /// Parts of the module that did not read ([`Module::unread_parts`]):
    /// when any, every figure of the report's [`MemoryAnalysis`] is an
    /// estimate (what is missing may be an argument, an alias or a
    /// buffer).
    ///
    /// ```
    /// use xla_layout_hlo::{Module, memory::{Options, Report, Source}};
    /// let text = "HloModule m\nENTRY e {\n  a = f32[8]{0} parameter(0)\n  b = f32[100]{0} parameter(1\n  ROOT n = f32[8]{0} negate(a)\n}\n";
    /// let (m, _) = Module::parse_lenient(text);
    /// let r = Report::new(&m, &Options::default());
    /// assert_eq!(r.unread_parts, 1);
    /// assert_eq!(r.memory_analysis.argument_size_in_bytes.source, Source::Estimated);
    /// ```
    pub unread_parts: usize,
    /// Instructions whose shape is neither written nor inferred
    /// ([`Dataflow::unshaped`]): they define no value, so their bytes are
    /// in no sum, and when any, every figure of the report's
    /// [`MemoryAnalysis`] that comes from the module is an estimate (those
    /// read from XLA's buffer assignment stay XLA's).
    ///
    /// ```
    /// use xla_layout_hlo::{Module, memory::{Options, Report, Source}};
    /// let text = "ENTRY e {\n p = f32[8,128]{1,0} parameter(0)\n t = transpose(p), dimensions={1,0}\n ROOT n = negate(t)\n}";
    /// let m = Module::parse(text).unwrap();
    /// let r = Report::new(&m, &Options::default());
    /// assert_eq!(r.unshaped_instructions, 2);
    /// assert_eq!(r.memory_analysis.output_size_in_bytes.source, Source::Estimated);
    /// ```
    pub unshaped_instructions: usize,
    /// Instructions XLA's parser would refuse for their names
    /// ([`Dataflow::misnamed`]: an operand or a called computation that
    /// is not there, a name used twice in a computation): when any, the figures from the module
    /// are estimates, as with [`Report::unshaped_instructions`].
    ///
    /// ```
    /// use xla_layout_hlo::{Module, memory::{Options, Report, Source}};
    /// let text = "ENTRY e {\n p = f32[4]{0} parameter(0)\n ROOT a = f32[4]{0} add(p, missing)\n}";
    /// let m = Module::parse(text).unwrap();
    /// let r = Report::new(&m, &Options::default());
    /// assert_eq!(r.misnamed_instructions, 1);
    /// assert_eq!(r.memory_analysis.argument_size_in_bytes.source, Source::Estimated);
    /// ```
    pub misnamed_instructions: usize,
    /// Whether the module is larger than the analysis numbers
    /// ([`Dataflow::truncated`]: shape nodes or positions past
    /// `u32::MAX`): the instructions past the limit define no value, so
    /// their bytes are in no sum, and the figures from the module are
    /// estimates, as with [`Report::unshaped_instructions`].
    ///
    /// ```
    /// use xla_layout_hlo::{Module, memory::{Options, Report}};
    /// let m = Module::parse("ENTRY e {\n ROOT p = f32[8]{0} parameter(0)\n}").unwrap();
    /// let r = Report::new(&m, &Options::default());
    /// assert!(!r.values_truncated); // one position
    /// ```
    pub values_truncated: bool,
    /// Buffers whose positions are written in different memory spaces,
    /// each as the row it is counted by ([`Report::rows`]: an argument's,
    /// an output's, … else the largest; its space is the buffer's in
    /// [`Report::spaces`]) and the first position, in module order, whose
    /// shape says another space (a value, or what forwards one: a
    /// tuple's element, a loop's state, a `get-tuple-element`). XLA keeps
    /// a buffer in one memory space, so the module's shapes disagree.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, dataflow::Value, memory::{Options, Report}};
    /// let text = "b {\n s = f32[4]{0} parameter(0)\n ROOT n = f32[4]{0:S(1)} negate(s)\n}\n\
    ///             c {\n s = f32[4]{0} parameter(0)\n ROOT t = pred[] constant(true)\n}\n\
    ///             ENTRY e {\n p = f32[4]{0} parameter(0)\n ROOT w = f32[4]{0} while(p), condition=c, body=b\n}";
    /// let m = Module::parse(text).unwrap();
    /// let r = Report::new(&m, &Options::default());
    /// let [(counted, other)] = r.spaces_disagree[..] else { panic!() };
    /// // p's S(0) (an argument's buffer, counted there) and n's S(1): the
    /// // loop's state.
    /// assert_eq!(r.rows[counted].space, 0);
    /// assert_eq!(r.dataflow().value_name(other), "n");
    /// ```
    pub spaces_disagree: Vec<(usize, Value)>,
    /// Whether the module's sizes add up past int64, XLA's size type: its
    /// values' bytes, or the buffer assignment's allocations, sum past
    /// `i64::MAX` (each array may fit; XLA cannot account for them all).
    /// Every sum here then stops at [`SIZE_LIMIT`] rather than wrap, and
    /// every figure of the report's [`MemoryAnalysis`] is
    /// [`Source::PastInt64`].
    ///
    /// ```
    /// use xla_layout_hlo::{Module, memory::{Options, Report, Source}};
    /// let big = "u8[4611686018427387904]{0}"; // 2^62 bytes
    /// let text = format!("ENTRY e {{\n a = {big} parameter(0)\n b = {big} parameter(1)\n ROOT c = {big} add(a, b)\n}}");
    /// let m = Module::parse(&text).unwrap();
    /// let r = Report::new(&m, &Options::default());
    /// assert!(r.sizes_past_int64);
    /// assert_eq!(r.memory_analysis.argument_size_in_bytes.source, Source::PastInt64);
    /// ```
    pub sizes_past_int64: bool,
    /// jax's `compiled.memory_analysis()`.
    pub memory_analysis: MemoryAnalysis,
    /// Per memory space, in order of space.
    pub spaces: Vec<Space>,
    /// One row per value (and per constant of a reducer), in the
    /// dataflow's order.
    pub rows: Vec<Row>,
    /// The moment of the most device bytes, by the schedule.
    pub peak: Option<Peak>,
    /// Values in XLA's buffer assignment that the dataflow does not have
    /// (phis and thread-local scratch aside); 0 on every fixture.
    pub unmatched_assigned_values: usize,
    /// Values in XLA's buffer assignment that the dataflow has with another
    /// element type or dimensions: one compile gives a name one shape, so
    /// even one means another compile's assignment. 0 on every fixture.
    pub shape_mismatched_assigned_values: usize,
    /// Rows whose size differs from XLA's buffer assignment; 0 on every
    /// fixture.
    pub size_mismatches: usize,
    /// Values in XLA's buffer assignment that the dataflow has.
    pub matched_assigned_values: usize,
    /// The allocations of the buffer assignment given, if one was.
    assignment_allocations: Option<usize>,
    /// The row that stands for each buffer (`representatives`), `NONE`
    /// for a buffer with no row: every figure counts a buffer by it.
    representative: Vec<u32>,
    /// Why the buffer assignment given was not used: it is not all of
    /// XLA's account, and a part of it would pass for the whole (the
    /// figures then come from the module alone, as without one).
    pub assignment_unused: Option<AssignmentDamage>,
}

/// How a buffer assignment falls short of XLA's whole account
/// ([`Report::assignment_unused`]).
///
/// ```
/// use xla_layout_hlo::{BufferAssignment, Module};
/// use xla_layout_hlo::memory::{AssignmentDamage, Options, Report, Source};
/// let m = Module::parse("ENTRY e {\n p = f32[8]{0} parameter(0)\n q = f32[4]{0} parameter(1)\n ROOT a = f32[8]{0} negate(p)\n}").unwrap();
/// let text = "allocation 0: size 32, parameter 0:\n value: <1 p @0> (size=32,offset=0): f32[8]{0}\nallocation 1: size 16, parameter 1:\n value: <2 q @0> (size=16,offset=0): f32[4]{0}\nallocation 2: size 32, maybe-live-out:\n value: <3 a @0> (size=32,offset=0): f32[8]{0}\n";
/// let with = |t| {
///     let ba = BufferAssignment::parse(t);
///     let r = Report::new(&m, &Options { buffer_assignment: Some(&ba), ..Options::default() });
///     (r.assignment_unused, r.memory_analysis.argument_size_in_bytes.source)
/// };
/// assert_eq!(with(text), (None, Source::BufferAssignment));
/// // Cut after the first allocation: q has none.
/// let cut = &text[..text.find("allocation 1").unwrap()];
/// assert_eq!(with(cut), (Some(AssignmentDamage::MissingArguments(1)), Source::Exact));
/// // Cut inside a line, or a line that does not read.
/// assert_eq!(with(&text[..70]), (Some(AssignmentDamage::Unread { lines: 0, cut_short: true }), Source::Exact));
/// let bad = text.replace("size 16,", "size sixteen,");
/// assert_eq!(with(&bad), (Some(AssignmentDamage::Unread { lines: 1, cut_short: false }), Source::Exact));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AssignmentDamage {
    /// Lines written as allocations or values that do not read
    /// ([`BufferAssignment::unread_lines`]), or text that ends inside a
    /// line ([`BufferAssignment::cut_short`]).
    Unread {
        /// How many lines do not read.
        lines: usize,
        /// Whether the text ends inside a line.
        cut_short: bool,
    },
    /// It has no allocation for this many of the entry's arguments (their
    /// arrays; XLA allocates every one): cut at a line's end.
    MissingArguments(usize),
    /// It is another module's, or another compile's
    /// ([`Report::assignment_fits`] is `false`, and says why).
    OtherModule,
    /// One of its values runs past the end of its allocation (the
    /// allocation's index): XLA never writes that, so a line was edited.
    ValuePastAllocation(u64),
    /// It has no allocation for this many of the entry's output arrays
    /// (XLA allocates every one): an allocation deleted, every line
    /// whole.
    MissingOutputs(usize),
}

impl core::fmt::Display for AssignmentDamage {
    /// What falls short, in words (`memory` says the buffer assignment is
    /// not used because of it).
    ///
    /// ```
    /// use xla_layout_hlo::memory::AssignmentDamage;
    /// assert_eq!(AssignmentDamage::Unread { lines: 2, cut_short: true }.to_string(), "it is cut short and 2 of its lines do not read");
    /// assert_eq!(AssignmentDamage::MissingOutputs(1).to_string(), "it has no allocation for 1 of the entry's output arrays");
    /// ```
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let lines = |f: &mut core::fmt::Formatter<'_>, n: usize| match n {
            1 => f.write_str("1 of its lines does not read"),
            n => write!(f, "{n} of its lines do not read"),
        };
        match *self {
            AssignmentDamage::Unread {
                lines: n,
                cut_short: true,
            } if n > 0 => {
                f.write_str("it is cut short and ")?;
                lines(f, n)
            }
            AssignmentDamage::Unread {
                cut_short: true, ..
            } => f.write_str("it is cut short"),
            AssignmentDamage::Unread { lines: n, .. } => lines(f, n),
            AssignmentDamage::MissingArguments(n) => {
                write!(
                    f,
                    "it has no allocation for {n} of the entry's argument arrays"
                )
            }
            AssignmentDamage::OtherModule => f.write_str("it is another module's"),
            AssignmentDamage::ValuePastAllocation(n) => {
                write!(
                    f,
                    "a value of allocation {n} runs past the allocation's end"
                )
            }
            AssignmentDamage::MissingOutputs(n) => {
                write!(
                    f,
                    "it has no allocation for {n} of the entry's output arrays"
                )
            }
        }
    }
}

/// What a row is, for people: computed on demand, for the rows shown.
///
/// ```
/// use xla_layout_hlo::{Module, memory::{Options, Report}};
/// let m = Module::parse("ENTRY e {\n ROOT p = bf16[3,7]{1,0:T(8,128)(2,1)} parameter(0), metadata={op_name=\"x\"}\n}").unwrap();
/// let r = Report::new(&m, &Options::default());
/// let d = r.details(&r.rows[0]);
/// assert_eq!((d.name.as_str(), d.opcode, d.metadata.op_name), ("p", "parameter", Some("x")));
/// assert_eq!(d.reasons, ["d0: 3 → 8 by T(8,128): 2.67×", "d1: 7 → 128 by T(8,128): 18.3×"]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Details<'a> {
    /// The computation's name.
    pub computation: &'a str,
    /// The instruction's name.
    pub instruction: &'a str,
    /// The value's name as XLA writes it (`copy-start{0}`).
    pub name: String,
    /// The instruction's opcode.
    pub opcode: &'a str,
    /// The value's shape, canonical (`f32[3,3]{1,0:T(8,128)}`).
    pub shape: String,
    /// Why it is padded: each rounding that adds bytes
    /// (`d1: 3 → 128 by T(8,128): 42.7×`), then `L` and dynamic-size
    /// metadata.
    pub reasons: Vec<String>,
    /// Its metadata: its instruction's, or that of the instruction
    /// [`Details::metadata_from`] names.
    pub metadata: Metadata<'a>,
    /// Where in the user's code it comes from.
    pub location: Option<SourceLocation<'a>>,
    /// The instruction whose metadata stands for the value's: the
    /// instruction of a fusion's body that computes it (an output of a
    /// multi-output fusion, which XLA gives metadata of its own, or the
    /// body's root where the fusion has none), or, where its instruction
    /// has none, what a copy XLA inserted copies (`copy-start`, `copy`,
    /// `bitcast`, … of it: [`TAKES_OPERANDS_ORIGIN`]). `None` when the
    /// metadata is its instruction's own.
    pub metadata_from: Option<&'a str>,
}

impl Details<'_> {
    /// Details with nothing in them: of a row whose instruction the
    /// dataflow does not have.
    fn empty() -> Self {
        Details {
            computation: "",
            instruction: "",
            name: String::new(),
            opcode: "",
            shape: String::new(),
            reasons: Vec::new(),
            metadata: Metadata::default(),
            location: None,
            metadata_from: None,
        }
    }
}

/// Opcodes whose result is its first operand moved, reshaped or cut: an
/// instruction of one of these that XLA inserts (a prefetch, a relayout)
/// carries no metadata, and its operand's says where its bytes come from.
///
/// ```
/// use xla_layout_hlo::memory::TAKES_OPERANDS_ORIGIN;
/// assert!(TAKES_OPERANDS_ORIGIN.contains(&"copy-start"));
/// assert!(TAKES_OPERANDS_ORIGIN.windows(2).all(|w| w[0] < w[1]));
/// ```
pub const TAKES_OPERANDS_ORIGIN: [&str; 10] = [
    "bitcast",
    "bitcast-convert",
    "convert",
    "copy",
    "copy-done",
    "copy-start",
    "dynamic-slice",
    "reshape",
    "slice",
    "transpose",
];

/// How many steps [`Details::metadata_from`] follows, at most: chains of
/// inserted copies are short, and the bound keeps a report linear.
const ORIGIN_STEPS: usize = 8;

impl<'m, 'a> Report<'m, 'a> {
    /// The report of `module`.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, memory::{Options, Report}};
    /// let m = Module::parse("ENTRY e {\n ROOT p = f32[8]{0} parameter(0)\n}").unwrap();
    /// let r = Report::new(&m, &Options::default());
    /// assert_eq!(r.rows.len(), 1);
    /// ```
    pub fn new(module: &'m Module<'a>, options: &Options<'_, '_>) -> Report<'m, 'a> {
        let given = options.buffer_assignment;
        let mut report = Self::with_assignment(module, options, given);
        // Another module's, or this module's but not all of it: left out
        // rather than its numbers taken for this module's whole account.
        let damage = match given {
            Some(_) if report.assignment_fits() == Some(false) => {
                Some(AssignmentDamage::OtherModule)
            }
            Some(ba) if report.assignment_fits() == Some(true) => {
                let unassigned = |roles: fn(Role) -> bool| {
                    report
                        .rows
                        .iter()
                        .filter(|r| roles(r.role) && r.allocation.is_none())
                        .count()
                };
                let (arguments, outputs) = (
                    unassigned(|r| {
                        matches!(
                            r,
                            Role::Argument(_) | Role::Donated(_) | Role::PassedThrough(_)
                        )
                    }),
                    unassigned(|r| r == Role::Output),
                );
                if !ba.is_whole() {
                    Some(AssignmentDamage::Unread {
                        lines: ba.unread_lines.len(),
                        cut_short: ba.cut_short,
                    })
                } else if arguments > 0 {
                    Some(AssignmentDamage::MissingArguments(arguments))
                } else if outputs > 0 {
                    Some(AssignmentDamage::MissingOutputs(outputs))
                } else {
                    ba.allocations
                        .iter()
                        .find(|a| a.values_past_end(ba))
                        .map(|a| AssignmentDamage::ValuePastAllocation(a.index))
                }
            }
            _ => None,
        };
        if damage.is_some() {
            let fit = (
                report.assignment_allocations,
                report.matched_assigned_values,
                report.unmatched_assigned_values,
                report.shape_mismatched_assigned_values,
            );
            report = Self::with_assignment(module, options, None);
            report.assignment_unused = damage;
            // How it fit, still: `assignment_fits` says why it was left.
            (
                report.assignment_allocations,
                report.matched_assigned_values,
                report.unmatched_assigned_values,
                report.shape_mismatched_assigned_values,
            ) = fit;
        }
        report
    }

    /// [`Report::new`] with buffer assignment `ba`, as it is.
    fn with_assignment(
        module: &'m Module<'a>,
        options: &Options<'_, '_>,
        ba: Option<&BufferAssignment<'_>>,
    ) -> Report<'m, 'a> {
        Self::with_dataflow(Dataflow::new(module), options, ba)
    }

    /// [`Report::with_assignment`] from `dataflow`, the module's.
    fn with_dataflow(
        dataflow: Dataflow<'m, 'a>,
        options: &Options<'_, '_>,
        ba: Option<&BufferAssignment<'_>>,
    ) -> Report<'m, 'a> {
        let module = dataflow.module();
        let unshaped = dataflow.unshaped().len();
        let values_truncated = dataflow.truncated();
        let misnamed = dataflow.misnamed().len();
        let backend = options
            .backend
            .unwrap_or_else(|| Backend::detect_given(module, options));
        let scheduled = module.attribute("is_scheduled") == Some("true");
        let layouts_assigned = layouts_assigned(module);
        let before_partitioning = !scheduled && partitions_of(module) > 1;
        let entry_marked = module.entry_is_marked();
        // XLA's tuples, read once: (arity, bytes) of each non-empty one
        // (an empty tuple takes 0 bytes everywhere and tells nothing).
        let tuples = match (backend, ba) {
            (Backend::Tpu, Some(ba)) => assigned_tuples(ba),
            _ => Vec::new(),
        };
        let topology_conflict = match (options.generation, options.topology) {
            (Some(g), Some(t)) if g != t => Some((g, t)),
            _ => None,
        };
        let disputed =
            topology_conflict.is_some_and(|(g, t)| g.tuple_table_unit() != t.tuple_table_unit());
        // A generation sizes a TPU's values only.
        let generation =
            (options.generation.or(options.topology)).filter(|_| backend == Backend::Tpu);
        let tuple_tables = tuple_tables(backend, generation, &tuples, disputed);
        let conflict = |g: Generation| {
            tuples
                .iter()
                .copied()
                .find(|&(n, b)| g.tuple_table_bytes(n) != b)
        };
        let tuple_conflict = match tuple_tables {
            // No generation sizes them so: against the one used.
            Some(t) if !tuples.is_empty() && t.source != Source::BufferAssignment => {
                conflict(t.generation).map(|c| (TupleConflict::NoGeneration, c))
            }
            _ => generation
                .and_then(conflict)
                .map(|c| (TupleConflict::OtherGeneration, c)),
        };
        let mut report = Report {
            dataflow,
            backend,
            generation,
            tuple_tables,
            topology_conflict,
            tuple_conflict,
            scheduled,
            layouts_assigned,
            entry_incomplete: entry_incomplete(module),
            before_partitioning,
            unread_parts: module.unread_parts(),
            unshaped_instructions: unshaped,
            misnamed_instructions: misnamed,
            values_truncated,
            spaces_disagree: Vec::new(),
            sizes_past_int64: false,
            entry_marked,
            memory_analysis: MemoryAnalysis {
                argument_size_in_bytes: Field::new(0, Source::Exact),
                output_size_in_bytes: Field::new(0, Source::Exact),
                alias_size_in_bytes: Field::new(0, Source::Exact),
                temp_size_in_bytes: Field::new(0, Source::Estimated),
                host_argument_size_in_bytes: Field::new(0, Source::Exact),
                host_output_size_in_bytes: Field::new(0, Source::Exact),
                host_alias_size_in_bytes: Field::new(0, Source::Exact),
                host_temp_size_in_bytes: Field::new(0, Source::Estimated),
                peak_memory_in_bytes: Field::new(0, Source::Estimated),
            },
            spaces: Vec::new(),
            rows: Vec::new(),
            peak: None,
            unmatched_assigned_values: 0,
            shape_mismatched_assigned_values: 0,
            size_mismatches: 0,
            matched_assigned_values: 0,
            assignment_allocations: ba.map(|ba| ba.allocations.len()),
            assignment_unused: None,
            representative: Vec::new(),
        };
        report.build_rows();
        if let Some(ba) = ba {
            report.join_assignment(ba);
        }
        // Which row stands for each buffer: once, for every use.
        let rep = representatives(&report.rows, report.dataflow.buffer_count() as usize);
        report.spaces_disagree = report.spaces_disagree(&rep);
        let live = report.liveness();
        report.build_spaces(&rep, &live, options.space_labels, ba);
        report.representative = rep;
        report.memory_analysis(ba);
        report.mark_past_int64(ba);
        report
    }

    /// [`Report::spaces_disagree`], given the buffers' representatives
    /// (`representatives`): per buffer, its representative and the first
    /// array position, in module order, in another memory space (tuple
    /// tables, which XLA keeps in the default space, aside).
    fn spaces_disagree(&self, rep: &[u32]) -> Vec<(usize, Value)> {
        let d = &self.dataflow;
        let mut told: HashSet<u32> = HashSet::new();
        let mut found = Vec::new();
        for k in 0..d.module().computations().len() {
            for id in d.ids_of(k) {
                for (node, n) in (0u32..).zip(d.nodes(id)) {
                    let NodeKind::Array(a) = &n.kind else {
                        continue;
                    };
                    let Some(b) = d.buffer_at(id, node) else {
                        continue;
                    };
                    let Some(&r) = rep.get(b as usize).filter(|&&r| r != NONE) else {
                        continue;
                    };
                    let row = &self.rows[r as usize];
                    if !row.tuple_table && row.space != i64::from(a.space) && told.insert(b) {
                        found.push((
                            r as usize,
                            Value {
                                instruction: id,
                                node,
                            },
                        ));
                    }
                }
            }
        }
        found
    }

    /// Sets [`Report::sizes_past_int64`], and with it every figure's
    /// source: summed in 128 bits, so that the test itself cannot wrap.
    fn mark_past_int64(&mut self, ba: Option<&BufferAssignment<'_>>) {
        let rows: u128 = self.rows.iter().map(|r| u128::from(r.bytes)).sum();
        let allocations: u128 = ba.map_or(0, |ba| {
            ba.allocations.iter().map(|a| u128::from(a.size)).sum()
        });
        self.sizes_past_int64 = rows.max(allocations) > i64::MAX as u128;
        if self.sizes_past_int64 {
            let ma = &mut self.memory_analysis;
            for f in [
                &mut ma.argument_size_in_bytes,
                &mut ma.output_size_in_bytes,
                &mut ma.alias_size_in_bytes,
                &mut ma.temp_size_in_bytes,
                &mut ma.host_argument_size_in_bytes,
                &mut ma.host_output_size_in_bytes,
                &mut ma.host_alias_size_in_bytes,
                &mut ma.host_temp_size_in_bytes,
                &mut ma.peak_memory_in_bytes,
            ] {
                f.source = Source::PastInt64;
            }
        }
    }

    /// The memory spaces XLA's buffer assignment allocates (bytes > 0)
    /// where no value of the module is, besides HBM: a module dumped
    /// before memory-space assignment (XLA's
    /// `…_before_buffer_assignment.txt`), whose values there are counted
    /// in HBM and whose peak misses what that pass adds.
    ///
    /// ```
    /// use xla_layout_hlo::{BufferAssignment, Module, memory::{Options, Report}};
    /// let m = Module::parse("ENTRY e {\n ROOT p = f32[8]{0} parameter(0)\n}").unwrap();
    /// let ba = BufferAssignment::parse("allocation 0: size 32, parameter 0, shape |f32[8]| at ShapeIndex {}, maybe-live-out:\n value: <0 p @0> (size=32,offset=0): f32[8]{0}\nallocation 1: size 4096, color 1, preallocated-temp:\n");
    /// let r = Report::new(&m, &Options { buffer_assignment: Some(&ba), ..Options::default() });
    /// let spaces: Vec<i64> = r.spaces_without_values().map(|s| s.space).collect();
    /// assert_eq!(spaces, [1]);
    /// ```
    pub fn spaces_without_values(&self) -> impl Iterator<Item = &Space> {
        (self.spaces.iter())
            .filter(|s| s.space != 0 && s.buffers == 0)
            .filter(|s| s.assigned.is_some_and(|a| a.total > 0))
    }

    /// The generation given ([`Options::generation`]) and a tuple of XLA's
    /// buffer assignment whose index table is not the size that generation
    /// gives it ([`Generation::tuple_table_bytes`]): (generation, arity,
    /// bytes). The dump is then likely from another generation. `None`
    /// otherwise.
    ///
    /// ```
    /// use xla_layout_core::tpu::Generation;
    /// use xla_layout_hlo::{BufferAssignment, Module, memory::{Backend, Options, Report}};
    /// let m = Module::parse("ENTRY e {\n ROOT t = (f32[8]{0:T(256)}) parameter(0)\n}").unwrap();
    /// let ba = BufferAssignment::parse("allocation 0: size 32, parameter 0:\n value: <1 t{} @0> (size=32,offset=0): (f32[8]{0:T(256)})\nallocation 1: size 1024, parameter 0, shape |f32[8]| at ShapeIndex {0}:\n value: <2 t{0} @0> (size=1024,offset=0): f32[8]{0:T(256)}\n");
    /// let with = |g| Report::new(&m, &Options { backend: Some(Backend::Tpu), generation: Some(g), buffer_assignment: Some(&ba), ..Options::default() });
    /// assert_eq!(with(Generation::V5e).generation_contradicted(), Some((Generation::V5e, 1, 32)));
    /// assert_eq!(with(Generation::V6e).generation_contradicted(), None);
    /// ```
    pub fn generation_contradicted(&self) -> Option<(Generation, u64, u64)> {
        let g = self.generation?;
        match self.tuple_conflict {
            Some((TupleConflict::OtherGeneration, (arity, bytes))) => Some((g, arity, bytes)),
            _ => None,
        }
    }

    /// The generation given ([`Options::generation`]) and the one the
    /// dump's topology names ([`Options::topology`]), when they differ.
    /// The given one is used; where the two size tuple tables differently
    /// (v4 and v5e: 512-byte units; v5p and v6e: 32), the tables are
    /// estimates unless XLA's buffer assignment shows them.
    ///
    /// ```
    /// use xla_layout_core::tpu::Generation;
    /// use xla_layout_hlo::{Module, memory::{Backend, Options, Report, Source}};
    /// let m = Module::parse("ENTRY e {\n ROOT t = (f32[8]{0:T(256)}) parameter(0)\n}").unwrap();
    /// let report = |given, topology| Report::new(&m, &Options {
    ///     backend: Some(Backend::Tpu), generation: given, topology, ..Options::default()
    /// });
    /// let r = report(Some(Generation::V5e), Some(Generation::V6e));
    /// assert_eq!(r.topology_contradicted(), Some((Generation::V5e, Generation::V6e)));
    /// assert_eq!(r.memory_analysis.argument_size_in_bytes.source, Source::Estimated);
    /// let r = report(None, Some(Generation::V6e));
    /// assert_eq!(r.topology_contradicted(), None);
    /// assert_eq!(r.memory_analysis.argument_size_in_bytes.bytes, 32 + 1024);
    /// assert_eq!(r.memory_analysis.argument_size_in_bytes.source, Source::Exact);
    /// ```
    pub fn topology_contradicted(&self) -> Option<(Generation, Generation)> {
        self.topology_conflict
    }

    /// A tuple of XLA's buffer assignment whose index table no known
    /// generation sizes so ([`Generation::tuple_table_bytes`]): (arity,
    /// bytes). Tuple tables are then sized by the generation given (or
    /// the default) and every figure they enter is an estimate; the dump
    /// is likely from a generation not measured here.
    ///
    /// ```
    /// use xla_layout_hlo::{BufferAssignment, Module, memory::{Backend, Options, Report, Source}};
    /// let m = Module::parse("ENTRY e {\n ROOT t = (f32[8]{0:T(256)}) parameter(0)\n}").unwrap();
    /// let ba = BufferAssignment::parse("allocation 0: size 48, parameter 0:\n value: <1 t{} @0> (size=48,offset=0): (f32[8]{0:T(256)})\nallocation 1: size 1024, parameter 0, shape |f32[8]| at ShapeIndex {0}:\n value: <2 t{0} @0> (size=1024,offset=0): f32[8]{0:T(256)}\n");
    /// let r = Report::new(&m, &Options { backend: Some(Backend::Tpu), buffer_assignment: Some(&ba), ..Options::default() });
    /// assert_eq!(r.tuples_fit_no_generation(), Some((1, 48)));
    /// assert_eq!(r.tuple_tables.unwrap().source, Source::Estimated);
    /// assert_eq!(r.generation_contradicted(), None);
    /// ```
    pub fn tuples_fit_no_generation(&self) -> Option<(u64, u64)> {
        match self.tuple_conflict {
            Some((TupleConflict::NoGeneration, c)) => Some(c),
            _ => None,
        }
    }

    /// Whether the buffer assignment it was given is this module's: `None`
    /// without one; `false` when it has no allocation (not a buffer
    /// assignment at all), when more of its values name nothing in the
    /// module than name a value of it (another module's), or when any names
    /// a value of it with another element type or dimensions (another
    /// compile's). A report made with an
    /// assignment that does not fit mixes two programs' numbers.
    ///
    /// ```
    /// use xla_layout_hlo::{BufferAssignment, Module, memory::{Options, Report}};
    /// let m = Module::parse("ENTRY e {\n ROOT p = f32[8]{0} parameter(0)\n}").unwrap();
    /// let ours = BufferAssignment::parse("allocation 0: size 32, parameter 0:\n value: <1 p @0> (size=32,offset=0): f32[8]{0}\n");
    /// let theirs = BufferAssignment::parse("allocation 0: size 32, parameter 0:\n value: <1 q @0> (size=32,offset=0): f32[8]{0}\n");
    /// let with = |ba| Report::new(&m, &Options { buffer_assignment: Some(ba), ..Options::default() }).assignment_fits();
    /// assert_eq!(with(&ours), Some(true));
    /// assert_eq!(with(&theirs), Some(false));
    /// let none = BufferAssignment::parse("HloModule m");
    /// assert_eq!(with(&none), Some(false));
    /// // The same name from a compile of another shape does not fit either.
    /// let other = BufferAssignment::parse("allocation 0: size 36, parameter 0:\n value: <1 p @0> (size=36,offset=0): f32[9]{0}\n");
    /// assert_eq!(with(&other), Some(false));
    /// assert_eq!(Report::new(&m, &Options::default()).assignment_fits(), None);
    /// // One that does not fit is not used: the figures are the module's.
    /// use xla_layout_hlo::memory::{AssignmentDamage, Source};
    /// let r = Report::new(&m, &Options { buffer_assignment: Some(&theirs), ..Options::default() });
    /// assert_eq!(r.assignment_unused, Some(AssignmentDamage::OtherModule));
    /// assert_eq!(r.memory_analysis.argument_size_in_bytes.source, Source::Exact);
    /// ```
    pub fn assignment_fits(&self) -> Option<bool> {
        self.assignment_allocations.map(|allocations| {
            allocations > 0
                && self.shape_mismatched_assigned_values == 0
                && self.unmatched_assigned_values <= self.matched_assigned_values
        })
    }

    /// The dataflow the report is made from.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, memory::{Options, Report}};
    /// let m = Module::parse("ENTRY e {\n ROOT p = f32[8]{0} parameter(0)\n}").unwrap();
    /// let r = Report::new(&m, &Options::default());
    /// assert_eq!(r.dataflow().values().len(), 1);
    /// ```
    pub fn dataflow(&self) -> &Dataflow<'m, 'a> {
        &self.dataflow
    }

    /// Whether memory space `space` is host memory to jax: `S(5)` on a
    /// TPU or GPU ([`SpaceUse::host`]). The CPU counts its `S(5)` as
    /// device memory.
    ///
    /// ```
    /// # use xla_layout_hlo::{Module, memory::{Backend, Options, Report}};
    /// let m = Module::parse("ENTRY e {\n ROOT p = f32[8]{0} parameter(0)\n}").unwrap();
    /// let r = Report::new(&m, &Options { backend: Some(Backend::Tpu), ..Options::default() });
    /// assert!(r.is_host(5) && !r.is_host(0));
    /// ```
    pub fn is_host(&self, space: i64) -> bool {
        self.backend.space(space).host
    }

    /// The bytes the backend allocates for node `node` of instruction
    /// `id`'s shape, and the bytes of its elements.
    fn node_bytes(&self, kind: &NodeKind) -> (u64, u64) {
        match kind {
            NodeKind::Tuple { arity } => {
                let b = match self.tuple_tables {
                    Some(t) => t.generation.tuple_table_bytes(u64::from(*arity)),
                    None => POINTER_BYTES * u64::from(*arity),
                };
                (b, b)
            }
            NodeKind::Array(a) => {
                let data = a.data_bytes.unwrap_or(0);
                let bytes = match self.backend {
                    Backend::Tpu => a.tpu_bytes.unwrap_or(data),
                    _ => {
                        // Dynamic arrays carry their sizes: an int32 per
                        // dimension (`CpuExecutable::ShapeSizeBytes`).
                        a.xla_bytes
                            .unwrap_or(data)
                            .saturating_add(a.dynamic_size_bytes)
                    }
                };
                (bytes, data.min(bytes))
            }
            NodeKind::Opaque => (POINTER_BYTES, POINTER_BYTES),
            NodeKind::Token => (0, 0),
        }
    }

    fn node_space(kind: &NodeKind) -> i64 {
        match kind {
            NodeKind::Array(a) => i64::from(a.space),
            _ => 0,
        }
    }

    /// The entry computation's index.
    fn entry(&self) -> Option<usize> {
        let m = self.dataflow.module();
        m.entry_index()
    }

    /// The entry computation's parameters: each one's number (0 where it
    /// does not read, as XLA's parser would refuse it) and instruction.
    fn entry_parameters(&self) -> impl Iterator<Item = (u64, InstructionId)> + '_ {
        let d = &self.dataflow;
        (self.entry().into_iter())
            .flat_map(|k| d.ids_of(k))
            .filter_map(move |id| {
                let (_, i) = d.instruction(id)?;
                (i.opcode() == "parameter")
                    .then(|| (i.operands_text().trim().parse().unwrap_or(0), id))
            })
    }

    /// The entry's root instruction.
    fn entry_root(&self) -> Option<InstructionId> {
        let k = self.entry()?;
        let c = &self.dataflow.module().computations()[k];
        let root = c.root()?;
        let at = c
            .instructions()
            .iter()
            .position(|i| core::ptr::eq(i, root))?;
        Some(self.dataflow.ids_of(k).start + item_index(at))
    }

    /// One row per value, with its role.
    fn build_rows(&mut self) {
        let d = &self.dataflow;
        let buffers = d.buffer_count() as usize;
        // Buffers holding an output (a position of the entry root).
        let mut output = vec![false; buffers];
        if let Some(root) = self.entry_root() {
            for n in 0..d.node_count(root) {
                if let Some(b) = d.buffer_at(root, n) {
                    output[b as usize] = true;
                }
            }
        }
        let entry = self.entry();
        // The entry parameters' positions `input_output_alias` donates.
        let mut donated: HashSet<(InstructionId, u32)> = HashSet::new();
        let aliases = crate::dataflow::input_output_aliases(
            d.module().attribute("input_output_alias").unwrap_or(""),
        );
        for (n, id) in self.entry_parameters() {
            for (_, _, index) in aliases.iter().filter(|(_, p, _)| *p == n) {
                if let Some(node) = d.node_at_index(id, index) {
                    donated.insert((id, node));
                }
            }
        }
        let mut rows = Vec::with_capacity(d.values().len() + d.embedded_constants().len());
        for v in d.values() {
            let Some((k, i)) = d.instruction(v.instruction) else {
                continue;
            };
            let Some(node) = d.nodes(v.instruction).get(v.node as usize) else {
                continue;
            };
            let (bytes, data_bytes) = self.node_bytes(&node.kind);
            let buffer = d.buffer_of(*v);
            let is_output = output.get(buffer as usize).copied().unwrap_or(false);
            let role = if i.opcode() == "parameter" && Some(k) == entry {
                let n = i.operands_text().trim().parse().unwrap_or(0);
                if is_output && donated.contains(&(v.instruction, v.node)) {
                    Role::Donated(n)
                } else if is_output {
                    Role::PassedThrough(n)
                } else {
                    Role::Argument(n)
                }
            } else if is_output {
                Role::Output
            } else if i.opcode() == "constant" {
                Role::Constant
            } else {
                Role::Temporary
            };
            rows.push(Row {
                value: *v,
                buffer,
                space: Self::node_space(&node.kind),
                bytes,
                data_bytes,
                role,
                tuple_table: matches!(node.kind, NodeKind::Tuple { .. }),
                live: None,
                allocation: None,
                assigned_bytes: None,
                sized: sized(&node.kind),
            });
        }
        for &c in d.embedded_constants() {
            let Some(node) = d.nodes(c).first() else {
                continue;
            };
            let (bytes, data_bytes) = self.node_bytes(&node.kind);
            rows.push(Row {
                value: Value {
                    instruction: c,
                    node: 0,
                },
                buffer: NONE,
                space: Self::node_space(&node.kind),
                bytes,
                data_bytes,
                role: Role::Constant,
                tuple_table: false,
                live: None,
                allocation: None,
                assigned_bytes: None,
                sized: sized(&node.kind),
            });
        }
        self.rows = rows;
    }

    /// Marks each row with XLA's allocation for it.
    fn join_assignment(&mut self, ba: &BufferAssignment<'_>) {
        let mut by_name: HashMap<String, usize> = HashMap::with_capacity(self.rows.len());
        for (k, row) in self.rows.iter().enumerate() {
            by_name.insert(self.dataflow.value_name(row.value), k);
        }
        // Each assigned value that counts (not a phi, not thread-local
        // scratch): its allocation, and the row it names, if any.
        let named: Vec<Option<(_, Option<usize>)>> = ba
            .values
            .iter()
            .map(|v| {
                let a = ba.allocations.get(v.allocation)?;
                if v.phi || a.thread_local {
                    return None;
                }
                let key = match v.index {
                    Some(index) => format!("{}{index}", v.name),
                    None => v.name.to_string(),
                };
                Some((a, by_name.get(&key).copied()))
            })
            .collect();
        // Whether each names an array of the same type and dimensions,
        // found an instruction at a time: each instruction's shape text is
        // read once for all its values (once per value, a tuple parameter
        // of n arrays cost n² — 6,000 arguments took 7.8 s).
        let row_of = |j: usize| named[j].and_then(|(_, k)| k);
        let mut order: Vec<usize> = (0..named.len()).filter(|&j| row_of(j).is_some()).collect();
        order.sort_by_key(|&j| row_of(j).map(|k| self.rows[k].value.instruction));
        let mut same = vec![true; named.len()];
        let mut arrays = InstructionArrays::default();
        for j in order {
            if let Some(k) = row_of(j) {
                let value = self.rows[k].value;
                same[j] = arrays.same(&self.dataflow, value, ba.values[j].shape);
            }
        }
        for (j, v) in ba.values.iter().enumerate() {
            let (a, k) = match named[j] {
                None => continue,
                Some((_, None)) => {
                    self.unmatched_assigned_values += 1;
                    continue;
                }
                Some((a, Some(k))) => (a, k),
            };
            // A name alone does not tell two compiles of one function
            // apart (jax dumps each shape's compile beside the others).
            if !same[j] {
                self.shape_mismatched_assigned_values += 1;
                continue;
            }
            self.matched_assigned_values += 1;
            let row = &mut self.rows[k];
            row.allocation = Some((a.index, v.offset));
            row.assigned_bytes = Some(v.size);
            if v.size != row.bytes {
                self.size_mismatches += 1;
            }
        }
    }

    /// The array `value` is, as its instruction's shape text (written, or
    /// inferred where left out) gives it (`None` for a shape unread, or
    /// not an array there).
    fn written_array(&self, value: Value) -> Option<ArrayShape> {
        let text = self.dataflow.shape_text(value.instruction)?;
        let shape = Shape::parse(text).ok()?;
        let node = self
            .dataflow
            .nodes(value.instruction)
            .get(value.node as usize)?;
        let mut at = &shape;
        for k in self.dataflow.index_of(node) {
            let Shape::Tuple(elements) = at else {
                return None;
            };
            at = elements.get(k as usize)?;
        }
        match at {
            Shape::Array(a) => Some(*a),
            _ => None,
        }
    }

    /// The rows whose array has a layout XLA's validator rejects, each with
    /// the rule it breaks (by row, in row order). XLA refuses such a
    /// module; the report counts each as 0 bytes, so the figures it enters
    /// are not XLA's.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, memory::{Options, Report}};
    /// let m = Module::parse("ENTRY e {\n p = f32[8]{0} parameter(0)\n ROOT q = f32[2,4]{1,1} reshape(p)\n}").unwrap();
    /// let r = Report::new(&m, &Options::default());
    /// let invalid = r.invalid_rows();
    /// assert_eq!(invalid.len(), 1);
    /// assert_eq!(r.details(&r.rows[invalid[0].0]).name, "q");
    /// assert_eq!(r.rows[invalid[0].0].bytes, 0);
    /// assert!(invalid[0].1.to_string().contains("minor_to_major"), "{}", invalid[0].1);
    /// ```
    pub fn invalid_rows(&self) -> Vec<(usize, ValidationError)> {
        self.rows
            .iter()
            .enumerate()
            .filter(|(_, row)| {
                let nodes = self.dataflow.nodes(row.value.instruction);
                matches!(
                    nodes.get(row.value.node as usize).map(|n| n.kind),
                    Some(NodeKind::Array(a)) if !a.valid
                )
            })
            .filter_map(|(k, row)| {
                let a = self.written_array(row.value)?;
                // A shape written without a layout gets the default one.
                let a = if a.layout().is_some() {
                    a
                } else {
                    a.with_layout(a.layout_or_default())
                };
                validate_array(&a).err().map(|e| (k, e))
            })
            .collect()
    }

    /// Each buffer's live range over the flattened schedule; sets the
    /// rows' ranges and returns the buffers' (start, end).
    fn liveness(&mut self) -> Vec<(u32, u32)> {
        let d = &self.dataflow;
        let buffers = d.buffer_count() as usize;
        let mut range = vec![(NONE, 0u32); buffers];
        let schedule = d.schedule();
        let last = item_index(schedule.len().saturating_sub(1));
        let values = d.values();
        let whole = |b: u32, range: &mut Vec<(u32, u32)>| {
            if let Some(r) = range.get_mut(b as usize) {
                *r = (0, last);
            }
        };
        for (t, &id) in schedule.iter().enumerate() {
            let t = item_index(t);
            // Values are in instruction order: this one's are a run.
            let first = values.partition_point(|v| v.instruction < id);
            for v in values[first..].iter().take_while(|v| v.instruction == id) {
                let b = d.buffer_of(*v) as usize;
                if let Some(r) = range.get_mut(b)
                    && r.0 == NONE
                {
                    r.0 = t;
                }
            }
            let element = d
                .instruction(id)
                .is_some_and(|(_, i)| i.opcode() == "get-tuple-element");
            for &o in d.operands(id) {
                if o == NONE {
                    continue;
                }
                // get-tuple-element reads only the table; the element's
                // own uses keep it live.
                let nodes = if element { 1 } else { d.node_count(o) };
                for n in 0..nodes {
                    if let Some(b) = d.buffer_at(o, n)
                        && let Some(r) = range.get_mut(b as usize)
                    {
                        r.1 = r.1.max(t);
                    }
                }
            }
        }
        // Arguments, outputs and constants have allocations of their own,
        // held for the whole program (XLA's peak counts them throughout).
        for row in &self.rows {
            if row.buffer != NONE
                && matches!(
                    row.role,
                    Role::Argument(_)
                        | Role::Donated(_)
                        | Role::PassedThrough(_)
                        | Role::Output
                        | Role::Constant
                )
            {
                whole(row.buffer, &mut range);
            }
        }
        for r in range.iter_mut() {
            if r.0 != NONE && r.1 < r.0 {
                r.1 = r.0; // never used: live where it is made
            }
        }
        for row in self.rows.iter_mut() {
            row.live = match row.role {
                Role::Constant if row.buffer == NONE => Some((0, last)),
                _ => range
                    .get(row.buffer as usize)
                    .filter(|r| r.0 != NONE && !schedule.is_empty())
                    .copied(),
            };
        }
        range
    }

    /// Per-space totals, peaks and padding; `rep`: each buffer's row
    /// (`representatives`), by whose space it is counted.
    fn build_spaces(
        &mut self,
        rep: &[u32],
        live: &[(u32, u32)],
        labels: &[(i64, &str)],
        ba: Option<&BufferAssignment<'_>>,
    ) {
        let d = &self.dataflow;
        // The spaces seen, in order.
        let mut seen: Vec<i64> = self.rows.iter().map(|r| r.space).collect();
        if let Some(ba) = ba {
            seen.extend(ba.allocations.iter().map(|a| a.color));
        }
        seen.sort_unstable();
        seen.dedup();
        let steps = d.schedule().len();
        // The first label of each color (a scan per space was quadratic).
        let mut label_of = alloc::collections::BTreeMap::new();
        for &(c, l) in labels {
            label_of.entry(c).or_insert(l);
        }
        let mut spaces: Vec<Space> = seen
            .iter()
            .map(|&s| Space {
                space: s,
                name: space_name(self.backend, s),
                label: label_of.get(&s).map(|l| l.to_string()),
                host: self.is_host(s),
                ..Space::default()
            })
            .collect();
        let index = |s: i64| seen.binary_search(&s).ok();
        // Live bytes over the schedule, per space: each buffer's bytes
        // (all, temporaries, the heap) arrive at its first step and leave
        // after its last, as events swept in order below. (Arrays of
        // spaces × steps were quadratic in memory: 3 GB for 10,000 colors
        // in a buffer assignment of 10,000 steps.)
        let paged = |space: i64| self.backend.space(space).paged_heap;
        let tpu_peak = self.backend == Backend::Tpu;
        let mut events: Vec<Event> = Vec::new();
        let add = |k: usize, row: &Row, range: (u32, u32), events: &mut Vec<Event>| {
            if range.0 == NONE || steps == 0 {
                return;
            }
            let (s, e) = (range.0 as usize, (range.1 as usize + 1).min(steps));
            // Sizes past i64 saturate: the totals of such a module are
            // meaningless, but reading it must not fail.
            let b = i64::try_from(row.bytes).unwrap_or(i64::MAX);
            let all = if counts_toward_peak(tpu_peak, row) {
                b
            } else {
                0
            };
            let (temps, heap) = if row.role == Role::Temporary {
                let h = if paged(row.space) {
                    i64::try_from(row.bytes.div_ceil(PAGE).saturating_mul(PAGE)).unwrap_or(i64::MAX)
                } else {
                    b
                };
                (b, h)
            } else {
                (0, 0)
            };
            if (all, temps, heap) == (0, 0, 0) {
                return;
            }
            events.push(Event {
                step: item_index(s),
                space: k,
                bytes: [all, temps, heap],
            });
            let gone = [all, temps, heap].map(i64::saturating_neg);
            events.push(Event {
                step: item_index(e),
                space: k,
                bytes: gone,
            });
        };
        for (b, &r) in rep.iter().enumerate() {
            if r == NONE {
                continue;
            }
            let row = self.rows[r as usize];
            let Some(k) = index(row.space) else { continue };
            let sp = &mut spaces[k];
            sp.buffers += 1;
            sp.buffer_bytes = add_bytes(sp.buffer_bytes, row.bytes);
            sp.data_bytes = add_bytes(sp.data_bytes, row.data_bytes);
            sp.padding_bytes = add_bytes(sp.padding_bytes, row.padding_bytes());
            match row.role {
                Role::Argument(_) => sp.arguments = add_bytes(sp.arguments, row.bytes),
                Role::Donated(_) => {
                    sp.arguments = add_bytes(sp.arguments, row.bytes);
                    sp.outputs = add_bytes(sp.outputs, row.bytes);
                    sp.aliased = add_bytes(sp.aliased, row.bytes);
                }
                Role::PassedThrough(_) => {
                    sp.arguments = add_bytes(sp.arguments, row.bytes);
                    sp.outputs = add_bytes(sp.outputs, row.bytes);
                }
                Role::Output => sp.outputs = add_bytes(sp.outputs, row.bytes),
                Role::Constant => sp.constants = add_bytes(sp.constants, row.bytes),
                Role::Temporary => sp.temporaries = add_bytes(sp.temporaries, row.bytes),
            }
            add(
                k,
                &row,
                live.get(b).copied().unwrap_or((NONE, 0)),
                &mut events,
            );
        }
        // Reducers' constants have no buffer: one each, live throughout.
        for row in self.rows.iter().filter(|r| r.buffer == NONE) {
            let Some(k) = index(row.space) else { continue };
            let sp = &mut spaces[k];
            sp.buffers += 1;
            sp.buffer_bytes = add_bytes(sp.buffer_bytes, row.bytes);
            sp.data_bytes = add_bytes(sp.data_bytes, row.data_bytes);
            sp.padding_bytes = add_bytes(sp.padding_bytes, row.padding_bytes());
            sp.constants = add_bytes(sp.constants, row.bytes);
            add(
                k,
                row,
                (0, item_index(steps.saturating_sub(1))),
                &mut events,
            );
        }
        // The peak jax reports counts several spaces at once (see
        // `peak_space`).
        let device: Vec<bool> = spaces.iter().map(|sp| self.peak_space(sp.space)).collect();
        let device_peak = sweep(&events, steps, &mut spaces, &device);
        if let Some(ba) = ba {
            for a in &ba.allocations {
                let Some(k) = index(a.color) else { continue };
                let x = spaces[k].assigned.get_or_insert_with(Assigned::default);
                if a.thread_local {
                    x.thread_local = add_bytes(x.thread_local, a.size);
                    continue;
                }
                x.count += 1;
                x.total = add_bytes(x.total, a.size);
                if a.parameter.is_some() {
                    x.parameters = add_bytes(x.parameters, a.size);
                }
                if a.maybe_live_out {
                    x.outputs = add_bytes(x.outputs, a.size);
                }
                if a.parameter.is_some() && a.maybe_live_out {
                    x.aliased = add_bytes(x.aliased, a.size);
                }
                if a.constant {
                    x.constants = add_bytes(x.constants, a.size);
                }
                if a.preallocated_temp {
                    x.temp = add_bytes(x.temp, a.size);
                }
            }
        }
        if let Some((best, at)) = device_peak {
            let mut live_rows: Vec<usize> = rep
                .iter()
                .enumerate()
                .filter_map(|(b, &r)| {
                    let (s, e) = live.get(b).copied()?;
                    let row = self.rows.get(r as usize)?;
                    (s != NONE
                        && s as usize <= at
                        && at <= e as usize
                        && index(row.space).is_some_and(|k| device[k]))
                    .then_some(r as usize)
                })
                .collect();
            live_rows.extend(
                self.rows
                    .iter()
                    .enumerate()
                    .filter(|(_, r)| r.buffer == NONE && index(r.space).is_some_and(|k| device[k]))
                    .map(|(k, _)| k),
            );
            live_rows.sort_by(|&a, &b| self.rows[b].bytes.cmp(&self.rows[a].bytes).then(a.cmp(&b)));
            self.peak = Some(Peak {
                bytes: best,
                spaces: (0..spaces.len())
                    .filter(|&k| device[k])
                    .map(|k| spaces[k].space)
                    .collect(),
                at: item_index(at),
                instruction: d.schedule()[at],
                live: live_rows,
            });
        }
        self.spaces = spaces;
    }

    /// Whether the peak counts space `s` ([`SpaceUse::in_peak`]: the
    /// table says which, and why).
    fn peak_space(&self, s: i64) -> bool {
        self.backend.space(s).in_peak
    }

    /// The fields of `memory_analysis()`.
    fn memory_analysis(&mut self, ba: Option<&BufferAssignment<'_>>) {
        let d = &self.dataflow;
        let tuple_exact = if self
            .tuple_tables
            .is_some_and(|t| t.source == Source::Estimated)
        {
            Source::Estimated
        } else {
            Source::Exact
        };
        // Arguments and outputs from the entry's signature: parameters'
        // and the root's nodes.
        let (mut arg, mut host_arg, mut arg_src) = (0u64, 0u64, Source::Exact);
        // Each parameter number's instruction (the first, as XLA's parser
        // takes it), its nodes looked up by index when an alias names one.
        let mut params: HashMap<u64, InstructionId> = HashMap::new();
        for (n, id) in self.entry_parameters() {
            params.entry(n).or_insert(id);
            for node in d.nodes(id) {
                let (bytes, _) = self.node_bytes(&node.kind);
                let host = self.is_host(Self::node_space(&node.kind));
                if matches!(node.kind, NodeKind::Tuple { .. }) {
                    arg_src = tuple_exact;
                }
                if host {
                    host_arg = add_bytes(host_arg, bytes);
                } else {
                    arg = add_bytes(arg, bytes);
                }
            }
        }
        let (mut out, mut host_out, mut out_src) = (0u64, 0u64, Source::Exact);
        if let Some(root) = self.entry_root() {
            for node in d.nodes(root) {
                let (bytes, _) = self.node_bytes(&node.kind);
                if matches!(node.kind, NodeKind::Tuple { .. }) {
                    out_src = tuple_exact;
                }
                if self.is_host(Self::node_space(&node.kind)) {
                    host_out = add_bytes(host_out, bytes);
                } else {
                    out = add_bytes(out, bytes);
                }
            }
        }
        let (mut alias, mut host_alias) = (0u64, 0u64);
        let module = d.module();
        for (_, param, index) in crate::dataflow::input_output_aliases(
            module.attribute("input_output_alias").unwrap_or(""),
        ) {
            let node = (params.get(&param))
                .and_then(|&id| d.nodes(id).get(d.node_at_index(id, &index)? as usize));
            if let Some((bytes, host)) = node.map(|n| {
                (
                    self.node_bytes(&n.kind).0,
                    self.is_host(Self::node_space(&n.kind)),
                )
            }) {
                if host {
                    host_alias = add_bytes(host_alias, bytes);
                } else {
                    alias = add_bytes(alias, bytes);
                }
            }
        }
        let constants: u64 = self
            .spaces
            .iter()
            .filter(|s| !s.host)
            .map(|s| s.constants)
            .fold(0, add_bytes);
        let device_temp_peak = |spaces: &[Space], backend: Backend| -> u64 {
            // A TPU's temp is its HBM heap (VMEM is not in it); the
            // CPU's and a GPU's, every device space's.
            spaces
                .iter()
                .filter(|s| backend.space(s.space).in_temp)
                .map(|s| s.temp_heap)
                .fold(0, add_bytes)
        };
        let host_temp_peak: u64 = self
            .spaces
            .iter()
            .filter(|s| s.host)
            .map(|s| s.temp_peak)
            .fold(0, add_bytes);
        let peak_estimate = self.peak.as_ref().map_or(0, |p| p.bytes);
        let ma = &mut self.memory_analysis;
        ma.argument_size_in_bytes = Field::new(arg, arg_src);
        ma.host_argument_size_in_bytes = Field::new(host_arg, arg_src);
        ma.output_size_in_bytes = Field::new(out, out_src);
        ma.host_output_size_in_bytes = Field::new(host_out, out_src);
        ma.alias_size_in_bytes = Field::new(alias, Source::Exact);
        ma.host_alias_size_in_bytes = Field::new(host_alias, Source::Exact);
        ma.temp_size_in_bytes = Field::new(
            device_temp_peak(&self.spaces, self.backend),
            Source::Estimated,
        );
        ma.host_temp_size_in_bytes = match self.backend {
            // The CPU has no host memory of its own in these statistics.
            Backend::Cpu => Field::new(0, Source::Exact),
            _ => Field::new(host_temp_peak, Source::Estimated),
        };
        ma.peak_memory_in_bytes = match self.backend {
            // The CPU's peak is its arguments, outputs and constants:
            // temporaries are not in it (every fixture). The constants
            // are the compiled module's: one that is not scheduled is not
            // what XLA runs (before optimisation, its constants are not
            // yet folded), and its count is an estimate.
            Backend::Cpu => Field::new(
                add_bytes(add_bytes(arg, out), constants).saturating_sub(alias),
                if self.scheduled {
                    Source::Exact
                } else {
                    Source::Estimated
                },
            ),
            _ => Field::new(peak_estimate, Source::Estimated),
        };

        // Rows XLA's validator rejects are counted as 0 bytes, and an
        // unbounded array (`f32[?,2]`, which no compiled program holds)
        // as its sizes' bytes: neither is a size XLA gives.
        let unsized_rows = self.rows.iter().any(|row| !row.sized);
        if !self.layouts_assigned
            || self.entry_incomplete
            || !self.entry_marked
            || self.before_partitioning
            || self.unread_parts > 0
            || self.unshaped_instructions > 0
            || self.misnamed_instructions > 0
            || self.values_truncated
            || unsized_rows
        {
            for f in [
                &mut ma.argument_size_in_bytes,
                &mut ma.output_size_in_bytes,
                &mut ma.alias_size_in_bytes,
                &mut ma.host_argument_size_in_bytes,
                &mut ma.host_output_size_in_bytes,
                &mut ma.host_alias_size_in_bytes,
                &mut ma.host_temp_size_in_bytes,
                &mut ma.peak_memory_in_bytes,
            ] {
                f.source = Source::Estimated;
            }
        }

        let Some(ba) = ba else { return };
        // XLA's allocations, where they say the same thing.
        let backend = self.backend;
        let host = |c: i64| backend.space(c).host;
        let sum = |f: &dyn Fn(&crate::assignment::Allocation<'_>) -> bool| -> (u64, u64) {
            let (mut dev, mut h) = (0u64, 0u64);
            for a in ba.allocations.iter().filter(|a| !a.thread_local && f(a)) {
                if host(a.color) {
                    h = add_bytes(h, a.size);
                } else {
                    dev = add_bytes(dev, a.size);
                }
            }
            (dev, h)
        };
        let (arg, host_arg) = sum(&|a| a.parameter.is_some());
        let (out, host_out) = sum(&|a| a.maybe_live_out);
        let (alias, host_alias) = sum(&|a| a.parameter.is_some() && a.maybe_live_out);
        let (constants, _) = sum(&|a| a.constant);
        let (_, host_temp) = sum(&|a| a.preallocated_temp);
        let temp0: u64 = ba
            .allocations
            .iter()
            .filter(|a| a.preallocated_temp && backend.space(a.color).in_temp)
            .map(|a| a.size)
            .fold(0, add_bytes);
        let src = Source::BufferAssignment;
        ma.argument_size_in_bytes = Field::new(arg, src);
        ma.host_argument_size_in_bytes = Field::new(host_arg, src);
        ma.output_size_in_bytes = Field::new(out, src);
        ma.host_output_size_in_bytes = Field::new(host_out, src);
        ma.alias_size_in_bytes = Field::new(alias, src);
        ma.host_alias_size_in_bytes = Field::new(host_alias, src);
        // A heap that holds only tuple index tables (values whose shape is
        // a tuple): jax reported 0 for each such TPU fixture and dump.
        let tables_only = ba
            .allocations
            .iter()
            .filter(|a| a.preallocated_temp && backend.space(a.color).in_temp)
            .flat_map(|a| ba.values.get(a.values.clone()).unwrap_or(&[]))
            .all(|v| v.shape.trim_start().starts_with('('));
        ma.temp_size_in_bytes = match self.backend {
            // A TPU reports its HBM temporary heap rounded up to its pages
            // (`paged_heap`) on most fixtures, and 0 on some: an estimate.
            Backend::Tpu if tables_only => Field::new(0, Source::Estimated),
            Backend::Tpu => {
                Field::new(temp0.div_ceil(PAGE).saturating_mul(PAGE), Source::Estimated)
            }
            _ => Field::new(temp0, src),
        };
        ma.host_temp_size_in_bytes = match self.backend {
            // jax reports a TPU's host heap rounded up to its pages.
            Backend::Tpu => Field::new(tpu::host_heap_bytes(host_temp), src),
            Backend::Gpu => Field::new(host_temp, src),
            Backend::Cpu => ma.host_temp_size_in_bytes,
        };
        if self.backend == Backend::Cpu {
            ma.peak_memory_in_bytes = Field::new(
                add_bytes(add_bytes(arg, out), constants).saturating_sub(alias),
                src,
            );
        }
    }

    /// A row's names, shape, padding reasons and origin.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, memory::{Options, Report}};
    /// let m = Module::parse("ENTRY e {\n ROOT p = f32[2]{0:T(128)} parameter(0)\n}").unwrap();
    /// let r = Report::new(&m, &Options::default());
    /// assert_eq!(r.details(&r.rows[0]).reasons, ["d0: 2 → 128 by T(128): 64×"]);
    /// ```
    pub fn details(&self, row: &Row) -> Details<'a> {
        let whole = self
            .dataflow
            .shape_text(row.value.instruction)
            .unwrap_or("");
        let (shape, text) = node_shape(whole, row.value.node);
        let reasons = self.reasons(shape.as_ref());
        self.details_with(row, text, reasons)
    }

    /// [`Report::details`] of the rows numbered `rows` ([`Report::rows`]),
    /// in their order, reading each instruction's shape text once for all
    /// of them: one value at a time, the rows of a tuple of `N` elements
    /// read its text `N` times (20,000 elements took a minute). The
    /// shapes' texts and padding reasons are read first, all together;
    /// the rest of each row's details as the iterator gets to it. A
    /// number past the rows gets empty details.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, memory::{Options, Report}};
    /// let m = Module::parse("ENTRY e {\n ROOT p = (f32[2]{0:T(128)}, s8[3]{0}) parameter(0)\n}").unwrap();
    /// let r = Report::new(&m, &Options::default());
    /// let rows: Vec<usize> = (0..r.rows.len()).rev().collect();
    /// let one_by_one: Vec<_> = rows.iter().map(|&k| r.details(&r.rows[k])).collect();
    /// assert_eq!(r.details_of(&rows).collect::<Vec<_>>(), one_by_one);
    /// assert_eq!(one_by_one[1].shape, "f32[2]{0:T(128)}");
    /// ```
    pub fn details_of<'r>(&'r self, rows: &'r [usize]) -> impl Iterator<Item = Details<'a>> + 'r {
        let mut shapes: Vec<(String, Vec<String>)> = vec![Default::default(); rows.len()];
        self.for_each_shape(rows, |at, shape, text| {
            shapes[at] = (text, self.reasons(shape.as_ref()));
        });
        (rows.iter().zip(shapes)).map(|(&k, (text, reasons))| match self.rows.get(k) {
            Some(row) => self.details_with(row, text, reasons),
            None => Details::empty(),
        })
    }

    /// Why `shape` pads on this report's backend (nothing for what is no
    /// array).
    fn reasons(&self, shape: Option<&Shape>) -> Vec<String> {
        match shape {
            Some(Shape::Array(a)) => padding_reasons(a, self.backend),
            _ => Vec::new(),
        }
    }

    /// `f(position in rows, shape, its text)` for each of the rows
    /// numbered `rows` (once each; none for a number past the rows), each
    /// instruction's shape text read once.
    fn for_each_shape(&self, rows: &[usize], mut f: impl FnMut(usize, Option<Shape>, String)) {
        let value = |k: usize| self.rows.get(k).map(|r| r.value);
        // By instruction, then node: one pass over each text.
        let mut order: Vec<usize> = (0..rows.len())
            .filter(|&i| value(rows[i]).is_some())
            .collect();
        order.sort_by_key(|&i| value(rows[i]).map(|v| (v.instruction, v.node)));
        let same = |a: &usize, b: &usize| {
            value(rows[*a]).map(|v| v.instruction) == value(rows[*b]).map(|v| v.instruction)
        };
        for group in order.chunk_by(same) {
            let Some(id) = group
                .first()
                .and_then(|&i| value(rows[i]))
                .map(|v| v.instruction)
            else {
                continue;
            };
            let whole = self.dataflow.shape_text(id).unwrap_or("");
            let node = |i: usize| value(rows[i]).map_or(0, |v| v.node);
            let mut nodes: Vec<u32> = group.iter().map(|&i| node(i)).collect();
            nodes.dedup();
            let mut found = node_shapes(whole, &nodes);
            for (g, &i) in group.iter().enumerate() {
                let at = nodes.partition_point(|&n| n < node(i));
                let Some(slot) = found.get_mut(at) else {
                    continue;
                };
                // Moved out at the node's last row, cloned before.
                let again = group.get(g + 1).is_some_and(|&next| node(next) == node(i));
                let (shape, text) = if again {
                    slot.clone()
                } else {
                    core::mem::take(slot)
                };
                f(i, shape, text);
            }
        }
    }

    /// The padding of the device buffers (as [`Report::padding_bytes`]
    /// counts it), by shape: for each shape (layout and memory space
    /// included) that pads, its buffers, their bytes, why one of them is
    /// padded (the same for all: the shape decides) and the largest of
    /// them; most padding first, ties by shape. What to change to save
    /// the most: a shape is one decision in the program. Post-condition:
    /// the entries' padding adds up to [`Report::padding_bytes`] (each
    /// sum stopping at [`SIZE_LIMIT`]).
    ///
    /// ```
    /// # use xla_layout_hlo::{Module, memory::{Options, Report}};
    /// let m = Module::parse("ENTRY e {\n a = f32[2,4]{1,0:T(8,128)} parameter(0)\n b = f32[2,4]{1,0:T(8,128)} parameter(1)\n c = f32[8,128]{1,0:T(8,128)} parameter(2)\n ROOT n = f32[3]{0:T(128)} parameter(3)\n}").unwrap();
    /// let r = Report::new(&m, &Options::default());
    /// let by_shape = r.padding_by_shape();
    /// assert_eq!(by_shape.len(), 2); // c does not pad
    /// assert_eq!(by_shape[0].shape, "f32[2,4]{1,0:T(8,128)}");
    /// assert_eq!((by_shape[0].buffers, by_shape[0].buffer_bytes, by_shape[0].data_bytes), (2, 8192, 64));
    /// assert_eq!(by_shape[0].reasons, ["d0: 2 → 8 by T(8,128): 4×", "d1: 4 → 128 by T(8,128): 32×"]);
    /// assert_eq!(by_shape[1].padding_bytes, 512 - 12);
    /// assert_eq!(by_shape.iter().map(|p| p.padding_bytes).sum::<u64>(), r.padding_bytes());
    /// ```
    pub fn padding_by_shape(&self) -> Vec<ShapePadding> {
        let device: HashSet<i64> = (self.spaces.iter())
            .filter(|s| !s.host)
            .map(|s| s.space)
            .collect();
        let padded: Vec<usize> = (0..self.rows.len())
            .filter(|&k| {
                let row = &self.rows[k];
                self.stands_for_buffer(k) && row.padding_bytes() > 0 && device.contains(&row.space)
            })
            .collect();
        let mut by_text: HashMap<String, ShapePadding> = HashMap::new();
        self.for_each_shape(&padded, |at, shape, text| {
            let k = padded[at];
            let row = &self.rows[k];
            let entry = by_text.entry(text).or_insert_with_key(|text| ShapePadding {
                shape: text.clone(),
                buffers: 0,
                buffer_bytes: 0,
                data_bytes: 0,
                padding_bytes: 0,
                reasons: self.reasons(shape.as_ref()),
                largest_row: k,
            });
            entry.buffers += 1;
            entry.buffer_bytes = add_bytes(entry.buffer_bytes, row.bytes);
            entry.data_bytes = add_bytes(entry.data_bytes, row.data_bytes);
            // Buffer by buffer, as the spaces sum it: a difference of
            // sums cut at the limit would not be the padding.
            entry.padding_bytes = add_bytes(entry.padding_bytes, row.padding_bytes());
            if self.rows[entry.largest_row].bytes < row.bytes {
                entry.largest_row = k;
            }
        });
        let mut out: Vec<ShapePadding> = by_text.into_values().collect();
        out.sort_by(|a, b| {
            (b.padding_bytes.cmp(&a.padding_bytes)).then_with(|| a.shape.cmp(&b.shape))
        });
        out
    }

    /// A row's details, given its shape's text and why it pads.
    fn details_with(&self, row: &Row, text: String, reasons: Vec<String>) -> Details<'a> {
        let d = &self.dataflow;
        let m = d.module();
        let Some((k, i)) = d.instruction(row.value.instruction) else {
            return Details::empty();
        };
        let (metadata, metadata_from) = self.origin(row.value);
        Details {
            computation: m.computations()[k].name(),
            instruction: i.name(),
            name: d.value_name(row.value),
            opcode: i.opcode(),
            shape: text,
            reasons,
            metadata,
            location: metadata.location(m.stack_index()),
            metadata_from,
        }
    }

    /// The metadata that says where value `v` comes from, and the
    /// instruction it is taken from when not `v`'s own (see
    /// [`Details::metadata_from`]). An output of a multi-output fusion
    /// takes the metadata of the body's instruction that computes it,
    /// where it has any (XLA gives each output its own there).
    fn origin(&self, v: Value) -> (Metadata<'a>, Option<&'a str>) {
        let d = &self.dataflow;
        let says = |m: &Metadata<'_>| {
            m.op_name.is_some() || m.source_file.is_some() || m.stack_frame_id.is_some()
        };
        let named = |id: InstructionId| d.instruction(id).map(|(_, i)| (i.metadata(), i.name()));
        let own = named(v.instruction).map_or_else(Metadata::default, |(m, _)| m);
        if let Some((m, name)) = d.fusion_output(v).and_then(named).filter(|(m, _)| says(m)) {
            return (m, Some(name));
        }
        if says(&own) {
            return (own, None);
        }
        let mut at = v.instruction;
        for _ in 0..ORIGIN_STEPS {
            let Some((_, i)) = d.instruction(at) else {
                break;
            };
            let next = if i.opcode() == "fusion" {
                d.fusion_root(at)
            } else if TAKES_OPERANDS_ORIGIN.contains(&i.opcode()) {
                d.operands(at).first().copied()
            } else {
                None
            };
            let Some(next) = next.filter(|&n| n != u32::MAX) else {
                break;
            };
            match named(next) {
                Some((m, name)) if says(&m) => return (m, Some(name)),
                Some(_) => at = next,
                None => break,
            }
        }
        (own, None)
    }

    /// The totals of memory space `space`, if the report has any.
    ///
    /// ```
    /// # use xla_layout_hlo::{Module, memory::{Options, Report}};
    /// let m = Module::parse("ENTRY e {\n ROOT x = f32[256]{0:S(1)} parameter(0)\n}").unwrap();
    /// let r = Report::new(&m, &Options::default());
    /// assert_eq!(r.space(1).map(|s| s.arguments), Some(1024));
    /// assert!(r.space(0).is_none());
    /// ```
    pub fn space(&self, space: i64) -> Option<&Space> {
        // `spaces` is in order of their numbers (`build_spaces`).
        let k = self.spaces.binary_search_by_key(&space, |s| s.space).ok()?;
        self.spaces.get(k)
    }

    /// Whether most of XLA's temporary heap in space `s` is the rounding
    /// of its temporaries' offsets to [`tpu::HEAP_PAGE`] (a TPU's HBM;
    /// [`SpaceUse::paged_heap`]), not their bytes: the heap XLA's buffer
    /// assignment gives is at least twice the most temporaries live at
    /// once, and at least two pages (a trial's heap was 97% rounding). The
    /// padding figures leave this out.
    ///
    /// ```
    /// # use xla_layout_hlo::{BufferAssignment, Module, memory::{Backend, Options, Report}};
    /// let m = Module::parse("HloModule m, is_scheduled=true\nENTRY e {\n p = f32[8]{0:T(8)} parameter(0)\n n = f32[8]{0:T(8)} negate(p)\n ROOT x = f32[8]{0:T(8)} negate(n)\n}").unwrap();
    /// let ba = BufferAssignment::parse("allocation 0: size 32, parameter 0, shape |f32[8]| at ShapeIndex {}:\n value: <0 p @0> (size=32,offset=0): f32[8]{0:T(8)}\nallocation 1: size 32, output shape is |f32[8]|, maybe-live-out:\n value: <2 x @0> (size=32,offset=0): f32[8]{0:T(8)}\nallocation 2: size 65536, preallocated-temp:\n value: <1 n @0> (size=32,offset=0): f32[8]{0:T(8)}\n");
    /// let opts = Options { backend: Some(Backend::Tpu), buffer_assignment: Some(&ba), ..Options::default() };
    /// assert!(Report::new(&m, &opts).heap_is_mostly_rounding(0));
    /// ```
    pub fn heap_is_mostly_rounding(&self, s: i64) -> bool {
        let Some(space) = self.space(s) else {
            return false;
        };
        self.backend.space(s).paged_heap
            && space.assigned.is_some_and(|a| {
                a.temp >= space.temp_peak.saturating_mul(2).max(2 * tpu::HEAP_PAGE)
            })
    }

    /// The bytes live at each step of the schedule in the spaces
    /// `spaces` (one buffer counted once, by the row that stands for it,
    /// as the peak counts it):
    /// what the peak is the maximum of.
    ///
    /// ```
    /// # use xla_layout_hlo::{Module, memory::{Options, Report}};
    /// let m = Module::parse("HloModule m, is_scheduled=true\nENTRY e {\n x = f32[256]{0} parameter(0)\n n = f32[256]{0} negate(x)\n e = f32[256]{0} exponential(n)\n ROOT a = f32[256]{0} add(e, x)\n}").unwrap();
    /// let r = Report::new(&m, &Options::default());
    /// // x throughout, the output a too; n from step 1 to 2, e from 2 to 3.
    /// assert_eq!(r.live_bytes(&[0]), [2048, 3072, 4096, 3072]);
    /// ```
    pub fn live_bytes(&self, spaces: &[i64]) -> Vec<u64> {
        // Sorted, for a search per row (a scan was quadratic with many
        // spaces).
        let mut spaces = spaces.to_vec();
        spaces.sort_unstable();
        let steps = self.dataflow.schedule().len();
        // Exact (a row's bytes are at most 2^64, far from i128's limit),
        // cut at SIZE_LIMIT where each step's total is read: saturating
        // deltas gave nonsense once one saturated.
        let mut delta = vec![0i128; steps + 1];
        // Each buffer counted once, by the row the peak counts it by.
        for (k, row) in self.rows.iter().enumerate() {
            if spaces.binary_search(&row.space).is_err() || !self.stands_for_buffer(k) {
                continue;
            }
            if !counts_toward_peak(self.backend == Backend::Tpu, row) {
                continue;
            }
            if let Some((a, b)) = row.live {
                let (a, b) = (a as usize, (b as usize + 1).min(steps));
                if a < b {
                    delta[a] += i128::from(row.bytes);
                    delta[b] -= i128::from(row.bytes);
                }
            }
        }
        let mut live = 0i128;
        delta[..steps]
            .iter()
            .map(|d| {
                live += d;
                live.clamp(0, i128::from(SIZE_LIMIT)) as u64
            })
            .collect()
    }

    /// Whether row `k` is the one its buffer is counted by (its bytes,
    /// space and role are the buffer's): a reducer's constant, which has
    /// no buffer in the dataflow, stands for its own.
    fn stands_for_buffer(&self, k: usize) -> bool {
        let Some(row) = self.rows.get(k) else {
            return false;
        };
        // Set once `Report::new` has found the representatives.
        debug_assert_eq!(
            self.representative.len(),
            self.dataflow.buffer_count() as usize
        );
        // A buffer number past the dataflow's (a row edited by hand) is
        // no buffer the totals count.
        row.buffer == NONE
            || self
                .representative
                .get(row.buffer as usize)
                .is_some_and(|&r| r as usize == k)
    }

    /// How many buffers the report counts: the dataflow's buffers that
    /// hold a value, and each reducer's constant (which the dataflow gives
    /// none) as one of its own; [`Report::by_buffer`] lists as many, and
    /// the spaces' [`Space::buffers`] add up to it.
    ///
    /// ```
    /// # use xla_layout_hlo::{Module, memory::{Options, Order, Report}};
    /// // The reducer's constant is a buffer of its own.
    /// let m = Module::parse("add {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n c = f32[] constant(0)\n ROOT s = f32[] add(a, c)\n}\nENTRY e {\n p = f32[8]{0} parameter(0)\n z = f32[] constant(0)\n ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add\n}").unwrap();
    /// let r = Report::new(&m, &Options::default());
    /// assert_eq!(r.buffer_count(), r.by_buffer(Order::Bytes).len());
    /// assert_eq!(r.buffer_count(), r.spaces.iter().map(|s| s.buffers).sum::<usize>());
    /// assert_eq!(r.buffer_count(), r.dataflow().buffer_count() as usize + 1);
    /// ```
    pub fn buffer_count(&self) -> usize {
        (0..self.rows.len())
            .filter(|&k| self.stands_for_buffer(k))
            .count()
    }

    /// The buffers, each once, in the order `order` asks (largest first,
    /// ties by position): for each, the row it is counted by
    /// ([`ListedBuffer::row`], the one every total and the peak count) and the
    /// other values that share its memory. Post-condition: every row is
    /// in exactly one entry, and the entries' bytes add up to the spaces'
    /// [`Space::buffer_bytes`].
    ///
    /// ```
    /// # use xla_layout_hlo::{Module, memory::{Options, Order, Report}};
    /// // The output is written over the donated parameter: one buffer.
    /// let m = Module::parse("HloModule m, input_output_alias={ {}: (0, {}, may-alias) }\nENTRY e {\n p = f32[8]{0} parameter(0)\n q = f32[2]{0} parameter(1)\n ROOT n = f32[8]{0} negate(p)\n}").unwrap();
    /// let r = Report::new(&m, &Options::default());
    /// let listed = r.by_buffer(Order::Bytes);
    /// assert_eq!(listed.len(), 2);
    /// assert_eq!((listed[0].row, listed[0].shared.as_slice()), (0, &[2][..]));
    /// assert_eq!((listed[1].row, listed[1].shared.len()), (1, 0));
    /// ```
    pub fn by_buffer(&self, order: Order) -> Vec<ListedBuffer> {
        let mut shared: Vec<Vec<usize>> = vec![Vec::new(); self.representative.len()];
        for (k, row) in self.rows.iter().enumerate() {
            if !self.stands_for_buffer(k)
                && let Some(others) = shared.get_mut(row.buffer as usize)
            {
                others.push(k);
            }
        }
        let mut listed: Vec<ListedBuffer> = (0..self.rows.len())
            .filter(|&k| self.stands_for_buffer(k))
            .map(|k| ListedBuffer {
                row: k,
                shared: match self.rows[k].buffer {
                    NONE => Vec::new(),
                    b => shared
                        .get_mut(b as usize)
                        .map(core::mem::take)
                        .unwrap_or_default(),
                },
            })
            .collect();
        let key = |l: &ListedBuffer| self.order_key(&self.rows[l.row], order);
        listed.sort_by(|a, b| key(b).cmp(&key(a)).then(a.row.cmp(&b.row)));
        listed
    }

    /// What `order` sorts a row by, most significant first.
    fn order_key(&self, r: &Row, order: Order) -> (u64, u64) {
        match order {
            Order::Bytes => (r.bytes, r.padding_bytes()),
            Order::Padding => (r.padding_bytes(), r.bytes),
        }
    }

    /// Rows in the order `order` asks, largest first, ties by position.
    ///
    /// ```
    /// # use xla_layout_hlo::{Module, memory::{Options, Order, Report}};
    /// let m = Module::parse("ENTRY e {\n a = f32[3]{0:T(128)} parameter(0)\n ROOT b = f32[256]{0:T(128)} negate(a)\n}").unwrap();
    /// let r = Report::new(&m, &Options::default());
    /// assert_eq!(r.sorted(Order::Bytes), [1, 0]);
    /// assert_eq!(r.sorted(Order::Padding), [0, 1]);
    /// ```
    pub fn sorted(&self, order: Order) -> Vec<usize> {
        let mut rows: Vec<usize> = (0..self.rows.len()).collect();
        let key = |k: &usize| self.order_key(&self.rows[*k], order);
        rows.sort_by(|a, b| key(b).cmp(&key(a)).then(a.cmp(b)));
        rows
    }

    /// The padding of the buffers live at the peak ([`Report::peak`]):
    /// (data bytes, buffer bytes); what padding costs when memory is
    /// tightest, where [`Report::padding`] sums buffers that need not
    /// coexist. `None` without a peak.
    ///
    /// ```
    /// # use xla_layout_hlo::{Module, memory::{Options, Report}};
    /// let m = Module::parse("HloModule m, is_scheduled=true\nENTRY e {\n a = f32[2,128]{1,0:T(8,128)} parameter(0)\n n = f32[2,128]{1,0:T(8,128)} negate(a)\n ROOT x = f32[8,128]{1,0:T(8,128)} parameter(1)\n}").unwrap();
    /// let r = Report::new(&m, &Options::default());
    /// assert_eq!(r.padding_at_peak(), Some((1024 * 2 + 4096, 4096 * 3)));
    /// ```
    pub fn padding_at_peak(&self) -> Option<(u64, u64)> {
        let p = self.peak.as_ref()?;
        Some(
            p.live
                .iter()
                .filter_map(|&k| self.rows.get(k))
                .fold((0u64, 0u64), |(d, b), r| {
                    (add_bytes(d, r.data_bytes), add_bytes(b, r.bytes))
                }),
        )
    }

    /// The padding of the buffers live at the peak, summed buffer by
    /// buffer: what [`Report::padding_at_peak`]'s two totals differ by,
    /// also where they stop at [`SIZE_LIMIT`]. `None` without a peak.
    ///
    /// ```
    /// # use xla_layout_hlo::{Module, memory::{Options, Report}};
    /// let m = Module::parse("HloModule m, is_scheduled=true\nENTRY e {\n a = f32[2,128]{1,0:T(8,128)} parameter(0)\n n = f32[2,128]{1,0:T(8,128)} negate(a)\n ROOT x = f32[8,128]{1,0:T(8,128)} parameter(1)\n}").unwrap();
    /// let r = Report::new(&m, &Options::default());
    /// assert_eq!(r.padding_bytes_at_peak(), Some(2 * 3072));
    /// ```
    pub fn padding_bytes_at_peak(&self) -> Option<u64> {
        let p = self.peak.as_ref()?;
        Some(
            p.live
                .iter()
                .filter_map(|&k| self.rows.get(k))
                .fold(0, |sum, r| add_bytes(sum, r.padding_bytes())),
        )
    }

    /// How many devices the module is partitioned for
    /// (`num_partitions=N` in its header; 1 when absent): after SPMD
    /// partitioning, every shape in it is one device's shard.
    ///
    /// ```
    /// # use xla_layout_hlo::{Module, memory::{Options, Report}};
    /// let m = Module::parse("HloModule m, num_partitions=8\nENTRY e {\n ROOT p = f32[8]{0} parameter(0)\n}").unwrap();
    /// assert_eq!(Report::new(&m, &Options::default()).partitions(), 8);
    /// ```
    pub fn partitions(&self) -> u64 {
        partitions_of(self.dataflow.module())
    }

    /// How many devices share the module's arrays when every shape in it
    /// is one device's shard: [`Report::partitions`] above 1, in a module
    /// after partitioning (before it, shapes are global:
    /// [`Report::before_partitioning`]). `None` otherwise.
    ///
    /// ```
    /// # use xla_layout_hlo::{Module, memory::{Options, Report}};
    /// let after = Module::parse("HloModule m, is_scheduled=true, num_partitions=8\nENTRY e {\n ROOT p = f32[8]{0} parameter(0)\n}").unwrap();
    /// assert_eq!(Report::new(&after, &Options::default()).sharded_over(), Some(8));
    /// let before = Module::parse("HloModule m, num_partitions=8\nENTRY e {\n ROOT p = f32[8]{0} parameter(0)\n}").unwrap();
    /// assert_eq!(Report::new(&before, &Options::default()).sharded_over(), None);
    /// ```
    pub fn sharded_over(&self) -> Option<u64> {
        let n = self.partitions();
        (n > 1 && !self.before_partitioning).then_some(n)
    }

    /// The padding of every buffer: (data bytes, buffer bytes), device
    /// spaces only.
    ///
    /// ```
    /// # use xla_layout_hlo::{Module, memory::{Options, Report}};
    /// let m = Module::parse("ENTRY e {\n ROOT a = f32[2,128]{1,0:T(8,128)} parameter(0)\n}").unwrap();
    /// assert_eq!(Report::new(&m, &Options::default()).padding(), (1024, 4096));
    /// ```
    pub fn padding(&self) -> (u64, u64) {
        self.spaces
            .iter()
            .filter(|s| !s.host)
            .fold((0u64, 0u64), |(d, b), s| {
                (add_bytes(d, s.data_bytes), add_bytes(b, s.buffer_bytes))
            })
    }

    /// The padding of every buffer, device spaces only, summed buffer by
    /// buffer: what [`Report::padding`]'s two totals differ by, also
    /// where they stop at [`SIZE_LIMIT`].
    ///
    /// ```
    /// # use xla_layout_hlo::{Module, memory::{Options, Report}};
    /// let m = Module::parse("ENTRY e {\n ROOT a = f32[2,128]{1,0:T(8,128)} parameter(0)\n}").unwrap();
    /// assert_eq!(Report::new(&m, &Options::default()).padding_bytes(), 3072);
    /// ```
    pub fn padding_bytes(&self) -> u64 {
        (self.spaces.iter())
            .filter(|s| !s.host)
            .fold(0, |sum, s| add_bytes(sum, s.padding_bytes))
    }
}

/// Whether a node's size is defined (see [`Row::sized`]).
fn sized(kind: &NodeKind) -> bool {
    match kind {
        NodeKind::Array(a) => a.tiled_bytes.is_some() && a.xla_bytes.is_some(),
        _ => true,
    }
}

/// How to order rows.
///
/// ```
/// use xla_layout_hlo::{Module, memory::{Options, Order, Report}};
/// let m = Module::parse("ENTRY e {\n ROOT p = f32[2]{0} parameter(0)\n}").unwrap();
/// assert_eq!(Report::new(&m, &Options::default()).sorted(Order::Bytes), [0]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Order {
    /// By bytes allocated.
    Bytes,
    /// By bytes of padding.
    Padding,
}

/// The padding of the buffers of one shape ([`Report::padding_by_shape`]).
///
/// ```
/// # use xla_layout_hlo::{Module, memory::{Options, Report}};
/// let m = Module::parse("ENTRY e {\n ROOT p = f32[3]{0:T(128)} parameter(0)\n}").unwrap();
/// let r = Report::new(&m, &Options::default());
/// let p = &r.padding_by_shape()[0];
/// assert_eq!((p.shape.as_str(), p.buffers, p.padding_bytes, p.largest_row), ("f32[3]{0:T(128)}", 1, 500, 0));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ShapePadding {
    /// The shape as printed, layout and memory space included.
    pub shape: String,
    /// How many buffers have it (each counted by the value that stands
    /// for it, as every total counts them).
    pub buffers: usize,
    /// Their bytes.
    pub buffer_bytes: u64,
    /// The bytes their elements need.
    pub data_bytes: u64,
    /// The bytes padding costs them, summed buffer by buffer (as
    /// [`Space::padding_bytes`]: each sum stops at [`SIZE_LIMIT`]).
    pub padding_bytes: u64,
    /// Why each is padded, one reason per rounding (the shape decides).
    pub reasons: Vec<String>,
    /// The row ([`Report::rows`]) of the largest of them: its name,
    /// `op_name` and source say where in the program the shape comes
    /// from.
    pub largest_row: usize,
}

/// One buffer in [`Report::by_buffer`]'s list.
///
/// ```
/// # use xla_layout_hlo::{Module, memory::{Options, Order, Report}};
/// let m = Module::parse("ENTRY e {\n ROOT p = f32[2]{0} parameter(0)\n}").unwrap();
/// let listed = Report::new(&m, &Options::default()).by_buffer(Order::Bytes);
/// assert_eq!((listed[0].row, listed[0].shared.len()), (0, 0));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ListedBuffer {
    /// The row the buffer is counted by ([`Report::rows`]): its bytes,
    /// memory space and role are the buffer's.
    pub row: usize,
    /// The other values in the buffer, in row order: no more memory.
    pub shared: Vec<usize>,
}

/// Bytes arriving in (or, negative, leaving) space `space` at schedule
/// step `step`: of every buffer the peak counts, of temporaries, and of
/// temporaries as the heap holds them (TPU pages).
#[derive(Clone, Copy, Default)]
struct Event {
    step: u32,
    /// An index into the spaces, which the rows' and the buffer
    /// assignment's allocations' spaces may make more than `u32` numbers.
    space: usize,
    bytes: [i64; 3],
}

/// `events` in order of step, those at a step in the order given (a
/// counting sort: the steps are a schedule's positions, and a comparison
/// sort took a tenth of a long module's report); those at `steps` or
/// later, which no step sees, are left out.
fn by_step(events: &[Event], steps: usize) -> Vec<Event> {
    let mut start = vec![0usize; steps + 1];
    for e in events.iter().filter(|e| (e.step as usize) < steps) {
        start[e.step as usize + 1] += 1;
    }
    for k in 1..=steps {
        start[k] += start[k - 1];
    }
    let mut out = vec![Event::default(); start[steps]];
    for e in events.iter().filter(|e| (e.step as usize) < steps) {
        out[start[e.step as usize]] = *e;
        start[e.step as usize] += 1;
    }
    out
}

/// One representative row per buffer (`NONE` for a buffer with none):
/// the value whose role is the buffer's (a parameter's buffer is an
/// argument's whatever a loop body writes into it later), then the
/// largest. The buffer is counted in its representative's memory space.
fn representatives(rows: &[Row], buffers: usize) -> Vec<u32> {
    let key = |row: &Row| (row.role.buffer_rank(), row.bytes);
    let mut rep: Vec<u32> = vec![NONE; buffers];
    for (k, row) in rows.iter().enumerate() {
        let Some(slot) = rep.get_mut(row.buffer as usize) else {
            continue; // `NONE`: a reducer's constant.
        };
        if *slot == NONE || key(&rows[*slot as usize]) < key(row) {
            // A row with a buffer is a value's, and those come first:
            // one per value at most.
            *slot = position_number(k);
        }
    }
    rep
}

/// Sweeps `events` over the `steps` of the schedule: sets each space's
/// `live_peak` (and where, the first step it is reached), `temp_peak`
/// and `temp_heap`, and returns the most bytes live at once in the
/// `device` spaces together and the first step with them (`None` with no
/// steps or no such space). Time in the events and spaces, not in their
/// product: only the spaces an event moves can reach a new peak.
fn sweep(
    events: &[Event],
    steps: usize,
    spaces: &mut [Space],
    device: &[bool],
) -> Option<(u64, usize)> {
    let events = by_step(events, steps);
    let n = spaces.len();
    // Exact sums (a row's bytes are at most i64::MAX, so no i128 sum
    // overflows), cut at SIZE_LIMIT where they are stored: summed
    // one event at a time, saturating sums would depend on the events'
    // order at a step.
    let (mut all, mut temps, mut heap) = (vec![0i128; n], vec![0i128; n], vec![0i128; n]);
    let limit = |x: i128| x.clamp(0, i128::from(SIZE_LIMIT)) as u64;
    // The device spaces' live bytes, each cut at the limit.
    let mut total: i128 = 0;
    let mut peak = None::<(u64, usize)>;
    let mut touched: Vec<usize> = Vec::new();
    let any_device = device.contains(&true);
    let mut next = 0;
    for step in 0..steps {
        touched.clear();
        while let Some(e) = events.get(next).filter(|e| e.step as usize == step) {
            let k = e.space;
            let [a, t, h] = e.bytes.map(i128::from);
            let before = limit(all[k]);
            all[k] += a;
            if device[k] {
                total += i128::from(limit(all[k])) - i128::from(before);
            }
            temps[k] += t;
            heap[k] += h;
            touched.push(k);
            next += 1;
        }
        // At the first step every space starts its peak; later only the
        // spaces an event moved can pass theirs.
        let mut update = |k: usize| {
            let sp = &mut spaces[k];
            sp.temp_heap = sp.temp_heap.max(limit(heap[k]));
            sp.temp_peak = sp.temp_peak.max(limit(temps[k]));
            let live = limit(all[k]);
            if live > sp.live_peak || sp.live_peak_at.is_none() {
                sp.live_peak = live;
                sp.live_peak_at = Some(item_index(step));
            }
        };
        if step == 0 {
            (0..n).for_each(&mut update);
        } else {
            touched.iter().for_each(|&k| update(k));
        }
        if any_device {
            let bytes = limit(total);
            if peak.is_none_or(|(best, _)| bytes > best) {
                peak = Some((bytes, step));
            }
        }
    }
    peak
}

/// Whether `module` is past layout assignment (see
/// [`Report::layouts_assigned`]): its entry's parameters and root have the
/// shapes its `entry_computation_layout` gives them, memory spaces and
/// `M(n)` aside (the CPU keeps in device memory what the signature places
/// on the host); yes when either side cannot be read. Before optimisation they
/// do not: the signature has the device's layouts, the instructions
/// default ones (and, before partitioning, the global dimensions).
fn layouts_assigned(module: &Module<'_>) -> bool {
    let (Some((params, result)), Some(entry)) = (signature(module), module.entry()) else {
        return true;
    };
    let arrays = |s: &Shape| -> Vec<String> {
        s.events()
            .map(|e| match e {
                ShapeEvent::Leaf {
                    shape: Shape::Array(a),
                    ..
                } => match a.layout() {
                    // A TPU writes `M(1024)` on its instructions' dynamic
                    // arrays, not in the signature.
                    Some(l) => a
                        .with_layout(
                            l.with_memory_space(0)
                                .with_dynamic_shape_metadata_prefix_bytes(0),
                        )
                        .to_string(),
                    None => a.to_string(),
                },
                ShapeEvent::Leaf { shape, .. } => shape.to_string(),
                ShapeEvent::TupleStart { .. } => "(".into(),
                ShapeEvent::TupleEnd => ")".into(),
            })
            .collect()
    };
    // A parameter the signature does not list says nothing either way.
    let same = |i: &crate::Instruction<'_>, want: Option<&Shape>| match (i.shape(), want) {
        (Some(Ok(have)), Some(want)) => arrays(&have) == arrays(want),
        _ => true,
    };
    // Every parameter the signature lists is there (one that did not read
    // takes its bytes with it).
    let parameters = entry
        .instructions()
        .iter()
        .filter(|i| i.opcode() == "parameter")
        .count();
    // The root found once: looking for it per instruction was quadratic
    // (23 s for a computation of 80,000 instructions).
    let root = entry.root();
    parameters == params.len()
        && entry.instructions().iter().all(|i| {
            let root = root.is_some_and(|r| core::ptr::eq(r, i));
            let param = (i.opcode() == "parameter")
                .then(|| i.operands_text().trim().parse::<usize>().ok())
                .flatten();
            (!root || same(i, Some(&result))) && param.is_none_or(|n| same(i, params.get(n)))
        })
}

/// The entry's parameters and result as the module's
/// `entry_computation_layout` gives them, when it reads.
fn signature(module: &Module<'_>) -> Option<(Vec<Shape>, Shape)> {
    let (params, result) = module
        .attribute("entry_computation_layout")?
        .trim()
        .strip_prefix('{')?
        .strip_suffix('}')?
        .rsplit_once("->")?;
    let params = Shape::parse(params.trim())
        .ok()?
        .into_tuple_elements()
        .ok()?;
    Some((params, Shape::parse(result.trim()).ok()?))
}

/// Whether `module`'s entry is missing a part XLA always writes (see
/// [`Report::entry_incomplete`]): its `ROOT`, or a parameter its
/// `entry_computation_layout` lists.
fn entry_incomplete(module: &Module<'_>) -> bool {
    let Some(entry) = module.entry() else {
        return false;
    };
    let parameters = entry
        .instructions()
        .iter()
        .filter(|i| i.opcode() == "parameter")
        .count();
    !entry.instructions().iter().any(|i| i.is_root())
        || signature(module).is_some_and(|(params, _)| parameters < params.len())
}

/// How a TPU sizes tuples' index tables: by a generation's rule
/// ([`Generation::tuple_table_bytes`]), and where the generation comes
/// from.
///
/// ```
/// use xla_layout_core::tpu::Generation;
/// use xla_layout_hlo::{Module, memory::{Options, Report, Source}};
/// let m = Module::parse("ENTRY e {\n p = f32[8]{0:T(8)} parameter(0)\n ROOT t = (f32[8]{0:T(8)}) tuple(p)\n}").unwrap();
/// let r = Report::new(&m, &Options { generation: Some(Generation::V6e), ..Options::default() });
/// let tables = r.tuple_tables.unwrap();
/// // The generation given, with no buffer assignment's tuples to say otherwise.
/// assert_eq!((tables.generation, tables.source), (Generation::V6e, Source::Exact));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TupleTables {
    /// The generation whose rule sizes them (generations that size them
    /// alike are not told apart: the first in [`Generation::ALL`]).
    pub generation: Generation,
    /// [`Source::BufferAssignment`]: every tuple of XLA's buffer assignment
    /// has this generation's size; [`Source::Exact`]: the generation given,
    /// with no tuples in a buffer assignment to say otherwise;
    /// [`Source::Estimated`]: the generation given or the default, with
    /// neither a generation nor a buffer assignment's tuples to go by, or
    /// with tuples that fit no known generation
    /// ([`Report::tuples_fit_no_generation`]).
    pub source: Source,
}

/// Which kind of disagreement between XLA's tuple tables and a generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TupleConflict {
    /// The generation given is not the one they show.
    OtherGeneration,
    /// They fit no known generation.
    NoGeneration,
}

/// The non-empty tuples of a buffer assignment: (arity, bytes) of each.
fn assigned_tuples(ba: &BufferAssignment<'_>) -> Vec<(u64, u64)> {
    ba.values
        .iter()
        .filter(|v| v.shape.starts_with('('))
        .filter_map(|v| match Shape::parse(v.shape) {
            Ok(Shape::Tuple(ref elements)) if !elements.is_empty() => {
                Some((elements.len() as u64, v.size))
            }
            _ => None,
        })
        .collect()
}

/// `num_partitions=N` of the module's header; 1 when absent.
fn partitions_of(module: &Module<'_>) -> u64 {
    module
        .attribute("num_partitions")
        .and_then(|n| n.trim().parse::<u64>().ok())
        .unwrap_or(1)
}

/// How tuple tables are sized on `backend` (`None` off a TPU): by the
/// generation XLA's buffer assignment's `tuples` show (the one given
/// first, if it fits), else by the one given, else the default (then an
/// estimate, as when the tuples fit no generation).
fn tuple_tables(
    backend: Backend,
    generation: Option<Generation>,
    tuples: &[(u64, u64)],
    disputed: bool,
) -> Option<TupleTables> {
    if backend != Backend::Tpu {
        return None;
    }
    let fits = |g: &Generation| tuples.iter().all(|&(n, b)| g.tuple_table_bytes(n) == b);
    let shown = match tuples {
        [] => None,
        _ => generation.iter().chain(Generation::ALL).copied().find(fits),
    };
    Some(match (shown, generation) {
        (Some(g), _) => TupleTables {
            generation: g,
            source: Source::BufferAssignment,
        },
        (None, Some(g)) if tuples.is_empty() && !disputed => TupleTables {
            generation: g,
            source: Source::Exact,
        },
        (None, g) => TupleTables {
            generation: g.unwrap_or(Generation::DEFAULT),
            source: Source::Estimated,
        },
    })
}

/// The name of memory space `s` on `backend`. Names are given only where
/// the fixtures show what a space holds and XLA's report names it; the
/// rest are "memory space N".
///
/// ```
/// # use xla_layout_hlo::memory::{Backend, space_name};
/// assert_eq!(space_name(Backend::Tpu, 1), "VMEM");
/// assert_eq!(space_name(Backend::Tpu, 6), "memory space 6");
/// assert_eq!(space_name(Backend::Cpu, 5), "memory space 5");
/// ```
pub fn space_name(backend: Backend, s: i64) -> String {
    match backend.space(s).name {
        Some(name) => name.into(),
        None => format!("memory space {s}"),
    }
}

/// The shape of preorder node `node` of the shape `text`, and its text
/// as printed (a tuple's with its elements).
fn node_shape(text: &str, node: u32) -> (Option<Shape>, String) {
    node_shapes(text, &[node]).pop().unwrap_or_default()
}

/// [`node_shape`] of each of `nodes` (ascending, no repeats) in one pass
/// over `text`; a node the text does not have gets `(None, "")`.
fn node_shapes(text: &str, nodes: &[u32]) -> Vec<(Option<Shape>, String)> {
    use core::fmt::Write as _;
    debug_assert!(
        nodes.windows(2).all(|w| w[0] < w[1]),
        "ascending, no repeats"
    );
    let mut out: Vec<(Option<Shape>, String)> = vec![(None, String::new()); nodes.len()];
    let (mut count, mut depth, mut next) = (0u32, 0usize, 0usize);
    // The tuples being printed: each one's slot in `out`, and the depth
    // its end returns to.
    let mut open: Vec<(usize, usize)> = Vec::new();
    let mut piece = String::new();
    let _ = parse_shape_events(text.as_bytes(), ParseOptions::default(), |e| {
        // A tuple's end is no node: only a start or a leaf is `count`.
        let is_node = !matches!(e, ParseEvent::TupleEnd);
        let at = (is_node && nodes.get(next) == Some(&count)).then(|| {
            next += 1;
            next - 1
        });
        // What the event adds to the tuples open around it: itself as
        // printed, with the separator before it.
        if !open.is_empty() {
            piece.clear();
            let _ = write!(piece, "{e}");
            for &(slot, _) in &open {
                out[slot].1.push_str(&piece);
            }
        }
        match &e {
            ParseEvent::TupleStart { .. } => {
                // Its own text starts without the separator.
                if let Some(slot) = at {
                    out[slot].1.push('(');
                    open.push((slot, depth));
                }
                depth += 1;
                count += 1;
            }
            ParseEvent::Leaf { shape, .. } => {
                if let Some(slot) = at {
                    out[slot].0 = Some((*shape).clone());
                    let _ = write!(out[slot].1, "{shape}");
                }
                count += 1;
            }
            ParseEvent::TupleEnd => {
                depth = depth.saturating_sub(1);
                if open.last().is_some_and(|&(_, d)| d == depth) {
                    open.pop();
                }
            }
        }
    });
    out
}

/// Why `a` is padded on `backend`, one reason per rounding.
fn padding_reasons(a: &ArrayShape, backend: Backend) -> Vec<String> {
    let mut out = Vec::new();
    let with_layout;
    let a = if a.layout().is_some() {
        a
    } else {
        with_layout = a.with_layout(a.layout_or_default());
        &with_layout
    };
    let sizing = (backend == Backend::Tpu).then(|| tpu::sizing(a));
    // (Only where the rounding adds bytes.)
    if sizing == Some(tpu::Sizing::Page)
        && a.xla_byte_size_of()
            .is_ok_and(|b| !b.is_multiple_of(tpu::UNTILED_PAGE))
    {
        out.push(format!(
            "untiled in memory space {}: a TPU rounds it up to a multiple of {} bytes",
            a.memory_space(),
            tpu::UNTILED_PAGE
        ));
    }
    // Why a tiled shape in SMEM is smaller here than its tiles (as
    // `scan` and `explain` size it): SMEM holds words, not tiles.
    if sizing == Some(tpu::Sizing::Elements)
        && a.layout().is_some_and(|l| l.tile_count() > 0)
        && let Ok(t) = a.tiled()
        && t.exact_bytes() != t.data_bytes()
    {
        let space = a.memory_space();
        out.push(format!(
            "in {} (S({space})): a TPU sizes its elements, not its tiles ({} bytes tiled)",
            space_name(backend, i64::from(space)),
            t.exact_bytes()
        ));
    }
    if sizing == Some(tpu::Sizing::Tiles)
        && let Ok(p) = a.padding()
    {
        out.extend(p.roundings().filter(|r| r.pads()).map(|r| r.to_string()));
        if let Some((slots, allocated, alignment)) = p.tail() {
            out.push(format!("slots: {slots} → {allocated} by L({alignment})"));
        }
    }
    if !a.is_static() {
        out.push(match backend {
            Backend::Tpu => format!(
                "dynamic shape: {} bytes of sizes in front of the data (a TPU's, whatever the rank)",
                tpu::metadata_bytes(a)
            ),
            _ => format!(
                "dynamic shape: {} bytes of sizes (4 per dimension)",
                a.xla_dynamic_size_bytes()
            ),
        });
    }
    out
}

impl CallContext {
    /// `"entry"`, `"control-flow"`, `"fusion"`, `"embedded"`,
    /// `"uncalled"`, `"other-thread"`.
    ///
    /// ```
    /// # use xla_layout_hlo::dataflow::CallContext;
    /// assert_eq!(CallContext::Fusion.name(), "fusion");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            CallContext::Entry => "entry",
            CallContext::ControlFlow => "control-flow",
            CallContext::Fusion => "fusion",
            CallContext::Embedded => "embedded",
            CallContext::Uncalled => "uncalled",
            CallContext::OtherThread => "other-thread",
        }
    }
}

/// The element type and dimensions of each node of one instruction's
/// shape (preorder, `None` for a tuple), read from its text once and kept
/// while the values asked about are that instruction's: what
/// `Report::join_assignment` compares with a buffer assignment's shapes.
#[derive(Default)]
struct InstructionArrays {
    instruction: Option<InstructionId>,
    nodes: Vec<Option<(xla_layout_core::ElementType, Vec<i64>)>>,
}

impl InstructionArrays {
    /// Whether `assigned` (a buffer assignment's shape text) has the
    /// element type and dimensions of `value`'s array. Yes when either
    /// side cannot tell: a shape unread, or not an array.
    fn same(&mut self, dataflow: &Dataflow<'_, '_>, value: Value, assigned: &str) -> bool {
        if self.instruction != Some(value.instruction) {
            self.instruction = Some(value.instruction);
            self.nodes.clear();
            if let Some(text) = dataflow.shape_text(value.instruction) {
                let nodes = &mut self.nodes;
                let read =
                    parse_shape_events(text.as_bytes(), ParseOptions::default(), |e| match e {
                        ParseEvent::TupleStart { .. } => nodes.push(None),
                        ParseEvent::Leaf { shape, .. } => nodes.push(match shape {
                            Shape::Array(a) => Some((a.element_type(), a.dims().to_vec())),
                            _ => None,
                        }),
                        ParseEvent::TupleEnd => {}
                    });
                if read.is_err() {
                    self.nodes.clear();
                }
            }
        }
        let ours = self.nodes.get(value.node as usize).and_then(Option::as_ref);
        let theirs = match Shape::parse(assigned) {
            Ok(Shape::Array(a)) => Some(a),
            _ => None,
        };
        match (ours, theirs) {
            (Some((t, dims)), Some(b)) => *t == b.element_type() && dims[..] == *b.dims(),
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Options, Report, Source};
    use crate::dataflow::{Dataflow, LIMITS, Limits};
    use crate::items::Module;

    #[test]
    fn values_past_the_position_limit_make_the_figures_estimates() {
        let m = Module::parse(
            "ENTRY e {\n p = f32[8]{0} parameter(0)\n ROOT n = f32[8]{0} negate(p)\n}",
        )
        .unwrap();
        let options = Options::default();
        let positions = |positions| Limits {
            positions,
            ..LIMITS
        };
        let r = Report::with_dataflow(Dataflow::with_limits(&m, positions(2)), &options, None);
        assert!(!r.values_truncated);
        assert_eq!(
            r.memory_analysis.argument_size_in_bytes.source,
            Source::Exact
        );
        let r = Report::with_dataflow(Dataflow::with_limits(&m, positions(1)), &options, None);
        assert!(r.values_truncated);
        assert_eq!(r.rows.len(), 1); // n has no value
        assert_eq!(
            r.memory_analysis.argument_size_in_bytes.source,
            Source::Estimated
        );
    }
}
