//! The whole pipeline over a workspace: which files to read (settings), reading them once
//! (`Workspace`), the surface, and the `--check` run. Everything after loading is in memory, so
//! the self-test drives the same code with canned trees.

use std::collections::BTreeSet;
use std::path::Path;

use rayon::prelude::*;

use crate::check::{self as checker, CheckInput, CheckResult};
use crate::def::{self, Def};
use crate::error::{Error, Result};
use crate::fast::FastMap;
use crate::lex::{parse, Parsed};
use crate::nonrender::{self, Claim, Unit, Verdicts};
use crate::render;
use crate::scan::{upstream_prefixes, ScanConfig};
use crate::surface::{analyse_parsed, FileIssue, Mode, Options, Surface};
use crate::tracker::{self, RENDER_BITS};
use crate::tree::{self, Source};

/// Where everything is, relative to the workspace root, and the prefix set.
#[derive(Debug, Clone)]
pub struct Settings {
    pub scan_roots: Vec<String>,
    pub prefixes: Vec<String>,
    pub def: String,
    pub render_state: String,
    pub tracker: String,
    /// Roots of the write analysis (the non-render derivation's writer side).
    pub write_roots: Vec<String>,
    /// Everything `.h`/`.cpp` under this root outside the write roots is scanned for outside writers.
    pub containment_root: String,
}

impl Settings {
    /// Upstream's fixed paths and the newest (P5e) prefix set.
    pub fn mobilegl() -> Settings {
        Settings {
            scan_roots: vec![
                "MobileGL/MG_Impl/GLImpl".into(),
                "MobileGL/MG_State/GLState".into(),
            ],
            prefixes: upstream_prefixes("P5e").unwrap_or_default(),
            def: "MobileGL/MG_Pipe/DirtySurface.def".into(),
            render_state: "MobileGL/MG_State/GLState/RenderState/RenderState.cpp".into(),
            tracker: "MobileGL/MG_Impl/Pipe/Tracker.h".into(),
            write_roots: vec![
                "MobileGL/MG_State/GLState".into(),
                "MobileGL/MG_Impl/Pipe".into(),
            ],
            containment_root: "MobileGL".into(),
        }
    }

    pub fn scan_config(&self) -> ScanConfig {
        ScanConfig {
            prefixes: self.prefixes.clone(),
        }
    }

    pub fn roots_display(&self) -> String {
        self.scan_roots.join(" + ")
    }

    pub fn write_roots_display(&self) -> String {
        self.write_roots.join(" + ")
    }

    /// Short form for messages ("MG_State/GLState or MG_Impl/Pipe").
    pub fn write_roots_short(&self) -> String {
        self.write_roots
            .iter()
            .map(|r| r.strip_prefix("MobileGL/").unwrap_or(r))
            .collect::<Vec<_>>()
            .join(" or ")
    }
}

/// Every input, read once.
#[derive(Debug, Clone)]
pub struct Workspace {
    pub sources: Vec<Source>,
    /// Absent only in a report run on a tree older than the mapping (upstream's P0 era).
    pub def: Option<Source>,
    /// Only loaded for `--check`.
    pub render_state: Option<Source>,
    pub tracker: Option<Source>,
    pub write_units: Vec<Source>,
    pub outside_units: Vec<Source>,
}

fn read_all(list: Vec<(String, std::path::PathBuf)>) -> Result<Vec<Source>> {
    read_all_reusing(list, &[])
}

/// [`read_all`], copying a file already read into `known` (same relative path, read moments
/// before) instead of reading it again: the scan, write and containment roots overlap.
fn read_all_reusing(
    list: Vec<(String, std::path::PathBuf)>,
    known: &[&[Source]],
) -> Result<Vec<Source>> {
    let by_rel: std::collections::HashMap<&str, &Source> = known
        .iter()
        .flat_map(|k| k.iter())
        .map(|s| (s.rel.as_str(), s))
        .collect();
    list.into_par_iter()
        .map(|(rel, p)| match by_rel.get(rel.as_str()) {
            Some(s) => Ok((*s).clone()),
            None => tree::read(&p, rel),
        })
        .collect()
}

/// Read the scan roots and the def (the report needs nothing else, and runs without the def, as
/// upstream's P0 scanner did); with `for_check`, the def is required, and so are RenderState.cpp,
/// Tracker.h, the write-analysis roots and the containment files.
pub fn load(root: &Path, s: &Settings, for_check: bool) -> Result<Workspace> {
    if s.prefixes.is_empty()
        || s.prefixes
            .iter()
            .any(|p| p.is_empty() || !p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
    {
        return Err(Error::Config(format!(
            "prefixes must be non-empty identifiers, got {:?}",
            s.prefixes
        )));
    }
    let sources = read_all(tree::list(root, &s.scan_roots)?)?;
    let def = if for_check || root.join(&s.def).exists() {
        Some(tree::read_required(
            root,
            &s.def,
            "the DirtySurface.def mapping",
        )?)
    } else {
        None
    };
    let mut ws = Workspace {
        sources,
        def,
        render_state: None,
        tracker: None,
        write_units: Vec::new(),
        outside_units: Vec::new(),
    };
    if for_check {
        ws.render_state = Some(tree::read_required(
            root,
            &s.render_state,
            "RenderState.cpp, the render-state derivation input",
        )?);
        ws.tracker = Some(tree::read_required(
            root,
            &s.tracker,
            "Tracker.h, the dirty-bit names and shutters",
        )?);
        let writes = tree::list(root, &s.write_roots)?;
        let inside: BTreeSet<String> = writes.iter().map(|w| w.0.clone()).collect();
        ws.write_units = read_all_reusing(writes, &[&ws.sources])?;
        let all = tree::list(root, std::slice::from_ref(&s.containment_root))?;
        ws.outside_units = read_all_reusing(
            all.into_iter()
                .filter(|(rel, _)| !inside.contains(rel))
                .collect(),
            &[&ws.sources],
        )?;
    }
    Ok(ws)
}

pub fn surface(ws: &Workspace, s: &Settings, opts: Options) -> Result<Surface> {
    surface_parsed(ws, None, s, opts)
}

fn surface_parsed(
    ws: &Workspace,
    parsed: Option<&[&Parsed]>,
    s: &Settings,
    opts: Options,
) -> Result<Surface> {
    analyse_parsed(&ws.sources, parsed, &s.scan_roots, &s.scan_config(), opts)
        .map_err(|e| Error::Config(format!("prefix pattern: {e}")))
}

/// Every file a check run lexes, lexed once: the scan roots, the write-analysis roots,
/// RenderState.cpp and Tracker.h overlap (a file under two of them is one entry, as long as
/// its text is the same).
struct Lexicon {
    parsed: Vec<Parsed>,
    sources: Vec<usize>,
    write_units: Vec<usize>,
    render_state: Option<usize>,
    tracker: Option<usize>,
}

impl Lexicon {
    /// The scan sources are lexed only for `Mode::Accurate`: upstream's scan reads masked text,
    /// not tokens.
    fn new(ws: &Workspace, mode: Mode) -> Lexicon {
        let mut files: Vec<&Source> = Vec::new();
        let mut by_rel: FastMap<&str, usize> = FastMap::default();
        let mut add = |src| add_file(src, &mut files, &mut by_rel);
        let scanned = if mode == Mode::Accurate {
            &ws.sources[..]
        } else {
            &[]
        };
        let sources = scanned.iter().map(&mut add).collect();
        let write_units = ws.write_units.iter().map(&mut add).collect();
        let render_state = ws.render_state.as_ref().map(&mut add);
        let tracker = ws.tracker.as_ref().map(&mut add);
        let parsed = files.par_iter().map(|f| parse(&f.text)).collect();
        Lexicon {
            parsed,
            sources,
            write_units,
            render_state,
            tracker,
        }
    }

    fn refs(&self, idx: &[usize]) -> Vec<&Parsed> {
        idx.iter().filter_map(|&i| self.parsed.get(i)).collect()
    }
}

fn add_file<'a>(
    src: &'a Source,
    files: &mut Vec<&'a Source>,
    by_rel: &mut FastMap<&'a str, usize>,
) -> usize {
    if let Some(&i) = by_rel.get(src.rel.as_str()) {
        if files.get(i).is_some_and(|f| f.text == src.text) {
            return i;
        }
    }
    files.push(src);
    by_rel.insert(&src.rel, files.len() - 1);
    files.len() - 1
}

/// The def, strictly (a malformed row is an error) or, for `--compat upstream`, as upstream reads
/// it; `None` when the workspace has no mapping.
pub fn parse_def(ws: &Workspace, mode: Mode) -> Result<Option<Def>> {
    ws.def
        .as_ref()
        .map(|d| def::parse_with(&d.text, Path::new(&d.rel), mode == Mode::Upstream))
        .transpose()
}

/// The report's model: the surface and each mutator's answer as spelled in the def.
#[derive(Debug, Clone)]
pub struct Report {
    pub surface: Surface,
    pub answers: std::collections::BTreeMap<String, String>,
    /// The workspace had a DirtySurface.def (without one every mutator is UNMAPPED).
    pub mapped: bool,
}

/// The report's entry point (`dirty-surface`, `--summary`, `--json`): load the scan roots under
/// `root` (and the def when there is one) and scan them.
pub fn report(root: &Path, s: &Settings, mode: Mode, call_graph: bool) -> Result<Report> {
    let ws = load(root, s, false)?;
    let def = parse_def(&ws, mode)?;
    let surface = surface(
        &ws,
        s,
        Options {
            mode,
            call_graph,
            explain: mode == Mode::Accurate,
        },
    )?;
    let answers = def
        .as_ref()
        .map(|d| crate::report::answers(d, mode))
        .unwrap_or_default();
    Ok(Report {
        surface,
        answers,
        mapped: def.is_some(),
    })
}

/// The gate's entry point, shared by `dirty-surface --check` and the `dirty-surface` gate: load
/// every input under `root` and check the def against the scan and the derivations.
pub fn check(root: &Path, s: &Settings, mode: Mode) -> Result<CheckRun> {
    run_check(&load(root, s, true)?, s, mode)
}

/// A `--check` run: the surface it checked, the def, the verdicts and the problems.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CheckRun {
    pub mode: Mode,
    pub mutators: usize,
    /// The scan's one-line summary (`41 files / 926 mutator calls / …`).
    pub summary: String,
    pub counts: crate::surface::Counts,
    /// First call site of each scanned mutator (path, line, column), for locating UNMAPPED.
    pub first_site: std::collections::BTreeMap<String, (String, u32, u32)>,
    /// The def's path, for locating row problems.
    pub def_path: String,
    pub result: CheckResult,
    pub verdicts: Verdicts,
    /// Lexical/structural problems of the scanned files (accurate mode); they fail the check.
    pub issues: Vec<FileIssue>,
    /// Every file the run read (workspace-relative), scan roots first.
    pub inputs: Vec<String>,
}

pub use diag::Severity;

/// One finding of a check run: the gate maps it with the one `From`.
pub type Violation = diag::Diag<crate::Code>;

impl CheckRun {
    pub fn passed(&self) -> bool {
        self.result.problems.is_empty() && self.issues.is_empty()
    }

    /// The run's findings: scan problems (DSF011) first, then the problems in upstream order.
    /// An UNMAPPED mutator sits at its first call site, a row problem at its def line.
    pub fn violations(&self) -> Vec<Violation> {
        let mut out: Vec<Violation> = self
            .issues
            .iter()
            .map(|i| {
                Violation::error(crate::Code::Dsf011, i.message.clone())
                    .at(i.path.clone(), i.line, Some(i.column))
                    .in_unit(i.path.clone())
            })
            .collect();
        for p in &self.result.problems {
            let (path, line, column) = match (p.kind, p.def_line) {
                (checker::ProblemKind::Unmapped, _) => match self.first_site.get(&p.mutator) {
                    Some((f, l, c)) => (Some(f.clone()), Some(*l), Some(*c)),
                    None => (None, None, None),
                },
                (_, Some(l)) => (
                    Some(self.def_path.clone()),
                    Some(u32::try_from(l).unwrap_or(u32::MAX)),
                    None,
                ),
                _ => (Some(self.def_path.clone()), None, None),
            };
            let mut v = Violation::error(p.kind.code(), p.text.clone())
                .in_unit(p.mutator.clone())
                .with_detail(serde_json::json!({ "kind": p.kind, "mutator": p.mutator }));
            if let Some(path) = path {
                v.location = Some(diag::Location { path, line, column });
            }
            out.push(v);
        }
        out
    }

    /// The headline figures (name, value) a gate reports.
    pub fn figures(&self) -> Vec<(&'static str, i64)> {
        use crate::nonrender::Verdict as V;
        let c = &self.counts;
        let count = |f: fn(&V) -> bool| {
            i64::try_from(self.verdicts.pairs.values().filter(|x| f(x)).count()).unwrap_or(i64::MAX)
        };
        let n = |x: usize| i64::try_from(x).unwrap_or(i64::MAX);
        vec![
            ("files", n(c.files)),
            ("mutator_calls", n(c.calls)),
            ("distinct_mutators", n(c.distinct)),
            ("immediate_calls", n(c.immediate_calls)),
            ("immediate_publish_points", n(c.points)),
            ("deferred", c.deferred),
            (
                "bit_answers_supported",
                count(|x| matches!(x, V::Supported)),
            ),
            ("bit_answers_coarse", count(|x| matches!(x, V::Coarse(_)))),
            (
                "bit_answers_undecided",
                count(|x| matches!(x, V::Undecided(_))),
            ),
        ]
    }
}

/// Run the gate over a loaded workspace.
pub fn run_check(ws: &Workspace, s: &Settings, mode: Mode) -> Result<CheckRun> {
    let outside_units: Vec<Unit<'_>> = nonrender::units(&ws.outside_units);
    // Lexing every file once, the outside-writer scan (which reads upstream's masked text, not
    // tokens) and the def are independent; their errors are still reported in the order below.
    let (lexicon, (outside, def)) = rayon::join(
        || Lexicon::new(ws, mode),
        || {
            rayon::join(
                || nonrender::outside_writers(&outside_units),
                || parse_def(ws, mode),
            )
        },
    );
    let Some(def) = def? else {
        return Err(Error::MissingFile {
            path: s.def.clone().into(),
            what: "the DirtySurface.def mapping",
        });
    };
    let def_path = ws.def.as_ref().map(|d| d.rel.clone()).unwrap_or_default();
    let units: Vec<Unit<'_>> = nonrender::units(&ws.write_units);
    let sources = lexicon.refs(&lexicon.sources);
    let (surf, writers) = rayon::join(
        || {
            surface_parsed(
                ws,
                (mode == Mode::Accurate).then_some(&sources[..]),
                s,
                Options {
                    mode,
                    call_graph: false,
                    explain: false,
                },
            )
        },
        || nonrender::writers_parsed(&units, &lexicon.refs(&lexicon.write_units)),
    );
    let surf = surf?;
    let (Some(rs), Some(tr), Some(rs_parsed), Some(tr_parsed)) = (
        &ws.render_state,
        &ws.tracker,
        lexicon.render_state.and_then(|i| lexicon.parsed.get(i)),
        lexicon.tracker.and_then(|i| lexicon.parsed.get(i)),
    ) else {
        return Err(Error::Config(
            "the workspace was loaded without the --check inputs".into(),
        ));
    };
    let bits = tracker::parse_bits(&tr.text, Path::new(&tr.rel))?;
    let upstream = mode == Mode::Upstream;
    let render = render::derive_parsed(&rs.text, rs_parsed, upstream);
    if render.is_empty() {
        return Err(Error::Derivation {
            path: rs.rel.clone().into(),
            message: "could not derive any RenderState setter (no `Set…` body)".into(),
        });
    }
    let map = def.map(upstream);
    let mut claims = Vec::new();
    for (m, row) in &map {
        for t in row.tokens() {
            if RENDER_BITS.contains(&t) {
                continue;
            }
            if let Some((e, _)) = bits.pairs.iter().find(|(_, b)| b == t) {
                claims.push(Claim {
                    mutator: m.to_string(),
                    bit: t.to_string(),
                    enumerator: e.clone(),
                });
            }
        }
    }
    let pairs = nonrender::derive(
        &tr.text,
        tr_parsed,
        &writers,
        &outside,
        &claims,
        &s.write_roots_short(),
    )
    .ok_or_else(|| Error::Derivation {
        path: tr.rel.clone().into(),
        message: "could not read the dirty shutters - has MGPipeTracker::Update been renamed?"
            .into(),
    })?;
    let names: BTreeSet<&str> = map.keys().copied().collect();
    let verdicts = Verdicts {
        pairs,
        stats: nonrender::Stats {
            bodies: writers.bodies,
            files: ws.write_units.len(),
            tainted_names: writers.own_taint.len(),
            tainted_mutators: nonrender::tainted_count(&writers, &names),
            outside_members: outside.len(),
        },
    };
    let scanned = surf.names();
    let result = checker::check(&CheckInput {
        scanned: &scanned,
        def: &def,
        bits: &bits,
        render: &render,
        verdicts: &verdicts,
        upstream,
        write_roots: s.write_roots_display(),
    });
    let mut first_site = std::collections::BTreeMap::new();
    for site in &surf.sites {
        first_site
            .entry(site.mutator.clone())
            .or_insert_with(|| (site.path.clone(), site.line, site.column));
    }
    Ok(CheckRun {
        mode,
        mutators: scanned.len(),
        summary: crate::report::summary_line(&surf),
        counts: surf.counts(),
        first_site,
        def_path,
        result,
        verdicts,
        issues: if upstream { Vec::new() } else { surf.issues },
        inputs: ws
            .sources
            .iter()
            .chain(ws.def.iter())
            .chain(ws.render_state.iter())
            .chain(ws.tracker.iter())
            .map(|x| x.rel.clone())
            .collect(),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A file under two roots is lexed once; the same path with other text (a canned tree) is
    /// lexed on its own, so no pass reads another file's tokens.
    #[test]
    fn lexicon_shares_a_file_only_when_its_text_is_the_same() {
        let src = |rel: &str, text: &str| Source {
            rel: rel.into(),
            text: text.into(),
            bad_utf8: None,
        };
        let ws = Workspace {
            sources: vec![src("a.cpp", "void A() {}"), src("b.cpp", "void B() {}")],
            def: None,
            render_state: Some(src("a.cpp", "void A() {}")),
            tracker: Some(src("b.cpp", "void Other() {}")),
            write_units: vec![src("b.cpp", "void B() {}"), src("c.cpp", "void C() {}")],
            outside_units: Vec::new(),
        };
        let lx = Lexicon::new(&ws, Mode::Accurate);
        assert_eq!(lx.parsed.len(), 4);
        assert_eq!(lx.sources, vec![0, 1]);
        assert_eq!(lx.write_units, vec![1, 2]);
        assert_eq!((lx.render_state, lx.tracker), (Some(0), Some(3)));
        let names: Vec<&str> = lx.parsed.iter().map(|p| p.funcs[0].name.as_str()).collect();
        assert_eq!(names, vec!["A", "B", "C", "Other"]);
        // Upstream's scan reads no tokens: only the write units, RenderState.h and Tracker.h.
        let up = Lexicon::new(&ws, Mode::Upstream);
        assert!(up.sources.is_empty());
        let names: Vec<&str> = up.parsed.iter().map(|p| p.funcs[0].name.as_str()).collect();
        assert_eq!(names, vec!["B", "C", "A", "Other"]);
    }

    /// A file of two overlapping roots is read once and copied: every loaded source is what
    /// reading it afresh gives, and the overlap is really there (so the reuse is exercised).
    #[test]
    fn overlapping_roots_load_as_if_read_afresh() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../driver");
        let ws = load(&root, &Settings::mobilegl(), true).unwrap();
        let scanned: BTreeSet<&str> = ws.sources.iter().map(|s| s.rel.as_str()).collect();
        let shared = ws
            .write_units
            .iter()
            .chain(&ws.outside_units)
            .filter(|u| scanned.contains(u.rel.as_str()))
            .count();
        assert!(shared > 10, "{shared}");
        for u in ws.write_units.iter().chain(&ws.outside_units) {
            let fresh = tree::read(&root.join(&u.rel), u.rel.clone()).unwrap();
            assert_eq!(
                (&u.text, u.bad_utf8),
                (&fresh.text, fresh.bad_utf8),
                "{}",
                u.rel
            );
        }
    }
}
