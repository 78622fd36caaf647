//! `xla-layout explain`: what a layout means, for people.

use std::io::Write;

use xla_layout_core::{ArrayShape, GridError, TiledShape, memory_space_name};

use crate::svg::Picture;
use crate::{Failure, array_argument, numbers};

/// The shape of the XLA docs' first example (shapes.md).
pub const SEED_SHAPE: &str = "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}";

/// Explain a shape: sizes, tiling, padding, memory space, slot offsets.
///
/// Prints the canonical text, element type and bits, logical dims and
/// physical order, the tiled shape after each tile level, elements, slots
/// (padding included), exact and XLA sizes and the memory space; then a
/// grid of slot offsets over two logical dimensions (the last two unless
/// --dims; the others at --at, default 0; at most --max rows and columns,
/// the first ones and the last). --svg also draws the layout as an SVG
/// picture.
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// The array shape [default: the XLA docs' bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}]
    pub shape: Option<String>,
    /// The grid's row and column dimensions
    #[arg(long, value_name = "ROW,COL", value_parser = parse_dims)]
    pub dims: Option<(usize, usize)>,
    /// The index of the dimensions the grid does not show (one entry per dimension)
    #[arg(long, value_name = "I0,I1,...", value_parser = parse_index)]
    pub at: Option<Index>,
    /// At most N grid rows and columns [default: 16; 32 in the picture]
    #[arg(long, value_name = "N", value_parser = parse_max)]
    pub max: Option<usize>,
    /// Also draw the layout as an SVG picture in FILE
    #[arg(long, value_name = "FILE")]
    pub svg: Option<String>,
}

/// A logical index given as `I0,I1,...`.
#[derive(Clone, Debug)]
pub struct Index(pub Vec<u64>);

fn parse_index(text: &str) -> Result<Index, String> {
    numbers(text).map(Index)
}

fn parse_dims(text: &str) -> Result<(usize, usize), String> {
    match numbers(text)?.as_slice() {
        &[r, c] => Ok((to_usize(r), to_usize(c))),
        _ => Err(format!("expected two dimensions, ROW,COL, not '{text}'")),
    }
}

fn parse_max(text: &str) -> Result<usize, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if n >= 2 => Ok(to_usize(n)),
        _ => Err(format!("expected a number, at least 2, not '{text}'")),
    }
}

fn to_usize(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// What `explain` was asked.
#[derive(Debug, Default)]
pub struct Options {
    /// The index of the dimensions the grid does not show.
    pub at: Option<Vec<u64>>,
    /// The grid's row and column dimensions.
    pub dims: Option<(usize, usize)>,
    /// At most this many grid rows and columns.
    pub max: Option<usize>,
    /// Where to write the SVG picture.
    pub svg: Option<String>,
}

/// Runs `explain` with `args`.
pub fn main(args: &Args, out: impl Write) -> Result<(), Failure> {
    let options = Options {
        at: args.at.clone().map(|i| i.0),
        dims: args.dims,
        max: args.max,
        svg: args.svg.clone(),
    };
    run(args.shape.as_deref().unwrap_or(SEED_SHAPE), &options, out)
}

/// Writes the explanation of `text`.
pub fn run(text: &str, options: &Options, mut out: impl Write) -> Result<(), Failure> {
    let shape = array_argument(text)?;
    let tiled = shape
        .tiled()
        .map_err(|e| Failure::Input(format!("'{text}': {e}")))?;
    let bad = |e: GridError| Failure::Input(format!("'{text}': {e}"));
    let mut grid = tiled.offset_grid();
    if let Some((r, c)) = options.dims {
        grid = grid.dims(r, c).map_err(bad)?;
    }
    if let Some(at) = &options.at {
        grid = grid.at(at).map_err(bad)?;
    }
    if let Some(n) = options.max {
        grid = grid.max(n, n);
    }
    write_summary(&mut out, &shape, &tiled)?;
    writeln!(out)?;
    write!(out, "slot offsets: {grid}")?;
    if let Some(path) = &options.svg {
        let rank = tiled.rank();
        let (rows, cols) = match options.dims {
            Some((r, c)) => (Some(r), Some(c)),
            None => (rank.checked_sub(2), rank.checked_sub(1)),
        };
        let at = options.at.clone().unwrap_or_else(|| vec![0; rank]);
        let max = options.max.unwrap_or(32) as u64;
        let picture = Picture {
            shape: &shape,
            tiled: &tiled,
            rows,
            cols,
            at: &at,
            max_rows: max,
            max_cols: max,
        };
        std::fs::write(path, picture.render())
            .map_err(|e| Failure::Input(format!("cannot write {path}: {e}")))?;
        writeln!(out, "\npicture written to {path}")?;
    }
    Ok(())
}

fn write_summary(
    out: &mut impl Write,
    shape: &ArrayShape,
    tiled: &TiledShape,
) -> std::io::Result<()> {
    let mut line =
        |label: &str, value: std::fmt::Arguments<'_>| writeln!(out, "{label:<18}{value}");
    let layout = shape.layout_or_default();
    let ty = shape.element_type();
    line("canonical text", format_args!("{shape}"))?;
    line(
        "element type",
        format_args!(
            "{ty}: {} bits, stored in {} bits per slot",
            ty.bit_width().unwrap_or(0),
            tiled.element_bits()
        ),
    )?;
    line("logical dims", format_args!("{:?}", shape.dims()))?;
    let physical: Vec<String> = layout
        .minor_to_major()
        .iter()
        .rev()
        .map(|&d| format!("d{d}={}", shape.dims()[d as usize]))
        .collect();
    line(
        "physical order",
        format_args!("{} (major to minor)", physical.join(", ")),
    )?;
    for level in 1..=layout.tile_count() {
        let after =
            TiledShape::with_levels(shape, level).expect("valid shape stays valid per level");
        let tile = layout.tile(level - 1);
        line(
            &format!("after tile {level}"),
            format_args!("{tile:?} -> {:?}", after.dims()),
        )?;
    }
    let elements = tiled.element_count();
    let slots = tiled.physical_slots();
    let padding = slots - elements;
    let percent = if slots == 0 {
        0.0
    } else {
        100.0 * padding as f64 / slots as f64
    };
    line("elements", format_args!("{elements}"))?;
    line(
        "slots",
        format_args!("{slots} ({padding} padding, {percent:.2}%)"),
    )?;
    line("exact bytes", format_args!("{}", tiled.exact_bytes()))?;
    let show = |r: Result<u64, xla_layout_core::AddressError>| match r {
        Ok(v) => v.to_string(),
        Err(e) => format!("undefined ({e})"),
    };
    line(
        "XLA ByteSizeOf",
        format_args!("{}", show(shape.xla_byte_size_of())),
    )?;
    line(
        "XLA ArraySize",
        format_args!("{}", show(shape.xla_array_size())),
    )?;
    line(
        "XLA ArrayDataSize",
        format_args!("{}", show(shape.xla_array_data_size())),
    )?;
    let space = shape.memory_space();
    line(
        "memory space",
        format_args!("S({space}): {}", memory_space_name(space)),
    )?;
    Ok(())
}
