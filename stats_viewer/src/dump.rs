//! The teardown JSON dump (`MOBILEGL_PIPE_STATS_FILE`, spec §4): run totals, and their cross-check
//! against the window lines of the same session (a mismatched pair is visible, not silently mixed).

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use crate::analysis::Totals;
use crate::error::Error;
use crate::session::Session;

/// `calls` long names → the window key whose Σ over all windows must equal it.
pub const CALLS: &[(&str, &str)] = &[
    ("draws", "draws"),
    ("accessor-calls", "acc"),
    ("tex-upload-emissions", "tex.emit"),
    ("tex-upload-box", "tex.box"),
    ("tex-upload-rect", "tex.rect"),
    ("tex-upload-jobs", "tex.jobs"),
    ("render-state-cso-mints", "cso.csom"),
    ("render-state-cso-binds", "cso.csob"),
    ("map-persistent-roundtrips", "cso.mpr"),
    ("framebuffer-emissions", "emit.fbe"),
    ("sampler-view-emissions", "emit.sve"),
    ("sampler-state-emissions", "emit.sse"),
    ("shader-image-emissions", "emit.sie"),
    ("client-tex-upload-emissions", "emit.ctu"),
    ("tex-remint-pulls", "emit.trp"),
    ("residual-pulls", "emit.rsp"),
    ("server-verb-boundaries", "emit.vbs"),
    ("wire-records", "emit.wrec"),
];

/// `bytes` long names → the `bytes/f[…]` class.
pub const BYTES: &[(&str, &str)] = &[
    ("stage-buffer", "buf"),
    ("stage-texture", "tex"),
    ("stage-ubo-global", "ubog"),
    ("stage-ubo-named", "ubon"),
    ("stage-vertex-client", "vtxc"),
    ("stage-index-client", "idxc"),
    ("stage-indirect-cmd", "icmd"),
    ("persistent-map-push", "pmap"),
    ("residual-value-block", "resid"),
    ("cso-blob-bytes", "csob-blob"),
    ("stage-segment-bytes", "seg"),
];

/// `gates` long names → the short gate key.
pub const GATES: &[(&str, &str)] = &[
    ("espryt-render-state", "ers"),
    ("espryt-texture-sync-list", "etl"),
    ("espryt-unit-bindings-epoch", "eub"),
    ("magma-draw-fastpath", "mfp"),
    ("magma-pipeline-memo", "mpm"),
    ("magma-dynamic-tail", "mdt"),
];

/// `wire` gauges → the window gauge (last value).
pub const WIRE: &[(&str, &str)] = &[
    ("max-record-bytes", "emit.maxrec"),
    ("max-record-bytes-cap", "emit.maxcap"),
    ("ring-wraps", "emit.ringwraps"),
    ("ring-wrap-pads", "emit.ringpads"),
    ("ring-waits", "emit.ringwaits"),
    ("server-waits", "wait.srv"),
    ("server-parks", "wait.srvpark"),
    ("client-waits", "wait.cli"),
    ("client-parks", "wait.clipark"),
];

/// A parsed dump: every integer by `section.name` (gates as `gates.<name>.hit|miss`), histograms apart.
#[derive(Debug, Clone, PartialEq)]
pub struct Dump {
    pub path: PathBuf,
    pub frames: u64,
    pub values: Vec<(String, u64)>,
    pub histograms: Vec<(String, Vec<u64>)>,
}

fn bad(path: &Path, field: &str, reason: impl Into<String>) -> Error {
    Error::BadField {
        path: path.to_path_buf(),
        field: field.into(),
        reason: reason.into(),
    }
}

impl Dump {
    pub fn parse(path: &Path, bytes: &[u8]) -> Result<Dump, Error> {
        let v: Json =
            serde_json::from_slice(bytes).map_err(|e| crate::error::json_error(path, &e))?;
        let obj = v
            .as_object()
            .ok_or_else(|| bad(path, "(top level)", "expected an object"))?;
        let frames = obj
            .get("frames")
            .and_then(Json::as_u64)
            .ok_or_else(|| bad(path, "frames", "missing or not an unsigned integer"))?;
        let mut d = Dump {
            path: path.to_path_buf(),
            frames,
            values: Vec::new(),
            histograms: Vec::new(),
        };
        for (section, val) in obj {
            match val {
                Json::Object(m) => {
                    for (k, x) in m {
                        match x {
                            Json::Object(hm) => {
                                for half in ["hit", "miss"] {
                                    let n =
                                        hm.get(half).and_then(Json::as_u64).ok_or_else(|| {
                                            bad(
                                                path,
                                                &format!("{section}.{k}.{half}"),
                                                "missing or not an unsigned integer",
                                            )
                                        })?;
                                    d.values.push((format!("{section}.{k}.{half}"), n));
                                }
                            }
                            _ => {
                                let n = x.as_u64().ok_or_else(|| {
                                    bad(
                                        path,
                                        &format!("{section}.{k}"),
                                        format!("{x} is not an unsigned integer"),
                                    )
                                })?;
                                d.values.push((format!("{section}.{k}"), n));
                            }
                        }
                    }
                }
                Json::Array(a) => {
                    let h = a
                        .iter()
                        .enumerate()
                        .map(|(i, x)| {
                            x.as_u64().ok_or_else(|| {
                                bad(
                                    path,
                                    &format!("{section}[{i}]"),
                                    format!("{x} is not an unsigned integer"),
                                )
                            })
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    if h.len() != 24 {
                        return Err(bad(
                            path,
                            section,
                            format!("{} buckets, the producer writes 24", h.len()),
                        ));
                    }
                    d.histograms.push((section.clone(), h));
                }
                _ if section == "frames" => {}
                other => return Err(bad(path, section, format!("unexpected value {other}"))),
            }
        }
        Ok(d)
    }

    pub fn get(&self, name: &str) -> Option<u64> {
        self.values.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }
}

/// One comparison of a dump value with what the windows say.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Check {
    pub name: String,
    pub dump: u64,
    /// What the windows give (None: the windows do not carry this key, e.g. a pull-build line).
    pub windows: Option<u64>,
    /// Allowed difference (byte classes are recovered approximately from per-frame values).
    pub tolerance: u64,
    pub ok: bool,
}

/// Compares a dump with the run totals of a session.
pub fn cross_check(d: &Dump, s: &Session) -> Vec<Check> {
    let t: Totals = s.totals();
    let mut out = Vec::new();
    let mut push = |name: String, dump: u64, windows: Option<u64>, tolerance: u64| {
        let ok = windows.is_some_and(|w| w.abs_diff(dump) <= tolerance);
        out.push(Check {
            name,
            dump,
            windows,
            tolerance,
            ok,
        });
    };
    push("frames".into(), d.frames, Some(t.frames), 0);
    for (long, key) in CALLS {
        if let Some(v) = d.get(&format!("calls.{long}")) {
            push(format!("calls.{long}"), v, t.count(key), 0);
        }
    }
    for (long, key) in GATES {
        let g = t.gates.iter().find(|g| g.0 == format!("gates.{key}"));
        for (i, half) in ["hit", "miss"].iter().enumerate() {
            if let Some(v) = d.get(&format!("gates.{long}.{half}")) {
                push(
                    format!("gates.{long}.{half}"),
                    v,
                    g.map(|g| if i == 0 { g.1 } else { g.2 }),
                    0,
                );
            }
        }
    }
    for (long, key) in BYTES {
        if let Some(v) = d.get(&format!("bytes.{long}")) {
            let b = t.bytes.iter().find(|b| b.0 == *key);
            push(
                format!("bytes.{long}"),
                v,
                b.map(|b| b.1),
                b.map_or(0, |b| b.2),
            );
        }
    }
    let last = s.windows.last();
    for (long, key) in WIRE {
        if let Some(v) = d.get(&format!("wire.{long}")) {
            let w = last
                .and_then(|w| w.item.get(key))
                .and_then(crate::window::Value::as_int);
            push(format!("wire.{long}"), v, w, 0);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn rejects_bad_dumps() {
        let p = Path::new("d.json");
        assert!(Dump::parse(p, b"{\"frames\": -1}")
            .unwrap_err()
            .to_string()
            .contains("frames"));
        let e = Dump::parse(p, b"{\"frames\": 1, \"h\": [1, 2]}")
            .unwrap_err()
            .to_string();
        assert!(e.contains("2 buckets"), "{e}");
        let e = Dump::parse(p, b"{\"frames\": 1, \"calls\": {\"draws\": 1.5}}")
            .unwrap_err()
            .to_string();
        assert!(e.contains("calls.draws"), "{e}");
    }
}
