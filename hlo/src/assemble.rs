//! The reader's events → a [`Module`]. The only module that uses both the
//! reader and the items, so that the items (data) never depend on the
//! reader that builds them.

use alloc::vec::Vec;

use crate::error::HloError;
use crate::items::{Module, StackIndex};
use crate::reader::{Event, Reader};

impl<'a> Module<'a> {
    /// Reads a whole module (see [`Reader`] for what is accepted). A
    /// module has at most `u32::MAX - 1` computations and instructions
    /// together: the reader refuses the next
    /// ([`HloErrorKind::ModuleTooLarge`](crate::HloErrorKind::ModuleTooLarge)),
    /// so that their numbers in the analyses fit in 32 bits.
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
        Module::read(src, Reader::new(src))
    }

    /// [`Module::parse`] with `reader` (over `src`).
    fn read(src: &'a str, reader: Reader<'a>) -> Result<Module<'a>, HloError> {
        let mut module = Module::empty(src);
        for event in reader {
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
        Module::read_lenient(src, Reader::lenient(src))
    }

    /// [`Module::parse_lenient`] with `reader` (over `src`, lenient).
    fn read_lenient(src: &'a str, reader: Reader<'a>) -> (Module<'a>, Vec<HloError>) {
        let mut module = Module::empty(src);
        let mut errors = Vec::new();
        for event in reader {
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

#[cfg(test)]
mod tests {
    use alloc::vec::Vec;

    use crate::error::HloErrorKind;
    use crate::items::Module;
    use crate::reader::Reader;

    /// Two computations and three instructions: five items.
    const TEXT: &str = "f {\n  ROOT q = f32[] parameter(0)\n}\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT c = f32[] call(p), to_apply=f\n}\n";

    #[test]
    fn a_module_past_its_item_limit_is_refused() {
        assert!(Module::read(TEXT, Reader::new(TEXT).with_item_limit(5)).is_ok());
        let e = Module::read(TEXT, Reader::new(TEXT).with_item_limit(4)).unwrap_err();
        assert_eq!(e.kind, HloErrorKind::ModuleTooLarge { limit: 4 });
        assert!(TEXT[e.span.range()].starts_with("ROOT c = f32[] call")); // the fifth
        let e = Module::read(TEXT, Reader::new(TEXT).with_item_limit(2)).unwrap_err();
        assert!(TEXT[e.span.range()].starts_with("ENTRY e {")); // a computation counts
    }

    #[test]
    fn a_lenient_read_stops_at_the_limit_and_says_so() {
        let (m, errors) = Module::read_lenient(TEXT, Reader::lenient(TEXT).with_item_limit(4));
        let kinds: Vec<_> = errors.iter().map(|e| e.kind.clone()).collect();
        assert_eq!(kinds, [HloErrorKind::ModuleTooLarge { limit: 4 }]);
        assert_eq!(m.unread_parts(), 1);
        let names: Vec<&str> = m.instructions().map(|(_, i)| i.name()).collect();
        assert_eq!(names, ["q", "p"]); // nothing after the limit
        // A line that does not read is no item.
        let text = TEXT.replace("p = f32[] parameter(0)", "p = f32[ parameter(0)");
        let (m, errors) = Module::read_lenient(&text, Reader::lenient(&text).with_item_limit(4));
        assert_eq!(errors.len(), 1);
        assert!(!matches!(
            errors[0].kind,
            HloErrorKind::ModuleTooLarge { .. }
        ));
        assert_eq!(m.instructions().count(), 2);
    }
}
