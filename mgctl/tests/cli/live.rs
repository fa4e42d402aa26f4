//! `check --self-test WORKSPACE`: live controls mutate an in-memory overlay of the workspace
//! (issue 18 item 7) and must turn `tokens` and `regions` red; the workspace is never written.

use std::collections::BTreeMap;
use std::path::Path;

use crate::util::{copy_driver, mgctl};

fn snapshot(root: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.insert(p.display().to_string(), std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, &mut out);
    out
}

#[test]
fn self_test_runs_live_controls_on_the_workspace_without_writing_it() {
    let (_g, root) = copy_driver();
    let before = snapshot(&root);
    let run = mgctl(
        &[
            "check",
            "--self-test",
            "--only",
            "tokens,regions",
            "--format",
            "json",
            ".",
        ],
        &root,
    )
    .expect(0);
    run.assert_stdout_has("\"live-purity-c\"");
    run.assert_stdout_has("\"live-no-stdio\"");
    run.assert_stdout_has("\"live-IsPoolable\"");
    assert_eq!(before, snapshot(&root), "the workspace was written");
}

#[test]
fn a_misspelt_rule_glob_fails_the_self_test_naming_the_rule() {
    let (_g, root) = copy_driver();
    let toml = root.join("mgctl.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    let bad = text.replacen("\"MobileGL/MG_Backend/**\"", "\"MG_Backnd/**\"", 1);
    assert_ne!(text, bad);
    std::fs::write(&toml, bad).unwrap();
    let before = snapshot(&root);
    let run = mgctl(&["check", ".", "--self-test", "--only", "tokens"], &root).expect(1);
    run.assert_stdout_has("live-purity-c");
    run.assert_stdout_has("rule `purity-c`");
    assert_eq!(before, snapshot(&root), "the workspace was written");
}
