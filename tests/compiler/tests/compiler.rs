//! The tests that run the compiler, in one binary so that they run at the
//! same time (each is one long test: together they take as long as the
//! longer one, not the sum).
//!
//! - `ui`: every file in `ui/` fails to build with exactly the messages
//!   in its `.stderr` file (trybuild), and `pass/views_build.rs` builds. Regenerate with
//!   `TRYBUILD=overwrite cargo test -p xla-layout-compiler-tests --test compiler -- ui`
//!   and review the diff.
//! - `generated_offsets_are_the_hand_written_machine_code`: this package's
//!   library (`src/lib.rs`) is compiled to assembly with optimisations (the
//!   workspace's `zero-cost` profile), and each `layout!` offset function
//!   must be the same machine code as the expression written by hand —
//!   either the same instructions, or merged by LLVM into one symbol (which
//!   it does only for identical functions). Generated code must also be
//!   straight-line: no loops, calls, divisions or loads of layout data.
//!
//! Both live in this small package rather than the root's tests: trybuild
//! builds the crate under test with the features its tests were built
//! with, and the root's are built with all of them (ndarray, rayon, serde…),
//! none of which a compile error of `layout!` involves.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    // The `ui/hlo_import_*.rs` files that name a dump by its path from the
    // crate trybuild generates (`<target>/tests/trybuild/<package>`) reach
    // this repository's dumps only when the target directory is the
    // workspace's own `target/`. With a target directory elsewhere
    // (`CARGO_TARGET_DIR`), those files are left out, with a note.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("..");
    let ours = |p: &Path| p.canonicalize().ok();
    let reaches_examples = ours(&target.join("..")) == ours(&root);
    for file in std::fs::read_dir("ui").expect("ui/ reads") {
        let path = file.expect("a ui/ entry").path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let names_a_dump =
            || std::fs::read_to_string(&path).is_ok_and(|t| t.contains("hlo(\"../../../../"));
        if !reaches_examples && names_a_dump() {
            eprintln!(
                "note: {} left out: the target directory is not this workspace's `target/`",
                path.display()
            );
            continue;
        }
        t.compile_fail(path);
    }
    // Makes trybuild build rather than check (pass/views_build.rs says why).
    t.pass("pass/views_build.rs");
    t.pass("pass/deprecated_items.rs");
    t.pass("pass/cfg_attr_items.rs");
}

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const PAIRS: [&str; 6] = [
    "row_major",
    "column_major",
    "tile_8x128",
    "tpu_bf16",
    "combine",
    "three_levels",
];

/// Builds the probe crate to assembly and returns the text.
fn assembly() -> String {
    let target_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("zero-cost");
    let status = Command::new(env!("CARGO"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "rustc",
            "--quiet",
            "--package",
            "xla-layout-compiler-tests",
            "--lib",
            "--profile",
            "zero-cost",
            "--target-dir",
        ])
        .arg(&target_dir)
        .args(["--", "--emit", "asm"])
        .status()
        .expect("cargo runs");
    assert!(
        status.success(),
        "building the probe crate to assembly failed"
    );
    let dir = target_dir.join("zero-cost/deps");
    let newest: PathBuf = std::fs::read_dir(&dir)
        .expect("deps dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "s")
                && p.file_name().is_some_and(|n| {
                    n.to_string_lossy()
                        .starts_with("xla_layout_compiler_tests-")
                })
        })
        .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
        .expect("an assembly file");
    std::fs::read_to_string(newest).expect("readable assembly")
}

/// Function bodies (instructions only, local labels renamed) and aliases
/// (`a = b`) of an AT&T assembly listing.
fn functions(asm: &str) -> (HashMap<String, Vec<String>>, HashMap<String, String>) {
    let mut bodies = HashMap::new();
    let mut aliases = HashMap::new();
    let mut current: Option<(String, Vec<String>)> = None;
    for raw in asm.lines() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if let Some((a, b)) = line.split_once(" = ") {
            aliases.insert(a.trim().to_string(), b.trim().to_string());
            continue;
        }
        if let Some(name) = line.strip_suffix(':')
            && !name.starts_with('.')
        {
            if let Some((n, b)) = current.take() {
                bodies.insert(n, b);
            }
            current = Some((name.to_string(), Vec::new()));
            continue;
        }
        if line.starts_with(".cfi_endproc") {
            if let Some((n, b)) = current.take() {
                bodies.insert(n, b);
            }
            continue;
        }
        if let Some((_, body)) = current.as_mut()
            && !line.is_empty()
            && !line.starts_with('.')
        {
            body.push(line.split_whitespace().collect::<Vec<_>>().join(" "));
        }
    }
    (bodies, aliases)
}

#[test]
fn generated_offsets_are_the_hand_written_machine_code() {
    let asm = assembly();
    let (bodies, aliases) = functions(&asm);
    let body_of = |name: &str| -> &Vec<String> {
        let real = aliases.get(name).map_or(name, String::as_str);
        bodies
            .get(real)
            .unwrap_or_else(|| panic!("no function `{name}` in the assembly"))
    };
    for pair in PAIRS {
        let generated = format!("generated_{pair}");
        let hand = format!("hand_{pair}");
        let g = body_of(&generated);
        let h = body_of(&hand);
        let merged =
            aliases.get(&hand) == Some(&generated) || aliases.get(&generated) == Some(&hand);
        assert!(
            merged || g == h,
            "{pair}: generated\n{g:#?}\nhand-written\n{h:#?}"
        );
        for instruction in g {
            let op = instruction.split(' ').next().unwrap_or("");
            assert!(
                !op.starts_with('j') && !op.starts_with("call") && !op.contains("div"),
                "{pair}: `{instruction}` is not straight-line arithmetic"
            );
            assert!(
                !instruction.contains("(%rip)"),
                "{pair}: `{instruction}` reads data at run time"
            );
        }
        println!(
            "{pair:>13}: {} instructions, {}",
            g.len(),
            if merged {
                "merged with the hand-written function by LLVM"
            } else {
                "identical instructions"
            }
        );
    }
}
