//! The I/O half: the objects below the configured directory (each read through the crate's own
//! ELF reader), the baseline and the CMake cache. Everything it cannot read is a finding.

use std::collections::BTreeMap;
use std::path::Path;

use rayon::prelude::*;

use super::cfg::LinkRatchetConfig;
use super::{analyse, Baseline, Code, Diag, Input, Object};
use crate::demangle::demangle;
use crate::model::TableChoice;

/// Reads and decides: the gate's run.
pub fn check(root: &Path, cfg: &LinkRatchetConfig) -> diag::Outcome<Code> {
    analyse(cfg, &gather(root, cfg))
}

/// `NAME:TYPE=VALUE` lines of a `CMakeCache.txt`.
pub(super) fn parse_cache(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter_map(|l| {
            let (key, value) = l.trim().split_once('=')?;
            let (name, _ty) = key.split_once(':')?;
            let ok = !name.is_empty()
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.');
            ok.then(|| (name.to_string(), value.to_string()))
        })
        .collect()
}

fn read_object(path: &Path, rel: String) -> crate::Result<Object> {
    let lib = match crate::elf::read_library(path, TableChoice::Symtab) {
        Ok(l) => l,
        // A relocatable object without a symbol table defines and needs nothing (its unit was
        // preprocessed away; LLVM ships several): `nm` prints nothing for it, and so does this.
        Err(crate::Error::NoSymbols { .. }) => {
            return Ok(Object {
                rel,
                ..Object::default()
            })
        }
        Err(e) => return Err(e),
    };
    let names = |syms: &[crate::Symbol], keep: &dyn Fn(&crate::Symbol) -> bool| {
        syms.iter()
            .filter(|s| keep(s))
            .map(|s| demangle(&s.name).into_owned())
            .collect()
    };
    Ok(Object {
        defined: names(&lib.defined, &|_| true),
        // Only a strong reference obliges a definition: a weak one resolves to zero.
        undefined: names(&lib.undefined, &|s| s.kind == 'U'),
        rel,
    })
}

/// Why a text input of the ratchet (its baseline, the CMake cache) cannot be read.
#[derive(Debug, thiserror::Error)]
enum TextError {
    #[error("{rel}: {reason}")]
    Read { rel: String, reason: std::io::Error },
    #[error("{rel}: not UTF-8 (byte 0x{byte:02x} at offset {offset})")]
    NotUtf8 {
        rel: String,
        byte: u8,
        offset: usize,
    },
}

fn text_of(root: &Path, rel: &str) -> Result<String, TextError> {
    let bytes = diag::walk::read(&root.join(rel)).map_err(|reason| TextError::Read {
        rel: rel.to_string(),
        reason,
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        TextError::NotUtf8 {
            rel: rel.to_string(),
            byte: e.as_bytes().get(offset).copied().unwrap_or(0),
            offset,
        }
    })
}

pub fn gather(root: &Path, cfg: &LinkRatchetConfig) -> Input {
    let mut input = Input {
        objects_dir: cfg.objects.clone(),
        ..Input::default()
    };
    let dir = Path::new(&cfg.objects);
    if !root.join(dir).is_dir() {
        input.problems.push(
            Diag::error(
                Code::Lnk006,
                format!(
                    "no object directory {}: is the target built (and `objects` right)?",
                    cfg.objects
                ),
            )
            .about_config(),
        );
    } else {
        match diag::walk::walk(root, dir, &|rel, is_dir| {
            is_dir || rel.extension().is_some_and(|e| e == "o")
        }) {
            Err(e) => input
                .problems
                .push(Diag::error(Code::Lnk006, e.to_string()).file(cfg.objects.clone())),
            Ok(listing) => {
                for s in &listing.skipped {
                    let rel = diag::walk::display(s.rel());
                    input.problems.push(
                        Diag::error(Code::Lnk006, format!("an object not read: {}", s.reason()))
                            .file(rel),
                    );
                }
                // Boxed: a finding is much larger than an object's name sets.
                let read: Vec<Result<Object, Box<Diag>>> = listing
                    .files
                    .par_iter()
                    .map(|f| {
                        let shown = f.display();
                        let rel = shown
                            .strip_prefix(cfg.objects.trim_end_matches('/'))
                            .map(|r| r.trim_start_matches('/').to_string())
                            .unwrap_or_else(|| shown.clone());
                        read_object(&f.path, rel).map_err(|e| {
                            Box::new(Diag::error(Code::Lnk006, e.to_string()).file(shown))
                        })
                    })
                    .collect();
                for r in read {
                    match r {
                        Ok(o) => input.objects.push(o),
                        Err(d) => input.problems.push(*d),
                    }
                }
                input.objects.sort_by(|a, b| a.rel.cmp(&b.rel));
                input
                    .inputs
                    .push(format!("{} ({} objects)", cfg.objects, listing.files.len()));
            }
        }
    }
    match text_of(root, &cfg.baseline) {
        Ok(t) => {
            input.baseline = Some(Baseline::parse(&cfg.baseline, &t));
            input.inputs.push(cfg.baseline.clone());
        }
        Err(e) => input
            .problems
            .push(Diag::error(Code::Lnk006, format!("baseline {e}")).file(cfg.baseline.clone())),
    }
    if let Some(c) = &cfg.cmake_cache {
        match text_of(root, c) {
            Ok(t) => {
                input.cache = Some(parse_cache(&t));
                input.inputs.push(c.clone());
            }
            Err(e) => input.problems.push(
                Diag::error(
                    Code::Lnk005,
                    format!("CMake cache {e}: the build options cannot be confirmed"),
                )
                .file(c.clone()),
            ),
        }
    }
    input
}
