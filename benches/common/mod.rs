//! What the relayout benches share: the copy limits they are measured
//! against (`nt_copy`, `nt_copy_parts`), buffers placed at a chosen offset in a cache line,
//! and the TPU formats.
#![allow(dead_code)] // Each bench uses its part.

use xla_layout::{ArrayShape, TiledShape};

pub fn tiled(text: &str) -> TiledShape {
    ArrayShape::parse_validated(text).unwrap().tiled().unwrap()
}

/// The TPU formats of the issue, with the element type each is for.
pub const FORMATS: [(&str, &str); 4] = [
    ("bf16", "T(8,128)(2,1)"),
    ("s8", "T(8,128)(4,1)"),
    ("f32", "T(8,128)"),
    ("pred", "T(32,128)(32,1)"),
];

/// The real limit of a copy on one core: `dst.len()` bytes of `src` with
/// SSE2 non-temporal stores (no read of each destination line before it
/// is overwritten), 64 bytes a step, from the destination's first line
/// boundary, then a store fence. Other targets fall back to
/// `copy_from_slice`.
pub fn nt_copy(src: &[u8], dst: &mut [u8]) {
    nt_copy_reading_ahead(src, dst, 0);
}

/// [`nt_copy`], asking for the source line `ahead` bytes on (software
/// prefetch into L2) with each line copied, if `ahead > 0`. With 4 KiB
/// it ran 1.15× as fast as `nt_copy` from memory here (1–8 KiB:
/// 1.03–1.17×), still below `nt_copy_parts` (BENCHMARKS.md): the
/// relayouts, which ask for their source ahead, are compared with it too.
#[inline]
pub fn nt_copy_reading_ahead(src: &[u8], dst: &mut [u8], ahead: usize) {
    let n = dst.len();
    let src = &src[..n];
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_sfence, _mm_stream_si128};
        let head = ((dst.as_ptr() as usize).wrapping_neg() % 64).min(n);
        dst[..head].copy_from_slice(&src[..head]);
        let mut k = head;
        // SAFETY: every access is inside the first `n` bytes of both
        // slices (`k + 64 <= n`); the stores are 16-byte aligned, as
        // `dst + k` is 64-byte aligned; SSE2 is part of x86_64.
        unsafe {
            let (s, d) = (src.as_ptr(), dst.as_mut_ptr());
            while k + 64 <= n {
                if ahead > 0 {
                    // A hint: it never faults, wherever it points.
                    std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T1 }>(
                        s.wrapping_add(k + ahead).cast(),
                    );
                }
                let from = s.add(k).cast::<__m128i>();
                let to = d.add(k).cast::<__m128i>();
                let (a, b) = (_mm_loadu_si128(from), _mm_loadu_si128(from.add(1)));
                let (c, e) = (_mm_loadu_si128(from.add(2)), _mm_loadu_si128(from.add(3)));
                _mm_stream_si128(to, a);
                _mm_stream_si128(to.add(1), b);
                _mm_stream_si128(to.add(2), c);
                _mm_stream_si128(to.add(3), e);
                k += 64;
            }
            _mm_sfence();
        }
        dst[k..].copy_from_slice(&src[k..]);
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = ahead;
        dst.copy_from_slice(src);
    }
}

pub fn bytes_of<T>(v: &[T]) -> &[u8] {
    // SAFETY: the benches' element types (u8, u16, f32) have no padding
    // bytes; the slice covers exactly the vector's bytes.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast(), size_of_val(v)) }
}

pub fn bytes_of_mut<T>(v: &mut [T]) -> &mut [u8] {
    // SAFETY: as `bytes_of`; any bytes are valid u8, u16 and f32 values.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast(), size_of_val(v)) }
}

/// The fastest copy found on the bench machine (BENCHMARKS.md): the
/// bytes cut into `PARTS` equal parts, each copied as by `nt_copy` but
/// `CHUNK` bytes from each part in turn, so that `PARTS` read streams are
/// in flight, and as many streams of streaming stores, instead of one of
/// each. With 8 parts of 256 bytes it ran 1.1–1.3× as fast as `nt_copy`
/// from memory here (what pays is the several write streams: gathering
/// eight read streams into one write stream was no faster than `nt_copy`,
/// scattering one into eight was): `nt_copy` alone is not the limit, and
/// the relayouts are also given as a ratio to this one.
pub fn nt_copy_parts(src: &[u8], dst: &mut [u8]) {
    const PARTS: usize = 8;
    const CHUNK: usize = 256;
    let n = dst.len();
    let src = &src[..n];
    // Whole chunks in every part; each part starts on a line when `dst`
    // does (the chunk is a multiple of 64); the rest by `nt_copy`.
    let part = n / PARTS / CHUNK * CHUNK;
    #[cfg(target_arch = "x86_64")]
    // SAFETY: every access is inside the first `PARTS * part <= n`
    // bytes of both; the stores are 16-byte aligned, as `dst` is 64-byte
    // aligned (asserted) and every chunk a multiple of 64 bytes in.
    unsafe {
        use std::arch::x86_64::_mm_sfence;
        let (s, d) = (src.as_ptr(), dst.as_mut_ptr());
        assert!(
            (d as usize).is_multiple_of(64),
            "nt_copy_parts wants a line-aligned dst"
        );
        for k in (0..part).step_by(CHUNK) {
            for p in 0..PARTS {
                nt_lines(s.add(p * part + k), d.add(p * part + k), CHUNK);
            }
        }
        _mm_sfence();
    }
    #[cfg(not(target_arch = "x86_64"))]
    dst[..PARTS * part].copy_from_slice(&src[..PARTS * part]);
    nt_copy(&src[PARTS * part..], &mut dst[PARTS * part..]);
}

/// `bytes` (a multiple of 64) from `s` to the 16-byte aligned `d` with
/// streaming stores, no fence.
///
/// # Safety
/// Both valid for `bytes` bytes; `d` 16-byte aligned.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn nt_lines(s: *const u8, d: *mut u8, bytes: usize) {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
    // SAFETY: the caller's.
    unsafe {
        for k in (0..bytes).step_by(64) {
            let from = s.add(k).cast::<__m128i>();
            let to = d.add(k).cast::<__m128i>();
            let (a, b) = (_mm_loadu_si128(from), _mm_loadu_si128(from.add(1)));
            let (c, e) = (_mm_loadu_si128(from.add(2)), _mm_loadu_si128(from.add(3)));
            _mm_stream_si128(to, a);
            _mm_stream_si128(to.add(1), b);
            _mm_stream_si128(to.add(2), c);
            _mm_stream_si128(to.add(3), e);
        }
    }
}

/// The pages a [`Buffer`] asks for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Pages {
    /// What the allocator gives: 4 KiB pages here (the machine's
    /// transparent huge pages are `madvise` only), wherever in physical
    /// memory the kernel finds them.
    Small,
    /// Transparent huge pages (`madvise(MADV_HUGEPAGE)`, before any page
    /// is touched; a hint the kernel may not follow): 2 MiB physically
    /// contiguous, one TLB entry each.
    Huge,
    /// As `Huge`, then each 2 MiB mapping split into 4 KiB ones: the
    /// same physically contiguous memory, with a TLB entry per 4 KiB as
    /// `Small` has. Tells what the TLB costs from what the pages'
    /// physical placement costs.
    Split,
    /// As `Huge`, then the 4 KiB pages shuffled (one fixed shuffle)
    /// within each `n` of them (`None`: across the whole buffer), by
    /// moving their mappings (`mremap`): the same physical memory, each
    /// 4 KiB of the buffer on a page of it picked at random, as the pages
    /// of a `Small` buffer fall. Each page becomes a mapping of its own:
    /// four 128 MiB buffers need `vm.max_map_count` above 131,072 (65,530
    /// by default: `sysctl -w vm.max_map_count=1000000`).
    Scatter(Option<usize>),
}

/// Shuffles the mappings of the whole 4 KiB pages in `len` bytes from
/// `p` (see [`Pages::Scatter`]): page `i` afterwards is the physical
/// page that was at `perm[i]`, `perm` a shuffle within each `within`
/// pages. Moves every page out to a reserved range in shuffled order,
/// then back in order.
#[cfg(target_os = "linux")]
fn scatter_pages(p: usize, len: usize, within: Option<usize>) {
    let start = p.next_multiple_of(4096);
    let pages = (p + len).saturating_sub(start) / 4096;
    let limit: usize = std::fs::read_to_string("/proc/sys/vm/max_map_count")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0);
    assert!(
        limit > 4 * pages + 1000,
        "scattering {pages} pages needs vm.max_map_count above {} (it is {limit}): \
         sysctl -w vm.max_map_count=1000000",
        4 * pages + 1000
    );
    let mut perm: Vec<usize> = (0..pages).collect();
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let group = within.unwrap_or(pages).max(1);
    for g in perm.chunks_mut(group) {
        for i in (1..g.len()).rev() {
            // xorshift64: a fixed shuffle, the same every run.
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            g.swap(i, (x % (i as u64 + 1)) as usize);
        }
    }
    let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE;
    // SAFETY: a fresh reservation, nothing in it.
    let spare = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            pages * 4096,
            libc::PROT_NONE,
            flags,
            -1,
            0,
        )
    };
    assert_ne!(spare, libc::MAP_FAILED, "mmap");
    let spare = spare as usize;
    let page = |from: usize, to: usize| {
        let how = libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED;
        // SAFETY: moves one whole page of the caller's allocation (or of
        // the reservation) onto a page of the other, unmapping whatever
        // was there; nothing holds a reference into either meanwhile.
        let at = unsafe {
            libc::mremap(
                from as *mut libc::c_void,
                4096,
                4096,
                how,
                to as *mut libc::c_void,
            )
        };
        assert_eq!(
            at as usize,
            to,
            "mremap: {}",
            std::io::Error::last_os_error()
        );
    };
    for (i, &q) in perm.iter().enumerate() {
        page(start + q * 4096, spare + i * 4096);
    }
    for i in 0..pages {
        page(spare + i * 4096, start + i * 4096);
    }
}

/// Splits every huge page mapping in `len` bytes from `p` into 4 KiB
/// ones, leaving the memory where it is: changing the protection of one
/// 4 KiB page of a 2 MiB mapping makes the kernel split it (and setting
/// it back does not merge it again).
#[cfg(target_os = "linux")]
fn split_huge_mappings(p: usize, len: usize) {
    let mut at = p.next_multiple_of(2 << 20);
    while at + 4096 <= p + len {
        for prot in [libc::PROT_READ, libc::PROT_READ | libc::PROT_WRITE] {
            // SAFETY: a whole page inside the caller's allocation; read
            // only for a moment, with nothing reading or writing it.
            let rc = unsafe { libc::mprotect(at as *mut libc::c_void, 4096, prot) };
            assert_eq!(rc, 0, "mprotect");
        }
        at += 2 << 20;
    }
}

/// `n` elements starting `offset` bytes into a 64-byte line, filled by
/// `f` (real data: untouched allocations would read the zero page).
/// Offset 0 is how XLA's host allocator (TSL's, 64-byte aligned) places
/// buffers; 16 is where glibc's `malloc` puts large blocks (just past a
/// 16-byte header on a fresh page).
pub struct Buffer<T> {
    v: Vec<T>,
    at: usize,
    n: usize,
}

impl<T: Copy> Buffer<T> {
    pub fn new(n: usize, offset: usize, f: impl Fn(usize) -> T) -> Buffer<T> {
        Buffer::with_pages(n, offset, f, Pages::Small)
    }

    /// As `new`, with the pages `pages` asks for (see [`Pages`]; Linux
    /// only, elsewhere every buffer gets what the allocator gives).
    pub fn with_pages(n: usize, offset: usize, f: impl Fn(usize) -> T, pages: Pages) -> Buffer<T> {
        let size = size_of::<T>();
        assert!(offset.is_multiple_of(size) && offset < 64);
        let spare = 128 / size;
        let mut v: Vec<T> = Vec::with_capacity(n + spare);
        #[cfg(target_os = "linux")]
        if pages != Pages::Small {
            let (p, bytes) = (v.as_mut_ptr() as usize, (n + spare) * size);
            let start = p.next_multiple_of(4096);
            let len = (p + bytes).saturating_sub(start) / 4096 * 4096;
            // SAFETY: the range is inside this allocation, whole pages;
            // the advice changes how pages are backed, not their
            // contents (none yet).
            let rc = unsafe { libc::madvise(start as *mut libc::c_void, len, libc::MADV_HUGEPAGE) };
            assert_eq!(rc, 0, "madvise(MADV_HUGEPAGE)");
        }
        // Placeholders first: where the elements start depends on where
        // the allocation landed.
        v.resize(n + spare, f(0));
        let base = v.as_ptr() as usize;
        let at = (0..spare)
            .find(|k| (base + k * size) % 64 == offset)
            .expect("an element at every offset of its size");
        for (k, x) in v[at..at + n].iter_mut().enumerate() {
            *x = f(k);
        }
        #[cfg(target_os = "linux")]
        match pages {
            Pages::Small | Pages::Huge => {}
            Pages::Split => split_huge_mappings(v.as_ptr() as usize, v.capacity() * size),
            Pages::Scatter(within) => {
                scatter_pages(v.as_ptr() as usize, v.capacity() * size, within)
            }
        }
        Buffer { v, at, n }
    }

    pub fn get(&self) -> &[T] {
        &self.v[self.at..self.at + self.n]
    }

    pub fn get_mut(&mut self) -> &mut [T] {
        &mut self.v[self.at..self.at + self.n]
    }
}
