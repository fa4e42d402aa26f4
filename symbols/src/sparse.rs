//! Owned, sparse reads of a library file: the byte ranges the ELF reader asks for, read at their
//! offsets, merged, and checked against the length the file had when opened.

use std::fs::File;
use std::path::Path;

use crate::error::{Error, Result};

/// The byte ranges of a file the reader needs, each read into an owned buffer at its file
/// offset. Nothing is mapped: a library rewritten while mgctl reads it cannot fault the process
/// (a map would raise SIGBUS), and the change is detected and reported instead. For libLLVM
/// (110 MB) the symbol tables, string tables, version tables and notes are a few MB.
pub(crate) struct Sparse {
    pub(crate) len: u64,
    /// Sorted by start, disjoint.
    pub(crate) parts: Vec<Part>,
}

pub(crate) struct Part {
    start: u64,
    len: usize,
    /// u64 words keep every part 8-byte aligned, as ELF structures need (a `Vec<u8>` may not be).
    words: Vec<u64>,
}

impl Part {
    pub(crate) fn bytes(&self) -> &[u8] {
        let all = object::pod::bytes_of_slice(&self.words);
        all.get(..self.len).unwrap_or(all)
    }
}

impl Sparse {
    /// The part holding `offset`, and `offset` within it.
    fn locate(&self, offset: u64) -> Option<(&Part, usize)> {
        let i = self
            .parts
            .partition_point(|p| p.start <= offset)
            .checked_sub(1)?;
        let p = self.parts.get(i)?;
        let local = usize::try_from(offset - p.start).ok()?;
        (local <= p.len).then_some((p, local))
    }
}

impl<'a> object::ReadRef<'a> for &'a Sparse {
    fn len(self) -> std::result::Result<u64, ()> {
        Ok(self.len)
    }

    fn read_bytes_at(self, offset: u64, size: u64) -> std::result::Result<&'a [u8], ()> {
        if size == 0 {
            return Ok(&[]);
        }
        let (p, local) = self.locate(offset).ok_or(())?;
        let size = usize::try_from(size).map_err(|_| ())?;
        p.bytes().get(local..).ok_or(())?.get(..size).ok_or(())
    }

    fn read_bytes_at_until(
        self,
        range: std::ops::Range<u64>,
        delimiter: u8,
    ) -> std::result::Result<&'a [u8], ()> {
        let (p, local) = self.locate(range.start).ok_or(())?;
        let want = range.end.checked_sub(range.start).ok_or(())?;
        let end = local.saturating_add(usize::try_from(want).unwrap_or(usize::MAX));
        let bytes = p.bytes();
        let bytes = bytes.get(local..end.min(bytes.len())).ok_or(())?;
        object::ReadRef::read_bytes_at_until(bytes, 0..bytes.len() as u64, delimiter)
    }
}

/// Reads byte ranges of one open file, noticing a file that shrinks under it.
pub(crate) struct Loader<'f> {
    pub(crate) file: &'f File,
    pub(crate) path: &'f Path,
    pub(crate) len: u64,
    pub(crate) sparse: Sparse,
}

impl Loader<'_> {
    /// Read `[start, start + size)` (clamped to the file; widened to 8-byte alignment), unless
    /// already held. A range outside the file is left out: the parser then names the bad field.
    pub(crate) fn add(&mut self, start: u64, size: u64) -> Result<()> {
        let start8 = start & !7;
        let end = start.saturating_add(size).min(self.len);
        if end <= start8 || start >= self.len {
            return Ok(());
        }
        if let Some((p, local)) = self.sparse.locate(start8) {
            if (local as u64) + (end - start8) <= p.len as u64 {
                return Ok(());
            }
        }
        // Merge with every part it touches, so parts stay disjoint and each read is one range.
        let mut lo = start8;
        let mut hi = end;
        let mut keep = Vec::with_capacity(self.sparse.parts.len() + 1);
        let mut merged = Vec::new();
        for p in self.sparse.parts.drain(..) {
            let p_end = p.start + p.len as u64;
            if p_end < lo || p.start > hi {
                keep.push(p);
            } else {
                lo = lo.min(p.start);
                hi = hi.max(p_end);
                merged.push(p);
            }
        }
        let len = usize::try_from(hi - lo).map_err(|_| Error::TooLarge {
            path: self.path.to_path_buf(),
            limit: usize::MAX as u64,
        })?;
        let mut words = vec![0u64; len.div_ceil(8)];
        let buf = object::pod::bytes_of_slice_mut(&mut words);
        let buf = &mut buf[..len];
        // Parts already held are copied rather than read again.
        let mut at = lo;
        merged.sort_by_key(|p| p.start);
        for p in &merged {
            if p.start > at {
                self.read_at(&mut buf[(at - lo) as usize..(p.start - lo) as usize], at)?;
            }
            let from = (p.start - lo) as usize;
            buf[from..from + p.len].copy_from_slice(p.bytes());
            at = at.max(p.start + p.len as u64);
        }
        if at < hi {
            self.read_at(&mut buf[(at - lo) as usize..], at)?;
        }
        keep.push(Part {
            start: lo,
            len,
            words,
        });
        keep.sort_by_key(|p| p.start);
        self.sparse.parts = keep;
        Ok(())
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<()> {
        use std::os::unix::fs::FileExt;
        self.file.read_exact_at(buf, offset).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                Error::Changed {
                    path: self.path.to_path_buf(),
                    what: format!(
                        "it was {} bytes when opened and ended before byte {}",
                        self.len,
                        offset + buf.len() as u64
                    ),
                }
            } else {
                Error::Io {
                    path: self.path.to_path_buf(),
                    source: e,
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file that ends before the length it had when opened was rewritten under the reader:
    /// an input error naming it, not a fault or a parse of half old, half new bytes.
    #[test]
    fn a_file_that_shrinks_while_read_is_reported_as_changed() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("lib.so");
        std::fs::write(&path, [0u8; 100]).unwrap_or_else(|e| panic!("{e}"));
        let file = File::open(&path).unwrap_or_else(|e| panic!("{e}"));
        let mut ld = Loader {
            file: &file,
            path: &path,
            len: 200,
            sparse: Sparse {
                len: 200,
                parts: Vec::new(),
            },
        };
        let err = ld
            .add(0, 150)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("changed while being read"), "{err}");
    }

    /// Overlapping and adjacent reads merge into disjoint parts that serve every range.
    #[test]
    fn reads_merge_and_serve_every_range() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("lib.so");
        let bytes: Vec<u8> = (0..=255u8).cycle().take(4096).collect();
        std::fs::write(&path, &bytes).unwrap_or_else(|e| panic!("{e}"));
        let file = File::open(&path).unwrap_or_else(|e| panic!("{e}"));
        let mut ld = Loader {
            file: &file,
            path: &path,
            len: 4096,
            sparse: Sparse {
                len: 4096,
                parts: Vec::new(),
            },
        };
        for (s, n) in [(100, 50), (3000, 10), (140, 400), (9, 3), (5000, 10)] {
            ld.add(s, n).unwrap_or_else(|e| panic!("{e}"));
        }
        let sp = &ld.sparse;
        assert!(sp
            .parts
            .windows(2)
            .all(|w| w[0].start + w[0].len as u64 <= w[1].start));
        for (s, n) in [(100u64, 440u64), (3000, 10), (9, 3)] {
            let got = object::ReadRef::read_bytes_at(sp, s, n).unwrap_or(&[]);
            assert_eq!(got, &bytes[s as usize..(s + n) as usize]);
        }
        assert!(object::ReadRef::read_bytes_at(sp, 2000, 4).is_err());
    }
}
