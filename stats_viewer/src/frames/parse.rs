//! Role logs to [`RoleLog`]s, line by line as `frame_stats.py` reads them: the text decoded with
//! `errors="replace"` (invalid sequences counted), split as `str.splitlines()` splits, a row
//! taken from the first marker on a line, fields found as `re.findall(r"(\w+)=([^\s]+)")` finds
//! them (the last of a repeated key wins), integers read as `int()` reads them.
//!
//! Where Python would read something mgctl cannot reproduce exactly (digits outside ASCII, a value
//! beyond 64 bits, a field name glued to a non-ASCII letter that Python's `\w` may not count as a
//! word character), the row is refused with its line rather than read differently.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::Path;

use super::model::{BadBytes, FrameRow, RoleLog, Side, Skipped};
use crate::Error;

/// Reads one role log. `path` names the log in messages; `bytes` is its whole content.
pub fn read_frames(path: &Path, bytes: &[u8], side: Side) -> Result<RoleLog, Error> {
    if let Some(at) = memchr::memchr(0, bytes) {
        let line = 1 + memchr::memchr_iter(b'\n', &bytes[..at]).count();
        return Err(Error::Binary {
            path: path.to_path_buf(),
            line,
        });
    }
    let (text, bad_bytes) = decode(bytes);
    let marker = side.marker();
    let finder = memchr::memmem::Finder::new(marker.as_bytes());
    let mut log = RoleLog {
        path: path.to_path_buf(),
        side,
        bytes: bytes.len(),
        lines: physical_lines(bytes),
        marker_lines: 0,
        frames: BTreeMap::new(),
        skipped: Skipped::default(),
        bad_bytes,
    };
    for (line, text) in lines(&text) {
        let Some(at) = finder.find(text.as_bytes()) else {
            continue;
        };
        log.marker_lines += 1;
        let f = fields(&text[at + marker.len()..], side).map_err(|reason| Error::FrameRow {
            path: path.to_path_buf(),
            line,
            marker: side.marker_name(),
            reason: reason.to_string(),
        })?;
        let usable = match side {
            Side::Server => f.valid == Some("1"),
            Side::Client => f.kind == Some("frame"),
        };
        if !usable {
            log.skipped.rows += 1;
            log.skipped.first_line.get_or_insert(line);
            if side == Side::Server {
                if let Some(n) = f.frame.and_then(|v| py_int(v).ok()) {
                    let valid = match f.valid {
                        Some(v) => format!("valid={}", quoted(v)),
                        None => "no `valid` field".to_string(),
                    };
                    log.skipped.invalid_server.entry(n).or_insert((line, valid));
                }
            }
            continue;
        }
        let row = row(&f, side, line).map_err(|reason| Error::FrameRow {
            path: path.to_path_buf(),
            line,
            marker: side.marker_name(),
            reason: reason.to_string(),
        })?;
        if let Some(first) = log.frames.get(&row.frame) {
            return Err(Error::DuplicateFrame {
                path: path.to_path_buf(),
                line,
                frame: row.frame,
                first_line: first.line,
            });
        }
        if let Some(reason) = clock_problem(&row, side) {
            return Err(Error::InvalidClocks {
                path: path.to_path_buf(),
                line,
                frame: row.frame,
                reason,
            });
        }
        log.frames.insert(row.frame, row);
    }
    if log.frames.is_empty() {
        let reason = if log.marker_lines == 0 {
            format!("no line holds `{marker}`")
        } else {
            let what = match side {
                Side::Client => "kind is not `frame`",
                Side::Server => "valid is not `1`",
            };
            format!(
                "{} marker lines, every one skipped because its {what}",
                log.marker_lines
            )
        };
        return Err(Error::NoFrames {
            path: path.to_path_buf(),
            marker: side.marker_name(),
            reason,
        });
    }
    Ok(log)
}

/// The fields of a row that the script reads (`None` when absent).
#[derive(Debug, Default, PartialEq, Eq)]
struct Fields<'a> {
    kind: Option<&'a str>,
    valid: Option<&'a str>,
    frame: Option<&'a str>,
    wall: Option<&'a str>,
    cpu: Option<&'a str>,
    transport: Option<&'a str>,
}

/// Why a marker row, or one of its values, cannot be read as the script reads it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum RowError {
    #[error("no `{field}` field")]
    Missing { field: String },
    #[error("`{field}={}`: {reason}", quoted(.value))]
    BadValue {
        field: String,
        value: String,
        reason: Box<RowError>,
    },
    #[error("field name `{}` ends in `{tail}` after a non-ASCII character: whether Python's \\w joins them is not known to mgctl", quoted(.key))]
    AmbiguousKey { key: String, tail: String },
    #[error("not an integer")]
    NotAnInteger,
    #[error("beyond 64 bits")]
    Beyond64Bits,
    #[error("digits outside ASCII (Python may read them; mgctl does not)")]
    NonAsciiDigits,
}

fn row(f: &Fields<'_>, side: Side, line: usize) -> Result<FrameRow, RowError> {
    let int = |v: Option<&str>, name: &str| -> Result<i64, RowError> {
        let v = v.ok_or_else(|| RowError::Missing {
            field: name.to_string(),
        })?;
        py_int(v).map_err(|reason| RowError::BadValue {
            field: name.to_string(),
            value: v.to_string(),
            reason: Box::new(reason),
        })
    };
    // The script's order: frame, wall_ns, the CPU clock, transport_wait_ns (the client only).
    let frame = int(f.frame, "frame")?;
    let wall_ns = int(f.wall, "wall_ns")?;
    let cpu_ns = int(f.cpu, side.cpu_field())?;
    let transport_ns = match side {
        Side::Server => 0,
        Side::Client => int(f.transport, "transport_wait_ns")?,
    };
    Ok(FrameRow {
        frame,
        line,
        wall_ns,
        cpu_ns,
        transport_ns,
    })
}

/// The script's clock check, first failing condition first; `None` when the row is valid. The wall
/// and thread-CPU clocks are sampled separately, so CPU and transport wait may exceed the wall
/// time by `max(100 µs, wall / 100)`.
fn clock_problem(r: &FrameRow, side: Side) -> Option<String> {
    let wall = i128::from(r.wall_ns);
    let tolerance = wall.div_euclid(100).max(100_000);
    let limit = wall + tolerance;
    let (cpu, transport) = (i128::from(r.cpu_ns), i128::from(r.transport_ns));
    let cpu_field = side.cpu_field();
    if r.frame <= 0 {
        Some(format!("frame id {} is not positive", r.frame))
    } else if wall <= 0 {
        Some(format!("wall_ns={wall} is not positive"))
    } else if cpu <= 0 {
        Some(format!("{cpu_field}={cpu} is not positive"))
    } else if cpu > limit {
        Some(format!(
            "{cpu_field}={cpu} exceeds wall_ns={wall} + tolerance {tolerance} ns"
        ))
    } else if transport < 0 {
        Some(format!("transport_wait_ns={transport} is negative"))
    } else if transport > limit {
        Some(format!(
            "transport_wait_ns={transport} exceeds wall_ns={wall} + tolerance {tolerance} ns"
        ))
    } else {
        None
    }
}

/// Input text in a message: escaped for a terminal, in backticks.
fn quoted(v: &str) -> String {
    diag::escape::terminal(v).into_owned()
}

/// Python's `\w` (str.isalnum() or `_`), as far as Rust's tables tell it: ASCII exactly; beyond
/// ASCII Rust's alphanumeric set holds Python's and a few combining marks more (see [`fields`]).
fn is_word(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// Python's `\s` (str.isspace()): Unicode White_Space plus U+001C..U+001F (bidi class B and S).
fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// `re.findall(r"(\w+)=([^\s]+)", text)` into a dict (the last of a repeated key wins), keeping
/// the keys the script reads for `side`.
///
/// findall tries each position in turn: a run of word characters matches only if `=` and at least
/// one non-space character follow it, and every later start inside the same run fails the same
/// way, so a key is always a whole run. A run holding a non-ASCII character whose tail after it
/// is a wanted key is refused: Rust counts a few combining marks as alphanumeric that Python does
/// not, and the key Python sees would depend on it.
fn fields(text: &str, side: Side) -> Result<Fields<'_>, RowError> {
    let mut f = Fields::default();
    let mut i = 0;
    while let Some(c) = text[i..].chars().next() {
        if !is_word(c) {
            i += c.len_utf8();
            continue;
        }
        let start = i;
        let end = text[start..]
            .char_indices()
            .find(|&(_, c)| !is_word(c))
            .map_or(text.len(), |(at, _)| start + at);
        i = end;
        let Some(after) = text[end..].strip_prefix('=') else {
            continue;
        };
        let len = after
            .char_indices()
            .find(|&(_, c)| is_space(c))
            .map_or(after.len(), |(at, _)| at);
        if len == 0 {
            continue;
        }
        let (key, value) = (&text[start..end], &after[..len]);
        i = end + 1 + len;
        let slot = match slot(&mut f, key, side) {
            Some(slot) => slot,
            None => {
                if !key.is_ascii() {
                    let tail = key
                        .char_indices()
                        .filter(|(_, c)| !c.is_ascii())
                        .map(|(at, c)| &key[at + c.len_utf8()..])
                        .find(|t| wanted(t, side));
                    if let Some(t) = tail {
                        return Err(RowError::AmbiguousKey {
                            key: key.to_string(),
                            tail: t.to_string(),
                        });
                    }
                }
                continue;
            }
        };
        *slot = Some(value);
    }
    Ok(f)
}

fn wanted(key: &str, side: Side) -> bool {
    let mut f = Fields::default();
    slot(&mut f, key, side).is_some()
}

fn slot<'f, 'a>(f: &'f mut Fields<'a>, key: &str, side: Side) -> Option<&'f mut Option<&'a str>> {
    match (key, side) {
        ("kind", Side::Client) => Some(&mut f.kind),
        ("valid", Side::Server) => Some(&mut f.valid),
        ("frame", _) => Some(&mut f.frame),
        ("wall_ns", _) => Some(&mut f.wall),
        ("client_thread_cpu_ns", Side::Client) | ("apply_thread_cpu_ns", Side::Server) => {
            Some(&mut f.cpu)
        }
        ("transport_wait_ns", Side::Client) => Some(&mut f.transport),
        _ => None,
    }
}

/// Python's `int(v)` for a value without whitespace: an optional sign, decimal digits, single
/// underscores between digits, leading zeros allowed. Digits outside ASCII and values beyond i64
/// are refused (Python reads them; mgctl will not read them differently).
pub(crate) fn py_int(v: &str) -> Result<i64, RowError> {
    let (negative, digits) = match v.as_bytes().first() {
        Some(b'-') => (true, &v[1..]),
        Some(b'+') => (false, &v[1..]),
        _ => (false, v),
    };
    if digits.is_empty() {
        return Err(RowError::NotAnInteger);
    }
    let mut n: i128 = 0;
    let mut last_underscore = true; // a leading `_` is refused like a doubled one
    for c in digits.chars() {
        match c {
            '0'..='9' => {
                n = n
                    .checked_mul(10)
                    .and_then(|n| n.checked_add(i128::from(c as u8 - b'0')))
                    .ok_or(RowError::Beyond64Bits)?;
                last_underscore = false;
            }
            '_' if !last_underscore => last_underscore = true,
            c if c.is_numeric() => return Err(RowError::NonAsciiDigits),
            _ => return Err(RowError::NotAnInteger),
        }
        if n > i128::from(i64::MAX) + 1 {
            return Err(RowError::Beyond64Bits);
        }
    }
    if last_underscore {
        return Err(RowError::NotAnInteger);
    }
    let n = if negative { -n } else { n };
    i64::try_from(n).map_err(|_| RowError::Beyond64Bits)
}

/// The bytes as Python's `decode("utf-8", errors="replace")` gives them (one U+FFFD per maximal
/// invalid sequence, as Rust's lossy decoding), with the replacements counted by line.
fn decode(bytes: &[u8]) -> (Cow<'_, str>, BadBytes) {
    let mut bad = BadBytes::default();
    if let Ok(text) = std::str::from_utf8(bytes) {
        return (Cow::Borrowed(text), bad);
    }
    let mut text = String::with_capacity(bytes.len() + 16);
    let mut line = 1;
    let mut last_bad_line = 0;
    for chunk in bytes.utf8_chunks() {
        let valid = chunk.valid();
        line += memchr::memchr_iter(b'\n', valid.as_bytes()).count();
        text.push_str(valid);
        if !chunk.invalid().is_empty() {
            text.push('\u{FFFD}');
            bad.sequences += 1;
            if line != last_bad_line {
                bad.lines += 1;
                last_bad_line = line;
            }
            bad.first_line.get_or_insert(line);
        }
    }
    (Cow::Owned(text), bad)
}

/// Lines counted by `\n`, a last line without one included.
fn physical_lines(bytes: &[u8]) -> usize {
    let n = memchr::memchr_iter(b'\n', bytes).count();
    n + usize::from(bytes.last().is_some_and(|&b| b != b'\n'))
}

/// `str.splitlines()`: breaks at `\n`, `\r\n`, `\r`, `\v`, `\f`, U+001C..U+001E, U+0085, U+2028
/// and U+2029; no empty line after a final break. Each line comes with its physical line number
/// (counted by `\n`, as editors and `sed` count), so a lone `\r` does not shift the numbers.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let b = text.as_bytes();
    let (mut start, mut i, mut physical) = (0, 0, 1);
    std::iter::from_fn(move || {
        while i < b.len() {
            let (len, newline) = match b[i] {
                b'\n' => (1, true),
                b'\r' if b.get(i + 1) == Some(&b'\n') => (2, true),
                b'\r' | 0x0b | 0x0c | 0x1c..=0x1e => (1, false),
                0xC2 if b.get(i + 1) == Some(&0x85) => (2, false),
                0xE2 if b.get(i + 1) == Some(&0x80)
                    && matches!(b.get(i + 2), Some(0xA8 | 0xA9)) =>
                {
                    (3, false)
                }
                _ => {
                    i += 1;
                    continue;
                }
            };
            let item = (physical, &text[start..i]);
            i += len;
            start = i;
            if newline {
                physical += 1;
            }
            return Some(item);
        }
        if start < b.len() {
            let item = (physical, &text[start..]);
            start = b.len();
            return Some(item);
        }
        None
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(text: &str) -> Result<RoleLog, Error> {
        read_frames(Path::new("c.log"), text.as_bytes(), Side::Client)
    }

    fn server(text: &str) -> Result<RoleLog, Error> {
        read_frames(Path::new("s.log"), text.as_bytes(), Side::Server)
    }

    #[test]
    fn splitlines_like_python() {
        let got: Vec<_> = lines("a\nb\r\nc\rd\u{2028}e\x0bf\n\ng").collect();
        assert_eq!(
            got,
            [
                (1, "a"),
                (2, "b"),
                (3, "c"),
                (3, "d"),
                (3, "e"),
                (3, "f"),
                (4, ""),
                (5, "g")
            ]
        );
        assert_eq!(lines("x\n").count(), 1);
        assert_eq!(lines("").count(), 0);
    }

    #[test]
    fn findall_like_python() {
        // `x-frame=5`: the run `x` fails at `-`, then `frame=5` matches.
        let f = fields(
            "x-frame=5 wall_ns= 7 wall_ns==8 junk kind=a kind=frame",
            Side::Client,
        );
        let f = f.expect("fields");
        assert_eq!(f.frame, Some("5"));
        assert_eq!(f.wall, Some("=8"), "the last key wins; `= 7` is no match");
        assert_eq!(f.kind, Some("frame"));
        // A longer run is a different key.
        let f = fields("myframe=5 frame_=6", Side::Client).expect("fields");
        assert_eq!(f.frame, None);
        // A value runs to the next space, `=` and all.
        let f = fields("frame=1=2\twall_ns=3", Side::Client).expect("fields");
        assert_eq!((f.frame, f.wall), (Some("1=2"), Some("3")));
        // Glued to a non-ASCII letter: refused, not guessed.
        assert!(fields("\u{e9}frame=5", Side::Client).is_err());
        assert!(fields("é=5 frame=5", Side::Client).is_ok());
    }

    #[test]
    fn int_like_python() {
        assert_eq!(py_int("007"), Ok(7));
        assert_eq!(py_int("+5"), Ok(5));
        assert_eq!(py_int("-5"), Ok(-5));
        assert_eq!(py_int("1_000"), Ok(1000));
        assert_eq!(py_int("-9223372036854775808"), Ok(i64::MIN));
        for bad in [
            "", "-", "1__0", "_1", "1_", "1.0", "0x10", "1e3", "\u{FFFD}",
        ] {
            assert!(py_int(bad).is_err(), "{bad:?}");
        }
        assert!(py_int("9223372036854775808").is_err());
        assert!(py_int("\u{663}").is_err(), "Arabic-Indic three: refused");
    }

    #[test]
    fn rows_are_read_and_skipped_like_the_script() {
        let log = client(
            "noise\n\
             x P65LinkMetrics kind=link frame=9 wall_ns=1\n\
             I/MobileGL: P65LinkMetrics kind=frame frame=2 wall_ns=1000000 client_thread_cpu_ns=5 transport_wait_ns=0\n\
             P65LinkMetricsX kind=frame frame=3\n",
        )
        .expect("client");
        assert_eq!(log.marker_lines, 2);
        assert_eq!(log.skipped.rows, 1);
        assert_eq!(log.frames.len(), 1);
        assert_eq!(log.frames[&2].line, 3);
        let log = server(
            "P65ServerMetrics frame=1 valid=0 wall_ns=0 apply_thread_cpu_ns=0\n\
             P65ServerMetrics frame=2 valid=1 wall_ns=5000000 apply_thread_cpu_ns=4000000\n",
        )
        .expect("server");
        assert_eq!(log.frames.len(), 1);
        assert_eq!(log.skipped.invalid_server[&1], (1, "valid=0".to_string()));
    }

    #[test]
    fn bad_rows_are_errors_naming_file_line_and_frame() {
        let e = client("a\nP65LinkMetrics kind=frame frame=2 wall_ns=10 client_thread_cpu_ns=1\n")
            .expect_err("missing transport");
        assert_eq!(
            e.to_string(),
            "c.log:2: malformed P65LinkMetrics row: no `transport_wait_ns` field"
        );
        let e = server("P65ServerMetrics frame=2 valid=1 wall_ns=1.5 apply_thread_cpu_ns=1\n")
            .expect_err("float");
        assert!(e
            .to_string()
            .contains("s.log:1: malformed P65ServerMetrics row: `wall_ns=1.5`"));
        let row = "P65ServerMetrics frame=4 valid=1 wall_ns=1000000 apply_thread_cpu_ns=10\n";
        let e = server(&format!("{row}\n{row}")).expect_err("duplicate");
        assert_eq!(
            e.to_string(),
            "s.log:3: duplicate frame 4 (first at line 1)"
        );
        let e = server(
            "P65ServerMetrics frame=4 valid=1 wall_ns=1000000 apply_thread_cpu_ns=1100001\n",
        )
        .expect_err("cpu beyond wall + 100 us");
        assert_eq!(
            e.to_string(),
            "s.log:1: invalid clocks in frame 4: apply_thread_cpu_ns=1100001 exceeds wall_ns=1000000 + tolerance 100000 ns"
        );
        // At the tolerance exactly: valid.
        server("P65ServerMetrics frame=4 valid=1 wall_ns=1000000 apply_thread_cpu_ns=1100000\n")
            .expect("at the tolerance");
        let e = client("P65LinkMetrics kind=frame frame=3 wall_ns=100 client_thread_cpu_ns=5 transport_wait_ns=-1\n")
            .expect_err("negative wait");
        assert!(e
            .to_string()
            .contains("c.log:1: invalid clocks in frame 3: transport_wait_ns=-1 is negative"));
        let e = client("P65LinkMetrics kind=frame frame=0 wall_ns=100 client_thread_cpu_ns=5 transport_wait_ns=1\n")
            .expect_err("frame 0");
        assert!(e
            .to_string()
            .contains("invalid clocks in frame 0: frame id 0 is not positive"));
        let e = client("P65LinkMetrics kind=frame frame=3 wall_ns=-100 client_thread_cpu_ns=5 transport_wait_ns=1\n")
            .expect_err("negative interval");
        assert!(e.to_string().contains("wall_ns=-100 is not positive"));
    }

    #[test]
    fn no_frames_is_an_error_never_an_empty_pass() {
        let e = client("hello\n").expect_err("empty");
        assert_eq!(
            e.to_string(),
            "c.log: no usable P65LinkMetrics frames (no line holds `P65LinkMetrics `)"
        );
        let e = server("P65ServerMetrics frame=1 valid=0 wall_ns=1 apply_thread_cpu_ns=1\n")
            .expect_err("only invalid");
        assert!(e
            .to_string()
            .contains("1 marker lines, every one skipped because its valid is not `1`"));
        let e = read_frames(Path::new("b.log"), b"ok\n\0\x01", Side::Client).expect_err("binary");
        assert_eq!(
            e.to_string(),
            "b.log:2: binary data (NUL byte), not a text log"
        );
    }

    #[test]
    fn bad_bytes_are_counted() {
        let mut bytes = b"x\xff\xfe\n".to_vec();
        bytes.extend_from_slice(
            b"P65LinkMetrics kind=frame frame=1 wall_ns=10 client_thread_cpu_ns=1 transport_wait_ns=1 note=\xc3\n",
        );
        let log = read_frames(Path::new("c.log"), &bytes, Side::Client).expect("read");
        assert_eq!(
            log.bad_bytes,
            BadBytes {
                sequences: 3,
                lines: 2,
                first_line: Some(1)
            }
        );
        assert_eq!(log.frames.len(), 1);
        assert_eq!(log.lines, 2);
    }
}
