//! Parse: the only code that touches library bytes. One reader (`object`) over owned reads of
//! the parts of the file it needs (no memory map).

use std::borrow::Cow;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use object::elf;
use object::read::elf::{FileHeader, SectionHeader, SectionTable, Sym, SymbolTable, VersionTable};
use object::{Endianness, ReadRef, SectionIndex, SymbolIndex};

use crate::error::{Error, Result};
use crate::fast::FastSet;
use crate::model::{
    Binding, Identity, Library, SectionSize, Symbol, Table, TableChoice, Visibility,
};

/// The byte ranges of a file the reader needs, each read into an owned buffer at its file
/// offset. Nothing is mapped: a library rewritten while mgctl reads it cannot fault the process
/// (a map would raise SIGBUS), and the change is detected and reported instead. For libLLVM
/// (110 MB) the symbol tables, string tables, version tables and notes are a few MB.
pub struct Sparse {
    len: u64,
    /// Sorted by start, disjoint.
    parts: Vec<Part>,
}

struct Part {
    start: u64,
    len: usize,
    /// u64 words keep every part 8-byte aligned, as ELF structures need (a `Vec<u8>` may not be).
    words: Vec<u64>,
}

impl Part {
    fn bytes(&self) -> &[u8] {
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
struct Loader<'f> {
    file: &'f File,
    path: &'f Path,
    len: u64,
    sparse: Sparse,
}

impl Loader<'_> {
    /// Read `[start, start + size)` (clamped to the file; widened to 8-byte alignment), unless
    /// already held. A range outside the file is left out: the parser then names the bad field.
    fn add(&mut self, start: u64, size: u64) -> Result<()> {
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

/// What kind of file this is, for the error about it not being a regular file.
fn file_kind(ft: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_fifo() {
        "FIFO (named pipe)"
    } else if ft.is_socket() {
        "socket"
    } else if ft.is_char_device() {
        "character device"
    } else if ft.is_block_device() {
        "block device"
    } else {
        "special file"
    }
}

/// Read the parts of an ELF file the symbol reader needs: the header, the section header table
/// and the sections holding symbols, strings, versions and notes.
fn load<Elf: FileHeader<Endian = Endianness>>(ld: &mut Loader<'_>) -> Result<()> {
    let path = ld.path;
    ld.add(0, std::mem::size_of::<Elf>() as u64)?;
    let header =
        *Elf::parse(&ld.sparse).map_err(|e| malformed(path, "ELF header at offset 0", e))?;
    let endian = header
        .endian()
        .map_err(|e| malformed(path, "ELF header at offset 5", e))?;
    let shoff: u64 = header.e_shoff(endian).into();
    if shoff == 0 {
        // No section headers: the dynamic symbols are found through the program headers
        // (elf_dynamic), at addresses only they map; the file is read whole.
        return ld.add(0, ld.len);
    }
    let entsize = u64::from(header.e_shentsize(endian));
    // Section 0 first: it holds the real section count when e_shnum overflows.
    ld.add(shoff, entsize)?;
    let Ok(shnum) = header.shnum(endian, &ld.sparse) else {
        return Ok(());
    };
    ld.add(shoff, (shnum as u64).saturating_mul(entsize))?;
    let Ok(headers) = header.section_headers(endian, &ld.sparse) else {
        return Ok(());
    };
    let headers: Vec<Elf::SectionHeader> = headers.to_vec();
    let shstrndx = header.shstrndx(endian, &ld.sparse).unwrap_or(0) as usize;
    for (i, h) in headers.iter().enumerate() {
        let t = h.sh_type(endian);
        let wanted = i == shstrndx
            || matches!(
                t,
                elf::SHT_SYMTAB
                    | elf::SHT_DYNSYM
                    | elf::SHT_STRTAB
                    | elf::SHT_SYMTAB_SHNDX
                    | elf::SHT_GNU_VERSYM
                    | elf::SHT_GNU_VERDEF
                    | elf::SHT_GNU_VERNEED
                    | elf::SHT_NOTE
            );
        if wanted && t != elf::SHT_NOBITS {
            ld.add(h.sh_offset(endian).into(), h.sh_size(endian).into())?;
        }
    }
    Ok(())
}

/// Read a library from disk into owned buffers (see [`Sparse`]), then parse it. A path that is
/// not a regular file, or a file that changes size or modification time while it is read, is
/// an error naming it.
pub fn read_library(path: &Path, choice: TableChoice) -> Result<Library> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if meta.is_dir() {
        return Err(Error::Directory {
            path: path.to_path_buf(),
        });
    }
    if !meta.is_file() {
        return Err(Error::NotRegular {
            path: path.to_path_buf(),
            kind: file_kind(meta.file_type()),
        });
    }
    let file = File::open(path).map_err(io)?;
    let before = file.metadata().map_err(io)?;
    let len = before.len();
    if len == 0 {
        return Err(Error::Empty {
            path: path.to_path_buf(),
        });
    }
    let mut ld = Loader {
        file: &file,
        path,
        len,
        sparse: Sparse {
            len,
            parts: Vec::new(),
        },
    };
    ld.add(0, 16)?;
    let ident = ld
        .sparse
        .parts
        .first()
        .map(|p| p.bytes().to_vec())
        .unwrap_or_default();
    if ident.len() >= 5 && &ident[..4] == b"\x7fELF" {
        match ident[4] {
            1 => load::<elf::FileHeader32<Endianness>>(&mut ld)?,
            2 => load::<elf::FileHeader64<Endianness>>(&mut ld)?,
            _ => {}
        }
    }
    let after = file.metadata().map_err(io)?;
    if after.len() != len || after.modified().ok() != before.modified().ok() {
        return Err(Error::Changed {
            path: path.to_path_buf(),
            what: format!(
                "{} bytes when opened, {} bytes after reading{}",
                len,
                after.len(),
                if after.len() == len {
                    ", modification time moved"
                } else {
                    ""
                }
            ),
        });
    }
    let sparse = ld.sparse;
    parse_from(&sparse, path, choice)
}

/// Parse ELF bytes (32/64-bit, either endianness) into a [`Library`].
pub fn parse(data: &[u8], path: &Path, choice: TableChoice) -> Result<Library> {
    parse_from(data, path, choice)
}

/// Parse from any reader of the file's bytes: a whole buffer, or the parts [`read_library`] read.
fn parse_from<'a, R: ReadRef<'a>>(data: R, path: &Path, choice: TableChoice) -> Result<Library> {
    let len = data.len().unwrap_or(0);
    if len == 0 {
        return Err(Error::Empty {
            path: path.to_path_buf(),
        });
    }
    let head = data.read_bytes_at(0, len.min(5)).unwrap_or(&[]);
    if head.len() < 4 || &head[..4] != b"\x7fELF" {
        let magic = head
            .iter()
            .take(4)
            .map(|b| format!("{b:02x}"))
            .collect::<Vec<_>>()
            .join(" ");
        return Err(Error::NotElf {
            path: path.to_path_buf(),
            magic,
        });
    }
    match head.get(4) {
        Some(1) => parse_elf::<elf::FileHeader32<Endianness>, R>(data, len, path, choice),
        Some(2) => parse_elf::<elf::FileHeader64<Endianness>, R>(data, len, path, choice),
        other => Err(malformed(
            path,
            "ELF header at offset 4",
            format!("bad EI_CLASS {other:?}"),
        )),
    }
}

fn malformed(path: &Path, what: impl Into<String>, reason: impl std::fmt::Display) -> Error {
    Error::Malformed {
        path: path.to_path_buf(),
        what: what.into(),
        reason: reason.to_string(),
    }
}

fn machine_name(e_machine: u16) -> String {
    match e_machine {
        elf::EM_X86_64 => "x86-64".into(),
        elf::EM_386 => "i386".into(),
        elf::EM_AARCH64 => "AArch64".into(),
        elf::EM_ARM => "ARM".into(),
        elf::EM_RISCV => "RISC-V".into(),
        elf::EM_PPC64 => "PowerPC64".into(),
        elf::EM_PPC => "PowerPC".into(),
        elf::EM_MIPS => "MIPS".into(),
        elf::EM_S390 => "S/390".into(),
        elf::EM_LOONGARCH => "LoongArch".into(),
        other => format!("EM_{other}"),
    }
}

/// Flags of a section as BFD derives them, reduced to what `nm` letters and `size` rows need.
#[derive(Clone, Copy)]
struct SecFlags {
    code: bool,
    data: bool,
    readonly: bool,
    has_contents: bool,
    debugging: bool,
    alloc: bool,
}

fn sec_flags(sh_type: u32, sh_flags: u64, name: &[u8]) -> SecFlags {
    let has_contents = sh_type != elf::SHT_NOBITS;
    let alloc = sh_flags & u64::from(elf::SHF_ALLOC) != 0;
    let load = alloc && has_contents;
    let code = sh_flags & u64::from(elf::SHF_EXECINSTR) != 0;
    let debugging = [
        &b".debug"[..],
        b".gnu.debuglto_.debug_",
        b".gnu.linkonce.wi.",
        b".zdebug",
        b".line",
        b".stab",
    ]
    .iter()
    .any(|p| name.starts_with(p));
    SecFlags {
        code,
        data: !code && load,
        readonly: sh_flags & u64::from(elf::SHF_WRITE) == 0,
        has_contents,
        debugging,
        alloc,
    }
}

/// BFD's `decode_section_type` (binutils 2.40 `syms.c`), without the small-data variants.
fn section_letter(f: SecFlags) -> char {
    if f.code {
        't'
    } else if f.data {
        if f.readonly {
            'r'
        } else {
            'd'
        }
    } else if !f.has_contents {
        'b'
    } else if f.debugging {
        'N'
    } else if f.readonly {
        'n'
    } else {
        '?'
    }
}

/// Mapping symbols (`$x`, `$d`, `$a`, `$t`, …) that `nm` hides unless `--special-syms`.
fn is_special(machine: u16, name: &[u8]) -> bool {
    if !matches!(machine, elf::EM_ARM | elf::EM_AARCH64 | elf::EM_RISCV)
        || name.first() != Some(&b'$')
    {
        return false;
    }
    match name.get(1) {
        Some(b'a' | b'd' | b't' | b'x' | b'c') => {
            name.len() == 2 || name[2] == b'.' || (machine == elf::EM_RISCV && name[1] == b'x')
        }
        _ => false,
    }
}

struct Ctx<'c, 'a, Elf: FileHeader<Endian = Endianness>, R: ReadRef<'a>> {
    path: &'c Path,
    endian: Endianness,
    machine: u16,
    sections: &'c SectionTable<'a, Elf, R>,
    /// nm's section letter per section index, computed once.
    letters: Vec<char>,
    data: R,
}

/// The symbols of one table, split into (defined, undefined), in table order.
fn read_table<'a, Elf: FileHeader<Endian = Endianness>, R: ReadRef<'a>>(
    cx: &Ctx<'_, 'a, Elf, R>,
    table: &SymbolTable<'a, Elf, R>,
    versions: Option<&VersionTable<'a, Elf>>,
    what: &str,
) -> Result<(Vec<Symbol>, Vec<Symbol>)> {
    let endian = cx.endian;
    let mut defined = Vec::with_capacity(table.len());
    let mut undefined = Vec::new();
    // One shared string per version name (a table has a handful, and every symbol carries one).
    let mut names = VersionNames::default();
    let strings = TableText::of(cx, table);
    for (index, sym) in table.enumerate() {
        if index.0 == 0 {
            continue;
        }
        let st_type = sym.st_type();
        if st_type == elf::STT_SECTION || st_type == elf::STT_FILE {
            continue;
        }
        let raw = table
            .symbol_name(endian, sym)
            .map_err(|e| malformed(cx.path, format!("{what} symbol {}", index.0), e))?;
        if is_special(cx.machine, raw) {
            continue;
        }
        let symbol = symbol(
            cx, table, versions, &mut names, index, sym, raw, &strings, what,
        )?;
        if symbol.defined {
            defined.push(symbol);
        } else {
            undefined.push(symbol);
        }
    }
    Ok((defined, undefined))
}

/// A symbol table's string section, validated as UTF-8 once: a name inside it is then a slice
/// of it, not checked again (one pass over 3 MB instead of one call per name).
struct TableText<'a> {
    text: Option<&'a str>,
}

impl<'a> TableText<'a> {
    fn of<Elf: FileHeader<Endian = Endianness>, R: ReadRef<'a>>(
        cx: &Ctx<'_, 'a, Elf, R>,
        table: &SymbolTable<'a, Elf, R>,
    ) -> Self {
        let text = cx
            .sections
            .section(table.string_section())
            .ok()
            .and_then(|h| h.data(cx.endian, cx.data).ok())
            .and_then(|b| std::str::from_utf8(b).ok());
        TableText { text }
    }

    /// `raw` as text when it lies inside the validated section and starts and ends on
    /// character boundaries (a name may be the tail of another); `None` sends the caller to
    /// the per-name check, which gives the same answer.
    fn get(&self, raw: &[u8]) -> Option<&'a str> {
        let text = self.text?;
        let start = (raw.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
        text.get(start..start.checked_add(raw.len())?)
    }

    /// The name's text: a slice of the checked section, else checked here (lossy when it is
    /// not UTF-8). Either way the same text as checking `raw` alone.
    fn text<'r>(&self, raw: &'r [u8]) -> Cow<'r, str>
    where
        'a: 'r,
    {
        match self.get(raw).map_or_else(|| std::str::from_utf8(raw), Ok) {
            Ok(t) => Cow::Borrowed(t),
            Err(_) => String::from_utf8_lossy(raw),
        }
    }
}

/// Version names already seen, to share one `Arc<str>` per distinct name. Runs of symbols
/// carry the same version, so the last one is compared before anything is hashed.
#[derive(Default)]
struct VersionNames {
    seen: FastSet<Arc<str>>,
    last: Option<Arc<str>>,
}

impl VersionNames {
    fn get(&mut self, name: &str) -> Arc<str> {
        if let Some(v) = self.last.as_ref().filter(|v| ***v == *name) {
            return v.clone();
        }
        let v = match self.seen.get(name) {
            Some(v) => v.clone(),
            None => {
                let v: Arc<str> = Arc::from(name);
                self.seen.insert(v.clone());
                v
            }
        };
        self.last = Some(v.clone());
        v
    }

    /// [`VersionNames::get`] of the lossy text of `raw`, comparing the bytes with the last
    /// version first (nearly every symbol repeats its neighbour's) so no text is built.
    fn get_bytes(&mut self, raw: &[u8]) -> Arc<str> {
        if let Some(v) = self.last.as_ref().filter(|v| v.as_bytes() == raw) {
            return v.clone();
        }
        self.get(&String::from_utf8_lossy(raw))
    }
}

#[allow(clippy::too_many_arguments)]
fn symbol<'a, Elf: FileHeader<Endian = Endianness>, R: ReadRef<'a>>(
    cx: &Ctx<'_, 'a, Elf, R>,
    table: &SymbolTable<'a, Elf, R>,
    versions: Option<&VersionTable<'a, Elf>>,
    version_names: &mut VersionNames,
    index: SymbolIndex,
    sym: &Elf::Sym,
    raw: &[u8],
    strings: &TableText<'a>,
    what: &str,
) -> Result<Symbol> {
    let endian = cx.endian;
    let shndx = sym.st_shndx(endian);
    let st_type = sym.st_type();
    let binding = match sym.st_bind() {
        elf::STB_LOCAL => Binding::Local,
        elf::STB_GLOBAL => Binding::Global,
        elf::STB_WEAK => Binding::Weak,
        elf::STB_GNU_UNIQUE => Binding::Unique,
        _ => Binding::Other,
    };
    let visibility = match sym.st_visibility() {
        elf::STV_INTERNAL => Visibility::Internal,
        elf::STV_HIDDEN => Visibility::Hidden,
        elf::STV_PROTECTED => Visibility::Protected,
        _ => Visibility::Default,
    };
    let defined = shndx != elf::SHN_UNDEF;
    // bfd_decode_symclass, in its order of tests.
    let kind = nm_letter(shndx, st_type, binding, || -> Result<char> {
        if shndx == elf::SHN_ABS {
            return Ok('a');
        }
        match table.symbol_section(endian, sym, index) {
            Ok(Some(sec)) => Ok(cx.letters.get(sec.0).copied().unwrap_or('a')),
            // Reserved indices BFD does not map land in its absolute section.
            Ok(None) => Ok('a'),
            Err(e) => Err(malformed(cx.path, format!("{what} symbol {}", index.0), e)),
        }
    })?;
    let text = strings.text(raw);
    let mut name: &str = &text;
    let (mut version, mut version_hidden) = (None, false);
    // Since binutils 2.35 the linker writes `foo@@VER` / `foo@VER` into `.symtab` itself.
    if let Some(at) = text.find('@').filter(|&i| i > 0) {
        let tail = &text[at + 1..];
        let (v, hidden) = match tail.strip_prefix('@') {
            Some(v) => (v, false),
            None => (tail, true),
        };
        if !v.is_empty() && !v.contains('@') {
            name = &text[..at];
            version = Some(version_names.get(v));
            version_hidden = hidden;
        }
    }
    if let Some(vt) = versions {
        let vi = vt.version_index(endian, index);
        if let Ok(Some(v)) = vt.version(vi) {
            let vname = v.name();
            // binutils prints no version for the version-definition symbol itself (`LLVM_15`).
            let is_own_node = v.file().is_none() && vname == raw;
            if !is_own_node && !vname.is_empty() {
                version = Some(version_names.get_bytes(vname));
                version_hidden = vi.is_hidden() || !defined;
            }
        }
    }
    let name = Arc::from(name);
    let mut address: u64 = sym.st_value(endian).into();
    // ARM 32-bit: bit 0 of a function's st_value marks Thumb code (AAPCS ELF); the code starts at
    // the even address, which is what nm prints (BFD's elf32_arm_swap_symbol_in clears the bit).
    // st_size never includes it. docs/symbols.md, "ARM".
    if cx.machine == elf::EM_ARM
        && (st_type == elf::STT_FUNC || st_type == elf::STT_GNU_IFUNC)
        && address & 1 == 1
    {
        address &= !1;
    }
    Ok(Symbol {
        name,
        version,
        version_hidden,
        kind,
        address,
        size: sym.st_size(endian).into(),
        binding,
        visibility,
        defined,
    })
}

fn parse_elf<'a, Elf: FileHeader<Endian = Endianness>, R: ReadRef<'a>>(
    data: R,
    len: u64,
    path: &Path,
    choice: TableChoice,
) -> Result<Library> {
    let header = Elf::parse(data).map_err(|e| malformed(path, "ELF header at offset 0", e))?;
    let endian = header
        .endian()
        .map_err(|e| malformed(path, "ELF header at offset 5", e))?;
    let sections = header.sections(endian, data).map_err(|e| {
        malformed(
            path,
            format!(
                "section header table at offset {:#x}",
                header.e_shoff(endian).into()
            ),
            e,
        )
    })?;
    let machine = header.e_machine(endian);
    let letters: Vec<char> = sections
        .iter()
        .map(|hdr| {
            let name = sections.section_name(endian, hdr).unwrap_or(b"");
            section_letter(sec_flags(
                hdr.sh_type(endian),
                hdr.sh_flags(endian).into(),
                name,
            ))
        })
        .collect();
    let cx = Ctx {
        path,
        endian,
        machine,
        sections: &sections,
        letters,
        data,
    };

    let symtab = sections
        .symbols(endian, data, elf::SHT_SYMTAB)
        .map_err(|e| malformed(path, ".symtab", e))?;
    let dynsym = sections
        .symbols(endian, data, elf::SHT_DYNSYM)
        .map_err(|e| malformed(path, ".dynsym", e))?;
    let has_symtab = !symtab.is_empty();
    let has_dynsym = !dynsym.is_empty();
    let versions = sections
        .versions(endian, data)
        .map_err(|e| malformed(path, ".gnu.version tables", e))?;

    if sections.is_empty() && choice != TableChoice::Symtab {
        if let Some((defined, undefined)) = crate::elf_dynamic::symbols(header, endian, data, path)?
        {
            return Ok(Library {
                identity: Identity {
                    path: path.display().to_string(),
                    file_bytes: len,
                    machine: machine_name(machine),
                    class_bits: if header.is_type_64() { 64 } else { 32 },
                    little_endian: endian == Endianness::Little,
                    build_id: None,
                    has_symtab: false,
                    has_dynsym: true,
                },
                table: Table::Dynsym,
                defined,
                undefined,
                dynamic: Vec::new(),
                sections: Vec::new(),
            });
        }
    }
    let table = match choice {
        TableChoice::Symtab if !has_symtab => {
            return Err(Error::NoSymbols {
                path: path.to_path_buf(),
                reason: "no .symtab (stripped?); try --table dynsym".into(),
            })
        }
        TableChoice::Dynsym if !has_dynsym => {
            return Err(Error::NoSymbols {
                path: path.to_path_buf(),
                reason: "no .dynsym (static object?); try --table symtab".into(),
            })
        }
        TableChoice::Symtab => Table::Symtab,
        TableChoice::Dynsym => Table::Dynsym,
        TableChoice::Auto if has_symtab => Table::Symtab,
        TableChoice::Auto if has_dynsym => Table::Dynsym,
        TableChoice::Auto => {
            return Err(Error::NoSymbols {
                path: path.to_path_buf(),
                reason: "neither .symtab nor .dynsym is present".into(),
            })
        }
    };
    let dyn_syms = if has_dynsym {
        read_table(&cx, &dynsym, versions.as_ref(), ".dynsym")?
    } else {
        Default::default()
    };
    let ((defined, undefined), dynamic) = match table {
        Table::Symtab => (read_table(&cx, &symtab, None, ".symtab")?, dyn_syms.0),
        Table::Dynsym => (dyn_syms, Vec::new()),
    };

    let section_rows = sysv_sections(&cx, header, data, &symtab)?;
    let build_id = build_id(&cx, data);
    let identity = Identity {
        path: path.display().to_string(),
        file_bytes: len,
        machine: machine_name(machine),
        class_bits: if header.is_type_64() { 64 } else { 32 },
        little_endian: endian == Endianness::Little,
        build_id,
        has_symtab,
        has_dynsym,
    };
    Ok(Library {
        identity,
        table,
        defined,
        undefined,
        dynamic,
        sections: section_rows,
    })
}

/// The rows of `size --format=sysv`: every section BFD makes a section of (it folds the static
/// symbol table, its string table, the section-name table and static relocations into other
/// structures) whose BFD flags are not all clear.
fn sysv_sections<'a, Elf: FileHeader<Endian = Endianness>, R: ReadRef<'a>>(
    cx: &Ctx<'_, 'a, Elf, R>,
    header: &Elf,
    data: R,
    symtab: &SymbolTable<'a, Elf, R>,
) -> Result<Vec<SectionSize>> {
    let endian = cx.endian;
    let shstrndx = header
        .shstrndx(endian, data)
        .map_err(|e| malformed(cx.path, "ELF header e_shstrndx", e))?;
    let symtab_index = symtab.section();
    let symtab_strings = if symtab.is_empty() {
        SectionIndex(0)
    } else {
        symtab.string_section()
    };
    let mut rows = Vec::new();
    for (index, hdr) in cx.sections.enumerate() {
        if index.0 == 0 || index.0 == shstrndx as usize {
            continue;
        }
        let sh_type = hdr.sh_type(endian);
        if sh_type == elf::SHT_NULL {
            continue;
        }
        if !symtab.is_empty() && (index == symtab_index || index == symtab_strings) {
            continue;
        }
        if sh_type == elf::SHT_SYMTAB_SHNDX {
            continue;
        }
        if (sh_type == elf::SHT_REL || sh_type == elf::SHT_RELA)
            && !symtab.is_empty()
            && hdr.sh_link(endian) as usize == symtab_index.0
            && hdr.sh_info(endian) != 0
        {
            continue;
        }
        let name_bytes = cx
            .sections
            .section_name(endian, hdr)
            .map_err(|e| malformed(cx.path, format!("section {} name", index.0), e))?;
        let f = sec_flags(sh_type, hdr.sh_flags(endian).into(), name_bytes);
        if !(f.has_contents || f.alloc || f.readonly || f.code) {
            continue;
        }
        rows.push(SectionSize {
            name: String::from_utf8_lossy(name_bytes).into_owned(),
            size: hdr.sh_size(endian).into(),
            address: hdr.sh_addr(endian).into(),
        });
    }
    Ok(rows)
}

/// The GNU build-id note as lowercase hex, when present and well-formed.
fn build_id<'a, Elf: FileHeader<Endian = Endianness>, R: ReadRef<'a>>(
    cx: &Ctx<'_, 'a, Elf, R>,
    data: R,
) -> Option<String> {
    for hdr in cx.sections.iter() {
        let Ok(Some(mut notes)) = hdr.notes(cx.endian, data) else {
            continue;
        };
        while let Ok(Some(note)) = notes.next() {
            if note.name() == elf::ELF_NOTE_GNU && note.n_type(cx.endian) == elf::NT_GNU_BUILD_ID {
                return Some(note.desc().iter().map(|b| format!("{b:02x}")).collect());
            }
        }
    }
    None
}

/// nm's type letter (bfd_decode_symclass, in its order of tests): `section` gives the lowercase
/// letter of a defined symbol's place (its section, or for a library read without section
/// headers, its segment), asked only when the earlier tests do not decide.
pub(crate) fn nm_letter<E>(
    shndx: u16,
    st_type: u8,
    binding: Binding,
    section: impl FnOnce() -> std::result::Result<char, E>,
) -> std::result::Result<char, E> {
    let object = st_type == elf::STT_OBJECT || st_type == elf::STT_COMMON;
    Ok(if shndx == elf::SHN_COMMON {
        'C'
    } else if shndx == elf::SHN_UNDEF {
        match (binding, object) {
            (Binding::Weak, true) => 'v',
            (Binding::Weak, false) => 'w',
            _ => 'U',
        }
    } else if st_type == elf::STT_GNU_IFUNC {
        'i'
    } else if binding == Binding::Weak {
        if object {
            'V'
        } else {
            'W'
        }
    } else if binding == Binding::Unique {
        'u'
    } else if binding == Binding::Other {
        '?'
    } else {
        let c = section()?;
        if binding == Binding::Global {
            c.to_ascii_uppercase()
        } else {
            c
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A name read as a slice of the once-checked string section is the text a check of the
    /// name alone gives, for every stretch of a section with multi-byte characters (a name
    /// may start inside another's character: linkers share tails), and for bytes outside it.
    #[test]
    fn names_sliced_from_the_checked_section_equal_names_checked_alone() {
        let section = "\0a\0Ünïcödé::f\0€x\0plain_name\0";
        let table = TableText {
            text: Some(section),
        };
        let b = section.as_bytes();
        for start in 0..b.len() {
            for end in start..=b.len() {
                let raw = &b[start..end];
                let alone = String::from_utf8_lossy(raw);
                assert_eq!(table.text(raw), alone, "bytes {start}..{end}");
            }
        }
        let outside = b"x\xffy".to_vec();
        assert_eq!(table.text(&outside), String::from_utf8_lossy(&outside));
        let unchecked = TableText { text: None };
        assert_eq!(unchecked.text(&outside), "x\u{fffd}y");
        assert_eq!(table.get(&b[3..6]), Some("Ün"));
        assert_eq!(table.get(&b[4..6]), None);
    }

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
