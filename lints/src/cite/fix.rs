//! `--fix`: rewrite the line numbers of citations whose new place is certain, and nothing else.

use super::model::{CiteReport, Problem, Span};

/// One rewritten citation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub doc: String,
    pub line: usize,
    /// `path:old` as cited and `path:new` as rewritten (display).
    pub from: String,
    pub to: String,
    /// Digit spans in the document and their replacement text.
    pub spans: Vec<(Span, String)>,
    /// The number each span held when the document was scanned.
    pub was: Vec<u64>,
}

/// The edits for document `d` of the report: certain moves only.
pub fn plan(report: &CiteReport, d: usize) -> Vec<Edit> {
    let (Some(doc), Some(results)) = (report.docs.get(d), report.results.get(d)) else {
        return Vec::new();
    };
    let mut edits = Vec::new();
    for (c, k) in doc.citations.iter().zip(results) {
        let Some(Problem::Moved {
            first,
            last,
            certain: true,
            ..
        }) = &k.problem
        else {
            continue;
        };
        let mut spans = vec![(c.first_span.clone(), first.to_string())];
        let mut was = vec![c.first];
        if let Some(ls) = &c.last_span {
            spans.push((ls.clone(), last.to_string()));
            was.push(c.last);
        }
        let path = c.path.as_deref().unwrap_or("");
        let shown = |a: u64, b: u64| {
            if a == b {
                format!("{path}:{a}")
            } else {
                format!("{path}:{a}-{b}")
            }
        };
        edits.push(Edit {
            doc: doc.doc.clone(),
            line: c.line,
            from: shown(c.first, c.last),
            to: shown(*first, *last),
            spans,
            was,
        });
    }
    edits
}

/// Apply edits to the document text. Each span must still hold the number the scan saw (issue 29:
/// a second `--fix` racing the first found the new digits there, "rewrote" every citation to
/// itself and said so for 0 documents); an edit whose spans do not is dropped and returned in
/// the second list.
pub fn apply(text: &str, edits: &[Edit]) -> (String, Vec<Edit>) {
    let mut spans: Vec<(&Span, &str)> = Vec::new();
    let mut dropped = Vec::new();
    for e in edits {
        let fits = e.spans.len() == e.was.len()
            && e.spans.iter().zip(&e.was).all(|((s, _), was)| {
                text.get(s.clone()).is_some_and(|t| {
                    !t.is_empty()
                        && t.bytes().all(|b| b.is_ascii_digit())
                        && t.parse::<u64>().ok() == Some(*was)
                })
            });
        if fits {
            spans.extend(e.spans.iter().map(|(s, r)| (s, r.as_str())));
        } else {
            dropped.push(e.clone());
        }
    }
    spans.sort_by_key(|(s, _)| s.start);
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (s, r) in spans {
        if s.start < at {
            continue;
        }
        out.push_str(&text[at..s.start]);
        out.push_str(r);
        at = s.end;
    }
    out.push_str(&text[at..]);
    (out, dropped)
}

/// What `--fix` does to the documents of a report: the new texts to write and what changed.
#[derive(Debug, Clone, Default)]
pub struct FixRun {
    /// Each changed document and its new text, for the caller to write.
    pub rewrites: Vec<(std::path::PathBuf, String)>,
    /// Citations rewritten.
    pub total: usize,
    /// One line per rewritten or skipped citation (indented two spaces).
    pub lines: Vec<String>,
}

/// Plans and applies the certain moves of `report` (whose documents are `docs`, in order),
/// re-reading each document so an edit the document no longer matches is skipped, not forced.
pub fn fix_docs(report: &CiteReport, docs: &[std::path::PathBuf]) -> Result<FixRun, super::Error> {
    let mut run = FixRun::default();
    for (d, path) in docs.iter().enumerate() {
        let edits = plan(report, d);
        if edits.is_empty() {
            continue;
        }
        let text = super::read_doc(path)?;
        let (new, dropped) = apply(&text, &edits);
        for e in &dropped {
            run.lines.push(format!(
                "  skipped {}:{}: `{}` (the document changed under us)",
                e.doc, e.line, e.from
            ));
        }
        if new != text {
            run.rewrites.push((path.clone(), new));
        }
        for e in edits.iter().filter(|e| !dropped.contains(e)) {
            run.total += 1;
            run.lines.push(format!(
                "  {}:{}: `{}` -> `{}`",
                e.doc, e.line, e.from, e.to
            ));
        }
    }
    Ok(run)
}

impl FixRun {
    /// `cite --fix: rewrote N citation(s) in D document(s)`, the lines, then a blank line.
    pub fn write_human(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(
            out,
            "cite --fix: rewrote {} citation(s) in {} document(s)",
            self.total,
            self.rewrites.len()
        )?;
        for l in &self.lines {
            writeln!(out, "{l}")?;
        }
        writeln!(out)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::cite::check::{check, Options};
    use crate::cite::scan::scan;
    use crate::cite::tree::SourceTree;

    #[test]
    fn a_document_fixed_under_us_is_not_fixed_again() {
        // `see A.cpp:10`: the digits sit at 10..12; the scan saw 10, the move is to 12.
        let edit = Edit {
            doc: "d.md".into(),
            line: 1,
            from: "A.cpp:10".into(),
            to: "A.cpp:12".into(),
            spans: vec![(10..12, "12".into())],
            was: vec![10],
        };
        let (new, dropped) = apply("see A.cpp:10\n", std::slice::from_ref(&edit));
        assert_eq!((new.as_str(), dropped.len()), ("see A.cpp:12\n", 0));
        // A concurrent --fix already wrote 12: the edit no longer fits, nothing is counted.
        let (new, dropped) = apply("see A.cpp:12\n", std::slice::from_ref(&edit));
        assert_eq!((new.as_str(), dropped.len()), ("see A.cpp:12\n", 1));
    }

    #[test]
    fn rewrites_only_certain_moves_byte_for_byte() {
        let mut files = BTreeMap::new();
        files.insert(
            "A.cpp".to_string(),
            b"x\ny\nvoid Foo() {\n}\nint Baz;\n".to_vec(),
        );
        let t = SourceTree::in_memory("MEM", files);
        let doc = "# T\r\n\r\n`Foo` (`A.cpp:1`), `Baz`\u{2014}A.cpp:2 and `Foo` at A.cpp:1-2 ok `Baz` A.cpp:5.\r\n";
        let r = check(vec![scan("d.md", None, doc)], &t, &Options::default()).unwrap();
        let edits = plan(&r, 0);
        assert_eq!(edits.len(), 2, "{edits:?}");
        let (out, dropped) = apply(doc, &edits);
        assert!(dropped.is_empty());
        assert_eq!(
            out,
            "# T\r\n\r\n`Foo` (`A.cpp:3`), `Baz`\u{2014}A.cpp:5 and `Foo` at A.cpp:1-2 ok `Baz` A.cpp:5.\r\n"
        );
        assert_eq!(edits[0].from, "A.cpp:1");
        assert_eq!(edits[0].to, "A.cpp:3");
    }
}
