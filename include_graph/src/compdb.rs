//! `compile_commands.json`: per translation unit, its search path and the flags a compiler run
//! needs (every spelling of `-I`, `-iquote`, `-isystem`, `-idirafter`, `-include`).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::search::{normalize, SearchPath};

#[derive(Deserialize)]
struct RawEntry {
    directory: Option<String>,
    file: Option<String>,
    arguments: Option<Vec<String>>,
    command: Option<String>,
}

/// One translation unit of the database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileUnit {
    /// Absolute, normalised source path.
    pub file: PathBuf,
    /// The working directory of the compile.
    pub directory: PathBuf,
    /// Absolute search directories and forced includes.
    pub search: SearchPath,
    /// Flags to reuse for a preprocessor run: defines, language, target, sysroot and include flags;
    /// output, dependency-file and `-c` flags and the input file are dropped.
    pub flags: Vec<String>,
}

/// Parses a compile_commands.json text; `path` is for messages and for relative directories.
pub fn parse(text: &str, path: &Path) -> Result<Vec<CompileUnit>> {
    let raw: Vec<RawEntry> = serde_json::from_str(text).map_err(|e| Error::CompDb {
        path: path.to_path_buf(),
        line: e.line(),
        column: e.column(),
        reason: e
            .to_string()
            .split(" at line")
            .next()
            .unwrap_or("invalid JSON")
            .to_string(),
    })?;
    let base = path.parent().unwrap_or(Path::new("."));
    let mut out = Vec::with_capacity(raw.len());
    for (index, e) in raw.into_iter().enumerate() {
        let bad = |reason: &str| Error::CompDbEntry {
            path: path.to_path_buf(),
            index,
            reason: reason.to_string(),
        };
        let dir = e.directory.ok_or_else(|| bad("missing \"directory\""))?;
        let file = e.file.ok_or_else(|| bad("missing \"file\""))?;
        let args = match (e.arguments, e.command) {
            (Some(a), _) => a,
            (None, Some(c)) => shell_split(&c).map_err(|r| bad(&r.to_string()))?,
            (None, None) => return Err(bad("neither \"arguments\" nor \"command\"")),
        };
        let directory = normalize(&base.join(dir));
        let file_abs = normalize(&directory.join(&file));
        let (search, flags) = extract(&args, &directory, &file);
        out.push(CompileUnit {
            file: file_abs,
            directory,
            search,
            flags,
        });
    }
    Ok(out)
}

/// Why a `"command"` cannot be split into words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SplitError {
    #[error("unterminated ' in \"command\"")]
    UnterminatedSingle,
    #[error("unterminated \" in \"command\"")]
    UnterminatedDouble,
}

/// POSIX-shell-like word splitting (quotes and backslashes), enough for compile commands.
pub fn shell_split(s: &str) -> std::result::Result<Vec<String>, SplitError> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(x) => cur.push(x),
                        None => return Err(SplitError::UnterminatedSingle),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(x @ ('"' | '\\' | '$' | '`')) => cur.push(x),
                            Some(x) => {
                                cur.push('\\');
                                cur.push(x);
                            }
                            None => return Err(SplitError::UnterminatedDouble),
                        },
                        Some(x) => cur.push(x),
                        None => return Err(SplitError::UnterminatedDouble),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(x) = chars.next() {
                    cur.push(x);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    Ok(out)
}

/// Flags that take their value as the next token when written alone.
const PATH_FLAGS: &[&str] = &["-I", "-iquote", "-isystem", "-idirafter", "-include"];

/// Splits a command line into the search path and the reusable flags.
pub fn extract(args: &[String], directory: &Path, file: &str) -> (SearchPath, Vec<String>) {
    let mut sp = SearchPath::default();
    let mut flags = Vec::new();
    let mut i = 1; // argv[0] is the compiler
    while i < args.len() {
        let a = args[i].as_str();
        let next = args.get(i + 1).map(String::as_str);
        // (flag, value, tokens consumed)
        let mut hit: Option<(&str, String, usize)> = None;
        for f in PATH_FLAGS {
            if a == *f {
                if let Some(v) = next {
                    hit = Some((f, v.to_string(), 2));
                }
                break;
            }
            // `-include` must not be read as `-I` + "nclude"; longest spellings are tested first
            // because PATH_FLAGS lists `-I` first only for the exact match above.
        }
        if hit.is_none() {
            for f in ["-iquote", "-isystem", "-idirafter", "-include", "-I"] {
                if a.len() > f.len() && a.starts_with(f) {
                    let v = a[f.len()..].trim_start_matches('=');
                    hit = Some((f, v.to_string(), 1));
                    break;
                }
            }
        }
        if hit.is_none() {
            if let Some(v) = a.strip_prefix("--include-directory=") {
                hit = Some(("-I", v.to_string(), 1));
            } else if a == "--include-directory" {
                if let Some(v) = next {
                    hit = Some(("-I", v.to_string(), 2));
                }
            }
        }
        if let Some((flag, value, n)) = hit {
            let abs = normalize(&directory.join(&value));
            match flag {
                "-I" => sp.user.push(abs.clone()),
                "-iquote" => sp.quote.push(abs.clone()),
                "-isystem" => sp.system.push(abs.clone()),
                "-idirafter" => sp.after.push(abs.clone()),
                _ => sp.forced.push(abs.clone()),
            }
            flags.push(flag.to_string());
            flags.push(abs.to_string_lossy().into_owned());
            i += n;
            continue;
        }
        match a {
            "-o" | "-MF" | "-MT" | "-MQ" => i += 2,
            "-c" | "-MD" | "-MMD" | "-M" | "-MM" | "-MP" | "-E" | "-S" => i += 1,
            _ if a == file
                || (!a.starts_with('-')
                    && Path::new(a).extension().is_some()
                    && directory.join(a) == directory.join(file)) =>
            {
                i += 1
            }
            "-target" | "--sysroot" | "-x" | "-D" | "-U" | "-arch" | "-isysroot" => {
                flags.push(a.to_string());
                if let Some(v) = next {
                    flags.push(v.to_string());
                }
                i += 2;
            }
            _ => {
                if a.starts_with('-') {
                    flags.push(a.to_string());
                }
                i += 1;
            }
        }
    }
    (sp, flags)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn all_spellings() {
        let text = r#"[{"directory": "/b", "file": "src/a.cpp",
          "arguments": ["c++", "-Iinc", "-I", "two", "-iquote", "q", "-iquoteq2", "-isystem", "/sys",
                        "-isystem/sys2", "-include", "pre.h", "-includepre2.h", "-idirafter", "late",
                        "--include-directory=x", "-DX=1", "-D", "Y", "-std=c++17", "-c", "src/a.cpp", "-o", "a.o", "-MF", "a.d"]}]"#;
        let units = parse(text, Path::new("/b/compile_commands.json")).unwrap();
        let u = &units[0];
        assert_eq!(u.file, PathBuf::from("/b/src/a.cpp"));
        assert_eq!(
            u.search.user,
            vec![PathBuf::from("/b/inc"), "/b/two".into(), "/b/x".into()]
        );
        assert_eq!(u.search.quote, vec![PathBuf::from("/b/q"), "/b/q2".into()]);
        assert_eq!(u.search.system, vec![PathBuf::from("/sys"), "/sys2".into()]);
        assert_eq!(u.search.after, vec![PathBuf::from("/b/late")]);
        assert_eq!(
            u.search.forced,
            vec![PathBuf::from("/b/pre.h"), "/b/pre2.h".into()]
        );
        assert!(u.flags.contains(&"-DX=1".to_string()));
        assert!(u.flags.contains(&"-std=c++17".to_string()));
        assert!(!u
            .flags
            .iter()
            .any(|f| f == "a.o" || f == "-c" || f.ends_with("a.cpp")));
    }

    #[test]
    fn command_string_is_split() {
        let text = r#"[{"directory": "/b", "file": "a.cpp", "command": "g++ -I'my dir' -I\"q d\" -c a.cpp"}]"#;
        let u = &parse(text, Path::new("/b/cc.json")).unwrap()[0];
        assert_eq!(
            u.search.user,
            vec![PathBuf::from("/b/my dir"), "/b/q d".into()]
        );
    }

    #[test]
    fn malformed_names_position() {
        let err = parse(
            "[\n {\"directory\": \"/b\",\n  \"file\": 3}\n]",
            Path::new("cc.json"),
        )
        .unwrap_err();
        let msg = err.to_string();
        assert!(msg.starts_with("cc.json:3:"), "{msg}");
        let err = parse("[{\"file\": \"a\"}]", Path::new("cc.json")).unwrap_err();
        assert!(
            err.to_string().contains("entry 0: missing \"directory\""),
            "{err}"
        );
    }
}
