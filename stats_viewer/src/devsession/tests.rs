#![allow(clippy::unwrap_used)]

use std::path::Path;

use super::load::{format_utc, parse_utc, Bench, RoleLog};
use super::proof::{pinned, Markers};
use super::*;
use crate::benchmark::BenchmarkFile;
use crate::session::Log;

const IPC: &str = "Config: IPC strict=1 role-split-state=1 run-ahead=1";

fn rec(msg: &str) -> String {
    format!("[10:00:00] [Android T/INFO]: {msg}\n")
}

fn win(frames: u64, window: u64, srv: u64, cli: u64) -> String {
    let draws = 3 * window;
    let dpf = if window > 0 { "3.00" } else { "n/a" };
    let apd = if draws > 0 { "2.00" } else { "n/a" };
    let by = if window > 0 {
        "bytes/f[buf=8.00]"
    } else {
        "bytes[buf=0]"
    };
    rec(&format!("MGPipe stats: frames={frames} window={window} draws={draws} draws/f={dpf} acc={} acc/draw={apd} {by} emit[maxrec=64 maxcap=128 ringwraps=1 ringwaits=0] wait[srv={srv} srvpark=1 cli={cli} clipark=2]", 2 * draws))
}

fn role(name: &str, text: &str) -> RoleLog {
    let path = Path::new(name);
    RoleLog {
        shown: name.into(),
        log: Log::parse(path, text.as_bytes()).unwrap(),
        markers: Markers::scan(text.as_bytes()),
    }
}

fn bench(backend: &str, mtime: i64) -> Bench {
    let j = format!(
        r#"{{"tracePath":"/t/case.trace","backend":"{backend}","meanFrameMs":10.0,"tailFrames":4,"frameTimesMs":[9,10,11,10],"frameCpuTimesMs":[5,6,7,6]}}"#
    );
    Bench {
        shown: "a/benchmark-run1.json".into(),
        file: BenchmarkFile::parse(Path::new("a/benchmark-run1.json"), j.as_bytes()).unwrap(),
        mtime: Some(mtime),
        transport: None,
    }
}

const START: i64 = 1_800_000_000;

fn arm(order: usize, transport: Transport, client: Option<&str>, server: Option<&str>) -> ArmInput {
    let label = match transport {
        Transport::Monolith => "monolith",
        Transport::Inproc => "inproc",
        Transport::Spawn => "spawn",
    };
    ArmInput {
        order,
        label: format!("{order:02}-case-B-{label}-r1"),
        dir: format!("{order:02}-case-B-{label}-r1"),
        case: "case".into(),
        backend: "B".into(),
        transport_label: label.into(),
        transport,
        started: Some(START),
        started_text: Some(format_utc(START)),
        boot_id: None,
        pin_before: Some("PINNED\n".into()),
        pin_after: Some("PINNED\n".into()),
        pin_before_rc: Some(0),
        pin_after_rc: Some(0),
        pins_required: true,
        client: client.map(|t| role("mobilegl.client.log", t)),
        server: server.map(|t| role("mobilegl.server.log", t)),
        runs: vec![bench("B", START + 10)],
        result: None,
        dumps: Vec::new(),
        link_lines: None,
    }
}

fn session(arms: Vec<ArmInput>) -> SessionInput {
    SessionInput {
        dir: "s".into(),
        layout: Layout::P6,
        meta: SessionMeta::default(),
        arms,
    }
}

fn mono() -> String {
    win(120, 120, 0, 0)
}

fn spawn_client(armed: bool) -> String {
    let mut s = rec("Config: MOBILEGL_TRANSPORT=spawn - the MGPipe record stream") + &rec(IPC);
    if armed {
        s += &rec("spawn ARMED - the server role runs in pid 77");
    }
    s + &win(0, 0, 0, 30)
}

fn codes(r: &SessionReport) -> Vec<&'static str> {
    r.diags.iter().map(|d| d.code.as_str()).collect()
}

#[test]
fn utc_round_trips_and_reads_offsets() {
    assert_eq!(parse_utc("1970-01-01T00:00:00Z"), Some(0));
    assert_eq!(
        parse_utc("2026-11-30T10:00:00.123456+00:00"),
        parse_utc("2026-11-30T10:00:00Z")
    );
    assert_eq!(
        parse_utc("2026-11-30T12:00:00+02:00"),
        parse_utc("2026-11-30T10:00:00Z")
    );
    let t = parse_utc("2024-02-29T23:59:59Z").unwrap();
    assert_eq!(format_utc(t), "2024-02-29T23:59:59Z");
    assert_eq!(parse_utc("yesterday"), None);
    assert_eq!(parse_utc("2026-13-01T00:00:00Z"), None);
}

#[test]
fn pin_evidence_must_say_pinned_and_nothing_against_it() {
    assert!(pinned("pin: cpu4-7\nPINNED\n").is_ok());
    assert!(pinned("NOT PINNED\n").is_err());
    assert!(pinned("state: UNPINNED").is_err());
    assert!(pinned("").is_err());
    assert!(pinned("pin failed: PINNED cpu0 only").is_err());
}

#[test]
fn markers_carry_lines_values_and_the_server_pid() {
    let text = rec("x")
        + &rec("Config: MOBILEGL_TRANSPORT=spawn - stream")
        + &rec(IPC)
        + &rec("MGPipe: spawn ARMED - the server role runs in pid 4343");
    let m = Markers::scan(text.as_bytes());
    assert_eq!(m.transport.len(), 1);
    assert_eq!(
        (m.transport[0].line, m.transport[0].text.as_str()),
        (2, "spawn")
    );
    assert_eq!(m.ipc[0].line, 3);
    assert_eq!(m.spawn_armed, Some((4, 4343)));
    let tcp = rec("client: control=tcp data=stream server=127.0.0.1:40613 pid=99");
    assert_eq!(Markers::scan(tcp.as_bytes()).tcp_session, Some((1, 99)));
}

#[test]
fn a_spawn_arm_takes_frames_and_the_server_pair_from_the_server_log() {
    let server = win(120, 120, 40, 0);
    let s = session(vec![
        arm(1, Transport::Monolith, Some(&mono()), None),
        arm(
            2,
            Transport::Spawn,
            Some(&spawn_client(true)),
            Some(&server),
        ),
    ]);
    let r = analyse(&s, &Options::default()).unwrap();
    assert!(r.passed(), "{:?}", r.diags);
    let a = &r.arms[1];
    assert_eq!(a.status, Status::Proven);
    assert_eq!(a.server_pid, Some(77));
    let f = a.frames.as_ref().unwrap();
    assert_eq!((f.value, f.role), (120, "server"));
    let srv = a
        .waits
        .iter()
        .find(|(n, _)| *n == "srv")
        .unwrap()
        .1
        .as_ref()
        .unwrap();
    assert_eq!((srv.value, srv.role), (40, "server"));
    let cli = a
        .waits
        .iter()
        .find(|(n, _)| *n == "cli")
        .unwrap()
        .1
        .as_ref()
        .unwrap();
    assert_eq!((cli.value, cli.role), (30, "client"));
    assert_eq!(
        a.rates.iter().find(|(n, _)| n == "cli/frame").unwrap().1,
        Ok(0.25)
    );
    assert!(a
        .frames_note
        .as_ref()
        .unwrap()
        .contains("frames=0 window=0"));
    assert_eq!(r.baseline, Some(0));
    assert_eq!(a.delta.unwrap().cpu_p50_ms, Some(0.0));
}

#[test]
fn a_spawn_arm_without_spawn_armed_is_unproven_and_not_compared() {
    let s = session(vec![
        arm(1, Transport::Monolith, Some(&mono()), None),
        arm(
            2,
            Transport::Spawn,
            Some(&spawn_client(false)),
            Some(&win(120, 120, 1, 0)),
        ),
    ]);
    let r = analyse(&s, &Options::default()).unwrap();
    assert_eq!(r.arms[1].status, Status::Unproven);
    assert!(r.arms[1].delta.is_none());
    assert_eq!(codes(&r), ["SES001"]);
    assert!(r.passed());
    assert_eq!(r.proven().count(), 1);
}

#[test]
fn a_rate_over_a_structural_zero_is_an_error_never_inf_or_zero() {
    // The server log counted no frames (frames=0 window=0 there too).
    let s = session(vec![arm(
        1,
        Transport::Spawn,
        Some(&spawn_client(true)),
        Some(&win(0, 0, 5, 0)),
    )]);
    let r = analyse(&s, &Options::default()).unwrap();
    assert!(!r.passed());
    assert!(codes(&r).contains(&"SES007"));
    for (_, rate) in &r.arms[0].rates {
        assert!(rate.is_err());
    }
    // No server log line at all.
    let s = session(vec![arm(
        1,
        Transport::Spawn,
        Some(&spawn_client(true)),
        Some(&rec("hello")),
    )]);
    let r = analyse(&s, &Options::default()).unwrap();
    assert!(codes(&r).contains(&"SES007"), "{:?}", r.diags);
}

#[test]
fn a_monolith_arm_with_ipc_knobs_and_an_inproc_arm_missing_one_are_unproven() {
    let m = rec(IPC) + &mono();
    let i = rec("Config: MOBILEGL_TRANSPORT=inproc")
        + &rec("Config: IPC strict=1 run-ahead=1")
        + &win(120, 120, 1, 1);
    let s = session(vec![
        arm(1, Transport::Monolith, Some(&m), None),
        arm(2, Transport::Inproc, Some(&i), Some(&rec("apply up"))),
    ]);
    let r = analyse(&s, &Options::default()).unwrap();
    assert_eq!(r.arms[0].status, Status::Unproven);
    assert_eq!(r.arms[1].status, Status::Unproven);
    assert!(r.arms[1].diags[0].message.contains("role-split-state=1"));
    // Nothing proven: nothing compared is an error.
    assert!(codes(&r).contains(&"SES008"));
}

#[test]
fn stale_results_are_refused_by_name_and_by_time() {
    let mut a = arm(1, Transport::Monolith, Some(&mono()), None);
    a.runs = vec![bench("OtherBackend", START + 10)];
    let mut b = arm(2, Transport::Monolith, Some(&mono()), None);
    b.result = Some(bench("B", START - 3600));
    let r = analyse(&session(vec![a, b]), &Options::default()).unwrap();
    assert_eq!(r.arms[0].status, Status::Refused);
    assert!(r.arms[0].diags[0]
        .message
        .contains("backend `OtherBackend`"));
    assert!(r.arms[0].diags[0].message.contains("backend `B`"));
    assert_eq!(r.arms[1].status, Status::Refused);
    assert!(r.arms[1].diags[0].message.contains("before arm"));
    assert!(!r.passed());
}

#[test]
fn pins_reboots_and_fatals_void_or_fail_an_arm() {
    let mut a = arm(1, Transport::Monolith, Some(&mono()), None);
    a.pin_after = Some("NOT PINNED".into());
    let b = arm(
        2,
        Transport::Monolith,
        Some(&(mono() + &rec("Fatal{PipeVerifyDiffer, \"x\"}"))),
        None,
    );
    let mut c = arm(3, Transport::Monolith, Some(&mono()), None);
    c.pin_before = None;
    let mut s = session(vec![
        a,
        b,
        c,
        arm(4, Transport::Monolith, Some(&mono()), None),
    ]);
    let r = analyse(&s, &Options::default()).unwrap();
    assert_eq!(r.arms[0].status, Status::Void);
    assert_eq!(r.arms[1].status, Status::Failed);
    assert_eq!(r.arms[2].status, Status::Void);
    assert_eq!(r.arms[3].status, Status::Proven);
    assert_eq!(r.baseline, Some(3));
    s.meta = SessionMeta {
        label: None,
        reboot: true,
        boot_before: Some("x".into()),
        boot_after: Some("x".into()),
    };
    let r = analyse(&s, &Options::default()).unwrap();
    assert_eq!(r.arms[3].status, Status::Void);
    assert!(codes(&r).contains(&"SES003"));
}

#[test]
fn the_baseline_is_chosen_by_label_number_or_transport() {
    let s = session(vec![
        arm(1, Transport::Monolith, Some(&mono()), None),
        arm(
            2,
            Transport::Spawn,
            Some(&spawn_client(true)),
            Some(&win(120, 120, 1, 0)),
        ),
    ]);
    let by = |w: &str| {
        analyse(
            &s,
            &Options {
                baseline: Some(w.into()),
            },
        )
        .map(|r| r.baseline)
    };
    assert_eq!(by("spawn"), Ok(Some(1)));
    assert_eq!(by("2"), Ok(Some(1)));
    assert_eq!(by("01-case-B-monolith-r1"), Ok(Some(0)));
    assert!(by("tcp").unwrap_err().to_string().contains("no arm"));
}
