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
    /// message` (the column in bytes), the line of text, and carets under
    /// the span (placed by characters, a tab under a tab). A line
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
    /// // Control characters show as `�`, one each, not as themselves.
    /// let src = "a = \x1b[2J f32[2]{0} 7\r\n";
    /// assert_eq!(
    ///     ByteSpan { start: 19, end: 20 }.render(src, "m.hlo", "expected an opcode"),
    ///     "m.hlo:1:20: expected an opcode\na = \u{fffd}[2J f32[2]{0} 7\n                   ^"
    /// );
    /// // A tab before the span is a tab under it too; the column counts
    /// // bytes (`é` is two).
    /// let src = "\ta = \"é\" 7\n";
    /// assert_eq!(
    ///     ByteSpan { start: 10, end: 11 }.render(src, "m.hlo", "here"),
    ///     "m.hlo:1:11: here\n\ta = \"é\" 7\n\t        ^"
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
        self.render_at(src, path, message, self.line_column(src))
    }

    /// [`ByteSpan::render`] with the line and column found by `lines`:
    /// for many spans of one text in order (an error per line of a long
    /// file), in time linear in the text overall rather than quadratic.
    ///
    /// ```
    /// use xla_layout_core::text::{ByteSpan, LineCursor};
    /// let src = "a\nbc d\n";
    /// let mut lines = LineCursor::new(src);
    /// let shown = ByteSpan { start: 5, end: 6 }.render_with(&mut lines, "f", "here");
    /// assert_eq!(shown, "f:2:4: here\nbc d\n   ^");
    /// ```
    #[cfg(feature = "alloc")]
    pub fn render_with(
        self,
        lines: &mut LineCursor<'_>,
        path: &str,
        message: impl core::fmt::Display,
    ) -> alloc::string::String {
        let at = lines.line_column(self.start);
        self.render_at(lines.source(), path, message, at)
    }

    #[cfg(feature = "alloc")]
    fn render_at(
        self,
        src: &str,
        path: &str,
        message: impl core::fmt::Display,
        (line, column): (usize, usize),
    ) -> alloc::string::String {
        use core::fmt::Write;
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
        // Control characters would act on the reader's terminal (an
        // escape sequence in a dump's string): each shows as one `�`, which
        // keeps the carets under their characters; a CRLF line's `\r` goes.
        let text = src[from..to].strip_suffix('\r').unwrap_or(&src[from..to]);
        let text: alloc::string::String = text
            .chars()
            .map(|c| {
                if c.is_control() && c != '\t' {
                    '\u{fffd}'
                } else {
                    c
                }
            })
            .collect();
        // Under each character a space, under a tab a tab: the carets
        // line up however wide the reader's tabs are.
        let pad: alloc::string::String = head
            .chars()
            .map(|_| ' ')
            .chain(
                src[from..start]
                    .chars()
                    .map(|c| if c == '\t' { '\t' } else { ' ' }),
            )
            .collect();
        let carets = src[start..ceil_char(src, self.end.clamp(start, to))]
            .chars()
            .count()
            .max(1);
        let mut out = alloc::string::String::new();
        let _ = write!(
            out,
            "{path}:{line}:{column}: {message}\n{head}{text}{tail}\n{pad}{}",
            "^".repeat(carets)
        );
        out
    }
}

/// The 1-based line and column of offsets of one text, found by moving
/// forward from the last offset asked: offsets in increasing order cost
/// the text's length overall. ([`ByteSpan::line_column`] counts from the
/// start each time, which is quadratic over an error on every line of a
/// long text.) An offset before the last one starts again from the top.
///
/// ```
/// use xla_layout_core::text::{ByteSpan, LineCursor};
/// let src = "ab\ncdef\n\nx";
/// let mut lines = LineCursor::new(src);
/// for offset in [0, 1, 3, 6, 9, 10, 11, 99, 4] {
///     let span = ByteSpan { start: offset, end: offset };
///     assert_eq!(lines.line_column(offset), span.line_column(src));
/// }
/// ```
#[derive(Clone, Debug)]
pub struct LineCursor<'a> {
    src: &'a str,
    /// The last offset asked (at most the text's length), its line and
    /// the offset that line starts at.
    offset: usize,
    line: usize,
    line_start: usize,
}

impl<'a> LineCursor<'a> {
    /// At the start of `src`.
    pub const fn new(src: &'a str) -> LineCursor<'a> {
        LineCursor {
            src,
            offset: 0,
            line: 1,
            line_start: 0,
        }
    }

    /// The text.
    pub const fn source(&self) -> &'a str {
        self.src
    }

    /// The line and column (in bytes) of byte `offset`, as
    /// [`ByteSpan::line_column`] gives them.
    pub fn line_column(&mut self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.src.len());
        if offset < self.offset {
            *self = LineCursor::new(self.src);
        }
        let between = &self.src.as_bytes()[self.offset..offset];
        for (i, &b) in between.iter().enumerate() {
            if b == b'\n' {
                self.line += 1;
                self.line_start = self.offset + i + 1;
            }
        }
        self.offset = offset;
        (self.line, offset - self.line_start + 1)
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
