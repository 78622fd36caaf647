//! Checked model → Rust items: a zero-sized type per layout whose constants
//! and `offset` are literals computed by layout-core at expansion time.

mod literal;
mod offset;

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};
use xla_layout_core::text::{ATTRIBUTES, AttributeValue};
use xla_layout_core::{ArrayShape, COMBINE, Dim, ElementType};

use crate::check::{Checked, Partial};

/// Where the generated code finds the runtime crate: `$crate` of the
/// `xla-layout` facade, whatever name the user imported it under.
pub struct Krate(pub TokenStream);

/// The items for a valid layout named `name`.
pub fn layout_items(krate: &Krate, name: &Ident, checked: &Checked) -> TokenStream {
    let k = &krate.0;
    let Checked { shape, tiled } = checked;
    let text = shape.to_string();
    let rank = shape.rank();
    let dims: Vec<TokenStream> = tiled
        .logical_dims()
        .iter()
        .map(|&d| literal::usize_lit(d))
        .collect();
    let slots = tiled.physical_slots();
    let bytes = tiled.exact_bytes();
    let (slots_lit, bytes_lit) = (literal::usize_lit(slots), literal::usize_lit(bytes));
    let (slots_u64, bytes_u64) = (Literal::u64_suffixed(slots), Literal::u64_suffixed(bytes));
    let bits = Literal::u64_suffixed(tiled.element_bits());
    // `check` refused layouts whose bit count does not fit in 64 bits.
    let total_bits = Literal::u64_suffixed(tiled.total_bits().unwrap_or(u64::MAX));
    let space = Literal::i8_suffixed(shape.memory_space());
    let ty = format_ident!("{}", format!("{:?}", shape.element_type()));
    let shape_expr = shape_expression(k, shape);
    let logical = logical_type(k, shape);
    let indices: Vec<Ident> = (0..rank).map(|d| format_ident!("i{}", d)).collect();
    let in_bounds = bounds_condition(&indices, &dims);
    let body = offset::offset_expression(tiled);
    let index_ty = quote!([usize; #rank]);
    // Both become format strings of `assert!`: escape the layout's braces.
    let escaped = text.replace('{', "{{").replace('}', "}}");
    let too_big = format!(
        "layout `{escaped}` needs more slots, bytes or bits than this target's usize can count"
    );
    // One assertion per dimension, so that a failure names the dimension
    // and its size (a const fn's panic cannot format the index itself).
    let dim_checks: Vec<TokenStream> = indices
        .iter()
        .zip(tiled.logical_dims())
        .enumerate()
        .map(|(d, (i, &size))| {
            let lit = literal::usize_lit(size);
            let message = format!(
                "index out of bounds: dimension {d} of layout `{escaped}` has size {size} \
                 (`offset_checked` returns None instead)"
            );
            quote!(debug_assert!(#i < #lit, #message);)
        })
        .collect();
    // `r#type` is the type `type`.
    let debug_name = syn::ext::IdentExt::unraw(name).to_string();
    // At the item's name: on a 32-bit target, the error says which item.
    let fits = quote::quote_spanned! {name.span()=>
        ::core::assert!(
            #k::__private::fits_usize(#slots_u64)
                && #k::__private::fits_usize(#bytes_u64)
                && #k::__private::fits_usize(#total_bits),
            #too_big
        );
    };
    // Generated code must not trip the user's lints, whatever they enable.
    quote! {
        #[allow(clippy::all, clippy::pedantic, clippy::nursery, deprecated)]
        impl #name {
            /// The number of logical dimensions.
            pub const RANK: usize = #rank;
            /// The logical dimension sizes (bounds for `<=N` dimensions).
            pub const DIMS: #index_ty = [#(#dims),*];
            /// Slots allocated, padding included (every tile level and `L`).
            pub const PHYSICAL_ELEMENTS: usize = #slots_lit;
            /// The exact size in bytes.
            pub const BYTES: usize = #bytes_lit;
            /// Storage bits per slot.
            pub const ELEMENT_BITS: u64 = #bits;
            /// The element type.
            pub const ELEMENT_TYPE: #k::ElementType = #k::ElementType::#ty;
            /// The memory space, `S(n)`.
            pub const MEMORY_SPACE: i8 = #space;
            /// The canonical XLA text.
            pub const TEXT: &'static str = #text;
            /// The whole shape as a layout-core value.
            pub const SHAPE: #k::ArrayShape = #shape_expr;

            /// The slot of `index`: straight-line arithmetic on constants.
            /// Out-of-bounds indices are caught by a debug assertion only,
            /// which names the dimension and the caller's line.
            #[inline(always)]
            #[track_caller]
            #[allow(unused_variables)]
            pub const fn offset(self, index: #index_ty) -> usize {
                let [#(#indices),*] = index;
                #(#dim_checks)*
                #body
            }

            /// The slot of `index`, or `None` if it is out of bounds.
            #[inline(always)]
            #[allow(unused_variables)]
            pub const fn offset_checked(self, index: #index_ty) -> ::core::option::Option<usize> {
                let [#(#indices),*] = index;
                if #in_bounds { ::core::option::Option::Some(self.offset(index)) } else { ::core::option::Option::None }
            }

            /// The bit offset of `index`'s element (packed elements fill
            /// bytes from the least significant bit).
            #[inline(always)]
            #[track_caller]
            pub const fn bit_offset(self, index: #index_ty) -> usize {
                // Cannot overflow: the storage's bit count fits in usize
                // (checked below).
                self.offset(index) * (Self::ELEMENT_BITS as usize)
            }
        }

        // The literals above come from layout-core at expansion time; check
        // them against its const evaluation of the same shape, and against
        // this target's usize.
        #[allow(clippy::all, clippy::pedantic, clippy::nursery, deprecated)]
        const _: () = {
            #fits
            match #k::TiledShape::new(&#name::SHAPE) {
                ::core::result::Result::Ok(t) => ::core::assert!(
                    t.physical_slots() == #slots_u64 && t.exact_bytes() == #bytes_u64,
                    "xla-layout internal error: generated constants disagree with layout-core"
                ),
                ::core::result::Result::Err(_) => ::core::panic!("xla-layout internal error: generated shape is invalid"),
            }
        };

        /// SAFETY: `offset` is layout-core's coordinate program for
        /// `SHAPE` folded into constants at expansion time, so in-bounds
        /// indices map to distinct slots below `PHYSICAL_ELEMENTS`;
        /// `offset_checked` tests exactly the bounds in `DIMS`; the const
        /// block above checks the size constants against layout-core and
        /// this target's usize.
        #[allow(clippy::all, clippy::pedantic, clippy::nursery, deprecated)]
        unsafe impl #k::StaticLayout for #name {
            type Index = #index_ty;
            type Space = #k::MemorySpace<#space>;
            type Logical = #logical;
            const RANK: usize = #name::RANK;
            const DIMS: #index_ty = #name::DIMS;
            const PHYSICAL_ELEMENTS: usize = #name::PHYSICAL_ELEMENTS;
            const BYTES: usize = #name::BYTES;
            const ELEMENT_BITS: u64 = #name::ELEMENT_BITS;
            const ELEMENT_TYPE: #k::ElementType = #name::ELEMENT_TYPE;
            const MEMORY_SPACE: i8 = #name::MEMORY_SPACE;
            const TEXT: &'static str = #name::TEXT;
            const SHAPE: #k::ArrayShape = #name::SHAPE;
            #[inline(always)]
            #[track_caller]
            fn offset(self, index: #index_ty) -> usize {
                #name::offset(self, index)
            }
            #[inline(always)]
            fn offset_checked(self, index: #index_ty) -> ::core::option::Option<usize> {
                #name::offset_checked(self, index)
            }
        }

        #[allow(deprecated)]
        impl ::core::fmt::Display for #name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(#name::TEXT)
            }
        }

        #[allow(deprecated)]
        impl ::core::fmt::Debug for #name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                ::core::write!(f, "{}({})", #debug_name, #name::TEXT)
            }
        }
    }
}

/// A type with the right rank and no valid index, emitted next to the
/// errors of an invalid layout so that the rest of the crate still
/// type-checks (and rust-analyzer keeps working). It honours
/// `StaticLayout`'s contract as the empty array `T[0,…,0]` of that rank:
/// a valid shape, no index, no slot. Where the element type and dimensions
/// were read (only the layout failed) it keeps them (`T`, and `Logical` as
/// written), and `VALID` is false, so that views, copies and the
/// compile-time checks that use the type raise no second error. The crate
/// never builds, so no code runs with it.
pub fn fallback_items(krate: &Krate, name: &Ident, partial: &Partial) -> TokenStream {
    let k = &krate.0;
    let rank = partial.rank;
    let index_ty = quote!([usize; #rank]);
    let element = partial
        .logical
        .as_ref()
        .map_or(ElementType::U8, |s| s.element_type());
    let zeros_shape = ArrayShape::new(element, &vec![0; rank]);
    // A type with no storage width of its own (none here: the shape
    // parsed) would fall back to bytes.
    let (shape, bits) = match zeros_shape.tiled() {
        Ok(t) => (zeros_shape, t.element_bits()),
        Err(_) => (ArrayShape::new(ElementType::U8, &vec![0; rank]), 8),
    };
    let text = shape.to_string();
    let logical = logical_type(k, partial.logical.as_deref().unwrap_or(&shape));
    let et = element_type_path(k, shape.element_type());
    let zeros = vec![quote!(#k::Dim::Static(0)); rank];
    quote! {
        #[allow(clippy::all, clippy::pedantic, clippy::nursery, deprecated, missing_docs, unused_variables)]
        impl #name {
            pub const RANK: usize = #rank;
            pub const DIMS: #index_ty = [0; #rank];
            pub const PHYSICAL_ELEMENTS: usize = 0;
            pub const BYTES: usize = 0;
            pub const ELEMENT_BITS: u64 = #bits;
            pub const ELEMENT_TYPE: #k::ElementType = #et;
            pub const MEMORY_SPACE: i8 = 0;
            pub const TEXT: &'static str = #text;
            pub const SHAPE: #k::ArrayShape = #k::ArrayShape::from_dims(#et, &[#(#zeros),*]);
            pub const fn offset(self, index: #index_ty) -> usize { 0 }
            pub const fn offset_checked(self, index: #index_ty) -> ::core::option::Option<usize> { ::core::option::Option::None }
            pub const fn bit_offset(self, index: #index_ty) -> usize { 0 }
        }
        /// SAFETY: the empty array has no valid index, so `offset_checked`
        /// is always `None` and no slot or byte is promised.
        #[allow(clippy::all, clippy::pedantic, clippy::nursery, deprecated)]
        unsafe impl #k::StaticLayout for #name {
            type Index = #index_ty;
            type Space = #k::MemorySpace<0>;
            type Logical = #logical;
            const RANK: usize = #rank;
            const DIMS: #index_ty = [0; #rank];
            const PHYSICAL_ELEMENTS: usize = 0;
            const BYTES: usize = 0;
            const ELEMENT_BITS: u64 = #bits;
            const ELEMENT_TYPE: #k::ElementType = #et;
            const MEMORY_SPACE: i8 = 0;
            const TEXT: &'static str = #text;
            const SHAPE: #k::ArrayShape = #name::SHAPE;
            const VALID: bool = false;
            fn offset(self, _: #index_ty) -> usize { 0 }
            fn offset_checked(self, _: #index_ty) -> ::core::option::Option<usize> { ::core::option::Option::None }
        }
        #[allow(deprecated)]
        impl ::core::fmt::Display for #name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result { f.write_str(#text) }
        }
        #[allow(deprecated)]
        impl ::core::fmt::Debug for #name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result { f.write_str("invalid layout") }
        }
    }
}

/// The traits every layout type derives (`Debug` and `Display` are
/// written out: they print the layout's text).
pub const DERIVED: [&str; 8] = [
    "Clone",
    "Copy",
    "Default",
    "PartialEq",
    "Eq",
    "Hash",
    "PartialOrd",
    "Ord",
];

/// The struct itself, with the user's attributes and our doc line.
pub fn struct_item(attrs: &TokenStream, vis: &TokenStream, name: &Ident, doc: &str) -> TokenStream {
    let derived = DERIVED.iter().map(|t| format_ident!("{}", t));
    quote! {
        #attrs
        #[doc = #doc]
        #[derive(#(#derived),*)]
        #vis struct #name;
    }
}

/// The doc line for a valid layout.
pub fn doc_line(checked: &Checked) -> String {
    let t = &checked.tiled;
    format!(
        "\n\nXLA layout `{}`: {} logical elements in {} slots, {} bytes; slot of `[{}]` = `{}`.",
        checked.shape,
        t.element_count(),
        t.physical_slots(),
        t.exact_bytes(),
        (0..t.rank())
            .map(|d| format!("i{d}"))
            .collect::<Vec<_>>()
            .join(", "),
        offset::offset_expression_text(t),
    )
}

fn bounds_condition(indices: &[Ident], dims: &[TokenStream]) -> TokenStream {
    if indices.is_empty() {
        return quote!(true);
    }
    quote!(#(#indices < #dims)&&*)
}

/// A const expression rebuilding `shape` with layout-core's builders.
fn shape_expression(k: &TokenStream, shape: &ArrayShape) -> TokenStream {
    let ty = format_ident!("{}", format!("{:?}", shape.element_type()));
    let dims = (0..shape.rank()).map(|d| match shape.dim(d) {
        Dim::Static(n) => {
            let n = Literal::i64_unsuffixed(n);
            quote!(#k::Dim::Static(#n))
        }
        Dim::Bounded(n) => {
            let n = Literal::i64_unsuffixed(n);
            quote!(#k::Dim::Bounded(#n))
        }
        Dim::Unbounded => quote!(#k::Dim::Unbounded),
    });
    let layout = shape.layout_or_default();
    let m2m = layout
        .minor_to_major()
        .iter()
        .map(|&v| Literal::i64_unsuffixed(v));
    let mut builder = quote!(#k::Layout::new(&[#(#m2m),*]));
    // Every attribute the layout sets, from the core's attribute table.
    for a in &ATTRIBUTES {
        if let Some(value) = (a.value)(&layout) {
            builder = attribute_call(k, builder, value);
        }
    }
    quote!(#k::ArrayShape::from_dims(#k::ElementType::#ty, &[#(#dims),*]).with_layout(#builder))
}

/// `builder.<method>(value)` for one attribute value.
fn attribute_call(k: &TokenStream, builder: TokenStream, value: AttributeValue<'_>) -> TokenStream {
    let call = |method: &str, arg: TokenStream| {
        let method = format_ident!("{}", method);
        quote!(#builder.#method(#arg))
    };
    match value {
        AttributeValue::Tiles { builder: m, layout } => {
            let tiles = layout.tiles().map(|t| {
                let entries = t.iter().map(|&e| {
                    if e == COMBINE {
                        quote!(#k::COMBINE)
                    } else {
                        let e = Literal::i64_unsuffixed(e);
                        quote!(#e)
                    }
                });
                quote!(&[#(#entries),*])
            });
            call(m, quote!(&[#(#tiles),*]))
        }
        AttributeValue::SplitConfigs { builder: m, layout } => {
            let configs = layout.split_configs().map(|c| {
                let d = Literal::i64_unsuffixed(c.dimension);
                let idx = c.indices.iter().map(|&i| Literal::i64_unsuffixed(i));
                quote!((#d, &[#(#idx),*]))
            });
            call(m, quote!(&[#(#configs),*]))
        }
        AttributeValue::Int { builder: m, value } => {
            let v = Literal::i64_unsuffixed(value);
            call(m, quote!(#v))
        }
        AttributeValue::Int8 { builder: m, value } => {
            let v = Literal::i8_unsuffixed(value);
            call(m, quote!(#v))
        }
        // A new kind of value needs its rendering here.
        other => {
            let message = format!("xla-layout internal error: no code for {other:?}");
            quote!(::core::compile_error!(#message))
        }
    }
}

/// `Logical<TYPE, (Extent<A>, Bound<B>, …)>`.
fn logical_type(k: &TokenStream, shape: &ArrayShape) -> TokenStream {
    let ty = Literal::u8_unsuffixed(shape.element_type().proto_number());
    let dims = (0..shape.rank()).map(|d| match shape.dim(d) {
        Dim::Static(n) => {
            let n = literal::usize_lit(n as u64);
            quote!(#k::Extent<{ #n }>)
        }
        Dim::Bounded(n) => {
            let n = literal::usize_lit(n as u64);
            quote!(#k::Bound<{ #n }>)
        }
        Dim::Unbounded => quote!(()),
    });
    quote!(#k::Logical<#ty, (#(#dims,)*)>)
}

/// `ElementType::F32` (the variant's name is its `Debug`).
fn element_type_path(k: &TokenStream, t: ElementType) -> TokenStream {
    let ty = format_ident!("{}", format!("{t:?}"));
    quote!(#k::ElementType::#ty)
}
