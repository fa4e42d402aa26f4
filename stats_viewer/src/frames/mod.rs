//! `stats frames`: client and server present intervals paired by frame id, summarised exactly as
//! MobileGL's `tools/trace_replay/frame_stats.py` summarises them.
//!
//! The client role log carries `P65LinkMetrics kind=frame frame=N wall_ns=… client_thread_cpu_ns=…
//! transport_wait_ns=…`, the server role log `P65ServerMetrics frame=N valid=1 wall_ns=…
//! apply_thread_cpu_ns=…` (its first interval is `valid=0`: it has no preceding present).
//! [`parse::read_frames`] reads one log into a [`RoleLog`]; [`analysis::summarize`] selects the
//! client frames above the warmup (by id), keeps the last `tail`, requires them contiguous and
//! each matched on the server, and computes avg and nearest-rank p50/p99 of five columns and three
//! shares of the client present time; [`report`] renders text, Markdown and JSON.
//!
//! ```
//! use std::path::Path;
//! use stats_viewer::frames::{self, Selection};
//! let client = b"P65LinkMetrics kind=frame frame=2 wall_ns=20000000 client_thread_cpu_ns=5000000 transport_wait_ns=4000000\n";
//! let server = b"P65ServerMetrics frame=1 valid=0 wall_ns=0 apply_thread_cpu_ns=0\n\
//! P65ServerMetrics frame=2 valid=1 wall_ns=18000000 apply_thread_cpu_ns=3000000\n";
//! let f = frames::analyse(
//!     (Path::new("c.log"), client),
//!     (Path::new("s.log"), server),
//!     Selection::default(),
//! )
//! .unwrap();
//! assert_eq!(f.stats.share(frames::Column::TransportWait), Some(20.0));
//! ```

pub mod analysis;
pub mod model;
pub mod parse;
pub mod report;

use std::path::Path;

pub use analysis::summarize;
pub use model::{
    BadBytes, Column, Distribution, FrameRow, FrameStats, PairedFrame, RoleLog, Selection, Side,
    Skipped, DEFINITION,
};
pub use parse::read_frames;

use crate::Error;

/// Both role logs as read and their pairing.
#[derive(Debug, Clone)]
pub struct Frames {
    pub client: RoleLog,
    pub server: RoleLog,
    pub stats: FrameStats,
}

/// The one entry point: reads the client log, then the server log (the script's order, so the
/// first error reported is the script's), then pairs them.
pub fn analyse(
    client: (&Path, &[u8]),
    server: (&Path, &[u8]),
    sel: Selection,
) -> Result<Frames, Error> {
    let client = read_frames(client.0, client.1, Side::Client)?;
    let server = read_frames(server.0, server.1, Side::Server)?;
    let stats = summarize(&client, &server, sel)?;
    Ok(Frames {
        client,
        server,
        stats,
    })
}
