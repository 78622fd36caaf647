//! Which instructions XLA's parser refuses for their names: the rule,
//! in one place, for the whole-module dataflow and for the streaming
//! `scan` alike.
//!
//! XLA resolves an instruction's operands by name within its computation
//! (an operand may name an instruction written after it) and the
//! computations it calls by name among those written before its own
//! (XLA's parser adds a computation once it has read it whole), and
//! refuses a module whose computation repeats a name, names an operand
//! that is not there, calls a computation not written before ("computation
//! does not exist": missing, later, itself), or that repeats a
//! computation's name ("computation already exists"); as jaxlib 0.10.2's
//! parser answers. The reader does not check this (it keeps operand lists
//! and attributes as text); [`Names`] does, fed one instruction at a
//! time, so that memory follows one computation's names (and the
//! module's computation names), not the module's instructions.

use alloc::vec::Vec;

use hashbrown::HashSet;

use crate::items::Instruction;

/// An instruction XLA's parser would refuse for its names.
///
/// ```
/// use xla_layout_hlo::{Module, names::{Misnaming, Names}};
/// let m = Module::parse("ENTRY e {\n p = f32[2]{0} parameter(0)\n ROOT n = f32[2]{0} negate(q)\n}").unwrap();
/// let mut names = Names::new();
/// names.computation("e");
/// for i in m.entry().unwrap().instructions() {
///     names.instruction(*i);
/// }
/// let found = names.finish(0);
/// assert_eq!((found[0].id, found[0].instruction.name()), (1, "n"));
/// assert_eq!(found[0].why, Misnaming::Operand("q"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Misnamed<'a> {
    /// Its number in the order instructions were fed (in a module, its
    /// [`InstructionId`](crate::dataflow::InstructionId)).
    pub id: u32,
    /// The instruction.
    pub instruction: Instruction<'a>,
    /// What XLA's parser would refuse.
    pub why: Misnaming<'a>,
}

/// Why XLA's parser refuses an instruction's names. An instruction that
/// has several of these is listed once, for the first in this order.
///
/// ```
/// use xla_layout_hlo::names::Misnaming;
/// assert!(Misnaming::Operand("x") < Misnaming::Computation("f"));
/// assert!(Misnaming::Computation("f") < Misnaming::Repeated);
/// assert!(Misnaming::Operand("x").is_dangling() && !Misnaming::Repeated.is_dangling());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Misnaming<'a> {
    /// An operand names no instruction of its computation (the first such
    /// name).
    Operand(&'a str),
    /// It calls a computation not written before its own (missing,
    /// later in the text, or its own): the first such name.
    Computation(&'a str),
    /// An earlier instruction of its computation has its name (the first
    /// holder stands for the name).
    Repeated,
    /// It is the first instruction of a computation whose name an
    /// earlier computation has (the first holder stands for the name).
    RepeatedComputation(&'a str),
}

impl Misnaming<'_> {
    /// Whether it names something that is not there (an operand or a
    /// computation): in a module with parts that did not read, it may be
    /// in one of those.
    ///
    /// ```
    /// use xla_layout_hlo::names::Misnaming;
    /// assert!(Misnaming::Computation("f").is_dangling());
    /// ```
    pub fn is_dangling(self) -> bool {
        matches!(self, Misnaming::Operand(_) | Misnaming::Computation(_))
    }
}

/// The name check, fed as a reader streams: [`Names::computation`], then
/// each [`Names::instruction`], then [`Names::end_computation`]; at the
/// end, [`Names::finish`].
///
/// ```
/// use xla_layout_hlo::{Event, Reader, names::{Misnaming, Names}};
/// let text = "ENTRY e {\n p = f32[4]{0} parameter(0)\n p = f32[4]{0} parameter(1)\n ROOT a = f32[4]{0} add(p, missing)\n}";
/// let mut names = Names::new();
/// for event in Reader::lenient(text) {
///     match event.unwrap() {
///         Event::Computation(c) => names.computation(c.name()),
///         Event::Instruction(i) => names.instruction(i),
///         Event::EndComputation { .. } => names.end_computation(),
///         _ => {}
///     }
/// }
/// let found: Vec<_> = names.finish(0).iter().map(|m| (m.instruction.name(), m.why)).collect();
/// assert_eq!(found, [("p", Misnaming::Repeated), ("a", Misnaming::Operand("missing"))]);
/// ```
#[derive(Debug, Default)]
pub struct Names<'a> {
    /// The current computation's names.
    seen: HashSet<&'a str>,
    /// The current computation's instructions with an operand that named
    /// no instruction before them, checked again when it ends (an operand
    /// may name a later instruction).
    pending: Vec<(u32, Instruction<'a>)>,
    /// The module's computations read whole so far.
    computations: HashSet<&'a str>,
    /// The current computation's name, added when it ends.
    current: Option<&'a str>,
    /// The current computation's name when an earlier one has it, until
    /// its first instruction takes the finding.
    repeated: Option<&'a str>,
    next: u32,
    found: Vec<Misnamed<'a>>,
    /// The instructions that call their own computation: misnamed even
    /// when parts of the module did not read (the callee cannot be one).
    own_calls: HashSet<u32>,
}

impl<'a> Names<'a> {
    /// Nothing fed yet.
    ///
    /// ```
    /// use xla_layout_hlo::names::Names;
    /// assert!(Names::new().finish(0).is_empty());
    /// ```
    pub fn new() -> Names<'a> {
        Names::default()
    }

    /// A computation starts (the one before ends, if it has not): names
    /// are per computation.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, names::Names};
    /// let m = Module::parse("f {\n ROOT x = f32[] parameter(0)\n}\n\nENTRY e {\n ROOT x = f32[] parameter(0)\n}").unwrap();
    /// let mut names = Names::new();
    /// for c in m.computations() {
    ///     names.computation(c.name());
    ///     for i in c.instructions() {
    ///         names.instruction(*i);
    ///     }
    /// }
    /// assert!(names.finish(0).is_empty()); // one `x` in each
    /// ```
    pub fn computation(&mut self, name: &'a str) {
        self.end_computation();
        // A computation with no name is the lenient reader's for lines
        // whose header is lost: not a name the text repeats.
        if !name.is_empty() {
            self.repeated = self.computations.contains(name).then_some(name);
            self.current = Some(name);
        }
    }

    /// The next instruction of the current computation. A repeated name
    /// is found here; an operand is looked up when the computation ends,
    /// for it may name a later instruction.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, names::Names};
    /// let m = Module::parse("ENTRY e {\n ROOT n = f32[2]{0} negate(p)\n p = f32[2]{0} parameter(0)\n}").unwrap();
    /// let mut names = Names::new();
    /// names.computation("e");
    /// for i in m.entry().unwrap().instructions() {
    ///     names.instruction(*i);
    /// }
    /// names.end_computation();
    /// assert!(names.finish(0).is_empty()); // `p` is written after its use
    /// ```
    pub fn instruction(&mut self, i: Instruction<'a>) {
        let id = self.next;
        self.next += 1;
        if let Some(name) = self.repeated.take() {
            self.found.push(Misnamed {
                id,
                instruction: i,
                why: Misnaming::RepeatedComputation(name),
            });
        }
        if !self.seen.insert(i.name()) {
            self.found.push(Misnamed {
                id,
                instruction: i,
                why: Misnaming::Repeated,
            });
        }
        // Computations are looked up among those read whole before.
        let not_before =
            crate::calls::called_names(&i).find(|c| !self.computations.contains(c.name));
        if let Some(c) = not_before {
            // Its own computation: not written before it, whatever part
            // of the module did not read.
            if self.current == Some(c.name) {
                self.own_calls.insert(id);
            }
            self.found.push(Misnamed {
                id,
                instruction: i,
                why: Misnaming::Computation(c.name),
            });
        }
        // Most operands name instructions before them: only an
        // instruction with one that is not seen yet waits for the end.
        if operands_are_names(i.opcode())
            && i.operands()
                .any(|o| o.name().is_some_and(|name| !self.seen.contains(name)))
        {
            self.pending.push((id, i));
        }
    }

    /// The current computation ends: its operands are looked up.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, names::Names};
    /// let m = Module::parse("ENTRY e {\n ROOT n = f32[2]{0} negate(gone)\n}").unwrap();
    /// let mut names = Names::new();
    /// names.computation("e");
    /// names.instruction(m.entry().unwrap().instructions()[0]);
    /// names.end_computation();
    /// assert_eq!(names.finish(0).len(), 1);
    /// ```
    pub fn end_computation(&mut self) {
        for &(id, i) in &self.pending {
            let nothing = i
                .operands()
                .find_map(|o| o.name().filter(|name| !self.seen.contains(name)));
            if let Some(name) = nothing {
                self.found.push(Misnamed {
                    id,
                    instruction: i,
                    why: Misnaming::Operand(name),
                });
            }
        }
        self.pending.clear();
        self.seen.clear();
        self.repeated = None;
        if let Some(name) = self.current.take() {
            self.computations.insert(name);
        }
    }

    /// Every instruction found, in the order fed; one with several
    /// [`Misnaming`]s is listed once, for the first. `unread_parts` is how
    /// many parts of the module did not read: an operand or a callee may
    /// name one of those, so then only repeated names are listed, and calls
    /// of an instruction's own computation (which no part can be).
    ///
    /// ```
    /// use xla_layout_hlo::{Module, names::{Misnaming, Names}};
    /// let m = Module::parse("ENTRY e {\n p = f32[2]{0} parameter(0)\n p = f32[2]{0} negate(gone)\n}").unwrap();
    /// let feed = |unread| {
    ///     let mut names = Names::new();
    ///     names.computation("e");
    ///     for i in m.entry().unwrap().instructions() {
    ///         names.instruction(*i);
    ///     }
    ///     names.finish(unread).iter().map(|f| (f.id, f.why)).collect::<Vec<_>>()
    /// };
    /// assert_eq!(feed(0), [(1, Misnaming::Operand("gone"))]); // repeated too: listed once
    /// assert_eq!(feed(1), [(1, Misnaming::Repeated)]); // `gone` may be a part that did not read
    /// // A computation that calls itself, whatever did not read.
    /// let m = Module::parse("f {\n p = f32[] parameter(0)\n ROOT c = f32[] call(p), to_apply=f\n}").unwrap();
    /// let mut names = Names::new();
    /// names.computation("f");
    /// for i in m.computations()[0].instructions() {
    ///     names.instruction(*i);
    /// }
    /// assert_eq!(names.finish(1)[0].why, Misnaming::Computation("f"));
    /// ```
    pub fn finish(mut self, unread_parts: usize) -> Vec<Misnamed<'a>> {
        self.end_computation();
        let mut all = self.found;
        if unread_parts > 0 {
            all.retain(|m| !m.why.is_dangling() || self.own_calls.contains(&m.id));
        }
        all.sort_unstable_by(|a, b| a.id.cmp(&b.id).then(a.why.cmp(&b.why)));
        all.dedup_by_key(|m| m.id);
        all
    }
}

/// Whether an instruction's operands are names of instructions: a
/// parameter's operand is its number and a constant's its literal.
pub(crate) fn operands_are_names(opcode: &str) -> bool {
    opcode != "parameter" && opcode != "constant"
}
