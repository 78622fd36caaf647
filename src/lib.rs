// The front page is the README: its examples run as doctests.
#![doc = include_str!("../README.md")]
#![no_std]

pub use xla_layout_core::*;

/// HLO modules as XLA dumps them: the [`xla_layout_hlo`] crate.
///
/// ```
/// use xla_layout::hlo::Module;
///
/// let m = Module::parse("ENTRY e {\n  ROOT p = f32[8]{0} parameter(0)\n}\n").unwrap();
/// assert_eq!(m.entry().unwrap().root().unwrap().shape_text(), Some("f32[8]{0}"));
/// ```
#[cfg(feature = "alloc")]
pub use xla_layout_hlo as hlo;

/// Turns XLA layout text into zero-sized layout types whose address
/// arithmetic is folded into constants.
///
/// # Forms
///
/// ```
/// use xla_layout::{layout, StaticLayout};
///
/// layout! {
///     /// Activations in the TPU bf16 format.
///     pub type Act = bf16[8,128]{1,0:T(8,128)(2,1)};   // XLA's braces
///     pub(crate) type W = f32[128,256]<0,1>;            // angle brackets
///     type Scalar = f32[];                               // default layout
/// }
/// let l = layout!(bf16[8,128]<1,0:T(8,128)(2,1)>);       // a value of a unique type
/// let p = layout!("bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}"); // pasted from a dump
///
/// assert_eq!(Act.offset([3, 5]), 1 * 256 + 5 * 2 + 1);
/// assert_eq!(l.offset([3, 5]), Act.offset([3, 5]));
/// assert_eq!(W.offset([1, 0]), 1);                        // column-major
/// assert_eq!((Act::BYTES, W::BYTES, Scalar::BYTES), (2048, 131072, 4));
/// assert_eq!(Act::TEXT, "bf16[8,128]{1,0:T(8,128)(2,1)}");
/// assert_eq!(p.to_string(), "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}");
///
/// fn slots<L: StaticLayout>(_: L) -> usize { L::PHYSICAL_ELEMENTS }
/// assert_eq!(slots(p), 8 * 1 * 1280 * 16384);
/// ```
///
/// # Importing a shape from an HLO dump
///
/// `hlo("path", "name")` takes the shape of instruction `name` (without
/// `%`; `"computation/name"` where names repeat) from an HLO text file,
/// read at compile time with `xla-layout-hlo`'s reader. The path starts
/// at the crate's manifest directory, and the file is tracked: editing it
/// rebuilds the crate. A tuple-shaped instruction needs the index of an
/// element (one number per level); a name that is not in the file is an
/// error that lists the closest names.
///
/// An item's attributes go on its type; its `#[cfg]`s also on everything
/// generated for it and on its errors, so an item configured out (a dump
/// only some builds have) costs nothing, errors included.
///
/// ```
/// use xla_layout::layout;
///
/// layout! {
///     pub type Activations = hlo("examples/dumps/train_step.tpu.hlo", "fusion");
///     pub type LoopWeights = hlo("examples/dumps/train_step.tpu.hlo", "while.9", 1);
/// }
/// assert_eq!(Activations::TEXT, "bf16[8,128,1024]{2,1,0:T(8,128)(2,1)}");
/// assert_eq!(LoopWeights::TEXT, "f32[1024,1024]{1,0:T(8,128)}");
/// ```
///
/// # The TPU default, and JAX's form
///
/// `tpu(SHAPE)` (or `tpu(SHAPE, v4)`) is SHAPE, written without a layout,
/// with the layout a TPU gives it by default ([`tpu::default_layout`]).
/// `SHAPE Layout(major_to_minor=(…), tiling=(…))` is the layout as JAX
/// prints it, major to minor (`_tiling=`, as older JAX prints it, and
/// `Format(layout=Layout(…), …)` are read too). Both are also taken inside
/// a string, as the command-line tool takes them.
///
/// ```
/// use xla_layout::layout;
///
/// layout! {
///     type Act = tpu(bf16[3,1000]);
///     type Col = "tpu(bf16[1024,1], v4)";
///     type FromJax = bf16[16,256] Layout(major_to_minor=(0, 1), tiling=((8, 128), (2, 1)));
///     type Older = bf16[16,256] Layout(major_to_minor=(0, 1), _tiling=((8, 128), (2, 1)));
/// }
/// assert_eq!(Act::TEXT, "bf16[3,1000]{1,0:T(4,128)(2,1)}");
/// assert_eq!(Col::TEXT, "bf16[1024,1]{0,1:T(2,128)(2,1)}");
/// assert_eq!(FromJax::TEXT, "bf16[16,256]{1,0:T(8,128)(2,1)}");
/// assert_eq!(Older::TEXT, FromJax::TEXT);
/// ```
///
/// # What a generated type has
///
/// A zero-sized type deriving `Clone`, `Copy`, `Default`, `PartialEq`,
/// `Eq`, `Hash`, `PartialOrd` and `Ord`, with `Display` (the canonical XLA
/// text) and `Debug`; the constants `RANK`, `DIMS`, `PHYSICAL_ELEMENTS`,
/// `BYTES`, `ELEMENT_BITS`, `ELEMENT_TYPE`, `MEMORY_SPACE`, `TEXT` and
/// `SHAPE` (the whole [`ArrayShape`]); the `const fn`s `offset`
/// (straight-line arithmetic; bounds are a debug assertion naming the
/// dimension and the caller's line), `offset_checked` and `bit_offset`;
/// and an implementation of [`StaticLayout`] for generic code (with
/// `TILED`, the runtime form). Other attributes (docs, `#[cfg]`, other
/// derives) go on the type; a derive of a trait it has already is an
/// error naming it.
///
/// In a list, each item ends with `;` (the last may leave it out), and
/// each name is given once, unless every use of it is under a `#[cfg]`.
///
/// Every invalid layout is a compile error at the offending token, naming
/// the rule; the type is still emitted so the rest of the crate compiles.
#[macro_export]
macro_rules! layout {
    ($($input:tt)*) => {
        $crate::__private::layout_impl! { [$crate] $($input)* }
    };
}

mod checks;

#[doc(hidden)]
pub mod __private {
    pub use crate::checks::{NOT_SAME_SHAPE, Part, fail, message, pair_message, str_eq, tiled};
    pub use xla_layout_macros::layout as layout_impl;

    /// Whether a size computed at expansion time fits this target's usize.
    pub const fn fits_usize(n: u64) -> bool {
        n as u128 <= usize::MAX as u128
    }
}
