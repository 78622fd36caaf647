//! Lists of numbers as text: shared by the printer and the validator's
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
