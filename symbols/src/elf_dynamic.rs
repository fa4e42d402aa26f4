//! The dynamic symbols of an ELF file without section headers (issue 29: `sstrip`, or a header
//! table zeroed by a packer, left "neither .symtab nor .dynsym" though the loader still finds
//! every symbol): read from `PT_DYNAMIC` as the dynamic loader does — `DT_SYMTAB` and `DT_STRTAB`
//! for the table and its names, `DT_GNU_HASH` or `DT_HASH` for its length, `DT_VERSYM`,
//! `DT_VERDEF` and `DT_VERNEED` for the versions. Addresses map to file offsets through the
//! `PT_LOAD` segments. With no sections, a defined symbol's nm letter comes from its segment:
//! `T` a function in an executable segment, `D` writable file bytes, `B` writable past them,
//! `R` otherwise (an object beside the code is read-only data).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use object::elf;
use object::read::elf::{Dyn, FileHeader, GnuHashTable, HashTable, ProgramHeader, Sym};
use object::read::StringTable;
use object::{Endian, Endianness, ReadRef};

use crate::error::{Error, Result};
use crate::model::{Binding, Symbol, Visibility};

fn bad(path: &Path, what: &str, reason: impl std::fmt::Display) -> Error {
    Error::Malformed {
        path: path.to_path_buf(),
        what: format!("PT_DYNAMIC {what}"),
        reason: reason.to_string(),
    }
}

struct Segment {
    vaddr: u64,
    offset: u64,
    filesz: u64,
    memsz: u64,
    flags: u32,
}

/// The defined and undefined dynamic symbols, in table order, or None when the file has no
/// `PT_DYNAMIC` with a symbol table.
pub(crate) fn symbols<'a, Elf: FileHeader<Endian = Endianness>, R: ReadRef<'a>>(
    header: &Elf,
    endian: Endianness,
    data: R,
    path: &Path,
) -> Result<Option<(Vec<Symbol>, Vec<Symbol>)>> {
    let Ok(phdrs) = header.program_headers(endian, data) else {
        return Ok(None);
    };
    let loads: Vec<Segment> = phdrs
        .iter()
        .filter(|p| p.p_type(endian) == elf::PT_LOAD)
        .map(|p| Segment {
            vaddr: p.p_vaddr(endian).into(),
            offset: p.p_offset(endian).into(),
            filesz: p.p_filesz(endian).into(),
            memsz: p.p_memsz(endian).into(),
            flags: p.p_flags(endian),
        })
        .collect();
    let Some(dynamic) = phdrs.iter().find(|p| p.p_type(endian) == elf::PT_DYNAMIC) else {
        return Ok(None);
    };
    let entries = dynamic
        .dynamic(endian, data)
        .map_err(|e| bad(path, "table", e))?
        .unwrap_or(&[]);
    let mut tags: HashMap<u32, u64> = HashMap::new();
    for d in entries {
        let tag: u64 = d.d_tag(endian).into();
        if tag == u64::from(elf::DT_NULL) {
            break;
        }
        if let Ok(t) = u32::try_from(tag) {
            tags.entry(t).or_insert_with(|| d.d_val(endian).into());
        }
    }
    let Some(&symtab) = tags.get(&elf::DT_SYMTAB) else {
        return Ok(None);
    };
    // A virtual address as (file offset, bytes of file left in its segment).
    let at = |addr: u64, what: &str| -> Result<(u64, u64)> {
        loads
            .iter()
            .find(|s| addr >= s.vaddr && addr - s.vaddr < s.filesz)
            .map(|s| (s.offset + (addr - s.vaddr), s.filesz - (addr - s.vaddr)))
            .ok_or_else(|| {
                bad(
                    path,
                    what,
                    format!("address {addr:#x} is in no PT_LOAD segment"),
                )
            })
    };
    let bytes = |addr: u64, what: &str| -> Result<&'a [u8]> {
        let (off, left) = at(addr, what)?;
        data.read_bytes_at(off, left)
            .map_err(|()| bad(path, what, "past the end of the file"))
    };
    let count = if let Some(&gnu) = tags.get(&elf::DT_GNU_HASH) {
        GnuHashTable::<Elf>::parse(endian, bytes(gnu, "DT_GNU_HASH")?)
            .ok()
            .and_then(|h| h.symbol_table_length(endian))
            .ok_or_else(|| bad(path, "DT_GNU_HASH", "malformed hash table"))?
    } else if let Some(&sysv) = tags.get(&elf::DT_HASH) {
        HashTable::<Elf>::parse(endian, bytes(sysv, "DT_HASH")?)
            .map_err(|e| bad(path, "DT_HASH", e))?
            .symbol_table_length()
    } else {
        return Err(bad(
            path,
            "DT_SYMTAB",
            "neither DT_GNU_HASH nor DT_HASH gives the table's length",
        ));
    };
    let (sym_off, _) = at(symtab, "DT_SYMTAB")?;
    let syms: &[Elf::Sym] = data.read_slice_at(sym_off, count as usize).map_err(|()| {
        bad(
            path,
            "DT_SYMTAB",
            format!("{count} symbols past the end of the file"),
        )
    })?;
    let strtab = *tags
        .get(&elf::DT_STRTAB)
        .ok_or_else(|| bad(path, "DT_STRTAB", "missing"))?;
    let (str_off, str_left) = at(strtab, "DT_STRTAB")?;
    let str_len = tags.get(&elf::DT_STRSZ).copied().unwrap_or(str_left);
    let strings = StringTable::new(data, str_off, str_off.saturating_add(str_len));
    let versions = Versions::read(&tags, endian, count, &bytes, strings);
    let mut defined = Vec::new();
    let mut undefined = Vec::new();
    for (i, sym) in syms.iter().enumerate().skip(1) {
        let st_type = sym.st_type();
        if st_type == elf::STT_SECTION || st_type == elf::STT_FILE {
            continue;
        }
        let raw = sym
            .name(endian, strings)
            .map_err(|e| bad(path, &format!("symbol {i}"), e))?;
        let s = symbol(sym, endian, raw, &loads, versions.of(endian, i, raw));
        if s.defined {
            defined.push(s);
        } else {
            undefined.push(s);
        }
    }
    Ok(Some((defined, undefined)))
}

fn symbol<Elf: Sym<Endian = Endianness>>(
    sym: &Elf,
    endian: Endianness,
    raw: &[u8],
    loads: &[Segment],
    version: Option<(Arc<str>, bool)>,
) -> Symbol {
    let shndx = sym.st_shndx(endian);
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
    let st_type = sym.st_type();
    let object = st_type == elf::STT_OBJECT || st_type == elf::STT_COMMON;
    let defined = shndx != elf::SHN_UNDEF;
    let address: u64 = sym.st_value(endian).into();
    let letter = crate::elf::nm_letter(shndx, st_type, binding, || {
        if shndx == elf::SHN_ABS {
            return Ok::<char, std::convert::Infallible>('a');
        }
        Ok({
            // inside a segment, else at its end (`_end`, `__bss_end`)
            let inside = |s: &&Segment| address >= s.vaddr && address - s.vaddr < s.memsz;
            let at_end = |s: &&Segment| address >= s.vaddr && address - s.vaddr == s.memsz;
            match loads
                .iter()
                .find(inside)
                .or_else(|| loads.iter().find(at_end))
            {
                // an object in an executable segment is read-only data placed beside the code
                Some(s) if s.flags & elf::PF_X != 0 && object => 'r',
                Some(s) if s.flags & elf::PF_X != 0 => 't',
                Some(s) if s.flags & elf::PF_W != 0 && address - s.vaddr >= s.filesz => 'b',
                Some(s) if s.flags & elf::PF_W != 0 => 'd',
                Some(_) => 'r',
                None => 'a',
            }
        })
    });
    let Ok(kind) = letter;
    let (version, version_hidden) = match version {
        Some((v, hidden)) => (Some(v), hidden || !defined),
        None => (None, false),
    };
    Symbol {
        name: Arc::from(String::from_utf8_lossy(raw).as_ref()),
        version,
        version_hidden,
        kind,
        address,
        size: sym.st_size(endian).into(),
        binding,
        visibility,
        defined,
    }
}

/// The version names by index (`DT_VERDEF` and `DT_VERNEED`) and each symbol's index
/// (`DT_VERSYM`). A version table that cannot be read leaves the symbols unversioned.
#[derive(Default)]
struct Versions<'a> {
    versym: &'a [u8],
    /// version index -> (name, defined here rather than needed)
    names: HashMap<u16, (Arc<str>, bool)>,
}

impl<'a> Versions<'a> {
    fn read<R: ReadRef<'a>>(
        tags: &HashMap<u32, u64>,
        endian: Endianness,
        count: u32,
        bytes: &dyn Fn(u64, &str) -> Result<&'a [u8]>,
        strings: StringTable<'a, R>,
    ) -> Versions<'a> {
        let Some(versym) = tags
            .get(&elf::DT_VERSYM)
            .and_then(|&a| bytes(a, "DT_VERSYM").ok())
            .and_then(|b| b.get(..count as usize * 2))
        else {
            return Versions::default();
        };
        let u16_at = |b: &[u8], o: usize| -> Option<u16> {
            let w: [u8; 2] = b.get(o..o + 2)?.try_into().ok()?;
            Some(endian.read_u16_bytes(w))
        };
        let u32_at = |b: &[u8], o: usize| -> Option<u32> {
            let w: [u8; 4] = b.get(o..o + 4)?.try_into().ok()?;
            Some(endian.read_u32_bytes(w))
        };
        let name = |off: Option<u32>| -> Option<Arc<str>> {
            let raw = strings.get(off?).ok()?;
            Some(Arc::from(String::from_utf8_lossy(raw).as_ref()))
        };
        let mut names = HashMap::new();
        // Verdef: vd_version, vd_flags, vd_ndx, vd_cnt (u16), vd_hash, vd_aux, vd_next (u32);
        // its first Verdaux's vda_name is the version's name. The base entry names the file.
        if let Some(b) = tags
            .get(&elf::DT_VERDEF)
            .and_then(|&a| bytes(a, "DT_VERDEF").ok())
        {
            let n = tags.get(&elf::DT_VERDEFNUM).copied().unwrap_or(0);
            let mut at = 0usize;
            for _ in 0..n.min(1 << 15) {
                let (Some(flags), Some(ndx), Some(aux), Some(next)) = (
                    u16_at(b, at + 2),
                    u16_at(b, at + 4),
                    u32_at(b, at + 12),
                    u32_at(b, at + 16),
                ) else {
                    break;
                };
                if flags & elf::VER_FLG_BASE == 0 {
                    if let Some(v) = name(u32_at(b, at + aux as usize)) {
                        names.insert(ndx & elf::VERSYM_VERSION, (v, true));
                    }
                }
                if next == 0 {
                    break;
                }
                at += next as usize;
            }
        }
        // Verneed: vn_version, vn_cnt (u16), vn_file, vn_aux, vn_next (u32); each Vernaux:
        // vna_hash (u32), vna_flags, vna_other (u16), vna_name, vna_next (u32).
        if let Some(b) = tags
            .get(&elf::DT_VERNEED)
            .and_then(|&a| bytes(a, "DT_VERNEED").ok())
        {
            let n = tags.get(&elf::DT_VERNEEDNUM).copied().unwrap_or(0);
            let mut at = 0usize;
            for _ in 0..n.min(1 << 15) {
                let (Some(cnt), Some(aux), Some(next)) =
                    (u16_at(b, at + 2), u32_at(b, at + 8), u32_at(b, at + 12))
                else {
                    break;
                };
                let mut a = at + aux as usize;
                for _ in 0..cnt {
                    let (Some(other), Some(vna_next)) = (u16_at(b, a + 6), u32_at(b, a + 12))
                    else {
                        break;
                    };
                    if let Some(v) = name(u32_at(b, a + 8)) {
                        names.insert(other & elf::VERSYM_VERSION, (v, false));
                    }
                    if vna_next == 0 {
                        break;
                    }
                    a += vna_next as usize;
                }
                if next == 0 {
                    break;
                }
                at += next as usize;
            }
        }
        Versions { versym, names }
    }

    /// Symbol `i`'s version name and whether it is hidden (`foo@V` rather than `foo@@V`).
    /// binutils prints no version for a definition's own node symbol (`LLVM_15`), nor here.
    fn of(&self, endian: Endianness, i: usize, raw: &[u8]) -> Option<(Arc<str>, bool)> {
        let name = raw;
        let w: [u8; 2] = self.versym.get(i * 2..i * 2 + 2)?.try_into().ok()?;
        let raw = endian.read_u16_bytes(w);
        let index = raw & elf::VERSYM_VERSION;
        if index <= 1 {
            return None; // local or global: no version
        }
        let (v, def) = self.names.get(&index)?;
        if *def && v.as_bytes() == name {
            return None;
        }
        Some((v.clone(), raw & elf::VERSYM_HIDDEN != 0))
    }
}
