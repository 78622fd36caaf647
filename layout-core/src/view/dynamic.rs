//! Views through a layout known only at run time (from a dump, a file
//! header, a PJRT buffer): the static views' methods over a
//! [`TiledShape`] value, indices as `&[u64]`.
//!
//! The element type is checked once, at construction, as for the static
//! views; every later access checks only its index.

use core::ops::Range;

use super::{ViewError, check_element, holds_bits};
use crate::bits::{read_value, write_bits};
use crate::{Element, IndexError, PerDim, Relayout, RelayoutError, TiledShape};

/// The buffer's length checked against the slots (typed views) or, with
/// `bytes`, the bytes (bit views) a layout needs.
fn check_len(needed: u64, got: usize, bytes: bool) -> Result<(), ViewError> {
    if (got as u64) < needed {
        // Saturates on 32-bit targets: no buffer there holds more.
        let needed = usize::try_from(needed).unwrap_or(usize::MAX);
        return Err(match bytes {
            false => ViewError::TooShort { needed, got },
            true => ViewError::TooFewBytes { needed, got },
        });
    }
    Ok(())
}

/// Every logical index of `dims`, row-major: an odometer.
///
/// Post-condition: yields `Π dims` indices, each in bounds, in increasing
/// row-major order; none if a dimension is 0.
#[derive(Clone, Debug)]
struct Odometer {
    dims: PerDim,
    next: Option<PerDim>,
}

impl Odometer {
    fn new(dims: &[u64]) -> Self {
        let mut all = PerDim::zeros(dims.len());
        all.values[..dims.len()].copy_from_slice(dims);
        Odometer {
            dims: all,
            next: (!dims.contains(&0)).then(|| PerDim::zeros(dims.len())),
        }
    }
}

impl Iterator for Odometer {
    type Item = PerDim;

    fn next(&mut self) -> Option<PerDim> {
        let current = self.next?;
        let mut following = current;
        self.next = None;
        for d in (0..self.dims.len).rev() {
            following.values[d] += 1;
            if following.values[d] < self.dims.values[d] {
                self.next = Some(following);
                break;
            }
            following.values[d] = 0;
        }
        Some(current)
    }
}

/// The slots in `range` in memory order with the index each holds;
/// padding slots are skipped. Slots are `usize`: the views check that
/// their buffer holds every slot.
fn physical(shape: &TiledShape, range: Range<u64>) -> impl Iterator<Item = (usize, PerDim)> + '_ {
    range.filter_map(move |slot| match shape.logical_index(slot) {
        Ok(Some(index)) => Some((slot as usize, index)),
        _ => None,
    })
}

/// The indices along `dim` through `index`; empty if `index` is out of
/// bounds in another dimension, has the wrong rank, or `dim` is not a
/// dimension.
fn lane(shape: &TiledShape, index: &[u64], dim: usize) -> impl Iterator<Item = PerDim> + use<> {
    let dims = shape.logical_dims();
    let ok = index.len() == dims.len()
        && dim < dims.len()
        && (0..dims.len()).all(|d| d == dim || index[d] < dims[d]);
    let mut base = PerDim::zeros(dims.len());
    if ok {
        base.values[..dims.len()].copy_from_slice(index);
    }
    let end = if ok { dims[dim] } else { 0 };
    (0..end).map(move |i| {
        let mut at = base;
        at.values[dim] = i;
        at
    })
}

/// The slots of first-level tile `k`.
fn tile_range(shape: &TiledShape, k: usize) -> Option<Range<u64>> {
    shape.tile_slots(u64::try_from(k).ok()?)
}

/// The reads every runtime view has. `$bound` says what the iterators
/// borrow; they capture `self.capture()`: a copy of a shared view (so they
/// live as long as its buffer: `use<'a, T>`), or a reference to a mutable
/// view (`+ '_`).
macro_rules! dyn_reads {
    ([$($bound:tt)*], $example:literal) => {
        /// The layout.
        #[doc = concat!("```\n", $example, "\nassert_eq!(v.shape().logical_dims(), [2, 3]);\nassert_eq!(v.shape().physical_slots(), 6);\n```")]
        pub fn shape(&self) -> &'a TiledShape {
            self.shape
        }

        /// The element at `index`, or why not: the wrong number of entries
        /// or an entry out of bounds (the static views, whose rank is in
        /// the type, return an `Option`).
        #[doc = concat!("```\n", $example, "\nassert_eq!(v.get(&[1, 2]), Ok(5));\nassert!(v.get(&[2, 0]).is_err());\nassert!(v.get(&[0]).is_err());\n```")]
        pub fn get(&self, index: &[u64]) -> Result<T, IndexError> {
            let slot = self.shape.offset(index)?;
            Ok(self.read_slot(slot))
        }

        /// Every element with its index, in row-major logical order.
        #[doc = concat!("```\n", $example, "\nlet all: Vec<_> = v.iter().map(|(_, x)| x).collect();\nassert_eq!(all, [0, 1, 2, 3, 4, 5]);\n```")]
        pub fn iter(&self) -> impl Iterator<Item = (PerDim, T)> $($bound)* {
            let v = self.capture();
            Odometer::new(v.shape.logical_dims())
                .map(move |i| (i, v.read_slot(v.shape.offset_unchecked(&i))))
        }

        /// Every element with its slot and index, in memory order; padding
        /// slots are skipped.
        #[doc = concat!("```\n", $example, "\nlet order: Vec<(usize, _)> = v.iter_physical().map(|(s, _, x)| (s, x)).collect();\nassert_eq!(order, [(0, 0), (1, 3), (2, 1), (3, 4), (4, 2), (5, 5)]); // column-major\n```")]
        pub fn iter_physical(&self) -> impl Iterator<Item = (usize, PerDim, T)> $($bound)* {
            let v = self.capture();
            physical(v.shape, 0..v.shape.physical_slots())
                .map(move |(slot, i)| (slot, i, v.read_slot(slot as u64)))
        }

        /// The elements along dimension `dim` through `index` (whose entry
        /// for `dim` is ignored): a row when `dim` is the last dimension.
        /// Empty if `index` is out of bounds or `dim` is not a dimension.
        #[doc = concat!("```\n", $example, "\nassert_eq!(v.lane(&[1, 0], 1).collect::<Vec<_>>(), [3, 4, 5]);\nassert_eq!(v.lane(&[0, 2], 0).collect::<Vec<_>>(), [2, 5]);\n```")]
        pub fn lane(&self, index: &[u64], dim: usize) -> impl Iterator<Item = T> $($bound)* {
            let v = self.capture();
            lane(v.shape, index, dim).map(move |i| v.read_slot(v.shape.offset_unchecked(&i)))
        }

        /// The elements of first-level tile `k` with their indices, in
        /// memory order ([`TiledShape::tile_slots`]); `None` without tiles,
        /// past the last tile, or when tiles are not runs of slots (a later
        /// tile longer than the first, one that pads it, or one with `*`).
        #[doc = concat!("```\n", $example, "\nassert!(v.tile(0).is_none()); // no tiles\n```")]
        pub fn tile(&self, k: usize) -> Option<impl Iterator<Item = (PerDim, T)> $($bound)*> {
            let v = self.capture();
            let range = tile_range(v.shape, k)?;
            Some(physical(v.shape, range).map(move |(slot, i)| (i, v.read_slot(slot as u64))))
        }
    };
}

macro_rules! typed_reads {
    ($($bound:tt)*) => {
        dyn_reads!([$($bound)*], "use xla_layout_core::{ArrayShape, DynView};\nlet t = ArrayShape::parse_validated(\"s32[2,3]{0,1}\").unwrap().tiled().unwrap();\nlet data = [0, 3, 1, 4, 2, 5]; // column-major: (r, c) holds 3r + c\nlet v = DynView::new(&t, &data).unwrap();");

        /// The underlying slice: the whole buffer, in memory order, even
        /// past the layout's slots.
        ///
        /// ```
        /// use xla_layout_core::{ArrayShape, DynView, DynViewMut};
        /// let t = ArrayShape::parse_validated("s32[2,3]{0,1}").unwrap().tiled().unwrap();
        /// let mut data = [0, 3, 1, 4, 2, 5, 9]; // one element more than the slots
        /// assert_eq!(DynView::new(&t, &data).unwrap().as_slice(), [0, 3, 1, 4, 2, 5, 9]);
        /// assert_eq!(DynViewMut::new(&t, &mut data).unwrap().as_slice().len(), 7);
        /// ```
        pub fn as_slice(&self) -> &[T] {
            &self.data[..]
        }

        fn read_slot(&self, slot: u64) -> T {
            // Fits: `new` checked the buffer holds every slot.
            self.data[slot as usize]
        }
    };
}

/// A slice read through a layout known at run time; the runtime
/// counterpart of [`crate::View`].
///
/// ```
/// use xla_layout_core::{ArrayShape, DynView};
/// let shape = ArrayShape::parse_validated("f32[3,5]{1,0:T(2,2)}").unwrap().tiled().unwrap();
/// let data: Vec<f32> = (0..24).map(|s| s as f32).collect(); // slot numbers
/// let v = DynView::new(&shape, &data).unwrap();
/// assert_eq!(v.get(&[2, 3]), Ok(17.0)); // docs/xla-layouts.md §d.3 example 1
/// assert!(v.get(&[3, 0]).is_err());
/// assert!(DynView::new(&shape, &data[..23]).is_err()); // 24 slots needed
/// assert!(DynView::<i32>::new(&shape, &[0; 24]).is_err()); // i32 does not hold f32
/// ```
#[derive(Debug)]
pub struct DynView<'a, T: Element> {
    shape: &'a TiledShape,
    data: &'a [T],
}

impl<T: Element> Clone for DynView<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Element> Copy for DynView<'_, T> {}

impl<'a, T: Element> DynView<'a, T> {
    /// Views `data` through `shape`: `T` must hold the layout's elements
    /// slot for slot, and `data` must have every slot
    /// ([`TiledShape::physical_slots`]). The view borrows `shape` as well
    /// as `data` (a tiled shape holds its whole tiling program: views stay
    /// two pointers and a length), so bind the shape to a name first: a
    /// temporary (`DynView::new(&tiled("…"), …)`) is dropped while the
    /// view needs it.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, DynView, ViewError};
    /// let t = ArrayShape::parse_validated("f32[3]{0:T(4)}").unwrap().tiled().unwrap();
    /// assert_eq!(DynView::new(&t, &[1.0f32, 2.0, 3.0, 0.0]).unwrap().get(&[2]), Ok(3.0));
    /// // The tile pads 3 elements to 4 slots.
    /// assert_eq!(DynView::new(&t, &[1.0f32, 2.0, 3.0]).unwrap_err(), ViewError::TooShort { needed: 4, got: 3 });
    /// assert!(matches!(DynView::new(&t, &[0i32; 4]), Err(ViewError::ElementType { .. }))); // u32 would hold f32's bits
    /// ```
    pub fn new(shape: &'a TiledShape, data: &'a [T]) -> Result<Self, ViewError> {
        check_element::<T>(shape.element_type(), shape.element_bits())?;
        check_len(shape.physical_slots(), data.len(), false)?;
        Ok(DynView { shape, data })
    }

    /// The underlying slice, for as long as the view could live.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, DynView};
    /// let t = ArrayShape::parse_validated("f32[2]{0}").unwrap().tiled().unwrap();
    /// let data = [1.0f32, 2.0];
    /// assert_eq!(DynView::new(&t, &data).unwrap().into_slice(), &data);
    /// ```
    pub fn into_slice(self) -> &'a [T] {
        self.data
    }

    /// A view whose checks were made (a static view's).
    pub(super) fn from_checked(shape: &'a TiledShape, data: &'a [T]) -> Self {
        debug_assert!(Self::new(shape, data).is_ok());
        DynView { shape, data }
    }

    typed_reads!(+ use<'a, T>);

    fn capture(&self) -> Self {
        *self
    }
}

/// A mutable slice read and written through a layout known at run time;
/// the runtime counterpart of [`crate::ViewMut`].
///
/// ```
/// use xla_layout_core::{ArrayShape, DynView, DynViewMut};
/// let t = |s| ArrayShape::parse_validated(s).unwrap().tiled().unwrap();
/// let (host, tpu) = (t("bf16[4,8]{1,0}"), t("bf16[4,8]{1,0:T(2,4)(2,1)}"));
/// let rows: Vec<u16> = (0..32).collect();                 // element (r, c) = 8r + c
/// let mut out = vec![0u16; 32];
/// let mut v = DynViewMut::new(&tpu, &mut out).unwrap();
/// v.copy_from(&DynView::new(&host, &rows).unwrap()).unwrap();
/// assert_eq!(&out[..8], &[0, 8, 1, 9, 2, 10, 3, 11]);     // tiled_layout.md figure 2
/// ```
#[derive(Debug)]
pub struct DynViewMut<'a, T: Element> {
    shape: &'a TiledShape,
    data: &'a mut [T],
}

impl<'a, T: Element> DynViewMut<'a, T> {
    /// Views `data` mutably; see [`DynView::new`].
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, DynViewMut, ViewError};
    /// let t = ArrayShape::parse_validated("f32[3]{0:T(4)}").unwrap().tiled().unwrap();
    /// let mut data = [0.0f32; 4];
    /// DynViewMut::new(&t, &mut data).unwrap().set(&[2], 3.0).unwrap();
    /// assert_eq!(data, [0.0, 0.0, 3.0, 0.0]);
    /// assert_eq!(DynViewMut::new(&t, &mut data[..3]).unwrap_err(), ViewError::TooShort { needed: 4, got: 3 });
    /// ```
    pub fn new(shape: &'a TiledShape, data: &'a mut [T]) -> Result<Self, ViewError> {
        check_element::<T>(shape.element_type(), shape.element_bits())?;
        check_len(shape.physical_slots(), data.len(), false)?;
        Ok(DynViewMut { shape, data })
    }

    /// A view whose checks were made (a static view's).
    pub(super) fn from_checked(shape: &'a TiledShape, data: &'a mut [T]) -> Self {
        debug_assert!(check_element::<T>(shape.element_type(), shape.element_bits()).is_ok());
        debug_assert!(data.len() as u64 >= shape.physical_slots());
        DynViewMut { shape, data }
    }

    typed_reads!(+ '_);

    fn capture(&self) -> &Self {
        self
    }

    /// A shared view of the same buffer.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, DynViewMut};
    /// let t = ArrayShape::parse_validated("f32[2]{0}").unwrap().tiled().unwrap();
    /// let mut data = [1.0f32, 2.0];
    /// let v = DynViewMut::new(&t, &mut data).unwrap();
    /// assert_eq!(v.as_view().get(&[1]), Ok(2.0));
    /// ```
    pub fn as_view(&self) -> DynView<'_, T> {
        DynView {
            shape: self.shape,
            data: self.data,
        }
    }

    /// The same view for a shorter time, leaving this one usable after:
    /// for the methods that consume a view (`into_ndarray`, `into_dlpack`).
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, DynViewMut};
    /// let t = ArrayShape::parse_validated("f32[2]{0}").unwrap().tiled().unwrap();
    /// let mut data = [0.0f32; 2];
    /// let mut v = DynViewMut::new(&t, &mut data).unwrap();
    /// v.reborrow().set(&[0], 1.0).unwrap();
    /// v.set(&[1], 2.0).unwrap();
    /// assert_eq!(data, [1.0, 2.0]);
    /// ```
    pub fn reborrow(&mut self) -> DynViewMut<'_, T> {
        DynViewMut {
            shape: self.shape,
            data: self.data,
        }
    }

    /// The underlying slice, mutably.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, DynViewMut};
    /// let t = ArrayShape::parse_validated("f32[2]{0}").unwrap().tiled().unwrap();
    /// let mut data = [0.0f32; 2];
    /// DynViewMut::new(&t, &mut data).unwrap().as_mut_slice()[1] = 5.0;
    /// assert_eq!(data, [0.0, 5.0]);
    /// ```
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        self.data
    }

    /// The layout and the underlying slice, for as long as the view could
    /// live.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, DynViewMut};
    /// let t = ArrayShape::parse_validated("f32[2]{0}").unwrap().tiled().unwrap();
    /// let mut data = [0.0f32; 2];
    /// let (shape, slice) = DynViewMut::new(&t, &mut data).unwrap().into_parts();
    /// assert_eq!((shape.physical_slots(), slice.len()), (2, 2));
    /// ```
    pub fn into_parts(self) -> (&'a TiledShape, &'a mut [T]) {
        (self.shape, self.data)
    }

    /// Writes `value` at `index`.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, DynViewMut};
    /// let t = ArrayShape::parse_validated("s32[2,3]{0,1}").unwrap().tiled().unwrap();
    /// let mut data = [0i32; 6];
    /// let mut v = DynViewMut::new(&t, &mut data).unwrap();
    /// v.set(&[1, 0], 7).unwrap();
    /// assert!(v.set(&[2, 0], 7).is_err()); // nothing written
    /// assert_eq!(data, [0, 7, 0, 0, 0, 0]);
    /// ```
    pub fn set(&mut self, index: &[u64], value: T) -> Result<(), IndexError> {
        let slot = self.shape.offset(index)?;
        self.data[slot as usize] = value;
        Ok(())
    }

    /// A mutable reference to the element at `index`.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, DynViewMut};
    /// let t = ArrayShape::parse_validated("s32[2,3]{0,1}").unwrap().tiled().unwrap();
    /// let mut data = [0i32; 6];
    /// *DynViewMut::new(&t, &mut data).unwrap().get_mut(&[0, 1]).unwrap() += 3;
    /// assert_eq!(data[2], 3);
    /// ```
    pub fn get_mut(&mut self, index: &[u64]) -> Result<&mut T, IndexError> {
        let slot = self.shape.offset(index)?;
        Ok(&mut self.data[slot as usize])
    }

    /// Sets every padding slot (tile padding and `L` tail padding).
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, DynViewMut};
    /// let shape = ArrayShape::parse_validated("f32[3,5]{1,0:T(2,2)}").unwrap().tiled().unwrap();
    /// let mut data = vec![0.0f32; 24];
    /// DynViewMut::new(&shape, &mut data).unwrap().fill_padding(f32::NAN);
    /// let pads: Vec<usize> = (0..24).filter(|&s| data[s].is_nan()).collect();
    /// assert_eq!(pads, [9, 11, 14, 15, 18, 19, 21, 22, 23]);
    /// ```
    pub fn fill_padding(&mut self, value: T) {
        let mut next = 0;
        for (slot, _) in physical(self.shape, 0..self.shape.physical_slots()) {
            self.data[next..slot].fill(value);
            next = slot + 1;
        }
        let end = self.shape.physical_slots() as usize;
        self.data[next..end].fill(value);
    }

    /// Copies every element of `src` (another layout of the same logical
    /// shape) into this buffer's layout through the relayout planner, and
    /// sets padding slots to `T`'s zero bits; refused (nothing written)
    /// when the logical shapes differ.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, DynView, DynViewMut};
    /// let t = |s| ArrayShape::parse_validated(s).unwrap().tiled().unwrap();
    /// let (rows, cols) = (t("s32[2,3]{1,0}"), t("s32[2,3]{0,1}"));
    /// let src = [0, 1, 2, 3, 4, 5];
    /// let mut out = [9i32; 6];
    /// DynViewMut::new(&cols, &mut out).unwrap().copy_from(&DynView::new(&rows, &src).unwrap()).unwrap();
    /// assert_eq!(out, [0, 3, 1, 4, 2, 5]);
    /// let other = t("s32[3,2]{1,0}");
    /// assert!(DynViewMut::new(&cols, &mut out).unwrap().copy_from(&DynView::new(&other, &src).unwrap()).is_err());
    /// ```
    pub fn copy_from(&mut self, src: &DynView<'_, T>) -> Result<(), RelayoutError> {
        let zero = T::decode(0, self.shape.element_type());
        self.copy_from_with_padding(src, zero)
    }

    /// As [`DynViewMut::copy_from`], with padding slots set to `pad`.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, DynView, DynViewMut};
    /// let t = |s| ArrayShape::parse_validated(s).unwrap().tiled().unwrap();
    /// let (plain, tiled) = (t("f32[3]{0}"), t("f32[3]{0:T(4)}"));
    /// let mut out = [0.0f32; 4];
    /// let src = DynView::new(&plain, &[1.0, 2.0, 3.0]).unwrap();
    /// DynViewMut::new(&tiled, &mut out).unwrap().copy_from_with_padding(&src, -1.0).unwrap();
    /// assert_eq!(out, [1.0, 2.0, 3.0, -1.0]);
    /// ```
    ///
    /// The plan ([`Relayout`]) is built on the stack for each call; to copy
    /// many buffers between the same two layouts, build it once and call
    /// [`Relayout::copy`].
    pub fn copy_from_with_padding(
        &mut self,
        src: &DynView<'_, T>,
        pad: T,
    ) -> Result<(), RelayoutError> {
        Relayout::new(src.shape, self.shape)?.copy(src.data, self.data, pad)
    }
}

macro_rules! bits_reads {
    ($($bound:tt)*) => {
        dyn_reads!([$($bound)*], "use xla_layout_core::{ArrayShape, DynBitsView};\nlet t = ArrayShape::parse_validated(\"s4[2,3]{0,1:E(4)}\").unwrap().tiled().unwrap();\nlet bytes = [0x30, 0x41, 0x52]; // column-major nibbles, low first: (r, c) holds 3r + c\nlet v = DynBitsView::<i8>::new(&t, &bytes).unwrap();");

        /// The underlying bytes: the whole buffer, even past the layout's.
        ///
        /// ```
        /// use xla_layout_core::{ArrayShape, DynBitsView, DynBitsViewMut};
        /// let t = ArrayShape::parse_validated("s4[2,3]{0,1:E(4)}").unwrap().tiled().unwrap();
        /// let mut bytes = [0x30, 0x41, 0x52, 0xFF]; // one byte more than the layout's 3
        /// assert_eq!(DynBitsView::<i8>::new(&t, &bytes).unwrap().as_bytes(), [0x30, 0x41, 0x52, 0xFF]);
        /// assert_eq!(DynBitsViewMut::<i8>::new(&t, &mut bytes).unwrap().as_bytes().len(), 4);
        /// ```
        pub fn as_bytes(&self) -> &[u8] {
            &self.bytes[..]
        }

        fn read_slot(&self, slot: u64) -> T {
            let bits = self.shape.element_bits();
            // Fits: `new` checked `total_bits`, and the width is at most 128.
            let value = read_value(
                &self.bytes[..],
                slot * bits,
                bits,
                self.shape.element_type(),
            );
            T::decode(value, self.shape.element_type())
        }
    };
}

/// The bytes of a layout: every slot's bits must have a 64-bit offset and
/// `T` must hold the element.
fn check_bytes<T: Element>(shape: &TiledShape, len: usize) -> Result<(), ViewError> {
    let ty = shape.element_type();
    let wrong = ViewError::element_type::<T>(ty, shape.element_bits());
    if !holds_bits::<T>(ty, shape.element_bits()) {
        return Err(wrong);
    }
    let Some(bits) = shape.total_bits() else {
        // Bits past 64 bits of count: no buffer holds them; the error
        // names the layout's bytes (2^62 for `s4[2^63 - 1]`), saturated
        // only where they pass `usize`.
        return Err(ViewError::TooFewBytes {
            needed: usize::try_from(shape.exact_bytes()).unwrap_or(usize::MAX),
            got: len,
        });
    };
    check_len(bits.div_ceil(8), len, true)
}

/// Bytes read through a layout known at run time as elements of `T`,
/// packed or not; the runtime counterpart of [`crate::BitsView`].
///
/// ```
/// use xla_layout_core::{ArrayShape, DynBitsView};
/// let shape = ArrayShape::parse_validated("s4[4]{0:E(4)}").unwrap().tiled().unwrap();
/// let bytes = [0x21u8, 0xF3];                       // LSB first: 1, 2, 3, -1
/// let v = DynBitsView::<i8>::new(&shape, &bytes).unwrap();
/// assert_eq!(v.iter().map(|(_, x)| x).collect::<Vec<_>>(), [1, 2, 3, -1]);
/// ```
#[derive(Debug)]
pub struct DynBitsView<'a, T: Element> {
    shape: &'a TiledShape,
    bytes: &'a [u8],
    element: core::marker::PhantomData<T>,
}

impl<T: Element> Clone for DynBitsView<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Element> Copy for DynBitsView<'_, T> {}

impl<'a, T: Element> DynBitsView<'a, T> {
    /// Views `bytes` (at least [`TiledShape::exact_bytes`] of them) as
    /// elements of `T`.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, DynBitsView, ViewError};
    /// let t = ArrayShape::parse_validated("s4[3]{0:E(4)}").unwrap().tiled().unwrap();
    /// assert_eq!(DynBitsView::<i8>::new(&t, &[0x21, 0x03]).unwrap().get(&[2]), Ok(3));
    /// // 3 elements of 4 bits: 2 bytes.
    /// assert_eq!(DynBitsView::<i8>::new(&t, &[0x21]).unwrap_err(), ViewError::TooFewBytes { needed: 2, got: 1 });
    /// assert!(matches!(DynBitsView::<f32>::new(&t, &[0; 2]), Err(ViewError::ElementType { .. })));
    /// // Bits past a 64-bit count: the bytes needed are still the layout's.
    /// let huge = ArrayShape::parse_validated("s4[9223372036854775807]{0:E(4)}").unwrap().tiled().unwrap();
    /// let needed = usize::try_from(huge.exact_bytes()).unwrap_or(usize::MAX);
    /// assert_eq!(DynBitsView::<i8>::new(&huge, &[]).unwrap_err(), ViewError::TooFewBytes { needed, got: 0 });
    /// ```
    pub fn new(shape: &'a TiledShape, bytes: &'a [u8]) -> Result<Self, ViewError> {
        check_bytes::<T>(shape, bytes.len())?;
        Ok(DynBitsView {
            shape,
            bytes,
            element: core::marker::PhantomData,
        })
    }

    /// A view whose checks were made (a static view's).
    pub(super) fn from_checked(shape: &'a TiledShape, bytes: &'a [u8]) -> Self {
        debug_assert!(check_bytes::<T>(shape, bytes.len()).is_ok());
        DynBitsView {
            shape,
            bytes,
            element: core::marker::PhantomData,
        }
    }

    bits_reads!(+ use<'a, T>);

    fn capture(&self) -> Self {
        *self
    }
}

/// Mutable bytes read and written through a layout known at run time; the
/// runtime counterpart of [`crate::BitsViewMut`].
///
/// ```
/// use xla_layout_core::{ArrayShape, DynBitsViewMut};
/// let shape = ArrayShape::parse_validated("pred[8]{0:E(1)}").unwrap().tiled().unwrap();
/// let mut bytes = [0u8; 1];
/// let mut v = DynBitsViewMut::new(&shape, &mut bytes).unwrap();
/// v.set(&[0], true).unwrap();
/// v.set(&[3], true).unwrap();
/// assert_eq!(bytes, [0b0000_1001]);
/// ```
#[derive(Debug)]
pub struct DynBitsViewMut<'a, T: Element> {
    shape: &'a TiledShape,
    bytes: &'a mut [u8],
    element: core::marker::PhantomData<T>,
}

impl<'a, T: Element> DynBitsViewMut<'a, T> {
    /// Views `bytes` mutably; see [`DynBitsView::new`].
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, DynBitsViewMut, ViewError};
    /// let t = ArrayShape::parse_validated("s4[3]{0:E(4)}").unwrap().tiled().unwrap();
    /// let mut bytes = [0u8; 2];
    /// DynBitsViewMut::<i8>::new(&t, &mut bytes).unwrap().set(&[2], 3).unwrap();
    /// assert_eq!(bytes, [0x00, 0x03]);
    /// assert_eq!(DynBitsViewMut::<i8>::new(&t, &mut bytes[..1]).unwrap_err(), ViewError::TooFewBytes { needed: 2, got: 1 });
    /// ```
    pub fn new(shape: &'a TiledShape, bytes: &'a mut [u8]) -> Result<Self, ViewError> {
        check_bytes::<T>(shape, bytes.len())?;
        Ok(DynBitsViewMut {
            shape,
            bytes,
            element: core::marker::PhantomData,
        })
    }

    /// A view whose checks were made (a static view's).
    pub(super) fn from_checked(shape: &'a TiledShape, bytes: &'a mut [u8]) -> Self {
        debug_assert!(check_bytes::<T>(shape, bytes.len()).is_ok());
        DynBitsViewMut {
            shape,
            bytes,
            element: core::marker::PhantomData,
        }
    }

    bits_reads!(+ '_);

    fn capture(&self) -> &Self {
        self
    }

    /// A shared view of the same bytes.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, DynBitsViewMut};
    /// let t = ArrayShape::parse_validated("u2[4]{0:E(2)}").unwrap().tiled().unwrap();
    /// let mut bytes = [0b1110_0100u8];
    /// let v = DynBitsViewMut::<u8>::new(&t, &mut bytes).unwrap();
    /// assert_eq!(v.as_view().iter().map(|(_, x)| x).collect::<Vec<_>>(), [0, 1, 2, 3]);
    /// ```
    pub fn as_view(&self) -> DynBitsView<'_, T> {
        DynBitsView {
            shape: self.shape,
            bytes: self.bytes,
            element: core::marker::PhantomData,
        }
    }

    /// Sets every padding slot (tile padding and `L` tail padding) to
    /// `value`; refused (nothing written) when the element cannot hold it,
    /// as [`DynBitsViewMut::set`] refuses it.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, DynBitsViewMut};
    /// let t = ArrayShape::parse_validated("s4[3]{0:T(4)E(4)}").unwrap().tiled().unwrap();
    /// let mut bytes = [0u8; 2];
    /// DynBitsViewMut::<i8>::new(&t, &mut bytes).unwrap().fill_padding(-1).unwrap();
    /// assert_eq!(bytes, [0x00, 0xF0]); // slot 3 of 4 is padding
    /// ```
    pub fn fill_padding(&mut self, value: T) -> Result<(), IndexError> {
        let bits = self.shape.element_bits();
        let ty = self.shape.element_type();
        let encoded = super::element::encode_into_slot(value, ty, bits)?;
        let end = self.shape.physical_slots();
        let mut next = 0u64;
        let elements = physical(self.shape, 0..end).map(|(slot, _)| slot as u64);
        for slot in elements.chain(core::iter::once(end)) {
            for pad in next..slot {
                // Fits: `new` checked `total_bits`; the width is at most 128.
                write_bits(self.bytes, pad * bits, bits as u32, encoded);
            }
            next = slot + 1;
        }
        Ok(())
    }

    /// The layout and the underlying bytes, for as long as the view could
    /// live.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, DynBitsViewMut};
    /// let t = ArrayShape::parse_validated("u2[4]{0:E(2)}").unwrap().tiled().unwrap();
    /// let mut bytes = [0u8; 1];
    /// let (shape, b) = DynBitsViewMut::<u8>::new(&t, &mut bytes).unwrap().into_parts();
    /// assert_eq!((shape.exact_bytes(), b.len()), (1, 1));
    /// ```
    pub fn into_parts(self) -> (&'a TiledShape, &'a mut [u8]) {
        (self.shape, self.bytes)
    }

    /// Writes `value` at `index` (only its element's bits change; bits of
    /// a slot wider than the type above its width are left as XLA leaves
    /// them, unspecified: readers ignore them).
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, DynBitsViewMut};
    /// let t = ArrayShape::parse_validated("s4[4]{0:E(4)}").unwrap().tiled().unwrap();
    /// let mut bytes = [0u8; 2];
    /// let mut v = DynBitsViewMut::<i8>::new(&t, &mut bytes).unwrap();
    /// v.set(&[1], -1).unwrap();
    /// assert_eq!(v.get(&[1]), Ok(-1));
    /// assert_eq!(bytes, [0xF0, 0]);
    /// ```
    pub fn set(&mut self, index: &[u64], value: T) -> Result<(), IndexError> {
        let slot = self.shape.offset(index)?;
        let bits = self.shape.element_bits();
        let ty = self.shape.element_type();
        let encoded = super::element::encode_into_slot(value, ty, bits)?;
        // Fits: `new` checked `total_bits`; the width is at most 128.
        write_bits(self.bytes, slot * bits, bits as u32, encoded);
        Ok(())
    }

    /// Copies every element of `src` (same logical shape) into this layout
    /// ([`Relayout::copy_bytes`]); bytes that hold no element become 0.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, DynBitsView, DynBitsViewMut};
    /// let t = |s| ArrayShape::parse_validated(s).unwrap().tiled().unwrap();
    /// let (packed, bytes) = (t("s4[4]{0:E(4)}"), t("s4[4]{0}"));
    /// let mut out = [0u8; 4];
    /// let src = DynBitsView::<i8>::new(&packed, &[0x21, 0xF3]).unwrap();
    /// DynBitsViewMut::<i8>::new(&bytes, &mut out).unwrap().copy_from(&src).unwrap();
    /// assert_eq!(out.map(|b| (b << 4) as i8 >> 4), [1, 2, 3, -1]); // one per byte, low bits
    /// ```
    pub fn copy_from(&mut self, src: &DynBitsView<'_, T>) -> Result<(), RelayoutError> {
        Relayout::new(src.shape, self.shape)?.copy_bytes(src.bytes, self.bytes, 0)
    }
}
