//! Every finding code mgctl can emit, gathered from the libraries' typed enums into one registry,
//! so that uniqueness across gates, the `ABC123` shape and docs/codes.md are checked in one place
//! (each library owns its enum; none of them can see the others').

/// One registered code: its text and the one-line meaning its library gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeInfo {
    pub code: &'static str,
    pub summary: &'static str,
    /// The letters every code of its enum starts with (`TOK` for tokens); a runner code is its own.
    pub family: &'static str,
}

/// The codes the runner itself emits, for any gate.
const RUNNER: &[CodeInfo] = &[
    CodeInfo {
        code: "SELFTEST",
        summary: "a negative control did not trip, a positive control tripped, or nothing tripped",
        family: "SELFTEST",
    },
    CodeInfo {
        code: "INTERNAL",
        summary: "the gate panicked: a bug in mgctl (the other gates still ran)",
        family: "INTERNAL",
    },
];

/// Every variant of a code enum, as `diag::codes!` declared it (text, summary, family).
fn gather<C: diag::Code>(out: &mut Vec<CodeInfo>) {
    out.extend(C::ALL.iter().map(|&c| CodeInfo {
        code: c.as_str(),
        summary: c.summary(),
        family: C::FAMILY,
    }));
}

/// Every code, runner codes first, then each library's in declaration order.
pub fn all() -> Vec<CodeInfo> {
    let mut out = RUNNER.to_vec();
    gather::<lints::tokens::Code>(&mut out);
    gather::<lints::cite::Code>(&mut out);
    gather::<lints::regions::check::Code>(&mut out);
    gather::<lints::test_names::gate::Code>(&mut out);
    gather::<lints::test_sets::Code>(&mut out);
    gather::<lints::preproc::gate::Code>(&mut out);
    gather::<lints::commits::gate::Code>(&mut out);
    gather::<lints::fatal_sites::Code>(&mut out);
    gather::<lints::layout::Code>(&mut out);
    gather::<lints::ctest::Code>(&mut out);
    gather::<lints::control::Code>(&mut out);
    gather::<lints::generated::Code>(&mut out);
    gather::<lints::census::Code>(&mut out);
    gather::<lints::evidence::Code>(&mut out);
    gather::<include_graph::codes::Code>(&mut out);
    gather::<dirty_surface::Code>(&mut out);
    gather::<symbols::codes::SymbolsCode>(&mut out);
    gather::<symbols::codes::SymbolRulesCode>(&mut out);
    gather::<symbols::ratchet::Code>(&mut out);
    gather::<stats_viewer::g4::Code>(&mut out);
    gather::<stats_viewer::budget::Code>(&mut out);
    gather::<stats_viewer::counters::Code>(&mut out);
    gather::<stats_viewer::devsession::Code>(&mut out);
    gather::<stats_viewer::retrace::Code>(&mut out);
    gather::<workspace_build::Code>(&mut out);
    out
}

/// The registered meaning of a code, if it is one.
pub fn summary(code: &str) -> Option<&'static str> {
    // Built once per process: SARIF asks once per rule.
    static BY_CODE: std::sync::OnceLock<std::collections::HashMap<&'static str, &'static str>> =
        std::sync::OnceLock::new();
    BY_CODE
        .get_or_init(|| all().into_iter().map(|c| (c.code, c.summary)).collect())
        .get(code)
        .copied()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::collections::BTreeSet;

    fn well_formed(code: &str) -> bool {
        if code == "SELFTEST" || code == "INTERNAL" {
            return true;
        }
        let (letters, digits) = code.split_at(code.len().saturating_sub(3));
        (2..=5).contains(&letters.len())
            && letters.bytes().all(|b| b.is_ascii_uppercase())
            && digits.len() == 3
            && digits.bytes().all(|b| b.is_ascii_digit())
    }

    /// One code, one meaning, across every gate: no two enums (of any library) share a code, every
    /// code is `ABC123`-shaped and has a summary, and docs/codes.md documents exactly the
    /// registered codes, each once.
    #[test]
    fn codes_are_unique_well_formed_and_documented_exactly() {
        let all = super::all();
        let mut seen = BTreeSet::new();
        for c in &all {
            assert!(seen.insert(c.code), "{} is registered twice", c.code);
            assert!(well_formed(c.code), "{} is not ABC123-shaped", c.code);
            assert!(
                c.code.starts_with(c.family),
                "{} is outside its family {}",
                c.code,
                c.family
            );
            assert!(!c.summary.trim().is_empty(), "{} has no summary", c.code);
        }
        let docs = include_str!("../../../docs/codes.md");
        let mut documented = BTreeSet::new();
        for line in docs.lines() {
            let Some(rest) = line.strip_prefix("| `") else {
                continue;
            };
            let Some((code, _)) = rest.split_once("` |") else {
                continue;
            };
            assert!(documented.insert(code), "{code} documented twice");
        }
        let undocumented: Vec<_> = seen.difference(&documented).collect();
        let unregistered: Vec<_> = documented.difference(&seen).collect();
        assert!(
            undocumented.is_empty(),
            "registered but not in docs/codes.md: {undocumented:?}"
        );
        assert!(
            unregistered.is_empty(),
            "in docs/codes.md but no gate can emit them: {unregistered:?}"
        );
    }

    /// Gates name codes only through the typed enums: a string literal code in a gate would
    /// bypass the registry.
    #[test]
    fn gates_use_no_literal_codes() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let re = regex::Regex::new(r#""[A-Z]{2,5}[0-9]{3}""#).unwrap();
        let mut literal = Vec::new();
        for entry in std::fs::read_dir(&root).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let code_part = text.split("#[cfg(test)]").next().unwrap_or_default();
            for m in re.find_iter(code_part) {
                literal.push(format!("{} in {}", m.as_str(), path.display()));
            }
        }
        assert!(literal.is_empty(), "literal codes: {literal:?}");
    }

    #[test]
    fn summary_finds_a_library_code() {
        assert!(super::summary("TOK001").is_some());
        assert!(super::summary("SELFTEST").is_some());
        assert_eq!(super::summary("NOPE001"), None);
    }
}
