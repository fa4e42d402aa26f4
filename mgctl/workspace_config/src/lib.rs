//! The workspace a run audits: where it is (`discover`), what it says (`config`: its
//! `mgctl.toml`, or the built-in MobileGL profile) and what a gate may read of it (`CheckCtx`).
//!
//! A crate beside the binary, as `workspace_build` is: the loader is a unit of its own (schema,
//! spans, the paths it refuses, the profile) and is tested without the CLI.

#![warn(unreachable_pub)]

pub mod config;
mod ctx;

use std::path::{Path, PathBuf};

pub use config::{Config, FILE_NAME, MOBILEGL_MARKERS};
pub use ctx::CheckCtx;

/// The workspace `mgctl check` means when started at `start`: the nearest directory at or
/// above it that holds an `mgctl.toml` or is a MobileGL checkout (as cargo and git look
/// upwards); `start` itself when there is none, so the error names what was typed.
pub fn discover(start: &Path) -> PathBuf {
    let Ok(canon) = start.canonicalize() else {
        return start.to_path_buf();
    };
    canon
        .ancestors()
        .find(|dir| is_workspace(dir))
        .map_or_else(|| start.to_path_buf(), Path::to_path_buf)
}

/// Whether `dir` holds an `mgctl.toml` or looks like a MobileGL checkout.
pub fn is_workspace(dir: &Path) -> bool {
    dir.join(FILE_NAME).is_file() || MOBILEGL_MARKERS.iter().any(|m| dir.join(m).is_dir())
}

/// Why a workspace could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("{}: cannot open workspace", path.display())]
    Open {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: not a directory (mgctl check takes a workspace directory)", path.display())]
    NotADirectory { path: PathBuf },
    #[error("{}: cannot resolve path", path.display())]
    Resolve {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Config(#[from] config::Error),
}

/// Loads the workspace at `root`: its `mgctl.toml`, or the built-in MobileGL profile.
/// `compiler` is `$CXX` and `PATH` as the caller read them (no gate reads the environment).
pub fn open(
    root: &Path,
    compiler: include_graph::workspace::CompilerEnv,
    quiet: bool,
) -> Result<CheckCtx, OpenError> {
    let meta = std::fs::metadata(root).map_err(|source| OpenError::Open {
        path: root.to_path_buf(),
        source,
    })?;
    if !meta.is_dir() {
        return Err(OpenError::NotADirectory {
            path: root.to_path_buf(),
        });
    }
    let root = root.canonicalize().map_err(|source| OpenError::Resolve {
        path: root.to_path_buf(),
        source,
    })?;
    let (config, config_path, config_text) = config::load(&root)?;
    Ok(CheckCtx {
        root,
        config: std::sync::Arc::new(config),
        config_path,
        config_text,
        include_graph: Default::default(),
        compiler,
        no_build: false,
        quiet,
    })
}
