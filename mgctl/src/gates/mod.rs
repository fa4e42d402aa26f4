//! Every gate this build offers, each adapting one library's domain result to `GateReport`.

pub mod budgets;
pub mod cite;
pub mod commits;
pub mod counters;
pub mod dirty_surface;
pub mod fatal_sites;
pub mod fatals;
pub mod include;
pub mod lint_map;
pub mod preproc;
pub mod regions;
pub mod symbols;
pub mod test_names;
pub mod tokens;

use crate::gate::Gate;

/// The gates of this build, in display order (reports are sorted by name anyway).
pub fn all() -> Vec<Box<dyn Gate>> {
    vec![
        Box::new(tokens::TokensGate),
        Box::new(symbols::SymbolsGate),
        Box::new(symbols::SymbolRulesGate),
        Box::new(dirty_surface::DirtySurfaceGate),
        Box::new(regions::RegionsGate),
        Box::new(test_names::TestNamesGate),
        Box::new(preproc::PreprocGate),
        Box::new(commits::CommitsGate),
        Box::new(fatals::FatalsGate),
        Box::new(fatal_sites::FatalSitesGate),
        Box::new(cite::CiteGate),
        Box::new(include::IncludeProbesGate),
        Box::new(include::IncludeLayeringGate),
        Box::new(budgets::BudgetsGate),
        Box::new(counters::CountersGate),
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
}
