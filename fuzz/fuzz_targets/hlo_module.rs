//! HLO module text: the strict and lenient readers, shape inference, the
//! dataflow and the memory report (with XLA's buffer assignment read from
//! the same text). No panic, no hang: the libFuzzer timeout and memory
//! limit hold the work per input to what its size allows.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xla_layout_core::text::LineCursor;
use xla_layout_core::tpu::Generation;
use xla_layout_fuzz::Sampler;
use xla_layout_hlo::infer::Shapes;
use xla_layout_hlo::memory::{Backend, Options, Order, Report};
use xla_layout_hlo::{BufferAssignment, Module, memory_space_labels, unescape};

/// Rows whose details are computed, and instructions looked up by
/// name, per input.
const DETAILS: usize = 32;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let strict = Module::parse(text);
    let (module, errors) = Module::parse_lenient(text);
    match &strict {
        Ok(m) => {
            assert!(
                errors.is_empty(),
                "the strict reader read what the lenient one did not"
            );
            assert_eq!(m.instructions().count(), module.instructions().count());
        }
        Err(e) => {
            let _ = e.line_column(text);
            let _ = e.render(text, "fuzz.hlo");
        }
    }
    // Every error rendered, as the CLI does, through one cursor: linear
    // in the text overall. The first few as `render` gives them (which
    // counts lines from the start each time).
    let mut lines = LineCursor::new(text);
    for (k, e) in errors.iter().enumerate() {
        let shown = e.render_with(&mut lines, "fuzz.hlo");
        let at = lines.line_column(e.span.start);
        if k < DETAILS {
            assert_eq!(shown, e.render(text, "fuzz.hlo"));
            assert_eq!(at, e.line_column(text));
        }
    }
    walk(&module);
    infer(&module);
    report(text, &module);
});

/// Everything a module's items give.
fn walk(module: &Module<'_>) {
    let _ = (module.name(), module.entry());
    for a in module.attributes() {
        let _ = (a.name, a.value);
    }
    // Lookups by name and line numbers scan the module: a bounded number.
    let mut lookups = DETAILS;
    let _ = module.instruction("no such instruction");
    for c in module.computations() {
        let _ = (
            c.name(),
            c.signature(),
            c.execution_thread(),
            c.root(),
            c.span(),
        );
        for i in c.instructions() {
            let _ = (i.name(), i.opcode(), i.is_root(), i.text(), i.span());
            if let Some(Ok(shape)) = i.shape() {
                let _ = shape.to_string();
            }
            for o in i.operands() {
                let _ = (o.text(), o.shape_text(), o.name());
            }
            for a in i.attributes() {
                let _ = unescape(a.value);
            }
            let metadata = i.metadata();
            let _ = metadata.location(module.stack_index());
            if let Some(id) = metadata.stack_frame_id {
                let _ = module.stack_index().frames(id).count();
            }
            if lookups > 0 {
                lookups -= 1;
                let _ = module.instruction(i.name());
                let _ = module.instruction(&format!("{}/{}", c.name(), i.name()));
                let _ = module.line_column(i.span().start);
            }
        }
    }
}

/// Shapes written or inferred, fed the lenient module's computations in
/// text order (as they stream from the reader).
fn infer(module: &Module<'_>) {
    let mut shapes = Shapes::new();
    for c in module.computations() {
        shapes.computation(c);
        for i in c.instructions() {
            if let Some(s) = shapes.instruction(i) {
                let _ = s.text().len();
            }
            let _ = shapes.inferred(i);
        }
        shapes.end_computation();
    }
}

/// The memory report, for a backend and generation drawn from the input,
/// with the text's buffer-assignment lines (if any) as XLA's assignment.
fn report(text: &str, module: &Module<'_>) {
    let mut rng = Sampler::new(text.as_bytes());
    let backend = match rng.below(4) {
        0 => None,
        1 => Some(Backend::Tpu),
        2 => Some(Backend::Cpu),
        _ => Some(Backend::Gpu),
    };
    let generation = match rng.below(4) {
        0 => None,
        1 => Some(Generation::V4),
        2 => Some(Generation::V5e),
        _ => Some(Generation::V6e),
    };
    // The generation a dump's topology names, which may contradict it.
    let topology = match rng.below(3) {
        0 => None,
        1 => Some(Generation::V5e),
        _ => Some(Generation::V6e),
    };
    let ba = BufferAssignment::parse(text);
    let labels = memory_space_labels(text);
    let options = Options {
        backend,
        generation,
        topology,
        buffer_assignment: (!ba.allocations.is_empty() || !ba.values.is_empty()).then_some(&ba),
        space_labels: &labels,
    };
    let r = Report::new(module, &options);
    // A damaged assignment is left out (its figures are the module's);
    // the rows XLA's validator rejects are each a row of the report.
    let _ = (ba.is_whole(), r.assignment_unused, r.assignment_fits());
    let _ = r.topology_contradicted();
    for (k, e) in r.invalid_rows().iter().take(DETAILS) {
        assert!(*k < r.rows.len());
        let _ = e.to_string();
    }
    let dataflow = r.dataflow();
    let _ = (
        dataflow.values().len(),
        dataflow.schedule().len(),
        dataflow.buffer_count(),
    );
    for row in r.rows.iter().take(DETAILS) {
        let _ = r.details(row);
        let _ = row.padding_bytes();
        let _ = dataflow.value_name(row.value);
    }
    for space in &r.spaces {
        let _ = space.total();
    }
    let spaces: Vec<i64> = r.spaces.iter().map(|s| s.space).collect();
    let _ = r.live_bytes(&spaces);
    let _ = r.sorted(Order::Bytes);
    let _ = r.sorted(Order::Padding);
    let _ = r.padding();
    let _ = r.memory_analysis.fields();
}
