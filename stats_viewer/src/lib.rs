//! Reads what MobileGL devices and benchmarks write: `MGPipe stats:` window lines, the verify
//! arming line, `Fatal{…}` markers, the PipeStats JSON dump, `benchmark.json` frame-time arrays,
//! DriverBench CSV and a split run's per-frame `P65LinkMetrics`/`P65ServerMetrics` rows
//! ([`frames`]). `parse → model → analyse → report`; no I/O outside the parse entry points that
//! take bytes (callers read files).
//!
//! # Log API (stable; the live view builds on it)
//!
//! * [`envelope::classify`] peels one physical line: logcat (`threadtime`, `time`, `brief`, `tag`,
//!   `year`/`usec`/`uid`/`epoch` variants), MobileGL's `[HH:MM:SS] [<OS> <thread>/<LEVEL>]: ` header,
//!   ctest transcripts, raw messages.
//! * [`LogParser`] is incremental: [`LogParser::push_line`] takes one line, [`LogParser::feed`]
//!   takes arbitrary chunks (a partial last line is buffered), [`LogParser::finish`] flushes a line
//!   cut mid-record. Each physical line yields exactly one [`Event`] whose [`EventKind`] is a
//!   [`Banner`], a [`Window`], a bad window line, [`VerifyArmed`], a transcript verdict, a
//!   [`Fatal`], a JSON-dump notice, `Other` (a MobileGL record not interpreted) or `Ignored`.
//! * [`Window`] keeps every field in line order, namespaced by bracket ([`Window::get`]
//!   `("bytes/f.tex")`, `("tex.emit")`), unknown keys included; integers are u64, two-decimal
//!   values are exact [`Fixed2`]; [`Window::rederive`] re-computes `draws/f` and `acc/draw` with the
//!   producer's rounding and returns mismatches.
//! * [`LogBuilder`] turns events into a [`Log`] of [`Session`]s (keyed by pid and [`Role`]);
//!   [`Log::parse`] does both for a whole buffer.
//! * Analysis on a [`Session`]: [`Session::period`], [`Session::last_complete`],
//!   [`Session::teardown`], [`Session::steady`], [`Session::totals`], [`Session::ending`].
//!
//! ```
//! use stats_viewer::{Log, Role, LogParser, EventKind};
//! let text = b"[10:00:00] [Linux t/INFO]: MGPipe stats: counters ON (MOBILEGL_PIPE_STATS), summary every 1 frames\n\
//! [10:00:01] [Linux t/INFO]: MGPipe stats: frames=1 window=1 draws=3 draws/f=3.00 acc=7 acc/draw=2.33 bytes/f[buf=8.00] tex[emit=0] gates[ers=1/2]\n";
//! let log = Log::parse(std::path::Path::new("mobilegl.log"), text).unwrap();
//! let s = log.reported_session().unwrap();
//! assert_eq!(s.last_complete().unwrap().item.draws, 3);
//!
//! let mut p = LogParser::new(Role::Main);
//! let e = p.push_line(&text[..text.iter().position(|&b| b == b'\n').unwrap()]);
//! assert!(matches!(e.kind, EventKind::Banner(_)));
//! ```
#![warn(unreachable_pub)]

pub mod analysis;
pub mod bench_report;
pub mod benchmark;
pub mod budget;
pub mod counters;
pub mod devsession;
pub mod diff;
pub mod driverbench;
pub mod dump;
pub mod envelope;
pub mod error;
pub mod fatal;
pub mod fixed;
pub mod frames;
pub mod g4;
mod halves;
pub mod lfs;
pub mod parser;
pub mod report;
pub mod retrace;
pub mod session;
pub mod synth;
#[cfg(feature = "tui")]
pub mod tui;
pub mod unit;
pub mod violation;
pub mod window;

pub use analysis::{Aggregate, Ending, Period, PeriodSource, Totals};
pub use envelope::{EnvelopeKind, Level};
pub use error::Error;
pub use fatal::{Fatal, TranscriptVerify, VerifyArmed};
pub use fixed::{Fixed2, Ratio};
pub use parser::{Banner, Event, EventKind, Ignored, LogParser, Role};
pub use session::{At, DumpNote, FatalLine, LineCounts, Log, LogBuilder, Session, SessionStart};
pub use window::{Field, FieldKind, Mismatch, Value, Window, WindowError, WINDOW_PREFIX};
