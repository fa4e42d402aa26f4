//! Render snapshots against the sample logs (checked-in text under `tests/tui/`), and `update`
//! driven by fake events. Set `MGCTL_BLESS=1` to rewrite the snapshots after a deliberate change.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

use super::*;
use crate::Log;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn state_from(name: &str, baseline: Option<&str>) -> ViewState {
    let base = baseline.map(|b| {
        let p = data(b);
        let log = Log::parse(&p, &std::fs::read(&p).unwrap()).unwrap();
        let s = log.reported_session().unwrap();
        let w = s.last_complete().unwrap();
        Baseline {
            label: b.to_string(),
            line: w.line,
            pid: s.pid,
            window: w.item.clone(),
        }
    });
    let src = Source::File(data(name));
    let mut s = ViewState::new(format!("file {name}"), 600, base);
    let (batch, _) = source::read_all(&src, SourceOptions::default()).unwrap();
    update(
        &mut s,
        Event::Data {
            at: Duration::from_secs(3),
            batch,
        },
    );
    update(&mut s, Event::Tick(Duration::from_secs(5)));
    s
}

fn draw(s: &ViewState, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| render(f, s)).unwrap();
    buffer_text(t.backend())
}

/// Compares with `tests/tui/<name>.txt`; `MGCTL_BLESS=1` writes it.
fn snapshot(name: &str, got: &str) {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/tui")
        .join(format!("{name}.txt"));
    if std::env::var_os("MGCTL_BLESS").is_some() {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&p)
        .unwrap_or_else(|e| panic!("{}: {e} (run with MGCTL_BLESS=1)", p.display()));
    assert_eq!(got, want, "snapshot {name} differs; got:\n{got}");
}

fn key(c: KeyCode) -> Event {
    Event::Key(KeyEvent::new(c, KeyModifiers::NONE))
}

#[test]
fn push_logcat_80x24_shows_the_last_complete_window() {
    let s = state_from("abB-push-DirectGLES.logcat.txt", None);
    let text = draw(&s, 80, 24);
    // The README's numbers for arm B: last complete window frames=720, draws/f 855.09, acc/draw 9.02.
    assert!(text.contains("frames=720"), "{text}");
    assert!(text.contains("855.09"), "{text}");
    assert!(text.contains("9.02"), "{text}");
    assert!(text.contains("pid 21377"), "{text}");
    assert!(text.contains("DirectGLES"), "{text}");
    assert!(text.contains("push build"), "{text}");
    assert!(text.contains("verify armed 63f/69v fatal=1"), "{text}");
    assert!(text.contains("period 120 (banner)"), "{text}");
    // The earlier killed session (pid 20877) -> 21377 is a session change.
    assert!(text.contains("SESSION CHANGE pid 20877 -> 21377"), "{text}");
    snapshot("push-80x24", &text);
}

#[test]
fn pull_file_log_against_push_baseline_shows_ab_columns() {
    // Live = arm B (push), baseline = arm A (pull): acc/draw 9.02 vs 10.06 = -1.04 (-10.34 %).
    let s = state_from(
        "abB-push-DirectGLES.logcat.txt",
        Some("abA-pull-DirectGLES.mobilegl.log"),
    );
    let r = view_rows(&s);
    let acc = r.iter().find(|r| r.name == "acc/draw").unwrap();
    assert_eq!(acc.value, "9.02");
    assert_eq!(acc.base.as_deref(), Some("10.06"));
    assert_eq!(acc.delta_base.as_deref(), Some("-1.04"));
    assert_eq!(acc.delta_base_pct.as_deref(), Some("-10.34%"));
    let dpf = r.iter().find(|r| r.name == "draws/f").unwrap();
    assert_eq!(dpf.delta_base.as_deref(), Some("+0.00"));
    let resid = r.iter().find(|r| r.name == "bytes/f.resid").unwrap();
    assert_eq!(
        (resid.value.as_str(), resid.base.as_deref()),
        ("3993.93", Some("0.00"))
    );
    // Keys only B has are "absent" in A, never 0.
    for k in ["cso.csob", "emit.wrec", "wait.srv", "bytes/f.seg"] {
        let row = r.iter().find(|r| r.name == k).unwrap();
        assert_eq!(row.base.as_deref(), Some("absent"), "{k}");
    }
    let ers = r.iter().find(|r| r.name == "gates.ers.hit%").unwrap();
    assert_eq!(ers.value, "95.23%");
    assert_eq!(ers.base.as_deref(), Some("95.39%"));
    snapshot("push-vs-pull-baseline-100x30", &draw(&s, 100, 30));
    snapshot("push-vs-pull-baseline-80x24", &draw(&s, 80, 24));
}

#[test]
fn large_terminal_puts_charts_beside_the_counters() {
    let s = state_from("abB-push-DirectGLES.logcat.txt", None);
    let text = draw(&s, 160, 45);
    assert!(text.contains("draws/f 855.09"), "{text}");
    assert!(text.contains("ers hit% 95.23%"), "{text}");
    snapshot("push-160x45", &text);
}

#[test]
fn charts_view_and_events_view() {
    let mut s = state_from("abB-push-DirectGLES.logcat.txt", None);
    update(&mut s, key(KeyCode::Tab));
    assert_eq!(s.tab, Tab::Charts);
    let text = draw(&s, 80, 24);
    assert!(text.contains("acc/draw 9.02"), "{text}");
    snapshot("push-charts-80x24", &text);
    update(&mut s, key(KeyCode::Tab));
    assert_eq!(s.tab, Tab::Events);
    let text = draw(&s, 80, 24);
    assert!(
        text.contains("verify armed - 63 fields, 69 verbs, fatal=1"),
        "{text}"
    );
    assert!(
        text.contains("partial window frames=745 window=25"),
        "{text}"
    );
}

#[test]
fn fatal_log_shows_the_red_banner() {
    let s = state_from("fatal-verify-DirectGLES.mobilegl.log", None);
    let text = draw(&s, 100, 30);
    assert!(
        text.contains(
            "FATAL Fatal{PipeVerifyDiffer, \"GetRenderStateParameters@Clear\", verb=48213, where=read}"
        ),
        "{text}"
    );
    assert!(text.contains("frames=120"), "{text}");
    assert!(text.contains("697.95"), "{text}");
    snapshot("fatal-100x30", &text);
}

#[test]
fn no_window_yet_and_binary_junk_say_what_they_see() {
    let mut s = ViewState::new("stdin", 10, None);
    let text = draw(&s, 80, 24);
    assert!(
        text.contains("waiting for the first MGPipe stats window"),
        "{text}"
    );
    let mut b = Batch::default();
    let mut p = crate::LogParser::new(crate::Role::Main);
    let mut fr = follow::Framer::new(1024);
    fr.feed(b"\x00\x01\x02ELF junk\n\xff\xfe\n", &mut p, &mut b);
    update(
        &mut s,
        Event::Data {
            at: Duration::ZERO,
            batch: b,
        },
    );
    let text = draw(&s, 80, 24);
    assert!(text.contains("2 binary"), "{text}");
    let long = ViewState::new(
        format!("file /{}/mobilegl.log", "very/deep".repeat(12)),
        4,
        None,
    );
    let first = draw(&long, 80, 24).lines().next().unwrap().to_string();
    assert!(
        first.starts_with('…') && first.ends_with("/mobilegl.log"),
        "{first}"
    );
    assert!(text.contains("the input looks binary"), "{text}");
}

#[test]
fn keys_pause_step_filter_help_and_quit() {
    let mut s = state_from("abB-push-DirectGLES.logcat.txt", None);
    let newest = s.current().unwrap().window.frames;
    assert_eq!(newest, 720);
    // ←/→ step through history; → past the newest follows live again.
    assert_eq!(update(&mut s, key(KeyCode::Left)), Control::Redraw);
    assert_eq!(s.current().unwrap().window.frames, 600);
    // 7 complete windows in the ring: the killed pid 20877's one, then 21377's six.
    assert_eq!(s.position(), (6, 7));
    update(&mut s, key(KeyCode::Home));
    assert_eq!(s.session().unwrap().pid, Some(20877));
    update(&mut s, key(KeyCode::Right));
    assert_eq!(s.session().unwrap().pid, Some(21377));
    assert_eq!(s.current().unwrap().window.frames, 120);
    // The first window of a session has no predecessor: no Δ prev.
    assert!(view_rows(&s).iter().all(|r| r.delta_prev.is_none()));
    update(&mut s, key(KeyCode::Right));
    assert_eq!(s.current().unwrap().window.frames, 240);
    assert!(view_rows(&s).iter().any(|r| r.delta_prev.is_some()));
    update(&mut s, key(KeyCode::End));
    assert_eq!(s.selected, None);
    // Pause: data keeps arriving, the view does not move.
    update(&mut s, key(KeyCode::Char('p')));
    assert!(s.paused());
    let more = "[10:05:00] [Android MobileGLTraceRe/INFO]: MGPipe stats: frames=840 window=120 draws=1200 draws/f=10.00 acc=2400 acc/draw=2.00 bytes/f[buf=1.00] tex[emit=0 box=0 rect=0 jobs=0] gates[ers=1/1 etl=0/0 eub=0/0 mfp=0/0 mpm=0/0 mdt=0/0]\n";
    let mut b = Batch::default();
    let mut p = crate::LogParser::new(crate::Role::Main);
    follow::Framer::new(4096).feed(more.as_bytes(), &mut p, &mut b);
    update(
        &mut s,
        Event::Data {
            at: Duration::from_secs(6),
            batch: b,
        },
    );
    assert_eq!(s.current().unwrap().window.frames, 720);
    assert!(draw(&s, 80, 24).contains("PAUSED (+1 windows)"));
    update(&mut s, key(KeyCode::Char('p')));
    assert!(!s.paused());
    // The new line came without a pid (file envelope): a different session from the logcat pid.
    assert_eq!(s.current().unwrap().window.frames, 840);
    // Filter.
    update(&mut s, key(KeyCode::Char('/')));
    for c in "gates".chars() {
        update(&mut s, key(KeyCode::Char(c)));
    }
    update(&mut s, key(KeyCode::Enter));
    assert!(!s.editing_filter);
    let shown: Vec<Row> = view_rows(&s)
        .into_iter()
        .filter(|r| rows::matches(&s.filter, r))
        .collect();
    assert!(!shown.is_empty() && shown.iter().all(|r| r.group == "gates"));
    update(&mut s, key(KeyCode::Esc));
    assert!(s.filter.is_empty());
    // Help toggles, export asks the loop to write, q and ctrl-c quit.
    update(&mut s, key(KeyCode::Char('?')));
    assert!(s.help);
    assert!(draw(&s, 80, 24).contains("mgctl stats watch: keys"));
    update(&mut s, key(KeyCode::Esc));
    assert!(!s.help);
    assert_eq!(update(&mut s, key(KeyCode::Char('e'))), Control::Export);
    assert_eq!(update(&mut s, key(KeyCode::Char('q'))), Control::Quit);
    let mut s2 = ViewState::new("x", 4, None);
    assert_eq!(
        update(
            &mut s2,
            Event::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL))
        ),
        Control::Quit
    );
}

#[test]
fn ring_is_bounded_and_unknown_keys_are_shown() {
    let mut s = ViewState::new("x", 3, None);
    let mut b = Batch::default();
    let mut p = crate::LogParser::new(crate::Role::Main);
    let mut fr = follow::Framer::new(4096);
    for i in 1..=10 {
        let l = format!("MGPipe stats: frames={i} window=1 draws=2 draws/f=2.00 acc=4 acc/draw=2.00 bytes/f[buf=1.00 newclass=3.00] tex[emit=0] zz[new=5] gates[ers=1/1]\n");
        fr.feed(l.as_bytes(), &mut p, &mut b);
    }
    update(
        &mut s,
        Event::Data {
            at: Duration::ZERO,
            batch: b,
        },
    );
    assert_eq!(s.live.windows.len(), 3);
    assert_eq!(s.live.windows_total, 10);
    let r = view_rows(&s);
    let unknown: Vec<&str> = r
        .iter()
        .filter(|r| r.unknown)
        .map(|r| r.name.as_str())
        .collect();
    assert_eq!(unknown, vec!["bytes/f.newclass", "zz.new"]);
    assert!(draw(&s, 80, 24).contains("newclass ?"));
}

#[test]
fn export_writes_schema_1_json_of_the_view() {
    let s = state_from(
        "abB-push-DirectGLES.logcat.txt",
        Some("abA-pull-DirectGLES.mobilegl.log"),
    );
    let dir = tempfile::tempdir().unwrap();
    let msg = export_to(&s, dir.path());
    assert!(msg.contains("mgctl-watch-1.json"), "{msg}");
    let msg2 = export_to(&s, dir.path());
    assert!(msg2.contains("mgctl-watch-2.json"), "{msg2}");
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("mgctl-watch-1.json")).unwrap())
            .unwrap();
    assert_eq!(v["schema"], 1);
    assert_eq!(v["window"]["frames"], 720);
    assert_eq!(v["session"]["pid"], 21377);
    let acc = v["counters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "acc/draw")
        .unwrap();
    assert_eq!(acc["delta_base_pct"], "-10.34%");
}

#[test]
fn once_snapshot_of_the_pull_log() {
    let src = Source::File(data("abA-pull-DirectGLES.mobilegl.log"));
    let s = ViewState::new("file abA-pull-DirectGLES.mobilegl.log", 600, None);
    let text = once(&src, SourceOptions::default(), s, 100).unwrap();
    assert!(text.contains("pull build"), "{text}");
    assert!(text.contains("10.06"), "{text}");
    assert!(text.contains("verify not armed"), "{text}");
    // Every counter is in the snapshot (no scrolling in a text dump).
    assert!(text.contains("mdt"), "{text}");
    snapshot("pull-once-100", &text);
}

#[test]
fn no_color_keeps_emphasis_without_colours() {
    use ratatui::style::{Color, Modifier};
    let mut s = state_from("fatal-verify-DirectGLES.mobilegl.log", None);
    s.color = false;
    let mut t = Terminal::new(TestBackend::new(100, 30)).unwrap();
    t.draw(|f| render(f, &s)).unwrap();
    let buf = t.backend().buffer();
    assert!(buf
        .content
        .iter()
        .all(|c| c.fg == Color::Reset && c.bg == Color::Reset));
    // The Fatal banner row is reversed instead of red.
    let w = usize::from(buf.area.width);
    let text = buffer_text(t.backend());
    let row = text
        .lines()
        .position(|l| l.contains("FATAL Fatal{"))
        .unwrap();
    assert!(buf.content[row * w + 2]
        .modifier
        .contains(Modifier::REVERSED));
    s.color = true;
    let mut t = Terminal::new(TestBackend::new(100, 30)).unwrap();
    t.draw(|f| render(f, &s)).unwrap();
    assert_eq!(t.backend().buffer().content[row * w + 2].bg, Color::Red);
}
