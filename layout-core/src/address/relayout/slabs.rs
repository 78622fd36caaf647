//! Common contiguous slabs: cutting one relayout into many small ones so
//! that a copy can stream with one slab in memory.

use crate::limits::MAX_RANK;
use crate::{ArrayShape, TiledShape};

/// The array cut along its most-major dimension into [`Slabs::count`]
/// equal slabs, each a contiguous run of bytes in both layouts, in order:
/// slab `k` of the source becomes slab `k` of the destination, so a copy
/// can read, relayout and write one slab at a time. `from` and `to` are
/// one slab's layouts (the same for every slab).
///
/// ```
/// use xla_layout_core::{ArrayShape, Slabs};
/// let host = ArrayShape::parse_validated("bf16[64,256]{1,0}").unwrap();
/// let tpu = ArrayShape::parse_validated("bf16[64,256]{1,0:T(8,128)(2,1)}").unwrap();
/// // The thinnest slabs of at least one byte: one row of tiles.
/// let slabs = Slabs::find(&host, &tpu, 1).unwrap();
/// assert_eq!((slabs.count, slabs.from.logical_dims()), (8, &[8u64, 256][..]));
/// // A transpose has no common slabs.
/// let column_major = ArrayShape::parse_validated("bf16[64,256]{0,1}").unwrap();
/// assert!(Slabs::find(&host, &column_major, 1).is_none());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Slabs {
    /// How many slabs.
    pub count: u64,
    /// One source slab.
    pub from: TiledShape,
    /// One destination slab.
    pub to: TiledShape,
}

/// Slab heights tried past the first that holds enough bytes: a bounded
/// search (past it the array is copied whole).
const SEARCH: u64 = 64;

impl Slabs {
    /// The thinnest slabs of at least `min_bytes` (on either side), if the
    /// layouts allow any: the same logical array, the same most-major
    /// dimension, and slab boundaries that fall on tile boundaries of
    /// every level and on byte boundaries — checked by asking both layouts
    /// where the second slab starts and where it ends. `None` when either
    /// shape is invalid or has no size, and for an array with no elements
    /// (nothing to stream).
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, Slabs};
    /// let host = ArrayShape::parse_validated("bf16[64,256]{1,0}").unwrap();
    /// let tpu = ArrayShape::parse_validated("bf16[64,256]{1,0:T(8,128)(2,1)}").unwrap();
    /// // A row of tiles is 8 rows, 4096 bytes: a byte more takes two.
    /// let slabs = Slabs::find(&host, &tpu, 4097).unwrap();
    /// assert_eq!((slabs.count, slabs.to.logical_dims()), (4, &[16u64, 256][..]));
    /// assert!(Slabs::find(&host, &tpu, 1 << 20).is_none()); // the array is 32 KiB
    /// ```
    pub fn find(src: &ArrayShape, dst: &ArrayShape, min_bytes: u64) -> Option<Slabs> {
        if !src.same_logical_shape(dst) {
            return None;
        }
        let (from, to) = (src.tiled().ok()?, dst.tiled().ok()?);
        if from.element_count() == 0 {
            return None;
        }
        let major = |s: &ArrayShape| s.layout_or_default().minor_to_major().last().copied();
        let d0 = usize::try_from(major(src)?).ok()?;
        if major(dst)? != d0 as i64 {
            return None;
        }
        let n = from.logical_dims()[d0];
        let row_bytes = (from.exact_bytes().max(to.exact_bytes()) / n.max(1)).max(1);
        let first = min_bytes.div_ceil(row_bytes).max(1);
        (first..n.min(first.saturating_mul(SEARCH)))
            .filter(|m| n.is_multiple_of(*m))
            .find_map(|m| Self::of_height(src, dst, &from, &to, d0, m))
    }

    /// Slabs `m` high along `d0`, if they are contiguous in both layouts.
    fn of_height(
        src: &ArrayShape,
        dst: &ArrayShape,
        from: &TiledShape,
        to: &TiledShape,
        d0: usize,
        m: u64,
    ) -> Option<Slabs> {
        let n = from.logical_dims()[d0];
        let slab = |s: &ArrayShape| {
            let mut dims = [0i64; MAX_RANK];
            dims[..s.rank()].copy_from_slice(s.dims());
            dims[d0] = m as i64;
            ArrayShape::try_new(s.element_type(), &dims[..s.rank()])
                .ok()?
                .with_layout(s.layout_or_default())
                .tiled()
                .ok()
        };
        let (slab_from, slab_to) = (slab(src)?, slab(dst)?);
        let rank = from.rank();
        let mut last = [0u64; MAX_RANK];
        for (l, &d) in last.iter_mut().zip(from.logical_dims()) {
            *l = d - 1;
        }
        let fits = |full: &TiledShape, part: &TiledShape| {
            let slots = part.physical_slots();
            // Slab 1 starts right after slab 0 and ends where its copy of
            // slab 0's last element does, and the slabs fill the array
            // to the byte.
            let mut start = [0u64; MAX_RANK];
            start[d0] = m;
            let (mut end, mut end_in_slab) = (last, last);
            end[d0] = 2 * m - 1;
            end_in_slab[d0] = m - 1;
            full.offset(&start[..rank]) == Ok(slots)
                && full.offset(&end[..rank]).ok()
                    == part.offset(&end_in_slab[..rank]).ok().map(|o| o + slots)
                && slots.checked_mul(n / m) == Some(full.physical_slots())
                && part.exact_bytes().checked_mul(n / m) == Some(full.exact_bytes())
                && part.total_bits().is_some_and(|b| b.is_multiple_of(8))
        };
        if !(fits(from, &slab_from) && fits(to, &slab_to)) {
            return None;
        }
        Some(Slabs {
            count: n / m,
            from: slab_from,
            to: slab_to,
        })
    }
}
