//! The diff folds and matches names by their numbers in the shared name table when it can, and
//! by hashing their texts otherwise (`--strip-scope`, `--rename-map`, duplicated names, sides
//! from different tables). Both paths must give the same diff, field for field.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::sync::Arc;

use symbols::diff::{diff, sides_from_libraries, DiffOptions, Side};
use symbols::model::{Binding, Identity, Library, Symbol, Table, Visibility};

fn sym(name: &str, size: u64, address: u64, version: Option<&str>) -> Symbol {
    Symbol {
        name: name.into(),
        version: version.map(Arc::from),
        version_hidden: false,
        kind: 'T',
        address,
        size,
        binding: Binding::Global,
        visibility: Visibility::Default,
        defined: true,
    }
}

fn library(symbols: Vec<Symbol>) -> Library {
    Library {
        identity: Identity {
            path: "lib.so".into(),
            file_bytes: 1,
            machine: "x86-64".into(),
            class_bits: 64,
            little_endian: true,
            build_id: None,
            has_symtab: false,
            has_dynsym: true,
        },
        table: Table::Dynsym,
        defined: symbols,
        undefined: Vec::new(),
        dynamic: Vec::new(),
        sections: Vec::new(),
    }
}

fn hashed_only(side: &Side) -> Side {
    let mut s = side.clone();
    s.name_ids = None;
    s
}

/// The same diff by numbers (when the sides allow it) and by hashed texts.
fn assert_paths_agree(before: &Library, after: &Library, opts: &DiffOptions) {
    let (b, a) = sides_from_libraries(before, after, false);
    assert!(b.name_ids.is_some() && a.name_ids.is_some());
    let numbered = serde_json::to_string(&diff(&b, &a, opts)).unwrap();
    let hashed = serde_json::to_string(&diff(&hashed_only(&b), &hashed_only(&a), opts)).unwrap();
    assert_eq!(numbered, hashed);
}

fn option_sets() -> Vec<DiffOptions> {
    vec![
        DiffOptions::default(),
        DiffOptions {
            threshold: 8,
            ..DiffOptions::default()
        },
        DiffOptions {
            only_names: vec!["Grew".into(), "A::".into()],
            ..DiffOptions::default()
        },
        DiffOptions {
            strip_scopes: vec!["ns::A::".into()],
            ..DiffOptions::default()
        },
    ]
}

#[test]
fn numbered_and_hashed_folds_agree_on_every_bucket() {
    // Constructor variants fold into one name; a renamed symbol keeps its text; a version
    // node is dropped; sizes grow, shrink and stay.
    let before = library(vec![
        sym("_ZN2ns1AC1Ev", 10, 0x10, Some("V1")),
        sym("_ZN2ns1AC2Ev", 10, 0x20, Some("V1")),
        sym("_ZN2ns4GoneEv", 30, 0x30, Some("V1")),
        sym("_ZN2ns4GrewEv", 40, 0x40, Some("V1")),
        sym("_ZN2ns6ShrunkEv", 50, 0x50, Some("V1")),
        sym("_ZN2ns4SameEv", 60, 0x60, Some("V1")),
        sym("_Z7renamedv", 70, 0x70, None),
        sym("plain_c_function", 80, 0x80, None),
        sym("V1", 0, 0, Some("V1")),
    ]);
    let mut node = sym("V2", 0, 0, Some("V2"));
    node.kind = 'A';
    let after = library(vec![
        sym("_ZN2ns1AC1Ev", 12, 0x10, Some("V2")),
        sym("_ZN2ns1AC2Ev", 10, 0x20, Some("V2")),
        sym("_ZN2ns4GrewEv", 48, 0x40, Some("V2")),
        sym("_ZN2ns6ShrunkEv", 44, 0x50, Some("V2")),
        sym("_ZN2ns4SameEv", 60, 0x60, Some("V2")),
        sym("_ZL7renamedv", 70, 0x70, None),
        sym("_ZN2ns3NewEv", 90, 0x90, Some("V2")),
        sym("plain_c_function", 80, 0x80, None),
        node,
    ]);
    for opts in option_sets() {
        assert_paths_agree(&before, &after, &opts);
    }
}

#[test]
fn a_name_defined_twice_takes_the_hashed_path_with_copies_kept_apart() {
    // Two file-local statics of one name: copy 2 must not fold into copy 1.
    let mut a = sym("_ZL5countv", 4, 0x10, None);
    a.kind = 't';
    let mut b = a.clone();
    b.address = 0x20;
    b.size = 8;
    let before = library(vec![a.clone(), b]);
    let after = library(vec![a]);
    for opts in option_sets() {
        assert_paths_agree(&before, &after, &opts);
    }
    let (sb, sa) = sides_from_libraries(&before, &after, false);
    let d = diff(&sb, &sa, &DiffOptions::default());
    assert_eq!(d.listing.removed.len(), 1, "{:?}", d.listing);
    assert_eq!(&*d.listing.removed[0].name, "count() [copy 2]");
}

#[test]
fn libllvm14_to_15_gives_the_same_diff_on_both_paths() {
    let dir = Path::new("/usr/lib/x86_64-linux-gnu");
    let (a, b) = (dir.join("libLLVM-14.so.1"), dir.join("libLLVM-15.so.1"));
    assert!(
        a.exists() && b.exists(),
        "libLLVM-14/15 are missing: .ci/run installs them"
    );
    let read = |p: &Path| symbols::elf::read_library(p, symbols::TableChoice::Auto).unwrap();
    let (before, after) = (read(&a), read(&b));
    for opts in &option_sets()[..3] {
        assert_paths_agree(&before, &after, opts);
    }
}
