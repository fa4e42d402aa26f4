//! The `link-ratchet` gate's controls: canned objects through [`super::analyse`], each negative
//! control red for its own code; a neutered one is fed the clean twin. And a live control: the
//! workspace's own objects with one baseline symbol dropped must read as new reach.

use std::collections::BTreeMap;
use std::path::Path;

use super::cfg::{LinkRatchetConfig, PartitionRow, Role};
use super::{analyse, gather, Baseline, Code, Input, Object};
use diag::Control;

fn object(rel: &str, defined: &[&str], undefined: &[&str]) -> Object {
    Object {
        rel: rel.into(),
        defined: defined.iter().map(|s| s.to_string()).collect(),
        undefined: undefined.iter().map(|s| s.to_string()).collect(),
    }
}

fn row(prefix: &str, role: Role) -> PartitionRow {
    PartitionRow {
        prefix: prefix.into(),
        role,
        why: "self-test".into(),
    }
}

fn config() -> LinkRatchetConfig {
    LinkRatchetConfig {
        objects: "obj".into(),
        baseline: "baseline.txt".into(),
        cmake_cache: Some("CMakeCache.txt".into()),
        require: BTreeMap::from([("MOBILEGL_BUILD_DISAGGREGATED".into(), "ON".into())]),
        partition: vec![
            row("MG_Backend/", Role::Server),
            row("MG_State/", Role::Frontend),
            row("MG_Util/", Role::Shared),
        ],
    }
}

/// A server object needing one frontend symbol (recorded) and a shared one (never reach).
fn input(extra: Option<Object>, baseline: &str, option: &str) -> Input {
    let mut objects = vec![
        object(
            "MG_Backend/Submit.cpp.o",
            &["MG_Backend::Submit()"],
            &["MG_State::CurrentProgram()", "MG_Util::Log(char const*)"],
        ),
        object(
            "MG_State/Core.cpp.o",
            &["MG_State::CurrentProgram()", "MG_State::BoundTexture()"],
            &[],
        ),
        object("MG_Util/Log.cpp.o", &["MG_Util::Log(char const*)"], &[]),
    ];
    objects.extend(extra);
    Input {
        objects_dir: "obj".into(),
        objects,
        baseline: Some(Baseline::parse("baseline.txt", baseline)),
        cache: Some(BTreeMap::from([(
            "MOBILEGL_BUILD_DISAGGREGATED".into(),
            option.into(),
        )])),
        ..Input::default()
    }
}

const BASELINE: &str = "MG_State::CurrentProgram()  # P13\n";

pub fn run_controls(neutered: &dyn Fn(&str) -> bool) -> Vec<Control> {
    let cfg = config();
    let clean = || input(None, BASELINE, "ON");
    let pick = |name: &str, red: Input| if neutered(name) { clean() } else { red };
    let run = |name: &str, expect: bool, code: Code, i: Input, c: &LinkRatchetConfig| {
        Control::from_diags(name, expect, code, &analyse(c, &i).diags)
    };
    let reaching = object(
        "MG_Backend/Textures.cpp.o",
        &[],
        &["MG_State::BoundTexture()"],
    );
    let stray = object("MG_Remote/Client.cpp.o", &[], &[]);
    let mut no_shared = config();
    no_shared.partition.retain(|r| r.role != Role::Shared);
    no_shared
        .partition
        .push(row("MG_Util/Log.cpp.o", Role::Server));
    let mut idle = config();
    idle.partition.push(row("MG_Pipe/", Role::Server));
    let weak_only = object("MG_Backend/Weak.cpp.o", &[], &[]);
    let n = |s: &str| s.to_string();
    vec![
        run("clean-passes", false, Code::Lnk001, clean(), &cfg),
        {
            let name = n("new-reach-trips");
            run(
                &name,
                true,
                Code::Lnk001,
                pick(&name, input(Some(reaching), BASELINE, "ON")),
                &cfg,
            )
        },
        {
            let name = n("unclassified-object-trips");
            run(
                &name,
                true,
                Code::Lnk003,
                pick(&name, input(Some(stray), BASELINE, "ON")),
                &cfg,
            )
        },
        {
            let name = n("empty-role-trips");
            let c = if neutered(&name) { config() } else { no_shared };
            run(&name, true, Code::Lnk004, clean(), &c)
        },
        {
            let name = n("option-off-trips");
            run(
                &name,
                true,
                Code::Lnk005,
                pick(&name, input(None, BASELINE, "OFF")),
                &cfg,
            )
        },
        {
            let name = n("idle-row-trips");
            let c = if neutered(&name) { config() } else { idle };
            run(&name, true, Code::Lnk007, clean(), &c)
        },
        // Progress is never a red build: a symbol cleared from the reach is a note.
        run(
            "cleared-is-not-red",
            false,
            Code::Lnk002,
            input(None, "MG_State::CurrentProgram()\nMG_State::Gone()\n", "ON"),
            &cfg,
        ),
        // A weak reference obliges nobody (the object is read with `U` only).
        run(
            "weak-is-no-reach",
            false,
            Code::Lnk001,
            input(Some(weak_only), BASELINE, "ON"),
            &cfg,
        ),
    ]
}

/// On the workspace's own objects: each recorded symbol, dropped from the baseline, must come
/// back as new reach (LNK001); with an empty baseline and no reach there is nothing to drop, and
/// the control says so.
pub fn live_controls(
    root: &Path,
    cfg: &LinkRatchetConfig,
    neutered: &dyn Fn(&str) -> bool,
) -> Vec<Control> {
    let name = "live-dropped-baseline-entry";
    let mut input = gather(root, cfg);
    let Some(first) = input
        .baseline
        .as_ref()
        .and_then(|b| b.symbols.keys().next().cloned())
    else {
        return vec![Control {
            name: name.into(),
            expect_trip: true,
            tripped: false,
            detail: "the baseline records no symbol: nothing to drop (an empty ratchet cannot show it goes red)".into(),
        }];
    };
    if !neutered(name) {
        if let Some(b) = &mut input.baseline {
            b.symbols.remove(&first);
        }
    }
    let diags = analyse(cfg, &input).diags;
    let mut c = Control::from_diags(name, true, Code::Lnk001, &diags);
    c.tripped = diags
        .iter()
        .any(|d| d.code == Code::Lnk001 && d.unit.as_deref() == Some(first.as_str()));
    vec![c]
}
