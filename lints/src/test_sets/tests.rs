use super::*;

fn cfg(toml_text: &str) -> TestSetsConfig {
    toml::from_str(toml_text).unwrap()
}

fn files(entries: &[(&str, &str)]) -> Files {
    entries
        .iter()
        .map(|(p, t)| (p.to_string(), Ok(t.as_bytes().to_vec())))
        .collect()
}

fn codes(o: &Outcome<Code>) -> Vec<&'static str> {
    o.diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| diag::Code::as_str(d.code))
        .collect()
}

const THREE: &str = r#"
[[lane]]
name = "split"
listing = "split.txt"
normalize = [{ regex = '^(Direct\w+)\.Split\.', replace = '$1.' }]
[[lane]]
name = "spawn"
listing = "spawn.xml"
normalize = [{ regex = '^(Direct\w+)\.Spawn\.', replace = '$1.' }]
[[lane]]
name = "tcp"
listing = "tcp.txt"
normalize = [{ regex = '^(Direct\w+)\.Tcp\.', replace = '$1.' }]
[[equal]]
lanes = ["split", "spawn", "tcp"]
"#;

const SPAWN_XML: &str = r#"<testsuite tests="2"><testcase name="DirectGLES.Spawn.A.one"/><testcase name="DirectGLES.Spawn.A.two"/></testsuite>"#;

#[test]
fn normalised_lanes_of_three_formats_compare_equal() {
    let f = files(&[
        (
            "split.txt",
            "Test project /b\n  Test #1: DirectGLES.Split.A.one\n  Test #2: DirectGLES.Split.A.two\nTotal Tests: 2\n",
        ),
        ("spawn.xml", SPAWN_XML),
        ("tcp.txt", "DirectGLES.Tcp.A.two\nDirectGLES.Tcp.A.one\n"),
    ]);
    let o = analyse(&f, &cfg(THREE));
    assert!(o.passed(), "{:?}", o.diags);
    assert_eq!(
        o.headline,
        "3 lanes / 1 equal, 0 subset: 0 missing, 0 uncovered, 0 exempt, 0 stale"
    );
}

#[test]
fn each_missing_name_is_reported_against_its_lane() {
    let f = files(&[
        (
            "split.txt",
            "DirectGLES.Split.A.one\nDirectGLES.Split.A.two\n",
        ),
        ("spawn.xml", SPAWN_XML),
        ("tcp.txt", "DirectGLES.Tcp.A.one\nDirectGLES.Tcp.A.three\n"),
    ]);
    let o = analyse(&f, &cfg(THREE));
    let msgs: Vec<&str> = o.diags.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(codes(&o), ["TSS001", "TSS001", "TSS001"], "{msgs:?}");
    assert!(msgs[0].starts_with("`DirectGLES.A.three` is in lane tcp but not in lane `split`"));
    assert!(msgs[2].starts_with("`DirectGLES.A.two` is in lane split, spawn but not in lane `tcp`"));
    assert_eq!(o.diags[2].location.as_ref().unwrap().path, "tcp.txt");
}

#[test]
fn an_empty_lane_is_red_not_equal() {
    let f = files(&[
        ("split.txt", "Test project /b\n\nTotal Tests: 0\n"),
        ("spawn.xml", SPAWN_XML),
        ("tcp.txt", "DirectGLES.Tcp.A.one\n"),
    ]);
    let o = analyse(&f, &cfg(THREE));
    assert_eq!(codes(&o), ["TSS002"]);
}

#[test]
fn a_rule_matching_nothing_and_a_fold_are_findings() {
    let f = files(&[
        ("split.txt", "DirectGLES.Split.A.one\nDirectGLES.A.one\n"),
        ("spawn.xml", SPAWN_XML),
        ("tcp.txt", "DirectGLES.A.one\nDirectGLES.A.two\n"),
    ]);
    let o = analyse(&f, &cfg(THREE));
    let c = codes(&o);
    assert!(c.contains(&"TSS008"), "{:?}", o.diags);
    assert!(o
        .diags
        .iter()
        .any(|d| d.message.contains("both normalise to `DirectGLES.A.one`")));
    assert!(o
        .diags
        .iter()
        .any(|d| d.message.contains("matches no name of tcp.txt")));
}

#[test]
fn config_errors_and_unreadable_lanes_stop_the_run() {
    let bad = cfg(
        "[[lane]]\nname = \"a\"\nlisting = \"a.txt\"\nnormalize = [{ regex = '(' }]\n[[equal]]\nlanes = [\"a\", \"b\"]\n",
    );
    let o = analyse(&files(&[("a.txt", "x\n")]), &bad);
    assert_eq!(codes(&o), ["TSS009", "TSS009"], "{:?}", o.diags);
    assert_eq!(o.headline, "could not run");
    let mut f = files(&[
        ("split.txt", "DirectGLES.Split.a\n"),
        ("spawn.xml", "<testsuite>"),
    ]);
    f.insert("tcp.txt".into(), Err(std::io::Error::other("No such file")));
    let o = analyse(&f, &cfg(THREE));
    let m: Vec<&str> = o.diags.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(codes(&o), ["TSS007", "TSS007"], "{m:?}");
    assert!(m[0].starts_with("spawn.xml:1:"), "{m:?}");
    assert_eq!(m[1], "tcp.txt: cannot read: No such file");
}

const SUB: &str = r#"
[[lane]]
name = "monolith"
listing = "mono.txt"
[[lane]]
name = "split"
listing = "split.txt"
normalize = [{ regex = '\.Split\.', replace = '.' }]
[[subset]]
of = "monolith"
within = ["split"]
exemptions = "exempt.txt"
"#;

fn sub(exempt: &str) -> Outcome<Code> {
    let f = files(&[
        ("mono.txt", "D.A.one\nD.A.two\nD.B.three\nD.B.four\n"),
        ("split.txt", "D.Split.A.one\nD.Split.A.two\n"),
        ("exempt.txt", exempt),
    ]);
    analyse(&f, &cfg(SUB))
}

#[test]
fn subset_with_exemptions() {
    let o = sub("# rows\nD.B.* single-backend Vulkan only, owner=alice\n");
    assert!(o.passed(), "{:?}", o.diags);
    assert!(
        o.headline.ends_with("0 uncovered, 2 exempt, 0 stale"),
        "{}",
        o.headline
    );
    let o = sub("D.B.three pending-fix until P8-B lands\n");
    assert_eq!(codes(&o), ["TSS003"]);
    assert!(o.diags[0]
        .message
        .starts_with("`D.B.four` of lane `monolith` is in none of split"));
}

#[test]
fn stale_unmatched_and_malformed_rows_are_red_at_their_line() {
    let o = sub("D.B.* mechanism x owner=a\nD.A.* mechanism covered owner=a\nD.Z.q mechanism gone owner=a\n");
    assert_eq!(codes(&o), ["TSS004", "TSS005"], "{:?}", o.diags);
    assert_eq!(o.diags[0].location.as_ref().unwrap().line, Some(2));
    assert!(o.diags[0]
        .message
        .contains("all 2 names it matches are now in split"));
    assert_eq!(o.diags[1].location.as_ref().unwrap().line, Some(3));
    let o = sub("D.B.* flaky x owner=a\nD.B.* mechanism\nD.B.* mechanism no owner here\nD.B.* mechanism ok owner=a\nD.B.* mechanism twice owner=b\n");
    let m: Vec<&str> = o.diags.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(codes(&o), ["TSS006", "TSS006", "TSS006", "TSS006"], "{m:?}");
    assert!(m[0].contains("reason class `flaky`"));
    assert!(m[1].contains("needs PATTERN REASON-CLASS REASON"));
    assert!(m[2].contains("names no owner"));
    assert!(m[3].contains("listed twice"));
}

#[test]
fn upstream_owner_forms_and_configured_classes() {
    assert!(sub("D.B.* pending-fix red on spawn (DEBTS.md row)\n").passed());
    let c = cfg(&format!("{SUB}reasons = [\"flaky\"]\nowner = '@\\w+'\n"));
    let f = files(&[
        ("mono.txt", "D.B.x\n"),
        ("split.txt", "D.Split.A.x\n"),
        ("exempt.txt", "D.B.x flaky slow @bob\n"),
    ]);
    let o = analyse(&f, &c);
    assert!(
        o.diags.iter().all(|d| d.code != Code::Tss006),
        "{:?}",
        o.diags
    );
}

#[test]
fn live_controls_trip_on_a_clean_workspace() {
    let f = files(&[
        ("mono.txt", "D.A.one\nD.B.x\n"),
        ("split.txt", "D.Split.A.one\n"),
        ("exempt.txt", "D.B.x mechanism y owner=a\n"),
    ]);
    let c = cfg(SUB);
    assert!(analyse(&f, &c).passed());
    let all = controls::live_controls(&f, &c, &|_| false);
    assert_eq!(all.len(), 2);
    assert!(all.iter().all(|x| x.ok()), "{all:?}");
    let neutered = controls::live_controls(&f, &c, &|n| n == "live-stale-exemption");
    assert!(!neutered[1].ok());
}
