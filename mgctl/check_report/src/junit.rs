//! JUnit XML: one `<testsuite>` per gate, one `<testcase>` per checked unit; a unit fails with the
//! text of its findings. Findings without a unit go to a testcase named after the gate.

use std::collections::BTreeMap;
use std::io::{self, Write};

use crate::model::{Finding, Severity, Verdict};
use crate::run::CheckRun;
use crate::text::markup as xml;

fn finding_text(run: &CheckRun, f: &Finding) -> String {
    let loc = f
        .location
        .as_ref()
        .map(|l| format!("{}{l}: ", run.view.repo_prefix))
        .unwrap_or_default();
    format!("[{}] {loc}{}", f.code, f.message)
}

pub(crate) fn write(run: &CheckRun, out: &mut dyn Write) -> io::Result<()> {
    let mut body = Vec::new();
    let (mut tests, mut failures, mut skipped) = (0usize, 0usize, 0usize);
    for r in &run.gates {
        let secs = r.wall_ms / 1000.0;
        if let Verdict::Skipped { reason } = &r.verdict {
            tests += 1;
            skipped += 1;
            body.push(format!(
                "  <testsuite name=\"{g}\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\" time=\"0\">\n    <testcase classname=\"mgctl.{g}\" name=\"{g}\" time=\"0\">\n      <skipped message=\"{m}\"/>\n    </testcase>\n  </testsuite>",
                g = xml(r.gate),
                m = xml(reason)
            ));
            continue;
        }
        // unit → its error/warning findings (notes do not fail a testcase).
        let mut units: BTreeMap<String, Vec<&Finding>> =
            r.units.iter().map(|u| (u.clone(), Vec::new())).collect();
        for f in r.findings.iter().filter(|f| f.severity != Severity::Note) {
            let unit = f.unit.clone().unwrap_or_else(|| r.gate.to_string());
            units.entry(unit).or_default().push(f);
        }
        if units.is_empty() {
            units.insert(r.gate.to_string(), Vec::new());
        }
        let fails = units
            .values()
            .filter(|fs| fs.iter().any(|f| f.severity == Severity::Error))
            .count();
        tests += units.len();
        failures += fails;
        let mut cases = Vec::new();
        for (unit, fs) in &units {
            let errors: Vec<&&Finding> = fs
                .iter()
                .filter(|f| f.severity == Severity::Error)
                .collect();
            let warnings: Vec<String> = fs
                .iter()
                .filter(|f| f.severity == Severity::Warning)
                .map(|f| finding_text(run, f))
                .collect();
            let mut case = format!(
                "    <testcase classname=\"mgctl.{}\" name=\"{}\" time=\"0\">",
                xml(r.gate),
                xml(unit)
            );
            if let Some(first) = errors.first() {
                let text: Vec<String> = errors.iter().map(|f| finding_text(run, f)).collect();
                case.push_str(&format!(
                    "\n      <failure message=\"{}\" type=\"{}\">{}</failure>",
                    xml(&first.message),
                    xml(first.code),
                    xml(&text.join("\n"))
                ));
            }
            if !warnings.is_empty() {
                case.push_str(&format!(
                    "\n      <system-out>{}</system-out>",
                    xml(&warnings.join("\n"))
                ));
            }
            case.push_str(if errors.is_empty() && warnings.is_empty() {
                "</testcase>"
            } else {
                "\n    </testcase>"
            });
            let case = case.replacen("time=\"0\"></testcase>", "time=\"0\"/>", 1);
            cases.push(case);
        }
        body.push(format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{fails}\" errors=\"0\" skipped=\"0\" time=\"{secs:.3}\">\n{}\n  </testsuite>",
            xml(r.gate),
            units.len(),
            cases.join("\n")
        ));
    }
    writeln!(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>")?;
    writeln!(
        out,
        "<testsuites name=\"mgctl check\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\" time=\"{:.3}\">",
        run.wall_ms / 1000.0
    )?;
    for s in body {
        writeln!(out, "{s}")?;
    }
    writeln!(out, "</testsuites>")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::run::tests::sample;

    #[test]
    fn parses_and_counts() {
        let mut buf = Vec::new();
        write(&sample(), &mut buf).unwrap();
        let text = String::from_utf8(buf).unwrap();
        let doc = roxmltree::Document::parse(&text).unwrap();
        let root = doc.root_element();
        assert_eq!(root.attribute("tests"), Some("3"));
        assert_eq!(root.attribute("failures"), Some("1"));
        assert_eq!(root.attribute("skipped"), Some("1"));
        let failure = doc
            .descendants()
            .find(|n| n.has_tag_name("failure"))
            .unwrap();
        assert!(failure
            .text()
            .unwrap()
            .contains("MobileGL/MG_State/A.cpp:3:5"));
        assert!(failure.attribute("message").unwrap().contains("<really>"));
    }
}
