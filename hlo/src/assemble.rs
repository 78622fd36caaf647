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
    /// assert_eq!(err.to_string(), "expected an instruction name, saw kEof");
    /// ```
    pub fn parse(src: &'a str) -> Result<Module<'a>, HloError> {
        let mut module = Module {
            src,
            name: None,
            attributes: "",
            stack_index: StackIndex::default(),
            computations: Vec::new(),
        };
        for event in Reader::new(src) {
            match event? {
                Event::Module { name, attributes } => {
                    module.name = Some(name);
                    module.attributes = attributes;
                }
                Event::StackIndex(index) => module.stack_index = index,
                Event::Computation(c) => module.computations.push(c),
                Event::Instruction(i) => {
                    if let Some(c) = module.computations.last_mut() {
                        c.instructions.push(i);
                    }
                }
                Event::EndComputation { execution_thread } => {
                    if let Some(c) = module.computations.last_mut() {
                        c.execution_thread = execution_thread;
                    }
                }
            }
        }
        Ok(module)
    }
}
