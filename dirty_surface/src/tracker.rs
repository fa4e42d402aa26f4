//! `Tracker.h`: the `MGPipeDirty` bit names (`kMGPipeDirtyNames` rows) paired with the enum's
//! enumerators (spec §1.13 "Bit names", "Enumerator ↔ name pairing").

use std::path::Path;

use crate::compat::mask;
use crate::error::{Error, Result};
use crate::rx::{is_word, Cur, Groups, Rx};

/// The two bits the RenderState derivation owns; every other bit is a non-render bit.
pub const RENDER_BITS: [&str; 2] = ["NEW_RENDER_STATE", "NEW_PIPELINE_STATE"];

#[derive(Debug, Clone, serde::Serialize)]
pub struct Bits {
    /// Bit names in table order.
    pub names: Vec<String>,
    /// `(enumerator, bit name)` pairs, by position.
    pub pairs: Vec<(String, String)>,
}

pub(crate) static NAME_ROW: Rx = Rx::with_hand(r#"^\s*"(NEW_[A-Z0-9_]+)",\s*$"#, name_row);
pub(crate) static ENUMERATOR: Rx =
    Rx::with_hand(r"^\s*([A-Za-z_]\w*)\s*(?:=\s*\d+\s*)?,\s*$", enumerator);
pub(crate) static ENUM_HEAD: Rx =
    Rx::with_hand(r"enum\s+class\s+MGPipeDirty\s*:\s*Uint32\s*\{", enum_head);

/// [`NAME_ROW`] by hand (each class is disjoint from the literal after it: nothing backtracks).
fn name_row(s: &[u8]) -> Groups {
    let Some(mut c) = Cur::past(s, b"\"") else {
        return Some(None);
    };
    let a = c.i;
    if !c.lit(b"NEW_") || c.run(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_') == 0
    {
        return Some(None);
    }
    let g1 = a..c.i;
    let ok = c.lit(b"\",") && {
        c.ws();
        c.at_end()
    };
    Some(ok.then_some([Some(0..s.len()), Some(g1), None]))
}

/// [`ENUMERATOR`] by hand.
fn enumerator(s: &[u8]) -> Groups {
    let mut c = Cur::new(s);
    c.ws();
    let a = c.i;
    if !s
        .get(a)
        .is_some_and(|&b| b.is_ascii_alphabetic() || b == b'_')
    {
        return Some(None);
    }
    c.run(is_word);
    let g1 = a..c.i;
    c.ws();
    if c.lit(b"=") {
        c.ws();
        if c.run(|b| b.is_ascii_digit()) == 0 {
            return Some(None);
        }
        c.ws();
    }
    let ok = c.lit(b",") && {
        c.ws();
        c.at_end()
    };
    Some(ok.then_some([Some(0..s.len()), Some(g1), None]))
}

/// [`ENUM_HEAD`] by hand: the first `enum` from which the rest matches (leftmost-first).
fn enum_head(s: &[u8]) -> Groups {
    let mut from = 0;
    while let Some(k) = s
        .get(from..)
        .and_then(|r| r.windows(4).position(|w| w == b"enum"))
    {
        let start = from + k;
        let mut c = Cur { s, i: start + 4 };
        let ok = c.ws() > 0
            && c.lit(b"class")
            && c.ws() > 0
            && c.lit(b"MGPipeDirty")
            && {
                c.ws();
                c.lit(b":")
            }
            && {
                c.ws();
                c.lit(b"Uint32")
            }
            && {
                c.ws();
                c.lit(b"{")
            };
        if ok {
            return Some(Some([Some(start..c.i), None, None]));
        }
        from = start + 1;
    }
    Some(None)
}

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
