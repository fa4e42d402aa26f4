//! `[dirty_surface]` in mgctl.toml: the serde section and the MobileGL-profile defaults.

use serde::Deserialize;

use crate::audit::Settings;
use crate::error::Error;
use crate::scan::upstream_prefixes;

/// `[dirty_surface]` in mgctl.toml. Every key has the MobileGL default.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirtySurfaceConfig {
    /// Directories scanned for mutator calls (recursive, `.cpp`/`.h`).
    #[serde(default = "default_scan_roots")]
    pub scan_roots: Vec<String>,
    /// Mutator name prefixes; exclusive with `prefix_set`.
    pub prefixes: Option<Vec<String>>,
    /// An upstream prefix set by version: P0, P1, P2, P3a (10 words), P4a (12), P5e (13).
    pub prefix_set: Option<String>,
    #[serde(default = "default_def")]
    pub def: String,
    #[serde(default = "default_render_state")]
    pub render_state: String,
    #[serde(default = "default_tracker")]
    pub tracker: String,
    #[serde(default = "default_write_roots")]
    pub write_roots: Vec<String>,
    #[serde(default = "default_containment_root")]
    pub containment_root: String,
}

fn default_scan_roots() -> Vec<String> {
    Settings::mobilegl().scan_roots
}
fn default_def() -> String {
    Settings::mobilegl().def
}
fn default_render_state() -> String {
    Settings::mobilegl().render_state
}
fn default_tracker() -> String {
    Settings::mobilegl().tracker
}
fn default_write_roots() -> Vec<String> {
    Settings::mobilegl().write_roots
}
fn default_containment_root() -> String {
    Settings::mobilegl().containment_root
}

impl Default for DirtySurfaceConfig {
    fn default() -> Self {
        DirtySurfaceConfig {
            scan_roots: default_scan_roots(),
            prefixes: None,
            prefix_set: None,
            def: default_def(),
            render_state: default_render_state(),
            tracker: default_tracker(),
            write_roots: default_write_roots(),
            containment_root: default_containment_root(),
        }
    }
}

impl DirtySurfaceConfig {
    /// The library settings; a bad prefix choice is a one-line error.
    pub fn settings(&self) -> crate::Result<Settings> {
        let prefixes = match (&self.prefixes, &self.prefix_set) {
            (Some(_), Some(_)) => return Err(Error::BothPrefixes),
            (Some(p), None) => p.clone(),
            (None, Some(v)) => {
                upstream_prefixes(v).ok_or_else(|| Error::UnknownPrefixSet { set: v.clone() })?
            }
            (None, None) => Settings::mobilegl().prefixes,
        };
        Ok(Settings {
            scan_roots: self.scan_roots.clone(),
            prefixes,
            def: self.def.clone(),
            render_state: self.render_state.clone(),
            tracker: self.tracker.clone(),
            write_roots: self.write_roots.clone(),
            containment_root: self.containment_root.clone(),
        })
    }
}

/// Upstream's fixed paths and the newest (P5e) prefix set.
pub fn mobilegl_profile() -> Option<DirtySurfaceConfig> {
    Some(DirtySurfaceConfig::default())
}
