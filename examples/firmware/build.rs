//! Links the program without the C runtime: `_start` is ours.
fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" {
        println!("cargo:rustc-link-arg-bins=-nostartfiles");
        println!("cargo:rustc-link-arg-bins=-nostdlib");
        println!("cargo:rustc-link-arg-bins=-static");
    }
}
