//! Closure probes, compatible with MobileGL's `check_include_closure.py`: a named header whose
//! include closure must not reach forbidden path prefixes, plus budgets on tokens in its own text.

use serde::Serialize;

use crate::graph::Graph;
use crate::query::{chain, reach, Hop};

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Probe {
    pub name: String,
    /// Root-relative header path.
    pub header: String,
    /// Root-relative forbidden prefixes, in order (the first match is "the rule").
    pub forbidden: Vec<String>,
    /// (prefix, reason): a forbidden path under one of these is allowed and printed on every run.
    pub allow: Vec<(String, String)>,
    /// (token, budget): raw substring count in the header's own text, comments included.
    pub text_limits: Vec<(String, usize)>,
    /// Must be present in the manifest; under `--require-all` its header must exist.
    pub required: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Status {
    Ok,
    Forbidden,
    Skip,
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Status::Ok => "OK",
            Status::Forbidden => "FORBIDDEN",
            Status::Skip => "SKIP",
        })
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct ProbeViolation {
    pub path: String,
    /// The file `path` leads to through links, when that is another path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved: Option<String>,
    pub rule: String,
    /// Shortest chain from the probed header, each hop `path:line`.
    pub chain: Vec<Hop>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ProbeResult {
    pub probe: String,
    pub header: String,
    pub status: Status,
    /// Files in the closure, the header itself included (as upstream counts them).
    pub headers: usize,
    pub violations: Vec<ProbeViolation>,
    pub allowed: Vec<(String, String)>,
    pub text_problems: Vec<String>,
}

/// Runs one probe over the graph; `header_text` is the header's bytes (None when it is missing).
pub fn run(g: &Graph, probe: &Probe, header_text: Option<&[u8]>) -> ProbeResult {
    let mut res = ProbeResult {
        probe: probe.name.clone(),
        header: probe.header.clone(),
        status: Status::Skip,
        headers: 0,
        violations: Vec::new(),
        allowed: Vec::new(),
        text_problems: Vec::new(),
    };
    let (Some(start), Some(text)) = (g.id(std::path::Path::new(&probe.header)), header_text) else {
        return res;
    };
    let r = reach(g, &[start], |_| true);
    res.headers = r.order.len();
    for &n in &r.order {
        let rel = g.rel(n);
        // Judged by what the compiler reads (issue 29): a header reached through a link is
        // forbidden when the link or the file it leads to is; it is reported at the link's path.
        let resolved = g.nodes.get(n).and_then(|node| node.resolved.as_deref());
        let names = |f: &str| rel.starts_with(f) || resolved.is_some_and(|r| r.starts_with(f));
        let Some(rule) = probe.forbidden.iter().find(|f| names(f)) else {
            continue;
        };
        if let Some((_, why)) = probe.allow.iter().find(|(p, _)| names(p)) {
            res.allowed.push((rel.to_string(), why.clone()));
            continue;
        }
        res.violations.push(ProbeViolation {
            path: rel.to_string(),
            resolved: resolved.map(str::to_string),
            rule: rule.clone(),
            chain: chain(g, &r, n),
        });
    }
    let text = String::from_utf8_lossy(text);
    for (token, budget) in &probe.text_limits {
        let n = text.matches(token.as_str()).count();
        if n > *budget {
            res.text_problems
                .push(format!("{token} occurs {n} times, budget is {budget}"));
        }
    }
    res.status = if res.violations.is_empty() && res.text_problems.is_empty() {
        Status::Ok
    } else {
        Status::Forbidden
    };
    res
}

/// The four probes of upstream's manifest (spec §2.2), the MobileGL profile's defaults.
pub fn mobilegl_probes() -> Vec<Probe> {
    let p =
        |name: &str, header: &str, forbidden: &[&str], limits: &[(&str, usize)], required: bool| {
            Probe {
                name: name.into(),
                header: header.into(),
                forbidden: forbidden.iter().map(|s| s.to_string()).collect(),
                allow: Vec::new(),
                text_limits: limits.iter().map(|(t, b)| (t.to_string(), *b)).collect(),
                required,
            }
        };
    vec![
        p(
            "value-header",
            "MobileGL/MG_Pipe/MGPipeValueTypes.h",
            &[
                "MobileGL/MG_State/",
                "MobileGL/MG_Impl/",
                "MobileGL/MG_Backend/",
                "MobileGL/MG_Remote/",
            ],
            &[],
            true,
        ),
        p(
            "artifacts-header",
            "MobileGL/MG_State/GLState/ProgramState/ProgramArtifacts.h",
            &[
                "MobileGL/MG_State/GLState/ProgramState/ShaderObject.h",
                "MobileGL/MG_Util/ShaderTranspiler/",
                "MobileGL/Config.h",
                "MobileGL/MG_Backend/",
                "MobileGL/MG_State/GLState/BufferState/",
                "MobileGL/MG_State/GLState/ProgramState/Shader",
            ],
            &[("glslang::", 2)],
            true,
        ),
        p(
            "mutation-header",
            "MobileGL/MG_Pipe/PipeMutation.h",
            &[
                "MobileGL/MG_Impl/",
                "MobileGL/MG_State/GLState/Core.h",
                "MobileGL/MG_Remote/",
            ],
            &[],
            false,
        ),
        p(
            "wire-header",
            "MobileGL/MG_Remote/Transport/ITransport.h",
            &["MobileGL/Includes.h"],
            &[],
            false,
        ),
    ]
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::graph::tests::tree;
    use crate::graph::GraphOptions;
    use crate::query::chain_text;

    #[test]
    fn forbidden_allow_and_limits() {
        let d = tree(&[
            (
                "M/Pipe/V.h",
                "#include \"H.h\"\n// glslang:: glslang:: glslang::\n",
            ),
            (
                "M/Pipe/H.h",
                "#include \"../State/R.h\"\n#include \"../Impl/X.h\"\n",
            ),
            ("M/State/R.h", ""),
            ("M/Impl/X.h", ""),
        ]);
        let g = Graph::build(&GraphOptions::new(d.path())).unwrap();
        let probe = Probe {
            name: "value".into(),
            header: "M/Pipe/V.h".into(),
            forbidden: vec!["M/State/".into(), "M/Impl/".into()],
            allow: vec![("M/Impl/X.h".into(), "legacy".into())],
            text_limits: vec![("glslang::".into(), 2)],
            required: true,
        };
        let text = std::fs::read(d.path().join("M/Pipe/V.h")).unwrap();
        let r = run(&g, &probe, Some(&text));
        assert_eq!(r.status, Status::Forbidden);
        assert_eq!(r.headers, 4);
        assert_eq!(r.violations.len(), 1);
        assert_eq!(
            chain_text(&r.violations[0].chain),
            "M/Pipe/V.h:1 -> M/Pipe/H.h:1 -> M/State/R.h"
        );
        assert_eq!(r.allowed.len(), 1);
        assert_eq!(
            r.text_problems,
            vec!["glslang:: occurs 3 times, budget is 2".to_string()]
        );
        let missing = Probe {
            header: "M/Nope.h".into(),
            ..probe
        };
        assert_eq!(run(&g, &missing, None).status, Status::Skip);
    }
}
