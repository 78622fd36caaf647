//! `explain --svg`: a picture in the style of tiled_layout.md's figures.
//!
//! Left, the logical grid of two dimensions: each first-level tile in its
//! own colour, thick lines between tiles, dashed lines between sub-tiles,
//! each cell labelled with its slot. Right, memory in slot order, each slot
//! in the colour of the tile it belongs to and labelled with the element it
//! holds; padding slots are grey and hatched.

use std::collections::HashMap;
use std::fmt::Write;

use xla_layout_core::{ArrayShape, TiledShape};

/// What to draw.
pub struct Picture<'a> {
    /// The array (for its text and tiles).
    pub shape: &'a ArrayShape,
    /// Its tiled shape.
    pub tiled: &'a TiledShape,
    /// Logical dimension down the grid (`None` for rank 1).
    pub rows: Option<usize>,
    /// Logical dimension across the grid (`None` for a scalar).
    pub cols: Option<usize>,
    /// The index of every other dimension.
    pub at: &'a [u64],
    /// At most this many rows and columns of the grid are drawn.
    pub max_rows: u64,
    /// See `max_rows`.
    pub max_cols: u64,
}

/// Slots drawn in the memory panel at most.
const MAX_SLOTS: u64 = 512;
/// Memory slots per drawn line.
const SLOTS_PER_LINE: u64 = 16;
const CELL_H: u64 = 24;
const MARGIN: u64 = 16;
const LABEL: u64 = 44;

/// Pastel fills, one per first-level tile (cycling).
const PALETTE: [&str; 12] = [
    "#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69", "#fccde5",
    "#bc80bd", "#ccebc5", "#ffed6f", "#a6cee3",
];

impl Picture<'_> {
    /// Slots in one tile of each level (level 0 first), where its tiles
    /// are runs of slots ([`xla_layout_core::Layout::tile_run`]); `None`
    /// where they are not (a `*`, a later tile that pads), which the
    /// picture then neither colours nor outlines by.
    fn tile_slots(&self) -> Vec<Option<u64>> {
        let layout = self.shape.layout_or_default();
        (0..layout.tile_count())
            .map(|k| layout.tile_run(k))
            .collect()
    }

    fn index(&self, r: u64, c: u64) -> Vec<u64> {
        let mut index = self.at.to_vec();
        if let Some(d) = self.rows {
            index[d] = r;
        }
        if let Some(d) = self.cols {
            index[d] = c;
        }
        index
    }

    fn extent(&self, dim: Option<usize>) -> u64 {
        dim.map_or(1, |d| self.tiled.logical_dims()[d])
    }

    /// What the grid shows, in words.
    fn caption(&self, rows: u64, cols: u64, shown_rows: u64, shown_cols: u64) -> String {
        let mut caption = String::new();
        match (self.rows, self.cols) {
            (Some(r), Some(c)) => {
                let _ = write!(caption, "logical grid: rows d{r}, columns d{c}");
            }
            (None, Some(c)) => {
                let _ = write!(caption, "logical grid: d{c}");
            }
            _ => caption.push_str("a scalar"),
        }
        for (d, i) in self.at.iter().enumerate() {
            if Some(d) != self.rows && Some(d) != self.cols {
                let _ = write!(caption, ", d{d}={i}");
            }
        }
        if shown_rows < rows || shown_cols < cols {
            let _ = write!(
                caption,
                " (first {shown_rows} of {rows} rows, {shown_cols} of {cols} columns)"
            );
        }
        caption
    }

    /// The SVG document.
    pub fn render(&self) -> String {
        let tiles = self.tile_slots();
        let (rows, cols) = (self.extent(self.rows), self.extent(self.cols));
        let (shown_rows, shown_cols) = (rows.min(self.max_rows), cols.min(self.max_cols));
        let slots = self.tiled.physical_slots();
        let digits = slots.max(1).to_string().len() as u64;
        let cell_w = (digits * 8 + 10).max(28);
        // Per shown cell: its slot.
        let offsets: Vec<Vec<u64>> = (0..shown_rows)
            .map(|r| {
                (0..shown_cols)
                    .map(|c| self.tiled.offset_unchecked(&self.index(r, c)))
                    .collect()
            })
            .collect();
        let tile_of =
            |slot: u64, level: usize| tiles.get(level).copied().flatten().map_or(0, |n| slot / n);

        let grid_x = MARGIN + LABEL;
        let grid_y = MARGIN + 40 + CELL_H;
        let grid_w = shown_cols * cell_w;
        let grid_h = shown_rows * CELL_H;
        let shown_slots = slots.min(MAX_SLOTS);
        let mem_cell_w = cell_w.max(48);
        // Beside the grid, clear of the grid's caption (~7 px a character).
        let caption = self.caption(rows, cols, shown_rows, shown_cols);
        let caption_end = MARGIN + 7 * caption.len() as u64;
        let mem_x = (grid_x + grid_w).max(caption_end) + 2 * MARGIN + LABEL;
        let mem_lines = shown_slots.div_ceil(SLOTS_PER_LINE);
        let width = mem_x + SLOTS_PER_LINE * mem_cell_w + MARGIN;
        let height = (grid_y + grid_h).max(grid_y + mem_lines * CELL_H) + 3 * MARGIN + 20;

        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="monospace" font-size="11">"#
        );
        s.push_str(concat!(
            r#"<defs><pattern id="pad" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">"#,
            r##"<rect width="6" height="6" fill="#e8e8e8"/><line x1="0" y1="0" x2="0" y2="6" stroke="#b0b0b0" stroke-width="2"/></pattern></defs>"##,
            "\n",
            r#"<rect width="100%" height="100%" fill="white"/>"#,
            "\n"
        ));
        let _ = writeln!(
            s,
            r#"<text x="{MARGIN}" y="{}" font-size="14" font-weight="bold">{}</text>"#,
            MARGIN + 12,
            escape(&self.shape.to_string())
        );
        let _ = writeln!(
            s,
            r#"<text x="{MARGIN}" y="{}">{}</text>"#,
            MARGIN + 30,
            escape(&caption)
        );
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}">memory, slot order ({} of {slots} slots, {SLOTS_PER_LINE} per line)</text>"#,
            mem_x - LABEL,
            MARGIN + 30,
            shown_slots
        );

        // Column and row labels.
        for c in 0..shown_cols {
            let _ = writeln!(
                s,
                r##"<text x="{}" y="{}" text-anchor="middle" fill="#555">{c}</text>"##,
                grid_x + c * cell_w + cell_w / 2,
                grid_y - 8
            );
        }
        for r in 0..shown_rows {
            let _ = writeln!(
                s,
                r##"<text x="{}" y="{}" text-anchor="end" fill="#555">{r}</text>"##,
                grid_x - 6,
                grid_y + r * CELL_H + 16
            );
        }
        let colours = Colours::assign(&offsets, shown_slots, |slot| tile_of(slot, 0));
        // Cells.
        for (r, row) in offsets.iter().enumerate() {
            for (c, &slot) in row.iter().enumerate() {
                let (x, y) = (grid_x + c as u64 * cell_w, grid_y + r as u64 * CELL_H);
                let fill = colours.of(tile_of(slot, 0));
                let _ = writeln!(
                    s,
                    r##"<rect x="{x}" y="{y}" width="{cell_w}" height="{CELL_H}" fill="{fill}" stroke="#ffffff" stroke-width="0.5"/><text x="{}" y="{}" text-anchor="middle">{slot}</text>"##,
                    x + cell_w / 2,
                    y + 16
                );
            }
        }
        // Boundaries: between tiles (solid, thick) and sub-tiles (dashed).
        for level in (0..tiles.len().min(2)).rev() {
            let style = if level == 0 {
                r##"stroke="#222" stroke-width="2.5""##
            } else {
                r##"stroke="#444" stroke-width="1" stroke-dasharray="3,2""##
            };
            let differs = |a: u64, b: u64| {
                (0..=level).any(|l| tile_of(a, l) != tile_of(b, l))
                    && (level == 0 || tile_of(a, 0) == tile_of(b, 0))
            };
            for (r, row) in offsets.iter().enumerate() {
                for (c, &slot) in row.iter().enumerate() {
                    let (x, y) = (grid_x + c as u64 * cell_w, grid_y + r as u64 * CELL_H);
                    if c + 1 < row.len() && differs(slot, row[c + 1]) {
                        let _ = writeln!(
                            s,
                            r#"<line x1="{0}" y1="{y}" x2="{0}" y2="{1}" {style}/>"#,
                            x + cell_w,
                            y + CELL_H
                        );
                    }
                    if r + 1 < offsets.len() && differs(slot, offsets[r + 1][c]) {
                        let _ = writeln!(
                            s,
                            r#"<line x1="{x}" y1="{0}" x2="{1}" y2="{0}" {style}/>"#,
                            y + CELL_H,
                            x + cell_w
                        );
                    }
                }
            }
        }
        let _ = writeln!(
            s,
            r##"<rect x="{grid_x}" y="{grid_y}" width="{grid_w}" height="{grid_h}" fill="none" stroke="#222" stroke-width="2.5"/>"##
        );

        // Memory panel.
        for slot in 0..shown_slots {
            let (line, col) = (slot / SLOTS_PER_LINE, slot % SLOTS_PER_LINE);
            let (x, y) = (mem_x + col * mem_cell_w, grid_y + line * CELL_H);
            if col == 0 {
                let _ = writeln!(
                    s,
                    r##"<text x="{}" y="{}" text-anchor="end" fill="#555">{slot}</text>"##,
                    mem_x - 6,
                    y + 16
                );
            }
            let element = self.tiled.logical_index(slot).ok().flatten();
            let (fill, label) = match element {
                None => ("url(#pad)".to_string(), "pad".to_string()),
                Some(index) => {
                    let fill = colours.of(tile_of(slot, 0));
                    let label: Vec<String> = index.as_slice().iter().map(u64::to_string).collect();
                    (fill.to_string(), label.join(","))
                }
            };
            let _ = writeln!(
                s,
                r##"<rect x="{x}" y="{y}" width="{mem_cell_w}" height="{CELL_H}" fill="{fill}" stroke="#ffffff" stroke-width="0.5"/><text x="{}" y="{}" text-anchor="middle" font-size="{}">{}</text>"##,
                x + mem_cell_w / 2,
                y + 16,
                if label.len() * 7 > mem_cell_w as usize {
                    8
                } else {
                    11
                },
                escape(&label)
            );
            // Tile boundaries in memory: a thick bar where a tile starts.
            if let Some(&Some(n)) = tiles.first()
                && slot % n == 0
            {
                let _ = writeln!(
                    s,
                    r##"<line x1="{x}" y1="{y}" x2="{x}" y2="{}" stroke="#222" stroke-width="2.5"/>"##,
                    y + CELL_H
                );
            }
        }
        let legend_y = height - MARGIN;
        let _ = writeln!(
            s,
            r##"<text x="{MARGIN}" y="{legend_y}" fill="#333">colour = first-level tile; thick line = tile boundary; dashed = sub-tile; grey hatched = padding slot; memory cells show the element's logical index</text>"##
        );
        s.push_str("</svg>\n");
        s
    }
}

/// A colour per first-level tile, chosen so that tiles side by side in the
/// grid (or in a row of memory) never share one: each new tile takes the
/// first palette colour its left and upper neighbours do not have.
struct Colours {
    of_tile: HashMap<u64, usize>,
}

impl Colours {
    fn assign(grid: &[Vec<u64>], slots: u64, tile_of: impl Fn(u64) -> u64) -> Colours {
        let mut of_tile: HashMap<u64, usize> = HashMap::new();
        let pick = |tile: u64, neighbours: &[Option<u64>], of_tile: &mut HashMap<u64, usize>| {
            if of_tile.contains_key(&tile) {
                return;
            }
            let taken: Vec<usize> = neighbours
                .iter()
                .flatten()
                .filter_map(|t| of_tile.get(t).copied())
                .collect();
            let colour = (0..PALETTE.len()).find(|c| !taken.contains(c)).unwrap_or(0);
            of_tile.insert(tile, colour);
        };
        for (r, row) in grid.iter().enumerate() {
            for (c, &slot) in row.iter().enumerate() {
                let left = c.checked_sub(1).map(|c| tile_of(row[c]));
                let up = r.checked_sub(1).map(|r| tile_of(grid[r][c]));
                pick(tile_of(slot), &[left, up], &mut of_tile);
            }
        }
        // Tiles only in the memory panel: differ from the one before.
        for slot in 0..slots {
            let before = slot.checked_sub(1).map(&tile_of);
            pick(tile_of(slot), &[before], &mut of_tile);
        }
        Colours { of_tile }
    }

    fn of(&self, tile: u64) -> &'static str {
        PALETTE[self.of_tile.get(&tile).copied().unwrap_or(0)]
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
