//! End-to-end tests: the real `mgctl` binary on fixture trees, one module per command.
#![allow(clippy::unwrap_used)]

mod util;

mod budgets;
mod build;
mod census;
mod check;
mod ci;
mod cite;
mod controls;
mod ctest;
mod dirty_surface;
mod evidence;
mod examples;
mod fatal_sites;
mod faults;
mod floods;
mod generated;
mod grammar;
mod html;
mod include;
mod layout;
mod lexer;
mod link_ratchet;
mod lint;
mod live;
mod output;
mod parity;
mod paths;
mod retrace;
mod session;
mod stats;
mod symbols;
mod test_sets;
mod watch;
