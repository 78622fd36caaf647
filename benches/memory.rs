//! `xla-layout memory` throughput: the memory report of a large TPU module
//! built from tests/data/dumps/tpu_train_step.hlo (a real 496 KB dump:
//! a 2-layer transformer train step with loops, async copies and
//! collectives), its computations copied until the text is about 64 MB:
//! copy `k` renames every `%name` to `%c{k}.name`, and the entry
//! computations are merged into one (parameters renumbered, one ROOT), so
//! that every copy is called and scheduled. Phases measured apart: reading
//! the module, the dataflow (values, buffers, schedule), and the whole
//! report (sizes, liveness, peak) from the text; and, apart, reading
//! XLA's buffer-assignment text (the fixture's, repeated to 32 MB); the
//! report of a module whose result is a tuple of 100,000 arrays; of one
//! whose entry is a chain of 100,000 instructions under its
//! `entry_computation_layout`; of 20,000 memory spaces (a buffer
//! assignment's colors); and of 16 calls of a fusion with 20,000 in-place
//! updates.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use xla_layout::hlo::dataflow::Dataflow;
use xla_layout::hlo::memory::{Options, Order, Report};
use xla_layout::hlo::{BufferAssignment, Module};

const DUMP: &str = include_str!("../tests/data/dumps/tpu_train_step.hlo");
const ASSIGNMENT: &str = include_str!("../tests/data/dumps/tpu_train_step.buffer-assignment.txt");

/// The dump's computations copied until the text holds about `bytes`.
fn big_module(bytes: usize) -> String {
    let start = DUMP.find("\n%").expect("the dump has computations");
    let (header, rest) = DUMP.split_at(start);
    let entry = rest.find("\nENTRY ").expect("the dump has an entry");
    let (computations, entry) = rest.split_at(entry);
    let lines: Vec<&str> = entry.trim_matches('\n').lines().collect();
    let (entry_header, body) = (lines[0], &lines[1..lines.len() - 1]);
    let params = body.iter().filter(|l| l.contains(" parameter(")).count();
    let copies = (bytes / rest.len()).max(1);
    let mut text = String::with_capacity(bytes + rest.len());
    text.push_str(header);
    let mut merged = String::new();
    for k in 0..copies {
        let prefix = format!("%c{k}.");
        text.push_str(&computations.replace('%', &prefix));
        for line in body {
            let mut line = line.replace('%', &prefix);
            if k + 1 < copies {
                line = line.replacen("ROOT ", "", 1);
            }
            if let Some(at) = line.find(" parameter(") {
                let open = at + " parameter(".len();
                let close = open + line[open..].find(')').expect("parameter(N)");
                let n: usize = line[open..close].parse().expect("a parameter number");
                line.replace_range(open..close, &(n + k * params).to_string());
            }
            merged.push_str(&line);
            merged.push('\n');
        }
    }
    text.push('\n');
    text.push_str(&entry_header.replace('%', &format!("%c{}.", copies - 1)));
    text.push('\n');
    text.push_str(&merged);
    text.push_str("}\n");
    text
}

/// An entry that negates a parameter `n` times and returns the `n`
/// results as one tuple.
fn wide_tuple(n: usize) -> String {
    let shapes = vec!["f32[8]{0}"; n].join(", ");
    let mut text = format!("HloModule wide\n\nENTRY %main (p: f32[8]) -> ({shapes}) {{\n");
    text.push_str("  %p = f32[8]{0} parameter(0)\n");
    for k in 0..n {
        text.push_str(&format!("  %n{k} = f32[8]{{0}} negate(%p)\n"));
    }
    let operands: Vec<String> = (0..n).map(|k| format!("%n{k}")).collect();
    text.push_str(&format!(
        "  ROOT %t = ({shapes}) tuple({})\n}}\n",
        operands.join(", ")
    ));
    text
}

/// An entry with a parameter per entry of `widths`, each a tuple of that
/// many arrays of sizes 1 to 2,000 (a fixed sequence), and an array
/// parameter for its result.
fn wide_parameter(widths: &[usize]) -> String {
    let mut text = String::from("HloModule wide\n\nENTRY %main {\n");
    let mut size = 7usize;
    for (p, &n) in widths.iter().enumerate() {
        let shapes: Vec<String> = (0..n)
            .map(|_| {
                size = (size * 1103 + 12345) % 2000;
                format!("f32[{}]{{0:T(128)}}", size + 1)
            })
            .collect();
        text.push_str(&format!(
            "  %p{p} = ({}) parameter({p})\n",
            shapes.join(", ")
        ));
    }
    text.push_str(&format!(
        "  ROOT %g = f32[8]{{0:T(128)}} parameter({})\n}}\n",
        widths.len()
    ));
    text
}

/// An entry with its signature that adds a parameter to itself `n`
/// times in a chain: one computation of `n + 2` instructions.
fn long_entry(n: usize) -> String {
    let mut text = String::from(
        "HloModule long, entry_computation_layout={(f32[8]{0})->f32[8]{0}}\n\nENTRY %main {\n",
    );
    text.push_str("  %a0 = f32[8]{0} parameter(0)\n");
    for k in 1..=n {
        text.push_str(&format!("  %a{k} = f32[8]{{0}} add(%a{}, %a0)\n", k - 1));
    }
    text.push_str(&format!("  ROOT %r = f32[8]{{0}} copy(%a{n})\n}}\n"));
    text
}

/// A chain of `n` negates whose buffer assignment puts each in a memory
/// space of its own (`color k`): `n` spaces over `n` steps.
fn many_spaces(n: usize) -> (String, String) {
    let mut text = String::from("HloModule spaces\n\nENTRY %e {\n  %p = f32[4]{0} parameter(0)\n");
    let mut ba = String::from(
        "BufferAssignment:\nallocation 0: size 16, parameter 0, shape |f32[4]| at ShapeIndex {}:\n \
         value: <0 p @0> (size=16,offset=0): f32[4]{0}\n",
    );
    let mut prev = String::from("%p");
    for k in 0..n {
        text.push_str(&format!("  %n{k} = f32[4]{{0}} negate({prev})\n"));
        prev = format!("%n{k}");
        let color = k + 1;
        ba.push_str(&format!(
            "allocation {color}: size 16, color {color}:\n value: <{color} n{k} @{color}> (size=16,offset=0): f32[4]{{0}}\n"
        ));
    }
    text.push_str(&format!("  ROOT %r = f32[4]{{0}} negate({prev})\n}}\n"));
    (text, ba)
}

/// `calls` fusions of one body that updates its parameter in place `n`
/// times and returns the `n` results as a tuple.
fn fusion_calls(n: usize, calls: usize) -> String {
    let shapes = vec!["f32[4]{0}"; n].join(", ");
    let mut text = String::from("HloModule fusions\n\n%body {\n  %p0 = f32[4]{0} parameter(0)\n");
    for k in 0..n {
        text.push_str(&format!(
            "  %u{k} = f32[4]{{0}} dynamic-update-slice(%p0, %p0, %p0)\n"
        ));
    }
    let results: Vec<String> = (0..n).map(|k| format!("%u{k}")).collect();
    text.push_str(&format!(
        "  ROOT %t = ({shapes}) tuple({})\n}}\n\nENTRY %e {{\n  %p = f32[4]{{0}} parameter(0)\n",
        results.join(", ")
    ));
    for j in 0..calls {
        text.push_str(&format!(
            "  %f{j} = ({shapes}) fusion(%p), kind=kLoop, calls=%body\n"
        ));
    }
    text.push_str("  ROOT %r = f32[4]{0} negate(%p)\n}\n");
    text
}

fn memory(c: &mut Criterion) {
    let text = big_module(64 << 20);
    let module = Module::parse(&text).unwrap();
    let mut g = c.benchmark_group("memory");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("parse", |b| {
        b.iter(|| Module::parse(&text).unwrap().computations().len())
    });
    g.bench_function("dataflow", |b| {
        b.iter(|| Dataflow::new(&module).values().len())
    });
    g.bench_function("report/from-module", |b| {
        b.iter(|| Report::new(&module, &Options::default()).rows.len())
    });
    g.bench_function("report/from-text", |b| {
        b.iter(|| {
            let m = Module::parse(&text).unwrap();
            Report::new(&m, &Options::default()).rows.len()
        })
    });
    // A tuple of 100,000 arrays, each element looked up once by the
    // dataflow: linear since tuples' children are indexed (a child's
    // lookup walked its earlier siblings: 11 s here before).
    let wide = wide_tuple(100_000);
    let wide_module = Module::parse(&wide).unwrap();
    g.throughput(Throughput::Bytes(wide.len() as u64));
    g.bench_function("report/wide-tuple", |b| {
        b.iter(|| Report::new(&wide_module, &Options::default()).rows.len())
    });
    // Every row's details (names, shape text, padding reasons) of a
    // parameter that is a tuple of 20,000 arrays: each instruction's text
    // read once for all its rows (row by row, each read the whole tuple:
    // 59 s in `memory --json --top 0` before).
    let wide_param = wide_parameter(&[20_000]);
    let wide_param_module = Module::parse(&wide_param).unwrap();
    let wide_param_report = Report::new(&wide_param_module, &Options::default());
    let all: Vec<usize> = (0..wide_param_report.rows.len()).collect();
    g.throughput(Throughput::Bytes(wide_param.len() as u64));
    g.bench_function("report/wide-parameter-details", |b| {
        b.iter(|| wide_param_report.details_of(&all).count())
    });
    // Forty such tuples of 5,000 arrays of varied sizes, rows in the
    // order the report lists them (by bytes), so each run of rows mixes
    // every tuple: read in batches of rows, each batch read every tuple's
    // text (800,000 rows took 27 s in the CLI).
    let interleaved = wide_parameter(&[5_000; 40]);
    let interleaved_module = Module::parse(&interleaved).unwrap();
    let interleaved_report = Report::new(&interleaved_module, &Options::default());
    let by_bytes = interleaved_report.sorted(Order::Bytes);
    g.throughput(Throughput::Bytes(interleaved.len() as u64));
    g.bench_function("report/interleaved-details", |b| {
        b.iter(|| interleaved_report.details_of(&by_bytes).count())
    });
    // 2,000 arrays, all at once and row by row (`details`, which reads
    // the text per row: quadratic), for the ratio.
    let narrow = wide_parameter(&[2_000]);
    let narrow_module = Module::parse(&narrow).unwrap();
    let narrow_report = Report::new(&narrow_module, &Options::default());
    let narrow_all: Vec<usize> = (0..narrow_report.rows.len()).collect();
    g.throughput(Throughput::Bytes(narrow.len() as u64));
    g.bench_function("report/wide-parameter-details-2000", |b| {
        b.iter(|| narrow_report.details_of(&narrow_all).count())
    });
    g.bench_function("report/wide-parameter-details-2000-one-by-one", |b| {
        b.iter(|| {
            (narrow_report.rows.iter())
                .map(|r| narrow_report.details(r).shape.len())
                .sum::<usize>()
        })
    });
    // One computation of 100,000 instructions whose parameters and root
    // are checked against the signature: linear since its root is found
    // once (it was looked for per instruction: 23 s for 80,000 in the
    // CLI before).
    let long = long_entry(100_000);
    let long_module = Module::parse(&long).unwrap();
    g.throughput(Throughput::Bytes(long.len() as u64));
    g.bench_function("report/long-entry", |b| {
        b.iter(|| Report::new(&long_module, &Options::default()).rows.len())
    });
    // 20,000 memory spaces over 20,000 steps: the live bytes are swept
    // as events (arrays of spaces × steps took 3 GB at 10,000).
    let (spaces, spaces_ba) = many_spaces(20_000);
    let spaces_module = Module::parse(&spaces).unwrap();
    let spaces_ba = BufferAssignment::parse(&spaces_ba);
    g.throughput(Throughput::Bytes(spaces.len() as u64));
    g.bench_function("report/many-spaces", |b| {
        let options = Options {
            buffer_assignment: Some(&spaces_ba),
            ..Options::default()
        };
        b.iter(|| Report::new(&spaces_module, &options).rows.len())
    });
    // 16 calls of a fusion whose body updates its parameter 20,000 times:
    // its root's operands are followed by id (by name, each call scanned
    // the body: 0.67 s a call).
    let fusions = fusion_calls(20_000, 16);
    let fusions_module = Module::parse(&fusions).unwrap();
    g.throughput(Throughput::Bytes(fusions.len() as u64));
    g.bench_function("report/fusion-calls", |b| {
        b.iter(|| Report::new(&fusions_module, &Options::default()).rows.len())
    });
    // XLA's buffer-assignment text, repeated to 32 MB.
    let assignment = ASSIGNMENT.repeat((32 << 20) / ASSIGNMENT.len() + 1);
    g.throughput(Throughput::Bytes(assignment.len() as u64));
    g.bench_function("buffer-assignment", |b| {
        b.iter(|| BufferAssignment::parse(&assignment).values.len())
    });
    g.finish();
}

criterion_group!(benches, memory);
criterion_main!(benches);
