//! The I/O half of the census: the registry file and the sources each census's globs select,
//! read through the workspace walk; everything not read is a finding.

use std::path::Path;

use globset::{Glob, GlobSet, GlobSetBuilder};

use super::cfg::CensusConfig;
use super::{analyse, Census, Code, Source};
use crate::diag::{Diag, Outcome};

fn globset(c: &CensusConfig, globs: &[String]) -> Result<GlobSet, Box<Diag<Code>>> {
    let mut b = GlobSetBuilder::new();
    for g in globs {
        b.add(Glob::new(g).map_err(|e| {
            Box::new(
                Diag::error(
                    Code::Cen009,
                    format!(
                        "census `{}`: glob `{}`: {}",
                        c.name.get_ref(),
                        diag::escape::line(g),
                        diag::escape::line(&e.to_string())
                    ),
                )
                .in_config(c.name.span().start),
            )
        })?);
    }
    b.build().map_err(|e| {
        Box::new(
            Diag::error(Code::Cen009, format!("census `{}`: {e}", c.name.get_ref()))
                .in_config(c.name.span().start),
        )
    })
}

/// UTF-8 text, or why not: the first bad byte's offset and how many bytes are bad.
fn utf8(rel: &str, bytes: Vec<u8>) -> Result<Vec<u8>, Box<Diag<Code>>> {
    if std::str::from_utf8(&bytes).is_ok() {
        return Ok(bytes);
    }
    let bad: usize = bytes.utf8_chunks().map(|c| c.invalid().len()).sum();
    let first = bytes.utf8_chunks().next().map_or(0, |c| c.valid().len());
    Err(Box::new(
        Diag::error(
            Code::Cen010,
            format!("not UTF-8: {bad} bad byte(s), the first at offset {first}; not read"),
        )
        .file(rel.to_string()),
    ))
}

/// Whether `rel`, with its links resolved, is outside the workspace (as the walk never follows).
fn leaves(root: &Path, rel: &str) -> bool {
    match (root.canonicalize(), root.join(rel).canonicalize()) {
        (Ok(r), Ok(p)) => !p.starts_with(r),
        // Missing: the read that follows names it.
        _ => false,
    }
}

/// The part of a glob before its first special character.
fn literal_lead(glob: &str) -> &str {
    &glob[..glob.find(['*', '?', '[', '{', '\\']).unwrap_or(glob.len())]
}

/// Reads what one census needs; the sources sorted by path.
fn gather(
    root: &Path,
    c: &CensusConfig,
    diags: &mut Vec<Diag<Code>>,
) -> Option<(Option<Vec<u8>>, Vec<Source>)> {
    let paths = globset(c, &c.paths).map_err(|d| diags.push(*d)).ok()?;
    let exclude = globset(c, &c.exclude).map_err(|d| diags.push(*d)).ok()?;
    let registry = match &c.registry {
        None => None,
        Some(r) if leaves(root, &r.file) => {
            diags.push(
                Diag::error(
                    Code::Cen010,
                    format!(
                        "census `{}`: registry {}: a link leading out of the workspace: not followed",
                        c.name.get_ref(),
                        r.file
                    ),
                )
                .file(r.file.clone()),
            );
            return None;
        }
        Some(r) => match diag::walk::read(&root.join(&r.file)) {
            Ok(b) => match utf8(&r.file, b) {
                Ok(t) => Some(t),
                Err(d) => {
                    diags.push(*d);
                    return None;
                }
            },
            Err(e) => {
                diags.push(
                    Diag::error(
                        Code::Cen010,
                        format!("census `{}`: registry {}: {e}", c.name.get_ref(), r.file),
                    )
                    .file(r.file.clone()),
                );
                return None;
            }
        },
    };
    let leads: Vec<&str> = c.paths.iter().map(|g| literal_lead(g)).collect();
    let used = std::cell::RefCell::new(vec![false; c.paths.len()]);
    let wanted = |rel: &Path, is_dir: bool| {
        let rel = diag::walk::display(rel);
        if is_dir {
            let dir = format!("{rel}/");
            return rel.is_empty()
                || leads
                    .iter()
                    .any(|l| l.starts_with(dir.as_str()) || dir.starts_with(l));
        }
        if exclude.is_match(&rel) {
            return false;
        }
        let hits = paths.matches(&rel);
        for &g in &hits {
            used.borrow_mut()[g] = true;
        }
        !hits.is_empty()
    };
    let listing = match diag::walk::walk(root, Path::new(""), &wanted) {
        Ok(l) => l,
        Err(e) => {
            diags.push(Diag::error(
                Code::Cen010,
                format!("{}: {}", e.path.display(), e.source),
            ));
            return None;
        }
    };
    for (g, hit) in c.paths.iter().zip(used.borrow().iter()) {
        if !hit {
            diags.push(
                Diag::error(
                    Code::Cen007,
                    format!(
                        "census `{}`: paths glob `{}` matches no file (a misspelt glob passes vacuously)",
                        c.name.get_ref(),
                        diag::escape::line(g)
                    ),
                )
                .in_config(c.name.span().start),
            );
        }
    }
    for s in listing.findings() {
        diags.push(
            Diag::error(Code::Cen010, format!("not read: {}", s.reason()))
                .file(diag::walk::display(s.rel())),
        );
    }
    let mut sources = Vec::new();
    for f in listing.files {
        let rel = f.display();
        match diag::walk::read(&f.path) {
            Ok(b) => match utf8(&rel, b) {
                Ok(text) => sources.push(Source { rel, text }),
                Err(d) => diags.push(*d),
            },
            Err(e) => diags.push(Diag::error(Code::Cen010, e.to_string()).file(rel)),
        }
    }
    sources.sort_by(|a, b| a.rel.cmp(&b.rel));
    Some((registry, sources))
}

/// [`gather`] for the live control.
pub(super) fn gather_for_control(
    root: &Path,
    c: &CensusConfig,
    diags: &mut Vec<Diag<Code>>,
) -> Option<(Option<Vec<u8>>, Vec<Source>)> {
    gather(root, c, diags)
}

/// Every census of the configuration: the gate's run.
pub fn check(root: &Path, censuses: &[CensusConfig]) -> Outcome<Code> {
    let mut diags = Vec::new();
    let (mut entries, mut sites, mut files) = (0, 0, 0);
    let mut seen = std::collections::BTreeSet::new();
    let mut inputs = Vec::new();
    for c in censuses {
        if !seen.insert(c.name.get_ref().as_str()) {
            diags.push(
                Diag::error(
                    Code::Cen009,
                    format!("census `{}` is defined twice", c.name.get_ref()),
                )
                .in_config(c.name.span().start),
            );
            continue;
        }
        let compiled = match Census::compile(c) {
            Ok(k) => k,
            Err(d) => {
                diags.push(*d);
                continue;
            }
        };
        let Some((registry, sources)) = gather(root, c, &mut diags) else {
            continue;
        };
        let (d, t) = analyse(&compiled, registry.as_deref(), &sources);
        diags.extend(d);
        entries += t.entries;
        sites += t.sites;
        files += t.files;
        inputs.extend(c.registry.iter().map(|r| r.file.clone()));
        inputs.push(format!("{} ({} files)", c.name.get_ref(), t.files));
    }
    let errors = diags.iter().filter(|d| d.is_error()).count();
    let n = |k: usize, one: &str, many: &str| format!("{k} {}", if k == 1 { one } else { many });
    Outcome {
        diags,
        headline: format!(
            "{} / {} / {} in {} / {}",
            n(censuses.len(), "census", "censuses"),
            n(entries, "entry", "entries"),
            n(sites, "site", "sites"),
            n(files, "file", "files"),
            n(errors, "error", "errors")
        ),
        units: censuses.iter().map(|c| c.name.get_ref().clone()).collect(),
        inputs,
        figures: Vec::new(),
    }
    .figure("entries", entries)
    .figure("sites", sites)
    .figure("files", files)
}
