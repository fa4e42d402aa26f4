//! The `ctest` analysis as one entry point: config in, [`Outcome`] out, used by the gate, its
//! self-test controls and `mgctl lint ctest` alike. The rules are upstream's:
//! `junit_tally.py` (a case's status; named entries pass, a skip is not a pass),
//! `skip_census.py` (the baseline comparison, the worst outcome of a rerun, the baseline's
//! shape) and `junit_annotate.py` (every failed entry is reported with why).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use diag::{Diag, Outcome};

use super::cfg::{CtestConfig, ExpectConfig, Expected};
use super::{parse_junit, Baseline, BaselineLane, Case, Junit, Status};

diag::codes! {
    /// Finding codes of the `ctest` gate (docs/codes.md).
    pub enum Code: "CTS" {
        Cts001 = "CTS001": "a test an expectation says must pass failed or was skipped",
        Cts002 = "CTS002": "a test an expectation says must fail (a negative-control arm) did not fail",
        Cts003 = "CTS003": "an expectation's name or glob matches no test (it would pass vacuously)",
        Cts004 = "CTS004": "a ctest entry failed (and no expectation says it must)",
        Cts005 = "CTS005": "a test is skipped that the status baseline does not list as skipped (a new skip, or pass -> skip)",
        Cts006 = "CTS006": "a test the status baseline knows is gone from its lane (names only grow)",
        Cts007 = "CTS007": "a lane of the status baseline has no JUnit in this run",
        Cts008 = "CTS008": "a lane's discovered tests are not exactly the configured set",
        Cts009 = "CTS009": "a lane's JUnit does not cover its test listing (older than the listing, or a partial run)",
        Cts010 = "CTS010": "a JUnit file or test listing cannot be read, or is not what it claims to be",
        Cts011 = "CTS011": "the status baseline is missing or malformed",
        Cts012 = "CTS012": "the status baseline can be tightened: a skip now passes, or names or lanes were added",
        Cts013 = "CTS013": "a lane's JUnit holds no test case (the run checked nothing)",
        Cts014 = "CTS014": "a [ctest] entry is invalid (a bad glob, an unknown or repeated lane)",
    }
}

/// Why a file the gate reads cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("not a regular file")]
    NotAFile,
    #[error("{0}")]
    Io(std::io::Error),
    #[error("no status baseline at {rel}: record one from a full run with `mgctl lint ctest --write-baseline`")]
    NoBaseline { rel: String },
    #[error("{rel}: cannot read: {reason}")]
    Unreadable { rel: String, reason: Box<ReadError> },
    #[error("{rel}:{line}:{column}: not a ctest status baseline: {reason}")]
    NotABaseline {
        rel: String,
        line: usize,
        column: usize,
        reason: serde_json::Error,
    },
    #[error("{rel}: schema {schema} (this mgctl reads schema 1)")]
    Schema { rel: String, schema: u32 },
}

/// Where the gate's files come from: the workspace on disk, or the controls' canned texts.
pub trait Files {
    /// Ok(None) when the file does not exist.
    fn read(&self, rel: &str) -> Result<Option<Vec<u8>>, ReadError>;
    fn mtime(&self, rel: &str) -> Option<SystemTime>;
    fn is_file(&self, rel: &str) -> bool;
    /// How reports name the workspace.
    fn label(&self) -> String;
}

/// The workspace on disk.
pub struct Disk(pub PathBuf);

impl Files for Disk {
    fn read(&self, rel: &str) -> Result<Option<Vec<u8>>, ReadError> {
        let p = self.0.join(rel);
        if p.exists() && !p.is_file() {
            return Err(ReadError::NotAFile);
        }
        match diag::walk::read(&p) {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(ReadError::Io(e)),
        }
    }
    fn mtime(&self, rel: &str) -> Option<SystemTime> {
        std::fs::metadata(self.0.join(rel))
            .and_then(|m| m.modified())
            .ok()
    }
    fn is_file(&self, rel: &str) -> bool {
        !rel.is_empty() && self.0.join(rel).is_file()
    }
    fn label(&self) -> String {
        self.0.display().to_string()
    }
}

/// Checks every configured lane of the workspace at `root`.
pub fn check(root: &Path, cfg: &CtestConfig) -> Outcome<Code> {
    check_inputs(&Disk(root.to_path_buf()), cfg)
}

/// One lane as read: its JUnit (None when it could not be read) and its listing's names.
struct Lane<'a> {
    name: &'a str,
    junit_rel: &'a str,
    junit: Option<Junit>,
    /// The names the lane discovers: its listing's, else its JUnit's.
    discovered: Option<BTreeSet<String>>,
}

#[derive(Default)]
struct Tally {
    cases: usize,
    passed: usize,
    failed: usize,
    skipped: usize,
    unmet: usize,
}

/// The line of a failure's text that says why: the first that junit_annotate.py's INTERESTING
/// words mark (ctest's bare `Failed` message aside), else the first non-blank line.
fn first_line(s: &str) -> String {
    static RE: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    let re = RE
        .get_or_init(|| {
            regex::Regex::new(
                "Failure|FAILED|Failed|error|Error|Fatal|Refuse|Expected|Which is|Value of|Actual|\
                 Abort|abort|Segmentation|SIGSEGV|signal|timed out|Timeout|assert",
            )
            .ok()
        })
        .as_ref();
    let mut lines = s.lines().map(str::trim).filter(|l| !l.is_empty());
    let l = lines
        .clone()
        .find(|l| *l != "Failed" && re.is_some_and(|r| r.is_match(l)))
        .or_else(|| lines.next())
        .unwrap_or("");
    let mut out: String = l.chars().take(200).collect();
    if out.len() < l.len() {
        out.push('…');
    }
    out
}

fn sample(names: &[&str]) -> String {
    let shown: Vec<&str> = names.iter().take(5).copied().collect();
    let more = names.len().saturating_sub(shown.len());
    if more > 0 {
        format!("{} (and {more} more)", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// The workspace-relative file a failure's source path names: the longest suffix of its path
/// components that is a file of the workspace (a CI runner's absolute path included).
fn resolve_source(files: &dyn Files, path: &str) -> Option<String> {
    let parts: Vec<&str> = path
        .split(['/', '\\'])
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    let start = parts.len().saturating_sub(32);
    (start..parts.len())
        .map(|i| parts[i..].join("/"))
        .find(|rel| !rel.contains("..") && files.is_file(rel))
}

/// Where a finding about `case` of a lane points: the source line its failure names when that is
/// a workspace file, else the `<testcase>` line of the JUnit.
fn locate(files: &dyn Files, d: Diag<Code>, junit: &str, case: &Case) -> Diag<Code> {
    match case
        .source
        .as_ref()
        .and_then(|(p, l)| resolve_source(files, p).map(|r| (r, *l)))
    {
        Some((rel, line)) => d.at(rel, line, None),
        None => d.at(junit, case.line, None),
    }
}

pub(crate) enum Matcher {
    Exact(String),
    Glob(globset::GlobMatcher),
}

impl Matcher {
    pub(crate) fn new(pat: &str) -> Result<Matcher, globset::Error> {
        if pat.contains(['*', '?', '[']) {
            globset::GlobBuilder::new(pat)
                .literal_separator(false)
                .backslash_escape(true)
                .build()
                .map(|g| Matcher::Glob(g.compile_matcher()))
        } else {
            Ok(Matcher::Exact(pat.to_string()))
        }
    }
    pub(crate) fn is_match(&self, name: &str) -> bool {
        match self {
            Matcher::Exact(s) => s == name,
            Matcher::Glob(g) => g.is_match(name),
        }
    }
}

/// [`check`] over any [`Files`].
pub fn check_inputs(files: &dyn Files, cfg: &CtestConfig) -> Outcome<Code> {
    let mut diags = Vec::new();
    let mut inputs = vec![files.label()];
    let mut units = Vec::new();
    let mut tally = Tally::default();

    let mut seen = BTreeSet::new();
    for l in &cfg.lanes {
        if !seen.insert(l.name.get_ref().as_str()) {
            diags.push(
                Diag::error(
                    Code::Cts014,
                    format!("lane `{}` is configured twice", l.name.get_ref()),
                )
                .in_config(l.name.span().start),
            );
        }
    }

    let mut lanes: Vec<Lane<'_>> = Vec::new();
    for l in &cfg.lanes {
        let name = l.name.get_ref().as_str();
        let unit = format!("lane {name}");
        units.push(unit.clone());
        let at = l.name.span().start;
        let junit = read_lane_file(
            files,
            &l.junit,
            name,
            ("JUnit", " (run `ctest --output-junit` for this lane)"),
            at,
            &unit,
            &mut inputs,
            &mut diags,
        )
        .and_then(|b| match parse_junit(&b, &l.junit) {
            Ok(j) if j.cases.is_empty() => {
                diags.push(
                    Diag::error(
                        Code::Cts013,
                        format!(
                            "lane {name}: {} holds no <testcase>: the run checked nothing",
                            l.junit
                        ),
                    )
                    .file(&l.junit)
                    .in_unit(&unit),
                );
                None
            }
            Ok(j) => Some(j),
            Err(e) => {
                diags.push(
                    Diag::error(Code::Cts010, format!("lane {name}: {e}"))
                        .file(&l.junit)
                        .in_unit(&unit),
                );
                None
            }
        });
        let mut discovered = junit.as_ref().map(|j| {
            j.cases
                .iter()
                .map(|c| c.name.clone())
                .collect::<BTreeSet<_>>()
        });
        if let Some(list) = &l.list {
            let listed = read_lane_file(
                files,
                list,
                name,
                ("test listing", ""),
                at,
                &unit,
                &mut inputs,
                &mut diags,
            )
            .and_then(|b| match crate::test_names::parse(&b, Path::new(list)) {
                Ok(t) => Some(t.names),
                Err(e) => {
                    diags.push(
                        Diag::error(Code::Cts010, format!("lane {name}: {e}"))
                            .file(list)
                            .in_unit(&unit),
                    );
                    None
                }
            });
            if let (Some(listed), Some(j)) = (&listed, &junit) {
                stale(
                    files, cfg, name, &l.junit, list, listed, j, &unit, &mut diags,
                );
            }
            discovered = listed;
        }
        lanes.push(Lane {
            name,
            junit_rel: &l.junit,
            junit,
            discovered,
        });
    }

    for lane in &lanes {
        if let Some(j) = &lane.junit {
            for s in j.statuses().values() {
                tally.cases += 1;
                match s {
                    Status::Pass => tally.passed += 1,
                    Status::Fail => tally.failed += 1,
                    Status::Skip => tally.skipped += 1,
                }
            }
        }
    }

    if let Some(want) = &cfg.discovered {
        let want_set: BTreeSet<&str> = want.get_ref().iter().map(String::as_str).collect();
        for lane in &lanes {
            let Some(have) = &lane.discovered else {
                continue;
            };
            let have: BTreeSet<&str> = have.iter().map(String::as_str).collect();
            let missing: Vec<&str> = want_set.difference(&have).copied().collect();
            let extra: Vec<&str> = have.difference(&want_set).copied().collect();
            if !missing.is_empty() {
                diags.push(
                    Diag::error(
                        Code::Cts008,
                        format!(
                            "lane {}: {} configured test(s) not discovered: {}",
                            lane.name,
                            missing.len(),
                            sample(&missing)
                        ),
                    )
                    .in_config(want.span().start)
                    .in_unit(format!("lane {}", lane.name)),
                );
            }
            if !extra.is_empty() {
                diags.push(
                    Diag::error(
                        Code::Cts008,
                        format!(
                            "lane {}: {} discovered test(s) outside the configured set: {}",
                            lane.name,
                            extra.len(),
                            sample(&extra)
                        ),
                    )
                    .in_config(want.span().start)
                    .in_unit(format!("lane {}", lane.name)),
                );
            }
        }
    }

    // expectations, then every failed entry no expectation accounts for
    let mut judged: BTreeSet<(&str, &str)> = BTreeSet::new();
    for e in &cfg.expects {
        expect(e, &lanes, files, &mut diags, &mut judged, &mut tally);
    }
    for lane in &lanes {
        let Some(j) = &lane.junit else { continue };
        let mut said = BTreeSet::new();
        for c in &j.cases {
            if c.status != Status::Fail
                || judged.contains(&(lane.name, c.name.as_str()))
                || !said.insert(c.name.as_str())
            {
                continue;
            }
            let d = Diag::error(
                Code::Cts004,
                format!(
                    "lane {}: {} failed: {}",
                    lane.name,
                    c.name,
                    first_line(&c.message)
                ),
            )
            .in_unit(format!("lane {}", lane.name))
            .with_detail(serde_json::json!({
                "lane": lane.name,
                "test": c.name,
                "junit": format!("{}:{}", lane.junit_rel, c.line),
                "excerpt": c.message.chars().take(4000).collect::<String>(),
            }));
            diags.push(locate(files, d, lane.junit_rel, c));
        }
    }

    let mut baseline_word = "none".to_string();
    if let Some(b) = &cfg.baseline {
        inputs.push(format!("baseline {}", b.get_ref()));
        baseline_word = b.get_ref().clone();
        match read_baseline(files, b.get_ref()) {
            Ok(base) => compare(&base, &lanes, b.get_ref(), &mut diags),
            Err(e) => diags.push(
                Diag::error(Code::Cts011, e.to_string())
                    .file(b.get_ref())
                    .in_config(b.span().start),
            ),
        }
    }

    Outcome {
        headline: format!(
            "{} lanes / {} cases / {} passed / {} failed / {} skipped; {} expectations / {} unmet; baseline {}",
            cfg.lanes.len(),
            tally.cases,
            tally.passed,
            tally.failed,
            tally.skipped,
            cfg.expects.len(),
            tally.unmet,
            baseline_word
        ),
        diags,
        units,
        inputs,
        ..Outcome::default()
    }
    .figure("lanes", cfg.lanes.len())
    .figure("cases", tally.cases)
    .figure("passed", tally.passed)
    .figure("failed", tally.failed)
    .figure("skipped", tally.skipped)
    .figure("expectations", cfg.expects.len())
    .figure("unmet", tally.unmet)
}

/// One input file of a lane (`what` names it, and hints at the fix, when it is absent): its bytes, listed
/// among the run's inputs; a missing or unreadable file is a CTS010 error and None.
#[allow(clippy::too_many_arguments)]
fn read_lane_file(
    files: &dyn Files,
    rel: &str,
    lane: &str,
    (what, hint): (&str, &str),
    config_at: usize,
    unit: &str,
    inputs: &mut Vec<String>,
    diags: &mut Vec<Diag<Code>>,
) -> Option<Vec<u8>> {
    match files.read(rel) {
        Ok(Some(b)) => {
            inputs.push(format!("{lane}: {rel} ({} bytes)", b.len()));
            Some(b)
        }
        Ok(None) => {
            diags.push(
                Diag::error(
                    Code::Cts010,
                    format!("lane {lane}: no {what} at {rel}{hint}"),
                )
                .in_config(config_at)
                .in_unit(unit),
            );
            None
        }
        Err(e) => {
            diags.push(
                Diag::error(
                    Code::Cts010,
                    format!("lane {lane}: {rel}: cannot read: {e}"),
                )
                .file(rel)
                .in_unit(unit),
            );
            None
        }
    }
}

/// A lane's JUnit against the listing it claims to cover: the same names, and (with
/// `mtimes`) not older than the listing.
#[allow(clippy::too_many_arguments)]
fn stale(
    files: &dyn Files,
    cfg: &CtestConfig,
    lane: &str,
    junit_rel: &str,
    list: &str,
    listed: &BTreeSet<String>,
    j: &Junit,
    unit: &str,
    diags: &mut Vec<Diag<Code>>,
) {
    let ran: BTreeSet<&str> = j.cases.iter().map(|c| c.name.as_str()).collect();
    let listed_s: BTreeSet<&str> = listed.iter().map(String::as_str).collect();
    let not_run: Vec<&str> = listed_s.difference(&ran).copied().collect();
    let unlisted: Vec<&str> = ran.difference(&listed_s).copied().collect();
    if !not_run.is_empty() {
        diags.push(
            Diag::error(
                Code::Cts009,
                format!(
                    "lane {lane}: {junit_rel} has no entry for {} test(s) {list} lists: {} (the JUnit is older than the listing, or the run was partial)",
                    not_run.len(),
                    sample(&not_run)
                ),
            )
            .file(junit_rel)
            .in_unit(unit),
        );
    }
    if !unlisted.is_empty() {
        diags.push(
            Diag::error(
                Code::Cts009,
                format!(
                    "lane {lane}: {junit_rel} reports {} test(s) {list} does not list: {} (the two are from different builds)",
                    unlisted.len(),
                    sample(&unlisted)
                ),
            )
            .file(junit_rel)
            .in_unit(unit),
        );
    }
    if cfg.mtimes {
        if let (Some(jt), Some(lt)) = (files.mtime(junit_rel), files.mtime(list)) {
            if jt < lt {
                diags.push(
                    Diag::error(
                        Code::Cts009,
                        format!(
                            "lane {lane}: {junit_rel} is older than {list}, the listing it claims to cover: re-run the lane (or set `mtimes = false` for committed copies)"
                        ),
                    )
                    .file(junit_rel)
                    .in_unit(unit),
                );
            }
        }
    }
}

fn expect<'a>(
    e: &'a ExpectConfig,
    lanes: &'a [Lane<'a>],
    files: &dyn Files,
    diags: &mut Vec<Diag<Code>>,
    judged: &mut BTreeSet<(&'a str, &'a str)>,
    tally: &mut Tally,
) {
    let pat = e.name.get_ref();
    let at = e.name.span().start;
    let unit = format!("expect {pat}");
    let m = match Matcher::new(pat) {
        Ok(m) => m,
        Err(err) => {
            diags.push(
                Diag::error(
                    Code::Cts014,
                    format!("expectation `{pat}`: bad glob: {err}"),
                )
                .in_config(at)
                .in_unit(&unit),
            );
            return;
        }
    };
    for l in &e.lanes {
        if !lanes.iter().any(|k| k.name == l) {
            diags.push(
                Diag::error(
                    Code::Cts014,
                    format!("expectation `{pat}` names lane `{l}`, which [[ctest.lane]] does not configure"),
                )
                .in_config(at)
                .in_unit(&unit),
            );
        }
    }
    let why = e
        .why
        .as_deref()
        .map(|w| format!(" ({w})"))
        .unwrap_or_default();
    let mut matched = 0usize;
    let mut unread = false;
    for lane in lanes
        .iter()
        .filter(|l| e.lanes.is_empty() || e.lanes.iter().any(|n| n == l.name))
    {
        let Some(j) = &lane.junit else {
            unread = true;
            continue;
        };
        let statuses = j.statuses();
        for (name, status) in statuses {
            if !m.is_match(name) {
                continue;
            }
            matched += 1;
            judged.insert((lane.name, name));
            let want = e.outcome;
            let ok = match want {
                Expected::Pass => status == Status::Pass,
                Expected::Fail => status == Status::Fail,
            };
            if ok {
                continue;
            }
            tally.unmet += 1;
            let case = j
                .cases
                .iter()
                .rev()
                .find(|c| c.name == name && c.status == status)
                .or_else(|| j.cases.iter().find(|c| c.name == name));
            let (code, said) = match (want, status) {
                (Expected::Pass, Status::Fail) => (Code::Cts001, "failed".to_string()),
                (Expected::Pass, _) => (
                    Code::Cts001,
                    "was skipped (a skip is not a pass)".to_string(),
                ),
                (Expected::Fail, Status::Pass) => (
                    Code::Cts002,
                    "passed: the negative-control arm no longer goes red".to_string(),
                ),
                (Expected::Fail, _) => (
                    Code::Cts002,
                    "was skipped, so it proved nothing".to_string(),
                ),
            };
            let detail = case
                .map(|c| first_line(&c.message))
                .filter(|m| !m.is_empty())
                .map(|m| format!(": {m}"))
                .unwrap_or_default();
            let d = Diag::error(
                code,
                format!(
                    "lane {}: {name} {said} (expected {} by `{pat}`){why}{detail}",
                    lane.name,
                    want.as_str()
                ),
            )
            .in_unit(&unit);
            diags.push(match case {
                Some(c) => locate(files, d, lane.junit_rel, c),
                None => d.file(lane.junit_rel),
            });
        }
    }
    if matched == 0 && !unread {
        let scope = if e.lanes.is_empty() {
            "any lane".to_string()
        } else {
            format!("lane(s) {}", e.lanes.join(", "))
        };
        diags.push(
            Diag::error(
                Code::Cts003,
                format!(
                    "expectation `{pat}` ({}) matches no test in {scope}: nothing was checked",
                    e.outcome.as_str()
                ),
            )
            .in_config(at)
            .in_unit(&unit),
        );
    }
}

fn read_baseline(files: &dyn Files, rel: &str) -> Result<Baseline, ReadError> {
    let bytes = match files.read(rel) {
        Ok(Some(b)) => b,
        Ok(None) => {
            return Err(ReadError::NoBaseline {
                rel: rel.to_string(),
            })
        }
        Err(e) => {
            return Err(ReadError::Unreadable {
                rel: rel.to_string(),
                reason: Box::new(e),
            })
        }
    };
    let b: Baseline = serde_json::from_slice(&bytes).map_err(|reason| ReadError::NotABaseline {
        rel: rel.to_string(),
        line: reason.line(),
        column: reason.column(),
        reason,
    })?;
    if b.schema != 1 {
        return Err(ReadError::Schema {
            rel: rel.to_string(),
            schema: b.schema,
        });
    }
    Ok(b)
}

/// skip_census.py's `compare`: red for a new skip (pass -> skip included), a vanished name and
/// a missing lane; notes for a skip that now passes, new names and new lanes.
fn compare(base: &Baseline, lanes: &[Lane<'_>], rel: &str, diags: &mut Vec<Diag<Code>>) {
    for (lane, known) in &base.lanes {
        let unit = format!("lane {lane}");
        let current = lanes.iter().find(|l| l.name == lane);
        let Some(current) = current else {
            diags.push(
                Diag::error(
                    Code::Cts007,
                    format!("lane {lane}: the baseline knows it but [ctest] configures no such lane (the job did not run, or was renamed)"),
                )
                .file(rel)
                .in_unit(&unit),
            );
            continue;
        };
        let Some(j) = &current.junit else {
            diags.push(
                Diag::error(
                    Code::Cts007,
                    format!("lane {lane}: no readable JUnit in this run ({}): the job did not run, did not upload, or wrote a broken file", current.junit_rel),
                )
                .file(rel)
                .in_unit(&unit),
            );
            continue;
        };
        let now = j.statuses();
        let names: BTreeSet<&str> = known.names.iter().map(String::as_str).collect();
        let allowed: BTreeSet<&str> = known.skipped.iter().map(String::as_str).collect();
        for (name, s) in &now {
            if *s == Status::Skip && !allowed.contains(name) {
                let was = if names.contains(name) { "pass" } else { "new" };
                let case = j.cases.iter().find(|c| c.name == *name);
                let d = Diag::error(
                    Code::Cts005,
                    format!(
                        "lane {lane}: {name} SKIPPED (baseline: {was}){}",
                        case.map(|c| first_line(&c.message))
                            .filter(|m| !m.is_empty())
                            .map(|m| format!(": {m}"))
                            .unwrap_or_default()
                    ),
                )
                .in_unit(&unit);
                diags.push(match case {
                    Some(c) => d.at(current.junit_rel, c.line, None),
                    None => d.file(current.junit_rel),
                });
            }
        }
        for name in names.iter().filter(|n| !now.contains_key(*n)) {
            diags.push(
                Diag::error(
                    Code::Cts006,
                    format!("lane {lane}: {name} disappeared (names only grow; retire it in the baseline by name)"),
                )
                .file(current.junit_rel)
                .in_unit(&unit),
            );
        }
        for name in allowed
            .iter()
            .filter(|n| now.get(*n) == Some(&Status::Pass))
        {
            diags.push(
                Diag::note(
                    Code::Cts012,
                    format!("lane {lane}: {name} now PASSES (was skipped) - tighten the baseline with `mgctl lint ctest --write-baseline`"),
                )
                .file(rel)
                .in_unit(&unit),
            );
        }
        let added: Vec<&str> = now
            .keys()
            .filter(|n| !names.contains(*n))
            .copied()
            .collect();
        if !added.is_empty() {
            diags.push(
                Diag::note(
                    Code::Cts012,
                    format!(
                        "lane {lane}: {} new case(s), e.g. {}",
                        added.len(),
                        added[0]
                    ),
                )
                .file(rel)
                .in_unit(&unit),
            );
        }
    }
    for l in lanes.iter().filter(|l| !base.lanes.contains_key(l.name)) {
        let n = l.junit.as_ref().map_or(0, |j| j.statuses().len());
        diags.push(
            Diag::note(
                Code::Cts012,
                format!(
                    "lane {}: new lane ({n} cases) - add it to the baseline",
                    l.name
                ),
            )
            .file(rel)
            .in_unit(format!("lane {}", l.name)),
        );
    }
}

/// Why `--write-baseline` could not record one.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("[ctest] has no `baseline` to write")]
    NoBaseline,
    #[error("{0}")]
    Lane(String),
    #[error("{}: {what}: {source}", .path.display())]
    Io {
        path: PathBuf,
        what: &'static str,
        source: std::io::Error,
    },
    #[error("{}: exists and is not a regular file", .path.display())]
    NotAFile { path: PathBuf },
}

/// The baseline of today's run: every lane's names and skips (every lane must read).
pub fn baseline_of(files: &dyn Files, cfg: &CtestConfig) -> Result<Baseline, WriteError> {
    let mut lanes = BTreeMap::new();
    for l in &cfg.lanes {
        let name = l.name.get_ref();
        let b = match files.read(&l.junit) {
            Ok(Some(b)) => b,
            Ok(None) => {
                return Err(WriteError::Lane(format!(
                    "lane {name}: no JUnit at {}",
                    l.junit
                )))
            }
            Err(e) => return Err(WriteError::Lane(format!("lane {name}: {}: {e}", l.junit))),
        };
        let j = parse_junit(&b, &l.junit).map_err(|e| WriteError::Lane(e.to_string()))?;
        if j.cases.is_empty() {
            return Err(WriteError::Lane(format!(
                "lane {name}: {} holds no <testcase>",
                l.junit
            )));
        }
        let st = j.statuses();
        lanes.insert(
            name.clone(),
            BaselineLane {
                names: st.keys().map(|s| s.to_string()).collect(),
                skipped: st
                    .iter()
                    .filter(|(_, s)| **s == Status::Skip)
                    .map(|(n, _)| n.to_string())
                    .collect(),
            },
        );
    }
    Ok(Baseline { schema: 1, lanes })
}

/// `--write-baseline`: records today's run at `[ctest] baseline` under `root`, written beside
/// it and renamed (a reader never sees half a baseline). Returns the line to print.
pub fn write_baseline(root: &Path, cfg: &CtestConfig) -> Result<String, WriteError> {
    let rel = cfg
        .baseline
        .as_ref()
        .ok_or(WriteError::NoBaseline)?
        .get_ref();
    let b = baseline_of(&Disk(root.to_path_buf()), cfg)?;
    let path = root.join(rel);
    if path.exists() && !path.is_file() {
        return Err(WriteError::NotAFile { path });
    }
    let io = |what, p: &Path| {
        let path = p.to_path_buf();
        move |source| WriteError::Io { path, what, source }
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io("create", dir))?;
    }
    let mut text = serde_json::to_string_pretty(&b).unwrap_or_default();
    text.push('\n');
    let tmp = path.with_extension(format!("json.tmp-{}", std::process::id()));
    std::fs::write(&tmp, text).map_err(io("write", &tmp))?;
    std::fs::rename(&tmp, &path).map_err(io("replace", &path))?;
    let cases: usize = b.lanes.values().map(|l| l.names.len()).sum();
    let skipped: usize = b.lanes.values().map(|l| l.skipped.len()).sum();
    Ok(format!(
        "ctest status baseline written: {} lane(s), {cases} case(s), {skipped} skipped ({rel})",
        b.lanes.len()
    ))
}
