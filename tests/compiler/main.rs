//! The tests that run the compiler, one binary so that they run at the
//! same time (each is one long test: together they take as long as the
//! longer one, not the sum).
//!
//! - `ui`: every file in `tests/ui/` fails to compile with exactly its
//!   `.stderr`.
//! - `zero_cost`: `layout!`'s offset functions are the same machine code
//!   as the expressions written by hand.

mod ui;
mod zero_cost;
