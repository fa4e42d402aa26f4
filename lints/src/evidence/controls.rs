//! The `evidence` gate's controls. Canned: a two-entry lane (upstream's two RSP cases) with
//! client and server logs held in memory, run through [`check_inputs`]; each negative control
//! must trip its own code, and neutered it gets its clean twin. Live: on the configured
//! workspace, the first selected entry's log with the lines one `require` rule needs removed in
//! memory must go red (EVD001).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, SystemTime};

use diag::{Control, Diag};

use super::cfg::EvidenceConfig;
use super::check::{check_inputs, select, validate_one, Code, Disk, Files, Kind, Memory, Scope};

const GLES: &str = "DirectGLES.Split.P5fRsp.F1WireScenario.EachWireFrameHasZeroResidualPulls";
const VK: &str = "DirectVulkan.Split.P5fRsp.F1WireScenario.EachWireFrameHasZeroResidualPulls";
const JUNIT: &str = "build-split/ctest/split.xml";
const CLIENT: &str = "[09:41:07] [Linux MobileGL/INFO]: Config: MOBILEGL_TRANSPORT=inproc - the MGPipe record stream crosses a real ring\n\
[09:41:07] [Linux MobileGL/INFO]: Config: IPC run-ahead=1 strict=1 role-split-state=1\n";
const SERVER: &str =
    "[09:41:07] [Linux MobileGL/INFO]: Config: IPC run-ahead=1 strict=1 role-split-state=1\n\
[09:41:08] [Linux MobileGL/INFO]: MGPipe stats: frames=60 window=60 draws=2680\n";
const FATAL: &str =
    "[09:41:08] [Linux MobileGL/ERROR]: MGPipe: Fatal{ProtocolCorruption, server-side example}\n";

fn junit(body: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"Linux-c++\" tests=\"2\" time=\"9\">\n\
  <testcase name=\"{GLES}\" status=\"run\" time=\"4\"/>\n  <testcase name=\"{VK}\" status=\"run\" time=\"5\"/>\n{body}</testsuite>\n"
    )
}

fn config(mtimes: bool) -> String {
    format!(
        r#"name = "inproc-proof"
junit = "{JUNIT}"
tests = 'Direct\w+\.Split\.P5fRsp\.'
logs = {{ client = "build-split/logs/{{test}}.client.log", server = "build-split/logs/{{test}}.server.log" }}
require = [ {{ role = "client", pattern = 'Config: MOBILEGL_TRANSPORT=inproc - the MGPipe record stream' }}, {{ role = "both", pattern = '\bstrict=1\b' }} ]
forbid = [ {{ role = "both", pattern = 'Fatal\{{' }} ]
count = [ {{ role = "server", pattern = 'MGPipe stats: frames=', min = 1 }} ]
mtimes = {mtimes}
"#
    )
}

fn log(test: &str, role: &str) -> String {
    format!("build-split/logs/{test}.{role}.log")
}

/// When the canned run's JUnit was written; its logs were written 3 s before.
fn written() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000)
}

/// The canned workspace: its config text and its files (bytes, time).
struct World {
    config: String,
    files: BTreeMap<String, (Vec<u8>, Option<SystemTime>)>,
}

impl World {
    fn clean(mtimes: bool) -> World {
        let t = written();
        let log_t = Some(t - Duration::from_secs(3));
        let mut files = BTreeMap::new();
        files.insert(JUNIT.to_string(), (junit("").into_bytes(), Some(t)));
        for test in [GLES, VK] {
            files.insert(log(test, "client"), (CLIENT.as_bytes().to_vec(), log_t));
            files.insert(log(test, "server"), (SERVER.as_bytes().to_vec(), log_t));
        }
        World {
            config: config(mtimes),
            files,
        }
    }

    fn set(&mut self, rel: &str, bytes: &[u8]) {
        let t = self.files.get(rel).and_then(|(_, t)| *t);
        self.files.insert(rel.to_string(), (bytes.to_vec(), t));
    }

    fn run(self) -> Vec<Diag<Code>> {
        let cfg: EvidenceConfig = match toml::from_str(&self.config) {
            Ok(c) => c,
            Err(e) => {
                return vec![Diag::error(
                    Code::Evd008,
                    format!("canned config does not parse: {e}"),
                )]
            }
        };
        let files = Memory {
            files: self.files,
            base: None,
        };
        check_inputs(&files, std::slice::from_ref(&cfg)).diags
    }
}

/// Runs every canned control; `neutered(name)` feeds that negative control its clean twin.
pub fn run_controls(neutered: &dyn Fn(&str) -> bool) -> Vec<Control> {
    type Plant = fn(&mut World);
    let negatives: [(&str, Code, Plant); 10] = [
        ("required-line-absent", Code::Evd001, |w| {
            // upstream's self-test: an accepted env variable is not the transport running
            let text = CLIENT.replace(
                "Config: MOBILEGL_TRANSPORT=inproc - the MGPipe record stream crosses a real ring",
                "Config: Accepted env variable: MOBILEGL_TRANSPORT=inproc",
            );
            w.set(&log(GLES, "client"), text.as_bytes());
        }),
        ("fatal-in-server-log", Code::Evd002, |w| {
            w.set(&log(VK, "server"), format!("{SERVER}{FATAL}").as_bytes());
        }),
        ("count-out-of-range", Code::Evd003, |w| {
            let text: String = SERVER.lines().take(1).map(|l| format!("{l}\n")).collect();
            w.set(&log(GLES, "server"), text.as_bytes());
        }),
        ("missing-log", Code::Evd004, |w| {
            w.files.remove(&log(GLES, "server"));
        }),
        ("non-utf8-log", Code::Evd005, |w| {
            let mut b = CLIENT.as_bytes().to_vec();
            b.extend_from_slice(b"[09:41:08] [Linux MobileGL/INFO]: bad \xff\xfe bytes\n");
            w.set(&log(VK, "client"), &b);
        }),
        ("stale-log", Code::Evd006, |w| {
            *w = World::clean(true);
            if let Some((_, t)) = w.files.get_mut(&log(VK, "server")) {
                *t = Some(written() - Duration::from_secs(3600));
            }
        }),
        ("tests-select-nothing", Code::Evd007, |w| {
            w.config = w
                .config
                .replace(r"Direct\w+\.Split\.P5fRsp\.", r"DirectGLES\.Tcp\.");
        }),
        ("test-placeholder-missing", Code::Evd008, |w| {
            w.config = w
                .config
                .replace("logs/{test}.server.log", "logs/mobilegl.server.log");
        }),
        ("bad-regex", Code::Evd008, |w| {
            w.config = w.config.replace(r"'Fatal\{'", r"'Fatal\{('");
        }),
        ("junit-not-junit", Code::Evd009, |w| {
            w.set(JUNIT, b"<html><body>ctest crashed</body></html>\n");
        }),
    ];
    let mut out = Vec::new();
    for (name, code, plant) in negatives {
        let mut w = World::clean(name == "stale-log");
        if !neutered(name) {
            plant(&mut w);
        }
        out.push(Control::from_diags(name, true, code, &w.run()));
    }
    // positive controls: fresh logs that say everything, dated within the run; a skipped
    // entry is a note, not a red
    let d = World::clean(true).run();
    out.push(Control::from_diags(
        "clean-evidence",
        false,
        Code::Evd001,
        &d,
    ));
    let mut w = World::clean(false);
    w.set(
        JUNIT,
        junit("").replace(
            &format!("<testcase name=\"{VK}\" status=\"run\" time=\"5\"/>"),
            &format!("<testcase name=\"{VK}\" status=\"notrun\" time=\"0\"><skipped message=\"Disabled\"/></testcase>"),
        )
        .as_bytes(),
    );
    w.files.remove(&log(VK, "server"));
    let d = w.run();
    out.push(Control::from_diags(
        "skipped-entry-not-read",
        false,
        Code::Evd004,
        &d,
    ));
    out
}

fn failed(name: String, detail: String) -> Control {
    Control {
        name,
        expect_trip: true,
        tripped: false,
        detail,
    }
}

/// One live control per configured set (`live-<name>`), on the workspace at `root`, never
/// written: the first selected entry's log loses, in memory, every line its first `require`
/// rule (or, without one, its first `count` rule with a `min`) matches, and the set must go red
/// for it. A set with neither gets a positive control instead: its logs as they are must be clean.
/// `neutered(name)` runs that control without removing anything, so it cannot trip.
pub fn live_controls(
    root: &Path,
    cfgs: &[EvidenceConfig],
    neutered: &dyn Fn(&str) -> bool,
) -> Vec<Control> {
    let disk = Disk(root.to_path_buf());
    let mut out = Vec::new();
    for c in cfgs {
        let Ok(set) = validate_one(c) else {
            continue; // the gate reports it
        };
        let name = format!("live-{}", set.name);
        let rule = set
            .rules
            .iter()
            .find(|r| r.kind == Kind::Require)
            .or_else(|| {
                set.rules
                    .iter()
                    .find(|r| matches!(r.kind, Kind::Count { min: Some(m), .. } if m > 0))
            });
        let Some(rule) = rule else {
            let d = check_inputs(&disk, std::slice::from_ref(c)).diags;
            out.push(Control::from_diags(&name, false, Code::Evd001, &d));
            continue;
        };
        let want = if rule.kind == Kind::Require {
            Code::Evd001
        } else {
            Code::Evd003
        };
        let test = match select(&disk, &set) {
            Ok(s) => s.ran.into_iter().next().unwrap_or_default(),
            Err(d) => {
                out.push(failed(name, d.message));
                continue;
            }
        };
        let roles: Vec<usize> = match rule.scope {
            Scope::Role(r) => vec![r],
            Scope::Both => vec![0],
            Scope::Any => (0..set.roles.len()).collect(),
        };
        let mut files = BTreeMap::new();
        let mut removed = 0usize;
        let mut broke = Vec::new();
        for r in roles {
            let Some(role) = set.roles.get(r) else {
                continue;
            };
            let path = role.path(&test);
            let bytes = match diag::walk::read(&root.join(&path)) {
                Ok(b) => b,
                Err(e) => {
                    broke.push(format!("{path}: {e}"));
                    continue;
                }
            };
            let kept: Vec<u8> = if neutered(&name) {
                bytes
            } else {
                let text = String::from_utf8_lossy(&bytes);
                let mut k = String::with_capacity(text.len());
                for l in text.split_inclusive('\n') {
                    if rule.re.is_match(l.trim_end_matches(['\n', '\r'])) {
                        removed += 1;
                    } else {
                        k.push_str(l);
                    }
                }
                k.into_bytes()
            };
            files.insert(path.clone(), (kept, disk.mtime(&path)));
            broke.push(path);
        }
        let mem = Memory {
            files,
            base: Some(&disk),
        };
        let d: Vec<Diag<Code>> = check_inputs(&mem, std::slice::from_ref(c))
            .diags
            .into_iter()
            .filter(|d| d.message.contains(&format!("test {test}:")))
            .collect();
        let mut ctl = Control::from_diags(&name, true, want, &d);
        if !ctl.tripped {
            ctl.detail = format!(
                "removing {removed} line(s) matching `{}` from {} did not turn test {test} red",
                rule.re.as_str(),
                broke.join(", ")
            );
        }
        out.push(ctl);
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    #[test]
    fn every_canned_control_behaves_and_each_negative_can_be_neutered() {
        let all = super::run_controls(&|_| false);
        for c in &all {
            assert!(c.ok(), "{c:?}");
        }
        let proven = diag::controls_can_fail(&|n| super::run_controls(n));
        assert_eq!(proven, Ok(10));
    }

    #[test]
    fn each_negative_control_says_why_in_its_own_words() {
        let all = super::run_controls(&|_| false);
        let detail = |n: &str| all.iter().find(|c| c.name == n).unwrap().detail.clone();
        assert!(detail("fatal-in-server-log").contains(".server.log:3 matches forbidden"));
        assert!(detail("non-utf8-log").contains("2 bad byte(s), the first at byte offset"));
        assert!(detail("stale-log").contains("is stale: last written 3591 s before the run"));
        assert!(detail("test-placeholder-missing").contains("has no `{test}`"));
    }
}
