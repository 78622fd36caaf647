//! docs/xla-layouts.md §f: every validation rule (one accepted and one rejected case each,
//! with XLA's exact message and the rule's kind), the order in which the
//! rules are checked, this crate's one extra rule, and the §a.3 / §f
//! "process aborts" cases that must be parse errors.
//!
//! Messages: `<s>` is the shape printed without layout, lists print as
//! `{a, b}`, and `ShapeError` text is `Shape Error: <msg> Shape(<type>): <s>`
//! (docs/xla-layouts.md §f). Every expected string below was written from those rules by
//! hand.

use core::fmt::Write;

use xla_layout_core::{
    ArrayShape, COMBINE, Dim, ElementType, Layout, PhysicalShapeText, Shape, Stage, UNBOUNDED,
    ValidationError, ValidationErrorKind as K, validate, validate_array,
    validate_array_with_optional_layout, validate_with_optional_layout,
};

/// Parses without validating (`ArrayShape::parse` does not validate).
fn parse(text: &str) -> ArrayShape {
    ArrayShape::parse(text).unwrap_or_else(|e| panic!("{text} should parse: {e}"))
}

/// Validates, expecting a failure.
fn reject(s: &ArrayShape) -> ValidationError {
    match s.validate() {
        Ok(()) => panic!("{s} should be rejected"),
        Err(e) => e,
    }
}

/// Asserts the shape validates.
fn accept(s: &ArrayShape) {
    if let Err(e) = s.validate() {
        panic!("{s} should be accepted, got: {e}");
    }
}

/// Asserts text parses and validates.
fn accept_text(text: &str) {
    accept(&parse(text));
}

/// Asserts `text` parses, then fails validation with `kind` and `message`.
fn reject_text(text: &str, kind: K, message: &str) {
    let e = reject(&parse(text));
    assert_eq!(e.kind(), kind, "{text}");
    assert_eq!(e.to_string(), message, "{text}");
}

fn f32(dims: &[i64]) -> ArrayShape {
    ArrayShape::new(ElementType::F32, dims)
}

fn physical(text: &str) -> PhysicalShapeText {
    let mut p = PhysicalShapeText::new();
    write!(p, "{text}").unwrap();
    p
}

// ---------------------------------------------------------------------------
// Rule 1: invalid element type
// ---------------------------------------------------------------------------

#[test]
fn rule01_invalid_element_type_rejected() {
    // The type name is the enum name in lowercase (§b):
    // PRIMITIVE_TYPE_INVALID → primitive_type_invalid.
    let e = reject(&ArrayShape::new(ElementType::INVALID, &[2]));
    assert_eq!(e.kind(), K::InvalidElementType);
    assert!(e.kind().is_xla_rule());
    assert_eq!(
        e.to_string(),
        "Shape Error: Invalid element type. Shape(primitive_type_invalid): primitive_type_invalid[2]"
    );
}

#[test]
fn rule01_valid_element_types_accepted() {
    for t in [
        ElementType::PRED,
        ElementType::S4,
        ElementType::F32,
        ElementType::BF16,
        ElementType::C128,
        ElementType::F4E2M1FN,
        ElementType::F6E3M2FN,
    ] {
        accept(&ArrayShape::new(t, &[2, 3]));
    }
}

// ---------------------------------------------------------------------------
// Rule 2: element type does not match the kind of shape
// ---------------------------------------------------------------------------
//
// An array whose element type names another kind is representable as an
// `ArrayShape` of that type. The reverse ("This type must have an array
// state", a token/opaque/tuple/buffer shape carrying an array type) is not
// representable: `Shape::Token` etc. carry no element type.

#[test]
fn rule02_token_typed_array_rejected() {
    let e = reject(&ArrayShape::new(ElementType::TOKEN, &[]));
    assert_eq!(e.kind(), K::WrongKindForElementType);
    assert_eq!(
        e.to_string(),
        "Shape Error: This type must have a token state. Shape(token): token[]"
    );
}

#[test]
fn rule02_opaque_typed_array_rejected() {
    let e = reject(&ArrayShape::new(ElementType::OPAQUE, &[]));
    assert_eq!(e.kind(), K::WrongKindForElementType);
    assert_eq!(
        e.to_string(),
        "Shape Error: This type must have an opaque state. Shape(opaque): opaque[]"
    );
}

#[test]
fn rule02_tuple_typed_array_rejected() {
    let e = reject(&ArrayShape::new(ElementType::TUPLE, &[]));
    assert_eq!(e.kind(), K::WrongKindForElementType);
    assert_eq!(
        e.to_string(),
        "Shape Error: This type must have a tuple state. Shape(tuple): tuple[]"
    );
}

#[test]
fn rule02_buffer_typed_array_rejected() {
    let e = reject(&ArrayShape::new(ElementType::BUFFER, &[]));
    assert_eq!(e.kind(), K::WrongKindForElementType);
    assert_eq!(
        e.to_string(),
        "Shape Error: This type must have a buffer state. Shape(buffer): buffer[]"
    );
}

#[test]
fn rule02_matching_kinds_accepted() {
    for text in ["token[]", "opaque[]", "b(f32[2])", "(f32[2], s8[])", "()"] {
        let s = Shape::parse(text).unwrap();
        assert_eq!(validate(&s), Ok(()), "{text}");
    }
}

#[test]
fn rule02_tuple_elements_and_buffers_are_checked_recursively() {
    let bad = ArrayShape::new(ElementType::TOKEN, &[]);
    let nested = Shape::Tuple(vec![
        Shape::Array(f32(&[2])),
        Shape::Tuple(vec![Shape::Opaque, Shape::Array(bad)]),
    ]);
    assert_eq!(
        validate(&nested).unwrap_err().kind(),
        K::WrongKindForElementType
    );
    let buffer = Shape::Buffer(bad);
    assert_eq!(
        validate(&buffer).unwrap_err().kind(),
        K::WrongKindForElementType
    );
}

// ---------------------------------------------------------------------------
// Rule 3: negative static dimension
// ---------------------------------------------------------------------------

#[test]
fn rule03_negative_dimension_rejected() {
    let e = reject(&f32(&[2, -3]));
    assert_eq!(e.kind(), K::NegativeDimension { index: 1, size: -3 });
    assert_eq!(
        e.to_string(),
        "Shape Error: Negative dimension at index 1: -3. Shape(f32): f32[2,-3]"
    );
}

#[test]
fn rule03_zero_and_unbounded_dimensions_accepted() {
    accept(&f32(&[0, 3]));
    accept(&ArrayShape::from_dims(
        ElementType::F32,
        &[Dim::Unbounded, Dim::Static(784)],
    ));
    accept(&ArrayShape::from_dims(
        ElementType::F32,
        &[Dim::Bounded(0), Dim::Bounded(5)],
    ));
    accept_text("f32[?,784]");
}

#[test]
fn rule03_unbounded_size_is_skipped_whatever_its_dynamic_flag() {
    // §f rule 3: "kUnbounded is skipped here, whatever its dynamic flag";
    // rules 4 and 5 skip it too.
    accept(&f32(&[UNBOUNDED, 3]));
}

// ---------------------------------------------------------------------------
// Rule 4: dimensions overflow
// ---------------------------------------------------------------------------

#[test]
fn rule04_dimensions_overflow_rejected() {
    let e = reject(&ArrayShape::new(ElementType::S8, &[i64::MAX, 2]));
    assert_eq!(e.kind(), K::DimensionsOverflow);
    assert_eq!(
        e.to_string(),
        "Shape Error: Dimensions overflow. Shape(s8): s8[9223372036854775807,2]"
    );
}

#[test]
fn rule04_largest_product_accepted() {
    // i64::MAX elements of one byte each: neither rule 4 nor rule 5 fires.
    accept(&ArrayShape::new(ElementType::S8, &[i64::MAX]));
    accept(&ArrayShape::new(ElementType::S8, &[i64::MAX, 1]));
}

// ---------------------------------------------------------------------------
// Rule 5: size may overflow (product × ByteWidth)
// ---------------------------------------------------------------------------

#[test]
fn rule05_size_may_overflow_rejected() {
    // 2^62 elements × 4 B overflows int64.
    let e = reject(&f32(&[1 << 62]));
    assert_eq!(e.kind(), K::SizeMayOverflow);
    assert_eq!(
        e.to_string(),
        "Shape f32[4611686018427387904] size may overflow int64_t."
    );
}

/// The array checks (rules 1–6) see a buffer's array and print it
/// without `b(…)`; the layout checks keep it (XLA's messages, from its
/// parser through jaxlib 0.10.2, found by a differential run).
#[test]
fn array_rules_print_a_buffers_array_without_b() {
    use xla_layout_core::{Shape, validate};
    for (text, message) in [
        (
            "b(f32[4611686018427387904,4])",
            "Shape Error: Dimensions overflow. Shape(f32): f32[4611686018427387904,4]",
        ),
        (
            "b(f32[2305843009213693952])",
            "Shape f32[2305843009213693952] size may overflow int64_t.",
        ),
        (
            "b(f32[2]{1})",
            "layout minor_to_major field has out-of-bounds value: {1}; shape: b(f32[2])",
        ),
    ] {
        let e = validate(&Shape::parse(text).unwrap()).unwrap_err();
        assert_eq!(e.to_string(), message, "{text}");
    }
}

#[test]
fn rule05_bounds_count_and_unbounded_is_skipped() {
    let bounded = ArrayShape::from_dims(ElementType::F32, &[Dim::Bounded(1 << 62)]);
    let e = reject(&bounded);
    assert_eq!(e.kind(), K::SizeMayOverflow);
    assert_eq!(
        e.to_string(),
        "Shape f32[<=4611686018427387904] size may overflow int64_t."
    );
    let unbounded =
        ArrayShape::from_dims(ElementType::F32, &[Dim::Unbounded, Dim::Static(1 << 62)]);
    assert_eq!(
        reject(&unbounded).to_string(),
        "Shape f32[?,4611686018427387904] size may overflow int64_t."
    );
}

#[test]
fn rule05_product_times_width_that_fits_accepted() {
    // 2^60 × 4 = 2^62 fits.
    accept(&f32(&[1 << 60]));
    // c128: ⌊i64::MAX / 16⌋ elements × 16 B fits.
    accept(&ArrayShape::new(ElementType::C128, &[i64::MAX / 16]));
}

// Rule 6 ("Unsupported element type") is unreachable: every element type
// that passes rules 1 and 2 is a supported array type.

// ---------------------------------------------------------------------------
// Rule 7: missing layout
// ---------------------------------------------------------------------------

#[test]
fn rule07_missing_layout_rejected_when_required() {
    let s = f32(&[2, 3]).clear_layout();
    let e = validate_array(&s).unwrap_err();
    assert_eq!(e.kind(), K::MissingLayout);
    assert_eq!(e.to_string(), "shape f32[2,3] does not have a layout");
    let scalar = f32(&[]).clear_layout();
    assert_eq!(
        validate(&Shape::Array(scalar)).unwrap_err().to_string(),
        "shape f32[] does not have a layout"
    );
}

#[test]
fn rule07_missing_layout_accepted_when_optional() {
    let s = f32(&[2, 3]).clear_layout();
    assert_eq!(validate_array_with_optional_layout(&s), Ok(()));
    assert_eq!(validate_with_optional_layout(&Shape::Array(s)), Ok(()));
    let tuple = Shape::Tuple(vec![Shape::Array(s), Shape::Token]);
    assert_eq!(validate_with_optional_layout(&tuple), Ok(()));
    assert_eq!(validate(&tuple).unwrap_err().kind(), K::MissingLayout);
}

#[test]
fn rule07_token_and_opaque_need_no_layout() {
    assert_eq!(validate(&Shape::Token), Ok(()));
    assert_eq!(validate(&Shape::Opaque), Ok(()));
}

// Rule 8 ("a single Layout is not valid for tuple shapes") is unrepresentable
// in this model: a layout belongs to an `ArrayShape`, and `Shape::Tuple`
// holds only its elements, so no layout can be attached to a tuple.

// ---------------------------------------------------------------------------
// Rule 9: m2m length
// ---------------------------------------------------------------------------

#[test]
fn rule09_minor_to_major_length_rejected() {
    // The parser rejects a wrong count itself (§a.3.4), so build it.
    let e = reject(&f32(&[2, 3]).with_layout(Layout::new(&[0])));
    assert_eq!(e.kind(), K::MinorToMajorLength);
    assert_eq!(
        e.to_string(),
        "layout minor_to_major field contains 1 elements, but shape has 2 dimensions: {0}; shape: f32[2,3]"
    );
    let e = reject(&f32(&[]).with_layout(Layout::new(&[0])));
    assert_eq!(
        e.to_string(),
        "layout minor_to_major field contains 1 elements, but shape has 0 dimensions: {0}; shape: f32[]"
    );
    let e = reject(&f32(&[2]).with_layout(Layout::new(&[2, 1, 0])));
    assert_eq!(
        e.to_string(),
        "layout minor_to_major field contains 3 elements, but shape has 1 dimensions: {2, 1, 0}; shape: f32[2]"
    );
}

#[test]
fn rule09_matching_length_accepted() {
    accept(&f32(&[2, 3]).with_layout(Layout::new(&[0, 1])));
    accept(&f32(&[]).with_layout(Layout::new(&[])));
}

// ---------------------------------------------------------------------------
// Rule 10: m2m value out of bounds
// ---------------------------------------------------------------------------

#[test]
fn rule10_out_of_bounds_value_rejected() {
    reject_text(
        "f32[2,3]{2,0}",
        K::MinorToMajorOutOfBounds,
        "layout minor_to_major field has out-of-bounds value: {2, 0}; shape: f32[2,3]",
    );
    reject_text(
        "f32[2,3]{-1,0}",
        K::MinorToMajorOutOfBounds,
        "layout minor_to_major field has out-of-bounds value: {-1, 0}; shape: f32[2,3]",
    );
}

#[test]
fn rule10_in_bounds_permutations_accepted() {
    for text in [
        "f32[2,3]{0,1}",
        "f32[2,3]{1,0}",
        "f32[2,3,4]{1,2,0}",
        "f32[2,3,4]{0,2,1}",
    ] {
        accept_text(text);
    }
}

// ---------------------------------------------------------------------------
// Rule 11: m2m duplicate
// ---------------------------------------------------------------------------

#[test]
fn rule11_duplicate_value_rejected() {
    reject_text(
        "f32[2,3]{0,0}",
        K::MinorToMajorDuplicate,
        "layout minor_to_major field has duplicate values: {0, 0}; shape: f32[2,3]",
    );
    reject_text(
        "f32[2,3,4]{2,1,2}",
        K::MinorToMajorDuplicate,
        "layout minor_to_major field has duplicate values: {2, 1, 2}; shape: f32[2,3,4]",
    );
}

#[test]
fn rule11_distinct_values_accepted() {
    accept_text("f32[2,3,4]{2,0,1}");
}

// ---------------------------------------------------------------------------
// Rule 12: L ≤ 0
// ---------------------------------------------------------------------------

#[test]
fn rule12_tail_padding_not_positive_rejected() {
    // L(0) and L(<0) abort XLA's parser (§a.3.8), so build them.
    let e = reject(&f32(&[4]).with_layout(Layout::new(&[0]).with_tail_padding_alignment(0)));
    assert_eq!(e.kind(), K::TailPaddingNotPositive);
    assert_eq!(
        e.to_string(),
        "layout tail_padding_alignment_in_elements field is <= 0: {0}"
    );
    let e = reject(&f32(&[4]).with_layout(Layout::new(&[0]).with_tail_padding_alignment(-5)));
    assert_eq!(
        e.to_string(),
        "layout tail_padding_alignment_in_elements field is <= 0: {-5}"
    );
}

#[test]
fn rule12_positive_tail_padding_accepted() {
    accept_text("f32[4]{0:L(1)}");
    accept_text("f32[4]{0:L(1024)}");
    accept(&f32(&[4]).with_layout(Layout::new(&[0]).with_tail_padding_alignment(3)));
}

// ---------------------------------------------------------------------------
// Rule 13: index primitive type set
// ---------------------------------------------------------------------------

#[test]
fn rule13_index_primitive_type_rejected() {
    reject_text(
        "f32[2]{0:#(u32)}",
        K::IndexPrimitiveType,
        "layout has a index_primitive_type, but is not a sparse array: f32[2]",
    );
    // Not unsigned: the parser records an error but keeps going (§a.3.9).
    reject_text(
        "f32[2]{0:T(8,128)#(s32)}",
        K::IndexPrimitiveType,
        "layout has a index_primitive_type, but is not a sparse array: f32[2]",
    );
}

#[test]
fn rule13_no_index_primitive_type_accepted() {
    accept(
        &f32(&[2]).with_layout(Layout::new(&[0]).with_index_primitive_type(ElementType::INVALID)),
    );
}

// ---------------------------------------------------------------------------
// Rule 14: pointer primitive type set
// ---------------------------------------------------------------------------

#[test]
fn rule14_pointer_primitive_type_rejected() {
    reject_text(
        "f32[2]{0:*(u16)}",
        K::PointerPrimitiveType,
        "layout has a pointer_primitive_type, but is not a sparse array: f32[2]",
    );
    let built = f32(&[2, 2])
        .with_layout(Layout::new(&[1, 0]).with_pointer_primitive_type(ElementType::U64));
    assert_eq!(
        reject(&built).to_string(),
        "layout has a pointer_primitive_type, but is not a sparse array: f32[2,2]"
    );
}

#[test]
fn rule14_no_pointer_primitive_type_accepted() {
    accept(
        &f32(&[2]).with_layout(Layout::new(&[0]).with_pointer_primitive_type(ElementType::INVALID)),
    );
}

// ---------------------------------------------------------------------------
// Rule 15: physical shape set
// ---------------------------------------------------------------------------

#[test]
fn rule15_physical_shape_rejected() {
    let l = Layout::new(&[0]).with_physical_shape(Some(physical("f32[4]{0}")));
    let e = reject(&f32(&[4]).with_layout(l));
    assert_eq!(e.kind(), K::PhysicalShape);
    assert_eq!(
        e.to_string(),
        "layout has a physical_shape, but is not a sparse array: f32[4]"
    );
    // A bare layout with P parses (§a.3.5); on an array, validation rejects it.
    let parsed = Layout::parse("{0:P(f32[4])}").unwrap();
    assert_eq!(
        reject(&f32(&[4]).with_layout(parsed)).kind(),
        K::PhysicalShape
    );
}

#[test]
fn rule15_no_physical_shape_accepted() {
    accept(&f32(&[4]).with_layout(Layout::new(&[0]).with_physical_shape(None)));
}

// ---------------------------------------------------------------------------
// Rule 16: empty tile
// ---------------------------------------------------------------------------

#[test]
fn rule16_empty_tile_rejected() {
    reject_text(
        "f32[2]{0:T()}",
        K::EmptyTile { tile: 0 },
        "layout has invalid tiles: f32[2]",
    );
    reject_text(
        "f32[8,8]{1,0:T(8,8)()}",
        K::EmptyTile { tile: 1 },
        "layout has invalid tiles: f32[8,8]",
    );
}

#[test]
fn rule16_non_empty_tiles_accepted() {
    accept_text("f32[2]{0:T(2)}");
    accept_text("f32[8,128]{1,0:T(8,128)(2,1)}");
    // Tile rank is not checked against array rank (§f "Not checked").
    accept_text("f32[3]{0:T(8,128)}");
    accept_text("f32[3,5,7]{2,1,0:T(4)}");
}

// ---------------------------------------------------------------------------
// Rule 17: tile entry ≤ 0 and not `*`
// ---------------------------------------------------------------------------

#[test]
fn rule17_zero_tile_entry_rejected() {
    reject_text(
        "f32[4,4]{1,0:T(4,0)}",
        K::NonPositiveTileDimension { tile: 0, value: 0 },
        "layout has invalid tiles: tile dimension 0 must be positive or kCombineDimension: f32[4,4]",
    );
}

#[test]
fn rule17_negative_tile_entry_built_in_code_rejected() {
    // In text a negative entry aborts the parser (§a.3.7); built in code
    // it reaches validation.
    let l = Layout::new(&[0]).with_tiles(&[&[2], &[-7]]);
    let e = reject(&f32(&[4]).with_layout(l));
    assert_eq!(e.kind(), K::NonPositiveTileDimension { tile: 1, value: -7 });
    assert_eq!(
        e.to_string(),
        "layout has invalid tiles: tile dimension -7 must be positive or kCombineDimension: f32[4]"
    );
}

#[test]
fn rule17_positive_and_combine_entries_accepted() {
    accept_text("f32[4,4]{1,0:T(4,1)}");
    accept_text("f32[3,4]{1,0:T(*,4)}");
    accept_text("bf16[2,3,1004]{2,1,0:T(2,*,128)}");
    accept(&f32(&[3, 4]).with_layout(Layout::new(&[1, 0]).with_tiles(&[&[COMBINE, 4]])));
    // Tiles need not divide the dimensions (§f "Not checked").
    accept_text("f32[3,5]{1,0:T(2,2)}");
}

// ---------------------------------------------------------------------------
// Rule 18: E < 0
// ---------------------------------------------------------------------------

#[test]
fn rule18_negative_element_size_rejected() {
    reject_text(
        "f32[2]{0:E(-1)}",
        K::NegativeElementSize,
        "layout element_size_in_bits field is negative: -1",
    );
}

#[test]
fn rule18_any_non_negative_element_size_accepted() {
    // E is not checked against the element type (§c, §f).
    accept_text("f32[2]{0:E(0)}");
    accept_text("s4[8]{0:E(4)}");
    accept_text("s8[33]{0:E(4)}");
    accept_text("pred[8,8,8]{0,2,1:E(32)}");
}

// ---------------------------------------------------------------------------
// Rule 19: split config physical dimension out of bounds
// ---------------------------------------------------------------------------

#[test]
fn rule19_split_dimension_out_of_bounds_rejected() {
    reject_text(
        "f32[4,8]{1,0:SC(2:1)}",
        K::SplitDimensionOutOfBounds { config: 0 },
        "split config has out-of-bounds physical dimension: 2; shape: f32[4,8]",
    );
    reject_text(
        "f32[4,8]{1,0:SC(0:1)(-1:1)}",
        K::SplitDimensionOutOfBounds { config: 1 },
        "split config has out-of-bounds physical dimension: -1; shape: f32[4,8]",
    );
}

#[test]
fn rule19_split_dimension_in_bounds_accepted() {
    accept_text("f32[4,8]{1,0:SC(0:1)}");
    accept_text("f32[4,8]{1,0:SC(1:4)}");
}

// ---------------------------------------------------------------------------
// Rule 20: duplicate split config dimension
// ---------------------------------------------------------------------------

#[test]
fn rule20_duplicate_split_dimension_rejected() {
    reject_text(
        "f32[4,8]{1,0:SC(0:1)(0:2)}",
        K::SplitDimensionDuplicate { config: 1 },
        "split config has duplicate physical dimension: 0; shape: f32[4,8]",
    );
}

#[test]
fn rule20_distinct_split_dimensions_accepted() {
    accept_text("f32[4,8]{1,0:SC(0:1,3)(1:4)}");
}

// ---------------------------------------------------------------------------
// Rule 21: split indices not strictly increasing, or first ≤ 0
// ---------------------------------------------------------------------------

#[test]
fn rule21_split_indices_not_increasing_rejected() {
    reject_text(
        "f32[4,8]{1,0:SC(0:2,2)}",
        K::SplitIndicesNotIncreasing { config: 0 },
        "split config split indices must be strictly increasing and positive: {2, 2}; shape: f32[4,8]",
    );
    // Physical 1 of {1,0} is logical 1 (size 8): both 6 and 3 are in
    // bounds, only the order is wrong.
    reject_text(
        "f32[4,8]{1,0:SC(1:6,3)}",
        K::SplitIndicesNotIncreasing { config: 0 },
        "split config split indices must be strictly increasing and positive: {6, 3}; shape: f32[4,8]",
    );
}

#[test]
fn rule21_first_split_index_not_positive_rejected() {
    reject_text(
        "f32[4,8]{1,0:SC(0:0)}",
        K::SplitIndicesNotIncreasing { config: 0 },
        "split config split indices must be strictly increasing and positive: {0}; shape: f32[4,8]",
    );
    reject_text(
        "f32[4,8]{1,0:SC(1:-2,4)}",
        K::SplitIndicesNotIncreasing { config: 0 },
        "split config split indices must be strictly increasing and positive: {-2, 4}; shape: f32[4,8]",
    );
}

#[test]
fn rule21_increasing_positive_indices_accepted() {
    accept_text("f32[4,8]{1,0:SC(1:1,2,7)}");
    // An empty index list is neither decreasing nor non-positive.
    accept_text("f32[4,8]{1,0:SC(1:)}");
}

// ---------------------------------------------------------------------------
// Rule 22: split index ≥ dimension size
// ---------------------------------------------------------------------------

#[test]
fn rule22_split_index_out_of_bounds_rejected() {
    // {1,0}: physical 0 is Major(layout, 0) = m2m[1] = logical 0, size 4.
    reject_text(
        "f32[4,8]{1,0:SC(0:4)}",
        K::SplitIndexOutOfBounds {
            config: 0,
            index: 4,
            dim_size: 4,
        },
        "split config split index is out of bounds: 4 (dim size 4); shape: f32[4,8]",
    );
    // {0,1}: physical 0 is m2m[1] = logical 1, size 8.
    reject_text(
        "f32[4,8]{0,1:SC(0:8)}",
        K::SplitIndexOutOfBounds {
            config: 0,
            index: 8,
            dim_size: 8,
        },
        "split config split index is out of bounds: 8 (dim size 8); shape: f32[4,8]",
    );
}

#[test]
fn rule22_split_dimension_is_physical() {
    // SC(0:4) is out of bounds under {1,0} (above) but fine under {0,1},
    // where physical 0 is the size-8 logical dimension 1.
    accept_text("f32[4,8]{0,1:SC(0:4)}");
    accept_text("f32[4,8]{1,0:SC(0:3)}");
    accept_text("f32[4,8]{1,0:SC(1:7)}");
}

// ---------------------------------------------------------------------------
// The extra (non-XLA) rule: `*` in the most-minor tile position
// ---------------------------------------------------------------------------

#[test]
fn extra_rule_combine_in_most_minor_position_rejected() {
    let e = reject(&parse("f32[2,4]{1,0:T(2,*)}"));
    assert_eq!(e.kind(), K::CombineInMostMinorPosition { tile: 0 });
    assert!(!e.kind().is_xla_rule());

    let e = reject(&parse("f32[8,128]{1,0:T(8,128)(2,*)}"));
    assert_eq!(e.kind(), K::CombineInMostMinorPosition { tile: 1 });
    assert!(!e.kind().is_xla_rule());

    let e = reject(&parse("f32[4]{0:T(*)}"));
    assert_eq!(e.kind(), K::CombineInMostMinorPosition { tile: 0 });
}

#[test]
fn extra_rule_combine_elsewhere_accepted() {
    accept_text("f32[2,4]{1,0:T(*,4)}");
    accept_text("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}");
}

#[test]
fn every_xla_rule_is_an_xla_rule() {
    for kind in [
        K::InvalidElementType,
        K::WrongKindForElementType,
        K::NegativeDimension { index: 0, size: -1 },
        K::DimensionsOverflow,
        K::SizeMayOverflow,
        K::MissingLayout,
        K::MinorToMajorLength,
        K::MinorToMajorOutOfBounds,
        K::MinorToMajorDuplicate,
        K::TailPaddingNotPositive,
        K::IndexPrimitiveType,
        K::PointerPrimitiveType,
        K::PhysicalShape,
        K::EmptyTile { tile: 0 },
        K::NonPositiveTileDimension { tile: 0, value: 0 },
        K::NegativeElementSize,
        K::SplitDimensionOutOfBounds { config: 0 },
        K::SplitDimensionDuplicate { config: 0 },
        K::SplitIndicesNotIncreasing { config: 0 },
        K::SplitIndexOutOfBounds {
            config: 0,
            index: 0,
            dim_size: 0,
        },
    ] {
        assert!(kind.is_xla_rule(), "{kind:?}");
    }
}

// ---------------------------------------------------------------------------
// Order: the checks run in the order 1–22 and the first failure wins
// ---------------------------------------------------------------------------

#[test]
fn order_invalid_type_before_negative_dimension() {
    let e = reject(&ArrayShape::new(ElementType::INVALID, &[-1]));
    assert_eq!(e.kind(), K::InvalidElementType);
}

#[test]
fn order_wrong_kind_before_negative_dimension() {
    let e = reject(&ArrayShape::new(ElementType::TOKEN, &[-1]));
    assert_eq!(e.kind(), K::WrongKindForElementType);
}

#[test]
fn order_negative_dimension_before_dimensions_overflow() {
    // The overflow happens at index 1, before the negative entry at index
    // 2; rule 3 still wins.
    let e = reject(&f32(&[i64::MAX, 2, -1]));
    assert_eq!(e.kind(), K::NegativeDimension { index: 2, size: -1 });
    assert_eq!(
        e.to_string(),
        "Shape Error: Negative dimension at index 2: -1. Shape(f32): f32[9223372036854775807,2,-1]"
    );
}

#[test]
fn order_dimensions_overflow_before_size_may_overflow() {
    assert_eq!(reject(&f32(&[i64::MAX, 2])).kind(), K::DimensionsOverflow);
}

#[test]
fn order_non_layout_rules_before_missing_layout() {
    let s = f32(&[-4]).clear_layout();
    assert_eq!(
        validate_array(&s).unwrap_err().kind(),
        K::NegativeDimension { index: 0, size: -4 }
    );
    // And with an optional layout the non-layout rules still apply.
    assert_eq!(
        validate_array_with_optional_layout(&s).unwrap_err().kind(),
        K::NegativeDimension { index: 0, size: -4 }
    );
}

#[test]
fn order_non_layout_rules_before_layout_rules() {
    let s = f32(&[-4, 2]).with_layout(Layout::new(&[0, 0]).with_element_size_in_bits(-1));
    assert_eq!(
        reject(&s).kind(),
        K::NegativeDimension { index: 0, size: -4 }
    );
}

#[test]
fn order_minor_to_major_length_before_later_layout_rules() {
    let l = Layout::new(&[5])
        .with_tail_padding_alignment(0)
        .with_element_size_in_bits(-1);
    assert_eq!(
        reject(&f32(&[2, 3]).with_layout(l)).kind(),
        K::MinorToMajorLength
    );
}

#[test]
fn order_m2m_out_of_bounds_before_duplicate_when_out_of_bounds_comes_first() {
    // {5,0,0} breaks rule 10 (entry 0) and rule 11 (entries 1, 2).
    reject_text(
        "f32[2,3,4]{5,0,0}",
        K::MinorToMajorOutOfBounds,
        "layout minor_to_major field has out-of-bounds value: {5, 0, 0}; shape: f32[2,3,4]",
    );
}

#[test]
fn order_m2m_checks_run_entry_by_entry() {
    // {0,0,5} breaks rule 11 at entry 1 and rule 10 at entry 2. XLA's
    // ValidateLayoutForShape checks each entry in turn (out of bounds, then
    // duplicate), so the first failing *entry* wins: the duplicate.
    reject_text(
        "f32[2,3,4]{0,0,5}",
        K::MinorToMajorDuplicate,
        "layout minor_to_major field has duplicate values: {0, 0, 5}; shape: f32[2,3,4]",
    );
}

#[test]
fn order_m2m_duplicate_before_tail_padding() {
    let s = f32(&[2, 3]).with_layout(Layout::new(&[0, 0]).with_tail_padding_alignment(0));
    assert_eq!(reject(&s).kind(), K::MinorToMajorDuplicate);
}

#[test]
fn order_tail_padding_before_index_type() {
    let s = f32(&[2]).with_layout(
        Layout::new(&[0])
            .with_tail_padding_alignment(0)
            .with_index_primitive_type(ElementType::U32),
    );
    assert_eq!(reject(&s).kind(), K::TailPaddingNotPositive);
}

#[test]
fn order_index_type_before_pointer_type() {
    reject_text(
        "f32[2]{0:#(u32)*(u32)}",
        K::IndexPrimitiveType,
        "layout has a index_primitive_type, but is not a sparse array: f32[2]",
    );
}

#[test]
fn order_pointer_type_before_physical_shape() {
    let s = f32(&[4]).with_layout(
        Layout::new(&[0])
            .with_pointer_primitive_type(ElementType::U32)
            .with_physical_shape(Some(physical("f32[4]{0}"))),
    );
    assert_eq!(reject(&s).kind(), K::PointerPrimitiveType);
}

#[test]
fn order_physical_shape_before_tiles() {
    let s = f32(&[4]).with_layout(
        Layout::new(&[0])
            .with_tiles(&[&[]])
            .with_physical_shape(Some(physical("f32[4]{0}"))),
    );
    assert_eq!(reject(&s).kind(), K::PhysicalShape);
}

#[test]
fn order_empty_tile_before_non_positive_entry_in_a_later_tile() {
    reject_text(
        "f32[4,4]{1,0:T()(0)}",
        K::EmptyTile { tile: 0 },
        "layout has invalid tiles: f32[4,4]",
    );
}

#[test]
fn order_tile_checks_run_tile_by_tile() {
    // T(0)(): tile 0 breaks rule 17, tile 1 breaks rule 16. XLA checks the
    // tiles in turn (empty, then each entry), so tile 0's entry is reported.
    reject_text(
        "f32[4,4]{1,0:T(0)()}",
        K::NonPositiveTileDimension { tile: 0, value: 0 },
        "layout has invalid tiles: tile dimension 0 must be positive or kCombineDimension: f32[4,4]",
    );
}

#[test]
fn order_tile_entry_before_element_size() {
    assert_eq!(
        reject(&parse("f32[4]{0:T(0)E(-1)}")).kind(),
        K::NonPositiveTileDimension { tile: 0, value: 0 }
    );
}

#[test]
fn order_element_size_before_split_configs() {
    assert_eq!(
        reject(&parse("f32[4,8]{1,0:E(-1)SC(5:1)}")).kind(),
        K::NegativeElementSize
    );
}

#[test]
fn order_split_out_of_bounds_dimension_before_duplicate_in_a_later_config() {
    assert_eq!(
        reject(&parse("f32[4,8]{1,0:SC(5:1)(0:1)(0:2)}")).kind(),
        K::SplitDimensionOutOfBounds { config: 0 }
    );
}

#[test]
fn order_split_checks_run_config_by_config() {
    // Config 1 breaks rule 20, config 2 breaks rule 19. XLA checks the
    // configs in turn, so config 1's duplicate is reported.
    reject_text(
        "f32[4,8]{1,0:SC(0:1)(0:2)(5:1)}",
        K::SplitDimensionDuplicate { config: 1 },
        "split config has duplicate physical dimension: 0; shape: f32[4,8]",
    );
}

#[test]
fn order_split_indices_are_checked_index_by_index() {
    // SC(0:5,3) on a size-4 dimension: index 5 is out of bounds (rule 22)
    // before index 3 breaks the increasing order (rule 21); XLA checks
    // each index for both rules in turn.
    reject_text(
        "f32[4,8]{1,0:SC(0:5,3)}",
        K::SplitIndexOutOfBounds {
            config: 0,
            index: 5,
            dim_size: 4,
        },
        "split config split index is out of bounds: 5 (dim size 4); shape: f32[4,8]",
    );
    // With the order broken first, rule 21 wins.
    reject_text(
        "f32[4,8]{1,0:SC(0:2,1)}",
        K::SplitIndicesNotIncreasing { config: 0 },
        "split config split indices must be strictly increasing and positive: {2, 1}; shape: f32[4,8]",
    );
}

#[test]
fn order_xla_rules_before_the_extra_combine_rule() {
    // XLA does not know the extra rule, so whatever XLA reports must win.
    assert_eq!(
        reject(&parse("f32[2,4]{1,0:T(2,*)E(-1)}")).kind(),
        K::NegativeElementSize
    );
    assert_eq!(
        reject(&parse("f32[2,4]{1,0:T(2,*)SC(3:1)}")).kind(),
        K::SplitDimensionOutOfBounds { config: 0 }
    );
    assert_eq!(
        reject(&parse("f32[2,4]{1,0:T(2,*)(0)}")).kind(),
        K::NonPositiveTileDimension { tile: 1, value: 0 }
    );
}

#[test]
fn order_tuple_elements_first_failure_wins() {
    let t = Shape::Tuple(vec![
        Shape::Array(f32(&[2])),
        Shape::Array(f32(&[-1])),
        Shape::Array(f32(&[2]).with_layout(Layout::new(&[1]))),
    ]);
    assert_eq!(
        validate(&t).unwrap_err().kind(),
        K::NegativeDimension { index: 0, size: -1 }
    );
}

#[test]
fn parse_validated_reports_the_validation_stage() {
    let e = ArrayShape::parse_validated("f32[2]{0:E(-1)}").unwrap_err();
    assert_eq!(e.stage(), Stage::Validate);
    assert_eq!(
        e.to_string(),
        "layout element_size_in_bits field is negative: -1"
    );
    let e = Shape::parse_validated("b(s32[2]{0:T()})").unwrap_err();
    assert_eq!(e.stage(), Stage::Validate);
    assert!(e.to_string().starts_with("layout has invalid tiles: "));
}

#[test]
fn tuple_with_invalid_element_fails_while_parsing() {
    // docs/xla-layouts.md §a.3 lists it as a note, but XLA's ParseShape builds tuples
    // with ShapeUtil::MakeValidatedTupleShape, which validates the elements
    // (ValidateShapeWithOptionalLayout) and makes the parse fail with an
    // empty message. Outside a tuple the same array parses.
    let text = "(f32[2,3]{1,0}, s32[2]{0:T()})";
    let e = Shape::parse(text).unwrap_err();
    assert!(e.kind().is_silent_in_xla(), "{e}");
    assert_eq!(e.xla_message(text).to_string(), "Syntax error:\n");
    assert!(
        e.to_string().contains("layout has invalid tiles: s32[2]"),
        "{e}"
    );
    let e = Shape::parse_validated(text).unwrap_err();
    assert_eq!(e.stage(), Stage::Parse);
    let alone = Shape::parse("s32[2]{0:T()}").unwrap();
    assert_eq!(
        validate(&alone).unwrap_err().kind(),
        K::EmptyTile { tile: 0 }
    );
}

// ---------------------------------------------------------------------------
// §a.3 / §f "Process aborts": parse errors flagged as XLA aborts
// ---------------------------------------------------------------------------

fn assert_abort(text: &str) {
    let e = Shape::parse(text).expect_err(text);
    assert!(
        e.kind().is_xla_abort(),
        "{text}: expected an XLA-abort parse error, got {e}"
    );
}

#[test]
fn abort_negative_tile_entry() {
    assert_abort("f32[2]{0:T(-1)}");
    assert_abort("f32[4,4]{1,0:T(2,-3)}");
    assert_abort("f32[8,128]{1,0:T(8,128)(-2,1)}");
    // 2^64 − 1 reads as −1 (§a.1).
    assert_abort("f32[2]{0:T(18446744073709551615)}");
}

#[test]
fn abort_tail_padding_below_one() {
    assert_abort("f32[2]{0:L(0)}");
    assert_abort("f32[2]{0:L(-4)}");
}

#[test]
fn abort_token_or_opaque_with_dimensions() {
    assert_abort("token[2]");
    assert_abort("opaque[1]");
    assert_abort("(f32[2], token[3])");
}

#[test]
fn abort_token_or_opaque_with_layout() {
    assert_abort("token[]{:S(1)}");
    assert_abort("opaque[]{:T(2)}");
}

#[test]
fn non_aborting_tile_and_padding_values_parse() {
    // `*`, zero entries, empty tiles and L(1) are not aborts.
    for text in [
        "f32[2,4]{1,0:T(*,4)}",
        "f32[2]{0:T(0)}",
        "f32[2]{0:T()}",
        "f32[2]{0:L(1)}",
        "token[]",
        "opaque[]",
    ] {
        assert!(Shape::parse(text).is_ok(), "{text}");
    }
    assert_eq!(
        ArrayShape::parse("f32[2]{0:T(2)}")
            .unwrap()
            .layout()
            .unwrap()
            .tile(0),
        [2]
    );
}

/// `Rule::ALL` is the order validation checks the rules in: for shapes
/// that break two rules, the validator reports the one `ALL` lists first.
/// (Rules about the items of one list run item by item; the pairs here
/// break them in their first items, or in different attributes.)
#[test]
fn rule_all_is_the_order_validation_checks() {
    use xla_layout_core::Rule as R;
    let at = |r: R| R::ALL.iter().position(|&x| x == r).unwrap();
    let text = |t: &str| parse(t);
    let layout = |dims: &[i64], l: Layout| f32(dims).with_layout(l);
    let cases: Vec<(ArrayShape, R, R)> = vec![
        (
            ArrayShape::new(ElementType::INVALID, &[-1]),
            R::InvalidElementType,
            R::NegativeDimension,
        ),
        (
            ArrayShape::new(ElementType::TOKEN, &[-1]),
            R::WrongKindForElementType,
            R::NegativeDimension,
        ),
        (
            f32(&[i64::MAX, 2, -1]),
            R::NegativeDimension,
            R::DimensionsOverflow,
        ),
        (
            f32(&[i64::MAX, 2]),
            R::DimensionsOverflow,
            R::SizeMayOverflow,
        ),
        (
            f32(&[-4]).clear_layout(),
            R::NegativeDimension,
            R::MissingLayout,
        ),
        (
            layout(&[2, 3], Layout::new(&[5]).with_tail_padding_alignment(0)),
            R::MinorToMajorLength,
            R::TailPaddingNotPositive,
        ),
        (
            text("f32[2,3,4]{5,0,0}"),
            R::MinorToMajorOutOfBounds,
            R::MinorToMajorDuplicate,
        ),
        (
            layout(&[2, 3], Layout::new(&[0, 0]).with_tail_padding_alignment(0)),
            R::MinorToMajorDuplicate,
            R::TailPaddingNotPositive,
        ),
        (
            layout(
                &[2],
                Layout::new(&[0])
                    .with_tail_padding_alignment(0)
                    .with_index_primitive_type(ElementType::U32),
            ),
            R::TailPaddingNotPositive,
            R::IndexPrimitiveType,
        ),
        (
            text("f32[2]{0:#(u32)*(u32)}"),
            R::IndexPrimitiveType,
            R::PointerPrimitiveType,
        ),
        (
            layout(
                &[4],
                Layout::new(&[0])
                    .with_pointer_primitive_type(ElementType::U32)
                    .with_physical_shape(Some(physical("f32[4]{0}"))),
            ),
            R::PointerPrimitiveType,
            R::PhysicalShape,
        ),
        (
            layout(
                &[4],
                Layout::new(&[0])
                    .with_tiles(&[&[]])
                    .with_physical_shape(Some(physical("f32[4]{0}"))),
            ),
            R::PhysicalShape,
            R::EmptyTile,
        ),
        (
            text("f32[4,4]{1,0:T()(0)}"),
            R::EmptyTile,
            R::NonPositiveTileDimension,
        ),
        (
            text("f32[4]{0:T(0)E(-1)}"),
            R::NonPositiveTileDimension,
            R::NegativeElementSize,
        ),
        (
            text("f32[4,8]{1,0:E(-1)SC(5:1)}"),
            R::NegativeElementSize,
            R::SplitDimensionOutOfBounds,
        ),
        (
            text("f32[4,8]{1,0:SC(5:1)(0:1)(0:2)}"),
            R::SplitDimensionOutOfBounds,
            R::SplitDimensionDuplicate,
        ),
        (
            text("f32[4,8]{1,0:SC(0:1)(0:2)(1:9)}"),
            R::SplitDimensionDuplicate,
            R::SplitIndexOutOfBounds,
        ),
        (
            text("f32[4,8]{1,0:SC(0:2,1)(1:9)}"),
            R::SplitIndicesNotIncreasing,
            R::SplitIndexOutOfBounds,
        ),
        (
            text("f32[4,8]{1,0:T(2,*)SC(0:9)}"),
            R::SplitIndexOutOfBounds,
            R::CombineInMostMinorPosition,
        ),
    ];
    for (shape, first, then) in cases {
        assert_eq!(reject(&shape).kind().rule(), first, "{shape}");
        assert!(at(first) < at(then), "{first:?} before {then:?}");
    }
}
