//! Compile-error tests of `layout!`: every file in `tests/ui/` must fail to
//! compile with exactly the messages in its `.stderr` file.
//! Regenerate with `TRYBUILD=overwrite cargo test --test compiler -- ui` and review.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
