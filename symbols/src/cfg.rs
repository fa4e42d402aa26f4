//! The `[symbols]` and `[symbol_rules]` sections of `mgctl.toml` and the MobileGL profile's
//! defaults. The binary only assembles sections; turning a section into a request is here.

use std::path::Path;

use serde::Deserialize;

fn yes() -> bool {
    true
}

/// `[symbols]`: one before/after pair of builds and what the commit admits.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SymbolsConfig {
    /// Baseline library, workspace-relative (e.g. the pull build); not with `base`.
    #[serde(default)]
    pub before: String,
    /// Library under test, workspace-relative (e.g. the push build).
    pub after: String,
    /// `auto` (default), `symtab` or `dynsym`.
    #[serde(default)]
    pub table: Option<String>,
    #[serde(default)]
    pub keep_versions: bool,
    #[serde(default)]
    pub strip_scope: Vec<String>,
    /// `OLD=NEW` entries.
    #[serde(default)]
    pub rename_map: Vec<String>,
    #[serde(default = "yes")]
    pub fail_on_symbol_set_change: bool,
    #[serde(default)]
    pub fail_on_text_delta: bool,
    #[serde(default)]
    pub fail_on_added_bytes: Option<u64>,
    /// Normalised names whose resize the commit admits.
    #[serde(default)]
    pub allow_resize: Vec<String>,
    /// Allow file (workspace-relative): `[resized|added|removed|renamed] NAME` lines.
    #[serde(default)]
    pub allow_file: Option<String>,
    /// A stale allow entry fails the gate (default true: an admission must name a real change).
    #[serde(default = "yes")]
    pub strict_allow: bool,
    /// What to run when the libraries are missing (shown in the skip reason).
    #[serde(default)]
    pub build_hint: Option<String>,
    /// A git revision whose build of `after` is the baseline instead of `before` (mgctl builds
    /// it in a throw-away worktree with the workspace's `[build]` and caches it by tree id).
    #[serde(default)]
    pub base: Option<String>,
}

impl SymbolsConfig {
    /// A section naming only the pair; every other key at its default.
    pub fn pair(before: &str, after: &str) -> SymbolsConfig {
        SymbolsConfig {
            before: before.into(),
            after: after.into(),
            table: None,
            keep_versions: false,
            strip_scope: Vec::new(),
            rename_map: Vec::new(),
            fail_on_symbol_set_change: true,
            fail_on_text_delta: false,
            fail_on_added_bytes: None,
            allow_resize: Vec::new(),
            allow_file: None,
            strict_allow: true,
            build_hint: None,
            base: None,
        }
    }

    /// The workspace-relative libraries that do not exist under `root`.
    pub fn missing(&self, root: &Path) -> Vec<&str> {
        let pair = [self.before.as_str(), self.after.as_str()];
        let read = if self.base.is_some() {
            &pair[1..]
        } else {
            &pair[..]
        };
        read.iter()
            .copied()
            .filter(|p| !root.join(p).exists())
            .collect()
    }

    /// The files a `[build]` makes for this section: the pair.
    pub fn artifacts(&self) -> Vec<String> {
        match self.base {
            Some(_) => vec![self.after.clone()],
            None => vec![self.before.clone(), self.after.clone()],
        }
    }

    /// Why the gate cannot run on the workspace at `root` (a library of the pair not built).
    pub fn skip_reason(&self, root: &Path) -> Option<String> {
        let missing = self.missing(root);
        (!missing.is_empty()).then(|| {
            format!(
                "{} not built: {}",
                missing.join(" and "),
                hint(self.build_hint.as_deref())
            )
        })
    }
}

/// What a skip reason tells the user to run.
fn hint(h: Option<&str>) -> String {
    h.map_or_else(
        || "build the libraries first".to_string(),
        |h| format!("run {h}"),
    )
}

/// `[symbol_rules]`: per-library rules.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SymbolRulesConfig {
    #[serde(default, rename = "rule")]
    pub rules: Vec<SymbolRuleConfig>,
    #[serde(default)]
    pub build_hint: Option<String>,
}

impl SymbolRulesConfig {
    /// The libraries the rules read, sorted, each once.
    pub fn libraries(&self) -> Vec<String> {
        let mut libs: Vec<String> = self.rules.iter().map(|r| r.library.clone()).collect();
        libs.sort();
        libs.dedup();
        libs
    }

    /// Why the gate cannot run on the workspace at `root`: no rules, or none of their
    /// libraries built.
    pub fn skip_reason(&self, root: &Path) -> Option<String> {
        if self.rules.is_empty() {
            return Some("[symbol_rules] has no rules".into());
        }
        if self.rules.iter().all(|r| !root.join(&r.library).exists()) {
            let mut libs: Vec<&str> = self.rules.iter().map(|r| r.library.as_str()).collect();
            libs.dedup();
            return Some(format!(
                "{} not built: {}",
                libs.join(", "),
                hint(self.build_hint.as_deref())
            ));
        }
        None
    }
}

/// One `[[symbol_rules.rule]]`: exactly one of `forbid` / `require` names the scope.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SymbolRuleConfig {
    pub name: String,
    /// Workspace-relative library path.
    pub library: String,
    /// `defined`, `undefined` or `exported`: no symbol of that scope may match.
    #[serde(default)]
    pub forbid: Option<String>,
    /// `defined`, `undefined` or `exported`: at least one symbol of that scope must match.
    #[serde(default)]
    pub require: Option<String>,
    /// Regex over the demangled text (and the mangled name); spanned so a bad one is located.
    pub pattern: toml::Spanned<String>,
    #[serde(default)]
    pub table: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
}

/// No built-in diff pair: upstream's symbol_report.py always takes `--before/--after` explicitly.
pub fn mobilegl_profile() -> Option<SymbolsConfig> {
    None
}

/// MobileGL's purity gate B and its two byte-level companions, on the default CMake build dir.
pub fn mobilegl_rules_profile() -> Option<SymbolRulesConfig> {
    let r = |name: &str,
             library: &str,
             forbid: Option<&str>,
             require: Option<&str>,
             pattern: &str,
             message: &str| SymbolRuleConfig {
        name: name.into(),
        library: library.into(),
        forbid: forbid.map(String::from),
        require: require.map(String::from),
        pattern: toml::Spanned::new(0..0, pattern.into()),
        table: None,
        message: Some(message.into()),
    };
    Some(SymbolRulesConfig {
        rules: vec![
            r(
                "purity-b",
                "build/libMobileGLServer.so",
                Some("undefined"),
                None,
                "MG_State::GLState::|glslang",
                "the server must not need the frontend state or glslang (interface-purity gate B)",
            ),
            r(
                "no-remote-in-monolith",
                "build/libMobileGL.so",
                Some("defined"),
                None,
                "MG_Remote",
                "the monolith defines no MG_Remote symbol",
            ),
            r(
                "server-entry-exported",
                "build/libMobileGLServer.so",
                None,
                Some("exported"),
                "^mobilegl_server_main$",
                "the server exports its entry point",
            ),
        ],
        build_hint: Some("build MobileGL first (cmake --build build)".into()),
    })
}
