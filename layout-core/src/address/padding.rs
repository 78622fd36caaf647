//! Why an allocation is larger than its elements: each rounding a tiled
//! layout makes, read off the tiling program of [`TiledShape`].
//!
//! Applying a tile (docs/xla-layouts.md §d.1, step 2.4) splits each tiled
//! coordinate of extent `e` into "which tile" (`⌈e/t⌉`) and "where in the
//! tile" (`t`): the coordinate now spans `⌈e/t⌉·t ≥ e` slots. That is the
//! only place tiles add slots (an added size-1 dimension and a `*`
//! combination do not change the product), so the slot count is the
//! element count times the product of `padded / size` over every rounding,
//! then rounded up to a multiple of `L`. [`Padding`] lists those roundings,
//! level by level, and the `L` step.

use core::fmt::{self, Display, Formatter};

use super::AddressError;
use super::tiled::{CoordOp, TiledShape};
use crate::ArrayShape;
use crate::text::TileText;

/// The padding of an array shape: every rounding its tiles make, the tail
/// padding `L`, and the bytes they cost.
///
/// ```
/// use xla_layout_core::{ArrayShape, Padding};
///
/// let s = ArrayShape::parse_validated("f32[3,129]{1,0:T(8,128)}").unwrap();
/// let p = Padding::new(&s).unwrap();
/// let why: Vec<String> = p.roundings().filter(|r| r.pads()).map(|r| r.to_string()).collect();
/// assert_eq!(why, ["d0: 3 → 8 by T(8,128): 2.67×", "d1: 129 → 256 by T(8,128): 1.98×"]);
/// assert_eq!((p.data_bytes(), p.exact_bytes()), (3 * 129 * 4, 8 * 256 * 4));
/// assert_eq!(p.padding_bytes(), 8 * 256 * 4 - 3 * 129 * 4);
/// assert_eq!(p.to_string(), "d0: 3 → 8 by T(8,128): 2.67×; d1: 129 → 256 by T(8,128): 1.98×");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Padding<'a> {
    shape: &'a ArrayShape,
    tiled: TiledShape,
}

impl<'a> Padding<'a> {
    /// The padding of `shape`, which must be valid with no unbounded
    /// dimension (as for [`TiledShape::new`]).
    ///
    /// ```
    /// use xla_layout_core::{AddressError, ArrayShape, Padding};
    ///
    /// let s = ArrayShape::parse_validated("f32[?,2]{1,0}").unwrap();
    /// assert!(matches!(Padding::new(&s), Err(AddressError::UnboundedDimension { dim: 0 })));
    /// ```
    pub fn new(shape: &'a ArrayShape) -> Result<Padding<'a>, AddressError> {
        Ok(Padding {
            shape,
            tiled: shape.tiled()?,
        })
    }

    /// The tiled shape the roundings come from.
    ///
    /// ```
    /// # use xla_layout_core::{ArrayShape, Padding};
    /// let s = ArrayShape::parse_validated("f32[3,5]{1,0:T(2,2)}").unwrap();
    /// assert_eq!(Padding::new(&s).unwrap().tiled().dims(), [2, 3, 2, 2]);
    /// ```
    pub fn tiled(&self) -> &TiledShape {
        &self.tiled
    }

    /// Every rounding the tiles make, level by level and, within a level,
    /// in the tile's order (most major first), including those that add
    /// nothing (`size == padded`; see [`Rounding::pads`]). None for an
    /// array with no elements: it allocates nothing to pad.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, Padding};
    ///
    /// // A bf16 scalar: the (128) tile pads an added size-1 dimension;
    /// // the (2,1) tile then rounds the 128 slots, which fit already.
    /// let s = ArrayShape::parse_validated("bf16[]{:T(256)(128)(2,1)}").unwrap();
    /// let p = Padding::new(&s).unwrap();
    /// let all: Vec<(usize, u64, u64)> = p.roundings().map(|r| (r.level, r.size, r.padded)).collect();
    /// assert_eq!(all, [(0, 1, 256), (1, 256, 256), (2, 2, 2), (2, 128, 128)]);
    /// assert_eq!(p.roundings().next().unwrap().to_string(), "added dim: 1 → 256 by T(256): 256×");
    /// let empty = ArrayShape::parse_validated("f32[0,5]{1,0:T(8,128)}").unwrap();
    /// assert_eq!(Padding::new(&empty).unwrap().roundings().count(), 0);
    /// ```
    pub fn roundings(&self) -> impl Iterator<Item = Rounding<'_>> + '_ {
        let layout = self.shape.layout();
        // No elements, no allocation: nothing a tile rounds pads anything.
        let empty = self.tiled.element_count() == 0;
        let mut level = 0usize;
        let mut seen_inner = false;
        self.tiled
            .coords()
            .iter()
            .enumerate()
            .filter_map(move |(k, c)| {
                // A level pushes its added dimensions and combinations,
                // then its outer parts, then its inner parts (see
                // `TiledShape::apply_tile`): anything but an inner part
                // after an inner part starts the next level.
                match c.op {
                    CoordOp::Inner { .. } => seen_inner = true,
                    CoordOp::Logical(_) => {}
                    _ if seen_inner => {
                        level += 1;
                        seen_inner = false;
                    }
                    _ => {}
                }
                let CoordOp::Outer { source, tile } = c.op else {
                    return None;
                };
                if empty {
                    return None;
                }
                let size = self.tiled.coords().get(source).map_or(0, |s| s.extent);
                let padded = size.div_ceil(tile).saturating_mul(tile);
                let tile_entries = match layout {
                    Some(l) if level < l.tile_count() => l.tile(level),
                    _ => &[],
                };
                Some(Rounding {
                    level,
                    tile: tile_entries,
                    coord: source,
                    size,
                    padded,
                    tiled: &self.tiled,
                    outer: k,
                })
            })
    }

    /// The tail padding: `Some((slots, allocated, alignment))` when `L`
    /// rounds the slot count up; `None` when it adds nothing.
    ///
    /// ```
    /// # use xla_layout_core::{ArrayShape, Padding};
    /// let s = ArrayShape::parse_validated("f32[1000]{0:L(1024)}").unwrap();
    /// assert_eq!(Padding::new(&s).unwrap().tail(), Some((1000, 1024, 1024)));
    /// ```
    pub fn tail(&self) -> Option<(u64, u64, u64)> {
        let (slots, allocated) = (self.tiled.tiled_slots(), self.tiled.physical_slots());
        let alignment = self
            .shape
            .layout()
            .map_or(1, |l| l.tail_padding_alignment_in_elements());
        (allocated > slots).then_some((slots, allocated, alignment.max(1) as u64))
    }

    /// The bytes the elements need at their storage width
    /// ([`TiledShape::data_bytes`]).
    ///
    /// ```
    /// # use xla_layout_core::{ArrayShape, Padding};
    /// let s = ArrayShape::parse_validated("bf16[3,7]{1,0:T(8,128)(2,1)}").unwrap();
    /// assert_eq!(Padding::new(&s).unwrap().data_bytes(), 3 * 7 * 2);
    /// ```
    pub fn data_bytes(&self) -> u64 {
        self.tiled.data_bytes()
    }

    /// The bytes allocated ([`TiledShape::exact_bytes`]).
    ///
    /// ```
    /// # use xla_layout_core::{ArrayShape, Padding};
    /// let s = ArrayShape::parse_validated("bf16[3,7]{1,0:T(8,128)(2,1)}").unwrap();
    /// assert_eq!(Padding::new(&s).unwrap().exact_bytes(), 8 * 128 * 2);
    /// ```
    pub fn exact_bytes(&self) -> u64 {
        self.tiled.exact_bytes()
    }

    /// The bytes padding costs: `exact_bytes − data_bytes`.
    ///
    /// ```
    /// # use xla_layout_core::{ArrayShape, Padding};
    /// let s = ArrayShape::parse_validated("bf16[3,7]{1,0:T(8,128)(2,1)}").unwrap();
    /// assert_eq!(Padding::new(&s).unwrap().padding_bytes(), 2048 - 42);
    /// ```
    pub fn padding_bytes(&self) -> u64 {
        self.exact_bytes().saturating_sub(self.data_bytes())
    }

    /// `exact_bytes / data_bytes`, or `None` for an array with no elements.
    ///
    /// ```
    /// # use xla_layout_core::{ArrayShape, Padding};
    /// let s = ArrayShape::parse_validated("f32[2,128]{1,0:T(8,128)}").unwrap();
    /// assert_eq!(Padding::new(&s).unwrap().expansion(), Some(4.0));
    /// ```
    pub fn expansion(&self) -> Option<f64> {
        let data = self.data_bytes();
        (data > 0).then(|| self.exact_bytes() as f64 / data as f64)
    }
}

impl Display for Padding<'_> {
    /// The roundings that pad, then `L`, separated by `; ` ("no padding"
    /// when there are none). An array with no elements allocates nothing,
    /// so its tiles pad nothing either: "no elements".
    ///
    /// ```
    /// # use xla_layout_core::{ArrayShape, Padding};
    /// let p = |s| Padding::new(&ArrayShape::parse_validated(s).unwrap()).unwrap().to_string();
    /// assert_eq!(p("f32[8,128]{1,0:T(8,128)}"), "no padding");
    /// assert_eq!(p("f32[3]{0:L(4)}"), "slots: 3 → 4 by L(4): 1.33×");
    /// assert_eq!(p("f32[0,5]{1,0:T(8,128)}"), "no elements");
    /// ```
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if self.tiled.element_count() == 0 {
            return f.write_str("no elements");
        }
        let mut any = false;
        for r in self.roundings().filter(Rounding::pads) {
            if any {
                f.write_str("; ")?;
            }
            write!(f, "{r}")?;
            any = true;
        }
        if let Some((slots, allocated, alignment)) = self.tail() {
            if any {
                f.write_str("; ")?;
            }
            write!(
                f,
                "slots: {slots} → {allocated} by L({alignment}): {}",
                Factor(allocated, slots)
            )?;
            any = true;
        }
        if !any {
            f.write_str("no padding")?;
        }
        Ok(())
    }
}

/// One rounding: a coordinate of `size` slots rounded up to `padded` by
/// the tile of level `level`.
///
/// Its `Display` is `d1: 3 → 128 by T(8,128): 42.7×`. The coordinate is
/// named by how it is computed (see [`Rounding::name`]).
///
/// ```
/// use xla_layout_core::{ArrayShape, Padding};
/// let s = ArrayShape::parse_validated("f32[8,3]{1,0:T(8,128)}").unwrap();
/// let p = Padding::new(&s).unwrap();
/// let r = p.roundings().nth(1).unwrap();
/// assert_eq!((r.level, r.tile, r.size, r.padded), (0, &[8, 128][..], 3, 128));
/// assert_eq!(r.to_string(), "d1: 3 → 128 by T(8,128): 42.7×");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Rounding<'t> {
    /// The tile level (0 for the first `T(…)`).
    pub level: usize,
    /// That level's tile, most major entry first (as [`crate::Layout::tile`]).
    pub tile: &'t [i64],
    /// The coordinate being tiled: an index into [`TiledShape::coords`].
    pub coord: usize,
    /// Its extent before the tile.
    pub size: u64,
    /// Its extent after: `⌈size / t⌉ · t` for the tile entry `t`.
    pub padded: u64,
    tiled: &'t TiledShape,
    /// The "which tile" coordinate this rounding made.
    outer: usize,
}

impl<'t> Rounding<'t> {
    /// Whether it adds slots (`padded > size`).
    ///
    /// ```
    /// # use xla_layout_core::{ArrayShape, Padding};
    /// let s = ArrayShape::parse_validated("f32[8,100]{1,0:T(8,128)}").unwrap();
    /// let p = Padding::new(&s).unwrap();
    /// let pads: Vec<bool> = p.roundings().map(|r| r.pads()).collect();
    /// assert_eq!(pads, [false, true]);
    /// ```
    pub fn pads(&self) -> bool {
        self.padded > self.size
    }

    /// `padded / size` (1 for an empty coordinate).
    ///
    /// ```
    /// # use xla_layout_core::{ArrayShape, Padding};
    /// let s = ArrayShape::parse_validated("f32[3]{0:T(128)}").unwrap();
    /// let p = Padding::new(&s).unwrap();
    /// let r = p.roundings().next().unwrap();
    /// assert!((r.expansion() - 128.0 / 3.0).abs() < 1e-9);
    /// ```
    pub fn expansion(&self) -> f64 {
        if self.size == 0 {
            1.0
        } else {
            self.padded as f64 / self.size as f64
        }
    }

    /// The tile entry that rounds (`size` is rounded to a multiple of it).
    ///
    /// ```
    /// # use xla_layout_core::{ArrayShape, Padding};
    /// let s = ArrayShape::parse_validated("f32[3,5]{1,0:T(2,4)}").unwrap();
    /// let entries: Vec<u64> = Padding::new(&s).unwrap().roundings().map(|r| r.entry()).collect();
    /// assert_eq!(entries, [2, 4]);
    /// ```
    pub fn entry(&self) -> u64 {
        match self.tiled.coords().get(self.outer).map(|c| c.op) {
            Some(CoordOp::Outer { tile, .. }) => tile,
            _ => 1,
        }
    }

    /// The name of the coordinate rounded: `d1` for logical dimension 1;
    /// `1` for a size-1 dimension added in front of a tile with more
    /// entries than the shape has dimensions (a scalar's `T(128)`);
    /// `d0*d1` for dimensions merged by a `*` tile entry; `d1%128` and
    /// `d1/128` for where in a tile of an earlier level and which tile.
    ///
    /// ```
    /// # use xla_layout_core::{ArrayShape, Padding};
    /// let s = ArrayShape::parse_validated("pred[3,500]{1,0:T(4,128)(4,1)}").unwrap();
    /// let p = Padding::new(&s).unwrap();
    /// let names: Vec<String> = p.roundings().map(|r| r.name().to_string()).collect();
    /// assert_eq!(names, ["d0", "d1", "d0%4", "d1%128"]);
    /// ```
    pub fn name(&self) -> CoordName<'t> {
        CoordName {
            tiled: self.tiled,
            coord: self.coord,
        }
    }
}

impl Display for Rounding<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        // A dimension the tile adds (it has more entries than the shape
        // has dimensions) has no name of its own: "1" alone read as a
        // dimension number.
        let added = (self.tiled.coords().get(self.coord)).is_some_and(|c| c.op == CoordOp::Pad);
        if added {
            f.write_str("added dim")?;
        } else {
            write!(f, "{}", self.name())?;
        }
        write!(
            f,
            ": {} → {} by T{}: {}",
            self.size,
            self.padded,
            TileText::new(self.tile),
            Factor(self.padded, self.size)
        )
    }
}

/// How a coordinate of the tiling program is computed, as text (see
/// [`Rounding::name`]).
///
/// ```
/// # use xla_layout_core::{ArrayShape, Padding};
/// let s = ArrayShape::parse_validated("f32[2,3,5]{2,1,0:T(*,4)}").unwrap();
/// let p = Padding::new(&s).unwrap();
/// let r = p.roundings().next().unwrap();
/// assert_eq!((r.name().to_string(), r.size, r.padded), ("d1*d2".to_string(), 15, 16));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct CoordName<'t> {
    tiled: &'t TiledShape,
    coord: usize,
}

impl Display for CoordName<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        // Sources always come earlier in the program, so this ends; the
        // depth is at most the program's length (`MAX_COORDS`).
        let Some(c) = self.tiled.coords().get(self.coord) else {
            return f.write_str("?");
        };
        let name = |coord| CoordName {
            tiled: self.tiled,
            coord,
        };
        match c.op {
            CoordOp::Logical(d) => write!(f, "d{d}"),
            CoordOp::Pad => f.write_str("1"),
            CoordOp::Outer { source, tile } if source < self.coord => {
                write!(f, "{}/{tile}", name(source))
            }
            CoordOp::Inner { source, tile } if source < self.coord => {
                write!(f, "{}%{tile}", name(source))
            }
            CoordOp::Combine { major, minor } if major < self.coord && minor < self.coord => {
                write!(f, "{}*{}", name(major), name(minor))
            }
            _ => f.write_str("?"),
        }
    }
}

/// `a / b` to three significant digits, then `×` (`42.7×`, `2.67×`, `128×`).
struct Factor(u64, u64);

impl Display for Factor {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if self.1 == 0 {
            return f.write_str("1×");
        }
        let x = self.0 as f64 / self.1 as f64;
        if self.0.is_multiple_of(self.1) {
            write!(f, "{}×", self.0 / self.1)
        } else if x >= 100.0 {
            write!(f, "{x:.0}×")
        } else if x >= 10.0 {
            write!(f, "{x:.1}×")
        } else {
            write!(f, "{x:.2}×")
        }
    }
}

impl ArrayShape {
    /// Why this shape's allocation is larger than its elements: see
    /// [`Padding`].
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let s = ArrayShape::parse_validated("f32[3,3]{1,0:T(8,128)}").unwrap();
    /// let p = s.padding().unwrap();
    /// assert_eq!(p.to_string(), "d0: 3 → 8 by T(8,128): 2.67×; d1: 3 → 128 by T(8,128): 42.7×");
    /// assert_eq!(p.expansion(), Some(4096.0 / 36.0));
    /// ```
    pub fn padding(&self) -> Result<Padding<'_>, AddressError> {
        Padding::new(self)
    }
}
