//! Which computations an instruction calls, by name: the rule in one
//! place for the name check ([`names`](crate::names)) and the call graph
//! ([`dataflow`](crate::dataflow)).
//!
//! XLA names a called computation in an attribute (`to_apply=add`,
//! `body=b`, `branch_computations={t, f}`, `calls=%fused`, …) of the
//! opcodes that take computations and of the async forms (`X-start`,
//! `X-update`, `X-done`); its parser refuses a module whose instruction
//! names a computation that is not there.

use crate::items::Instruction;

/// The opcodes that take computations (besides the async forms
/// `X-start`, `X-update`, `X-done`).
///
/// ```
/// use xla_layout_hlo::calls::CALLING_OPCODES;
/// assert!(CALLING_OPCODES.contains(&"while"));
/// assert!(!CALLING_OPCODES.contains(&"add"));
/// ```
pub const CALLING_OPCODES: &[&str] = &[
    "fusion",
    "while",
    "conditional",
    "call",
    "map",
    "reduce",
    "reduce-window",
    "reduce-scatter",
    "all-reduce",
    "scatter",
    "select-and-scatter",
    "sort",
    "topk",
    "custom-call",
];

/// The attributes that name called computations.
///
/// ```
/// use xla_layout_hlo::calls::CALL_ATTRIBUTES;
/// assert!(CALL_ATTRIBUTES.contains(&"to_apply"));
/// assert!(!CALL_ATTRIBUTES.contains(&"dimensions"));
/// ```
pub const CALL_ATTRIBUTES: &[&str] = &[
    "calls",
    "to_apply",
    "condition",
    "body",
    "branch_computations",
    "true_computation",
    "false_computation",
    "select",
    "scatter",
    "called_computations",
    "comparator",
];

/// One computation an instruction names: in which attribute, at which
/// place in its list (0 for an attribute that names one), and its name
/// (without `%`).
///
/// ```
/// use xla_layout_hlo::{Module, calls::{CalledName, called_names}};
/// let m = Module::parse("t {\n ROOT x = f32[] parameter(0)\n}\nENTRY e {\n p = s32[] parameter(0)\n x = f32[] parameter(1)\n ROOT c = f32[] conditional(p, x, x), branch_computations={%t, t}\n}").unwrap();
/// let c = m.entry().unwrap().instructions()[2];
/// let second = CalledName { attribute: "branch_computations", place: 1, name: "t" };
/// assert_eq!(called_names(&c).nth(1), Some(second));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CalledName<'a> {
    /// The attribute (one of [`CALL_ATTRIBUTES`]).
    pub attribute: &'a str,
    /// Its place in the attribute's list.
    pub place: usize,
    /// The computation's name.
    pub name: &'a str,
}

/// The computations `i` names, in the order written. Most instructions
/// call nothing: only the opcodes that take computations are looked at,
/// and only when an attribute's name is in their text.
///
/// ```
/// use xla_layout_hlo::{Module, calls::called_names};
/// let m = Module::parse("ENTRY e {\n p = f32[] parameter(0)\n ROOT w = f32[] while(p), condition=%c, body=b\n}").unwrap();
/// let w = m.entry().unwrap().instructions()[1];
/// let named: Vec<_> = called_names(&w).map(|c| (c.attribute, c.name)).collect();
/// assert_eq!(named, [("condition", "c"), ("body", "b")]);
/// assert_eq!(called_names(&m.entry().unwrap().instructions()[0]).count(), 0);
/// // An inline body names nothing.
/// let m = Module::parse("ENTRY e {\n p = f32[2]{0} parameter(0)\n z = f32[] constant(0)\n ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply={\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n }\n}").unwrap();
/// assert_eq!(called_names(&m.entry().unwrap().instructions()[2]).count(), 0);
/// ```
pub fn called_names<'a>(i: &Instruction<'a>) -> impl Iterator<Item = CalledName<'a>> + 'a {
    let opcode = i.opcode();
    let calls = (CALLING_OPCODES.contains(&opcode)
        || opcode.ends_with("-start")
        || opcode.ends_with("-update")
        || opcode.ends_with("-done"))
        && CALL_ATTRIBUTES
            .iter()
            .any(|a| i.attributes_text().contains(a));
    let attributes = calls.then(|| i.attributes()).into_iter().flatten();
    attributes
        .filter(|a| CALL_ATTRIBUTES.contains(&a.name))
        // An inline body (`to_apply={ x = f32[] parameter(0) … }`, which
        // XLA's parser reads as a computation of its own, as hand-written
        // HLO may) names no computation: it is not read as one here.
        .filter(|a| !a.value.contains('='))
        .flat_map(|a| {
            let list = a.value.trim();
            let list = list.strip_prefix('{').unwrap_or(list);
            let list = list.strip_suffix('}').unwrap_or(list);
            list.split(',')
                .map(|name| name.trim().trim_start_matches('%'))
                .enumerate()
                // `called_computations={}`: an empty list names nothing.
                .filter(|(_, name)| !name.is_empty())
                .map(move |(place, name)| CalledName {
                    attribute: a.name,
                    place,
                    name,
                })
        })
}
