//! Renderers: DOT and JSON for the graph, upstream-shaped lines and JSON for the probe and
//! layering outcomes.

use std::io::{self, Write};

use serde::Serialize;

use crate::analysis::{CompilerSide, LayeringOutcome, Mode, ProbesOutcome};
use crate::graph::{Graph, NodeId};
use crate::probe::{ProbeResult, Status};

fn under(g: &Graph, n: NodeId, dir: Option<&str>) -> bool {
    match dir.map(|d| d.trim_end_matches('/')) {
        None | Some("") => true,
        Some(d) => {
            let r = g.rel(n);
            r == d || (r.starts_with(d) && r.as_bytes().get(d.len()) == Some(&b'/'))
        }
    }
}

/// Edges whose including file lies under `dir` (all edges when None), and the nodes they touch.
fn selection(g: &Graph, dir: Option<&str>) -> (Vec<NodeId>, Vec<(NodeId, usize)>) {
    // A mark per node, not a set: the ids are dense, and they are sorted by name below anyway.
    let mut picked = vec![false; g.nodes.len()];
    let mut edges = Vec::new();
    for n in 0..g.nodes.len() {
        if !under(g, n, dir) {
            continue;
        }
        picked[n] = true;
        for (i, e) in g.out[n].iter().enumerate() {
            picked[e.to] = true;
            edges.push((n, i));
        }
    }
    let mut nodes: Vec<NodeId> = (0..g.nodes.len()).filter(|&n| picked[n]).collect();
    nodes.sort_by(|a, b| g.rel(*a).cmp(g.rel(*b)));
    (nodes, edges)
}

fn dot_escape(s: &str) -> std::borrow::Cow<'_, str> {
    // Almost no path holds either character: borrow instead of two copies per name.
    if !s.bytes().any(|c| c == b'\\' || c == b'"') {
        return std::borrow::Cow::Borrowed(s);
    }
    std::borrow::Cow::Owned(s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// GraphViz: one node per file (external headers dashed), conditional includes dashed edges.
/// Built in one buffer and written once: a large graph is thousands of lines.
pub fn write_dot(g: &Graph, dir: Option<&str>, out: &mut dyn Write) -> io::Result<()> {
    use std::fmt::Write as _;
    let (nodes, edges) = selection(g, dir);
    // Each name is escaped once, not once per edge end: a node has four edge ends on average.
    let names: Vec<_> = (0..g.nodes.len()).map(|n| dot_escape(g.rel(n))).collect();
    let mut b = String::with_capacity(48 * nodes.len() + 96 * edges.len() + 80);
    b.push_str("digraph includes {\n  rankdir=LR;\n  node [shape=box, fontsize=10];\n");
    for n in &nodes {
        b.push_str("  \"");
        b.push_str(&names[*n]);
        b.push_str(if g.nodes[*n].external {
            "\" [style=dashed];\n"
        } else {
            "\" [];\n"
        });
    }
    for (n, i) in edges {
        let e = g.out[n][i];
        b.push_str("  \"");
        b.push_str(&names[n]);
        b.push_str("\" -> \"");
        b.push_str(&names[e.to]);
        b.push_str("\" [label=\"");
        let _ = write!(b, "{}", e.line); // a String takes every write
        b.push_str(if e.conditional {
            "\", style=dashed];\n"
        } else {
            "\"];\n"
        });
    }
    b.push_str("}\n");
    out.write_all(b.as_bytes())
}

/// A graph node in the JSON documents.
#[derive(Serialize)]
struct FileJson<'a> {
    path: &'a str,
    external: bool,
    scanned: bool,
}

#[derive(Serialize)]
struct EdgeJson<'a> {
    from: &'a str,
    to: &'a str,
    line: u32,
    kind: crate::lex::IncludeKind,
    conditional: bool,
}

/// An unresolved include (`conditional` only in the graph document) or, with `reason` and
/// `conditional` both absent, an include skipped by `#if 0`.
#[derive(Serialize)]
struct UnresolvedJson<'a> {
    from: &'a str,
    line: u32,
    spelling: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<crate::graph::Unresolvable>,
    #[serde(skip_serializing_if = "Option::is_none")]
    conditional: Option<bool>,
}

/// `include graph --format json`.
#[derive(Serialize)]
struct GraphJson<'a> {
    schema: u32,
    root: String,
    under: Option<&'a str>,
    files: Vec<FileJson<'a>>,
    edges: Vec<EdgeJson<'a>>,
    unresolved: Vec<UnresolvedJson<'a>>,
    skipped_if0: Vec<UnresolvedJson<'a>>,
    issues: &'a [crate::graph::Issue],
}

/// JSON (`"schema": 1`): files, edges (by path), unresolved includes and input issues.
fn graph_json<'a>(g: &'a Graph, dir: Option<&'a str>) -> GraphJson<'a> {
    let (nodes, edges) = selection(g, dir);
    let files = nodes
        .iter()
        .map(|&n| FileJson {
            path: g.rel(n),
            external: g.nodes[n].external,
            scanned: g.nodes[n].scanned,
        })
        .collect();
    let edges = edges
        .iter()
        .map(|&(n, i)| {
            let e = g.out[n][i];
            EdgeJson {
                from: g.rel(n),
                to: g.rel(e.to),
                line: e.line,
                kind: e.kind,
                conditional: e.conditional,
            }
        })
        .collect();
    let unresolved = g
        .unresolved
        .iter()
        .filter(|u| under(g, u.from, dir))
        .map(|u| UnresolvedJson {
            from: g.rel(u.from),
            line: u.line,
            spelling: &u.spelling,
            reason: Some(u.reason),
            conditional: Some(u.conditional),
        })
        .collect();
    let skipped_if0 = g
        .skipped
        .iter()
        .filter(|s| under(g, s.0, dir))
        .map(|(n, line, s)| UnresolvedJson {
            from: g.rel(*n),
            line: *line,
            spelling: s,
            reason: None,
            conditional: None,
        })
        .collect();
    GraphJson {
        schema: 1,
        root: g.root.display().to_string(),
        under: dir,
        files,
        edges,
        unresolved,
        skipped_if0,
        issues: &g.issues,
    }
}

pub const PREFIX: &str = "include-closure: ";

/// The upstream `include-closure:` lines for one probe result (spec §2.6), chains with `:line`.
pub fn probe_lines(r: &ProbeResult, mode: &str, cxx: &str, shown: &diag::Shown) -> Vec<String> {
    let mut v = Vec::new();
    if r.status == Status::Skip {
        v.push(format!(
            "{PREFIX}{} SKIP  header not present yet: {}",
            r.probe, r.header
        ));
        return v;
    }
    v.push(format!(
        "{PREFIX}{} {} {} headers in closure, {} forbidden (mode={mode}, cxx={cxx})",
        r.probe,
        r.status,
        r.headers,
        r.violations.len()
    ));
    for (path, why) in &r.allowed {
        v.push(format!("{PREFIX}    ALLOW {path} - {why}"));
    }
    for viol in &r.violations {
        v.push(format!(
            "{PREFIX}    forbidden: {} (rule {}) reached by:",
            viol.path, viol.rule
        ));
        for (i, hop) in viol.chain.iter().enumerate() {
            v.push(format!(
                "{PREFIX}    {}{}",
                "  ".repeat(i),
                hop.shown(shown)
            ));
        }
    }
    for t in &r.text_problems {
        v.push(format!("{PREFIX}    text limit: {t}"));
    }
    v
}

/// How error lines of the probe report are marked: upstream's GitHub annotations
/// (`::error::…`), or plain text for a terminal (`include-closure: error: …`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorStyle {
    Plain,
    Github,
}

impl ErrorStyle {
    fn line(self, msg: &str) -> String {
        match self {
            ErrorStyle::Plain => format!(
                "{PREFIX}error: {}",
                diag::escape::terminal(msg.strip_prefix("include-closure ").unwrap_or(msg))
            ),
            // A workflow command: its message on one line, `%` and line breaks encoded.
            ErrorStyle::Github => format!(
                "::error::{}",
                diag::escape::workflow_data(&diag::escape::terminal(msg))
            ),
        }
    }
}

/// The `include probes` report: upstream's `include-closure:` lines (spec §2.6) for an outcome.
pub fn probes_lines(o: &ProbesOutcome, style: ErrorStyle, shown: &diag::Shown) -> Vec<String> {
    let mut lines = Vec::new();
    let cxx = o.compiler.as_deref().unwrap_or("-");
    if let Some(c) = &o.compiler {
        lines.push(format!("{PREFIX}compiler: {c}"));
    }
    if let (Some(f), Some(_)) = (&o.flags_from, &o.compiler) {
        lines.push(format!(
            "{PREFIX}flags from {} ({} tokens), cwd={}",
            f.file.display(),
            f.tokens,
            f.cwd.display()
        ));
    }
    if let Some(p) = &o.setup_problem {
        lines.push(style.line(p));
    }
    for p in &o.missing_required {
        lines.push(format!(
            "{PREFIX}{} is required under --require-all but its header does not exist: {}",
            p.name, p.header
        ));
    }
    let mut chains = false;
    for r in &o.results {
        let name = &r.probe.name;
        if r.text.status == Status::Skip {
            lines.extend(probe_lines(&r.text, "", "", shown));
            if o.require_all {
                lines.push(format!(
                    "{PREFIX}{name} SKIP is a failure under --require-all: {} does not exist",
                    r.probe.header
                ));
            }
            continue;
        }
        if o.mode != Mode::Compiler {
            lines.extend(probe_lines(&r.text, "text", "-", shown));
            chains |= !r.text.violations.is_empty();
        }
        match &r.compiler {
            None => {}
            Some(CompilerSide::NotRun(e)) => lines.push(style.line(&format!("{name}: {e}"))),
            Some(CompilerSide::Failed { diagnostics }) => lines.push(style.line(&format!(
                "{name} preprocessing failed: {}",
                diagnostics.join(" | ")
            ))),
            Some(CompilerSide::Ran(cr)) => {
                lines.extend(probe_lines(cr, "compiler", cxx, shown));
                chains |= !cr.violations.is_empty();
            }
        }
        if o.mode != Mode::Both || r.compiler.is_none() {
            continue;
        }
        // Agreement is claimed only when both sides produced a closure.
        let Some(cmp) = &r.comparison else {
            lines.push(format!(
                "{PREFIX}{name} modes not compared: the compiler side failed"
            ));
            continue;
        };
        for d in &cmp.differences {
            let side = if d.static_only {
                "static only"
            } else {
                "compiler only"
            };
            let tag = if d.explanation.explained() {
                "explained"
            } else {
                "UNEXPLAINED"
            };
            lines.push(format!(
                "{PREFIX}    {tag} difference ({side}): {} - {}",
                d.path, d.explanation
            ));
        }
        if cmp.unexplained() > 0 {
            lines.push(format!(
                "{PREFIX}{name} MODE DISAGREEMENT - {} unexplained difference(s) between the static graph and {cxx}",
                cmp.unexplained()
            ));
        } else {
            lines.push(format!(
                "{PREFIX}{name} modes agree: {} static / {} compiler files in the workspace, {} explained difference(s)",
                cmp.static_files,
                cmp.compiler_files,
                cmp.differences.len()
            ));
        }
    }
    if let Some((n, m)) = o.expect_mismatch() {
        lines.push(style.line(&format!("expected {n} probe(s), ran {m}")));
    }
    let problems = o.problems();
    lines.push(format!(
        "{PREFIX}{} probes, {} skipped, {problems} problem(s)",
        o.selected(),
        o.skipped()
    ));
    if problems > 0 {
        let tail = if chains {
            "; see the chains above"
        } else {
            "; see the lines above"
        };
        lines.push(style.line(&format!(
            "include-closure gate failed: {problems} problem(s){tail}"
        )));
    }
    lines
}

/// One side of one probe in the probes document; a SKIP or a failed compiler run has only
/// the counts.
#[derive(Serialize)]
struct ResultJson<'a> {
    probe: &'a str,
    mode: &'a str,
    /// `OK`, `FORBIDDEN`, `SKIP`, or `ERROR` for a compiler run that failed.
    status: String,
    headers: usize,
    forbidden: usize,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    ran: Option<RanJson<'a>>,
}

#[derive(Serialize)]
struct RanJson<'a> {
    violations: Vec<&'a str>,
    chains: &'a [crate::probe::ProbeViolation],
    text_problems: &'a [String],
    allowed: &'a [(String, String)],
}

fn result_json<'a>(r: &'a ProbeResult, mode: &'a str) -> ResultJson<'a> {
    ResultJson {
        probe: &r.probe,
        mode,
        status: r.status.to_string(),
        headers: r.headers,
        forbidden: r.violations.len(),
        ran: Some(RanJson {
            violations: r.violations.iter().map(|v| v.path.as_str()).collect(),
            chains: &r.violations,
            text_problems: &r.text_problems,
            allowed: &r.allowed,
        }),
    }
}

/// `include probes --format json`.
#[derive(Serialize)]
struct ProbesJson<'a> {
    schema: u32,
    modes: &'static [&'static str],
    results: Vec<ResultJson<'a>>,
    skipped: usize,
    ran: usize,
    problems: usize,
    require_all: bool,
    expect_probes: Option<usize>,
    compiler: Option<&'a str>,
    flags: Option<&'a [String]>,
    comparisons: Vec<&'a crate::compiler::Comparison>,
    lines: &'a [String],
}

/// The `include probes --format json` document (`"schema": 1`), `lines` being the text report.
fn probes_json<'a>(o: &'a ProbesOutcome, lines: &'a [String]) -> ProbesJson<'a> {
    let mut results = Vec::new();
    let counts_only = |probe: &'a str, mode: &'a str, status: &str| ResultJson {
        probe,
        mode,
        status: status.to_string(),
        headers: 0,
        forbidden: 0,
        ran: None,
    };
    for r in &o.results {
        let name = &r.probe.name;
        if r.text.status == Status::Skip {
            results.push(counts_only(name, o.mode.name(), "SKIP"));
            continue;
        }
        if o.mode != Mode::Compiler {
            results.push(result_json(&r.text, "text"));
        }
        match &r.compiler {
            None => {}
            Some(CompilerSide::Ran(cr)) => results.push(result_json(cr, "compiler")),
            Some(_) => results.push(counts_only(name, "compiler", "ERROR")),
        }
    }
    ProbesJson {
        schema: 1,
        modes: match o.mode {
            Mode::Text => &["text"],
            Mode::Compiler => &["compiler"],
            Mode::Both => &["text", "compiler"],
        },
        results,
        skipped: o.skipped(),
        ran: o.ran(),
        problems: o.problems(),
        require_all: o.require_all,
        expect_probes: o.expect_probes,
        compiler: o.compiler.as_deref(),
        flags: o.compiler.is_some().then_some(o.flags.as_slice()),
        comparisons: o
            .results
            .iter()
            .filter_map(|r| r.comparison.as_ref())
            .collect(),
        lines,
    }
}

/// The `include rules` report lines.
pub fn layering_lines(o: &LayeringOutcome, passed: bool, shown: &diag::Shown) -> Vec<String> {
    let rep = &o.report;
    let mut v = Vec::new();
    let origin = |o: &crate::rules::Origin| shown.at(&o.file, o.line);
    let chain = |v: &mut Vec<String>, hops: &[crate::query::Hop]| {
        for (i, h) in hops.iter().enumerate() {
            v.push(format!("    {}{}", "  ".repeat(i), h.shown(shown)));
        }
    };
    for x in &rep.violations {
        let how = if x.transitive { "reaches" } else { "includes" };
        v.push(format!(
            "VIOLATION {} {how} {} (rule `{}` at {})",
            x.from,
            x.header,
            x.rule.text,
            origin(&x.rule.origin)
        ));
        chain(&mut v, &x.chain);
        if x.also > 0 {
            v.push(format!(
                "    … and {} more header(s) under the same rule",
                x.also
            ));
        }
    }
    for t in &rep.temporary {
        let what = if t.known {
            "temporary (known)"
        } else {
            "NEW temporary use"
        };
        v.push(format!(
            "{what}: {} (rule `{}` at {})",
            t.key(),
            t.rule.text,
            origin(&t.rule.origin)
        ));
        chain(&mut v, &t.chain);
    }
    for s in &rep.stale {
        v.push(format!(
            "STALE {} at {}: {}",
            s.what,
            origin(&s.origin),
            s.reason
        ));
    }
    for s in &rep.gone {
        v.push(format!(
            "gone: {} at {}: {}",
            s.what,
            origin(&s.origin),
            s.reason
        ));
    }
    v.push(format!(
        "include-layering: {} layer(s), {} file(s) checked: {} violation(s), {} temporary use(s) ({} new), {} stale rule(s) -> {}",
        o.layers,
        rep.files_checked,
        rep.violations.len(),
        rep.temporary.len(),
        o.new_temporary(),
        rep.stale.len(),
        if passed { "ok" } else { "FAIL" }
    ));
    v
}

/// The `include rules --format json` document (`"schema": 1`).
#[derive(Serialize)]
struct LayeringJson<'a> {
    schema: u32,
    #[serde(flatten)]
    report: &'a crate::rules::LayeringReport,
    failed: bool,
}

/// The unresolved includes met on the way from `n`.
fn unresolved_from(g: &Graph, n: NodeId) -> Vec<&crate::graph::UnresolvedInclude> {
    let r = crate::query::reach(g, &[n], |_| true);
    g.unresolved.iter().filter(|u| r.reached(u.from)).collect()
}

/// `include closure --format json`.
#[derive(Serialize)]
struct ClosureJson<'a> {
    schema: u32,
    file: &'a str,
    closure: Vec<crate::query::ClosureEntry>,
    unresolved: Vec<UnresolvedJson<'a>>,
}

/// The `include closure --format json` document (`"schema": 1`).
fn closure_json(g: &Graph, n: NodeId) -> ClosureJson<'_> {
    let unresolved = unresolved_from(g, n)
        .iter()
        .map(|u| UnresolvedJson {
            from: g.rel(u.from),
            line: u.line,
            spelling: &u.spelling,
            reason: Some(u.reason),
            conditional: None,
        })
        .collect();
    ClosureJson {
        schema: 1,
        file: g.rel(n),
        closure: crate::query::closure(g, n),
        unresolved,
    }
}

/// The `include closure` report: every reached file with its depth and tags, then the counts.
pub fn closure_lines(g: &Graph, n: NodeId, shown: &diag::Shown) -> Vec<String> {
    let entries = crate::query::closure(g, n);
    let unresolved = unresolved_from(g, n);
    let mut v = vec![shown.path(g.rel(n))];
    for e in &entries {
        let mut tags = Vec::new();
        if e.external {
            tags.push("external");
        }
        if e.conditional {
            tags.push("conditional");
        }
        let tags = if tags.is_empty() {
            String::new()
        } else {
            format!("  [{}]", tags.join(", "))
        };
        let path = if e.external {
            e.path.clone()
        } else {
            shown.path(&e.path)
        };
        v.push(format!("{:>3}  {path}{tags}", e.depth));
    }
    let ext = entries.iter().filter(|e| e.external).count();
    let cond = entries.iter().filter(|e| e.conditional).count();
    let computed = unresolved
        .iter()
        .filter(|u| u.reason != crate::graph::Unresolvable::NotFound)
        .count();
    v.push(format!(
        "{} file(s) reached ({ext} external, {cond} only through conditional includes); {} include(s) unresolved ({computed} computed or #include_next)",
        entries.len(),
        unresolved.len()
    ));
    v
}

/// The `include cycles` report.
pub fn cycle_lines(g: &Graph, cs: &[crate::query::Cycle], shown: &diag::Shown) -> Vec<String> {
    let mut v: Vec<String> = cs
        .iter()
        .map(|c| {
            format!(
                "cycle of {} file(s): {}",
                c.files.len(),
                crate::query::chain_shown(&c.witness, shown)
            )
        })
        .collect();
    v.push(format!(
        "{} cycle(s) among {} files",
        cs.len(),
        g.scanned_count()
    ));
    v
}

/// Pretty JSON of a report, keys sorted at every level (through `Value`), as every JSON output
/// of `mgctl include` has always been.
pub fn to_json<T: Serialize>(v: &T) -> serde_json::Result<String> {
    serde_json::to_string_pretty(&serde_json::to_value(v)?)
}

/// `include why`: the shortest chain from one file to another.
#[derive(Debug, Clone, Serialize)]
struct Why<'a> {
    pub from: &'a str,
    pub hops: Vec<crate::query::Hop>,
    pub reaches: bool,
    pub schema: u32,
    pub to: &'a str,
}

impl<'a> Why<'a> {
    pub(crate) fn new(g: &'a Graph, from: NodeId, to: NodeId) -> Why<'a> {
        let hops = crate::query::why(g, from, to);
        Why {
            from: g.rel(from),
            reaches: !hops.is_empty(),
            hops,
            schema: 1,
            to: g.rel(to),
        }
    }

    /// One hop per line, indented, then the hop count; or the one "does not reach" line.
    pub(crate) fn lines(&self, shown: &diag::Shown) -> Vec<String> {
        if self.hops.is_empty() {
            return vec![format!("{} does not reach {}", self.from, self.to)];
        }
        let mut out: Vec<String> = self
            .hops
            .iter()
            .enumerate()
            .map(|(i, h)| {
                let arrow = if i == 0 { "" } else { "-> " };
                format!("{}{arrow}{}", "  ".repeat(i), h.shown(shown))
            })
            .collect();
        out.push(format!("{} hop(s), shortest chain", self.hops.len() - 1));
        out
    }
}

/// `include cycles --format json`.
#[derive(Debug, Clone, Serialize)]
struct Cycles<'a> {
    pub cycles: &'a [crate::query::Cycle],
    pub schema: u32,
}

/// A query of `mgctl include` over the graph.
#[derive(Debug, Clone, Copy)]
pub enum Query<'a> {
    /// The shortest chain from one file to another.
    Why(NodeId, NodeId),
    Closure(NodeId),
    /// The graph as JSON (DOT is [`write_dot`]), optionally under a directory.
    Graph(Option<&'a str>),
    Cycles,
}

/// Text lines made inert for a terminal and a GitHub log (issue 29): a file name holding a newline,
/// an escape sequence or a leading `::` is one visible line, never a second line or a command.
fn inert(lines: Vec<String>) -> Vec<String> {
    lines.iter().map(|l| diag::escape::line(l)).collect()
}

/// A query's verdict (a chain exists, no cycle) and its output lines: the JSON document as one
/// "line" with `json`, else the text lines (escaped as [`diag::escape::line`]).
pub fn query(
    g: &Graph,
    q: Query<'_>,
    json: bool,
    shown: &diag::Shown,
) -> serde_json::Result<(bool, Vec<String>)> {
    let (pass, lines) = query_raw(g, q, json, shown)?;
    Ok((pass, if json { lines } else { inert(lines) }))
}

fn query_raw(
    g: &Graph,
    q: Query<'_>,
    json: bool,
    shown: &diag::Shown,
) -> serde_json::Result<(bool, Vec<String>)> {
    Ok(match q {
        Query::Why(from, to) => {
            let why = Why::new(g, from, to);
            match json {
                true => (why.reaches, vec![to_json(&why)?]),
                false => (why.reaches, why.lines(shown)),
            }
        }
        Query::Closure(n) if json => (true, vec![to_json(&closure_json(g, n))?]),
        Query::Closure(n) => (true, closure_lines(g, n, shown)),
        Query::Graph(under) => (true, vec![to_json(&graph_json(g, under))?]),
        Query::Cycles => {
            let cycles = crate::query::cycles(g);
            let lines = match json {
                true => vec![to_json(&Cycles {
                    cycles: &cycles,
                    schema: 1,
                })?],
                false => cycle_lines(g, &cycles, shown),
            };
            (cycles.is_empty(), lines)
        }
    })
}

/// `include probes`: the verdict and the lines (a note when `--compiler` was given to text
/// mode, then the report proper), or with `json` the JSON document carrying them.
pub fn probes_output(
    o: &ProbesOutcome,
    g: &Graph,
    style: ErrorStyle,
    unused_compiler: Option<&str>,
    json: bool,
    shown: &diag::Shown,
) -> serde_json::Result<(bool, Vec<String>)> {
    let mut lines: Vec<String> = unused_compiler
        .map(|c| format!("{PREFIX}compiler {c} resolved but mode `text` does not use it"))
        .into_iter()
        .collect();
    lines.extend(probes_lines(o, style, shown));
    lines.extend(graph_error_lines(g, false, shown, |m| style.line(m)));
    if json {
        lines = vec![to_json(&probes_json(o, &lines))?];
    }
    Ok((o.passed(g), lines))
}

/// `include rules`: the verdict and the lines, or with `json` the JSON document.
pub fn layering_output(
    o: &LayeringOutcome,
    g: &Graph,
    json: bool,
    shown: &diag::Shown,
) -> serde_json::Result<(bool, Vec<String>)> {
    let passed = o.passed(g);
    let lines = match json {
        true => vec![to_json(&LayeringJson {
            schema: 1,
            report: &o.report,
            failed: !passed,
        })?],
        false => {
            let mut v = inert(layering_lines(o, passed, shown));
            v.extend(graph_error_lines(g, true, shown, |m| {
                format!("include-layering: error: {m}")
            }));
            v
        }
    };
    Ok((passed, lines))
}

/// The graph's input problems that fail a probe or rules run (an unreadable or dangling file, …),
/// one escaped line each, so the command shows why it failed exactly as the gate does.
fn graph_error_lines(
    g: &Graph,
    computed: bool,
    shown: &diag::Shown,
    line: impl Fn(&str) -> String,
) -> Vec<String> {
    crate::analysis::graph_diagnostics(g, computed)
        .into_iter()
        .filter(|d| d.is_error())
        .map(|d| {
            let at = d
                .location
                .as_ref()
                .map(|l| format!("{}: ", shown.location(l)))
                .unwrap_or_default();
            line(&diag::escape::terminal(&format!(
                "{} {at}{}",
                d.code, d.message
            )))
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::{dot_escape, under, write_dot};
    use crate::graph::{tests::tree, Graph, GraphOptions};

    /// The DOT document as written before names were escaped once per node and the selection
    /// was a mark per node: a set of the touched nodes, each name escaped where it is printed.
    fn dot_by_set(g: &Graph, dir: Option<&str>) -> String {
        // Escaped independently of `dot_escape` (the code under test): DOT's quoted-string rule.
        let quoted = |s: &str| {
            let mut o = String::new();
            for c in s.chars() {
                if c == '"' || c == '\\' {
                    o.push('\\');
                }
                o.push(c);
            }
            o
        };
        let mut nodes = std::collections::BTreeSet::new();
        let mut edges = Vec::new();
        for n in 0..g.nodes.len() {
            if under(g, n, dir) {
                nodes.insert(n);
                for (i, e) in g.out[n].iter().enumerate() {
                    nodes.insert(e.to);
                    edges.push((n, i));
                }
            }
        }
        let mut nodes: Vec<usize> = nodes.into_iter().collect();
        nodes.sort_by(|a, b| g.rel(*a).cmp(g.rel(*b)));
        let mut s =
            "digraph includes {\n  rankdir=LR;\n  node [shape=box, fontsize=10];\n".to_string();
        for n in nodes {
            let style = if g.nodes[n].external {
                "style=dashed"
            } else {
                ""
            };
            s += &format!("  \"{}\" [{style}];\n", quoted(g.rel(n)));
        }
        for (n, i) in edges {
            let e = g.out[n][i];
            let style = if e.conditional { ", style=dashed" } else { "" };
            s += &format!(
                "  \"{}\" -> \"{}\" [label=\"{}\"{style}];\n",
                quoted(g.rel(n)),
                quoted(g.rel(e.to)),
                e.line
            );
        }
        s + "}\n"
    }

    #[test]
    fn dot_names_escaped_once_per_node_are_the_same_document() {
        let ext = tree(&[("e/ext.h", "")]);
        let d = tree(&[
            (
                "src/a.cpp",
                "#include \"b.h\"\n#ifdef X\n#include <q\"x.h>\n#endif\n#include <ext.h>\n",
            ),
            ("src/b.h", "#include \"c\\d.h\"\n#include \"../top.h\"\n"),
            ("src/c\\d.h", "#include \"b.h\"\n"),
            ("q\"x.h", "#include \"src/b.h\"\n"),
            ("top.h", ""),
            ("srcx/z.h", "#include \"../src/b.h\"\n"),
        ]);
        let mut o = GraphOptions::new(d.path());
        o.search.user.push(ext.path().join("e"));
        o.search.user.push(d.path().to_path_buf());
        let g = Graph::build(&o).unwrap();
        assert!(g.nodes.iter().any(|n| n.external) && g.edge_count() >= 6);
        let to_escaped =
            (0..g.nodes.len()).any(|n| g.out[n].iter().any(|e| g.rel(e.to).contains('"')));
        assert!(to_escaped, "an edge ends at a name that needs escaping");
        for dir in [
            None,
            Some(""),
            Some("src"),
            Some("src/"),
            Some("srcx"),
            Some("q\"x.h"),
            Some("nope"),
        ] {
            let mut out = Vec::new();
            write_dot(&g, dir, &mut out).unwrap();
            assert_eq!(
                String::from_utf8(out).unwrap(),
                dot_by_set(&g, dir),
                "{dir:?}"
            );
        }
    }

    #[test]
    fn dot_escape_quotes_and_backslashes_only() {
        assert_eq!(dot_escape("a/b.h"), "a/b.h");
        assert_eq!(dot_escape("a\"b\\c.h"), "a\\\"b\\\\c.h");
        assert!(matches!(dot_escape("x.h"), std::borrow::Cow::Borrowed(_)));
    }

    /// A probe's error line cannot become a second workflow command or act on a terminal.
    #[test]
    fn error_lines_are_inert_in_both_styles() {
        use crate::report::{ErrorStyle, PREFIX};
        let msg = "x%\n::error file=README.md::forged\u{1b}[2J";
        assert_eq!(
            ErrorStyle::Github.line(msg),
            "::error::x%25\\n::error file=README.md::forged\\x1b[2J"
        );
        assert_eq!(
            ErrorStyle::Plain.line(msg),
            format!("{PREFIX}error: x%\\n::error file=README.md::forged\\x1b[2J")
        );
    }
}
