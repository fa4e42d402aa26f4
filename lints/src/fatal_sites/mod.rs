//! The fatal census (upstream `scripts/ci/fatal_census.py`, CONTRACT-P6 5.2, exit gate S7): every
//! death under `MG_Remote/` names a family.
//!
//! Rules, as upstream: scan `root/**/*.{cpp,h}` except paths with an `MG_Test` component; blank
//! comments (string literals and line numbers kept); each `std::abort()` needs a `Fatal{Family`
//! marker in the 12 lines ending at its own line, except in the funnel files; each
//! `WireLogFatal(` call outside the funnel files needs one in the 12 lines starting at its own;
//! every family word found must be in the baseline JSON. The abort count may grow freely.
//!
//! parse (`load`, [`parse_baseline`]) → analyse ([`analyse`], pure) → outcome ([`Census`]).

pub mod cfg;
pub mod report;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use regex::Regex;

pub use cfg::FatalSitesConfig;

diag::codes! {
    /// The `fatal-sites` gate's finding codes (rows in docs/codes.md).
    pub enum Code: "FSI" {
        Fsi001 = "FSI001": "an std::abort() with no Fatal{Family} marker in the 12 lines ending at it",
        Fsi002 = "FSI002": "a WireLogFatal( call with no Fatal{Family} marker in the 12 lines starting at it",
        Fsi003 = "FSI003": "a Fatal{Family} word the baseline JSON does not record",
        Fsi004 = "FSI004": "could not run: missing root or baseline, unreadable file, bad baseline JSON, or no file scanned",
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}: census root does not exist or is not a directory", .path.display())]
    MissingRoot { path: PathBuf },
    #[error("{}: missing baseline (record one with `mgctl lint fatal-sites --write-baseline`)", .path.display())]
    MissingBaseline { path: PathBuf },
    #[error("{}: cannot read: {source}", .path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}:{line}:{column}: bad baseline: {message}", .path.display())]
    BadBaseline {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{}: exists and is not a regular file; not replaced", .path.display())]
    NotAFile { path: PathBuf },
    #[error("{}: cannot {what}: {source}", .path.display())]
    Write {
        path: PathBuf,
        what: &'static str,
        source: std::io::Error,
    },
    #[error("{}: no .{} file under the census root (a census of nothing is not a pass)", .path.display(), .extensions)]
    NoFiles { path: PathBuf, extensions: String },
}

/// One scanned file.
#[derive(Debug, Clone)]
pub struct Source {
    /// Workspace-relative, forward slashes.
    pub rel: String,
    pub text: String,
}

/// What the baseline records (other keys are ignored).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Baseline {
    pub abort_sites: u64,
    pub families: BTreeSet<String>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Problem {
    pub code: Code,
    pub path: String,
    pub line: usize,
    pub message: String,
}

/// The census of one tree.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Census {
    /// The root's last component, as the headline names it (`MG_Remote`).
    pub root_label: String,
    pub files: usize,
    /// `(path, line)` of every `std::abort()`.
    pub abort_sites: Vec<(String, usize)>,
    /// Every family word, with its first `(path, line)`.
    pub families: BTreeMap<String, (String, usize)>,
    pub unmarked: usize,
    /// Unmarked aborts, unnamed funnel calls, then unrecorded families.
    pub problems: Vec<Problem>,
    /// The baseline's abort count, when a baseline was read.
    pub baseline_abort_sites: Option<u64>,
    /// Every file read, workspace-relative.
    pub inputs: Vec<String>,
}

impl Census {
    /// Upstream's line: `fatal census: N abort sites under MG_Remote/, F distinct family words, U unmarked`.
    pub fn headline(&self) -> String {
        format!(
            "fatal census: {} abort sites under {}/, {} distinct family words, {} unmarked",
            self.abort_sites.len(),
            self.root_label,
            self.families.len(),
            self.unmarked
        )
    }

    pub fn passed(&self) -> bool {
        self.problems.is_empty()
    }

    /// The baseline `--write-baseline` records: today's abort count and family words (indent 2).
    pub fn baseline_json(&self) -> String {
        let v = serde_json::json!({
            "abort_sites": self.abort_sites.len(),
            "families": self.families.keys().collect::<Vec<_>>(),
        });
        let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
        s.push('\n');
        s
    }
}

fn abort_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"\bstd::abort\(\)").unwrap_or_else(|_| unreachable!()))
}
fn marker_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"Fatal\{([A-Za-z][A-Za-z0-9]*)").unwrap_or_else(|_| unreachable!())
    })
}
fn funnel_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"WireLogFatal\s*\(").unwrap_or_else(|_| unreachable!()))
}

/// Parse the baseline JSON; `abort_sites` (integer) and `families` (strings) are required.
pub fn parse_baseline(text: &str, path: &Path) -> Result<Baseline, Error> {
    let bad = |line: usize, column: usize, message: String| Error::BadBaseline {
        path: path.to_path_buf(),
        line,
        column,
        message,
    };
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| bad(e.line(), e.column(), e.to_string()))?;
    let abort_sites = v
        .get("abort_sites")
        .and_then(serde_json::Value::as_u64)
        .ok_or_else(|| bad(1, 1, "`abort_sites` must be a non-negative integer".into()))?;
    let families = v
        .get("families")
        .and_then(serde_json::Value::as_array)
        .ok_or_else(|| bad(1, 1, "`families` must be an array of words".into()))?
        .iter()
        .map(|w| w.as_str().map(str::to_string))
        .collect::<Option<BTreeSet<_>>>()
        .ok_or_else(|| bad(1, 1, "`families` must hold only strings".into()))?;
    Ok(Baseline {
        abort_sites,
        families,
    })
}

/// The census over sources already read (pure; the controls call it with canned trees).
/// `baseline: None` skips the family rule (for `--write-baseline`).
pub fn analyse(sources: &[Source], cfg: &FatalSitesConfig, baseline: Option<&Baseline>) -> Census {
    let funnels: BTreeSet<&str> = cfg.funnel_files.iter().map(String::as_str).collect();
    let mut c = Census {
        root_label: cfg
            .root
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_string(),
        files: 0,
        abort_sites: Vec::new(),
        families: BTreeMap::new(),
        unmarked: 0,
        problems: Vec::new(),
        baseline_abort_sites: baseline.map(|b| b.abort_sites),
        inputs: Vec::new(),
    };
    let mut unnamed = Vec::new();
    for src in sources {
        if skipped(&src.rel, cfg) {
            continue;
        }
        c.files += 1;
        c.inputs.push(src.rel.clone());
        // One call: the comment blanking of the shared C++ masker (literals and newlines kept).
        let masked = crate::cpp::mask_comments(src.text.as_bytes());
        let text = String::from_utf8_lossy(&masked);
        let lines: Vec<&str> = text.split('\n').collect();
        let marked: Vec<bool> = lines.iter().map(|l| marker_re().is_match(l)).collect();
        for (i, l) in lines.iter().enumerate() {
            for m in marker_re().captures_iter(l) {
                c.families
                    .entry(m[1].to_string())
                    .or_insert_with(|| (src.rel.clone(), i + 1));
            }
        }
        let funnel = funnels.contains(src.rel.as_str());
        for (i, l) in lines.iter().enumerate() {
            for _ in abort_re().find_iter(l) {
                c.abort_sites.push((src.rel.clone(), i + 1));
                let lo = (i + 1).saturating_sub(cfg.abort_window.max(1));
                if !funnel && !marked[lo..=i].iter().any(|&m| m) {
                    c.unmarked += 1;
                    c.problems.push(Problem {
                        code: Code::Fsi001,
                        path: src.rel.clone(),
                        line: i + 1,
                        message: format!(
                            "std::abort() with no Fatal{{Family}} marker in the {} lines ending at it",
                            cfg.abort_window
                        ),
                    });
                }
            }
            if !funnel && funnel_re().is_match(l) {
                let hi = (i + cfg.funnel_window.max(1)).min(lines.len());
                if !marked[i..hi].iter().any(|&m| m) {
                    unnamed.push(Problem {
                        code: Code::Fsi002,
                        path: src.rel.clone(),
                        line: i + 1,
                        message: format!(
                            "WireLogFatal( call names no family: no Fatal{{Family}} marker in the {} lines starting at it",
                            cfg.funnel_window
                        ),
                    });
                }
            }
        }
    }
    c.problems.extend(unnamed);
    if let Some(b) = baseline {
        for (word, (path, line)) in &c.families {
            if !b.families.contains(word) {
                c.problems.push(Problem {
                    code: Code::Fsi003,
                    path: path.clone(),
                    line: *line,
                    message: format!(
                        "family word {word} is not in the baseline; record it on purpose with `mgctl lint fatal-sites --write-baseline`"
                    ),
                });
            }
        }
    }
    c
}

fn skipped(rel: &str, cfg: &FatalSitesConfig) -> bool {
    rel.split('/')
        .any(|part| cfg.skip_components.iter().any(|s| s == part))
}

/// Read every scanned file under `root/cfg.root`, bytewise path order; MG_Test paths are not read.
pub fn load(root: &Path, cfg: &FatalSitesConfig) -> Result<Vec<Source>, Error> {
    load_in(
        &crate::source::Disk {
            root: root.to_path_buf(),
        },
        cfg,
    )
}

/// [`load`] through `src` (the disk, or an overlay of it: the file list is the disk's).
fn load_in(src: &dyn crate::source::Source, cfg: &FatalSitesConfig) -> Result<Vec<Source>, Error> {
    let root = src.root();
    let dir = root.join(&cfg.root);
    if !dir.is_dir() {
        return Err(Error::MissingRoot { path: dir });
    }
    // The one workspace walk (diag::walk): links inside the workspace followed, each file once,
    // names kept as bytes; a link out of the workspace or a file over the size limit is named.
    let ext_ok = |rel: &Path| {
        rel.extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| cfg.extensions.iter().any(|x| x == e))
    };
    let listing = diag::walk::walk(root, Path::new(&cfg.root), &|rel, is_dir| {
        is_dir || (ext_ok(rel) && !skipped(&diag::walk::display(rel), cfg))
    })
    .map_err(|e| Error::Read {
        path: e.path,
        source: e.source,
    })?;
    if let Some(skip) = listing.findings().next() {
        return Err(Error::Read {
            path: root.join(skip.rel()),
            source: std::io::Error::other(skip.reason()),
        });
    }
    let mut out = Vec::new();
    for found in &listing.files {
        let rel = found.display();
        if skipped(&rel, cfg) {
            continue;
        }
        let p = &found.path;
        let bytes = src.read_found(&rel, p).map_err(|source| Error::Read {
            path: p.to_path_buf(),
            source,
        })?;
        out.push(Source {
            rel,
            text: String::from_utf8_lossy(&bytes).into_owned(),
        });
    }
    if out.is_empty() {
        return Err(Error::NoFiles {
            path: dir,
            extensions: cfg.extensions.join("/."),
        });
    }
    Ok(out)
}

/// The one entry point, for `mgctl lint fatal-sites` and the `fatal-sites` gate: read the tree
/// and, with `with_baseline`, the baseline, and take the census.
pub fn census(root: &Path, cfg: &FatalSitesConfig, with_baseline: bool) -> Result<Census, Error> {
    census_in(
        &crate::source::Disk {
            root: root.to_path_buf(),
        },
        cfg,
        with_baseline,
    )
}

/// [`census`] through `src`: the live controls run it over an in-memory overlay.
pub fn census_in(
    src: &dyn crate::source::Source,
    cfg: &FatalSitesConfig,
    with_baseline: bool,
) -> Result<Census, Error> {
    let sources = load_in(src, cfg)?;
    let baseline = if with_baseline {
        let p = src.root().join(&cfg.baseline);
        if !p.is_file() {
            return Err(Error::MissingBaseline { path: p });
        }
        let text = src
            .read(&cfg.baseline)
            .and_then(|b| String::from_utf8(b).map_err(std::io::Error::other))
            .map_err(|source| Error::Read {
                path: p.clone(),
                source,
            })?;
        Some(parse_baseline(&text, &p)?)
    } else {
        None
    };
    let mut c = analyse(&sources, cfg, baseline.as_ref());
    if with_baseline {
        c.inputs.push(cfg.baseline.clone());
    }
    Ok(c)
}

pub use diag::Control;

/// The live control (issue 18 item 7), `live-unmarked-abort`: an unmarked `std::abort()` appended
/// (past the marker window) to the first scanned file that is not a funnel, in an in-memory overlay
/// of the workspace, must make [`census_in`] report it. A root that matches no file cannot go red
/// and fails the control with the census's reason. `neutered` runs it on the unmutated workspace.
pub fn live_controls(
    src: &dyn crate::source::Source,
    cfg: &FatalSitesConfig,
    neutered: &dyn Fn(&str) -> bool,
) -> Vec<Control> {
    const NAME: &str = "live-unmarked-abort";
    let result = |tripped: bool, detail: String| {
        vec![Control {
            name: NAME.into(),
            expect_trip: true,
            tripped,
            detail,
        }]
    };
    let clean = match census_in(src, cfg, true) {
        Ok(c) => c,
        Err(e) => return result(false, format!("the census cannot run here: {e}")),
    };
    let funnels: BTreeSet<&str> = cfg.funnel_files.iter().map(String::as_str).collect();
    let Some(target) = clean
        .inputs
        .iter()
        .find(|r| **r != cfg.baseline && !funnels.contains(r.as_str()))
    else {
        return result(
            false,
            format!(
                "every scanned file under {} is a funnel file, so no abort there can go unmarked",
                cfg.root
            ),
        );
    };
    let mut files = BTreeMap::new();
    let mut line = 0;
    if !neutered(NAME) {
        let mut bytes = match src.read(target) {
            Ok(b) => b,
            Err(e) => return result(false, format!("{target}: cannot read: {e}")),
        };
        if !bytes.is_empty() && !bytes.ends_with(b"\n") {
            bytes.push(b'\n');
        }
        // Blank lines past the window, so no marker of the file can cover the abort.
        bytes.extend(std::iter::repeat_n(b'\n', cfg.abort_window.max(1)));
        line = bytes.iter().filter(|&&b| b == b'\n').count() + 1;
        bytes.extend_from_slice(b"void MgctlLiveControl() { std::abort(); }\n");
        files.insert(target.clone(), bytes);
    }
    let overlay = crate::source::Overlay { base: src, files };
    match census_in(&overlay, cfg, true) {
        Err(e) => result(false, e.to_string()),
        Ok(c) => match c
            .problems
            .iter()
            .find(|p| p.code == Code::Fsi001 && p.path == *target && p.line == line)
        {
            Some(p) => result(
                true,
                format!("{} {}:{}: {}", p.code.as_str(), p.path, p.line, p.message),
            ),
            None => result(
                false,
                format!("no finding: an unmarked std::abort() appended to {target} stayed clean"),
            ),
        },
    }
}

const CTRL_FILE: &str = "MobileGL/MG_Remote/Session/Control.cpp";

/// A canned tree: (workspace-relative path, text).
type Tree = Vec<(&'static str, String)>;

/// The controls, each through [`analyse`] with a canned tree and baseline. A neutered negative
/// control is fed its clean twin.
pub fn run_controls(neutered: &dyn Fn(&str) -> bool) -> Vec<Control> {
    let cfg = FatalSitesConfig::default();
    let baseline = Baseline {
        abort_sites: 1,
        families: ["ReplyMissing".to_string()].into_iter().collect(),
    };
    let gap = |n: usize| "\n".repeat(n);
    // (name, negative?, tripping tree, clean twin)
    let cases: Vec<(&str, bool, Tree, Tree)> = vec![
        (
            "unmarked-abort",
            true,
            vec![(CTRL_FILE, "void Die() {\n    std::abort();\n}\n".into())],
            vec![(
                CTRL_FILE,
                "void Die() {\n    Log(\"Fatal{ReplyMissing, x}\");\n    std::abort();\n}\n".into(),
            )],
        ),
        (
            "marker-13-lines-up",
            true,
            vec![(
                CTRL_FILE,
                format!(
                    "// x\nLog(\"Fatal{{ReplyMissing, x}}\");{}std::abort();\n",
                    gap(13)
                ),
            )],
            vec![(
                CTRL_FILE,
                format!(
                    "// x\nLog(\"Fatal{{ReplyMissing, x}}\");{}std::abort();\n",
                    gap(11)
                ),
            )],
        ),
        (
            "unnamed-funnel-call",
            true,
            vec![(
                CTRL_FILE,
                "void Fail() {\n    WireLogFatal(\"reply lost\");\n}\n".into(),
            )],
            vec![(
                CTRL_FILE,
                "void Fail() {\n    WireLogFatal(\"Fatal{ReplyMissing, lost}\");\n}\n".into(),
            )],
        ),
        (
            "new-word",
            true,
            vec![(
                CTRL_FILE,
                "void Die() {\n    Log(\"Fatal{BrandNewFamily, x}\");\n    std::abort();\n}\n"
                    .into(),
            )],
            vec![(
                CTRL_FILE,
                "void Die() {\n    Log(\"Fatal{ReplyMissing, x}\");\n    std::abort();\n}\n".into(),
            )],
        ),
        (
            "abort-in-comment",
            false,
            vec![(
                CTRL_FILE,
                "void Die() {\n    // std::abort();\n    /* std::abort() */\n    Log(\"ok\");\n}\n"
                    .into(),
            )],
            Vec::new(),
        ),
        (
            "abort-under-MG_Test",
            false,
            vec![(
                "MobileGL/MG_Remote/MG_Test/Probe.cpp",
                "void Die() { std::abort(); }\n".into(),
            )],
            Vec::new(),
        ),
    ];
    cases
        .into_iter()
        .map(|(name, negative, trip, clean)| {
            let files = if negative && neutered(name) {
                clean
            } else {
                trip
            };
            let sources: Vec<Source> = files
                .into_iter()
                .map(|(rel, text)| Source {
                    rel: rel.to_string(),
                    text,
                })
                .collect();
            let c = analyse(&sources, &cfg, Some(&baseline));
            Control {
                name: name.to_string(),
                expect_trip: negative,
                tripped: !c.passed(),
                detail: c.problems.first().map_or_else(
                    || c.headline(),
                    |p| format!("{}:{}: {}", p.path, p.line, p.message),
                ),
            }
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn every_control_behaves_and_a_neutered_one_does_not_trip() {
        let r = run_controls(&|_| false);
        assert!(r.iter().all(|c| c.expect_trip == c.tripped), "{r:#?}");
        assert_eq!(r.iter().filter(|c| c.expect_trip).count(), 4);
        let n = run_controls(&|c| c == "new-word");
        assert!(n.iter().any(|c| c.name == "new-word" && !c.tripped));
    }

    #[test]
    fn windows_are_upstreams() {
        let cfg = FatalSitesConfig::default();
        let b = Baseline {
            abort_sites: 0,
            families: ["A".to_string()].into_iter().collect(),
        };
        let at = |marker_line: usize, abort_line: usize| {
            let mut lines = vec![String::new(); abort_line.max(marker_line)];
            lines[marker_line - 1] = "x(\"Fatal{A}\");".into();
            lines[abort_line - 1].push_str("std::abort();");
            let s = [Source {
                rel: "MobileGL/MG_Remote/X.cpp".into(),
                text: lines.join("\n"),
            }];
            analyse(&s, &cfg, Some(&b)).unmarked
        };
        assert_eq!(at(20, 20), 0, "own line counts");
        assert_eq!(at(9, 20), 0, "11 lines up is inside");
        assert_eq!(at(8, 20), 1, "12 lines up is outside");
        let funnel = |gap: usize| {
            let text = format!("WireLogFatal (x);{}y(\"Fatal{{A}}\");\n", "\n".repeat(gap));
            let s = [Source {
                rel: "MobileGL/MG_Remote/Y.cpp".into(),
                text,
            }];
            analyse(&s, &cfg, Some(&b)).problems.len()
        };
        assert_eq!(funnel(11), 0, "11 lines after is inside");
        assert_eq!(funnel(12), 1, "12 lines after is outside");
        let s = [Source {
            rel: "MobileGL/MG_Remote/Transport/WireLog.h".into(),
            text: "void WireLogFatal(const char* m) { std::abort(); }\n".into(),
        }];
        let c = analyse(&s, &cfg, Some(&b));
        assert!(c.passed() && c.abort_sites.len() == 1, "{c:?}");
        assert_eq!(
            c.headline(),
            "fatal census: 1 abort sites under MG_Remote/, 0 distinct family words, 0 unmarked"
        );
    }

    #[test]
    fn baseline_needs_its_two_keys_and_ignores_others() {
        let p = Path::new("b.json");
        let b = parse_baseline(
            r#"{"abort_sites": 3, "families": ["A"], "abort_sites_by_file": {}}"#,
            p,
        )
        .unwrap();
        assert_eq!(b.abort_sites, 3);
        assert!(parse_baseline(r#"{"families": []}"#, p).is_err());
        let e = parse_baseline("{", p).unwrap_err().to_string();
        assert!(e.starts_with("b.json:1:"), "{e}");
    }
}
