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
        Baseline {
            label: b.to_string(),
            pid: s.pid,
            windows: s.complete_windows().into_iter().cloned().collect(),
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

/// Rows of a drawn text that hold a chart's x labels (the row under an `└───` axis).
fn x_label_rows(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains('└'))
        .filter_map(|(i, _)| lines.get(i + 1).map(|l| l.to_string()))
        .collect()
}

fn charts_state(baseline: bool) -> ViewState {
    let mut s = state_from(
        "abB-push-DirectGLES.logcat.txt",
        baseline.then_some("abA-pull-DirectGLES.mobilegl.log"),
    );
    update(&mut s, key(KeyCode::Tab));
    assert_eq!(s.tab, Tab::Charts);
    s
}

#[test]
fn charts_have_labelled_axes_a_baseline_legend_and_session_markers_at_80x24() {
    let s = charts_state(true);
    let text = draw(&s, 80, 24);
    // y: min and max of what is drawn (live 79.06..858.41, baseline arm A's 855.09) and the unit.
    assert!(text.contains("858.41  │"), "{text}");
    assert!(text.contains("79.06   │"), "{text}");
    assert!(text.contains("draws/f │"), "{text}");
    // The legend names both series and the marker.
    assert!(
        text.contains("live  ••• baseline abA-pull-DirectGLES.mobilegl.log"),
        "{text}"
    );
    assert!(text.contains("┆S session"), "{text}");
    // Title with the baseline's value; the session change (pid 20877 -> 21377) at window 2.
    assert!(
        text.contains("draws/f 855.09 · baseline 855.09  (min 79.06 max 858.41, windows 1–7)"),
        "{text}"
    );
    assert!(text.contains('S') && text.contains('┆'), "{text}");
    assert!(text.contains("•"), "the baseline series is drawn: {text}");
    // x: window numbers from the left edge of the plot to the right edge of the view.
    let rows = x_label_rows(&text);
    assert_eq!(rows.len(), 2, "{text}");
    for r in &rows {
        let nums: Vec<&str> = r.split_whitespace().collect();
        assert_eq!(nums, ["1", "2", "3", "4", "5", "6", "7"], "{r}");
        assert!(r.chars().count() == 80 && r.ends_with('7'), "{r:?}");
        assert!(
            r.trim_start().len() + 12 > 80,
            "x labels start at the axis: {r:?}"
        );
    }
    snapshot("push-vs-pull-charts-80x24", &text);
    // ↓ pages through the charts: the byte classes are reachable at 80x24.
    let mut s = s;
    for _ in 0..10 {
        update(&mut s, key(KeyCode::Down));
    }
    let text = draw(&s, 80, 24);
    assert!(text.contains("  7–8/8 ↑↓"), "{text}");
    assert!(text.contains("bytes/f["), "{text}");
}

#[test]
fn charts_at_140x40_show_four_charts_across_the_width() {
    let s = charts_state(true);
    let text = draw(&s, 140, 40);
    let rows = x_label_rows(&text);
    assert_eq!(rows.len(), 4, "{text}");
    for r in &rows {
        assert!(r.chars().count() == 140 && r.ends_with('7'), "{r:?}");
        assert!(r.trim_start().starts_with('1'), "{r:?}");
        // Intermediate window numbers are labelled too.
        assert!(r.split_whitespace().count() >= 5, "{r:?}");
    }
    assert!(text.contains("charts 1–4/8 ↑↓"), "{text}");
    assert!(
        text.contains("baseline abA-pull-DirectGLES.mobilegl.log"),
        "{text}"
    );
    assert!(text.contains("ers hit% 95.23% · baseline 95.39%"), "{text}");
    assert!(text.contains("hit %"), "{text}");
    snapshot("push-vs-pull-charts-140x40", &text);
}

#[test]
fn a_fatal_line_is_marked_at_the_window_before_it() {
    let mut s = state_from("fatal-verify-DirectGLES.mobilegl.log", None);
    update(&mut s, key(KeyCode::Tab));
    let text = draw(&s, 80, 24);
    assert!(text.contains("┆F Fatal"), "{text}");
    // Two windows (1, 2); the Fatal (line 5) follows window 2 (line 4): the right edge.
    let lines: Vec<&str> = text.lines().collect();
    let top = lines
        .iter()
        .find(|l| l.starts_with("697.95"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(top.trim_end().ends_with('F'), "{top:?}");
    assert!(
        !text.contains("┆S"),
        "one session, no session marker: {text}"
    );
}

#[test]
fn chart_titles_are_whole_at_170_columns_and_match_the_exported_charts() {
    let s = state_from(
        "abB-push-DirectGLES.logcat.txt",
        Some("abA-pull-DirectGLES.mobilegl.log"),
    );
    let text = draw(&s, 170, 45);
    assert!(!text.contains('…'), "{text}");
    let titles: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split('─').next())
        .filter(|l| l.contains("  (") || l.contains(" · baseline"))
        .collect();
    assert!(titles.len() >= 4, "{text}");
    for t in titles {
        let t = t.trim_end();
        assert!(
            t.ends_with(')') || t.ends_with('%') || t.ends_with(char::is_numeric),
            "{t:?}"
        );
    }
    // What the charts draw is what `e` exports.
    let drawn: Vec<String> = {
        let mut s = s.clone();
        s.tab = Tab::Charts;
        let t = draw(&s, 100, 200);
        charts(&s)
            .iter()
            .filter(|c| t.contains(&format!("\n{} {}", c.label, c.latest)))
            .map(|c| c.label.clone())
            .collect()
    };
    assert_eq!(drawn.len(), charts(&s).len(), "{drawn:?}");
}

#[test]
fn the_plot_area_matches_what_ratatui_draws() {
    // `graph_area` mirrors ratatui 0.29's Chart layout; the x labels and markers rely on it.
    let s = charts_state(false);
    let mut t = Terminal::new(TestBackend::new(90, 20)).unwrap();
    t.draw(|f| render(f, &s)).unwrap();
    let buf = t.backend().buffer().clone();
    let w = usize::from(buf.area.width);
    let corner = buf.content.iter().position(|c| c.symbol() == "└").unwrap();
    let (cx, cy) = ((corner % w) as u16, (corner / w) as u16);
    // The chart: the rows from its title (a top border) down to its x labels.
    let title_row = (0..cy)
        .rev()
        .find(|y| buf.content[usize::from(*y) * w + 60].symbol() == "─")
        .unwrap();
    let inner = ratatui::layout::Rect::new(0, title_row + 1, 90, cy + 2 - (title_row + 1));
    let yw = (0..cx)
        .map(|x| {
            (inner.y..cy)
                .filter(|y| buf.content[usize::from(*y) * w + usize::from(x)].symbol() != " ")
                .count()
        })
        .rposition(|n| n > 0)
        .map_or(0, |p| p as u16 + 1);
    let g = render::charts_graph_area(inner, yw, 1);
    assert_eq!((g.x - 1, g.bottom()), (cx, cy), "{g:?}");
}

/// n / N step through the events holding the filter text, newest first from another view, and
/// wrap at either end; without a filter or a match they say so.
#[test]
fn n_and_shift_n_step_through_matching_events() {
    let mut s = ViewState::new(String::from("test"), 600, None);
    for (i, text) in [
        "session 1 started",
        "gates drop",
        "partial window",
        "gates rise",
    ]
    .iter()
    .enumerate()
    {
        s.live.notes.push_back(state::Note {
            at: Duration::from_secs(i as u64),
            level: NoteLevel::Info,
            text: (*text).to_string(),
        });
    }
    update(&mut s, key(KeyCode::Char('n')));
    assert!(s
        .status
        .as_deref()
        .unwrap_or("")
        .contains("give it with / first"));
    for c in "/GATES".chars() {
        update(&mut s, key(KeyCode::Char(c)));
    }
    update(&mut s, key(KeyCode::Enter));
    // From the counters view: the newest match, at the bottom of the events view.
    update(&mut s, key(KeyCode::Char('n')));
    assert_eq!((s.tab, s.scroll), (Tab::Events, 0));
    assert_eq!(s.status.as_deref(), Some("event 2 of 2 holding `GATES`"));
    update(&mut s, key(KeyCode::Char('N')));
    assert_eq!(s.scroll, 2);
    assert!(draw(&s, 80, 24).contains("gates drop"));
    // Wraps: before the first match is the last one, after the last the first.
    update(&mut s, key(KeyCode::Char('N')));
    assert_eq!(s.scroll, 0);
    update(&mut s, key(KeyCode::Char('n')));
    assert_eq!(s.scroll, 2);
    s.filter = "nothing".into();
    update(&mut s, key(KeyCode::Char('n')));
    assert_eq!(s.status.as_deref(), Some("no event holds `nothing`"));
}

/// Issue 29: a Fatal line's OSC title, clear-screen, cursor moves and bidi controls reached the
/// terminal raw. Every rendered cell escapes them, and a real ESC reads apart from the text
/// `\x1b` in the log.
#[test]
fn hostile_fatal_text_is_inert_in_every_tab() {
    let text = std::fs::read_to_string(data("fatal-verify-DirectGLES.mobilegl.log")).unwrap();
    let hostile = text.replace(
        "\"GetRenderStateParameters@Clear\"",
        "\"Get\u{1b}]0;pwned\u{7}\u{1b}[2J\u{1b}[1A\u{1b}[2K\u{202e}@Clear \\x1b\"",
    );
    assert_ne!(hostile, text);
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("hostile.log");
    std::fs::write(&p, hostile).unwrap();
    let mut s = ViewState::new("file hostile.log", 600, None);
    let (batch, _) = source::read_all(&Source::File(p), SourceOptions::default()).unwrap();
    update(
        &mut s,
        Event::Data {
            at: Duration::from_secs(3),
            batch,
        },
    );
    let mut seen = Vec::new();
    for _ in 0..4 {
        let shot = draw(&s, 160, 40);
        assert!(
            !shot.contains('\u{1b}') && !shot.contains('\u{7}'),
            "{shot}"
        );
        assert!(!shot.contains('\u{202e}'), "{shot}");
        seen.push(shot);
        update(&mut s, key(KeyCode::Tab));
    }
    let all = seen.join("\n");
    assert!(all.contains("Get\\x1b]0;pwned\\x07\\x1b[2J"), "{all}");
    assert!(all.contains("\\u{202e}@Clear \\\\x1b"), "{all}");
}

/// Issue 32: at 80×24 the counters view's footer was cut at "←/→ hist" (and an export's status at
/// "exported 9 counte"), so `? help` never showed. Every view, with a baseline, a filter, a long
/// status or the banners' hint, ends its last line with `? help`.
#[test]
fn the_footer_shows_help_in_every_view_at_80x24() {
    let base = Some("abA-pull-DirectGLES.mobilegl.log");
    for (name, baseline) in [
        ("abB-push-DirectGLES.logcat.txt", base),
        ("abB-push-DirectGLES.logcat.txt", None),
        ("fatal-verify-DirectGLES.mobilegl.log", base),
    ] {
        for status in [
            None,
            Some("exported 9 counters to /home/someone/a/rather/long/directory/mgctl-watch-1.json"),
        ] {
            let mut s = state_from(name, baseline);
            s.filter = "a-filter-longer-than-you-would-type".into();
            s.status = status.map(str::to_string);
            for tab in Tab::ALL {
                s.tab = tab;
                let text = draw(&s, 80, 24);
                let last = text.lines().last().unwrap();
                assert!(
                    last.trim_end().ends_with("? help"),
                    "{name} {tab:?} {status:?}: {last:?}"
                );
                if status.is_some() {
                    // The status keeps its start and the file it names.
                    assert!(last.contains("exported 9 counters"), "{last:?}");
                    assert!(last.contains("mgctl-watch-1.json"), "{last:?}");
                }
            }
        }
    }
    // Wide enough, every hint shows, in the order the help lists them.
    let s = state_from("abB-push-DirectGLES.logcat.txt", None);
    let wide = draw(&s, 160, 45);
    let last = wide.lines().last().unwrap();
    assert!(
        last.starts_with(
            "q quit  p pause  ←/→ history  tab view  / filter  e export  c clear banners"
        ),
        "{last:?}"
    );
}

/// Issue 32: stepping back with ← compared the shown window with the baseline's last one
/// (`frames 480 vs 720 −33.33%`). The baseline window is the one at the same frames=.
#[test]
fn stepping_back_compares_with_the_baselines_window_at_the_same_position() {
    let mut s = state_from(
        "abB-push-DirectGLES.logcat.txt",
        Some("abA-pull-DirectGLES.mobilegl.log"),
    );
    update(&mut s, key(KeyCode::Left));
    update(&mut s, key(KeyCode::Left));
    assert_eq!(s.current().unwrap().window.frames, 480);
    let rows = view_rows(&s);
    let frames = rows.iter().find(|r| r.name == "frames").unwrap();
    assert_eq!(
        (
            frames.value.as_str(),
            frames.base.as_deref(),
            frames.delta_base_pct.as_deref()
        ),
        ("480", Some("480"), Some("+0.00%"))
    );
    let draws = rows.iter().find(|r| r.name == "draws").unwrap();
    assert_eq!(
        draws.delta_base.as_deref(),
        Some("+0"),
        "same trace, same draws"
    );
    let text = draw(&s, 100, 30);
    assert!(
        text.contains("frames=480]"),
        "the footer names the window compared: {text}"
    );
    let v = export(&s);
    assert_eq!(v["baseline"]["frames"], 480);
    // Past the baseline's last window, the last one is used, and the footer says which.
    let b = s.baseline.as_ref().unwrap();
    let mut late = b.windows.last().unwrap().item.clone();
    late.frames = 9_999_960;
    assert_eq!(b.at(&late).unwrap().item.frames, 720);
}

/// Issue 32: a gate's Δ base compared evaluations (hits + misses), equal for one trace: `+0` for
/// 97862/4899 against 98019/4742. It compares hits.
#[test]
fn a_gates_delta_is_in_hits() {
    let s = state_from(
        "abB-push-DirectGLES.logcat.txt",
        Some("abA-pull-DirectGLES.mobilegl.log"),
    );
    let rows = view_rows(&s);
    let ers = rows.iter().find(|r| r.name == "gates.ers").unwrap();
    assert_eq!(
        (
            ers.value.as_str(),
            ers.base.as_deref(),
            ers.delta_base.as_deref()
        ),
        ("97862/4899", Some("98019/4742"), Some("-157"))
    );
}

/// Issue 32: event lines wider than the panel were cut mid-word with no mark.
#[test]
fn long_event_lines_end_in_an_ellipsis() {
    let mut s = state_from("abB-push-DirectGLES.logcat.txt", None);
    s.tab = Tab::Events;
    let text = draw(&s, 60, 24);
    let events: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("s ") && l.starts_with("  "))
        .collect();
    assert!(events.iter().any(|l| l.ends_with('…')), "{text}");
    for l in &events {
        assert!(l.chars().count() <= 60, "{l:?}");
    }
}

/// Issue 32: at 160 columns the side charts labelled windows 1, 2, 4, 6, 7: every window has room.
#[test]
fn side_charts_at_160_columns_label_every_window() {
    let s = state_from("abB-push-DirectGLES.logcat.txt", None);
    let text = draw(&s, 160, 45);
    let lines: Vec<&str> = text.lines().collect();
    let at = lines.iter().position(|l| l.contains("└───")).unwrap();
    let col = lines[at].chars().position(|c| c == '└').unwrap();
    let axis: String = lines[at + 1].chars().skip(col).collect();
    let labels: Vec<&str> = axis.split_whitespace().collect();
    assert_eq!(labels, ["1", "2", "3", "4", "5", "6", "7"], "{axis:?}");
}
