//! Source and document lints: forbidden tokens, citations, untouched regions, test names, commits.

pub mod cpp;
pub mod gitread;
pub mod regions;
pub mod cite;
pub mod tokens;
pub mod test_names;
pub mod preproc;
pub mod commits;
