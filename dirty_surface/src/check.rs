//! `--check`: the mapping against the scan in both directions, the answer vocabulary, the
//! non-render bit verdicts and the render-state truth half, in upstream's order and wording
//! (spec §1.11, §1.14).

use std::collections::{BTreeMap, BTreeSet};

use crate::def::{Def, NON_BIT_ANSWERS};
use crate::nonrender::{Verdict, Verdicts};
use crate::render::Derived;
use crate::tracker::{Bits, RENDER_BITS};

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProblemKind {
    Unmapped,
    StaleRow,
    Duplicate,
    BadAnswer,
    Undecided,
    UnderFiringBit,
    StaleMark,
    Unverifiable,
    MissingPublisher,
    UnderFiringRender,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Problem {
    pub kind: ProblemKind,
    pub mutator: String,
    /// Upstream's text, without the `dirty-surface: ` prefix.
    pub text: String,
    /// The def line the problem is about, when a row or mark is.
    pub def_line: Option<usize>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct CheckResult {
    pub problems: Vec<Problem>,
    /// The green lines (without prefix), valid when `problems` is empty.
    pub green: Vec<String>,
}

pub struct CheckInput<'a> {
    pub scanned: &'a BTreeSet<String>,
    pub def: &'a Def,
    pub bits: &'a Bits,
    pub render: &'a Derived,
    pub verdicts: &'a Verdicts,
    /// Read the def as upstream does (rows with spaces around `|` ignored).
    pub upstream: bool,
    /// Display form of the write-analysis roots for the last green line.
    pub write_roots: String,
}

fn join(set: &BTreeSet<&str>) -> String {
    if set.is_empty() {
        "none".to_string()
    } else {
        set.iter().copied().collect::<Vec<_>>().join("|")
    }
}

pub fn check(inp: &CheckInput<'_>) -> CheckResult {
    let map = inp.def.map(inp.upstream);
    let mut problems = Vec::new();
    let mut push = |kind, mutator: &str, text: String, def_line: Option<usize>| {
        problems.push(Problem {
            kind,
            mutator: mutator.to_string(),
            text,
            def_line,
        });
    };
    let line_of = |m: &str| map.get(m).map(|r| r.line);

    // 1-3: completeness both ways, duplicates.
    for m in inp.scanned.iter().filter(|m| !map.contains_key(m.as_str())) {
        push(
            ProblemKind::Unmapped,
            m,
            format!("UNMAPPED mutator {m} - add a row to MG_Pipe/DirtySurface.def"),
            None,
        );
    }
    for m in map.keys().filter(|m| !inp.scanned.contains(**m)) {
        push(
            ProblemKind::StaleRow,
            m,
            format!("STALE row {m} - the scan no longer finds this mutator; delete the row"),
            line_of(m),
        );
    }
    for m in inp.def.duplicates(inp.upstream) {
        push(
            ProblemKind::Duplicate,
            m,
            format!("DUPLICATE row {m}"),
            line_of(m),
        );
    }
    // 4: vocabulary.
    let bit_names: BTreeSet<&str> = inp.bits.names.iter().map(String::as_str).collect();
    for (m, row) in &map {
        let toks = row.tokens();
        if toks.is_empty() {
            push(
                ProblemKind::BadAnswer,
                m,
                format!("BAD answer for {m} - empty"),
                Some(row.line),
            );
            continue;
        }
        for t in &toks {
            if !bit_names.contains(t) && !NON_BIT_ANSWERS.contains(t) {
                push(
                    ProblemKind::BadAnswer,
                    m,
                    format!(
                        "BAD answer {t} for {m} - not a MGPipeDirty bit name and not one of {}",
                        NON_BIT_ANSWERS.join(", ")
                    ),
                    Some(row.line),
                );
            }
        }
        if toks.len() > 1
            && toks
                .iter()
                .any(|t| NON_BIT_ANSWERS.contains(t) && *t != "kPulledPartialShutter")
        {
            push(
                ProblemKind::BadAnswer,
                m,
                format!(
                    "BAD answer {} for {m} - a non-bit answer stands alone",
                    row.answer
                ),
                Some(row.line),
            );
        }
        if toks.contains("kPulledPartialShutter") && !toks.iter().any(|t| bit_names.contains(t)) {
            push(
                ProblemKind::BadAnswer,
                m,
                format!(
                    "BAD answer {} for {m} - kPulledPartialShutter has to NAME the bits that move on some of the paths that mutate; kPulledEveryVerb is the answer when none does",
                    row.answer
                ),
                Some(row.line),
            );
        }
    }
    // 5: non-render bits.
    let marks = inp.def.mark_sets();
    let mut undecided_lines = Vec::new();
    let (mut supported, mut coarse, mut undecided) = (0usize, 0usize, 0usize);
    for ((m, bit), v) in &inp.verdicts.pairs {
        let marked = marks
            .get(m.as_str())
            .is_some_and(|s| s.contains(bit.as_str()));
        let line = line_of(m);
        match v {
            Verdict::Undecided(why) => {
                if marked {
                    undecided += 1;
                    undecided_lines.push(format!("  UNDECIDED, no verdict: {m} <- {bit} ({why})"));
                } else {
                    push(
                        ProblemKind::Undecided,
                        m,
                        format!("UNDECIDED answer {bit} for {m} - {why}; a bit answer the derivation cannot decide is not a derived answer, so either widen the analysis or list the row in MGP_DIRTY_SURFACE_UNDECIDED_LIST with this reason"),
                        line,
                    );
                }
            }
            other => {
                if let Verdict::UnderFiring(why) = other {
                    push(
                        ProblemKind::UnderFiringBit,
                        m,
                        format!("UNDER-FIRING answer {bit} for {m} - {why}"),
                        line,
                    );
                }
                match other {
                    Verdict::Supported => supported += 1,
                    Verdict::Coarse(_) => coarse += 1,
                    _ => {}
                }
                if marked {
                    let word = match other {
                        Verdict::Supported => "SUPPORTED",
                        Verdict::Coarse(_) => "COARSE",
                        _ => "UNDER-FIRING",
                    };
                    push(
                        ProblemKind::StaleMark,
                        m,
                        format!("STALE undecided mark {bit} for {m} - the derivation now decides it ({word}); delete the mark"),
                        inp.def.marks.iter().find(|k| &k.mutator == m).map(|k| k.line),
                    );
                }
            }
        }
    }
    for mark in sorted_marks(inp.def) {
        let claimed = map.get(mark.0).is_some_and(|r| r.tokens().contains(mark.1));
        if !claimed {
            push(
                ProblemKind::StaleMark,
                mark.0,
                format!(
                    "STALE undecided mark {} for {} - no row claims that bit for that mutator",
                    mark.1, mark.0
                ),
                Some(mark.2),
            );
        }
    }
    // 6: render truth half.
    let mut render_rows = 0;
    for (m, row) in &map {
        let toks = row.tokens();
        let claimed: BTreeSet<&str> = toks
            .iter()
            .copied()
            .filter(|t| RENDER_BITS.contains(t))
            .collect();
        match inp.render.get(*m) {
            Some(derived) => {
                render_rows += 1;
                for bit in derived.difference(&claimed) {
                    push(
                        ProblemKind::MissingPublisher,
                        m,
                        format!("MISSING publisher {bit} for {m} - RenderState.cpp moves it on every path, so the row must name it (derived: {})", join(derived)),
                        Some(row.line),
                    );
                }
                for bit in claimed.difference(derived) {
                    push(
                        ProblemKind::UnderFiringRender,
                        m,
                        format!("UNDER-FIRING answer {bit} for {m} - RenderState.cpp does NOT move it on every path, so a shutter built on it would miss a mutation (derived: {})", join(derived)),
                        Some(row.line),
                    );
                }
            }
            None if !claimed.is_empty() => push(
                ProblemKind::Unverifiable,
                m,
                format!("UNVERIFIABLE answer {} for {m} - it claims a render-state publisher but RenderState.cpp has no such setter to derive it from", row.answer),
                Some(row.line),
            ),
            None => {}
        }
    }

    let mut green = Vec::new();
    if problems.is_empty() {
        let prose: BTreeSet<&str> = map
            .values()
            .filter(|r| !r.tokens().iter().any(|t| bit_names.contains(t)))
            .flat_map(|r| r.tokens().into_iter().collect::<Vec<_>>())
            .collect();
        let prose_rows = map
            .values()
            .filter(|r| !r.tokens().iter().any(|t| bit_names.contains(t)))
            .count();
        green.push(format!(
            "{} mutators, all mapped, no stale rows; {render_rows} render-state answers derived from RenderState.cpp and matching",
            map.len()
        ));
        green.push(format!(
            "{supported} other (mutator, bit) answers derived from their shutter in Tracker.h - supported at field level, under-firing only; {coarse} COARSE (a member in common, no field information, not counted); {undecided} UNDECIDED (listed in MGP_DIRTY_SURFACE_UNDECIDED_LIST, not counted); {prose_rows} rows carry a prose answer ({}) that no derivation checks",
            prose.iter().copied().collect::<Vec<_>>().join(", ")
        ));
        undecided_lines.sort();
        green.extend(undecided_lines);
        let s = &inp.verdicts.stats;
        green.push(format!(
            "the under-firing half read {} function bodies across {} files under {}, macros expanded first, both sides resolved to MEM:<member> + FIELD:<member>.<leaf>; {} of those bodies carry a write it could not attribute and taint whatever reaches them, {} of the {} mutators reach one; {} members are written outside those roots and any absence claim over one is undecided; a mutating call on a member-rooted lvalue and a call resolved by name both only WIDEN what a mutator is credited with, and a FIELD token is not scoped to a type",
            s.bodies, s.files, inp.write_roots, s.tainted_names, s.tainted_mutators, map.len(), s.outside_members
        ));
    }
    CheckResult { problems, green }
}

fn sorted_marks(def: &Def) -> Vec<(&str, &str, usize)> {
    let mut v: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for m in &def.marks {
        for b in &m.bits {
            v.entry((m.mutator.as_str(), b.as_str())).or_insert(m.line);
        }
    }
    v.into_iter().map(|((m, b), l)| (m, b, l)).collect()
}

/// Upstream's closing line for a red check.
pub fn red_line(n: usize) -> String {
    format!("{n} problem(s); the mapping must cover every mutator the scan finds, in both directions, every render-state answer must be the one RenderState.cpp actually publishes, and every other bit answer must be one the derivation can decide")
}
