//! Sessions: runs of one process (and role) inside a log, built from parser events.
//!
//! A new session starts at a banner, when `frames=` goes down, or when a new pid (or role) appears.
//! Sessions are keyed by (pid, role) so the client and the spawned server of a split run, or two
//! processes interleaved in one logcat capture, never share windows.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::envelope::Level;
use crate::error::Error;
use crate::fatal::{Fatal, TranscriptVerify, VerifyArmed};
use crate::parser::{Banner, Event, EventKind, Ignored, LogParser, Role};
use crate::window::{Window, WindowError};

/// Something found at a line.
#[derive(Debug, Clone, PartialEq)]
pub struct At<T> {
    pub line: usize,
    pub item: T,
}

/// Why a session began.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SessionStart {
    Banner,
    /// `frames=` went down without a banner (re-init, or the banner was lost).
    FramesReset,
    /// The first record of a pid/role (the banner may have scrolled out of the ring buffer).
    FirstRecord,
}

/// A Fatal line with its level.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FatalLine {
    pub line: usize,
    pub pid: Option<u32>,
    pub role: Role,
    pub level: Option<Level>,
    #[serde(flatten)]
    pub fatal: Fatal,
}

/// What the session said about its JSON dump.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum DumpNote {
    Written {
        line: usize,
        path: String,
    },
    Failed {
        line: usize,
        path: String,
        message: String,
    },
}

/// One process run (per role) inside a log.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    /// 1-based, in order of appearance.
    pub index: usize,
    pub pid: Option<u32>,
    pub role: Role,
    pub start_line: usize,
    pub started_by: SessionStart,
    pub banner: Option<At<Banner>>,
    pub windows: Vec<At<Window>>,
    pub armed: Vec<At<VerifyArmed>>,
    pub corruption_armed: Vec<At<String>>,
    pub verify_summary: Option<At<u64>>,
    pub fatals: Vec<FatalLine>,
    pub dump: Option<DumpNote>,
    /// Last MobileGL record of this session.
    pub last_line: usize,
}

impl Session {
    fn new(
        index: usize,
        pid: Option<u32>,
        role: Role,
        line: usize,
        started_by: SessionStart,
    ) -> Self {
        Session {
            index,
            pid,
            role,
            start_line: line,
            started_by,
            banner: None,
            windows: Vec::new(),
            armed: Vec::new(),
            corruption_armed: Vec::new(),
            verify_summary: None,
            fatals: Vec::new(),
            dump: None,
            last_line: line,
        }
    }
}

/// Counts of what the lines were.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct LineCounts {
    pub total: usize,
    pub crlf: usize,
    pub blank: usize,
    /// MobileGL records (any envelope).
    pub records: usize,
    pub markers: usize,
    pub foreign: usize,
    pub noise: usize,
    /// A last record cut mid-line.
    pub cut: usize,
    pub binary: usize,
    /// Lines that were not valid UTF-8, decoded lossily and read like any other line.
    pub not_utf8: usize,
    /// Lines longer than the parser's line cap (junk, dropped unread).
    pub overlong: usize,
    /// Lines starting `MGPipe stats: frames=` that are not valid windows.
    pub bad_windows: usize,
    /// Window fields left out because the table of distinct unknown names was full
    /// ([`crate::window::UNKNOWN_NAMES_CAP`]); absent from JSON when none were.
    #[serde(skip_serializing_if = "is_zero")]
    pub unknown_keys_dropped: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl LineCounts {
    /// Lines that carried no usable MobileGL information (blank lines excluded).
    pub fn ignored(&self) -> usize {
        self.markers
            + self.foreign
            + self.noise
            + self.cut
            + self.binary
            + self.overlong
            + self.bad_windows
    }
}

/// A whole parsed log.
#[derive(Debug, Clone, PartialEq)]
pub struct Log {
    pub path: PathBuf,
    pub role: Role,
    pub bytes: u64,
    pub lines: LineCounts,
    pub sessions: Vec<Session>,
    pub bad_windows: Vec<At<WindowError>>,
    pub transcript: Vec<At<TranscriptVerify>>,
    /// Every Fatal line, in file order (also kept per session).
    pub fatals: Vec<FatalLine>,
}

impl Log {
    /// Parses a whole log held in memory. Binary data (a NUL byte) is an error naming the line.
    pub fn parse(path: &Path, bytes: &[u8]) -> Result<Log, Error> {
        let role = Role::from_path(path);
        let mut parser = LogParser::new(role);
        let mut b = LogBuilder::new(path, role);
        let mut binary = None;
        let mut sink = |e: Event| {
            if e.kind == EventKind::Ignored(Ignored::Binary) && binary.is_none() {
                binary = Some(e.line);
            }
            b.push(e);
        };
        parser.feed(bytes, &mut sink);
        parser.finish(&mut sink);
        if let Some(line) = binary {
            return Err(Error::Binary {
                path: path.to_path_buf(),
                line,
            });
        }
        let mut log = b.finish(parser.crlf_lines());
        log.bytes = bytes.len() as u64;
        Ok(log)
    }

    /// Streams a log from a reader in 64 KiB chunks: memory holds the windows kept, not the log.
    /// Binary data (a NUL byte) is an error naming the line; read errors name the file.
    pub fn from_reader(path: &Path, mut reader: impl std::io::Read) -> Result<Log, Error> {
        let role = Role::from_path(path);
        let mut parser = LogParser::new(role);
        let mut b = LogBuilder::new(path, role);
        let binary = std::cell::Cell::new(None);
        let mut sink = |e: Event| {
            if e.kind == EventKind::Ignored(Ignored::Binary) && binary.get().is_none() {
                binary.set(Some(e.line));
            }
            b.push(e);
        };
        let total = pump(path, &mut reader, &mut parser, &binary, &mut sink)?;
        parser.finish(&mut sink);
        if let Some(line) = binary.get() {
            return Err(Error::Binary {
                path: path.to_path_buf(),
                line,
            });
        }
        let mut log = b.finish(parser.crlf_lines());
        log.bytes = total;
        Ok(log)
    }

    /// Opens and streams a log from disk; `-` reads standard input (named `<stdin>`). A FIFO or
    /// `<(adb logcat -d)` streams like a file; a directory, a NUL byte (`/dev/zero`, an ELF file)
    /// or a read error is an error naming the path.
    pub fn open(path: &Path) -> Result<Log, Error> {
        if path.as_os_str() == "-" {
            return Log::from_reader(Path::new("<stdin>"), std::io::stdin().lock());
        }
        let not_open = |e: std::io::Error| Error::Empty {
            path: path.to_path_buf(),
            reason: format!("cannot open: {e}"),
        };
        let meta = std::fs::metadata(path).map_err(not_open)?;
        if meta.is_dir() {
            return Err(Error::Empty {
                path: path.to_path_buf(),
                reason: "is a directory, not a log file".into(),
            });
        }
        // A large regular file is parsed on two cores, its halves merged in order; whatever that
        // path cannot do exactly (a NUL, a read error, a name new to the process) is done here.
        if meta.is_file() && meta.len() >= crate::halves::PARALLEL_MIN {
            if let Some(log) = crate::halves::open(path, meta.len()) {
                return Ok(log);
            }
        }
        let f = std::fs::File::open(path).map_err(not_open)?;
        Log::from_reader(path, f)
    }

    /// The session a report is about: the last one with window lines, else the last one.
    pub fn reported_session(&self) -> Option<&Session> {
        self.sessions
            .iter()
            .rev()
            .find(|s| !s.windows.is_empty())
            .or_else(|| self.sessions.last())
    }

    /// The sessions a report details: per role (main, client, server) the last one with window
    /// lines, so the two sides of a split run are reported apart; the last session when none has
    /// windows.
    pub fn reported_sessions(&self) -> Vec<&Session> {
        let mut out: Vec<&Session> = [Role::Main, Role::Client, Role::Server]
            .iter()
            .filter_map(|r| {
                self.sessions
                    .iter()
                    .rev()
                    .find(|s| s.role == *r && !s.windows.is_empty())
            })
            .collect();
        if out.is_empty() {
            out.extend(self.sessions.last());
        }
        out.sort_by_key(|s| s.index);
        out
    }

    pub fn window_count(&self) -> usize {
        self.sessions.iter().map(|s| s.windows.len()).sum()
    }

    /// Verify armed anywhere in the log: the library's arming line, or (ctest transcript) a runner
    /// `MGPipe verify: … armed` line.
    pub fn verify_armed(&self) -> bool {
        !self.armed().is_empty()
            || self
                .transcript
                .iter()
                .any(|t| matches!(t.item, TranscriptVerify::ArmedClean { .. }))
    }

    pub fn armed(&self) -> Vec<&At<VerifyArmed>> {
        self.sessions.iter().flat_map(|s| s.armed.iter()).collect()
    }
}

/// Feeds `reader` to `parser` in 64 KiB chunks up to its end, or up to its first NUL byte (whose
/// line goes to `binary`: `/dev/zero` must not read forever); returns the bytes read. Read errors
/// name the file and the line being read.
pub(crate) fn pump(
    path: &Path,
    reader: &mut impl std::io::Read,
    parser: &mut LogParser,
    binary: &std::cell::Cell<Option<usize>>,
    sink: &mut dyn FnMut(Event),
) -> Result<u64, Error> {
    let mut total: u64 = 0;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(Error::Read {
                    path: path.to_path_buf(),
                    line: parser.lines() + 1,
                    reason: e.to_string(),
                })
            }
        };
        total += n as u64;
        if let Some(z) = memchr::memchr(0, &buf[..n]) {
            parser.feed(&buf[..z], sink);
            if binary.get().is_none() {
                binary.set(Some(parser.lines() + 1));
            }
            break;
        }
        parser.feed(&buf[..n], sink);
        if binary.get().is_some() {
            break;
        }
    }
    Ok(total)
}

/// Builds a [`Log`] from events; usable incrementally (the live view keeps one per source).
#[derive(Debug, Clone)]
pub struct LogBuilder {
    log: Log,
    current: HashMap<(Option<u32>, Role), usize>,
}

impl LogBuilder {
    pub fn new(path: &Path, role: Role) -> Self {
        LogBuilder {
            log: Log {
                path: path.to_path_buf(),
                role,
                bytes: 0,
                lines: LineCounts::default(),
                sessions: Vec::new(),
                bad_windows: Vec::new(),
                transcript: Vec::new(),
                fatals: Vec::new(),
            },
            current: HashMap::new(),
        }
    }

    /// The log as built so far.
    pub fn log(&self) -> &Log {
        &self.log
    }

    fn start(&mut self, e: &Event, why: SessionStart) -> usize {
        let idx = self.log.sessions.len();
        self.log
            .sessions
            .push(Session::new(idx + 1, e.pid, e.role, e.line, why));
        self.current.insert((e.pid, e.role), idx);
        idx
    }

    fn session_for(&mut self, e: &Event) -> usize {
        match self.current.get(&(e.pid, e.role)) {
            Some(&i) => i,
            None => self.start(e, SessionStart::FirstRecord),
        }
    }

    pub fn push(&mut self, e: Event) {
        let c = &mut self.log.lines;
        c.total += 1;
        if e.lossy {
            c.not_utf8 += 1;
        }
        match &e.kind {
            EventKind::Ignored(why) => {
                match why {
                    Ignored::Blank => c.blank += 1,
                    Ignored::Marker => c.markers += 1,
                    Ignored::Foreign => c.foreign += 1,
                    Ignored::Noise => c.noise += 1,
                    Ignored::Cut => c.cut += 1,
                    Ignored::Binary => c.binary += 1,
                    Ignored::Overlong => c.overlong += 1,
                }
                return;
            }
            EventKind::Transcript(_) => {}
            EventKind::BadWindow(_) => c.bad_windows += 1,
            _ => c.records += 1,
        }
        let line = e.line;
        match e.kind {
            EventKind::Ignored(_) | EventKind::Other => {
                if let Some(&i) = self.current.get(&(e.pid, e.role)) {
                    self.log.sessions[i].last_line = line;
                }
            }
            EventKind::Transcript(t) => self.log.transcript.push(At { line, item: t }),
            EventKind::BadWindow(err) => self.log.bad_windows.push(At { line, item: err }),
            EventKind::Banner(ref b) => {
                let i = self.start(&e, SessionStart::Banner);
                self.log.sessions[i].banner = Some(At {
                    line,
                    item: b.clone(),
                });
            }
            EventKind::Window(ref w) => {
                let i = match self.current.get(&(e.pid, e.role)) {
                    Some(&i) => {
                        let went_down = self.log.sessions[i]
                            .windows
                            .last()
                            .is_some_and(|p| w.frames < p.item.frames);
                        if went_down {
                            self.start(&e, SessionStart::FramesReset)
                        } else {
                            i
                        }
                    }
                    None => self.start(&e, SessionStart::FirstRecord),
                };
                self.log.lines.unknown_keys_dropped += w.dropped_keys as usize;
                let s = &mut self.log.sessions[i];
                s.last_line = line;
                if let EventKind::Window(w) = e.kind {
                    s.windows.push(At { line, item: w });
                }
            }
            EventKind::VerifyArmed(ref a) => {
                let i = self.session_for(&e);
                self.log.sessions[i].armed.push(At {
                    line,
                    item: a.clone(),
                });
                self.log.sessions[i].last_line = line;
            }
            EventKind::VerifyCorruptionArmed(ref f) => {
                let i = self.session_for(&e);
                self.log.sessions[i].corruption_armed.push(At {
                    line,
                    item: f.clone(),
                });
                self.log.sessions[i].last_line = line;
            }
            EventKind::VerifySummary(n) => {
                let i = self.session_for(&e);
                self.log.sessions[i].verify_summary = Some(At { line, item: n });
                self.log.sessions[i].last_line = line;
            }
            EventKind::Fatal(ref f) => {
                let fl = FatalLine {
                    line,
                    pid: e.pid,
                    role: e.role,
                    level: e.level,
                    fatal: f.clone(),
                };
                let i = self.session_for(&e);
                self.log.sessions[i].fatals.push(fl.clone());
                self.log.sessions[i].last_line = line;
                self.log.fatals.push(fl);
            }
            EventKind::DumpWritten(ref p) => {
                let i = self.session_for(&e);
                self.log.sessions[i].dump = Some(DumpNote::Written {
                    line,
                    path: p.clone(),
                });
                self.log.sessions[i].last_line = line;
            }
            EventKind::DumpFailed {
                ref path,
                ref message,
            } => {
                let i = self.session_for(&e);
                self.log.sessions[i].dump = Some(DumpNote::Failed {
                    line,
                    path: path.clone(),
                    message: message.clone(),
                });
                self.log.sessions[i].last_line = line;
            }
        }
    }

    pub fn finish(mut self, crlf_lines: usize) -> Log {
        self.log.lines.crlf = crlf_lines;
        self.log
    }
}
