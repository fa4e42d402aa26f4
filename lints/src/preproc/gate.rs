//! The `preproc` analysis as one entry point ([`outcome`]): which files (the git index, or every
//! file outside git), scanned against the configured rules; its `[preproc]` config, finding
//! codes and self-test controls.

use std::path::Path;

use serde::Deserialize;

use super::{mobilegl_rules, scan, walk_files, BannedRule, Hit, HitKind, RetiredRule, Rules};
use crate::diag::{Control, Diag, Outcome};
use crate::gitread::GitWorkspace;

diag::codes! {
    /// Finding codes of the `preproc` gate (docs/codes.md).
    pub enum Code: "PPR" {
        Ppr001 = "PPR001": "a preprocessor conditional names a retired macro",
        Ppr002 = "PPR002": "a retired macro is defined again",
        Ppr003 = "PPR003": "a banned identifier",
        Ppr004 = "PPR004": "not a git repository: every file was scanned",
        Ppr005 = "PPR005": "a tracked file could not be read",
        Ppr006 = "PPR006": "the preproc scan could not run",
        Ppr007 = "PPR007": "a file larger than the size limit ([check] max_file_size): not read",
    }
}

impl Code {
    fn of(kind: HitKind) -> Code {
        match kind {
            HitKind::Conditional => Code::Ppr001,
            HitKind::Define => Code::Ppr002,
            HitKind::Banned => Code::Ppr003,
        }
    }
}

/// `[preproc]` in mgctl.toml.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreprocConfig {
    /// File extensions scanned (tracked files only); default: the C/C++ family.
    #[serde(default = "default_extensions")]
    pub extensions: Vec<String>,
    /// Workspace-relative globs never scanned (e.g. `fixtures/**`).
    #[serde(default)]
    pub exclude: Vec<String>,
    #[serde(default)]
    pub retired: Vec<RetiredRule>,
    #[serde(default)]
    pub banned: Vec<BannedRule>,
}

impl crate::diag::Section for PreprocConfig {
    const NAME: &'static str = "[preproc]";
    fn nothing_to_check(&self) -> Option<String> {
        (self.retired.is_empty() && self.banned.is_empty())
            .then(|| "[preproc] has no rules".to_string())
    }
}

fn default_extensions() -> Vec<String> {
    super::DEFAULT_EXTENSIONS
        .iter()
        .map(|s| s.to_string())
        .collect()
}

impl PreprocConfig {
    pub fn rules(&self) -> Rules {
        Rules {
            retired: self.retired.clone(),
            banned: self.banned.clone(),
        }
    }
}

/// Upstream's rules: P13 W3b and W5 retirements and the `MGB_CTX` ban (comments count).
pub fn mobilegl_profile() -> Option<PreprocConfig> {
    let r = mobilegl_rules();
    Some(PreprocConfig {
        extensions: default_extensions(),
        exclude: Vec::new(),
        retired: r.retired,
        banned: r.banned,
    })
}

/// One diagnostic per hit.
pub fn diags(hits: &[Hit]) -> Vec<Diag<Code>> {
    hits.iter()
        .map(|h| {
            let what = match h.kind {
                HitKind::Conditional => format!(
                    "#{} names retired {}",
                    h.directive.as_deref().unwrap_or("if"),
                    h.name
                ),
                HitKind::Define => format!("#define of retired {}", h.name),
                HitKind::Banned => format!("banned identifier {}", h.name),
            };
            Diag::error(
                Code::of(h.kind),
                format!("{what}: {}: {}", h.message, h.text),
            )
            .at(
                h.path.clone(),
                u32::try_from(h.line).unwrap_or(u32::MAX),
                u32::try_from(h.column).ok(),
            )
            .in_unit(h.path.clone())
            .with_detail(serde_json::json!({ "annotation": h.annotation() }))
        })
        .collect()
}

/// Why the `exclude` globs of `[preproc]` cannot be used.
#[derive(Debug, thiserror::Error)]
enum GlobError {
    #[error("[preproc] exclude '{glob}': {reason}")]
    Bad {
        glob: String,
        reason: globset::Error,
    },
    #[error("{0}")]
    Set(globset::Error),
}

fn build_globs(globs: &[String]) -> Result<globset::GlobSet, GlobError> {
    let mut b = globset::GlobSetBuilder::new();
    for g in globs {
        b.add(globset::Glob::new(g).map_err(|reason| GlobError::Bad {
            glob: g.clone(),
            reason,
        })?);
    }
    b.build().map_err(GlobError::Set)
}

/// Scans the workspace at `root`: its tracked files (every file outside a git repository, with
/// a PPR004 warning saying so) with a configured extension and not excluded.
pub fn outcome(root: &Path, cfg: &PreprocConfig) -> Outcome<Code> {
    let could_not_run = |m: String| Outcome::could_not_run(vec![Diag::error(Code::Ppr006, m)]);
    let exclude = match build_globs(&cfg.exclude) {
        Ok(g) => g,
        Err(e) => return could_not_run(e.to_string()),
    };
    let mut ds = Vec::new();
    // A scan that sees nothing because of how the tree is tracked is not a pass: outside git, or
    // when git tracks no file of the workspace (a fresh `git init`, an untracked or ignored
    // directory inside another repository), every file is scanned, with a PPR004 warning.
    let tracked = match GitWorkspace::discover(root) {
        Ok(ws) => match ws.tracked_files() {
            Ok(t) if t.is_empty() => Err(format!(
                "git tracks no file under the workspace (repository {})",
                ws.workdir().display()
            )),
            Ok(t) => Ok((
                t,
                format!(
                    "git index of {} (workspace prefix '{}')",
                    ws.workdir().display(),
                    ws.prefix()
                ),
            )),
            Err(e) => return could_not_run(e.to_string()),
        },
        Err(e) => Err(e.to_string()),
    };
    let scanned_kind = |p: &str| {
        let ext = p.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
        cfg.extensions.iter().any(|e| e.eq_ignore_ascii_case(ext)) && !exclude.is_match(p)
    };
    let (listed, source) = match tracked {
        Ok(t) => t,
        Err(why) => match walk_files(root, &scanned_kind) {
            Ok((all, skipped)) => {
                ds.push(Diag::warning(
                    Code::Ppr004,
                    format!(
                        "{why}: scanned every file under the workspace instead of the tracked files"
                    ),
                ));
                for (rel, reason) in skipped {
                    let rel = diag::escape::terminal(&rel).into_owned();
                    ds.push(
                        Diag::warning(Code::Ppr005, format!("not scanned: {reason}"))
                            .file(rel.clone())
                            .in_unit(rel),
                    );
                }
                (all, format!("every file under {} ({why})", root.display()))
            }
            Err(w) => return could_not_run(w.to_string()),
        },
    };
    let files: Vec<(String, std::path::PathBuf)> = listed
        .into_iter()
        .filter(|(p, _)| scanned_kind(p))
        .collect();
    let rules = cfg.rules();
    let mut scanned = Vec::new();
    for (rel, path) in &files {
        // Shown escaped (a name holding control characters cannot act on the reader).
        let rel = &diag::escape::terminal(rel).into_owned();
        match diag::walk::read(&root.join(path)) {
            Ok(bytes) => {
                ds.extend(diags(&scan(&bytes, rel, &rules)));
                scanned.push(rel.clone());
            }
            Err(e) if e.kind() == std::io::ErrorKind::FileTooLarge => ds.push(
                Diag::error(Code::Ppr007, format!("not scanned: {e}"))
                    .file(rel.clone())
                    .in_unit(rel.clone()),
            ),
            Err(e) => ds.push(
                Diag::warning(Code::Ppr005, format!("tracked but not scanned: {e}"))
                    .file(rel.clone())
                    .in_unit(rel.clone()),
            ),
        }
    }
    let errors = ds
        .iter()
        .filter(|d| d.severity == crate::diag::Severity::Error)
        .count();
    Outcome {
        diags: ds,
        headline: format!(
            "{} files / {} retired macros / {} banned identifiers / {errors} hits",
            scanned.len(),
            rules.retired.iter().map(|r| r.macros.len()).sum::<usize>(),
            rules
                .banned
                .iter()
                .map(|r| r.identifiers.len())
                .sum::<usize>()
        ),
        units: scanned.clone(),
        inputs: vec![source],
        ..Outcome::default()
    }
    .figure("files", scanned.len())
    .figure("hits", errors)
}

/// The gate's controls: upstream's six planted lines plus its blind spots (each must trip with
/// its own code), upstream's four clean lines plus two more.
pub fn run_controls(neutered: &dyn Fn(&str) -> bool) -> Vec<Control> {
    let rules = mobilegl_rules();
    let c1 = Code::Ppr001;
    let cases: [(&str, bool, &str, Code); 15] = [
        ("if-push", true, "#if MOBILEGL_PIPE_PUSH\n", c1),
        (
            "ifdef-legacy-memos",
            true,
            "#ifdef MOBILEGL_PIPE_LEGACY_MEMOS\n",
            c1,
        ),
        (
            "elif-defined-push",
            true,
            "#elif defined(MOBILEGL_PIPE_PUSH)\n",
            c1,
        ),
        ("mgb-ctx", true, "auto* c = MGB_CTX;\n", Code::Ppr003),
        ("mgb-ctx-live", true, "MGB_CTX_LIVE(x);\n", Code::Ppr003),
        (
            "ifndef-record-arm",
            true,
            "#ifndef MOBILEGL_BUILD_RECORD_ARM\n",
            c1,
        ),
        (
            "continued-conditional",
            true,
            "#if defined(A) && \\\n    defined(MOBILEGL_PIPE_PUSH)\n",
            c1,
        ),
        ("elifdef", true, "#elifdef MOBILEGL_PIPE_LEGACY_MEMOS\n", c1),
        (
            "redefine",
            true,
            "#define MOBILEGL_PIPE_PUSH 1\n",
            Code::Ppr002,
        ),
        (
            "env-var-query",
            false,
            "const char* e = getenv(\"MOBILEGL_PIPE_PUSH\");\n",
            c1,
        ),
        (
            "comment-mention",
            false,
            "// MOBILEGL_PIPE_PUSH retired at P13 W3b\n",
            c1,
        ),
        (
            "pipe-inputs-use",
            false,
            "auto& in = MG_Pipe::gPipeInputs;\n",
            c1,
        ),
        (
            "comment-names-record-arm",
            false,
            "// MOBILEGL_BUILD_RECORD_ARM folded away\n",
            c1,
        ),
        (
            "comment-after-directive",
            false,
            "#if MOBILEGL_BUILD_DISAGGREGATED // not MOBILEGL_PIPE_PUSH\n",
            c1,
        ),
        (
            "longer-identifier",
            false,
            "#ifdef MOBILEGL_PIPE_PUSHED\nint MGB_CTXS;\n",
            c1,
        ),
    ];
    cases
        .iter()
        .map(|&(name, expect_trip, src, want)| {
            let src = if expect_trip && neutered(name) {
                "int clean;\n"
            } else {
                src
            };
            let ds = diags(&scan(src.as_bytes(), "control.cpp", &rules));
            Control::from_diags(name, expect_trip, want, &ds)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn controls_behave() {
        let all = super::run_controls(&|_| false);
        assert!(all.iter().all(|c| c.expect_trip == c.tripped), "{all:?}");
        let proven =
            diag::controls_can_fail(&|n| super::run_controls(n)).unwrap_or_else(|e| panic!("{e}"));
        assert!(proven > 0);
    }
}
