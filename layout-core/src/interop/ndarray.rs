//! Typed views as `ndarray` views: a strided view of the logical shape
//! when the layout has one stride per dimension, and otherwise the
//! higher-rank view of its hierarchical form (one axis per digit).

use alloc::vec::Vec;

use ndarray::{ArrayViewD, ArrayViewMutD, IxDyn, ShapeBuilder};

use crate::{
    DynView, DynViewMut, Element, NotHierarchical, NotStrided, StaticLayout, TiledShape, View,
    ViewError, ViewMut,
};

/// Why a layout has no `ndarray` view of the asked kind.
///
/// ```
/// use xla_layout_core::{ArrayShape, NdarrayError, ViewError};
/// let t = |s| ArrayShape::parse_validated(s).unwrap().tiled().unwrap();
/// let tpu = t("bf16[16,256]{1,0:T(8,128)(2,1)}");
/// // A tile splits each dimension: no stride per dimension, but one per digit.
/// assert!(matches!(tpu.ndarray(&[0u16; 4096]), Err(NdarrayError::NotStrided(_))));
/// assert!(tpu.ndarray_tiled(&[0u16; 4096]).is_ok());
/// let short = tpu.ndarray_tiled(&[0u16; 10]).unwrap_err();
/// assert_eq!(short, NdarrayError::View(ViewError::TooShort { needed: 4096, got: 10 }));
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum NdarrayError {
    /// No stride per logical dimension (a tile splits one).
    NotStrided(NotStrided),
    /// No hierarchical form (`*` tiles or tiles that do not nest).
    NotHierarchical(NotHierarchical),
    /// The buffer does not hold the layout ([`TiledShape::ndarray`] and
    /// its siblings check it as [`DynView::new`] does).
    View(ViewError),
    /// `ndarray` refused the shape and strides. A non-empty view always
    /// fits (its buffer bounds every count and stride); an empty array's
    /// other dimensions are not bounded by its buffer, and beyond `usize`
    /// or `isize::MAX` elements `ndarray` cannot describe them.
    Shape(ndarray::ShapeError),
}

impl core::fmt::Display for NdarrayError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            NdarrayError::NotStrided(e) => write!(f, "no strided view: {e}"),
            NdarrayError::NotHierarchical(e) => write!(f, "no hierarchical view: {e}"),
            NdarrayError::View(e) => write!(f, "{e}"),
            NdarrayError::Shape(e) => write!(f, "ndarray refused the view: {e}"),
        }
    }
}

impl core::error::Error for NdarrayError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            NdarrayError::NotStrided(e) => Some(e),
            NdarrayError::NotHierarchical(e) => Some(e),
            NdarrayError::View(e) => Some(e),
            // ndarray implements `Error` for it only with its `std` feature
            // (ours turns it on); without, the message carries it.
            #[cfg(feature = "std")]
            NdarrayError::Shape(e) => Some(e),
            #[cfg(not(feature = "std"))]
            NdarrayError::Shape(_) => None,
        }
    }
}

/// Sizes and strides (in slots) of an `ndarray` view.
struct Axes {
    sizes: Vec<usize>,
    strides: Vec<usize>,
}

impl Axes {
    /// An empty array reads no slot: its strides are 0, so that `ndarray`
    /// (which bounds the largest offset even then) accepts any buffer.
    fn build(mut self) -> ndarray::StrideShape<IxDyn> {
        if self.sizes.contains(&0) {
            self.strides.fill(0);
        }
        IxDyn(&self.sizes).strides(IxDyn(&self.strides))
    }
}

/// A count or stride as `usize`. In a non-empty view each is below the
/// buffer's length; an empty array's may not be, and then `ndarray` could
/// not describe it either.
fn small(v: u64) -> Result<usize, NdarrayError> {
    usize::try_from(v).map_err(|_| {
        NdarrayError::Shape(ndarray::ShapeError::from_kind(ndarray::ErrorKind::Overflow))
    })
}

/// The logical shape with one slot stride per dimension.
fn strided(shape: &TiledShape) -> Result<Axes, NdarrayError> {
    let strides = shape.logical_strides().map_err(NdarrayError::NotStrided)?;
    Ok(Axes {
        sizes: shape
            .logical_dims()
            .iter()
            .map(|&d| small(d))
            .collect::<Result<_, _>>()?,
        strides: strides
            .iter()
            .map(|&s| small(s))
            .collect::<Result<_, _>>()?,
    })
}

/// One axis per digit of the hierarchical form, logical order
/// ([`crate::Hierarchical::axes`]); an empty dimension empties its most
/// significant axis (the form pads every dimension to at least one tile).
fn tiled(shape: &TiledShape) -> Result<Axes, NdarrayError> {
    let h = shape
        .hierarchical()
        .map_err(NdarrayError::NotHierarchical)?;
    let dims = shape.logical_dims();
    let mut axes = Axes {
        sizes: Vec::new(),
        strides: Vec::new(),
    };
    let mut previous = None;
    for axis in h.axes() {
        let first = previous != Some(axis.dim);
        previous = Some(axis.dim);
        let empty = first && dims[axis.dim] == 0;
        axes.sizes.push(if empty { 0 } else { small(axis.size)? });
        axes.strides.push(small(axis.stride)?);
    }
    Ok(axes)
}

/// A buffer checked against the layout, as the views check it.
fn checked<T: Element>(shape: &TiledShape, data: &[T]) -> Result<(), NdarrayError> {
    DynView::new(shape, data)
        .map(|_| ())
        .map_err(NdarrayError::View)
}

impl TiledShape {
    /// `data` through this layout as an `ndarray` view of the logical
    /// shape, for layouts with one stride per dimension
    /// ([`TiledShape::logical_strides`]: untiled, tiles that only pad, or
    /// tiles whose pieces join back into one stride); `data` is checked as
    /// [`DynView::new`] checks it. The
    /// view borrows only `data`, not the layout.
    ///
    /// ```
    /// use xla_layout_core::ArrayShape;
    /// fn column_major(data: &[f32]) -> ndarray::ArrayViewD<'_, f32> {
    ///     let t = ArrayShape::parse_validated("f32[2,3]{0,1}").unwrap().tiled().unwrap();
    ///     t.ndarray(data).unwrap() // outlives `t`
    /// }
    /// let data = [1.0f32, 4.0, 2.0, 5.0, 3.0, 6.0];
    /// assert_eq!(column_major(&data), ndarray::arr2(&[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]).into_dyn());
    /// ```
    pub fn ndarray<'d, T: Element>(
        &self,
        data: &'d [T],
    ) -> Result<ArrayViewD<'d, T>, NdarrayError> {
        checked(self, data)?;
        ArrayViewD::from_shape(strided(self)?.build(), data).map_err(NdarrayError::Shape)
    }

    /// [`TiledShape::ndarray`], mutable.
    ///
    /// ```
    /// use xla_layout_core::ArrayShape;
    /// let t = ArrayShape::parse_validated("s32[2,3]{0,1}").unwrap().tiled().unwrap();
    /// let mut data = [0i32; 6];
    /// t.ndarray_mut(&mut data).unwrap()[[1, 0]] = 7;
    /// assert_eq!(data, [0, 7, 0, 0, 0, 0]);
    /// ```
    pub fn ndarray_mut<'d, T: Element>(
        &self,
        data: &'d mut [T],
    ) -> Result<ArrayViewMutD<'d, T>, NdarrayError> {
        checked(self, data)?;
        ArrayViewMutD::from_shape(strided(self)?.build(), data).map_err(NdarrayError::Shape)
    }

    /// `data` through this layout as an `ndarray` view with one axis per
    /// digit of the layout's hierarchical form ([`crate::Hierarchical::axes`]:
    /// dimension by dimension, most significant digit first), over the
    /// form's padded domain (each dimension padded to its mode's size,
    /// [`crate::Mode::size`]): a row-major array of that padded shape,
    /// reshaped to these axes, lines up element for element, so `assign`
    /// between the two is a relayout.
    ///
    /// ```
    /// use ndarray::Array;
    /// use xla_layout_core::ArrayShape;
    /// let t = ArrayShape::parse_validated("bf16[16,256]{1,0:T(8,128)(2,1)}").unwrap().tiled().unwrap();
    /// let tpu: Vec<u16> = (0..4096).map(|s| t.logical_index(s).unwrap().map_or(0, |i| (i[0] * 256 + i[1]) as u16)).collect();
    /// let a = t.ndarray_tiled(&tpu).unwrap();
    /// assert_eq!(a.shape(), [2, 4, 2, 2, 128]);
    /// let rows = Array::from_shape_fn((16, 256), |(r, c)| (r * 256 + c) as u16);
    /// assert_eq!(a, rows.into_shape_with_order(a.shape()).unwrap());
    /// ```
    pub fn ndarray_tiled<'d, T: Element>(
        &self,
        data: &'d [T],
    ) -> Result<ArrayViewD<'d, T>, NdarrayError> {
        checked(self, data)?;
        ArrayViewD::from_shape(tiled(self)?.build(), data).map_err(NdarrayError::Shape)
    }

    /// [`TiledShape::ndarray_tiled`], mutable: assigning a reshaped
    /// row-major array lays it out in the tiled format.
    ///
    /// ```
    /// use ndarray::Array;
    /// use xla_layout_core::ArrayShape;
    /// let t = ArrayShape::parse_validated("bf16[4,8]{1,0:T(2,4)(2,1)}").unwrap().tiled().unwrap();
    /// let mut out = [0u16; 32];
    /// let mut a = t.ndarray_tiled_mut(&mut out).unwrap();
    /// let rows = Array::from_shape_fn((4, 8), |(r, c)| (8 * r + c) as u16);
    /// let shape = a.shape().to_vec();
    /// a.assign(&rows.into_shape_with_order(shape).unwrap());
    /// assert_eq!(&out[..8], &[0, 8, 1, 9, 2, 10, 3, 11]); // tiled_layout.md figure 2
    /// ```
    pub fn ndarray_tiled_mut<'d, T: Element>(
        &self,
        data: &'d mut [T],
    ) -> Result<ArrayViewMutD<'d, T>, NdarrayError> {
        checked(self, data)?;
        ArrayViewMutD::from_shape(tiled(self)?.build(), data).map_err(NdarrayError::Shape)
    }
}

impl<'a, T: Element> DynView<'a, T> {
    /// The view as an `ndarray` view of the logical shape:
    /// [`TiledShape::ndarray`] of its layout and buffer.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, DynView};
    /// let t = ArrayShape::parse_validated("f32[2,3]{0,1}").unwrap().tiled().unwrap();
    /// let data = [1.0f32, 4.0, 2.0, 5.0, 3.0, 6.0]; // column-major
    /// let a = DynView::new(&t, &data).unwrap().ndarray().unwrap();
    /// assert_eq!(a[[0, 2]], 3.0);
    /// ```
    pub fn ndarray(&self) -> Result<ArrayViewD<'a, T>, NdarrayError> {
        self.shape().ndarray(self.into_slice())
    }

    /// The view as an `ndarray` view with one axis per tile digit:
    /// [`TiledShape::ndarray_tiled`] of its layout and buffer.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, DynView};
    /// let t = ArrayShape::parse_validated("f32[3,5]{1,0:T(2,2)}").unwrap().tiled().unwrap();
    /// let data: Vec<f32> = (0..24).map(|s| s as f32).collect();
    /// let a = DynView::new(&t, &data).unwrap().ndarray_tiled().unwrap();
    /// assert_eq!(a.shape(), [2, 2, 3, 2]);    // rows: r/2, r%2; columns: c/2, c%2
    /// assert_eq!(a[[1, 0, 1, 1]], 17.0);      // (2, 3): tiled_layout.md figure 1
    /// ```
    pub fn ndarray_tiled(&self) -> Result<ArrayViewD<'a, T>, NdarrayError> {
        self.shape().ndarray_tiled(self.into_slice())
    }
}

impl<'a, T: Element> DynViewMut<'a, T> {
    /// [`DynView::ndarray`], mutable ([`DynViewMut::reborrow`] keeps the
    /// view).
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, DynViewMut};
    /// let t = ArrayShape::parse_validated("s32[2,3]{0,1}").unwrap().tiled().unwrap();
    /// let mut data = [0i32; 6];
    /// let mut v = DynViewMut::new(&t, &mut data).unwrap();
    /// v.reborrow().into_ndarray().unwrap()[[1, 0]] = 7;
    /// assert_eq!(v.get(&[1, 0]), Ok(7));
    /// ```
    pub fn into_ndarray(self) -> Result<ArrayViewMutD<'a, T>, NdarrayError> {
        let (shape, data) = self.into_parts();
        shape.ndarray_mut(data)
    }

    /// [`DynView::ndarray_tiled`], mutable.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, DynViewMut};
    /// let t = ArrayShape::parse_validated("f32[3,5]{1,0:T(2,2)}").unwrap().tiled().unwrap();
    /// let mut data = [0.0f32; 24];
    /// DynViewMut::new(&t, &mut data).unwrap().into_ndarray_tiled().unwrap()[[1, 0, 1, 1]] = 1.0;
    /// assert_eq!(data[17], 1.0);
    /// ```
    pub fn into_ndarray_tiled(self) -> Result<ArrayViewMutD<'a, T>, NdarrayError> {
        let (shape, data) = self.into_parts();
        shape.ndarray_tiled_mut(data)
    }
}

impl<'a, L: StaticLayout, T: Element> View<'a, L, T> {
    /// [`DynView::ndarray`] of the same view: an `ndarray` view of the
    /// logical shape (its rank is `L`'s; `into_dimensionality` fixes it
    /// in the type).
    ///
    /// ```
    /// use xla_layout::{layout, View};
    /// layout! { type ColumnMajor = f32[2,3]{0,1}; }
    /// let data = [1.0f32, 4.0, 2.0, 5.0, 3.0, 6.0];
    /// let a = View::<ColumnMajor, f32>::new(&data).unwrap().ndarray().unwrap();
    /// let a = a.into_dimensionality::<ndarray::Ix2>().unwrap();
    /// assert_eq!(a, ndarray::arr2(&[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]));
    /// ```
    pub fn ndarray(&self) -> Result<ArrayViewD<'a, T>, NdarrayError> {
        self.as_dyn().ndarray()
    }

    /// [`DynView::ndarray_tiled`] of the same view: one axis per tile
    /// digit.
    ///
    /// ```
    /// use xla_layout::{layout, View};
    /// layout! { type Tiled = f32[3,5]{1,0:T(2,2)}; }
    /// let data: Vec<f32> = (0..24).map(|s| s as f32).collect();
    /// let a = View::<Tiled, f32>::new(&data).unwrap().ndarray_tiled().unwrap();
    /// assert_eq!(a[[1, 0, 1, 1]], 17.0); // (2, 3): tiled_layout.md figure 1
    /// ```
    pub fn ndarray_tiled(&self) -> Result<ArrayViewD<'a, T>, NdarrayError> {
        self.as_dyn().ndarray_tiled()
    }
}

impl<'a, L: StaticLayout, T: Element> ViewMut<'a, L, T> {
    /// [`DynViewMut::into_ndarray`] of the same view.
    ///
    /// ```
    /// use xla_layout::{layout, ViewMut};
    /// layout! { type ColumnMajor = s32[2,3]{0,1}; }
    /// let mut data = [0i32; 6];
    /// ViewMut::<ColumnMajor, i32>::new(&mut data).unwrap().into_ndarray().unwrap()[[1, 0]] = 7;
    /// assert_eq!(data, [0, 7, 0, 0, 0, 0]);
    /// ```
    pub fn into_ndarray(self) -> Result<ArrayViewMutD<'a, T>, NdarrayError> {
        self.into_dyn().into_ndarray()
    }

    /// [`DynViewMut::into_ndarray_tiled`] of the same view.
    ///
    /// ```
    /// use xla_layout::{layout, ViewMut};
    /// layout! { type Tiled = f32[3,5]{1,0:T(2,2)}; }
    /// let mut data = [0.0f32; 24];
    /// ViewMut::<Tiled, f32>::new(&mut data).unwrap().into_ndarray_tiled().unwrap()[[1, 0, 1, 1]] = 1.0;
    /// assert_eq!(data[17], 1.0);
    /// ```
    pub fn into_ndarray_tiled(self) -> Result<ArrayViewMutD<'a, T>, NdarrayError> {
        self.into_dyn().into_ndarray_tiled()
    }
}
