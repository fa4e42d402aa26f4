//! The `layout` analysis as one entry point: config in, [`Outcome`] out, used by the gate, its
//! self-test and its live controls alike.

use std::collections::BTreeSet;
use std::path::Path;

use diag::{Diag, Outcome};

use super::cfg::{LayoutConfig, MacroConfig, StructConfig};
use crate::gitread::{CommitRef, GitError, GitWorkspace};
use crate::source::Source;

diag::codes! {
    /// Finding codes of the `layout` gate (docs/codes.md).
    pub enum Code: "LAY" {
        Lay001 = "LAY001": "a data member of a configured struct has no static_assert(offsetof(...)) assertion",
        Lay002 = "LAY002": "an offsetof assertion names a member the struct does not have",
        Lay003 = "LAY003": "a configured struct is not defined in its file (the rule would pass vacuously)",
        Lay004 = "LAY004": "a configured macro's value is above its max",
        Lay005 = "LAY005": "a configured macro's value is above its value at the base ref (the ratchet went up)",
        Lay006 = "LAY006": "a configured macro is not defined in its file, or its value is not an integer literal",
        Lay007 = "LAY007": "a configured file could not be read",
        Lay008 = "LAY008": "the base ref cannot be read (no such revision, or git failed)",
        Lay009 = "LAY009": "the base-ref ratchet was not checked: the workspace is not in a git repository with commits",
        Lay010 = "LAY010": "a macro is not defined at the base ref: its ratchet starts at the current value",
        Lay011 = "LAY011": "a configured entry checks nothing (a struct without data members, a macro without max or base)",
    }
}

/// A file as the base ref holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AtBase {
    Bytes(Vec<u8>),
    /// The base ref does not hold the file.
    Missing,
    /// There is no history to read (not a git repository, no commits): said, not failed.
    Unavailable(String),
    /// The ref does not resolve, or git failed: an error.
    Error(String),
}

/// Where the ratchet's old values come from: a git ref ([`GitBase`]) or, in the controls, text.
pub trait Base {
    /// The ref as reports name it (`HEAD (1a2b3c4d5e)`).
    fn label(&self) -> String;
    fn read(&self, rel: &str) -> AtBase;
}

/// The workspace's files at a git revision, read in process through git2.
pub struct GitBase {
    rev: String,
    state: Result<(GitWorkspace, CommitRef), AtBase>,
}

impl GitBase {
    pub fn open(root: &Path, rev: &str) -> Self {
        let state = GitWorkspace::discover(root)
            .map_err(|e| AtBase::Unavailable(e.to_string()))
            .and_then(|ws| match ws.resolve(rev) {
                Ok(c) => Ok((ws, c)),
                Err(e @ GitError::NoCommits { .. }) => Err(AtBase::Unavailable(e.to_string())),
                Err(e) => {
                    let hint = if ws.is_shallow() {
                        " (this is a shallow clone: fetch more history)"
                    } else {
                        ""
                    };
                    Err(AtBase::Error(format!("{e}{hint}")))
                }
            });
        GitBase {
            rev: rev.to_string(),
            state,
        }
    }
}

impl Base for GitBase {
    fn label(&self) -> String {
        match &self.state {
            Ok((_, c)) => format!("{} ({})", self.rev, c.short()),
            Err(_) => self.rev.clone(),
        }
    }
    fn read(&self, rel: &str) -> AtBase {
        match &self.state {
            Ok((ws, c)) => match ws.read_at(c, rel) {
                Ok(b) => AtBase::Bytes(b),
                Err(GitError::MissingFile { .. }) => AtBase::Missing,
                Err(e) => AtBase::Error(e.to_string()),
            },
            Err(e) => e.clone(),
        }
    }
}

/// Checks every configured struct and macro of the workspace at `root`; the ratchet reads
/// `[layout] base` through git.
pub fn check(root: &Path, cfg: &LayoutConfig) -> Outcome<Code> {
    let src = crate::source::Disk {
        root: root.to_path_buf(),
    };
    let base = cfg.base.as_ref().map(|b| GitBase::open(root, b.get_ref()));
    check_source(&src, base.as_ref().map(|b| b as &dyn Base), cfg)
}

#[derive(Default)]
struct Tally {
    members: usize,
    unasserted: usize,
    over_max: usize,
    raised: usize,
}

/// [`check`] over any source (the disk, or the live controls' overlay) and any base.
pub fn check_source(
    src: &dyn Source,
    base: Option<&dyn Base>,
    cfg: &LayoutConfig,
) -> Outcome<Code> {
    let mut diags = Vec::new();
    let mut units = Vec::new();
    let mut tally = Tally::default();
    for s in &cfg.structs {
        units.push(format!("struct {}", s.name.get_ref()));
        check_struct(src, s, &mut diags, &mut tally);
    }
    let base_at = cfg.base.as_ref().map(|b| b.span().start);
    let mut said = BTreeSet::new();
    for m in &cfg.macros {
        units.push(format!("macro {}", m.name.get_ref()));
        let base = base
            .filter(|_| m.ratchet)
            .map(|b| (b, base_at.unwrap_or(0)));
        check_macro(src, base, m, &mut diags, &mut tally, &mut said);
    }
    let mut inputs = vec![src.root().display().to_string()];
    if let Some(b) = base {
        inputs.push(format!("base {}", b.label()));
    }
    Outcome {
        headline: format!(
            "{} structs / {} members / {} without offsetof; {} macros / {} over max / {} raised",
            cfg.structs.len(),
            tally.members,
            tally.unasserted,
            cfg.macros.len(),
            tally.over_max,
            tally.raised
        ),
        diags,
        units,
        inputs,
        ..Outcome::default()
    }
    .figure("structs", cfg.structs.len())
    .figure("members", tally.members)
    .figure("unasserted", tally.unasserted)
    .figure("macros", cfg.macros.len())
    .figure("over_max", tally.over_max)
    .figure("raised", tally.raised)
}

fn read(src: &dyn Source, rel: &str, unit: &str, at: usize) -> Result<Vec<u8>, Box<Diag<Code>>> {
    src.read(rel).map_err(|e| {
        Box::new(
            Diag::error(Code::Lay007, format!("{rel}: cannot read: {e}"))
                .file(rel)
                .in_config(at)
                .in_unit(unit),
        )
    })
}

fn check_struct(
    src: &dyn Source,
    s: &StructConfig,
    diags: &mut Vec<Diag<Code>>,
    tally: &mut Tally,
) {
    let name = s.name.get_ref();
    let at = s.name.span().start;
    let unit = format!("struct {name}");
    let text = match read(src, &s.file, &unit, at) {
        Ok(t) => t,
        Err(d) => return diags.push(*d),
    };
    let lx = super::lex(&text);
    let defs = super::structs(&lx, name);
    let Some(first) = defs.first() else {
        diags.push(
            Diag::error(
                Code::Lay003,
                format!(
                    "struct `{name}` is not defined in {} (misspelt, or moved?): nothing was checked",
                    s.file
                ),
            )
            .file(&s.file)
            .in_config(at)
            .in_unit(&unit),
        );
        return;
    };
    let mut members: Vec<&super::Member> = Vec::new();
    for m in defs.iter().flat_map(|d| &d.members) {
        if !members.iter().any(|k| k.name == m.name) {
            members.push(m);
        }
    }
    if members.is_empty() {
        diags.push(
            Diag::error(
                Code::Lay011,
                format!("struct `{name}` has no data members, so no assertion is checked"),
            )
            .at(&s.file, first.line, None)
            .in_unit(&unit),
        );
        return;
    }
    let files = s.assert_files();
    let mut asserts = Vec::new();
    for f in &files {
        let lexed;
        let lx = if *f == s.file {
            &lx
        } else {
            match read(src, f, &unit, at) {
                Ok(t) => {
                    lexed = super::lex(&t);
                    &lexed
                }
                Err(d) => {
                    diags.push(*d);
                    continue;
                }
            }
        };
        asserts.extend(
            super::offset_asserts(lx)
                .into_iter()
                .filter(|a| a.strukt == *name)
                .map(|a| (f.clone(), a)),
        );
    }
    tally.members += members.len();
    for m in &members {
        if asserts.iter().any(|(_, a)| a.member == m.name) {
            continue;
        }
        tally.unasserted += 1;
        diags.push(
            Diag::error(
                Code::Lay001,
                format!(
                    "`{name}::{m}` has no `static_assert(offsetof({name}, {m}) == …)` in {}",
                    files.join(", "),
                    m = m.name
                ),
            )
            .at(&s.file, m.line, Some(m.column))
            .in_unit(&unit)
            .with_detail(serde_json::json!({ "struct": name, "member": m.name })),
        );
    }
    for (f, a) in &asserts {
        if members.iter().any(|m| m.name == a.member) {
            continue;
        }
        diags.push(
            Diag::error(
                Code::Lay002,
                format!(
                    "the assertion names `{name}::{}`, which is not a data member of `{name}` ({}:{})",
                    a.member, s.file, first.line
                ),
            )
            .at(f, a.line, Some(a.column))
            .in_unit(&unit)
            .with_detail(serde_json::json!({ "struct": name, "member": a.member })),
        );
    }
}

fn check_macro(
    src: &dyn Source,
    base: Option<(&dyn Base, usize)>,
    m: &MacroConfig,
    diags: &mut Vec<Diag<Code>>,
    tally: &mut Tally,
    said: &mut BTreeSet<String>,
) {
    let name = m.name.get_ref();
    let at = m.name.span().start;
    let unit = format!("macro {name}");
    let why = m
        .message
        .as_ref()
        .map(|w| format!(" ({w})"))
        .unwrap_or_default();
    if m.max.is_none() && base.is_none() {
        diags.push(
            Diag::error(
                Code::Lay011,
                format!("macro `{name}` has no `max` and no `[layout] base` ratchet, so it checks nothing"),
            )
            .in_config(at)
            .in_unit(&unit),
        );
        return;
    }
    let text = match read(src, &m.file, &unit, at) {
        Ok(t) => t,
        Err(d) => return diags.push(*d),
    };
    let defs: Vec<super::Define> = super::lex(&text)
        .defines
        .into_iter()
        .filter(|d| d.name == *name)
        .collect();
    if defs.is_empty() {
        diags.push(
            Diag::error(
                Code::Lay006,
                format!(
                    "macro `{name}` is not #defined in {}: nothing was checked",
                    m.file
                ),
            )
            .file(&m.file)
            .in_config(at)
            .in_unit(&unit),
        );
        return;
    }
    let mut current: Option<(u64, u32)> = None;
    for d in &defs {
        let Some(v) = d.value else {
            diags.push(
                Diag::error(
                    Code::Lay006,
                    format!(
                        "`#define {name} {}` is not an integer literal, so it cannot be compared",
                        d.body
                    ),
                )
                .at(&m.file, d.line, None)
                .in_unit(&unit),
            );
            continue;
        };
        if let Some(max) = m.max.filter(|max| v > *max) {
            tally.over_max += 1;
            diags.push(
                Diag::error(
                    Code::Lay004,
                    format!("`{name}` is {v}, above its max {max}{why}"),
                )
                .at(&m.file, d.line, None)
                .in_unit(&unit)
                .with_detail(serde_json::json!({ "macro": name, "value": v, "max": max })),
            );
        }
        if current.is_none_or(|(c, _)| v > c) {
            current = Some((v, d.line));
        }
    }
    let (Some((base, base_at)), Some((v, line))) = (base, current) else {
        return;
    };
    let label = base.label();
    let old = match base.read(&m.file) {
        AtBase::Bytes(b) => super::lex(&b)
            .defines
            .into_iter()
            .filter(|d| d.name == *name)
            .filter_map(|d| d.value.map(|v| (v, d.line)))
            .max(),
        AtBase::Missing => None,
        AtBase::Unavailable(e) => {
            if said.insert(e.clone()) {
                diags.push(
                    Diag::warning(
                        Code::Lay009,
                        format!("the ratchet against base {label} was not checked: {e}"),
                    )
                    .in_config(base_at)
                    .in_unit(&unit),
                );
            }
            return;
        }
        AtBase::Error(e) => {
            if said.insert(e.clone()) {
                diags.push(
                    Diag::error(Code::Lay008, format!("base {label}: {e}"))
                        .in_config(base_at)
                        .in_unit(&unit),
                );
            }
            return;
        }
    };
    match old {
        None => diags.push(
            Diag::note(
                Code::Lay010,
                format!(
                    "`{name}` is not defined in {} at base {label}: its ratchet starts at {v}",
                    m.file
                ),
            )
            .at(&m.file, line, None)
            .in_unit(&unit),
        ),
        Some((was, was_line)) if v > was => {
            tally.raised += 1;
            diags.push(
                Diag::error(
                    Code::Lay005,
                    format!(
                        "`{name}` is {v}, above its value {was} at base {label} ({}:{was_line} there): it only goes down{why}",
                        m.file
                    ),
                )
                .at(&m.file, line, None)
                .in_unit(&unit)
                .with_detail(serde_json::json!({ "macro": name, "value": v, "base": was })),
            );
        }
        Some(_) => {}
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use super::*;
    use crate::source::{Disk, Overlay};

    struct Fixed(AtBase);
    impl Base for Fixed {
        fn label(&self) -> String {
            "B".into()
        }
        fn read(&self, _rel: &str) -> AtBase {
            self.0.clone()
        }
    }

    fn run(toml: &str, files: &[(&str, &str)], base: Option<AtBase>) -> Vec<(Code, String)> {
        let cfg: LayoutConfig = toml::from_str(toml).unwrap();
        let disk = Disk {
            root: PathBuf::from("/nonexistent-layout-test"),
        };
        let src = Overlay {
            base: &disk,
            files: files
                .iter()
                .map(|(p, t)| (p.to_string(), t.as_bytes().to_vec()))
                .collect::<BTreeMap<_, _>>(),
        };
        let b = base.map(Fixed);
        check_source(&src, b.as_ref().map(|b| b as &dyn Base), &cfg)
            .diags
            .into_iter()
            .map(|d| (d.code, d.message))
            .collect()
    }

    const MACRO: &str = "[[macro]]\nname = \"SIZE\"\nfile = \"a.h\"\nmax = 8\n";

    #[test]
    fn macro_problems_are_findings() {
        let codes = |toml: &str, text: &str| -> Vec<Code> {
            run(toml, &[("a.h", text)], None)
                .into_iter()
                .map(|d| d.0)
                .collect()
        };
        assert_eq!(codes(MACRO, "#define SIZE 8\n"), []);
        assert_eq!(codes(MACRO, "#define SIZE 9\n"), [Code::Lay004]);
        assert_eq!(codes(MACRO, "#define SIZE (4 + 4)\n"), [Code::Lay006]);
        assert_eq!(codes(MACRO, "// #define SIZE 8\n"), [Code::Lay006]);
        assert_eq!(
            codes(
                MACRO,
                "#if A\n#define SIZE 8\n#else\n#define SIZE 12\n#endif\n"
            ),
            [Code::Lay004]
        );
        let no_bound = "[[macro]]\nname = \"SIZE\"\nfile = \"a.h\"\n";
        assert_eq!(codes(no_bound, "#define SIZE 8\n"), [Code::Lay011]);
        let missing = run(MACRO, &[], None);
        assert_eq!(missing[0].0, Code::Lay007, "{missing:?}");
    }

    #[test]
    fn the_base_ratchet_says_what_it_could_not_check() {
        let toml = format!("base = \"B\"\n{MACRO}");
        let cur = [("a.h", "#define SIZE 8\n")];
        let old = |t: &str| Some(AtBase::Bytes(t.as_bytes().to_vec()));
        let codes = |base: Option<AtBase>| -> Vec<Code> {
            run(&toml, &cur, base).into_iter().map(|d| d.0).collect()
        };
        assert_eq!(codes(old("#define SIZE 8\n")), []);
        assert_eq!(codes(old("#define SIZE 16\n")), []);
        assert_eq!(codes(old("#define SIZE 4\n")), [Code::Lay005]);
        assert_eq!(codes(old("int x;\n")), [Code::Lay010]);
        assert_eq!(codes(Some(AtBase::Missing)), [Code::Lay010]);
        assert_eq!(
            codes(Some(AtBase::Unavailable("no repo".into()))),
            [Code::Lay009]
        );
        assert_eq!(codes(Some(AtBase::Error("no rev".into()))), [Code::Lay008]);
        let raised = run(&toml, &cur, old("#define SIZE 4\n"));
        assert_eq!(
            raised[0].1,
            "`SIZE` is 8, above its value 4 at base B (a.h:1 there): it only goes down"
        );
    }

    #[test]
    fn struct_problems_are_findings() {
        let toml = "[[struct]]\nname = \"S\"\nfile = \"a.h\"\nasserts = [\"a.h\", \"b.cpp\"]\n";
        let codes = |files: &[(&str, &str)]| -> Vec<Code> {
            run(toml, files, None).into_iter().map(|d| d.0).collect()
        };
        let s = "struct S { int a; int b; };\nstatic_assert(offsetof(S, a) == 0);\n";
        assert_eq!(
            codes(&[
                ("a.h", s),
                ("b.cpp", "static_assert(offsetof(S, b) == 4);\n")
            ]),
            []
        );
        assert_eq!(codes(&[("a.h", s), ("b.cpp", "\n")]), [Code::Lay001]);
        assert_eq!(codes(&[("a.h", s)]), [Code::Lay007, Code::Lay001]);
        assert_eq!(
            codes(&[("a.h", "struct S { void f(); };\n"), ("b.cpp", "")]),
            [Code::Lay011]
        );
        assert_eq!(
            codes(&[("a.h", "struct T { int a; };\n"), ("b.cpp", "")]),
            [Code::Lay003]
        );
    }
}
