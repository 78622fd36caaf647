//! An ASCII table of slot offsets over a 2-D slice of an array, written
//! through `core::fmt` (no allocation), so firmware can print it too.

use core::fmt;

use crate::TiledShape;
use crate::limits::MAX_RANK;

/// The slot offset of every element of a 2-D slice of a [`TiledShape`]:
/// rows along one logical dimension, columns along another, every other
/// dimension held at a fixed index. `Display` writes the table; large
/// slices show their first rows and columns, `...`, and the last one.
///
/// ```
/// use xla_layout_core::ArrayShape;
///
/// // tiled_layout.md, figure 1: f32[3,5] in 2x2 tiles.
/// let t = ArrayShape::parse_validated("f32[3,5]{1,0:T(2,2)}").unwrap().tiled().unwrap();
/// let text = t.offset_grid().to_string();
/// assert_eq!(
///     text,
///     "rows: d0 (3), columns: d1 (5)\n\
///      d0\\d1   0   1   2   3   4\n\
///      \x20   0   0   1   4   5   8\n\
///      \x20   1   2   3   6   7  10\n\
///      \x20   2  12  13  16  17  20\n"
/// );
/// ```
#[derive(Clone, Copy, Debug)]
pub struct OffsetGrid<'a> {
    shape: &'a TiledShape,
    /// The index of the slice: rows and columns vary, the rest stay.
    at: [u64; MAX_RANK],
    rows: Option<usize>,
    cols: Option<usize>,
    max_rows: usize,
    max_cols: usize,
}

/// Why an [`OffsetGrid`] cannot show what was asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GridError {
    /// A dimension number is not below the rank.
    NoSuchDimension {
        /// The dimension asked for.
        dim: usize,
        /// The array's rank.
        rank: usize,
    },
    /// Rows and columns were asked along the same dimension.
    SameDimension(usize),
    /// The fixed index has the wrong number of entries.
    IndexRank {
        /// Entries given.
        got: usize,
        /// The array's rank.
        rank: usize,
    },
    /// A fixed index entry is outside its dimension.
    IndexOutOfBounds {
        /// The dimension.
        dim: usize,
        /// The index given.
        index: u64,
        /// The dimension's size.
        size: u64,
    },
}

impl fmt::Display for GridError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::NoSuchDimension { dim, rank } => {
                write!(f, "dimension {dim} does not exist: the rank is {rank}")
            }
            Self::SameDimension(d) => write!(f, "rows and columns are both dimension {d}"),
            Self::IndexRank { got, rank } => {
                let got = crate::joined::Counted(got as u64, "entry", "entries");
                write!(f, "the index has {got} but the rank is {rank}")
            }
            Self::IndexOutOfBounds { dim, index, size } => {
                write!(f, "index {index} is outside dimension {dim} of size {size}")
            }
        }
    }
}

impl core::error::Error for GridError {}

/// Rows and columns shown before a slice is cut.
const DEFAULT_MAX: usize = 16;

impl TiledShape {
    /// The offset grid of the two most minor logical dimensions (the last
    /// two), every other dimension at 0, at most 16 rows and columns.
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let t = ArrayShape::parse_validated("f32[2,3]{0,1}").unwrap().tiled().unwrap();
    /// assert!(t.offset_grid().to_string().ends_with("    1   1   3   5\n"));
    /// ```
    pub fn offset_grid(&self) -> OffsetGrid<'_> {
        let rank = self.rank();
        OffsetGrid {
            shape: self,
            at: [0; MAX_RANK],
            rows: rank.checked_sub(2),
            cols: rank.checked_sub(1),
            max_rows: DEFAULT_MAX,
            max_cols: DEFAULT_MAX,
        }
    }
}

impl<'a> OffsetGrid<'a> {
    /// Shows logical dimension `rows` down and `cols` across.
    ///
    /// ```
    /// # use xla_layout_core::{ArrayShape, GridError};
    /// let t = ArrayShape::parse_validated("f32[2,3]").unwrap().tiled().unwrap();
    /// assert!(t.offset_grid().dims(1, 0).is_ok());
    /// assert_eq!(t.offset_grid().dims(0, 0).unwrap_err(), GridError::SameDimension(0));
    /// ```
    pub fn dims(mut self, rows: usize, cols: usize) -> Result<Self, GridError> {
        let rank = self.shape.rank();
        for dim in [rows, cols] {
            if dim >= rank {
                return Err(GridError::NoSuchDimension { dim, rank });
            }
        }
        if rows == cols {
            return Err(GridError::SameDimension(rows));
        }
        self.rows = Some(rows);
        self.cols = Some(cols);
        Ok(self)
    }

    /// Holds the dimensions not shown at `index` (its entries for the
    /// shown dimensions are ignored, but must still be in bounds).
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let t = ArrayShape::parse_validated("f32[4,2,3]").unwrap().tiled().unwrap();
    /// let g = t.offset_grid().at(&[3, 0, 0]).unwrap().to_string();
    /// assert!(g.starts_with("rows: d1 (2), columns: d2 (3), d0=3\n"));
    /// assert!(t.offset_grid().at(&[4, 0, 0]).is_err());
    /// ```
    pub fn at(mut self, index: &[u64]) -> Result<Self, GridError> {
        let dims = self.shape.logical_dims();
        if index.len() != dims.len() {
            return Err(GridError::IndexRank {
                got: index.len(),
                rank: dims.len(),
            });
        }
        for (dim, (&i, &size)) in index.iter().zip(dims).enumerate() {
            if i >= size {
                return Err(GridError::IndexOutOfBounds {
                    dim,
                    index: i,
                    size,
                });
            }
        }
        self.at[..index.len()].copy_from_slice(index);
        Ok(self)
    }

    /// Shows at most `rows` rows and `cols` columns (each at least 2: the
    /// first rows and the last one).
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let t = ArrayShape::parse_validated("f32[100,100]").unwrap().tiled().unwrap();
    /// let g = t.offset_grid().max(3, 3).to_string();
    /// assert_eq!(g.lines().nth(1), Some("d0\\d1    0    1  ...   99"));
    /// assert_eq!(g.lines().nth(4), Some("  ...  ...  ...  ...  ..."));
    /// assert_eq!(g.lines().last(), Some("   99 9900 9901  ... 9999"));
    /// ```
    pub fn max(mut self, rows: usize, cols: usize) -> Self {
        self.max_rows = rows.max(2);
        self.max_cols = cols.max(2);
        self
    }

    /// The logical dimension down the grid; `None` for one row (rank 1 or
    /// a scalar).
    pub const fn row_dim(&self) -> Option<usize> {
        self.rows
    }

    /// The logical dimension across the grid; `None` for a scalar.
    pub const fn col_dim(&self) -> Option<usize> {
        self.cols
    }

    /// The index the grid is taken at: the entries of the dimensions not
    /// shown (those of the row and column dimensions are ignored).
    pub fn at_index(&self) -> &[u64] {
        &self.at[..self.shape.rank()]
    }

    /// The row indices shown, in order: all of them, or when cut the
    /// first rows and the last one (`Display` writes `...` before it).
    /// One row, index 0, when there is no row dimension.
    ///
    /// ```
    /// # use xla_layout_core::ArrayShape;
    /// let t = ArrayShape::parse_validated("f32[100,3]").unwrap().tiled().unwrap();
    /// let g = t.offset_grid().max(4, 4);
    /// assert_eq!(g.shown_rows().collect::<Vec<_>>(), [0, 1, 2, 99]);
    /// assert_eq!(g.shown_cols().collect::<Vec<_>>(), [0, 1, 2]);
    /// assert_eq!(g.offset_at(99, 2), Some(299));
    /// assert_eq!(g.offset_at(100, 0), None);
    /// // An empty dimension shows nothing.
    /// let t = ArrayShape::parse_validated("f32[0,3]").unwrap().tiled().unwrap();
    /// assert_eq!(t.offset_grid().shown_rows().count(), 0);
    /// ```
    pub fn shown_rows(&self) -> impl Iterator<Item = u64> + use<'a> {
        Self::picks(self.extent(self.rows), self.max_rows).flatten()
    }

    /// The column indices shown; see [`OffsetGrid::shown_rows`].
    pub fn shown_cols(&self) -> impl Iterator<Item = u64> + use<'a> {
        Self::picks(self.extent(self.cols), self.max_cols).flatten()
    }

    /// The slot of the element in row `row` and column `col` of the grid
    /// (each 0 along a dimension the grid does not have); `None` outside
    /// the grid.
    pub fn offset_at(&self, row: u64, col: u64) -> Option<u64> {
        let inside = |dim: Option<usize>, i: u64| i < self.extent(dim);
        if !inside(self.rows, row) || !inside(self.cols, col) {
            return None;
        }
        Some(self.offset(row, col))
    }

    /// The indices shown along a dimension of `size`: `0..shown-1`, then
    /// the last one when cut. `None` marks the `...`.
    fn picks(size: u64, max: usize) -> impl Iterator<Item = Option<u64>> {
        let cut = size > max as u64;
        let head = if cut { max as u64 - 1 } else { size };
        (0..head)
            .map(Some)
            .chain(cut.then(|| [None, Some(size - 1)]).into_iter().flatten())
    }

    fn extent(&self, dim: Option<usize>) -> u64 {
        dim.map_or(1, |d| self.shape.logical_dims()[d])
    }

    fn offset(&self, row: u64, col: u64) -> u64 {
        let mut index = self.at;
        if let Some(r) = self.rows {
            index[r] = row;
        }
        if let Some(c) = self.cols {
            index[c] = col;
        }
        self.shape.offset_unchecked(&index[..self.shape.rank()])
    }

    /// The cell width: enough for `...`, every label and every slot of the
    /// array. A bound, found in constant time, so that the first row is
    /// written at once however large the grid (finding the widest offset
    /// shown would visit every cell first).
    fn width(&self) -> usize {
        let (rows, cols) = (self.extent(self.rows), self.extent(self.cols));
        let last_slot = self.shape.physical_slots().saturating_sub(1);
        3.max(digits(rows.saturating_sub(1)))
            .max(digits(cols.saturating_sub(1)))
            .max(digits(last_slot))
    }
}

fn digits(mut v: u64) -> usize {
    let mut n = 1;
    while v >= 10 {
        v /= 10;
        n += 1;
    }
    n
}

/// `value` right-aligned in `width`, or `...` for a cut.
fn cell(f: &mut fmt::Formatter<'_>, value: Option<u64>, width: usize) -> fmt::Result {
    match value {
        Some(v) => write!(f, " {v:>width$}"),
        None => write!(f, " {:>width$}", "..."),
    }
}

impl fmt::Display for OffsetGrid<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dims = self.shape.logical_dims();
        let Some(cols) = self.cols else {
            return writeln!(f, "a scalar at offset {}", self.offset(0, 0));
        };
        match self.rows {
            Some(r) => write!(f, "rows: d{r} ({}), ", dims[r])?,
            None => f.write_str("one row, ")?,
        }
        write!(f, "columns: d{cols} ({})", dims[cols])?;
        for (d, &i) in self.at[..dims.len()].iter().enumerate() {
            if Some(d) != self.rows && d != cols {
                write!(f, ", d{d}={i}")?;
            }
        }
        f.write_str("\n")?;
        let (rows, cols_size) = (self.extent(self.rows), self.extent(self.cols));
        if rows == 0 || cols_size == 0 {
            return f.write_str("(no elements)\n");
        }
        let width = self.width();
        // The corner names both dimensions; the row labels line up under it.
        let corner = CornerLabel {
            rows: self.rows,
            cols,
        };
        let label_width = corner.len().max(width);
        write!(f, "{corner:>label_width$}")?;
        for c in Self::picks(cols_size, self.max_cols) {
            cell(f, c, width)?;
        }
        f.write_str("\n")?;
        for r in Self::picks(rows, self.max_rows) {
            match r {
                Some(r) if self.rows.is_some() => write!(f, "{r:>label_width$}")?,
                Some(_) => write!(f, "{:>label_width$}", "")?,
                None => write!(f, "{:>label_width$}", "...")?,
            }
            for c in Self::picks(cols_size, self.max_cols) {
                match (r, c) {
                    (Some(r), Some(c)) => cell(f, Some(self.offset(r, c)), width)?,
                    _ => cell(f, None, width)?,
                }
            }
            f.write_str("\n")?;
        }
        Ok(())
    }
}

/// `dR\dC` (or `dC` for one row), the grid's corner.
struct CornerLabel {
    rows: Option<usize>,
    cols: usize,
}

impl CornerLabel {
    fn len(&self) -> usize {
        1 + digits(self.cols as u64) + self.rows.map_or(0, |r| 2 + digits(r as u64))
    }
}

impl fmt::Display for CornerLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Padding applies to the whole label.
        let width = f.width().unwrap_or(0);
        for _ in self.len()..width {
            f.write_str(" ")?;
        }
        match self.rows {
            Some(r) => write!(f, "d{r}\\d{}", self.cols),
            None => write!(f, "d{}", self.cols),
        }
    }
}
