//! Records the git commit mgctl is built from, for `mgctl --version`.
use std::process::Command;

/// `git ARGS`'s trimmed standard output, when it ran and succeeded.
fn git(args: &[&str]) -> Option<String> {
    Command::new("git")
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
}

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"])
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".to_string());
    let dirty =
        git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    let suffix = if dirty { "-dirty" } else { "" };
    println!("cargo:rustc-env=MGCTL_GIT_COMMIT={commit}{suffix}");
    // Rebuild when HEAD moves. Asked of git, not assumed to be `../.git`: in a worktree `.git` is
    // a file, and HEAD and the index live in the worktree's own git directory, the branches in
    // the common one.
    let here = git(&["rev-parse", "--absolute-git-dir"]);
    let common = git(&["rev-parse", "--path-format=absolute", "--git-common-dir"]).or(here.clone());
    match (here, common) {
        (Some(here), Some(common)) => {
            let watched = [
                format!("{here}/HEAD"),
                format!("{here}/index"),
                format!("{common}/refs/heads"),
                format!("{common}/packed-refs"),
            ];
            // A missing path would make cargo rerun this script on every build.
            for path in watched.iter().filter(|p| std::path::Path::new(p).exists()) {
                println!("cargo:rerun-if-changed={path}");
            }
        }
        // Not a git checkout (a source tarball): paths are relative to this crate.
        _ => println!("cargo:rerun-if-changed=../.git/HEAD"),
    }
}
