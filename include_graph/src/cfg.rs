//! `[include]` of mgctl.toml: the serde types, the MobileGL profile's defaults, and the step from
//! config to analysis inputs (graph options, the compile database, rule groups with their lines).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::compdb::{self, CompileUnit};
use crate::error::{Error, Result};
use crate::graph::GraphOptions;
use crate::probe::{self, Probe};
use crate::rules::{Origin, Rule, RuleError, RuleGroup};

/// `[include]` in mgctl.toml.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IncludeConfig {
    /// `-I` directories (workspace-relative or absolute), searched for `"…"` and `<…>`.
    #[serde(default)]
    pub dirs: Vec<String>,
    /// `-iquote` directories, searched for `"…"` only (before `dirs`).
    #[serde(default)]
    pub quote_dirs: Vec<String>,
    /// `-isystem` directories, searched after `dirs`.
    #[serde(default)]
    pub system_dirs: Vec<String>,
    /// A compile_commands.json whose include flags are merged into the search path (first-seen order).
    pub compile_commands: Option<String>,
    /// Directories to walk (default: the whole workspace).
    #[serde(default)]
    pub scan: Vec<String>,
    /// Workspace-relative prefixes not walked (still scanned when included).
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Also scan headers found outside the workspace (normally they are leaves, recorded only).
    #[serde(default)]
    pub walk_external: bool,
    /// Extra flags for `--mode compiler|both` (e.g. `-std=gnu++17`, `-DFOO`).
    #[serde(default)]
    pub compiler_flags: Vec<String>,
    /// A probe whose header is missing fails instead of skipping.
    #[serde(default)]
    pub require_all: bool,
    /// Fail unless exactly this many probes are selected (a SKIP counts, as upstream counts it).
    pub expect_probes: Option<usize>,
    /// `text` (the static graph) or `both` (also the real preprocessor per probe, failing on any
    /// disagreement the macro-aware walk cannot explain), like upstream's CI `--mode both`.
    #[serde(default)]
    pub mode: ProbeMode,
    /// Compiler for `mode = "both"` (default: $CXX, then c++, g++, clang++).
    pub compiler: Option<String>,
    #[serde(default, rename = "probe")]
    pub probes: Vec<ProbeConfig>,
    #[serde(default, rename = "layer")]
    pub layers: Vec<LayerConfig>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProbeMode {
    #[default]
    Text,
    Both,
}

/// `[[include.probe]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProbeConfig {
    pub name: String,
    pub header: String,
    pub forbidden: Vec<String>,
    #[serde(default)]
    pub allow: Vec<AllowConfig>,
    #[serde(default)]
    pub text_limits: Vec<TextLimitConfig>,
    #[serde(default)]
    pub required: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AllowConfig {
    pub path: String,
    pub reason: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TextLimitConfig {
    pub token: String,
    pub max: usize,
}

/// `[[include.layer]]`: the rules of one directory.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayerConfig {
    pub dir: toml::Spanned<String>,
    /// Check what each file reaches through any chain, not only its own includes.
    #[serde(default)]
    pub transitive: bool,
    /// `+path` allow, `-path` forbid, `!path` temporary allowance.
    pub rules: Vec<toml::Spanned<String>>,
    /// Known uses of this layer's `!` rules, `from -> header`; any other use is new and fails.
    #[serde(default)]
    pub known_uses: Vec<String>,
}

/// The upstream script's defaults for a real MobileGL checkout: its search directories and its
/// four probes (spec §2.2), plus the layering rule the design docs name.
pub fn mobilegl_profile() -> Option<IncludeConfig> {
    Some(IncludeConfig {
        dirs: [
            "include",
            "MobileGL",
            "MobileGL/MG_Pipe",
            "3rdparty/xxHash",
            "3rdparty/Vulkan-Headers/include",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        scan: vec!["MobileGL".into()],
        compiler_flags: vec!["-std=gnu++23".into()],
        probes: probe::mobilegl_probes()
            .into_iter()
            .map(ProbeConfig::from)
            .collect(),
        layers: vec![LayerConfig {
            dir: toml::Spanned::new(0..0, "MobileGL/MG_Backend".into()),
            transitive: true,
            rules: vec![toml::Spanned::new(
                0..0,
                "-MobileGL/MG_State/GLState".into(),
            )],
            known_uses: Vec::new(),
        }],
        ..IncludeConfig::default()
    })
}

impl From<Probe> for ProbeConfig {
    fn from(p: Probe) -> Self {
        ProbeConfig {
            name: p.name,
            header: p.header,
            forbidden: p.forbidden,
            allow: p
                .allow
                .into_iter()
                .map(|(path, reason)| AllowConfig { path, reason })
                .collect(),
            text_limits: p
                .text_limits
                .into_iter()
                .map(|(token, max)| TextLimitConfig { token, max })
                .collect(),
            required: p.required,
        }
    }
}

impl ProbeConfig {
    pub fn to_probe(&self) -> Probe {
        Probe {
            name: self.name.clone(),
            header: self.header.clone(),
            forbidden: self.forbidden.clone(),
            allow: self
                .allow
                .iter()
                .map(|a| (a.path.clone(), a.reason.clone()))
                .collect(),
            text_limits: self
                .text_limits
                .iter()
                .map(|t| (t.token.clone(), t.max))
                .collect(),
            required: self.required,
        }
    }
}

impl IncludeConfig {
    pub fn probes(&self) -> Vec<Probe> {
        self.probes.iter().map(ProbeConfig::to_probe).collect()
    }
}

/// Where config values came from: the mgctl.toml text (for lines), or the built-in profile.
pub struct ConfigSource<'a> {
    /// The config file as it should be named in messages; None for the built-in profile.
    pub path: Option<String>,
    pub text: &'a str,
}

impl ConfigSource<'_> {
    fn line(&self, span_start: usize) -> Origin {
        match &self.path {
            Some(p) => {
                let before = self
                    .text
                    .get(..span_start.min(self.text.len()))
                    .unwrap_or("");
                Origin {
                    file: p.clone(),
                    line: before.matches('\n').count() + 1,
                }
            }
            None => Origin {
                file: "<mobilegl-profile>".into(),
                line: 0,
            },
        }
    }
}

/// A layer's directory as graph keys spell it: workspace-relative, `/`-separated, without `./`,
/// a trailing `/` or a trailing `/**` glob (all of which name the same directory).
fn layer_dir(dir: &str) -> String {
    let d = dir.trim().replace('\\', "/");
    let mut d = d.trim_start_matches("./");
    loop {
        let t = d.trim_end_matches('/');
        let t = t
            .strip_suffix("/**")
            .or_else(|| t.strip_suffix("**"))
            .unwrap_or(t);
        if t == d {
            break;
        }
        d = t;
    }
    d.to_string()
}

/// The layer groups with each rule's mgctl.toml line; a malformed rule is an error at its line.
pub fn rule_groups(
    cfg: &IncludeConfig,
    src: &ConfigSource<'_>,
) -> std::result::Result<Vec<RuleGroup>, (RuleError, Origin)> {
    cfg.layers
        .iter()
        .map(|l| {
            let rules = l
                .rules
                .iter()
                .map(|r| {
                    let origin = src.line(r.span().start);
                    Rule::parse(r.get_ref(), origin.clone()).map_err(|e| (e, origin))
                })
                .collect::<std::result::Result<Vec<_>, _>>()?;
            Ok(RuleGroup {
                dir: layer_dir(l.dir.get_ref()),
                transitive: l.transitive,
                rules,
                known_uses: l.known_uses.clone(),
                origin: src.line(l.dir.span().start),
            })
        })
        .collect()
}

/// A parsed compile_commands.json.
#[derive(Debug, Clone)]
pub struct CompileDb {
    pub path: PathBuf,
    pub units: Vec<CompileUnit>,
}

impl CompileDb {
    /// The unit whose flags a preprocessor run borrows: upstream takes the first database entry
    /// under MobileGL/, else the first entry.
    pub fn probe_unit(&self) -> Option<&CompileUnit> {
        self.units
            .iter()
            .find(|u| u.file.to_string_lossy().contains("MobileGL/"))
            .or(self.units.first())
    }
}

/// The analysis inputs of a workspace: graph options and the compile database (named by
/// `compile_commands`, else by `[include] compile_commands`), read once and shared.
#[derive(Debug, Clone)]
pub struct Inputs {
    pub options: GraphOptions,
    pub compile_db: Option<CompileDb>,
}

impl Inputs {
    pub fn load(
        root: &Path,
        cfg: &IncludeConfig,
        compile_commands: Option<&Path>,
    ) -> Result<Inputs> {
        let cc = compile_commands
            .map(Path::to_path_buf)
            .or_else(|| cfg.compile_commands.as_ref().map(|c| root.join(c)));
        let compile_db = match cc {
            None => None,
            Some(path) => {
                let text = std::fs::read_to_string(&path).map_err(|e| Error::Read {
                    path: path.clone(),
                    source: e,
                })?;
                let units = compdb::parse(&text, &path)?;
                Some(CompileDb { path, units })
            }
        };
        let mut o = GraphOptions::new(root);
        let p = |v: &[String]| v.iter().map(PathBuf::from).collect::<Vec<_>>();
        o.search.user = p(&cfg.dirs);
        o.search.quote = p(&cfg.quote_dirs);
        o.search.system = p(&cfg.system_dirs);
        o.scan = p(&cfg.scan);
        // A layer's files must be in the graph to be checked: walk a layer directory that the
        // scan directories do not cover (else its files are graphed only when something
        // includes them, and the layer checks none of them).
        if !cfg.scan.is_empty() {
            let scans: Vec<String> = cfg.scan.iter().map(|s| layer_dir(s)).collect();
            for l in &cfg.layers {
                let d = layer_dir(l.dir.get_ref());
                let covered = scans
                    .iter()
                    .any(|s| s.is_empty() || d == *s || d.starts_with(&format!("{s}/")));
                if !covered && !d.is_empty() && root.join(&d).is_dir() {
                    o.scan.push(PathBuf::from(&d));
                }
            }
        }
        o.exclude = cfg.exclude.clone();
        o.walk_external = cfg.walk_external;
        if let Some(db) = &compile_db {
            // Each unit resolves its own includes with its own flags; headers use the union
            // (first-seen order), since a header has no flags of its own.
            for u in &db.units {
                o.search.merge(&u.search);
                o.units.insert(u.file.clone(), u.search.clone());
            }
        }
        Ok(Inputs {
            options: o,
            compile_db,
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn rule_lines_come_from_the_toml() {
        let text = "[include]\ndirs = [\"MobileGL\"]\n[[include.layer]]\ndir = \"MobileGL/MG_Backend\"\ntransitive = true\nrules = [\n  \"-MobileGL/MG_State/GLState\",\n  \"+MobileGL/MG_State/GLState/Public.h\",\n]\n";
        #[derive(Deserialize)]
        struct W {
            include: IncludeConfig,
        }
        let w: W = toml::from_str(text).unwrap();
        let src = ConfigSource {
            path: Some("mgctl.toml".into()),
            text,
        };
        let groups = rule_groups(&w.include, &src).unwrap();
        assert_eq!(groups[0].origin.line, 4);
        assert_eq!(groups[0].rules[0].origin.line, 7);
        assert_eq!(groups[0].rules[1].origin.line, 8);
    }

    #[test]
    fn layer_dirs_are_spelled_as_graph_keys() {
        for d in [
            "MobileGL/MG_Backend",
            "./MobileGL/MG_Backend",
            "MobileGL/MG_Backend/",
            "MobileGL/MG_Backend/**",
            "MobileGL\\MG_Backend",
        ] {
            assert_eq!(layer_dir(d), "MobileGL/MG_Backend", "{d}");
        }
    }
}
