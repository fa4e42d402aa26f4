//! `[regions]` of mgctl.toml and the MobileGL profile's protected regions.

use serde::Deserialize;

use super::{RegionKind, RegionSpec};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegionsConfig {
    /// A git ref whose bodies are the baseline of unpinned rows in `check` (optional).
    pub base: Option<String>,
    /// The protected regions, in order (the order names the first mover).
    #[serde(rename = "region", default)]
    pub regions: Vec<RegionSpec>,
}

impl crate::diag::Section for RegionsConfig {
    const NAME: &'static str = "[regions]";
    fn nothing_to_check(&self) -> Option<String> {
        (self.regions.is_empty()).then(|| "[regions] lists no region".to_string())
    }
}

fn row(name: &str, kind: RegionKind, file: &str, pin: Option<&str>) -> RegionSpec {
    RegionSpec {
        name: name.to_string(),
        file: file.to_string(),
        kind,
        sha256: pin.map(str::to_string),
        reason: None,
    }
}

/// Upstream's p4a list (a superset of p3a), in its order, with the ID-41 pin. Upstream compares
/// against a phase's base ref; set `base` to that ref to verify the unpinned rows in `check`.
pub fn mobilegl_profile() -> Option<RegionsConfig> {
    const M: &str = "MobileGL/MG_Backend/DirectGLES/Managers.cpp";
    const PIN: &str = "172b022273db01b16e772d15b269ffcd797fe38c767f7354d83ce113a66040d0";
    let f = RegionKind::Function;
    let mut rows: Vec<RegionSpec> = [
        "IsPoolable",
        "EnrollIntoPool",
        "AcquireFromPool",
        "TrimBufferPool",
        "ClearBufferPool",
        "ProcessDeferredBufferReleases",
        "CreateRingStorage",
        "RingAvailable",
        "RingAllocate",
        "FlushPendingRangesNow",
    ]
    .iter()
    .map(|n| row(n, f, M, None))
    .collect();
    let mut flush = row("FlushPendingRangesFrom", f, M, Some(PIN));
    flush.reason = Some("pinned at 3dadd4c1 (decision ID-41)".into());
    rows.push(flush);
    for n in [
        "StageBlocksIntoUnpackRing",
        "UnpackRingAvailable",
        "UnpackRingAllocate",
        "RecomputeBackendColorSlots",
    ] {
        rows.push(row(n, f, M, None));
    }
    rows.push(row(
        "DepthStencilSamplingReadImpl",
        RegionKind::Namespace,
        "MobileGL/MG_Backend/DirectGLES/DirectGLES.cpp",
        None,
    ));
    rows.push(row(
        "ShouldUseCaveatTextureFormat",
        f,
        "MobileGL/MG_Backend/DirectGLES/Utils.cpp",
        None,
    ));
    Some(RegionsConfig {
        base: None,
        regions: rows,
    })
}
