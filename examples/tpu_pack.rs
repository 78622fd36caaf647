//! A kernel-style use of `layout!`: pack a row-major bf16 matrix into the
//! TPU's `(8,128)(2,1)` tiled format and read it back, with both buffers'
//! layouts written as XLA writes them.
//!
//! Run with `cargo run --example tpu_pack`. Every line it prints can be
//! checked by hand against tiled_layout.md: in the bf16 TPU format the
//! 32-bit word at byte `4w` holds rows `2r` and `2r+1` of one column.

use xla_layout::{StaticLayout, layout};

layout! {
    /// What the host has: a plain row-major matrix.
    pub type Host = bf16[16,256]{1,0};
    /// What the TPU wants: 8×128 tiles, rows packed in pairs.
    pub type Tpu = bf16[16,256]{1,0:T(8,128)(2,1)};
}

/// bf16 bits of a small integer (exact in bf16 up to 256).
fn bf16_bits(v: u16) -> u16 {
    (f32::from(v).to_bits() >> 16) as u16
}

/// Copies every element from one layout to another of the same logical
/// shape; the compiler checks that the shapes match.
fn relayout<Src, Dst>(src_layout: Src, src: &[u16], dst_layout: Dst, dst: &mut [u16])
where
    Src: StaticLayout<Index = [usize; 2]>,
    Dst: StaticLayout<Index = [usize; 2], Logical = Src::Logical>,
{
    assert!(src.len() >= Src::PHYSICAL_ELEMENTS && dst.len() >= Dst::PHYSICAL_ELEMENTS);
    let [rows, cols] = Src::DIMS;
    for r in 0..rows {
        for c in 0..cols {
            dst[dst_layout.offset([r, c])] = src[src_layout.offset([r, c])];
        }
    }
}

fn main() {
    // Element (r, c) holds r*256 + c, reduced mod 251 so bf16 holds it exactly.
    let value = |r: usize, c: usize| ((r * 256 + c) % 251) as u16;
    let mut host = vec![0u16; Host::PHYSICAL_ELEMENTS];
    for r in 0..16 {
        for c in 0..256 {
            host[Host.offset([r, c])] = bf16_bits(value(r, c));
        }
    }
    let mut tpu = vec![0u16; Tpu::PHYSICAL_ELEMENTS];
    relayout(Host, &host, Tpu, &mut tpu);

    println!("host layout: {Host}  ({} bytes)", Host::BYTES);
    println!("tpu layout:  {Tpu}  ({} bytes)", Tpu::BYTES);
    println!();
    println!("where elements go in the TPU buffer (slot = 2-byte unit):");
    for (r, c) in [
        (0, 0),
        (1, 0),
        (0, 1),
        (2, 0),
        (7, 127),
        (0, 128),
        (8, 0),
        (15, 255),
    ] {
        let slot = Tpu.offset([r, c]);
        println!(
            "  ({r:2},{c:3}) -> slot {slot:4}, 32-bit word {:4}, half {}",
            slot / 2,
            slot % 2
        );
    }
    println!();
    println!("the first four 32-bit words pair rows 0 and 1 of columns 0 to 3");
    println!("(element (r, c) holds (r*256 + c) mod 251, which bf16 holds exactly):");
    for w in 0..4 {
        let lo = f32::from_bits(u32::from(tpu[2 * w]) << 16);
        let hi = f32::from_bits(u32::from(tpu[2 * w + 1]) << 16);
        println!(
            "  word {w}: low half = {lo:>5} (row 0, col {w}), high half = {hi:>5} (row 1, col {w})"
        );
    }
    // Round trip: reading the TPU buffer back gives the host matrix.
    let mut back = vec![0u16; Host::PHYSICAL_ELEMENTS];
    relayout(Tpu, &tpu, Host, &mut back);
    assert_eq!(back, host);
    println!();
    println!(
        "round trip host -> tpu -> host: identical ({} elements)",
        host.len()
    );
}
