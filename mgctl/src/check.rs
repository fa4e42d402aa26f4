//! The `check` runner: selects gates, runs them in parallel, and collects their reports.
//! It knows nothing about any one gate.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use gates::gate::{CheckCtx, Control, Finding, Gate, GateReport, Neutered, SelfTest, Verdict};

pub struct Selection {
    pub only: Vec<String>,
    pub skip: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
#[error("unknown gate `{name}` in {flag}; this build offers: {}", .offered.join(", "))]
pub struct UnknownGate {
    pub name: String,
    pub flag: &'static str,
    pub offered: Vec<&'static str>,
}

impl Selection {
    /// Every name must be a gate this build offers: a typo must not turn into a silent skip.
    pub fn validate(&self, gates: &[Box<dyn Gate>]) -> Result<(), UnknownGate> {
        let offered: Vec<&'static str> = gates.iter().map(|g| g.name()).collect();
        for (flag, names) in [("--only", &self.only), ("--skip", &self.skip)] {
            if let Some(bad) = names.iter().find(|n| !offered.contains(&n.as_str())) {
                return Err(UnknownGate {
                    name: bad.clone(),
                    flag,
                    offered,
                });
            }
        }
        Ok(())
    }

    /// Whether the user's flags select this gate.
    pub fn selects(&self, name: &str) -> bool {
        self.excluded(name).is_none()
    }

    /// Why the user's flags exclude this gate, if they do.
    fn excluded(&self, name: &str) -> Option<String> {
        if self.skip.iter().any(|s| s == name) {
            return Some("skipped by --skip".into());
        }
        if !self.only.is_empty() && !self.only.iter().any(|s| s == name) {
            return Some("not selected by --only".into());
        }
        None
    }
}

thread_local! {
    /// Time that gates stolen onto this thread spent inside the gate it is running: a gate
    /// waiting on its own parallel work runs other gates meanwhile ([`costliest_first`]).
    static NESTED: std::cell::Cell<Duration> = const { std::cell::Cell::new(Duration::ZERO) };
}

/// Runs one gate and times it, without the time of gates stolen into it.
fn timed(gate: &dyn Gate, f: impl FnOnce() -> GateReport) -> GateReport {
    let outer = NESTED.replace(Duration::ZERO);
    let start = Instant::now();
    // A gate must never panic; if one does, that gate fails as an internal error and the others run.
    let mut report =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|panic| {
            let what = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            GateReport::could_not_run(
                gate.name(),
                "INTERNAL",
                format!("internal error in gate (a bug in mgctl): {what}"),
                None,
            )
        });
    let all = start.elapsed();
    report.wall_ms = all
        .saturating_sub(NESTED.replace(outer + all))
        .as_secs_f64()
        * 1000.0;
    report
}

/// Runs the selected gates of `ctx` in parallel; reports come back sorted by gate name. `pre` may
/// stand in for a selected gate's report (a `[build]` that was refused or failed decides the
/// gates that read its outputs).
pub fn run_gates_with(
    ctx: &CheckCtx,
    gates: &[Box<dyn Gate>],
    sel: &Selection,
    pre: &(dyn Fn(&dyn Gate) -> Option<GateReport> + Sync),
) -> Vec<GateReport> {
    let mut reports: Vec<GateReport> = costliest_first(
        gates,
        |g| g.cost(),
        |gate| {
            if let Some(reason) = sel.excluded(gate.name()) {
                return GateReport::skipped(gate.name(), reason);
            }
            let pre = pre(gate.as_ref());
            let mut report = match (pre, gate.skip_reason(ctx)) {
                (Some(report), _) => report,
                (None, Some(reason)) => GateReport::skipped(gate.name(), reason),
                (None, None) => timed(gate.as_ref(), || gate.run(ctx)),
            };
            if ctx.config_path.is_none() {
                if let Verdict::Skipped { reason } = &mut report.verdict {
                    *reason = profile_reason(reason);
                }
            }
            sort_findings(&mut report.findings);
            report
        },
    );
    reports.sort_by(|a, b| a.gate.cmp(b.gate));
    reports
}

/// `f` over `items` on the rayon pool (one thread per core), costliest first: each thread
/// takes the costliest item not yet started whenever it frees up (list scheduling), so the run
/// ends about when its longest item does rather than when a long item started last does. On
/// the pool, a gate that waits on its own parallel work (dirty-surface, symbol rules) runs other
/// gates or their parts meanwhile, and no more threads than cores compete (plain threads beside
/// the pool's took a fifth longer on `check driver`, docs/performance.md "Session 26"). Results
/// in `items` order.
fn costliest_first<T: Sync, R: Send>(
    items: &[T],
    cost: impl Fn(&T) -> u32,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    use std::sync::{Mutex, PoisonError};
    let order = start_order(&items.iter().map(cost).collect::<Vec<_>>());
    let slots: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    // FIFO: every thread, the spawning one included, starts the oldest spawn, the costliest.
    rayon::scope_fifo(|s| {
        for &i in &order {
            let (f, slots) = (&f, &slots);
            s.spawn_fifo(move |_| {
                let r = f(&items[i]);
                *slots[i].lock().unwrap_or_else(PoisonError::into_inner) = Some(r);
            });
        }
    });
    slots
        .into_iter()
        .filter_map(|m| m.into_inner().unwrap_or_else(PoisonError::into_inner))
        .collect()
}

/// Indices by cost, costliest first, ties in input order.
fn start_order(costs: &[u32]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..costs.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(costs[i]));
    order
}

/// Under the built-in MobileGL profile there is no mgctl.toml to blame: a gate's "no [x]
/// section in mgctl.toml" reads "the built-in MobileGL profile has no [x] section".
fn profile_reason(reason: &str) -> String {
    match reason
        .strip_prefix("no ")
        .and_then(|r| r.strip_suffix(" in mgctl.toml"))
    {
        Some(what) => format!("the built-in MobileGL profile has no {what}"),
        None => reason.replace("mgctl.toml", "the built-in MobileGL profile"),
    }
}

/// Runs every selected gate's self-test: its canned controls, independent of any workspace,
/// plus, given the audited workspace, its live controls on that workspace.
pub fn run_self_tests(
    live: Option<&CheckCtx>,
    gates: &[Box<dyn Gate>],
    sel: &Selection,
    neutered: &Neutered,
) -> Vec<GateReport> {
    let mut reports: Vec<GateReport> = gates
        .par_iter()
        .map(|gate| {
            if let Some(reason) = sel.excluded(gate.name()) {
                return GateReport::skipped(gate.name(), reason);
            }
            timed(gate.as_ref(), || {
                let mut st = gate.self_test(neutered);
                if let Some(ctx) = live {
                    st.controls.extend(gate.live_controls(ctx, neutered));
                }
                self_test_report(gate.name(), st)
            })
        })
        .collect();
    reports.sort_by(|a, b| a.gate.cmp(b.gate));
    reports
}

/// Maps a self-test into a report: one unit per control, one error finding per misbehaving control.
pub fn self_test_report(gate: &'static str, st: SelfTest) -> GateReport {
    let mut findings: Vec<Finding> = st
        .controls
        .iter()
        .filter(|c| !c.ok())
        .map(|c: &Control| {
            let what = if c.expect_trip {
                "negative control did not trip"
            } else {
                "positive control tripped"
            };
            Finding::error(
                gate,
                "SELFTEST",
                format!("{}: {what}: {}", c.name, c.detail),
            )
            .in_unit(c.name.clone())
        })
        .collect();
    let negatives = st.controls.iter().filter(|c| c.expect_trip).count();
    let tripped = st
        .controls
        .iter()
        .filter(|c| c.expect_trip && c.tripped)
        .count();
    if !st.passed() && tripped == 0 {
        findings.push(Finding::error(
            gate,
            "SELFTEST",
            "self-test tripped nothing: the gate cannot fail, which is worse than a red gate",
        ));
    }
    let positives = st.controls.len() - negatives;
    let mut report = GateReport::from_findings(
        gate,
        findings,
        format!(
            "negative controls tripped: {tripped}/{negatives}, positive controls stayed clean: {clean}/{positives}",
            clean = st
                .controls
                .iter()
                .filter(|c| !c.expect_trip && !c.tripped)
                .count()
        ),
    );
    report.units = st.controls.iter().map(|c| c.name.clone()).collect();
    report.self_test = Some(st);
    report
}

fn sort_findings(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        let key = |f: &Finding| (f.location.clone(), f.code, f.message.clone());
        key(a).cmp(&key(b))
    });
}

/// Runs the workspace's `[build]` when a declared output is missing or stale and what runs next
/// reads one (`reads`: progress on stderr; stdout carries only the report), unless `no_build`
/// refuses. `check` and every gate command that reads outputs (`symbols ratchet`, `lint controls`)
/// call it, so a command never reads green what its gate would rebuild or refuse.
pub fn prepare_build(
    ctx: &CheckCtx,
    reads: &dyn Fn(&[String]) -> bool,
    no_build: bool,
) -> anyhow::Result<Option<workspace_build::Record>> {
    let Some(cfg) = &ctx.config.build else {
        return Ok(None);
    };
    let plan = workspace_build::plan(cfg, &|at| ctx.config_location(at))?;
    if !reads(&plan.outputs) {
        let state = workspace_build::State::unjudged(plan.missing(&ctx.root));
        return Ok(Some(
            plan.not_run(&state, "no selected gate reads an output"),
        ));
    }
    let state = plan.state(&ctx.root)?;
    Ok(Some(if state.up_to_date() {
        plan.not_run(&state, "up to date")
    } else if no_build {
        plan.not_run(&state, "--no-build given")
    } else {
        let mut progress = workspace_build::progress::Progress::new(ctx.quiet);
        plan.run(&ctx.root, &state, &mut |s| progress.step(s))
    }))
}

/// What `check` would report for `gate` reading `artifacts` instead of running it, because of
/// the build: its outputs refused as stale, missing under `no_build`, or not made by a failed
/// build. None when what it reads is fresh (or no output).
pub fn build_override(
    ctx: &CheckCtx,
    gate: &'static str,
    artifacts: &[String],
    no_build: bool,
) -> anyhow::Result<Option<GateReport>> {
    let reads = |outputs: &[String]| artifacts.iter().any(|a| outputs.contains(a));
    let build = prepare_build(ctx, &reads, no_build)?;
    Ok(build.and_then(|b| b.gate_override(gate, artifacts)))
}

/// Overall result of a set of reports: true when no gate failed.
pub fn passed(reports: &[GateReport]) -> bool {
    reports.iter().all(|r| r.verdict != Verdict::Fail)
}

pub fn neutered(specs: &[String]) -> Neutered {
    Neutered(specs.iter().cloned().collect::<BTreeSet<_>>())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::{costliest_first, timed};
    use check_report::GateReport;
    use gates::cite;

    /// A gate stolen onto the thread of a gate that waits is timed alone, and the waiting gate
    /// without it.
    #[test]
    fn a_gate_run_inside_another_is_not_timed_twice() {
        let report = || GateReport::could_not_run("cite", "X", "x", None);
        let sleep = |ms| std::thread::sleep(std::time::Duration::from_millis(ms));
        let mut inner_ms = 0.0;
        let outer = timed(&cite::gate(), || {
            sleep(10);
            inner_ms = timed(&cite::gate(), || {
                sleep(80);
                report()
            })
            .wall_ms;
            report()
        });
        assert!(inner_ms >= 80.0, "{inner_ms}");
        assert!(
            outer.wall_ms >= 10.0 && outer.wall_ms < 60.0,
            "{}",
            outer.wall_ms
        );
        // The next gate on this thread starts from nothing nested.
        let next = timed(&cite::gate(), || {
            sleep(5);
            report()
        });
        assert!(
            next.wall_ms >= 5.0 && next.wall_ms < 60.0,
            "{}",
            next.wall_ms
        );
    }

    /// Every item runs once and results come back in input order; items start costliest
    /// first, ties in input order.
    #[test]
    fn costliest_first_keeps_order_and_starts_the_costliest() {
        let items: Vec<(u32, &str)> = vec![(1, "a"), (5, "b"), (1, "c"), (9, "d"), (5, "e")];
        let runs = std::sync::atomic::AtomicUsize::new(0);
        let out = costliest_first(
            &items,
            |i| i.0,
            |i| {
                runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                i.1.to_uppercase()
            },
        );
        assert_eq!(out, vec!["A", "B", "C", "D", "E"]);
        assert_eq!(runs.into_inner(), 5);
        assert_eq!(super::start_order(&[1, 5, 1, 9, 5]), vec![3, 1, 4, 0, 2]);
        assert!(costliest_first(&[] as &[u32], |c| *c, |c| *c).is_empty());
    }
}
