//! Where the lines come from: a followed file, stdin, `adb logcat`, or a finished log replayed at
//! its recorded pace. Each live source is a thread that frames lines, runs the incremental parser
//! and sends [`Event::Data`] batches; it stops when the view hangs up.

use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Sender;
use std::thread;
use std::time::{Duration, Instant};

use crate::parser::{LogParser, Role};

use super::follow::{Follower, Framer};
use super::state::{Batch, NoteLevel, SourceNote};
use super::update::Event;
use super::Error;

/// A source of log lines.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A file that may still grow, be truncated, renamed or rotated.
    File(PathBuf),
    /// Standard input (`adb logcat -v threadtime | mgctl stats watch -`).
    Stdin,
    /// `adb [-s SERIAL] logcat -v threadtime`, spawned by mgctl (`program` is `adb` on PATH).
    Adb {
        program: String,
        serial: Option<String>,
    },
    /// A finished log replayed at `speed` × its recorded pace (`None`: as fast as possible).
    Replay { path: PathBuf, speed: Option<f64> },
}

impl Source {
    /// The one source of `stats watch`'s arguments: a LOG (`-` for stdin), `--adb [SERIAL]` (an
    /// empty serial: adb's default device) or `--replay LOG` (`speed` 0: as fast as possible);
    /// None unless exactly one is given.
    pub fn pick(
        log: Option<&Path>,
        adb: Option<&str>,
        replay: Option<&Path>,
        speed: f64,
    ) -> Option<Source> {
        Some(match (log, adb, replay) {
            (Some(p), None, None) if p.as_os_str() == "-" => Source::Stdin,
            (Some(p), None, None) => Source::File(p.to_path_buf()),
            (None, Some(serial), None) => Source::Adb {
                program: "adb".to_string(),
                serial: Some(serial.to_string()).filter(|s| !s.is_empty()),
            },
            (None, None, Some(p)) => Source::Replay {
                path: p.to_path_buf(),
                speed: (speed > 0.0).then_some(speed),
            },
            _ => return None,
        })
    }

    /// How the header names the source.
    pub fn label(&self) -> String {
        match self {
            Source::File(p) => format!("file {}", p.display()),
            Source::Stdin => "stdin".to_string(),
            Source::Adb { serial, .. } => match serial {
                Some(s) => format!("adb -s {s} logcat"),
                None => "adb logcat".to_string(),
            },
            Source::Replay { path, speed } => match speed {
                Some(x) => format!("replay {} at {x}x", path.display()),
                None => format!("replay {} (as fast as possible)", path.display()),
            },
        }
    }

    fn adb_args(serial: &Option<String>, dump: bool) -> Vec<String> {
        let mut a = Vec::new();
        if let Some(s) = serial {
            a.push("-s".to_string());
            a.push(s.clone());
        }
        a.push("logcat".to_string());
        if dump {
            a.push("-d".to_string());
        }
        a.push("-v".to_string());
        a.push("threadtime".to_string());
        a
    }
}

/// How sources read.
#[derive(Debug, Clone, Copy)]
pub struct SourceOptions {
    /// Longest line kept (longer lines are cut and counted).
    pub line_cap: usize,
    /// How often a followed file is checked for new data, rotation and truncation.
    pub poll: Duration,
}

impl Default for SourceOptions {
    fn default() -> Self {
        SourceOptions {
            line_cap: super::follow::DEFAULT_LINE_CAP,
            poll: Duration::from_millis(50),
        }
    }
}

/// Keeps what a running source owns; dropping it stops a spawned `adb`.
#[derive(Debug, Default)]
pub struct SourceHandle {
    child: Option<Child>,
}

impl Drop for SourceHandle {
    fn drop(&mut self) {
        if let Some(c) = self.child.as_mut() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn send_note(tx: &Sender<Event>, start: Instant, severity: NoteLevel, text: String) -> bool {
    tx.send(Event::Source {
        at: start.elapsed(),
        note: SourceNote { severity, text },
    })
    .is_ok()
}

fn send_batch(tx: &Sender<Event>, start: Instant, batch: &mut Batch) -> bool {
    if batch.is_empty() {
        return true;
    }
    tx.send(Event::Data {
        at: start.elapsed(),
        batch: std::mem::take(batch),
    })
    .is_ok()
}

/// Starts the thread(s) of a live source.
pub fn spawn(
    source: &Source,
    opts: SourceOptions,
    tx: Sender<Event>,
    start: Instant,
) -> Result<SourceHandle, Error> {
    match source {
        Source::File(path) => {
            let mut f = Follower::new(path, opts.line_cap);
            thread::Builder::new()
                .name("watch-follow".into())
                .spawn(move || follow_loop(&mut f, opts.poll, &tx, start, &mut || true))
                .map_err(|e| Error::Thread { source: e })?;
            Ok(SourceHandle::default())
        }
        Source::Stdin => {
            thread::Builder::new()
                .name("watch-stdin".into())
                .spawn(move || {
                    let stdin = io::stdin();
                    let lock = stdin.lock();
                    stream_loop(lock, Role::Main, opts, &tx, start, "stdin");
                })
                .map_err(|e| Error::Thread { source: e })?;
            Ok(SourceHandle::default())
        }
        Source::Adb { program, serial } => {
            let args = Source::adb_args(serial, false);
            let mut child = Command::new(program)
                .args(&args)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .map_err(|e| Error::Spawn {
                    program: format!("{program} {}", args.join(" ")),
                    source: e,
                })?;
            let stdout = child.stdout.take();
            let stderr = child.stderr.take();
            let what = format!("{program} {}", args.join(" "));
            thread::Builder::new()
                .name("watch-adb".into())
                .spawn(move || {
                    if let Some(out) = stdout {
                        stream_loop(out, Role::Main, opts, &tx, start, &what);
                    }
                    let mut err = String::new();
                    if let Some(mut e) = stderr {
                        let _ = e.by_ref().take(4096).read_to_string(&mut err);
                    }
                    let err = err.trim();
                    if !err.is_empty() {
                        send_note(&tx, start, NoteLevel::Warn, format!("{what}: {err}"));
                    }
                })
                .map_err(|e| Error::Thread { source: e })?;
            Ok(SourceHandle { child: Some(child) })
        }
        Source::Replay { path, speed } => {
            let bytes = std::fs::read(path).map_err(|e| Error::Read {
                path: path.clone(),
                source: e,
            })?;
            let role = Role::from_path(path);
            let speed = *speed;
            let label = path.display().to_string();
            thread::Builder::new()
                .name("watch-replay".into())
                .spawn(move || replay_loop(&bytes, role, speed, opts, &tx, start, &label))
                .map_err(|e| Error::Thread { source: e })?;
            Ok(SourceHandle::default())
        }
    }
}

/// Polls the follower until the view hangs up (or `keep_going` says stop; the benchmark uses it to
/// stop and to sample the thread's CPU time).
pub fn follow_loop(
    f: &mut Follower,
    poll: Duration,
    tx: &Sender<Event>,
    start: Instant,
    keep_going: &mut dyn FnMut() -> bool,
) {
    const LIMIT: u64 = 4 << 20;
    while keep_going() {
        let mut batch = Batch::default();
        let before = f.position();
        let notes = f.poll(&mut batch, LIMIT);
        let busy = f.position().saturating_sub(before) >= LIMIT;
        if !send_batch(tx, start, &mut batch) {
            return;
        }
        for n in notes {
            if !send_note(tx, start, n.severity, n.text) {
                return;
            }
        }
        if !busy {
            thread::sleep(poll);
        }
    }
}

fn stream_loop(
    mut r: impl Read,
    role: Role,
    opts: SourceOptions,
    tx: &Sender<Event>,
    start: Instant,
    what: &str,
) {
    let mut framer = Framer::new(opts.line_cap);
    let mut parser = LogParser::new(role);
    let mut buf = vec![0u8; 64 * 1024];
    let mut batch = Batch::default();
    send_note(tx, start, NoteLevel::Info, format!("reading {what}"));
    loop {
        match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                framer.feed(&buf[..n], &mut parser, &mut batch);
                if !send_batch(tx, start, &mut batch) {
                    return;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                send_note(
                    tx,
                    start,
                    NoteLevel::Warn,
                    format!("{what}: read error: {e}"),
                );
                break;
            }
        }
    }
    framer.flush(&mut parser, &mut batch);
    send_batch(tx, start, &mut batch);
    send_note(
        tx,
        start,
        NoteLevel::Ended,
        format!(
            "{what}: end of input after {} lines; the view stays up (q quits)",
            parser.lines()
        ),
    );
}

/// `HH:MM:SS` → seconds of the day.
fn seconds(hms: &str) -> Option<u64> {
    let mut it = hms.split(':').map(|p| p.parse::<u64>().ok());
    let (h, m, s) = (it.next()??, it.next()??, it.next()??);
    Some(h * 3600 + m * 60 + s)
}

/// The longest pause a replay makes for one gap in the recorded times (a log that idled for an
/// hour should not make the replay idle for an hour).
const MAX_GAP: Duration = Duration::from_secs(10);

fn replay_loop(
    bytes: &[u8],
    role: Role,
    speed: Option<f64>,
    opts: SourceOptions,
    tx: &Sender<Event>,
    start: Instant,
    label: &str,
) {
    let mut parser = LogParser::new(role);
    let mut batch = Batch::default();
    let mut clock: Option<u64> = None;
    send_note(tx, start, NoteLevel::Info, format!("replaying {label}"));
    let cap = opts.line_cap.max(64);
    let mut rest = bytes;
    while !rest.is_empty() {
        let end = rest
            .iter()
            .position(|&b| b == b'\n')
            .map_or(rest.len(), |i| i + 1);
        let (line, tail) = rest.split_at(end);
        rest = tail;
        batch.bytes += line.len() as u64;
        let e = if line.len() > cap {
            batch.overlong += 1;
            parser.push_line(&line[..cap])
        } else if tail.is_empty() && !line.ends_with(b"\n") {
            let mut last = None;
            parser.feed(line, &mut |e| last = Some(e));
            parser.finish(&mut |e| last = Some(e));
            match last {
                Some(e) => e,
                None => break,
            }
        } else {
            parser.push_line(line)
        };
        // Pace by MobileGL's own header clock (whole seconds), so each window arrives when it did.
        if let (Some(x), Some(t)) = (
            speed.filter(|x| *x > 0.0),
            e.hms.as_deref().and_then(seconds),
        ) {
            if let Some(prev) = clock.filter(|p| t > *p) {
                if !send_batch(tx, start, &mut batch) {
                    return;
                }
                thread::sleep(Duration::from_secs(t - prev).div_f64(x).min(MAX_GAP));
            }
            clock = Some(clock.map_or(t, |p| p.max(t)));
        }
        batch.add(e);
        if batch.lines >= 2048 && !send_batch(tx, start, &mut batch) {
            return;
        }
    }
    send_batch(tx, start, &mut batch);
    send_note(
        tx,
        start,
        NoteLevel::Ended,
        format!("replay of {label} finished ({} lines)", parser.lines()),
    );
}

/// Reads a finite source to its end at once (`--once`): a file or replay log, stdin until EOF, or
/// `adb logcat -d` (dump and exit). Returns the batch and what the source said.
pub fn read_all(source: &Source, opts: SourceOptions) -> Result<(Batch, Vec<SourceNote>), Error> {
    let mut batch = Batch::default();
    let mut notes = Vec::new();
    let (bytes, role, what) = match source {
        Source::File(p) | Source::Replay { path: p, .. } => (
            std::fs::read(p).map_err(|e| Error::Read {
                path: p.clone(),
                source: e,
            })?,
            Role::from_path(p),
            p.display().to_string(),
        ),
        Source::Stdin => {
            let mut v = Vec::new();
            io::stdin()
                .lock()
                .read_to_end(&mut v)
                .map_err(|e| Error::Read {
                    path: PathBuf::from("<stdin>"),
                    source: e,
                })?;
            (v, Role::Main, "stdin".to_string())
        }
        Source::Adb { program, serial } => {
            let args = Source::adb_args(serial, true);
            let what = format!("{program} {}", args.join(" "));
            let out = Command::new(program)
                .args(&args)
                .stdin(Stdio::null())
                .output()
                .map_err(|e| Error::Spawn {
                    program: what.clone(),
                    source: e,
                })?;
            if !out.status.success() {
                return Err(Error::Adb {
                    command: what,
                    status: out.status.to_string(),
                    stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
                });
            }
            (out.stdout, Role::Main, what)
        }
    };
    let mut framer = Framer::new(opts.line_cap);
    let mut parser = LogParser::new(role);
    framer.feed(&bytes, &mut parser, &mut batch);
    framer.flush(&mut parser, &mut batch);
    notes.push(SourceNote {
        severity: NoteLevel::Ended,
        text: format!("read {what} to its end ({} lines)", parser.lines()),
    });
    Ok((batch, notes))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn header_clock_and_labels() {
        assert_eq!(seconds("10:04:37"), Some(36277));
        assert_eq!(seconds("1:2"), None);
        assert_eq!(seconds("aa:00:00"), None);
        let s = Source::Replay {
            path: PathBuf::from("x.log"),
            speed: None,
        };
        assert_eq!(s.label(), "replay x.log (as fast as possible)");
        assert_eq!(
            Source::adb_args(&Some("R5".into()), false).join(" "),
            "-s R5 logcat -v threadtime"
        );
        assert_eq!(
            Source::adb_args(&None, true).join(" "),
            "logcat -d -v threadtime"
        );
    }

    #[test]
    fn replay_as_fast_as_possible_delivers_every_line_then_ends() {
        let text = b"[10:00:00] [Linux t/INFO]: MGPipe stats: counters ON (MOBILEGL_PIPE_STATS), summary every 1 frames\n[10:00:01] [Linux t/INFO]: MGPipe stats: frames=1 window=1 draws=3 draws/f=3.00 acc=7 acc/draw=2.33 bytes/f[buf=8.00] tex[emit=0] gates[ers=1/2]\n[10:00:02] [Linux t/INFO]: MGPipe stats: frames=2 window=1 draws=3 draws/f=3.00 acc=7 acc/draw=2.33 bytes/f[buf=8.00] tex[emit=0] gates[ers=1/2]";
        let (tx, rx) = std::sync::mpsc::channel();
        for speed in [None, Some(1000.0)] {
            replay_loop(
                text,
                Role::Main,
                speed,
                SourceOptions::default(),
                &tx,
                Instant::now(),
                "t",
            );
            let mut lines = 0;
            let mut windows = 0;
            let mut ended = false;
            while let Ok(ev) = rx.try_recv() {
                match ev {
                    Event::Data { batch, .. } => {
                        lines += batch.lines;
                        windows += batch
                            .events
                            .iter()
                            .filter(|e| matches!(e.kind, crate::EventKind::Window(_)))
                            .count();
                    }
                    Event::Source { note, .. } => ended |= note.severity == NoteLevel::Ended,
                    _ => {}
                }
            }
            // The last line has no newline but is a whole record: it still counts.
            assert_eq!((lines, windows, ended), (3, 2, true), "{speed:?}");
        }
    }
}
