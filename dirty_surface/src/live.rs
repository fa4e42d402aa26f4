//! The live control of the `dirty-surface` gate (issue 18 item 7), `live-dropped-row`: the first
//! DirtySurface.def row mapping a mutator the scan finds, blanked in an in-memory copy of the
//! def (never written), must make the real check ([`run_check`] over the loaded workspace, as
//! [`crate::audit::check`] runs it) report that mutator UNMAPPED.

use std::path::Path;

use crate::audit::{load, parse_def, run_check, Settings};
use crate::check::ProblemKind;
use crate::selftest::Control;
use crate::surface::Mode;

const NAME: &str = "live-dropped-row";

/// [`live_controls`] from the gate's config section; a config the settings reject is a control
/// that could not trip, saying why.
pub fn live_controls_for(
    root: &Path,
    cfg: &crate::cfg::DirtySurfaceConfig,
    neutered: &dyn Fn(&str) -> bool,
) -> Vec<Control> {
    match cfg.settings() {
        Ok(s) => live_controls(root, &s, neutered),
        Err(e) => vec![Control {
            name: NAME.into(),
            expect_trip: true,
            tripped: false,
            detail: e.to_string(),
        }],
    }
}

/// `neutered(name)` runs the control on the unmutated def, so it cannot trip.
pub fn live_controls(root: &Path, s: &Settings, neutered: &dyn Fn(&str) -> bool) -> Vec<Control> {
    let result = |tripped: bool, detail: String| {
        vec![Control {
            name: NAME.into(),
            expect_trip: true,
            tripped,
            detail,
        }]
    };
    let mut ws = match load(root, s, true) {
        Ok(w) => w,
        Err(e) => return result(false, format!("the check cannot run here: {e}")),
    };
    let clean = match run_check(&ws, s, Mode::Accurate) {
        Ok(r) => r,
        Err(e) => return result(false, format!("the check cannot run here: {e}")),
    };
    let def = match parse_def(&ws, Mode::Accurate) {
        Ok(Some(d)) => d,
        Ok(None) => return result(false, "no DirtySurface.def was loaded".into()),
        Err(e) => return result(false, e.to_string()),
    };
    // A mutator mapped once: dropping one of two rows would leave it mapped.
    let Some(row) = def.rows.iter().find(|r| {
        clean.first_site.contains_key(&r.mutator)
            && def.rows.iter().filter(|o| o.mutator == r.mutator).count() == 1
    }) else {
        return result(
            false,
            format!(
                "{}: no row maps a mutator the scan of {} finds, so dropping one cannot go red here",
                s.def,
                s.scan_roots.join(", ")
            ),
        );
    };
    if !neutered(NAME) {
        let Some(def_src) = ws.def.as_mut() else {
            return result(false, "no DirtySurface.def was loaded".into());
        };
        let mut lines: Vec<String> = def_src.text.split('\n').map(str::to_string).collect();
        let Some(line) = lines.get_mut(row.line.saturating_sub(1)) else {
            return result(false, format!("{}:{}: row out of range", s.def, row.line));
        };
        // Blank `X(Mutator, …)` in place: line numbers and the macro's continuation stay.
        let Some(start) = line.find("X(") else {
            return result(
                false,
                format!("{}:{}: no X( on the row's line", s.def, row.line),
            );
        };
        let end = line[start..]
            .find(')')
            .map_or(line.len(), |e| start + e + 1);
        line.replace_range(start..end, &" ".repeat(end - start));
        def_src.text = lines.join("\n");
    }
    match run_check(&ws, s, Mode::Accurate) {
        Err(e) => result(false, e.to_string()),
        Ok(r) => match r
            .result
            .problems
            .iter()
            .find(|p| p.kind == ProblemKind::Unmapped && p.mutator == row.mutator)
        {
            Some(p) => result(
                true,
                format!(
                    "{} {} (row {}:{} dropped)",
                    p.kind.code().as_str(),
                    p.text,
                    s.def,
                    row.line
                ),
            ),
            None => result(
                false,
                format!(
                    "no finding: dropping the row of {} ({}:{}) left it mapped",
                    row.mutator, s.def, row.line
                ),
            ),
        },
    }
}
