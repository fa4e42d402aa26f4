//! The one entry point of the symbol diff: read two builds, diff them and judge the gates.
//! `mgctl symbols diff` renders a [`PairRun`]; the `symbols` gate maps the same value to
//! findings, so the command and the gate cannot reach different verdicts or figures.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::cfg::SymbolsConfig;
use crate::diff::{self, Diff, DiffError, DiffOptions, Side};
use crate::elf;
use crate::error::Error;
use crate::gate::{self as sgate, AllowEntry, GateOptions, GateOutcome};
use crate::group::GroupError;
use crate::model::{Library, TableChoice};
use crate::report;

/// What to compare and how to judge it.
#[derive(Debug, Clone, Default)]
pub struct PairRequest {
    pub before: PathBuf,
    pub after: PathBuf,
    pub table: TableChoice,
    pub keep_versions: bool,
    pub opts: DiffOptions,
    pub gates: GateOptions,
}

/// Which library of the pair an error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    Before,
    After,
}

/// A library of the pair could not be read.
#[derive(Debug, thiserror::Error)]
#[error("{error}")]
pub struct PairError {
    pub which: Which,
    #[source]
    pub error: Error,
}

/// The diff of two sides and every verdict over it.
#[derive(Debug, Clone)]
pub struct PairAnalysis {
    pub before: Side,
    pub after: Side,
    pub diff: Diff,
    pub outcome: GateOutcome,
    /// The pair looks mismatched (machines differ, one is stripped, …).
    pub warnings: Vec<String>,
}

/// A real run: the two libraries read from disk and their analysis.
pub struct PairRun {
    pub before_lib: Library,
    pub after_lib: Library,
    pub analysis: PairAnalysis,
}

/// The figures every view of a diff quotes (the `check` headline, the JSON, the parity test).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Headline {
    pub defined_before: usize,
    pub defined_after: usize,
    pub added: usize,
    pub removed: usize,
    pub resized: usize,
    pub renamed: usize,
    pub admitted: usize,
    pub text_delta: i64,
}

impl fmt::Display for Headline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} -> {} symbols: {} added, {} removed, {} resized ({} admitted), {} renamed; .text {:+}",
            self.defined_before,
            self.defined_after,
            self.added,
            self.removed,
            self.resized,
            self.admitted,
            self.renamed,
            self.text_delta
        )
    }
}

impl PairAnalysis {
    /// Red when any gate fired (the exit code of `symbols diff`, the verdict of the gate).
    pub fn failed(&self) -> bool {
        self.outcome.failed()
    }

    /// Counted over the gate view (threshold 0, no `--only-names`).
    pub fn headline(&self) -> Headline {
        let [added, removed, resized, renamed] = self.diff.gate_view().counts();
        Headline {
            defined_before: self.diff.defined_before,
            defined_after: self.diff.defined_after,
            added,
            removed,
            resized,
            renamed,
            admitted: self.outcome.admitted.len(),
            text_delta: self.diff.text().delta,
        }
    }
}

/// Diff two sides and judge the gates: the path a real run and every self-test control share.
pub fn analyse_pair(
    before: Side,
    after: Side,
    opts: &DiffOptions,
    gates: &GateOptions,
) -> PairAnalysis {
    let diff = diff::diff(&before, &after, opts);
    let outcome = sgate::evaluate(&diff, gates);
    let warnings = report::pair_warnings(&before, &after);
    PairAnalysis {
        before,
        after,
        diff,
        outcome,
        warnings,
    }
}

/// Read both libraries (in parallel) and analyse them.
pub fn run_pair(req: &PairRequest) -> std::result::Result<PairRun, PairError> {
    let (lb, la) = rayon::join(
        || elf::read_library(&req.before, req.table),
        || elf::read_library(&req.after, req.table),
    );
    let before_lib = lb.map_err(|error| PairError {
        which: Which::Before,
        error,
    })?;
    let after_lib = la.map_err(|error| PairError {
        which: Which::After,
        error,
    })?;
    // Issue 29: a pair of two machines is refused (exit 2), not diffed into a verdict.
    let (b, a) = (&before_lib.identity, &after_lib.identity);
    if b.machine != a.machine || b.class_bits != a.class_bits {
        return Err(PairError {
            which: Which::After,
            error: Error::MachinesDiffer {
                path: req.after.clone(),
                after: format!("{} ELF{}", a.machine, a.class_bits),
                before_path: req.before.clone(),
                before: format!("{} ELF{}", b.machine, b.class_bits),
            },
        });
    }
    let (before, after) = diff::sides_from_libraries(&before_lib, &after_lib, req.keep_versions);
    let analysis = analyse_pair(before, after, &req.opts, &req.gates);
    Ok(PairRun {
        before_lib,
        after_lib,
        analysis,
    })
}

/// A `[symbols]` setting that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigProblem {
    /// A bad key value of the section itself.
    Setting(String),
    /// The allow file named by `allow_file` (workspace-relative) could not be used.
    AllowFile { file: String, message: String },
}

impl fmt::Display for ConfigProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigProblem::Setting(m) | ConfigProblem::AllowFile { message: m, .. } => {
                f.write_str(m)
            }
        }
    }
}

/// A rename map that cannot be used; `what` names where it was given.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RenameMapError {
    #[error("{what} {entry:?}: expected OLD=NEW")]
    NotAPair { what: String, entry: String },
    #[error("{what}: {reason}")]
    Growth { what: String, reason: DiffError },
}

/// Parse `OLD=NEW` entries, refusing a map that could blow a name up (see
/// [`diff::check_rename_growth`]).
pub fn parse_rename_map(
    entries: &[String],
    what: &str,
) -> std::result::Result<Vec<(String, String)>, RenameMapError> {
    let mut out = Vec::with_capacity(entries.len());
    for e in entries {
        match diff::parse_rename(e) {
            Some(p) => out.push(p),
            None => {
                return Err(RenameMapError::NotAPair {
                    what: what.to_string(),
                    entry: e.clone(),
                })
            }
        }
    }
    diff::check_rename_growth(&out).map_err(|reason| RenameMapError::Growth {
        what: what.to_string(),
        reason,
    })?;
    Ok(out)
}

/// `symbols diff`'s flags as given on the command line; [`request_from_flags`] checks them.
#[derive(Debug, Clone, Copy)]
pub struct PairFlags<'a> {
    pub before: &'a Path,
    pub after: &'a Path,
    pub table: TableChoice,
    pub keep_versions: bool,
    pub strip_scope: &'a [String],
    /// `OLD=NEW` entries.
    pub rename_map: &'a [String],
    /// Comma-separated substrings; empty items are ignored.
    pub only_names: Option<&'a str>,
    pub threshold: u64,
    /// `namespace` or `namespace:DEPTH`.
    pub group: Option<&'a str>,
    pub fail_on_symbol_set_change: bool,
    pub fail_on_text_delta: bool,
    pub fail_on_added_bytes: Option<u64>,
    pub strict_allow: bool,
    /// Admissions: resizes by name, then the entries of each allow file.
    pub allow_resize: &'a [String],
    pub allow_files: &'a [PathBuf],
}

/// A flag of `symbols diff` that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum FlagError {
    #[error(transparent)]
    RenameMap(#[from] RenameMapError),
    #[error(transparent)]
    Group(#[from] GroupError),
    #[error(transparent)]
    Allow(#[from] Error),
}

/// The request of a `symbols diff` command line, and its `--group` depth. Checked in the order
/// the flags are documented: `--rename-map`, `--group`, then the allow files.
pub fn request_from_flags(
    f: &PairFlags<'_>,
) -> std::result::Result<(PairRequest, Option<usize>), FlagError> {
    let rename_map = parse_rename_map(f.rename_map, "--rename-map")?;
    let depth = f.group.map(crate::group::parse_spec).transpose()?;
    let mut allow = allow_resizes(f.allow_resize, "--allow-resize");
    for file in f.allow_files {
        allow.extend(sgate::load_allow(file, file)?);
    }
    let only_names = f.only_names.map_or_else(Vec::new, |s| {
        s.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect()
    });
    let req = PairRequest {
        before: f.before.to_path_buf(),
        after: f.after.to_path_buf(),
        table: f.table,
        keep_versions: f.keep_versions,
        opts: DiffOptions {
            strip_scopes: f.strip_scope.to_vec(),
            rename_map,
            only_names,
            threshold: f.threshold,
        },
        gates: GateOptions {
            fail_on_symbol_set_change: f.fail_on_symbol_set_change,
            fail_on_text_delta: f.fail_on_text_delta,
            fail_on_added_bytes: f.fail_on_added_bytes,
            allow,
            strict_allow: f.strict_allow,
        },
    };
    Ok((req, depth))
}

/// Resize admissions given by name (`--allow-resize`, `allow_resize`).
pub fn allow_resizes(names: &[String], origin: &str) -> Vec<AllowEntry> {
    names
        .iter()
        .map(|n| AllowEntry {
            bucket: diff::Bucket::Resized,
            name: n.clone(),
            origin: origin.into(),
        })
        .collect()
}

/// The gate's request for a `[symbols]` section of the workspace at `root`: the full gate
/// view (threshold 0, every name listed).
pub fn request_from_config(
    cfg: &SymbolsConfig,
    root: &Path,
) -> std::result::Result<PairRequest, ConfigProblem> {
    let table = cfg
        .table
        .as_deref()
        .unwrap_or("auto")
        .parse::<TableChoice>()
        .map_err(|e| ConfigProblem::Setting(format!("[symbols] table: {e}")))?;
    let rename_map = parse_rename_map(&cfg.rename_map, "[symbols] rename_map entry")
        .map_err(|e| ConfigProblem::Setting(e.to_string()))?;
    let mut allow = allow_resizes(&cfg.allow_resize, "mgctl.toml allow_resize");
    if let Some(f) = &cfg.allow_file {
        let entries = sgate::load_allow(&root.join(f), Path::new(f)).map_err(|e| {
            ConfigProblem::AllowFile {
                file: f.clone(),
                message: e.to_string(),
            }
        })?;
        allow.extend(entries);
    }
    Ok(PairRequest {
        before: root.join(&cfg.before),
        after: root.join(&cfg.after),
        table,
        keep_versions: cfg.keep_versions,
        opts: DiffOptions {
            strip_scopes: cfg.strip_scope.clone(),
            rename_map,
            only_names: Vec::new(),
            threshold: 0,
        },
        gates: GateOptions {
            fail_on_symbol_set_change: cfg.fail_on_symbol_set_change,
            fail_on_text_delta: cfg.fail_on_text_delta,
            fail_on_added_bytes: cfg.fail_on_added_bytes,
            allow,
            strict_allow: cfg.strict_allow,
        },
    })
}
