//! `mgctl stats watch`: a live terminal view of the `MGPipe stats:` counters.
//!
//! Four pieces, as in STYLE pattern 11: a [`ViewState`] (plain data), a pure [`update`] (one
//! [`Event`] in, one [`Control`] out), a pure [`render`] (draws a frame from the state), and the
//! event loop [`run`] that owns a terminal of any backend. Source threads ([`source`]) frame lines
//! with a bounded buffer, run the crate's incremental [`crate::LogParser`] and send batches;
//! an input thread polls crossterm with the redraw tick as timeout. Both feed one channel.
//!
//! The terminal is restored on every path: [`ratatui::try_init`] installs a panic hook that
//! restores, and [`TerminalGuard`]'s `Drop` restores on every return, `?` included. Ctrl-C arrives
//! as a key in raw mode and quits like `q`; SIGTERM, SIGINT, SIGHUP and SIGQUIT restore and then
//! kill the process as their default would, SIGTSTP/SIGCONT suspend and resume the view.

pub mod follow;
pub mod pair;
pub mod render;
pub mod rows;
pub mod source;
pub mod state;
pub mod update;

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use ratatui::backend::{Backend, TestBackend};
use ratatui::Terminal;

pub use render::render;
pub use rows::{charts, export, rows, view_rows, Row, RowKind, Series};
pub use source::{Source, SourceHandle, SourceOptions};
pub use state::{Alert, Baseline, Batch, Entry, Live, NoteLevel, SourceNote, Tab, ViewState};
pub use update::{apply, intent, update, Control, Event, Intent};

/// The redraw clock: 90 ms, about 11 redraws a second, so timer jitter never takes the view below
/// the 10 redraws a second the issue asks for.
pub const TICK: Duration = Duration::from_millis(90);

/// What can go wrong around the view; every variant names the file or program involved.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}: cannot read: {source}", .path.display())]
    Read { path: PathBuf, source: io::Error },
    #[error("{}: cannot write: {source}", .path.display())]
    Write { path: PathBuf, source: io::Error },
    #[error("cannot start `{program}`: {source}")]
    Spawn { program: String, source: io::Error },
    #[error("`{command}` failed ({status}): {stderr}")]
    Adb {
        command: String,
        status: String,
        stderr: String,
    },
    #[error("cannot start a thread: {source}")]
    Thread { source: io::Error },
    #[error("terminal: {source}")]
    Terminal { source: io::Error },
    #[error("{}: is a directory, not a log file", .path.display())]
    Directory { path: PathBuf },
}

/// Restores the terminal when dropped (every `?` and early return passes through here).
pub struct TerminalGuard;

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        // During a panic ratatui's hook has already restored, before the message was printed; a
        // second "leave alternate screen" would move the cursor back over that message.
        if !thread::panicking() {
            // Never panics: restore() reports its own failure on stderr.
            ratatui::restore();
        }
    }
}

/// Counts from one run of the loop.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunStats {
    pub draws: u64,
    pub events: u64,
}

/// The event loop: draw, wait, update. Data events alone do not redraw (10,000 lines/s would
/// mean 10,000 draws); ticks and keys do. `export_dir` receives `e` exports.
pub fn run<B: Backend>(
    t: &mut Terminal<B>,
    s: &mut ViewState,
    rx: &Receiver<Event>,
    export_dir: &Path,
) -> io::Result<RunStats> {
    let mut stats = RunStats::default();
    t.draw(|f| render(f, s))?;
    stats.draws += 1;
    while s.running {
        let Ok(first) = rx.recv() else {
            break; // every sender is gone: nothing more can happen
        };
        let mut redraw = false;
        let mut ev = Some(first);
        // Drain what is queued, then draw once.
        while let Some(e) = ev.take() {
            stats.events += 1;
            if let Event::Signal(sig) = e {
                // Here, not in the signal thread: this thread holds the terminal (and stdout).
                #[cfg(unix)]
                if answer_signal(sig) {
                    // Continued after a stop: the screen left the alternate buffer, repaint all.
                    t.clear()?;
                }
            }
            match update(s, e) {
                Control::Continue => {}
                Control::Redraw => redraw = true,
                Control::Export => {
                    s.status = Some(export_to(s, export_dir));
                    redraw = true;
                }
                Control::Quit => return Ok(stats),
            }
            if stats.events % 4096 != 0 {
                ev = rx.try_recv().ok();
            }
        }
        if redraw {
            t.draw(|f| render(f, s))?;
            stats.draws += 1;
        }
    }
    Ok(stats)
}

/// Writes the current view's JSON to the first free `mgctl-watch-N.json` in `dir`; returns the
/// footer message saying where (or why not).
pub fn export_to(s: &ViewState, dir: &Path) -> String {
    let json = export(s);
    let text = match serde_json::to_string_pretty(&json) {
        Ok(t) => t + "\n",
        Err(e) => return format!("export failed: {e}"),
    };
    let mut n = 1;
    let path = loop {
        let p = dir.join(format!("mgctl-watch-{n}.json"));
        if !p.exists() {
            break p;
        }
        n += 1;
    };
    match std::fs::write(&path, text) {
        Ok(()) => format!(
            "exported {} counters to {}",
            json["counters"].as_array().map_or(0, Vec::len),
            path.display()
        ),
        Err(e) => format!("export to {} failed: {e}", path.display()),
    }
}

/// Polls crossterm for keys with the tick as timeout and sends a tick every [`TICK`].
fn spawn_input(tx: Sender<Event>, start: Instant, stop: Arc<AtomicBool>) -> Result<(), Error> {
    use crossterm::event::{poll, read, Event as CEvent, KeyEventKind};
    thread::Builder::new()
        .name("watch-input".into())
        .spawn(move || {
            let mut next = Instant::now() + TICK;
            while !stop.load(Ordering::Relaxed) {
                let wait = next.saturating_duration_since(Instant::now());
                match poll(wait) {
                    Ok(true) => {
                        let ev = match read() {
                            Ok(CEvent::Key(k)) if k.kind != KeyEventKind::Release => Event::Key(k),
                            Ok(CEvent::Resize(..)) => Event::Resize,
                            Ok(_) => continue,
                            Err(_) => break,
                        };
                        if tx.send(ev).is_err() {
                            break;
                        }
                    }
                    Ok(false) => {}
                    Err(_) => break,
                }
                if Instant::now() >= next {
                    next += TICK;
                    if tx.send(Event::Tick(start.elapsed())).is_err() {
                        break;
                    }
                }
            }
        })
        .map_err(|e| Error::Thread { source: e })?;
    Ok(())
}

/// The interactive view on the real terminal, until `q`/Ctrl-C.
pub fn watch(
    source: &Source,
    opts: SourceOptions,
    mut state: ViewState,
    export_dir: &Path,
) -> Result<(), Error> {
    if let Source::File(p) = source {
        if p.is_dir() {
            return Err(Error::Directory { path: p.clone() });
        }
    }
    let start = Instant::now();
    let (tx, rx) = mpsc::channel();
    // Start the source before the terminal: a spawn failure is then a plain error message.
    let handle = source::spawn(source, opts, tx.clone(), start)?;
    let mut terminal = ratatui::try_init().map_err(|e| {
        ratatui::restore();
        Error::Terminal { source: e }
    })?;
    let _guard = TerminalGuard;
    let stop = Arc::new(AtomicBool::new(false));
    #[cfg(unix)]
    let signals = spawn_signals(tx.clone())?;
    spawn_input(tx, start, stop.clone())?;
    let result = run(&mut terminal, &mut state, &rx, export_dir);
    stop.store(true, Ordering::Relaxed);
    #[cfg(unix)]
    signals.close();
    drop(handle);
    result
        .map(|_| ())
        .map_err(|e| Error::Terminal { source: e })
}

/// Forwards SIGTERM, SIGINT, SIGHUP, SIGQUIT and SIGTSTP to the event loop, which answers them
/// with [`answer_signal`] on the thread that owns the terminal.
#[cfg(unix)]
fn spawn_signals(tx: Sender<Event>) -> Result<signal_hook::iterator::Handle, Error> {
    use signal_hook::consts::signal::{SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGTSTP};
    use signal_hook::iterator::Signals;
    let mut signals = Signals::new([SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGTSTP])
        .map_err(|e| Error::Thread { source: e })?;
    let handle = signals.handle();
    thread::Builder::new()
        .name("watch-signals".into())
        .spawn(move || {
            for sig in signals.forever() {
                if tx.send(Event::Signal(sig)).is_err() {
                    break;
                }
            }
        })
        .map_err(|e| Error::Thread { source: e })?;
    Ok(handle)
}

/// SIGTSTP: restores the terminal, stops, and once continued takes the terminal back (returns
/// true: repaint). Any other signal: restores the terminal and dies of the signal, as its default
/// action would (the parent sees the signal in the exit status).
#[cfg(unix)]
fn answer_signal(sig: i32) -> bool {
    use signal_hook::consts::signal::{SIGSTOP, SIGTSTP};
    ratatui::restore();
    if sig == SIGTSTP {
        let _ = signal_hook::low_level::raise(SIGSTOP);
        let _ = take_terminal();
        return true;
    }
    let _ = signal_hook::low_level::emulate_default_handler(sig);
    false
}

/// Raw mode, the alternate screen and a hidden cursor again (after a stop).
#[cfg(unix)]
fn take_terminal() -> io::Result<()> {
    crossterm::terminal::enable_raw_mode()?;
    crossterm::execute!(
        io::stdout(),
        crossterm::terminal::EnterAlternateScreen,
        crossterm::cursor::Hide
    )
}

/// Reads a finite source to its end and renders the view as text (`--once`, or no terminal).
pub fn once(
    source: &Source,
    opts: SourceOptions,
    state: ViewState,
    width: u16,
) -> Result<String, Error> {
    snapshot(&once_state(source, opts, state)?, width)
}

/// `--once --format json`: the view as `e` exports it, pretty-printed.
pub fn once_json(source: &Source, opts: SourceOptions, state: ViewState) -> Result<String, Error> {
    Ok(format!("{:#}\n", export(&once_state(source, opts, state)?)))
}

/// Reads a finite source to its end into the view state (`--once`; [`export`] makes it JSON).
pub fn once_state(
    source: &Source,
    opts: SourceOptions,
    mut state: ViewState,
) -> Result<ViewState, Error> {
    let (batch, notes) = source::read_all(source, opts)?;
    update(
        &mut state,
        Event::Data {
            at: Duration::ZERO,
            batch,
        },
    );
    for n in notes {
        update(
            &mut state,
            Event::Source {
                at: Duration::ZERO,
                note: n,
            },
        );
    }
    Ok(state)
}

/// The state drawn into a buffer tall enough for every counter, as plain text lines.
pub fn snapshot(state: &ViewState, width: u16) -> Result<String, Error> {
    let width = width.max(40);
    let rows = render::counter_lines(state, width).len() as u16;
    let height = match state.tab {
        Tab::Counters => rows + 12,
        Tab::Charts => render::charts_height(state, width) + 12,
        Tab::Events => state.shown().notes.len() as u16 + 12,
    }
    .clamp(12, 2000);
    let mut t = Terminal::new(TestBackend::new(width, height))
        .map_err(|e| Error::Terminal { source: e })?;
    t.draw(|f| render(f, state))
        .map_err(|e| Error::Terminal { source: e })?;
    Ok(buffer_text(t.backend()))
}

/// A test backend's buffer as text: one line per row, trailing spaces and empty tail rows removed.
pub fn buffer_text(b: &TestBackend) -> String {
    let buf = b.buffer();
    let w = usize::from(buf.area.width);
    let mut lines: Vec<String> = buf
        .content
        .chunks(w.max(1))
        .map(|row| {
            let mut s = String::new();
            for c in row {
                s.push_str(c.symbol());
            }
            s.trim_end().to_string()
        })
        .collect();
    // The footer (key hints) is the last row; drop blank rows above it but keep it.
    let footer = lines.pop().unwrap_or_default();
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    lines.push(footer);
    lines.join("\n") + "\n"
}

#[cfg(test)]
mod tests;
