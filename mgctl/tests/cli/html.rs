//! HTML reports: well-formed, self-contained, structurally right, and rendered non-blank by a real
//! headless Chromium (Debian's `chromium`, installed by .ci/run).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::*;

fn chromium() -> PathBuf {
    let path = std::env::var_os("CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    assert!(
        path.exists(),
        "{} not found: the HTML tests render in a real browser; install Debian's chromium (.ci/run does)",
        path.display()
    );
    path
}

/// Chromium with the flags this sandbox needs (no GPU, no background networking) and a fresh profile.
fn browser(profile: &Path) -> Command {
    let mut c = Command::new(chromium());
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        "--enable-logging=stderr",
        "--v=0",
    ])
    .arg(format!("--user-data-dir={}", profile.display()));
    c
}

/// Structure every report shares: one well-formed XHTML-compatible document, no script, nothing
/// loaded from the network, every SVG parseable. Returns the number of `<svg>` charts.
pub fn assert_self_contained(html: &str) -> roxmltree::Document<'_> {
    let doc = roxmltree::Document::parse_with_options(
        html,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("report is not well-formed: {e}"));
    for n in doc.descendants().filter(|n| n.is_element()) {
        assert_ne!(n.tag_name().name(), "script", "reports carry no script");
        assert_ne!(n.tag_name().name(), "link", "reports load no stylesheet");
        for a in ["src", "href"] {
            if let Some(v) = n.attribute(a) {
                // A finding's link opens the file itself (absolute, so a moved page still works);
                // it loads nothing.
                let file_link =
                    n.tag_name().name() == "a" && a == "href" && v.starts_with("file:///");
                assert!(
                    file_link || !v.contains("://"),
                    "{} {a}={v:?} reaches outside the file",
                    n.tag_name().name()
                );
            }
        }
    }
    assert!(
        !html.contains("@import") && !html.contains("url("),
        "no external CSS"
    );
    doc
}

pub fn count_class(doc: &roxmltree::Document<'_>, class: &str) -> usize {
    doc.descendants()
        .filter(|n| {
            n.attribute("class")
                .is_some_and(|c| c.split(' ').any(|w| w == class))
        })
        .count()
}

/// Renders `file` headless: the screenshot is not blank (more than 1 % of pixels differ from the
/// background) and the browser logs no console message or failed load.
pub fn assert_renders(file: &Path) {
    let dir = scratch();
    let shot = dir.path().join("shot.png");
    let out = browser(&dir.path().join("profile"))
        .arg(format!("--screenshot={}", shot.display()))
        .arg("--window-size=1100,1600")
        .arg(format!("file://{}", file.display()))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        shot.exists(),
        "chromium wrote no screenshot: {}\n{stderr}",
        out.status
    );
    for bad in ["CONSOLE", "net::ERR_", "Uncaught"] {
        assert!(
            !stderr
                .lines()
                .any(|l| l.contains(bad) && !l.contains("dbus")),
            "browser reported {bad}:\n{stderr}"
        );
    }
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let px = info.color_type.samples();
    let pixels: Vec<&[u8]> = buf[..info.buffer_size()].chunks(px).collect();
    let bg = pixels[0];
    let differ = pixels.iter().filter(|p| p[..3] != bg[..3]).count();
    assert!(
        differ * 100 > pixels.len(),
        "the rendered page is blank: {differ} of {} pixels differ from the background",
        pixels.len()
    );
}

/// One element as headless Chromium laid it out: its text and its box in CSS pixels.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct Laid {
    pub text: String,
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

/// The boxes of every element matching `selector` when Chromium renders `file` at `width` px.
/// The page itself carries no script (its CSP forbids one): a copy without the CSP meta gets a
/// measuring script, and `--dump-dom` returns what it measured.
pub fn laid_out(file: &Path, selector: &str, width: u32) -> Vec<Laid> {
    let dir = scratch();
    let html = std::fs::read_to_string(file).unwrap();
    let csp = html
        .find("<meta http-equiv=\"Content-Security-Policy\"")
        .unwrap();
    let csp_end = csp + html[csp..].find("/>").unwrap() + 2;
    let script = format!(
        "<script>var o=[];document.querySelectorAll({sel}).forEach(function(e){{var r=e.getBoundingClientRect();o.push({{text:e.textContent,x:r.x+scrollX,y:r.y+scrollY,w:r.width,h:r.height}});}});var p=document.createElement('pre');p.id='laid-out';p.textContent=JSON.stringify(o);document.body.appendChild(p);</script></body>",
        sel = serde_json::to_string(selector).unwrap()
    );
    let copy = format!("{}{}", &html[..csp], &html[csp_end..]).replace("</body>", &script);
    let measured = dir.path().join("measured.html");
    std::fs::write(&measured, copy).unwrap();
    let out = browser(&dir.path().join("profile"))
        .arg(format!("--window-size={width},1200"))
        .arg("--dump-dom")
        .arg(format!("file://{}", measured.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    let start = dom.find("<pre id=\"laid-out\">").unwrap_or_else(|| {
        panic!(
            "chromium measured nothing: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    }) + "<pre id=\"laid-out\">".len();
    let json = &dom[start..start + dom[start..].find("</pre>").unwrap()];
    let json = json
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    serde_json::from_str(&json).unwrap()
}

#[test]
fn check_html_is_self_contained_structured_and_renders() {
    let dir = scratch();
    let file = dir.path().join("check.html");
    let run = mgctl(
        &[
            "check",
            driver().to_str().unwrap(),
            "--format",
            "html",
            "--output",
            file.to_str().unwrap(),
        ],
        &repo_root(),
    );
    assert!(run.code == 0 || run.code == 1, "{}", run.dump());
    let html = std::fs::read_to_string(&file).unwrap();
    let doc = assert_self_contained(&html);
    let gates = mgctl(&["check", "--list"], &repo_root()).expect(0);
    let offered = gates.stdout.lines().count();
    // One table row per gate (plus the header), one timing bar per gate that ran.
    let rows = doc
        .descendants()
        .find(|n| n.has_tag_name("table"))
        .unwrap()
        .children()
        .filter(|n| n.has_tag_name("tr"))
        .count();
    assert_eq!(rows, offered + 1, "{html}");
    let ran =
        html.matches("<td class=\"pass\">").count() + html.matches("<td class=\"fail\">").count();
    assert!(ran > 0);
    assert_eq!(count_class(&doc, "bar"), ran, "one timing bar per gate run");
    assert!(html.contains("prefers-color-scheme: dark") && html.contains("@media print"));
    assert_renders(&file);
}

#[test]
fn check_html_lists_findings_with_their_locations() {
    let (_guard, root) = copy_driver();
    apply_violation(&root, "tokens-backend-pglcontext");
    let file = root.join("report.html");
    mgctl(
        &[
            "check",
            root.to_str().unwrap(),
            "--only",
            "tokens",
            "--format",
            "html",
            "--output",
            file.to_str().unwrap(),
        ],
        &root,
    )
    .expect(1);
    let html = std::fs::read_to_string(&file).unwrap();
    let doc = assert_self_contained(&html);
    let link = doc
        .descendants()
        .filter(|n| n.has_tag_name("a"))
        .find(|n| {
            n.attribute("href")
                .is_some_and(|h| h.starts_with("file:///") && h.contains("/MobileGL/MG_Backend/"))
        })
        .unwrap_or_else(|| panic!("no finding links to its file:\n{html}"));
    let text: String = link.descendants().filter_map(|n| n.text()).collect();
    assert!(text.contains(':'), "the link text is path:line: {text:?}");
    assert!(html.contains("id=\"gate-tokens\""));
}

fn data(name: &str) -> String {
    repo_root()
        .join("stats_viewer/tests/data")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn bench_frames_compare_html_has_histograms_cdfs_and_percentiles() {
    let dir = scratch();
    let file = dir.path().join("frames.html");
    mgctl(
        &[
            "bench",
            "frames",
            "--compare",
            &data("benchmark-run1.json"),
            &data("benchmark.json"),
            "--html",
            file.to_str().unwrap(),
        ],
        &repo_root(),
    )
    .expect(0);
    let html = std::fs::read_to_string(&file).unwrap();
    let doc = assert_self_contained(&html);
    // wall and cpu: one histogram and one CDF each; two arms, p50/p95/p99 each, on every chart.
    assert_eq!(count_class(&doc, "histogram"), 2);
    assert_eq!(count_class(&doc, "lines"), 2);
    assert_eq!(count_class(&doc, "pct"), 4 * 6);
    assert_eq!(
        count_class(&doc, "series"),
        4,
        "one CDF line per arm and series"
    );
    // The figures are the text report's: arm B's cpu p50/p99 (nearest rank).
    assert!(html.contains("10.652") && html.contains("20.393"), "{html}");
    assert!(html.contains("frame time (ms)") && html.contains("n=200"));
    // Marks and titles name the arms A and B (mapped to the inputs once, at the top): six
    // staggered full paths per chart overlapped into an unreadable band.
    for m in doc.descendants().filter(|n| has_class(n, "pct")) {
        let t = text(m);
        assert!(t.starts_with("A p") || t.starts_with("B p"), "{t:?}");
    }
    assert!(html.contains("(A n=200, B n=200)"), "{html}");
    assert_renders(&file);
}

/// Issue 32: window axes ticked 1.5 and 2.5; an identical B hid A without a word; hovered values
/// had 3 significant figures. In Chromium: window ticks are whole numbers, each chart where B
/// equals A says so under it, and a point's title keeps the value as printed (855.09).
#[test]
fn stats_summary_html_ticks_whole_windows_and_says_when_b_hides_a() {
    let dir = scratch();
    let a = data("abA-pull-DirectGLES.mobilegl.log");
    let copy = dir.path().join("again.log");
    std::fs::copy(&a, &copy).unwrap();
    let file = dir.path().join("summary.html");
    mgctl(
        &[
            "stats",
            "summary",
            &a,
            copy.to_str().unwrap(),
            "--html",
            file.to_str().unwrap(),
        ],
        &repo_root(),
    );
    let html = std::fs::read_to_string(&file).unwrap();
    let doc = assert_self_contained(&html);
    let charts = count_class(&doc, "lines");
    assert!(charts >= 2);
    let ticks = laid_out(&file, "text.xtick", 1100);
    assert!(!ticks.is_empty());
    for t in &ticks {
        assert!(t.text.parse::<u32>().is_ok(), "window tick {:?}", t.text);
    }
    let notes = laid_out(&file, "p.identical", 1100);
    assert_eq!(notes.len(), charts, "{notes:?}");
    assert!(notes
        .iter()
        .all(|n| n.h > 0.0 && n.text.starts_with("B equals A")));
    let points = laid_out(&file, "svg.chart:first-of-type circle.point", 1100);
    assert!(
        points.iter().any(|p| p.text == "A: 855.09 at 6"),
        "{points:?}"
    );
}

/// A copy of the sample benchmark.json with every time scaled by `k` (a sub-millisecond run).
fn scaled_benchmark(dir: &Path, name: &str, src: &str, k: f64) -> String {
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(data(src)).unwrap()).unwrap();
    for key in ["frameTimesMs", "frameCpuTimesMs"] {
        for x in v[key].as_array_mut().unwrap() {
            *x = serde_json::json!(x.as_f64().unwrap() * k);
        }
    }
    let p = dir.join(name);
    std::fs::write(&p, v.to_string()).unwrap();
    p.to_string_lossy().into_owned()
}

/// Issue 32: "A p50 0.0B p95 0.015" — percentile labels printed over each other; sub-millisecond
/// frames read in 3-decimal ms, so Δs were "+0.000"; --compare showed no Δ. In Chromium, no two
/// percentile labels of a chart overlap; a sub-ms pair reads in µs with a non-zero Δ row.
#[test]
fn bench_frames_html_labels_do_not_overlap_and_small_frames_read_in_microseconds() {
    let dir = scratch();
    let a = scaled_benchmark(dir.path(), "a.json", "benchmark-run1.json", 0.01);
    let b = scaled_benchmark(dir.path(), "b.json", "benchmark.json", 0.01);
    for (name, arms) in [
        (
            "ms.html",
            [data("benchmark-run1.json"), data("benchmark.json")],
        ),
        ("us.html", [a.clone(), b.clone()]),
    ] {
        let file = dir.path().join(name);
        mgctl(
            &[
                "bench",
                "frames",
                "--compare",
                &arms[0],
                &arms[1],
                "--html",
                file.to_str().unwrap(),
            ],
            &repo_root(),
        )
        .expect(0);
        let labels = laid_out(&file, "g.mark.pct text", 1100);
        assert_eq!(labels.len(), 4 * 6, "{labels:?}");
        for (i, p) in labels.iter().enumerate() {
            for q in &labels[i + 1..] {
                let apart = p.x + p.w <= q.x + 0.5
                    || q.x + q.w <= p.x + 0.5
                    || p.y + p.h <= q.y + 0.5
                    || q.y + q.h <= p.y + 0.5;
                assert!(apart, "{name}: {p:?} overlaps {q:?}");
            }
        }
        let html = std::fs::read_to_string(&file).unwrap();
        assert_self_contained(&html);
        let deltas = laid_out(&file, "tr.delta", 1100);
        assert_eq!(deltas.len(), 2, "one Δ row per series: {deltas:?}");
        if name == "us.html" {
            assert!(
                html.contains("p99 µs") && html.contains("frame time (µs)"),
                "{html}"
            );
            // B's cpu p50 (the mean of the two middle frames) in µs.
            assert!(html.contains("106.515"), "{html}");
            for d in &deltas {
                assert!(!d.text.contains("+0.000 "), "{d:?}");
            }
        } else {
            assert!(html.contains("p99 ms") && !html.contains("µs"), "{html}");
        }
    }
}

#[test]
fn stats_diff_html_charts_every_counter_for_both_arms() {
    let dir = scratch();
    let file = dir.path().join("diff.html");
    mgctl(
        &[
            "stats",
            "diff",
            &data("abA-pull-DirectGLES.mobilegl.log"),
            &data("abB-push-DirectGLES.logcat.txt"),
            "--html",
            file.to_str().unwrap(),
        ],
        &repo_root(),
    )
    .expect(0);
    let html = std::fs::read_to_string(&file).unwrap();
    let doc = assert_self_contained(&html);
    let charts = count_class(&doc, "lines");
    assert!(charts >= 2, "draws/f and acc/draw at least");
    assert_eq!(
        count_class(&doc, "series"),
        2 * charts,
        "A and B on every chart"
    );
    // The charts plot what the verdict compares: B's stale first session is off the axis, and
    // the page says so.
    assert_eq!(count_class(&doc, "session"), 0);
    assert!(
        html.contains(
            "arm B: session 1 (pid 20877) dropped (stale, superseded by session 2 (pid 21377))"
        ),
        "{html}"
    );
    assert_eq!(
        count_class(&doc, "shade"),
        charts,
        "the steady state is shaded on every chart"
    );
    assert!(html.contains("draws/f") && html.contains("acc/draw"));
    assert_renders(&file);
}

/// Issue 32: B's windows sat one step right of A's (its stale session kept a place on the x axis),
/// and the shade held B's warm-up window. In the rendered page, window k of A and window k of B
/// sit at the same x on every chart, and the shade spans windows 3-6, the text report's range.
#[test]
fn stats_diff_html_aligns_the_arms_window_for_window_in_chromium() {
    let dir = scratch();
    let file = dir.path().join("diff.html");
    let run = mgctl(
        &[
            "stats",
            "diff",
            &data("abA-pull-DirectGLES.mobilegl.log"),
            &data("abB-push-DirectGLES.logcat.txt"),
            "--html",
            file.to_str().unwrap(),
        ],
        &repo_root(),
    )
    .expect(0);
    assert!(
        run.stdout.contains("complete windows 3-6 / 3-6"),
        "{}",
        run.dump()
    );
    // The first chart: draws/f, the figure the verdict's steady state reports.
    let points = laid_out(&file, "svg.chart:first-of-type circle.point", 1100);
    let at = |arm: &str| -> Vec<(String, f64)> {
        points
            .iter()
            .filter_map(|p| {
                let (who, rest) = p.text.split_once(": ")?;
                let window = rest.rsplit_once(" at ")?.1;
                (who == arm).then(|| (window.to_string(), p.x + p.w / 2.0))
            })
            .collect()
    };
    let (a, b) = (at("A"), at("B"));
    assert_eq!(a.len(), 6, "{points:?}");
    assert_eq!(
        a.iter().map(|(w, _)| w.as_str()).collect::<Vec<_>>(),
        b.iter().map(|(w, _)| w.as_str()).collect::<Vec<_>>()
    );
    for ((w, xa), (_, xb)) in a.iter().zip(&b) {
        assert!(
            (xa - xb).abs() < 0.5,
            "window {w}: A at x={xa}, B at x={xb}"
        );
    }
    // Same trace, same draws/f: the warm-up value 516.28 is window 2 in both arms.
    assert!(
        points.iter().any(|p| p.text == "A: 516.28 at 2"),
        "{points:?}"
    );
    assert!(
        points.iter().any(|p| p.text == "B: 516.28 at 2"),
        "{points:?}"
    );
    // The shade covers windows 3..6 of the same x axis, and no warm-up point.
    let shade = &laid_out(&file, "svg.chart:first-of-type rect.shade", 1100)[0];
    let x_of = |w: &str| a.iter().find(|(k, _)| k == w).unwrap().1;
    assert!((shade.x - x_of("3")).abs() < 0.5, "{shade:?} vs {a:?}");
    assert!(
        (shade.x + shade.w - x_of("6")).abs() < 0.5,
        "{shade:?} vs {a:?}"
    );
}

/// The driver's pull and push libraries: `driver/build/` when built, else built in a copy of
/// `driver/` (`bash driver/build.sh --no-run`). Returns the guard of the copy, if any.
fn driver_libs() -> (Option<tempfile::TempDir>, PathBuf, PathBuf) {
    let libs = |root: &Path| {
        (
            root.join("build/pull/libMobileGL.so"),
            root.join("build/push/libMobileGL.so"),
        )
    };
    let (pull, push) = libs(&driver());
    if pull.is_file() && push.is_file() {
        return (None, pull, push);
    }
    let (g, root) = copy_driver();
    let ok = Command::new("bash")
        .args(["build.sh", "--no-run"])
        .current_dir(&root)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "driver/build.sh --no-run failed");
    let (pull, push) = libs(&root);
    (Some(g), pull, push)
}

/// The text of an element and its descendants.
fn text(n: roxmltree::Node<'_, '_>) -> String {
    n.descendants()
        .filter(|d| d.is_text())
        .filter_map(|d| d.text())
        .collect()
}

fn has_class(n: &roxmltree::Node<'_, '_>, class: &str) -> bool {
    n.attribute("class")
        .is_some_and(|c| c.split(' ').any(|w| w == class))
}

/// The rows of `table.<class>` as cell texts, without the header.
fn table_rows(doc: &roxmltree::Document<'_>, class: &str) -> Vec<Vec<String>> {
    let table = doc
        .descendants()
        .find(|n| n.has_tag_name("table") && has_class(n, class))
        .unwrap_or_else(|| panic!("no table.{class}"));
    table
        .children()
        .filter(|n| n.has_tag_name("tr"))
        .skip(1)
        .map(|tr| {
            tr.children()
                .filter(|n| n.has_tag_name("td"))
                .map(text)
                .collect()
        })
        .collect()
}

/// The scope bars as (label, value) from each bar's `<title>label: value</title>`.
fn scope_bars(doc: &roxmltree::Document<'_>) -> Vec<(String, i64)> {
    doc.descendants()
        .filter(|n| n.has_tag_name("rect") && has_class(n, "bar"))
        .map(|r| {
            let t = text(r);
            let (label, v) = t.rsplit_once(": ").unwrap();
            (label.to_string(), v.parse().unwrap())
        })
        .collect()
}

/// (name, delta) rows as the JSON report lists them.
type Rows = Vec<(String, i64)>;

/// What the JSON report says the page must show: the top-20 scopes and symbols by |delta|, and
/// how many of each there are in all.
fn expected_from_json(js: &serde_json::Value) -> (Rows, usize, Rows, usize) {
    let groups = js["groups"]["rows"].as_array().unwrap();
    let all: Rows = groups
        .iter()
        .map(|g| {
            (
                g["namespace"].as_str().unwrap().to_string(),
                g["delta"].as_i64().unwrap(),
            )
        })
        .collect();
    // The chart: the 10 largest growths and the 10 largest shrinkages (a short side leaves its
    // share to the other).
    let (mut grow, mut shrink): (Rows, Rows) = (
        all.iter().filter(|g| g.1 > 0).cloned().collect(),
        all.iter().filter(|g| g.1 < 0).cloned().collect(),
    );
    grow.sort_by(|x, y| y.1.cmp(&x.1).then_with(|| x.0.cmp(&y.0)));
    shrink.sort_by(|x, y| x.1.cmp(&y.1).then_with(|| x.0.cmp(&y.0)));
    let ng = grow.len().min(10.max(20usize.saturating_sub(shrink.len())));
    let ns = shrink.len().min(20 - ng);
    grow.truncate(ng);
    shrink.truncate(ns);
    shrink.reverse();
    let scopes: Rows = grow.into_iter().chain(shrink).collect();
    let mut syms: Vec<(String, i64)> = ["added", "removed", "resized"]
        .iter()
        .flat_map(|b| js[*b].as_array().unwrap())
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_string(),
                c["delta"].as_i64().unwrap(),
            )
        })
        .collect();
    let changed = syms.len();
    syms.sort_by(|x, y| {
        y.1.unsigned_abs()
            .cmp(&x.1.unsigned_abs())
            .then_with(|| x.0.cmp(&y.0))
    });
    syms.truncate(20);
    (scopes, groups.len(), syms, changed)
}

/// Asserts the symbols page shows what the JSON report lists: the scope bars (growth and
/// shrinkage coloured apart), the top symbols, and the count of the rest.
fn assert_symbols_page_matches_json(html: &str, js: &serde_json::Value) {
    let doc = assert_self_contained(html);
    let (scopes, n_scopes, syms, changed) = expected_from_json(js);
    let bars = scope_bars(&doc);
    assert_eq!(
        bars, scopes,
        "the bars are the JSON's largest growths and shrinkages, in signed order, to the byte"
    );
    let grow = scopes.iter().filter(|s| s.1 > 0).count();
    let bar_class = |c: &str| {
        doc.descendants()
            .filter(|n| n.has_tag_name("rect") && has_class(n, "bar") && has_class(n, c))
            .count()
    };
    assert_eq!(bar_class("grow"), grow, "growth in its colour");
    assert_eq!(
        bar_class("shrink"),
        scopes.len() - grow,
        "shrinkage in its own"
    );
    let xlabel = doc
        .descendants()
        .find(|n| has_class(n, "xlabel"))
        .map(text)
        .unwrap();
    assert_eq!(xlabel, "Δ bytes (growth right, shrinkage left)");
    assert!(html.contains(&format!("({} of {n_scopes} scopes)", bars.len())));
    if n_scopes > bars.len() {
        assert!(html.contains(&format!("… and {} more scope", n_scopes - bars.len())));
    }
    let rows = table_rows(&doc, "symbols");
    assert_eq!(rows.len(), changed.min(20), "one row per top symbol");
    let got: Vec<(String, i64)> = rows
        .iter()
        .map(|r| (r[1].clone(), r[4].parse().unwrap()))
        .collect();
    assert_eq!(
        got, syms,
        "the table is the JSON's top symbols by |delta|, in order"
    );
    for r in &rows {
        let kind = r[0].as_str();
        assert!(
            ["added", "removed", "grown", "shrunk"].contains(&kind),
            "{kind}"
        );
    }
    if changed > 20 {
        assert!(html.contains(&format!("… and {} more symbol", changed - 20)));
    }
}

#[test]
fn symbols_diff_html_shows_the_text_and_json_figures_for_the_driver_builds() {
    let (_guard, pull, push) = driver_libs();
    let dir = scratch();
    let (file, json) = (dir.path().join("symbols.html"), dir.path().join("r.json"));
    let run = mgctl(
        &[
            "symbols",
            "diff",
            "--before",
            pull.to_str().unwrap(),
            "--after",
            push.to_str().unwrap(),
            "--group",
            "namespace",
            "--json",
            json.to_str().unwrap(),
            "--html",
            file.to_str().unwrap(),
        ],
        dir.path(),
    )
    .expect(0);
    run.assert_stdout_has(&format!(
        "symbol-report: html written to {}",
        file.display()
    ));
    let html = std::fs::read_to_string(&file).unwrap();
    let js: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_symbols_page_matches_json(&html, &js);
    let doc = assert_self_contained(&html);
    // One row per section the text report prints, with its figures.
    let text_sections: Vec<Vec<String>> = run
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("symbol-report: "))
        .filter(|l| l.starts_with('.') || l.starts_with("Total "))
        .map(|l| {
            let w: Vec<&str> = l
                .split([' ', '(', ')', ','])
                .filter(|w| !w.is_empty())
                .collect();
            // `.text 78209 -> 99592 (+21383, +27.341%)`
            let mut row = vec![
                w[0].to_string(),
                w[1].to_string(),
                w[3].to_string(),
                w[4].to_string(),
            ];
            if let Some(p) = w.get(5) {
                row.push(p.trim_end_matches('%').to_string());
            }
            row
        })
        .collect();
    let sections = table_rows(&doc, "sections");
    let names: Vec<&str> = sections.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(
        names,
        [".text", ".data", ".bss", ".rodata", "Total"],
        "{html}"
    );
    assert_eq!(sections.len(), text_sections.len());
    for (got, want) in sections.iter().zip(&text_sections) {
        assert_eq!(
            got[..want.len()],
            want[..],
            "section row vs the text report"
        );
    }
    for (name, before) in js["sections_before"].as_object().unwrap() {
        if let Some(r) = sections.iter().find(|r| &r[0] == name) {
            assert_eq!(r[1], before.to_string(), "{name} before vs the JSON");
            assert_eq!(r[2], js["sections_after"][name].to_string(), "{name} after");
        }
    }
    // The page carries the text report's summary lines verbatim.
    let pre = doc
        .descendants()
        .find(|n| n.has_tag_name("pre"))
        .map(text)
        .unwrap();
    for l in run
        .stdout
        .lines()
        .filter(|l| l.starts_with("symbol-report: ") && !l.contains(" written to "))
    {
        assert!(pre.lines().any(|p| p == l), "{l:?} missing from the page");
    }
    assert!(html.contains("prefers-color-scheme: dark") && html.contains("@media print"));
    assert_renders(&file);
    assert_symbols_page_reads_at_a_glance(&file);
}

#[test]
fn symbols_diff_html_of_identical_libraries_is_an_empty_but_wellformed_page() {
    let (_guard, pull, _push) = driver_libs();
    let dir = scratch();
    let file = dir.path().join("same.html");
    let run = mgctl(
        &[
            "symbols",
            "diff",
            "--before",
            pull.to_str().unwrap(),
            "--after",
            pull.to_str().unwrap(),
            "--format",
            "json",
            "--html",
            file.to_str().unwrap(),
        ],
        dir.path(),
    )
    .expect(0);
    let js: serde_json::Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("--format json keeps stdout JSON only: {e}\n{}", run.dump()));
    assert_eq!(js["schema"], 1);
    let html = std::fs::read_to_string(&file).unwrap();
    let doc = assert_self_contained(&html);
    assert_eq!(count_class(&doc, "bar"), 0);
    assert!(table_rows(&doc, "symbols").is_empty());
    assert!(html.contains("(0 of 0 scopes)") && html.contains("top 0 of 0 added"));
    // A page that cannot be written is an input error naming the path.
    let r = mgctl(
        &[
            "symbols",
            "diff",
            "--before",
            pull.to_str().unwrap(),
            "--after",
            pull.to_str().unwrap(),
            "--format",
            "json",
            "--html",
            dir.path().to_str().unwrap(),
        ],
        dir.path(),
    )
    .expect(2);
    r.assert_stderr_has(&format!("{}: is a directory", dir.path().display()));
}

const LLVM14: &str = "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1";
const LLVM15: &str = "/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1";
const FIVE_MB: u64 = 5 * 1024 * 1024;

/// The large pair: 45k symbols a side. The page lists the top 20 scopes and symbols and
/// counts the rest, so it stays small, and its figures are still the JSON's.
#[test]
fn symbols_diff_html_of_libllvm_14_to_15_is_bounded_and_renders() {
    if !(Path::new(LLVM14).is_file() && Path::new(LLVM15).is_file()) {
        eprintln!(
            "skipped: {LLVM14} and {LLVM15} not installed (apt-get install libllvm14 libllvm15)"
        );
        return;
    }
    let dir = scratch();
    let (file, json) = (dir.path().join("llvm.html"), dir.path().join("llvm.json"));
    mgctl(
        &[
            "symbols",
            "diff",
            "--before",
            LLVM14,
            "--after",
            LLVM15,
            "--group",
            "namespace:2",
            "--format",
            "markdown",
            "--json",
            json.to_str().unwrap(),
            "--html",
            file.to_str().unwrap(),
        ],
        dir.path(),
    )
    .expect(0);
    let size = std::fs::metadata(&file).unwrap().len();
    assert!(size < FIVE_MB, "the libLLVM page is {size} bytes");
    let html = std::fs::read_to_string(&file).unwrap();
    let js: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_symbols_page_matches_json(&html, &js);
    let doc = assert_self_contained(&html);
    assert_eq!(count_class(&doc, "bar"), 20);
    assert_eq!(
        html.matches("class=\"bar grow\"").count(),
        10,
        "both sides shown: 10 growths"
    );
    assert_eq!(html.matches("class=\"bar shrink\"").count(), 10);
    assert_eq!(table_rows(&doc, "symbols").len(), 20);
    assert_renders(&file);
    assert_symbols_page_reads_at_a_glance(&file);
}

/// Issue 32: the scope chart sat in a ~480 px column (~9 px text), names wrapped over up to 15
/// lines and the Sections table was ~3,300 px down. As Chromium lays the page out at 1100 px:
/// Sections come first and near the top, the scope labels are at least 12 px tall, and every
/// symbol name takes one line, its full text in the title tooltip.
fn assert_symbols_page_reads_at_a_glance(file: &Path) {
    let sections = laid_out(file, "table.sections", 1100);
    let chart = laid_out(file, "svg.bars", 1100);
    let symbols = laid_out(file, "table.symbols", 1100);
    assert!(sections[0].y < 400.0, "Sections at y={}", sections[0].y);
    assert!(sections[0].y < chart[0].y && chart[0].y < symbols[0].y);
    assert!(
        chart[0].w > 800.0,
        "the scope chart spans the page: {:?}",
        chart[0]
    );
    for l in laid_out(file, "svg.bars text.blabel", 1100) {
        assert!(l.h >= 12.0, "scope label {:?} is {} px tall", l.text, l.h);
    }
    let line = laid_out(file, "table.sections td", 1100)[0].h;
    let names = laid_out(file, "table.symbols code.sym", 1100);
    assert!(!names.is_empty());
    for n in &names {
        assert!(
            n.h <= line,
            "{:?} wraps: {} px for a {} px row",
            n.text,
            n.h,
            line
        );
    }
    let html = std::fs::read_to_string(file).unwrap();
    let doc = assert_self_contained(&html);
    for c in doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("sym"))
    {
        assert_eq!(c.attribute("title"), Some(text(c).as_str()));
    }
}

/// Every report of the samples stays far under the 5 MB (and the summary page renders).
#[test]
fn html_reports_of_the_samples_are_under_5_mb() {
    let dir = scratch();
    let out = |n: &str| dir.path().join(n).to_string_lossy().into_owned();
    let runs: [(Vec<String>, i32); 4] = [
        (
            vec![
                "bench".into(),
                "frames".into(),
                data("benchmark-run1.json"),
                data("benchmark-run2.json"),
                data("benchmark-run3.json"),
                "--html".into(),
                out("frames.html"),
            ],
            0,
        ),
        (
            vec![
                "bench".into(),
                "frames".into(),
                "--compare".into(),
                data("benchmark-run1.json"),
                data("benchmark.json"),
                "--html".into(),
                out("compare.html"),
            ],
            0,
        ),
        (
            vec![
                "stats".into(),
                "summary".into(),
                data("abA-pull-DirectGLES.mobilegl.log"),
                data("abB-push-DirectGLES.logcat.txt"),
                data("fatal-verify-DirectGLES.mobilegl.log"),
                "--html".into(),
                out("summary.html"),
            ],
            -1,
        ),
        (
            vec![
                "stats".into(),
                "diff".into(),
                data("abA-pull-DirectGLES.mobilegl.log"),
                data("abB-push-DirectGLES.logcat.txt"),
                "--html".into(),
                out("diff.html"),
            ],
            0,
        ),
    ];
    for (args, code) in &runs {
        let r = mgctl(args, &repo_root());
        assert!(
            *code < 0 && (r.code == 0 || r.code == 1) || r.code == *code,
            "{}",
            r.dump()
        );
        let file = PathBuf::from(args.last().unwrap());
        let size = std::fs::metadata(&file).unwrap().len();
        assert!(size < FIVE_MB, "{} is {size} bytes", file.display());
        assert_self_contained(&std::fs::read_to_string(&file).unwrap());
    }
    assert_renders(Path::new(&out("summary.html")));
}
