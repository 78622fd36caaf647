//! Offsets over every index of a layout: the `layout!` function, the same
//! expression written by hand, and layout-core interpreting the layout at
//! run time (`TiledShape::offset`).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use xla_layout::{TiledShape, layout};

layout! {
    type RowMajor = f32[64,256]{1,0};
    type TpuBf16 = bf16[64,256]{1,0:T(8,128)(2,1)};
    type ThreeLevels = bf16[16384]{0:T(1024)(128)(2,1)};
}

fn runtime(text: &str) -> TiledShape {
    xla_layout::ArrayShape::parse_validated(text)
        .unwrap()
        .tiled()
        .unwrap()
}

fn sum_2d(rows: usize, cols: usize, f: impl Fn(usize, usize) -> usize) -> usize {
    let mut s = 0usize;
    for i in 0..rows {
        for j in 0..cols {
            s = s.wrapping_add(f(black_box(i), black_box(j)));
        }
    }
    s
}

fn offsets(c: &mut Criterion) {
    let mut g = c.benchmark_group("offsets");
    g.throughput(Throughput::Elements(64 * 256));
    g.bench_function("row_major/layout!", |b| {
        b.iter(|| sum_2d(64, 256, |i, j| RowMajor.offset([i, j])))
    });
    g.bench_function("row_major/hand", |b| {
        b.iter(|| sum_2d(64, 256, |i, j| i * 256 + j))
    });
    let t = runtime(RowMajor::TEXT);
    g.bench_function("row_major/runtime", |b| {
        b.iter(|| {
            sum_2d(64, 256, |i, j| {
                t.offset(&[i as u64, j as u64]).unwrap() as usize
            })
        })
    });
    g.bench_function("tpu_bf16/layout!", |b| {
        b.iter(|| sum_2d(64, 256, |i, j| TpuBf16.offset([i, j])))
    });
    g.bench_function("tpu_bf16/hand", |b| {
        b.iter(|| {
            sum_2d(64, 256, |i, j| {
                ((i >> 3) << 11)
                    + ((j >> 7) << 10)
                    + (((i & 7) >> 1) << 8)
                    + ((j & 127) << 1)
                    + (i & 1)
            })
        })
    });
    let t = runtime(TpuBf16::TEXT);
    g.bench_function("tpu_bf16/runtime", |b| {
        b.iter(|| {
            sum_2d(64, 256, |i, j| {
                t.offset(&[i as u64, j as u64]).unwrap() as usize
            })
        })
    });
    g.throughput(Throughput::Elements(16384));
    g.bench_function("three_levels/layout!", |b| {
        b.iter(|| sum_2d(1, 16384, |_, i| ThreeLevels.offset([i])))
    });
    g.bench_function("three_levels/hand", |b| {
        b.iter(|| {
            sum_2d(1, 16384, |_, i| {
                (i / 1024) * 1024 + ((i % 1024) / 256) * 256 + (i % 128) * 2 + (i / 128) % 2
            })
        })
    });
    let t = runtime(ThreeLevels::TEXT);
    g.bench_function("three_levels/runtime", |b| {
        b.iter(|| sum_2d(1, 16384, |_, i| t.offset(&[i as u64]).unwrap() as usize))
    });
    g.finish();
}

criterion_group!(benches, offsets);
criterion_main!(benches);
