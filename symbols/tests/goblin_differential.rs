//! A second, independent ELF reader (goblin) against mgctl's (object), on the shared objects
//! Debian installs in the multiarch library directory (issue 15 item 13): the same defined and
//! undefined symbols, with the same sizes, addresses, bindings, visibilities, type classes and
//! versions, or the same rejection. Bounded: the smallest 240 libraries plus libLLVM, in parallel.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use goblin::elf::sym;
use rayon::prelude::*;
use symbols::elf::read_library;
use symbols::{Library, Symbol, TableChoice};

const DIR: &str = "/usr/lib/x86_64-linux-gnu";
const SMALLEST: usize = 240;

/// One symbol as both readers can state it.
type Row = (bool, String, Option<String>, u64, u64, String, String, char);

/// nm's letters that depend only on the symbol itself (not on its section), else `-`.
fn class(kind: char) -> char {
    if "CvwUiVWu?".contains(kind) {
        kind
    } else {
        '-'
    }
}

fn ours(lib: &Library) -> Vec<Row> {
    let row = |s: &Symbol| -> Row {
        (
            s.defined,
            s.name.to_string(),
            s.version
                .as_deref()
                .map(|v| format!("{v}{}", if s.version_hidden { "@" } else { "@@" })),
            s.size,
            s.address,
            format!("{:?}", s.binding),
            format!("{:?}", s.visibility),
            class(s.kind),
        )
    };
    let mut v: Vec<Row> = lib.defined.iter().chain(&lib.undefined).map(row).collect();
    v.sort();
    v
}

/// The same rows from goblin, with mgctl's documented rules: index 0, section and file symbols
/// left out; `name@@VER` / `name@VER` split off in `.symtab`; `.dynsym` versions from
/// `.gnu.version*`, none for a version-definition symbol itself.
fn theirs(bytes: &[u8]) -> Result<(bool, Vec<Row>), String> {
    let elf = goblin::elf::Elf::parse(bytes).map_err(|e| e.to_string())?;
    let use_symtab = !elf.syms.is_empty();
    let (table, strtab) = if use_symtab {
        (&elf.syms, &elf.strtab)
    } else {
        (&elf.dynsyms, &elf.dynstrtab)
    };
    // Version index -> (name, defined here).
    let mut versions: BTreeMap<u16, (String, bool)> = BTreeMap::new();
    if let Some(vd) = &elf.verdef {
        for d in vd.iter() {
            if let Some(aux) = d.iter().next() {
                let name = elf.dynstrtab.get_at(aux.vda_name).unwrap_or("").to_string();
                versions.insert(d.vd_ndx, (name, true));
            }
        }
    }
    if let Some(vn) = &elf.verneed {
        for n in vn.iter() {
            for aux in n.iter() {
                let name = elf.dynstrtab.get_at(aux.vna_name).unwrap_or("").to_string();
                versions.insert(aux.vna_other & 0x7fff, (name, false));
            }
        }
    }
    let mut rows = Vec::new();
    for (index, s) in table.iter().enumerate() {
        if index == 0 || s.st_type() == sym::STT_SECTION || s.st_type() == sym::STT_FILE {
            continue;
        }
        let raw = strtab
            .get_at(s.st_name)
            .ok_or("bad name offset")?
            .to_string();
        let defined = s.st_shndx != 0;
        let mut name = raw.clone();
        let mut version = None;
        if let Some(at) = raw.find('@').filter(|&i| i > 0) {
            let tail = &raw[at + 1..];
            let (v, hidden) = match tail.strip_prefix('@') {
                Some(v) => (v, false),
                None => (tail, true),
            };
            if !v.is_empty() && !v.contains('@') {
                name = raw[..at].to_string();
                version = Some(format!("{v}{}", if hidden { "@" } else { "@@" }));
            }
        }
        if !use_symtab {
            if let Some(vs) = elf.versym.as_ref().and_then(|t| t.get_at(index)) {
                let ndx = vs.vs_val & 0x7fff;
                if ndx >= 2 {
                    if let Some((vname, own)) = versions.get(&ndx) {
                        let own_node = *own && *vname == raw;
                        if !own_node && !vname.is_empty() {
                            let hidden = vs.vs_val & 0x8000 != 0 || !defined;
                            version = Some(format!("{vname}{}", if hidden { "@" } else { "@@" }));
                        }
                    }
                }
            }
        }
        let bind = s.st_bind();
        let binding = match bind {
            sym::STB_LOCAL => "Local",
            sym::STB_GLOBAL => "Global",
            sym::STB_WEAK => "Weak",
            sym::STB_GNU_UNIQUE => "Unique",
            _ => "Other",
        };
        let visibility = match s.st_other & 3 {
            1 => "Internal",
            2 => "Hidden",
            3 => "Protected",
            _ => "Default",
        };
        let object = matches!(s.st_type(), sym::STT_OBJECT | sym::STT_COMMON);
        let kind = if s.st_shndx == goblin::elf::section_header::SHN_COMMON as usize {
            'C'
        } else if !defined {
            match (bind, object) {
                (sym::STB_WEAK, true) => 'v',
                (sym::STB_WEAK, false) => 'w',
                _ => 'U',
            }
        } else if s.st_type() == sym::STT_GNU_IFUNC {
            'i'
        } else if bind == sym::STB_WEAK {
            if object {
                'V'
            } else {
                'W'
            }
        } else if bind == sym::STB_GNU_UNIQUE {
            'u'
        } else if binding == "Other" {
            '?'
        } else {
            '-'
        };
        rows.push((
            defined,
            name,
            version,
            s.st_size,
            s.st_value,
            binding.to_string(),
            visibility.to_string(),
            kind,
        ));
    }
    rows.sort();
    Ok((use_symtab, rows))
}

/// Regular ELF shared objects of the directory: the smallest ones plus every libLLVM.
fn corpus() -> Vec<PathBuf> {
    let mut libs: Vec<(u64, PathBuf)> = std::fs::read_dir(DIR)
        .map(|d| d.flatten().collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .filter(|e| e.file_name().to_string_lossy().contains(".so"))
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| Some((e.metadata().ok()?.len(), e.path())))
        .filter(|(_, p)| {
            std::fs::File::open(p).is_ok_and(|mut f| {
                let mut magic = [0u8; 4];
                std::io::Read::read_exact(&mut f, &mut magic).is_ok() && &magic == b"\x7fELF"
            })
        })
        .collect();
    libs.sort();
    let llvm: Vec<PathBuf> = libs
        .iter()
        .filter(|(_, p)| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("libLLVM"))
        })
        .map(|(_, p)| p.clone())
        .collect();
    let mut out: Vec<PathBuf> = libs.into_iter().take(SMALLEST).map(|(_, p)| p).collect();
    for p in llvm {
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

fn compare(path: &Path) -> Result<usize, String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let mine = read_library(path, TableChoice::Auto);
    let other = theirs(&bytes);
    match (mine, other) {
        (Ok(lib), Ok((symtab, rows))) => {
            if symtab != lib.identity.has_symtab {
                return Err(format!("table choice differs (goblin symtab={symtab})"));
            }
            let mine = ours(&lib);
            if mine != rows {
                let only_mine: Vec<_> = mine.iter().filter(|r| !rows.contains(r)).take(3).collect();
                let only_theirs: Vec<_> =
                    rows.iter().filter(|r| !mine.contains(r)).take(3).collect();
                return Err(format!(
                    "{} vs {} symbols; only mgctl: {only_mine:?}; only goblin: {only_theirs:?}",
                    mine.len(),
                    rows.len()
                ));
            }
            Ok(mine.len())
        }
        (Err(_), Err(_)) => Ok(0),
        (Ok(_), Err(e)) => Err(format!("goblin rejects it ({e}), mgctl reads it")),
        (Err(e), Ok(_)) => Err(format!("mgctl rejects it ({e}), goblin reads it")),
    }
}

#[test]
fn goblin_and_mgctl_read_the_same_symbols_from_the_system_libraries() {
    let libs = corpus();
    assert!(
        libs.len() >= 200 && libs.iter().any(|p| p.to_string_lossy().contains("libLLVM")),
        "need >= 200 shared objects in {DIR}, libLLVM included (found {})",
        libs.len()
    );
    let results: Vec<(PathBuf, Result<usize, String>)> =
        libs.par_iter().map(|p| (p.clone(), compare(p))).collect();
    let bad: Vec<String> = results
        .iter()
        .filter_map(|(p, r)| r.as_ref().err().map(|e| format!("{}: {e}", p.display())))
        .collect();
    let symbols: usize = results.iter().filter_map(|(_, r)| r.as_ref().ok()).sum();
    let rejected = results.iter().filter(|(_, r)| matches!(r, Ok(0))).count();
    eprintln!(
        "goblin differential: {} libraries, {symbols} symbols identical, {rejected} rejected by both",
        libs.len()
    );
    assert!(
        bad.is_empty(),
        "{} of {} libraries differ:\n{}",
        bad.len(),
        libs.len(),
        bad.join("\n")
    );
    assert!(symbols > 100_000, "only {symbols} symbols compared");
}
