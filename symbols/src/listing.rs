//! `symbols list` and `symbols undefined`: one library's symbols, sorted or grouped.

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde::Serialize;

use crate::demangle::demangle;
use crate::group::namespace_of;
use crate::model::{Identity, Library, Symbol};

#[derive(Debug, Clone, Serialize)]
pub struct Listed {
    pub name: String,
    pub mangled: String,
    pub version: Option<String>,
    pub kind: char,
    pub size: u64,
    pub address: u64,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ListSort {
    #[default]
    Size,
    Name,
}

/// Demangle and sort symbols (largest first, or by demangled name), keeping the top `top`.
pub fn list(symbols: &[Symbol], sort: ListSort, top: Option<usize>) -> Vec<Listed> {
    let mut v: Vec<Listed> = symbols
        .par_iter()
        .with_min_len(256)
        .map(|s| Listed {
            name: demangle(&s.name).into_owned(),
            mangled: s.name.to_string(),
            version: s.version.as_deref().map(String::from),
            kind: s.kind,
            size: s.size,
            address: s.address,
        })
        .collect();
    match sort {
        ListSort::Size => v.sort_by(|a, b| b.size.cmp(&a.size).then_with(|| a.name.cmp(&b.name))),
        ListSort::Name => {
            v.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.mangled.cmp(&b.mangled)))
        }
    }
    if let Some(n) = top {
        v.truncate(n);
    }
    v
}

#[derive(Debug, Clone, Serialize)]
pub struct NamespaceGroup {
    pub namespace: String,
    pub symbols: Vec<Listed>,
}

/// Group symbols by namespace (cut to `depth` components), namespaces and names sorted.
pub fn by_namespace(symbols: &[Symbol], depth: usize) -> Vec<NamespaceGroup> {
    let mut m: BTreeMap<String, Vec<Listed>> = BTreeMap::new();
    for l in list(symbols, ListSort::Name, None) {
        m.entry(namespace_of(&l.name, depth)).or_default().push(l);
    }
    m.into_iter()
        .map(|(namespace, symbols)| NamespaceGroup { namespace, symbols })
        .collect()
}

/// `symbols list` as versioned JSON (`"schema": 1`).
#[derive(Serialize)]
struct ListJson<'a> {
    schema: u32,
    library: &'a Identity,
    table: &'static str,
    defined: usize,
    symbols: &'a [Listed],
}

/// `symbols undefined` as versioned JSON (`"schema": 1`).
#[derive(Serialize)]
struct UndefinedJson<'a> {
    schema: u32,
    library: &'a Identity,
    table: &'static str,
    undefined: usize,
    groups: &'a [NamespaceGroup],
}

/// Pretty JSON with every object's keys sorted (the documented shape).
fn sorted_json(v: &impl Serialize) -> serde_json::Result<String> {
    serde_json::to_string_pretty(&serde_json::to_value(v)?)
}

/// `symbols list` of `lib`'s listed `rows` as JSON.
pub fn list_json(lib: &Library, rows: &[Listed]) -> serde_json::Result<String> {
    sorted_json(&ListJson {
        schema: 1,
        library: &lib.identity,
        table: lib.table.as_str(),
        defined: lib.defined.len(),
        symbols: rows,
    })
}

/// `symbols list` as text: a header naming the table, then `SIZE KIND NAME[ @VER]` rows.
pub fn list_text(lib: &Library, rows: &[Listed]) -> String {
    let id = &lib.identity;
    let mut out = format!(
        "{}: {} defined symbols from {} ({} {}-bit), showing {}\n",
        id.path,
        lib.defined.len(),
        lib.table.as_str(),
        id.machine,
        id.class_bits,
        rows.len()
    );
    for r in rows {
        let ver = r
            .version
            .as_deref()
            .map(|v| format!(" @{v}"))
            .unwrap_or_default();
        out.push_str(&format!("{:>10} {} {}{ver}\n", r.size, r.kind, r.name));
    }
    out
}

/// `symbols undefined` of `lib` grouped as `groups`, as JSON.
pub fn undefined_json(lib: &Library, groups: &[NamespaceGroup]) -> serde_json::Result<String> {
    sorted_json(&UndefinedJson {
        schema: 1,
        library: &lib.identity,
        table: lib.table.as_str(),
        undefined: lib.undefined.len(),
        groups,
    })
}

/// `symbols undefined` as text: a header, then each namespace and its `KIND NAME[@VER]` rows.
pub fn undefined_text(lib: &Library, groups: &[NamespaceGroup]) -> String {
    let mut out = format!(
        "{}: {} undefined symbols from {} in {} namespaces\n",
        lib.identity.path,
        lib.undefined.len(),
        lib.table.as_str(),
        groups.len()
    );
    for g in groups {
        out.push_str(&format!("{} ({})\n", g.namespace, g.symbols.len()));
        for s in &g.symbols {
            let ver = s
                .version
                .as_deref()
                .map(|v| format!("@{v}"))
                .unwrap_or_default();
            out.push_str(&format!("  {} {}{ver}\n", s.kind, s.name));
        }
    }
    out
}
