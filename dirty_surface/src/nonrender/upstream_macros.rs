//! Upstream's macro policy (spec §1.13): which function-like `#define`s of the analysed files
//! the write analysis expands, and the expansion itself. Each `#define` is read by the
//! workspace's one parser, [`cpp_lex::macros::parse_define`]; this module only adds the policy
//! upstream's script applies on top, which differs from a preprocessor on purpose:
//!
//! - every `#define` of the analysed files counts, live or inside a dead `#if 0` group, and
//!   conditionals are not evaluated ([`collect_macros`] reads directives, not a replay);
//! - a name defined with more than one distinct body is refused instead of redefined, and so are
//!   [`NEVER_EXPANDED`] names, bodies over [`MAX_BODY`] characters, unbalanced brackets and
//!   variadic or non-identifier parameters; a refused macro that pastes (`##`) taints the bodies
//!   that call it;
//! - expansion runs at most [`ROUNDS`] rounds, arguments split at depth-0 commas (the count must
//!   match), parameters replaced as whole tokens, `##` pasted; no `#` stringizing and no
//!   object-like macros.

use std::borrow::Cow;
use std::collections::BTreeSet;

use cpp_lex::directives::directive_text;
use cpp_lex::macros::{parse_define, Tok as PpTok};

use super::body::{is_ident_text, File, Tok};
use crate::fast::{FastMap, FastSet};
use crate::lex::Kind;

/// Upstream's annotation markers: read by the write analysis itself, never expanded.
const NEVER_EXPANDED: [&str; 2] = ["MGP_NOTE_AGGREGATE", "MGP_NOTE_MUTATION"];
/// Upstream refuses a body longer than this (its tokens joined by single spaces).
const MAX_BODY: usize = 4000;
/// Rounds of expansion (a macro calling a macro calling a macro …).
const ROUNDS: usize = 4;

/// A function-like macro the analysis expands.
struct Macro<'a> {
    params: Vec<String>,
    body: Vec<Tok<'a>>,
}

/// The macros of the analysed files, after the policy.
#[derive(Default)]
pub(super) struct Macros<'a> {
    ok: FastMap<String, Macro<'a>>,
    /// Refused macros whose body pastes tokens: a call to one taints the body.
    pub(super) refused_pasting: BTreeSet<String>,
}

/// One `#define` of a function-like macro as `parse_define` read it.
struct Definition<'a> {
    params: Vec<String>,
    body: Vec<Tok<'a>>,
    /// The body's tokens joined by single spaces: what "distinct bodies" compares.
    text: String,
}

/// A body token of a definition. Its span is never read: an expansion gives every token it
/// produces the span of its invocation.
fn body_tok<'a>(t: PpTok) -> Tok<'a> {
    let (text, ident) = match t {
        PpTok::Ident(s) => (s, true),
        PpTok::Num(s) | PpTok::Punct(s) | PpTok::Str(s) => (s, false),
    };
    Tok {
        text: Cow::Owned(text),
        ident,
        start: 0,
        end: 0,
    }
}

fn is_identifier(p: &str) -> bool {
    p.bytes().next().is_some_and(|b| !b.is_ascii_digit())
        && p.bytes().all(cpp_lex::is_ident_continue)
}

/// Collect the function-like `#define`s of the analysed files and apply upstream's policy
/// (module docs).
pub(super) fn collect_macros<'a>(files: &[File<'a>]) -> Macros<'a> {
    let mut seen: FastMap<String, Vec<Definition<'a>>> = FastMap::default();
    let mut bad_params: FastSet<String> = FastSet::default();
    for p in files {
        let (lx, src) = (&p.p.lx, p.src);
        let toks = &lx.tokens;
        let n = toks.len();
        for k in 0..n.saturating_sub(3) {
            if toks[k].kind != Kind::Hash
                || lx.text(src, &toks[k + 1]) != "define"
                || !toks[k + 2].directive
            {
                continue;
            }
            // The directive's tokens after `define`: up to the next directive or the code.
            let end = (k + 2..n)
                .find(|&j| !toks[j].directive || toks[j].kind == Kind::Hash)
                .unwrap_or(n);
            let Some((name, mac)) =
                parse_define(&directive_text(src.as_bytes(), &toks[k + 2..end]))
            else {
                continue;
            };
            // Object-like macros are not expanded.
            let Some(params) = mac.params else {
                continue;
            };
            if mac.variadic || !params.iter().all(|p| is_identifier(p)) {
                bad_params.insert(name.clone());
            }
            let body: Vec<Tok<'a>> = mac.body.into_iter().map(body_tok).collect();
            let text = body.iter().map(|t| &*t.text).collect::<Vec<_>>().join(" ");
            seen.entry(name)
                .or_default()
                .push(Definition { params, body, text });
        }
    }
    let mut out = Macros::default();
    for (name, mut defs) in seen {
        let bodies: BTreeSet<&str> = defs.iter().map(|d| d.text.as_str()).collect();
        let distinct = bodies.len();
        let first = &defs[0];
        let balanced = ["()", "[]", "{}"].iter().all(|pair| {
            let (o, c) = (&pair[..1], &pair[1..]);
            first.body.iter().filter(|t| t.text == o).count()
                == first.body.iter().filter(|t| t.text == c).count()
        });
        let refused = NEVER_EXPANDED.contains(&name.as_str())
            || distinct > 1
            || first.text.len() > MAX_BODY
            || !balanced
            || bad_params.contains(&name);
        if refused {
            if defs.iter().any(|d| d.body.iter().any(|t| t.text == "##")) {
                out.refused_pasting.insert(name);
            }
        } else {
            let Definition { params, body, .. } = defs.swap_remove(0);
            out.ok.insert(name, Macro { params, body });
        }
    }
    out
}

/// Whether `toks` holds a call (`NAME (`) of an expandable macro: without one, expansion is the
/// identity, and the body's tokens are not copied.
pub(super) fn calls_a_macro(toks: &[Tok<'_>], m: &Macros<'_>) -> bool {
    toks.iter().enumerate().any(|(i, t)| {
        t.ident && m.ok.contains_key(&*t.text) && toks.get(i + 1).is_some_and(|x| x.text == "(")
    })
}

/// Expand the expandable macros in `toks`, up to [`ROUNDS`] rounds: arguments split at depth-0 commas
/// (the count must match), parameters replaced as whole tokens, `##` pasted.
pub(super) fn expand<'a>(mut toks: Vec<Tok<'a>>, m: &Macros<'a>) -> Vec<Tok<'a>> {
    for _ in 0..ROUNDS {
        if !calls_a_macro(&toks, m) {
            break;
        }
        let mut out = Vec::with_capacity(toks.len());
        let mut changed = false;
        let mut i = 0;
        while i < toks.len() {
            let t = &toks[i];
            let Some(mac) =
                m.ok.get(&*t.text)
                    .filter(|_| t.ident && toks.get(i + 1).is_some_and(|x| x.text == "("))
            else {
                out.push(toks[i].clone());
                i += 1;
                continue;
            };
            // Arguments.
            let mut args: Vec<Vec<Tok<'a>>> = vec![Vec::new()];
            let mut depth = 0;
            let mut j = i + 1;
            let mut closed = None;
            while j < toks.len() {
                let w = &*toks[j].text;
                let keep = match w {
                    "(" | "[" | "{" => {
                        depth += 1;
                        depth > 1
                    }
                    ")" | "]" | "}" => {
                        depth -= 1;
                        if depth == 0 {
                            closed = Some(j);
                            break;
                        }
                        true
                    }
                    "," if depth == 1 => {
                        args.push(Vec::new());
                        false
                    }
                    _ => true,
                };
                if keep {
                    if let Some(a) = args.last_mut() {
                        a.push(toks[j].clone());
                    }
                }
                j += 1;
            }
            if args.len() == 1 && args[0].is_empty() && mac.params.is_empty() {
                args.clear();
            }
            let Some(close) = closed.filter(|_| args.len() == mac.params.len()) else {
                out.push(toks[i].clone());
                i += 1;
                continue;
            };
            let (start, end) = (toks[i].start, toks[close].end);
            let mut body: Vec<Tok<'a>> = Vec::new();
            for bt in &mac.body {
                match mac.params.iter().position(|p| bt.ident && *p == bt.text) {
                    Some(k) => body.extend(args[k].iter().map(|a| Tok {
                        start,
                        end,
                        ..a.clone()
                    })),
                    None => body.push(Tok {
                        start,
                        end,
                        ..bt.clone()
                    }),
                }
            }
            // `a ## b` pastes into one token.
            let mut pasted: Vec<Tok<'a>> = Vec::with_capacity(body.len());
            let mut k = 0;
            while k < body.len() {
                if body[k].text == "##" && !pasted.is_empty() && k + 1 < body.len() {
                    if let Some(prev) = pasted.last_mut() {
                        prev.text.to_mut().push_str(&body[k + 1].text);
                        prev.ident = is_ident_text(&prev.text);
                    }
                    k += 2;
                    continue;
                }
                pasted.push(body[k].clone());
                k += 1;
            }
            out.extend(pasted);
            changed = true;
            i = close + 1;
        }
        toks = out;
        if !changed {
            break;
        }
    }
    toks
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use crate::nonrender::{writers, Unit};

    #[test]
    fn macros_are_expanded_and_pasted_and_refused_pasters_taint() {
        let text = "#define SET_FIELD(dir, name, v) m_store.dir##name = v\n#define TWICE(a) SET_FIELD(Pack, a, 1); SET_FIELD(Unpack, a, 2)\n#define PASTE2(x) m_##x = 0\n#define PASTE2(x) m_##x = 1\nvoid SetA() { TWICE(Alignment); }\nvoid SetB() { PASTE2(y); }\n";
        let w = writers(&[Unit { rel: "M.h", text }]);
        let a = &w.tokens("SetA").unwrap();
        assert!(
            a.contains("FIELD:m_store.PackAlignment")
                && a.contains("FIELD:m_store.UnpackAlignment"),
            "{a:?}"
        );
        assert!(!a.iter().any(|t| t.starts_with("TAINT:")), "{a:?}");
        let b = &w.tokens("SetB").unwrap();
        assert!(
            b.iter().any(
                |t| t.contains("PASTE2(), a token-pasting macro this script refused to expand")
            ),
            "{b:?}"
        );
    }
}
