//! Renderers: DOT and JSON for the graph, upstream-shaped lines for probes.

use std::io::{self, Write};

use serde_json::{json, Value};

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
