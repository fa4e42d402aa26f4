//! Two role logs side by side (issue 31): a split run's client and server logs, each followed by
//! its own source into its own view, drawn in two columns of one terminal. Data goes to its side;
//! keys, ticks and signals go to both, so the two columns always show the same tab, pause and
//! comparison. `e` exports both views.

use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;
use std::thread;
use std::time::Instant;

use ratatui::backend::{Backend, TestBackend};
use ratatui::layout::{Constraint, Layout};
use ratatui::{Frame, Terminal};

use super::render::{counter_lines, render_in};
use super::{export, export_to, once_state, source, update, Control, Error, Event, RunStats};
use super::{Source, SourceOptions, Tab, TerminalGuard, ViewState};

/// Which view an event is for: one side, or both (keys, ticks, signals).
type Tagged = (Option<usize>, Event);

/// Both views, each in half of the frame.
pub fn render_pair(f: &mut Frame<'_>, states: &[ViewState; 2]) {
    // One blank column between the two, so neither side's text runs into the other's.
    let [left, right] = Layout::horizontal([Constraint::Ratio(1, 2), Constraint::Ratio(1, 2)])
        .spacing(1)
        .areas(f.area());
    render_in(f, left, &states[0]);
    render_in(f, right, &states[1]);
}

/// The event loop of [`super::run`] over two views.
pub fn run_pair<B: Backend>(
    t: &mut Terminal<B>,
    states: &mut [ViewState; 2],
    rx: &Receiver<Tagged>,
    export_dir: &Path,
) -> io::Result<RunStats> {
    let mut stats = RunStats::default();
    t.draw(|f| render_pair(f, states))?;
    stats.draws += 1;
    while states.iter().all(|s| s.running) {
        let Ok(first) = rx.recv() else {
            break;
        };
        let mut redraw = false;
        let mut ev = Some(first);
        while let Some((side, e)) = ev.take() {
            stats.events += 1;
            if let Event::Signal(sig) = e {
                #[cfg(unix)]
                if super::answer_signal(sig) {
                    t.clear()?;
                }
            }
            let targets: Vec<usize> = side.map_or_else(|| vec![0, 1], |i| vec![i]);
            for i in targets {
                match update(&mut states[i], e.clone()) {
                    Control::Continue => {}
                    Control::Redraw => redraw = true,
                    Control::Export => {
                        states[i].status = Some(export_to(&states[i], export_dir));
                        redraw = true;
                    }
                    Control::Quit => return Ok(stats),
                }
            }
            if stats.events % 4096 != 0 {
                ev = rx.try_recv().ok();
            }
        }
        if redraw {
            t.draw(|f| render_pair(f, states))?;
            stats.draws += 1;
        }
    }
    Ok(stats)
}

/// Forwards one channel's events into the tagged one.
fn forward(rx: Receiver<Event>, side: Option<usize>, tx: Sender<Tagged>) -> Result<(), Error> {
    thread::Builder::new()
        .name("watch-pair".into())
        .spawn(move || {
            for e in rx {
                if tx.send((side, e)).is_err() {
                    break;
                }
            }
        })
        .map(|_| ())
        .map_err(|e| Error::Thread { source: e })
}

/// Follows both sources in a live two-column view until `q`.
pub fn watch_pair(
    sources: [&Source; 2],
    opts: SourceOptions,
    mut states: [ViewState; 2],
    export_dir: &Path,
) -> Result<(), Error> {
    for s in sources {
        if let Source::File(p) = s {
            if p.is_dir() {
                return Err(Error::Directory { path: p.clone() });
            }
        }
    }
    let start = Instant::now();
    let (tx, rx) = mpsc::channel::<Tagged>();
    let mut handles = Vec::new();
    for (i, s) in sources.into_iter().enumerate() {
        let (stx, srx) = mpsc::channel();
        handles.push(source::spawn(s, opts, stx, start)?);
        forward(srx, Some(i), tx.clone())?;
    }
    let mut terminal = ratatui::try_init().map_err(|e| {
        ratatui::restore();
        Error::Terminal { source: e }
    })?;
    let _guard = TerminalGuard;
    let stop = Arc::new(AtomicBool::new(false));
    let (ctx, crx) = mpsc::channel();
    forward(crx, None, tx)?;
    #[cfg(unix)]
    let signals = super::spawn_signals(ctx.clone())?;
    super::spawn_input(ctx, start, stop.clone())?;
    let result = run_pair(&mut terminal, &mut states, &rx, export_dir);
    stop.store(true, Ordering::Relaxed);
    #[cfg(unix)]
    signals.close();
    drop(handles);
    result
        .map(|_| ())
        .map_err(|e| Error::Terminal { source: e })
}

/// Both finite sources read to their end and drawn side by side as text, `width` columns in all.
pub fn once_pair(
    sources: [&Source; 2],
    opts: SourceOptions,
    states: [ViewState; 2],
    width: u16,
) -> Result<String, Error> {
    let [a, b] = states;
    let states = [
        once_state(sources[0], opts, a)?,
        once_state(sources[1], opts, b)?,
    ];
    let width = width.max(80);
    let half = width / 2;
    let height = states
        .iter()
        .map(|s| match s.tab {
            Tab::Counters => counter_lines(s, half).len() as u16 + 12,
            Tab::Charts => super::render::charts_height(s, half) + 12,
            Tab::Events => s.shown().notes.len() as u16 + 12,
        })
        .max()
        .unwrap_or(12)
        .clamp(12, 2000);
    let mut t = Terminal::new(TestBackend::new(width, height))
        .map_err(|e| Error::Terminal { source: e })?;
    t.draw(|f| render_pair(f, &states))
        .map_err(|e| Error::Terminal { source: e })?;
    Ok(super::buffer_text(t.backend()))
}

/// `--once --format json` of the pair: `{"client": view, "server": view}` as `e` exports each.
pub fn once_pair_json(
    sources: [&Source; 2],
    opts: SourceOptions,
    states: [ViewState; 2],
) -> Result<String, Error> {
    let [a, b] = states;
    let doc = serde_json::json!({
        "schema": 1,
        "client": export(&once_state(sources[0], opts, a)?),
        "server": export(&once_state(sources[1], opts, b)?),
    });
    Ok(format!("{doc:#}\n"))
}
