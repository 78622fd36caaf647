//! The `xla-layout` command, run as a user runs it.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

fn run(args: &[&str], stdin: &str) -> Output {
    run_bytes(args, stdin.as_bytes())
}

fn check(lines: &str) -> Vec<Value> {
    let out = run(&["check"], lines);
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

/// NumPy's and JAX's dtype names, copied from Python, are told by XLA's
/// name (a user's trial: `float32` and `int4` got the list of types).
#[test]
fn numpy_names_are_told_by_their_xla_names() {
    let out = check("float32[3,4]\nint4[8,8]\nbfloat16[2]\nfloat8_e5m2[2]\nbool[3]\nfloat_32[2]\n");
    let hints: Vec<&str> = out.iter().map(|o| o["hint"].as_str().unwrap()).collect();
    assert_eq!(hints.len(), 6);
    // Not a name NumPy has: no claim that it is.
    assert!(!hints[5].contains("NumPy"), "{}", hints[5]);
    for (hint, (numpy, xla)) in hints.iter().zip([
        ("float32", "f32"),
        ("int4", "s4"),
        ("bfloat16", "bf16"),
        ("float8_e5m2", "f8e5m2"),
        ("bool", "pred"),
    ]) {
        assert_eq!(
            *hint,
            format!(
                "unknown element type `{numpy}`; that is NumPy's and JAX's name for XLA's `{xla}` (at byte 0)"
            )
        );
    }
}

#[test]
fn check_reports_every_field_in_order() {
    // An invalid line: XLA's message, and the same as `explain` words it.
    let out = check("bf17[8]\nbf16[8,128]{1,0:S(1)T(8,128)}\n");
    assert_eq!(
        out[0]["error"],
        "expected primitive type, saw kIdent (at byte 0)"
    );
    assert_eq!(
        out[0]["hint"],
        "unknown element type `bf17`; did you mean `bf16`? (at byte 0)"
    );
    assert_eq!(
        out[1]["error"],
        "expects layout to end with kRbrace (at byte 20)"
    );
    assert!(
        out[1]["hint"]
            .as_str()
            .unwrap()
            .starts_with("layout attribute `T` is out of order or repeated"),
        "{}",
        out[1]
    );
    let out = check("f32[3,5]{1,0:T(2,2)}\n");
    // docs/xla-layouts.md §d.3 example 1: 24 slots of 4 bytes; ArraySize 96; ByteSizeOf 60.
    assert_eq!(
        out,
        [json!({
            "input": "f32[3,5]{1,0:T(2,2)}", "ok": true, "canonical": "f32[3,5]{1,0:T(2,2)}",
            "error": null, "hint": null, "stage": null, "bytes": 96, "xla_array_size": 96,
            "xla_byte_size_of": 60, "physical_elements": 24, "size_error": null,
            "warning": null
        })]
    );
    let text = String::from_utf8(run(&["check"], "f32[2]\n").stdout).unwrap();
    let keys: Vec<&str> = text
        .split('"')
        .skip(1)
        .step_by(2)
        .filter(|k| !k.contains('['))
        .collect();
    assert_eq!(
        &keys[..],
        [
            "input",
            "ok",
            "canonical",
            "error",
            "hint",
            "stage",
            "bytes",
            "xla_array_size",
            "xla_byte_size_of",
            "physical_elements",
            "size_error",
            "warning"
        ]
    );
}

/// What XLA's parser reads past (it keeps `S(300)` as `S(44)` and drops
/// an `E` with no `(n)`) is accepted as XLA accepts it, with a warning
/// that says what was kept; text that means what it says has none.
#[test]
fn check_and_explain_warn_of_what_xla_reads_past() {
    let out = check("f32[2]{0:S(300)}\nf32[2]{0:E}\nf32[2]{0:S(44)}\ntpu(f32[3])\n");
    assert_eq!(out[0]["ok"], true);
    assert_eq!(out[0]["canonical"], "f32[2]{0:S(44)}");
    let warning = out[0]["warning"].as_str().unwrap();
    assert!(
        warning.contains("memory space S(300) does not fit the 8 bits XLA keeps it in (XLA would read it as S(44))"),
        "{warning}"
    );
    assert_eq!(out[1]["canonical"], "f32[2]{0}");
    assert!(
        out[1]["warning"]
            .as_str()
            .unwrap()
            .contains("element size in bits")
    );
    assert_eq!(
        (&out[2]["warning"], &out[3]["warning"]),
        (&Value::Null, &Value::Null)
    );
    let text = stdout(&run(&["explain", "f32[2]{0:S(300)}"], ""));
    assert!(
        text.lines().nth(1).unwrap().starts_with("warning "),
        "{text}"
    );
    assert_eq!(
        explain_json(&["f32[2]{0:S(300)}"])["warning"],
        out[0]["warning"]
    );
    assert_eq!(explain_json(&["f32[2]{0:S(4)}"])["warning"], Value::Null);
}

/// `explain` names a memory space by the table the memory report reads:
/// S(2) is SMEM on a TPU, as the report calls it.
#[test]
fn explain_names_memory_spaces_as_the_report_does() {
    let name = |t: &str| {
        explain_json(&[t])["memory_space_name"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(
        name("u32[]{:T(128)S(2)}"),
        "device-specific memory space (TPU SMEM)"
    );
    assert_eq!(name("f32[2]{0:S(1)}"), "alternate/fast memory (TPU VMEM)");
    assert_eq!(name("f32[2]{0:S(3)}"), "device-specific memory space");
}

/// At the limits of 64 bits `check` gives exact sizes or says why there
/// are none; it never wraps.
#[test]
fn check_sizes_at_the_limits() {
    let out = check(
        "u8[2305843009213693953]{0}\nu8[9]{0:E(9223372036854775807)}\n\
         pred[1,1]{0,1:T(4611686018427387907,3)L(4611686018427387905)E(1)}\nf32[?,2]\n",
    );
    assert_eq!(out[0]["bytes"], 2_305_843_009_213_693_953u64);
    // ⌈9 · (2^63 − 1) / 8⌉
    assert_eq!(out[1]["bytes"], 10_376_293_541_461_622_783u64);
    assert_eq!(out[1]["size_error"], Value::Null);
    // 4 · (2^62 + 1) slots do not fit in 64 bits.
    assert_eq!(out[2]["ok"], true);
    assert_eq!(out[2]["bytes"], Value::Null);
    assert_eq!(out[2]["size_error"], "the size overflows 64-bit arithmetic");
    assert_eq!(
        out[3]["size_error"],
        "dimension 0 is unbounded (`?`), so the layout has no fixed size"
    );
}

#[test]
fn check_keeps_order_and_separates_stages() {
    let out = check(
        "f32[200001,128]{1,0:T(8)L(1024)}\nf32[2,3]{0,0}\nf32[2,\n(f32[], s32[4]{0:S(1)})\nf32[?,2]\n\nf32[6,4]{1,0:T(3,4)(2,1)}\r\n",
    );
    // The blank line holds no shape: skipped.
    assert_eq!(out.len(), 6);
    // docs/xla-layouts.md §d.3 example 9.
    assert_eq!(out[0]["bytes"], 102_404_096);
    assert_eq!(out[0]["physical_elements"], 25_601_024);
    assert_eq!(out[0]["xla_byte_size_of"], 102_400_512);
    assert_eq!(out[1]["stage"], "validate");
    assert_eq!(out[1]["canonical"], "f32[2,3]{0,0}");
    assert_eq!(
        out[1]["error"],
        "layout minor_to_major field has duplicate values: {0, 0}; shape: f32[2,3]"
    );
    assert_eq!(
        (out[2]["stage"].as_str(), out[2]["canonical"].is_null()),
        (Some("parse"), true)
    );
    assert!(
        out[2]["error"]
            .as_str()
            .unwrap()
            .contains("expects integer")
    );
    // A valid tuple: no size fields.
    assert_eq!(out[3]["ok"], true);
    assert_eq!(out[3]["canonical"], "(f32[], s32[4]{0:S(1)})");
    assert!(out[3]["bytes"].is_null() && out[3]["xla_byte_size_of"].is_null());
    // Unbounded: valid, sizes undefined.
    assert_eq!(
        (out[4]["ok"].as_bool(), out[4]["bytes"].is_null()),
        (Some(true), true)
    );
    // CRLF stripped; docs/xla-layouts.md §e counter-example: exact 32 slots, ArraySize 24.
    assert_eq!(out[5]["input"], "f32[6,4]{1,0:T(3,4)(2,1)}");
    assert_eq!(
        (out[5]["bytes"].as_u64(), out[5]["xla_array_size"].as_u64()),
        (Some(128), Some(96))
    );
}

#[test]
fn check_survives_bytes_that_are_not_utf8() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_xla-layout"))
        .arg("check")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"f32[\xff]\n\0\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert!(lines.iter().all(|l| l["stage"] == "parse"));
}

#[test]
fn offsets_lists_every_index_in_row_major_order() {
    let out = run(&["offsets", "f32[2,3]{0,1}"], "");
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    // Column-major: (i, j) at i + 2j.
    assert_eq!(
        v,
        json!({"shape": "f32[2,3]{0,1}", "physical_elements": 6,
               "offsets": [[0,0,0],[0,1,2],[0,2,4],[1,0,1],[1,1,3],[1,2,5]]})
    );
    let v: Value =
        serde_json::from_slice(&run(&["offsets", "bf16[8,8]{1,0:T(2,4)(2,1,1,1)}"], "").stdout)
            .unwrap();
    let offsets = v["offsets"].as_array().unwrap();
    assert_eq!(offsets.len(), 64);
    assert_eq!(offsets[6 * 8 + 5], json!([6, 5, 51])); // the docs' 51
}

#[test]
fn offsets_refuses_what_it_cannot_list() {
    let out = run(&["offsets", "f32[10001,1000]"], "");
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("10001000 elements; offsets lists at most 10000000")
    );
    // M(n): the sizes before the data are not modelled, so refused.
    let out = run(&["relayout", "f32[3,5]{1,0:M(8)}", "f32[3,5]"], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("has M(8)"));
    // Errors for people: the rule's hint, then XLA's own message.
    let out = run(&["offsets", "f32[2]{0:T(0)}"], "");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("validate error: tile entries must be positive integers or `*`: layout has invalid tiles"),
        "{err}"
    );
    let out = run(&["explain", "bf17[3]"], "");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown element type `bf17`; did you mean `bf16`?"),
        "{err}"
    );
    let out = run(&["explain", "tpu(f33[2])"], "");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("did you mean `f32`? (at byte 4)"), "{err}");
    let out = run(&["offsets", "f32[?]"], "");
    assert!(String::from_utf8_lossy(&out.stderr).contains("unbounded"));
}

#[test]
fn explain_defaults_to_the_docs_example() {
    let out = run(&["explain"], "");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}"),
        "{text}"
    );
    // m2m {3,2,0,1}: physical order d1, d0, d2, d3; T(8,128) tiles d2, d3.
    assert!(text.contains("d1=1, d0=8, d2=1280, d3=16384"), "{text}");
    assert!(text.contains("[1, 8, 160, 128, 8, 128]"), "{text}");
    assert!(text.contains("335544320"), "{text}");
}

#[test]
fn bad_usage_says_how_to_use_it() {
    let out = run(&["frobnicate"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Usage:"));
}

/// The CLI started with `args`, its standard streams piped.
fn spawn(args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_xla-layout"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn run_bytes(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = spawn(args);
    // The command may refuse its arguments before reading stdin: a broken
    // pipe here is then expected.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

#[test]
fn relayout_packs_rows_into_the_tpu_format_and_back() {
    // bf16[4,8] element (r, c) = 8r + c, little-endian u16.
    let host: Vec<u8> = (0u16..32).flat_map(u16::to_le_bytes).collect();
    let out = run_bytes(
        &["relayout", "bf16[4,8]{1,0}", "bf16[4,8]{1,0:T(2,4)(2,1)}"],
        &host,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tpu: Vec<u16> = out
        .stdout
        .chunks(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect();
    // docs/xla-layouts.md §d.3 example 3: (r, c) at 16·(r div 2) + 8·(c div 4) + 2·(c mod 4) + (r mod 2).
    for r in 0..4 {
        for c in 0..8 {
            assert_eq!(
                tpu[16 * (r / 2) + 8 * (c / 4) + 2 * (c % 4) + r % 2],
                (8 * r + c) as u16
            );
        }
    }
    let back = run_bytes(
        &["relayout", "bf16[4,8]{1,0:T(2,4)(2,1)}", "bf16[4,8]{1,0}"],
        &out.stdout,
    );
    assert_eq!(back.stdout, host);
}

#[test]
fn relayout_fills_padding_with_the_chosen_byte() {
    // f32[3,5] into 2×2 tiles: 24 slots, 9 of them padding (docs/xla-layouts.md §d.3 example 1).
    let host: Vec<u8> = (0u32..15).flat_map(u32::to_le_bytes).collect();
    let out = run_bytes(
        &[
            "relayout",
            "f32[3,5]{1,0}",
            "f32[3,5]{1,0:T(2,2)}",
            "--pad",
            "0xAB",
        ],
        &host,
    );
    assert_eq!(out.stdout.len(), 96);
    let words: Vec<u32> = out
        .stdout
        .chunks(4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert_eq!(words[17], 13); // slot 17 holds (2, 3) = 2·5 + 3
    for slot in [9, 11, 14, 15, 18, 19, 21, 22, 23] {
        assert_eq!(words[slot], 0xABAB_ABAB, "slot {slot}");
    }
}

#[test]
fn relayout_widens_packed_nibbles_as_xla_unpacks_them() {
    // s4[2,4] packed low nibble first: 1 2 3 4 / 7 -1 -2 -8. One per byte,
    // each nibble is the low half and the high half is zero, as XLA's
    // UnpackIntN and ml_dtypes store an s4 in a byte.
    let out = run_bytes(
        &["relayout", "s4[2,4]{1,0:E(4)}", "s4[2,4]{0,1}"],
        &[0x21, 0x43, 0xF7, 0x8E],
    );
    assert_eq!(out.stdout, [0x01, 0x07, 0x02, 0x0F, 0x03, 0x0E, 0x04, 0x08]);
}

#[test]
fn relayout_refuses_mismatches_clearly() {
    let out = run_bytes(&["relayout", "f32[2,3]", "f32[3,2]"], &[0; 24]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("are not the same array"));
    let out = run_bytes(&["relayout", "f32[2,3]", "f32[2,3]{0,1}"], &[0; 20]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("takes 24 bytes but the input has 20"));
    let out = run_bytes(&["relayout", "f32[2,3]", "f32[2,3]{0,1}"], &[0; 25]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("more than 24"));
    let out = run_bytes(
        &["relayout", "f32[2,3]", "f32[2,3]{0,1}", "--pad", "300"],
        &[0; 24],
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("--pad takes a byte"));
    assert!(!out.status.success());
}

const DUMP: &str = "../examples/dumps/train_step.tpu.hlo";

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

#[test]
fn scan_writes_one_object_per_instruction() {
    let text = stdout(&run(&["scan", DUMP], ""));
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 44);
    let find = |name: &str| lines.iter().find(|l| l["name"] == name).unwrap().clone();
    // f32[20,300] in (8,128) tiles: 24 × 384 slots of 4 bytes.
    let padded = find("padded");
    assert_eq!(padded["computation"], "main.30");
    assert_eq!(padded["shape"], "f32[20,300]{1,0:T(8,128)}");
    assert_eq!(padded["bytes"], 24 * 384 * 4);
    // A tuple holds its elements: s32[] tiled to 128 slots, and 1024² f32.
    assert_eq!(find("while.9")["bytes"], 128 * 4 + 1024 * 1024 * 4);
    // s4 with E(4): two per byte.
    assert_eq!(find("nibbles")["bytes"], 8 * 32768 * 256 / 2);
    // Canonical text: `%`, spaces and `/*index*/` comments are not kept.
    assert_eq!(
        find("fusion")["shape"],
        "bf16[8,128,1024]{2,1,0:T(8,128)(2,1)}"
    );
    let keys: Vec<&String> = padded.as_object().unwrap().keys().collect();
    // The original fields first, in order; "inferred" and "invalid" were
    // added after them.
    assert_eq!(
        keys,
        [
            "computation",
            "name",
            "shape",
            "bytes",
            "inferred",
            "invalid"
        ]
    );
    assert!(lines.iter().all(|l| l["invalid"].is_null()));
}

/// A shape XLA's validator rejects (XLA refuses such a module) is not
/// taken for 0 bytes in silence: `scan` lists the instruction with the
/// rule broken, says where on stderr, and so do `scan --summary` and
/// `memory` (there as a warning, with every figure an estimate); each
/// exits 1 once the rest is out.
#[test]
fn layouts_xla_rejects_fail_scan_and_memory() {
    let text = std::fs::read_to_string(DUMP).unwrap();
    for (written, rule) in [
        ("f32[20,300]{1,1:T(8,128)}", "duplicate values"),
        ("f32[20,300]{1,0:T(0,128)}", "tile"),
    ] {
        let damaged = text.replacen("f32[20,300]{1,0:T(8,128)}", written, 1);
        assert_ne!(damaged, text);
        let out = run(&["scan", "-"], &damaged);
        assert_eq!(out.status.code(), Some(1), "{written}");
        let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 44, "{written}: every instruction still listed");
        let invalid: Vec<&Value> = lines.iter().filter(|l| !l["invalid"].is_null()).collect();
        assert_eq!(invalid.len(), 1, "{written}");
        assert_eq!(invalid[0]["name"], "padded");
        assert!(invalid[0]["bytes"].is_null());
        let why = invalid[0]["invalid"].as_str().unwrap();
        assert!(why.contains(rule), "{written}: {why}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("the shape of padded is one XLA's validator rejects"),
            "{err}"
        );
        assert!(
            err.contains("1 shape that XLA's validator rejects"),
            "{err}"
        );

        let out = run(&["scan", "-", "--summary"], &damaged);
        assert_eq!(out.status.code(), Some(1), "{written}");
        assert!(String::from_utf8_lossy(&out.stdout).contains("1 value has no defined size"));
        assert!(String::from_utf8_lossy(&out.stderr).contains(rule));

        let out = run(&["memory", "-", "--json"], &damaged);
        assert_eq!(out.status.code(), Some(1), "{written}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let warnings = v["warnings"].to_string();
        assert!(warnings.contains("padded"), "{warnings}");
        assert!(warnings.contains("validator rejects"), "{warnings}");
        assert_eq!(
            v["memory_analysis_source"]["argument_size_in_bytes"],
            "estimated"
        );
        // On stderr at the instruction's line and column, as `scan` says it.
        let line = damaged[..damaged.find(written).unwrap()].lines().count();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!(
                "-:{line}:3: the shape of padded is one XLA's validator rejects"
            )),
            "{err}"
        );
    }
    // The dump as it is: none.
    assert!(run(&["scan", DUMP], "").status.success());
    assert!(run(&["memory", DUMP], "").status.success());
}

/// So is an inferred shape XLA's validator rejects (a shape left out,
/// as hand-written HLO may: here a dot whose result overflows XLA's
/// dimension product), which had `"invalid": null` and 0 bytes in
/// `memory` with no warning, exit 0 (from an adversarial trial).
#[test]
fn inferred_shapes_xla_rejects_fail_scan_and_memory() {
    let text = "HloModule m\n\nENTRY e {\n  a = f32[4294967296,1]{1,0} parameter(0)\n  \
                b = f32[1,4294967296]{1,0} parameter(1)\n  \
                ROOT d = dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n";
    let out = run(&["scan", "-"], text);
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[2]["inferred"], true);
    assert!(lines[2]["bytes"].is_null());
    let why = lines[2]["invalid"].as_str().unwrap_or_default();
    assert!(why.contains("overflow"), "{}", lines[2]);
    let out = run(&["memory", "-", "--json"], text);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["warnings"].to_string().contains("validator rejects"),
        "{}",
        v["warnings"]
    );
    assert_eq!(
        v["memory_analysis_source"]["output_size_in_bytes"],
        "estimated"
    );
}

#[test]
fn scan_summarises_buffers_and_padding() {
    let text = stdout(&run(&["scan", DUMP, "--summary", "--top", "50"], ""));
    // The largest buffer first: 8·32768·256 nibbles.
    let first = text.lines().find(|l| l.contains("main.30/")).unwrap();
    assert!(
        first.contains("33,554,432") && first.contains("nibbles"),
        "{first}"
    );
    // f32[20,300]: 36,864 bytes, 24,000 of data.
    let padded = text.lines().find(|l| l.contains("/padded")).unwrap();
    assert!(
        padded.contains("36,864") && padded.contains("12,864"),
        "{padded}"
    );
    // Fusion bodies and reducers hold no buffers; aliasing results are left out.
    assert!(!text.contains("fused_computation/"));
    assert!(!text.contains("region_0.12/"));
    assert!(!text.contains("/gte.w") && !text.contains("/tuple.11"));
    assert!(text.contains("main.30/async-start{1}"), "{text}");
    // Values, as memory counts them: a while's state and its parameter
    // share a buffer and are each listed. `--top 0` lists them all, as
    // memory's does; `--top` needs `--summary`.
    assert!(text.contains("/Arg_1.2") && text.contains("while_body/w.5"));
    let values = text.lines().filter(|l| l.contains("S(")).count();
    assert!(text.contains(&format!(" {values} values\n")), "{text}");
    assert_eq!(
        stdout(&run(&["scan", DUMP, "--summary", "--top", "0"], "")),
        text
    );
    assert_eq!(
        run(&["scan", DUMP, "--top", "5"], "").status.code(),
        Some(2)
    );
}

/// A dump directory, as `memory` takes one: its one optimized module, or
/// the one `--module` names; several is a usage error, as is `--module`
/// with a file.
#[test]
fn scan_reads_a_dump_directory() {
    let dumps = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/dumps");
    let file = format!("{dumps}/tpu_odd_shapes.hlo");
    let direct = stdout(&run(&["scan", &file], ""));
    let picked = stdout(&run(&["scan", dumps, "--module", "tpu_odd_shapes"], ""));
    assert_eq!(picked, direct);
    assert!(direct.lines().count() > 50);
    let several = run(&["scan", dumps], "");
    assert_eq!(several.status.code(), Some(2));
    let err = String::from_utf8_lossy(&several.stderr);
    assert!(err.contains("choose one with --module"), "{err}");
    // A --module that matches several says so, and lists them.
    let vague = run(&["scan", dumps, "--module", "tpu_v6e"], "");
    assert_eq!(vague.status.code(), Some(2));
    let err = String::from_utf8_lossy(&vague.stderr);
    assert!(
        err.contains("--module 'tpu_v6e' matches 5 modules"),
        "{err}"
    );
    assert!(err.contains("tpu_v6e_scan.hlo"), "{err}");
    // A module's whole name picks it, though another name contains it.
    let dir = std::env::temp_dir().join(format!("xla-layout-whole-name-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(&file, dir.join("f.hlo")).unwrap();
    std::fs::copy(format!("{dumps}/tpu_v6e_scan.hlo"), dir.join("jit_f.hlo")).unwrap();
    let d = dir.to_str().unwrap();
    for name in ["f.hlo", "f"] {
        assert_eq!(
            stdout(&run(&["scan", d, "--module", name], "")),
            direct,
            "{name}"
        );
    }
    assert_eq!(
        run(&["scan", d, "--module", ".hlo"], "").status.code(),
        Some(2)
    );
    std::fs::remove_dir_all(&dir).unwrap();
    // A TPU program with its host computation's CPU module beside it (as
    // jax dumps a program that computes on the host): the device module
    // is the program; --module still picks the other.
    let dir = std::env::temp_dir().join(format!("xla-layout-host-module-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        &file,
        dir.join("module_0000.jit_f.cl_1.after_optimizations.txt"),
    )
    .unwrap();
    let host = dir.join("module_0003.called_computation.cl_1.cpu_after_optimizations.txt");
    std::fs::copy(format!("{dumps}/cpu_linalg.hlo"), &host).unwrap();
    let d = dir.to_str().unwrap();
    assert_eq!(stdout(&run(&["scan", d], "")), direct);
    assert_eq!(
        stdout(&run(&["scan", d, "--module", "called_computation"], "")),
        stdout(&run(&["scan", host.to_str().unwrap()], ""))
    );
    // Two device modules are still the user's choice.
    std::fs::copy(
        &file,
        dir.join("module_0001.jit_g.cl_1.after_optimizations.txt"),
    )
    .unwrap();
    assert_eq!(run(&["scan", d], "").status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        run(&["scan", &file, "--module", "x"], "").status.code(),
        Some(2)
    );
    let none = run(&["scan", dumps, "--module", "no such module"], "");
    assert_eq!(none.status.code(), Some(1));
}

#[test]
fn scan_reports_where_a_dump_is_wrong() {
    let bad = "HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n  y = f32[2] add(x x\n}\n";
    let out = run(&["scan", "-"], bad);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    // The bracket left open, on its own line (the wrong closer is on the
    // next).
    assert!(err.contains("-:4:17:"), "{err}");
    // What reads is still written, and the error is a record in the stream.
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["name"], "x");
    assert_eq!(
        (lines[1]["line"].as_u64(), lines[1]["column"].as_u64()),
        (Some(4), Some(17))
    );
    assert!(lines[1]["error"].as_str().unwrap().contains("not closed"));
    let out = run(&["scan", "no/such/file.hlo"], "");
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read no/such/file.hlo"));
}

/// An error on every line: each is rendered and placed counting lines
/// once overall, not from the start each time. Counting from the start
/// was quadratic: 10,000 such lines took 36 s in a debug build, and the
/// 40,000 here would take about ten minutes per run; now about a second.
#[test]
fn scan_reports_an_error_on_every_line_in_linear_time() {
    let n = 40_000;
    let mut module = String::from("HloModule m\nENTRY e {\n");
    for i in 0..n {
        module.push_str(&format!("  x{i} = f32[2]{{0 negate(x)\n"));
    }
    module.push_str("}\n");
    let started = std::time::Instant::now();
    for args in [&["scan", "-"][..], &["scan", "-", "--summary"]] {
        let out = run(args, &module);
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        // Line k + 3 holds x{k}. The first 20 are shown, then the count
        // (an error on every line of a large file flooded stderr).
        for k in [0, 1, 19] {
            assert!(
                err.contains(&format!("-:{}:", k + 3)),
                "{args:?}: line {}",
                k + 3
            );
        }
        for k in [20, n / 2, n - 1, n] {
            assert!(!err.contains(&format!("-:{}:", k + 3)), "{args:?}");
        }
        assert!(
            err.contains(
                "40000 parts of the module could not be read (the first 20 are shown above)"
            ),
            "{args:?}: {err}"
        );
        if args.len() == 2 {
            let errors: Vec<u64> = String::from_utf8(out.stdout)
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap())
                .filter_map(|l| l["line"].as_u64())
                .collect();
            assert_eq!(errors, (3..n as u64 + 3).collect::<Vec<_>>());
        }
    }
    let took = started.elapsed();
    assert!(took.as_secs() < 60, "{took:?}");
}

#[test]
fn explain_draws_the_offset_grid() {
    // tiled_layout.md figure 1.
    let text = stdout(&run(&["explain", "f32[3,5]{1,0:T(2,2)}"], ""));
    assert!(
        text.contains("slots             24 (9 padding, 37.50%)"),
        "{text}"
    );
    let grid: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("slot offsets"))
        .collect();
    assert_eq!(grid[1], "d0\\d1   0   1   2   3   4");
    assert_eq!(grid[2], "    0   0   1   4   5   8");
    assert_eq!(grid[4], "    2  12  13  16  17  20");
    // Other dimensions are held where --at says.
    let text = stdout(&run(
        &["explain", "f32[4,5,6]", "--dims", "0,2", "--at", "0,3,0"],
        "",
    ));
    assert!(
        text.contains("rows: d0 (4), columns: d2 (6), d1=3"),
        "{text}"
    );
    assert!(text.contains("    1  48  49  50  51  52  53"), "{text}");
    // Bad options fail before anything is written.
    let out = run(&["explain", "f32[4,5,6]", "--dims", "0,3"], "");
    assert!(!out.status.success() && out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("dimension 3 does not exist"));
}

#[test]
fn explain_writes_an_svg_picture() {
    let dir = std::env::temp_dir().join(format!("xla-layout-svg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("fig1.svg");
    let out = run(
        &[
            "explain",
            "f32[3,5]{1,0:T(2,2)}",
            "--svg",
            path.to_str().unwrap(),
        ],
        "",
    );
    stdout(&out);
    let svg = std::fs::read_to_string(&path).unwrap();
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    // 15 grid cells and 24 memory slots, 9 of them padding.
    assert_eq!(svg.matches("<rect x=").count(), 15 + 24 + 1);
    assert_eq!(svg.matches(">pad</text>").count(), 9);
    // Memory slot 8 holds element (0,4); grid cell (0,4) says slot 8.
    assert!(svg.contains(">0,4</text>"));
    // The grid's cells come first, row by row: a tile's cells share a
    // colour, and side-by-side cells of different tiles do not.
    let fills: Vec<&str> = svg
        .lines()
        .filter(|l| l.starts_with("<rect x="))
        .take(15)
        .map(|l| {
            l.split("fill=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
        })
        .collect();
    let tile = |r: usize, c: usize| (r / 2, c / 2);
    for r in 0..3 {
        for c in 0..5 {
            for (r2, c2) in [(r + 1, c), (r, c + 1)] {
                if r2 < 3 && c2 < 5 {
                    let same_tile = tile(r, c) == tile(r2, c2);
                    let same_fill = fills[r * 5 + c] == fills[r2 * 5 + c2];
                    assert_eq!(same_tile, same_fill, "({r},{c}) and ({r2},{c2})");
                }
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `relayout` over the layouts that showed a plan overrun (transposes
/// whose block counts are not multiples of 8, TPU formats on ragged
/// sizes, packed `s4`), whole and streamed in slabs, against layout-core's
/// offsets: every element's bytes at its slot, padding bytes = `--pad`.
#[test]
fn relayout_sweep_matches_the_offsets() {
    use xla_layout_core::{ArrayShape, TiledShape, bits};
    fn tiled(text: &str) -> TiledShape {
        ArrayShape::parse_validated(text).unwrap().tiled().unwrap()
    }
    let cases = [
        ("f32[64,544]{0,1}", "f32[64,544]{1,0}"),
        ("u8[72,576]{0,1}", "u8[72,576]{1,0}"),
        ("s4[64,544]{0,1:E(4)}", "s4[64,544]{1,0:E(4)}"),
        ("s4[64,544]{0,1}", "s4[64,544]{1,0:E(4)}"),
        ("bf16[7,300]{1,0}", "bf16[7,300]{1,0:T(8,128)(2,1)}"),
        ("bf16[24,300]{1,0:T(8,128)(2,1)}", "bf16[24,300]{1,0}"),
        ("s8[9,129]{0,1}", "s8[9,129]{1,0:T(8,128)(4,1)}"),
        ("pred[33,129]{1,0}", "pred[33,129]{1,0:T(32,128)(32,1)}"),
        ("s4[3,129]{1,0}", "s4[3,129]{1,0:T(8,128)(8,1)E(4)}"),
    ];
    for (a, b) in cases {
        let (src, dst) = (tiled(a), tiled(b));
        let (sb, db) = (src.element_bits(), dst.element_bits());
        // Element number n (row-major) holds a hash of n in its low bits;
        // the destination's value is the library's move of it (widening
        // zero-fills above the type's bits), placed by the two layouts' offsets.
        let width = sb.min(8) as u32;
        let mover = bits::Mover::new(src.element_type(), sb, db);
        let mut input = vec![0u8; src.exact_bytes() as usize];
        let mut want = vec![0x77u8; dst.exact_bytes() as usize];
        let dims = src.logical_dims().to_vec();
        let mut i = vec![0u64; dims.len()];
        let mut used = vec![false; dst.physical_slots() as usize];
        for n in 0..src.element_count() {
            let v = u128::from(n.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56);
            let (s, d) = (src.offset(&i).unwrap(), dst.offset(&i).unwrap());
            bits::write_bits(&mut input, s * sb, width, v);
            mover.move_element(&input, s, &mut want, d);
            used[d as usize] = true;
            if let Some(k) = (0..dims.len()).rev().find(|&k| i[k] + 1 < dims[k]) {
                i[k] += 1;
                i[k + 1..].fill(0);
            }
        }
        let out = run_bytes(&["relayout", a, b, "--pad", "0x77"], &input);
        assert!(
            out.status.success(),
            "{a} -> {b}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        for (slot, &u) in used.iter().enumerate() {
            let at = slot as u64 * db;
            let (got, exp) = (
                bits::read_bits(&out.stdout, at, db.min(128) as u32),
                bits::read_bits(&want, at, db.min(128) as u32),
            );
            if u {
                assert_eq!(got, exp, "{a} -> {b}: slot {slot}");
            } else {
                // Padding slots hold the pad byte's bits.
                let pad = bits::read_bits(&[0x77u8; 32], at % 8, db.min(128) as u32);
                assert_eq!(got, pad, "{a} -> {b}: padding slot {slot}");
            }
        }
        assert_eq!(out.stdout.len(), want.len(), "{a} -> {b}: output size");
    }
}

/// A tuple of 400,000 elements (2.8 MB of text) is checked and scanned in
/// a 300 MB address space: memory follows the text, not the ~1.3 KB an
/// element costs as a built shape (which would need over 500 MB).
#[test]
#[cfg(target_os = "linux")]
fn huge_tuples_stay_in_memory_proportional_to_the_text() {
    let tuple = format!("({})", vec!["f32[]"; 400_000].join(", "));
    let dir = std::env::temp_dir().join(format!("xla-layout-huge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (line, module) = (dir.join("tuple.txt"), dir.join("tuple.hlo"));
    std::fs::write(&line, format!("{tuple}\n")).unwrap();
    std::fs::write(
        &module,
        format!(
            "HloModule m\nENTRY e {{\n  p = f32[] parameter(0)\n  ROOT t = {tuple} tuple(p)\n}}\n"
        ),
    )
    .unwrap();
    let bin = env!("CARGO_BIN_EXE_xla-layout");
    for (args, input) in [("check", &line), ("scan -", &module)] {
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "ulimit -v 300000 && exec '{bin}' {args} < '{}'",
                input.display()
            ))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("/*index=399995*/f32[]"), "{args}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A huge grid starts at once: the first rows come out before the rest is
/// computed (a pre-pass over every cell would take hours here).
#[test]
fn explain_streams_a_huge_grid() {
    use std::io::{BufRead, BufReader};
    let mut child = Command::new(env!("CARGO_BIN_EXE_xla-layout"))
        .args(["explain", "u8[100000,100000]{0,1}", "--max", "100000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let lines: Vec<String> = BufReader::new(stdout)
            .lines()
            .skip_while(|l| !l.as_ref().unwrap().starts_with("slot offsets"))
            .take(3)
            .map(Result::unwrap)
            .collect();
        let _ = tx.send(lines);
    });
    let lines = rx.recv_timeout(std::time::Duration::from_secs(60));
    child.kill().unwrap();
    let _ = child.wait();
    let lines = lines.expect("the grid's first rows within a minute");
    // Column-major: row 1 of column 0 is slot 1, column 1 starts at 100000.
    let first: Vec<&str> = lines[2].split_whitespace().take(3).collect();
    assert_eq!(first, ["0", "0", "100000"], "{}", &lines[2][..100]);
}

/// `--version` names the crate's version; every subcommand has `--help`
/// (and `help SUBCOMMAND`) on stdout with exit 0.
#[test]
fn version_and_help_everywhere() {
    // The same line from a subcommand: one program, one version.
    for args in [
        &["--version"][..],
        &["explain", "--version"],
        &["tpu", "-V"],
    ] {
        let out = run(args, "");
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            format!("xla-layout {}\n", env!("CARGO_PKG_VERSION")),
            "{args:?}"
        );
    }
    let text = stdout(&run(&["--help"], ""));
    for sub in [
        "check", "offsets", "relayout", "explain", "scan", "memory", "tpu",
    ] {
        assert!(text.contains(sub), "{text}");
        for args in [vec![sub, "--help"], vec![sub, "-h"], vec!["help", sub]] {
            let out = run(&args, "");
            assert_eq!(out.status.code(), Some(0), "{args:?}");
            let text = String::from_utf8(out.stdout).unwrap();
            assert!(
                text.contains(&format!("Usage: xla-layout {sub}")),
                "{args:?}: {text}"
            );
        }
    }
}

/// Usage errors exit 2 with a message on stderr and nothing on stdout;
/// failures (bad input, IO) exit 1.
#[test]
fn exit_codes_tell_usage_errors_from_failures() {
    let usage_errors: &[&[&str]] = &[
        &[],
        &["frobnicate"],
        &["check", "--bogus"],
        &["check", "extra"],
        &["offsets"],
        &["relayout", "f32[2]"],
        &["relayout", "f32[2]", "f32[2]", "--pad"],
        &["relayout", "f32[2]", "f32[2]", "--pad", "256"],
        &["relayout", "f32[2]", "f32[2]", "--pad", "0x100"],
        &["explain", "--dims", "1"],
        &["explain", "--at", "x"],
        &["explain", "--max", "1"],
        &["explain", "f32[2]", "f32[3]"],
        // --dims and --at that do not fit the shape: values that parse
        // but do not go with it.
        &["explain", "f32[4,5,6]", "--dims", "0,3"],
        &["explain", "f32[4,5,6]", "--dims", "1,1"],
        &["explain", "f32[4,5,6]", "--at", "9,0,0"],
        &["scan"],
        &["scan", "a.hlo", "--top", "many"],
    ];
    for args in usage_errors {
        let out = run(args, "");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
    let failures: &[&[&str]] = &[
        &["offsets", "f32[2"],
        &["offsets", "(f32[2])"],
        &["explain", "f32[2]{0:T(0)}"],
        &["relayout", "f32[2]", "f32[3]"],
        &["scan", "no/such/file.hlo"],
    ];
    for args in failures {
        let out = run(args, "");
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("xla-layout: "), "{args:?}: {err}");
    }
    // A wrong input size is a failure too.
    let out = run_bytes(&["relayout", "f32[2]", "f32[2]{0}"], &[0; 7]);
    assert_eq!(out.status.code(), Some(1));
    // `--pad` takes decimal and hex bytes, before or after the shapes.
    let out = run_bytes(&["relayout", "--pad", "255", "u8[2]", "u8[2]"], &[1, 2]);
    assert_eq!(out.stdout, [1, 2]);
}

/// `check --strict` writes the same lines and exits 1 when one is invalid.
#[test]
fn check_strict_fails_on_an_invalid_line() {
    let input = "f32[2]\nf32[2,3]{0,0}\nf32[\n(f32[], s32[4])\n";
    let plain = run(&["check"], input);
    let strict = run(&["check", "--strict"], input);
    assert_eq!(plain.status.code(), Some(0));
    assert_eq!(strict.status.code(), Some(1));
    assert_eq!(strict.stdout, plain.stdout);
    assert_eq!(String::from_utf8(strict.stdout).unwrap().lines().count(), 4);
    assert!(
        String::from_utf8_lossy(&strict.stderr).contains("2 of 4 lines are not valid shapes"),
        "{}",
        String::from_utf8_lossy(&strict.stderr)
    );
    // Valid lines, undefined sizes included: success.
    let out = run(&["check", "--strict"], "f32[2]\nf32[?,2]\n");
    assert_eq!(out.status.code(), Some(0));
    // Blank lines hold no shape: skipped, in `check` and `tpu` alike (a
    // stray empty line was an invalid shape and failed `--strict`).
    for command in ["check", "tpu"] {
        let out = run(
            &[command, "--strict"],
            "f32[2]\n\n  \r\n\x0b\nbf16[8]\n\u{a0}\u{2028}\n\n",
        );
        assert_eq!(out.status.code(), Some(0), "{command}");
        let lines: Vec<Value> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let inputs: Vec<&str> = lines.iter().map(|l| l["input"].as_str().unwrap()).collect();
        assert_eq!(inputs, ["f32[2]", "bf16[8]"], "{command}");
    }
}

/// A `*` tile entry prints as `*`, not as the integer that stands for it.
#[test]
fn explain_prints_combine_entries_as_a_star() {
    let text = stdout(&run(&["explain", "f32[8,128]{1,0:T(8,128)(*,2)}"], ""));
    assert!(text.contains("after tile 1      (8,128) -> "), "{text}");
    assert!(text.contains("after tile 2      (*,2) -> "), "{text}");
    assert!(!text.contains("-9223372036854775808"), "{text}");
}

fn explain_json(args: &[&str]) -> Value {
    let mut all = vec!["explain"];
    all.extend_from_slice(args);
    all.push("--json");
    let text = stdout(&run(&all, ""));
    assert_eq!(text.lines().count(), 1, "{text}");
    serde_json::from_str(&text).expect("one JSON object")
}

/// `explain --json`: what the text shows, as one object.
#[test]
fn explain_writes_json() {
    // tiled_layout.md figure 1.
    let v = explain_json(&["f32[3,5]{1,0:T(2,2)}"]);
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "canonical",
            "warning",
            "element_type",
            "element_bits",
            "slot_bits",
            "dims",
            "physical_order",
            "tiles",
            "elements",
            "slots",
            "padding_slots",
            "padding_percent",
            "bytes",
            "xla_byte_size_of",
            "xla_array_size",
            "xla_array_data_size",
            "memory_space",
            "memory_space_name",
            "jax_layout",
            "grid"
        ]
    );
    assert_eq!(v["canonical"], "f32[3,5]{1,0:T(2,2)}");
    assert_eq!(
        (&v["element_type"], &v["element_bits"], &v["slot_bits"]),
        (&json!("f32"), &json!(32), &json!(32))
    );
    assert_eq!(
        v["tiles"],
        json!([{"tile": [2, 2], "dims_after": [2, 3, 2, 2]}])
    );
    assert_eq!(
        (&v["elements"], &v["slots"], &v["padding_slots"]),
        (&json!(15), &json!(24), &json!(9))
    );
    assert_eq!(v["padding_percent"], 37.5);
    assert_eq!(
        (
            &v["bytes"],
            &v["xla_byte_size_of"],
            &v["xla_array_size"],
            &v["xla_array_data_size"]
        ),
        (&json!(96), &json!(60), &json!(96), &json!(84))
    );
    assert_eq!(v["memory_space_name"], "device memory (HBM)");
    assert_eq!(
        v["grid"],
        json!({"row_dim": 0, "col_dim": 1, "at": [0, 0], "row_indices": [0, 1, 2],
               "col_indices": [0, 1, 2, 3, 4],
               "offsets": [[0, 1, 4, 5, 8], [2, 3, 6, 7, 10], [12, 13, 16, 17, 20]]})
    );
    // `*` is the string "*"; XLA's ArraySize is undefined with it: null.
    let v = explain_json(&["f32[16,256]{1,0:T(2,*,128)}"]);
    assert_eq!(v["tiles"][0]["tile"], json!([2, "*", 128]));
    assert!(v["xla_array_size"].is_null());
    assert_eq!(v["xla_byte_size_of"], 16384);
    // The physical order, major to minor; a cut grid lists the indices it shows.
    let v = explain_json(&["f32[4,100,100]{0,1,2:S(1)}", "--max", "3", "--at", "2,0,0"]);
    assert_eq!(v["physical_order"], json!([2, 1, 0]));
    assert_eq!(v["memory_space"], 1);
    assert_eq!(v["grid"]["row_indices"], json!([0, 1, 99]));
    assert_eq!(
        v["grid"]["offsets"][2],
        json!([2 + 4 * 99, 2 + 4 * 99 + 400, 2 + 4 * 99 + 400 * 99])
    );
    // A scalar and an empty array.
    assert_eq!(explain_json(&["f32[]"])["grid"]["offsets"], json!([[0]]));
    assert_eq!(explain_json(&["f32[0,3]"])["grid"]["offsets"], json!([]));
}

/// `--svg -` writes the picture, and only the picture, to stdout.
#[test]
fn explain_svg_to_stdout() {
    let text = stdout(&run(&["explain", "f32[3,5]{1,0:T(2,2)}", "--svg", "-"], ""));
    let doc = roxmltree::Document::parse(&text).expect("well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    assert!(!text.contains("canonical text"));
    // JSON and the picture cannot share stdout: a usage error.
    let out = run(&["explain", "--json", "--svg", "-"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    // With a file, stdout holds the JSON alone.
    let dir = std::env::temp_dir().join(format!("xla-layout-json-svg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("p.svg");
    let v = explain_json(&["f32[3,5]", "--svg", path.to_str().unwrap()]);
    assert_eq!(v["slots"], 15);
    assert!(std::fs::read_to_string(&path).unwrap().starts_with("<svg"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A reader that stops early (`| head`) ends the command quietly, exit 0.
#[test]
fn a_closed_stdout_exits_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_xla-layout"))
        .args(["explain", "u8[100000,100000]{0,1}", "--max", "100000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `tpu`: the default layout for people, JSON lines for scripts (a bad
/// line gets an error object, the rest go on); `explain` and `relayout`
/// take `tpu(...)`.
#[test]
fn tpu_gives_the_default_layout_and_its_cost() {
    let text = stdout(&run(&["tpu", "bf16[3,1000]"], ""));
    assert!(
        text.starts_with("default layout    bf16[3,1000]{1,0:T(4,128)(2,1)}\n"),
        "{text}"
    );
    assert!(text.contains("bytes             8192\n"), "{text}");
    assert!(text.contains("padding           2192 bytes"), "{text}");
    let lines = json_lines(run(
        &["tpu", "--generation", "v4"],
        "f32[3,5]\nf32[2]{0}\nbf16[1024,1]\n",
    ));
    assert_eq!(lines[0]["shape"], "f32[3,5]{1,0:T(4,128)}");
    assert_eq!(
        (lines[0]["bytes"].as_u64(), lines[0]["data_bytes"].as_u64()),
        (Some(2048), Some(60))
    );
    assert!(lines[1]["error"].as_str().unwrap().contains("has a layout"));
    assert_eq!(lines[2]["shape"], "bf16[1024,1]{0,1:T(2,128)(2,1)}");
    assert_eq!(lines[2]["expansion"], 2.0);
    // --strict: the same lines, and status 1 for the one with an error.
    let strict = run(
        &["tpu", "--strict", "--generation", "v4"],
        "f32[3,5]\nf32[2]{0}\nbf16[1024,1]\n",
    );
    assert_eq!(strict.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&strict.stdout).lines().count(), 3);
    assert!(String::from_utf8_lossy(&strict.stderr).contains("1 of 3 lines"));
    // 2^63 - 1 bytes of data pass XLA's validation; padded to whole tiles
    // they are 2^63, one past what int64 counts.
    let out = run(&["tpu", "pred[9223372036854775807]"], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("more bytes than int64"));
    // Past 2^47 bytes libtpu's own choice departs from its rule (a
    // differential run): refused; 2^47 bytes exactly is answered.
    let out = run(&["tpu", "pred[9223372036854774784]"], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("passes 2^47 bytes"));
    let text = stdout(&run(&["tpu", "pred[140737488355328]"], ""));
    assert!(
        text.contains("bytes             140737488355328\n"),
        "{text}"
    );
    // A usage error: an unknown generation.
    assert_eq!(
        run(&["tpu", "--generation", "v9", "f32[2]"], "")
            .status
            .code(),
        Some(2)
    );
    // Generation names in capitals, as people write them.
    let text = stdout(&run(&["tpu", "--generation", "V6E", "f32[2]"], ""));
    assert!(
        text.starts_with("default layout    f32[2]{0:T(128)}"),
        "{text}"
    );
    // Other commands take tpu(...).
    let text = stdout(&run(&["explain", "tpu(s4[1,129], V6e)"], ""));
    assert!(
        text.starts_with("canonical text    s4[1,129]{1,0:T(8,128)(8,1)E(4)}"),
        "{text}"
    );
    let host: Vec<u8> = (0..8u8).collect();
    let out = run_bytes(&["relayout", "u8[2,4]", "tpu(u8[2,4])"], &host);
    assert!(out.status.success());
    assert_eq!(out.stdout.len(), 512);
}

/// A shape given to `tpu` that does not read is told as `explain` tells
/// it (the mistake in words, then XLA's); its JSON lines give XLA's words
/// and the mistake in words, as `check`'s do.
#[test]
fn tpu_tells_a_bad_shape_as_explain_does() {
    let err = |args: &[&str]| String::from_utf8(run(args, "").stderr).unwrap();
    let tpu = err(&["tpu", "f32[3"]);
    let explain = err(&["explain", "f32[3"]);
    let words =
        "expected `]`, found the end of the shape (XLA: expects a list to end with kRsquare)";
    assert!(
        tpu.contains(words) && explain.contains(words),
        "{tpu}{explain}"
    );
    let line = stdout(&run(&["tpu"], "f32[3\nbf17[2]\nf32[2]{0}\n(f32[2])\n"));
    let lines: Vec<Value> = line
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // A request in plain words already: no hint repeating it.
    assert!(
        lines[2]["error"]
            .as_str()
            .unwrap()
            .contains("the shape has a layout"),
        "{line}"
    );
    assert!(
        lines[3]["error"]
            .as_str()
            .unwrap()
            .contains("for array shapes"),
        "{line}"
    );
    assert_eq!(
        (&lines[2]["hint"], &lines[3]["hint"]),
        (&Value::Null, &Value::Null),
        "{line}"
    );
    assert_eq!(
        lines[0]["error"], "'f32[3': expects a list to end with kRsquare (at byte 5)",
        "{line}"
    );
    // And the mistake in words beside them, as `check` gives it.
    assert!(lines[0]["hint"].as_str().unwrap().contains(words), "{line}");
    assert!(
        lines[1]["hint"]
            .as_str()
            .unwrap()
            .contains("unknown element type `bf17`; did you mean `bf16`?"),
        "{line}"
    );
}

/// A successful run's stdout, one JSON value a line.
fn json_lines(out: Output) -> Vec<Value> {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `tpu` reading lines and `check` take the forms the other commands
/// take: a line that is not UTF-8 is an error line (with its hint) and the next still
/// reads; `tpu(SHAPE)` is SHAPE with its TPU layout in `check` and `tpu`.
#[test]
fn tpu_and_check_take_every_form_line_by_line() {
    let lines = json_lines(run_bytes(
        &["tpu"],
        b"f32[3]\n\xff\xfe\nbf16[2]\ntpu(f32[3,5])\n",
    ));
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["shape"], "f32[3]{0:T(128)}");
    // Its error in both voices, XLA's and the hint, as `check` gives them
    // (the hint was missing).
    let checked = &json_lines(run_bytes(&["check"], b"\xff\xfe\n"))[0];
    for key in ["error", "hint"] {
        let (tpu, check) = (
            lines[1][key].as_str().unwrap(),
            checked[key].as_str().unwrap(),
        );
        assert!(tpu.ends_with(check), "{key}: {tpu} / {check}");
    }
    assert!(
        lines[1]["hint"]
            .as_str()
            .unwrap()
            .contains("0xFF, which is not UTF-8")
    );
    assert_eq!(lines[2]["bytes"], 512);
    assert_eq!(lines[3]["shape"], "f32[3,5]{1,0:T(4,128)}");
    let text = stdout(&run(&["tpu", "tpu(f32[3,5])"], ""));
    assert!(
        text.starts_with("default layout    f32[3,5]{1,0:T(4,128)}\n"),
        "{text}"
    );
    let v = check("tpu(f32[3,5])\ntpu(f32[3]{0})\n");
    assert_eq!(
        (&v[0]["ok"], &v[0]["canonical"]),
        (&json!(true), &json!("f32[3,5]{1,0:T(4,128)}"))
    );
    assert_eq!(v[0]["bytes"], 2048);
    assert_eq!(
        (&v[1]["ok"], &v[1]["stage"]),
        (&json!(false), &json!("parse"))
    );
    assert!(v[1]["error"].as_str().unwrap().contains("has a layout"));
}

/// A byte order mark before a dump, or before the first line of shapes,
/// is read past, as text tools do.
#[test]
fn every_command_reads_past_a_byte_order_mark() {
    let text = std::fs::read_to_string(DUMP).unwrap();
    let shapes = "f32[3]\nbf16[3,1000]\n";
    for (command, text) in [
        (&["scan", "-"][..], text.as_str()),
        (&["scan", "-", "--summary"], &text),
        (&["memory", "-"], &text),
        (&["check"], shapes),
        (&["tpu"], shapes),
    ] {
        let plain = run(command, text);
        let marked = run(command, &format!("\u{feff}{text}"));
        assert!(
            plain.status.success() && marked.status.success(),
            "{command:?}"
        );
        assert_eq!(plain.stdout, marked.stdout, "{command:?}");
    }
}

/// A file with no computation (empty, or a header alone) is not a module:
/// `scan` says so and exits 1, as `memory` does.
#[test]
fn scan_refuses_a_file_without_a_computation() {
    for text in ["", "HloModule m\n"] {
        for args in [&["scan", "-"][..], &["scan", "-", "--summary"]] {
            let out = run(args, text);
            assert_eq!(out.status.code(), Some(1), "{args:?} {text:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains("stdin holds no HLO computation"), "{err}");
        }
    }
}

/// An instruction written without its shape gets the shape XLA infers,
/// marked `"inferred": true`.
#[test]
fn scan_marks_inferred_shapes() {
    let text = "HloModule m\nENTRY e {\n  a = f32[2,10]{1,0} parameter(0)\n  ROOT v = abs(a)\n}\n";
    let lines: Vec<Value> = stdout(&run(&["scan", "-"], text))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        (lines[0]["shape"].as_str(), lines[0]["inferred"].as_bool()),
        (Some("f32[2,10]{1,0}"), Some(false))
    );
    assert_eq!(
        (lines[1]["shape"].as_str(), lines[1]["inferred"].as_bool()),
        (Some("f32[2,10]{1,0}"), Some(true))
    );
    assert_eq!(lines[1]["bytes"], 80);
}

/// JAX's layout form is taken wherever a shape is, and shown by explain.
#[test]
fn jax_layouts_are_taken_and_shown() {
    let jax =
        "Layout(major_to_minor=(0, 1), tiling=((8, 128), (2, 1)), sub_byte_element_size_in_bits=0)";
    let out = check(&format!(
        "bf16[16,256] {jax}\nbf16[16,256]{{1,0}} {jax}\nf32[2] Layout(tiling=None)\n"
    ));
    assert_eq!(out[0]["canonical"], "bf16[16,256]{1,0:T(8,128)(2,1)}");
    assert_eq!(out[0]["bytes"], 8192);
    assert_eq!(
        (out[1]["ok"].as_bool(), out[1]["stage"].as_str()),
        (Some(false), Some("parse"))
    );
    assert!(out[2]["error"].as_str().unwrap().contains("major_to_minor"));
    let text = stdout(&run(&["explain", "bf16[16,256]{1,0:T(8,128)(2,1)}"], ""));
    assert!(
        text.contains(&format!("JAX layout        {jax}\n")),
        "{text}"
    );
    let text = stdout(&run(
        &["explain", "--json", &format!("bf16[16,256] {jax}")],
        "",
    ));
    let v: Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(
        (v["canonical"].as_str(), v["jax_layout"].as_str()),
        (Some("bf16[16,256]{1,0:T(8,128)(2,1)}"), Some(jax))
    );
}

/// A write that fails says it was writing stdout, and exits 1 — help and
/// the version as well as a command's output.
#[test]
#[cfg(target_os = "linux")]
fn a_failed_write_names_stdout() {
    for args in [
        &["explain", "f32[100,100]"][..],
        &["--help"],
        &["--version"],
        &["explain", "--help"],
        &["help", "scan"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_xla-layout"))
            .args(args)
            .stdout(full)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with("xla-layout: writing stdout: "),
            "{args:?}: {err}"
        );
    }
    // Help and version to a reader: exit 0.
    for args in [&["--help"][..], &["--version"], &["help", "scan"]] {
        let out = run(args, "");
        assert!(out.status.success() && !out.stdout.is_empty(), "{args:?}");
    }
}

/// A byte that is not UTF-8 (a Latin-1 `é` in an `op_name`) costs
/// nothing but a note: `scan` and `memory` read it as `�`, list every
/// instruction, name the line on stderr, and exit 1 at the end; stdin that
/// cannot be read says it is stdin.
#[test]
fn bytes_that_are_not_utf8_cost_only_a_note() {
    let text = std::fs::read(DUMP).unwrap();
    let at = text.windows(9).position(|w| w == b"op_name=\"").unwrap() + 9;
    let line = text[..at].iter().filter(|&&b| b == b'\n').count() + 1;
    let latin1 = [&text[..at], b"\xe9", &text[at..]].concat();
    let out = run_bytes(&["scan", "-"], &latin1);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 44);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("stdin:{line}: bytes that are not UTF-8")),
        "{err}"
    );
    assert!(err.contains("1 line is not UTF-8 text"), "{err}");
    let out = run_bytes(&["memory", "-", "--json"], &latin1);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["module"], "jit_train_step");
    assert!(String::from_utf8_lossy(&out.stderr).contains("not UTF-8"));
}

/// `scan`'s bytes of what is not an array are XLA's `ByteSizeOf` with
/// 64-bit pointers, as the memory report counts them: a token none, an
/// opaque value a pointer, a tuple its elements' sum.
#[test]
fn scan_sizes_tokens_and_opaque_values_as_xla() {
    let text = "ENTRY e {\n t = token[] after-all()\n o = opaque[] custom-call(), custom_call_target=\"x\"\n ROOT p = (f32[2]{0}, opaque[], token[]) tuple(t, o, t)\n}\n";
    let lines = json_lines(run(&["scan", "-"], text));
    let bytes: Vec<u64> = lines.iter().map(|l| l["bytes"].as_u64().unwrap()).collect();
    assert_eq!(bytes, [0, 8, 8 + 8]);
}

/// `scan` sizes what `check` sizes, at the limits of 64 bits too (it once
/// gave `null` where the elements' bits alone passed 64 bits).
#[test]
fn scan_sizes_what_check_sizes() {
    let shapes = [
        "u8[4611686018427387904]{0}",
        "u8[9]{0:E(9223372036854775807)}",
        "(u8[4611686018427387904]{0}, u8[4611686018427387904]{0})",
    ];
    let text = format!(
        "ENTRY e {{\n a = {} parameter(0)\n b = {} parameter(1)\n ROOT c = {} parameter(2)\n}}\n",
        shapes[0], shapes[1], shapes[2]
    );
    let out = run(&["scan", "-"], &text);
    let lines: Vec<Value> = (String::from_utf8_lossy(&out.stdout).lines())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let checked = check(&format!("{}\n{}\n", shapes[0], shapes[1]));
    assert_eq!(lines[0]["bytes"], checked[0]["bytes"]);
    assert_eq!(lines[0]["bytes"], 1u64 << 62);
    // An array's size is XLA's `ByteSizeOf`, past int64 too.
    assert_eq!(lines[1]["bytes"], checked[1]["bytes"]);
    // A tuple's arrays adding up to 2^63 bytes, past int64: no size, and
    // the run fails (as `scan --summary` and `memory` do).
    assert_eq!(lines[2]["bytes"], Value::Null);
    assert_eq!(out.status.code(), Some(1));
}

/// JAX's `Format(layout=None)` (and `AUTO`) chooses no layout: the shape
/// alone, so `tpu` gives it the TPU default; a `Layout(...)` is a layout
/// written, as `{...}` is; other text after the shape is named.
#[test]
fn jax_formats_without_a_layout_read_as_the_shape_alone() {
    let out = run(&["tpu", "f32[3,5] Format(layout=None, sharding=None)"], "");
    assert!(stdout(&out).starts_with("default layout    f32[3,5]{1,0:T(4,128)}\n"));
    let out = check("f32[3,5] Format(layout=AUTO, sharding=None)\n");
    assert_eq!(out[0]["canonical"], "f32[3,5]{1,0}");
    let out = run(&["tpu", "f32[3] Layout(major_to_minor=(0,))"], "");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("the shape has a layout"), "{err}");
    let out = check("f32[3,5] Format(layout=UNKNOWN)\n");
    let hint = out[0]["hint"].as_str().unwrap();
    assert!(hint.contains("`layout=None` or `layout=AUTO`"), "{hint}");
}

/// A dynamic array's 1 KiB of sizes is part of its TPU buffer: in `bytes`,
/// said apart (`metadata_bytes`), not called padding.
#[test]
fn tpu_counts_a_dynamic_arrays_sizes() {
    let lines = json_lines(run(&["tpu"], "bf16[<=300,<=5]\nbf16[300,5]\n"));
    // 8 × 384 bf16 slots in tiles; 300 × 5 elements.
    assert_eq!(lines[0]["bytes"], 8 * 384 * 2 + 1024);
    assert_eq!(lines[0]["metadata_bytes"], 1024);
    assert_eq!(lines[0]["padding_bytes"], 8 * 384 * 2 - 3000);
    assert_eq!(lines[1]["padding_bytes"], lines[0]["padding_bytes"]);
    assert_eq!(
        (&lines[1]["bytes"], &lines[1]["metadata_bytes"]),
        (&json!(8 * 384 * 2), &json!(0))
    );
    let text = stdout(&run(&["tpu", "bf16[<=300,<=5]"], ""));
    assert!(
        text.contains("metadata bytes    1024 (the dynamic dimensions' sizes"),
        "{text}"
    );
    // The expansion is the buffer's over the data: (6144 + 1024) / 3000,
    // said to hold the metadata (it read as if the 2.39x were padding).
    assert!(
        text.contains("the buffer is 2.39x the data, metadata included)"),
        "{text}"
    );
    let text = stdout(&run(&["tpu", "bf16[300,5]"], ""));
    assert!(text.contains("the buffer is 2.05x the data)"), "{text}");
}

/// A shape argument is quoted back in messages with its control
/// characters as `�` (they would act on the terminal), and the
/// explanation names the character escaped.
#[test]
fn messages_quote_control_characters_harmlessly() {
    let out = run(&["explain", "f32[2]\u{1b}[2J"], "");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains('\u{1b}'), "{err:?}");
    assert!(
        err.starts_with("xla-layout: 'f32[2]\u{fffd}[2J': parse error: unexpected `\\u{1b}`"),
        "{err:?}"
    );
}

/// Runs `args` with stdout closed at once (as `| head -0` would) and
/// `stdin` written from another thread: the command stops writing.
fn run_closed(args: &[&str], stdin: Vec<u8>) -> Output {
    run_closing(args, stdin, false)
}

/// [`run_closed`], with stderr closed too when `stderr` (its output is
/// then empty).
fn run_closing(args: &[&str], stdin: Vec<u8>, stderr: bool) -> Output {
    let mut child = spawn(args);
    drop(child.stdout.take());
    if stderr {
        drop(child.stderr.take());
    }
    let mut input = child.stdin.take().unwrap();
    // The command stops reading when stdout closes: a broken pipe here
    // is expected.
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// A closed stdout stops a command, but what it found in what it read
/// still decides the exit status (a trial found `check --strict | head`
/// exiting 0 after an invalid first line, and `memory | head` losing its
/// warnings): 1, with the failure told, where a failure was found; 0,
/// quietly, where none was.
#[test]
fn a_closed_stdout_keeps_the_failures_found() {
    let many = |first: &str, each: &str| {
        let mut text = format!("{first}\n");
        text.push_str(&format!("{each}\n").repeat(200_000));
        text.into_bytes()
    };
    let err = |out: &Output| String::from_utf8_lossy(&out.stderr).into_owned();
    let out = run_closed(&["check", "--strict"], many("junk", "f32[2]"));
    assert_eq!(out.status.code(), Some(1), "{}", err(&out));
    assert!(
        err(&out).contains("check --strict: 1 of the ")
            && err(&out).contains("read before stdout was closed"),
        "{}",
        err(&out)
    );
    let out = run_closed(&["check", "--strict"], many("f32[2]", "f32[2]"));
    assert_eq!((out.status.code(), err(&out)), (Some(0), String::new()));
    let out = run_closed(&["tpu", "--strict"], many("f32[2]{0}", "f32[2]"));
    assert_eq!(out.status.code(), Some(1), "{}", err(&out));
    assert!(
        err(&out).contains("tpu --strict: 1 of the "),
        "{}",
        err(&out)
    );
    // A module whose second line does not read, then many instructions.
    let mut module = String::from("HloModule m\nENTRY e {\n  a = f32[2]{0} parameter(0\n");
    for k in 0..20_000 {
        module.push_str(&format!("  x{k} = f32[2]{{0}} parameter({k})\n"));
    }
    module.push_str("  ROOT r = f32[2]{0} negate(x0)\n}\n");
    let out = run_closed(&["scan", "-"], module.into_bytes());
    assert_eq!(out.status.code(), Some(1), "{}", err(&out));
    assert!(err(&out).contains("-:3:"), "{}", err(&out));
    let out = run_closed(&["memory", "-"], UNSHAPED.as_bytes().to_vec());
    assert_eq!(out.status.code(), Some(1), "{}", err(&out));
    assert!(
        err(&out).contains("tr has no shape written"),
        "{}",
        err(&out)
    );
}

/// A module whose `transpose` has no shape written (XLA infers it; this
/// reader does not) and whose root's operand is that transpose.
const UNSHAPED: &str = "HloModule m2, entry_computation_layout={(f32[8,128]{1,0})->f32[128,8]{1,0}}
ENTRY %main (p: f32[8,128]) -> f32[128,8] {
  %p = f32[8,128]{1,0} parameter(0)
  %tr = transpose(%p), dimensions={1,0}
  ROOT %r = negate(%tr)
}
";

/// A value whose shape is inferred shows it, as a written one does: in
/// `scan --summary`'s shape column and `memory`'s `Shape:` line (marked
/// inferred there), and in `memory --json` (they were empty and null).
#[test]
fn inferred_shapes_are_shown_in_reports() {
    let module = "HloModule m\nENTRY e {\n  a = f32[4,128]{1,0} parameter(0)\n  b = negate(a)\n  ROOT c = add(a, b)\n}\n";
    let out = run(&["scan", "-", "--summary"], module);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    for name in ["e/a", "e/b", "e/c"] {
        let line = text.lines().find(|l| l.contains(name)).unwrap();
        assert!(
            line.ends_with(&format!("{name}  f32[4,128]{{1,0}}")),
            "{line}"
        );
    }
    let text = String::from_utf8(run(&["memory", "-"], module).stdout).unwrap();
    assert_eq!(
        text.matches("Shape: f32[4,128]{1,0} (inferred)").count(),
        2,
        "{text}"
    );
    assert_eq!(
        text.matches("Shape: f32[4,128]{1,0}\n").count(),
        1,
        "{text}"
    );
    let json = String::from_utf8(run(&["memory", "-", "--json"], module).stdout).unwrap();
    assert!(
        !json.contains("\"shape\": null") && !json.contains("\"shape\":null"),
        "{json}"
    );
}

/// Instructions with no shape written and none inferred are told, each
/// at its line, and fail the command: their bytes are in no figure
/// (`memory` gave `output_size_in_bytes 0 … exact` with exit 0).
#[test]
fn shapes_neither_written_nor_inferred_are_told() {
    let err = |out: &Output| String::from_utf8_lossy(&out.stderr).into_owned();
    for args in [
        &["scan", "-"][..],
        &["scan", "-", "--summary"],
        &["memory", "-"],
    ] {
        let out = run(args, UNSHAPED);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", err(&out));
        for at in [
            "-:4:3: tr has no shape written, and xla-layout has no rule to infer one for \
             transpose",
            "-:5:3: r has no shape written, and xla-layout cannot infer it: an operand's shape \
             is unknown or not one negate takes",
        ] {
            assert!(err(&out).contains(at), "{args:?}: {}", err(&out));
        }
        assert!(
            err(&out).contains("2 instructions have no shape written and none inferred"),
            "{args:?}: {}",
            err(&out)
        );
    }
    // Many: the first 20 named (each quotes its line: thousands on one
    // line were quadratic output), and the count.
    let many: String = (0..30)
        .map(|k| format!("%t{k}=transpose(p),dimensions={{0}} "))
        .collect();
    let module = format!(
        "ENTRY e {{\n  p = f32[4]{{0}} parameter(0)\n  {many}\n  ROOT r = f32[4]{{0}} negate(p)\n}}\n"
    );
    for args in [
        &["scan", "-"][..],
        &["scan", "-", "--summary"],
        &["memory", "-"],
    ] {
        let out = run(args, &module);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = err(&out);
        assert_eq!(
            err.matches("has no shape written").count(),
            20,
            "{args:?}: {err}"
        );
        assert!(
            err.contains(
                "30 instructions have no shape written and none inferred: their bytes \
                          are not counted (the first 20 are named above)"
            ),
            "{args:?}: {err}"
        );
    }
    let report = String::from_utf8(run(&["memory", "-"], UNSHAPED).stdout).unwrap();
    assert!(
        report.contains("2 instructions have no shape written"),
        "{report}"
    );
    assert!(
        report.contains("output_size_in_bytes                        0        0B  estimated"),
        "{report}"
    );
}

/// Sizes that add up past int64 (each array within it) are not capped in
/// silence: `memory` marks every figure and fails, every total stopping
/// at the one limit, int64's (the peak stopped at 2^64 - 1 while "most
/// bytes live" stopped at 2^63 - 1); `scan --summary` sums in 128 bits
/// and fails as `memory` does (it exited 0).
#[test]
fn sizes_past_int64_are_not_capped_in_silence() {
    let big = "u8[4611686018427387904]{0}"; // 2^62 bytes
    let mut module = String::from("HloModule m\nENTRY e {\n");
    for k in 0..5 {
        module.push_str(&format!("  p{k} = {big} parameter({k})\n"));
    }
    module.push_str(&format!(
        "  a = {big} add(p0, p1)\n  b = {big} add(a, p2)\n"
    ));
    module.push_str(&format!("  ROOT c = {big} add(b, p3)\n}}\n"));
    let out = run(&["memory", "-"], &module);
    assert_eq!(out.status.code(), Some(1));
    let report = String::from_utf8_lossy(&out.stdout);
    let argument = report
        .lines()
        .find(|l| l.contains("argument_size_in_bytes"))
        .unwrap();
    assert!(argument.ends_with("past int64: capped"), "{argument}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(": the module's sizes add up past int64"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value =
        serde_json::from_slice(&run(&["memory", "-", "--json"], &module).stdout).unwrap();
    assert_eq!(
        json["memory_analysis_source"]["argument_size_in_bytes"],
        "past-int64"
    );
    assert_eq!(json["sizes_past_int64"], true);
    // Every total that passes the limit stops at it, the same one.
    let limit = i64::MAX as u64;
    let ma = &json["memory_analysis"];
    let space = &json["spaces"][0];
    let capped = [
        &ma["argument_size_in_bytes"],
        &ma["temp_size_in_bytes"],
        &ma["peak_memory_in_bytes"],
        &json["padding"]["buffer_bytes"],
        &space["buffer_bytes"],
        &space["arguments"],
        &space["live_peak"],
        &json["peak"]["bytes"],
    ];
    for figure in capped {
        assert_eq!(figure.as_u64(), Some(limit), "{json}");
    }
    // And none passes it.
    let totals = [
        &json["memory_analysis"],
        &json["padding"],
        &json["peak"],
        space,
    ];
    for (key, value) in totals.iter().flat_map(|o| o.as_object().unwrap()) {
        assert!(value.as_u64().is_none_or(|v| v <= limit), "{key}: {value}");
    }
    // Padding is summed buffer by buffer, not taken as the difference of
    // two capped totals (it read 0B): f32[1,2^57] in (8,128) tiles pads
    // to 8 rows, 2^62 bytes for 2^59 of elements.
    let padded = format!(
        "HloModule p\nENTRY e {{\n  a = {big} parameter(0)\n  b = {big} parameter(1)\n  \
         ROOT c = f32[1,144115188075855872]{{1,0:T(8,128)}} parameter(2)\n}}\n"
    );
    let v: Value =
        serde_json::from_slice(&run(&["memory", "-", "--json"], &padded).stdout).unwrap();
    let padding = (1u64 << 62) - (1u64 << 59);
    assert_eq!(v["padding"]["padding_bytes"], padding, "{}", v["padding"]);
    assert_eq!(v["spaces"][0]["padding_bytes"], padding);
    assert_eq!(v["peak"]["padding_bytes"], padding);
    // Only a figure at the limit is called capped.
    let report = String::from_utf8_lossy(&run(&["memory", "-"], &module).stdout).into_owned();
    let alias = report
        .lines()
        .find(|l| l.contains("alias_size_in_bytes"))
        .unwrap();
    assert!(alias.ends_with("past int64: not the compiler's"), "{alias}");
    // One tuple of three such arrays: its line's bytes past int64 are
    // null, told, and `scan` fails (it printed 13835058055282163712 and
    // exited 0; five elements, past u64, printed null in silence).
    for n in [3, 5] {
        let tuple = format!("({})", vec![big; n].join(", "));
        let text = format!("HloModule t\nENTRY e {{\n  ROOT a = {tuple} parameter(0)\n}}\n");
        let out = run(&["scan", "-"], &text);
        assert_eq!(out.status.code(), Some(1));
        let line: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(line["bytes"], Value::Null);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let sum = u128::from(n as u64) << 62;
        assert!(
            stderr.contains(&format!(
                "the arrays of a's shape add up to {sum} bytes, past int64"
            )),
            "{stderr}"
        );
    }
    // 8 values of 2^62 bytes: 2^65.
    let out = run(&["scan", "-", "--summary"], &module);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("sizes past int64"), "{stderr}");
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(
        summary.contains("\ntotal 36,893,488,147,419,103,232 bytes in 8 values"),
        "{summary}"
    );
}

/// A stdin that cannot be read (a directory) is said as such, exit 1.
#[test]
fn an_unreadable_stdin_is_named() {
    // relayout, of an array read whole and of one it would read by slabs
    // (whose first read fails the same way).
    let whole: &[&str] = &["relayout", "u8[3]", "u8[3]"];
    let slabs: &[&str] = &[
        "relayout",
        "u8[4096,4096]{1,0}",
        "u8[4096,4096]{1,0:T(8,128)}",
    ];
    for command in [&["check"][..], &["tpu"], whole, slabs] {
        let out = Command::new(env!("CARGO_BIN_EXE_xla-layout"))
            .args(command)
            .stdin(std::fs::File::open(env!("CARGO_MANIFEST_DIR")).unwrap())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{command:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with("xla-layout: cannot read stdin: "),
            "{command:?}: {err}"
        );
    }
}

/// Stderr closed too (`2>&1 | head`): the messages are lost, the exit
/// status is not (it was 0 where a message's write failed first).
#[test]
fn a_closed_stderr_keeps_the_exit_status() {
    for args in [
        &["memory", "-"][..],
        &["scan", "-", "--summary"],
        &["scan", "-"],
    ] {
        let out = run_closing(args, UNSHAPED.as_bytes().to_vec(), true);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
    }
}

/// A shape argument that is not an array is refused with the text as
/// typed and what it is instead, whichever command takes it.
#[test]
fn a_tuple_argument_is_not_an_array() {
    for args in [
        &["explain", "(f32[2], s32[])"][..],
        &["offsets", "(f32[2], s32[])"],
        &["relayout", "token[]", "f32[2]"],
    ] {
        let out = run(args, "");
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("': not an array shape (a tuple, a buffer, `token[]` or `opaque[]`)"),
            "{args:?}: {err}"
        );
    }
}

/// `scan --summary` sizes values as the backend read off the module
/// allocates them, and says so: on a TPU an untiled array takes whole
/// 4 KiB pages, where the JSON lines without --summary give its layout's
/// bytes.
#[test]
fn scan_summary_says_how_it_sizes() {
    let module = "HloModule m\nENTRY e {\n p = f32[8,128]{1,0:T(8,128)} parameter(0)\n q = f32[3]{0} parameter(1)\n ROOT t = (f32[8,128]{1,0:T(8,128)}, f32[3]{0}) tuple(p, q)\n}\n";
    let out = run(&["scan", "-", "--summary"], module);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("bytes: as a TPU allocates them"), "{text}");
    let q = text.lines().find(|l| l.contains("e/q")).unwrap();
    assert!(q.trim_start().starts_with("4,096 "), "{q}");
    let out = run(&["scan", "-"], module);
    let lines = String::from_utf8(out.stdout).unwrap();
    let q: serde_json::Value = serde_json::from_str(lines.lines().nth(1).unwrap()).unwrap();
    assert_eq!(
        (q["name"].as_str(), q["bytes"].as_u64()),
        (Some("q"), Some(12))
    );
    // Without tiles, the CPU's: the layout's bytes.
    let cpu = "HloModule m\nENTRY e {\n ROOT q = f32[3]{0} parameter(0)\n}\n";
    let out = run(&["scan", "-", "--summary"], cpu);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("bytes: as the CPU backend"), "{text}");
    let q = text.lines().find(|l| l.contains("e/q")).unwrap();
    assert!(q.trim_start().starts_with("12 "), "{q}");
}
