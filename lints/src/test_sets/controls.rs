//! The `test-sets` gate's controls: canned lanes through [`super::analyse`], and live controls
//! that plant a name or cover an exemption on the workspace's own lanes.

use super::cfg::TestSetsConfig;
use super::{analyse, analyse_planted, Code, Files, Plant};
use crate::diag::Control;

/// The canned configuration: split/spawn/tcp with their arm prefixes stripped, monolith ⊆ split.
const CONFIG: &str = r#"
[[lane]]
name = "split"
listing = "split.txt"
normalize = [{ regex = '^(Direct[A-Za-z]+)\.Split\.', replace = '$1.' }]
[[lane]]
name = "spawn"
listing = "spawn.txt"
normalize = [{ regex = '^(Direct[A-Za-z]+)\.Spawn\.', replace = '$1.' }]
[[lane]]
name = "monolith"
listing = "mono.txt"
[[equal]]
lanes = ["split", "spawn"]
[[subset]]
of = "monolith"
within = ["split"]
exemptions = "exempt.txt"
"#;

fn transcript(names: &[&str]) -> String {
    let mut s = String::from("Test project /b\n");
    for (i, n) in names.iter().enumerate() {
        s.push_str(&format!("  Test #{}: {n}\n", i + 1));
    }
    s.push_str(&format!("\nTotal Tests: {}\n", names.len()));
    s
}

const SPLIT: [&str; 2] = ["DirectGLES.Split.A.one", "DirectGLES.Split.A.two"];
const SPAWN: [&str; 2] = ["DirectGLES.Spawn.A.one", "DirectGLES.Spawn.A.two"];
const MONO: [&str; 3] = ["DirectGLES.A.one", "DirectGLES.A.two", "DirectGLES.B.three"];
const EXEMPT: &str =
    "# pattern class reason\nDirectGLES.B.* inproc-peek reads server state in-process owner=P8-B\n";

fn files(split: &[&str], spawn: &[&str], exempt: &str) -> Files {
    let mut f = Files::new();
    f.insert("split.txt".into(), Ok(transcript(split).into_bytes()));
    f.insert("spawn.txt".into(), Ok(transcript(spawn).into_bytes()));
    f.insert("mono.txt".into(), Ok(transcript(&MONO).into_bytes()));
    f.insert("exempt.txt".into(), Ok(exempt.as_bytes().to_vec()));
    f
}

fn run(name: &str, expect_trip: bool, code: Code, f: &Files) -> Control {
    let cfg: TestSetsConfig = match toml::from_str(CONFIG) {
        Ok(c) => c,
        Err(e) => {
            return Control {
                name: name.into(),
                expect_trip,
                tripped: !expect_trip,
                detail: format!("canned config: {e}"),
            }
        }
    };
    Control::from_diags(name, expect_trip, code, &analyse(f, &cfg).diags)
}

/// The canned controls; `neutered(name)` feeds that negative control its clean twin.
pub fn run_controls(neutered: &dyn Fn(&str) -> bool) -> Vec<Control> {
    let clean = files(&SPLIT, &SPAWN, EXEMPT);
    let pick = |name: &str, red: Files| {
        if neutered(name) {
            files(&SPLIT, &SPAWN, EXEMPT)
        } else {
            red
        }
    };
    let n = "missing-name-trips";
    let missing = pick(n, files(&SPLIT, &SPAWN[..1], EXEMPT));
    let mut out = vec![run(n, true, Code::Tss001, &missing)];
    let n = "empty-set-trips";
    out.push(run(
        n,
        true,
        Code::Tss002,
        &pick(n, files(&SPLIT, &[], EXEMPT)),
    ));
    let n = "stale-exemption-trips";
    let stale = format!("{EXEMPT}DirectGLES.A.one mechanism covered now owner=P8-B\n");
    out.push(run(
        n,
        true,
        Code::Tss004,
        &pick(n, files(&SPLIT, &SPAWN, &stale)),
    ));
    let n = "unmatched-exemption-trips";
    let nothing = format!("{EXEMPT}DirectGLES.Z.* mechanism renamed away owner=P8-B\n");
    out.push(run(
        n,
        true,
        Code::Tss005,
        &pick(n, files(&SPLIT, &SPAWN, &nothing)),
    ));
    let n = "exemption-without-owner-trips";
    let ownerless = "DirectGLES.B.* inproc-peek reads server state in-process\n";
    out.push(run(
        n,
        true,
        Code::Tss006,
        &pick(n, files(&SPLIT, &SPAWN, ownerless)),
    ));
    let n = "uncovered-name-trips";
    out.push(run(
        n,
        true,
        Code::Tss003,
        &pick(n, files(&SPLIT, &SPAWN, "# none\n")),
    ));
    out.push(run("equal-sets-pass", false, Code::Tss001, &clean));
    out
}

/// [`live_controls`] over the workspace at `root`.
pub fn live(
    root: &std::path::Path,
    cfg: &TestSetsConfig,
    neutered: &dyn Fn(&str) -> bool,
) -> Vec<Control> {
    live_controls(&super::read_files(root, cfg), cfg, neutered)
}

/// Controls over the workspace's own lanes (already read into `files`): a name planted in the
/// first lane of the first equal group must be missing from the others (TSS001), a name planted
/// in a subset's `of` lane must be uncovered (TSS003), and covering every name of a subset with
/// an exemption table must make its rows stale (TSS004).
pub fn live_controls(
    files: &Files,
    cfg: &TestSetsConfig,
    neutered: &dyn Fn(&str) -> bool,
) -> Vec<Control> {
    const PLANTED: &str = "mgctl.live-control.planted";
    let mut out = Vec::new();
    let plant = |name: &str, p: Plant| if neutered(name) { Plant::None } else { p };
    if let Some(lane) = cfg.equal.first().and_then(|e| e.lanes.get_ref().first()) {
        let n = "live-missing-name";
        let o = analyse_planted(
            files,
            cfg,
            &plant(n, Plant::AddName(lane.clone(), PLANTED.into())),
        );
        out.push(Control::from_diags(n, true, Code::Tss001, &o.diags));
    }
    if let Some(s) = cfg.subset.first() {
        let n = "live-uncovered-name";
        let p = Plant::AddName(s.of.get_ref().clone(), PLANTED.into());
        let o = analyse_planted(files, cfg, &plant(n, p));
        out.push(Control::from_diags(n, true, Code::Tss003, &o.diags));
    }
    if let Some(i) = cfg.subset.iter().position(|s| s.exemptions.is_some()) {
        let n = "live-stale-exemption";
        let o = analyse_planted(files, cfg, &plant(n, Plant::CoverAll(i)));
        out.push(Control::from_diags(n, true, Code::Tss004, &o.diags));
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn controls_behave_and_neutering_breaks_each() {
        let all = super::run_controls(&|_| false);
        assert!(all.iter().all(|c| c.ok()), "{all:?}");
        let proven = diag::controls_can_fail(&|n| super::run_controls(n));
        assert!(matches!(proven, Ok(n) if n >= 6), "{proven:?}");
    }
}
