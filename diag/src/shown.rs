//! How a workspace-relative path is shown to a person: relative to the directory they stand in,
//! as cargo, clippy and ruff print theirs, so a printed `path:line` opens from that shell.

use std::path::{Path, PathBuf};

use crate::Location;

/// The workspace root and the user's directory; with no directory (or a root that is not
/// absolute) paths are shown as the workspace names them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Shown {
    root: PathBuf,
    cwd: Option<PathBuf>,
}

impl Shown {
    /// `root` should be absolute; `cwd` is where the user stands (None: workspace-relative).
    pub fn new(root: PathBuf, cwd: Option<PathBuf>) -> Self {
        Shown { root, cwd }
    }

    /// The workspace root this view was made for.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// A workspace-relative path as the user should type it from where they stand. A pseudo-file
    /// (`<stdin>`, `<mobilegl-profile>`, as gcc writes `<built-in>`) is no path: shown as is.
    pub fn path(&self, workspace_path: &str) -> String {
        let pseudo = workspace_path.starts_with('<') && workspace_path.ends_with('>');
        match &self.cwd {
            _ if pseudo => workspace_path.to_string(),
            Some(cwd) if self.root.is_absolute() && cwd.is_absolute() => {
                relative(cwd, &self.root.join(workspace_path))
            }
            _ => workspace_path.to_string(),
        }
    }

    /// `path:line`, the path as [`Shown::path`] shows it.
    pub fn at(&self, workspace_path: &str, line: impl std::fmt::Display) -> String {
        format!("{}:{line}", self.path(workspace_path))
    }

    /// A location with its path shown from the user's directory.
    pub fn location(&self, l: &Location) -> String {
        let mut shown = l.clone();
        shown.path = self.path(&l.path);
        shown.to_string()
    }
}

/// `to` relative to the directory `from`, lexically (both absolute): `driver/MobileGL/A.cpp` from
/// the repository root, `../A.cpp` from a sibling directory.
fn relative(from: &Path, to: &Path) -> String {
    let (f, t): (Vec<_>, Vec<_>) = (from.components().collect(), to.components().collect());
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_string(); f.len() - common];
    parts.extend(
        t[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(cwd: &str) -> Shown {
        Shown::new(PathBuf::from("/repo/driver"), Some(PathBuf::from(cwd)))
    }

    #[test]
    fn paths_are_relative_to_where_the_user_stands() {
        assert_eq!(
            shown("/repo").path("MobileGL/A.cpp"),
            "driver/MobileGL/A.cpp"
        );
        assert_eq!(
            shown("/repo/driver").path("MobileGL/A.cpp"),
            "MobileGL/A.cpp"
        );
        assert_eq!(
            shown("/repo/driver/MobileGL").path("MobileGL/A.cpp"),
            "A.cpp"
        );
        assert_eq!(
            shown("/repo/driver/MobileGL").path("mgctl.toml"),
            "../mgctl.toml"
        );
        assert_eq!(
            shown("/other").path("mgctl.toml"),
            "../repo/driver/mgctl.toml"
        );
        assert_eq!(shown("/repo").at("mgctl.toml", 3), "driver/mgctl.toml:3");
        assert_eq!(
            shown("/repo").location(&Location::at("a.h", 3, Some(7))),
            "driver/a.h:3:7"
        );
    }

    #[test]
    fn without_a_directory_paths_stay_workspace_relative() {
        assert_eq!(Shown::default().path("MobileGL/A.cpp"), "MobileGL/A.cpp");
        assert_eq!(shown("/repo").path("<stdin>"), "<stdin>");
        let relative_root = Shown::new(PathBuf::from("driver"), Some(PathBuf::from("/repo")));
        assert_eq!(relative_root.path("a.h"), "a.h");
    }
}
