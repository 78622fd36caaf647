//! A place in the text, and how to show it: the one way this crate reports
//! where an error is (shape errors and HLO errors alike).

/// A byte range of the input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ByteSpan {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl ByteSpan {
    pub(crate) const EMPTY: ByteSpan = ByteSpan { start: 0, end: 0 };

    /// As a range.
    pub const fn range(self) -> core::ops::Range<usize> {
        self.start..self.end
    }

    /// The 1-based line and column (in bytes) where the span starts in
    /// `src`.
    ///
    /// ```
    /// use xla_layout_core::text::ByteSpan;
    /// assert_eq!(ByteSpan { start: 4, end: 5 }.line_column("ab\ncdef"), (2, 2));
    /// ```
    pub fn line_column(self, src: &str) -> (usize, usize) {
        let before = &src.as_bytes()[..self.start.min(src.len())];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        (line, before.len() - line_start + 1)
    }

    /// The span as a compiler reports a place: `path:line:column:
    /// message`, the line of text, and carets under the span. A line
    /// longer than [`MAX_SHOWN`] bytes is cut around the span (`…` marks
    /// a cut), so an error in a line of hundreds of megabytes prints a
    /// few hundred bytes.
    ///
    /// ```
    /// use xla_layout_core::text::ByteSpan;
    /// let src = "a = f32[2]{0} 7\n";
    /// assert_eq!(
    ///     ByteSpan { start: 14, end: 15 }.render(src, "m.hlo", "expected an opcode"),
    ///     "m.hlo:1:15: expected an opcode\na = f32[2]{0} 7\n              ^"
    /// );
    /// let long = format!("{}x{}", "a".repeat(10_000), "b".repeat(10_000));
    /// let shown = ByteSpan { start: 10_000, end: 10_001 }.render(&long, "f", "here");
    /// assert!(shown.len() < 600);                   // not 20 000
    /// assert!(shown.starts_with("f:1:10001: here\n…aaa"));
    /// ```
    #[cfg(feature = "alloc")]
    pub fn render(
        self,
        src: &str,
        path: &str,
        message: impl core::fmt::Display,
    ) -> alloc::string::String {
        use core::fmt::Write;
        let (line, column) = self.line_column(src);
        // Spans are in bytes; one may start or end inside a character
        // (the lexer reads bytes): show the whole characters.
        let start = floor_char(src, self.start.min(src.len()));
        let line_start = src[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = src[start..].find('\n').map_or(src.len(), |i| start + i);
        // Cut to at most MAX_SHOWN bytes, the span's start a third in.
        let from = floor_char(src, start.saturating_sub(MAX_SHOWN / 3).max(line_start));
        let to = ceil_char(src, (from + MAX_SHOWN).min(line_end));
        let (head, tail) = (
            if from > line_start { "…" } else { "" },
            if to < line_end { "…" } else { "" },
        );
        let text = &src[from..to];
        let pad = src[from..start].chars().count() + usize::from(!head.is_empty());
        let carets = src[start..ceil_char(src, self.end.clamp(start, to))]
            .chars()
            .count()
            .max(1);
        let mut out = alloc::string::String::new();
        let _ = write!(
            out,
            "{path}:{line}:{column}: {message}\n{head}{text}{tail}\n{}{}",
            " ".repeat(pad),
            "^".repeat(carets)
        );
        out
    }
}

/// Lines longer than this are cut around an error's place when shown.
pub const MAX_SHOWN: usize = 240;

/// The char boundary at or before `i`.
#[cfg(feature = "alloc")]
fn floor_char(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The char boundary at or after `i`.
#[cfg(feature = "alloc")]
fn ceil_char(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::ByteSpan;

    /// A span that starts or ends inside a character (the lexer's spans
    /// are bytes) is shown with the whole character; found by fuzzing
    /// (`Module::parse("\u{322}")`'s error).
    #[test]
    fn spans_inside_characters_render() {
        let src = "a\u{322}b\nx";
        for (start, end) in [(0, 2), (1, 2), (2, 3), (2, 2), (2, 4), (3, 9)] {
            let shown = ByteSpan { start, end }.render(src, "f", "m");
            assert!(shown.starts_with("f:1:"), "{start}..{end}: {shown}");
        }
        assert_eq!(
            ByteSpan { start: 0, end: 1 }.render("\u{322}", "f", "m"),
            "f:1:1: m\n\u{322}\n^"
        );
    }
}
