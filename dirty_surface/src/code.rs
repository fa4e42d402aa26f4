//! The `dirty-surface` gate's finding codes (rows in docs/codes.md).

use crate::check::ProblemKind;

diag::codes! {
    pub enum Code: "DSF" {
        Dsf001 = "DSF001": "UNMAPPED: a scanned mutator has no row in DirtySurface.def",
        Dsf002 = "DSF002": "STALE row: a def row names a mutator the scan no longer finds",
        Dsf003 = "DSF003": "DUPLICATE row: a mutator has more than one row",
        Dsf004 = "DSF004": "BAD answer: not a bit name nor a valid non-bit answer",
        Dsf005 = "DSF005": "UNDECIDED answer: the shutter derivation cannot decide a claimed bit",
        Dsf006 = "DSF006": "UNDER-FIRING answer: the mutator writes nothing the bit's shutter reads",
        Dsf007 = "DSF007": "STALE undecided mark: the derivation now decides the pair",
        Dsf008 = "DSF008": "UNVERIFIABLE answer: a render bit claimed without a RenderState setter",
        Dsf009 = "DSF009": "MISSING publisher: RenderState.cpp publishes a render bit the row omits",
        Dsf010 = "DSF010": "UNDER-FIRING render answer: the row names a render bit the setter does not move",
        Dsf011 = "DSF011": "a scanned file has a lexical or structural problem",
        Dsf012 = "DSF012": "could not run: a missing input, malformed def row or bad config",
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
