//! The incremental log parser: bytes in, typed [`Event`]s out, one per physical line.
//!
//! [`LogParser`] keeps no history beyond a partial-line buffer, so it can follow a growing file or
//! `adb logcat` chunk by chunk (the live view) as well as read a whole file (`stats summary`).
//! Sessions, windows and verdicts are built on top of the events by [`crate::LogBuilder`].

use std::path::Path;

use crate::envelope::{classify, EnvelopeKind, Level, Line, Record};
use crate::fatal::{Fatal, TranscriptVerify, VerifyArmed};
use crate::window::{Window, WindowError, WINDOW_PREFIX};

/// Which side of a split (disaggregated) run wrote a record. Never merge windows across roles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// A pull/monolith library: one role (`mobilegl.log`).
    Main,
    Client,
    Server,
}

impl Role {
    /// Role from MobileGL's role-log naming (`foo.client.log`, `foo.server.log`, `foo.client`).
    pub fn from_path(path: &Path) -> Role {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        if name.contains(".server.") || name.ends_with(".server") {
            Role::Server
        } else if name.contains(".client.") || name.ends_with(".client") {
            Role::Client
        } else {
            Role::Main
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Main => "main",
            Role::Client => "client",
            Role::Server => "server",
        }
    }
}

/// `MGPipe stats: counters ON (MOBILEGL_PIPE_STATS), summary every <N> frames[, JSON dump to <path>]`
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Banner {
    pub period: u64,
    pub dump: Option<String>,
}

impl Banner {
    pub fn parse(msg: &str) -> Option<Banner> {
        let rest =
            msg.strip_prefix("MGPipe stats: counters ON (MOBILEGL_PIPE_STATS), summary every ")?;
        let (n, rest) = rest.split_once(" frames")?;
        let dump = rest
            .strip_prefix(", JSON dump to ")
            .map(|p| p.trim_end().to_string());
        Some(Banner {
            period: n.parse().ok()?,
            dump,
        })
    }
}

/// Why a line carries no MobileGL information.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ignored {
    /// An empty line (not counted as ignored).
    Blank,
    /// `--------- beginning of …`
    Marker,
    /// Another logcat tag.
    Foreign,
    /// Unrecognised text (continuation lines, tool output).
    Noise,
    /// The last line of the input, without a newline, that is not a complete record.
    Cut,
    /// A NUL byte: binary data, not a text log.
    Binary,
    /// Not valid UTF-8.
    NotUtf8,
}

/// What one line meant.
#[derive(Debug, Clone, PartialEq)]
pub enum EventKind {
    Banner(Banner),
    Window(Window),
    /// A line starting with `MGPipe stats: frames=` that is not a valid window.
    BadWindow(WindowError),
    VerifyArmed(VerifyArmed),
    /// `MGPipe: verify corruption armed - <Field>` (negative control).
    VerifyCorruptionArmed(String),
    /// `MGPipe: verify summary - <N> divergence(s) survived …`
    VerifySummary(u64),
    /// A runner line of a ctest transcript.
    Transcript(TranscriptVerify),
    Fatal(Fatal),
    /// `MGPipe stats: wrote JSON dump to <path>`
    DumpWritten(String),
    /// `PipeStats: could not open|failed writing MOBILEGL_PIPE_STATS_FILE='<path>'…`
    DumpFailed {
        path: String,
        message: String,
    },
    /// A MobileGL record this parser does not interpret.
    Other,
    Ignored(Ignored),
}

/// One event with where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// 1-based physical line number.
    pub line: usize,
    pub pid: Option<u32>,
    pub role: Role,
    pub level: Option<Level>,
    /// `HH:MM:SS` of MobileGL's header, when present.
    pub hms: Option<String>,
    pub envelope: Option<EnvelopeKind>,
    pub kind: EventKind,
}

/// Incremental parser. Feed whole lines with [`LogParser::push_line`] or arbitrary chunks with
/// [`LogParser::feed`], then call [`LogParser::finish`] once at end of input.
#[derive(Debug, Clone)]
pub struct LogParser {
    role: Role,
    line_no: usize,
    partial: Vec<u8>,
    crlf_lines: usize,
}

impl LogParser {
    pub fn new(role: Role) -> Self {
        LogParser {
            role,
            line_no: 0,
            partial: Vec::new(),
            crlf_lines: 0,
        }
    }

    /// Physical lines seen so far.
    pub fn lines(&self) -> usize {
        self.line_no
    }

    /// Lines that ended in `\r\n`.
    pub fn crlf_lines(&self) -> usize {
        self.crlf_lines
    }

    /// Parses one complete line (with or without its `\n` / `\r\n`).
    pub fn push_line(&mut self, line: &[u8]) -> Event {
        self.line_no += 1;
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let line = match line.strip_suffix(b"\r") {
            Some(l) => {
                self.crlf_lines += 1;
                l
            }
            None => line,
        };
        interpret(line, self.line_no, self.role, false)
    }

    /// Feeds a chunk; complete lines become events, the rest waits for the next chunk.
    pub fn feed(&mut self, chunk: &[u8], sink: &mut dyn FnMut(Event)) {
        let mut rest = chunk;
        while let Some(nl) = find_newline(rest) {
            let (head, tail) = rest.split_at(nl + 1);
            if self.partial.is_empty() {
                sink(self.push_line(head));
            } else {
                let mut joined = std::mem::take(&mut self.partial);
                joined.extend_from_slice(head);
                sink(self.push_line(&joined));
            }
            rest = tail;
        }
        self.partial.extend_from_slice(rest);
    }

    /// Flushes a last line that had no newline: a record cut mid-line unless it parses whole.
    pub fn finish(&mut self, sink: &mut dyn FnMut(Event)) {
        if self.partial.is_empty() {
            return;
        }
        let line = std::mem::take(&mut self.partial);
        self.line_no += 1;
        let line = line.strip_suffix(b"\r").unwrap_or(&line);
        sink(interpret(line, self.line_no, self.role, true));
    }

    /// Whether an incomplete line is waiting for more input.
    pub fn has_partial(&self) -> bool {
        !self.partial.is_empty()
    }
}

/// Position of the first `\n`, eight bytes at a time (the per-line hot path of big logs).
fn find_newline(b: &[u8]) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    const NL: u64 = LO * b'\n' as u64;
    let mut i = 0;
    while i + 8 <= b.len() {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[i..i + 8]);
        let x = u64::from_le_bytes(w) ^ NL;
        // A zero byte in x is a newline in the word (exact for the lowest one, which is all we use).
        let z = x.wrapping_sub(LO) & !x & HI;
        if z != 0 {
            return Some(i + (z.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    b[i..].iter().position(|&c| c == b'\n').map(|p| i + p)
}

fn ignored(line: usize, role: Role, why: Ignored) -> Event {
    Event {
        line,
        pid: None,
        role,
        level: None,
        hms: None,
        envelope: None,
        kind: EventKind::Ignored(why),
    }
}

fn interpret(bytes: &[u8], line: usize, role: Role, last_unterminated: bool) -> Event {
    if bytes.contains(&0) {
        return ignored(line, role, Ignored::Binary);
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return ignored(line, role, Ignored::NotUtf8);
    };
    let cut = if last_unterminated {
        Ignored::Cut
    } else {
        Ignored::Noise
    };
    match classify(text) {
        Line::Blank => ignored(line, role, Ignored::Blank),
        Line::Marker => ignored(line, role, Ignored::Marker),
        Line::Foreign { .. } => ignored(
            line,
            role,
            if last_unterminated {
                Ignored::Cut
            } else {
                Ignored::Foreign
            },
        ),
        Line::Noise => ignored(line, role, cut),
        Line::TranscriptText(body) => match TranscriptVerify::parse(body) {
            Some(t) => Event {
                line,
                pid: None,
                role,
                level: None,
                hms: None,
                envelope: Some(EnvelopeKind::Transcript),
                kind: EventKind::Transcript(t),
            },
            None => ignored(line, role, cut),
        },
        Line::Record(r) => record(r, line, role),
    }
}

fn record(r: Record<'_>, line: usize, default_role: Role) -> Event {
    let role = match r.header {
        // Under `inproc` the server role is the `mgl-srv-apply` thread of the same process.
        Some(h) if h.thread.starts_with("mgl-srv") => Role::Server,
        _ => default_role,
    };
    let msg = r.msg;
    let kind = if msg.starts_with(WINDOW_PREFIX) {
        match Window::parse(msg) {
            Ok(w) => EventKind::Window(w),
            Err(e) => EventKind::BadWindow(e),
        }
    } else if let Some(b) = Banner::parse(msg) {
        EventKind::Banner(b)
    } else if let Some(a) = VerifyArmed::parse(msg) {
        EventKind::VerifyArmed(a)
    } else if let Some(t) = (r.envelope == EnvelopeKind::Transcript)
        .then(|| TranscriptVerify::parse(msg))
        .flatten()
    {
        EventKind::Transcript(t)
    } else if let Some(f) = Fatal::find(msg) {
        EventKind::Fatal(f)
    } else if let Some(p) = msg.strip_prefix("MGPipe stats: wrote JSON dump to ") {
        EventKind::DumpWritten(p.trim_end().to_string())
    } else if let Some(field) = msg.strip_prefix("MGPipe: verify corruption armed - ") {
        EventKind::VerifyCorruptionArmed(field.trim_end().to_string())
    } else if let Some(n) = msg
        .strip_prefix("MGPipe: verify summary - ")
        .and_then(|r| r.split_once(' '))
        .and_then(|(n, _)| n.parse().ok())
    {
        EventKind::VerifySummary(n)
    } else if let Some(rest) = msg
        .strip_prefix("PipeStats: ")
        .filter(|r| r.contains("MOBILEGL_PIPE_STATS_FILE='"))
    {
        let path = rest
            .split_once('\'')
            .and_then(|(_, r)| r.split_once('\''))
            .map(|(p, _)| p.to_string())
            .unwrap_or_default();
        EventKind::DumpFailed {
            path,
            message: msg.to_string(),
        }
    } else {
        EventKind::Other
    };
    let hms = match (&kind, r.header) {
        (EventKind::Other, _) | (_, None) => None,
        (_, Some(h)) => Some(h.hms.to_string()),
    };
    Event {
        line,
        pid: r.pid,
        role,
        level: r.level,
        hms,
        envelope: Some(r.envelope),
        kind,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn feed_in_odd_chunks_equals_lines() {
        let text = b"[10:00:00] [Linux t/INFO]: MGPipe stats: counters ON (MOBILEGL_PIPE_STATS), summary every 60 frames\r\n--------- beginning of main\nnoise\n11-30 10:04:48.5";
        let mut whole = Vec::new();
        let mut p = LogParser::new(Role::Main);
        p.feed(text, &mut |e| whole.push(e));
        p.finish(&mut |e| whole.push(e));
        for size in 1..7 {
            let mut got = Vec::new();
            let mut p = LogParser::new(Role::Main);
            for c in text.chunks(size) {
                p.feed(c, &mut |e| got.push(e));
            }
            p.finish(&mut |e| got.push(e));
            assert_eq!(got, whole);
            assert_eq!(p.crlf_lines(), 1);
        }
        assert_eq!(whole.len(), 4);
        assert!(matches!(
            whole[0].kind,
            EventKind::Banner(Banner {
                period: 60,
                dump: None
            })
        ));
        assert_eq!(whole[1].kind, EventKind::Ignored(Ignored::Marker));
        assert_eq!(whole[2].kind, EventKind::Ignored(Ignored::Noise));
        assert_eq!(whole[3].kind, EventKind::Ignored(Ignored::Cut));
    }

    #[test]
    fn newline_search_agrees_with_position() {
        let text: Vec<u8> = (0..200u32)
            .map(|i| {
                if i % 13 == 5 || i % 29 == 0 {
                    b'\n'
                } else {
                    b'a' + (i % 26) as u8
                }
            })
            .collect();
        for start in 0..text.len() {
            for end in start..text.len().min(start + 40) {
                let s = &text[start..end];
                assert_eq!(
                    find_newline(s),
                    s.iter().position(|&c| c == b'\n'),
                    "{start}..{end}"
                );
            }
        }
        assert_eq!(find_newline(b"\x8a\x0a"), Some(1));
        assert_eq!(find_newline(b"abcdefgh\x0b\x09\x0aab"), Some(10));
    }

    #[test]
    fn binary_and_roles() {
        let mut p = LogParser::new(Role::Client);
        assert_eq!(
            p.push_line(b"\x00\x01ELF").kind,
            EventKind::Ignored(Ignored::Binary)
        );
        let e = p.push_line(b"[10:00:00] [Linux mgl-srv-apply/FATAL]: MGPipe: Fatal{X}");
        assert_eq!(e.role, Role::Server);
        assert!(matches!(e.kind, EventKind::Fatal(_)));
        assert_eq!(
            Role::from_path(Path::new("out/mobilegl.server.log")),
            Role::Server
        );
        assert_eq!(
            Role::from_path(Path::new("out/mobilegl.client")),
            Role::Client
        );
        assert_eq!(Role::from_path(Path::new("out/mobilegl.log")), Role::Main);
    }
}
