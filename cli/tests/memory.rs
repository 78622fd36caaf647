//! `xla-layout memory`, run as a user runs it: against jax's
//! `memory_analysis()` on every fixture, and its JSON, HTML, ordering and
//! errors.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

const DUMPS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/dumps");

fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_xla-layout"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The command may refuse its arguments before reading stdin.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

fn json(args: &[&str]) -> Value {
    let out = run(args, b"");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn manifest() -> Value {
    serde_json::from_str(&std::fs::read_to_string(format!("{DUMPS}/manifest.json")).unwrap())
        .unwrap()
}

const FIELDS: [&str; 9] = [
    "argument_size_in_bytes",
    "output_size_in_bytes",
    "alias_size_in_bytes",
    "temp_size_in_bytes",
    "host_argument_size_in_bytes",
    "host_output_size_in_bytes",
    "host_alias_size_in_bytes",
    "host_temp_size_in_bytes",
    "peak_memory_in_bytes",
];

/// Every fixture, from the module alone (with its TPU generation) and
/// with XLA's buffer assignment: each field the report does not call an
/// estimate is jax's number, and the table of all fields is printed.
#[test]
fn memory_analysis_matches_jax_on_every_fixture() {
    let manifest = manifest();
    let programs = manifest["programs"].as_object().unwrap();
    assert_eq!(programs.len(), 27);
    let mut table = String::new();
    for (name, program) in programs {
        let file = format!("{DUMPS}/{name}.hlo");
        let generation = program["topology"]
            .as_str()
            .map(|t| t.split(':').next().unwrap().to_owned());
        let mut alone = vec!["memory", file.as_str(), "--json", "--no-buffer-assignment"];
        if let Some(g) = &generation {
            alone.extend(["--tpu", g]);
        }
        let runs = [
            ("module", json(&alone)),
            ("assignment", json(&["memory", &file, "--json"])),
        ];
        for (how, report) in &runs {
            assert_eq!(report["backend"], program["backend"], "{name}");
            for field in FIELDS {
                let ours = report["memory_analysis"][field].as_u64().unwrap();
                let source = report["memory_analysis_source"][field].as_str().unwrap();
                let xla = program["memory_analysis"][field].as_u64().unwrap();
                if source != "estimated" {
                    assert_eq!(ours, xla, "{name} ({how}): {field} ({source})");
                }
                table.push_str(&format!("{name} {how} {field} {ours} {xla} {source}\n"));
            }
        }
        // With the assignment, CPU programs are exact everywhere, TPU
        // ones but for temp and peak.
        let estimated: Vec<&str> = FIELDS
            .iter()
            .copied()
            .filter(|f| runs[1].1["memory_analysis_source"][f] == "estimated")
            .collect();
        let want: &[&str] = if program["backend"] == "cpu" {
            &[]
        } else {
            &["temp_size_in_bytes", "peak_memory_in_bytes"]
        };
        assert_eq!(estimated, want, "{name}");
    }
    // `cargo test -- --nocapture` shows the table.
    println!("{table}");
}

#[test]
fn json_is_one_stable_object() {
    let file = format!("{DUMPS}/tpu_odd_shapes.hlo");
    let v = json(&["memory", &file, "--json", "--top", "5"]);
    // Shards of 4 devices (manifest: mesh 2x2), and the padding of the
    // buffers live at the peak, at most all padding.
    assert_eq!(v["partitions"], 4);
    let at_peak = v["peak"]["padding_bytes"].as_u64().unwrap();
    assert!(at_peak > 0 && at_peak <= v["padding"]["padding_bytes"].as_u64().unwrap());
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    assert_eq!(
        keys,
        [
            "module",
            "file",
            "buffer_assignment",
            "buffer_assignment_used",
            "memory_usage_report",
            "backend",
            "backend_detected",
            "tpu_generation",
            "tuple_table_unit",
            "tuple_table_source",
            "scheduled",
            "partitions",
            "entry_marked",
            "layouts_assigned",
            "entry_incomplete",
            "unknown_opcodes",
            "unread_parts",
            "unshaped_instructions",
            "misnamed_instructions",
            "spaces_disagree",
            "sizes_past_int64",
            "warnings",
            "memory_analysis",
            "memory_analysis_source",
            "padding",
            "padding_by_shape",
            "peak",
            "spaces",
            "values",
            "buffer_count",
            "sort",
            "top",
            "buffers"
        ]
    );
    let buffers = v["buffers"].as_array().unwrap();
    assert_eq!(buffers.len(), 5);
    // Largest first.
    let bytes: Vec<u64> = buffers
        .iter()
        .map(|b| b["bytes"].as_u64().unwrap())
        .collect();
    assert!(bytes.windows(2).all(|w| w[0] >= w[1]), "{bytes:?}");
    // bf16[129,500] in (8,128)(2,1): 136 × 512 × 2 bytes, and why.
    let b = &buffers[0];
    assert_eq!(b["shape"], "bf16[129,500]{1,0:T(8,128)(2,1)}");
    assert_eq!(b["bytes"], 139264);
    assert_eq!(b["data_bytes"], 129 * 500 * 2);
    assert_eq!(
        b["reasons"],
        serde_json::json!([
            "d0: 129 → 136 by T(8,128): 1.05×",
            "d1: 500 → 512 by T(8,128): 1.02×"
        ])
    );
    assert_eq!(b["role"], "argument");
    assert_eq!(b["op_name"], "b");
    assert_eq!(b["xla_allocation"]["index"], 1);
    // Every space has its totals; XLA's labels are kept.
    let hbm = &v["spaces"][0];
    assert_eq!(
        (hbm["space"].as_i64(), hbm["name"].as_str()),
        (Some(0), Some("HBM"))
    );
    assert_eq!(hbm["xla_label"], "default");
    assert_eq!(hbm["arguments"], 145920);
    assert_eq!(v["spaces"][3]["name"], "memory space 6");
    assert_eq!(v["spaces"][3]["xla_label"], "color_6");
    // Sorted by padding instead; --top 0 is every buffer, and with the
    // values that share them every value.
    let v = json(&["memory", &file, "--json", "--sort", "padding", "--top", "0"]);
    let padding: Vec<u64> = v["buffers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["padding_bytes"].as_u64().unwrap())
        .collect();
    let values: usize = (v["buffers"].as_array().unwrap().iter())
        .map(|b| 1 + b["shared_with"].as_array().unwrap().len())
        .sum();
    assert_eq!(values as u64, v["values"].as_u64().unwrap());
    assert!(padding.windows(2).all(|w| w[0] >= w[1]));
    // A source line from the stack tables.
    let located = v["buffers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| !b["source"].is_null())
        .unwrap();
    assert_eq!(located["source"]["file"], "tools/dumps/generate.py");
}

#[test]
fn text_reads_like_an_out_of_memory_report() {
    let file = format!("{DUMPS}/tpu_odd_shapes.hlo");
    let out = run(&["memory", &file, "--top", "3"], b"");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for want in [
        "argument_size_in_bytes                145,920   142.50K  XLA's buffer assignment",
        "S(0) HBM (XLA: default)",
        "S(1) VMEM (XLA: vmem)",
        "S(6) memory space 6 (XLA: color_6)",
        "Extra memory due to padding: ",
        "  1. Size: 136.00K (139,264 bytes)",
        "     Shape: bf16[129,500]{1,0:T(8,128)(2,1)}",
        "       d0: 129 → 136 by T(8,128): 1.05×",
        "     Allocation type: argument 1; XLA's allocation 1, offset 0",
        // The shape that pads most: 136 × 512 bf16 slots for 129 × 500
        // elements, 10,264 bytes each time (once in HBM, once in VMEM).
        "  by shape (the 5 of ",
        "    10.02K in 1 buffer of bf16[129,500]{1,0:T(8,128)(2,1)S(1)}: 136.00K for 125.98K of elements (1.1× expansion); it is copy-start{0} (computation main.2_spmd)\n      d0: 129 → 136 by T(8,128): 1.05×\n      d1: 500 → 512 by T(8,128): 1.02×\n",
        "Most bytes live at once, by the schedule (estimate): ",
        // 2.50K of temporaries at once in a 160.50K heap: the 16 KiB
        // offsets are said, in HBM only (VMEM's heap is its temporaries).
        "temporary heap 160.50K (each temporary starts at a multiple of 16 KiB",
        "temporary heap 161.00K\n",
    ] {
        assert!(text.contains(want), "{want}\n{text}");
    }
    assert_eq!(text.matches(". Size: ").count(), 3);
}

/// The HTML page is well-formed and holds what the JSON holds: the
/// fields, a bar per space, a bar and a row per buffer shown.
/// The page as XML (it is XHTML-clean: its DOCTYPE aside, a parser of
/// XML reads it).
fn html_doc(page: &str) -> roxmltree::Document<'_> {
    roxmltree::Document::parse_with_options(
        page,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .unwrap()
}

#[test]
fn html_is_one_self_contained_page() {
    let file = format!("{DUMPS}/tpu_train_step.hlo");
    let out = run(&["memory", &file, "--html", "-", "--top", "12"], b"");
    assert!(out.status.success());
    let page = String::from_utf8(out.stdout).unwrap();
    // Nothing is fetched: no scripts, links or external images.
    for banned in ["<script", "<link", "src=", "@import", "url(http"] {
        assert!(!page.contains(banned), "{banned}");
    }
    let doc = html_doc(&page);
    let by_id = |id: &str| {
        doc.descendants()
            .find(|n| n.attribute("id") == Some(id))
            .unwrap_or_else(|| panic!("no #{id}"))
    };
    let v = json(&["memory", &file, "--json", "--top", "12"]);
    let cards: Vec<(String, u64)> = by_id("memory-analysis")
        .children()
        .filter(|n| n.is_element())
        .map(|n| {
            (
                n.attribute("data-field").unwrap().to_owned(),
                n.attribute("data-bytes").unwrap().parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(cards.len(), 9);
    for (field, bytes) in &cards {
        assert_eq!(
            v["memory_analysis"][field].as_u64(),
            Some(*bytes),
            "{field}"
        );
    }
    let spaces = by_id("spaces")
        .descendants()
        .filter(|n| n.attribute("class") == Some("space"))
        .count();
    assert_eq!(spaces, v["spaces"].as_array().unwrap().len());
    // Each space's bar adds its arguments, outputs not donated, constants
    // and XLA's temporary heap (its buffer assignment was read), as the
    // text report does: not the report's estimate of the heap.
    let totals: Vec<u64> = by_id("spaces")
        .descendants()
        .filter(|n| n.attribute("class") == Some("space"))
        .map(|n| n.attribute("data-total").unwrap().parse().unwrap())
        .collect();
    let mut estimated_differs = false;
    for (s, total) in v["spaces"].as_array().unwrap().iter().zip(totals) {
        let n = |k: &str| s[k].as_u64().unwrap();
        let xla_heap = s["xla_allocations"]["temp"].as_u64().unwrap();
        let own = n("arguments") + n("outputs") - n("aliased") + n("constants");
        assert_eq!(total, own + xla_heap, "{s}");
        estimated_differs |= xla_heap != n("temp_heap");
    }
    assert!(estimated_differs, "the fixture tells the two heaps apart");
    let bars: Vec<u64> = by_id("buffers")
        .descendants()
        .filter(|n| n.attribute("class") == Some("buffer"))
        .map(|n| n.attribute("data-bytes").unwrap().parse().unwrap())
        .collect();
    let json_bytes: Vec<u64> = v["buffers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["bytes"].as_u64().unwrap())
        .collect();
    assert_eq!(bars, json_bytes);
    // Padding by shape: the JSON's first five, in order; all of them add
    // up to the padding.
    let shapes = v["padding_by_shape"].as_array().unwrap();
    let total: u64 = shapes
        .iter()
        .map(|p| p["padding_bytes"].as_u64().unwrap())
        .sum();
    assert_eq!(total, v["padding"]["padding_bytes"].as_u64().unwrap());
    let rows: Vec<u64> = by_id("padding-by-shape")
        .descendants()
        .filter(|n| n.attribute("class") == Some("shape-padding"))
        .map(|n| n.attribute("data-padding").unwrap().parse().unwrap())
        .collect();
    let first: Vec<u64> = (shapes.iter().take(5))
        .map(|p| p["padding_bytes"].as_u64().unwrap())
        .collect();
    assert_eq!(rows, first);
    assert!(shapes.len() > 5, "{}", shapes.len());
    let rows = by_id("buffer-table")
        .descendants()
        .filter(|n| n.attribute("class") == Some("buffer-row"))
        .count();
    assert_eq!(rows, 12);
    assert_eq!(
        by_id("padding").attribute("data-padding-bytes").unwrap(),
        v["padding"]["padding_bytes"].to_string()
    );
    assert!(by_id("timeline").is_element());
    assert_eq!(
        by_id("peak").attribute("data-bytes").unwrap(),
        v["peak"]["bytes"].to_string()
    );

    // --html FILE writes the page and still prints the text.
    let path = std::env::temp_dir().join(format!("xla-layout-memory-{}.html", std::process::id()));
    let out = run(
        &[
            "memory",
            &file,
            "--html",
            path.to_str().unwrap(),
            "--top",
            "12",
        ],
        b"",
    );
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("memory_analysis()"));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), page);
    let _ = std::fs::remove_file(path);
}

/// A module cut off in the middle of an instruction: the rest is still
/// reported, but nothing in it is called exact; each part that did not
/// read is on stderr with its line and column, and the exit status is 1.
#[test]
fn a_damaged_module_is_reported_as_an_estimate_and_fails() {
    let text = std::fs::read_to_string(format!("{DUMPS}/cpu_linalg.hlo")).unwrap();
    // Cut the last instruction line in half.
    let cut = text.trim_end().rfind('\n').unwrap();
    let line = text[..cut].rfind('\n').unwrap() + 1;
    let damaged = format!("{}{}", &text[..line], &text[line..line + (cut - line) / 2]);
    let out = run(&["memory", "-", "--json"], damaged.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["unread_parts"], 1);
    for field in FIELDS {
        assert_ne!(v["memory_analysis_source"][field], "exact", "{field}: {v}");
    }
    let err = String::from_utf8_lossy(&out.stderr);
    let line_number = text[..line].lines().count() + 1;
    assert!(err.contains(&format!("-:{line_number}:")), "{err}");
    assert!(err.contains("1 part of - could not be read"), "{err}");
    let out = run(&["memory", "-"], damaged.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    estimated_with(&out, "1 part of the module did not read");
    // A page has no stderr below it: it says the command's.
    let out = run(&["memory", "-", "--html", "-"], damaged.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let page = String::from_utf8_lossy(&out.stdout);
    assert!(
        page.contains(
            "1 part of the module did not read and is left out (on the command&#39;s stderr)"
        ),
        "{page}"
    );
    assert!(!page.contains("below, on stderr"), "{page}");
}

/// `--tpu` naming another generation than the dump's: the buffer
/// assignment's tuple tables tell, and the report says so.
#[test]
fn a_generation_the_dump_contradicts_is_warned_about() {
    let module = format!("{DUMPS}/tpu_v6e_scan.hlo");
    let text = stdout_of(&["memory", &module, "--tpu", "v5e"]);
    let warning = "warning: XLA's buffer assignment gives a 2-element tuple's index table 32 bytes, \
                   v5e gives it 512: is the dump from another TPU generation?";
    assert!(text.contains(warning), "{text}");
    // The same warning in every output.
    let v = json(&["memory", &module, "--tpu", "v5e", "--json"]);
    assert_eq!(v["warnings"][0], warning["warning: ".len()..], "{v}");
    let html = stdout_of(&["memory", &module, "--tpu", "v5e", "--html", "-"]);
    assert!(
        html.contains(&format!(
            "<p class=\"warn\">{}",
            warning.replace('\'', "&#39;")
        )),
        "{html}"
    );
    // Tables grow with the tuple (4 bytes an element): a dump of v6e with
    // tuples of 12 and 20 elements is v6e's, not another generation's.
    let many = format!("{DUMPS}/tpu_v6e_many_outputs.hlo");
    for (module, right) in [(&module, "v6e"), (&module, "v5p"), (&many, "v6e")] {
        let text = stdout_of(&["memory", module, "--tpu", right]);
        assert!(!text.contains("another TPU generation"), "{right}: {text}");
    }
    let text = stdout_of(&["memory", &many, "--tpu", "v5e"]);
    assert!(text.contains("another TPU generation"), "{text}");
}

/// A text report that warns `warning` and so calls no figure exact.
fn estimated_with(out: &Output, warning: &str) {
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains(&format!("warning: {warning}")), "{report}");
    assert!(!report.contains(" exact\n"), "{report}");
}

fn stdout_of(args: &[&str]) -> String {
    let out = run(args, b"");
    assert!(out.status.success(), "{args:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// An opcode XLA does not know is read, and the report says so: its
/// buffers may be counted wrongly.
#[test]
fn unknown_opcodes_are_named() {
    let module = b"HloModule m\nENTRY e {\n p = f32[8]{0} parameter(0)\n q = f32[8]{0} quantum-transpose(p)\n ROOT r = f32[8]{0} quantum-transpose(q)\n}\n";
    let out = run(&["memory", "-"], module);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("warning: opcodes XLA does not know: quantum-transpose (2)"),
        "{text}"
    );
    let out = run(&["memory", "-", "--json"], module);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["unknown_opcodes"],
        serde_json::json!([{"opcode": "quantum-transpose", "instructions": 2}])
    );
    // Every fixture's opcodes are XLA's.
    let v = json(&["memory", &format!("{DUMPS}/tpu_train_step.hlo"), "--json"]);
    assert_eq!(v["unknown_opcodes"], serde_json::json!([]));
}

/// XLA's allocations per space leave the reducers' thread-local scratch
/// out of their count and total, and say so; a space with nothing else
/// says only that.
#[test]
fn thread_local_scratch_is_told_apart() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("thread_local");
    std::fs::create_dir_all(&dir).unwrap();
    let module = dir.join("m.hlo");
    std::fs::write(
        &module,
        "HloModule m, entry_computation_layout={(f32[8]{0:T(256)})->f32[8]{0:T(256)}}\n\
         ENTRY e {\n p = f32[8]{0:T(256)} parameter(0)\n ROOT n = f32[8]{0:T(256)} negate(p)\n}\n",
    )
    .unwrap();
    let ba = dir.join("m.buffer-assignment.txt");
    std::fs::write(
        &ba,
        "BufferAssignment:\n\
         allocation 0: size 1024, parameter 0, shape |f32[8]| at ShapeIndex {}:\n \
         value: <1 p @0> (size=1024,offset=0): f32[8]{0:T(256)}\n\
         allocation 1: size 1024, maybe-live-out:\n \
         value: <2 n @0> (size=1024,offset=0): f32[8]{0:T(256)}\n\
         allocation 2: size 512, thread-local:\n\
         allocation 3: size 512, color 6, thread-local:\n",
    )
    .unwrap();
    let args = [
        "memory",
        module.to_str().unwrap(),
        "--buffer-assignment",
        ba.to_str().unwrap(),
        "--tpu",
        "v5e",
    ];
    let text = stdout_of(&args);
    assert!(
        text.contains("XLA's allocations: 2.00K in 2: parameters 1.00K, outputs 1.00K, constants 0B, temporary heap 0B; besides, reducers' thread-local scratch 512B"),
        "{text}"
    );
    assert!(
        text.contains("XLA's allocations: only reducers' thread-local scratch, 512B"),
        "{text}"
    );
}

/// XLA's other dump files given where the module goes: named, not read
/// as a cascade of syntax errors.
#[test]
fn another_dump_file_given_as_the_module_is_named() {
    for (file, kind) in [
        ("buffer-assignment.txt", "XLA's buffer assignment"),
        ("memory-usage-report.txt", "XLA's memory-usage report"),
    ] {
        let path = format!("{DUMPS}/tpu_matmul_2d.{file}");
        for command in ["memory", "scan"] {
            let out = run(&[command, &path], b"");
            assert_eq!(out.status.code(), Some(1), "{command} {file}");
            assert!(out.stdout.is_empty(), "{command} {file}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(err.lines().count(), 1, "{command} {file}: {err}");
            assert!(
                err.contains(&format!("is {kind}, not an HLO module")),
                "{err}"
            );
        }
    }
    // The rest of a dump directory's files, as their first lines read
    // (from a TPU dump of jax 0.10.2): not a report of zeros after a
    // cascade of syntax errors (a trial found that for two of them).
    for (text, kind) in [
        (
            "entry_computation_layout {\n  parameters {\n    element_type: S4\n    dimensions: 1000\n",
            "a protocol buffer in text form",
        ),
        (
            "xla_enable_async_collective_permute: AUTO\nxla_tpu_sdc_checker_instrument_megacore_fusion: true\n",
            "a protocol buffer in text form",
        ),
        (
            "host_executions {\n  id: 1\n  buffers {\n",
            "a protocol buffer in text form",
        ),
        (
            "num_replicas: 1\ndevice_assignment {\n",
            "a protocol buffer in text form",
        ),
        (
            "\nTotal bytes used: 229960 (224.6KiB)\n\nUsed values:\n",
            "the values of XLA's buffer assignment",
        ),
        (
            "HloLiveRange (max 13):\n  InstructionSequence:\n    0:param\n",
            "XLA's live ranges",
        ),
        (
            "--xla_all_gather_combiner_threshold_count=256\n",
            "a file of XLA's flags",
        ),
        (
            "module @jit_f attributes {mhlo.num_partitions = 1 : i32} {\n  func.func public @main() {\n",
            "StableHLO",
        ),
    ] {
        for command in ["memory", "scan"] {
            let out = run(&[command, "-"], text.as_bytes());
            assert_eq!(out.status.code(), Some(1), "{command} {text}");
            assert!(out.stdout.is_empty(), "{command} {text}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(err.lines().count(), 1, "{command} {text}: {err}");
            assert!(
                err.contains(&format!("is {kind}")) && err.contains("not an HLO module"),
                "{err}"
            );
        }
    }
}

/// A module with no ENTRY written and a part that does not read: the last
/// computation is taken, as XLA takes it, with the errors on stderr (exit
/// 1), not refused as a dump whose ENTRY was lost.
#[test]
fn no_entry_written_takes_the_last_computation_despite_errors() {
    let text = "  %a = f32[2]{0} parameter(0)\n}\ngarbage ((( here\n\
                %comp (p: f32[4]) -> f32[4] {\n  %p = f32[4]{0} parameter(0)\n  \
                ROOT %n = f32[4]{0} negate(%p)\n}\n";
    let out = run(&["memory", "-"], text.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let (stdout, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(!err.contains("the ENTRY computation did not read"), "{err}");
    assert!(
        err.contains(":1:3: an instruction outside any computation"),
        "{err}"
    );
    assert!(
        stdout.contains("no computation is marked ENTRY"),
        "{stdout}"
    );
    // The last computation's parameter and output: 16 bytes each.
    assert!(
        stdout.contains("argument_size_in_bytes                     16"),
        "{stdout}"
    );
}

/// The module XLA dumps before buffer assignment has no memory spaces
/// yet (no `S(1)`): with the buffer assignment of the compiled module,
/// which allocates VMEM, the report says so.
#[test]
fn a_module_from_before_memory_spaces_says_so() {
    let text = std::fs::read_to_string(format!("{DUMPS}/tpu_collectives_2d.hlo")).unwrap();
    let before = text.replace("S(1)", "");
    assert_ne!(before, text);
    let ba = format!("{DUMPS}/tpu_collectives_2d.buffer-assignment.txt");
    let warnings = |module: &str| {
        let out = run(
            &["memory", "-", "--json", "--buffer-assignment", &ba],
            module.as_bytes(),
        );
        assert_eq!(out.status.code(), Some(0));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["warnings"].to_string()
    };
    let said = "XLA's buffer assignment allocates 192.00K in VMEM where no value of this module is";
    assert!(warnings(&before).contains(said), "{}", warnings(&before));
    assert!(!warnings(&text).contains("where no value of this module is"));
}

/// A dump cut short before its ENTRY computation ends: an error that says
/// so, not a report of zeros; cut cleanly between computations, a warning
/// and estimates.
#[test]
fn a_dump_cut_short_says_so() {
    let text = std::fs::read(format!("{DUMPS}/tpu_odd_shapes.hlo")).unwrap();
    let out = run(&["memory", "-"], &text[..text.len() / 2]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    // No line says ENTRY in the half: the last computation, which XLA
    // would take for the entry, is the one that did not read.
    assert!(
        err.contains("no computation is marked ENTRY, and the last one"),
        "{err}"
    );
    assert!(err.contains("<stdin>:") || err.contains("-:"), "{err}");
    // Cut at a line's end inside ENTRY: no ROOT, parameters missing. Not
    // taken for a module from before optimisation.
    let entry = String::from_utf8_lossy(&text).find("\nENTRY").unwrap();
    let five = text[entry..]
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .nth(5)
        .unwrap()
        .0;
    let out = run(&["memory", "-", "--json"], &text[..entry + five + 1]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["entry_incomplete"], true);
    let warnings = v["warnings"].to_string();
    assert!(
        warnings.contains("the dump is cut short or edited"),
        "{warnings}"
    );
    assert!(!warnings.contains("before optimisation"), "{warnings}");
    // Where the text report says "below", the JSON's warnings say stderr.
    assert!(
        warnings.contains("on stderr") && !warnings.contains("below"),
        "{warnings}"
    );
    assert_eq!(
        v["memory_analysis_source"]["output_size_in_bytes"],
        "estimated"
    );
    // Cut just after a computation's closing brace, before ENTRY: the
    // last computation is taken for the entry, as XLA does, but it lacks
    // the parameters the header's entry_computation_layout lists. A
    // report, and a failure.
    let out = run(&["memory", "-"], &text[..entry + 1]);
    estimated_with(&out, "no computation is marked ENTRY");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the dump is cut short or edited"), "{err}");
    // Cut inside ENTRY's header: the ENTRY computation did not read.
    let out = run(&["memory", "-"], &text[..entry + 12]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the ENTRY computation did not read"), "{err}");
    // A module with no ENTRY and no signature in its header is XLA's:
    // the last computation is its entry, and it is all there.
    let plain =
        b"HloModule m\n\nc {\n p = f32[8]{0} parameter(0)\n ROOT n = f32[8]{0} negate(p)\n}\n";
    let out = run(&["memory", "-"], plain);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Whether a buffer assignment is whole does not depend on the backend the
/// sizes follow: with `--backend` set to any, every fixture's is used.
#[test]
fn the_buffer_assignment_is_used_whatever_the_backend() {
    for name in [
        "tpu_custom_calls",
        "tpu_donate_tuple",
        "cpu_bounded_dynamic",
    ] {
        let file = format!("{DUMPS}/{name}.hlo");
        for backend in ["cpu", "gpu", "tpu"] {
            let v = json(&["memory", &file, "--json", "--backend", backend]);
            assert_eq!(v["buffer_assignment_used"], true, "{name} {backend}");
        }
    }
}

/// A module from before optimisation (jax's `before_optimizations`
/// dump) is read, with a warning, and nothing in it is called exact.
#[test]
fn a_module_from_before_optimisation_is_only_estimated() {
    let module = format!("{DUMPS}/tpu_odd_shapes.before.hlo");
    let out = run(&["memory", &module], b"");
    assert!(out.status.success());
    estimated_with(
        &out,
        "the entry's parameters or result do not have the shapes",
    );
    let v = json(&["memory", &module, "--json"]);
    assert_eq!(v["layouts_assigned"], false);
    assert_eq!(v["entry_incomplete"], false);
    let v = json(&["memory", &format!("{DUMPS}/tpu_odd_shapes.hlo"), "--json"]);
    assert_eq!(v["layouts_assigned"], true);
}

/// A buffer assignment from another module, or a file that is not one,
/// is refused: the report would mix two programs' numbers.
#[test]
fn a_buffer_assignment_of_another_module_is_refused() {
    let module = format!("{DUMPS}/tpu_matmul_2d.hlo");
    let other = format!("{DUMPS}/tpu_odd_shapes.buffer-assignment.txt");
    let out = run(&["memory", &module, "--buffer-assignment", &other], b"");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is not the buffer assignment of"), "{err}");
    assert!(err.contains("values name nothing in the module"), "{err}");
    let out = run(&["memory", &module, "--buffer-assignment", &module], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("it holds no allocation"));
    // Its own is taken.
    let own = format!("{DUMPS}/tpu_matmul_2d.buffer-assignment.txt");
    assert!(
        run(&["memory", &module, "--buffer-assignment", &own], b"")
            .status
            .success()
    );
    // The same function compiled for another batch size (jax dumps each
    // compile beside the others): the names match, the shapes do not.
    let text = std::fs::read_to_string(&module).unwrap();
    let recompiled = text.replace("[64,", "[72,");
    assert_ne!(recompiled, text);
    // `module` with the assignment `own`: refused, and the message.
    let refused = |module: String| {
        let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("recompiled.hlo");
        std::fs::write(&path, module).unwrap();
        let out = run(
            &[
                "memory",
                path.to_str().unwrap(),
                "--buffer-assignment",
                &own,
            ],
            b"",
        );
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(err.contains("is not the buffer assignment of"), "{err}");
        err
    };
    let err = refused(recompiled);
    assert!(
        err.contains("have other shapes than the module's values"),
        "{err}"
    );
    // One value of another shape is enough: one compile gives a name one
    // shape.
    let one = text
        .replace(
            "f32[128,256]{1,0:T(8,128)} parameter(1)",
            "f32[128,384]{1,0:T(8,128)} parameter(1)",
        )
        .replacen(
            "f32[128,256]{1,0:T(8,128)})->",
            "f32[128,384]{1,0:T(8,128)})->",
            1,
        );
    assert_ne!(one, text);
    let err = refused(one);
    assert!(err.contains("1 of its values have other shapes"), "{err}");
    // Found beside the module rather than given, the message says how to
    // do without it; beside a module dumped before buffer assignment, that
    // the module after it is the one it was written for.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("found-beside");
    std::fs::create_dir_all(&dir).unwrap();
    let ba = std::fs::read(&other).unwrap();
    for (name, says) in [
        (
            "m.after_optimizations.txt",
            "--no-buffer-assignment reads the module alone",
        ),
        (
            "m.after_optimizations_before_buffer_assignment.txt",
            "read `…after_optimizations.txt` beside it",
        ),
    ] {
        std::fs::write(dir.join(name), &text).unwrap();
        std::fs::write(dir.join("m.after_optimizations-buffer-assignment.txt"), &ba).unwrap();
        let out = run(&["memory", dir.join(name).to_str().unwrap()], b"");
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("is not the buffer assignment of") && err.contains(says),
            "{err}"
        );
        std::fs::remove_file(dir.join(name)).unwrap();
    }
}

#[test]
fn dump_directories_stdin_and_errors() {
    // stdin: no files beside it, so no buffer assignment.
    let text = std::fs::read(format!("{DUMPS}/cpu_linalg.hlo")).unwrap();
    let out = run(&["memory", "-", "--json"], &text);
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["buffer_assignment"].is_null());
    assert_eq!(v["memory_analysis"]["peak_memory_in_bytes"], 4832);

    // A directory with several modules: choose one.
    let out = run(&["memory", DUMPS], b"");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("choose one with --module"), "{err}");
    assert!(err.contains("tpu_pallas.hlo"), "{err}");
    let v = json(&["memory", DUMPS, "--module", "tpu_pallas", "--json"]);
    assert_eq!(v["module"], "jit_f");
    assert!(
        v["buffer_assignment"]
            .as_str()
            .unwrap()
            .ends_with("tpu_pallas.buffer-assignment.txt")
    );
    let out = run(&["memory", DUMPS, "--module", "nothing-like-this"], b"");
    assert_eq!(out.status.code(), Some(1));

    // Usage errors: exit 2.
    for args in [
        &["memory", "x.hlo", "--json", "--html", "-"][..],
        &["memory", "x.hlo", "--sort", "size"],
        &["memory", "x.hlo", "--tpu", "v9"],
        &["memory", "x.hlo", "--backend", "npu"],
        &["memory", "x.hlo", "--top", "-1"],
        &[
            "memory",
            "x.hlo",
            "--buffer-assignment",
            "a",
            "--no-buffer-assignment",
        ],
        &["memory"],
    ] {
        let out = run(args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
    // `--module` with a file, not a directory, to pick from.
    let file = format!("{DUMPS}/tpu_odd_shapes.hlo");
    let out = run(&["memory", &file, "--module", "odd"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--module picks among"));
    // Failures: exit 1 with a message.
    for (args, stdin, message) in [
        (
            &["memory", "no/such.hlo"][..],
            &b""[..],
            "cannot read no/such.hlo",
        ),
        (&["memory", "-"], b"\xff\xfe", "not UTF-8"),
        (&["memory", "-"], b"just words", "-:1:6: expected '{'"),
        (&["memory", "-"], b"", "holds no HLO computation"),
        (
            &["memory", "-", "--buffer-assignment", "no/such.txt"],
            b"ENTRY e {\n ROOT p = f32[] parameter(0)\n}",
            "cannot read no/such.txt",
        ),
    ] {
        let out = run(args, stdin);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{err}");
    }
}

/// A buffer assignment whose tuple tables no known generation sizes so
/// (a generation not measured here): said once, tuple tables estimated,
/// and no claim that another known generation made the dump.
#[test]
fn tuple_tables_of_no_known_generation_are_estimated() {
    let dir = std::env::temp_dir().join(format!("xla-layout-tuples-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let module = dir.join("m.hlo");
    std::fs::write(
        &module,
        "HloModule m, entry_computation_layout={((f32[8]{0:T(256)}))->(f32[8]{0:T(256)})}\n\
         ENTRY e {\n ROOT t = (f32[8]{0:T(256)}) parameter(0)\n}\n",
    )
    .unwrap();
    let ba = dir.join("m.buffer-assignment.txt");
    std::fs::write(
        &ba,
        "allocation 0: size 48, parameter 0:\n value: <1 t{} @0> (size=48,offset=0): (f32[8]{0:T(256)})\n\
         allocation 1: size 1024, parameter 0:\n value: <2 t{0} @0> (size=1024,offset=0): f32[8]{0:T(256)}\n",
    )
    .unwrap();
    let (m, b) = (module.to_str().unwrap(), ba.to_str().unwrap());
    for generation in [None, Some("v5e")] {
        let mut args = vec!["memory", m, "--backend", "tpu", "--buffer-assignment", b];
        args.extend(generation.iter().flat_map(|g| ["--tpu", g]));
        let text = stdout_of(&args);
        assert!(
            text.contains(
                "gives a 1-element tuple's index table 48 bytes, which no known TPU generation does"
            ),
            "{text}"
        );
        assert!(!text.contains("another TPU generation"), "{text}");
        args.push("--json");
        let v = json(&args);
        assert_eq!(v["tuple_table_source"], "estimated", "{v}");
        // The figures XLA's allocations give stay XLA's: 1024 + its 48.
        assert_eq!(v["memory_analysis"]["argument_size_in_bytes"], 1072, "{v}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A buffer assignment that is not all of XLA's account — cut inside a
/// line, a line that does not read, cut at a line's end so that an
/// argument has no allocation, an output's allocation deleted, a value
/// past the end of its allocation — is not used: a part of it would pass for
/// XLA's whole (a truncated file gave arguments of 0 bytes as "XLA's
/// buffer assignment"). The report comes from the module alone, with jax's
/// argument and output figures, warns, names the lines on stderr, and the
/// exit status is 1.
#[test]
fn a_damaged_buffer_assignment_is_not_used() {
    let module = format!("{DUMPS}/tpu_odd_shapes.hlo");
    let whole =
        std::fs::read_to_string(format!("{DUMPS}/tpu_odd_shapes.buffer-assignment.txt")).unwrap();
    let manifest = manifest();
    let program = &manifest["programs"]["tpu_odd_shapes"];
    let with = |name: &str, text: &str| {
        let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
        std::fs::write(&path, text).unwrap();
        let path = path.to_str().unwrap().to_string();
        let out = run(
            &["memory", &module, "--buffer-assignment", &path, "--json"],
            b"",
        );
        assert_eq!(out.status.code(), Some(1), "{name}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["buffer_assignment_used"], false, "{name}");
        for field in ["argument_size_in_bytes", "output_size_in_bytes"] {
            assert_eq!(
                v["memory_analysis"][field], program["memory_analysis"][field],
                "{name} {field}"
            );
            assert_ne!(v["memory_analysis_source"][field], "buffer-assignment");
        }
        let warnings = v["warnings"].to_string();
        assert!(
            warnings.contains("buffer assignment is not used"),
            "{warnings}"
        );
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(
            err.contains("is not all of XLA's buffer assignment"),
            "{err}"
        );
        (path, err)
    };
    let (path, err) = with("ba_cut.txt", &whole[..100]);
    assert!(
        err.contains(&format!("{path}: ends inside a line")),
        "{err}"
    );
    let bad = whole.replacen("allocation 1: size 139264,", "allocation 1: size abc,", 1);
    assert_ne!(bad, whole);
    let (path, err) = with("ba_bad.txt", &bad);
    assert!(
        err.contains(&format!("{path}:4: not an allocation or value")),
        "{err}"
    );
    let huge = whole.replacen("size 139264,", "size 18446744073709551615,", 1);
    with("ba_huge.txt", &huge);
    // Cut after a line: the last allocations, arguments among them, gone.
    let at = whole.find("allocation 1:").unwrap();
    let (_, err) = with("ba_lines.txt", &whole[..at]);
    assert!(err.contains("no allocation for"), "{err}");
    // An output's allocation deleted, every line whole: it passed as
    // XLA's account, with an output of fewer bytes.
    let output = "allocation 15: size 8192, page 0, maybe-live-out:\n value: <79 copy-start.1{0} @0> (size=8192,offset=0): f32[3,500]{1,0:T(4,128)}\n";
    assert!(whole.contains(output));
    let (_, err) = with("ba_no_output.txt", &whole.replacen(output, "", 1));
    assert!(
        err.contains("no allocation for 1 of the entry's output arrays"),
        "{err}"
    );
    // An allocation's size edited below its value's.
    let small = whole.replacen("allocation 15: size 8192,", "allocation 15: size 8000,", 1);
    assert_ne!(small, whole);
    let (_, err) = with("ba_small.txt", &small);
    assert!(err.contains("a value of allocation 15 runs past"), "{err}");
    // The whole one is used, and agrees.
    let v = json(&["memory", &module, "--json"]);
    assert_eq!(v["buffer_assignment_used"], true);
    assert_eq!(
        v["memory_analysis_source"]["argument_size_in_bytes"],
        "buffer-assignment"
    );
}

/// Sizes past u64 in the HTML page: the padding shares saturate (in a
/// debug build the sum panicked; in release it wrapped and showed 451%).
/// The run fails (sizes past int64 are warned about) but the page is
/// whole and no share passes 100%.
#[test]
fn html_shares_of_huge_sizes_do_not_wrap() {
    let mut text = String::from("HloModule huge\n\nENTRY e {\n");
    for k in 0..4 {
        text.push_str(&format!(
            " p{k} = pred[4611686018427387000]{{0:T(1024)}} parameter({k})\n"
        ));
    }
    text.push_str(
        " e = pred[24]{0:T(1024)} parameter(4)\n ROOT n = pred[24]{0:T(1024)} negate(e)\n}\n",
    );
    let out = run(&["memory", "-", "--html", "-"], text.as_bytes());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.ends_with("</html>\n"), "the page is whole");
    let shares: Vec<f64> = page
        .split("% padding</title>")
        .filter_map(|before| before.rsplit(", ").next()?.parse().ok())
        .collect();
    assert!(!shares.is_empty());
    assert!(
        shares.iter().all(|&p| (0.0..=100.0).contains(&p)),
        "{shares:?}"
    );
}

/// `--html` naming the dump or a file read beside it is refused (exit 2)
/// before anything is written: the page replaced the dump.
#[test]
fn html_never_overwrites_an_input() {
    let dir = std::env::temp_dir().join(format!("xla-layout-html-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let module = dir.join("m.hlo");
    let assignment = dir.join("m.buffer-assignment.txt");
    let text = "HloModule m\n\nENTRY e {\n ROOT p = f32[4]{0} parameter(0)\n}\n";
    std::fs::write(&module, text).unwrap();
    std::fs::write(&assignment, "BufferAssignment:\n").unwrap();
    let m = module.to_str().unwrap();
    for (target, named) in [
        (m.to_string(), "m.hlo"),
        (
            assignment.to_str().unwrap().into(),
            "m.buffer-assignment.txt",
        ),
    ] {
        let out = run(&["memory", m, "--html", &target], b"");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("would overwrite the input") && stderr.contains(named),
            "{stderr}"
        );
    }
    assert_eq!(std::fs::read_to_string(&module).unwrap(), text);
    assert_eq!(
        std::fs::read_to_string(&assignment).unwrap(),
        "BufferAssignment:\n"
    );
    // Another file is written (the empty assignment, no module's, aside).
    std::fs::remove_file(&assignment).unwrap();
    let page = dir.join("page.html");
    let out = run(&["memory", m, "--html", page.to_str().unwrap()], b"");
    assert!(
        std::fs::read_to_string(&page)
            .unwrap()
            .starts_with("<!DOCTYPE html>"),
        "{out:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A module XLA's parser refuses for its names (a name used twice in a
/// computation, an operand that names nothing) is read, each such
/// instruction told at its line, the figures marked as estimates, and the
/// command fails (it exited 0 with "exact" figures). The streaming `scan`
/// finds the same (it exited 0); an operand may name a later instruction.
#[test]
fn names_xla_refuses_are_told() {
    let text = "HloModule dup\n\nENTRY e {\n p = f32[4]{0} parameter(0)\n p = f32[4]{0} parameter(0)\n \
                a = f32[4]{0} negate(p)\n ROOT b = f32[4]{0} add(a, missing)\n}\n";
    for args in [
        &["memory", "-"][..],
        &["scan", "-", "--summary"],
        &["scan", "-"],
    ] {
        let out = run(args, text.as_bytes());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("-:5:2: p is the name of an earlier instruction"),
            "{stderr}"
        );
        assert!(
            // At the name (it underlined the whole instruction).
            stderr.contains("-:7:28: operand missing of b names no instruction"),
            "{stderr}"
        );
        assert!(
            stderr.contains("2 instructions name operands or computations that do not exist"),
            "{stderr}"
        );
    }
    let out = run(&["memory", "-", "--json"], text.as_bytes());
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["misnamed_instructions"], 2);
    // The streaming scan lists every instruction all the same.
    let out = run(&["scan", "-"], text.as_bytes());
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 4);
    // An operand that names a later instruction, and one name in two
    // computations, are what XLA reads.
    let later = "HloModule ok\n\nf {\n x = f32[4]{0} parameter(0)\n ROOT n = f32[4]{0} negate(y)\n \
                 y = f32[4]{0} negate(x)\n}\n\nENTRY e {\n x = f32[4]{0} parameter(0)\n \
                 ROOT c = f32[4]{0} call(x), to_apply=f\n}\n";
    for args in [
        &["memory", "-"][..],
        &["scan", "-", "--summary"],
        &["scan", "-"],
    ] {
        let out = run(args, later.as_bytes());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {stderr}");
    }
    // A call, a loop and a conditional through computations the module
    // does not have (XLA: "computation does not exist"). The call and
    // the conditional hold no callee's values: each is taken to define
    // its own output, which is counted (the figures said "output 16
    // exact" beside "outputs 0B" in the space's line, and exited 0).
    let missing = "HloModule m\n\nf {\n x = f32[4]{0} parameter(0)\n ROOT n = f32[4]{0} negate(x)\n}\n\n\
                   ENTRY e {\n p = f32[4]{0} parameter(0)\n i = s32[] parameter(1)\n \
                   w = f32[4]{0} while(p), condition=f, body=%nobody\n \
                   k = f32[4]{0} conditional(i, w, p), branch_computations={f, elsewhere}\n \
                   ROOT c = f32[4]{0} call(k), to_apply=nothere\n}\n";
    for args in [&["memory", "-"][..], &["scan", "-"]] {
        let out = run(args, missing.as_bytes());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        for told in [
            "-:11:45: w calls nobody, which names no computation written before its own \
             (XLA's parser refuses the module: computation does not exist)",
            "-:12:62: k calls elsewhere, which names no computation written before",
            "-:13:39: c calls nothere, which names no computation written before",
            "3 instructions name operands or computations that do not exist",
        ] {
            assert!(stderr.contains(told), "{args:?}: {told}: {stderr}");
        }
    }
    // What jaxlib 0.10.2's parser refuses besides (its words in the
    // messages): a callee written after its caller, a computation calling
    // itself ("computation does not exist"), a computation's name used
    // twice ("computation already exists"). The first holder of a name
    // is called.
    let refused = [
        (
            "ENTRY e {\n p = f32[4]{0} parameter(0)\n ROOT c = f32[4]{0} call(p), to_apply=g\n}\n\n\
             g {\n ROOT x = f32[4]{0} parameter(0)\n}\n",
            "-:3:39: c calls g, which names no computation written before its own",
        ),
        (
            "ENTRY e {\n p = f32[4]{0} parameter(0)\n ROOT c = f32[4]{0} call(p), to_apply=e\n}\n",
            "-:3:39: c calls e, which names no computation written before its own",
        ),
        (
            "a {\n ROOT x = f32[4]{0} parameter(0)\n}\n\na {\n ROOT y = f32[8]{0} parameter(0)\n}\n\n\
             ENTRY e {\n p = f32[4]{0} parameter(0)\n ROOT c = f32[4]{0} call(p), to_apply=a\n}\n",
            // At the name in the second header, as XLA's parser points.
            "-:5:1: computation a has the name of an earlier computation (XLA's \
             parser refuses the module: computation already exists)",
        ),
    ];
    // With the call's shape left out, nothing is inferred for it, and
    // the message says why (it blamed the operands).
    let later_unshaped = "ENTRY e {\n p = f32[4]{0} parameter(0)\n ROOT c = call(p), to_apply=g\n}\n\n\
         g {\n ROOT x = f32[4]{0} parameter(0)\n}\n";
    let out = run(&["scan", "-"], later_unshaped.as_bytes());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("c has no shape written, and xla-layout cannot infer it: its callee is not written before it"),
        "{stderr}"
    );
    for (text, told) in refused {
        for args in [
            &["memory", "-"][..],
            &["scan", "-"],
            &["scan", "-", "--summary"],
        ] {
            let out = run(args, text.as_bytes());
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
            assert!(stderr.contains(told), "{args:?}: {told}: {stderr}");
        }
    }
    let out = run(&["memory", "-", "--json"], missing.as_bytes());
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["misnamed_instructions"], 3);
    let space = &json["spaces"][0];
    assert_eq!(json["memory_analysis"]["output_size_in_bytes"], 16);
    assert_eq!(space["outputs"], 16, "{space}");
    assert_eq!(
        json["memory_analysis_source"]["output_size_in_bytes"],
        "estimated"
    );
    // A line that does not read takes its name with it: its users are
    // not told as naming nothing (one error, not one per user).
    let cut = "ENTRY e {\n p = f32[4]{0} parameter(0)\n a = f32[4]{0 negate(p)\n \
               b = f32[4]{0} negate(a)\n ROOT c = f32[4]{0} add(a, b)\n}\n";
    let out = run(&["scan", "-"], cut.as_bytes());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("names no instruction"), "{stderr}");
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let out = run(&["memory", "-", "--json"], cut.as_bytes());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("names no instruction"), "{stderr}");
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (
            json["misnamed_instructions"].clone(),
            json["unread_parts"].clone()
        ),
        (0.into(), 1.into())
    );
    assert_eq!(
        json["memory_analysis_source"]["argument_size_in_bytes"],
        "estimated"
    );
}

/// The module XLA dumps just before buffer assignment
/// (`…after_optimizations_before_buffer_assignment.txt`) reads with the
/// assignment written for `…after_optimizations.txt` beside it (it was
/// read alone: estimates labelled as if nothing were missing).
#[test]
fn the_module_before_buffer_assignment_finds_its_assignment() {
    let dir = std::env::temp_dir().join(format!("xla-layout-before-ba-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let stem = "module_0001.jit_step.tpu_after_optimizations";
    let module = dir.join(format!("{stem}_before_buffer_assignment.txt"));
    std::fs::copy(format!("{DUMPS}/tpu_donate_tuple.hlo"), &module).unwrap();
    std::fs::copy(
        format!("{DUMPS}/tpu_donate_tuple.buffer-assignment.txt"),
        dir.join(format!("{stem}-buffer-assignment.txt")),
    )
    .unwrap();
    let report = json(&["memory", module.to_str().unwrap(), "--json"]);
    assert_eq!(
        report["buffer_assignment_used"], true,
        "{}",
        report["buffer_assignment"]
    );
    assert!(
        report["buffer_assignment"]
            .as_str()
            .unwrap()
            .ends_with(&format!("{stem}-buffer-assignment.txt"))
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// In a jax dump directory the TPU generation comes from the module's
/// `topology.textproto` when `--tpu` names none (it was assumed, and the
/// outputs' tuple tables estimated); `--tpu` still wins.
#[test]
fn the_generation_comes_from_the_dumps_topology() {
    let dir = std::env::temp_dir().join(format!("xla-layout-topology-{}", std::process::id()));
    let stem = "module_0000.jit_step.cl_1";
    std::fs::create_dir_all(dir.join(stem)).unwrap();
    let module = dir.join(format!("{stem}.after_optimizations.txt"));
    std::fs::copy(format!("{DUMPS}/tpu_v6e_many_outputs.hlo"), &module).unwrap();
    // As jax 0.10.2 writes it for a v6e topology (the newline escaped).
    std::fs::write(
        dir.join(stem).join("topology.textproto"),
        "platform_version: \"TFRT TPU v6 lite\\nBuilt on Nov 5 2026\"\n",
    )
    .unwrap();
    let m = module.to_str().unwrap();
    let report = json(&["memory", m, "--json"]);
    assert_eq!(report["tpu_generation"], "v6e");
    assert_eq!(
        report["memory_analysis_source"]["output_size_in_bytes"],
        "exact"
    );
    let given = json(&["memory", m, "--json", "--tpu", "v5e"]);
    assert_eq!(given["tpu_generation"], "v5e");
    // A --tpu the topology contradicts is used, said, and its tuple
    // tables estimated (it was marked exact, and 128 bytes off jax's).
    for (tpu, says, source) in [
        ("v5e", "contradicts", "estimated"),
        ("v5p", "both size tuple tables alike", "exact"),
    ] {
        let out = run(
            &[
                "memory",
                m,
                "--json",
                "--tpu",
                tpu,
                "--no-buffer-assignment",
            ],
            b"",
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let warnings = v["warnings"].to_string();
        assert!(warnings.contains(says), "{tpu}: {warnings}");
        assert!(
            warnings.contains(&format!("--tpu {tpu} contradicts")),
            "{warnings}"
        );
        assert_eq!(
            v["memory_analysis_source"]["output_size_in_bytes"], source,
            "{tpu}"
        );
    }
    let jax =
        manifest()["programs"]["tpu_v6e_many_outputs"]["memory_analysis"]["output_size_in_bytes"]
            .clone();
    assert_eq!(report["memory_analysis"]["output_size_in_bytes"], jax);
    let text = run(&["memory", dir.to_str().unwrap()], b"");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("from the dump's topology.textproto"),
        "{text}"
    );
    // The TPU's module after codegen takes the optimized module's
    // topology and buffer assignment (it read neither: a trial).
    let codegen = dir.join(format!("{stem}.after_codegen.txt"));
    std::fs::copy(&module, &codegen).unwrap();
    std::fs::copy(
        format!("{DUMPS}/tpu_v6e_many_outputs.buffer-assignment.txt"),
        dir.join(format!("{stem}.after_optimizations-buffer-assignment.txt")),
    )
    .unwrap();
    let v = json(&["memory", codegen.to_str().unwrap(), "--json"]);
    assert_eq!(v["tpu_generation"], "v6e");
    assert_eq!(v["buffer_assignment_used"], true);
    assert_eq!(
        v["memory_analysis_source"]["temp_size_in_bytes"],
        json(&["memory", m, "--json"])["memory_analysis_source"]["temp_size_in_bytes"]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// On every fixture, each space's bar says the padding it hatches, never
/// more than the bar (it printed the buffers' padding: 404.50K beside a
/// 160.50K VMEM heap on tpu_custom_calls); where no temporary heap is in
/// the bar, that is the buffers' padding exactly.
#[test]
fn html_space_bars_say_the_padding_they_draw() {
    let programs = manifest();
    let mut heaps = 0;
    for name in programs["programs"].as_object().unwrap().keys() {
        let file = format!("{DUMPS}/{name}.hlo");
        let out = run(&["memory", &file, "--html", "-"], b"");
        assert!(out.status.success(), "{name}");
        let page = String::from_utf8(out.stdout).unwrap();
        let doc = html_doc(&page);
        let v = json(&["memory", &file, "--json"]);
        let bars = doc
            .descendants()
            .filter(|n| n.attribute("class") == Some("space"));
        for (bar, s) in bars.zip(v["spaces"].as_array().unwrap()) {
            let n = |k: &str| bar.attribute(k).unwrap().parse::<u64>().unwrap();
            let (total, padding) = (n("data-total"), n("data-padding"));
            assert!(padding <= total, "{name}: {s}");
            // Never more than its buffers' own padding (a heap larger than
            // its buffers drew more, in a trial's dump).
            assert!(
                padding <= s["padding_bytes"].as_u64().unwrap(),
                "{name}: {s}"
            );
            let label = bar.descendants().rfind(|t| t.is_text()).unwrap();
            assert!(label.text().unwrap().contains(" · padding "), "{name}");
            if s["xla_allocations"]["temp"] == 0 {
                assert_eq!(padding, s["padding_bytes"].as_u64().unwrap(), "{name}: {s}");
            } else {
                heaps += 1;
            }
        }
    }
    assert!(heaps > 20, "{heaps}");
}

/// `--buffer-assignment -` reads the assignment from stdin (it read
/// nothing and called it another module's); the dump and the assignment
/// cannot both be stdin.
#[test]
fn the_buffer_assignment_reads_from_stdin() {
    let file = format!("{DUMPS}/tpu_odd_shapes.hlo");
    let ba = std::fs::read(format!("{DUMPS}/tpu_odd_shapes.buffer-assignment.txt")).unwrap();
    let out = run(
        &["memory", &file, "--json", "--buffer-assignment", "-"],
        &ba,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["buffer_assignment_used"], true);
    let beside = json(&["memory", &file, "--json"]);
    assert_eq!(v["memory_analysis"], beside["memory_analysis"]);
    let both = run(&["memory", "-", "--buffer-assignment", "-"], &ba);
    assert_eq!(both.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&both.stderr).contains("cannot both be - (stdin)"));
}

/// Each buffer is listed once, counted as the totals count it, with the
/// values that share it named under it (a parameter, its in-place update
/// and its prefetch are one buffer, not three arrays): the entries hold
/// every value once, and each space's entries add up to its totals.
#[test]
fn each_buffer_is_listed_once_with_the_values_that_share_it() {
    let mut shared_told = 0;
    // The last two have reducers' constants: buffers of their own.
    for name in [
        "tpu_donate_tuple",
        "tpu_train_step",
        "cpu_collectives_8dev",
        "tpu_custom_calls",
        "cpu_linalg",
    ] {
        let file = format!("{DUMPS}/{name}.hlo");
        let v = json(&["memory", &file, "--json", "--top", "0"]);
        let listed = v["buffers"].as_array().unwrap();
        // One count of buffers everywhere: the list's, the spaces', the
        // header's.
        assert_eq!(
            listed.len() as u64,
            v["buffer_count"].as_u64().unwrap(),
            "{name}"
        );
        let in_spaces: u64 = (v["spaces"].as_array().unwrap().iter())
            .map(|s| s["buffers"].as_u64().unwrap())
            .sum();
        assert_eq!(in_spaces, v["buffer_count"].as_u64().unwrap(), "{name}");
        // No buffer twice.
        let mut ids: Vec<u64> = listed.iter().filter_map(|b| b["buffer"].as_u64()).collect();
        let n = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), n, "{name}");
        // Every value once.
        let shared = |b: &Value| b["shared_with"].as_array().unwrap().clone();
        let values: usize = listed.iter().map(|b| 1 + shared(b).len()).sum();
        assert_eq!(values as u64, v["values"].as_u64().unwrap(), "{name}");
        // Each space's entries are its buffers and bytes.
        for s in v["spaces"].as_array().unwrap() {
            let here: Vec<&Value> = listed.iter().filter(|b| b["space"] == s["space"]).collect();
            assert_eq!(
                here.len() as u64,
                s["buffers"].as_u64().unwrap(),
                "{name} {s}"
            );
            let bytes: u64 = here.iter().map(|b| b["bytes"].as_u64().unwrap()).sum();
            assert_eq!(bytes, s["buffer_bytes"].as_u64().unwrap(), "{name} {s}");
        }
        // The text names the same values under each entry.
        let text = stdout_of(&["memory", &file, "--top", "0"]);
        let header = format!("{} values in {} buffers", v["values"], v["buffer_count"]);
        assert!(
            text.lines().next().unwrap().ends_with(&header),
            "{name}: {header}"
        );
        // Entries are separated by a blank line.
        let entries: Vec<&str> = text
            .split("\n\n")
            .filter(|e| e.contains(". Size: "))
            .collect();
        assert_eq!(entries.len(), listed.len(), "{name}");
        for (entry, b) in entries.iter().zip(listed) {
            let others = shared(b);
            if others.is_empty() {
                assert!(!entry.contains("Same buffer"), "{name}: {entry}");
                continue;
            }
            let count = match others.len() {
                1 => "1 other value".to_string(),
                k => format!("{k} other values"),
            };
            assert!(
                entry.contains(&format!("Same buffer, no more memory: {count}\n")),
                "{name}: {entry}"
            );
            for o in others.iter().take(8) {
                let named = format!(
                    "       {} = {}  ",
                    o["name"].as_str().unwrap(),
                    o["opcode"].as_str().unwrap()
                );
                assert!(entry.contains(&named), "{name}: {named}\n{entry}");
            }
            shared_told += others.len();
        }
    }
    assert!(shared_told > 10, "{shared_told}");
}

/// A buffer whose positions are written in different memory spaces (a
/// loop's state in S(0), its body's new value in S(1): the hand-written
/// example's `w.5`; a tuple element forwarding an S(1) value as S(0)) is
/// told, at the position that disagrees, with the space the buffer is
/// counted in; every module XLA wrote (the fixtures, host offload and
/// memory-space assignment among them) keeps each buffer in one space.
#[test]
fn a_buffer_in_two_memory_spaces_is_told() {
    let example = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/dumps/train_step.tpu.hlo"
    );
    let out = run(&["memory", example], b"");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            ":51:3: w.5 (S(1)) is one buffer with Arg_1.2 (S(0)): XLA keeps a buffer in one \
             memory space, so the module's shapes disagree; it is counted in S(0)"
        ),
        "{stderr}"
    );
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains("warning: 2 buffers are written in different memory spaces"),
        "{report}"
    );
    let v = json(&["memory", example, "--json"]);
    // And a position that only forwards a value: the entry's root tuple
    // writes activations.vmem's S(1) array as S(0).
    assert_eq!(
        v["spaces_disagree"],
        json!([["Arg_1.2", "w.5"], ["activations.vmem", "tuple.11{0}"]])
    );
    // The JSON's warning says where the details are, not "below".
    let said = (v["warnings"].as_array().unwrap().iter())
        .map(|w| w.as_str().unwrap())
        .find(|w| w.contains("different memory spaces"))
        .unwrap();
    assert!(
        said.contains("(on stderr)") && !said.contains("below"),
        "{said}"
    );
    // A loop's state written S(1) only in the body's root tuple.
    let root_only = "b {\n s = (s32[], f32[1024]{0}) parameter(0)\n \
                     i = s32[] get-tuple-element(s), index=0\n \
                     v = f32[1024]{0} get-tuple-element(s), index=1\n m = f32[1024]{0} negate(v)\n \
                     ROOT t = (s32[], f32[1024]{0:S(1)}) tuple(i, m)\n}\n\n\
                     c {\n s = (s32[], f32[1024]{0}) parameter(0)\n ROOT x = pred[] constant(true)\n}\n\n\
                     ENTRY e {\n p = (s32[], f32[1024]{0}) parameter(0)\n \
                     ROOT w = (s32[], f32[1024]{0}) while(p), condition=c, body=b\n}\n";
    let out = run(&["memory", "-"], root_only.as_bytes());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("-:6:2: t{1} (S(1)) is one buffer with p{1} (S(0))"),
        "{stderr}"
    );
    let mut checked = 0;
    for entry in std::fs::read_dir(DUMPS).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "hlo") {
            let out = run(&["memory", path.to_str().unwrap(), "--json"], b"");
            let v: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(v["spaces_disagree"], json!([]), "{}", path.display());
            checked += 1;
        }
    }
    assert!(checked >= 30, "{checked}");
}

/// A second `ENTRY` is XLA's parse error ("expects only one ENTRY"): it is
/// told with its line, and when the buffer assignment beside the module
/// then does not fit, the refusal says the module is what lost values.
#[test]
fn a_second_entry_is_told_where_the_assignment_is_refused() {
    let text = std::fs::read_to_string(format!("{DUMPS}/tpu_remat_while.hlo")).unwrap();
    let edited = text.replacen(
        "\n%wide.region_1.0_spmd ",
        "\nENTRY %wide.region_1.0_spmd ",
        1,
    );
    assert_ne!(edited, text);
    // The line of the second ENTRY: the newlines before it, plus one.
    let at = edited.find("\nENTRY %main.0_spmd").unwrap() + 1;
    let line = edited[..at].matches('\n').count() + 1;
    let assignment = format!("{DUMPS}/tpu_remat_while.buffer-assignment.txt");
    let out = run(
        &["memory", "-", "--buffer-assignment", &assignment],
        edited.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is not the buffer assignment of"), "{err}");
    assert!(
        err.contains(&format!(
            "but 1 part of the module did not read, and what it holds is missing from it (the first at -:{line}:1: a module has at most one ENTRY computation)"
        )) || err.contains(&format!(
            "but 1 part of the module did not read, and what it holds is missing from it (the first at <stdin>:{line}:1: a module has at most one ENTRY computation)"
        )),
        "{err}"
    );
}

/// A file beside the module with the buffer assignment's name that is
/// not a file (a directory) is an error to read, not ignored.
#[test]
fn a_directory_where_the_buffer_assignment_belongs_is_an_error() {
    let dir = std::env::temp_dir().join(format!("xla-layout-sibling-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("tpu_remat_while.buffer-assignment.txt")).unwrap();
    let module = dir.join("tpu_remat_while.hlo");
    std::fs::copy(format!("{DUMPS}/tpu_remat_while.hlo"), &module).unwrap();
    let out = run(&["memory", module.to_str().unwrap()], b"");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    // Read alone, it is reported.
    let alone = run(
        &["memory", module.to_str().unwrap(), "--no-buffer-assignment"],
        b"",
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        err.contains("tpu_remat_while.buffer-assignment.txt"),
        "{err}"
    );
    assert!(alone.status.success());
}

/// The page's buffer bars keep both ends of a long name (fusions differ by
/// their number at the end: a trial saw two bars read alike), with the
/// whole name as the label's title; a buffer with no metadata says so in
/// the table; the peak's label sits above the plot, clear of its area.
#[test]
fn html_labels_tell_long_names_apart() {
    let text = "HloModule m, is_scheduled=true\nENTRY e {\n  \
                p = f32[64]{0} parameter(0)\n  \
                constant_dynamic-update-slice_fusion.6 = f32[64]{0} negate(p), metadata={op_name=\"jit(f)/neg\"}\n  \
                constant_dynamic-update-slice_fusion.7 = f32[64]{0} exponential(constant_dynamic-update-slice_fusion.6)\n  \
                ROOT t = (f32[64]{0}, f32[64]{0}) tuple(constant_dynamic-update-slice_fusion.6, constant_dynamic-update-slice_fusion.7)\n}\n";
    let out = run(&["memory", "-", "--html", "-"], text.as_bytes());
    assert!(out.status.success());
    let page = String::from_utf8(out.stdout).unwrap();
    let doc = html_doc(&page);
    let labels: Vec<(String, String)> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("buffer"))
        .map(|g| {
            let label = g.children().find(|c| c.has_tag_name("text")).unwrap();
            let shown = label
                .children()
                .find(|c| c.is_text())
                .unwrap()
                .text()
                .unwrap();
            let title = label.children().find(|c| c.has_tag_name("title")).unwrap();
            (shown.to_owned(), title.text().unwrap().to_owned())
        })
        .collect();
    for name in [
        "constant_dynamic-update-slice_fusion.6",
        "constant_dynamic-update-slice_fusion.7",
    ] {
        let (shown, _) = labels.iter().find(|(_, full)| full == name).unwrap();
        assert!(
            shown.contains('…') && shown.ends_with(&name[name.len() - 9..]),
            "{shown}"
        );
        assert!(shown.chars().count() <= 35, "{shown}");
    }
    let rows: Vec<String> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("buffer-row"))
        .map(|r| r.descendants().filter_map(|t| t.text()).collect())
        .collect();
    let row = |name: &str| rows.iter().find(|r| r.contains(name)).unwrap().clone();
    assert!(row("fusion.6").contains("jit(f)/neg"), "{rows:?}");
    assert!(row("fusion.7").contains("none in the dump"), "{rows:?}");
    // The peak's label above the plot's top (its dashed line's start).
    let timeline = doc
        .descendants()
        .find(|n| n.attribute("id") == Some("timeline"))
        .unwrap();
    let line = timeline
        .children()
        .find(|n| n.attribute("stroke-dasharray").is_some())
        .unwrap();
    let label = timeline
        .children()
        .find(|n| n.text().is_some_and(|t| t.starts_with("peak ")))
        .unwrap();
    let y = |n: roxmltree::Node, k: &str| n.attribute(k).unwrap().parse::<f64>().unwrap();
    assert!(y(label, "y") < y(line, "y1"), "{page}");
}

/// `--tpu` given for a CPU dump is not used, and says so: its figures are
/// the CPU's (jax's `memory_analysis()` of it), with or without the
/// buffer assignment. (It sized the module as a TPU's and called each
/// figure exact: a JAX user's trial.)
#[test]
fn tpu_given_for_a_cpu_dump_is_not_used() {
    let m = manifest();
    let cpu: Vec<&str> = m["programs"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, p)| p["backend"] == "cpu")
        .map(|(n, _)| n.as_str())
        .collect();
    assert!(cpu.len() >= 5, "{cpu:?}");
    for name in cpu {
        let path = format!("{DUMPS}/{name}.hlo");
        for extra in [&[][..], &["--no-buffer-assignment"][..]] {
            let plain = json(&[&["memory", &path, "--json"][..], extra].concat());
            let given = json(&[&["memory", &path, "--json", "--tpu", "v5e"][..], extra].concat());
            assert_eq!(given["backend"], "cpu", "{name}");
            assert_eq!(
                given["memory_analysis"], plain["memory_analysis"],
                "{name} {extra:?}"
            );
            let warnings = given["warnings"].to_string();
            assert!(
                warnings.contains("--tpu v5e is not used"),
                "{name}: {warnings}"
            );
            assert!(!plain["warnings"].to_string().contains("--tpu"), "{name}");
        }
    }
}

/// An array with no defined size (an unbounded dimension) makes every
/// figure an estimate, with a warning naming it; it had the output
/// called exact (an adversarial trial).
#[test]
fn an_unbounded_array_makes_the_figures_estimates() {
    let text = "HloModule m\n\nENTRY e {\n  a = f32[4,2]{1,0} parameter(0)\n  \
                ROOT d = f32[?,2]{1,0} custom-call(a), custom_call_target=\"x\"\n}\n";
    let out = run(&["memory", "-", "--json"], text.as_bytes());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    for field in FIELDS {
        assert_eq!(v["memory_analysis_source"][field], "estimated", "{field}");
    }
    let warnings = v["warnings"].to_string();
    assert!(
        warnings.contains("1 array has no defined size (the first: d f32[?,2]{1,0}"),
        "{warnings}"
    );
    // Written with its bound, the same module's figures are exact.
    let bounded = text.replace("f32[?,2]", "f32[<=4,2]");
    let out = run(&["memory", "-", "--json"], bounded.as_bytes());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["memory_analysis_source"]["output_size_in_bytes"], "exact");
    assert!(!v["warnings"].to_string().contains("no defined size"));
}

/// A value the module writes otherwise than XLA allocated it (here a
/// constant's layout left out, as `compiled.as_text()` leaves out a TPU's
/// SMEM flags') is warned about, with both sizes; the fixture as it is
/// has none (every value's size is XLA's: `hlo/tests/memory.rs`). It was
/// counted as 4 KiB of HBM in silence (a JAX user's trial).
#[test]
fn values_sized_otherwise_than_xla_are_warned_about() {
    let path = format!("{DUMPS}/tpu_custom_calls.hlo");
    let assignment = format!("{DUMPS}/tpu_custom_calls.buffer-assignment.txt");
    let text = std::fs::read_to_string(&path).unwrap();
    let damaged = text.replacen("%constant.115 = s32[]{:T(128)}", "%constant.115 = s32[]", 1);
    assert_ne!(damaged, text);
    let args = ["memory", "-", "--json", "--buffer-assignment", &assignment];
    let v: Value = serde_json::from_slice(&run(&args, damaged.as_bytes()).stdout).unwrap();
    let warnings = v["warnings"].to_string();
    assert!(
        warnings.contains(
            "1 value is sized otherwise in XLA's buffer assignment (the first: constant.115 \
             s32[], 4,096 here, 512 there)"
        ),
        "{warnings}"
    );
    let v: Value = serde_json::from_slice(&run(&args, text.as_bytes()).stdout).unwrap();
    assert!(!v["warnings"].to_string().contains("sized otherwise"));
}
