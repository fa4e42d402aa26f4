//! The control state machine, pure over a [`Sandbox`]: validate the `[[control]]`, plan its
//! perturbation, then **baseline green → perturbed red (with evidence) → restored green**, the
//! copy's digest unchanged. The real sandbox (a throw-away copy, real processes) is
//! [`super::run::TempCopy`]; the self-test's is a script of canned run results.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use diag::Diag;
use regex::Regex;

use super::cfg::{ControlConfig, DEFAULT_TIMEOUT_S};
use super::patch;

diag::codes! {
    /// Finding codes of the `controls` gate (docs/codes.md).
    pub enum Code: "CTL" {
        Ctl001 = "CTL001": "a control's baseline run (unperturbed) is not green, so its red proves nothing",
        Ctl002 = "CTL002": "a control's perturbation no longer applies (patch context gone, `from` missing or found twice, swap file missing): the control rotted",
        Ctl003 = "CTL003": "a control's perturbed run stays green: the test no longer notices the perturbation",
        Ctl004 = "CTL004": "a control's perturbed run is red but its evidence regex is absent: red for another reason",
        Ctl005 = "CTL005": "a control's restored run (perturbation undone) is not green",
        Ctl006 = "CTL006": "a control left its workspace copy changed after the restored run (digest before and after differ)",
        Ctl007 = "CTL007": "a control's run timed out (its process group was killed)",
        Ctl008 = "CTL008": "a control's green run selected no tests (its `selection` matched fewer lines than `expect_tests`)",
        Ctl009 = "CTL009": "a control's command cannot be started (no such program, not executable, bad cwd)",
        Ctl010 = "CTL010": "a [[control]] entry is invalid (no or several perturbations, a bad regex, a path outside the workspace, a repeated name)",
        Ctl011 = "CTL011": "a control could not be run: its throw-away copy could not be made or read, or the run was interrupted",
        Ctl012 = "CTL012": "a control held: baseline green, perturbed red with its evidence, restored green, the tree unchanged",
    }
}

/// The perturbation of one control, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Perturbation {
    Patch {
        path: String,
    },
    Replace {
        file: String,
        from: String,
        to: String,
    },
    Env(BTreeMap<String, String>),
    Swap {
        artifact: String,
        with: String,
    },
}

impl Perturbation {
    pub fn kind(&self) -> &'static str {
        match self {
            Perturbation::Patch { .. } => "patch",
            Perturbation::Replace { .. } => "replace",
            Perturbation::Env(_) => "env",
            Perturbation::Swap { .. } => "swap",
        }
    }
}

/// One validated `[[control]]`.
#[derive(Debug, Clone)]
pub struct Spec {
    pub name: String,
    /// Byte offset of its `name` in mgctl.toml (config findings point there).
    pub at: usize,
    pub command: Vec<String>,
    pub cwd: Option<String>,
    pub timeout: Duration,
    pub evidence: Regex,
    pub selection: Regex,
    pub expect_tests: u64,
    pub perturbation: Perturbation,
    /// Built files the command needs (`requires`): a missing one means the command cannot run.
    pub requires: Vec<String>,
    pub why: Option<String>,
}

/// A workspace-relative path that stays inside the workspace.
pub fn inside(rel: &str) -> bool {
    let p = Path::new(rel);
    !rel.trim().is_empty()
        && !p.is_absolute()
        && p.components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

/// Validates every `[[control]]`; a bad entry is a CTL010 at its line, the others stay usable.
pub fn validate(cfgs: &[ControlConfig]) -> (Vec<Spec>, Vec<Diag<Code>>) {
    let mut specs = Vec::new();
    let mut diags = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    let any_line = Regex::new(r"\S");
    for c in cfgs {
        let name = c.name.get_ref().clone();
        let at = c.name.span().start;
        let mut bad = |at: usize, msg: String| {
            diags.push(
                Diag::error(Code::Ctl010, format!("control `{name}`: {msg}"))
                    .in_config(at)
                    .in_unit(name.clone()),
            )
        };
        if name.trim().is_empty() {
            bad(at, "the name is empty".into());
            continue;
        }
        if !seen.insert(name.clone()) {
            bad(at, "a second [[control]] has this name".into());
            continue;
        }
        let command = c.command.get_ref().clone();
        if command.first().is_none_or(|p| p.trim().is_empty()) {
            bad(
                c.command.span().start,
                "`command` names no program: give its argv, e.g. [\"bash\", \"test.sh\"]".into(),
            );
            continue;
        }
        let regex = |s: &toml::Spanned<String>, what: &str| -> Result<Regex, (usize, String)> {
            if s.get_ref().is_empty() {
                return Err((
                    s.span().start,
                    format!("`{what}` is empty (it would match anything)"),
                ));
            }
            Regex::new(s.get_ref()).map_err(|e| {
                let first = e
                    .to_string()
                    .lines()
                    .last()
                    .unwrap_or("")
                    .trim()
                    .to_string();
                (
                    s.span().start,
                    format!("`{what}` is not a valid regex: {first}"),
                )
            })
        };
        let evidence = match regex(&c.evidence, "evidence") {
            Ok(r) => r,
            Err((at, m)) => {
                bad(at, m);
                continue;
            }
        };
        let selection = match c.selection.as_ref().map(|s| regex(s, "selection")) {
            None => any_line.clone().map_err(|e| (at, e.to_string())),
            Some(r) => r,
        };
        let selection = match selection {
            Ok(r) => r,
            Err((at, m)) => {
                bad(at, m);
                continue;
            }
        };
        let expect_tests = c.expect_tests.as_ref().map_or(1, |n| *n.get_ref());
        if expect_tests == 0 {
            let at = c.expect_tests.as_ref().map_or(at, |n| n.span().start);
            bad(
                at,
                "`expect_tests = 0` would let a run that selected nothing pass".into(),
            );
            continue;
        }
        let timeout = c
            .timeout
            .as_ref()
            .map_or(DEFAULT_TIMEOUT_S, |t| *t.get_ref());
        if timeout == 0 {
            let at = c.timeout.as_ref().map_or(at, |t| t.span().start);
            bad(at, "`timeout = 0` leaves no time to run".into());
            continue;
        }
        if let Some(cwd) = &c.cwd {
            if !inside(cwd.get_ref()) {
                bad(
                    cwd.span().start,
                    format!(
                        "`cwd` `{}` must be a path inside the workspace (relative, no `..`)",
                        cwd.get_ref()
                    ),
                );
                continue;
            }
        }
        let mut found: Vec<(usize, Perturbation, Vec<String>)> = Vec::new();
        if let Some(p) = &c.patch {
            found.push((
                p.span().start,
                Perturbation::Patch {
                    path: p.get_ref().clone(),
                },
                vec![p.get_ref().clone()],
            ));
        }
        if let Some(r) = &c.replace {
            let r2 = r.get_ref();
            if r2.from.is_empty() {
                bad(r.span().start, "`replace.from` is empty".into());
                continue;
            }
            found.push((
                r.span().start,
                Perturbation::Replace {
                    file: r2.file.clone(),
                    from: r2.from.clone(),
                    to: r2.to.clone(),
                },
                vec![r2.file.clone()],
            ));
        }
        if let Some(e) = &c.env {
            if e.get_ref().is_empty() {
                bad(e.span().start, "`env` sets no variable".into());
                continue;
            }
            if let Some(k) = e
                .get_ref()
                .keys()
                .find(|k| k.is_empty() || k.contains(['=', '\0']))
            {
                bad(
                    e.span().start,
                    format!("`env` key `{k}` is not a variable name"),
                );
                continue;
            }
            found.push((
                e.span().start,
                Perturbation::Env(e.get_ref().clone()),
                Vec::new(),
            ));
        }
        if let Some(s) = &c.swap {
            let s2 = s.get_ref();
            found.push((
                s.span().start,
                Perturbation::Swap {
                    artifact: s2.artifact.clone(),
                    with: s2.with.clone(),
                },
                vec![s2.artifact.clone(), s2.with.clone()],
            ));
        }
        let (pat, perturbation, paths) = match found.len() {
            1 => found.remove(0),
            0 => {
                bad(
                    at,
                    "no perturbation: give exactly one of `patch`, `replace`, `env`, `swap`".into(),
                );
                continue;
            }
            _ => {
                let kinds: Vec<&str> = found.iter().map(|f| f.1.kind()).collect();
                bad(
                    found[1].0,
                    format!(
                        "{} perturbations ({}): give exactly one",
                        kinds.len(),
                        kinds.join(", ")
                    ),
                );
                continue;
            }
        };
        if let Some(p) = paths.iter().chain(&c.requires).find(|p| !inside(p)) {
            bad(
                pat,
                format!("`{p}` must be a path inside the workspace (relative, no `..`)"),
            );
            continue;
        }
        specs.push(Spec {
            name,
            at,
            command,
            cwd: c.cwd.as_ref().map(|c| c.get_ref().clone()),
            timeout: Duration::from_secs(timeout),
            evidence,
            selection,
            expect_tests,
            perturbation,
            requires: c.requires.clone(),
            why: c.why.clone(),
        });
    }
    (specs, diags)
}

/// How one run of a command ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    /// It exited with this status (0 is green).
    Code(i32),
    /// A signal ended it (an abort, a segfault): red.
    Signal(i32),
    TimedOut,
    /// It could not be started: why.
    NotStarted(String),
    /// mgctl was interrupted (SIGINT/SIGTERM) during the run; its process group was killed.
    Interrupted,
}

/// One run: how it ended and its stdout then stderr (bounded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunResult {
    pub exit: Exit,
    pub output: String,
    pub ms: u64,
}

impl RunResult {
    pub fn status(&self) -> String {
        match &self.exit {
            Exit::Code(c) => format!("exit {c}"),
            Exit::Signal(s) => format!("killed by signal {s}"),
            Exit::TimedOut => "timed out".into(),
            Exit::NotStarted(why) => format!("not started: {why}"),
            Exit::Interrupted => "interrupted".into(),
        }
    }
}

/// A file's content digest in the copy; the tree's is path → digest.
pub type TreeDigest = BTreeMap<String, [u8; 32]>;

/// Why a control could not run (its copy could not be made or read) or why its perturbation no
/// longer applies. Paths are workspace-relative, in the copy.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("its throw-away copy cannot be made: {0}")]
    NoCopy(Box<Error>),
    #[error("{0}")]
    Io(std::io::Error),
    #[error("{0}")]
    Walk(walkdir::Error),
    #[error("{0}")]
    Outside(std::path::StripPrefixError),
    #[error("copying {}: {reason}", .path.display())]
    Copy {
        path: PathBuf,
        reason: std::io::Error,
    },
    #[error("{rel}: {reason}")]
    Read { rel: String, reason: std::io::Error },
    #[error("mgctl was interrupted (signal {signal})")]
    Interrupted { signal: i32 },
    #[error("`{rel}` is not in the workspace")]
    Missing { rel: String },
    #[error("`{rel}`: {reason}")]
    Unreadable { rel: String, reason: Box<Error> },
    #[error("`{rel}` is not UTF-8 text")]
    NotText { rel: String },
    #[error("`replace.from` `{from}` is not in `{file}`")]
    FromAbsent { from: String, file: String },
    #[error(
        "`replace.from` `{from}` occurs {count} times in `{file}` (it must occur exactly once)"
    )]
    FromRepeated {
        from: String,
        file: String,
        count: usize,
    },
    #[error("patch `{path}`: {reason}")]
    Patch {
        path: String,
        reason: patch::PatchError,
    },
    #[error("patch `{path}` targets `{target}`, outside the workspace")]
    PatchOutside { path: String, target: String },
}

/// Where a control runs: a throw-away copy of the workspace (or the self-test's script).
pub trait Sandbox {
    /// None: no such file. Err: it exists but cannot be read.
    fn read(&self, rel: &str) -> Result<Option<Vec<u8>>, Error>;
    /// Writes (creating directories); `None` removes the file.
    fn write(&mut self, rel: &str, bytes: Option<&[u8]>) -> Result<(), Error>;
    fn digest(&self) -> Result<TreeDigest, Error>;
    /// Runs the command with `env` added to the environment.
    fn run(&mut self, spec: &Spec, env: &BTreeMap<String, String>) -> RunResult;
}

/// The file changes a perturbation makes: path → new contents (None removes).
type Edits = BTreeMap<String, Option<Vec<u8>>>;

/// The perturbation's edits, planned before anything runs; Err is why it no longer applies.
fn plan(p: &Perturbation, sb: &dyn Sandbox) -> Result<Edits, Error> {
    let read = |rel: &str| -> Result<Vec<u8>, Error> {
        match sb.read(rel) {
            Ok(Some(b)) => Ok(b),
            Ok(None) => Err(Error::Missing {
                rel: rel.to_string(),
            }),
            Err(e) => Err(Error::Unreadable {
                rel: rel.to_string(),
                reason: Box::new(e),
            }),
        }
    };
    let text = |rel: &str| -> Result<String, Error> {
        String::from_utf8(read(rel)?).map_err(|_| Error::NotText {
            rel: rel.to_string(),
        })
    };
    match p {
        Perturbation::Env(_) => Ok(Edits::new()),
        Perturbation::Replace { file, from, to } => {
            let text = text(file)?;
            match text.matches(from.as_str()).count() {
                1 => Ok(Edits::from([(
                    file.clone(),
                    Some(text.replacen(from.as_str(), to, 1).into_bytes()),
                )])),
                0 => Err(Error::FromAbsent {
                    from: first_line(from),
                    file: file.clone(),
                }),
                count => Err(Error::FromRepeated {
                    from: first_line(from),
                    file: file.clone(),
                    count,
                }),
            }
        }
        Perturbation::Swap { artifact, with } => {
            read(artifact)?;
            let bytes = read(with)?;
            Ok(Edits::from([(artifact.clone(), Some(bytes))]))
        }
        Perturbation::Patch { path } => {
            let patch_error = |reason| Error::Patch {
                path: path.clone(),
                reason,
            };
            let files = patch::parse(&text(path)?).map_err(patch_error)?;
            if let Some(f) = files.iter().find(|f| !inside(&f.path)) {
                return Err(Error::PatchOutside {
                    path: path.clone(),
                    target: f.path.clone(),
                });
            }
            let new =
                patch::apply(&files, &|rel| sb.read(rel).ok().flatten()).map_err(patch_error)?;
            Ok(new.into_iter().map(|(k, v)| (k, Some(v))).collect())
        }
    }
}

fn first_line(s: &str) -> String {
    let l = s.lines().next().unwrap_or("");
    if l.len() < s.len() {
        format!("{l}…")
    } else {
        l.to_string()
    }
}

/// What one control came to: its diagnostics (one CTL012 note when it held) and its runs.
#[derive(Debug, Clone)]
pub struct Verdict {
    pub diags: Vec<Diag<Code>>,
    pub runs: Vec<(&'static str, RunResult)>,
}

impl Verdict {
    pub fn held(&self) -> bool {
        !self.diags.iter().any(Diag::is_error)
    }
}

/// Characters of one output line a finding quotes (a finding is bounded, not the run).
const QUOTE: usize = 200;

fn quote(line: &str) -> String {
    let mut q: String = line.trim().chars().take(QUOTE).collect();
    if line.trim().chars().nth(QUOTE).is_some() {
        q.push('…');
    }
    q
}

/// The last few lines of a run's output, for a finding, each at most [`QUOTE`] characters.
fn tail(output: &str, n: usize) -> String {
    let lines: Vec<&str> = output.lines().filter(|l| !l.trim().is_empty()).collect();
    let from = lines.len().saturating_sub(n);
    let quoted: Vec<String> = lines[from..].iter().map(|l| quote(l)).collect();
    quoted.join(" | ")
}

/// How many lines of `output` the selection matches.
fn selected(spec: &Spec, output: &str) -> u64 {
    output
        .lines()
        .filter(|l| spec.selection.is_match(l))
        .count() as u64
}

/// Why a green run is not one (None: it is green and selected enough tests).
fn not_green(spec: &Spec, phase: &str, r: &RunResult, red: Code) -> Option<Diag<Code>> {
    let (code, msg) = match &r.exit {
        Exit::Code(0) => {
            let n = selected(spec, &r.output);
            if n >= spec.expect_tests {
                return None;
            }
            (
                Code::Ctl008,
                format!(
                    "the {phase} run passed but selected {n} test line(s) (`selection` /{}/ must match at least {}): a run that ran nothing is not green",
                    spec.selection.as_str(),
                    spec.expect_tests
                ),
            )
        }
        Exit::TimedOut => (
            Code::Ctl007,
            format!(
                "the {phase} run timed out after {} s",
                spec.timeout.as_secs()
            ),
        ),
        Exit::NotStarted(why) => (
            Code::Ctl009,
            format!("`{}` cannot be started: {why}", spec.command[0]),
        ),
        Exit::Interrupted => (Code::Ctl011, format!("the {phase} run was interrupted")),
        _ => (
            red,
            format!(
                "the {phase} run is not green ({}): {}",
                r.status(),
                tail(&r.output, 3)
            ),
        ),
    };
    Some(Diag::error(code, msg))
}

/// Runs one control in `sb`: baseline green → perturbed red with evidence → restored green,
/// the copy's digest unchanged. Every exit path after the perturbation restores it.
pub fn run_control(spec: &Spec, sb: &mut dyn Sandbox) -> Verdict {
    let mut v = Verdict {
        diags: Vec::new(),
        runs: Vec::new(),
    };
    let name = spec.name.clone();
    let finish = |mut v: Verdict, d: Option<Diag<Code>>| {
        if let Some(d) = d {
            let why = spec
                .why
                .as_deref()
                .map(|w| format!(" ({w})"))
                .unwrap_or_default();
            let msg = format!("control `{}`: {}{why}", spec.name, d.message);
            v.diags.push(
                Diag { message: msg, ..d }
                    .in_config(spec.at)
                    .in_unit(spec.name.clone()),
            );
        }
        v
    };
    if let Some(r) = spec
        .requires
        .iter()
        .find(|r| !matches!(sb.read(r), Ok(Some(_))))
    {
        let d = Diag::error(
            Code::Ctl009,
            format!("`{}` cannot run: it requires `{r}`, which is not built (run the [build], or `mgctl check`, which builds it)", spec.command[0]),
        );
        return finish(v, Some(d));
    }
    let before = match sb.digest() {
        Ok(d) => d,
        Err(e) => {
            return finish(
                v,
                Some(Diag::error(
                    Code::Ctl011,
                    format!("the workspace copy cannot be read: {e}"),
                )),
            )
        }
    };
    // 1. plan: a perturbation that no longer applies is found before anything runs
    let edits = match plan(&spec.perturbation, sb) {
        Ok(e) => e,
        Err(why) => {
            let d = Diag::error(
                Code::Ctl002,
                format!(
                    "the {} no longer applies, the control rotted: {why}",
                    spec.perturbation.kind()
                ),
            );
            return finish(v, Some(d));
        }
    };
    let none = BTreeMap::new();
    // 2. baseline
    let base = sb.run(spec, &none);
    let bad = not_green(spec, "baseline", &base, Code::Ctl001);
    v.runs.push(("baseline", base));
    if bad.is_some() {
        return finish(v, bad);
    }
    // 3. perturb (keeping the originals), run, and restore on every path
    let mut originals: Edits = Edits::new();
    let mut failure: Option<Diag<Code>> = None;
    for (rel, bytes) in &edits {
        match sb.read(rel) {
            Ok(old) => {
                originals.insert(rel.clone(), old);
            }
            Err(e) => {
                failure = Some(Diag::error(
                    Code::Ctl011,
                    format!("`{rel}` cannot be read in the copy: {e}"),
                ));
                break;
            }
        }
        if let Err(e) = sb.write(rel, bytes.as_deref()) {
            failure = Some(Diag::error(
                Code::Ctl011,
                format!("`{rel}` cannot be written in the copy: {e}"),
            ));
            break;
        }
    }
    let mut evidence_line = String::new();
    if failure.is_none() {
        let env = match &spec.perturbation {
            Perturbation::Env(e) => e.clone(),
            _ => BTreeMap::new(),
        };
        let red = sb.run(spec, &env);
        failure = match &red.exit {
            Exit::Code(0) => Some(Diag::error(
                Code::Ctl003,
                format!(
                    "the perturbed run ({}) stays green (exit 0): the test no longer notices it; last output: {}",
                    describe(&spec.perturbation),
                    tail(&red.output, 2)
                ),
            )),
            Exit::TimedOut => Some(Diag::error(Code::Ctl007, format!("the perturbed run timed out after {} s", spec.timeout.as_secs()))),
            Exit::NotStarted(why) => Some(Diag::error(Code::Ctl009, format!("`{}` cannot be started: {why}", spec.command[0]))),
            Exit::Interrupted => Some(Diag::error(Code::Ctl011, "the perturbed run was interrupted".to_string())),
            _ => match red.output.lines().find(|l| spec.evidence.is_match(l)).or_else(|| spec.evidence.find(&red.output).map(|m| m.as_str())) {
                Some(l) => {
                    evidence_line = quote(l);
                    None
                }
                None => Some(Diag::error(
                    Code::Ctl004,
                    format!(
                        "the perturbed run is red ({}) but its evidence /{}/ is absent, so it is red for another reason: {}",
                        red.status(),
                        spec.evidence.as_str(),
                        tail(&red.output, 3)
                    ),
                )),
            },
        };
        v.runs.push(("perturbed", red));
    }
    // restore, whatever happened
    for (rel, old) in &originals {
        if let Err(e) = sb.write(rel, old.as_deref()) {
            failure.get_or_insert(Diag::error(
                Code::Ctl006,
                format!("`{rel}` cannot be restored in the copy: {e}"),
            ));
        }
    }
    if failure.is_some() {
        return finish(v, failure);
    }
    // 4. restored
    let after = sb.run(spec, &none);
    let bad = not_green(spec, "restored", &after, Code::Ctl005);
    v.runs.push(("restored", after));
    if bad.is_some() {
        return finish(v, bad);
    }
    // 5. the copy is as it was before the baseline
    match sb.digest() {
        Err(e) => {
            return finish(
                v,
                Some(Diag::error(
                    Code::Ctl011,
                    format!("the workspace copy cannot be read: {e}"),
                )),
            )
        }
        Ok(d) if d != before => {
            let changed = changes(&before, &d);
            let n = changed.len();
            let shown: Vec<String> = changed.into_iter().take(5).collect();
            let more = if n > 5 {
                format!(" and {} more", n - 5)
            } else {
                String::new()
            };
            return finish(
                v,
                Some(Diag::error(
                    Code::Ctl006,
                    format!("the runs left the tree changed: {}{more}", shown.join(", ")),
                )),
            );
        }
        Ok(_) => {}
    }
    let ms = |p: &str| v.runs.iter().find(|r| r.0 == p).map_or(0, |r| r.1.ms);
    let note = Diag::note(
        Code::Ctl012,
        format!(
            "control `{name}` held: baseline green ({} ms), {} red with `{}` ({} ms), restored green ({} ms)",
            ms("baseline"),
            describe(&spec.perturbation),
            evidence_line,
            ms("perturbed"),
            ms("restored")
        ),
    )
    .in_config(spec.at)
    .in_unit(name);
    v.diags.push(note);
    v
}

fn describe(p: &Perturbation) -> String {
    match p {
        Perturbation::Patch { path } => format!("patch `{path}`"),
        Perturbation::Replace { file, .. } => format!("replace in `{file}`"),
        Perturbation::Env(e) => {
            let kv: Vec<String> = e.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("env {}", kv.join(" "))
        }
        Perturbation::Swap { artifact, with } => format!("swap `{artifact}` with `{with}`"),
    }
}

/// The paths whose digest differs: changed, added (+) or removed (-).
fn changes(before: &TreeDigest, after: &TreeDigest) -> Vec<String> {
    let mut out = Vec::new();
    for (k, v) in after {
        match before.get(k) {
            None => out.push(format!("+{k}")),
            Some(b) if b != v => out.push(format!("{k} (changed)")),
            Some(_) => {}
        }
    }
    out.extend(
        before
            .keys()
            .filter(|k| !after.contains_key(*k))
            .map(|k| format!("-{k}")),
    );
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Files in memory; each run answers from `script` in turn and records what it saw.
    struct Rec {
        files: BTreeMap<String, Vec<u8>>,
        script: Vec<RunResult>,
        seen: Vec<(String, BTreeMap<String, String>)>,
    }

    impl Sandbox for Rec {
        fn read(&self, rel: &str) -> Result<Option<Vec<u8>>, Error> {
            Ok(self.files.get(rel).cloned())
        }
        fn write(&mut self, rel: &str, bytes: Option<&[u8]>) -> Result<(), Error> {
            match bytes {
                Some(b) => self.files.insert(rel.into(), b.to_vec()),
                None => self.files.remove(rel),
            };
            Ok(())
        }
        fn digest(&self) -> Result<TreeDigest, Error> {
            Ok(self
                .files
                .iter()
                .map(|(k, v)| {
                    let mut d = [0u8; 32];
                    d[..v.len().min(32)].copy_from_slice(&v[..v.len().min(32)]);
                    (k.clone(), d)
                })
                .collect())
        }
        fn run(&mut self, _: &Spec, env: &BTreeMap<String, String>) -> RunResult {
            let text = String::from_utf8_lossy(&self.files["a.h"]).into_owned();
            self.seen.push((text, env.clone()));
            self.script.remove(0)
        }
    }

    fn spec(extra: &str) -> Spec {
        let text = format!(
            "name = \"c\"\ncommand = [\"t\"]\nevidence = 'BOOM'\nselection = '^ok'\n{extra}"
        );
        let cfg: ControlConfig = toml::from_str(&text).unwrap();
        let (mut specs, diags) = validate(&[cfg]);
        assert!(diags.is_empty(), "{diags:?}");
        specs.remove(0)
    }

    fn r(code: i32, out: &str) -> RunResult {
        RunResult {
            exit: Exit::Code(code),
            output: out.into(),
            ms: 0,
        }
    }

    fn rec(script: Vec<RunResult>) -> Rec {
        Rec {
            files: BTreeMap::from([("a.h".to_string(), b"x = 1\n".to_vec())]),
            script,
            seen: Vec::new(),
        }
    }

    const REPLACE: &str = "replace = { file = \"a.h\", from = \"1\", to = \"2\" }";

    #[test]
    fn a_held_control_runs_three_times_and_only_the_middle_run_is_perturbed() {
        let s = spec(REPLACE);
        let mut sb = rec(vec![r(0, "ok 1\n"), r(1, "BOOM at a.h\n"), r(0, "ok 1\n")]);
        let v = run_control(&s, &mut sb);
        assert!(v.held(), "{:?}", v.diags);
        assert_eq!(v.diags[0].code, Code::Ctl012);
        let seen: Vec<&str> = sb.seen.iter().map(|s| s.0.as_str()).collect();
        assert_eq!(seen, ["x = 1\n", "x = 2\n", "x = 1\n"]);
        assert_eq!(sb.files["a.h"], b"x = 1\n");
    }

    #[test]
    fn a_failed_perturbed_run_still_restores_and_skips_the_third_run() {
        for (script, code) in [
            (vec![r(0, "ok\n"), r(0, "ok\n")], Code::Ctl003),
            (vec![r(0, "ok\n"), r(2, "syntax error\n")], Code::Ctl004),
            (
                vec![
                    r(0, "ok\n"),
                    RunResult {
                        exit: Exit::TimedOut,
                        output: String::new(),
                        ms: 0,
                    },
                ],
                Code::Ctl007,
            ),
        ] {
            let mut sb = rec(script);
            let v = run_control(&spec(REPLACE), &mut sb);
            let codes: Vec<Code> = v.diags.iter().map(|d| d.code).collect();
            assert_eq!(codes, [code]);
            assert_eq!(sb.seen.len(), 2, "no restored run after a failed red");
            assert_eq!(
                sb.files["a.h"], b"x = 1\n",
                "{code} left the file perturbed"
            );
        }
    }

    #[test]
    fn quoted_output_is_bounded_per_line() {
        let long = "y".repeat(100_000);
        let mut sb = rec(vec![r(0, "ok\n"), r(1, &format!("{long}\n{long}\n"))]);
        let v = run_control(&spec(REPLACE), &mut sb);
        assert_eq!(v.diags[0].code, Code::Ctl004);
        assert!(
            v.diags[0].message.len() < 1000,
            "{}",
            v.diags[0].message.len()
        );
    }

    #[test]
    fn rot_is_found_before_anything_runs() {
        let mut sb = rec(Vec::new());
        let v = run_control(
            &spec("replace = { file = \"a.h\", from = \"7\", to = \"2\" }"),
            &mut sb,
        );
        assert_eq!(v.diags[0].code, Code::Ctl002);
        assert!(sb.seen.is_empty());
    }

    #[test]
    fn the_env_reaches_only_the_perturbed_run_and_a_signal_is_a_red() {
        let mut sb = rec(vec![
            r(0, "ok\n"),
            RunResult {
                exit: Exit::Signal(6),
                output: "Fatal{BOOM}\n".into(),
                ms: 0,
            },
            r(0, "ok\n"),
        ]);
        let v = run_control(&spec("env = { K = \"v\" }"), &mut sb);
        assert!(v.held(), "{:?}", v.diags);
        let envs: Vec<usize> = sb.seen.iter().map(|s| s.1.len()).collect();
        assert_eq!(envs, [0, 1, 0]);
    }

    #[test]
    fn invalid_entries_are_config_findings_at_their_key() {
        let bad = [
            ("", "no perturbation"),
            (
                &format!("{REPLACE}\nenv = {{ K = \"v\" }}"),
                "2 perturbations (replace, env)",
            ),
            (
                "patch = \"../outside.diff\"",
                "must be a path inside the workspace",
            ),
            ("env = { K = \"v\" }\nexpect_tests = 0", "expect_tests = 0"),
            (
                "env = { K = \"v\" }\nselection = '('",
                "`selection` is not a valid regex",
            ),
            ("env = { K = \"v\" }\ntimeout = 0", "timeout = 0"),
        ];
        for (extra, want) in bad {
            let text = format!("name = \"c\"\ncommand = [\"t\"]\nevidence = 'x'\n{extra}");
            let cfg: ControlConfig = toml::from_str(&text).unwrap();
            let (specs, diags) = validate(&[cfg]);
            assert!(specs.is_empty());
            assert_eq!(diags[0].code, Code::Ctl010);
            assert!(diags[0].message.contains(want), "{}", diags[0].message);
            assert!(diags[0].config.is_some());
        }
    }
}
