//! What the live view knows: a bounded ring of windows, the sessions they belong to, alerts, and
//! the view's own settings (tab, history cursor, filter, pause). Ingestion is pure bookkeeping over
//! parser [`Event`](crate::Event)s; nothing here parses or touches I/O.

use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

use crate::envelope::Level;
use crate::fatal::{Fatal, VerifyArmed};
use crate::parser::{EventKind, Role};
use crate::session::{At, SessionStart};
use crate::window::{Value, Window};

/// Sessions remembered at once (a logcat capture of an app restarted in a loop must stay bounded).
const MAX_SESSIONS: usize = 64;
/// Windows kept for history and sparklines by default (`stats watch --history`): the memory bound
/// (~2 KB a window). Session totals are counted apart from the ring, so they stay exact past it.
pub const DEFAULT_HISTORY: usize = 10_000;
/// Notable events kept for the events view.
const MAX_NOTES: usize = 200;
/// Distinct `window=` values tracked per session for period inference.
const MAX_WINDOW_VALUES: usize = 32;

/// What a source thread read since its last batch: counts plus the events that matter.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Batch {
    /// Physical lines read (blank lines included).
    pub lines: u64,
    pub bytes: u64,
    /// MobileGL records the parser did not interpret (`Other`).
    pub other_records: u64,
    /// Foreign tags, markers, noise, cut records.
    pub ignored: u64,
    /// Lines holding a NUL byte or invalid UTF-8.
    pub binary: u64,
    /// Lines longer than the line buffer (cut to its size).
    pub overlong: u64,
    /// Every event that is not ignored and not `Other`.
    pub events: Vec<crate::Event>,
}

impl Batch {
    pub fn is_empty(&self) -> bool {
        self.lines == 0 && self.bytes == 0 && self.events.is_empty()
    }

    /// Sorts one parser event into the batch.
    pub fn add(&mut self, e: crate::Event) {
        use crate::Ignored;
        self.lines += 1;
        match &e.kind {
            EventKind::Ignored(Ignored::Blank) => {}
            EventKind::Ignored(Ignored::Binary) => self.binary += 1,
            // An undecodable line that meant nothing even decoded lossily: junk, shown as binary.
            EventKind::Ignored(_) if e.lossy => self.binary += 1,
            EventKind::Ignored(_) => self.ignored += 1,
            EventKind::Other => self.other_records += 1,
            _ => self.events.push(e),
        }
    }
}

/// A message from a source about itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceNote {
    pub severity: NoteLevel,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NoteLevel {
    Info,
    Warn,
    /// The source will deliver nothing more (EOF on stdin, adb exited, replay finished).
    Ended,
}

/// One process run as the live view tracks it (a bounded cousin of [`crate::Session`]).
#[derive(Debug, Clone, PartialEq)]
pub struct LiveSession {
    /// 1-based, in order of appearance.
    pub id: usize,
    pub pid: Option<u32>,
    pub role: Role,
    pub start_line: usize,
    pub started_by: SessionStart,
    pub banner_period: Option<u64>,
    pub armed: Option<VerifyArmed>,
    pub windows: u64,
    pub complete: u64,
    /// `draws=` and `window=` summed over every window of the session, kept or rotated out.
    pub draws_total: u64,
    pub frames_total: u64,
    last_frames: Option<u64>,
    window_values: BTreeMap<u64, u64>,
}

impl LiveSession {
    /// The banner's period, else the most frequent `window` value seen (ties: the larger).
    pub fn period(&self) -> Option<(u64, bool)> {
        if let Some(p) = self.banner_period.filter(|p| *p > 0) {
            return Some((p, true));
        }
        self.window_values
            .iter()
            .max_by_key(|&(v, n)| (*n, *v))
            .map(|(v, _)| (*v, false))
    }

    fn is_complete(&self, w: &Window) -> bool {
        self.period()
            .is_some_and(|(p, _)| w.window == p && w.frames % p == 0)
    }
}

/// A window in the ring.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Ever-increasing arrival number (stable while the ring rotates).
    pub seq: u64,
    pub session: usize,
    pub line: usize,
    pub complete: bool,
    /// When it arrived (time since the view started).
    pub at: Duration,
    pub window: Window,
}

/// A red banner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Alert {
    Fatal {
        line: usize,
        pid: Option<u32>,
        level: Option<Level>,
        fatal: Fatal,
    },
    SessionChange {
        line: usize,
        from: Option<u32>,
        to: Option<u32>,
        why: SessionStart,
    },
}

impl Alert {
    pub fn text(&self) -> String {
        match self {
            Alert::Fatal {
                line,
                pid,
                level,
                fatal,
            } => {
                let mut t = format!("FATAL Fatal{{{}", fatal.kind);
                if let Some(d) = &fatal.detail {
                    t.push_str(&format!(", \"{d}\""));
                }
                if let Some(x) = &fatal.extras {
                    t.push_str(&format!(", {x}"));
                }
                t.push('}');
                if let Some(tail) = &fatal.tail {
                    t.push_str(&format!(" {tail}"));
                }
                t.push_str(&format!(" at line {line}"));
                if let Some(p) = pid {
                    t.push_str(&format!(" pid {p}"));
                }
                if let Some(l) = level {
                    t.push_str(&format!(" ({})", l.as_str()));
                }
                t
            }
            Alert::SessionChange {
                line,
                from,
                to,
                why,
            } => {
                let pid = |p: &Option<u32>| p.map_or_else(|| "?".to_string(), |p| p.to_string());
                let why = match why {
                    SessionStart::Banner => "new banner: the app restarted",
                    SessionStart::FramesReset => "frames= went down: re-init",
                    SessionStart::FirstRecord => "a new process",
                };
                format!(
                    "SESSION CHANGE pid {} -> {} at line {line} ({why})",
                    pid(from),
                    pid(to)
                )
            }
        }
    }
}

/// One line of the events view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub at: Duration,
    pub level: NoteLevel,
    pub text: String,
}

/// Everything that arrives from the source. Pausing freezes a copy of this.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Live {
    pub windows: VecDeque<Entry>,
    pub sessions: Vec<LiveSession>,
    current: Vec<((Option<u32>, Role), usize)>,
    /// Session of the newest window.
    pub shown_session: Option<usize>,
    pub next_seq: u64,
    pub lines: u64,
    pub bytes: u64,
    pub records: u64,
    pub ignored: u64,
    pub binary: u64,
    pub overlong: u64,
    pub bad_windows: u64,
    pub windows_total: u64,
    pub last_window_at: Option<Duration>,
    pub alerts: Vec<Alert>,
    pub notes: VecDeque<Note>,
    /// The source's latest word about itself.
    pub source_state: Option<SourceNote>,
    /// Complete windows in the ring, kept with it so a frame never counts the history.
    complete_in_ring: usize,
    /// The client log of a split run: its `frames=0 window=0` windows are structural (the
    /// server process counts the frames), so they are shown as complete, not waited past.
    pub structural_frames: bool,
}

impl Live {
    pub fn session(&self, id: usize) -> Option<&LiveSession> {
        self.sessions.iter().find(|s| s.id == id)
    }

    fn note(&mut self, at: Duration, level: NoteLevel, text: String) {
        if self.notes.len() == MAX_NOTES {
            self.notes.pop_front();
        }
        self.notes.push_back(Note { at, level, text });
    }

    fn start(&mut self, pid: Option<u32>, role: Role, line: usize, why: SessionStart) -> usize {
        let id = self.sessions.last().map_or(1, |s| s.id + 1);
        self.sessions.push(LiveSession {
            id,
            pid,
            role,
            start_line: line,
            started_by: why,
            banner_period: None,
            armed: None,
            windows: 0,
            complete: 0,
            draws_total: 0,
            frames_total: 0,
            last_frames: None,
            window_values: BTreeMap::new(),
        });
        if self.sessions.len() > MAX_SESSIONS {
            self.sessions.remove(0);
        }
        self.current.retain(|(k, _)| *k != (pid, role));
        self.current.push(((pid, role), id));
        if self.current.len() > MAX_SESSIONS {
            self.current.remove(0);
        }
        id
    }

    fn current_id(&self, pid: Option<u32>, role: Role) -> Option<usize> {
        self.current
            .iter()
            .find(|(k, _)| *k == (pid, role))
            .map(|(_, id)| *id)
    }

    fn session_mut(&mut self, id: usize) -> Option<&mut LiveSession> {
        self.sessions.iter_mut().find(|s| s.id == id)
    }

    fn session_for(&mut self, pid: Option<u32>, role: Role, line: usize) -> usize {
        match self.current_id(pid, role) {
            Some(id) => id,
            None => self.start(pid, role, line, SessionStart::FirstRecord),
        }
    }

    /// Takes one batch from a source.
    pub fn ingest(&mut self, b: Batch, at: Duration, cap: usize) {
        self.lines += b.lines;
        self.bytes += b.bytes;
        self.records += b.other_records;
        self.ignored += b.ignored;
        self.binary += b.binary;
        self.overlong += b.overlong;
        for e in b.events {
            self.records += 1;
            self.event(e, at, cap);
        }
    }

    fn event(&mut self, e: crate::Event, at: Duration, cap: usize) {
        let line = e.line;
        match e.kind {
            EventKind::Banner(b) => {
                let id = self.start(e.pid, e.role, line, SessionStart::Banner);
                if let Some(s) = self.session_mut(id) {
                    s.banner_period = Some(b.period);
                }
                self.note(
                    at,
                    NoteLevel::Info,
                    format!(
                        "line {line}: banner, session {id} (pid {}), period {}",
                        e.pid.map_or_else(|| "?".into(), |p| p.to_string()),
                        b.period
                    ),
                );
            }
            EventKind::Window(w) => self.window(e.pid, e.role, line, w, at, cap),
            EventKind::BadWindow(err) => {
                self.bad_windows += 1;
                self.note(at, NoteLevel::Warn, format!("line {line}: {err}"));
            }
            EventKind::VerifyArmed(a) => {
                let id = self.session_for(e.pid, e.role, line);
                self.note(
                    at,
                    NoteLevel::Info,
                    format!(
                        "line {line}: verify armed - {} fields, {} verbs, fatal={}",
                        a.fields,
                        a.verbs,
                        u8::from(a.fatal)
                    ),
                );
                if let Some(s) = self.session_mut(id) {
                    s.armed = Some(a);
                }
            }
            EventKind::Fatal(f) => {
                let alert = Alert::Fatal {
                    line,
                    pid: e.pid,
                    level: e.level,
                    fatal: f,
                };
                self.note(at, NoteLevel::Warn, alert.text());
                self.push_alert(alert);
            }
            EventKind::VerifySummary(n) => self.note(
                at,
                NoteLevel::Warn,
                format!("line {line}: verify summary - {n} divergence(s)"),
            ),
            EventKind::VerifyCorruptionArmed(field) => self.note(
                at,
                NoteLevel::Info,
                format!("line {line}: verify corruption armed - {field}"),
            ),
            EventKind::DumpWritten(p) => self.note(
                at,
                NoteLevel::Info,
                format!("line {line}: wrote JSON dump to {p}"),
            ),
            EventKind::DumpFailed { message, .. } => {
                self.note(at, NoteLevel::Warn, format!("line {line}: {message}"))
            }
            EventKind::Transcript(t) => {
                self.note(at, NoteLevel::Info, format!("line {line}: {t:?}"))
            }
            EventKind::Other | EventKind::Ignored(_) => {}
        }
    }

    fn push_alert(&mut self, a: Alert) {
        // The newest banners matter; keep a few so a crash loop cannot grow memory.
        if self.alerts.len() == 8 {
            self.alerts.remove(0);
        }
        self.alerts.push(a);
    }

    fn window(
        &mut self,
        pid: Option<u32>,
        role: Role,
        line: usize,
        w: Window,
        at: Duration,
        cap: usize,
    ) {
        let id = match self.current_id(pid, role) {
            Some(id) => {
                let went_down = self
                    .session(id)
                    .and_then(|s| s.last_frames)
                    .is_some_and(|f| w.frames < f);
                if went_down {
                    self.start(pid, role, line, SessionStart::FramesReset)
                } else {
                    id
                }
            }
            None => self.start(pid, role, line, SessionStart::FirstRecord),
        };
        if let Some(prev) = self.shown_session.filter(|p| *p != id) {
            let from = self.session(prev).and_then(|s| s.pid);
            let why = self
                .session(id)
                .map_or(SessionStart::FirstRecord, |s| s.started_by);
            let alert = Alert::SessionChange {
                line,
                from,
                to: pid,
                why,
            };
            self.note(at, NoteLevel::Warn, alert.text());
            self.push_alert(alert);
        }
        self.shown_session = Some(id);
        let structural = self.structural_frames && w.frames == 0 && w.window == 0;
        let complete = match self.session_mut(id) {
            Some(s) => {
                s.windows += 1;
                s.draws_total = s.draws_total.saturating_add(w.draws);
                s.frames_total = s.frames_total.saturating_add(w.window);
                s.last_frames = Some(w.frames);
                if w.window > 0
                    && (s.window_values.len() < MAX_WINDOW_VALUES
                        || s.window_values.contains_key(&w.window))
                {
                    *s.window_values.entry(w.window).or_default() += 1;
                }
                let c = s.is_complete(&w) || structural;
                if c {
                    s.complete += 1;
                }
                c
            }
            None => false,
        };
        if !complete {
            self.note(
                at,
                NoteLevel::Info,
                format!(
                    "line {line}: partial window frames={} window={} (teardown or irregular)",
                    w.frames, w.window
                ),
            );
        }
        self.windows_total += 1;
        self.last_window_at = Some(at);
        while self.windows.len() >= cap.max(1) {
            if self.windows.pop_front().is_some_and(|e| e.complete) {
                self.complete_in_ring -= 1;
            }
        }
        if complete {
            self.complete_in_ring += 1;
        }
        self.windows.push_back(Entry {
            seq: self.next_seq,
            session: id,
            line,
            complete,
            at,
            window: w,
        });
        self.next_seq += 1;
    }

    /// Records a source's note about itself.
    pub fn source_note(&mut self, n: SourceNote, at: Duration) {
        self.note(at, n.severity, n.text.clone());
        self.source_state = Some(n);
    }

    /// Complete windows in the ring, oldest first.
    pub fn complete(&self) -> impl DoubleEndedIterator<Item = &Entry> {
        self.windows.iter().filter(|e| e.complete)
    }

    /// How many windows of the ring are complete (kept as windows arrive and leave: O(1)).
    pub fn complete_count(&self) -> usize {
        self.complete_in_ring
    }

    /// The first complete window whose `seq` is at least `seq` (the ring is in `seq` order, so
    /// the search starts at a binary-searched index, not at the oldest window).
    pub fn complete_from(&self, seq: u64) -> Option<&Entry> {
        let i = self.windows.partition_point(|e| e.seq < seq);
        self.windows.range(i..).find(|e| e.complete)
    }

    /// The complete window before `seq` in the same session.
    pub fn previous(&self, e: &Entry) -> Option<&Entry> {
        self.complete()
            .rev()
            .find(|p| p.seq < e.seq && p.session == e.session)
    }
}

/// The tabs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Tab {
    Counters,
    Charts,
    Events,
}

impl Tab {
    pub const ALL: [Tab; 3] = [Tab::Counters, Tab::Charts, Tab::Events];

    pub fn title(self) -> &'static str {
        match self {
            Tab::Counters => "counters",
            Tab::Charts => "charts",
            Tab::Events => "events",
        }
    }
}

/// The windows everything is compared against (`--baseline A.log`).
#[derive(Debug, Clone, PartialEq)]
pub struct Baseline {
    /// What to call it in the view (the file name).
    pub label: String,
    pub pid: Option<u32>,
    /// The complete windows of the baseline's reported session, in order (never empty).
    pub windows: Vec<At<Window>>,
}

impl Baseline {
    /// The complete windows of the reported session of the log `path` holds (`--baseline`);
    /// a log without one is an error naming it.
    pub fn from_log(path: &std::path::Path, bytes: &[u8]) -> Result<Baseline, crate::Error> {
        let missing = |reason: &str| crate::Error::Empty {
            path: path.to_path_buf(),
            reason: reason.to_string(),
        };
        let log = crate::Log::parse(path, bytes)?;
        let session = log
            .reported_session()
            .ok_or_else(|| missing("no MobileGL session in the baseline"))?;
        let windows: Vec<At<Window>> = session.complete_windows().into_iter().cloned().collect();
        if windows.is_empty() {
            return Err(missing(
                "no complete `MGPipe stats:` window (window == period) to compare against",
            ));
        }
        Ok(Baseline {
            label: path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
            pid: session.pid,
            windows,
        })
    }

    /// The baseline window to compare `w` with: the one at the same position of the replay
    /// (same `frames=` and `window=`), else the baseline's last (the live run went past it).
    pub fn at(&self, w: &Window) -> Option<&At<Window>> {
        self.windows
            .iter()
            .find(|b| b.item.frames == w.frames && b.item.window == w.window)
            .or_else(|| self.windows.last())
    }
}

/// Where the view is, and what it shows.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewState {
    /// Describes the source (`file abB.log`, `stdin`, `adb -s SERIAL`, `replay x.log at 2x`).
    pub source: String,
    pub now: Duration,
    pub live: Live,
    /// A frozen copy while paused (`p`): data keeps arriving in `live`.
    pub frozen: Option<Box<Live>>,
    pub tab: Tab,
    /// `Some(seq)` while stepping through history; `None` follows the newest complete window.
    pub selected: Option<u64>,
    pub filter: String,
    pub editing_filter: bool,
    pub help: bool,
    pub scroll: u16,
    pub baseline: Option<Baseline>,
    /// A transient message in the footer (export results, key hints).
    pub status: Option<String>,
    /// Ring size (windows kept).
    pub history: usize,
    pub running: bool,
    /// Colour on (off with `NO_COLOR` / `--color never`: emphasis then uses bold and reverse only).
    pub color: bool,
    /// Test hook (`mgctl stats watch --crash-test`): panic on the first tick, to prove the
    /// terminal is restored on a panic.
    #[doc(hidden)]
    pub crash_test: bool,
}

impl ViewState {
    pub fn new(source: impl Into<String>, history: usize, baseline: Option<Baseline>) -> Self {
        ViewState {
            source: source.into(),
            now: Duration::ZERO,
            live: Live::default(),
            frozen: None,
            tab: Tab::Counters,
            selected: None,
            filter: String::new(),
            editing_filter: false,
            help: false,
            scroll: 0,
            baseline,
            status: None,
            history: history.max(1),
            running: true,
            color: true,
            crash_test: false,
        }
    }

    /// What the view shows: the frozen copy while paused, else the live data.
    pub fn shown(&self) -> &Live {
        self.frozen.as_deref().unwrap_or(&self.live)
    }

    pub fn paused(&self) -> bool {
        self.frozen.is_some()
    }

    /// The window on screen: the selected one while stepping, else the newest complete window.
    pub fn current(&self) -> Option<&Entry> {
        let live = self.shown();
        // From the newest end: the live view (nothing selected) costs O(1), not O(history).
        match self.selected {
            Some(seq) => live
                .complete_from(seq)
                .or_else(|| live.complete().next_back()),
            None => live.complete().next_back(),
        }
    }

    /// The baseline window the shown window is compared with (`Baseline::at`).
    pub fn base(&self) -> Option<&At<Window>> {
        let b = self.baseline.as_ref()?;
        match self.current() {
            Some(c) => b.at(&c.window),
            None => b.windows.last(),
        }
    }

    /// The session of the window on screen, else the newest session.
    pub fn session(&self) -> Option<&LiveSession> {
        let live = self.shown();
        self.current()
            .and_then(|e| live.session(e.session))
            .or_else(|| live.shown_session.and_then(|id| live.session(id)))
            .or_else(|| live.sessions.last())
    }

    /// Position of the shown window among the ring's complete windows (1-based) and their count.
    pub fn position(&self) -> (usize, usize) {
        let live = self.shown();
        let n = live.complete_count();
        // Counted back from the newest: O(distance from the live end).
        let pos = self
            .current()
            .and_then(|c| {
                live.complete()
                    .rev()
                    .position(|e| e.seq == c.seq)
                    .map(|after| n - after)
            })
            .unwrap_or(0);
        (pos, n)
    }
}

/// Backend family from the gate bracket: Espryt gates fire on DirectGLES, Magma's on DirectVulkan.
pub fn backend(w: &Window) -> &'static str {
    let fired = |names: &[&str]| {
        names.iter().any(|n| {
            matches!(w.get(&format!("gates.{n}")), Some(Value::HitMiss { hit, miss }) if hit + miss > 0)
        })
    };
    match (fired(&["ers", "etl", "eub"]), fired(&["mfp", "mpm", "mdt"])) {
        (true, false) => "DirectGLES",
        (false, true) => "DirectVulkan",
        (true, true) => "mixed gates",
        (false, false) => "unknown (no gate fired)",
    }
}

/// Build arm from the fields present: push builds print `cso[]`, `emit[]`, `wait[]`.
pub fn arm(w: &Window) -> &'static str {
    if w.groups()
        .iter()
        .any(|g| matches!(g, Some("cso" | "emit" | "wait")))
    {
        "push"
    } else {
        "pull"
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn totals_stay_exact_after_the_history_wrapped() {
        let cap = 100;
        let n = 1_000u64;
        let mut live = Live::default();
        let mut next = {
            let mut x = 7u64;
            move |m: u64| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                (x >> 33) % m.max(1)
            }
        };
        let (mut draws, mut frames) = (0u64, 0u64);
        for k in 1..=n {
            let mut msg = String::new();
            crate::synth::window_message(&mut msg, k, 60, &mut next);
            let w = Window::parse(&msg).unwrap();
            draws += w.draws;
            frames += w.window;
            live.window(Some(42), Role::Main, k as usize, w, Duration::ZERO, cap);
        }
        assert_eq!(live.windows.len(), cap);
        assert_eq!(live.windows.front().unwrap().seq, n - cap as u64);
        assert_eq!(live.windows_total, n);
        let s = live.session(1).unwrap();
        assert_eq!((s.windows, s.complete), (n, n));
        assert_eq!((s.draws_total, s.frames_total), (draws, frames));
        assert_eq!(live.sessions.len(), 1);
    }

    #[test]
    fn complete_count_and_position_follow_the_ring_without_a_scan() {
        let cap = 50;
        let mut s = ViewState::new("t", cap, None);
        let mut next = |m: u64| m / 2;
        for k in 1..=200u64 {
            let mut msg = String::new();
            // Every third window is partial (window != period).
            let period = if k % 3 == 0 { 30 } else { 60 };
            crate::synth::window_message(&mut msg, k, period, &mut next);
            let w = Window::parse(&msg).unwrap();
            s.live
                .window(Some(7), Role::Main, k as usize, w, Duration::ZERO, cap);
            assert_eq!(s.live.complete_count(), s.live.complete().count());
        }
        let n = s.live.complete_count();
        assert_eq!(s.position(), (n, n));
        let seqs: Vec<u64> = s.live.complete().map(|e| e.seq).collect();
        s.selected = Some(seqs[4]);
        assert_eq!(s.current().map(|e| e.seq), Some(seqs[4]));
        assert_eq!(s.position(), (5, n));
        // A selection between complete windows shows the next complete one.
        s.selected = Some(seqs[4] + 1);
        assert_eq!(s.current().map(|e| e.seq), Some(seqs[5]));
        s.selected = Some(u64::MAX);
        assert_eq!(s.current().map(|e| e.seq), seqs.last().copied());
    }
}
