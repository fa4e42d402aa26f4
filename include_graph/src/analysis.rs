//! The two analyses behind the include gates, one entry point each: [`probes`] (the closure
//! check of each probe header, in text mode, compiler mode or both) and [`layering`] (the
//! `[[include.layer]]` rules). Each takes typed options and returns a typed outcome; the
//! `include probes` / `include rules` commands render the outcome, the gates map its
//! [`Diag`]s to findings, so both reach the same verdict.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::cfg::CompileDb;
use crate::codes::Code;
use crate::compiler::{self, Comparison};
use crate::error::{Error, Result};
use crate::graph::{Graph, Issue, Unresolvable};
use crate::probe::{self, Probe, ProbeResult, Status};
use crate::query::{self, chain_text, Cycle};
use crate::rules::{self, LayeringReport, Origin, RuleGroup};

/// Which closure a probe is checked on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The static graph only.
    Text,
    /// The real preprocessor's `-H` transcript only.
    Compiler,
    /// Both, failing on any disagreement the macro-aware walk cannot explain.
    Both,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Text => "text",
            Mode::Compiler => "compiler",
            Mode::Both => "text+compiler",
        }
    }
    fn uses_text(self) -> bool {
        self != Mode::Compiler
    }
    fn uses_compiler(self) -> bool {
        self != Mode::Text
    }
}

pub use diag::Severity;

/// One fact an analysis concluded, ready to become a gate finding.
pub type Diag = diag::Diag<Code>;

/// What `probes` needs besides the graph; everything environment-dependent is passed in.
#[derive(Debug, Clone, Copy)]
pub struct ProbeOptions<'a> {
    /// Every configured probe (the `--require-all` check covers unselected ones too).
    pub probes: &'a [Probe],
    /// Names of the probes to run; empty runs all. An unknown name is an error.
    pub only: &'a [String],
    pub require_all: bool,
    /// Fail unless exactly this many probes are selected (a SKIP counts, as upstream).
    pub expect_probes: Option<usize>,
    pub mode: Mode,
    /// The compiler for compiler/both mode, chosen by the caller (`$CXX`, PATH, a flag).
    pub compiler: Option<&'a str>,
    /// `[include] compiler_flags`, put before the flags borrowed from the compile database.
    pub compiler_flags: &'a [String],
    pub compile_db: Option<&'a CompileDb>,
}

/// Where the compiler-mode flags came from.
#[derive(Debug, Clone)]
pub struct FlagsFrom {
    pub file: PathBuf,
    pub tokens: usize,
    pub cwd: PathBuf,
}

/// The compiler's side of one probe.
#[derive(Debug, Clone)]
pub enum CompilerSide {
    /// The probe evaluated on the `-H` transcript (text limits carried over from the text side).
    Ran(ProbeResult),
    /// The preprocessor exited non-zero; its first diagnostics.
    Failed { diagnostics: Vec<String> },
    /// The preprocessor could not be started.
    NotRun(String),
}

#[derive(Debug, Clone)]
pub struct ProbeOutcome {
    pub probe: Probe,
    /// The static graph's result (status SKIP when the header is missing; then nothing else ran).
    pub text: ProbeResult,
    pub compiler: Option<CompilerSide>,
    /// `both` mode, when the compiler succeeded: its closure against the macro-aware walk.
    pub comparison: Option<Comparison>,
}

impl ProbeOutcome {
    fn bad(&self, mode: Mode) -> bool {
        if self.text.status == Status::Skip {
            return false;
        }
        let text_bad = mode.uses_text() && self.text.status != Status::Ok;
        let cc_bad = match &self.compiler {
            None => false,
            Some(CompilerSide::Ran(r)) => r.status != Status::Ok,
            Some(_) => true,
        };
        text_bad || cc_bad
    }
    fn disagrees(&self) -> bool {
        self.comparison
            .as_ref()
            .is_some_and(|c| c.unexplained() > 0)
    }
}

#[derive(Debug, Clone)]
pub struct ProbesOutcome {
    pub mode: Mode,
    pub compiler: Option<String>,
    /// The flags of every compiler run.
    pub flags: Vec<String>,
    pub flags_from: Option<FlagsFrom>,
    /// A problem that stopped the compiler side as a whole (no compiler, no predefined macros).
    pub setup_problem: Option<String>,
    /// Required probes not selected whose header is missing, under `require_all`.
    pub missing_required: Vec<Probe>,
    pub results: Vec<ProbeOutcome>,
    pub require_all: bool,
    pub expect_probes: Option<usize>,
}

impl ProbesOutcome {
    pub fn selected(&self) -> usize {
        self.results.len()
    }
    pub fn skipped(&self) -> usize {
        self.results
            .iter()
            .filter(|r| r.text.status == Status::Skip)
            .count()
    }
    /// Probes whose header exists (they ran).
    pub fn ran(&self) -> usize {
        self.selected() - self.skipped()
    }
    pub fn forbidden(&self) -> usize {
        self.results.iter().map(|r| r.text.violations.len()).sum()
    }
    /// `(expected, selected)` when `expect_probes` is set and differs from the selected count.
    pub fn expect_mismatch(&self) -> Option<(usize, usize)> {
        self.expect_probes
            .filter(|&n| n != self.selected())
            .map(|n| (n, self.selected()))
    }
    /// Upstream's problem count: one per failed probe, disagreement, missing required header,
    /// SKIP under require_all, count mismatch and setup failure.
    pub fn problems(&self) -> usize {
        let per_probe: usize = self
            .results
            .iter()
            .map(|r| {
                let skip = r.text.status == Status::Skip && self.require_all;
                usize::from(skip) + usize::from(r.bad(self.mode)) + usize::from(r.disagrees())
            })
            .sum();
        per_probe
            + self.missing_required.len()
            + usize::from(self.expect_mismatch().is_some())
            + usize::from(self.setup_problem.is_some())
    }
    /// The one verdict, for the command and the gate alike: no error among
    /// [`Self::gate_diagnostics`] (the probes' own facts and the graph's input problems).
    pub fn passed(&self, g: &Graph) -> bool {
        !self.gate_diagnostics(g).iter().any(Diag::is_error)
    }

    /// The probes' own facts (INC001–INC004, INC011, INC015, INC016); an error is present
    /// exactly when a probe problem is counted.
    pub fn diagnostics(&self) -> Vec<Diag> {
        let mut out = Vec::new();
        let cxx = self.compiler.as_deref().unwrap_or("-");
        for p in &self.missing_required {
            out.push(
                Diag::new(
                    Code::Inc003,
                    Severity::Error,
                    format!(
                        "probe `{}` is required under require_all but its header does not exist: {}",
                        p.name, p.header
                    ),
                )
                .in_unit(p.name.clone()),
            );
        }
        for o in &self.results {
            let r = &o.text;
            let name = &r.probe;
            if r.status == Status::Skip {
                let (sev, tail) = if self.require_all {
                    (Severity::Error, " (a failure under require_all)")
                } else {
                    (Severity::Warning, "")
                };
                out.push(
                    Diag::new(
                        Code::Inc003,
                        sev,
                        format!(
                            "probe `{name}` SKIP: header not present: {}{tail}",
                            r.header
                        ),
                    )
                    .in_unit(name.clone()),
                );
                continue;
            }
            if self.mode.uses_text() {
                for v in &r.violations {
                    // Point at the include that brings the forbidden header in (the last hop with a line).
                    let mut d = Diag::new(
                        Code::Inc001,
                        Severity::Error,
                        format!(
                            "probe `{name}`: {} reaches forbidden {}{} (rule {}): {}",
                            r.header,
                            v.path,
                            v.resolved
                                .as_ref()
                                .map(|t| format!(" (a link to {t})"))
                                .unwrap_or_default(),
                            v.rule,
                            chain_text(&v.chain)
                        ),
                    );
                    d = match v.chain.iter().rev().find_map(|h| h.line.map(|l| (h, l))) {
                        Some((h, l)) => d.at(h.path.clone(), l, None),
                        None => d.file(r.header.clone()),
                    };
                    d.detail = Some(json!({"probe": name, "rule": v.rule, "chain": v.chain}));
                    out.push(d.in_unit(name.clone()));
                }
                for (path, why) in &r.allowed {
                    out.push(
                        Diag::new(
                            Code::Inc011,
                            Severity::Note,
                            format!("probe `{name}`: ALLOW {path} - {why}"),
                        )
                        .in_unit(name.clone()),
                    );
                }
            }
            for t in &r.text_problems {
                out.push(
                    Diag::new(
                        Code::Inc002,
                        Severity::Error,
                        format!("probe `{name}`: text limit: {t}"),
                    )
                    .file(o.probe.header.clone())
                    .in_unit(name.clone()),
                );
            }
            match &o.compiler {
                None => {}
                Some(CompilerSide::NotRun(e)) => out.push(
                    Diag::new(Code::Inc015, Severity::Error, e.clone()).in_unit(name.clone()),
                ),
                Some(CompilerSide::Failed { diagnostics }) => {
                    let why = diagnostics.first().cloned().unwrap_or_default();
                    out.push(
                        Diag::new(
                            Code::Inc015,
                            Severity::Error,
                            format!("probe `{name}`: {cxx} preprocessing failed: {why}"),
                        )
                        .file(o.probe.header.clone())
                        .in_unit(name.clone()),
                    );
                }
                Some(CompilerSide::Ran(cr)) => {
                    for v in &cr.violations {
                        out.push(
                            Diag::new(
                                Code::Inc001,
                                Severity::Error,
                                format!(
                                    "probe `{name}` (mode=compiler, cxx={cxx}): {} reaches forbidden {} (rule {}): {}",
                                    o.probe.header,
                                    v.path,
                                    v.rule,
                                    chain_text(&v.chain)
                                ),
                            )
                            .file(o.probe.header.clone())
                            .in_unit(name.clone()),
                        );
                    }
                }
            }
            for d in o.comparison.iter().flat_map(|c| &c.differences) {
                let side = if d.static_only {
                    "static only"
                } else {
                    "compiler only"
                };
                let (code, sev) = if d.explanation.explained() {
                    (Code::Inc016, Severity::Note)
                } else {
                    (Code::Inc015, Severity::Error)
                };
                out.push(
                    Diag::new(
                        code,
                        sev,
                        format!("probe `{name}`: {} ({side}) - {}", d.path, d.explanation),
                    )
                    .file(o.probe.header.clone())
                    .in_unit(name.clone()),
                );
            }
        }
        if let Some((n, m)) = self.expect_mismatch() {
            out.push(Diag::new(
                Code::Inc004,
                Severity::Error,
                format!("expected {n} probe(s), ran {m} (a SKIP counts, as upstream counts it)"),
            ));
        }
        if let Some(p) = &self.setup_problem {
            out.push(Diag::new(Code::Inc015, Severity::Error, p.clone()));
        }
        out
    }
}

impl ProbesOutcome {
    /// Every fact of an `include-probes` run: the probes', then the graph's input problems.
    pub fn gate_diagnostics(&self, g: &Graph) -> Vec<Diag> {
        let mut out = self.diagnostics();
        out.extend(graph_diagnostics(g, false));
        out
    }

    /// The gate's one-line summary.
    pub fn summary(&self, g: &Graph) -> String {
        format!(
            "{} probes / {} ran / {} forbidden / {} files graphed",
            self.selected(),
            self.ran(),
            self.forbidden(),
            g.scanned_count()
        )
    }

    /// The gate's headline figures, in report order.
    pub fn figures(&self, g: &Graph) -> Vec<(&'static str, usize)> {
        vec![
            ("probes", self.selected()),
            ("ran", self.ran()),
            ("skipped", self.skipped()),
            ("forbidden", self.forbidden()),
            ("files", g.scanned_count()),
            ("edges", g.edge_count()),
        ]
    }

    /// The checked units: the selected probes' names.
    pub fn units(&self) -> Vec<String> {
        self.results.iter().map(|r| r.probe.name.clone()).collect()
    }
}

/// The flags of the compiler runs: `[include] compiler_flags`, then the flags of the compile
/// database's probe unit (defines, language, target and include flags, made absolute), else
/// the graph's search path as flags.
fn compiler_flags(g: &Graph, o: &ProbeOptions<'_>) -> (Vec<String>, Option<FlagsFrom>) {
    let mut flags = o.compiler_flags.to_vec();
    match o.compile_db.and_then(|db| db.probe_unit().map(|u| (db, u))) {
        Some((db, u)) => {
            flags.extend(u.flags.iter().cloned());
            let from = FlagsFrom {
                file: db.path.clone(),
                tokens: u.flags.len(),
                cwd: u.directory.clone(),
            };
            (flags, Some(from))
        }
        None => {
            flags.extend(compiler::search_flags(&g.search));
            (flags, None)
        }
    }
}

/// Runs the closure probes over the graph: the static closure, and in compiler or both mode
/// the real preprocessor per probe (one run each, in the workspace root).
pub fn probes(g: &Graph, o: &ProbeOptions<'_>) -> Result<ProbesOutcome> {
    let unknown: Vec<&str> = o
        .only
        .iter()
        .filter(|n| !o.probes.iter().any(|p| &p.name == *n))
        .map(String::as_str)
        .collect();
    if !unknown.is_empty() {
        return Err(Error::UnknownProbes {
            names: unknown.join(", "),
        });
    }
    let selected: Vec<&Probe> = o
        .probes
        .iter()
        .filter(|p| o.only.is_empty() || o.only.contains(&p.name))
        .collect();
    let missing_required = if o.require_all {
        o.probes
            .iter()
            .filter(|p| p.required && !selected.contains(p) && !g.root.join(&p.header).is_file())
            .cloned()
            .collect()
    } else {
        Vec::new()
    };
    let (flags, flags_from) = compiler_flags(g, o);
    let mut setup_problem = None;
    let cxx = if o.mode.uses_compiler() {
        if o.compiler.is_none() {
            setup_problem = Some(
                "compiler mode but no C++ preprocessor found (tried $CXX, c++, g++, clang++)"
                    .to_string(),
            );
        }
        o.compiler
    } else {
        None
    };
    // The known macro set of the macro-aware static walk that `both` compares with the compiler.
    let predefs = match (cxx, o.mode) {
        (Some(c), Mode::Both) => match compiler::predefined(c, &flags) {
            Ok(m) => Some(m),
            Err(e) => {
                setup_problem = Some(e.to_string());
                None
            }
        },
        _ => None,
    };
    let cxx = if setup_problem.is_some() { None } else { cxx };
    let mut results = Vec::new();
    for p in selected {
        let text = diag::walk::read(&g.root.join(&p.header)).ok();
        let sr = probe::run(g, p, text.as_deref());
        let mut out = ProbeOutcome {
            probe: p.clone(),
            text: sr,
            compiler: None,
            comparison: None,
        };
        if let (Some(cxx), false) = (cxx, out.text.status == Status::Skip) {
            let header = g.root.join(&p.header);
            match compiler::run_h(cxx, &flags, &header, &g.root) {
                Err(e) => out.compiler = Some(CompilerSide::NotRun(e.to_string())),
                Ok(run) if !run.success => {
                    out.compiler = Some(CompilerSide::Failed {
                        diagnostics: run.diagnostics,
                    })
                }
                Ok(run) => {
                    let mut cr = compiler::probe_from_run(&g.root, p, &run);
                    cr.text_problems = out.text.text_problems.clone();
                    if !cr.text_problems.is_empty() {
                        cr.status = Status::Forbidden;
                    }
                    if let (Mode::Both, Some(start)) = (o.mode, g.id(Path::new(&p.header))) {
                        let walked = predefs
                            .as_ref()
                            .map(|m| crate::pp::walk(g, start, m.clone()));
                        out.comparison = Some(compiler::compare(g, start, &run, walked.as_ref()));
                    }
                    out.compiler = Some(CompilerSide::Ran(cr));
                }
            }
        }
        results.push(out);
    }
    Ok(ProbesOutcome {
        mode: o.mode,
        compiler: o
            .compiler
            .filter(|_| o.mode.uses_compiler())
            .map(str::to_string),
        flags,
        flags_from,
        setup_problem,
        missing_required,
        results,
        require_all: o.require_all,
        expect_probes: o.expect_probes,
    })
}

/// The layering rules' outcome, plus the graph's cycles (reported beside it).
#[derive(Debug, Clone)]
pub struct LayeringOutcome {
    pub report: LayeringReport,
    pub cycles: Vec<Cycle>,
    pub layers: usize,
    pub rules: usize,
    /// The checked units: each layer's directory.
    pub units: Vec<String>,
}

impl LayeringOutcome {
    /// Every fact of an `include-layering` run: the rules' findings, then the graph's input
    /// problems (with the includes it cannot follow), then the cycles.
    pub fn gate_diagnostics(&self, g: &Graph) -> Vec<Diag> {
        let mut out = self.diagnostics();
        let cycles_at = out
            .iter()
            .position(|d| d.code == Code::Inc013)
            .unwrap_or(out.len());
        out.splice(cycles_at..cycles_at, graph_diagnostics(g, true));
        out
    }

    /// The gate's one-line summary.
    pub fn summary(&self) -> String {
        let rep = &self.report;
        format!(
            "{} layers, {} rules / {} files checked / {} violations, {} temporary uses",
            self.layers,
            self.rules,
            rep.files_checked,
            rep.violations.len(),
            rep.temporary.len()
        )
    }

    /// The gate's headline figures, in report order.
    pub fn figures(&self, g: &Graph) -> Vec<(&'static str, usize)> {
        let rep = &self.report;
        vec![
            ("layers", self.layers),
            ("rules", self.rules),
            ("files_checked", rep.files_checked),
            ("violations", rep.violations.len()),
            ("temporary_uses", rep.temporary.len()),
            ("stale", rep.stale.len()),
            ("files", g.scanned_count()),
            ("edges", g.edge_count()),
        ]
    }

    pub fn new_temporary(&self) -> usize {
        self.report.temporary.iter().filter(|t| !t.known).count()
    }
    /// The one verdict, for the command and the gate alike: no error among
    /// [`Self::gate_diagnostics`] (a violation, a new temporary use, a stale rule, or an input
    /// problem of the graph the rules were checked over).
    pub fn passed(&self, g: &Graph) -> bool {
        !self.gate_diagnostics(g).iter().any(Diag::is_error)
    }

    /// The outcome as gate facts (INC005–INC009, INC013).
    pub fn diagnostics(&self) -> Vec<Diag> {
        let rep = &self.report;
        let at_origin = |d: Diag, o: &Origin| {
            if o.line == 0 {
                d.file(o.file.clone())
            } else {
                d.at(o.file.clone(), o.line as u32, None)
            }
        };
        let mut out = Vec::new();
        for v in &rep.violations {
            let first = v.chain.first().and_then(|h| h.line).unwrap_or(0);
            let also = if v.also > 0 {
                format!(" (and {} more header(s) under the same rule)", v.also)
            } else {
                String::new()
            };
            let how = if v.transitive { "reaches" } else { "includes" };
            let mut d = Diag::new(
                Code::Inc005,
                Severity::Error,
                format!(
                    "{} {how} {} forbidden by `{}` ({}): {}{also}",
                    v.from,
                    v.header,
                    v.rule.text,
                    v.rule.origin,
                    chain_text(&v.chain)
                ),
            )
            .at(v.from.clone(), first, None)
            .in_unit(v.from.clone());
            d.detail = Some(
                json!({"rule": v.rule.text, "rule_at": v.rule.origin.to_string(), "chain": v.chain, "transitive": v.transitive}),
            );
            out.push(d);
        }
        for t in &rep.temporary {
            let first = t.chain.first().and_then(|h| h.line).unwrap_or(0);
            let (code, sev, what) = if t.known {
                (
                    Code::Inc007,
                    Severity::Warning,
                    "known use of temporary allowance",
                )
            } else {
                (
                    Code::Inc006,
                    Severity::Error,
                    "NEW use of temporary allowance",
                )
            };
            out.push(
                Diag::new(
                    code,
                    sev,
                    format!(
                        "{what} `{}` ({}): {} (known_uses key: \"{}\")",
                        t.rule.text,
                        t.rule.origin,
                        chain_text(&t.chain),
                        t.key()
                    ),
                )
                .at(t.from.clone(), first, None)
                .in_unit(t.from.clone()),
            );
        }
        for s in &rep.stale {
            let d = Diag::new(
                Code::Inc008,
                Severity::Error,
                format!("stale {}: {}", s.what, s.reason),
            );
            out.push(at_origin(d, &s.origin));
        }
        for s in &rep.gone {
            let d = Diag::new(
                Code::Inc009,
                Severity::Warning,
                format!("{}: {}", s.what, s.reason),
            );
            out.push(at_origin(d, &s.origin));
        }
        for c in &self.cycles {
            let mut d = Diag::new(
                Code::Inc013,
                Severity::Warning,
                format!(
                    "include cycle of {} file(s): {}",
                    c.files.len(),
                    chain_text(&c.witness)
                ),
            );
            if let Some(h) = c.witness.first() {
                d = d.at(h.path.clone(), h.line.unwrap_or(0), None);
            }
            out.push(d);
        }
        out
    }
}

/// Checks the layering rules over the graph.
pub fn layering(g: &Graph, groups: &[RuleGroup]) -> LayeringOutcome {
    LayeringOutcome {
        report: rules::check(g, groups),
        cycles: query::cycles(g),
        layers: groups.len(),
        rules: groups.iter().map(|g| g.rules.len()).sum(),
        units: groups.iter().map(|g| g.dir.clone()).collect(),
    }
}

/// Input problems met while building the graph (INC010; an unreadable file is an error), and
/// with `computed` the includes it cannot follow (INC012 notes).
pub fn graph_diagnostics(g: &Graph, computed: bool) -> Vec<Diag> {
    let mut out = Vec::new();
    for i in &g.issues {
        // The location carries the path; the message is what is wrong with it.
        let d = match i {
            Issue::Unreadable { path, message } => Diag::new(
                Code::Inc010,
                Severity::Error,
                format!("unreadable, not scanned: {message}"),
            )
            .file(path.clone()),
            Issue::InvalidUtf8 { path, line, column } => Diag::new(
                Code::Inc010,
                Severity::Warning,
                "invalid UTF-8 (scanned as bytes)",
            )
            .at(path.clone(), *line, Some(*column)),
            Issue::Directive {
                path,
                line,
                message,
            } => Diag::new(Code::Inc010, Severity::Warning, message.clone()).at(
                path.clone(),
                *line,
                None,
            ),
            Issue::MissingSearchDir { path } => Diag::new(
                Code::Inc010,
                Severity::Warning,
                "include directory does not exist (ignored)",
            )
            .file(path.clone()),
            Issue::SymlinkLoop { path } => {
                Diag::new(Code::Inc010, Severity::Warning, "symlink loop, not walked")
                    .file(path.clone())
            }
        };
        out.push(d);
    }
    if !computed {
        return out;
    }
    // Computed includes and #include_next cannot be followed statically: say so, once each.
    for u in g
        .unresolved
        .iter()
        .filter(|u| u.reason != Unresolvable::NotFound && !g.nodes[u.from].external)
    {
        let what = if u.reason == Unresolvable::Computed {
            "computed include"
        } else {
            "#include_next"
        };
        out.push(
            Diag::new(
                Code::Inc012,
                Severity::Note,
                format!("{what} `{}` not followed by the static graph (use --mode both to compare with the compiler)", u.spelling),
            )
            .at(g.rel(u.from), u.line, None),
        );
    }
    out
}
