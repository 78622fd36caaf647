//! `xla-layout offsets 'SHAPE'`: every logical index and its slot.

use std::io::Write;

use crate::common::{Failure, array_argument};

/// List every logical index of an array with its slot, as JSON.
///
/// Writes {"shape": canonical text, "physical_elements": the slot count,
/// "offsets": [[i0, ..., offset], ...]} with indices in row-major order;
/// at most 10^7 elements.
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// The array shape, e.g. 'f32[2,3]{0,1}' (also tpu(SHAPE) or SHAPE Layout(major_to_minor=...))
    pub shape: String,
}

/// Refuse to list more than this many elements.
pub const MAX_ELEMENTS: u64 = 10_000_000;

/// Writes `{"shape": …, "physical_elements": n, "offsets": [[i0, …, offset], …]}`
/// with indices in row-major order of the logical dimensions. Streams: the
/// list is never held in memory.
pub fn run(text: &str, output: impl Write) -> Result<(), Failure> {
    let shape = array_argument(text)?;
    let tiled = shape
        .tiled()
        .map_err(|e| Failure::Input(format!("'{}': {e}", crate::common::shown(text))))?;
    let count = tiled.element_count();
    if count > MAX_ELEMENTS {
        return Err(Failure::Input(format!(
            "'{shape}' has {count} elements; offsets lists at most {MAX_ELEMENTS}"
        )));
    }
    let mut out = std::io::BufWriter::with_capacity(1 << 16, output);
    write!(
        out,
        "{{\"shape\":{},\"physical_elements\":{},\"offsets\":[",
        json_string(&shape.to_string()),
        tiled.physical_slots()
    )?;
    let dims = tiled.logical_dims().to_vec();
    let mut index = vec![0u64; dims.len()];
    for n in 0..count {
        if n > 0 {
            out.write_all(b",")?;
        }
        out.write_all(b"[")?;
        for i in &index {
            write!(out, "{i},")?;
        }
        // In bounds by construction.
        let offset = tiled.offset_unchecked(&index);
        write!(out, "{offset}]")?;
        // Row-major increment: the last dimension fastest.
        for d in (0..dims.len()).rev() {
            index[d] += 1;
            if index[d] < dims[d] {
                break;
            }
            index[d] = 0;
        }
    }
    out.write_all(b"]}\n")?;
    out.flush()?;
    Ok(())
}

fn json_string(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}
