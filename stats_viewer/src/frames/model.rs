//! Typed data of a client/server frame pairing: what [`super::parse`] reads from a role log and
//! what [`super::analysis`] computes from two of them.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// Which role log a row came from, and so which marker and which CPU clock it carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// `P65LinkMetrics kind=frame frame=N wall_ns=… client_thread_cpu_ns=… transport_wait_ns=…`
    Client,
    /// `P65ServerMetrics frame=N valid=1 wall_ns=… apply_thread_cpu_ns=…`
    Server,
}

impl Side {
    /// The marker `frame_stats.py` looks for, trailing space included.
    pub fn marker(self) -> &'static str {
        match self {
            Side::Client => "P65LinkMetrics ",
            Side::Server => "P65ServerMetrics ",
        }
    }

    /// The marker as messages name it.
    pub fn marker_name(self) -> &'static str {
        self.marker().trim_end()
    }

    /// The field holding this role's thread CPU time.
    pub fn cpu_field(self) -> &'static str {
        match self {
            Side::Client => "client_thread_cpu_ns",
            Side::Server => "apply_thread_cpu_ns",
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Side::Client => "client",
            Side::Server => "server",
        }
    }
}

/// One usable present interval of one role (clocks in nanoseconds, all checked as the script
/// checks them: positive, CPU and transport wait within the wall time plus its tolerance).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameRow {
    pub frame: i64,
    /// Physical line (1-based, counted by `\n`) of the row in its log.
    pub line: usize,
    pub wall_ns: i64,
    pub cpu_ns: i64,
    /// The client's `transport_wait_ns`; 0 on the server, as in the script.
    pub transport_ns: i64,
}

/// Invalid UTF-8 in a log: decoded as `frame_stats.py` decodes it (`errors="replace"`, one U+FFFD
/// per maximal invalid sequence), and counted here so it is never dropped silently.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct BadBytes {
    /// Invalid sequences replaced.
    pub sequences: usize,
    /// Physical lines holding at least one.
    pub lines: usize,
    /// The first such line.
    pub first_line: Option<usize>,
}

/// A marker row the script passes over without error (a client row whose `kind` is not `frame`,
/// a server row whose `valid` is not `1`, such as the first server interval, which has no
/// preceding present). Counted, and for the server kept by frame id so a selected frame that is
/// only present as an invalid row is named with its line.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Skipped {
    pub rows: usize,
    pub first_line: Option<usize>,
    /// Server rows with `valid` other than `1` whose `frame` is an integer: frame → (line, valid).
    #[serde(skip)]
    pub invalid_server: BTreeMap<i64, (usize, String)>,
}

/// One role log as read: its usable frames by id, and what was passed over.
#[derive(Debug, Clone)]
pub struct RoleLog {
    pub path: PathBuf,
    pub side: Side,
    pub bytes: usize,
    /// Physical lines (counted by `\n`, a last line without one included).
    pub lines: usize,
    /// Lines holding the marker.
    pub marker_lines: usize,
    pub frames: BTreeMap<i64, FrameRow>,
    pub skipped: Skipped,
    pub bad_bytes: BadBytes,
}

/// Which client frames are summarised: ids above `warmup` (by id, as the script selects), then
/// the last `tail` of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Selection {
    pub warmup: u64,
    pub tail: Option<usize>,
}

impl Default for Selection {
    /// The script's command-line defaults: `--warmup-frames 1`, no tail.
    fn default() -> Selection {
        Selection {
            warmup: 1,
            tail: None,
        }
    }
}

/// avg, p50 and p99 of one column, in milliseconds, computed as the script computes them.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Distribution {
    pub avg: f64,
    pub p50: f64,
    pub p99: f64,
}

/// The five per-frame columns, named as the script names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    ClientPresent,
    ServerPresent,
    ClientCpu,
    TransportWait,
    ServerCpu,
}

impl Column {
    pub const ALL: [Column; 5] = [
        Column::ClientPresent,
        Column::ServerPresent,
        Column::ClientCpu,
        Column::TransportWait,
        Column::ServerCpu,
    ];
    /// The columns whose share of the client present time the script reports.
    pub const SHARED: [Column; 3] = [Column::ClientCpu, Column::TransportWait, Column::ServerCpu];

    /// The script's key (`stats` and `share_percent_of_client_present`).
    pub fn key(self) -> &'static str {
        match self {
            Column::ClientPresent => "client_present_ms",
            Column::ServerPresent => "server_present_ms",
            Column::ClientCpu => "client_cpu_ms",
            Column::TransportWait => "transport_wait_ms",
            Column::ServerCpu => "server_cpu_ms",
        }
    }

    /// The per-frame series key in JSON (nanoseconds, exact integers).
    pub fn series_key(self) -> &'static str {
        match self {
            Column::ClientPresent => "client_present_ns",
            Column::ServerPresent => "server_present_ns",
            Column::ClientCpu => "client_cpu_ns",
            Column::TransportWait => "transport_wait_ns",
            Column::ServerCpu => "server_cpu_ns",
        }
    }

    /// The value of this column for one paired frame.
    pub fn of(self, p: &PairedFrame) -> i64 {
        match self {
            Column::ClientPresent => p.client.wall_ns,
            Column::ServerPresent => p.server.wall_ns,
            Column::ClientCpu => p.client.cpu_ns,
            Column::TransportWait => p.client.transport_ns,
            Column::ServerCpu => p.server.cpu_ns,
        }
    }
}

/// One selected frame: its client row and the server row with the same id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PairedFrame {
    pub client: FrameRow,
    pub server: FrameRow,
}

/// What `frame_stats.py` prints, plus the per-frame series it was computed from.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameStats {
    pub selection: Selection,
    pub first_frame: i64,
    pub last_frame: i64,
    /// One distribution per [`Column::ALL`], in that order.
    pub stats: [Distribution; 5],
    /// Percent of the summed client present time, per [`Column::SHARED`], in that order. They
    /// can add up to more than 100: role CPU and transport wait overlap.
    pub shares: [f64; 3],
    /// The selected frames in id order.
    pub series: Vec<PairedFrame>,
}

impl FrameStats {
    pub fn frames(&self) -> usize {
        self.series.len()
    }

    pub fn stat(&self, c: Column) -> Distribution {
        let i = Column::ALL.iter().position(|&x| x == c).unwrap_or(0);
        self.stats[i]
    }

    /// The share of `c` (None for the two present columns, which have none).
    pub fn share(&self, c: Column) -> Option<f64> {
        Column::SHARED
            .iter()
            .position(|&x| x == c)
            .map(|i| self.shares[i])
    }
}

/// The script's `definition` string, verbatim.
pub const DEFINITION: &str = "transport_wait is client wall time in SessionProducer::Park \
(flush, spin and sleep); role CPU and transport wait can overlap";
