//! The coordinate program of layout-core's `TiledShape`, printed as one
//! straight-line Rust expression.
//!
//! Every value's exclusive upper bound is tracked (indices are in bounds:
//! that is the contract of `offset`), which removes the operations that
//! cannot change a value: `i / 8` of an index below 8 is 0, `i % 128` of an
//! index below 128 is `i`, and terms of a size-1 dimension vanish. What is
//! left is the expression a person would write; LLVM turns its
//! power-of-two divisions and products into shifts and masks.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use xla_layout_core::{CoordOp, TiledShape};

/// A value of the program, in terms of the index entries.
#[derive(Clone, Debug, PartialEq)]
enum Expr {
    /// `i{d}`.
    Index(usize),
    /// Always zero.
    Zero,
    /// `e / k`.
    Div(Box<Expr>, u64),
    /// `e % k`.
    Rem(Box<Expr>, u64),
    /// `a * k + b`.
    MulAdd(Box<Expr>, u64, Box<Expr>),
}

/// An expression and an exclusive upper bound of its value.
#[derive(Clone, Debug)]
struct Value {
    expr: Expr,
    bound: u64,
}

fn div(v: &Value, k: u64) -> Value {
    if k == 1 {
        return v.clone();
    }
    if v.bound <= k {
        return Value {
            expr: Expr::Zero,
            bound: 1,
        };
    }
    let bound = v.bound.div_ceil(k);
    let expr = match &v.expr {
        // (e / a) / k == e / (a·k) for unsigned integers.
        Expr::Div(e, a) if a.checked_mul(k).is_some() => Expr::Div(e.clone(), a * k),
        e => Expr::Div(Box::new(e.clone()), k),
    };
    Value { expr, bound }
}

fn rem(v: &Value, k: u64) -> Value {
    if k == 1 {
        return Value {
            expr: Expr::Zero,
            bound: 1,
        };
    }
    if v.bound <= k {
        return v.clone();
    }
    let expr = match &v.expr {
        // (e % a) % k == e % k when k divides a.
        Expr::Rem(e, a) if a % k == 0 => Expr::Rem(e.clone(), k),
        e => Expr::Rem(Box::new(e.clone()), k),
    };
    Value { expr, bound: k }
}

fn mul_add(major: &Value, k: u64, minor: &Value) -> Value {
    if major.expr == Expr::Zero {
        return minor.clone();
    }
    let bound = (major.bound - 1)
        .saturating_mul(k)
        .saturating_add(minor.bound);
    if minor.expr == Expr::Zero {
        return Value {
            expr: Expr::MulAdd(Box::new(major.expr.clone()), k, Box::new(Expr::Zero)),
            bound,
        };
    }
    Value {
        expr: Expr::MulAdd(
            Box::new(major.expr.clone()),
            k,
            Box::new(minor.expr.clone()),
        ),
        bound,
    }
}

/// The terms `(value, stride)` of the offset, zero terms removed.
fn terms(t: &TiledShape) -> Vec<(Expr, u64)> {
    let dims = t.logical_dims();
    let mut values: Vec<Value> = Vec::with_capacity(t.coords().len());
    for c in t.coords() {
        let v = match c.op {
            // A size-1 dimension's index can only be 0.
            CoordOp::Logical(d) if dims[d] <= 1 => Value {
                expr: Expr::Zero,
                bound: 1,
            },
            CoordOp::Logical(d) => Value {
                expr: Expr::Index(d),
                bound: dims[d],
            },
            CoordOp::Pad => Value {
                expr: Expr::Zero,
                bound: 1,
            },
            CoordOp::Outer { source, tile } => div(&values[source], tile),
            CoordOp::Inner { source, tile } => rem(&values[source], tile),
            CoordOp::Combine { major, minor } => {
                mul_add(&values[major], t.coords()[minor].extent, &values[minor])
            }
        };
        values.push(v);
    }
    t.final_coords()
        .zip(t.strides())
        .map(|(c, &stride)| (values[c].expr.clone(), stride))
        .filter(|(e, _)| *e != Expr::Zero)
        .collect()
}

fn emit(e: &Expr) -> TokenStream {
    match e {
        Expr::Index(d) => {
            let i = format_ident!("i{}", d);
            quote!(#i)
        }
        Expr::Zero => quote!(0),
        Expr::Div(e, k) => {
            let (e, k) = (emit(e), super::literal::usize_lit(*k));
            quote!((#e / #k))
        }
        Expr::Rem(e, k) => {
            let (e, k) = (emit(e), super::literal::usize_lit(*k));
            quote!((#e % #k))
        }
        Expr::MulAdd(a, k, b) => {
            let (a, k) = (emit(a), super::literal::usize_lit(*k));
            if **b == Expr::Zero {
                quote!((#a * #k))
            } else {
                let b = emit(b);
                quote!((#a * #k + #b))
            }
        }
    }
}

/// The body of `const fn offset(self, index: [usize; R]) -> usize`, given
/// that the index entries are bound to `i0`, `i1`, ….
pub fn offset_expression(t: &TiledShape) -> TokenStream {
    let parts: Vec<TokenStream> = terms(t)
        .iter()
        .map(|(e, stride)| {
            let e = emit(e);
            if *stride == 1 {
                e
            } else {
                let s = super::literal::usize_lit(*stride);
                quote!(#e * #s)
            }
        })
        .collect();
    if parts.is_empty() {
        quote!(0)
    } else {
        quote!(#(#parts)+*)
    }
}

/// The offset expression as text, for documentation.
pub fn offset_expression_text(t: &TiledShape) -> String {
    offset_expression(t).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use xla_layout_core::ArrayShape;

    fn expr(text: &str) -> String {
        let t = ArrayShape::parse_validated(text).unwrap().tiled().unwrap();
        offset_expression_text(&t)
    }

    #[test]
    fn untiled_layouts_are_plain_strides() {
        assert_eq!(expr("f32[10,20]{1,0}"), "i0 * 20 + i1");
        assert_eq!(expr("f32[10,20]{0,1}"), "i1 * 10 + i0");
        assert_eq!(expr("f32[]"), "0");
    }

    #[test]
    fn tpu_bf16_tile_is_shifts_and_masks_material() {
        assert_eq!(
            expr("bf16[8,128]{1,0:T(8,128)(2,1)}"),
            "(i0 / 2) * 256 + i1 * 2 + (i0 % 2)"
        );
    }

    #[test]
    fn size_one_and_exact_tiles_vanish() {
        assert_eq!(expr("f32[8,128]{1,0:T(8,128)}"), "i0 * 128 + i1");
        assert_eq!(expr("f32[1,5]{1,0}"), "i1");
    }

    #[test]
    fn nested_divisions_fold() {
        // docs/xla-layouts.md §d.3 example 6, derived by hand: 2048 → [2,1024] → [2,8,128]
        // → [2,4,128,2,1], strides 1024, 256, 2, 1, 1.
        assert_eq!(
            expr("bf16[2048]{0:T(1024)(128)(2,1)}"),
            "(i0 / 1024) * 1024 + ((i0 % 1024) / 256) * 256 + (i0 % 128) * 2 + (((i0 % 1024) / 128) % 2)"
        );
    }
}
