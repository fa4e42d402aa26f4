//! Renderers: upstream's report lines (widths `%-44s`, `%5d`, `%-42s`), the one-line summary,
//! the call-graph and "differs" sections, `--check` output, and JSON (`"schema": 1`).

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::Serialize;

use crate::audit::CheckRun;
use crate::check::red_line;
use crate::def::Def;
use crate::surface::{Mode, Surface};

const P: &str = "dirty-surface:";

/// Mutator → answer as spelled in the def (last row wins).
pub fn answers(def: &Def, mode: Mode) -> BTreeMap<String, String> {
    def.map(mode == Mode::Upstream)
        .into_iter()
        .map(|(k, r)| (k.to_string(), r.answer.clone()))
        .collect()
}

fn answer<'a>(answers: &'a BTreeMap<String, String>, m: &str) -> &'a str {
    answers.get(m).map_or("UNMAPPED", String::as_str)
}

/// The one-line summary the docs quote.
pub fn summary_line(s: &Surface) -> String {
    let c = s.counts();
    format!(
        "{} files / {} mutator calls / {} distinct mutators / {} in {} IMMEDIATE PUBLISH POINTS across {} distinct mutators / {} DEFERRED",
        c.files, c.calls, c.distinct, c.immediate_calls, c.points, c.immediate_distinct, c.deferred
    )
}

pub struct TextOptions {
    pub summary: bool,
}

/// The first four backend names, as upstream prints them.
fn first4(names: &[String]) -> String {
    names
        .iter()
        .take(4)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Upstream's per-file listing: a blank line and the path per file, a head line per function,
/// then `      %-44s :%d  %s` per call.
fn listing<'a>(
    s: &Surface,
    answers: &BTreeMap<String, String>,
    items: impl Iterator<Item = (&'a str, String, &'a [usize])>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut current = "";
    for (path, head, calls) in items {
        if path != current {
            writeln!(out)?;
            writeln!(out, "{path}")?;
            current = path;
        }
        writeln!(out, "  {head}")?;
        for &k in calls {
            let site = &s.sites[k];
            writeln!(
                out,
                "      {:<44} :{}  {}",
                site.mutator,
                site.line,
                answer(answers, &site.mutator)
            )?;
        }
    }
    Ok(())
}

/// The human report (plain or `--summary`).
pub fn text(
    s: &Surface,
    answers: &BTreeMap<String, String>,
    o: &TextOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let c = s.counts();
    if o.summary {
        writeln!(out, "{}", summary_line(s))?;
    } else {
        let items = s.points.iter().map(|p| {
            (
                p.path.as_str(),
                format!(
                    "{} (line {}) -> backend: {}",
                    p.function,
                    p.line,
                    first4(&p.backend)
                ),
                p.calls.as_slice(),
            )
        });
        listing(s, answers, items, out)?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "{P} {} files scanned under {}",
        c.files,
        s.roots.join(" + ")
    )?;
    writeln!(
        out,
        "{P} {} mutator calls in total, {} distinct mutators",
        c.calls, c.distinct
    )?;
    writeln!(
        out,
        "{P} {} of them sit in {} IMMEDIATE PUBLISH POINTS - functions that also reach the backend - across {} distinct mutators",
        c.immediate_calls, c.points, c.immediate_distinct
    )?;
    writeln!(out, "{P} the remaining {} are DEFERRED: nothing reaches the backend in the same function, so the next verb publishes them, and each one needs an aggregate generation", c.deferred)?;
    writeln!(
        out,
        "{P} distinct mutators, by call count, with what publishes each"
    )?;
    let rows = s.mutators();
    for r in &rows {
        writeln!(
            out,
            "    {:>5}  {:<42} {}{}",
            r.calls,
            r.mutator,
            answer(answers, &r.mutator),
            if r.immediate { "  (immediate)" } else { "" }
        )?;
    }
    let unmapped = rows
        .iter()
        .filter(|r| !answers.contains_key(&r.mutator))
        .count();
    if unmapped > 0 {
        writeln!(
            out,
            "{P} {unmapped} UNMAPPED - run --check, which is a gate since P2"
        )?;
    } else {
        writeln!(out, "{P} every mutator above is mapped (MG_Pipe/DirtySurface.def); --check is a gate and --self-test proves it can fail")?;
    }
    match s.mode {
        Mode::Upstream => writeln!(out, "{P} known limits of this scanner - it matches braced function bodies textually, so a mutator inside a lambda is attributed to the enclosing function, and a mutation published through a helper the entry point calls reads as deferred here.")?,
        Mode::Accurate => writeln!(out, "{P} known limits of this scanner - it reads function bodies from C++ tokens (a lambda or local class counts for the function around it), it sees only the receiver `pGLContext->` (not aliases, getters or chained calls), and a mutation published through a helper the entry point calls reads as deferred unless --call-graph is given.")?,
    }
    if s.call_graph {
        call_graph(s, answers, out)?;
    }
    if let Some(d) = &s.differences {
        writeln!(out)?;
        if d.is_empty() {
            writeln!(
                out,
                "{P} no call is counted differently from the upstream scanner"
            )?;
        } else {
            writeln!(out, "{P} differs from the upstream scanner: {} call(s) counted differently (--compat upstream reproduces upstream's counts)", d.len())?;
            for x in d {
                writeln!(
                    out,
                    "  {}:{}:{}  {}  upstream {} call(s), {} immediate; mgctl {}, {} immediate - {}",
                    x.path, x.line, x.column, x.mutator, x.upstream_count, x.upstream_immediate, x.mgctl_count, x.mgctl_immediate, x.reason
                )?;
            }
        }
    }
    Ok(())
}

fn call_graph(
    s: &Surface,
    answers: &BTreeMap<String, String>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let c = s.counts();
    writeln!(out)?;
    writeln!(
        out,
        "{P} call graph: {} more call(s) in {} function(s) publish through a helper that reaches the backend (up to 4 calls deep, resolved by name; still counted as DEFERRED above, as upstream counts them)",
        c.helper_calls, c.helper_points
    )?;
    let items = s.helper_points.iter().map(|h| {
        let head = format!(
            "{} (line {}) -> {} -> backend: {}",
            h.function,
            h.line,
            h.via.join(" -> "),
            first4(&h.backend)
        );
        (h.path.as_str(), head, h.calls.as_slice())
    });
    listing(s, answers, items, out)?;
    Ok(())
}

/// Pretty JSON of a document, keys sorted at every level (through `Value`), as the reports have
/// always been written, and a newline.
fn write_json<T: Serialize>(doc: &T, out: &mut dyn Write) -> io::Result<()> {
    let v = serde_json::to_value(doc).map_err(io::Error::other)?;
    serde_json::to_writer_pretty(&mut *out, &v)?;
    writeln!(out)
}

/// A helper that reaches the backend for a call (`--call-graph`).
#[derive(Serialize)]
struct ViaHelper<'a> {
    path: &'a [String],
    backend: &'a [String],
}

/// One mutator call in the JSON report.
#[derive(Serialize)]
struct CallJson<'a> {
    path: &'a str,
    line: u32,
    column: u32,
    function: Option<&'a str>,
    nested: Option<crate::scope::NestedKind>,
    mutator: &'a str,
    mechanism: crate::scan::Mechanism,
    immediate: bool,
    immediate_count: u32,
    backend: &'a [String],
    via_helper: Option<ViaHelper<'a>>,
    answer: Option<&'a String>,
}

#[derive(Serialize)]
struct MutatorJson<'a> {
    mutator: &'a str,
    calls: usize,
    immediate: bool,
    answer: Option<&'a String>,
}

/// The `dirty-surface --format json` document.
#[derive(Serialize)]
struct ReportJson<'a> {
    schema: u32,
    kind: &'static str,
    mode: Mode,
    roots: &'a [String],
    summary: String,
    counts: crate::surface::Counts,
    files: &'a [String],
    calls: Vec<CallJson<'a>>,
    publish_points: &'a [crate::surface::Point],
    helper_points: &'a [crate::surface::HelperPoint],
    mutators: Vec<MutatorJson<'a>>,
    issues: &'a [crate::surface::FileIssue],
    differences: &'a Option<Vec<crate::surface::Difference>>,
}

/// JSON report of the surface.
pub fn json(
    s: &Surface,
    answers: &BTreeMap<String, String>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let helper_of: BTreeMap<usize, &crate::surface::HelperPoint> = s
        .helper_points
        .iter()
        .flat_map(|h| h.calls.iter().map(move |&c| (c, h)))
        .collect();
    let backend_of: BTreeMap<usize, &Vec<String>> = s
        .points
        .iter()
        .flat_map(|p| p.calls.iter().map(move |&c| (c, &p.backend)))
        .collect();
    let calls = s
        .sites
        .iter()
        .enumerate()
        .map(|(k, c)| CallJson {
            path: &c.path,
            line: c.line,
            column: c.column,
            function: c.function.as_deref(),
            nested: c.nested,
            mutator: &c.mutator,
            mechanism: c.mechanism,
            immediate: c.immediate > 0,
            immediate_count: c.immediate,
            backend: backend_of.get(&k).map(|b| b.as_slice()).unwrap_or(&[]),
            via_helper: helper_of.get(&k).map(|h| ViaHelper {
                path: &h.via,
                backend: &h.backend,
            }),
            answer: answers.get(&c.mutator),
        })
        .collect();
    let rows = s.mutators();
    let mutators = rows
        .iter()
        .map(|r| MutatorJson {
            mutator: &r.mutator,
            calls: r.calls,
            immediate: r.immediate,
            answer: answers.get(&r.mutator),
        })
        .collect();
    let doc = ReportJson {
        schema: 1,
        kind: "dirty-surface-report",
        mode: s.mode,
        roots: &s.roots,
        summary: summary_line(s),
        counts: s.counts(),
        files: &s.files,
        calls,
        publish_points: &s.points,
        helper_points: &s.helper_points,
        mutators,
        issues: &s.issues,
        differences: &s.differences,
    };
    write_json(&doc, out)
}

/// A report run's output: the JSON document with `json`, else the text report.
pub fn write_report(
    r: &crate::audit::Report,
    json: bool,
    o: &TextOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    match json {
        true => self::json(&r.surface, &r.answers, out),
        false => text(&r.surface, &r.answers, o, out),
    }
}

/// A `--check` run's output: the JSON document with `json`, else upstream's lines.
pub fn write_check(run: &CheckRun, json: bool, out: &mut dyn Write) -> io::Result<()> {
    match json {
        true => check_json(run, out),
        false => check_text(run, out),
    }
}

/// What a report run tells stderr: that the tree has no def (every mutator UNMAPPED), then
/// each file the scan could not read cleanly.
pub fn notes(r: &crate::audit::Report, def_path: &str) -> Vec<String> {
    let mut out = Vec::new();
    if !r.mapped {
        out.push(format!(
            "mgctl: note: {def_path}: no DirtySurface.def mapping (a tree from before it); every mutator is UNMAPPED"
        ));
    }
    for i in &r.surface.issues {
        out.push(format!(
            "mgctl: warning: {}:{}:{}: {}",
            i.path, i.line, i.column, i.message
        ));
    }
    out
}

/// `--check` text: problems then the red line, or the green lines.
pub fn check_text(run: &CheckRun, out: &mut dyn Write) -> io::Result<()> {
    for i in &run.issues {
        writeln!(out, "{P} {}:{}:{}: {}", i.path, i.line, i.column, i.message)?;
    }
    for p in &run.result.problems {
        writeln!(out, "{P} {}", p.text)?;
    }
    let n = run.result.problems.len() + run.issues.len();
    if n > 0 {
        writeln!(out, "{P} {}", red_line(n))?;
    } else {
        for g in &run.result.green {
            writeln!(out, "{P} {g}")?;
        }
    }
    Ok(())
}

/// One (mutator, bit) verdict of the check document.
#[derive(Serialize)]
struct VerdictJson<'a> {
    mutator: &'a str,
    bit: &'a str,
    verdict: &'a crate::nonrender::Verdict,
}

/// The `dirty-surface --check --format json` document.
#[derive(Serialize)]
struct CheckJson<'a> {
    schema: u32,
    kind: &'static str,
    pass: bool,
    mode: Mode,
    mutators: usize,
    issues: &'a [crate::surface::FileIssue],
    problems: &'a [crate::check::Problem],
    green: &'a [String],
    verdicts: Vec<VerdictJson<'a>>,
    stats: &'a crate::nonrender::Stats,
}

pub fn check_json(run: &CheckRun, out: &mut dyn Write) -> io::Result<()> {
    let doc = CheckJson {
        schema: 1,
        kind: "dirty-surface-check",
        pass: run.passed(),
        mode: run.mode,
        mutators: run.mutators,
        issues: &run.issues,
        problems: &run.result.problems,
        green: &run.result.green,
        verdicts: run
            .verdicts
            .pairs
            .iter()
            .map(|((m, b), verdict)| VerdictJson {
                mutator: m,
                bit: b,
                verdict,
            })
            .collect(),
        stats: &run.verdicts.stats,
    };
    write_json(&doc, out)
}
