//! Namespace grouping of demangled names (`--group namespace[:DEPTH]`), and the scope split
//! it rests on. Template arguments and parameter lists are never split.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::diff::Buckets;

const SPECIAL_PREFIXES: [&str; 12] = [
    "vtable for ",
    "VTT for ",
    "typeinfo name for ",
    "typeinfo for ",
    "non-virtual thunk to ",
    "virtual thunk to ",
    "covariant return thunk to ",
    "guard variable for ",
    "construction vtable for ",
    "TLS wrapper function for ",
    "TLS init function for ",
    "transaction clone for ",
];

/// The scope components of a demangled name, the symbol's own name last:
/// `void llvm::foo<int>(a::b)` → `["llvm", "foo<int>"]`; `vtable for A::B` → `["A", "B"]`.
pub fn scope_components(name: &str) -> Vec<&str> {
    let mut s = name;
    for p in SPECIAL_PREFIXES {
        if let Some(rest) = s.strip_prefix(p) {
            s = rest;
            break;
        }
    }
    // Cut at the parameter list: the first '(' at bracket depth 0 that is not part of
    // `(anonymous namespace)` or an `operator()`.
    let b = s.as_bytes();
    let mut depth = 0i32;
    let mut start = 0usize;
    let mut end = b.len();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'<' => depth += 1,
            b'>' => depth -= 1,
            b'(' if depth == 0 => {
                if s[i..].starts_with("(anonymous namespace)") {
                    i += "(anonymous namespace)".len();
                    continue;
                }
                if s[..i].ends_with("operator") {
                    i += 2;
                    continue;
                }
                end = i;
                break;
            }
            // a return type ends at a space at depth 0 (`void llvm::foo<int>(…)`)
            b' ' if depth == 0 && !s[..i].ends_with("operator") && !s[i..].starts_with(" for ") => {
                start = i + 1
            }
            _ => {}
        }
        i += 1;
    }
    let qualified = &s[start.min(end)..end];
    let mut parts = Vec::new();
    let (qb, mut depth, mut last) = (qualified.as_bytes(), 0i32, 0usize);
    let mut j = 0;
    while j < qb.len() {
        match qb[j] {
            b'<' | b'(' => depth += 1,
            b'>' | b')' => depth -= 1,
            b':' if depth == 0 && qb.get(j + 1) == Some(&b':') => {
                parts.push(&qualified[last..j]);
                last = j + 2;
                j += 1;
            }
            _ => {}
        }
        j += 1;
    }
    parts.push(&qualified[last..]);
    parts
}

/// The namespace of a name cut to `depth` components (`(global)` when it has none).
pub fn namespace_of(name: &str, depth: usize) -> String {
    let parts = scope_components(name);
    let scopes = &parts[..parts.len().saturating_sub(1)];
    if scopes.is_empty() {
        return "(global)".into();
    }
    scopes[..depth.min(scopes.len())].join("::")
}

/// Parse a `--group` spec, `namespace` or `namespace:DEPTH`, into its depth.
pub fn parse_spec(spec: &str) -> Result<usize, String> {
    match spec.split_once(':') {
        None if spec == "namespace" => Ok(1),
        Some(("namespace", d)) => match d.parse::<usize>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(format!("--group {spec}: DEPTH must be a positive integer")),
        },
        _ => Err(format!(
            "--group {spec}: expected namespace or namespace:DEPTH"
        )),
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GroupRow {
    pub namespace: String,
    pub added: usize,
    pub removed: usize,
    pub resized: usize,
    pub renamed: usize,
    pub delta: i64,
}

/// Total the listed changes per namespace, largest absolute delta first.
pub fn group(b: &Buckets, depth: usize) -> Vec<GroupRow> {
    let mut m: BTreeMap<String, GroupRow> = BTreeMap::new();
    let mut add = |name: &str, delta: i64, slot: usize| {
        let ns = namespace_of(name, depth);
        let row = m.entry(ns.clone()).or_insert(GroupRow {
            namespace: ns,
            added: 0,
            removed: 0,
            resized: 0,
            renamed: 0,
            delta: 0,
        });
        row.delta += delta;
        match slot {
            0 => row.added += 1,
            1 => row.removed += 1,
            2 => row.resized += 1,
            _ => row.renamed += 1,
        }
    };
    for c in &b.added {
        add(&c.name, c.delta, 0);
    }
    for c in &b.removed {
        add(&c.name, c.delta, 1);
    }
    for c in &b.resized {
        add(&c.name, c.delta, 2);
    }
    for c in &b.renamed {
        add(&c.name, 0, 3);
    }
    let mut rows: Vec<GroupRow> = m.into_values().collect();
    rows.sort_by(|x, y| {
        y.delta
            .unsigned_abs()
            .cmp(&x.delta.unsigned_abs())
            .then_with(|| x.namespace.cmp(&y.namespace))
    });
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_scopes_outside_brackets() {
        assert_eq!(
            scope_components("void llvm::foo<a::b>(c::d)"),
            vec!["llvm", "foo<a::b>"]
        );
        assert_eq!(
            scope_components("vtable for llvm::Pass"),
            vec!["llvm", "Pass"]
        );
        assert_eq!(
            scope_components("(anonymous namespace)::X::f() const"),
            vec!["(anonymous namespace)", "X", "f"]
        );
        assert_eq!(scope_components("main"), vec!["main"]);
        assert_eq!(namespace_of("llvm::orc::Foo::bar(int)", 2), "llvm::orc");
        assert_eq!(
            namespace_of("llvm::orc::Foo::bar(int)", 9),
            "llvm::orc::Foo"
        );
        assert_eq!(namespace_of("bar", 1), "(global)");
        assert_eq!(namespace_of("A::operator()(int)", 1), "A");
    }

    #[test]
    fn group_specs_name_a_positive_depth() {
        assert_eq!(parse_spec("namespace"), Ok(1));
        assert_eq!(parse_spec("namespace:3"), Ok(3));
        assert_eq!(
            parse_spec("namespace:0"),
            Err("--group namespace:0: DEPTH must be a positive integer".into())
        );
        assert_eq!(
            parse_spec("class"),
            Err("--group class: expected namespace or namespace:DEPTH".into())
        );
    }
}
