//! The dirty surface of a tree: every counted mutator call, the IMMEDIATE PUBLISH POINTS, the
//! per-mutator counts, the optional call-graph extension, and the calls the accurate scanner
//! counts differently from upstream's.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use rayon::prelude::*;

use crate::compat::{self, Patterns};
use crate::lex::{parse, Hidden, Kind, Lexed, Parsed};
use crate::scan::{scan_parsed, FileScan, Mechanism, ScanConfig};
use crate::tree::Source;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Real lexer and token-based bodies.
    Accurate,
    /// Upstream's masking and textual header matching, bit for bit.
    Upstream,
}

#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub mode: Mode,
    /// Follow helpers that reach the backend (accurate mode only).
    pub call_graph: bool,
    /// Run the other scanner too and list every call counted differently (accurate mode only).
    pub explain: bool,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Site {
    pub path: String,
    pub line: u32,
    pub column: u32,
    #[serde(skip)]
    pub offset: u32,
    /// The enclosing function (qualified in accurate mode, upstream's body name otherwise).
    pub function: Option<String>,
    /// `lambda`, `local_class`, `local_function` when the call sits in a nested scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nested: Option<crate::scope::NestedKind>,
    pub mutator: String,
    pub mechanism: Mechanism,
    /// How many IMMEDIATE PUBLISH POINTS count it (upstream can count a call more than once).
    pub immediate: u32,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Point {
    pub path: String,
    pub function: String,
    /// Line of the body's `{`.
    pub line: u32,
    pub backend: Vec<String>,
    /// Indices into [`Surface::sites`], in source order.
    pub calls: Vec<usize>,
}

/// A function whose mutations reach the backend only through helpers (`--call-graph`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct HelperPoint {
    pub path: String,
    pub function: String,
    pub line: u32,
    /// Helper names from the function to the one that reaches the backend.
    pub via: Vec<String>,
    pub backend: Vec<String>,
    pub calls: Vec<usize>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct FileIssue {
    pub path: String,
    pub line: u32,
    pub column: u32,
    pub message: String,
}

/// One call the two scanners count differently.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Difference {
    pub path: String,
    pub line: u32,
    pub column: u32,
    pub mutator: String,
    pub upstream_count: u32,
    pub upstream_immediate: u32,
    pub mgctl_count: u32,
    pub mgctl_immediate: u32,
    pub reason: String,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Surface {
    pub mode: Mode,
    pub roots: Vec<String>,
    pub files: Vec<String>,
    pub sites: Vec<Site>,
    pub points: Vec<Point>,
    pub helper_points: Vec<HelperPoint>,
    /// Whether `--call-graph` was asked for (the section prints even when it finds nothing).
    pub call_graph: bool,
    pub issues: Vec<FileIssue>,
    pub differences: Option<Vec<Difference>>,
}

/// Headline counts (spec §1.9).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    pub files: usize,
    pub calls: usize,
    pub distinct: usize,
    pub immediate_calls: usize,
    pub points: usize,
    pub immediate_distinct: usize,
    /// Total minus immediate; upstream's nested double counting can make it negative.
    pub deferred: i64,
    pub helper_calls: usize,
    pub helper_points: usize,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct MutatorRow {
    pub mutator: String,
    pub calls: usize,
    pub immediate: bool,
}

impl Surface {
    pub fn counts(&self) -> Counts {
        let immediate_calls: usize = self.points.iter().map(|p| p.calls.len()).sum();
        let imm: BTreeSet<&str> = self
            .points
            .iter()
            .flat_map(|p| p.calls.iter().map(|&c| self.sites[c].mutator.as_str()))
            .collect();
        Counts {
            files: self.files.len(),
            calls: self.sites.len(),
            distinct: self.mutators().len(),
            immediate_calls,
            points: self.points.len(),
            immediate_distinct: imm.len(),
            deferred: self.sites.len() as i64 - immediate_calls as i64,
            helper_calls: self.helper_points.iter().map(|h| h.calls.len()).sum(),
            helper_points: self.helper_points.len(),
        }
    }

    /// Distinct mutators by call count (descending), then name.
    pub fn mutators(&self) -> Vec<MutatorRow> {
        let mut m: BTreeMap<&str, (usize, bool)> = BTreeMap::new();
        for s in &self.sites {
            let e = m.entry(&s.mutator).or_default();
            e.0 += 1;
            e.1 |= s.immediate > 0;
        }
        let mut rows: Vec<MutatorRow> = m
            .into_iter()
            .map(|(k, (n, i))| MutatorRow {
                mutator: k.to_string(),
                calls: n,
                immediate: i,
            })
            .collect();
        rows.sort_by(|a, b| {
            b.calls
                .cmp(&a.calls)
                .then_with(|| a.mutator.cmp(&b.mutator))
        });
        rows
    }

    pub fn names(&self) -> BTreeSet<String> {
        self.sites.iter().map(|s| s.mutator.clone()).collect()
    }
}

struct FileResult {
    sites: Vec<Site>,
    /// (function, line, backend, site indices local to this file)
    points: Vec<(String, u32, Vec<String>, Vec<usize>)>,
    accurate: Option<FileScan>,
    issues: Vec<FileIssue>,
    differences: Vec<Difference>,
}

/// Analyse already-read sources (files in parallel; output order follows `sources`).
pub fn analyse(
    sources: &[Source],
    roots: &[String],
    cfg: &ScanConfig,
    opts: Options,
) -> Result<Surface, regex::Error> {
    analyse_parsed(sources, None, roots, cfg, opts)
}

/// [`analyse`] with each source already lexed and scoped (`parsed[i]` is `sources[i]`'s), so a
/// run that reads the same files for several passes lexes each once.
pub(crate) fn analyse_parsed(
    sources: &[Source],
    parsed: Option<&[&Parsed]>,
    roots: &[String],
    cfg: &ScanConfig,
    opts: Options,
) -> Result<Surface, regex::Error> {
    let need_compat = opts.mode == Mode::Upstream || opts.explain;
    let pats = if need_compat {
        Some(Patterns::new(&cfg.prefixes)?)
    } else {
        None
    };
    let results: Vec<FileResult> = sources
        .par_iter()
        .enumerate()
        .map(|(i, s)| {
            analyse_file(
                s,
                parsed.and_then(|p| p.get(i).copied()),
                cfg,
                pats.as_ref(),
                opts,
            )
        })
        .collect();

    let mut surface = Surface {
        mode: opts.mode,
        roots: roots.to_vec(),
        files: sources.iter().map(|s| s.rel.clone()).collect(),
        sites: Vec::new(),
        points: Vec::new(),
        helper_points: Vec::new(),
        call_graph: opts.call_graph && opts.mode == Mode::Accurate,
        issues: Vec::new(),
        differences: (opts.explain && opts.mode == Mode::Accurate).then(Vec::new),
    };
    let mut offsets = Vec::with_capacity(results.len());
    for (s, r) in sources.iter().zip(&results) {
        let base = surface.sites.len();
        offsets.push(base);
        surface.sites.extend(r.sites.iter().cloned());
        for (f, line, backend, calls) in &r.points {
            surface.points.push(Point {
                path: s.rel.clone(),
                function: f.clone(),
                line: *line,
                backend: backend.clone(),
                calls: calls.iter().map(|c| c + base).collect(),
            });
        }
        surface.issues.extend(r.issues.iter().cloned());
        if let Some(d) = surface.differences.as_mut() {
            d.extend(r.differences.iter().cloned());
        }
    }
    if opts.call_graph && opts.mode == Mode::Accurate {
        surface.helper_points = helper_points(sources, &results, &offsets);
    }
    Ok(surface)
}

fn analyse_file(
    src: &Source,
    parsed: Option<&Parsed>,
    cfg: &ScanConfig,
    pats: Option<&Patterns>,
    opts: Options,
) -> FileResult {
    let mut issues = Vec::new();
    if let Some((line, column)) = src.bad_utf8 {
        issues.push(FileIssue {
            path: src.rel.clone(),
            line,
            column,
            message: "invalid UTF-8; decoded with U+FFFD replacement and scanned".to_string(),
        });
    }
    let upstream = pats.map(|p| compat::scan(p, &src.text));
    let own;
    let accurate = if opts.mode == Mode::Accurate {
        let p = match parsed {
            Some(p) => p,
            None => {
                own = parse(&src.text);
                &own
            }
        };
        Some((scan_parsed(&src.text, p, cfg), &p.lx))
    } else {
        None
    };
    let mut r = FileResult {
        sites: Vec::new(),
        points: Vec::new(),
        accurate: None,
        issues,
        differences: Vec::new(),
    };
    match (&accurate, &upstream) {
        (Some((fs, lx)), _) => {
            for i in &fs.issues {
                r.issues.push(FileIssue {
                    path: src.rel.clone(),
                    line: i.line,
                    column: i.column,
                    message: i.message.clone(),
                });
            }
            for c in &fs.calls {
                r.sites.push(Site {
                    path: src.rel.clone(),
                    line: c.line,
                    column: c.column,
                    offset: c.offset,
                    function: c.function.map(|k| fs.functions[k].name.clone()),
                    nested: c.nested,
                    mutator: c.mutator.clone(),
                    mechanism: c.mechanism,
                    immediate: 0,
                });
            }
            for (k, f) in fs.functions.iter().enumerate() {
                if f.backend.is_empty() {
                    continue;
                }
                let calls: Vec<usize> = (0..fs.calls.len())
                    .filter(|&c| {
                        fs.calls[c].function == Some(k) && fs.calls[c].mechanism == Mechanism::Call
                    })
                    .collect();
                if calls.is_empty() {
                    continue;
                }
                for &c in &calls {
                    r.sites[c].immediate = 1;
                }
                r.points.push((
                    f.name.clone(),
                    f.line,
                    f.backend.iter().cloned().collect(),
                    calls,
                ));
            }
            if let Some(up) = &upstream {
                r.differences = differences(src, fs, lx, up);
            }
        }
        (None, Some(up)) => {
            let lines = compat::Lines::new(&src.text);
            for c in &up.calls {
                let outer = up
                    .bodies
                    .iter()
                    .find(|b| b.open <= c.offset && c.offset <= b.close);
                r.sites.push(Site {
                    path: src.rel.clone(),
                    line: c.line,
                    column: lines.column(c.offset),
                    offset: c.offset as u32,
                    function: outer.map(|b| b.name.clone()),
                    nested: None,
                    mutator: c.mutator.clone(),
                    mechanism: if c.note {
                        Mechanism::Note
                    } else {
                        Mechanism::Call
                    },
                    immediate: 0,
                });
            }
            for p in &up.points {
                let b = &up.bodies[p.body];
                for &c in &p.calls {
                    r.sites[c].immediate += 1;
                }
                r.points
                    .push((b.name.clone(), b.line, b.backend.clone(), p.calls.clone()));
            }
        }
        (None, None) => {}
    }
    r.accurate = accurate.map(|(fs, _)| fs);
    r
}

/// Per-call comparison of the two scanners in one file, each difference with its cause.
fn differences(
    src: &Source,
    fs: &FileScan,
    lx: &Lexed,
    up: &compat::CompatScan,
) -> Vec<Difference> {
    type Key = (u32, String, bool);
    let mut mine: BTreeMap<Key, (u32, u32)> = BTreeMap::new();
    for c in &fs.calls {
        let imm = c.mechanism == Mechanism::Call
            && c.function
                .is_some_and(|k| !fs.functions[k].backend.is_empty());
        let e = mine
            .entry((c.offset, c.mutator.clone(), c.mechanism == Mechanism::Note))
            .or_default();
        e.0 += 1;
        e.1 += u32::from(imm);
    }
    // Per call, how many publish points list it: one pass over the points (a point listing a
    // call twice counts once), not points x calls per call.
    let mut points_of = vec![0u32; up.calls.len()];
    let mut seen_in = vec![usize::MAX; up.calls.len()];
    for (pi, p) in up.points.iter().enumerate() {
        for &k in &p.calls {
            if let (Some(n), Some(seen)) = (points_of.get_mut(k), seen_in.get_mut(k)) {
                if *seen != pi {
                    *seen = pi;
                    *n += 1;
                }
            }
        }
    }
    let mut theirs: BTreeMap<Key, (u32, u32)> = BTreeMap::new();
    for (k, c) in up.calls.iter().enumerate() {
        let e = theirs
            .entry((c.offset as u32, c.mutator.clone(), c.note))
            .or_default();
        e.0 += 1;
        e.1 += points_of[k];
    }
    let keys: BTreeSet<&Key> = mine.keys().chain(theirs.keys()).collect();
    let lines = compat::Lines::new(&src.text);
    let masked = compat::mask(&src.text);
    let mut out = Vec::new();
    for key in keys {
        let (m, t) = (
            mine.get(key).copied().unwrap_or_default(),
            theirs.get(key).copied().unwrap_or_default(),
        );
        if m == t {
            continue;
        }
        let off = key.0 as usize;
        let reason = explain(src, fs, lx, up, &masked, key, m, t);
        out.push(Difference {
            path: src.rel.clone(),
            line: lines.line(off),
            column: lines.column(off),
            mutator: key.1.clone(),
            upstream_count: t.0,
            upstream_immediate: t.1,
            mgctl_count: m.0,
            mgctl_immediate: m.1,
            reason,
        });
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn explain(
    src: &Source,
    fs: &FileScan,
    lx: &Lexed,
    up: &compat::CompatScan,
    masked: &str,
    key: &(u32, String, bool),
    m: (u32, u32),
    t: (u32, u32),
) -> String {
    let off = key.0 as usize;
    let bytes = src.text.as_bytes();
    let lines = compat::Lines::new(&src.text);
    let enclosing_up: Vec<&compat::Body> = up
        .bodies
        .iter()
        .filter(|b| b.open <= off && off <= b.close)
        .collect();
    if t.0 > 0 && m.0 == 0 {
        if key.2 {
            let names: Vec<String> = enclosing_up
                .iter()
                .map(|b| format!("`{}` (line {})", b.name, b.line))
                .collect();
            return format!("upstream attributes this MGP_NOTE_MUTATION to the header-looking match {}; mgctl to the enclosing function only", names.join(", "));
        }
        return match lx.hidden_at(key.0) {
            Some(Hidden::RawString) => "inside a raw string literal, which upstream's masking does not recognise (not code)".to_string(),
            Some(Hidden::Literal) => "inside a string or character literal that upstream's masking misreads (not code)".to_string(),
            Some(Hidden::Comment) => "inside a comment that upstream's masking misreads (a continued `//` line, or a comment opener inside a literal)".to_string(),
            None if off > 0 && bytes.get(off - 1).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_') => {
                let start = src.text[..off].rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map_or(0, |p| p + 1);
                format!("receiver `{}pGLContext->` is not `pGLContext` (upstream matches with no word boundary)", &src.text[start..off])
            }
            None => "counted by upstream only".to_string(),
        };
    }
    if m.0 > 0 && t.0 == 0 {
        if masked.as_bytes().get(off) == Some(&b' ') {
            let sep = lx
                .tokens
                .iter()
                .take_while(|k| (k.start as usize) < off)
                .filter(|k| {
                    k.kind == Kind::Number
                        && src.text[k.start as usize..k.end as usize].contains('\'')
                })
                .last();
            let raw = lx
                .hidden
                .iter()
                .take_while(|h| (h.0 as usize) < off)
                .filter(|h| h.2 == Hidden::RawString)
                .last();
            return match (sep, raw) {
                (Some(s), r) if r.is_none_or(|r| r.0 < s.start) => format!(
                    "upstream's masking blanked it: the digit separator in `{}` at line {} opens a fake character literal",
                    &src.text[s.start as usize..s.end as usize],
                    s.line
                ),
                (_, Some(r)) => format!("upstream's masking blanked it: the raw string at line {} is misread as ordinary literals", lines.line(r.0 as usize)),
                _ => "upstream's masking blanked it (an unbalanced quote earlier in the file)".to_string(),
            };
        }
        if key.2 {
            return "upstream attributes this MGP_NOTE_MUTATION to a different (header-looking) body name".to_string();
        }
        let rest = &src.text[off..];
        if rest
            .strip_prefix("pGLContext")
            .is_some_and(|r| r.starts_with(char::is_whitespace))
        {
            return "whitespace before `->`, which upstream's pattern does not allow".to_string();
        }
        return "counted by mgctl only".to_string();
    }
    // Same call, different immediacy.
    let my_fn = fs
        .calls
        .iter()
        .find(|c| c.offset == key.0)
        .and_then(|c| c.function)
        .map(|k| &fs.functions[k]);
    if t.1 > 1 {
        let names: Vec<String> = enclosing_up
            .iter()
            .filter(|b| !b.backend.is_empty())
            .map(|b| format!("`{}` (line {})", b.name, b.line))
            .collect();
        return format!(
            "upstream counts it immediate {} times: nested header-looking lines match as bodies {}",
            t.1,
            names.join(", ")
        );
    }
    match (t.1, m.1, my_fn) {
        (1, 0, Some(f)) => format!("upstream's textual body {} reaches the backend; mgctl's function `{}` (line {}) does not", describe(&enclosing_up), f.name, f.line),
        (1, 0, None) => format!("upstream's textual body {} is not a function body to mgctl", describe(&enclosing_up)),
        (0, 1, Some(f)) => format!("upstream did not match the header of `{}` (line {}), so it cannot count the call as immediate", f.name, f.line),
        _ => "immediacy differs".to_string(),
    }
}

fn describe(bodies: &[&compat::Body]) -> String {
    bodies
        .iter()
        .map(|b| format!("`{}` (line {})", b.name, b.line))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `--call-graph`: functions that mutate, do not reach the backend themselves, and call (by
/// name, up to 4 hops) a helper that does.
fn helper_points(
    sources: &[Source],
    results: &[FileResult],
    offsets: &[usize],
) -> Vec<HelperPoint> {
    let mut direct: HashMap<&str, BTreeSet<&str>> = HashMap::new();
    let mut callees: HashMap<&str, BTreeSet<&str>> = HashMap::new();
    for r in results {
        let Some(fs) = &r.accurate else { continue };
        for f in &fs.functions {
            direct
                .entry(f.short())
                .or_default()
                .extend(f.backend.iter().map(String::as_str));
            callees
                .entry(f.short())
                .or_default()
                .extend(f.callees.iter().map(String::as_str));
        }
    }
    let mut out = Vec::new();
    for ((s, r), &base) in sources.iter().zip(results).zip(offsets) {
        let Some(fs) = &r.accurate else { continue };
        for (k, f) in fs.functions.iter().enumerate() {
            if !f.backend.is_empty() {
                continue;
            }
            let calls: Vec<usize> = (0..fs.calls.len())
                .filter(|&c| {
                    fs.calls[c].function == Some(k) && fs.calls[c].mechanism == Mechanism::Call
                })
                .collect();
            if calls.is_empty() {
                continue;
            }
            // Breadth first, so the printed path is a shortest one.
            let mut seen: BTreeSet<&str> = BTreeSet::from([f.short()]);
            let mut queue: VecDeque<Vec<&str>> =
                f.callees.iter().map(|c| vec![c.as_str()]).collect();
            while let Some(path) = queue.pop_front() {
                let Some(&last) = path.last() else { continue };
                if !seen.insert(last) {
                    continue;
                }
                if let Some(b) = direct.get(last).filter(|b| !b.is_empty()) {
                    out.push(HelperPoint {
                        path: s.rel.clone(),
                        function: f.name.clone(),
                        line: f.line,
                        via: path.iter().map(|x| x.to_string()).collect(),
                        backend: b.iter().map(|x| x.to_string()).collect(),
                        calls: calls.iter().map(|c| c + base).collect(),
                    });
                    break;
                }
                if path.len() < 4 {
                    for c in callees.get(last).into_iter().flatten() {
                        let mut p = path.clone();
                        p.push(c);
                        queue.push_back(p);
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::scan::upstream_prefixes;

    /// The accurate surface of one source file `a.cpp`.
    fn surface_of(src: &str, call_graph: bool, explain: bool) -> Surface {
        let s = Source {
            rel: "a.cpp".into(),
            text: src.into(),
            bad_utf8: None,
        };
        let cfg = ScanConfig {
            prefixes: upstream_prefixes("P5e").unwrap(),
        };
        let options = Options {
            mode: Mode::Accurate,
            call_graph,
            explain,
        };
        analyse(&[s], &["x".into()], &cfg, options).unwrap()
    }

    fn diff(src: &str) -> Vec<Difference> {
        surface_of(src, false, true).differences.unwrap()
    }

    #[test]
    fn each_difference_has_its_cause() {
        let d = diff("void F()\n{\n    pGLContext->SetA(1);\n    MG_MACRO Name(args) {\n        pGLContext->SetB(1);\n        gBackendFunctionsTable.GL.Enable(x);\n    }\n}\n");
        assert_eq!(d.len(), 1);
        assert_eq!(
            (
                d[0].mutator.as_str(),
                d[0].upstream_immediate,
                d[0].mgctl_immediate
            ),
            ("SetB", 2, 1)
        );
        assert!(
            d[0].reason.contains("nested header-looking lines"),
            "{}",
            d[0].reason
        );

        let d = diff("void F() { m_pGLContext->SetA(1); pGLContext ->SetB(2); }\n");
        assert_eq!(d.len(), 2);
        assert!(
            d[0].reason.contains("`m_pGLContext->` is not `pGLContext`"),
            "{}",
            d[0].reason
        );
        assert!(
            d[1].reason.contains("whitespace before `->`"),
            "{}",
            d[1].reason
        );

        let d = diff("auto F() -> int\n{\n    pGLContext->SetA(1);\n    gBackendFunctionsTable.GL.Flush();\n    return 0;\n}\n");
        assert_eq!(d.len(), 1);
        assert!(
            d[0].reason
                .contains("upstream did not match the header of `F`"),
            "{}",
            d[0].reason
        );
    }

    #[test]
    fn call_graph_finds_helpers_that_reach_the_backend() {
        let src = "void Flush() { Publish(); }\nvoid Publish() { gBackendFunctionsTable.GL.Flush(); }\nvoid glA() { pGLContext->SetA(1); Flush(); }\nvoid glB() { pGLContext->SetB(1); Other(); }\n";
        let surf = surface_of(src, true, false);
        assert_eq!(surf.helper_points.len(), 1);
        let h = &surf.helper_points[0];
        assert_eq!(
            (h.function.as_str(), h.via.clone(), h.backend.clone()),
            (
                "glA",
                vec!["Flush".to_string(), "Publish".to_string()],
                vec!["Flush".to_string()]
            )
        );
        // The upstream-compatible counts stay intact.
        assert_eq!(surf.counts().immediate_calls, 0);
    }
}
