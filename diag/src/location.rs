use serde::Serialize;

/// How bad a diagnostic is. Only an error fails a gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl Severity {
    pub const fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a diagnostic points: a workspace-relative path (forward slashes), 1-based line and
/// column.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Location {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
}

impl Location {
    pub fn file(path: impl Into<String>) -> Self {
        Location {
            path: path.into(),
            line: None,
            column: None,
        }
    }

    pub fn at(path: impl Into<String>, line: u32, column: Option<u32>) -> Self {
        Location {
            path: path.into(),
            line: Some(line),
            column,
        }
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.path)?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
            if let Some(c) = self.column {
                write!(f, ":{c}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn location_prints_only_what_it_has() {
        assert_eq!(Location::file("a/b.h").to_string(), "a/b.h");
        assert_eq!(Location::at("a.h", 3, None).to_string(), "a.h:3");
        assert_eq!(Location::at("a.h", 3, Some(7)).to_string(), "a.h:3:7");
    }

    #[test]
    fn severity_orders_worst_first() {
        assert!(Severity::Error < Severity::Warning && Severity::Warning < Severity::Note);
        assert_eq!(Severity::Warning.to_string(), "warning");
    }
}
