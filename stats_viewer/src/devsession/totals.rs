//! An arm's run totals from its PipeStats JSON dumps (`pipestats.client.json`,
//! `pipestats.server.json`, `tcp-server-pipestats.json`: the disagg matrix's evidence) merged into
//! one set, and the `P65LinkMetrics kind=frame` rollup of its `linkmetrics-lines.txt`.
//!
//! Upstream (`tools/device_bench/disagg/make_report.py`) sums every counter of the dumps, the
//! `wire` gauges included; a gauge is a maximum, and the client's and the server's
//! `max-record-bytes` summed is no record anybody sent. Here counters are summed, the two `max-`
//! gauges take the larger side, and `frames` is the larger count (one side counts them).

use std::collections::BTreeMap;

use crate::dump::Dump;

/// The merged totals of one arm, and the dumps they came from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunTotals {
    pub frames: u64,
    /// `section.name` → value (`bytes.stage-buffer`, `calls.wire-records`, `wire.server-waits`).
    pub values: BTreeMap<String, u64>,
    /// The dumps merged, as shown (relative to the session directory).
    pub sources: Vec<String>,
}

/// Gauges: the largest side, never a sum.
fn is_gauge(key: &str) -> bool {
    matches!(key, "wire.max-record-bytes" | "wire.max-record-bytes-cap")
}

impl RunTotals {
    pub fn merge(dumps: &[(String, Dump)]) -> Option<RunTotals> {
        if dumps.is_empty() {
            return None;
        }
        let mut t = RunTotals::default();
        for (shown, d) in dumps {
            t.frames = t.frames.max(d.frames);
            t.sources.push(shown.clone());
            for (k, v) in &d.values {
                let e = t.values.entry(k.clone()).or_default();
                *e = if is_gauge(k) {
                    (*e).max(*v)
                } else {
                    e.saturating_add(*v)
                };
            }
        }
        Some(t)
    }

    pub fn get(&self, key: &str) -> u64 {
        self.values.get(key).copied().unwrap_or(0)
    }
}

/// The `P65LinkMetrics kind=frame` lines summed, each frame id once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LinkRollup {
    pub shown: String,
    pub frames: u64,
    pub wait_replies: u64,
    pub stage_bytes: u64,
    pub transport_wait_ns: u64,
    /// Lines repeating a frame id already summed (the first one counts, as upstream).
    pub duplicates: u64,
    /// `kind=frame` lines without a readable `frame=` id: counted, not dropped silently.
    pub unreadable: u64,
}

fn field(line: &str, key: &str) -> Option<u64> {
    line.split_whitespace()
        .find_map(|t| t.strip_prefix(key)?.strip_prefix('='))
        .and_then(|v| v.parse().ok())
}

impl LinkRollup {
    /// None when the file holds no `kind=frame` line.
    pub fn parse(shown: &str, text: &str) -> Option<LinkRollup> {
        let mut r = LinkRollup {
            shown: shown.to_string(),
            ..LinkRollup::default()
        };
        let mut seen = std::collections::HashSet::new();
        let mut any = false;
        for line in text.lines() {
            let Some(at) = line.find("P65LinkMetrics kind=frame ") else {
                continue;
            };
            any = true;
            let rest = &line[at..];
            let Some(id) = field(rest, "frame") else {
                r.unreadable += 1;
                continue;
            };
            if !seen.insert(id) {
                r.duplicates += 1;
                continue;
            }
            r.frames += 1;
            r.wait_replies += field(rest, "wait_replies").unwrap_or(0);
            r.stage_bytes += field(rest, "stage_bytes").unwrap_or(0);
            r.transport_wait_ns += field(rest, "transport_wait_ns").unwrap_or(0);
        }
        any.then_some(r)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::path::Path;

    fn dump(frames: u64, srv: u64, maxrec: u64, buf: u64) -> Dump {
        let text = format!(
            r#"{{"frames": {frames}, "bytes": {{"stage-buffer": {buf}}}, "wire": {{"server-waits": {srv}, "max-record-bytes": {maxrec}}}}}"#
        );
        Dump::parse(Path::new("d.json"), text.as_bytes()).unwrap()
    }

    #[test]
    fn counters_sum_gauges_take_the_larger_side_frames_the_counting_side() {
        let t = RunTotals::merge(&[
            ("c.json".into(), dump(0, 0, 16384, 100)),
            ("s.json".into(), dump(240, 48, 4096, 20)),
        ])
        .unwrap();
        assert_eq!(t.frames, 240);
        assert_eq!(t.get("wire.server-waits"), 48);
        assert_eq!(t.get("bytes.stage-buffer"), 120);
        // Upstream's sum would say 20480: no record of that size was ever sent.
        assert_eq!(t.get("wire.max-record-bytes"), 16384);
        assert_eq!(RunTotals::merge(&[]), None);
    }

    #[test]
    fn link_metrics_count_each_frame_once_and_name_what_they_skip() {
        let text = "x P65LinkMetrics kind=frame frame=1 wait_replies=2 stage_bytes=100 transport_wait_ns=5000000\n\
                    x P65LinkMetrics kind=frame frame=2 wait_replies=1 stage_bytes=50 transport_wait_ns=1000000\n\
                    x P65LinkMetrics kind=frame frame=2 wait_replies=9 stage_bytes=9 transport_wait_ns=9\n\
                    x P65LinkMetrics kind=frame frame=? wait_replies=9\n\
                    x P65LinkMetrics kind=session total=3\n";
        let r = LinkRollup::parse("lm.txt", text).unwrap();
        assert_eq!((r.frames, r.wait_replies, r.stage_bytes), (2, 3, 150));
        assert_eq!(r.transport_wait_ns, 6_000_000);
        assert_eq!((r.duplicates, r.unreadable), (1, 1));
        assert_eq!(LinkRollup::parse("lm.txt", "nothing here\n"), None);
    }
}
