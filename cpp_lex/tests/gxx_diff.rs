//! Differential test against `g++ -E`: on a corpus of tricky inputs, the token stream cpp_lex
//! reads from the source (directives and comments dropped) equals the one g++'s preprocessed
//! output holds, and the macros cpp_lex sees defined are the ones g++ reports with `-dD`. Each
//! case also names the identifiers a reader expects, so agreement is not only with itself.
//! Skipped, with the reason printed, only when `g++` is absent (CI installs it).
#![allow(clippy::unwrap_used)]

use std::io::Write;
use std::process::{Command, Stdio};

use cpp_lex::directives::{scan, Directive};
use cpp_lex::{lex, Kind};

mod corpus;
use corpus::CORPUS;

fn gxx() -> Option<&'static str> {
    Command::new("g++")
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|_| "g++")
}

fn preprocess(cxx: &str, src: &str) -> String {
    let mut child = Command::new(cxx)
        .args(["-E", "-P", "-dD", "-std=c++20", "-x", "c++", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(src.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{cxx} -E failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Tokens outside directives, spelled (splices joined, digraphs as what they mean), except
/// those of a `#ifdef T_NEVER` branch (cpp_lex does not evaluate conditionals: that is
/// [`cpp_lex::macros`]' job, and the corpus only needs this one).
fn code_tokens(src: &str) -> Vec<(Kind, String)> {
    let lx = lex(src.as_bytes());
    let t = &lx.tokens;
    let mut out = Vec::new();
    let mut dead = false;
    for (k, tok) in t.iter().enumerate() {
        if tok.kind == Kind::Hash {
            let word = |j: usize| t.get(j).filter(|x| x.directive).map(|x| lx.text(src, x));
            match word(k + 1) {
                Some("ifdef") if word(k + 2) == Some("T_NEVER") => dead = true,
                Some("else" | "endif") => dead = false,
                _ => {}
            }
        }
        if !tok.directive && !dead {
            out.push((tok.kind, lx.text(src, tok).to_string()));
        }
    }
    out
}

fn defined_by_source(src: &str) -> Vec<String> {
    scan(src.as_bytes())
        .directives
        .iter()
        .filter_map(|d| match d {
            Directive::Define(t) => Some(t.split_whitespace().next()?.to_string()),
            _ => None,
        })
        .filter(|n| n.starts_with("T_"))
        .collect()
}

fn defined_by_gxx(out: &str) -> Vec<String> {
    out.lines()
        .filter_map(|l| l.strip_prefix("#define "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| n.starts_with("T_"))
        .map(str::to_string)
        .collect()
}

#[test]
fn token_streams_agree_with_gxx() {
    // g++ is a test requirement: a missing compiler fails, never skips.
    let cxx = gxx().expect("g++ is not installed: apt-get install g++ (bash scripts/test does)");
    let mut agreed = 0;
    for case in CORPUS {
        let ours = code_tokens(case.src);
        let idents: Vec<&str> = ours
            .iter()
            .filter(|(k, _)| *k == Kind::Ident)
            .map(|(_, t)| t.as_str())
            .collect();
        assert_eq!(idents, case.idents, "{}: identifiers", case.name);
        let out = preprocess(cxx, case.src);
        let theirs = code_tokens(&out);
        assert_eq!(ours, theirs, "{}: token stream vs g++ -E\n{out}", case.name);
        assert_eq!(
            defined_by_source(case.src),
            defined_by_gxx(&out),
            "{}: macros defined",
            case.name
        );
        agreed += 1;
    }
    println!(
        "{agreed} of {} corpus cases agree with {cxx} -E",
        CORPUS.len()
    );
}
