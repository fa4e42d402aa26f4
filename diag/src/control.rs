use serde::Serialize;

use crate::{Code, Diag};

/// One self-test control, run through the same entry point as a real run: a negative control
/// (`expect_trip`) must go red on its canned input, a positive control must stay clean.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Control {
    pub name: String,
    /// true: a negative control, the analysis must go red on it.
    pub expect_trip: bool,
    pub tripped: bool,
    /// What the analysis said (first error) or why it did not trip.
    pub detail: String,
}

impl Control {
    /// The control behaved: a negative control tripped, a positive one stayed clean.
    pub fn ok(&self) -> bool {
        self.expect_trip == self.tripped
    }

    /// A control from the diagnostics its input produced: a negative control trips only on an
    /// error with its own code (a red for another reason is not this control tripping); a
    /// positive control trips on any error.
    pub fn from_diags<C: Code>(name: &str, expect_trip: bool, want: C, diags: &[Diag<C>]) -> Self {
        let first = diags
            .iter()
            .find(|d| d.is_error() && (!expect_trip || d.code == want));
        Control {
            name: name.to_string(),
            expect_trip,
            tripped: first.is_some(),
            detail: first.map_or_else(|| "no finding".to_string(), |d| d.message.clone()),
        }
    }

    /// The live control of a gate the audited workspace does not configure (it passes).
    pub fn not_configured() -> Self {
        Control {
            name: "live".into(),
            expect_trip: false,
            tripped: false,
            detail: "no live control: gate not configured".into(),
        }
    }

    /// "negative control NAME: tripped: DETAIL", the one line every `--self-test` prints.
    pub fn line(&self) -> String {
        let kind = if self.expect_trip {
            "negative"
        } else {
            "positive"
        };
        let verdict = match (self.expect_trip, self.ok()) {
            (true, true) => "tripped",
            (false, true) => "clean",
            (true, false) => "NEGATIVE CONTROL DID NOT TRIP",
            (false, false) => "POSITIVE CONTROL FAILED",
        };
        format!(
            "{kind} control {}: {verdict}: {}",
            crate::escape::terminal(&self.name),
            crate::escape::terminal(&self.detail)
        )
    }
}

/// The one self-test verdict: every control behaves and at least one negative control tripped
/// (a self-test that trips nothing is itself a failure, and so is one with no controls).
pub fn self_test_passed(controls: &[Control]) -> bool {
    controls.iter().all(Control::ok) && controls.iter().any(|c| c.expect_trip && c.tripped)
}

/// A library's `run_controls(neutered)`: which controls to neuter, by name, in; the controls out.
pub type RunControls<'a> = dyn Fn(&dyn Fn(&str) -> bool) -> Vec<Control> + 'a;

/// Why [`controls_can_fail`] could not prove a library's controls able to fail.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ControlsError {
    #[error("the un-neutered self-test fails: {controls:?}")]
    Unneutered { controls: Vec<Control> },
    #[error("neutering `{name}` made it vanish: {controls:?}")]
    Vanished {
        name: String,
        controls: Vec<Control>,
    },
    #[error("`{name}` still trips when neutered: {control:?}")]
    StillTrips { name: String, control: Control },
    #[error("neutering `{name}` still passes the self-test")]
    StillPasses { name: String },
}

/// What every library's control test asserts about its `run_controls(neutered)`: there are
/// controls, they all behave, and each negative control, neutered by name, stops tripping (looked
/// up by name, not position) and so fails the self-test. Returns how many negative controls were
/// proven able to fail, or what went wrong.
pub fn controls_can_fail(run: &RunControls<'_>) -> Result<usize, ControlsError> {
    let all = run(&|_| false);
    if !self_test_passed(&all) {
        return Err(ControlsError::Unneutered { controls: all });
    }
    let negatives: Vec<String> = all
        .iter()
        .filter(|c| c.expect_trip)
        .map(|c| c.name.clone())
        .collect();
    for name in &negatives {
        let neutered = run(&|c| c == name);
        let name = name.clone();
        let err = match neutered.iter().find(|c| c.name == name) {
            None => ControlsError::Vanished {
                name,
                controls: neutered.clone(),
            },
            Some(c) if c.tripped => ControlsError::StillTrips {
                name,
                control: c.clone(),
            },
            Some(_) if self_test_passed(&neutered) => ControlsError::StillPasses { name },
            Some(_) => continue,
        };
        return Err(err);
    }
    Ok(negatives.len())
}

#[derive(Serialize)]
struct SelfTestJson<'a> {
    schema: u32,
    gate: &'a str,
    passed: bool,
    controls: &'a [Control],
}

/// The one `--self-test` report every command prints: a line per control and a summary, or the
/// JSON document (`schema`, `gate`, `passed`, `controls`). Returns whether the self-test passed.
pub fn write_self_test(
    gate: &str,
    controls: &[Control],
    json: bool,
    out: &mut dyn std::io::Write,
) -> std::io::Result<bool> {
    let passed = self_test_passed(controls);
    if json {
        let doc = SelfTestJson {
            schema: 1,
            gate,
            passed,
            controls,
        };
        let value = serde_json::to_value(&doc).map_err(std::io::Error::other)?;
        let text = serde_json::to_string_pretty(&value).map_err(std::io::Error::other)?;
        writeln!(out, "{text}")?;
        return Ok(passed);
    }
    for c in controls {
        writeln!(out, "{}", c.line())?;
    }
    let neg = controls.iter().filter(|c| c.expect_trip).count();
    let pos = controls.len() - neg;
    if passed {
        writeln!(
            out,
            "self-test passed: {neg} negative controls tripped, {pos} positive controls clean"
        )?;
    } else {
        let bad = controls.iter().filter(|c| !c.ok()).count();
        writeln!(
            out,
            "SELF-TEST FAILED: {bad} of {} controls misbehaved",
            controls.len()
        )?;
    }
    Ok(passed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Diag;

    crate::codes! {
        enum T: "TST" {
            Tst001 = "TST001": "one",
            Tst002 = "TST002": "two",
        }
    }

    #[test]
    fn a_negative_control_trips_only_on_its_own_code() {
        let other = [Diag::error(T::Tst002, "other reason")];
        let own = [Diag::error(T::Tst001, "own reason")];
        assert!(!Control::from_diags("c", true, T::Tst001, &other).tripped);
        let c = Control::from_diags("c", true, T::Tst001, &own);
        assert!(c.tripped && c.ok());
        assert_eq!(c.line(), "negative control c: tripped: own reason");
        let p = Control::from_diags("p", false, T::Tst001, &other);
        assert!(p.tripped && !p.ok());
    }

    #[test]
    fn controls_can_fail_looks_each_negative_control_up_by_name() {
        let good = |n: &dyn Fn(&str) -> bool| {
            let d = [Diag::error(T::Tst001, "x")];
            let none: [Diag<T>; 0] = [];
            vec![
                Control::from_diags("clean", false, T::Tst001, &none),
                Control::from_diags("a", true, T::Tst001, if n("a") { &none } else { &d }),
            ]
        };
        assert_eq!(controls_can_fail(&good), Ok(1));
        // A control that ignores its neutering cannot prove anything.
        let stuck = |_: &dyn Fn(&str) -> bool| {
            vec![Control::from_diags(
                "a",
                true,
                T::Tst001,
                &[Diag::error(T::Tst001, "x")],
            )]
        };
        assert!(controls_can_fail(&stuck).is_err());
        // No controls at all is a failed self-test.
        assert!(controls_can_fail(&|_| Vec::new()).is_err());
    }

    #[test]
    fn nothing_tripped_or_nothing_run_is_a_failed_self_test() {
        assert!(!self_test_passed(&[]));
        assert!(!self_test_passed(&[Control::not_configured()]));
        let tripped = Control::from_diags("c", true, T::Tst001, &[Diag::error(T::Tst001, "x")]);
        assert!(self_test_passed(&[
            tripped.clone(),
            Control::not_configured()
        ]));
        let neutered = Control::from_diags::<T>("n", true, T::Tst001, &[]);
        assert!(!self_test_passed(&[tripped, neutered]));
    }
}
