//! A fixed-capacity string, for the little text the no-alloc model keeps.

use core::fmt;

/// Up to `N` bytes of UTF-8, inline. Writing past the capacity fails with
/// [`fmt::Error`] and sets [`InlineStr::overflowed`]; what fitted is kept.
///
/// ```
/// use core::fmt::Write;
/// use xla_layout_core::InlineStr;
///
/// let mut s = InlineStr::<8>::new();
/// write!(s, "f32[{}]", 2).unwrap();
/// assert_eq!(s.as_str(), "f32[2]");
/// assert!(write!(s, "{}", "long tail").is_err());
/// assert!(s.overflowed());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct InlineStr<const N: usize> {
    bytes: [u8; N],
    len: usize,
    overflowed: bool,
}

impl<const N: usize> InlineStr<N> {
    /// The empty string.
    pub const fn new() -> Self {
        InlineStr {
            bytes: [0; N],
            len: 0,
            overflowed: false,
        }
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        // Only whole `&str`s are ever appended (see `write_str`).
        core::str::from_utf8(&self.bytes[..self.len]).unwrap_or_default()
    }

    /// Whether a write did not fit.
    pub const fn overflowed(&self) -> bool {
        self.overflowed
    }
}

impl<const N: usize> Default for InlineStr<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> fmt::Write for InlineStr<N> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        if end > N {
            self.overflowed = true;
            return Err(fmt::Error);
        }
        self.bytes[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

impl<const N: usize> fmt::Debug for InlineStr<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl<const N: usize> fmt::Display for InlineStr<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
