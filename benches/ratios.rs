//! The relayout of each TPU format against the copy limit, interleaved:
//! each round times the non-temporal copy (`common::nt_copy`) of the
//! array's bytes, the relayout into a 64-byte aligned destination, the
//! relayout into a destination 16 bytes into a line (or what `FLAGS`
//! put in that column), then the fastest copy found
//! (`common::nt_copy_parts`, eight streams), so that the four share
//! whatever the (shared, noisy) machine is doing at that moment. When
//! both relayouts' destinations sit at one offset, they trade buffers
//! and turns every other round (a buffer's physical pages moved a column
//! by up to 0.09× of the NT copy on Zen 5). The
//! ratios of criterion's `tpu` group come from benchmarks run minutes
//! apart; these come from the same rounds.
//!
//! ```console
//! cargo bench -p xla-layout-benches --bench ratios [-- ROUNDS [FILTER [ROWSxCOLS [FLAGS]]]]
//! ```
//!
//! By default (or with `""`) the two shapes of the `tpu` group (8192²
//! and 8191×8190); `ROWSxCOLS` runs one other. `FLAGS`, comma-separated:
//! `stream` writes with streaming stores whatever the size
//! (`Relayout::streaming_from(0)`): with a small shape (`256x2048`: the
//! source stays in L2) that measures the kernels and the store path
//! without the source's trip from memory; `huge` asks for transparent
//! huge pages for every buffer (`madvise`; the default here is 4 KiB
//! pages), `split` the same huge pages each split into 4 KiB mappings
//! (physically contiguous memory with a TLB entry per 4 KiB: what the
//! pages' placement costs apart from what the TLB costs), `scatter` the
//! same 4 KiB pages shuffled across each buffer (as a buffer's pages
//! fall with 4 KiB pages, in memory these buffers own; needs a
//! `vm.max_map_count` above 131,072), `scatter2m` shuffled within each
//! 2 MiB. At most one of these puts the aligned relayout limited in
//! some way in the third column instead of the one 16 bytes into a line:
//! `avx2` or `sse2` to those extensions (`without_avx512`,
//! `without_avx2`), `narrow` to AVX-512's registers without its 512-bit
//! vectors (`without_avx512_vectors`), `noahead` without asking for
//! source lines ahead (`without_read_ahead`), `dstorder` or `srcorder`
//! packing with streaming stores in the destination's or the source's
//! order wherever it can (`packing_in_source_order`), `pipe` or `nopipe`
//! pred's packing a software pipeline deep or a tile at a time
//! (`packing_pipelined`), `lines` or `stage` pred's packing from source
//! rows of whole lines or through the stage (`packing_from_lines`),
//! `realign` or `join` s8's unpacking into rows off the line grid,
//! bf16's into any rows, and both's packing into a destination off the
//! line grid realigned in 512-bit registers, or the ways before (joined
//! into lines in the stage, or the AVX2 kernels: `realigned`), `same`
//! the same plan again
//! (how far the two columns differ when nothing differs: within 0.03
//! here). `at16` puts the destinations of both relayout columns 16 bytes
//! into a line (with one of those: the pair compared off the line grid;
//! alone: the same plan twice there). `ahead` makes the last copy the NT
//! copy asking for its source 4 KiB ahead
//! (`common::nt_copy_reading_ahead`) instead of eight streams.
//!
//! Prints one Markdown row per case: the best round's bandwidth of each
//! and the ratios of the best times (the least disturbed rounds) and of
//! the median times: to the NT copy, and for the first relayout also to
//! the last copy (`÷ 8 streams` or `÷ NT read-ahead`).

use std::hint::black_box;
use std::time::{Duration, Instant};

use xla_layout::Relayout;

mod common;
use common::{
    Buffer, FORMATS, Pages, bytes_of, bytes_of_mut, nt_copy, nt_copy_parts, nt_copy_reading_ahead,
    tiled,
};

/// A plan changed in one way, for the third column.
type Limit = fn(Relayout) -> Relayout;

/// What the last column runs.
#[derive(Clone, Copy)]
enum Other {
    /// The destination 16 bytes into a line.
    Dst16,
    /// Aligned, with at most these extensions.
    Limited(Limit),
}

/// The flags that change what is timed.
#[derive(Clone, Copy)]
struct Flags {
    stream: bool,
    other: Other,
    pages: Pages,
    /// Both relayouts 16 bytes into a line.
    at16: bool,
    /// The NT copy reading ahead instead of eight streams.
    ahead: bool,
}

/// Times of the NT copy, the aligned relayout, the `other` one and the
/// eight-stream copy (or the NT copy reading ahead), one of each per
/// round; and the bytes each copy moves.
fn rounds<T: Copy + Default>(
    from: &str,
    to: &str,
    (n, f): (usize, Flags),
    value: fn(usize) -> T,
) -> ([Vec<Duration>; 4], usize) {
    let (src_t, dst_t) = (tiled(from), tiled(to));
    let plan = Relayout::new(&src_t, &dst_t).unwrap();
    let plan = if f.stream {
        plan.streaming_from(0)
    } else {
        plan
    };
    let (offset, plan2) = match f.other {
        Other::Dst16 => (16, plan),
        Other::Limited(limit) => (0, limit(plan)),
    };
    let (first, offset) = if f.at16 { (16, 16) } else { (0, offset) };
    let pages = f.pages;
    let src = Buffer::with_pages(src_t.physical_slots() as usize, 0, value, pages);
    let slots = dst_t.physical_slots() as usize;
    let mut dst = Buffer::with_pages(slots, first, |_| T::default(), pages);
    let mut dst16 = Buffer::with_pages(slots, offset, |_| T::default(), pages);
    let bytes = src_t.element_count() as usize * size_of::<T>();
    let mut copy = Buffer::with_pages(bytes, 0, |_| 0u8, pages);
    let (src, pad) = (src.get(), T::default());
    let time = |f: &mut dyn FnMut()| {
        let t = Instant::now();
        f();
        t.elapsed()
    };
    // With both destinations at one offset, the two plans trade them and
    // their turn every other round: each buffer's physical pages (which
    // moved either column by up to 0.09× of the NT copy, the same plan in
    // both, on Zen 5 with 4 KiB pages) and each turn then count for both.
    let trade = first == offset;
    let mut out = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
    for round in 0..n {
        out[0].push(time(&mut || {
            nt_copy(black_box(&bytes_of(src)[..bytes]), copy.get_mut())
        }));
        let traded = trade && round % 2 == 1;
        let (a, b) = match traded {
            true => (&mut dst16, &mut dst),
            false => (&mut dst, &mut dst16),
        };
        let mut one = || time(&mut || plan.copy(black_box(src), a.get_mut(), pad).unwrap());
        let mut two = || time(&mut || plan2.copy(black_box(src), b.get_mut(), pad).unwrap());
        let (t1, t2) = match traded {
            true => {
                let t2 = two();
                (one(), t2)
            }
            false => (one(), two()),
        };
        out[1].push(t1);
        out[2].push(t2);
        out[3].push(time(&mut || {
            let src = black_box(&bytes_of(src)[..bytes]);
            if f.ahead {
                nt_copy_reading_ahead(src, copy.get_mut(), 4096)
            } else {
                nt_copy_parts(src, copy.get_mut())
            }
        }));
    }
    // Both write the same bytes, every one of them: each into its own
    // buffer, filled first with different bytes (the rounds traded the
    // buffers, so a byte one plan missed could hold the other's).
    bytes_of_mut(dst.get_mut()).fill(0x5A);
    bytes_of_mut(dst16.get_mut()).fill(0xA5);
    plan.copy(src, dst.get_mut(), pad).unwrap();
    plan2.copy(src, dst16.get_mut(), pad).unwrap();
    assert!(bytes_of(dst.get()) == bytes_of(dst16.get()));
    (out, bytes)
}

fn main() {
    // `cargo bench` passes `--bench`; the rest are ours.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let n: usize = args
        .first()
        .map_or(21, |a| a.parse().expect("ROUNDS is a number"));
    let filter = args.get(1).cloned().unwrap_or_default();
    let shapes = match args.get(2).filter(|s| !s.is_empty()) {
        Some(s) => {
            let (r, c) = s.split_once('x').expect("ROWSxCOLS");
            vec![(
                r.parse::<u64>().expect("ROWS"),
                c.parse::<u64>().expect("COLS"),
            )]
        }
        None => vec![(8192, 8192), (8191, 8190)],
    };
    let flags: Vec<&str> = args
        .get(3)
        .map_or(vec![], |a| a.split(',').filter(|f| !f.is_empty()).collect());
    // The flags that share the third column, each a plan limited or
    // changed in one way, with the column's name.
    let column: [(&str, Limit, &str); 13] = [
        ("sse2", Relayout::without_avx2, "SSE2 only"),
        ("avx2", Relayout::without_avx512, "AVX2 only"),
        (
            "narrow",
            Relayout::without_avx512_vectors,
            "no 512-bit vectors",
        ),
        ("noahead", Relayout::without_read_ahead, "no read-ahead"),
        (
            "dstorder",
            |p| p.packing_in_source_order(false),
            "dst order",
        ),
        ("srcorder", |p| p.packing_in_source_order(true), "src order"),
        ("pipe", |p| p.packing_pipelined(true), "pipelined"),
        ("nopipe", |p| p.packing_pipelined(false), "not pipelined"),
        ("lines", |p| p.packing_from_lines(true), "from lines"),
        ("stage", |p| p.packing_from_lines(false), "via the stage"),
        ("realign", |p| p.realigned(true), "realigned"),
        ("join", |p| p.realigned(false), "not realigned"),
        ("same", |p| p, "the same"),
    ];
    let others = [
        "stream",
        "at16",
        "ahead",
        "huge",
        "split",
        "scatter",
        "scatter2m",
    ];
    let known = || column.iter().map(|c| c.0).chain(others);
    if let Some(bad) = flags.iter().find(|f| !known().any(|k| k == **f)) {
        panic!(
            "unknown flag {bad:?}: the flags are {:?}",
            known().collect::<Vec<_>>()
        );
    }
    let chosen: Vec<_> = column.iter().filter(|c| flags.contains(&c.0)).collect();
    if chosen.len() > 1 {
        panic!(
            "at most one of {:?}: they share a column",
            column.map(|c| c.0)
        );
    }
    let flag = |name| flags.contains(&name);
    let (other, other_name) = match chosen.first() {
        Some(&&(_, limit, name)) => (Other::Limited(limit), name),
        None => (Other::Dst16, "dst +16 B"),
    };
    let f = Flags {
        stream: flag("stream"),
        other,
        pages: if flag("scatter") {
            Pages::Scatter(None)
        } else if flag("scatter2m") {
            Pages::Scatter(Some(512))
        } else if flag("split") {
            Pages::Split
        } else if flag("huge") {
            Pages::Huge
        } else {
            Pages::Small
        },
        at16: flag("at16"),
        ahead: flag("ahead"),
    };
    let second = if f.ahead {
        "NT read-ahead"
    } else {
        "8 streams"
    };
    let other_name = match (f.at16, other) {
        (true, Other::Limited(_)) => format!("{other_name} (+16 B)"),
        _ => other_name.to_string(),
    };
    println!(
        "{n} rounds; GiB/s of the best round; ratios to the NT copy (or the {second} copy) of the best and (median) times."
    );
    println!();
    println!(
        "| case | NT copy | {second} | relayout{at} | ÷ NT copy | ÷ {second} | {other_name} | ÷ NT copy |",
        at = if f.at16 { " (+16 B)" } else { "" }
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (rows, cols) in shapes {
        for (ty, tile) in FORMATS {
            let host = format!("{ty}[{rows},{cols}]{{1,0}}");
            let tpu = format!("{ty}[{rows},{cols}]{{1,0:{tile}}}");
            for (dir, from, to) in [("to", &host, &tpu), ("from", &tpu, &host)] {
                let name = format!("{ty}_{rows}x{cols}_{dir}_{}", &tile[1..]);
                if !name.contains(&filter) {
                    continue;
                }
                let (mut t, bytes) = match ty {
                    "bf16" => rounds::<u16>(from, to, (n, f), |k| k as u16),
                    "f32" => rounds::<f32>(from, to, (n, f), |k| k as f32),
                    _ => rounds::<u8>(from, to, (n, f), |k| k as u8),
                };
                for v in &mut t {
                    v.sort();
                }
                let gib = |d: Duration| bytes as f64 / d.as_secs_f64() / (1u64 << 30) as f64;
                // Time `base` ÷ time `k`: `k`'s speed relative to `base`.
                let ratio = |base: usize, k: usize| {
                    let best = t[base][0].as_secs_f64() / t[k][0].as_secs_f64();
                    let median = t[base][n / 2].as_secs_f64() / t[k][n / 2].as_secs_f64();
                    format!("{best:.2}× ({median:.2}×)")
                };
                println!(
                    "| `{name}` | {:.2} GiB/s | {:.2} GiB/s | {:.2} GiB/s | {} | {} | {:.2} GiB/s | {} |",
                    gib(t[0][0]),
                    gib(t[3][0]),
                    gib(t[1][0]),
                    ratio(0, 1),
                    ratio(3, 1),
                    gib(t[2][0]),
                    ratio(0, 2)
                );
            }
        }
    }
}
