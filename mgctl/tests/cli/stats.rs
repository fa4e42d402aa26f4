//! `mgctl stats …` and `mgctl bench …` on the sample files of ../shared/samples (copied into
//! stats_viewer/tests/data). Outputs are compared with the golden files in
//! stats_viewer/tests/golden (regenerate with `MGCTL_BLESS=1 cargo test -p mgctl --test cli stats`,
//! then review the diff against ../shared/samples/README.md), and every number README.md quotes is
//! asserted explicitly below.

use std::path::{Path, PathBuf};

use crate::util::{mgctl, repo_root, scratch, write_tree};

fn data() -> PathBuf {
    repo_root().join("stats_viewer/tests/data")
}

fn golden_dir() -> PathBuf {
    repo_root().join("stats_viewer/tests/golden")
}

/// Runs mgctl in the data directory (so paths print relative) and checks stdout against a golden file.
fn golden(name: &str, args: &[&str], code: i32) -> String {
    let run = mgctl(args, &data()).expect(code);
    let path = golden_dir().join(name);
    if std::env::var_os("MGCTL_BLESS").is_some() {
        std::fs::create_dir_all(golden_dir()).unwrap();
        std::fs::write(&path, &run.stdout).unwrap();
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (bless with MGCTL_BLESS=1)", path.display()));
    assert!(
        run.stdout == want,
        "{} differs from the golden file {}\n{}",
        run.cmdline,
        path.display(),
        similar_diff(&want, &run.stdout)
    );
    run.stdout
}

fn similar_diff(a: &str, b: &str) -> String {
    let mut out = String::new();
    for (i, (x, y)) in a.lines().zip(b.lines()).enumerate() {
        if x != y {
            out.push_str(&format!("line {}:\n- {x}\n+ {y}\n", i + 1));
        }
    }
    if a.lines().count() != b.lines().count() {
        out.push_str(&format!(
            "line counts differ: {} vs {}\n",
            a.lines().count(),
            b.lines().count()
        ));
    }
    out
}

/// Asserts every needle occurs, comparing with runs of spaces collapsed (table columns align to
/// the widest cell, which differs between logs).
fn has(out: &str, needles: &[&str]) {
    let squeeze = |s: &str| {
        s.split(' ')
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let hay = out.lines().map(squeeze).collect::<Vec<_>>().join("\n");
    for n in needles {
        let n = n.lines().map(squeeze).collect::<Vec<_>>().join("\n");
        assert!(hay.contains(&n), "missing {n:?} in:\n{out}");
    }
}

#[test]
fn summary_arm_a_pull_file_sink() {
    let out = golden(
        "summary-abA.txt",
        &["stats", "summary", "abA-pull-DirectGLES.mobilegl.log"],
        0,
    );
    has(
        &out,
        &[
            "lines, CRLF)",
            "0 ignored",
            "sessions: 1",
            "period: 120 frames (from the banner)",
            "window lines: 7, complete: 6",
            "last complete window (line 7): frames=720 window=120",
            "draws              102611",
            "draws/f            855.09",
            "acc                1032346",
            "acc/draw           10.06",
            "bytes/f.buf        96119.47",
            "bytes/f.tex        97280.00",
            "bytes/f.resid      0.00",
            "gates.ers          98019/4742",
            "gates.etl          7405/95356",
            "gates.eub          6680/96081",
            "ers 0.9539 (98019/4742)",
            "teardown window (line 8, partial, NOT complete): frames=745 window=25 draws=21342 draws/f=853.68",
            "steady state, complete windows 3-6 (480 frames): draws/f 853.46, acc/draw 10.20",
            "acc/draw 10.2014 to 4 places",
            "run totals (7 window lines incl. teardown, 745 frames): draws 502443",
            "verify: not armed",
            "Fatal lines: none",
            "JSON dump: FAILED (line 9): PipeStats: could not open MOBILEGL_PIPE_STATS_FILE='/sdcard/mgout/pipestats.json' for writing",
            "self-check: 7/7 window lines re-derive",
        ],
    );
    assert!(!out.contains("cso."), "pull arm has no cso bracket");
}

#[test]
fn summary_arm_b_push_logcat() {
    let out = golden(
        "summary-abB.txt",
        &["stats", "summary", "abB-push-DirectGLES.logcat.txt"],
        0,
    );
    has(
        &out,
        &[
            "10 ignored (1 logcat marker, 8 foreign tag, 0 noise, 1 cut record, 0 bad window line)",
            ", LF)",
            "sessions: 2",
            "#1 pid 20877",
            "windows 1 (1 complete)  ended: no teardown",
            "#2 pid 21377",
            "<- reported",
            "period: 120 frames (from the banner)",
            "window lines: 7, complete: 6",
            "frames=720 window=120",
            "draws              102611",
            "draws/f            855.09",
            "acc                925544",
            "acc/draw           9.02",
            "bytes/f.buf        96119.47",
            "bytes/f.tex        97280.00",
            "bytes/f.resid      3993.93",
            "ers 0.9523 (97862/4899), etl 0.0722 (7416/95345), eub 0.0656 (6739/96022)",
            "cso.csom           0 ",
            "cso.csob           61654",
            "cso.mpr            0 ",
            "frames=745 window=25 draws=21342 draws/f=853.68",
            "draws/f 853.46, acc/draw 9.11",
            "acc/draw 9.1087 to 4 places",
            "draws 502443",
            "verify: armed (line 10: 63 fields, 69 verbs, fatal=1)",
            "Fatal lines: none",
            "JSON dump: written to /data/local/tmp/mgout/pipestats.json",
        ],
    );
    // Run totals recovered from the windows agree with the teardown JSON dump (abB-push-pipestats.json).
    let dump = std::fs::read_to_string(data().join("abB-push-pipestats.json")).unwrap();
    for (k, v) in [
        ("\"draws\": ", "502443"),
        ("\"stage-buffer\": ", "91357184"),
        ("\"render-state-cso-binds\": ", "310982"),
    ] {
        assert!(dump.contains(&format!("{k}{v}")));
        assert!(out.contains(v), "{v}");
    }
}

#[test]
fn summary_fatal_verify_log() {
    let out = golden(
        "summary-fatal-verify.txt",
        &["stats", "summary", "fatal-verify-DirectGLES.mobilegl.log"],
        0,
    );
    has(
        &out,
        &[
            "sessions: 1",
            "period: 60 frames (from the banner)",
            "window lines: 2, complete: 2",
            "frames=120 window=60",
            "draws              41877",
            "draws/f            697.95",
            "acc                472373",
            "acc/draw           11.28",
            "verify: armed (line 2: 63 fields, 69 verbs, fatal=1)",
            "Fatal{PipeVerifyDiffer, \"GetRenderStateParameters@Clear\", verb=48213, where=read} [FATAL]",
            "end: ended in a Fatal (no teardown window after it)",
            "JSON dump: no notice",
        ],
    );
    assert!(!out.contains("teardown window (line"));
}

#[test]
fn summary_markdown_and_json() {
    let md = golden(
        "summary.md",
        &[
            "stats",
            "summary",
            "--format",
            "markdown",
            "abA-pull-DirectGLES.mobilegl.log",
            "abB-push-DirectGLES.logcat.txt",
        ],
        0,
    );
    has(&md, &["| `abA-pull-DirectGLES.mobilegl.log` | frames=720 window=120 | 855.09 | 10.06 | 96119.47 | 97280.00 | 0.00 | 0.9539 |"]);
    has(&md, &["| 0/61654 | 853.46 | 9.11 | armed | 0 |"]);
    let js = golden(
        "summary-abB.json",
        &[
            "stats",
            "summary",
            "--format",
            "json",
            "abB-push-DirectGLES.logcat.txt",
        ],
        0,
    );
    let v: serde_json::Value = serde_json::from_str(&js).unwrap();
    assert_eq!(v["schema"], 1);
    let log = &v["logs"][0];
    assert_eq!(log["lines"]["ignored"], 10);
    assert_eq!(log["reported_session"], 2);
    let s = &log["sessions"][1];
    assert_eq!(s["pid"], 21377);
    assert_eq!(s["last_complete"]["draws"], 102611);
    assert_eq!(s["last_complete"]["draws_per_frame"], 855.09);
    assert_eq!(s["last_complete"]["acc_per_draw"], 9.02);
    assert_eq!(s["steady"]["acc_per_draw_text"], "9.11");
    assert_eq!(s["teardown"]["window"], 25);
    assert_eq!(s["totals"]["counts"][0]["value"], 502443);
}

#[test]
fn diff_a_b() {
    let out = golden(
        "diff-ab.txt",
        &[
            "stats",
            "diff",
            "abA-pull-DirectGLES.mobilegl.log",
            "abB-push-DirectGLES.logcat.txt",
        ],
        0,
    );
    has(
        &out,
        &[
            "validity: same trace — draws identical in all 7 window(s)",
            "draws/f                855.09      855.09             +0.00   +0.00 %",
            "acc/draw                10.06        9.02             -1.04  -10.34 %",
            "bytes/f.resid            0.00     3993.93          +3993.93",
            "acc/draw A 10.2014 B 9.1087 Δ -1.0926",
            "absent in A (present only in B, not zero): bytes/f.csob-blob, bytes/f.seg, cso.csom, cso.csob, cso.mpr, emit.fbe, emit.sve, emit.sse, emit.sie, emit.ctu, emit.trp, emit.rsp, emit.vbs, emit.wrec, emit.wrec/f, emit.maxrec, emit.maxcap, emit.ringwraps, emit.ringpads, emit.ringwaits, wait.srv, wait.srvpark, wait.cli, wait.clipark",
            "cso.csom               absent           0",
        ],
    );
    let js = golden(
        "diff-ab.json",
        &[
            "stats",
            "diff",
            "--format",
            "json",
            "abA-pull-DirectGLES.mobilegl.log",
            "abB-push-DirectGLES.logcat.txt",
        ],
        0,
    );
    let v: serde_json::Value = serde_json::from_str(&js).unwrap();
    assert_eq!(v["validity"]["valid"], true);
    let f = v["fields"].as_array().unwrap();
    let csom = f.iter().find(|x| x["name"] == "cso.csom").unwrap();
    assert_eq!(csom["a"], serde_json::Value::Null);
    assert_eq!(csom["absent_in"], "a");
    let apd = f.iter().find(|x| x["name"] == "acc/draw").unwrap();
    assert_eq!(apd["delta_text"], "-1.04");
    assert_eq!(apd["percent_text"], "-10.34 %");
}

#[test]
fn fatals_catalogue_and_transcript() {
    let out = golden(
        "fatals-lines.txt",
        &["stats", "fatals", "fatal-lines.txt"],
        1,
    );
    has(
        &out,
        &[
            "== fatal-lines.txt: 7 Fatal line(s)",
            "fatal-lines.txt:1: Fatal{PipeVerifyDiffer, \"GetPixelStoreParameters@ReadPixels\", verb=6, where=read} [FATAL]",
            "fatal-lines.txt:3: Fatal{UnmigratedPipeInput, \"GetProgramForDraw@Clear\"} [BARRIER-PULLED, MOBILEGL_IPC_STRICT_ERRORS=1, retires in P7]",
            "fatal-lines.txt:4: Fatal{UnmigratedPipeInput, \"GetRenderStateParameters@<none>\"}",
            "fatal-lines.txt:5: Fatal{PipeResidualDiverged, \"Dither\"} carried=1 assembled=0",
            "fatal-lines.txt:6: Fatal{ProtocolCorruption} record op 46 declares 24 payload bytes, carries 16",
            "fatal-lines.txt:7: Fatal{UnmigratedSurface, \"AndroidNativeWindow@P12\"} [FATAL] pid 24410",
            "by kind: UnmigratedPipeInput 3, PipeVerifyDiffer 1, PipeResidualDiverged 1, ProtocolCorruption 1, UnmigratedSurface 1",
        ],
    );
    assert!(
        !out.contains("fatal-lines.txt:8:")
            && !out.contains("fatal-lines.txt:9:")
            && !out.contains("fatal-lines.txt:10:")
    );
    let out = golden(
        "fatals-transcript.txt",
        &["stats", "fatals", "--verify", "ctest-verify-transcript.txt"],
        1,
    );
    has(
        &out,
        &[
            "ctest-verify-transcript.txt: 1 Fatal line(s)",
            "armed, clean: minecraft-26.3-vanilla-in-world DirectGLES",
            "armed, clean: minecraft-26.3-vanilla-in-world DirectVulkan",
            "FAILED: openra-ra-skirmish DirectGLES (1 Fatal)",
            "not requested (MOBILEGL_PIPE_VERIFY=0): vanilla-title-screen DirectGLES",
        ],
    );
}

#[test]
fn fatals_verify_gate_semantics() {
    // The verify lane's log: armed, but one Fatal => exit 1.
    let out = golden(
        "fatals-verify.txt",
        &[
            "stats",
            "fatals",
            "--verify",
            "fatal-verify-DirectGLES.mobilegl.log",
        ],
        1,
    );
    has(
        &out,
        &[
            "verify armed at line 2: 63 fields, 69 verbs, fatal=1",
            "PipeVerifyDiffer 1",
        ],
    );
    // Arm B: armed, zero Fatal => exit 0 even with --verify.
    mgctl(
        &[
            "stats",
            "fatals",
            "--verify",
            "abB-push-DirectGLES.logcat.txt",
        ],
        &data(),
    )
    .expect(0);
    // Arm A: no Fatal but never armed: 0 without --verify, 1 with it.
    mgctl(
        &["stats", "fatals", "abA-pull-DirectGLES.mobilegl.log"],
        &data(),
    )
    .expect(0);
    let r = mgctl(
        &[
            "stats",
            "fatals",
            "--verify",
            "abA-pull-DirectGLES.mobilegl.log",
        ],
        &data(),
    )
    .expect(1);
    r.assert_stdout_has("verify never armed");
}

#[test]
fn bench_frames_best_of_three() {
    let out = golden(
        "bench-frames.txt",
        &[
            "bench",
            "frames",
            "benchmark-run1.json",
            "benchmark-run2.json",
            "benchmark-run3.json",
        ],
        0,
    );
    has(
        &out,
        &[
            "minecraft-26.3-vanilla-in-world / DirectGLES run 1/3: frames=300 total=6.1s tail=200 mean=13.163ms median=12.939ms p95=14.202ms fps=76.0 | cpu mean=10.926ms p50=10.700ms p95=12.107ms p99=14.833ms\n",
            "minecraft-26.3-vanilla-in-world / DirectGLES run 2/3: frames=300 total=6.0s tail=200 mean=13.025ms median=12.829ms p95=14.156ms fps=76.8 | cpu mean=10.792ms p50=10.640ms p95=11.914ms p99=14.564ms\n",
            "minecraft-26.3-vanilla-in-world / DirectGLES run 3/3: frames=300 total=6.1s tail=200 mean=13.178ms median=12.909ms p95=15.320ms fps=75.9 | cpu mean=10.896ms p50=10.652ms p95=13.357ms p99=20.393ms\n",
            "minecraft-26.3-vanilla-in-world / DirectGLES best of 3 (run 2): frames=300 total=6.0s tail=200 mean=13.025ms median=12.829ms p95=14.156ms fps=76.8 | cpu mean=10.792ms p50=10.640ms p95=11.914ms p99=14.564ms\n",
            "method: nearest rank",
            "1    benchmark-run1.json  wall    200 of 300  13.163  12.939  14.202  17.845",
            "1    benchmark-run1.json  cpu     200 of 300  10.926  10.700  12.107  14.833",
            "2    benchmark-run2.json  wall    200 of 300  13.025  12.829  14.156  17.876",
            "2    benchmark-run2.json  cpu     200 of 300  10.792  10.640  11.914  14.564",
            "3    benchmark-run3.json  wall    200 of 300  13.178  12.909  15.320  23.309",
            "3    benchmark-run3.json  cpu     200 of 300  10.896  10.652  13.357  20.393",
            "75.970",
            "76.776",
            "75.883",
            "best of 3: run 2 (lowest wall meanFrameMs 13.025)",
            "cpu p50 10.640 ms, p99 14.564 ms (n=200, nearest rank)",
        ],
    );
    let md = golden(
        "bench-frames.md",
        &[
            "bench",
            "frames",
            "--format",
            "markdown",
            "benchmark-run1.json",
            "benchmark-run2.json",
            "benchmark-run3.json",
        ],
        0,
    );
    has(&md, &["| minecraft-26.3-vanilla-in-world / DirectGLES | best of 3 (run 2) | 13.025 | 76.8 | 10.640 | 14.564 | 200 | nearest rank |"]);
    // benchmark.json alone is run 3's file: the mistake best-of-N avoids.
    let r = mgctl(
        &["bench", "frames", "--series", "cpu", "benchmark.json"],
        &data(),
    )
    .expect(0);
    has(
        &r.stdout,
        &["cpu p50 10.652 ms, p99 20.393 ms (n=200, nearest rank)"],
    );
}

#[test]
fn bench_frames_directory_and_compare() {
    let dir = scratch();
    for arm in ["pull", "push"] {
        for i in 1..=3 {
            let src = data().join(format!("benchmark-run{i}.json"));
            std::fs::create_dir_all(dir.path().join(arm)).unwrap();
            std::fs::copy(
                src,
                dir.path().join(arm).join(format!("benchmark-run{i}.json")),
            )
            .unwrap();
        }
    }
    // push arm: run 2 replaced by run 3's data so its best is run 1.
    std::fs::copy(
        data().join("benchmark-run3.json"),
        dir.path().join("push/benchmark-run2.json"),
    )
    .unwrap();
    let r = mgctl(
        &[
            "bench",
            "frames",
            "--series",
            "cpu",
            "--compare",
            "pull",
            "push",
        ],
        dir.path(),
    )
    .expect(0);
    has(
        &r.stdout,
        &[
            "A: pull (best of 3: run 2)",
            "B: push (best of 3: run 1)",
            "cpu frame times, ms (A n=200, B n=200; nearest rank):",
            "p50        10.640     10.700     +0.060",
            "p99        14.564     14.833     +0.269",
        ],
    );
    let r = mgctl(&["bench", "frames", "--tail", "100", "pull"], dir.path()).expect(0);
    has(&r.stdout, &["100 of 300"]);
}

#[test]
fn bench_driver_table() {
    let out = golden(
        "bench-driver.txt",
        &[
            "bench",
            "driver",
            "driverbench-A-espryt-pull.csv",
            "driverbench-B-espryt-push.txt",
        ],
        0,
    );
    has(
        &out,
        &[
            "arm espryt-push: driverbench-B-espryt-push.txt (9 rows under 3 header(s), 9 other line(s) skipped)",
            "mc_vanilla_draw  5136.1 (n=3, min 5063.1)      5439.1 (n=3, min 5411.9)      +303.0 ns/op (+5.90 %)",
            "mc_state_toggle  23889.7 (n=3, min 23733.4)    25024.0 (n=3, min 24570.8)    +1134.3 ns/op (+4.75 %)",
            "mc_pass_switch   447793.1 (n=3, min 446440.5)  445856.8 (n=3, min 444659.2)  -1936.3 ns/op (-0.43 %)",
        ],
    );
    let md = golden(
        "bench-driver.md",
        &[
            "bench",
            "driver",
            "--format",
            "markdown",
            "driverbench-A-espryt-pull.csv",
            "driverbench-B-espryt-push.txt",
        ],
        0,
    );
    has(&md, &["| `mc_vanilla_draw` | 5136.1 (n=3, min 5063.1) | 5439.1 (n=3, min 5411.9) | +303.0 ns/op (+5.90 %) |"]);
    // A third arm measured with MOBILEGL_PIPE_PUSH=0x7f adds T2 and T1 - T2.
    let r = mgctl(
        &[
            "bench",
            "driver",
            "espryt-pull=driverbench-A-espryt-pull.csv",
            "espryt-push=driverbench-B-espryt-push.txt",
            "espryt-push7f=driverbench-A-espryt-pull.csv",
        ],
        &data(),
    )
    .expect(0);
    has(
        &r.stdout,
        &[
            "T2 = espryt-push7f − espryt-pull",
            "T1 − T2",
            "+0.0 ns/op (+0.00 %)  +303.0 ns/op",
        ],
    );
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn bad_input_is_a_clear_error_never_a_panic() {
    let d = scratch();
    let p = d.path();
    write(p, "junk.log", b"\x7fELF\x02\x01\x01\x00\x00\x00garbage\n");
    let r = mgctl(&["stats", "summary", "junk.log"], p).expect(2);
    assert!(
        r.stderr
            .contains("junk.log:1: binary data (NUL byte), not a text log"),
        "{}",
        r.dump()
    );
    write(p, "none.log", b"[10:00:00] [Linux t/INFO]: hello\nnoise\n");
    let r = mgctl(&["stats", "summary", "none.log"], p).expect(1);
    assert!(
        r.stderr
            .contains("no `MGPipe stats:` window found in none.log"),
        "{}",
        r.dump()
    );
    let r = mgctl(&["stats", "diff", "none.log", "none.log"], p).expect(1);
    assert!(
        r.stderr
            .contains("no `MGPipe stats:` window found in none.log"),
        "{}",
        r.dump()
    );
    let r = mgctl(&["stats", "summary", "missing.log"], p).expect(2);
    r.assert_stderr_has("missing.log: cannot open");
    let cases: [(&str, &[u8], &str); 6] = [
        (
            "trunc.json",
            b"{\n  \"frameTimesMs\": [1.0, 2.",
            "trunc.json:2:",
        ),
        ("nan.json", b"{\"frameTimesMs\": [1.0, NaN]}", "nan.json:1:"),
        (
            "inf.json",
            b"{\"frameTimesMs\": [1.0, Infinity]}",
            "inf.json:1:",
        ),
        (
            "empty.json",
            b"{\"frameTimesMs\": [], \"frameCpuTimesMs\": []}",
            "empty.json: frameTimesMs is empty",
        ),
        (
            "text.json",
            b"not json at all",
            "text.json:1:2: not valid JSON",
        ),
        (
            "neg.json",
            b"{\"frameTimesMs\": [1.0, -3.0]}",
            "frameTimesMs[1]: negative frame time",
        ),
    ];
    for (name, body, msg) in cases {
        write(p, name, body);
        let r = mgctl(&["bench", "frames", name], p).expect(2);
        assert!(
            r.stderr.starts_with("mgctl: ") && r.stderr.contains(msg),
            "{name}: {}",
            r.dump()
        );
        assert!(!r.stderr.contains("panicked"), "{}", r.dump());
    }
    // No CPU clock: the CPU series is unavailable, said so, never a zero.
    write(p, "nocpu.json", b"{\"tracePath\": \"x/a.trace\", \"backend\": \"DirectGLES\", \"totalFrames\": 2, \"tailFrames\": 2, \"meanFrameMs\": 2.0, \"frameTimesMs\": [1.0, 3.0], \"frameCpuTimesMs\": []}");
    let r = mgctl(&["bench", "frames", "nocpu.json"], p).expect(0);
    has(
        &r.stdout,
        &[
            "| cpu unavailable (no per-thread CPU clock in this run)",
            "cpu unavailable: no per-thread CPU clock",
            "p99 with n=2",
        ],
    );
    write(
        p,
        "db.txt",
        b"case,frames,ops_per_frame,median_frame_ms,ns_per_op,fps\nmc,240,x,1,1,1\n",
    );
    let r = mgctl(&["bench", "driver", "db.txt"], p).expect(2);
    assert!(
        r.stderr
            .contains("db.txt:2: DriverBench row: ops_per_frame"),
        "{}",
        r.dump()
    );
    write(p, "nohdr.txt", b"EGL 1.5 via x\n");
    let r = mgctl(&["bench", "driver", "nohdr.txt"], p).expect(2);
    r.assert_stderr_has("nohdr.txt: no DriverBench header");
}

#[test]
fn diff_refuses_different_traces() {
    let d = scratch();
    let a = std::fs::read_to_string(data().join("abA-pull-DirectGLES.mobilegl.log")).unwrap();
    let b = a.replace("draws=102157 draws/f=851.31", "draws=102158 draws/f=851.32");
    write_tree(d.path(), &[("a.log", &a), ("b.log", &b)]);
    let r = mgctl(&["stats", "diff", "a.log", "b.log"], d.path()).expect(1);
    r.assert_stdout_has("validity: INVALID — draws differ in 1 of 7 aligned window(s) (first: frames=360 draws A=102157 B=102158)");
    assert!(
        r.stderr
            .contains("a.log and b.log are not an A/B of the same trace"),
        "{}",
        r.dump()
    );
    mgctl(
        &["stats", "diff", "--allow-mismatch", "a.log", "b.log"],
        d.path(),
    )
    .expect(0);
}

#[test]
fn self_check_flags_a_misprinted_ratio() {
    let d = scratch();
    let a = std::fs::read_to_string(data().join("abA-pull-DirectGLES.mobilegl.log")).unwrap();
    write_tree(
        d.path(),
        &[("a.log", &a.replace("draws/f=516.28", "draws/f=516.27"))],
    );
    let r = mgctl(&["stats", "summary", "a.log"], d.path()).expect(1);
    assert!(
        r.stderr
            .contains("a.log:3: draws/f printed 516.27 but re-derives to 516.28"),
        "{}",
        r.dump()
    );
}

#[test]
fn other_envelopes_and_split_roles() {
    let d = scratch();
    let w = |f: u64, draws: u64| {
        format!("MGPipe stats: frames={f} window=60 draws={draws} draws/f={}.{:02} acc=0 acc/draw=0.00 bytes/f[buf=0.00] tex[emit=0 box=0 rect=0 jobs=0] gates[ers=0/0]", draws * 100 / 60 / 100, draws * 100 / 60 % 100)
    };
    // `-v time`, `-v brief`, raw messages; client and server pids interleaved in one capture.
    let text = format!(
        "11-30 10:00:01.000 I/MobileGL( 100): [10:00:01] [Android client/INFO]: {}\n\
         I/MobileGL(  200): [10:00:01] [Android mgl-srv-apply/INFO]: {}\n\
         11-30 10:00:02.000 I/MobileGL( 100): [10:00:02] [Android client/INFO]: {}\n\
         I/MobileGL(  200): [10:00:02] [Android mgl-srv-apply/INFO]: {}\n",
        w(60, 600),
        w(60, 6),
        w(120, 1200),
        w(120, 12)
    );
    write_tree(d.path(), &[("split.logcat.txt", &text)]);
    let r = mgctl(&["stats", "summary", "split.logcat.txt"], d.path()).expect(0);
    has(
        &r.stdout,
        &[
            "sessions: 2",
            "#1 pid 100 main",
            "#2 pid 200 server",
            "period 60 (inferred)",
            "session 1 (pid 100, role main):",
            "session 2 (pid 200, role server):",
            "window lines: 2, complete: 2",
        ],
    );
}

#[test]
fn check_gate_fatals() {
    let d = scratch();
    let fatal =
        std::fs::read_to_string(data().join("fatal-verify-DirectGLES.mobilegl.log")).unwrap();
    let clean = std::fs::read_to_string(data().join("abB-push-DirectGLES.logcat.txt")).unwrap();
    write_tree(
        d.path(),
        &[
            (
                "mgctl.toml",
                "[fatals]\nlogs = [\"logs/*.log\", \"logs/*.txt\"]\n",
            ),
            ("logs/good.logcat.txt", &clean),
        ],
    );
    let r = mgctl(&["check", ".", "--only", "fatals"], d.path()).expect(0);
    assert!(
        r.stdout
            .contains("1 logs / 7 windows / 0 Fatal lines / armed 1/1")
            || r.stdout.contains("1 logs / 8 windows"),
        "{}",
        r.dump()
    );
    write_tree(d.path(), &[("logs/bad.log", &fatal)]);
    let r = mgctl(
        &["check", ".", "--only", "fatals", "--format", "github"],
        d.path(),
    )
    .expect(1);
    r.assert_stdout_has("file=logs/bad.log,line=5");
    r.assert_stdout_has("FAT001");
    let r = mgctl(&["check", ".", "--only", "fatals", "--self-test"], d.path()).expect(0);
    assert!(!r.stdout.contains("FAIL"), "{}", r.dump());
    // A neutered negative control makes the self-test itself fail.
    let r = mgctl(
        &[
            "check",
            ".",
            "--only",
            "fatals",
            "--self-test",
            "--neuter",
            "fatals/never-armed",
        ],
        d.path(),
    )
    .expect(1);
    assert!(
        r.stdout
            .contains("never-armed: negative control did not trip"),
        "{}",
        r.dump()
    );
    write_tree(
        d.path(),
        &[("mgctl.toml", "[fatals]\nlogs = [\"nothing/*.log\"]\n")],
    );
    let r = mgctl(&["check", ".", "--only", "fatals"], d.path()).expect(1);
    assert!(
        r.stdout.contains("FAT005") || r.stdout.contains("no log matches"),
        "{}",
        r.dump()
    );
}

#[test]
fn summary_pairs_the_json_dump_with_its_session() {
    let r = mgctl(
        &[
            "stats",
            "summary",
            "abB-push-DirectGLES.logcat.txt",
            "--dump",
            "abB-push-pipestats.json",
        ],
        &data(),
    )
    .expect(0);
    has(&r.stdout, &["JSON dump abB-push-pipestats.json (run totals): frames 745, 51 values compared with the windows, 0 disagree; 2 histogram(s) of 24 buckets"]);
    let r = mgctl(
        &[
            "stats",
            "summary",
            "abA-pull-DirectGLES.mobilegl.log",
            "--dump",
            "abB-push-pipestats.json",
        ],
        &data(),
    )
    .expect(1);
    has(
        &r.stdout,
        &[
            "MISMATCH calls.accessor-calls: dump 4597760 vs windows 5150263",
            "MISMATCH bytes.cso-blob-bytes: dump 1722880 vs windows absent",
        ],
    );
    assert!(
        r.stderr
            .contains("does not match the windows of abA-pull-DirectGLES.mobilegl.log"),
        "{}",
        r.dump()
    );
    let r = mgctl(
        &[
            "stats",
            "summary",
            "--format",
            "json",
            "abB-push-DirectGLES.logcat.txt",
            "--dump",
            "abB-push-pipestats.json",
        ],
        &data(),
    )
    .expect(0);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["dump"]["agree"], true);
    let r = mgctl(
        &[
            "stats",
            "summary",
            "abA-pull-DirectGLES.mobilegl.log",
            "abB-push-DirectGLES.logcat.txt",
            "--dump",
            "abB-push-pipestats.json",
        ],
        &data(),
    )
    .expect(2);
    r.assert_stderr_has("--dump pairs one JSON dump with one log");
}

#[test]
fn driver_demo_log_summarises_cleanly() {
    // The push run of driver/build.sh's demo, committed for the `fatals` gate.
    let root = repo_root();
    let r = mgctl(
        &[
            "stats",
            "summary",
            "driver/MobileGL/MG_Test/logs/mobilegl.push.log",
        ],
        &root,
    )
    .expect(0);
    has(
        &r.stdout,
        &[
            "sessions: 1",
            "period: 60 frames (from the banner)",
            "0 ignored",
            "Fatal lines: none",
            "end: teardown window present",
            "self-check: 6/6 window lines re-derive",
        ],
    );
    has(&r.stdout, &["verify: armed (line 3:"]);
    mgctl(
        &[
            "stats",
            "fatals",
            "--verify",
            "driver/MobileGL/MG_Test/logs/mobilegl.push.log",
        ],
        &root,
    )
    .expect(0);
    // With the demo built (driver/build.sh), its pull and push runs are a valid A/B.
    let pull = root.join("driver/build/mobilegl.log");
    let push = root.join("driver/build/mobilegl.push.log");
    if pull.is_file() && push.is_file() {
        let r = mgctl(
            &[
                "stats",
                "diff",
                "driver/build/mobilegl.log",
                "driver/build/mobilegl.push.log",
            ],
            &root,
        )
        .expect(0);
        has(&r.stdout, &["validity: same trace"]);
    }
}

#[test]
fn a_log_reopened_after_close_is_named() {
    let d = scratch();
    write_tree(d.path(), &[("mobilegl.log", "[10:12:20] [Linux t/ERROR]: MGPipe: verify summary - 0 divergence(s) survived MOBILEGL_PIPE_VERIFY_FATAL=0\n")]);
    let r = mgctl(&["stats", "summary", "mobilegl.log"], d.path()).expect(1);
    has(
        &r.stdout,
        &["the log may have been re-opened (truncated) after Close()"],
    );
    assert!(
        r.stderr
            .contains("no `MGPipe stats:` window found in mobilegl.log"),
        "{}",
        r.dump()
    );
}

/// The verify-lane sample (armed, two windows, one Fatal) with its line endings replaced.
fn fatal_log_with(ending: &str) -> Vec<u8> {
    let text =
        std::fs::read_to_string(data().join("fatal-verify-DirectGLES.mobilegl.log")).unwrap();
    text.lines()
        .map(|l| format!("{l}{ending}"))
        .collect::<String>()
        .into_bytes()
}

#[test]
fn a_fatal_line_with_an_invalid_utf8_byte_is_counted() {
    let d = scratch();
    let mut bytes = fatal_log_with("\n");
    let at = bytes.windows(6).position(|w| w == b"Render").unwrap();
    bytes[at] = 0xff;
    write(d.path(), "bad.log", &bytes);
    let r = mgctl(&["stats", "fatals", "--verify", "bad.log"], d.path()).expect(1);
    r.assert_stdout_has("== bad.log: 1 Fatal line(s)");
    r.assert_stdout_has("verify FAIL: bad.log: 1 Fatal line(s), zero required");
    assert!(!r.stdout.contains("zero Fatal lines"), "{}", r.dump());
    write_tree(
        d.path(),
        &[("mgctl.toml", "[fatals]\nlogs = [\"*.log\"]\n")],
    );
    let r = mgctl(
        &["check", ".", "--only", "fatals", "--format", "github"],
        d.path(),
    )
    .expect(1);
    r.assert_stdout_has("FAT001");
    let r = mgctl(&["stats", "summary", "bad.log"], d.path()).expect(0);
    r.assert_stdout_has("1 line(s) not valid UTF-8, decoded lossily");
}

#[test]
fn cr_only_and_cr_cr_lf_logs_are_read_like_lf() {
    let d = scratch();
    for (name, ending) in [("cr.log", "\r"), ("crcrlf.log", "\r\r\n")] {
        write(d.path(), name, &fatal_log_with(ending));
        let r = mgctl(&["stats", "fatals", "--verify", name], d.path()).expect(1);
        r.assert_stdout_has(&format!("== {name}: 1 Fatal line(s)"));
        r.assert_stdout_has("verify armed at line 2");
        let r = mgctl(&["stats", "summary", name], d.path()).expect(0);
        has(
            &r.stdout,
            &[
                "5 lines",
                "0 ignored",
                "0 bad window line)",
                "window lines: 2, complete: 2",
            ],
        );
    }
}

#[test]
fn logs_stream_from_a_fifo_and_stdin_and_dev_zero_stops_with_a_clear_error() {
    let d = scratch();
    let fifo = d.path().join("pipe.log");
    let st = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(st.success());
    let bytes = fatal_log_with("\n");
    let writer = {
        let fifo = fifo.clone();
        let bytes = bytes.clone();
        std::thread::spawn(move || std::fs::write(fifo, bytes).unwrap())
    };
    let r = mgctl(&["stats", "fatals", "pipe.log"], d.path()).expect(1);
    writer.join().unwrap();
    r.assert_stdout_has("== pipe.log: 1 Fatal line(s)");
    // `-` is standard input.
    let mut child = std::process::Command::new(crate::util::bin())
        .args(["stats", "summary", "-"])
        .current_dir(d.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(&bytes).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    has(&stdout, &["== <stdin>", "window lines: 2"]);
    // An endless NUL stream is refused at once, not read until memory runs out.
    let r = mgctl(&["stats", "summary", "/dev/zero"], d.path()).expect(2);
    r.assert_stderr_has("/dev/zero:1: binary data (NUL byte), not a text log");
    // An over-long line is junk, counted with a note; the windows around it still count.
    let mut long = fatal_log_with("\n");
    long.extend(std::iter::repeat_n(b'x', 3 << 20));
    long.extend_from_slice(b"\n");
    write(d.path(), "long.log", &long);
    let r = mgctl(&["stats", "summary", "long.log"], d.path()).expect(0);
    has(
        &r.stdout,
        &[
            "1 over-long line (longer than the line cap, dropped unread)",
            "window lines: 2",
        ],
    );
}

#[test]
fn bench_frames_refuses_frame_counts_that_are_not_whole_numbers() {
    let d = scratch();
    let p = d.path();
    for (key, value) in [
        ("tailFrames", "-1"),
        ("tailFrames", "0.5"),
        ("tailFrames", "18446744073709551616"),
        ("totalFrames", "-1"),
    ] {
        let body = format!("{{\"{key}\": {value}, \"frameTimesMs\": [1.0, 2.0, 3.0]}}");
        write(p, "b.json", body.as_bytes());
        let r = mgctl(&["bench", "frames", "b.json"], p).expect(2);
        r.assert_stderr_has(&format!("b.json: {key}: "));
        r.assert_stderr_has("is not a frame count (a whole number from 0 to 2^53)");
    }
    write(
        p,
        "ok.json",
        b"{\"tailFrames\": 2, \"totalFrames\": 3, \"frameTimesMs\": [1.0, 2.0, 3.0]}",
    );
    mgctl(&["bench", "frames", "ok.json"], p).expect(0);
}

/// Issue 16: the process-wide table of unknown window names is bounded; what does not fit is
/// counted in the summary (text and JSON), never dropped silently.
#[test]
fn issue16_unknown_keys_beyond_the_cap_are_counted_not_lost() {
    let dir = scratch();
    let mut log = String::from("[10:00:00] [Linux t/INFO]: MGPipe stats: counters ON (MOBILEGL_PIPE_STATS), summary every 1 frames\n");
    // 5,000 lines, each with a new unknown key: the first 4,096 names are kept.
    for i in 1..=5_000u32 {
        log.push_str(&format!("[10:00:01] [Linux t/INFO]: MGPipe stats: frames={i} window=1 draws=1 draws/f=1.00 acc=1 acc/draw=1.00 new{i}=7 gates[ers=1/1]\n"));
    }
    write_tree(dir.path(), &[("mobilegl.log", log.as_str())]);
    let run = mgctl(&["stats", "summary", "mobilegl.log"], dir.path()).expect(0);
    run.assert_stdout_has("unknown keys dropped: 904 (window fields whose name arrived after 4096 distinct unknown names were kept)");
    let json = mgctl(&["stats", "summary", "--json", "mobilegl.log"], dir.path()).expect(0);
    json.assert_stdout_has("\"unknown_keys_dropped\": 904");
    // A log within the cap prints no such line.
    let small = &log[..log
        .find("[10:00:01] [Linux t/INFO]: MGPipe stats: frames=11 ")
        .unwrap_or(log.len())];
    write_tree(dir.path(), &[("small.log", small)]);
    let run = mgctl(&["stats", "summary", "small.log"], dir.path()).expect(0);
    assert!(
        !run.stdout.contains("unknown keys dropped"),
        "{}",
        run.stdout
    );
}

/// Issue 14: `stats fatals --verify` and the `fatals` gate decide G4 in one place
/// (`stats_viewer::g4`), so on the same logs they agree on each log's verdict, on every problem
/// (line and wording) and on the headline figures.
#[test]
fn fatals_command_and_gate_agree() {
    let d = scratch();
    let read = |n: &str| std::fs::read_to_string(data().join(n)).unwrap();
    write_tree(
        d.path(),
        &[
            ("mgctl.toml", "[fatals]\nlogs = [\"logs/*\"]\n"),
            (
                "logs/a-clean.logcat.txt",
                &read("abB-push-DirectGLES.logcat.txt"),
            ),
            (
                "logs/b-fatal.log",
                &read("fatal-verify-DirectGLES.mobilegl.log"),
            ),
            ("logs/c-lines.txt", &read("fatal-lines.txt")),
            ("logs/d-ctest.txt", &read("ctest-verify-transcript.txt")),
            ("logs/e-pull.log", &read("abA-pull-DirectGLES.mobilegl.log")),
        ],
    );
    let logs = [
        "logs/a-clean.logcat.txt",
        "logs/b-fatal.log",
        "logs/c-lines.txt",
        "logs/d-ctest.txt",
        "logs/e-pull.log",
    ];
    let mut args = vec!["stats", "fatals", "--verify", "--format", "json"];
    args.extend(logs);
    let cmd = mgctl(&args, d.path()).expect(1);
    let cmd: serde_json::Value = serde_json::from_str(&cmd.stdout).unwrap();
    let gate = mgctl(
        &["check", ".", "--only", "fatals", "--format", "json"],
        d.path(),
    )
    .expect(1);
    let gate: serde_json::Value = serde_json::from_str(&gate.stdout).unwrap();
    let g = gate["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["gate"] == "fatals")
        .unwrap();
    assert_eq!(g["verdict"], "fail");
    let figure = |name: &str| {
        g["figures"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f[0] == name)
            .map(|f| f[1].clone())
            .unwrap()
    };
    assert_eq!(figure("logs"), logs.len());
    assert_eq!(figure("fatal_lines"), cmd["fatal_lines"]);
    let findings = g["findings"].as_array().unwrap();
    let mut armed = 0;
    for (log, l) in logs.iter().zip(cmd["logs"].as_array().unwrap()) {
        armed += usize::from(l["armed"] == true);
        // The command's problems of this log, as `line: message` (Fatal lines, then the rest).
        let mut want: Vec<String> = l["fatals"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| format!("{}", f["line"]))
            .collect();
        let rest = l["verify_problems"].as_array().unwrap();
        want.extend(rest.iter().map(|p| {
            let p = p.as_str().unwrap();
            // `path: message`, or `path:line: message`.
            let p = p.strip_prefix(log).unwrap();
            let p = p.strip_prefix(": ").or_else(|| p.strip_prefix(':'));
            p.unwrap().to_string()
        }));
        // The gate's findings of this log in the same shape (the report sorts findings).
        let mut got: Vec<String> = findings
            .iter()
            .filter(|f| f["unit"] == *log)
            .map(|f| {
                let (line, msg) = (&f["location"]["line"], f["message"].as_str().unwrap());
                match (f["code"].as_str().unwrap(), line.is_null()) {
                    ("FAT001", _) => line.to_string(),
                    (_, true) => msg.to_string(),
                    (_, false) => format!("{line}: {msg}"),
                }
            })
            .collect();
        assert_eq!(got.is_empty(), l["pass"] == true, "{log}: {got:?} vs {l}");
        got.sort();
        want.sort();
        assert_eq!(got, want, "{log}");
    }
    assert_eq!(figure("armed"), armed);
}

// `stats frames` (issue 31 item 5): the three cases of MobileGL's tools/trace_replay/
// test_frame_stats.py as role-log pairs (stats_viewer/tests/data/frames), and the errors.

fn frames_data() -> PathBuf {
    data().join("frames")
}

fn frames_json(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["stats", "frames", "--format", "json"];
    all.extend_from_slice(args);
    let r = mgctl(&all, &frames_data()).expect(0);
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}\n{}", r.dump()))
}

const CLIENT_ROWS: &str = "P65LinkMetrics kind=frame frame=1 wall_ns=10000000 client_thread_cpu_ns=2000000 transport_wait_ns=1000000\n\
P65LinkMetrics kind=frame frame=2 wall_ns=20000000 client_thread_cpu_ns=5000000 transport_wait_ns=4000000\n\
P65LinkMetrics kind=frame frame=3 wall_ns=40000000 client_thread_cpu_ns=10000000 transport_wait_ns=7000000\n";
const SERVER_ROWS: &str =
    "P65ServerMetrics frame=2 valid=1 wall_ns=18000000 apply_thread_cpu_ns=3000000\n\
P65ServerMetrics frame=3 valid=1 wall_ns=35000000 apply_thread_cpu_ns=6000000\n";

/// test_paired_percentiles_and_shares: frames 2..3, transport wait avg 5.5 / p50 4.0 / p99 7.0 ms,
/// its share 100 * 11000000 / 60000000 %.
#[test]
fn frames_upstream_paired_percentiles_and_shares() {
    let v = frames_json(&[
        "--client",
        "paired.client.log",
        "--server",
        "paired.server.log",
        "--warmup",
        "1",
    ]);
    assert_eq!(v["schema"], 1);
    assert_eq!(
        (&v["first_frame"], &v["last_frame"], &v["frames"]),
        (&2.into(), &3.into(), &2.into())
    );
    assert_eq!(
        v["stats"]["transport_wait_ms"],
        serde_json::json!({"avg": 5.5, "p50": 4.0, "p99": 7.0})
    );
    let share = v["share_percent_of_client_present"]["transport_wait_ms"]
        .as_f64()
        .unwrap();
    assert_eq!(share, 100.0 * 11000000.0 / 60000000.0);
    assert_eq!(v["percentile"], "nearest rank");
    assert_eq!(v["unit"], "ms");
    // The per-frame series, exact nanoseconds with each row's line.
    let s = &v["series"];
    assert_eq!(s["frame"], serde_json::json!([2, 3]));
    assert_eq!(
        s["transport_wait_ns"],
        serde_json::json!([4000000, 7000000])
    );
    assert_eq!(s["server_line"], serde_json::json!([1, 2]));
    assert_eq!(v["inputs"]["client"]["frame_rows"], 3);

    // The human report prints the same digits as the script's JSON (Python's float repr), and
    // --server defaults to the client log's role-log sibling.
    let r = mgctl(
        &["stats", "frames", "--client", "paired.client.log"],
        &frames_data(),
    )
    .expect(0);
    has(
        &r.stdout,
        &[
            "server paired.server.log: 156 bytes, 2 lines",
            "frames 2..3: 2 paired (warmup: ids <= 1 left out; tail: all)",
            "client_present_ms 30.0 20.0 40.0",
            "transport_wait_ms 5.5 4.0 7.0 18.333333333333332",
            "client_cpu_ms 7.5 5.0 10.0 25.0",
            "server_cpu_ms 4.5 3.0 6.0 15.0",
            "shares sum to 58.33333333333333 % of the client present time\n",
        ],
    );
    assert!(r.stderr.is_empty(), "{}", r.dump());

    let r = mgctl(
        &[
            "stats",
            "frames",
            "--client",
            "paired.client.log",
            "--format",
            "markdown",
        ],
        &frames_data(),
    )
    .expect(0);
    has(
        &r.stdout,
        &[
            "**mgctl stats frames**: client `paired.client.log`, server `paired.server.log`",
            "|---|---:|---:|---:|---:|",
            "| transport_wait_ms | 5.5 | 4.0 | 7.0 | 18.333333333333332 |",
        ],
    );
}

/// test_missing_server_frame_is_error: refused, naming the frame and where the client has it.
#[test]
fn frames_upstream_missing_server_frame_is_error() {
    let r = mgctl(
        &[
            "stats",
            "frames",
            "--client",
            "missing.client.log",
            "--server",
            "missing.server.log",
        ],
        &frames_data(),
    )
    .expect(2);
    assert_eq!(
        r.stderr.trim_end(),
        "mgctl: missing.server.log: server is missing matched frames: [3]; frame 3 is missing.client.log:3",
        "{}",
        r.dump()
    );
    assert!(r.stdout.is_empty(), "{}", r.dump());
}

/// test_parallel_cpu_is_allowed: the shares add up to more than 100 %.
#[test]
fn frames_upstream_parallel_cpu_is_allowed() {
    let v = frames_json(&["--client", "overlapping.client.log"]);
    let shares = v["share_percent_of_client_present"].as_object().unwrap();
    let sum: f64 = shares.values().filter_map(|s| s.as_f64()).sum();
    assert!(sum > 100.0, "{v:#}");
    assert_eq!(shares["server_cpu_ms"], 80.0);
    let r = mgctl(
        &["stats", "frames", "--client", "overlapping.client.log"],
        &frames_data(),
    )
    .expect(0);
    has(
        &r.stdout,
        &["shares sum to 123.33333333333333 % of the client present time (above 100: role CPU and transport wait overlap)"],
    );
}

/// Every way the script refuses its input is exit 2 with a one-line error naming the file, the
/// line and the frame; so is a log without frame rows; bad bytes are counted on stderr.
#[test]
fn frames_bad_input_is_refused_naming_file_line_and_frame() {
    let d = scratch();
    let p = d.path();
    let run = |client: &str, server: &str, extra: &[&str]| {
        write(p, "a.client.log", client.as_bytes());
        write(p, "a.server.log", server.as_bytes());
        let mut args = vec!["stats", "frames", "--client", "a.client.log"];
        args.extend_from_slice(extra);
        mgctl(&args, p)
    };
    let refused = |client: &str, server: &str, extra: &[&str], want: &str| {
        let r = run(client, server, extra).expect(2);
        assert_eq!(
            r.stderr.trim_end(),
            format!("mgctl: {want}"),
            "{}",
            r.dump()
        );
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.dump());
    };
    // A duplicate frame id, in either log.
    let dup = format!(
        "{CLIENT_ROWS}I/MobileGL: P65LinkMetrics kind=frame frame=2 wall_ns=1000000 client_thread_cpu_ns=1 transport_wait_ns=0\n"
    );
    refused(
        &dup,
        SERVER_ROWS,
        &[],
        "a.client.log:4: duplicate frame 2 (first at line 2)",
    );
    refused(
        CLIENT_ROWS,
        &format!("{SERVER_ROWS}{SERVER_ROWS}"),
        &[],
        "a.server.log:3: duplicate frame 2 (first at line 1)",
    );
    // A gap in the selected client ids.
    let gap = CLIENT_ROWS.replace("frame=2 ", "frame=5 ");
    refused(
        &gap,
        SERVER_ROWS,
        &[],
        "a.client.log:2: selected client frame IDs are not contiguous: frame 5 follows frame 3 (line 3)",
    );
    // Invalid clocks: a negative interval, CPU beyond the wall time plus max(100 us, 1 %).
    refused(
        &CLIENT_ROWS.replace("transport_wait_ns=4000000", "transport_wait_ns=-4000000"),
        SERVER_ROWS,
        &[],
        "a.client.log:2: invalid clocks in frame 2: transport_wait_ns=-4000000 is negative",
    );
    refused(
        CLIENT_ROWS,
        &SERVER_ROWS.replace("apply_thread_cpu_ns=6000000", "apply_thread_cpu_ns=35350001"),
        &[],
        "a.server.log:2: invalid clocks in frame 3: apply_thread_cpu_ns=35350001 exceeds wall_ns=35000000 + tolerance 350000 ns",
    );
    refused(
        &CLIENT_ROWS.replace("wall_ns=20000000", "wall_ns=-20000000"),
        SERVER_ROWS,
        &[],
        "a.client.log:2: invalid clocks in frame 2: wall_ns=-20000000 is not positive",
    );
    // A server interval that is not valid=1 is skipped as the script skips it; a selected frame
    // that only has such a row is missing, and the error shows the row.
    refused(
        CLIENT_ROWS,
        &SERVER_ROWS.replace("frame=3 valid=1", "frame=3 valid=0"),
        &[],
        "a.server.log: server is missing matched frames: [3]; frame 3 is a.client.log:3, and a.server.log:2 has it with valid=0",
    );
    // --warmup 0 takes frame 1, which the server never measured (its first interval).
    refused(
        CLIENT_ROWS,
        SERVER_ROWS,
        &["--warmup", "0"],
        "a.server.log: server is missing matched frames: [1]; frame 1 is a.client.log:1",
    );
    refused(
        CLIENT_ROWS,
        SERVER_ROWS,
        &["--warmup", "3"],
        "a.client.log: no frames remain after warmup/tail selection (3 client frames, ids 1..3, none above --warmup 3)",
    );
    // A malformed row, and logs without one usable frame row: errors, never an empty pass.
    refused(
        &CLIENT_ROWS.replace("wall_ns=40000000", "wall_ns=4e7"),
        SERVER_ROWS,
        &[],
        "a.client.log:3: malformed P65LinkMetrics row: `wall_ns=4e7`: not an integer",
    );
    refused(
        "MGPipe stats: frames=1 window=1\n",
        SERVER_ROWS,
        &[],
        "a.client.log: no usable P65LinkMetrics frames (no line holds `P65LinkMetrics `)",
    );
    refused(
        CLIENT_ROWS,
        "",
        &[],
        "a.server.log: no usable P65ServerMetrics frames (no line holds `P65ServerMetrics `)",
    );
    refused(
        CLIENT_ROWS,
        "P65ServerMetrics frame=1 valid=0 wall_ns=0 apply_thread_cpu_ns=0\n",
        &[],
        "a.server.log: no usable P65ServerMetrics frames (1 marker lines, every one skipped because its valid is not `1`)",
    );
    // Usage: --tail must be positive; a client log not named X.client.log needs --server.
    let r = run(CLIENT_ROWS, SERVER_ROWS, &["--tail", "0"]).expect(2);
    assert!(r.stderr.contains("--tail"), "{}", r.dump());
    write(p, "client.txt", CLIENT_ROWS.as_bytes());
    let r = mgctl(&["stats", "frames", "--client", "client.txt"], p).expect(2);
    assert!(r.stderr.contains("give --server LOG"), "{}", r.dump());
    let r = mgctl(&["stats", "frames", "--client", "nope.client.log"], p).expect(2);
    assert!(
        r.stderr.contains("nope.client.log: cannot read"),
        "{}",
        r.dump()
    );

    // Invalid UTF-8 is read as the script reads it (U+FFFD) and counted, not dropped silently.
    let mut bytes = b"\xff\xfe boot noise\n".to_vec();
    bytes.extend_from_slice(CLIENT_ROWS.as_bytes());
    write(p, "b.client.log", &bytes);
    write(p, "b.server.log", SERVER_ROWS.as_bytes());
    let r = mgctl(&["stats", "frames", "--client", "b.client.log"], p).expect(0);
    assert_eq!(
        r.stderr.trim_end(),
        "mgctl: warning: b.client.log:1: 2 invalid UTF-8 sequences on 1 lines, each read as U+FFFD (as frame_stats.py reads them)",
        "{}",
        r.dump()
    );
    has(
        &r.stdout,
        &[
            "2 invalid UTF-8 sequences (first on line 1)",
            "transport_wait_ms 5.5 4.0 7.0",
        ],
    );
}

/// Real role logs: logcat envelopes, the first server interval valid=0, other P65 kinds, CRLF,
/// and --tail.
#[test]
fn frames_logcat_envelopes_and_tail() {
    let d = scratch();
    let p = d.path();
    let client: String = CLIENT_ROWS
        .lines()
        .map(|l| format!("12-02 10:00:00.000  4242  4250 I MobileGL: {l}\r\n"))
        .chain(["12-02 10:00:01.000  4242  4250 I MobileGL: P65LinkMetrics kind=link frames=3 bytes=10\r\n".to_string()])
        .collect();
    let server =
        format!("P65ServerMetrics frame=1 valid=0 wall_ns=0 apply_thread_cpu_ns=0\n{SERVER_ROWS}");
    write(p, "mobilegl.client.log", client.as_bytes());
    write(p, "mobilegl.server.log", server.as_bytes());
    let r = mgctl(
        &[
            "stats",
            "frames",
            "--client",
            "mobilegl.client.log",
            "--tail",
            "1",
        ],
        p,
    )
    .expect(0);
    has(
        &r.stdout,
        &[
            "client mobilegl.client.log: 538 bytes, 4 lines, 4 P65LinkMetrics lines, 3 frame rows, 1 skipped (kind is not frame)",
            "server mobilegl.server.log: 221 bytes, 3 lines, 3 P65ServerMetrics lines, 2 frame rows, 1 skipped (valid is not 1)",
            "frames 3..3: 1 paired (warmup: ids <= 1 left out; tail: the last 1)",
            "transport_wait_ms 7.0 7.0 7.0 17.5",
        ],
    );
    // One capture holding both roles (an inproc arm's logcat) serves as both logs.
    write(p, "both.txt", format!("{client}{server}").as_bytes());
    let r = mgctl(
        &[
            "stats", "frames", "--client", "both.txt", "--server", "both.txt",
        ],
        p,
    )
    .expect(0);
    has(
        &r.stdout,
        &["transport_wait_ms 5.5 4.0 7.0 18.333333333333332"],
    );
}
