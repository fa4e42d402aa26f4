//! Reading a live source without parsing it: a bounded line framer and a `tail -F`-like file
//! follower (appends, truncation, rename and rotation). Lines go to [`crate::LogParser::push_line`].

use std::fs::{File, Metadata};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::parser::LogParser;

use super::state::{Batch, NoteLevel, SourceNote};

/// Default line buffer: MobileGL formats a message into a 1,024,000-byte buffer, plus headers.
pub const DEFAULT_LINE_CAP: usize = 1 << 20;

/// Splits bytes into lines with a bounded buffer: a line longer than `cap` is cut to `cap` bytes
/// (and counted), so an endless line without a newline cannot grow memory.
#[derive(Debug, Clone)]
pub struct Framer {
    buf: Vec<u8>,
    cap: usize,
    /// The current line already overflowed: drop bytes until its newline.
    overflowed: bool,
}

impl Framer {
    pub fn new(cap: usize) -> Self {
        Framer {
            buf: Vec::new(),
            cap: cap.max(64),
            overflowed: false,
        }
    }

    /// Bytes of an unfinished line held.
    pub fn pending(&self) -> usize {
        self.buf.len()
    }

    /// Feeds a chunk; every complete line goes through `parser` into `batch`.
    pub fn feed(&mut self, chunk: &[u8], parser: &mut LogParser, batch: &mut Batch) {
        batch.bytes += chunk.len() as u64;
        let mut rest = chunk;
        while !rest.is_empty() {
            match rest.iter().position(|&b| b == b'\n') {
                Some(nl) => {
                    let (head, tail) = rest.split_at(nl + 1);
                    if self.buf.is_empty() && !self.overflowed && head.len() <= self.cap + 2 {
                        batch.add(parser.push_line(head));
                    } else {
                        self.take(&head[..head.len() - 1]);
                        self.emit(parser, batch);
                    }
                    rest = tail;
                }
                None => {
                    self.take(rest);
                    rest = &[];
                }
            }
        }
    }

    fn take(&mut self, bytes: &[u8]) {
        let room = self.cap.saturating_sub(self.buf.len());
        if bytes.len() > room {
            self.buf.extend_from_slice(&bytes[..room]);
            self.overflowed = true;
        } else {
            self.buf.extend_from_slice(bytes);
        }
    }

    fn emit(&mut self, parser: &mut LogParser, batch: &mut Batch) {
        if self.overflowed {
            batch.overlong += 1;
        }
        batch.add(parser.push_line(&self.buf));
        self.buf.clear();
        self.overflowed = false;
    }

    /// The input ended (or the file was rotated away): a held partial line becomes a line.
    pub fn flush(&mut self, parser: &mut LogParser, batch: &mut Batch) {
        if !self.buf.is_empty() || self.overflowed {
            let mut b = Vec::new();
            std::mem::swap(&mut b, &mut self.buf);
            let mut sink = |e| batch.add(e);
            // finish() marks the record as cut, exactly as a whole-file read would.
            parser.feed(&b, &mut sink);
            parser.finish(&mut sink);
            if self.overflowed {
                batch.overlong += 1;
            }
            self.overflowed = false;
        }
    }

    /// Drops a held partial line (the file it came from was truncated); returns its length.
    pub fn discard(&mut self) -> usize {
        let n = self.buf.len();
        self.buf.clear();
        self.overflowed = false;
        n
    }
}

#[cfg(unix)]
fn identity(m: &Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (m.dev(), m.ino())
}

#[cfg(not(unix))]
fn identity(m: &Metadata) -> (u64, u64) {
    // Without inode numbers, creation time stands in for identity.
    let t = m
        .created()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as u64);
    (0, t)
}

/// Follows a path like `tail -F`: reads what is appended; when the name points to a new file
/// (rename/rotation) it first drains the old file to its end, then reads the new one from its
/// start; when the file shrinks (truncation, `copytruncate`) it starts again from the top.
#[derive(Debug)]
pub struct Follower {
    path: PathBuf,
    file: Option<File>,
    id: Option<(u64, u64)>,
    pos: u64,
    framer: Framer,
    parser: LogParser,
    missing_reported: bool,
    buf: Vec<u8>,
}

impl Follower {
    pub fn new(path: &Path, line_cap: usize) -> Self {
        Follower {
            path: path.to_path_buf(),
            file: None,
            id: None,
            pos: 0,
            framer: Framer::new(line_cap),
            parser: LogParser::new(crate::Role::from_path(path)),
            missing_reported: false,
            buf: vec![0; 64 * 1024],
        }
    }

    fn read_to_end(&mut self, batch: &mut Batch, limit: u64) -> io::Result<u64> {
        let Some(file) = self.file.as_mut() else {
            return Ok(0);
        };
        let mut total = 0u64;
        while total < limit {
            let n = match file.read(&mut self.buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            self.pos += n as u64;
            total += n as u64;
            self.framer.feed(&self.buf[..n], &mut self.parser, batch);
        }
        Ok(total)
    }

    /// One poll: reads what is new (at most `limit` bytes, so a huge backlog arrives in several
    /// batches) and checks the path for rotation and truncation. Returns notes about the source.
    pub fn poll(&mut self, batch: &mut Batch, limit: u64) -> Vec<SourceNote> {
        let mut notes = Vec::new();
        let shown = self.path.display().to_string();
        if self.file.is_none() {
            match File::open(&self.path).and_then(|f| f.metadata().map(|m| (f, m))) {
                Ok((f, m)) => {
                    self.id = Some(identity(&m));
                    self.file = Some(f);
                    self.pos = 0;
                    self.missing_reported = false;
                    notes.push(note(NoteLevel::Info, format!("following {shown}")));
                }
                Err(e) => {
                    if !self.missing_reported {
                        self.missing_reported = true;
                        notes.push(note(
                            NoteLevel::Warn,
                            format!("{shown}: {e}; waiting for it to appear"),
                        ));
                    }
                    return notes;
                }
            }
        }
        match self.read_to_end(batch, limit) {
            Ok(n) if n >= limit => return notes, // more to read: come back before checking the name
            Ok(_) => {}
            Err(e) => notes.push(note(
                NoteLevel::Warn,
                format!("{shown}: read error at byte {}: {e}", self.pos),
            )),
        }
        match std::fs::metadata(&self.path) {
            Err(e) => {
                if !self.missing_reported {
                    self.missing_reported = true;
                    notes.push(note(
                        NoteLevel::Warn,
                        format!("{shown} disappeared ({e}); still reading the open file, waiting for the path to come back"),
                    ));
                }
            }
            Ok(m) => {
                self.missing_reported = false;
                if Some(identity(&m)) != self.id {
                    // Rotation: the writer has moved on. Whatever reached the old file before the
                    // rename is read now, so nothing between the last poll and the switch is lost.
                    if let Err(e) = self.read_to_end(batch, u64::MAX) {
                        notes.push(note(
                            NoteLevel::Warn,
                            format!("{shown}: draining the rotated file: {e}"),
                        ));
                    }
                    let old_end = self.pos;
                    self.framer.flush(&mut self.parser, batch);
                    self.file = None;
                    notes.push(note(
                        NoteLevel::Warn,
                        format!("{shown} was rotated or replaced (old file read to its end, {old_end} bytes); reading the new file from its start"),
                    ));
                    notes.extend(
                        self.poll(batch, limit)
                            .into_iter()
                            .filter(|n| !n.text.starts_with("following ")),
                    );
                } else if m.len() < self.pos {
                    let dropped = self.framer.discard();
                    notes.push(note(
                        NoteLevel::Warn,
                        format!(
                            "{shown} was truncated ({} -> {} bytes); reading again from its start{}",
                            self.pos,
                            m.len(),
                            if dropped > 0 { format!(", dropped a {dropped}-byte partial line") } else { String::new() }
                        ),
                    ));
                    if let Some(f) = self.file.as_mut() {
                        match f.seek(SeekFrom::Start(0)) {
                            Ok(_) => self.pos = 0,
                            Err(e) => {
                                notes.push(note(NoteLevel::Warn, format!("{shown}: seek: {e}")))
                            }
                        }
                    }
                    if let Err(e) = self.read_to_end(batch, limit) {
                        notes.push(note(NoteLevel::Warn, format!("{shown}: {e}")));
                    }
                }
            }
        }
        notes
    }

    /// Bytes read from the current file.
    pub fn position(&self) -> u64 {
        self.pos
    }
}

fn note(severity: NoteLevel, text: String) -> SourceNote {
    SourceNote { severity, text }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::EventKind;
    use std::io::Write;

    fn windows(b: &Batch) -> Vec<u64> {
        b.events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Window(w) => Some(w.frames),
                _ => None,
            })
            .collect()
    }

    fn line(frames: u64) -> String {
        format!("[10:00:00] [Linux t/INFO]: MGPipe stats: frames={frames} window=1 draws=2 draws/f=2.00 acc=4 acc/draw=2.00 bytes/f[buf=1.00] tex[emit=0] gates[ers=1/1]\n")
    }

    #[test]
    fn framer_bounds_an_endless_line_and_counts_it() {
        let mut f = Framer::new(400);
        let mut p = LogParser::new(crate::Role::Main);
        let mut b = Batch::default();
        for _ in 0..1000 {
            f.feed(&[b'x'; 1000], &mut p, &mut b);
            assert!(f.pending() <= 400);
        }
        f.feed(b"\n", &mut p, &mut b);
        f.feed(line(1).as_bytes(), &mut p, &mut b);
        assert_eq!(b.overlong, 1);
        assert_eq!(b.lines, 2);
        assert_eq!(windows(&b), vec![1]);
    }

    #[test]
    fn framer_joins_split_lines() {
        let text = line(7);
        let mut f = Framer::new(4096);
        let mut p = LogParser::new(crate::Role::Main);
        let mut b = Batch::default();
        for c in text.as_bytes().chunks(5) {
            f.feed(c, &mut p, &mut b);
        }
        assert_eq!(windows(&b), vec![7]);
        assert_eq!(b.bytes, text.len() as u64);
    }

    #[test]
    fn follows_appends_rotation_and_truncation_without_loss() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mobilegl.log");
        let mut fol = Follower::new(&path, DEFAULT_LINE_CAP);
        let mut b = Batch::default();
        let notes = fol.poll(&mut b, u64::MAX);
        assert!(
            notes[0].text.contains("waiting for it to appear"),
            "{notes:?}"
        );
        let mut w = std::fs::File::create(&path).unwrap();
        w.write_all(line(1).as_bytes()).unwrap();
        // half a line: must wait for the rest
        let l2 = line(2);
        w.write_all(&l2.as_bytes()[..20]).unwrap();
        fol.poll(&mut b, u64::MAX);
        assert_eq!(windows(&b), vec![1]);
        w.write_all(&l2.as_bytes()[20..]).unwrap();
        w.write_all(line(3).as_bytes()).unwrap();
        // rotate: the old name moves away, a new file takes the name, before the follower looks
        std::fs::rename(&path, dir.path().join("mobilegl.log.1")).unwrap();
        let mut w2 = std::fs::File::create(&path).unwrap();
        w2.write_all(line(4).as_bytes()).unwrap();
        let notes = fol.poll(&mut b, u64::MAX);
        assert!(
            notes.iter().any(|n| n.text.contains("rotated")),
            "{notes:?}"
        );
        assert_eq!(windows(&b), vec![1, 2, 3, 4]);
        // truncation in place (copytruncate): seen as the size going below the read position
        w2.set_len(0).unwrap();
        drop(w2);
        let notes = fol.poll(&mut b, u64::MAX);
        assert!(
            notes.iter().any(|n| n.text.contains("truncated")),
            "{notes:?}"
        );
        std::fs::write(&path, line(5)).unwrap();
        fol.poll(&mut b, u64::MAX);
        assert_eq!(windows(&b), vec![1, 2, 3, 4, 5]);
        // disappearance is reported once and is not fatal
        std::fs::remove_file(&path).unwrap();
        let notes = fol.poll(&mut b, u64::MAX);
        assert!(
            notes.iter().any(|n| n.text.contains("disappeared")),
            "{notes:?}"
        );
        assert!(fol.poll(&mut b, u64::MAX).is_empty());
        std::fs::write(&path, line(6)).unwrap();
        fol.poll(&mut b, u64::MAX);
        assert_eq!(windows(&b), vec![1, 2, 3, 4, 5, 6]);
    }
}
