//! Typed views: buffers read and written through a compile-time layout.
//!
//! A [`View`] / [`ViewMut`] wraps a slice whose element type holds the
//! layout's elements slot for slot (`f32` for `f32[...]`, `u16` or
//! `half::bf16` for `bf16[...]`); a [`BitsView`] / [`BitsViewMut`] wraps raw
//! bytes and reads any element, packed sub-byte ones included (XLA packs
//! from the least significant bit). Construction checks the buffer once;
//! the checked accessors never panic.

mod dynamic;
mod element;
mod iter;

use core::marker::PhantomData;

pub use dynamic::{DynBitsView, DynBitsViewMut, DynView, DynViewMut};
pub use element::Element;
pub use iter::{Indices, Lane, Physical};

use crate::bits::{MAX_VALUE_BITS, read_value, write_bits};
use crate::const_message::{MESSAGE, append, fail, message};
use crate::{ElementType, IndexError, Relayout, RelayoutError, StaticLayout};

/// Why a buffer cannot be viewed through a layout.
///
/// ```
/// use xla_layout::{layout, BitsView, DynView, StaticLayout, View, ViewError};
/// layout! { type L = bf16[2,3]{1,0}; }
/// assert_eq!(View::<L, u16>::new(&[0; 5]).unwrap_err(), ViewError::TooShort { needed: 6, got: 5 });
/// assert_eq!(BitsView::<L, u16>::new(&[0; 11]).unwrap_err(), ViewError::TooFewBytes { needed: 12, got: 11 });
/// // f32 does not hold bf16: the runtime views say so (the static ones fail to build).
/// assert!(matches!(DynView::<f32>::new(&L::TILED, &[0.0; 6]), Err(ViewError::ElementType { slot_bits: 16, .. })));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ViewError {
    /// The buffer has fewer elements than the layout has slots (the typed
    /// views: one buffer element per slot).
    TooShort {
        /// Slots the layout needs.
        needed: usize,
        /// Elements the buffer has.
        got: usize,
    },
    /// The bytes are fewer than the layout needs ([`BitsView`],
    /// [`BitsViewMut`], their run-time forms, and every `from_bytes`).
    TooFewBytes {
        /// Bytes the layout needs.
        needed: usize,
        /// Bytes the buffer has.
        got: usize,
    },
    /// The bytes are not aligned for the Rust element type
    /// (`View::from_bytes` and its siblings, feature `bytemuck`).
    Misaligned {
        /// The alignment the element type needs.
        align: usize,
    },
    /// The Rust element type does not hold the layout's elements slot for
    /// slot.
    ElementType {
        /// The layout's element type.
        layout: ElementType,
        /// The layout's storage bits per slot.
        slot_bits: u64,
        /// The Rust type's bits.
        rust_bits: u32,
        /// The Rust type's name (`core::any::type_name`).
        rust_type: &'static str,
        /// The element types it stands for ([`Element::HOLDS`]).
        rust_holds: crate::ElementTypes,
    },
}

impl ViewError {
    /// The error for a `T` that does not hold `layout`'s elements in
    /// `slot_bits`-bit slots.
    fn element_type<T: Element>(layout: ElementType, slot_bits: u64) -> ViewError {
        ViewError::ElementType {
            layout,
            slot_bits,
            rust_bits: T::BITS,
            rust_type: core::any::type_name::<T>(),
            rust_holds: T::HOLDS,
        }
    }
}

impl core::fmt::Display for ViewError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::TooShort { needed, got } => write!(
                f,
                "the buffer is too short: the layout has {needed} slots and the buffer {got} elements"
            ),
            Self::TooFewBytes { needed, got } => write!(
                f,
                "the buffer is too short: the layout needs {needed} bytes and it has {got}"
            ),
            Self::Misaligned { align } => {
                write!(
                    f,
                    "the bytes are not aligned to {align} for the element type"
                )
            }
            Self::ElementType {
                layout,
                slot_bits,
                rust_bits,
                rust_type,
                rust_holds,
            } => {
                // Say which of the three rules it breaks: what the type
                // stands for, its width, or a value narrower than its slot.
                if !rust_holds.contains(*layout) {
                    write!(
                        f,
                        "`{rust_type}` does not stand for `{layout}` elements: it holds "
                    )?;
                    let mut first = true;
                    for t in ElementType::ALL.iter().filter(|&&t| rust_holds.contains(t)) {
                        let sep = if first { "" } else { ", " };
                        write!(f, "{sep}{t}")?;
                        first = false;
                    }
                    return f.write_str(" (see `Element::HOLDS`)");
                }
                if *slot_bits > MAX_VALUE_BITS as u64 {
                    return write!(
                        f,
                        "`{layout}` elements in {slot_bits}-bit slots: no view reads slots wider than {MAX_VALUE_BITS} bits"
                    );
                }
                if u64::from(*rust_bits) == *slot_bits {
                    write!(
                        f,
                        "`{rust_type}` holds `{layout}` values, but each fills only part of its {slot_bits}-bit slot"
                    )?;
                } else {
                    write!(
                        f,
                        "`{rust_type}` is {rust_bits} bits wide, and the layout stores `{layout}` elements in {slot_bits}-bit slots"
                    )?;
                }
                // Slots that are not whole bytes, or a value and its slot of
                // different widths: only the bit views read those (pred's
                // byte is its own rule).
                let width = layout.bit_width().map(u64::from);
                if *layout != ElementType::PRED
                    && (slot_bits % 8 != 0 || width.is_some_and(|w| w != *slot_bits))
                {
                    f.write_str(
                        " (packed, or narrower than its slot: read them with the bit views)",
                    )?;
                }
                Ok(())
            }
        }
    }
}

impl core::error::Error for ViewError {}

/// A relayout plan between two static layouts, computed at compile time.
struct Plan<S, D>(PhantomData<(S, D)>);

impl<S: StaticLayout, D: StaticLayout> Plan<S, D> {
    const PLAN: Relayout = match Relayout::new(&S::TILED, &D::TILED) {
        Ok(p) => p,
        Err(_) => panic!("relayout between layouts of different logical shapes"),
    };
    /// Whether every value of `S` survives in `D`'s slots: a bit view's
    /// `copy_from` has no error to return, so a pair whose `D` slots are
    /// narrower than `S`'s values (`bits::Mover::cuts`) fails to build.
    const UNCUT: () = assert!(
        !crate::bits::Mover::new(S::ELEMENT_TYPE, S::ELEMENT_BITS, D::ELEMENT_BITS).cuts(),
        "the destination layout's slots (E(n)) are narrower than the source's values: a value could be cut; use Relayout::copy_bytes, which checks each one"
    );
}

/// Whether `T` holds a layout's elements slot for slot: it stands for the
/// element type, is exactly as wide as a slot, and the slot is exactly the
/// element (`pred` aside, a byte that is 0 or 1). A sub-byte type stored
/// one per byte (`s4[…]{0}`) is refused: XLA leaves the byte's upper bits
/// unspecified, so only the bit views, which read the low bits, see its
/// value.
pub(crate) fn check_element<T: Element>(ty: ElementType, slot_bits: u64) -> Result<(), ViewError> {
    if !holds_slots::<T>(ty, slot_bits) {
        return Err(ViewError::element_type::<T>(ty, slot_bits));
    }
    Ok(())
}

/// [`check_element`]'s rule, for constants.
const fn holds_slots<T: Element>(ty: ElementType, slot_bits: u64) -> bool {
    let exact = matches!(ty, ElementType::PRED)
        || matches!(ty.bit_width(), Some(b) if b as u64 == slot_bits);
    T::HOLDS.contains(ty) && T::BITS as u64 == slot_bits && exact
}

/// Fails the build where a view of the static layout `L` is made with a
/// Rust type that does not hold its elements slot for slot: both are
/// known at compile time (the rustc note "the above error was
/// encountered while instantiating" names the call).
const fn assert_holds_slots<L: StaticLayout, T: Element>() {
    if !holds_slots::<T>(L::ELEMENT_TYPE, L::ELEMENT_BITS) {
        fail(&element_type_message::<L, T>(
            "View/ViewMut",
            "does not hold them slot for slot (see `Element`: f32 for f32, u16 or half::bf16 \
             for bf16; a type narrower than its slot (s4, u2, f4e2m1fn, …, packed by E(n) or one \
             per byte) or a slot narrower than its type: BitsView/BitsViewMut)",
        ));
    }
}

/// "{views} of `{layout}`: its {type} elements are in {n}-bit slots, and
/// the Rust element type ({bits} bits, for {types}) {rule}": what a view
/// check that fails says, with what the compiler knows of both sides (the
/// Rust type's name is not known in `const`; rustc's note "while
/// instantiating" gives it).
const fn element_type_message<L: StaticLayout, T: Element>(
    views: &str,
    rule: &str,
) -> ([u8; MESSAGE], usize) {
    use crate::const_message::Part::{Num, Str};
    let mut m = message(&[
        Str(views),
        Str(" of `"),
        Str(L::TEXT),
        Str("`: its "),
        Str(L::ELEMENT_TYPE.name()),
        Str(" elements are in "),
        Num(L::ELEMENT_BITS),
        Str("-bit slots, and the Rust element type ("),
        Num(T::BITS as u64),
        Str(" bits, for "),
    ]);
    let mut k = 0;
    let mut first = true;
    while k < ElementType::ALL.len() {
        let t = ElementType::ALL[k];
        if T::HOLDS.contains(t) {
            if !first {
                m = append(m, ", ");
            }
            m = append(m, t.name());
            first = false;
        }
        k += 1;
    }
    m = append(m, ") ");
    append(m, rule)
}

/// Whether `T` stands for elements of `ty` stored in `slot_bits`-bit
/// slots as the bit views read them (at most 128 bits a value): the rule
/// of both the static and the run-time bit views.
const fn holds_bits<T: Element>(ty: ElementType, slot_bits: u64) -> bool {
    T::HOLDS.contains(ty) && slot_bits <= MAX_VALUE_BITS as u64
}

/// As [`assert_holds_slots`], for the bit views.
const fn assert_holds_bits<L: StaticLayout, T: Element>() {
    if !holds_bits::<T>(L::ELEMENT_TYPE, L::ELEMENT_BITS) {
        let rule = if T::HOLDS.contains(L::ELEMENT_TYPE) {
            "stands for them, but no view reads slots wider than 128 bits"
        } else {
            "does not stand for them (see `Element`)"
        };
        fail(&element_type_message::<L, T>("BitsView/BitsViewMut", rule));
    }
}

/// The static views' run-time check, the length: the element type was
/// checked at compile time ([`assert_holds_slots`]).
fn check_slots<L: StaticLayout>(len: usize) -> Result<(), ViewError> {
    if len < L::PHYSICAL_ELEMENTS {
        return Err(ViewError::TooShort {
            needed: L::PHYSICAL_ELEMENTS,
            got: len,
        });
    }
    Ok(())
}

/// The slot of an in-bounds index, or why not.
fn slot_of<L: StaticLayout>(index: L::Index) -> Result<usize, IndexError> {
    L::default()
        .offset_checked(index)
        .ok_or_else(|| out_of_bounds::<L>(index))
}

fn out_of_bounds<L: StaticLayout>(index: L::Index) -> IndexError {
    let (idx, dims) = (index.as_ref(), L::DIMS);
    let dim = (0..L::RANK)
        .find(|&d| idx[d] >= dims.as_ref()[d])
        .unwrap_or(0);
    IndexError::OutOfBounds {
        dim,
        index: idx[dim] as u64,
        size: dims.as_ref()[dim] as u64,
    }
}

macro_rules! view_reads {
    () => {
        /// The element at `index`, or `None` if it is out of bounds.
        ///
        /// ```
        /// use xla_layout::{layout, View, ViewMut};
        /// layout! { type L = s32[2,3]{0,1}; }
        /// let mut data = [0, 3, 1, 4, 2, 5]; // column-major: (r, c) holds 3r + c
        /// let v = View::<L, i32>::new(&data).unwrap();
        /// assert_eq!(v.get([1, 2]), Some(5));
        /// assert_eq!(v.get([2, 0]), None);
        /// assert_eq!(ViewMut::<L, i32>::new(&mut data).unwrap().get([0, 1]), Some(1));
        /// ```
        pub fn get(&self, index: L::Index) -> Option<T> {
            let slot = L::default().offset_checked(index)?;
            // SAFETY: StaticLayout guarantees in-bounds indices map below
            // PHYSICAL_ELEMENTS, and `new` checked the length.
            Some(unsafe { *self.data.get_unchecked(slot) })
        }

        /// The element at `index`, without the bounds check.
        ///
        /// # Safety
        /// Every entry of `index` must be below its dimension's size
        /// (`L::DIMS`); otherwise the read may be out of the buffer.
        ///
        /// ```
        /// use xla_layout::{layout, View, ViewMut};
        /// layout! { type L = s32[2,3]{0,1}; }
        /// let mut data = [0, 3, 1, 4, 2, 5]; // column-major: (r, c) holds 3r + c
        /// let v = View::<L, i32>::new(&data).unwrap();
        /// // SAFETY: 1 < 2 and 2 < 3.
        /// assert_eq!(unsafe { v.get_unchecked([1, 2]) }, 5);
        /// let m = ViewMut::<L, i32>::new(&mut data).unwrap();
        /// // SAFETY: 0 < 2 and 1 < 3.
        /// assert_eq!(unsafe { m.get_unchecked([0, 1]) }, 1);
        /// ```
        pub unsafe fn get_unchecked(&self, index: L::Index) -> T {
            // SAFETY: the caller keeps `index` in bounds; see `get`.
            unsafe { *self.data.get_unchecked(L::default().offset(index)) }
        }

        /// Every element with its index, in row-major logical order.
        ///
        /// ```
        /// use xla_layout::{layout, View, ViewMut};
        /// layout! { type L = s32[2,3]{0,1}; }
        /// let mut data = [0, 3, 1, 4, 2, 5]; // column-major: (r, c) holds 3r + c
        /// let all: Vec<i32> = View::<L, i32>::new(&data).unwrap().iter().map(|(_, x)| x).collect();
        /// assert_eq!(all, [0, 1, 2, 3, 4, 5]);
        /// let m = ViewMut::<L, i32>::new(&mut data).unwrap();
        /// assert_eq!(m.iter().nth(4), Some(([1, 1], 4)));
        /// ```
        pub fn iter(&self) -> impl Iterator<Item = (L::Index, T)> + '_ {
            Indices::<L>::new().map(move |i| (i, unsafe_read::<L, T>(&self.data, i)))
        }

        /// Every element with its slot and index, in memory order; padding
        /// slots are skipped.
        ///
        /// ```
        /// use xla_layout::{layout, View, ViewMut};
        /// layout! { type L = s32[2,3]{0,1}; }
        /// let mut data = [0, 3, 1, 4, 2, 5]; // column-major: (r, c) holds 3r + c
        /// let v = View::<L, i32>::new(&data).unwrap();
        /// let order: Vec<(usize, i32)> = v.iter_physical().map(|(s, _, x)| (s, x)).collect();
        /// assert_eq!(order, [(0, 0), (1, 3), (2, 1), (3, 4), (4, 2), (5, 5)]);
        /// let m = ViewMut::<L, i32>::new(&mut data).unwrap();
        /// assert_eq!(m.iter_physical().nth(1), Some((1, [1, 0], 3)));
        /// ```
        pub fn iter_physical(&self) -> impl Iterator<Item = (usize, L::Index, T)> + '_ {
            Physical::<L>::new().map(move |(slot, i)| (slot, i, self.data[slot]))
        }

        /// The elements along dimension `dim` through `index` (whose entry
        /// for `dim` is ignored): a row when `dim` is the last dimension.
        /// Empty if `index` is out of bounds or `dim >= RANK`.
        ///
        /// ```
        /// use xla_layout::{layout, View, ViewMut};
        /// layout! { type L = s32[2,3]{0,1}; }
        /// let mut data = [0, 3, 1, 4, 2, 5]; // column-major: (r, c) holds 3r + c
        /// let v = View::<L, i32>::new(&data).unwrap();
        /// assert_eq!(v.lane([1, 0], 1).collect::<Vec<_>>(), [3, 4, 5]);
        /// assert_eq!(v.lane([0, 2], 0).collect::<Vec<_>>(), [2, 5]);
        /// let m = ViewMut::<L, i32>::new(&mut data).unwrap();
        /// assert_eq!(m.lane([0, 0], 2).count(), 0); // no dimension 2
        /// ```
        pub fn lane(&self, index: L::Index, dim: usize) -> impl Iterator<Item = T> + '_ {
            Lane::<L>::new(index, dim).map(move |i| unsafe_read::<L, T>(&self.data, i))
        }

        /// The elements of first-level tile `k` (slots `k·S .. (k+1)·S`, `S`
        /// the first tile's size), with their indices, in memory order;
        /// `None` without tiles, past the last tile, or when tiles are not
        /// runs of slots (see [`crate::TiledShape::tile_slots`]).
        ///
        /// ```
        /// use xla_layout::{layout, View, ViewMut};
        /// layout! { type Figure1 = f32[3,5]{1,0:T(2,2)}; }
        /// let mut data: Vec<f32> = (0..24).map(|s| s as f32).collect(); // slot numbers
        /// let v = View::<Figure1, f32>::new(&data).unwrap();
        /// let first: Vec<_> = v.tile(0).unwrap().collect();
        /// assert_eq!(first, [([0, 0], 0.0), ([0, 1], 1.0), ([1, 0], 2.0), ([1, 1], 3.0)]);
        /// let m = ViewMut::<Figure1, f32>::new(&mut data).unwrap();
        /// assert_eq!(m.tile(5).unwrap().count(), 1); // (2, 4); the rest pads
        /// assert!(m.tile(6).is_none());               // 2 × 3 tiles
        /// ```
        pub fn tile(&self, k: usize) -> Option<impl Iterator<Item = (L::Index, T)> + '_> {
            let range = tile_slots::<L>(k)?;
            Some(Physical::<L>::over(range).map(move |(slot, i)| (i, self.data[slot])))
        }

        /// The underlying slice: the whole buffer, in memory order, even
        /// past the layout's slots.
        ///
        /// ```
        /// use xla_layout::{layout, View, ViewMut};
        /// layout! { type L = s32[2,3]{0,1}; }
        /// let mut data = [0, 3, 1, 4, 2, 5, 9]; // one element more than the slots
        /// assert_eq!(View::<L, i32>::new(&data).unwrap().as_slice(), [0, 3, 1, 4, 2, 5, 9]);
        /// assert_eq!(ViewMut::<L, i32>::new(&mut data).unwrap().as_slice().len(), 7);
        /// ```
        pub fn as_slice(&self) -> &[T] {
            &self.data[..]
        }
    };
}

/// Reads the element at an index known to be in bounds.
fn unsafe_read<L: StaticLayout, T: Copy>(data: &[T], index: L::Index) -> T {
    // SAFETY: callers pass indices produced by in-bounds iterators;
    // StaticLayout maps them below PHYSICAL_ELEMENTS <= data.len().
    unsafe { *data.get_unchecked(L::default().offset(index)) }
}

/// The slot range of first-level tile `k`.
fn tile_slots<L: StaticLayout>(k: usize) -> Option<core::ops::Range<usize>> {
    // Fits: the trait's contract bounds the slots by usize.
    let r = L::TILED.tile_slots(k as u64)?;
    Some(r.start as usize..r.end as usize)
}

/// A slice read through the layout `L`.
///
/// ```
/// use xla_layout::{layout, View};
/// layout! { type Figure1 = f32[3,5]{1,0:T(2,2)}; }
/// let data: Vec<f32> = (0..24).map(|s| s as f32).collect(); // slot numbers
/// let v = View::<Figure1, f32>::new(&data).unwrap();
/// assert_eq!(v.get([2, 3]), Some(17.0));                     // tiled_layout.md figure 1
/// assert_eq!(v.get([3, 0]), None);
/// let padding: Vec<usize> = (0..24).filter(|s| !v.iter_physical().any(|(p, _, _)| p == *s)).collect();
/// assert_eq!(padding, [9, 11, 14, 15, 18, 19, 21, 22, 23]);
/// ```
#[derive(Debug)]
pub struct View<'a, L: StaticLayout, T: Element> {
    data: &'a [T],
    layout: PhantomData<L>,
}

impl<'a, L: StaticLayout, T: Element> View<'a, L, T> {
    /// Views `data`, which must have at least `L::PHYSICAL_ELEMENTS`
    /// elements of a type that holds `L`'s elements.
    ///
    /// A `T` that does not hold `L`'s elements slot for slot
    /// ([`Element::HOLDS`], the same width) **fails the build**: both are
    /// known at compile time. The error comes when the code is generated
    /// (`cargo build`, not `cargo check`), and from every instantiation,
    /// even one in a branch never taken. Generic code that picks `T` at
    /// run time uses the runtime view, which checks then:
    ///
    /// ```
    /// use xla_layout::{layout, DynView, StaticLayout, ViewError};
    /// layout! { type Act = bf16[8,128]{1,0:T(8,128)(2,1)}; }
    /// fn view<L: StaticLayout>(words: &[f32]) -> Result<DynView<'_, f32>, ViewError> {
    ///     DynView::new(&L::TILED, words) // compiles for every L
    /// }
    /// // A bf16 layout is refused at run time.
    /// assert!(matches!(view::<Act>(&[0.0; 1024]), Err(ViewError::ElementType { .. })));
    /// ```
    ///
    /// So the only errors left are the length's ([`ViewError::TooShort`]).
    pub fn new(data: &'a [T]) -> Result<Self, ViewError> {
        const { assert_holds_slots::<L, T>() };
        check_slots::<L>(data.len())?;
        Ok(View {
            data,
            layout: PhantomData,
        })
    }

    view_reads!();

    /// The same view with its layout as a value ([`DynView`]), for code
    /// that takes layouts at run time.
    ///
    /// ```
    /// use xla_layout::{layout, View};
    /// layout! { type L = f32[3,5]{1,0:T(2,2)}; }
    /// let data = [0.0f32; 24];
    /// let v = View::<L, f32>::new(&data).unwrap();
    /// assert_eq!(v.as_dyn().shape().physical_slots(), 24);
    /// ```
    pub fn as_dyn(&self) -> DynView<'a, T> {
        // The checks `new` made are the ones `DynView::new` makes.
        DynView::from_checked(&L::TILED, self.data)
    }
}

impl<L: StaticLayout, T: Element> Clone for View<'_, L, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<L: StaticLayout, T: Element> Copy for View<'_, L, T> {}

/// A mutable slice read and written through the layout `L`.
///
/// ```
/// use xla_layout::{layout, View, ViewMut};
/// layout! {
///     type Host = bf16[4,8]{1,0};
///     type Tpu = bf16[4,8]{1,0:T(2,4)(2,1)};
/// }
/// let host: Vec<u16> = (0..32).collect();                 // element (r, c) = 8r + c
/// let mut tpu = vec![0u16; 32];
/// ViewMut::<Tpu, u16>::new(&mut tpu).unwrap().copy_from(&View::<Host, u16>::new(&host).unwrap());
/// assert_eq!(&tpu[..8], &[0, 8, 1, 9, 2, 10, 3, 11]);     // tiled_layout.md figure 2
/// ```
#[derive(Debug)]
pub struct ViewMut<'a, L: StaticLayout, T: Element> {
    data: &'a mut [T],
    layout: PhantomData<L>,
}

impl<'a, L: StaticLayout, T: Element> ViewMut<'a, L, T> {
    /// Views `data` mutably; see [`View::new`].
    ///
    /// ```
    /// use xla_layout::{layout, ViewError, ViewMut};
    /// layout! { type L = s32[2,3]{0,1}; }
    /// let mut data = [0i32; 6];
    /// ViewMut::<L, i32>::new(&mut data).unwrap().set([1, 0], 7).unwrap();
    /// assert_eq!(data, [0, 7, 0, 0, 0, 0]);
    /// assert_eq!(ViewMut::<L, i32>::new(&mut data[..5]).unwrap_err(), ViewError::TooShort { needed: 6, got: 5 });
    /// ```
    pub fn new(data: &'a mut [T]) -> Result<Self, ViewError> {
        const { assert_holds_slots::<L, T>() };
        check_slots::<L>(data.len())?;
        Ok(ViewMut {
            data,
            layout: PhantomData,
        })
    }

    view_reads!();

    /// The same view with its layout as a value ([`DynViewMut`]).
    ///
    /// ```
    /// use xla_layout::{layout, ViewMut};
    /// layout! { type L = f32[2]{0}; }
    /// let mut data = [0.0f32; 2];
    /// ViewMut::<L, f32>::new(&mut data).unwrap().into_dyn().set(&[1], 3.0).unwrap();
    /// assert_eq!(data, [0.0, 3.0]);
    /// ```
    pub fn into_dyn(self) -> DynViewMut<'a, T> {
        DynViewMut::from_checked(&L::TILED, self.data)
    }

    /// [`ViewMut::into_dyn`] for a shorter time, leaving this view usable.
    ///
    /// ```
    /// use xla_layout::{layout, ViewMut};
    /// layout! { type L = f32[2]{0}; }
    /// let mut data = [0.0f32; 2];
    /// let mut v = ViewMut::<L, f32>::new(&mut data).unwrap();
    /// v.as_dyn_mut().set(&[1], 3.0).unwrap();
    /// assert_eq!(v.get([1]), Some(3.0));
    /// ```
    pub fn as_dyn_mut(&mut self) -> DynViewMut<'_, T> {
        DynViewMut::from_checked(&L::TILED, self.data)
    }

    /// A shared view of the same buffer.
    ///
    /// ```
    /// use xla_layout::{layout, ViewMut};
    /// layout! { type L = s32[2,3]{0,1}; }
    /// let mut data = [0i32; 6];
    /// let mut m = ViewMut::<L, i32>::new(&mut data).unwrap();
    /// m.set([0, 2], 8).unwrap();
    /// assert_eq!(m.as_view().lane([0, 0], 1).collect::<Vec<_>>(), [0, 0, 8]);
    /// ```
    pub fn as_view(&self) -> View<'_, L, T> {
        View {
            data: self.data,
            layout: PhantomData,
        }
    }

    /// Writes `value` at `index`, or says which entry is out of bounds
    /// (nothing written).
    ///
    /// ```
    /// use xla_layout::{layout, IndexError, ViewMut};
    /// layout! { type L = s32[2,3]{0,1}; }
    /// let mut data = [0i32; 6];
    /// let mut m = ViewMut::<L, i32>::new(&mut data).unwrap();
    /// m.set([1, 0], 7).unwrap();
    /// assert_eq!(m.set([0, 3], 7), Err(IndexError::OutOfBounds { dim: 1, index: 3, size: 3 }));
    /// assert_eq!(data, [0, 7, 0, 0, 0, 0]); // (1, 0) is slot 1, column-major
    /// ```
    pub fn set(&mut self, index: L::Index, value: T) -> Result<(), IndexError> {
        let slot = slot_of::<L>(index)?;
        // SAFETY: as in `get`.
        unsafe { *self.data.get_unchecked_mut(slot) = value };
        Ok(())
    }

    /// A mutable reference to the element at `index`, or `None` if it is
    /// out of bounds.
    ///
    /// ```
    /// use xla_layout::{layout, ViewMut};
    /// layout! { type L = s32[2,3]{0,1}; }
    /// let mut data = [0, 3, 1, 4, 2, 5]; // column-major: (r, c) holds 3r + c
    /// let mut m = ViewMut::<L, i32>::new(&mut data).unwrap();
    /// *m.get_mut([0, 1]).unwrap() += 10;
    /// assert!(m.get_mut([2, 1]).is_none());
    /// assert_eq!(data[2], 11);
    /// ```
    pub fn get_mut(&mut self, index: L::Index) -> Option<&mut T> {
        let slot = L::default().offset_checked(index)?;
        // SAFETY: as in `get`.
        Some(unsafe { self.data.get_unchecked_mut(slot) })
    }

    /// Writes `value` at `index`, without the bounds check.
    ///
    /// # Safety
    /// Every entry of `index` must be below its dimension's size.
    ///
    /// ```
    /// use xla_layout::{layout, ViewMut};
    /// layout! { type L = s32[2,3]{0,1}; }
    /// let mut data = [0i32; 6];
    /// let mut m = ViewMut::<L, i32>::new(&mut data).unwrap();
    /// // SAFETY: 1 < 2 and 2 < 3.
    /// unsafe { m.set_unchecked([1, 2], 4) };
    /// assert_eq!(data[5], 4); // the last slot
    /// ```
    pub unsafe fn set_unchecked(&mut self, index: L::Index, value: T) {
        // SAFETY: the caller keeps `index` in bounds.
        unsafe { *self.data.get_unchecked_mut(L::default().offset(index)) = value };
    }

    /// Sets every padding slot (tile padding and `L` tail padding).
    ///
    /// ```
    /// use xla_layout::{layout, ViewMut};
    /// layout! { type L = s32[3]{0:T(4)}; }
    /// let mut data = [1, 2, 3, 0];
    /// ViewMut::<L, i32>::new(&mut data).unwrap().fill_padding(-1);
    /// assert_eq!(data, [1, 2, 3, -1]); // slot 3 of 4 is padding
    /// ```
    pub fn fill_padding(&mut self, value: T) {
        let mut next = 0;
        for (slot, _) in Physical::<L>::new() {
            self.data[next..slot].fill(value);
            next = slot + 1;
        }
        self.data[next..L::PHYSICAL_ELEMENTS].fill(value);
    }

    /// Copies every element of `src` (another layout of the same logical
    /// shape: a mismatch does not compile) into this buffer's layout, and
    /// sets padding slots to `T`'s zero bits.
    ///
    /// ```
    /// use xla_layout::{layout, View, ViewMut};
    /// layout! {
    ///     type Rows = s32[2,3]{1,0};
    ///     type Cols = s32[2,3]{0,1};
    /// }
    /// let src = [0, 1, 2, 3, 4, 5];
    /// let mut out = [9i32; 6];
    /// ViewMut::<Cols, i32>::new(&mut out).unwrap().copy_from(&View::<Rows, i32>::new(&src).unwrap());
    /// assert_eq!(out, [0, 3, 1, 4, 2, 5]);
    /// ```
    pub fn copy_from<S>(&mut self, src: &View<'_, S, T>)
    where
        S: StaticLayout<Logical = L::Logical>,
    {
        self.copy_from_with_padding(src, T::decode(0, L::ELEMENT_TYPE));
    }

    /// As [`ViewMut::copy_from`], with padding slots set to `pad`.
    ///
    /// ```
    /// use xla_layout::{layout, View, ViewMut};
    /// layout! {
    ///     type Plain = f32[3]{0};
    ///     type Tiled = f32[3]{0:T(4)};
    /// }
    /// let mut out = [0.0f32; 4];
    /// let src = View::<Plain, f32>::new(&[1.0, 2.0, 3.0]).unwrap();
    /// ViewMut::<Tiled, f32>::new(&mut out).unwrap().copy_from_with_padding(&src, -1.0);
    /// assert_eq!(out, [1.0, 2.0, 3.0, -1.0]);
    /// ```
    pub fn copy_from_with_padding<S>(&mut self, src: &View<'_, S, T>, pad: T)
    where
        S: StaticLayout<Logical = L::Logical>,
    {
        let result = Plan::<S, L>::PLAN.copy(src.data, self.data, pad);
        // Both lengths were checked at construction.
        debug_assert_eq!(result, Ok::<(), RelayoutError>(()));
    }
}

/// Bytes read through the layout `L` as elements of `T`, packed or not.
///
/// ```
/// use xla_layout::{layout, BitsView};
/// layout! { type Nibbles = s4[4]{0:E(4)}; }
/// let bytes = [0x21u8, 0xF3];                       // LSB first: 1, 2, 3, -1
/// let v = BitsView::<Nibbles, i8>::new(&bytes).unwrap();
/// assert_eq!(v.iter().map(|(_, x)| x).collect::<Vec<_>>(), [1, 2, 3, -1]);
/// ```
#[derive(Debug)]
pub struct BitsView<'a, L: StaticLayout, T: Element> {
    bytes: &'a [u8],
    layout: PhantomData<(L, T)>,
}

/// The bit views' run-time check, the length: the element type was
/// checked at compile time ([`assert_holds_bits`]).
fn check_bytes<L: StaticLayout>(len: usize) -> Result<(), ViewError> {
    if len < L::BYTES {
        return Err(ViewError::TooFewBytes {
            needed: L::BYTES,
            got: len,
        });
    }
    Ok(())
}

macro_rules! bits_reads {
    () => {
        /// The element at `index`, or `None` if it is out of bounds.
        ///
        /// ```
        /// use xla_layout::{layout, BitsView, BitsViewMut};
        /// layout! { type L = s4[2,3]{0,1:E(4)}; }
        /// let mut bytes = [0x30, 0x41, 0x52]; // column-major nibbles, low first: (r, c) holds 3r + c
        /// let v = BitsView::<L, i8>::new(&bytes).unwrap();
        /// assert_eq!(v.get([1, 2]), Some(5));
        /// assert_eq!(v.get([2, 0]), None);
        /// assert_eq!(BitsViewMut::<L, i8>::new(&mut bytes).unwrap().get([0, 1]), Some(1));
        /// ```
        pub fn get(&self, index: L::Index) -> Option<T> {
            let slot = L::default().offset_checked(index)?;
            Some(self.read_slot(slot))
        }

        /// Every element with its index, in row-major logical order.
        ///
        /// ```
        /// use xla_layout::{layout, BitsView, BitsViewMut};
        /// layout! { type L = s4[2,3]{0,1:E(4)}; }
        /// let mut bytes = [0x30, 0x41, 0x52]; // column-major nibbles, low first: (r, c) holds 3r + c
        /// let all: Vec<i8> = BitsView::<L, i8>::new(&bytes).unwrap().iter().map(|(_, x)| x).collect();
        /// assert_eq!(all, [0, 1, 2, 3, 4, 5]);
        /// let m = BitsViewMut::<L, i8>::new(&mut bytes).unwrap();
        /// assert_eq!(m.iter().nth(4), Some(([1, 1], 4)));
        /// ```
        pub fn iter(&self) -> impl Iterator<Item = (L::Index, T)> + '_ {
            Indices::<L>::new().map(move |i| (i, self.read_slot(L::default().offset(i))))
        }

        /// Every element with its slot and index, in memory order; padding
        /// is skipped.
        ///
        /// ```
        /// use xla_layout::{layout, BitsView, BitsViewMut};
        /// layout! { type L = s4[2,3]{0,1:E(4)}; }
        /// let mut bytes = [0x30, 0x41, 0x52]; // column-major nibbles, low first: (r, c) holds 3r + c
        /// let v = BitsView::<L, i8>::new(&bytes).unwrap();
        /// let order: Vec<(usize, i8)> = v.iter_physical().map(|(s, _, x)| (s, x)).collect();
        /// assert_eq!(order, [(0, 0), (1, 3), (2, 1), (3, 4), (4, 2), (5, 5)]);
        /// let m = BitsViewMut::<L, i8>::new(&mut bytes).unwrap();
        /// assert_eq!(m.iter_physical().nth(1), Some((1, [1, 0], 3)));
        /// ```
        pub fn iter_physical(&self) -> impl Iterator<Item = (usize, L::Index, T)> + '_ {
            Physical::<L>::new().map(move |(slot, i)| (slot, i, self.read_slot(slot)))
        }

        /// The elements along dimension `dim` through `index` (whose entry
        /// for `dim` is ignored): a row when `dim` is the last dimension.
        /// Empty if `index` is out of bounds or `dim >= RANK`.
        ///
        /// ```
        /// use xla_layout::{layout, BitsView, BitsViewMut};
        /// layout! { type L = s4[2,3]{0,1:E(4)}; }
        /// let mut bytes = [0x30, 0x41, 0x52]; // column-major nibbles, low first: (r, c) holds 3r + c
        /// let v = BitsView::<L, i8>::new(&bytes).unwrap();
        /// assert_eq!(v.lane([1, 0], 1).collect::<Vec<_>>(), [3, 4, 5]);
        /// assert_eq!(v.lane([0, 2], 0).collect::<Vec<_>>(), [2, 5]);
        /// let m = BitsViewMut::<L, i8>::new(&mut bytes).unwrap();
        /// assert_eq!(m.lane([2, 0], 1).count(), 0); // row 2 is out of bounds
        /// ```
        pub fn lane(&self, index: L::Index, dim: usize) -> impl Iterator<Item = T> + '_ {
            Lane::<L>::new(index, dim).map(move |i| self.read_slot(L::default().offset(i)))
        }

        /// The elements of first-level tile `k` (see
        /// [`crate::TiledShape::tile_slots`]), with their indices, in memory
        /// order; `None` without tiles, past the last tile, or when tiles
        /// are not runs of slots (a later tile longer than the first, one
        /// that pads it, or one with `*`).
        ///
        /// ```
        /// use xla_layout::{layout, BitsView, BitsViewMut};
        /// layout! { type L = s4[4]{0:T(2)E(4)}; }
        /// let mut bytes = [0x21, 0xF3];                 // LSB first: 1, 2, 3, -1
        /// let v = BitsView::<L, i8>::new(&bytes).unwrap();
        /// assert_eq!(v.tile(1).unwrap().collect::<Vec<_>>(), [([2], 3), ([3], -1)]);
        /// let m = BitsViewMut::<L, i8>::new(&mut bytes).unwrap();
        /// assert_eq!(m.tile(0).unwrap().count(), 2);
        /// assert!(m.tile(2).is_none());                 // two tiles of 2
        /// ```
        pub fn tile(&self, k: usize) -> Option<impl Iterator<Item = (L::Index, T)> + '_> {
            let range = tile_slots::<L>(k)?;
            Some(Physical::<L>::over(range).map(move |(slot, i)| (i, self.read_slot(slot))))
        }

        fn read_slot(&self, slot: usize) -> T {
            // `new` bounded the width by 128 bits; the trait's
            // contract bounds the bit position.
            let bits = L::ELEMENT_BITS;
            let value = read_value(
                &self.bytes[..L::BYTES],
                slot as u64 * bits,
                bits,
                L::ELEMENT_TYPE,
            );
            T::decode(value, L::ELEMENT_TYPE)
        }
    };
}

impl<'a, L: StaticLayout, T: Element> BitsView<'a, L, T> {
    /// Views `bytes` (at least `L::BYTES` of them) as elements of `T`. A
    /// `T` that does not stand for `L`'s element type fails the build, as
    /// in [`View::new`] (whose notes apply; [`crate::DynBitsView`] checks
    /// at run time).
    ///
    /// ```
    /// use xla_layout::{layout, BitsView, ViewError};
    /// layout! { type L = s4[2,3]{0,1:E(4)}; }
    /// assert_eq!(BitsView::<L, i8>::new(&[0x30, 0x41, 0x52]).unwrap().get([1, 2]), Some(5));
    /// // 6 elements of 4 bits: 3 bytes.
    /// assert_eq!(BitsView::<L, i8>::new(&[0x30, 0x41]).unwrap_err(), ViewError::TooFewBytes { needed: 3, got: 2 });
    /// ```
    pub fn new(bytes: &'a [u8]) -> Result<Self, ViewError> {
        const { assert_holds_bits::<L, T>() };
        check_bytes::<L>(bytes.len())?;
        Ok(BitsView {
            bytes,
            layout: PhantomData,
        })
    }

    bits_reads!();

    /// The same view with its layout as a value ([`DynBitsView`]).
    ///
    /// ```
    /// use xla_layout::{layout, BitsView};
    /// layout! { type Nibbles = s4[4]{0:E(4)}; }
    /// let v = BitsView::<Nibbles, i8>::new(&[0x21, 0xF3]).unwrap();
    /// assert_eq!(v.as_dyn().get(&[3]), Ok(-1));
    /// ```
    pub fn as_dyn(&self) -> DynBitsView<'a, T> {
        DynBitsView::from_checked(&L::TILED, self.bytes)
    }
}

/// Mutable bytes read and written through `L` as elements of `T`.
///
/// ```
/// use xla_layout::{layout, BitsViewMut};
/// layout! { type Bits = pred[8]{0:E(1)}; }
/// let mut bytes = [0u8; 1];
/// let mut v = BitsViewMut::<Bits, bool>::new(&mut bytes).unwrap();
/// v.set([0], true).unwrap();
/// v.set([3], true).unwrap();
/// assert_eq!(bytes, [0b0000_1001]);
/// ```
#[derive(Debug)]
pub struct BitsViewMut<'a, L: StaticLayout, T: Element> {
    bytes: &'a mut [u8],
    layout: PhantomData<(L, T)>,
}

impl<'a, L: StaticLayout, T: Element> BitsViewMut<'a, L, T> {
    /// Views `bytes` mutably; see [`BitsView::new`].
    ///
    /// ```
    /// use xla_layout::{layout, BitsViewMut, ViewError};
    /// layout! { type L = s4[2,3]{0,1:E(4)}; }
    /// let mut bytes = [0u8; 3];
    /// BitsViewMut::<L, i8>::new(&mut bytes).unwrap().set([1, 2], 5).unwrap();
    /// assert_eq!(bytes, [0, 0, 0x50]); // slot 5: the high nibble of byte 2
    /// assert_eq!(BitsViewMut::<L, i8>::new(&mut bytes[..2]).unwrap_err(), ViewError::TooFewBytes { needed: 3, got: 2 });
    /// ```
    pub fn new(bytes: &'a mut [u8]) -> Result<Self, ViewError> {
        const { assert_holds_bits::<L, T>() };
        check_bytes::<L>(bytes.len())?;
        Ok(BitsViewMut {
            bytes,
            layout: PhantomData,
        })
    }

    bits_reads!();

    /// The same view with its layout as a value ([`DynBitsViewMut`]).
    ///
    /// ```
    /// use xla_layout::{layout, BitsViewMut};
    /// layout! { type Bits = pred[8]{0:E(1)}; }
    /// let mut bytes = [0u8; 1];
    /// BitsViewMut::<Bits, bool>::new(&mut bytes).unwrap().into_dyn().set(&[2], true).unwrap();
    /// assert_eq!(bytes, [0b100]);
    /// ```
    pub fn into_dyn(self) -> DynBitsViewMut<'a, T> {
        DynBitsViewMut::from_checked(&L::TILED, self.bytes)
    }

    /// A shared view of the same bytes.
    ///
    /// ```
    /// use xla_layout::{layout, BitsViewMut};
    /// layout! { type Nibbles = s4[4]{0:E(4)}; }
    /// let mut bytes = [0u8; 2];
    /// let mut v = BitsViewMut::<Nibbles, i8>::new(&mut bytes).unwrap();
    /// v.set([3], -2).unwrap();
    /// assert_eq!(v.as_view().lane([0], 0).collect::<Vec<_>>(), [0, 0, 0, -2]);
    /// ```
    pub fn as_view(&self) -> BitsView<'_, L, T> {
        BitsView {
            bytes: self.bytes,
            layout: PhantomData,
        }
    }

    /// Sets every padding slot (tile padding and `L` tail padding) to
    /// `value`; refused (nothing written) when the element cannot hold it.
    ///
    /// ```
    /// use xla_layout::{layout, BitsViewMut};
    /// layout! { type Padded = s4[3]{0:T(4)E(4)}; }
    /// let mut bytes = [0u8; 2];
    /// BitsViewMut::<Padded, i8>::new(&mut bytes).unwrap().fill_padding(-1).unwrap();
    /// assert_eq!(bytes, [0x00, 0xF0]);
    /// ```
    pub fn fill_padding(&mut self, value: T) -> Result<(), IndexError> {
        DynBitsViewMut::from_checked(&L::TILED, &mut *self.bytes).fill_padding(value)
    }

    /// Writes `value` at `index` (only its element's bits change), or
    /// says why not: the index is out of bounds, or the element cannot
    /// hold the value (nothing written).
    ///
    /// ```
    /// use xla_layout::{layout, BitsViewMut, IndexError};
    /// layout! { type Nibbles = s4[4]{0:E(4)}; }
    /// let mut bytes = [0xFFu8, 0xFF];
    /// let mut v = BitsViewMut::<Nibbles, i8>::new(&mut bytes).unwrap();
    /// v.set([1], 2).unwrap();
    /// assert_eq!(v.set([0], 8), Err(IndexError::ValueDoesNotFit { element_bits: 4 })); // s4 holds -8..=7
    /// assert!(v.set([4], 0).is_err());
    /// assert_eq!(bytes, [0x2F, 0xFF]);
    /// ```
    pub fn set(&mut self, index: L::Index, value: T) -> Result<(), IndexError> {
        let slot = slot_of::<L>(index)?;
        let (bits, ty) = (L::ELEMENT_BITS, L::ELEMENT_TYPE);
        let encoded = element::encode_into_slot(value, ty, bits)?;
        write_bits(
            &mut self.bytes[..L::BYTES],
            slot as u64 * bits,
            bits as u32,
            encoded,
        );
        Ok(())
    }

    /// Copies every element of `src` (same logical shape) into this
    /// layout ([`Relayout::copy_bytes`]: whole-byte elements by blocks,
    /// packed ones bit by bit); bytes that hold no element become 0.
    /// Only the first `L::BYTES` bytes of the buffer are written.
    ///
    /// ```
    /// use xla_layout::{layout, BitsView, BitsViewMut};
    /// layout! {
    ///     type Packed = s4[2,2]{1,0:E(4)};
    ///     type Transposed = s4[2,2]{0,1:E(4)};
    /// }
    /// let src = [0x21u8, 0xF3]; // rows (1, 2) and (3, -1), LSB first
    /// let mut out = [0u8; 2];
    /// BitsViewMut::<Transposed, i8>::new(&mut out).unwrap().copy_from(&BitsView::<Packed, i8>::new(&src).unwrap());
    /// assert_eq!(out, [0x31, 0xF2]); // columns (1, 3) and (2, -1)
    /// ```
    ///
    /// Layouts whose slots (`E(n)`) are narrower than the source's values
    /// fail to build: a value could be cut, and this has no error to
    /// return ([`Relayout::copy_bytes`] checks each value instead). The
    /// refusal is a constant evaluated when the function is instantiated,
    /// so `cargo build` reports it and `cargo check` does not.
    ///
    /// ```compile_fail
    /// use xla_layout::{layout, BitsView, BitsViewMut};
    /// layout! { type Wide = f32[4]{0}; type Narrow = f32[4]{0:E(16)}; }
    /// let (src, mut dst) = ([0u8; 16], [0u8; 8]);
    /// BitsViewMut::<Narrow, f32>::new(&mut dst).unwrap().copy_from(&BitsView::<Wide, f32>::new(&src).unwrap());
    /// ```
    pub fn copy_from<S>(&mut self, src: &BitsView<'_, S, T>)
    where
        S: StaticLayout<Logical = L::Logical>,
    {
        let () = Plan::<S, L>::UNCUT;
        let result = Plan::<S, L>::PLAN.copy_bytes(src.bytes, self.bytes, 0);
        // Both lengths were checked at construction, and the trait's
        // contract bounds the bit counts.
        debug_assert_eq!(result, Ok::<(), RelayoutError>(()));
    }
}
