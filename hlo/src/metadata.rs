//! What an instruction says about where it came from: its
//! `metadata={op_name="…" source_file="…" source_line=N stack_frame_id=K}`
//! and the module's stack-frame tables that `stack_frame_id` points into.

use alloc::borrow::Cow;
use alloc::string::String;

use xla_layout_core::text::{Lexer, TokenKind as K};

use crate::items::{Instruction, StackIndex};

/// An instruction's `metadata={…}`, fields as written (strings without
/// their quotes, escapes kept: see [`unescape`]). Fields it does not know
/// are skipped, so that metadata XLA adds later is never an error.
///
/// ```
/// use xla_layout_hlo::{Metadata, Module};
///
/// let m = Module::parse(r#"ENTRY e {
///   ROOT p = f32[] parameter(0), metadata={op_type="Add" op_name="jit(f)/add" source_file="f.py" source_line=12 stack_frame_id=3 future={a=1}}
/// }"#).unwrap();
/// let md = m.entry().unwrap().instructions()[0].metadata();
/// assert_eq!(md, Metadata {
///     op_type: Some("Add"),
///     op_name: Some("jit(f)/add"),
///     source_file: Some("f.py"),
///     source_line: Some(12),
///     stack_frame_id: Some(3),
/// });
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Metadata<'a> {
    /// `op_type`: the framework's operation type.
    pub op_type: Option<&'a str>,
    /// `op_name`: the framework's name for the operation (JAX: the
    /// `jit(f)/…` path).
    pub op_name: Option<&'a str>,
    /// `source_file` (older dumps; newer ones use `stack_frame_id`).
    pub source_file: Option<&'a str>,
    /// `source_line`.
    pub source_line: Option<i64>,
    /// `stack_frame_id`: a 1-based index into the module's `StackFrames`.
    pub stack_frame_id: Option<i64>,
}

impl<'a> Metadata<'a> {
    /// Reads the value of a `metadata` attribute, `{key=value …}`.
    ///
    /// ```
    /// # use xla_layout_hlo::Metadata;
    /// let md = Metadata::parse(r#"{op_name="params[\'w\']" source_line=7}"#);
    /// assert_eq!(md.op_name, Some(r"params[\'w\']"));
    /// assert_eq!(md.source_line, Some(7));
    /// assert_eq!(Metadata::parse("garbage"), Metadata::default());
    /// ```
    pub fn parse(text: &'a str) -> Metadata<'a> {
        let bytes = text.as_bytes();
        let mut md = Metadata::default();
        let mut lexer = Lexer::new(bytes);
        if lexer.next_token().kind != K::Lbrace {
            return md;
        }
        loop {
            let key = lexer.next_token();
            match key.kind {
                K::AttributeName => {}
                K::Comma => continue,
                _ => return md,
            }
            let value = lexer.next_token();
            let key = core::str::from_utf8(key.text(bytes)).unwrap_or("");
            let string = || {
                (value.kind == K::String)
                    .then(|| core::str::from_utf8(value.text(bytes)).ok())
                    .flatten()
            };
            let int = || (value.kind == K::Int).then_some(value.int);
            match key {
                "op_type" => md.op_type = string(),
                "op_name" => md.op_name = string(),
                "source_file" => md.source_file = string(),
                "source_line" => md.source_line = int(),
                "stack_frame_id" => md.stack_frame_id = int(),
                _ => {}
            }
            // A value of a field not known here may be a group.
            if matches!(value.kind, K::Lbrace | K::Lparen | K::Lsquare)
                && lexer.skip_group(value).is_err()
            {
                return md;
            }
        }
    }

    /// Where the instruction came from in the user's code: the
    /// innermost frame of `stack_frame_id` (resolved in `index`), else
    /// `source_file`/`source_line`.
    ///
    /// ```
    /// # use xla_layout_hlo::{Metadata, Module, SourceLocation};
    /// let m = Module::parse(r#"HloModule m
    /// FileNames
    /// 1 "train.py"
    /// FunctionNames
    /// 1 "step"
    /// FileLocations
    /// 1 {file_name_id=1 function_name_id=1 line=10}
    /// StackFrames
    /// 1 {file_location_id=1 parent_frame_id=1}
    /// ENTRY e {
    ///   ROOT p = f32[] parameter(0), metadata={op_name="x" stack_frame_id=1}
    /// }"#).unwrap();
    /// let md = m.entry().unwrap().instructions()[0].metadata();
    /// assert_eq!(
    ///     md.location(m.stack_index()),
    ///     Some(SourceLocation { file: "train.py", line: 10, function: Some("step") })
    /// );
    /// assert_eq!(Metadata::parse("{source_file=\"a.py\" source_line=3}").location(m.stack_index()),
    ///     Some(SourceLocation { file: "a.py", line: 3, function: None }));
    /// ```
    pub fn location(&self, index: &StackIndex<'a>) -> Option<SourceLocation<'a>> {
        if let Some(frame) = self.stack_frame_id.and_then(|id| index.frames(id).next()) {
            return Some(frame);
        }
        Some(SourceLocation {
            file: self.source_file?,
            line: self.source_line.unwrap_or(0),
            function: None,
        })
    }
}

/// A place in the user's code: a file (escapes kept), a 1-based line (0
/// when unknown) and the function, when the stack tables name it.
///
/// ```
/// # use xla_layout_hlo::SourceLocation;
/// let l = SourceLocation { file: "train.py", line: 10, function: Some("step") };
/// assert_eq!(l.to_string(), "train.py:10 (step)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SourceLocation<'a> {
    /// The file's name, as the module writes it.
    pub file: &'a str,
    /// The line (0 when unknown).
    pub line: i64,
    /// The function, if known.
    pub function: Option<&'a str>,
}

impl core::fmt::Display for SourceLocation<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}:{}", unescape(self.file), self.line)?;
        if let Some(function) = self.function {
            write!(f, " ({})", unescape(function))?;
        }
        Ok(())
    }
}

impl<'a> StackIndex<'a> {
    /// The frames of stack frame `id` (1-based), innermost first: each
    /// frame's file location, then its parent's, and so on. Ids that
    /// point nowhere end the walk, and so does a parent chain longer than
    /// the table (a cycle), so that any input ends.
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse(r#"HloModule m
    /// FileNames
    /// 1 "a.py"
    /// FunctionNames
    /// 1 "main"
    /// 2 "f"
    /// FileLocations
    /// 1 {file_name_id=1 function_name_id=1 line=3}
    /// 2 {file_name_id=1 function_name_id=2 line=9}
    /// StackFrames
    /// 1 {file_location_id=1 parent_frame_id=1}
    /// 2 {file_location_id=2 parent_frame_id=2}
    /// ENTRY e {
    ///   ROOT p = f32[] parameter(0)
    /// }"#).unwrap();
    /// let lines: Vec<i64> = m.stack_index().frames(2).map(|l| l.line).collect();
    /// assert_eq!(lines, [9, 3]); // f, called from main
    /// assert_eq!(m.stack_index().frames(7).count(), 0);
    /// ```
    pub fn frames(&self, id: i64) -> impl Iterator<Item = SourceLocation<'a>> + '_ {
        let mut next = Some(id);
        let mut left = self.stack_frames.len();
        core::iter::from_fn(move || {
            let id = next.take()?;
            left = left.checked_sub(1)?;
            let frame = self
                .stack_frames
                .get(usize::try_from(id).ok()?.checked_sub(1)?)?;
            next = frame.parent();
            let location = self.file_locations.get(
                usize::try_from(frame.file_location_id)
                    .ok()?
                    .checked_sub(1)?,
            )?;
            let name = |table: &[&'a str], id: i64| {
                usize::try_from(id)
                    .ok()
                    .and_then(|i| i.checked_sub(1))
                    .and_then(|i| table.get(i).copied())
            };
            Some(SourceLocation {
                file: name(&self.file_names, location.file_name_id).unwrap_or("?"),
                line: location.line,
                function: name(&self.function_names, location.function_name_id),
            })
        })
    }
}

impl<'a> Instruction<'a> {
    /// Its `metadata={…}` (all fields `None` when it has none).
    ///
    /// ```
    /// # use xla_layout_hlo::Module;
    /// let m = Module::parse("ENTRY e {\n ROOT p = f32[] parameter(0), metadata={op_name=\"x\"}\n}").unwrap();
    /// assert_eq!(m.entry().unwrap().instructions()[0].metadata().op_name, Some("x"));
    /// ```
    pub fn metadata(&self) -> Metadata<'a> {
        self.attribute("metadata")
            .map(Metadata::parse)
            .unwrap_or_default()
    }
}

/// Text with XLA's C escapes (`\'`, `\"`, `\\`, `\n`, `\t`, `\r`, `\xNN`,
/// octal `\NNN`) undone; borrowed when there is none. Escaped bytes are
/// bytes of UTF-8 text (XLA escapes a file name's bytes one by one); bytes
/// that do not make UTF-8 become U+FFFD. An escape that makes no byte is
/// kept as written.
///
/// ```
/// # use xla_layout_hlo::unescape;
/// assert_eq!(unescape(r"params[\'w\']"), "params['w']");
/// assert_eq!(unescape(r"a\x41\101\n"), "aAA\n");
/// assert_eq!(unescape(r"caf\303\251 \xc3\xa9"), "café é");
/// assert!(matches!(unescape("plain"), std::borrow::Cow::Borrowed("plain")));
/// ```
pub fn unescape(text: &str) -> Cow<'_, str> {
    if !text.contains('\\') {
        return Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let mut out = alloc::vec::Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        let digits = |from: usize, max: usize, ok: fn(&u8) -> bool| {
            bytes
                .get(from..)
                .map_or(0, |t| t.iter().take(max).take_while(|b| ok(b)).count())
        };
        let (byte, used) = match bytes.get(i + 1) {
            Some(b'n') => (Some(b'\n'), 2),
            Some(b't') => (Some(b'\t'), 2),
            Some(b'r') => (Some(b'\r'), 2),
            Some(&b @ (b'\\' | b'\'' | b'"' | b'?')) => (Some(b), 2),
            Some(b'x') => {
                let n = digits(i + 2, 2, u8::is_ascii_hexdigit);
                let hex = core::str::from_utf8(&bytes[i + 2..i + 2 + n]).unwrap_or("");
                (u8::from_str_radix(hex, 16).ok(), 2 + n)
            }
            Some(b'0'..=b'7') => {
                let n = digits(i + 1, 3, |b| (b'0'..=b'7').contains(b));
                let oct = core::str::from_utf8(&bytes[i + 1..i + 1 + n]).unwrap_or("");
                (
                    u8::try_from(u32::from_str_radix(oct, 8).unwrap_or(256)).ok(),
                    1 + n,
                )
            }
            _ => (None, 1),
        };
        match byte {
            Some(b) => {
                out.push(b);
                i += used;
            }
            None => {
                out.push(b'\\');
                i += 1;
            }
        }
    }
    Cow::Owned(String::from_utf8_lossy(&out).into_owned())
}
