//! Rendering a [`CiteReport`]: human text (upstream's summary and problem lines, then the
//! per-form breakdown) and JSON (`"schema": 1`).

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde_json::{json, Value};

use super::model::{Checked, Citation, CiteReport, Class, Form, Level, PathStyle, Problem};

/// Found / checked / uncheckable for one form.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FormCount {
    pub found: usize,
    pub checked: usize,
    pub uncheckable: usize,
}

pub fn by_form(report: &CiteReport) -> BTreeMap<Form, FormCount> {
    let mut m: BTreeMap<Form, FormCount> = Form::ALL
        .iter()
        .map(|f| (*f, FormCount::default()))
        .collect();
    for (c, k) in report.citations() {
        let e = m.entry(c.form).or_default();
        e.found += 1;
        if k.class == Class::Uncheckable {
            e.uncheckable += 1;
        } else {
            e.checked += 1;
        }
    }
    m
}

pub fn by_class(report: &CiteReport) -> BTreeMap<Class, usize> {
    let mut m = BTreeMap::new();
    for (_, k) in report.citations() {
        *m.entry(k.class).or_insert(0) += 1;
    }
    m
}

pub fn by_style(report: &CiteReport) -> BTreeMap<PathStyle, usize> {
    let mut m = BTreeMap::new();
    for (c, _) in report.citations() {
        if let (Some(s), Form::Line | Form::Range | Form::EnDashRange | Form::ListMember) =
            (c.style, c.form)
        {
            *m.entry(s).or_insert(0) += 1;
        }
    }
    m
}

/// Errors and warnings (notes are not problems).
pub fn problem_count(report: &CiteReport) -> usize {
    report.count_level(Level::Error) + report.count_level(Level::Warning)
}

/// `` `text` `` plus, for a continuation, the file it inherited.
fn cited(c: &Citation) -> String {
    match (c.form, &c.path, c.inherited_from) {
        (Form::Continuation, Some(p), Some(l)) => format!("`{}` ({p} from line {l})", c.text),
        _ => format!("`{}`", c.text),
    }
}

/// The problem line without indentation: `<doc>:<line>: `<text>` -> <message>`.
pub fn problem_line(report: &CiteReport, c: &Citation, p: &Problem) -> String {
    format!("{}:{}: {}", c.doc, c.line, problem_text(report, c, p))
}

/// The problem without its document position: `` `<text>` -> <message>``.
pub fn problem_text(report: &CiteReport, c: &Citation, p: &Problem) -> String {
    format!("{} -> {}", cited(c), p.message(&report.rev))
}

/// Human report. `verbose` adds the notes (uncheckable citations) to the problem list; `shown`
/// prints each document and source position from the user's directory.
pub fn write_human(
    report: &CiteReport,
    verbose: bool,
    shown: &diag::Shown,
    out: &mut dyn Write,
) -> io::Result<()> {
    let problems = problem_count(report);
    writeln!(
        out,
        "cite: {} citations in {} document(s) against {}, {} problem(s)",
        report.count(),
        report.docs.len(),
        report.rev,
        problems
    )?;
    for (c, k, p) in report.problems() {
        if p.level() == Level::Note && !verbose {
            continue;
        }
        let tag = if p.level() == Level::Note {
            "note: "
        } else {
            ""
        };
        let at = shown.at(&c.doc, c.line);
        writeln!(out, "  {tag}{at}: {}", problem_text(report, c, p))?;
        if let (
            Some(ex),
            Some(path),
            Problem::Moved { .. } | Problem::Changed { .. } | Problem::PastEnd { .. },
        ) = (&k.excerpt, &k.resolved, p)
        {
            let now = shown.at(path, c.first);
            writeln!(out, "      now at {now}: {ex}")?;
        }
    }
    writeln!(out)?;
    writeln!(
        out,
        "{:<22} {:>6} {:>8} {:>12}",
        "form", "found", "checked", "uncheckable"
    )?;
    let forms = by_form(report);
    for (f, n) in &forms {
        writeln!(
            out,
            "{:<22} {:>6} {:>8} {:>12}",
            f.label(),
            n.found,
            n.checked,
            n.uncheckable
        )?;
    }
    let (found, checked, unch) = forms.values().fold((0, 0, 0), |a, n| {
        (a.0 + n.found, a.1 + n.checked, a.2 + n.uncheckable)
    });
    writeln!(
        out,
        "{:<22} {:>6} {:>8} {:>12}",
        "total", found, checked, unch
    )?;
    let styles = by_style(report);
    let style_text: Vec<String> = PathStyle::ALL
        .iter()
        .map(|s| format!("{} {}", styles.get(s).copied().unwrap_or(0), s.label()))
        .collect();
    writeln!(out, "paths: {}", style_text.join(", "))?;
    let classes = by_class(report);
    let anchored = report
        .citations()
        .filter(|(c, k)| !c.anchors.is_empty() && k.class != Class::Uncheckable)
        .count();
    let class_text: Vec<String> = [
        Class::Ok,
        Class::Moved,
        Class::Changed,
        Class::Gone,
        Class::Invalid,
        Class::Uncheckable,
    ]
    .iter()
    .map(|c| format!("{} {}", classes.get(c).copied().unwrap_or(0), c.label()))
    .collect();
    writeln!(
        out,
        "drift: {} ({anchored} checked against backticked identifiers)",
        class_text.join(", ")
    )?;
    let urls: usize = report.docs.iter().map(|d| d.skipped.urls).sum();
    let fenced = report.citations().filter(|(c, _)| c.in_fence).count();
    writeln!(out, "skipped: {urls} URL(s) that look like citations; {fenced} citation(s) in fenced code (quoted output, not checked)")?;
    let commit = report
        .commit
        .as_deref()
        .map(|c| format!(" (commit {c})"))
        .unwrap_or_default();
    writeln!(
        out,
        "read {} cited file(s) once each, of {} file(s) in the tree at {}{commit}",
        report.files_read, report.tree_files, report.rev
    )?;
    Ok(())
}

fn citation_json(report: &CiteReport, c: &Citation, k: &Checked) -> Value {
    let mut v = json!({
        "doc": c.doc,
        "line": c.line,
        "column": c.column,
        "text": c.text,
        "path": c.path,
        "form": c.form,
        "style": c.style,
        "first": c.first,
        "last": c.last,
        "anchors": c.anchors,
        "backticked": c.backticked,
        "in_fence": c.in_fence,
        "class": k.class,
    });
    if let Some(obj) = v.as_object_mut() {
        if let Some(l) = c.inherited_from {
            obj.insert("inherited_from_line".into(), json!(l));
        }
        if let Some(r) = &k.resolved {
            obj.insert("resolved".into(), json!(r));
        }
        if let Some(e) = &k.excerpt {
            obj.insert("excerpt".into(), json!(e));
        }
        if let Some(p) = &k.problem {
            obj.insert("code".into(), json!(p.code()));
            obj.insert("level".into(), json!(p.level()));
            obj.insert("message".into(), json!(p.message(&report.rev)));
            obj.insert("problem".into(), json!(p));
        }
    }
    v
}

pub fn to_json(report: &CiteReport) -> Value {
    let forms: serde_json::Map<String, Value> = by_form(report)
        .iter()
        .map(|(f, n)| {
            let key = serde_json::to_value(f)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            (
                key,
                json!({"found": n.found, "checked": n.checked, "uncheckable": n.uncheckable}),
            )
        })
        .collect();
    let classes: serde_json::Map<String, Value> = by_class(report)
        .iter()
        .map(|(c, n)| (c.label().to_string(), json!(n)))
        .collect();
    json!({
        "schema": 1,
        "rev": report.rev,
        "commit": report.commit,
        "documents": report.docs.iter().map(|d| &d.doc).collect::<Vec<_>>(),
        "summary": {
            "citations": report.count(),
            "problems": problem_count(report),
            "errors": report.count_level(Level::Error),
            "warnings": report.count_level(Level::Warning),
            "by_form": forms,
            "by_class": classes,
            "urls_skipped": report.docs.iter().map(|d| d.skipped.urls).sum::<usize>(),
            "files_read": report.files_read,
            "tree_files": report.tree_files,
        },
        "citations": report.citations().map(|(c, k)| citation_json(report, c, k)).collect::<Vec<_>>(),
    })
}

pub fn write_json(report: &CiteReport, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &to_json(report)).map_err(io::Error::other)?;
    writeln!(out)
}
