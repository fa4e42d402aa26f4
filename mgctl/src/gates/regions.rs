//! Gate `regions`: untouched regions (MobileGL's G5). In `check` the subject is the working tree;
//! the baseline is each row's pinned SHA-256 and, when `base` is configured, that git ref for
//! unpinned rows. `mgctl lint regions BASE [HEAD]` compares two refs.

pub use lints::regions::cfg::{mobilegl_profile, RegionsConfig};
use lints::regions::{self, Comparison, Dialect, Problem, Side};

use crate::gate::{CheckCtx, Control, Finding, Gate, GateReport, Location, Neutered, SelfTest};

pub const GATE: &str = "regions";

fn short(sha: &str) -> &str {
    &sha[..sha.len().min(12)]
}

/// Findings of a finished comparison: REG001 per mover, REG005/REG006 notes.
pub fn comparison_findings(c: &Comparison) -> Vec<Finding> {
    let mut out = Vec::new();
    for (i, r) in c.movers().enumerate() {
        let base = r.base.sha().unwrap_or_default();
        let against = if r.pinned() {
            "the pinned sha".to_string()
        } else {
            format!("'{}'", c.base_label)
        };
        let eol = if r.line_endings_only() {
            " - line endings only (CRLF vs LF)"
        } else {
            ""
        };
        let first = if i == 0 {
            "first region that moved"
        } else {
            "also moved"
        };
        out.push(
            Finding::error(
                GATE,
                "REG001",
                format!(
                    "{first}: {} `{}` differs from {against} ({} -> {}){eol}",
                    r.spec.kind.as_str(),
                    r.spec.name,
                    short(base),
                    short(&r.head.sha)
                ),
            )
            .at(Location::at(
                r.spec.file.clone(),
                r.head.def.line as u32,
                None,
            ))
            .in_unit(r.spec.name.clone())
            .with_detail(serde_json::json!({
                "base_sha": base,
                "head_sha": r.head.sha,
                "pinned": r.pinned(),
                "diff": regions::report::diff(r, &c.base_label, &c.head_label),
            })),
        );
    }
    for r in &c.rows {
        if let Some(b) = r.base.pin_differs_from_ref() {
            out.push(
                Finding::note(
                    GATE,
                    "REG005",
                    format!(
                        "`{}` at '{}' hashes to {}, not its pin; the pin is the baseline",
                        r.spec.name,
                        c.base_label,
                        short(&b.sha)
                    ),
                )
                .at(Location::file(r.spec.file.clone()))
                .in_unit(r.spec.name.clone()),
            );
        }
        if !r.verified() {
            out.push(
                Finding::note(
                    GATE,
                    "REG006",
                    format!(
                        "`{}` has no pin and no base ref is configured: only its extraction was checked ({})",
                        r.spec.name,
                        short(&r.head.sha)
                    ),
                )
                .at(Location::at(r.spec.file.clone(), r.head.def.line as u32, None))
                .in_unit(r.spec.name.clone()),
            );
        }
    }
    out
}

/// Findings for an extraction that could not run: REG002 (not exactly once), REG003
/// (unreadable), REG004 (bad pin).
pub fn problem_findings(problems: &[Problem], ctx: &CheckCtx) -> Vec<Finding> {
    problems
        .iter()
        .map(|p| match p {
            Problem::NotExactlyOnce {
                name, file, hits, ..
            } => {
                let loc = match hits.first() {
                    Some((line, _)) => Location::at(file.clone(), *line as u32, None),
                    None => Location::file(file.clone()),
                };
                Finding::error(GATE, "REG002", p.to_string())
                    .at(loc)
                    .in_unit(name.clone())
            }
            Problem::Unreadable { name, file, .. } => Finding::error(GATE, "REG003", p.to_string())
                .at(Location::file(file.clone()))
                .in_unit(name.clone()),
            Problem::BadPin { name, pin } => {
                let f = Finding::error(GATE, "REG004", p.to_string()).in_unit(name.clone());
                // Point at the pin in mgctl.toml.
                match ctx.config_text.find(&format!("\"{pin}\"")) {
                    Some(at) if !pin.is_empty() => f.at(ctx.config_location(at + 1)),
                    _ => f,
                }
            }
        })
        .collect()
}

pub struct RegionsGate;

impl Gate for RegionsGate {
    fn name(&self) -> &'static str {
        GATE
    }

    fn description(&self) -> &'static str {
        "untouched regions: protected function/namespace bodies hash to their pins (G5)"
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        match &ctx.config.regions {
            None => Some("no [regions] section in mgctl.toml".into()),
            Some(c) if c.regions.is_empty() => Some("[regions] lists no region".into()),
            Some(_) => None,
        }
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        let Some(cfg) = &ctx.config.regions else {
            return GateReport::skipped(GATE, "no [regions] section in mgctl.toml");
        };
        let head = Side::WorkTree {
            root: ctx.root.clone(),
        };
        let repo;
        let base = match &cfg.base {
            None => None,
            Some(rev) => {
                repo = match regions::open_repo(&ctx.root) {
                    Ok(r) => r,
                    Err(e) => {
                        return GateReport::could_not_run(GATE, "REG003", e.to_string(), None)
                    }
                };
                match repo.resolve(rev) {
                    Ok(at) => Some(Side::Commit { ws: &repo, at }),
                    Err(e) => {
                        return GateReport::could_not_run(GATE, "REG003", e.to_string(), None)
                    }
                }
            }
        };
        let mut inputs: Vec<String> = cfg.regions.iter().map(|r| r.file.clone()).collect();
        inputs.sort();
        inputs.dedup();
        if let Some(b) = &base {
            inputs.push(format!(
                "base {} ({})",
                b.label(),
                b.commit().unwrap_or_default()
            ));
        }
        let units: Vec<String> = cfg.regions.iter().map(|r| r.name.clone()).collect();
        let mut report = match regions::compare(base.as_ref(), &head, &cfg.regions, Dialect::Mgctl)
        {
            Ok(mut c) => {
                // pinned rows have only a hash as baseline: the workspace's git HEAD, when it
                // still holds the pinned body, gives the text to diff against
                if let Ok(repo) = regions::open_repo(&ctx.root) {
                    if let Ok(at) = repo.resolve("HEAD") {
                        let side = Side::Commit { ws: &repo, at };
                        regions::fill_pin_texts(&mut c, &side, Dialect::Mgctl);
                    }
                }
                let moved = c.movers().count();
                let pinned = c.rows.iter().filter(|r| r.pinned()).count();
                let verified = c.rows.iter().filter(|r| r.verified()).count();
                let mut findings = comparison_findings(&c);
                findings.extend(problem_findings(&c.problems, ctx));
                let mut headline = format!(
                    "{} regions / {pinned} pinned / {verified} verified / {moved} moved",
                    c.rows.len()
                );
                if !c.problems.is_empty() {
                    headline.push_str(&format!(" / {} could not be checked", c.problems.len()));
                }
                let r = GateReport::from_findings(GATE, findings, headline)
                    .figure("regions", c.rows.len())
                    .figure("pinned", pinned)
                    .figure("verified", verified)
                    .figure("moved", moved);
                if c.problems.is_empty() {
                    r
                } else {
                    r.figure("unchecked", c.problems.len())
                }
            }
            Err(regions::Error::CouldNotRun(p)) => {
                GateReport::from_findings(GATE, problem_findings(&p, ctx), "could not run")
            }
            Err(e) => GateReport::could_not_run(GATE, "REG003", e.to_string(), None),
        };
        report.units = units;
        report.inputs = inputs;
        report
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        let controls = match regions::selftest::run(&|name| neutered.contains(GATE, name)) {
            Ok(results) => results
                .into_iter()
                .map(|c| Control {
                    name: c.name.to_string(),
                    expect_trip: c.expect_trip,
                    tripped: c.tripped,
                    detail: c.detail,
                })
                .collect(),
            Err(e) => vec![Control {
                name: "fixture".into(),
                expect_trip: false,
                tripped: true,
                detail: format!("could not build the temporary repository: {e}"),
            }],
        };
        SelfTest::from_controls(controls)
    }
}
