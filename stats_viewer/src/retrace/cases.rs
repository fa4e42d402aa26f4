//! The case list: MobileGL's `tools/trace_replay/trace_cases.json` (read by upstream
//! `trace_cases.py`): a `defaults` block merged under each of `cases`, per-case `ci`,
//! `ci_backends` and `backend_overrides` (golden / alternate_golden / ssim_threshold per backend).

use serde_json::{Map, Value};

/// The two backends of MobileGL's CI matrix (`trace_cases.py` `CI_BACKENDS`).
pub const CI_BACKENDS: [&str; 2] = ["DirectGLES", "DirectVulkan"];

/// One case with the defaults merged under it.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    pub name: String,
    /// 1-based line of its `"name"` in the case list (findings about the case point there).
    pub line: u32,
    /// The merged fields, as `trace_cases.py` merges them (`{**defaults, **case}`).
    pub fields: Map<String, Value>,
}

/// What one backend retraces a case against (`trace_cases.py` `case_for_backend`).
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    pub trace_archive: String,
    pub golden: String,
    pub alternate_golden: Option<String>,
    /// The case list's threshold for this backend, when it states one.
    pub ssim_threshold: Option<f64>,
}

impl Case {
    /// `ci` (absent: true).
    pub fn ci(&self) -> bool {
        self.fields
            .get("ci")
            .and_then(Value::as_bool)
            .unwrap_or(true)
    }

    /// `ci_backends`, or None when the case runs every CI backend.
    pub fn ci_backends(&self) -> Option<Vec<String>> {
        self.fields
            .get("ci_backends")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
    }

    pub fn str_field(&self, key: &str) -> Option<&str> {
        self.fields
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    }

    /// The case as `backend` sees it: a backend override's golden REPLACES the shared pair.
    pub fn for_backend(&self, backend: &str) -> Resolved {
        let shared_golden = self.str_field("golden").unwrap_or_default().to_string();
        let shared_alt = self.str_field("alternate_golden").map(str::to_string);
        let mut threshold = self.fields.get("ssim_threshold").and_then(Value::as_f64);
        let over = self
            .fields
            .get("backend_overrides")
            .and_then(|o| o.get(backend))
            .and_then(Value::as_object);
        let (golden, alternate_golden) = match over.and_then(|o| o.get("golden")?.as_str()) {
            Some(g) => (
                g.to_string(),
                over.and_then(|o| o.get("alternate_golden")?.as_str())
                    .map(str::to_string),
            ),
            None => (shared_golden, shared_alt),
        };
        if let Some(t) = over.and_then(|o| o.get("ssim_threshold")?.as_f64()) {
            threshold = Some(t);
        }
        Resolved {
            trace_archive: self
                .str_field("trace_archive")
                .unwrap_or_default()
                .to_string(),
            golden,
            alternate_golden,
            ssim_threshold: threshold,
        }
    }
}

/// The parsed case list.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CaseList {
    pub cases: Vec<Case>,
}

impl CaseList {
    pub fn get(&self, name: &str) -> Option<&Case> {
        self.cases.iter().find(|c| c.name == name)
    }
}

/// The runner's directory-name form of a case (`safe_case`: every character but `[A-Za-z0-9._-]`
/// becomes `_`).
pub fn safe_case(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Why a case list cannot be used; every variant names the file (`rel`) and the case where known.
#[derive(Debug, thiserror::Error)]
pub enum CaseListError {
    #[error("{rel}: not a case list: {reason}")]
    NotJson {
        rel: String,
        reason: serde_json::Error,
    },
    #[error("{rel}: `defaults` is not an object")]
    DefaultsNotAnObject { rel: String },
    #[error("{rel}: no `cases` array")]
    NoCases { rel: String },
    #[error("{rel}: cases[{index}] is not an object")]
    NotAnObject { rel: String, index: usize },
    #[error("{rel}: cases[{index}] has no name")]
    NoName { rel: String, index: usize },
    #[error("{rel}: duplicate trace case: {name}")]
    Duplicate { rel: String, name: String },
    #[error("{rel}: {key} is required for {name}")]
    Required {
        rel: String,
        key: &'static str,
        name: String,
    },
    #[error("{rel}: ci must be true or false for {name}")]
    BadCi { rel: String, name: String },
    #[error("{rel}: ci_backends must be a non-empty list of {} for {name}", CI_BACKENDS.join(", "))]
    BadBackends { rel: String, name: String },
}

/// Parses the case list text; errors name `rel` and, where there is one, the case. Refuses what
/// `trace_cases.py` refuses that would change the expected set: a case without a name, a
/// duplicate name, a case without `trace_archive`/`golden`, a non-boolean `ci`, an unknown or
/// empty `ci_backends`.
pub fn parse(rel: &str, text: &str) -> Result<CaseList, CaseListError> {
    let rel = rel.to_string();
    let doc: Value = match serde_json::from_str(text) {
        Ok(d) => d,
        Err(reason) => return Err(CaseListError::NotJson { rel, reason }),
    };
    let defaults = match doc.get("defaults") {
        None => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(_) => return Err(CaseListError::DefaultsNotAnObject { rel }),
    };
    let Some(cases) = doc.get("cases").and_then(Value::as_array) else {
        return Err(CaseListError::NoCases { rel });
    };
    let mut out: Vec<Case> = Vec::new();
    let mut search_from = 0;
    for (index, case) in cases.iter().enumerate() {
        let Some(obj) = case.as_object() else {
            return Err(CaseListError::NotAnObject { rel, index });
        };
        let mut fields = defaults.clone();
        fields.extend(obj.iter().map(|(k, v)| (k.clone(), v.clone())));
        let Some(name) = fields
            .get("name")
            .and_then(Value::as_str)
            .map(str::to_string)
        else {
            return Err(CaseListError::NoName { rel, index });
        };
        if out.iter().any(|c| c.name == name) {
            return Err(CaseListError::Duplicate { rel, name });
        }
        for key in ["trace_archive", "golden"] {
            if !fields.get(key).is_some_and(Value::is_string) {
                return Err(CaseListError::Required { rel, key, name });
            }
        }
        if fields.get("ci").is_some_and(|v| !v.is_boolean()) {
            return Err(CaseListError::BadCi { rel, name });
        }
        if let Some(b) = fields.get("ci_backends") {
            let ok = b.as_array().is_some_and(|a| {
                !a.is_empty()
                    && a.iter()
                        .all(|x| x.as_str().is_some_and(|s| CI_BACKENDS.contains(&s)))
            });
            if !ok {
                return Err(CaseListError::BadBackends { rel, name });
            }
        }
        let (line, next) = line_of_name(text, &name, search_from);
        search_from = next;
        out.push(Case { name, line, fields });
    }
    Ok(CaseList { cases: out })
}

/// 1-based line of `"name": "<name>"` at or after byte `from`, and where to search next.
fn line_of_name(text: &str, name: &str, from: usize) -> (u32, usize) {
    let needle = format!("\"{name}\"");
    let from = from.min(text.len());
    match text.get(from..).and_then(|t| t.find(&needle)) {
        Some(at) => {
            let abs = from + at;
            let line = text[..abs].matches('\n').count() + 1;
            (u32::try_from(line).unwrap_or(u32::MAX), abs + needle.len())
        }
        None => (1, from),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const LIST: &str = r#"{
  "defaults": { "trace_file": "trace.trace", "ssim_threshold": 0.99, "width": 854 },
  "cases": [
    { "name": "OpenRA", "trace_archive": "openra.tgz", "golden": "openra.0000031249.png",
      "target_call": 31249, "width": 640 },
    { "name": "mc rp", "ci_backends": ["DirectVulkan"], "trace_archive": "rp.tgz",
      "golden": "rp.png", "ssim_threshold": 0.98,
      "backend_overrides": { "DirectVulkan": { "golden": "rp-vk.png", "ssim_threshold": 0.97 } } },
    { "name": "off", "ci": false, "trace_archive": "off.tgz", "golden": "off.png" }
  ]
}"#;

    #[test]
    fn defaults_merge_and_backends_resolve() {
        let l = parse("trace_cases.json", LIST).unwrap();
        assert_eq!(l.cases.len(), 3);
        let o = l.get("OpenRA").unwrap();
        assert_eq!(o.line, 4);
        assert_eq!(o.fields["width"], 640);
        assert_eq!(o.for_backend("DirectGLES").ssim_threshold, Some(0.99));
        let rp = l.get("mc rp").unwrap();
        assert_eq!(rp.ci_backends(), Some(vec!["DirectVulkan".to_string()]));
        let vk = rp.for_backend("DirectVulkan");
        assert_eq!(
            (vk.golden.as_str(), vk.ssim_threshold),
            ("rp-vk.png", Some(0.97))
        );
        assert_eq!(rp.for_backend("DirectGLES").golden, "rp.png");
        assert!(!l.get("off").unwrap().ci());
        assert_eq!(safe_case("mc rp"), "mc_rp");
    }

    #[test]
    fn what_upstream_refuses_is_refused() {
        let dup = r#"{"cases":[{"name":"a","trace_archive":"a","golden":"a"},{"name":"a","trace_archive":"a","golden":"a"}]}"#;
        assert!(parse("l.json", dup)
            .unwrap_err()
            .to_string()
            .contains("duplicate trace case: a"));
        let nog = r#"{"cases":[{"name":"a","trace_archive":"a"}]}"#;
        assert!(parse("l.json", nog)
            .unwrap_err()
            .to_string()
            .contains("golden is required for a"));
        let bad =
            r#"{"cases":[{"name":"a","trace_archive":"a","golden":"a","ci_backends":["Magma"]}]}"#;
        assert!(parse("l.json", bad)
            .unwrap_err()
            .to_string()
            .contains("ci_backends"));
        assert!(parse("l.json", "{")
            .unwrap_err()
            .to_string()
            .starts_with("l.json: not a case list"));
    }
}
