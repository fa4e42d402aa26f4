//! The link-closure ratchet (upstream `scripts/link_ratchet.py`): which frontend symbols would a
//! server-only image still need? Over the per-object symbol tables of one target, with objects
//! sorted into SERVER / FRONTEND / SHARED by a partition table:
//!
//! ```text
//! reach = (SERVER undefined − SERVER defined − SHARED defined) ∩ FRONTEND defined
//! ```
//!
//! The baseline stores the list, not a count: a symbol in `reach` and not in the baseline is
//! new frontend reach (red); one in the baseline and no longer reached is progress (a note: re-
//! baseline in the same commit). Every way to go green without measuring is an error: an object
//! no row claims, a role with no objects, a row that claims nothing, a build configured without
//! the options the measurement presumes. Names are demangled, as upstream's `nm -C`; only a
//! strong undefined (`U`) is a reference (a weak one obliges nobody).

pub mod cfg;
pub mod controls;
mod gather;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::json;

use cfg::{LinkRatchetConfig, Role};
pub use gather::{check, gather};

diag::codes! {
    /// Codes of the `link-ratchet` gate.
    pub enum Code: "LNK" {
        Lnk001 = "LNK001": "a frontend symbol server code needs that the baseline does not list (new reach)",
        Lnk002 = "LNK002": "a baseline symbol no longer reached: progress, re-baseline in the same commit",
        Lnk003 = "LNK003": "an object no partition row claims",
        Lnk004 = "LNK004": "a role with no objects (nothing was measured)",
        Lnk005 = "LNK005": "a required build option does not hold, or the CMake cache is unreadable",
        Lnk006 = "LNK006": "the objects, an object or the baseline could not be read",
        Lnk007 = "LNK007": "a partition row that claims no object",
    }
}

type Diag = diag::Diag<Code>;

/// One object's symbols, demangled: every defined name, and the strong undefined ones.
#[derive(Debug, Clone, Default)]
pub struct Object {
    /// Relative to the configured object directory, forward slashes.
    pub rel: String,
    pub defined: BTreeSet<String>,
    pub undefined: BTreeSet<String>,
}

/// The baseline file: its symbols, each with the line it is on.
#[derive(Debug, Clone, Default)]
pub struct Baseline {
    pub rel: String,
    pub symbols: BTreeMap<String, u32>,
}

impl Baseline {
    /// One symbol a line; blank lines and `#` comments skipped, a ` #` suffix is a note (no
    /// demangled C++ name contains " #").
    pub fn parse(rel: &str, text: &str) -> Baseline {
        let mut symbols = BTreeMap::new();
        for (i, line) in text.lines().enumerate() {
            let name = line.split(" #").next().unwrap_or("").trim();
            if name.is_empty() || name.starts_with('#') {
                continue;
            }
            symbols
                .entry(name.to_string())
                .or_insert(u32::try_from(i + 1).unwrap_or(u32::MAX));
        }
        Baseline {
            rel: rel.to_string(),
            symbols,
        }
    }

    /// The baseline re-recorded for `reach`: the old file's leading comment block and the whole
    /// line (with its ` # note`) of every symbol still reached are kept; cleared symbols go; new
    /// ones are added; one name a line, sorted.
    pub fn rerecord(old: Option<&str>, reach: &BTreeMap<String, Reach>) -> String {
        let old = old.unwrap_or("");
        let mut head: String = old
            .lines()
            .take_while(|l| l.trim_start().starts_with('#') || l.trim().is_empty())
            .map(|l| format!("{l}\n"))
            .collect();
        if head.trim().is_empty() {
            head = "# link-ratchet baseline: frontend symbols a server-only image still needs.\n\
                    # One demangled name a line; it may only shrink (mgctl check, gate link-ratchet).\n"
                .to_string();
        }
        let kept: BTreeMap<&str, &str> = old
            .lines()
            .filter_map(|l| {
                let name = l.split(" #").next().unwrap_or("").trim();
                (!name.is_empty() && !name.starts_with('#')).then_some((name, l))
            })
            .collect();
        let mut s = head;
        for name in reach.keys() {
            s.push_str(kept.get(name.as_str()).copied().unwrap_or(name));
            s.push('\n');
        }
        s
    }
}

/// What the gate read: the objects (or why not), the baseline, the build options.
#[derive(Debug, Default)]
pub struct Input {
    /// The objects directory as configured (for messages).
    pub objects_dir: String,
    pub objects: Vec<Object>,
    /// Read errors, each a finding (an unreadable object shrinks a set silently otherwise).
    pub problems: Vec<Diag>,
    pub baseline: Option<Baseline>,
    /// `CMakeCache.txt` values, when configured and read.
    pub cache: Option<BTreeMap<String, String>>,
    /// Files read, workspace-relative.
    pub inputs: Vec<String>,
}

/// One reached symbol: the server objects that need it and the frontend objects defining it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reach {
    pub referrers: BTreeSet<String>,
    pub definers: BTreeSet<String>,
}

/// The longest partition row matching `rel`; a row ending in `.o` matches exactly.
pub fn classify<'a>(
    rel: &str,
    rows: &'a [cfg::PartitionRow],
) -> Option<(usize, &'a cfg::PartitionRow)> {
    rows.iter()
        .enumerate()
        .filter(|(_, r)| {
            if r.prefix.ends_with(".o") {
                rel == r.prefix
            } else {
                rel.starts_with(&r.prefix)
            }
        })
        .max_by_key(|(_, r)| r.prefix.len())
}

/// The set arithmetic over classified objects.
pub fn reach(objects: &[(&Object, Role)]) -> BTreeMap<String, Reach> {
    let of = |role: Role| {
        objects
            .iter()
            .filter(move |(_, r)| *r == role)
            .map(|(o, _)| *o)
    };
    let server_or_shared: BTreeSet<&str> = of(Role::Server)
        .chain(of(Role::Shared))
        .flat_map(|o| o.defined.iter().map(String::as_str))
        .collect();
    // Who defines each frontend name, built once: linear in the objects' symbols.
    let mut frontend: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for f in of(Role::Frontend) {
        for name in &f.defined {
            frontend.entry(name).or_default().insert(&f.rel);
        }
    }
    let mut out: BTreeMap<String, Reach> = BTreeMap::new();
    for o in of(Role::Server) {
        for name in &o.undefined {
            if server_or_shared.contains(name.as_str()) {
                continue;
            }
            let Some(definers) = frontend.get(name.as_str()) else {
                continue;
            };
            let e = out.entry(name.clone()).or_insert_with(|| Reach {
                referrers: BTreeSet::new(),
                definers: definers.iter().map(|d| d.to_string()).collect(),
            });
            e.referrers.insert(o.rel.clone());
        }
    }
    out
}

/// Object paths come from file names: each is escaped for a one-line message.
fn list(set: &BTreeSet<String>) -> String {
    set.iter()
        .map(|s| diag::escape::line(s))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every reached symbol with who needs and who defines it (objects no row claims are left out;
/// the verdict calls them LNK003).
pub fn reached(cfg: &LinkRatchetConfig, input: &Input) -> BTreeMap<String, Reach> {
    let classified: Vec<(&Object, Role)> = input
        .objects
        .iter()
        .filter_map(|o| classify(&o.rel, &cfg.partition).map(|(_, row)| (o, row.role)))
        .collect();
    reach(&classified)
}

/// The gate's verdict over what [`gather`] read.
pub fn analyse(cfg: &LinkRatchetConfig, input: &Input) -> diag::Outcome<Code> {
    let mut diags: Vec<Diag> = input.problems.clone();
    // An unreadable cache is already a finding; each option would only repeat it.
    let cache_failed = cfg.cmake_cache.is_some() && input.cache.is_none();
    for (name, want) in cfg.require.iter().filter(|_| !cache_failed) {
        let got = input.cache.as_ref().and_then(|c| c.get(name));
        if got != Some(want) {
            let shown = match (got, &cfg.cmake_cache) {
                (Some(v), _) => v.as_str(),
                (None, Some(_)) => "<unset>",
                (None, None) => "<unknown: no cmake_cache configured>",
            };
            let mut d = Diag::error(
                Code::Lnk005,
                format!(
                    "build option {name}={shown} (need {want}): a build configured otherwise \
                     measures a smaller set that means nothing"
                ),
            );
            if let Some(c) = &cfg.cmake_cache {
                d = d.file(c.clone());
            }
            diags.push(d.in_unit(name.clone()));
        }
    }
    let mut classified: Vec<(&Object, Role)> = Vec::new();
    let mut claimed = vec![0usize; cfg.partition.len()];
    for o in &input.objects {
        match classify(&o.rel, &cfg.partition) {
            Some((i, row)) => {
                claimed[i] += 1;
                classified.push((o, row.role));
            }
            None => diags.push(
                Diag::error(
                    Code::Lnk003,
                    format!(
                        "{}/{}: no partition row claims this object (the tree moved and the \
                         partition did not); add a [[link_ratchet.partition]] row",
                        input.objects_dir,
                        diag::escape::line(&o.rel)
                    ),
                )
                .about_config()
                .in_unit(o.rel.clone()),
            ),
        }
    }
    // With no object read, a row claiming nothing or an empty role only repeats LNK006.
    let readable = input.problems.is_empty() || !input.objects.is_empty();
    for (row, n) in cfg.partition.iter().zip(&claimed) {
        if *n == 0 && readable {
            diags.push(
                Diag::error(
                    Code::Lnk007,
                    format!(
                        "partition row `{}` ({}) claims no object under {}: a row that matches \
                         nothing is a boundary nobody checks",
                        diag::escape::line(&row.prefix),
                        row.role.as_str(),
                        input.objects_dir
                    ),
                )
                .about_config(),
            );
        }
    }
    let counts: BTreeMap<Role, usize> = Role::ALL
        .iter()
        .map(|&r| (r, classified.iter().filter(|(_, c)| *c == r).count()))
        .collect();
    for (role, n) in &counts {
        if *n == 0 && readable {
            diags.push(
                Diag::error(
                    Code::Lnk004,
                    format!(
                        "no {} object under {}: the target was not built there, and three empty \
                         sets would report a reach of zero",
                        role.as_str(),
                        input.objects_dir
                    ),
                )
                .about_config(),
            );
        }
    }
    let reached = reach(&classified);
    let (mut new, mut cleared) = (0usize, 0usize);
    if let Some(b) = &input.baseline {
        for (name, r) in &reached {
            if b.symbols.contains_key(name) {
                continue;
            }
            new += 1;
            diags.push(
                Diag::error(
                    Code::Lnk001,
                    format!(
                        "new frontend reach: `{}` (defined in FRONTEND {}) is needed by SERVER {} \
                         and is not in the baseline",
                        diag::escape::line(name),
                        list(&r.definers),
                        list(&r.referrers)
                    ),
                )
                .file(b.rel.clone())
                .in_unit(name.clone())
                .with_detail(json!({
                    "symbol": name,
                    "referrers": r.referrers,
                    "definers": r.definers,
                })),
            );
        }
        // An object not read may be the one that still refers: progress is not claimed then.
        let complete = !input.problems.iter().any(|d| d.code == Code::Lnk006);
        for (name, line) in b.symbols.iter().filter(|_| complete) {
            if reached.contains_key(name) {
                continue;
            }
            cleared += 1;
            diags.push(
                Diag::note(
                    Code::Lnk002,
                    format!(
                        "cleared: `{}` is no longer reached; remove it from the baseline in this \
                         commit",
                        diag::escape::line(name)
                    ),
                )
                .at(b.rel.clone(), *line, None)
                .in_unit(name.clone()),
            );
        }
    }
    let baseline_n = input.baseline.as_ref().map_or(0, |b| b.symbols.len());
    let headline = format!(
        "{} objects ({} server, {} frontend, {} shared) / reach {} (baseline {}) / {} new, {} cleared",
        input.objects.len(),
        counts[&Role::Server],
        counts[&Role::Frontend],
        counts[&Role::Shared],
        reached.len(),
        baseline_n,
        new,
        cleared
    );
    diag::Outcome {
        diags,
        headline,
        units: reached.keys().cloned().collect(),
        inputs: input.inputs.clone(),
        figures: Vec::new(),
    }
    .figure("objects", input.objects.len())
    .figure("server", counts[&Role::Server])
    .figure("frontend", counts[&Role::Frontend])
    .figure("shared", counts[&Role::Shared])
    .figure("reach", reached.len())
    .figure("baseline", baseline_n)
    .figure("new", new)
    .figure("cleared", cleared)
}
