//! Where mgctl's output goes: the closed-pipe-proof stdout and the atomic file writer are
//! `check_report::sink`'s, the escaping of input-derived text `check_report::text`'s.

pub use check_report::sink::Stdout;
pub use check_report::text::escape;

/// [`check_report::sink::write_file`], for commands that report through `anyhow`.
pub fn write_file(path: &std::path::Path, bytes: &[u8]) -> anyhow::Result<()> {
    Ok(check_report::sink::write_file(path, bytes)?)
}

/// How a workspace's paths are shown in human output: from the user's directory, as
/// `check`'s table shows them (`diag::Shown`).
pub fn shown(root: &std::path::Path) -> diag::Shown {
    let root = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
    diag::Shown::new(root, std::env::current_dir().ok())
}
