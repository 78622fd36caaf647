//! Calls every generated offset function and its hand-written twin at every
//! index (`scripts/callgrind-offsets.sh` counts their instructions):
//!
//! ```text
//! cargo run --release -p xla-layout-compiler-tests --example zero_cost
//! ```

use std::process::ExitCode;

fn main() -> ExitCode {
    match xla_layout_compiler_tests::compare_everywhere() {
        Ok(compared) => {
            println!("generated and hand-written offsets agree at {compared} indices");
            ExitCode::SUCCESS
        }
        Err(m) => {
            eprintln!("`{}` disagrees at {:?}", m.pair, m.index);
            ExitCode::FAILURE
        }
    }
}
