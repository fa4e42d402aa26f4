//! The fault suite (issue 15 item 14): bounded, seeded, corpus-driven mutation campaigns per input
//! kind, each run through the real binary. Every run must: not panic (no exit 3, no "panicked"),
//! exit 0–2, name the input file on the last stderr line when it refuses the input (exit 2), stay
//! under a memory ceiling (`ulimit -v`), and write nothing in its directory. Each campaign prints its
//! tally (inputs, panics, wrong exits, stray writes) so the figures in the closing note are
//! reproducible: `cargo test -p mgctl --test cli faults:: -- --nocapture`. The hand-built inputs
//! of issue 29's second campaign (`hostile_*`) print one tally per class (`hostile/file-system`,
//! `hostile/file-system/links`, `hostile/names/outputs`, `hostile/names/markdown`,
//! `hostile/names/non-utf8`, `hostile/signals`): inputs tried and how many went wrong.

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

/// The second hostile-input campaign (issue 29): hand-built inputs per class, each judged by its
/// own contract (no hang, inert output). Each class prints its tally as the mutation campaigns do.
#[derive(Default)]
struct Hostile {
    inputs: usize,
    wrong: Vec<String>,
}

impl Hostile {
    fn case(&mut self, label: &str, outcome: Result<(), String>) {
        self.inputs += 1;
        if let Err(why) = outcome {
            self.wrong.push(format!("{label}: {why}"));
        }
    }

    fn finish(self, class: &str) {
        println!(
            "fault campaign hostile/{class}: {} inputs, {} wrong",
            self.inputs,
            self.wrong.len()
        );
        assert!(self.inputs > 0, "class {class} ran nothing");
        assert!(
            self.wrong.is_empty(),
            "hostile/{class}: {} wrong:\n{}",
            self.wrong.len(),
            self.wrong.join("\n---\n")
        );
    }
}

/// Runs `mgctl ARGS` in `cwd` under the memory ceiling, killed after `secs`: Err when it did not
/// finish (a hang), else its exit code and stdout.
fn run_bounded(args: &[&str], cwd: &Path, secs: u64) -> Result<(i32, String), String> {
    let quoted: Vec<String> = args
        .iter()
        .map(|a| format!("'{}'", a.replace('\'', "'\\''")))
        .collect();
    let script = format!(
        "ulimit -v {MEMORY_KIB}; exec '{}' {}",
        bin(),
        quoted.join(" ")
    );
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(&script)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stdout, &mut s);
        s
    });
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let out = reader.join().unwrap();
            return Ok((
                status.code().unwrap_or(-1),
                String::from_utf8_lossy(&out).into_owned(),
            ));
        }
        if start.elapsed() > Duration::from_secs(secs) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("mgctl {} did not end in {secs} s", args.join(" ")));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// What a gate measured in a `check --format json` report: verdict, figures, inputs, finding codes.
fn gate_summary(json: &str, gate: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(json).unwrap_or_default();
    let Some(g) = v["gates"]
        .as_array()
        .and_then(|gs| gs.iter().find(|g| g["gate"] == gate))
    else {
        return format!("{gate}: not in the report");
    };
    let codes: Vec<&str> = g["findings"]
        .as_array()
        .map(|f| f.iter().filter_map(|f| f["code"].as_str()).collect())
        .unwrap_or_default();
    format!(
        "{gate}: {} {} inputs={} codes={codes:?}",
        g["verdict"], g["figures"], g["inputs"]
    )
}

/// Issue 29 (worst): `up -> ..` links under a run's `pull/` and `push/` made budgets, counters and
/// fatals (with a `**` glob) walk forever with unbounded memory; one link read every input ~41
/// times. The linked tree ends, with the same verdicts, figures and inputs as the plain tree.
#[test]
fn hostile_file_system() {
    let mut h = Hostile::default();
    let (_guard, root) = copy_driver();
    let config = root.join("mgctl.toml");
    let text = std::fs::read_to_string(&config).unwrap().replace(
        "logs = [\"MobileGL/MG_Test/logs/*.log\"]",
        "logs = [\"MobileGL/MG_Test/logs/*.log\", \"MobileGL/**/push/mobilegl.log\"]",
    );
    std::fs::write(&config, text).unwrap();
    let root_s = s(&root);
    let gates = ["budgets", "counters", "fatals"];
    let mut args = vec!["check", "--no-build", "--format", "json"];
    for g in &gates {
        args.extend(["--only", g]);
    }
    args.extend(["--", root_s.as_str()]);
    let summary = |out: &(i32, String)| -> String {
        let per_gate: Vec<String> = gates.iter().map(|g| gate_summary(&out.1, g)).collect();
        format!("exit {}\n{}", out.0, per_gate.join("\n"))
    };
    let plain = run_bounded(&args, &root, 60).map(|o| summary(&o));
    let runs = root.join("MobileGL/MG_Test/runs");
    let run = std::fs::read_dir(&runs)
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    let link = |side: &str| std::os::unix::fs::symlink("..", run.join(side).join("up")).unwrap();
    let compare = |h: &mut Hostile, label: &str| {
        let linked = run_bounded(&args, &root, 60).map(|o| summary(&o));
        h.case(
            label,
            match (&plain, linked) {
                (Ok(p), Ok(l)) if *p == l => Ok(()),
                (Ok(p), Ok(l)) => {
                    let cut = |t: &str| t.chars().take(1500).collect::<String>();
                    Err(format!(
                        "plain tree:\n{}\nlinked tree:\n{}",
                        cut(p),
                        cut(&l)
                    ))
                }
                (Err(e), _) => Err(e.clone()),
                (_, Err(e)) => Err(e),
            },
        );
    };
    link("pull");
    compare(&mut h, "one `up -> ..` link");
    link("push");
    compare(&mut h, "two `up -> ..` links");
    // The whole check of the two-link tree ends too (the include gates see the loops as well).
    let all = [
        "check",
        "--no-build",
        "--format",
        "json",
        "--",
        root_s.as_str(),
    ];
    h.case(
        "two links, every gate",
        run_bounded(&all, &root, 60).map(|_| ()),
    );
    h.finish("file-system");
}

/// Copies `from` to `to` recursively.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

/// A file name that, printed raw, is a second line GitHub runs as a workflow command and a
/// terminal runs as an escape sequence.
const HOSTILE_NAME: &str = "a\n::error file=README.md,line=1,title=Security::\u{1b}]0;pwned\u{7}x";

/// Err naming the first line of `out` that a GitHub runner or a terminal would act on.
fn inert_lines(out: &str) -> Result<(), String> {
    for l in out.lines() {
        if l.trim_start().starts_with("::") || l.contains('\u{1b}') || l.contains('\u{7}') {
            return Err(format!("live line {l:?} in:\n{out}"));
        }
    }
    Ok(())
}

/// Issue 29, hostile names: `include rules` / `include closure` (human and github) printed file
/// names raw; `check --format html` wrote `href="javascript:…"` for a file of that name, hrefs
/// were never URL-encoded and the page had no Content-Security-Policy.
#[test]
fn hostile_names_in_outputs() {
    let mut h = Hostile::default();
    let (_guard, root) = copy_driver();
    let backend = format!("MobileGL/MG_Backend/Common/{HOSTILE_NAME}.cpp");
    write_tree(
        &root,
        &[(
            backend.as_str(),
            "#include \"MG_State/GLState/Core.h\"\nint f();\n",
        )],
    );
    for format in ["human", "github"] {
        let r = mgctl(&["include", "rules", "--format", format], &root);
        h.case(
            &format!("include rules --format {format}"),
            match r.code {
                1 if r.stdout.contains("::error file=README.md") => inert_lines(&r.stdout),
                _ => Err(format!(
                    "the planted violation is not reported\n{}",
                    r.dump()
                )),
            },
        );
        let r = mgctl(&["include", "closure", &backend, "--format", format], &root);
        h.case(
            &format!("include closure --format {format}"),
            match r.code {
                0 if r.stdout.contains("MG_State/GLState/Core.h") => inert_lines(&r.stdout),
                _ => Err(format!("no closure\n{}", r.dump())),
            },
        );
    }

    // A workspace whose forbidden-token findings sit at root files with hostile names.
    let d = scratch();
    let names = ["javascript:alert(document.domain).h", "a b#c?%.h"];
    let mut tree: Vec<(&str, &str)> = names.iter().map(|n| (*n, "int evil;\n")).collect();
    tree.push((
        "mgctl.toml",
        "[[tokens.rule]]\nname = \"no-evil\"\nident = \"evil\"\npaths = [\"*.h\"]\nmask = \"none\"\nmessage = \"no evil\"\n",
    ));
    write_tree(d.path(), &tree);
    let r = mgctl(
        &["check", "--only", "tokens", "--format", "html", "."],
        d.path(),
    );
    let html = r.stdout.clone();
    let hrefs: Vec<String> = regex::Regex::new(r#"href="([^"]*)""#)
        .unwrap()
        .captures_iter(&html)
        .map(|c| c[1].to_string())
        .collect();
    let csp = "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\"/>";
    h.case(
        "check --format html, hostile root file names",
        if r.code != 1 || !html.contains("javascript") {
            Err(format!("no finding at the hostile files\n{}", r.dump()))
        } else if let Some(bad) = hrefs.iter().find(|h| {
            let scheme = h.split_once(':').map(|(s, _)| s);
            scheme.is_some_and(|s| !s.contains('/') && s != "file" && s != "https")
                || h.contains(' ')
                || (h.matches('#').count() > 1)
                || h.contains('?')
        }) {
            Err(format!("href {bad:?} is a script link or not encoded"))
        } else if !hrefs
            .iter()
            .any(|h| h.starts_with("file:///") && h.ends_with("/a%20b%23c%3F%25.h#L1"))
        {
            Err(format!("no encoded href with its line: {hrefs:?}"))
        } else if !html.contains(csp) {
            Err("no Content-Security-Policy meta".to_string())
        } else {
            Ok(())
        },
    );
    let page = d.path().join("report.html");
    std::fs::write(&page, &html).unwrap();
    crate::html::assert_self_contained(&html);
    crate::html::assert_renders(&page);
    h.finish("names/outputs");
}

/// cmark-gfm's rendering of `markdown` (tables on); its table rows as cell texts.
fn gfm_rows(markdown: &str) -> (String, Vec<Vec<String>>) {
    use std::io::Write as _;
    let mut child = Command::new("cmark-gfm")
        .args(["-e", "table"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("cmark-gfm is a test requirement (apt-get install cmark-gfm)");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(markdown.as_bytes())
        .unwrap();
    let html = String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap();
    let cell = regex::Regex::new(r"(?s)<t[dh][^>]*>(.*?)</t[dh]>").unwrap();
    let rows = html
        .split("<tr>")
        .skip(1)
        .map(|r| {
            let r = r.split("</tr>").next().unwrap_or("");
            cell.captures_iter(r).map(|c| c[1].to_string()).collect()
        })
        .collect();
    (html, rows)
}

/// Err unless every table row of `markdown` has the header's cell count, the first body row's
/// first cell shows `marker`, and the rendered page carries no markup from the input.
fn intact_table(markdown: &str, marker: &str) -> Result<Vec<String>, String> {
    let (html, rows) = gfm_rows(markdown);
    let Some(width) = rows.first().map(Vec::len) else {
        return Err(format!("no table in:\n{markdown}"));
    };
    if let Some(r) = rows.iter().find(|r| r.len() != width) {
        return Err(format!(
            "a row of {} cells under {width} headers: {r:?}\n{markdown}",
            r.len()
        ));
    }
    if html.contains("<img") || html.contains("<a ") || html.contains("<b>") {
        return Err(format!("input became markup:\n{html}"));
    }
    match rows.get(1) {
        Some(r) if r[0].contains(marker) => Ok(r.clone()),
        r => Err(format!("first row {r:?} lacks {marker:?}\n{markdown}")),
    }
}

/// Issue 29, Markdown: `bench ab|frames|driver` and `stats summary` wrote input-derived cells raw;
/// a `tracePath` with pipes forged the A/B row (Δp99 read `+0.000`). Rendered by cmark-gfm, every
/// row keeps its columns and the input stays text.
#[test]
fn hostile_markdown_cells() {
    let mut h = Hostile::default();
    let d = scratch();
    let runs = d.path().join("runs");
    copy_tree(&repo_root().join("mgctl/tests/fixtures/ab-runs"), &runs);
    // No `/` after the directory: the case is the trace's file name.
    let evil = "/t/evil | DirectGLES | yes | 1 | 1 | +0.000 | 1 | 1 | +0.000 `x` <img src=x onerror=alert(1)> <b>@admin<b>.trace";
    let evil_json = serde_json::to_string(evil).unwrap();
    let trace = regex::Regex::new(r#""tracePath":\s*"[^"]*""#).unwrap();
    let mut benchmarks = Vec::new();
    let mut stack = vec![runs.clone()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "json") {
                let text = std::fs::read_to_string(&p).unwrap();
                let text = trace.replace(&text, format!("\"tracePath\": {evil_json}").as_str());
                std::fs::write(&p, text.as_ref()).unwrap();
                benchmarks.push(p);
            }
        }
    }
    let r = mgctl(&["bench", "ab", ".", "--format", "markdown"], &runs);
    h.case(
        "bench ab --format markdown, hostile tracePath",
        intact_table(&r.stdout, "evil").and_then(|row| match row.get(8) {
            Some(c) if c == "+5.829" => Ok(()),
            c => Err(format!("Δ p99 reads {c:?}, not +5.829: {row:?}")),
        }),
    );
    let pull = runs.join("minecraft-26.3-vanilla-in-world-DirectGLES/pull");
    let r = mgctl(&["bench", "frames", ".", "--format", "markdown"], &pull);
    h.case(
        "bench frames --format markdown, hostile tracePath",
        // GFM drops the cells past the header's count: the forged row shows in its cells.
        intact_table(&r.stdout, "").and_then(|row| match (row.get(1), row.last()) {
            (Some(c), Some(m))
                if c.contains("evil") && c.ends_with("/ DirectGLES") && m == "nearest rank" =>
            {
                Ok(())
            }
            _ => Err(format!("forged row {row:?}")),
        }),
    );

    // DriverBench arms named by the command line, and a log whose file name is hostile.
    let arm = "p|q`<b>x"; // no `=`: that separates the name from the file
    let bench = data("driverbench-A-espryt-pull.csv");
    let r = mgctl(
        &[
            "bench",
            "driver",
            &format!("{arm}={}", s(&bench)),
            "--format",
            "markdown",
        ],
        d.path(),
    );
    h.case(
        "bench driver --format markdown, hostile arm name",
        intact_table(&r.stdout, "").map(|_| ()),
    );
    let log = d.path().join("a|b`<img src=x>.log");
    std::fs::copy(data("abA-pull-DirectGLES.mobilegl.log"), &log).unwrap();
    let r = mgctl(
        &["stats", "summary", "--format", "markdown", &s(&log)],
        d.path(),
    );
    h.case(
        "stats summary --format markdown, hostile log name",
        intact_table(&r.stdout, "a|b").map(|_| ()),
    );
    h.finish("names/markdown");
}

/// Commits every file of `dir` (a repository made on first use).
fn commit_all(dir: &Path) {
    let repo = git2::Repository::open(dir).unwrap_or_else(|_| git2::Repository::init(dir).unwrap());
    let mut index = repo.index().unwrap();
    index
        .add_all(["*"], git2::IndexAddOption::DEFAULT, None)
        .unwrap();
    index.write().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let sig = git2::Signature::now("t", "t@example.invalid").unwrap();
    let parent = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
    let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
    repo.commit(
        Some("HEAD"),
        &sig,
        &sig,
        "[Test] (faults): tree",
        &tree,
        &parents,
    )
    .unwrap();
}

/// Err unless `check --only GATE` fails with a finding located at a path containing `at`, and
/// says nothing of a missing file (a lossy path read back).
fn fails_at(root: &Path, gate: &str, at: &str) -> Result<(), String> {
    let r = mgctl(&["check", "--only", gate, "--format", "json", "."], root);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap_or_default();
    let located = v["gates"].as_array().into_iter().flatten().any(|g| {
        g["gate"] == gate
            && g["findings"].as_array().into_iter().flatten().any(|f| {
                f["severity"] == "error"
                    && f["location"]["path"]
                        .as_str()
                        .is_some_and(|p| p.contains(at))
            })
    });
    if r.code == 1 && located && !r.stdout.contains("No such file") {
        Ok(())
    } else {
        Err(format!("no error finding at {at:?}\n{}", r.dump()))
    }
}

/// Issue 29, non-UTF-8 names: in git mode preproc dropped a tracked file whose name is not UTF-8
/// (rc 0 where the UTF-8 copy fails), and tokens / fatal-sites read the lossy name back and failed
/// with a false "No such file or directory". The file is scanned and judged like any other.
#[test]
fn hostile_non_utf8_names() {
    use std::os::unix::ffi::OsStrExt;
    let mut h = Hostile::default();
    let (_guard, root) = copy_driver();
    let name = std::ffi::OsStr::from_bytes(b"Fill\xff.cpp");
    std::fs::write(
        root.join("MobileGL/MG_Backend/Common").join(name),
        "#ifdef MGB_CTX\n#endif\nvoid f() { pGLContext->draw(); }\n",
    )
    .unwrap();
    std::fs::write(root.join("MobileGL/MG_Remote").join(name), "int x;\n").unwrap();
    commit_all(&root);
    h.case(
        "preproc, tracked non-UTF-8 name",
        fails_at(&root, "preproc", "Fill"),
    );
    h.case("tokens, non-UTF-8 name", fails_at(&root, "tokens", "Fill"));
    let r = mgctl(&["check", ".", "--only", "fatal-sites"], &root);
    h.case(
        "fatal-sites, non-UTF-8 name",
        match r.code {
            0 if !r.stdout.contains("No such file") => Ok(()),
            _ => Err(r.dump()),
        },
    );
    h.finish("names/non-utf8");
}

/// Issue 29, links: tokens skipped a symlinked source (a backend `Fill.cpp` linking to a file with
/// `pGLContext` passed where a plain copy fails). What the compiler reads through a link is
/// judged, at the link's path.
#[test]
fn hostile_symlinked_sources() {
    let mut h = Hostile::default();
    let (_guard, root) = copy_driver();
    let outside = root.join("MobileGL/MG_Impl/Pipe");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(
        outside.join("PipeFill.cpp"),
        "void f() { pGLContext->draw(); }\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(
        "../../MG_Impl/Pipe/PipeFill.cpp",
        root.join("MobileGL/MG_Backend/Common/Fill.cpp"),
    )
    .unwrap();
    h.case(
        "tokens, backend source linking to a violation",
        fails_at(&root, "tokens", "MobileGL/MG_Backend/Common/Fill.cpp"),
    );
    // A backend header linking into MG_Impl, included from the backend: g++ compiles it.
    std::fs::remove_file(root.join("MobileGL/MG_Backend/Common/Fill.cpp")).unwrap();
    std::os::unix::fs::symlink(
        "../../MG_Impl/Pipe/PipeFill.h",
        root.join("MobileGL/MG_Backend/Common/Fill.h"),
    )
    .unwrap();
    let managers = root.join("MobileGL/MG_Backend/DirectGLES/Managers.cpp");
    let text = std::fs::read_to_string(&managers).unwrap();
    std::fs::write(
        &managers,
        format!("#include \"MG_Backend/Common/Fill.h\"\n{text}"),
    )
    .unwrap();
    let r = mgctl(&["include", "rules"], &root);
    h.case(
        "include-layering, backend header linking into MG_Impl",
        match r.code {
            1 if r
                .stdout
                .contains("includes MobileGL/MG_Backend/Common/Fill.h") =>
            {
                Ok(())
            }
            _ => Err(r.dump()),
        },
    );
    // A probed header reaching a forbidden header through a link in its own directory: judged
    // by the file the link leads to, reported at the link.
    let pipe = root.join("MobileGL/MG_Pipe");
    std::os::unix::fs::symlink("../MG_State/GLState/Core.h", pipe.join("Core2.h")).unwrap();
    let mutation = pipe.join("PipeMutation.h");
    let text = std::fs::read_to_string(&mutation).unwrap();
    std::fs::write(
        &mutation,
        text.replacen(
            "#pragma once",
            "#pragma once\n#include \"MG_Pipe/Core2.h\"",
            1,
        ),
    )
    .unwrap();
    let r = mgctl(&["check", ".", "--only", "include-probes"], &root);
    h.case(
        "include-probes, a header linking to a forbidden one",
        match r.code {
            1 if r.stdout.contains(
                "reaches forbidden MobileGL/MG_Pipe/Core2.h (a link to MobileGL/MG_State/GLState/Core.h)",
            ) =>
            {
                Ok(())
            }
            _ => Err(r.dump()),
        },
    );
    h.finish("file-system/links");
}

/// The codes of `gate`'s findings located at a path containing `at`.
fn codes_at(json: &str, gate: &str, at: &str) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(json).unwrap_or_default();
    v["gates"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|g| g["gate"] == gate)
        .flat_map(|g| g["findings"].as_array().cloned().unwrap_or_default())
        .filter(|f| {
            f["location"]["path"]
                .as_str()
                .is_some_and(|p| p.contains(at))
        })
        .filter_map(|f| f["code"].as_str().map(str::to_string))
        .collect()
}

/// Issue 29, file system: a 2 GiB sparse source aborted the run under a 3 GB address-space cap
/// (every gate read it whole); links leading out of the workspace were followed (a link to `/`
/// walked the machine). The big file is named by every gate that would read it, never read; a
/// link out is named, not followed; the scan stays inside the workspace.
#[test]
fn hostile_file_system_limits() {
    let mut h = Hostile::default();
    let (guard, root) = copy_driver();
    let root_s = s(&root);
    let common = root.join("MobileGL/MG_Backend/Common");
    let huge = std::fs::File::create(common.join("Huge.cpp")).unwrap();
    huge.set_len(2 << 30).unwrap();
    drop(huge);
    let args = [
        "check",
        "--no-build",
        "--format",
        "json",
        "--",
        root_s.as_str(),
    ];
    let out = run_bounded(&args, &root, 60);
    for (gate, code) in [
        ("tokens", "TOK008"),
        ("preproc", "PPR007"),
        ("include-layering", "INC010"),
        ("include-probes", "INC010"),
    ] {
        h.case(
            &format!("2 GiB sparse source, {gate}"),
            match &out {
                Ok((1, json)) if codes_at(json, gate, "Huge.cpp").iter().any(|c| c == code) => {
                    Ok(())
                }
                Ok((rc, json)) => Err(format!(
                    "exit {rc}, no {code} at Huge.cpp: {}",
                    gate_summary(json, gate)
                )),
                Err(e) => Err(e.clone()),
            },
        );
    }
    h.case(
        "2 GiB sparse source, the limit is named",
        match &out {
            Ok((_, json))
                if json.contains("larger than the 64 MiB limit ([check] max_file_size)") =>
            {
                Ok(())
            }
            Ok((_, json)) => Err(json.chars().take(2000).collect()),
            Err(e) => Err(e.clone()),
        },
    );
    // A smaller limit is honoured: the same source refused at 1 KiB when it is 2 KiB.
    std::fs::remove_file(common.join("Huge.cpp")).unwrap();
    std::fs::write(common.join("Big.cpp"), "int x;\n".repeat(300)).unwrap();
    let config = root.join("mgctl.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("[check]\nmax_file_size = 1024\n\n{text}")).unwrap();
    let out = run_bounded(&args, &root, 60);
    h.case(
        "[check] max_file_size = 1024",
        match &out {
            Ok((1, json)) if codes_at(json, "tokens", "Big.cpp") == ["TOK008"] => Ok(()),
            Ok((rc, json)) => Err(format!("exit {rc}: {}", gate_summary(json, "tokens"))),
            Err(e) => Err(e.clone()),
        },
    );
    std::fs::write(&config, format!("[check]\nmax_file_size = 0\n\n{text}")).unwrap();
    let r = mgctl(&["check", "."], &root);
    h.case(
        "[check] max_file_size = 0",
        match r.code {
            2 if r
                .stderr
                .contains("mgctl.toml:2:17: max_file_size must be at least 1 byte") =>
            {
                Ok(())
            }
            _ => Err(r.dump()),
        },
    );
    std::fs::write(&config, &text).unwrap();
    std::fs::remove_file(common.join("Big.cpp")).unwrap();
    // Links out of the workspace: a source and a directory (the whole machine).
    let outside = guard.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(
        outside.join("Ext.cpp"),
        "void f() { pGLContext->draw(); }\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.join("Ext.cpp"), common.join("Ext.cpp")).unwrap();
    std::os::unix::fs::symlink("/", common.join("machine")).unwrap();
    let tokens = [
        "check",
        "--no-build",
        "--format",
        "json",
        "--only",
        "tokens",
        "--only",
        "preproc",
        "--",
        root_s.as_str(),
    ];
    let out = run_bounded(&tokens, &root, 30);
    for (gate, link, code) in [
        ("tokens", "Common/Ext.cpp", "TOK004"),
        ("tokens", "Common/machine", "TOK004"),
        ("preproc", "Common/Ext.cpp", "PPR005"),
    ] {
        h.case(
            &format!("{gate}, a link out of the workspace ({link})"),
            match &out {
                Ok((_, json)) if codes_at(json, gate, link) == [code] => Ok(()),
                Ok((rc, json)) => Err(format!("exit {rc}: {}", gate_summary(json, gate))),
                Err(e) => Err(e.clone()),
            },
        );
    }
    h.case(
        "tokens does not judge what lies outside",
        match &out {
            Ok((_, json))
                if !codes_at(json, "tokens", "Ext.cpp").contains(&"TOK001".to_string()) =>
            {
                Ok(())
            }
            Ok((_, json)) => Err(gate_summary(json, "tokens")),
            Err(e) => Err(e.clone()),
        },
    );
    // fatals / budgets inputs: a run directory linking out is an error naming the link.
    let runs = root.join("MobileGL/MG_Test/runs");
    let run = std::fs::read_dir(&runs)
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    std::fs::remove_file(common.join("machine")).unwrap();
    std::os::unix::fs::symlink(&outside, run.join("elsewhere")).unwrap();
    let budgets = [
        "check",
        "--no-build",
        "--format",
        "json",
        "--only",
        "budgets",
        "--",
        root_s.as_str(),
    ];
    let out = run_bounded(&budgets, &root, 30);
    h.case(
        "budgets, a run directory linking out of the workspace",
        match &out {
            Ok((2 | 1, json))
                if json.contains("elsewhere: cannot list: a link leading out of the workspace") =>
            {
                Ok(())
            }
            Ok((rc, json)) => Err(format!("exit {rc}: {}", gate_summary(json, "budgets"))),
            Err(e) => Err(e.clone()),
        },
    );
    h.finish("file-system/limits");
}

/// Err unless `r` exits `code` with `want` on stderr.
fn refuses(r: &Run, code: i32, want: &str) -> Result<(), String> {
    if r.code == code && r.stderr.contains(want) {
        Ok(())
    } else {
        Err(format!("wanted exit {code} and {want:?}\n{}", r.dump()))
    }
}

/// Issue 29, config: a CR-only mgctl.toml exited 2 with an empty reason (docs/config.md accepts
/// a lone CR); 20,000 `paths` globs made 20,000 findings; a 10 MB config peaked at 1.1 GB; path
/// keys accepted absolute and `..` paths that lead outside the workspace.
#[test]
fn hostile_config() {
    let mut h = Hostile::default();
    let (_guard, root) = copy_driver();
    let config = root.join("mgctl.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    let lf = mgctl(
        &["check", ".", "--only", "tokens,preproc", "--format", "json"],
        &root,
    );
    std::fs::write(&config, text.replace('\n', "\r")).unwrap();
    let cr = mgctl(
        &["check", ".", "--only", "tokens,preproc", "--format", "json"],
        &root,
    );
    h.case(
        "CR-only mgctl.toml reads as the LF one",
        match (lf.code, cr.code) {
            (0, 0) if gate_summary(&lf.stdout, "tokens") == gate_summary(&cr.stdout, "tokens") => {
                Ok(())
            }
            _ => Err(format!("{}\n{}", lf.dump(), cr.dump())),
        },
    );
    std::fs::write(&config, "\r").unwrap();
    let r = mgctl(&["check", "."], &root);
    h.case("a lone CR: a real reason", refuses(&r, 2, "checks nothing"));
    // 20,000 globs that match nothing: one finding counting them.
    let globs: Vec<String> = (0..20_000)
        .map(|i| format!("\"nomatch/d{i:05}/**\""))
        .collect();
    std::fs::write(
        &config,
        format!(
            "[[tokens.rule]]\nname = \"r\"\nident = \"pGLContext\"\npaths = [\"MobileGL/MG_Backend/**\", {}]\n",
            globs.join(", ")
        ),
    )
    .unwrap();
    let r = mgctl(&["check", ".", "--format", "json"], &root);
    let codes = gate_summary(&r.stdout, "tokens");
    h.case(
        "20,000 paths globs matching nothing",
        if r.stdout.len() < 100_000
            && codes.ends_with("codes=[\"TOK007\"]")
            && r.stdout.contains("20000 paths globs match no file")
        {
            Ok(())
        } else {
            Err(format!(
                "{} bytes, {codes}\n{}",
                r.stdout.len(),
                r.dump().chars().take(3000).collect::<String>()
            ))
        },
    );
    // 10 MB of config: refused before parsing, within the memory cap.
    let mut big = String::from("[[tokens.rule]]\nname = \"r\"\nident = \"x\"\npaths = [");
    while big.len() < 10 << 20 {
        big.push_str("\"nomatch/d0000000/**\", ");
    }
    big.push_str("\"a\"]\n");
    std::fs::write(&config, &big).unwrap();
    let root_s = s(&root);
    h.case(
        "a 10 MB mgctl.toml",
        match run_bounded(&["check", "--no-build", "--", root_s.as_str()], &root, 20) {
            Ok((2, _)) => Ok(()),
            Ok((rc, out)) => Err(format!("exit {rc}: {out}")),
            Err(e) => Err(e),
        },
    );
    let r = mgctl(&["check", "."], &root);
    h.case(
        "a 10 MB mgctl.toml, the reason",
        refuses(&r, 2, "is larger than the 1 MiB limit of an mgctl.toml"),
    );
    // Path keys: an absolute path or `..` out of the workspace is refused at its line.
    for (key, line, from, to) in [
        (
            "regions.region.file",
            33,
            "file = \"MobileGL/MG_Backend/DirectGLES/Managers.cpp\"",
            "file = \"/etc/passwd\"",
        ),
        (
            "test_names.current",
            91,
            "current = \"MobileGL/MG_Test/ctest-list.txt\"",
            "current = \"../ctest-list.txt\"",
        ),
        (
            "dirty_surface.def",
            122,
            "def = \"MobileGL/MG_Pipe/DirtySurface.def\"",
            "def = \"/tmp/x.def\"",
        ),
        (
            "fatal_sites.root",
            133,
            "root = \"MobileGL/MG_Remote\"",
            "root = \"MobileGL/../..\"",
        ),
        (
            "symbols.before",
            183,
            "before = \"build/pull/libMobileGL.so\"",
            "before = \"/usr/lib/libz.so\"",
        ),
        (
            "cite.docs",
            274,
            "docs = [\"docs/Disaggregated/*.md\"]",
            "docs = [\"../../*.md\"]",
        ),
        (
            "include.probe.header",
            153,
            "header = \"MobileGL/MG_Pipe/MGPipeValueTypes.h\"",
            "header = \"/usr/include/stdio.h\"",
        ),
    ] {
        assert!(text.contains(from), "{from}");
        std::fs::write(&config, text.replacen(from, to, 1)).unwrap();
        let r = mgctl(&["check", "."], &root);
        h.case(
            &format!("{key} outside the workspace"),
            refuses(&r, 2, &format!("mgctl.toml:{line}:1: {key} `")),
        );
    }
    std::fs::write(
        &config,
        text.replacen(
            "current = \"MobileGL/MG_Test/ctest-list.txt\"",
            "current = \"MobileGL/../MobileGL/MG_Test/ctest-list.txt\"",
            1,
        ),
    )
    .unwrap();
    let r = mgctl(&["check", ".", "--only", "test-names"], &root);
    h.case(
        "a `..` that stays inside is accepted",
        match r.code {
            0 => Ok(()),
            _ => Err(r.dump()),
        },
    );
    h.finish("config");
}

/// Issue 29, git states: `--only commits` on a shallow clone said "1 not configured"; an empty
/// repository got BUD007 "reference 'refs/heads/master' not found"; a 5 MB commit subject made
/// 20 MB of annotations.
#[test]
fn hostile_git_states() {
    let mut h = Hostile::default();
    let (guard, root) = copy_driver();
    // An empty repository: the pins say so.
    git2::Repository::init(&root).unwrap();
    // -v: more than three notes of one code are one line otherwise.
    let r = mgctl(&["check", ".", "--only", "budgets", "-v"], &root);
    h.case(
        "empty repository, budget pins",
        if r.stdout.contains("has no commits yet") && !r.stdout.contains("not found") {
            Ok(())
        } else {
            Err(r.dump())
        },
    );
    // A shallow clone of a four-commit history, --only commits.
    commit_all(&root);
    for i in 0..3 {
        std::fs::write(root.join("README.md"), format!("{i}\n")).unwrap();
        commit_all(&root);
    }
    let shallow = guard.path().join("shallow");
    let git = |args: &[&str]| {
        let st = Command::new("git").args(args).output().unwrap();
        assert!(
            st.status.success(),
            "{}",
            String::from_utf8_lossy(&st.stderr)
        );
    };
    let url = format!("file://{}", root.display());
    git(&["clone", "-q", "--depth", "1", &url, &s(&shallow)]);
    let r = mgctl(&["check", ".", "--only", "commits"], &shallow);
    h.case(
        "shallow clone, --only commits",
        refuses(&r, 2, "commits: HEAD~20 does not exist").and_then(|()| {
            if r.stderr.contains("not configured") {
                Err(r.dump())
            } else {
                Ok(())
            }
        }),
    );
    // A 5 MB subject: the annotations quote it cut.
    let repo = git2::Repository::open(&root).unwrap();
    let sig = git2::Signature::now("t", "t@example.invalid").unwrap();
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    let subject = "x".repeat(5 << 20);
    repo.commit(
        Some("HEAD"),
        &sig,
        &sig,
        &subject,
        &head.tree().unwrap(),
        &[&head],
    )
    .unwrap();
    let config = root.join("mgctl.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        text.replace("range = \"HEAD~20..HEAD\"", "range = \"HEAD~2..HEAD\""),
    )
    .unwrap();
    for format in ["github", "json", "junit", "human"] {
        let r = mgctl(
            &["check", ".", "--only", "commits", "--format", format],
            &root,
        );
        h.case(
            &format!("5 MB commit subject, --format {format}"),
            if r.code == 1 && r.stdout.len() < 100_000 && r.stdout.contains("characters in all") {
                Ok(())
            } else {
                Err(format!("exit {}, {} bytes", r.code, r.stdout.len()))
            },
        );
    }
    h.finish("git-states");
}

/// Issue 29, ELF: a library whose section headers are zeroed got "neither .symtab nor .dynsym"
/// though PT_DYNAMIC holds its symbols; it lists the same dynamic symbols as the original.
#[test]
fn hostile_elf_without_section_headers() {
    let mut h = Hostile::default();
    let dir = scratch();
    for lib in ["/usr/lib/x86_64-linux-gnu/libz.so.1", "/bin/true"] {
        let Ok(mut bytes) = std::fs::read(lib) else {
            continue;
        };
        bytes[0x28..0x30].fill(0);
        bytes[0x3c..0x40].fill(0);
        let copy = dir.path().join("headless.so");
        std::fs::write(&copy, &bytes).unwrap();
        let listed = |p: &str| {
            let r = mgctl(
                &["symbols", "list", "--table", "dynsym", "--top", "100000", p],
                dir.path(),
            );
            (
                r.code,
                r.stdout
                    .lines()
                    .skip(1)
                    .map(str::to_string)
                    .collect::<Vec<_>>(),
                r,
            )
        };
        let (c1, want, _) = listed(lib);
        let (c2, got, r) = listed(&s(&copy));
        h.case(
            &format!("{lib} without section headers"),
            if c1 == 0 && c2 == 0 && !want.is_empty() && got == want {
                Ok(())
            } else {
                Err(format!(
                    "{} lines, {} expected\n{}",
                    got.len(),
                    want.len(),
                    r.dump()
                ))
            },
        );
    }
    h.finish("elf");
}

/// Issue 29, concurrency: two checks writing the same `--output` at once both end, and the file
/// is one whole report (the atomic write), never two interleaved.
#[test]
fn hostile_concurrent_outputs() {
    let mut h = Hostile::default();
    let (_guard, root) = copy_driver();
    let out = root.join("report.json");
    let spawn = || {
        Command::new(bin())
            .args([
                "check",
                "--no-build",
                "--only",
                "tokens",
                "--format",
                "json",
                "--output",
            ])
            .arg(&out)
            .arg(&root)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let (mut a, mut b) = (spawn(), spawn());
    let (ra, rb) = (a.wait().unwrap(), b.wait().unwrap());
    let text = std::fs::read_to_string(&out).unwrap_or_default();
    h.case(
        "two checks, one --output",
        match serde_json::from_str::<serde_json::Value>(&text) {
            Ok(v) if ra.success() && rb.success() && v["schema"] == 1 => Ok(()),
            _ => Err(format!(
                "{ra} {rb}: {}",
                text.chars().take(300).collect::<String>()
            )),
        },
    );
    h.finish("signals-concurrency");
}

/// Issue 29, hostile names: U+FFFE / U+FFFF in a file name were copied raw into JUnit and HTML,
/// which then did not parse as XML. They become U+FFFD; the JUnit parses.
#[test]
fn hostile_xml_noncharacters() {
    let mut h = Hostile::default();
    let (_guard, root) = copy_driver();
    write_tree(
        &root,
        &[(
            "MobileGL/MG_Backend/Common/F\u{FFFE}\u{FFFF}.cpp",
            "void f() { pGLContext->draw(); }\n",
        )],
    );
    let r = mgctl(
        &["check", ".", "--only", "tokens", "--format", "junit"],
        &root,
    );
    h.case(
        "JUnit with U+FFFE/U+FFFF in a file name",
        match roxmltree::Document::parse(&r.stdout) {
            Ok(_) if r.code == 1 && r.stdout.contains("F\u{FFFD}\u{FFFD}.cpp") => Ok(()),
            Ok(_) => Err(r.dump()),
            Err(e) => Err(format!("{e}\n{}", r.dump())),
        },
    );
    let html = root.join("report.html");
    let r = mgctl(
        &[
            "check",
            ".",
            "--only",
            "tokens",
            "--format",
            "html",
            "--output",
            &s(&html),
        ],
        &root,
    );
    let page = std::fs::read_to_string(&html).unwrap_or_default();
    h.case(
        "HTML with U+FFFE/U+FFFF in a file name",
        if r.code == 1 && page.contains("F\u{FFFD}\u{FFFD}.cpp") && !page.contains('\u{FFFE}') {
            Ok(())
        } else {
            Err(r.dump())
        },
    );
    h.finish("names/xml");
}

/// Issue 29, hostile names: `stats watch` wrote a Fatal line's OSC title, clear-screen and
/// cursor moves raw, and a real ESC read like the text `\x1b`. The view escapes them, apart.
#[test]
fn hostile_watch_escapes() {
    let mut h = Hostile::default();
    let dir = scratch();
    let log = dir.path().join("w.log");
    std::fs::write(
        &log,
        "01-01 00:00:00.000  1  1 F MobileGL: Fatal: boom \u{1b}]0;pwned\u{7}\u{1b}[2J\u{1b}[1A\u{1b}[2K \\x1b \u{202e}x\n",
    )
    .unwrap();
    let r = mgctl(&["stats", "watch", "--once", &s(&log)], dir.path());
    h.case(
        "stats watch --once, a Fatal line with escapes",
        if !r.stdout.contains('\u{1b}') && !r.stdout.contains('\u{202e}') {
            Ok(())
        } else {
            Err(r.dump())
        },
    );
    h.finish("names/watch");
}

/// Whether process `pid` is alive (a zombie is not: it only waits to be reaped).
fn process_alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            !s.rsplit_once(") ")
                .is_some_and(|(_, rest)| rest.starts_with('Z'))
        })
        .unwrap_or(false)
}

fn send(sig: &str, pid: u32) {
    let ok = Command::new("kill")
        .args(["-s", sig, &pid.to_string()])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "kill -s {sig} {pid} failed");
}

/// Waits for `child` at most `secs`; Err (after killing it) when it did not end.
fn wait_bounded(
    child: &mut std::process::Child,
    secs: u64,
) -> Result<std::process::ExitStatus, String> {
    let start = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return Ok(s);
        }
        if start.elapsed() > Duration::from_secs(secs) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("mgctl did not end within {secs} s"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `sig` reached mgctl while its `[build]` ran: mgctl ends as the signal says, and nothing of
/// the build (the shell, its background `sleep`) is left running with parent PID 1.
fn signal_during_build(sig: &str) -> Result<(), String> {
    let dir = scratch();
    let d = dir.path();
    write_tree(
        d,
        &[(
            "mgctl.toml",
            "[build]\ncommand = [\"sh\", \"-c\", \"echo $$ > build.pid; sleep 300 & echo $! > sleep.pid; wait\"]\noutputs = [\"build/a.so\"]\n\n[symbols]\nbefore = \"build/a.so\"\nafter = \"build/a.so\"\n",
        )],
    );
    let mut child = command_as_typed(&["check", "."], d, &[])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid_of = |name: &str| -> Option<u32> {
        std::fs::read_to_string(d.join(name))
            .ok()
            .and_then(|t| t.trim().parse().ok())
    };
    let start = Instant::now();
    let (shell, sleep) = loop {
        if let (Some(a), Some(b)) = (pid_of("build.pid"), pid_of("sleep.pid")) {
            break (a, b);
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            return Err("the build never started".into());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    send(sig, child.id());
    let status = wait_bounded(&mut child, 15)?;
    use std::os::unix::process::ExitStatusExt;
    let want = if sig == "INT" { 2 } else { 15 };
    if status.signal() != Some(want) {
        return Err(format!("mgctl ended with {status:?}, not by SIG{sig}"));
    }
    let deadline = Instant::now() + Duration::from_secs(5);
    while (process_alive(shell) || process_alive(sleep)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let left: Vec<String> = [("build shell", shell), ("background sleep", sleep)]
        .iter()
        .filter(|(_, p)| process_alive(*p))
        .map(|(w, p)| {
            let _ = Command::new("kill").args(["-9", &p.to_string()]).status();
            format!("{w} {p}")
        })
        .collect();
    if left.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "SIG{sig} to mgctl left {} running",
            left.join(", ")
        ))
    }
}

/// SIGINT while `check --output` writes a large report: the temp file beside the target is
/// removed (the signal handler knows it), the target is never half-written.
fn signal_during_atomic_write() -> Result<(), String> {
    let dir = scratch();
    let d = dir.path();
    write_tree(
        d,
        &[
            (
                "mgctl.toml",
                "[[tokens.rule]]\nname = \"no-printf\"\nident = \"printf\"\npaths = [\"src/**\"]\nmessage = \"no printf\"\n",
            ),
            ("src/a.cpp", &"printf(x);\n".repeat(60_000)),
        ],
    );
    let temps = || -> Vec<PathBuf> {
        std::fs::read_dir(d)
            .map(|rd| {
                rd.flatten()
                    .map(|e| e.path())
                    .filter(|p| p.to_string_lossy().ends_with(".mgctl-tmp"))
                    .collect()
            })
            .unwrap_or_default()
    };
    for _attempt in 0..4 {
        let mut child = command_as_typed(
            &["check", ".", "--format", "json", "--output", "report.json"],
            d,
            &[],
        )
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
        let mut caught = false;
        while child.try_wait().unwrap().is_none() {
            if !temps().is_empty() {
                send("INT", child.id());
                caught = true;
                break;
            }
        }
        let status = wait_bounded(&mut child, 15)?;
        if !caught {
            continue;
        }
        let left = temps();
        if !left.is_empty() {
            return Err(format!(
                "SIGINT during the write left {left:?} ({status:?})"
            ));
        }
        if d.join("report.json").exists() && status.code().is_none() {
            // Renamed before the signal landed: whole, or absent; never half-written.
            let text = std::fs::read_to_string(d.join("report.json")).unwrap_or_default();
            if serde_json::from_str::<serde_json::Value>(&text).is_err() {
                return Err("report.json is half-written".into());
            }
        }
        return Ok(());
    }
    Err("never caught the write in progress (4 tries)".into())
}

/// SIGTERM while `symbols diff --base HEAD~1` builds the base in its throw-away worktree: the
/// worktree is removed (git lists only the main one, its directory is gone) and the base's build
/// does not survive. HEAD~1 holds a `slow` marker that makes its build sleep; HEAD's does not.
fn signal_during_base_build() -> Result<(), String> {
    let dir = scratch();
    let d = dir.path();
    let pid_file = d.join("base.pid");
    let script = format!(
        "mkdir -p build && cp lib.so build/a.so && if [ -f slow ]; then echo $$ > '{}'; sleep 300; fi",
        pid_file.display()
    );
    write_tree(
        d,
        &[
            (
                "mgctl.toml",
                &format!(
                    "[build]\ncommand = [\"sh\", \"-c\", {script:?}]\noutputs = [\"build/a.so\"]\n"
                ),
            ),
            ("lib.so", "not a library; the diff never runs"),
            ("slow", ""),
            (".gitignore", "build/\n"),
        ],
    );
    let git = |args: &[&str]| -> String {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
            .args(args)
            .current_dir(d)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "one"]);
    git(&["rm", "-q", "slow"]);
    git(&["commit", "-qm", "two"]);
    let mut child = command_as_typed(
        &[
            "symbols",
            "diff",
            "--base",
            "HEAD~1",
            "--after",
            "build/a.so",
        ],
        d,
        &[],
    )
    .stdout(std::process::Stdio::null())
    .stderr(std::process::Stdio::null())
    .spawn()
    .unwrap();
    let start = Instant::now();
    let base = loop {
        if let Some(p) = std::fs::read_to_string(&pid_file)
            .ok()
            .and_then(|t| t.trim().parse::<u32>().ok())
        {
            break p;
        }
        if start.elapsed() > Duration::from_secs(20) || child.try_wait().unwrap().is_some() {
            let _ = child.kill();
            let _ = child.wait();
            return Err("the base build never started".into());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    send("TERM", child.id());
    wait_bounded(&mut child, 15)?;
    let deadline = Instant::now() + Duration::from_secs(5);
    while process_alive(base) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut wrong = Vec::new();
    if process_alive(base) {
        let _ = Command::new("kill")
            .args(["-9", &base.to_string()])
            .status();
        wrong.push(format!("the base build {base} survived"));
    }
    let listed = git(&["worktree", "list", "--porcelain"]);
    if listed.matches("worktree ").count() != 1 {
        wrong.push(format!("worktrees left: {listed}"));
    }
    let left: Vec<_> = std::fs::read_dir(d.join(".git/mgctl-base"))
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    if !left.is_empty() {
        wrong.push(format!("left in the cache: {left:?}"));
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(wrong.join("; "))
    }
}

/// A `[build]` that hangs (its shell and a background job both sleep) with `timeout = 1`: `check`
/// ends within seconds, the gate reading the output fails with BLD004, nothing of it survives.
fn hanging_build_times_out() -> Result<(), String> {
    let dir = scratch();
    let d = dir.path();
    let pid = d.join("sleep.pid");
    let script = format!("sleep 300 & echo $! > '{}'; sleep 300", pid.display());
    write_tree(
        d,
        &[(
            "mgctl.toml",
            &format!("[build]\ncommand = [\"sh\", \"-c\", {script:?}]\noutputs = [\"build/a.so\"]\ntimeout = 1\n\n[symbols]\nbefore = \"build/a.so\"\nafter = \"build/a.so\"\n"),
        )],
    );
    let mut child = command_as_typed(&["check", ".", "--format", "json"], d, &[])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut out, &mut s);
        s
    });
    let status = wait_bounded(&mut child, 30)?;
    let stdout = reader.join().unwrap();
    if status.code() != Some(1) || !stdout.contains("\"BLD004\"") {
        return Err(format!("exit {status:?}, want 1 with BLD004:\n{stdout}"));
    }
    let bg = std::fs::read_to_string(&pid)
        .ok()
        .and_then(|t| t.trim().parse::<u32>().ok());
    match bg {
        Some(p) if process_alive(p) => {
            let _ = Command::new("kill").args(["-9", &p.to_string()]).status();
            Err(format!(
                "the build's background sleep {p} survived its timeout"
            ))
        }
        _ => Ok(()),
    }
}

/// Issue 29, signals and concurrency: the build is a well-behaved child (its own process group,
/// signals forwarded, killed on exit, a timeout), and a signal mid-write leaves no temp file.
#[test]
fn hostile_signals() {
    let mut h = Hostile::default();
    h.case("SIGTERM during [build]", signal_during_build("TERM"));
    h.case("SIGINT during [build]", signal_during_build("INT"));
    h.case("SIGINT during check --output", signal_during_atomic_write());
    h.case(
        "SIGTERM during symbols diff --base",
        signal_during_base_build(),
    );
    h.case(
        "a hanging [build] past its timeout",
        hanging_build_times_out(),
    );
    h.finish("signals");
}
