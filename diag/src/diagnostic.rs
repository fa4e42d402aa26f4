use crate::{Code, Location, Severity};

/// Where in the configuration a diagnostic points: the file as a whole, or a byte of its text
/// (the report turns it into `mgctl.toml:line:column`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigAt {
    File,
    Byte(usize),
}

/// One fact an analysis found: its stable code, how bad it is, what it says and where it points.
#[derive(Debug, Clone, PartialEq)]
pub struct Diag<C> {
    pub code: C,
    pub severity: Severity,
    pub message: String,
    /// The file and line the fact is about, workspace-relative.
    pub location: Option<Location>,
    /// Set when the fact is about the configuration rather than `location`: the report places
    /// it in `mgctl.toml`. The one way to say "points into the config".
    pub config: Option<ConfigAt>,
    /// The checked unit (file, rule, probe, region…) it belongs to; JUnit groups by it.
    pub unit: Option<String>,
    pub detail: Option<serde_json::Value>,
}

impl<C: Code> Diag<C> {
    pub fn new(code: C, severity: Severity, message: impl Into<String>) -> Self {
        Diag {
            code,
            severity,
            message: message.into(),
            location: None,
            config: None,
            unit: None,
            detail: None,
        }
    }
    pub fn error(code: C, message: impl Into<String>) -> Self {
        Self::new(code, Severity::Error, message)
    }
    pub fn warning(code: C, message: impl Into<String>) -> Self {
        Self::new(code, Severity::Warning, message)
    }
    pub fn note(code: C, message: impl Into<String>) -> Self {
        Self::new(code, Severity::Note, message)
    }
    /// At `path:line[:column]`.
    pub fn at(self, path: impl Into<String>, line: u32, column: Option<u32>) -> Self {
        self.located(Location::at(path, line, column))
    }
    /// About a whole file.
    pub fn file(self, path: impl Into<String>) -> Self {
        self.located(Location::file(path))
    }
    pub fn located(mut self, location: Location) -> Self {
        self.location = Some(location);
        self
    }
    /// About the configuration text at byte `at` (a `toml::Spanned` start).
    pub fn in_config(mut self, at: usize) -> Self {
        self.config = Some(ConfigAt::Byte(at));
        self
    }
    /// About the configuration file as a whole.
    pub fn about_config(mut self) -> Self {
        self.config = Some(ConfigAt::File);
        self
    }
    pub fn in_unit(mut self, unit: impl Into<String>) -> Self {
        self.unit = Some(unit.into());
        self
    }
    pub fn with_detail(mut self, detail: serde_json::Value) -> Self {
        self.detail = Some(detail);
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// What one analysis run found: its diagnostics and the figures it measured. The verdict follows
/// from the diagnostics alone (any error fails), for the command and the gate alike.
#[derive(Debug, Clone)]
pub struct Outcome<C> {
    pub diags: Vec<Diag<C>>,
    /// The headline figure, e.g. "2 rules / 41 files / 0 forbidden, 0 allowed".
    pub headline: String,
    pub figures: Vec<(String, serde_json::Value)>,
    /// Every unit checked (one JUnit testcase each).
    pub units: Vec<String>,
    /// The inputs read (paths, refs), so a mismatched pair is visible.
    pub inputs: Vec<String>,
}

impl<C> Default for Outcome<C> {
    fn default() -> Self {
        Outcome {
            diags: Vec::new(),
            headline: String::new(),
            figures: Vec::new(),
            units: Vec::new(),
            inputs: Vec::new(),
        }
    }
}

impl<C: Code> Outcome<C> {
    /// An analysis that could not run: its error diagnostics and nothing measured.
    pub fn could_not_run(diags: Vec<Diag<C>>) -> Self {
        Outcome {
            diags,
            headline: "could not run".into(),
            ..Outcome::default()
        }
    }
    /// The one verdict rule: no error diagnostic.
    pub fn passed(&self) -> bool {
        passed(&self.diags)
    }
    pub fn errors(&self) -> usize {
        self.diags.iter().filter(|d| d.is_error()).count()
    }
    pub fn figure(mut self, name: &str, value: impl Into<serde_json::Value>) -> Self {
        self.figures.push((name.to_string(), value.into()));
        self
    }
}

/// The one verdict rule over diagnostics: any error fails.
pub(crate) fn passed<C: Code>(diags: &[Diag<C>]) -> bool {
    !diags.iter().any(Diag::is_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::codes! {
        enum T: "TST" {
            Tst001 = "TST001": "one",
            Tst002 = "TST002": "two",
        }
    }

    #[test]
    fn any_error_fails_and_nothing_else_does() {
        let mut o = Outcome::<T>::default();
        assert!(o.passed());
        o.diags
            .push(Diag::warning(T::Tst001, "w").at("a.h", 1, None));
        o.diags.push(Diag::note(T::Tst002, "n").in_config(4));
        assert!(o.passed());
        o.diags.push(Diag::error(T::Tst002, "e").file("b.h"));
        assert!(!o.passed());
        assert_eq!(o.errors(), 1);
        assert_eq!(
            o.diags[0].location.as_ref().map(ToString::to_string),
            Some("a.h:1".into())
        );
        assert_eq!(o.diags[1].config, Some(ConfigAt::Byte(4)));
    }
}
