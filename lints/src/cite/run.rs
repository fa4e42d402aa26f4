//! The citation check as one entry point over a workspace, shared by `mgctl cite` (which renders
//! the [`CiteReport`]) and the `cite` gate (which maps [`outcome`]'s diagnostics to findings).

use std::path::{Path, PathBuf};

use super::cfg::CiteConfig;
use super::check::{check, Options};
use super::model::{Class, Level};
use super::tree::SourceTree;
use super::{report, CiteReport, Error};
use crate::diag::{Diag, Outcome};

diag::codes! {
    /// Finding codes of the `cite` gate (docs/codes.md).
    pub enum Code: "CIT" {
        Cit001 = "CIT001": "a citation names a file that does not exist",
        Cit002 = "CIT002": "a citation's file name matches several files",
        Cit003 = "CIT003": "a citation's directory is wrong",
        Cit004 = "CIT004": "a citation of line 0",
        Cit005 = "CIT005": "a reversed line range",
        Cit006 = "CIT006": "a citation past the end of its file",
        Cit007 = "CIT007": "the cited code moved",
        Cit008 = "CIT008": "the cited code changed",
        Cit009 = "CIT009": "a citation names a binary file",
        Cit010 = "CIT010": "a `:N` continuation with no cited file before it",
        Cit011 = "CIT011": "an uncheckable citation",
        Cit012 = "CIT012": "the citation check could not run",
    }
}

/// Expand document patterns under `root` (sorted, deduplicated). A plain path that does not
/// exist, or a glob that matches nothing, is an error (never a vacuous pass).
pub fn expand_docs(root: &Path, patterns: &[String]) -> Result<Vec<PathBuf>, Error> {
    let mut out = Vec::new();
    for p in patterns {
        if !p.contains(['*', '?', '[', '{']) {
            let path = root.join(p);
            if !path.is_file() {
                return Err(Error::NoDocument { path });
            }
            out.push(path);
            continue;
        }
        let glob = globset::Glob::new(p)
            .map_err(|e| Error::BadDocGlob {
                pattern: p.clone(),
                reason: e.to_string(),
            })?
            .compile_matcher();
        // walk only the fixed directory prefix of the pattern
        let fixed: PathBuf = Path::new(p)
            .components()
            .take_while(|c| {
                !c.as_os_str()
                    .to_string_lossy()
                    .contains(['*', '?', '[', '{'])
            })
            .collect();
        let base = root.join(&fixed);
        let list_err = |e: std::io::Error| Error::List {
            path: base.clone(),
            reason: e.to_string(),
        };
        let mut hits = Vec::new();
        if base.is_dir() {
            for e in std::fs::read_dir(&base).map_err(list_err)? {
                let e = e.map_err(list_err)?;
                let rel = fixed
                    .join(e.file_name())
                    .to_string_lossy()
                    .replace('\\', "/");
                if e.path().is_file() && glob.is_match(&rel) {
                    hits.push(e.path());
                }
            }
        }
        if hits.is_empty() {
            return Err(Error::NoMatch {
                root: root.to_path_buf(),
                pattern: p.clone(),
            });
        }
        out.extend(hits);
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// Documents, tree (working tree or revision), check.
pub fn run_check(
    root: &Path,
    docs: &[PathBuf],
    exclude: &[String],
    rev: Option<&str>,
    slack: u64,
) -> Result<CiteReport, Error> {
    let excludes = super::globs(exclude)?;
    let tree = match rev {
        None | Some("WORKTREE") => SourceTree::worktree(root, &excludes)?,
        Some(r) => SourceTree::at_rev(root, r, &excludes)?,
    };
    let scans = super::load_docs(root, docs)?;
    check(scans, &tree, &Options { slack })
}

/// One diagnostic per problem, located at the citing document line (so GitHub annotates the doc).
pub fn diags(report: &CiteReport, strict: bool) -> Vec<Diag<Code>> {
    report
        .problems()
        .map(|(c, k, p)| {
            let message = report::problem_text(report, c, p);
            let message = match (&k.excerpt, &k.resolved, p.level()) {
                (Some(ex), Some(path), Level::Warning | Level::Error)
                    if matches!(k.class, Class::Moved | Class::Changed | Class::Gone) =>
                {
                    format!("{message} (now at {path}:{}: {ex})", c.first)
                }
                _ => message,
            };
            let d = match p.level() {
                Level::Error => Diag::error(p.code(), message),
                Level::Warning if strict => Diag::error(p.code(), message),
                Level::Warning => Diag::warning(p.code(), message),
                Level::Note => Diag::note(p.code(), message),
            };
            d.at(
                c.doc.clone(),
                u32::try_from(c.line).unwrap_or(u32::MAX),
                u32::try_from(c.column).ok(),
            )
            .in_unit(format!("{}:{}", c.doc, c.line))
            .with_detail(serde_json::json!({
                "citation": c.text,
                "resolved": k.resolved,
                "class": k.class,
                "problem": p,
            }))
        })
        .collect()
}

/// The `cite` gate's analysis: the configured documents checked, as diagnostics and figures.
pub fn outcome(root: &Path, cfg: &CiteConfig) -> Outcome<Code> {
    let could_not_run =
        |e: Error| Outcome::could_not_run(vec![Diag::error(Code::Cit012, e.to_string())]);
    // The same request `mgctl cite` resolves without flags, so the two cannot differ.
    let request = match super::cfg::Request::default().resolve(root, "mgctl.toml", Some(cfg)) {
        Ok(r) => r,
        Err(e) => return could_not_run(e),
    };
    let report = match request.check(root) {
        Ok(r) => r,
        Err(e) => return could_not_run(e),
    };
    let forms = report::by_form(&report);
    let classes = report::by_class(&report);
    let class = |c: Class| classes.get(&c).copied().unwrap_or(0);
    let checked: usize = forms.values().map(|f| f.checked).sum();
    let uncheckable: usize = forms.values().map(|f| f.uncheckable).sum();
    let mut headline = format!(
        "{} citations in {} docs: {} ok / {} moved / {} changed / {} gone / {} invalid",
        report.count(),
        report.docs.len(),
        class(Class::Ok),
        class(Class::Moved),
        class(Class::Changed),
        class(Class::Gone),
        class(Class::Invalid),
    );
    if uncheckable > 0 {
        headline.push_str(&format!(", {uncheckable} uncheckable"));
    }
    let mut o = Outcome {
        diags: diags(&report, request.is_strict()),
        headline,
        ..Outcome::default()
    }
    .figure("citations", report.count())
    .figure("documents", report.docs.len())
    .figure("checked", checked)
    .figure("uncheckable", uncheckable)
    .figure("files_read", report.files_read);
    for c in [
        Class::Ok,
        Class::Moved,
        Class::Changed,
        Class::Gone,
        Class::Invalid,
    ] {
        o = o.figure(c.label(), class(c));
    }
    for (f, n) in &forms {
        o = o.figure(&format!("form {}", f.label()), n.found);
    }
    o.units = report
        .citations()
        .map(|(c, _)| format!("{}:{}", c.doc, c.line))
        .collect();
    o.units.dedup();
    o.inputs = report.docs.iter().map(|d| d.doc.clone()).collect();
    o.inputs.push(match &report.commit {
        Some(c) => format!("rev {} (commit {c})", report.rev),
        None => format!("rev {}", report.rev),
    });
    o
}
