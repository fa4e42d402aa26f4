use std::collections::BTreeSet;

use super::cfg::{PartitionRow, Role};
use super::controls::run_controls;
use super::*;

fn row(prefix: &str, role: Role) -> PartitionRow {
    PartitionRow {
        prefix: prefix.into(),
        role,
        why: String::new(),
    }
}

#[test]
fn the_longest_row_wins_and_an_object_row_matches_exactly() {
    let rows = vec![
        row("MobileGL/MG_Remote/", Role::Server),
        row("MobileGL/MG_Remote/Client/", Role::Frontend),
        row("MobileGL/Init.cpp.o", Role::Shared),
    ];
    let role = |p: &str| classify(p, &rows).map(|(_, r)| r.role);
    assert_eq!(
        role("MobileGL/MG_Remote/Client/Session.cpp.o"),
        Some(Role::Frontend)
    );
    assert_eq!(
        role("MobileGL/MG_Remote/Wire/Codec.cpp.o"),
        Some(Role::Server)
    );
    assert_eq!(role("MobileGL/Init.cpp.o"), Some(Role::Shared));
    assert_eq!(role("MobileGL/Init.cpp.o.bak"), None);
    assert_eq!(role("MobileGL/MG_State/Core.cpp.o"), None);
}

fn obj(rel: &str, defined: &[&str], undefined: &[&str]) -> Object {
    Object {
        rel: rel.into(),
        defined: defined.iter().map(|s| s.to_string()).collect(),
        undefined: undefined.iter().map(|s| s.to_string()).collect(),
    }
}

/// (SERVER undefined − SERVER defined − SHARED defined) ∩ FRONTEND defined, with who refers
/// and who defines; a name nobody in FRONTEND defines (libc) is no reach.
#[test]
fn reach_is_the_set_arithmetic_with_its_attribution() {
    let s1 = obj("s1.o", &["a"], &["f1", "f2", "u", "a", "memcpy"]);
    let s2 = obj("s2.o", &[], &["f1"]);
    let f = obj("f.o", &["f1", "f2", "u"], &[]);
    let f2 = obj("g.o", &["f1"], &[]);
    let sh = obj("sh.o", &["u"], &[]);
    let objects = [
        (&s1, Role::Server),
        (&s2, Role::Server),
        (&f, Role::Frontend),
        (&f2, Role::Frontend),
        (&sh, Role::Shared),
    ];
    let r = reach(&objects);
    assert_eq!(r.keys().collect::<Vec<_>>(), ["f1", "f2"]);
    let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(r["f1"].referrers, set(&["s1.o", "s2.o"]));
    assert_eq!(r["f1"].definers, set(&["f.o", "g.o"]));
}

#[test]
fn a_baseline_keeps_names_with_spaces_and_drops_notes_and_comments() {
    let b = Baseline::parse(
        "b.txt",
        "# header\n\nstd::vector<int, std::allocator<int> >::push_back(int const&)  # P13\nMG::F()\n",
    );
    let names: Vec<_> = b.symbols.keys().cloned().collect();
    assert_eq!(
        names,
        [
            "MG::F()",
            "std::vector<int, std::allocator<int> >::push_back(int const&)"
        ]
    );
    assert_eq!(b.symbols["MG::F()"], 4);
}

#[test]
fn a_cmake_cache_gives_its_typed_entries() {
    let c = gather::parse_cache(
        "# comment\n//help\nMOBILEGL_BUILD_DISAGGREGATED:BOOL=ON\nCMAKE_CXX_FLAGS:STRING=-O2 -g\nbroken line\n",
    );
    assert_eq!(c["MOBILEGL_BUILD_DISAGGREGATED"], "ON");
    assert_eq!(c["CMAKE_CXX_FLAGS"], "-O2 -g");
    assert_eq!(c.len(), 2);
}

#[test]
fn every_control_behaves_and_each_negative_one_can_be_neutered() {
    let all = run_controls(&|_| false);
    assert!(all.iter().all(|c| c.ok()), "{all:#?}");
    let negatives: Vec<_> = all
        .iter()
        .filter(|c| c.expect_trip)
        .map(|c| c.name.clone())
        .collect();
    assert_eq!(negatives.len(), 5, "{negatives:?}");
    for n in &negatives {
        let again = run_controls(&|c| c == n);
        let c = again
            .iter()
            .find(|c| &c.name == n)
            .unwrap_or_else(|| panic!("{n}"));
        assert!(!c.tripped, "{n} still trips when neutered: {c:?}");
    }
}

/// Object paths are file names: a control character in one reaches no reader raw.
#[test]
fn object_names_in_a_finding_are_escaped() {
    let set: BTreeSet<String> = ["a/\u{1b}[31mRed.cpp.o".to_string(), "b/Ok.cpp.o".into()].into();
    let shown = list(&set);
    assert!(!shown.contains('\u{1b}'), "{shown}");
    assert!(shown.contains("\\x1b[31mRed.cpp.o"), "{shown}");
}
