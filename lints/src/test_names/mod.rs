//! The test-name ratchet (MobileGL's G2 and G14): two lists of registered ctest names, read from
//! a `ctest -N` (or `ctest -V` run) transcript, `ctest --show-only=json-v1` JSON, or a plain
//! list — detected automatically — then compared as sets.
//!
//! parse: [`parse`]; model: [`TestList`], [`Delta`]; analysis: [`delta`], [`group`];
//! report: [`report`].

pub mod gate;
pub mod report;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}: cannot read: {msg}", .path.display())]
    Read { path: PathBuf, msg: String },
    #[error("{}:{line}: binary data (NUL byte), not a test list", .path.display())]
    Binary { path: PathBuf, line: usize },
    #[error("{}:{line}: not valid UTF-8", .path.display())]
    NotUtf8 { path: PathBuf, line: usize },
    #[error("{}:{line}:{column}: invalid ctest JSON: {msg}", .path.display())]
    Json {
        path: PathBuf,
        line: usize,
        column: usize,
        msg: String,
    },
    #[error("{}: not ctest --show-only=json-v1 output: {msg}", .path.display())]
    JsonShape { path: PathBuf, msg: String },
    #[error("{}:{line}: transcript says 'Total Tests: {declared}' but lists {found} tests (truncated?)", .path.display())]
    CountMismatch {
        path: PathBuf,
        line: usize,
        declared: usize,
        found: usize,
    },
    #[error("{}:{line}: run lines count {declared} tests but the transcript shows {found} (an excerpt?)", .path.display())]
    RunCountMismatch {
        path: PathBuf,
        line: usize,
        declared: usize,
        found: usize,
    },
    #[error("{}:{line}: test '{name}' is listed twice", .path.display())]
    Duplicate {
        path: PathBuf,
        line: usize,
        name: String,
    },
    #[error("{}: no test names in it (empty list)", .path.display())]
    Empty { path: PathBuf },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ListFormat {
    /// `ctest -N` (or a `ctest` run transcript).
    CtestTranscript,
    /// `ctest --show-only=json-v1`.
    CtestJson,
    /// One name per line; blank lines and `#` comments ignored.
    PlainList,
}

impl ListFormat {
    pub fn as_str(self) -> &'static str {
        match self {
            ListFormat::CtestTranscript => "ctest transcript",
            ListFormat::CtestJson => "ctest json-v1",
            ListFormat::PlainList => "plain list",
        }
    }
}

/// The registered test names of one build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestList {
    pub path: PathBuf,
    pub format: ListFormat,
    pub names: BTreeSet<String>,
    /// ctest LABELS per test (json-v1 only).
    pub labels: BTreeMap<String, Vec<String>>,
}

/// Read and parse a list file.
pub fn read(path: &Path) -> Result<TestList, Error> {
    let bytes = diag::walk::read(path).map_err(|e| Error::Read {
        path: path.to_path_buf(),
        msg: e.to_string(),
    })?;
    parse(&bytes, path)
}

fn line_at(bytes: &[u8], at: usize) -> usize {
    bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1
}

/// Parse one list, detecting its format.
pub fn parse(bytes: &[u8], path: &Path) -> Result<TestList, Error> {
    if let Some(p) = bytes.iter().position(|&b| b == 0) {
        return Err(Error::Binary {
            path: path.to_path_buf(),
            line: line_at(bytes, p),
        });
    }
    let text = std::str::from_utf8(bytes).map_err(|e| Error::NotUtf8 {
        path: path.to_path_buf(),
        line: line_at(bytes, e.valid_up_to()),
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim_start().starts_with('{') {
        parse_json(text, path)
    } else if is_transcript(text) {
        parse_transcript(text, path)
    } else {
        parse_plain(text, path)
    }
}

/// `Test  #12: name` (ctest -N) or `12/158 Test  #12: name .....   Passed` (a run).
/// Returns the test number, the name and, for a run line `i/M`, the run's total M.
fn transcript_entry(line: &str) -> Option<(usize, &str, Option<usize>)> {
    let mut s = line.trim_start();
    let mut of = None;
    if let Some((count, rest)) = s.split_once(' ') {
        if let Some((_, m)) = count.split_once('/') {
            if count.chars().all(|c| c.is_ascii_digit() || c == '/') {
                of = m.parse().ok();
                s = rest.trim_start();
            }
        }
    }
    let rest = s.strip_prefix("Test")?.trim_start().strip_prefix('#')?;
    let (num, name) = rest.split_once(':')?;
    let num = num.trim().parse().ok()?;
    let name = name.trim();
    // A run line pads the name with " ....." before the status.
    let name = match name.find(" ..") {
        Some(p) => name[..p].trim_end(),
        None => name,
    };
    (!name.is_empty()).then_some((num, name, of))
}

fn is_transcript(text: &str) -> bool {
    text.lines().any(|l| {
        l.starts_with("Test project ")
            || l.starts_with("Total Tests:")
            || transcript_entry(l).is_some()
    })
}

fn parse_transcript(text: &str, path: &Path) -> Result<TestList, Error> {
    let mut names = BTreeSet::new();
    let mut by_number: BTreeMap<usize, String> = BTreeMap::new();
    let mut total = None;
    let mut run_total = None;
    for (i, line) in text.lines().enumerate() {
        if let Some(n) = line.trim().strip_prefix("Total Tests:") {
            if let Ok(n) = n.trim().parse::<usize>() {
                total = Some((i + 1, n));
            }
            continue;
        }
        let Some((num, name, of)) = transcript_entry(line) else {
            continue;
        };
        if let (Some(m), None) = (of, run_total) {
            run_total = Some((i + 1, m));
        }
        match by_number.get(&num) {
            Some(seen) if seen == name => continue,
            _ => {}
        }
        if !names.insert(name.to_string()) {
            return Err(Error::Duplicate {
                path: path.to_path_buf(),
                line: i + 1,
                name: name.to_string(),
            });
        }
        by_number.insert(num, name.to_string());
    }
    if let Some((line, declared)) = total {
        if declared != names.len() {
            return Err(Error::CountMismatch {
                path: path.to_path_buf(),
                line,
                declared,
                found: names.len(),
            });
        }
    }
    if let (None, Some((line, declared))) = (total, run_total) {
        if declared != names.len() {
            return Err(Error::RunCountMismatch {
                path: path.to_path_buf(),
                line,
                declared,
                found: names.len(),
            });
        }
    }
    if names.is_empty() && total.is_none() {
        return Err(Error::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok(TestList {
        path: path.to_path_buf(),
        format: ListFormat::CtestTranscript,
        names,
        labels: BTreeMap::new(),
    })
}

fn parse_plain(text: &str, path: &Path) -> Result<TestList, Error> {
    let mut names = BTreeSet::new();
    for (i, line) in text.lines().enumerate() {
        let name = line.trim();
        if name.is_empty() || name.starts_with('#') {
            continue;
        }
        if !names.insert(name.to_string()) {
            return Err(Error::Duplicate {
                path: path.to_path_buf(),
                line: i + 1,
                name: name.to_string(),
            });
        }
    }
    if names.is_empty() {
        return Err(Error::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok(TestList {
        path: path.to_path_buf(),
        format: ListFormat::PlainList,
        names,
        labels: BTreeMap::new(),
    })
}

fn parse_json(text: &str, path: &Path) -> Result<TestList, Error> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| Error::Json {
        path: path.to_path_buf(),
        line: e.line(),
        column: e.column(),
        msg: e.to_string(),
    })?;
    let shape = |msg: &str| Error::JsonShape {
        path: path.to_path_buf(),
        msg: msg.to_string(),
    };
    if v.get("kind").and_then(|k| k.as_str()) != Some("ctestInfo") {
        return Err(shape("\"kind\" is not \"ctestInfo\""));
    }
    if v.pointer("/version/major").and_then(|m| m.as_u64()) != Some(1) {
        return Err(shape("\"version.major\" is not 1"));
    }
    let tests = v
        .get("tests")
        .and_then(|t| t.as_array())
        .ok_or_else(|| shape("no \"tests\" array"))?;
    let mut names = BTreeSet::new();
    let mut labels = BTreeMap::new();
    for (i, t) in tests.iter().enumerate() {
        let name = t
            .get("name")
            .and_then(|n| n.as_str())
            .ok_or_else(|| shape(&format!("tests[{i}] has no \"name\" string")))?;
        if !names.insert(name.to_string()) {
            return Err(shape(&format!("tests[{i}]: test '{name}' is listed twice")));
        }
        let l: Vec<String> = t
            .get("properties")
            .and_then(|p| p.as_array())
            .into_iter()
            .flatten()
            .filter(|p| p.get("name").and_then(|n| n.as_str()) == Some("LABELS"))
            .filter_map(|p| p.get("value").and_then(|v| v.as_array()))
            .flatten()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect();
        if !l.is_empty() {
            labels.insert(name.to_string(), l);
        }
    }
    Ok(TestList {
        path: path.to_path_buf(),
        format: ListFormat::CtestJson,
        names,
        labels,
    })
}

/// Names only in `before` (removed) and only in `after` (added).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Delta {
    pub removed: Vec<String>,
    pub added: Vec<String>,
    pub before: usize,
    pub after: usize,
}

pub fn delta(before: &TestList, after: &TestList) -> Delta {
    Delta {
        removed: before.names.difference(&after.names).cloned().collect(),
        added: after.names.difference(&before.names).cloned().collect(),
        before: before.names.len(),
        after: after.names.len(),
    }
}

/// The group a name belongs to: its `Prefix.` when the name starts with an identifier and a
/// dot (`DirectGLES.Clear` → `DirectGLES.`), else `(no prefix)`.
pub fn prefix_of(name: &str) -> &str {
    let ident = name
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    if ident > 0
        && name.as_bytes().get(ident) == Some(&b'.')
        && !name.as_bytes()[0].is_ascii_digit()
    {
        &name[..=ident]
    } else {
        "(no prefix)"
    }
}

/// Names grouped by prefix, groups and names sorted.
pub fn group(names: &[String]) -> BTreeMap<&str, Vec<&str>> {
    let mut g: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for n in names {
        g.entry(prefix_of(n)).or_default().push(n);
    }
    g
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn p(s: &str) -> Result<TestList, Error> {
        parse(s.as_bytes(), Path::new("t.txt"))
    }

    #[test]
    fn ctest_n_transcript() {
        let t = p("Test project /b\n  Test  #1: DirectGLES.Clear\n  Test #2: DirectVulkan.Clear\n\nTotal Tests: 2\n").unwrap();
        assert_eq!(t.format, ListFormat::CtestTranscript);
        assert_eq!(
            t.names.iter().collect::<Vec<_>>(),
            ["DirectGLES.Clear", "DirectVulkan.Clear"]
        );
        let e = p("Test project /b\n  Test  #1: a\nTotal Tests: 3\n").unwrap_err();
        assert!(
            e.to_string()
                .contains("t.txt:3: transcript says 'Total Tests: 3' but lists 1"),
            "{e}"
        );
    }

    #[test]
    fn run_transcript_lines() {
        let e = p("37/158 Test  #37: a ....   Passed   1.0 sec\n").unwrap_err();
        assert!(
            e.to_string()
                .contains("t.txt:1: run lines count 158 tests but the transcript shows 1"),
            "{e}"
        );
        let t = p("    Start 37: minecraft-26.3-x-DirectGLES\n1/2 Test  #37: minecraft-26.3-x-DirectGLES ......   Passed   41.27 sec\n2/2 Test  #41: openra-DirectGLES .......***Failed   12.03 sec\n").unwrap();
        assert_eq!(
            t.names.iter().collect::<Vec<_>>(),
            ["minecraft-26.3-x-DirectGLES", "openra-DirectGLES"]
        );
    }

    #[test]
    fn json_v1() {
        let t = p(r#"{"kind":"ctestInfo","version":{"major":1,"minor":0},"tests":[{"name":"A.b","properties":[{"name":"LABELS","value":["gles"]}]},{"name":"c"}]}"#).unwrap();
        assert_eq!(t.format, ListFormat::CtestJson);
        assert_eq!(t.names.len(), 2);
        assert_eq!(t.labels["A.b"], vec!["gles".to_string()]);
        assert!(p("{\"kind\":\"other\"}")
            .unwrap_err()
            .to_string()
            .contains("ctestInfo"));
        assert!(p("{\"kind\": ")
            .unwrap_err()
            .to_string()
            .contains("t.txt:1:"));
    }

    #[test]
    fn plain_list_and_bad_input() {
        let t = p("# names\nA.x\n\nB.y\n").unwrap();
        assert_eq!(t.format, ListFormat::PlainList);
        assert!(matches!(p("a\na\n"), Err(Error::Duplicate { line: 2, .. })));
        assert!(matches!(p("\n# none\n"), Err(Error::Empty { .. })));
        assert!(matches!(
            parse(b"a\n\0b", Path::new("x")),
            Err(Error::Binary { line: 2, .. })
        ));
        assert!(matches!(
            parse(b"a\n\xffb", Path::new("x")),
            Err(Error::NotUtf8 { line: 2, .. })
        ));
    }

    #[test]
    fn delta_and_groups() {
        let a = p("DirectGLES.A\nDirectGLES.B\nsmoke\n").unwrap();
        let b = p("DirectGLES.A\nDirectVulkan.A\nsmoke\nmc-26.3-x\n").unwrap();
        let d = delta(&a, &b);
        assert_eq!(d.removed, ["DirectGLES.B"]);
        assert_eq!(d.added, ["DirectVulkan.A", "mc-26.3-x"]);
        let g = group(&d.added);
        assert_eq!(
            g.keys().copied().collect::<Vec<_>>(),
            ["(no prefix)", "DirectVulkan."]
        );
    }
}
