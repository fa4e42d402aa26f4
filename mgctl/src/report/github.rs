//! GitHub workflow commands. GitHub keeps only the first 10 error annotations of a step, so the
//! full text report follows the annotations.

use std::io::{self, Write};

use super::CheckRun;
use crate::gate::Severity;

/// Escaping of the message part of a workflow command.
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escaping of a property value (also `:` and `,`).
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

pub fn write(run: &CheckRun, out: &mut dyn Write) -> io::Result<()> {
    for r in &run.gates {
        for f in &r.findings {
            let level = match f.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Note => "notice",
            };
            let mut props = Vec::new();
            if let Some(loc) = &f.location {
                props.push(format!("file={}", escape_property(&loc.path)));
                if let Some(l) = loc.line {
                    props.push(format!("line={l}"));
                }
                if let Some(c) = loc.column {
                    props.push(format!("col={c}"));
                }
            }
            props.push(format!(
                "title={}",
                escape_property(&format!("mgctl {} {}", r.gate, f.code))
            ));
            writeln!(
                out,
                "::{level} {}::{}",
                props.join(","),
                escape_data(&f.message)
            )?;
        }
    }
    super::human::write(run, out, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_per_workflow_command_rules() {
        assert_eq!(escape_data("50%\nnext"), "50%25%0Anext");
        assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");
    }
}
