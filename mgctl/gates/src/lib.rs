//! Every gate of `mgctl check`: what a gate is (`gate`), each gate adapting one library's
//! analysis and controls to a `GateReport` (one module each, most of them a `SectionGate`), and
//! the registry of every code they can emit (`codes`). Running them (selection, parallelism, a
//! panicking gate as `INTERNAL`) is the binary's `check`.

#![warn(unreachable_pub)]

pub mod budgets;
pub mod census;
pub mod cite;
pub mod codes;
pub mod commits;
pub mod controls;
pub mod counters;
pub mod ctest;
pub mod dirty_surface;
pub mod evidence;
pub mod fatal_sites;
pub mod fatals;
pub mod gate;
pub mod generated;
pub mod include;
pub mod layout;
pub mod link_ratchet;
pub mod preproc;
pub mod regions;
pub mod retrace;
mod section;
pub mod symbols;
pub mod test_names;
pub mod test_sets;
pub mod tokens;

use crate::gate::Gate;

/// The gates of this build, in display order (reports are sorted by name anyway).
pub fn all() -> Vec<Box<dyn Gate>> {
    vec![
        Box::new(tokens::gate()),
        Box::new(symbols::symbols()),
        Box::new(symbols::rules()),
        Box::new(link_ratchet::gate()),
        Box::new(dirty_surface::gate()),
        Box::new(regions::gate()),
        Box::new(test_names::gate()),
        Box::new(test_sets::gate()),
        Box::new(preproc::gate()),
        Box::new(commits::gate()),
        Box::new(fatals::gate()),
        Box::new(fatal_sites::gate()),
        Box::new(census::gate()),
        Box::new(cite::gate()),
        Box::new(include::probes()),
        Box::new(include::layering()),
        Box::new(budgets::gate()),
        Box::new(counters::gate()),
        Box::new(layout::gate()),
        Box::new(retrace::gate()),
        Box::new(ctest::gate()),
        Box::new(controls::ControlsGate),
        Box::new(generated::gate()),
        Box::new(evidence::gate()),
    ]
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::collections::BTreeSet;

    /// Gate names are unique (codes are checked in codes.rs).
    #[test]
    fn gate_names_are_unique() {
        let names: Vec<&str> = super::all().iter().map(|g| g.name()).collect();
        let unique: BTreeSet<&str> = names.iter().copied().collect();
        assert_eq!(names.len(), unique.len(), "{names:?}");
    }

    /// Every gate's canned self-test can fail: each of its negative controls, neutered by name,
    /// stops tripping and fails the self-test (a control that trips nothing would pass silently).
    #[test]
    fn every_negative_control_of_every_gate_can_be_neutered_by_name() {
        let mut proven = 0;
        for g in super::all() {
            let run = |n: &dyn Fn(&str) -> bool| {
                let names = diag_names(&*g);
                let neutered = crate::gate::Neutered(
                    names
                        .into_iter()
                        .filter(|c| n(c))
                        .map(|c| format!("{}/{c}", g.name()))
                        .collect(),
                );
                g.self_test(&neutered).controls
            };
            match diag::controls_can_fail(&run) {
                Ok(n) => proven += n,
                Err(e) => panic!("{}: {e}", g.name()),
            }
        }
        assert!(proven >= super::all().len(), "{proven} controls proven");
    }

    fn diag_names(g: &dyn crate::gate::Gate) -> Vec<String> {
        let st = g.self_test(&crate::gate::Neutered::default());
        st.controls.into_iter().map(|c| c.name).collect()
    }
}
