//! `symbols list` and `symbols undefined`: one library's symbols, sorted or grouped.

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde::Serialize;

use crate::demangle::demangle;
use crate::group::namespace_of;
use crate::model::Symbol;

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
