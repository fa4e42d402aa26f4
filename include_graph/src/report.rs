//! Renderers: DOT and JSON for the graph, upstream-shaped lines and JSON for the probe and
//! layering outcomes.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::{json, Value};

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
    let mut nodes = std::collections::BTreeSet::new();
    let mut edges = Vec::new();
    for n in 0..g.nodes.len() {
        if !under(g, n, dir) {
            continue;
        }
        nodes.insert(n);
        for (i, e) in g.out[n].iter().enumerate() {
            nodes.insert(e.to);
            edges.push((n, i));
        }
    }
    let mut nodes: Vec<NodeId> = nodes.into_iter().collect();
    nodes.sort_by(|a, b| g.rel(*a).cmp(g.rel(*b)));
    (nodes, edges)
}

fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// GraphViz: one node per file (external headers dashed), conditional includes dashed edges.
pub fn write_dot(g: &Graph, dir: Option<&str>, out: &mut dyn Write) -> io::Result<()> {
    let (nodes, edges) = selection(g, dir);
    writeln!(out, "digraph includes {{")?;
    writeln!(out, "  rankdir=LR;")?;
    writeln!(out, "  node [shape=box, fontsize=10];")?;
    for n in &nodes {
        let style = if g.nodes[*n].external {
            " style=dashed"
        } else {
            ""
        };
        writeln!(out, "  \"{}\" [{}];", dot_escape(g.rel(*n)), style.trim())?;
    }
    for (n, i) in edges {
        let e = g.out[n][i];
        let style = if e.conditional { ", style=dashed" } else { "" };
        writeln!(
            out,
            "  \"{}\" -> \"{}\" [label=\"{}\"{}];",
            dot_escape(g.rel(n)),
            dot_escape(g.rel(e.to)),
            e.line,
            style
        )?;
    }
    writeln!(out, "}}")
}

/// JSON (`"schema": 1`): files, edges (by path), unresolved includes and input issues.
pub fn graph_json(g: &Graph, dir: Option<&str>) -> Value {
    let (nodes, edges) = selection(g, dir);
    let files: Vec<Value> = nodes
        .iter()
        .map(|&n| json!({"path": g.rel(n), "external": g.nodes[n].external, "scanned": g.nodes[n].scanned}))
        .collect();
    let edges: Vec<Value> = edges
        .iter()
        .map(|&(n, i)| {
            let e = g.out[n][i];
            json!({"from": g.rel(n), "to": g.rel(e.to), "line": e.line, "kind": e.kind, "conditional": e.conditional})
        })
        .collect();
    let unresolved: Vec<Value> = g
        .unresolved
        .iter()
        .filter(|u| under(g, u.from, dir))
        .map(|u| json!({"from": g.rel(u.from), "line": u.line, "spelling": u.spelling, "reason": u.reason, "conditional": u.conditional}))
        .collect();
    let skipped: Vec<Value> = g
        .skipped
        .iter()
        .filter(|s| under(g, s.0, dir))
        .map(|(n, line, s)| json!({"from": g.rel(*n), "line": line, "spelling": s}))
        .collect();
    json!({
        "schema": 1,
        "root": g.root.display().to_string(),
        "under": dir,
        "files": files,
        "edges": edges,
        "unresolved": unresolved,
        "skipped_if0": skipped,
        "issues": g.issues,
    })
}

pub const PREFIX: &str = "include-closure: ";

/// The upstream `include-closure:` lines for one probe result (spec §2.6), chains with `:line`.
pub fn probe_lines(r: &ProbeResult, mode: &str, cxx: &str) -> Vec<String> {
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
            v.push(format!("{PREFIX}    {}{}", "  ".repeat(i), hop));
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
                msg.strip_prefix("include-closure ").unwrap_or(msg)
            ),
            ErrorStyle::Github => format!("::error::{msg}"),
        }
    }
}

/// The `include probes` report: upstream's `include-closure:` lines (spec §2.6) for an outcome.
pub fn probes_lines(o: &ProbesOutcome, style: ErrorStyle) -> Vec<String> {
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
            lines.extend(probe_lines(&r.text, "", ""));
            if o.require_all {
                lines.push(format!(
                    "{PREFIX}{name} SKIP is a failure under --require-all: {} does not exist",
                    r.probe.header
                ));
            }
            continue;
        }
        if o.mode != Mode::Compiler {
            lines.extend(probe_lines(&r.text, "text", "-"));
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
                lines.extend(probe_lines(cr, "compiler", cxx));
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

fn result_json(r: &ProbeResult, mode: &str) -> Value {
    json!({
        "probe": r.probe, "mode": mode, "status": r.status, "headers": r.headers, "forbidden": r.violations.len(),
        "violations": r.violations.iter().map(|v| &v.path).collect::<Vec<_>>(),
        "chains": r.violations, "text_problems": r.text_problems, "allowed": r.allowed,
    })
}

/// The `include probes --format json` document (`"schema": 1`), `lines` being the text report.
pub fn probes_json(o: &ProbesOutcome, lines: &[String]) -> Value {
    let mut results = Vec::new();
    for r in &o.results {
        let name = &r.probe.name;
        if r.text.status == Status::Skip {
            results.push(json!({"probe": name, "mode": o.mode.name(), "status": "SKIP", "headers": 0, "forbidden": 0}));
            continue;
        }
        if o.mode != Mode::Compiler {
            results.push(result_json(&r.text, "text"));
        }
        match &r.compiler {
            None => {}
            Some(CompilerSide::Ran(cr)) => results.push(result_json(cr, "compiler")),
            Some(_) => results.push(json!({"probe": name, "mode": "compiler", "status": "ERROR", "headers": 0, "forbidden": 0})),
        }
    }
    let comparisons: Vec<_> = o
        .results
        .iter()
        .filter_map(|r| r.comparison.as_ref())
        .collect();
    json!({
        "schema": 1,
        "modes": match o.mode { Mode::Text => vec!["text"], Mode::Compiler => vec!["compiler"], Mode::Both => vec!["text", "compiler"] },
        "results": results,
        "skipped": o.skipped(),
        "ran": o.ran(),
        "problems": o.problems(),
        "require_all": o.require_all,
        "expect_probes": o.expect_probes,
        "compiler": o.compiler,
        "flags": if o.compiler.is_some() { Some(&o.flags) } else { None },
        "comparisons": comparisons,
        "lines": lines,
    })
}

/// The `include rules` report lines.
pub fn layering_lines(o: &LayeringOutcome) -> Vec<String> {
    let rep = &o.report;
    let mut v = Vec::new();
    let chain = |v: &mut Vec<String>, hops: &[crate::query::Hop]| {
        for (i, h) in hops.iter().enumerate() {
            v.push(format!("    {}{h}", "  ".repeat(i)));
        }
    };
    for x in &rep.violations {
        let how = if x.transitive { "reaches" } else { "includes" };
        v.push(format!(
            "VIOLATION {} {how} {} (rule `{}` at {})",
            x.from, x.header, x.rule.text, x.rule.origin
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
            t.rule.origin
        ));
        chain(&mut v, &t.chain);
    }
    for s in &rep.stale {
        v.push(format!("STALE {} at {}: {}", s.what, s.origin, s.reason));
    }
    for s in &rep.gone {
        v.push(format!("gone: {} at {}: {}", s.what, s.origin, s.reason));
    }
    v.push(format!(
        "include-layering: {} layer(s), {} file(s) checked: {} violation(s), {} temporary use(s) ({} new), {} stale rule(s) -> {}",
        o.layers,
        rep.files_checked,
        rep.violations.len(),
        rep.temporary.len(),
        o.new_temporary(),
        rep.stale.len(),
        if o.passed() { "ok" } else { "FAIL" }
    ));
    v
}

/// The `include rules --format json` document (`"schema": 1`).
pub fn layering_json(o: &LayeringOutcome) -> Value {
    let rep = &o.report;
    json!({"schema": 1, "files_checked": rep.files_checked, "violations": rep.violations, "temporary": rep.temporary, "stale": rep.stale, "gone": rep.gone, "failed": !o.passed()})
}

/// The unresolved includes met on the way from `n`.
fn unresolved_from(g: &Graph, n: NodeId) -> Vec<&crate::graph::UnresolvedInclude> {
    let r = crate::query::reach(g, &[n], |_| true);
    g.unresolved.iter().filter(|u| r.reached(u.from)).collect()
}

/// The `include closure --format json` document (`"schema": 1`).
pub fn closure_json(g: &Graph, n: NodeId) -> Value {
    let entries = crate::query::closure(g, n);
    json!({
        "schema": 1,
        "file": g.rel(n),
        "closure": entries,
        "unresolved": unresolved_from(g, n).iter().map(|u| json!({"from": g.rel(u.from), "line": u.line, "spelling": u.spelling, "reason": u.reason})).collect::<Vec<_>>(),
    })
}

/// The `include closure` report: every reached file with its depth and tags, then the counts.
pub fn closure_lines(g: &Graph, n: NodeId) -> Vec<String> {
    let entries = crate::query::closure(g, n);
    let unresolved = unresolved_from(g, n);
    let mut v = vec![g.rel(n).to_string()];
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
        v.push(format!("{:>3}  {}{tags}", e.depth, e.path));
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
pub fn cycle_lines(g: &Graph, cs: &[crate::query::Cycle]) -> Vec<String> {
    let mut v: Vec<String> = cs
        .iter()
        .map(|c| {
            format!(
                "cycle of {} file(s): {}",
                c.files.len(),
                crate::query::chain_text(&c.witness)
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
    pub fn new(g: &'a Graph, from: NodeId, to: NodeId) -> Why<'a> {
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
    pub fn lines(&self) -> Vec<String> {
        if self.hops.is_empty() {
            return vec![format!("{} does not reach {}", self.from, self.to)];
        }
        let mut out: Vec<String> = self
            .hops
            .iter()
            .enumerate()
            .map(|(i, h)| {
                let arrow = if i == 0 { "" } else { "-> " };
                format!("{}{arrow}{h}", "  ".repeat(i))
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

/// A query's verdict (a chain exists, no cycle) and its output lines: the JSON document as one
/// "line" with `json`, else the text lines.
pub fn query(g: &Graph, q: Query<'_>, json: bool) -> serde_json::Result<(bool, Vec<String>)> {
    Ok(match q {
        Query::Why(from, to) => {
            let why = Why::new(g, from, to);
            match json {
                true => (why.reaches, vec![to_json(&why)?]),
                false => (why.reaches, why.lines()),
            }
        }
        Query::Closure(n) if json => (true, vec![to_json(&closure_json(g, n))?]),
        Query::Closure(n) => (true, closure_lines(g, n)),
        Query::Graph(under) => (true, vec![to_json(&graph_json(g, under))?]),
        Query::Cycles => {
            let cycles = crate::query::cycles(g);
            let lines = match json {
                true => vec![to_json(&Cycles {
                    cycles: &cycles,
                    schema: 1,
                })?],
                false => cycle_lines(g, &cycles),
            };
            (cycles.is_empty(), lines)
        }
    })
}

/// `include probes`: the verdict and the lines (a note when `--compiler` was given to text
/// mode, then the report proper), or with `json` the JSON document carrying them.
pub fn probes_output(
    o: &ProbesOutcome,
    style: ErrorStyle,
    unused_compiler: Option<&str>,
    json: bool,
) -> serde_json::Result<(bool, Vec<String>)> {
    let mut lines: Vec<String> = unused_compiler
        .map(|c| format!("{PREFIX}compiler {c} resolved but mode `text` does not use it"))
        .into_iter()
        .collect();
    lines.extend(probes_lines(o, style));
    if json {
        lines = vec![to_json(&probes_json(o, &lines))?];
    }
    Ok((o.passed(), lines))
}

/// `include rules`: the verdict and the lines, or with `json` the JSON document.
pub fn layering_output(o: &LayeringOutcome, json: bool) -> serde_json::Result<(bool, Vec<String>)> {
    let lines = match json {
        true => vec![to_json(&layering_json(o))?],
        false => layering_lines(o),
    };
    Ok((o.passed(), lines))
}
