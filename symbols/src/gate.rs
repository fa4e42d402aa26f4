//! Gate policy over a [`Diff`]: upstream's three `--fail-on-*` flags plus an allow-list of the
//! changes a commit admits. Pure functions; the caller decides exit codes.

use std::path::Path;

use serde::Serialize;

use crate::diff::{Bucket, Change, Diff};
use crate::error::{Error, Result};

/// One admitted change: a bucket, the normalised demangled name, and where it was written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AllowEntry {
    pub bucket: Bucket,
    pub name: String,
    /// `allow.txt:3` or `--allow-resize`.
    pub origin: String,
}

/// Parse an allow file: one entry per line, `[resized|added|removed|renamed] NAME` (a line
/// without a bucket word admits a resize), `#` comments and blank lines ignored.
pub fn parse_allow(text: &str, path: &Path) -> Result<Vec<AllowEntry>> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let origin = format!("{}:{}", path.display(), i + 1);
        let (bucket, name) = match line.split_once(char::is_whitespace) {
            Some((w, rest)) => match w.parse::<Bucket>() {
                Ok(b) => (b, rest.trim()),
                Err(_) => (Bucket::Resized, line),
            },
            None => (Bucket::Resized, line),
        };
        if name.is_empty() {
            return Err(Error::BadAllowLine {
                path: path.to_path_buf(),
                line: i + 1,
                reason: "bucket word without a symbol name".into(),
            });
        }
        out.push(AllowEntry {
            bucket,
            name: name.to_string(),
            origin,
        });
    }
    Ok(out)
}

/// An allow file larger than this is refused: a real one lists a commit's admissions.
pub const MAX_ALLOW_BYTES: u64 = 16 << 20;

/// Read and parse an allow file. `shown` is how errors name it. At most [`MAX_ALLOW_BYTES`]
/// are read (a FIFO or `/dev/zero` cannot exhaust memory), and text that is not UTF-8 is an
/// error at its line and column.
pub fn load_allow(path: &Path, shown: &Path) -> Result<Vec<AllowEntry>> {
    use std::io::Read;
    let io = |source| Error::Io {
        path: shown.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    file.take(MAX_ALLOW_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_ALLOW_BYTES {
        return Err(Error::TooLarge {
            path: shown.to_path_buf(),
            limit: MAX_ALLOW_BYTES,
        });
    }
    let text = match std::str::from_utf8(&bytes) {
        Ok(t) => t,
        Err(e) => {
            let good = &bytes[..e.valid_up_to()];
            let line_start = good.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let column = String::from_utf8_lossy(&good[line_start..]).chars().count() + 1;
            return Err(Error::NotText {
                path: shown.to_path_buf(),
                line: good.iter().filter(|&&b| b == b'\n').count() + 1,
                column,
                byte: bytes.get(e.valid_up_to()).copied().unwrap_or(0),
            });
        }
    };
    parse_allow(text, shown)
}

/// Render every change the gates see as allow-file lines (`mgctl symbols diff --emit-allow`):
/// the starting point of an admission list, to be trimmed to what the commit really admits.
pub fn allow_lines(diff: &Diff) -> String {
    let mut out = String::from("# mgctl symbols allow file: one admitted change per line, `[resized|added|removed|renamed] NAME`\n");
    for b in [
        Bucket::Added,
        Bucket::Removed,
        Bucket::Resized,
        Bucket::Renamed,
    ] {
        let mut rows: Vec<&Change> = diff.gate_view().get(b).iter().collect();
        rows.sort_by(|x, y| x.name.cmp(&y.name));
        for c in rows {
            out.push_str(&format!("{} {}\n", b.as_str(), c.name));
        }
    }
    out
}

#[derive(Debug, Clone, Default)]
pub struct GateOptions {
    pub fail_on_symbol_set_change: bool,
    pub fail_on_text_delta: bool,
    pub fail_on_added_bytes: Option<u64>,
    pub allow: Vec<AllowEntry>,
    pub strict_allow: bool,
}

impl GateOptions {
    pub fn any(&self) -> bool {
        self.fail_on_symbol_set_change
            || self.fail_on_text_delta
            || self.fail_on_added_bytes.is_some()
            || self.strict_allow
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Admitted {
    pub entry: AllowEntry,
    pub change: Change,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct GateOutcome {
    /// One line per fired gate, upstream's texts first.
    pub reasons: Vec<String>,
    /// Changes an allow entry admitted.
    pub admitted: Vec<Admitted>,
    /// Allow entries that matched nothing.
    pub stale: Vec<AllowEntry>,
    /// Gate-view changes not admitted: [added, removed, resized, renamed].
    pub unadmitted: [usize; 4],
}

impl GateOutcome {
    pub fn failed(&self) -> bool {
        !self.reasons.is_empty()
    }
}

/// Evaluate the gates on the threshold-0, unfiltered view of the diff (spec §1.4 step 4, with
/// upstream's `--only-names` weakening fixed).
pub fn evaluate(diff: &Diff, g: &GateOptions) -> GateOutcome {
    let mut out = GateOutcome::default();
    let view = diff.gate_view();
    let mut used = vec![false; g.allow.len()];
    let order = [
        Bucket::Added,
        Bucket::Removed,
        Bucket::Resized,
        Bucket::Renamed,
    ];
    for (slot, b) in order.iter().enumerate() {
        for c in view.get(*b) {
            let hit = g
                .allow
                .iter()
                .position(|e| e.bucket == *b && *e.name == *c.name);
            match hit {
                Some(i) => {
                    used[i] = true;
                    out.admitted.push(Admitted {
                        entry: g.allow[i].clone(),
                        change: c.clone(),
                    });
                }
                None => out.unadmitted[slot] += 1,
            }
        }
    }
    out.stale = g
        .allow
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|(e, _)| e.clone())
        .collect();
    let [a, r, z, n] = out.unadmitted;
    if g.fail_on_symbol_set_change && a + r + z + n > 0 {
        out.reasons.push(format!(
            "--fail-on-symbol-set-change: {a} symbol(s) added, {r} removed, {z} resized, {n} renamed. None of that is a property of the build machine, so any change here is a source change - name each one in the commit message or fix it."
        ));
    }
    let d = diff.text().delta;
    if g.fail_on_text_delta && d != 0 {
        out.reasons
            .push(format!("--fail-on-text-delta: .text moved by {d:+} bytes."));
    }
    match g.fail_on_added_bytes {
        Some(0) if d != 0 && !g.fail_on_text_delta => out.reasons.push(format!(
            "--fail-on-added-bytes 0: .text moved by {d:+} bytes (a budget of 0 means the section must be byte-identical, in either direction)."
        )),
        Some(n) if n > 0 && d > 0 && d.unsigned_abs() > n => {
            out.reasons.push(format!("--fail-on-added-bytes {n}: .text grew by {d} bytes."))
        }
        _ => {}
    }
    if g.strict_allow && !out.stale.is_empty() {
        let list: Vec<String> = out
            .stale
            .iter()
            .map(|e| format!("{} {} ({})", e.bucket.as_str(), e.name, e.origin))
            .collect();
        out.reasons.push(format!(
            "--strict-allow: {} allow entr{} matched nothing: {}",
            out.stale.len(),
            if out.stale.len() == 1 { "y" } else { "ies" },
            list.join("; ")
        ));
    }
    out
}
