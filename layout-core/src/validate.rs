//! Model → checked model: XLA's shape validation (spec §f), in XLA's order
//! and with XLA's messages, plus the one extra rule this crate adds.
//!
//! Parsing does not validate (spec §a.3); [`crate::ArrayShape::parse_validated`]
//! and [`crate::Shape::parse_validated`] run both steps.
//!
//! A [`ValidationError`] carries a copy of the offending array so that its
//! message is XLA's, word for word, without allocating.

#[cfg(feature = "alloc")]
use alloc::vec::Vec;
use core::fmt::{self, Display, Formatter};

use crate::limits::{COMBINE, UNBOUNDED};
use crate::{ArrayShape, ElementType, Layout, Shape};

/// Which validation rule failed. The numbers are the rules of spec §f.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ValidationErrorKind {
    /// 1: `Invalid element type.`
    InvalidElementType,
    /// 2: an array whose element type names another kind of shape
    /// (`This type must have a tuple state.` and so on).
    WrongKindForElementType,
    /// 3: `Negative dimension at index i: d.`
    NegativeDimension {
        /// The dimension.
        index: usize,
        /// Its size.
        size: i64,
    },
    /// 4: `Dimensions overflow.`
    DimensionsOverflow,
    /// 5: `Shape <s> size may overflow int64_t.`
    SizeMayOverflow,
    /// 7: `shape <s> does not have a layout`.
    MissingLayout,
    /// 9: the minor-to-major list has the wrong length.
    MinorToMajorLength,
    /// 10: a minor-to-major entry is outside `[0, rank)`.
    MinorToMajorOutOfBounds,
    /// 11: a minor-to-major entry repeats.
    MinorToMajorDuplicate,
    /// 12: `L(n)` with n ≤ 0.
    TailPaddingNotPositive,
    /// 13: `#(t)` is set.
    IndexPrimitiveType,
    /// 14: `*(t)` is set.
    PointerPrimitiveType,
    /// 15: `P(...)` is set.
    PhysicalShape,
    /// 16: a tile with no entries, `T()`.
    EmptyTile {
        /// Which tile.
        tile: usize,
    },
    /// 17: a tile entry ≤ 0 that is not `*`.
    NonPositiveTileDimension {
        /// Which tile.
        tile: usize,
        /// The entry.
        value: i64,
    },
    /// 18: `E(n)` with n < 0.
    NegativeElementSize,
    /// 19: a split config names a physical dimension outside `[0, rank)`.
    SplitDimensionOutOfBounds {
        /// Which split config.
        config: usize,
    },
    /// 20: two split configs name the same physical dimension.
    SplitDimensionDuplicate {
        /// The second of the two.
        config: usize,
    },
    /// 21: split indices not strictly increasing, or the first ≤ 0.
    SplitIndicesNotIncreasing {
        /// Which split config.
        config: usize,
    },
    /// 22: a split index ≥ the size of its dimension.
    SplitIndexOutOfBounds {
        /// Which split config.
        config: usize,
        /// The split index.
        index: i64,
        /// The size of the dimension.
        dim_size: i64,
    },
    /// Not an XLA rule: a `*` in the most-minor position of a tile has
    /// nothing to combine with (spec §d.1 step 2.3), so it has no meaning.
    CombineInMostMinorPosition {
        /// Which tile.
        tile: usize,
    },
}

impl ValidationErrorKind {
    /// Whether XLA's validator has this rule (every kind but
    /// [`ValidationErrorKind::CombineInMostMinorPosition`]).
    ///
    /// ```
    /// # use xla_layout_core::ValidationErrorKind;
    /// assert!(ValidationErrorKind::MissingLayout.is_xla_rule());
    /// assert!(!ValidationErrorKind::CombineInMostMinorPosition { tile: 0 }.is_xla_rule());
    /// ```
    pub const fn is_xla_rule(&self) -> bool {
        !matches!(self, Self::CombineInMostMinorPosition { .. })
    }

    /// The rule, in words.
    ///
    /// ```
    /// # use xla_layout_core::ValidationErrorKind;
    /// assert_eq!(
    ///     ValidationErrorKind::MinorToMajorDuplicate.rule(),
    ///     "minor_to_major must list each dimension exactly once"
    /// );
    /// ```
    pub const fn rule(&self) -> &'static str {
        match self {
            Self::InvalidElementType => "the element type must be a valid XLA type",
            Self::WrongKindForElementType => "an array needs an array element type",
            Self::NegativeDimension { .. } => "dimension sizes must be >= 0",
            Self::DimensionsOverflow => "the product of the dimensions must fit in int64",
            Self::SizeMayOverflow => "the size in bytes must fit in int64",
            Self::MissingLayout => "the array must have a layout",
            Self::MinorToMajorLength => "minor_to_major must have one entry per dimension",
            Self::MinorToMajorOutOfBounds => {
                "minor_to_major entries must be dimension numbers 0..rank"
            }
            Self::MinorToMajorDuplicate => "minor_to_major must list each dimension exactly once",
            Self::TailPaddingNotPositive => "L(n) tail padding must be at least 1",
            Self::IndexPrimitiveType => {
                "#(type) index types belong to sparse arrays, which XLA no longer has"
            }
            Self::PointerPrimitiveType => {
                "*(type) pointer types belong to sparse arrays, which XLA no longer has"
            }
            Self::PhysicalShape => {
                "P(shape) physical shapes belong to sparse arrays, which XLA no longer has"
            }
            Self::EmptyTile { .. } => "a tile must have at least one entry",
            Self::NonPositiveTileDimension { .. } => {
                "tile entries must be positive integers or `*`"
            }
            Self::NegativeElementSize => "E(n) element size in bits must be >= 0",
            Self::SplitDimensionOutOfBounds { .. } => {
                "a split config must name a physical dimension 0..rank"
            }
            Self::SplitDimensionDuplicate { .. } => {
                "each physical dimension may have one split config"
            }
            Self::SplitIndicesNotIncreasing { .. } => {
                "split indices must be positive and strictly increasing"
            }
            Self::SplitIndexOutOfBounds { .. } => "split indices must be inside their dimension",
            Self::CombineInMostMinorPosition { .. } => {
                "`*` combines a dimension with the next more-minor one, so it cannot be a tile's last entry"
            }
        }
    }
}

/// A shape that fails validation. `Display` gives XLA's message, word for
/// word (for the rules XLA has).
///
/// ```
/// use xla_layout_core::ArrayShape;
///
/// let s: ArrayShape = "f32[2,3]{0,0}".parse().unwrap(); // parses: XLA does not check here
/// let err = s.validate().unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "layout minor_to_major field has duplicate values: {0, 0}; shape: f32[2,3]"
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ValidationError {
    kind: ValidationErrorKind,
    shape: ArrayShape,
    in_buffer: bool,
}

impl ValidationError {
    /// Which rule failed.
    pub const fn kind(&self) -> ValidationErrorKind {
        self.kind
    }

    /// The array (or the array inside the buffer) that failed.
    pub const fn shape(&self) -> &ArrayShape {
        &self.shape
    }

    const fn in_buffer(mut self) -> Self {
        self.in_buffer = true;
        self
    }
}

/// `<s>`: the shape without layout; a buffer prints as `b(...)`.
struct Human<'a>(&'a ValidationError);

impl Display for Human<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if self.0.in_buffer {
            write!(f, "b({})", self.0.shape.without_layout())
        } else {
            write!(f, "{}", self.0.shape.without_layout())
        }
    }
}

/// `{a, b}` lists of XLA's layout messages.
struct Braced<'a>(&'a [i64]);

impl Display for Braced<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, v) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{v}")?;
        }
        f.write_str("}")
    }
}

impl Display for ValidationError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        use ValidationErrorKind as K;
        let s = Human(self);
        let ty = self.shape.element_type();
        let layout = self.shape.layout().copied().unwrap_or(Layout::EMPTY);
        let m2m = Braced(layout.minor_to_major());
        // `ShapeUtil::ShapeError`.
        let shape_error = |f: &mut Formatter<'_>, msg: &dyn Display| {
            write!(f, "Shape Error: {msg} Shape({}): {s}", ty.name())
        };
        match self.kind {
            K::InvalidElementType => shape_error(f, &"Invalid element type."),
            K::WrongKindForElementType => {
                let state = match ty {
                    ElementType::TUPLE => "a tuple",
                    ElementType::BUFFER => "a buffer",
                    ElementType::TOKEN => "a token",
                    _ => "an opaque",
                };
                shape_error(f, &format_args!("This type must have {state} state."))
            }
            K::NegativeDimension { index, size } => shape_error(
                f,
                &format_args!("Negative dimension at index {index}: {size}."),
            ),
            K::DimensionsOverflow => shape_error(f, &"Dimensions overflow."),
            K::SizeMayOverflow => write!(f, "Shape {s} size may overflow int64_t."),
            K::MissingLayout => write!(f, "shape {s} does not have a layout"),
            K::MinorToMajorLength => write!(
                f,
                "layout minor_to_major field contains {} elements, but shape has {} dimensions: {m2m}; shape: {s}",
                layout.minor_to_major().len(),
                self.shape.rank()
            ),
            K::MinorToMajorOutOfBounds => {
                write!(
                    f,
                    "layout minor_to_major field has out-of-bounds value: {m2m}; shape: {s}"
                )
            }
            K::MinorToMajorDuplicate => {
                write!(
                    f,
                    "layout minor_to_major field has duplicate values: {m2m}; shape: {s}"
                )
            }
            K::TailPaddingNotPositive => write!(
                f,
                "layout tail_padding_alignment_in_elements field is <= 0: {{{}}}",
                layout.tail_padding_alignment_in_elements()
            ),
            K::IndexPrimitiveType => {
                write!(
                    f,
                    "layout has a index_primitive_type, but is not a sparse array: {s}"
                )
            }
            K::PointerPrimitiveType => {
                write!(
                    f,
                    "layout has a pointer_primitive_type, but is not a sparse array: {s}"
                )
            }
            K::PhysicalShape => write!(
                f,
                "layout has a physical_shape, but is not a sparse array: {s}"
            ),
            K::EmptyTile { .. } => write!(f, "layout has invalid tiles: {s}"),
            K::NonPositiveTileDimension { value, .. } => write!(
                f,
                "layout has invalid tiles: tile dimension {value} must be positive or kCombineDimension: {s}"
            ),
            K::NegativeElementSize => write!(
                f,
                "layout element_size_in_bits field is negative: {}",
                layout.element_size_in_bits()
            ),
            K::SplitDimensionOutOfBounds { config } => write!(
                f,
                "split config has out-of-bounds physical dimension: {}; shape: {s}",
                layout.split_config(config).dimension
            ),
            K::SplitDimensionDuplicate { config } => write!(
                f,
                "split config has duplicate physical dimension: {}; shape: {s}",
                layout.split_config(config).dimension
            ),
            K::SplitIndicesNotIncreasing { config } => write!(
                f,
                "split config split indices must be strictly increasing and positive: {}; shape: {s}",
                Braced(layout.split_config(config).indices)
            ),
            K::SplitIndexOutOfBounds {
                index, dim_size, ..
            } => write!(
                f,
                "split config split index is out of bounds: {index} (dim size {dim_size}); shape: {s}"
            ),
            K::CombineInMostMinorPosition { tile } => write!(
                f,
                "tile {tile} has `*` in its most minor position, where there is no more-minor dimension to combine with; shape: {s}"
            ),
        }
    }
}

impl core::error::Error for ValidationError {}

const fn fail(kind: ValidationErrorKind, shape: &ArrayShape) -> Result<(), ValidationError> {
    Err(ValidationError {
        kind,
        shape: *shape,
        in_buffer: false,
    })
}

/// `ValidateNonLayoutProperties` for an array: rules 1–6.
const fn validate_non_layout(shape: &ArrayShape) -> Result<(), ValidationError> {
    use ValidationErrorKind as K;
    let ty = shape.element_type();
    if matches!(ty, ElementType::INVALID) {
        return fail(K::InvalidElementType, shape);
    }
    if !ty.is_array_type() {
        return fail(K::WrongKindForElementType, shape);
    }
    // Rule 3 wins over rule 4: overflow is only reported after the loop.
    let dims = shape.dims();
    let mut product: i64 = 1;
    let mut overflow = false;
    let mut i = 0;
    while i < dims.len() {
        let d = dims[i];
        if d != UNBOUNDED {
            if d < 0 {
                return fail(K::NegativeDimension { index: i, size: d }, shape);
            }
            match product.checked_mul(d) {
                Some(p) => product = p,
                None => overflow = true,
            }
        }
        i += 1;
    }
    if overflow {
        return fail(K::DimensionsOverflow, shape);
    }
    // Rule 5: the bytes at the natural width must fit int64 too.
    let width = match ty.byte_width() {
        Some(w) => w as i64,
        None => 1,
    };
    if product.checked_mul(width).is_none() {
        return fail(K::SizeMayOverflow, shape);
    }
    Ok(())
}

/// The groups of layout rules, in XLA's order. Each group stops at its
/// first failure; the groups themselves are independent of each other,
/// except that the split-config rules need a valid minor-to-major.
const LAYOUT_GROUPS: usize = 7;

/// One group of `ValidateLayoutForShape` (rules 9–22), or this crate's rule.
const fn check_layout_group(
    group: usize,
    layout: &Layout,
    shape: &ArrayShape,
) -> Result<(), ValidationError> {
    match group {
        0 => check_minor_to_major(layout, shape),
        1 => check_tail_padding(layout, shape),
        2 => check_sparse_leftovers(layout, shape),
        3 => check_tiles(layout, shape),
        4 => check_element_size(layout, shape),
        5 => validate_split_configs(layout, shape),
        _ => check_combine_positions(layout, shape),
    }
}

/// Rules 9–11.
const fn check_minor_to_major(layout: &Layout, shape: &ArrayShape) -> Result<(), ValidationError> {
    use ValidationErrorKind as K;
    let rank = shape.rank();
    let m2m = layout.minor_to_major();
    if m2m.len() != rank {
        return fail(K::MinorToMajorLength, shape);
    }
    let mut seen = [false; crate::MAX_RANK];
    let mut i = 0;
    while i < m2m.len() {
        let d = m2m[i];
        if d < 0 || d >= rank as i64 {
            return fail(K::MinorToMajorOutOfBounds, shape);
        }
        if seen[d as usize] {
            return fail(K::MinorToMajorDuplicate, shape);
        }
        seen[d as usize] = true;
        i += 1;
    }
    Ok(())
}

/// Rule 12.
const fn check_tail_padding(layout: &Layout, shape: &ArrayShape) -> Result<(), ValidationError> {
    if layout.tail_padding_alignment_in_elements() <= 0 {
        return fail(ValidationErrorKind::TailPaddingNotPositive, shape);
    }
    Ok(())
}

/// Rules 13–15: fields left over from sparse arrays.
const fn check_sparse_leftovers(
    layout: &Layout,
    shape: &ArrayShape,
) -> Result<(), ValidationError> {
    use ValidationErrorKind as K;
    if layout.index_primitive_type().is_some() {
        return fail(K::IndexPrimitiveType, shape);
    }
    if layout.pointer_primitive_type().is_some() {
        return fail(K::PointerPrimitiveType, shape);
    }
    if layout.has_physical_shape() {
        return fail(K::PhysicalShape, shape);
    }
    Ok(())
}

/// Rules 16–17.
const fn check_tiles(layout: &Layout, shape: &ArrayShape) -> Result<(), ValidationError> {
    use ValidationErrorKind as K;
    let mut t = 0;
    while t < layout.tile_count() {
        let tile = layout.tile(t);
        if tile.is_empty() {
            return fail(K::EmptyTile { tile: t }, shape);
        }
        let mut j = 0;
        while j < tile.len() {
            if tile[j] <= 0 && tile[j] != COMBINE {
                return fail(
                    K::NonPositiveTileDimension {
                        tile: t,
                        value: tile[j],
                    },
                    shape,
                );
            }
            j += 1;
        }
        t += 1;
    }
    Ok(())
}

/// Rule 18.
const fn check_element_size(layout: &Layout, shape: &ArrayShape) -> Result<(), ValidationError> {
    if layout.element_size_in_bits() < 0 {
        return fail(ValidationErrorKind::NegativeElementSize, shape);
    }
    Ok(())
}

/// Beyond XLA: a trailing `*` has no meaning (spec §d.1 step 2.3).
const fn check_combine_positions(
    layout: &Layout,
    shape: &ArrayShape,
) -> Result<(), ValidationError> {
    let mut t = 0;
    while t < layout.tile_count() {
        let tile = layout.tile(t);
        if !tile.is_empty() && tile[tile.len() - 1] == COMBINE {
            return fail(
                ValidationErrorKind::CombineInMostMinorPosition { tile: t },
                shape,
            );
        }
        t += 1;
    }
    Ok(())
}

/// `ValidateLayoutForShape` for an array: rules 9–22, then this crate's rule.
const fn validate_layout(layout: &Layout, shape: &ArrayShape) -> Result<(), ValidationError> {
    let mut group = 0;
    while group < LAYOUT_GROUPS {
        if let Err(e) = check_layout_group(group, layout, shape) {
            return Err(e);
        }
        group += 1;
    }
    Ok(())
}

/// Every independent validation failure of an array, first the one
/// [`validate_array`] reports; for tools that show all problems at once
/// (the `layout!` macro). See [`validation_errors`].
#[derive(Clone, Debug)]
pub struct ValidationErrors<'a> {
    shape: &'a ArrayShape,
    next_group: usize,
    minor_to_major_ok: bool,
}

impl Iterator for ValidationErrors<'_> {
    type Item = ValidationError;

    fn next(&mut self) -> Option<ValidationError> {
        let shape = self.shape;
        loop {
            let group = self.next_group;
            self.next_group += 1;
            let result = match (group, shape.layout()) {
                (0, _) => validate_non_layout(shape),
                (1, None) => fail(ValidationErrorKind::MissingLayout, shape),
                (_, None) => return None,
                (g, Some(l)) if g <= LAYOUT_GROUPS => {
                    let g = g - 1;
                    // Split configs are read through minor-to-major.
                    if g == 5 && !self.minor_to_major_ok {
                        continue;
                    }
                    let r = check_layout_group(g, l, shape);
                    if g == 0 {
                        self.minor_to_major_ok = r.is_ok();
                    }
                    r
                }
                _ => return None,
            };
            if let Err(e) = result {
                return Some(e);
            }
        }
    }
}

/// All independent validation failures of `shape` (layout required).
///
/// ```
/// use xla_layout_core::{validation_errors, ArrayShape, ValidationErrorKind as K};
///
/// let s = ArrayShape::parse("f32[2,3]{0,0:T(0)E(-1)}").unwrap();
/// let kinds: Vec<K> = validation_errors(&s).map(|e| e.kind()).collect();
/// assert_eq!(
///     kinds,
///     [K::MinorToMajorDuplicate, K::NonPositiveTileDimension { tile: 0, value: 0 }, K::NegativeElementSize]
/// );
/// ```
pub fn validation_errors(shape: &ArrayShape) -> ValidationErrors<'_> {
    ValidationErrors {
        shape,
        next_group: 0,
        minor_to_major_ok: false,
    }
}

/// Rules 19–22. Split dimensions are physical: 0 is the most major.
const fn validate_split_configs(
    layout: &Layout,
    shape: &ArrayShape,
) -> Result<(), ValidationError> {
    use ValidationErrorKind as K;
    let rank = shape.rank() as i64;
    let mut seen = [false; crate::MAX_RANK];
    let mut c = 0;
    while c < layout.split_config_count() {
        let sc = layout.split_config(c);
        if sc.dimension < 0 || sc.dimension >= rank {
            return fail(K::SplitDimensionOutOfBounds { config: c }, shape);
        }
        if seen[sc.dimension as usize] {
            return fail(K::SplitDimensionDuplicate { config: c }, shape);
        }
        seen[sc.dimension as usize] = true;
        let m2m = layout.minor_to_major();
        let logical = m2m[(rank - 1 - sc.dimension) as usize] as usize;
        let dim_size = shape.dims()[logical];
        let mut previous = 0;
        let mut i = 0;
        while i < sc.indices.len() {
            let index = sc.indices[i];
            if index <= previous {
                return fail(K::SplitIndicesNotIncreasing { config: c }, shape);
            }
            if index >= dim_size {
                return fail(
                    K::SplitIndexOutOfBounds {
                        config: c,
                        index,
                        dim_size,
                    },
                    shape,
                );
            }
            previous = index;
            i += 1;
        }
        c += 1;
    }
    Ok(())
}

/// `ValidateShape` on an array: every rule; the layout must be present.
///
/// ```
/// use xla_layout_core::{validate_array, ArrayShape, ElementType};
///
/// let ok = ArrayShape::new(ElementType::BF16, &[8, 128]);
/// assert!(validate_array(&ok).is_ok());
/// let missing = ok.clear_layout();
/// assert_eq!(validate_array(&missing).unwrap_err().to_string(), "shape bf16[8,128] does not have a layout");
/// ```
pub const fn validate_array(shape: &ArrayShape) -> Result<(), ValidationError> {
    match shape.layout() {
        Some(_) => validate_array_with_optional_layout(shape),
        None => match validate_non_layout(shape) {
            Ok(()) => fail(ValidationErrorKind::MissingLayout, shape),
            Err(e) => Err(e),
        },
    }
}

/// `ValidateShapeWithOptionalLayout` on an array: a missing layout is fine.
///
/// ```
/// use xla_layout_core::{validate_array_with_optional_layout, ArrayShape, ElementType};
/// let s = ArrayShape::new(ElementType::F32, &[2]).clear_layout();
/// assert!(validate_array_with_optional_layout(&s).is_ok());
/// ```
pub const fn validate_array_with_optional_layout(
    shape: &ArrayShape,
) -> Result<(), ValidationError> {
    if let Err(e) = validate_non_layout(shape) {
        return Err(e);
    }
    match shape.layout() {
        Some(l) => validate_layout(l, shape),
        None => Ok(()),
    }
}

/// `ShapeUtil::ValidateShape`: every rule, on every array of the shape
/// (tuples are walked without recursion, so any depth is fine); the first
/// failure, in order, wins. Layouts are required.
///
/// ```
/// use xla_layout_core::{validate, Shape};
/// assert!(validate(&Shape::parse("b(f32[2]{0})").unwrap()).is_ok());
/// let bad = Shape::parse("b(f32[2]{1})").unwrap();
/// assert_eq!(
///     validate(&bad).unwrap_err().to_string(),
///     "layout minor_to_major field has out-of-bounds value: {1}; shape: b(f32[2])"
/// );
/// ```
pub fn validate(shape: &Shape) -> Result<(), ValidationError> {
    walk(shape, validate_array)
}

/// `ShapeUtil::ValidateShapeWithOptionalLayout`: as [`validate`], but an
/// array without a layout is fine.
///
/// ```
/// use xla_layout_core::{validate_with_optional_layout, ArrayShape, ElementType, Shape};
/// let s = Shape::Array(ArrayShape::new(ElementType::F32, &[2]).clear_layout());
/// assert!(validate_with_optional_layout(&s).is_ok());
/// ```
pub fn validate_with_optional_layout(shape: &Shape) -> Result<(), ValidationError> {
    walk(shape, validate_array_with_optional_layout)
}

fn walk(
    shape: &Shape,
    check: fn(&ArrayShape) -> Result<(), ValidationError>,
) -> Result<(), ValidationError> {
    match shape {
        Shape::Array(a) => check(a),
        Shape::Buffer(a) => check(a).map_err(ValidationError::in_buffer),
        Shape::Token | Shape::Opaque => Ok(()),
        #[cfg(feature = "alloc")]
        Shape::Tuple(elems) => {
            let mut stack: Vec<core::slice::Iter<'_, Shape>> = alloc::vec![elems.iter()];
            while let Some(top) = stack.last_mut() {
                match top.next() {
                    None => {
                        stack.pop();
                    }
                    Some(Shape::Tuple(inner)) => stack.push(inner.iter()),
                    Some(leaf) => walk(leaf, check)?,
                }
            }
            Ok(())
        }
    }
}

impl ArrayShape {
    /// [`validate_array`]: every XLA rule (layout required).
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// assert!("f32[2]{0:T(0)}".parse::<ArrayShape>().unwrap().validate().is_err());
    /// ```
    pub const fn validate(&self) -> Result<(), ValidationError> {
        validate_array(self)
    }
}
