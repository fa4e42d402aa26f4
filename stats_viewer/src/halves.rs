//! [`Log::open`] of a large file on two cores (issue 16): the file is split at the first line
//! boundary past its middle, a second thread parses the second half while this one parses and
//! builds the first, then the second half's events are pushed in file order, their line numbers
//! moved past the first half's. Sessions and windows are order-dependent, so the halves are never
//! built apart: only the parsing (envelopes, windows, names) runs twice at once.
//!
//! The result is the serial one exactly. Whatever the second half cannot reproduce is given back
//! to the serial path: a NUL byte or a read error anywhere (`None`: the caller re-reads the file,
//! so the error names the same line), or a window name new to the process table, which must be
//! interned in file order (the first half then goes on through the second half itself).

use std::cell::Cell;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::parser::{Event, EventKind, Ignored, LogParser, Role};
use crate::session::{pump, Log, LogBuilder};

/// Files smaller than this are parsed on one thread: the second thread would cost more than it
/// saves (a 4 MiB log parses in about 3 ms).
pub(crate) const PARALLEL_MIN: u64 = 4 << 20;

/// One event of the second half, as the builder needs it: lines it only counts are kept in a
/// few bytes instead of a whole [`Event`], and a run of alike ignored lines in one slot (nine
/// lines in ten of a logcat capture are other tags').
enum Slot {
    /// The next event of the kept list.
    Kept,
    /// `n` ignored lines in a row, for the same reason and equally (not) UTF-8. The builder only
    /// counts an ignored line, so its number and pid are not kept.
    Ignored { why: Ignored, lossy: bool, n: u32 },
    Other {
        line: usize,
        pid: Option<u32>,
        role: Role,
        lossy: bool,
    },
}

/// The parsed second half: relative line numbers, in order.
struct Half {
    slots: Vec<Slot>,
    kept: Vec<Event>,
    crlf: usize,
    bytes: u64,
}

/// Why the second half was given back.
enum GiveBack {
    /// A NUL byte or a read error: the whole file goes to the serial path.
    Serial,
    /// A name new to the process: the first half's thread parses the second half in order.
    NewName,
}

/// Parses `path` (a regular file of `len` bytes) on two threads; None when the serial path must
/// read it instead (a single core, no line boundary past the middle, a NUL, a read error).
pub(crate) fn open(path: &Path, len: u64) -> Option<Log> {
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        return None;
    }
    let mid = split_point(path, len)?;
    let role = Role::from_path(path);
    std::thread::scope(|scope| {
        let second = scope.spawn(move || parse_second(path, mid, role));
        let mut parser = LogParser::new(role);
        let mut b = LogBuilder::new(path, role);
        let binary = Cell::new(None);
        let first = File::open(path).ok().and_then(|f| {
            let mut sink = building(&mut b, &binary);
            pump(path, &mut f.take(mid), &mut parser, &binary, &mut sink).ok()
        });
        // Without its result the scope still joins the second thread before returning.
        let second = second.join().ok()?;
        let first =
            first.filter(|n| *n == mid && binary.get().is_none() && !parser.has_partial())?;
        let (total, crlf) = match second {
            Ok(h) => {
                let offset = parser.lines();
                merge(&mut b, h.slots, h.kept, offset);
                (first + h.bytes, parser.crlf_lines() + h.crlf)
            }
            Err(GiveBack::Serial) => return None,
            Err(GiveBack::NewName) => {
                let mut f = File::open(path).ok()?;
                f.seek(SeekFrom::Start(mid)).ok()?;
                let mut sink = building(&mut b, &binary);
                let rest = pump(path, &mut f, &mut parser, &binary, &mut sink).ok()?;
                parser.finish(&mut sink);
                if binary.get().is_some() {
                    return None;
                }
                (first + rest, parser.crlf_lines())
            }
        };
        let mut log = b.finish(crlf);
        log.bytes = total;
        Some(log)
    })
}

/// The sink of this thread's parse: every event into the builder, the first binary line noted.
fn building<'a>(b: &'a mut LogBuilder, binary: &'a Cell<Option<usize>>) -> impl FnMut(Event) + 'a {
    move |e: Event| {
        if e.kind == EventKind::Ignored(Ignored::Binary) {
            binary.set(Some(e.line));
        }
        b.push(e);
    }
}

/// The byte just after the first `\n` at or past the middle of the file.
fn split_point(path: &Path, len: u64) -> Option<u64> {
    let mut f = File::open(path).ok()?;
    let mut at = len / 2;
    f.seek(SeekFrom::Start(at)).ok()?;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = f.read(&mut buf).ok()?;
        if n == 0 {
            return None;
        }
        if let Some(i) = memchr::memchr(b'\n', &buf[..n]) {
            let mid = at + i as u64 + 1;
            return (mid < len).then_some(mid);
        }
        at += n as u64;
    }
}

/// The second thread: parses from `mid` to the end, looking names up without interning any.
fn parse_second(path: &Path, mid: u64, role: Role) -> Result<Half, GiveBack> {
    let mut f = File::open(path).map_err(|_| GiveBack::Serial)?;
    f.seek(SeekFrom::Start(mid)).map_err(|_| GiveBack::Serial)?;
    let mut parser = LogParser::new(role);
    let mut slots = Vec::new();
    let mut kept = Vec::new();
    let binary = Cell::new(None);
    let mut sink = |e: Event| match e.kind {
        EventKind::Ignored(why) => {
            if why == Ignored::Binary {
                binary.set(Some(e.line));
            }
            match slots.last_mut() {
                Some(Slot::Ignored { why: w, lossy, n })
                    if *w == why && *lossy == e.lossy && *n < u32::MAX =>
                {
                    *n += 1
                }
                _ => slots.push(Slot::Ignored {
                    why,
                    lossy: e.lossy,
                    n: 1,
                }),
            }
        }
        EventKind::Other => slots.push(Slot::Other {
            line: e.line,
            pid: e.pid,
            role: e.role,
            lossy: e.lossy,
        }),
        _ => {
            slots.push(Slot::Kept);
            // The builder keeps no clock text: drop it now rather than hold it until the merge.
            kept.push(Event { hms: None, ..e });
        }
    };
    let _lookup = crate::window::LookupOnly::on();
    let bytes =
        pump(path, &mut f, &mut parser, &binary, &mut sink).map_err(|_| GiveBack::Serial)?;
    parser.finish(&mut sink);
    if binary.get().is_some() {
        return Err(GiveBack::Serial);
    }
    if crate::window::LookupOnly::met_new_name() {
        return Err(GiveBack::NewName);
    }
    Ok(Half {
        slots,
        kept,
        crlf: parser.crlf_lines(),
        bytes,
    })
}

/// Pushes the second half's events in order, each line number moved past the first half's.
fn merge(b: &mut LogBuilder, slots: Vec<Slot>, kept: Vec<Event>, offset: usize) {
    let mut kept = kept.into_iter();
    for s in slots {
        let e = match s {
            Slot::Kept => match kept.next() {
                Some(e) => e,
                None => break,
            },
            Slot::Ignored { why, lossy, n } => {
                for _ in 0..n {
                    b.push(bare(0, None, Role::Main, EventKind::Ignored(why), lossy));
                }
                continue;
            }
            Slot::Other {
                line,
                pid,
                role,
                lossy,
            } => bare(line, pid, role, EventKind::Other, lossy),
        };
        b.push(Event {
            line: e.line + offset,
            ..e
        });
    }
}

/// An event with only what the builder reads of a counted line.
fn bare(line: usize, pid: Option<u32>, role: Role, kind: EventKind, lossy: bool) -> Event {
    Event {
        line,
        pid,
        role,
        level: None,
        hms: None,
        envelope: None,
        kind,
        lossy,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// The two-core parse of `bytes` next to the serial one; None when it gave the file back.
    fn both(name: &str, bytes: &[u8]) -> (Option<Log>, Log) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        let halves = open(&p, bytes.len() as u64);
        (halves, Log::from_reader(&p, bytes).unwrap())
    }

    #[test]
    fn every_sample_parses_the_same_on_two_cores() {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
        let mut split = 0;
        for e in std::fs::read_dir(data).unwrap() {
            let p = e.unwrap().path();
            // Subdirectories hold fixtures of other readers (`frames/`: role-log pairs).
            if !p.is_file() {
                continue;
            }
            let bytes = std::fs::read(&p).unwrap();
            let name = p.file_name().unwrap().to_str().unwrap().to_string();
            let (h, serial) = both(&name, &bytes);
            if let Some(h) = h {
                assert_eq!(h, serial, "{name}");
                split += 1;
            }
        }
        assert!(split >= 8, "only {split} samples were split");
    }

    #[test]
    fn crlf_cut_last_line_and_overlong_lines_match() {
        let mut text = Vec::new();
        for i in 0..200u32 {
            let line = format!("[10:00:{:02}] [Linux t/INFO]: MGPipe stats: frames={} window=1 draws=3 draws/f=3.00 acc=7 acc/draw=2.33 bytes/f[buf=8.00]\r\n", i % 60, i + 1);
            text.extend_from_slice(line.as_bytes());
            if i % 7 == 0 {
                text.extend_from_slice(&vec![b'x'; 70_000]);
                text.push(b'\n');
            }
        }
        text.extend_from_slice(b"[10:00:00] [Linux t/INFO]: MGPipe stats: frames=");
        let (h, serial) = both("crlf.log", &text);
        assert_eq!(h.unwrap(), serial);
    }

    #[test]
    fn a_name_first_seen_in_the_second_half_is_interned_in_file_order() {
        let mut text = String::new();
        for i in 0..400u32 {
            let extra = if i >= 300 {
                " zzhalves[only_late=1]"
            } else {
                ""
            };
            text.push_str(&format!("[10:00:00] [Linux t/INFO]: MGPipe stats: frames={} window=1 draws=3 draws/f=3.00 acc=7 acc/draw=2.33{extra}\n", i + 1));
        }
        let (h, serial) = both("late.log", text.as_bytes());
        let h = h.unwrap();
        assert_eq!(h, serial);
        let w = &h.sessions[0].windows.last().unwrap().item;
        assert!(w.get("zzhalves.only_late").is_some());
    }

    #[test]
    fn a_nul_byte_in_either_half_goes_to_the_serial_path() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("nul.log");
        for at in [6000, 100] {
            let mut text = b"a line\n".repeat(1000);
            text[at] = 0;
            std::fs::write(&p, &text).unwrap();
            assert!(open(&p, text.len() as u64).is_none(), "NUL at {at}");
        }
    }
}
