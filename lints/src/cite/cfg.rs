//! `[cite]` of mgctl.toml and the MobileGL profile.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::Error;

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

impl crate::diag::Section for CiteConfig {
    const NAME: &'static str = "[cite]";
    fn nothing_to_check(&self) -> Option<String> {
        (self.docs.is_empty()).then(|| "[cite] lists no documents".to_string())
    }
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

/// What one `mgctl cite` run checks: the command line's documents, excludes, revision and slack
/// over the `[cite]` section (documents and excludes add up; a flag wins over its key).
#[derive(Debug, Clone, Default)]
pub struct Request {
    pub docs: Vec<PathBuf>,
    pub exclude: Vec<String>,
    pub rev: Option<String>,
    pub slack: Option<u64>,
    /// `--strict` (Some(true)); None takes the section's `strict`, false without a section.
    pub strict: Option<bool>,
}

impl Request {
    /// The request with `cfg` (the section of the file named `config` in workspace `root`)
    /// filled in: without documents on the command line, the section's globs expand under `root`.
    pub fn resolve(
        mut self,
        root: &Path,
        config: &'static str,
        cfg: Option<&CiteConfig>,
    ) -> Result<Request, Error> {
        if self.docs.is_empty() {
            let Some(c) = cfg else {
                return Err(Error::NoDocuments {
                    root: root.to_path_buf(),
                    config,
                });
            };
            self.docs = super::expand_docs(root, &c.docs)?;
        }
        let mut exclude = cfg.map(|c| c.exclude.clone()).unwrap_or_default();
        exclude.append(&mut self.exclude);
        Ok(Request {
            docs: self.docs,
            exclude,
            rev: self.rev.or_else(|| cfg.and_then(|c| c.rev.clone())),
            slack: Some(self.slack.or(cfg.map(|c| c.slack)).unwrap_or(0)),
            strict: Some(self.strict.or(cfg.map(|c| c.strict)).unwrap_or(false)),
        })
    }

    /// Whether warnings fail this run (the resolved `--strict` / `[cite] strict`).
    pub fn is_strict(&self) -> bool {
        self.strict.unwrap_or(false)
    }

    /// The check of the resolved request.
    pub fn check(&self, root: &Path) -> Result<super::CiteReport, Error> {
        let slack = self.slack.unwrap_or(0);
        super::run_check(root, &self.docs, &self.exclude, self.rev.as_deref(), slack)
    }
}
