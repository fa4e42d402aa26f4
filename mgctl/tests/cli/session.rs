//! `mgctl bench session` (issue 31) on the driver's small P6 session: three arms proven from
//! their own role logs, the spawn arm that fell back and the unpinned arm named with their
//! reasons and excluded, the spawn arm's frames from its server log; a stale benchmark.json and a
//! per-frame rate over a structural zero are errors; bad input is one line and exit 2.

use std::path::{Path, PathBuf};

use crate::util::{copy_dir, driver, mgctl, scratch};

const SPAWN: &str = "03-mc-rd12-DirectGLES-spawn-r2";
const FELL_BACK: &str = "04-mc-rd12-DirectGLES-spawn-r2";
const UNPINNED: &str = "05-mc-rd12-DirectGLES-inproc-r2";

fn fixture() -> PathBuf {
    driver().join("fixtures/session/p6-mixed")
}

/// A scratch copy of the fixture session, to plant a fault in.
fn copy() -> (tempfile::TempDir, PathBuf) {
    let dir = scratch();
    let dest = dir.path().join("p6-mixed");
    copy_dir(&fixture(), &dest);
    (dir, dest)
}

fn json(dir: &Path, code: i32) -> serde_json::Value {
    let run = mgctl(
        &[
            "bench",
            "session",
            dir.to_str().unwrap(),
            "--format",
            "json",
        ],
        dir,
    )
    .expect(code);
    serde_json::from_str(&run.stdout).unwrap()
}

fn arm<'a>(v: &'a serde_json::Value, label: &str) -> &'a serde_json::Value {
    v["arms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["label"] == label)
        .unwrap_or_else(|| panic!("no arm {label} in {v:#}"))
}

#[test]
fn the_driver_session_compares_three_proven_arms_and_names_both_voided_ones() {
    let dir = fixture();
    let run = mgctl(&["bench", "session", dir.to_str().unwrap()], &dir).expect(0);
    run.assert_stdout_has("5 arm(s), 3 proven, 2 excluded");
    run.assert_stdout_has(&format!("UNPROVEN  {FELL_BACK}"));
    run.assert_stdout_has("no `spawn ARMED - the server role runs in pid N` line");
    run.assert_stdout_has(&format!("VOID      {UNPINNED}"));
    run.assert_stdout_has("pin-after.txt says `NOT PINNED`");
    run.assert_stdout_has(&format!(
        "frames     240 (server {SPAWN}/mobilegl.server.log:3)"
    ));
    run.assert_stdout_has("client frames=0 window=0: structural under spawn");

    let v = json(&dir, 0);
    assert_eq!(v["schema"], 1);
    assert_eq!(v["pass"], true);
    assert_eq!(v["baseline"], "01-mc-rd12-DirectGLES-monolith-r2");
    let order: Vec<&str> = v["arms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["status"].as_str().unwrap())
        .collect();
    assert_eq!(order, ["PROVEN", "PROVEN", "PROVEN", "UNPROVEN", "VOID"]);
    let spawn = arm(&v, SPAWN);
    assert_eq!(spawn["server_pid"], 4343);
    assert_eq!(spawn["frames"]["role"], "server");
    assert_eq!(spawn["frames"]["value"], 240);
    assert_eq!(spawn["waits"]["srv"]["role"], "server");
    assert_eq!(spawn["waits"]["srv"]["value"], 48);
    assert_eq!(spawn["waits"]["cli"]["role"], "client");
    assert_eq!(spawn["gauges"]["maxrec"]["value"], 16384);
    assert_eq!(spawn["rates"]["srv/frame"]["value"], 0.2);
    assert!(spawn["delta"]["cpu_p50_ms"].is_number());
    // Inproc: one process, so the client's line carries all four waits.
    let inproc = arm(&v, "02-mc-rd12-DirectGLES-inproc-r2");
    assert_eq!(inproc["waits"]["srv"]["role"], "client");
    assert_eq!(inproc["frames"]["role"], "client");
    for (label, code) in [(FELL_BACK, "SES001"), (UNPINNED, "SES002")] {
        let a = arm(&v, label);
        assert_eq!(a["compared"], false);
        assert!(a["delta"].is_null());
        assert_eq!(a["reasons"][0]["code"], code, "{a:#}");
    }
}

#[test]
fn markdown_and_html_show_the_same_arms_escaped() {
    let dir = fixture();
    let run = mgctl(
        &[
            "bench",
            "session",
            dir.to_str().unwrap(),
            "--format",
            "markdown",
        ],
        &dir,
    )
    .expect(0);
    run.assert_stdout_has(&format!("| 4 | {FELL_BACK} | spawn | UNPROVEN | SES001"));
    run.assert_stdout_has("\\`spawn ARMED");
    run.assert_stdout_has(&format!("240 (server {SPAWN}/mobilegl.server.log:3)"));
    assert!(
        !run.stdout.contains(&format!("| {UNPINNED} | 2 |")),
        "a voided arm in the comparison:\n{}",
        run.stdout
    );

    let out = scratch();
    let page = out.path().join("session.html");
    mgctl(
        &[
            "bench",
            "session",
            dir.to_str().unwrap(),
            "--html",
            page.to_str().unwrap(),
        ],
        &dir,
    )
    .expect(0);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("Content-Security-Policy"));
    assert!(!html.contains("<script"));
    assert!(html.contains(FELL_BACK) && html.contains("UNPROVEN") && html.contains("NOT PINNED"));
    let charts = html.matches("class=\"chart").count();
    assert!(
        charts >= 4,
        "three histograms and the Δ bars, found {charts}"
    );
}

#[test]
fn a_stale_benchmark_json_is_refused_with_both_names() {
    let (_g, dir) = copy();
    let arm_dir = dir.join(SPAWN);
    // Another arm's result left in this arm's folder: it names another backend.
    let other = std::fs::read_to_string(arm_dir.join("benchmark.json"))
        .unwrap()
        .replace("\"backend\": \"DirectGLES\"", "\"backend\": \"Vulkan\"");
    std::fs::write(arm_dir.join("benchmark.json"), other).unwrap();
    let run = mgctl(&["bench", "session", dir.to_str().unwrap()], &dir).expect(1);
    run.assert_stdout_has(&format!(
        "error SES006 {SPAWN}/benchmark.json: {SPAWN}/benchmark.json: names backend `Vulkan`, but arm {SPAWN} is case `mc-rd12`, backend `DirectGLES`, transport `spawn`"
    ));
    run.assert_stdout_has(&format!("REFUSED   {SPAWN}"));

    // Older than the arm's start.
    let (_g2, dir) = copy();
    let f = std::fs::File::options()
        .write(true)
        .open(dir.join(SPAWN).join("benchmark-run1.json"))
        .unwrap();
    f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_764_000_000))
        .unwrap();
    let v = json(&dir, 1);
    let msg = arm(&v, SPAWN)["reasons"][0]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        msg.contains("written 2025-11-24T")
            && msg.contains("before arm")
            && msg.contains("2026-11-30T10:00:00+00:00"),
        "{msg}"
    );
}

#[test]
fn a_per_frame_rate_over_a_structural_zero_is_an_error() {
    let (_g, dir) = copy();
    let log = dir.join(SPAWN).join("mobilegl.server.log");
    let text = std::fs::read_to_string(&log).unwrap();
    // The server counted nothing: its lines are frames=0 window=0 as well.
    let zero = regex::Regex::new(r"frames=\d+ window=\d+ draws=\d+ draws/f=[0-9.]+ acc=\d+ acc/draw=[0-9.]+ bytes/f\[buf=8.00\]")
        .unwrap()
        .replace_all(&text, "frames=0 window=0 draws=0 draws/f=n/a acc=0 acc/draw=n/a bytes[buf=0]")
        .into_owned();
    assert_ne!(zero, text);
    std::fs::write(&log, zero).unwrap();
    let run = mgctl(&["bench", "session", dir.to_str().unwrap()], &dir).expect(1);
    run.assert_stdout_has(&format!("error SES007 {SPAWN}: arm {SPAWN}: srv/frame is a rate over a structural zero: the server log {SPAWN}/mobilegl.server.log counted frames=0"));
    run.assert_stdout_has("srv/frame error SES007");
    assert!(!run.stdout.contains("inf"), "{}", run.stdout);
}

#[test]
fn unreadable_input_is_one_line_and_exit_2() {
    let out = scratch();
    let run = mgctl(
        &["bench", "session", out.path().to_str().unwrap()],
        out.path(),
    )
    .expect(2);
    run.assert_stderr_has("neither session-summary.json (P6 session) nor summary.json");
    assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.dump());

    let (_g, dir) = copy();
    std::fs::write(dir.join(SPAWN).join("arm-summary.json"), "{\"case\": \n").unwrap();
    let run = mgctl(&["bench", "session", dir.to_str().unwrap()], &dir).expect(2);
    run.assert_stderr_has(&format!("{SPAWN}/arm-summary.json:2:"));

    let dir = fixture();
    let run = mgctl(
        &[
            "bench",
            "session",
            dir.to_str().unwrap(),
            "--baseline",
            "tcp",
        ],
        &dir,
    )
    .expect(2);
    run.assert_stderr_has("--baseline tcp: no arm has that label");
}

#[test]
fn a_disagg_matrix_reads_its_runs_in_order() {
    let (_g, src) = copy();
    let out = scratch();
    let root = out.path().join("perf-compare");
    let runs = [
        ("monolith", "01-mc-rd12-DirectGLES-monolith-r2"),
        ("shm", SPAWN),
        ("shm", FELL_BACK),
    ];
    let mut list = Vec::new();
    for (rep, (arm_name, from)) in runs.iter().enumerate() {
        let rep = rep + 1;
        copy_dir(
            &src.join(from),
            &root.join(format!("rd12/{arm_name}-r{rep}")),
        );
        list.push(serde_json::json!({"workload": "rd12", "mode": "benchmark", "rep": rep.to_string(), "arm": arm_name, "backend": "DirectGLES", "status": "ok"}));
    }
    list.push(serde_json::json!({"workload": "rd12", "mode": "ssim", "rep": "1", "arm": "tcp"}));
    std::fs::write(
        root.join("summary.json"),
        serde_json::json!({"runs": list}).to_string(),
    )
    .unwrap();
    // The case is the workload here; the benchmark files name the trace's case.
    for d in ["rd12/monolith-r1", "rd12/shm-r2", "rd12/shm-r3"] {
        for f in std::fs::read_dir(root.join(d)).unwrap() {
            let p = f.unwrap().path();
            if p.extension().is_some_and(|e| e == "json") {
                let t = std::fs::read_to_string(&p)
                    .unwrap()
                    .replace("mc-rd12.trace", "rd12.trace");
                std::fs::write(&p, t).unwrap();
            }
        }
    }
    let v = json(&root, 0);
    assert_eq!(v["layout"], "disagg");
    let labels: Vec<(&str, &str)> = v["arms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["label"].as_str().unwrap(), a["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        labels,
        [
            ("rd12-monolith-r1", "PROVEN"),
            ("rd12-spawn+shm-r2", "PROVEN"),
            ("rd12-spawn+shm-r3", "UNPROVEN")
        ]
    );
    assert_eq!(arm(&v, "rd12-spawn+shm-r2")["frames"]["role"], "server");
}

/// `bench ab --session` (issue 31: a `session` input for `bench ab`): the A/B table over a device
/// session compares proven arms only, by transport; each arm left out is named with its reason,
/// and asking for a transport no proven arm has is refused.
#[test]
fn bench_ab_reads_a_session_comparing_proven_arms_only() {
    let dir = fixture();
    let d = dir.to_str().unwrap();
    let run = mgctl(&["bench", "ab", d, "--session", "--push", "inproc"], &dir).expect(0);
    // The same figures `bench session` prints for the inproc arm against the monolith.
    let row = run
        .stdout
        .lines()
        .find(|l| l.starts_with("mc-rd12"))
        .unwrap_or_else(|| panic!("{}", run.dump()));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        &cells[7..13],
        ["9.450", "9.200", "-0.250", "9.800", "9.600", "-0.200"],
        "{row}"
    );
    run.assert_stdout_has("arms by transport: pull = monolith, push = inproc");
    run.assert_stdout_has(&format!("left out: {FELL_BACK} UNPROVEN: no `spawn ARMED"));
    run.assert_stdout_has(&format!(
        "left out: {UNPINNED} VOID: pin-after.txt says `NOT PINNED`"
    ));
    let j = mgctl(
        &[
            "bench",
            "ab",
            d,
            "--session",
            "--push",
            "spawn",
            "--format",
            "json",
        ],
        &dir,
    )
    .expect(0);
    let v: serde_json::Value = serde_json::from_str(&j.stdout).unwrap();
    assert_eq!(v["rows"][0]["push"]["p50"], 8.575, "{}", j.dump());
    assert_eq!(v["arms"]["push"], "spawn");
    assert_eq!(v["left_out"].as_array().unwrap().len(), 2);
    // No --push: the proven transports are listed; an arm only a voided folder has is refused.
    let r = mgctl(&["bench", "ab", d, "--session"], &dir).expect(2);
    r.assert_stderr_has("give --push TRANSPORT (proven here: monolith, inproc, spawn)");
    let (_t, copy) = copy();
    std::fs::remove_dir_all(copy.join(SPAWN)).unwrap();
    let c = copy.to_str().unwrap();
    let r = mgctl(&["bench", "ab", c, "--session", "--push", "spawn"], &copy).expect(2);
    r.assert_stderr_has("no proven `spawn` arm");
    r.assert_stderr_has(&format!("{FELL_BACK} UNPROVEN"));
}

/// The disagg matrix's PipeStats dumps merged and its LinkMetrics rolled up (issue 31): counters
/// summed across the client and server dumps, the `max-` gauges the larger side (upstream's sum
/// would report a 131072-byte cap), frames the side that counted them; each LinkMetrics frame id
/// once, the repeat named. A dump that does not parse is refused naming it.
#[test]
fn pipestats_dumps_merge_and_link_metrics_roll_up() {
    let v = json(&fixture(), 0);
    let t = &arm(&v, SPAWN)["run_totals"];
    let p = &t["pipestats"];
    assert_eq!(p["frames"], 240, "{t:#}");
    assert_eq!(p["values"]["wire.server-waits"], 48);
    assert_eq!(p["values"]["wire.client-waits"], 60);
    assert_eq!(p["values"]["wire.max-record-bytes"], 16384);
    assert_eq!(p["values"]["wire.max-record-bytes-cap"], 65536);
    assert_eq!(p["values"]["calls.wire-records"], 720);
    let l = &t["link_metrics"];
    assert_eq!(
        (l["frames"].as_u64(), l["wait_replies"].as_u64()),
        (Some(3), Some(3)),
        "{l:#}"
    );
    assert_eq!(l["transport_wait_ns"], 8_000_000);
    assert_eq!(l["duplicate_frames"], 1);
    assert!(arm(&v, "01-mc-rd12-DirectGLES-monolith-r2")["run_totals"]["pipestats"].is_null());
    let dir = fixture();
    let run = mgctl(&["bench", "session", dir.to_str().unwrap()], &dir).expect(0);
    assert!(
        run.stdout
            .contains("srv=48  srvpark=12  cli=60  clipark=18")
            && run.stdout.contains(
                "LinkMetrics   frames=3 wait_replies=3 stage_bytes=1792 transport_wait=8.0 ms"
            ),
        "{}",
        run.dump()
    );
    let (_t, copy) = copy();
    std::fs::write(
        copy.join(SPAWN).join("pipestats.server.json"),
        "{\"frames\": ",
    )
    .unwrap();
    let r = mgctl(&["bench", "session", copy.to_str().unwrap()], &copy).expect(2);
    assert!(r.stderr.contains("pipestats.server.json"), "{}", r.dump());
}
