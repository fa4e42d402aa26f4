//! Checking citations against a source tree: resolve the file, check the range, classify drift.

use super::error::Error;
use super::model::{Checked, Citation, CiteReport, Class, DocScan, Form, PathStyle, Problem};
use super::tree::{SourceText, SourceTree};

/// Tunables of the check.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Lines of tolerance either side of the cited range when looking for anchors.
    pub slack: u64,
}

/// Where a cited path resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    Found(String),
    Missing,
    Ambiguous(Vec<String>),
    WrongDirectory(Vec<String>),
    /// `..` climbs out of the workspace
    Outside,
}

/// Normalise `.` and `..` segments; None when `..` climbs above the start.
fn normalise(path: &str) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            s => out.push(s),
        }
    }
    Some(out.join("/"))
}

/// Resolve a cited path: exact workspace-relative path, then relative to the document's folder,
/// then a unique suffix anchored at `/`. A path whose directory part is wrong is a finding even
/// when the basename is unique.
pub fn resolve(path: &str, doc_dir: Option<&str>, tree: &SourceTree) -> Resolution {
    let doc_relative = |p: &str| -> Option<Option<String>> {
        doc_dir.map(|d| {
            normalise(&if d.is_empty() {
                p.to_string()
            } else {
                format!("{d}/{p}")
            })
        })
    };
    if path.starts_with("./") || path.starts_with("../") {
        match doc_relative(path) {
            Some(None) => return Resolution::Outside,
            Some(Some(p)) if tree.contains(&p) => return Resolution::Found(p),
            _ => {}
        }
    } else {
        let Some(exact) = normalise(path) else {
            return Resolution::Outside;
        };
        if tree.contains(&exact) {
            return Resolution::Found(exact);
        }
        if let Some(Some(p)) = doc_relative(path) {
            if tree.contains(&p) {
                return Resolution::Found(p);
            }
        }
    }
    let trimmed = path.trim_start_matches("./").trim_start_matches("../");
    let name = trimmed.rsplit('/').next().unwrap_or(trimmed);
    let named = tree.named(name);
    let suffix = format!("/{trimmed}");
    let mut hits: Vec<String> = named
        .iter()
        .filter(|f| **f == trimmed || f.ends_with(&suffix))
        .map(|f| f.to_string())
        .collect();
    hits.sort();
    match hits.len() {
        1 => Resolution::Found(hits.remove(0)),
        0 if trimmed.contains('/') && !named.is_empty() => {
            Resolution::WrongDirectory(named.iter().map(|f| f.to_string()).collect())
        }
        0 => Resolution::Missing,
        _ => Resolution::Ambiguous(hits),
    }
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Search forms of an anchor: `Foo(args)` → `Foo` (also `a.b->Foo(…)`); `A::B` → also `B`.
fn needles(anchor: &str) -> Vec<String> {
    let mut a = anchor.trim().trim_end_matches(';').trim();
    if let Some(open) = a.find('(') {
        let name = &a[..open];
        if a.ends_with(')')
            && !name.is_empty()
            && name.bytes().all(|c| is_word(c) || b":~.->".contains(&c))
        {
            a = name;
        }
    }
    let mut out = vec![a.to_string()];
    if let Some((_, last)) = a.rsplit_once("::") {
        if !last.is_empty() && last.bytes().all(is_word) {
            out.push(last.to_string());
        }
    }
    out
}

/// `needle` occurs in `line` with identifier boundaries at its word-character ends.
fn occurs(line: &str, needle: &str) -> bool {
    let (lb, nb) = (line.as_bytes(), needle.as_bytes());
    if nb.is_empty() {
        return false;
    }
    let head_word = is_word(nb[0]);
    let tail_word = is_word(nb[nb.len() - 1]);
    let mut from = 0;
    while let Some(pos) = line[from..].find(needle) {
        let s = from + pos;
        let e = s + nb.len();
        let left_ok = !head_word || s == 0 || !is_word(lb[s - 1]);
        let right_ok = !tail_word || e == lb.len() || !is_word(lb[e]);
        if left_ok && right_ok {
            return true;
        }
        from = s + 1;
        while !line.is_char_boundary(from) {
            from += 1;
        }
    }
    false
}

/// The outcome of looking for the anchors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Drift {
    Ok,
    Moved {
        first: u64,
        last: u64,
        certain: bool,
        anchor: String,
    },
    Changed {
        elsewhere: Vec<u64>,
    },
}

/// Lines of the top-level and nested definitions enclosing line `at` (1-based): walking up,
/// every non-blank line indented less than the code seen so far (braces, comments and
/// preprocessor lines aside) opens an enclosing scope, up to column 0.
fn enclosing(text: &SourceText, at: u64, hi: u64) -> Vec<u64> {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let skip = |t: &str| {
        t.is_empty()
            || ["{", "}", "//", "/*", "*", "#"]
                .iter()
                .any(|p| t.starts_with(p))
    };
    // the first code line of the window sets the depth (a window may open on a brace line)
    let Some(idx) = (at.max(1)..=hi)
        .map(|l| (l - 1) as usize)
        .find(|&i| i < text.line_count() as usize && !skip(text.line(i).trim_start()))
    else {
        return Vec::new();
    };
    let mut cur = indent(text.line(idx));
    let mut out = Vec::new();
    let floor = idx.saturating_sub(400);
    for i in (floor..idx).rev() {
        if cur == 0 {
            break;
        }
        let line = text.line(i);
        if skip(line.trim_start()) {
            continue;
        }
        if indent(line) < cur {
            cur = indent(line);
            out.push(i as u64 + 1);
        }
    }
    out
}

/// Which anchors (bit i = anchor i, at most 64) occur on `line`.
fn anchor_mask(line: &str, needles: &[Vec<String>]) -> u64 {
    needles
        .iter()
        .take(64)
        .enumerate()
        .fold(0u64, |m, (i, ns)| {
            if ns.iter().any(|nd| occurs(line, nd)) {
                m | (1 << i)
            } else {
                m
            }
        })
}

/// Classify drift of `[first, last]` (1-based, inside the file) against `anchors`, the
/// backticked identifiers of the citing sentence, the one written closest to the citation first.
///
/// Ok when that closest identifier sits in the cited lines (± slack) or names a scope enclosing
/// them (the function a `default:` arm belongs to); for a comma-list member (`any`), any of the
/// group's identifiers will do. Otherwise every start line whose window holds the identifier is
/// tried, the other identifiers of the sentence breaking ties (the starts that satisfy most of them
/// win): one contiguous run of winning starts means the code moved (certain when the run is a
/// single start, e.g. a single-line citation); none, or several separate places, means it changed.
pub fn drift(
    text: &SourceText,
    first: u64,
    last: u64,
    anchors: &[String],
    slack: u64,
    any: bool,
) -> Drift {
    let needles: Vec<Vec<String>> = anchors.iter().map(|a| needles(a)).collect();
    let n = text.line_count();
    let span = last - first;
    let all: u64 = if needles.len() >= 64 {
        u64::MAX
    } else {
        (1u64 << needles.len()) - 1
    };
    // the anchors that decide "ok": the closest one, or any of a comma list's
    let lead: u64 = if any { all } else { all & 1 };
    // (lead satisfied, how many anchors satisfied) for a window starting at `f`
    let score_with = |f: u64, mask_at: &dyn Fn(u64) -> u64| -> (bool, u32) {
        let lo = f.saturating_sub(slack).max(1);
        let hi = (f + span).saturating_add(slack).min(n);
        let mut got = (lo..=hi).fold(0u64, |m, l| m | mask_at(l));
        for l in enclosing(text, f, (f + span).min(n)) {
            got |= mask_at(l);
        }
        (got & lead != 0, got.count_ones())
    };
    // the common case reads only the cited lines and their scopes
    let direct_mask = |l: u64| anchor_mask(text.line((l - 1) as usize), &needles);
    let (lo, hi) = (
        first.saturating_sub(slack).max(1),
        last.saturating_add(slack).min(n),
    );
    if lead == 0
        || (lo..=hi).any(|l| direct_mask(l) & lead != 0)
        || score_with(first, &direct_mask).0
    {
        return Drift::Ok;
    }
    // drifted: look at every line once
    let masks: Vec<u64> = text.lines().map(|l| anchor_mask(l, &needles)).collect();
    let mask_at = |l: u64| masks[(l - 1) as usize];
    let score = |f: u64| score_with(f, &mask_at);
    let elsewhere: Vec<u64> = (1..=n).filter(|&l| mask_at(l) & lead != 0).collect();
    if elsewhere.is_empty() || n < span + 1 {
        return Drift::Changed { elsewhere };
    }
    // candidate starts: windows that hold the deciding identifier itself
    let mut starts: Vec<u64> = elsewhere
        .iter()
        .flat_map(|&o| o.saturating_sub(span).max(1)..=o.min(n - span))
        .filter(|&f| f != first)
        .collect();
    starts.sort_unstable();
    starts.dedup();
    let scored: Vec<(u64, u32)> = starts
        .into_iter()
        .filter_map(|f| {
            let (ok, count) = score(f);
            ok.then_some((f, count))
        })
        .collect();
    let Some(best) = scored.iter().map(|s| s.1).max() else {
        return Drift::Changed { elsewhere };
    };
    let good: Vec<u64> = scored.iter().filter(|s| s.1 == best).map(|s| s.0).collect();
    let runs = 1 + good.windows(2).filter(|w| w[1] != w[0] + 1).count();
    if runs > 1 || good.is_empty() {
        return Drift::Changed { elsewhere };
    }
    // several starts fit: prefer the first whose opening line carries one of the identifiers (a
    // range is usually cited from the signature it names), else the smallest shift
    let pick = good
        .iter()
        .copied()
        .find(|&f| mask_at(f) != 0)
        .unwrap_or_else(|| {
            good.iter()
                .copied()
                .min_by_key(|&f| f.abs_diff(first))
                .unwrap_or(first)
        });
    let anchor = anchors.first().cloned().unwrap_or_default();
    Drift::Moved {
        first: pick,
        last: pick + span,
        certain: good.len() == 1,
        anchor,
    }
}

fn excerpt(text: &SourceText, first: u64, last: u64) -> Option<String> {
    let hi = last.min(text.line_count());
    (first.max(1)..=hi)
        .map(|l| text.line((l - 1) as usize).trim())
        .find(|l| !l.is_empty())
        .map(|l| crate::excerpt::around(l, 0))
}

fn checked(class: Class, resolved: Option<String>, problem: Option<Problem>) -> Checked {
    Checked {
        class,
        resolved,
        problem,
        excerpt: None,
    }
}

/// Check one citation.
pub fn check_one(
    c: &Citation,
    doc_dir: Option<&str>,
    tree: &SourceTree,
    opts: &Options,
) -> Result<Checked, Error> {
    let unreachable = |why: &str| {
        checked(
            Class::Uncheckable,
            None,
            Some(Problem::Unreachable {
                why: why.to_string(),
            }),
        )
    };
    if c.in_fence {
        return Ok(checked(Class::Uncheckable, None, None));
    }
    let Some(path) = c.path.as_deref() else {
        return Ok(checked(Class::Uncheckable, None, Some(Problem::Orphan)));
    };
    match c.style {
        Some(PathStyle::Home) => return Ok(unreachable("a home path")),
        Some(PathStyle::Absolute) => return Ok(unreachable("an absolute path")),
        _ => {}
    }
    let resolved = match resolve(path, doc_dir, tree) {
        Resolution::Found(p) => p,
        Resolution::Missing => return Ok(checked(Class::Gone, None, Some(Problem::NoSuchFile))),
        Resolution::Ambiguous(candidates) => {
            return Ok(checked(
                Class::Invalid,
                None,
                Some(Problem::Ambiguous { candidates }),
            ))
        }
        Resolution::WrongDirectory(found) => {
            return Ok(checked(
                Class::Invalid,
                None,
                Some(Problem::WrongDirectory { found }),
            ))
        }
        Resolution::Outside => return Ok(unreachable("the path climbs out of the workspace")),
    };
    if c.first == 0 || c.last == 0 {
        return Ok(checked(
            Class::Invalid,
            Some(resolved),
            Some(Problem::LineZero),
        ));
    }
    if c.last < c.first {
        return Ok(checked(
            Class::Invalid,
            Some(resolved),
            Some(Problem::Inverted),
        ));
    }
    let text = tree.text(&resolved)?;
    if text.binary {
        return Ok(checked(
            Class::Invalid,
            Some(resolved.clone()),
            Some(Problem::Binary { path: resolved }),
        ));
    }
    if c.last > text.line_count() {
        let lines = text.line_count();
        let mut k = checked(
            Class::Gone,
            Some(resolved.clone()),
            Some(Problem::PastEnd {
                path: resolved,
                lines,
            }),
        );
        k.excerpt = excerpt(&text, c.first, c.last);
        return Ok(k);
    }
    let mut k = checked(Class::Ok, Some(resolved.clone()), None);
    k.excerpt = excerpt(&text, c.first, c.last);
    if c.anchors.is_empty() {
        return Ok(k);
    }
    match drift(
        &text,
        c.first,
        c.last,
        &c.anchors,
        opts.slack,
        c.form == Form::ListMember,
    ) {
        Drift::Ok => {}
        Drift::Moved {
            first,
            last,
            certain,
            anchor,
        } => {
            k.class = Class::Moved;
            k.problem = Some(Problem::Moved {
                path: resolved,
                first,
                last,
                certain,
                anchor,
            });
        }
        Drift::Changed { elsewhere } => {
            k.class = Class::Changed;
            k.problem = Some(Problem::Changed {
                path: resolved,
                // a list member is held by any identifier of its group; others by the closest
                anchors: if c.form == Form::ListMember {
                    c.anchors.clone()
                } else {
                    c.anchors.iter().take(1).cloned().collect()
                },
                elsewhere,
            });
        }
    }
    Ok(k)
}

/// Check every citation of every document. Errors only for unreadable cited files.
pub fn check(docs: Vec<DocScan>, tree: &SourceTree, opts: &Options) -> Result<CiteReport, Error> {
    let mut results = Vec::with_capacity(docs.len());
    for d in &docs {
        let mut r = Vec::with_capacity(d.citations.len());
        for c in &d.citations {
            r.push(check_one(c, d.doc_dir.as_deref(), tree, opts)?);
        }
        results.push(r);
    }
    Ok(CiteReport {
        rev: tree.label.clone(),
        commit: tree.commit.clone(),
        docs,
        results,
        tree_files: tree.files().len(),
        files_read: tree.reads(),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::cite::scan::scan;

    fn tree(files: &[(&str, &str)]) -> SourceTree {
        let m: BTreeMap<String, Vec<u8>> = files
            .iter()
            .map(|(p, t)| (p.to_string(), t.as_bytes().to_vec()))
            .collect();
        SourceTree::in_memory("MEM", m)
    }

    fn run(doc: &str, files: &[(&str, &str)]) -> Vec<Checked> {
        let t = tree(files);
        let r = check(
            vec![scan("docs/d.md", Some("docs"), doc)],
            &t,
            &Options::default(),
        )
        .unwrap();
        r.results.into_iter().next().unwrap()
    }

    const SRC: &str = "// a\nvoid Foo() {\n  Bar();\n}\nint Baz;\n";

    #[test]
    fn resolution_order() {
        let t = tree(&[
            ("a/x/Init.cpp", ""),
            ("b/Init.cpp", ""),
            ("c/Init.cpp", ""),
            ("docs/n.md", ""),
            ("a/U.h", ""),
        ]);
        assert_eq!(
            resolve("b/Init.cpp", None, &t),
            Resolution::Found("b/Init.cpp".into())
        );
        assert_eq!(
            resolve("x/Init.cpp", None, &t),
            Resolution::Found("a/x/Init.cpp".into())
        );
        assert!(matches!(resolve("Init.cpp", None, &t), Resolution::Ambiguous(v) if v.len() == 3));
        assert_eq!(
            resolve("n.md", Some("docs"), &t),
            Resolution::Found("docs/n.md".into())
        );
        assert_eq!(
            resolve("../a/U.h", Some("docs"), &t),
            Resolution::Found("a/U.h".into())
        );
        assert_eq!(resolve("../../U.h", Some("docs"), &t), Resolution::Outside);
        assert_eq!(resolve("U.h", None, &t), Resolution::Found("a/U.h".into()));
        // suffix is anchored at `/`: `x/U.h` must not match `a/U.h`, and names the real place
        assert_eq!(
            resolve("b/U.h", None, &t),
            Resolution::WrongDirectory(vec!["a/U.h".into()])
        );
        assert_eq!(resolve("Nope.h", None, &t), Resolution::Missing);
    }

    #[test]
    fn classes() {
        let files = [("src/A.cpp", SRC)];
        let r = run("`Foo` (`A.cpp:2`). `Baz` at A.cpp:1. `Gone` at A.cpp:3. A.cpp:9. A.cpp:0. A.cpp:4-3.\n", &files);
        let classes: Vec<Class> = r.iter().map(|k| k.class).collect();
        assert_eq!(
            classes,
            vec![
                Class::Ok,
                Class::Moved,
                Class::Changed,
                Class::Gone,
                Class::Invalid,
                Class::Invalid
            ]
        );
        assert_eq!(
            r[1].problem,
            Some(Problem::Moved {
                path: "src/A.cpp".into(),
                first: 5,
                last: 5,
                certain: true,
                anchor: "Baz".into()
            })
        );
        assert_eq!(
            r[3].problem.as_ref().unwrap().message("HEAD"),
            "src/A.cpp has 5 lines at HEAD"
        );
        assert_eq!(r[0].excerpt.as_deref(), Some("void Foo() {"));
    }

    #[test]
    fn range_moves_are_certain_only_when_pinned() {
        let src = "x\nx\nvoid Foo() {\n  Bar();\n}\n";
        let files = [("A.cpp", src)];
        let r = run("`Foo` at A.cpp:1-2.\n", &files);
        assert!(matches!(
            r[0].problem,
            Some(Problem::Moved {
                first: 3,
                last: 4,
                certain: false,
                ..
            })
        ));
        // `Bar` inside `Foo`: 3-4 and 4-5 (whose enclosing scope is `Foo`) both fit
        let r = run("`Foo` and `Bar` at A.cpp:1-2.\n", &files);
        assert!(matches!(
            r[0].problem,
            Some(Problem::Moved {
                first: 3,
                last: 4,
                certain: false,
                ..
            })
        ));
        let files = [("A.cpp", "x\nx\nvoid Foo() {\n}\nint Baz;\n")];
        let r = run("`Foo` and `Baz` at A.cpp:1-3.\n", &files);
        assert!(matches!(
            r[0].problem,
            Some(Problem::Moved {
                first: 3,
                last: 5,
                certain: true,
                ..
            })
        ));
    }

    #[test]
    fn slack_and_qualified_names() {
        let src = "a\nvoid R::SetX(int v)\n{\n  default:\n}\n";
        let t = tree(&[("R.cpp", src)]);
        let d = scan("d.md", None, "`R::SetX` (R.cpp:3).\n");
        let r = check(vec![d.clone()], &t, &Options { slack: 1 }).unwrap();
        assert_eq!(r.results[0][0].class, Class::Ok);
        let r = check(vec![d], &t, &Options { slack: 0 }).unwrap();
        assert_eq!(r.results[0][0].class, Class::Moved);
        let r = run(
            "`MGP_FILL(Verb)` at R.cpp:4 and `default:` at R.cpp:4.\n",
            &[("R.cpp", src)],
        );
        assert_eq!(r[1].class, Class::Ok);
    }

    #[test]
    fn every_anchor_must_hold_unless_it_names_the_enclosing_function() {
        let src = "int a;\nvoid R::SetCap(int c)\n{\n    switch (c) {\n    default:\n        Log(c);\n    }\n}\n";
        let files = [("R.cpp", src)];
        let r = run(
            "`R::SetCap`'s `default:` arm (`R.cpp:5-6`) and `Log` in `SetCap` (R.cpp:6).\n",
            &files,
        );
        assert_eq!(r[0].class, Class::Ok);
        assert_eq!(r[1].class, Class::Ok);
        // one anchor in range is not enough when another is missing from range and scopes
        let r = run("`default:` and `Log` and `Other` (`R.cpp:5-6`).\n", &files);
        assert_eq!(r[0].class, Class::Changed);
        // a list member needs only one of the group's anchors
        let r = run("`SetCap` and `Log` at R.cpp:2,6.\n", &files);
        assert!(r.iter().all(|k| k.class == Class::Ok));
    }

    #[test]
    fn continuation_inherits_and_binary() {
        let r = run("A.cpp:1 and (:9).\n\nB.so:1\n", &[("A.cpp", SRC)]);
        assert_eq!(r[1].class, Class::Gone);
        let t = tree(&[("lib.json", "\0\0\0")]);
        let d = scan("d.md", None, "lib.json:1\n");
        let r = check(vec![d], &t, &Options::default()).unwrap();
        assert_eq!(r.results[0][0].class, Class::Invalid);
    }
}
