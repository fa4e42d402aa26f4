//! The typed model of citations found in documents and of what checking them found.

use std::ops::Range;

use serde::Serialize;

/// The shape of the line part of a citation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Form {
    /// `path:12`
    Line,
    /// `path:12-14`
    Range,
    /// `path:12–14` (en dash)
    EnDashRange,
    /// one member of `path:12,40,97` (every member is its own citation)
    ListMember,
    /// `:120` or `:120-130` inheriting the last cited file of its paragraph or table cell
    Continuation,
}

impl Form {
    pub const ALL: [Form; 5] = [
        Form::Line,
        Form::Range,
        Form::EnDashRange,
        Form::ListMember,
        Form::Continuation,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Form::Line => "path:line",
            Form::Range => "path:first-last",
            Form::EnDashRange => "path:first–last",
            Form::ListMember => "comma-list member",
            Form::Continuation => ":line continuation",
        }
    }
}

/// How the path of a citation is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PathStyle {
    /// contains a `/`, resolved from the workspace root, the document's folder, or as a suffix
    Path,
    /// a bare file name, resolved by a unique `/`-anchored suffix
    Bare,
    /// `~/…`: a home path, never checkable
    Home,
    /// `/…`: an absolute path, never checkable
    Absolute,
}

impl PathStyle {
    pub const ALL: [PathStyle; 4] = [
        PathStyle::Path,
        PathStyle::Bare,
        PathStyle::Home,
        PathStyle::Absolute,
    ];

    pub fn label(self) -> &'static str {
        match self {
            PathStyle::Path => "with a directory",
            PathStyle::Bare => "bare file name",
            PathStyle::Home => "home path",
            PathStyle::Absolute => "absolute path",
        }
    }
}

/// A byte span of a number in the document text, so `--fix` can rewrite only the digits.
pub type Span = Range<usize>;

/// One citation: one file and one line range. A comma list yields one citation per member.
#[derive(Debug, Clone, Serialize)]
pub struct Citation {
    /// Document, as given (display form).
    pub doc: String,
    /// 1-based line in the document.
    pub line: usize,
    /// 1-based byte column in the document line.
    pub column: usize,
    /// The whole matched text, as written (`File.cpp:1223,1533`, `:4985-4995`).
    pub text: String,
    /// The path as written (for a continuation: the inherited path); None for an orphan continuation.
    pub path: Option<String>,
    /// For a continuation: the document line of the citation it inherits its file from.
    pub inherited_from: Option<usize>,
    pub form: Form,
    pub style: Option<PathStyle>,
    pub first: u64,
    pub last: u64,
    /// Byte span of `first` in the document; `last_span` is set when the range has a second number.
    #[serde(skip)]
    pub first_span: Span,
    #[serde(skip)]
    pub last_span: Option<Span>,
    /// Identifiers the citing sentence puts in backticks next to this citation.
    pub anchors: Vec<String>,
    /// Inside a fenced code block (quoted tool output): counted, never checked.
    pub in_fence: bool,
    /// Written inside a backticked code span.
    pub backticked: bool,
}

impl Citation {
    /// `path:first[-last]` in the citation's own spelling of the path (display in messages).
    pub fn shown(&self) -> String {
        let path = self.path.as_deref().unwrap_or("");
        if self.first == self.last && self.last_span.is_none() {
            format!("{path}:{}", self.first)
        } else {
            format!("{path}:{}-{}", self.first, self.last)
        }
    }
}

/// What a document scan skipped on purpose: text that looks like a citation but is not one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// `https://…/File.cpp:12` and similar: a URL, not a citation.
    pub urls: usize,
}

/// All citations of one document.
#[derive(Debug, Clone, Serialize)]
pub struct DocScan {
    pub doc: String,
    /// The document's folder relative to the workspace root (for docs-relative paths), if inside it.
    pub doc_dir: Option<String>,
    pub citations: Vec<Citation>,
    pub skipped: Skipped,
}

/// Classification of a checked citation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// file and range exist; anchors (if any) found at the cited lines
    Ok,
    /// anchors sit at a unique other place in the same file
    Moved,
    /// file and range exist, anchors gone from the cited lines and not uniquely elsewhere
    Changed,
    /// file or range missing
    Gone,
    /// the citation cannot be right as written: `:0`, reversed, ambiguous, wrong directory, binary file
    Invalid,
    /// home/absolute/outside paths, fenced tool output, orphan continuations
    Uncheckable,
}

impl Class {
    pub fn label(self) -> &'static str {
        match self {
            Class::Ok => "ok",
            Class::Moved => "moved",
            Class::Changed => "changed",
            Class::Gone => "gone",
            Class::Invalid => "invalid",
            Class::Uncheckable => "uncheckable",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Error,
    Warning,
    Note,
}

/// A problem with one citation. `message` keeps upstream's texts where upstream has one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Problem {
    NoSuchFile,
    Ambiguous {
        candidates: Vec<String>,
    },
    WrongDirectory {
        found: Vec<String>,
    },
    LineZero,
    Inverted,
    PastEnd {
        path: String,
        lines: u64,
    },
    Binary {
        path: String,
    },
    Moved {
        path: String,
        first: u64,
        last: u64,
        certain: bool,
        anchor: String,
    },
    Changed {
        path: String,
        anchors: Vec<String>,
        elsewhere: Vec<u64>,
    },
    Orphan,
    Unreachable {
        why: String,
    },
}

impl Problem {
    /// Stable finding code (docs/codes.md).
    pub fn code(&self) -> super::run::Code {
        use super::run::Code;
        match self {
            Problem::NoSuchFile => Code::Cit001,
            Problem::Ambiguous { .. } => Code::Cit002,
            Problem::WrongDirectory { .. } => Code::Cit003,
            Problem::LineZero => Code::Cit004,
            Problem::Inverted => Code::Cit005,
            Problem::PastEnd { .. } => Code::Cit006,
            Problem::Moved { .. } => Code::Cit007,
            Problem::Changed { .. } => Code::Cit008,
            Problem::Binary { .. } => Code::Cit009,
            Problem::Orphan => Code::Cit010,
            Problem::Unreachable { .. } => Code::Cit011,
        }
    }

    pub fn level(&self) -> Level {
        match self {
            Problem::Moved { .. } | Problem::Changed { .. } | Problem::Orphan => Level::Warning,
            Problem::Unreachable { .. } => Level::Note,
            _ => Level::Error,
        }
    }

    /// The text after ` -> ` in a problem line (upstream wording where upstream has the problem).
    pub fn message(&self, rev: &str) -> String {
        match self {
            Problem::NoSuchFile => format!("no such file at {rev}"),
            Problem::Ambiguous { candidates } => format!("ambiguous: {}", candidates.join(", ")),
            Problem::WrongDirectory { found } => {
                format!(
                    "no such file at {rev}; the file of that name is {}",
                    found.join(", ")
                )
            }
            Problem::LineZero => "line 0 does not exist (lines count from 1)".to_string(),
            Problem::Inverted => "inverted line range".to_string(),
            Problem::PastEnd { path, lines } => format!("{path} has {lines} lines at {rev}"),
            Problem::Binary { path } => format!("{path} is a binary file at {rev}"),
            Problem::Moved {
                path,
                first,
                last,
                certain,
                anchor,
            } => {
                let to = if first == last {
                    format!("{first}")
                } else {
                    format!("{first}-{last}")
                };
                if *certain {
                    format!("moved: `{anchor}` is now at {path}:{to}")
                } else {
                    format!("moved: `{anchor}` is now near {path}:{to} (range start uncertain, not auto-fixed)")
                }
            }
            Problem::Changed {
                path,
                anchors,
                elsewhere,
            } => {
                let names = anchors
                    .iter()
                    .map(|a| format!("`{a}`"))
                    .collect::<Vec<_>>()
                    .join(", ");
                if elsewhere.is_empty() {
                    format!("changed: {names} no longer in the cited lines of {path}, nor anywhere in it")
                } else {
                    let at = elsewhere
                        .iter()
                        .map(u64::to_string)
                        .collect::<Vec<_>>()
                        .join(", ");
                    format!("changed: {names} no longer in the cited lines of {path}; not a unique move (lines {at})")
                }
            }
            Problem::Orphan => {
                "continuation with no cited file earlier in its paragraph or table cell".to_string()
            }
            Problem::Unreachable { why } => format!("not checked: {why}"),
        }
    }
}

/// The result of checking one citation.
#[derive(Debug, Clone, Serialize)]
pub struct Checked {
    pub class: Class,
    /// Workspace-relative path the citation resolved to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<Problem>,
    /// First non-blank line of what the cited lines hold now (trimmed, shortened).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excerpt: Option<String>,
}

/// Everything `check` found, with the denominators.
#[derive(Debug, Clone, Serialize)]
pub struct CiteReport {
    /// `WORKTREE` or the revision as given.
    pub rev: String,
    /// The commit id the revision resolved to (None for the working tree).
    pub commit: Option<String>,
    pub docs: Vec<DocScan>,
    /// `results[d][i]` is the result of `docs[d].citations[i]`.
    pub results: Vec<Vec<Checked>>,
    /// Files the source tree lists (after excludes).
    pub tree_files: usize,
    /// Distinct files read to check the citations (each read once).
    pub files_read: usize,
}

impl CiteReport {
    pub fn citations(&self) -> impl Iterator<Item = (&Citation, &Checked)> {
        self.docs
            .iter()
            .zip(&self.results)
            .flat_map(|(d, r)| d.citations.iter().zip(r.iter()))
    }

    pub fn count(&self) -> usize {
        self.docs.iter().map(|d| d.citations.len()).sum()
    }

    pub fn problems(&self) -> impl Iterator<Item = (&Citation, &Checked, &Problem)> {
        self.citations()
            .filter_map(|(c, k)| k.problem.as_ref().map(|p| (c, k, p)))
    }

    pub fn count_level(&self, level: Level) -> usize {
        self.problems()
            .filter(|(_, _, p)| p.level() == level)
            .count()
    }
}
