//! The finding codes of the include gates (`include-probes`, `include-layering`).

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Code {
    Inc001,
    Inc002,
    Inc003,
    Inc004,
    Inc005,
    Inc006,
    Inc007,
    Inc008,
    Inc009,
    Inc010,
    Inc011,
    Inc012,
    Inc013,
    Inc014,
    Inc015,
    Inc016,
}

impl Code {
    pub const ALL: &'static [Code] = &[
        Code::Inc001,
        Code::Inc002,
        Code::Inc003,
        Code::Inc004,
        Code::Inc005,
        Code::Inc006,
        Code::Inc007,
        Code::Inc008,
        Code::Inc009,
        Code::Inc010,
        Code::Inc011,
        Code::Inc012,
        Code::Inc013,
        Code::Inc014,
        Code::Inc015,
        Code::Inc016,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            Code::Inc001 => "INC001",
            Code::Inc002 => "INC002",
            Code::Inc003 => "INC003",
            Code::Inc004 => "INC004",
            Code::Inc005 => "INC005",
            Code::Inc006 => "INC006",
            Code::Inc007 => "INC007",
            Code::Inc008 => "INC008",
            Code::Inc009 => "INC009",
            Code::Inc010 => "INC010",
            Code::Inc011 => "INC011",
            Code::Inc012 => "INC012",
            Code::Inc013 => "INC013",
            Code::Inc014 => "INC014",
            Code::Inc015 => "INC015",
            Code::Inc016 => "INC016",
        }
    }

    /// One line, what the finding means (becomes the SARIF rule's short description).
    pub const fn summary(self) -> &'static str {
        match self {
            Code::Inc001 => "a probed header's include closure reaches a forbidden path prefix",
            Code::Inc002 => "a probed header's own text exceeds a token budget",
            Code::Inc003 => "a probe's header does not exist (SKIP; an error under require_all)",
            Code::Inc004 => "the number of selected probes differs from expect_probes",
            Code::Inc005 => "a file includes or reaches a header a layering rule forbids",
            Code::Inc006 => "a new use of a temporary (`!`) layering allowance",
            Code::Inc007 => "a known use of a temporary (`!`) layering allowance",
            Code::Inc008 => "a stale or malformed layering rule, or a layer holding no file",
            Code::Inc009 => "a known_uses entry that no longer occurs",
            Code::Inc010 => "an input problem met while building the include graph",
            Code::Inc011 => "a forbidden path admitted by a probe's allow entry",
            Code::Inc012 => "a computed include or #include_next the static graph cannot follow",
            Code::Inc013 => "an include cycle",
            Code::Inc014 => "the include analysis could not run (workspace or compile database)",
            Code::Inc015 => {
                "the preprocessor failed, is missing, or disagrees with the static walk"
            }
            Code::Inc016 => "an explained difference between the preprocessor and the static walk",
        }
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
