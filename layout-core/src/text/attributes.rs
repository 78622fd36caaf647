//! The layout attributes after `:` in `{minor_to_major:attributes}`, as
//! one table: each row says how the attribute is written, parsed and
//! printed, which validation rules are about it, and how code that builds
//! the same layout sets it. The parser, the printer, the span map, the
//! `layout!` macro's messages and its code generation all walk this table,
//! so adding an attribute is a new row plus its field in [`Layout`] (see
//! `docs/adding-an-attribute.md`).
//!
//! XLA reads the attributes in the table's order, each at most once; one
//! out of order or repeated is left unread and the layout fails at it
//! ("expects layout to end with kRbrace").

use core::fmt::{self, Formatter, Write};

pub(crate) use crate::joined::write_joined;

use super::error::ParseErrorKind as E;
use super::lexer::{Token, TokenKind as K};
use super::parser::{Parser, Step};
use crate::limits::COMBINE;
use crate::model::ScalarAttributes;
use crate::validate::Rule;
use crate::{ElementType, Layout};

/// One layout attribute: its syntax and meaning; see the module docs.
pub struct Attribute {
    /// How it is written: `T`, `L`, `#`, …
    pub name: &'static str,
    /// The `Layout` field it sets, in XLA's words.
    pub field: &'static str,
    /// What it is, for people.
    pub about: &'static str,
    /// How it is written with a value, for messages: `L(n)`.
    pub written: &'static str,
    /// The validation rules about it (their spans point at it).
    pub rules: &'static [Rule],
    /// Reads the attribute's value after its name.
    pub(crate) parse: fn(&mut Parser<'_>, &mut Draft<'_>, Token) -> Step<()>,
    /// Whether the layout holds a value other than the default (only then
    /// is the attribute printed).
    pub(crate) is_set: fn(&Layout) -> bool,
    /// Writes the attribute, name included.
    pub(crate) print: fn(&Layout, &mut Formatter<'_>) -> fmt::Result,
    /// The value as code that builds a layout sets it: `None` when unset
    /// or when a valid layout never has it.
    pub value: fn(&Layout) -> Option<AttributeValue<'_>>,
    /// Whether JAX's `Layout(...)` can say it (`T` as `tiling`, `E` as
    /// `sub_byte_element_size_in_bits`); a layout that sets any other has
    /// no JAX form ([`Layout::jax`]).
    pub in_jax: bool,
}

/// An attribute's value, for code that rebuilds a layout (the `layout!`
/// macro emits `Layout::new(…).<builder>(value)` for each).
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum AttributeValue<'a> {
    /// Set by `builder(&[&[…], …])`; `*` entries are [`COMBINE`].
    Tiles {
        /// The builder method.
        builder: &'static str,
        /// The layout, whose tiles are the value.
        layout: &'a Layout,
    },
    /// Set by `builder(&[(dimension, &[indices…]), …])`.
    SplitConfigs {
        /// The builder method.
        builder: &'static str,
        /// The layout, whose split configs are the value.
        layout: &'a Layout,
    },
    /// Set by `builder(n)` with an `i64`.
    Int {
        /// The builder method.
        builder: &'static str,
        /// The value.
        value: i64,
    },
    /// Set by `builder(n)` with an `i8`.
    Int8 {
        /// The builder method.
        builder: &'static str,
        /// The value.
        value: i8,
    },
}

/// A layout being parsed: the attributes XLA checks only once the whole
/// layout is read (`LayoutUtil::MakeLayout`) wait in `scalars`.
pub(crate) struct Draft<'l> {
    pub(crate) layout: &'l mut Layout,
    pub(crate) scalars: ScalarAttributes,
    /// The first negative tile entry, for MakeLayout's abort.
    pub(crate) negative_tile: Option<(Token, i64)>,
    /// Where `L(n)` is, for its abort.
    pub(crate) tail_padding: Option<Token>,
    /// Whether spans are being recorded.
    pub(crate) record: bool,
}

/// Every attribute, in the order XLA reads and prints them.
pub const ATTRIBUTES: [Attribute; 10] = [
    Attribute {
        name: "D",
        field: "dim_level_types",
        about: "dimension level types (read and thrown away since XLA removed them)",
        written: "D(D,C,…)",
        rules: &[],
        parse: parse_dim_level_types,
        is_set: |_| false,
        print: |_, _| Ok(()),
        value: |_| None,
        in_jax: true,
    },
    Attribute {
        name: "T",
        field: "tiles",
        about: "tiles",
        written: "T(8,128)(2,1)",
        rules: &[
            Rule::EmptyTile,
            Rule::NonPositiveTileDimension,
            Rule::CombineInMostMinorPosition,
        ],
        parse: parse_tiles,
        is_set: |l| l.tile_count() > 0,
        print: print_tiles,
        value: |l| {
            (l.tile_count() > 0).then_some(AttributeValue::Tiles {
                builder: "with_tiles",
                layout: l,
            })
        },
        in_jax: true,
    },
    Attribute {
        name: "L",
        field: "tail_padding_alignment_in_elements",
        about: "tail padding: the element count rounded up to a multiple of n",
        written: "L(n)",
        rules: &[Rule::TailPaddingNotPositive],
        parse: |p, d, start| {
            int_attribute(
                p,
                &mut d.scalars.tail_padding_alignment,
                "multiple padded to in elements",
            );
            // An abort on L points at the whole attribute.
            d.tail_padding = Some(Token {
                end: p.prev_end(),
                ..start
            });
            Ok(())
        },
        is_set: |l| l.tail_padding_alignment_in_elements() != 1,
        print: |l, f| write!(f, "L({})", l.tail_padding_alignment_in_elements()),
        value: |l| {
            let n = l.tail_padding_alignment_in_elements();
            (n != 1).then_some(AttributeValue::Int {
                builder: "with_tail_padding_alignment",
                value: n,
            })
        },
        in_jax: false,
    },
    Attribute {
        name: "#",
        field: "index_primitive_type",
        about: "index type of a sparse array",
        written: "#(u32)",
        rules: &[Rule::IndexPrimitiveType],
        parse: |p, d, _| {
            p.expect(K::Lparen, || {
                E::Syntax("expects kOctothorp to be followed by kLparen")
            });
            unsigned_integer_type(p, &mut d.scalars.index_type);
            p.expect(K::Rparen, || {
                E::Syntax("expects index primitive type to be followed by kRparen")
            });
            Ok(())
        },
        is_set: |l| l.index_primitive_type().is_some(),
        print: |l, f| write_type_attribute(f, '#', l.index_primitive_type()),
        // Validation refuses it.
        value: |_| None,
        in_jax: false,
    },
    Attribute {
        name: "*",
        field: "pointer_primitive_type",
        about: "pointer type of a sparse array",
        written: "*(u32)",
        rules: &[Rule::PointerPrimitiveType],
        parse: |p, d, _| {
            p.expect(K::Lparen, || {
                E::Syntax("expects kAsterisk to be followed by kLparen")
            });
            unsigned_integer_type(p, &mut d.scalars.pointer_type);
            p.expect(K::Rparen, || {
                E::Syntax("expects pointer primitive type to be followed by kRparen")
            });
            Ok(())
        },
        is_set: |l| l.pointer_primitive_type().is_some(),
        print: |l, f| write_type_attribute(f, '*', l.pointer_primitive_type()),
        value: |_| None,
        in_jax: false,
    },
    Attribute {
        name: "E",
        field: "element_size_in_bits",
        about: "storage bits per element",
        written: "E(bits)",
        rules: &[Rule::NegativeElementSize],
        parse: |p, d, _| {
            int_attribute(
                p,
                &mut d.scalars.element_size_in_bits,
                "element size in bits",
            );
            Ok(())
        },
        is_set: |l| l.element_size_in_bits() != 0,
        print: |l, f| write!(f, "E({})", l.element_size_in_bits()),
        value: |l| {
            let n = l.element_size_in_bits();
            (n != 0).then_some(AttributeValue::Int {
                builder: "with_element_size_in_bits",
                value: n,
            })
        },
        in_jax: true,
    },
    Attribute {
        name: "S",
        field: "memory_space",
        about: "memory space",
        written: "S(n)",
        rules: &[],
        parse: |p, d, start| {
            let mut space = 0;
            int_attribute(p, &mut space, "memory space");
            // XLA keeps the memory space in an int8 (docs/xla-layouts.md §a.3)
            // and wraps what does not fit; strict parsing refuses it.
            let kept = space as i8;
            if p.strict && i64::from(kept) != space {
                let whole = Token {
                    end: p.prev_end(),
                    ..start
                };
                p.error_at(whole, E::MemorySpaceOutOfRange(space));
            }
            d.scalars.memory_space = kept;
            Ok(())
        },
        is_set: |l| l.memory_space() != 0,
        print: |l, f| write!(f, "S({})", l.memory_space()),
        value: |l| {
            let n = l.memory_space();
            (n != 0).then_some(AttributeValue::Int8 {
                builder: "with_memory_space",
                value: n,
            })
        },
        in_jax: false,
    },
    Attribute {
        name: "SC",
        field: "split_configs",
        about: "split configs",
        written: "SC(dimension:index,…)",
        rules: &[
            Rule::SplitDimensionOutOfBounds,
            Rule::SplitDimensionDuplicate,
            Rule::SplitIndicesNotIncreasing,
            Rule::SplitIndexOutOfBounds,
        ],
        parse: parse_split_configs,
        is_set: |l| l.split_config_count() > 0,
        print: |l, f| {
            f.write_str("SC")?;
            for sc in l.split_configs() {
                write!(f, "({}:", sc.dimension)?;
                write_joined(f, sc.indices, ",")?;
                f.write_char(')')?;
            }
            Ok(())
        },
        value: |l| {
            (l.split_config_count() > 0).then_some(AttributeValue::SplitConfigs {
                builder: "with_split_configs",
                layout: l,
            })
        },
        in_jax: false,
    },
    Attribute {
        name: "P",
        field: "physical_shape",
        about: "physical shape of a sparse array",
        written: "P(shape)",
        rules: &[Rule::PhysicalShape],
        parse: |p, d, _| {
            let text = p.physical_shape()?;
            d.layout.set_physical_shape(text);
            Ok(())
        },
        is_set: |l| l.physical_shape().is_some(),
        print: |l, f| match l.physical_shape() {
            Some(p) => write!(f, "P({p})"),
            None => Ok(()),
        },
        value: |_| None,
        in_jax: false,
    },
    Attribute {
        name: "M",
        field: "dynamic_shape_metadata_prefix_bytes",
        about: "bytes of dynamic-shape metadata before the data",
        written: "M(bytes)",
        rules: &[],
        parse: |p, d, _| {
            int_attribute(
                p,
                &mut d.scalars.metadata_prefix_bytes,
                "dynamic shape metadata prefix bytes",
            );
            Ok(())
        },
        is_set: |l| l.dynamic_shape_metadata_prefix_bytes() > 0,
        print: |l, f| write!(f, "M({})", l.dynamic_shape_metadata_prefix_bytes()),
        value: |l| {
            let n = l.dynamic_shape_metadata_prefix_bytes();
            (n != 0).then_some(AttributeValue::Int {
                builder: "with_dynamic_shape_metadata_prefix_bytes",
                value: n,
            })
        },
        in_jax: false,
    },
];

/// The position in [`ATTRIBUTES`] of the attribute written `name`.
///
/// ```
/// use xla_layout_core::text::{attribute_index, ATTRIBUTES};
/// assert_eq!(ATTRIBUTES[attribute_index("E").unwrap()].field, "element_size_in_bits");
/// assert_eq!(attribute_index("X"), None);
/// ```
pub fn attribute_index(name: &str) -> Option<usize> {
    ATTRIBUTES.iter().position(|a| a.name == name)
}

/// The attribute a validation rule is about, if any.
///
/// ```
/// use xla_layout_core::Rule;
/// use xla_layout_core::text::attribute_of;
/// assert_eq!(attribute_of(Rule::NegativeElementSize).map(|a| a.name), Some("E"));
/// assert!(attribute_of(Rule::MissingLayout).is_none());
/// ```
pub fn attribute_of(rule: Rule) -> Option<&'static Attribute> {
    ATTRIBUTES.iter().find(|a| a.rules.contains(&rule))
}

/// The attributes' names in order, `D, T, L, …`, for messages.
///
/// ```
/// use xla_layout_core::text::AttributeOrder;
/// assert_eq!(AttributeOrder.to_string(), "D, T, L, #, *, E, S, SC, P, M");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct AttributeOrder;

impl fmt::Display for AttributeOrder {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for (i, a) in ATTRIBUTES.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(a.name)?;
        }
        Ok(())
    }
}

/// Whether the current token starts the attribute written `name`.
pub(crate) fn starts(p: &Parser<'_>, name: &str) -> bool {
    match name {
        "#" => p.tok().kind == K::Octothorp,
        "*" => p.tok().kind == K::Asterisk,
        _ => p.is_ident(name.as_bytes()),
    }
}

/// `ParseLayoutIntAttribute`: `(n)`, storing n as soon as it is read.
fn int_attribute(p: &mut Parser<'_>, value: &mut i64, what: &'static str) -> bool {
    if !p.expect(K::Lparen, || E::ExpectedAttributeStart(what)) {
        return false;
    }
    match p.int64() {
        Some(v) => *value = v,
        None => return false,
    }
    p.expect(K::Rparen, || E::ExpectedAttributeEnd(what))
}

/// `ParseUnsignedIntegerType`: stores any type, then complains if it is
/// not unsigned.
fn unsigned_integer_type(p: &mut Parser<'_>, out: &mut ElementType) -> bool {
    if p.tok().kind != K::PrimitiveType {
        return p.error(E::ExpectedPrimitiveType(p.tok().kind));
    }
    *out = p.tok().element_type;
    p.lex();
    if !out.is_unsigned_integral() {
        return p.error(E::Syntax("expecting an unsigned integer type"));
    }
    true
}

/// `ParseDimLevelTypes`: `D(D+~,C,S,H)`, read and thrown away.
fn parse_dim_level_types(p: &mut Parser<'_>, _: &mut Draft<'_>, _: Token) -> Step<()> {
    p.list(K::Lparen, K::Rparen, |p| {
        if p.tok().kind == K::Ident && matches!(p.tok_text(), b"D" | b"C" | b"S" | b"H") {
            p.lex();
            p.eat(K::Plus);
            p.eat(K::Tilde);
            return Ok(true);
        }
        Ok(p.error(E::Syntax(
            "expected a DimLevelType abbreviation (D, C, or S)",
        )))
    })?;
    Ok(())
}

/// `ParseTiles`: `(a,b,…)(…)…`; each tile is kept from the moment its `(`
/// is reached.
fn parse_tiles(p: &mut Parser<'_>, d: &mut Draft<'_>, _: Token) -> Step<()> {
    loop {
        let open = p.tok();
        let r = d.layout.push_tile();
        p.capacity(open, r)?;
        let (layout, negative) = (&mut *d.layout, &mut d.negative_tile);
        let ok = p.list(K::Lparen, K::Rparen, |p| {
            let tok = p.tok();
            let entry = match p.int64() {
                Some(v) => v,
                // XLA tries an integer first, so `*` leaves an "expects
                // integer" behind.
                None if p.tok().kind == K::Asterisk => {
                    p.forget_artefact();
                    p.lex();
                    COMBINE
                }
                None => return Ok(false),
            };
            if entry < 0 && entry != COMBINE && negative.is_none() {
                *negative = Some((tok, entry));
            }
            let r = layout.push_tile_entry(entry);
            p.capacity(tok, r)?;
            Ok(true)
        })?;
        let span = p.since(open);
        if let (true, Some(spans)) = (d.record, p.spans_mut_any()) {
            spans.tiles[d.layout.tile_count() - 1] = span;
        }
        if !ok || p.tok().kind != K::Lparen {
            return Ok(());
        }
    }
}

/// `ParseSplitConfigs`: `(d:i,j,…)(…)…`.
fn parse_split_configs(p: &mut Parser<'_>, d: &mut Draft<'_>, _: Token) -> Step<()> {
    loop {
        let open = p.tok();
        if !p.expect(K::Lparen, || {
            E::Syntax("expects split configs to start with kLparen")
        }) {
            return Ok(());
        }
        let tok = p.tok();
        let Some(dimension) = p.int64() else {
            return Ok(());
        };
        let r = d.layout.push_split_config(dimension);
        p.capacity(tok, r)?;
        let layout = &mut *d.layout;
        let ok = p.list(K::Colon, K::Rparen, |p| {
            let tok = p.tok();
            let Some(v) = p.int64() else { return Ok(false) };
            let r = layout.push_split_index(v);
            p.capacity(tok, r)?;
            Ok(true)
        })?;
        let span = p.since(open);
        if let (true, Some(spans), n @ 1..) =
            (d.record, p.spans_mut_any(), d.layout.split_config_count())
        {
            spans.split_configs[n - 1] = span;
        }
        if !ok || p.tok().kind != K::Lparen {
            return Ok(());
        }
    }
}

/// `T(8,128)(2,1)`, each tile as [`super::TileText`] prints it.
fn print_tiles(l: &Layout, f: &mut Formatter<'_>) -> fmt::Result {
    f.write_char('T')?;
    for tile in l.tiles() {
        write_tile(f, tile)?;
    }
    Ok(())
}

/// `#(t)` / `*(t)` print integral types by name and anything else as
/// `invalid` (docs/xla-layouts.md §a.3).
fn write_type_attribute(f: &mut Formatter<'_>, mark: char, t: Option<ElementType>) -> fmt::Result {
    match t {
        Some(t) => write!(
            f,
            "{mark}({})",
            if t.is_integral() { t.name() } else { "invalid" }
        ),
        None => Ok(()),
    }
}

/// Writes the `:attributes` part of a layout, `:` only before the first.
pub(crate) fn print_attributes(l: &Layout, f: &mut Formatter<'_>) -> fmt::Result {
    let mut colon = false;
    for a in &ATTRIBUTES {
        if (a.is_set)(l) {
            if !colon {
                colon = true;
                f.write_char(':')?;
            }
            (a.print)(l, f)?;
        }
    }
    Ok(())
}

/// `Tile::Print`: `(8,128)`, `*` for a combine entry, and XLA's text for
/// any other negative entry.
pub(crate) fn write_tile(f: &mut Formatter<'_>, tile: &[i64]) -> fmt::Result {
    f.write_char('(')?;
    for (i, &d) in tile.iter().enumerate() {
        if i > 0 {
            f.write_char(',')?;
        }
        match d {
            COMBINE => f.write_char('*')?,
            d if d < 0 => write!(f, "Invalid value {d}")?,
            d => write!(f, "{d}")?,
        }
    }
    f.write_char(')')
}
