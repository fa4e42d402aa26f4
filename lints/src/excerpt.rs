//! The source line a finding carries, cut to a window around the hit. Without the cut, 16,000 hits
//! on one 192 KB line carry (and print, and serialise) the line 16,000 times: gigabytes. Every
//! function here costs O(MAX_CHARS) per hit, whatever the length of the line.

/// Characters of a source line a finding carries at most (plus the `…` marks of a cut).
pub const MAX_CHARS: usize = 160;
/// Characters kept before the hit when a line is cut.
const BEFORE: usize = 40;
/// The longest a character is in UTF-8: byte windows are widened by this factor.
const UTF8_MAX: usize = 4;

/// `line`, trimmed; a line longer than `MAX_CHARS` is cut to a window around the hit at byte
/// `start`, with `…` on each side that was cut.
pub fn around(line: &str, start: usize) -> String {
    window(line, start, false, false)
}

/// As `around`, for a line that may not be UTF-8 (invalid bytes become U+FFFD). Only a window
/// of the line is decoded.
pub fn around_bytes(line: &[u8], start: usize) -> String {
    let start = start.min(line.len());
    let is_continuation = |b: u8| b & 0b1100_0000 == 0b1000_0000;
    let mut lo = start.saturating_sub(BEFORE * UTF8_MAX);
    while lo > 0 && is_continuation(line[lo]) {
        lo -= 1;
    }
    let mut hi = start.saturating_add(MAX_CHARS * UTF8_MAX).min(line.len());
    while hi < line.len() && is_continuation(line[hi]) {
        hi += 1;
    }
    let text = String::from_utf8_lossy(&line[lo..hi]);
    // Replacement characters may shift offsets a little: any boundary near the hit will do.
    window(&text, start - lo, lo > 0, hi < line.len())
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The window of `s` around `start..end`; `cut_left`/`cut_right` say `s` is itself a piece of a
/// longer line on that side.
fn window(s: &str, start: usize, cut_left: bool, cut_right: bool) -> String {
    if !cut_left && !cut_right && s.char_indices().nth(MAX_CHARS).is_none() {
        return s.trim().to_string();
    }
    let start = floor_boundary(s, start);
    let a = s[..start]
        .char_indices()
        .rev()
        .nth(BEFORE - 1)
        .map_or(0, |(i, _)| i);
    let b = s[a..]
        .char_indices()
        .nth(MAX_CHARS)
        .map_or(s.len(), |(i, _)| a + i);
    let left = cut_left || a > 0;
    let right = cut_right || b < s.len();
    let mut piece = &s[a..b];
    if !left {
        piece = piece.trim_start();
    }
    if !right {
        piece = piece.trim_end();
    }
    format!(
        "{}{piece}{}",
        if left { "…" } else { "" },
        if right { "…" } else { "" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_line_is_only_trimmed() {
        assert_eq!(around("   int pGLContext;  ", 7), "int pGLContext;");
        assert_eq!(around_bytes(b"\tint x; ", 5), "int x;");
    }

    #[test]
    fn a_long_line_is_cut_around_the_hit() {
        let line = format!("{}HIT{}", "a".repeat(10_000), "b".repeat(10_000));
        let e = around(&line, 10_000);
        assert!(e.starts_with('…') && e.ends_with('…'), "{e}");
        assert!(e.contains("HIT"), "{e}");
        assert_eq!(e.chars().count(), MAX_CHARS + 2);
        let at_start = around(&line, 0);
        assert!(!at_start.starts_with('…') && at_start.ends_with('…'));
    }

    #[test]
    fn bytes_and_text_agree_and_invalid_bytes_are_replaced() {
        let line = format!("{}é HIT é{}", "x".repeat(5_000), "y".repeat(5_000));
        let at = line.find("HIT").unwrap_or_default();
        assert_eq!(around(&line, at), around_bytes(line.as_bytes(), at));
        let mut bad = vec![b'z'; 3_000];
        bad.extend_from_slice(b"\xff HIT \xfe");
        bad.extend(vec![b'z'; 3_000]);
        let e = around_bytes(&bad, 3_002);
        assert!(e.contains("\u{fffd} HIT \u{fffd}"), "{e}");
    }

    #[test]
    fn multibyte_lines_cut_on_char_boundaries() {
        let line = "ж".repeat(1_000);
        for at in [0, 1, 2, 999, 1_000, 1_999] {
            let e = around_bytes(line.as_bytes(), at);
            assert!(e.chars().all(|c| c == 'ж' || c == '…'), "{e}");
        }
    }
}
