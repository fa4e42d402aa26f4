//! MobileGL's G3 verdict (the trace corpus replays with SSIM at or above threshold on both
//! backends), decided from the retrace runner's results: the one place it is decided. The
//! `retrace` gate of `mgctl check` calls [`check`]; its self-test runs [`run_controls`], which
//! feeds canned inputs through the same [`analyse`].
//!
//! `parse` ([`cases::parse`], [`results::parse`]) → model ([`Input`]) → [`analyse`] (pure) →
//! [`diag::Outcome`]. Only [`check`] touches the disk: it reads the case list, lists the results,
//! runs the LFS preflight ([`crate::lfs::preflight`]) over the fixtures the expected cases name,
//! and stats the files whose times the staleness rule compares. Docs: docs/retrace.md.

pub mod cases;
mod controls;
mod gather;
pub mod results;

pub use controls::run_controls;
pub use gather::{gather, GatherError};

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::SystemTime;

use diag::{Diag, Outcome};

use crate::lfs::{FixtureState, Preflight};
use cases::{safe_case, CaseList};
use results::{RunResult, Ssim};

diag::codes! {
    /// Finding codes of the `retrace` gate (docs/codes.md).
    pub enum Code: "RTR" {
        Rtr001 = "RTR001": "fixtures are Git LFS pointer files: the cases that need them were not run (fix: git lfs pull)",
        Rtr002 = "RTR002": "zero cases selected, or the expected set is not the size [retrace] expect says",
        Rtr003 = "RTR003": "an expected case has no result",
        Rtr004 = "RTR004": "a case has more than one result",
        Rtr005 = "RTR005": "a case's SSIM is below its threshold",
        Rtr006 = "RTR006": "a case's SSIM is missing or None: the replay produced no comparison",
        Rtr007 = "RTR007": "the runner skipped or failed a case for a reason other than its SSIM",
        Rtr008 = "RTR008": "a result for a case or backend the case list does not have",
        Rtr009 = "RTR009": "a result is stale: older than its fixtures or case list, or made from other ones",
        Rtr010 = "RTR010": "could not run: the case list, a result or a fixture is unreadable, missing or malformed",
        Rtr011 = "RTR011": "a result for an excluded case was ignored",
    }
}

/// `[retrace]` in mgctl.toml.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetraceConfig {
    /// Workspace-relative directory the runner wrote (`<safe_case>-<backend>/result.json`).
    pub results: String,
    /// Workspace-relative case list (`trace_cases.json`).
    pub cases: String,
    /// Workspace-relative fixture directory the case list's file names are relative to.
    pub fixtures: String,
    /// The backends every case replays on.
    #[serde(default = "default_backends")]
    pub backends: Vec<String>,
    /// Honour the case list's own `ci = false` and `ci_backends` (the CI matrix).
    #[serde(default = "yes")]
    pub ci_only: bool,
    /// Cases (all backends, or one) that are not expected.
    #[serde(default)]
    pub exclude: Vec<Exclusion>,
    /// The number of expected cases, when pinned (MobileGL's desktop G3: 79).
    pub expect: Option<usize>,
    /// The threshold of a case whose case list states none.
    #[serde(default = "default_ssim")]
    pub ssim: f64,
    /// Per-case thresholds (case name → threshold), over the case list's.
    #[serde(default)]
    pub thresholds: BTreeMap<String, f64>,
    /// Compare file times: a result.json older than the case list or its case's fixtures is
    /// stale. Off only for results committed to git, whose checkout times are not run times.
    #[serde(default = "yes")]
    pub mtimes: bool,
}

/// One `[[retrace.exclude]]`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exclusion {
    pub case: String,
    /// One backend; absent: every backend.
    pub backend: Option<String>,
}

fn default_backends() -> Vec<String> {
    cases::CI_BACKENDS.iter().map(|b| b.to_string()).collect()
}

fn yes() -> bool {
    true
}

fn default_ssim() -> f64 {
    0.99
}

impl RetraceConfig {
    /// The upstream layout: `.trace-work/android-retrace-result`, `tools/trace_replay/`.
    pub fn mobilegl() -> Self {
        RetraceConfig {
            results: ".trace-work/android-retrace-result".into(),
            cases: "tools/trace_replay/trace_cases.json".into(),
            fixtures: "tools/trace_replay/fixtures".into(),
            backends: default_backends(),
            ci_only: true,
            exclude: Vec::new(),
            expect: None,
            ssim: default_ssim(),
            thresholds: BTreeMap::new(),
            mtimes: true,
        }
    }

    fn excluded(&self, case: &str, backend: &str) -> bool {
        self.exclude
            .iter()
            .any(|e| e.case == case && e.backend.as_deref().is_none_or(|b| b == backend))
    }
}

/// A MobileGL checkout has no results until the runner ran, and where they land differs per
/// lane, so the built-in profile leaves the gate unconfigured (skipped, with the reason).
pub fn mobilegl_profile() -> Option<RetraceConfig> {
    None
}

/// One result file the runner wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultFile {
    /// Workspace-relative path.
    pub rel: String,
    /// The case and backend its directory names, if it names a case of the list.
    pub id: Option<(String, String)>,
    pub parsed: Result<RunResult, String>,
    pub mtime: Option<SystemTime>,
    /// The golden the runner copied beside it (`<safe>-<backend>-golden.png`) differs from the
    /// fixture golden now (None: not compared).
    pub golden_copy_differs: Option<bool>,
}

/// Everything [`analyse`] reads, gathered by [`check`] (or canned by a control).
#[derive(Debug, Clone, PartialEq)]
pub struct Input {
    pub cases_rel: String,
    pub cases: CaseList,
    pub cases_mtime: Option<SystemTime>,
    pub results_rel: String,
    /// The result root exists (a missing one selects nothing, and says so).
    pub results_dir_exists: bool,
    pub results: Vec<ResultFile>,
    pub fixtures_rel: String,
    pub preflight: Preflight,
    /// Fixture modification times (workspace-relative path → time).
    pub fixture_mtimes: BTreeMap<String, SystemTime>,
}

/// One expected case: `case` on `backend`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct CaseId {
    pub case: String,
    pub backend: String,
}

impl std::fmt::Display for CaseId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} × {}", self.case, self.backend)
    }
}

/// The expected set: the case list × `backends`, minus `ci = false` cases and backends outside a
/// case's `ci_backends` (with `ci_only`), minus `exclude`. In case-list order.
pub fn expected(list: &CaseList, cfg: &RetraceConfig) -> Vec<CaseId> {
    let mut out = Vec::new();
    for case in &list.cases {
        if cfg.ci_only && !case.ci() {
            continue;
        }
        let own = case.ci_backends();
        for b in &cfg.backends {
            if cfg.ci_only && own.as_ref().is_some_and(|o| !o.contains(b)) {
                continue;
            }
            if cfg.excluded(&case.name, b) {
                continue;
            }
            out.push(CaseId {
                case: case.name.clone(),
                backend: b.clone(),
            });
        }
    }
    out
}

/// The fixture files (workspace-relative) one case needs on one backend.
pub fn fixture_rels(list: &CaseList, fixtures_rel: &str, id: &CaseId) -> Vec<String> {
    let Some(case) = list.get(&id.case) else {
        return Vec::new();
    };
    let r = case.for_backend(&id.backend);
    let join = |f: &str| {
        if fixtures_rel.is_empty() {
            f.to_string()
        } else {
            format!("{}/{f}", fixtures_rel.trim_end_matches('/'))
        }
    };
    let mut out = vec![join(&r.trace_archive), join(&r.golden)];
    out.extend(r.alternate_golden.as_deref().map(join));
    out
}

/// The threshold of `id`: `[retrace] thresholds`, else the case list's, else `[retrace] ssim`.
pub fn threshold(list: &CaseList, cfg: &RetraceConfig, id: &CaseId) -> f64 {
    cfg.thresholds
        .get(&id.case)
        .copied()
        .or_else(|| {
            list.get(&id.case)
                .and_then(|c| c.for_backend(&id.backend).ssim_threshold)
        })
        .unwrap_or(cfg.ssim)
}

/// The case and backend a result path names: the nearest directory (or `<x>-result.json` stem)
/// spelled `<safe_case>-<backend>` for a case of the list and a known backend.
pub fn identify(list: &CaseList, backends: &[String], rel: &str) -> Option<(String, String)> {
    let mut names: Vec<&str> = rel.split('/').collect();
    let file = names.pop()?;
    if let Some(stem) = file.strip_suffix("-result.json") {
        names.push(stem);
    }
    let all: BTreeSet<&str> = backends
        .iter()
        .map(String::as_str)
        .chain(cases::CI_BACKENDS)
        .collect();
    for dir in names.iter().rev() {
        for b in &all {
            let Some(safe) = dir.strip_suffix(&format!("-{b}")) else {
                continue;
            };
            if let Some(c) = list.cases.iter().find(|c| safe_case(&c.name) == safe) {
                return Some((c.name.clone(), (*b).to_string()));
            }
            return Some((safe.to_string(), (*b).to_string()));
        }
    }
    None
}

/// Per-case figures of one analysis.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    pub expected: usize,
    pub results: usize,
    pub passed: usize,
    pub below: usize,
    pub missing: usize,
    pub no_ssim: usize,
    pub not_run_lfs: usize,
    pub stale: usize,
}

impl Tally {
    /// `passed N / M` (M is the EXPECTED set, never the selection, so a run that selected nothing
    /// reads `passed 0 / 79`, not `passed 0 / 0`), then what did not pass.
    pub fn headline(&self) -> String {
        // LFS first, as in the findings: a reader of the table sees "not run" before the count.
        let mut h = if self.not_run_lfs > 0 {
            format!(
                "LFS pointers: {} not run (git lfs pull); passed {} / {}",
                self.not_run_lfs, self.passed, self.expected
            )
        } else {
            format!("passed {} / {}", self.passed, self.expected)
        };
        let parts = [
            (self.below, "below threshold"),
            (self.no_ssim, "ssim=None"),
            (self.missing, "missing"),
            (self.stale, "stale"),
        ];
        for (n, what) in parts {
            if n > 0 {
                h.push_str(&format!(", {n} {what}"));
            }
        }
        h
    }
}

/// Decides G3 over `input`. Diagnostics in report order: the LFS verdict FIRST (RTR001, no
/// location, so it also sorts first), then the selection (RTR002), then per case.
pub fn analyse(input: &Input, cfg: &RetraceConfig) -> (Vec<Diag<Code>>, Tally) {
    let mut diags = Vec::new();
    let list = &input.cases;
    let want = expected(list, cfg);
    let mut tally = Tally {
        expected: want.len(),
        results: input.results.len(),
        ..Tally::default()
    };
    let at_case = |d: Diag<Code>, case: &str| {
        let line = list.get(case).map_or(1, |c| c.line);
        d.at(input.cases_rel.clone(), line, None)
    };

    // Configuration that selects nothing is a finding, never a pass.
    for e in &cfg.exclude {
        let hit = list.get(&e.case).is_some()
            && e.backend.as_ref().is_none_or(|b| cfg.backends.contains(b));
        if !hit {
            diags.push(Diag::error(
                Code::Rtr010,
                format!(
                    "[retrace] exclude {{ case = {:?}{} }} matches no case of {} (misspelt?)",
                    e.case,
                    e.backend
                        .as_ref()
                        .map(|b| format!(", backend = {b:?}"))
                        .unwrap_or_default(),
                    input.cases_rel
                ),
            ));
        }
    }
    for name in cfg.thresholds.keys() {
        if list.get(name).is_none() {
            diags.push(Diag::error(
                Code::Rtr010,
                format!(
                    "[retrace] thresholds names {name:?}, which is not a case of {} (misspelt?)",
                    input.cases_rel
                ),
            ));
        }
    }

    // Group the results by the case they name.
    let mut by_id: BTreeMap<CaseId, Vec<&ResultFile>> = BTreeMap::new();
    for r in &input.results {
        match &r.id {
            Some((case, backend)) => by_id
                .entry(CaseId {
                    case: case.clone(),
                    backend: backend.clone(),
                })
                .or_default()
                .push(r),
            None => diags.push(
                Diag::error(
                    Code::Rtr008,
                    format!(
                        "{}: not under a <case>-<backend> directory of a case in {}: which case it is cannot be told",
                        r.rel, input.cases_rel
                    ),
                )
                .file(r.rel.clone()),
            ),
        }
    }

    // LFS first: a case whose fixtures are pointers, or whose result says the runner found
    // pointers, was not run. It is not failed, and the run still does not pass.
    let mut lfs: BTreeSet<&CaseId> = BTreeSet::new();
    for id in &want {
        let rels = fixture_rels(list, &input.fixtures_rel, id);
        let pointer = rels.iter().any(|f| input.preflight.is_pointer(f));
        let said = by_id.get(id).is_some_and(|rs| {
            rs.iter()
                .any(|r| r.parsed.as_ref().is_ok_and(RunResult::skipped_lfs))
        });
        if pointer || said {
            lfs.insert(id);
        }
    }
    tally.not_run_lfs = lfs.len();
    if !lfs.is_empty() {
        let why = input.preflight.message().unwrap_or_else(|| {
            format!(
                "the runner skipped them with {} (the fixtures were LFS pointers when it ran); fix: run `git lfs pull`, then re-run the retrace",
                results::SKIPPED_LFS
            )
        });
        let names: Vec<String> = lfs.iter().take(3).map(ToString::to_string).collect();
        let more = lfs.len().saturating_sub(names.len());
        diags.push(
            Diag::error(
                Code::Rtr001,
                format!(
                    "LFS POINTERS: {} of {} expected cases were NOT RUN (not failed): {why}. Not run: {}{}",
                    lfs.len(),
                    want.len(),
                    names.join(", "),
                    if more > 0 { format!(" and {more} more") } else { String::new() }
                ),
            )
            .with_detail(serde_json::json!({
                "pointers": input.preflight.pointers().map(|f| f.rel.clone()).collect::<Vec<_>>(),
                "not_run": lfs.iter().map(ToString::to_string).collect::<Vec<_>>(),
                "fix": "git lfs pull",
            })),
        );
    }

    if want.is_empty() {
        diags.push(Diag::error(
            Code::Rtr002,
            format!(
                "zero cases selected: {} × [retrace] backends {:?} minus the exclusions is empty (passed 0 / 0 is never a pass)",
                input.cases_rel, cfg.backends
            ),
        ));
    } else if !want.iter().any(|id| by_id.contains_key(id)) {
        let what = if !input.results_dir_exists {
            format!("{} does not exist", input.results_rel)
        } else if input.results.is_empty() {
            format!("no result.json under {}", input.results_rel)
        } else {
            format!(
                "none of the {} result files under {} is an expected case",
                input.results.len(),
                input.results_rel
            )
        };
        diags.push(Diag::error(
            Code::Rtr002,
            format!(
                "zero cases selected: {what} (passed 0 / {}; a runner selection that matched nothing, e.g. a comma list given to a regex --only, is never a pass)",
                want.len()
            ),
        ));
    }
    if let Some(n) = cfg.expect {
        if n != want.len() {
            diags.push(Diag::error(
                Code::Rtr002,
                format!(
                    "the expected set has {} cases ({} × {} backends minus exclusions), [retrace] expect = {n}",
                    want.len(),
                    input.cases_rel,
                    cfg.backends.len()
                ),
            ));
        }
    }

    let wanted: BTreeSet<&CaseId> = want.iter().collect();
    for id in &want {
        let unit = id.to_string();
        if lfs.contains(id) {
            continue;
        }
        let rels = fixture_rels(list, &input.fixtures_rel, id);
        let Some(rs) = by_id.get(id) else {
            tally.missing += 1;
            diags.push(
                at_case(
                    Diag::error(
                        Code::Rtr003,
                        format!(
                            "{id}: no result (expected {}/{}-{}/result.json)",
                            input.results_rel,
                            safe_case(&id.case),
                            id.backend
                        ),
                    ),
                    &id.case,
                )
                .in_unit(unit),
            );
            continue;
        };
        if rs.len() > 1 {
            let paths: Vec<&str> = rs.iter().map(|r| r.rel.as_str()).collect();
            diags.push(
                Diag::error(
                    Code::Rtr004,
                    format!(
                        "{id}: {} results, one expected: {}",
                        rs.len(),
                        paths.join(", ")
                    ),
                )
                .file(rs[0].rel.clone())
                .in_unit(unit),
            );
            continue;
        }
        let r = rs[0];
        let file = |d: Diag<Code>| d.file(r.rel.clone()).in_unit(unit.clone());
        let res = match &r.parsed {
            Ok(res) => res,
            Err(e) => {
                diags.push(file(Diag::error(Code::Rtr010, e.clone())));
                continue;
            }
        };
        let mut ok = true;
        // Staleness: made from another case list or other fixtures, or older than them.
        let stale = staleness(input, cfg, id, r, res, &rels);
        if !stale.is_empty() {
            tally.stale += 1;
            ok = false;
            diags.push(file(Diag::error(
                Code::Rtr009,
                format!("{id}: stale result: {}", stale.join("; ")),
            )));
        }
        for f in &rels {
            if let Some(FixtureState::Missing | FixtureState::Unreadable(_)) =
                input.preflight.state(f)
            {
                ok = false;
                diags.push(file(Diag::error(
                    Code::Rtr010,
                    format!(
                        "{id}: fixture {f} named by {} is missing or unreadable",
                        input.cases_rel
                    ),
                )));
            }
        }
        let th = threshold(list, cfg, id);
        if let Some(b) = &res.backend {
            if *b != id.backend {
                ok = false;
                diags.push(file(Diag::error(
                    Code::Rtr008,
                    format!(
                        "{id}: the result says backend {b:?}, its directory says {}",
                        id.backend
                    ),
                )));
            }
        }
        if res.skipped() {
            ok = false;
            diags.push(file(Diag::error(
                Code::Rtr007,
                format!(
                    "{id}: not run: the runner skipped it: {}",
                    one_line(&res.message)
                ),
            )));
        } else {
            match res.ssim {
                Ssim::Absent | Ssim::None => {
                    ok = false;
                    tally.no_ssim += 1;
                    let what = if res.ssim == Ssim::Absent {
                        "no ssim field"
                    } else {
                        "ssim=None"
                    };
                    diags.push(file(Diag::error(
                        Code::Rtr006,
                        format!(
                            "{id}: {what}: the replay produced no comparison{}",
                            if res.message.is_empty() {
                                String::new()
                            } else {
                                format!(" ({})", one_line(&res.message))
                            }
                        ),
                    )));
                }
                Ssim::Value(s) if s < th => {
                    ok = false;
                    tally.below += 1;
                    diags.push(file(
                        Diag::error(
                            Code::Rtr005,
                            format!("{id}: ssim {s} is below its threshold {th}"),
                        )
                        .with_detail(serde_json::json!({"ssim": s, "threshold": th})),
                    ));
                }
                Ssim::Value(s) => {
                    if res.passed == Some(false) {
                        ok = false;
                        diags.push(file(Diag::error(
                            Code::Rtr007,
                            format!(
                                "{id}: the runner failed it at ssim {s} (threshold {th}): {}",
                                if res.message.is_empty() {
                                    "no message".to_string()
                                } else {
                                    one_line(&res.message)
                                }
                            ),
                        )));
                    }
                }
            }
        }
        if ok {
            tally.passed += 1;
        }
    }

    for (id, rs) in &by_id {
        if wanted.contains(id) {
            continue;
        }
        let in_list = list.get(&id.case).is_some() && cfg.backends.contains(&id.backend);
        let d = if in_list {
            Diag::note(
                Code::Rtr011,
                format!("{id}: result ignored: the case is not expected (excluded, ci = false or outside its ci_backends)"),
            )
        } else {
            Diag::error(
                Code::Rtr008,
                format!(
                    "{id}: a result for a case or backend {} and [retrace] backends do not have (a leftover of an older case list?)",
                    input.cases_rel
                ),
            )
        };
        diags.push(d.file(rs[0].rel.clone()).in_unit(id.to_string()));
    }
    (diags, tally)
}

/// Why a result is stale, if it is: each reason one phrase.
fn staleness(
    input: &Input,
    cfg: &RetraceConfig,
    id: &CaseId,
    r: &ResultFile,
    res: &RunResult,
    fixture_rels: &[String],
) -> Vec<String> {
    let mut why = Vec::new();
    if let Some(case) = input.cases.get(&id.case) {
        for (rk, ck) in results::PROVENANCE_NUMBERS {
            let (Some(a), Some(b)) = (
                res.fields.get(rk).and_then(serde_json::Value::as_f64),
                case.fields.get(ck).and_then(serde_json::Value::as_f64),
            ) else {
                continue;
            };
            if a != b {
                why.push(format!(
                    "made with {rk} {a}, {} says {ck} {b}",
                    input.cases_rel
                ));
            }
        }
        // The local runner passes the case's shared golden and threshold (it predates
        // `backend_overrides`), so either the shared or the backend's own value is this case's.
        let resolved = case.for_backend(&id.backend);
        let shared_threshold = case
            .fields
            .get("ssim_threshold")
            .and_then(serde_json::Value::as_f64);
        if let Some(a) = res.ssim_threshold {
            let known: Vec<f64> = [resolved.ssim_threshold, shared_threshold]
                .into_iter()
                .flatten()
                .collect();
            if !known.is_empty() && !known.contains(&a) {
                why.push(format!(
                    "made with ssimThreshold {a}, {} says {}",
                    input.cases_rel, known[0]
                ));
            }
        }
        let shared_golden = case.str_field("golden").unwrap_or_default().to_string();
        for (rk, wants) in [
            ("goldenPath", vec![&resolved.golden, &shared_golden]),
            ("tracePath", vec![&resolved.trace_archive]),
        ] {
            if let Some(p) = res.fields.get(rk).and_then(serde_json::Value::as_str) {
                let got = results::base_name(p);
                if !got.is_empty() && !wants.iter().any(|w| got == results::base_name(w)) {
                    why.push(format!(
                        "made from {got}, {} now names {}",
                        input.cases_rel, wants[0]
                    ));
                }
            }
        }
    }
    if r.golden_copy_differs == Some(true) {
        why.push("the golden copied beside it differs from the fixture golden now (re-recorded after the run)".into());
    }
    if cfg.mtimes {
        if let Some(t) = r.mtime {
            let mut sources: Vec<(&str, SystemTime)> = Vec::new();
            sources.extend(input.cases_mtime.map(|m| (input.cases_rel.as_str(), m)));
            for f in fixture_rels {
                if let Some(m) = input.fixture_mtimes.get(f) {
                    sources.push((f.as_str(), *m));
                }
            }
            if let Some((src, m)) = sources.into_iter().max_by_key(|(_, m)| *m) {
                if m > t {
                    let secs = m.duration_since(t).map_or(0.0, |d| d.as_secs_f64());
                    why.push(format!(
                        "{} is {secs:.0} s older than {src} (an artifact older than its sources is never read green)",
                        r.rel
                    ));
                }
            }
        }
    }
    why
}

fn one_line(s: &str) -> String {
    diag::escape::terminal(&s.split_whitespace().collect::<Vec<_>>().join(" ")).into_owned()
}

/// Runs G3 over the workspace at `root`: the one entry point of the gate.
pub fn check(root: &Path, cfg: &RetraceConfig) -> Outcome<Code> {
    match gather(root, cfg) {
        Ok(input) => outcome(&input, cfg),
        Err(e) => {
            let e = e.to_string();
            Outcome::could_not_run(vec![Diag::error(Code::Rtr010, e).file(cfg.cases.clone())])
        }
    }
}

/// [`analyse`] as an [`Outcome`]: diagnostics, headline, figures, units and inputs.
pub fn outcome(input: &Input, cfg: &RetraceConfig) -> Outcome<Code> {
    let (diags, t) = analyse(input, cfg);
    let o = Outcome {
        diags,
        headline: t.headline(),
        units: expected(&input.cases, cfg)
            .iter()
            .map(ToString::to_string)
            .collect(),
        inputs: vec![
            input.cases_rel.clone(),
            input.results_rel.clone(),
            input.fixtures_rel.clone(),
        ],
        ..Outcome::default()
    };
    o.figure("expected", t.expected)
        .figure("results", t.results)
        .figure("passed", t.passed)
        .figure("below_threshold", t.below)
        .figure("no_ssim", t.no_ssim)
        .figure("missing", t.missing)
        .figure("not_run_lfs", t.not_run_lfs)
        .figure("stale", t.stale)
}

/// The live control (`live-below-threshold`): the workspace's own results, gathered as a real run,
/// with the first replayed result of an expected case lowered just below its threshold in memory
/// (never on disk), must raise RTR005 at that result. A workspace with no replayed result cannot
/// go red there, so the control fails, saying why. `neutered(name)` leaves the results as they are.
pub fn live_controls(
    root: &Path,
    cfg: &RetraceConfig,
    neutered: &dyn Fn(&str) -> bool,
) -> Vec<diag::Control> {
    const NAME: &str = "live-below-threshold";
    let fail = |detail: String| diag::Control {
        name: NAME.into(),
        expect_trip: true,
        tripped: false,
        detail,
    };
    let mut input = match gather(root, cfg) {
        Ok(i) => i,
        Err(e) => return vec![fail(e.to_string())],
    };
    let want: BTreeSet<CaseId> = expected(&input.cases, cfg).into_iter().collect();
    let target = input.results.iter().position(|r| {
        let expected_case = r.id.as_ref().is_some_and(|(case, backend)| {
            want.contains(&CaseId {
                case: case.clone(),
                backend: backend.clone(),
            })
        });
        expected_case
            && r.parsed
                .as_ref()
                .is_ok_and(|p| !p.skipped() && matches!(p.ssim, Ssim::Value(_)))
    });
    let Some(at) = target else {
        return vec![fail(format!(
            "no replayed result of an expected case under {}, so lowering an ssim cannot go red here",
            cfg.results
        ))];
    };
    let rel = input.results[at].rel.clone();
    if !neutered(NAME) {
        let r = &mut input.results[at];
        let th = r.id.as_ref().map_or(cfg.ssim, |(case, backend)| {
            threshold(
                &input.cases,
                cfg,
                &CaseId {
                    case: case.clone(),
                    backend: backend.clone(),
                },
            )
        });
        if let Ok(p) = &mut r.parsed {
            p.ssim = Ssim::Value(th - 0.01);
        }
    }
    let (diags, _) = analyse(&input, cfg);
    let here: Vec<Diag<Code>> = diags
        .into_iter()
        .filter(|d| d.location.as_ref().is_some_and(|l| l.path == rel))
        .collect();
    vec![diag::Control::from_diags(NAME, true, Code::Rtr005, &here)]
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// MobileGL's shape: 40 CI cases (one DirectVulkan-only) and one `ci = false`.
    fn corpus() -> CaseList {
        let mut cases: Vec<String> = (0..39)
            .map(|i| {
                format!(
                    r#"{{"name": "mc-{i}", "trace_archive": "mc-{i}.tgz", "golden": "mc-{i}.png"}}"#
                )
            })
            .collect();
        cases.push(r#"{"name": "iterationrp", "ci_backends": ["DirectVulkan"], "trace_archive": "rp.tgz", "golden": "rp.png", "ssim_threshold": 0.98}"#.into());
        cases.push(
            r#"{"name": "rd12", "ci": false, "trace_archive": "rd.tgz", "golden": "rd.png"}"#
                .into(),
        );
        let text = format!(
            r#"{{"defaults": {{"ssim_threshold": 0.99}}, "cases": [{}]}}"#,
            cases.join(",\n")
        );
        cases::parse("trace_cases.json", &text).unwrap()
    }

    fn cfg() -> RetraceConfig {
        RetraceConfig {
            results: "r".into(),
            cases: "trace_cases.json".into(),
            fixtures: "f".into(),
            ..RetraceConfig::mobilegl()
        }
    }

    #[test]
    fn expected_is_40_by_2_minus_1() {
        let list = corpus();
        assert_eq!(expected(&list, &cfg()).len(), 79);
        // Without the case list's own CI keys, the configured exclusion gives the same 79.
        let c = RetraceConfig {
            ci_only: false,
            exclude: vec![
                Exclusion {
                    case: "iterationrp".into(),
                    backend: Some("DirectGLES".into()),
                },
                Exclusion {
                    case: "rd12".into(),
                    backend: None,
                },
            ],
            ..cfg()
        };
        assert_eq!(expected(&list, &c).len(), 79);
        let id = CaseId {
            case: "iterationrp".into(),
            backend: "DirectVulkan".into(),
        };
        assert_eq!(threshold(&list, &cfg(), &id), 0.98);
        let mut over = cfg();
        over.thresholds.insert("iterationrp".into(), 0.995);
        assert_eq!(threshold(&list, &over, &id), 0.995);
        let id = CaseId {
            case: "mc-3".into(),
            backend: "DirectGLES".into(),
        };
        assert_eq!(fixture_rels(&list, "f", &id), ["f/mc-3.tgz", "f/mc-3.png"]);
    }

    #[test]
    fn a_run_with_the_shared_golden_and_threshold_is_not_stale_under_an_override() {
        let text = r#"{"cases": [{"name": "rp", "trace_archive": "rp.tgz", "golden": "rp.png", "ssim_threshold": 0.99, "target_call": 7,
            "backend_overrides": {"DirectVulkan": {"golden": "rp-vk.png", "ssim_threshold": 0.98}}}]}"#;
        let list = cases::parse("l.json", text).unwrap();
        let input = Input {
            cases_rel: "l.json".into(),
            cases: list,
            cases_mtime: None,
            results_rel: "r".into(),
            results_dir_exists: true,
            results: Vec::new(),
            fixtures_rel: "f".into(),
            preflight: Preflight::default(),
            fixture_mtimes: BTreeMap::new(),
        };
        let id = CaseId {
            case: "rp".into(),
            backend: "DirectVulkan".into(),
        };
        let stale = |json: &str| {
            let res = results::parse("r.json", json.as_bytes()).unwrap();
            let r = ResultFile {
                rel: "r.json".into(),
                id: None,
                parsed: Ok(res.clone()),
                mtime: None,
                golden_copy_differs: None,
            };
            staleness(&input, &cfg(), &id, &r, &res, &[])
        };
        assert!(stale(
            r#"{"ssimThreshold": 0.99, "goldenPath": "C:\\w\\f\\rp.png", "targetCall": 7}"#
        )
        .is_empty());
        assert!(
            stale(r#"{"ssimThreshold": 0.98, "goldenPath": "/f/rp-vk.png", "targetCall": 7}"#)
                .is_empty()
        );
        let why = stale(r#"{"ssimThreshold": 0.95, "goldenPath": "/f/old.png", "targetCall": 8}"#);
        assert_eq!(why.len(), 3, "{why:?}");
    }

    #[test]
    fn a_result_is_the_case_its_nearest_directory_names() {
        let list = corpus();
        let b = cfg().backends;
        let id = |rel: &str| identify(&list, &b, rel);
        assert_eq!(
            id("r/mc-3-DirectGLES/result.json"),
            Some(("mc-3".into(), "DirectGLES".into()))
        );
        assert_eq!(
            id("r/lane-a/mc-3-DirectVulkan/result.json"),
            Some(("mc-3".into(), "DirectVulkan".into()))
        );
        assert_eq!(
            id("r/x/mc-4-DirectGLES-result.json"),
            Some(("mc-4".into(), "DirectGLES".into()))
        );
        assert_eq!(
            id("r/gone-DirectGLES/result.json"),
            Some(("gone".into(), "DirectGLES".into()))
        );
        assert_eq!(id("r/result.json"), None);
    }
}
