//! Words a scan of C++ meets right before `(` that are neither a call nor a function's name:
//! statements (`if (`, `return (`), operators with a parenthesised operand (`sizeof (`,
//! `decltype (`; the casts reach their `(` through `<…>`), specifiers (`noexcept (`, `alignas (`,
//! GNU `__attribute__ ((`), `requires (` and the preprocessor's `defined (`. One list for every
//! analysis that tells calls apart (STYLE.md pattern 15).

/// Every word that is not a call when `(` follows it.
pub const NOT_CALLS: [&str; 20] = [
    "if",
    "for",
    "while",
    "switch",
    "catch",
    "return",
    "sizeof",
    "alignof",
    "decltype",
    "static_assert",
    "noexcept",
    "throw",
    "alignas",
    "__attribute__",
    "requires",
    "static_cast",
    "reinterpret_cast",
    "const_cast",
    "dynamic_cast",
    "defined",
];

/// Whether `word (` is not a call (nor a function's name).
pub fn is_not_call(word: &str) -> bool {
    NOT_CALLS.contains(&word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_operators_and_specifiers_are_not_calls() {
        for w in [
            "if",
            "sizeof",
            "decltype",
            "noexcept",
            "__attribute__",
            "defined",
        ] {
            assert!(is_not_call(w), "{w}");
        }
        for w in ["Set", "glClear", "memcpy", "swap", "operator", "If"] {
            assert!(!is_not_call(w), "{w}");
        }
        let mut sorted = NOT_CALLS.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), NOT_CALLS.len(), "a word listed twice");
    }
}
