//! The arm markers a role log carries, found in its raw bytes (one pass per needle), and the
//! pin-evidence rule. What they prove is decided in `analyse`.

use memchr::memmem;

/// A marker line: its 1-based line number and its text from the marker on (trimmed).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct MarkerLine {
    pub line: usize,
    pub text: String,
}

/// The arm-proof lines of one role log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Markers {
    /// Every `Config: MOBILEGL_TRANSPORT=<value>` (value only).
    pub transport: Vec<MarkerLine>,
    /// Every `Config: IPC …` line (from `Config: IPC`).
    pub ipc: Vec<MarkerLine>,
    /// `spawn ARMED - the server role runs in pid N`: the line and N.
    pub spawn_armed: Option<(usize, u32)>,
    /// `control=tcp data=stream server=<endpoint> pid=N` (a spawn+tcp session): the line and N.
    pub tcp_session: Option<(usize, u32)>,
}

pub(crate) const TRANSPORT: &str = "Config: MOBILEGL_TRANSPORT=";
pub(crate) const IPC: &str = "Config: IPC";
pub(crate) const SPAWN_ARMED: &str = "spawn ARMED - the server role runs in pid ";
pub(crate) const TCP_SESSION: &str = "control=tcp data=stream server=";
/// The split knobs the acceptance lanes hand every split arm (`ab_session.py` SPLIT_KNOBS).
pub(crate) const KNOBS: [&str; 3] = ["strict=1", "role-split-state=1", "run-ahead=1"];

/// Line numbers for ascending byte offsets, counting newlines once over the buffer.
struct Lines<'a> {
    bytes: &'a [u8],
    pos: usize,
    line: usize,
}

impl Lines<'_> {
    fn at(&mut self, off: usize) -> usize {
        if off < self.pos {
            self.pos = 0;
            self.line = 1;
        }
        self.line += memchr::memchr_iter(b'\n', &self.bytes[self.pos..off]).count();
        self.pos = off;
        self.line
    }
}

fn rest_of_line(bytes: &[u8], from: usize) -> &[u8] {
    let end = memchr::memchr(b'\n', &bytes[from..]).map_or(bytes.len(), |e| from + e);
    &bytes[from..end]
}

impl Markers {
    /// Scans a whole log. Cheap next to parsing: each needle is one `memmem` pass.
    pub fn scan(bytes: &[u8]) -> Markers {
        let mut m = Markers::default();
        let mut lines = Lines {
            bytes,
            pos: 0,
            line: 1,
        };
        for off in memmem::find_iter(bytes, TRANSPORT.as_bytes()) {
            let value = rest_of_line(bytes, off + TRANSPORT.len());
            let value = String::from_utf8_lossy(value);
            let value = value.split_whitespace().next().unwrap_or("").to_string();
            m.transport.push(MarkerLine {
                line: lines.at(off),
                text: value,
            });
        }
        for off in memmem::find_iter(bytes, IPC.as_bytes()) {
            let text = String::from_utf8_lossy(rest_of_line(bytes, off))
                .trim_end()
                .to_string();
            m.ipc.push(MarkerLine {
                line: lines.at(off),
                text,
            });
        }
        if let Some(off) = memmem::find(bytes, SPAWN_ARMED.as_bytes()) {
            let digits: String = rest_of_line(bytes, off + SPAWN_ARMED.len())
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .map(|&b| char::from(b))
                .collect();
            if let Ok(pid) = digits.parse::<u32>() {
                m.spawn_armed = Some((lines.at(off), pid));
            }
        }
        if let Some(off) = memmem::find(bytes, TCP_SESSION.as_bytes()) {
            let rest = String::from_utf8_lossy(rest_of_line(bytes, off)).into_owned();
            let pid = rest
                .split_whitespace()
                .find_map(|w| w.strip_prefix("pid="))
                .and_then(|p| p.parse::<u32>().ok());
            if let Some(pid) = pid {
                m.tcp_session = Some((lines.at(off), pid));
            }
        }
        m
    }
}

/// Does pin evidence say PINNED? The word `PINNED` must appear, and no `UNPINNED`, `NOT PINNED`,
/// `NOT_PINNED`, `FAIL` or `ERROR` word may (pin_device.sh prints `PINNED` only when every
/// policy held its floor and ceiling).
pub(crate) fn pinned(text: &str) -> Result<(), NotPinned> {
    let upper = text.to_ascii_uppercase();
    let words: Vec<&str> = upper
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    for (i, w) in words.iter().enumerate() {
        let negated = matches!(*w, "UNPINNED" | "NOT_PINNED" | "FAIL" | "FAILED" | "ERROR")
            || (*w == "PINNED" && i > 0 && words[i - 1] == "NOT");
        if negated {
            let shown = text
                .lines()
                .find(|l| l.to_ascii_uppercase().contains(w))
                .unwrap_or(w)
                .trim();
            return Err(NotPinned::Negated {
                line: shown.to_string(),
            });
        }
    }
    if words.contains(&"PINNED") {
        Ok(())
    } else {
        Err(NotPinned::Silent)
    }
}

/// Why pin evidence does not say PINNED.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum NotPinned {
    /// Its line that negates it.
    #[error("says `{line}`")]
    Negated { line: String },
    #[error("does not say PINNED")]
    Silent,
}
