//! `[layout]` of mgctl.toml: the structs whose every data member needs an `offsetof` assertion,
//! and the size macros that only ever go down.

use serde::Deserialize;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayoutConfig {
    /// The git ref every macro's ratchet compares with (a phase's base); optional.
    pub base: Option<toml::Spanned<String>>,
    #[serde(default, rename = "struct")]
    pub structs: Vec<StructConfig>,
    #[serde(default, rename = "macro")]
    pub macros: Vec<MacroConfig>,
}

impl crate::diag::Section for LayoutConfig {
    const NAME: &'static str = "[layout]";
    fn nothing_to_check(&self) -> Option<String> {
        (self.structs.is_empty() && self.macros.is_empty())
            .then(|| "[layout] has no [[layout.struct]] or [[layout.macro]]".to_string())
    }
}

/// One `[[layout.struct]]` table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StructConfig {
    /// The struct's name as its definition spells it (`ResidualValueBlock`).
    pub name: toml::Spanned<String>,
    /// The workspace-relative file that defines it.
    pub file: String,
    /// The files whose `static_assert(offsetof(…))`s count (default: `file` alone).
    #[serde(default)]
    pub asserts: Vec<String>,
}

impl StructConfig {
    /// The files searched for its assertions.
    pub fn assert_files(&self) -> Vec<String> {
        if self.asserts.is_empty() {
            vec![self.file.clone()]
        } else {
            self.asserts.clone()
        }
    }
}

/// One `[[layout.macro]]` table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MacroConfig {
    pub name: toml::Spanned<String>,
    /// The workspace-relative file that `#define`s it.
    pub file: String,
    /// The value may not exceed this.
    pub max: Option<u64>,
    /// Compare with the value at `[layout] base` (default true when a base is set).
    #[serde(default = "yes")]
    pub ratchet: bool,
    /// Why the number only goes down; printed with every finding.
    pub message: Option<String>,
}

fn yes() -> bool {
    true
}
