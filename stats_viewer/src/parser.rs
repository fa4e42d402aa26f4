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
    /// Longer than the parser's line cap: junk, dropped unread past the cap.
    Overlong,
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
    /// The line was not valid UTF-8 and was decoded lossily (U+FFFD for each bad sequence).
    pub lossy: bool,
}

/// Incremental parser. Feed whole lines with [`LogParser::push_line`] or arbitrary chunks with
/// [`LogParser::feed`], then call [`LogParser::finish`] once at end of input.
#[derive(Debug, Clone)]
pub struct LogParser {
    role: Role,
    line_no: usize,
    partial: Vec<u8>,
    crlf_lines: usize,
    cap: usize,
    /// The current line passed the cap: its bytes are dropped up to its end (`true`: a NUL was seen).
    skipping: Option<bool>,
    /// While skipping: the line's ending `\r` run began and reached the end of the last chunk.
    skip_in_cr: bool,
}

/// Longest line the parser keeps: MobileGL formats a message into a 1,024,000-byte buffer, plus
/// its headers. A longer line is junk (a runaway writer, `/dev/zero`), counted and never held.
pub const DEFAULT_LINE_CAP: usize = 1 << 20;

impl LogParser {
    pub fn new(role: Role) -> Self {
        Self::with_line_cap(role, DEFAULT_LINE_CAP)
    }

    /// A parser whose lines longer than `cap` bytes become [`Ignored::Overlong`] (at least 64).
    pub fn with_line_cap(role: Role, cap: usize) -> Self {
        LogParser {
            role,
            line_no: 0,
            partial: Vec::new(),
            crlf_lines: 0,
            cap: cap.max(64),
            skipping: None,
            skip_in_cr: false,
        }
    }

    /// The line cap in bytes.
    pub fn line_cap(&self) -> usize {
        self.cap
    }

    /// Physical lines seen so far.
    pub fn lines(&self) -> usize {
        self.line_no
    }

    /// Lines that ended in `\r\n`.
    pub fn crlf_lines(&self) -> usize {
        self.crlf_lines
    }

    /// Parses one complete line (with or without its `\n`, `\r\n` or `\r\r\n`).
    pub fn push_line(&mut self, line: &[u8]) -> Event {
        self.line_no += 1;
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let body = trim_cr(line);
        if body.len() < line.len() {
            self.crlf_lines += 1;
        }
        interpret(body, self.line_no, self.role, false)
    }

    /// Feeds a chunk; complete lines become events, the rest waits for the next chunk. A line
    /// ends at `\n` (any `\r`s before it belong to the ending) or at a lone `\r` (old Mac
    /// endings); a line longer than the cap is dropped as it streams and becomes one
    /// [`Ignored::Overlong`] (or [`Ignored::Binary`] when it held a NUL byte) event.
    pub fn feed(&mut self, chunk: &[u8], sink: &mut dyn FnMut(Event)) {
        let mut rest = chunk;
        if self.skipping.is_some() {
            rest = self.skip(rest, sink);
        }
        if self.partial.is_empty() {
            let used = self.split(rest, sink);
            self.hold(&rest[used..]);
        } else {
            // Only the held line's end is copied behind it, and the rest of the chunk is split
            // in place: copying each whole chunk behind the held bytes (a 64 KiB read nearly
            // always ends mid-line) copied the whole input once more (issue 16).
            let k = memchr::memchr(b'\n', rest).map_or(rest.len(), |n| n + 1);
            let (head, tail) = rest.split_at(k);
            let mut buf = std::mem::take(&mut self.partial);
            buf.extend_from_slice(head);
            // `split` resolves every over-long line that ends inside `buf` itself.
            let used = self.split(&buf, sink);
            buf.drain(..used);
            if !tail.is_empty() {
                // `head` ended in `\n`, so `split` took all of `buf` and no line is skipping.
                let used = self.split(tail, sink);
                self.hold(&tail[used..]);
            } else if buf.len() > self.cap {
                self.overflow(&buf);
            } else {
                self.partial = buf;
            }
        }
    }

    /// Keeps an unterminated remainder, unless it already passes the cap.
    fn hold(&mut self, rest: &[u8]) {
        if rest.len() > self.cap {
            self.overflow(rest);
        } else {
            self.partial.extend_from_slice(rest);
        }
    }

    /// The current line passed the cap: remember whether it is binary and drop it as it comes.
    fn overflow(&mut self, held: &[u8]) {
        self.skipping = Some(memchr::memchr(0, held).is_some());
    }

    /// Drops the bytes of an over-long line up to its end; returns what follows it.
    fn skip<'a>(&mut self, data: &'a [u8], sink: &mut dyn FnMut(Event)) -> &'a [u8] {
        let Some(nul) = self.skipping else {
            return data;
        };
        // Where the line's ending starts: already inside a `\r` run, or at the next `\n`/`\r`.
        let at = if self.skip_in_cr {
            Some(0)
        } else {
            memchr::memchr2(b'\n', b'\r', data)
        };
        let Some(i) = at else {
            self.skipping = Some(nul || memchr::memchr(0, data).is_some());
            return &[];
        };
        let binary = nul || memchr::memchr(0, &data[..i]).is_some();
        let mut j = i;
        while data.get(j) == Some(&b'\r') {
            j += 1;
        }
        let end = match data.get(j) {
            // The `\r` run reaches the chunk's end: a `\n` may still follow.
            None if j > i || self.skip_in_cr => {
                self.skipping = Some(binary);
                self.skip_in_cr = true;
                return &[];
            }
            None => j,
            Some(b'\n') => j + 1,
            // A `\r` run not followed by `\n`: the first `\r` alone ends the line.
            Some(_) if self.skip_in_cr => i,
            Some(_) => i + 1,
        };
        self.skipping = None;
        self.skip_in_cr = false;
        self.line_no += 1;
        let why = if binary {
            Ignored::Binary
        } else {
            Ignored::Overlong
        };
        sink(ignored(self.line_no, self.role, why));
        &data[end..]
    }

    /// Emits every complete line of `data`; returns the bytes consumed (an unterminated
    /// remainder, or a `\r` run at the very end that a `\n` may still follow, is left).
    fn split(&mut self, data: &[u8], sink: &mut dyn FnMut(Event)) -> usize {
        let mut start = 0;
        while let Some(off) = memchr::memchr2(b'\n', b'\r', &data[start..]) {
            let i = start + off;
            if i - start > self.cap {
                // Longer than the cap before its end: junk, as if it had streamed past the cap.
                self.skipping = Some(memchr::memchr(0, &data[start..i]).is_some());
                let rest = self.skip(&data[i..], sink);
                start = data.len() - rest.len();
                continue;
            }
            if data[i] == b'\n' {
                sink(self.push_line(&data[start..=i]));
                start = i + 1;
                continue;
            }
            let mut j = i;
            while data.get(j) == Some(&b'\r') {
                j += 1;
            }
            match data.get(j) {
                // The `\r` run reaches the end of the chunk: a `\n` may follow in the next one.
                None => return start,
                Some(b'\n') => {
                    sink(self.push_line(&data[start..=j]));
                    start = j + 1;
                }
                Some(_) => {
                    // A lone `\r` ends a line (CR-only log).
                    self.line_no += 1;
                    sink(interpret(&data[start..i], self.line_no, self.role, false));
                    start = i + 1;
                }
            }
        }
        start
    }

    /// Flushes a last line that had no newline: a record cut mid-line unless it parses whole.
    pub fn finish(&mut self, sink: &mut dyn FnMut(Event)) {
        self.skip_in_cr = false;
        if let Some(nul) = self.skipping.take() {
            self.line_no += 1;
            let why = if nul {
                Ignored::Binary
            } else {
                Ignored::Overlong
            };
            sink(ignored(self.line_no, self.role, why));
        }
        if self.partial.is_empty() {
            return;
        }
        let line = std::mem::take(&mut self.partial);
        let body = trim_cr(&line);
        if body.len() < line.len() {
            // Ended by a `\r` run and then the input ended: a whole line (CR-only log), and each
            // further `\r` an empty line, as `split` would have made them.
            self.line_no += 1;
            sink(interpret(body, self.line_no, self.role, false));
            for _ in 1..line.len() - body.len() {
                self.line_no += 1;
                sink(interpret(b"", self.line_no, self.role, false));
            }
            return;
        }
        self.line_no += 1;
        sink(interpret(body, self.line_no, self.role, true));
    }

    /// Whether an incomplete line is waiting for more input.
    pub fn has_partial(&self) -> bool {
        !self.partial.is_empty()
    }
}

/// `line` without its trailing `\r`s.
fn trim_cr(line: &[u8]) -> &[u8] {
    let mut n = line.len();
    while n > 0 && line[n - 1] == b'\r' {
        n -= 1;
    }
    &line[..n]
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
        lossy: false,
    }
}

fn interpret(bytes: &[u8], line: usize, role: Role, last_unterminated: bool) -> Event {
    if memchr::memchr(0, bytes).is_some() {
        return ignored(line, role, Ignored::Binary);
    }
    // Lines are bytes: one bad byte must not hide a `Fatal{` marker, so decode lossily.
    // Valid UTF-8 (nearly every line) takes the validator's fast path; only a bad line pays for
    // the lossy decoder's chunk walk.
    let (text, lossy) = match std::str::from_utf8(bytes) {
        Ok(s) => (std::borrow::Cow::Borrowed(s), false),
        Err(_) => (String::from_utf8_lossy(bytes), true),
    };
    let mut e = interpret_text(&text, line, role, last_unterminated);
    e.lossy = lossy;
    e
}

fn interpret_text(text: &str, line: usize, role: Role, last_unterminated: bool) -> Event {
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
                lossy: false,
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
        lossy: false,
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

    fn events(text: &[u8], cap: usize, size: usize) -> Vec<Event> {
        let mut got = Vec::new();
        let mut p = LogParser::with_line_cap(Role::Main, cap);
        for c in text.chunks(size) {
            p.feed(c, &mut |e| got.push(e));
        }
        p.finish(&mut |e| got.push(e));
        got
    }

    #[test]
    fn cr_only_cr_cr_lf_and_overlong_lines_in_any_chunking() {
        let long = "x".repeat(300);
        let text = format!("a\rb\r\r\nc\r\n{long}\nd\n{long}\r\n\x00{long}\ne\r");
        let whole = events(text.as_bytes(), 64, text.len());
        let kinds: Vec<_> = whole.iter().map(|e| (e.line, e.kind.clone())).collect();
        let noise = EventKind::Ignored(Ignored::Noise);
        let over = EventKind::Ignored(Ignored::Overlong);
        assert_eq!(
            kinds,
            vec![
                (1, noise.clone()),
                (2, noise.clone()),
                (3, noise.clone()),
                (4, over.clone()),
                (5, noise.clone()),
                (6, over),
                (7, EventKind::Ignored(Ignored::Binary)),
                (8, noise),
            ]
        );
        for size in [1, 2, 3, 7, 64, 65, 200] {
            assert_eq!(events(text.as_bytes(), 64, size), whole, "chunks of {size}");
        }
    }

    #[test]
    fn an_endless_line_is_never_held() {
        let mut p = LogParser::with_line_cap(Role::Main, 1024);
        let zeros = vec![0u8; 64 * 1024];
        let mut got = Vec::new();
        for _ in 0..64 {
            p.feed(&zeros, &mut |e| got.push(e));
            assert!(p.partial.len() <= 1024);
        }
        p.finish(&mut |e| got.push(e));
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].kind, EventKind::Ignored(Ignored::Binary));
    }

    #[test]
    fn a_bad_byte_does_not_hide_a_fatal() {
        let mut p = LogParser::new(Role::Main);
        let e = p.push_line(
            b"[10:00:00] [Linux t/FATAL]: MGPipe: Fatal{PipeVerifyDiffer, \"A\xffB@C\"}\n",
        );
        assert!(e.lossy);
        assert!(matches!(e.kind, EventKind::Fatal(_)), "{e:?}");
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
