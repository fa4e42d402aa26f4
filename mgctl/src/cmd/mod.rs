//! One module per command; each takes its args, `&Settings` and the stdout writer.

pub mod ab;
pub mod bench;
pub mod check;
pub mod cite;
pub mod completions;
pub mod controls;
pub mod ctest;
pub mod dirty_surface;
pub mod fatal_sites;
pub mod include;
pub mod link_ratchet;
pub mod lint;
pub mod session;
pub mod stats;
pub mod symbols;
pub mod watch;

use std::io::Read;
use std::path::Path;

use crate::settings::Settings;

/// What a command concluded; `main` turns it into the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Pass,
    Fail,
    Internal,
}

impl Outcome {
    pub fn code(self) -> u8 {
        match self {
            Outcome::Pass => 0,
            Outcome::Fail => 1,
            Outcome::Internal => 3,
        }
    }
    pub fn from_pass(pass: bool) -> Outcome {
        if pass {
            Outcome::Pass
        } else {
            Outcome::Fail
        }
    }
}

/// The bytes of an input file, or of standard input for `-` (which a command reads once).
pub fn read_input(path: &Path) -> anyhow::Result<Vec<u8>> {
    use anyhow::Context;
    if path.as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .context("<stdin>: cannot read")?;
        return Ok(bytes);
    }
    if path.is_dir() {
        anyhow::bail!("{}: is a directory", path.display());
    }
    std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))
}

/// How an input is named in reports: `<stdin>` for `-`.
pub fn input_name(path: &Path) -> &Path {
    if path.as_os_str() == "-" {
        Path::new("<stdin>")
    } else {
        path
    }
}

/// Standard input can be read once: `-` may stand for at most one of `paths`.
pub fn one_stdin<'a>(paths: impl IntoIterator<Item = &'a Path>) -> anyhow::Result<()> {
    if paths.into_iter().filter(|p| p.as_os_str() == "-").count() > 1 {
        anyhow::bail!("`-` (standard input) can be read once; give it for one input only");
    }
    Ok(())
}

/// `mgctl <command> --self-test` of a command that is also a gate: the gate's canned controls and,
/// when `workspace` lies in a workspace, its live controls there — what `check --self-test` runs
/// for that gate — printed through the one self-test report (`diag::write_self_test`).
pub fn gate_self_test(
    gates: &[&str],
    workspace: Option<&Path>,
    settings: &Settings,
    neuter: &[String],
    json: bool,
    out: &mut dyn std::io::Write,
) -> anyhow::Result<Outcome> {
    let all = gates::all();
    // As `check --self-test`: a workspace whose mgctl.toml cannot be read is an error, not a
    // quiet fall back to the canned controls; only a directory that is no workspace runs them alone.
    let ctx = match workspace.map(|w| settings.discover(w)) {
        None => None,
        Some(root) => match settings.workspace(&root) {
            Ok(ctx) => Some(ctx),
            Err(e) if root.join(workspace_config::FILE_NAME).is_file() => return Err(e),
            Err(_) => None,
        },
    };
    // A hook names GATE/CONTROL, or a bare CONTROL of any of the command's gates.
    let mut spelled: Vec<String> = neuter.to_vec();
    for n in neuter.iter().filter(|n| !n.contains('/')) {
        spelled.extend(gates.iter().map(|g| format!("{g}/{n}")));
    }
    let neutered = crate::check::neutered(&spelled);
    let mut runs = Vec::new();
    for &gate in gates {
        let Some(g) = all.iter().find(|g| g.name() == gate) else {
            anyhow::bail!("internal: no gate named {gate}");
        };
        let mut controls = g.self_test(&neutered).controls;
        if let Some(ctx) = &ctx {
            controls.extend(g.live_controls(ctx, &neutered));
        }
        runs.push((gate, controls));
    }
    // A neuter that names no control would prove nothing: a misspelt hook is an error.
    let known = |n: &str| {
        runs.iter().any(|(gate, controls)| {
            let control = n
                .strip_prefix(*gate)
                .and_then(|r| r.strip_prefix('/'))
                .unwrap_or(if n.contains('/') { "" } else { n });
            controls.iter().any(|k| k.name == control)
        })
    };
    if let Some(n) = neuter.iter().find(|n| !known(n)) {
        let names: Vec<String> = runs
            .iter()
            .flat_map(|(g, cs)| cs.iter().map(move |c| format!("{g}/{}", c.name)))
            .collect();
        anyhow::bail!(
            "--neuter {n}: no control of that name (controls: {})",
            names.join(", ")
        );
    }
    let mut passed = true;
    for (gate, controls) in &runs {
        if runs.len() > 1 && !json {
            writeln!(out, "{gate}:")?;
        }
        passed &= diag::write_self_test(gate, controls, json, out)?;
    }
    Ok(Outcome::from_pass(passed))
}

/// A gate command whose gate reads `[build]` outputs brings them up to date first, as `check`
/// does (or, with `--no-build`, refuses stale ones). When the build stands in for the gate (its
/// outputs refused or not made), that report is the command's: printed, and it decides the exit.
pub fn build_first(
    ctx: &gates::gate::CheckCtx,
    gate: &'static str,
    artifacts: &[String],
    (no_build, json): (bool, bool),
    out: &mut dyn std::io::Write,
) -> anyhow::Result<Option<Outcome>> {
    let Some(r) = crate::check::build_override(ctx, gate, artifacts, no_build)? else {
        return Ok(None);
    };
    let passed = match &r.verdict {
        gates::gate::Verdict::Skipped { reason } => anyhow::bail!("{gate}: {reason}"),
        v => *v == gates::gate::Verdict::Pass,
    };
    if json {
        let doc = gate_doc(passed, &r.headline, &r.inputs, &r.findings);
        writeln!(out, "{}", lints::diag::pretty_json(&doc)?)?;
    } else {
        writeln!(out, "{gate}: {}", diag::escape::terminal(&r.headline))?;
        write_findings(&r.findings, &crate::output::shown(&ctx.root), out)?;
    }
    Ok(Some(Outcome::from_pass(passed)))
}

/// A gate command's `--format json` document: the verdict, headline, inputs and findings (a
/// command adds its own keys to it).
pub fn gate_doc(
    passed: bool,
    headline: &str,
    inputs: &[String],
    findings: &[check_report::Finding],
) -> serde_json::Value {
    serde_json::json!({
        "schema": 1,
        "passed": passed,
        "headline": headline,
        "inputs": inputs,
        "findings": findings_json(findings),
    })
}

/// A gate command's findings for its `--format json` document.
pub fn findings_json(findings: &[check_report::Finding]) -> Vec<serde_json::Value> {
    findings
        .iter()
        .map(|f| {
            serde_json::json!({
                "code": f.code,
                "severity": f.severity.to_string(),
                "unit": f.unit,
                "message": f.message,
                "location": f.location.as_ref().map(|l| l.to_string()),
                "detail": f.detail,
            })
        })
        .collect()
}

/// A gate command's findings as text, one `severity[CODE] path:line: message` line each, the
/// path shown from the user's directory as `check` shows it; every input-derived part escaped.
pub fn write_findings(
    findings: &[check_report::Finding],
    shown: &diag::Shown,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    for f in findings {
        let at = f
            .location
            .as_ref()
            .map(|l| format!("{}: ", diag::escape::terminal(&shown.location(l))))
            .unwrap_or_default();
        let msg = diag::escape::terminal(&f.message);
        writeln!(out, "{}[{}] {at}{msg}", f.severity, f.code)?;
    }
    Ok(())
}
