//! Untouched regions (MobileGL's G5): named function / namespace bodies that must hash the same
//! at a baseline (a git ref, or a pinned SHA-256) and at the subject (a ref or the working tree).
//!
//! parse: [`extract`] (masking + definition finding) and [`Side`] (git blobs / work-tree files);
//! model: [`RegionSpec`], [`Body`], [`Comparison`]; analysis: [`compare`], [`baseline_list`];
//! report: [`report`].

pub mod cfg;
pub mod check;
pub mod extract;
pub mod report;
pub mod selftest;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use extract::{find_definitions, sha256_hex, Definition, Dialect, RegionKind};

use crate::gitread::{CommitRef, GitError, GitWorkspace};

/// One configured region (an `[[regions.region]]` row of `mgctl.toml`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegionSpec {
    pub name: String,
    /// Workspace-relative path of the file that defines it.
    pub file: String,
    #[serde(default = "default_kind")]
    pub kind: RegionKind,
    /// Pinned baseline hash: always wins over the baseline ref (upstream ID-41).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

fn default_kind() -> RegionKind {
    RegionKind::Function
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "problem", rename_all = "kebab-case")]
pub enum Problem {
    /// Zero or several definitions of a name.
    NotExactlyOnce {
        name: String,
        kind: RegionKind,
        file: String,
        side: String,
        hits: Vec<(usize, usize)>,
    },
    /// The file cannot be read on that side.
    Unreadable {
        name: String,
        file: String,
        side: String,
        message: String,
    },
    /// A pin that is not 64 lowercase hex digits.
    BadPin { name: String, pin: String },
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::NotExactlyOnce {
                name,
                kind,
                file,
                side,
                hits,
            } => {
                write!(
                    f,
                    "{name}: expected exactly one {} definition in {file} at '{side}', found {}",
                    kind.as_str(),
                    hits.len()
                )?;
                for (line, lines) in hits {
                    write!(f, "\n  ...definition at {file}:{line}, {lines} lines")?;
                }
                if hits.len() > 1 {
                    write!(f, "\n  one arm must CALL the untouched {name}, not carry a copy of it: two copies drift")?;
                }
                Ok(())
            }
            Problem::Unreadable {
                name,
                file,
                side,
                message,
            } => write!(f, "{name}: cannot read {file} at '{side}' ({message})"),
            Problem::BadPin { name, pin } => write!(
                f,
                "{name}: pinned sha256 '{pin}' is not 64 lowercase hex digits"
            ),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Git(#[from] GitError),
    #[error("could not run: {}", summary(.0))]
    CouldNotRun(Vec<Problem>),
    #[error("no regions configured")]
    NoRegions,
    /// A side cannot give a file (each row reports it as [`Problem::Unreadable`]).
    #[error("{0}")]
    Read(std::io::Error),
    #[error("no such file at that ref")]
    NotAtRef,
}

fn summary(problems: &[Problem]) -> String {
    let mut s = problems
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n");
    if problems.len() > 1 {
        s = format!("{} problems\n{s}", problems.len());
    }
    s
}

/// Where file texts come from.
pub enum Side<'a> {
    WorkTree {
        root: PathBuf,
    },
    Commit {
        ws: &'a GitWorkspace,
        at: CommitRef,
    },
    /// The working tree read through a [`Source`](crate::source::Source) (the disk or the live
    /// controls' in-memory overlay of it).
    Source(&'a dyn crate::source::Source),
}

impl<'a> Side<'a> {
    /// The commit `rev` names.
    pub fn commit_at(ws: &'a GitWorkspace, rev: &str) -> Result<Self, GitError> {
        Ok(Side::Commit {
            at: ws.resolve(rev)?,
            ws,
        })
    }

    /// The subject side: the commit `rev` names, or the working tree under `root` when there is
    /// none or it is `WORKTREE`.
    pub fn subject_at(
        ws: &'a GitWorkspace,
        root: &Path,
        rev: Option<&str>,
    ) -> Result<Self, GitError> {
        match rev {
            Some(rev) if rev != "WORKTREE" => Self::commit_at(ws, rev),
            _ => Ok(Side::WorkTree {
                root: root.to_path_buf(),
            }),
        }
    }

    pub fn label(&self) -> String {
        match self {
            Side::WorkTree { .. } | Side::Source(_) => "working tree".to_string(),
            Side::Commit { at, .. } => at.rev.clone(),
        }
    }

    /// The commit id, when the side is a commit.
    pub fn commit(&self) -> Option<&str> {
        match self {
            Side::WorkTree { .. } | Side::Source(_) => None,
            Side::Commit { at, .. } => Some(&at.id),
        }
    }

    fn read(&self, file: &str) -> Result<Vec<u8>, Error> {
        match self {
            Side::WorkTree { root } => diag::walk::read(&root.join(file)).map_err(Error::Read),
            Side::Source(src) => src.read(file).map_err(Error::Read),
            Side::Commit { ws, at } => ws.read_at(at, file).map_err(|e| match e {
                GitError::MissingFile { .. } => Error::NotAtRef,
                other => Error::Git(other),
            }),
        }
    }
}

/// An extracted region body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Body {
    pub sha: String,
    pub def: Definition,
    pub text: String,
}

/// Extract every region on one side. Rows for which `skip(i)` is true are not extracted.
fn extract_side(
    side: &Side<'_>,
    specs: &[RegionSpec],
    dialect: Dialect,
    strict: impl Fn(usize) -> bool,
) -> (Vec<Option<Body>>, Vec<Problem>) {
    // Each file is read and masked once per side, for all its rows: (masked, bytes).
    type Read = Result<(Vec<u8>, Vec<u8>), Error>;
    let mut files: BTreeMap<&str, Read> = BTreeMap::new();
    let mut bodies = Vec::with_capacity(specs.len());
    let mut problems = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        let text = files.entry(spec.file.as_str()).or_insert_with(|| {
            let bytes = side.read(&spec.file)?;
            Ok((extract::masked(&bytes, dialect), bytes))
        });
        let body = match text {
            Err(message) => {
                if strict(i) {
                    problems.push(Problem::Unreadable {
                        name: spec.name.clone(),
                        file: spec.file.clone(),
                        side: side.label(),
                        message: message.to_string(),
                    });
                }
                None
            }
            Ok((masked, bytes)) => {
                let defs = extract::definitions_in(bytes, masked, spec.kind, &spec.name, dialect);
                if defs.len() == 1 {
                    let d = defs[0].clone();
                    let raw = &bytes[d.start..d.end];
                    Some(Body {
                        sha: sha256_hex(raw),
                        text: String::from_utf8_lossy(raw).into_owned(),
                        def: d,
                    })
                } else {
                    if strict(i) {
                        problems.push(Problem::NotExactlyOnce {
                            name: spec.name.clone(),
                            kind: spec.kind,
                            file: spec.file.clone(),
                            side: side.label(),
                            hits: defs.iter().map(|d| (d.line, d.lines())).collect(),
                        });
                    }
                    None
                }
            }
        };
        bodies.push(body);
    }
    (bodies, problems)
}

fn check_pins(specs: &[RegionSpec]) -> Vec<Problem> {
    specs
        .iter()
        .filter_map(|s| {
            let pin = s.sha256.as_ref()?;
            let ok = pin.len() == 64
                && pin
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
            (!ok).then(|| Problem::BadPin {
                name: s.name.clone(),
                pin: pin.clone(),
            })
        })
        .collect()
}

/// What the baseline of one row is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Baseline {
    /// Extracted from the baseline ref.
    Ref(Body),
    /// The pinned hash; `at_ref` is the baseline ref's own body when it defines the region.
    Pin { sha: String, at_ref: Option<Body> },
    /// No baseline: unpinned row and no baseline ref (the check gate without `base`).
    None,
}

impl Baseline {
    pub fn sha(&self) -> Option<&str> {
        match self {
            Baseline::Ref(b) => Some(&b.sha),
            Baseline::Pin { sha, .. } => Some(sha),
            Baseline::None => None,
        }
    }

    /// The baseline text, when known to be the text the hash was taken of.
    pub fn text(&self) -> Option<&str> {
        match self {
            Baseline::Ref(b) => Some(&b.text),
            Baseline::Pin {
                sha,
                at_ref: Some(b),
            } if &b.sha == sha => Some(&b.text),
            _ => None,
        }
    }

    /// The baseline ref defines a pinned region differently from the pin (a note, not a failure).
    pub fn pin_differs_from_ref(&self) -> Option<&Body> {
        match self {
            Baseline::Pin {
                sha,
                at_ref: Some(b),
            } if &b.sha != sha => Some(b),
            _ => None,
        }
    }
}

/// The baseline side for the whole list: pins always win.
pub fn baseline(
    side: Option<&Side<'_>>,
    specs: &[RegionSpec],
    dialect: Dialect,
) -> Result<Vec<Baseline>, Error> {
    if specs.is_empty() {
        return Err(Error::NoRegions);
    }
    let mut problems = check_pins(specs);
    let extracted = match side {
        Some(side) => {
            let (bodies, p) = extract_side(side, specs, dialect, |i| specs[i].sha256.is_none());
            problems.extend(p);
            bodies
        }
        None => vec![None; specs.len()],
    };
    if !problems.is_empty() {
        return Err(Error::CouldNotRun(problems));
    }
    Ok(specs
        .iter()
        .zip(extracted)
        .map(|(spec, body)| match (&spec.sha256, body) {
            (Some(pin), at_ref) => Baseline::Pin {
                sha: pin.clone(),
                at_ref,
            },
            (None, Some(b)) => Baseline::Ref(b),
            (None, None) => Baseline::None,
        })
        .collect())
}

/// The subject side: every region strictly, pinned rows included.
pub fn subject(
    side: &Side<'_>,
    specs: &[RegionSpec],
    dialect: Dialect,
) -> Result<Vec<Body>, Error> {
    if specs.is_empty() {
        return Err(Error::NoRegions);
    }
    let (bodies, problems) = extract_side(side, specs, dialect, |_| true);
    if !problems.is_empty() {
        return Err(Error::CouldNotRun(problems));
    }
    Ok(bodies.into_iter().flatten().collect())
}

#[derive(Debug, Clone)]
pub struct RowOutcome {
    pub spec: RegionSpec,
    pub base: Baseline,
    pub head: Body,
}

impl RowOutcome {
    pub fn moved(&self) -> bool {
        self.base.sha().is_some_and(|s| s != self.head.sha)
    }
    pub fn pinned(&self) -> bool {
        matches!(self.base, Baseline::Pin { .. })
    }
    pub fn verified(&self) -> bool {
        self.base.sha().is_some()
    }
    /// A moved row whose text differs from the baseline only in line endings (a CRLF checkout
    /// of an LF blob, or the reverse): said explicitly, because the diff shows nothing.
    pub fn line_endings_only(&self) -> bool {
        let lf = |t: &str| t.replace("\r\n", "\n");
        let Some(base_sha) = self.base.sha() else {
            return false;
        };
        if !self.moved() {
            return false;
        }
        match self.base.text() {
            Some(b) => b != self.head.text && lf(b) == lf(&self.head.text),
            None => {
                self.head.text.contains('\r')
                    && sha256_hex(lf(&self.head.text).as_bytes()) == base_sha
            }
        }
    }
}

#[derive(Debug, Clone)]
pub struct Comparison {
    pub base_label: String,
    pub base_commit: Option<String>,
    pub head_label: String,
    pub head_commit: Option<String>,
    /// The rows that could be compared, in configured order.
    pub rows: Vec<RowOutcome>,
    /// Rows that could not be extracted on a side they need (each names its row).
    pub problems: Vec<Problem>,
}

impl Comparison {
    /// Nothing moved, but some rows could not be checked: the comparison could not run.
    pub fn could_not_run(&self) -> bool {
        self.movers().next().is_none() && !self.problems.is_empty()
    }

    /// Moved rows in configured order: the first is the "first mover".
    pub fn movers(&self) -> impl Iterator<Item = &RowOutcome> {
        self.rows.iter().filter(|r| r.moved())
    }
    pub fn passed(&self) -> bool {
        self.movers().next().is_none() && self.problems.is_empty()
    }
}

/// Compare the subject side with the baseline (a ref, or pins only when `base` is None).
///
/// A row that cannot be extracted on a side it needs (a name defined zero or several times, an
/// unreadable file, a bad pin) is a [`Problem`] of the comparison; every other row is still
/// extracted, hashed and compared (upstream prints and checks them too).
pub fn compare(
    base: Option<&Side<'_>>,
    head: &Side<'_>,
    specs: &[RegionSpec],
    dialect: Dialect,
) -> Result<Comparison, Error> {
    if specs.is_empty() {
        return Err(Error::NoRegions);
    }
    let mut problems = check_pins(specs);
    let bad_pin: Vec<bool> = specs
        .iter()
        .map(|s| {
            problems
                .iter()
                .any(|p| matches!(p, Problem::BadPin { name, .. } if *name == s.name))
        })
        .collect();
    let base_bodies = match base {
        Some(side) => {
            let (bodies, p) = extract_side(side, specs, dialect, |i| specs[i].sha256.is_none());
            problems.extend(p);
            bodies
        }
        None => vec![None; specs.len()],
    };
    let (head_bodies, p) = extract_side(head, specs, dialect, |_| true);
    problems.extend(p);
    let mut rows = Vec::with_capacity(specs.len());
    for (i, ((spec, base_body), head_body)) in
        specs.iter().zip(base_bodies).zip(head_bodies).enumerate()
    {
        let Some(head_body) = head_body else { continue };
        let baseline = match (&spec.sha256, base_body) {
            (Some(_), _) if bad_pin[i] => continue,
            (Some(pin), at_ref) => Baseline::Pin {
                sha: pin.clone(),
                at_ref,
            },
            (None, Some(b)) => Baseline::Ref(b),
            // a base side that could not yield this row: already a problem
            (None, None) if base.is_some() => continue,
            (None, None) => Baseline::None,
        };
        rows.push(RowOutcome {
            spec: spec.clone(),
            base: baseline,
            head: head_body,
        });
    }
    Ok(Comparison {
        base_label: base.map_or_else(|| "pinned hashes".to_string(), Side::label),
        base_commit: base.and_then(|s| s.commit().map(str::to_string)),
        head_label: head.label(),
        head_commit: head.commit().map(str::to_string),
        rows,
        problems,
    })
}

/// Gives moved pinned rows without baseline text the text `side` (usually the workspace's git
/// HEAD) holds, when it hashes to the pin, so the report can show a diff.
pub fn fill_pin_texts(c: &mut Comparison, side: &Side<'_>, dialect: Dialect) {
    let wanted: Vec<RegionSpec> = c
        .rows
        .iter()
        .filter(|r| r.moved() && r.base.text().is_none())
        .map(|r| r.spec.clone())
        .collect();
    if wanted.is_empty() {
        return;
    }
    let (bodies, _) = extract_side(side, &wanted, dialect, |_| false);
    for (spec, body) in wanted.iter().zip(bodies) {
        let Some(body) = body else { continue };
        for r in c.rows.iter_mut().filter(|r| r.spec == *spec) {
            if let Baseline::Pin { sha, at_ref } = &mut r.base {
                if *sha == body.sha && at_ref.is_none() {
                    *at_ref = Some(body.clone());
                }
            }
        }
    }
}

/// `--list REF`: the baseline list at one ref (pinned rows show the pin), `(sha, name)`.
pub fn baseline_list(
    side: &Side<'_>,
    specs: &[RegionSpec],
    dialect: Dialect,
) -> Result<Vec<(String, String)>, Error> {
    let rows = baseline(Some(side), specs, dialect)?;
    Ok(specs
        .iter()
        .zip(rows)
        .map(|(s, b)| (b.sha().unwrap_or_default().to_string(), s.name.clone()))
        .collect())
}

/// Open the repository enclosing the workspace `root`.
pub fn open_repo(root: &Path) -> Result<GitWorkspace, Error> {
    Ok(GitWorkspace::discover(root)?)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::gitread::fixture::commit_files;

    /// Rows over two files, interleaved, extract what each row finds in its own file alone:
    /// each file is masked once per side and its mask serves all of its rows, never another's.
    #[test]
    fn rows_sharing_a_file_extract_what_each_finds_alone() {
        let d = tempfile::tempdir().unwrap();
        let a = "namespace NS {\nvoid Flush() {\n  // }\n}\nint Pick(int a) { return a; }\n}\n";
        let b = "/* void Flush() {} */\nvoid Flush() {\n  auto s = \"}\";\n}\nvoid Other() {}\n";
        std::fs::write(d.path().join("a.cpp"), a).unwrap();
        std::fs::write(d.path().join("b.cpp"), b).unwrap();
        let row = |file: &str, kind, name: &str| RegionSpec {
            name: name.into(),
            file: file.into(),
            kind,
            sha256: None,
            reason: None,
        };
        let specs = [
            row("a.cpp", RegionKind::Function, "Flush"),
            row("b.cpp", RegionKind::Function, "Flush"),
            row("a.cpp", RegionKind::Function, "Pick"),
            row("b.cpp", RegionKind::Function, "Other"),
            row("a.cpp", RegionKind::Namespace, "NS"),
            row("b.cpp", RegionKind::Function, "Pick"),
        ];
        let side = Side::WorkTree {
            root: d.path().to_path_buf(),
        };
        for dialect in [Dialect::Upstream, Dialect::Mgctl] {
            let (bodies, _) = extract_side(&side, &specs, dialect, |_| true);
            for (spec, body) in specs.iter().zip(&bodies) {
                let text = if spec.file == "a.cpp" { a } else { b };
                let alone = find_definitions(text.as_bytes(), spec.kind, &spec.name, dialect);
                let want = (alone.len() == 1).then(|| alone[0].clone());
                assert_eq!(
                    body.as_ref().map(|b| b.def.clone()),
                    want,
                    "{spec:?} {dialect:?}"
                );
            }
            assert!(bodies.iter().filter(|b| b.is_some()).count() >= 4);
        }
    }

    const SRC: &str = "// pool\nvoid Keep() {\n  a();\n}\nvoid Other() { b(); }\n";

    fn spec(name: &str, pin: Option<&str>) -> RegionSpec {
        RegionSpec {
            name: name.into(),
            file: "src/m.cpp".into(),
            kind: RegionKind::Function,
            sha256: pin.map(str::to_string),
            reason: None,
        }
    }

    #[test]
    fn ref_against_worktree() {
        let dir = tempfile::tempdir().unwrap();
        commit_files(dir.path(), &[("src/m.cpp", SRC)], "[Test] (regions): base").unwrap();
        let ws = GitWorkspace::discover(dir.path()).unwrap();
        let base = Side::Commit {
            at: ws.resolve("HEAD").unwrap(),
            ws: &ws,
        };
        let head = Side::WorkTree {
            root: dir.path().to_path_buf(),
        };
        let specs = vec![spec("Keep", None), spec("Other", None)];
        assert!(compare(Some(&base), &head, &specs, Dialect::Mgctl)
            .unwrap()
            .passed());
        std::fs::write(
            dir.path().join("src/m.cpp"),
            SRC.replace("b();", "b(); c();"),
        )
        .unwrap();
        let c = compare(Some(&base), &head, &specs, Dialect::Mgctl).unwrap();
        assert_eq!(
            c.movers().map(|r| r.spec.name.as_str()).collect::<Vec<_>>(),
            vec!["Other"]
        );
        let missing = Side::Commit {
            at: ws.resolve("HEAD").unwrap(),
            ws: &ws,
        };
        let mut bad = specs.clone();
        bad[0].file = "src/none.cpp".into();
        // a row that cannot be read is a problem of the comparison; the others still compare
        let c = compare(Some(&missing), &head, &bad, Dialect::Mgctl).unwrap();
        assert!(!c.passed());
        let e = Error::CouldNotRun(c.problems);
        assert!(
            e.to_string().contains("cannot read src/none.cpp at 'HEAD'"),
            "{e}"
        );
    }

    #[test]
    fn crlf_checkout_is_named() {
        let keep = "void Keep() {\n  a();\n}";
        let pin = sha256_hex(keep.as_bytes());
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/m.cpp"), SRC.replace('\n', "\r\n")).unwrap();
        let head = Side::WorkTree {
            root: dir.path().to_path_buf(),
        };
        let c = compare(None, &head, &[spec("Keep", Some(&pin))], Dialect::Mgctl).unwrap();
        let r = c.movers().next().unwrap();
        assert!(r.line_endings_only());
    }

    #[test]
    fn pins_win_and_bad_pins_are_refused() {
        let keep = "void Keep() {\n  a();\n}";
        let pin = sha256_hex(keep.as_bytes());
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/m.cpp"), SRC).unwrap();
        let head = Side::WorkTree {
            root: dir.path().to_path_buf(),
        };
        assert!(
            compare(None, &head, &[spec("Keep", Some(&pin))], Dialect::Mgctl)
                .unwrap()
                .passed()
        );
        let wrong = sha256_hex(b"x");
        assert!(
            !compare(None, &head, &[spec("Keep", Some(&wrong))], Dialect::Mgctl)
                .unwrap()
                .passed()
        );
        let c = compare(None, &head, &[spec("Keep", Some("ABC"))], Dialect::Mgctl).unwrap();
        assert!(!c.passed() && c.rows.is_empty());
        let e = Error::CouldNotRun(c.problems);
        assert!(e.to_string().contains("not 64 lowercase hex"));
    }
}
