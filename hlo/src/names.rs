//! Which instructions XLA's parser refuses for their names: the rule,
//! in one place, for the whole-module dataflow and for the streaming
//! `scan` alike.
//!
//! XLA resolves an instruction's operands by name within its computation
//! (an operand may name an instruction written after it), and refuses a
//! module whose computation repeats a name or names an operand that is
//! not there. The reader does not check this (it keeps operand lists as
//! text); [`Names`] does, fed one instruction at a time, so that memory
//! follows one computation's names, not the module's.

use alloc::vec::Vec;

use hashbrown::HashSet;

use crate::items::Instruction;

/// An instruction XLA's parser would refuse for its names.
///
/// ```
/// use xla_layout_hlo::{Module, names::Names};
/// let m = Module::parse("ENTRY e {\n p = f32[2]{0} parameter(0)\n ROOT n = f32[2]{0} negate(q)\n}").unwrap();
/// let mut names = Names::new();
/// names.computation();
/// for i in m.entry().unwrap().instructions() {
///     names.instruction(*i);
/// }
/// let found = names.finish(0);
/// assert_eq!((found[0].id, found[0].instruction.name(), found[0].dangling), (1, "n", true));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Misnamed<'a> {
    /// Its number in the order instructions were fed (in a module, its
    /// [`InstructionId`](crate::dataflow::InstructionId)).
    pub id: u32,
    /// The instruction.
    pub instruction: Instruction<'a>,
    /// `true`: an operand names no instruction of its computation;
    /// `false`: an earlier instruction of its computation has its name
    /// (the first holder stands for the name).
    pub dangling: bool,
}

/// The name check, fed as a reader streams: [`Names::computation`], then
/// each [`Names::instruction`], then [`Names::end_computation`]; at the
/// end, [`Names::finish`].
///
/// ```
/// use xla_layout_hlo::{Event, Reader, names::Names};
/// let text = "ENTRY e {\n p = f32[4]{0} parameter(0)\n p = f32[4]{0} parameter(1)\n ROOT a = f32[4]{0} add(p, missing)\n}";
/// let mut names = Names::new();
/// for event in Reader::lenient(text) {
///     match event.unwrap() {
///         Event::Computation(_) => names.computation(),
///         Event::Instruction(i) => names.instruction(i),
///         Event::EndComputation { .. } => names.end_computation(),
///         _ => {}
///     }
/// }
/// let found: Vec<_> = names.finish(0).iter().map(|m| (m.instruction.name(), m.dangling)).collect();
/// assert_eq!(found, [("p", false), ("a", true)]);
/// ```
#[derive(Debug, Default)]
pub struct Names<'a> {
    /// The current computation's names.
    seen: HashSet<&'a str>,
    /// The current computation's instructions with an operand that named
    /// no instruction before them, checked again when it ends (an operand
    /// may name a later instruction).
    pending: Vec<(u32, Instruction<'a>)>,
    next: u32,
    found: Vec<Misnamed<'a>>,
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
    ///     names.computation();
    ///     for i in c.instructions() {
    ///         names.instruction(*i);
    ///     }
    /// }
    /// assert!(names.finish(0).is_empty()); // one `x` in each
    /// ```
    pub fn computation(&mut self) {
        self.end_computation();
    }

    /// The next instruction of the current computation. A repeated name
    /// is found here; an operand is looked up when the computation ends,
    /// for it may name a later instruction.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, names::Names};
    /// let m = Module::parse("ENTRY e {\n ROOT n = f32[2]{0} negate(p)\n p = f32[2]{0} parameter(0)\n}").unwrap();
    /// let mut names = Names::new();
    /// names.computation();
    /// for i in m.entry().unwrap().instructions() {
    ///     names.instruction(*i);
    /// }
    /// names.end_computation();
    /// assert!(names.finish(0).is_empty()); // `p` is written after its use
    /// ```
    pub fn instruction(&mut self, i: Instruction<'a>) {
        let id = self.next;
        self.next += 1;
        if !self.seen.insert(i.name()) {
            self.found.push(Misnamed {
                id,
                instruction: i,
                dangling: false,
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
    /// names.computation();
    /// names.instruction(m.entry().unwrap().instructions()[0]);
    /// names.end_computation();
    /// assert_eq!(names.finish(0).len(), 1);
    /// ```
    pub fn end_computation(&mut self) {
        for &(id, i) in &self.pending {
            let names_nothing = i
                .operands()
                .any(|o| o.name().is_some_and(|name| !self.seen.contains(name)));
            if names_nothing {
                self.found.push(Misnamed {
                    id,
                    instruction: i,
                    dangling: true,
                });
            }
        }
        self.pending.clear();
        self.seen.clear();
    }

    /// Every instruction found, in the order fed; one that is both is
    /// listed once, as dangling. `unread_parts` is how many parts of the
    /// module did not read: an operand may name one of those, so then
    /// only repeated names are listed.
    ///
    /// ```
    /// use xla_layout_hlo::{Module, names::Names};
    /// let m = Module::parse("ENTRY e {\n p = f32[2]{0} parameter(0)\n p = f32[2]{0} negate(gone)\n}").unwrap();
    /// let feed = |unread| {
    ///     let mut names = Names::new();
    ///     names.computation();
    ///     for i in m.entry().unwrap().instructions() {
    ///         names.instruction(*i);
    ///     }
    ///     names.finish(unread).iter().map(|f| (f.id, f.dangling)).collect::<Vec<_>>()
    /// };
    /// assert_eq!(feed(0), [(1, true)]);  // repeated and dangling: once, dangling
    /// assert_eq!(feed(1), [(1, false)]); // `gone` may be a part that did not read
    /// ```
    pub fn finish(mut self, unread_parts: usize) -> Vec<Misnamed<'a>> {
        self.end_computation();
        let mut all = self.found;
        if unread_parts > 0 {
            all.retain(|m| !m.dangling);
        }
        all.sort_unstable_by(|a, b| a.id.cmp(&b.id).then(b.dangling.cmp(&a.dangling)));
        all.dedup_by_key(|m| m.id);
        all
    }
}

/// Whether an instruction's operands are names of instructions: a
/// parameter's operand is its number and a constant's its literal.
pub(crate) fn operands_are_names(opcode: &str) -> bool {
    opcode != "parameter" && opcode != "constant"
}
