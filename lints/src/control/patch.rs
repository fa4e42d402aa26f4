//! A small unified-diff applier: exact context, no fuzz. A hunk whose old lines are not in the
//! file (at its stated line or, shifted, anywhere after the previous hunk) does not apply: the
//! control that carries it has rotted.

use std::collections::BTreeMap;

/// One file of a unified diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePatch {
    /// Workspace-relative target (`b/` or `a/` stripped); for a new file, its new path.
    pub path: String,
    /// The diff creates the file (`--- /dev/null`).
    pub create: bool,
    pub hunks: Vec<Hunk>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    /// 1-based first old line as the header states it.
    pub old_start: usize,
    /// The diff's line of the `@@` header (for messages).
    pub line: usize,
    pub old: Vec<String>,
    pub new: Vec<String>,
}

/// Why a diff cannot be read or applied; `line` is a line of the diff.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    #[error("line {line}: {msg}")]
    Malformed { line: usize, msg: String },
    #[error("holds no file to patch (not a unified diff?)")]
    Empty,
    #[error("{path}: the file is not in the workspace")]
    Missing { path: String },
    #[error("{path}: the file already exists (the diff creates it)")]
    Exists { path: String },
    #[error("{path}: hunk at line {line} of the diff (old line {old_start}) no longer applies: its old line `{first}` is not in the file as the hunk has it")]
    NoContext {
        path: String,
        line: usize,
        old_start: usize,
        first: String,
    },
    #[error("{path}: not UTF-8 text")]
    NotText { path: String },
}

fn target(raw: &str) -> String {
    // `+++ b/path\tdate` → `path`
    let p = raw.split('\t').next().unwrap_or("").trim_end();
    p.strip_prefix("a/")
        .or_else(|| p.strip_prefix("b/"))
        .unwrap_or(p)
        .to_string()
}

fn count(spec: &str) -> Option<(usize, usize)> {
    let mut it = spec.splitn(2, ',');
    let start = it.next()?.parse().ok()?;
    let len = match it.next() {
        Some(n) => n.parse().ok()?,
        None => 1,
    };
    Some((start, len))
}

/// Parses a unified diff (git's or diff -u's).
pub fn parse(text: &str) -> Result<Vec<FilePatch>, PatchError> {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out: Vec<FilePatch> = Vec::new();
    let mut i = 0;
    let bad = |line: usize, msg: &str| PatchError::Malformed {
        line,
        msg: msg.to_string(),
    };
    while i < lines.len() {
        let l = lines[i];
        if let Some(old) = l.strip_prefix("--- ") {
            let Some(new) = lines.get(i + 1).and_then(|n| n.strip_prefix("+++ ")) else {
                return Err(bad(i + 1, "`---` without a `+++` line after it"));
            };
            let create = old.split('\t').next().map(str::trim_end) == Some("/dev/null");
            let path = target(new);
            if path == "/dev/null" {
                return Err(bad(i + 2, "deleting a file is not supported"));
            }
            out.push(FilePatch {
                path,
                create,
                hunks: Vec::new(),
            });
            i += 2;
            continue;
        }
        if let Some(h) = l.strip_prefix("@@ ") {
            let Some(file) = out.last_mut() else {
                return Err(bad(i + 1, "a hunk before any `---`/`+++` header"));
            };
            let mut parts = h.split_whitespace();
            let (Some(o), Some(n)) = (parts.next(), parts.next()) else {
                return Err(bad(i + 1, "a malformed `@@` header"));
            };
            let (Some((old_start, old_len)), Some((_, new_len))) = (
                o.strip_prefix('-').and_then(count),
                n.strip_prefix('+').and_then(count),
            ) else {
                return Err(bad(i + 1, "a malformed `@@` header"));
            };
            let header = i + 1;
            let mut hunk = Hunk {
                old_start,
                line: header,
                old: Vec::new(),
                new: Vec::new(),
            };
            i += 1;
            while hunk.old.len() < old_len || hunk.new.len() < new_len {
                let Some(&b) = lines.get(i) else {
                    return Err(bad(header, "the hunk is shorter than its header says"));
                };
                match b.as_bytes().first() {
                    Some(b' ') => {
                        hunk.old.push(b[1..].to_string());
                        hunk.new.push(b[1..].to_string());
                    }
                    // an empty line inside a hunk is an empty context line (some editors strip
                    // the space)
                    None => {
                        hunk.old.push(String::new());
                        hunk.new.push(String::new());
                    }
                    Some(b'-') => hunk.old.push(b[1..].to_string()),
                    Some(b'+') => hunk.new.push(b[1..].to_string()),
                    Some(b'\\') => {}
                    _ => {
                        return Err(bad(
                            i + 1,
                            "a hunk line starts with neither ' ', '-' nor '+'",
                        ))
                    }
                }
                i += 1;
            }
            if hunk.old.len() != old_len || hunk.new.len() != new_len {
                return Err(bad(header, "the hunk's lines do not add up to its header"));
            }
            file.hunks.push(hunk);
            continue;
        }
        i += 1;
    }
    if out.is_empty() {
        return Err(PatchError::Empty);
    }
    Ok(out)
}

/// The new contents of every file the diff touches, given `read(path)` (None: no such file).
pub fn apply(
    files: &[FilePatch],
    read: &dyn Fn(&str) -> Option<Vec<u8>>,
) -> Result<BTreeMap<String, Vec<u8>>, PatchError> {
    let mut out = BTreeMap::new();
    for f in files {
        let old = match (read(&f.path), f.create) {
            (Some(_), true) => {
                return Err(PatchError::Exists {
                    path: f.path.clone(),
                })
            }
            (None, true) => String::new(),
            (None, false) => {
                return Err(PatchError::Missing {
                    path: f.path.clone(),
                })
            }
            (Some(b), false) => String::from_utf8(b).map_err(|_| PatchError::NotText {
                path: f.path.clone(),
            })?,
        };
        let trailing = old.ends_with('\n') || old.is_empty();
        let mut lines: Vec<String> = if old.is_empty() {
            Vec::new()
        } else {
            old.trim_end_matches('\n')
                .split('\n')
                .map(str::to_string)
                .collect()
        };
        // hunks apply in order; `delta` tracks how far earlier hunks moved the lines
        let mut floor = 0usize;
        let mut delta: isize = 0;
        for h in &f.hunks {
            let want = (h.old_start.saturating_sub(1) as isize + delta).max(0) as usize;
            let fits = |at: usize| {
                at + h.old.len() <= lines.len() && lines[at..at + h.old.len()] == h.old[..]
            };
            let at = if h.old.is_empty() {
                Some(want.min(lines.len()))
            } else {
                // the stated line first, then the nearest shifted position after the last hunk
                (0..=lines.len())
                    .flat_map(|d| [want.checked_add(d), want.checked_sub(d)])
                    .flatten()
                    .filter(|&p| p >= floor)
                    .take(2 * (lines.len() + 1))
                    .find(|&p| fits(p))
            };
            let Some(at) = at else {
                return Err(PatchError::NoContext {
                    path: f.path.clone(),
                    line: h.line,
                    old_start: h.old_start,
                    // the first old line the file lacks says most; else the hunk's first line
                    first: h
                        .old
                        .iter()
                        .find(|l| !lines.contains(l))
                        .or(h.old.first())
                        .cloned()
                        .unwrap_or_default(),
                });
            };
            lines.splice(at..at + h.old.len(), h.new.iter().cloned());
            floor = at + h.new.len();
            delta += h.new.len() as isize - h.old.len() as isize;
        }
        let mut text = lines.join("\n");
        if trailing && !lines.is_empty() {
            text.push('\n');
        }
        out.insert(f.path.clone(), text.into_bytes());
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const FILE: &str = "a\nb\nc\nd\ne\n";

    fn run(diff: &str, text: &str) -> Result<String, PatchError> {
        let files = parse(diff)?;
        let owned = text.to_string();
        let out = apply(&files, &|p| {
            (p == "x.h").then(|| owned.clone().into_bytes())
        })?;
        Ok(String::from_utf8(out["x.h"].clone()).unwrap())
    }

    #[test]
    fn applies_at_its_line_and_shifted() {
        let d = "--- a/x.h\n+++ b/x.h\n@@ -2,3 +2,3 @@\n b\n-c\n+C\n d\n";
        assert_eq!(run(d, FILE).unwrap(), "a\nB0\n".replace("B0", "b\nC\nd\ne"));
        // two lines added above: the context is found two lines further down
        assert_eq!(
            run(d, &format!("y\nz\n{FILE}")).unwrap(),
            "y\nz\na\nb\nC\nd\ne\n"
        );
    }

    #[test]
    fn missing_context_is_rot_and_names_the_hunk() {
        let d = "--- a/x.h\n+++ b/x.h\n@@ -2,3 +2,3 @@\n b\n-c\n+C\n d\n";
        let e = run(d, "a\nb\nchanged\nd\n").unwrap_err();
        assert!(
            matches!(
                e,
                PatchError::NoContext {
                    line: 3,
                    old_start: 2,
                    ..
                }
            ),
            "{e}"
        );
        assert!(matches!(
            apply(&parse(d).unwrap(), &|_| None),
            Err(PatchError::Missing { .. })
        ));
    }

    #[test]
    fn malformed_diffs_are_errors_not_panics() {
        assert_eq!(parse("just text\n"), Err(PatchError::Empty));
        assert!(parse("--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n").is_err());
        assert!(parse("@@ -1 +1 @@\n-a\n+b\n").is_err());
        assert!(parse("--- a/x\n+++ b/x\n@@ nonsense @@\n").is_err());
        // a hunk that claims more old lines than the file has
        let d = "--- a/x.h\n+++ b/x.h\n@@ -9,2 +9,2 @@\n-d\n-e\n+D\n+E\n";
        assert_eq!(run(d, FILE).unwrap(), "a\nb\nc\nD\nE\n");
        let mut next = crate::xorshift(7);
        let parts = [
            "--- a/x.h\n",
            "+++ b/x.h\n",
            "@@ -1,2 +1,2 @@\n",
            " a\n",
            "-b\n",
            "+c\n",
            "\\ x\n",
            "@@ -0,0 +1 @@\n",
        ];
        for _ in 0..2000 {
            let n = (next() % 10) as usize;
            let d: String = (0..n).map(|_| parts[(next() % 8) as usize]).collect();
            let _ = run(&d, FILE);
        }
    }

    #[test]
    fn creates_new_files() {
        let d = "--- /dev/null\n+++ b/new.h\n@@ -0,0 +1,2 @@\n+one\n+two\n";
        let out = apply(&parse(d).unwrap(), &|_| None).unwrap();
        assert_eq!(out["new.h"], b"one\ntwo\n");
    }
}
