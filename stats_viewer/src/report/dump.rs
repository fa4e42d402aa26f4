//! The teardown JSON dump checked against the windows of its log (`stats summary --dump`).

use std::io::{self, Write};

use serde_json::{json, Value as Json};

use crate::session::Log;

/// The dump cross-check as text: one summary line, then every disagreement.
pub fn dump_text(
    d: &crate::dump::Dump,
    checks: &[crate::dump::Check],
    out: &mut dyn Write,
) -> io::Result<()> {
    let bad: Vec<&crate::dump::Check> = checks.iter().filter(|c| !c.ok).collect();
    writeln!(
        out,
        "  JSON dump {} (run totals): frames {}, {} values compared with the windows, {} disagree; {} histogram(s) of 24 buckets",
        d.path.display(),
        d.frames,
        checks.len(),
        bad.len(),
        d.histograms.len()
    )?;
    for c in bad {
        writeln!(
            out,
            "    MISMATCH {}: dump {} vs windows {}{}",
            c.name,
            c.dump,
            c.windows
                .map_or_else(|| "absent".to_string(), |w| w.to_string()),
            if c.tolerance > 0 {
                format!(" (tolerance ±{})", c.tolerance)
            } else {
                String::new()
            }
        )?;
    }
    Ok(())
}

pub fn dump_json(d: &crate::dump::Dump, checks: &[crate::dump::Check]) -> Json {
    json!({
        "path": d.path.display().to_string(),
        "frames": d.frames,
        "values": d.values.iter().map(|(n, v)| json!({"name": n, "value": v})).collect::<Vec<_>>(),
        "histograms": d.histograms.iter().map(|(n, h)| json!({"name": n, "buckets": h})).collect::<Vec<_>>(),
        "checks": checks,
        "agree": checks.iter().all(|c| c.ok),
    })
}

/// A teardown JSON dump checked against the reported session of its log (`stats summary --dump`).
#[derive(Debug, Clone)]
pub struct DumpCheck {
    pub dump: crate::dump::Dump,
    pub checks: Vec<crate::dump::Check>,
}

impl DumpCheck {
    pub fn new(dump: crate::dump::Dump, log: &Log) -> DumpCheck {
        let checks = match log.reported_session() {
            Some(s) => crate::dump::cross_check(&dump, s),
            None => Vec::new(),
        };
        DumpCheck { dump, checks }
    }

    /// Why the pair fails (`shown` names the dump as it was given), None when every value agrees.
    pub fn problem(&self, shown: &str, log: &Log) -> Option<String> {
        let bad = self.checks.iter().filter(|c| !c.ok).count();
        (bad > 0).then(|| {
            format!(
                "{shown} does not match the windows of {} ({bad} value(s) disagree): not the same session?",
                log.path.display()
            )
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::path::Path;

    use super::super::samples::{log, written, ARM_A, ARM_B, ARM_B_DUMP};
    use super::*;

    fn dump() -> crate::dump::Dump {
        crate::dump::Dump::parse(Path::new("pipestats.json"), ARM_B_DUMP).unwrap()
    }

    #[test]
    fn arm_b_dump_agrees_with_its_windows() {
        let b = log("b.txt", ARM_B);
        let d = DumpCheck::new(dump(), &b);
        assert!(!d.checks.is_empty());
        assert_eq!(d.problem("pipestats.json", &b), None);
        let t = written(|o| dump_text(&d.dump, &d.checks, o));
        let first = t.lines().next().unwrap();
        assert!(
            first.starts_with("  JSON dump pipestats.json (run totals): frames 745, "),
            "{t}"
        );
        assert!(
            first.contains(" values compared with the windows, 0 disagree; "),
            "{t}"
        );
        assert_eq!(t.lines().count(), 1, "{t}");
        let j = dump_json(&d.dump, &d.checks);
        assert_eq!(j["frames"], 745);
        assert_eq!(j["agree"], true);
        let draws = j["values"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == "calls.draws")
            .unwrap();
        assert_eq!(draws["value"], 502443);
    }

    #[test]
    fn arm_b_dump_against_arm_a_disagrees() {
        let a = log("a.log", ARM_A);
        let d = DumpCheck::new(dump(), &a);
        let p = d.problem("pipestats.json", &a).unwrap();
        assert!(
            p.starts_with("pipestats.json does not match the windows of a.log ("),
            "{p}"
        );
        let t = written(|o| dump_text(&d.dump, &d.checks, o));
        assert!(t.contains("\n    MISMATCH "), "{t}");
    }
}
