//! Settles, once, everything that depends on the environment: colour, terminal width, the CI
//! variables, `$CXX` and `PATH`, the workspace and its config.
//! Commands take `&Settings` and never read env vars themselves.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::flags::ColorChoice;
use gates::gate::CheckCtx;
use workspace_config::Config;

pub struct Settings {
    /// Colour for human output on stdout.
    pub color: bool,
    /// Columns human tables must fit: the terminal's width, else `$COLUMNS`, else 100.
    pub columns: usize,
    /// `$GITHUB_WORKSPACE`: the checkout CI paths are relative to (else the git top level).
    pub github_workspace: Option<PathBuf>,
    /// `$GITHUB_STEP_SUMMARY`: where `check` appends its Markdown summary.
    pub step_summary: Option<PathBuf>,
    /// `$CXX` and `PATH`, for the include analysis's choice of preprocessor.
    pub compiler: include_graph::workspace::CompilerEnv,
    /// `-q/--quiet`: no progress display.
    pub quiet: bool,
}

impl Settings {
    pub fn resolve(color: ColorChoice, quiet: bool) -> Settings {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let color = match color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => !no_color && std::io::stdout().is_terminal(),
        };
        let env_path = |name: &str| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        Settings {
            color,
            columns: columns(),
            github_workspace: env_path("GITHUB_WORKSPACE"),
            step_summary: env_path("GITHUB_STEP_SUMMARY"),
            compiler: include_graph::workspace::CompilerEnv {
                cxx: std::env::var("CXX").ok(),
                path: std::env::var_os("PATH"),
            },
            quiet,
        }
    }

    /// The workspace `mgctl check` means when started at `start` (`workspace_config::discover`).
    pub fn discover(&self, start: &Path) -> PathBuf {
        workspace_config::discover(start)
    }

    /// The repository top level paths in CI output are relative to: `$GITHUB_WORKSPACE` when
    /// it holds `root`, else the nearest directory above `root` with a `.git`.
    pub fn repo_top(&self, root: &Path) -> Option<PathBuf> {
        if let Some(ws) = self
            .github_workspace
            .as_ref()
            .and_then(|w| w.canonicalize().ok())
        {
            if root.starts_with(&ws) {
                return Some(ws);
            }
        }
        root.ancestors()
            .find(|dir| dir.join(".git").exists())
            .map(Path::to_path_buf)
    }

    /// Loads the workspace at `root`: its `mgctl.toml`, or the built-in MobileGL profile.
    pub fn workspace(&self, root: &Path) -> anyhow::Result<CheckCtx> {
        Ok(workspace_config::open(
            root,
            self.compiler.clone(),
            self.quiet,
        )?)
    }

    /// The config of the workspace at `root`, for analyser commands that read their defaults from it.
    pub fn config(&self, root: &Path) -> anyhow::Result<Arc<Config>> {
        Ok(self.workspace(root)?.config)
    }
}

fn columns() -> usize {
    let stdout = std::io::stdout();
    if stdout.is_terminal() {
        if let Some((terminal_size::Width(w), _)) = terminal_size::terminal_size_of(&stdout) {
            if w > 0 {
                return usize::from(w);
            }
        }
    }
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&c| c > 0)
        .unwrap_or(100)
}
