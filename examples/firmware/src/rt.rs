//! The few symbols a freestanding binary must bring itself: the compiler
//! may call `memcpy`/`memmove`/`memset`/`memcmp`/`bcmp` for code it emits, and
//! the precompiled `core` of a hosted target names an unwinding
//! personality even though this program aborts on panic. This is the usual
//! firmware boilerplate, not something xla-layout needs.

/// # Safety
/// As C's `memcpy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcpy(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // SAFETY: forwarded contract; a backward-safe copy covers memcpy.
    unsafe { memmove(dst, src, n) }
}

/// # Safety
/// As C's `memmove`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memmove(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // Volatile accesses keep LLVM from turning these loops into calls to
    // the very functions being defined.
    // SAFETY: the caller guarantees both ranges are valid for n bytes.
    unsafe {
        if (dst as usize) < (src as usize) {
            for i in 0..n {
                dst.add(i).write_volatile(src.add(i).read_volatile());
            }
        } else {
            for i in (0..n).rev() {
                dst.add(i).write_volatile(src.add(i).read_volatile());
            }
        }
    }
    dst
}

/// # Safety
/// As C's `memset`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memset(dst: *mut u8, value: i32, n: usize) -> *mut u8 {
    // SAFETY: the caller guarantees dst is valid for n bytes.
    unsafe {
        for i in 0..n {
            dst.add(i).write_volatile(value as u8);
        }
    }
    dst
}

/// # Safety
/// As C's `memcmp`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    // SAFETY: the caller guarantees both ranges are valid for n bytes.
    unsafe {
        for i in 0..n {
            let (x, y) = (a.add(i).read_volatile(), b.add(i).read_volatile());
            if x != y {
                return i32::from(x) - i32::from(y);
            }
        }
    }
    0
}

/// # Safety
/// As C's `bcmp` (equality only), which LLVM calls for slice equality.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    // SAFETY: forwarded contract.
    unsafe { memcmp(a, b, n) }
}

/// Named by the hosted target's precompiled `core`; never called, since
/// panics abort.
#[unsafe(no_mangle)]
pub extern "C" fn rust_eh_personality() {}
