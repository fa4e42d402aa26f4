//! The common shape of a gate: one optional section of mgctl.toml, skipped without it (saying
//! so), decided by its library, with the library's canned and live controls. Most gates are one
//! of these, written as data; a gate that needs more implements `Gate` itself.

use crate::gate::{CheckCtx, Control, Gate, GateReport, Neutered, SelfTest};
use workspace_config::Config;

/// A library's canned controls: which of them to neuter, by name.
type Controls = fn(&dyn Fn(&str) -> bool) -> Vec<Control>;
/// A library's live controls over the configured workspace.
type Live<C> = fn(&CheckCtx, &C, &dyn Fn(&str) -> bool) -> Vec<Control>;

pub(crate) struct SectionGate<C: 'static> {
    name: &'static str,
    about: &'static str,
    /// Why the gate is skipped when the section is absent ("no [x] section in mgctl.toml").
    absent: String,
    section: fn(&Config) -> Option<&C>,
    /// Why a present section checks nothing here; None when it checks.
    idle: fn(&CheckCtx, &C) -> Option<String>,
    run: fn(&CheckCtx, &C) -> GateReport,
    controls: Controls,
    live: Option<Live<C>>,
    /// The workspace-relative files it reads that a `[build]` may make.
    artifacts: fn(&C) -> Vec<String>,
    cost: u32,
}

impl<C> SectionGate<C> {
    pub(crate) fn new(
        name: &'static str,
        about: &'static str,
        absent: &str,
        section: fn(&Config) -> Option<&C>,
        run: fn(&CheckCtx, &C) -> GateReport,
        controls: Controls,
    ) -> Self {
        SectionGate {
            name,
            about,
            absent: absent.to_string(),
            section,
            idle: |_, _| None,
            run,
            controls,
            live: None,
            artifacts: |_| Vec::new(),
            cost: 1,
        }
    }

    pub(crate) fn live(self, live: Live<C>) -> Self {
        SectionGate {
            live: Some(live),
            ..self
        }
    }

    pub(crate) fn idle(self, idle: fn(&CheckCtx, &C) -> Option<String>) -> Self {
        SectionGate { idle, ..self }
    }

    pub(crate) fn artifacts(self, artifacts: fn(&C) -> Vec<String>) -> Self {
        SectionGate { artifacts, ..self }
    }

    /// See [`Gate::cost`].
    pub(crate) fn cost(self, cost: u32) -> Self {
        SectionGate { cost, ..self }
    }
}

impl<C: lints::diag::Section> SectionGate<C> {
    /// A lint's gate: the section names itself, and says when it checks nothing.
    pub(crate) fn lint(
        name: &'static str,
        about: &'static str,
        section: fn(&Config) -> Option<&C>,
        run: fn(&CheckCtx, &C) -> GateReport,
        controls: Controls,
    ) -> Self {
        let absent = format!("no {} section in mgctl.toml", C::NAME);
        SectionGate {
            idle: |_, c| c.nothing_to_check(),
            ..SectionGate::new(name, about, &absent, section, run, controls)
        }
    }
}

impl<C: Sync + Send> Gate for SectionGate<C> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn description(&self) -> &'static str {
        self.about
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        match (self.section)(&ctx.config) {
            None => Some(self.absent.clone()),
            Some(c) => (self.idle)(ctx, c),
        }
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        match (self.section)(&ctx.config) {
            None => GateReport::skipped(self.name, self.absent.clone()),
            Some(c) => (self.run)(ctx, c),
        }
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        crate::gate::self_test((self.controls)(&|c| neutered.contains(self.name, c)))
    }

    fn live_controls(&self, ctx: &CheckCtx, neutered: &Neutered) -> Vec<Control> {
        let Some(live) = self.live else {
            return Vec::new();
        };
        match (self.section)(&ctx.config).filter(|c| (self.idle)(ctx, c).is_none()) {
            None => vec![Control::not_configured()],
            Some(c) => live(ctx, c, &|n| neutered.contains(self.name, n)),
        }
    }

    fn artifacts(&self, ctx: &CheckCtx) -> Vec<String> {
        (self.section)(&ctx.config).map_or_else(Vec::new, self.artifacts)
    }

    fn cost(&self) -> u32 {
        self.cost
    }
}
