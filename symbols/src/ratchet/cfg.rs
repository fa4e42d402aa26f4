//! `[link_ratchet]` in mgctl.toml: the object directory, the partition table that is the module
//! boundary the build does not have, the baseline list and the build options it presumes.

use std::collections::BTreeMap;

use serde::Deserialize;

/// The role of an object in a server-only image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// What a server-only image is built from.
    Server,
    /// What a server-only image must be able to drop.
    Frontend,
    /// Linked into both images: satisfies references without being reach.
    Shared,
}

impl Role {
    pub const ALL: [Role; 3] = [Role::Server, Role::Frontend, Role::Shared];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Server => "SERVER",
            Role::Frontend => "FRONTEND",
            Role::Shared => "SHARED",
        }
    }
}

/// One partition row: objects whose path (relative to `objects`) starts with `prefix` — or, for
/// a prefix ending in `.o`, is exactly it — take `role`. The longest matching prefix wins.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartitionRow {
    pub prefix: String,
    pub role: Role,
    /// Why these objects have this role (shown with the row; the table is a design record).
    #[serde(default)]
    pub why: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkRatchetConfig {
    /// The per-object output of the target, workspace-relative (CMake:
    /// `build/CMakeFiles/MobileGL.dir`); every `*.o` below it is read.
    pub objects: String,
    /// The recorded reach: one demangled symbol a line, `# …` comments and ` # note` suffixes.
    pub baseline: String,
    /// `CMakeCache.txt` holding the build options `require` names, workspace-relative.
    #[serde(default)]
    pub cmake_cache: Option<String>,
    /// Build options that must hold, e.g. `MOBILEGL_BUILD_DISAGGREGATED = "ON"`: a build
    /// configured otherwise measures a smaller, meaningless set.
    #[serde(default)]
    pub require: BTreeMap<String, String>,
    #[serde(default)]
    pub partition: Vec<PartitionRow>,
}

impl LinkRatchetConfig {
    /// The files it reads that a `[build]` may make: the CMakeCache beside the objects (the
    /// objects themselves are below a directory, judged through it).
    pub fn artifacts(&self) -> Vec<String> {
        self.cmake_cache.iter().cloned().collect()
    }
}
