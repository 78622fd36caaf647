//! docs/xla-layouts.md §a: the lexical rules, the accepted grammar, what the parser itself
//! checks, and the canonical printer (§a.4, §a.5).
//!
//! Parse-error texts are compared on `err.kind().to_string()` (XLA's message
//! without location) and, where the spec describes it, on
//! `err.xla_message(input)` (XLA's full status text).

use core::fmt::Write;

use xla_layout_core::text::ParseError;
use xla_layout_core::{ArrayShape, Dim, ElementType, Layout, PhysicalShapeText, Shape};

/// Parses `text` as any shape, or panics with the error.
fn shape(text: &str) -> Shape {
    Shape::parse(text).unwrap_or_else(|e| panic!("{text} should parse: {e}"))
}

/// Parses `text` as an array, or panics with the error.
fn array(text: &str) -> ArrayShape {
    ArrayShape::parse(text).unwrap_or_else(|e| panic!("{text} should parse: {e}"))
}

/// The canonical printed form of `text`.
fn printed(text: &str) -> String {
    shape(text).to_string()
}

/// The error of a parse that must fail.
fn parse_err(text: &str) -> ParseError {
    match Shape::parse(text) {
        Ok(s) => panic!("{text} should not parse, got {s}"),
        Err(e) => e,
    }
}

/// XLA's message (without location) of a parse that must fail.
fn parse_msg(text: &str) -> String {
    parse_err(text).kind().to_string()
}

// ---------------------------------------------------------------------------
// §a.1 Lexical rules
// ---------------------------------------------------------------------------

#[test]
fn whitespace_allowed_between_tokens_allow_shape_whitespace() {
    // XLA test AllowShapeWhitespace.
    assert_eq!(
        printed("f32[ 1, 2,3, 4, 5]{0, 1, 2,3, 4 }"),
        "f32[1,2,3,4,5]{0,1,2,3,4}"
    );
}

#[test]
fn tabs_carriage_returns_and_newlines_are_whitespace() {
    assert_eq!(
        printed("\tf32[\t2,\r\n3 ]\n{\r\n1,\t0\n}\n"),
        "f32[2,3]{1,0}"
    );
}

#[test]
fn comments_allowed_between_tokens() {
    assert_eq!(
        printed("f32/*a*/[ 2 , // to the end of the line\n 3 ]{ 0 /* x */, 1 }"),
        "f32[2,3]{0,1}"
    );
    assert_eq!(
        printed("f32[8,128]{1,0:T(8 /*rows*/, 128)// tile\n(2,1)S(/*fast*/1)}"),
        "f32[8,128]{1,0:T(8,128)(2,1)S(1)}"
    );
    assert_eq!(
        printed("( /*first*/ f32[], // second\n s32[] )"),
        "(f32[], s32[])"
    );
}

#[test]
fn whitespace_inside_layout_attributes() {
    assert_eq!(
        printed("bf16[8,128] { 1 , 0 : T ( 8 , 128 ) ( 2 , 1 ) L ( 4 ) E ( 16 ) S ( 1 ) }"),
        "bf16[8,128]{1,0:T(8,128)(2,1)L(4)E(16)S(1)}"
    );
}

#[test]
fn element_type_names_are_case_sensitive() {
    assert!(Shape::parse("F32[2]").is_err());
    assert!(Shape::parse("Bf16[2]").is_err());
    assert!(Shape::parse("f32[2]").is_ok());
}

#[test]
fn tuple_buffer_and_opaque_type_are_not_type_tokens() {
    assert!(Shape::parse("tuple[]").is_err());
    assert!(Shape::parse("buffer[2]").is_err());
    assert!(Shape::parse("opaque_type[]").is_err());
    assert_eq!(shape("opaque[]"), Shape::Opaque);
}

#[test]
fn leq_must_be_two_adjacent_characters() {
    assert_eq!(array("f32[<=3]").dim(0), Dim::Bounded(3));
    assert!(Shape::parse("f32[< =3]").is_err());
}

#[test]
fn non_integer_number_patterns_give_expects_integer() {
    for text in ["f32[1.5]", "f32[1e3]", "f32[2x3]", "f32[1_2]"] {
        assert_eq!(parse_msg(text), "expects integer", "{text}");
    }
}

#[test]
fn integers_of_2_pow_64_or_more_do_not_lex_as_integers() {
    assert!(Shape::parse("f32[2]{0:E(18446744073709551616)}").is_err());
}

// ---------------------------------------------------------------------------
// §a.2 / §a.3 Dimensions
// ---------------------------------------------------------------------------

#[test]
fn dimension_forms() {
    let s = array("f32[<=23,44,?]");
    assert_eq!(s.dim(0), Dim::Bounded(23));
    assert_eq!(s.dim(1), Dim::Static(44));
    assert_eq!(s.dim(2), Dim::Unbounded);
    assert_eq!(s.dynamic_dimensions(), [true, false, true]);
}

#[test]
fn negative_dimensions_fail_silently_in_xla() {
    for text in ["f32[-1]", "f32[2,-3]", "f32[<=-1]", "(f32[-2])"] {
        let e = parse_err(text);
        assert!(e.kind().is_silent_in_xla(), "{text}: {e}");
        // XLA's message is empty: just the prefix.
        assert_eq!(e.xla_message(text).to_string(), "Syntax error:\n", "{text}");
    }
}

#[test]
fn dimension_of_2_pow_63_wraps_to_a_negative_static_size_and_fails() {
    // 2^63 reads as INT64_MIN; a *static* INT64_MIN is not a valid size.
    for text in ["f32[9223372036854775808]", "f32[18446744073709551615]"] {
        let e = parse_err(text);
        assert!(e.kind().is_silent_in_xla(), "{text}: {e}");
    }
}

// ---------------------------------------------------------------------------
// §a.2 When `{` starts a layout
// ---------------------------------------------------------------------------

#[test]
fn brace_not_followed_by_integer_or_colon_is_extra_content() {
    // The last two are XLA test ParseInvalidShapeString.
    for text in ["f32[]{}", "f32[123,456]{foo}", "f32[123,456]foobar{0,1}"] {
        let e = parse_err(text);
        assert_eq!(e.kind().to_string(), "Extra content after shape", "{text}");
        let full = e.xla_message(text).to_string();
        assert!(full.starts_with("Syntax error:"), "{text}: {full}");
        assert!(
            full.ends_with("Extra content after shape"),
            "{text}: {full}"
        );
    }
}

#[test]
fn brace_followed_by_integer_or_colon_starts_a_layout() {
    assert_eq!(printed("f32[2]{0}"), "f32[2]{0}");
    assert_eq!(printed("f32[]{:T(2)}"), "f32[]{:T(2)}");
    // `{:` starts a layout even where its empty m2m list is then too short.
    assert_eq!(
        parse_msg("f32[2]{:T(2)}"),
        "Dimensions size is 1, but minor to major size is 0."
    );
}

// ---------------------------------------------------------------------------
// §a.2 Attribute order
// ---------------------------------------------------------------------------

#[test]
fn all_attributes_in_order_are_accepted() {
    let l = Layout::parse("{1,0:D(D,C)T(8,128)(2,1)L(2)#(u32)*(u16)E(16)S(1)SC(0:4)P(f32[4])M(8)}")
        .unwrap();
    assert_eq!(
        l.to_string(),
        "{1,0:T(8,128)(2,1)L(2)#(u32)*(u16)E(16)S(1)SC(0:4)P(f32[4]{0})M(8)}"
    );
    assert_eq!(
        printed("f32[8,128]{1,0:D(D,D)T(8,128)L(1024)E(32)S(1)SC(0:4)M(8)}"),
        "f32[8,128]{1,0:T(8,128)L(1024)E(32)S(1)SC(0:4)M(8)}"
    );
}

#[test]
fn out_of_order_or_repeated_attributes_expect_rbrace() {
    for text in [
        "f32[8,128]{1,0:S(1)T(8,128)}",
        "f32[8,128]{1,0:T(8,128)T(2,1)}",
        "f32[8,128]{1,0:S(1)L(1024)}",
        "f32[8,128]{1,0:E(4)E(4)}",
        "f32[8,128]{1,0:M(8)S(1)}",
        "f32[8,128]{1,0:SC(0:4)E(4)}",
        "f32[8,128]{1,0:L(2)D(D,D)}",
        "f32[8,128]{1,0:#(u32)#(u32)}",
        "f32[8,128]{1,0:T(8,128)D(D,D)}",
    ] {
        assert_eq!(
            parse_msg(text),
            "expects layout to end with kRbrace",
            "{text}"
        );
    }
}

#[test]
fn out_of_order_attributes_in_a_bare_layout_expect_rbrace() {
    let e = Layout::parse("{1,0:S(1)T(2)}").unwrap_err();
    assert_eq!(e.kind().to_string(), "expects layout to end with kRbrace");
}

// ---------------------------------------------------------------------------
// §a.3.6 D(...)
// ---------------------------------------------------------------------------

#[test]
fn dim_level_types_are_accepted_and_dropped() {
    assert_eq!(printed("f32[2,3]{1,0:D(D,C)}"), "f32[2,3]{1,0}");
    assert_eq!(
        printed("f32[2,3]{1,0:D(D+~,S~)T(2,2)}"),
        "f32[2,3]{1,0:T(2,2)}"
    );
    assert_eq!(printed("f32[2]{0:D(H+)}"), "f32[2]{0}");
    assert_eq!(array("f32[2,3]{1,0:D(C,D)}"), array("f32[2,3]{1,0}"));
}

#[test]
fn invalid_dim_level_type() {
    // XLA test InvalidDimLevelType.
    let text = "f32[10,10]{1,0:D(X,C)}";
    let e = parse_err(text);
    let want = "expected a DimLevelType abbreviation (D, C, or S)";
    assert!(
        e.diagnostics().any(|d| d.kind.to_string() == want),
        "{text}: diagnostics {:?}",
        e.diagnostics()
            .map(|d| d.kind.to_string())
            .collect::<Vec<_>>()
    );
    assert!(e.xla_message(text).to_string().contains(want));
}

// ---------------------------------------------------------------------------
// §a.3.4 m2m count, §a.3.5 physical shape
// ---------------------------------------------------------------------------

#[test]
fn minor_to_major_count_must_equal_rank() {
    assert_eq!(
        parse_msg("f32[2,3]{0}"),
        "Dimensions size is 2, but minor to major size is 1."
    );
    assert_eq!(
        parse_msg("f32[]{0}"),
        "Dimensions size is 0, but minor to major size is 1."
    );
    assert_eq!(
        parse_msg("f32[2]{0,1,2}"),
        "Dimensions size is 1, but minor to major size is 3."
    );
}

#[test]
fn minor_to_major_values_are_not_checked_by_the_parser() {
    assert_eq!(
        array("f32[2,3]{0,0}").layout().unwrap().minor_to_major(),
        [0, 0]
    );
    assert_eq!(
        array("f32[2,3]{7,-2}").layout().unwrap().minor_to_major(),
        [7, -2]
    );
}

#[test]
fn physical_shape_rejected_by_parse_shape() {
    // XLA test RejectDensePhysicalShape: XLA's message prints the layout.
    // 16 tile entries of 18 digits: a layout of over 300 bytes, past the
    // 256 an inline copy of the text once held.
    let tiles = ["999999999999999999"; 16].join(",");
    for (text, layout) in [
        (
            "f32[4]{0:P(f32[4])}".to_string(),
            "{0:P(f32[4]{0})}".to_string(),
        ),
        (
            "f32[4,4]{1,0:T(2,2)P(f32[16]{0})}".to_string(),
            "{1,0:T(2,2)P(f32[16]{0})}".to_string(),
        ),
        // Spaces and comments go; the layout is printed as XLA prints it.
        (
            "f32[4]{ 0 : P( f32[4] /* c */ ) }".to_string(),
            "{0:P(f32[4]{0})}".to_string(),
        ),
        // Longer than any inline copy: printed whole from the input.
        (
            format!("f32[4]{{0:T({tiles})P(f32[4])}}"),
            format!("{{0:T({tiles})P(f32[4]{{0}})}}"),
        ),
    ] {
        let e = parse_err(&text);
        let message = format!("Layout has physical shape, but is not for a sparse array: {layout}");
        assert_eq!(e.primary().message(&text).to_string(), message);
        assert!(
            e.xla_message(&text).to_string().contains(&message),
            "{text}"
        );
        // The error keeps where the layout is, not its text.
        let open = text.find('{').unwrap();
        assert_eq!(
            parse_msg(&text),
            format!(
                "Layout has physical shape, but is not for a sparse array: the layout at bytes {open}..{}",
                text.len()
            )
        );
    }
}

/// `P` nests at most `MAX_PHYSICAL_DEPTH` deep: each level recurses on
/// the stack, and XLA refuses every `P` anyway.
#[test]
fn physical_shapes_nest_at_most_max_physical_depth() {
    use xla_layout_core::MAX_PHYSICAL_DEPTH;
    let nested = |levels: usize| {
        let mut inner = "f32[4]".to_string();
        for _ in 0..levels {
            inner = format!("f32[4]{{0:P({inner})}}");
        }
        inner
    };
    // At the limit: the outermost P is refused as XLA refuses it.
    let text = nested(MAX_PHYSICAL_DEPTH);
    assert!(
        parse_msg(&text).starts_with("Layout has physical shape"),
        "{text}"
    );
    // One more: this crate's limit, said as one.
    let text = nested(MAX_PHYSICAL_DEPTH + 1);
    let e = parse_err(&text);
    assert!(e.kind().is_crate_limit());
    assert_eq!(
        e.kind().to_string(),
        format!(
            "P(...) physical shapes nested more than {MAX_PHYSICAL_DEPTH} deep (an xla-layout limit)"
        )
    );
    assert!(
        e.xla_message(&text)
            .to_string()
            .starts_with("XLA's parser has no such limit")
    );
}

/// Inside `tpu(...)` the layout's place counts from the input's start,
/// like every other offset.
#[test]
fn physical_shape_message_inside_a_larger_input() {
    let text = "   f32[4]{0:P(f32[4])}";
    let e = xla_layout_core::text::parse_shape_at(text.as_bytes(), 3).unwrap_err();
    assert_eq!(
        e.primary().message(text).to_string(),
        "Layout has physical shape, but is not for a sparse array: {0:P(f32[4]{0})}"
    );
}

#[test]
fn physical_shape_accepted_by_parse_layout() {
    let l = Layout::parse("{0:P(f32[4])}").unwrap();
    assert_eq!(l.physical_shape(), Some("f32[4]{0}"));
    assert_eq!(l.to_string(), "{0:P(f32[4]{0})}");
}

// ---------------------------------------------------------------------------
// §a.1 / §a.5 integer wrapping, §a.3.10 S(n) as int8, §a.3.11 E(n)
// ---------------------------------------------------------------------------

#[test]
fn integers_of_2_pow_63_or_more_wrap_and_print_negative() {
    let s = array("f32[2]{18446744073709551615}");
    assert_eq!(s.layout().unwrap().minor_to_major(), [-1]);
    assert_eq!(s.to_string(), "f32[2]{-1}");
    let s = array("f32[2]{9223372036854775808}");
    assert_eq!(s.layout().unwrap().minor_to_major(), [i64::MIN]);
    assert_eq!(s.to_string(), "f32[2]{-9223372036854775808}");
    let s = array("f32[2]{0:E(18446744073709551615)}");
    assert_eq!(s.layout().unwrap().element_size_in_bits(), -1);
    assert_eq!(s.to_string(), "f32[2]{0:E(-1)}");
    let s = array("f32[4,4]{1,0:SC(0:18446744073709551614)}");
    assert_eq!(s.to_string(), "f32[4,4]{1,0:SC(0:-2)}");
}

#[test]
fn memory_space_wraps_to_int8() {
    let s = array("f32[2]{0:S(256)}");
    assert_eq!(s.memory_space(), 0);
    assert_eq!(s.to_string(), "f32[2]{0}");
    assert_eq!(printed("f32[2]{0:S(255)}"), "f32[2]{0:S(-1)}");
    assert_eq!(printed("f32[2]{0:S(128)}"), "f32[2]{0:S(-128)}");
    assert_eq!(printed("f32[2]{0:S(257)}"), "f32[2]{0:S(1)}");
    assert_eq!(printed("f32[2]{0:S(-129)}"), "f32[2]{0:S(127)}");
    assert_eq!(printed("f32[2]{0:S(127)}"), "f32[2]{0:S(127)}");
    assert_eq!(printed("f32[2]{0:S(5)}"), "f32[2]{0:S(5)}");
}

#[test]
fn element_size_equal_to_natural_width_is_not_reset() {
    let s = array("f32[2]{0:E(32)}");
    assert_eq!(s.layout().unwrap().element_size_in_bits(), 32);
    assert_eq!(s.to_string(), "f32[2]{0:E(32)}");
    assert_eq!(printed("s8[4]{0:E(8)}"), "s8[4]{0:E(8)}");
    assert_eq!(printed("s4[8]{0:E(4)}"), "s4[8]{0:E(4)}");
}

// ---------------------------------------------------------------------------
// §a.3.9 #(t) and *(t)
// ---------------------------------------------------------------------------

#[test]
fn signed_index_type_parses_and_prints() {
    // The parser records "not unsigned" but does not fail.
    let s = array("f32[2]{0:T(8,128)#(s32)}");
    assert_eq!(
        s.layout().unwrap().index_primitive_type(),
        Some(ElementType::S32)
    );
    assert_eq!(s.to_string(), "f32[2]{0:T(8,128)#(s32)}");
    // ...and only validation rejects it.
    assert!(s.validate().is_err());
}

#[test]
fn unsigned_index_and_pointer_types_print_by_name() {
    assert_eq!(printed("f32[2]{0:#(u8)*(u64)}"), "f32[2]{0:#(u8)*(u64)}");
}

#[test]
fn non_integral_index_and_pointer_types_print_as_invalid() {
    assert_eq!(printed("f32[2]{0:#(f32)}"), "f32[2]{0:#(invalid)}");
    assert_eq!(printed("f32[2]{0:*(bf16)}"), "f32[2]{0:*(invalid)}");
    // PRED is not an integral type.
    assert_eq!(printed("f32[2]{0:#(pred)}"), "f32[2]{0:#(invalid)}");
}

#[test]
fn invalid_index_type_text_cannot_be_parsed_back() {
    assert!(Shape::parse("f32[2]{0:#(invalid)}").is_err());
    assert!(Shape::parse("f32[2]{0:*(invalid)}").is_err());
}

#[test]
fn index_type_must_be_an_element_type_token() {
    // `foo` is left over before `)`, so the tokens no longer line up.
    assert!(Shape::parse("f32[2]{0:#(foo)}").is_err());
    assert!(Shape::parse("f32[2]{0:*(foo)}").is_err());
}

#[test]
fn sub_error_inside_an_attribute_does_not_fail_when_tokens_line_up() {
    // §a.3.9: `#()` records "expected primitive type" but `)` and `}` still
    // follow, so the parse succeeds and no index type is stored.
    let s = array("f32[2]{0:#()}");
    assert_eq!(s.layout().unwrap().index_primitive_type(), None);
    assert_eq!(s.to_string(), "f32[2]{0}");
}

// ---------------------------------------------------------------------------
// §a.3.12 Buffer shapes
// ---------------------------------------------------------------------------

#[test]
fn empty_buffer_expects_primitive_type() {
    assert_eq!(parse_msg("b()"), "expected primitive type, saw kRparen");
}

#[test]
fn buffer_of_two_shapes_expects_rparen() {
    assert_eq!(
        parse_msg("b(s32[], f32[])"),
        "expects ')' at the end of buffer shape."
    );
}

#[test]
fn buffer_of_non_array_fails_silently() {
    for text in [
        "b((f32[]))",
        "b(token[])",
        "b(opaque[])",
        "b(b(f32[]))",
        "b(())",
    ] {
        let e = parse_err(text);
        assert!(e.kind().is_silent_in_xla(), "{text}: {e}");
        assert_eq!(e.xla_message(text).to_string(), "Syntax error:\n", "{text}");
    }
}

#[test]
fn buffer_of_array_parses_and_prints() {
    assert_eq!(printed("b(f32[2])"), "b(f32[2]{0})");
    assert_eq!(printed("b(s32[])"), "b(s32[])");
    assert_eq!(
        printed("b( f32[2,3]{0,1:T(2,2)} )"),
        "b(f32[2,3]{0,1:T(2,2)})"
    );
    assert!(matches!(shape("b(u8[4])"), Shape::Buffer(_)));
}

// ---------------------------------------------------------------------------
// §a.4 / §a.5 Printing
// ---------------------------------------------------------------------------

#[test]
fn scalars_drop_an_empty_layout() {
    assert_eq!(printed("f32[]"), "f32[]");
    assert_eq!(printed("f32[]{:}"), "f32[]");
    assert_eq!(printed("f32[]{:L(1)E(0)S(0)M(0)}"), "f32[]");
    assert_eq!(printed("f32[]{:T(256)}"), "f32[]{:T(256)}");
    assert_eq!(printed("u32[]{:S(2)}"), "u32[]{:S(2)}");
}

#[test]
fn arrays_without_layout_gain_the_default_layout() {
    // XLA test ShapeMismatchInOperand.
    assert_eq!(printed("f32[2,5]"), "f32[2,5]{1,0}");
    assert_eq!(printed("f32[<=23,44,<=55]"), "f32[<=23,44,<=55]{2,1,0}");
    assert_eq!(printed("f32[?,784]"), "f32[?,784]{1,0}");
}

#[test]
fn tile_entries_print_without_spaces() {
    assert_eq!(
        printed("bf16[2,3,1004]{2,1,0:T(2, * , 128)}"),
        "bf16[2,3,1004]{2,1,0:T(2,*,128)}"
    );
}

#[test]
fn negative_non_combine_tile_entry_prints_as_invalid_value() {
    let l = Layout::new(&[0]).with_tiles(&[&[-1]]);
    assert_eq!(l.to_string(), "{0:T(Invalid value -1)}");
    let l = Layout::new(&[1, 0]).with_tiles(&[&[8, xla_layout_core::COMBINE, -5]]);
    assert_eq!(l.to_string(), "{1,0:T(8,*,Invalid value -5)}");
}

#[test]
fn default_attributes_are_omitted() {
    assert_eq!(printed("f32[2,3]{1,0:L(1)E(0)S(0)M(0)}"), "f32[2,3]{1,0}");
    assert_eq!(printed("f32[2]{0:M(-4)}"), "f32[2]{0}");
    assert_eq!(printed("f32[2]{0:T(2)L(1)}"), "f32[2]{0:T(2)}");
}

#[test]
fn empty_attribute_list_is_dropped() {
    assert_eq!(printed("f32[2,3]{1,0:}"), "f32[2,3]{1,0}");
}

#[test]
fn attributes_print_in_fixed_order() {
    let mut p = PhysicalShapeText::new();
    write!(p, "f32[4]{{0}}").unwrap();
    let l = Layout::new(&[1, 0])
        .with_dynamic_shape_metadata_prefix_bytes(8)
        .with_physical_shape(Some(p))
        .with_split_configs(&[(0, &[4]), (1, &[2, 6])])
        .with_memory_space(1)
        .with_element_size_in_bits(16)
        .with_pointer_primitive_type(ElementType::U16)
        .with_index_primitive_type(ElementType::U32)
        .with_tail_padding_alignment(2)
        .with_tiles(&[&[8, 128], &[2, 1]]);
    assert_eq!(
        l.to_string(),
        "{1,0:T(8,128)(2,1)L(2)#(u32)*(u16)E(16)S(1)SC(0:4)(1:2,6)P(f32[4]{0})M(8)}"
    );
}

#[test]
fn split_configs_print() {
    assert_eq!(
        printed("f32[8,16]{1,0:SC(0:2,4)(1:8)}"),
        "f32[8,16]{1,0:SC(0:2,4)(1:8)}"
    );
}

#[test]
fn tuples_print_with_index_comments_every_fifth_element() {
    assert_eq!(
        printed("(f32[], f32[], f32[], f32[], f32[], f32[])"),
        "(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[])"
    );
    let eleven = format!("({})", ["s8[]"; 11].join(","));
    assert_eq!(
        printed(&eleven),
        "(s8[], s8[], s8[], s8[], s8[], /*index=5*/s8[], s8[], s8[], s8[], s8[], /*index=10*/s8[])"
    );
}

#[test]
fn nested_tuples_count_their_own_indices() {
    assert_eq!(
        printed("(f32[],(u8[],u8[],u8[],u8[],u8[],u8[]))"),
        "(f32[], (u8[], u8[], u8[], u8[], u8[], /*index=5*/u8[]))"
    );
}

#[test]
fn printed_tuples_parse_back_to_the_same_shape() {
    let text = "(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[])";
    assert_eq!(printed(text), text);
    assert_eq!(shape(text), shape("(f32[],f32[],f32[],f32[],f32[],f32[])"));
}

#[test]
fn tuples_gain_comma_space_separators() {
    assert_eq!(printed("(f32[2],s32[])"), "(f32[2]{0}, s32[])");
    assert_eq!(
        printed("(f32[2], token[], b(s32[]), opaque[])"),
        "(f32[2]{0}, token[], b(s32[]), opaque[])"
    );
}

#[test]
fn empty_tuple_prints_as_parens() {
    assert_eq!(printed("()"), "()");
    assert_eq!(printed("( )"), "()");
    assert_eq!(printed("(())"), "(())");
}

#[test]
fn token_and_opaque_print() {
    assert_eq!(shape("token[]"), Shape::Token);
    assert_eq!(printed("token[]"), "token[]");
    assert_eq!(printed("opaque[]"), "opaque[]");
}

#[test]
fn printing_without_layouts() {
    assert_eq!(
        array("f32[<=23,44,<=55]{2,1,0:T(8)}")
            .without_layout()
            .to_string(),
        "f32[<=23,44,<=55]"
    );
    assert_eq!(
        array("f32[?,784]").without_layout().to_string(),
        "f32[?,784]"
    );
    assert_eq!(
        shape("(f32[2]{0:T(2)}, b(s32[3]), token[])")
            .without_layout()
            .to_string(),
        "(f32[2], b(s32[3]), token[])"
    );
}

#[test]
fn canonical_text_round_trips() {
    for text in [
        "f32[2,3]{0,1}",
        "bf16[8,128]{1,0:T(8,128)(2,1)}",
        "s4[64,128]{1,0:T(64,128)(8,1)E(4)}",
        "f32[200001,128]{1,0:T(8)L(1024)}",
        "u32[]{:T(128)}",
        "f32[<=4,?]{1,0:S(5)}",
        "f32[8,16]{1,0:SC(0:2,4)}",
        "(f32[2]{0}, (), b(s8[3]{0}))",
    ] {
        assert_eq!(printed(text), text);
        assert_eq!(printed(&printed(text)), text);
    }
}

// ---------------------------------------------------------------------------
// §a.2 Bare layouts
// ---------------------------------------------------------------------------

#[test]
fn bare_layouts_parse() {
    assert_eq!(Layout::parse("{}").unwrap().to_string(), "{}");
    assert_eq!(Layout::parse("{:}").unwrap().to_string(), "{}");
    assert_eq!(Layout::parse("{:T(2)}").unwrap().to_string(), "{:T(2)}");
    assert_eq!(
        Layout::parse(" { 1 , 0 : T(8,128) L(1) } ")
            .unwrap()
            .to_string(),
        "{1,0:T(8,128)}"
    );
}

#[test]
fn bare_layout_with_trailing_text_is_extra_content() {
    for text in ["{1,0} x", "{1,0}}", "{}{}", "{0}[2]"] {
        let e = Layout::parse(text).unwrap_err();
        assert_eq!(e.kind().to_string(), "Extra content after layout", "{text}");
    }
}

// ---------------------------------------------------------------------------
// §a.2 Nesting limit
// ---------------------------------------------------------------------------

/// A shape nested `levels` deep: `levels − 1` tuples around `f32[]`.
fn nested(levels: usize) -> String {
    format!("{}f32[]{}", "(".repeat(levels - 1), ")".repeat(levels - 1))
}

#[test]
fn nesting_8192_levels_is_accepted() {
    let text = nested(8192);
    assert!(Shape::parse(&text).is_ok());
    // Empty tuples count as a level too: 8192 nested tuples.
    let empty = format!("{}{}", "(".repeat(8192), ")".repeat(8192));
    assert!(Shape::parse(&empty).is_ok());
}

#[test]
fn nesting_8193_levels_is_rejected() {
    let e = parse_err(&nested(8193));
    assert_eq!(e.kind().to_string(), "maximum recursion depth exceeded");
    let empty = format!("{}{}", "(".repeat(8193), ")".repeat(8193));
    assert_eq!(
        parse_err(&empty).kind().to_string(),
        "maximum recursion depth exceeded"
    );
}

#[test]
fn deeply_nested_shape_prints_canonically() {
    // Single-element tuples print without separators, so the canonical
    // form of the nested text is the text itself.
    let text = nested(8192);
    assert_eq!(shape(&text).to_string(), text);
}

/// A shape that parses can be dropped on a small stack, however deep its
/// tuples: the compiler's drop glue would recurse once a level (200,000
/// levels overflowed an 8 MiB stack; XLA's 8,192, a 1 MiB one in a debug
/// build).
#[test]
fn deeply_nested_shapes_drop_on_a_small_stack() {
    use xla_layout_core::text::{ParseOptions, parse_shape_with};
    let deep = 200_000;
    let options = ParseOptions::default().with_max_depth(deep + 1);
    let texts = [
        format!("{}f32[]{}", "(".repeat(deep), ")".repeat(deep)),
        format!("{}{}", "(".repeat(deep), ")".repeat(deep)),
        // Two elements a level, the second a leaf.
        format!("{}f32[]{}", "(".repeat(deep), ", s8[2])".repeat(deep)),
    ];
    for text in texts {
        let shape = parse_shape_with(text.as_bytes(), options).unwrap();
        let dropped = std::thread::Builder::new()
            .stack_size(64 << 10)
            .spawn(move || drop(shape))
            .unwrap()
            .join();
        // An overflow would abort the whole test process; a panic in the
        // drop fails here.
        assert!(dropped.is_ok());
    }
    // Taken apart, the elements are whole.
    let shape = Shape::parse("((f32[2]), (s8[3], (token[])))").unwrap();
    let elements = shape.into_tuple_elements().unwrap();
    assert_eq!(elements[1].to_string(), "(s8[3]{0}, (token[]))");
}

// ---------------------------------------------------------------------------
// ParseError::xla_message
// ---------------------------------------------------------------------------

#[test]
fn xla_message_for_an_error_on_the_second_line() {
    // "f32[2,3]" is line 1; on line 2 the T of "{1,0:S(1)T(8,128)}" is the
    // 10th character, so the location is 2:10 and the caret sits under it
    // (9 spaces, then ^).
    let text = "f32[2,3]\n{1,0:S(1)T(8,128)}";
    let e = parse_err(text);
    assert_eq!(
        e.xla_message(text).to_string(),
        "Syntax error:\nwas parsing 2:10: error: expects layout to end with kRbrace\n\
         {1,0:S(1)T(8,128)}\n         ^"
    );
}

#[test]
fn xla_message_for_an_error_on_the_third_line() {
    // Line 3 is "  E(4)E(4)"; the second E is its 7th character.
    let text = "f32[2,3]{\n  1,0:\n  E(4)E(4)\n}";
    let e = parse_err(text);
    assert_eq!(
        e.xla_message(text).to_string(),
        "Syntax error:\nwas parsing 3:7: error: expects layout to end with kRbrace\n  E(4)E(4)\n      ^"
    );
}

#[test]
fn xla_message_for_an_error_on_the_first_line() {
    // The spec fixes the prefix, the message, the source line and a caret;
    // it does not say whether the column on line 1 counts from 0 or 1, so
    // both are allowed here, and the caret must sit under that column.
    let text = "f32[2,3]{1,0:S(1)T(8,128)}";
    let msg = parse_err(text).xla_message(text).to_string();
    let lines: Vec<&str> = msg.split('\n').collect();
    assert_eq!(lines.len(), 4, "{msg:?}");
    assert_eq!(lines[0], "Syntax error:");
    let rest = lines[1]
        .strip_prefix("was parsing 1:")
        .unwrap_or_else(|| panic!("{msg:?}"));
    let (col, message) = rest.split_once(": error: ").unwrap();
    assert_eq!(message, "expects layout to end with kRbrace");
    let col: usize = col.parse().unwrap();
    // The T is byte 17 (0-based), i.e. column 18 (1-based).
    assert!(col == 17 || col == 18, "column {col}");
    assert_eq!(lines[2], text);
    assert_eq!(lines[3], format!("{}^", " ".repeat(col - 1)));
}

#[test]
fn xla_message_for_a_silent_failure_is_the_bare_prefix() {
    let text = "f32[2,-3]{1,0}";
    assert_eq!(
        parse_err(text).xla_message(text).to_string(),
        "Syntax error:\n"
    );
}

#[test]
fn xla_message_for_extra_content() {
    let text = "f32[2]{0} f32[3]";
    let msg = parse_err(text).xla_message(text).to_string();
    assert!(msg.starts_with("Syntax error:"), "{msg:?}");
    assert!(msg.ends_with("Extra content after shape"), "{msg:?}");
}

// ---------------------------------------------------------------------------
// Strict parsing: what XLA's parser reads past is refused
// ---------------------------------------------------------------------------

/// The strict parse's error kind and the text it points at.
fn strict_err(text: &str) -> (String, String) {
    use xla_layout_core::text::{ParseOptions, parse_array_with_spans};
    let strict = ParseOptions::default().with_strict(true);
    match parse_array_with_spans(text.as_bytes(), strict) {
        Ok((s, _)) => panic!("{text} should not parse strictly, got {s}"),
        Err(e) => (e.kind().to_string(), text[e.span()].to_string()),
    }
}

#[test]
fn strict_refuses_attributes_xla_drops() {
    // XLA's parser records the missing `(` and reads on; the attribute is lost.
    for (text, lost, attribute) in [
        (
            "f32[8,128]{1,0:T(8,128)E}",
            "f32[8,128]{1,0:T(8,128)}",
            "element size in bits",
        ),
        ("f32[8,128]{1,0:S}", "f32[8,128]{1,0}", "memory space"),
        (
            "f32[8,128]{1,0:L}",
            "f32[8,128]{1,0}",
            "multiple padded to in elements",
        ),
        (
            "f32[8,128]{1,0:M}",
            "f32[8,128]{1,0}",
            "dynamic shape metadata prefix bytes",
        ),
    ] {
        assert_eq!(printed(text), lost);
        let (kind, at) = strict_err(text);
        assert_eq!(
            kind,
            format!("expects {attribute} to start with kLparen"),
            "{text}"
        );
        assert_eq!(at, "}", "{text}");
    }
}

#[test]
fn strict_refuses_a_memory_space_xla_wraps() {
    // XLA keeps S(n) in 8 bits: 300 = 256 + 44, -129 = -256 + 127.
    for (text, wrapped, at) in [
        ("f32[8]{0:S(300)}", 44, "S(300)"),
        ("f32[8]{0:S(-129)}", 127, "S(-129)"),
        ("f32[8]{0:S(256)}", 0, "S(256)"),
    ] {
        assert_eq!(array(text).layout().unwrap().memory_space(), wrapped);
        let (kind, span) = strict_err(text);
        assert_eq!(
            kind,
            format!(
                "memory space {at} does not fit the 8 bits XLA keeps it in (XLA would read it as S({wrapped}))"
            )
        );
        assert_eq!(span, at);
    }
    // The ends of the range fit.
    for text in ["f32[8]{0:S(127)}", "f32[8]{0:S(-128)}", "f32[2]{0:T(2,*)}"] {
        use xla_layout_core::text::{ParseOptions, parse_array_with_spans};
        let strict = ParseOptions::default().with_strict(true);
        assert_eq!(
            parse_array_with_spans(text.as_bytes(), strict).map(|(a, _)| a),
            Ok(array(text)),
            "{text}"
        );
    }
}

#[test]
fn messages_name_characters_that_are_not_ascii_whole() {
    // The lexer works on bytes; a message shows the whole character, not
    // half of one (which read as "the end of the shape" or ``).
    for (text, says) in [
        (
            "f32[8]{0:T(8)} é",
            "unexpected `é` (shape text is ASCII) after the shape",
        ),
        (
            "f32[8]{0:Té(8)}",
            "expected `(`, found `é` (shape text is ASCII)",
        ),
        // The first message at a token is the cause; a later one there
        // (the layout cannot go on) is its consequence.
        ("f32[8]{0:S(x)}", "expected an integer, found `x`"),
        // No `:` yet: the attributes' order is not the problem.
        (
            "f32[8,128]{1,0 T(8,128)}",
            "expected `:` between minor_to_major and the attributes (or `}`), found `T`",
        ),
        ("f32[8,128]{1,0;T(8,128)}", "found `;`"),
        (
            "f32[8,128]{1,0:S(1)T(8,128)}",
            "layout attribute `T` is out of order or repeated",
        ),
        ("é32[8]", "found `é` (shape text is ASCII)"),
        (
            "f32[8]{0:T(8)} 日本",
            "unexpected `日` (shape text is ASCII) after the shape",
        ),
        ("f32[8]{0:T(8)} x", "unexpected `x` after the shape"),
    ] {
        let e = parse_err(text);
        let explained = e.explain(text).to_string();
        assert!(explained.contains(says), "{text}: {explained}");
    }
}

#[test]
fn strict_sees_past_any_number_of_star_entries() {
    use xla_layout_core::text::{ParseOptions, parse_shape_with};
    let strict = ParseOptions::default().with_strict(true);
    // Each `*` leaves XLA's "expects integer" behind; the error that
    // matters comes after them, past the few diagnostics a ParseError keeps.
    for (text, says) in [
        (
            "(f32[2,2,2,8]{3,2,1,0:T(*,*,*,8)}, f32[2]{0:S(300)}, f32[2,8]{1,0:T(*,8)})",
            "memory space S(300) does not fit",
        ),
        (
            "(f32[2,2,2,8]{3,2,1,0:T(*,*,*,8)}, f32[2]{0:E}, f32[2,8]{1,0:T(*,8)})",
            "expects element size in bits to start with kLparen",
        ),
    ] {
        assert!(Shape::parse(text).is_ok(), "{text}");
        let e = parse_shape_with(text.as_bytes(), strict).unwrap_err();
        assert!(e.kind().to_string().contains(says), "{text}: {}", e.kind());
    }
    // A `*` where no tile entry can be is no artefact: not in `E`, nor
    // in a split config's second group (`(…)(…)` after `SC`, not `T`).
    for text in ["f32[2]{0:E(*)}", "f32[4,8]{1,0:SC(0:1)(1:*)}"] {
        let explained = parse_err(text).explain(text).to_string();
        assert!(
            explained.contains("expected an integer, found `*`"),
            "{text}: {explained}"
        );
    }
}

#[test]
fn messages_name_a_byte_that_is_not_utf8() {
    use xla_layout_core::text::parse_shape;
    for text in [
        &b"f32[8]{0:T(8)} \xFF"[..],
        b"f32[8]{0:T(\xFF)}",
        b"\xFF32[8]",
    ] {
        let e = parse_shape(text).unwrap_err();
        let explained = e.explain(text).to_string();
        assert!(
            explained.contains("the byte 0xFF, which is not UTF-8")
                // After the shape: the sentence reads without "the".
                || explained.starts_with("unexpected byte 0xFF after the shape, which is not UTF-8"),
            "{explained}"
        );
        assert!(!explained.contains("the end of the shape"), "{explained}");
    }
}

/// Numbers XLA cannot keep, and characters a message cannot show as
/// themselves, are said as such in the explanation for people (XLA's own
/// words follow unchanged where it has any).
#[test]
fn explanations_of_numbers_past_64_bits_and_control_characters() {
    let explain = |text: &str| parse_err(text).explain(text).to_string();
    assert_eq!(
        explain("f32[9223372036854775808]"),
        "dimension 0 is `9223372036854775808`, past the largest size XLA keeps (2^63 − 1): \
         XLA reads it as -9223372036854775808 and refuses it with an empty message (at byte 4)"
    );
    assert_eq!(
        explain("f32[-3]"),
        "dimension 0 has size -3; sizes must be >= 0 (XLA rejects this with an empty message) (at byte 4)"
    );
    assert_eq!(
        explain("f32[2]{0:T(99999999999999999999)}"),
        "`99999999999999999999` is past the largest integer XLA reads (64 bits) (XLA: expects integer) (at byte 11)"
    );
    assert_eq!(
        explain("f32[2]\u{1}"),
        "unexpected `\\u{1}` after the shape (XLA: Extra content after shape) (at byte 6)"
    );
}

/// XLA validates a tuple's elements while parsing it, by its own rules:
/// a trailing `*` (a rule of this crate, not XLA's) parses inside a tuple
/// as outside one, and validation refuses it; XLA's own rules still fail
/// the parse.
#[test]
fn tuples_are_validated_while_parsing_by_xla_rules_only() {
    use xla_layout_core::{ValidationErrorKind, validate};
    let text = "(f32[8]{0:T(*)})";
    let tuple = Shape::parse(text).unwrap();
    assert_eq!(tuple.to_string(), text);
    assert_eq!(
        validate(&tuple).unwrap_err().kind(),
        ValidationErrorKind::CombineInMostMinorPosition { tile: 0 }
    );
    let e = Shape::parse("(f32[8]{0:T(*)}, f32[2]{1})").unwrap_err();
    assert!(e.to_string().contains("invalid tuple element"), "{e}");
}

/// Shapes parsed one after another into one place reuse its layout's
/// storage: nothing of one layout (every attribute the parser keeps: `P`
/// never parses) leaks into the next. A new attribute goes in the first
/// shape here.
#[test]
fn shapes_parsed_into_one_place_do_not_inherit_attributes() {
    use xla_layout_core::text::parse_shape_into;
    let mut slot = Shape::Token;
    let mut texts = Vec::new();
    for text in [
        "f32[4,8]{1,0:T(2,4)L(2)#(u32)*(u32)E(32)S(1)SC(0:1)M(8)}",
        "f32[2]{0}",
        "f32[3]",
        "f32[4,8]{0,1:SC(1:2,3)}",
        "f32[4,8]",
    ] {
        parse_shape_into(text.as_bytes(), 0, &mut slot).unwrap();
        texts.push(slot.to_string());
    }
    assert_eq!(
        texts,
        [
            "f32[4,8]{1,0:T(2,4)L(2)#(u32)*(u32)E(32)S(1)SC(0:1)M(8)}",
            "f32[2]{0}",
            "f32[3]{0}",
            "f32[4,8]{0,1:SC(1:2,3)}",
            "f32[4,8]{1,0}"
        ]
    );
}
