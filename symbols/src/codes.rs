//! The finding codes of the `symbols` and `symbol-rules` gates (rows of docs/codes.md).

diag::codes! {
    /// Codes of the `symbols` gate (the symbol diff of two builds).
    pub enum SymbolsCode: "SYM" {
        Sym001 = "SYM001": "a symbol of the before build is gone (removed), not admitted",
        Sym002 = "SYM002": "a symbol is new in the after build (added), not admitted",
        Sym003 = "SYM003": "a symbol changed size (resized), not admitted",
        Sym004 = "SYM004": "a symbol's mangling changed at the same normalised name and size (renamed only)",
        Sym005 = "SYM005": ".text moved or broke the added-bytes budget",
        Sym006 = "SYM006": "an allow entry matched no change (stale)",
        Sym007 = "SYM007": "the pair of libraries looks mismatched",
        Sym008 = "SYM008": "a library is unreadable, not ELF, truncated or malformed",
        Sym009 = "SYM009": "a change an allow entry admitted",
        Sym010 = "SYM010": "a bad [symbols] setting or an unreadable allow file",
    }
}

diag::codes! {
    /// Codes of the `symbol-rules` gate (purity gate B and friends).
    pub enum SymbolRulesCode: "SYR" {
        Syr001 = "SYR001": "a forbidden defined, undefined or exported symbol",
        Syr002 = "SYR002": "a required symbol is missing",
        Syr003 = "SYR003": "a configured library is unreadable or missing",
        Syr004 = "SYR004": "a rule is malformed (forbid/require, scope, table or regex)",
    }
}
