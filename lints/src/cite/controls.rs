//! Canned negative and positive controls for `mgctl cite self-test` and the `cite` gate's
//! self-test. They run against an in-memory tree, never the workspace.

use std::collections::BTreeMap;

use super::check::{check, Options};
use super::model::{Form, Level};
use super::run::Code;
use super::scan::scan;
use super::tree::SourceTree;
use crate::diag::Control;

const TRACKER_H: &str = "#pragma once
// dirty bits the frontend publishes
enum MGPipeDirty : unsigned {
    NEW_RENDER_STATE = 1u << 0,
    NEW_VIEWPORT = 1u << 1,
};
struct MGPipeTracker {
    void Update(unsigned bits);
};
";

const RENDER_STATE_CPP: &str = "#include \"RenderState.h\"

// the capability switch

void RenderState::SetCapability(unsigned cap, bool on)
{
    switch (cap) {
    case 1: m_blend = on; break;
    default:
        RecordUnknown(cap);
    }
    BumpVersions();
}
";

fn tree() -> SourceTree {
    let mut files: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    files.insert(
        "MobileGL/MG_Impl/Pipe/Tracker.h".into(),
        TRACKER_H.as_bytes().to_vec(),
    );
    files.insert(
        "MobileGL/MG_State/GLState/RenderState.cpp".into(),
        RENDER_STATE_CPP.as_bytes().to_vec(),
    );
    for d in ["MobileGL", "MobileGL/MG_Backend", "MobileGL/MG_Impl"] {
        files.insert(format!("{d}/Init.cpp"), b"void Init() {}\n".to_vec());
    }
    files.insert(
        "docs/Disaggregated/ROADMAP.md".into(),
        b"# Roadmap\n".to_vec(),
    );
    SourceTree::in_memory("SELF-TEST", files)
}

/// One control's input: a document that must trip (`expect`) and its clean counterpart.
#[derive(Debug, Clone)]
pub struct Case {
    pub name: &'static str,
    /// The code (and, when set, the citation form) the dirty document must produce; None for a
    /// positive control (no error or warning allowed).
    pub expect: Option<(Code, Option<Form>)>,
    pub dirty: &'static str,
    pub clean: &'static str,
}

pub fn controls() -> Vec<Case> {
    let c = |name, code, form, dirty, clean| Case {
        name,
        expect: Some((code, form)),
        dirty,
        clean,
    };
    vec![
        c("past-end", Code::Cit006, None, "`Update` (`MG_Impl/Pipe/Tracker.h:99`).\n", "`Update` (`MG_Impl/Pipe/Tracker.h:8`).\n"),
        c("missing-file", Code::Cit001, None, "`Fill` (`MG_Impl/Pipe/Removed.h:3`).\n", "`NEW_VIEWPORT` in `Tracker.h:5`.\n"),
        c("ambiguous", Code::Cit002, None, "`Init` at `Init.cpp:1`.\n", "`Init` at `MG_Impl/Init.cpp:1`.\n"),
        c(
            "wrong-directory",
            Code::Cit003,
            None,
            "`NEW_RENDER_STATE` (`MG_Pipe/Tracker.h:4`).\n",
            "`NEW_RENDER_STATE` (`MG_Impl/Pipe/Tracker.h:4`).\n",
        ),
        c("moved", Code::Cit007, None, "`SetCapability` (`RenderState.cpp:3`).\n", "`SetCapability` (`RenderState.cpp:5`).\n"),
        c(
            "changed",
            Code::Cit008,
            None,
            "`RemovedHelper` (`RenderState.cpp:10`).\n",
            "`RecordUnknown` (`RenderState.cpp:10`).\n",
        ),
        c(
            "continuation-wrong-file",
            Code::Cit006,
            Some(Form::Continuation),
            "`MGPipeTracker` sits in `Tracker.h:7`, and the `default:` arm at (`:9-10`).\n",
            "`SetCapability` sits in `RenderState.cpp:5`, and the `default:` arm at (`:9-10`).\n",
        ),
        c(
            "comma-list-member-out-of-range",
            Code::Cit006,
            Some(Form::ListMember),
            "`SetCapability` and `BumpVersions` at `RenderState.cpp:5,12,120`.\n",
            "`SetCapability` and `BumpVersions` at `RenderState.cpp:5,12`.\n",
        ),
        c("line-zero", Code::Cit004, None, "`MGPipeDirty` (`Tracker.h:0`).\n", "`MGPipeDirty` (`Tracker.h:3`).\n"),
        c("inverted", Code::Cit005, None, "`MGPipeDirty` (`Tracker.h:6-3`).\n", "`MGPipeDirty` (`Tracker.h:3-6`).\n"),
        Case {
            name: "every-form-clean",
            expect: None,
            dirty: "`SetCapability` (`MobileGL/MG_State/GLState/RenderState.cpp:5-13`), its `default:` arm \
                    (:9\u{2013}10) and `BumpVersions` (`RenderState.cpp:12`); the `switch` spans RenderState.cpp:7\u{2013}11; `NEW_RENDER_STATE` and \
                    `NEW_VIEWPORT` at `Tracker.h:4,5`, `MGPipeTracker` at MG_Impl/Pipe/Tracker.h:7. \
                    See ROADMAP.md:1 at 10:45, ratio 3:2, §3.8, https://example.invalid/a/Tracker.h:4.\n\
                    | `Update` | `Tracker.h:8` |\n",
            clean: "",
        },
    ]
}

/// Run one control; `neutered` feeds a negative control its clean document (so it cannot trip).
pub fn run(control: &Case, neutered: bool) -> Control {
    let t = tree();
    let text = if neutered && control.expect.is_some() {
        control.clean
    } else {
        control.dirty
    };
    let doc = scan(
        "docs/Disaggregated/SELFTEST.md",
        Some("docs/Disaggregated"),
        text,
    );
    let report = match check(vec![doc], &t, &Options::default()) {
        Ok(r) => r,
        Err(e) => {
            return Control {
                name: control.name.to_string(),
                expect_trip: control.expect.is_some(),
                tripped: false,
                detail: e.to_string(),
            }
        }
    };
    let problems: Vec<_> = report
        .problems()
        .filter(|(_, _, p)| p.level() != Level::Note)
        .collect();
    let first = |it: Option<&(
        &super::model::Citation,
        &super::model::Checked,
        &super::model::Problem,
    )>| {
        it.map(|(c, _, p)| super::report::problem_line(&report, c, p))
            .unwrap_or_else(|| "no problem".to_string())
    };
    match control.expect {
        Some((code, form)) => {
            let hit = problems
                .iter()
                .find(|(c, _, p)| p.code() == code && form.is_none_or(|f| c.form == f));
            Control {
                name: control.name.to_string(),
                expect_trip: true,
                tripped: hit.is_some(),
                detail: if hit.is_some() {
                    first(hit)
                } else {
                    format!(
                        "expected {}, got: {}",
                        code.as_str(),
                        first(problems.first())
                    )
                },
            }
        }
        None => Control {
            name: control.name.to_string(),
            expect_trip: false,
            tripped: !problems.is_empty(),
            detail: format!(
                "{} citations ({} checked), {}",
                report.count(),
                report
                    .citations()
                    .filter(|(_, k)| k.class != super::model::Class::Uncheckable)
                    .count(),
                first(problems.first())
            ),
        },
    }
}

/// Every control, in the shape every lint gate's self-test takes; `neutered(name)` feeds that
/// negative control its clean document.
pub fn run_controls(neutered: &dyn Fn(&str) -> bool) -> Vec<Control> {
    controls()
        .iter()
        .map(|c| run(c, neutered(c.name)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_negative_trips_and_positive_stays_clean() {
        for c in controls() {
            let o = run(&c, false);
            assert!(o.ok(), "{}: {}", c.name, o.detail);
            if c.expect.is_some() {
                let n = run(&c, true);
                assert!(!n.tripped, "{} neutered still trips: {}", c.name, n.detail);
            }
        }
    }

    #[test]
    fn positive_control_covers_every_form() {
        let c = controls()
            .into_iter()
            .find(|c| c.expect.is_none())
            .map(|c| c.dirty)
            .unwrap_or_default();
        let d = scan("d.md", Some("docs/Disaggregated"), c);
        for f in Form::ALL {
            assert!(d.citations.iter().any(|c| c.form == f), "{f:?} missing");
        }
        assert_eq!(d.skipped.urls, 1);
    }
}
