//! The scanner's fixed patterns, compiled once per process, lazily, and in the form the
//! haystack needs (issue 16). Compiling `\w` and `\s` as Unicode classes costs milliseconds a
//! pattern (most of a `check` run's dirty-surface time); on an ASCII haystack the Unicode and the
//! ASCII classes match exactly the same characters (`\w` = `[0-9A-Za-z_]`, `\s` = `[\t\n\v\f\r
//! ]`, `\d` = `[0-9]`, `\b` between them), so an ASCII haystack is searched with the pattern
//! compiled under `(?-u)` (a bytes regex: byte offsets are char offsets there) and only a
//! haystack with a non-ASCII byte pays for the Unicode form. A UTF-8 identifier (`Setä`) is still
//! a word, as g++ has it.

use std::ops::Range;
use std::sync::OnceLock;

/// One fixed pattern, Unicode semantics, compiled on first use in the form a haystack needs.
pub(crate) struct Rx {
    pattern: &'static str,
    ascii: OnceLock<regex::bytes::Regex>,
    unicode: OnceLock<regex::Regex>,
    /// A hand-written matcher for ASCII haystacks: the first match's groups 0–2, exactly what
    /// the compiled pattern gives (a test holds the two equal on every haystack of the tests
    /// below), so a run on ASCII input compiles nothing.
    hand: Option<Hand>,
}

/// A hand matcher's answer: the leftmost-first match's groups 0, 1, 2 (`Some(None)`: no match;
/// `None`: the matcher cannot tell, the compiled pattern decides).
pub(crate) type Groups = Option<Option<[Option<Range<usize>>; 3]>>;

pub(crate) type Hand = fn(&[u8]) -> Groups;

/// A cursor for the hand matchers; classes are the ASCII forms of the pattern's (`\s` is
/// `[\t\n\x0B\x0C\r ]`, `\w` is `[0-9A-Za-z_]`).
pub(crate) struct Cur<'a> {
    pub s: &'a [u8],
    pub i: usize,
}

pub(crate) fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ')
}

pub(crate) fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl<'a> Cur<'a> {
    pub(crate) fn new(s: &'a [u8]) -> Self {
        Cur { s, i: 0 }
    }
    /// `^\s*` then the literal `l`: the cursor after it, or `None` when the line does not
    /// start so (what every line pattern here opens with).
    pub(crate) fn past(s: &'a [u8], l: &[u8]) -> Option<Self> {
        let mut c = Cur::new(s);
        c.ws();
        c.lit(l).then_some(c)
    }
    /// Skip a (possibly empty) run of `f` bytes; its length.
    pub(crate) fn run(&mut self, f: impl Fn(u8) -> bool) -> usize {
        let from = self.i;
        while self.s.get(self.i).is_some_and(|&b| f(b)) {
            self.i += 1;
        }
        self.i - from
    }
    pub(crate) fn ws(&mut self) -> usize {
        self.run(is_space)
    }
    /// Take the literal `l` if it is next.
    pub(crate) fn lit(&mut self, l: &[u8]) -> bool {
        let ok = self.s.get(self.i..).is_some_and(|r| r.starts_with(l));
        if ok {
            self.i += l.len();
        }
        ok
    }
    pub(crate) fn at_end(&self) -> bool {
        self.i >= self.s.len()
    }
}

/// The groups of one match (group 0 is the whole match).
pub(crate) struct Caps<'h> {
    hay: &'h str,
    spans: Vec<Option<Range<usize>>>,
}

impl<'h> Caps<'h> {
    pub(crate) fn get(&self, i: usize) -> Option<&'h str> {
        self.spans
            .get(i)
            .cloned()
            .flatten()
            .and_then(|r| self.hay.get(r))
    }
}

/// Which compiled form searches a haystack.
enum Form<'a> {
    Ascii(&'a regex::bytes::Regex),
    Unicode(&'a regex::Regex),
}

impl Rx {
    /// `pattern` must be valid and use ASCII literals only (a unit test compiles every one).
    pub(crate) const fn new(pattern: &'static str) -> Self {
        Rx {
            pattern,
            ascii: OnceLock::new(),
            unicode: OnceLock::new(),
            hand: None,
        }
    }

    /// A pattern whose ASCII haystacks `hand` matches without compiling anything.
    pub(crate) const fn with_hand(pattern: &'static str, hand: Hand) -> Self {
        Rx {
            pattern,
            ascii: OnceLock::new(),
            unicode: OnceLock::new(),
            hand: Some(hand),
        }
    }

    /// The hand matcher's answer, when there is one for this haystack.
    fn by_hand(&self, hay: &str) -> Groups {
        let h = self.hand?;
        hay.is_ascii().then(|| h(hay.as_bytes())).flatten()
    }

    fn form(&self, hay: &str) -> Form<'_> {
        if hay.is_ascii() {
            Form::Ascii(self.ascii_form())
        } else {
            Form::Unicode(self.unicode_form())
        }
    }

    fn ascii_form(&self) -> &regex::bytes::Regex {
        self.ascii.get_or_init(|| {
            regex::bytes::Regex::new(&format!("(?-u){}", self.pattern))
                .unwrap_or_else(|e| unreachable!("{e}"))
        })
    }

    fn unicode_form(&self) -> &regex::Regex {
        self.unicode
            .get_or_init(|| regex::Regex::new(self.pattern).unwrap_or_else(|e| unreachable!("{e}")))
    }

    pub(crate) fn is_match(&self, hay: &str) -> bool {
        if let Some(m) = self.by_hand(hay) {
            return m.is_some();
        }
        match self.form(hay) {
            Form::Ascii(r) => r.is_match(hay.as_bytes()),
            Form::Unicode(r) => r.is_match(hay),
        }
    }

    /// Byte range of the leftmost-first match.
    pub(crate) fn find(&self, hay: &str) -> Option<Range<usize>> {
        if let Some(m) = self.by_hand(hay) {
            return m.and_then(|g| g[0].clone());
        }
        match self.form(hay) {
            Form::Ascii(r) => r.find(hay.as_bytes()).map(|m| m.range()),
            Form::Unicode(r) => r.find(hay).map(|m| m.range()),
        }
    }

    pub(crate) fn captures<'h>(&self, hay: &'h str) -> Option<Caps<'h>> {
        if let Some(m) = self.by_hand(hay) {
            return m.map(|g| Caps {
                hay,
                spans: g.to_vec(),
            });
        }
        let spans = match self.form(hay) {
            Form::Ascii(r) => {
                let c = r.captures(hay.as_bytes())?;
                c.iter().map(|m| m.map(|m| m.range())).collect()
            }
            Form::Unicode(r) => {
                let c = r.captures(hay)?;
                c.iter().map(|m| m.map(|m| m.range())).collect()
            }
        };
        Some(Caps { hay, spans })
    }

    /// Group `i` of every successive non-overlapping match (matches without it left out).
    pub(crate) fn group_iter<'h>(&self, hay: &'h str, i: usize) -> Vec<&'h str> {
        let ranges: Vec<Range<usize>> = match self.form(hay) {
            Form::Ascii(r) => r
                .captures_iter(hay.as_bytes())
                .filter_map(|c| c.get(i).map(|m| m.range()))
                .collect(),
            Form::Unicode(r) => r
                .captures_iter(hay)
                .filter_map(|c| c.get(i).map(|m| m.range()))
                .collect(),
        };
        ranges.into_iter().filter_map(|r| hay.get(r)).collect()
    }

    /// Every group of every match under the given form (true: ASCII), as byte ranges.
    #[cfg(test)]
    pub(crate) fn all_spans(&self, hay: &str, ascii: bool) -> Vec<Vec<Option<Range<usize>>>> {
        if ascii {
            self.ascii_form()
                .captures_iter(hay.as_bytes())
                .map(|c| c.iter().map(|m| m.map(|m| m.range())).collect())
                .collect()
        } else {
            self.unicode_form()
                .captures_iter(hay)
                .map(|c| c.iter().map(|m| m.map(|m| m.range())).collect())
                .collect()
        }
    }
}

/// Every UTF-8 file of the embedded driver's `MobileGL/` tree, for the crate's differential
/// tests.
#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) fn driver_texts() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../driver/MobileGL");
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(t) = std::fs::read_to_string(&p) {
                out.push(t);
            }
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Every fixed pattern of the crate.
    fn all() -> Vec<(&'static str, &'static Rx)> {
        vec![
            ("def upstream row", &crate::def::UPSTREAM_ROW),
            ("def strict row", &crate::def::STRICT_ROW),
            ("def split line", &crate::def::SPLIT_LINE),
            ("tracker name row", &crate::tracker::NAME_ROW),
            ("tracker enumerator", &crate::tracker::ENUMERATOR),
            ("tracker enum head", &crate::tracker::ENUM_HEAD),
            ("outside pre", &crate::nonrender::OUTSIDE_PRE),
            ("outside assign", &crate::nonrender::OUTSIDE_ASSIGN),
            ("outside decl", &crate::nonrender::OUTSIDE_DECL),
        ]
    }

    /// ASCII haystacks: the driver's own inputs, every line of them, and lines built to sit on
    /// the patterns' edges (every ASCII byte, control characters included, in every slot).
    fn ascii_haystacks() -> Vec<String> {
        let mut out = Vec::new();
        for t in driver_texts().into_iter().filter(|t| t.is_ascii()) {
            out.extend(t.lines().map(str::to_string));
            out.push(crate::compat::mask(&t));
            out.push(t);
        }
        let seeds = [
            "    X(SetA, NEW_A|NEW_B) \\",
            "X( SetB , NEW_A | NEW_B | )",
            "X(SetC, a || b |c| d)",
            "  \"NEW_RENDER_STATE\",",
            "    RenderState = 0,",
            "enum class MGPipeDirty : Uint32 {",
            "#  define MGP_DIRTY_SURFACE_UNDECIDED_LIST(X)",
            "  ++m_count; m_a.b->c[i] <<= 2; m_x == 1; --  m_y",
            "  const std::vector<int>& m_list = {};",
            "static Foo* m_ptr;",
        ];
        for s in seeds {
            out.push(s.to_string());
            for b in 0u8..128 {
                let c = char::from(b);
                for at in 0..=s.len() {
                    let mut t = s.to_string();
                    t.insert(at, c);
                    out.push(t);
                }
                out.push(s.replace(' ', &c.to_string()));
            }
        }
        out
    }

    #[test]
    fn every_pattern_compiles_in_both_forms() {
        for (name, rx) in all() {
            assert!(rx.pattern.is_ascii(), "{name}");
            let _ = (rx.ascii_form(), rx.unicode_form());
        }
    }

    /// The fast path finds exactly what the general one does, group for group, on ASCII input.
    #[test]
    fn ascii_form_matches_the_unicode_form_on_ascii_input() {
        let hays = ascii_haystacks();
        assert!(hays.len() > 10_000, "{}", hays.len());
        for (name, rx) in all() {
            let mut hits = 0;
            for h in &hays {
                let (a, u) = (rx.all_spans(h, true), rx.all_spans(h, false));
                assert_eq!(a, u, "{name} on {h:?}");
                hits += a.len();
            }
            assert!(
                hits > 0,
                "{name} matched nothing: the comparison proves nothing"
            );
        }
    }

    /// Each hand matcher finds exactly the first match the compiled ASCII form finds, group for
    /// group, on every ASCII haystack.
    #[test]
    fn hand_matchers_equal_the_compiled_pattern() {
        let hays = ascii_haystacks();
        let (mut with_hand, mut undecided) = (0, 0);
        for (name, rx) in all() {
            let Some(hand) = rx.hand else { continue };
            with_hand += 1;
            let mut hits = 0;
            for h in &hays {
                let want: Option<Vec<Option<Range<usize>>>> = rx
                    .ascii_form()
                    .captures(h.as_bytes())
                    .map(|c| (0..3).map(|i| c.get(i).map(|m| m.range())).collect());
                let Some(got) = hand(h.as_bytes()) else {
                    undecided += 1;
                    continue;
                };
                assert_eq!(got.map(|g| g.to_vec()), want, "{name} on {h:?}");
                hits += usize::from(want.is_some());
            }
            assert!(
                hits > 100,
                "{name} matched {hits}: the comparison proves little"
            );
        }
        assert_eq!(with_hand, 6);
        // Only an answer with spaces after a trailing `|` is left to the compiled pattern (one
        // seed has that shape), and no line of the driver's def is.
        assert!(undecided < hays.len() / 20, "{undecided}");
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../driver");
        let def = std::fs::read_to_string(root.join("MobileGL/MG_Pipe/DirtySurface.def")).unwrap();
        for line in crate::compat::mask(&def).lines() {
            for (name, rx) in all() {
                if let Some(hand) = rx.hand {
                    assert!(hand(line.as_bytes()).is_some(), "{name} on {line:?}");
                }
            }
        }
    }

    /// A non-ASCII haystack takes the Unicode form: a UTF-8 identifier is a word character.
    #[test]
    fn non_ascii_identifiers_are_words() {
        let def = &crate::def::STRICT_ROW;
        let c = def.captures("  X(SetÄrger, NEW_Ä) \\").unwrap();
        assert_eq!((c.get(1), c.get(2)), (Some("SetÄrger"), Some("NEW_Ä")));
        let m = crate::nonrender::OUTSIDE_PRE.group_iter("++m_zähler; --m_b", 1);
        assert_eq!(m, vec!["m_zähler", "m_b"]);
        // The ASCII form alone would stop at the first non-ASCII byte.
        assert_ne!(
            def.all_spans("X(SetÄ, NEW_A)", true),
            def.all_spans("X(SetÄ, NEW_A)", false)
        );
    }
}
