//! Gate `cite`: every `path:line` citation in the design docs still points at the code it names.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use lints::cite::{
    self,
    check::{check, Options},
    controls,
    model::{Class, Level},
    report,
    tree::SourceTree,
};

use crate::gate::{CheckCtx, Control, Finding, Gate, GateReport, Location, Neutered, SelfTest};

const GATE: &str = "cite";

/// `[cite]` in mgctl.toml.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CiteConfig {
    /// Documents to check: workspace-relative paths or globs (`docs/Disaggregated/*.md`).
    pub docs: Vec<String>,
    /// Workspace-relative globs (or directories) that are never citation targets, e.g. build
    /// output or fixture copies that would make bare file names ambiguous.
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Lines of tolerance either side of a cited range when looking for its backticked anchors.
    #[serde(default)]
    pub slack: u64,
    /// Warnings (moved, changed, orphan continuation) fail the gate too (upstream's `--strict`).
    #[serde(default = "default_strict")]
    pub strict: bool,
    /// Check against this git revision instead of the working tree (`HEAD`, a tag, a commit).
    pub rev: Option<String>,
}

fn default_strict() -> bool {
    true
}

/// Upstream CI: `check_doc_citations.py --rev HEAD --strict docs/Disaggregated/*.md`.
pub fn mobilegl_profile() -> Option<CiteConfig> {
    Some(CiteConfig {
        docs: vec!["docs/Disaggregated/*.md".into()],
        exclude: Vec::new(),
        slack: 0,
        strict: true,
        rev: Some("HEAD".into()),
    })
}

/// Expand the configured document patterns under `root` (sorted, deduplicated). A plain path
/// that does not exist, or a glob that matches nothing, is an error.
pub fn expand_docs(root: &Path, patterns: &[String]) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in patterns {
        if !p.contains(['*', '?', '[', '{']) {
            let path = root.join(p);
            if !path.is_file() {
                anyhow::bail!("{}: no such document", path.display());
            }
            out.push(path);
            continue;
        }
        let glob = globset::Glob::new(p)
            .map_err(|e| anyhow::anyhow!("{p}: bad document glob: {e}"))?
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
        let mut hits = Vec::new();
        if base.is_dir() {
            for e in std::fs::read_dir(&base)
                .map_err(|e| anyhow::anyhow!("{}: cannot list: {e}", base.display()))?
            {
                let e = e.map_err(|e| anyhow::anyhow!("{}: cannot list: {e}", base.display()))?;
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
            anyhow::bail!("{}: document pattern `{p}` matches no file", root.display());
        }
        out.extend(hits);
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// Run the library: documents, tree (working tree or revision), check.
pub fn run_check(
    root: &Path,
    docs: &[PathBuf],
    exclude: &[String],
    rev: Option<&str>,
    slack: u64,
) -> anyhow::Result<cite::CiteReport> {
    let excludes = cite::globs(exclude)?;
    let tree = match rev {
        None | Some("WORKTREE") => SourceTree::worktree(root, &excludes)?,
        Some(r) => SourceTree::at_rev(root, r, &excludes)?,
    };
    let scans = cite::load_docs(root, docs)?;
    Ok(check(scans, &tree, &Options { slack })?)
}

/// One finding per problem, located at the citing document line (so GitHub annotates the doc).
pub fn findings(report: &cite::CiteReport, strict: bool) -> Vec<Finding> {
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
            let f = match p.level() {
                Level::Error => Finding::error(GATE, p.code(), message),
                Level::Warning if strict => Finding::error(GATE, p.code(), message),
                Level::Warning => Finding::warning(GATE, p.code(), message),
                Level::Note => Finding::note(GATE, p.code(), message),
            };
            f.at(Location::at(
                c.doc.clone(),
                c.line as u32,
                Some(c.column as u32),
            ))
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

pub struct CiteGate;

impl Gate for CiteGate {
    fn name(&self) -> &'static str {
        GATE
    }

    fn description(&self) -> &'static str {
        "every path:line citation in the design docs resolves, is in range and still shows the code it names"
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        match &ctx.config.cite {
            None => Some("no [cite] section in mgctl.toml".into()),
            Some(c) if c.docs.is_empty() => Some("[cite] lists no documents".into()),
            Some(_) => None,
        }
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        let Some(cfg) = &ctx.config.cite else {
            return GateReport::skipped(GATE, "no [cite] section in mgctl.toml");
        };
        let docs = match expand_docs(&ctx.root, &cfg.docs) {
            Ok(d) => d,
            Err(e) => return GateReport::could_not_run(GATE, "CIT012", format!("{e:#}"), None),
        };
        let report = match run_check(
            &ctx.root,
            &docs,
            &cfg.exclude,
            cfg.rev.as_deref(),
            cfg.slack,
        ) {
            Ok(r) => r,
            Err(e) => return GateReport::could_not_run(GATE, "CIT012", format!("{e:#}"), None),
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
        let mut gr = GateReport::from_findings(GATE, findings(&report, cfg.strict), headline)
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
            gr = gr.figure(c.label(), class(c));
        }
        for (f, n) in &forms {
            gr = gr.figure(&format!("form {}", f.label()), n.found);
        }
        gr.units = report
            .citations()
            .map(|(c, _)| format!("{}:{}", c.doc, c.line))
            .collect();
        gr.units.dedup();
        gr.inputs = report.docs.iter().map(|d| d.doc.clone()).collect();
        gr.inputs.push(match &report.commit {
            Some(c) => format!("rev {} (commit {c})", report.rev),
            None => format!("rev {}", report.rev),
        });
        gr
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        let controls: Vec<Control> = controls::controls()
            .iter()
            .map(|c| {
                let o = controls::run(c, neutered.contains(GATE, c.name));
                Control {
                    name: o.name.to_string(),
                    expect_trip: o.expect_trip,
                    tripped: o.tripped,
                    detail: o.detail,
                }
            })
            .collect();
        SelfTest::from_controls(controls)
    }
}
