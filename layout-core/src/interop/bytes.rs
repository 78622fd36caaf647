//! Typed views over raw bytes (a file, a device buffer, a memory map) for
//! element types that every bit pattern is a value of (`bytemuck::Pod`):
//! the bytes are reinterpreted in place, not copied.

use bytemuck::Pod;

use crate::{DynView, DynViewMut, Element, StaticLayout, TiledShape, View, ViewError, ViewMut};

/// The bytes `slots` elements of `T` take, saturating: no buffer holds
/// more than `usize::MAX` bytes.
fn bytes_for<T>(slots: u64) -> usize {
    usize::try_from(slots)
        .ok()
        .and_then(|n| n.checked_mul(size_of::<T>()))
        .unwrap_or(usize::MAX)
}

/// `bytes` as elements of `T`: every whole element of it, after checking
/// that it holds `slots` of them and is aligned.
fn cast<T: Pod>(bytes: &[u8], slots: u64) -> Result<&[T], ViewError> {
    let needed = bytes_for::<T>(slots);
    if bytes.len() < needed {
        return Err(ViewError::TooFewBytes {
            needed,
            got: bytes.len(),
        });
    }
    let whole = bytes.len() - bytes.len() % size_of::<T>().max(1);
    if whole == 0 || needed == 0 {
        // No element to read: any bytes will do, aligned or not.
        return Ok(&[]);
    }
    bytemuck::try_cast_slice(&bytes[..whole]).map_err(|_| ViewError::Misaligned {
        align: align_of::<T>(),
    })
}

/// [`cast`], mutably.
fn cast_mut<T: Pod>(bytes: &mut [u8], slots: u64) -> Result<&mut [T], ViewError> {
    let needed = bytes_for::<T>(slots);
    if bytes.len() < needed {
        return Err(ViewError::TooFewBytes {
            needed,
            got: bytes.len(),
        });
    }
    let whole = bytes.len() - bytes.len() % size_of::<T>().max(1);
    if whole == 0 || needed == 0 {
        return Ok(&mut []);
    }
    bytemuck::try_cast_slice_mut(&mut bytes[..whole]).map_err(|_| ViewError::Misaligned {
        align: align_of::<T>(),
    })
}

impl<'a, L: StaticLayout, T: Element + Pod> View<'a, L, T> {
    /// Views `bytes` in place as elements of `T`: they must be aligned for
    /// `T` and hold `L::PHYSICAL_ELEMENTS` of them.
    ///
    /// ```
    /// use xla_layout::{layout, View};
    /// layout! { type L = s16[2,2]{0,1}; }
    /// let bytes: [u8; 8] = bytemuck::cast([1i16, 3, 2, 4]); // column-major
    /// let v = View::<L, i16>::from_bytes(&bytes).unwrap();
    /// assert_eq!(v.get([0, 1]), Some(2));
    /// ```
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Self, ViewError> {
        View::new(cast(bytes, L::PHYSICAL_ELEMENTS as u64)?)
    }
}

impl<'a, L: StaticLayout, T: Element + Pod> ViewMut<'a, L, T> {
    /// Views `bytes` mutably in place; see [`View::from_bytes`].
    ///
    /// ```
    /// use xla_layout::{layout, ViewMut};
    /// layout! { type L = s16[2,2]{0,1}; }
    /// let mut bytes = [0u16; 4];                      // a u16 buffer: aligned for i16
    /// let raw: &mut [u8] = bytemuck::cast_slice_mut(&mut bytes);
    /// ViewMut::<L, i16>::from_bytes_mut(raw).unwrap().set([0, 1], -2).unwrap();
    /// assert_eq!(bytes[2], 0xFFFE);                   // column-major: (0, 1) is slot 2
    /// ```
    pub fn from_bytes_mut(bytes: &'a mut [u8]) -> Result<Self, ViewError> {
        ViewMut::new(cast_mut(bytes, L::PHYSICAL_ELEMENTS as u64)?)
    }
}

impl<'a, T: Element + Pod> DynView<'a, T> {
    /// Views `bytes` in place as elements of `T` through `shape`: they
    /// must be aligned for `T` and hold every slot.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, DynView, ViewError};
    /// let t = ArrayShape::parse_validated("f32[2]{0}").unwrap().tiled().unwrap();
    /// let bytes: [u8; 8] = bytemuck::cast([1.5f32, -2.0]);
    /// assert_eq!(DynView::<f32>::from_bytes(&t, &bytes).unwrap().get(&[1]), Ok(-2.0));
    /// assert_eq!(DynView::<f32>::from_bytes(&t, &bytes[..7]).unwrap_err(), ViewError::TooFewBytes { needed: 8, got: 7 });
    /// // The wrong element type is named as such, not as a length.
    /// let e = DynView::<u16>::from_bytes(&t, &bytes).unwrap_err();
    /// assert!(matches!(e, ViewError::ElementType { .. }), "{e}");
    /// ```
    pub fn from_bytes(shape: &'a TiledShape, bytes: &'a [u8]) -> Result<Self, ViewError> {
        // The element type first: bytes of the right length for the
        // layout are the wrong length for the wrong `T`, and that is the
        // mistake to name.
        crate::view::check_element::<T>(shape.element_type(), shape.element_bits())?;
        DynView::new(shape, cast(bytes, shape.physical_slots())?)
    }
}

impl<'a, T: Element + Pod> DynViewMut<'a, T> {
    /// Views `bytes` mutably in place; see [`DynView::from_bytes`]. Bytes
    /// not aligned for `T` are refused rather than copied.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, DynViewMut, ViewError};
    /// let t = ArrayShape::parse_validated("f32[2]{0}").unwrap().tiled().unwrap();
    /// let mut words = [0u32; 3];
    /// let raw: &mut [u8] = bytemuck::cast_slice_mut(&mut words);
    /// assert_eq!(DynViewMut::<f32>::from_bytes_mut(&t, &mut raw[1..9]).unwrap_err(), ViewError::Misaligned { align: 4 });
    /// DynViewMut::<f32>::from_bytes_mut(&t, &mut raw[4..12]).unwrap().set(&[0], 1.0).unwrap();
    /// assert_eq!(words[1], 1.0f32.to_bits());
    /// ```
    pub fn from_bytes_mut(shape: &'a TiledShape, bytes: &'a mut [u8]) -> Result<Self, ViewError> {
        crate::view::check_element::<T>(shape.element_type(), shape.element_bits())?;
        DynViewMut::new(shape, cast_mut(bytes, shape.physical_slots())?)
    }
}
