//! Renderers and the baseline writer for `mgctl lint fatal-sites`, and the census as the gate's
//! [`Outcome`]: upstream's headline, one `::error::` line per problem, or JSON (`"schema": 1`).

use std::io::{self, Write};
use std::path::Path;

use super::{census, Census, Code, Error, FatalSitesConfig};
use crate::diag::{Diag, Outcome};

/// Control characters from paths are shown escaped, never raw.
pub fn printable(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            let v: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            v
        })
        .collect()
}

impl Census {
    /// Upstream's `::error::path:line: message [CODE]` lines (stderr), one per problem.
    pub fn error_lines(&self) -> Vec<String> {
        self.problems
            .iter()
            .map(|p| {
                format!(
                    "::error::{}:{}: {} [{}]",
                    printable(&p.path),
                    p.line,
                    printable(&p.message),
                    p.code.as_str()
                )
            })
            .collect()
    }
}

#[derive(serde::Serialize)]
struct CensusJson<'a> {
    schema: u32,
    headline: String,
    passed: bool,
    census: &'a Census,
}

/// The census as JSON (`schema`, `headline`, `passed`, `census`).
pub fn write_json(c: &Census, out: &mut dyn Write) -> io::Result<()> {
    let doc = CensusJson {
        schema: 1,
        headline: c.headline(),
        passed: c.passed(),
        census: c,
    };
    writeln!(out, "{}", crate::diag::pretty_json(&doc)?)
}

/// `--write-baseline`: records the census's abort count and family words at `cfg.baseline`
/// under `root`, written beside it and renamed, so a reader never sees half a baseline.
/// Returns the line to print.
pub fn write_baseline(root: &Path, cfg: &FatalSitesConfig, c: &Census) -> Result<String, Error> {
    let path = root.join(&cfg.baseline);
    if path.exists() && !path.is_file() {
        return Err(Error::NotAFile { path });
    }
    let failed = |what, path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Write { path, what, source }
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(failed("create", dir))?;
    }
    let tmp = path.with_extension(format!("json.tmp-{}", std::process::id()));
    std::fs::write(&tmp, c.baseline_json()).map_err(failed("write", &tmp))?;
    std::fs::rename(&tmp, &path).map_err(failed("replace", &path))?;
    Ok(format!(
        "fatal census baseline written: {} abort sites, {} families ({})",
        c.abort_sites.len(),
        c.families.len(),
        printable(&cfg.baseline)
    ))
}

/// The `fatal-sites` gate's run: the census with its baseline, one error per problem.
pub fn outcome(root: &Path, cfg: &FatalSitesConfig) -> Outcome<Code> {
    let c = match census(root, cfg, true) {
        Ok(c) => c,
        Err(e) => return Outcome::could_not_run(vec![Diag::error(Code::Fsi004, e.to_string())]),
    };
    let diags = c
        .problems
        .iter()
        .map(|p| {
            let line = u32::try_from(p.line).unwrap_or(u32::MAX);
            Diag::error(p.code, p.message.clone())
                .at(p.path.clone(), line, None)
                .in_unit(p.path.clone())
        })
        .collect();
    Outcome {
        diags,
        headline: c.headline(),
        figures: Vec::new(),
        units: c.inputs.clone(),
        inputs: c.inputs.clone(),
    }
    .figure("files", c.files)
    .figure("abort_sites", c.abort_sites.len())
    .figure("families", c.families.len())
    .figure("unmarked", c.unmarked)
}
