//! The one C++ lexer of the workspace (issue 14, STYLE.md pattern 15).
//!
//! [`lex`] does translation phases 1–3 once — line splices (LF and CRLF, also inside
//! identifiers and directive keywords), comments (a `//` comment continued by a splice), every
//! literal form (encoding prefixes, raw strings with their delimiter rules, `u8'a'`), pp-numbers
//! with digit separators, digraphs (`%:include` is a directive) and directive recognition —
//! producing tokens with byte spans into the ORIGINAL text and 1-based line/column there. It never
//! panics; what it cannot lex becomes a [`Diagnostic`]. [`lex_with`] pushes the same tokens into a
//! [`Sink`] (ripgrep's model) for scans that must not allocate per token.
//!
//! [`skim`] reads only a file's directive lines with the lexer (the lines between are skimmed
//! with `memchr` for comments, literals and splices), for scans that need only directives.
//!
//! Beside it, once: [`directives`] (the include/conditional scan of one file), [`keywords`] (the
//! words before `(` that are not a call), [`macros`] (the macro table, expansion and `#if`
//! evaluation) and [`mask`] (comments/literals blanked in place, offsets kept).
#![warn(unreachable_pub)]

pub mod directives;
pub mod keywords;
mod lexer;
pub mod macros;
pub mod mask;
pub mod skim;

/// A small deterministic generator (xorshift) for the tests over generated inputs.
#[cfg(test)]
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

pub use lexer::{
    is_ident_continue, lex, lex_with, spelling, Diagnostic, Hidden, Kind, Lexed, Sink, Token,
};
