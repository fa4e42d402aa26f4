//! Namespace grouping of demangled names (`--group namespace[:DEPTH]`), and the scope split
//! it rests on. Template arguments and parameter lists are never split.

use rayon::prelude::*;
use serde::Serialize;

use crate::diff::Buckets;
use crate::fast::FastMap;

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

/// The qualified name of a demangled name: without a special prefix (`vtable for `), a return
/// type or the parameter list.
fn qualified(name: &str) -> &str {
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
    &s[start.min(end)..end]
}

/// The byte offsets of the `::` separators of a qualified name (outside brackets), in order,
/// found lazily: a caller that wants the first few stops the scan there.
fn separators(qualified: &str) -> impl Iterator<Item = usize> + '_ {
    let (qb, mut depth, mut j) = (qualified.as_bytes(), 0i32, 0usize);
    std::iter::from_fn(move || {
        while j < qb.len() {
            let at = j;
            j += 1;
            match qb[at] {
                b'<' | b'(' => depth += 1,
                b'>' | b')' => depth -= 1,
                b':' if depth == 0 && qb.get(at + 1) == Some(&b':') => {
                    j += 1;
                    return Some(at);
                }
                _ => {}
            }
        }
        None
    })
}

/// The scope components of a demangled name, the symbol's own name last:
/// `void llvm::foo<int>(a::b)` → `["llvm", "foo<int>"]`; `vtable for A::B` → `["A", "B"]`.
pub fn scope_components(name: &str) -> Vec<&str> {
    let q = qualified(name);
    let mut parts = Vec::new();
    let mut last = 0;
    for at in separators(q) {
        parts.push(&q[last..at]);
        last = at + 2;
    }
    parts.push(&q[last..]);
    parts
}

/// The namespace of a name cut to `depth` components (`(global)` when it has none): the
/// first `depth` scopes are one stretch of the name, so it is borrowed, never built.
pub fn namespace_str(name: &str, depth: usize) -> &str {
    let q = qualified(name);
    // The scopes are the components before the last, so a name without a separator has
    // none; otherwise the namespace ends at the `depth`-th separator (or the last one).
    let mut seps = separators(q);
    let Some(first) = seps.next() else {
        return "(global)";
    };
    if depth == 0 {
        return "";
    }
    let end = seps.take(depth - 1).last().unwrap_or(first);
    &q[..end]
}

/// [`namespace_str`], owned.
pub fn namespace_of(name: &str, depth: usize) -> String {
    namespace_str(name, depth).to_string()
}

/// A `--group` spec that names no grouping.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GroupError {
    #[error("--group {spec}: DEPTH must be a positive integer")]
    BadDepth { spec: String },
    #[error("--group {spec}: expected namespace or namespace:DEPTH")]
    Unknown { spec: String },
}

/// Parse a `--group` spec, `namespace` or `namespace:DEPTH`, into its depth.
pub fn parse_spec(spec: &str) -> Result<usize, GroupError> {
    match spec.split_once(':') {
        None if spec == "namespace" => Ok(1),
        Some(("namespace", d)) => match d.parse::<usize>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(GroupError::BadDepth {
                spec: spec.to_string(),
            }),
        },
        _ => Err(GroupError::Unknown {
            spec: spec.to_string(),
        }),
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

/// Total the listed changes per namespace, largest absolute delta first. Each name's
/// namespace is found in parallel (the scan is most of the cost); the totals are then summed
/// in one pass.
pub fn group(b: &Buckets, depth: usize) -> Vec<GroupRow> {
    let buckets = [&b.added, &b.removed, &b.resized, &b.renamed];
    let spaces: Vec<Vec<&str>> = buckets
        .par_iter()
        .map(|changes| {
            changes
                .par_iter()
                .with_min_len(256)
                .map(|c| namespace_str(&c.name, depth))
                .collect()
        })
        .collect();
    let mut index: FastMap<&str, usize> = FastMap::default();
    let mut rows: Vec<GroupRow> = Vec::new();
    for (slot, (changes, spaces)) in buckets.iter().zip(&spaces).enumerate() {
        for (c, &ns) in changes.iter().zip(spaces) {
            let i = *index.entry(ns).or_insert_with(|| {
                rows.push(GroupRow {
                    namespace: ns.to_string(),
                    added: 0,
                    removed: 0,
                    resized: 0,
                    renamed: 0,
                    delta: 0,
                });
                rows.len() - 1
            });
            let row = &mut rows[i];
            match slot {
                0 => row.added += 1,
                1 => row.removed += 1,
                2 => row.resized += 1,
                _ => row.renamed += 1,
            }
            // A rename moves no bytes.
            if slot != 3 {
                row.delta += c.delta;
            }
        }
    }
    // Namespaces are unique, so this order is total.
    rows.sort_unstable_by(|x, y| {
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
        assert_eq!(namespace_of("llvm::orc::Foo::bar(int)", 0), "");
        assert_eq!(
            namespace_of("void a<b::c>::d::e<f::g>(h::i)", 2),
            "a<b::c>::d"
        );
        assert_eq!(namespace_of("vtable for A::B", 3), "A");
    }

    /// The namespace as it was computed before the lazy scan: every separator up to
    /// `depth + 1` collected, then cut. The lazy one must agree on every name and depth.
    fn namespace_reference(name: &str, depth: usize) -> &str {
        let q = qualified(name);
        let seps: Vec<usize> = separators(q).take(depth.saturating_add(1)).collect();
        if seps.is_empty() {
            return "(global)";
        }
        match depth.min(seps.len()) {
            0 => "",
            k => &q[..seps[k - 1]],
        }
    }

    #[test]
    fn lazy_namespace_agrees_with_the_collected_separators() {
        let parts = [
            "a",
            "b<c::d>",
            "(anonymous namespace)",
            "operator()",
            "e(f::g)",
            "h",
        ];
        let mut names = vec![String::new(), "::".to_string(), "a::".to_string()];
        for n in 1..=4usize {
            for start in 0..parts.len() {
                let scoped: Vec<&str> = (0..n).map(|k| parts[(start + k) % parts.len()]).collect();
                let q = scoped.join("::");
                names.push(format!("void {q}(int)"));
                names.push(format!("vtable for {q}"));
                names.push(q);
            }
        }
        for name in &names {
            for depth in [0, 1, 2, 3, 4, 9, usize::MAX] {
                assert_eq!(
                    namespace_str(name, depth),
                    namespace_reference(name, depth),
                    "{name:?} at depth {depth}"
                );
            }
        }
    }

    #[test]
    fn group_specs_name_a_positive_depth() {
        assert_eq!(parse_spec("namespace"), Ok(1));
        assert_eq!(parse_spec("namespace:3"), Ok(3));
        let err = |spec: &str| parse_spec(spec).map_err(|e| e.to_string());
        assert_eq!(
            err("namespace:0"),
            Err("--group namespace:0: DEPTH must be a positive integer".into())
        );
        assert_eq!(
            err("class"),
            Err("--group class: expected namespace or namespace:DEPTH".into())
        );
    }
}
