//! `cargo bench -p lints --bench cite`: a synthetic workspace of N documents with M citations
//! in every form, written to a temporary directory and checked from disk (what `mgctl cite`
//! does), then the per-line scaling table of issue 16: one document line holding 1x, 4x and 16x
//! citations. Options: `--docs N --citations N --runs N --target-ms X --line-base N`.
#![allow(clippy::unwrap_used, dead_code)]

use std::path::{Path, PathBuf};
use std::time::Instant;

use globset::GlobSet;

use lints::cite::check::{check, Options};
use lints::cite::model::{CiteReport, Class};
use lints::cite::tree::SourceTree;
use lints::cite::{load_docs, problem_free, Error};

/// Source files in the synthetic tree and their length.
const FILES: usize = 80;
const LINES: usize = 400;

fn source_path(f: usize) -> String {
    format!("MobileGL/MG_Mod{}/Unit{f}/Source{f}.cpp", f % 7)
}

fn source(f: usize) -> String {
    let mut s = String::with_capacity(LINES * 40);
    for l in 1..=LINES {
        s.push_str(&format!("int fn_{f}_{l}(int v) {{ return v + {l}; }}\n"));
    }
    s
}

/// One citation in form `k % 6`, true, with a backticked anchor.
fn citation(f: usize, k: usize) -> String {
    let l = 2 + (k * 37) % (LINES - 4);
    let path = source_path(f);
    let bare = format!("Source{f}.cpp");
    match k % 6 {
        0 => format!("`fn_{f}_{l}` (`{path}:{l}`)"),
        1 => format!("`fn_{f}_{l}` spans {bare}:{l}-{}", l + 2),
        2 => format!("`fn_{f}_{l}` ({bare}:{l}\u{2013}{})", l + 1),
        3 => format!("`fn_{f}_{l}` at `Unit{f}/{bare}:{l}`"),
        4 => format!("`fn_{f}_{l}` at `{bare}:{l}`"),
        _ => format!(
            "`fn_{f}_{l}` at `{bare}:{l}` and `fn_{f}_{}` (:{})",
            l + 1,
            l + 1
        ),
    }
}

/// Write the corpus under `dir`: returns the document paths. `citations` counts every checked
/// citation (a form-5 sentence holds two).
pub fn write_corpus(dir: &Path, docs: usize, citations: usize) -> Result<Vec<PathBuf>, Error> {
    let w = |p: &Path, t: &str| -> Result<(), Error> {
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::Write {
                path: parent.into(),
                reason: e.to_string(),
            })?;
        }
        std::fs::write(p, t).map_err(|e| Error::Write {
            path: p.into(),
            reason: e.to_string(),
        })
    };
    for f in 0..FILES {
        w(&dir.join(source_path(f)), &source(f))?;
    }
    let docs = docs.max(1);
    let mut paths = Vec::new();
    let mut made = 0usize;
    for d in 0..docs {
        let quota = citations / docs + usize::from(d < citations % docs);
        let mut text =
            format!("# Synthetic design doc {d}\n\nProse that cites code in every form.\n\n");
        let mut in_doc = 0;
        let mut k = d;
        while in_doc < quota {
            let f = (made + d) % FILES;
            let one = if quota - in_doc >= 2 {
                citation(f, k)
            } else {
                citation(f, k - k % 6)
            };
            in_doc += if one.contains("(:") { 2 } else { 1 };
            text.push_str(&format!("- {one}.\n"));
            made += 1;
            k += 1;
        }
        let p = dir.join(format!("docs/Disaggregated/DOC{d:02}.md"));
        w(&p, &text)?;
        paths.push(p);
    }
    Ok(paths)
}

/// One timed run: list the tree, read and scan the documents, check every citation.
pub fn run_once(root: &Path, docs: &[PathBuf]) -> Result<(CiteReport, f64), Error> {
    let start = Instant::now();
    let tree = SourceTree::worktree(root, &GlobSet::empty())?;
    let scans = load_docs(root, docs)?;
    let report = check(scans, &tree, &Options::default())?;
    Ok((report, start.elapsed().as_secs_f64() * 1e3))
}

/// Result of a benchmark.
#[derive(Debug, Clone)]
pub struct BenchResult {
    pub docs: usize,
    pub citations: usize,
    pub runs: Vec<f64>,
    pub files_read: usize,
    pub distinct_cited: usize,
    pub clean: bool,
}

impl BenchResult {
    pub fn median(&self) -> f64 {
        let mut v = self.runs.clone();
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    }
    pub fn min(&self) -> f64 {
        self.runs.iter().copied().fold(f64::INFINITY, f64::min)
    }
}

/// Write a corpus into a temporary directory and time `iterations` full checks of it.
pub fn run(docs: usize, citations: usize, iterations: usize) -> Result<BenchResult, Error> {
    let dir = tempfile::tempdir().map_err(|e| Error::Write {
        path: std::env::temp_dir(),
        reason: e.to_string(),
    })?;
    let paths = write_corpus(dir.path(), docs, citations)?;
    let mut runs = Vec::new();
    let mut last = None;
    for _ in 0..iterations.max(1) {
        let (r, ms) = run_once(dir.path(), &paths)?;
        runs.push(ms);
        last = Some(r);
    }
    let Some(report) = last else {
        return Err(Error::NoDocument {
            path: dir.path().into(),
        });
    };
    let mut cited: Vec<&str> = report
        .citations()
        .filter_map(|(_, k)| k.resolved.as_deref())
        .collect();
    cited.sort_unstable();
    cited.dedup();
    Ok(BenchResult {
        docs: report.docs.len(),
        citations: report.count(),
        runs,
        files_read: report.files_read,
        distinct_cited: cited.len(),
        clean: problem_free(&report) && report.citations().all(|(_, k)| k.class == Class::Ok),
    })
}

fn arg<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> T {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Best of `runs` wall times (ms) of checking one document whose single line holds `n`
/// backticked citations of one file.
fn one_line(n: usize, runs: usize) -> Result<f64, Error> {
    let dir = tempfile::tempdir().map_err(|e| Error::Write {
        path: std::env::temp_dir(),
        reason: e.to_string(),
    })?;
    let root = dir.path();
    std::fs::create_dir_all(root.join("src")).map_err(|e| Error::Write {
        path: root.into(),
        reason: e.to_string(),
    })?;
    let write = |p: PathBuf, t: String| {
        std::fs::write(&p, t).map_err(|e| Error::Write {
            path: p.clone(),
            reason: e.to_string(),
        })
    };
    write(root.join("src/A.cpp"), "void Foo() {}\nint x;\n".into())?;
    let line: String = (0..n).map(|_| "`Foo` at `src/A.cpp:1`, ").collect();
    let doc = root.join("one-line.md");
    write(doc.clone(), format!("{line}\n"))?;
    let mut best = f64::INFINITY;
    for _ in 0..runs.max(1) {
        let (r, ms) = run_once(root, std::slice::from_ref(&doc))?;
        assert_eq!(r.count(), n);
        best = best.min(ms);
    }
    Ok(best)
}

fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().collect();
    let docs = arg(&args, "--docs", 30);
    let citations = arg(&args, "--citations", 1000);
    let runs = arg(&args, "--runs", 7);
    let target_ms = arg(&args, "--target-ms", 200.0);
    let line_base = arg(&args, "--line-base", 6250);
    let r = run(docs, citations, runs)?;
    println!(
        "cite bench: {} citations in {} documents (synthetic, every form), checked from disk, {} runs",
        r.citations,
        r.docs,
        r.runs.len()
    );
    let shown: Vec<String> = r.runs.iter().map(|m| format!("{m:.1}")).collect();
    println!("  runs (ms):  {}", shown.join("  "));
    let median = r.median();
    let verdict = if median <= target_ms {
        format!("{:.1}x under the target", target_ms / median.max(0.001))
    } else {
        format!("{:.1}x OVER the target", median / target_ms)
    };
    println!(
        "  mgctl cite: median {median:.1} ms, best {:.1} ms | target (issue 5): <= {target_ms:.0} ms | {verdict}",
        r.min()
    );
    println!(
        "  reads: {} file reads for {} distinct cited files ({})",
        r.files_read,
        r.distinct_cited,
        if r.files_read == r.distinct_cited {
            "one read per cited file"
        } else {
            "MORE than one read per file"
        }
    );
    println!(
        "  every citation true: {}",
        if r.clean { "yes" } else { "NO" }
    );
    // issue 16: cost per line must grow linearly with the citations on it
    println!("cite scaling: citations on one document line (best of 3)");
    println!(
        "  {:>10}  {:>10}  {:>8}  {:>10}",
        "citations", "ms", "x input", "x time"
    );
    let base = one_line(line_base, 3)?;
    for k in [1usize, 4, 16] {
        let ms = if k == 1 {
            base
        } else {
            one_line(line_base * k, 3)?
        };
        println!(
            "  {:>10}  {ms:>10.1}  {k:>8}  {:>10.1}",
            line_base * k,
            ms / base.max(0.001)
        );
    }
    Ok(())
}
