//! Model → checked model: XLA's shape validation (docs/xla-layouts.md §f), in XLA's order
//! and with XLA's messages, plus the one extra rule this crate adds.
//!
//! Parsing does not validate (docs/xla-layouts.md §a.3); [`crate::ArrayShape::parse_validated`]
//! and [`crate::Shape::parse_validated`] run both steps.
//!
//! A [`ValidationError`] carries a copy of the offending array so that its
//! message is XLA's, word for word, without allocating.

#[cfg(feature = "alloc")]
use alloc::vec::Vec;
use core::fmt::{self, Display, Formatter};

use crate::joined::write_joined;
use crate::limits::{COMBINE, UNBOUNDED};
use crate::{ArrayShape, ElementType, Layout, Shape};

/// Which validation rule failed. The numbers are the rules of docs/xla-layouts.md §f.
///
/// ```
/// use xla_layout_core::{ArrayShape, ValidationErrorKind};
/// let s = ArrayShape::parse("f32[2,3]{1,0:T(8,128)(0)}").unwrap();
/// let kind = s.validate().unwrap_err().kind();
/// assert_eq!(kind, ValidationErrorKind::NonPositiveTileDimension { tile: 1, value: 0 });
/// assert_eq!(kind.item(), Some(1)); // the second tile
/// ```
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
    /// nothing to combine with (docs/xla-layouts.md §d.1 step 2.3), so it has no meaning.
    CombineInMostMinorPosition {
        /// Which tile.
        tile: usize,
    },
}

impl ValidationErrorKind {
    /// Whether XLA's validator has this rule ([`Rule::is_xla_rule`]).
    ///
    /// ```
    /// # use xla_layout_core::ValidationErrorKind;
    /// assert!(ValidationErrorKind::MissingLayout.is_xla_rule());
    /// assert!(!ValidationErrorKind::CombineInMostMinorPosition { tile: 0 }.is_xla_rule());
    /// ```
    pub const fn is_xla_rule(&self) -> bool {
        self.rule().is_xla_rule()
    }

    /// The rule that failed.
    ///
    /// ```
    /// # use xla_layout_core::{Rule, ValidationErrorKind};
    /// assert_eq!(ValidationErrorKind::EmptyTile { tile: 2 }.rule(), Rule::EmptyTile);
    /// ```
    pub const fn rule(&self) -> Rule {
        match self {
            Self::InvalidElementType => Rule::InvalidElementType,
            Self::WrongKindForElementType => Rule::WrongKindForElementType,
            Self::NegativeDimension { .. } => Rule::NegativeDimension,
            Self::DimensionsOverflow => Rule::DimensionsOverflow,
            Self::SizeMayOverflow => Rule::SizeMayOverflow,
            Self::MissingLayout => Rule::MissingLayout,
            Self::MinorToMajorLength => Rule::MinorToMajorLength,
            Self::MinorToMajorOutOfBounds => Rule::MinorToMajorOutOfBounds,
            Self::MinorToMajorDuplicate => Rule::MinorToMajorDuplicate,
            Self::TailPaddingNotPositive => Rule::TailPaddingNotPositive,
            Self::IndexPrimitiveType => Rule::IndexPrimitiveType,
            Self::PointerPrimitiveType => Rule::PointerPrimitiveType,
            Self::PhysicalShape => Rule::PhysicalShape,
            Self::EmptyTile { .. } => Rule::EmptyTile,
            Self::NonPositiveTileDimension { .. } => Rule::NonPositiveTileDimension,
            Self::NegativeElementSize => Rule::NegativeElementSize,
            Self::SplitDimensionOutOfBounds { .. } => Rule::SplitDimensionOutOfBounds,
            Self::SplitDimensionDuplicate { .. } => Rule::SplitDimensionDuplicate,
            Self::SplitIndicesNotIncreasing { .. } => Rule::SplitIndicesNotIncreasing,
            Self::SplitIndexOutOfBounds { .. } => Rule::SplitIndexOutOfBounds,
            Self::CombineInMostMinorPosition { .. } => Rule::CombineInMostMinorPosition,
        }
    }

    /// The rule, in words, for people ([`Rule::hint`]).
    ///
    /// ```
    /// # use xla_layout_core::ValidationErrorKind;
    /// assert_eq!(
    ///     ValidationErrorKind::MinorToMajorDuplicate.hint(),
    ///     "minor_to_major must list each dimension exactly once"
    /// );
    /// ```
    pub const fn hint(&self) -> &'static str {
        self.rule().hint()
    }

    /// Which item of a list attribute failed: the tile or the split
    /// config, by position.
    ///
    /// ```
    /// # use xla_layout_core::ValidationErrorKind;
    /// assert_eq!(ValidationErrorKind::EmptyTile { tile: 2 }.item(), Some(2));
    /// assert_eq!(ValidationErrorKind::MissingLayout.item(), None);
    /// ```
    pub const fn item(&self) -> Option<usize> {
        match *self {
            Self::EmptyTile { tile }
            | Self::NonPositiveTileDimension { tile, .. }
            | Self::CombineInMostMinorPosition { tile } => Some(tile),
            Self::SplitDimensionOutOfBounds { config }
            | Self::SplitDimensionDuplicate { config }
            | Self::SplitIndicesNotIncreasing { config }
            | Self::SplitIndexOutOfBounds { config, .. } => Some(config),
            _ => None,
        }
    }
}

/// The rule table: one row per rule, `Variant => xla|crate, hint;` (its
/// doc comment first). The enum, [`Rule::ALL`] (in row order),
/// [`Rule::hint`] and [`Rule::is_xla_rule`] are generated from it; a rule's
/// XLA message is [`ValidationError`]'s `Display`, its attribute the
/// attribute table's.
macro_rules! rules {
    (
        $(#[$attr:meta])*
        pub enum Rule {
            $( $(#[$doc:meta])* $variant:ident => $whose:ident, $check:ident, $hint:literal; )*
        }
    ) => {
        $(#[$attr])*
        pub enum Rule {
            $( $(#[$doc])* $variant, )*
        }

        impl Rule {
            /// Every rule, in the order validation checks them (see
            /// [`Rule`] for the rules checked item by item).
            ///
            /// ```
            /// # use xla_layout_core::Rule;
            /// assert_eq!(Rule::ALL.len(), 21);
            /// assert_eq!(Rule::ALL[0], Rule::InvalidElementType);
            /// // Only the last is this crate's own.
            /// let own: Vec<Rule> = Rule::ALL.into_iter().filter(|r| !r.is_xla_rule()).collect();
            /// assert_eq!(own, [Rule::CombineInMostMinorPosition]);
            /// ```
            pub const ALL: [Rule; [$(stringify!($variant)),*].len()] = [$(Rule::$variant),*];

            /// Whether XLA's validator has this rule (every rule but
            /// [`Rule::CombineInMostMinorPosition`]).
            ///
            /// ```
            /// # use xla_layout_core::Rule;
            /// assert!(Rule::MissingLayout.is_xla_rule());
            /// assert!(!Rule::CombineInMostMinorPosition.is_xla_rule());
            /// ```
            pub const fn is_xla_rule(self) -> bool {
                match self {
                    $(Rule::$variant => rules!(@xla $whose),)*
                }
            }

            /// The layout check that tests this rule (`None`: the rules
            /// checked before the layout's).
            const fn check(self) -> Option<LayoutCheck> {
                match self {
                    $(Rule::$variant => rules!(@check $check),)*
                }
            }

            /// The rule, in words, for people.
            ///
            /// ```
            /// # use xla_layout_core::Rule;
            /// assert_eq!(Rule::TailPaddingNotPositive.hint(), "L(n) tail padding must be at least 1");
            /// ```
            pub const fn hint(self) -> &'static str {
                match self {
                    $(Rule::$variant => $hint,)*
                }
            }
        }
    };
    (@xla xla) => { true };
    (@xla crate) => { false };
    (@check none) => { None };
    (@check $check:ident) => { Some(LayoutCheck::$check) };
}

rules! {
    /// A validation rule, by name. Each rule has its human hint and whether
    /// XLA has it here; its XLA message is [`ValidationError`]'s `Display`,
    /// and the layout attribute it is about is in the attribute table
    /// ([`crate::text::attribute_of`]). The rules are checked in
    /// [`Rule::ALL`]'s order, the first failure winning, as in XLA
    /// (docs/xla-layouts.md §f) — except that the rules about one item of a
    /// list run together, item by item: minor_to_major's entries (out of
    /// bounds, duplicate), the tiles (empty, entries), the split configs.
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, Rule};
    /// let e = ArrayShape::parse("f32[2]{1}").unwrap().validate().unwrap_err();
    /// assert_eq!(e.kind().rule(), Rule::MinorToMajorOutOfBounds); // rank 1 has only dimension 0
    /// assert_eq!(
    ///     e.kind().rule().hint(),
    ///     "minor_to_major entries must be dimension numbers 0..rank"
    /// );
    /// ```
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    #[non_exhaustive]
    pub enum Rule {
        /// The element type is invalid.
        InvalidElementType => xla, none, "the element type must be a valid XLA type";
        /// An array's element type names another kind of shape.
        WrongKindForElementType => xla, none, "an array needs an array element type";
        /// A static dimension is negative.
        NegativeDimension => xla, none, "dimension sizes must be >= 0";
        /// The dimensions' product overflows int64.
        DimensionsOverflow => xla, none, "the product of the dimensions must fit in int64";
        /// The byte size overflows int64.
        SizeMayOverflow => xla, none, "the size in bytes must fit in int64";
        /// No layout where one is required.
        MissingLayout => xla, none, "the array must have a layout";
        /// minor_to_major's length is not the rank.
        MinorToMajorLength => xla, MinorToMajor, "minor_to_major must have one entry per dimension";
        /// A minor_to_major entry is outside `[0, rank)`.
        MinorToMajorOutOfBounds => xla, MinorToMajor, "minor_to_major entries must be dimension numbers 0..rank";
        /// A minor_to_major entry repeats.
        MinorToMajorDuplicate => xla, MinorToMajor, "minor_to_major must list each dimension exactly once";
        /// `L(n)` with n ≤ 0.
        TailPaddingNotPositive => xla, TailPadding, "L(n) tail padding must be at least 1";
        /// `#(t)` is set.
        IndexPrimitiveType => xla, SparseLeftovers,
            "#(type) index types belong to sparse arrays, which XLA no longer has";
        /// `*(t)` is set.
        PointerPrimitiveType => xla, SparseLeftovers,
            "*(type) pointer types belong to sparse arrays, which XLA no longer has";
        /// `P(...)` is set.
        PhysicalShape => xla, SparseLeftovers,
            "P(shape) physical shapes belong to sparse arrays, which XLA no longer has";
        /// A tile has no entries.
        EmptyTile => xla, Tiles, "a tile must have at least one entry";
        /// A tile entry ≤ 0 that is not `*`.
        NonPositiveTileDimension => xla, Tiles, "tile entries must be positive integers or `*`";
        /// `E(n)` with n < 0.
        NegativeElementSize => xla, ElementSize, "E(n) element size in bits must be >= 0";
        /// A split config's dimension is outside `[0, rank)`.
        SplitDimensionOutOfBounds => xla, SplitConfigs, "a split config must name a physical dimension 0..rank";
        /// Two split configs name the same dimension.
        SplitDimensionDuplicate => xla, SplitConfigs, "each physical dimension may have one split config";
        /// Split indices are not positive and strictly increasing.
        SplitIndicesNotIncreasing => xla, SplitConfigs, "split indices must be positive and strictly increasing";
        /// A split index is past its dimension.
        SplitIndexOutOfBounds => xla, SplitConfigs, "split indices must be inside their dimension";
        /// A `*` in a tile's most-minor position (this crate's rule).
        CombineInMostMinorPosition => crate, CombinePositions,
            "`*` combines a dimension with the next more-minor one, so it cannot be a tile's last entry \
             (xla-layout's rule: XLA accepts such a layout)";
    }
}

/// A shape that fails validation. `Display` gives XLA's message, word for
/// word (for the rules XLA has).
///
/// ```
/// use xla_layout_core::ArrayShape;
///
/// let s = ArrayShape::parse("f32[2,3]{0,0}").unwrap(); // parses: XLA does not check here
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
    ///
    /// ```
    /// use xla_layout_core::{ArrayShape, ValidationErrorKind};
    /// let e = ArrayShape::parse("f32[2]{0:E(-1)}").unwrap().validate().unwrap_err();
    /// assert_eq!(e.kind(), ValidationErrorKind::NegativeElementSize);
    /// ```
    pub const fn kind(&self) -> ValidationErrorKind {
        self.kind
    }

    /// The rule's hint, then XLA's message: the error for people.
    /// `Display` gives XLA's message alone.
    ///
    /// ```
    /// use xla_layout_core::ArrayShape;
    /// let e = ArrayShape::parse("f32[2]{0:T(0)}").unwrap().validate().unwrap_err();
    /// assert_eq!(
    ///     e.explain().to_string(),
    ///     "tile entries must be positive integers or `*`: \
    ///      layout has invalid tiles: tile dimension 0 must be positive or kCombineDimension: f32[2]"
    /// );
    /// ```
    pub fn explain(&self) -> impl Display + '_ {
        fmt::from_fn(move |f| write!(f, "{}: {self}", self.kind.hint()))
    }

    /// The array (or the array inside the buffer) that failed.
    ///
    /// ```
    /// use xla_layout_core::{Shape, validate};
    /// let e = validate(&Shape::parse("b(f32[2]{1})").unwrap()).unwrap_err();
    /// assert_eq!(e.shape().to_string(), "f32[2]{1}"); // the array inside the buffer
    /// ```
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
        write_joined(f, self.0, ", ")?;
        f.write_str("}")
    }
}

impl Display for ValidationError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        use ValidationErrorKind as K;
        let s = Human(self);
        // The checks of the array alone (`ValidateNonLayoutProperties`)
        // see a buffer's array, and print it without `b(…)`.
        let array = self.shape.without_layout();
        let ty = self.shape.element_type();
        let layout = self.shape.layout().copied().unwrap_or(Layout::EMPTY);
        let m2m = Braced(layout.minor_to_major());
        // `ShapeUtil::ShapeError`.
        let shape_error = |f: &mut Formatter<'_>, msg: &dyn Display| {
            write!(f, "Shape Error: {msg} Shape({}): {array}", ty.name())
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
            K::SizeMayOverflow => write!(f, "Shape {array} size may overflow int64_t."),
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

/// The error for `kind` on `shape`. The rules return only the kind: an
/// error holds the whole shape, and a `Result` of one in every rule's frame
/// would cost a firmware stack kilobytes.
const fn fail(kind: ValidationErrorKind, shape: &ArrayShape) -> ValidationError {
    ValidationError {
        kind,
        shape: *shape,
        in_buffer: false,
    }
}

/// A rule's verdict.
type Verdict = Result<(), ValidationErrorKind>;

/// `ValidateNonLayoutProperties` for an array: rules 1–6.
const fn validate_non_layout(shape: &ArrayShape) -> Verdict {
    use ValidationErrorKind as K;
    let ty = shape.element_type();
    if matches!(ty, ElementType::INVALID) {
        return Err(K::InvalidElementType);
    }
    if !ty.is_array_type() {
        return Err(K::WrongKindForElementType);
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
                return Err(K::NegativeDimension { index: i, size: d });
            }
            match product.checked_mul(d) {
                Some(p) => product = p,
                None => overflow = true,
            }
        }
        i += 1;
    }
    if overflow {
        return Err(K::DimensionsOverflow);
    }
    // Rule 5: the bytes at the natural width must fit int64 too.
    let width = match ty.byte_width() {
        Some(w) => w as i64,
        None => 1,
    };
    if product.checked_mul(width).is_none() {
        return Err(K::SizeMayOverflow);
    }
    Ok(())
}

/// The layout checks, by name. Each stops at its first failure; some
/// check a few rules in one pass (XLA's order interleaves them: tile by
/// tile, empty before entries). They are independent of each other,
/// except that the split-config rules read dimensions through a valid
/// minor-to-major. Their order is their rules' in [`Rule::ALL`], the one
/// place that says it ([`LayoutCheck::ALL`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum LayoutCheck {
    MinorToMajor,
    TailPadding,
    SparseLeftovers,
    Tiles,
    ElementSize,
    SplitConfigs,
    CombinePositions,
}

impl LayoutCheck {
    /// Every check once, in the order of its rules in [`Rule::ALL`]; a
    /// check whose rules are not together there, a rule checked before
    /// the layout's after one of them, or a check without rules, is a
    /// compile error.
    const ALL: [LayoutCheck; 7] = {
        let mut all = [LayoutCheck::MinorToMajor; 7];
        let (mut n, mut i) = (0, 0);
        while i < Rule::ALL.len() {
            match Rule::ALL[i].check() {
                None => assert!(n == 0, "the rules before the layout's come first"),
                // The same check as the rule before: already listed.
                Some(check) if n > 0 && all[n - 1] as u8 == check as u8 => {}
                Some(check) => {
                    let mut k = 0;
                    while k < n {
                        assert!(
                            all[k] as u8 != check as u8,
                            "a check's rules are together in Rule::ALL"
                        );
                        k += 1;
                    }
                    all[n] = check;
                    n += 1;
                }
            }
            i += 1;
        }
        assert!(n == all.len(), "every layout check has rules");
        all
    };

    const fn run(self, layout: &Layout, shape: &ArrayShape) -> Verdict {
        match self {
            LayoutCheck::MinorToMajor => check_minor_to_major(layout, shape),
            LayoutCheck::TailPadding => check_tail_padding(layout),
            LayoutCheck::SparseLeftovers => check_sparse_leftovers(layout),
            LayoutCheck::Tiles => check_tiles(layout),
            LayoutCheck::ElementSize => check_element_size(layout),
            LayoutCheck::SplitConfigs => validate_split_configs(layout, shape),
            LayoutCheck::CombinePositions => check_combine_positions(layout),
        }
    }
}

const fn check_minor_to_major(layout: &Layout, shape: &ArrayShape) -> Verdict {
    use ValidationErrorKind as K;
    let rank = shape.rank();
    let m2m = layout.minor_to_major();
    if m2m.len() != rank {
        return Err(K::MinorToMajorLength);
    }
    let mut seen = [false; crate::MAX_RANK];
    let mut i = 0;
    while i < m2m.len() {
        let d = m2m[i];
        if d < 0 || d >= rank as i64 {
            return Err(K::MinorToMajorOutOfBounds);
        }
        if seen[d as usize] {
            return Err(K::MinorToMajorDuplicate);
        }
        seen[d as usize] = true;
        i += 1;
    }
    Ok(())
}

/// Rule 12.
const fn check_tail_padding(layout: &Layout) -> Verdict {
    if layout.tail_padding_alignment_in_elements() <= 0 {
        return Err(ValidationErrorKind::TailPaddingNotPositive);
    }
    Ok(())
}

/// Rules 13–15: fields left over from sparse arrays.
const fn check_sparse_leftovers(layout: &Layout) -> Verdict {
    use ValidationErrorKind as K;
    if layout.index_primitive_type().is_some() {
        return Err(K::IndexPrimitiveType);
    }
    if layout.pointer_primitive_type().is_some() {
        return Err(K::PointerPrimitiveType);
    }
    if layout.has_physical_shape() {
        return Err(K::PhysicalShape);
    }
    Ok(())
}

/// Rules 16–17.
const fn check_tiles(layout: &Layout) -> Verdict {
    use ValidationErrorKind as K;
    let mut t = 0;
    while t < layout.tile_count() {
        let tile = layout.tile(t);
        if tile.is_empty() {
            return Err(K::EmptyTile { tile: t });
        }
        let mut j = 0;
        while j < tile.len() {
            if tile[j] <= 0 && tile[j] != COMBINE {
                return Err(K::NonPositiveTileDimension {
                    tile: t,
                    value: tile[j],
                });
            }
            j += 1;
        }
        t += 1;
    }
    Ok(())
}

/// Rule 18.
const fn check_element_size(layout: &Layout) -> Verdict {
    if layout.element_size_in_bits() < 0 {
        return Err(ValidationErrorKind::NegativeElementSize);
    }
    Ok(())
}

/// Beyond XLA: a trailing `*` has no meaning (docs/xla-layouts.md §d.1 step 2.3).
const fn check_combine_positions(layout: &Layout) -> Verdict {
    let mut t = 0;
    while t < layout.tile_count() {
        let tile = layout.tile(t);
        if !tile.is_empty() && tile[tile.len() - 1] == COMBINE {
            return Err(ValidationErrorKind::CombineInMostMinorPosition { tile: t });
        }
        t += 1;
    }
    Ok(())
}

/// `ValidateLayoutForShape` for an array: rules 9–22, then this crate's rule.
const fn validate_layout(layout: &Layout, shape: &ArrayShape) -> Verdict {
    let mut i = 0;
    while i < LayoutCheck::ALL.len() {
        if let Err(e) = LayoutCheck::ALL[i].run(layout, shape) {
            return Err(e);
        }
        i += 1;
    }
    Ok(())
}

/// Every independent validation failure of an array, first the one
/// [`validate_array`] reports; for tools that show all problems at once
/// (the `layout!` macro). See [`validation_errors`].
///
/// ```
/// use xla_layout_core::{ArrayShape, Rule, validation_errors};
/// let s = ArrayShape::parse("f32[2]{0:T(0)E(-1)}").unwrap();
/// let mut errors = validation_errors(&s);
/// assert_eq!(errors.next(), s.validate().err()); // first, what validation reports
/// assert_eq!(errors.next().map(|e| e.kind().rule()), Some(Rule::NegativeElementSize));
/// assert_eq!(errors.next(), None);
/// ```
#[derive(Clone, Debug)]
pub struct ValidationErrors<'a> {
    shape: &'a ArrayShape,
    /// The next step: the non-layout rules, then each layout check.
    step: usize,
    minor_to_major_ok: bool,
}

impl Iterator for ValidationErrors<'_> {
    type Item = ValidationError;

    fn next(&mut self) -> Option<ValidationError> {
        let shape = self.shape;
        loop {
            let step = self.step;
            self.step += 1;
            let result = match step.checked_sub(1) {
                None => validate_non_layout(shape),
                Some(check) => {
                    let Some(layout) = shape.layout() else {
                        return (check == 0)
                            .then(|| fail(ValidationErrorKind::MissingLayout, shape));
                    };
                    let check = *LayoutCheck::ALL.get(check)?;
                    if matches!(check, LayoutCheck::SplitConfigs) && !self.minor_to_major_ok {
                        continue;
                    }
                    let r = check.run(layout, shape);
                    if matches!(check, LayoutCheck::MinorToMajor) {
                        self.minor_to_major_ok = r.is_ok();
                    }
                    r
                }
            };
            if let Err(kind) = result {
                return Some(fail(kind, shape));
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
        step: 0,
        minor_to_major_ok: false,
    }
}

/// Rules 19–22. Split dimensions are physical: 0 is the most major.
const fn validate_split_configs(layout: &Layout, shape: &ArrayShape) -> Verdict {
    use ValidationErrorKind as K;
    let rank = shape.rank() as i64;
    let mut seen = [false; crate::MAX_RANK];
    let mut c = 0;
    while c < layout.split_config_count() {
        let sc = layout.split_config(c);
        if sc.dimension < 0 || sc.dimension >= rank {
            return Err(K::SplitDimensionOutOfBounds { config: c });
        }
        if seen[sc.dimension as usize] {
            return Err(K::SplitDimensionDuplicate { config: c });
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
                return Err(K::SplitIndicesNotIncreasing { config: c });
            }
            if index >= dim_size {
                return Err(K::SplitIndexOutOfBounds {
                    config: c,
                    index,
                    dim_size,
                });
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
    match check_array(shape, true) {
        Ok(()) => Ok(()),
        Err(kind) => Err(fail(kind, shape)),
    }
}

/// Every rule on an array, the first failure winning; a missing layout
/// fails only when `layout_required`.
const fn check_array(shape: &ArrayShape, layout_required: bool) -> Verdict {
    if let Err(kind) = validate_non_layout(shape) {
        return Err(kind);
    }
    match shape.layout() {
        Some(l) => validate_layout(l, shape),
        None if layout_required => Err(ValidationErrorKind::MissingLayout),
        None => Ok(()),
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
    match check_array(shape, false) {
        Ok(()) => Ok(()),
        Err(kind) => Err(fail(kind, shape)),
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
    /// assert!(ArrayShape::parse("f32[2]{0:T(0)}").unwrap().validate().is_err());
    /// ```
    pub const fn validate(&self) -> Result<(), ValidationError> {
        validate_array(self)
    }
}
