//! The dataflow's values and buffers: against XLA's own buffer assignment
//! on every real dump (tests/data/dumps), and rule by rule on hand-written
//! modules.

use std::collections::{BTreeMap, BTreeSet};

use xla_layout_hlo::dataflow::{CallContext, Dataflow};
use xla_layout_hlo::{BufferAssignment, Module};

/// Every optimized fixture: (name, module text, buffer-assignment text).
fn fixtures() -> Vec<(String, String, String)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/dumps");
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".hlo") else {
            continue;
        };
        // Modules before optimization, and XLA's print of two others in
        // the short form (no buffer assignment of their own).
        if stem.ends_with(".before") || stem.ends_with(".short") {
            continue;
        }
        let ba = std::fs::read_to_string(format!("{dir}/{stem}.buffer-assignment.txt")).unwrap();
        out.push((stem.to_owned(), std::fs::read_to_string(&p).unwrap(), ba));
    }
    out.sort();
    assert_eq!(out.len(), 27);
    out
}

/// The values of the module, as XLA names them, constants of reducers
/// included.
fn value_names(d: &Dataflow) -> BTreeSet<String> {
    let mut names: BTreeSet<String> = d.values().iter().map(|v| d.value_name(*v)).collect();
    for &c in d.embedded_constants() {
        names.insert(d.instruction(c).unwrap().1.name().to_owned());
    }
    names
}

#[test]
fn values_are_the_values_xla_assigns_on_every_dump() {
    for (name, text, ba_text) in fixtures() {
        let m = Module::parse(&text).unwrap();
        let d = Dataflow::new(&m);
        let ba = BufferAssignment::parse(&ba_text);
        assert_eq!(ba.skipped_lines, 0, "{name}");
        // XLA's values, less phis (merge points of its SSA form, not data)
        // and the per-thread scratch of reducers.
        let xla: BTreeSet<String> = ba
            .values
            .iter()
            .filter(|v| !v.phi && !ba.allocations[v.allocation].thread_local)
            .map(|v| format!("{}{}", v.name, v.index.unwrap_or("")))
            .collect();
        assert_eq!(value_names(&d), xla, "{name}");
        // The thread-local ones are values of embedded computations.
        for v in ba
            .values
            .iter()
            .filter(|v| ba.allocations[v.allocation].thread_local)
        {
            let id = d
                .find(v.name)
                .unwrap_or_else(|| panic!("{name}: {}", v.name));
            let k = d.computation_of(id).unwrap();
            assert_eq!(d.context(k), CallContext::Embedded, "{name}: {}", v.name);
        }
    }
}

#[test]
fn a_buffer_is_never_split_across_allocations() {
    for (name, text, ba_text) in fixtures() {
        let m = Module::parse(&text).unwrap();
        let d = Dataflow::new(&m);
        let ba = BufferAssignment::parse(&ba_text);
        let allocation: BTreeMap<String, usize> = ba
            .values
            .iter()
            .map(|v| (format!("{}{}", v.name, v.index.unwrap_or("")), v.allocation))
            .collect();
        let mut shared = 0;
        for b in 0..d.buffer_count() {
            let names: Vec<String> = d
                .buffer_values(b)
                .iter()
                .map(|&k| d.value_name(d.values()[k as usize]))
                .collect();
            let allocations: BTreeSet<usize> = names.iter().map(|n| allocation[n]).collect();
            assert!(
                allocations.len() <= 1,
                "{name}: {names:?} in {allocations:?}"
            );
            shared += usize::from(names.len() > 1);
        }
        // Loops and donations do join values: the checks above bite.
        if name == "tpu_train_step" {
            assert!(shared > 50, "{shared}");
        }
    }
}

/// The values of a hand-written module, by name.
fn values_of(text: &str) -> Vec<String> {
    let m = Module::parse(text).unwrap();
    let d = Dataflow::new(&m);
    d.values().iter().map(|v| d.value_name(*v)).collect()
}

/// Whether the named positions (`instruction` / node) share a buffer.
fn same_buffer(text: &str, a: (&str, u32), b: (&str, u32)) -> bool {
    let m = Module::parse(text).unwrap();
    let d = Dataflow::new(&m);
    let at = |(n, node): (&str, u32)| d.buffer_at(d.find(n).unwrap(), node).unwrap();
    at(a) == at(b)
}

const ASYNC: &str = r#"HloModule m, is_scheduled=true
%slice_computation (p0: f32[8,128], p1: s32[]) -> f32[1,128] {
  %p0 = f32[8,128]{1,0} parameter(0)
  %p1 = s32[] parameter(1)
  %z = s32[] constant(0)
  ROOT %ds = f32[1,128]{1,0} dynamic-slice(%p0, %p1, %z), dynamic_slice_sizes={1,128}
}
ENTRY %e (x: f32[8,128], i: s32[]) -> (f32[8,128], f32[1,128]) {
  %x = f32[8,128]{1,0} parameter(0)
  %i = s32[] parameter(1)
  %copy-start = (f32[8,128]{1,0:S(1)}, f32[8,128]{1,0}, u32[]{:S(2)}) copy-start(%x)
  %copy-done = f32[8,128]{1,0:S(1)} copy-done(%copy-start)
  %slice-start = ((f32[8,128]{1,0}, s32[]), f32[1,128]{1,0}, u32[]{:S(2)}) async-start(%x, %i), calls=%slice_computation
  %slice-done = f32[1,128]{1,0} async-done(%slice-start)
  %n = f32[8,128]{1,0} negate(%copy-done)
  ROOT %t = (f32[8,128]{1,0}, f32[1,128]{1,0}) tuple(%n, %slice-done)
}
"#;

#[test]
fn async_pairs_define_their_destinations_once() {
    let v = values_of(ASYNC);
    assert_eq!(
        v,
        [
            // The wrapped computation's values are the async op's output.
            "z",
            "ds",
            "x",
            "i",
            "copy-start{}",
            "copy-start{0}",
            "copy-start{2}",
            "slice-start{}",
            "slice-start{0}",
            "slice-start{2}",
            "n",
            "t{}",
        ]
    );
    // copy-done is copy-start{0}; copy-start{1} is x.
    assert!(same_buffer(ASYNC, ("copy-done", 0), ("copy-start", 1)));
    assert!(same_buffer(ASYNC, ("copy-start", 2), ("x", 0)));
    // slice-start{0,0} is x, {0,1} is i; {1} and slice-done are ds.
    assert!(same_buffer(ASYNC, ("slice-start", 2), ("x", 0)));
    assert!(same_buffer(ASYNC, ("slice-start", 3), ("i", 0)));
    assert!(same_buffer(ASYNC, ("slice-start", 4), ("ds", 0)));
    assert!(same_buffer(ASYNC, ("slice-done", 0), ("ds", 0)));
    // The wrapped computation's parameters are the operands.
    assert!(same_buffer(ASYNC, ("p0", 0), ("x", 0)));
    assert!(!same_buffer(ASYNC, ("copy-done", 0), ("x", 0)));
}

const LOOP: &str = r#"HloModule m, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias) }
%body (s: (s32[], f32[4])) -> (s32[], f32[4]) {
  %s = (s32[], f32[4]{0}) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %one = s32[] constant(1)
  %i1 = s32[] add(%i, %one)
  %v = f32[4]{0} get-tuple-element(%s), index=1
  %v1 = f32[4]{0} negate(%v)
  ROOT %r = (s32[], f32[4]{0}) tuple(%i1, %v1)
}
%cond (s: (s32[], f32[4])) -> pred[] {
  %s = (s32[], f32[4]{0}) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %n = s32[] constant(10)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  %zero = f32[] constant(0)
  ROOT %sum = f32[] add(%a, %b)
}
ENTRY %e (x: f32[4], y: f32[4]) -> (f32[4], f32[]) {
  %x = f32[4]{0} parameter(0)
  %y = f32[4]{0} parameter(1)
  %c0 = s32[] constant(0)
  %init = (s32[], f32[4]{0}) tuple(%c0, %y)
  %w = (s32[], f32[4]{0}) while(%init), condition=%cond, body=%body
  %out = f32[4]{0} get-tuple-element(%w), index=1
  %z = f32[] constant(0)
  %red = f32[] reduce(%out, %z), dimensions={0}, to_apply=%add
  %upd = f32[4]{0} add(%x, %out)
  %b = f32[2,2]{1,0} bitcast(%upd)
  %ob = f32[2,2]{1,0} opt-barrier(%b)
  %back = f32[4]{0} bitcast(%ob)
  ROOT %t = (f32[4]{0}, f32[]) tuple(%back, %red)
}
"#;

#[test]
fn loops_reducers_and_forwarders() {
    let m = Module::parse(LOOP).unwrap();
    let d = Dataflow::new(&m);
    // The reducer is embedded: no values, but its constant is allocated.
    assert_eq!(d.context(2), CallContext::Embedded);
    let constants: Vec<&str> = d
        .embedded_constants()
        .iter()
        .map(|&i| d.instruction(i).unwrap().1.name())
        .collect();
    assert_eq!(constants, ["zero"]);
    assert_eq!(
        values_of(LOOP),
        [
            "one", "i1", "v1", "r{}", "n", "lt", "x", "y", "c0", "init{}", "z", "red", "upd", "t{}"
        ]
    );
    // The loop's state is one buffer per element: the initial value, the
    // body's parameter and root, the condition's parameter and the result.
    for (a, b) in [
        (("y", 0), ("w", 2)),
        (("v1", 0), ("w", 2)),
        (("body/s", 2), ("w", 2)),
        (("i1", 0), ("c0", 0)),
        (("out", 0), ("y", 0)),
        (("init", 0), ("r", 0)),
    ] {
        assert!(same_buffer(LOOP, a, b), "{a:?} {b:?}");
    }
    assert!(same_buffer(LOOP, ("cond/s", 1), ("w", 1)));
    // Bitcasts and barriers forward.
    assert!(same_buffer(LOOP, ("back", 0), ("upd", 0)));
    // The donated parameter x becomes output {0}: one buffer with upd.
    assert!(same_buffer(LOOP, ("x", 0), ("upd", 0)));
    assert!(!same_buffer(LOOP, ("x", 0), ("y", 0)));
    // The schedule: condition, then body, before the loop.
    let order: Vec<&str> = d
        .schedule()
        .iter()
        .map(|&i| d.instruction(i).unwrap().1.name())
        .collect();
    let at = |n: &str| order.iter().position(|x| *x == n).unwrap();
    assert!(at("init") < at("lt") && at("lt") < at("r") && at("r") < at("w"));
    assert!(!order.contains(&"sum")); // reducers are not scheduled
    assert_eq!(order.len(), 4 + 7 + 13);
}

const CONTROL: &str = r#"HloModule m
%a (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  ROOT %n = f32[4]{0} negate(%p)
}
%b (p: f32[4]) -> f32[4] {
  ROOT %p = f32[4]{0} parameter(0)
}
%f (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  ROOT %e = f32[4]{0} exponential(%p)
}
%fused (p0: f32[4], p1: f32[1], p2: s32[]) -> f32[4] {
  %p0 = f32[4]{0} parameter(0)
  %p1 = f32[1]{0} parameter(1)
  %p2 = s32[] parameter(2)
  ROOT %dus = f32[4]{0} dynamic-update-slice(%p0, %p1, %p2)
}
ENTRY %e (i: s32[], x: f32[4], y: f32[4], u: f32[1]) -> f32[4] {
  %i = s32[] parameter(0)
  %x = f32[4]{0} parameter(1)
  %y = f32[4]{0} parameter(2)
  %u = f32[1]{0} parameter(3)
  %c = f32[4]{0} conditional(%i, %x, %y), branch_computations={%a, %b}
  %k = f32[4]{0} call(%c), to_apply=%f
  %cp = f32[4]{0} copy(%k)
  %in = f32[4]{0} fusion(%cp, %u, %i), kind=kLoop, calls=%fused
  %cc = f32[4]{0} custom-call(%in), custom_call_target="t", output_to_operand_aliasing={{}: (0, {})}
  ROOT %d = f32[4]{0} dynamic-update-slice(%cc, %u, %i)
}
"#;

#[test]
fn conditionals_calls_and_in_place_operations() {
    let v = values_of(CONTROL);
    // Branch b's root is its parameter: it defines nothing.
    assert_eq!(v, ["n", "e", "i", "x", "y", "u", "cp", "in", "cc", "d"]);
    // A conditional's result is every branch root's buffer.
    assert!(same_buffer(CONTROL, ("c", 0), ("n", 0)));
    assert!(same_buffer(CONTROL, ("c", 0), ("y", 0)));
    assert!(same_buffer(CONTROL, ("a/p", 0), ("x", 0)));
    // A call's result is its root's; its parameter is its operand.
    assert!(same_buffer(CONTROL, ("k", 0), ("e", 0)));
    assert!(same_buffer(CONTROL, ("f/p", 0), ("c", 0)));
    // copy defines a new buffer.
    assert!(!same_buffer(CONTROL, ("cp", 0), ("k", 0)));
    // In place: a fusion updating its parameter 0, a custom-call with
    // output_to_operand_aliasing, a dynamic-update-slice.
    assert!(same_buffer(CONTROL, ("in", 0), ("cp", 0)));
    assert!(same_buffer(CONTROL, ("cc", 0), ("cp", 0)));
    assert!(same_buffer(CONTROL, ("d", 0), ("cp", 0)));
}

const COLLECTIVES: &str = r#"HloModule m
ENTRY %e (x: f32[4], y: f32[4]) -> f32[8] {
  %x = f32[4]{0} parameter(0)
  %y = f32[4]{0} parameter(1)
  %ags = (f32[4]{0}, f32[8]{0}) all-gather-start(%x), dimensions={0}
  %agd = f32[8]{0} all-gather-done(%ags)
  %cps = (f32[4]{0}, f32[4]{0}, u32[], u32[]) collective-permute-start(%y), source_target_pairs={{0,1}}
  %cpd = f32[4]{0} collective-permute-done(%cps)
  %ars = f32[4]{0} all-reduce-start(%cpd), to_apply=%add
  %ard = f32[4]{0} all-reduce-done(%ars)
  %tok = token[] after-all()
  %snd = (f32[4]{0}, u32[], token[]) send(%ard, %tok), channel_id=1
  %sd = token[] send-done(%snd), channel_id=1
  %rcv = (f32[4]{0}, u32[], token[]) recv(%tok), channel_id=2
  %rd = (f32[4]{0}, token[]) recv-done(%rcv), channel_id=2
  ROOT %r = f32[8]{0} add(%agd, %agd)
}
"#;

#[test]
fn collectives_send_and_recv() {
    assert_eq!(
        values_of(COLLECTIVES),
        [
            "x", "y", "ags{}", "ags{1}", "cps{}", "cps{1}", "cps{2}", "cps{3}", "ars", "tok",
            "snd{}", "snd{1}", "snd{2}", "sd", "rcv{}", "rcv{0}", "rcv{1}", "rcv{2}", "rd{}",
            "rd{1}", "r"
        ]
    );
    assert!(same_buffer(COLLECTIVES, ("ags", 1), ("x", 0)));
    assert!(same_buffer(COLLECTIVES, ("agd", 0), ("ags", 2)));
    assert!(same_buffer(COLLECTIVES, ("cps", 1), ("y", 0)));
    assert!(same_buffer(COLLECTIVES, ("cpd", 0), ("cps", 2)));
    assert!(same_buffer(COLLECTIVES, ("ard", 0), ("ars", 0)));
    assert!(same_buffer(COLLECTIVES, ("snd", 1), ("ard", 0)));
    assert!(same_buffer(COLLECTIVES, ("rd", 1), ("rcv", 1)));
}

#[test]
fn anything_reads_without_panicking() {
    // Broken references, cycles, wrong indices, missing shapes.
    for text in [
        "ENTRY e {\n ROOT t = (f32[], f32[]) get-tuple-element(nothing), index=9\n}",
        "c {\n ROOT x = f32[] call(), to_apply=c\n}\nENTRY e {\n ROOT y = f32[] call(), to_apply=c\n}",
        "ENTRY e {\n a = f32[2]{0} parameter(0)\n ROOT w = f32[2]{0} while(a), condition=e, body=e\n}",
        "ENTRY e {\n p = (f32[2]{0}) parameter(0)\n ROOT b = f32[2]{0} bitcast(p)\n}",
        "ENTRY e {\n p = f32[2]{0} parameter(0)\n ROOT s = ((f32[2]{0}), f32[2]{0}, u32[]) async-start(p, p, p), calls=e\n}",
        "ENTRY e {\n ROOT c = copy-done(x)\n}",
        "",
    ] {
        let (m, _) = Module::parse_lenient(text);
        let d = Dataflow::new(&m);
        let _ = (d.values().len(), d.schedule().len(), d.buffer_count());
        for v in d.values() {
            let _ = (d.value_name(*v), d.buffer_of(*v));
        }
    }
}

#[test]
fn the_rule_function_follows_the_table() {
    use xla_layout_hlo::dataflow::{RULES, Rule, rule};
    for &(opcode, r) in RULES {
        assert_eq!(rule(opcode), r, "{opcode}");
    }
    assert_eq!(rule("fusion"), Rule::Defines);
    assert_eq!(rule("send-done"), Rule::Defines);
}

/// A tuple element found by its index, at every depth of a nested tuple
/// (each tuple's children are looked up directly, not by walking their
/// earlier siblings): each `get-tuple-element` is the parameter's node
/// at its index, and the root tuple's elements are its operands'.
#[test]
fn nested_tuple_elements_are_found_by_index() {
    let text = r#"ENTRY e {
  p = ((f32[2]{0}, (s32[], u8[4]{0})), f32[3]{0}, (pred[], s8[5]{0})) parameter(0)
  g0 = (f32[2]{0}, (s32[], u8[4]{0})) get-tuple-element(p), index=0
  g01 = (s32[], u8[4]{0}) get-tuple-element(g0), index=1
  g011 = u8[4]{0} get-tuple-element(g01), index=1
  g1 = f32[3]{0} get-tuple-element(p), index=1
  g2 = (pred[], s8[5]{0}) get-tuple-element(p), index=2
  g21 = s8[5]{0} get-tuple-element(g2), index=1
  ROOT t = (s8[5]{0}, u8[4]{0}, f32[3]{0}) tuple(g21, g011, g1)
}"#;
    let m = Module::parse(text).unwrap();
    let d = Dataflow::new(&m);
    let p = d.find("p").unwrap();
    // The parameter's node at `index`, found from the nodes' own indices.
    let node_of = |index: &[u32]| {
        let nodes = d.nodes(p);
        let k = nodes.iter().position(|n| d.index_of(n) == index).unwrap();
        d.buffer_at(p, k as u32).unwrap()
    };
    let at = |name: &str, node: u32| d.buffer_at(d.find(name).unwrap(), node).unwrap();
    assert_eq!(at("g011", 0), node_of(&[0, 1, 1]));
    assert_eq!(at("g01", 1), node_of(&[0, 1, 0]));
    assert_eq!(at("g1", 0), node_of(&[1]));
    assert_eq!(at("g21", 0), node_of(&[2, 1]));
    assert_eq!(at("t", 1), node_of(&[2, 1]));
    assert_eq!(at("t", 2), node_of(&[0, 1, 1]));
    assert_eq!(at("t", 3), node_of(&[1]));
    assert_ne!(node_of(&[2, 0]), node_of(&[2, 1]));
}

/// `callers` is the inverse of `callees` on every dump: each instruction
/// is among the callers of each computation it calls, once, and calls
/// every computation it is a caller of; every computation but the entry
/// of a dump is called by something.
#[test]
fn callers_invert_callees_on_every_dump() {
    for (name, text, _) in fixtures() {
        let m = Module::parse(&text).unwrap();
        let d = Dataflow::new(&m);
        let entry = m.entry_index();
        for k in 0..m.computations().len() {
            let callers: Vec<u32> = d.callers(k).collect();
            let mut unique = callers.clone();
            unique.dedup();
            assert_eq!(unique, callers, "{name}: computation {k}");
            for &id in &callers {
                assert!(d.callees(id).any(|c| c == k), "{name}");
            }
            if Some(k) != entry {
                assert!(
                    !callers.is_empty(),
                    "{name}: {} is called by nothing",
                    m.computations()[k].name()
                );
            }
        }
        let ids = m.instructions().count() as u32;
        for id in 0..ids {
            for k in d.callees(id) {
                assert!(d.callers(k).any(|c| c == id), "{name}");
            }
        }
    }
}

/// The streaming name check (`names::Names` over `Reader::lenient`, as
/// `scan` runs it) finds what the dataflow finds, on every dump with
/// lines repeated, dropped and cut and a callee renamed: one rule, two
/// consumers.
#[test]
fn streaming_and_whole_module_name_checks_agree() {
    use xla_layout_hlo::names::{Misnaming, Names};
    use xla_layout_hlo::{Event, Reader};
    fn streamed(text: &str) -> Vec<(u32, Misnaming<'_>)> {
        let (mut names, mut failed) = (Names::new(), 0);
        for event in Reader::lenient(text) {
            match event {
                Err(_) => failed += 1,
                Ok(Event::Computation(c)) => names.computation(c.name()),
                Ok(Event::Instruction(i)) => names.instruction(i),
                Ok(Event::EndComputation { .. }) => names.end_computation(),
                Ok(_) => {}
            }
        }
        (names.finish(failed).iter())
            .map(|m| (m.id, m.why))
            .collect()
    }
    fn whole(text: &str) -> Vec<(u32, Misnaming<'_>)> {
        let (m, _) = Module::parse_lenient(text);
        let found = Dataflow::new(&m).misnamed_by_why().collect::<Vec<_>>();
        assert_eq!(found, by_hand(&m));
        found
    }
    // XLA's rule written out here, apart from the library's (as
    // jaxlib 0.10.2's parser answers): per computation, a name used
    // before, or an operand (not a parameter's number or a constant's
    // literal) naming no instruction of it, or a computation-naming
    // attribute naming none written before this computation; the
    // dangling two only when every part read (a name may be of a part
    // that did not); a computation's first instruction when an earlier
    // computation has its name. One instruction is listed once: operand
    // first, then callee, then the repeated names.
    fn by_hand<'a>(m: &Module<'a>) -> Vec<(u32, Misnaming<'a>)> {
        let mut before: BTreeSet<&str> = BTreeSet::new();
        let mut out = Vec::new();
        let mut id = 0u32;
        for c in m.computations() {
            let names: BTreeSet<&str> = c.instructions().iter().map(|i| i.name()).collect();
            let repeated_computation = !c.name().is_empty() && before.contains(c.name());
            let mut seen = BTreeSet::new();
            for (k, i) in c.instructions().iter().enumerate() {
                let repeated = !seen.insert(i.name());
                let complete = m.unread_parts() == 0;
                let operand = (!matches!(i.opcode(), "parameter" | "constant"))
                    .then(|| {
                        i.operands()
                            .find_map(|o| o.name().filter(|n| !names.contains(n)))
                    })
                    .flatten()
                    .filter(|_| complete);
                // XLA's attributes that name computations (the opcodes
                // that have them take computations).
                let callee = i
                    .attributes()
                    .filter(|a| {
                        [
                            "to_apply",
                            "calls",
                            "body",
                            "condition",
                            "branch_computations",
                            "true_computation",
                            "false_computation",
                            "select",
                            "scatter",
                            "called_computations",
                            "comparator",
                        ]
                        .contains(&a.name)
                    })
                    .flat_map(|a| a.value.trim_matches(|c| c == '{' || c == '}').split(','))
                    .map(|n| n.trim().trim_start_matches('%'))
                    .find(|n| !before.contains(n))
                    .filter(|_| complete);
                let why = match (operand, callee) {
                    (Some(n), _) => Some(Misnaming::Operand(n)),
                    (None, Some(n)) => Some(Misnaming::Computation(n)),
                    (None, None) if repeated => Some(Misnaming::Repeated),
                    (None, None) => (k == 0 && repeated_computation)
                        .then_some(Misnaming::RepeatedComputation(c.name())),
                };
                out.extend(why.map(|w| (id, w)));
                id += 1;
            }
            if !c.name().is_empty() {
                before.insert(c.name());
            }
        }
        out
    }
    let mut found_any = [0usize; 3];
    for (name, text, _) in fixtures() {
        let lines: Vec<&str> = text.lines().collect();
        // Damage at a few places per dump, each kind alone.
        for at in (lines.len() / 7..lines.len()).step_by(lines.len() / 5 + 1) {
            let mut variants = Vec::new();
            let mut dup = lines.clone();
            dup.insert(at, lines[at]);
            variants.push(dup.join("\n"));
            let mut dropped = lines.clone();
            dropped.remove(at);
            variants.push(dropped.join("\n"));
            let mut cut = lines.clone();
            let half = &lines[at][..lines[at].len() / 2];
            cut[at] = half;
            variants.push(cut.join("\n"));
            for t in variants {
                let (s, w) = (streamed(&t), whole(&t));
                assert_eq!(s, w, "{name}, line {at}");
                for (_, why) in s {
                    found_any[match why {
                        Misnaming::Operand(_) => 0,
                        Misnaming::Computation(_) => 1,
                        _ => 2,
                    }] += 1;
                }
            }
        }
        // A callee renamed: every call through it names nothing.
        for attribute in ["calls=", "to_apply=", "body="] {
            if let Some(at) = text.find(attribute) {
                let at = at + attribute.len();
                let t = format!(
                    "{}gone_{}",
                    &text[..at],
                    &text[at..].trim_start_matches('%')
                );
                let (s, w) = (streamed(&t), whole(&t));
                assert_eq!(s, w, "{name}, {attribute}");
                let gone = |(_, why): &&(u32, Misnaming)| matches!(why, Misnaming::Computation(n) if n.starts_with("gone_"));
                assert!(s.iter().any(|f| gone(&f)), "{name}, {attribute}: {s:?}");
                found_any[1] += s.iter().filter(gone).count();
            }
        }
        assert_eq!(streamed(&text), [], "{name}");
    }
    // The damage made every kind, so the comparison compared something.
    assert!(found_any.iter().all(|&n| n > 0), "{found_any:?}");
}

/// Every buffer holds a value, on every dump with a line dropped: a
/// position that forwards an operand that did not read is in no buffer
/// (it was a buffer of its own, and the report said "11 values in 12
/// buffers").
#[test]
fn every_buffer_holds_a_value_when_lines_are_lost() {
    let mut dropped_some = 0;
    for (name, text, _) in fixtures() {
        let lines: Vec<&str> = text.lines().collect();
        for at in (lines.len() / 9..lines.len()).step_by(lines.len() / 7 + 1) {
            let mut v = lines.clone();
            v.remove(at);
            let t = v.join("\n");
            let (m, _) = Module::parse_lenient(&t);
            let d = Dataflow::new(&m);
            for b in 0..d.buffer_count() {
                assert!(
                    !d.buffer_values(b).is_empty(),
                    "{name}, line {at}: buffer {b}"
                );
            }
            dropped_some += 1;
        }
    }
    assert!(dropped_some > 100);
    let m = Module::parse("ENTRY e {\n p = f32[2]{0} parameter(0)\n b = f32[2]{0} bitcast(gone)\n ROOT t = (f32[2]{0}, f32[2]{0}) tuple(p, b)\n}").unwrap();
    let d = Dataflow::new(&m);
    assert_eq!(d.buffer_at(d.find("b").unwrap(), 0), None);
    assert_eq!(d.buffer_count(), 2); // p, and t's table
}

/// A bitcast between tuples of different structures joins each of its
/// positions whose index the operand has too with the operand's there
/// (found by the index, independently of how the dataflow walks), on
/// random pairs of nested structures; and a deep pair is linear (each
/// node's index looked up from the top took 21 s on 1 MB).
#[test]
fn bitcasts_between_tuple_structures_join_by_index() {
    // A random nested tuple of arrays, as text.
    fn shape(seed: &mut u64, depth: u32) -> String {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let r = (*seed >> 33) % 4;
        if depth == 0 || r == 0 {
            return "f32[2]{0}".into();
        }
        let n = 1 + (*seed >> 40) % 3;
        let parts: Vec<String> = (0..n).map(|_| shape(seed, depth - 1)).collect();
        format!("({})", parts.join(", "))
    }
    let mut seed = 7u64;
    let mut joined = 0;
    for _ in 0..300 {
        let (a, b) = (shape(&mut seed, 4), shape(&mut seed, 4));
        let text = format!("ENTRY e {{\n p = {a} parameter(0)\n ROOT c = {b} bitcast(p)\n}}");
        let m = Module::parse(&text).unwrap();
        let d = Dataflow::new(&m);
        let (p, c) = (d.find("p").unwrap(), d.find("c").unwrap());
        for (k, n) in d.nodes(c).iter().enumerate() {
            let index = d.index_of(n);
            if let Some(o) = d.node_at_index(p, &index) {
                assert_eq!(
                    d.buffer_at(c, k as u32),
                    d.buffer_at(p, o),
                    "{text}: {index:?}"
                );
                joined += 1;
            }
        }
    }
    assert!(joined > 600, "{joined}");
    // Deep: two chains of 3,000 nested tuples that differ at the bottom.
    let deep = |leaf: &str| format!("{}{leaf}{}", "(".repeat(3000), ")".repeat(3000));
    let text = format!(
        "ENTRY e {{\n p = {} parameter(0)\n ROOT c = {} bitcast(p)\n}}",
        deep("f32[2]{0}"),
        deep("(f32[2]{0}, f32[2]{0})")
    );
    let m = Module::parse(&text).unwrap();
    let d = Dataflow::new(&m);
    let (p, c) = (d.find("p").unwrap(), d.find("c").unwrap());
    // The same index down to the bottom; below it, c's elements are its own.
    assert_eq!(d.buffer_at(c, 3000), d.buffer_at(p, 3000));
    assert_eq!(d.node_at_index(p, &[0; 3001]), None);
    assert_ne!(d.buffer_at(c, 3001), d.buffer_at(p, 3000));
}
