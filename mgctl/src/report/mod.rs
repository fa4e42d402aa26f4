//! Output adapters for `check`: the text and machine formats are `check_report`'s, the HTML page
//! `html_report`'s.

use std::io::{self, Write};

pub use check_report::{CheckRun, Mode, View};

use crate::flags::Format;

pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("MGCTL_GIT_COMMIT"),
    ")"
);

pub fn write(format: Format, run: &CheckRun, out: &mut dyn Write, color: bool) -> io::Result<()> {
    match format {
        Format::Html => out.write_all(html_report::check_page(run).as_bytes()),
        f => check_report::write(f, run, out, color, &gates::codes::summary),
    }
}
