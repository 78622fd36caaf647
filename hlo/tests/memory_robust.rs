//! The memory report never panics, whatever the text: real dumps cut,
//! spliced and overwritten at random, with their buffer assignments
//! likewise, read leniently and reported on (overflow checks on).

use proptest::prelude::*;
use xla_layout_hlo::memory::{Backend, Options, Order, Report};
use xla_layout_hlo::{BufferAssignment, Module, memory_space_labels};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/dumps");
const NAMES: [&str; 6] = [
    "tpu_remat_offload_scan",
    "tpu_collectives_2d",
    "tpu_donate_tuple",
    "tpu_remat_while",
    "cpu_linalg",
    "cpu_bounded_dynamic_output",
];

/// `text` with `edits` applied: each (position, length, replacement)
/// replaces a run of bytes, positions taken modulo the length.
fn mutate(text: &str, edits: &[(usize, usize, String)]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for (at, len, with) in edits {
        if bytes.is_empty() {
            break;
        }
        let at = at % bytes.len();
        let end = (at + len).min(bytes.len());
        bytes.splice(at..end, with.bytes());
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn report_everything(text: &str, assignment: &str, backend: Option<Backend>) {
    let (m, _) = Module::parse_lenient(text);
    let ba = BufferAssignment::parse(assignment);
    let labels = memory_space_labels(assignment);
    for ba in [None, Some(&ba)] {
        let r = Report::new(
            &m,
            &Options {
                backend,
                buffer_assignment: ba,
                space_labels: &labels,
                ..Options::default()
            },
        );
        let _ = r.memory_analysis.fields();
        for k in r.sorted(Order::Padding).into_iter().take(50) {
            let _ = r.details(&r.rows[k]);
        }
        let spaces: Vec<i64> = r.spaces.iter().map(|s| s.space).collect();
        let _ = r.live_bytes(&spaces);
        let _ = r.padding();
        for s in &r.spaces {
            let _ = s.total();
        }
    }
}

fn edit() -> impl Strategy<Value = (usize, usize, String)> {
    (
        any::<usize>(),
        0usize..200,
        prop_oneof![
            Just(String::new()),
            "[ -~]{0,12}",
            Just("}".to_string()),
            Just("(".to_string()),
            Just("T(8,128)".to_string()),
            Just("u8[99999999999,99999999999]".to_string()),
            Just("while(".to_string()),
            Just(", calls=%".to_string()),
            Just("{0}: (0, {}, may-alias)".to_string()),
        ],
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn mutated_dumps_never_panic(
        which in 0usize..NAMES.len(),
        edits in proptest::collection::vec(edit(), 1..8),
        assignment_edits in proptest::collection::vec(edit(), 0..4),
        tpu in any::<bool>(),
    ) {
        let name = NAMES[which];
        let text = std::fs::read_to_string(format!("{DIR}/{name}.hlo")).unwrap();
        let ba = std::fs::read_to_string(format!("{DIR}/{name}.buffer-assignment.txt")).unwrap();
        let backend = tpu.then_some(Backend::Tpu);
        report_everything(&mutate(&text, &edits), &mutate(&ba, &assignment_edits), backend);
    }
}

#[test]
fn hostile_modules_never_panic() {
    let huge = "HloModule m, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias) }\nENTRY e {\n  p = u8[9223372036854775807]{0} parameter(0)\n  q = u8[9223372036854775807]{0} parameter(1)\n  c = u8[9223372036854775807]{0} add(p, q)\n  ROOT t = (u8[9223372036854775807]{0}, u8[9223372036854775807]{0}) tuple(c, c)\n}";
    let deep: String = {
        // A chain of 2000 calls: no recursion depth limit is hit.
        let mut t = String::from(
            "HloModule m, is_scheduled=true\nc0 {\n  ROOT x = f32[] parameter(0)\n}\n",
        );
        for k in 1..2000 {
            t.push_str(&format!(
                "c{k} {{\n  p = f32[] parameter(0)\n  ROOT x = f32[] call(p), to_apply=c{}\n}}\n",
                k - 1
            ));
        }
        t.push_str(
            "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT x = f32[] call(p), to_apply=c1999\n}\n",
        );
        t
    };
    for text in [
        huge,
        deep.as_str(),
        "",
        "ENTRY e {\n}\n",
        "ENTRY e {\n ROOT t = () tuple()\n}",
        // A trial's mutation: a while whose body's header line is damaged
        // (a value with no position overflowed in the dataflow).
        "%body (p: (f32[2])) -> (f32[2]) {\n  ROOT %t = (f32[2]) tuple(%a)\n}, execution_thread=\"x\"\n%w = (f32[2]) while(%i), body=%body\nROOT %r = f32[2] copy(%x)\n",
    ] {
        for backend in [
            None,
            Some(Backend::Tpu),
            Some(Backend::Cpu),
            Some(Backend::Gpu),
        ] {
            report_everything(
                text,
                "allocation 0: size 18446744073709551615, parameter 0, maybe-live-out:\n value: <0 p @0> (size=18446744073709551615,offset=0): u8[1]",
                backend,
            );
        }
    }
}
