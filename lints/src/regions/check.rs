//! The `regions` gate's analysis as one entry point: config in, [`Outcome`] out, used by the
//! gate, its live controls and (through [`run_controls`]) its canned self-test.

use std::collections::BTreeMap;

use super::cfg::RegionsConfig;
use super::{Comparison, Dialect, Error, Problem, Side};
use crate::diag::{Control, Diag, Outcome};
use crate::source::{Overlay, Source};

diag::codes! {
    /// Finding codes of the `regions` gate (docs/codes.md).
    pub enum Code: "REG" {
        Reg001 = "REG001": "a protected region's body hashes differently from its baseline",
        Reg002 = "REG002": "a region name is defined zero or several times",
        Reg003 = "REG003": "a region's file is unreadable, a bad base ref, or no git repository",
        Reg004 = "REG004": "a pinned sha256 that is not 64 lowercase hex digits",
        Reg005 = "REG005": "the base ref defines a pinned region differently from its pin",
        Reg006 = "REG006": "an unpinned region with no base ref: only its extraction was checked",
    }
}

fn short(sha: &str) -> &str {
    &sha[..sha.len().min(12)]
}

fn line(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Diagnostics of a finished comparison: REG001 per mover, REG005/REG006 notes.
pub fn comparison_diags(c: &Comparison) -> Vec<Diag<Code>> {
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
            Diag::error(
                Code::Reg001,
                format!(
                    "{first}: {} `{}` differs from {against} ({} -> {}){eol}",
                    r.spec.kind.as_str(),
                    r.spec.name,
                    short(base),
                    short(&r.head.sha)
                ),
            )
            .at(r.spec.file.clone(), line(r.head.def.line), None)
            .in_unit(r.spec.name.clone())
            .with_detail(serde_json::json!({
                "base_sha": base,
                "head_sha": r.head.sha,
                "pinned": r.pinned(),
                "diff": super::report::diff(r, &c.base_label, &c.head_label),
            })),
        );
    }
    for r in &c.rows {
        if let Some(b) = r.base.pin_differs_from_ref() {
            out.push(
                Diag::note(
                    Code::Reg005,
                    format!(
                        "`{}` at '{}' hashes to {}, not its pin; the pin is the baseline",
                        r.spec.name,
                        c.base_label,
                        short(&b.sha)
                    ),
                )
                .file(r.spec.file.clone())
                .in_unit(r.spec.name.clone()),
            );
        }
        if !r.verified() {
            out.push(
                Diag::note(
                    Code::Reg006,
                    format!(
                        "`{}` has no pin and no base ref is configured: only its extraction was checked ({})",
                        r.spec.name,
                        short(&r.head.sha)
                    ),
                )
                .at(r.spec.file.clone(), line(r.head.def.line), None)
                .in_unit(r.spec.name.clone()),
            );
        }
    }
    out
}

/// Diagnostics for rows that could not be checked: REG002 (not exactly once), REG003
/// (unreadable), REG004 (bad pin, located at the pin in `config_text`).
pub fn problem_diags(problems: &[Problem], config_text: &str) -> Vec<Diag<Code>> {
    problems
        .iter()
        .map(|p| match p {
            Problem::NotExactlyOnce {
                name, file, hits, ..
            } => {
                let d = Diag::error(Code::Reg002, p.to_string()).in_unit(name.clone());
                match hits.first() {
                    Some((l, _)) => d.at(file.clone(), line(*l), None),
                    None => d.file(file.clone()),
                }
            }
            Problem::Unreadable { name, file, .. } => Diag::error(Code::Reg003, p.to_string())
                .file(file.clone())
                .in_unit(name.clone()),
            Problem::BadPin { name, pin } => {
                let d = Diag::error(Code::Reg004, p.to_string()).in_unit(name.clone());
                // Point at the pin in mgctl.toml.
                match config_text.find(&format!("\"{pin}\"")) {
                    Some(at) if !pin.is_empty() => d.in_config(at + 1),
                    _ => d,
                }
            }
        })
        .collect()
}

/// Checks every configured region of the working tree `src` against its pin or the `base` ref
/// (git is read at `src.root()`). `config_text` locates a bad pin.
pub fn check(src: &dyn Source, cfg: &RegionsConfig, config_text: &str) -> Outcome<Code> {
    let root = src.root();
    let head = Side::Source(src);
    let reg003 = |e: &dyn std::fmt::Display| {
        Outcome::could_not_run(vec![Diag::error(Code::Reg003, e.to_string())])
    };
    let repo;
    let base = match &cfg.base {
        None => None,
        Some(rev) => {
            repo = match super::open_repo(root) {
                Ok(r) => r,
                Err(e) => return reg003(&e),
            };
            match repo.resolve(rev) {
                Ok(at) => Some(Side::Commit { ws: &repo, at }),
                Err(e) => return reg003(&e),
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
    let mut o = match super::compare(base.as_ref(), &head, &cfg.regions, Dialect::Mgctl) {
        Ok(mut c) => {
            // pinned rows have only a hash as baseline: the workspace's git HEAD, when it
            // still holds the pinned body, gives the text to diff against
            if let Ok(repo) = super::open_repo(root) {
                if let Ok(at) = repo.resolve("HEAD") {
                    let side = Side::Commit { ws: &repo, at };
                    super::fill_pin_texts(&mut c, &side, Dialect::Mgctl);
                }
            }
            let moved = c.movers().count();
            let pinned = c.rows.iter().filter(|r| r.pinned()).count();
            let verified = c.rows.iter().filter(|r| r.verified()).count();
            let mut diags = comparison_diags(&c);
            diags.extend(problem_diags(&c.problems, config_text));
            let mut headline = format!(
                "{} regions / {pinned} pinned / {verified} verified / {moved} moved",
                c.rows.len()
            );
            if !c.problems.is_empty() {
                headline.push_str(&format!(" / {} could not be checked", c.problems.len()));
            }
            let o = Outcome {
                diags,
                headline,
                ..Outcome::default()
            }
            .figure("regions", c.rows.len())
            .figure("pinned", pinned)
            .figure("verified", verified)
            .figure("moved", moved);
            if c.problems.is_empty() {
                o
            } else {
                o.figure("unchecked", c.problems.len())
            }
        }
        Err(Error::CouldNotRun(p)) => Outcome::could_not_run(problem_diags(&p, config_text)),
        Err(e) => Outcome::could_not_run(vec![Diag::error(Code::Reg003, e.to_string())]),
    };
    o.units = units;
    o.inputs = inputs;
    o
}

/// The canned controls of [`super::selftest`]; a fixture that cannot be built is one failing
/// control. `neutered(name)` feeds that negative control its clean input.
pub fn run_controls(neutered: &dyn Fn(&str) -> bool) -> Vec<Control> {
    match super::selftest::run(neutered) {
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
    }
}

/// Live controls (issue 18 item 7): per pinned region (`live-<name>`), an empty statement
/// inserted before its closing brace in an in-memory overlay of `src` must make [`check`]
/// report REG001 for it. `neutered(name)` runs that control on the unmutated workspace.
pub fn live_controls(
    src: &dyn Source,
    cfg: &RegionsConfig,
    config_text: &str,
    neutered: &dyn Fn(&str) -> bool,
) -> Vec<Control> {
    let pinned: Vec<_> = cfg.regions.iter().filter(|r| r.sha256.is_some()).collect();
    if pinned.is_empty() {
        return vec![Control {
            name: "live".into(),
            expect_trip: false,
            tripped: false,
            detail: "no live control: no pinned region".into(),
        }];
    }
    // the unmutated extents, from the same extraction a real run uses
    let head = Side::Source(src);
    let specs: Vec<_> = pinned.iter().map(|r| (*r).clone()).collect();
    let (bodies, problems) = super::extract_side(&head, &specs, Dialect::Mgctl, |_| true);
    let mut out = Vec::new();
    for (spec, body) in specs.iter().zip(bodies) {
        let name = format!("live-{}", spec.name);
        let fail = |detail: String| Control {
            name: name.clone(),
            expect_trip: true,
            tripped: false,
            detail,
        };
        let Some(body) = body else {
            let why = problems
                .iter()
                .find(|p| match p {
                    Problem::NotExactlyOnce { name, .. }
                    | Problem::Unreadable { name, .. }
                    | Problem::BadPin { name, .. } => *name == spec.name,
                })
                .map_or_else(
                    || format!("{}: cannot be extracted", spec.name),
                    ToString::to_string,
                );
            out.push(fail(why));
            continue;
        };
        let mut files = BTreeMap::new();
        if !neutered(&name) {
            let mut bytes = match src.read(&spec.file) {
                Ok(b) => b,
                Err(e) => {
                    out.push(fail(format!("{}: cannot read: {e}", spec.file)));
                    continue;
                }
            };
            // inside the body: just before its closing brace
            let at = body.def.end.saturating_sub(1).min(bytes.len());
            bytes.insert(at, b';');
            files.insert(spec.file.clone(), bytes);
        }
        let overlay = Overlay { base: src, files };
        let outcome = check(&overlay, cfg, config_text);
        let hit = outcome
            .diags
            .iter()
            .find(|d| d.code == Code::Reg001 && d.unit.as_deref() == Some(spec.name.as_str()));
        out.push(Control {
            name: name.clone(),
            expect_trip: true,
            tripped: hit.is_some(),
            detail: match hit {
                Some(d) => format!("`;` inserted in `{}`: {}", spec.name, d.message),
                None => format!("`;` inserted in `{}` was not reported", spec.name),
            },
        });
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn canned_controls_behave() {
        let all = run_controls(&|_| false);
        assert!(all.iter().all(|c| c.expect_trip == c.tripped), "{all:?}");
    }

    #[test]
    fn an_edit_inside_a_pinned_region_goes_red_live() {
        let dir = tempfile::tempdir().unwrap();
        let file = "MG_Backend/Managers.cpp";
        std::fs::create_dir_all(dir.path().join("MG_Backend")).unwrap();
        std::fs::write(dir.path().join(file), super::super::selftest::SOURCE).unwrap();
        let cfg: RegionsConfig = toml::from_str(&format!(
            "[[region]]\nname = \"FlushPendingRangesFrom\"\nfile = \"{file}\"\nsha256 = \"{}\"\n",
            super::super::selftest::FLUSH_PIN
        ))
        .unwrap();
        let src = crate::source::Disk {
            root: dir.path().to_path_buf(),
        };
        assert!(check(&src, &cfg, "").passed());
        let live = live_controls(&src, &cfg, "", &|_| false);
        assert!(live.iter().all(|c| c.tripped), "{live:?}");
        let n = live_controls(&src, &cfg, "", &|_| true);
        assert!(n.iter().all(|c| !c.tripped), "{n:?}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join(file)).unwrap(),
            super::super::selftest::SOURCE
        );
    }
}
