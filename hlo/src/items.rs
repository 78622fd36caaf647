//! The HLO model: a module of computations of instructions, borrowing the
//! text. What the reader does not interpret stays text, parsed on demand
//! with the same lexer and shape parser. Only data and its accessors live
//! here: the reader builds these values, and `assemble` collects them into
//! a [`Module`].

use alloc::vec::Vec;

use xla_layout_core::Shape;
use xla_layout_core::text::{
    ByteSpan, Lexer, ParseError, TokenKind as K, parse_shape, parse_shape_into,
};

use crate::error::LookupError;

/// The `FileNames` … `StackFrames` tables of a module, as printed (ids are
/// 1-based positions; see [`StackFrame`] for XLA's shifted parent id).
///
/// ```
/// use xla_layout_hlo::Module;
///
/// let text = r#"HloModule m
/// FileNames
/// 1 "train.py"
/// FunctionNames
/// 1 "step"
/// 2 "loss"
/// FileLocations
/// 1 {file_name_id=1 function_name_id=1 line=10 end_line=10 column=2 end_column=9}
/// 2 {file_name_id=1 function_name_id=2 line=20 future_field=7}
/// StackFrames
/// 1 {file_location_id=1 parent_frame_id=1}
/// 2 {file_location_id=2 parent_frame_id=2}
/// ENTRY e {
///   ROOT p = f32[] parameter(0), metadata={stack_frame_id=2}
/// }
/// "#;
/// let m = Module::parse(text).unwrap();
/// let index = m.stack_index();
/// assert_eq!(index.file_names, ["train.py"]);
/// assert_eq!(index.function_names, ["step", "loss"]);
/// assert_eq!((index.file_locations.len(), index.stack_frames.len()), (2, 2));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StackIndex<'a> {
    /// `FileNames`: the quoted names, escapes kept.
    pub file_names: Vec<&'a str>,
    /// `FunctionNames`: the quoted names, escapes kept.
    pub function_names: Vec<&'a str>,
    /// `FileLocations`.
    pub file_locations: Vec<FileLocation>,
    /// `StackFrames`.
    pub stack_frames: Vec<StackFrame>,
}

/// One `FileLocations` entry. Missing fields read as 0; unknown ones are
/// skipped.
///
/// ```
/// use xla_layout_hlo::{FileLocation, Module};
///
/// let text = r#"HloModule m
/// FileNames
/// 1 "train.py"
/// FunctionNames
/// 1 "step"
/// 2 "loss"
/// FileLocations
/// 1 {file_name_id=1 function_name_id=1 line=10 end_line=10 column=2 end_column=9}
/// 2 {file_name_id=1 function_name_id=2 line=20 future_field=7}
/// StackFrames
/// 1 {file_location_id=1 parent_frame_id=1}
/// 2 {file_location_id=2 parent_frame_id=2}
/// ENTRY e {
///   ROOT p = f32[] parameter(0), metadata={stack_frame_id=2}
/// }
/// "#;
/// let m = Module::parse(text).unwrap();
/// let index = m.stack_index();
/// assert_eq!(index.file_locations[0].column, 2);
/// // `end_line` and the columns are missing: 0. `future_field` is skipped.
/// assert_eq!(
///     index.file_locations[1],
///     FileLocation { file_name_id: 1, function_name_id: 2, line: 20, ..Default::default() }
/// );
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FileLocation {
    /// 1-based index into `file_names`.
    pub file_name_id: i64,
    /// 1-based index into `function_names`.
    pub function_name_id: i64,
    /// First line.
    pub line: i64,
    /// Last line.
    pub end_line: i64,
    /// First column.
    pub column: i64,
    /// Last column.
    pub end_column: i64,
}

impl FileLocation {
    pub(crate) fn set(&mut self, key: &str, value: i64) {
        match key {
            "file_name_id" => self.file_name_id = value,
            "function_name_id" => self.function_name_id = value,
            "line" => self.line = value,
            "end_line" => self.end_line = value,
            "column" => self.column = value,
            "end_column" => self.end_column = value,
            _ => {}
        }
    }
}

/// One `StackFrames` entry, as printed.
///
/// ```
/// use xla_layout_hlo::{Module, StackFrame};
///
/// let text = r#"HloModule m
/// FileNames
/// 1 "train.py"
/// FunctionNames
/// 1 "step"
/// 2 "loss"
/// FileLocations
/// 1 {file_name_id=1 function_name_id=1 line=10 end_line=10 column=2 end_column=9}
/// 2 {file_name_id=1 function_name_id=2 line=20 future_field=7}
/// StackFrames
/// 1 {file_location_id=1 parent_frame_id=1}
/// 2 {file_location_id=2 parent_frame_id=2}
/// ENTRY e {
///   ROOT p = f32[] parameter(0), metadata={stack_frame_id=2}
/// }
/// "#;
/// let m = Module::parse(text).unwrap();
/// let index = m.stack_index();
/// let frame = index.stack_frames[1];
/// assert_eq!(frame, StackFrame { file_location_id: 2, parent_frame_id: 2 });
/// assert_eq!(frame.parent(), Some(1)); // printed 2: frame 1
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StackFrame {
    /// 1-based index into `file_locations`.
    pub file_location_id: i64,
    /// As printed: XLA writes the parent's 1-based id **plus one**, so 1
    /// means "no parent" and `k ≥ 2` is frame `k − 1`
    /// ([`StackFrame::parent`] decodes it).
    pub parent_frame_id: i64,
}

impl StackFrame {
    pub(crate) fn set(&mut self, key: &str, value: i64) {
        match key {
            "file_location_id" => self.file_location_id = value,
            "parent_frame_id" => self.parent_frame_id = value,
            _ => {}
        }
    }

    /// The 1-based id of the parent frame, if any.
    ///
    /// ```
    /// # use xla_layout_hlo::StackFrame;
    /// let f = |p| StackFrame { file_location_id: 1, parent_frame_id: p };
    /// assert_eq!(f(1).parent(), None);
    /// assert_eq!(f(3).parent(), Some(2));
    /// assert_eq!(f(i64::MIN).parent(), None);
    /// ```
    pub fn parent(&self) -> Option<i64> {
        // Not `then_some`, which would compute `i64::MIN - 1`.
        (self.parent_frame_id >= 2).then(|| self.parent_frame_id - 1)
    }
}

/// An instruction: `ROOT? name = shape opcode(operands), attributes`.
/// Operands and attributes are kept as text and split on demand.
///
/// ```
/// use xla_layout_hlo::Module;
///
/// let text = "ENTRY e {\n  ROOT %r = f32[2]{0} add(%a, %b), sharding={replicated}\n}\n";
/// let m = Module::parse(text).unwrap();
/// let r = m.entry().unwrap().instructions()[0];
/// assert_eq!((r.name(), r.is_root(), r.opcode()), ("r", true, "add"));
/// assert_eq!(r.shape_text(), Some("f32[2]{0}"));
/// assert_eq!(r.operands_text(), "%a, %b");
/// assert_eq!(r.attributes_text(), "sharding={replicated}");
/// assert_eq!(r.text(), "ROOT %r = f32[2]{0} add(%a, %b), sharding={replicated}");
/// assert_eq!(&text[r.span().range()], r.text());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instruction<'a> {
    /// The instruction's whole text; the parts are offsets into it (a
    /// module holds one of these per instruction, so they are kept small).
    text: &'a str,
    /// Where `text` starts in the module.
    start: usize,
    name: Part,
    shape: Option<Part>,
    opcode: Part,
    operands: Part,
    attributes: Part,
    is_root: bool,
}

/// A piece of an instruction's text, as offsets into it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Part {
    start: u32,
    end: u32,
}

impl<'a> Instruction<'a> {
    /// The instruction spanning `span` of `src`, its parts given as slices
    /// of `src` or spans; `None` if it is over 4 GiB long.
    #[allow(clippy::too_many_arguments)] // one per part of the grammar
    pub(crate) fn new(
        src: &'a str,
        name: &'a str,
        is_root: bool,
        shape: Option<&'a str>,
        opcode: &'a str,
        operands: ByteSpan,
        attributes: ByteSpan,
        span: ByteSpan,
    ) -> Option<Instruction<'a>> {
        let text = src.get(span.start..span.end)?;
        let base = src.as_ptr() as usize + span.start;
        let part = |start: usize, end: usize| -> Option<Part> {
            Some(Part {
                start: u32::try_from(start.checked_sub(span.start)?).ok()?,
                end: u32::try_from(end.checked_sub(span.start)?).ok()?,
            })
        };
        let slice = |s: &str| {
            let start = s.as_ptr() as usize - base + span.start;
            part(start, start + s.len())
        };
        Some(Instruction {
            text,
            start: span.start,
            name: slice(name)?,
            shape: match shape {
                Some(s) => Some(slice(s)?),
                None => None,
            },
            opcode: slice(opcode)?,
            operands: part(operands.start, operands.end)?,
            attributes: part(attributes.start, attributes.end)?,
            is_root,
        })
    }

    fn part(&self, p: Part) -> &'a str {
        self.text
            .get(p.start as usize..p.end as usize)
            .unwrap_or("")
    }

    /// The name, without `%`.
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse("ENTRY e {\n ROOT %p.1 = f32[] parameter(0)\n}").unwrap();
    /// assert_eq!(m.entry().unwrap().instructions()[0].name(), "p.1");
    /// ```
    pub fn name(&self) -> &'a str {
        self.part(self.name)
    }

    /// Whether it is its computation's `ROOT`.
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse("ENTRY e {\n p = f32[] parameter(0)\n ROOT n = f32[] negate(p)\n}").unwrap();
    /// let roots: Vec<bool> = m.entry().unwrap().instructions().iter().map(|i| i.is_root()).collect();
    /// assert_eq!(roots, [false, true]);
    /// ```
    pub fn is_root(&self) -> bool {
        self.is_root
    }

    /// The shape's text as written (`None` where XLA allows it to be left
    /// out and it was).
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse("ENTRY e {\n a = f32[4]{0} parameter(0)\n ROOT b = negate(a)\n}").unwrap();
    /// let [a, b] = m.entry().unwrap().instructions() else { unreachable!() };
    /// assert_eq!(a.shape_text(), Some("f32[4]{0}"));
    /// assert_eq!(b.shape_text(), None); // left out: XLA infers it
    /// ```
    pub fn shape_text(&self) -> Option<&'a str> {
        self.shape.map(|p| self.part(p))
    }

    /// The shape, parsed (not validated, as XLA's parser does not).
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse("ENTRY e {\n ROOT p = f32[2,3]{0,1} parameter(0)\n}").unwrap();
    /// let p = m.computations()[0].instructions()[0];
    /// assert_eq!(p.shape().unwrap().unwrap().to_string(), "f32[2,3]{0,1}");
    /// ```
    // The core's `ParseError` is large (it carries its data inline, for
    // `no_std`); it is returned as the core's parsers return it.
    #[allow(clippy::result_large_err)]
    pub fn shape(&self) -> Option<Result<Shape, ParseError>> {
        self.shape_text().map(|s| parse_shape(s.as_bytes()))
    }

    /// The opcode, e.g. `fusion`, `get-tuple-element`.
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse("ENTRY e {\n ROOT g = f32[] get-tuple-element(t), index=0\n}").unwrap();
    /// assert_eq!(m.entry().unwrap().instructions()[0].opcode(), "get-tuple-element");
    /// ```
    pub fn opcode(&self) -> &'a str {
        self.part(self.opcode)
    }

    /// The text between the opcode's parentheses.
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse("ENTRY e {\n ROOT a = f32[2]{0} add(f32[2]{0} %x, %y)\n}").unwrap();
    /// assert_eq!(m.entry().unwrap().instructions()[0].operands_text(), "f32[2]{0} %x, %y");
    /// ```
    pub fn operands_text(&self) -> &'a str {
        self.part(self.operands)
    }

    /// The operands, split at top-level commas.
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse(
    ///     "ENTRY e {\n ROOT a = f32[2]{0} add(f32[2]{0} %x, /*index=1*/%y)\n}",
    /// ).unwrap();
    /// let a = m.computations()[0].instructions()[0];
    /// let ops: Vec<_> = a.operands().map(|o| (o.shape_text(), o.name())).collect();
    /// assert_eq!(ops, [(Some("f32[2]{0}"), Some("x")), (None, Some("y"))]);
    /// ```
    pub fn operands(&self) -> impl Iterator<Item = Operand<'a>> + 'a {
        let text = self.operands_text();
        split_top_level(
            text,
            ByteSpan {
                start: 0,
                end: text.len(),
            },
        )
        .map(move |piece| Operand::parse(text, piece))
    }

    /// The text of every attribute, `name=value, …` (empty if none).
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse("ENTRY e {\n p = f32[] parameter(0)\n ROOT f = f32[] fusion(p), kind=kLoop, calls=%c\n}").unwrap();
    /// let [p, f] = m.entry().unwrap().instructions() else { unreachable!() };
    /// assert_eq!(f.attributes_text(), "kind=kLoop, calls=%c");
    /// assert_eq!(p.attributes_text(), "");
    /// ```
    pub fn attributes_text(&self) -> &'a str {
        self.part(self.attributes)
    }

    /// The attributes in order, values as text.
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse(
    ///     "ENTRY e {\n ROOT f = f32[2]{0} fusion(), kind=kLoop, calls=%c, metadata={op_name=\"a, b\"}\n}",
    /// ).unwrap();
    /// let f = m.computations()[0].instructions()[0];
    /// assert_eq!(f.attribute("calls"), Some("%c"));
    /// assert_eq!(f.attribute("metadata"), Some("{op_name=\"a, b\"}"));
    /// assert_eq!(f.attributes().count(), 3);
    /// ```
    pub fn attributes(&self) -> impl Iterator<Item = Attribute<'a>> + 'a {
        attributes_of(self.attributes_text())
    }

    /// The value of the attribute `name`, as text.
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse("ENTRY e {\n ROOT f = f32[] fusion(), kind=kLoop, calls=%c\n}").unwrap();
    /// let f = m.entry().unwrap().instructions()[0];
    /// assert_eq!(f.attribute("kind"), Some("kLoop"));
    /// assert_eq!(f.attribute("sharding"), None);
    /// ```
    pub fn attribute(&self, name: &str) -> Option<&'a str> {
        self.attributes().find(|a| a.name == name).map(|a| a.value)
    }

    /// Where the instruction is in the module text.
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let text = "ENTRY e {\n  ROOT p = f32[] parameter(0)\n}";
    /// let m = Module::parse(text).unwrap();
    /// let p = m.entry().unwrap().instructions()[0];
    /// assert_eq!(p.span().start, 12); // after "ENTRY e {\n  "
    /// assert_eq!(&text[p.span().range()], "ROOT p = f32[] parameter(0)");
    /// ```
    pub fn span(&self) -> ByteSpan {
        ByteSpan {
            start: self.start,
            end: self.start + self.text.len(),
        }
    }

    /// The instruction's text, from `ROOT` or its name to its last
    /// attribute.
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse("ENTRY e {\n  ROOT p = f32[] parameter(0), sharding={replicated} // input\n}").unwrap();
    /// let p = m.entry().unwrap().instructions()[0];
    /// assert_eq!(p.text(), "ROOT p = f32[] parameter(0), sharding={replicated}"); // no comment
    /// ```
    pub fn text(&self) -> &'a str {
        self.text
    }
}

/// The attributes in `text` (`name=value, …`, as the reader kept it).
fn attributes_of(text: &str) -> impl Iterator<Item = Attribute<'_>> + '_ {
    split_top_level(
        text,
        ByteSpan {
            start: 0,
            end: text.len(),
        },
    )
    .filter_map(move |piece| {
        let t = Lexer::at(text.as_bytes(), piece.start).next_token();
        (t.kind == K::AttributeName).then(|| Attribute {
            name: text.get(t.start..t.end - 1).unwrap_or(""),
            value: text.get(t.end..piece.end).unwrap_or("").trim(),
        })
    })
}

/// One attribute: `name=value`, the value as written.
///
/// ```
/// use xla_layout_hlo::{Attribute, Module};
///
/// let m = Module::parse("ENTRY e {\n ROOT c = f32[2]{0} copy(x), kind=kLoop\n}").unwrap();
/// let c = m.entry().unwrap().instructions()[0];
/// assert_eq!(c.attributes().next(), Some(Attribute { name: "kind", value: "kLoop" }));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Attribute<'a> {
    /// The name (without `=`).
    pub name: &'a str,
    /// The value's text.
    pub value: &'a str,
}

/// One operand: `shape? name`, or other text (a `parameter` number, a
/// `constant` literal).
///
/// ```
/// use xla_layout_hlo::Module;
///
/// let m = Module::parse(
///     "ENTRY e {\n ROOT t = (f32[], s32[]) tuple(f32[] %x, y, 1.5)\n}",
/// ).unwrap();
/// let t = m.entry().unwrap().instructions()[0];
/// let ops: Vec<_> = t.operands().map(|o| (o.text(), o.shape_text(), o.name())).collect();
/// assert_eq!(ops, [
///     ("f32[] %x", Some("f32[]"), Some("x")),
///     ("y", None, Some("y")),
///     ("1.5", None, None),
/// ]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Operand<'a> {
    text: &'a str,
    shape: Option<&'a str>,
    name: Option<&'a str>,
}

impl<'a> Operand<'a> {
    fn parse(src: &'a str, piece: ByteSpan) -> Operand<'a> {
        let text = src.get(piece.start..piece.end).unwrap_or("");
        let raw = Operand {
            text,
            shape: None,
            name: None,
        };
        let bytes = &src.as_bytes()[..piece.end];
        let first = Lexer::at(bytes, piece.start).next_token();
        let (shape, name_at) = match first.kind {
            K::Name | K::Ident if first.end == piece.end => (None, first.start),
            K::PrimitiveType | K::Lparen | K::Ident => {
                let mut scratch = Shape::Token;
                match parse_shape_into(bytes, piece.start, &mut scratch) {
                    Ok(end) => (src.get(piece.start..end.end), end.next.start),
                    Err(_) => return raw,
                }
            }
            _ => return raw,
        };
        let mut lexer = Lexer::at(bytes, name_at);
        let name = lexer.next_token();
        if !matches!(name.kind, K::Name | K::Ident) || lexer.next_token().kind != K::Eof {
            return raw;
        }
        Operand {
            text,
            shape,
            name: Some(core::str::from_utf8(name.text(bytes)).unwrap_or("")),
        }
    }

    /// The operand's text as written.
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse("ENTRY e {\n ROOT t = (f32[], f32[]) tuple(f32[] %x, 1.5)\n}").unwrap();
    /// let t = m.entry().unwrap().instructions()[0];
    /// let texts: Vec<&str> = t.operands().map(|o| o.text()).collect();
    /// assert_eq!(texts, ["f32[] %x", "1.5"]);
    /// ```
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// Its shape's text, when written before the name.
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse("ENTRY e {\n ROOT a = f32[2]{0} add(f32[2]{0} %x, %y)\n}").unwrap();
    /// let a = m.entry().unwrap().instructions()[0];
    /// let shapes: Vec<Option<&str>> = a.operands().map(|o| o.shape_text()).collect();
    /// assert_eq!(shapes, [Some("f32[2]{0}"), None]);
    /// ```
    pub fn shape_text(&self) -> Option<&'a str> {
        self.shape
    }

    /// The instruction it names (without `%`); `None` for other text.
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse("ENTRY e {\n ROOT t = (f32[], f32[]) tuple(f32[] %x, 1.5)\n}").unwrap();
    /// let t = m.entry().unwrap().instructions()[0];
    /// let names: Vec<Option<&str>> = t.operands().map(|o| o.name()).collect();
    /// assert_eq!(names, [Some("x"), None]); // `1.5` names no instruction
    /// ```
    pub fn name(&self) -> Option<&'a str> {
        self.name
    }
}

/// A computation: `ENTRY? name (params) -> shape { instructions }`.
///
/// ```
/// use xla_layout_hlo::Module;
///
/// let text = "%c (p: f32[]) -> f32[] {\n  p = f32[] parameter(0)\n  n = f32[] negate(p)\n}, execution_thread=\"sc\"\n";
/// let m = Module::parse(text).unwrap();
/// let c = &m.computations()[0];
/// assert_eq!((c.name(), c.is_entry(), c.signature()), ("c", false, "(p: f32[]) -> f32[]"));
/// assert_eq!(c.execution_thread(), Some("sc"));
/// assert_eq!(c.instructions().len(), 2);
/// assert_eq!(c.root().unwrap().name(), "n"); // no ROOT: the last one
/// assert_eq!(text[c.span().range()].trim_end(), "%c (p: f32[]) -> f32[] {");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Computation<'a> {
    name: &'a str,
    is_entry: bool,
    signature: &'a str,
    // Filled in by `assemble` as the reader's events arrive.
    pub(crate) execution_thread: Option<&'a str>,
    pub(crate) instructions: Vec<Instruction<'a>>,
    span: ByteSpan,
}

impl<'a> Computation<'a> {
    pub(crate) fn new(
        name: &'a str,
        is_entry: bool,
        signature: &'a str,
        span: ByteSpan,
    ) -> Computation<'a> {
        Computation {
            name,
            is_entry,
            signature,
            execution_thread: None,
            instructions: Vec::new(),
            span,
        }
    }

    /// The name, without `%`.
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse("%fused.1 {\n ROOT p = f32[] parameter(0)\n}").unwrap();
    /// assert_eq!(m.computations()[0].name(), "fused.1");
    /// ```
    pub fn name(&self) -> &'a str {
        self.name
    }

    /// Whether it is marked `ENTRY`.
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse("f {\n ROOT p = f32[] parameter(0)\n}\nENTRY g {\n ROOT q = f32[] parameter(0)\n}").unwrap();
    /// let entries: Vec<bool> = m.computations().iter().map(|c| c.is_entry()).collect();
    /// assert_eq!(entries, [false, true]);
    /// ```
    pub fn is_entry(&self) -> bool {
        self.is_entry
    }

    /// `(params) -> shape` as written, or empty when left out.
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse("ENTRY e (x: f32[2]) -> f32[2] {\n ROOT x = f32[2]{0} parameter(0)\n}\nf {\n ROOT p = f32[] parameter(0)\n}").unwrap();
    /// assert_eq!(m.computations()[0].signature(), "(x: f32[2]) -> f32[2]");
    /// assert_eq!(m.computations()[1].signature(), ""); // left out
    /// ```
    pub fn signature(&self) -> &'a str {
        self.signature
    }

    /// `execution_thread="…"` after its `}`, if any (escapes kept).
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse("c {\n ROOT p = f32[] parameter(0)\n}, execution_thread=\"host\"\nENTRY e {\n ROOT q = f32[] parameter(0)\n}").unwrap();
    /// assert_eq!(m.computations()[0].execution_thread(), Some("host"));
    /// assert_eq!(m.computations()[1].execution_thread(), None);
    /// ```
    pub fn execution_thread(&self) -> Option<&'a str> {
        self.execution_thread
    }

    /// Its instructions in order. (For [`Event::Computation`](crate::Event::Computation) values,
    /// empty: the instructions come as their own events.)
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse("ENTRY e {\n p = f32[] parameter(0)\n ROOT n = f32[] negate(p)\n}").unwrap();
    /// let names: Vec<&str> = m.entry().unwrap().instructions().iter().map(|i| i.name()).collect();
    /// assert_eq!(names, ["p", "n"]);
    /// ```
    pub fn instructions(&self) -> &[Instruction<'a>] {
        &self.instructions
    }

    /// The `ROOT` instruction, or the last one when none is marked (as XLA).
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse("ENTRY e {\n ROOT p = f32[] parameter(0)\n n = f32[] negate(p)\n}").unwrap();
    /// assert_eq!(m.entry().unwrap().root().unwrap().name(), "p"); // marked, though not last
    /// ```
    pub fn root(&self) -> Option<&Instruction<'a>> {
        self.instructions
            .iter()
            .find(|i| i.is_root())
            .or(self.instructions.last())
    }

    /// Where its header is in the module text.
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let text = "HloModule m\n\nENTRY e {\n ROOT p = f32[] parameter(0)\n}";
    /// let m = Module::parse(text).unwrap();
    /// let header = m.entry().unwrap().span();
    /// assert_eq!(m.line_column(header.start), (3, 1));
    /// assert!(text[header.range()].starts_with("ENTRY e {"));
    /// ```
    pub fn span(&self) -> ByteSpan {
        self.span
    }
}

/// A whole HLO module, borrowing its text.
///
/// ```
/// use xla_layout_hlo::Module;
///
/// let text = r#"HloModule jit_f, is_scheduled=true, entry_computation_layout={(f32[8]{0})->f32[8]{0}}
///
/// %fused (p: f32[8]) -> f32[8] {
///   %p = f32[8]{0} parameter(0)
///   ROOT %n = f32[8]{0} negate(%p)
/// }
///
/// ENTRY %main (x: f32[8]) -> f32[8] {
///   %x = f32[8]{0} parameter(0), metadata={op_name="x"}
///   ROOT %fusion = f32[8]{0} fusion(%x), kind=kLoop, calls=%fused
/// }
/// "#;
/// let m = Module::parse(text).unwrap();
/// assert_eq!(m.name(), Some("jit_f"));
/// assert_eq!(m.attribute("is_scheduled"), Some("true"));
/// assert_eq!(m.computations().len(), 2);
/// assert_eq!(m.entry().unwrap().name(), "main");
/// let (c, i) = m.instruction("fusion").unwrap();
/// assert_eq!((c.name(), i.opcode(), i.attribute("calls")), ("main", "fusion", Some("%fused")));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Module<'a> {
    // Filled in by `assemble` as the reader's events arrive.
    pub(crate) src: &'a str,
    pub(crate) name: Option<&'a str>,
    pub(crate) attributes: &'a str,
    pub(crate) stack_index: StackIndex<'a>,
    pub(crate) computations: Vec<Computation<'a>>,
    /// Parts that did not read ([`Module::parse_lenient`]'s errors).
    pub(crate) unread: usize,
}

impl<'a> Module<'a> {
    /// How many parts of the text did not read (the errors
    /// [`Module::parse_lenient`] returned; 0 for [`Module::parse`]): what
    /// is built from a module with parts missing is not XLA's whole
    /// account of it.
    ///
    /// ```
    /// use xla_layout_hlo::Module;
    /// let (m, errors) = Module::parse_lenient("ENTRY e {\n  a = f32[2]{0} parameter(0\n  ROOT b = f32[2]{0} parameter(1)\n}\n");
    /// assert_eq!(m.unread_parts(), errors.len());
    /// assert_eq!(m.unread_parts(), 1);
    /// ```
    pub fn unread_parts(&self) -> usize {
        self.unread
    }

    /// The text it was read from.
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let text = "ENTRY e {\n ROOT p = f32[] parameter(0)\n}";
    /// let m = Module::parse(text).unwrap();
    /// assert_eq!(m.source(), text);
    /// let p = m.entry().unwrap().root().unwrap();
    /// assert_eq!(&m.source()[p.span().range()], p.text()); // spans index it
    /// ```
    pub fn source(&self) -> &'a str {
        self.src
    }

    /// The `HloModule` name (`None` for text without the header).
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse("HloModule jit_f\nENTRY e {\n ROOT p = f32[] parameter(0)\n}").unwrap();
    /// assert_eq!(m.name(), Some("jit_f"));
    /// let m = Module::parse("ENTRY e {\n ROOT p = f32[] parameter(0)\n}").unwrap();
    /// assert_eq!(m.name(), None);
    /// ```
    pub fn name(&self) -> Option<&'a str> {
        self.name
    }

    /// The header's attributes, values as text.
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse("HloModule m, is_scheduled=true, num_partitions=2\nENTRY e {\n ROOT p = f32[] parameter(0)\n}").unwrap();
    /// let names: Vec<&str> = m.attributes().map(|a| a.name).collect();
    /// assert_eq!(names, ["is_scheduled", "num_partitions"]);
    /// ```
    pub fn attributes(&self) -> impl Iterator<Item = Attribute<'a>> + 'a {
        attributes_of(self.attributes)
    }

    /// The value of header attribute `name`.
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse("HloModule m, num_partitions=2\nENTRY e {\n ROOT p = f32[] parameter(0)\n}").unwrap();
    /// assert_eq!(m.attribute("num_partitions"), Some("2"));
    /// assert_eq!(m.attribute("replica_count"), None);
    /// ```
    pub fn attribute(&self, name: &str) -> Option<&'a str> {
        self.attributes().find(|a| a.name == name).map(|a| a.value)
    }

    /// The stack-frame tables (empty when the text has none).
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse("HloModule m\nFileNames\n1 \"a.py\"\nENTRY e {\n ROOT p = f32[] parameter(0)\n}").unwrap();
    /// assert_eq!(m.stack_index().file_names, ["a.py"]);
    /// assert!(m.stack_index().stack_frames.is_empty()); // no `StackFrames` table
    /// ```
    pub fn stack_index(&self) -> &StackIndex<'a> {
        &self.stack_index
    }

    /// The computations in text order.
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse("f {\n ROOT p = f32[] parameter(0)\n}\nENTRY g {\n ROOT q = f32[] parameter(0)\n}").unwrap();
    /// let names: Vec<&str> = m.computations().iter().map(|c| c.name()).collect();
    /// assert_eq!(names, ["f", "g"]);
    /// ```
    pub fn computations(&self) -> &[Computation<'a>] {
        &self.computations
    }

    /// The opcodes XLA does not know ([`crate::opcodes::is_known`]), each
    /// with how many instructions use it, in order of first use: a dump
    /// from a newer XLA, or a typo in hand-written text.
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse("ENTRY e {\n p = f32[2]{0} parameter(0)\n q = f32[2]{0} quantum-transpose(p)\n ROOT r = f32[2]{0} quantum-transpose(q)\n}").unwrap();
    /// assert_eq!(m.unknown_opcodes(), [("quantum-transpose", 2)]);
    /// ```
    pub fn unknown_opcodes(&self) -> alloc::vec::Vec<(&'a str, usize)> {
        let mut out: alloc::vec::Vec<(&'a str, usize)> = alloc::vec::Vec::new();
        for i in self.computations.iter().flat_map(|c| c.instructions()) {
            let op = i.opcode();
            if crate::opcodes::is_known(op) {
                continue;
            }
            match out.iter_mut().find(|(o, _)| *o == op) {
                Some((_, n)) => *n += 1,
                None => out.push((op, 1)),
            }
        }
        out
    }

    /// The `ENTRY` computation, or the last one when none is marked (as
    /// XLA).
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse("f {\n ROOT p = f32[] parameter(0)\n}\ng {\n ROOT q = f32[] parameter(0)\n}").unwrap();
    /// assert_eq!(m.entry().unwrap().name(), "g");
    /// ```
    pub fn entry(&self) -> Option<&Computation<'a>> {
        self.entry_index().map(|k| &self.computations[k])
    }

    /// Whether a computation is marked `ENTRY`, as XLA always prints it.
    /// Without one, [`Module::entry`] is the last computation (XLA's rule
    /// for hand-written text); in a dump that means it was cut short.
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse("f {\n ROOT p = f32[] parameter(0)\n}").unwrap();
    /// assert!(!m.entry_is_marked());
    /// ```
    pub fn entry_is_marked(&self) -> bool {
        self.computations.iter().any(|c| c.is_entry())
    }

    /// [`Module::entry`]'s position in [`Module::computations`].
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse("ENTRY f {\n ROOT p = f32[] parameter(0)\n}\ng {\n ROOT q = f32[] parameter(0)\n}").unwrap();
    /// assert_eq!(m.entry_index(), Some(0));
    /// ```
    pub fn entry_index(&self) -> Option<usize> {
        self.computations
            .iter()
            .position(|c| c.is_entry())
            .or(self.computations.len().checked_sub(1))
    }

    /// Every instruction with its computation, in text order.
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse("f {\n ROOT p = f32[] parameter(0)\n}\nENTRY g {\n a = f32[] parameter(0)\n ROOT n = f32[] negate(a)\n}").unwrap();
    /// let all: Vec<(&str, &str)> = m.instructions().map(|(c, i)| (c.name(), i.name())).collect();
    /// assert_eq!(all, [("f", "p"), ("g", "a"), ("g", "n")]);
    /// ```
    pub fn instructions(&self) -> impl Iterator<Item = (&Computation<'a>, &Instruction<'a>)> {
        self.computations
            .iter()
            .flat_map(|c| c.instructions.iter().map(move |i| (c, i)))
    }

    /// The instruction called `query` (`name`, or `computation/name` where
    /// names repeat across computations).
    ///
    /// ```
    /// # use xla_layout_hlo::{LookupError, Module};
    /// let m = Module::parse("c {\n ROOT p = f32[] parameter(0)\n}\nENTRY e {\n ROOT p = f32[] parameter(0)\n}").unwrap();
    /// assert_eq!(m.instruction("e/p").unwrap().0.name(), "e");
    /// assert_eq!(m.instruction("p").unwrap_err(), LookupError::Ambiguous { computations: vec!["c", "e"] });
    /// assert_eq!(m.instruction("q").unwrap_err(), LookupError::NotFound { closest: vec!["p"] });
    /// ```
    pub fn instruction(
        &self,
        query: &str,
    ) -> Result<(&Computation<'a>, &Instruction<'a>), LookupError<'a>> {
        let (computation, name) = match query.split_once('/') {
            Some((c, n)) => (Some(c), n),
            None => (None, query),
        };
        let name = name.strip_prefix('%').unwrap_or(name);
        let computation = computation.map(|c| c.strip_prefix('%').unwrap_or(c));
        let mut found = self
            .instructions()
            .filter(|(c, i)| i.name() == name && computation.is_none_or(|n| c.name() == n));
        match (found.next(), found.next()) {
            (Some(hit), None) => Ok(hit),
            (Some(first), Some(second)) => {
                let mut computations = alloc::vec![first.0.name(), second.0.name()];
                computations.extend(found.map(|(c, _)| c.name()));
                Err(LookupError::Ambiguous { computations })
            }
            (None, _) => Err(LookupError::NotFound {
                closest: self.closest_names(name),
            }),
        }
    }

    /// Instruction names close to `name` (at most a third of its length
    /// in edits, at least 2), closest first, at most five.
    fn closest_names(&self, name: &str) -> Vec<&'a str> {
        let limit = (name.len() / 3).max(2);
        let mut scored: Vec<(usize, &'a str)> = self
            .instructions()
            .map(|(_, i)| {
                (
                    xla_layout_core::text::edit_distance(name.as_bytes(), i.name().as_bytes()),
                    i.name(),
                )
            })
            .filter(|&(d, _)| d <= limit)
            .collect();
        scored.sort();
        scored.dedup_by_key(|(_, n)| *n);
        scored.into_iter().take(5).map(|(_, n)| n).collect()
    }

    /// The 1-based line and byte column of a byte offset of the text.
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse("ENTRY e {\n  ROOT p = f32[] parameter(0)\n}").unwrap();
    /// let p = m.entry().unwrap().root().unwrap();
    /// assert_eq!(m.line_column(p.span().start), (2, 3));
    /// assert_eq!(m.source().len(), 41);
    /// ```
    pub fn line_column(&self, offset: usize) -> (usize, usize) {
        ByteSpan {
            start: offset,
            end: offset,
        }
        .line_column(self.src)
    }
}

/// Splits text kept by the reader (operands, attributes) at top-level
/// commas, using the lexer for brackets, strings and comments. Yields the
/// span of each piece from its first token to its last.
pub(crate) fn split_top_level(src: &str, within: ByteSpan) -> impl Iterator<Item = ByteSpan> + '_ {
    let bytes = src.as_bytes().get(..within.end).unwrap_or(&[]);
    let mut lexer = Lexer::at(bytes, within.start);
    let mut done = false;
    core::iter::from_fn(move || {
        if done {
            return None;
        }
        let mut piece: Option<ByteSpan> = None;
        loop {
            let t = lexer.next_token();
            let end = match t.kind {
                K::Eof => {
                    done = true;
                    return piece;
                }
                K::Comma => {
                    return piece.or(Some(ByteSpan {
                        start: t.start,
                        end: t.start,
                    }));
                }
                K::Lbrace | K::Lparen | K::Lsquare => match lexer.skip_group(t) {
                    Ok(end) => end,
                    Err(_) => {
                        done = true;
                        return None;
                    }
                },
                _ => t.end,
            };
            let start = piece.map_or(t.start, |p| p.start);
            piece = Some(ByteSpan { start, end });
        }
    })
}
