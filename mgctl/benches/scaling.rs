//! `cargo bench -p mgctl --bench scaling [-- --only NAME[,NAME] --reps N --budget-s S]`: runs the
//! REAL (bench-profile, optimised) `mgctl` binary end to end, the command a user types, at 1x, 4x
//! and 16x its input and prints wall time (best of N, more for short runs) and peak RSS against
//! the input ratio. The issue-16 bar: 16x the input costs at most 24x the time (PASS / FAIL per
//! command).
//!
//! Inputs are generated in a temporary directory by this bench: logcat captures (by windows and by
//! lines), A/B logs, client/server role logs (`stats frames`), benchmark.json frames, DriverBench arms (up to 100,000 cases per arm), one
//! document line with up to 100,000 citations, a dirty-surface tree of generated mutators, a tree
//! of generated headers, two ELF objects of generated C++ symbols (assembled with `as` when it is
//! on PATH), one 192 KB source line with 16,000 forbidden-token hits, and the TUI snapshot by
//! history length. The I/O floor `grep -c 'MGPipe stats:'` runs beside the log cases.
//!
//! Wall time is measured without a wrapper (standard output to a file); peak RSS and CPU time
//! (user + system, 10 ms resolution) come from one more run under `/usr/bin/time -f '%M %U %S'`
//! (getrusage of the child) when it is installed, else "n/a". The verdict is on wall time. The
//! `stats summary (headline)` row is the 1,000,000-line log (built from the shared
//! samples' push capture: 100,000 windows in one session) against 10x `grep -c` and 250 MB. Each case is
//! bounded: when a size runs longer than `--budget-s` (default 20 s), the larger sizes are not run
//! and the row says so (a FAIL). The whole bench stays well under 5 minutes in release.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

fn mgctl() -> &'static str {
    env!("CARGO_BIN_EXE_mgctl")
}

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    let i = args.iter().position(|a| a == name)?;
    args.get(i + 1).cloned()
}

/// One measured size of one case.
struct Measured {
    secs: f64,
    /// User + system CPU seconds of the RSS run (robust to a loaded machine, unlike wall time).
    cpu: Option<f64>,
    rss_kib: Option<u64>,
    exit: Option<i32>,
}

/// A program and its arguments, run in `dir`.
struct Cmd {
    program: String,
    args: Vec<String>,
}

impl Cmd {
    fn mgctl(args: &[&str]) -> Cmd {
        Cmd {
            program: mgctl().into(),
            args: args.iter().map(|s| s.to_string()).collect(),
        }
    }
}

/// Standard output goes to a file, never to /dev/null: GNU grep stops at the first match when it
/// sees /dev/null (and a report written nowhere is not what a user runs).
fn out_file(dir: &Path) -> Stdio {
    match std::fs::File::create(dir.join("stdout.txt")) {
        Ok(f) => Stdio::from(f),
        // The bench cannot go on without its temporary directory: a panic names the cause.
        Err(e) => panic!(
            "scaling: cannot create {}: {e}",
            dir.join("stdout.txt").display()
        ),
    }
}

/// Best of `reps` wall times (stdout to a file, stderr discarded), and of more runs for a short
/// command, until they add up to `MIN_SECS` (at most `MAX_REPS`): a 1x run of 40 ms timed three
/// times lets one slow moment move the 16x ratio by a fifth. Then one run under
/// `/usr/bin/time` for the peak RSS and CPU time of the child.
fn run(c: &Cmd, dir: &Path, reps: usize) -> Measured {
    const MIN_SECS: f64 = 0.5;
    const MAX_REPS: usize = 30;
    let mut best = f64::INFINITY;
    let mut exit = None;
    let started = Instant::now();
    let mut done = 0;
    while done < reps.max(1) || (started.elapsed().as_secs_f64() < MIN_SECS && done < MAX_REPS) {
        done += 1;
        let t = Instant::now();
        let status = Command::new(&c.program)
            .args(&c.args)
            .current_dir(dir)
            .stdout(out_file(dir))
            .stderr(Stdio::null())
            .status();
        let secs = t.elapsed().as_secs_f64();
        match status {
            Ok(s) => exit = s.code(),
            Err(e) => panic!("scaling: cannot run {}: {e}", c.program),
        }
        best = best.min(secs);
    }
    let time = Path::new("/usr/bin/time");
    let (mut rss_kib, mut cpu) = (None, None);
    if time.is_file() {
        let rss_file = dir.join("rss.txt");
        let ok = Command::new(time)
            .arg("-f")
            .arg("%M %U %S")
            .arg("-o")
            .arg(&rss_file)
            .arg(&c.program)
            .args(&c.args)
            .current_dir(dir)
            .stdout(out_file(dir))
            .stderr(Stdio::null())
            .status()
            .is_ok();
        let last = std::fs::read_to_string(&rss_file)
            .ok()
            .and_then(|s| s.lines().last().map(str::to_string));
        if let (true, Some(l)) = (ok, last) {
            let f: Vec<&str> = l.split_whitespace().collect();
            rss_kib = f.first().and_then(|v| v.parse().ok());
            cpu = match (
                f.get(1).and_then(|v| v.parse::<f64>().ok()),
                f.get(2).and_then(|v| v.parse::<f64>().ok()),
            ) {
                (Some(u), Some(s)) => Some(u + s),
                _ => None,
            };
        }
    }
    Measured {
        secs: best,
        cpu,
        rss_kib,
        exit,
    }
}

fn write(p: &Path, bytes: &[u8]) {
    if let Some(parent) = p.parent() {
        if let Err(e) = std::fs::create_dir_all(parent) {
            panic!("scaling: cannot create {}: {e}", parent.display());
        }
    }
    if let Err(e) = std::fs::write(p, bytes) {
        panic!("scaling: cannot write {}: {e}", p.display());
    }
}

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

fn logcat(lines: usize, window_every: usize, seed: u64) -> Vec<u8> {
    stats_viewer::synth::logcat(stats_viewer::synth::SynthSpec {
        lines,
        window_every,
        seed,
    })
    .0
}

/// The issue-16 headline log: `lines` lines built from the sample push capture
/// (`../shared/samples/abB-push-DirectGLES.logcat.txt`): its banner and verify line once, then
/// its steady window line with `frames=` and the timestamps increasing (one session), one in ten
/// lines, the other nine the sample's other tags. `None` when the sample is not there.
fn samples_log(lines: usize) -> Option<Vec<u8>> {
    // The shared samples sit beside the workspace (`../shared`), also from a worktree (`../../shared`).
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = ["../../shared/samples", "../../../shared/samples"]
        .iter()
        .find_map(|d| {
            std::fs::read_to_string(here.join(d).join("abB-push-DirectGLES.logcat.txt")).ok()
        })?;
    let pid = " 21377 ";
    let header: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(pid) && (l.contains("counters ON") || l.contains("verify armed")))
        .collect();
    let window = text
        .lines()
        .find(|l| l.contains(pid) && l.contains("frames=720 window=120"))?;
    let (_, body) = window.split_once("MGPipe stats: frames=720 ")?;
    let noise: Vec<&str> = text
        .lines()
        .filter(|l| l.len() > 31 && !l.contains("MobileGL:"))
        .filter_map(|l| l.get(18..))
        .collect();
    if header.len() != 2 || noise.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(lines * 200);
    out.push_str("--------- beginning of main\n");
    for h in &header {
        out.push_str(h);
        out.push('\n');
    }
    let mut ms: u64 = 37_000;
    let mut k = 0u64;
    for i in 3..lines {
        ms += 3;
        let (m, sec, milli) = (4 + ms / 60_000, (ms / 1000) % 60, ms % 1000);
        if i % 10 == 0 {
            k += 1;
            let _ = writeln!(
                out,
                "11-30 10:{m:02}:{sec:02}.{milli:03} 21377 21412 I MobileGL: [10:{m:02}:{sec:02}] [Android MobileGLTraceRe/INFO]: MGPipe stats: frames={} {body}",
                k * 120
            );
        } else {
            let _ = writeln!(
                out,
                "11-30 10:{m:02}:{sec:02}.{milli:03}{}",
                noise[i % noise.len()]
            );
        }
    }
    Some(out.into_bytes())
}

/// A DriverBench arm: `cases` cases, one row each.
fn driverbench(cases: usize, ns: f64) -> Vec<u8> {
    let mut s = String::from("case,frames,ops_per_frame,median_frame_ms,ns_per_op,fps\n");
    for i in 0..cases {
        let _ = writeln!(s, "case_{i},240,100,1.000,{:.1},60.0", ns + (i % 97) as f64);
    }
    s.into_bytes()
}

/// A retrace runner `benchmark.json` with `frames` frames (the tail is the last half).
fn frames_json(frames: usize, seed: u64) -> Vec<u8> {
    let mut wall = String::with_capacity(frames * 8);
    let mut cpu = String::with_capacity(frames * 8);
    let mut x = seed;
    for i in 0..frames {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let j = (x >> 33) % 5000;
        if i > 0 {
            wall.push_str(", ");
            cpu.push_str(", ");
        }
        let _ = write!(wall, "{}.{:03}", 12 + j / 1000, j % 1000);
        let _ = write!(cpu, "{}.{:03}", 10 + j / 1000, j % 1000);
    }
    format!(
        "{{\n  \"tracePath\": \"/data/local/tmp/mgtrace/synthetic.trace\",\n  \"backend\": \"DirectGLES\",\n  \"benchmarkFinish\": true,\n  \"width\": 1280,\n  \"height\": 720,\n  \"totalFrames\": {frames},\n  \"tailFrames\": {},\n  \"totalSeconds\": 6.148955,\n  \"meanFrameMs\": 13.178,\n  \"medianFrameMs\": 12.909,\n  \"p95FrameMs\": 15.320,\n  \"fps\": 75.883,\n  \"meanFrameCpuMs\": 10.896,\n  \"medianFrameCpuMs\": 10.652,\n  \"p95FrameCpuMs\": 13.357,\n  \"frameTimesMs\": [{wall}],\n  \"frameCpuTimesMs\": [{cpu}]\n}}\n",
        frames / 2
    )
    .into_bytes()
}

/// A MobileGL-shaped tree of `files` generated GL entry-point files (about 2,000 lines and 160
/// mutator calls each) under the default dirty-surface scan roots.
fn dirty_tree(root: &Path, files: usize) {
    // A MobileGL checkout is recognised by its backend directory.
    write(&root.join("MobileGL/MG_Backend/README"), b"backend\n");
    std::fs::create_dir_all(root.join("MobileGL/MG_State/GLState")).ok();
    let prefixes = [
        "Set", "Bind", "Use", "Bump", "Record", "Touch", "Mark", "Add",
    ];
    for k in 0..files {
        let dir = if k % 4 == 3 {
            "MobileGL/MG_State/GLState/Gen"
        } else {
            "MobileGL/MG_Impl/GLImpl/Gen"
        };
        let mut text = String::with_capacity(2_000 * 40);
        text.push_str("// generated for the mgctl scaling bench\n#include \"GLEntry.h\"\n\nnamespace MG_Impl {\n\n");
        for f in 0..160 {
            let p = prefixes[(k + f) % prefixes.len()];
            let _ = write!(
                text,
                "/* entry point {f} of file {k} */\nvoid glGenerated{k}_{f}(GLenum target, GLint value)\n{{\n    const char* tag = \"pGLContext->Fake({f})\"; // not a call\n    int limit = 1'000;\n    if (target == GL_TEXTURE_2D) {{\n        pGLContext->{p}State{}(target, value);\n    }} else if (value > limit) {{\n        pGLContext->{p}Other{}(value);\n    }}\n",
                f % 40,
                f % 7
            );
            if f % 5 == 0 {
                text.push_str("    gBackendFunctionsTable.GL.Flush();\n");
            }
            if f % 9 == 0 {
                text.push_str("    MGP_NOTE_MUTATION(m_units);\n");
            }
            text.push_str("    Log(tag);\n}\n\n");
        }
        text.push_str("} // namespace MG_Impl\n");
        write(
            &root.join(format!("{dir}/Generated{k:04}.cpp")),
            text.as_bytes(),
        );
    }
}

/// `files` headers under `inc/`, each including three earlier ones (a chain, a halving edge, a
/// short back edge) plus a system header that does not resolve.
fn header_tree(root: &Path, files: usize) {
    for i in 0..files {
        let mut t = format!("#pragma once\n// header {i}\n#include <vector>\n");
        for j in [i.wrapping_sub(1), i / 2, i.wrapping_sub(7)] {
            if j < i {
                let _ = writeln!(t, "#include \"m{}/h{j}.h\"", j % 16);
            }
        }
        let _ = writeln!(t, "struct H{i} {{ int v{i}; }};");
        write(&root.join(format!("inc/m{}/h{i}.h", i % 16)), t.as_bytes());
    }
    let mut main = String::new();
    for i in (0..files).step_by(97) {
        let _ = writeln!(main, "#include \"m{}/h{i}.h\"", i % 16);
    }
    write(&root.join("src/main.cpp"), main.as_bytes());
}

/// An x86-64 assembly file of `n` mangled C++ functions; `after` resizes one in 8, drops one in
/// 16 and adds as many (the shape of a real symbol diff).
fn symbols_asm(n: usize, after: bool) -> Vec<u8> {
    let mut t = String::with_capacity(n * 96);
    t.push_str(".text\n");
    let mut emit = |name: String, size: usize| {
        let _ = write!(
            t,
            ".globl {name}\n.type {name},@function\n{name}:\n.zero {size}\n.size {name},.-{name}\n"
        );
    };
    for i in 0..n {
        if after && i % 16 == 5 {
            continue;
        }
        let size = 16 + i % 7 + if after && i % 8 == 3 { 8 } else { 0 };
        let ns = format!("Gen{}", i % 64);
        emit(
            format!(
                "_ZN8MobileGL{}{ns}{}Fn{i}Ev",
                ns.len(),
                3 + i.to_string().len()
            ),
            size,
        );
    }
    if after {
        for i in 0..n / 16 {
            let ns = format!("New{}", i % 64);
            emit(
                format!(
                    "_ZN8MobileGL{}{ns}{}Fn{i}Ev",
                    ns.len(),
                    3 + i.to_string().len()
                ),
                24,
            );
        }
    }
    t.into_bytes()
}

fn assemble(dir: &Path, name: &str, text: &[u8]) -> Option<PathBuf> {
    let src = dir.join(format!("{name}.s"));
    let obj = dir.join(format!("{name}.o"));
    write(&src, text);
    let ok = Command::new("as")
        .arg(&src)
        .arg("-o")
        .arg(&obj)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    ok.then_some(obj)
}

/// A split build's per-object output for `check --only link-ratchet`: `n` objects assembled by
/// `as`, a quarter frontend, a quarter shared, half server; each server object needs ten symbols
/// of its frontend neighbour and ten of its shared one, and the baseline records the reach.
fn link_tree(root: &Path, n: usize) -> Option<()> {
    let objects = root.join("obj");
    let mut baseline = String::new();
    for i in 0..n {
        let (dir, base) = match i % 4 {
            0 => ("MobileGL/MG_Impl", "fe"),
            1 => ("MobileGL/MG_Util", "sh"),
            _ => ("MobileGL/MG_Backend", "sv"),
        };
        let mut t = String::from(".text\n");
        for j in 0..100 {
            let _ = write!(t, ".globl {base}{i}_{j}\n{base}{i}_{j}:\nret\n");
        }
        if base == "sv" {
            let (f, u) = (i - i % 4, i - i % 4 + 1);
            t.push_str(".data\n");
            for j in 0..10 {
                let _ = write!(t, ".quad fe{f}_{j}\n.quad sh{u}_{j}\n");
                if i % 4 == 2 {
                    let _ = writeln!(baseline, "fe{f}_{j}");
                }
            }
        }
        let dest = objects.join(dir);
        std::fs::create_dir_all(&dest).ok()?;
        let obj = assemble(&dest, &format!("U{i}.cpp"), t.as_bytes())?;
        std::fs::remove_file(obj.with_extension("s")).ok()?;
    }
    write(&root.join("baseline.txt"), baseline.as_bytes());
    write(
        &root.join("mgctl.toml"),
        b"[link_ratchet]\nobjects = \"obj\"\nbaseline = \"baseline.txt\"\n\n\
          [[link_ratchet.partition]]\nprefix = \"MobileGL/MG_Backend/\"\nrole = \"server\"\n\n\
          [[link_ratchet.partition]]\nprefix = \"MobileGL/MG_Impl/\"\nrole = \"frontend\"\n\n\
          [[link_ratchet.partition]]\nprefix = \"MobileGL/MG_Util/\"\nrole = \"shared\"\n",
    );
    Some(())
}

/// A registry ↔ call-site census for `check --only census`: `n` sources, each counting ten rows
/// of one `.def` with a bare `Count()` under its own `MGLOG_W` (the block walk runs for every site).
fn census_tree(root: &Path, n: usize) {
    let mut def = String::new();
    for i in 0..n {
        let mut src = String::from("// generated\n#include \"Tally.h\"\n\n");
        for j in 0..10 {
            let _ = writeln!(def, "MGL_ROW(Row{i}x{j})");
            let _ = write!(
                src,
                "bool F{j}(int x) {{\n    if (x == {j}) {{\n        MGLOG_W(\"row {i} {j}: %d\", x); // why\n        Tally::Count(Site::Row{i}x{j});\n        return false;\n    }}\n    return true;\n}}\n\n"
            );
        }
        write(&root.join(format!("src/S{i}.cpp")), src.as_bytes());
    }
    write(&root.join("src/Rows.def"), def.as_bytes());
    write(
        &root.join("mgctl.toml"),
        b"[[census]]\nname = \"rows\"\npaths = [\"src/*.cpp\"]\n\
          registry = { file = \"src/Rows.def\", entry = '(?m)^MGL_ROW\\((\\w+)\\)$' }\n\n\
          [[census.site]]\npattern = 'Tally::Count\\(Site::(\\w+)\\)'\n\
          marker = { pattern = 'MGLOG_[WE]\\s*\\(', within = 8 }\n",
    );
}

/// A lane for `check --only evidence`: a JUnit of `n` entries, each with a client and a server
/// log of 50 lines, and one `[[evidence]]` set with a require, a forbid and a count over them.
fn evidence_tree(root: &Path, n: usize) {
    let mut junit = format!("<testsuite name=\"bench\" tests=\"{n}\" time=\"{n}\">\n");
    let mut client = String::new();
    let mut server = String::new();
    for i in 0..50 {
        let _ = writeln!(
            client,
            "[09:41:07] [Linux MobileGL/INFO]: Config: IPC run-ahead=1 strict=1 role-split-state=1 line {i}"
        );
        let _ = writeln!(
            server,
            "[09:41:08] [Linux MobileGL/INFO]: MGPipe stats: frames={i} window=60 draws=2680"
        );
    }
    for i in 0..n {
        let _ = writeln!(
            junit,
            "  <testcase name=\"A.t{i}\" status=\"run\" time=\"1\"/>"
        );
        write(&root.join(format!("logs/A.t{i}/c.log")), client.as_bytes());
        write(&root.join(format!("logs/A.t{i}/s.log")), server.as_bytes());
    }
    junit.push_str("</testsuite>\n");
    write(&root.join("lane.xml"), junit.as_bytes());
    write(
        &root.join("mgctl.toml"),
        b"[[evidence]]\nname = \"bench\"\njunit = \"lane.xml\"\ntests = '^A\\.'\n\
          logs = { client = \"logs/{test}/c.log\", server = \"logs/{test}/s.log\" }\n\
          require = [ { role = \"client\", pattern = '\\bstrict=1\\b' } ]\n\
          forbid = [ { role = \"both\", pattern = 'Fatal\\{' } ]\n\
          count = [ { role = \"server\", pattern = 'MGPipe stats: frames=', min = 1 } ]\n",
    );
}

/// Three lanes of `n` tests for `check --only test-sets`: split, spawn and tcp listings (`ctest -N`
/// shape) equal after the arm segment comes off, and the monolith listing covered by split.
fn lanes_tree(root: &Path, n: usize) {
    let listing = |arm: &str| {
        let mut t = String::from("Test project /b\n");
        for i in 0..n {
            let _ = writeln!(t, "  Test #{}: DirectGLES.{arm}Case{i}.run", i + 1);
        }
        let _ = writeln!(t, "\nTotal Tests: {n}");
        t
    };
    write(&root.join("lanes/monolith.txt"), listing("").as_bytes());
    for arm in ["Split", "Spawn", "Tcp"] {
        write(
            &root.join(format!("lanes/{arm}.txt")),
            listing(&format!("{arm}.")).as_bytes(),
        );
    }
    let mut toml = String::from(
        "[[test_sets.lane]]\nname = \"monolith\"\nlisting = \"lanes/monolith.txt\"\n\n",
    );
    for arm in ["Split", "Spawn", "Tcp"] {
        let _ = write!(
            toml,
            "[[test_sets.lane]]\nname = \"{}\"\nlisting = \"lanes/{arm}.txt\"\nnormalize = [{{ regex = '^(Direct\\w+)\\.{arm}\\.', replace = '$1.' }}]\n\n",
            arm.to_lowercase()
        );
    }
    toml.push_str("[[test_sets.equal]]\nlanes = [\"split\", \"spawn\", \"tcp\"]\n\n[[test_sets.subset]]\nof = \"monolith\"\nwithin = [\"split\"]\n");
    write(&root.join("mgctl.toml"), toml.as_bytes());
}

/// A generator and its committed output for `check --only generated`: `n` source files copied
/// into the throw-away workspace, and `cp` writing one output of `n` lines that matches.
fn generated_tree(root: &Path, n: usize) {
    let mut out = String::new();
    for i in 0..n {
        let _ = writeln!(out, "ROW({i}, Field{i})");
        write(
            &root.join(format!("src/F{i}.h")),
            format!("int f{i};\n").as_bytes(),
        );
    }
    write(&root.join("gen/rows.in"), out.as_bytes());
    write(&root.join("gen/rows.inc"), out.as_bytes());
    write(
        &root.join("mgctl.toml"),
        b"[[generated]]\nname = \"rows\"\ncommand = [\"cp\", \"gen/rows.in\", \"gen/rows.inc\"]\noutputs = [\"gen/rows.inc\"]\n",
    );
}

/// Generates the input for `n` units into `dir` and returns the mgctl command and an optional
/// reference command on the same input (`None` when the input cannot be generated here).
type Make = fn(dir: &Path, n: usize) -> Option<(Cmd, Option<Cmd>)>;

/// A split run's two role logs for `stats frames`: `frames` frames, each one `P65LinkMetrics
/// kind=frame` (client) or `P65ServerMetrics` (server; the first `valid=0`) row in a logcat
/// envelope among `per_frame - 1` other lines (issue 31: 10,000 frames in 200,000-line logs at 16x).
fn role_logs(frames: usize, per_frame: usize, seed: u64) -> (Vec<u8>, Vec<u8>) {
    use std::io::Write as _;
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = move |m: u64| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) % m
    };
    let (mut client, mut server) = (Vec::new(), Vec::new());
    for f in 1..=frames {
        let t = format!(
            "12-02 10:{:02}:{:02}.{:03}",
            f / 3600 % 60,
            f / 60 % 60,
            f % 1000
        );
        for i in 1..per_frame {
            for (log, tag) in [(&mut client, "MobileGL"), (&mut server, "mgl-srv")] {
                let _ = writeln!(
                    log,
                    "{t}  4242  4250 I {tag}: MGPipe trace: call {i} of frame {f} took {} ns",
                    next(100_000)
                );
            }
        }
        let wall = 8_000_000 + next(16_000_000);
        let cpu = 1 + next(wall);
        let wait = next(wall / 2);
        let _ = writeln!(
            client,
            "{t}  4242  4250 I MobileGL: P65LinkMetrics kind=frame frame={f} wall_ns={wall} client_thread_cpu_ns={cpu} transport_wait_ns={wait}"
        );
        let swall = 8_000_000 + next(16_000_000);
        let scpu = 1 + next(swall);
        let valid = u8::from(f > 1);
        let _ = writeln!(
            server,
            "{t}  4343  4351 I mgl-srv: P65ServerMetrics frame={f} valid={valid} wall_ns={swall} apply_thread_cpu_ns={scpu}"
        );
    }
    (client, server)
}

/// A P6 device session for `bench session` (issue 31): 4 arms (monolith, inproc, spawn, spawn)
/// × 3 repeats of `frames` frames each, and per arm two role logs of `frames × per_frame` lines
/// (a window line every 120 frames among trace lines): 10,000 frames and 200,000-line logs at 16x.
fn session_dir(root: &Path, frames: usize, per_frame: usize) {
    use std::io::Write as _;
    write(
        &root.join("session-summary.json"),
        b"{\"label\": \"scaling\", \"boot_id\": \"b\"}\n",
    );
    let line = |log: &mut Vec<u8>, msg: &str| {
        let _ = writeln!(log, "[10:00:00] [Android MobileGLTraceRe/INFO]: {msg}");
    };
    let window = |f: usize, srv: usize, cli: usize| {
        format!("MGPipe stats: frames={f} window=120 draws=360 draws/f=3.00 acc=720 acc/draw=2.00 bytes/f[buf=8.00] emit[maxrec=4096 maxcap=65536 ringwraps=0 ringwaits=1] wait[srv={srv} srvpark=1 cli={cli} clipark=2]")
    };
    for (i, t) in ["monolith", "inproc", "spawn", "spawn"].iter().enumerate() {
        let d = root.join(format!("{:02}-synthetic-DirectGLES-{t}-r3", i + 1));
        write(&d.join("pin-before.txt"), b"PINNED\n");
        write(&d.join("pin-after.txt"), b"PINNED\n");
        write(
            &d.join("arm-summary.json"),
            format!("{{\"transport\": \"{t}\", \"started_utc\": \"2026-01-01T00:00:00+00:00\", \"boot_id\": \"b\"}}\n").as_bytes(),
        );
        for r in 1..=3 {
            write(
                &d.join(format!("benchmark-run{r}.json")),
                &frames_json(frames, (i * 3 + r) as u64),
            );
        }
        let (mut client, mut server) = (Vec::new(), Vec::new());
        if *t != "monolith" {
            line(
                &mut client,
                &format!("Config: MOBILEGL_TRANSPORT={t} - the MGPipe record stream"),
            );
            line(
                &mut client,
                "Config: IPC strict=1 role-split-state=1 run-ahead=1",
            );
        }
        if *t == "spawn" {
            line(
                &mut client,
                "spawn ARMED - the server role runs in pid 4343",
            );
        }
        line(
            &mut client,
            "MGPipe stats: counters ON (MOBILEGL_PIPE_STATS), summary every 120 frames",
        );
        line(
            &mut server,
            "MGPipe stats: counters ON (MOBILEGL_PIPE_STATS), summary every 120 frames",
        );
        for f in 1..=frames {
            for k in 1..per_frame {
                line(
                    &mut client,
                    &format!(
                        "MGPipe trace: call {k} of frame {f} took {} ns",
                        (f * 31 + k * 7) % 100_000
                    ),
                );
                line(
                    &mut server,
                    &format!(
                        "MGPipe trace: apply {k} of frame {f} took {} ns",
                        (f * 17 + k * 5) % 100_000
                    ),
                );
            }
            if f % 120 == 0 {
                let (c, sv) = if *t == "spawn" {
                    (window(0, 0, f).replace("window=120 draws=360 draws/f=3.00 acc=720 acc/draw=2.00 bytes/f[buf=8.00]", "window=0 draws=0 draws/f=n/a acc=0 acc/draw=n/a bytes[buf=0]"), window(f, f / 2, 0))
                } else {
                    (window(f, f / 2, f), window(f, 0, 0))
                };
                line(&mut client, &c);
                line(&mut server, &sv);
            }
        }
        write(&d.join("mobilegl.client.log"), &client);
        if *t != "monolith" {
            write(&d.join("mobilegl.server.log"), &server);
        }
    }
}

/// One case: its name, what 1x is, and how to build the input and the command at a multiple.
struct Case {
    name: &'static str,
    unit: &'static str,
    base: usize,
    make: Make,
}

fn grep_windows(p: &Path) -> Cmd {
    Cmd {
        program: "grep".into(),
        args: vec!["-c".into(), "MGPipe stats:".into(), s(p)],
    }
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "stats summary (by windows)",
            unit: "lines, 1 in 10 a window",
            base: 62_500,
            make: |d, n| {
                let p = d.join("windows.log");
                write(&p, &logcat(n, 10, 1));
                Some((
                    Cmd::mgctl(&["stats", "summary", &s(&p)]),
                    Some(grep_windows(&p)),
                ))
            },
        },
        Case {
            name: "stats summary (by lines)",
            unit: "lines, 6,250 windows",
            base: 62_500,
            make: |d, n| {
                let p = d.join("lines.log");
                write(&p, &logcat(n, n / 6_250, 2));
                Some((
                    Cmd::mgctl(&["stats", "summary", &s(&p)]),
                    Some(grep_windows(&p)),
                ))
            },
        },
        Case {
            name: "stats diff",
            unit: "lines per arm",
            base: 62_500,
            make: |d, n| {
                let a = d.join("a-pull.log");
                let b = d.join("b-push.log");
                write(&a, &logcat(n, 10, 3));
                write(&b, &logcat(n, 10, 4));
                Some((Cmd::mgctl(&["stats", "diff", &s(&a), &s(&b)]), None))
            },
        },
        Case {
            name: "stats frames",
            unit: "frames, 20 lines each per role log",
            base: 625,
            make: |d, n| {
                let c = d.join("run.client.log");
                let sv = d.join("run.server.log");
                let (client, server) = role_logs(n, 20, 6);
                write(&c, &client);
                write(&sv, &server);
                Some((
                    Cmd::mgctl(&["stats", "frames", "--client", &s(&c), "--server", &s(&sv)]),
                    None,
                ))
            },
        },
        Case {
            name: "bench frames",
            unit: "frames",
            base: 62_500,
            make: |d, n| {
                let p = d.join("benchmark.json");
                write(&p, &frames_json(n, 5));
                Some((Cmd::mgctl(&["bench", "frames", &s(&p)]), None))
            },
        },
        Case {
            name: "bench session",
            unit: "frames per repeat (4 arms x 3, 20 log lines/frame)",
            base: 625,
            make: |d, n| {
                let root = d.join(format!("session{n}"));
                session_dir(&root, n, 20);
                Some((Cmd::mgctl(&["bench", "session", &s(&root)]), None))
            },
        },
        Case {
            name: "bench driver",
            unit: "cases per arm",
            base: 6_250,
            make: |d, n| {
                let a = d.join("espryt-pull.csv");
                let b = d.join("espryt-push.csv");
                write(&a, &driverbench(n, 1000.0));
                write(&b, &driverbench(n, 900.0));
                Some((Cmd::mgctl(&["bench", "driver", &s(&a), &s(&b)]), None))
            },
        },
        Case {
            name: "cite (one line)",
            unit: "citations on one line",
            base: 6_250,
            make: |d, n| {
                let root = d.join("cite");
                write(&root.join("src/A.cpp"), b"void Foo() {}\nint x;\n");
                let line: String = (0..n).map(|_| "`Foo` at `src/A.cpp:1`, ").collect();
                let doc = root.join("one-line.md");
                write(&doc, format!("{line}\n").as_bytes());
                Some((Cmd::mgctl(&["cite", "--root", &s(&root), &s(&doc)]), None))
            },
        },
        Case {
            name: "dirty-surface --summary",
            unit: "files (160 mutator calls each)",
            base: 16,
            make: |d, n| {
                let root = d.join(format!("ds{n}"));
                dirty_tree(&root, n);
                Some((
                    Cmd::mgctl(&["dirty-surface", "-C", &s(&root), "--summary"]),
                    None,
                ))
            },
        },
        Case {
            name: "include graph",
            unit: "headers",
            base: 500,
            make: |d, n| {
                let root = d.join(format!("inc{n}"));
                header_tree(&root, n);
                Some((
                    Cmd::mgctl(&["include", "-C", &s(&root), "-I", "inc", "graph"]),
                    None,
                ))
            },
        },
        Case {
            name: "symbols diff",
            unit: "symbols (ELF .o via as)",
            base: 20_000,
            make: |d, n| {
                let a = assemble(d, "before", &symbols_asm(n, false))?;
                let b = assemble(d, "after", &symbols_asm(n, true))?;
                Some((
                    Cmd::mgctl(&["symbols", "diff", "--before", &s(&a), "--after", &s(&b)]),
                    None,
                ))
            },
        },
        Case {
            name: "check --only test-sets",
            unit: "tests per lane (4 lanes)",
            base: 2_000,
            make: |d, n| {
                let root = d.join(format!("lanes{n}"));
                lanes_tree(&root, n);
                Some((
                    Cmd::mgctl(&["check", &s(&root), "--only", "test-sets"]),
                    None,
                ))
            },
        },
        Case {
            name: "check --only generated",
            unit: "workspace files (copied) and output rows",
            base: 250,
            make: |d, n| {
                let root = d.join(format!("gen{n}"));
                generated_tree(&root, n);
                Some((
                    Cmd::mgctl(&["check", &s(&root), "--only", "generated"]),
                    None,
                ))
            },
        },
        Case {
            name: "check --only census",
            unit: "sources (10 logged sites each)",
            base: 250,
            make: |d, n| {
                let root = d.join(format!("census{n}"));
                census_tree(&root, n);
                Some((Cmd::mgctl(&["check", &s(&root), "--only", "census"]), None))
            },
        },
        Case {
            name: "check --only link-ratchet",
            unit: "objects (ELF .o via as, 100 symbols)",
            base: 64,
            make: |d, n| {
                let root = d.join(format!("link{n}"));
                link_tree(&root, n)?;
                Some((
                    Cmd::mgctl(&["check", &s(&root), "--only", "link-ratchet"]),
                    None,
                ))
            },
        },
        Case {
            name: "check --only evidence",
            unit: "ctest entries (2 role logs of 50 lines)",
            base: 200,
            make: |d, n| {
                let root = d.join(format!("evd{n}"));
                evidence_tree(&root, n);
                Some((
                    Cmd::mgctl(&["check", &s(&root), "--only", "evidence"]),
                    None,
                ))
            },
        },
        Case {
            name: "check --only tokens (one line)",
            unit: "hits on one line (12 B each)",
            base: 1_000,
            make: |d, n| {
                let root = d.join(format!("tok{n}"));
                write(
                    &root.join("mgctl.toml"),
                    b"[[tokens.rule]]\nname = \"no-stdio\"\npattern = '\\bprintf\\s*\\('\npaths = [\"src/**\"]\nmask = \"code\"\nmessage = \"no stdio\"\n",
                );
                let line: String = (0..n).map(|_| "printf(x); ").collect();
                write(
                    &root.join("src/Long.cpp"),
                    format!("void f() {{ {line}}}\n").as_bytes(),
                );
                Some((Cmd::mgctl(&["check", &s(&root), "--only", "tokens"]), None))
            },
        },
        Case {
            name: "stats watch --once (--history)",
            unit: "windows of history",
            base: 6_250,
            make: |d, n| {
                let p = d.join("watch.log");
                write(&p, &logcat(n * 10, 10, 6));
                Some((
                    Cmd::mgctl(&[
                        "stats",
                        "watch",
                        "--once",
                        "--history",
                        &n.to_string(),
                        &s(&p),
                    ]),
                    None,
                ))
            },
        },
    ]
}

fn cpu_s(c: Option<f64>) -> String {
    c.map_or_else(|| "n/a".into(), |c| format!("{c:.2}"))
}

fn mib(k: Option<u64>) -> String {
    k.map_or_else(|| "n/a".into(), |k| format!("{:.1}", k as f64 / 1024.0))
}

/// Issue 16's bar for logs: `stats summary` of a 1,000,000-line log (100,000 windows in one
/// session) within 10x of `grep -c 'MGPipe stats:'` on the same file, under 250 MB.
fn headline(d: &Path, reps: usize, verdicts: &mut Vec<(&'static str, String)>) {
    const LINES: usize = 1_000_000;
    let (bytes, from) = match samples_log(LINES) {
        Some(b) => (b, "the samples (push capture)"),
        None => (
            logcat(LINES, 10, 7),
            "stats_viewer::synth (samples not found)",
        ),
    };
    let p = d.join("headline.log");
    write(&p, &bytes);
    let m = run(&Cmd::mgctl(&["stats", "summary", &s(&p)]), d, reps);
    let g = run(&grep_windows(&p), d, reps);
    let ratio = m.secs / g.secs.max(1e-9);
    let rss_ok = m.rss_kib.is_some_and(|k| k * 1024 < 250_000_000);
    println!(
        "{:<32} {:>9} {:<34} {:>9.3} {:>8} {:>7} {:>9} {:>5} {:>10.3}",
        "stats summary (headline)",
        "1M",
        format!("lines from {from}"),
        m.secs,
        "—",
        cpu_s(m.cpu),
        mib(m.rss_kib),
        m.exit.map_or_else(|| "sig".into(), |c| c.to_string()),
        g.secs
    );
    println!(
        "{:<32} {:.1} MB, {:.2} M lines/s end to end; {ratio:.1}x grep -c (bar 10x), peak RSS {} MiB (bar 250 MB)",
        "",
        bytes.len() as f64 / 1e6,
        LINES as f64 / m.secs / 1e6,
        mib(m.rss_kib)
    );
    let v = if ratio <= 10.0 && rss_ok {
        "PASS"
    } else {
        "FAIL"
    };
    verdicts.push((
        "stats summary 1M lines",
        format!("{v}  {ratio:.1}x grep -c, {} MiB", mib(m.rss_kib)),
    ));
}

fn main() {
    let reps: usize = arg("--reps").and_then(|v| v.parse().ok()).unwrap_or(3);
    let budget: f64 = arg("--budget-s")
        .and_then(|v| v.parse().ok())
        .unwrap_or(20.0);
    let only: Option<Vec<String>> =
        arg("--only").map(|v| v.split(',').map(|s| s.trim().to_string()).collect());
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("scaling: no temporary directory: {e}");
            std::process::exit(2);
        }
    };
    let d = dir.path();
    println!(
        "mgctl end to end ({}), wall best of at least {reps} runs (up to 30 while they total under 0.5 s), peak RSS of one more run; bar: 16x input <= 24x time",
        mgctl()
    );
    println!(
        "{:<32} {:>9} {:<34} {:>9} {:>8} {:>7} {:>9} {:>5} {:>10}",
        "command", "size", "unit", "wall s", "t/t(1x)", "CPU s", "RSS MiB", "exit", "ref s"
    );
    let started = Instant::now();
    let mut verdicts = Vec::new();
    if only
        .as_ref()
        .is_none_or(|o| o.iter().any(|n| n == "headline"))
    {
        headline(d, reps, &mut verdicts);
    }
    for case in cases() {
        if let Some(o) = &only {
            if !o.iter().any(|n| case.name.starts_with(n.as_str())) {
                continue;
            }
        }
        let mut base_secs = None;
        let mut last = None;
        let mut skipped = None;
        for ratio in [1usize, 4, 16] {
            let n = case.base * ratio;
            let Some((cmd, reference)) = (case.make)(d, n) else {
                skipped = Some("input cannot be generated here".to_string());
                break;
            };
            let m = run(&cmd, d, reps);
            let r = reference.map(|c| run(&c, d, reps));
            let b = *base_secs.get_or_insert(m.secs);
            println!(
                "{:<32} {:>8}x {:<34} {:>9.3} {:>7.1}x {:>7} {:>9} {:>5} {:>10}",
                case.name,
                ratio,
                format!("{n} {}", case.unit),
                m.secs,
                m.secs / b.max(1e-9),
                cpu_s(m.cpu),
                mib(m.rss_kib),
                m.exit.map_or_else(|| "sig".into(), |c| c.to_string()),
                r.map_or_else(|| "—".into(), |g| format!("{:.3}", g.secs))
            );
            last = Some((ratio, m.secs / b.max(1e-9)));
            if m.secs > budget && ratio < 16 {
                skipped = Some(format!("{ratio}x took {:.1} s > {budget} s budget", m.secs));
                break;
            }
        }
        let verdict = match (last, skipped) {
            (Some((16, t)), _) if t <= 24.0 => format!("PASS  16x input, {t:.1}x wall time"),
            (Some((16, t)), _) => format!("FAIL  16x input, {t:.1}x wall time"),
            (_, Some(why)) => format!("FAIL  not run to 16x: {why}"),
            _ => "FAIL  no measurement".to_string(),
        };
        verdicts.push((case.name, verdict));
    }
    println!();
    for (name, v) in &verdicts {
        println!("{name:<32} {v}");
    }
    println!("total bench time {:.0} s", started.elapsed().as_secs_f64());
    if verdicts.iter().any(|(_, v)| v.starts_with("FAIL")) {
        std::process::exit(1);
    }
}
