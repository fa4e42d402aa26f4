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

/// The first of [`candidates_iter`] that `exists`, built in one buffer: a candidate that does not
/// exist (most of them, in a long search path) costs no allocation, and a hit costs one.
pub(crate) fn first_candidate(
    includer_dir: &Path,
    kind: IncludeKind,
    name: &str,
    sp: &SearchPath,
    mut exists: impl FnMut(&Path) -> bool,
) -> Option<PathBuf> {
    let name_path = Path::new(name);
    if name_path.is_absolute() {
        return candidates_iter(includer_dir, kind, name, sp).find(|c| exists(c));
    }
    let own = (kind == IncludeKind::Quoted).then_some(includer_dir);
    let mut buf = PathBuf::new();
    for d in own.into_iter().chain(sp.dirs(kind).map(PathBuf::as_path)) {
        // `d.join(name)` for a relative name (a separator unless `d` is empty or ends in one),
        // appended as bytes: `PathBuf::push` parses both paths again.
        let b = buf.as_mut_os_string();
        b.clear();
        b.push(d.as_os_str());
        if !d.as_os_str().is_empty() && !d.as_os_str().as_encoded_bytes().ends_with(b"/") {
            b.push("/");
        }
        b.push(name_path.as_os_str());
        if !is_normal(&buf) {
            let c = normalize_components(&buf);
            if exists(&c) {
                return Some(c);
            }
        } else if exists(&buf) {
            return Some(buf.clone());
        }
    }
    None
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn first_candidate_is_the_first_existing_candidate() {
        const NAMES: &[&str] = &[
            "x.h",
            "a/x.h",
            "../x.h",
            "./x.h",
            "a//x.h",
            "a/../b/x.h",
            "/abs/x.h",
            "x.h/",
            "..",
            ".",
            "",
            "b/./../x.h",
            "/a/../x.h",
        ];
        const DIRS: &[&str] = &["/r", "/r/a", "/", "/r/a/b", "rel", "", "/q", "/i/a"];
        let mut rng = crate::xorshift(0x2545_f491_4f6c_dd1d);
        let mut next = move |m: usize| (rng() % m as u64) as usize;
        for _ in 0..20_000 {
            let mut pick = |k: usize| -> Vec<PathBuf> {
                (0..next(k))
                    .map(|_| PathBuf::from(DIRS[next(DIRS.len())]))
                    .collect()
            };
            let sp = SearchPath {
                quote: pick(3),
                user: pick(4),
                system: pick(3),
                after: pick(2),
                forced: Vec::new(),
            };
            let dir = PathBuf::from(DIRS[next(DIRS.len())]);
            let name = NAMES[next(NAMES.len())];
            let kind = [IncludeKind::Quoted, IncludeKind::Angle][next(2)];
            let all = candidates(&dir, kind, name, &sp);
            // Some of the candidates exist, chosen at random.
            let present: Vec<PathBuf> = all.iter().filter(|_| next(3) == 0).cloned().collect();
            let exists = |p: &Path| present.iter().any(|q| q == p);
            let mut asked = Vec::new();
            let got = first_candidate(&dir, kind, name, &sp, |p| {
                asked.push(p.to_path_buf());
                exists(p)
            });
            let want = all.iter().find(|c| exists(c)).cloned();
            assert_eq!(got, want, "{dir:?} {kind:?} {name:?} {sp:?}");
            // Asked in the same order, and none after the hit.
            let upto = want
                .as_ref()
                .map_or(all.len(), |w| all.iter().position(|c| c == w).unwrap() + 1);
            assert_eq!(asked, all[..upto], "{dir:?} {kind:?} {name:?} {sp:?}");
        }
    }

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
