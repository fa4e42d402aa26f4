//! The expected numbers of `../shared/samples/README.md`, reproduced from copies of the sample files
//! in `tests/data/` (the library level; `tests/golden/` holds the rendered command outputs).
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use stats_viewer::{Ending, Fixed2, Log, PeriodSource, Ratio};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn log(name: &str) -> Log {
    let p = data(name);
    let bytes = std::fs::read(&p).unwrap();
    Log::parse(&p, &bytes).unwrap()
}

#[test]
fn arm_a_pull_file_sink_crlf() {
    let l = log("abA-pull-DirectGLES.mobilegl.log");
    assert_eq!(l.sessions.len(), 1);
    assert_eq!(l.lines.ignored(), 0);
    assert!(l.lines.crlf > 0 && l.lines.crlf == l.lines.total);
    let s = l.reported_session().unwrap();
    let p = s.period().unwrap();
    assert_eq!((p.frames, p.source), (120, PeriodSource::Banner));
    assert_eq!((s.windows.len(), s.complete_windows().len()), (7, 6));
    let w = &s.last_complete().unwrap().item;
    assert_eq!(
        (w.frames, w.window, w.draws, w.acc),
        (720, 120, 102611, 1032346)
    );
    assert_eq!(w.draws_per_frame.unwrap().to_string(), "855.09");
    assert_eq!(w.acc_per_draw.unwrap().to_string(), "10.06");
    assert_eq!(w.get("bytes/f.buf").unwrap().to_string(), "96119.47");
    assert_eq!(w.get("bytes/f.tex").unwrap().to_string(), "97280.00");
    assert_eq!(w.get("bytes/f.resid").unwrap().to_string(), "0.00");
    assert_eq!(w.gate("ers"), Some((98019, 4742)));
    assert_eq!(w.gate("etl"), Some((7405, 95356)));
    assert_eq!(w.gate("eub"), Some((6680, 96081)));
    assert_eq!(
        stats_viewer::analysis::hit_rate(98019, 4742)
            .unwrap()
            .format(4, false),
        "0.9539"
    );
    assert!(w.get("cso.csom").is_none());
    let t = &s.teardown().unwrap().item;
    assert_eq!((t.frames, t.window, t.draws), (745, 25, 21342));
    assert_eq!(t.draws_per_frame, Some(Fixed2(85368)));
    let st = s.steady(3, None).unwrap();
    assert_eq!(st.draws_per_frame().unwrap().format(2, false), "853.46");
    assert_eq!(st.acc_per_draw().unwrap().format(2, false), "10.20");
    let tot = s.totals();
    assert_eq!((tot.count("draws"), tot.frames), (Some(502443), 745));
    assert!(l.armed().is_empty());
    assert!(l.fatals.is_empty());
    assert!(
        matches!(&s.dump, Some(stats_viewer::DumpNote::Failed { path, .. }) if path == "/sdcard/mgout/pipestats.json")
    );
    assert_eq!(s.ending(), Ending::Teardown);
    assert!(s.mismatches().is_empty());
}

#[test]
fn arm_b_push_logcat() {
    let l = log("abB-push-DirectGLES.logcat.txt");
    assert_eq!(l.sessions.len(), 2);
    assert_eq!(l.sessions[0].pid, Some(20877));
    assert_eq!(l.sessions[0].windows.len(), 1);
    assert_eq!(l.sessions[0].ending(), Ending::NoTeardown);
    assert_eq!(l.lines.ignored(), 10);
    assert_eq!(l.lines.crlf, 0);
    let s = l.reported_session().unwrap();
    assert_eq!(s.pid, Some(21377));
    assert_eq!(s.period().unwrap().frames, 120);
    assert_eq!((s.windows.len(), s.complete_windows().len()), (7, 6));
    let w = &s.last_complete().unwrap().item;
    assert_eq!(
        (w.frames, w.window, w.draws, w.acc),
        (720, 120, 102611, 925544)
    );
    assert_eq!(w.acc_per_draw.unwrap().to_string(), "9.02");
    assert_eq!(w.get("bytes/f.resid").unwrap().to_string(), "3993.93");
    assert_eq!(w.gate("ers"), Some((97862, 4899)));
    assert_eq!(w.gate("etl"), Some((7416, 95345)));
    assert_eq!(w.gate("eub"), Some((6739, 96022)));
    assert_eq!(
        stats_viewer::analysis::hit_rate(97862, 4899)
            .unwrap()
            .format(4, false),
        "0.9523"
    );
    assert_eq!(w.get("cso.csom").unwrap().to_string(), "0");
    assert_eq!(w.get("cso.csob").unwrap().to_string(), "61654");
    assert_eq!(w.get("cso.mpr").unwrap().to_string(), "0");
    let t = &s.teardown().unwrap().item;
    assert_eq!((t.frames, t.window, t.draws), (745, 25, 21342));
    let st = s.steady(3, None).unwrap();
    assert_eq!(st.draws_per_frame().unwrap().format(2, false), "853.46");
    assert_eq!(st.acc_per_draw().unwrap().format(2, false), "9.11");
    assert_eq!(s.totals().count("draws"), Some(502443));
    assert_eq!(s.armed.len(), 1);
    assert_eq!(
        (
            s.armed[0].item.fields,
            s.armed[0].item.verbs,
            s.armed[0].item.fatal
        ),
        (63, 69, true)
    );
    assert!(l.fatals.is_empty());
    assert!(
        matches!(&s.dump, Some(stats_viewer::DumpNote::Written { path, .. }) if path == "/data/local/tmp/mgout/pipestats.json")
    );
    // steady-state A/B acc/draw delta (README: 9.1087 − 10.2014 = −1.0926)
    let a = log("abA-pull-DirectGLES.mobilegl.log");
    let sa = a
        .reported_session()
        .unwrap()
        .steady(3, None)
        .unwrap()
        .acc_per_draw()
        .unwrap();
    let sb = st.acc_per_draw().unwrap();
    assert_eq!(sa.format(4, false), "10.2014");
    assert_eq!(sb.format(4, false), "9.1087");
    assert_eq!(sb.minus(sa).format(4, true), "-1.0926");
    let _ = Ratio::from_int(0);
}

#[test]
fn fatal_verify_log() {
    let l = log("fatal-verify-DirectGLES.mobilegl.log");
    assert_eq!(l.sessions.len(), 1);
    let s = &l.sessions[0];
    assert_eq!(s.period().unwrap().frames, 60);
    assert_eq!(s.complete_windows().len(), 2);
    let w = &s.last_complete().unwrap().item;
    assert_eq!(
        (w.frames, w.window, w.draws, w.acc),
        (120, 60, 41877, 472373)
    );
    assert_eq!(
        (
            w.draws_per_frame.unwrap().to_string(),
            w.acc_per_draw.unwrap().to_string()
        ),
        ("697.95".into(), "11.28".into())
    );
    assert!(s.armed[0].item.fatal);
    assert_eq!(l.fatals.len(), 1);
    let f = &l.fatals[0];
    assert_eq!(f.fatal.kind, "PipeVerifyDiffer");
    assert_eq!(
        f.fatal.detail.as_deref(),
        Some("GetRenderStateParameters@Clear")
    );
    assert_eq!(f.fatal.extras.as_deref(), Some("verb=48213, where=read"));
    assert_eq!(f.level, Some(stats_viewer::Level::Fatal));
    assert!(f.fatal.is_verify_kind());
    assert_eq!(s.ending(), Ending::Fatal);
    assert!(s.teardown().is_none());
    assert!(s.dump.is_none());
}

#[test]
fn fatal_catalogue() {
    let l = log("fatal-lines.txt");
    let got: Vec<_> = l
        .fatals
        .iter()
        .map(|f| {
            (
                f.line,
                f.fatal.kind.as_str(),
                f.fatal.detail.as_deref(),
                f.fatal.extras.as_deref(),
                f.fatal.tail.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (
                1,
                "PipeVerifyDiffer",
                Some("GetPixelStoreParameters@ReadPixels"),
                Some("verb=6, where=read"),
                None
            ),
            (
                2,
                "UnmigratedPipeInput",
                Some("GetProgramForDraw@Clear"),
                None,
                None
            ),
            (
                3,
                "UnmigratedPipeInput",
                Some("GetProgramForDraw@Clear"),
                None,
                Some("[BARRIER-PULLED, MOBILEGL_IPC_STRICT_ERRORS=1, retires in P7]")
            ),
            (
                4,
                "UnmigratedPipeInput",
                Some("GetRenderStateParameters@<none>"),
                None,
                None
            ),
            (
                5,
                "PipeResidualDiverged",
                Some("Dither"),
                None,
                Some("carried=1 assembled=0")
            ),
            (
                6,
                "ProtocolCorruption",
                None,
                None,
                Some("record op 46 declares 24 payload bytes, carries 16")
            ),
            (
                7,
                "UnmigratedSurface",
                Some("AndroidNativeWindow@P12"),
                None,
                None
            ),
        ]
    );
    assert_eq!(l.fatals[6].pid, Some(24410));
}

#[test]
fn ctest_transcript() {
    use stats_viewer::TranscriptVerify as T;
    let l = log("ctest-verify-transcript.txt");
    let t: Vec<_> = l.transcript.iter().map(|t| t.item.clone()).collect();
    assert_eq!(
        t,
        vec![
            T::ArmedClean {
                case: "minecraft-26.3-vanilla-in-world".into(),
                backend: "DirectGLES".into()
            },
            T::ArmedClean {
                case: "minecraft-26.3-vanilla-in-world".into(),
                backend: "DirectVulkan".into()
            },
            T::Failed {
                case: "openra-ra-skirmish".into(),
                backend: "DirectGLES".into(),
                fatals: 1
            },
            T::NotRequested {
                case: "vanilla-title-screen".into(),
                backend: "DirectGLES".into(),
                value: "0".into()
            },
        ]
    );
    // One real Fatal (the echoed log line), not the CMake error text's literal.
    assert_eq!(l.fatals.len(), 1);
    assert_eq!(l.fatals[0].line, 11);
}

#[test]
fn every_window_line_rederives() {
    for name in [
        "abA-pull-DirectGLES.mobilegl.log",
        "abB-push-DirectGLES.logcat.txt",
        "fatal-verify-DirectGLES.mobilegl.log",
    ] {
        let l = log(name);
        for s in &l.sessions {
            assert!(s.mismatches().is_empty(), "{name}");
        }
    }
}

/// Every prefix of every sample line, and every line with one byte flipped, parses without a panic
/// (a cut record is a bad window or noise, never a crash).
#[test]
fn truncated_and_corrupted_lines_never_panic() {
    for name in [
        "abA-pull-DirectGLES.mobilegl.log",
        "abB-push-DirectGLES.logcat.txt",
        "fatal-lines.txt",
        "ctest-verify-transcript.txt",
    ] {
        let bytes = std::fs::read(data(name)).unwrap();
        for line in bytes.split(|&b| b == b'\n') {
            for cut in 0..=line.len() {
                let mut p = stats_viewer::LogParser::new(stats_viewer::Role::Main);
                let _ = p.push_line(&line[..cut]);
            }
            for (i, flip) in [
                (0usize, b'['),
                (7, b']'),
                (40, b'='),
                (60, b' '),
                (100, b'/'),
                (150, 0xff),
            ] {
                if i < line.len() {
                    let mut l = line.to_vec();
                    l[i] = flip;
                    let mut p = stats_viewer::LogParser::new(stats_viewer::Role::Main);
                    let _ = p.push_line(&l);
                }
            }
        }
        // The whole file cut at every 97th byte still builds a log.
        for cut in (0..bytes.len()).step_by(97) {
            let _ = Log::parse(&data(name), &bytes[..cut]).unwrap();
        }
    }
}

fn wline(frames: u64, window: u64, draws: u64) -> String {
    let dpf = Fixed2::ratio(draws, window).map_or_else(|| "n/a".to_string(), |v| v.to_string());
    let b = if window == 0 {
        "bytes[buf=0]"
    } else {
        "bytes/f[buf=0.00]"
    };
    format!("[10:00:00] [Linux t/INFO]: MGPipe stats: frames={frames} window={window} draws={draws} draws/f={dpf} acc=0 acc/draw={} {b} tex[emit=0 box=0 rect=0 jobs=0] gates[ers=0/0 mfp=0/0]\n", if draws == 0 { "n/a" } else { "0.00" })
}

/// Teardown exactly at a period boundary (`window=0`, same `frames=`), a lost banner (period
/// inferred), and a frame-counter reset starting a new session.
#[test]
fn session_edges() {
    let mut text = String::new();
    for k in 1..=3 {
        text.push_str(&wline(60 * k, 60, 600));
    }
    text.push_str(&wline(180, 0, 5)); // teardown at the boundary: partial, not complete
    text.push_str(&wline(60, 60, 700)); // re-init: frames went down
    text.push_str(&wline(90, 30, 350)); // teardown of the second run
    let log = Log::parse(std::path::Path::new("edges.log"), text.as_bytes()).unwrap();
    assert_eq!(log.sessions.len(), 2);
    let s1 = &log.sessions[0];
    let p = s1.period().unwrap();
    assert_eq!((p.frames, p.source), (60, PeriodSource::Inferred));
    assert_eq!(s1.complete_windows().len(), 3);
    assert_eq!(s1.last_complete().unwrap().item.frames, 180);
    assert_eq!(s1.teardown().unwrap().item.window, 0);
    assert_eq!(s1.teardown().unwrap().item.draws_per_frame, None);
    assert_eq!(s1.totals().count("draws"), Some(1805));
    assert_eq!(
        log.sessions[1].started_by,
        stats_viewer::SessionStart::FramesReset
    );
    assert_eq!(log.reported_session().unwrap().index, 2);
    assert_eq!(
        log.reported_session()
            .unwrap()
            .last_complete()
            .unwrap()
            .item
            .draws,
        700
    );
    assert!(log.sessions.iter().all(|s| s.mismatches().is_empty()));
}
