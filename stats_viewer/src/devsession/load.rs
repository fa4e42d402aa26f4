//! Reading a session directory: the only I/O of `bench session`. Every file is read once; role
//! logs are parsed (windows, Fatal lines) and scanned for the arm markers, arms in parallel.

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use super::proof::Markers;
use crate::benchmark::{run_number, BenchmarkFile};
use crate::error::{json_error, Error};
use crate::session::Log;

/// Which of the two upstream layouts the directory is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Layout {
    /// `tools/device_bench/p6`: `session-summary.json` + `<NN>-<case>-<backend>-<transport>-r<N>/`.
    P6,
    /// `tools/device_bench/disagg`: `summary.json` + `<workload>/<arm>-r<rep>/`.
    Disagg,
}

/// What an arm claims to be: the question its own log has to answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Transport {
    Monolith,
    Inproc,
    /// A second process (`spawn`, `spawn+shm`, `spawn+tcp`): the server role runs elsewhere.
    Spawn,
}

/// Session-level facts: the label and the reboot evidence.
#[derive(Debug, Clone, Default)]
pub struct SessionMeta {
    pub label: Option<String>,
    /// `--reboot` was asked for (`reboot_requested_utc` present).
    pub reboot: bool,
    pub boot_before: Option<String>,
    pub boot_after: Option<String>,
}

/// One benchmark file of an arm, with when it was written.
#[derive(Debug, Clone)]
pub struct Bench {
    /// Shown name, relative to the session directory.
    pub shown: String,
    pub file: BenchmarkFile,
    /// Modification time, seconds since the epoch.
    pub mtime: Option<i64>,
    /// A `transport` the file names, if it names one.
    pub transport: Option<String>,
}

/// A role log: parsed, and its marker lines.
#[derive(Debug, Clone)]
pub struct RoleLog {
    pub shown: String,
    pub log: Log,
    pub markers: Markers,
}

/// Everything one arm's folder holds.
#[derive(Debug, Clone)]
pub struct ArmInput {
    /// Position in the session (interleaved order kept), 1-based.
    pub order: usize,
    /// Folder name (`01-case-DirectGLES-spawn-r3`).
    pub label: String,
    /// Folder, relative to the session directory.
    pub dir: String,
    pub case: String,
    pub backend: String,
    /// The transport as labelled (`spawn+shm`, `inproc`, …).
    pub transport_label: String,
    pub transport: Transport,
    pub started: Option<i64>,
    pub started_text: Option<String>,
    pub boot_id: Option<String>,
    /// `pin-before.txt` / `pin-after.txt` text (None: no file), and the recorded exit codes.
    pub pin_before: Option<String>,
    pub pin_after: Option<String>,
    pub pin_before_rc: Option<i64>,
    pub pin_after_rc: Option<i64>,
    /// Pins are part of this layout's protocol (P6); the matrix runs unpinned.
    pub pins_required: bool,
    pub client: Option<RoleLog>,
    pub server: Option<RoleLog>,
    /// `benchmark-run1..N.json`, by run number.
    pub runs: Vec<Bench>,
    /// `benchmark.json`, the file the runner's result directory leaves behind.
    pub result: Option<Bench>,
    /// The PipeStats JSON dumps present (client, server, the TCP server's), as shown.
    pub dumps: Vec<(String, crate::dump::Dump)>,
    /// `linkmetrics-lines.txt`: shown name and text.
    pub link_lines: Option<(String, String)>,
}

/// A whole session directory.
#[derive(Debug, Clone)]
pub struct SessionInput {
    pub dir: PathBuf,
    pub layout: Layout,
    pub meta: SessionMeta,
    pub arms: Vec<ArmInput>,
}

fn read(path: &Path) -> Result<Vec<u8>, Error> {
    std::fs::read(path).map_err(|e| Error::Read {
        path: path.to_path_buf(),
        line: 0,
        reason: e.to_string(),
    })
}

fn read_json(path: &Path) -> Result<Json, Error> {
    let bytes = read(path)?;
    serde_json::from_slice(&bytes).map_err(|e| json_error(path, &e))
}

fn text_field(v: &Json, k: &str) -> Option<String> {
    match v.get(k)? {
        Json::String(s) => Some(s.clone()),
        Json::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Reads DIR as whichever layout it is; errors name the file (exit 2 at the edge).
pub fn load(dir: &Path) -> Result<SessionInput, Error> {
    if !dir.is_dir() {
        return Err(Error::Empty {
            path: dir.to_path_buf(),
            reason: "not a directory".into(),
        });
    }
    let p6 = dir.join("session-summary.json");
    let matrix = dir.join("summary.json");
    let mut input = if p6.is_file() {
        load_p6(dir, &p6)?
    } else if matrix.is_file() {
        load_disagg(dir, &matrix)?
    } else {
        return Err(Error::Empty {
            path: dir.to_path_buf(),
            reason: "neither session-summary.json (P6 session) nor summary.json (disagg matrix): not a session directory".into(),
        });
    };
    // The role logs dominate the cost: parse arms in parallel, results in session order.
    let dirp = dir.to_path_buf();
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8);
    let chunk = input.arms.len().div_ceil(threads).max(1);
    let results: Vec<Result<(), Error>> = std::thread::scope(|s| {
        let handles: Vec<_> = input
            .arms
            .chunks_mut(chunk)
            .map(|arms| {
                let dirp = &dirp;
                s.spawn(move || {
                    for a in arms {
                        fill_arm(dirp, a)?;
                    }
                    Ok(())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(Error::Empty {
                        path: dirp.clone(),
                        reason: "internal error: an arm reader panicked".into(),
                    })
                })
            })
            .collect()
    });
    for r in results {
        r?;
    }
    if input.arms.is_empty() {
        return Err(Error::Empty {
            path: dir.to_path_buf(),
            reason: "the session lists no arm: nothing to compare".into(),
        });
    }
    Ok(input)
}

/// `<NN>-<case>-<backend>-<transport>-r<N>` → (NN, case, backend, transport).
fn split_p6_name(name: &str) -> Option<(usize, String, String, String)> {
    let (rest, reps) = name.rsplit_once("-r")?;
    reps.parse::<u32>().ok()?;
    let (rest, transport) = rest.rsplit_once('-')?;
    let (rest, backend) = rest.rsplit_once('-')?;
    let (nn, case) = rest.split_once('-')?;
    Some((
        nn.parse().ok()?,
        case.into(),
        backend.into(),
        transport.into(),
    ))
}

fn transport_of(label: &str, path: &Path) -> Result<(Transport, String), Error> {
    Ok(match label {
        "monolith" => (Transport::Monolith, "monolith".into()),
        "inproc" => (Transport::Inproc, "inproc".into()),
        "spawn" => (Transport::Spawn, "spawn".into()),
        "shm" | "spawn+shm" => (Transport::Spawn, "spawn+shm".into()),
        "tcp" | "spawn+tcp" | "spawn+tcp-local" => (Transport::Spawn, "spawn+tcp".into()),
        other => {
            return Err(Error::BadField {
                path: path.to_path_buf(),
                field: "transport".into(),
                reason: format!(
                    "`{other}` is not a transport (monolith, inproc, spawn, spawn+shm, spawn+tcp)"
                ),
            })
        }
    })
}

fn load_p6(dir: &Path, summary_path: &Path) -> Result<SessionInput, Error> {
    let summary = read_json(summary_path)?;
    let meta = SessionMeta {
        label: text_field(&summary, "label"),
        reboot: summary
            .get("reboot_requested_utc")
            .is_some_and(|v| !v.is_null())
            || summary
                .get("rebooted_clean")
                .is_some_and(|v| v.as_bool() == Some(true)),
        boot_before: text_field(&summary, "boot_id_before"),
        boot_after: text_field(&summary, "boot_id"),
    };
    let listing = std::fs::read_dir(dir).map_err(|e| Error::Read {
        path: dir.to_path_buf(),
        line: 0,
        reason: e.to_string(),
    })?;
    let mut arms = Vec::new();
    for entry in listing {
        let entry = entry.map_err(|e| Error::Read {
            path: dir.to_path_buf(),
            line: 0,
            reason: e.to_string(),
        })?;
        if !entry.path().is_dir() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some((nn, case, backend, transport)) = split_p6_name(&name) else {
            continue;
        };
        let arm_json_path = entry.path().join("arm-summary.json");
        let arm_json = if arm_json_path.is_file() {
            Some(read_json(&arm_json_path)?)
        } else {
            None
        };
        let field = |k: &str| arm_json.as_ref().and_then(|j| text_field(j, k));
        let int = |k: &str| {
            arm_json
                .as_ref()
                .and_then(|j| j.get(k))
                .and_then(Json::as_i64)
        };
        let transport_text = field("transport").unwrap_or(transport);
        let (kind, transport_label) = transport_of(&transport_text, &arm_json_path)?;
        let started_text = field("started_utc");
        arms.push(ArmInput {
            order: nn,
            label: name.clone(),
            dir: name.clone(),
            case: field("case").unwrap_or(case),
            backend: field("backend").unwrap_or(backend),
            transport_label,
            transport: kind,
            started: started_text.as_deref().and_then(parse_utc),
            started_text,
            boot_id: field("boot_id"),
            pin_before: None,
            pin_after: None,
            pin_before_rc: int("pin_before_rc"),
            pin_after_rc: int("pin_after_rc"),
            pins_required: true,
            client: None,
            server: None,
            runs: Vec::new(),
            result: None,
            dumps: Vec::new(),
            link_lines: None,
        });
    }
    arms.sort_by(|a, b| a.order.cmp(&b.order).then_with(|| a.label.cmp(&b.label)));
    Ok(SessionInput {
        dir: dir.to_path_buf(),
        layout: Layout::P6,
        meta,
        arms,
    })
}

fn load_disagg(dir: &Path, summary_path: &Path) -> Result<SessionInput, Error> {
    let summary = read_json(summary_path)?;
    let runs = summary
        .get("runs")
        .and_then(Json::as_array)
        .ok_or_else(|| Error::BadField {
            path: summary_path.to_path_buf(),
            field: "runs".into(),
            reason: "missing or not an array".into(),
        })?;
    let mut arms = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        if text_field(r, "mode").is_some_and(|m| m != "benchmark") {
            continue; // the ssim lane takes no timing
        }
        let need = |k: &str| {
            text_field(r, k).ok_or_else(|| Error::BadField {
                path: summary_path.to_path_buf(),
                field: format!("runs[{i}].{k}"),
                reason: "missing".into(),
            })
        };
        let (workload, arm, rep) = (need("workload")?, need("arm")?, need("rep")?);
        let (kind, transport_label) = transport_of(&arm, summary_path)?;
        let folder = format!("{workload}/{arm}-r{rep}");
        let started_text = text_field(r, "started_utc");
        arms.push(ArmInput {
            order: arms.len() + 1,
            label: format!("{workload}-{transport_label}-r{rep}"),
            dir: folder,
            case: workload,
            backend: text_field(r, "backend").unwrap_or_else(|| "?".into()),
            transport_label,
            transport: kind,
            started: started_text.as_deref().and_then(parse_utc),
            started_text,
            boot_id: None,
            pin_before: None,
            pin_after: None,
            pin_before_rc: None,
            pin_after_rc: None,
            pins_required: false,
            client: None,
            server: None,
            runs: Vec::new(),
            result: None,
            dumps: Vec::new(),
            link_lines: None,
        });
    }
    Ok(SessionInput {
        dir: dir.to_path_buf(),
        layout: Layout::Disagg,
        meta: SessionMeta {
            label: text_field(&summary, "label"),
            ..SessionMeta::default()
        },
        arms,
    })
}

fn mtime(path: &Path) -> Option<i64> {
    let t = std::fs::metadata(path).ok()?.modified().ok()?;
    match t.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_secs()).ok(),
        Err(e) => i64::try_from(e.duration().as_secs()).ok().map(|s| -s),
    }
}

#[derive(serde::Deserialize)]
struct Names {
    transport: Option<String>,
}

fn bench(root: &Path, path: &Path) -> Result<Bench, Error> {
    let bytes = read(path)?;
    let file = BenchmarkFile::parse(path, &bytes)?;
    let names: Names = serde_json::from_slice(&bytes).map_err(|e| json_error(path, &e))?;
    Ok(Bench {
        shown: path
            .strip_prefix(root)
            .unwrap_or(path)
            .display()
            .to_string(),
        file,
        mtime: mtime(path),
        transport: names.transport,
    })
}

fn role_log(root: &Path, path: &Path) -> Result<Option<RoleLog>, Error> {
    if !path.is_file() {
        return Ok(None);
    }
    let bytes = read(path)?;
    let log = Log::parse(path, &bytes)?;
    Ok(Some(RoleLog {
        shown: path
            .strip_prefix(root)
            .unwrap_or(path)
            .display()
            .to_string(),
        markers: Markers::scan(&bytes),
        log,
    }))
}

fn fill_arm(root: &Path, a: &mut ArmInput) -> Result<(), Error> {
    let d = root.join(&a.dir);
    if !d.is_dir() {
        return Ok(()); // no evidence at all: the analysis voids it (SES005)
    }
    let text = |name: &str| -> Result<Option<String>, Error> {
        let p = d.join(name);
        if !p.is_file() {
            return Ok(None);
        }
        Ok(Some(String::from_utf8_lossy(&read(&p)?).into_owned()))
    };
    a.pin_before = text("pin-before.txt")?;
    a.pin_after = text("pin-after.txt")?;
    a.client = match role_log(root, &d.join("mobilegl.client.log"))? {
        Some(l) => Some(l),
        // A monolith (one role) writes the plain name.
        None => role_log(root, &d.join("mobilegl.log"))?,
    };
    a.server = role_log(root, &d.join("mobilegl.server.log"))?;
    let mut runs = Vec::new();
    let listing = std::fs::read_dir(&d).map_err(|e| Error::Read {
        path: d.clone(),
        line: 0,
        reason: e.to_string(),
    })?;
    for entry in listing.flatten() {
        let p = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("benchmark-run") && name.ends_with(".json") {
            if let Some(n) = run_number(&p) {
                runs.push((n, p));
            }
        }
    }
    runs.sort();
    for (_, p) in runs {
        a.runs.push(bench(root, &p)?);
    }
    let result = d.join("benchmark.json");
    if result.is_file() {
        a.result = Some(bench(root, &result)?);
    }
    let shown = |p: &Path| p.strip_prefix(root).unwrap_or(p).display().to_string();
    for name in [
        "pipestats.client.json",
        "pipestats.server.json",
        "tcp-server-pipestats.json",
    ] {
        let p = d.join(name);
        if p.is_file() {
            // A dump that does not parse is an error naming it, never a silently smaller total.
            a.dumps
                .push((shown(&p), crate::dump::Dump::parse(&p, &read(&p)?)?));
        }
    }
    let lm = d.join("linkmetrics-lines.txt");
    if lm.is_file() {
        a.link_lines = Some((
            shown(&lm),
            String::from_utf8_lossy(&read(&lm)?).into_owned(),
        ));
    }
    Ok(())
}

/// `YYYY-MM-DDTHH:MM:SS[.frac][Z|±HH:MM]` → seconds since the epoch (what the runner writes).
pub(crate) fn parse_utc(s: &str) -> Option<i64> {
    let s = s.trim();
    let num = |a: usize, b: usize| s.get(a..b)?.parse::<i64>().ok();
    if s.len() < 19
        || s.as_bytes()
            .get(10)
            .is_none_or(|c| *c != b'T' && *c != b' ')
    {
        return None;
    }
    let (y, mo, d) = (num(0, 4)?, num(5, 7)?, num(8, 10)?);
    let (h, mi, sec) = (num(11, 13)?, num(14, 16)?, num(17, 19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let mut rest = &s[19..];
    if let Some(r) = rest.strip_prefix('.') {
        let digits = r.bytes().take_while(u8::is_ascii_digit).count();
        rest = &r[digits..];
    }
    let offset = match rest {
        "" | "Z" | "z" => 0,
        _ => {
            let sign = match rest.as_bytes().first()? {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let oh = rest.get(1..3)?.parse::<i64>().ok()?;
            let om = rest.get(4..6)?.parse::<i64>().ok()?;
            sign * (oh * 3600 + om * 60)
        }
    };
    // Days from the civil date (Howard Hinnant's algorithm).
    let y2 = if mo <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + h * 3600 + mi * 60 + sec - offset)
}

/// Seconds since the epoch as `YYYY-MM-DDTHH:MM:SSZ`.
pub(crate) fn format_utc(t: i64) -> String {
    let days = t.div_euclid(86_400);
    let secs = t.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}
