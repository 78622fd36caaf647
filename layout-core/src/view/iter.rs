//! Walks over the indices and slots of a static layout.

use core::marker::PhantomData;
use core::ops::Range;

use crate::StaticLayout;

/// Every logical index of `L`, in row-major order.
///
/// ```
/// use xla_layout::{layout, Indices};
/// layout! { type L = f32[2,3]; }
/// assert_eq!(Indices::<L>::new().collect::<Vec<_>>(), [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]);
/// ```
#[derive(Clone, Debug)]
pub struct Indices<L: StaticLayout> {
    next: Option<L::Index>,
}

impl<L: StaticLayout> Indices<L> {
    /// From the first index; empty when a dimension is 0.
    ///
    /// ```
    /// use xla_layout::{layout, Indices};
    /// layout! { type L = f32[2,3]; type Empty = f32[2,0]; }
    /// assert_eq!(Indices::<L>::new().nth(4), Some([1, 1]));
    /// assert_eq!(Indices::<Empty>::new().count(), 0);
    /// ```
    pub fn new() -> Self {
        let empty = L::DIMS.as_ref().contains(&0);
        Indices {
            next: (!empty).then(L::Index::default),
        }
    }
}

impl<L: StaticLayout> Default for Indices<L> {
    fn default() -> Self {
        Self::new()
    }
}

impl<L: StaticLayout> Iterator for Indices<L> {
    type Item = L::Index;

    fn next(&mut self) -> Option<L::Index> {
        let current = self.next?;
        let mut following = current;
        let (idx, dims) = (following.as_mut(), L::DIMS);
        let mut d = L::RANK;
        self.next = loop {
            if d == 0 {
                break None;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < dims.as_ref()[d] {
                break Some(following);
            }
            idx[d] = 0;
        };
        Some(current)
    }
}

/// The indices along one dimension through a given index.
///
/// ```
/// use xla_layout::{layout, Lane};
/// layout! { type L = f32[2,3]; }
/// assert_eq!(Lane::<L>::new([1, 0], 1).collect::<Vec<_>>(), [[1, 0], [1, 1], [1, 2]]);
/// assert_eq!(Lane::<L>::new([0, 2], 0).collect::<Vec<_>>(), [[0, 2], [1, 2]]);
/// ```
#[derive(Clone, Debug)]
pub struct Lane<L: StaticLayout> {
    index: L::Index,
    dim: usize,
    next: usize,
    end: usize,
}

impl<L: StaticLayout> Lane<L> {
    /// The lane along `dim` through `index` (its entry for `dim` is
    /// ignored). Empty if `index` is out of bounds elsewhere or `dim` is
    /// not a dimension.
    ///
    /// ```
    /// use xla_layout::{layout, Lane};
    /// layout! { type L = f32[2,3]; }
    /// assert_eq!(Lane::<L>::new([1, 9], 1).collect::<Vec<_>>(), [[1, 0], [1, 1], [1, 2]]); // 9 is ignored
    /// assert_eq!(Lane::<L>::new([2, 0], 1).count(), 0); // row 2 is out of bounds
    /// assert_eq!(Lane::<L>::new([0, 0], 2).count(), 0); // no dimension 2
    /// ```
    pub fn new(index: L::Index, dim: usize) -> Self {
        let dims = L::DIMS;
        let in_bounds =
            dim < L::RANK && (0..L::RANK).all(|d| d == dim || index.as_ref()[d] < dims.as_ref()[d]);
        let end = if in_bounds { dims.as_ref()[dim] } else { 0 };
        Lane {
            index,
            dim,
            next: 0,
            end,
        }
    }
}

impl<L: StaticLayout> Iterator for Lane<L> {
    type Item = L::Index;

    fn next(&mut self) -> Option<L::Index> {
        if self.next >= self.end {
            return None;
        }
        let mut i = self.index;
        i.as_mut()[self.dim] = self.next;
        self.next += 1;
        Some(i)
    }
}

/// The slots of `L` in memory order with the index each holds; padding
/// slots are skipped.
///
/// ```
/// use xla_layout::{layout, Physical};
/// layout! { type L = f32[2,3]{0,1}; }
/// let order: Vec<[usize; 2]> = Physical::<L>::new().map(|(_, i)| i).collect();
/// assert_eq!(order, [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2], [1, 2]]); // a d b e c f
/// ```
#[derive(Clone, Debug)]
pub struct Physical<L: StaticLayout> {
    slots: Range<usize>,
    layout: PhantomData<L>,
}

impl<L: StaticLayout> Physical<L> {
    /// Every slot.
    ///
    /// ```
    /// use xla_layout::{layout, Physical};
    /// layout! { type L = f32[3]{0:T(2)}; }
    /// // 4 slots; slot 3 pads the second tile.
    /// assert_eq!(Physical::<L>::new().collect::<Vec<_>>(), [(0, [0]), (1, [1]), (2, [2])]);
    /// ```
    pub fn new() -> Self {
        Self::over(0..L::PHYSICAL_ELEMENTS)
    }

    /// The slots in `range` (clipped to the allocation).
    ///
    /// ```
    /// use xla_layout::{layout, Physical};
    /// layout! { type L = f32[2,3]{0,1}; }
    /// assert_eq!(Physical::<L>::over(4..100).collect::<Vec<_>>(), [(4, [0, 2]), (5, [1, 2])]);
    /// ```
    pub fn over(range: Range<usize>) -> Self {
        Physical {
            slots: range.start..range.end.min(L::PHYSICAL_ELEMENTS),
            layout: PhantomData,
        }
    }
}

impl<L: StaticLayout> Default for Physical<L> {
    fn default() -> Self {
        Self::new()
    }
}

impl<L: StaticLayout> Iterator for Physical<L> {
    type Item = (usize, L::Index);

    fn next(&mut self) -> Option<(usize, L::Index)> {
        for slot in self.slots.by_ref() {
            if let Ok(Some(logical)) = L::TILED.logical_index(slot as u64) {
                let mut index = L::Index::default();
                for (dst, &v) in index.as_mut().iter_mut().zip(logical.as_slice()) {
                    *dst = v as usize;
                }
                return Some((slot, index));
            }
        }
        None
    }
}
