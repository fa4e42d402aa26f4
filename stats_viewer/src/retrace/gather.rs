//! The one part of the retrace analysis that touches the disk: the case list, the results under
//! the results directory, the LFS preflight of the fixtures and the file times the staleness rule
//! compares, gathered into an [`Input`] for the pure [`super::analyse`].

use std::collections::BTreeMap;
use std::path::Path;
use std::time::SystemTime;

use super::*;

fn mtime(p: &Path) -> Option<SystemTime> {
    std::fs::metadata(p).and_then(|m| m.modified()).ok()
}

/// Why the retrace inputs cannot be gathered; paths are workspace-relative.
#[derive(Debug, thiserror::Error)]
pub enum GatherError {
    #[error("{rel}: cannot read the case list: {reason}")]
    ReadCases { rel: String, reason: std::io::Error },
    #[error(transparent)]
    Cases(#[from] cases::CaseListError),
    #[error("{rel}: cannot list: {reason}")]
    List { rel: String, reason: std::io::Error },
}

/// Reads what [`analyse`] needs from disk.
pub fn gather(root: &Path, cfg: &RetraceConfig) -> Result<Input, GatherError> {
    let cases_path = root.join(&cfg.cases);
    let text = std::fs::read_to_string(&cases_path).map_err(|reason| GatherError::ReadCases {
        rel: cfg.cases.clone(),
        reason,
    })?;
    let list = cases::parse(&cfg.cases, &text)?;
    let results_dir = root.join(&cfg.results);
    let mut files = Vec::new();
    if results_dir.exists() {
        walk(&results_dir, &mut files).map_err(|(d, reason)| GatherError::List {
            rel: crate::budget::inputs::rel(root, &d),
            reason,
        })?;
    }
    files.sort();
    let want = expected(&list, cfg);
    let mut fixture_files: Vec<String> = Vec::new();
    for id in &want {
        for f in fixture_rels(&list, &cfg.fixtures, id) {
            if !fixture_files.contains(&f) {
                fixture_files.push(f);
            }
        }
    }
    let preflight = crate::lfs::preflight(root, fixture_files.iter().map(String::as_str));
    let mut fixture_mtimes = BTreeMap::new();
    for f in &preflight.fixtures {
        if let FixtureState::Present { .. } = f.state {
            if let Some(m) = mtime(&root.join(&f.rel)) {
                fixture_mtimes.insert(f.rel.clone(), m);
            }
        }
    }
    let results = files
        .iter()
        .map(|p| {
            let rel = crate::budget::inputs::rel(root, p);
            // kept as text: the analysis reports it as the result's finding
            let parsed = match diag::walk::read(p) {
                Ok(b) => results::parse(&rel, &b).map_err(|e| e.to_string()),
                Err(e) => Err(format!("{rel}: cannot read: {e}")),
            };
            let id = identify(&list, &cfg.backends, &rel);
            let golden_copy_differs = id.as_ref().and_then(|(case, backend)| {
                let cid = CaseId {
                    case: case.clone(),
                    backend: backend.clone(),
                };
                let golden = list.get(case)?.for_backend(backend).golden;
                let fixture = format!("{}/{golden}", cfg.fixtures.trim_end_matches('/'));
                if !matches!(
                    preflight.state(&fixture),
                    Some(FixtureState::Present { .. })
                ) {
                    return None;
                }
                let copy = p.parent()?.join(format!(
                    "{}-{}-golden.png",
                    safe_case(&cid.case),
                    cid.backend
                ));
                let a = std::fs::read(copy).ok()?;
                let b = std::fs::read(root.join(&fixture)).ok()?;
                Some(a != b)
            });
            ResultFile {
                rel,
                id,
                parsed,
                mtime: mtime(p),
                golden_copy_differs,
            }
        })
        .collect();
    Ok(Input {
        cases_rel: cfg.cases.clone(),
        cases: list,
        cases_mtime: mtime(&cases_path),
        results_rel: cfg.results.clone(),
        results_dir_exists: results_dir.is_dir(),
        results,
        fixtures_rel: cfg.fixtures.clone(),
        preflight,
        fixture_mtimes,
    })
}

/// Every `result.json` / `*-result.json` under `dir` (as the upstream summary collects them).
fn walk(
    dir: &Path,
    out: &mut Vec<std::path::PathBuf>,
) -> Result<(), (std::path::PathBuf, std::io::Error)> {
    let entries = std::fs::read_dir(dir).map_err(|e| (dir.to_path_buf(), e))?;
    for entry in entries {
        let entry = entry.map_err(|e| (dir.to_path_buf(), e))?;
        let p = entry.path();
        let ft = entry.file_type().map_err(|e| (p.clone(), e))?;
        if ft.is_dir() {
            walk(&p, out)?;
        } else if ft.is_file() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name == "result.json" || name.ends_with("-result.json") {
                out.push(p);
            }
        }
    }
    Ok(())
}
