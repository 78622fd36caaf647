//! Compile-time layout checks: each is a `const` assertion that fails in
//! `cargo check` with a sentence naming both layouts.

pub use xla_layout_core::__private::{MESSAGE, Part, fail, message};

/// Why two layouts' shapes differ, in every check that needs them equal.
#[doc(hidden)]
pub const NOT_SAME_SHAPE: &str =
    " do not have the same logical shape: element type and dimensions must match";

/// "{prefix}`a` (a_text) and `b` (b_text){reason}": the sentence every
/// two-layout check fails with.
#[doc(hidden)]
pub const fn pair_message(
    prefix: &str,
    (a, a_text): (&str, &str),
    (b, b_text): (&str, &str),
    reason: &str,
) -> ([u8; MESSAGE], usize) {
    use Part::Str;
    message(&[
        Str(prefix),
        Str("`"),
        Str(a),
        Str("` ("),
        Str(a_text),
        Str(") and `"),
        Str(b),
        Str("` ("),
        Str(b_text),
        Str(")"),
        Str(reason),
    ])
}

/// `a == b` for strings, in `const`.
#[doc(hidden)]
pub const fn str_eq(a: &str, b: &str) -> bool {
    xla_layout_core::__private::same_bytes(a.as_bytes(), b.as_bytes())
}

/// The tiled shape of a layout's `SHAPE`, in `const`.
#[doc(hidden)]
pub const fn tiled(shape: &crate::ArrayShape) -> crate::TiledShape {
    match shape.tiled() {
        Ok(t) => t,
        Err(_) => panic!("a StaticLayout's SHAPE must be valid"),
    }
}

/// Fails to compile unless two layouts have the same logical shape
/// (element type, dimensions and dynamic bounds), whatever their layouts.
///
/// ```
/// use xla_layout::{assert_same_shape, layout};
/// layout! {
///     type Host = bf16[8,128]{1,0};
///     type Tpu = bf16[8,128]{1,0:T(8,128)(2,1)};
/// }
/// assert_same_shape!(Host, Tpu);
/// ```
///
/// ```compile_fail
/// use xla_layout::{assert_same_shape, layout};
/// layout! { type A = f32[2,3]; type B = f32[3,2]; }
/// assert_same_shape!(A, B); // `A` (f32[2,3]{1,0}) and `B` (f32[3,2]{1,0}) do not have the same logical shape
/// ```
#[macro_export]
macro_rules! assert_same_shape {
    ($a:ty, $b:ty $(,)?) => {
        const _: () = {
            use $crate::StaticLayout;
            if <$a as StaticLayout>::VALID
                && <$b as StaticLayout>::VALID
                && !<$a as StaticLayout>::SHAPE.same_logical_shape(&<$b as StaticLayout>::SHAPE)
            {
                $crate::__private::fail(&$crate::__private::pair_message(
                    "",
                    (stringify!($a), <$a as StaticLayout>::TEXT),
                    (stringify!($b), <$b as StaticLayout>::TEXT),
                    $crate::__private::NOT_SAME_SHAPE,
                ));
            }
        };
    };
}

/// Fails to compile unless two layouts are the same, field for field (the
/// same canonical XLA text).
///
/// ```
/// use xla_layout::{assert_layout_eq, layout};
/// layout! {
///     type A = "f32[8,128]{1,0:T(8,128)L(1)}";   // L(1) is the default
///     type B = f32[8,128]{1,0:T(8,128)};
/// }
/// assert_layout_eq!(A, B);
/// ```
///
/// ```compile_fail
/// use xla_layout::{assert_layout_eq, layout};
/// layout! { type A = f32[8,128]{1,0}; type B = f32[8,128]{1,0:T(1,128)}; }
/// assert_layout_eq!(A, B); // same offsets, but not the same layout
/// ```
#[macro_export]
macro_rules! assert_layout_eq {
    ($a:ty, $b:ty $(,)?) => {
        const _: () = {
            use $crate::StaticLayout;
            if <$a as StaticLayout>::VALID
                && <$b as StaticLayout>::VALID
                && !$crate::__private::str_eq(
                    <$a as StaticLayout>::TEXT,
                    <$b as StaticLayout>::TEXT,
                )
            {
                $crate::__private::fail(&$crate::__private::pair_message(
                    "",
                    (stringify!($a), <$a as StaticLayout>::TEXT),
                    (stringify!($b), <$b as StaticLayout>::TEXT),
                    " are not the same layout",
                ));
            }
        };
    };
}

/// Fails to compile unless two layouts of the same logical shape put every
/// element at the same slot (functional equality), e.g. `{1,0}` and
/// `{1,0:T(1,128)}`. Decided per digit of the layouts; element by element
/// for layouts with `*` or tiles that do not nest (up to 65536 elements,
/// beyond which it fails as undecidable).
///
/// ```
/// use xla_layout::{assert_layout_equivalent, layout};
/// layout! {
///     type Plain = f32[8,128]{1,0};
///     type OneRowTiles = f32[8,128]{1,0:T(1,128)};
/// }
/// assert_layout_equivalent!(Plain, OneRowTiles);
/// ```
///
/// ```compile_fail
/// use xla_layout::{assert_layout_equivalent, layout};
/// layout! { type A = f32[8,128]{1,0}; type B = f32[8,128]{1,0:T(8,128)(2,1)}; }
/// assert_layout_equivalent!(A, B);
/// ```
#[macro_export]
macro_rules! assert_layout_equivalent {
    ($a:ty, $b:ty $(,)?) => {
        const _: () = {
            use $crate::StaticLayout;
            const A: $crate::TiledShape = $crate::__private::tiled(&<$a as StaticLayout>::SHAPE);
            const B: $crate::TiledShape = $crate::__private::tiled(&<$b as StaticLayout>::SHAPE);
            let same_shape = <$a as StaticLayout>::SHAPE.same_logical_shape(&<$b as StaticLayout>::SHAPE);
            let why = match A.same_offsets(&B) {
                _ if !same_shape => $crate::__private::NOT_SAME_SHAPE,
                $crate::Comparison::Yes => "",
                $crate::Comparison::No => " put some elements at different slots",
                $crate::Comparison::Undecided => {
                    " cannot be compared: a layout has `*` or tiles that do not nest, and there are too many elements to compare one by one"
                }
            };
            if <$a as StaticLayout>::VALID && <$b as StaticLayout>::VALID && !why.is_empty() {
                $crate::__private::fail(&$crate::__private::pair_message(
                    "",
                    (stringify!($a), <$a as StaticLayout>::TEXT),
                    (stringify!($b), <$b as StaticLayout>::TEXT),
                    why,
                ));
            }
        };
    };
}

/// Fails to compile unless a layout takes exactly `n` bytes (every tile
/// level, `L` and `E` counted).
///
/// ```
/// use xla_layout::{assert_bytes, layout};
/// layout! { type Figure1 = f32[3,5]{1,0:T(2,2)}; }
/// assert_bytes!(Figure1, 96); // 24 slots of 4 bytes
/// ```
///
/// ```compile_fail
/// use xla_layout::{assert_bytes, layout};
/// layout! { type Figure1 = f32[3,5]{1,0:T(2,2)}; }
/// assert_bytes!(Figure1, 60); // `Figure1` (f32[3,5]{1,0:T(2,2)}) takes 96 bytes, not 60
/// ```
#[macro_export]
macro_rules! assert_bytes {
    ($a:ty, $n:expr $(,)?) => {
        const _: () = {
            use $crate::__private::Part::{Num, Str};
            use $crate::StaticLayout;
            let expected: usize = $n;
            if <$a as StaticLayout>::VALID && <$a as StaticLayout>::BYTES != expected {
                $crate::__private::fail(&$crate::__private::message(&[
                    Str("`"),
                    Str(stringify!($a)),
                    Str("` ("),
                    Str(<$a as StaticLayout>::TEXT),
                    Str(") takes "),
                    Num(<$a as StaticLayout>::BYTES as u64),
                    Str(" bytes, not "),
                    Num(expected as u64),
                ]));
            }
        };
    };
}

/// Fails to compile unless a bitcast between two layouts is legal: the
/// same bits per slot, the same slots, and every element at the same slot
/// when both arrays are read in row-major logical order — the same bytes
/// in the same places. The shapes may differ (a reshape).
///
/// ```
/// use xla_layout::{assert_bitcast, layout};
/// layout! {
///     type Tiles = s32[16,128]{1,0:T(8,128)};
///     type Stacked = f32[2,8,128]{2,1,0};
/// }
/// assert_bitcast!(Tiles, Stacked);
/// ```
///
/// ```compile_fail
/// use xla_layout::{assert_bitcast, layout};
/// layout! { type A = f32[2,3]{0,1}; type B = f32[6]{0}; }
/// assert_bitcast!(A, B);
/// ```
#[macro_export]
macro_rules! assert_bitcast {
    ($a:ty, $b:ty $(,)?) => {
        const _: () = {
            use $crate::StaticLayout;
            const A: $crate::TiledShape = $crate::__private::tiled(&<$a as StaticLayout>::SHAPE);
            const B: $crate::TiledShape = $crate::__private::tiled(&<$b as StaticLayout>::SHAPE);
            let why = if A.element_bits() != B.element_bits() {
                " is not legal: they store elements in different numbers of bits"
            } else if A.physical_slots() != B.physical_slots() {
                " is not legal: they have different numbers of slots"
            } else {
                match A.bitcast_compatible(&B) {
                    $crate::Comparison::Yes => "",
                    $crate::Comparison::No => {
                        " is not legal: they put some elements at different slots in row-major order"
                    }
                    $crate::Comparison::Undecided => {
                        " is not legal: they cannot be compared: a layout is not affine in its digits, and there are too many elements to compare one by one"
                    }
                }
            };
            if <$a as StaticLayout>::VALID && <$b as StaticLayout>::VALID && !why.is_empty() {
                $crate::__private::fail(&$crate::__private::pair_message(
                    "a bitcast between ",
                    (stringify!($a), <$a as StaticLayout>::TEXT),
                    (stringify!($b), <$b as StaticLayout>::TEXT),
                    why,
                ));
            }
        };
    };
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::format;

    use super::{MESSAGE, Part, message};

    /// A message cut at `MESSAGE` bytes whose last character does not fit
    /// whole is cut before it, and reads as UTF-8.
    #[test]
    fn a_cut_message_ends_on_a_whole_character() {
        for (pad, ch) in [(1, "é"), (1, "€"), (2, "€"), (1, "𝄞"), (3, "𝄞"), (0, "é")] {
            let head = "a".repeat(MESSAGE - pad);
            let tail = ch.repeat(4);
            let (buf, n) = message(&[Part::Str(&head), Part::Str(&tail)]);
            let text = core::str::from_utf8(&buf[..n]).expect("whole characters");
            // As many whole characters as fit in the bytes left.
            let fit = pad / ch.len();
            assert_eq!(text, format!("{head}{}", ch.repeat(fit)), "{pad} {ch}");
        }
    }

    /// Messages under the limit are kept whole.
    #[test]
    fn a_short_message_is_whole() {
        let (buf, n) = message(&[Part::Str("é "), Part::Num(18446744073709551615)]);
        assert_eq!(
            core::str::from_utf8(&buf[..n]),
            Ok("é 18446744073709551615")
        );
    }
}
