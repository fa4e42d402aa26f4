//! `[[generated]]` and `[[pin]]` of mgctl.toml: generators whose committed outputs must be what
//! they write today, and files whose sha256 is pinned (plainly, or per revision of a constant).

use std::collections::BTreeMap;

use serde::Deserialize;

/// The default of `timeout`, in seconds, for one generator run.
pub const DEFAULT_TIMEOUT_S: u64 = 60;

/// One `[[generated]]` table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeneratedConfig {
    /// Unique; reports name the generator by it.
    pub name: toml::Spanned<String>,
    /// argv of the generator (no shell), run in a throw-away copy of the workspace, from its root.
    pub command: toml::Spanned<Vec<String>>,
    /// Workspace-relative files or globs (`*`, `**`) the generator writes; each is compared with
    /// the committed file.
    pub outputs: toml::Spanned<Vec<String>>,
    /// Seconds the run may take before its process group is killed (default 60).
    pub timeout: Option<toml::Spanned<u64>>,
}

/// One `[[pin]]` table: `sha256` alone pins the file; `key` + `key_file` with `revisions` or
/// `pins` pins it per revision of a constant.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PinConfig {
    /// The workspace-relative file whose content is pinned (hashed with CRLF folded to LF).
    pub file: toml::Spanned<String>,
    /// A plain pin: the file's sha256 (hex).
    pub sha256: Option<toml::Spanned<String>>,
    /// A regex with one capture group, the revision (`MY_REVISION (\d+)`), searched in `key_file`.
    pub key: Option<toml::Spanned<String>>,
    /// The workspace-relative source that holds the revision constant.
    pub key_file: Option<toml::Spanned<String>>,
    /// revision → sha256, inline.
    pub revisions: Option<toml::Spanned<BTreeMap<String, String>>>,
    /// A workspace-relative JSON object `{ "revision": "sha256", … }` (upstream's
    /// `scripts/ci/protocol_revision_pins.json`).
    pub pins: Option<toml::Spanned<String>>,
    /// Why the pin exists; printed with its findings.
    pub why: Option<String>,
}
