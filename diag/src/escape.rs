//! Input-derived text made inert for each medium it is written to. A file name, symbol or log
//! line must never move a terminal's cursor, reorder what a reviewer reads (bidi controls), start
//! a GitHub workflow command, break a Markdown table, or become markup or a script link.

use std::borrow::Cow;

/// Unicode's explicit directional formatting characters (the "Trojan Source" set): they reorder
/// how a line is shown without being visible.
fn is_bidi(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

fn needs_escape(c: char) -> bool {
    c.is_control() || is_bidi(c)
}

/// How many characters of input a message quotes before [`shorten`] cuts it.
pub const QUOTE_CHARS: usize = 200;

/// Input quoted in a message, cut after `max` characters with an ellipsis and the whole
/// length, so a 5 MB commit subject or config value costs a line, not megabytes per output
/// (issue 29). Text no longer than `max` is returned as it is.
pub fn shorten(text: &str, max: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => Cow::Borrowed(text),
        Some((cut, _)) => Cow::Owned(format!(
            "{}… ({} characters in all)",
            &text[..cut],
            text.chars().count()
        )),
    }
}

/// Text for one line of a terminal or plain-text report: control characters (C0, DEL, C1, LF and
/// CR included) and bidi controls become visible escapes (`\n`, `\x1b`, `\u{202e}`), and a
/// backslash that would read as one of them is doubled (a literal `\x1b` shows as `\\x1b`).
pub fn terminal(text: &str) -> Cow<'_, str> {
    // A backslash that would read as the start of one of these escapes is doubled, so a real
    // ESC (`\x1b`) and the four characters `\x1b` in the text (`\\x1b`) stay apart.
    let ambiguous = |i: usize| {
        matches!(
            text.as_bytes().get(i + 1),
            Some(b'x' | b'u' | b'n' | b'r' | b't' | b'\\')
        )
    };
    let backslash = text
        .bytes()
        .enumerate()
        .any(|(i, b)| b == b'\\' && ambiguous(i));
    if !backslash && !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for (i, c) in text.char_indices() {
        match c {
            '\\' if ambiguous(i) => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if needs_escape(c) => {
                let n = u32::from(c);
                if n <= 0xff {
                    out.push_str(&format!("\\x{n:02x}"));
                } else {
                    out.push_str(&format!("\\u{{{n:x}}}"));
                }
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// One whole output line that may hold input data: escaped as [`terminal`], and never the start
/// of a GitHub workflow command (the runner trims a line before looking for `::`).
pub fn line(text: &str) -> String {
    let text = terminal(text);
    let trimmed = text.trim_start();
    if trimmed.starts_with("::") {
        let indent = text.len() - trimmed.len();
        format!("{}\\{}", &text[..indent], trimmed)
    } else {
        text.into_owned()
    }
}

/// Text inside XML or HTML, element content and attribute values alike: markup characters become
/// entities; control characters other than tab and newline, which XML 1.0 forbids even escaped,
/// and the non-characters U+FFFE/U+FFFF become U+FFFD.
pub fn markup(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' => out.push(c),
            '\u{FFFE}' | '\u{FFFF}' => out.push('\u{FFFD}'),
            c if c.is_control() => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// Text in a GFM table cell or list item: one line, escaped as [`terminal`], and neither a column
/// break (`|`), a code span (`` ` ``), nor raw HTML (`<`, `>`, `&`).
pub fn markdown_cell(text: &str) -> String {
    let text = terminal(text);
    let mut out = String::with_capacity(text.len() + 4);
    for c in text.chars() {
        match c {
            '|' => out.push_str("\\|"),
            '`' => out.push_str("\\`"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            c => out.push(c),
        }
    }
    out
}

/// Text as an inline code span that GitHub shows literally, also inside a table cell: the fence is
/// one backtick longer than the longest run inside, padded when the text starts or ends with one;
/// `|` is escaped because GFM splits the cells before it reads code spans.
pub fn markdown_code(text: &str) -> String {
    let text = terminal(text);
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}").replace('|', "\\|")
}

/// A path as an `href`: relative paths and `file:`/`https:` URLs only (anything else, such as
/// `javascript:`, is made a relative path by prefixing `./`), every byte outside RFC 3986's
/// unreserved set and `/` percent-encoded, and a `#L<line>` fragment when a line is given.
pub fn href(target: &str, line: Option<u32>) -> String {
    let (scheme, rest) = match target.split_once(':') {
        Some((s, r))
            if matches!(s.to_ascii_lowercase().as_str(), "file" | "https")
                && r.starts_with("//") =>
        {
            (Some(s.to_ascii_lowercase()), r)
        }
        _ => (None, target),
    };
    let mut out = String::with_capacity(target.len() + 8);
    match &scheme {
        Some(s) => {
            out.push_str(s);
            out.push(':');
        }
        // A colon in the first segment would read as a scheme: make it plainly relative.
        None if rest.split('/').next().is_some_and(|seg| seg.contains(':')) => out.push_str("./"),
        None => {}
    }
    for b in rest.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    if let Some(l) = line {
        out.push_str(&format!("#L{l}"));
    }
    out
}

/// The message of a GitHub workflow command (`::error file=…::MESSAGE`): `%`, CR and LF
/// percent-encoded, so the message stays on its line and cannot start another command.
pub fn workflow_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property value of a GitHub workflow command (`file=…`, `title=…`): as [`workflow_data`],
/// and `:` and `,` too, which would end the value.
pub fn workflow_property(text: &str) -> String {
    workflow_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shorten_cuts_long_input_on_a_character() {
        assert_eq!(shorten("short", 10), "short");
        assert_eq!(shorten("ééééé", 2), "éé… (5 characters in all)");
        let big = "x".repeat(5_000_000);
        assert!(shorten(&big, QUOTE_CHARS).len() < 300);
    }

    #[test]
    fn a_real_escape_and_its_spelling_differ() {
        assert_eq!(terminal("\u{1b}[2J"), "\\x1b[2J");
        assert_eq!(terminal("\\x1b[2J"), "\\\\x1b[2J");
        assert_ne!(terminal("\u{1b}"), terminal("\\x1b"));
        // a backslash no escape starts with stays single: a regex reads as written
        assert!(matches!(terminal("\\bprintf\\b"), Cow::Borrowed(_)));
    }

    #[test]
    fn terminal_makes_controls_and_bidi_visible() {
        assert_eq!(terminal("evil\n::error::x\u{1b}"), "evil\\n::error::x\\x1b");
        assert_eq!(terminal("\u{9b}"), "\\x9b");
        assert_eq!(terminal("a\u{202e}b\u{2066}"), "a\\u{202e}b\\u{2066}");
        assert!(matches!(terminal("plain ünï"), Cow::Borrowed(_)));
    }

    #[test]
    fn line_never_starts_a_workflow_command() {
        assert_eq!(line("  ::error::x"), "  \\::error::x");
        assert_eq!(line("a\n::error::x"), "a\\n::error::x");
    }

    #[test]
    fn markup_and_markdown() {
        assert_eq!(
            markup("<a href=\"x\">&'\u{1}\u{FFFF}"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;\u{FFFD}\u{FFFD}"
        );
        assert_eq!(markdown_cell("a|b`c<i>\nd"), "a\\|b\\`c&lt;i&gt;\\nd");
        assert_eq!(markdown_code("a`b|c"), "``a`b\\|c``");
        assert_eq!(markdown_code("`x"), "`` `x ``");
    }

    #[test]
    fn workflow_commands_stay_on_their_line() {
        assert_eq!(workflow_data("a%\r\n::error::x"), "a%25%0D%0A::error::x");
        assert_eq!(workflow_property("a:b,c\n"), "a%3Ab%2Cc%0A");
    }

    #[test]
    fn href_encodes_and_refuses_script_schemes() {
        assert_eq!(
            href("javascript:alert(document.domain).h", None),
            "./javascript%3Aalert%28document.domain%29.h"
        );
        assert_eq!(
            href("MobileGL/a b#c?.h", Some(7)),
            "MobileGL/a%20b%23c%3F.h#L7"
        );
        assert_eq!(href("file:///w/x%.h", None), "file:///w/x%25.h");
        assert_eq!(
            href("https://github.com/o/r/blob/main/a.h", Some(2)),
            "https://github.com/o/r/blob/main/a.h#L2"
        );
        assert_eq!(href("JavaScript://x", None), "./JavaScript%3A//x");
    }
}
