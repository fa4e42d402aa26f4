//! The `test-sets` gate (issue 33, mechanism 2): set rules over the test lists of several lanes —
//! MobileGL's `scripts/ci/spawn_lane_parity.py` (the normalised lanes list the same names; an
//! empty lane is red) and `scripts/ci/split_coverage.py` (monolith ⊆ split ∪ exempt, each
//! exemption with a known reason class and an owner; an exemption about nothing, or no longer
//! needed, is red).
//!
//! parse: the listings go through [`crate::test_names::parse`] (`ctest -N`, json-v1, plain) or
//! [`crate::ctest::parse_junit`]; exemption rows through [`parse_exemptions`]. analysis:
//! [`analyse`] over files already read (the one entry point of the gate, its controls and its
//! live controls); [`outcome`] reads the workspace and calls it.

pub mod cfg;
pub mod controls;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use cfg::{SubsetConfig, TestSetsConfig, DEFAULT_OWNER, DEFAULT_REASONS};

use crate::ctest::check::Matcher;
use crate::diag::{Diag, Outcome};

diag::codes! {
    /// Finding codes of the `test-sets` gate (docs/codes.md).
    pub enum Code: "TSS" {
        Tss001 = "TSS001": "a name of one lane of an equal group is missing from another lane",
        Tss002 = "TSS002": "a lane a set rule compares is empty",
        Tss003 = "TSS003": "a name of a subset's lane is in none of its covering lanes and no exemption names it",
        Tss004 = "TSS004": "an exemption is stale: every name it matches is covered",
        Tss005 = "TSS005": "an exemption matches no name of the lane it exempts from",
        Tss006 = "TSS006": "an exemption row is malformed: no reason, unknown reason class, no owner, bad or repeated pattern",
        Tss007 = "TSS007": "a lane listing or an exemption table could not be read",
        Tss008 = "TSS008": "a normalize rule matches no name, or folds two names into one",
        Tss009 = "TSS009": "the [test_sets] config is inconsistent: unknown or repeated lane, bad regex, a group of fewer than two lanes",
    }
}

/// The bytes of every file the analysis reads, by workspace-relative path (Err: why not).
pub type Files = BTreeMap<String, std::io::Result<Vec<u8>>>;

/// Every workspace-relative path the configuration reads.
pub fn paths(cfg: &TestSetsConfig) -> Vec<&str> {
    let mut out: Vec<&str> = cfg.lanes.iter().map(|l| l.listing.as_str()).collect();
    out.extend(cfg.subset.iter().filter_map(|s| s.exemptions.as_deref()));
    out
}

/// The configured files of the workspace at `root`, read.
pub fn read_files(root: &Path, cfg: &TestSetsConfig) -> Files {
    paths(cfg)
        .into_iter()
        .map(|rel| (rel.to_string(), diag::walk::read(&root.join(rel))))
        .collect()
}

/// Reads the configured files of the workspace at `root` and runs [`analyse`].
pub fn outcome(root: &Path, cfg: &TestSetsConfig) -> Outcome<Code> {
    analyse(&read_files(root, cfg), cfg)
}

/// One exemption row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exemption {
    pub line: u32,
    pub pattern: String,
    pub class: String,
    pub reason: String,
}

/// Parses an exemption table: `PATTERN  REASON-CLASS  REASON…` per row (upstream's
/// `split_coverage_exemptions.txt` shape), blank lines and `#` comments skipped. Bad rows are
/// TSS006 findings at their line; the good rows are returned.
pub fn parse_exemptions(
    text: &str,
    rel: &str,
    reasons: &[String],
    owner: &regex::Regex,
    diags: &mut Vec<Diag<Code>>,
) -> Vec<Exemption> {
    let mut rows = Vec::new();
    let mut seen = BTreeSet::new();
    for (i, raw) in text.lines().enumerate() {
        let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let row = raw.trim();
        if row.is_empty() || row.starts_with('#') {
            continue;
        }
        let mut bad = |msg: String| diags.push(Diag::error(Code::Tss006, msg).at(rel, line, None));
        let (pattern, rest) = row.split_once(char::is_whitespace).unwrap_or((row, ""));
        let rest = rest.trim_start();
        let (class, reason) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let reason = reason.trim();
        if class.is_empty() || reason.is_empty() {
            bad(format!(
                "`{row}` needs PATTERN REASON-CLASS REASON (the reason names its owner)"
            ));
            continue;
        }
        if let Err(e) = Matcher::new(pattern) {
            bad(format!("`{pattern}` is not a name or glob: {e}"));
            continue;
        }
        if !reasons.iter().any(|r| r == class) {
            bad(format!(
                "reason class `{class}` of `{pattern}` is not one of {}",
                reasons.join(", ")
            ));
            continue;
        }
        if !owner.is_match(reason) {
            bad(format!(
                "exemption `{pattern}` names no owner (its reason must match `{}`): a row without an owner outlives everyone's memory of it",
                owner.as_str()
            ));
            continue;
        }
        if !seen.insert(pattern.to_string()) {
            bad(format!("exemption `{pattern}` is listed twice"));
            continue;
        }
        rows.push(Exemption {
            line,
            pattern: pattern.to_string(),
            class: class.to_string(),
            reason: reason.to_string(),
        });
    }
    rows
}

/// Why a lane's listing names no tests: it is not a listing the workspace reads elsewhere.
#[derive(Debug, thiserror::Error)]
enum ListingError {
    #[error(transparent)]
    Junit(#[from] crate::ctest::JunitError),
    #[error(transparent)]
    Names(#[from] crate::test_names::Error),
}

/// A lane's raw names, from any listing format the workspace reads elsewhere.
fn raw_names(bytes: &[u8], rel: &str) -> Result<BTreeSet<String>, ListingError> {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(64)]).into_owned();
    if head
        .trim_start_matches('\u{feff}')
        .trim_start()
        .starts_with('<')
    {
        let j = crate::ctest::parse_junit(bytes, rel)?;
        Ok(j.cases.into_iter().map(|c| c.name).collect())
    } else {
        Ok(crate::test_names::parse(bytes, Path::new(rel))?.names)
    }
}

/// One lane after normalisation: normalised name → the raw name it came from.
#[derive(Debug, Clone, Default)]
struct Lane {
    listing: String,
    names: BTreeMap<String, String>,
}

/// What a live control plants after the lanes are read (never in a real run).
#[derive(Debug, Clone)]
pub(crate) enum Plant {
    None,
    /// Add a name to a lane's normalised set.
    AddName(String, String),
    /// Cover every name of subset `i`'s `of` lane.
    CoverAll(usize),
}

fn config_diags(cfg: &TestSetsConfig, diags: &mut Vec<Diag<Code>>) -> Vec<Vec<regex::Regex>> {
    let mut seen = BTreeSet::new();
    for l in &cfg.lanes {
        if !seen.insert(l.name.get_ref().as_str()) {
            diags.push(
                Diag::error(
                    Code::Tss009,
                    format!("lane `{}` is configured twice", l.name.get_ref()),
                )
                .in_config(l.name.span().start),
            );
        }
    }
    let known = |n: &str| cfg.lanes.iter().any(|l| l.name.get_ref() == n);
    let unknown = |names: &[String], at: usize, diags: &mut Vec<Diag<Code>>| {
        for n in names.iter().filter(|n| !known(n)) {
            diags.push(
                Diag::error(
                    Code::Tss009,
                    format!("lane `{n}` is not a [[test_sets.lane]]"),
                )
                .in_config(at),
            );
        }
    };
    for e in &cfg.equal {
        unknown(e.lanes.get_ref(), e.lanes.span().start, diags);
        let distinct: BTreeSet<&String> = e.lanes.get_ref().iter().collect();
        if distinct.len() < 2 {
            diags.push(
                Diag::error(
                    Code::Tss009,
                    "a [[test_sets.equal]] group needs at least two distinct lanes",
                )
                .in_config(e.lanes.span().start),
            );
        }
    }
    for s in &cfg.subset {
        unknown(
            std::slice::from_ref(s.of.get_ref()),
            s.of.span().start,
            diags,
        );
        unknown(s.within.get_ref(), s.within.span().start, diags);
        if s.within.get_ref().is_empty() {
            diags.push(
                Diag::error(
                    Code::Tss009,
                    "a [[test_sets.subset]] needs at least one `within` lane",
                )
                .in_config(s.within.span().start),
            );
        }
        if let Some(o) = &s.owner {
            if let Err(e) = regex::Regex::new(o.get_ref()) {
                diags.push(
                    Diag::error(Code::Tss009, format!("owner regex: {e}"))
                        .in_config(o.span().start),
                );
            }
        }
    }
    cfg.lanes
        .iter()
        .map(|l| {
            l.normalize
                .iter()
                .filter_map(|n| match regex::Regex::new(n.regex.get_ref()) {
                    Ok(r) => Some(r),
                    Err(e) => {
                        diags.push(
                            Diag::error(Code::Tss009, format!("normalize regex: {e}"))
                                .in_config(n.regex.span().start),
                        );
                        None
                    }
                })
                .collect()
        })
        .collect()
}

fn read_lane(
    files: &Files,
    l: &cfg::LaneConfig,
    rules: &[regex::Regex],
    diags: &mut Vec<Diag<Code>>,
) -> Option<Lane> {
    let rel = &l.listing;
    let raw = match files.get(rel) {
        Some(Ok(b)) => raw_names(b, rel).map_err(|e| e.to_string()),
        Some(Err(e)) => Err(format!("{rel}: cannot read: {e}")),
        None => Err(format!("{rel}: not read")),
    };
    let raw = match raw {
        Ok(r) => r,
        Err(e) => {
            diags.push(Diag::error(Code::Tss007, e).file(rel.clone()));
            return None;
        }
    };
    let mut lane = Lane {
        listing: rel.clone(),
        names: BTreeMap::new(),
    };
    let mut hits = vec![0usize; rules.len()];
    for name in raw {
        let mut n = name.clone();
        for (i, r) in rules.iter().enumerate() {
            if r.is_match(&n) {
                hits[i] += 1;
                n = r.replace(&n, l.normalize[i].replace.as_str()).into_owned();
            }
        }
        if let Some(first) = lane.names.get(&n) {
            diags.push(
                Diag::error(
                    Code::Tss008,
                    format!(
                        "lane `{}`: `{first}` and `{name}` both normalise to `{n}`: the set would silently lose one",
                        l.name.get_ref()
                    ),
                )
                .file(rel.clone())
                .in_unit(n.clone()),
            );
            continue;
        }
        lane.names.insert(n, name);
    }
    for (i, h) in hits.iter().enumerate() {
        // An empty lane is TSS002's; its rules match nothing for that reason alone.
        if *h == 0 && !lane.names.is_empty() {
            let rule = &l.normalize[i].regex;
            diags.push(
                Diag::error(
                    Code::Tss008,
                    format!(
                        "lane `{}`: normalize rule `{}` matches no name of {rel}",
                        l.name.get_ref(),
                        rule.get_ref()
                    ),
                )
                .in_config(rule.span().start),
            );
        }
    }
    Some(lane)
}

/// The set rules of `cfg` over the listings in `files`.
pub fn analyse(files: &Files, cfg: &TestSetsConfig) -> Outcome<Code> {
    analyse_planted(files, cfg, &Plant::None)
}

#[derive(Default)]
struct Tally {
    missing: usize,
    uncovered: usize,
    exempt: usize,
    stale: usize,
}

pub(crate) fn analyse_planted(files: &Files, cfg: &TestSetsConfig, plant: &Plant) -> Outcome<Code> {
    let mut diags = Vec::new();
    let rules = config_diags(cfg, &mut diags);
    let mut lanes: BTreeMap<&str, Lane> = BTreeMap::new();
    let mut unreadable = false;
    for (l, r) in cfg.lanes.iter().zip(&rules) {
        match read_lane(files, l, r, &mut diags) {
            Some(lane) => {
                lanes.insert(l.name.get_ref(), lane);
            }
            None => unreadable = true,
        }
    }
    if let Plant::AddName(lane, name) = plant {
        if let Some(l) = lanes.get_mut(lane.as_str()) {
            l.names.insert(name.clone(), name.clone());
        }
    }
    let inputs: Vec<String> = paths(cfg).into_iter().map(str::to_string).collect();
    if unreadable || diags.iter().any(|d| d.code == Code::Tss009) {
        let mut o = Outcome::could_not_run(diags);
        o.inputs = inputs;
        return o;
    }
    let mut t = Tally::default();
    let mut units = BTreeSet::new();
    for e in &cfg.equal {
        equal(&lanes, e.lanes.get_ref(), &mut t, &mut diags);
        units.insert(format!("equal {}", e.lanes.get_ref().join(" = ")));
    }
    for (i, s) in cfg.subset.iter().enumerate() {
        let cover_all = matches!(plant, Plant::CoverAll(j) if *j == i);
        subset(files, &lanes, s, cover_all, &mut t, &mut diags);
        units.insert(format!(
            "subset {} of {}",
            s.of.get_ref(),
            s.within.get_ref().join(" + ")
        ));
    }
    let headline = format!(
        "{} lanes / {} equal, {} subset: {} missing, {} uncovered, {} exempt, {} stale",
        cfg.lanes.len(),
        cfg.equal.len(),
        cfg.subset.len(),
        t.missing,
        t.uncovered,
        t.exempt,
        t.stale
    );
    let mut o = Outcome {
        diags,
        headline,
        units: units.into_iter().collect(),
        inputs,
        ..Outcome::default()
    };
    for (name, lane) in &lanes {
        o = o.figure(&format!("lane.{name}"), lane.names.len());
    }
    o.figure("missing", t.missing)
        .figure("uncovered", t.uncovered)
        .figure("exempt", t.exempt)
        .figure("stale", t.stale)
}

fn empty_lane(name: &str, lane: &Lane) -> Diag<Code> {
    Diag::error(
        Code::Tss002,
        format!(
            "lane `{name}` ({}) lists no tests: an empty set compares equal to nothing and covers nothing",
            lane.listing
        ),
    )
    .file(lane.listing.clone())
}

fn equal(
    lanes: &BTreeMap<&str, Lane>,
    group: &[String],
    t: &mut Tally,
    diags: &mut Vec<Diag<Code>>,
) {
    let members: Vec<(&str, &Lane)> = group
        .iter()
        .filter_map(|n| lanes.get(n.as_str()).map(|l| (n.as_str(), l)))
        .collect();
    let mut empty = false;
    for (n, l) in &members {
        if l.names.is_empty() {
            diags.push(empty_lane(n, l));
            empty = true;
        }
    }
    if empty {
        return;
    }
    let union: BTreeSet<&str> = members
        .iter()
        .flat_map(|(_, l)| l.names.keys().map(String::as_str))
        .collect();
    for (n, l) in &members {
        for name in union.iter().filter(|x| !l.names.contains_key(**x)) {
            let has: Vec<&str> = members
                .iter()
                .filter(|(_, o)| o.names.contains_key(*name))
                .map(|(m, _)| *m)
                .collect();
            t.missing += 1;
            diags.push(
                Diag::error(
                    Code::Tss001,
                    format!(
                        "`{name}` is in lane {} but not in lane `{n}` ({}): the lanes of a group must list the same names",
                        has.join(", "),
                        l.listing
                    ),
                )
                .file(l.listing.clone())
                .in_unit(name.to_string()),
            );
        }
    }
}

fn subset(
    files: &Files,
    lanes: &BTreeMap<&str, Lane>,
    s: &SubsetConfig,
    cover_all: bool,
    t: &mut Tally,
    diags: &mut Vec<Diag<Code>>,
) {
    let Some(of) = lanes.get(s.of.get_ref().as_str()) else {
        return;
    };
    if of.names.is_empty() {
        diags.push(empty_lane(s.of.get_ref(), of));
        return;
    }
    let mut covered: BTreeSet<&str> = s
        .within
        .get_ref()
        .iter()
        .filter_map(|w| lanes.get(w.as_str()))
        .flat_map(|l| l.names.keys().map(String::as_str))
        .collect();
    if cover_all {
        covered.extend(of.names.keys().map(String::as_str));
    }
    let mut exempt: BTreeSet<&str> = BTreeSet::new();
    if let Some(rel) = &s.exemptions {
        let text = match files.get(rel) {
            Some(Ok(b)) => Ok(String::from_utf8_lossy(b).into_owned()),
            Some(Err(e)) => Err(format!("{rel}: cannot read: {e}")),
            None => Err(format!("{rel}: not read")),
        };
        let text = match text {
            Ok(t) => t,
            Err(e) => {
                diags.push(Diag::error(Code::Tss007, e).file(rel.clone()));
                return;
            }
        };
        let reasons: Vec<String> = s
            .reasons
            .clone()
            .unwrap_or_else(|| DEFAULT_REASONS.iter().map(|r| r.to_string()).collect());
        let owner_src = s.owner.as_ref().map_or(DEFAULT_OWNER, |o| o.get_ref());
        let Ok(owner) = regex::Regex::new(owner_src) else {
            return; // reported by config_diags
        };
        for row in parse_exemptions(&text, rel, &reasons, &owner, diags) {
            let Ok(m) = Matcher::new(&row.pattern) else {
                continue;
            };
            let matched: Vec<&str> = of
                .names
                .keys()
                .map(String::as_str)
                .filter(|n| m.is_match(n))
                .collect();
            let needed: Vec<&str> = matched
                .iter()
                .copied()
                .filter(|n| !covered.contains(n))
                .collect();
            if matched.is_empty() {
                diags.push(
                    Diag::error(
                        Code::Tss005,
                        format!(
                            "exemption `{}` matches no name of lane `{}`: an exemption about nothing (renamed or deleted test?)",
                            row.pattern,
                            s.of.get_ref()
                        ),
                    )
                    .at(rel.clone(), row.line, None)
                    .in_unit(row.pattern.clone()),
                );
            } else if needed.is_empty() {
                t.stale += 1;
                diags.push(
                    Diag::error(
                        Code::Tss004,
                        format!(
                            "exemption `{}` is stale: {} now in {}; delete the row so the next regression is not exempt",
                            row.pattern,
                            if matched.len() == 1 { format!("`{}` is", matched[0]) } else { format!("all {} names it matches are", matched.len()) },
                            s.within.get_ref().join(" + ")
                        ),
                    )
                    .at(rel.clone(), row.line, None)
                    .in_unit(row.pattern.clone()),
                );
            }
            exempt.extend(needed);
        }
    }
    t.exempt += exempt.len();
    for name in of
        .names
        .keys()
        .filter(|n| !covered.contains(n.as_str()) && !exempt.contains(n.as_str()))
    {
        t.uncovered += 1;
        let mut d = Diag::error(
            Code::Tss003,
            format!(
                "`{name}` of lane `{}` is in none of {} and no exemption names it",
                s.of.get_ref(),
                s.within.get_ref().join(", ")
            ),
        )
        .file(of.listing.clone())
        .in_unit(name.clone());
        if let Some(rel) = &s.exemptions {
            d.message
                .push_str(&format!(": register it there or add a row to {rel}"));
        }
        diags.push(d);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
