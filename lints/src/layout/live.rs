//! Live controls: canned mutations of an in-memory overlay of the audited workspace (never
//! written) that must turn the real entry point ([`super::check::check_source`]) red.
//!
//! - `live-<struct>`: a member `mgctlLiveProbe` with no assertion, put first in the struct's
//!   body, must be reported (LAY001);
//! - `live-<macro>`: a second `#define` of the macro, one above its `max` (LAY004) or, without a
//!   max, far above its value at the base ref (LAY005), appended to its file.

use std::collections::BTreeMap;

use diag::{Control, Diag};

use super::cfg::LayoutConfig;
use super::check::{check_source, Base, Code};
use crate::source::{Overlay, Source};

const PROBE: &str = "mgctlLiveProbe";

/// One live control per configured struct and macro, run over `src` (the workspace on disk)
/// with `base` (the `[layout] base` ref, when configured). `neutered(name)` runs that control on
/// the unmutated workspace, so it cannot trip.
pub fn live_controls(
    src: &dyn Source,
    base: Option<&dyn Base>,
    cfg: &LayoutConfig,
    neutered: &dyn Fn(&str) -> bool,
) -> Vec<Control> {
    let fail = |name: String, detail: String| Control {
        name,
        expect_trip: true,
        tripped: false,
        detail,
    };
    let run =
        |name: &str, want: Code, rel: &str, text: Vec<u8>, own: &dyn Fn(&Diag<Code>) -> bool| {
            let files = if neutered(name) {
                BTreeMap::new()
            } else {
                BTreeMap::from([(rel.to_string(), text)])
            };
            let overlay = Overlay { base: src, files };
            let o = check_source(&overlay, base, cfg);
            // the mutation's own finding counts, not one the workspace already had
            let mine: Vec<Diag<Code>> = o.diags.into_iter().filter(|d| own(d)).collect();
            Control::from_diags(name, true, want, &mine)
        };
    let mut out = Vec::new();
    for s in &cfg.structs {
        let name = format!("live-{}", s.name.get_ref());
        let Ok(text) = src.read(&s.file) else {
            out.push(fail(name, format!("{}: cannot read", s.file)));
            continue;
        };
        let defs = super::structs(&super::lex(&text), s.name.get_ref());
        let Some(def) = defs.first() else {
            out.push(fail(
                name,
                format!(
                    "struct `{}` is not defined in {}, so it cannot go red here",
                    s.name.get_ref(),
                    s.file
                ),
            ));
            continue;
        };
        let mut t = text[..def.body_start].to_vec();
        t.extend_from_slice(format!(" unsigned char {PROBE}; ").as_bytes());
        t.extend_from_slice(&text[def.body_start..]);
        out.push(run(&name, Code::Lay001, &s.file, t, &|d| {
            d.message.contains(PROBE)
        }));
    }
    for m in &cfg.macros {
        let name = format!("live-{}", m.name.get_ref());
        let Ok(mut text) = src.read(&m.file) else {
            out.push(fail(name, format!("{}: cannot read", m.file)));
            continue;
        };
        let (value, want) = match (m.max, base.filter(|_| m.ratchet)) {
            (Some(max), _) => (max.saturating_add(1), Code::Lay004),
            (None, Some(_)) => (1 << 40, Code::Lay005),
            (None, None) => {
                out.push(fail(
                    name,
                    format!(
                        "macro `{}` has no max and no base ratchet, so it cannot go red",
                        m.name.get_ref()
                    ),
                ));
                continue;
            }
        };
        if !text.ends_with(b"\n") {
            text.push(b'\n');
        }
        let line = text.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
        text.extend_from_slice(format!("#define {} {value}\n", m.name.get_ref()).as_bytes());
        out.push(run(&name, want, &m.file, text, &|d| {
            d.location.as_ref().is_some_and(|l| l.line == Some(line))
        }));
    }
    out
}
