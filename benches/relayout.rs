//! Relayout bandwidth: the host ↔ TPU copies of the TPU's 2-D formats
//! (bf16 `(8,128)(2,1)`, s8 `(8,128)(4,1)`, f32 `(8,128)`, pred
//! `(32,128)(32,1)`) both ways, at 8192² and at 8191×8190 (every tile
//! dimension ragged, padding written), and plain transposes. Each relayout
//! sits in its group next to two copies of the same bytes (the array's
//! elements, padding not counted): `copy_from_slice` (glibc's `memcpy`)
//! and [`common::nt_copy`], a plain SSE2 loop of non-temporal stores,
//! which is this machine's single-thread copy limit; buffers start on a
//! 64-byte line (and once 16 bytes into one). `threads` runs the relayout
//! and the non-temporal copy on one thread and on two (the `rayon`
//! feature). `benches/table.py` turns a run into the tables of
//! BENCHMARKS.md; `benches/ratios.rs` measures the same ratios with the
//! copies interleaved.

use std::hint::black_box;

use criterion::{
    BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main, measurement::WallTime,
};
use ndarray::{Array2, ArrayView, IxDyn};
use xla_layout::{DynView, DynViewMut, Relayout};

mod common;
use common::{Buffer, FORMATS, bytes_of, bytes_of_mut, nt_copy, tiled};

/// Real data: untouched allocations would read the zero page.
fn data<T: Copy>(n: usize, f: impl Fn(usize) -> T) -> Vec<T> {
    (0..n).map(f).collect()
}

/// The relayout `from` → `to` and, in the same group, `nt_copy` and
/// `copy_from_slice` of the array's bytes (its element count times the
/// element size; the relayout writes the destination's padding on top).
/// Every buffer starts on a 64-byte line, as XLA's host allocator places
/// them; `relayout_dst16` writes a destination 16 bytes into a line (where
/// `malloc` puts large blocks).
fn relayout_vs_copies<T: Copy + Default>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    from: &str,
    to: &str,
    value: fn(usize) -> T,
) {
    let (src_t, dst_t) = (tiled(from), tiled(to));
    let plan = Relayout::new(&src_t, &dst_t).unwrap();
    let src = Buffer::new(src_t.physical_slots() as usize, 0, value);
    let slots = dst_t.physical_slots() as usize;
    let mut dst = Buffer::new(slots, 0, |_| T::default());
    let elements = src_t.element_count() as usize;
    let mut copy = Buffer::new(elements, 0, |_| T::default());
    let src = src.get();
    g.throughput(Throughput::Bytes((elements * size_of::<T>()) as u64));
    g.bench_function(format!("{name}/relayout"), |b| {
        b.iter(|| {
            plan.copy(black_box(src), dst.get_mut(), T::default())
                .unwrap()
        })
    });
    let mut dst16 = Buffer::new(slots, 16, |_| T::default());
    g.bench_function(format!("{name}/relayout_dst16"), |b| {
        b.iter(|| {
            plan.copy(black_box(src), dst16.get_mut(), T::default())
                .unwrap()
        })
    });
    drop(dst16);
    // What the AVX2 kernels and the tile path bring: the same plan with
    // SSE2 only, and through the general walk.
    let sse2 = plan.without_avx2();
    g.bench_function(format!("{name}/relayout_sse2"), |b| {
        b.iter(|| {
            sse2.copy(black_box(src), dst.get_mut(), T::default())
                .unwrap()
        })
    });
    let walk = plan.without_tiles();
    g.bench_function(format!("{name}/relayout_walk"), |b| {
        b.iter(|| {
            walk.copy(black_box(src), dst.get_mut(), T::default())
                .unwrap()
        })
    });
    g.bench_function(format!("{name}/nt_copy"), |b| {
        b.iter(|| nt_copy(black_box(bytes_of(src)), bytes_of_mut(copy.get_mut())))
    });
    g.bench_function(format!("{name}/copy_from_slice"), |b| {
        b.iter(|| copy.get_mut().copy_from_slice(black_box(&src[..elements])))
    });
}

/// Both directions of `ty[rows,cols]` between row-major and `tile`.
fn both_ways<T: Copy + Default>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    ty: &str,
    tile: &str,
    (rows, cols): (u64, u64),
    value: fn(usize) -> T,
) {
    let host = format!("{ty}[{rows},{cols}]{{1,0}}");
    let tpu = format!("{ty}[{rows},{cols}]{{1,0:{tile}}}");
    let tile = &tile[1..];
    let name = format!("{ty}_{rows}x{cols}");
    relayout_vs_copies(g, &format!("{name}_to_{tile}"), &host, &tpu, value);
    relayout_vs_copies(g, &format!("{name}_from_{tile}"), &tpu, &host, value);
}

fn tpu(c: &mut Criterion) {
    let mut g = c.benchmark_group("tpu");
    g.sample_size(20);
    for size in [(8192, 8192), (8191, 8190)] {
        for (ty, tile) in FORMATS {
            match ty {
                "bf16" => both_ways::<u16>(&mut g, ty, tile, size, |k| k as u16),
                "f32" => both_ways::<f32>(&mut g, ty, tile, size, |k| k as f32),
                // s8 and pred: one byte each.
                _ => both_ways::<u8>(&mut g, ty, tile, size, |k| k as u8),
            }
        }
    }
    g.finish();
}

fn ndarray_baseline(c: &mut Criterion) {
    let mut g = c.benchmark_group("ndarray");
    g.sample_size(20);
    let n = 8192;
    // ndarray: the bf16 host → TPU copy as an `assign` into the TPU
    // layout's tiled view (one axis per tile digit, from the library), the
    // source being the row-major buffer reshaped to the same axes.
    let (rows_t, tpu_t) = (
        tiled(&format!("bf16[{n},{n}]{{1,0}}")),
        tiled(&format!("bf16[{n},{n}]{{1,0:T(8,128)(2,1)}}")),
    );
    let plan = Relayout::new(&rows_t, &tpu_t).unwrap();
    let src = data(n * n, |k| k as u16);
    let mut dst = data(n * n, |_| 0u16);
    let rows = DynView::new(&rows_t, &src).unwrap();
    g.throughput(Throughput::Bytes((n * n * 2) as u64));
    g.bench_function("bf16_8192x8192_to_(8,128)(2,1)/relayout", |b| {
        b.iter(|| plan.copy(black_box(&src), &mut dst, 0).unwrap())
    });
    g.bench_function("bf16_8192x8192_to_(8,128)(2,1)/ndarray", |b| {
        b.iter(|| {
            let mut to = DynViewMut::new(&tpu_t, &mut dst)
                .unwrap()
                .into_ndarray_tiled()
                .unwrap();
            let from = ArrayView::from_shape(IxDyn(to.shape()), rows.as_slice()).unwrap();
            to.assign(&from);
        })
    });
    g.finish();
}

fn transpose(c: &mut Criterion) {
    let mut g = c.benchmark_group("transpose");
    g.sample_size(20);
    for n in [1000usize, 4096] {
        let plan = Relayout::new(
            &tiled(&format!("f32[{n},{n}]{{1,0}}")),
            &tiled(&format!("f32[{n},{n}]{{0,1}}")),
        )
        .unwrap();
        let src = Array2::from_shape_fn((n, n), |(i, j)| (i * n + j) as f32);
        let mut dst = Array2::<f32>::ones((n, n));
        let mut out = data(n * n, |_| 0f32);
        let mut copy = data(n * n, |_| 0f32);
        let flat = src.as_slice().unwrap();
        g.throughput(Throughput::Bytes((n * n * 4) as u64));
        g.bench_function(format!("f32_{n}x{n}/relayout"), |b| {
            b.iter(|| plan.copy(black_box(flat), &mut out, 0.0).unwrap())
        });
        g.bench_function(format!("f32_{n}x{n}/ndarray_assign"), |b| {
            b.iter(|| dst.assign(&black_box(&src).t()))
        });
        g.bench_function(format!("f32_{n}x{n}/nt_copy"), |b| {
            b.iter(|| nt_copy(black_box(bytes_of(flat)), bytes_of_mut(&mut copy)))
        });
        g.bench_function(format!("f32_{n}x{n}/copy_from_slice"), |b| {
            b.iter(|| copy.copy_from_slice(black_box(flat)))
        });
    }
    g.finish();
}

/// `nt_copy` on `threads` threads of `pool`, each a contiguous half
/// (third, ...) of the bytes.
fn nt_copy_on(pool: &rayon::ThreadPool, threads: usize, src: &[u8], dst: &mut [u8]) {
    let chunk = dst.len().div_ceil(threads).next_multiple_of(64);
    pool.install(|| {
        use rayon::prelude::*;
        dst.par_chunks_mut(chunk)
            .zip(src.par_chunks(chunk))
            .for_each(|(d, s)| nt_copy(s, d));
    });
}

/// One thread against two: the relayout split by `copy_parallel` (the
/// `rayon` feature) next to the non-temporal copy split the same way.
fn threads(c: &mut Criterion) {
    let mut g = c.benchmark_group("threads");
    g.sample_size(20);
    let n = 8192u64;
    for (ty, tile, bytes) in [("bf16", "T(8,128)(2,1)", 2), ("s8", "T(8,128)(4,1)", 1)] {
        let host = tiled(&format!("{ty}[{n},{n}]{{1,0}}"));
        let tpu = tiled(&format!("{ty}[{n},{n}]{{1,0:{tile}}}"));
        let len = (n * n) as usize * bytes;
        let src = Buffer::new(len, 0, |k| k as u8);
        let mut dst = Buffer::new(len, 0, |_| 0u8);
        let (src, dst) = (src.get(), dst.get_mut());
        let dst = &mut *dst;
        g.throughput(Throughput::Bytes(len as u64));
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            for (dir, from, to) in [("to", &host, &tpu), ("from", &tpu, &host)] {
                let plan = Relayout::new(from, to).unwrap();
                g.bench_function(
                    format!("{ty}_{n}x{n}_{dir}_{}/{threads}t", &tile[1..]),
                    |b| {
                        b.iter(|| match bytes {
                            2 => pool.install(|| {
                                plan.copy_parallel(
                                    black_box(src.as_chunks::<2>().0),
                                    dst.as_chunks_mut::<2>().0,
                                    [0; 2],
                                )
                            }),
                            _ => pool.install(|| plan.copy_parallel(black_box(src), dst, 0)),
                        })
                    },
                );
            }
            g.bench_function(format!("{ty}_{n}x{n}_nt_copy/{threads}t"), |b| {
                b.iter(|| nt_copy_on(&pool, threads, black_box(src), dst))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, tpu, threads, ndarray_baseline, transpose);
criterion_main!(benches);
