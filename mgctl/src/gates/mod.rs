//! Every gate this build offers, each adapting one library's domain result to `GateReport`.

pub mod commits;
pub mod fatals;
pub mod dirty_surface;
pub mod preproc;
pub mod regions;
pub mod symbols;
pub mod test_names;
pub mod cite;
pub mod include;
pub mod tokens;

use crate::gate::Gate;

/// The gates of this build, in display order (reports are sorted by name anyway).
pub fn all() -> Vec<Box<dyn Gate>> {
    vec![Box::new(include::IncludeProbesGate), Box::new(include::IncludeLayeringGate), Box::new(tokens::TokensGate), Box::new(cite::CiteGate), Box::new(symbols::SymbolsGate), Box::new(symbols::SymbolRulesGate), Box::new(dirty_surface::DirtySurfaceGate), Box::new(regions::RegionsGate), Box::new(test_names::TestNamesGate), Box::new(preproc::PreprocGate), Box::new(commits::CommitsGate), Box::new(fatals::FatalsGate)]
}
