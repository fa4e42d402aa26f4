//! Self-contained HTML reports of mgctl (`--html FILE`, `check --format html`): one file, inline SVG and
//! CSS, no script, no network, light and dark aware, printable. The pages take plain views that the
//! commands fill from library results; nothing here computes a figure. See docs/html.md.
#![warn(unreachable_pub)]

mod pages;
mod session;
mod svg;

pub use pages::{check_page, counters_page, frames_page, symbols_page};
pub use pages::{CounterArm, FrameArm, FrameSeries};
pub use session::session_page;

use check_report::text::markup as esc;

const CSS: &str = r#"
:root { color-scheme: light dark; --bg:#ffffff; --fg:#1f2328; --muted:#59636e; --grid:#d8dee4;
  --s0:#0969da; --s1:#cf222e; --grow:#bc4c00; --shrink:#1a7f37; --shade:rgba(130,80,223,.12);
  --fatal:#cf222e; --session:#8250df; --pass:#1a7f37; --fail:#cf222e; --skip:#59636e; }
@media (prefers-color-scheme: dark) { :root { --bg:#0d1117; --fg:#e6edf3; --muted:#9198a1;
  --grid:#30363d; --s0:#4493f8; --s1:#f85149; --grow:#f0883e; --shrink:#3fb950;
  --shade:rgba(163,113,247,.18); --fatal:#f85149; --session:#a371f7; --pass:#3fb950;
  --fail:#f85149; --skip:#9198a1; } }
body { background:var(--bg); color:var(--fg); font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;
  margin:24px auto; max-width:1000px; padding:0 16px; }
h1 { font-size:20px; margin:0 0 4px; } h2 { font-size:16px; margin:28px 0 8px; }
.meta, .method { color:var(--muted); font-size:12px; } code { font:12px ui-monospace,monospace; }
table { border-collapse:collapse; font-size:13px; margin:8px 0; }
th, td { border-bottom:1px solid var(--grid); padding:3px 10px; text-align:left; vertical-align:top; }
td.num, th.num { text-align:right; font-variant-numeric:tabular-nums; white-space:nowrap; }
td:first-child { white-space:nowrap; }
svg.chart { width:100%; height:auto; margin:6px 0; }
svg text { fill:var(--fg); font-size:11px; } svg .title { font-size:13px; font-weight:600; }
svg .tick { fill:var(--muted); } svg .grid { stroke:var(--grid); stroke-width:1; }
svg .axis { stroke:var(--muted); stroke-width:1; }
svg .s0 { fill:var(--s0); stroke:var(--s0); } svg .s1 { fill:var(--s1); stroke:var(--s1); }
svg rect.bar { fill-opacity:.55; stroke:none; } svg path.series { fill:none; stroke-width:1.6; }
svg .swatch { stroke:none; } svg .legend text { fill:var(--fg); }
svg rect.grow { fill:var(--grow); fill-opacity:.85; } svg rect.shrink { fill:var(--shrink); fill-opacity:.85; }
svg rect.zero { fill:var(--muted); fill-opacity:.6; } svg text.bvalue.inside { fill:var(--bg); }
svg .shade { fill:var(--shade); stroke:none; }
svg .mark line { stroke-dasharray:4 3; stroke-width:1.2; } svg .mark text { font-size:10px; stroke:none; }
svg .mark.fatal line { stroke:var(--fatal); } svg .mark.fatal text { fill:var(--fatal); }
svg .mark.session line { stroke:var(--session); } svg .mark.session text { fill:var(--session); }
svg .mark.s0 text { fill:var(--s0); } svg .mark.s1 text { fill:var(--s1); }
td.grow { color:var(--grow); } td.shrink { color:var(--shrink); }
table.symbols { table-layout:fixed; width:100%; } table.symbols th:nth-child(1) { width:6em; }
table.symbols th.num { width:7.5em; } td.symname { overflow:hidden; }
code.sym { display:block; white-space:nowrap; overflow:hidden; text-overflow:ellipsis; } pre.lines { font:12px ui-monospace,monospace; white-space:pre-wrap; overflow-wrap:anywhere; }
.note { color:var(--muted); font-size:12px; margin:0 0 8px; } ul.dropped { color:var(--muted); font-size:12px; margin:4px 0; }
.pass { color:var(--pass); } .fail { color:var(--fail); font-weight:600; } .skipped { color:var(--skip); }
@media print { body { max-width:none; margin:0; } svg.chart { break-inside:avoid; } }
"#;

/// The Content-Security-Policy of every page: nothing but the inline styles.
pub const CSP: &str = "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\"/>";

/// The page shell: title, a line of provenance, the sections.
/// `version` is the writing tool's, printed in the footer.
fn page(title: &str, meta: &[String], body: &str, version: &str) -> String {
    let mut out = String::with_capacity(body.len() + 4096);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>");
    // No page runs script or loads anything (issue 29): a name that slipped past the escapers
    // still could not execute or fetch. Inline <style> and SVG style attributes are all it needs.
    out.push_str(CSP);
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>");
    out.push_str(&format!(
        "<title>{}</title><style>{CSS}</style></head><body>",
        esc(title)
    ));
    out.push_str(&format!("<h1>{}</h1>", esc(title)));
    for m in meta {
        out.push_str(&format!("<div class=\"meta\">{}</div>", esc(m)));
    }
    out.push_str(body);
    out.push_str(&format!(
        "<p class=\"meta\">written by mgctl {}</p></body></html>\n",
        esc(version)
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn esc_neutralises_markup_and_control_bytes() {
        assert_eq!(
            esc("a<b>&\"'\u{1b}[31m"),
            "a&lt;b&gt;&amp;&quot;&#39;\u{FFFD}[31m"
        );
    }
}
