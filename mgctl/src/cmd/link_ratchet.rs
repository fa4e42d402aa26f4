//! `mgctl symbols ratchet`: the `link-ratchet` gate's analysis (`symbols::ratchet`) as a report —
//! the reached symbols with who needs and who defines each — and the baseline re-recorded on
//! purpose (`--write-baseline`). The verdict is the gate's: the same diagnostics, mapped the same.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use symbols::ratchet::{self, Baseline, Code};

use super::Outcome;
use crate::settings::Settings;

const GATE: &str = "link-ratchet";

#[derive(Debug, Args)]
#[command(
    about = "The link ratchet: frontend symbols server objects still need, against the baseline",
    long_about = "MobileGL's scripts/link_ratchet.py, also the `link-ratchet` gate of `check`. Reads every \
object below [link_ratchet] objects with mgctl's ELF reader, sorts them into SERVER / FRONTEND / SHARED by \
the [[link_ratchet.partition]] table (longest prefix wins) and lists the reach: (SERVER undefined - SERVER \
defined - SHARED defined) intersect FRONTEND defined, demangled, strong references only. A reached symbol the \
baseline does not list is red (LNK001); one no longer reached is a note (re-record in the same commit). An \
object no row claims, an empty role, a row claiming nothing, a required CMakeCache option that does not hold \
or an unreadable object is red: the measurement cannot be trusted. `--write-baseline` records today's reach \
(keeping the notes of kept symbols), refusing while the measurement is in doubt. The objects are `[build]` \
outputs: stale ones are rebuilt first, as `check` does (`--no-build` refuses them instead). Exit status: 0 clean, 1 any \
error, 2 bad input or a refused --write-baseline.",
    after_help = "Examples:\n  mgctl symbols ratchet -C driver\n  mgctl symbols ratchet -C driver --format json\n  mgctl symbols ratchet -C driver --no-build\n  mgctl symbols ratchet -C driver --write-baseline"
)]
pub struct RatchetArgs {
    #[arg(short = 'C', long = "workspace", value_name = "DIR", default_value = ".", help = crate::flags::WORKSPACE_HELP)]
    pub workspace: PathBuf,
    /// Record today's reach in [link_ratchet] baseline (notes of kept symbols kept), then exit 0.
    #[arg(long)]
    pub write_baseline: bool,
    #[arg(long, help = crate::flags::NO_BUILD_HELP)]
    pub no_build: bool,
    #[arg(long, value_enum, default_value_t = crate::flags::DataFormat::Human, help = crate::flags::FORMAT_HELP)]
    pub format: crate::flags::DataFormat,
}

pub fn run(
    args: &RatchetArgs,
    settings: &Settings,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let ctx = settings.workspace(&settings.discover(&args.workspace))?;
    let Some(cfg) = ctx.config.link_ratchet.clone() else {
        anyhow::bail!(
            "{}: no [link_ratchet] section in mgctl.toml (see docs/link-ratchet.md)",
            ctx.root.display()
        );
    };
    let json = args.format == crate::flags::DataFormat::Json;
    let reads = cfg.artifacts();
    if let Some(done) = super::build_first(&ctx, GATE, &reads, (args.no_build, json), out)? {
        return Ok(done);
    }
    let input = ratchet::gather(&ctx.root, &cfg);
    let reach = ratchet::reached(&cfg, &input);
    let o = ratchet::analyse(&cfg, &input);
    if args.write_baseline {
        // Only the ratchet's own codes may stand: anything else means the set is not measured.
        let doubt: Vec<&str> = o
            .diags
            .iter()
            .filter(|d| !matches!(d.code, Code::Lnk001 | Code::Lnk002))
            .map(|d| d.code.as_str())
            .collect();
        if !doubt.is_empty() {
            anyhow::bail!(
                "symbols ratchet: not writing the baseline while the measurement is in doubt \
                 ({}; run without --write-baseline to see them)",
                doubt.join(", ")
            );
        }
        let old = input
            .baseline
            .as_ref()
            .map(|_| std::fs::read_to_string(ctx.root.join(&cfg.baseline)).unwrap_or_default());
        let text = Baseline::rerecord(old.as_deref(), &reach);
        crate::output::write_file(&ctx.root.join(&cfg.baseline), text.as_bytes())?;
        writeln!(
            out,
            "link-ratchet baseline written: {} symbol(s) ({})",
            reach.len(),
            diag::escape::terminal(&cfg.baseline)
        )?;
        return Ok(Outcome::Pass);
    }
    let passed = o.passed();
    let findings: Vec<_> = o.diags.into_iter().map(|d| ctx.finding(GATE, d)).collect();
    if args.format == crate::flags::DataFormat::Json {
        let mut doc = super::gate_doc(passed, &o.headline, &o.inputs, &findings);
        doc["reach"] = reach
            .iter()
            .map(|(name, r)| {
                serde_json::json!({
                    "symbol": name,
                    "referrers": r.referrers,
                    "definers": r.definers,
                })
            })
            .collect();
        writeln!(out, "{}", lints::diag::pretty_json(&doc)?)?;
        return Ok(Outcome::from_pass(passed));
    }
    let t = diag::escape::terminal;
    writeln!(out, "link-ratchet: {}", t(&o.headline))?;
    for (name, r) in &reach {
        let list = |s: &std::collections::BTreeSet<String>| {
            s.iter()
                .map(|x| t(x).into_owned())
                .collect::<Vec<_>>()
                .join(", ")
        };
        writeln!(
            out,
            "  {}  needed by {}; defined in {}",
            t(name),
            list(&r.referrers),
            list(&r.definers)
        )?;
    }
    super::write_findings(&findings, &crate::output::shown(&ctx.root), out)?;
    Ok(Outcome::from_pass(passed))
}
