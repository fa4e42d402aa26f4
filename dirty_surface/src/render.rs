//! The render-state "truth half" (spec §1.12): which of NEW_RENDER_STATE / NEW_PIPELINE_STATE
//! each `Set…` body of `RenderState.cpp` publishes, directly or by delegating to another setter.

use std::collections::{BTreeMap, BTreeSet};

use crate::lex::{parse, text, Kind, Parsed};

/// Derived publishers per setter name.
pub type Derived = BTreeMap<String, BTreeSet<&'static str>>;

struct Body {
    direct: BTreeSet<&'static str>,
    callees: BTreeSet<String>,
}

/// Derive the setters' publishers. `upstream_fold` keeps upstream's shared visited set, under
/// which two overloads delegating to the same setter fold to the empty set; without it each
/// overload resolves on its own path.
pub fn derive(src: &str, upstream_fold: bool) -> Derived {
    derive_parsed(src, &parse(src), upstream_fold)
}

/// [`derive`] over the file already lexed and scoped.
pub(crate) fn derive_parsed(src: &str, p: &Parsed, upstream_fold: bool) -> Derived {
    let (lx, funcs) = (&p.lx, &p.funcs);
    let toks = &lx.tokens;
    let mut bodies: BTreeMap<String, Vec<Body>> = BTreeMap::new();
    for f in funcs.iter().filter(|f| f.short().starts_with("Set")) {
        let t = |i: usize| {
            if i < toks.len() {
                text(src, &toks[i])
            } else {
                ""
            }
        };
        let (mut bump, mut version, mut pipeline) = (false, false, false);
        let mut callees = BTreeSet::new();
        for (i, tok) in toks
            .iter()
            .enumerate()
            .take(f.close.saturating_add(1))
            .skip(f.open)
        {
            if tok.kind != Kind::Ident {
                continue;
            }
            match t(i) {
                "BumpVersions" if t(i + 1) == "(" && t(i + 2) == ")" => bump = true,
                "m_version" if i > 0 && t(i - 1) == "++" => version = true,
                "m_pipelineStateVersion" if i > 0 && t(i - 1) == "++" => pipeline = true,
                w if w.starts_with("Set") && t(i + 1) == "(" && w != f.short() => {
                    callees.insert(w.to_string());
                }
                _ => {}
            }
        }
        let mut direct = BTreeSet::new();
        if bump || version {
            direct.insert("NEW_RENDER_STATE");
        }
        if bump && !version && !pipeline {
            direct.insert("NEW_PIPELINE_STATE");
        }
        bodies
            .entry(f.short().to_string())
            .or_default()
            .push(Body { direct, callees });
    }
    let mut out = Derived::new();
    for name in bodies.keys() {
        let mut visited = BTreeSet::new();
        out.insert(
            name.clone(),
            resolve(&bodies, name, &mut visited, upstream_fold),
        );
    }
    out
}

fn resolve(
    bodies: &BTreeMap<String, Vec<Body>>,
    name: &str,
    visited: &mut BTreeSet<String>,
    shared: bool,
) -> BTreeSet<&'static str> {
    visited.insert(name.to_string());
    let Some(list) = bodies.get(name) else {
        return BTreeSet::new();
    };
    let mut acc: Option<BTreeSet<&'static str>> = None;
    for b in list {
        let set = if !b.direct.is_empty() {
            b.direct.clone()
        } else {
            let mut u = BTreeSet::new();
            for c in b.callees.iter().filter(|c| bodies.contains_key(c.as_str())) {
                if visited.contains(c) {
                    continue;
                }
                if shared {
                    u.extend(resolve(bodies, c, visited, shared));
                } else {
                    let mut own = visited.clone();
                    u.extend(resolve(bodies, c, &mut own, shared));
                }
            }
            u
        };
        acc = Some(match acc {
            None => set,
            Some(a) => a.intersection(&set).copied().collect(),
        });
    }
    acc.unwrap_or_default()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const RS: &str = "void RenderState::SetCapability(GLenum c, bool on) { m_caps[c] = on; ++m_version; }\nvoid RenderState::SetBlendEquation(GLenum m) { m_parameters.BlendStates[0].Eq = m; BumpVersions(); }\nvoid RenderState::SetBlendEquationIndexed(int i, GLenum m) { SetBlendEquation(m); }\nvoid RenderState::SetDepth(int d) { m_d = d; BumpVersions(); ++m_pipelineStateVersion; }\nvoid RenderState::SetX(int a) { SetBlendEquation(a); }\nvoid RenderState::SetX(float a) { SetBlendEquation(a); }\n";

    #[test]
    fn direct_delegated_and_folded() {
        let d = derive(RS, false);
        assert_eq!(d["SetCapability"], BTreeSet::from(["NEW_RENDER_STATE"]));
        assert_eq!(
            d["SetBlendEquation"],
            BTreeSet::from(["NEW_RENDER_STATE", "NEW_PIPELINE_STATE"])
        );
        assert_eq!(d["SetBlendEquationIndexed"], d["SetBlendEquation"]);
        assert_eq!(d["SetDepth"], BTreeSet::from(["NEW_RENDER_STATE"]));
        assert_eq!(d["SetX"], d["SetBlendEquation"]);
        // Upstream's shared visited set folds the two overloads to nothing.
        assert!(derive(RS, true)["SetX"].is_empty());
    }
}
