//! Parser throughput on a large input of shape text as XLA prints it.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use xla_layout::text::parse_shape;

/// One line per shape, of the kinds real dumps are full of.
fn corpus() -> Vec<String> {
    let shapes = [
        "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}",
        "f32[128,256]{1,0:T(8,128)}",
        "bf16[32,32,4096]{2,1,0:T(8,128)(2,1)S(1)}",
        "s32[]",
        "(f32[16,128]{1,0:T(8,128)}, s32[], bf16[4,8192]{1,0:T(4,128)(2,1)})",
        "pred[1024]{0:T(1024)}",
        "u8[64,1024]{1,0:T(8,128)(4,1)S(1)}",
        "f32[<=1024,768]{1,0:T(8,128)}",
    ];
    (0..100_000)
        .map(|i| shapes[i % shapes.len()].to_string())
        .collect()
}

fn parse(c: &mut Criterion) {
    let lines = corpus();
    let bytes: usize = lines.iter().map(String::len).sum();
    let mut g = c.benchmark_group("parse");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.sample_size(20);
    g.bench_function("shapes", |b| {
        b.iter(|| {
            lines
                .iter()
                .filter(|l| parse_shape(l.as_bytes()).is_ok())
                .count()
        })
    });
    g.finish();
}

criterion_group!(benches, parse);
criterion_main!(benches);
