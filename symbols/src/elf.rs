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
use crate::sparse::{Loader, Sparse};

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
}
