//! Source and document lints: forbidden tokens, citations, untouched regions, test names, commits.
#![warn(unreachable_pub)]

pub mod census;
pub mod cite;
pub mod commits;
pub mod control;
pub mod cpp;
pub mod ctest;
pub mod diag;
pub mod evidence;
pub mod excerpt;
pub mod fatal_sites;
pub mod generated;
pub mod gitread;
pub mod layout;
pub(crate) mod lines;
pub mod pin;
pub mod preproc;
pub mod regions;
pub mod source;
pub mod test_names;
pub mod test_sets;
pub mod tokens;

/// A small deterministic generator (xorshift) for the tests over generated inputs.
#[cfg(test)]
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}
