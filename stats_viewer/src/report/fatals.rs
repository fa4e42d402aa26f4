//! Fatal lines: one line's text and JSON, the census by kind and by detail, and the
//! `stats fatals` report with the G4 verify verdict.

use std::io::{self, Write};

use serde_json::{json, Value as Json};

use crate::fatal::TranscriptVerify;
use crate::session::{FatalLine, Log};

pub fn fatal_line_text(log: &Log, f: &FatalLine) -> String {
    let mut s = format!(
        "{}:{}: {}",
        log.path.display(),
        f.line,
        f.fatal.marker_text()
    );
    if let Some(l) = f.level {
        s.push_str(&format!(" [{}]", l.as_str()));
    }
    if let Some(p) = f.pid {
        s.push_str(&format!(" pid {p}"));
    }
    if f.fatal.unterminated {
        s.push_str(" (cut: no closing brace)");
    }
    s
}

pub(super) fn fatal_json(f: &FatalLine) -> Json {
    json!({
        "line": f.line, "pid": f.pid, "role": f.role, "level": f.level,
        "kind": f.fatal.kind, "detail": f.fatal.detail, "extras": f.fatal.extras, "tail": f.fatal.tail,
        "unterminated": f.fatal.unterminated, "verify_kind": f.fatal.is_verify_kind(),
    })
}

/// (key, count) rows of a census.
pub type Census = Vec<(String, usize)>;

/// Census of Fatal lines by kind, then by kind and detail: (key, count), count descending, then first seen.
pub fn census<'a>(fatals: impl Iterator<Item = &'a FatalLine>) -> (Census, Census) {
    let mut by_kind: Vec<(String, usize)> = Vec::new();
    let mut by_detail: Vec<(String, usize)> = Vec::new();
    let bump = |v: &mut Vec<(String, usize)>, k: String| match v.iter_mut().find(|(n, _)| *n == k) {
        Some(e) => e.1 += 1,
        None => v.push((k, 1)),
    };
    for f in fatals {
        bump(&mut by_kind, f.fatal.kind.clone());
        let d = match &f.fatal.detail {
            Some(d) => format!("{} \"{d}\"", f.fatal.kind),
            None => format!("{} (no detail)", f.fatal.kind),
        };
        bump(&mut by_detail, d);
    }
    // Stable sort keeps first-seen order among equal counts.
    by_kind.sort_by_key(|e| std::cmp::Reverse(e.1));
    by_detail.sort_by_key(|e| std::cmp::Reverse(e.1));
    (by_kind, by_detail)
}

/// `stats fatals` JSON for one log.
pub fn fatals_json(log: &Log) -> Json {
    let (k, d) = census(log.fatals.iter());
    json!({
        "path": log.path.display().to_string(),
        "fatal_lines": log.fatals.len(),
        "fatals": log.fatals.iter().map(fatal_json).collect::<Vec<_>>(),
        "by_kind": k.iter().map(|(n, c)| json!({"kind": n, "count": c})).collect::<Vec<_>>(),
        "by_detail": d.iter().map(|(n, c)| json!({"key": n, "count": c})).collect::<Vec<_>>(),
        "verify_armed": log.armed().iter().map(|a| json!({"line": a.line, "fields": a.item.fields, "verbs": a.item.verbs, "fatal": a.item.fatal})).collect::<Vec<_>>(),
        "transcript": log.transcript.iter().map(|t| json!({"line": t.line, "verify": t.item})).collect::<Vec<_>>(),
    })
}

/// Where a G4 problem is: `path:line` or `path`.
fn problem_at(log: &Log, p: &crate::g4::Problem) -> String {
    match p.line() {
        Some(l) => format!("{}:{l}", log.path.display()),
        None => log.path.display().to_string(),
    }
}

/// `stats fatals` text for one log and its G4 verdict.
pub fn fatals_text(log: &Log, v: &crate::g4::Verdict, out: &mut dyn Write) -> io::Result<()> {
    use crate::g4::Problem;
    writeln!(
        out,
        "== {}: {} Fatal line(s)",
        log.path.display(),
        log.fatals.len()
    )?;
    for f in &log.fatals {
        writeln!(out, "  {}", fatal_line_text(log, f))?;
    }
    let (by_kind, by_detail) = census(log.fatals.iter());
    if !by_kind.is_empty() {
        let k: Vec<String> = by_kind.iter().map(|(n, c)| format!("{n} {c}")).collect();
        writeln!(out, "  by kind: {}", k.join(", "))?;
        for (n, c) in &by_detail {
            writeln!(out, "  {c:>4}  {n}")?;
        }
        let verify_kind = log
            .fatals
            .iter()
            .filter(|f| f.fatal.is_verify_kind())
            .count();
        writeln!(out, "  verify-family Fatals (PipeVerifyDiffer|UnmigratedPipeInput|PipeVerifyBadKnob): {verify_kind}")?;
    }
    for a in log.armed() {
        writeln!(
            out,
            "  verify armed at line {}: {} fields, {} verbs, fatal={}",
            a.line,
            a.item.fields,
            a.item.verbs,
            u8::from(a.item.fatal)
        )?;
    }
    for t in &log.transcript {
        let text = match &t.item {
            TranscriptVerify::ArmedClean { case, backend } => {
                format!("armed, clean: {case} {backend}")
            }
            TranscriptVerify::NotRequested {
                case,
                backend,
                value,
            } => format!("not requested (MOBILEGL_PIPE_VERIFY={value}): {case} {backend}"),
            TranscriptVerify::Failed {
                case,
                backend,
                fatals,
            } => format!("FAILED: {case} {backend} ({fatals} Fatal)"),
        };
        writeln!(out, "  runner line {}: {text}", t.line)?;
    }
    if v.verify {
        // The verdict line follows from the same problems the gate reports: never "zero Fatal
        // lines" while a Fatal was counted.
        if v.pass() {
            writeln!(out, "  verify: armed, zero Fatal lines")?;
        }
        if v.fatal_lines > 0 {
            writeln!(
                out,
                "  verify FAIL: {}: {} Fatal line(s), zero required",
                log.path.display(),
                v.fatal_lines
            )?;
        }
        for p in v
            .problems
            .iter()
            .filter(|p| !matches!(p, Problem::Fatal(_)))
        {
            writeln!(
                out,
                "  verify FAIL: {}: {}",
                problem_at(log, p),
                p.message()
            )?;
        }
    } else {
        for p in v
            .problems
            .iter()
            .filter(|p| matches!(p, Problem::RunnerFailed { .. }))
        {
            writeln!(out, "  FAIL: {}: {}", problem_at(log, p), p.message())?;
        }
        if !v.armed {
            writeln!(out, "  verify: not armed")?;
        }
    }
    Ok(())
}

/// `stats fatals` text for several logs: each log, then the total when there is more than one.
pub fn fatals_report_text(
    logs: &[Log],
    verdicts: &[crate::g4::Verdict],
    out: &mut dyn Write,
) -> io::Result<()> {
    for (i, (l, v)) in logs.iter().zip(verdicts).enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        fatals_text(l, v, out)?;
    }
    if logs.len() > 1 {
        let total: usize = logs.iter().map(|l| l.fatals.len()).sum();
        let (k, _) = census(logs.iter().flat_map(|l| l.fatals.iter()));
        let k: Vec<String> = k.iter().map(|(n, c)| format!("{n} {c}")).collect();
        writeln!(
            out,
            "\ntotal: {total} Fatal line(s) in {} log(s){}",
            logs.len(),
            if k.is_empty() {
                String::new()
            } else {
                format!(": {}", k.join(", "))
            }
        )?;
    }
    Ok(())
}

/// `stats fatals --json` (`"schema": 1`).
pub fn fatals_report_json(logs: &[Log], verdicts: &[crate::g4::Verdict], verify: bool) -> Json {
    use crate::g4::Problem;
    let pass = verdicts.iter().all(crate::g4::Verdict::pass);
    let per_log: Vec<Json> = logs
        .iter()
        .zip(verdicts)
        .map(|(l, v)| {
            let mut j = fatals_json(l);
            j["armed"] = json!(v.armed);
            j["pass"] = json!(v.pass());
            j["verify_problems"] = json!(v
                .problems
                .iter()
                .filter(|p| !matches!(p, Problem::Fatal(_)))
                .map(|p| format!("{}: {}", problem_at(l, p), p.message()))
                .collect::<Vec<_>>());
            j
        })
        .collect();
    let total: usize = logs.iter().map(|l| l.fatals.len()).sum();
    let (k, _) = census(logs.iter().flat_map(|l| l.fatals.iter()));
    json!({
        "schema": 1, "verify_mode": verify, "pass": pass, "fatal_lines": total,
        "by_kind": k.iter().map(|(n, c)| json!({"kind": n, "count": c})).collect::<Vec<_>>(),
        "logs": per_log,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::super::samples::{log, written, FATAL_LINES, FATAL_VERIFY, TRANSCRIPT};
    use super::*;

    #[test]
    fn census_of_the_fatal_catalogue() {
        let l = log("f.txt", FATAL_LINES);
        assert_eq!(l.fatals.len(), 7);
        let (by_kind, by_detail) = census(l.fatals.iter());
        let k: Vec<(&str, usize)> = by_kind.iter().map(|(n, c)| (n.as_str(), *c)).collect();
        assert_eq!(
            k,
            [
                ("UnmigratedPipeInput", 3),
                ("PipeVerifyDiffer", 1),
                ("PipeResidualDiverged", 1),
                ("ProtocolCorruption", 1),
                ("UnmigratedSurface", 1),
            ]
        );
        assert_eq!(
            by_detail[0],
            (
                "UnmigratedPipeInput \"GetProgramForDraw@Clear\"".to_string(),
                2
            )
        );
        assert!(by_detail.contains(&("ProtocolCorruption (no detail)".to_string(), 1)));
        let v = crate::g4::verdict(&l, false);
        let t = written(|o| fatals_text(&l, &v, o));
        assert!(t.starts_with("== f.txt: 7 Fatal line(s)\n"), "{t}");
        assert!(
            t.contains("  by kind: UnmigratedPipeInput 3, PipeVerifyDiffer 1, PipeResidualDiverged 1, ProtocolCorruption 1, UnmigratedSurface 1\n"),
            "{t}"
        );
        assert!(t.contains("f.txt:1: "), "{t}");
        let j = fatals_json(&l);
        assert_eq!(j["fatal_lines"], 7);
        assert_eq!(j["by_kind"][0]["count"], 3);
    }

    #[test]
    fn the_verify_log_fails_on_its_one_fatal() {
        let l = log("v.log", FATAL_VERIFY);
        let v = crate::g4::verdict(&l, true);
        let t =
            written(|o| fatals_report_text(std::slice::from_ref(&l), std::slice::from_ref(&v), o));
        assert!(t.starts_with("== v.log: 1 Fatal line(s)\n"), "{t}");
        assert!(t.contains("PipeVerifyDiffer"), "{t}");
        assert!(t.contains("verb=48213"), "{t}");
        assert!(t.contains("  verify-family Fatals (PipeVerifyDiffer|UnmigratedPipeInput|PipeVerifyBadKnob): 1\n"), "{t}");
        assert!(
            t.contains("  verify FAIL: v.log: 1 Fatal line(s), zero required\n"),
            "{t}"
        );
        assert!(!t.contains("zero Fatal lines"), "{t}");
        let j = fatals_report_json(&[l], &[v], true);
        assert_eq!(j["schema"], 1);
        assert_eq!(j["pass"], false);
        assert_eq!(j["fatal_lines"], 1);
        assert_eq!(j["logs"][0]["armed"], true);
    }

    #[test]
    fn transcript_runner_lines_and_the_total_over_several_logs() {
        let t_log = log("ctest.txt", TRANSCRIPT);
        let f_log = log("f.txt", FATAL_LINES);
        let verdicts = [
            crate::g4::verdict(&t_log, false),
            crate::g4::verdict(&f_log, false),
        ];
        let logs = [t_log, f_log];
        let t = written(|o| fatals_report_text(&logs, &verdicts, o));
        assert!(
            t.contains(": armed, clean: minecraft-26.3-vanilla-in-world DirectGLES\n"),
            "{t}"
        );
        assert!(
            t.contains(": armed, clean: minecraft-26.3-vanilla-in-world DirectVulkan\n"),
            "{t}"
        );
        assert!(
            t.contains(": FAILED: openra-ra-skirmish DirectGLES (1 Fatal)\n"),
            "{t}"
        );
        assert!(
            t.contains(
                ": not requested (MOBILEGL_PIPE_VERIFY=0): vanilla-title-screen DirectGLES\n"
            ),
            "{t}"
        );
        assert!(t.contains("\n\ntotal: "), "{t}");
        assert!(t.contains(" Fatal line(s) in 2 log(s): "), "{t}");
    }
}
