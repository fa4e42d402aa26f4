//! Preprocessor rules, generalising MobileGL's `retired_switches.py`:
//!
//! - a *retired* macro must not be named by any preprocessor conditional (`#if`, `#ifdef`,
//!   `#ifndef`, `#elif`, `#elifdef`, `#elifndef`, continued directive lines included) nor be
//!   re-`#define`d;
//! - a *banned* identifier must not appear at all; each rule chooses whether comments count.
//!
//! parse: [`scan`] over one file's bytes (the caller lists tracked files through git2);
//! model: [`Rules`], [`Hit`]; report: [`Hit::annotation`].

pub mod gate;

use serde::{Deserialize, Serialize};

use cpp_lex::{spelling, Kind, Token};

use crate::cpp;

/// Macros retired by a phase: no conditional may test them, no `#define` may bring them back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetiredRule {
    pub macros: Vec<String>,
    /// Why they are retired (printed with every hit).
    pub message: String,
}

/// Identifiers that must not appear anywhere.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BannedRule {
    pub identifiers: Vec<String>,
    /// Whether a mention inside a comment counts (upstream: yes).
    #[serde(default = "yes")]
    pub comments: bool,
    pub message: String,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rules {
    pub retired: Vec<RetiredRule>,
    pub banned: Vec<BannedRule>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HitKind {
    /// A retired macro named by a conditional directive.
    Conditional,
    /// A retired macro re-`#define`d.
    Define,
    /// A banned identifier.
    Banned,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Hit {
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub kind: HitKind,
    pub name: String,
    /// The directive keyword (`ifdef`, `define`, …) for directive hits.
    pub directive: Option<String>,
    pub message: String,
    /// The physical line, stripped.
    pub text: String,
}

impl Hit {
    /// Upstream's GitHub annotation shape: `::error::<path>:<line>: <message>: <line text>`.
    pub fn annotation(&self) -> String {
        format!(
            "::error::{}:{}: {}: {}",
            self.path, self.line, self.message, self.text
        )
    }
}

const CONDITIONALS: &[&[u8]] = &[b"if", b"ifdef", b"ifndef", b"elif", b"elifdef", b"elifndef"];

/// Where each line of a file starts, built once per file: a hit finds its line and column by
/// binary search instead of rescanning the file (thousands of hits on one line stay linear).
struct Lines {
    starts: Vec<usize>,
    len: usize,
}

impl Lines {
    fn new(text: &[u8]) -> Self {
        let mut starts = vec![0];
        starts.extend(
            text.iter()
                .enumerate()
                .filter(|(_, &b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        Lines {
            starts,
            len: text.len(),
        }
    }

    /// The 1-based line of byte `at` and that line's byte range (without its newline).
    fn of(&self, at: usize) -> (usize, usize, usize) {
        let line = self.starts.partition_point(|&s| s <= at).max(1);
        let start = self.starts[line - 1];
        let end = self.starts.get(line).map_or(self.len, |&next| next - 1);
        (line, start, end.max(start))
    }
}

#[allow(clippy::too_many_arguments)]
fn hit(
    text: &[u8],
    lines: &Lines,
    path: &str,
    at: usize,
    kind: HitKind,
    name: &str,
    directive: Option<&[u8]>,
    message: &str,
) -> Hit {
    let (line, start, end) = lines.of(at);
    Hit {
        path: path.to_string(),
        line,
        column: at - start + 1,
        kind,
        name: name.to_string(),
        directive: directive.map(|d| String::from_utf8_lossy(d).into_owned()),
        message: message.to_string(),
        text: crate::excerpt::around_bytes(&text[start..end], at - start),
    }
}

/// Every rule hit in one file, in file order.
pub fn scan(text: &[u8], path: &str, rules: &Rules) -> Vec<Hit> {
    let mut hits = Vec::new();
    let lines = Lines::new(text);
    // A token is spelt as its bytes unless a line splice runs through it, so in a file without
    // splices a directive can name a retired macro only where its bytes occur: else no lex.
    let has = |needle: &[u8]| memchr::memmem::find(text, needle).is_some();
    let lex_needed = !rules.retired.is_empty()
        && (has(b"\\\n")
            || has(b"\\\r\n")
            || rules
                .retired
                .iter()
                .any(|r| r.macros.iter().any(|m| has(m.as_bytes()))));
    if lex_needed {
        // Directives as g++ reads them (`#if\⏎def X` is `#ifdef X`, `%:if` is `#if`); comments
        // and literals on a directive line name nothing.
        let lx = cpp_lex::lex(text);
        let t = &lx.tokens;
        let mut k = 0;
        while k < t.len() {
            if t[k].kind != Kind::Hash {
                k += 1;
                continue;
            }
            let mut e = k + 1;
            while e < t.len() && t[e].directive && t[e].kind != Kind::Hash {
                e += 1;
            }
            directive_hits(text, &lines, &t[k + 1..e], path, rules, &mut hits);
            k = e;
        }
    }
    let mut with_comments_masked = None;
    for rule in &rules.banned {
        let hay: &[u8] = if rule.comments {
            text
        } else {
            with_comments_masked.get_or_insert_with(|| cpp::mask_comments(text))
        };
        for id in &rule.identifiers {
            for at in cpp::word_occurrences(hay, id.as_bytes()) {
                hits.push(hit(
                    text,
                    &lines,
                    path,
                    at,
                    HitKind::Banned,
                    id,
                    None,
                    &rule.message,
                ));
            }
        }
    }
    hits.sort();
    hits.dedup();
    hits
}

fn directive_hits(
    text: &[u8],
    lines: &Lines,
    toks: &[Token],
    path: &str,
    rules: &Rules,
    hits: &mut Vec<Hit>,
) {
    let Some(kw) = toks.first().filter(|t| t.kind == Kind::Ident) else {
        return;
    };
    let kw = spelling(text, kw);
    let operands = &toks[1..];
    let is =
        |t: &Token, name: &str| t.kind == Kind::Ident && *spelling(text, t) == *name.as_bytes();
    if CONDITIONALS.contains(&&*kw) {
        for rule in &rules.retired {
            for name in &rule.macros {
                for t in operands.iter().filter(|t| is(t, name)) {
                    hits.push(hit(
                        text,
                        lines,
                        path,
                        t.start as usize,
                        HitKind::Conditional,
                        name,
                        Some(&kw),
                        &rule.message,
                    ));
                }
            }
        }
    } else if &*kw == b"define" {
        let Some(first) = operands.first() else {
            return;
        };
        for rule in &rules.retired {
            for name in rule.macros.iter().filter(|n| is(first, n)) {
                let msg = format!(
                    "{name} is retired and must not be #defined again: {}",
                    rule.message
                );
                let at = first.start as usize;
                hits.push(hit(
                    text,
                    lines,
                    path,
                    at,
                    HitKind::Define,
                    name,
                    Some(&kw),
                    &msg,
                ));
            }
        }
    }
}

/// Every file under `root` that `wanted` accepts (workspace-relative, forward slashes, sorted),
/// skipping hidden entries: the file list when git lists none. The one workspace walk
/// (diag::walk): links followed inside the workspace, each file once. Each file's name for
/// reports (lossy when not UTF-8) comes with its path as found, which is what is read; the
/// links out of the workspace come second, with why (a file over the size limit is listed:
/// reading it is the error).
pub fn walk_files(
    root: &std::path::Path,
    wanted: &dyn Fn(&str) -> bool,
) -> Result<WalkedFiles, diag::walk::Error> {
    let listing = diag::walk::walk(root, std::path::Path::new(""), &|rel, is_dir| {
        let hidden = rel
            .file_name()
            .is_some_and(|n| n.as_encoded_bytes().starts_with(b"."));
        !hidden && (is_dir || wanted(&diag::walk::display(rel)))
    })?;
    let mut out: Vec<(String, std::path::PathBuf)> = listing
        .files
        .iter()
        .map(|f| (f.display(), f.rel.clone()))
        .collect();
    let mut skipped = Vec::new();
    for s in listing.findings() {
        match s {
            // listed: reading it is the error naming the limit, as for a tracked file
            diag::walk::Skip::TooLarge { rel, .. } => {
                out.push((diag::walk::display(rel), rel.clone()))
            }
            _ => skipped.push((diag::walk::display(s.rel()), s.reason())),
        }
    }
    out.sort();
    Ok((out, skipped))
}

/// What [`walk_files`] lists: the files (name for reports, path as found) and the skipped
/// entries (name, why).
pub type WalkedFiles = (Vec<(String, std::path::PathBuf)>, Vec<(String, String)>);

/// Upstream's three rules (spec §5), the MobileGL profile's default.
pub fn mobilegl_rules() -> Rules {
    Rules {
        retired: vec![
            RetiredRule {
                macros: vec!["MOBILEGL_PIPE_PUSH".into(), "MOBILEGL_PIPE_LEGACY_MEMOS".into()],
                message: "a preprocessor conditional names a macro P13 W3b retired (MOBILEGL_PIPE_PUSH / MOBILEGL_PIPE_LEGACY_MEMOS)".into(),
            },
            RetiredRule {
                macros: vec!["MOBILEGL_BUILD_RECORD_ARM".into()],
                message: "a preprocessor conditional names MOBILEGL_BUILD_RECORD_ARM, folded away at P13 W5 S8 - the record arm is in every library; a transport-only block takes MOBILEGL_BUILD_DISAGGREGATED".into(),
            },
        ],
        banned: vec![BannedRule {
            identifiers: vec!["MGB_CTX".into(), "MGB_CTX_LIVE".into(), "MGB_CTX_IDENTITY".into()],
            comments: true,
            message: "MGB_CTX is back; backends read MG_Pipe::gPipeInputs directly since P13 W3b".into(),
        }],
    }
}

/// The file extensions scanned by default (upstream's six plus the other C/C++ spellings).
pub const DEFAULT_EXTENSIONS: &[&str] = &[
    "c", "cc", "cpp", "cxx", "h", "hh", "hpp", "hxx", "inc", "inl", "ipp", "def", "m", "mm",
];

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(usize, HitKind, String)> {
        scan(src.as_bytes(), "a.cpp", &mobilegl_rules())
            .into_iter()
            .map(|h| (h.line, h.kind, h.name))
            .collect()
    }

    #[test]
    fn upstream_planted_lines_are_caught() {
        // Upstream's six planted lines.
        for src in [
            "#if MOBILEGL_PIPE_PUSH\n",
            "  #ifdef MOBILEGL_PIPE_LEGACY_MEMOS\n",
            "#elif defined(MOBILEGL_PIPE_PUSH)\n",
            "auto c = MGB_CTX;\n",
            "MGB_CTX_LIVE(x);\n",
            "#ifndef MOBILEGL_BUILD_RECORD_ARM\n",
        ] {
            assert_eq!(kinds(src).len(), 1, "{src}");
        }
    }

    #[test]
    fn upstream_clean_lines_stay_clean() {
        for src in [
            "const char* v = getenv(\"MOBILEGL_PIPE_PUSH\");\n",
            "// MOBILEGL_PIPE_PUSH was retired\n",
            "auto& in = MG_Pipe::gPipeInputs;\n",
            "// MOBILEGL_BUILD_RECORD_ARM folded away\n",
            "#if MOBILEGL_PIPE_PUSHED\n",
        ] {
            assert!(kinds(src).is_empty(), "{src}");
        }
    }

    #[test]
    fn blind_spots_upstream_missed() {
        assert_eq!(
            kinds("#if A && \\\n    MOBILEGL_PIPE_PUSH\n"),
            vec![(2, HitKind::Conditional, "MOBILEGL_PIPE_PUSH".into())]
        );
        assert_eq!(kinds("#elifdef MOBILEGL_PIPE_PUSH\n").len(), 1);
        assert_eq!(kinds("#elifndef MOBILEGL_BUILD_RECORD_ARM\n").len(), 1);
        assert_eq!(
            kinds("# define MOBILEGL_PIPE_PUSH 1\n"),
            vec![(1, HitKind::Define, "MOBILEGL_PIPE_PUSH".into())]
        );
        assert!(kinds("#if X /* MOBILEGL_PIPE_PUSH */\n").is_empty());
        assert!(kinds("#define OTHER MOBILEGL_PIPE_PUSH\n").is_empty());
    }

    #[test]
    fn a_name_spliced_apart_is_still_read_and_a_file_without_it_is_not_lexed() {
        // The bytes never spell the name: only the lex (taken because of the splice) sees it.
        assert_eq!(
            kinds("#ifdef MOBILEGL_PIPE_\\\r\nPUSH\n#endif\n"),
            vec![(1, HitKind::Conditional, "MOBILEGL_PIPE_PUSH".into())]
        );
        assert_eq!(kinds("#if\\\nndef MOBILEGL_BUILD_RECORD_ARM\n").len(), 1);
        assert!(kinds("#include \"a.h\"\nconst char* s = \"\\n\";\n").is_empty());
    }

    #[test]
    fn comment_choice_per_rule() {
        let mut rules = mobilegl_rules();
        let src = b"// MGB_CTX mention\nint x = MGB_CTX;\n";
        assert_eq!(scan(src, "a.cpp", &rules).len(), 2);
        rules.banned[0].comments = false;
        let hits = scan(src, "a.cpp", &rules);
        assert_eq!(hits.len(), 1);
        assert_eq!((hits[0].line, hits[0].column), (2, 9));
        assert_eq!(hits[0].annotation(), "::error::a.cpp:2: MGB_CTX is back; backends read MG_Pipe::gPipeInputs directly since P13 W3b: int x = MGB_CTX;");
    }
}
