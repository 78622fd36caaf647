//! DLPack export of views whose layout has one stride per dimension: the
//! `DLTensor` a C, C++ or Python consumer (PyTorch, JAX, CuPy) reads in
//! place. Tiled layouts have no DLPack form (a tile splits a dimension
//! into digits DLPack cannot express) and are refused with the reason.

use core::ffi::c_void;
use core::marker::PhantomData;

use dlpark::ffi::{DLDataType, DLDevice, DLTensor};

use crate::{DynView, DynViewMut, Element, ElementType, MAX_RANK, NotStrided, TiledShape};

/// The DLPack type of each XLA element type that has one: one row each.
/// Sub-byte types are absent: DLPack reads `bits < 8` as packed lanes, a
/// convention XLA's unpacked storage does not follow, and XLA's packed
/// `E(n)` storage is not DLPack's either.
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
}

impl core::fmt::Display for DlpackError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            DlpackError::NotStrided(e) => write!(f, "no DLPack form: {e}"),
            DlpackError::ElementType { ty, slot_bits } => write!(
                f,
                "no DLPack form: DLPack has no type for `{ty}` stored in {slot_bits}-bit slots"
            ),
        }
    }
}

impl core::error::Error for DlpackError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            DlpackError::NotStrided(e) => Some(e),
            DlpackError::ElementType { .. } => None,
        }
    }
}

/// A view's DLPack descriptor: the shape and strides (in elements) a
/// `DLTensor` points to, held for as long as the buffer is borrowed.
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

impl Dlpack<'_> {
    fn new(shape: &TiledShape, data: *mut c_void) -> Result<Self, DlpackError> {
        let (ty, bits) = (shape.element_type(), shape.element_bits());
        let dtype = dtype_of(ty, bits).ok_or(DlpackError::ElementType {
            ty,
            slot_bits: bits,
        })?;
        let strides = shape.logical_strides().map_err(DlpackError::NotStrided)?;
        let mut out = Dlpack {
            shape: [0; MAX_RANK],
            strides: [0; MAX_RANK],
            ndim: shape.rank(),
            dtype,
            data,
            buffer: PhantomData,
        };
        // Fit: a view's slots fit its buffer's usize length, and a
        // validated dimension is at most i64::MAX.
        for (d, (&n, &s)) in shape.logical_dims().iter().zip(strides.iter()).enumerate() {
            out.shape[d] = n as i64;
            out.strides[d] = s as i64;
        }
        Ok(out)
    }

    /// The dimensions, as DLPack has them.
    pub fn shape(&self) -> &[i64] {
        &self.shape[..self.ndim]
    }

    /// The strides in elements, as DLPack has them.
    pub fn strides(&self) -> &[i64] {
        &self.strides[..self.ndim]
    }

    /// The element type.
    pub fn dtype(&self) -> DLDataType {
        self.dtype
    }

    /// The `DLTensor` over the buffer, on the CPU device, offset 0. Its
    /// `shape` and `strides` point into `self`: it is valid while `self`
    /// is alive and not moved. From a shared view the consumer must not
    /// write through it.
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
    /// The view's DLPack descriptor, for layouts with one stride per
    /// dimension and element types DLPack has (see [`Dlpack`]).
    pub fn dlpack(&self) -> Result<Dlpack<'a>, DlpackError> {
        let data = self.into_slice().as_ptr().cast_mut().cast::<c_void>();
        Dlpack::new(self.shape(), data)
    }
}

impl<'a, T: Element> DynViewMut<'a, T> {
    /// [`DynView::dlpack`] for a consumer that may write: the buffer stays
    /// borrowed mutably for as long as the descriptor lives.
    pub fn into_dlpack(self) -> Result<Dlpack<'a>, DlpackError> {
        let (shape, data) = self.into_parts();
        Dlpack::new(shape, data.as_mut_ptr().cast::<c_void>())
    }
}
