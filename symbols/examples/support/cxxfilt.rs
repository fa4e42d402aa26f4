//! GNU `c++filt` over many names in one process: the reference the agreement examples and tests
//! compare the in-process demangler with. Shared by path (`#[path]`), not part of the library.

use std::io::Write;
use std::process::{Command, Stdio};

/// c++filt's line for each name, in order. Panics when c++filt is missing (binutils is a
/// requirement of these measurements; `.ci/run` installs it).
pub fn cxxfilt<S: AsRef<str>>(names: &[S]) -> Vec<String> {
    let mut child = Command::new("c++filt")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("c++filt not on PATH: install binutils");
    let mut input = String::new();
    for n in names {
        input.push_str(n.as_ref());
        input.push('\n');
    }
    let mut stdin = child.stdin.take().expect("c++filt stdin");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("c++filt output");
    writer
        .join()
        .expect("writer thread")
        .expect("writing to c++filt");
    let text = String::from_utf8(out.stdout).expect("c++filt printed UTF-8");
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    assert_eq!(
        lines.len(),
        names.len(),
        "c++filt printed one line per name"
    );
    lines
}
