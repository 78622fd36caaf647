//! Shapes the reader has parsed, by their exact text: a dump writes the
//! same few shapes on instruction after instruction, and recognising one
//! (skim its extent, hash, compare bytes) costs a tenth of parsing it.

use alloc::vec;
use alloc::vec::Vec;

use xla_layout_core::Shape;

/// Remembered shapes, in sets of [`WAYS`]; a power of two.
const SLOTS: usize = 128;

/// Slots per set: two, so that two common shapes whose texts hash alike do
/// not evict each other on every instruction.
const WAYS: usize = 2;

/// The longest text remembered: a shape is recognised by scanning at most
/// this far (and one byte more) for its end, so that each instruction's
/// quick look costs a bounded number of bytes even where many
/// instructions share one line. Longer shapes are parsed each time, in
/// time linear in their text.
pub(crate) const MAX_TEXT: usize = 4096;

/// The most arrays and tuples (counted as `[` and `(` bytes, which tiles
/// add to) a remembered shape may have: a parsed node takes some 760
/// bytes, so a slot holds at most about 100 KB and the table some 12 MB,
/// whatever the shapes (a 4 KiB text of nested tuples parses to megabytes,
/// and 128 of them were kept). Dumps' shapes have a few nodes; larger ones
/// are parsed each time.
const MAX_NODES: usize = 128;

/// The slot that always holds `token[]`, the shape of "no shape".
pub(crate) const NO_SHAPE: usize = SLOTS;

/// The slot for shapes that are not remembered.
const SCRATCH: usize = SLOTS + 1;

/// A two-way set-associative table from shape text to its parsed shape. Only texts
/// that parsed whole, exactly to their skimmed extent, are remembered, so a
/// hit is the parse the parser would produce.
pub(crate) struct ShapeMemo<'a> {
    texts: Vec<Option<&'a str>>,
    shapes: Vec<Shape>,
    /// Per set, the way that hit or was filled last.
    last_used: Vec<u8>,
}

impl<'a> ShapeMemo<'a> {
    pub(crate) fn new() -> ShapeMemo<'a> {
        ShapeMemo {
            texts: vec![None; SLOTS],
            shapes: vec![Shape::Token; SLOTS + 2],
            last_used: vec![0; SLOTS / WAYS],
        }
    }

    /// `Ok(slot)` when `text` was parsed before; otherwise `Err(slot)`, the
    /// slot to parse it into. `None` text (no skimmed extent) goes to the
    /// scratch slot.
    pub(crate) fn find(&mut self, text: Option<&'a str>) -> Result<usize, usize> {
        let Some(text) = text.filter(|t| worth_remembering(t)) else {
            return Err(SCRATCH);
        };
        let set = (hash(text.as_bytes()) % (SLOTS / WAYS)) * WAYS;
        for slot in set..set + WAYS {
            if self.texts[slot] == Some(text) {
                self.last_used[set / WAYS] = (slot - set) as u8;
                return Ok(slot);
            }
        }
        // Replace the way not used last.
        Err(set + (1 - self.last_used[set / WAYS] as usize))
    }

    /// The shape in `slot`, to parse into; forgets the slot's text.
    pub(crate) fn shape_mut(&mut self, slot: usize) -> &mut Shape {
        if let Some(t) = self.texts.get_mut(slot) {
            *t = None;
        }
        &mut self.shapes[slot]
    }

    /// Records that `slot` now holds the parse of `text` (unless the text
    /// is longer than [`MAX_TEXT`]).
    pub(crate) fn remember(&mut self, slot: usize, text: &'a str) {
        if text.len() > MAX_TEXT {
            return;
        }
        if let Some(t) = self.texts.get_mut(slot) {
            *t = Some(text);
            self.last_used[slot / WAYS] = (slot % WAYS) as u8;
        }
    }

    pub(crate) fn shape(&self, slot: usize) -> &Shape {
        &self.shapes[slot]
    }
}

/// Whether a shape's text is short and small enough to keep its parse
/// ([`MAX_TEXT`], [`MAX_NODES`]). Nodes are counted only in texts longer
/// than twice [`MAX_NODES`], which cannot hold more.
fn worth_remembering(text: &str) -> bool {
    text.len() <= 2 * MAX_NODES
        || text.len() <= MAX_TEXT
            && (text.bytes()).filter(|b| matches!(b, b'(' | b'[')).count() <= MAX_NODES
}

/// A hash of shape text, eight bytes at a time (shapes are some forty
/// bytes; only the set index is taken from it, and hits compare the text).
fn hash(text: &[u8]) -> usize {
    let (words, tail) = text.as_chunks::<8>();
    let mut h: u64 = text.len() as u64;
    for w in words.iter().chain(core::iter::once(&{
        let mut last = [0u8; 8];
        last[..tail.len()].copy_from_slice(tail);
        last
    })) {
        h = (h ^ u64::from_le_bytes(*w)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h ^= h >> 29;
    }
    h as usize
}
