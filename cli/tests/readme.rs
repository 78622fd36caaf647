//! The README's command-line examples, run: each `$ … xla-layout …` line
//! of a `console` block is run from the repository's root with this
//! build's binary first on `PATH`, and what the README shows after it
//! must be what it prints. A line `…` or `...` alone in the README stands
//! for lines left out; every other line must appear, in order, with
//! nothing between neighbours, and the first and last lines where the
//! output starts and ends (unless the README leaves those out too).

use std::path::Path;
use std::process::Command;

/// One example: the command line and the lines the README shows.
struct Example {
    command: String,
    shown: Vec<String>,
}

fn examples(readme: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    // In a console block; and whether its last example takes lines.
    let (mut in_console, mut taking) = (false, false);
    for line in readme.lines() {
        if line.starts_with("```") {
            in_console = line == "```console";
            taking = false;
            continue;
        }
        if !in_console {
            continue;
        }
        match line.strip_prefix("$ ") {
            Some(command) => {
                out.push(Example {
                    command: command.trim_end().to_string(),
                    shown: Vec::new(),
                });
                taking = true;
            }
            None if taking => {
                if let Some(e) = out.last_mut() {
                    e.shown.push(line.to_string());
                }
            }
            None => {}
        }
    }
    out.retain(|e| e.command.contains("xla-layout "));
    out
}

fn is_elision(line: &str) -> bool {
    matches!(line.trim(), "…" | "...")
}

/// Whether `actual` is what `shown` shows (see the module's comment), or
/// the first shown line that does not match.
fn matches(shown: &[String], actual: &[&str]) -> Result<(), String> {
    let segments: Vec<&[String]> = shown
        .split(|l| is_elision(l))
        .filter(|s| !s.is_empty())
        .collect();
    let open_start = shown.first().is_some_and(|l| is_elision(l));
    let open_end = shown.last().is_some_and(|l| is_elision(l));
    let mut from = 0;
    for (k, segment) in segments.iter().enumerate() {
        let fits = |at: usize| {
            actual.len() >= at + segment.len()
                && segment.iter().zip(&actual[at..]).all(|(s, a)| s == a)
        };
        let at = if k == 0 && !open_start {
            Some(0).filter(|&at| fits(at))
        } else {
            (from..actual.len()).find(|&at| fits(at))
        };
        let Some(at) = at else {
            // Anchored at the start: name the first line that differs.
            let differs = match k == 0 && !open_start {
                true => segment.iter().zip(actual).position(|(s, a)| s != a),
                false => None,
            };
            return Err(match differs {
                Some(i) => format!(
                    "the README shows {:?} where it printed {:?}",
                    segment[i],
                    actual.get(i)
                ),
                None => format!("not printed as shown: {:?}", segment[0]),
            });
        };
        from = at + segment.len();
    }
    if !open_end && from != actual.len() {
        return Err(format!(
            "printed more after the last line shown: {:?}",
            actual.get(from)
        ));
    }
    Ok(())
}

#[test]
fn the_readme_examples_print_what_they_show() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let examples = examples(&readme);
    assert!(examples.len() >= 4, "{} examples", examples.len());
    let bin = Path::new(env!("CARGO_BIN_EXE_xla-layout"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for e in &examples {
        let out = Command::new("sh")
            .arg("-c")
            .arg(&e.command)
            .current_dir(&root)
            .env("PATH", &path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            e.command,
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        let actual: Vec<&str> = text.lines().collect();
        if let Err(why) = matches(&e.shown, &actual) {
            panic!("README: `{}`: {why}\nit printed:\n{text}", e.command);
        }
    }
}

#[test]
fn elisions_and_ends_are_held_to() {
    let shown = |s: &str| s.lines().map(String::from).collect::<Vec<_>>();
    assert!(matches(&shown("a\nb"), &["a", "b"]).is_ok());
    assert!(matches(&shown("a\nb"), &["a", "b", "c"]).is_err());
    assert!(matches(&shown("a\nc"), &["a", "b", "c"]).is_err());
    assert!(matches(&shown("a\n…\nc"), &["a", "b", "c"]).is_ok());
    assert!(matches(&shown("b\n..."), &["a", "b", "c"]).is_err());
    assert!(matches(&shown("…\nb\n..."), &["a", "b", "c"]).is_ok());
    assert!(matches(&shown("a\n…\nb"), &["a", "b", "c"]).is_err());
}
