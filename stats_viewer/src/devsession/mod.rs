//! `mgctl bench session DIR`: a client/server-era device session — the P6 A/B layout
//! (`session-summary.json` + one folder per arm) or the disaggregated A/B/C/D matrix
//! (`summary.json` + `<workload>/<arm>-r<rep>/`) — reduced to one comparison of the arms the
//! library's own logs prove, with every voided arm named and why (docs/session.md).
//!
//! `load` reads the directory (the only I/O), [`analyse`] is the one pure entry point, `report`
//! renders it (human, JSON, Markdown; the HTML view is filled from the same report).

mod analyse;
pub mod load;
mod proof;
pub mod report;
#[cfg(test)]
mod tests;
pub mod totals;

pub use analyse::{
    analyse, AnalyseError, ArmReport, Delta, Options, Rate, Repeat, SessionReport, Sourced, Spread,
    Status,
};
pub use load::{load, ArmInput, Layout, SessionInput, SessionMeta, Transport};
pub use proof::Markers;
pub use report::{human, json, markdown};

diag::codes! {
    /// Finding codes of `bench session` (docs/session.md, docs/codes.md).
    pub enum Code: "SES" {
        Ses001 = "SES001": "an arm's own role log does not prove its label (transport marker, Config: IPC knobs, spawn ARMED): UNPROVEN, excluded from every comparison",
        Ses002 = "SES002": "an arm's pin evidence (pin-before/pin-after) is missing or not PINNED: void, excluded",
        Ses003 = "SES003": "the boot id did not change under --reboot, or changed inside the session: void, excluded",
        Ses004 = "SES004": "a Fatal{…} line in a role log: the arm failed, excluded",
        Ses005 = "SES005": "an arm has no benchmark result or no role log to read: void, excluded",
        Ses006 = "SES006": "a stale benchmark.json (older than its arm's start, or naming another case/backend/transport): refused",
        Ses007 = "SES007": "a per-frame rate over a structural zero: no log of the arm counted its frames",
        Ses008 = "SES008": "nothing to compare: no proven arm, or the baseline arm is not proven",
    }
}
