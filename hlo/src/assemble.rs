//! The reader's events → a [`Module`]. The only module that uses both the
//! reader and the items, so that the items (data) never depend on the
//! reader that builds them.

use alloc::vec::Vec;

use crate::error::HloError;
use crate::items::{Module, StackIndex};
use crate::reader::{Event, Reader};

impl<'a> Module<'a> {
    /// Reads a whole module (see [`Reader`] for what is accepted).
    ///
    /// ```
    /// use xla_layout_hlo::Module;
    ///
    /// let m = Module::parse("HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n").unwrap();
    /// assert_eq!((m.name(), m.instructions().count()), (Some("m"), 1));
    /// let err = Module::parse("HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0)\n").unwrap_err();
    /// assert_eq!(err.to_string(), "expected an instruction name, saw the end of the text (is it cut short?)");
    /// ```
    pub fn parse(src: &'a str) -> Result<Module<'a>, HloError> {
        let mut module = Module::empty(src);
        for event in Reader::new(src) {
            module.add(event?);
        }
        Ok(module)
    }

    /// Reads what it can of a module: every instruction that reads is
    /// kept, and each one that does not is an error (with its place; see
    /// [`Reader::lenient`]) while reading goes on at the next line.
    ///
    /// ```
    /// use xla_layout_hlo::Module;
    ///
    /// let text = "HloModule m\nENTRY e {\n  a = f32[2]{0} parameter(0)\n  b = f32[2]{0 negate(a)\n  ROOT c = f32[2]{0} negate(a)\n}\n";
    /// let (m, errors) = Module::parse_lenient(text);
    /// let names: Vec<&str> = m.instructions().map(|(_, i)| i.name()).collect();
    /// assert_eq!(names, ["a", "c"]);
    /// assert_eq!(errors.len(), 1);
    /// assert_eq!(errors[0].line_column(text).0, 4);
    /// ```
    pub fn parse_lenient(src: &'a str) -> (Module<'a>, Vec<HloError>) {
        let mut module = Module::empty(src);
        let mut errors = Vec::new();
        for event in Reader::lenient(src) {
            match event {
                Ok(event) => module.add(event),
                Err(e) => errors.push(e),
            }
        }
        module.unread = errors.len();
        (module, errors)
    }

    fn empty(src: &'a str) -> Module<'a> {
        Module {
            src,
            name: None,
            attributes: "",
            stack_index: StackIndex::default(),
            computations: Vec::new(),
            unread: 0,
        }
    }

    /// Adds one event of the reader.
    fn add(&mut self, event: Event<'a>) {
        match event {
            Event::Module { name, attributes } => {
                self.name = Some(name);
                self.attributes = attributes;
            }
            Event::StackIndex(index) => self.stack_index = index,
            Event::Computation(c) => self.computations.push(c),
            Event::Instruction(i) => {
                if let Some(c) = self.computations.last_mut() {
                    c.instructions.push(i);
                }
            }
            Event::EndComputation { execution_thread } => {
                if let Some(c) = self.computations.last_mut() {
                    c.execution_thread = execution_thread;
                }
            }
        }
    }
}
