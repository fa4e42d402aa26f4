//! Live controls of `include-probes` (issue 18 item 7): per configured probe, an `#include` of a
//! file under one of its forbidden paths, put first in the probe header in an in-memory overlay
//! of the audited workspace (never written), must turn the probe red through the same graph
//! build and the same [`analysis::probes`] as a real run. The overlay feeds the static graph
//! only: a compiler reads the disk, so these controls run the text (graph) side of the probe,
//! whatever `mode` says; in `both` mode that side alone already turns the gate red.

use std::collections::HashMap;
use std::path::{Component, Path};

use crate::analysis::{self, Mode, ProbeOptions, Severity};
use crate::cfg::{IncludeConfig, Inputs};
use crate::controls::Control;
use crate::probe::Probe;
use crate::search::normalize;
use crate::Graph;

/// The spelling of `to` relative to the directory of `from` (both root-relative, `/`).
fn relative(from: &str, to: &str) -> String {
    let dir: Vec<&str> = Path::new(from)
        .parent()
        .map(|p| {
            p.components()
                .filter_map(|c| match c {
                    Component::Normal(s) => s.to_str(),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    let target: Vec<&str> = to.split('/').collect();
    let common = dir.iter().zip(&target).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<&str> = vec![".."; dir.len() - common];
    parts.extend(&target[common..]);
    parts.join("/")
}

/// A workspace file the probe forbids (and does not allow), headers first; not the header itself.
fn forbidden_target(g: &Graph, p: &Probe) -> Option<String> {
    let candidates = || {
        g.nodes.iter().filter(|n| {
            !n.external
                && n.scanned
                && n.rel != p.header
                && p.forbidden.iter().any(|f| n.rel.starts_with(f.as_str()))
                && !p.allow.iter().any(|(a, _)| n.rel.starts_with(a.as_str()))
        })
    };
    let header = |r: &str| r.ends_with(".h") || r.ends_with(".hpp") || r.ends_with(".hh");
    candidates()
        .find(|n| header(&n.rel))
        .or_else(|| candidates().next())
        .map(|n| n.rel.clone())
}

/// One live control per probe (`live-<probe>`), over the workspace at `root`. `neutered(name)`
/// runs that control on the unmutated workspace, so it cannot trip.
pub fn live_probe_controls(
    root: &Path,
    cfg: &IncludeConfig,
    neutered: &dyn Fn(&str) -> bool,
) -> Vec<Control> {
    let fail = |name: String, detail: String| Control {
        name,
        expect_trip: true,
        tripped: false,
        detail,
    };
    let inputs = match Inputs::load(root, cfg, None) {
        Ok(i) => i,
        Err(e) => return vec![fail("live".into(), e.to_string())],
    };
    let clean = match Graph::build(&inputs.options) {
        Ok(g) => g,
        Err(e) => return vec![fail("live".into(), e.to_string())],
    };
    let probes = cfg.probes();
    let mut out = Vec::new();
    for p in &probes {
        let name = format!("live-{}", p.name);
        if clean.id(Path::new(&p.header)).is_none() {
            out.push(fail(
                name,
                format!(
                    "probe `{}`: its header {} is not a file of this workspace's include graph, so it cannot go red here (misspelt?)",
                    p.name, p.header
                ),
            ));
            continue;
        }
        let Some(target) = forbidden_target(&clean, p) else {
            out.push(fail(
                name,
                format!(
                    "probe `{}`: no file of this workspace is under its forbidden paths ({}), so it cannot go red here (misspelt?)",
                    p.name,
                    p.forbidden.join(", ")
                ),
            ));
            continue;
        };
        let mut overlay = HashMap::new();
        if !neutered(&name) {
            let path = normalize(&clean.root.join(&p.header));
            let mut bytes = match diag::walk::read(&path) {
                Ok(b) => b,
                Err(e) => {
                    out.push(fail(name, format!("{}: cannot read: {e}", p.header)));
                    continue;
                }
            };
            // First line: outside any include guard or #if, so every walk sees it.
            let mut text = format!("#include \"{}\"\n", relative(&p.header, &target)).into_bytes();
            text.append(&mut bytes);
            overlay.insert(path, text);
        }
        let run = Graph::build_overlay(&inputs.options, &overlay).and_then(|g| {
            let only = [p.name.clone()];
            let opts = ProbeOptions {
                probes: &probes,
                only: &only,
                require_all: false,
                expect_probes: None,
                mode: Mode::Text,
                compiler: None,
                compiler_flags: &[],
                compile_db: None,
            };
            analysis::probes(&g, &opts)
        });
        out.push(match run {
            Err(e) => fail(name, e.to_string()),
            Ok(o) => {
                let hit = o
                    .results
                    .iter()
                    .any(|r| r.text.violations.iter().any(|v| v.path == target));
                let detail = o
                    .diagnostics()
                    .into_iter()
                    .find(|d| d.severity == Severity::Error && d.message.contains(&target))
                    .map_or_else(
                        || format!("no finding: `{}` including {target} stayed clean", p.header),
                        |d| format!("{} {}", d.code.as_str(), d.message),
                    );
                Control {
                    name,
                    expect_trip: true,
                    tripped: hit,
                    detail,
                }
            }
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::relative;

    #[test]
    fn relative_spelling_climbs_to_the_common_directory() {
        assert_eq!(relative("A/P/V.h", "A/S/G/C.h"), "../S/G/C.h");
        assert_eq!(relative("A/P/V.h", "A/P/W.h"), "W.h");
        assert_eq!(relative("V.h", "A/B.h"), "A/B.h");
    }
}
