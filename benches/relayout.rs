//! Relayout bandwidth: the host → TPU copies of tiled_layout.md and back,
//! and plain transposes, against `copy_from_slice` of the same bytes and
//! against ndarray doing the same permutation with `assign`.

use std::hint::black_box;

use criterion::{
    BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main, measurement::WallTime,
};
use ndarray::{Array2, ArrayView, IxDyn};
use xla_layout::{ArrayShape, DynView, DynViewMut, Relayout, TiledShape};

fn tiled(text: &str) -> TiledShape {
    ArrayShape::parse_validated(text).unwrap().tiled().unwrap()
}

/// Real data: untouched allocations would read the zero page.
fn data<T: Copy>(n: usize, f: impl Fn(usize) -> T) -> Vec<T> {
    (0..n).map(f).collect()
}

fn relayout_vs_memcpy<T: Copy + Default>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    from: &str,
    to: &str,
    value: fn(usize) -> T,
) {
    let (src_t, dst_t) = (tiled(from), tiled(to));
    let plan = Relayout::new(&src_t, &dst_t).unwrap();
    let src = data(src_t.physical_slots() as usize, value);
    let mut dst = data(dst_t.physical_slots() as usize, |_| T::default());
    let mut copy = data(src.len(), |_| T::default());
    g.throughput(Throughput::Bytes(size_of_val(&src[..]) as u64));
    g.bench_function(format!("{name}/relayout"), |b| {
        b.iter(|| plan.copy(black_box(&src), &mut dst, T::default()).unwrap())
    });
    g.bench_function(format!("{name}/copy_from_slice"), |b| {
        b.iter(|| copy.copy_from_slice(black_box(&src)))
    });
}

fn tpu(c: &mut Criterion) {
    let mut g = c.benchmark_group("tpu");
    g.sample_size(20);
    let n = 8192;
    relayout_vs_memcpy::<u16>(
        &mut g,
        "bf16_8192x8192_to_(8,128)(2,1)",
        "bf16[8192,8192]{1,0}",
        "bf16[8192,8192]{1,0:T(8,128)(2,1)}",
        |k| k as u16,
    );
    relayout_vs_memcpy::<u16>(
        &mut g,
        "bf16_8192x8192_from_(8,128)(2,1)",
        "bf16[8192,8192]{1,0:T(8,128)(2,1)}",
        "bf16[8192,8192]{1,0}",
        |k| k as u16,
    );
    relayout_vs_memcpy::<u8>(
        &mut g,
        "s8_8192x8192_to_(8,128)(4,1)",
        "s8[8192,8192]{1,0}",
        "s8[8192,8192]{1,0:T(8,128)(4,1)}",
        |k| k as u8,
    );
    relayout_vs_memcpy::<f32>(
        &mut g,
        "f32_4096x4096_to_(8,128)",
        "f32[4096,4096]{1,0}",
        "f32[4096,4096]{1,0:T(8,128)}",
        |k| k as f32,
    );
    // ndarray: the same bf16 copy as an `assign` into the TPU layout's
    // tiled view (one axis per tile digit, from the library), the source
    // being the row-major buffer reshaped to the same axes.
    let (rows_t, tpu_t) = (
        tiled(&format!("bf16[{n},{n}]{{1,0}}")),
        tiled(&format!("bf16[{n},{n}]{{1,0:T(8,128)(2,1)}}")),
    );
    let src = data(n * n, |k| k as u16);
    let mut dst = data(n * n, |_| 0u16);
    let rows = DynView::new(&rows_t, &src).unwrap();
    g.throughput(Throughput::Bytes((n * n * 2) as u64));
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
        g.bench_function(format!("f32_{n}x{n}/copy_from_slice"), |b| {
            b.iter(|| copy.copy_from_slice(black_box(flat)))
        });
    }
    g.finish();
}

criterion_group!(benches, tpu, transpose);
criterion_main!(benches);
