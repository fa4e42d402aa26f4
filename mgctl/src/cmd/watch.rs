//! `mgctl stats watch`: the live terminal view of the `MGPipe stats:` counters
//! (`stats_viewer::tui`) and its `--once` snapshot (text or JSON). Its benchmark is
//! `cargo bench -p stats_viewer --features tui --bench watch`.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, ValueEnum};

use stats_viewer::tui::{self, Baseline, Source, SourceOptions, Tab, ViewState};

use super::Outcome;
use crate::settings::Settings;

#[derive(Debug, Args)]
#[command(
    about = "Live terminal view of the MGPipe counters while a trace replays",
    long_about = "A live terminal view of MobileGL's `MGPipe stats:` counters while a trace replays: \
the header names the source, session (pid), backend, period, build arm (pull/push), verify arming, windows \
seen and the time since the last window; the body shows the latest complete window grouped as the line \
groups them (calls, bytes/f, tex, cso, emit, wait, gates) with per-frame and per-draw values, the change \
from the previous window and gate hit rates, unknown keys included; a charts view has line charts of draws/f, \
acc/draw, each gate's hit rate and the largest byte classes over the window history. A `Fatal{…}` or a \
session change (the app restarted) raises a red banner. With --baseline every value is also compared with \
the baseline log's window at the same frames= (Δ, Δ %). Sources: a growing file followed like `tail -F` \
(appends, truncation, rename, rotation), `-` for stdin, --adb [SERIAL] (spawns `adb logcat -v threadtime`) \
or --replay LOG [--speed X]. Keys: q quit, p pause, ←/→ history, tab views, / filter, e export JSON, ? help. \
Without a terminal use --once for a text snapshot. --client LOG --server LOG follows a split run's two role \
logs side by side, each in its own view (keys act on both; `e` exports both).",
    after_help = "Examples:\n  mgctl stats watch driver/MobileGL/MG_Test/runs/*/pull/mobilegl.log\n  adb logcat -v threadtime | mgctl stats watch -\n  mgctl stats watch --adb emulator-5554 \\\n      --baseline driver/MobileGL/MG_Test/runs/*/pull/mobilegl.log\n  mgctl stats watch \\\n      --replay driver/MobileGL/MG_Test/runs/*/push/mobilegl.log --speed 10\n  mgctl stats watch --once driver/MobileGL/MG_Test/runs/*/pull/mobilegl.log\n  mgctl stats watch --once --width 160 \\\n      --client driver/MobileGL/MG_Test/sessions/*/03-*/mobilegl.client.log \\\n      --server driver/MobileGL/MG_Test/sessions/*/03-*/mobilegl.server.log"
)]
pub struct WatchArgs {
    /// The log to follow (like `tail -F`), or `-` for standard input.
    #[arg(value_name = "LOG", conflicts_with_all = ["adb", "replay", "client"])]
    pub log: Option<PathBuf>,
    /// A split run's client role log: with --server, both followed side by side.
    #[arg(long, value_name = "LOG", requires = "server", conflicts_with_all = ["adb", "replay", "baseline"])]
    pub client: Option<PathBuf>,
    /// A split run's server role log (with --client).
    #[arg(long, value_name = "LOG", requires = "client")]
    pub server: Option<PathBuf>,
    /// Spawn `adb [-s SERIAL] logcat -v threadtime` (`adb` from PATH) and watch its output.
    #[arg(long, value_name = "SERIAL", num_args = 0..=1, default_missing_value = "", conflicts_with = "replay")]
    pub adb: Option<String>,
    /// Replay a finished log at its recorded pace (MobileGL's HH:MM:SS header clock).
    #[arg(long, value_name = "LOG")]
    pub replay: Option<PathBuf>,
    /// Replay speed: 1 = as recorded, 10 = ten times faster, 0 = as fast as possible.
    #[arg(long, default_value_t = 1.0, value_name = "X", requires = "replay")]
    pub speed: f64,
    /// Compare every value with this log's last complete window (Δ, Δ %); `-` for stdin.
    #[arg(long, value_name = "A.log")]
    pub baseline: Option<PathBuf>,
    /// Read the source to its end, print the view as text and exit (no terminal needed).
    #[arg(long)]
    pub once: bool,
    /// Width of the --once snapshot.
    #[arg(long, default_value_t = 100, value_name = "COLUMNS")]
    pub width: u16,
    /// The view to start in (and to print with --once).
    #[arg(long, value_enum, default_value_t = ViewArg::Counters)]
    pub view: ViewArg,
    /// Windows kept for history and charts (the memory bound).
    #[arg(long, default_value_t = tui::state::DEFAULT_HISTORY, value_name = "WINDOWS")]
    pub history: usize,
    /// Longest line kept, in bytes; longer lines are cut and counted.
    #[arg(long, default_value_t = tui::follow::DEFAULT_LINE_CAP, value_name = "BYTES")]
    pub line_cap: usize,
    /// Where `e` writes its mgctl-watch-N.json exports.
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub export_dir: PathBuf,
    /// Test hook: panic inside the live view, to prove the terminal is restored.
    #[arg(long, hide = true)]
    pub crash_test: bool,
    // The first spelling of --format json, kept (hidden) for old scripts.
    #[arg(long, hide = true, conflicts_with = "format")]
    pub json: bool,
    // Of --once: `json` is the view as `e` exports it.
    #[arg(long, value_enum, default_value_t = FormatArg::Human, help = crate::flags::FORMAT_HELP)]
    pub format: FormatArg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// Text for people (colour on a terminal).
    #[value(alias = "text")]
    Human,
    /// Versioned JSON (`"schema": 1`), documented in docs/.
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ViewArg {
    Counters,
    Charts,
    Events,
}

fn source(args: &WatchArgs) -> anyhow::Result<Source> {
    let (log, replay) = (args.log.as_deref(), args.replay.as_deref());
    Source::pick(log, args.adb.as_deref(), replay, args.speed).context(
        "stats watch needs one source: a LOG to follow, `-` for stdin, --adb [SERIAL] or --replay LOG",
    )
}

fn baseline(args: &WatchArgs) -> anyhow::Result<Option<Baseline>> {
    let Some(path) = &args.baseline else {
        return Ok(None);
    };
    if path.as_os_str() == "-" && args.log.as_deref() == Some(std::path::Path::new("-")) {
        anyhow::bail!("`-` (standard input) can be read once: give it for the LOG or the --baseline, not both");
    }
    let bytes = super::read_input(path).context("reading the baseline")?;
    Ok(Some(Baseline::from_log(super::input_name(path), &bytes)?))
}

/// `--client LOG --server LOG`: the two role logs side by side.
fn run_pair(
    args: &WatchArgs,
    settings: &Settings,
    (client, server): (&std::path::Path, &std::path::Path),
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    if client.as_os_str() == "-" || server.as_os_str() == "-" {
        anyhow::bail!("stats watch --client/--server: two files to follow, not `-`");
    }
    let sources = [
        Source::File(client.to_path_buf()),
        Source::File(server.to_path_buf()),
    ];
    let states = [0, 1].map(|i| {
        let role = if i == 0 { "client" } else { "server" };
        let mut s = ViewState::new(
            format!("{role}: {}", sources[i].label()),
            args.history,
            None,
        );
        s.color = settings.color;
        s.crash_test = args.crash_test;
        s.tab = tab(args.view);
        // Under spawn the client's frames=0 window=0 are another process's count.
        s.live.structural_frames = i == 0;
        s
    });
    let opts = SourceOptions {
        line_cap: args.line_cap,
        ..SourceOptions::default()
    };
    let both = [&sources[0], &sources[1]];
    if args.once && (args.json || args.format == FormatArg::Json) {
        out.write_all(tui::pair::once_pair_json(both, opts, states)?.as_bytes())?;
        return Ok(Outcome::Pass);
    }
    if args.once {
        out.write_all(tui::pair::once_pair(both, opts, states, args.width)?.as_bytes())?;
        return Ok(Outcome::Pass);
    }
    if !std::io::stdout().is_terminal() {
        anyhow::bail!(
            "stats watch draws on a terminal and stdout is not one; use --once for a text snapshot"
        );
    }
    tui::pair::watch_pair(both, opts, states, &args.export_dir)?;
    Ok(Outcome::Pass)
}

fn tab(v: ViewArg) -> Tab {
    match v {
        ViewArg::Counters => Tab::Counters,
        ViewArg::Charts => Tab::Charts,
        ViewArg::Events => Tab::Events,
    }
}

pub fn run(args: &WatchArgs, settings: &Settings, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    if let (Some(c), Some(s)) = (&args.client, &args.server) {
        return run_pair(args, settings, (c, s), out);
    }
    let src = source(args)?;
    if src == Source::Stdin && std::io::stdin().is_terminal() {
        anyhow::bail!(
            "stats watch -: stdin is a terminal, not a log; pipe one in (adb logcat -v threadtime | mgctl stats watch -)"
        );
    }
    let base = baseline(args)?;
    let mut state = ViewState::new(src.label(), args.history, base);
    state.color = settings.color;
    state.crash_test = args.crash_test;
    state.tab = tab(args.view);
    let opts = SourceOptions {
        line_cap: args.line_cap,
        ..SourceOptions::default()
    };
    if args.once && (args.json || args.format == FormatArg::Json) {
        out.write_all(tui::once_json(&src, opts, state)?.as_bytes())?;
        return Ok(Outcome::Pass);
    }
    if args.once {
        let text = tui::once(&src, opts, state, args.width)?;
        out.write_all(text.as_bytes())?;
        return Ok(Outcome::Pass);
    }
    if !std::io::stdout().is_terminal() {
        anyhow::bail!(
            "stats watch draws on a terminal and stdout is not one; use --once for a text snapshot"
        );
    }
    tui::watch(&src, opts, state, &args.export_dir)?;
    Ok(Outcome::Pass)
}
