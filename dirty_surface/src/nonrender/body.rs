//! A function as the write analysis reads it: its parameters and body as one token sequence,
//! directives dropped and the file's macros expanded.

use std::borrow::Cow;

use super::upstream_macros::{calls_a_macro, expand, Macros};
use crate::lex::{Kind, Lexed, Parsed, Token};
use crate::scope::Function;

/// A write-analysis file with its shared lexing.
pub(super) struct File<'a> {
    pub(super) src: &'a str,
    pub(super) p: &'a Parsed,
}

/// One token of a (macro-expanded) function: text, whether it is an identifier, and the source
/// span it came from (an expansion keeps its invocation's span). The text borrows the file's
/// spelling; only a `##` paste owns its joined text.
#[derive(Debug, Clone)]
pub(super) struct Tok<'a> {
    pub(super) text: Cow<'a, str>,
    pub(super) ident: bool,
    pub(super) start: u32,
    pub(super) end: u32,
}

/// A function's parameter list and body as one token sequence: `params` is the parameter
/// range, `lo` the body's `{`, `hi` its closing `}` (excluded from scans).
pub(super) struct Body<'a> {
    pub(super) toks: Vec<Tok<'a>>,
    pub(super) src: &'a str,
    pub(super) params: (usize, usize),
    pub(super) lo: usize,
    pub(super) hi: usize,
}

impl Body<'_> {
    pub(super) fn t(&self, i: usize) -> &str {
        self.toks.get(i).map_or("", |t| &t.text)
    }
    pub(super) fn is_ident(&self, i: usize) -> bool {
        self.toks.get(i).is_some_and(|t| t.ident)
    }
    /// Source text of tokens `lo..hi`, for messages.
    pub(super) fn snippet(&self, lo: usize, hi: usize) -> String {
        let (Some(a), Some(b)) = (
            self.toks.get(lo),
            self.toks.get(hi.saturating_sub(1).max(lo)),
        ) else {
            return String::new();
        };
        self.src
            .get(a.start as usize..b.end.max(a.start) as usize)
            .unwrap_or("")
            .to_string()
    }
}

fn tok_of<'a>(lx: &'a Lexed, src: &'a str, t: &Token) -> Tok<'a> {
    Tok {
        text: Cow::Borrowed(lx.text(src, t)),
        ident: t.kind == Kind::Ident,
        start: t.start,
        end: t.end,
    }
}

/// The function's parameters and body as tokens, directives dropped, macros expanded.
pub(super) fn body_of<'a>(p: &File<'a>, f: &Function, m: &Macros<'a>) -> Body<'a> {
    let (lx, src) = (&p.p.lx, p.src);
    let toks = &lx.tokens;
    let last = f.close.min(toks.len().saturating_sub(1));
    let mut all: Vec<Tok<'a>> = Vec::with_capacity(
        f.params.1.saturating_sub(f.params.0) + (last + 1).saturating_sub(f.open),
    );
    all.extend((f.params.0..f.params.1.min(toks.len())).map(|k| tok_of(lx, src, &toks[k])));
    let np = all.len();
    all.extend(
        (f.open..=last)
            .filter(|&k| !toks[k].directive)
            .map(|k| tok_of(lx, src, &toks[k])),
    );
    if calls_a_macro(&all[np..], m) {
        let raw = all.split_off(np);
        all.extend(expand(raw, m));
    }
    let hi = if all.last().is_some_and(|t| t.text == "}") {
        all.len() - 1
    } else {
        all.len()
    };
    Body {
        toks: all,
        src,
        params: (0, np),
        lo: np,
        hi,
    }
}

/// Whether a token's text starts like an identifier (a `##` paste, a shutter's token).
pub(super) fn is_ident_text(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
}

/// `str::floor_char_boundary`, which is not stable yet.
pub(super) trait CharBoundary {
    fn floor_char_boundary_compat(&self, i: usize) -> usize;
}

impl CharBoundary for str {
    fn floor_char_boundary_compat(&self, mut i: usize) -> usize {
        while i > 0 && !self.is_char_boundary(i) {
            i -= 1;
        }
        i
    }
}
