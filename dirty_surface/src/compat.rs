//! A faithful model of the upstream scanner (`gen_pipe_dirty_surface.py`, spec §1.5–§1.8),
//! blind spots included, so `--compat upstream` regenerates the figures the docs quote and the
//! accurate scanner can say exactly where and why it counts differently.

use regex::Regex;

/// Upstream's offset-preserving mask: comments and string/char literals become spaces
/// (newlines kept). It knows no raw strings, digit separators or continued `//` comments.
/// The text between constructs is skipped to the next `/`, `"` or `'` and each construct is
/// blanked as one range (the byte-at-a-time loop it replaced is kept in the tests as the
/// reference it must equal).
pub fn mask(src: &str) -> String {
    let s = src.as_bytes();
    let mut out = s.to_vec();
    let n = s.len();
    let blank = |out: &mut [u8]| {
        for b in out.iter_mut().filter(|b| **b != b'\n') {
            *b = b' ';
        }
    };
    let mut i = 0;
    while i < n {
        match s[i..]
            .iter()
            .position(|&b| matches!(b, b'/' | b'"' | b'\''))
        {
            Some(k) => i += k,
            None => break,
        }
        let c = s[i];
        if c == b'/' {
            match s.get(i + 1) {
                Some(b'/') => {
                    let end = s[i..].iter().position(|&b| b == b'\n').map_or(n, |k| i + k);
                    blank(&mut out[i..end]);
                    i = end;
                }
                Some(b'*') => {
                    let close = s
                        .get(i + 2..)
                        .and_then(|rest| rest.windows(2).position(|w| w == b"*/"))
                        .map_or(n, |k| i + 2 + k + 2);
                    blank(&mut out[i..close]);
                    i = close;
                }
                _ => i += 1,
            }
        } else {
            let mut j = i + 1;
            while j < n && s[j] != c {
                j += if s[j] == b'\\' && j + 1 < n { 2 } else { 1 };
            }
            let end = (j + 1).min(n);
            blank(&mut out[i..end]);
            i = end;
        }
    }
    // Only ASCII bytes were replaced, each whole UTF-8 sequence inside a comment or literal is
    // blanked byte by byte, so the result is still UTF-8; fall back to lossy just in case.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The mask as first written, one byte at a time: the reference [`mask`] must equal.
#[cfg(test)]
pub(crate) fn mask_reference(src: &str) -> String {
    let s = src.as_bytes();
    let mut out = s.to_vec();
    let n = s.len();
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, k: usize| {
        if out[k] != b'\n' {
            out[k] = b' ';
        }
    };
    while i < n {
        let c = s[i];
        if c == b'/' && i + 1 < n && s[i + 1] == b'/' {
            while i < n && s[i] != b'\n' {
                blank(&mut out, i);
                i += 1;
            }
        } else if c == b'/' && i + 1 < n && s[i + 1] == b'*' {
            blank(&mut out, i);
            blank(&mut out, i + 1);
            i += 2;
            while i < n && !(s[i] == b'*' && i + 1 < n && s[i + 1] == b'/') {
                blank(&mut out, i);
                i += 1;
            }
            if i < n {
                blank(&mut out, i);
                blank(&mut out, i + 1);
                i += 2;
            }
        } else if c == b'"' || c == b'\'' {
            blank(&mut out, i);
            i += 1;
            while i < n && s[i] != c {
                if s[i] == b'\\' && i + 1 < n {
                    blank(&mut out, i);
                    blank(&mut out, i + 1);
                    i += 2;
                } else {
                    blank(&mut out, i);
                    i += 1;
                }
            }
            if i < n {
                blank(&mut out, i);
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    // Only ASCII bytes were replaced, each whole UTF-8 sequence inside a comment or literal is
    // blanked byte by byte, so the result is still UTF-8; fall back to lossy just in case.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The compiled patterns of one prefix set.
#[derive(Debug)]
pub struct Patterns {
    header: Regex,
    mutator: Regex,
    note: Regex,
    backend: Regex,
}

const DROPPED_NAMES: [&str; 6] = ["if", "for", "while", "switch", "catch", "else"];

impl Patterns {
    pub fn new(prefixes: &[String]) -> Result<Self, regex::Error> {
        let alts: Vec<String> = prefixes.iter().map(|p| regex::escape(p)).collect();
        Ok(Patterns {
            header: Regex::new(
                r"(?m)^[ \t]*[A-Za-z_][\w:<>,&*\s]*?\b(\w+)\s*\(([^;{}]*)\)\s*(?:const)?\s*(?:noexcept)?\s*\{",
            )?,
            mutator: Regex::new(&format!(r"pGLContext->\s*((?:{})\w*)\s*\(", alts.join("|")))?,
            note: Regex::new(r"MGP_NOTE_MUTATION\(\s*(\w+)\s*\)")?,
            backend: Regex::new(
                r"gBackendFunctionsTable\.GL\.\s*(\w+)|pActiveBackendObject->\s*(\w+)",
            )?,
        })
    }
}

/// A textually matched body.
#[derive(Debug, Clone)]
pub struct Body {
    pub name: String,
    /// Byte offsets of `{` and of the matching `}` (or the end of the text).
    pub open: usize,
    pub close: usize,
    /// Line of the `{`.
    pub line: u32,
    pub params: String,
    /// Backend names reached, de-duplicated and sorted.
    pub backend: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct CompatCall {
    pub offset: usize,
    pub line: u32,
    pub mutator: String,
    /// Mechanism B: the note's enclosing body name is the mutator.
    pub note: bool,
}

/// One IMMEDIATE PUBLISH POINT as upstream sees it.
#[derive(Debug, Clone)]
pub struct CompatPoint {
    pub body: usize,
    /// Indices into `calls`, in match order.
    pub calls: Vec<usize>,
}

#[derive(Debug, Clone, Default)]
pub struct CompatScan {
    pub bodies: Vec<Body>,
    pub calls: Vec<CompatCall>,
    pub points: Vec<CompatPoint>,
}

/// Line (1-based) of every offset, via a table of newline offsets.
pub struct Lines(Vec<usize>);

impl Lines {
    pub fn new(text: &str) -> Self {
        Lines(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i)
                .collect(),
        )
    }
    pub fn line(&self, offset: usize) -> u32 {
        (self.0.partition_point(|&nl| nl < offset) + 1) as u32
    }
    /// 1-based byte column.
    pub fn column(&self, offset: usize) -> u32 {
        let k = self.0.partition_point(|&nl| nl < offset);
        let start = if k == 0 { 0 } else { self.0[k - 1] + 1 };
        (offset - start + 1) as u32
    }
}

/// Matching `}` for the `{` at `open` in masked text, by plain brace counting.
pub fn match_brace(masked: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    for (k, &b) in masked.iter().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    masked.len()
}

/// Every body the header pattern matches, nested "functions" included (matching resumes after
/// the header, not after the body).
pub fn bodies(p: &Patterns, masked: &str, lines: &Lines) -> Vec<Body> {
    let mb = masked.as_bytes();
    let mut out = Vec::new();
    for c in p.header.captures_iter(masked) {
        let (Some(m), Some(name), Some(params)) = (c.get(0), c.get(1), c.get(2)) else {
            continue;
        };
        if DROPPED_NAMES.contains(&name.as_str()) {
            continue;
        }
        let open = m.end() - 1;
        let close = match_brace(mb, open);
        let mut backend: Vec<String> = p
            .backend
            .captures_iter(&masked[open..close.min(masked.len())])
            .filter_map(|b| b.get(1).or(b.get(2)).map(|x| x.as_str().to_string()))
            .collect();
        backend.sort();
        backend.dedup();
        out.push(Body {
            name: name.as_str().to_string(),
            open,
            close,
            line: lines.line(open),
            params: params.as_str().to_string(),
            backend,
        });
    }
    out
}

/// Run the upstream scanner over one file.
pub fn scan(p: &Patterns, src: &str) -> CompatScan {
    let masked = mask(src);
    let lines = Lines::new(&masked);
    let bodies = bodies(p, &masked, &lines);
    let mut calls: Vec<CompatCall> = p
        .mutator
        .captures_iter(&masked)
        .filter_map(|c| {
            let (m, name) = (c.get(0)?, c.get(1)?);
            Some(CompatCall {
                offset: m.start(),
                line: lines.line(m.start()),
                mutator: name.as_str().to_string(),
                note: false,
            })
        })
        .collect();
    let a_calls = calls.len();
    for b in &bodies {
        let end = b.close.min(masked.len());
        for c in p.note.find_iter(&masked[b.open..end]) {
            let off = b.open + c.start();
            calls.push(CompatCall {
                offset: off,
                line: lines.line(off),
                mutator: b.name.clone(),
                note: true,
            });
        }
    }
    let mut points = Vec::new();
    for (k, b) in bodies.iter().enumerate() {
        if b.backend.is_empty() {
            continue;
        }
        let inside: Vec<usize> = (0..a_calls)
            .filter(|&c| calls[c].offset >= b.open && calls[c].offset <= b.close)
            .collect();
        if !inside.is_empty() {
            points.push(CompatPoint {
                body: k,
                calls: inside,
            });
        }
    }
    CompatScan {
        bodies,
        calls,
        points,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// The range-at-a-time mask equals the byte-at-a-time reference on every string of up to
    /// six bytes over the bytes that matter (and a non-ASCII one), and on every driver file.
    #[test]
    fn mask_equals_the_reference() {
        let alphabet = ["/", "*", "\"", "'", "\\", "\n", "a", "é"];
        let mut cases = vec![String::new()];
        let mut frontier = vec![String::new()];
        for _ in 0..6 {
            let mut next = Vec::new();
            for f in &frontier {
                for a in alphabet {
                    next.push(format!("{f}{a}"));
                }
            }
            cases.extend(next.iter().cloned());
            frontier = next;
        }
        let driver = crate::rx::driver_texts();
        let files = driver.len();
        cases.extend(driver);
        assert!(
            files > 50 && cases.len() > 250_000,
            "{files} {}",
            cases.len()
        );
        for c in &cases {
            assert_eq!(mask(c), mask_reference(c), "{c:?}");
        }
    }

    fn pats() -> Patterns {
        let p: Vec<String> =
            "Add Set Mark Bump Allocate Truncate Record Notify Begin End Use Bind Touch"
                .split(' ')
                .map(String::from)
                .collect();
        Patterns::new(&p).unwrap()
    }

    #[test]
    fn digit_separator_swallows_a_call_like_upstream() {
        let src = "void F() {\n  int a = 1'000; pGLContext->SetA(1); int b = 2'0;\n  pGLContext->SetB(2);\n}\n";
        let s = scan(&pats(), src);
        let names: Vec<&str> = s.calls.iter().map(|c| c.mutator.as_str()).collect();
        assert_eq!(names, vec!["SetB"]);
    }

    #[test]
    fn nested_headers_double_count_immediates() {
        let src = "void F()\n{\n    pGLContext->SetA(1);\n    MG_MACRO Name(args) {\n        pGLContext->SetB(1);\n        gBackendFunctionsTable.GL.Enable(x);\n    }\n}\n";
        let s = scan(&pats(), src);
        assert_eq!(s.calls.len(), 2);
        let imm: usize = s.points.iter().map(|p| p.calls.len()).sum();
        assert_eq!(imm, 3);
        assert_eq!(s.bodies[0].line, 2);
    }

    #[test]
    fn no_left_boundary_and_prefix_is_a_string_start() {
        let src = "void F() { m_pGLContext->AddressOf(1); pGLContext ->SetX(2); }";
        let s = scan(&pats(), src);
        assert_eq!(s.calls.len(), 1);
        assert_eq!(s.calls[0].mutator, "AddressOf");
    }

    #[test]
    fn notes_take_the_enclosing_name() {
        let src = "void NoteUnitTouched(int u)\n{\n    MGP_NOTE_MUTATION(m_units);\n}\n";
        let s = scan(&pats(), src);
        assert_eq!(s.calls.len(), 1);
        assert_eq!(s.calls[0].mutator, "NoteUnitTouched");
        assert_eq!(s.calls[0].line, 3);
    }
}
