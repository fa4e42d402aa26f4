//! `DirtySurface.def`: `MGP_DIRTY_SURFACE_LIST` rows `X(Mutator, Answer)` and, after the
//! `MGP_DIRTY_SURFACE_UNDECIDED_LIST` define, undecided marks `X(Mutator, Bit)` (spec §1.10, §2).

use crate::compat::mask;
use crate::error::{Error, Result};
use crate::rx::{is_space, is_word, Cur, Groups, Rx};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The seven answers that are not bits.
pub const NON_BIT_ANSWERS: [&str; 7] = [
    "kImmediate",
    "kReverseChannel",
    "kNoBackendRead",
    "kExplicitDestroy",
    "kUnpublishedDestroy",
    "kPulledEveryVerb",
    "kPulledPartialShutter",
];

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Row {
    pub mutator: String,
    /// As spelled in the def (spaces around `|` removed when mgctl accepts them).
    pub answer: String,
    pub line: usize,
    /// Whether upstream's row pattern reads this line (it ignores rows with spaces around `|`).
    pub upstream_reads: bool,
}

impl Row {
    /// The distinct non-empty answer tokens.
    pub fn tokens(&self) -> BTreeSet<&str> {
        self.answer
            .split('|')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .collect()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Mark {
    pub mutator: String,
    pub bits: Vec<String>,
    pub line: usize,
}

#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Def {
    /// Every map row in file order (duplicates included).
    pub rows: Vec<Row>,
    pub marks: Vec<Mark>,
}

impl Def {
    /// The map, last row winning, as upstream builds it.
    pub fn map(&self, upstream: bool) -> BTreeMap<&str, &Row> {
        self.rows
            .iter()
            .filter(|r| !upstream || r.upstream_reads)
            .map(|r| (r.mutator.as_str(), r))
            .collect()
    }

    /// One entry per extra occurrence, sorted.
    pub fn duplicates(&self, upstream: bool) -> Vec<&str> {
        let mut seen = BTreeSet::new();
        let mut d: Vec<&str> = self
            .rows
            .iter()
            .filter(|r| !upstream || r.upstream_reads)
            .filter(|r| !seen.insert(r.mutator.as_str()))
            .map(|r| r.mutator.as_str())
            .collect();
        d.sort();
        d
    }

    /// Marks per mutator: the set of marked bits.
    pub fn mark_sets(&self) -> BTreeMap<&str, BTreeSet<&str>> {
        let mut m: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for k in &self.marks {
            m.entry(&k.mutator)
                .or_default()
                .extend(k.bits.iter().map(String::as_str).filter(|b| !b.is_empty()));
        }
        m
    }
}

pub(crate) static UPSTREAM_ROW: Rx =
    Rx::with_hand(r"^\s*X\((\w+),\s*([\w|]+)\)\s*\\?\s*$", upstream_row);
pub(crate) static STRICT_ROW: Rx = Rx::with_hand(
    r"^\s*X\(\s*(\w+)\s*,\s*([\w|]+(?:\s*\|\s*[\w|]*)*)\s*\)\s*\\?\s*$",
    strict_row,
);
pub(crate) static SPLIT_LINE: Rx = Rx::with_hand(
    r"^\s*#\s*define\s+MGP_DIRTY_SURFACE_UNDECIDED_LIST\(",
    split_line,
);

/// `\s*\\?\s*$` from the cursor: the tail of a row line.
fn row_tail(c: &mut Cur<'_>) -> bool {
    c.ws();
    c.lit(b"\\");
    c.ws();
    c.at_end()
}

/// [`UPSTREAM_ROW`] by hand: every class is disjoint from the literal after it, so each run is
/// taken whole and nothing backtracks.
fn upstream_row(s: &[u8]) -> Groups {
    let Some(mut c) = Cur::past(s, b"X(") else {
        return Some(None);
    };
    let a = c.i;
    if c.run(is_word) == 0 {
        return Some(None);
    }
    let g1 = a..c.i;
    if !c.lit(b",") {
        return Some(None);
    }
    c.ws();
    let b = c.i;
    if c.run(|x| is_word(x) || x == b'|') == 0 {
        return Some(None);
    }
    let g2 = b..c.i;
    Some((c.lit(b")") && row_tail(&mut c)).then_some([Some(0..s.len()), Some(g1), Some(g2)]))
}

/// [`STRICT_ROW`] by hand. The answer group `[\w|]+(?:\s*\|\s*[\w|]*)*` is a run of word
/// bytes, pipes and spaces up to the first `)` that starts with a word byte or pipe and whose
/// inner space runs each touch a pipe.
fn strict_row(s: &[u8]) -> Groups {
    let Some(mut c) = Cur::past(s, b"X(") else {
        return Some(None);
    };
    c.ws();
    let a = c.i;
    if c.run(is_word) == 0 {
        return Some(None);
    }
    let g1 = a..c.i;
    c.ws();
    if !c.lit(b",") {
        return Some(None);
    }
    c.ws();
    let b = c.i;
    if !s.get(b).is_some_and(|&x| is_word(x) || x == b'|') {
        return Some(None);
    }
    c.run(|x| is_word(x) || x == b'|' || is_space(x));
    let region = &s[b..c.i];
    if !c.lit(b")") || !row_tail(&mut c) {
        return Some(None);
    }
    // Every inner space run must touch a pipe; the first one's pipe before it must not be the
    // whole first run (`[\w|]+` keeps at least one byte).
    let (mut k, mut first) = (0, true);
    let mut end = region.len();
    while k < region.len() {
        if !is_space(region[k]) {
            k += 1;
            continue;
        }
        let from = k;
        while k < region.len() && is_space(region[k]) {
            k += 1;
        }
        let after_pipe = region[from - 1] == b'|';
        if k == region.len() {
            // Trailing spaces: after a word byte the group ends before them; after a pipe,
            // whether the pipe's `\s*` takes them depends on how the pipes were split, so
            // the compiled pattern decides (the def's reader strips spaces either way).
            if after_pipe {
                return None;
            }
            end = from;
        } else if region[k] != b'|' && !(after_pipe && (!first || from >= 2)) {
            return Some(None);
        }
        first = false;
    }
    Some(Some([Some(0..s.len()), Some(g1), Some(b..b + end)]))
}

/// [`SPLIT_LINE`] by hand.
fn split_line(s: &[u8]) -> Groups {
    let mut c = Cur::new(s);
    c.ws();
    let ok = c.lit(b"#")
        && {
            c.ws();
            c.lit(b"define")
        }
        && c.ws() > 0
        && c.lit(b"MGP_DIRTY_SURFACE_UNDECIDED_LIST(");
    Some(ok.then_some([Some(0..c.i), None, None]))
}

const EXPECTED: &str = "`X(Mutator, ANSWER)` on one line, ANSWER being answer words joined by `|`";

/// Parse the def. Comments are masked first (commented-out rows do not count). A line that
/// starts a row (`X(`) but does not parse is an error naming the line and what was expected.
pub fn parse(text: &str, path: &Path) -> Result<Def> {
    parse_with(text, path, false)
}

/// Like [`parse`]; with `lenient` (upstream compatibility) a line that does not parse is
/// ignored, as upstream's row pattern ignores it.
pub fn parse_with(text: &str, path: &Path, lenient: bool) -> Result<Def> {
    let masked = mask(text);
    let mut def = Def::default();
    let mut in_marks = false;
    for (k, line) in masked.lines().enumerate() {
        let lineno = k + 1;
        if !in_marks && SPLIT_LINE.is_match(line) {
            in_marks = true;
            continue;
        }
        let trimmed = line.trim_start();
        if !trimmed.starts_with("X(") {
            continue;
        }
        let upstream_reads = UPSTREAM_ROW.is_match(line);
        let Some(c) = STRICT_ROW.captures(line) else {
            if lenient {
                continue;
            }
            return Err(Error::BadRow {
                path: path.to_path_buf(),
                line: lineno,
                expected: EXPECTED,
                found: line.trim().to_string(),
            });
        };
        let mutator = c.get(1).unwrap_or("").to_string();
        let answer: String = c
            .get(2)
            .unwrap_or("")
            .chars()
            .filter(|ch| !ch.is_whitespace())
            .collect();
        if in_marks {
            let bits = answer
                .split('|')
                .map(|b| b.trim().to_string())
                .filter(|b| !b.is_empty())
                .collect();
            def.marks.push(Mark {
                mutator,
                bits,
                line: lineno,
            });
        } else {
            def.rows.push(Row {
                mutator,
                answer,
                line: lineno,
                upstream_reads,
            });
        }
    }
    Ok(def)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const DEF: &str = "// header X(Commented, kImmediate)\n#define MGP_DIRTY_SURFACE_LIST(X) \\\n    X(SetA,                           NEW_RENDER_STATE|NEW_PIPELINE_STATE) \\\n    /* note */ \\\n    X(SetB, kImmediate) \\\n    X(SetB, kNoBackendRead) \\\n    X(SetC, NEW_A | NEW_B)\n#define MGP_DIRTY_SURFACE_UNDECIDED_LIST(X) \\\n    X(UseProgram, NEW_SHADER) \\\n    X(UseProgram, NEW_SAMPLER_VIEWS)\n";

    #[test]
    fn rows_marks_duplicates() {
        let d = parse(DEF, Path::new("d.def")).unwrap();
        assert_eq!(d.rows.len(), 4);
        assert_eq!(d.rows[0].answer, "NEW_RENDER_STATE|NEW_PIPELINE_STATE");
        assert_eq!(d.rows[0].line, 3);
        assert_eq!(d.map(false)["SetB"].answer, "kNoBackendRead");
        assert_eq!(d.duplicates(false), vec!["SetB"]);
        assert!(!d.rows[3].upstream_reads);
        assert!(!d.map(true).contains_key("SetC"));
        assert_eq!(d.mark_sets()["UseProgram"].len(), 2);
    }

    #[test]
    fn bad_row_names_line_and_expectation() {
        let e = parse(
            "#define L(X) \\\n  X(SetA NEW_A) \\\n",
            Path::new("m/DirtySurface.def"),
        )
        .unwrap_err();
        let s = e.to_string();
        assert!(
            s.starts_with("m/DirtySurface.def:2: malformed row: expected `X(Mutator, ANSWER)`"),
            "{s}"
        );
    }

    #[test]
    fn lenient_parsing_ignores_bad_rows_like_upstream() {
        let d = parse_with("X(SetA NEW_A)\nX(SetB, NEW_B)\n", Path::new("d"), true).unwrap();
        assert_eq!(d.rows.len(), 1);
        assert_eq!(d.rows[0].mutator, "SetB");
    }

    #[test]
    fn empty_answer_is_a_row_with_no_tokens() {
        let d = parse("X(Foo, |)\n", Path::new("d")).unwrap();
        assert!(d.rows[0].tokens().is_empty());
    }
}
