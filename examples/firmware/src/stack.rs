//! How much stack the runtime path takes, measured as firmware measures it:
//! run it on a stack of our own whose bytes were painted with a pattern
//! beforehand, then count the bytes still painted.
//!
//! The path is the whole chain in one function — parse, validate, tile and
//! offset, which is what inlining makes of it in an optimised build — over
//! layouts up to rank 8. docs/firmware.md ("Stack") gives what it needs and
//! why; this is the check that keeps that true (x86_64 Linux, where CI runs
//! this program).

use core::hint::black_box;
use xla_layout::{ArrayShape, DynViewMut, Relayout, StaticLayout, TiledShape, layout};

/// The layouts run: rank 8 with TPU tiles, `*`, `E`, `S`, `L` and three
/// levels of tiles.
const LAYOUTS: [&str; 6] = [
    "bf16[2,3,4,5,6,7,8,256]{7,6,5,4,3,2,1,0:T(8,128)(2,1)}",
    "f32[3,5]{1,0:T(2,2)}",
    "s4[8,1,1280,16384]{3,2,0,1:T(8,128)(8,1)E(4)S(1)}",
    "f32[8,8,64]{2,1,0:T(*,16,64)}",
    "pred[33,129,2,2,2,2,2,2]{0,1,2,3,4,5,6,7:T(32,128)(32,1)L(1024)}",
    "bf16[4096]{0:T(1024)(128)(2,1)}",
];

/// The stack firmware is assumed to have.
pub const BUDGET: usize = 16 << 10;

/// The stack the measurement runs on: larger than the budget, so that a
/// path that needs more is measured (and refused) instead of running over
/// whatever lies below. An unoptimised build needs several times the
/// budget (docs/firmware.md).
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
const SIZE: usize = 1 << 20;

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
const PAINT: u8 = 0xA5;

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[repr(C, align(16))]
struct Stack([u8; SIZE]);

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
static mut STACK: Stack = Stack([0; SIZE]);

/// Each layout's last slot, from its text: the chain under test. Where the
/// results go, since the painted stack's function takes no arguments.
static mut SLOTS: [Option<u64>; LAYOUTS.len()] = [None; LAYOUTS.len()];

/// The slot of the last element, parsed, validated and tiled from text.
#[inline(always)]
fn last_slot(text: &str) -> Option<u64> {
    let shape = ArrayShape::parse_validated(text).ok()?;
    let tiled = TiledShape::new(&shape).ok()?;
    let mut last = [0u64; 8];
    for (l, &d) in last.iter_mut().zip(tiled.logical_dims()) {
        *l = d - 1;
    }
    tiled.offset(&last[..tiled.rank()]).ok()
}

/// What runs on the painted stack: every layout, one frame.
extern "C" fn chain() {
    let mut slots = [None; LAYOUTS.len()];
    for (slot, text) in slots.iter_mut().zip(LAYOUTS) {
        // Not a constant to the optimiser: the parse happens at run time.
        *slot = last_slot(black_box(text));
    }
    // SAFETY: single-threaded program; nothing else refers to SLOTS.
    unsafe { core::ptr::addr_of_mut!(SLOTS).write(slots) };
}

layout! {
    /// tiled_layout.md figure 1: 15 elements in 24 slots.
    type Figure1 = f32[3,5]{1,0:T(2,2)};
    /// Host rows of bf16, as `u16` bits.
    type Rows = bf16[16,256]{1,0};
    /// The same array in the TPU's tiles.
    type Tpu = bf16[16,256]{1,0:T(8,128)(2,1)};
}

/// Whether the views' and the relayout's results were right.
static mut OK: [bool; 2] = [false; 2];

/// A runtime view over a tiled form kept in a constant: every element set
/// to its slot, the padding filled, then read back in logical order.
extern "C" fn views() {
    let mut data = [0.0f32; 24];
    let mut ok = false;
    if let Ok(mut v) = DynViewMut::new(&Figure1::TILED, &mut data) {
        for r in 0..3 {
            for c in 0..5 {
                let slot = Figure1::TILED.offset(&[r, c]).unwrap_or(0);
                let _ = v.set(&[r, c], slot as f32);
            }
        }
        v.fill_padding(-1.0);
        // The 15 elements' slots sum to 124; the other 9 slots are padding.
        let sum: f32 = v.iter().map(|(_, x)| x).sum();
        ok = sum == 124.0 && data.iter().filter(|&&x| x == -1.0).count() == 9;
    }
    // SAFETY: single-threaded program; nothing else refers to OK.
    unsafe { (*core::ptr::addr_of_mut!(OK))[0] = black_box(ok) };
}

/// Host → TPU with a plan made at build time (`Relayout::new` is `const`).
static PLAN: Relayout = match Relayout::new(&Rows::TILED, &Tpu::TILED) {
    Ok(plan) => plan,
    Err(_) => panic!("no plan"),
};

static mut HOST: [u16; Rows::BYTES / 2] = [0; Rows::BYTES / 2];
static mut DEVICE: [u16; Tpu::BYTES / 2] = [0; Tpu::BYTES / 2];

/// Every element of a 16×256 bf16 array into the TPU's tiles, checked
/// against the layout's offsets.
extern "C" fn relayout() {
    // SAFETY: single-threaded program; nothing else refers to HOST or
    // DEVICE while these references live.
    let (host, device) = unsafe {
        (
            &mut *core::ptr::addr_of_mut!(HOST),
            &mut *core::ptr::addr_of_mut!(DEVICE),
        )
    };
    for (i, x) in host.iter_mut().enumerate() {
        *x = i as u16;
    }
    let mut ok = black_box(&PLAN).copy(host, device, 0).is_ok();
    for r in 0..16 {
        for c in 0..256 {
            ok &= device[Tpu.offset([r, c])] == (r * 256 + c) as u16;
        }
    }
    // SAFETY: as above.
    unsafe { (*core::ptr::addr_of_mut!(OK))[1] = ok };
}

/// The chain's results on the program's own stack, to compare.
pub fn on_this_stack() -> [Option<u64>; LAYOUTS.len()] {
    chain();
    // SAFETY: single-threaded program; nothing else refers to SLOTS.
    unsafe { core::ptr::addr_of!(SLOTS).read() }
}

/// Calls `f` with the stack pointer at `top` (16-byte aligned), then
/// returns to the caller's stack.
///
/// # Safety
/// `top` must be the 16-byte-aligned end of writable memory that nothing
/// else uses, large enough for `f`.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[unsafe(naked)]
unsafe extern "C" fn call_on_stack(top: *mut u8, f: extern "C" fn()) {
    // rbp (callee-saved, so `f` keeps it) holds the caller's stack pointer.
    core::arch::naked_asm!(
        "push rbp",
        "mov rbp, rsp",
        "mov rsp, rdi",
        "call rsi",
        "mov rsp, rbp",
        "pop rbp",
        "ret",
    )
}

/// The bytes of stack `f` uses, run on the painted stack.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
fn used_by(f: extern "C" fn()) -> usize {
    let base = core::ptr::addr_of_mut!(STACK).cast::<u8>();
    // SAFETY: single-threaded program; STACK is ours alone, SIZE bytes
    // from `base` (its end 16-byte aligned, as `call_on_stack` needs);
    // volatile so the paint is really written before `f` runs and really
    // read after.
    unsafe {
        for i in 0..SIZE {
            base.add(i).write_volatile(PAINT);
        }
        call_on_stack(base.add(SIZE), f);
        // The lowest GUARD bytes are never the stack's: a path that
        // reaches them may have run on below the array, and is refused
        // (`usize::MAX`) whatever the build.
        let untouched = (0..SIZE)
            .find(|&i| base.add(i).read_volatile() != PAINT)
            .unwrap_or(SIZE);
        if untouched < GUARD {
            usize::MAX
        } else {
            SIZE - untouched
        }
    }
}

/// The bottom of the painted array kept as a guard (see [`used_by`]).
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
const GUARD: usize = 4 << 10;

/// The chain's results and the bytes of stack it used.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
pub fn measure() -> ([Option<u64>; LAYOUTS.len()], usize) {
    let used = used_by(chain);
    // SAFETY: single-threaded program; nothing else refers to SLOTS.
    (unsafe { core::ptr::addr_of!(SLOTS).read() }, used)
}

/// The runtime views' and the relayout's results (each checked against
/// the layout's offsets) and the bytes of stack each used.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
pub fn measure_views_and_relayout() -> ((bool, usize), (bool, usize)) {
    let views = used_by(views);
    let relayout = used_by(relayout);
    // SAFETY: single-threaded program; nothing else refers to OK.
    let ok = unsafe { core::ptr::addr_of!(OK).read() };
    ((ok[0], views), (ok[1], relayout))
}

/// Elsewhere the program is built, not run (CI cross-builds it for a
/// Cortex-M4F): the chain runs on the program's stack, unmeasured, so that
/// its code is in the binary for a disassembler to read.
#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
pub fn measure() -> ([Option<u64>; LAYOUTS.len()], usize) {
    (on_this_stack(), 0)
}

/// Elsewhere, as [`measure`]: run on the program's stack, unmeasured.
#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
pub fn measure_views_and_relayout() -> ((bool, usize), (bool, usize)) {
    views();
    relayout();
    // SAFETY: single-threaded program; nothing else refers to OK.
    let ok = unsafe { core::ptr::addr_of!(OK).read() };
    ((ok[0], 0), (ok[1], 0))
}
