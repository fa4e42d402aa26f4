//! The fault suite (issue 15 item 14): bounded, seeded, corpus-driven mutation campaigns per input
//! kind, each run through the real binary. Every run must: not panic (no exit 3, no "panicked"),
//! exit 0–2, name the input file on the last stderr line when it refuses the input (exit 2), stay
//! under a memory ceiling (`ulimit -v`), and write nothing in its directory. Each campaign prints its
//! tally (inputs, panics, wrong exits, stray writes) so the figures in the closing note are
//! reproducible: `cargo test -p mgctl --test cli faults:: -- --nocapture`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::util::*;

/// Mutations per corpus file; the whole suite stays well under a minute on two cores.
const PER_FILE: usize = 24;
/// A campaign stops starting runs after this long, whatever its count.
const BUDGET: Duration = Duration::from_secs(25);
/// Virtual-memory ceiling per run (KiB): far above any honest run, far below "read /dev/zero".
const MEMORY_KIB: u64 = 3 * 1024 * 1024;

/// xorshift64*: deterministic, so a failure reproduces from its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One mutation of `input`: flips, truncation, splices of hostile bytes, duplication.
fn mutate(input: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut v = input.to_vec();
    const HOSTILE: [&[u8]; 10] = [
        b"\xff\xfe",
        b"\r",
        b"\r\r\n",
        b"\0",
        b"\x1b[31m",
        b"::error::x\n",
        b"\\\n",
        b"Fatal{",
        b"R\"(",
        b"99999999999999999999999",
    ];
    for _ in 0..1 + rng.below(4) {
        if v.is_empty() {
            v.extend_from_slice(HOSTILE[rng.below(HOSTILE.len())]);
            continue;
        }
        let at = rng.below(v.len());
        match rng.below(6) {
            0 => v[at] ^= 1 << rng.below(8),
            1 => v[at] = rng.next() as u8,
            2 => v.truncate(at),
            3 => {
                let h = HOSTILE[rng.below(HOSTILE.len())];
                v.splice(at..at, h.iter().copied());
            }
            4 => {
                let end = (at + 1 + rng.below(64)).min(v.len());
                let chunk = v[at..end].to_vec();
                v.splice(at..at, chunk);
            }
            _ => {
                let end = (at + 1 + rng.below(16)).min(v.len());
                v.drain(at..end);
            }
        }
    }
    v
}

#[derive(Default)]
struct Tally {
    inputs: usize,
    panics: Vec<String>,
    wrong_exits: Vec<String>,
    unnamed_errors: Vec<String>,
    stray_writes: Vec<String>,
}

impl Tally {
    fn finish(self, campaign: &str) {
        println!(
            "fault campaign {campaign}: {} inputs, {} panics, {} wrong exits, {} refusals not naming the input, {} stray writes",
            self.inputs,
            self.panics.len(),
            self.wrong_exits.len(),
            self.unnamed_errors.len(),
            self.stray_writes.len()
        );
        assert!(self.inputs > 0, "campaign {campaign} ran nothing");
        for (what, list) in [
            ("panics", &self.panics),
            ("wrong exits", &self.wrong_exits),
            ("refusals not naming the input", &self.unnamed_errors),
            ("stray writes", &self.stray_writes),
        ] {
            assert!(
                list.is_empty(),
                "{campaign}: {what}:\n{}",
                list.join("\n---\n")
            );
        }
    }
}

fn listing(dir: &Path) -> BTreeSet<(PathBuf, u64)> {
    let mut out = BTreeSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let Ok(md) = e.metadata() else { continue };
            if md.is_dir() {
                stack.push(p);
            } else {
                out.insert((p, md.len()));
            }
        }
    }
    out
}

/// Runs `mgctl ARGS` in `cwd` under the memory ceiling and checks the run's contract.
fn run_checked(tally: &mut Tally, cwd: &Path, args: &[String], input: &Path, seed: u64) {
    let before = listing(cwd);
    let quoted: Vec<String> = args
        .iter()
        .map(|a| format!("'{}'", a.replace('\'', "'\\''")))
        .collect();
    let script = format!(
        "ulimit -v {MEMORY_KIB}; exec '{}' {}",
        bin(),
        quoted.join(" ")
    );
    let out = Command::new("sh")
        .arg("-c")
        .arg(&script)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    tally.inputs += 1;
    let code = out.status.code().unwrap_or(-1);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let what = format!(
        "seed {seed}: mgctl {} -> exit {code}\n{stderr}",
        args.join(" ")
    );
    if code == 3 || stderr.contains("panicked") || stderr.contains("internal error") {
        tally.panics.push(what.clone());
    } else if !(0..=2).contains(&code) {
        tally.wrong_exits.push(what.clone());
    } else if code == 2 {
        let name = input.file_name().unwrap().to_string_lossy().into_owned();
        let last = stderr.lines().last().unwrap_or("");
        if !last.contains(&name) {
            tally.unnamed_errors.push(what.clone());
        }
    }
    let after = listing(cwd);
    let input_entry: Vec<_> = after.iter().filter(|(p, _)| p == input).cloned().collect();
    let new: Vec<_> = after
        .difference(&before)
        .filter(|e| !input_entry.contains(e))
        .collect();
    if !new.is_empty() {
        tally.stray_writes.push(format!("{what}\nwrote {new:?}"));
    }
}

/// Mutates each corpus file in a scratch directory and runs `args(path)` on it.
fn campaign(name: &str, corpus: &[PathBuf], args: impl Fn(&Path) -> Vec<String>) {
    let dir = scratch();
    let mut tally = Tally::default();
    let start = Instant::now();
    for (i, file) in corpus.iter().enumerate() {
        let original = std::fs::read(file).unwrap();
        let target = dir.path().join(file.file_name().unwrap());
        for k in 0..PER_FILE {
            if start.elapsed() > BUDGET {
                break;
            }
            let seed = 0x9E37_79B9_7F4A_7C15 ^ ((i as u64) << 32 | k as u64);
            let mut rng = Rng(seed);
            std::fs::write(&target, mutate(&original, &mut rng)).unwrap();
            run_checked(&mut tally, dir.path(), &args(&target), &target, seed);
        }
    }
    tally.finish(name);
}

fn data(name: &str) -> PathBuf {
    repo_root().join("stats_viewer/tests/data").join(name)
}

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

#[test]
fn logs() {
    let corpus = [
        data("abB-push-DirectGLES.logcat.txt"),
        data("abA-pull-DirectGLES.mobilegl.log"),
        data("fatal-verify-DirectGLES.mobilegl.log"),
    ];
    campaign("log/summary", &corpus, |p| {
        vec!["stats".into(), "summary".into(), s(p)]
    });
    campaign("log/fatals", &corpus, |p| {
        vec!["stats".into(), "fatals".into(), "--verify".into(), s(p)]
    });
}

#[test]
fn benchmark_json() {
    let corpus = [data("benchmark-run1.json"), data("benchmark.json")];
    campaign("benchmark-json", &corpus, |p| {
        vec!["bench".into(), "frames".into(), s(p)]
    });
}

#[test]
fn driverbench() {
    let corpus = [
        data("driverbench-A-espryt-pull.csv"),
        data("driverbench-B-espryt-push.txt"),
    ];
    campaign("driverbench", &corpus, |p| {
        vec!["bench".into(), "driver".into(), s(p)]
    });
}

/// An ELF to mutate: the driver's library when built, else the C library every machine has.
fn elf() -> PathBuf {
    let built = driver().join("build/pull/libMobileGL.so");
    if built.exists() {
        return built;
    }
    [
        "/lib/x86_64-linux-gnu/libm.so.6",
        "/usr/lib/x86_64-linux-gnu/libm.so.6",
        "/lib64/libm.so.6",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|p| p.exists())
    .expect("an ELF shared object to mutate")
}

#[test]
fn elf_objects() {
    campaign("elf/list", &[elf()], |p| {
        vec!["symbols".into(), "list".into(), s(p)]
    });
    let base = elf();
    campaign("elf/diff", &[elf()], |p| {
        vec![
            "symbols".into(),
            "diff".into(),
            "--before".into(),
            s(&base),
            "--after".into(),
            s(p),
        ]
    });
}

/// C++ sources, the config and the docs are mutated inside a copy of driver/, and `check` runs
/// every gate on it: one bad file fails its gate, never the run.
fn workspace_campaign(name: &str, rel: &[&str], gates: &[&str]) {
    let (_guard, root) = copy_driver();
    let mut tally = Tally::default();
    let start = Instant::now();
    for (i, r) in rel.iter().enumerate() {
        let target = root.join(r);
        let original = std::fs::read(&target).unwrap();
        for k in 0..PER_FILE / 2 {
            if start.elapsed() > BUDGET {
                break;
            }
            let seed = 0xD1B5_4A32_D192_ED03 ^ ((i as u64) << 32 | k as u64);
            let mut rng = Rng(seed);
            std::fs::write(&target, mutate(&original, &mut rng)).unwrap();
            // --no-build: a mutated config must not start the driver build (slow, and it writes).
            let mut args = vec!["check".to_string(), "--no-build".to_string(), s(&root)];
            for g in gates {
                args.push("--only".into());
                args.push((*g).into());
            }
            run_checked(&mut tally, &root, &args, &target, seed);
        }
        std::fs::write(&target, &original).unwrap();
    }
    tally.finish(name);
}

#[test]
fn cpp_sources() {
    workspace_campaign(
        "c++",
        &[
            "MobileGL/MG_Impl/GLImpl/Blend/GL_Blend.cpp",
            "MobileGL/MG_Backend/DirectGLES/Managers.cpp",
            "MobileGL/MG_Pipe/MGPipeValueTypes.h",
        ],
        &[
            "dirty-surface",
            "include-probes",
            "include-layering",
            "preproc",
            "tokens",
            "regions",
        ],
    );
}

#[test]
fn config_toml() {
    workspace_campaign("toml", &["mgctl.toml"], &[]);
}

#[test]
fn docs() {
    let (_guard, root) = copy_driver();
    let docs: Vec<String> = std::fs::read_dir(root.join("docs/Disaggregated"))
        .unwrap()
        .flatten()
        .map(|e| format!("docs/Disaggregated/{}", e.file_name().to_string_lossy()))
        .filter(|p| p.ends_with(".md"))
        .collect();
    let rel: Vec<&str> = docs.iter().map(String::as_str).collect();
    workspace_campaign("docs", &rel, &["cite"]);
}
