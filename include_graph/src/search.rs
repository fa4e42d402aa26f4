//! Compiler-like header search: the includer's directory for quoted names, then `-iquote`, `-I`,
//! `-isystem`, `-idirafter` in that order (angle names skip the first two).

use std::path::{Component, Path, PathBuf};

use serde::Serialize;

use crate::lex::IncludeKind;

/// The search directories of one translation unit (or of the whole workspace).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize)]
pub struct SearchPath {
    /// `-iquote`: quoted includes only.
    pub quote: Vec<PathBuf>,
    /// `-I`.
    pub user: Vec<PathBuf>,
    /// `-isystem`.
    pub system: Vec<PathBuf>,
    /// `-idirafter`.
    pub after: Vec<PathBuf>,
    /// `-include`: headers included before the first line of each translation unit.
    pub forced: Vec<PathBuf>,
}

impl SearchPath {
    /// Directories searched for an include of this kind (not counting the includer's own directory).
    pub fn dirs(&self, kind: IncludeKind) -> impl Iterator<Item = &PathBuf> {
        let quote: &[PathBuf] = if kind == IncludeKind::Quoted {
            &self.quote
        } else {
            &[]
        };
        quote
            .iter()
            .chain(&self.user)
            .chain(&self.system)
            .chain(&self.after)
    }

    /// Every directory in search order (duplicates kept once).
    pub fn all_dirs(&self) -> Vec<&PathBuf> {
        let mut v: Vec<&PathBuf> = Vec::new();
        for d in self
            .quote
            .iter()
            .chain(&self.user)
            .chain(&self.system)
            .chain(&self.after)
        {
            if !v.contains(&d) {
                v.push(d);
            }
        }
        v
    }

    /// Appends the directories of `other` that are not yet present (first-seen order).
    pub fn merge(&mut self, other: &SearchPath) {
        fn add(into: &mut Vec<PathBuf>, from: &[PathBuf]) {
            for d in from {
                if !into.contains(d) {
                    into.push(d.clone());
                }
            }
        }
        add(&mut self.quote, &other.quote);
        add(&mut self.user, &other.user);
        add(&mut self.system, &other.system);
        add(&mut self.after, &other.after);
        add(&mut self.forced, &other.forced);
    }

    /// Makes every relative directory absolute against `base` and normalises it.
    pub fn absolutize(&mut self, base: &Path) {
        for d in self
            .quote
            .iter_mut()
            .chain(self.user.iter_mut())
            .chain(self.system.iter_mut())
            .chain(self.after.iter_mut())
            .chain(self.forced.iter_mut())
        {
            *d = normalize(&base.join(&*d));
        }
    }
}

/// Lexical normalisation: drops `.`, folds `a/..` (what `-H` paths need to compare equal).
pub fn normalize(p: &Path) -> PathBuf {
    if is_normal(p) {
        return p.to_path_buf();
    }
    normalize_components(p)
}

/// [`normalize`] of an owned path: most joined candidates are already normal, and are kept
/// without a copy.
fn normalize_owned(p: PathBuf) -> PathBuf {
    if is_normal(&p) {
        return p;
    }
    normalize_components(&p)
}

/// Whether rebuilding `p` from its components would give the same bytes: no empty, `.` or `..`
/// component, no trailing `/` (a leading `/` is the root).
pub(crate) fn is_normal(p: &Path) -> bool {
    let b = p.as_os_str().as_encoded_bytes();
    let rest = b.strip_prefix(b"/").unwrap_or(b);
    if rest.is_empty() {
        return true;
    }
    rest.split(|&c| c == b'/')
        .all(|c| !c.is_empty() && c != b"." && c != b"..")
}

fn normalize_components(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                let last_is_normal =
                    matches!(out.components().next_back(), Some(Component::Normal(_)));
                if last_is_normal {
                    out.pop();
                } else if !matches!(out.components().next_back(), Some(Component::RootDir)) {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The candidate paths for an include, in the order a compiler tries them.
pub fn candidates(
    includer_dir: &Path,
    kind: IncludeKind,
    name: &str,
    sp: &SearchPath,
) -> Vec<PathBuf> {
    candidates_iter(includer_dir, kind, name, sp).collect()
}

/// [`candidates`], lazily: a resolution stops at the first that exists, so the rest are never
/// joined and normalised.
pub fn candidates_iter<'a>(
    includer_dir: &'a Path,
    kind: IncludeKind,
    name: &'a str,
    sp: &'a SearchPath,
) -> impl Iterator<Item = PathBuf> + 'a {
    let name_path = Path::new(name);
    let absolute = name_path.is_absolute();
    let own = (!absolute && kind == IncludeKind::Quoted).then_some(includer_dir);
    let dirs = sp
        .dirs(kind)
        .filter(move |_| !absolute)
        .map(PathBuf::as_path);
    absolute
        .then_some(Path::new(""))
        .into_iter()
        .chain(own)
        .chain(dirs)
        .map(move |d| normalize_owned(d.join(name_path)))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn normalise_folds_dotdot() {
        assert_eq!(
            normalize(Path::new("/a/b/../c/./d.h")),
            PathBuf::from("/a/c/d.h")
        );
        assert_eq!(normalize(Path::new("a/../../x")), PathBuf::from("../x"));
        assert_eq!(normalize(Path::new("/../x")), PathBuf::from("/x"));
    }

    #[test]
    fn fast_path_agrees_with_components() {
        for p in [
            "",
            "/",
            "//",
            "a",
            "/a",
            "a/",
            "a//b",
            "./a",
            "a/.",
            "a/./b",
            "a/..",
            "../a",
            "/..",
            "/a/b/c.h",
            "a/.b/..c/...",
            "/./",
            ".",
            "..",
            "a/b/",
            "//a",
        ] {
            let p = Path::new(p);
            assert_eq!(normalize(p), normalize_components(p), "{p:?}");
            assert_eq!(
                normalize_owned(p.to_path_buf()),
                normalize_components(p),
                "{p:?}"
            );
        }
    }

    #[test]
    fn order_quoted_vs_angle() {
        let sp = SearchPath {
            quote: vec!["/q".into()],
            user: vec!["/i".into()],
            system: vec!["/s".into()],
            ..Default::default()
        };
        let q = candidates(Path::new("/src"), IncludeKind::Quoted, "x.h", &sp);
        assert_eq!(
            q,
            vec![
                PathBuf::from("/src/x.h"),
                "/q/x.h".into(),
                "/i/x.h".into(),
                "/s/x.h".into()
            ]
        );
        let a = candidates(Path::new("/src"), IncludeKind::Angle, "x.h", &sp);
        assert_eq!(a, vec![PathBuf::from("/i/x.h"), "/s/x.h".into()]);
    }
}
