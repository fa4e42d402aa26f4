//! Input-derived text in a report: control characters made visible, no line that GitHub could
//! read as a workflow command.

/// Input-derived text for one line of human or Markdown output: control characters (C0, DEL,
/// C1, LF and CR included) become visible escapes, so a name cannot move the cursor, recolour the
/// terminal or start a new line.
pub fn escape(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let n = c as u32;
                if n <= 0xff {
                    out.push_str(&format!("\\x{n:02x}"));
                } else {
                    out.push_str(&format!("\\u{{{n:x}}}"));
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// One line of human output whose text may hold input data: escaped as [`escape`], and never
/// the start of a GitHub workflow command (the runner trims a line before looking for `::`).
pub fn safe_line(text: &str) -> String {
    let text = escape(text);
    let trimmed = text.trim_start();
    if trimmed.starts_with("::") {
        let indent = text.len() - trimmed.len();
        format!("{}\\{}", &text[..indent], trimmed)
    } else {
        text
    }
}

/// Input-derived text inside XML or HTML (element content and attribute values alike, so JUnit
/// and the HTML pages share it): markup characters become entities; control characters other
/// than tab and newline, which XML 1.0 forbids even escaped, become U+FFFD.
pub fn markup(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' => out.push(c),
            c if c.is_control() => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
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
