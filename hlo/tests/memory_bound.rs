//! Memory stays proportional to the text on shapes nested deep: a chain
//! of tuples, each wrapping the last, has text quadratic in its length
//! and took memory cubic in it (every shape node kept its whole index,
//! every parsed shape room for four elements at every level), so 4 MB
//! of text took 5.5 GB. Measured with a counting allocator: the most
//! bytes allocated at once while reading and reporting. (One test in its
//! own binary, so that nothing else allocates meanwhile.)

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use xla_layout_hlo::Module;
use xla_layout_hlo::memory::{Options, Report};

struct Counting;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call forwards to `System` with the caller's arguments,
// so `System`'s guarantees hold; the counters only observe sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = NOW.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        // SAFETY: forwarded as given (see the impl).
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        NOW.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded as given (see the impl).
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// A module of `n` tuples, each wrapping the one before.
fn chain(n: usize) -> String {
    let mut text = String::from("HloModule chain\n\nENTRY e {\n t0 = f32[4]{0} parameter(0)\n");
    for k in 1..=n {
        let shape = format!("{}f32[4]{{0}}{}", "(".repeat(k), ")".repeat(k));
        text.push_str(&format!(" t{k} = {shape} tuple(t{})\n", k - 1));
    }
    text.push_str("}\n");
    text
}

/// The most bytes allocated at once while the module is read and its
/// memory report made, beyond what was allocated before.
fn peak_of(text: &str) -> usize {
    let base = NOW.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    {
        let m = Module::parse(text).unwrap();
        let r = Report::new(&m, &Options::default());
        assert!(r.rows.len() > 1);
    }
    PEAK.load(Ordering::Relaxed) - base
}

/// A module of `n` instructions, each with its own shape: a tuple nested
/// `depth` deep around an array of its own size.
fn distinct_deep_shapes(n: usize, depth: usize) -> String {
    let mut text = String::from("HloModule deep\n\nENTRY e {\n");
    for k in 0..n {
        let shape = format!(
            "{}f32[{}]{{0}}{}",
            "(".repeat(depth),
            k + 1,
            ")".repeat(depth)
        );
        text.push_str(&format!(" p{k} = {shape} parameter({k})\n"));
    }
    text.push_str(&format!(" ROOT r = f32[1]{{0}} parameter({n})\n}}\n"));
    text
}

/// The most bytes allocated at once while `text` is read as a stream.
fn reading_peak(text: &str) -> usize {
    let base = NOW.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let events = xla_layout_hlo::Reader::new(text)
        .filter(Result::is_ok)
        .count();
    assert!(events > 1);
    PEAK.load(Ordering::Relaxed) - base
}

#[test]
fn memory_follows_the_text() {
    nested_tuples_cost_memory_in_proportion_to_their_text();
    the_readers_shape_cache_keeps_small_parses_only();
}

/// The reader remembers recent shapes' parses: of 200 shapes of 400
/// nested tuples (a parse some 300 KB each), up to 128 were kept, 37 MB
/// for 167 KB of text. Only small parses are kept now: one deep parse at
/// a time (1.6 MB).
fn the_readers_shape_cache_keeps_small_parses_only() {
    let text = distinct_deep_shapes(200, 400);
    let peak = reading_peak(&text);
    assert!(
        peak < 4 << 20,
        "{peak} bytes to read {} of text",
        text.len()
    );
}

fn nested_tuples_cost_memory_in_proportion_to_their_text() {
    let (small, large) = (chain(200), chain(400));
    let ratio = large.len() as f64 / small.len() as f64; // about 4
    let (a, b) = (peak_of(&small), peak_of(&large));
    let grew = b as f64 / a as f64;
    // Linear: it grows as the text does (cubic grew 8×).
    assert!(
        grew < ratio * 1.5,
        "{a} → {b} bytes: {grew:.1}× for {ratio:.1}× the text"
    );
    // And by a bounded factor of the text.
    assert!(
        b < large.len() * 200,
        "{b} bytes for {} of text",
        large.len()
    );
}
