//! `hlo("dump.hlo", "name")`: an instruction's shape, read from an HLO dump
//! at expansion time with the HLO reader (`xla-layout-hlo`), then checked
//! like any other shape.

use std::path::PathBuf;

use proc_macro2::TokenStream;
use quote::quote;
use syn::LitStr;
use xla_layout_core::Shape;
use xla_layout_core::text::tuple_element;
use xla_layout_hlo::{LookupError, Module};

use crate::input::HloRef;
use crate::to_text::SourceText;

/// The imported shape's text, and the file to track for rebuilds.
pub struct Imported {
    pub text: SourceText,
    /// `const _: &[u8] = include_bytes!(…);`, so that cargo rebuilds the
    /// crate when the dump changes.
    pub track: TokenStream,
}

/// The dumps one expansion imports from, each read once however many
/// items name it (a dump can be tens of megabytes).
pub struct Texts(Vec<(String, std::io::Result<String>)>);

impl Texts {
    /// Reads each dump `refs` name (paths start at the crate's manifest
    /// directory), once each.
    pub fn read<'r>(refs: impl IntoIterator<Item = &'r HloRef>) -> Texts {
        let mut texts: Vec<(String, std::io::Result<String>)> = Vec::new();
        for r in refs {
            let relative = r.path.value();
            if !texts.iter().any(|(p, _)| *p == relative) {
                let text = std::fs::read_to_string(manifest_dir().join(&relative));
                texts.push((relative, text));
            }
        }
        Texts(texts)
    }
}

/// [`Texts`] read as modules, each once.
pub struct Dumps<'t>(Vec<(&'t str, Result<Dump<'t>, &'t std::io::Error>)>);

/// One dump: its text, the module read leniently (one unreadable
/// instruction must not cost the others), and the lines that did not read.
pub struct Dump<'t> {
    text: &'t str,
    module: Module<'t>,
    unreadable: Vec<xla_layout_hlo::HloError>,
}

impl<'t> Dumps<'t> {
    /// Reads every text as a module.
    pub fn parse(texts: &'t Texts) -> Dumps<'t> {
        Dumps(
            texts
                .0
                .iter()
                .map(|(path, text)| {
                    let dump = text.as_ref().map(|text| {
                        let (module, unreadable) = Module::parse_lenient(text);
                        Dump {
                            text,
                            module,
                            unreadable,
                        }
                    });
                    (path.as_str(), dump)
                })
                .collect(),
        )
    }
}

/// Finds the instruction's (array) shape in its dump, read into `dumps`.
pub fn import(r: &HloRef, dumps: &Dumps<'_>) -> syn::Result<Imported> {
    let relative = r.path.value();
    let path = manifest_dir().join(&relative);
    let shown = path.display().to_string();
    let dump = dumps.0.iter().find(|(p, _)| *p == relative).map(|(_, d)| d);
    let Dump {
        text,
        module,
        unreadable,
    } = match dump {
        Some(Ok(dump)) => dump,
        Some(Err(e)) => {
            let message = format!(
                "cannot read the HLO dump `{relative}` (paths start at the crate's manifest directory): {e}"
            );
            return Err(syn::Error::new_spanned(&r.path, message));
        }
        None => {
            let message = format!("xla-layout internal error: `{relative}` was not read");
            return Err(syn::Error::new_spanned(&r.path, message));
        }
    };
    let text: &str = text;
    let query = r.name.value();
    let (_, instruction) = module.instruction(&query).map_err(|e| {
        let at_line = |e: &xla_layout_hlo::HloError| {
            let (line, column) = e.line_column(text);
            format!("line {line}, column {column}: {e}")
        };
        // The instruction itself may be on a line that does not read.
        if let Some(bad) = unreadable.iter().find(|e| defines(text, e, &query)) {
            let message =
                format!("`{query}` is on a line of `{relative}` that does not read as HLO text: {}", at_line(bad));
            return syn::Error::new_spanned(&r.name, message);
        }
        let mut error = lookup_error(&r.name, &relative, &e);
        if let Some(first) = unreadable.first() {
            let more = match unreadable.len() {
                1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            };
            error.combine(syn::Error::new_spanned(
                &r.path,
                format!(
                    "`{relative}` has lines that do not read as HLO text, which may hold it: {}{more}",
                    at_line(first)
                ),
            ));
        }
        error
    })?;
    let shape = match instruction.shape() {
        Some(Ok(shape)) => shape,
        Some(Err(e)) => {
            let (line, _) = instruction.span().line_column(text);
            let message = format!("`{query}`'s shape, line {line} of `{relative}`: {e}");
            return Err(syn::Error::new_spanned(&r.name, message));
        }
        None => {
            return Err(syn::Error::new_spanned(
                &r.name,
                format!("`{query}` has no shape written in `{relative}`"),
            ));
        }
    };
    let index = &r.index;
    let element = select(&shape, index, &r.name)?;
    if !matches!(element, Shape::Array(_)) {
        let what = format!("`{query}` has the shape `{element}`, which is not an array");
        return Err(syn::Error::new_spanned(&r.name, what));
    }
    // The element as the dump writes it, not as XLA prints it back: the
    // macro's strict reading must see what XLA's parser wraps or drops
    // (`S(300)`, `{0:E}`), as it does in a shape written inline.
    let written = instruction
        .shape_text()
        .and_then(|t| {
            let at: Vec<usize> = index.iter().filter_map(|l| l.base10_parse().ok()).collect();
            tuple_element(t.as_bytes(), &at).and_then(|s| t.get(s.range()))
        })
        .map_or_else(|| element.to_string(), str::to_string);
    let (line, _) = instruction.span().line_column(text);
    let what = match index.len() {
        0 => format!("the shape of `{query}`"),
        _ => format!("element {} of `{query}`'s shape", indices(index)),
    };
    let absolute = LitStr::new(&shown, r.path.span());
    Ok(Imported {
        text: SourceText::from_text_at(written.clone(), r.name.span()).with_origin(format!(
            "{what}, line {line} of `{relative}`, is `{written}`"
        )),
        track: quote!(
            const _: &[u8] = ::core::include_bytes!(#absolute);
        ),
    })
}

/// Whether the line where `e` is defines an instruction named `name`
/// (`[ROOT] [%]name = …`).
fn defines(text: &str, e: &xla_layout_hlo::HloError, query: &str) -> bool {
    // The query as `Module::instruction` takes it: `name`, `%name` or
    // `computation/name` (the computation is not checked here: a line
    // that does not read has none for certain).
    let name = query.rsplit('/').next().unwrap_or(query);
    let name = name.strip_prefix('%').unwrap_or(name).as_bytes();
    // Bytes, not `str` slices: an error's offset need not fall on a
    // character boundary.
    let bytes = text.as_bytes();
    let start = e.span.start.min(bytes.len());
    let line_start = bytes[..start]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line = &bytes[line_start..];
    let line = &line[..line.iter().position(|&b| b == b'\n').unwrap_or(line.len())];
    xla_layout_hlo::defined_name(line)
        .is_some_and(|defined| defined.strip_prefix(b"%").unwrap_or(defined) == name)
}

/// The crate being compiled, where relative dump paths start.
fn manifest_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| PathBuf::from("."), PathBuf::from)
}

fn lookup_error(name: &LitStr, file: &str, e: &LookupError<'_>) -> syn::Error {
    let query = name.value();
    let message = match e {
        LookupError::NotFound { closest } if closest.is_empty() => {
            format!("no instruction `{query}` in `{file}`")
        }
        LookupError::NotFound { closest } => format!(
            "no instruction `{query}` in `{file}`; did you mean {}?",
            quoted(closest, " or ")
        ),
        LookupError::Ambiguous { computations } => format!(
            "`{query}` names an instruction in each of {}; write `\"computation/{query}\"`",
            quoted(computations, ", ")
        ),
    };
    syn::Error::new_spanned(name, message)
}

/// `` `a`, `b` ``.
fn quoted(names: &[&str], separator: &str) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(separator)
}

/// The element of `shape` at `index` (one number per tuple level).
fn select<'s>(shape: &'s Shape, index: &[syn::LitInt], name: &LitStr) -> syn::Result<&'s Shape> {
    let query = name.value();
    let mut at = shape;
    for (level, lit) in index.iter().enumerate() {
        let Shape::Tuple(elements) = at else {
            let what = if level == 0 {
                format!("`{query}` has the array shape `{at}`: it takes no tuple index")
            } else {
                format!("this index goes into `{at}`, which is not a tuple")
            };
            return Err(syn::Error::new_spanned(lit, what));
        };
        let i: usize = lit.base10_parse().map_err(|_| {
            syn::Error::new_spanned(lit, "a tuple index is a number from 0, such as `0`")
        })?;
        at = elements.get(i).ok_or_else(|| {
            syn::Error::new_spanned(
                lit,
                format!(
                    "index {i} is out of range: the tuple `{at}` has {} elements",
                    elements.len()
                ),
            )
        })?;
    }
    if let Shape::Tuple(elements) = at {
        // Where the indices given so far lead, for the message.
        let what = match index.len() {
            0 => format!("`{query}` has"),
            _ => format!("element {} of `{query}` has", indices(index)),
        };
        // (An empty tuple has no range: its message below says so.)
        let range = match elements.len() {
            0 | 1 => "0".to_string(),
            n => format!("0 to {}", n - 1),
        };
        let hint = match (elements.len(), index.len()) {
            (0, _) => format!("{what} the empty tuple shape `{at}`: it holds no array"),
            (_, 0) => format!(
                "{what} the tuple shape `{at}`; add the index of an element ({range}) after the name"
            ),
            _ => format!(
                "{what} the tuple shape `{at}`; add one more index, of an element ({range}): one per tuple level"
            ),
        };
        return Err(match index.last() {
            Some(lit) => syn::Error::new_spanned(lit, hint),
            None => syn::Error::new_spanned(name, hint),
        });
    }
    Ok(at)
}

/// `{0,1}`: tuple indices as XLA writes a shape index.
fn indices(index: &[syn::LitInt]) -> String {
    let numbers: Vec<String> = index
        .iter()
        .map(|l| {
            l.base10_parse::<usize>()
                .map_or_else(|_| l.to_string(), |n| n.to_string())
        })
        .collect();
    format!("{{{}}}", numbers.join(","))
}
