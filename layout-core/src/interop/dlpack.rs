//! DLPack export of views whose layout has one stride per dimension: the
//! `DLTensor` descriptor a consumer reads in place. C and C++ consumers
//! take the descriptor itself; Python importers (PyTorch, JAX, CuPy) take
//! a managed tensor in a capsule with a deleter, which a binding builds
//! around this descriptor while it keeps the buffer alive (dlpark's
//! `allocation` module). Tiled layouts have no DLPack form (a tile splits
//! a dimension into digits DLPack cannot express) and are refused with the
//! reason.

use core::ffi::c_void;
use core::marker::PhantomData;

use dlpark::ffi::{DLDataType, DLDevice, DLTensor};

use crate::{DynView, DynViewMut, Element, ElementType, MAX_RANK, NotStrided, TiledShape};

/// The DLPack type of each XLA element type that has one: one row each.
/// Sub-byte types are not exported yet: XLA stores them one per byte
/// (upper bits unspecified) or packed by `E(n)`, and the typed views this
/// exports from hold neither.
const DTYPES: &[(ElementType, DLDataType)] = &[
    (ElementType::PRED, DLDataType::BOOL),
    (ElementType::S8, DLDataType::I8),
    (ElementType::S16, DLDataType::I16),
    (ElementType::S32, DLDataType::I32),
    (ElementType::S64, DLDataType::I64),
    (ElementType::U8, DLDataType::U8),
    (ElementType::U16, DLDataType::U16),
    (ElementType::U32, DLDataType::U32),
    (ElementType::U64, DLDataType::U64),
    (ElementType::F16, DLDataType::F16),
    (ElementType::BF16, DLDataType::BF16),
    (ElementType::F32, DLDataType::F32),
    (ElementType::F64, DLDataType::F64),
    (ElementType::C64, DLDataType::C64),
    (ElementType::C128, DLDataType::C128),
    (ElementType::F8E3M4, DLDataType::F8E3M4),
    (ElementType::F8E4M3, DLDataType::F8E4M3),
    (ElementType::F8E4M3B11FNUZ, DLDataType::F8E4M3B11FNUZ),
    (ElementType::F8E4M3FN, DLDataType::F8E4M3FN),
    (ElementType::F8E4M3FNUZ, DLDataType::F8E4M3FNUZ),
    (ElementType::F8E5M2, DLDataType::F8E5M2),
    (ElementType::F8E5M2FNUZ, DLDataType::F8E5M2FNUZ),
    (ElementType::F8E8M0FNU, DLDataType::F8E8M0FNU),
];

/// The DLPack type of `ty` stored in `slot_bits`-bit slots: only whole
/// types at their natural width.
fn dtype_of(ty: ElementType, slot_bits: u64) -> Option<DLDataType> {
    let &(_, dtype) = DTYPES.iter().find(|(t, _)| *t == ty)?;
    (u64::from(dtype.bits) == slot_bits).then_some(dtype)
}

/// Why a view has no DLPack form.
///
/// ```
/// use xla_layout_core::{ArrayShape, Dlpack, DlpackError, ElementType, ViewError};
/// let t = |s| ArrayShape::parse_validated(s).unwrap().tiled().unwrap();
/// let tpu = t("bf16[16,256]{1,0:T(8,128)(2,1)}");
/// assert!(matches!(Dlpack::new(&tpu, &[0u16; 4096]), Err(DlpackError::NotStrided(_))));
/// let packed = t("s4[4]{0:E(4)}");
/// assert_eq!(Dlpack::new(&packed, &[0u8; 2]).unwrap_err(), DlpackError::ElementType { ty: ElementType::S4, slot_bits: 4 });
/// let short = Dlpack::new(&t("f32[3]{0}"), &[0.0f32; 2]).unwrap_err();
/// assert_eq!(short, DlpackError::View(ViewError::TooShort { needed: 3, got: 2 }));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DlpackError {
    /// No stride per dimension: a tile splits one (or `*` merges two).
    NotStrided(NotStrided),
    /// DLPack has no type for the element type at its storage width
    /// (sub-byte types, packed `E(n)` storage, `token` and the like).
    ElementType {
        /// The layout's element type.
        ty: ElementType,
        /// Its storage bits per slot.
        slot_bits: u64,
    },
    /// The Rust element type is not as large as the DLPack type says each
    /// element is (an [`Element`] implementation whose `BITS` is not its
    /// size), so a consumer would read past the buffer.
    RustType {
        /// `size_of` the Rust element type, in bytes.
        rust_bytes: usize,
        /// The DLPack type's bits.
        dlpack_bits: u8,
    },
    /// The buffer does not hold the layout (checked as [`DynView::new`]
    /// checks it).
    View(crate::ViewError),
}

impl core::fmt::Display for DlpackError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            DlpackError::NotStrided(e) => write!(f, "no DLPack form: {e}"),
            DlpackError::ElementType { ty, slot_bits } => write!(
                f,
                "no DLPack form: DLPack has no type for `{ty}` stored in {slot_bits}-bit slots"
            ),
            DlpackError::RustType {
                rust_bytes,
                dlpack_bits,
            } => write!(
                f,
                "no DLPack form: the Rust element type has {rust_bytes} bytes, the DLPack type {dlpack_bits} bits"
            ),
            DlpackError::View(e) => write!(f, "no DLPack form: {e}"),
        }
    }
}

impl core::error::Error for DlpackError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            DlpackError::NotStrided(e) => Some(e),
            DlpackError::View(e) => Some(e),
            DlpackError::ElementType { .. } | DlpackError::RustType { .. } => None,
        }
    }
}

/// A view's DLPack descriptor: the shape and strides (in elements) a
/// `DLTensor` points to, held for as long as the buffer is borrowed (the
/// layout itself need not outlive it).
///
/// ```
/// use xla_layout_core::{ArrayShape, DynView};
/// let t = ArrayShape::parse_validated("f32[2,3]{0,1}").unwrap().tiled().unwrap();
/// let data = [1.0f32, 4.0, 2.0, 5.0, 3.0, 6.0]; // column-major
/// let d = DynView::new(&t, &data).unwrap().dlpack().unwrap();
/// assert_eq!((d.shape(), d.strides()), (&[2i64, 3][..], &[1i64, 2][..]));
/// let tensor = d.tensor(); // hand &tensor to a DLPack consumer while `d` lives
/// assert_eq!(tensor.ndim, 2);
/// ```
#[derive(Debug)]
pub struct Dlpack<'a> {
    shape: [i64; MAX_RANK],
    strides: [i64; MAX_RANK],
    ndim: usize,
    dtype: DLDataType,
    data: *mut c_void,
    buffer: PhantomData<&'a [u8]>,
}

impl<'a> Dlpack<'a> {
    /// The descriptor of `data` through `shape`, checked as [`DynView::new`]
    /// checks a view; the buffer stays borrowed while the descriptor lives.
    /// From a shared buffer the consumer must not write through it.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, Dlpack};
    /// let t = ArrayShape::parse_validated("bf16[4,3]{0,1}").unwrap().tiled().unwrap();
    /// let data = [0u16; 12];
    /// let d = Dlpack::new(&t, &data).unwrap();
    /// assert_eq!((d.shape(), d.strides()), (&[4i64, 3][..], &[1i64, 4][..]));
    /// assert_eq!(d.dtype(), dlpark::ffi::DLDataType::BF16);
    /// ```
    pub fn new<T: Element>(shape: &TiledShape, data: &'a [T]) -> Result<Self, DlpackError> {
        let d = Self::describe::<T>(shape, data.as_ptr().cast_mut().cast(), data.is_empty())?;
        DynView::new(shape, data).map_err(DlpackError::View)?;
        Ok(d)
    }

    /// [`Dlpack::new`] over a buffer the consumer may write.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, Dlpack};
    /// let t = ArrayShape::parse_validated("f32[2]{0}").unwrap().tiled().unwrap();
    /// let mut data = [0.0f32; 2];
    /// {
    ///     let d = Dlpack::new_mut(&t, &mut data).unwrap();
    ///     let tensor = d.tensor();
    ///     // SAFETY: `d` lives and keeps the buffer borrowed; element 1 is in it.
    ///     unsafe { *tensor.data.cast::<f32>().add(1) = 2.5 };
    /// }
    /// assert_eq!(data, [0.0, 2.5]);
    /// ```
    pub fn new_mut<T: Element>(shape: &TiledShape, data: &'a mut [T]) -> Result<Self, DlpackError> {
        let empty = data.is_empty();
        let d = Self::describe::<T>(shape, data.as_mut_ptr().cast(), empty)?;
        DynView::new(shape, data).map_err(DlpackError::View)?;
        Ok(d)
    }

    fn describe<T>(
        shape: &TiledShape,
        data: *mut c_void,
        empty: bool,
    ) -> Result<Self, DlpackError> {
        let (ty, bits) = (shape.element_type(), shape.element_bits());
        let dtype = dtype_of(ty, bits).ok_or(DlpackError::ElementType {
            ty,
            slot_bits: bits,
        })?;
        // A consumer reads `dtype.bits` per element: `T` must be that
        // large, whatever its `Element` implementation claims.
        if size_of::<T>() * 8 != usize::from(dtype.bits) {
            return Err(DlpackError::RustType {
                rust_bytes: size_of::<T>(),
                dlpack_bits: dtype.bits,
            });
        }
        let strides = shape.logical_strides().map_err(DlpackError::NotStrided)?;
        let mut out = Dlpack {
            shape: [0; MAX_RANK],
            strides: [0; MAX_RANK],
            ndim: shape.rank(),
            dtype,
            // DLPack: "if the tensor is of size zero, then the data pointer
            // should be set to NULL".
            data: if empty { core::ptr::null_mut() } else { data },
            buffer: PhantomData,
        };
        // Fit: a validated dimension is at most i64::MAX, and a stride is
        // below the slots, which the buffer's usize length bounds (for an
        // empty array, below its tiled slots, which validation bounds).
        for (d, (&n, &s)) in shape.logical_dims().iter().zip(strides.iter()).enumerate() {
            out.shape[d] = i64::try_from(n).unwrap_or(i64::MAX);
            out.strides[d] = i64::try_from(s).unwrap_or(i64::MAX);
        }
        Ok(out)
    }

    /// The dimensions, as DLPack has them (see [`Dlpack::new`]).
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, Dlpack};
    /// let t = ArrayShape::parse_validated("f32[2,3]{0,1}").unwrap().tiled().unwrap();
    /// assert_eq!(Dlpack::new(&t, &[0.0f32; 6]).unwrap().shape(), [2, 3]);
    /// ```
    pub fn shape(&self) -> &[i64] {
        &self.shape[..self.ndim]
    }

    /// The strides in elements, as DLPack has them (see [`Dlpack::new`]).
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, Dlpack};
    /// let t = ArrayShape::parse_validated("f32[2,3]{0,1}").unwrap().tiled().unwrap();
    /// assert_eq!(Dlpack::new(&t, &[0.0f32; 6]).unwrap().strides(), [1, 2]); // column-major
    /// ```
    pub fn strides(&self) -> &[i64] {
        &self.strides[..self.ndim]
    }

    /// The element type (see [`Dlpack::new`]).
    ///
    /// ```
    /// use dlpark::ffi::DLDataType;
    /// use xla_layout_core::{ArrayShape, Dlpack};
    /// let t = ArrayShape::parse_validated("u8[4]{0}").unwrap().tiled().unwrap();
    /// assert_eq!(Dlpack::new(&t, &[0u8; 4]).unwrap().dtype(), DLDataType::U8);
    /// ```
    pub fn dtype(&self) -> DLDataType {
        self.dtype
    }

    /// The `DLTensor` over the buffer, on the CPU device, offset 0. Its
    /// `shape` and `strides` point into `self`: it is valid while `self`
    /// is alive and not moved. From a shared view the consumer must not
    /// write through it. See [`Dlpack::new_mut`] for a use.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, Dlpack};
    /// let t = ArrayShape::parse_validated("f32[2,3]{0,1}").unwrap().tiled().unwrap();
    /// let data = [0.0f32; 6];
    /// let d = Dlpack::new(&t, &data).unwrap();
    /// let tensor = d.tensor();
    /// assert_eq!((tensor.ndim, tensor.data.cast_const()), (2, data.as_ptr().cast()));
    /// // SAFETY: `d` is alive and not moved; `strides` has `ndim` entries.
    /// assert_eq!(unsafe { *tensor.strides.add(1) }, 2);
    /// ```
    pub fn tensor(&self) -> DLTensor {
        DLTensor {
            data: self.data,
            device: DLDevice::CPU,
            // Fits: at most MAX_RANK.
            ndim: self.ndim as i32,
            dtype: self.dtype,
            shape: self.shape.as_ptr().cast_mut(),
            strides: self.strides.as_ptr().cast_mut(),
            byte_offset: 0,
        }
    }
}

impl<'a, T: Element> DynView<'a, T> {
    /// The view's DLPack descriptor ([`Dlpack::new`] of its layout and
    /// buffer).
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, DynView};
    /// let t = ArrayShape::parse_validated("f32[2,3]{0,1}").unwrap().tiled().unwrap();
    /// let data = [1.0f32, 4.0, 2.0, 5.0, 3.0, 6.0]; // column-major
    /// let d = DynView::new(&t, &data).unwrap().dlpack().unwrap();
    /// assert_eq!(d.strides(), [1, 2]);
    /// ```
    pub fn dlpack(&self) -> Result<Dlpack<'a>, DlpackError> {
        Dlpack::new(self.shape(), self.into_slice())
    }
}

impl<'a, T: Element> DynViewMut<'a, T> {
    /// [`DynView::dlpack`] for a consumer that may write
    /// ([`Dlpack::new_mut`]).
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, DynViewMut};
    /// let t = ArrayShape::parse_validated("s8[8]{0:T(128)}").unwrap().tiled().unwrap();
    /// let mut data = [0i8; 128];
    /// let d = DynViewMut::new(&t, &mut data).unwrap().into_dlpack().unwrap();
    /// assert_eq!((d.shape(), d.strides()), (&[8i64][..], &[1i64][..])); // the tile only pads
    /// ```
    pub fn into_dlpack(self) -> Result<Dlpack<'a>, DlpackError> {
        let (shape, data) = self.into_parts();
        Dlpack::new_mut(shape, data)
    }
}
