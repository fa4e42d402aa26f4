//! `cargo bench -p dirty_surface --bench scan -- [ROOT] [--lines N] [--runs N]`
//!
//! Times the scan. Without ROOT it generates a MobileGL-shaped tree of `--lines` lines (default
//! 100,000) in a temporary directory; with ROOT it scans that workspace's configured roots
//! (`[dirty_surface]` of its mgctl.toml, MobileGL defaults otherwise). It prints mgctl's accurate
//! scan and its upstream-compatible scan (read + lex + bodies + calls, best of `--runs`) against
//! the <= 100 ms per 100,000 lines target, and, when python3 is on PATH, the Python port of
//! upstream's scanner loop (`bench/upstream_scan.py`, written from the spec) on the same files,
//! with the speed-up against the >= 10x target and whether both count the same. Formerly
//! `mgctl dirty-surface bench`; the table is unchanged.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use dirty_surface::audit::{self, Settings};
use dirty_surface::cfg::DirtySurfaceConfig;
use dirty_surface::report;
use dirty_surface::surface::{Mode, Options, Surface};

/// A Python 3 re-implementation of the upstream scanner loop (spec §1.5–§1.9).
const UPSTREAM_PY: &str = include_str!("../bench/upstream_scan.py");

type Res<T> = Result<T, String>;

/// Files (relative path, text) totalling at least `lines` lines, under `MobileGL/MG_Impl/GLImpl`
/// and `MobileGL/MG_State/GLState`. Each function mixes what the scanners must cope with:
/// comments, strings, digit separators, lambdas, backend calls and notes.
fn generate(lines: usize) -> Vec<(String, String)> {
    const PER_FILE: usize = 2_000;
    let prefixes = [
        "Set", "Bind", "Use", "Bump", "Record", "Touch", "Mark", "Add",
    ];
    let mut files = Vec::new();
    let mut total = 0;
    let mut k = 0usize;
    while total < lines {
        let dir = if k % 4 == 3 {
            "MobileGL/MG_State/GLState/Gen"
        } else {
            "MobileGL/MG_Impl/GLImpl/Gen"
        };
        let mut text = String::with_capacity(PER_FILE * 40);
        text.push_str("// generated for mgctl dirty-surface bench\n#include \"GLEntry.h\"\n\nnamespace MG_Impl {\n\n");
        let mut n = 5;
        let mut f = 0;
        while n < PER_FILE {
            let p = prefixes[(k + f) % prefixes.len()];
            let imm = f % 5 == 0;
            text.push_str(&format!(
                "/* entry point {f} of file {k} */\nvoid glGenerated{k}_{f}(GLenum target, GLint value)\n{{\n    const char* tag = \"pGLContext->Fake({f})\"; // not a call\n    int limit = 1'000;\n    if (target == GL_TEXTURE_2D) {{\n        pGLContext->{p}State{f}(target, value);\n    }} else if (value > limit) {{\n        pGLContext->{p}Other{}(value);\n    }}\n    auto apply = [&](int v) {{ pGLContext->SetLambda{}(v); }};\n    apply(value);\n",
                f % 7,
                f % 3
            ));
            n += 12;
            if imm {
                text.push_str("    gBackendFunctionsTable.GL.Flush();\n");
                n += 1;
            }
            if f % 9 == 0 {
                text.push_str("    MGP_NOTE_MUTATION(m_units);\n");
                n += 1;
            }
            text.push_str("    Log(tag);\n}\n\n");
            n += 3;
            f += 1;
        }
        text.push_str("} // namespace MG_Impl\n");
        n += 1;
        total += n;
        files.push((format!("{dir}/Generated{k:03}.cpp"), text));
        k += 1;
    }
    files
}

/// Best wall time of `runs` calls, in milliseconds.
fn best_ms<T>(runs: usize, mut f: impl FnMut() -> Res<T>) -> Res<(f64, T)> {
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        let v = f()?;
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
        last = Some(v);
    }
    last.map(|v| (best, v))
        .ok_or_else(|| "no benchmark run".into())
}

/// The `[dirty_surface]` settings of `root`'s mgctl.toml, MobileGL defaults without one.
fn settings_of(root: &Path) -> Res<Settings> {
    let p = root.join("mgctl.toml");
    let Ok(text) = std::fs::read_to_string(&p) else {
        return Ok(Settings::mobilegl());
    };
    let mut table: toml::Table =
        toml::from_str(&text).map_err(|e| format!("{}: {e}", p.display()))?;
    let cfg = match table.remove("dirty_surface") {
        Some(v) => v
            .try_into::<DirtySurfaceConfig>()
            .map_err(|e| format!("{}: [dirty_surface]: {e}", p.display()))?,
        None => DirtySurfaceConfig::default(),
    };
    cfg.settings().map_err(|e| e.to_string())
}

struct Args {
    root: Option<PathBuf>,
    lines: usize,
    runs: usize,
}

fn args() -> Res<Args> {
    let mut a = Args {
        root: None,
        lines: 100_000,
        runs: 5,
    };
    let mut it = std::env::args().skip(1);
    while let Some(x) = it.next() {
        let mut num = |name: &str| -> Res<usize> {
            it.next()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{name} needs a number"))
        };
        match x.as_str() {
            "--lines" => a.lines = num("--lines")?,
            "--runs" => a.runs = num("--runs")?,
            // cargo passes `--bench` to every bench binary.
            "--bench" => {}
            _ if x.starts_with('-') => return Err(format!("unknown option {x}")),
            _ => a.root = Some(PathBuf::from(x)),
        }
    }
    Ok(a)
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("dirty-surface bench: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Res<()> {
    let a = args()?;
    let mut _tmp = None;
    let (root, s) = match &a.root {
        Some(r) => (
            r.canonicalize()
                .map_err(|e| format!("{}: cannot resolve path: {e}", r.display()))?,
            settings_of(r)?,
        ),
        None => {
            let dir = tempfile::Builder::new()
                .prefix("mgctl-dirty-surface-bench-")
                .tempdir()
                .map_err(|e| format!("temporary directory: {e}"))?;
            let files = generate(a.lines);
            // The generator's contract (formerly a unit test of the shipped library).
            let n: usize = files.iter().map(|(_, t)| t.lines().count()).sum();
            if n < a.lines {
                return Err(format!(
                    "generated {n} lines, fewer than the {} asked",
                    a.lines
                ));
            }
            for (rel, text) in files {
                let p = dir.path().join(&rel);
                if let Some(parent) = p.parent() {
                    std::fs::create_dir_all(parent)
                        .map_err(|e| format!("{}: cannot create: {e}", parent.display()))?;
                }
                std::fs::write(&p, text)
                    .map_err(|e| format!("{}: cannot write: {e}", p.display()))?;
            }
            let root = dir.path().to_path_buf();
            _tmp = Some(dir);
            (root, Settings::mobilegl())
        }
    };
    let scan = |mode: Mode| -> Res<Surface> {
        let ws = audit::load(&root, &s, false).map_err(|e| e.to_string())?;
        audit::surface(
            &ws,
            &s,
            Options {
                mode,
                call_graph: false,
                explain: false,
            },
        )
        .map_err(|e| e.to_string())
    };
    let (acc_ms, acc) = best_ms(a.runs, || scan(Mode::Accurate))?;
    let (up_ms, up) = best_ms(a.runs, || scan(Mode::Upstream))?;
    let ws = audit::load(&root, &s, false).map_err(|e| e.to_string())?;
    let lines: usize = ws
        .sources
        .iter()
        .map(|x| x.text.bytes().filter(|&c| c == b'\n').count())
        .sum();
    let per_100k = |ms: f64| ms * 100_000.0 / lines.max(1) as f64;
    println!(
        "mgctl dirty-surface bench: {} ({} files, {lines} lines; best of {} runs; {} threads)",
        root.display(),
        acc.files.len(),
        a.runs.max(1),
        rayon::current_num_threads()
    );
    println!(
        "  mgctl accurate scan           {acc_ms:>9.1} ms  = {:>6.1} ms per 100,000 lines (target <= 100 ms: {})",
        per_100k(acc_ms),
        if per_100k(acc_ms) <= 100.0 { "met" } else { "MISSED" }
    );
    println!(
        "  mgctl --compat upstream scan  {up_ms:>9.1} ms  = {:>6.1} ms per 100,000 lines",
        per_100k(up_ms)
    );
    println!("  accurate:  {}", report::summary_line(&acc));
    println!("  upstream:  {}", report::summary_line(&up));
    python_port(&root, &s, acc_ms, &up)
}

/// The Python port of upstream's loop, on the same files.
fn python_port(root: &Path, s: &Settings, acc_ms: f64, up: &Surface) -> Res<()> {
    let dir = tempfile::tempdir().map_err(|e| format!("temporary directory: {e}"))?;
    let py = dir.path().join("upstream_scan.py");
    std::fs::write(&py, UPSTREAM_PY).map_err(|e| format!("{}: cannot write: {e}", py.display()))?;
    let t = Instant::now();
    let res = std::process::Command::new("python3")
        .arg(&py)
        .arg(root)
        .arg(s.prefixes.join(","))
        .args(&s.scan_roots)
        .output();
    let wall = t.elapsed().as_secs_f64() * 1e3;
    match res {
        Ok(o) if o.status.success() => {
            let v: serde_json::Value = serde_json::from_slice(&o.stdout)
                .map_err(|e| format!("python3 port: unreadable output: {e}"))?;
            let py_ms = v["seconds"].as_f64().unwrap_or(0.0) * 1e3;
            let speedup = py_ms / acc_ms.max(1e-9);
            let c = up.counts();
            let same = v["calls"] == c.calls
                && v["distinct"] == c.distinct
                && v["immediate_calls"] == c.immediate_calls
                && v["points"] == c.points;
            println!("  python3 upstream-loop port    {py_ms:>9.1} ms  (scan loop; {wall:.0} ms with interpreter start) - dirty_surface/bench/upstream_scan.py");
            println!(
                "  speed-up of mgctl's accurate scan over the Python port: {speedup:.1}x (target >= 10x: {})",
                if speedup >= 10.0 { "met" } else { "MISSED" }
            );
            println!(
                "  python port counts {} {} calls / {} distinct / {} in {} points - {}",
                v["files"],
                v["calls"],
                v["distinct"],
                v["immediate_calls"],
                v["points"],
                if same {
                    "identical to mgctl --compat upstream"
                } else {
                    "DIFFERENT from mgctl --compat upstream"
                }
            );
        }
        Ok(o) => println!(
            "  python3 upstream-loop port: failed ({}): {}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
                .lines()
                .last()
                .unwrap_or("")
        ),
        Err(e) => println!("  python3 upstream-loop port: not run (python3: {e})"),
    }
    Ok(())
}
