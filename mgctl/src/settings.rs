//! Settles, once, everything that depends on the environment: colour, the workspace and its config.
//! Commands take `&Settings` and never read env vars themselves.

use std::io::IsTerminal;
use std::path::Path;
use std::sync::Arc;

use anyhow::Context;

use crate::cli::{Cli, ColorChoice};
use crate::config::{self, Config};
use crate::gate::CheckCtx;

pub struct Settings {
    /// Colour for human output on stdout.
    pub color: bool,
}

impl Settings {
    pub fn resolve(cli: &Cli) -> Settings {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let color = match cli.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => !no_color && std::io::stdout().is_terminal(),
        };
        Settings { color }
    }

    /// Loads the workspace at `root`: its `mgctl.toml`, or the built-in MobileGL profile.
    pub fn workspace(&self, root: &Path) -> anyhow::Result<CheckCtx> {
        let meta = std::fs::metadata(root)
            .with_context(|| format!("{}: cannot open workspace", root.display()))?;
        if !meta.is_dir() {
            anyhow::bail!(
                "{}: not a directory (mgctl check takes a workspace directory)",
                root.display()
            );
        }
        let root = root
            .canonicalize()
            .with_context(|| format!("{}: cannot resolve path", root.display()))?;
        let (config, config_path, config_text) = config::load(&root)?;
        Ok(CheckCtx {
            root,
            config: Arc::new(config),
            config_path,
            config_text,
            include_graph: Default::default(),
        })
    }

    /// The config of the workspace at `root`, for analyser commands that read their defaults from it.
    pub fn config(&self, root: &Path) -> anyhow::Result<Arc<Config>> {
        Ok(self.workspace(root)?.config)
    }
}
