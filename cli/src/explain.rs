//! `xla-layout explain`: what a layout means, for people.

use std::io::Write;

use xla_layout_core::{ArrayShape, TiledShape, memory_space_name};

use crate::{Failure, array_argument};

/// The shape of the XLA docs' first example (shapes.md).
pub const SEED_SHAPE: &str = "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}";

/// Writes the explanation of `text`.
pub fn run(text: &str, mut out: impl Write) -> Result<(), Failure> {
    let shape = array_argument(text)?;
    let tiled = shape
        .tiled()
        .map_err(|e| Failure::Input(format!("'{text}': {e}")))?;
    write_summary(&mut out, &shape, &tiled)?;
    Ok(())
}

fn write_summary(
    out: &mut impl Write,
    shape: &ArrayShape,
    tiled: &TiledShape,
) -> std::io::Result<()> {
    let layout = shape.layout_or_default();
    let ty = shape.element_type();
    writeln!(out, "shape           {shape}")?;
    writeln!(
        out,
        "element type    {ty}: {} bits, stored in {} bits per slot",
        ty.bit_width().unwrap_or(0),
        tiled.element_bits()
    )?;
    writeln!(out, "logical dims    {:?}", shape.dims())?;
    let physical: Vec<String> = layout
        .minor_to_major()
        .iter()
        .rev()
        .map(|&d| format!("d{d}={}", shape.dims()[d as usize]))
        .collect();
    writeln!(
        out,
        "physical order  {} (major to minor)",
        physical.join(", ")
    )?;
    for level in 1..=layout.tile_count() {
        let after =
            TiledShape::with_levels(shape, level).expect("valid shape stays valid per level");
        let tile = layout.tile(level - 1);
        writeln!(out, "after tile {level}    {tile:?} -> {:?}", after.dims())?;
    }
    let elements = tiled.element_count();
    let slots = tiled.physical_slots();
    let padding = slots - elements;
    writeln!(out, "elements        {elements}")?;
    writeln!(
        out,
        "slots           {slots} ({padding} padding, {:.2}%)",
        if slots == 0 {
            0.0
        } else {
            100.0 * padding as f64 / slots as f64
        }
    )?;
    writeln!(out, "exact bytes     {}", tiled.exact_bytes())?;
    let show = |r: Result<u64, xla_layout_core::AddressError>| match r {
        Ok(v) => v.to_string(),
        Err(e) => format!("undefined ({e})"),
    };
    writeln!(out, "XLA ByteSizeOf  {}", show(shape.xla_byte_size_of()))?;
    writeln!(out, "XLA ArraySize   {}", show(shape.xla_array_size()))?;
    writeln!(
        out,
        "XLA ArrayDataSize {}",
        show(shape.xla_array_data_size())
    )?;
    let space = shape.memory_space();
    writeln!(
        out,
        "memory space    S({space}): {}",
        memory_space_name(space)
    )?;
    Ok(())
}
