//! `symbols self-test`: upstream's two canned transcripts with their five-bucket expectations,
//! and a negative control (must trip) plus positive controls (must stay quiet) per gate flag.

use std::path::Path;

use crate::cfg::{mobilegl_rules_profile, SymbolsConfig};
use crate::check::{allow_resizes, analyse_pair, request_from_config};
use crate::diff::{diff, Diff, DiffOptions, Side, SymRow};
use crate::gate::{evaluate, AllowEntry, GateOptions};
use crate::model::{
    Binding, Identity, Library, SectionSize, Symbol, Table, TableChoice, Visibility,
};
use crate::rules::{check_loaded, compile, Loaded, RuleOutcome};

fn row(name: &str, size: u64) -> SymRow {
    SymRow {
        mangled: name.into(),
        demangled: name.into(),
        kind: 'T',
        size,
        address: 0,
        version: None,
    }
}

fn sections(rows: &[(&str, u64)]) -> Vec<SectionSize> {
    rows.iter()
        .map(|(n, s)| SectionSize {
            name: (*n).into(),
            size: *s,
            address: 0,
        })
        .collect()
}

const STRIP: &str = "MobileGL::MG_State::GLState::ProgramObject::";

/// Upstream's canned before/after transcripts (names already plain text).
pub fn canned() -> (Side, Side) {
    let before = Side {
        identity: None,
        table: None,
        rows: vec![
            row(
                "MobileGL::MG_State::GLState::ProgramObject::LinkArtifacts::Reset()",
                0x10,
            ),
            row("MobileGL::MG_State::GLState::ProgramObject::Link()", 0x20),
            row("MobileGL::Gone()", 0x30),
            row("MobileGL::Grew()", 0x40),
            row("MobileGL::NoSize()", 0),
        ],
        sections: sections(&[(".text", 1000), (".data", 200), (".bss", 300)]),
        name_ids: None,
        version_nodes: 0,
        kept_mangled: 0,
    };
    let mut renamed = row("MobileGL::MG_State::GLState::LinkArtifacts::Reset()", 0x10);
    renamed.mangled = "_ZN8MobileGL8MG_State7GLState13LinkArtifacts5ResetEv".into();
    let after = Side {
        identity: None,
        table: None,
        rows: vec![
            renamed,
            row("MobileGL::MG_State::GLState::ProgramObject::Link()", 0x20),
            row("MobileGL::Grew()", 0x50),
            row("MobileGL::BrandNew()", 0x60),
            row("MobileGL::NoSize()", 0),
        ],
        sections: sections(&[(".text", 1100), (".data", 200), (".bss", 300)]),
        name_ids: None,
        version_nodes: 0,
        kept_mangled: 0,
    };
    (before, after)
}

fn opts() -> DiffOptions {
    DiffOptions {
        strip_scopes: vec![STRIP.into()],
        ..DiffOptions::default()
    }
}

fn with_text(mut d: Diff, before: u64, after: u64) -> Diff {
    for s in &mut d.sections {
        if s.name == ".text" {
            s.before = before;
            s.after = after;
            s.delta = after as i64 - before as i64;
        }
    }
    d
}

/// Run every check; `neutered` names negative controls to feed clean input (proves the
/// self-test itself can fail).
fn run(neutered: &dyn Fn(&str) -> bool) -> Vec<Control> {
    let (before, after) = canned();
    let d = diff(&before, &after, &opts());
    let l = &d.listing;
    let mut checks = Vec::new();
    // A positive check "trips" when what it expects does not hold.
    let mut expect = |name: &'static str, ok: bool, detail: String| {
        checks.push(Control {
            name: name.into(),
            expect_trip: false,
            tripped: !ok,
            detail,
        })
    };
    expect(
        "parsed-5-each",
        before.rows.len() == 5 && after.rows.len() == 5,
        format!("{} / {} rows", before.rows.len(), after.rows.len()),
    );
    let names = |v: &[crate::diff::Change]| {
        v.iter()
            .map(|c| (c.name.to_string(), c.delta))
            .collect::<Vec<_>>()
    };
    expect(
        "removed",
        names(&l.removed) == vec![("MobileGL::Gone()".to_string(), -0x30)],
        format!("{:?}", names(&l.removed)),
    );
    expect(
        "added",
        names(&l.added) == vec![("MobileGL::BrandNew()".to_string(), 0x60)],
        format!("{:?}", names(&l.added)),
    );
    expect(
        "resized",
        names(&l.resized) == vec![("MobileGL::Grew()".to_string(), 16)],
        format!("{:?}", names(&l.resized)),
    );
    expect(
        "renamed",
        names(&l.renamed)
            == vec![(
                "MobileGL::MG_State::GLState::LinkArtifacts::Reset()".to_string(),
                0,
            )],
        format!("{:?}", names(&l.renamed)),
    );
    expect(
        "unchanged",
        l.unchanged == 2,
        format!("{} unchanged", l.unchanged),
    );
    expect(
        "sections",
        before.section(".text") == 1000 && after.section("Total") == 1600,
        format!("after Total {}", after.section("Total")),
    );

    // Gate controls: (name, must trip, diff, gate options, clean diff for a neutered control).
    let set = GateOptions {
        fail_on_symbol_set_change: true,
        ..GateOptions::default()
    };
    let budget0 = GateOptions {
        fail_on_added_bytes: Some(0),
        ..GateOptions::default()
    };
    let budget100 = GateOptions {
        fail_on_added_bytes: Some(100),
        ..GateOptions::default()
    };
    let text = GateOptions {
        fail_on_text_delta: true,
        ..GateOptions::default()
    };
    let clean = diff(&before, &before, &opts());
    let only_resize = {
        let mut a = before.clone();
        a.rows[3].size = 0x50;
        a.rows[2].size = 0x20; // net zero
        diff(&before, &a, &opts())
    };
    let only_rename = {
        let mut a = before.clone();
        a.rows[1].mangled = "_Z4LinkOther".into();
        diff(&before, &a, &opts())
    };
    let admitted = GateOptions {
        fail_on_symbol_set_change: true,
        allow: vec![
            AllowEntry {
                bucket: crate::diff::Bucket::Resized,
                name: "MobileGL::Grew()".into(),
                origin: "self-test".into(),
            },
            AllowEntry {
                bucket: crate::diff::Bucket::Resized,
                name: "MobileGL::Gone()".into(),
                origin: "self-test".into(),
            },
        ],
        ..GateOptions::default()
    };
    let stale = GateOptions {
        strict_allow: true,
        allow: vec![AllowEntry {
            bucket: crate::diff::Bucket::Resized,
            name: "MobileGL::Nothing()".into(),
            origin: "self-test".into(),
        }],
        ..GateOptions::default()
    };
    let narrowed = {
        let o = DiffOptions {
            only_names: vec!["BrandNew".into()],
            ..opts()
        };
        let mut a = after.clone();
        a.rows.retain(|r| &*r.demangled != "MobileGL::BrandNew()");
        diff(&before, &a, &o)
    };
    let controls: Vec<(&'static str, bool, Diff, GateOptions, Option<usize>)> = vec![
        (
            "no-flag-informational",
            false,
            d.clone(),
            GateOptions::default(),
            Some(0),
        ),
        ("set-change-fires", true, d.clone(), set.clone(), Some(1)),
        ("budget-0-fires", true, d.clone(), budget0.clone(), Some(1)),
        (
            "budget-100-at-plus-100-quiet",
            false,
            d.clone(),
            budget100,
            Some(0),
        ),
        (
            "clean-set-change-plus-budget-0-text-only",
            true,
            with_text(clean.clone(), 1000, 1100),
            GateOptions {
                fail_on_added_bytes: Some(0),
                ..set.clone()
            },
            Some(1),
        ),
        (
            "budget-0-shrink-fires",
            true,
            with_text(clean.clone(), 5096, 1000),
            budget0,
            None,
        ),
        (
            "resize-at-zero-net-fires",
            true,
            with_text(only_resize, 1000, 1000),
            set.clone(),
            None,
        ),
        (
            "rename-at-zero-net-fires",
            true,
            with_text(only_rename, 1000, 1000),
            set.clone(),
            None,
        ),
        (
            "text-delta-shrink-fires",
            true,
            with_text(clean.clone(), 5096, 1000),
            text.clone(),
            None,
        ),
        (
            "text-delta-zero-quiet",
            false,
            with_text(clean.clone(), 1000, 1000),
            text,
            Some(0),
        ),
        (
            "only-names-never-narrows-gates",
            true,
            narrowed,
            set.clone(),
            None,
        ),
        (
            "allow-admits-named-resize-only",
            true,
            d.clone(),
            admitted,
            None,
        ),
        (
            "strict-allow-stale-fires",
            true,
            clean.clone(),
            stale,
            Some(1),
        ),
    ];
    for (name, must_trip, dd, g, exact) in controls {
        // A neutered control gets the clean pair and no allow entries (a stale one trips alone).
        let (input, g) = if must_trip && neutered(name) {
            let g = GateOptions {
                allow: Vec::new(),
                ..g
            };
            (with_text(clean.clone(), 1000, 1000), g)
        } else {
            (dd, g)
        };
        let out = evaluate(&input, &g);
        let tripped = out.failed();
        let count_ok = exact.is_none_or(|n| out.reasons.len() == n || neutered(name));
        // A negative control that trips with the wrong reason count has not behaved.
        let ok = tripped == must_trip && count_ok;
        checks.push(Control {
            name: name.into(),
            expect_trip: must_trip,
            tripped: ok == must_trip,
            detail: out
                .reasons
                .first()
                .cloned()
                .unwrap_or_else(|| format!("{} reason(s)", out.reasons.len())),
        });
    }
    checks
}

/// [`run`]'s checks (upstream `symbol_report.py --self-test`: the canned transcripts, the
/// buckets, every gate flag) as controls, so `symbols --self-test` and `check --self-test` run
/// and print one list through one report.
pub fn transcript_controls(neutered: &dyn Fn(&str) -> bool) -> Vec<Control> {
    run(neutered)
}

pub use diag::Control;

/// The `symbols` gate's controls: each feeds a canned pair through [`analyse_pair`] with the
/// gate's defaults (`fail_on_symbol_set_change`, `strict_allow`). A neutered negative control
/// is fed the identical pair and no admission, so it cannot trip.
pub fn run_controls(neutered: &dyn Fn(&str) -> bool) -> Vec<Control> {
    let (before, after) = canned();
    let mut cfg = SymbolsConfig::pair("pull.so", "push.so");
    cfg.strip_scope = vec![STRIP.into()];
    let grew = {
        let mut a = before.clone();
        for r in &mut a.rows {
            if &*r.demangled == "MobileGL::Grew()" {
                r.size = 0x50;
            }
        }
        a
    };
    let mut text_moved = before.clone();
    if let Some(s) = text_moved.sections.first_mut() {
        s.size += 64;
    }
    let allow = |n: &str| allow_resizes(&[n.to_string()], "self-test");
    let budget0 = SymbolsConfig {
        fail_on_added_bytes: Some(0),
        ..cfg.clone()
    };
    type Case<'a> = (&'a str, bool, &'a Side, &'a SymbolsConfig, Vec<AllowEntry>);
    let cases: Vec<Case<'_>> = vec![
        ("set-change", true, &after, &cfg, Vec::new()),
        (
            "unadmitted-resize",
            true,
            &grew,
            &cfg,
            allow("MobileGL::Gone()"),
        ),
        ("text-budget-0", true, &text_moved, &budget0, Vec::new()),
        (
            "stale-allow",
            true,
            &before,
            &cfg,
            allow("MobileGL::Nothing()"),
        ),
        ("identical-pair", false, &before, &cfg, Vec::new()),
        (
            "admitted-resize",
            false,
            &grew,
            &cfg,
            allow("MobileGL::Grew()"),
        ),
    ];
    cases
        .into_iter()
        .map(|(name, expect_trip, subject, c, allow)| {
            let (subject, allow) = if expect_trip && neutered(name) {
                (&before, Vec::new())
            } else {
                (subject, allow)
            };
            let mut req = match request_from_config(c, Path::new("")) {
                Ok(r) => r,
                Err(e) => {
                    return Control {
                        name: name.into(),
                        expect_trip,
                        tripped: !expect_trip,
                        detail: format!("control config rejected: {e}"),
                    }
                }
            };
            req.gates.allow = allow;
            let a = analyse_pair(before.clone(), subject.clone(), &req.opts, &req.gates);
            Control {
                name: name.into(),
                expect_trip,
                tripped: a.failed(),
                detail: a
                    .outcome
                    .reasons
                    .first()
                    .cloned()
                    .unwrap_or_else(|| "clean".into()),
            }
        })
        .collect()
}

fn canned_symbol(name: &str, defined: bool) -> Symbol {
    Symbol {
        name: name.into(),
        version: None,
        version_hidden: false,
        kind: if defined { 'T' } else { 'U' },
        address: 0,
        size: 0,
        binding: Binding::Global,
        visibility: Visibility::Default,
        defined,
    }
}

fn canned_library(defined: Vec<Symbol>, undefined: Vec<Symbol>) -> Library {
    Library {
        identity: Identity {
            path: "canned.so".into(),
            file_bytes: 0,
            machine: "x86-64".into(),
            class_bits: 64,
            little_endian: true,
            build_id: None,
            has_symtab: true,
            has_dynsym: true,
        },
        table: Table::Dynsym,
        dynamic: Vec::new(),
        defined,
        undefined,
        sections: Vec::new(),
    }
}

/// The `symbol-rules` gate's controls: the MobileGL profile's rules over canned libraries,
/// through [`check_loaded`] as a real run. A neutered control is fed the clean library.
pub fn run_rule_controls(neutered: &dyn Fn(&str) -> bool) -> Vec<Control> {
    let sym = canned_symbol;
    let clean = canned_library(
        vec![
            sym("mobilegl_server_main", true),
            sym("_ZN8MobileGL6MG_Net4SendEv", true),
        ],
        vec![sym("_ZN8MobileGL7MG_Pipe4PushEv", false)],
    );
    let reaches_state = canned_library(
        clean.defined.clone(),
        vec![sym("_ZN8MobileGL8MG_State7GLState4CoreEv", false)],
    );
    let uses_glslang = canned_library(
        clean.defined.clone(),
        vec![sym("_ZN7glslang8TProgram4linkEv", false)],
    );
    let no_entry = canned_library(vec![sym("_ZN8MobileGL6MG_Net4SendEv", true)], Vec::new());
    let defines_remote = canned_library(
        vec![
            sym("mobilegl_server_main", true),
            sym("_ZN8MobileGL9MG_Remote4PingEv", true),
        ],
        Vec::new(),
    );
    let Some(cfg) = mobilegl_rules_profile() else {
        return Vec::new();
    };
    let compiled = match compile(&cfg) {
        Ok(c) => c,
        Err(e) => {
            return vec![Control {
                name: "compile".into(),
                expect_trip: false,
                tripped: true,
                detail: format!("profile rules do not compile: {}", e.message),
            }]
        }
    };
    let cases: Vec<(&str, bool, &Library)> = vec![
        ("undefined-glstate", true, &reaches_state),
        ("undefined-glslang", true, &uses_glslang),
        ("entry-not-exported", true, &no_entry),
        ("monolith-defines-remote", true, &defines_remote),
        ("clean-libraries", false, &clean),
    ];
    cases
        .into_iter()
        .map(|(name, expect_trip, subject)| {
            let subject = if expect_trip && neutered(name) {
                &clean
            } else {
                subject
            };
            let mut libs = Loaded::new();
            for r in &cfg.rules {
                libs.insert((r.library.clone(), TableChoice::Auto), Ok(subject.clone()));
            }
            let results = check_loaded(&cfg, &compiled, &libs);
            let first = results
                .iter()
                .find(|r| r.failed())
                .map(|r| match &r.outcome {
                    RuleOutcome::Unreadable(e) => e.clone(),
                    RuleOutcome::Checked(v) => {
                        let rule = cfg.rules.get(r.index).map_or("?", |c| c.name.as_str());
                        match v.first() {
                            Some(v) if !v.demangled.is_empty() => {
                                format!(
                                    "rule `{rule}`: {} symbol `{}` matches /{}/",
                                    v.scope.as_str(),
                                    v.demangled,
                                    v.pattern
                                )
                            }
                            Some(v) => format!(
                                "rule `{rule}`: no {} symbol matches /{}/",
                                v.scope.as_str(),
                                v.pattern
                            ),
                            None => format!("rule `{rule}`"),
                        }
                    }
                });
            Control {
                name: name.into(),
                expect_trip,
                tripped: first.is_some(),
                detail: first.unwrap_or_else(|| "clean".into()),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_check_passes() {
        for c in run(&|_| false) {
            assert!(c.ok(), "{}: {}", c.name, c.detail);
        }
    }

    #[test]
    fn every_gate_control_behaves_and_a_neutered_one_cannot_trip() {
        for run in [run_controls, run_rule_controls] {
            let all = run(&|_| false);
            assert!(all.len() >= 5);
            for c in &all {
                assert_eq!(c.tripped, c.expect_trip, "{}: {}", c.name, c.detail);
            }
            let first = all.iter().find(|c| c.expect_trip).map(|c| c.name.clone());
            let first = first.unwrap_or_default();
            let neutered = run(&|n| n == first);
            assert!(neutered.iter().any(|c| c.name == first && !c.tripped));
        }
    }

    #[test]
    fn a_neutered_control_fails_the_self_test() {
        let checks = run(&|n| n == "set-change-fires");
        assert!(checks
            .iter()
            .any(|c| c.name == "set-change-fires" && !c.ok()));
    }
}
