use super::controls::run_controls;
use super::*;

#[test]
fn every_control_behaves_and_each_negative_one_trips_its_own_code() {
    let controls = run_controls(&|_| false);
    assert!(controls.len() >= 12, "{controls:?}");
    for c in &controls {
        assert_eq!(c.tripped, c.expect_trip, "{}: {}", c.name, c.detail);
    }
    let proven = diag::controls_can_fail(&|n: &dyn Fn(&str) -> bool| run_controls(n));
    assert!(matches!(proven, Ok(n) if n >= 11), "{proven:?}");
}

fn compile(toml_text: &str) -> Census {
    #[derive(serde::Deserialize)]
    struct One {
        census: Vec<cfg::CensusConfig>,
    }
    let one: One = toml::from_str(toml_text).expect("config");
    Census::compile(&one.census[0]).expect("compiles")
}

#[test]
fn sites_and_entries_carry_their_real_lines() {
    let c = compile(
        r#"
[[census]]
name = "n"
paths = ["*.cpp"]
registry = { file = "r.def", entry = '(?m)^ROW\((\w+)\)' }
[[census.site]]
pattern = 'COUNT\((\w+)\)'
"#,
    );
    let src = vec![Source {
        rel: "a.cpp".into(),
        text: b"/* COUNT(A)\n */\nint x;\nCOUNT(B);\n".to_vec(),
    }];
    let (d, t) = analyse(&c, Some(b"// ROW(Z)\nROW(A)\n\nROW(B)\n"), &src);
    assert_eq!(t.entries, 2);
    assert_eq!(t.sites, 1);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].code, Code::Cen001);
    assert_eq!(d[0].location.as_ref().and_then(|l| l.line), Some(2));
}

#[test]
fn a_bad_pattern_or_a_missing_group_is_a_config_error() {
    #[derive(serde::Deserialize)]
    struct One {
        census: Vec<cfg::CensusConfig>,
    }
    for (entry, site) in [("(x", "A"), ("x", "(A)"), ("(x)", "(A)(B)")] {
        let text = format!(
            "[[census]]\nname = \"n\"\npaths = [\"*\"]\nregistry = {{ file = \"f\", entry = '{entry}' }}\n[[census.site]]\npattern = '{site}'\n"
        );
        let one: One = toml::from_str(&text).expect("config");
        let e = Census::compile(&one.census[0]).expect_err(&text);
        assert_eq!(e.code, Code::Cen009, "{text}");
    }
}
