//! The `layout` gate's canned controls, run through [`super::check::check_source`] like a real
//! run: each negative control must trip with its own code, each positive control stay clean.

use std::collections::BTreeMap;
use std::path::PathBuf;

use diag::Control;

use super::cfg::{LayoutConfig, MacroConfig, StructConfig};
use super::check::{check_source, AtBase, Base, Code};
use crate::source::{Disk, Overlay};

const FILE: &str = "MobileGL/MG_Pipe/MGPipeResidual.h";
const STRUCT: &str = "ResidualValueBlock";
const MACRO: &str = "MGL_RESIDUAL_BLOCK_SIZE";

/// The base ref of a control: one file's text, or none.
struct TextBase(Option<String>);

impl Base for TextBase {
    fn label(&self) -> String {
        "control-base".into()
    }
    fn read(&self, _rel: &str) -> AtBase {
        match &self.0 {
            Some(t) => AtBase::Bytes(t.clone().into_bytes()),
            None => AtBase::Missing,
        }
    }
}

fn config(strukt: &str, max: Option<u64>) -> LayoutConfig {
    LayoutConfig {
        base: Some(toml::Spanned::new(0..0, "control-base".into())),
        structs: vec![StructConfig {
            name: toml::Spanned::new(0..0, strukt.into()),
            file: FILE.into(),
            asserts: Vec::new(),
        }],
        macros: vec![MacroConfig {
            name: toml::Spanned::new(0..0, MACRO.into()),
            file: FILE.into(),
            max,
            ratchet: true,
            message: None,
        }],
    }
}

/// A header with the block, its assertions and its size: `members` (type, name), the members
/// whose `offsetof` is asserted, and the size macro's value.
fn header(members: &[(&str, &str)], asserted: &[&str], size: u32) -> String {
    let mut s = format!("#pragma once\n#include <cstddef>\n#define {MACRO} {size}\n");
    s.push_str(&format!("struct {STRUCT} {{\n"));
    for (ty, name) in members {
        s.push_str(&format!("    {ty} {name} = 0;\n"));
    }
    s.push_str("    bool Has(unsigned bit) const { return (CapabilityBits >> bit) & 1u; }\n");
    s.push_str("    static constexpr unsigned kCount = 35;\n};\n");
    for m in asserted {
        s.push_str(&format!(
            "static_assert(offsetof(MG_Pipe::{STRUCT}, {m}) % alignof(unsigned) == 0, \"{m}\");\n"
        ));
    }
    s
}

const ONE: &[(&str, &str)] = &[("Uint64", "CapabilityBits")];
const TWO: &[(&str, &str)] = &[("Uint32", "CapabilityBits"), ("Uint32", "Generation")];

/// Runs every control; `neutered(name)` feeds that negative control its clean twin.
pub fn run_controls(neutered: &dyn Fn(&str) -> bool) -> Vec<Control> {
    let clean = header(ONE, &["CapabilityBits"], 8);
    let base8 = Some(header(ONE, &["CapabilityBits"], 8));
    // (name, must trip, its code, struct name configured, max, base text, file, clean twin)
    type Case = (
        &'static str,
        bool,
        Code,
        &'static str,
        Option<u64>,
        Option<String>,
        String,
        String,
    );
    let cases: Vec<Case> = vec![
        (
            "member-without-offsetof",
            true,
            Code::Lay001,
            STRUCT,
            Some(8),
            base8.clone(),
            header(TWO, &["CapabilityBits"], 8),
            header(TWO, &["CapabilityBits", "Generation"], 8),
        ),
        (
            "offsetof-only-in-a-comment",
            true,
            Code::Lay001,
            STRUCT,
            Some(8),
            base8.clone(),
            format!(
                "{}// static_assert(offsetof({STRUCT}, Generation) == 4);\n",
                header(TWO, &["CapabilityBits"], 8)
            ),
            header(TWO, &["CapabilityBits", "Generation"], 8),
        ),
        (
            "macro-above-max",
            true,
            Code::Lay004,
            STRUCT,
            Some(8),
            Some(header(ONE, &["CapabilityBits"], 16)),
            header(ONE, &["CapabilityBits"], 16),
            clean.clone(),
        ),
        (
            "macro-above-base",
            true,
            Code::Lay005,
            STRUCT,
            Some(8),
            Some(header(ONE, &["CapabilityBits"], 4)),
            header(ONE, &["CapabilityBits"], 8),
            header(ONE, &["CapabilityBits"], 4),
        ),
        (
            "assertion-names-no-member",
            true,
            Code::Lay002,
            STRUCT,
            Some(8),
            base8.clone(),
            header(ONE, &["CapabilityBits", "RenderState"], 8),
            clean.clone(),
        ),
        (
            "struct-not-found",
            true,
            Code::Lay003,
            "ResidualValueBlok",
            Some(8),
            base8.clone(),
            clean.clone(),
            clean.clone(),
        ),
        (
            "every-member-asserted-at-max",
            false,
            Code::Lay001,
            STRUCT,
            Some(8),
            base8.clone(),
            clean.clone(),
            String::new(),
        ),
        (
            "lowered-below-base",
            false,
            Code::Lay005,
            STRUCT,
            Some(8),
            base8,
            header(ONE, &["CapabilityBits"], 4),
            String::new(),
        ),
        (
            "new-since-base",
            false,
            Code::Lay005,
            STRUCT,
            Some(8),
            None,
            clean,
            String::new(),
        ),
    ];
    let disk = Disk {
        root: PathBuf::from("<control>"),
    };
    cases
        .into_iter()
        .map(
            |(name, expect_trip, want, strukt, max, base, bad, clean_twin)| {
                // the struct-not-found control's clean twin is the configuration spelt right
                let strukt = if name == "struct-not-found" && neutered(name) {
                    STRUCT
                } else {
                    strukt
                };
                let text = if expect_trip && neutered(name) {
                    clean_twin
                } else {
                    bad
                };
                let src = Overlay {
                    base: &disk,
                    files: BTreeMap::from([(FILE.to_string(), text.into_bytes())]),
                };
                let o = check_source(&src, Some(&TextBase(base)), &config(strukt, max));
                Control::from_diags(name, expect_trip, want, &o.diags)
            },
        )
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_control_behaves_and_neutering_breaks_each() {
        let all = super::run_controls(&|_| false);
        assert!(all.iter().all(|c| c.ok()), "{all:?}");
        // Each negative control, neutered by name, stops tripping and fails the self-test.
        let proven = diag::controls_can_fail(&|n| super::run_controls(n));
        assert!(proven.is_ok_and(|n| n > 0));
    }
}
