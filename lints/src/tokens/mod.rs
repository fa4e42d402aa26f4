//! Forbidden-token rules: "this identifier or pattern must not appear under these paths".
//!
//! MobileGL writes its purity gate C (`pGLContext` never appears under `MG_Backend`) and its stdio
//! gate (no `printf`-style instrumentation under `MG_Backend`/`MG_State`) as such rules.
//! `parse` compiles rules, `scan` is a pure function over one file's text, `run` walks a tree.

pub mod cfg;
pub mod check;
pub mod controls;
pub mod live;
mod mask;

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use regex::Regex;

pub use check::{check, Code};
pub use mask::{mask, Mask};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("rule `{rule}`: invalid pattern: {reason}")]
    BadPattern { rule: String, reason: String },
    #[error("rule `{rule}`: invalid glob `{glob}`: {reason}")]
    BadGlob {
        rule: String,
        glob: String,
        reason: String,
    },
    #[error("rule `{rule}`: allow entry `{entry}`: {reason}")]
    BadAllow {
        rule: String,
        entry: String,
        reason: String,
    },
    #[error("rule `{rule}`: needs exactly one of `pattern` or `ident`")]
    NoPattern { rule: String },
    #[error("{}: cannot walk: {reason}", .path.display())]
    Walk { path: PathBuf, reason: String },
    #[error("{}: cannot read: {reason}", .path.display())]
    Read { path: PathBuf, reason: String },
}

/// A rule as written in the configuration, before compilation.
#[derive(Debug, Clone)]
pub struct RuleSpec {
    pub name: String,
    /// A regular expression, or (with `ident`) an identifier matched on word boundaries.
    pub pattern: Option<String>,
    pub ident: Option<String>,
    /// Globs relative to the workspace root that the rule applies to.
    pub paths: Vec<String>,
    pub exclude: Vec<String>,
    pub mask: Mask,
    /// `path` (whole file) or `path:line` entries that may contain the token.
    pub allow: Vec<String>,
    pub message: Option<String>,
}

#[derive(Debug)]
struct AllowEntry {
    text: String,
    path: String,
    line: Option<u32>,
}

#[derive(Debug)]
pub struct Rule {
    pub name: String,
    pub message: Option<String>,
    regex: Regex,
    /// The `paths` globs as written, index-aligned with `paths` (to name one that matches nothing).
    globs: Vec<String>,
    paths: GlobSet,
    exclude: GlobSet,
    mask: Mask,
    allow: Vec<AllowEntry>,
    /// Finds any of the literals one of which starts every match, when the pattern has such a
    /// set (see [`needles`]), in one pass over a file; None: every file is scanned.
    prefilter: Option<regex::bytes::Regex>,
}

/// A finite set of literals one of which starts every match of `pattern`, none holding a space.
/// Masking only turns bytes into spaces (newlines kept), so such a literal found in the masked
/// text stands at the same place in the raw text: a file whose raw text holds none of them
/// cannot match, masked or not, and is neither masked nor scanned (issue 16: masking was most
/// of the gate's cost, for files that mostly hold no candidate at all).
fn needles(pattern: &str) -> Option<Vec<Vec<u8>>> {
    let hir = regex_syntax::parse(pattern).ok()?;
    let seq = regex_syntax::hir::literal::Extractor::new().extract(&hir);
    let lits = seq.literals()?;
    let usable = |l: &[u8]| !l.is_empty() && !l.contains(&b' ');
    (!lits.is_empty() && lits.iter().all(|l| usable(l.as_bytes())))
        .then(|| lits.iter().map(|l| l.as_bytes().to_vec()).collect())
}

/// One byte-exact alternation of `needles`: a case-insensitive word alone yields dozens of
/// literals, and a search per literal would read a file that holds none of them dozens of times.
fn prefilter(needles: &[Vec<u8>]) -> Option<regex::bytes::Regex> {
    let alt: Vec<String> = needles
        .iter()
        .map(|l| l.iter().map(|b| format!("\\x{b:02x}")).collect())
        .collect();
    regex::bytes::Regex::new(&format!("(?-u:{})", alt.join("|"))).ok()
}

fn globset(rule: &str, globs: &[String]) -> Result<GlobSet, Error> {
    let mut b = GlobSetBuilder::new();
    for g in globs {
        let glob = Glob::new(g).map_err(|e| Error::BadGlob {
            rule: rule.into(),
            glob: g.clone(),
            reason: e.to_string(),
        })?;
        b.add(glob);
    }
    b.build().map_err(|e| Error::BadGlob {
        rule: rule.into(),
        glob: globs.join(","),
        reason: e.to_string(),
    })
}

impl Rule {
    pub fn compile(spec: &RuleSpec) -> Result<Rule, Error> {
        let pattern = match (&spec.pattern, &spec.ident) {
            (Some(p), None) => p.clone(),
            (None, Some(id)) => format!(r"\b{}\b", regex::escape(id)),
            _ => {
                return Err(Error::NoPattern {
                    rule: spec.name.clone(),
                })
            }
        };
        let regex = Regex::new(&pattern).map_err(|e| Error::BadPattern {
            rule: spec.name.clone(),
            reason: e.to_string(),
        })?;
        let mut allow = Vec::new();
        for entry in &spec.allow {
            let (path, line) = match entry.rsplit_once(':') {
                Some((p, l)) if !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit()) => {
                    let line: u32 = l.parse().map_err(|_| Error::BadAllow {
                        rule: spec.name.clone(),
                        entry: entry.clone(),
                        reason: "line number out of range".into(),
                    })?;
                    if line == 0 {
                        return Err(Error::BadAllow {
                            rule: spec.name.clone(),
                            entry: entry.clone(),
                            reason: "lines start at 1".into(),
                        });
                    }
                    (p.to_string(), Some(line))
                }
                _ => (entry.clone(), None),
            };
            allow.push(AllowEntry {
                text: entry.clone(),
                path,
                line,
            });
        }
        Ok(Rule {
            name: spec.name.clone(),
            message: spec.message.clone(),
            regex,
            globs: spec.paths.clone(),
            paths: globset(&spec.name, &spec.paths)?,
            exclude: globset(&spec.name, &spec.exclude)?,
            mask: spec.mask,
            allow,
            prefilter: needles(&pattern).as_deref().and_then(prefilter),
        })
    }

    /// Whether the rule applies to this workspace-relative path (forward slashes).
    pub fn applies_to(&self, rel: &str) -> bool {
        self.paths.is_match(rel) && !self.exclude.is_match(rel)
    }
}

/// One occurrence of a forbidden token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub rule: String,
    pub path: String,
    pub line: u32,
    /// 1-based, in characters.
    pub column: u32,
    pub matched: String,
    pub line_text: String,
    /// True when an allow entry covers this hit.
    pub allowed: bool,
}

/// Pure scan of one file's text against one rule. `rel` is the workspace-relative path.
pub fn scan(rule: &Rule, rel: &str, text: &str) -> Vec<Hit> {
    if rule
        .prefilter
        .as_ref()
        .is_some_and(|p| !p.is_match(text.as_bytes()))
    {
        return Vec::new();
    }
    scan_every_line(rule, rel, text)
}

/// [`scan`] without the literal prefilter.
fn scan_every_line(rule: &Rule, rel: &str, text: &str) -> Vec<Hit> {
    let masked = mask(text, rule.mask);
    let mut hits = Vec::new();
    // Masking keeps byte offsets and newlines, so lines of `masked` align with lines of `text`.
    for (idx, (mline, oline)) in crate::lines::lines(&masked)
        .zip(crate::lines::lines(text))
        .enumerate()
    {
        let line = u32::try_from(idx + 1).unwrap_or(u32::MAX);
        // Columns count characters from the previous hit on, not from the start of the line:
        // many hits on one long line stay linear.
        let (mut at_byte, mut at_chars) = (0, 0);
        for m in rule.regex.find_iter(mline) {
            let chars = match oline.get(at_byte..m.start()) {
                Some(p) => {
                    at_chars += p.chars().count();
                    at_byte = m.start();
                    at_chars
                }
                None => m.start(),
            };
            let column = u32::try_from(chars + 1).unwrap_or(u32::MAX);
            let allowed = rule
                .allow
                .iter()
                .any(|a| a.path == rel && a.line.is_none_or(|l| l == line));
            hits.push(Hit {
                rule: rule.name.clone(),
                path: rel.to_string(),
                line,
                column,
                matched: oline
                    .get(m.start()..m.end())
                    .unwrap_or(m.as_str())
                    .to_string(),
                line_text: crate::excerpt::around(oline, m.start()),
                allowed,
            });
        }
    }
    hits
}

/// The result of running every rule over a tree.
#[derive(Debug, Default)]
pub struct Report {
    pub hits: Vec<Hit>,
    /// (rule, entry) allow entries that matched no hit: stale.
    pub stale_allows: Vec<(String, String)>,
    /// Files read (workspace-relative), for the denominator.
    pub files: Vec<String>,
    /// Files skipped and why (not UTF-8, unreadable): never silent.
    pub skipped: Vec<(String, String)>,
    /// Files a rule applies to that are over the size limit, and why: not read (an error).
    pub too_large: Vec<(String, String)>,
    /// (rule, glob) `paths` globs that matched no file of the tree (a rule that checks nothing
    /// there passes vacuously). Filled by [`run`], which sees the whole tree.
    pub vacuous: Vec<(String, String)>,
    /// Rules at least one file matched (by any of their globs), for telling a vacuous rule
    /// from a rule with one vacuous glob.
    pub matched_rules: Vec<String>,
}

impl Report {
    /// Whether some glob of `rule` matched a file.
    pub fn vacuous_rule_has_files(&self, rule: &str) -> bool {
        self.matched_rules.iter().any(|r| r == rule)
    }
}

/// Walks `root` and scans every file some rule applies to (each read once).
pub fn run(root: &Path, rules: &[Rule]) -> Result<Report, Error> {
    run_source(
        &crate::source::Disk {
            root: root.to_path_buf(),
        },
        rules,
    )
}

/// [`run`] over any [`Source`](crate::source::Source): the walk is the disk's, the bytes the
/// source's (an overlay's replaced files are scanned instead of the disk's).
pub fn run_source(src: &dyn crate::source::Source, rules: &[Rule]) -> Result<Report, Error> {
    let root = src.root();
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    // per rule, which of its `paths` globs matched a file the rule applies to
    let mut used: Vec<Vec<bool>> = rules.iter().map(|r| vec![false; r.globs.len()]).collect();
    // A directory that no `paths` glob's literal lead can reach holds no file a rule applies
    // to: it is not read (a workspace's build output is most of its directories).
    let leads: Vec<&str> = rules
        .iter()
        .flat_map(|r| r.globs.iter().map(|g| literal_lead(g)))
        .collect();
    let reachable = |rel: &str| {
        let dir = format!("{rel}/");
        leads
            .iter()
            .any(|l| l.starts_with(dir.as_str()) || dir.starts_with(l))
    };
    // The one workspace walk (diag::walk, issue 29): links are followed (what the compiler reads
    // through a link is judged, at the link's path) unless they lead out of the workspace, each
    // file is listed once and a loop walked once; a dangling link is no source, as before.
    let used_cell = std::cell::RefCell::new(&mut used);
    let wanted = |rel: &Path, is_dir: bool| {
        let rel = diag::walk::display(rel);
        if is_dir {
            return rel.is_empty() || reachable(&rel);
        }
        let mut used = used_cell.borrow_mut();
        let mut applies = false;
        for (r, u) in rules.iter().zip(used.iter_mut()) {
            if r.applies_to(&rel) {
                applies = true;
                for g in r.paths.matches(&rel) {
                    if let Some(slot) = u.get_mut(g) {
                        *slot = true;
                    }
                }
            }
        }
        applies
    };
    let listing = diag::walk::walk(root, Path::new(""), &wanted).map_err(|e| Error::Walk {
        path: e.path.clone(),
        reason: e.source.to_string(),
    })?;
    let mut too_large = Vec::new();
    for skip in listing.findings() {
        let rel = diag::walk::display(skip.rel());
        match skip {
            diag::walk::Skip::TooLarge { .. } => too_large.push((rel, skip.reason())),
            _ => skipped.push((rel, skip.reason())),
        }
    }
    for found in listing.files {
        let rel = found.display();
        let path = found.path;
        let bytes = src.read_found(&rel, &path).map_err(|e| Error::Read {
            path: path.clone(),
            reason: e.to_string(),
        })?;
        match String::from_utf8(bytes) {
            Ok(text) => files.push((rel, text)),
            Err(e) => skipped.push((
                rel,
                format!("not UTF-8 at byte {}", e.utf8_error().valid_up_to()),
            )),
        }
    }
    let mut report = analyse(rules, files.iter().map(|(r, t)| (r.as_str(), t.as_str())));
    report.skipped = skipped;
    report.too_large = too_large;
    for (r, u) in rules.iter().zip(&used) {
        if u.iter().any(|&b| b) {
            report.matched_rules.push(r.name.clone());
        }
        for (g, hit) in r.globs.iter().zip(u) {
            if !hit {
                report.vacuous.push((r.name.clone(), g.clone()));
            }
        }
    }
    Ok(report)
}

/// The part of a glob before its first special character: every path it matches starts so.
fn literal_lead(glob: &str) -> &str {
    &glob[..glob.find(['*', '?', '[', '{', '\\']).unwrap_or(glob.len())]
}

/// Pure analysis over `(workspace-relative path, text)` pairs: hits, stale allow entries, files.
pub fn analyse<'a>(rules: &[Rule], files: impl IntoIterator<Item = (&'a str, &'a str)>) -> Report {
    let mut report = Report::default();
    for (rel, text) in files {
        let mut applied = false;
        for rule in rules.iter().filter(|r| r.applies_to(rel)) {
            report.hits.extend(scan(rule, rel, text));
            applied = true;
        }
        if applied {
            report.files.push(rel.to_string());
        }
    }
    for rule in rules {
        for a in &rule.allow {
            let used = report.hits.iter().any(|h| {
                h.rule == rule.name && h.path == a.path && a.line.is_none_or(|l| l == h.line)
            });
            if !used {
                report
                    .stale_allows
                    .push((rule.name.clone(), a.text.clone()));
            }
        }
    }
    report
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn rule(ident: &str, mask: Mask, allow: &[&str]) -> Rule {
        Rule::compile(&RuleSpec {
            name: "r".into(),
            pattern: None,
            ident: Some(ident.into()),
            paths: vec!["**/*.cpp".into()],
            exclude: vec![],
            mask,
            allow: allow.iter().map(|s| s.to_string()).collect(),
            message: None,
        })
        .unwrap()
    }

    /// The literal prefilter never drops a hit: on every text built from fragments that hide,
    /// split or fake a candidate (comments and strings that masking blanks to spaces, a space
    /// masking creates before a token, CRLF, case), each pattern and mask finds what the scan
    /// of every line finds; and the prefilter does skip files for the driver's two rules.
    #[test]
    fn literal_prefilter_finds_what_every_line_finds() {
        let patterns = [
            r"\b(printf|fprintf|puts|fputs)\s*\(|std::(cout|cerr|clog)\b",
            r"\bpGLContext\b",
            r"(?i)PRINTF\s*\(",
            r" x",
            r"a\s+b",
            r"\w+\(",
            r"^#include",
            r"[pq]uts",
            r"x{2,}|zz",
            r"std::\s*cout",
            r"é+",
            r"a$",
        ];
        let fragments = [
            "printf(",
            "/* printf( */",
            "\"puts (\"",
            "std::cout",
            "std:: cout",
            "pGLContext",
            " ",
            "\n",
            "\r\n",
            "//c\n",
            "/*c*/x",
            "x",
            "a",
            "b",
            "#include",
            "PrintF (",
            "'q'",
            "uts",
            "é",
            "zz",
        ];
        let mut next = crate::xorshift(0x9e37_79b9_u64);
        let texts: Vec<String> = (0..400)
            .map(|_| {
                let n = (next() % 9) as usize;
                (0..n)
                    .map(|_| fragments[(next() % fragments.len() as u64) as usize])
                    .collect()
            })
            .collect();
        let mut skipped = 0;
        for p in patterns {
            for mask in [Mask::None, Mask::Comments, Mask::Code] {
                let r = Rule::compile(&RuleSpec {
                    name: "r".into(),
                    pattern: Some(p.into()),
                    ident: None,
                    paths: vec!["**".into()],
                    exclude: vec![],
                    mask,
                    allow: vec![],
                    message: None,
                })
                .unwrap();
                let lits = needles(p);
                for t in &texts {
                    let all = scan_every_line(&r, "a.cpp", t);
                    assert_eq!(scan(&r, "a.cpp", t), all, "{p} {mask:?} {t:?}");
                    // The one-pass prefilter answers as a search for each literal would.
                    let none = lits.as_ref().map(|l| {
                        l.iter()
                            .all(|n| memchr::memmem::find(t.as_bytes(), n).is_none())
                    });
                    let found = r.prefilter.as_ref().map(|f| f.is_match(t.as_bytes()));
                    assert_eq!(found, none.map(|n| !n), "{p} {t:?}");
                    skipped += usize::from(none == Some(true));
                }
            }
        }
        assert!(skipped > 0);
        for p in &patterns[..2] {
            assert!(needles(p).is_some(), "{p}");
        }
    }

    #[test]
    fn finds_identifier_with_line_and_column() {
        let r = rule("pGLContext", Mask::None, &[]);
        let hits = scan(
            &r,
            "a.cpp",
            "int x;\n  auto* c = pGLContext;\nint pGLContextual;\n",
        );
        assert_eq!(hits.len(), 1);
        assert_eq!((hits[0].line, hits[0].column), (2, 13));
    }

    #[test]
    fn code_mask_ignores_comments_and_strings() {
        let r = rule("printf", Mask::Code, &[]);
        let text = "// printf here\nconst char* s = \"printf\"; /* printf */\nprintf(\"x\");\n";
        let hits = scan(&r, "a.cpp", text);
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].line, 3);
        let none = rule("printf", Mask::None, &[]);
        assert_eq!(scan(&none, "a.cpp", text).len(), 4);
    }

    #[test]
    fn allow_entries_cover_lines_and_files() {
        let r = rule("puts", Mask::None, &["a.cpp:2", "b.cpp"]);
        let hits = scan(&r, "a.cpp", "puts\nputs\n");
        assert_eq!(hits.iter().filter(|h| h.allowed).count(), 1);
        assert!(scan(&r, "b.cpp", "puts\n").iter().all(|h| h.allowed));
    }

    #[test]
    fn rejects_bad_specs() {
        let spec = RuleSpec {
            name: "x".into(),
            pattern: Some("(".into()),
            ident: None,
            paths: vec![],
            exclude: vec![],
            mask: Mask::None,
            allow: vec![],
            message: None,
        };
        assert!(matches!(
            Rule::compile(&spec),
            Err(Error::BadPattern { .. })
        ));
        let spec = RuleSpec {
            pattern: None,
            ..spec
        };
        assert!(matches!(Rule::compile(&spec), Err(Error::NoPattern { .. })));
    }

    #[test]
    fn a_glob_matching_no_file_is_vacuous() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.cpp"), "int x;\n").unwrap();
        let spec = |paths: &[&str]| RuleSpec {
            name: "r".into(),
            pattern: None,
            ident: Some("x".into()),
            paths: paths.iter().map(|s| s.to_string()).collect(),
            exclude: vec!["src/skip/**".into()],
            mask: Mask::None,
            allow: vec![],
            message: None,
        };
        let r = Rule::compile(&spec(&["src/**", "srcc/**"])).unwrap();
        let report = run(dir.path(), &[r]).unwrap();
        assert_eq!(
            report.vacuous,
            vec![("r".to_string(), "srcc/**".to_string())]
        );
        let r = Rule::compile(&spec(&["src/**"])).unwrap();
        assert!(run(dir.path(), &[r]).unwrap().vacuous.is_empty());
    }

    #[test]
    fn directories_no_glob_can_reach_are_not_walked_and_the_rest_are() {
        assert_eq!(
            literal_lead("MobileGL/MG_Backend/**"),
            "MobileGL/MG_Backend/"
        );
        assert_eq!(literal_lead("src/a?.cpp"), "src/a");
        assert_eq!(literal_lead("**/*.cpp"), "");
        let dir = tempfile::tempdir().unwrap();
        for f in ["src/deep/a.cpp", "srcx/b.cpp", "build/c.cpp", "src.cpp"] {
            let p = dir.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "int x;\n").unwrap();
        }
        let files = |paths: &[&str]| {
            let r = Rule::compile(&RuleSpec {
                name: "r".into(),
                pattern: None,
                ident: Some("x".into()),
                paths: paths.iter().map(|s| s.to_string()).collect(),
                exclude: vec![],
                mask: Mask::None,
                allow: vec![],
                message: None,
            })
            .unwrap();
            run(dir.path(), &[r]).unwrap().files
        };
        assert_eq!(files(&["src/**"]), vec!["src/deep/a.cpp"]);
        // `*` crosses `/` in these globs: a lead that ends inside a name keeps its siblings.
        assert_eq!(
            files(&["src*"]),
            vec!["src/deep/a.cpp", "src.cpp", "srcx/b.cpp"]
        );
        assert_eq!(files(&["**/c.cpp"]), vec!["build/c.cpp"]);
    }

    #[test]
    fn stale_allow_entries_are_reported() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.cpp"), "puts();\n").unwrap();
        std::fs::write(dir.path().join("bin.cpp"), [0xffu8, 0xfe, 0x00]).unwrap();
        let r = rule("puts", Mask::None, &["a.cpp:1", "a.cpp:9"]);
        let report = run(dir.path(), &[r]).unwrap();
        assert_eq!(
            report.stale_allows,
            vec![("r".to_string(), "a.cpp:9".to_string())]
        );
        assert_eq!(report.skipped.len(), 1);
        assert_eq!(report.files, vec!["a.cpp".to_string()]);
    }
}
