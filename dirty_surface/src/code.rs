//! The `dirty-surface` gate's finding codes (rows in docs/codes.md).

use crate::check::ProblemKind;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Code {
    Dsf001,
    Dsf002,
    Dsf003,
    Dsf004,
    Dsf005,
    Dsf006,
    Dsf007,
    Dsf008,
    Dsf009,
    Dsf010,
    Dsf011,
    Dsf012,
}

impl Code {
    pub const ALL: &'static [Code] = &[
        Code::Dsf001,
        Code::Dsf002,
        Code::Dsf003,
        Code::Dsf004,
        Code::Dsf005,
        Code::Dsf006,
        Code::Dsf007,
        Code::Dsf008,
        Code::Dsf009,
        Code::Dsf010,
        Code::Dsf011,
        Code::Dsf012,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            Code::Dsf001 => "DSF001",
            Code::Dsf002 => "DSF002",
            Code::Dsf003 => "DSF003",
            Code::Dsf004 => "DSF004",
            Code::Dsf005 => "DSF005",
            Code::Dsf006 => "DSF006",
            Code::Dsf007 => "DSF007",
            Code::Dsf008 => "DSF008",
            Code::Dsf009 => "DSF009",
            Code::Dsf010 => "DSF010",
            Code::Dsf011 => "DSF011",
            Code::Dsf012 => "DSF012",
        }
    }

    /// One line, what the finding means (the SARIF rule's short description).
    pub const fn summary(self) -> &'static str {
        match self {
            Code::Dsf001 => "UNMAPPED: a scanned mutator has no row in DirtySurface.def",
            Code::Dsf002 => "STALE row: a def row names a mutator the scan no longer finds",
            Code::Dsf003 => "DUPLICATE row: a mutator has more than one row",
            Code::Dsf004 => "BAD answer: not a bit name nor a valid non-bit answer",
            Code::Dsf005 => "UNDECIDED answer: the shutter derivation cannot decide a claimed bit",
            Code::Dsf006 => {
                "UNDER-FIRING answer: the mutator writes nothing the bit's shutter reads"
            }
            Code::Dsf007 => "STALE undecided mark: the derivation now decides the pair",
            Code::Dsf008 => {
                "UNVERIFIABLE answer: a render bit claimed without a RenderState setter"
            }
            Code::Dsf009 => {
                "MISSING publisher: RenderState.cpp publishes a render bit the row omits"
            }
            Code::Dsf010 => {
                "UNDER-FIRING render answer: the row names a render bit the setter does not move"
            }
            Code::Dsf011 => "a scanned file has a lexical or structural problem",
            Code::Dsf012 => "could not run: a missing input, malformed def row or bad config",
        }
    }
}

impl ProblemKind {
    /// The finding code of a `--check` problem.
    pub const fn code(self) -> Code {
        match self {
            ProblemKind::Unmapped => Code::Dsf001,
            ProblemKind::StaleRow => Code::Dsf002,
            ProblemKind::Duplicate => Code::Dsf003,
            ProblemKind::BadAnswer => Code::Dsf004,
            ProblemKind::Undecided => Code::Dsf005,
            ProblemKind::UnderFiringBit => Code::Dsf006,
            ProblemKind::StaleMark => Code::Dsf007,
            ProblemKind::Unverifiable => Code::Dsf008,
            ProblemKind::MissingPublisher => Code::Dsf009,
            ProblemKind::UnderFiringRender => Code::Dsf010,
        }
    }
}
