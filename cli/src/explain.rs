//! `xla-layout explain`: what a layout means, for people (and, with
//! `--json`, for scripts).

use std::io::Write;
use std::path::PathBuf;

use serde_json::{Map, Value, json};
use xla_layout_core::{
    AddressError, ArrayShape, COMBINE, GridError, OffsetGrid, TiledShape, memory_space_name,
};

use crate::common::{Failure, array_argument, numbers};
use crate::svg::Picture;

/// The shape of the XLA docs' first example (shapes.md).
pub const SEED_SHAPE: &str = "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}";

/// Rows and columns an SVG picture draws at most, whatever `--max` says.
pub const MAX_PICTURE: usize = 256;

/// Explain a shape: sizes, tiling, padding, memory space, slot offsets.
///
/// Prints the canonical text, element type and bits, logical dims and
/// physical order, the tiled shape after each tile level, elements, slots
/// (padding included), exact and XLA sizes and the memory space; then a
/// grid of slot offsets over two logical dimensions (the last two unless
/// --dims; the others at --at, default 0; at most --max rows and columns,
/// the first ones and the last). --json writes all of it as one JSON
/// object instead; --svg also draws the layout as an SVG picture.
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// The array shape, also as tpu(SHAPE) or SHAPE Layout(major_to_minor=...) [default: the XLA docs' bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}]
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
    /// Also draw the layout as an SVG picture in FILE (`-`: stdout, instead
    /// of the text)
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Write one JSON object instead of the text
    #[arg(long)]
    pub json: bool,
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
        _ => Err(format!(
            "expected two dimensions, ROW,COL, not '{}'",
            crate::common::shown(text)
        )),
    }
}

fn parse_max(text: &str) -> Result<usize, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if n >= 2 => Ok(to_usize(n)),
        _ => Err(format!(
            "expected a number, at least 2, not '{}'",
            crate::common::shown(text)
        )),
    }
}

fn to_usize(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// What `explain` was asked, checked.
#[derive(Debug, Default)]
pub struct Options {
    /// The index of the dimensions the grid does not show.
    pub at: Option<Vec<u64>>,
    /// The grid's row and column dimensions.
    pub dims: Option<(usize, usize)>,
    /// At most this many grid rows and columns.
    pub max: Option<usize>,
    /// Where to write the SVG picture (`-`: stdout).
    pub svg: Option<PathBuf>,
    /// JSON instead of text.
    pub json: bool,
}

/// Runs `explain` with `args`.
pub fn main(args: &Args, out: impl Write) -> Result<(), Failure> {
    let options = Options {
        at: args.at.clone().map(|i| i.0),
        dims: args.dims,
        max: args.max,
        svg: args.svg.clone(),
        json: args.json,
    };
    if options.json && options.svg_to_stdout() {
        return Err(Failure::Usage {
            command: "explain",
            message: "--json and --svg - both write to stdout: give --svg a file".into(),
        });
    }
    run(args.shape.as_deref().unwrap_or(SEED_SHAPE), &options, out)
}

impl Options {
    fn svg_to_stdout(&self) -> bool {
        self.svg.as_ref().is_some_and(|p| p.as_os_str() == "-")
    }
}

/// Writes the explanation of `text`: everything is checked before the
/// first byte goes out.
pub fn run(text: &str, options: &Options, mut out: impl Write) -> Result<(), Failure> {
    let shape = array_argument(text)?;
    let warning = crate::common::read_past(text);
    let tiled = shape
        .tiled()
        .map_err(|e| Failure::Input(format!("'{}': {e}", crate::common::shown(text))))?;
    // --dims and --at that do not fit the shape: arguments that parse but
    // do not go together (exit 2).
    let bad = |e: GridError| Failure::Usage {
        command: "explain",
        message: format!("'{}': {e}", crate::common::shown(text)),
    };
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
    let picture = options.svg.as_ref().map(|path| {
        let max = options.max.unwrap_or(32).min(MAX_PICTURE) as u64;
        let svg = Picture {
            shape: &shape,
            tiled: &tiled,
            rows: grid.row_dim(),
            cols: grid.col_dim(),
            at: grid.at_index(),
            max_rows: max,
            max_cols: max,
        }
        .render();
        (path, svg)
    });
    match picture {
        // The picture alone goes to stdout.
        Some((path, svg)) if path.as_os_str() == "-" => {
            out.write_all(svg.as_bytes())?;
            return Ok(out.flush()?);
        }
        Some((path, svg)) => std::fs::write(path, svg)
            .map_err(|e| Failure::Input(format!("cannot write {}: {e}", path.display())))?,
        None => {}
    }
    if options.json {
        write_json(&mut out, &shape, &tiled, &grid, warning.as_deref())?;
    } else {
        write_summary(&mut out, &shape, &tiled, warning.as_deref())?;
        writeln!(out)?;
        write!(out, "slot offsets: {grid}")?;
        if let Some(path) = &options.svg {
            writeln!(out, "\npicture written to {}", path.display())?;
        }
    }
    Ok(out.flush()?)
}

/// The numbers `explain` shows, shared by the text and the JSON.
struct Summary {
    elements: u64,
    slots: u64,
    padding: u64,
    percent: f64,
}

impl Summary {
    fn of(tiled: &TiledShape) -> Summary {
        let elements = tiled.element_count();
        let slots = tiled.physical_slots();
        let padding = slots.saturating_sub(elements);
        let percent = if slots == 0 {
            0.0
        } else {
            100.0 * padding as f64 / slots as f64
        };
        Summary {
            elements,
            slots,
            padding,
            percent,
        }
    }
}

/// The logical dimensions, major to minor in memory.
fn physical_order(shape: &ArrayShape) -> Vec<usize> {
    // Validated: every entry is a dimension number.
    let layout = shape.layout_or_default();
    layout
        .minor_to_major()
        .iter()
        .rev()
        .map(|&d| d as usize)
        .collect()
}

/// The tiled dims after each tile level (1-based level `k` at `k - 1`).
fn dims_after_each_tile(shape: &ArrayShape) -> Vec<Result<Vec<u64>, AddressError>> {
    let count = shape.layout_or_default().tile_count();
    (1..=count)
        .map(|level| TiledShape::with_levels(shape, level).map(|t| t.dims().to_vec()))
        .collect()
}

fn write_summary(
    out: &mut impl Write,
    shape: &ArrayShape,
    tiled: &TiledShape,
    warning: Option<&str>,
) -> std::io::Result<()> {
    let mut line =
        |label: &str, value: std::fmt::Arguments<'_>| writeln!(out, "{label:<18}{value}");
    let layout = shape.layout_or_default();
    let ty = shape.element_type();
    line("canonical text", format_args!("{shape}"))?;
    if let Some(warning) = warning {
        line("warning", format_args!("{warning}"))?;
    }
    line(
        "element type",
        format_args!(
            "{ty}: {}, stored in {} per slot",
            crate::common::counted(u64::from(ty.bit_width().unwrap_or(0)), "bit", "bits"),
            crate::common::counted(tiled.element_bits(), "bit", "bits")
        ),
    )?;
    line("logical dims", format_args!("{:?}", shape.dims()))?;
    let physical: Vec<String> = physical_order(shape)
        .into_iter()
        .map(|d| format!("d{d}={}", shape.dims()[d]))
        .collect();
    match physical.is_empty() {
        true => line("physical order", format_args!("none (a scalar)"))?,
        false => line(
            "physical order",
            format_args!("{} (major to minor)", physical.join(", ")),
        )?,
    }
    for (k, after) in dims_after_each_tile(shape).into_iter().enumerate() {
        let tile = layout.tile_text(k);
        let label = format!("after tile {}", k + 1);
        match after {
            Ok(dims) => line(&label, format_args!("{tile} -> {dims:?}"))?,
            Err(e) => line(&label, format_args!("{tile} -> undefined ({e})"))?,
        }
    }
    let s = Summary::of(tiled);
    line("elements", format_args!("{}", s.elements))?;
    line(
        "slots",
        format_args!("{} ({} padding, {:.2}%)", s.slots, s.padding, s.percent),
    )?;
    line("exact bytes", format_args!("{}", tiled.exact_bytes()))?;
    let show = |r: Result<u64, AddressError>| match r {
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
    match layout.jax() {
        Ok(jax) => line("JAX layout", format_args!("{jax}"))?,
        Err(e) => line("JAX layout", format_args!("none ({e})"))?,
    }
    Ok(())
}

/// A tile's entries as JSON: numbers, `"*"` for a combine entry.
fn tile_json(tile: &[i64]) -> Value {
    tile.iter()
        .map(|&e| if e == COMBINE { json!("*") } else { json!(e) })
        .collect()
}

/// One JSON object with what the text shows. The grid's offsets come
/// last and are streamed row by row: a large `--max` costs no memory.
fn write_json(
    out: &mut impl Write,
    shape: &ArrayShape,
    tiled: &TiledShape,
    grid: &OffsetGrid<'_>,
    warning: Option<&str>,
) -> Result<(), Failure> {
    let layout = shape.layout_or_default();
    let ty = shape.element_type();
    let s = Summary::of(tiled);
    let tiles: Vec<Value> = dims_after_each_tile(shape)
        .into_iter()
        .enumerate()
        .map(|(k, after)| {
            json!({
                "tile": tile_json(layout.tile(k)),
                "dims_after": after.ok(),
            })
        })
        .collect();
    let space = shape.memory_space();
    let mut object = Map::new();
    let mut field = |name: &str, value: Value| object.insert(name.to_string(), value);
    field("canonical", json!(shape.to_string()));
    field("warning", json!(warning));
    field("element_type", json!(ty.to_string()));
    field("element_bits", json!(ty.bit_width()));
    field("slot_bits", json!(tiled.element_bits()));
    field("dims", json!(shape.dims()));
    field("physical_order", json!(physical_order(shape)));
    field("tiles", Value::Array(tiles));
    field("elements", json!(s.elements));
    field("slots", json!(s.slots));
    field("padding_slots", json!(s.padding));
    field("padding_percent", json!(s.percent));
    field("bytes", json!(tiled.exact_bytes()));
    field("xla_byte_size_of", json!(shape.xla_byte_size_of().ok()));
    field("xla_array_size", json!(shape.xla_array_size().ok()));
    field(
        "xla_array_data_size",
        json!(shape.xla_array_data_size().ok()),
    );
    field("memory_space", json!(space));
    field("memory_space_name", json!(memory_space_name(space)));
    let layout = shape.layout_or_default();
    field(
        "jax_layout",
        json!(layout.jax().ok().map(|j| j.to_string())),
    );
    let rows: Vec<u64> = grid.shown_rows().collect();
    let cols: Vec<u64> = grid.shown_cols().collect();
    let head = json!({
        "row_dim": grid.row_dim(),
        "col_dim": grid.col_dim(),
        "at": grid.at_index(),
        "row_indices": rows,
        "col_indices": cols,
    });
    // `{...fields,"grid":{...head,"offsets":[[...],...]}}`
    let fields = Value::Object(object).to_string();
    let head = head.to_string();
    write!(
        out,
        "{},\"grid\":{},\"offsets\":[",
        fields.strip_suffix('}').unwrap_or(&fields),
        head.strip_suffix('}').unwrap_or(&head)
    )?;
    for (i, &r) in rows.iter().enumerate() {
        out.write_all(if i == 0 { b"[" } else { b",[" })?;
        for (j, &c) in cols.iter().enumerate() {
            if j > 0 {
                out.write_all(b",")?;
            }
            // Every shown row and column is inside the grid.
            let offset = grid.offset_at(r, c).unwrap_or_default();
            write!(out, "{offset}")?;
        }
        out.write_all(b"]")?;
    }
    out.write_all(b"]}}\n")?;
    Ok(())
}
