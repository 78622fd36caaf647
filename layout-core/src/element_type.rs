//! Element types (docs/xla-layouts.md §b): XLA's `PrimitiveType` enum, with its text names,
//! proto numbers and storage widths.

/// The element-type table: one row per type, `VARIANT = proto number =>
/// name, bit width, kind;` (a floating-point kind with its format:
/// `Float(max exponent, significand bits)`, as `std::numeric_limits`
/// gives them: ml_dtypes' `finfo` `maxexp` and `nmant + 1`). Everything else about a type (the enum, `ALL`,
/// names, widths, which family it is in) is generated from its row, so
/// adding a type XLA adds is one row here (and, if TPUs take it, one entry
/// in `tpu::TILING_BITS`, measured).
macro_rules! element_types {
    (@format) => { None };
    (@format $max_exponent:literal, $significand:literal) => { Some(($max_exponent, $significand)) };
    (
        $(#[$attr:meta])*
        pub enum ElementType {
            $( $(#[$doc:meta])* $variant:ident = $number:literal => $name:literal, $bits:expr, $kind:ident $(($max_exponent:literal, $significand:literal))?; )*
        }
    ) => {
        $(#[$attr])*
        pub enum ElementType {
            $( $(#[$doc])* $variant = $number, )*
        }

        impl ElementType {
            /// Every element type, in proto-number order.
            ///
            /// ```
            /// # use xla_layout_core::ElementType;
            /// assert_eq!(ElementType::ALL[0], ElementType::INVALID);
            /// assert_eq!(ElementType::ALL[16], ElementType::BF16); // index = proto number
            /// assert!(ElementType::ALL.iter().enumerate().all(|(i, t)| t.proto_number() as usize == i));
            /// ```
            pub const ALL: [ElementType; [$($number),*].len()] = [$(ElementType::$variant),*];

            /// XLA's lowercase name (`LowercasePrimitiveTypeName`): `bf16`,
            /// `opaque`, `tuple`, `buffer`, and `primitive_type_invalid` for
            /// [`ElementType::INVALID`].
            ///
            /// ```
            /// # use xla_layout_core::ElementType;
            /// assert_eq!(ElementType::F8E4M3B11FNUZ.name(), "f8e4m3b11fnuz");
            /// assert_eq!(ElementType::OPAQUE.name(), "opaque");
            /// ```
            pub const fn name(self) -> &'static str {
                match self {
                    $(ElementType::$variant => $name,)*
                }
            }

            /// `primitive_util::BitWidth`: the logical width in bits; `None`
            /// for non-array types. PRED is 1 bit wide although it is stored
            /// in a byte, and the F6 types are 8 (XLA derives their width
            /// from a one-byte C++ type, docs/xla-layouts.md §i.14).
            ///
            /// ```
            /// # use xla_layout_core::ElementType;
            /// assert_eq!(ElementType::PRED.bit_width(), Some(1));
            /// assert_eq!(ElementType::F6E2M3FN.bit_width(), Some(8));
            /// assert_eq!(ElementType::C128.bit_width(), Some(128));
            /// assert_eq!(ElementType::TUPLE.bit_width(), None);
            /// ```
            pub const fn bit_width(self) -> Option<u32> {
                match self {
                    $(ElementType::$variant => $bits,)*
                }
            }

            /// Which family the type is in.
            const fn kind(self) -> Kind {
                match self {
                    $(ElementType::$variant => Kind::$kind,)*
                }
            }

            /// A floating-point type's format: (largest exponent, significand
            /// bits with the implicit one), XLA's `OverflowExponent` and
            /// `SignificandWidth`; `None` for other types.
            ///
            /// ```
            /// # use xla_layout_core::ElementType;
            /// assert_eq!(ElementType::BF16.float_format(), Some((128, 8)));
            /// assert_eq!(ElementType::F8E4M3FN.float_format(), Some((9, 4)));
            /// assert_eq!(ElementType::S32.float_format(), None);
            /// ```
            pub const fn float_format(self) -> Option<(i32, u32)> {
                match self {
                    $(ElementType::$variant => element_types!(@format $($max_exponent, $significand)?),)*
                }
            }
        }
    };
}

/// An element type's family: what XLA's `primitive_util` predicates ask.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Invalid, tuple and buffer: kinds of shape written by their own
    /// syntax, never by name.
    Unnamed,
    /// Token and opaque: written by name, but not arrays.
    NotArray,
    /// `pred`.
    Pred,
    /// `s1` … `s64`.
    Signed,
    /// `u1` … `u64`.
    Unsigned,
    /// Real floating-point types, `f8`/`f6`/`f4` included.
    Float,
    /// `c64`, `c128`.
    Complex,
}

element_types! {
    /// An XLA element type (`xla::PrimitiveType`).
    ///
    /// Variant names are XLA's enum names, so `ElementType::BF16` is the type
    /// written `bf16` in shape text. The discriminant is the proto enum number.
    ///
    /// ```
    /// use xla_layout_core::ElementType;
    ///
    /// let t = ElementType::from_name("bf16").unwrap();
    /// assert_eq!(t, ElementType::BF16);
    /// assert_eq!((t.bit_width(), t.byte_width(), t.proto_number()), (Some(16), Some(2), 16));
    /// assert!(ElementType::S4.is_packable());
    /// assert!(!ElementType::PRED.is_packable());
    /// ```
    // XLA's own spelling of the enum is what users search for, so keep it.
    #[allow(clippy::upper_case_acronyms, non_camel_case_types)]
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[repr(u8)]
    pub enum ElementType {
        /// `PRIMITIVE_TYPE_INVALID`: the unset type. Has no text form.
        INVALID = 0 => "primitive_type_invalid", None, Unnamed;
        /// `pred`: a boolean, stored in one byte.
        PRED = 1 => "pred", Some(1), Pred;
        /// `s8`.
        S8 = 2 => "s8", Some(8), Signed;
        /// `s16`.
        S16 = 3 => "s16", Some(16), Signed;
        /// `s32`.
        S32 = 4 => "s32", Some(32), Signed;
        /// `s64`.
        S64 = 5 => "s64", Some(64), Signed;
        /// `u8`.
        U8 = 6 => "u8", Some(8), Unsigned;
        /// `u16`.
        U16 = 7 => "u16", Some(16), Unsigned;
        /// `u32`.
        U32 = 8 => "u32", Some(32), Unsigned;
        /// `u64`.
        U64 = 9 => "u64", Some(64), Unsigned;
        /// `f16`: IEEE half precision.
        F16 = 10 => "f16", Some(16), Float(16, 11);
        /// `f32`.
        F32 = 11 => "f32", Some(32), Float(128, 24);
        /// `f64`.
        F64 = 12 => "f64", Some(64), Float(1024, 53);
        /// The tuple kind; written with parentheses, never by name.
        TUPLE = 13 => "tuple", None, Unnamed;
        /// `opaque` (XLA's `OPAQUE_TYPE`).
        OPAQUE = 14 => "opaque", None, NotArray;
        /// `c64`: a pair of `f32`.
        C64 = 15 => "c64", Some(64), Complex;
        /// `bf16`: bfloat16.
        BF16 = 16 => "bf16", Some(16), Float(128, 8);
        /// `token`.
        TOKEN = 17 => "token", None, NotArray;
        /// `c128`: a pair of `f64`.
        C128 = 18 => "c128", Some(128), Complex;
        /// `f8e5m2`.
        F8E5M2 = 19 => "f8e5m2", Some(8), Float(16, 3);
        /// `f8e4m3fn`.
        F8E4M3FN = 20 => "f8e4m3fn", Some(8), Float(9, 4);
        /// `s4`.
        S4 = 21 => "s4", Some(4), Signed;
        /// `u4`.
        U4 = 22 => "u4", Some(4), Unsigned;
        /// `f8e4m3b11fnuz`.
        F8E4M3B11FNUZ = 23 => "f8e4m3b11fnuz", Some(8), Float(5, 4);
        /// `f8e5m2fnuz`.
        F8E5M2FNUZ = 24 => "f8e5m2fnuz", Some(8), Float(16, 3);
        /// `f8e4m3fnuz`.
        F8E4M3FNUZ = 25 => "f8e4m3fnuz", Some(8), Float(8, 4);
        /// `s2`.
        S2 = 26 => "s2", Some(2), Signed;
        /// `u2`.
        U2 = 27 => "u2", Some(2), Unsigned;
        /// `f8e4m3`.
        F8E4M3 = 28 => "f8e4m3", Some(8), Float(8, 4);
        /// `f8e3m4`.
        F8E3M4 = 29 => "f8e3m4", Some(8), Float(4, 5);
        /// `s1`.
        S1 = 30 => "s1", Some(1), Signed;
        /// `u1`.
        U1 = 31 => "u1", Some(1), Unsigned;
        /// `f4e2m1fn`: an MX type, 4 bits.
        F4E2M1FN = 32 => "f4e2m1fn", Some(4), Float(3, 2);
        /// `f8e8m0fnu`: an MX scale type.
        F8E8M0FNU = 33 => "f8e8m0fnu", Some(8), Float(128, 1);
        /// The buffer kind; written `b(...)`, never by name.
        BUFFER = 34 => "buffer", None, Unnamed;
        /// `f6e3m2fn`.
        F6E3M2FN = 35 => "f6e3m2fn", Some(8), Float(5, 3);
        /// `f6e2m3fn`.
        F6E2M3FN = 36 => "f6e2m3fn", Some(8), Float(3, 4);
    }
}

// Rows in proto-number order, with no gap: `from_proto_number` indexes
// `ALL`. A row out of place fails the build here, as does a floating-point
// row without its format (or another with one).
const _: () = {
    let mut i = 0;
    while i < ElementType::ALL.len() {
        let t = ElementType::ALL[i];
        assert!(
            t as usize == i,
            "element_types! rows must be in proto-number order, with no gap"
        );
        assert!(
            matches!(t.kind(), Kind::Float) == t.float_format().is_some(),
            "element_types!: a Float row gives its format, Float(max exponent, significand bits)"
        );
        i += 1;
    }
};

/// A set of element types that constants can hold and ask
/// ([`crate::Element::HOLDS`]): which types a Rust type stands for is then
/// known at compile time.
///
/// ```
/// use xla_layout_core::{ElementType as T, ElementTypes};
/// const FLOATS: ElementTypes = ElementTypes::NONE.with(T::F32).with(T::BF16);
/// assert!(FLOATS.contains(T::BF16) && !FLOATS.contains(T::S32));
/// assert_eq!(format!("{FLOATS:?}"), "{F32, BF16}");
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ElementTypes(u64);

// One bit a type, by proto number: the largest must be below 64.
const _: () = {
    let mut i = 0;
    while i < ElementType::ALL.len() {
        assert!(
            ElementType::ALL[i].proto_number() < 64,
            "ElementTypes holds proto numbers below 64"
        );
        i += 1;
    }
};

impl core::fmt::Debug for ElementTypes {
    /// The set's types: `{F32, BF16}`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_set()
            .entries(ElementType::ALL.iter().filter(|&&t| self.contains(t)))
            .finish()
    }
}

impl ElementTypes {
    /// No type.
    ///
    /// ```
    /// # use xla_layout_core::{ElementType, ElementTypes};
    /// assert!(ElementType::ALL.iter().all(|&t| !ElementTypes::NONE.contains(t)));
    /// assert_eq!(ElementTypes::NONE, ElementTypes::default());
    /// ```
    pub const NONE: ElementTypes = ElementTypes(0);

    /// This set and `ty`.
    ///
    /// ```
    /// # use xla_layout_core::{ElementType as T, ElementTypes};
    /// let ints = ElementTypes::NONE.with(T::S8).with(T::S32).with(T::S8); // a set: S8 once
    /// assert_eq!(format!("{ints:?}"), "{S8, S32}");
    /// ```
    pub const fn with(self, ty: ElementType) -> ElementTypes {
        ElementTypes(self.0 | 1 << ty.proto_number())
    }

    /// Whether `ty` is in the set.
    ///
    /// ```
    /// # use xla_layout_core::{ElementType as T, ElementTypes};
    /// let halves = ElementTypes::NONE.with(T::F16).with(T::BF16);
    /// assert!(halves.contains(T::BF16) && !halves.contains(T::F32));
    /// ```
    pub const fn contains(self, ty: ElementType) -> bool {
        self.0 & 1 << ty.proto_number() != 0
    }
}

impl ElementType {
    /// The number of this type in `xla_data.proto`.
    ///
    /// ```
    /// # use xla_layout_core::ElementType;
    /// assert_eq!(ElementType::F8E8M0FNU.proto_number(), 33);
    /// ```
    pub const fn proto_number(self) -> u8 {
        self as u8
    }

    /// The type with proto number `n`, if there is one.
    ///
    /// ```
    /// # use xla_layout_core::ElementType;
    /// assert_eq!(ElementType::from_proto_number(21), Some(ElementType::S4));
    /// assert_eq!(ElementType::from_proto_number(37), None);
    /// ```
    pub const fn from_proto_number(n: i64) -> Option<ElementType> {
        if n >= 0 && n < Self::ALL.len() as i64 {
            Some(Self::ALL[n as usize])
        } else {
            None
        }
    }

    /// The type whose name is `name`, if `name` is an element-type token of
    /// shape text. Names are case-sensitive; `tuple` and `buffer` are not type
    /// tokens (those kinds have their own syntax), and neither is
    /// `opaque_type` (docs/xla-layouts.md §i.15).
    ///
    /// ```
    /// # use xla_layout_core::ElementType;
    /// assert_eq!(ElementType::from_name("token"), Some(ElementType::TOKEN));
    /// assert_eq!(ElementType::from_name("F32"), None);
    /// assert_eq!(ElementType::from_name("tuple"), None);
    /// ```
    pub const fn from_name(name: &str) -> Option<ElementType> {
        Self::from_name_bytes(name.as_bytes())
    }

    /// [`ElementType::from_name`] on raw bytes.
    ///
    /// ```
    /// # use xla_layout_core::ElementType;
    /// assert_eq!(ElementType::from_name_bytes(b"u4"), Some(ElementType::U4));
    /// ```
    pub const fn from_name_bytes(name: &[u8]) -> Option<ElementType> {
        Self::from_name_at(name, name_slot(name))
    }

    /// [`ElementType::from_name_bytes`] from the name's [`name_slot`]: the
    /// lexer hashes an identifier once for this table and its keywords'.
    pub(crate) const fn from_name_at(name: &[u8], first: usize) -> Option<ElementType> {
        let mut slot = first;
        loop {
            let entry = TYPE_NAMES[slot] as usize;
            if entry == 0 {
                return None;
            }
            let t = Self::ALL[entry - 1];
            if crate::const_eq::same_bytes(t.name().as_bytes(), name) {
                return Some(t);
            }
            slot = (slot + 1) % NAME_SLOTS;
        }
    }

    /// Whether the name of this type lexes as an element-type token.
    pub(crate) const fn is_type_token(self) -> bool {
        !matches!(self.kind(), Kind::Unnamed)
    }

    /// Whether arrays of this type exist (everything but invalid, tuple,
    /// opaque, token and buffer).
    ///
    /// ```
    /// # use xla_layout_core::ElementType;
    /// assert!(ElementType::F4E2M1FN.is_array_type());
    /// assert!(!ElementType::TOKEN.is_array_type());
    /// ```
    pub const fn is_array_type(self) -> bool {
        !matches!(self.kind(), Kind::Unnamed | Kind::NotArray)
    }

    /// `primitive_util::ByteWidth` (= `ShapeUtil::ByteSizeOfPrimitiveType`):
    /// `⌈bit_width / 8⌉`, the bytes one element takes when the layout has no
    /// `E(n)`.
    ///
    /// ```
    /// # use xla_layout_core::ElementType;
    /// assert_eq!(ElementType::S4.byte_width(), Some(1));
    /// assert_eq!(ElementType::BF16.byte_width(), Some(2));
    /// ```
    pub const fn byte_width(self) -> Option<u32> {
        match self.bit_width() {
            Some(bits) => Some(bits.div_ceil(8)),
            None => None,
        }
    }

    /// `IsSubByteNonPredType`: an array type other than PRED narrower than a
    /// byte. XLA gives these `E(bit_width)` when it packs sub-byte data.
    ///
    /// ```
    /// # use xla_layout_core::ElementType;
    /// let packable: Vec<_> = ElementType::ALL.iter().filter(|t| t.is_packable()).collect();
    /// assert_eq!(packable.len(), 7); // s1 s2 s4 u1 u2 u4 f4e2m1fn
    /// ```
    pub const fn is_packable(self) -> bool {
        match self.bit_width() {
            Some(bits) => bits < 8 && !matches!(self.kind(), Kind::Pred),
            None => false,
        }
    }

    /// `primitive_util::HigherPrecisionType`: of two types, the one XLA
    /// gives a `dot` or an elementwise operation of both — more range
    /// first (floating-point types before others), then more precision,
    /// then more bits, then signed before unsigned. `None` where XLA's
    /// order ties two different types (it refuses such a pair) or for
    /// types that are not arrays'.
    ///
    /// ```
    /// # use xla_layout_core::ElementType as T;
    /// assert_eq!(T::BF16.higher_precision(T::F32), Some(T::F32));
    /// assert_eq!(T::F16.higher_precision(T::BF16), Some(T::BF16)); // range before precision
    /// assert_eq!(T::S8.higher_precision(T::F8E4M3FN), Some(T::F8E4M3FN));
    /// assert_eq!(T::U32.higher_precision(T::S32), Some(T::S32));
    /// assert_eq!(T::F8E5M2.higher_precision(T::F8E5M2FNUZ), None); // a tie
    /// assert_eq!(T::F32.higher_precision(T::F32), Some(T::F32));
    /// ```
    pub const fn higher_precision(self, other: ElementType) -> Option<ElementType> {
        // (range, precision, bits, signed), compared in that order.
        const fn key(t: ElementType) -> Option<(i32, i32, u32, bool)> {
            let Some(bits) = t.bit_width() else {
                return None;
            };
            let (range, precision) = match t.float_format() {
                Some((e, s)) => (e, s as i32),
                None => (-1, -1),
            };
            Some((range, precision, bits, t.is_signed_integral()))
        }
        let (Some(a), Some(b)) = (key(self), key(other)) else {
            return None;
        };
        let a_higher = a.0 > b.0
            || a.0 == b.0 && (a.1 > b.1 || a.1 == b.1 && (a.2 > b.2 || a.2 == b.2 && a.3 && !b.3));
        let b_higher = b.0 > a.0
            || b.0 == a.0 && (b.1 > a.1 || b.1 == a.1 && (b.2 > a.2 || b.2 == a.2 && b.3 && !a.3));
        if a_higher {
            Some(self)
        } else if b_higher {
            Some(other)
        } else if self as u8 == other as u8 {
            Some(self)
        } else {
            None
        }
    }

    /// `IsSignedIntegralType`: `s1` … `s64`.
    ///
    /// ```
    /// # use xla_layout_core::ElementType;
    /// assert!(ElementType::S2.is_signed_integral());
    /// ```
    pub const fn is_signed_integral(self) -> bool {
        matches!(self.kind(), Kind::Signed)
    }

    /// `IsUnsignedIntegralType`: `u1` … `u64`.
    ///
    /// ```
    /// # use xla_layout_core::ElementType;
    /// assert!(ElementType::U64.is_unsigned_integral());
    /// assert!(!ElementType::PRED.is_unsigned_integral());
    /// ```
    pub const fn is_unsigned_integral(self) -> bool {
        matches!(self.kind(), Kind::Unsigned)
    }

    /// `IsIntegralType`: signed or unsigned integers (not PRED).
    ///
    /// ```
    /// # use xla_layout_core::ElementType;
    /// assert!(ElementType::S32.is_integral());
    /// assert!(!ElementType::F32.is_integral());
    /// ```
    pub const fn is_integral(self) -> bool {
        self.is_signed_integral() || self.is_unsigned_integral()
    }

    /// `IsComplexType`: `c64` and `c128`.
    ///
    /// ```
    /// # use xla_layout_core::ElementType;
    /// assert!(ElementType::C64.is_complex());
    /// ```
    pub const fn is_complex(self) -> bool {
        matches!(self.kind(), Kind::Complex)
    }

    /// `IsFloatingPointType`: every real float type, including the f8, f6
    /// and f4 types.
    ///
    /// ```
    /// # use xla_layout_core::ElementType;
    /// assert!(ElementType::F8E8M0FNU.is_floating_point());
    /// assert!(!ElementType::C64.is_floating_point());
    /// ```
    pub const fn is_floating_point(self) -> bool {
        matches!(self.kind(), Kind::Float)
    }

    /// The type NumPy and JAX call `name` (`float32`, `int4`, `bfloat16`,
    /// `float8_e4m3fn`, `bool`, `complex64`): their names for XLA's types,
    /// which people copy from Python into shape text.
    ///
    /// ```
    /// # use xla_layout_core::ElementType;
    /// assert_eq!(ElementType::from_numpy_name("float32"), Some(ElementType::F32));
    /// assert_eq!(ElementType::from_numpy_name("int4"), Some(ElementType::S4));
    /// assert_eq!(ElementType::from_numpy_name("uint8"), Some(ElementType::U8));
    /// assert_eq!(ElementType::from_numpy_name("bfloat16"), Some(ElementType::BF16));
    /// assert_eq!(ElementType::from_numpy_name("float8_e4m3fn"), Some(ElementType::F8E4M3FN));
    /// assert_eq!(ElementType::from_numpy_name("bool"), Some(ElementType::PRED));
    /// assert_eq!(ElementType::from_numpy_name("complex128"), Some(ElementType::C128));
    /// assert_eq!(ElementType::from_numpy_name("bool_"), Some(ElementType::PRED));
    /// assert_eq!(ElementType::from_numpy_name("f32"), None); // XLA's own name
    /// for garbage in ["int3", "float_32", "int__4", "float8e4m3fn", "int64_", "bfloat_16", "float"] {
    ///     assert_eq!(ElementType::from_numpy_name(garbage), None, "{garbage}");
    /// }
    /// ```
    pub fn from_numpy_name(name: &str) -> Option<ElementType> {
        // NumPy's and ml_dtypes' names, each an XLA name spelled out: a
        // kind, its bits, and for the small floats `_` and their format
        // (`float8_e4m3fn` is `f8e4m3fn`, `int4` `s4`, `complex64` `c64`).
        const SPELLED: [(&str, &str); 5] = [
            ("bfloat", "bf"),
            ("float", "f"),
            ("uint", "u"),
            ("int", "s"),
            ("complex", "c"),
        ];
        if matches!(name, "bool" | "bool_") {
            return Some(ElementType::PRED);
        }
        let (long, short) = SPELLED.iter().find(|(long, _)| name.starts_with(long))?;
        let rest = &name[long.len()..];
        let bits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let format = match &rest[bits..] {
            "" => "",
            f => f
                .strip_prefix('_')
                .filter(|f| *long == "float" && f.bytes().all(|b| b.is_ascii_alphanumeric()))?,
        };
        if bits == 0 || rest.starts_with('0') {
            return None;
        }
        let mut xla = [0u8; 32];
        let mut n = 0;
        for b in short
            .bytes()
            .chain(rest[..bits].bytes())
            .chain(format.bytes())
        {
            *xla.get_mut(n)? = b;
            n += 1;
        }
        Self::from_name_bytes(&xla[..n]).filter(|t| t.is_type_token())
    }

    /// The type-token name closest to `name` by edit distance, for
    /// "did you mean" hints. `None` when nothing is within distance 2.
    ///
    /// ```
    /// # use xla_layout_core::ElementType;
    /// assert_eq!(ElementType::closest_name("bf61"), Some(ElementType::BF16));
    /// assert_eq!(ElementType::closest_name("F32"), Some(ElementType::F32));
    /// assert_eq!(ElementType::closest_name("matrix"), None);
    /// // Equally near f8e4m3: the one `f6e2m3` starts.
    /// assert_eq!(ElementType::closest_name("f6e2m3"), Some(ElementType::F6E2M3FN));
    /// ```
    pub fn closest_name(name: &str) -> Option<ElementType> {
        // Nearest by edit distance; between equals, the one sharing the
        // longest start with `name` (`f6e2m3` is `f6e2m3fn` cut short, not
        // `f8e4m3` with two digits changed).
        let common = |t: ElementType| {
            let n = t.name().as_bytes();
            name.bytes().zip(n).take_while(|(a, b)| a == *b).count()
        };
        let mut best: Option<(usize, usize, ElementType)> = None;
        for t in Self::ALL {
            if !t.is_type_token() {
                continue;
            }
            let d = crate::similar::edit_distance(name.as_bytes(), t.name().as_bytes());
            let c = common(t);
            if d <= 2 && best.is_none_or(|(bd, bc, _)| d < bd || d == bd && c > bc) {
                best = Some((d, c, t));
            }
        }
        best.map(|(_, _, t)| t)
    }
}

/// Slots of a name table (this module's of type names, the lexer's of
/// keywords): a power of two well above the number of names, and the range
/// of a hash's top byte.
pub(crate) const NAME_SLOTS: usize = 256;

/// A name's first slot in a table of [`NAME_SLOTS`].
pub(crate) const fn name_slot(name: &[u8]) -> usize {
    // FNV-1a; its top byte picks the slot.
    let mut h: u32 = 0x811c_9dc5;
    let mut i = 0;
    while i < name.len() {
        h = (h ^ name[i] as u32).wrapping_mul(0x0100_0193);
        i += 1;
    }
    (h >> 24) as usize % NAME_SLOTS
}

/// The name of every element type that lexes as a type token, in one
/// open-addressing table built at compile time: entry `i + 1` is
/// `ElementType::ALL[i]`, 0 is empty. One probe per name instead of a scan
/// of names; the lexer looks identifiers up here too.
const TYPE_NAMES: [u8; NAME_SLOTS] = {
    let mut table = [0u8; NAME_SLOTS];
    let mut i = 0;
    while i < ElementType::ALL.len() {
        let t = ElementType::ALL[i];
        if t.is_type_token() {
            let mut slot = name_slot(t.name().as_bytes());
            while table[slot] != 0 {
                slot = (slot + 1) % NAME_SLOTS;
            }
            table[slot] = (i + 1) as u8;
        }
        i += 1;
    }
    table
};

impl core::fmt::Display for ElementType {
    /// The lowercase name, as in shape text.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table of docs/xla-layouts.md §b, transcribed independently of the `element_types!` rows.
    #[test]
    fn table_matches_spec() {
        let table: &[(&str, u8, u32, u32, bool)] = &[
            ("pred", 1, 1, 1, false),
            ("s1", 30, 1, 1, true),
            ("s2", 26, 2, 1, true),
            ("s4", 21, 4, 1, true),
            ("s8", 2, 8, 1, false),
            ("s16", 3, 16, 2, false),
            ("s32", 4, 32, 4, false),
            ("s64", 5, 64, 8, false),
            ("u1", 31, 1, 1, true),
            ("u2", 27, 2, 1, true),
            ("u4", 22, 4, 1, true),
            ("u8", 6, 8, 1, false),
            ("u16", 7, 16, 2, false),
            ("u32", 8, 32, 4, false),
            ("u64", 9, 64, 8, false),
            ("f16", 10, 16, 2, false),
            ("f32", 11, 32, 4, false),
            ("f64", 12, 64, 8, false),
            ("bf16", 16, 16, 2, false),
            ("f8e5m2", 19, 8, 1, false),
            ("f8e4m3fn", 20, 8, 1, false),
            ("f8e4m3b11fnuz", 23, 8, 1, false),
            ("f8e5m2fnuz", 24, 8, 1, false),
            ("f8e4m3fnuz", 25, 8, 1, false),
            ("f8e4m3", 28, 8, 1, false),
            ("f8e3m4", 29, 8, 1, false),
            ("f4e2m1fn", 32, 4, 1, true),
            ("f8e8m0fnu", 33, 8, 1, false),
            ("f6e3m2fn", 35, 8, 1, false),
            ("f6e2m3fn", 36, 8, 1, false),
            ("c64", 15, 64, 8, false),
            ("c128", 18, 128, 16, false),
        ];
        for &(name, number, bits, bytes, packable) in table {
            let t = ElementType::from_name(name).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(t.proto_number(), number, "{name}");
            assert_eq!(t.bit_width(), Some(bits), "{name}");
            assert_eq!(t.byte_width(), Some(bytes), "{name}");
            assert_eq!(t.is_packable(), packable, "{name}");
            assert_eq!(t.name(), name);
            assert!(t.is_array_type());
        }
        let array_types = ElementType::ALL
            .iter()
            .filter(|t| t.is_array_type())
            .count();
        assert_eq!(array_types, table.len());
        for (name, number) in [("token", 17), ("opaque", 14)] {
            assert_eq!(ElementType::from_name(name).unwrap().proto_number(), number);
        }
        for name in [
            "tuple",
            "buffer",
            "opaque_type",
            "invalid",
            "primitive_type_invalid",
        ] {
            assert_eq!(ElementType::from_name(name), None, "{name}");
        }
    }

    /// Each row's columns agree: array types (and only they) have a width,
    /// and the family is the one the name says (`s…` signed, `u…`
    /// unsigned, `c…` complex, `f…`/`bf…` float, `pred` none of them),
    /// checked from the names, not from the table's kind column.
    #[test]
    fn every_row_is_consistent() {
        for t in ElementType::ALL {
            assert_eq!(t.is_array_type(), t.bit_width().is_some(), "{t}");
            if !t.is_array_type() {
                continue;
            }
            let n = t.name();
            let family = (
                t.is_signed_integral(),
                t.is_unsigned_integral(),
                t.is_complex(),
                t.is_floating_point(),
            );
            let by_name = (
                n.starts_with('s'),
                n.starts_with('u'),
                n.starts_with('c'),
                n.starts_with('f') || n.starts_with("bf"),
            );
            assert_eq!(family, by_name, "{n}");
        }
    }

    #[test]
    fn proto_numbers_are_dense_and_match_discriminants() {
        for (i, t) in ElementType::ALL.iter().enumerate() {
            assert_eq!(t.proto_number() as usize, i);
            assert_eq!(ElementType::from_proto_number(i as i64), Some(*t));
        }
        assert_eq!(ElementType::from_proto_number(-1), None);
    }

    #[test]
    fn closest_name_basics() {
        assert_eq!(ElementType::closest_name("fp32"), Some(ElementType::F32));
        assert_eq!(ElementType::closest_name("bf61"), Some(ElementType::BF16));
    }
}

/// A name that is not an element-type token ([`ElementType::from_name`]),
/// with the type it likely means: NumPy's and JAX's name for it
/// (`float32`), or the nearest token (`F32`, `bf61`).
///
/// ```
/// use xla_layout_core::{ElementType, UnknownElementType};
/// assert_eq!("bf16".parse::<ElementType>(), Ok(ElementType::BF16));
/// let e: UnknownElementType = "F32".parse::<ElementType>().unwrap_err();
/// assert_eq!(e.meant(), Some(ElementType::F32));
/// assert_eq!(e.to_string(), "not an XLA element type name; did you mean `f32`?");
/// let e = "bfloat16".parse::<ElementType>().unwrap_err();
/// assert_eq!(e.to_string(), "not an XLA element type name; that is NumPy's and JAX's name for XLA's `bf16`");
/// let e = "matrix".parse::<ElementType>().unwrap_err();
/// assert_eq!((e.meant(), e.to_string().as_str()), (None, "not an XLA element type name (such as f32, bf16, s4, pred)"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UnknownElementType {
    meant: Option<ElementType>,
    numpy: bool,
}

impl UnknownElementType {
    /// What `name`, which is no element-type token, likely means.
    pub(crate) fn of(name: &str) -> UnknownElementType {
        match ElementType::from_numpy_name(name) {
            Some(t) => UnknownElementType {
                meant: Some(t),
                numpy: true,
            },
            None => UnknownElementType {
                meant: ElementType::closest_name(name),
                numpy: false,
            },
        }
    }

    /// The type the name likely means, if any.
    ///
    /// ```
    /// use xla_layout_core::ElementType;
    /// assert_eq!("int4".parse::<ElementType>().unwrap_err().meant(), Some(ElementType::S4));
    /// ```
    pub const fn meant(&self) -> Option<ElementType> {
        self.meant
    }

    /// `; ` and the type meant, in the words of every message that names
    /// one (this error's, the parser's hint, serde's); nothing when none.
    pub(crate) fn suggest(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match (self.meant, self.numpy) {
            (Some(t), true) => write!(f, "; that is NumPy's and JAX's name for XLA's `{t}`"),
            (Some(t), false) => write!(f, "; did you mean `{t}`?"),
            (None, _) => Ok(()),
        }
    }
}

impl core::fmt::Display for UnknownElementType {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.meant {
            Some(_) => {
                f.write_str("not an XLA element type name")?;
                self.suggest(f)
            }
            None => f.write_str("not an XLA element type name (such as f32, bf16, s4, pred)"),
        }
    }
}

impl core::error::Error for UnknownElementType {}

impl core::str::FromStr for ElementType {
    type Err = UnknownElementType;

    /// [`ElementType::from_name`], as `str::parse` does it.
    fn from_str(name: &str) -> Result<ElementType, UnknownElementType> {
        ElementType::from_name(name).ok_or_else(|| UnknownElementType::of(name))
    }
}
