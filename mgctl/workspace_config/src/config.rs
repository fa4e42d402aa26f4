//! `mgctl.toml`: one optional section per gate; schema in docs/config.md.
//!
//! Every section is `deny_unknown_fields`, so a misspelt key is an error that names the file, line
//! and column rather than a gate that silently does nothing.

use std::path::{Path, PathBuf};

use serde::Deserialize;

pub const FILE_NAME: &str = "mgctl.toml";

/// The largest mgctl.toml read (1 MiB; driver/mgctl.toml is 15 KB).
const CONFIG_MAX_BYTES: u64 = 1 << 20;

/// The markers that make a directory a MobileGL checkout when it has no `mgctl.toml`.
pub const MOBILEGL_MARKERS: [&str; 2] = ["MobileGL/MG_Backend", "MobileGL/MG_Pipe"];

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub workspace: WorkspaceSection,
    #[serde(default)]
    pub check: CheckSection,
    pub tokens: Option<lints::tokens::cfg::TokensConfig>,
    pub symbols: Option<symbols::cfg::SymbolsConfig>,
    pub symbol_rules: Option<symbols::cfg::SymbolRulesConfig>,
    /// `[link_ratchet]`: the frontend reach of server objects may only shrink.
    pub link_ratchet: Option<symbols::ratchet::cfg::LinkRatchetConfig>,
    pub regions: Option<lints::regions::cfg::RegionsConfig>,
    pub test_names: Option<lints::test_names::gate::TestNamesConfig>,
    pub test_sets: Option<lints::test_sets::cfg::TestSetsConfig>,
    pub preproc: Option<lints::preproc::gate::PreprocConfig>,
    pub commits: Option<lints::commits::gate::CommitsConfig>,
    pub fatals: Option<stats_viewer::g4::FatalsConfig>,
    pub cite: Option<lints::cite::cfg::CiteConfig>,
    pub include: Option<include_graph::cfg::IncludeConfig>,
    pub dirty_surface: Option<dirty_surface::cfg::DirtySurfaceConfig>,
    #[serde(default)]
    pub budget: Vec<stats_viewer::budget::BudgetConfig>,
    pub counters: Option<stats_viewer::counters::CountersConfig>,
    pub fatal_sites: Option<lints::fatal_sites::cfg::FatalSitesConfig>,
    pub layout: Option<lints::layout::cfg::LayoutConfig>,
    pub retrace: Option<stats_viewer::retrace::RetraceConfig>,
    pub ctest: Option<lints::ctest::cfg::CtestConfig>,
    /// `[[control]]`: negative controls, baseline green → perturbed red → restored green.
    #[serde(default)]
    pub control: Vec<lints::control::cfg::ControlConfig>,
    /// `[[generated]]`: generators whose committed outputs must be fresh.
    #[serde(default)]
    pub generated: Vec<lints::generated::cfg::GeneratedConfig>,
    /// `[[pin]]`: sha256 pins of files, plain or per revision of a source constant.
    #[serde(default)]
    pub pin: Vec<lints::generated::cfg::PinConfig>,
    /// `[[census]]`: registries and the call sites that must name their entries.
    #[serde(default)]
    pub census: Vec<lints::census::cfg::CensusConfig>,
    /// `[[evidence]]`: per-test role logs and the lines they must and must not hold.
    #[serde(default)]
    pub evidence: Vec<lints::evidence::cfg::EvidenceConfig>,
    /// How the artifacts the gates read are made (issue 18 item 8).
    pub build: Option<workspace_build::cfg::BuildConfig>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceSection {
    /// A display name for reports.
    pub name: Option<String>,
}

/// `[check]` in mgctl.toml: limits of the whole run.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckSection {
    /// The largest source a gate reads, in bytes (default 64 MiB): a larger one is a finding.
    pub max_file_size: Option<toml::Spanned<u64>>,
}

impl Config {
    /// The built-in profile for a MobileGL checkout without `mgctl.toml`: the defaults of the
    /// upstream scripts (see ../shared/specs/).
    pub fn mobilegl_profile() -> Config {
        Config {
            workspace: WorkspaceSection {
                name: Some("MobileGL (built-in profile)".into()),
            },
            check: CheckSection::default(),
            tokens: Some(lints::tokens::cfg::mobilegl_profile()),
            symbols: symbols::cfg::mobilegl_profile(),
            symbol_rules: symbols::cfg::mobilegl_rules_profile(),
            // Needs a disaggregated build's per-object output: a checkout configures it.
            link_ratchet: None,
            regions: lints::regions::cfg::mobilegl_profile(),
            test_names: lints::test_names::gate::mobilegl_profile(),
            // Lane listings are build outputs: a checkout configures [test_sets].
            test_sets: None,
            preproc: lints::preproc::gate::mobilegl_profile(),
            commits: lints::commits::gate::mobilegl_profile(),
            fatals: stats_viewer::g4::mobilegl_profile(),
            cite: lints::cite::cfg::mobilegl_profile(),
            include: include_graph::cfg::mobilegl_profile(),
            dirty_surface: dirty_surface::cfg::mobilegl_profile(),
            budget: stats_viewer::budget::mobilegl_profile(),
            counters: stats_viewer::counters::mobilegl_profile(),
            fatal_sites: lints::fatal_sites::cfg::mobilegl_profile(),
            // G10 is a P2 tripwire (the block exists from P2 on): a checkout configures it.
            layout: None,
            retrace: stats_viewer::retrace::mobilegl_profile(),
            // Which lanes upload JUnit, and where, is a checkout's CI layout: it configures [ctest].
            ctest: None,
            // Which tests a checkout's controls perturb, and how, is its own: it configures them.
            control: Vec::new(),
            // gen_pipe.py's outputs and the protocol pins are a checkout's to configure.
            generated: Vec::new(),
            pin: Vec::new(),
            // Which registries a checkout keeps, and their sites, are its own.
            census: Vec::new(),
            // Role logs exist only after a lane ran, where its CI puts them: a checkout configures them.
            evidence: Vec::new(),
            // A MobileGL checkout builds with its own cmake setup; mgctl never starts that itself.
            build: None,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}:{line}:{column}: {message}")]
    Syntax {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{path}: {message}")]
    Whole { path: String, message: String },
    #[error(
        "{root}: no {FILE_NAME} here, and it does not look like a MobileGL checkout (looked for {}); \
         {hint}",
        MOBILEGL_MARKERS.join(" or ")
    )]
    NoWorkspace { root: String, hint: String },
}

/// What to suggest when `root` is no workspace: the workspaces one level down (`mgctl check
/// driver` from the repository root), else how to make one.
fn no_workspace_hint(root: &Path) -> String {
    let mut below: Vec<String> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().join(FILE_NAME).is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    below.sort();
    match below.first() {
        Some(first) => format!(
            "a workspace is one level down: {} (run `mgctl check {first}`)",
            below.join(", ")
        ),
        None => format!(
            "write a {FILE_NAME} (see docs/config.md) or point mgctl at a MobileGL checkout"
        ),
    }
}

/// Parses config text; errors carry `path:line:column`.
pub fn parse(text: &str, path: &Path) -> Result<Config, Error> {
    // A lone CR ends a line (docs/config.md) but TOML knows only LF and CRLF: it becomes an LF,
    // one byte for one, so every span still points into `text`.
    let lf: String = text
        .char_indices()
        .map(|(i, c)| match c {
            '\r' if text.as_bytes().get(i + 1) != Some(&b'\n') => '\n',
            c => c,
        })
        .collect();
    toml::from_str(&lf).map_err(|e| {
        let display = path.display().to_string();
        let mut message = one_line(e.message());
        if message.is_empty() {
            message = "malformed TOML".to_string();
        }
        match e.span() {
            Some(span) => {
                let (line, column) = line_col(text, span.start);
                Error::Syntax {
                    path: display,
                    line,
                    column,
                    message,
                }
            }
            None => Error::Whole {
                path: display,
                message,
            },
        }
    })
}

/// A possibly multi-line parser message as one line: its lines joined with "; ".
fn one_line(message: &str) -> String {
    let parts: Vec<&str> = message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    check_report::text::escape(&parts.join("; "))
}

/// 1-based line and column (in characters) of a byte offset. A line ends at LF, CRLF or a
/// lone CR (old Mac files), as editors count them.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text[..end];
    let breaks =
        |s: &str| s.matches('\n').count() + s.matches('\r').count() - s.matches("\r\n").count();
    let line = breaks(before) + 1;
    let column = before
        .rsplit(['\n', '\r'])
        .next()
        .map_or(0, |l| l.chars().count())
        + 1;
    (line, column)
}

/// Finds and loads the configuration of the workspace at `root` (already canonical).
pub fn load(root: &Path) -> Result<(Config, Option<PathBuf>, String), Error> {
    let path = root.join(FILE_NAME);
    if path.is_file() {
        // A config is a few KB: one past CONFIG_MAX_BYTES is refused before it is parsed (issue
        // 29: 10 MB of globs peaked at 1.1 GB).
        let bytes = diag::walk::read_capped(&path, CONFIG_MAX_BYTES).map_err(|e| Error::Whole {
            path: path.display().to_string(),
            message: match e.kind() {
                std::io::ErrorKind::FileTooLarge => e.to_string().replace(
                    "limit ([check] max_file_size): not read",
                    "limit of an mgctl.toml: not read",
                ),
                _ => e.to_string(),
            },
        })?;
        let text = String::from_utf8(bytes).map_err(|e| {
            let at = e.utf8_error().valid_up_to();
            let bytes = e.as_bytes();
            let valid = std::str::from_utf8(&bytes[..at]).unwrap_or_default();
            let (line, column) = line_col(valid, at);
            Error::Syntax {
                path: path.display().to_string(),
                line,
                column,
                message: format!(
                    "not UTF-8 (byte 0x{:02x} at offset {at}); mgctl.toml must be UTF-8 text",
                    bytes.get(at).copied().unwrap_or(0)
                ),
            }
        })?;
        let config = parse(&text, &path)?;
        if let Some(max) = &config.check.max_file_size {
            if *max.get_ref() == 0 {
                let (line, column) = line_col(&text, max.span().start);
                let message = "max_file_size must be at least 1 byte".to_string();
                let path = path.display().to_string();
                return Err(Error::Syntax {
                    path,
                    line,
                    column,
                    message,
                });
            }
            diag::walk::set_max_file_size(*max.get_ref());
        }
        outside_paths(&config, &text, &path)?;
        return Ok((config, Some(path), text));
    }
    if MOBILEGL_MARKERS.iter().any(|m| root.join(m).is_dir()) {
        return Ok((Config::mobilegl_profile(), None, String::new()));
    }
    Err(Error::NoWorkspace {
        root: root.display().to_string(),
        hint: no_workspace_hint(root),
    })
}

/// A path key whose value leads outside the workspace (absolute, or `..` past the root) is an
/// error at its line (issue 29), as `[build] outputs` is.
fn outside_paths(c: &Config, text: &str, path: &Path) -> Result<(), Error> {
    let mut keys: Vec<(&str, &str)> = Vec::new();
    let regions = c.regions.iter().flat_map(|r| &r.regions);
    keys.extend(regions.map(|r| ("regions.region.file", r.file.as_str())));
    keys.extend(
        c.test_names
            .iter()
            .map(|t| ("test_names.current", t.current.as_str())),
    );
    let sets = c.test_sets.iter().flat_map(lints::test_sets::paths);
    keys.extend(sets.map(|p| ("test_sets.lane.listing", p)));
    keys.extend(
        c.dirty_surface
            .iter()
            .map(|d| ("dirty_surface.def", d.def.as_str())),
    );
    keys.extend(
        c.fatal_sites
            .iter()
            .map(|f| ("fatal_sites.root", f.root.as_str())),
    );
    keys.extend(
        c.symbols
            .iter()
            .map(|s| ("symbols.before", s.before.as_str())),
    );
    keys.extend(
        c.symbols
            .iter()
            .map(|s| ("symbols.after", s.after.as_str())),
    );
    let census = c.census.iter().flat_map(|k| k.paths());
    keys.extend(census.map(|p| ("census.registry.file", p)));
    if let Some(l) = &c.link_ratchet {
        keys.push(("link_ratchet.objects", l.objects.as_str()));
        keys.push(("link_ratchet.baseline", l.baseline.as_str()));
        keys.extend(
            l.cmake_cache
                .iter()
                .map(|p| ("link_ratchet.cmake_cache", p.as_str())),
        );
    }
    let evidence = c.evidence.iter().flat_map(lints::evidence::cfg::paths);
    keys.extend(evidence);
    let docs = c.cite.iter().flat_map(|d| &d.docs);
    keys.extend(docs.map(|d| ("cite.docs", d.as_str())));
    let probes = c.include.iter().flat_map(|i| &i.probes);
    keys.extend(probes.map(|p| ("include.probe.header", p.header.as_str())));
    for (key, value) in keys {
        if diag::walk::inside_workspace(Path::new(value)) {
            continue;
        }
        // The key's line: the first line naming the key that quotes the value.
        let leaf = key.rsplit('.').next().unwrap_or(key);
        let quoted = [format!("\"{value}\""), format!("'{value}'")];
        let line = text
            .lines()
            .position(|l| l.contains(leaf) && quoted.iter().any(|q| l.contains(q.as_str())))
            .or_else(|| {
                text.lines()
                    .position(|l| quoted.iter().any(|q| l.contains(q.as_str())))
            })
            .map_or(1, |i| i + 1);
        let value = diag::escape::shorten(value, diag::escape::QUOTE_CHARS);
        return Err(Error::Syntax {
            path: path.display().to_string(),
            line,
            column: 1,
            message: format!(
                "{key} `{}` must be a path inside the workspace (relative, no `..` above it)",
                check_report::text::escape(&value)
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn unknown_key_names_line_and_column() {
        let err = parse("[workspace]\nname = \"x\"\nnmae = 1\n", Path::new("m.toml")).unwrap_err();
        let text = err.to_string();
        assert!(
            text.starts_with("m.toml:3:1: unknown field `nmae`"),
            "{text}"
        );
    }

    #[test]
    fn wrong_type_is_an_error() {
        let err = parse("[workspace]\nname = 3\n", Path::new("m.toml")).unwrap_err();
        assert!(err.to_string().starts_with("m.toml:2:8:"), "{err}");
    }

    #[test]
    fn line_col_counts_cr_only_and_crlf_lines() {
        assert_eq!(line_col("a\rb\rcd", 5), (3, 2));
        assert_eq!(line_col("a\r\nb", 3), (2, 1));
    }

    #[test]
    fn cr_only_lines_are_lines() {
        let c = parse("[workspace]\rname = \"x\"\r", Path::new("m.toml")).unwrap();
        assert_eq!(c.workspace.name.as_deref(), Some("x"));
        let err = parse("[workspace]\rnmae = 1\r", Path::new("m.toml")).unwrap_err();
        assert!(
            err.to_string().starts_with("m.toml:2:1: unknown field"),
            "{err}"
        );
        assert!(parse("\r\r", Path::new("m.toml")).is_ok());
    }

    #[test]
    fn line_col_counts_characters() {
        assert_eq!(line_col("ab\ncé d", 7), (2, 4));
    }
}
