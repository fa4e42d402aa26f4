//! Drawing: a pure function of [`ViewState`]. No I/O, no state changes.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};
use ratatui::Frame;

use super::rows::{matches, view_rows, Row, RowKind};
use super::state::{arm, backend, NoteLevel, Tab, ViewState};

mod charts;

/// Text from the log or the command line as the view shows it: control characters (an OSC title,
/// a clear-screen, cursor moves) and bidi controls escaped, a real ESC apart from the text `\x1b`
/// (issue 29: `stats watch` wrote them raw while `--once` escaped them).
fn inert(text: &str) -> String {
    diag::escape::terminal(text).into_owned()
}

#[cfg(test)]
pub(crate) use charts::graph_area as charts_graph_area;
pub(crate) use charts::panel_height as charts_height;

/// Draws the whole view into the frame.
pub fn render(f: &mut Frame<'_>, s: &ViewState) {
    render_in(f, f.area(), s);
}

/// The view drawn into `area` (the whole frame, or one side of the two role logs).
pub fn render_in(f: &mut Frame<'_>, area: Rect, s: &ViewState) {
    let header = header_lines(s, area.width);
    let live = s.shown();
    let alerts: Vec<Line<'_>> = alert_lines(s, area.width);
    let chunks = Layout::vertical([
        Constraint::Length(header.len() as u16),
        Constraint::Length(1),
        Constraint::Length(alerts.len() as u16),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .split(area);
    f.render_widget(Paragraph::new(header), chunks[0]);
    f.render_widget(Paragraph::new(tab_line(s)), chunks[1]);
    if !alerts.is_empty() {
        let style = if s.color {
            Style::new().bg(Color::Red).fg(Color::White)
        } else {
            Style::new().add_modifier(Modifier::REVERSED)
        };
        f.render_widget(Paragraph::new(alerts).style(style), chunks[2]);
    }
    let body = chunks[3];
    match s.tab {
        Tab::Counters if s.current().is_none() => waiting(f, s, body),
        Tab::Counters if body.width >= 150 => {
            let [left, right] =
                Layout::horizontal([Constraint::Min(100), Constraint::Length(body.width / 3)])
                    .areas(body);
            counters(f, s, left);
            chart_panel(f, s, right);
        }
        Tab::Counters => counters(f, s, body),
        Tab::Charts if s.current().is_none() => waiting(f, s, body),
        Tab::Charts => chart_panel(f, s, body),
        Tab::Events => events(f, s, body),
    }
    f.render_widget(
        Paragraph::new(footer(s, live.alerts.len(), area.width)),
        chunks[4],
    );
    if s.help {
        help(f, area);
    }
    if !s.color {
        for c in f.buffer_mut().content.iter_mut() {
            c.fg = Color::Reset;
            c.bg = Color::Reset;
        }
    }
}

fn dim() -> Style {
    Style::new().fg(Color::DarkGray)
}

fn bold() -> Style {
    Style::new().add_modifier(Modifier::BOLD)
}

/// Packs header items into as few lines as the width allows (at most three).
fn pack(items: Vec<String>, width: u16) -> Vec<Line<'static>> {
    let width = usize::from(width.max(1));
    let mut lines: Vec<String> = Vec::new();
    for it in items {
        match lines.last_mut() {
            Some(l) if l.chars().count() + 3 + it.chars().count() <= width => {
                l.push_str(" │ ");
                l.push_str(&it);
            }
            _ => lines.push(it),
        }
    }
    lines.truncate(3);
    lines.into_iter().map(Line::from).collect()
}

fn age(secs: u64) -> String {
    match secs {
        0..=119 => format!("{secs}s"),
        120..=7199 => format!("{}m{:02}s", secs / 60, secs % 60),
        _ => format!("{}h{:02}m", secs / 3600, secs % 3600 / 60),
    }
}

fn header_lines(s: &ViewState, width: u16) -> Vec<Line<'static>> {
    let live = s.shown();
    let mut items = Vec::new();
    let state = live
        .source_state
        .as_ref()
        .map(|n| match n.severity {
            NoteLevel::Ended => " (ended)",
            _ => "",
        })
        .unwrap_or("");
    // A long path keeps its tail (the file name and the source state) visible.
    let first = format!("mgctl stats watch: {}{state}", s.source);
    let room = usize::from(width.max(24));
    let n = first.chars().count();
    items.push(if n > room {
        let tail: String = first.chars().skip(n - (room - 1)).collect();
        format!("…{tail}")
    } else {
        first
    });
    let session = s.session();
    match session {
        Some(ss) => items.push(format!(
            "session {} pid {} {}",
            ss.id,
            ss.pid.map_or_else(|| "-".into(), |p| p.to_string()),
            ss.role.as_str()
        )),
        None => items.push("no session yet".into()),
    }
    let newest = s.current().or_else(|| live.windows.back());
    if let Some(e) = newest {
        items.push(backend(&e.window).to_string());
        items.push(format!("{} build", arm(&e.window)));
    }
    if let Some((p, banner)) = session.and_then(|ss| ss.period()) {
        items.push(format!(
            "period {p} ({})",
            if banner { "banner" } else { "inferred" }
        ));
    }
    if let Some(ss) = session {
        items.push(match &ss.armed {
            Some(a) => format!(
                "verify armed {}f/{}v fatal={}",
                a.fields,
                a.verbs,
                u8::from(a.fatal)
            ),
            None => "verify not armed".into(),
        });
        items.push(format!("windows {} ({} complete)", ss.windows, ss.complete));
    }
    items.push(match live.last_window_at {
        Some(at) => format!(
            "last window {} ago",
            age(s.now.saturating_sub(at).as_secs())
        ),
        None => "no window yet".into(),
    });
    let mut lines = format!("lines {}", live.lines);
    if live.ignored > 0 {
        lines.push_str(&format!(", {} ignored", live.ignored));
    }
    if live.binary > 0 {
        lines.push_str(&format!(", {} binary", live.binary));
    }
    if live.overlong > 0 {
        lines.push_str(&format!(", {} overlong", live.overlong));
    }
    if live.bad_windows > 0 {
        lines.push_str(&format!(", {} bad windows", live.bad_windows));
    }
    items.push(lines);
    pack(items, width)
}

fn tab_line(s: &ViewState) -> Line<'static> {
    let mut spans = Vec::new();
    for t in Tab::ALL {
        let style = if t == s.tab {
            Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD)
        } else {
            dim()
        };
        spans.push(Span::styled(format!(" {} ", t.title()), style));
        spans.push(Span::raw(" "));
    }
    if s.paused() {
        let frozen = s.shown();
        let new = s.live.windows_total.saturating_sub(frozen.windows_total);
        spans.push(Span::styled(
            format!("PAUSED (+{new} windows)"),
            if s.color {
                Style::new().fg(Color::Black).bg(Color::Yellow)
            } else {
                Style::new().add_modifier(Modifier::REVERSED)
            },
        ));
        spans.push(Span::raw(" "));
    }
    if let Some(e) = s.current() {
        let (pos, n) = s.position();
        let which = if s.selected.is_none() {
            "newest"
        } else {
            "history"
        };
        spans.push(Span::styled(
            format!(
                "window {pos}/{n} {which} frames={} line {}",
                e.window.frames, e.line
            ),
            bold(),
        ));
    }
    Line::from(spans)
}

fn alert_lines(s: &ViewState, width: u16) -> Vec<Line<'static>> {
    let alerts = &s.shown().alerts;
    let shown = if alerts.len() > 2 {
        &alerts[alerts.len() - 2..]
    } else {
        &alerts[..]
    };
    let mut out: Vec<Line<'static>> = shown
        .iter()
        .map(|a| {
            let mut t = format!(" {}", inert(&a.text()));
            let w = usize::from(width);
            if t.chars().count() > w {
                t = t.chars().take(w.saturating_sub(1)).collect::<String>() + "…";
            }
            Line::from(Span::styled(t, bold()))
        })
        .collect();
    if alerts.len() > 2 {
        if let Some(l) = out.first_mut() {
            l.spans.push(Span::raw(format!(
                " (+{} earlier, c clears)",
                alerts.len() - 2
            )));
        }
    }
    out
}

fn waiting(f: &mut Frame<'_>, s: &ViewState, area: Rect) {
    let live = s.shown();
    let mut text = vec![Line::from(Span::styled(
        if live.windows.is_empty() {
            "waiting for the first MGPipe stats window"
        } else {
            "waiting for the first complete MGPipe stats window (window == period)"
        },
        bold(),
    ))];
    text.push(Line::from(format!(
        "read {} lines, {} bytes: {} MobileGL records, {} ignored, {} binary, {} overlong; {} window line(s) so far",
        live.lines, live.bytes, live.records, live.ignored, live.binary, live.overlong, live.windows_total
    )));
    if let Some(n) = &live.source_state {
        text.push(Line::from(format!("source: {}", inert(&n.text))));
    }
    if live.binary > 0 && live.records == 0 {
        text.push(Line::from(Span::styled(
            "the input looks binary (NUL bytes / not UTF-8): is this a MobileGL log?",
            Style::new().fg(Color::Yellow),
        )));
    }
    f.render_widget(Paragraph::new(text).wrap(Wrap { trim: false }), area);
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Col {
    Name,
    Value,
    PerFrame,
    PerDraw,
    DeltaPrev,
    Base,
    DeltaBase,
    DeltaPct,
}

impl Col {
    fn width(self) -> usize {
        match self {
            Col::Name => 17,
            Col::Value | Col::Base => 13,
            Col::PerFrame => 10,
            Col::PerDraw => 9,
            Col::DeltaPrev | Col::DeltaBase => 11,
            Col::DeltaPct => 9,
        }
    }
    fn title(self) -> &'static str {
        match self {
            Col::Name => "counter",
            Col::Value => "value",
            Col::PerFrame => "/frame",
            Col::PerDraw => "/draw",
            Col::DeltaPrev => "Δ prev",
            Col::Base => "baseline",
            Col::DeltaBase => "Δ base",
            Col::DeltaPct => "Δ%",
        }
    }
    fn cell(self, r: &Row) -> String {
        let o = |v: &Option<String>| v.clone().unwrap_or_default();
        match self {
            Col::Name => {
                let mut n = format!("  {}", inert(&r.label));
                if r.unknown {
                    n.push_str(" ?");
                }
                n
            }
            Col::Value => r.value.clone(),
            Col::PerFrame => o(&r.per_frame),
            Col::PerDraw => o(&r.per_draw),
            Col::DeltaPrev => o(&r.delta_prev),
            Col::Base => o(&r.base),
            Col::DeltaBase => o(&r.delta_base),
            Col::DeltaPct => o(&r.delta_base_pct),
        }
    }
}

/// Columns that fit, in display order; with a baseline the A/B columns win over normalisation.
fn columns(width: u16, baseline: bool) -> Vec<Col> {
    let prio: &[Col] = if baseline {
        &[
            Col::Name,
            Col::Value,
            Col::Base,
            Col::DeltaBase,
            Col::DeltaPct,
            Col::DeltaPrev,
            Col::PerFrame,
            Col::PerDraw,
        ]
    } else {
        &[
            Col::Name,
            Col::Value,
            Col::PerFrame,
            Col::PerDraw,
            Col::DeltaPrev,
        ]
    };
    let mut used = 0;
    let mut chosen = Vec::new();
    for c in prio {
        let w = c.width() + usize::from(!chosen.is_empty());
        if used + w <= usize::from(width) {
            used += w;
            chosen.push(*c);
        }
    }
    let order = [
        Col::Name,
        Col::Value,
        Col::PerFrame,
        Col::PerDraw,
        Col::DeltaPrev,
        Col::Base,
        Col::DeltaBase,
        Col::DeltaPct,
    ];
    order.into_iter().filter(|c| chosen.contains(c)).collect()
}

fn fit(text: &str, w: usize, left: bool) -> String {
    let n = text.chars().count();
    if n > w {
        let mut t: String = text.chars().take(w.saturating_sub(1)).collect();
        t.push('…');
        return t;
    }
    if left {
        format!("{text:<w$}")
    } else {
        format!("{text:>w$}")
    }
}

fn delta_style(text: &str) -> Style {
    if text.starts_with('-') {
        Style::new().fg(Color::Cyan)
    } else if text.starts_with('+')
        && text
            .trim_start_matches('+')
            .trim_matches(['0', '.', 'p', '%'])
            .is_empty()
    {
        Style::default()
    } else if text.starts_with('+') {
        Style::new().fg(Color::Yellow)
    } else {
        Style::default()
    }
}

/// The table lines (title + groups + rows), before scrolling.
pub(crate) fn counter_lines(s: &ViewState, width: u16) -> Vec<Line<'static>> {
    let cols = columns(width, s.baseline.is_some());
    let rows: Vec<Row> = view_rows(s)
        .into_iter()
        .filter(|r| matches(&s.filter, r))
        .collect();
    let mut out = Vec::with_capacity(rows.len() + 10);
    let title: Vec<Span<'static>> = cols
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let t = fit(c.title(), c.width(), *c == Col::Name);
            Span::styled(if i == 0 { t } else { format!(" {t}") }, bold())
        })
        .collect();
    out.push(Line::from(title));
    if rows.is_empty() {
        out.push(Line::from(Span::styled(
            format!("no counter matches the filter `{}`", s.filter),
            dim(),
        )));
    }
    let mut group = None;
    for r in &rows {
        if group.as_deref() != Some(r.group.as_str()) {
            group = Some(r.group.clone());
            out.push(Line::from(Span::styled(
                r.group.clone(),
                Style::new().fg(Color::Blue).add_modifier(Modifier::BOLD),
            )));
        }
        let mut spans = Vec::with_capacity(cols.len());
        for (i, c) in cols.iter().enumerate() {
            let text = c.cell(r);
            let cell = fit(&text, c.width(), *c == Col::Name);
            let cell = if i == 0 { cell } else { format!(" {cell}") };
            let style = match c {
                Col::Name if r.unknown => Style::new().fg(Color::Magenta),
                Col::Name if r.kind == RowKind::HitRate => dim(),
                Col::Value if r.value == "absent" => dim(),
                Col::Base if text == "absent" => dim(),
                Col::DeltaPrev | Col::DeltaBase | Col::DeltaPct => delta_style(&text),
                _ => Style::default(),
            };
            spans.push(Span::styled(cell, style));
        }
        out.push(Line::from(spans));
    }
    out
}

fn counters(f: &mut Frame<'_>, s: &ViewState, area: Rect) {
    let lines = counter_lines(s, area.width);
    let h = usize::from(area.height);
    let body = lines.len().saturating_sub(1);
    // Rows that fit under the title; one row is kept for the "more" marker when they do not all fit.
    let room = if body + 1 > h {
        h.saturating_sub(2)
    } else {
        body
    };
    let max_scroll = body.saturating_sub(room);
    let scroll = usize::from(s.scroll).min(max_scroll);
    let mut shown: Vec<Line<'static>> = Vec::with_capacity(h);
    if let Some(t) = lines.first() {
        shown.push(t.clone());
    }
    shown.extend(lines.iter().skip(1 + scroll).take(room).cloned());
    if room < body {
        let below = body - scroll - room;
        shown.push(Line::from(Span::styled(
            format!("{scroll} above, {below} below (↑/↓ pgup/pgdn scroll)"),
            dim(),
        )));
    }
    f.render_widget(Paragraph::new(shown), area);
}

fn chart_panel(f: &mut Frame<'_>, s: &ViewState, area: Rect) {
    charts::panel(f, s, area);
}

fn events(f: &mut Frame<'_>, s: &ViewState, area: Rect) {
    let live = s.shown();
    let h = usize::from(area.height);
    let n = live.notes.len();
    let skip = n.saturating_sub(h + usize::from(s.scroll));
    let lines: Vec<Line<'static>> = live
        .notes
        .iter()
        .skip(skip)
        .take(h)
        .map(|note| {
            let style = match note.level {
                NoteLevel::Warn => Style::new().fg(Color::Yellow),
                NoteLevel::Ended => bold(),
                NoteLevel::Info => Style::default(),
            };
            // A line longer than the panel ends in an ellipsis, so a cut reads as a cut.
            let room = usize::from(area.width).saturating_sub(9);
            Line::from(vec![
                Span::styled(format!("{:>7.1}s ", note.at.as_secs_f64()), dim()),
                Span::styled(squeeze_end(&inert(&note.text), room), style),
            ])
        })
        .collect();
    if lines.is_empty() {
        f.render_widget(Paragraph::new("no events yet").style(dim()), area);
    } else {
        f.render_widget(Paragraph::new(lines), area);
    }
}

/// The footer's key hints in display order, each with its rank (0 first): on a narrow terminal the
/// lowest-ranked ones that do not fit are dropped, and `? help` (which lists them all) always shows.
const HINTS: [(&str, u8); 7] = [
    ("q quit", 0),
    ("p pause", 3),
    ("←/→ history", 2),
    ("tab view", 1),
    ("/ filter", 4),
    ("e export", 5),
    ("c clear banners", 6),
];
const HELP_HINT: &str = "? help";

/// `text` in at most `w` columns: whole, or its start and end around an ellipsis (an export's
/// status keeps the file name it wrote).
fn squeeze(text: &str, w: usize) -> String {
    let n = text.chars().count();
    if n <= w {
        return text.to_string();
    }
    if w < 2 {
        return "…".chars().take(w).collect();
    }
    let tail = (w - 1) / 2;
    let head = w - 1 - tail;
    let end: String = text.chars().skip(n - tail).collect();
    format!("{}…{end}", text.chars().take(head).collect::<String>())
}

/// `text` in at most `w` columns, cut at the end with an ellipsis.
fn squeeze_end(text: &str, w: usize) -> String {
    if text.chars().count() <= w {
        return text.to_string();
    }
    let mut t: String = text.chars().take(w.saturating_sub(1)).collect();
    t.push('…');
    t
}

fn footer(s: &ViewState, alerts: usize, width: u16) -> Line<'static> {
    if s.editing_filter {
        return Line::from(vec![
            Span::styled("filter: ", bold()),
            Span::raw(s.filter.clone()),
            Span::styled("▏  (enter keeps, esc clears)", dim()),
        ]);
    }
    let width = usize::from(width);
    // `? help` is kept at the right; everything else shares what is left of the line.
    let room = width.saturating_sub(HELP_HINT.len() + 2);
    let mut spans = Vec::new();
    let mut used = 0;
    // The filter gets at most a third of the line, the baseline tag half, each cut in the middle.
    let mut tags = Vec::new();
    if !s.filter.is_empty() {
        tags.push(format!(
            "[/{}]",
            squeeze(&inert(&s.filter), (room / 3).saturating_sub(3))
        ));
    }
    if let (Some(b), Some(w)) = (&s.baseline, s.base()) {
        let frames = format!(" frames={}]", w.item.frames);
        let name = room / 2 - (frames.len() + "[baseline ".len()).min(room / 2);
        tags.push(format!(
            "[baseline {}{frames}",
            squeeze(&inert(&b.label), name)
        ));
    }
    // A status (an export's file, a hint) is news: the tags give way to it.
    let status_w = s.status.as_ref().map_or(0, |t| t.chars().count() + 1);
    let tag_room = room.saturating_sub(status_w);
    for t in tags {
        let left = tag_room.saturating_sub(used + 1);
        if left < 8 {
            break;
        }
        let t = squeeze(&t, left);
        used += t.chars().count() + 1;
        spans.push(Span::styled(t + " ", bold()));
    }
    match &s.status {
        Some(st) => {
            let st = squeeze(st, room.saturating_sub(used));
            used += st.chars().count();
            spans.push(Span::styled(st, Style::new().fg(Color::Yellow)));
        }
        None => {
            let mut order: Vec<&(&str, u8)> = HINTS
                .iter()
                .filter(|(h, _)| alerts > 0 || !h.starts_with("c "))
                .collect();
            let mut shown = Vec::new();
            order.sort_by_key(|(_, prio)| *prio);
            for (h, _) in order {
                let w = h.chars().count() + 2;
                if used + w <= room {
                    used += w;
                    shown.push(*h);
                }
            }
            let hints: Vec<&str> = HINTS
                .iter()
                .map(|(h, _)| *h)
                .filter(|h| shown.contains(h))
                .collect();
            let text = hints.join("  ");
            used = used.saturating_sub(2 * usize::from(!hints.is_empty()));
            spans.push(Span::styled(text, dim()));
        }
    }
    let pad = width.saturating_sub(used + HELP_HINT.len()).max(2);
    spans.push(Span::raw(" ".repeat(pad)));
    spans.push(Span::styled(HELP_HINT, bold()));
    Line::from(spans)
}

fn help(f: &mut Frame<'_>, area: Rect) {
    let text = vec![
        Line::from(Span::styled("mgctl stats watch: keys", bold())),
        Line::from(""),
        Line::from("q, ctrl-c   quit (the terminal is restored)"),
        Line::from("p, space    pause / resume: data keeps arriving, the view freezes"),
        Line::from("←/→, h/l    step through the window history (→ past the newest follows live)"),
        Line::from("home/end    oldest window / follow the newest"),
        Line::from("tab         switch view: counters, charts, events"),
        Line::from("/           filter counters by name (enter keeps, esc clears)"),
        Line::from("n / N       next / previous event holding the filter text (events view)"),
        Line::from("e           export the current view's data as JSON"),
        Line::from("↑/↓, pgup/dn scroll"),
        Line::from("c           clear the red banners"),
        Line::from("?, esc      close this help"),
        Line::from(""),
        Line::from("Δ prev: change from the previous complete window of the same session."),
        Line::from("hit%: hits / (hits + misses); deltas in percentage points (pp)."),
        Line::from("A `?` after a counter marks a key this mgctl does not know."),
    ];
    let w = area.width.min(82);
    let h = area.height.min(text.len() as u16 + 2);
    let r = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    );
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(text)
            .wrap(Wrap { trim: false })
            .block(Block::default().borders(Borders::ALL).title(" help ")),
        r,
    );
}
