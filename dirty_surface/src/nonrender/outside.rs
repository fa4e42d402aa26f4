//! Members written in files outside the analysed roots: a text scan of the masked sources, so
//! an under-firing verdict can say its shutter's members are written elsewhere too.

use std::collections::{BTreeMap, BTreeSet};

use super::Unit;
use crate::rx::Rx;

pub(crate) static OUTSIDE_PRE: Rx = Rx::new(r"(?:\+\+|--)\s*(m_\w+)");
pub(crate) static OUTSIDE_ASSIGN: Rx =
    Rx::new(r"\b(m_\w+)(?:\s*(?:\.|->)\s*\w+|\s*\[[^\]\n]*\])*\s*(?:[-+*/%&|^]|<<|>>)?=[^=]");
pub(crate) static OUTSIDE_DECL: Rx =
    Rx::new(r"(?m)^\s*[\w:<>,\s*&]*[\w>*&]\s+(m_\w+)\s*(?:=|\{|;|\[)");

/// Members written in files outside the analysed set (first file per member, sorted input).
pub fn outside_writers(units: &[Unit<'_>]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for u in units {
        // Every pattern's match holds `m_`, and masking only blanks bytes: a file without `m_`
        // cannot match, so it is neither masked nor searched.
        if !u.text.contains("m_") {
            continue;
        }
        let masked = crate::compat::mask(u.text);
        let declared: BTreeSet<&str> = OUTSIDE_DECL.group_iter(&masked, 1).into_iter().collect();
        let mut hit = |m: &str| {
            if !declared.contains(m) {
                out.entry(format!("MEM:{m}"))
                    .or_insert_with(|| u.rel.to_string());
            }
        };
        for m in OUTSIDE_PRE.group_iter(&masked, 1) {
            hit(m);
        }
        for m in OUTSIDE_ASSIGN.group_iter(&masked, 1) {
            hit(m);
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn outside_writers_skip_declared_members() {
        let u = [Unit {
            rel: "a.cpp",
            text: "int m_own = 0;\nvoid f() { m_own = 1; m_other.x = 2; ++m_count; }\n",
        }];
        let o = outside_writers(&u);
        assert!(
            o.contains_key("MEM:m_other")
                && o.contains_key("MEM:m_count")
                && !o.contains_key("MEM:m_own")
        );
    }
}
