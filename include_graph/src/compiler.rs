//! Compiler truth: run the real preprocessor (`c++ -H -E`, the compiler chosen by the caller) on a one-line translation unit and
//! compare its include closure with the static graph's, explaining every difference it can.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, Unresolvable};
use crate::query::{chain, reach, Hop};
use crate::search::{normalize, SearchPath};

/// One `-H` line: depth (number of dots) and the normalised absolute path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HEntry {
    pub depth: u32,
    pub path: PathBuf,
}

/// Parses a `-H` transcript: a line counts only if it is dots, one space, a path (this drops
/// g++'s "Multiple include guards may be useful for:" trailer and every diagnostic).
pub fn parse_h(stderr: &str, cwd: &Path) -> Vec<HEntry> {
    stderr
        .lines()
        .filter_map(|l| {
            let dots = l.bytes().take_while(|&b| b == b'.').count();
            let rest = l.get(dots..)?.strip_prefix(' ')?;
            if dots == 0 || rest.is_empty() || rest.starts_with(' ') {
                return None;
            }
            Some(HEntry {
                depth: dots as u32,
                path: normalize(&cwd.join(rest)),
            })
        })
        .collect()
}

/// Include flags equivalent to a search path.
pub fn search_flags(sp: &SearchPath) -> Vec<String> {
    let mut v = Vec::new();
    let mut push = |flag: &str, ds: &[PathBuf]| {
        for d in ds {
            v.push(flag.to_string());
            v.push(d.to_string_lossy().into_owned());
        }
    };
    push("-iquote", &sp.quote);
    push("-I", &sp.user);
    push("-isystem", &sp.system);
    push("-idirafter", &sp.after);
    push("-include", &sp.forced);
    v
}

#[derive(Debug, Clone)]
pub struct CompilerRun {
    pub command: String,
    pub success: bool,
    pub entries: Vec<HEntry>,
    /// Compiler diagnostics (non-`-H` lines), first 20.
    pub diagnostics: Vec<String>,
}

/// Runs `cxx flags -H -E -o /dev/null -x c++ -` with a one-line translation unit on stdin that
/// includes `header` (absolute), so nothing is written to disk.
pub fn run_h(cxx: &str, flags: &[String], header: &Path, cwd: &Path) -> Result<CompilerRun> {
    use std::io::Write as _;
    let text = format!("#include \"{}\"\n", header.display());
    let command = format!(
        "{cxx} {} -H -E -o {} -x c++ -",
        flags.join(" "),
        null_device()
    );
    let spawn_err = |e: std::io::Error| Error::Compiler {
        compiler: cxx.to_string(),
        source: e,
    };
    let mut child = Command::new(cxx)
        .args(flags)
        .args(["-H", "-E", "-o", null_device(), "-x", "c++", "-"])
        .current_dir(cwd)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(spawn_err)?;
    if let Some(mut stdin) = child.stdin.take() {
        // A compiler that exits before reading its input fails below with its own diagnostics.
        let _ = stdin.write_all(text.as_bytes());
    }
    let out = child.wait_with_output().map_err(spawn_err)?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let entries = parse_h(&stderr, cwd);
    // Error lines first (g++ prefixes them with "In file included from" context), then the rest.
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| {
            !l.starts_with('.')
                && !l.trim().is_empty()
                && !l.starts_with("Multiple include guards")
                && (l.contains(": ") || !l.starts_with('/'))
        })
        .collect();
    let (errors, rest): (Vec<&str>, Vec<&str>) =
        lines.into_iter().partition(|l| l.contains("error"));
    let diagnostics = errors
        .into_iter()
        .chain(rest)
        .take(20)
        .map(str::to_string)
        .collect();
    Ok(CompilerRun {
        command,
        success: out.status.success(),
        entries,
        diagnostics,
    })
}

fn null_device() -> &'static str {
    if cfg!(windows) {
        "NUL"
    } else {
        "/dev/null"
    }
}

/// Why the static and the compiler closures differ for one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Explanation {
    /// The static graph reaches it only through a conditional include the compiler did not take.
    Conditional { chain: Vec<Hop> },
    /// The compiler reached it through an include the static graph cannot resolve.
    Unresolved {
        at: String,
        spelling: String,
        reason: Unresolvable,
    },
    /// The compiler stopped early (a missing header, an `#error`), so its closure is partial.
    CompilerFailed { diagnostic: String },
    /// No explanation found: a real disagreement.
    Unexplained,
}

impl Explanation {
    pub fn explained(&self) -> bool {
        !matches!(self, Explanation::Unexplained)
    }
}

impl std::fmt::Display for Explanation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Explanation::Conditional { chain } => {
                write!(
                    f,
                    "conditional include not taken by the compiler: {}",
                    crate::query::chain_text(chain)
                )
            }
            Explanation::Unresolved {
                at,
                spelling,
                reason,
            } => {
                let what = match reason {
                    Unresolvable::Computed => "computed include",
                    Unresolvable::IncludeNext => "#include_next",
                    Unresolvable::NotFound => "include not found statically",
                };
                write!(f, "{what} `{spelling}` at {at}")
            }
            Explanation::CompilerFailed { diagnostic } => {
                write!(f, "compiler stopped early: {diagnostic}")
            }
            Explanation::Unexplained => f.write_str("UNEXPLAINED"),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Difference {
    pub path: String,
    /// true: the static graph has it, the compiler does not.
    pub static_only: bool,
    pub explanation: Explanation,
}

#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub header: String,
    pub static_files: usize,
    pub compiler_files: usize,
    pub differences: Vec<Difference>,
}

impl Comparison {
    pub fn equal(&self) -> bool {
        self.differences.is_empty()
    }
    pub fn unexplained(&self) -> usize {
        self.differences
            .iter()
            .filter(|d| !d.explanation.explained())
            .count()
    }
}

/// Compares the closures of `start` inside the workspace (external headers are not compared:
/// the static graph treats them as leaves).
///
/// `walked`: the macro-aware walk of the same unit ([`crate::pp::walk`]); without it the static
/// closure is everything the graph reaches, conditional includes included.
pub fn compare(
    g: &Graph,
    start: NodeId,
    run: &CompilerRun,
    walked: Option<&crate::pp::Walk>,
) -> Comparison {
    let all = reach(g, &[start], |_| true);
    let firm = reach(g, &[start], |e| !e.conditional);
    let mut stat: Vec<NodeId> = match walked {
        Some(w) => w
            .entered
            .iter()
            .copied()
            .filter(|&n| !g.nodes[n].external)
            .collect(),
        None => all
            .order
            .iter()
            .copied()
            .filter(|&n| !g.nodes[n].external)
            .collect(),
    };
    stat.sort_unstable();
    let comp_paths: Vec<&HEntry> = run.entries.iter().collect();
    let mut comp: Vec<NodeId> = Vec::new();
    let mut comp_unknown: Vec<(usize, PathBuf)> = Vec::new(); // in-root files the graph never saw
    for (i, e) in comp_paths.iter().enumerate() {
        match g.node(&e.path) {
            Some(n) if !g.nodes[n].external => comp.push(n),
            Some(_) => {}
            None if e.path.starts_with(&g.root) => comp_unknown.push((i, e.path.clone())),
            None => {}
        }
    }
    comp.sort_unstable();
    comp.dedup();
    let mut diffs = Vec::new();
    let failed = (!run.success).then(|| {
        run.diagnostics
            .first()
            .cloned()
            .unwrap_or_else(|| "non-zero exit".into())
    });
    for &n in &stat {
        if comp.binary_search(&n).is_ok() {
            continue;
        }
        let explanation = if !firm.reached(n) {
            Explanation::Conditional {
                chain: chain(g, &all, n),
            }
        } else if let Some(d) = &failed {
            Explanation::CompilerFailed {
                diagnostic: d.clone(),
            }
        } else {
            Explanation::Unexplained
        };
        diffs.push(Difference {
            path: g.rel(n).to_string(),
            static_only: true,
            explanation,
        });
    }
    // Files the compiler saw that the static closure lacks: look at the includer in the transcript.
    let parent_of = |i: usize| -> Option<NodeId> {
        let d = comp_paths[i].depth;
        if d == 1 {
            return Some(start);
        }
        comp_paths[..i]
            .iter()
            .rev()
            .find(|e| e.depth == d - 1)
            .and_then(|e| g.node(&e.path))
    };
    let explain_missing = |i: usize| -> Explanation {
        if let Some(p) = parent_of(i) {
            if let Some(u) = g
                .unresolved
                .iter()
                .find(|u| u.from == p && u.reason != Unresolvable::NotFound)
                .or_else(|| g.unresolved.iter().find(|u| u.from == p))
            {
                return Explanation::Unresolved {
                    at: format!("{}:{}", g.rel(p), u.line),
                    spelling: u.spelling.clone(),
                    reason: u.reason,
                };
            }
        }
        Explanation::Unexplained
    };
    for (i, e) in comp_paths.iter().enumerate() {
        let Some(n) = g.node(&e.path) else {
            continue;
        };
        if g.nodes[n].external || stat.binary_search(&n).is_ok() {
            continue;
        }
        if diffs
            .iter()
            .any(|d: &Difference| !d.static_only && d.path == g.rel(n))
        {
            continue;
        }
        if all.reached(n) && !firm.reached(n) {
            // The walk decided a condition the other way than the compiler (macro state it
            // cannot see, e.g. one defined by a header outside the workspace).
            diffs.push(Difference {
                path: g.rel(n).to_string(),
                static_only: false,
                explanation: Explanation::Conditional {
                    chain: chain(g, &all, n),
                },
            });
            continue;
        }
        if diffs
            .iter()
            .any(|d: &Difference| !d.static_only && d.path == g.rel(n))
        {
            continue;
        }
        diffs.push(Difference {
            path: g.rel(n).to_string(),
            static_only: false,
            explanation: explain_missing(i),
        });
    }
    for (i, p) in comp_unknown {
        let rel = p
            .strip_prefix(&g.root)
            .map(|r| r.to_string_lossy().into_owned())
            .unwrap_or_default();
        if diffs.iter().any(|d| !d.static_only && d.path == rel) {
            continue;
        }
        diffs.push(Difference {
            path: rel,
            static_only: false,
            explanation: explain_missing(i),
        });
    }
    diffs.sort_by(|a, b| a.path.cmp(&b.path));
    Comparison {
        header: g.rel(start).to_string(),
        static_files: stat.len(),
        compiler_files: comp.len(),
        differences: diffs,
    }
}

/// A probe evaluated on the compiler's transcript instead of the static graph (upstream "clang"
/// mode): the chain of a violation is the nearest enclosing entry at each shallower depth.
pub fn probe_from_run(
    root: &Path,
    probe: &crate::probe::Probe,
    run: &CompilerRun,
) -> crate::probe::ProbeResult {
    use crate::probe::{ProbeResult, ProbeViolation, Status};
    let rel = |p: &Path| match p.strip_prefix(root) {
        Ok(r) => r.to_string_lossy().replace('\\', "/"),
        Err(_) => p.to_string_lossy().into_owned(),
    };
    let mut seen = std::collections::HashSet::new();
    let mut res = ProbeResult {
        probe: probe.name.clone(),
        header: probe.header.clone(),
        status: Status::Ok,
        headers: 0,
        violations: Vec::new(),
        allowed: Vec::new(),
        text_problems: Vec::new(),
    };
    for (i, e) in run.entries.iter().enumerate() {
        let r = rel(&e.path);
        if !seen.insert(r.clone()) {
            continue;
        }
        res.headers += 1;
        let Some(rule) = probe.forbidden.iter().find(|f| r.starts_with(f.as_str())) else {
            continue;
        };
        if let Some((_, why)) = probe.allow.iter().find(|(p, _)| r.starts_with(p.as_str())) {
            res.allowed.push((r.clone(), why.clone()));
            continue;
        }
        let mut hops = vec![Hop {
            path: r.clone(),
            line: None,
            conditional: false,
        }];
        let mut want = e.depth;
        for prev in run.entries[..i].iter().rev() {
            if want <= 1 {
                break;
            }
            if prev.depth == want - 1 {
                hops.push(Hop {
                    path: rel(&prev.path),
                    line: None,
                    conditional: false,
                });
                want -= 1;
            }
        }
        hops.reverse();
        res.violations.push(ProbeViolation {
            resolved: None,
            path: r,
            rule: rule.clone(),
            chain: hops,
        });
    }
    if !res.violations.is_empty() {
        res.status = Status::Forbidden;
    }
    res
}

/// The compiler's predefined macros for these flags (`cxx flags -dM -E -x c++ /dev/null`), plus
/// the flags' own `-D`/`-U`: the known macro set of the macro-aware walk.
pub fn predefined(cxx: &str, flags: &[String]) -> Result<crate::pp::Macros> {
    let out = Command::new(cxx)
        .args(flags.iter().filter(|f| {
            f.starts_with("-std")
                || f.starts_with("-m")
                || f.starts_with("--target")
                || f.starts_with("-f")
        }))
        .args(["-dM", "-E", "-x", "c++", null_device()])
        .output()
        .map_err(|e| Error::Compiler {
            compiler: cxx.to_string(),
            source: e,
        })?;
    let mut m = crate::pp::parse_predefs(&String::from_utf8_lossy(&out.stdout));
    crate::pp::apply_flags(&mut m, flags);
    Ok(m)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn h_transcript_parser() {
        let t = ". MG_Pipe/MGPipeHandles.h\n.. /r/Includes.h\n... TextureState/../SamplerState/SamplerObject.h\nMultiple include guards may be useful for:\n/usr/include/x.h\n/usr/include/y.h\nIn file included from a.h:1:\n";
        let e = parse_h(t, Path::new("/r/M"));
        assert_eq!(e.len(), 3);
        assert_eq!(e.iter().map(|x| x.depth).collect::<Vec<_>>(), vec![1, 2, 3]);
        assert_eq!(e[1].path, PathBuf::from("/r/Includes.h"));
        assert_eq!(
            e[2].path,
            PathBuf::from("/r/M/SamplerState/SamplerObject.h")
        );
    }

    #[test]
    fn flags_from_search_path() {
        let sp = SearchPath {
            user: vec!["/i".into()],
            quote: vec!["/q".into()],
            ..Default::default()
        };
        assert_eq!(search_flags(&sp), vec!["-iquote", "/q", "-I", "/i"]);
    }
}
