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
                assert!(
                    !v.contains("://"),
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
                .is_some_and(|h| h.starts_with("MobileGL/MG_Backend/"))
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
    assert_renders(&file);
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
    assert!(
        count_class(&doc, "session") > 0,
        "the push log's session change is marked"
    );
    assert_eq!(
        count_class(&doc, "shade"),
        charts,
        "the steady state is shaded on every chart"
    );
    assert!(html.contains("draws/f") && html.contains("acc/draw"));
    assert_renders(&file);
}
