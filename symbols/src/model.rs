//! Typed model of one library's symbol data, as `nm`/`size` would see it.

use std::sync::Arc;

use serde::Serialize;

/// Which symbol table a listing came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Table {
    Symtab,
    Dynsym,
}

impl Table {
    pub fn as_str(self) -> &'static str {
        match self {
            Table::Symtab => ".symtab",
            Table::Dynsym => ".dynsym",
        }
    }
}

/// The user's choice of table: `auto` takes `.symtab` when present, else `.dynsym`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum TableChoice {
    #[default]
    Auto,
    Symtab,
    Dynsym,
}

/// A word of the model that names nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    #[error("unknown table {table:?} (expected symtab, dynsym or auto)")]
    UnknownTable { table: String },
}

impl std::str::FromStr for TableChoice {
    type Err = ModelError;
    fn from_str(s: &str) -> std::result::Result<Self, ModelError> {
        match s {
            "auto" => Ok(TableChoice::Auto),
            "symtab" => Ok(TableChoice::Symtab),
            "dynsym" => Ok(TableChoice::Dynsym),
            other => Err(ModelError::UnknownTable {
                table: other.to_string(),
            }),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Binding {
    Local,
    Global,
    Weak,
    Unique,
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    Default,
    Internal,
    Hidden,
    Protected,
}

/// One symbol table entry, with the letter `nm` prints for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Symbol {
    /// Mangled name without any version suffix (shared: the diff keeps each name once).
    pub name: Arc<str>,
    /// Symbol version (`LLVM_15`), when the dynamic version tables give one. Shared: a
    /// library has a handful of versions and every symbol carries one.
    pub version: Option<Arc<str>>,
    /// `name@VER` (hidden or required) rather than `name@@VER` (default).
    pub version_hidden: bool,
    /// The type letter `nm` prints (`T`, `t`, `W`, `D`, `B`, `R`, `U`, …).
    pub kind: char,
    pub address: u64,
    pub size: u64,
    pub binding: Binding,
    pub visibility: Visibility,
    pub defined: bool,
}

impl Symbol {
    /// The name as `nm` prints it: with `@@VER` / `@VER` when versioned.
    pub fn versioned_name(&self) -> String {
        match &self.version {
            Some(v) if self.version_hidden => format!("{}@{v}", self.name),
            Some(v) => format!("{}@@{v}", self.name),
            None => self.name.to_string(),
        }
    }

    /// Exported in the Android header-abi sense: defined, global/weak/unique, default or protected.
    pub fn is_exported(&self) -> bool {
        self.defined
            && matches!(
                self.binding,
                Binding::Global | Binding::Weak | Binding::Unique
            )
            && matches!(self.visibility, Visibility::Default | Visibility::Protected)
    }
}

/// One section row as `size --format=sysv` prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SectionSize {
    pub name: String,
    pub size: u64,
    pub address: u64,
}

/// Identity facts printed in every report header so a mismatched pair is visible.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Identity {
    pub path: String,
    pub file_bytes: u64,
    /// `x86-64`, `AArch64`, `ARM`, `RISC-V`, … or `EM_<n>`.
    pub machine: String,
    pub class_bits: u8,
    pub little_endian: bool,
    pub build_id: Option<String>,
    pub has_symtab: bool,
    pub has_dynsym: bool,
}

/// Everything read from one library.
#[derive(Debug, Clone, Serialize)]
pub struct Library {
    pub identity: Identity,
    /// The table the symbol lists come from.
    pub table: Table,
    /// Defined symbols of `table` (what `nm --defined-only` lists; `nm -D --defined-only` for `.dynsym`).
    pub defined: Vec<Symbol>,
    /// Undefined symbols of `table`.
    pub undefined: Vec<Symbol>,
    /// Defined `.dynsym` symbols when `table` is `.symtab` (empty otherwise: then `defined`
    /// already is the dynamic table). Read through [`Library::exported`].
    pub dynamic: Vec<Symbol>,
    /// Every section `size --format=sysv` lists, in header order, plus nothing else.
    pub sections: Vec<SectionSize>,
}

impl Library {
    /// Exported symbols: defined in `.dynsym`, global/weak, default or protected visibility.
    pub fn exported(&self) -> Vec<&Symbol> {
        let src = if self.table == Table::Dynsym {
            &self.defined
        } else {
            &self.dynamic
        };
        src.iter().filter(|s| s.is_exported()).collect()
    }

    /// The `Total` row of `size --format=sysv`.
    pub fn total_size(&self) -> u64 {
        self.sections.iter().map(|s| s.size).sum()
    }
}
