//! The `census` gate's controls: upstream `wire_declines_audit.py`'s and
//! `unmigrated_emulation_sites.py`'s self-test fixtures (and the scope rules of
//! `espryt_memo_purity.py`) through [`super::analyse`], each negative control red for its own
//! code; a neutered one is fed its clean twin. Live: the workspace's own censuses with every
//! source taken away must report their entries as siteless.

use std::path::Path;

use serde::Deserialize;

use super::cfg::CensusConfig;
use super::{analyse, Census, Code, Source};
use diag::Control;

#[derive(Deserialize)]
struct One {
    census: Vec<CensusConfig>,
}

/// The wire-declines census as upstream writes it.
const DECLINES: &str = r#"
[[census]]
name = "wire-declines"
paths = ["R/*.cpp"]
registry = { file = "R/WireDeclines.def", entry = '(?m)^\s*MGL_WIRE_DECLINE\(\s*([A-Za-z][A-Za-z0-9]*)\s*\)\s*$' }
[[census.site]]
pattern = 'MGL_WIRE_DECLINE_AT\(\s*([A-Za-z][A-Za-z0-9]*)\s*,'
[[census.site]]
pattern = 'WireDeclineTally::Count\(\s*WireDeclineSite::([A-Za-z][A-Za-z0-9]*)\s*\)'
marker = { pattern = 'MGLOG_[WE](_ONCE)?\s*\(', within = 8 }
"#;

/// Memo purity: no pointer key inside two named structs; the second anchor must match too.
const MEMO: &str = r#"
[[census]]
name = "memo-purity"
paths = ["R/*.cpp"]
scope = ['struct\s+DrawMemo\b', 'struct\s+BlendMemo\b']
[[census.site]]
pattern = 'GetLifetimeId\(\)'
message = "a memo key may not hold a frontend lifetime"
"#;

fn census(toml_text: &str, patch: &dyn Fn(&mut CensusConfig)) -> Census {
    let mut one: One = match toml::from_str(toml_text) {
        Ok(o) => o,
        Err(e) => panic!("the census controls' own config is invalid: {e}"),
    };
    let mut c = one.census.remove(0);
    patch(&mut c);
    match Census::compile(&c) {
        Ok(k) => k,
        Err(d) => panic!(
            "the census controls' own config does not compile: {}",
            d.message
        ),
    }
}

fn src(text: &str) -> Vec<Source> {
    vec![Source {
        rel: "R/Fixture.cpp".into(),
        text: text.as_bytes().to_vec(),
    }]
}

const GOOD_DEF: &[u8] = b"MGL_WIRE_DECLINE(GoodAt) // the macro form\nMGL_WIRE_DECLINE(GoodBare)\n";
const GOOD: &str = "bool F(int x) {\n    if (x == 1) {\n        MGL_WIRE_DECLINE_AT(GoodAt, \"x=%d\", x);\n        return false;\n    }\n    if (x == 2) {\n        MGLOG_E_ONCE(\"x is two: %d, \"\n                     \"declined\", x);\n        WireDeclineTally::Count(WireDeclineSite::GoodBare);\n        return false;\n    }\n    return true;\n}\n";
const GHOST_DEF: &[u8] = b"MGL_WIRE_DECLINE(GhostRow)\n";
const GHOST_GOOD: &str = "void F() {\n    MGL_WIRE_DECLINE_AT(GhostRow, \"counted\");\n}\n";
const MEMO_GOOD: &str = "struct DrawMemo {\n    uint64_t key;\n};\nstruct BlendMemo {\n    uint32_t mode;\n};\nuint64_t Other() { return p->GetLifetimeId(); }\n";

pub fn run_controls(neutered: &dyn Fn(&str) -> bool) -> Vec<Control> {
    let declines = census(DECLINES, &|_| {});
    let memo = census(MEMO, &|_| {});
    // (name, expect a trip, code, census, registry, red source, clean twin)
    type Case<'a> = (&'a str, bool, Code, &'a Census, &'a [u8], String, String);
    let ghost = |body: &str| format!("void F(int x) {{\n{body}}}\n");
    let cases: Vec<Case<'_>> = vec![
        ("clean-passes", false, Code::Cen001, &declines, GOOD_DEF, GOOD.into(), GOOD.into()),
        (
            "comment-only-site-trips",
            true,
            Code::Cen001,
            &declines,
            GHOST_DEF,
            "void F() {\n    // MGL_WIRE_DECLINE_AT(GhostRow, \"never counted\");\n    /* MGL_WIRE_DECLINE_AT(GhostRow, x); */\n}\n".into(),
            GHOST_GOOD.into(),
        ),
        (
            "string-literal-site-trips",
            true,
            Code::Cen001,
            &declines,
            GHOST_DEF,
            "const char* kDoc = \"MGL_WIRE_DECLINE_AT(GhostRow, x);\";\n".into(),
            GHOST_GOOD.into(),
        ),
        (
            "other-branch-log-trips",
            true,
            Code::Cen004,
            &declines,
            GHOST_DEF,
            ghost("    if (x == 1) {\n        MGLOG_W(\"x is one\");\n    }\n    if (x == 2) {\n        WireDeclineTally::Count(WireDeclineSite::GhostRow);\n    }\n"),
            ghost("    if (x == 2) {\n        MGLOG_W(\"x is two\");\n        WireDeclineTally::Count(WireDeclineSite::GhostRow);\n    }\n"),
        ),
        (
            "nested-branch-log-trips",
            true,
            Code::Cen004,
            &declines,
            GHOST_DEF,
            ghost("    if (x) {\n        if (x == 1) {\n            MGLOG_W(\"x is one\");\n        }\n        WireDeclineTally::Count(WireDeclineSite::GhostRow);\n    }\n"),
            ghost("    if (x) {\n        MGLOG_E(\"x\");\n        WireDeclineTally::Count(WireDeclineSite::GhostRow);\n    }\n"),
        ),
        (
            "debug-log-is-no-marker",
            true,
            Code::Cen004,
            &declines,
            GHOST_DEF,
            ghost("    if (x) {\n        MGLOG_D(\"compiled away in Release\");\n        /* MGLOG_W(\"x\"); */\n        WireDeclineTally::Count(WireDeclineSite::GhostRow);\n    }\n"),
            ghost("    if (x) {\n        MGLOG_W(\"x\");\n        WireDeclineTally::Count(WireDeclineSite::GhostRow);\n    }\n"),
        ),
        (
            "unknown-site-trips",
            true,
            Code::Cen003,
            &declines,
            GHOST_DEF,
            format!("{GHOST_GOOD}void G() {{\n    MGL_WIRE_DECLINE_AT(NotARow, \"x\");\n}}\n"),
            GHOST_GOOD.into(),
        ),
        (
            "duplicate-entry-trips",
            true,
            Code::Cen006,
            &declines,
            b"MGL_WIRE_DECLINE(GhostRow)\nMGL_WIRE_DECLINE(GhostRow)\n",
            GHOST_GOOD.into(),
            GHOST_GOOD.into(),
        ),
        (
            "forbidden-in-scope-trips",
            true,
            Code::Cen005,
            &memo,
            b"",
            MEMO_GOOD.replace("uint64_t key;", "uint64_t key = obj->GetLifetimeId();"),
            MEMO_GOOD.into(),
        ),
        (
            "idle-anchor-trips",
            true,
            Code::Cen007,
            &memo,
            b"",
            MEMO_GOOD.replace("struct BlendMemo", "struct BlendCache"),
            MEMO_GOOD.into(),
        ),
    ];
    let mut out: Vec<Control> = cases
        .into_iter()
        .map(|(name, expect, code, c, reg, red, clean)| {
            // The duplicate control's red is in the registry: neutered, it reads the clean one.
            let reg = if expect && neutered(name) && code == Code::Cen006 {
                GHOST_DEF
            } else {
                reg
            };
            let text = if expect && neutered(name) { clean } else { red };
            let registry = c.registry.as_ref().map(|_| reg);
            let (diags, _) = analyse(c, registry, &src(&text));
            Control::from_diags(name, expect, code, &diags)
        })
        .collect();
    // Exactly one site per name (unmigrated_emulation_sites.py): two sites of one name trip.
    let once = census(
        r#"
[[census]]
name = "unmigrated"
paths = ["R/*.cpp"]
each = "exactly-one"
registry = { file = "R/List.cpp", entry = '"((?:[^"\\]|\\.)*)"', block = 'kNames\s*\[\s*\]\s*=', mask = "comments" }
[[census.site]]
pattern = '\bMGPipeUnmigratedEmulation\s*\(\s*"((?:[^"\\]|\\.)*)"\s*\)'
mask = "comments"
"#,
        &|_| {},
    );
    let list = b"TEST(PipeCatalogue, EveryUnmigratedEmulationIsNamedOnce) {\n    // \"commented-out-name\"\n    const char* const kNames[] = {\n        \"a\",\n    };\n}\n";
    let name = "two-sites-trip";
    let calls = if neutered(name) { 1 } else { 2 };
    let body: String = (0..calls)
        .map(|_| "    MGPipeUnmigratedEmulation(\"a\");\n")
        .collect();
    let (diags, _) = analyse(&once, Some(list), &src(&format!("void S() {{\n{body}}}\n")));
    out.push(Control::from_diags(name, true, Code::Cen002, &diags));
    // An allow entry for a name that has a site is stale.
    let name = "stale-allow-trips";
    let stale = census(DECLINES, &|c| {
        c.allow.push(super::cfg::AllowConfig {
            entry: if neutered(name) {
                "Unwired"
            } else {
                "GhostRow"
            }
            .into(),
            why: "self-test".into(),
        })
    });
    let (diags, _) = analyse(
        &stale,
        Some(b"MGL_WIRE_DECLINE(GhostRow)\nMGL_WIRE_DECLINE(Unwired)\n"),
        &src(GHOST_GOOD),
    );
    out.push(Control::from_diags(name, true, Code::Cen008, &diags));
    out
}

/// On the workspace's own censuses: with every source taken away, each census with a registry
/// must report its entries as siteless (CEN001) — the census sees the sites it counts.
pub fn live_controls(
    root: &Path,
    censuses: &[CensusConfig],
    neutered: &dyn Fn(&str) -> bool,
) -> Vec<Control> {
    let name = "live-sources-removed";
    let mut tripped = false;
    let mut tried = 0;
    for c in censuses
        .iter()
        .filter(|c| c.registry.is_some() && c.allow.is_empty())
    {
        let Ok(k) = Census::compile(c) else { continue };
        let mut sink = Vec::new();
        let Some((Some(registry), sources)) = super::check::gather_for_control(root, c, &mut sink)
        else {
            continue;
        };
        tried += 1;
        let keep = if neutered(name) { sources } else { Vec::new() };
        let (diags, _) = analyse(&k, Some(&registry), &keep);
        tripped |= diags.iter().any(|d| d.code == Code::Cen001);
    }
    vec![Control {
        name: name.into(),
        expect_trip: true,
        tripped,
        detail: if tried == 0 {
            "no census with a registry (and no allow entries) could be read: nothing to take away"
                .into()
        } else {
            format!("{tried} census(es) with every source removed")
        },
    }]
}
