//! XLA's own account of a module's memory, as its dumps write it: the
//! buffer assignment (`…after_optimizations-buffer-assignment.txt`,
//! `BufferAssignment::ToString`) and the memory-usage report
//! (`…-memory-usage-report.txt`). Read leniently and in one pass: lines
//! this reader does not know are skipped, so that text XLA adds later is
//! never an error.

use alloc::vec::Vec;

/// One allocation of a buffer assignment.
///
/// ```
/// use xla_layout_hlo::BufferAssignment;
///
/// let text = "BufferAssignment:\n\
///     allocation 1: size 32768, page 0, parameter 1, shape |f32[64,128]| at ShapeIndex {}, maybe-live-out:\n \
///     value: <27 param.3 @0> (size=32768,offset=0): f32[64,128]{1,0:T(8,128)}\n";
/// let ba = BufferAssignment::parse(text);
/// let a = &ba.allocations[0];
/// assert_eq!((a.index, a.size, a.color), (1, 32768, 0));
/// assert_eq!(a.parameter, Some((1, "{}")));
/// assert_eq!(a.parameter_shape, Some("f32[64,128]"));
/// assert!(a.maybe_live_out && !a.preallocated_temp);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Allocation<'a> {
    /// Its number (`allocation N`).
    pub index: u64,
    /// Its size in bytes.
    pub size: u64,
    /// Its color: the memory space (0 when not written).
    pub color: i64,
    /// `parameter N, shape |…| at ShapeIndex {…}`: the entry parameter it
    /// holds and the index within it.
    pub parameter: Option<(u64, &'a str)>,
    /// The parameter's shape, as written between the bars.
    pub parameter_shape: Option<&'a str>,
    /// `output shape is |…|`: it holds the output's tuple index table.
    pub output_shape: Option<&'a str>,
    /// `maybe-live-out`: part of the output.
    pub maybe_live_out: bool,
    /// `preallocated-temp`: the program's temporary heap for its color.
    pub preallocated_temp: bool,
    /// `thread-local`: scratch of a reducer or other embedded computation.
    pub thread_local: bool,
    /// `constant`.
    pub constant: bool,
    /// Its values, a range of [`BufferAssignment::values`].
    pub values: core::ops::Range<usize>,
}

impl Allocation<'_> {
    /// Whether one of its values in `ba` (phis aside: XLA lists a loop's
    /// phi with its whole shape) ends past its size: a line was edited,
    /// since XLA places each value inside its allocation.
    ///
    /// ```
    /// use xla_layout_hlo::BufferAssignment;
    /// let ba = BufferAssignment::parse(
    ///     "allocation 0: size 16, maybe-live-out:\n value: <1 a @0> (size=16,offset=0): f32[4]{0}\n",
    /// );
    /// assert!(!ba.allocations[0].values_past_end(&ba));
    /// let edited = BufferAssignment::parse(
    ///     "allocation 0: size 12, maybe-live-out:\n value: <1 a @0> (size=16,offset=0): f32[4]{0}\n",
    /// );
    /// assert!(edited.allocations[0].values_past_end(&edited));
    /// ```
    pub fn values_past_end(&self, ba: &BufferAssignment<'_>) -> bool {
        ba.values
            .get(self.values.clone())
            .unwrap_or_default()
            .iter()
            .filter(|v| !v.phi)
            .any(|v| {
                v.offset
                    .checked_add(v.size)
                    .is_none_or(|end| end > self.size)
            })
    }
}

/// One value of an allocation: `value: <ID name{index} @color> (size=…,offset=…): shape`.
///
/// ```
/// use xla_layout_hlo::BufferAssignment;
///
/// let text = "allocation 20: size 12, color 2, page 0, preallocated-temp:\n \
///     value: <30 collective-permute-start{2} @2> (size=4,offset=8): u32[]{:S(2)}\n \
///     value: <171 wide.param.1{} (phi) @0> (size=512,offset=0): (s32[])\n";
/// let ba = BufferAssignment::parse(text);
/// let v = &ba.values[0];
/// assert_eq!((v.id, v.name, v.index, v.phi), (30, "collective-permute-start", Some("{2}"), false));
/// assert_eq!((v.color, v.size, v.offset, v.shape), (2, 4, 8, "u32[]{:S(2)}"));
/// assert_eq!((ba.values[1].name, ba.values[1].index, ba.values[1].phi), ("wide.param.1", Some("{}"), true));
/// assert_eq!(ba.allocations[0].values, 0..2);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct AssignedValue<'a> {
    /// XLA's value id.
    pub id: u64,
    /// The defining instruction's name.
    pub name: &'a str,
    /// `{…}` after the name, when the instruction's shape is a tuple.
    pub index: Option<&'a str>,
    /// A phi value of XLA's SSA dataflow (a loop's or a conditional's
    /// merge point), not data of its own.
    pub phi: bool,
    /// Its color.
    pub color: i64,
    /// Its size in bytes.
    pub size: u64,
    /// Its offset in the allocation.
    pub offset: u64,
    /// Its shape, as written.
    pub shape: &'a str,
    /// The allocation (an index into [`BufferAssignment::allocations`]).
    pub allocation: usize,
}

/// A buffer assignment as XLA dumps it.
///
/// ```
/// use xla_layout_hlo::BufferAssignment;
///
/// let ba = BufferAssignment::parse("BufferAssignment:\nsomething new\nallocation 0: size 16, output shape is |(f32[4], f32[2])|, maybe-live-out:\n value: <5 tuple{} @0> (size=16,offset=0): (f32[4]{0}, f32[2]{0})\nTotal bytes used: 16 (16B)\n");
/// assert_eq!(ba.allocations.len(), 1);
/// assert_eq!(ba.allocations[0].output_shape, Some("(f32[4], f32[2])"));
/// assert_eq!(ba.total_bytes_used, Some(16));
/// assert_eq!(ba.skipped_lines, 2); // the header is known; "something new" and the total are not allocations
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BufferAssignment<'a> {
    /// The allocations, in text order.
    pub allocations: Vec<Allocation<'a>>,
    /// Every value of every allocation, in text order.
    pub values: Vec<AssignedValue<'a>>,
    /// `Total bytes used: N`, when the text has it.
    pub total_bytes_used: Option<u64>,
    /// Lines that are neither allocations nor values (nor blank, nor the
    /// `BufferAssignment:` header).
    pub skipped_lines: usize,
    /// Lines (numbered from 1) written as an allocation or a value that do
    /// not read as one: a size that is not a number or passes int64
    /// (XLA's size type), a value before any allocation, text cut off.
    /// Each may stand for an allocation or value lost, so an assignment
    /// with any is not XLA's whole account ([`BufferAssignment::is_whole`]).
    pub unread_lines: Vec<usize>,
    /// The text ends inside a line: XLA ends its dump with a newline, so
    /// the file was cut short (its last line is then unread too when it
    /// does not read).
    pub cut_short: bool,
}

impl<'a> BufferAssignment<'a> {
    /// Reads `text`, keeping every allocation and value that reads.
    ///
    /// ```
    /// use xla_layout_hlo::BufferAssignment;
    /// let ba = BufferAssignment::parse("allocation 3: size 512, page 0, constant:\n value: <4 constant.1 @0> (size=512,offset=0): f32[]{:T(128)}\n");
    /// assert!(ba.allocations[0].constant);
    /// assert_eq!(ba.values[0].name, "constant.1");
    /// ```
    pub fn parse(text: &'a str) -> BufferAssignment<'a> {
        let mut ba = BufferAssignment {
            cut_short: !text.is_empty() && !text.ends_with('\n'),
            ..BufferAssignment::default()
        };
        for (number, line) in (1..).zip(text.lines()) {
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed == "BufferAssignment:" {
                continue;
            }
            if let Some(rest) = trimmed.strip_prefix("allocation ") {
                match allocation(rest, ba.values.len()) {
                    Some(a) => ba.allocations.push(a),
                    None => ba.unread_lines.push(number),
                }
                continue;
            }
            if let Some(rest) = trimmed.strip_prefix("value:") {
                match (
                    value(rest.trim_start()),
                    ba.allocations.len().checked_sub(1),
                ) {
                    (Some(mut v), Some(last)) => {
                        v.allocation = last;
                        ba.values.push(v);
                        ba.allocations[last].values.end = ba.values.len();
                    }
                    _ => ba.unread_lines.push(number),
                }
                continue;
            }
            if let Some(rest) = trimmed.strip_prefix("Total bytes used:") {
                ba.total_bytes_used = leading_number(rest.trim_start()).map(|(n, _)| n);
            }
            ba.skipped_lines += 1;
        }
        ba
    }

    /// Whether the text is all of XLA's buffer assignment as far as it
    /// shows: no allocation or value line unread, not cut short. (A file
    /// cut at a line's end shows nothing; the memory report checks that
    /// every argument has its allocation.)
    ///
    /// ```
    /// use xla_layout_hlo::BufferAssignment;
    /// let text = "allocation 0: size 32, parameter 0:\n value: <1 p @0> (size=32,offset=0): f32[8]{0}\n";
    /// assert!(BufferAssignment::parse(text).is_whole());
    /// let cut = BufferAssignment::parse(&text[..60]);
    /// assert!(cut.cut_short && !cut.is_whole());
    /// let bad = BufferAssignment::parse("allocation 0: size abc, parameter 0:\n");
    /// assert_eq!(bad.unread_lines, [1]);
    /// let huge = BufferAssignment::parse("allocation 0: size 9223372036854775808, parameter 0:\n");
    /// assert_eq!(huge.unread_lines, [1]); // past int64, XLA's size type
    /// let orphan = BufferAssignment::parse(" value: <1 p @0> (size=32,offset=0): f32[8]{0}\n");
    /// assert_eq!(orphan.unread_lines, [1]); // a value before any allocation
    /// ```
    pub fn is_whole(&self) -> bool {
        self.unread_lines.is_empty() && !self.cut_short
    }
}

/// `123rest` → (123, "rest").
fn leading_number(text: &str) -> Option<(u64, &str)> {
    let n = text.bytes().take_while(u8::is_ascii_digit).count();
    Some((text.get(..n)?.parse().ok()?, &text[n..]))
}

/// [`leading_number`] for a size or offset: XLA's are int64, so a larger
/// number is not one XLA wrote.
fn leading_size(text: &str) -> Option<(u64, &str)> {
    leading_number(text).filter(|&(n, _)| i64::try_from(n).is_ok())
}

/// `N: size S, part, part, …:` (after `allocation `).
fn allocation(text: &str, first_value: usize) -> Option<Allocation<'_>> {
    let (index, rest) = leading_number(text)?;
    let rest = rest.strip_prefix(": size ")?;
    let (size, mut rest) = leading_size(rest)?;
    let mut a = Allocation {
        index,
        size,
        values: first_value..first_value,
        ..Allocation::default()
    };
    // Parts are separated by ", ", but a shape between bars may hold
    // commas of its own.
    loop {
        rest = match rest.strip_prefix(", ") {
            Some(r) => r,
            None => break,
        };
        let end = part_end(rest);
        let part = &rest[..end];
        rest = &rest[end..];
        if let Some(c) = part.strip_prefix("color ") {
            // The last part ends the line with `:` (`color 5:` when no
            // flag or page follows).
            a.color = c.trim().trim_end_matches(':').parse().ok()?;
        } else if let Some(p) = part.strip_prefix("parameter ") {
            let (n, _) = leading_number(p)?;
            a.parameter = Some((n, "{}"));
        } else if part.starts_with("shape |") {
            // `shape |…| at ShapeIndex {…}`, after `parameter N`.
            a.parameter_shape = bars(part);
            if let (Some((n, _)), Some(at)) = (a.parameter, part.rfind("at ShapeIndex ")) {
                a.parameter = Some((n, part[at + "at ShapeIndex ".len()..].trim()));
            }
        } else if part.starts_with("output shape is ") {
            a.output_shape = bars(part);
        } else {
            match part.trim_end_matches(':') {
                "maybe-live-out" => a.maybe_live_out = true,
                "preallocated-temp" => a.preallocated_temp = true,
                "thread-local" => a.thread_local = true,
                "constant" => a.constant = true,
                _ => {}
            }
        }
    }
    Some(a)
}

/// Where the part at the start of `text` ends: at the next ", " outside
/// `|…|`, or at the end.
fn part_end(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut in_bars = false;
    for (k, &b) in bytes.iter().enumerate() {
        match b {
            b'|' => in_bars = !in_bars,
            b',' if !in_bars && bytes.get(k + 1) == Some(&b' ') => return k,
            _ => {}
        }
    }
    bytes.len()
}

/// The text between the first pair of `|`.
fn bars(text: &str) -> Option<&str> {
    let start = text.find('|')? + 1;
    let end = text[start..].find('|')? + start;
    Some(&text[start..end])
}

/// `<ID name{index} (phi)? @color> (size=S,offset=O): shape` (after `value: `).
fn value(text: &str) -> Option<AssignedValue<'_>> {
    let rest = text.strip_prefix('<')?;
    let (id, rest) = leading_number(rest)?;
    let rest = rest.strip_prefix(' ')?;
    let close = rest.find('>')?;
    let inside = &rest[..close];
    let after = &rest[close + 1..];
    let at = inside.rfind(" @")?;
    let color = inside[at + 2..].trim().parse().ok()?;
    let mut head = &inside[..at];
    let phi = head.ends_with(" (phi)");
    if phi {
        head = &head[..head.len() - " (phi)".len()];
    }
    let (name, index) = match head.find('{') {
        Some(brace) if head.ends_with('}') => (&head[..brace], Some(&head[brace..])),
        _ => (head, None),
    };
    let after = after.trim_start().strip_prefix("(size=")?;
    let (size, after) = leading_size(after)?;
    let after = after.strip_prefix(",offset=")?;
    let (offset, after) = leading_size(after)?;
    let shape = after.strip_prefix("):").unwrap_or(after).trim();
    Some(AssignedValue {
        id,
        name,
        index,
        phi,
        color,
        size,
        offset,
        shape,
        allocation: 0,
    })
}

/// Which of XLA's other dump files `text` is, when it is one rather than
/// an HLO module: its buffer assignment (`…-buffer-assignment.txt`, which
/// starts `BufferAssignment:`), its memory-usage report
/// (`…-memory-usage-report.txt`, `Memory Space: …`), and the rest of a
/// dump directory's files ([`OTHER_DUMP_FILES`]). Given where a module is
/// expected, each reads as a cascade of syntax errors; this names it.
///
/// ```
/// use xla_layout_hlo::other_dump_file;
///
/// assert_eq!(other_dump_file("BufferAssignment:\nallocation 0: size 16"), Some("XLA's buffer assignment"));
/// assert_eq!(other_dump_file("Memory Space: default (color=0)\n"), Some("XLA's memory-usage report"));
/// assert_eq!(other_dump_file("HloModule m\nENTRY e {\n}"), None);
/// // `…hlo_module_config.txt`: a protocol buffer in text form.
/// assert!(other_dump_file("entry_computation_layout {\n  parameters {\n    element_type: S4\n").is_some());
/// // A module of one computation with no header line is still a module.
/// assert_eq!(other_dump_file("f {\n ROOT p = f32[] parameter(0)\n}"), None);
/// ```
pub fn other_dump_file(text: &str) -> Option<&'static str> {
    let lines = || text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines().next().unwrap_or("");
    if let Some((_, kind)) = OTHER_DUMP_FILES
        .iter()
        .find(|(start, _)| first.starts_with(start))
    {
        return Some(kind);
    }
    protocol_buffer_text(lines().take(8)).then_some(
        "a protocol buffer in text form (one of the dump's options, configuration or \
         statistics files)",
    )
}

/// How each of XLA's other dump files starts (its first line that is not
/// blank), and what it is.
///
/// ```
/// use xla_layout_hlo::OTHER_DUMP_FILES;
/// assert!(OTHER_DUMP_FILES.iter().any(|(start, _)| *start == "HloLiveRange ("));
/// ```
pub const OTHER_DUMP_FILES: &[(&str, &str)] = &[
    ("BufferAssignment:", "XLA's buffer assignment"),
    ("Memory Space: ", "XLA's memory-usage report"),
    (
        "Total bytes used:",
        "the values of XLA's buffer assignment (`…-buffer-assignment-values.txt`)",
    ),
    ("HloLiveRange (", "XLA's live ranges (`…-live-range.txt`)"),
    (
        "module @",
        "StableHLO (`lowered.as_text()`, before XLA compiles it), whose memory is not laid out yet",
    ),
    ("--xla_", "a file of XLA's flags (`…flagfile`)"),
];

/// Whether `lines` (trimmed, not blank) read as a protocol buffer's text
/// form: each a field (`name: value`), a message opening (`name {`) or a
/// closing `}`, with at least one field. An HLO computation's header
/// (`name {`) is followed by instructions (`x = …`), which are none of
/// these.
fn protocol_buffer_text<'t>(lines: impl Iterator<Item = &'t str>) -> bool {
    let name = |s: &str| {
        s.bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
            && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    };
    let mut fields = 0;
    for line in lines {
        if let Some((key, _)) = line.split_once(": ")
            && name(key)
        {
            fields += 1;
        } else if !(line == "}" || line.strip_suffix(" {").is_some_and(name)) {
            return false;
        }
    }
    fields > 0
}

/// The memory spaces a memory-usage report names: `(color, label)` for
/// each `Memory Space: label (color=N)` line, in text order.
///
/// ```
/// use xla_layout_hlo::memory_space_labels;
///
/// let text = "Memory Space: default (color=0)\nTotal bytes: 512\nMemory Space: vmem (color=1)\n";
/// assert_eq!(memory_space_labels(text), [(0, "default"), (1, "vmem")]);
/// ```
pub fn memory_space_labels(text: &str) -> Vec<(i64, &str)> {
    let mut out = Vec::new();
    // The colors seen: a scan of `out` per line was quadratic (15 s for
    // 200,000 lines).
    let mut seen = alloc::collections::BTreeSet::new();
    for line in text.lines() {
        let Some(rest) = line.trim().strip_prefix("Memory Space: ") else {
            continue;
        };
        let Some(open) = rest.rfind(" (color=") else {
            continue;
        };
        let label = &rest[..open];
        let color = rest[open + " (color=".len()..]
            .trim_end_matches(')')
            .trim()
            .parse::<i64>();
        if let Ok(color) = color
            && seen.insert(color)
        {
            out.push((color, label));
        }
    }
    out
}

/// The TPU generation a jax dump's `topology.textproto` names (its
/// `platform_version`, read by [`Generation::from_platform_version`]), if
/// it names one this crate knows.
///
/// ```
/// use xla_layout_core::tpu::Generation;
/// use xla_layout_hlo::topology_generation;
/// let text = "platform_version: \"TFRT TPU v6 lite\\nBuilt on Nov 5 2026\"\nchips_per_host_bounds: 2\n";
/// assert_eq!(topology_generation(text), Some(Generation::V6e));
/// assert_eq!(topology_generation("chips_per_host_bounds: 2\n"), None);
/// ```
///
/// [`Generation::from_platform_version`]: xla_layout_core::tpu::Generation::from_platform_version
pub fn topology_generation(text: &str) -> Option<xla_layout_core::tpu::Generation> {
    let line = text
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("platform_version:"))?;
    let value = line.trim().strip_prefix('"')?;
    xla_layout_core::tpu::Generation::from_platform_version(value)
}
