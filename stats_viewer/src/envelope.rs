//! The log envelope: what wraps a MobileGL message on its way into a file.
//!
//! A message can arrive bare (another tool stripped everything), behind MobileGL's own header
//! (`[HH:MM:SS] [<OS> <thread>/<LEVEL>]: `, the file sink and console), behind a logcat prefix AND
//! that header (`threadtime`, `time`, `brief`, `tag`, plus the `year`/`usec`/`uid`/`epoch` variants),
//! or inside a `ctest -V` transcript (`NN: -- `). [`classify`] peels all of that off one physical line
//! (already stripped of `\n` and `\r`) without allocating.

/// MobileGL's log level (header `<LEVEL>`, or the logcat priority letter when no header survived).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Level {
    Verbose,
    Debug,
    Info,
    Warn,
    Error,
    Fatal,
}

impl Level {
    fn from_header(s: &str) -> Option<Level> {
        Some(match s {
            "DEBUG" => Level::Debug,
            "INFO" => Level::Info,
            "WARN" => Level::Warn,
            "ERROR" => Level::Error,
            "FATAL" => Level::Fatal,
            _ => return None,
        })
    }

    fn from_priority(c: u8) -> Option<Level> {
        Some(match c {
            b'V' => Level::Verbose,
            b'D' => Level::Debug,
            b'I' => Level::Info,
            b'W' => Level::Warn,
            b'E' => Level::Error,
            b'F' | b'A' => Level::Fatal,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Level::Verbose => "VERBOSE",
            Level::Debug => "DEBUG",
            Level::Info => "INFO",
            Level::Warn => "WARN",
            Level::Error => "ERROR",
            Level::Fatal => "FATAL",
        }
    }
}

/// Which wrapper the message arrived in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EnvelopeKind {
    /// `adb logcat` (any of its formats) with the `MobileGL` tag.
    Logcat,
    /// MobileGL's own header only: the file sink or a console capture.
    Header,
    /// A `ctest -V` transcript line (`NN: -- …`).
    Transcript,
    /// A bare message starting with `MGPipe`/`PipeStats:`/`Fatal{`.
    Raw,
}

/// MobileGL's own line header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header<'a> {
    pub hms: &'a str,
    pub os: &'a str,
    /// Thread name (may contain spaces; at most 15 bytes on Linux/Android).
    pub thread: &'a str,
    pub level: Level,
}

/// One MobileGL record with its envelope peeled off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record<'a> {
    pub envelope: EnvelopeKind,
    /// Logcat pid (None outside logcat).
    pub pid: Option<u32>,
    pub tid: Option<u32>,
    pub header: Option<Header<'a>>,
    pub level: Option<Level>,
    /// The message, header and stack-trace indentation removed.
    pub msg: &'a str,
}

/// What one physical line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line<'a> {
    Record(Record<'a>),
    /// `--------- beginning of main` and friends.
    Marker,
    /// A logcat record of another tag (ActivityManager, libc, chatty…).
    Foreign {
        tag: &'a str,
    },
    /// A transcript line that is not a MobileGL record (CMake text, ctest status lines).
    TranscriptText(&'a str),
    /// Anything else: continuation lines, unknown tools' output, a cut logcat prefix.
    Noise,
    Blank,
}

/// Classifies one physical line (without its line terminator).
pub fn classify(line: &str) -> Line<'_> {
    let line = line.strip_prefix('\u{feff}').unwrap_or(line);
    if line.trim().is_empty() {
        return Line::Blank;
    }
    let bytes = line.as_bytes();
    if line.starts_with("--------- ") {
        return Line::Marker;
    }
    if bytes[0] == b'[' {
        return match header(line) {
            Some((h, msg)) => Line::Record(Record {
                envelope: EnvelopeKind::Header,
                pid: None,
                tid: None,
                header: Some(h),
                level: Some(h.level),
                msg,
            }),
            None => Line::Noise,
        };
    }
    if let Some(rest) = transcript_prefix(line) {
        return transcript(rest);
    }
    if bytes[0].is_ascii_digit() {
        return logcat_dated(line).unwrap_or(Line::Noise);
    }
    if bytes.len() > 2 && bytes[1] == b'/' && Level::from_priority(bytes[0]).is_some() {
        return logcat_brief(line, None).unwrap_or(Line::Noise);
    }
    if is_raw_message(line) {
        return Line::Record(Record {
            envelope: EnvelopeKind::Raw,
            pid: None,
            tid: None,
            header: None,
            level: None,
            msg: line,
        });
    }
    Line::Noise
}

fn is_raw_message(msg: &str) -> bool {
    msg.starts_with("MGPipe") || msg.starts_with("PipeStats:") || msg.starts_with("Fatal{")
}

/// `[HH:MM:SS] [<OS> <thread>/<LEVEL>]: <message>` → header and message.
pub fn header(line: &str) -> Option<(Header<'_>, &str)> {
    let b = line.as_bytes();
    if b.len() < 13 || b[0] != b'[' || b[9] != b']' || b[10] != b' ' || b[11] != b'[' {
        return None;
    }
    let hms = &line[1..9];
    let hb = hms.as_bytes();
    if !(hb[2] == b':'
        && hb[5] == b':'
        && [0, 1, 3, 4, 6, 7].iter().all(|&i| hb[i].is_ascii_digit()))
    {
        return None;
    }
    let rest = &line[12..];
    let close =
        find_bracket_colon_space(rest).or_else(|| rest.strip_suffix("]:").map(|r| r.len()))?;
    let inside = &rest[..close];
    let msg = rest.get(close + 3..).unwrap_or("");
    let (os, after_os) = inside.split_once(' ')?;
    let slash = after_os.rfind('/')?;
    let thread = &after_os[..slash];
    let level = Level::from_header(&after_os[slash + 1..])?;
    // Stack-trace builds indent the message by 4 spaces per frame.
    Some((
        Header {
            hms,
            os,
            thread,
            level,
        },
        msg.trim_start_matches(' '),
    ))
}

fn transcript_prefix(line: &str) -> Option<&str> {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    line[digits..].strip_prefix(": ")
}

fn transcript(rest: &str) -> Line<'_> {
    let body = rest.trim_start();
    let body = body.strip_prefix("-- ").unwrap_or(body);
    if body.starts_with('[') {
        if let Some((h, msg)) = header(body) {
            return Line::Record(Record {
                envelope: EnvelopeKind::Transcript,
                pid: None,
                tid: None,
                header: Some(h),
                level: Some(h.level),
                msg,
            });
        }
    }
    if body.starts_with("MGPipe verify:") || body.starts_with("MGPipe split:") {
        return Line::Record(Record {
            envelope: EnvelopeKind::Transcript,
            pid: None,
            tid: None,
            header: None,
            level: None,
            msg: body,
        });
    }
    Line::TranscriptText(body)
}

/// Splits off the next whitespace-separated token: (token, rest after the following spaces).
/// The first `": "` in `s` (what `s.find(": ")` returns), by memchr on `:`: every line pays for
/// this search, and a substring searcher's setup costs more than the search.
fn find_colon_space(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    memchr::memchr_iter(b':', b).find(|&i| b.get(i + 1) == Some(&b' '))
}

/// The first `"]: "` in `s` (what `s.find("]: ")` returns).
fn find_bracket_colon_space(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    memchr::memchr_iter(b']', b).find(|&i| b.get(i + 1..i + 3) == Some(b": ".as_slice()))
}

fn token(s: &str) -> Option<(&str, &str)> {
    let b = s.as_bytes();
    let start = b.iter().position(|&c| c != b' ')?;
    let end = b[start..]
        .iter()
        .position(|&c| c == b' ')
        .map_or(b.len(), |p| start + p);
    Some((&s[start..end], &s[end..]))
}

fn is_date_or_time(t: &str) -> bool {
    t.bytes()
        .all(|c| c.is_ascii_digit() || c == b'-' || c == b':' || c == b'.')
}

/// Logcat formats that start with a date or an epoch: `threadtime`, `time` and their variants.
fn logcat_dated(line: &str) -> Option<Line<'_>> {
    threadtime(line).or_else(|| dated_walk(line))
}

/// [`logcat_dated`] by tokens: every dated layout.
fn dated_walk(line: &str) -> Option<Line<'_>> {
    let mut rest = line;
    let mut stamps = 0;
    // Date, time (or one epoch stamp); `-v zone` adds a zone token like `+0100`.
    while let Some((t, r)) = token(rest) {
        if stamps < 3
            && is_date_or_time(t)
            && (t.contains('-') || t.contains(':') || t.contains('.'))
        {
            stamps += 1;
            rest = r;
            continue;
        }
        if stamps > 0 && (t.starts_with('+') || t.starts_with('-')) && t.len() == 5 {
            rest = r;
            continue;
        }
        break;
    }
    if stamps == 0 {
        return None;
    }
    let rest = rest.trim_start_matches(' ');
    let b = rest.as_bytes();
    if b.len() > 2 && b[1] == b'/' && Level::from_priority(b[0]).is_some() {
        return logcat_brief(rest, None);
    }
    // threadtime: [uid] pid tid P tag: msg
    let mut nums: [Option<u32>; 3] = [None; 3];
    let mut n = 0;
    let mut cur = rest;
    loop {
        let (t, r) = token(cur)?;
        if t.len() == 1 {
            let level = Level::from_priority(t.as_bytes()[0])?;
            if n < 2 {
                return None;
            }
            let (pid, tid) = (nums[n - 2], nums[n - 1]);
            let r = r.strip_prefix(' ')?;
            let colon = find_colon_space(r).or_else(|| r.strip_suffix(':').map(str::len))?;
            let tag = r[..colon].trim_end();
            let msg = r.get(colon + 2..).unwrap_or("");
            return Some(tagged(tag, pid, tid, level, msg));
        }
        if n == 3 {
            return None;
        }
        // uid may be a name (`u0_a211`, `root`); pid and tid are decimal.
        nums[n] = t.parse().ok();
        if nums[n].is_none() && n > 0 {
            return None;
        }
        n += 1;
        cur = r;
    }
}

/// `adb logcat`'s default layout, `MM-DD HH:MM:SS.mmm  pid  tid P tag: msg`, read at fixed
/// offsets: nearly every line of a capture has it, and the general token walk of
/// [`logcat_dated`] costs several times more. `None` unless the line has exactly that shape (pid
/// and tid of 2 to 9 digits, so no parse can fail), and then the general walk decides; when it
/// is `Some`, the walk gives the same line.
fn threadtime(line: &str) -> Option<Line<'_>> {
    const STAMP: &[u8; 19] = b"00-00 00:00:00.000 ";
    let b = line.as_bytes();
    let stamp = b.get(..STAMP.len())?;
    let shaped = stamp.iter().zip(STAMP).all(|(&c, &p)| {
        if p == b'0' {
            c.is_ascii_digit()
        } else {
            c == p
        }
    });
    if !shaped {
        return None;
    }
    // pid, tid: spaces, then 2..=9 digits, each.
    let mut i = STAMP.len();
    let mut nums = [0u32; 2];
    for n in &mut nums {
        while b.get(i) == Some(&b' ') {
            i += 1;
        }
        let digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        if !(2..=9).contains(&digits) || b.get(i + digits) != Some(&b' ') {
            return None;
        }
        *n = line[i..i + digits].parse().ok()?;
        i += digits + 1;
    }
    // One priority letter between single spaces; more spaces before it are the walk's to read.
    let level = Level::from_priority(*b.get(i)?)?;
    if b.get(i + 1) != Some(&b' ') {
        return None;
    }
    let r = &line[i + 2..];
    let colon = find_colon_space(r).or_else(|| r.strip_suffix(':').map(str::len))?;
    let tag = r[..colon].trim_end();
    let msg = r.get(colon + 2..).unwrap_or("");
    Some(tagged(tag, Some(nums[0]), Some(nums[1]), level, msg))
}

/// `P/Tag(pid): msg` (brief, time) or `P/Tag: msg` (tag).
fn logcat_brief(s: &str, _pid: Option<u32>) -> Option<Line<'_>> {
    let level = Level::from_priority(s.as_bytes()[0])?;
    let rest = &s[2..];
    let colon = rest
        .find(": ")
        .or_else(|| rest.strip_suffix(':').map(str::len))?;
    let head = &rest[..colon];
    let msg = rest.get(colon + 2..).unwrap_or("");
    let (tag, pid) = match head.rfind('(') {
        Some(open) if head.ends_with(')') => {
            let p = head[open + 1..head.len() - 1].trim();
            (head[..open].trim_end(), p.parse().ok())
        }
        _ => (head.trim_end(), None),
    };
    Some(tagged(tag, pid, None, level, msg))
}

fn tagged<'a>(
    tag: &'a str,
    pid: Option<u32>,
    tid: Option<u32>,
    level: Level,
    msg: &'a str,
) -> Line<'a> {
    if tag != "MobileGL" {
        return Line::Foreign { tag };
    }
    match header(msg) {
        Some((h, m)) => Line::Record(Record {
            envelope: EnvelopeKind::Logcat,
            pid,
            tid,
            header: Some(h),
            level: Some(h.level),
            msg: m,
        }),
        None => Line::Record(Record {
            envelope: EnvelopeKind::Logcat,
            pid,
            tid,
            header: None,
            level: Some(level),
            msg,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memchr_searches_agree_with_str_find() {
        for s in [
            "",
            ":",
            ": ",
            "a: b",
            "a:b: c",
            "x]: y",
            "]:",
            "]: ",
            "a]b]: c: d",
            "é: ü]: ö",
            "tag:: msg",
            "]]: x",
            "no colon here",
        ] {
            assert_eq!(find_colon_space(s), s.find(": "), "{s:?}");
            assert_eq!(find_bracket_colon_space(s), s.find("]: "), "{s:?}");
        }
    }

    fn rec(line: &str) -> Record<'_> {
        match classify(line) {
            Line::Record(r) => r,
            other => panic!("not a record: {other:?} for {line}"),
        }
    }

    /// The fixed-offset reading agrees with the token walk wherever it answers, and answers for
    /// the sample capture's lines.
    #[test]
    fn threadtime_agrees_with_the_walk() {
        let base = "11-30 10:04:41.168   938  1170 W Adreno-GSL: <gsl>: ioctl";
        let mut lines: Vec<String> = vec![
            base.into(),
            "11-30 10:04:37.021 21377 21412 I MobileGL: [10:04:37] [Android MobileGLTraceRe/INFO]: MGPipe stats: x".into(),
            "11-30 10:04:37.021 21377 21412 I MobileGL    : m".into(),
            "11-30 10:04:37.021 21377 21412 I MobileGL:".into(),
            "11-30 10:04:37.021 21377 21412 I MobileGL".into(),
            "11-30 10:04:37.021     1     2 I init: x".into(),
            "11-30 10:04:37.021 123456789 987654321 E t: x".into(),
            "11-30 10:04:37.021 1234567890 2 E t: x".into(),
            "11-30 10:04:37.021 10211 21377 21412 I MobileGL: x".into(),
            "11-30 10:04:37.021 21377 21412  I MobileGL: x".into(),
            "11-30 10:04:37.021 21377 21412 X MobileGL: x".into(),
            "11-30 10:04:37.021 21377 21412 II MobileGL: x".into(),
            "11-30 10:04:37.021 +0100 21377 21412 I MobileGL: x".into(),
            "11-30 10:04:37.021 21377 21412 I  MobileGL: x".into(),
            "11-30 10:04:37.021 2137x 21412 I MobileGL: x".into(),
            "11-30 10:04:37.021 21377 21412 I ".into(),
        ];
        // Every one-byte change of the base line at every position.
        for i in 0..base.len() {
            for c in [b' ', b'0', b'9', b':', b'-', b'.', b'I', b'x', b'/'] {
                let mut b = base.as_bytes().to_vec();
                b[i] = c;
                lines.push(String::from_utf8(b).unwrap_or_default());
            }
            lines.push(format!("{} {}", &base[..i], &base[i..]));
            lines.push(format!("{}{}", &base[..i], &base[i + 1..]));
        }
        let sample = include_str!("../tests/data/abB-push-DirectGLES.logcat.txt");
        lines.extend(sample.lines().map(str::to_string));
        let mut answered = 0;
        for l in &lines {
            if let Some(fast) = threadtime(l) {
                answered += 1;
                assert_eq!(Some(fast), dated_walk(l), "{l:?}");
            }
        }
        assert!(threadtime(base).is_some());
        assert!(answered > sample.lines().count() / 2, "{answered}");
    }

    #[test]
    fn threadtime_with_header() {
        let r = rec("11-30 10:04:37.021 21377 21412 I MobileGL: [10:04:37] [Android MobileGLTraceRe/INFO]: MGPipe stats: frames=1");
        assert_eq!(r.pid, Some(21377));
        assert_eq!(r.tid, Some(21412));
        assert_eq!(r.envelope, EnvelopeKind::Logcat);
        assert_eq!(r.header.map(|h| h.thread), Some("MobileGLTraceRe"));
        assert_eq!(r.msg, "MGPipe stats: frames=1");
    }

    #[test]
    fn other_logcat_formats() {
        let msg = "[10:04:37] [Android MobileGLTraceRe/INFO]: MGPipe stats: x";
        for line in [
            format!("11-30 10:04:37.021 I/MobileGL(21377): {msg}"),
            format!("I/MobileGL(21377): {msg}"),
            format!("I/MobileGL( 2137): {msg}"),
            format!("I/MobileGL: {msg}"),
            format!("2026-11-30 10:04:37.021123 21377 21412 I MobileGL: {msg}"),
            format!("11-30 10:04:37.021 10211 21377 21412 I MobileGL: {msg}"),
            format!("11-30 10:04:37.021 u0_a211 21377 21412 I MobileGL: {msg}"),
            format!("1701338677.021 21377 21412 I MobileGL: {msg}"),
            format!("11-30 10:04:37.021 +0100 21377 21412 I MobileGL: {msg}"),
            format!("11-30 10:04:37.021 21377 21412 I MobileGL    : {msg}"),
        ] {
            let r = rec(&line);
            assert_eq!(r.msg, "MGPipe stats: x", "{line}");
            assert_eq!(r.header.map(|h| h.level), Some(Level::Info), "{line}");
        }
    }

    #[test]
    fn foreign_marker_noise() {
        assert_eq!(classify("--------- beginning of main"), Line::Marker);
        assert_eq!(
            classify("11-30 10:04:41.168   938  1170 W Adreno-GSL: <gsl>: ioctl"),
            Line::Foreign { tag: "Adreno-GSL" }
        );
        assert_eq!(
            classify("11-30 10:04:31.087 21377 21412 D libEGL  : loaded"),
            Line::Foreign { tag: "libEGL" }
        );
        assert_eq!(classify("11-30 10:04:48.5"), Line::Noise);
        assert_eq!(classify("just some text"), Line::Noise);
        assert_eq!(classify(""), Line::Blank);
    }

    #[test]
    fn header_thread_with_spaces_and_stack_indent() {
        let r = rec("[10:00:00] [Linux my thread/x/WARN]:         MGPipe: hi");
        let h = r.header.unwrap_or_else(|| panic!("header"));
        assert_eq!(h.thread, "my thread/x");
        assert_eq!(h.level, Level::Warn);
        assert_eq!(r.msg, "MGPipe: hi");
    }

    #[test]
    fn transcript_lines() {
        let r = rec("41: -- [14:22:17] [Linux trace_replay_cl/FATAL]: MGPipe: Fatal{X}");
        assert_eq!(r.envelope, EnvelopeKind::Transcript);
        assert_eq!(r.msg, "MGPipe: Fatal{X}");
        let r = rec(
            "37: -- MGPipe verify: case DirectGLES armed, zero divergences, zero unmigrated reads",
        );
        assert!(r.msg.starts_with("MGPipe verify:"));
        assert!(matches!(
            classify("41:   Fatal{PipeVerifyDiffer, \"<Field>@<Verb>\"} is"),
            Line::TranscriptText(_)
        ));
    }

    #[test]
    fn raw_messages() {
        let r = rec("MGPipe stats: frames=1");
        assert_eq!(r.envelope, EnvelopeKind::Raw);
    }
}
