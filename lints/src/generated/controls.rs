//! The `generated` gate's controls. Canned: each negative control must trip with its own code
//! through [`judge_outputs`] / [`judge_pin`], each positive control stay clean. Live: on the
//! configured workspace, the real generator's output compared with a committed file mutated in
//! memory must be stale, and each pinned file with a probe line appended must break its pin.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;
use std::time::Duration;

use diag::{Control, Diag};

use super::cfg::{GeneratedConfig, PinConfig};
use super::check::{
    judge_outputs, judge_pin, read_pin, run_generator, validate, validate_pin, Code, Gen, GenRun,
    Output, Pin, PinKind, Table,
};
use crate::control::check::{Exit, RunResult};

const INC: &str = "MobileGL/MG_Pipe/generated/PipeFields.inc";
const PROBE: &str = "mgctl-live-probe";

fn gen(outputs: &[&str]) -> Gen {
    Gen {
        name: "canned".into(),
        at: 0,
        command: vec!["true".into()],
        outputs: outputs
            .iter()
            .filter_map(|o| Output::parse(o).ok())
            .collect(),
        timeout: Duration::from_secs(1),
    }
}

fn files(list: &[(&str, &str)]) -> BTreeMap<String, Vec<u8>> {
    list.iter()
        .map(|(k, v)| (k.to_string(), v.as_bytes().to_vec()))
        .collect()
}

fn ran(code: i32, output: &str, produced: &[(&str, &str)]) -> GenRun {
    GenRun {
        result: RunResult {
            exit: Exit::Code(code),
            output: output.into(),
            ms: 0,
        },
        produced: files(produced),
    }
}

fn keyed(rev_table: &[(&str, &str)]) -> Pin {
    Pin {
        file: "protocol.fbs".into(),
        at: 0,
        kind: PinKind::Keyed {
            key: regex::Regex::new(r"REVISION (\d+)").unwrap_or_else(|_| unreachable!()),
            key_file: "base.h".into(),
            table: Table::Inline(
                rev_table
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            ),
        },
        why: None,
    }
}

/// Runs every canned control; `neutered(name)` feeds that negative control its clean twin.
pub fn run_controls(neutered: &dyn Fn(&str) -> bool) -> Vec<Control> {
    let old = "X(Clear)\nX(Flush)\n";
    let new = "X(Clear)\nX(Present)\n";
    let mut out = Vec::new();
    let mut outputs =
        |name: &str, want: Code, g: Gen, committed: &[(&str, &str)], bad: GenRun, good: GenRun| {
            let run = if neutered(name) { good } else { bad };
            let d = judge_outputs(&g, &files(committed), &run);
            out.push(Control::from_diags(name, true, want, &d));
        };
    outputs(
        "stale-output",
        Code::Gen001,
        gen(&[INC]),
        &[(INC, old)],
        ran(0, "", &[(INC, new)]),
        ran(0, "", &[(INC, old)]),
    );
    outputs(
        "missing-output",
        Code::Gen002,
        gen(&[INC]),
        &[(INC, old)],
        ran(0, "", &[]),
        ran(0, "", &[(INC, old)]),
    );
    outputs(
        "glob-matches-nothing",
        Code::Gen003,
        gen(&["MobileGL/MG_Pipe/generated/*.inc"]),
        &[],
        ran(0, "", &[]),
        ran(0, "", &[(INC, old)]),
    );
    outputs(
        "uncommitted-output",
        Code::Gen004,
        gen(&["MobileGL/MG_Pipe/generated/*.inc"]),
        &[(INC, old)],
        ran(
            0,
            "",
            &[(INC, old), ("MobileGL/MG_Pipe/generated/New.inc", old)],
        ),
        ran(0, "", &[(INC, old)]),
    );
    outputs(
        "generator-fails",
        Code::Gen005,
        gen(&[INC]),
        &[(INC, old)],
        ran(1, "gen_pipe_fields.py: FillPoints.def:12: bad row\n", &[]),
        ran(0, "", &[(INC, old)]),
    );
    let h7 = super::check::digest(b"table A {}\n");
    let h8 = super::check::digest(b"table A { b: int; }\n");
    let pins = |name: &str, want: Code, pin: Pin, key: &str, bad: &str, good: &str| {
        let file = if neutered(name) { good } else { bad };
        let table = match &pin.kind {
            PinKind::Keyed {
                table: Table::Inline(t),
                ..
            } => t.clone(),
            _ => BTreeMap::new(),
        };
        let d = judge_pin(&pin, file.as_bytes(), key.as_bytes(), &table);
        Control::from_diags(name, true, want, &d)
    };
    out.push(pins(
        "schema-edit-without-bump",
        Code::Gen008,
        keyed(&[("7", &h7)]),
        "#define REVISION 7\n",
        "table A { b: int; }\n",
        "table A {}\n",
    ));
    out.push(pins(
        "plain-pin-mismatch",
        Code::Gen008,
        Pin {
            file: "a.txt".into(),
            at: 0,
            kind: PinKind::Plain(h7.clone()),
            why: None,
        },
        "",
        "table A { b: int; }\n",
        "table A {}\n",
    ));
    // a bump whose table row was forgotten; the clean twin is the pinned revision 7
    let bump = if neutered("revision-without-pin") {
        "#define REVISION 7\n"
    } else {
        "#define REVISION 8\n"
    };
    let d = judge_pin(
        &keyed(&[("7", &h7)]),
        b"table A {}\n",
        bump.as_bytes(),
        &BTreeMap::from([("7".to_string(), h7.clone())]),
    );
    out.push(Control::from_diags(
        "revision-without-pin",
        true,
        Code::Gen009,
        &d,
    ));
    out.push(pins(
        "key-matches-nothing",
        Code::Gen010,
        keyed(&[("7", &h7)]),
        if neutered("key-matches-nothing") {
            "#define REVISION 7\n"
        } else {
            "#define REVISON 7\n"
        },
        "table A {}\n",
        "table A {}\n",
    ));
    // positive controls: a fresh output, a bumped and pinned schema, CRLF hashing as LF
    let d = judge_outputs(
        &gen(&[INC]),
        &files(&[(INC, old)]),
        &ran(0, "", &[(INC, old)]),
    );
    out.push(Control::from_diags("fresh-output", false, Code::Gen001, &d));
    let table = BTreeMap::from([("7".to_string(), h7.clone()), ("8".to_string(), h8.clone())]);
    let d = judge_pin(
        &keyed(&[]),
        b"table A { b: int; }\r\n",
        b"#define REVISION 8\n",
        &table,
    );
    out.push(Control::from_diags(
        "bumped-and-pinned",
        false,
        Code::Gen008,
        &d,
    ));
    out
}

fn failed(name: String, detail: String) -> Control {
    Control {
        name,
        expect_trip: true,
        tripped: false,
        detail,
    }
}

/// One live control per configured generator (`live-gen-<name>`: it runs for real, once) and
/// pin (`live-pin-<file>`), on the workspace at `root`, never written. `neutered(name)` runs
/// that control without its mutation, so it cannot trip.
pub fn live_controls(
    root: &Path,
    gens: &[GeneratedConfig],
    pins: &[PinConfig],
    neutered: &dyn Fn(&str) -> bool,
) -> Vec<Control> {
    let mut out = Vec::new();
    let (specs, _) = validate(gens);
    for g in &specs {
        let name = format!("live-gen-{}", g.name);
        let (mut committed, run) = match run_generator(root, g, Arc::new(AtomicUsize::new(0))) {
            Ok(r) => r,
            Err(e) => {
                out.push(failed(
                    name,
                    format!("generator `{}` could not run: {e}", g.name),
                ));
                continue;
            }
        };
        let Some((rel, bytes)) = committed
            .iter_mut()
            .find(|(r, _)| run.produced.contains_key(*r))
        else {
            out.push(failed(
                name,
                format!(
                    "generator `{}` ({}) wrote none of its committed outputs, so staleness cannot be shown",
                    g.name,
                    run.result.status()
                ),
            ));
            continue;
        };
        let rel = rel.clone();
        if !neutered(&name) {
            bytes.extend_from_slice(format!("{PROBE}\n").as_bytes());
        }
        let d: Vec<Diag<Code>> = judge_outputs(g, &committed, &run)
            .into_iter()
            .filter(|d| d.message.contains(PROBE) && d.message.contains(&rel))
            .collect();
        out.push(Control::from_diags(&name, true, Code::Gen001, &d));
    }
    for p in pins {
        let Ok(pin) = validate_pin(p) else {
            continue; // the gate reports it
        };
        let name = format!("live-pin-{}", pin.file);
        let (mut file, key, table) = match read_pin(root, &pin) {
            Ok(r) => r,
            Err(d) => {
                out.push(failed(name, d.message));
                continue;
            }
        };
        if !neutered(&name) {
            file.extend_from_slice(format!("\n// {PROBE}\n").as_bytes());
        }
        let d = judge_pin(&pin, &file, &key, &table);
        out.push(Control::from_diags(&name, true, Code::Gen008, &d));
    }
    out
}
