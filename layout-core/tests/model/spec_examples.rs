//! The worked examples of docs/xla-layouts.md §d.3 (Examples 1–10), the stated values of
//! §e (byte sizes, strides) and the default layouts of §h.
//!
//! Every expected value below is either copied from docs/xla-layouts.md (the
//! offset tables, the ✔ values, the stated sizes) or computed by hand from
//! its formulas; the derivation is given next to each value that is
//! not literally there.

use xla_layout_core::{ArrayShape, ElementType, Layout, Shape, TiledShape};

/// Parses, validates and tiles `text`.
fn tiled(text: &str) -> TiledShape {
    ArrayShape::parse_validated(text)
        .unwrap_or_else(|e| panic!("{text} should be valid: {e}"))
        .tiled()
        .unwrap_or_else(|e| panic!("{text} should tile: {e}"))
}

/// Parses and validates `text`.
fn array(text: &str) -> ArrayShape {
    ArrayShape::parse_validated(text).unwrap_or_else(|e| panic!("{text} should be valid: {e}"))
}

/// Checks that every non-padding slot maps back to the index it came from.
fn assert_round_trip(t: &TiledShape, index: &[u64]) {
    let offset = t.offset(index).unwrap();
    let back = t
        .logical_index(offset)
        .unwrap()
        .unwrap_or_else(|| panic!("slot {offset} of {index:?} reported as padding"));
    assert_eq!(back.as_slice(), index, "inverse of slot {offset}");
}

// ---------------------------------------------------------------------------
// Example 1: f32[3,5]{1,0:T(2,2)} (tiled_layout.md, Figure 1)
// ---------------------------------------------------------------------------

const EX1: &str = "f32[3,5]{1,0:T(2,2)}";

/// The table of docs/xla-layouts.md §d.3 Example 1, row r, column c.
const EX1_TABLE: [[u64; 5]; 3] = [[0, 1, 4, 5, 8], [2, 3, 6, 7, 10], [12, 13, 16, 17, 20]];

#[test]
fn example1_tiled_dims_and_slot_count() {
    let t = tiled(EX1);
    assert_eq!(t.dims(), [2, 3, 2, 2]);
    assert_eq!(t.tiled_slots(), 24);
    // No L: the allocation is N itself.
    assert_eq!(t.physical_slots(), 24);
}

#[test]
fn example1_full_offset_table() {
    let t = tiled(EX1);
    for (r, row) in EX1_TABLE.iter().enumerate() {
        for (c, &want) in row.iter().enumerate() {
            assert_eq!(t.offset(&[r as u64, c as u64]), Ok(want), "({r},{c})");
        }
    }
}

#[test]
fn example1_offsets_match_the_formula() {
    let t = tiled(EX1);
    for r in 0..3u64 {
        for c in 0..5u64 {
            let formula = ((r / 2) * 3 + (c / 2)) * 4 + (r % 2) * 2 + (c % 2);
            assert_eq!(t.offset(&[r, c]), Ok(formula), "({r},{c})");
        }
    }
}

#[test]
fn example1_docs_value_2_3_is_17() {
    assert_eq!(tiled(EX1).offset(&[2, 3]), Ok(17));
}

#[test]
fn example1_padding_slots() {
    let t = tiled(EX1);
    let padding: Vec<u64> = (0..24)
        .filter(|&o| t.logical_index(o).unwrap().is_none())
        .collect();
    assert_eq!(padding, [9, 11, 14, 15, 18, 19, 21, 22, 23]);
}

#[test]
fn example1_every_element_round_trips() {
    let t = tiled(EX1);
    for r in 0..3 {
        for c in 0..5 {
            assert_round_trip(&t, &[r, c]);
        }
    }
}

#[test]
fn example1_byte_sizes() {
    let s = array(EX1);
    // ByteSizeOf: 15 elements × 4 B.
    assert_eq!(s.xla_byte_size_of(), Ok(60));
    // ArraySize: 24 slots × 4 B.
    assert_eq!(s.xla_array_size(), Ok(96));
    // ArrayDataSize: the last element is at slot 20, so 21 slots × 4 B.
    assert_eq!(s.xla_array_data_size(), Ok(84));
    // Exact size: N = 24 slots × 4 B.
    assert_eq!(s.tiled().unwrap().exact_bytes(), 96);
}

#[test]
fn example1_xla_linear_index_agrees_for_one_level_on_rank_2() {
    // §d.2: LinearIndex uses only the first tile, which is exact for one
    // tiling level on rank ≥ 2; so it reproduces the table.
    let s = array(EX1);
    for (r, row) in EX1_TABLE.iter().enumerate() {
        for (c, &want) in row.iter().enumerate() {
            assert_eq!(s.xla_linear_index(&[r as u64, c as u64]), Ok(want));
        }
    }
}

// ---------------------------------------------------------------------------
// Example 2: f32[3,5]{0,1:T(2,2)}
// ---------------------------------------------------------------------------

const EX2: &str = "f32[3,5]{0,1:T(2,2)}";

#[test]
fn example2_offsets_by_row() {
    let t = tiled(EX2);
    let rows: [[u64; 5]; 3] = [[0, 2, 8, 10, 16], [1, 3, 9, 11, 17], [4, 6, 12, 14, 20]];
    for (r, row) in rows.iter().enumerate() {
        for (c, &want) in row.iter().enumerate() {
            assert_eq!(t.offset(&[r as u64, c as u64]), Ok(want), "({r},{c})");
        }
    }
}

#[test]
fn example2_offsets_match_the_formula() {
    let t = tiled(EX2);
    for r in 0..3u64 {
        for c in 0..5u64 {
            let formula = ((c / 2) * 2 + (r / 2)) * 4 + (c % 2) * 2 + (r % 2);
            assert_eq!(t.offset(&[r, c]), Ok(formula), "({r},{c})");
        }
    }
}

#[test]
fn example2_tiled_dims_and_slot_count() {
    let t = tiled(EX2);
    // Physical S = [5,3]; T(2,2) gives [⌈5/2⌉, ⌈3/2⌉, 2, 2] = [3,2,2,2].
    assert_eq!(t.dims(), [3, 2, 2, 2]);
    assert_eq!(t.tiled_slots(), 24);
    assert_eq!(t.physical_slots(), 24);
    assert_eq!(t.exact_bytes(), 96); // 24 × 4 (derived)
}

// ---------------------------------------------------------------------------
// Example 3: bf16[4,8]{1,0:T(2,4)(2,1)} (tiled_layout.md, Figure 2)
// ---------------------------------------------------------------------------

const EX3: &str = "bf16[4,8]{1,0:T(2,4)(2,1)}";

const EX3_TABLE: [[u64; 8]; 4] = [
    [0, 2, 4, 6, 8, 10, 12, 14],
    [1, 3, 5, 7, 9, 11, 13, 15],
    [16, 18, 20, 22, 24, 26, 28, 30],
    [17, 19, 21, 23, 25, 27, 29, 31],
];

#[test]
fn example3_full_offset_table() {
    let t = tiled(EX3);
    for (r, row) in EX3_TABLE.iter().enumerate() {
        for (c, &want) in row.iter().enumerate() {
            assert_eq!(t.offset(&[r as u64, c as u64]), Ok(want), "({r},{c})");
        }
    }
}

#[test]
fn example3_offsets_match_the_formula() {
    let t = tiled(EX3);
    for r in 0..4u64 {
        for c in 0..8u64 {
            let formula = 16 * (r / 2) + 8 * (c / 4) + 2 * (c % 4) + (r % 2);
            assert_eq!(t.offset(&[r, c]), Ok(formula), "({r},{c})");
        }
    }
}

#[test]
fn example3_shape_after_each_level() {
    let s = array(EX3);
    assert_eq!(TiledShape::with_levels(&s, 1).unwrap().dims(), [2, 2, 2, 4]);
    assert_eq!(
        TiledShape::with_levels(&s, 2).unwrap().dims(),
        [2, 2, 1, 4, 2, 1]
    );
    assert_eq!(tiled(EX3).dims(), [2, 2, 1, 4, 2, 1]);
}

#[test]
fn example3_vertical_pairs_share_a_32_bit_word() {
    // bf16 is 2 bytes; (2k, c) and (2k+1, c) must sit in slots 2j, 2j+1.
    let t = tiled(EX3);
    for k in 0..2u64 {
        for c in 0..8u64 {
            let top = t.offset(&[2 * k, c]).unwrap();
            let bottom = t.offset(&[2 * k + 1, c]).unwrap();
            assert_eq!(top % 2, 0);
            assert_eq!(bottom, top + 1);
        }
    }
}

#[test]
fn example3_slot_count_and_array_size() {
    let t = tiled(EX3);
    assert_eq!(t.tiled_slots(), 32);
    assert_eq!(t.physical_slots(), 32);
    assert_eq!(t.exact_bytes(), 64);
    assert_eq!(array(EX3).xla_array_size(), Ok(64));
}

// ---------------------------------------------------------------------------
// Example 4: bf16[8,8]{1,0:T(2,4)(2,1,1,1)} ("alternative 16-bit format")
// ---------------------------------------------------------------------------

const EX4: &str = "bf16[8,8]{1,0:T(2,4)(2,1,1,1)}";

const EX4_TABLE: [[u64; 8]; 8] = [
    [0, 2, 4, 6, 16, 18, 20, 22],
    [8, 10, 12, 14, 24, 26, 28, 30],
    [1, 3, 5, 7, 17, 19, 21, 23],
    [9, 11, 13, 15, 25, 27, 29, 31],
    [32, 34, 36, 38, 48, 50, 52, 54],
    [40, 42, 44, 46, 56, 58, 60, 62],
    [33, 35, 37, 39, 49, 51, 53, 55],
    [41, 43, 45, 47, 57, 59, 61, 63],
];

#[test]
fn example4_full_offset_table() {
    let t = tiled(EX4);
    for (r, row) in EX4_TABLE.iter().enumerate() {
        for (c, &want) in row.iter().enumerate() {
            assert_eq!(t.offset(&[r as u64, c as u64]), Ok(want), "({r},{c})");
        }
    }
}

#[test]
fn example4_offsets_match_the_formula() {
    let t = tiled(EX4);
    for r in 0..8u64 {
        for c in 0..8u64 {
            let formula = 32 * (r / 4) + 16 * (c / 4) + 8 * (r % 2) + 2 * (c % 4) + ((r / 2) % 2);
            assert_eq!(t.offset(&[r, c]), Ok(formula), "({r},{c})");
        }
    }
}

#[test]
fn example4_docs_value_6_5_is_51() {
    assert_eq!(tiled(EX4).offset(&[6, 5]), Ok(51));
}

#[test]
fn example4_shape_after_each_level() {
    let s = array(EX4);
    assert_eq!(TiledShape::with_levels(&s, 1).unwrap().dims(), [4, 2, 2, 4]);
    assert_eq!(tiled(EX4).dims(), [2, 2, 2, 4, 2, 1, 1, 1]);
}

#[test]
fn example4_slot_count_is_a_permutation_of_64() {
    let t = tiled(EX4);
    // N = 2·2·2·4·2·1·1·1 = 64; the table is a permutation of 0..64, so no
    // slot is padding.
    assert_eq!(t.tiled_slots(), 64);
    assert_eq!(t.physical_slots(), 64);
    let mut seen: Vec<u64> = EX4_TABLE.iter().flatten().copied().collect();
    seen.sort_unstable();
    assert_eq!(seen, (0..64).collect::<Vec<u64>>());
    for r in 0..8 {
        for c in 0..8 {
            assert_round_trip(&t, &[r, c]);
        }
    }
}

// ---------------------------------------------------------------------------
// Example 5: tiles larger than the array (layout_util_test.cc)
// ---------------------------------------------------------------------------

#[test]
fn example5_f32_3_tile_8_128() {
    let text = "f32[3]{0:T(8,128)}";
    let t = tiled(text);
    // [3] is padded to [1,3], then tiled to [1,1,8,128].
    assert_eq!(t.dims(), [1, 1, 8, 128]);
    assert_eq!(t.tiled_slots(), 1024);
    assert_eq!(t.physical_slots(), 1024);
    for i in 0..3 {
        assert_eq!(t.offset(&[i]), Ok(i));
    }
    let s = array(text);
    assert_eq!(s.xla_array_size(), Ok(4096));
    assert_eq!(s.xla_byte_size_of(), Ok(12));
    assert_eq!(t.exact_bytes(), 4096);
}

#[test]
fn example5_f32_8_tile_2_2() {
    let text = "f32[8]{0:T(2,2)}";
    let t = tiled(text);
    assert_eq!(t.dims(), [1, 4, 2, 2]);
    assert_eq!(t.tiled_slots(), 16);
    let offsets: Vec<u64> = (0..8).map(|i| t.offset(&[i]).unwrap()).collect();
    assert_eq!(offsets, [0, 1, 4, 5, 8, 9, 12, 13]);
    for i in 0..8 {
        assert_eq!(t.offset(&[i]), Ok(4 * (i / 2) + i % 2));
    }
    assert_eq!(t.offset(&[5]), Ok(9));
}

#[test]
fn example5_xla_linear_index_ignores_tiles_on_rank_1() {
    let s = array("f32[8]{0:T(2,2)}");
    assert_eq!(s.xla_linear_index(&[5]), Ok(5));
    assert_eq!(s.tiled().unwrap().offset(&[5]), Ok(9));
}

#[test]
fn example5_u32_scalar_tile_128() {
    let text = "u32[]{:T(128)}";
    let t = tiled(text);
    // [] is padded to [1], then tiled to [⌈1/128⌉, 128] = [1,128].
    assert_eq!(t.dims(), [1, 128]);
    assert_eq!(t.offset(&[]), Ok(0));
    assert_eq!(t.tiled_slots(), 128);
    assert_eq!(t.physical_slots(), 128);
    assert_eq!(array(text).xla_array_size(), Ok(512));
}

#[test]
fn example5_f32_3_5_tile_8_128() {
    let t = tiled("f32[3,5]{1,0:T(8,128)}");
    assert_eq!(t.dims(), [1, 1, 8, 128]);
    assert_eq!(t.tiled_slots(), 1024);
    for r in 0..3 {
        for c in 0..5 {
            assert_eq!(t.offset(&[r, c]), Ok(r * 128 + c), "({r},{c})");
        }
    }
}

// ---------------------------------------------------------------------------
// Example 6: three tiling levels, bf16[2048]{0:T(1024)(128)(2,1)}
// ---------------------------------------------------------------------------

const EX6: &str = "bf16[2048]{0:T(1024)(128)(2,1)}";

#[test]
fn example6_shape_after_each_level() {
    let s = array(EX6);
    let dims = |k| TiledShape::with_levels(&s, k).unwrap().dims().to_vec();
    assert_eq!(dims(0), [2048]);
    assert_eq!(dims(1), [2, 1024]);
    assert_eq!(dims(2), [2, 8, 128]);
    assert_eq!(dims(3), [2, 4, 128, 2, 1]);
    assert_eq!(tiled(EX6).dims(), [2, 4, 128, 2, 1]);
}

#[test]
fn example6_strides() {
    assert_eq!(tiled(EX6).strides(), [1024, 256, 2, 1, 1]);
}

#[test]
fn example6_offsets() {
    let t = tiled(EX6);
    for (i, want) in [(0, 0), (128, 1), (1, 2), (127, 254), (129, 3), (1024, 1024)] {
        assert_eq!(t.offset(&[i]), Ok(want), "element {i}");
    }
}

#[test]
fn example6_slot_count() {
    let t = tiled(EX6);
    // 2·4·128·2·1 = 2048 slots: no padding, so 4096 B (derived).
    assert_eq!(t.tiled_slots(), 2048);
    assert_eq!(t.exact_bytes(), 4096);
}

// ---------------------------------------------------------------------------
// Example 7: the TPU bf16 format on rank 3
// ---------------------------------------------------------------------------

#[test]
fn example7_tpu_bf16_rank3_offsets() {
    let t = tiled("bf16[2,8,128]{2,1,0:T(8,128)(2,1)}");
    assert_eq!(t.offset(&[0, 0, 0]), Ok(0));
    assert_eq!(t.offset(&[0, 2, 0]), Ok(256));
    // Derived: [2,8,128] → T(8,128) → [2,1,1,8,128] → T(2,1) on [8,128] →
    // [2,1,1,4,128,2,1].
    assert_eq!(t.dims(), [2, 1, 1, 4, 128, 2, 1]);
}

// ---------------------------------------------------------------------------
// Example 8: combining dimensions with `*`
// ---------------------------------------------------------------------------

const EX8_5D: &str = "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}";
const EX8_2D: &str = "f32[112,110]{1,0:T(2,3)}";

#[test]
fn example8_five_d_and_two_d_spellings_have_the_same_tiled_shape() {
    for text in [EX8_5D, EX8_2D] {
        let t = tiled(text);
        assert_eq!(t.dims(), [56, 37, 2, 3], "{text}");
        assert_eq!(t.tiled_slots(), 12432, "{text}");
        assert_eq!(t.physical_slots(), 12432, "{text}");
        assert_eq!(t.exact_bytes(), 49728, "{text}");
    }
}

#[test]
fn example8_element_1_2_3_4_5_maps_to_8307_in_both_spellings() {
    // Row ((1·7+2)·8+3) = 75, column 4·10+5 = 45.
    assert_eq!(tiled(EX8_5D).offset(&[1, 2, 3, 4, 5]), Ok(8307));
    assert_eq!(tiled(EX8_2D).offset(&[75, 45]), Ok(8307));
}

#[test]
fn example8_both_spellings_agree_on_every_index() {
    let five = tiled(EX8_5D);
    let two = tiled(EX8_2D);
    for a in 0..2u64 {
        for b in 0..7u64 {
            for c in 0..8u64 {
                for d in 0..11u64 {
                    for e in 0..10u64 {
                        let row = (a * 7 + b) * 8 + c;
                        let col = d * 10 + e;
                        assert_eq!(
                            five.offset(&[a, b, c, d, e]),
                            two.offset(&[row, col]),
                            "({a},{b},{c},{d},{e})"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn example8_five_d_inverse_round_trips_on_a_sample() {
    let t = tiled(EX8_5D);
    for idx in [
        [0, 0, 0, 0, 0],
        [1, 2, 3, 4, 5],
        [1, 6, 7, 10, 9],
        [0, 3, 1, 0, 9],
    ] {
        assert_round_trip(&t, &idx);
    }
}

const EX8_BF16: &str = "bf16[2,3,1004]{2,1,0:T(2,*,128)}";

#[test]
fn example8_bf16_2_3_1004_prints_with_star() {
    assert_eq!(array(EX8_BF16).to_string(), EX8_BF16);
}

#[test]
fn example8_bf16_2_3_1004_tiled_shape() {
    let t = tiled(EX8_BF16);
    assert_eq!(t.dims(), [1, 24, 2, 128]);
    assert_eq!(t.tiled_slots(), 6144);
    assert_eq!(t.physical_slots(), 6144);
    assert_eq!(t.exact_bytes(), 12288); // 6144 × 2 (derived)
}

#[test]
fn example8_bf16_2_3_1004_element_1_2_1003_is_6083() {
    assert_eq!(tiled(EX8_BF16).offset(&[1, 2, 1003]), Ok(6083));
}

#[test]
fn example8_bf16_2_3_1004_every_index_matches_the_formula() {
    // [2,3,1004] merges into [2,3012] (x = (a, b·1004 + c)), tiled (2,128)
    // over S = [1,24,2,128]: offset = ((a div 2)·24 + (y div 128))·256
    //                                   + (a mod 2)·128 + (y mod 128).
    let t = tiled(EX8_BF16);
    for a in 0..2u64 {
        for b in 0..3u64 {
            for c in 0..1004u64 {
                let y = b * 1004 + c;
                let formula = ((a / 2) * 24 + y / 128) * 256 + (a % 2) * 128 + y % 128;
                assert_eq!(t.offset(&[a, b, c]), Ok(formula), "({a},{b},{c})");
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Example 9: tail padding, f32[200001,128]{1,0:T(8)L(1024)}
// ---------------------------------------------------------------------------

const EX9: &str = "f32[200001,128]{1,0:T(8)L(1024)}";

#[test]
fn example9_tiled_dims_and_slots() {
    let t = tiled(EX9);
    assert_eq!(t.dims(), [200001, 16, 8]);
    assert_eq!(t.tiled_slots(), 25_600_128);
    assert_eq!(t.physical_slots(), 25_601_024);
    assert_eq!(t.exact_bytes(), 102_404_096);
}

#[test]
fn example9_xla_sizes() {
    let s = array(EX9);
    assert_eq!(s.xla_byte_size_of(), Ok(102_400_512));
    // Derived: the first tile (8) rounds 128 up to 128; × 200001 =
    // 25 600 128, rounded up to L = 1024 → 25 601 024 slots × 4 B.
    assert_eq!(s.xla_array_size(), Ok(102_404_096));
    // Derived: LinearIndex(200000,127) = 200000·128 + 127, so
    // 25 600 128 slots × 4 B.
    assert_eq!(s.xla_array_data_size(), Ok(102_400_512));
}

#[test]
fn example9_tail_padding_slots_are_padding() {
    let t = tiled(EX9);
    assert_eq!(
        t.logical_index(25_600_127).unwrap().unwrap().as_slice(),
        [200000, 127]
    );
    assert_eq!(t.logical_index(25_600_128).unwrap(), None);
    assert_eq!(t.logical_index(25_601_023).unwrap(), None);
    assert!(t.logical_index(25_601_024).is_err());
}

// ---------------------------------------------------------------------------
// Example 10: plain layouts (index_util_test.cc, docs/shapes.md)
// ---------------------------------------------------------------------------

#[test]
fn example10_f32_10_20_column_major() {
    let t = tiled("f32[10,20]{0,1}");
    assert_eq!(t.offset(&[3, 5]), Ok(53));
    assert_eq!(t.offset(&[9, 19]), Ok(199));
    let s = array("f32[10,20]{0,1}");
    assert_eq!(s.xla_linear_index(&[3, 5]), Ok(53));
    assert_eq!(s.xla_linear_index(&[9, 19]), Ok(199));
}

#[test]
fn example10_f32_10_20_row_major() {
    assert_eq!(tiled("f32[10,20]{1,0}").offset(&[3, 5]), Ok(65));
    assert_eq!(array("f32[10,20]{1,0}").xla_linear_index(&[3, 5]), Ok(65));
}

#[test]
fn example10_f32_10_20_30_layout_1_2_0() {
    assert_eq!(tiled("f32[10,20,30]{1,2,0}").offset(&[3, 5, 7]), Ok(1945));
    assert_eq!(
        array("f32[10,20,30]{1,2,0}").xla_linear_index(&[3, 5, 7]),
        Ok(1945)
    );
}

#[test]
fn example10_f32_2_3_column_major_memory_order_is_a_d_b_e_c_f() {
    // The matrix [[a b c] [d e f]] under {0,1}.
    let labels = [['a', 'b', 'c'], ['d', 'e', 'f']];
    let t = tiled("f32[2,3]{0,1}");
    assert_eq!(t.physical_slots(), 6);
    let mut memory = ['?'; 6];
    for (r, row) in labels.iter().enumerate() {
        for (c, &label) in row.iter().enumerate() {
            memory[t.offset(&[r as u64, c as u64]).unwrap() as usize] = label;
        }
    }
    assert_eq!(memory.iter().collect::<String>(), "adbecf");
    // And back: slot k holds the k-th letter of "adbecf".
    for (k, want) in "adbecf".chars().enumerate() {
        let idx = t.logical_index(k as u64).unwrap().unwrap();
        let [r, c] = idx.as_slice() else {
            panic!("rank 2 expected")
        };
        assert_eq!(labels[*r as usize][*c as usize], want, "slot {k}");
    }
}

// ---------------------------------------------------------------------------
// §e: stated byte sizes and strides
// ---------------------------------------------------------------------------

#[test]
fn e_s4_64_128_e4_array_size_is_4096() {
    // 8192 elements × 4 bits = 4096 B.
    assert_eq!(array("s4[64,128]{1,0:E(4)}").xla_array_size(), Ok(4096));
}

#[test]
fn e_s4_9216_6144_tiled_e4_array_size() {
    let s = array("s4[9216,6144]{1,0:T(64,128)(8,1)E(4)}");
    assert_eq!(s.xla_array_size(), Ok(28_311_552));
    // The tiles divide the dimensions, so the exact size agrees (§e).
    assert_eq!(s.tiled().unwrap().exact_bytes(), 28_311_552);
}

#[test]
fn e_zero_sized_s4_shapes_have_size_0() {
    // The docs mention six zero-sized s4 shapes of ArraySize 0 without
    // listing them; these six follow the same rule (roundup(0, t) = 0).
    for text in [
        "s4[0]{0:E(4)}",
        "s4[0,0]{1,0:E(4)}",
        "s4[0,128]{1,0:E(4)}",
        "s4[64,0]{1,0:E(4)}",
        "s4[0,6144]{1,0:T(64,128)(8,1)E(4)}",
        "s4[9216,0]{1,0:T(64,128)(8,1)E(4)}",
    ] {
        let s = array(text);
        assert_eq!(s.xla_array_size(), Ok(0), "{text}");
        assert_eq!(s.xla_byte_size_of(), Ok(0), "{text}");
        // ArrayDataSize is 0 for zero-element arrays.
        assert_eq!(s.xla_array_data_size(), Ok(0), "{text}");
    }
}

#[test]
fn e_exact_size_differs_from_array_size_when_a_later_tile_pads() {
    // f32[6,4]{1,0:T(3,4)(2,1)}: [6,4] → [2,1,3,4] → [2,1,2,4,2,1] = 32
    // exact slots; ArraySize only counts the first tile: 6·4 = 24 slots.
    let s = array("f32[6,4]{1,0:T(3,4)(2,1)}");
    let t = s.tiled().unwrap();
    assert_eq!(t.tiled_slots(), 32);
    assert_eq!(t.exact_bytes(), 128);
    assert_eq!(s.xla_array_size(), Ok(96));
}

#[test]
fn e_unpacked_byte_strides_f32_3_5_7() {
    let s = array("f32[3,5,7]");
    assert_eq!(
        s.xla_unpacked_byte_strides().unwrap().as_slice(),
        [140, 28, 4]
    );
    assert_eq!(
        s.xla_byte_strides().unwrap().unwrap().as_slice(),
        [140, 28, 4]
    );
}

#[test]
fn e_unpacked_byte_strides_f16_5_7_9() {
    let s = array("f16[5,7,9]");
    assert_eq!(
        s.xla_unpacked_byte_strides().unwrap().as_slice(),
        [126, 18, 2]
    );
    assert_eq!(
        s.xla_byte_strides().unwrap().unwrap().as_slice(),
        [126, 18, 2]
    );
}

#[test]
fn e_unpacked_byte_strides_s4_2_4_e4() {
    let s = array("s4[2,4]{1,0:E(4)}");
    assert_eq!(s.xla_unpacked_byte_strides().unwrap().as_slice(), [4, 1]);
    // E mod 8 ≠ 0, so ByteStrides gives nothing.
    assert_eq!(s.xla_byte_strides(), Ok(None));
}

#[test]
fn e_byte_strides_s4_10_20_e4_is_none() {
    assert_eq!(array("s4[10,20]{1,0:E(4)}").xla_byte_strides(), Ok(None));
}

#[test]
fn e_byte_size_of_stated_examples() {
    for (text, want) in [
        ("f32[]", 4),
        ("f32[10,20]", 800),
        ("f64[10,20]", 1600),
        ("c64[10,20]", 1600),
    ] {
        assert_eq!(array(text).xla_byte_size_of(), Ok(want), "{text}");
        let shape = Shape::parse(text).unwrap();
        assert_eq!(shape.xla_byte_size_of(8), Ok(want), "{text}");
    }
}

#[test]
fn e_byte_size_of_tuple_is_the_pointer_table() {
    let t = Shape::parse("(f32[10,20], s32[], token[])").unwrap();
    assert_eq!(t.xla_byte_size_of(8), Ok(24));
    assert_eq!(t.xla_byte_size_of(4), Ok(12));
    // Nested tuples still count one pointer each at the top level.
    let nested = Shape::parse("((f32[100], f32[100]), f32[3])").unwrap();
    assert_eq!(nested.xla_byte_size_of(8), Ok(16));
    assert_eq!(Shape::parse("()").unwrap().xla_byte_size_of(8), Ok(0));
}

#[test]
fn e_byte_size_of_token_opaque_and_buffer() {
    assert_eq!(Shape::Token.xla_byte_size_of(8), Ok(0));
    assert_eq!(Shape::Opaque.xla_byte_size_of(8), Ok(8));
    assert_eq!(Shape::Opaque.xla_byte_size_of(4), Ok(4));
    let b = Shape::parse("b(c64[10,20])").unwrap();
    assert_eq!(b.xla_byte_size_of(8), Ok(1600));
}

#[test]
fn e_byte_size_of_ignores_tiles_l_and_memory_space() {
    // Derived: ByteSizeOf = bytes(Π dims) whatever the tiles, L, S and M.
    let s = array("f32[3,5]{1,0:T(8,128)L(4096)S(1)M(16)}");
    assert_eq!(s.xla_byte_size_of(), Ok(60));
}

// ---------------------------------------------------------------------------
// §h: default layouts
// ---------------------------------------------------------------------------

#[test]
fn h_default_layout_is_descending() {
    let cases: [(&[i64], &[i64]); 5] = [
        (&[], &[]),
        (&[2, 3], &[1, 0]),
        (&[2, 3, 4], &[2, 1, 0]),
        (&[2, 3, 4, 5], &[3, 2, 1, 0]),
        (&[10, 20, 30, 15, 25], &[4, 3, 2, 1, 0]),
    ];
    for (dims, m2m) in cases {
        let s = ArrayShape::new(ElementType::F32, dims);
        assert_eq!(s.layout().unwrap().minor_to_major(), m2m, "{dims:?}");
        assert_eq!(Layout::default_for_rank(dims.len()).minor_to_major(), m2m);
    }
}

#[test]
fn h_default_layout_prints() {
    assert_eq!(Layout::default_for_rank(2).to_string(), "{1,0}");
    assert_eq!(Layout::default_for_rank(3).to_string(), "{2,1,0}");
    assert_eq!(Layout::default_for_rank(4).to_string(), "{3,2,1,0}");
    assert_eq!(
        ArrayShape::new(ElementType::F32, &[10, 20, 30, 15, 25]).to_string(),
        "f32[10,20,30,15,25]{4,3,2,1,0}"
    );
    // A scalar's default layout is {}, which is not printed.
    assert_eq!(Layout::default_for_rank(0).to_string(), "{}");
    assert_eq!(ArrayShape::new(ElementType::F32, &[]).to_string(), "f32[]");
}

#[test]
fn h_default_layout_has_default_attributes() {
    let l = Layout::default_for_rank(3);
    assert_eq!(l.tile_count(), 0);
    assert_eq!(l.tail_padding_alignment_in_elements(), 1);
    assert_eq!(l.element_size_in_bits(), 0);
    assert_eq!(l.memory_space(), 0);
    assert_eq!(l.split_config_count(), 0);
    assert_eq!(l.physical_shape(), None);
    assert_eq!(l.dynamic_shape_metadata_prefix_bytes(), 0);
    assert_eq!(l.index_primitive_type(), None);
    assert_eq!(l.pointer_primitive_type(), None);
}

#[test]
fn h_parser_fills_missing_layouts_with_the_default() {
    let s = ArrayShape::parse("f32[10,20,30,15,25]").unwrap();
    assert_eq!(s.layout().unwrap().minor_to_major(), [4, 3, 2, 1, 0]);
    let scalar = ArrayShape::parse("f32[]").unwrap();
    assert_eq!(scalar.layout().unwrap().minor_to_major(), [] as [i64; 0]);
    assert_eq!(scalar.layout().copied(), Some(Layout::default_for_rank(0)));
    // Row-major: dimension 0 is most major.
    assert_eq!(tiled("f32[2,3]").offset(&[1, 2]), Ok(5));
}

#[test]
fn h_default_layout_applies_to_every_tuple_element() {
    let s = Shape::parse("(f32[2,3], (s32[4,5,6], pred[]), token[])").unwrap();
    assert_eq!(
        s.to_string(),
        "(f32[2,3]{1,0}, (s32[4,5,6]{2,1,0}, pred[]), token[])"
    );
}

#[test]
fn h_ascending_layout_is_column_major() {
    assert_eq!(Layout::ascending(3).minor_to_major(), [0, 1, 2]);
    let s = ArrayShape::new(ElementType::F32, &[2, 3]).with_layout(Layout::ascending(2));
    let t = s.tiled().unwrap();
    for r in 0..2 {
        for c in 0..3 {
            assert_eq!(t.offset(&[r, c]), Ok(r + 2 * c));
        }
    }
}
