//! Where mgctl's output goes: the closed-pipe-proof stdout and the atomic file writer are
//! `check_report::sink`'s, the escaping of input-derived text `check_report::text`'s.

pub use check_report::sink::Stdout;
pub use check_report::text::escape;

/// [`check_report::sink::write_file`], for commands that report through `anyhow`.
pub fn write_file(path: &std::path::Path, bytes: &[u8]) -> anyhow::Result<()> {
    Ok(check_report::sink::write_file(path, bytes)?)
}
