//! HLO module reading throughput on a large module built from the TPU
//! dump in `examples/dumps/`: its computations repeated until the text is
//! about 32 MB (the reader does not require unique names). In the `varied`
//! module each copy has its own sizes (the dump's `1024` becomes one of 97
//! others), so shapes repeat only within a copy, as within one layer of a
//! model; in `repeated` every copy is the same, as across a model's
//! identical layers.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use xla_layout::hlo::{Event, Module, Reader};

const DUMP: &str = include_str!("../examples/dumps/train_step.tpu.hlo");

/// The dump's header and stack tables, its computations repeated (only
/// the last copy keeps `ENTRY`), copy `k` with `1024` replaced by
/// `size(k)`.
fn big_module(bytes: usize, size: impl Fn(usize) -> usize) -> String {
    let first = DUMP
        .find("\n%fused_computation")
        .expect("the dump has computations");
    let (head, body) = DUMP.split_at(first);
    let plain = body.replace("ENTRY ", "");
    let mut text = String::from(head);
    let mut k = 0;
    while text.len() + body.len() < bytes {
        text.push_str(&plain.replace("1024", &size(k).to_string()));
        k += 1;
    }
    text.push_str(body);
    text
}

/// Reads every event; every instruction's shape is parsed (or recognised
/// as parsed before): what `xla-layout scan` does.
fn read_all(text: &str) -> usize {
    let mut reader = Reader::new(text);
    let mut arrays = 0usize;
    while let Some(event) = reader.next() {
        if let Event::Instruction(_) = event.unwrap() {
            arrays += usize::from(reader.shape().and_then(|s| s.as_array()).is_some());
        }
    }
    arrays
}

fn read(c: &mut Criterion) {
    let varied = big_module(32 << 20, |k| 1024 + 128 * (k % 97 + 1));
    let repeated = big_module(32 << 20, |_| 1024);
    let mut g = c.benchmark_group("hlo");
    g.sample_size(10);
    for (name, text) in [("varied", &varied), ("repeated", &repeated)] {
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_function(format!("reader/{name}"), |b| b.iter(|| read_all(text)));
    }
    // Collected into a `Module`.
    g.throughput(Throughput::Bytes(varied.len() as u64));
    g.bench_function("module/varied", |b| {
        b.iter(|| Module::parse(&varied).unwrap().computations().len())
    });
    g.finish();
}

criterion_group!(benches, read);
criterion_main!(benches);
