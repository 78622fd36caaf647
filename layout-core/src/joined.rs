//! Lists of numbers and counts as text: shared by the printer and the
//! messages, so neither borrows from the other.

use core::fmt::{self, Write};

/// Writes `values` joined by `sep`.
pub(crate) fn write_joined(f: &mut impl Write, values: &[i64], sep: &str) -> fmt::Result {
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            f.write_str(sep)?;
        }
        write!(f, "{v}")?;
    }
    Ok(())
}

/// `n` and what it counts, singular for 1: "1 entry", "3 entries".
pub(crate) struct Counted(
    pub(crate) u64,
    pub(crate) &'static str,
    pub(crate) &'static str,
);

impl fmt::Display for Counted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            1 => write!(f, "1 {}", self.1),
            n => write!(f, "{n} {}", self.2),
        }
    }
}
