//! The `generated` analysis: validation of the config, the pure judgements of one generator run
//! ([`judge_outputs`]) and of one pin ([`judge_pin`]), and [`check`], the one entry point (the
//! gate and its live controls both run generators through [`run_generator`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;
use std::time::{Duration, Instant};

use diag::{Diag, Outcome};
use regex::Regex;
use sha2::{Digest, Sha256};

use super::cfg::{GeneratedConfig, PinConfig, DEFAULT_TIMEOUT_S};
use crate::control::check::{inside, Exit, RunResult};
use crate::control::run::{NoCore, Signals, TempCopy};

diag::codes! {
    /// Finding codes of the `generated` gate (docs/codes.md).
    pub enum Code: "GEN" {
        Gen001 = "GEN001": "a committed generated file differs from what its generator writes today (stale)",
        Gen002 = "GEN002": "a configured output file was not written by its generator",
        Gen003 = "GEN003": "an output glob matches nothing, committed or generated",
        Gen004 = "GEN004": "a generated file is not committed, or a committed output is no longer generated",
        Gen005 = "GEN005": "a generator failed: non-zero exit, a signal, its timeout, or it could not start",
        Gen006 = "GEN006": "a [[generated]] or [[pin]] entry is invalid",
        Gen007 = "GEN007": "a file the gate reads could not be read or parsed, or the throw-away copy failed",
        Gen008 = "GEN008": "a pinned file's sha256 is not its pin (for a keyed pin: an edit without a revision bump)",
        Gen009 = "GEN009": "the current revision has no pin",
        Gen010 = "GEN010": "a pin's key regex matches nothing in its key file",
    }
}

/// Lines of a stale file's diff excerpt kept in its finding.
const EXCERPT_LINES: usize = 12;
/// Lines of a failed generator's output kept in its finding.
const TAIL_LINES: usize = 8;

/// One configured output: a file, or a glob over workspace-relative paths (`/` never matched by
/// `*`; `**` crosses directories).
#[derive(Debug, Clone)]
pub enum Output {
    File(String),
    Glob {
        pattern: String,
        matcher: globset::GlobMatcher,
        /// The literal directories before the first wildcard: the walk starts there.
        base: String,
    },
}

/// Why an output, a generator's run or a pins file cannot be used. Paths are workspace-relative.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("output `{output}` is not a workspace-relative path inside the workspace")]
    Outside { output: String },
    #[error("output glob `{pattern}`: {reason}")]
    BadGlob {
        pattern: String,
        reason: globset::Error,
    },
    #[error("{rel}: {reason}")]
    Read { rel: String, reason: std::io::Error },
    #[error("{0}")]
    Walk(diag::walk::Error),
    #[error("{0}")]
    Copy(crate::control::Error),
    #[error("{rel}: cannot be removed from the throw-away copy: {reason}")]
    Remove { rel: String, reason: std::io::Error },
    #[error("{rel}:{line}:{column}: not JSON: {reason}")]
    NotJson {
        rel: String,
        line: usize,
        column: usize,
        reason: serde_json::Error,
    },
    #[error("{rel}: not a JSON object {{\"revision\": \"sha256\"}}")]
    NotAnObject { rel: String },
    #[error("{rel}: revision {revision}'s pin is not a 64-hex-digit string")]
    BadPin { rel: String, revision: String },
}

fn wild(s: &str) -> bool {
    s.contains(['*', '?', '[', '{'])
}

impl Output {
    pub fn parse(p: &str) -> Result<Output, Error> {
        if !inside(p) {
            return Err(Error::Outside {
                output: p.to_string(),
            });
        }
        let p = p.trim_start_matches("./");
        if !wild(p) {
            return Ok(Output::File(p.to_string()));
        }
        let matcher = globset::GlobBuilder::new(p)
            .literal_separator(true)
            .build()
            .map_err(|reason| Error::BadGlob {
                pattern: p.to_string(),
                reason,
            })?
            .compile_matcher();
        let base: Vec<&str> = p.split('/').take_while(|c| !wild(c)).collect();
        Ok(Output::Glob {
            pattern: p.to_string(),
            matcher,
            base: base.join("/"),
        })
    }

    pub fn label(&self) -> &str {
        match self {
            Output::File(p) => p,
            Output::Glob { pattern, .. } => pattern,
        }
    }

    fn matches(&self, rel: &str) -> bool {
        match self {
            Output::File(p) => p == rel,
            Output::Glob { matcher, .. } => matcher.is_match(rel),
        }
    }
}

/// A validated `[[generated]]`.
#[derive(Debug, Clone)]
pub struct Gen {
    pub name: String,
    /// Byte offset of its `name` in mgctl.toml.
    pub at: usize,
    pub command: Vec<String>,
    pub outputs: Vec<Output>,
    pub timeout: Duration,
}

/// Validates every `[[generated]]`; a bad entry is a GEN006 at its line, the others stay usable.
pub fn validate(cfgs: &[GeneratedConfig]) -> (Vec<Gen>, Vec<Diag<Code>>) {
    let mut out = Vec::new();
    let mut diags = Vec::new();
    let mut seen = BTreeSet::new();
    for c in cfgs {
        let name = c.name.get_ref().clone();
        let at = c.name.span().start;
        let bad = |m: String| Diag::error(Code::Gen006, m).in_config(at);
        if name.trim().is_empty() {
            diags.push(bad("a [[generated]] has an empty name".into()));
            continue;
        }
        if !seen.insert(name.clone()) {
            diags.push(bad(format!("[[generated]] `{name}` is configured twice")));
            continue;
        }
        if c.command.get_ref().first().is_none_or(|p| p.is_empty()) {
            diags.push(bad(format!("[[generated]] `{name}` has an empty command")));
            continue;
        }
        if c.outputs.get_ref().is_empty() {
            diags.push(bad(format!(
                "[[generated]] `{name}` lists no outputs: it would check nothing"
            )));
            continue;
        }
        let outputs: Result<Vec<Output>, Error> = c
            .outputs
            .get_ref()
            .iter()
            .map(|p| Output::parse(p))
            .collect();
        let outputs = match outputs {
            Ok(o) => o,
            Err(e) => {
                diags.push(bad(format!("[[generated]] `{name}`: {e}")));
                continue;
            }
        };
        let secs = c
            .timeout
            .as_ref()
            .map_or(DEFAULT_TIMEOUT_S, |t| *t.get_ref());
        if secs == 0 {
            diags.push(bad(format!(
                "[[generated]] `{name}`: timeout must be at least 1 s"
            )));
            continue;
        }
        out.push(Gen {
            name,
            at,
            command: c.command.get_ref().clone(),
            outputs,
            timeout: Duration::from_secs(secs),
        });
    }
    (out, diags)
}

/// The files under `outputs` in the tree at `root` (workspace-relative path → bytes); `.git` is
/// never entered.
pub fn collect(root: &Path, outputs: &[Output]) -> Result<BTreeMap<String, Vec<u8>>, Error> {
    let mut out = BTreeMap::new();
    for o in outputs {
        match o {
            Output::File(p) => match diag::walk::read(&root.join(p)) {
                Ok(b) => {
                    out.insert(p.clone(), b);
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(reason) => {
                    return Err(Error::Read {
                        rel: p.clone(),
                        reason,
                    })
                }
            },
            Output::Glob { base, .. } => {
                if !root.join(base).is_dir() {
                    continue;
                }
                let not_git = |rel: &Path, _dir: bool| {
                    rel.components()
                        .next()
                        .is_none_or(|c| c.as_os_str() != ".git")
                };
                let listing =
                    diag::walk::walk(root, Path::new(base), &not_git).map_err(Error::Walk)?;
                for f in &listing.files {
                    let rel = f.display();
                    if o.matches(&rel) && !out.contains_key(&rel) {
                        match diag::walk::read(&f.path) {
                            Ok(bytes) => out.insert(rel, bytes),
                            Err(reason) => return Err(Error::Read { rel, reason }),
                        };
                    }
                }
            }
        }
    }
    Ok(out)
}

/// What one generator run left: how it ended (with its output tail) and each file under its
/// outputs afterwards.
#[derive(Debug, Clone)]
pub struct GenRun {
    pub result: RunResult,
    pub produced: BTreeMap<String, Vec<u8>>,
}

/// Runs `g` in a throw-away copy of `root` from which its committed outputs were removed (so an
/// output it no longer writes is seen), and returns the committed outputs and the run.
pub fn run_generator(
    root: &Path,
    g: &Gen,
    cancel: Arc<AtomicUsize>,
) -> Result<(BTreeMap<String, Vec<u8>>, GenRun), Error> {
    let committed = collect(root, &g.outputs)?;
    let copy = TempCopy::new(root, cancel).map_err(Error::Copy)?;
    for rel in committed.keys() {
        std::fs::remove_file(copy.root().join(rel)).map_err(|reason| Error::Remove {
            rel: rel.clone(),
            reason,
        })?;
    }
    let result = copy.run_argv(&g.command, g.timeout, &BTreeMap::new());
    let produced = if result.exit == Exit::Code(0) {
        collect(&copy.root(), &g.outputs)?
    } else {
        BTreeMap::new()
    };
    Ok((committed, GenRun { result, produced }))
}

/// The 1-based line where `a` and `b` first differ (a missing line counts as different).
fn first_difference(a: &str, b: &str) -> u32 {
    let mut la = a.split_inclusive('\n');
    let mut lb = b.split_inclusive('\n');
    let mut n = 1u32;
    loop {
        match (la.next(), lb.next()) {
            (Some(x), Some(y)) if x == y => n = n.saturating_add(1),
            _ => return n,
        }
    }
}

/// The first hunk of the unified diff committed → generated, at most [`EXCERPT_LINES`] lines,
/// each escaped for a terminal and shortened.
fn excerpt(committed: &str, generated: &str) -> String {
    let diff = similar::TextDiff::from_lines(committed, generated);
    let mut u = diff.unified_diff();
    u.context_radius(1).header("committed", "generated");
    let text = u.missing_newline_hint(false).to_string();
    let lines: Vec<&str> = text.lines().collect();
    let mut kept: Vec<String> = lines
        .iter()
        .take(EXCERPT_LINES)
        .map(|l| diag::escape::line(&diag::escape::shorten(l, crate::excerpt::MAX_CHARS)))
        .collect();
    if lines.len() > EXCERPT_LINES {
        kept.push(format!(
            "… ({} more diff lines)",
            lines.len() - EXCERPT_LINES
        ));
    }
    kept.iter().map(|l| format!("\n    {l}")).collect()
}

/// The last [`TAIL_LINES`] non-blank lines of a run's output, escaped.
fn tail(output: &str) -> String {
    let lines: Vec<&str> = output.lines().filter(|l| !l.trim().is_empty()).collect();
    let from = lines.len().saturating_sub(TAIL_LINES);
    if lines.is_empty() {
        return " (it printed nothing)".into();
    }
    lines[from..]
        .iter()
        .map(|l| {
            format!(
                "\n    {}",
                diag::escape::line(&diag::escape::shorten(l, diag::escape::QUOTE_CHARS))
            )
        })
        .collect()
}

/// The findings of one run of `g`: `committed` and `run.produced` hold the files under its
/// outputs before (in the workspace) and after (in the copy). Pure.
pub fn judge_outputs(
    g: &Gen,
    committed: &BTreeMap<String, Vec<u8>>,
    run: &GenRun,
) -> Vec<Diag<Code>> {
    let mut out = Vec::new();
    if run.result.exit != Exit::Code(0) {
        out.push(
            Diag::error(
                Code::Gen005,
                format!(
                    "generator `{}` failed ({}); its output ends:{}",
                    g.name,
                    run.result.status(),
                    tail(&run.result.output)
                ),
            )
            .in_config(g.at)
            .in_unit(g.name.clone()),
        );
        return out;
    }
    let mut judged = BTreeSet::new();
    for o in &g.outputs {
        let mut rels: BTreeSet<&String> = committed.keys().filter(|r| o.matches(r)).collect();
        rels.extend(run.produced.keys().filter(|r| o.matches(r)));
        if rels.is_empty() {
            let d = match o {
                Output::File(p) => Diag::error(
                    Code::Gen002,
                    format!(
                        "generator `{}` did not write `{p}`, and it is not committed either",
                        g.name
                    ),
                )
                .file(p.clone()),
                Output::Glob { pattern, .. } => Diag::error(
                    Code::Gen003,
                    format!(
                        "output glob `{pattern}` of generator `{}` matches nothing, committed or generated",
                        g.name
                    ),
                )
                .in_config(g.at),
            };
            out.push(d.in_unit(g.name.clone()));
            continue;
        }
        for rel in rels {
            if !judged.insert(rel.clone()) {
                continue;
            }
            let d = match (committed.get(rel), run.produced.get(rel)) {
                (Some(_), None) if matches!(o, Output::File(_)) => Diag::error(
                    Code::Gen002,
                    format!(
                        "generator `{}` did not write `{rel}` (the committed file is not what it makes)",
                        g.name
                    ),
                )
                .file(rel.clone()),
                (Some(_), None) => Diag::error(
                    Code::Gen004,
                    format!(
                        "`{rel}` is committed under `{}` but generator `{}` no longer writes it: delete it or fix the generator",
                        o.label(),
                        g.name
                    ),
                )
                .file(rel.clone()),
                (None, Some(_)) => Diag::error(
                    Code::Gen004,
                    format!(
                        "generator `{}` writes `{rel}`, which is not committed: run it and commit the file",
                        g.name
                    ),
                )
                .file(rel.clone()),
                (Some(a), Some(b)) if a != b => {
                    let a = String::from_utf8_lossy(a);
                    let b = String::from_utf8_lossy(b);
                    let line = first_difference(&a, &b);
                    Diag::error(
                        Code::Gen001,
                        format!(
                            "`{rel}` is stale: generator `{}` writes something else from line {line} on (regenerate and commit):{}",
                            g.name,
                            excerpt(&a, &b)
                        ),
                    )
                    .at(rel.clone(), line, None)
                }
                _ => continue,
            };
            out.push(d.in_unit(g.name.clone()));
        }
    }
    out
}

/// sha256 of `bytes` with every CRLF folded to LF (a CRLF checkout hashes as an LF one), in hex.
pub fn digest(bytes: &[u8]) -> String {
    let mut h = Sha256::new();
    let mut rest = bytes;
    while let Some(i) = memchr::memmem::find(rest, b"\r\n") {
        h.update(&rest[..i]);
        h.update(b"\n");
        rest = &rest[i + 2..];
    }
    h.update(rest);
    h.finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<String>()
}

fn is_sha256(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

fn short(sha: &str) -> &str {
    sha.get(..16).unwrap_or(sha)
}

/// Where a keyed pin's table lives.
#[derive(Debug, Clone)]
pub enum Table {
    Inline(BTreeMap<String, String>),
    /// A workspace-relative JSON object `{ "revision": "sha256" }`.
    Json(String),
}

/// What a pin compares with.
#[derive(Debug, Clone)]
pub enum PinKind {
    Plain(String),
    Keyed {
        key: Regex,
        key_file: String,
        table: Table,
    },
}

/// A validated `[[pin]]`.
#[derive(Debug, Clone)]
pub struct Pin {
    pub file: String,
    /// Byte offset of its `file` in mgctl.toml.
    pub at: usize,
    pub kind: PinKind,
    pub why: Option<String>,
}

impl Pin {
    /// Where its pins are written, for messages.
    fn table_label(&self) -> String {
        match &self.kind {
            PinKind::Plain(_) => "its sha256".into(),
            PinKind::Keyed {
                table: Table::Json(p),
                ..
            } => p.clone(),
            PinKind::Keyed { .. } => "its revisions table".into(),
        }
    }
}

/// Validates one `[[pin]]`: exactly one of `sha256`, `revisions`, `pins`; `key` and `key_file`
/// with (only with) the keyed two; a key regex with exactly one capture group.
pub fn validate_pin(p: &PinConfig) -> Result<Pin, Box<Diag<Code>>> {
    let file = p.file.get_ref().clone();
    let at = p.file.span().start;
    let bad = |m: String| {
        Box::new(Diag::error(Code::Gen006, format!("[[pin]] `{file}`: {m}")).in_config(at))
    };
    if !inside(&file) {
        return Err(bad(
            "`file` is not a workspace-relative path inside the workspace".into(),
        ));
    }
    let chosen = usize::from(p.sha256.is_some())
        + usize::from(p.revisions.is_some())
        + usize::from(p.pins.is_some());
    if chosen != 1 {
        return Err(bad(
            "give exactly one of `sha256` (a plain pin), `revisions` or `pins` (pins per revision)"
                .into(),
        ));
    }
    let kind = if let Some(sha) = &p.sha256 {
        if p.key.is_some() || p.key_file.is_some() {
            return Err(bad(
                "`key`/`key_file` go with `revisions` or `pins`, not a plain `sha256`".into(),
            ));
        }
        let sha = sha.get_ref().to_ascii_lowercase();
        if !is_sha256(&sha) {
            return Err(bad(format!("`sha256 = \"{sha}\"` is not 64 hex digits")));
        }
        PinKind::Plain(sha)
    } else {
        let (Some(key), Some(key_file)) = (&p.key, &p.key_file) else {
            return Err(bad(
                "a pin per revision needs `key` (a regex) and `key_file`".into(),
            ));
        };
        let re = Regex::new(key.get_ref()).map_err(|e| {
            bad(format!(
                "`key` is not a regex: {}",
                e.to_string().replace('\n', " ")
            ))
        })?;
        if re.captures_len() != 2 {
            return Err(bad(format!(
                "`key` `{}` must have exactly one capture group (the revision), it has {}",
                key.get_ref(),
                re.captures_len() - 1
            )));
        }
        if !inside(key_file.get_ref()) {
            return Err(bad(
                "`key_file` is not a workspace-relative path inside the workspace".into(),
            ));
        }
        let table = if let Some(r) = &p.revisions {
            if let Some((rev, sha)) = r.get_ref().iter().find(|(_, s)| !is_sha256(s)) {
                return Err(bad(format!(
                    "revision {rev}'s pin `{sha}` is not 64 hex digits"
                )));
            }
            Table::Inline(
                r.get_ref()
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_ascii_lowercase()))
                    .collect(),
            )
        } else if let Some(j) = &p.pins {
            if !inside(j.get_ref()) {
                return Err(bad(
                    "`pins` is not a workspace-relative path inside the workspace".into(),
                ));
            }
            Table::Json(j.get_ref().clone())
        } else {
            return Err(bad("a keyed pin needs `revisions` or `pins`".into()));
        };
        PinKind::Keyed {
            key: re,
            key_file: key_file.get_ref().clone(),
            table,
        }
    };
    Ok(Pin {
        file,
        at,
        kind,
        why: p.why.clone(),
    })
}

/// Parses a JSON pins file (`{ "revision": "sha256", … }`); Err names the position.
pub fn parse_pins(rel: &str, bytes: &[u8]) -> Result<BTreeMap<String, String>, Error> {
    let v: serde_json::Value = serde_json::from_slice(bytes).map_err(|reason| Error::NotJson {
        rel: rel.to_string(),
        line: reason.line(),
        column: reason.column(),
        reason,
    })?;
    let obj = v.as_object().ok_or_else(|| Error::NotAnObject {
        rel: rel.to_string(),
    })?;
    let mut out = BTreeMap::new();
    for (k, v) in obj {
        match v.as_str().filter(|s| is_sha256(s)) {
            Some(s) => {
                out.insert(k.clone(), s.to_ascii_lowercase());
            }
            None => {
                return Err(Error::BadPin {
                    rel: rel.to_string(),
                    revision: k.clone(),
                })
            }
        }
    }
    Ok(out)
}

/// The findings of one pin: `file` is the pinned file's bytes, `key_text` the key file's (for a
/// keyed pin), `table` its pins (empty for a plain pin). Pure.
pub fn judge_pin(
    pin: &Pin,
    file: &[u8],
    key_text: &[u8],
    table: &BTreeMap<String, String>,
) -> Vec<Diag<Code>> {
    let now = digest(file);
    let why = pin
        .why
        .as_deref()
        .map(|w| format!(" ({w})"))
        .unwrap_or_default();
    let f = &pin.file;
    let d = match &pin.kind {
        PinKind::Plain(sha) if *sha == now => return Vec::new(),
        PinKind::Plain(sha) => Diag::error(
            Code::Gen008,
            format!(
                "`{f}` changed: its sha256 is {now} but it is pinned to {}: a deliberate change re-pins it in mgctl.toml{why}",
                short(sha)
            ),
        )
        .file(f.clone()),
        PinKind::Keyed { key, key_file, .. } => {
            let text = String::from_utf8_lossy(key_text);
            let Some(c) = key.captures(&text) else {
                return vec![Diag::error(
                    Code::Gen010,
                    format!(
                        "key `{}` matches nothing in `{key_file}`: no revision to check `{f}` against",
                        key.as_str()
                    ),
                )
                .in_config(pin.at)];
            };
            let (rev, start) = match c.get(1) {
                Some(m) => (m.as_str().to_string(), m.start()),
                None => (String::new(), c.get(0).map_or(0, |m| m.start())),
            };
            let line = u32::try_from(text[..start].matches('\n').count() + 1).unwrap_or(u32::MAX);
            match table.get(&rev) {
                Some(sha) if *sha == now => return Vec::new(),
                Some(sha) => Diag::error(
                    Code::Gen008,
                    format!(
                        "`{f}` changed but revision {rev} ({key_file}:{line}) still pins {}: bump the revision and pin the new hash {now} in {}{why}",
                        short(sha),
                        pin.table_label()
                    ),
                )
                .file(f.clone()),
                None => Diag::error(
                    Code::Gen009,
                    format!(
                        "revision {rev} has no pin in {}: pin `{f}`'s sha256 {now} for it{why}",
                        pin.table_label()
                    ),
                )
                .at(key_file.clone(), line, None),
            }
        }
    };
    vec![d.in_unit(f.clone())]
}

/// A pin's inputs as read from the workspace at `root`: the pinned file's bytes, the key file's
/// (empty for a plain pin) and the pins table (empty for a plain pin).
pub type PinInputs = (Vec<u8>, Vec<u8>, BTreeMap<String, String>);

/// Reads a pin's inputs; Err is the GEN007 finding.
pub fn read_pin(root: &Path, pin: &Pin) -> Result<PinInputs, Box<Diag<Code>>> {
    let read = |rel: &str| {
        diag::walk::read(&root.join(rel)).map_err(|e| {
            Box::new(
                Diag::error(Code::Gen007, format!("{rel}: cannot be read: {e}"))
                    .file(rel.to_string())
                    .in_unit(pin.file.clone()),
            )
        })
    };
    let file = read(&pin.file)?;
    match &pin.kind {
        PinKind::Plain(_) => Ok((file, Vec::new(), BTreeMap::new())),
        PinKind::Keyed {
            key_file, table, ..
        } => {
            let t = match table {
                Table::Inline(m) => m.clone(),
                Table::Json(rel) => parse_pins(rel, &read(rel)?).map_err(|e| {
                    Box::new(
                        Diag::error(Code::Gen007, e.to_string())
                            .file(rel.clone())
                            .in_unit(pin.file.clone()),
                    )
                })?,
            };
            Ok((file, read(key_file)?, t))
        }
    }
}

/// Reads a pin's inputs and judges it.
pub fn check_pin(root: &Path, pin: &Pin) -> Vec<Diag<Code>> {
    match read_pin(root, pin) {
        Ok((file, key, table)) => judge_pin(pin, &file, &key, &table),
        Err(d) => vec![*d],
    }
}

/// Runs every `[[generated]]` (each in its own throw-away copy) and checks every `[[pin]]` of the
/// workspace at `root`. A SIGINT/SIGTERM/SIGHUP kills the running generator's process group,
/// removes the copy and then ends the process as the signal would have.
pub fn check(root: &Path, gens: &[GeneratedConfig], pins: &[PinConfig]) -> Outcome<Code> {
    let start = Instant::now();
    let (specs, mut diags) = validate(gens);
    let mut units = Vec::new();
    let mut outputs = 0usize;
    let mut stale = 0usize;
    let signals = Signals::register();
    {
        let _core = NoCore::set();
        for g in &specs {
            units.push(g.name.clone());
            if let Some(sig) = signals.caught() {
                diags.push(
                    Diag::error(
                        Code::Gen005,
                        format!("mgctl was interrupted (signal {sig})"),
                    )
                    .in_unit(g.name.clone()),
                );
                continue;
            }
            match run_generator(root, g, signals.flag.clone()) {
                Ok((committed, run)) => {
                    let found = judge_outputs(g, &committed, &run);
                    let mut all: BTreeSet<&String> = committed.keys().collect();
                    all.extend(run.produced.keys());
                    outputs += all.len();
                    stale += found.iter().filter(|d| d.is_error()).count();
                    diags.extend(found);
                }
                Err(e) => diags.push(
                    Diag::error(
                        Code::Gen007,
                        format!("generator `{}` could not run: {e}", g.name),
                    )
                    .in_config(g.at)
                    .in_unit(g.name.clone()),
                ),
            }
        }
    }
    signals.reraise();
    let mut held = 0usize;
    for p in pins {
        match validate_pin(p) {
            Ok(pin) => {
                units.push(pin.file.clone());
                let found = check_pin(root, &pin);
                held += usize::from(found.is_empty());
                diags.extend(found);
            }
            Err(d) => diags.push(*d),
        }
    }
    let secs = start.elapsed().as_secs_f64();
    Outcome {
        diags,
        headline: format!(
            "{} generators / {outputs} outputs / {stale} stale or missing; {} pins / {held} hold ({secs:.1} s)",
            specs.len(),
            pins.len()
        ),
        figures: Vec::new(),
        units,
        inputs: Vec::new(),
    }
    .figure("generators", specs.len())
    .figure("outputs", outputs)
    .figure("pins", pins.len())
    .figure("pins_held", held)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn gen(outputs: &[&str]) -> Gen {
        Gen {
            name: "g".into(),
            at: 0,
            command: vec!["true".into()],
            outputs: outputs.iter().map(|o| Output::parse(o).unwrap()).collect(),
            timeout: Duration::from_secs(1),
        }
    }

    fn files(list: &[(&str, &str)]) -> BTreeMap<String, Vec<u8>> {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.as_bytes().to_vec()))
            .collect()
    }

    fn ok(produced: &[(&str, &str)]) -> GenRun {
        GenRun {
            result: RunResult {
                exit: Exit::Code(0),
                output: String::new(),
                ms: 0,
            },
            produced: files(produced),
        }
    }

    fn codes(d: &[Diag<Code>]) -> Vec<&'static str> {
        d.iter().map(|d| d.code.as_str()).collect()
    }

    #[test]
    fn first_difference_counts_lines_from_one() {
        assert_eq!(first_difference("a\nb\n", "a\nc\n"), 2);
        assert_eq!(first_difference("a\n", "a\nb\n"), 2);
        assert_eq!(first_difference("x", "y"), 1);
    }

    #[test]
    fn stale_output_names_the_first_differing_line_and_escapes_the_excerpt() {
        let g = gen(&["out/a.inc"]);
        let d = judge_outputs(
            &g,
            &files(&[("out/a.inc", "1\n2\n3\n")]),
            &ok(&[("out/a.inc", "1\n2\n\x1b[31mred\n")]),
        );
        assert_eq!(codes(&d), ["GEN001"]);
        assert_eq!(d[0].location.as_ref().unwrap().line, Some(3));
        assert!(d[0].message.contains("-3"), "{}", d[0].message);
        assert!(d[0].message.contains("+\\x1b[31mred"), "{}", d[0].message);
        assert!(!d[0].message.contains('\x1b'));
    }

    #[test]
    fn equal_outputs_are_clean_and_globs_compare_each_file() {
        let g = gen(&["out/**/*.inc"]);
        let same = files(&[("out/a.inc", "a\n"), ("out/x/b.inc", "b\n")]);
        let run = ok(&[("out/a.inc", "a\n"), ("out/x/b.inc", "b\n")]);
        assert!(judge_outputs(&g, &same, &run).is_empty());
        let d = judge_outputs(&g, &same, &ok(&[("out/a.inc", "a\n")]));
        assert_eq!(codes(&d), ["GEN004"]);
        assert!(d[0].message.contains("out/x/b.inc"));
        let d = judge_outputs(&g, &BTreeMap::new(), &ok(&[]));
        assert_eq!(codes(&d), ["GEN003"]);
    }

    #[test]
    fn a_named_output_not_written_is_red_and_a_failed_run_says_only_that() {
        let g = gen(&["a.inc"]);
        let d = judge_outputs(&g, &files(&[("a.inc", "x\n")]), &ok(&[]));
        assert_eq!(codes(&d), ["GEN002"]);
        let mut run = ok(&[]);
        run.result.exit = Exit::TimedOut;
        run.result.output = "one\ntwo\n".into();
        let d = judge_outputs(&g, &files(&[("a.inc", "x\n")]), &run);
        assert_eq!(codes(&d), ["GEN005"]);
        assert!(d[0].message.contains("timed out") && d[0].message.contains("two"));
    }

    #[test]
    fn outputs_outside_the_workspace_are_refused() {
        assert!(Output::parse("../x.inc").is_err());
        assert!(Output::parse("/etc/passwd").is_err());
        match Output::parse("a/b/*.inc").unwrap() {
            Output::Glob { base, .. } => assert_eq!(base, "a/b"),
            Output::File(_) => panic!("a glob"),
        }
    }

    #[test]
    fn digest_folds_crlf() {
        assert_eq!(digest(b"a\r\nb\r\n"), digest(b"a\nb\n"));
        assert_ne!(digest(b"a\rb"), digest(b"a\nb"));
        // sha256("") is well known
        assert_eq!(
            digest(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    fn pin_cfg(toml_text: &str) -> PinConfig {
        toml::from_str(toml_text).unwrap()
    }

    #[test]
    fn pin_validation_wants_exactly_one_source_and_one_group() {
        let two = pin_cfg("file = 'a'\nsha256 = 'x'\npins = 'p.json'\n");
        assert!(validate_pin(&two).is_err());
        let groups = pin_cfg("file = 'a'\nkey = '(R)(\\d+)'\nkey_file = 'h'\nrevisions = {}\n");
        let e = validate_pin(&groups).unwrap_err();
        assert!(e.message.contains("it has 2"), "{}", e.message);
        let short = pin_cfg("file = 'a'\nsha256 = 'abc'\n");
        assert!(validate_pin(&short).is_err());
    }

    #[test]
    fn keyed_pin_holds_mismatches_and_misses() {
        let h1 = digest(b"v1\n");
        let cfg = pin_cfg(&format!(
            "file = 's.fbs'\nkey = 'REV (\\d+)'\nkey_file = 'h'\nrevisions = {{ \"1\" = \"{h1}\" }}\n"
        ));
        let pin = validate_pin(&cfg).unwrap();
        let table = BTreeMap::from([("1".to_string(), h1.clone())]);
        assert!(judge_pin(&pin, b"v1\n", b"// x\nREV 1\n", &table).is_empty());
        let d = judge_pin(&pin, b"v2\n", b"// x\nREV 1\n", &table);
        assert_eq!(codes(&d), ["GEN008"]);
        assert!(d[0]
            .message
            .contains("changed but revision 1 (h:2) still pins"));
        let d = judge_pin(&pin, b"v2\n", b"REV 2\n", &table);
        assert_eq!(codes(&d), ["GEN009"]);
        let d = judge_pin(&pin, b"v1\n", b"REVISION 1\n", &table);
        assert_eq!(codes(&d), ["GEN010"]);
    }

    #[test]
    fn pins_json_is_upstreams_shape_and_bad_json_names_its_position() {
        let h = digest(b"x");
        let ok = parse_pins("p.json", format!("{{\n  \"1\": \"{h}\"\n}}\n").as_bytes()).unwrap();
        assert_eq!(ok.get("1"), Some(&h));
        let e = parse_pins("p.json", b"{\n  \"1\": \n").unwrap_err();
        assert!(e.to_string().starts_with("p.json:3:"), "{e}");
        assert!(parse_pins("p.json", b"{\"1\": 5}").is_err());
    }
}
