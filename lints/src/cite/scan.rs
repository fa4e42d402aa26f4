//! Finding citations in a Markdown document (pure: text in, [`DocScan`] out).
//!
//! A citation is `path:N`, `path:N-M`, `path:N–M`, `path:N,M,K` (every member) or a `:N`
//! continuation that inherits the last cited file of its paragraph, list item or table cell.
//! URLs, times (`10:45`), ratios and `§` references never match. Citations inside fenced code
//! blocks are counted but never checked (they are quoted tool output).

use super::model::{Citation, DocScan, Form, PathStyle, Skipped, Span};

/// File extensions a driver repository cites (lower case).
pub const EXTENSIONS: &[&str] = &[
    "c",
    "cc",
    "cpp",
    "cxx",
    "h",
    "hh",
    "hpp",
    "hxx",
    "inc",
    "inl",
    "ipp",
    "def",
    "m",
    "mm",
    "py",
    "sh",
    "bash",
    "ps1",
    "cmake",
    "txt",
    "json",
    "yml",
    "yaml",
    "toml",
    "md",
    "kt",
    "kts",
    "java",
    "gradle",
    "xml",
    "glsl",
    "vert",
    "frag",
    "comp",
    "fbs",
    "rs",
    "in",
    "mk",
    "cfg",
    "ini",
    "properties",
    "pro",
    "bp",
    "aidl",
];

const FULLWIDTH_COLON: &str = "\u{FF1A}";
const EN_DASH: &str = "\u{2013}";

/// True when `name` (a file name or path) ends in a known source extension.
pub fn has_source_extension(name: &str) -> bool {
    let base = name.rsplit('/').next().unwrap_or(name);
    match base.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => {
            EXTENSIONS.iter().any(|e| e.eq_ignore_ascii_case(ext))
        }
        _ => false,
    }
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn is_path_byte(b: u8) -> bool {
    is_word(b) || matches!(b, b'.' | b'-' | b'/' | b'~' | b'+')
}

/// A code span `…` inside one line: byte range of its content (line-relative).
fn code_spans(line: &str) -> Vec<Span> {
    let b = line.as_bytes();
    // backtick runs (start, length), in order
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'`' {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && b[i] == b'`' {
            i += 1;
        }
        runs.push((start, i - start));
    }
    // the next run of the same length after each run, found in one backward pass (looking it up
    // by scanning forward from every opener is quadratic on a line of unmatched runs)
    let mut next_same = vec![usize::MAX; runs.len()];
    let mut last_of_len: std::collections::HashMap<usize, usize> = Default::default();
    for k in (0..runs.len()).rev() {
        if let Some(&n) = last_of_len.get(&runs[k].1) {
            next_same[k] = n;
        }
        last_of_len.insert(runs[k].1, k);
    }
    let mut spans = Vec::new();
    let mut k = 0;
    while k < runs.len() {
        let (start, run) = runs[k];
        match next_same.get(k).copied().filter(|&n| n != usize::MAX) {
            Some(n) => {
                spans.push(start + run..runs[n].0);
                k = n + 1;
            }
            None => k += 1,
        }
    }
    spans
}

/// Whether byte `i` lies inside one of `spans` (sorted, disjoint): a binary search, so a line
/// with many code spans and many dots or pipes stays linear.
fn in_spans(spans: &[Span], i: usize) -> bool {
    let k = spans.partition_point(|s| s.start <= i);
    k > 0 && i < spans[k - 1].end
}

/// Whether `r` lies wholly inside one of `spans` (sorted, disjoint).
fn within_span(spans: &[Span], r: &Span) -> bool {
    let k = spans.partition_point(|s| s.start <= r.start);
    k > 0 && r.end <= spans[k - 1].end
}

/// Numbers of one citation after the colon: members, each (first, last, spans, dash kind).
struct Member {
    first: u64,
    last: u64,
    first_span: Span,
    last_span: Option<Span>,
    en_dash: bool,
}

fn parse_number(b: &[u8], at: usize) -> Option<(u64, usize)> {
    let mut end = at;
    while end < b.len() && b[end].is_ascii_digit() {
        end += 1;
    }
    if end == at {
        return None;
    }
    // saturate: a 30-digit line number is simply past the end of every file
    let mut v: u64 = 0;
    for &d in &b[at..end] {
        v = v.saturating_mul(10).saturating_add(u64::from(d - b'0'));
    }
    Some((v, end))
}

/// Parse `N`, `N-M`, `N–M`, and `,`-separated lists of those, starting at `at` (a digit).
/// Returns the members and the end offset, or None when what follows makes it no citation.
fn parse_numbers(b: &[u8], at: usize) -> Option<(Vec<Member>, usize)> {
    let mut members = Vec::new();
    let mut pos = at;
    loop {
        let (first, end) = parse_number(b, pos)?;
        let mut m = Member {
            first,
            last: first,
            first_span: pos..end,
            last_span: None,
            en_dash: false,
        };
        pos = end;
        let dash = if b.get(pos) == Some(&b'-') {
            Some((1, false))
        } else if b[pos..].starts_with(EN_DASH.as_bytes()) {
            Some((EN_DASH.len(), true))
        } else {
            None
        };
        if let Some((len, en)) = dash {
            if let Some((last, end2)) = parse_number(b, pos + len) {
                m.last = last;
                m.last_span = Some(pos + len..end2);
                m.en_dash = en;
                pos = end2;
            }
        }
        members.push(m);
        if b.get(pos) == Some(&b',') && b.get(pos + 1).is_some_and(u8::is_ascii_digit) {
            pos += 1;
            continue;
        }
        break;
    }
    // `:12abc`, `:1.5` and `10:45:` style tails are not line numbers
    match b.get(pos) {
        Some(&c) if is_word(c) => None,
        Some(b'.') if b.get(pos + 1).is_some_and(u8::is_ascii_digit) => None,
        _ => Some((members, pos)),
    }
}

/// One raw match in a line before scoping: line-relative offsets.
struct RawCite {
    start: usize,
    end: usize,
    path: Option<String>,
    members: Vec<Member>,
}

/// Find raw citations in one line. `continuations` allows `:N` matches (not in fences).
fn raw_cites(line: &str, continuations: bool, skipped: &mut Skipped) -> Vec<RawCite> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut taken_until = 0;
    // start of the whitespace-delimited word around `i`, advanced monotonically (a line without
    // spaces must not be walked back to its start for every citation)
    let (mut word_cursor, mut word_start) = (0usize, 0usize);
    // start of the last `://` wholly before the cursor
    let (mut url_cursor, mut url_at) = (0usize, None::<usize>);
    while i < b.len() {
        let colon_len = if b[i] == b':' {
            1
        } else if b[i..].starts_with(FULLWIDTH_COLON.as_bytes()) {
            FULLWIDTH_COLON.len()
        } else {
            i += 1;
            continue;
        };
        let digits_at = i + colon_len;
        if i < taken_until || !b.get(digits_at).is_some_and(u8::is_ascii_digit) {
            i += colon_len;
            continue;
        }
        // walk back over the path
        let mut s = i;
        while s > 0 && is_path_byte(b[s - 1]) {
            s -= 1;
        }
        // trim leading punctuation that cannot start a path (`--x.cpp`, `...x.cpp`)
        while s < i && matches!(b[s], b'-' | b'+') {
            s += 1;
        }
        let path = &line[s..i];
        let Some((members, end)) = parse_numbers(b, digits_at) else {
            i = digits_at;
            continue;
        };
        if path.is_empty() {
            let prev = if s == 0 { None } else { Some(b[s - 1]) };
            let ok_prev = matches!(
                prev,
                None | Some(b' ' | b'\t' | b'(' | b'[' | b'`' | b',' | b';' | b'"' | b'\'')
            );
            if continuations && ok_prev {
                out.push(RawCite {
                    start: s,
                    end,
                    path: None,
                    members,
                });
                taken_until = end;
            }
            i = end;
            continue;
        }
        if !has_source_extension(path) || path.ends_with('/') {
            i = digits_at;
            continue;
        }
        // the whitespace-delimited word around the match: a URL is no citation
        // both cursors only move forward, because `i` does
        while word_cursor < s {
            if b[word_cursor].is_ascii_whitespace() {
                word_start = word_cursor + 1;
            }
            word_cursor += 1;
        }
        while url_cursor + 3 <= i {
            if &b[url_cursor..url_cursor + 3] == b"://" {
                url_at = Some(url_cursor);
            }
            url_cursor += 1;
        }
        let word = &line[word_start..i];
        let url = url_at.is_some_and(|u| u >= word_start);
        if url || word.starts_with("www.") || word.ends_with('@') {
            skipped.urls += 1;
            i = end;
            continue;
        }
        out.push(RawCite {
            start: s,
            end,
            path: Some(path.to_string()),
            members,
        });
        taken_until = end;
        i = end;
    }
    out
}

/// Identifier-like backticked text usable as a drift anchor.
fn is_anchor(text: &str) -> bool {
    let t = text.trim();
    if t.is_empty()
        || t.len() > 100
        || !t.bytes().any(is_word)
        || t.bytes().all(|c| c.is_ascii_digit())
    {
        return false;
    }
    // a file name or path mention is not an identifier of the cited code
    let first_word = t.split_whitespace().next().unwrap_or(t);
    !(has_source_extension(first_word) || t.contains('/') && !t.contains(' '))
}

fn is_list_item(line: &str) -> bool {
    let t = line.trim_start();
    let b = t.as_bytes();
    if matches!(b.first(), Some(b'-' | b'*' | b'+')) && b.get(1) == Some(&b' ') {
        return true;
    }
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    digits > 0 && matches!(b.get(digits), Some(b'.' | b')')) && b.get(digits + 1) == Some(&b' ')
}

/// Sentence boundaries (line-relative offsets) outside code spans: `.`/`!`/`?` + space or end.
fn sentence_breaks(line: &str, spans: &[Span]) -> Vec<usize> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    for i in 0..b.len() {
        if !matches!(b[i], b'.' | b'!' | b'?') || in_spans(spans, i) {
            continue;
        }
        if !(i + 1 == b.len() || b[i + 1] == b' ') {
            continue;
        }
        let before = &line[..i + 1];
        let abbrev = ["e.g.", "i.e.", "etc.", "vs.", "cf.", "approx."]
            .iter()
            .any(|a| before.ends_with(a));
        if !abbrev {
            out.push(i);
        }
    }
    out
}

/// An event inside one scope (paragraph, list item, table cell), in document order.
enum Event {
    Span { text: String },
    Group { first_cite: usize, count: usize },
    Break,
}

/// State of the scope being read.
#[derive(Default)]
struct Scope {
    events: Vec<Event>,
    /// (path, document line) of the last path citation in this scope (table: in this cell)
    last_path: Option<(String, usize)>,
}

fn finish_scope(scope: &mut Scope, cites: &mut [Citation]) {
    let events = std::mem::take(&mut scope.events);
    scope.last_path = None;
    // split into sentences, then give each citation group the spans before it (back to the
    // previous group in the sentence), or else the spans after it (up to the next group)
    let mut sentence: Vec<&Event> = Vec::new();
    let flush = |sentence: &mut Vec<&Event>, cites: &mut [Citation]| {
        let groups: Vec<usize> = sentence
            .iter()
            .enumerate()
            .filter(|(_, e)| matches!(e, Event::Group { .. }))
            .map(|(i, _)| i)
            .collect();
        for (gi, &pos) in groups.iter().enumerate() {
            let lo = if gi == 0 { 0 } else { groups[gi - 1] + 1 };
            let hi = groups.get(gi + 1).copied().unwrap_or(sentence.len());
            let spans_in = |r: std::ops::Range<usize>| -> Vec<String> {
                sentence[r]
                    .iter()
                    .filter_map(|e| match e {
                        Event::Span { text } => Some(text.clone()),
                        _ => None,
                    })
                    .collect()
            };
            // closest to the citation first: it is the one that must hold
            let mut anchors: Vec<String> = spans_in(lo..pos).into_iter().rev().collect();
            if anchors.is_empty() {
                anchors = spans_in(pos + 1..hi);
            }
            anchors.dedup();
            if let Event::Group { first_cite, count } = sentence[pos] {
                for c in cites.iter_mut().skip(*first_cite).take(*count) {
                    c.anchors.clone_from(&anchors);
                }
            }
        }
        sentence.clear();
    };
    for e in &events {
        if matches!(e, Event::Break) {
            flush(&mut sentence, cites);
        } else {
            sentence.push(e);
        }
    }
    flush(&mut sentence, cites);
}

/// Scan one document. `doc` is its display path, `doc_dir` its folder relative to the workspace
/// root (None when the document lies outside it).
pub fn scan(doc: &str, doc_dir: Option<&str>, text: &str) -> DocScan {
    let mut citations: Vec<Citation> = Vec::new();
    let mut skipped = Skipped::default();
    let mut scope = Scope::default();
    let mut fence: Option<(u8, usize)> = None;
    let mut offset = 0usize;
    for (idx, raw_line) in crate::lines::inclusive(text).enumerate() {
        let line_no = idx + 1;
        let line = raw_line.trim_end_matches(['\n', '\r']);
        let line_off = offset;
        offset += raw_line.len();
        let trimmed = line.trim_start();
        // fenced code blocks: ``` or ~~~, closed by a run at least as long
        let fence_run = |c: u8| trimmed.bytes().take_while(|&x| x == c).count();
        if let Some((c, n)) = fence {
            if fence_run(c) >= n && trimmed.bytes().all(|x| x == c || x.is_ascii_whitespace()) {
                fence = None;
                continue;
            }
            for r in raw_cites(line, false, &mut skipped) {
                for m in &r.members {
                    citations.push(make_cite(
                        doc,
                        line_no,
                        line_off,
                        &r,
                        m,
                        false,
                        true,
                        None,
                        r.path.clone(),
                    ));
                }
            }
            continue;
        }
        if fence_run(b'`') >= 3 || fence_run(b'~') >= 3 {
            finish_scope(&mut scope, &mut citations);
            let c = trimmed.as_bytes()[0];
            fence = Some((c, fence_run(c)));
            continue;
        }
        if trimmed.is_empty() {
            finish_scope(&mut scope, &mut citations);
            continue;
        }
        let is_table = trimmed.starts_with('|');
        if is_table || trimmed.starts_with('#') || is_list_item(line) {
            finish_scope(&mut scope, &mut citations);
        }
        let spans = code_spans(line);
        let breaks = sentence_breaks(line, &spans);
        let raws = raw_cites(line, true, &mut skipped);
        // table cells split at `|` outside code spans; one scope per cell
        let cell_ends: Vec<usize> = if is_table {
            line.bytes()
                .enumerate()
                .filter(|&(i, c)| c == b'|' && !in_spans(&spans, i))
                .map(|(i, _)| i)
                .collect()
        } else {
            Vec::new()
        };
        // merge spans, citations and breaks in line order
        #[derive(Clone, Copy)]
        enum Item {
            Span(usize),
            Cite(usize),
            Break,
            Cell,
        }
        let mut items: Vec<(usize, Item)> = Vec::new();
        for (i, s) in spans.iter().enumerate() {
            items.push((s.start, Item::Span(i)));
        }
        for (i, r) in raws.iter().enumerate() {
            items.push((r.start, Item::Cite(i)));
        }
        for &b in &breaks {
            items.push((b, Item::Break));
        }
        for &c in &cell_ends {
            items.push((c, Item::Cell));
        }
        items.sort_by_key(|&(pos, item)| (pos, matches!(item, Item::Span(_))));
        for (_, item) in items {
            match item {
                Item::Break => scope.events.push(Event::Break),
                // a continuation inherits only within its cell; anchors may come from the row
                Item::Cell => scope.last_path = None,
                Item::Span(i) => {
                    let s = &spans[i];
                    let text = &line[s.clone()];
                    // raws are sorted and disjoint: only the first one starting inside can fit
                    let k = raws.partition_point(|r| r.start < s.start);
                    let has_cite = raws.get(k).is_some_and(|r| r.end <= s.end);
                    if !has_cite && is_anchor(text) {
                        scope.events.push(Event::Span {
                            text: text.trim().to_string(),
                        });
                    }
                }
                Item::Cite(i) => {
                    let r = &raws[i];
                    let backticked = within_span(&spans, &(r.start..r.end));
                    let (path, inherited) = match &r.path {
                        Some(p) => {
                            scope.last_path = Some((p.clone(), line_no));
                            (Some(p.clone()), None)
                        }
                        None => match &scope.last_path {
                            Some((p, l)) => (Some(p.clone()), Some(*l)),
                            None => (None, None),
                        },
                    };
                    let first_cite = citations.len();
                    for m in &r.members {
                        citations.push(make_cite(
                            doc,
                            line_no,
                            line_off,
                            r,
                            m,
                            backticked,
                            false,
                            inherited,
                            path.clone(),
                        ));
                    }
                    scope.events.push(Event::Group {
                        first_cite,
                        count: r.members.len(),
                    });
                }
            }
        }
    }
    finish_scope(&mut scope, &mut citations);
    DocScan {
        doc: doc.to_string(),
        doc_dir: doc_dir.map(str::to_string),
        citations,
        skipped,
    }
}

#[allow(clippy::too_many_arguments)]
fn make_cite(
    doc: &str,
    line_no: usize,
    line_off: usize,
    r: &RawCite,
    m: &Member,
    backticked: bool,
    in_fence: bool,
    inherited_from: Option<usize>,
    path: Option<String>,
) -> Citation {
    let form = if r.path.is_none() {
        Form::Continuation
    } else if r.members.len() > 1 {
        Form::ListMember
    } else if m.en_dash {
        Form::EnDashRange
    } else if m.last_span.is_some() {
        Form::Range
    } else {
        Form::Line
    };
    let style = path.as_deref().map(|p| {
        if p.starts_with('~') {
            PathStyle::Home
        } else if p.starts_with('/') {
            PathStyle::Absolute
        } else if p.contains('/') {
            PathStyle::Path
        } else {
            PathStyle::Bare
        }
    });
    let text = match (&r.path, r.members.len()) {
        (Some(p), n) if n > 1 => {
            let nums = match &m.last_span {
                Some(_) => format!("{}-{}", m.first, m.last),
                None => m.first.to_string(),
            };
            format!("{p}:{nums}")
        }
        _ => String::new(),
    };
    let shift = |s: &Span| s.start + line_off..s.end + line_off;
    let mut c = Citation {
        doc: doc.to_string(),
        line: line_no,
        column: r.start + 1,
        text,
        path,
        inherited_from,
        form,
        style,
        first: m.first,
        last: m.last,
        first_span: shift(&m.first_span),
        last_span: m.last_span.as_ref().map(shift),
        anchors: Vec::new(),
        in_fence,
        backticked,
    };
    if c.text.is_empty() {
        c.text = whole_text(r, &c);
    }
    c
}

fn whole_text(r: &RawCite, c: &Citation) -> String {
    let nums = if c.last_span.is_some() {
        let dash = if c.form == Form::EnDashRange {
            EN_DASH
        } else {
            "-"
        };
        format!("{}{dash}{}", c.first, c.last)
    } else {
        c.first.to_string()
    };
    match &r.path {
        Some(p) => format!("{p}:{nums}"),
        None => format!(":{nums}"),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn cites(text: &str) -> Vec<Citation> {
        scan("d.md", Some("docs"), text).citations
    }

    #[test]
    fn every_form() {
        let c = cites(
            "See `MobileGL/A.cpp:12` and B.h:3-5, C.cpp:7\u{2013}9 and `D.cpp:1,4,10-11`.\n\
             Then (:20) applies.\n",
        );
        let forms: Vec<Form> = c.iter().map(|c| c.form).collect();
        assert_eq!(
            forms,
            vec![
                Form::Line,
                Form::Range,
                Form::EnDashRange,
                Form::ListMember,
                Form::ListMember,
                Form::ListMember,
                Form::Continuation
            ]
        );
        assert_eq!(c[0].path.as_deref(), Some("MobileGL/A.cpp"));
        assert!(c[0].backticked);
        assert_eq!((c[1].first, c[1].last), (3, 5));
        assert_eq!((c[2].first, c[2].last), (7, 9));
        assert_eq!((c[5].first, c[5].last), (10, 11));
        assert_eq!(c[6].path.as_deref(), Some("D.cpp"));
        assert_eq!(c[6].inherited_from, Some(1));
    }

    #[test]
    fn non_citations() {
        let s = scan(
            "d.md",
            None,
            "At 10:45 the ratio 3:2 held; see §3.8 and https://x.org/a/B.cpp:12 or note:5 or v1.2:3 or x.cpp:12abc\n",
        );
        assert!(s.citations.is_empty(), "{:?}", s.citations);
        assert_eq!(s.skipped.urls, 1);
    }

    #[test]
    fn urls_and_words_on_long_lines() {
        // the word cursors move forward only: a URL after a citation, a citation after a URL
        let s = scan(
            "d.md",
            None,
            "a.cpp:1 https://x.org/b.cpp:2 c.cpp:3;`F`d.cpp:4 www.e.org/e.cpp:5\n",
        );
        let paths: Vec<_> = s
            .citations
            .iter()
            .map(|c| c.path.clone().unwrap())
            .collect();
        assert_eq!(paths, vec!["a.cpp", "c.cpp", "d.cpp"]);
        assert_eq!(s.skipped.urls, 2);
        let line: String = (0..500).map(|_| "`Foo`src/A.cpp:1;").collect();
        let s = scan("d.md", None, &line);
        assert_eq!(s.citations.len(), 500);
        assert!(s.citations.iter().all(|c| c.anchors == vec!["Foo"]));
    }

    #[test]
    fn code_spans_pair_runs_of_equal_length() {
        assert_eq!(code_spans("`a` ``b`c`` ` d"), vec![1..2, 6..9]);
        assert_eq!(code_spans("``` ` ```"), vec![3..6]);
    }

    #[test]
    fn continuation_scope_is_paragraph_and_cell() {
        let c = cites("A.cpp:1 here.\n\n(:5) orphan\n| B.cpp:2 | (:7) |\n| :9 | x |\n");
        assert_eq!(c[1].form, Form::Continuation);
        assert_eq!(c[1].path, None);
        assert_eq!(c[3].path.as_deref(), None, "a new cell does not inherit");
        assert_eq!(c[4].path.as_deref(), None);
    }

    #[test]
    fn anchors_from_the_citing_sentence() {
        let c = cites(
            "`SetX`'s `default:` arm (`R.cpp:381-382`) and `Foo` (`R.cpp:9`). Other `Bar` here.\n",
        );
        assert_eq!(c[0].anchors, vec!["default:", "SetX"]);
        assert_eq!(c[1].anchors, vec!["Foo"]);
        let c = cites("(`Foo.cpp:120`) (`SetX`) e.g. more.\n");
        assert_eq!(c[0].anchors, vec!["SetX"]);
    }

    #[test]
    fn fenced_citations_are_counted_not_scoped() {
        let c = cites("```\nx.md:3: `A.cpp:9` -> gone\n(:5)\n```\n:4\n");
        assert_eq!(c.len(), 3);
        assert!(c[..2].iter().all(|c| c.in_fence));
        assert_eq!(
            (c[2].form, c[2].path.as_deref(), c[2].in_fence),
            (Form::Continuation, None, false)
        );
    }

    #[test]
    fn huge_numbers_saturate_and_paths_styles() {
        let c = cites("A.cpp:99999999999999999999999 ~/x/B.h:3 /abs/C.h:4 ../src/D.cpp:1\n");
        assert_eq!(c[0].first, u64::MAX);
        assert_eq!(c[1].style, Some(PathStyle::Home));
        assert_eq!(c[2].style, Some(PathStyle::Absolute));
        assert_eq!(c[3].style, Some(PathStyle::Path));
        assert_eq!(c[3].path.as_deref(), Some("../src/D.cpp"));
    }

    #[test]
    fn spans_point_at_the_digits() {
        let text = "x\nSee A.cpp:12-140 and :7.\n";
        let c = cites(text);
        assert_eq!(&text[c[0].first_span.clone()], "12");
        assert_eq!(&text[c[0].last_span.clone().unwrap()], "140");
        assert_eq!(&text[c[1].first_span.clone()], "7");
        assert_eq!(c[0].column, 5);
    }
}
