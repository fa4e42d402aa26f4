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

    /// Every finding code a gate emits is documented once in docs/codes.md, and gate names are unique.
    #[test]
    fn codes_are_documented_and_unique() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let docs = std::fs::read_to_string(root.join("../docs/codes.md")).unwrap();
        let code_re = regex::Regex::new(r#""([A-Z]{2,5}[0-9]{3})""#).unwrap();
        let row_re = regex::Regex::new(r"(?m)^\| `([A-Z]{2,5}[0-9]{3})` \|").unwrap();
        let mut documented = BTreeSet::new();
        for c in row_re.captures_iter(&docs) {
            assert!(
                documented.insert(c[1].to_string()),
                "{} documented twice",
                &c[1]
            );
        }
        let mut missing = Vec::new();
        for entry in std::fs::read_dir(root.join("src/gates")).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            for c in code_re.captures_iter(&text) {
                if !documented.contains(&c[1]) {
                    missing.push(format!("{} ({})", &c[1], path.display()));
                }
            }
        }
        assert!(missing.is_empty(), "undocumented codes: {missing:?}");
        let names: Vec<&str> = super::all().iter().map(|g| g.name()).collect();
        let unique: BTreeSet<&str> = names.iter().copied().collect();
        assert_eq!(names.len(), unique.len(), "{names:?}");
    }
}
