//! The process-wide table of unknown window names is bounded (issue 16). Its own test binary:
//! filling the table would change what every other test in the same process keeps.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use stats_viewer::window::UNKNOWN_NAMES_CAP;
use stats_viewer::{Log, Value, Window};

fn line(i: usize) -> String {
    format!("MGPipe stats: frames={i} window=1 draws=1 draws/f=1.00 acc=1 acc/draw=1.00 k{i}=7 g{i}[a=1 b=2] gates[ers=1/1]")
}

#[test]
fn unknown_names_stop_at_the_cap_and_the_rest_is_counted() {
    // Each line brings two new names (`k{i}` and `g{i}`; `a`, `b` are new once).
    let first = Window::parse(&line(0)).unwrap();
    assert_eq!(first.dropped_keys, 0);
    assert_eq!(first.get("k0"), Some(&Value::Int(7)));
    assert_eq!(first.get("g0.b"), Some(&Value::Int(2)));
    let mut i = 1;
    loop {
        let w = Window::parse(&line(i)).unwrap();
        if w.dropped_keys > 0 {
            break;
        }
        i += 1;
        assert!(i < UNKNOWN_NAMES_CAP, "the table never filled");
    }
    // Full: a new key drops one field, a new group drops its two fields; known and already
    // kept names still parse.
    let w = Window::parse(&line(i + 1)).unwrap();
    assert_eq!(w.dropped_keys, 3);
    assert_eq!(w.draws, 1);
    assert_eq!(w.gate("ers"), Some((1, 1)));
    assert_eq!(w.get(&format!("k{}", i + 1)), None);
    let again = Window::parse(&line(0)).unwrap();
    assert_eq!(
        (again.dropped_keys, again.get("k0")),
        (0, Some(&Value::Int(7)))
    );

    // The log counts what its windows dropped, and the summary says so.
    let text: String = (i + 1..i + 5)
        .map(|k| format!("[10:00:01] [Linux t/INFO]: {}\n", line(k)))
        .collect();
    let log = Log::parse(Path::new("mobilegl.log"), text.as_bytes()).unwrap();
    assert_eq!(log.lines.unknown_keys_dropped, 12);
    let mut out = Vec::new();
    stats_viewer::report::summary_text(&log, Default::default(), &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    let json = stats_viewer::report::log_json(&log, Default::default());
    assert_eq!(json["lines"]["unknown_keys_dropped"], 12);
    assert!(
        out.contains("unknown keys dropped: 12 (window fields whose name arrived after 4096 distinct unknown names were kept)"),
        "{out}"
    );
}
