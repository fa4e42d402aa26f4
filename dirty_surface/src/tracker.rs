//! `Tracker.h`: the `MGPipeDirty` bit names (`kMGPipeDirtyNames` rows) paired with the enum's
//! enumerators (spec §1.13 "Bit names", "Enumerator ↔ name pairing").

use std::path::Path;

use crate::compat::mask;
use crate::error::{Error, Result};
use crate::rx::Rx;

/// The two bits the RenderState derivation owns; every other bit is a non-render bit.
pub const RENDER_BITS: [&str; 2] = ["NEW_RENDER_STATE", "NEW_PIPELINE_STATE"];

#[derive(Debug, Clone, serde::Serialize)]
pub struct Bits {
    /// Bit names in table order.
    pub names: Vec<String>,
    /// `(enumerator, bit name)` pairs, by position.
    pub pairs: Vec<(String, String)>,
}

pub(crate) static NAME_ROW: Rx = Rx::new(r#"^\s*"(NEW_[A-Z0-9_]+)",\s*$"#);
pub(crate) static ENUMERATOR: Rx = Rx::new(r"^\s*([A-Za-z_]\w*)\s*(?:=\s*\d+\s*)?,\s*$");
pub(crate) static ENUM_HEAD: Rx = Rx::new(r"enum\s+class\s+MGPipeDirty\s*:\s*Uint32\s*\{");

/// Read the bit names and pair them with the enumerators; a drift between the two is an error.
pub fn parse_bits(text: &str, path: &Path) -> Result<Bits> {
    let names: Vec<String> = text
        .lines()
        .filter_map(|l| {
            NAME_ROW
                .captures(l)
                .and_then(|c| c.get(1))
                .map(str::to_string)
        })
        .collect();
    if names.is_empty() {
        return Err(Error::Tracker {
            path: path.to_path_buf(),
            line: 1,
            message: "could not read the MGPipeDirty bit names (no `\"NEW_…\",` rows)".into(),
        });
    }
    let masked = mask(text);
    let Some(head) = ENUM_HEAD.find(&masked) else {
        return Err(Error::Tracker {
            path: path.to_path_buf(),
            line: 1,
            message: "could not pair MGPipeDirty's enumerators with kMGPipeDirtyNames: no `enum class MGPipeDirty : Uint32 {`".into(),
        });
    };
    let open = head.end - 1;
    let close = crate::compat::match_brace(masked.as_bytes(), open);
    let body = &masked[open + 1..close.min(masked.len())];
    let enums: Vec<String> = body
        .lines()
        .filter_map(|l| {
            ENUMERATOR
                .captures(l)
                .and_then(|c| c.get(1))
                .map(str::to_string)
        })
        .filter(|e| e != "Count")
        .collect();
    if enums.len() != names.len() {
        let line = masked[..open].matches('\n').count() + 1;
        return Err(Error::Tracker {
            path: path.to_path_buf(),
            line,
            message: format!(
                "could not pair MGPipeDirty's {} enumerators with kMGPipeDirtyNames' {} names - the enum and its name table have drifted apart",
                enums.len(),
                names.len()
            ),
        });
    }
    let pairs = enums.into_iter().zip(names.iter().cloned()).collect();
    Ok(Bits { names, pairs })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn pairs_and_drift() {
        let t = "enum class MGPipeDirty : Uint32 {\n    RenderState = 0,\n    PipelineState,\n    Count\n};\ninline constexpr const char* kMGPipeDirtyNames[] = {\n    \"NEW_RENDER_STATE\",\n    \"NEW_PIPELINE_STATE\",\n};\n";
        let b = parse_bits(t, Path::new("Tracker.h")).unwrap();
        assert_eq!(
            b.pairs[1],
            (
                "PipelineState".to_string(),
                "NEW_PIPELINE_STATE".to_string()
            )
        );
        let bad = t.replace("    PipelineState,\n", "");
        let e = parse_bits(&bad, Path::new("Tracker.h"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("drifted apart"), "{e}");
    }
}
