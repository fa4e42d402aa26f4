//! The `evidence` analysis (its config compiled and validated in `rules.rs`): the streaming scan of one
//! role log ([`scan`]), the pure judgement of one entry's logs ([`judge_test`]) and
//! [`check_inputs`], the one entry point (the gate, its canned controls and its live controls
//! all run through it, over the disk or over texts held in memory).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use diag::{Diag, Outcome};

use super::cfg::EvidenceConfig;
pub(crate) use super::rules::{validate, validate_one, Kind, Rule, Scope, Set};
use crate::ctest::{parse_junit, Status};

diag::codes! {
    /// Finding codes of the `evidence` gate (docs/codes.md).
    pub enum Code: "EVD" {
        Evd001 = "EVD001": "a required pattern is absent from a selected test's role log",
        Evd002 = "EVD002": "a forbidden pattern matches a line of a selected test's role log",
        Evd003 = "EVD003": "the number of lines a count rule matches in a role log is out of its range",
        Evd004 = "EVD004": "a selected test's role log is missing or cannot be read",
        Evd005 = "EVD005": "a role log is not UTF-8: its bad bytes are counted and the first is named by byte offset",
        Evd006 = "EVD006": "a role log is stale (last written before the run began), or the run cannot be dated",
        Evd007 = "EVD007": "a `tests` regex selects no entry of the JUnit that ran",
        Evd008 = "EVD008": "an [[evidence]] entry is invalid (bad regex, unknown role, `{test}` missing, no rules, repeated name)",
        Evd009 = "EVD009": "the JUnit file of an [[evidence]] set cannot be read or is not JUnit",
        Evd010 = "EVD010": "a selected entry was skipped, so its logs are not checked",
        Evd011 = "EVD011": "a role log line is longer than the line cap: only its first bytes are checked",
    }
}

/// The bytes of one log line that are kept and matched; the rest of a longer line is skipped
/// (EVD011), so memory stays bounded however a log is shaped.
pub(crate) const MAX_LINE: usize = 1 << 20;
/// Forbidden lines reported per rule and log; the rest are counted in the last one.
const SHOWN_HITS: usize = 5;
/// File-time slack when dating a run: file systems keep times at a coarse grain.
const SLACK: Duration = Duration::from_secs(2);

/// What one rule found in one log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Hits {
    pub count: u64,
    /// The first [`SHOWN_HITS`] matching lines: line number and the line, escaped and shortened.
    pub shown: Vec<(u32, String)>,
}

/// What a scan of one log found: per rule of its set (by index; a rule that does not apply to
/// the log's role stays empty), and the shape of its bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct LogScan {
    pub lines: u64,
    pub bytes: u64,
    pub hits: Vec<Hits>,
    /// Bytes that are not UTF-8, and the byte offset and line of the first.
    pub bad_bytes: u64,
    pub first_bad: Option<(u64, u32)>,
    /// Lines longer than [`MAX_LINE`], and the first of them.
    pub long_lines: u64,
    pub first_long: Option<u32>,
}

/// Reads one line into `buf` (without its end), keeping at most `cap` bytes; returns the bytes
/// consumed (0 at the end) and whether the line was cut.
fn read_line_capped(
    r: &mut dyn BufRead,
    buf: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<(usize, bool)> {
    buf.clear();
    let mut consumed = 0usize;
    let mut cut = false;
    loop {
        let avail = match r.fill_buf() {
            Ok(a) => a,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            break;
        }
        let (take, done) = match avail.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (avail.len(), false),
        };
        let content = if done { take - 1 } else { take };
        let room = cap.saturating_sub(buf.len());
        buf.extend_from_slice(&avail[..content.min(room)]);
        cut |= content > room;
        r.consume(take);
        consumed += take;
        if done {
            break;
        }
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok((consumed, cut))
}

/// `bytes` as text: the valid parts, U+FFFD for each bad run; with the number of bad bytes and
/// the index of the first. A sequence cut short at the end of a cut line is not counted.
fn decode(bytes: &[u8], cut: bool) -> (Cow<'_, str>, u64, Option<usize>) {
    if let Ok(s) = std::str::from_utf8(bytes) {
        return (Cow::Borrowed(s), 0, None);
    }
    let mut out = String::with_capacity(bytes.len());
    let mut bad = 0u64;
    let mut first = None;
    let mut at = 0usize;
    let mut chunks = bytes.utf8_chunks().peekable();
    while let Some(c) = chunks.next() {
        out.push_str(c.valid());
        at += c.valid().len();
        let inv = c.invalid();
        let tail = chunks.peek().is_none() && cut && inv.len() < 4;
        if !inv.is_empty() && !tail {
            bad += inv.len() as u64;
            first.get_or_insert(at);
            out.push('\u{FFFD}');
        }
        at += inv.len();
    }
    (Cow::Owned(out), bad, first)
}

/// Scans one log line by line (memory bounded by [`MAX_LINE`]) for the rules of `set` that
/// apply to role `role`.
pub(crate) fn scan(set: &Set, role: usize, r: &mut dyn BufRead) -> std::io::Result<LogScan> {
    let mut out = LogScan {
        hits: vec![Hits::default(); set.rules.len()],
        ..LogScan::default()
    };
    let live: Vec<usize> = (0..set.rules.len())
        .filter(|&i| set.rules[i].applies(role))
        .collect();
    let mut buf = Vec::new();
    let mut offset = 0u64;
    loop {
        let (n, cut) = read_line_capped(r, &mut buf, MAX_LINE)?;
        if n == 0 {
            break;
        }
        out.lines += 1;
        let line_no = u32::try_from(out.lines).unwrap_or(u32::MAX);
        if cut {
            out.long_lines += 1;
            out.first_long.get_or_insert(line_no);
        }
        let (text, bad, first) = decode(&buf, cut);
        if bad > 0 {
            out.bad_bytes += bad;
            if out.first_bad.is_none() {
                out.first_bad = first.map(|i| (offset + i as u64, line_no));
            }
        }
        for &i in &live {
            if set.rules[i].re.is_match(&text) {
                let h = &mut out.hits[i];
                h.count += 1;
                if h.shown.len() < SHOWN_HITS {
                    h.shown.push((
                        line_no,
                        diag::escape::line(&diag::escape::shorten(
                            &text,
                            crate::excerpt::MAX_CHARS,
                        )),
                    ));
                }
            }
        }
        offset += n as u64;
    }
    out.bytes = offset;
    Ok(out)
}

/// One role log of an entry as the judgement sees it: its role, its path, and its scan (None
/// when it could not be read, which is reported on its own).
pub(crate) struct Seen<'a> {
    pub role: usize,
    pub path: &'a str,
    pub scan: Option<&'a LogScan>,
}

/// The findings of one entry's role logs against every rule of `set`. Pure.
pub(crate) fn judge_test(set: &Set, test: &str, logs: &[Seen<'_>]) -> Vec<Diag<Code>> {
    let mut out = Vec::new();
    let why = set
        .why
        .as_deref()
        .map(|w| format!(" ({w})"))
        .unwrap_or_default();
    let unit = format!("{}: {test}", set.name);
    let pat = |r: &Rule| diag::escape::shorten(r.re.as_str(), 120).into_owned();
    let role = |l: &Seen<'_>| set.roles.get(l.role).map_or("?", |r| r.name.as_str());
    for (i, rule) in set.rules.iter().enumerate() {
        let mine: Vec<&Seen<'_>> = logs.iter().filter(|l| rule.applies(l.role)).collect();
        let complete = mine.iter().all(|l| l.scan.is_some());
        let read: Vec<(&Seen<'_>, &Hits)> = mine
            .iter()
            .filter_map(|l| l.scan.and_then(|s| s.hits.get(i)).map(|h| (*l, h)))
            .collect();
        match (rule.kind, rule.scope) {
            (Kind::Require, Scope::Any) => {
                if complete && !read.is_empty() && read.iter().all(|(_, h)| h.count == 0) {
                    let paths: Vec<&str> = read.iter().map(|(l, _)| l.path).collect();
                    let first = paths.first().copied().unwrap_or_default();
                    out.push(
                        Diag::error(
                            Code::Evd001,
                            format!(
                                "test {test}: no role log ({}) has a line matching `{}` (require, set `{}`){why}",
                                paths.join(", "),
                                pat(rule),
                                set.name
                            ),
                        )
                        .file(first)
                        .in_unit(&unit),
                    );
                }
            }
            (Kind::Require, _) => {
                for (l, h) in &read {
                    if h.count == 0 {
                        out.push(
                            Diag::error(
                                Code::Evd001,
                                format!(
                                    "test {test}: {} log {} has no line matching `{}` (require, set `{}`){why}",
                                    role(l),
                                    l.path,
                                    pat(rule),
                                    set.name
                                ),
                            )
                            .file(l.path)
                            .in_unit(&unit),
                        );
                    }
                }
            }
            (Kind::Forbid, _) => {
                for (l, h) in &read {
                    let last = h.shown.len().saturating_sub(1);
                    for (k, (line, text)) in h.shown.iter().enumerate() {
                        let more = h.count.saturating_sub(h.shown.len() as u64);
                        let more = if k == last && more > 0 {
                            format!(" (and {more} more matching lines)")
                        } else {
                            String::new()
                        };
                        out.push(
                            Diag::error(
                                Code::Evd002,
                                format!(
                                    "test {test}: {} log {}:{line} matches forbidden `{}` (set `{}`): {text}{more}{why}",
                                    role(l),
                                    l.path,
                                    pat(rule),
                                    set.name
                                ),
                            )
                            .at(l.path, *line, None)
                            .in_unit(&unit),
                        );
                    }
                }
            }
            (Kind::Count { min, max }, scope) => {
                let groups: Vec<(String, &str, u64)> = if scope == Scope::Any {
                    if !complete || read.is_empty() {
                        continue;
                    }
                    let paths: Vec<&str> = read.iter().map(|(l, _)| l.path).collect();
                    let n = read.iter().map(|(_, h)| h.count).sum();
                    vec![(
                        format!("role logs ({})", paths.join(", ")),
                        paths.first().copied().unwrap_or_default(),
                        n,
                    )]
                } else {
                    read.iter()
                        .map(|(l, h)| (format!("{} log {}", role(l), l.path), l.path, h.count))
                        .collect()
                };
                for (what, path, n) in groups {
                    let low = min.is_some_and(|m| n < m);
                    let high = max.is_some_and(|m| n > m);
                    if !(low || high) {
                        continue;
                    }
                    let want = match (min, max) {
                        (Some(a), Some(b)) => format!("{a}..={b}"),
                        (Some(a), None) => format!("at least {a}"),
                        (None, Some(b)) => format!("at most {b}"),
                        (None, None) => String::new(),
                    };
                    out.push(
                        Diag::error(
                            Code::Evd003,
                            format!(
                                "test {test}: {what} has {n} line(s) matching `{}`, want {want} (count, set `{}`){why}",
                                pat(rule),
                                set.name
                            ),
                        )
                        .file(path)
                        .in_unit(&unit),
                    );
                }
            }
        }
    }
    out
}

/// Why a file of the gate cannot be read, or when a set's run began cannot be told.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("not a regular file")]
    NotAFile,
    #[error("{0}")]
    Io(std::io::Error),
    #[error("{}", diag::walk::too_large_reason(*.size, *.limit))]
    TooLarge { size: u64, limit: u64 },
    #[error("{junit}: its file time cannot be read")]
    NoFileTime { junit: String },
    #[error("{junit} records no `time`, so when the run began is unknown")]
    NoRunTime { junit: String },
}

/// Where the gate's files come from: the workspace on disk, or texts held in memory (the
/// controls' canned inputs, a live control's perturbed copy).
pub trait Files {
    /// A reader over the file; Ok(None) when it does not exist, Err when it is not a regular
    /// file or cannot be opened.
    fn open(&self, rel: &str) -> Result<Option<Box<dyn BufRead + '_>>, Error>;
    fn mtime(&self, rel: &str) -> Option<SystemTime>;
}

/// The workspace on disk.
pub struct Disk(pub PathBuf);

impl Files for Disk {
    fn open(&self, rel: &str) -> Result<Option<Box<dyn BufRead + '_>>, Error> {
        let p = self.0.join(rel);
        match std::fs::metadata(&p) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::Io(e)),
            Ok(m) if !m.is_file() => return Err(Error::NotAFile),
            Ok(_) => {}
        }
        let f = std::fs::File::open(&p).map_err(Error::Io)?;
        Ok(Some(Box::new(std::io::BufReader::with_capacity(
            1 << 16,
            f,
        ))))
    }
    fn mtime(&self, rel: &str) -> Option<SystemTime> {
        std::fs::metadata(self.0.join(rel))
            .and_then(|m| m.modified())
            .ok()
    }
}

/// Files held in memory, each with an optional time; `base` answers for the rest.
pub(crate) struct Memory<'a> {
    pub files: BTreeMap<String, (Vec<u8>, Option<SystemTime>)>,
    pub base: Option<&'a dyn Files>,
}

impl Files for Memory<'_> {
    fn open(&self, rel: &str) -> Result<Option<Box<dyn BufRead + '_>>, Error> {
        match (self.files.get(rel), self.base) {
            (Some((b, _)), _) => Ok(Some(Box::new(b.as_slice()))),
            (None, Some(base)) => base.open(rel),
            (None, None) => Ok(None),
        }
    }
    fn mtime(&self, rel: &str) -> Option<SystemTime> {
        match (self.files.get(rel), self.base) {
            (Some((_, t)), _) => *t,
            (None, Some(base)) => base.mtime(rel),
            (None, None) => None,
        }
    }
}

/// Reads a whole small file (the JUnit) through `files`; Ok(None) when it does not exist.
fn read_all(files: &dyn Files, rel: &str) -> Result<Option<Vec<u8>>, Error> {
    let Some(mut r) = files.open(rel)? else {
        return Ok(None);
    };
    let limit = diag::walk::max_file_size();
    let mut out = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(&mut r, limit.saturating_add(1)),
        &mut out,
    )
    .map_err(Error::Io)?;
    if out.len() as u64 > limit {
        return Err(Error::TooLarge {
            size: out.len() as u64,
            limit,
        });
    }
    Ok(Some(out))
}

/// The entries of a set's JUnit that `tests` selects: those that ran, and those skipped; and
/// when the run began (None when not asked for, or not measurable).
pub(crate) struct Selection {
    pub ran: Vec<String>,
    pub skipped: Vec<String>,
    pub started: Result<Option<SystemTime>, Error>,
    pub entries: usize,
    pub junit_bytes: usize,
}

/// Reads a set's JUnit and selects its entries; Err is its EVD009 or EVD007.
pub(crate) fn select(files: &dyn Files, set: &Set) -> Result<Selection, Box<Diag<Code>>> {
    let fail = |code: Code, m: String| {
        Box::new(
            Diag::error(code, format!("[[evidence]] `{}`: {m}", set.name))
                .in_config(set.junit_at)
                .in_unit(set.name.clone()),
        )
    };
    let bytes = match read_all(files, &set.junit) {
        Ok(Some(b)) => b,
        Ok(None) => {
            return Err(fail(
                Code::Evd009,
                format!(
                    "no JUnit at {} (run the lane's `ctest --output-junit`)",
                    set.junit
                ),
            ))
        }
        Err(e) => {
            return Err(fail(
                Code::Evd009,
                format!("{}: cannot read: {e}", set.junit),
            ))
        }
    };
    let j = parse_junit(&bytes, &set.junit).map_err(|e| fail(Code::Evd009, e.to_string()))?;
    let statuses = j.statuses();
    let mut ran = Vec::new();
    let mut skipped = Vec::new();
    for (name, st) in &statuses {
        if set.tests.is_match(name) {
            if *st == Status::Skip {
                skipped.push((*name).to_string());
            } else {
                ran.push((*name).to_string());
            }
        }
    }
    if ran.is_empty() {
        return Err(Box::new(
            Diag::error(
                Code::Evd007,
                format!(
                    "[[evidence]] `{}`: `tests` `{}` selects no entry of {} that ran ({} entries, {} selected but skipped): the set would check nothing",
                    set.name,
                    diag::escape::shorten(set.tests.as_str(), 120),
                    set.junit,
                    statuses.len(),
                    skipped.len()
                ),
            )
            .in_config(set.tests_at)
            .in_unit(set.name.clone()),
        ));
    }
    let started = if set.mtimes {
        match (files.mtime(&set.junit), j.elapsed_ms) {
            (Some(t), Some(ms)) => Ok(Some(
                t.checked_sub(Duration::from_millis(ms) + SLACK)
                    .unwrap_or(SystemTime::UNIX_EPOCH),
            )),
            (None, _) => Err(Error::NoFileTime {
                junit: set.junit.clone(),
            }),
            (_, None) => Err(Error::NoRunTime {
                junit: set.junit.clone(),
            }),
        }
    } else {
        Ok(None)
    };
    Ok(Selection {
        ran,
        skipped,
        started,
        entries: statuses.len(),
        junit_bytes: bytes.len(),
    })
}

#[derive(Default)]
struct Tally {
    tests: usize,
    logs: usize,
    lines: u64,
    broken: usize,
}

/// Checks every `[[evidence]]` of the workspace at `root`.
pub fn check(root: &Path, cfgs: &[EvidenceConfig]) -> Outcome<Code> {
    check_inputs(&Disk(root.to_path_buf()), cfgs)
}

/// [`check`] over any [`Files`].
pub fn check_inputs(files: &dyn Files, cfgs: &[EvidenceConfig]) -> Outcome<Code> {
    let (sets, mut diags) = validate(cfgs);
    let mut tally = Tally::default();
    let mut units = Vec::new();
    let mut inputs = Vec::new();
    let rules: usize = sets.iter().map(|s| s.rules.len()).sum();
    for set in &sets {
        units.push(set.name.clone());
        check_set(files, set, &mut diags, &mut tally, &mut units, &mut inputs);
    }
    Outcome {
        headline: format!(
            "{} sets / {} tests / {} role logs, {} lines / {rules} rules, {} broken",
            sets.len(),
            tally.tests,
            tally.logs,
            tally.lines,
            tally.broken
        ),
        diags,
        units,
        inputs,
        ..Outcome::default()
    }
    .figure("sets", sets.len())
    .figure("tests", tally.tests)
    .figure("logs", tally.logs)
    .figure("lines", tally.lines)
    .figure("rules", rules)
    .figure("broken", tally.broken)
}

fn check_set(
    files: &dyn Files,
    set: &Set,
    diags: &mut Vec<Diag<Code>>,
    tally: &mut Tally,
    units: &mut Vec<String>,
    inputs: &mut Vec<String>,
) {
    let sel = match select(files, set) {
        Ok(s) => s,
        Err(d) => {
            diags.push(*d);
            return;
        }
    };
    inputs.push(format!(
        "{}: {} ({} bytes, {} entries, {} selected)",
        set.name,
        set.junit,
        sel.junit_bytes,
        sel.entries,
        sel.ran.len() + sel.skipped.len()
    ));
    if sel.ran.len() > 1 {
        let mut shared = false;
        for r in set.roles.iter().filter(|r| !r.template.contains("{test}")) {
            shared = true;
            diags.push(
                Diag::error(
                    Code::Evd008,
                    format!(
                        "[[evidence]] `{}`: the {} log path `{}` has no `{{test}}` but `tests` selects {} entries: they would all read one log",
                        set.name,
                        r.name,
                        r.template,
                        sel.ran.len()
                    ),
                )
                .in_config(r.at)
                .in_unit(set.name.clone()),
            );
        }
        if shared {
            return;
        }
    }
    let started = match sel.started {
        Ok(s) => s,
        Err(e) => {
            diags.push(
                Diag::error(
                    Code::Evd006,
                    format!(
                        "[[evidence]] `{}`: {e}: stale logs cannot be told from fresh ones (set `mtimes = false` for committed copies)",
                        set.name
                    ),
                )
                .file(&set.junit)
                .in_unit(set.name.clone()),
            );
            None
        }
    };
    for t in &sel.skipped {
        diags.push(
            Diag::note(
                Code::Evd010,
                format!(
                    "test {t} was skipped in {}: its logs are not checked",
                    set.junit
                ),
            )
            .file(&set.junit)
            .in_unit(format!("{}: {t}", set.name)),
        );
    }
    for test in &sel.ran {
        tally.tests += 1;
        let unit = format!("{}: {test}", set.name);
        units.push(unit.clone());
        let paths: Vec<String> = set.roles.iter().map(|r| r.path(test)).collect();
        let mut scans: Vec<Option<LogScan>> = Vec::new();
        for (i, path) in paths.iter().enumerate() {
            let role = &set.roles[i].name;
            scans.push(read_log(files, set, i, test, path, started, &unit, diags));
            if let Some(s) = scans.last().and_then(Option::as_ref) {
                tally.logs += 1;
                tally.lines += s.lines;
                if s.bad_bytes > 0 {
                    let (off, line) = s.first_bad.unwrap_or((0, 0));
                    diags.push(
                        Diag::error(
                            Code::Evd005,
                            format!(
                                "test {test}: {role} log {path} is not UTF-8: {} bad byte(s), the first at byte offset {off} (line {line}); its lines were checked with U+FFFD in their place",
                                s.bad_bytes
                            ),
                        )
                        .at(path.clone(), line, None)
                        .in_unit(&unit),
                    );
                }
                if s.long_lines > 0 {
                    diags.push(
                        Diag::warning(
                            Code::Evd011,
                            format!(
                                "test {test}: {role} log {path} has {} line(s) longer than {} bytes, the first at line {}: only their first {} bytes are checked",
                                s.long_lines,
                                MAX_LINE,
                                s.first_long.unwrap_or(0),
                                MAX_LINE
                            ),
                        )
                        .at(path.clone(), s.first_long.unwrap_or(0), None)
                        .in_unit(&unit),
                    );
                }
            }
        }
        let seen: Vec<Seen<'_>> = paths
            .iter()
            .zip(&scans)
            .enumerate()
            .map(|(role, (path, scan))| Seen {
                role,
                path,
                scan: scan.as_ref(),
            })
            .collect();
        let found = judge_test(set, test, &seen);
        tally.broken += found.iter().filter(|d| d.is_error()).count();
        diags.extend(found);
    }
}

/// Opens, dates and scans one role log; a missing, unreadable or outside log is its EVD004, a
/// stale one its EVD006 (and still scanned: what it says is reported too).
#[allow(clippy::too_many_arguments)]
fn read_log(
    files: &dyn Files,
    set: &Set,
    role: usize,
    test: &str,
    path: &str,
    started: Option<SystemTime>,
    unit: &str,
    diags: &mut Vec<Diag<Code>>,
) -> Option<LogScan> {
    let word = &set.roles[role].name;
    let missing = |m: String| Diag::error(Code::Evd004, m).in_unit(unit);
    if !diag::walk::inside_workspace(Path::new(path)) {
        diags.push(
            missing(format!(
                "test {test}: the {word} log path {path} leads outside the workspace"
            ))
            .in_config(set.roles[role].at),
        );
        return None;
    }
    let mut r = match files.open(path) {
        Ok(Some(r)) => r,
        Ok(None) => {
            diags.push(
                missing(format!(
                    "test {test}: no {word} log at {path} (the entry ran, so its log was never written or was removed)"
                ))
                .file(path),
            );
            return None;
        }
        Err(e) => {
            diags.push(
                missing(format!("test {test}: {word} log {path}: cannot read: {e}")).file(path),
            );
            return None;
        }
    };
    if let (Some(start), Some(t)) = (started, files.mtime(path)) {
        if t < start {
            let age = start
                .duration_since(t)
                .map_or(0, |d| d.as_secs())
                .saturating_add(SLACK.as_secs());
            diags.push(
                Diag::error(
                    Code::Evd006,
                    format!(
                        "test {test}: {word} log {path} is stale: last written {age} s before the run of {} began (a log of an earlier run)",
                        set.junit
                    ),
                )
                .file(path)
                .in_unit(unit),
            );
        }
    }
    match scan(set, role, &mut r) {
        Ok(s) => Some(s),
        Err(e) => {
            diags.push(
                missing(format!("test {test}: {word} log {path}: read failed: {e}")).file(path),
            );
            None
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn cfg(text: &str) -> EvidenceConfig {
        toml::from_str(text).unwrap()
    }

    const BASE: &str = r#"
name = "s"
junit = "j.xml"
tests = 'A\..*'
logs = { client = "logs/{test}.client.log", server = "logs/{test}.server.log" }
require = [ { role = "client", pattern = "transport=inproc" }, { role = "both", pattern = 'strict=1\b' } ]
forbid = [ { role = "both", pattern = 'Fatal\{' } ]
count = [ { role = "server", pattern = "MGPipe stats:", min = 1, max = 2 } ]
mtimes = false
"#;

    fn codes(d: &[Diag<Code>]) -> Vec<&'static str> {
        d.iter().map(|d| d.code.as_str()).collect()
    }

    fn scan_text(set: &Set, role: usize, text: &[u8]) -> LogScan {
        scan(set, role, &mut &text[..]).unwrap()
    }

    #[test]
    fn a_long_line_is_cut_and_counted_and_crlf_is_one_end() {
        let mut r: &[u8] = b"ab\r\ncdefgh\nlast";
        let mut buf = Vec::new();
        assert_eq!(read_line_capped(&mut r, &mut buf, 3).unwrap(), (4, false));
        assert_eq!(buf, b"ab");
        assert_eq!(read_line_capped(&mut r, &mut buf, 3).unwrap(), (7, true));
        assert_eq!(buf, b"cde");
        assert_eq!(read_line_capped(&mut r, &mut buf, 3).unwrap(), (4, true));
        assert_eq!(read_line_capped(&mut r, &mut buf, 3).unwrap(), (0, false));
    }

    #[test]
    fn bad_bytes_are_counted_at_their_offset_and_a_cut_sequence_is_not() {
        let (t, n, first) = decode(b"ok\xff\xfe!", false);
        assert_eq!((t.as_ref(), n, first), ("ok\u{FFFD}\u{FFFD}!", 2, Some(2)));
        let (_, n, _) = decode("é".as_bytes().get(..1).unwrap(), true);
        assert_eq!(n, 0);
        let set = validate_one(&cfg(BASE)).unwrap();
        let s = scan_text(&set, 1, b"line one\nbad \xc3( here\n");
        assert_eq!(s.bad_bytes, 1);
        assert_eq!(s.first_bad, Some((13, 2)));
    }

    #[test]
    fn judge_reports_each_rule_per_role_and_forbidden_lines_at_their_line() {
        let set = validate_one(&cfg(BASE)).unwrap();
        let client = scan_text(&set, 0, b"transport=inproc strict=1\n");
        let server = scan_text(&set, 1, b"strict=1\nMGPipe stats: a\nFatal{X, \x1b[31m}\n");
        let seen = [
            Seen {
                role: 0,
                path: "c.log",
                scan: Some(&client),
            },
            Seen {
                role: 1,
                path: "s.log",
                scan: Some(&server),
            },
        ];
        let d = judge_test(&set, "A.x", &seen);
        assert_eq!(codes(&d), ["EVD002"]);
        assert_eq!(d[0].location.as_ref().unwrap().to_string(), "s.log:3");
        assert!(d[0].message.contains("\\x1b[31m"), "{}", d[0].message);
        assert!(!d[0].message.contains('\x1b'));
        let bare = scan_text(&set, 1, b"nothing\n");
        let seen = [
            Seen {
                role: 0,
                path: "c.log",
                scan: Some(&client),
            },
            Seen {
                role: 1,
                path: "s.log",
                scan: Some(&bare),
            },
        ];
        let d = judge_test(&set, "A.x", &seen);
        assert_eq!(codes(&d), ["EVD001", "EVD003"]);
        assert!(d[0]
            .message
            .contains("server log s.log has no line matching `strict=1\\b`"));
        assert!(d[1]
            .message
            .contains("has 0 line(s) matching `MGPipe stats:`, want 1..=2"));
        // an unread log is reported on its own, not as a missing line
        let seen = [
            Seen {
                role: 0,
                path: "c.log",
                scan: Some(&client),
            },
            Seen {
                role: 1,
                path: "s.log",
                scan: None,
            },
        ];
        assert!(judge_test(&set, "A.x", &seen).is_empty());
    }

    #[test]
    fn any_scope_reads_the_role_logs_together() {
        let set = validate_one(&cfg(
            "name = 't'\njunit = 'j'\ntests = '.'\nlogs = { client = 'c/{test}', server = 's/{test}' }\nrequire = [ { role = 'any', pattern = 'pid=[1-9]' } ]\ncount = [ { role = 'any', pattern = 'x', max = 1 } ]\n",
        ))
        .unwrap();
        let a = scan_text(&set, 0, b"x\n");
        let b = scan_text(&set, 1, b"pid=7 x\n");
        let seen = [
            Seen {
                role: 0,
                path: "c",
                scan: Some(&a),
            },
            Seen {
                role: 1,
                path: "s",
                scan: Some(&b),
            },
        ];
        assert_eq!(codes(&judge_test(&set, "T", &seen)), ["EVD003"]);
        let seen = [
            Seen {
                role: 0,
                path: "c",
                scan: Some(&a),
            },
            Seen {
                role: 1,
                path: "s",
                scan: Some(&a),
            },
        ];
        assert_eq!(codes(&judge_test(&set, "T", &seen)), ["EVD001", "EVD003"]);
    }

    #[test]
    fn validation_names_the_bad_part() {
        let bad = |from: &str, to: &str| {
            let e = validate_one(&cfg(&BASE.replace(from, to))).unwrap_err();
            assert_eq!(e.code, Code::Evd008);
            e.message
        };
        assert!(bad("'A\\..*'", "'A\\..*('").contains("`tests` is not a regex"));
        assert!(bad("client =", "clint =").contains("unknown role `clint`"));
        assert!(bad(
            "role = \"both\", pattern = 'Fatal",
            "role = \"all\", pattern = 'Fatal"
        )
        .contains("role `all`"));
        assert!(bad("min = 1, max = 2", "min = 3, max = 2").contains("min 3 is above its max 2"));
        assert!(bad(", min = 1, max = 2", "").contains("needs `min`, `max`"));
        let none = "name = 'n'\njunit = 'j'\ntests = '.'\nlogs = { client = 'c' }\n";
        assert!(validate_one(&cfg(none))
            .unwrap_err()
            .message
            .contains("check nothing"));
        let (sets, d) = validate(&[cfg(BASE), cfg(BASE)]);
        assert_eq!((sets.len(), codes(&d)), (1, vec!["EVD008"]));
    }
}
