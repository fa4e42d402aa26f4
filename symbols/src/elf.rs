//! Parse: the only code that touches library bytes. One reader (`object`) over a memory map.

use std::borrow::Cow;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use object::elf;
use object::read::elf::{FileHeader, SectionHeader, SectionTable, Sym, SymbolTable, VersionTable};
use object::{Endianness, SectionIndex, SymbolIndex};

use crate::error::{Error, Result};
use crate::fasthash::FxBuild;
use crate::model::{
    Binding, Identity, Library, SectionSize, Symbol, Table, TableChoice, Visibility,
};

/// A read-only view of a library's bytes: a memory map, or owned bytes (tests, small inputs).
pub enum Bytes {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        }
    }
}

/// Memory-map `path`. Directories, empty files and unreadable paths are clear errors.
pub fn map_file(path: &Path) -> Result<Bytes> {
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
    if meta.len() == 0 {
        return Err(Error::Empty {
            path: path.to_path_buf(),
        });
    }
    let file = File::open(path).map_err(io)?;
    // SAFETY: the map is read-only and only lives while the library is parsed. A concurrent
    // truncation by another process could fault; that is the accepted trade-off of mapping
    // (ripgrep makes the same one) and rebuilding a library while mgctl reads it is not supported.
    #[allow(unsafe_code)]
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
    Ok(Bytes::Mapped(map))
}

/// Read a library from disk: map it, then [`parse`] it.
pub fn read_library(path: &Path, choice: TableChoice) -> Result<Library> {
    let bytes = map_file(path)?;
    parse(&bytes, path, choice)
}

/// Parse ELF bytes (32/64-bit, either endianness) into a [`Library`].
pub fn parse(data: &[u8], path: &Path, choice: TableChoice) -> Result<Library> {
    if data.is_empty() {
        return Err(Error::Empty {
            path: path.to_path_buf(),
        });
    }
    if data.len() < 4 || &data[..4] != b"\x7fELF" {
        let magic = data
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
    match data.get(4) {
        Some(1) => parse_elf::<elf::FileHeader32<Endianness>>(data, path, choice),
        Some(2) => parse_elf::<elf::FileHeader64<Endianness>>(data, path, choice),
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

struct Ctx<'a, Elf: FileHeader<Endian = Endianness>> {
    path: &'a Path,
    endian: Endianness,
    machine: u16,
    sections: &'a SectionTable<'a, Elf, &'a [u8]>,
    /// nm's section letter per section index, computed once.
    letters: Vec<char>,
}

/// The symbols of one table, split into (defined, undefined), in table order.
fn read_table<'a, Elf: FileHeader<Endian = Endianness>>(
    cx: &Ctx<'a, Elf>,
    table: &SymbolTable<'a, Elf, &'a [u8]>,
    versions: Option<&VersionTable<'a, Elf>>,
    what: &str,
) -> Result<(Vec<Symbol>, Vec<Symbol>)> {
    let endian = cx.endian;
    let mut defined = Vec::with_capacity(table.len());
    let mut undefined = Vec::new();
    // One shared string per version name (a table has a handful, and every symbol carries one).
    let mut names = VersionNames::default();
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
        let symbol = symbol(cx, table, versions, &mut names, index, sym, raw, what)?;
        if symbol.defined {
            defined.push(symbol);
        } else {
            undefined.push(symbol);
        }
    }
    Ok((defined, undefined))
}

/// Version names already seen, to share one `Arc<str>` per distinct name.
#[derive(Default)]
struct VersionNames(std::collections::HashSet<Arc<str>, FxBuild>);

impl VersionNames {
    fn get(&mut self, name: &str) -> Arc<str> {
        if let Some(v) = self.0.get(name) {
            return v.clone();
        }
        let v: Arc<str> = Arc::from(name);
        self.0.insert(v.clone());
        v
    }
}

#[allow(clippy::too_many_arguments)]
fn symbol<'a, Elf: FileHeader<Endian = Endianness>>(
    cx: &Ctx<'a, Elf>,
    table: &SymbolTable<'a, Elf, &'a [u8]>,
    versions: Option<&VersionTable<'a, Elf>>,
    version_names: &mut VersionNames,
    index: SymbolIndex,
    sym: &Elf::Sym,
    raw: &[u8],
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
    let object = st_type == elf::STT_OBJECT || st_type == elf::STT_COMMON;
    let defined = shndx != elf::SHN_UNDEF;
    // bfd_decode_symclass, in its order of tests.
    let kind = if shndx == elf::SHN_COMMON {
        'C'
    } else if !defined {
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
        let c = if shndx == elf::SHN_ABS {
            'a'
        } else {
            match table.symbol_section(endian, sym, index) {
                Ok(Some(sec)) => cx.letters.get(sec.0).copied().unwrap_or('a'),
                // Reserved indices BFD does not map land in its absolute section.
                Ok(None) => 'a',
                Err(e) => return Err(malformed(cx.path, format!("{what} symbol {}", index.0), e)),
            }
        };
        if binding == Binding::Global {
            c.to_ascii_uppercase()
        } else {
            c
        }
    };
    // Names are nearly always valid UTF-8; `from_utf8` checks that fastest.
    let text = match std::str::from_utf8(raw) {
        Ok(t) => Cow::Borrowed(t),
        Err(_) => String::from_utf8_lossy(raw),
    };
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
                version = Some(version_names.get(&String::from_utf8_lossy(vname)));
                version_hidden = vi.is_hidden() || !defined;
            }
        }
    }
    let name = Arc::from(name);
    Ok(Symbol {
        name,
        version,
        version_hidden,
        kind,
        address: sym.st_value(endian).into(),
        size: sym.st_size(endian).into(),
        binding,
        visibility,
        defined,
    })
}

fn parse_elf<Elf: FileHeader<Endian = Endianness>>(
    data: &[u8],
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
        file_bytes: data.len() as u64,
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
fn sysv_sections<'a, Elf: FileHeader<Endian = Endianness>>(
    cx: &Ctx<'a, Elf>,
    header: &Elf,
    data: &[u8],
    symtab: &SymbolTable<'a, Elf, &'a [u8]>,
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
fn build_id<Elf: FileHeader<Endian = Endianness>>(
    cx: &Ctx<'_, Elf>,
    data: &[u8],
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
