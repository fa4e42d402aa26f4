//! The finding codes of the `symbols` and `symbol-rules` gates (rows of docs/codes.md).

/// Codes of the `symbols` gate (the symbol diff of two builds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SymbolsCode {
    Sym001,
    Sym002,
    Sym003,
    Sym004,
    Sym005,
    Sym006,
    Sym007,
    Sym008,
    Sym009,
    Sym010,
}

impl SymbolsCode {
    pub const ALL: &'static [SymbolsCode] = &[
        SymbolsCode::Sym001,
        SymbolsCode::Sym002,
        SymbolsCode::Sym003,
        SymbolsCode::Sym004,
        SymbolsCode::Sym005,
        SymbolsCode::Sym006,
        SymbolsCode::Sym007,
        SymbolsCode::Sym008,
        SymbolsCode::Sym009,
        SymbolsCode::Sym010,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            SymbolsCode::Sym001 => "SYM001",
            SymbolsCode::Sym002 => "SYM002",
            SymbolsCode::Sym003 => "SYM003",
            SymbolsCode::Sym004 => "SYM004",
            SymbolsCode::Sym005 => "SYM005",
            SymbolsCode::Sym006 => "SYM006",
            SymbolsCode::Sym007 => "SYM007",
            SymbolsCode::Sym008 => "SYM008",
            SymbolsCode::Sym009 => "SYM009",
            SymbolsCode::Sym010 => "SYM010",
        }
    }

    /// One line, what the finding means (becomes the SARIF rule's short description).
    pub const fn summary(self) -> &'static str {
        match self {
            SymbolsCode::Sym001 => "a symbol of the before build is gone (removed), not admitted",
            SymbolsCode::Sym002 => "a symbol is new in the after build (added), not admitted",
            SymbolsCode::Sym003 => "a symbol changed size (resized), not admitted",
            SymbolsCode::Sym004 => {
                "a symbol's mangling changed at the same normalised name and size (renamed only)"
            }
            SymbolsCode::Sym005 => ".text moved or broke the added-bytes budget",
            SymbolsCode::Sym006 => "an allow entry matched no change (stale)",
            SymbolsCode::Sym007 => "the pair of libraries looks mismatched",
            SymbolsCode::Sym008 => "a library is unreadable, not ELF, truncated or malformed",
            SymbolsCode::Sym009 => "a change an allow entry admitted",
            SymbolsCode::Sym010 => "a bad [symbols] setting or an unreadable allow file",
        }
    }
}

/// Codes of the `symbol-rules` gate (purity gate B and friends).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SymbolRulesCode {
    Syr001,
    Syr002,
    Syr003,
    Syr004,
}

impl SymbolRulesCode {
    pub const ALL: &'static [SymbolRulesCode] = &[
        SymbolRulesCode::Syr001,
        SymbolRulesCode::Syr002,
        SymbolRulesCode::Syr003,
        SymbolRulesCode::Syr004,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            SymbolRulesCode::Syr001 => "SYR001",
            SymbolRulesCode::Syr002 => "SYR002",
            SymbolRulesCode::Syr003 => "SYR003",
            SymbolRulesCode::Syr004 => "SYR004",
        }
    }

    /// One line, what the finding means (becomes the SARIF rule's short description).
    pub const fn summary(self) -> &'static str {
        match self {
            SymbolRulesCode::Syr001 => "a forbidden defined, undefined or exported symbol",
            SymbolRulesCode::Syr002 => "a required symbol is missing",
            SymbolRulesCode::Syr003 => "a configured library is unreadable or missing",
            SymbolRulesCode::Syr004 => {
                "a rule is malformed (forbid/require, scope, table or regex)"
            }
        }
    }
}
