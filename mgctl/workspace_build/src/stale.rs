//! Whether the outputs of `[build]` stand for the sources they are made from (issue 30, "never
//! green on a stale build"): the input files its globs match, their digest, and the record of
//! the last build mgctl ran (`.mgctl-build.json` beside the outputs).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The record mgctl writes after a successful build, in the outputs' common directory.
pub const RECORD: &str = ".mgctl-build.json";

/// An input file: workspace-relative name (forward slashes) and modification time.
#[derive(Debug, Clone)]
pub struct Input {
    pub rel: String,
    pub mtime: SystemTime,
}

/// Why an output does not stand for its inputs.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Stale {
    pub output: String,
    /// The newest input (the one to name).
    pub newest_input: String,
    /// "older" (the output's time is before the newest input's) or "digest" (the inputs'
    /// contents differ from those the recorded build read).
    pub why: &'static str,
}

impl Stale {
    /// One phrase for messages: `build/a.so is older than src/a.cpp`.
    pub fn phrase(&self) -> String {
        match self.why {
            "older" => format!("{} is older than {}", self.output, self.newest_input),
            _ => format!(
                "{} was built from other inputs than today's (newest: {})",
                self.output, self.newest_input
            ),
        }
    }
}

/// A glob of `inputs` that matches no file, or one that does not parse.
#[derive(Debug, thiserror::Error)]
pub enum InputsError {
    #[error("input glob `{0}` matches no file")]
    Empty(String),
    #[error("input glob `{glob}` is not a glob: {message}")]
    Bad { glob: String, message: String },
    #[error("{path}: cannot read an input: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// The files `globs` match under `root` (sorted, each once), leaving out `exclude` (the outputs
/// and the record: a build's products are not its sources) and `.git`. Every glob must match.
pub fn expand(
    root: &Path,
    globs: &[String],
    exclude: &[String],
) -> Result<Vec<Input>, InputsError> {
    let mut sets = Vec::with_capacity(globs.len());
    for g in globs {
        let glob = globset::GlobBuilder::new(g)
            .literal_separator(true)
            .build()
            .map_err(|e| InputsError::Bad {
                glob: g.clone(),
                message: e.kind().to_string(),
            })?;
        sets.push(glob.compile_matcher());
    }
    let mut hit = vec![false; globs.len()];
    let mut found = BTreeMap::new();
    let walk = walkdir::WalkDir::new(root)
        .follow_links(true)
        .into_iter()
        .filter_entry(|e| e.file_name() != ".git");
    for entry in walk.flatten() {
        if !entry.file_type().is_file() {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(root) else {
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        if exclude.contains(&rel) || rel.ends_with(RECORD) {
            continue;
        }
        let mut any = false;
        for (i, m) in sets.iter().enumerate() {
            if m.is_match(&rel) {
                hit[i] = true;
                any = true;
            }
        }
        if any {
            let mtime = entry
                .metadata()
                .ok()
                .and_then(|m| m.modified().ok())
                .unwrap_or(SystemTime::UNIX_EPOCH);
            found.insert(rel.clone(), Input { rel, mtime });
        }
    }
    if let Some(i) = hit.iter().position(|h| !h) {
        return Err(InputsError::Empty(globs[i].clone()));
    }
    Ok(found.into_values().collect())
}

/// SHA-256 over the command and every input's name, length and contents, in name order (an input
/// over the size limit by its length and modification time).
pub fn digest(root: &Path, command: &[String], inputs: &[Input]) -> Result<String, InputsError> {
    let mut h = Sha256::new();
    for a in command {
        h.update((a.len() as u64).to_le_bytes());
        h.update(a.as_bytes());
    }
    let limit = diag::walk::max_file_size();
    let mut buf = Vec::new();
    for i in inputs {
        let read_err = |source| InputsError::Read {
            path: i.rel.clone(),
            source,
        };
        let mut f = std::fs::File::open(root.join(&i.rel)).map_err(read_err)?;
        let len = f.metadata().map_err(read_err)?.len();
        h.update((i.rel.len() as u64).to_le_bytes());
        h.update(i.rel.as_bytes());
        h.update(len.to_le_bytes());
        if len > limit {
            // Over [check] max_file_size no gate reads it, and hashing it on every run would
            // cost what the limit exists to avoid: its length and time stand for its contents.
            let t = i
                .mtime
                .duration_since(SystemTime::UNIX_EPOCH)
                .unwrap_or_default();
            h.update(t.as_nanos().to_le_bytes());
            continue;
        }
        buf.clear();
        (&mut f)
            .take(limit)
            .read_to_end(&mut buf)
            .map_err(read_err)?;
        h.update(&buf);
    }
    Ok(hex(&h.finalize()))
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `.mgctl-build.json`: what the last successful build mgctl ran was made from.
#[derive(Debug, Serialize, Deserialize)]
pub struct Record {
    pub schema: u32,
    pub command: Vec<String>,
    pub outputs: Vec<String>,
    pub inputs: usize,
    pub inputs_digest: String,
}

/// Where the record of `outputs` lives: their deepest common directory (the workspace root when
/// they share none).
pub fn record_path(root: &Path, outputs: &[String]) -> PathBuf {
    let mut common: Option<Vec<&str>> = None;
    for o in outputs {
        let mut dirs: Vec<&str> = o.split('/').collect();
        dirs.pop();
        common = Some(match common {
            None => dirs,
            Some(c) => c
                .iter()
                .zip(&dirs)
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| *a)
                .collect(),
        });
    }
    let mut p = root.to_path_buf();
    for d in common.unwrap_or_default() {
        p.push(d);
    }
    p.join(RECORD)
}

/// The recorded digest for these outputs, if a readable record of them exists (a record of
/// other outputs, or one that does not parse, is no record: the file times still judge).
pub fn recorded_digest(root: &Path, outputs: &[String]) -> Option<String> {
    let text = std::fs::read_to_string(record_path(root, outputs)).ok()?;
    let r: Record = serde_json::from_str(&text).ok()?;
    (r.schema == 1 && r.outputs == outputs).then_some(r.inputs_digest)
}

/// Writes the record after a successful build (atomically; a failure to write only means the
/// next run judges by file times).
pub fn write_record(root: &Path, record: &Record) {
    if let Ok(text) = serde_json::to_vec_pretty(record) {
        let _ = check_report::sink::write_file(&record_path(root, &record.outputs), &text);
    }
}

/// The stale outputs: those older than the newest input, and, when a record exists and its
/// digest differs from `now`, every output. Missing outputs are not judged here.
pub fn judge(
    root: &Path,
    outputs: &[String],
    inputs: &[Input],
    recorded: Option<&str>,
    now: &str,
) -> Vec<Stale> {
    let Some(newest) = inputs.iter().max_by_key(|i| i.mtime) else {
        return Vec::new();
    };
    let digest_differs = recorded.is_some_and(|r| r != now);
    outputs
        .iter()
        .filter_map(|o| {
            let t = std::fs::metadata(root.join(o))
                .and_then(|m| m.modified())
                .ok()?;
            let why = if t < newest.mtime {
                "older"
            } else if digest_differs {
                "digest"
            } else {
                return None;
            };
            Some(Stale {
                output: o.clone(),
                newest_input: newest.rel.clone(),
                why,
            })
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn touch(p: &Path, t: SystemTime) {
        std::fs::File::options()
            .write(true)
            .open(p)
            .unwrap()
            .set_modified(t)
            .unwrap();
    }

    #[test]
    fn an_output_older_than_an_input_or_built_from_other_contents_is_stale() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        std::fs::create_dir_all(r.join("src")).unwrap();
        std::fs::create_dir_all(r.join("build")).unwrap();
        std::fs::write(r.join("src/a.cpp"), "int a;").unwrap();
        std::fs::write(r.join("src/b.h"), "int b;").unwrap();
        std::fs::write(r.join("build/a.so"), "so").unwrap();
        let t0 = SystemTime::now() - Duration::from_secs(100);
        touch(&r.join("src/a.cpp"), t0);
        touch(&r.join("src/b.h"), t0);
        let outs = vec!["build/a.so".to_string()];
        let globs = vec!["src/*.cpp".to_string(), "src/**/*.h".to_string()];
        let inputs = expand(r, &globs, &outs).unwrap();
        assert_eq!(inputs.len(), 2);
        let d1 = digest(r, &["sh".into()], &inputs).unwrap();
        assert!(judge(r, &outs, &inputs, Some(&d1), &d1).is_empty());

        // A newer input makes the output stale, naming the newest input.
        touch(
            &r.join("src/b.h"),
            SystemTime::now() + Duration::from_secs(5),
        );
        let inputs = expand(r, &globs, &outs).unwrap();
        let s = judge(r, &outs, &inputs, Some(&d1), &d1);
        assert_eq!(s[0].why, "older");
        assert_eq!(s[0].newest_input, "src/b.h");
        assert_eq!(s[0].phrase(), "build/a.so is older than src/b.h");

        // Contents changed with an old time (a checkout of an older file): the digest says so.
        touch(&r.join("src/b.h"), t0);
        std::fs::write(r.join("src/a.cpp"), "int a2;").unwrap();
        touch(&r.join("src/a.cpp"), t0);
        let inputs = expand(r, &globs, &outs).unwrap();
        let d2 = digest(r, &["sh".into()], &inputs).unwrap();
        assert_ne!(d1, d2);
        assert_eq!(judge(r, &outs, &inputs, Some(&d1), &d2)[0].why, "digest");
        // Without a record, only the file times judge.
        assert!(judge(r, &outs, &inputs, None, &d2).is_empty());
        // The command is part of what an output stands for.
        assert_ne!(digest(r, &["make".into()], &inputs).unwrap(), d2);
    }

    #[test]
    fn a_glob_matching_nothing_is_an_error_and_outputs_are_no_inputs() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("build")).unwrap();
        std::fs::write(d.path().join("build/a.so"), "so").unwrap();
        let e = expand(d.path(), &["src/*.cpp".into()], &[]).unwrap_err();
        assert_eq!(e.to_string(), "input glob `src/*.cpp` matches no file");
        let e = expand(d.path(), &["build/*".into()], &["build/a.so".into()]).unwrap_err();
        assert!(matches!(e, InputsError::Empty(_)));
    }

    #[test]
    fn the_record_sits_in_the_outputs_common_directory() {
        let r = Path::new("/w");
        let outs = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            record_path(r, &outs(&["build/pull/a.so", "build/push/a.so"])),
            Path::new("/w/build/.mgctl-build.json")
        );
        assert_eq!(
            record_path(r, &outs(&["a.so"])),
            Path::new("/w/.mgctl-build.json")
        );
    }
}
