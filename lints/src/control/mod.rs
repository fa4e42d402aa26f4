//! The `controls` gate (G7/G12, issue 30): negative controls that cannot rot. Each `[[control]]`
//! of mgctl.toml names a test command (argv, no shell), one perturbation (a unified diff, a
//! literal replacement, environment variables, or a swapped built file) and the evidence that
//! the test went red because of it. In a throw-away copy of the workspace, it runs
//! **baseline green → perturbed red (evidence present) → restored green**, each green run with a
//! non-empty test selection and the copy's digest unchanged at the end — MobileGL's
//! `g7_negative_control.sh`, `split_negative_controls.sh` and their `control_smoke_test.sh` as
//! one runner that checks itself.
//!
//! parse/model: [`cfg`], [`patch`], [`check::validate`]; analysis: [`check::run_control`], pure
//! over a [`check::Sandbox`]; I/O: [`run`] (the copy, processes, signals). [`check()`] is the one
//! entry point of the gate and `mgctl lint controls`.

pub mod cfg;
pub mod check;
pub mod controls;
pub mod patch;
pub mod run;

use std::path::Path;
use std::time::Instant;

use diag::{Diag, Outcome};

pub use check::{Code, Error};

use cfg::ControlConfig;
use check::{run_control, validate, Sandbox};

/// Runs every configured control (or only the one named `only`) against the workspace at `root`,
/// each in its own throw-away copy. A SIGINT/SIGTERM/SIGHUP kills the running control's process
/// group, removes the copy and then ends the process as the signal would have.
pub fn check(root: &Path, cfgs: &[ControlConfig], only: Option<&str>) -> Outcome<Code> {
    let signals = run::Signals::register();
    let out = {
        let _core = run::NoCore::set();
        check_with(cfgs, only, &mut |spec| {
            // after a signal, the remaining controls are not started
            if let Some(signal) = signals.caught() {
                return Err(Error::Interrupted { signal });
            }
            let mut copy = run::TempCopy::new(root, signals.flag.clone())?;
            Ok(run_control(spec, &mut copy as &mut dyn Sandbox))
        })
    };
    signals.reraise();
    out
}

/// [`check`] over any sandbox maker (the self-test's is a script).
pub fn check_with(
    cfgs: &[ControlConfig],
    only: Option<&str>,
    make: &mut dyn FnMut(&check::Spec) -> Result<check::Verdict, Error>,
) -> Outcome<Code> {
    let start = Instant::now();
    let (specs, mut diags) = validate(cfgs);
    if cfgs.is_empty() {
        diags.push(
            Diag::error(
                Code::Ctl010,
                "no [[control]] in mgctl.toml: the gate checks nothing",
            )
            .about_config(),
        );
    }
    let selected: Vec<&check::Spec> = specs
        .iter()
        .filter(|s| only.is_none_or(|o| o == s.name))
        .collect();
    if let Some(o) = only {
        if selected.is_empty() && !cfgs.iter().any(|c| c.name.get_ref() == o) {
            let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
            diags.push(
                Diag::error(
                    Code::Ctl010,
                    format!(
                        "no [[control]] is named `{o}` (configured: {})",
                        names.join(", ")
                    ),
                )
                .about_config(),
            );
        }
    }
    let mut held = 0usize;
    let mut units = Vec::new();
    for spec in &selected {
        units.push(spec.name.clone());
        match make(spec) {
            Ok(v) => {
                held += usize::from(v.held());
                diags.extend(v.diags);
            }
            Err(e) => diags.push(
                Diag::error(
                    Code::Ctl011,
                    format!("control `{}` could not run: {e}", spec.name),
                )
                .in_config(spec.at)
                .in_unit(spec.name.clone()),
            ),
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let n = selected.len();
    let failed = n - held;
    Outcome {
        diags,
        headline: format!("{n} controls / {held} held / {failed} failed ({secs:.1} s)"),
        figures: Vec::new(),
        units,
        inputs: Vec::new(),
    }
    .figure("controls", n)
    .figure("held", held)
    .figure("failed", failed)
    .figure("seconds", (secs * 10.0).round() / 10.0)
}
