//! The innermost loops of a copy: small kernels with constant strides.

use core::mem::size_of;

use super::block::{Block, Line};
use super::streaming;

/// Copies one block with the kernel its strides call for.
///
/// The destination comes as a pointer taken once per copy, not as a
/// slice reborrowed for each block: the streaming kernels hold parts of
/// destination lines from one block to the next ([`streaming::Carry`]),
/// and a pointer taken from one block's reborrow is invalidated by the
/// next one's (undefined behaviour, found by Miri).
///
/// # Safety
/// `dp` must be valid for writes of `dst_len` elements, none of which
/// is accessed other than through `dp` until the copy ends (the carry is
/// finished).
#[inline(always)]
pub(super) unsafe fn run_block<T: Copy>(
    b: Block,
    src: &[T],
    dp: *mut T,
    dst_len: usize,
    mut stream: Option<(streaming::Streamer, &mut streaming::Carry)>,
) {
    let (r, o, i) = (b.repeat, b.outer, b.inner);
    if r.count == 0 || o.count == 0 || i.count == 0 {
        return;
    }
    // The block's last element on each side; everything else is below.
    let last_src = b.src + (r.count - 1) * r.src + (o.count - 1) * o.src + (i.count - 1) * i.src;
    let last_dst = b.dst + (r.count - 1) * r.dst + (o.count - 1) * o.dst + (i.count - 1) * i.dst;
    // The plan only produces slots below each layout's allocation, and
    // `copy` checked the buffers against those; a failure here is a bug.
    assert!(
        last_src < src.len() as u64 && last_dst < dst_len as u64,
        "relayout block out of range"
    );
    let sp = src.as_ptr();
    for k in 0..r.count {
        let one = Block {
            src: b.src + k * r.src,
            dst: b.dst + k * r.dst,
            repeat: Line::ONE,
            ..b
        };
        // SAFETY: every index a kernel touches is a non-negative
        // combination of the block's steps, so at most the last index
        // checked above; `dp` is writable for `dst_len` elements by this
        // function's contract.
        unsafe {
            if let Some((which, carry)) = stream.as_mut()
                && streaming::run(*which, one, sp, dp, k as usize, carry)
            {
                continue;
            }
            kernel(one, sp, dp)
        }
    }
}

/// Runs the kernel a block's strides call for.
///
/// # Safety
/// Every element of the block must be inside the buffers behind `sp` and
/// `dp` (see `run_block`).
#[inline(always)]
unsafe fn kernel<T: Copy>(b: Block, sp: *const T, dp: *mut T) {
    let (o, i) = (b.outer, b.inner);
    let (s, d) = (b.src as usize, b.dst as usize);
    // SAFETY: in bounds by this function's contract (for every kernel below).
    unsafe {
        // Both sides contiguous: rows of a copy.
        if i.src == 1 && i.dst == 1 {
            let n = i.count as usize;
            for k in 0..o.count as usize {
                let (ss, dd) = (s + k * o.src as usize, d + k * o.dst as usize);
                core::ptr::copy_nonoverlapping(sp.add(ss), dp.add(dd), n);
            }
            return;
        }
        // Writes contiguous, reads `i.count` source rows in step: zip.
        if i.dst == 1 && o.src == 1 && o.dst == i.count {
            let (n, stride) = (o.count as usize, i.src as usize);
            match (i.count, size_of::<T>()) {
                // Narrow elements: build each group as one integer word.
                (2, 1) => return zip_words::<T, u16, 2>(sp, dp, s, d, n, stride),
                (4, 1) => return zip_words::<T, u32, 4>(sp, dp, s, d, n, stride),
                (8, 1) => return zip_words::<T, u64, 8>(sp, dp, s, d, n, stride),
                (4, 2) => return zip_words::<T, u64, 4>(sp, dp, s, d, n, stride),
                (2, _) => return zip::<T, 2>(sp, dp, s, d, n, stride),
                (4, _) => return zip::<T, 4>(sp, dp, s, d, n, stride),
                (8, _) => return zip::<T, 8>(sp, dp, s, d, n, stride),
                _ => {}
            }
        }
        // Reads contiguous, writes `o.count` destination rows in step: unzip.
        if i.dst == 1 && o.src == 1 && i.src == o.count {
            let (n, stride) = (i.count as usize, o.dst as usize);
            match (o.count, size_of::<T>()) {
                (2, 1) => return unzip_words::<T, u16, 2>(sp, dp, s, d, n, stride),
                (4, 1) => return unzip_words::<T, u32, 4>(sp, dp, s, d, n, stride),
                (8, 1) => return unzip_words::<T, u64, 8>(sp, dp, s, d, n, stride),
                (4, 2) => return unzip_words::<T, u64, 4>(sp, dp, s, d, n, stride),
                (2, _) => return unzip::<T, 2>(sp, dp, s, d, n, stride),
                (4, _) => return unzip::<T, 4>(sp, dp, s, d, n, stride),
                (8, _) => return unzip::<T, 8>(sp, dp, s, d, n, stride),
                _ => {}
            }
        }
        // A transposed block: 4×4 (32-bit) or 8×8 tiles through registers.
        if o.src == 1 && i.dst == 1 {
            #[cfg(target_arch = "x86_64")]
            if size_of::<T>() == 4 {
                return transpose_4x4_x86(sp, dp, s, d, o, i);
            }
            return transpose_8x8(sp, dp, s, d, o, i);
        }
        transpose(sp, dp, s, d, o, i);
    }
}

/// `dst[d + c·R + r] = src[s + c + r·stride]`: R source rows interleaved.
///
/// # Safety
/// Every index touched must be in bounds (see `run_block`).
#[inline(always)]
unsafe fn zip<T: Copy, const R: usize>(
    sp: *const T,
    dp: *mut T,
    s: usize,
    d: usize,
    n: usize,
    stride: usize,
) {
    for c in 0..n {
        for r in 0..R {
            // SAFETY: in bounds by the caller's contract.
            unsafe { *dp.add(d + c * R + r) = *sp.add(s + c + r * stride) };
        }
    }
}

/// `dst[d + r·stride + c] = src[s + c·R + r]`: R destination rows split
/// out of an interleaved source.
///
/// # Safety
/// Every index touched must be in bounds (see `run_block`).
#[inline(always)]
unsafe fn unzip<T: Copy, const R: usize>(
    sp: *const T,
    dp: *mut T,
    s: usize,
    d: usize,
    n: usize,
    stride: usize,
) {
    for c in 0..n {
        for r in 0..R {
            // SAFETY: in bounds by the caller's contract.
            unsafe { *dp.add(d + r * stride + c) = *sp.add(s + c * R + r) };
        }
    }
}

/// An unsigned integer word holding several narrow elements.
trait Word: Copy {
    const BYTES: usize;
    /// Reads a word (little-endian) at `p`.
    ///
    /// # Safety
    /// `p` must be readable for [`Word::BYTES`] bytes (any alignment).
    unsafe fn load(p: *const u8) -> Self;
    /// Writes the word (little-endian) at `p`.
    ///
    /// # Safety
    /// `p` must be writable for [`Word::BYTES`] bytes (any alignment).
    unsafe fn store(self, p: *mut u8);
    fn byte(self, k: usize) -> u8;
    fn or_byte(self, k: usize, b: u8) -> Self;
    fn zero() -> Self;
}

macro_rules! word {
    ($($t:ty),*) => {$(
        impl Word for $t {
            const BYTES: usize = size_of::<$t>();
            #[inline(always)]
            unsafe fn load(p: *const u8) -> Self {
                // SAFETY: the caller passes BYTES readable bytes.
                <$t>::from_le(unsafe { p.cast::<$t>().read_unaligned() })
            }
            #[inline(always)]
            unsafe fn store(self, p: *mut u8) {
                // SAFETY: the caller passes BYTES writable bytes.
                unsafe { p.cast::<$t>().write_unaligned(self.to_le()) }
            }
            #[inline(always)]
            fn byte(self, k: usize) -> u8 {
                (self >> (8 * k)) as u8
            }
            #[inline(always)]
            fn or_byte(self, k: usize, b: u8) -> Self {
                self | (<$t>::from(b) << (8 * k))
            }
            #[inline(always)]
            fn zero() -> Self {
                0
            }
        }
    )*};
}

word!(u16, u32, u64);

/// [`zip`] for narrow elements: each group of `R` is built as one word
/// (element `r` in bytes `r·size..`), which vectorises where a byte loop
/// does not.
///
/// # Safety
/// As [`zip`]; `R · size_of::<T>() == W::BYTES`.
#[inline(always)]
unsafe fn zip_words<T: Copy, W: Word, const R: usize>(
    src: *const T,
    dst: *mut T,
    s: usize,
    d: usize,
    n: usize,
    stride: usize,
) {
    let size = size_of::<T>();
    debug_assert_eq!(R * size, W::BYTES);
    // Elements are moved as their bytes, never interpreted: any `T` works.
    let sp = src.cast::<u8>();
    let dp = dst.cast::<u8>();
    for c in 0..n {
        let mut w = W::zero();
        for r in 0..R {
            for k in 0..size {
                // SAFETY: element (c, r) is in bounds by the caller's contract.
                let b = unsafe { *sp.add((s + c + r * stride) * size + k) };
                w = w.or_byte(r * size + k, b);
            }
        }
        // SAFETY: group c is in bounds by the caller's contract.
        unsafe { w.store(dp.add((d + c * R) * size)) };
    }
}

/// [`unzip`] for narrow elements, reading each group as one word.
///
/// # Safety
/// As [`unzip`]; `R · size_of::<T>() == W::BYTES`.
#[inline(always)]
unsafe fn unzip_words<T: Copy, W: Word, const R: usize>(
    src: *const T,
    dst: *mut T,
    s: usize,
    d: usize,
    n: usize,
    stride: usize,
) {
    let size = size_of::<T>();
    let sp = src.cast::<u8>();
    let dp = dst.cast::<u8>();
    for c in 0..n {
        // SAFETY: group c is in bounds by the caller's contract.
        let w = unsafe { W::load(sp.add((s + c * R) * size)) };
        for r in 0..R {
            for k in 0..size {
                // SAFETY: element (c, r) is in bounds by the caller's contract.
                unsafe { *dp.add((d + r * stride + c) * size + k) = w.byte(r * size + k) };
            }
        }
    }
}

/// A transposed block (`o.src == 1`, `i.dst == 1`): element `(k, j)` moves
/// from `s + k + j·i.src` to `d + k·o.dst + j`. Full 8×8 tiles are read as
/// eight contiguous rows and written as eight contiguous rows, so the
/// compiler can transpose them in registers; the edges go one by one.
///
/// # Safety
/// Every index touched must be in bounds (see `run_block`).
#[inline(always)]
unsafe fn transpose_8x8<T: Copy>(sp: *const T, dp: *mut T, s: usize, d: usize, o: Line, i: Line) {
    let (nk, nj) = (o.count as usize, i.count as usize);
    let (ss, ds) = (i.src as usize, o.dst as usize);
    let (fk, fj) = (nk / 8 * 8, nj / 8 * 8);
    let mut j = 0;
    while j < fj {
        let mut k = 0;
        while k < fk {
            // SAFETY: rows j..j+8, columns k..k+8 are inside the block.
            let rows: [[T; 8]; 8] = core::array::from_fn(|r| unsafe {
                sp.add(s + k + (j + r) * ss)
                    .cast::<[T; 8]>()
                    .read_unaligned()
            });
            for (a, _) in rows.iter().enumerate() {
                let column: [T; 8] = core::array::from_fn(|r| rows[r][a]);
                // SAFETY: destination row k+a, columns j..j+8, in the block.
                unsafe {
                    dp.add(d + (k + a) * ds + j)
                        .cast::<[T; 8]>()
                        .write_unaligned(column)
                };
            }
            k += 8;
        }
        j += 8;
    }
    // The edges: columns past the last full tile, then rows past it.
    for jj in 0..nj {
        let first_k = if jj < fj { fk } else { 0 };
        for kk in first_k..nk {
            // SAFETY: inside the block.
            unsafe { *dp.add(d + kk * ds + jj) = *sp.add(s + kk + jj * ss) };
        }
    }
}

/// [`transpose_8x8`] for 32-bit elements with SSE: 4×4 tiles transposed
/// with unpacks, as `_MM_TRANSPOSE4_PS` does.
///
/// # Safety
/// Every index touched must be in bounds (see `run_block`); `T` is 4 bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn transpose_4x4_x86<T: Copy>(
    sp: *const T,
    dp: *mut T,
    s: usize,
    d: usize,
    o: Line,
    i: Line,
) {
    use core::arch::x86_64::{
        __m128i, _mm_loadu_si128, _mm_storeu_si128, _mm_unpackhi_epi32, _mm_unpackhi_epi64,
        _mm_unpacklo_epi32, _mm_unpacklo_epi64,
    };
    let (nk, nj) = (o.count as usize, i.count as usize);
    let (ss, ds) = (i.src as usize, o.dst as usize);
    let (fk, fj) = (nk / 4 * 4, nj / 4 * 4);
    // SAFETY: rows j..j+4, columns k..k+4 are inside the block; the edges
    // below stay inside it too.
    unsafe {
        let mut j = 0;
        while j < fj {
            let mut k = 0;
            while k < fk {
                let row =
                    |r: usize| _mm_loadu_si128(sp.add(s + k + (j + r) * ss).cast::<__m128i>());
                let (r0, r1, r2, r3) = (row(0), row(1), row(2), row(3));
                let (t0, t1) = (_mm_unpacklo_epi32(r0, r1), _mm_unpacklo_epi32(r2, r3));
                let (t2, t3) = (_mm_unpackhi_epi32(r0, r1), _mm_unpackhi_epi32(r2, r3));
                let out = |a: usize| dp.add(d + (k + a) * ds + j).cast::<__m128i>();
                _mm_storeu_si128(out(0), _mm_unpacklo_epi64(t0, t1));
                _mm_storeu_si128(out(1), _mm_unpackhi_epi64(t0, t1));
                _mm_storeu_si128(out(2), _mm_unpacklo_epi64(t2, t3));
                _mm_storeu_si128(out(3), _mm_unpackhi_epi64(t2, t3));
                k += 4;
            }
            j += 4;
        }
        for jj in 0..nj {
            let first_k = if jj < fj { fk } else { 0 };
            for kk in first_k..nk {
                *dp.add(d + kk * ds + jj) = *sp.add(s + kk + jj * ss);
            }
        }
    }
}

/// The general block: `outer × inner` with any strides.
///
/// # Safety
/// Every index touched must be in bounds (see `run_block`).
#[inline(always)]
unsafe fn transpose<T: Copy>(sp: *const T, dp: *mut T, s: usize, d: usize, o: Line, i: Line) {
    let (is, id) = (i.src as usize, i.dst as usize);
    for k in 0..o.count as usize {
        let (ss, dd) = (s + k * o.src as usize, d + k * o.dst as usize);
        for j in 0..i.count as usize {
            // SAFETY: in bounds by the caller's contract.
            unsafe { *dp.add(dd + j * id) = *sp.add(ss + j * is) };
        }
    }
}
