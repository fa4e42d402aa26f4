//! `cargo bench -p stats_viewer --features tui --bench watch [-- --rate LINES --seconds S --history N --prefill N --json]`:
//! the live view's benchmark (was `mgctl stats watch --bench`): a feeder thread appends log lines
//! to a file at a fixed rate (default 10,000 lines/s for 20 s) while the real follower thread,
//! event loop and renderer (a headless [`TestBackend`] of 160x45, the same `run` loop and `render`
//! as the terminal) run against it; the CPU time of the viewer's own threads (not the feeder's) is
//! read from the kernel's per-thread accounting (`/proc/thread-self/schedstat`).
//!
//! Before the clock starts the ring is filled with `--prefill` windows (default: the history,
//! 100,000) through the same `Live::ingest` the follower's batches go through, so the measured
//! seconds are the steady state of a view holding a full history; the RSS growth over that fill,
//! divided by the windows kept, is the memory per retained window.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

use stats_viewer::tui::follow::Follower;
use stats_viewer::tui::source::follow_loop;
use stats_viewer::tui::{run, Batch, Error, Event, ViewState, TICK};

mod common;

/// What to measure.
#[derive(Debug, Clone, Copy)]
struct BenchOptions {
    pub lines_per_second: u64,
    pub seconds: f64,
    /// Window ring size.
    pub history: usize,
    /// Windows in the ring before the clock starts.
    pub prefill: usize,
    pub width: u16,
    pub height: u16,
}

/// What was measured.
#[derive(Debug, Clone, serde::Serialize)]
struct BenchReport {
    pub schema: u32,
    pub seconds: f64,
    pub lines_target_per_second: u64,
    pub lines_fed: u64,
    pub lines_read: u64,
    pub windows_fed: u64,
    pub windows_seen: u64,
    pub draws: u64,
    pub draws_per_second: f64,
    /// CPU of the follower thread plus the event loop and renderer, % of one core.
    pub viewer_cpu_percent: f64,
    pub ingest_cpu_percent: f64,
    pub loop_cpu_percent: f64,
    /// Whole process, the feeder included.
    pub process_cpu_percent: f64,
    pub cpu_source: &'static str,
    pub history: usize,
    pub windows_held: usize,
    pub peak_rss_kib: Option<u64>,
    /// Windows put in the ring before the clock started, and the resident-set growth doing so.
    pub prefilled_windows: usize,
    pub prefill_rss_kib: Option<u64>,
    pub width: u16,
    pub height: u16,
    pub optimized_build: bool,
}

/// A logcat-shaped mix: mostly other tags, some MobileGL records, one window line per 1,000 lines.
fn line_for(i: u64, frames: &mut u64) -> String {
    let pid = 21377;
    if i % 1000 == 999 {
        *frames += 120;
        return format!(
            "11-30 10:04:37.021 {pid} 21412 I MobileGL: [10:04:37] [Android MobileGLTraceRe/INFO]: MGPipe stats: frames={} window=120 draws=102611 draws/f=855.09 acc=925544 acc/draw=9.02 bytes/f[buf=96119.47 tex=97280.00 ubog=1024.00 ubon=0.00 vtxc=0.00 idxc=0.00 icmd=0.00 pmap=0.00 resid=3993.93 csob-blob=512.00 seg=0.00] tex[emit=12 box=12 rect=0 jobs=12] cso[csom=0 csob=61654 mpr=0] emit[fbe=240 sve=1200 sse=960 sie=0 ctu=12 trp=0 rsp=0 vbs=0 wrec=0 wrec/f=0.00 maxrec=0 maxcap=0 ringwraps=0 ringpads=0 ringwaits=0] wait[srv=0 srvpark=0 cli=0 clipark=0] gates[ers={}/4899 etl=7416/95345 eub=6739/96022 mfp=0/0 mpm=0/0 mdt=0/0]\n",
            *frames,
            97862 + i % 7
        );
    }
    if i % 10 == 0 {
        return format!("11-30 10:04:37.{:03} {pid} 21412 I MobileGL: [10:04:37] [Android MobileGLTraceRe/INFO]: Espryt: program cache hit {i}\n", i % 1000);
    }
    format!(
        "11-30 10:04:37.{:03}  1234  1301 D Adreno-GSL: <gsl_ldd_control:553>: ioctl fd 35 code 0xc040094a (IOCTL_KGSL_GPUOBJ_ALLOC) {i}\n",
        i % 1000
    )
}

/// Fills the ring with `n` windows of a generated capture (another pid than the feeder's, so the
/// live feed is a second session), parsed and ingested as the follower would, in batches.
fn prefill(state: &mut ViewState, n: usize, cap: usize) {
    if n == 0 {
        return;
    }
    let (bytes, _) = stats_viewer::synth::logcat(stats_viewer::synth::SynthSpec {
        lines: n + 8,
        window_every: 1,
        ..Default::default()
    });
    let mut parser = stats_viewer::LogParser::new(stats_viewer::Role::Main);
    for chunk in bytes.chunks(4 << 20) {
        let mut batch = Batch::default();
        parser.feed(chunk, &mut |e| batch.add(e));
        state.live.ingest(batch, Duration::ZERO, cap);
    }
    let mut batch = Batch::default();
    parser.finish(&mut |e| batch.add(e));
    state.live.ingest(batch, Duration::ZERO, cap);
}

/// Runs the benchmark.
fn bench(o: BenchOptions) -> Result<BenchReport, Error> {
    let dir = std::env::temp_dir().join(format!("mgctl-watch-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| Error::Write {
        path: dir.clone(),
        source: e,
    })?;
    let path: PathBuf = dir.join("logcat.txt");
    let file = OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(true)
        .open(&path)
        .map_err(|e| Error::Write {
            path: path.clone(),
            source: e,
        })?;
    let result = measure(o, &path, file);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn measure(
    o: BenchOptions,
    path: &std::path::Path,
    mut file: std::fs::File,
) -> Result<BenchReport, Error> {
    let start = Instant::now();
    let duration = Duration::from_secs_f64(o.seconds.max(0.5));
    let (tx, rx) = mpsc::channel::<Event>();
    let stop = Arc::new(AtomicBool::new(false));
    let ingest_ns = Arc::new(AtomicU64::new(0));
    let fed = Arc::new(AtomicU64::new(0));
    let windows_fed = Arc::new(AtomicU64::new(0));

    // Feeder: writes every 10 ms the lines due by then.
    let feeder = {
        let stop = stop.clone();
        let fed = fed.clone();
        let windows_fed = windows_fed.clone();
        let rate = o.lines_per_second;
        thread::Builder::new()
            .name("bench-feed".into())
            .spawn(move || {
                let mut frames = 0;
                let mut i = 0u64;
                let t0 = Instant::now();
                let mut chunk = String::with_capacity(64 * 1024);
                while !stop.load(Ordering::Relaxed) && t0.elapsed() < duration {
                    let due = (t0.elapsed().as_secs_f64() * rate as f64) as u64;
                    chunk.clear();
                    while i < due {
                        chunk.push_str(&line_for(i, &mut frames));
                        if i % 1000 == 999 {
                            windows_fed.fetch_add(1, Ordering::Relaxed);
                        }
                        i += 1;
                    }
                    if !chunk.is_empty() && file.write_all(chunk.as_bytes()).is_err() {
                        break;
                    }
                    fed.store(i, Ordering::Relaxed);
                    thread::sleep(Duration::from_millis(10));
                }
            })
            .map_err(|e| Error::Thread { source: e })?
    };

    // The viewer's follower, measuring its own CPU time.
    let follower = {
        let tx = tx.clone();
        let stop = stop.clone();
        let ingest_ns = ingest_ns.clone();
        let p = path.to_path_buf();
        thread::Builder::new()
            .name("watch-follow".into())
            .spawn(move || {
                let c0 = common::thread_cpu_ns().unwrap_or(0);
                let mut f = Follower::new(&p, stats_viewer::tui::follow::DEFAULT_LINE_CAP);
                let poll = stats_viewer::tui::SourceOptions::default().poll;
                follow_loop(&mut f, poll, &tx, start, &mut || {
                    ingest_ns.store(
                        common::thread_cpu_ns().unwrap_or(0).saturating_sub(c0),
                        Ordering::Relaxed,
                    );
                    !stop.load(Ordering::Relaxed)
                });
            })
            .map_err(|e| Error::Thread { source: e })?
    };

    // The clock: a tick every TICK, then one last tick and `q` after the duration (plus one poll
    // period so the follower has read the feeder's last lines).
    let ticker = {
        let tx = tx.clone();
        thread::Builder::new()
            .name("watch-tick".into())
            .spawn(move || {
                let t0 = Instant::now();
                let mut next = TICK;
                while t0.elapsed() < duration + Duration::from_millis(150) {
                    thread::sleep(next.saturating_sub(t0.elapsed()));
                    next += TICK;
                    if tx.send(Event::Tick(start.elapsed())).is_err() {
                        return;
                    }
                }
                let _ = tx.send(Event::Key(KeyEvent::new(
                    KeyCode::Char('q'),
                    KeyModifiers::NONE,
                )));
            })
            .map_err(|e| Error::Thread { source: e })?
    };
    drop(tx);

    let mut state = ViewState::new(format!("file {}", path.display()), o.history, None);
    let rss0 = common::rss_kib();
    prefill(&mut state, o.prefill, o.history);
    let prefill_rss_kib = match (rss0, common::rss_kib()) {
        (Some(a), Some(b)) => Some(b.saturating_sub(a)),
        _ => None,
    };
    let prefilled_windows = state.live.windows.len();
    let (prefill_lines, prefill_total) = (state.live.lines, state.live.windows_total);
    let mut term = Terminal::new(TestBackend::new(o.width, o.height))
        .map_err(|e| Error::Terminal { source: e })?;
    let p0 = common::process_cpu_ns();
    let c0 = common::thread_cpu_ns();
    let t0 = Instant::now();
    let stats = run(&mut term, &mut state, &rx, &std::env::temp_dir())
        .map_err(|e| Error::Terminal { source: e })?;
    let wall = t0.elapsed().as_secs_f64();
    let loop_ns = match (c0, common::thread_cpu_ns()) {
        (Some(a), Some(b)) => b.saturating_sub(a),
        _ => 0,
    };
    let proc_ns = match (p0, common::process_cpu_ns()) {
        (Some(a), Some(b)) => b.saturating_sub(a),
        _ => 0,
    };
    stop.store(true, Ordering::Relaxed);
    let _ = feeder.join();
    let _ = follower.join();
    let _ = ticker.join();
    let ingest = ingest_ns.load(Ordering::Relaxed);
    let pct = |ns: u64| ns as f64 / 1e9 / wall * 100.0;
    Ok(BenchReport {
        schema: 1,
        seconds: wall,
        lines_target_per_second: o.lines_per_second,
        lines_fed: fed.load(Ordering::Relaxed),
        lines_read: state.live.lines - prefill_lines,
        windows_fed: windows_fed.load(Ordering::Relaxed),
        windows_seen: state.live.windows_total - prefill_total,
        draws: stats.draws,
        draws_per_second: stats.draws as f64 / wall,
        viewer_cpu_percent: pct(ingest + loop_ns),
        ingest_cpu_percent: pct(ingest),
        loop_cpu_percent: pct(loop_ns),
        process_cpu_percent: pct(proc_ns),
        cpu_source: if c0.is_some() {
            "/proc/thread-self/schedstat (per-thread, ns)"
        } else {
            "unavailable on this OS"
        },
        history: o.history,
        windows_held: state.live.windows.len(),
        peak_rss_kib: common::peak_rss_kib(),
        prefilled_windows,
        prefill_rss_kib,
        width: o.width,
        height: o.height,
        optimized_build: !cfg!(debug_assertions),
    })
}

impl BenchReport {
    /// The human report: mgctl's figures next to the targets they beat.
    fn text(&self) -> String {
        let target = 5.0;
        let verdict = if self.lines_target_per_second != 10_000 {
            "the target is set for 10,000 lines/s; this run fed a different rate".to_string()
        } else if self.viewer_cpu_percent > 0.0 && self.viewer_cpu_percent < target {
            format!("{:.1}x under the target", target / self.viewer_cpu_percent)
        } else if self.viewer_cpu_percent == 0.0 {
            "below measurement resolution".to_string()
        } else {
            "OVER the target".to_string()
        };
        let mut t = String::new();
        t.push_str(&format!(
            "stats watch benchmark: {:.1} s, {} lines/s fed to a followed file, {}x{} TestBackend{}\n",
            self.seconds,
            self.lines_target_per_second,
            self.width,
            self.height,
            if self.optimized_build { "" } else { " (debug build: use a release build for real figures)" }
        ));
        t.push_str(&format!(
            "  viewer CPU      {:>6.2} % of one core   target < 5 %: {verdict}\n",
            self.viewer_cpu_percent
        ));
        t.push_str(&format!(
            "    ingest        {:>6.2} %   (follow + frame + parse)\n    loop + draw   {:>6.2} %   (update + render)\n",
            self.ingest_cpu_percent, self.loop_cpu_percent
        ));
        t.push_str(&format!(
            "  process CPU     {:>6.2} %   (feeder thread included)\n",
            self.process_cpu_percent
        ));
        t.push_str(&format!(
            "  redraws         {:>6.1} /s   ({} draws; target >= 10/s)\n",
            self.draws_per_second, self.draws
        ));
        t.push_str(&format!(
            "  lines           {} fed, {} read ({} lost); {} windows fed, {} seen\n",
            self.lines_fed,
            self.lines_read,
            self.lines_fed.saturating_sub(self.lines_read),
            self.windows_fed,
            self.windows_seen
        ));
        t.push_str(&format!(
            "  memory          ring of {} windows (holding {}), peak RSS {}\n",
            self.history,
            self.windows_held,
            self.peak_rss_kib.map_or_else(
                || "unknown".to_string(),
                |k| format!("{:.1} MiB", k as f64 / 1024.0)
            )
        ));
        if let Some(k) = self.prefill_rss_kib.filter(|_| self.prefilled_windows > 0) {
            t.push_str(&format!(
                "  per window      {:.0} B resident ({} windows put in the ring before the clock: +{:.1} MiB RSS)\n",
                k as f64 * 1024.0 / self.prefilled_windows as f64,
                self.prefilled_windows,
                k as f64 / 1024.0
            ));
        }
        t.push_str(&format!("  CPU source      {}\n", self.cpu_source));
        t
    }
}

fn main() {
    // `cargo bench` passes `--bench`; our own flags follow `--`.
    let o = BenchOptions {
        lines_per_second: common::arg("--rate", 10_000u64).max(1),
        seconds: common::arg("--seconds", 20.0f64),
        history: common::arg("--history", 100_000usize).max(1),
        prefill: common::arg("--prefill", usize::MAX),
        // Wide enough for the counters and the charts side by side: the costliest layout.
        width: 160,
        height: 45,
    };
    let o = BenchOptions {
        prefill: o.prefill.min(o.history),
        ..o
    };
    match bench(o) {
        Ok(r) if common::flag("--json") => match serde_json::to_string_pretty(&r) {
            Ok(j) => println!("{j}"),
            Err(e) => eprintln!("watch bench: {e}"),
        },
        Ok(r) => print!("{}", r.text()),
        Err(e) => {
            eprintln!("watch bench: {e}");
            std::process::exit(2);
        }
    }
}
