//! Pairing and statistics, as `frame_stats.py summarize()` computes them: client frames with an id
//! above the warmup, the last `tail` of them, contiguous, each matched by the server row with the
//! same id; nearest-rank p50/p99 and the average of every column; each role's share of the summed
//! client present time. Every division is rounded once, as Python's `int / int` rounds it, so the
//! numbers are the script's to the last bit.

use super::model::{Column, Distribution, FrameStats, PairedFrame, RoleLog, Selection};
use crate::error::MissingFrames;
use crate::Error;

/// Pairs `client` with `server` and computes the script's statistics over `sel`.
pub fn summarize(client: &RoleLog, server: &RoleLog, sel: Selection) -> Result<FrameStats, Error> {
    let above: Vec<_> = client
        .frames
        .values()
        .filter(|r| i128::from(r.frame) > i128::from(sel.warmup))
        .collect();
    // `selected[-tail:]`; a tail of 0 keeps everything in Python (`[-0:]` is `[0:]`).
    let selected = match sel.tail {
        Some(t) if t > 0 && t < above.len() => &above[above.len() - t..],
        _ => &above[..],
    };
    let (Some(first), Some(last)) = (selected.first(), selected.last()) else {
        return Err(Error::EmptySelection {
            path: client.path.clone(),
            reason: format!(
                "{} client frames, ids {}..{}, none above --warmup {}",
                client.frames.len(),
                client.frames.keys().next().copied().unwrap_or_default(),
                client
                    .frames
                    .keys()
                    .next_back()
                    .copied()
                    .unwrap_or_default(),
                sel.warmup
            ),
        });
    };
    if let Some(w) = selected.windows(2).find(|w| w[1].frame != w[0].frame + 1) {
        return Err(Error::FrameGap {
            path: client.path.clone(),
            line: w[1].line,
            frame: w[1].frame,
            previous: w[0].frame,
            previous_line: w[0].line,
        });
    }
    let missing: Vec<_> = selected
        .iter()
        .filter(|r| !server.frames.contains_key(&r.frame))
        .collect();
    if let Some(m) = missing.first() {
        return Err(Error::MissingServerFrames(Box::new(MissingFrames {
            server: server.path.clone(),
            client: client.path.clone(),
            frames: missing.iter().map(|r| r.frame).collect(),
            client_line: m.line,
            invalid_row: server.skipped.invalid_server.get(&m.frame).cloned(),
        })));
    }
    let series: Vec<PairedFrame> = selected
        .iter()
        .filter_map(|c| {
            server.frames.get(&c.frame).map(|s| PairedFrame {
                client: **c,
                server: *s,
            })
        })
        .collect();
    let column = |c: Column| -> Vec<i64> { series.iter().map(|p| c.of(p)).collect() };
    let stats = Column::ALL.map(|c| distribution(&column(c)));
    let duration = sum(&column(Column::ClientPresent));
    let shares = Column::SHARED.map(|c| div_round(100 * sum(&column(c)), duration));
    Ok(FrameStats {
        selection: sel,
        first_frame: first.frame,
        last_frame: last.frame,
        stats,
        shares,
        series,
    })
}

/// Sum of non-negative clocks (every clock is checked `>= 0` when read), exact.
fn sum(v: &[i64]) -> u128 {
    v.iter().map(|&x| u128::from(x.unsigned_abs())).sum()
}

/// `ordered[max(0, ceil(n * p / 100) - 1)]` over the sorted samples (nearest rank).
pub fn quantile_ns(samples: &[i64], percentile: usize) -> Option<i64> {
    let mut ordered = samples.to_vec();
    ordered.sort_unstable();
    let rank = (ordered.len() * percentile).div_ceil(100);
    ordered.get(rank.saturating_sub(1)).copied()
}

/// `{"avg": sum / n / 1e6, "p50": q50 / 1e6, "p99": q99 / 1e6}`.
fn distribution(samples: &[i64]) -> Distribution {
    let ms = |ns: Option<i64>| ns.map_or(f64::NAN, |v| v as f64 / 1e6);
    Distribution {
        avg: div_round(sum(samples), samples.len() as u128) / 1e6,
        p50: ms(quantile_ns(samples, 50)),
        p99: ms(quantile_ns(samples, 99)),
    }
}

/// `a / b` rounded once to the nearest double (ties to even), as Python's `int / int`: exact
/// where Rust's `a as f64 / b as f64` would round twice (operands beyond 2^53).
pub fn div_round(a: u128, b: u128) -> f64 {
    const EXACT: u128 = 1 << 53;
    if b == 0 {
        return f64::NAN;
    }
    if a < EXACT && b < EXACT {
        return a as f64 / b as f64;
    }
    // Long division until the quotient has at least 55 bits, the rest folded into a sticky bit:
    // then one correctly rounded integer-to-double conversion rounds as the exact quotient would.
    let (mut q, mut r, mut shift) = (a / b, a % b, 0i32);
    while q < (1 << 55) && shift < 1100 {
        // r < b; doubling cannot overflow while b < 2^127 (sums of i64 clocks are far below).
        r <<= 1;
        q <<= 1;
        if r >= b {
            r -= b;
            q |= 1;
        }
        shift += 1;
    }
    let q = q | u128::from(r != 0);
    (q as f64) * 2f64.powi(-shift)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frames::parse::read_frames;
    use crate::frames::Side;
    use std::path::Path;

    /// test_frame_stats.py's `logs()`: three client frames, the server's frames 2 and 3.
    fn upstream(missing_server: bool, overlapping: bool) -> (RoleLog, RoleLog) {
        let client: String = [
            (1, 10000000, 2000000, 1000000),
            (2, 20000000, 5000000, 4000000),
            (3, 40000000, 10000000, 7000000),
        ]
        .iter()
        .map(|(n, wall, cpu, wait)| {
            format!(
                "P65LinkMetrics kind=frame frame={n} wall_ns={wall} \
                 client_thread_cpu_ns={cpu} transport_wait_ns={wait}\n"
            )
        })
        .collect();
        let server: String = [
            (2, 18000000, if overlapping { 17000000 } else { 3000000 }),
            (3, 35000000, if overlapping { 31000000 } else { 6000000 }),
        ]
        .iter()
        .filter(|(n, _, _)| !missing_server || *n != 3)
        .map(|(n, wall, cpu)| {
            format!("P65ServerMetrics frame={n} valid=1 wall_ns={wall} apply_thread_cpu_ns={cpu}\n")
        })
        .collect();
        (
            read_frames(Path::new("client.log"), client.as_bytes(), Side::Client).expect("client"),
            read_frames(Path::new("server.log"), server.as_bytes(), Side::Server).expect("server"),
        )
    }

    fn warmup(n: u64) -> Selection {
        Selection {
            warmup: n,
            tail: None,
        }
    }

    #[test]
    fn upstream_paired_percentiles_and_shares() {
        let (c, s) = upstream(false, false);
        let r = summarize(&c, &s, warmup(1)).expect("summary");
        assert_eq!((r.first_frame, r.last_frame, r.frames()), (2, 3, 2));
        assert_eq!(
            r.stat(Column::TransportWait),
            Distribution {
                avg: 5.5,
                p50: 4.0,
                p99: 7.0
            }
        );
        assert_eq!(
            r.share(Column::TransportWait),
            Some(100.0 * 11000000.0 / 60000000.0)
        );
        assert_eq!(r.share(Column::TransportWait), Some(18.333333333333332));
        // The other columns, by hand from the same rows.
        assert_eq!(
            r.stat(Column::ClientPresent),
            Distribution {
                avg: 30.0,
                p50: 20.0,
                p99: 40.0
            }
        );
        assert_eq!(r.stat(Column::ServerCpu).avg, 4.5);
        assert_eq!(r.share(Column::ClientCpu), Some(25.0));
        assert_eq!(r.share(Column::ServerCpu), Some(15.0));
    }

    #[test]
    fn upstream_missing_server_frame_is_error() {
        let (c, s) = upstream(true, false);
        let e = summarize(&c, &s, warmup(1)).expect_err("missing");
        assert_eq!(
            e.to_string(),
            "server.log: server is missing matched frames: [3]; frame 3 is client.log:3"
        );
    }

    #[test]
    fn upstream_parallel_cpu_is_allowed() {
        let (c, s) = upstream(false, true);
        let r = summarize(&c, &s, warmup(1)).expect("summary");
        assert!(r.shares.iter().sum::<f64>() > 100.0, "{:?}", r.shares);
    }

    #[test]
    fn warmup_is_by_id_and_tail_keeps_the_last() {
        let (c, s) = upstream(false, false);
        let r = summarize(
            &c,
            &s,
            Selection {
                warmup: 0,
                tail: Some(2),
            },
        )
        .expect("tail 2");
        assert_eq!((r.first_frame, r.last_frame), (2, 3));
        // Warmup 0 pulls in frame 1, which the server does not have.
        let e = summarize(&c, &s, warmup(0)).expect_err("frame 1");
        assert!(e
            .to_string()
            .contains("missing matched frames: [1]; frame 1 is client.log:1"));
        let e = summarize(&c, &s, warmup(3)).expect_err("nothing left");
        assert_eq!(
            e.to_string(),
            "client.log: no frames remain after warmup/tail selection (3 client frames, ids 1..3, none above --warmup 3)"
        );
    }

    #[test]
    fn a_gap_is_an_error_naming_the_frame_and_line() {
        let text = "P65LinkMetrics kind=frame frame=2 wall_ns=1000000 client_thread_cpu_ns=1 transport_wait_ns=0\n\
                    P65LinkMetrics kind=frame frame=4 wall_ns=1000000 client_thread_cpu_ns=1 transport_wait_ns=0\n";
        let c = read_frames(Path::new("c.log"), text.as_bytes(), Side::Client).expect("c");
        let (_, s) = upstream(false, false);
        let e = summarize(&c, &s, warmup(1)).expect_err("gap");
        assert_eq!(
            e.to_string(),
            "c.log:2: selected client frame IDs are not contiguous: frame 4 follows frame 2 (line 1)"
        );
    }

    #[test]
    fn a_frame_only_invalid_on_the_server_says_so() {
        let (c, _) = upstream(false, false);
        let text =
            "P65ServerMetrics frame=2 valid=1 wall_ns=18000000 apply_thread_cpu_ns=3000000\n\
                    P65ServerMetrics frame=3 valid=0 wall_ns=0 apply_thread_cpu_ns=0\n";
        let s = read_frames(Path::new("s.log"), text.as_bytes(), Side::Server).expect("s");
        let e = summarize(&c, &s, warmup(1)).expect_err("invalid");
        assert_eq!(
            e.to_string(),
            "s.log: server is missing matched frames: [3]; frame 3 is client.log:3, and s.log:2 has it with valid=0"
        );
    }

    #[test]
    fn nearest_rank() {
        let v: Vec<i64> = (1..=100).collect();
        assert_eq!(quantile_ns(&v, 50), Some(50));
        assert_eq!(quantile_ns(&v, 99), Some(99));
        assert_eq!(quantile_ns(&[7], 99), Some(7));
        assert_eq!(quantile_ns(&[3, 1, 2], 50), Some(2));
        assert_eq!(quantile_ns(&[], 50), None);
    }

    #[test]
    fn division_rounds_once() {
        assert_eq!(div_round(11, 2), 5.5);
        assert_eq!(div_round(1100000000, 60000000), 18.333333333333332);
        // 2^53 + 1 over 1: Python's int/int gives 2^53 (ties to even), and so must this.
        let big = (1u128 << 53) + 1;
        assert_eq!(div_round(big, 1), 9007199254740992.0);
        // Python's `a / b` for operands where converting first rounds twice (and differs).
        assert_eq!(
            div_round(765036901286292871331, 864918861463),
            884518693.4555248
        );
        let (a, b): (u128, u128) = (765036901286292871331, 864918861463);
        assert_ne!(
            a as f64 / b as f64,
            884518693.4555248,
            "converting first rounds twice"
        );
        assert_eq!(
            div_round(1097605031417709898231, 468010604463),
            2345256754.763309
        );
        assert_eq!(div_round(0, 5), 0.0);
        assert_eq!(div_round(1, 3), 1.0 / 3.0);
        assert_eq!(
            div_round(u128::from(u64::MAX) * 100, 3),
            6.148914691236518e+20
        );
    }
}
