//! A generator of large, realistic `adb logcat -v threadtime` captures for the parser benchmark:
//! MobileGL window lines (push build, every bracket) among other tags' noise, a banner, the verify
//! arming line, and the occasional multi-line/foreign record. Deterministic (a fixed LCG seed).

use std::fmt::Write as _;

/// Generation knobs.
#[derive(Debug, Clone, Copy)]
pub struct SynthSpec {
    pub lines: usize,
    /// One MobileGL window line every `window_every` lines (the rest is noise of other tags).
    pub window_every: usize,
    pub seed: u64,
}

impl Default for SynthSpec {
    fn default() -> Self {
        SynthSpec {
            lines: 2_000_000,
            window_every: 4,
            seed: 0x6d67_6374_6c00,
        }
    }
}

struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

const NOISE: &[(&str, &str)] = &[
    ("ActivityManager", "Start proc 20877:org.example.mgtrace/u0a211 for top-activity"),
    ("libEGL", "loaded /vendor/lib64/egl/libGLESv2_adreno.so"),
    ("Adreno-GSL", "<gsl_ldd_control:553>: ioctl fd 41 code 0xc0400913 (IOCTL_KGSL_GPUOBJ_ALLOC) failed: errno 12"),
    ("chatty", "uid=1000(system) batterystats-wo expire 3 lines"),
    ("SurfaceFlinger", "Frame rate changed to 120.00 Hz for layer org.example.mgtrace/org.example.mgtrace.MainActivity#0"),
    ("InputDispatcher", "channel 'b1c2 org.example.mgtrace/MainActivity (server)' ~ Channel is unrecoverably broken"),
];

/// Appends one push-build window line's message for window `k` (1-based) of period `period`.
pub fn window_message(out: &mut String, k: u64, period: u64, r: &mut impl FnMut(u64) -> u64) {
    let draws = 100_000 + r(5_000);
    let acc = draws * 9 + r(draws);
    let dpf = crate::fixed::Fixed2::ratio(draws, period).unwrap_or(crate::fixed::Fixed2(0));
    let apd = crate::fixed::Fixed2::ratio(acc, draws).unwrap_or(crate::fixed::Fixed2(0));
    let _ = write!(
        out,
        "MGPipe stats: frames={} window={period} draws={draws} draws/f={dpf} acc={acc} acc/draw={apd} bytes/f[buf={}.{:02} tex=97280.00 ubog=3072.00 ubon=0.00 vtxc=0.00 idxc=0.00 icmd=0.00 pmap=0.00 resid={}.{:02} csob-blob=102.40 seg=0.00] tex[emit=11400 box=11400 rect=0 jobs=11400] cso[csom={} csob={} mpr=0] emit[fbe=720 sve=31200 sse=0 sie=0 ctu=11400 trp=0 rsp=0 vbs=0 wrec=0 wrec/f=0.00 maxrec=0 maxcap=0 ringwraps=0 ringpads=0 ringwaits=0] wait[srv=0 srvpark=0 cli=0 clipark=0] gates[ers={}/{} etl={}/{} eub={}/{} mfp=0/0 mpm=0/0 mdt=0/0]",
        k * period,
        90_000 + r(10_000),
        r(100),
        3_900 + r(200),
        r(100),
        r(3),
        60_000 + r(5_000),
        draws - 5_000,
        5_000,
        7_000,
        draws - 7_000,
        6_500,
        draws - 6_500
    );
}

/// Generates the capture; returns (bytes, window lines written).
pub fn logcat(spec: SynthSpec) -> (Vec<u8>, usize) {
    let mut rng = Lcg(spec.seed);
    let mut s = String::with_capacity(spec.lines * 220);
    let period = 120;
    let mut windows = 0usize;
    let pid = 21377;
    let mut ms: u64 = 0;
    s.push_str("--------- beginning of main\n");
    let mut line = 1;
    let stamp = |s: &mut String, ms: u64, pid: u32, tid: u32, prio: char, tag: &str| {
        let t = ms / 1000;
        let _ = write!(
            s,
            "11-30 {:02}:{:02}:{:02}.{:03} {pid:5} {tid:5} {prio} {tag:<8}: ",
            10 + (t / 3600) % 12,
            (t / 60) % 60,
            t % 60,
            ms % 1000
        );
    };
    while line < spec.lines {
        ms += 1 + rng.below(7);
        let t = ms / 1000;
        let hdr = format!(
            "[{:02}:{:02}:{:02}] [Android MobileGLTraceRe/INFO]: ",
            10 + (t / 3600) % 12,
            (t / 60) % 60,
            t % 60
        );
        if line == 1 {
            stamp(&mut s, ms, pid, 21412, 'I', "MobileGL");
            s.push_str(&hdr);
            s.push_str("MGPipe stats: counters ON (MOBILEGL_PIPE_STATS), summary every 120 frames, JSON dump to /data/local/tmp/mgout/pipestats.json\n");
        } else if line == 2 {
            stamp(&mut s, ms, pid, 21412, 'I', "MobileGL");
            s.push_str(&hdr);
            s.push_str("MGPipe: verify armed - 63 fields, 69 verbs, fatal=1\n");
        } else if spec.window_every > 0 && line % spec.window_every == 0 {
            windows += 1;
            stamp(&mut s, ms, pid, 21412, 'I', "MobileGL");
            s.push_str(&hdr);
            window_message(&mut s, windows as u64, period, &mut |n| rng.below(n));
            s.push('\n');
        } else {
            let (tag, msg) = NOISE[rng.below(NOISE.len() as u64) as usize];
            stamp(&mut s, ms, 1543, 1602 + rng.below(40) as u32, 'I', tag);
            s.push_str(msg);
            s.push('\n');
        }
        line += 1;
    }
    (s.into_bytes(), windows)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn generated_log_parses_cleanly() {
        let (bytes, windows) = logcat(SynthSpec {
            lines: 2_000,
            window_every: 4,
            seed: 1,
        });
        let log = crate::Log::parse(std::path::Path::new("synth.logcat.txt"), &bytes).unwrap();
        assert_eq!(log.lines.total, 2_000);
        assert_eq!(log.window_count(), windows);
        assert_eq!(log.sessions.len(), 1);
        let s = &log.sessions[0];
        assert_eq!(s.complete_windows().len(), windows);
        assert!(s.mismatches().is_empty());
        assert_eq!(log.lines.bad_windows, 0);
        assert_eq!(log.lines.foreign + log.lines.markers + windows + 2, 2_000);
    }
}
