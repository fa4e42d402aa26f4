//! The match rule and the verdict of each claim: do the members a mutator writes meet the
//! members its bit's shutter reads?

use std::collections::{BTreeMap, BTreeSet};

use super::shutter::{resolve_shutter, shutters_parsed};
use super::{TokenSet, Verdict, Writers};
use crate::lex::Parsed;

fn members(set: &TokenSet) -> BTreeMap<String, BTreeSet<String>> {
    let mut m: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for t in set {
        if let Some(x) = t.strip_prefix("MEM:") {
            m.entry(x.to_string()).or_default();
        }
    }
    for t in set {
        if let Some(x) = t.strip_prefix("FIELD:") {
            if let Some((mem, leaf)) = x.split_once('.') {
                m.entry(mem.to_string())
                    .or_default()
                    .insert(leaf.to_string());
            }
        }
    }
    m
}

fn describe(set: &TokenSet) -> String {
    let m = members(set);
    if m.is_empty() {
        return "no member".to_string();
    }
    m.iter()
        .map(|(k, leaves)| {
            if leaves.is_empty() {
                format!("{k}{{?}}")
            } else {
                format!(
                    "{k}{{{}}}",
                    leaves.iter().cloned().collect::<Vec<_>>().join(",")
                )
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

enum Match {
    Supported,
    Coarse,
    UnderFiring,
}

fn match_rule(written: &TokenSet, shutter: &TokenSet) -> Match {
    let (wm, sm) = (members(written), members(shutter));
    let mut coarse = false;
    for (mem, sleaves) in &sm {
        let Some(wleaves) = wm.get(mem) else { continue };
        if sleaves.is_empty() || wleaves.is_empty() {
            coarse = true;
            continue;
        }
        if sleaves.contains("*") || wleaves.contains("*") || !sleaves.is_disjoint(wleaves) {
            return Match::Supported;
        }
    }
    if coarse {
        Match::Coarse
    } else {
        Match::UnderFiring
    }
}

/// One claim to decide: the mutator, the bit, and the bit's enumerator.
pub struct Claim {
    pub mutator: String,
    pub bit: String,
    pub enumerator: String,
}

/// Decide every claim, reading the shutters of `Tracker.h` (`parsed`: its tokens, shared with
/// the run's other passes). `None` when it has no readable shutters.
pub fn derive(
    tracker: &str,
    parsed: &Parsed,
    w: &Writers,
    outside: &BTreeMap<String, String>,
    claims: &[Claim],
    roots_display: &str,
) -> Option<BTreeMap<(String, String), Verdict>> {
    let sh = shutters_parsed(tracker, parsed)?;
    let mut out = BTreeMap::new();
    for c in claims {
        let verdict = (|| {
            let Some(written) = w.tokens(&c.mutator) else {
                return Verdict::Undecided(format!(
                    "no body found under {roots_display} to derive from"
                ));
            };
            let Some(shutter) = sh.get(&c.enumerator).and_then(|r| resolve_shutter(w, r)) else {
                return Verdict::Undecided("Tracker.h's shutter for that bit reads something this script cannot resolve to a member".to_string());
            };
            if let Some(t) = written.iter().find(|t| t.starts_with("TAINT:")) {
                return Verdict::Undecided(format!(
                    "the write analysis is not complete for this mutator: {}",
                    &t["TAINT:".len()..]
                ));
            }
            match match_rule(&written, &shutter) {
                Match::Supported => Verdict::Supported,
                Match::Coarse => Verdict::Coarse(format!(
                    "a member in common, but no field information on one side (shutter: {}; written: {})",
                    describe(&shutter),
                    describe(&written)
                )),
                Match::UnderFiring => {
                    if let Some(file) = shutter.iter().filter(|t| t.starts_with("MEM:")).filter_map(|t| outside.get(t)).min() {
                        return Verdict::Undecided(format!("that shutter's members are written outside the analysed roots too, e.g. {file}, so 'it writes nothing that shutter reads' is not a fact this script has"));
                    }
                    let writes = if members(&written).is_empty() { "no member".to_string() } else { describe(&written) };
                    Verdict::UnderFiring(format!(
                        "it writes nothing {}'s shutter reads (shutter: {}; it writes: {writes}), so a mutation through it publishes nothing",
                        c.bit,
                        describe(&shutter)
                    ))
                }
            }
        })();
        out.insert((c.mutator.clone(), c.bit.clone()), verdict);
    }
    Some(out)
}

/// Names with a TAINT among the given mutators.
pub fn tainted_count(w: &Writers, mutators: &BTreeSet<&str>) -> usize {
    mutators.iter().filter(|m| w.tainted(m)).count()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::lex::parse;
    use crate::nonrender::{writers, Unit};

    const TRACKER: &str = "enum class MGPipeDirty : Uint32 {\n    PixelPack = 0,\n    Patch,\n    Count\n};\nclass MGPipeTracker {\npublic:\n    Uint32 Update(const Ctx& ctx) {\n        Uint32 dirty = 0;\n        auto& ps = ctx.GetPixelStore();\n        now[Index(MGPipeDirty::PixelPack)] = ps.Pack;\n        now[Index(MGPipeDirty::Patch)] = ctx.GetPatch();\n        return dirty;\n    }\n};\n";
    const STATE: &str = "struct S {\n  const PixelStore& GetPixelStore() const { return m_pixelStore; }\n  int GetPatch() const { return m_parameters.PatchVertices; }\n  void SetPixelStoreParam(GLenum p, int v) { m_pixelStore.Pack = v; }\n  void SetClearColor(float r) { m_parameters.ClearColor = r; }\n  void SetStencilFunc(int i, int f) { auto& s = m_parameters.StencilStates[i]; s.Func = f; }\n  void SetViaRef(int& out) { out = 1; }\n  void SetAliasCall(int i) { auto& s = Lookup(i); s.x = 1; }\n  void SetStencilMask(GLenum face, int m) { StencilFaceState& state = m_parameters.StencilStates[GetStencilFaceIndex(face)]; state.WriteMask = m; }\n  void SetAll(const Params& fresh) { m_parameters = fresh; }\n};\n";

    fn verdict(m: &str, bit: &str, en: &str) -> Verdict {
        let units = [Unit {
            rel: "S.h",
            text: STATE,
        }];
        let w = writers(&units);
        let claims = [Claim {
            mutator: m.into(),
            bit: bit.into(),
            enumerator: en.into(),
        }];
        derive(
            TRACKER,
            &parse(TRACKER),
            &w,
            &BTreeMap::new(),
            &claims,
            "roots",
        )
        .unwrap()
        .into_values()
        .next()
        .unwrap()
    }

    #[test]
    fn field_level_verdicts() {
        assert_eq!(
            verdict("SetPixelStoreParam", "NEW_PIXEL_PACK", "PixelPack"),
            Verdict::Supported
        );
        assert!(
            matches!(verdict("SetClearColor", "NEW_PATCH_STATE", "Patch"), Verdict::UnderFiring(d) if d.contains("m_parameters{ClearColor}"))
        );
        assert_eq!(
            verdict("SetStencilFunc", "NEW_PATCH_STATE", "Patch").clone(),
            verdict("SetClearColor", "NEW_PATCH_STATE", "Patch")
                .clone()
                .map_detail_for_test()
        );
        assert!(
            matches!(verdict("SetViaRef", "NEW_PATCH_STATE", "Patch"), Verdict::Undecided(d) if d.contains("reference parameter 'out'"))
        );
        assert!(
            matches!(verdict("SetAliasCall", "NEW_PATCH_STATE", "Patch"), Verdict::Undecided(d) if d.contains("bound to something"))
        );
        // Issue 18 item 1: an alias bound to a member subscripted by a call resolves to the member.
        assert!(
            matches!(verdict("SetStencilMask", "NEW_PATCH_STATE", "Patch"), Verdict::UnderFiring(d) if d.contains("m_parameters{StencilStates}")),
            "{:?}",
            verdict("SetStencilMask", "NEW_PATCH_STATE", "Patch")
        );
        assert_eq!(
            verdict("SetAll", "NEW_PATCH_STATE", "Patch"),
            Verdict::Supported
        );
        assert!(
            matches!(verdict("Missing", "NEW_PATCH_STATE", "Patch"), Verdict::Undecided(d) if d.starts_with("no body found"))
        );
    }

    impl Verdict {
        fn map_detail_for_test(self) -> Verdict {
            match self {
                Verdict::UnderFiring(d) => Verdict::UnderFiring(
                    d.replace("m_parameters{ClearColor}", "m_parameters{StencilStates}"),
                ),
                o => o,
            }
        }
    }
}
