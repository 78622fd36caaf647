//! The array shape model (docs/xla-layouts.md §0): element type, dimensions, layout.

use crate::limits::{Capacity, CapacityError, MAX_RANK, UNBOUNDED};
use crate::{ElementType, Layout};

/// One dimension of an array.
///
/// ```
/// use xla_layout_core::{ArrayShape, Dim};
///
/// let s: ArrayShape = "f32[<=23,44,?]".parse().unwrap();
/// assert_eq!(s.dim(0), Dim::Bounded(23));
/// assert_eq!(s.dim(1), Dim::Static(44));
/// assert_eq!(s.dim(2), Dim::Unbounded);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    /// A fixed size, written `N`.
    Static(i64),
    /// A dynamic size with an upper bound, written `<=N`.
    Bounded(i64),
    /// A dynamic size with no bound, written `?`.
    Unbounded,
}

impl Dim {
    /// XLA's `(size, is_dynamic)` pair: the bound for bounded dimensions,
    /// [`crate::UNBOUNDED`] for unbounded ones.
    ///
    /// ```
    /// # use xla_layout_core::{Dim, UNBOUNDED};
    /// assert_eq!(Dim::Bounded(4).to_raw(), (4, true));
    /// assert_eq!(Dim::Unbounded.to_raw(), (UNBOUNDED, true));
    /// ```
    pub const fn to_raw(self) -> (i64, bool) {
        match self {
            Dim::Static(n) => (n, false),
            Dim::Bounded(n) => (n, true),
            Dim::Unbounded => (UNBOUNDED, true),
        }
    }

    /// The dimension for XLA's `(size, is_dynamic)` pair.
    ///
    /// ```
    /// # use xla_layout_core::{Dim, UNBOUNDED};
    /// assert_eq!(Dim::from_raw(UNBOUNDED, true), Dim::Unbounded);
    /// assert_eq!(Dim::from_raw(3, false), Dim::Static(3));
    /// ```
    pub const fn from_raw(size: i64, is_dynamic: bool) -> Dim {
        match (size, is_dynamic) {
            (UNBOUNDED, true) => Dim::Unbounded,
            (n, true) => Dim::Bounded(n),
            (n, false) => Dim::Static(n),
        }
    }

    /// `Shape::IsValidDimensionSize`: sizes are ≥ 0; only a dynamic
    /// dimension may be unbounded.
    ///
    /// ```
    /// # use xla_layout_core::Dim;
    /// assert!(Dim::Bounded(0).is_valid());
    /// assert!(!Dim::Static(-1).is_valid());
    /// ```
    pub const fn is_valid(self) -> bool {
        match self {
            Dim::Static(n) | Dim::Bounded(n) => n >= 0,
            Dim::Unbounded => true,
        }
    }
}

/// An array shape: element type, dimensions and (optionally) a layout.
///
/// This is the `no_std`, no-alloc heart of the crate: a `Copy` value that
/// parses, prints, validates and addresses without allocating.
///
/// ```
/// use xla_layout_core::{ArrayShape, ElementType, Layout};
///
/// let s: ArrayShape = "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}".parse().unwrap();
/// assert_eq!(s.element_type(), ElementType::BF16);
/// assert_eq!(s.dims(), &[8, 1, 1280, 16384]);
/// assert_eq!(s.layout().unwrap().minor_to_major(), &[3, 2, 0, 1]);
///
/// // The same shape, built in a const item.
/// const S: ArrayShape = ArrayShape::new(ElementType::BF16, &[8, 1, 1280, 16384])
///     .with_layout(Layout::new(&[3, 2, 0, 1]).with_tiles(&[&[8, 128], &[2, 1]]));
/// assert_eq!(S, s);
/// ```
#[derive(Clone, Copy)]
pub struct ArrayShape {
    element_type: ElementType,
    rank: u8,
    dims: [i64; MAX_RANK],
    dynamic: [bool; MAX_RANK],
    layout: Option<Layout>,
}

impl ArrayShape {
    /// A shape of static dimensions with XLA's default layout (as
    /// `ShapeUtil::MakeShape` gives).
    ///
    /// # Panics
    /// If there are more than [`crate::MAX_RANK`] dimensions; see
    /// [`ArrayShape::try_new`].
    ///
    /// ```
    /// # use xla_layout_core::{ArrayShape, ElementType};
    /// assert_eq!(ArrayShape::new(ElementType::F32, &[2, 5]).to_string(), "f32[2,5]{1,0}");
    /// ```
    pub const fn new(element_type: ElementType, dims: &[i64]) -> ArrayShape {
        match Self::try_new(element_type, dims) {
            Ok(s) => s,
            Err(_) => panic!("more dimensions than xla_layout_core::MAX_RANK"),
        }
    }

    /// [`ArrayShape::new`] without the panic.
    ///
    /// ```
    /// # use xla_layout_core::{ArrayShape, ElementType};
    /// assert!(ArrayShape::try_new(ElementType::F32, &[1; 33]).is_err());
    /// ```
    pub const fn try_new(
        element_type: ElementType,
        dims: &[i64],
    ) -> Result<ArrayShape, CapacityError> {
        if dims.len() > MAX_RANK {
            return Err(CapacityError {
                capacity: Capacity::Rank,
            });
        }
        let mut s = ArrayShape::scalar(element_type);
        while (s.rank as usize) < dims.len() {
            s.dims[s.rank as usize] = dims[s.rank as usize];
            s.rank += 1;
        }
        s.layout = Some(Layout::default_for_rank(dims.len()));
        Ok(s)
    }

    /// A shape of these dimensions (static, bounded or unbounded) with the
    /// default layout.
    ///
    /// # Panics
    /// If there are more than [`crate::MAX_RANK`] dimensions; see
    /// [`ArrayShape::try_from_dims`].
    ///
    /// ```
    /// # use xla_layout_core::{ArrayShape, Dim, ElementType};
    /// let s = ArrayShape::from_dims(ElementType::F32, &[Dim::Unbounded, Dim::Static(784)]);
    /// assert_eq!(s.without_layout().to_string(), "f32[?,784]");
    /// ```
    pub const fn from_dims(element_type: ElementType, dims: &[Dim]) -> ArrayShape {
        match Self::try_from_dims(element_type, dims) {
            Ok(s) => s,
            Err(_) => panic!("more dimensions than xla_layout_core::MAX_RANK"),
        }
    }

    /// [`ArrayShape::from_dims`] without the panic.
    ///
    /// ```
    /// # use xla_layout_core::{ArrayShape, Dim, ElementType};
    /// assert!(ArrayShape::try_from_dims(ElementType::F32, &[Dim::Static(1); 33]).is_err());
    /// ```
    pub const fn try_from_dims(
        element_type: ElementType,
        dims: &[Dim],
    ) -> Result<ArrayShape, CapacityError> {
        let mut s = ArrayShape::scalar(element_type);
        let mut i = 0;
        while i < dims.len() {
            let (size, dynamic) = dims[i].to_raw();
            if let Err(e) = s.push_dim(size, dynamic) {
                return Err(e);
            }
            i += 1;
        }
        s.layout = Some(Layout::default_for_rank(dims.len()));
        Ok(s)
    }

    /// A rank-0 shape with the (empty) default layout.
    const fn scalar(element_type: ElementType) -> ArrayShape {
        ArrayShape {
            element_type,
            rank: 0,
            dims: [0; MAX_RANK],
            dynamic: [false; MAX_RANK],
            layout: Some(Layout::EMPTY),
        }
    }

    /// A rank-0 shape with no layout, for the parser to fill.
    pub(crate) const fn empty(element_type: ElementType) -> ArrayShape {
        let mut s = ArrayShape::scalar(element_type);
        s.layout = None;
        s
    }

    /// Appends a dimension (parser use).
    pub(crate) const fn push_dim(&mut self, size: i64, dynamic: bool) -> Result<(), CapacityError> {
        let n = self.rank as usize;
        if n >= MAX_RANK {
            return Err(CapacityError {
                capacity: Capacity::Rank,
            });
        }
        self.dims[n] = size;
        self.dynamic[n] = dynamic;
        self.rank += 1;
        Ok(())
    }

    /// Gives the shape XLA's default layout for its rank (parser use).
    pub(crate) fn set_default_layout(&mut self) {
        let rank = self.rank as usize;
        self.empty_layout_mut().push_descending_minor_to_major(rank);
    }

    /// Gives the shape an empty layout and returns it for the parser to fill
    /// in place.
    pub(crate) fn empty_layout_mut(&mut self) -> &mut Layout {
        let layout = self.layout.get_or_insert(Layout::EMPTY);
        layout.clear();
        layout
    }

    /// Makes this `empty(element_type)` in place, keeping the layout's
    /// storage for [`ArrayShape::empty_layout_mut`] (parser use, which
    /// always sets a layout afterwards).
    pub(crate) fn reset(&mut self, element_type: ElementType) {
        self.element_type = element_type;
        self.rank = 0;
    }

    /// This shape with `layout`.
    ///
    /// ```
    /// # use xla_layout_core::{ArrayShape, ElementType, Layout};
    /// let s = ArrayShape::new(ElementType::F32, &[2, 3]).with_layout(Layout::new(&[0, 1]));
    /// assert_eq!(s.to_string(), "f32[2,3]{0,1}");
    /// ```
    pub const fn with_layout(mut self, layout: Layout) -> ArrayShape {
        self.layout = Some(layout);
        self
    }

    /// This shape with elements of `ty`, as XLA's `ShapeUtil::ChangeElementType`
    /// makes it (a `convert`'s or a `compare`'s result): the same
    /// dimensions and layout, except that the layout's element size
    /// (`E(n)`) is dropped unless `ty` is one XLA packs
    /// ([`ElementType::is_packable`]): a packed size is the operand's
    /// type's, not the result's.
    ///
    /// ```
    /// # use xla_layout_core::{ArrayShape, ElementType};
    /// let s4 = ArrayShape::parse("s4[4]{0:E(4)}").unwrap();
    /// assert_eq!(s4.with_element_type(ElementType::PRED).to_string(), "pred[4]{0}");
    /// assert_eq!(s4.with_element_type(ElementType::U4).to_string(), "u4[4]{0:E(4)}");
    /// ```
    pub const fn with_element_type(mut self, ty: ElementType) -> ArrayShape {
        self.element_type = ty;
        if let Some(layout) = self.layout
            && !ty.is_packable()
        {
            self.layout = Some(layout.with_element_size_in_bits(0));
        }
        self
    }

    /// This shape with no layout at all (XLA's "layout not set"; printing
    /// then shows no braces, and [`crate::validate`] reports it).
    ///
    /// ```
    /// # use xla_layout_core::{ArrayShape, ElementType};
    /// let s = ArrayShape::new(ElementType::F32, &[2]).clear_layout();
    /// assert!(s.layout().is_none());
    /// ```
    pub const fn clear_layout(mut self) -> ArrayShape {
        self.layout = None;
        self
    }

    /// This shape with `S(n)` set on its layout (the default layout if it
    /// had none).
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let s: ArrayShape = "f32[8]{0:T(8)}".parse().unwrap();
    /// assert_eq!(s.with_memory_space(1).to_string(), "f32[8]{0:T(8)S(1)}");
    /// ```
    pub const fn with_memory_space(self, n: i8) -> ArrayShape {
        let layout = self.layout_or_default().with_memory_space(n);
        self.with_layout(layout)
    }

    /// The element type.
    ///
    /// ```
    /// # use xla_layout_core::{ArrayShape, ElementType};
    /// let s: ArrayShape = "bf16[8,128]{1,0}".parse().unwrap();
    /// assert_eq!(s.element_type(), ElementType::BF16);
    /// ```
    pub const fn element_type(&self) -> ElementType {
        self.element_type
    }

    /// The number of dimensions.
    ///
    /// ```
    /// # use xla_layout_core::{ArrayShape, ElementType};
    /// assert_eq!(ArrayShape::new(ElementType::F32, &[]).rank(), 0);
    /// ```
    pub const fn rank(&self) -> usize {
        self.rank as usize
    }

    /// The dimension sizes as XLA stores them: the bound of a bounded
    /// dimension, [`crate::UNBOUNDED`] for `?`.
    ///
    /// ```
    /// # use xla_layout_core::{ArrayShape, UNBOUNDED};
    /// let s: ArrayShape = "f32[<=4,?]".parse().unwrap();
    /// assert_eq!(s.dims(), &[4, UNBOUNDED]);
    /// ```
    pub const fn dims(&self) -> &[i64] {
        self.dims.split_at(self.rank as usize).0
    }

    /// XLA's per-dimension dynamic flags.
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let s: ArrayShape = "f32[<=4,3]".parse().unwrap();
    /// assert_eq!(s.dynamic_dimensions(), &[true, false]);
    /// ```
    pub const fn dynamic_dimensions(&self) -> &[bool] {
        self.dynamic.split_at(self.rank as usize).0
    }

    /// Dimension `i`.
    ///
    /// # Panics
    /// If `i >= self.rank()`.
    ///
    /// ```
    /// # use xla_layout_core::{ArrayShape, Dim};
    /// let s: ArrayShape = "f32[<=4,3]".parse().unwrap();
    /// assert_eq!((s.dim(0), s.dim(1)), (Dim::Bounded(4), Dim::Static(3)));
    /// ```
    pub const fn dim(&self, i: usize) -> Dim {
        assert!(i < self.rank as usize, "dimension index out of range");
        Dim::from_raw(self.dims[i], self.dynamic[i])
    }

    /// Whether no dimension is dynamic.
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// assert!(!"f32[<=4]".parse::<ArrayShape>().unwrap().is_static());
    /// ```
    pub const fn is_static(&self) -> bool {
        let mut i = 0;
        while i < self.rank as usize {
            if self.dynamic[i] {
                return false;
            }
            i += 1;
        }
        true
    }

    /// Whether some dimension is unbounded (`?`).
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// assert!("f32[?,2]".parse::<ArrayShape>().unwrap().is_unbounded_dynamic());
    /// ```
    pub const fn is_unbounded_dynamic(&self) -> bool {
        let mut i = 0;
        while i < self.rank as usize {
            if self.dynamic[i] && self.dims[i] == UNBOUNDED {
                return true;
            }
            i += 1;
        }
        false
    }

    /// The layout, if set (see [`ArrayShape::layout_or_default`]).
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let s: ArrayShape = "f32[2,3]{0,1}".parse().unwrap();
    /// assert_eq!(s.layout().unwrap().minor_to_major(), &[0, 1]);
    /// // Text without a layout gets XLA's default one; `clear_layout` unsets it.
    /// assert_eq!("f32[2,3]".parse::<ArrayShape>().unwrap().layout().unwrap().minor_to_major(), &[1, 0]);
    /// assert!(s.clear_layout().layout().is_none());
    /// ```
    pub const fn layout(&self) -> Option<&Layout> {
        self.layout.as_ref()
    }

    /// The layout, or XLA's default layout for this rank if none is set.
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let s: ArrayShape = "f32[2,3]".parse().unwrap();
    /// assert_eq!(s.layout_or_default().minor_to_major(), &[1, 0]);
    /// ```
    pub const fn layout_or_default(&self) -> Layout {
        match self.layout {
            Some(l) => l,
            None => Layout::default_for_rank(self.rank as usize),
        }
    }

    /// The memory space of the layout (0 when there is no layout, as
    /// `LayoutUtil::MemorySpace`).
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// assert_eq!("f32[2]{0:S(1)}".parse::<ArrayShape>().unwrap().memory_space(), 1);
    /// ```
    pub const fn memory_space(&self) -> i8 {
        match &self.layout {
            Some(l) => l.memory_space(),
            None => 0,
        }
    }

    /// Shape equality ignoring layouts (`ShapeUtil::Compatible`-style
    /// "same logical shape": element type, dims and dynamic flags).
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let a: ArrayShape = "f32[2,3]{1,0}".parse().unwrap();
    /// let b: ArrayShape = "f32[2,3]{0,1:T(2,2)}".parse().unwrap();
    /// assert!(a.same_logical_shape(&b));
    /// ```
    pub const fn same_logical_shape(&self, other: &ArrayShape) -> bool {
        if self.element_type as u8 != other.element_type as u8 || self.rank != other.rank {
            return false;
        }
        let mut i = 0;
        while i < self.rank as usize {
            if self.dims[i] != other.dims[i] || self.dynamic[i] != other.dynamic[i] {
                return false;
            }
            i += 1;
        }
        true
    }
}

impl PartialEq for ArrayShape {
    /// Dimensions past the rank may hold stale values (the parser reuses
    /// shapes in place), so only the meaningful parts are compared.
    fn eq(&self, other: &ArrayShape) -> bool {
        self.same_logical_shape(other) && self.layout == other.layout
    }
}

impl Eq for ArrayShape {}

impl core::hash::Hash for ArrayShape {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.element_type.hash(state);
        self.dims().hash(state);
        self.dynamic_dimensions().hash(state);
        self.layout.hash(state);
    }
}
