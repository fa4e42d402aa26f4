//! Registry ↔ call-site census (issue 33, mechanism 1): a registry of names — a `.def` list, a
//! C++ array such as `kNames[]`, a baseline file — and the call-site patterns that must name
//! them. Each entry needs at least one (or exactly one) site, each site must name an entry, a site
//! may need a marker line standing above it in its own block (upstream `wire_declines_audit.py`:
//! a bare `Count()` needs an `MGLOG_W/E` within 8 lines), sites may be scoped to the braces of
//! named code regions, where a pattern without a name is forbidden outright (upstream
//! `espryt_memo_purity.py`), and an allow entry exempts a name from needing a site only while it
//! has none. Everything is matched on text the workspace's one C++ lexer (`cpp_lex`) has masked,
//! so a comment or a string literal is never a site; newlines are kept, so lines are real.

pub mod cfg;
mod check;
pub mod controls;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use regex::bytes::Regex;

use crate::diag::Diag;
use cfg::{CensusConfig, Each, Mask};
pub use check::check;

diag::codes! {
    /// Codes of the `census` gate.
    pub enum Code: "CEN" {
        Cen001 = "CEN001": "a registry entry with no site (a name that can never be counted)",
        Cen002 = "CEN002": "a registry entry with more than one site where exactly one is required",
        Cen003 = "CEN003": "a site naming no registry entry",
        Cen004 = "CEN004": "a site without its marker line in its own block within the window above it",
        Cen005 = "CEN005": "a forbidden pattern inside the census's scope",
        Cen006 = "CEN006": "a registry entry listed twice",
        Cen007 = "CEN007": "a glob, scope anchor or registry that matches nothing (the census would pass vacuously)",
        Cen008 = "CEN008": "an allow entry that names no registry entry, or whose entry has a site now (stale)",
        Cen009 = "CEN009": "an invalid [[census]]: a regex that does not compile, a capture group missing or extra, a repeated name",
        Cen010 = "CEN010": "a file the census reads is missing, unreadable, not UTF-8 or a link out of the workspace",
    }
}

/// One census, compiled.
#[derive(Debug)]
pub struct Census {
    pub name: String,
    /// Byte offset of the census's name in mgctl.toml (where config findings point).
    pub span: usize,
    pub why: String,
    pub registry: Option<Registry>,
    pub sites: Vec<Site>,
    pub scope: Vec<Regex>,
    pub each: Each,
    pub allow: Vec<cfg::AllowConfig>,
}

#[derive(Debug)]
pub struct Registry {
    pub file: String,
    pub entry: Regex,
    pub block: Option<Regex>,
    pub mask: Mask,
}

#[derive(Debug)]
pub struct Site {
    pub pattern: Regex,
    /// Whether the pattern names an entry (one capture group) or is forbidden (none).
    pub named: bool,
    pub mask: Mask,
    pub marker: Option<Marker>,
    pub message: Option<String>,
}

#[derive(Debug)]
pub struct Marker {
    pub pattern: Regex,
    pub within: usize,
    pub block: bool,
}

fn regex(census: &CensusConfig, what: &str, src: &str) -> Result<Regex, Box<Diag<Code>>> {
    Regex::new(src).map_err(|e| {
        Box::new(
            Diag::error(
                Code::Cen009,
                format!(
                    "census `{}`: {what} `{}` does not compile: {}",
                    census.name.get_ref(),
                    diag::escape::line(src),
                    diag::escape::line(&e.to_string())
                ),
            )
            .in_config(census.name.span().start),
        )
    })
}

impl Census {
    /// Compiles one `[[census]]`; every problem is a CEN009 at the census in mgctl.toml.
    pub fn compile(c: &CensusConfig) -> Result<Census, Box<Diag<Code>>> {
        let bad = |m: String| {
            Box::new(
                Diag::error(Code::Cen009, format!("census `{}`: {m}", c.name.get_ref()))
                    .in_config(c.name.span().start),
            )
        };
        let registry = match &c.registry {
            None => None,
            Some(r) => {
                let entry = regex(c, "registry.entry", &r.entry)?;
                if entry.captures_len() != 2 {
                    return Err(bad(format!(
                        "registry.entry needs exactly one capture group (the name), has {}",
                        entry.captures_len() - 1
                    )));
                }
                let block = r
                    .block
                    .as_deref()
                    .map(|b| regex(c, "registry.block", b))
                    .transpose()?;
                Some(Registry {
                    file: r.file.clone(),
                    entry,
                    block,
                    mask: r.mask,
                })
            }
        };
        let mut sites = Vec::new();
        for s in &c.site {
            let pattern = regex(c, "site.pattern", &s.pattern)?;
            let groups = pattern.captures_len() - 1;
            if groups > 1 {
                return Err(bad(format!(
                    "site.pattern `{}` has {groups} capture groups: one names the entry, none forbids the pattern",
                    diag::escape::line(&s.pattern)
                )));
            }
            if groups == 1 && registry.is_none() {
                return Err(bad(
                    "a site that names an entry (a capture group) needs a [census.registry]".into(),
                ));
            }
            let marker = match &s.marker {
                None => None,
                Some(m) if m.within == 0 => {
                    return Err(bad("site.marker.within must be at least 1 line".into()))
                }
                Some(m) => Some(Marker {
                    pattern: regex(c, "site.marker.pattern", &m.pattern)?,
                    within: m.within,
                    block: m.block,
                }),
            };
            sites.push(Site {
                pattern,
                named: groups == 1,
                mask: s.mask,
                marker,
                message: s.message.clone(),
            });
        }
        if sites.is_empty() {
            return Err(bad(
                "no [[census.site]]: a census with no pattern checks nothing".into(),
            ));
        }
        let scope = c
            .scope
            .iter()
            .map(|a| regex(c, "scope anchor", a))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Census {
            name: c.name.get_ref().clone(),
            span: c.name.span().start,
            why: c.why.clone(),
            registry,
            sites,
            scope,
            each: c.each,
            allow: c.allow.clone(),
        })
    }
}

/// One source as read: workspace-relative path and its text (valid UTF-8).
#[derive(Debug, Clone)]
pub struct Source {
    pub rel: String,
    pub text: Vec<u8>,
}

fn masked(text: &[u8], mask: Mask) -> Vec<u8> {
    match mask {
        Mask::Code => cpp_lex::mask::code(text),
        Mask::Comments => cpp_lex::mask::comments(text),
    }
}

/// 1-based line numbers of increasing offsets, counted on from the last one asked (linear over a
/// file however many matches it holds).
struct Lines<'a> {
    text: &'a [u8],
    at: usize,
    line: usize,
}

impl<'a> Lines<'a> {
    fn new(text: &'a [u8]) -> Self {
        Lines {
            text,
            at: 0,
            line: 1,
        }
    }

    fn of(&mut self, at: usize) -> u32 {
        let at = at.min(self.text.len());
        if at < self.at {
            // Out of order (a second pattern over the same text): count again from the start.
            self.at = 0;
            self.line = 1;
        }
        self.line += memchr::memchr_iter(b'\n', &self.text[self.at..at]).count();
        self.at = at;
        u32::try_from(self.line).unwrap_or(u32::MAX)
    }
}

/// The byte range inside the braces that open first at or after `from` (masked text: braces in
/// comments and literals are gone). An unclosed brace runs to the end.
fn braces_after(text: &[u8], from: usize) -> Option<(usize, usize)> {
    let open = from + memchr::memchr(b'{', text.get(from..)?)?;
    let mut depth = 0usize;
    for (i, &b) in text.iter().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some((open + 1, i));
                }
            }
            _ => {}
        }
    }
    Some((open + 1, text.len()))
}

fn indent(line: &[u8]) -> usize {
    let mut n = 0;
    for &b in line {
        match b {
            b' ' => n += 1,
            b'\t' => n += 4 - n % 4,
            _ => break,
        }
    }
    n
}

/// Is a marker line above line `i` (0-based) within the window — with `block`, at the same
/// indentation, the walk ending at the first less-indented line (the block's opening)?
fn has_marker(lines: &[&[u8]], i: usize, m: &Marker) -> bool {
    let own = indent(lines[i]);
    for k in (i.saturating_sub(m.within)..i).rev() {
        let line = lines[k];
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if m.block {
            let ind = indent(line);
            if ind < own {
                return false;
            }
            if ind == own && m.pattern.is_match(line) {
                return true;
            }
        } else if m.pattern.is_match(line) {
            return true;
        }
    }
    false
}

/// Why a registry's `block` selects no entries.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    #[error("registry.block `{block}` matches nothing in {file}")]
    NoBlock { block: String, file: String },
    #[error("no `{{` follows registry.block in {file}")]
    NoBrace { file: String },
}

/// The registry's entries with their lines, or why there are none.
pub fn entries(r: &Registry, text: &[u8]) -> Result<Vec<(String, u32)>, RegistryError> {
    let m = masked(text, r.mask);
    let (from, to) = match &r.block {
        None => (0, m.len()),
        Some(b) => {
            let hit = b.find(&m).ok_or_else(|| RegistryError::NoBlock {
                block: b.as_str().to_string(),
                file: r.file.clone(),
            })?;
            braces_after(&m, hit.end()).ok_or_else(|| RegistryError::NoBrace {
                file: r.file.clone(),
            })?
        }
    };
    let mut lines = Lines::new(&m);
    Ok(r.entry
        .captures_iter(&m[from..to])
        .filter_map(|c| {
            let g = c.get(1)?;
            Some((
                String::from_utf8_lossy(g.as_bytes()).into_owned(),
                lines.of(from + g.start()),
            ))
        })
        .collect())
}

/// One site found.
#[derive(Debug, Clone)]
struct Found {
    name: String,
    rel: String,
    line: u32,
}

/// What one census found over its sources (for the headline).
#[derive(Debug, Default)]
pub struct Tally {
    pub entries: usize,
    pub sites: usize,
    pub files: usize,
}

/// The census's verdict over its registry text and sources (pure: the caller reads them).
pub fn analyse(
    c: &Census,
    registry: Option<&[u8]>,
    sources: &[Source],
) -> (Vec<Diag<Code>>, Tally) {
    let mut diags = Vec::new();
    let name = diag::escape::line(&c.name);
    let mut listed: Vec<(String, u32)> = Vec::new();
    if let (Some(r), Some(text)) = (&c.registry, registry) {
        match entries(r, text) {
            Err(e) => diags.push(
                Diag::error(
                    Code::Cen007,
                    format!("census `{name}`: {}", diag::escape::line(&e.to_string())),
                )
                    .file(r.file.clone()),
            ),
            Ok(e) if e.is_empty() => diags.push(
                Diag::error(
                    Code::Cen007,
                    format!(
                        "census `{name}`: registry.entry `{}` matches no entry in {}: a census of nothing passes vacuously",
                        diag::escape::line(r.entry.as_str()),
                        r.file
                    ),
                )
                .file(r.file.clone()),
            ),
            Ok(e) => listed = e,
        }
    }
    let mut first: BTreeMap<&str, u32> = BTreeMap::new();
    for (entry, line) in &listed {
        if let Some(was) = first.insert(entry, *line) {
            if let Some(r) = &c.registry {
                diags.push(
                    Diag::error(
                        Code::Cen006,
                        format!(
                            "census `{name}`: `{}` is listed twice (first at line {was})",
                            diag::escape::line(entry)
                        ),
                    )
                    .at(r.file.clone(), *line, None)
                    .in_unit(entry.clone()),
                );
            }
            first.insert(entry, was);
        }
    }
    let mut found: Vec<Found> = Vec::new();
    let mut anchored = vec![false; c.scope.len()];
    for s in sources {
        let code = masked(&s.text, Mask::Code);
        let comments = c
            .sites
            .iter()
            .any(|p| p.mask == Mask::Comments)
            .then(|| masked(&s.text, Mask::Comments));
        let lines: Vec<&[u8]> = code.split(|&b| b == b'\n').collect();
        // The source's own lines, split once, for excerpts of forbidden matches.
        let mut original: Option<Vec<&[u8]>> = None;
        let ranges: Vec<(usize, usize)> = if c.scope.is_empty() {
            vec![(0, code.len())]
        } else {
            let mut v = Vec::new();
            for (a, hit) in c.scope.iter().zip(anchored.iter_mut()) {
                for m in a.find_iter(&code) {
                    if let Some(r) = braces_after(&code, m.end()) {
                        *hit = true;
                        v.push(r);
                    }
                }
            }
            v
        };
        let inside = |at: usize| ranges.iter().any(|&(a, b)| a <= at && at < b);
        for p in &c.sites {
            let text = match (p.mask, &comments) {
                (Mask::Comments, Some(t)) => t,
                _ => &code,
            };
            let mut numbers = Lines::new(text);
            for cap in p.pattern.captures_iter(text) {
                let Some(all) = cap.get(0) else { continue };
                if !inside(all.start()) {
                    continue;
                }
                let line = numbers.of(all.start());
                let at = |d: Diag<Code>| d.at(s.rel.clone(), line, None);
                if !p.named {
                    let orig =
                        original.get_or_insert_with(|| s.text.split(|&b| b == b'\n').collect());
                    let excerpt = orig
                        .get(line as usize - 1)
                        .map(|l| String::from_utf8_lossy(l))
                        .unwrap_or_default();
                    let why = p
                        .message
                        .as_deref()
                        .map(|m| format!(": {m}"))
                        .unwrap_or_default();
                    diags.push(at(Diag::error(
                        Code::Cen005,
                        format!(
                            "census `{name}`: `{}` is forbidden here{}: {}",
                            diag::escape::line(&String::from_utf8_lossy(all.as_bytes())),
                            diag::escape::line(&why),
                            diag::escape::line(&diag::escape::shorten(
                                excerpt.trim(),
                                crate::excerpt::MAX_CHARS
                            ))
                        ),
                    )));
                    continue;
                }
                let Some(g) = cap.get(1) else { continue };
                let entry = String::from_utf8_lossy(g.as_bytes()).into_owned();
                if let Some(m) = &p.marker {
                    if !has_marker(&lines, line as usize - 1, m) {
                        diags.push(
                            at(Diag::error(
                                Code::Cen004,
                                format!(
                                    "census `{name}`: the site of `{}` has no line matching `{}` {}within {} lines above it",
                                    diag::escape::line(&entry),
                                    diag::escape::line(m.pattern.as_str()),
                                    if m.block { "in its own block " } else { "" },
                                    m.within
                                ),
                            ))
                            .in_unit(entry.clone()),
                        );
                    }
                }
                found.push(Found {
                    name: entry,
                    rel: s.rel.clone(),
                    line,
                });
            }
        }
    }
    for (a, hit) in c.scope.iter().zip(&anchored) {
        if !hit {
            diags.push(
                Diag::error(
                    Code::Cen007,
                    format!(
                        "census `{name}`: scope anchor `{}` matches no braced region in its sources (every anchor must match)",
                        diag::escape::line(a.as_str())
                    ),
                )
                .in_config(c.span),
            );
        }
    }
    let mut by_entry: BTreeMap<&str, Vec<&Found>> = BTreeMap::new();
    for f in &found {
        by_entry.entry(&f.name).or_default().push(f);
    }
    let allowed: BTreeSet<&str> = c.allow.iter().map(|a| a.entry.as_str()).collect();
    if let Some(r) = &c.registry {
        for (entry, line) in &first {
            let sites = by_entry.get(entry).map_or(&[][..], Vec::as_slice);
            let shown = diag::escape::line(entry);
            if sites.is_empty() && !allowed.contains(entry) {
                diags.push(
                    Diag::error(
                        Code::Cen001,
                        format!("census `{name}`: `{shown}` has no site: it can never be counted"),
                    )
                    .at(r.file.clone(), *line, None)
                    .in_unit(entry.to_string()),
                );
            }
            if sites.len() > 1 && c.each == Each::ExactlyOne {
                let at: Vec<String> = sites
                    .iter()
                    .map(|f| format!("{}:{}", f.rel, f.line))
                    .collect();
                diags.push(
                    Diag::error(
                        Code::Cen002,
                        format!(
                            "census `{name}`: `{shown}` has {} sites ({}); one site per name",
                            sites.len(),
                            at.join(", ")
                        ),
                    )
                    .at(r.file.clone(), *line, None)
                    .in_unit(entry.to_string()),
                );
            }
        }
        for f in found
            .iter()
            .filter(|f| !first.contains_key(f.name.as_str()))
        {
            diags.push(
                Diag::error(
                    Code::Cen003,
                    format!(
                        "census `{name}`: this site names `{}`, which is not an entry of {}",
                        diag::escape::line(&f.name),
                        r.file
                    ),
                )
                .at(f.rel.clone(), f.line, None)
                .in_unit(f.name.clone()),
            );
        }
        for a in &c.allow {
            let why = if !first.contains_key(a.entry.as_str()) {
                Some("names no registry entry")
            } else if by_entry.contains_key(a.entry.as_str()) {
                Some("has a site now: the exemption is stale")
            } else {
                None
            };
            if let Some(why) = why {
                diags.push(
                    Diag::error(
                        Code::Cen008,
                        format!(
                            "census `{name}`: allow entry `{}` {why}",
                            diag::escape::line(&a.entry)
                        ),
                    )
                    .in_config(c.span)
                    .in_unit(a.entry.clone()),
                );
            }
        }
    }
    let tally = Tally {
        entries: first.len(),
        sites: found.len(),
        files: sources.len(),
    };
    (diags, tally)
}
