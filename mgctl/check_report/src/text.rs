//! Input-derived text in a report: the escapers are `diag::escape`'s, named here as the report
//! formats use them.

pub use diag::escape::{line as safe_line, markup};

/// Input-derived text for one line of human or Markdown output: control and bidi characters
/// become visible escapes, so a name cannot move the cursor, recolour the terminal, reorder the
/// line or start a new one.
pub fn escape(text: &str) -> String {
    diag::escape::terminal(text).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_and_safe_line() {
        assert_eq!(escape("evil\n::error::x\u{1b}"), "evil\\n::error::x\\x1b");
        assert_eq!(safe_line("  ::error::x"), "  \\::error::x");
        assert_eq!(escape("\u{9b}"), "\\x9b");
    }
}
