//! The only place the view's state changes: one event in, one [`Control`] out. Keys become
//! intents first ([`intent`]), so the keymap stays apart from what the keys mean.

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::state::{Batch, SourceNote, Tab, ViewState};

/// Everything the event loop hears, on one channel.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// Lines a source read (time since the view started).
    Data {
        at: Duration,
        batch: Batch,
    },
    /// A source's word about itself (rotation, EOF, adb exit…).
    Source {
        at: Duration,
        note: SourceNote,
    },
    Key(KeyEvent),
    /// The redraw clock (time since the view started); also advances "time since last window".
    Tick(Duration),
    Resize,
    /// A signal the view must answer on the thread that owns the terminal (SIGTERM, SIGINT,
    /// SIGHUP, SIGQUIT: restore and die of it; SIGTSTP: restore, stop, take the terminal back).
    Signal(i32),
}

/// What the loop must do after an update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Control {
    Continue,
    /// Something visible changed: redraw now (keys), instead of waiting for the next tick.
    Redraw,
    /// Write [`super::rows::export`] of the state to a file, then report back with
    /// [`ViewState::status`].
    Export,
    Quit,
}

/// What a key means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    Quit,
    TogglePause,
    Older,
    Newer,
    Oldest,
    Latest,
    NextTab,
    PrevTab,
    StartFilter,
    /// n / N: the next (newer) or previous event holding the filter text.
    NextMatch,
    PrevMatch,
    Export,
    ToggleHelp,
    ScrollUp(u16),
    ScrollDown(u16),
    ClearAlerts,
    Close,
}

/// The keymap (outside filter editing).
pub fn intent(k: &KeyEvent) -> Option<Intent> {
    if k.modifiers.contains(KeyModifiers::CONTROL) {
        return match k.code {
            KeyCode::Char('c') | KeyCode::Char('d') => Some(Intent::Quit),
            _ => None,
        };
    }
    Some(match k.code {
        KeyCode::Char('q') => Intent::Quit,
        KeyCode::Char('p') | KeyCode::Char(' ') => Intent::TogglePause,
        KeyCode::Left | KeyCode::Char('h') => Intent::Older,
        KeyCode::Right | KeyCode::Char('l') => Intent::Newer,
        KeyCode::Home => Intent::Oldest,
        KeyCode::End => Intent::Latest,
        KeyCode::Tab => Intent::NextTab,
        KeyCode::BackTab => Intent::PrevTab,
        KeyCode::Char('/') => Intent::StartFilter,
        KeyCode::Char('n') => Intent::NextMatch,
        KeyCode::Char('N') => Intent::PrevMatch,
        KeyCode::Char('e') => Intent::Export,
        KeyCode::Char('?') => Intent::ToggleHelp,
        KeyCode::Up | KeyCode::Char('k') => Intent::ScrollUp(1),
        KeyCode::Down | KeyCode::Char('j') => Intent::ScrollDown(1),
        KeyCode::PageUp => Intent::ScrollUp(10),
        KeyCode::PageDown => Intent::ScrollDown(10),
        KeyCode::Char('c') => Intent::ClearAlerts,
        KeyCode::Esc => Intent::Close,
        _ => return None,
    })
}

/// Applies one event.
pub fn update(s: &mut ViewState, ev: Event) -> Control {
    match ev {
        Event::Data { at, batch } => {
            s.now = s.now.max(at);
            let cap = s.history;
            s.live.ingest(batch, at, cap);
            Control::Continue
        }
        Event::Source { at, note } => {
            s.now = s.now.max(at);
            s.live.source_note(note, at);
            Control::Continue
        }
        Event::Tick(at) => {
            if s.crash_test {
                panic!("stats watch --crash-test: a deliberate panic inside the view");
            }
            s.now = s.now.max(at);
            Control::Redraw
        }
        Event::Resize | Event::Signal(_) => Control::Redraw,
        Event::Key(k) => key(s, k),
    }
}

fn key(s: &mut ViewState, k: KeyEvent) -> Control {
    if k.kind == KeyEventKind::Release {
        return Control::Continue;
    }
    if s.editing_filter {
        if k.modifiers.contains(KeyModifiers::CONTROL) && k.code == KeyCode::Char('c') {
            return Control::Quit;
        }
        match k.code {
            KeyCode::Enter => s.editing_filter = false,
            KeyCode::Esc => {
                s.editing_filter = false;
                s.filter.clear();
            }
            KeyCode::Backspace => {
                s.filter.pop();
            }
            KeyCode::Char(c) if !c.is_control() => s.filter.push(c),
            _ => return Control::Continue,
        }
        s.scroll = 0;
        return Control::Redraw;
    }
    let Some(i) = intent(&k) else {
        return Control::Continue;
    };
    apply(s, i)
}

/// Carries out an intent.
pub fn apply(s: &mut ViewState, i: Intent) -> Control {
    match i {
        Intent::Quit => {
            s.running = false;
            return Control::Quit;
        }
        Intent::TogglePause => {
            s.frozen = match s.frozen.take() {
                Some(_) => None,
                None => Some(Box::new(s.live.clone())),
            };
            s.status = Some(if s.paused() {
                "paused: data keeps arriving, the view is frozen (p resumes)".into()
            } else {
                "resumed".into()
            });
        }
        Intent::Older => step(s, -1),
        Intent::Newer => step(s, 1),
        Intent::Oldest => {
            let first = s.shown().complete().next().map(|e| e.seq);
            s.selected = first;
        }
        Intent::Latest => s.selected = None,
        Intent::NextTab | Intent::PrevTab => {
            let n = Tab::ALL.len();
            let at = Tab::ALL.iter().position(|t| *t == s.tab).unwrap_or(0);
            let next = if i == Intent::NextTab {
                (at + 1) % n
            } else {
                (at + n - 1) % n
            };
            s.tab = Tab::ALL[next];
            s.scroll = 0;
        }
        Intent::StartFilter => {
            s.editing_filter = true;
            s.tab = Tab::Counters;
        }
        Intent::NextMatch | Intent::PrevMatch => search(s, i == Intent::NextMatch),
        Intent::Export => return Control::Export,
        Intent::ToggleHelp => s.help = !s.help,
        Intent::ScrollUp(n) => s.scroll = s.scroll.saturating_sub(n),
        Intent::ScrollDown(n) => s.scroll = s.scroll.saturating_add(n),
        Intent::ClearAlerts => {
            s.live.alerts.clear();
            if let Some(f) = s.frozen.as_mut() {
                f.alerts.clear();
            }
        }
        Intent::Close => {
            if s.help {
                s.help = false;
            } else if !s.filter.is_empty() {
                s.filter.clear();
            } else {
                s.status = None;
            }
        }
    }
    Control::Redraw
}

/// n / N (lnav's habit): shows the next (newer) or previous event whose text holds the filter
/// (case-insensitive) at the bottom of the events view, wrapping at either end; from another
/// view, the newest such event.
fn search(s: &mut ViewState, forward: bool) {
    if s.filter.is_empty() {
        s.status =
            Some("n / N step through the events holding a text: give it with / first".into());
        return;
    }
    let needle = s.filter.to_lowercase();
    let notes = &s.shown().notes;
    let n = notes.len();
    let hits: Vec<usize> = notes
        .iter()
        .enumerate()
        .filter(|(_, e)| e.text.to_lowercase().contains(&needle))
        .map(|(i, _)| i)
        .collect();
    let (Some(&first), Some(&last)) = (hits.first(), hits.last()) else {
        s.status = Some(format!("no event holds `{}`", s.filter));
        return;
    };
    // The event shown on the bottom line of the events view.
    let at = (s.tab == Tab::Events).then(|| n.saturating_sub(1 + usize::from(s.scroll)));
    let to = match (at, forward) {
        (None, _) => last,
        (Some(at), true) => hits.iter().copied().find(|&h| h > at).unwrap_or(first),
        (Some(at), false) => hits.iter().rev().copied().find(|&h| h < at).unwrap_or(last),
    };
    let k = hits.iter().position(|&h| h == to).map_or(0, |p| p + 1);
    s.tab = Tab::Events;
    s.scroll = u16::try_from(n - 1 - to).unwrap_or(u16::MAX);
    s.status = Some(format!(
        "event {k} of {} holding `{}`",
        hits.len(),
        s.filter
    ));
}

/// Moves the history cursor by one complete window; stepping past the newest follows live again.
fn step(s: &mut ViewState, dir: i32) {
    let seqs: Vec<u64> = s.shown().complete().map(|e| e.seq).collect();
    let Some(&last) = seqs.last() else {
        return;
    };
    let cur = s.current().map_or(last, |e| e.seq);
    let at = seqs
        .iter()
        .position(|q| *q == cur)
        .unwrap_or(seqs.len() - 1);
    if dir < 0 {
        s.selected = Some(seqs[at.saturating_sub(1)]);
    } else if at + 1 >= seqs.len() {
        s.selected = None;
    } else {
        let next = seqs[at + 1];
        s.selected = if next == last { None } else { Some(next) };
    }
}
