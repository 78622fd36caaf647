//! "Did you mean": how far apart two names are.

/// Names longer than this are never considered close.
const MAX_NAME: usize = 128;

/// Case-insensitive optimal-string-alignment distance (an adjacent swap
/// counts one edit) between two names of at most 128 bytes; `usize::MAX`
/// for longer ones. Three rolling rows, no allocation. The one measure of
/// "did you mean" for every kind of name (element types, HLO
/// instructions).
///
/// ```
/// use xla_layout_core::text::edit_distance;
/// assert_eq!(edit_distance(b"f32", b"F32"), 0);
/// assert_eq!(edit_distance(b"fusion.2", b"fusion.1"), 1);
/// assert_eq!(edit_distance(b"bf61", b"bf16"), 1); // a swap is one edit
/// ```
pub fn edit_distance(a: &[u8], b: &[u8]) -> usize {
    if a.len() > MAX_NAME || b.len() > MAX_NAME {
        return usize::MAX;
    }
    let same = |x: u8, y: u8| x.eq_ignore_ascii_case(&y);
    // Rows i-2, i-1 and i of the distance table.
    let mut rows = [[0usize; MAX_NAME + 1]; 3];
    for (j, cell) in rows[1].iter_mut().enumerate().take(b.len() + 1) {
        *cell = j;
    }
    for i in 1..=a.len() {
        let [before, previous, current] = &mut rows;
        current[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(!same(a[i - 1], b[j - 1]));
            let mut v = (previous[j] + 1)
                .min(current[j - 1] + 1)
                .min(previous[j - 1] + cost);
            if i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]) {
                v = v.min(before[j - 2] + 1);
            }
            current[j] = v;
        }
        rows.rotate_left(1);
    }
    rows[1][b.len()]
}

#[cfg(test)]
mod tests {
    use super::edit_distance;

    #[test]
    fn distances() {
        assert_eq!(edit_distance(b"bf16", b"bf16"), 0);
        assert_eq!(edit_distance(b"bf61", b"bf16"), 1);
        assert_eq!(edit_distance(b"f3", b"f32"), 1);
        assert_eq!(edit_distance(b"F32", b"f32"), 0);
        assert_eq!(edit_distance(b"", b"abc"), 3);
        assert_eq!(edit_distance(b"fusion.3", b"fusion.13"), 1);
        assert_eq!(edit_distance(b"kitten", b"sitting"), 3);
        assert_eq!(edit_distance(b"ca", b"abc"), 3); // OSA, not Damerau
        let long = [b'a'; 129];
        assert_eq!(edit_distance(&long, b"a"), usize::MAX);
    }
}
